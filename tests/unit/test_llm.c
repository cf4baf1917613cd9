/*
 * test_llm.c - the model catalog and the decode-step op model: expert
 * counts, published sizes, memory fit, errors, chunked prompts, tile fill,
 * MoE ranks and runners. Bytes per op and the roofline by hand are in
 * test_llm_ops.c.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "llm.h"
#include "scn.h"
#include "test_llm_int.h"

void suite_llm(void);

/* A made-up model small enough to count by hand. */
const char tiny_yaml[] =
	"catalog: models\n"
	"models:\n"
	"  - id: tiny\n"
	"    layers: 2\n"
	"    dense_layers: 1\n"
	"    hidden: 64\n"
	"    intermediate: 128\n"
	"    vocab: 100\n"
	"    attention: {kind: gqa, heads: 4, kv_heads: 2, head_dim: 16}\n"
	"    moe: {experts: 4, top_k: 2, shared: 1, intermediate: 32}\n"
	"    source: made up for the tests\n";

const struct llm_model *builtin(const char *id)
{
	struct plumb_err e;
	const struct llm_catalog *c = llm_catalog_builtin(&e);
	const struct llm_model *m = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	if (llm_model_lookup(c, id, &m, &e) < 0)
		printf("\n  %s\n", e.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	return m;
}

const struct scn_gpu_model *gpu(const char *id)
{
	struct plumb_err e;
	const struct scn_catalog *c = scn_catalog_builtin(&e);
	int i;
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	i = scn_catalog_find(c, id);
	CU_ASSERT_FATAL(i >= 0);
	return &c->gpus[i];
}

/* Step time of GLM-5 NVFP4 tp8 on an RTX PRO 6000, CUDA graphs. */
static double glm5_step(int batch, int context)
{
	const struct llm_model *m = builtin("glm-5");
	struct llm_step st = { batch, context, 0, 0, 0, 0 };
	struct plumb_consts k;
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	double t = -1;
	consts_defaults(&k);
	CU_ASSERT_EQUAL(llm_prec_init(&p, m, LLM_NVFP4, LLM_BF16, &e), 0);
	llm_shard_init(&s, m, 8, 1);
	llm_ops_init(&o);
	CU_ASSERT_EQUAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL(llm_ops_time(&o, gpu("rtx-pro-6000"), &k, 1, &t, &e), 0);
	llm_ops_release(&o);
	return t;
}

static void test_expected_experts(void)
{
	/* one token touches exactly top_k experts */
	EXPECT_NEAR(llm_expected_experts(256, 8, 1), 8.0, 1e-12);
	EXPECT_NEAR(llm_expected_experts(8, 2, 1), 2.0, 1e-12);
	/* a large batch touches them all */
	EXPECT_NEAR(llm_expected_experts(256, 8, 100000), 256.0, 1e-9);
	/*
	 * E=256, k=8, B=64: (1 - 8/256)^64 = (31/32)^64 = exp(64 ln 0.96875)
	 * = exp(64 x -0.0317487) = exp(-2.031918) = 0.1310840;
	 * 256 x (1 - 0.1310840) = 222.4425.
	 */
	EXPECT_NEAR(llm_expected_experts(256, 8, 64), 222.4425, 1e-6);
	/* B=2: 256 (1 - (31/32)^2) = 256 x 0.0615234 = 15.75 */
	EXPECT_NEAR(llm_expected_experts(256, 8, 2), 15.75, 1e-9);
	CU_ASSERT(llm_expected_experts(256, 8, 0) == 0);
}

static void test_glm5_sizes(void)
{
	const struct llm_model *m = builtin("glm-5");
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;

	/* realdata/model-configs.md 1c: NVFP4 weights ~440 GB */
	CU_ASSERT_EQUAL(llm_prec_init(&p, m, LLM_NVFP4, LLM_BF16, &e), 0);
	EXPECT_NEAR(llm_bytes_weights_total(m, &p, 0), 440e9, 0.10);
	/* ... "57.06 GB per GPU across 8 GPUs" */
	llm_shard_init(&s, m, 8, 1);
	EXPECT_NEAR(llm_bytes_weights_per_gpu(m, &p, &s), 57.06e9, 0.10);
	/* 744B parameters: bf16 bytes / 2 */
	llm_prec_init(&p, m, LLM_BF16, LLM_BF16, &e);
	EXPECT_NEAR(llm_bytes_weights_total(m, &p, 0) / 2, 744e9, 0.02);
	/* MTP layer "~19 GB in BF16" */
	EXPECT_NEAR(llm_bytes_weights_total(m, &p, 1) - llm_bytes_weights_total(m, &p, 0),
		    19e9, 0.10);
	/* model-configs.md 1c derived: (512 + 64) x 2 B x 78 layers = 89,856 B/token */
	EXPECT_NEAR(llm_kv_bytes_per_token(m, LLM_BF16, 0), 89856.0, 1e-12);
	/* plus the indexer's fp8 keys: 78 x 128 */
	EXPECT_NEAR(llm_kv_bytes_per_token(m, LLM_BF16, 1), 89856.0 + 78 * 128, 1e-12);
	EXPECT_NEAR(llm_kv_bytes_per_token(m, LLM_FP8, 0), 89856.0 / 2, 1e-12);
}

static void test_catalog_sizes(void)
{
	/* published parameter counts (bf16 bytes / 2, MTP not included) */
	static const struct { const char *id; double params; } want[] = {
		{ "deepseek-v3", 671e9 }, { "qwen3-235b-a22b", 235e9 },
		{ "mixtral-8x7b", 46.7e9 }, { "llama-3.1-70b", 70.6e9 },
	};
	struct plumb_err e;
	struct llm_prec p;
	size_t i;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct llm_model *m = builtin(want[i].id);
		llm_prec_init(&p, m, LLM_BF16, LLM_BF16, &e);
		EXPECT_NEAR(llm_bytes_weights_total(m, &p, 0) / 2, want[i].params, 0.02);
	}
	/* Llama 3.1 70B KV: 80 layers x 2 x 8 heads x 128 x 2 B = 327,680 B/token */
	EXPECT_NEAR(llm_kv_bytes_per_token(builtin("llama-3.1-70b"), LLM_BF16, 0), 327680.0, 1e-12);
}

static void test_gpu_tflops(void)
{
	const struct scn_gpu_model *pro = gpu("rtx-pro-6000"), *h100 = gpu("h100-sxm");
	EXPECT_NEAR(pro->tflops_bf16, 503.8, 1e-12);
	EXPECT_NEAR(pro->tflops_fp4, 2015.2, 1e-12);
	CU_ASSERT(h100->tflops_fp4 == 0);
	/* fp4 math without FP4 tensor cores runs weight-only at the bf16 rate
	 * (Marlin W4A16), not at the FP8 one the GPU has; fp8 without FP8 too */
	EXPECT_NEAR(llm_gpu_tflops(h100, LLM_NVFP4), 989.4, 1e-12);
	EXPECT_NEAR(llm_gpu_tflops(h100, LLM_FP8), 1978.9, 1e-12);
	EXPECT_NEAR(llm_gpu_tflops(gpu("l40s"), LLM_MXFP4), gpu("l40s")->tflops_bf16, 1e-12);
	EXPECT_NEAR(llm_gpu_tflops(gpu("a100-sxm"), LLM_NVFP4), 312.0, 1e-12);
	EXPECT_NEAR(llm_gpu_tflops(gpu("a100-sxm"), LLM_FP8), 312.0, 1e-12);
	EXPECT_NEAR(llm_gpu_tflops(pro, LLM_MXFP4), 2015.2, 1e-12);
	CU_ASSERT(llm_gpu_tflops(gpu("rtx-2080ti"), LLM_BF16) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(llm_kernel_path(gpu("l40s"), LLM_MXFP4), "weight-only"));
	CU_ASSERT_PTR_NOT_NULL(strstr(llm_kernel_path(gpu("l40s"), LLM_FP8), "W8A8"));
	CU_ASSERT_PTR_NOT_NULL(strstr(llm_kernel_path(pro, LLM_NVFP4), "FP4 tensor cores"));
}

static void test_memory_bound_b1(void)
{
	const struct llm_model *m = builtin("glm-5");
	struct llm_step st = { 1, 4096, 0, 0, 0, 0 };
	struct plumb_consts k;
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	int i, bad = 0;
	consts_defaults(&k);
	llm_prec_init(&p, m, LLM_NVFP4, LLM_BF16, &e);
	llm_shard_init(&s, m, 8, 1);
	llm_ops_init(&o);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL(llm_ops_time(&o, gpu("rtx-pro-6000"), &k, 1, NULL, &e), 0);
	for (i = 0; i < o.n; i++)
		if (o.op[i].compute_s >= o.op[i].mem_s) {
			if (!bad++)
				printf("\n  layer %d %s: compute %.3g s >= memory %.3g s\n",
				       o.op[i].layer, o.op[i].what, o.op[i].compute_s, o.op[i].mem_s);
		}
	CU_ASSERT_EQUAL(bad, 0);
	/* 78 layers: 3 dense (5 ops + indexer) and 75 MoE (9 ops with the
	 * combine), final norm, lm_head */
	CU_ASSERT_EQUAL(o.n, 3 * 6 + 75 * 9 + 2);
	/* DSA: the attention core reads at most index_topk tokens */
	for (i = 0; i < o.n && strcmp(o.op[i].what, "attention core"); i++)
		;
	CU_ASSERT_FATAL(i < o.n);
	EXPECT_NEAR(o.op[i].bytes, 1.0 * 2048 * 576 * 2, 1e-12);
	EXPECT_NEAR(o.op[i - 1].bytes, 1.0 * (4096 + 1) * 128, 1e-12);   /* indexer keys: L and its own */
	llm_ops_release(&o);
}

static void test_monotonic(void)
{
	double prev = 0, t;
	int b, l;
	for (b = 1; b <= 512; b *= 2) {
		t = glm5_step(b, 4096);
		if (!(t > prev))
			printf("\n  batch %d: %.6g s, not above %.6g s\n", b, t, prev);
		CU_ASSERT(t > prev);
		prev = t;
	}
	prev = 0;
	for (l = 0; l <= 131072; l = l ? 2 * l : 512) {
		t = glm5_step(8, l);
		if (!(t > prev))
			printf("\n  context %d: %.6g s, not above %.6g s\n", l, t, prev);
		CU_ASSERT(t > prev);
		prev = t;
	}
}

static void test_fit(void)
{
	const struct llm_model *m = builtin("glm-5");
	const struct scn_gpu_model *g = gpu("rtx-pro-6000");
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	llm_shard_init(&s, m, 8, 1);
	llm_prec_init(&p, m, LLM_NVFP4, LLM_BF16, &e);
	CU_ASSERT_EQUAL(llm_check_fit(m, &p, &s, g, 64, 4096, &e), 0);
	llm_prec_init(&p, m, LLM_BF16, LLM_BF16, &e);
	CU_ASSERT_EQUAL(llm_check_fit(m, &p, &s, g, 1, 4096, &e), -PLUMB_EINPUT);
	EXPECT_MSG(&e, "model does not fit: glm-5 bf16 needs");
	EXPECT_MSG(&e, "rtx-pro-6000 has 103.1 GB");
}

static void test_errors(void)
{
	struct plumb_err e;
	const struct llm_catalog *c = llm_catalog_builtin(&e);
	const struct llm_model *m = (const void *)&e;
	struct llm_catalog *bad = NULL;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	struct llm_step st = { 1, 10, 0, 0, 0, 0 };
	char text[1024];

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(llm_model_lookup(c, "glm5", &m, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(m);
	EXPECT_MSG(&e, "unknown model 'glm5' (did you mean 'glm-5'?)");
	CU_ASSERT_EQUAL(llm_model_lookup(c, "gpt-4", &m, &e), -PLUMB_EINPUT);
	EXPECT_MSG(&e, "unknown model 'gpt-4' (known: glm-5, deepseek-v3,");

	/* a misspelt key: position and suggestion */
	snprintf(text, sizeof(text), "%s", tiny_yaml);
	memcpy(strstr(text, "hidden:"), "hiden: ", 7);
	CU_ASSERT_EQUAL(llm_catalog_parse("bad.yaml", text, &bad, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(bad);
	EXPECT_MSG(&e, "unknown key 'hiden' in models entry (did you mean 'hidden'?)");
	CU_ASSERT_EQUAL(e.line, 6);
	CU_ASSERT_EQUAL(e.col, 5);
	CU_ASSERT_STRING_EQUAL(e.file, "bad.yaml");

	CU_ASSERT_EQUAL(llm_catalog_parse("bad.yaml", "catalog: models\nmodels:\n"
					  "  - {id: x, layers: 1, hidden: 8, intermediate: 8, vocab: 8,\n"
					  "     attention: {kind: gqa, heads: 2, kv_heads: 1, head_dim: 4},\n"
					  "     moe: {experts: 2, top_k: 3, intermediate: 4}, source: s}\n",
					  &bad, &e), -PLUMB_EINPUT);
	EXPECT_MSG(&e, "top_k (3) is more than experts (2)");
	CU_ASSERT_EQUAL(e.line, 5);

	CU_ASSERT_EQUAL(llm_catalog_parse("bad.yaml", "catalog: models\nmodels:\n"
					  "  - {id: x, layers: 1, hidden: 8, intermediate: 8, vocab: 8,\n"
					  "     attention: {kind: mha, heads: 2}, source: s}\n",
					  &bad, &e), -PLUMB_EINPUT);
	CU_ASSERT_EQUAL(e.line, 4);

	/* shards that do not divide */
	m = builtin("glm-5");
	llm_prec_init(&p, m, LLM_NVFP4, LLM_BF16, &e);
	llm_shard_init(&s, m, 3, 1);
	llm_ops_init(&o);
	CU_ASSERT_EQUAL(llm_step_ops(m, &p, &s, &st, &o, &e), -PLUMB_EINPUT);
	EXPECT_MSG(&e, "tp 3 does not divide glm-5's 64 attention heads");
	llm_shard_init(&s, m, 8, 3);
	CU_ASSERT_EQUAL(llm_step_ops(m, &p, &s, &st, &o, &e), -PLUMB_EINPUT);
	llm_shard_init(&s, m, 8, 1);
	st.draft = 2;
	CU_ASSERT_EQUAL(llm_step_ops(m, &p, &s, &st, &o, &e), -PLUMB_EINPUT);
	EXPECT_MSG(&e, "draft tokens need the MTP layer");
	CU_ASSERT_EQUAL(llm_prec_init(&p, m, LLM_NVFP4, LLM_NVFP4, &e), -PLUMB_EINPUT);
	EXPECT_MSG(&e, "KV cache dtype must be bf16 or fp8");

	/* a GPU without tensor rates in the catalog */
	st.draft = 0;
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	{
		struct plumb_consts k;
		consts_defaults(&k);
		CU_ASSERT_EQUAL(llm_ops_time(&o, gpu("rtx-2080ti"), &k, 1, NULL, &e), -PLUMB_EINPUT);
		EXPECT_MSG(&e, "GPU 'rtx-2080ti' has no tensor throughput");
	}
	llm_ops_release(&o);
}

static void test_mtp_draft(void)
{
	const struct llm_model *m = builtin("glm-5");
	struct llm_step st = { 4, 1000, 0, 2, 0, 0 };
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	int i, passes = 0, heads = 0;
	llm_prec_init(&p, m, LLM_NVFP4, LLM_BF16, &e);
	llm_shard_init(&s, m, 8, 1);
	s.mtp = 1;
	llm_ops_init(&o);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	for (i = 0; i < o.n; i++) {
		if (o.op[i].pass > passes)
			passes = o.op[i].pass;
		heads += o.op[i].kind == LLM_OP_LM_HEAD;
	}
	CU_ASSERT_EQUAL(passes, 2);
	CU_ASSERT_EQUAL(heads, 3);
	/* main model verifies 1 + 2 tokens per sequence: 12 tokens through lm_head */
	for (i = 0; i < o.n && o.op[i].kind != LLM_OP_LM_HEAD; i++)
		;
	EXPECT_NEAR(o.op[i].flops, 2.0 * 19360 * 6144 * 12, 1e-12);
	llm_ops_release(&o);
}

/* Causal pairs: the triangle of the new tokens plus the rectangle over
 * the cache, capped per query by a window or a top-k. */
static void test_causal_pairs(void)
{
	double one = 0, sum = 0;
	int c;
	EXPECT_NEAR(llm_causal_pairs(0, 4, 0), 10.0, 1e-15);           /* 1+2+3+4 */
	EXPECT_NEAR(llm_causal_pairs(10, 4, 0), 4 * 10 + 10.0, 1e-15);
	EXPECT_NEAR(llm_causal_pairs(10, 1, 0), 11.0, 1e-15);          /* decode: c + 1 */
	/* window 12: queries at 11, 12, 13, 14 see 11, 12, 12, 12 keys */
	EXPECT_NEAR(llm_causal_pairs(10, 4, 12), 47.0, 1e-15);
	EXPECT_NEAR(llm_causal_pairs(100, 4, 12), 48.0, 1e-15);
	EXPECT_NEAR(llm_causal_pairs(0, 4, 12), 10.0, 1e-15);
	/* chunks of 1000 over 16000 tokens, capped at 4096: the same pairs */
	for (c = 0; c < 16000; c += 1000)
		sum += llm_causal_pairs(c, 1000, 4096);
	one = llm_causal_pairs(0, 16000, 4096);
	EXPECT_NEAR(sum, one, 1e-12);
	CU_ASSERT(one < 16000.0 * 4096);
}

/* Sum over the chunks of one attention-core field of llm_step_ops. */
static double chunked_core(const struct llm_model *m, const struct llm_prec *p, int S, int q,
			   int gemm)
{
	struct llm_step st = { 1, 0, 0, 0, 0, 0 };
	struct plumb_err e;
	struct llm_shard s;
	struct llm_ops o;
	double sum = 0;
	int i;
	llm_shard_init(&s, m, 1, 1);
	llm_ops_init(&o);
	for (st.context = 0; st.context < S; st.context += q) {
		st.q_len = q;
		CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, p, &s, &st, &o, &e), 0);
		for (i = 0; i < o.n; i++)
			if (!strcmp(o.op[i].what, "attention core"))
				sum += gemm ? o.op[i].gemm_flops : o.op[i].flops;
	}
	llm_ops_release(&o);
	return sum;
}

/* A prompt in chunks does the attention math of the prompt in one pass:
 * Llama-3.1-70B, 80 layers x 64 heads x 128 x 2 x 2 = 2.62e6 FLOPs per
 * pair, S (S + 1) / 2 pairs. MLA's prefill form decompresses the cache
 * each chunk: GEMM work a single pass has none of. */
static void test_chunk_equals_one_pass(void)
{
	const struct llm_model *m = builtin("llama-3.1-70b"), *d = builtin("deepseek-v3");
	struct plumb_err e;
	struct llm_prec p;
	double one, chunked;
	llm_prec_init(&p, m, LLM_FP8, LLM_BF16, &e);
	one = chunked_core(m, &p, 16384, 16384, 0);
	chunked = chunked_core(m, &p, 16384, 1024, 0);
	EXPECT_NEAR(one, 80 * 64 * 128 * 4.0 * 16384 * 16385 / 2, 1e-12);
	EXPECT_NEAR(chunked, one, 1e-12);
	llm_prec_init(&p, d, LLM_FP8, LLM_BF16, &e);
	one = chunked_core(d, &p, 8192, 8192, 0);
	chunked = chunked_core(d, &p, 8192, 1024, 0);
	/* un-absorbed: 128 heads x (128 + 64 + 128) x 2 per pair and layer */
	EXPECT_NEAR(one, 61 * 128 * 320 * 2.0 * 8192 * 8193 / 2, 1e-12);
	EXPECT_NEAR(chunked, one, 1e-12);
	CU_ASSERT_EQUAL(chunked_core(d, &p, 8192, 8192, 1), 0);
	/* kv_b over 0 + 1024 + ... + 7168 cached tokens */
	EXPECT_NEAR(chunked_core(d, &p, 8192, 1024, 1),
		    61 * 2.0 * 28672 * 512 * 128 * (128 + 128), 1e-12);
}

/* Tile fill: a GEMM of few rows computes a whole tile; decode stays
 * memory-bound, a long prefill reaches the GEMM's efficiency. */
static void test_tile_fill(void)
{
	const struct llm_model *m = builtin("llama-3.1-70b");
	const struct scn_gpu_model *g = gpu("h200");
	struct llm_step st = { 1, 0, 0, 0, 0, 0 };
	struct plumb_consts k;
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	double t8 = 0, t16 = 0, t8192 = 0, f8192 = 0;
	int i, q, mem = 1;

	EXPECT_NEAR(llm_tile_rows(1, 128), 16, 1e-15);
	EXPECT_NEAR(llm_tile_rows(8, 128), 16, 1e-15);
	EXPECT_NEAR(llm_tile_rows(17, 128), 32, 1e-15);
	EXPECT_NEAR(llm_tile_rows(100, 128), 128, 1e-15);
	EXPECT_NEAR(llm_tile_rows(129, 128), 256, 1e-15);
	EXPECT_NEAR(llm_tile_rows(8192, 128), 8192, 1e-15);
	consts_defaults(&k);
	llm_prec_init(&p, m, LLM_FP8, LLM_BF16, &e);
	llm_shard_init(&s, m, 1, 1);
	llm_ops_init(&o);
	for (q = 1; q <= 8192; q *= 2) {
		st.q_len = q;
		CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
		CU_ASSERT_EQUAL_FATAL(llm_ops_time(&o, g, &k, 1, NULL, &e), 0);
		for (i = 0; i < o.n && o.op[i].kind != LLM_OP_DENSE_MLP; i++)
			;
		CU_ASSERT_FATAL(i < o.n);
		if (q <= 8 && o.op[i].compute_s >= o.op[i].mem_s)
			mem = 0;
		if (q == 8)
			t8 = o.op[i].compute_s;
		if (q == 16)
			t16 = o.op[i].compute_s;
		if (q == 8192) {
			t8192 = o.op[i].compute_s;
			f8192 = o.op[i].flops;
			CU_ASSERT_EQUAL(o.op[i].bound, LLM_BOUND_COMPUTE);
		}
	}
	CU_ASSERT(mem);                 /* up to 8 rows: memory-bound */
	EXPECT_NEAR(t8, t16, 1e-12);    /* 8 rows cost a 16-row tile */
	EXPECT_NEAR(t8192, f8192 / (1978.9e12 * k.v[K_FP8_FLOPS_EFF]), 1e-12);
	EXPECT_NEAR(t8 / 8, 2 * t8192 / 8192, 1e-12);   /* half the tile idle */
	/* the same GEMM with one scale a tensor (fp8t) runs at fp8t_flops_eff */
	llm_prec_init(&p, m, LLM_FP8T, LLM_BF16, &e);
	st.q_len = 8192;
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL_FATAL(llm_ops_time(&o, g, &k, 1, NULL, &e), 0);
	for (i = 0; i < o.n && o.op[i].kind != LLM_OP_DENSE_MLP; i++)
		;
	CU_ASSERT_FATAL(i < o.n);
	EXPECT_NEAR(o.op[i].compute_s, o.op[i].flops / (1978.9e12 * k.v[K_FP8T_FLOPS_EFF]), 1e-12);
	CU_ASSERT(k.v[K_FP8T_FLOPS_EFF] > k.v[K_FP8_FLOPS_EFF]);
	CU_ASSERT_EQUAL(llm_flops_eff_of(g, LLM_K_GEMM, LLM_FP8T), K_FP8T_FLOPS_EFF);
	CU_ASSERT_EQUAL(llm_flops_eff_of(g, LLM_K_ATTN, LLM_FP8T), K_ATTN_FP8_FLOPS_EFF);
	CU_ASSERT_EQUAL(llm_flops_eff_of(gpu("a100-sxm"), LLM_K_GEMM, LLM_FP8T), K_FLOPS_EFF);
	llm_ops_release(&o);
}

/* Eager launches as a host queue: three one-kernel ops, the first 100 us
 * on the GPU, the others nothing; the host issues one every 10 us. */
static void test_host_queue(void)
{
	const struct scn_gpu_model *g = gpu("h200");
	struct llm_op ops[3];
	struct llm_ops o = { 3, 3, ops };
	struct plumb_consts k;
	struct plumb_err e;
	double t;
	int i;
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 3; i++) {
		ops[i].kclass = LLM_K_ELEM;
		ops[i].kernels = 1;
	}
	ops[0].bytes = 100e-6 * 4800e9;
	consts_defaults(&k);
	k.v[K_MEM_EFF] = 1.0;
	k.v[K_KMIN_ELEM_US] = 0;
	k.v[K_KERNEL_LAUNCH_EAGER_US] = 10.0;
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 0, &t, &e), 0);
	/* the GPU waits 10 us for the first launch, then the host is ahead */
	EXPECT_NEAR(t, 110e-6, 1e-12);
	EXPECT_NEAR(ops[0].launch_s, 10e-6, 1e-9);
	CU_ASSERT_EQUAL(ops[1].launch_s, 0);
	CU_ASSERT_EQUAL(ops[2].launch_s, 0);
	/* the long op last: the host issued it at 30 us */
	ops[2].bytes = ops[0].bytes;
	ops[0].bytes = 0;
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 0, &t, &e), 0);
	EXPECT_NEAR(t, 130e-6, 1e-12);
	EXPECT_NEAR(ops[1].launch_s, 10e-6, 1e-9);
	/* with CUDA graphs the gaps add up per kernel */
	k.v[K_KERNEL_LAUNCH_US] = 1.0;
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 1, &t, &e), 0);
	EXPECT_NEAR(t, 103e-6, 1e-12);
}

/*
 * Brute force: every choice of k distinct experts for each of T tokens
 * (all equally likely), the max over ep ranks of the distinct experts and
 * of the pairs on a rank (rank r holds experts [r E/ep, (r + 1) E/ep)).
 */
static void brute_busiest(int E, int k, int T, int ep, double *experts, double *pairs)
{
	int subs[64][8], nsub = 0, c[8], i, t, choice[4] = { 0 }, m = E / ep;
	double se = 0, sp = 0, n = 0;
	for (i = 0; i < k; i++)
		c[i] = i;
	for (;;) {                              /* k-subsets in order */
		memcpy(subs[nsub++], c, sizeof(c));
		for (i = k - 1; i >= 0 && c[i] == E - k + i; i--)
			;
		if (i < 0)
			break;
		c[i]++;
		for (t = i + 1; t < k; t++)
			c[t] = c[t - 1] + 1;
	}
	for (;;) {
		int touched[16] = { 0 }, d[8] = { 0 }, p[8] = { 0 }, md = 0, mp = 0, r;
		for (t = 0; t < T; t++)
			for (i = 0; i < k; i++) {
				int x = subs[choice[t]][i];
				p[x / m]++;
				touched[x] = 1;
			}
		for (i = 0; i < E; i++)
			d[i / m] += touched[i];
		for (r = 0; r < ep; r++) {
			md = d[r] > md ? d[r] : md;
			mp = p[r] > mp ? p[r] : mp;
		}
		se += md;
		sp += mp;
		n++;
		for (t = 0; t < T && ++choice[t] == nsub; t++)
			choice[t] = 0;
		if (t == T)
			break;
	}
	*experts = se / n;
	*pairs = sp / n;
}

static void test_moe_busiest(void)
{
	static const int cases[][4] = {         /* E, k, T, ep */
		{ 4, 2, 1, 2 }, { 4, 2, 2, 2 }, { 8, 2, 1, 2 }, { 8, 2, 1, 4 }, { 8, 2, 2, 2 },
		{ 8, 2, 3, 4 }, { 6, 2, 3, 3 }, { 8, 3, 2, 2 }, { 8, 2, 3, 8 }, { 8, 1, 3, 2 },
	};
	struct llm_moe_load ld;
	struct plumb_err e;
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const int *c = cases[i];
		double be, bp;
		brute_busiest(c[0], c[1], c[2], c[3], &be, &bp);
		CU_ASSERT_EQUAL_FATAL(llm_moe_busiest(c[0], c[1], c[2], c[3], 0, &ld, &e), 0);
		/* the experts exactly; the pairs exactly at one token or two
		 * ranks, else by the normal approximation (6% low at 3 tokens
		 * on 8 ranks of one expert, closer as the counts grow) */
		EXPECT_NEAR(ld.experts, be, 1e-9);
		EXPECT_NEAR(ld.pairs, bp, c[2] == 1 || c[3] == 2 ? 1e-9 : 0.07);
	}
	/* Mixtral at one token: on 2 ranks both experts share one with
	 * probability 3/7, on 4 ranks 1/7; the busiest rank's count is 1 plus it */
	CU_ASSERT_EQUAL(llm_moe_busiest(8, 2, 1, 2, 0, &ld, &e), 0);
	EXPECT_NEAR(ld.experts - 1, 3.0 / 7, 1e-12);
	CU_ASSERT_EQUAL(llm_moe_busiest(8, 2, 1, 4, 0, &ld, &e), 0);
	EXPECT_NEAR(ld.experts - 1, 1.0 / 7, 1e-12);
	/* one rank: the totals; many tokens: every rank touches all it holds */
	CU_ASSERT_EQUAL(llm_moe_busiest(256, 8, 64, 1, 0, &ld, &e), 0);
	EXPECT_NEAR(ld.experts, llm_expected_experts(256, 8, 64), 1e-12);
	EXPECT_NEAR(ld.pairs, 512.0, 1e-12);
	CU_ASSERT_EQUAL(llm_moe_busiest(256, 8, 4096, 8, 0, &ld, &e), 0);
	EXPECT_NEAR(ld.experts, 32.0, 1e-12);
	CU_ASSERT(ld.pairs > 4096.0 && ld.pairs < 4096.0 * 1.1);
	/* the busiest rank is above the mean and below what it holds */
	CU_ASSERT_EQUAL(llm_moe_busiest(256, 8, 64, 8, 0, &ld, &e), 0);
	CU_ASSERT(ld.experts > llm_expected_experts(256, 8, 64) / 8 && ld.experts < 32);
	/* errors */
	CU_ASSERT_EQUAL(llm_moe_busiest(8, 2, 1, 3, 0, &ld, &e), -PLUMB_EINPUT);
	EXPECT_MSG(&e, "ep dividing E");
	CU_ASSERT_EQUAL(llm_moe_busiest(8, 2, 0, 2, 0, &ld, &e), -PLUMB_EINPUT);
	CU_ASSERT_EQUAL(llm_moe_busiest(8, 2, 1, 2, -1, &ld, &e), -PLUMB_EINPUT);
}

static void test_moe_skew(void)
{
	struct llm_moe_load u, a, b;
	struct plumb_err e;
	/* one token takes k experts whatever the skew */
	CU_ASSERT_EQUAL(llm_moe_busiest(64, 4, 1, 1, 1.0, &a, &e), 0);
	EXPECT_NEAR(a.experts, 4.0, 1e-12);
	/* popular experts repeat: fewer distinct experts in all ... */
	CU_ASSERT_EQUAL(llm_moe_busiest(64, 4, 32, 1, 0, &u, &e), 0);
	CU_ASSERT_EQUAL(llm_moe_busiest(64, 4, 32, 1, 1.2, &a, &e), 0);
	CU_ASSERT(a.experts < u.experts - 1);
	/* ... and a busier busiest rank of pairs; the same bytes out twice */
	CU_ASSERT_EQUAL(llm_moe_busiest(64, 4, 32, 8, 0, &u, &e), 0);
	CU_ASSERT_EQUAL(llm_moe_busiest(64, 4, 32, 8, 1.2, &a, &e), 0);
	CU_ASSERT_EQUAL(llm_moe_busiest(64, 4, 32, 8, 1.2, &b, &e), 0);
	CU_ASSERT(a.pairs > u.pairs);
	CU_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
	CU_ASSERT(a.experts <= 8 && a.pairs <= 32 * 4);
}

/* The routed experts op of Mixtral at tp2 or tp2+ep2, batch B, runner r. */
static struct llm_op mixtral_experts(int ep, int batch, enum llm_moe_runner r,
				     const struct plumb_consts *k)
{
	const struct llm_model *m = builtin("mixtral-8x7b");
	struct llm_step st = { batch, 100, 0, 0, 0, 0 };
	struct llm_op op;
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	int i;
	memset(&op, 0, sizeof(op));
	CU_ASSERT_EQUAL(llm_prec_init(&p, m, LLM_BF16, LLM_BF16, &e), 0);
	p.moe_runner = r;
	llm_shard_init(&s, m, 2, ep);
	if (ep > 1)
		s.moe_tp = 1;
	llm_ops_init(&o);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL_FATAL(llm_ops_time(&o, gpu("h100-sxm"), k, 1, NULL, &e), 0);
	for (i = 0; i < o.n; i++)
		if (o.op[i].kind == LLM_OP_EXPERTS && o.op[i].layer == 0) {
			op = o.op[i];
			break;
		}
	llm_ops_release(&o);
	return op;
}

static void test_moe_runners(void)
{
	struct plumb_consts k;
	struct llm_op a, b;
	double per = 1e-6 * 0.30, kmin = 1e-6 * 6.0;
	int batch;
	consts_defaults(&k);
	k.v[K_MOE_EXPERT_US] = 0.30;    /* its value beside moe_mem_eff 0.956 */
	/* fused: 4 kernels plus moe_expert_us per touched expert, which grows
	 * with the experts a batch touches */
	for (batch = 1; batch <= 8; batch *= 2) {
		double n = llm_expected_experts(8, 2, batch);
		a = mixtral_experts(1, batch, LLM_MOE_FUSED, &k);
		CU_ASSERT_EQUAL(a.kernels, 4);
		EXPECT_NEAR(a.experts, n, 1e-12);
		EXPECT_NEAR(a.kmin_s, 4 * kmin + n * per, 1e-12);
	}
	k.v[K_MOE_EXPERT_US] = 1.30;
	b = mixtral_experts(1, 4, LLM_MOE_FUSED, &k);
	a.experts = llm_expected_experts(8, 2, 4);
	EXPECT_NEAR(b.kmin_s - (4 * kmin + a.experts * per), a.experts * 1e-6, 1e-9);
	consts_defaults(&k);
	k.v[K_MOE_EXPERT_US] = 0.30;
	/* tp2 and tp2+ep2 read the same bytes at the mean; the busiest GPU of
	 * tp2+ep2 reads 10/7 whole experts where tp2 reads two halves */
	a = mixtral_experts(1, 1, LLM_MOE_FUSED, &k);
	b = mixtral_experts(2, 1, LLM_MOE_FUSED, &k);
	{
		/* less the pairs' activation rows (hidden 4096 in and out in
		 * bf16, gate_up 2 x 14336 / moe_tp written and read): tp2 has
		 * 2 pairs, the busiest tp2+ep2 rank 10/7 */
		double wa = a.bytes - 2.0 * (4096 * 2 + 2.0 * 7168 * 2 * 2 + 4096 * 2);
		double wb = b.bytes - 10.0 / 7 * (4096 * 2 + 2.0 * 14336 * 2 * 2 + 4096 * 2);
		EXPECT_NEAR(wb / wa, 10.0 / 7, 1e-12);
	}
	CU_ASSERT(b.seconds > a.seconds);
	/* a loop over the experts: 2 + 3 per touched expert dense GEMMs, no
	 * per-expert constant */
	a = mixtral_experts(1, 1, LLM_MOE_LOOP, &k);
	CU_ASSERT_EQUAL(a.kernels, 2 + 3 * 2);
	CU_ASSERT_EQUAL(a.kclass, LLM_K_GEMM);
	EXPECT_NEAR(a.kmin_s, 8 * 1e-6 * 4.0, 1e-12);
	a = mixtral_experts(1, 8, LLM_MOE_LOOP, &k);
	CU_ASSERT_EQUAL(a.kernels, 2 + (int)lround(3 * llm_expected_experts(8, 2, 8)));
	/* DeepEP + masked grouped GEMM: 3 kernels over every local expert */
	a = mixtral_experts(2, 1, LLM_MOE_DEEPEP, &k);
	CU_ASSERT_EQUAL(a.kernels, 3);
	EXPECT_NEAR(a.experts, 4.0, 1e-12);
	CU_ASSERT_STRING_EQUAL(llm_moe_runner_name(LLM_MOE_DEEPEP), "deepep");
}

/*
 * A prefill's grouped MoE GEMM: every expert rounds its own rows up to its
 * own tile (llm_moe_tile_fill), and the grouped kernel runs at moe_flops_rel
 * of the dense GEMM's rate. The constant's source, Mixtral-8x7B bf16 tp2 on
 * H100 at 1536 tokens in 1122.93 us (vllm-project/vllm PR 24700), is what
 * the expert op then takes.
 */
static void test_moe_grouped_gemm(void)
{
	const struct llm_model *m = builtin("mixtral-8x7b");
	struct llm_step st = { 1, 0, 1536, 0, 1, 0 };
	struct plumb_consts k;
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	double exp_s = 0, dense_s = 0, exp2_s = 0, dense2_s = 0;
	int i;

	/* Poisson rows given the expert is touched, against the values of an
	 * independent sum (tile 128): a mean on a tile boundary pays the most */
	EXPECT_NEAR(llm_moe_tile_fill(1, 128), 16, 1e-12);
	EXPECT_NEAR(llm_moe_tile_fill(128, 128), 1.4765, 1e-3);
	EXPECT_NEAR(llm_moe_tile_fill(256, 128), 1.2417, 1e-3);
	EXPECT_NEAR(llm_moe_tile_fill(384, 128), 1.1621, 1e-3);
	EXPECT_NEAR(llm_moe_tile_fill(200, 128), 1.28, 1e-3);   /* 2 tiles almost surely */
	CU_ASSERT(llm_moe_tile_fill(384, 64) < llm_moe_tile_fill(384, 128));
	CU_ASSERT(llm_moe_tile_fill(1e5, 128) < 1.001);
	CU_ASSERT(llm_moe_tile_fill(1e5, 128) >= 1.0);

	consts_defaults(&k);
	CU_ASSERT_EQUAL_FATAL(llm_prec_init(&p, m, LLM_BF16, LLM_BF16, &e), 0);
	llm_shard_init(&s, m, 2, 1);
	llm_ops_init(&o);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL_FATAL(llm_ops_time(&o, gpu("h100-sxm"), &k, 0, NULL, &e), 0);
	for (i = 0; i < o.n; i++)
		if (o.op[i].layer == 0 && o.op[i].kind == LLM_OP_EXPERTS &&
		    o.op[i].kclass == LLM_K_MOE && o.op[i].flops > 0) {
			exp_s = o.op[i].compute_s;
			EXPECT_NEAR(o.op[i].rows, 384, 1e-9);   /* 1536 x 2 / 8 */
		} else if (o.op[i].layer == 0 && o.op[i].kind == LLM_OP_ATTN) {
			dense_s = o.op[i].compute_s;
		}
	/* 541.2 GFLOP at 1.162 fill, 797.5 TFLOPS x 0.7023: the measured time */
	EXPECT_NEAR(exp_s * 1e6, 1122.93, 1122.93 * 0.01);
	k.v[K_MOE_FLOPS_REL] = 0.5 * k.v[K_MOE_FLOPS_REL];
	CU_ASSERT_EQUAL_FATAL(llm_ops_time(&o, gpu("h100-sxm"), &k, 0, NULL, &e), 0);
	for (i = 0; i < o.n; i++)
		if (o.op[i].layer == 0 && o.op[i].kind == LLM_OP_EXPERTS &&
		    o.op[i].kclass == LLM_K_MOE && o.op[i].flops > 0)
			exp2_s = o.op[i].compute_s;
		else if (o.op[i].layer == 0 && o.op[i].kind == LLM_OP_ATTN)
			dense2_s = o.op[i].compute_s;
	/* only the grouped GEMM slows down */
	EXPECT_NEAR(exp2_s / exp_s, 2.0, 1e-9);
	CU_ASSERT(dense_s > 0);
	EXPECT_NEAR(dense2_s, dense_s, 1e-15);
	llm_ops_release(&o);
}

void suite_llm(void)
{
	CU_pSuite s = CU_add_suite("llm", NULL, NULL);
	CU_add_test(s, "expected distinct experts", test_expected_experts);
	CU_add_test(s, "busiest expert-parallel rank against brute force", test_moe_busiest);
	CU_add_test(s, "busiest rank: skewed routing", test_moe_skew);
	CU_add_test(s, "MoE runners: kernels and cost per touched expert", test_moe_runners);
	CU_add_test(s, "GLM-5 weights and KV per token", test_glm5_sizes);
	CU_add_test(s, "catalog parameter counts", test_catalog_sizes);
	CU_add_test(s, "GPU tensor rates and fallback", test_gpu_tflops);
	CU_add_test(s, "decode at batch 1 is memory-bound", test_memory_bound_b1);
	CU_add_test(s, "step time grows with batch and context", test_monotonic);
	CU_add_test(s, "memory fit", test_fit);
	CU_add_test(s, "errors", test_errors);
	CU_add_test(s, "MTP draft passes", test_mtp_draft);
	CU_add_test(s, "causal pairs: triangle and rectangle", test_causal_pairs);
	CU_add_test(s, "a chunked prompt does one pass's attention", test_chunk_equals_one_pass);
	CU_add_test(s, "GEMM tile fill", test_tile_fill);
	CU_add_test(s, "grouped MoE GEMM: tile per expert, grouped rate", test_moe_grouped_gemm);
	CU_add_test(s, "eager launches as a host queue", test_host_queue);
}
