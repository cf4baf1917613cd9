/*
 * test_predict.c - decode steps compiled from a model and a layout: the
 * shape of each layout's program, and monotonicity of the predictions.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "predict.h"
#include "predict_ops.h"
#include "predict_run.h"
#include "predict_kvtier.h"

void suite_predict(void);

static int cfg(struct pred_cfg *c, const struct scenario *s, const char *model,
	       const char *layout)
{
	const struct llm_catalog *cat = llm_catalog_builtin(NULL);
	pred_cfg_init(c);
	c->s = s;
	if (!cat || llm_model_lookup(cat, model, &c->m, NULL) < 0)
		return -1;
	if (llm_prec_init(&c->prec, c->m, LLM_NVFP4, LLM_BF16, NULL) < 0)
		return -1;
	return step_layout_parse(layout, &c->lay, NULL);
}

static int count(const struct step_prog *p, enum step_op_kind k)
{
	int i, n = 0;
	for (i = 0; i < p->nops; i++)
		n += p->ops[i].kind == k;
	return n;
}

static void test_tp8_shape(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct pred_cfg c;
	struct step_prog prog[16];
	int micro;
	if (!s || cfg(&c, s, "glm-5", "tp8") < 0) {
		CU_FAIL("the scenario, model or layout does not load");
		scn_free(s);
		return;
	}
	CU_ASSERT_EQUAL(pred_programs(&c, SERVE_DECODE, 8, 1024, 1, prog, &micro, NULL), 0);
	/* Two all-reduces per layer, and the logits' all-gather. */
	EXPECT_INT(count(&prog[0], SOP_ALLREDUCE), 2 * c.m->layers);
	EXPECT_INT(count(&prog[0], SOP_ALLGATHER), 1);
	EXPECT_INT(count(&prog[0], SOP_ALLTOALL), 0);
	/* An all-reduce moves batch x hidden x 2 bytes. */
	CU_ASSERT_EQUAL(prog[0].ops[1].kind, SOP_ALLREDUCE);
	CU_ASSERT_DOUBLE_EQUAL(prog[0].ops[1].bytes, 8.0 * c.m->hidden * 2, 1e-9);
	EXPECT_INT(micro, 1);
	step_prog_release(&prog[0]);
	scn_free(s);
}

static void test_tp4pp2_shape(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct pred_cfg c;
	struct step_prog prog[16];
	struct step_result r = { 0 };
	int micro, st;
	if (!s || cfg(&c, s, "glm-5", "tp4pp2") < 0) {
		CU_FAIL("the scenario, model or layout does not load");
		scn_free(s);
		return;
	}
	CU_ASSERT_EQUAL(pred_programs(&c, SERVE_DECODE, 8, 1024, 1, prog, &micro, NULL), 0);
	EXPECT_INT(micro, 2);
	/* decode through stages is the steady state: the third of four passes */
	EXPECT_INT(pred_rounds(&c, SERVE_DECODE), 4);
	EXPECT_INT(pred_rounds(&c, SERVE_PREFILL), 1);
	/* Each stage has half the layers: two all-reduces for each. */
	EXPECT_INT(count(&prog[0], SOP_ALLREDUCE), 2 * (c.m->layers / 2));
	EXPECT_INT(count(&prog[1], SOP_ALLREDUCE), 2 * (c.m->layers - c.m->layers / 2));
	/* One activation send per stage boundary per microbatch: batch/micro x hidden x 2. */
	CU_ASSERT_DOUBLE_EQUAL(prog[0].send_bytes, 4.0 * c.m->hidden * 2, 1e-9);
	CU_ASSERT_EQUAL(step_run(s, &c.topo, &c.lay, prog, micro, &r, NULL), 0);
	CU_ASSERT(r.by_tag[TAG_COMM_PP] > 0);
	/* Each of the 4 GPU pairs across the boundary sends once per microbatch. */
	EXPECT_INT(r.sends, 4 * micro);
	CU_ASSERT(r.seconds > 0);
	for (st = 0; st < 2; st++)
		step_prog_release(&prog[st]);
	scn_free(s);
}

static void test_ep8_shape(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct pred_cfg c;
	struct step_prog prog[16];
	int micro, moe;
	if (!s || cfg(&c, s, "glm-5", "ep8") < 0) {
		CU_FAIL("the scenario, model or layout does not load");
		scn_free(s);
		return;
	}
	CU_ASSERT_EQUAL(pred_programs(&c, SERVE_DECODE, 64, 1024, 1, prog, &micro, NULL), 0);
	/* Dispatch and combine around the experts of every MoE layer; data-parallel
	 * attention needs no all-reduce. */
	moe = c.m->layers - c.m->dense_layers;
	EXPECT_INT(count(&prog[0], SOP_ALLTOALL), 2 * moe);
	EXPECT_INT(count(&prog[0], SOP_ALLREDUCE), 0);
	/* Per rank: its 64/8 tokens x top-k copies of the hidden state, times
	 * the busiest rank's pairs over the mean (64 tokens on 8 ranks). */
	{
		struct llm_moe_load ld;
		struct plumb_err e;
		int i;
		CU_ASSERT_EQUAL_FATAL(llm_moe_busiest(c.m->experts, c.m->top_k, 64, 8, 0, &ld, &e), 0);
		CU_ASSERT(ld.pairs > 64.0 * c.m->top_k / 8);
		for (i = 0; i < prog[0].nops && prog[0].ops[i].kind != SOP_ALLTOALL; i++)
			;
		CU_ASSERT_DOUBLE_EQUAL(prog[0].ops[i].bytes, ld.pairs * c.m->hidden * 2, 1e-6);
	}
	step_prog_release(&prog[0]);
	scn_free(s);
}

static void test_tp8ep_shape(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct pred_cfg c;
	struct step_prog prog[16];
	int micro;
	if (!s || cfg(&c, s, "glm-5", "tp8ep") < 0) {
		CU_FAIL("the scenario, model or layout does not load");
		scn_free(s);
		return;
	}
	CU_ASSERT_EQUAL(pred_programs(&c, SERVE_DECODE, 8, 1024, 1, prog, &micro, NULL), 0);
	EXPECT_INT(count(&prog[0], SOP_ALLREDUCE), 2 * c.m->layers);
	EXPECT_INT(count(&prog[0], SOP_ALLTOALL), 0);
	step_prog_release(&prog[0]);
	scn_free(s);
}

static double step_ms(const char *xsock, const char *extra, const char *layout, int batch)
{
	struct scenario *s = fix_seed_box(xsock, extra);
	struct pred_cfg c;
	double t = -1;
	if (!s || cfg(&c, s, "glm-5", layout) < 0)
		return -1;
	CU_ASSERT_EQUAL(pred_step(&c, SERVE_DECODE, batch, 2048, 1, &t, NULL, NULL), 0);
	scn_free(s);
	return t * 1e3;
}

static void test_monotonic(void)
{
	/* More inter-socket bandwidth is never slower. */
	CU_ASSERT(step_ms("400", "nccl: {p2p_level: SYS}\n", "tp8", 64) <=
		  step_ms("20", "nccl: {p2p_level: SYS}\n", "tp8", 64) + 1e-9);
	/* P2P is never slower than bouncing through host memory. */
	CU_ASSERT(step_ms("192", "nccl: {p2p_level: SYS}\n", "tp8", 8) <=
		  step_ms("192", "nccl: {p2p_disable: true}\n", "tp8", 8) + 1e-9);
	CU_ASSERT(step_ms("192", "nccl: {p2p_level: SYS}\n", "tp8", 1) <=
		  step_ms("192", "", "tp8", 1) + 1e-9);
	/* A bigger batch never makes a step shorter. */
	CU_ASSERT(step_ms("192", "", "tp8", 64) >= step_ms("192", "", "tp8", 8));
	CU_ASSERT(step_ms("192", "", "ep8", 64) >= step_ms("192", "", "ep8", 8));
}

/* A mixed step reads the weights once for its decode and prefill tokens:
 * longer than either part alone, shorter than the two one after the other. */
static void test_mixed_step(void)
{
	struct scenario *s = fix_seed_box("192", "nccl: {p2p_level: SYS}\n");
	struct pred_cfg c;
	struct serve_shape sh;
	double dec, pf, mix;
	if (!s || cfg(&c, s, "glm-5", "tp8") < 0) {
		CU_FAIL("the scenario, model or layout does not load");
		scn_free(s);
		return;
	}
	CU_ASSERT_EQUAL(pred_step(&c, SERVE_DECODE, 16, 4096, 1, &dec, NULL, NULL), 0);
	CU_ASSERT_EQUAL(pred_step(&c, SERVE_PREFILL, 1, 2048, 512, &pf, NULL, NULL), 0);
	memset(&sh, 0, sizeof(sh));
	sh.kind = SERVE_MIXED;
	sh.batch = 1;
	sh.context = 2048;
	sh.tokens = 512;
	sh.dbatch = 16;
	sh.dcontext = 4096;
	CU_ASSERT_EQUAL(pred_step_shape(&c, &sh, &mix, NULL, NULL), 0);
	CU_ASSERT(mix > dec);
	CU_ASSERT(mix > pf);
	CU_ASSERT(mix < dec + pf);
	scn_free(s);
}

/* On the seed box with DeepSeek-V3 and layout lay: a mixed step of one
 * prompt chunk (tokens over context cached) beside dbatch decode sequences
 * of dcontext is longer than that chunk's own prefill step. */
static void mixed_over_prefill(const char *lay, long context, long tokens, int dbatch,
			       long dcontext)
{
	struct scenario *s = fix_seed_box("192", "nccl: {p2p_level: SYS}\n");
	struct pred_cfg c;
	struct serve_shape sh;
	double pf, mix;
	if (!s || cfg(&c, s, "deepseek-v3", lay) < 0) {
		CU_FAIL("the scenario, model or layout does not load");
		scn_free(s);
		return;
	}
	CU_ASSERT_EQUAL(pred_step(&c, SERVE_PREFILL, 1, context, tokens, &pf, NULL, NULL), 0);
	memset(&sh, 0, sizeof(sh));
	sh.kind = SERVE_MIXED;
	sh.batch = 1;
	sh.context = context;
	sh.tokens = tokens;
	sh.dbatch = dbatch;
	sh.dcontext = dcontext;
	CU_ASSERT_EQUAL(pred_step_shape(&c, &sh, &mix, NULL, NULL), 0);
	if (!(mix > pf))
		printf("\n  %s: mixed %.3f ms, its prefill alone %.3f ms\n", lay, mix * 1e3,
		       pf * 1e3);
	CU_ASSERT(mix > pf);
	scn_free(s);
}

/* MLA prefills un-absorbed, kv_b decompressing the cache; a chunk riding in
 * a mixed step does the same work, so the mixed step is never shorter
 * than the chunk's own prefill step (DeepSeek-V3: no DSA). */
static void test_mixed_mla_prefill(void)
{
	mixed_over_prefill("tp8", 32768, 512, 1, 128);
}

/* Data-parallel attention keeps a prompt whole on one rank: a mixed step
 * of one prompt beside a few decode sequences on ep8 takes at least that
 * prompt's own prefill step there (its rank carries every prompt token
 * through the attention side, not an eighth of them). */
static void test_mixed_ep_whole_prompt(void)
{
	mixed_over_prefill("ep8", 0, 4096, 8, 1024);
}

/* Two lists alike in every field llm_step_ops and the merge fill. */
static int same_list(const struct llm_ops *a, const struct llm_ops *b)
{
	int i;
	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct llm_op *x = &a->op[i], *y = &b->op[i];
		if (x->kind != y->kind || x->kclass != y->kclass || x->layer != y->layer ||
		    x->pass != y->pass || x->what != y->what || x->dtype != y->dtype ||
		    x->kernels != y->kernels || x->gemm_dtype != y->gemm_dtype || x->like != y->like ||
		    memcmp(&x->bytes, &y->bytes, sizeof(x->bytes)) ||
		    memcmp(&x->flops, &y->flops, sizeof(x->flops)) ||
		    memcmp(&x->rows, &y->rows, sizeof(x->rows)) ||
		    memcmp(&x->gemm_flops, &y->gemm_flops, sizeof(x->gemm_flops)) ||
		    memcmp(&x->gemm_rows, &y->gemm_rows, sizeof(x->gemm_rows)) ||
		    memcmp(&x->experts, &y->experts, sizeof(x->experts)))
			return 0;
	}
	return 1;
}

/* A mixed step's list from the kept parts (pred_mixed_ops: built and
 * stored the first time, from the table the second) is the list merged
 * from the three lists, field for field (GLM-5: DSA's indexer; DeepSeek-V3:
 * MLA without it). */
static void test_mixed_parts(void)
{
	static const char *const models[] = { "glm-5", "deepseek-v3" };
	int k, round;
	for (k = 0; k < 2; k++) {
		const struct llm_model *m;
		struct llm_prec p;
		struct llm_shard sh[3];
		struct llm_step st[3];
		struct llm_ops u, pp, d, want;
		if (llm_model_resolve(models[k], &m, NULL) < 0 ||
		    llm_prec_setup(&p, m, "nvfp4", "bf16", NULL) < 0) {
			CU_FAIL("the model does not load");
			continue;
		}
		llm_shard_init(&sh[0], m, 8, 1);
		sh[1] = sh[2] = sh[0];
		sh[1].dcp = 1;
		memset(st, 0, sizeof(st));
		st[0].batch = 8192 + k;
		st[0].q_len = 1;
		st[0].head_tokens = 7;
		st[1].batch = 1;
		st[1].context = 16384;
		st[1].q_len = 8187;
		st[1].head_tokens = 7;
		st[2].batch = 5;
		st[2].context = 40447;
		llm_ops_init(&u);
		llm_ops_init(&pp);
		llm_ops_init(&d);
		llm_ops_init(&want);
		CU_ASSERT_EQUAL(llm_step_ops(m, &p, &sh[0], &st[0], &want, NULL), 0);
		CU_ASSERT_EQUAL(llm_step_ops(m, &p, &sh[1], &st[1], &pp, NULL), 0);
		CU_ASSERT_EQUAL(llm_step_ops(m, &p, &sh[2], &st[2], &d, NULL), 0);
		CU_ASSERT_EQUAL(pred_merge_mixed(&want, &pp, &d, NULL), 0);
		for (round = 0; round < 2; round++) {
			CU_ASSERT_EQUAL(pred_mixed_ops(m, &p, sh, st, &u, NULL), 0);
			CU_ASSERT(same_list(&u, &want));
		}
		llm_ops_release(&u);
		llm_ops_release(&pp);
		llm_ops_release(&d);
		llm_ops_release(&want);
	}
}

static void test_fit(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct pred_cfg c;
	struct plumb_err e;
	if (!s || cfg(&c, s, "glm-5", "tp4") < 0) {
		CU_FAIL("the scenario, model or layout does not load");
		scn_free(s);
		return;
	}
	/* GLM-5 NVFP4 (~440 GB) does not fit on four 96 GB GPUs. */
	plumb_err_clear(&e);
	CU_ASSERT(pred_check_fit(&c, 1, 1024, &e) < 0);
	CU_ASSERT_EQUAL(e.code, PLUMB_EINPUT);
	step_layout_parse("tp8", &c.lay, NULL);
	CU_ASSERT_EQUAL(pred_check_fit(&c, 8, 2048, NULL), 0);
	/* The KV cache in tokens: mem_fraction of memory less the weights,
	 * over the bytes a token takes; a full-attention model's does not
	 * depend on the request's length. DCP splits it over the ranks. */
	{
		long kv = pred_kv_tokens(&c, 2048);
		CU_ASSERT(kv > 100000);
		CU_ASSERT_EQUAL(pred_kv_tokens(&c, 100000), kv);
		step_layout_parse("tp8dcp8", &c.lay, NULL);
		CU_ASSERT(pred_kv_tokens(&c, 2048) >= 8 * kv - 8);
	}
	scn_free(s);
}

/* A step of 1 ms plus 0.1 ms per sequence (prefill: per prompt token). */
static int fake_step(void *ctx, const struct serve_shape *sh, double *seconds,
		     struct plumb_err *err)
{
	(void)ctx;
	(void)err;
	*seconds = 1e-3 + (sh->kind == SERVE_PREFILL ? 1e-6 * sh->batch * sh->tokens
						     : 1e-4 * sh->batch);
	return 0;
}

/* One replica's run at c clients, through pred_serve_replicas with dp 1. */
static double one_copy(struct pred_cfg *c, int x, struct serve_result *r)
{
	struct serve_params sp;
	serve_params_init(&sp);
	sp.concurrency = x;
	sp.input_len = 128;
	sp.output_len = 64;
	c->lay.dp = 1;
	CU_ASSERT_EQUAL(pred_serve_replicas(c, x, &sp, fake_step, NULL, r, NULL), 0);
	return r->tok_s_total;
}

/* The load splits evenly over the replicas, the first x % dp one more;
 * tok/s adds up, percentiles are the busiest replica's. */
static void test_replica_split(void)
{
	struct pred_cfg c;
	struct serve_params sp;
	struct serve_result r1, r2, r4;
	double t1, t2;
	memset(&c, 0, sizeof(c));
	t1 = one_copy(&c, 1, &r1);
	t2 = one_copy(&c, 2, &r2);
	one_copy(&c, 16, &r4);
	serve_params_init(&sp);
	sp.input_len = 128;
	sp.output_len = 64;
	c.lay.dp = 4;
	{
		struct serve_result r;
		sp.concurrency = 64;
		CU_ASSERT_EQUAL(pred_serve_replicas(&c, 64, &sp, fake_step, NULL, &r, NULL), 0);
		CU_ASSERT_DOUBLE_EQUAL(r.tok_s_total, 4 * r4.tok_s_total, 1e-9 * r.tok_s_total);
		CU_ASSERT_DOUBLE_EQUAL(r.tpot_ms, r4.tpot_ms, 1e-9 * r.tpot_ms);
		CU_ASSERT_DOUBLE_EQUAL(r.ttft_p[1], r4.ttft_p[1], 1e-12);
		CU_ASSERT_EQUAL(r.completed, 4 * r4.completed);
		sp.concurrency = 5;     /* 2, 1, 1, 1 */
		CU_ASSERT_EQUAL(pred_serve_replicas(&c, 5, &sp, fake_step, NULL, &r, NULL), 0);
		CU_ASSERT_DOUBLE_EQUAL(r.tok_s_total, t2 + 3 * t1, 1e-9 * r.tok_s_total);
		CU_ASSERT_DOUBLE_EQUAL(r.tpot_p[2], fmax(r1.tpot_p[2], r2.tpot_p[2]), 1e-12);
		sp.concurrency = 2;     /* 1, 1, idle, idle */
		CU_ASSERT_EQUAL(pred_serve_replicas(&c, 2, &sp, fake_step, NULL, &r, NULL), 0);
		CU_ASSERT_DOUBLE_EQUAL(r.tok_s_total, 2 * t1, 1e-9 * r.tok_s_total);
	}
}

/* Do two step results agree bit for bit (every field a step fills)? */
static int same_run(const struct step_result *a, const struct step_result *b)
{
	return !memcmp(&a->seconds, &b->seconds, sizeof(a->seconds)) &&
	       !memcmp(&a->run_seconds, &b->run_seconds, sizeof(a->run_seconds)) &&
	       !memcmp(&a->window0, &b->window0, sizeof(a->window0)) &&
	       a->ngpus == b->ngpus && a->nspans == b->nspans && a->events == b->events &&
	       a->flows == b->flows && a->sends == b->sends && a->simulated == b->simulated &&
	       a->replayed == b->replayed && a->reruns == b->reruns &&
	       !memcmp(a->busy, b->busy, sizeof(a->busy)) &&
	       !memcmp(a->comm, b->comm, sizeof(a->comm)) &&
	       !memcmp(a->by_tag, b->by_tag, sizeof(a->by_tag));
}

/* A step of one lane run without the engine (models/step/step_line.c) is
 * the engine's run bit for bit: decode, prefill and mixed steps of several
 * layouts, one and two microbatches, eager and graphed launches. */
static void test_line_is_engine(void)
{
	static const char *const lays[] = { "tp8", "tp4", "tp2", "ep8", "tp8dcp8" };
	static const struct { enum serve_step k; int b; long ctx, tok; int db; long dctx; } sh[] = {
		{ SERVE_DECODE, 1, 1024, 1, 0, 0 },
		{ SERVE_DECODE, 37, 70000, 1, 0, 0 },
		{ SERVE_PREFILL, 1, 0, 8192, 0, 0 },
		{ SERVE_PREFILL, 3, 17000, 2731, 0, 0 },
		{ SERVE_MIXED, 2, 33280, 4095, 2, 99840 },
	};
	struct scenario *s = fix_seed_box("192", "");
	size_t i, j;
	int micro, ok = 0, n = 0;
	setenv("PLUMB_NO_STEP_MEMO", "1", 1);
	for (i = 0; s && i < sizeof(lays) / sizeof(lays[0]); i++) {
		for (j = 0; j < sizeof(sh) / sizeof(sh[0]); j++) {
			for (micro = 1; micro <= 2; micro++) {
				struct pred_cfg c;
				struct serve_shape x;
				struct pred_step_info line, eng;
				double t1, t2;
				if (cfg(&c, s, "glm-5", lays[i]) < 0)
					continue;
				c.micro = micro;
				c.cuda_graphs = micro == 1;
				memset(&x, 0, sizeof(x));
				x.kind = sh[j].k;
				x.batch = sh[j].b;
				x.context = sh[j].ctx;
				x.tokens = sh[j].tok;
				x.dbatch = sh[j].db;
				x.dcontext = sh[j].dctx;
				unsetenv("PLUMB_STEP_ENGINE");
				if (pred_step_shape(&c, &x, &t1, &line, NULL) < 0)
					continue;
				setenv("PLUMB_STEP_ENGINE", "1", 1);
				if (pred_step_shape(&c, &x, &t2, &eng, NULL) < 0) {
					CU_FAIL("the engine fails where the line does not");
					continue;
				}
				n++;
				ok += same_run(&line.run, &eng.run) && !memcmp(&t1, &t2, sizeof(t1));
				if (!same_run(&line.run, &eng.run))
					fprintf(stderr, "  %s shape %zu micro %d: line %.17g s (%ld events), "
						"engine %.17g s (%ld events)\n", lays[i], j, micro,
						line.run.seconds, line.run.events, eng.run.seconds,
						eng.run.events);
			}
		}
	}
	unsetenv("PLUMB_STEP_ENGINE");
	unsetenv("PLUMB_NO_STEP_MEMO");
	CU_ASSERT(n >= 20);
	EXPECT_INT(ok, n);
	scn_free(s);
}

/* Host-tier moves beside a step's collectives on one fabric: loads come
 * before the step (it lasts at least as long again as they take alone);
 * stores run beside it, hidden under a long step but for what they take
 * from its collectives, more under a prefill's all-reduces than a
 * decode's. */
static void test_kvio_step(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct pred_cfg c;
	struct serve_shape dec, pre;
	double load, store, e_dec, e_pre, e_load, tiny;
	if (!s || cfg(&c, s, "glm-5", "tp8") < 0) {
		CU_FAIL("the scenario, model or layout does not load");
		scn_free(s);
		return;
	}
	memset(&dec, 0, sizeof(dec));
	dec.kind = SERVE_DECODE;
	dec.batch = 1;
	dec.context = 1024;
	dec.tokens = 1;
	pre = dec;
	pre.kind = SERVE_PREFILL;
	pre.context = 0;
	pre.tokens = 16384;
	CU_ASSERT_EQUAL_FATAL(pred_kvio_time(&c, 0, NULL, 0, 0, 100000, &load, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(pred_kvio_time(&c, 0, NULL, 0, 100000, 0, &store, NULL), 0);
	CU_ASSERT(load > 0 && store > 0);
	CU_ASSERT_EQUAL(pred_kvio_time(&c, 0, &dec, 0.05, 0, 100000, &e_load, NULL), 0);
	CU_ASSERT(e_load >= load * (1 - 1e-9));
	CU_ASSERT_EQUAL(pred_kvio_time(&c, 0, &dec, 10, 100000, 0, &e_dec, NULL), 0);
	CU_ASSERT_EQUAL(pred_kvio_time(&c, 0, &pre, 10, 100000, 0, &e_pre, NULL), 0);
	CU_ASSERT(e_dec < store);
	CU_ASSERT(e_pre > 0 && e_pre < store);
	CU_ASSERT(e_dec <= e_pre);
	/* a step shorter than the stores ends with them */
	CU_ASSERT_EQUAL(pred_kvio_time(&c, 0, &dec, 1e-6, 100000, 0, &tiny, NULL), 0);
	CU_ASSERT(tiny >= store - 1e-6 - 1e-9);
	scn_free(s);
}

void suite_predict(void)
{
	CU_pSuite s = CU_add_suite("predict", NULL, NULL);
	CU_add_test(s, "tp8: two all-reduces per layer", test_tp8_shape);
	CU_add_test(s, "tp4pp2: one send per stage boundary and microbatch", test_tp4pp2_shape);
	CU_add_test(s, "ep8: two all-to-alls per MoE layer", test_ep8_shape);
	CU_add_test(s, "tp8ep: experts combined by all-reduce", test_tp8ep_shape);
	CU_add_test(s, "monotonic in bandwidth, P2P and batch", test_monotonic);
	CU_add_test(s, "memory fit", test_fit);
	CU_add_test(s, "replicas split the load evenly", test_replica_split);
	CU_add_test(s, "mixed prefill and decode step", test_mixed_step);
	CU_add_test(s, "a mixed step keeps MLA's prefill work", test_mixed_mla_prefill);
	CU_add_test(s, "data-parallel attention keeps a prompt whole", test_mixed_ep_whole_prompt);
	CU_add_test(s, "a mixed step's list from kept parts is the merged list", test_mixed_parts);
	CU_add_test(s, "a step of one lane without the engine is the engine's", test_line_is_engine);
	CU_add_test(s, "host-tier moves share the fabric with the step", test_kvio_step);
}
