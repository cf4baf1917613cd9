/*
 * fuzz.h - shared helpers of the libFuzzer targets in tests/fuzz/ (one
 * fuzz_<parser>.c per parser, each defining LLVMFuzzerTestOneInput).
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined; a
 * target must never crash, leak or trip a sanitizer on any input.
 */
#ifndef PLUMB_FUZZ_H
#define PLUMB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (NULs inside are kept); caller frees. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A stream that discards what is written, opened once per process. */
static inline FILE *fuzz_sink(void)
{
	static FILE *f;
	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

/*
 * True when the input names a device or kernel file (/dev/, /proc/, /sys/):
 * targets whose input names files to read skip such inputs, since reading
 * /dev/stdin or /dev/zero would block or take the whole time budget.
 */
static inline int fuzz_names_special_file(const uint8_t *data, size_t size)
{
	static const char *const pre[] = { "/dev", "/proc", "/sys", NULL };
	size_t i;
	int k;
	for (i = 0; i < size; i++)
		for (k = 0; pre[k]; k++) {
			size_t n = strlen(pre[k]);
			if (size - i >= n && memcmp(data + i, pre[k], n) == 0)
				return 1;
		}
	return 0;
}

/* Standard input becomes /dev/null once ("-" as a file name reads it). */
static inline void fuzz_quiet_stdin(void)
{
	static int done;
	if (!done++ && !freopen("/dev/null", "r", stdin))
		abort();
}

#endif
