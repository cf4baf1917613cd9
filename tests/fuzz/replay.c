/*
 * replay.c - run a fuzz target's LLVMFuzzerTestOneInput on files, without
 * libFuzzer, so `make check` (any compiler) and `make check-asan` replay the
 * seed corpora and the regression inputs of tests/fuzz/.
 *
 *   build/replay/fuzz_scn FILE...
 *
 * Exit status 0 when every file ran (a crash ends the process instead),
 * 4 when a file cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int main(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		unsigned char *buf = NULL;
		size_t len = 0, cap = 0, got;
		if (!f) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 4;
		}
		do {
			if (len == cap) {
				unsigned char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
				if (!nb)
					abort();
				buf = nb;
			}
			got = fread(buf + len, 1, cap - len, f);
			len += got;
		} while (got > 0);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	return 0;
}
