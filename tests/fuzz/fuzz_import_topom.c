/*
 * fuzz_import_topom.c - `plumb import topo-m` (io/import_*.c) on any
 * text; what imports is written out as scenario YAML.
 */
#include "fuzz.h"

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imp_opts o = { "fuzz.txt", NULL, NULL, 0 };
	struct imp_scn *s = imp_scn_new();
	struct plumb_err err;

	if (!s)
		abort();
	if (imp_topom_parse((const char *)data, size, &o, s, &err) == 0)
		imp_write_yaml(fuzz_sink(), s, "fuzz.yaml", &err);
	imp_scn_free(s);
	return 0;
}
