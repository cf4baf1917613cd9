/*
 * fuzz_valid.c - the validation case list (models/valid/valid.c, val_parse)
 * on any text. The scenario and data files a case names are read from disk,
 * relative to the current directory (run from the repository root so the
 * seeds find validation/); inputs naming device or kernel files (/dev/,
 * /proc/, /sys/) are skipped, and standard input (a data file "-") is
 * /dev/null, since reading a terminal or /dev/stdin would block.
 */
#include "fuzz.h"

#include "valid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct val_set *v = NULL;
	struct plumb_err err;

	fuzz_quiet_stdin();
	if (fuzz_names_special_file(data, size))
		return 0;
	val_parse("fuzz.yaml", (const char *)data, size, &v, &err);
	val_free(v);
	return 0;
}
