/*
 * fuzz_hfconfig.c - the Hugging Face config reader (io/hfconfig.c) on any
 * text as config.json; a model that loads also goes through its parameter
 * counts, its checkpoint formats and one decode step's ops at tp 1 and 2.
 */
#include "fuzz.h"

#include "hfconfig.h"
#include "llm.h"

static void run_model(const struct llm_model *m)
{
	struct llm_prec p;
	struct llm_shard s;
	struct llm_step st = { 4, 300, 0, 0 };
	struct llm_ops o;
	struct plumb_err err;
	double total, active;
	int tp;

	llm_params(m, &total, &active);
	if (llm_prec_setup(&p, m, "checkpoint", "bf16", &err) < 0)
		return;
	llm_ops_init(&o);
	for (tp = 1; tp <= 2; tp++) {
		llm_shard_init(&s, m, tp, 1);
		if (llm_step_ops(m, &p, &s, &st, &o, &err) == 0)
			fprintf(fuzz_sink(), "%d %g %g\n", o.n, llm_bytes_weights_per_gpu(m, &p, &s),
				llm_kv_bytes_per_seq_per_gpu(m, &p, &s, 1000));
	}
	llm_ops_release(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	static struct llm_model m;
	struct plumb_err err;

	if (hf_model_parse("config.json", text, NULL, NULL, "fuzz", &m, &err) == 0)
		run_model(&m);
	free(text);
	return 0;
}
