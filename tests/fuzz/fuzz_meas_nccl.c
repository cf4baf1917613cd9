/*
 * fuzz_meas_nccl.c - the nccl-tests table parser (io/meas_nccl.c) on any
 * text, without and with a hint.
 */
#include "fuzz.h"

#include "meas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meas_nccl_hint hint = { "all_gather_perf", 4 };
	struct meas_nccl_file *f = NULL;
	struct plumb_err err;

	meas_nccl_parse((const char *)data, size, "fuzz.txt", NULL, &f, &err);
	meas_nccl_free(f);
	f = NULL;
	meas_nccl_parse((const char *)data, size, "fuzz.txt", &hint, &f, &err);
	meas_nccl_free(f);
	return 0;
}
