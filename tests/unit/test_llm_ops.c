/*
 * test_llm_ops.c - the decode-step op model by hand: speculative decoding's
 * tokens per step, bytes per op of a small model, the roofline with CUDA
 * graphs and eager, fused engine backends, decode context parallel.
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

void suite_llm_ops(void);

static void test_spec(void)
{
	EXPECT_NEAR(llm_spec_tokens_per_step(0, 0.7), 1.0, 1e-12);
	/* d=3, a=0.5: (1 - 0.5^4) / 0.5 = 0.9375 / 0.5 = 1.875 */
	EXPECT_NEAR(llm_spec_tokens_per_step(3, 0.5), 1.875, 1e-12);
	EXPECT_NEAR(llm_spec_tokens_per_step(3, 1.0), 4.0, 1e-12);
	/* d=1, a=0.8: 1 + 0.8 */
	EXPECT_NEAR(llm_spec_tokens_per_step(1, 0.8), 1.8, 1e-12);
	{
		/* per position: 1 + 0.9 + 0.9 x 0.7 + 0.9 x 0.7 x 0.5 */
		const double a[3] = { 0.9, 0.7, 0.5 }, one[1] = { 0.5 };
		EXPECT_NEAR(llm_spec_tokens_per_step_pos(3, a, 3), 1 + 0.9 + 0.63 + 0.315, 1e-12);
		/* later positions take the last rate; one rate is the geometric case */
		EXPECT_NEAR(llm_spec_tokens_per_step_pos(4, a, 3), 1 + 0.9 + 0.63 + 0.315 + 0.1575,
			    1e-12);
		EXPECT_NEAR(llm_spec_tokens_per_step_pos(3, one, 1), llm_spec_tokens_per_step(3, 0.5),
			    1e-12);
		EXPECT_NEAR(llm_spec_tokens_per_step_pos(3, a, 0), 1.0, 1e-12);
	}
}

/*
 * tiny, tp 2 (so moe_tp 2), bf16 weights and KV, batch 1, context 10, by hand:
 *  norm:     weight 64 x 2 + activation and residual 1 x 64 x 2 x 2 = 384 B
 *  attn:     2 heads/GPU, 1 KV head/GPU: q 64x2x16 + o 2x16x64 + k,v 2x64x1x16
 *            = 6144 params = 12288 B
 *  core:     1 x 10 tokens x (k + v) 2 x 1 x 16 x 2 B = 640 B
 *  dense:    3 x 64 x 128 / 2 = 12288 params = 24576 B
 *  router:   4 x 64 x 2 = 512 B
 *  experts:  4 (1 - (1 - 2/4)^1) = 2 touched, each 3 x 64 x 32 / 2 = 3072
 *            params: 12288 B; FLOPs 2 x 3072 x (1 token x 2 picks) = 12288;
 *            the 2 pairs' activations: each a 64-wide bf16 row in, 2 x 16
 *            gate_up values written and read back, a 64-wide row out:
 *            2 x (128 + 128 + 128) = 768 B, so 13056 B
 *  combine:  the 2 pairs' rows read, the token's row written: 384 B
 *  shared:   3 x 64 x 32 / 2 = 3072 params = 6144 B
 *  lm_head:  100 / 2 x 64 x 2 = 6400 B
 */
static void test_tiny_by_hand(void)
{
	static const struct { enum llm_op_kind kind; int layer; double bytes; } want[] = {
		{ LLM_OP_NORM, 0, 384 }, { LLM_OP_ATTN, 0, 12288 }, { LLM_OP_KV, 0, 704 },
		{ LLM_OP_NORM, 0, 384 }, { LLM_OP_DENSE_MLP, 0, 24576 },
		{ LLM_OP_NORM, 1, 384 }, { LLM_OP_ATTN, 1, 12288 }, { LLM_OP_KV, 1, 704 },
		{ LLM_OP_NORM, 1, 384 }, { LLM_OP_ROUTER, 1, 512 }, { LLM_OP_EXPERTS, 1, 12992 },
		{ LLM_OP_EXPERTS, 1, 384 }, { LLM_OP_SHARED, 1, 6144 }, { LLM_OP_NORM, -1, 384 }, { LLM_OP_LM_HEAD, -1, 6400 },
	};
	struct llm_catalog *c = NULL;
	struct llm_step st = { 1, 10, 0, 0, 0, 0 };
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	const struct llm_model *m;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(llm_catalog_parse("tiny.yaml", tiny_yaml, &c, &e), 0);
	m = &c->models[0];
	CU_ASSERT_EQUAL(llm_prec_init(&p, m, LLM_BF16, LLM_BF16, &e), 0);
	llm_shard_init(&s, m, 2, 1);
	llm_ops_init(&o);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	if (o.n != (int)(sizeof(want) / sizeof(want[0])))
		printf("\n  tiny: %d ops, expected %d\n", o.n, (int)(sizeof(want) / sizeof(want[0])));
	CU_ASSERT_EQUAL_FATAL(o.n, (int)(sizeof(want) / sizeof(want[0])));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (o.op[i].kind != want[i].kind || o.op[i].layer != want[i].layer)
			printf("\n  op %zu: %s layer %d, expected %s layer %d\n", i,
			       llm_op_kind_name(o.op[i].kind), o.op[i].layer,
			       llm_op_kind_name(want[i].kind), want[i].layer);
		CU_ASSERT_EQUAL(o.op[i].kind, want[i].kind);
		CU_ASSERT_EQUAL(o.op[i].layer, want[i].layer);
		EXPECT_NEAR(o.op[i].bytes, want[i].bytes, 1e-12);
	}
	EXPECT_NEAR(o.op[10].flops, 12288.0, 1e-12);
	/* attention FLOPs: 2 x 2 heads x 16 x 2 (scores, values) x 11 keys (10
	 * cached and its own) = 1408; KV read: 11 tokens x 64 B */
	EXPECT_NEAR(o.op[2].flops, 1408.0, 1e-12);
	/*
	 * weights per GPU: layer 0 attn 12288 + norms 256 + dense 24576; layer 1
	 * attn 12288 + norms 256 + router 512 + all 4 experts 4 x 3072 x 2 + shared
	 * 6144; embeddings 6400 + final norm 128 + lm_head 6400 = 93824 B
	 */
	EXPECT_NEAR(llm_bytes_weights_per_gpu(m, &p, &s), 93824.0, 1e-12);
	/* KV per token: 2 layers x 1 KV head/GPU x (k + v) x 16 x 2 B; whole model 2 heads */
	EXPECT_NEAR(llm_kv_bytes_per_token_per_gpu(m, &p, &s), 128.0, 1e-12);
	EXPECT_NEAR(llm_kv_bytes_per_token(m, LLM_BF16, 0), 256.0, 1e-12);
	EXPECT_NEAR(llm_kv_bytes_per_token(m, LLM_FP8, 0), 128.0, 1e-12);

	/* ep 2 (moe_tp 1): 2 experts per GPU, whole; one token's 2 experts
	 * land on one GPU with probability 1/3, so the busiest GPU touches
	 * 4/3 of them on average (the mean is 1) */
	s.ep = 2;
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	/* (and computes 4/3 pairs, each moving 64 x 2 in, gate_up's 2 x 32
	 * x 2 out, the down GEMM's 32 x 2 in, 64 x 2 out: 448 B; the
	 * activation between them is a pass of its own, 32 x 6 B a pair) */
	EXPECT_NEAR(o.op[10].bytes, 4.0 / 3 * 3 * 64 * 32 * 2 + 4.0 / 3 * 448, 1e-12);
	EXPECT_NEAR(o.op[10].pass_bytes, 4.0 / 3 * 32 * 6, 1e-12);

	/*
	 * data-parallel attention: tp 1, ep 2, moe_tp 1 serves 2 attention
	 * groups, so 2 tokens reach the experts; over the 6 x 6 choices of
	 * their expert pairs the busiest GPU touches 17/9 experts and computes
	 * 23/9 token-expert pairs (the means: 1.5 and 2)
	 */
	s.tp = 1;
	s.moe_tp = 1;
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	EXPECT_NEAR(o.op[10].bytes, 17.0 / 9 * 3 * 64 * 32 * 2 + 23.0 / 9 * 448, 1e-12);
	EXPECT_NEAR(o.op[10].flops, 2.0 * 3 * 64 * 32 * 23 / 9, 1e-12);

	/* verifying 3 drafts: 4 tokens per sequence attend causally, 4 x 10 +
	 * 4 x 5 / 2 = 50 pairs of 128 FLOPs; keys of 14 tokens read */
	s.tp = 2;
	s.moe_tp = 0;
	s.ep = 1;
	st.q_len = 4;
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &o, &e), 0);
	EXPECT_NEAR(o.op[2].bytes, 14 * 64.0, 1e-12);
	EXPECT_NEAR(o.op[2].flops, 50 * 128.0, 1e-12);
	EXPECT_NEAR(o.op[1].flops, 4 * 2.0 * 6144, 1e-12);
	llm_ops_release(&o);
	free(c);
}

static void test_roofline_by_hand(void)
{
	struct llm_catalog *c = NULL;
	struct llm_step st = { 1, 10, 0, 0, 0, 0 };
	struct plumb_consts k;
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	const struct scn_gpu_model *g = gpu("rtx-pro-6000");
	double t;

	CU_ASSERT_EQUAL_FATAL(llm_catalog_parse("tiny.yaml", tiny_yaml, &c, &e), 0);
	llm_prec_init(&p, &c->models[0], LLM_BF16, LLM_BF16, &e);
	llm_shard_init(&s, &c->models[0], 2, 1);
	llm_ops_init(&o);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(&c->models[0], &p, &s, &st, &o, &e), 0);
	consts_defaults(&k);
	k.v[K_MEM_EFF] = 0.5;
	k.v[K_KERNEL_LAUNCH_US] = 2.0;
	k.v[K_KERNEL_LAUNCH_EAGER_US] = 10.0;
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 1, &t, &e), 0);
	/* attention projections: 3 kernels x (2 us gap + the GEMM class's
	 * minimum) + 12288 B / (1792e9 x 0.5) */
	EXPECT_NEAR(o.op[1].seconds, 3 * (2e-6 + k.v[K_KMIN_GEMM_US] * 1e-6) +
		    12288.0 / (1792e9 * 0.5), 1e-12);
	CU_ASSERT_EQUAL(o.op[1].kclass, LLM_K_GEMM);
	CU_ASSERT_EQUAL(o.op[1].bound, LLM_BOUND_KMIN);
	/* one token's GEMM fills a 16-row MMA: 16 rows' worth of math */
	EXPECT_NEAR(o.op[1].compute_s, 16 * 2.0 * 6144 / (503.8e12 * 417.34 / 503.8), 1e-9);
	llm_ops_release(&o);
	free(c);
}

/* Kernels in a step's op list. */
static int kernels_of(const struct llm_ops *o)
{
	int i, n = 0;
	for (i = 0; i < o->n; i++)
		n += o->op[i].kernels;
	return n;
}

/*
 * The engine's kernel cut: trtllm-gen MoE and attention with the all-reduce
 * fused with RMSNorm issue fewer kernels than plumb's default cut, and the
 * batch-1 step on a B200 is shorter by exactly those kernels' launch gaps
 * and minimum durations (the bytes are the same).
 */
static void test_fused_backends(void)
{
	struct llm_catalog *c = NULL;
	struct llm_step st = { 1, 300, 0, 0, 0, 0 };
	struct plumb_consts k;
	struct plumb_err e;
	struct llm_prec p, f;
	struct llm_shard s;
	struct llm_ops o;
	const struct scn_gpu_model *g = gpu("b200");
	double t_default, t_fused, bytes_default = 0, bytes_fused = 0, kmin_default = 0,
	       kmin_fused = 0, x_default = 0, x_fused = 0;
	int i, n_default, quant = -1;

	CU_ASSERT_EQUAL_FATAL(llm_catalog_parse("tiny.yaml", tiny_yaml, &c, &e), 0);
	consts_defaults(&k);
	llm_prec_init(&p, &c->models[0], LLM_NVFP4, LLM_BF16, &e);
	f = p;
	f.moe_trtllm_gen = f.attn_trtllm_gen = f.ar_norm_fused = 1;
	llm_shard_init(&s, &c->models[0], 2, 1);
	llm_ops_init(&o);

	CU_ASSERT_EQUAL_FATAL(llm_step_ops(&c->models[0], &p, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 1, &t_default, &e), 0);
	n_default = kernels_of(&o);
	/* dense layer 1+3+2+1+3, MoE layer 1+3+2+1 + router 2 + experts 4 +
	 * shared 3, final norm 1 + lm_head 2 */
	CU_ASSERT_EQUAL(n_default, 10 + 16 + 3);
	for (i = 0; i < o.n; i++) {
		bytes_default += o.op[i].bytes;
		kmin_default += o.op[i].kmin_s;
		if (!strcmp(o.op[i].what, "routed experts"))
			x_default = o.op[i].seconds - o.op[i].launch_s - o.op[i].kmin_s;
	}

	CU_ASSERT_EQUAL_FATAL(llm_step_ops(&c->models[0], &f, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 1, &t_fused, &e), 0);
	/* layer 0: its input norm has no all-reduce before it (1), attention
	 * 3 + 1, its post-attention norm is fused (0), MLP 3; layer 1: both
	 * norms fused, attention 3 + 1, router 1, quantize 1, experts 4,
	 * shared 3; final norm 1, lm_head 2 */
	CU_ASSERT_EQUAL(kernels_of(&o), 8 + 13 + 3);
	for (i = 0; i < o.n; i++) {
		bytes_fused += o.op[i].bytes;
		kmin_fused += o.op[i].kmin_s;
		if (!strcmp(o.op[i].what, "MoE input quantize"))
			quant = i;
		if (!strcmp(o.op[i].what, "routed experts"))
			x_fused = o.op[i].seconds - o.op[i].launch_s - o.op[i].kmin_s;
	}
	CU_ASSERT_FATAL(quant >= 0);
	CU_ASSERT_EQUAL(o.op[quant].kclass, LLM_K_ELEM);
	CU_ASSERT_EQUAL(o.op[quant].kind, LLM_OP_EXPERTS);
	CU_ASSERT(kmin_fused < kmin_default);
	CU_ASSERT(t_fused < t_default);
	/* the same bytes, plus the quantize's (3 bytes a hidden element); the
	 * experts' GEMMs move SwiGLU's input in their own epilogue: 2 pairs
	 * x 16 wide x (8 - 4 - 0.5) B more than the default's GEMMs, whose
	 * activation is a pass of its own */
	EXPECT_NEAR(bytes_fused, bytes_default + 64 * 3.0 + 2 * 16 * 3.5, 1e-12);
	/* the rest of the difference is launch gaps and minimum durations */
	EXPECT_NEAR(t_default - t_fused,
		    (n_default - kernels_of(&o)) * k.v[K_KERNEL_LAUNCH_US] * 1e-6 +
		    (kmin_default - kmin_fused) + (x_default - x_fused) -
		    (o.op[quant].seconds - o.op[quant].launch_s - o.op[quant].kmin_s), 1e-9);

	/* Without tensor parallelism there is no all-reduce to fold a norm into. */
	llm_shard_init(&s, &c->models[0], 1, 1);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(&c->models[0], &f, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL(kernels_of(&o), 9 + 15 + 3);
	/* bf16 experts take bf16 activations: no quantize */
	llm_prec_init(&p, &c->models[0], LLM_BF16, LLM_BF16, &e);
	p.moe_trtllm_gen = 1;
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(&c->models[0], &p, &s, &st, &o, &e), 0);
	for (i = 0; i < o.n; i++)
		CU_ASSERT(strcmp(o.op[i].what, "MoE input quantize") != 0);
	llm_ops_release(&o);
	free(c);
}

/*
 * A grouped (noaux_tc) router without SGLang's fused gate: the top-k is a
 * chain of nine element-wise kernels after a one-kernel gate GEMM; under
 * graphs each pays its gap and minimum, eager the host issues them in one
 * call.
 */
static void test_router_unfused(void)
{
	struct llm_catalog *c = NULL;
	struct llm_model m;
	struct llm_step st = { 1, 300, 0, 0, 0, 0 };
	struct plumb_consts k;
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_ops o;
	const struct scn_gpu_model *g = gpu("b200");
	double t0, t1, e0, e1;
	int n0, i, topk = -1;

	CU_ASSERT_EQUAL_FATAL(llm_catalog_parse("tiny.yaml", tiny_yaml, &c, &e), 0);
	m = c->models[0];
	/* which routers have a fused gate */
	CU_ASSERT_EQUAL(llm_router_fused(&m), 1);               /* softmax */
	m.experts = 256;
	m.route_groups = 8;                                     /* DeepSeek-V3 */
	CU_ASSERT_EQUAL(llm_router_fused(&m), 1);
	m.route_groups = 1;                                     /* GLM-5 */
	CU_ASSERT_EQUAL(llm_router_fused(&m), 0);
	m.experts = 160;                                        /* GLM-4.x */
	CU_ASSERT_EQUAL(llm_router_fused(&m), 0);
	m.experts = 384;                                        /* Kimi K2 */
	CU_ASSERT_EQUAL(llm_router_fused(&m), 1);
	m = c->models[0];
	free(c);
	c = NULL;
	/* the catalog's moe groups: read, and refused where they do not
	 * divide the experts */
	{
		static const char head[] =
			"catalog: models\nmodels:\n  - id: g\n    layers: 2\n    hidden: 64\n"
			"    intermediate: 128\n    vocab: 100\n"
			"    attention: {kind: gqa, heads: 4, kv_heads: 2, head_dim: 16}\n"
			"    source: made up for the test\n";
		char text[512];
		snprintf(text, sizeof(text), "%s    moe: {experts: 4, top_k: 2, intermediate: 32, groups: 2}\n",
			 head);
		if (llm_catalog_parse("g.yaml", text, &c, &e) != 0)
			printf("\n  %s\n", e.msg);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(c->models[0].route_groups, 2);
		free(c);
		c = NULL;
		snprintf(text, sizeof(text), "%s    moe: {experts: 4, top_k: 2, intermediate: 32, groups: 3}\n",
			 head);
		CU_ASSERT_NOT_EQUAL(llm_catalog_parse("g.yaml", text, &c, &e), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "groups (3) does not divide experts (4)"));
		free(c);
	}
	consts_defaults(&k);
	llm_prec_init(&p, &m, LLM_BF16, LLM_BF16, &e);
	llm_shard_init(&s, &m, 2, 1);
	llm_ops_init(&o);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(&m, &p, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 1, &t0, &e), 0);
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 0, &e0, &e), 0);
	n0 = kernels_of(&o);
	p.router_unfused = 1;
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(&m, &p, &s, &st, &o, &e), 0);
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 1, &t1, &e), 0);
	/* the one MoE layer: gate GEMM 1 (was 2 with the top-k), top-k 9 */
	CU_ASSERT_EQUAL(kernels_of(&o), n0 - 1 + 9);
	for (i = 0; i < o.n; i++)
		if (!strcmp(o.op[i].what, "router top-k (PyTorch)"))
			topk = i;
	CU_ASSERT_FATAL(topk >= 0);
	CU_ASSERT_EQUAL(o.op[topk].kclass, LLM_K_ELEM);
	/* T x E fp32 scores: 1 x 4 x 16 B */
	EXPECT_NEAR(o.op[topk].bytes, 64.0, 1e-12);
	EXPECT_NEAR(o.op[topk].kmin_s, 9 * k.v[K_KMIN_ELEM_US] * 1e-6, 1e-15);
	EXPECT_NEAR(o.op[topk].launch_s, 9 * k.v[K_KERNEL_LAUNCH_US] * 1e-6, 1e-15);
	CU_ASSERT(t1 > t0);
	/* eager: the nine kernels are one host call */
	CU_ASSERT_EQUAL(llm_ops_time(&o, g, &k, 0, &e1, &e), 0);
	CU_ASSERT(e1 - e0 < 2 * k.v[K_KERNEL_LAUNCH_EAGER_US] * 1e-6);
	llm_ops_release(&o);
}

/* Decode context parallel: an MLA cache split over the ranks. */
static void test_dcp(void)
{
	const struct llm_model *m = builtin("glm-5"), *g = builtin("llama-3.1-70b");
	struct plumb_err e;
	struct llm_prec p;
	struct llm_shard s;
	struct llm_step st = { 16, 8192, 0, 0, 0, 0 };
	struct llm_ops a, b;
	double kv1, core1 = 0, core8 = 0, fl1 = 0, fl8 = 0;
	int i;
	if (!m || !g)
		return;
	CU_ASSERT_EQUAL_FATAL(llm_prec_init(&p, m, LLM_NVFP4, LLM_BF16, &e), 0);
	llm_shard_init(&s, m, 8, 1);
	kv1 = llm_kv_bytes_per_token_per_gpu(m, &p, &s);
	llm_ops_init(&a);
	llm_ops_init(&b);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &a, &e), 0);
	s.dcp = 8;
	CU_ASSERT_EQUAL(llm_shard_check(m, &s, &e), 0);
	EXPECT_NEAR(llm_kv_bytes_per_token_per_gpu(m, &p, &s), kv1 / 8, 1e-9);
	CU_ASSERT_EQUAL_FATAL(llm_step_ops(m, &p, &s, &st, &b, &e), 0);
	for (i = 0; i < a.n; i++)
		if (a.op[i].what && !strcmp(a.op[i].what, "attention core")) {
			core1 += a.op[i].bytes;
			fl1 += a.op[i].flops;
		}
	for (i = 0; i < b.n; i++)
		if (b.op[i].what && !strcmp(b.op[i].what, "attention core")) {
			core8 += b.op[i].bytes;
			fl8 += b.op[i].flops;
		}
	/* the same math over an eighth of the reads */
	CU_ASSERT(core1 > 0);
	EXPECT_NEAR(core8, core1 / 8, 1e-6 * core1);
	EXPECT_NEAR(fl8, fl1, 1e-9 * fl1);
	llm_ops_release(&a);
	llm_ops_release(&b);
	/* a GQA cache is split by heads already: refused */
	CU_ASSERT_EQUAL_FATAL(llm_prec_init(&p, g, LLM_FP8, LLM_BF16, &e), 0);
	llm_shard_init(&s, g, 8, 1);
	s.dcp = 8;
	plumb_err_clear(&e);
	CU_ASSERT(llm_shard_check(g, &s, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "has none"));
}

void suite_llm_ops(void)
{
	CU_pSuite s = CU_add_suite("llm_ops", NULL, NULL);
	CU_add_test(s, "speculative decoding tokens per step", test_spec);
	CU_add_test(s, "bytes per op of a small model by hand", test_tiny_by_hand);
	CU_add_test(s, "roofline by hand, graphs and eager", test_roofline_by_hand);
	CU_add_test(s, "fused engine backends issue fewer kernels", test_fused_backends);
	CU_add_test(s, "a grouped router's PyTorch top-k", test_router_unfused);
	CU_add_test(s, "decode context parallel splits the MLA cache", test_dcp);
}
