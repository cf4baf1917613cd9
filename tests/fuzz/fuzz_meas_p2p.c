/*
 * fuzz_meas_p2p.c - the p2pBandwidthLatencyTest parser (io/meas_p2p.c) on
 * any text.
 */
#include "fuzz.h"

#include "meas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meas_p2p_file *f = NULL;
	struct plumb_err err;

	meas_p2p_parse((const char *)data, size, "fuzz.txt", &f, &err);
	meas_p2p_free(f);
	return 0;
}
