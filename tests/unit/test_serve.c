/*
 * test_serve.c - the closed-loop serving run against step times given by
 * formulas, so every figure can be checked by hand.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "serve.h"
#include "serve_int.h"

void suite_serve(void);
void suite_serve_runs(CU_pSuite s);   /* test_serve_runs.c */

/* Decode 10 ms + 0.1 ms a sequence, prefill 50 ms a request; a mixed
 * step is the prefill's with its decode sequences' 0.1 ms each
 * (fixtures.h; every run here passes it a NULL ctx). */
static const serve_step_fn steps = fix_serve_steps;

static void test_single_stream(void)
{
	struct serve_params p;
	struct serve_result r;
	fix_serve_params(&p, 1, 101);
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	/* One stream: TPOT is the decode step, TTFT the prefill. */
	EXPECT_NEAR(r.tpot_ms, 10.1, 1e-9);
	EXPECT_NEAR(r.ttft_ms, 50, 1e-9);
	EXPECT_NEAR(r.tok_s_stream, 1000 / 10.1, 1e-9);
	/* Total: 101 tokens per request every 50 ms + 100 x 10.1 ms. */
	EXPECT_NEAR(r.tok_s_total, 101 / (0.050 + 100 * 0.0101), 1e-6);
}

/* The peak counts tokens by the second they arrive in, as bench_serving's
 * "Peak output token throughput" does. */
static void test_peak(void)
{
	struct serve_params p;
	struct serve_result r;
	fix_serve_params(&p, 1, 101);
	p.prompts = 1;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	/* The first token at 0.05 s, then one per 10.1 ms decode step, spread
	 * over the step: the first second holds the first token and 0.95 s of
	 * steps, the next the other 100 - 0.95 / 0.0101. */
	EXPECT_NEAR(r.peak_tok_s, 1 + 0.95 / 0.0101, 1e-9);
	/* A run shorter than a second: its tokens over its length. */
	p.output_len = 11;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	EXPECT_NEAR(r.peak_tok_s, 11 / (0.050 + 10 * 0.0101), 1e-9);
}

/* One stream, by hand: every gap is a decode step, TTFT the prefill. */
static void test_percentiles(void)
{
	struct serve_params p;
	struct serve_result r;
	int i;
	fix_serve_params(&p, 1, 101);
	p.prompts = 3;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	for (i = 0; i < SERVE_NPCT; i++) {
		EXPECT_NEAR(r.itl_p[i], 10.1, 1e-9);
		EXPECT_NEAR(r.ttft_p[i], 50, 1e-9);
		EXPECT_NEAR(r.tpot_p[i], 10.1, 1e-9);
		EXPECT_NEAR(r.e2e_p[i], 50 + 100 * 10.1, 1e-9);
	}
	EXPECT_NEAR(r.itl_ms, 10.1, 1e-9);
	EXPECT_NEAR(r.e2e_ms, 50 + 100 * 10.1, 1e-9);
	EXPECT_INT(r.completed, 3);
	/* Two streams whose prefills interrupt the other's decoding: the
	 * gaps that hold a prefill are the slow tail of the ITLs. */
	p.concurrency = 2;
	p.spread = 0.5;
	p.prompts = 20;
	p.output_len = 21;      /* about 400 gaps, 18 of them hold a prefill */
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	CU_ASSERT(r.itl_p[1] < 10.3 && r.itl_p[2] > 50);
	CU_ASSERT(r.itl_p[0] <= r.itl_p[1] && r.itl_p[1] <= r.itl_p[2]);
	CU_ASSERT(r.ttft_p[0] <= r.ttft_p[1] && r.ttft_p[1] <= r.ttft_p[2]);
	CU_ASSERT(r.itl_ms > r.itl_p[0]);
}

/* The front-end's time is in every TTFT and end-to-end latency, by hand,
 * and in no step: the same throughput, TPOT and peak; a negative one is an
 * input error. */
static void test_frontend(void)
{
	struct serve_params p;
	struct serve_result a, b;
	struct plumb_err e;
	int i;
	serve_params_init(&p);
	p.concurrency = 2;
	p.output_len = 41;
	p.prompts = 6;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	p.frontend_s = 7e-3;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	EXPECT_NEAR(b.ttft_ms, a.ttft_ms + 7, 1e-9);
	EXPECT_NEAR(b.e2e_ms, a.e2e_ms + 7, 1e-9);
	for (i = 0; i < SERVE_NPCT; i++) {
		EXPECT_NEAR(b.ttft_p[i], a.ttft_p[i] + 7, 1e-9);
		EXPECT_NEAR(b.e2e_p[i], a.e2e_p[i] + 7, 1e-9);
	}
	CU_ASSERT_EQUAL(b.tok_s_total, a.tok_s_total);
	CU_ASSERT_EQUAL(b.tpot_ms, a.tpot_ms);
	CU_ASSERT_EQUAL(b.peak_tok_s, a.peak_tok_s);
	p.frontend_s = -1e-3;
	plumb_err_clear(&e);
	CU_ASSERT(serve_run(&p, steps, NULL, &b, &e) < 0);
	CU_ASSERT_EQUAL(e.code, PLUMB_EINPUT);
}

/* A client's next request, sent when its last one completes, joins the
 * step after the one the engine starts then: by hand, two clients with
 * different output lengths, three prompts. The first two are prefilled
 * together (100 ms); the shorter completes, its client's next request
 * waits out one decode step of the other (10.1 ms) and is prefilled
 * (50 ms). With both clients' requests done at once the engine is idle and
 * takes the next at once. */
static void test_next_request_waits_a_step(void)
{
	struct serve_params p;
	struct serve_result r;
	long o0, o1;
	fix_serve_params(&p, 2, 41);
	p.spread = 0.5;
	p.prompts = 3;
	o0 = serve_out_len(&p, 0);
	o1 = serve_out_len(&p, 1);
	CU_ASSERT_FATAL(labs(o0 - o1) > 2);
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	EXPECT_NEAR(r.ttft_ms, (100 + 100 + 10.1 + 50) / 3, 1e-9);
	/* one client: nothing runs when its next request arrives */
	p.concurrency = 1;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	EXPECT_NEAR(r.ttft_ms, 50, 1e-9);
}

/* Requests sent together reach the scheduler one tokenizer time apart and
 * a step takes those that have arrived when it starts, by hand: three
 * clients at time 0, 5 ms of tokenizer each, prefill 50 ms a request. The
 * first is prefilled alone (0-50 ms); the others arrived at 5 and 10 ms
 * and are prefilled together (50-150 ms). TTFTs 50, 150, 150 plus the
 * front end's 7 ms. */
static void test_tokenizer_spacing(void)
{
	struct serve_params p;
	struct serve_result a, b;
	struct plumb_err e;
	fix_serve_params(&p, 3, 41);
	p.prompts = 3;
	p.frontend_s = 7e-3;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	EXPECT_NEAR(a.ttft_ms, 150 + 7, 1e-9);        /* together: one batch */
	p.tokenize_s = 5e-3;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	EXPECT_NEAR(b.ttft_ms, (57 + 157 + 157) / 3.0, 1e-9);
	/* The tokenizer's time is a part of the front end's: 10 ms of it in
	 * a 5 ms front end counts as 5 ms, the two requests 5 and 10 ms late
	 * as above. */
	p.frontend_s = 5e-3;
	p.tokenize_s = 10e-3;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	EXPECT_NEAR(b.ttft_ms, (55 + 155 + 155) / 3.0, 1e-9);
	/* Spacing longer than a step: 60 ms in a 100 ms front end. The
	 * second reaches the scheduler at 60 ms, during the first's decode
	 * step (50-60.1 ms), and is prefilled at 60.1-110.1 ms; the third at
	 * 120 ms, during the two's decode step (110.1-120.3 ms), prefilled at
	 * 120.3-170.3 ms. */
	p.frontend_s = 100e-3;
	p.tokenize_s = 60e-3;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	EXPECT_NEAR(b.ttft_ms, (150 + 210.1 + 270.3) / 3.0, 1e-9);
	/* Nothing sent together (one client): the same bits as without. */
	p.concurrency = 1;
	p.tokenize_s = 0;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	p.tokenize_s = 60e-3;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	CU_ASSERT(a.ttft_ms == b.ttft_ms && a.tok_s_total == b.tok_s_total &&
		  a.tpot_ms == b.tpot_ms && a.e2e_ms == b.e2e_ms);
	p.tokenize_s = -1e-3;
	plumb_err_clear(&e);
	CU_ASSERT(serve_run(&p, steps, NULL, &b, &e) < 0);
	CU_ASSERT_EQUAL(e.code, PLUMB_EINPUT);
}

/* The tokenizer's time grows with the prompt (text sent), by hand: as
 * test_tokenizer_spacing's three clients with 2 ms of fixed tokenizer time
 * and 3 ms per 1024-token prompt, so 5 ms apart again; each front end
 * carries the prompt's 3 ms as well. TTFTs 50, 150, 150 plus 7 + 3 ms. */
static void test_tokenizer_per_token(void)
{
	struct serve_params p;
	struct serve_result r;
	struct plumb_err e;
	fix_serve_params(&p, 3, 41);
	p.prompts = 3;
	p.frontend_s = 7e-3;
	p.tokenize_s = 2e-3;
	p.tokenize_token_s = 3e-3 / 1024;
	CU_ASSERT_EQUAL_FATAL(p.input_len, 1024);
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	EXPECT_NEAR(r.ttft_ms, (60 + 160 + 160) / 3.0, 1e-9);
	/* a lone request: its prefill and its whole front end */
	p.concurrency = 1;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	EXPECT_NEAR(r.ttft_ms, 50 + 10, 1e-9);
	p.tokenize_token_s = -1e-9;
	plumb_err_clear(&e);
	CU_ASSERT(serve_run(&p, steps, NULL, &r, &e) < 0);
	CU_ASSERT_EQUAL(e.code, PLUMB_EINPUT);
}

static void test_open_loop(void)
{
	struct serve_params p;
	struct serve_result a, b;
	struct serve_request tr[2] = { { 0.0, 1024, 11 }, { 1.0, 1024, 11 } };
	serve_params_init(&p);
	p.output_len = 50;
	p.rate = 4;
	p.prompts = 200;
	p.seed = 7;
	p.concurrency = 0;      /* no cap on requests in flight */
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	EXPECT_INT(a.completed, 200);
	CU_ASSERT(a.tok_s_total == b.tok_s_total && a.ttft_p[2] == b.ttft_p[2]);
	/* 4 requests/s of 50 tokens: the server keeps up, about 200 tok/s. */
	CU_ASSERT(a.tok_s_total > 150 && a.tok_s_total < 250);
	p.seed = 8;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	CU_ASSERT(a.tok_s_total != b.tok_s_total);
	/* One request in flight at most (a request takes 50 + 49 x 10.1 ms):
	 * about 1.8 requests/s get through; the rest wait at the client, which
	 * TTFT does not count (bench_serving's semaphore). */
	p.concurrency = 1;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	EXPECT_NEAR(b.tok_s_total, 50 / (0.050 + 49 * 0.0101), 0.05);
	EXPECT_NEAR(b.ttft_p[2], 50, 1e-9);
	/* A trace: two requests a second apart never meet; each is served
	 * alone (TTFT the 50 ms prefill, 10 x 10.1 ms of decode). */
	serve_params_init(&p);
	p.trace = tr;
	p.ntrace = 2;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	EXPECT_INT(a.completed, 2);
	EXPECT_NEAR(a.ttft_p[2], 50, 1e-9);
	EXPECT_NEAR(a.e2e_p[0], 50 + 10 * 10.1, 1e-9);
	EXPECT_NEAR(a.tok_s_total, 22 / (1.0 + 0.050 + 10 * 0.0101), 1e-9);
}

/* The prefill steps a run asks for: context and new tokens each. */
static long pf_ctx[16], pf_tok[16];
static int npf;

static int prefill_log(void *ctx, const struct serve_shape *sh, double *s, struct plumb_err *err)
{
	if (sh->kind != SERVE_DECODE && npf < 16) {
		pf_ctx[npf] = sh->context;
		pf_tok[npf++] = sh->tokens;
	}
	return steps(ctx, sh, s, err);
}

/* Chunked prefill: a 1024-token prompt in chunks of 256 is four prefill
 * steps on a growing context, its first token after the fourth. */
static void test_chunked_prefill(void)
{
	struct serve_params p;
	struct serve_result r;
	int i;
	fix_serve_params(&p, 1, 11);
	p.input_len = 1024;
	p.prompts = 1;
	p.chunk_tokens = 256;
	npf = 0;
	CU_ASSERT_EQUAL(serve_run(&p, prefill_log, NULL, &r, NULL), 0);
	EXPECT_INT(npf, 4);
	for (i = 0; i < 4 && i < npf; i++) {
		EXPECT_INT(pf_ctx[i], 256 * i);
		EXPECT_INT(pf_tok[i], 256);
	}
	EXPECT_NEAR(r.ttft_p[0], 4 * 50, 1e-9);
	/* A budget above the prompt: one step, as without chunking. */
	p.chunk_tokens = 4096;
	npf = 0;
	CU_ASSERT_EQUAL(serve_run(&p, prefill_log, NULL, &r, NULL), 0);
	EXPECT_INT(npf, 1);
	EXPECT_INT(pf_tok[0], 1024);
}

/* bench_serving's range ratio: 1 is the nominal lengths; 0 spreads the
 * prompts from 1 token to the nominal length. */
static void test_range_ratio(void)
{
	struct serve_params p;
	struct serve_result a, b;
	fix_serve_params(&p, 2, 40);
	p.prompts = 10;
	CU_ASSERT_EQUAL(serve_run(&p, prefill_log, NULL, &a, NULL), 0);
	p.range_ratio = 1;
	CU_ASSERT_EQUAL(serve_run(&p, prefill_log, NULL, &b, NULL), 0);
	CU_ASSERT(a.tok_s_total == b.tok_s_total && a.ttft_ms == b.ttft_ms);
	p.range_ratio = 0;
	p.concurrency = 1;
	npf = 0;
	CU_ASSERT_EQUAL(serve_run(&p, prefill_log, NULL, &b, NULL), 0);
	CU_ASSERT(npf == 10 && pf_tok[0] != pf_tok[1] && pf_tok[1] < 1024);
	p.range_ratio = 1.5;
	CU_ASSERT(serve_run(&p, prefill_log, NULL, &b, NULL) < 0);
}

/* Prompts whole in the prefix cache (cached_prompts): the run's first ones
 * prefill one token over the cached rest, the others their whole prompt. */
static void test_cached_prompts(void)
{
	struct serve_params p;
	struct serve_result a, b;
	fix_serve_params(&p, 1, 20);
	p.input_len = 1000;
	p.prompts = 4;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	p.cached_prompts = 3;
	npf = 0;
	CU_ASSERT_EQUAL(serve_run(&p, prefill_log, NULL, &b, NULL), 0);
	/* step times are memoised by shape: one call per distinct prefill */
	EXPECT_INT(npf, 2);
	EXPECT_INT(pf_tok[0], 1);
	EXPECT_INT(pf_ctx[0], 999);
	EXPECT_INT(pf_tok[1], 1000);
	EXPECT_INT(pf_ctx[1], 0);
	/* the step formula charges a prefill step per request, not per token:
	 * the same TTFT; the tokens' share is the step function's to price */
	EXPECT_NEAR(b.ttft_ms, a.ttft_ms, 1e-9);
	p.cached_prompts = -1;
	CU_ASSERT(serve_run(&p, steps, NULL, &b, NULL) < 0);
}

static void test_kv_budget(void)
{
	struct serve_params p;
	struct serve_result free_, tight;
	struct plumb_err e;
	fix_serve_params(&p, 8, 100);
	p.input_len = 1000;
	p.prompts = 16;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &free_, NULL), 0);
	EXPECT_INT(free_.preemptions, 0);
	CU_ASSERT(free_.kv_peak >= 8 * 1000);
	/* Room for three requests: the others queue, and their wait shows
	 * in TTFT; all 16 complete. */
	p.kv_tokens = 3 * 1100;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &tight, NULL), 0);
	EXPECT_INT(tight.completed, 16);
	CU_ASSERT(tight.kv_peak <= p.kv_tokens);
	CU_ASSERT(tight.max_waiting >= 5);
	CU_ASSERT(tight.ttft_p[2] > 2 * free_.ttft_p[2]);
	CU_ASSERT(tight.tok_s_total < free_.tok_s_total);
	/* Two prompts fit with the room kept for their outputs (0.4 x 1000
	 * each), but both outputs do not: the newest is retracted. */
	p.output_len = 1000;
	p.kv_tokens = 2900;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &tight, NULL), 0);
	EXPECT_INT(tight.completed, 16);
	CU_ASSERT(tight.preemptions > 0);
	CU_ASSERT(tight.kv_peak <= p.kv_tokens);
	/* A prompt larger than the whole cache. */
	p.kv_tokens = 500;
	plumb_err_clear(&e);
	CU_ASSERT(serve_run(&p, steps, NULL, &tight, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "does not fit the KV cache"));
}

static void test_concurrency(void)
{
	struct serve_params p;
	struct serve_result r1, r8;
	serve_params_init(&p);
	p.output_len = 200;
	p.concurrency = 1;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r1, NULL), 0);
	p.concurrency = 8;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r8, NULL), 0);
	/* Batching: more total throughput, slower streams. */
	CU_ASSERT(r8.tok_s_total > 5 * r1.tok_s_total);
	CU_ASSERT(r8.tpot_ms > r1.tpot_ms);
	EXPECT_NEAR(r8.mean_batch, 8, 0.05);
	CU_ASSERT(r8.decode_step_ms <= 10.8 + 1e-9);
	CU_ASSERT(r8.distinct_steps <= 12);
}

static void test_speculative(void)
{
	struct serve_params p;
	struct serve_result a, b;
	fix_serve_params(&p, 1, 301);
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	p.accept_per_step = 2.5;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	/* 2.5 tokens per step: per-token time divides by 2.5. */
	EXPECT_NEAR(b.tpot_ms, a.tpot_ms / 2.5, 0.01);
}

static void test_spread(void)
{
	struct serve_params p;
	struct serve_result a, b;
	fix_serve_params(&p, 16, 200);
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	p.spread = 0.5;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	/* Lockstep requests prefill together (16 x 50 ms at once); spread ones
	 * one or two at a time: a shorter time to first token. */
	CU_ASSERT(b.ttft_ms < a.ttft_ms);
	CU_ASSERT(b.tok_s_total > 0.5 * a.tok_s_total);
}

static void test_bad_params(void)
{
	struct serve_params p;
	struct serve_result r;
	struct plumb_err e;
	serve_params_init(&p);
	p.context = p.input_len;
	plumb_err_clear(&e);
	CU_ASSERT(serve_run(&p, steps, NULL, &r, &e) < 0);
	CU_ASSERT_EQUAL(e.code, PLUMB_EINPUT);
}

/* Counts the callback's calls and the keys it was asked more than once. */
struct asked {
	int n, dups;
	struct serve_shape k[4096];
};

static int counting(void *ctx, const struct serve_shape *sh, double *s, struct plumb_err *err)
{
	struct asked *a = ctx;
	int i;
	for (i = 0; i < a->n; i++)
		if (a->k[i].kind == sh->kind && a->k[i].batch == sh->batch &&
		    a->k[i].context == sh->context && a->k[i].tokens == sh->tokens &&
		    a->k[i].dbatch == sh->dbatch && a->k[i].dcontext == sh->dcontext)
			a->dups++;
	if (a->n < 4096)
		a->k[a->n++] = *sh;
	return steps(NULL, sh, s, err);
}

static void test_memo_grows(void)
{
	static struct asked a, b;
	struct serve_params p;
	struct serve_result r, r2;
	serve_params_init(&p);
	p.concurrency = 4;
	p.output_len = 600;
	p.bucket = 1;           /* every step its own context: many keys */
	a.n = a.dups = 0;
	CU_ASSERT_EQUAL(serve_run(&p, counting, &a, &r, NULL), 0);
	/* More distinct steps than the old fixed memo held, each asked once. */
	CU_ASSERT(r.distinct_steps > 256);
	CU_ASSERT_EQUAL(a.n, r.distinct_steps);
	CU_ASSERT_EQUAL(a.dups, 0);
	/* A second run asks the same keys and gives the same figures. */
	b.n = b.dups = 0;
	CU_ASSERT_EQUAL(serve_run(&p, counting, &b, &r2, NULL), 0);
	CU_ASSERT(r.tok_s_total == r2.tok_s_total && r.tpot_ms == r2.tpot_ms &&
		  r.ttft_ms == r2.ttft_ms && r.steps == r2.steps);
}

/*
 * A benchmark run (prompts > 0): 3 requests of 11 tokens on 2 clients, equal
 * lengths. Both prefill together (100 ms), decode 10 steps of batch 2 (10.2
 * ms each); the third request is prefilled alone (50 ms) and decoded alone
 * (10 x 10.1 ms) while the other client sits idle. Every token counts,
 * from time 0 to the last completion.
 */
static void test_benchmark_run(void)
{
	struct serve_params p;
	struct serve_result r;
	double t_end = 0.100 + 10 * 0.0102 + 0.050 + 10 * 0.0101;
	fix_serve_params(&p, 2, 11);
	p.prompts = 3;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	EXPECT_NEAR(r.tok_s_total, 33 / t_end, 1e-9);
	/* TTFT: 100, 100 and (from its issue at 202 ms) 50 ms. */
	EXPECT_NEAR(r.ttft_ms, (100 + 100 + 50) / 3.0, 1e-9);
	/* The steady state of the same load is faster: no drain. */
	p.prompts = 0;
	{
		struct serve_result s;
		CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &s, NULL), 0);
		CU_ASSERT(s.tok_s_total > r.tok_s_total);
	}
	/* Output lengths may spread over the whole [0, 2] x mean. */
	p.spread = 1;
	p.prompts = 5;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	p.prompts = -1;
	CU_ASSERT(serve_run(&p, steps, NULL, &r, NULL) < 0);
}

/* The shapes a run asks for, to check a token budget. */
static int budget_bad, nmixed;
static long budget_max;

static int budget_log(void *ctx, const struct serve_shape *sh, double *s, struct plumb_err *err)
{
	long tok = sh->kind == SERVE_DECODE ? sh->batch
					    : sh->batch * sh->tokens + sh->dbatch;
	nmixed += sh->kind == SERVE_MIXED;
	/* a prefill part's tokens are its chunks' mean: allow rounding */
	if (tok > budget_max + sh->batch)
		budget_bad++;
	/* 10 ms a pass, 0.1 ms a decode sequence, 0.05 ms a prompt token */
	(void)ctx;
	(void)err;
	*s = sh->kind == SERVE_DECODE ? 10e-3 + 0.1e-3 * sh->batch
				      : 10e-3 + 0.1e-3 * sh->dbatch + 0.05e-3 * sh->batch * sh->tokens;
	return 0;
}

/* A token budget: steps carry the decode tokens and prompt chunks
 * together, never more than the budget; a prompt longer than what is left
 * goes on over several steps, so the running streams are not stopped by a
 * whole prefill. */
static void test_mixed_budget(void)
{
	struct serve_params p;
	struct serve_result a, b;
	serve_params_init(&p);
	p.concurrency = 8;
	p.input_len = 2048;
	p.output_len = 64;
	p.requests = 40;
	budget_max = p.max_batched = 512;
	CU_ASSERT_EQUAL(serve_run(&p, budget_log, NULL, &a, NULL), 0);
	EXPECT_INT(budget_bad, 0);
	CU_ASSERT(nmixed > 0);
	p.max_batched = 0;
	budget_max = 1L << 40;
	CU_ASSERT_EQUAL(serve_run(&p, budget_log, NULL, &b, NULL), 0);
	/* alternating, a running stream waits a whole prefill (50 ms per
	 * request) between two tokens; mixed, never more than one step */
	CU_ASSERT(a.itl_p[2] < b.itl_p[2]);
	CU_ASSERT(a.completed >= 40 && b.completed >= 40);
}

/* A long run is not "did not converge": one client at a time, 2700
 * requests of 4000 tokens each take about 10.8 million steps. */
static void test_long_run(void)
{
	struct serve_params p;
	struct serve_result r;
	fix_serve_params(&p, 1, 4000);
	p.rate = 1000;
	p.prompts = 2700;
	p.input_len = 16;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &r, NULL), 0);
	EXPECT_INT(r.completed, 2700);
	CU_ASSERT(r.steps > 10000000);
}

/* A run of n equal additions taken by binades gives the loop's bits: clock
 * values, gaps into the ITL and the per-second peak, over clocks from 0 to
 * 1e7 s and step times with and without ties. */
static void test_runs_exact(void)
{
	static const double cs[] = { 0.0731234567891, 1e-3, 0.5, 0.1, 3.0, 0.049062501,
				     0.0625, 1.0 / 3, 2.5e-7, 1.75 };
	static const double ss[] = { 0, 0.3, 17.25, 1023.9999, 65535.5, 3e5 + 1.0 / 7, 1e7 };
	static const long ns[] = { 1, 3, 5, 64, 1000, 77777, 300000 };
	size_t a, b, k;
	int bad = 0;
	for (a = 0; a < sizeof(cs) / sizeof(*cs); a++)
		for (b = 0; b < sizeof(ss) / sizeof(*ss); b++)
			for (k = 0; k < sizeof(ns) / sizeof(*ns); k++) {
				double c = cs[a], t = ss[b], u = t, got;
				struct run R1, R2;
				long i;
				for (i = 0; i < ns[k]; i++)
					t += c;
				got = serve_add_n(u, c, ns[k]);
				if (memcmp(&got, &t, sizeof(t))) {
					if (bad++ < 5)
						printf("\n  add_n(%.17g, %.17g, %ld) = %.17g, loop %.17g\n",
						       u, c, ns[k], got, t);
				}
				/* the clock with its ITL entries, 3 measured a step */
				memset(&R1, 0, sizeof(R1));
				memset(&R2, 0, sizeof(R2));
				t = u;
				for (i = 0; i < ns[k]; i++) {
					double t1 = t + c;
					serve_itl_step_w(&R1, t1 - t, 3);
					serve_itl_flush(&R1);
					t = t1;
				}
				got = serve_clock_run(&R2, u, c, ns[k], 3);
				CU_ASSERT(!memcmp(&got, &t, sizeof(t)));
				CU_ASSERT_EQUAL(R1.nitl, R2.nitl);
				if (R1.nitl == R2.nitl)
					CU_ASSERT(!memcmp(R1.itl, R2.itl, (size_t)R1.nitl * sizeof(*R1.itl)));
				free(R1.itl);
				free(R2.itl);
			}
	CU_ASSERT_EQUAL(bad, 0);
}

/* The peak after a burst, a long run under it and steps after: the same as
 * step by step, and the run's end buckets hold the same counts. */
static void test_runs_seconds(void)
{
	static const double dts[] = { 0.0490625, 0.0731234567891, 0.3, 1.7, 0.011 };
	static const double t0s[] = { 5.0, 1000.37, 123456.789 };
	size_t a, b, i;
	for (a = 0; a < sizeof(dts) / sizeof(*dts); a++)
		for (b = 0; b < sizeof(t0s) / sizeof(*t0s); b++) {
			struct seconds s1 = { NULL, NULL, -1, 0 }, s2 = { NULL, NULL, -1, 0 };
			double t = t0s[b], dt = dts[a], u, tend;
			long n = 20000, j;
			/* a burst at twice the rate: the peak the run stays under */
			for (j = 0; j < 100; j++, t += dt / 2) {
				serve_seconds_span(&s1, t, t + dt / 2, 8);
				serve_seconds_span(&s2, t, t + dt / 2, 8);
			}
			u = t;
			for (j = 0; j < n; j++) {
				double t1 = t + dt;
				serve_seconds_span(&s1, t1 - dt, t1, 8);
				t = t1;
			}
			CU_ASSERT_EQUAL(serve_seconds_run(&s2, u, dt, n, 8), 0);
			tend = t;
			/* steps after, at a rate above the burst's */
			for (j = 0; j < 50; j++, t += dt / 4) {
				serve_seconds_span(&s1, t, t + dt / 4, 8);
				serve_seconds_span(&s2, t, t + dt / 4, 8);
			}
			CU_ASSERT(!memcmp(&s1.peak, &s2.peak, sizeof(s1.peak)));
			CU_ASSERT_EQUAL(s1.hi, s2.hi);
			/* the buckets from the run's last on (those before it are
			 * under the peak and touched no more) */
			for (i = (size_t)(long)tend; i <= (size_t)s1.hi; i++) {
				size_t x = i % SERVE_SEC_RING;
				CU_ASSERT_EQUAL(s1.which[x], s2.which[x]);
				CU_ASSERT(!memcmp(&s1.tok[x], &s2.tok[x], sizeof(double)));
			}
			free(s1.tok);
			free(s1.which);
			free(s2.tok);
			free(s2.which);
		}
}

/* The admission order's key, as serve.h states it: retracted requests
 * first, then by arrival, then by index. */
static int cmp_order(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->retracted != y->retracted)
		return y->retracted - x->retracted;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return x->idx - y->idx;
}

/* The order kept from build to build (its head moved past admitted
 * requests, new ones merged in) is after every change the sort of all the
 * waiting requests: joins at the end and out of order, retractions, and
 * requests admitted and retracted again before the next build. */
static void test_order_rebuild(void)
{
	struct run R;
	struct cand *want = NULL;
	unsigned long x = 12345;
	double t = 0;
	int it, k, bad = 0;
	memset(&R, 0, sizeof(R));
	for (it = 0; it < 3000 && !bad; it++) {
		int nj = (int)((x = x * 6364136223846793005UL + 1442695040888963407UL) >> 60) % 4, n, m;
		for (k = 0; k < nj; k++) {
			unsigned long r = (x = x * 6364136223846793005UL + 1442695040888963407UL) >> 33;
			if (r % 5 == 0 && R.nrq > 0) {
				/* retract an admitted one, if the draw finds one */
				int i = (int)(r / 5 % (unsigned long)R.nrq);
				if (R.rq[i].state == RQ_PREFILL || R.rq[i].state == RQ_RUNNING) {
					R.rq[i].retracted = 1;
					serve_wait(&R, i);
				}
			} else {
				/* a new request: mostly arriving last, at times a tie
				 * or earlier (a trace's order) */
				t += r % 3 == 0 ? 0 : 0.25;
				serve_new_req(&R, r % 7 == 0 ? t - 3 : t, 100, 10, 1, R.nrq);
			}
		}
		CU_ASSERT_FATAL(!R.oom);
		n = serve_order_rebuild(&R);
		CU_ASSERT_FATAL(n >= 0);
		/* every waiting request, sorted */
		want = realloc(want, (size_t)(R.nrq + 1) * sizeof(*want));
		CU_ASSERT_FATAL(want != NULL);
		for (k = 0, m = 0; k < R.nrq; k++)
			if (R.rq[k].state == RQ_WAITING) {
				want[m].retracted = R.rq[k].retracted;
				want[m].arrival = R.rq[k].arrival;
				want[m++].idx = k;
			}
		qsort(want, (size_t)m, sizeof(*want), cmp_order);
		if (n != m || n != R.nwait)
			bad = 1;
		for (k = 0; k < n && !bad; k++)
			if (R.order[R.ohead + k].idx != want[k].idx)
				bad = 1;
		/* admission takes a prefix; some prefill at once and run */
		m = n ? (int)((x = x * 6364136223846793005UL + 1442695040888963407UL) >> 33) % (n + 1) : 0;
		for (k = 0; k < m; k++) {
			struct req *q = &R.rq[R.order[R.ohead + k].idx];
			q->state = RQ_PREFILL;
			q->queued = 0;
			R.nwait--;
			if (k % 2)
				q->retracted = 0, q->state = RQ_RUNNING;
		}
	}
	if (bad)
		printf("\n  %s:%d: order differs from the sort at step %d\n", __FILE__, __LINE__, it);
	CU_ASSERT(!bad);
	CU_ASSERT(R.nrq > 1000);
	free(want);
	free(R.rq);
	free(R.joined.a);
	free(R.order);
	free(R.fresh);
	free(R.merged);
}

void suite_serve(void)
{
	CU_pSuite s = CU_add_suite("serve", NULL, NULL);
	CU_add_test(s, "one stream: TPOT, TTFT, tok/s", test_single_stream);
	CU_add_test(s, "concurrency batches decode steps", test_concurrency);
	CU_add_test(s, "speculative decoding", test_speculative);
	CU_add_test(s, "output lengths spread the prefills", test_spread);
	CU_add_test(s, "bad parameters", test_bad_params);
	CU_add_test(s, "the step memo grows past 256 keys", test_memo_grows);
	CU_add_test(s, "a benchmark run counts ramp-up and drain", test_benchmark_run);
	CU_add_test(s, "peak tok/s: the most tokens in one second", test_peak);
	CU_add_test(s, "percentiles of TTFT, TPOT, ITL, end-to-end", test_percentiles);
	CU_add_test(s, "the front-end's time: TTFT and end-to-end only", test_frontend);
	CU_add_test(s, "open loop: Poisson arrivals and a trace", test_open_loop);
	CU_add_test(s, "a next request joins the step after the next", test_next_request_waits_a_step);
	CU_add_test(s, "requests sent together reach the scheduler apart", test_tokenizer_spacing);
	CU_add_test(s, "the tokenizer's time grows with the prompt", test_tokenizer_per_token);
	CU_add_test(s, "KV budget: admission, queueing, retraction", test_kv_budget);
	CU_add_test(s, "chunked prefill", test_chunked_prefill);
	CU_add_test(s, "mixed steps under a token budget", test_mixed_budget);
	CU_add_test(s, "a long run completes", test_long_run);
	CU_add_test(s, "range ratio: bench_serving's random lengths", test_range_ratio);
	CU_add_test(s, "prompts whole in the prefix cache", test_cached_prompts);
	CU_add_test(s, "runs of equal steps: the loop's bits", test_runs_exact);
	CU_add_test(s, "runs of equal steps: the peak's buckets", test_runs_seconds);
	CU_add_test(s, "the admission order kept is the sort of the waiting", test_order_rebuild);
	suite_serve_runs(s);
}
