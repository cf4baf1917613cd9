/*
 * fuzz_meas_csv.c - the generic CSV parser (io/meas_csv.c: collectives,
 * decode and serving tables) on any text.
 */
#include "fuzz.h"

#include "meas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meas_csv *t = NULL;
	struct plumb_err err;

	meas_csv_parse((const char *)data, size, "fuzz.csv", &t, &err);
	meas_csv_free(t);
	return 0;
}
