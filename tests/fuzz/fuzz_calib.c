/*
 * fuzz_calib.c - calibration files (models/calib/calib.c, calib_load: the
 * `--calib FILE` every command takes) on any text. calib_load reads a file,
 * so each input is written to one temporary file first; a file that loads
 * is applied to the default constants and sampled from its covariance, as
 * predict does for its 90% interval.
 */
#include "fuzz.h"

#include <gsl/gsl_rng.h>
#include <unistd.h>

#include "calib.h"
#include "consts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static struct calib_file c;
	struct plumb_consts k;
	struct plumb_err err;
	FILE *f;

	if (!path[0]) {
		int fd;
		snprintf(path, sizeof(path), "/tmp/plumb-fuzz-calib.XXXXXX");
		if ((fd = mkstemp(path)) < 0)
			abort();
		close(fd);
	}
	if (!(f = fopen(path, "wb")))
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	if (calib_load(path, &c, &err) == 0) {
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		if (!rng)
			abort();
		consts_defaults(&k);
		calib_apply(&c, &k);
		calib_sample(&c, rng, &k);
		gsl_rng_free(rng);
	}
	return 0;
}
