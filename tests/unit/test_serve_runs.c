/*
 * test_serve_runs.c - the serving loop's runs of equal decode steps (taken
 * at once, serve.c) against the same run taken step by step
 * (serve_params.stepwise), and what a closed loop of fixed-length requests
 * may report: never more tokens per second than its steps can yield; the
 * per-second counts of a run and the ITL's sort against the plain loop;
 * first tokens streamed after the next step's issue (serve_params.host_fn).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "serve.h"
#include "serve_int.h"

void suite_serve_runs(CU_pSuite s);

/*
 * Step times by formula with a context term, so that the context buckets
 * move the decode steps of a run: decode 10 ms + 0.1 ms a sequence + 20 ns
 * a cached token of each; a prefill 5 ms + 50 us a prompt token + 20 ns a
 * token of each chunk's context; a mixed step the prefill's plus its decode
 * sequences' and a 30 ms pass without CUDA graphs (an engine that replays
 * decode steps only). Every step yields at most one token a request.
 */
static double t_decode(int batch, long context)
{
	return 10e-3 + 0.1e-3 * batch + 20e-9 * (double)batch * (double)context;
}

static double t_prefill(int batch, long context, long tokens)
{
	return 5e-3 + batch * (50e-6 * (double)tokens + 20e-9 * (double)context);
}

/* the shortest step a run asked for */
static double min_step;

static int ctx_steps(void *ctx, const struct serve_shape *sh, double *s, struct plumb_err *err)
{
	(void)ctx;
	(void)err;
	switch (sh->kind) {
	case SERVE_DECODE:
		*s = t_decode(sh->batch, sh->context);
		break;
	case SERVE_PREFILL:
		*s = t_prefill(sh->batch, sh->context, sh->tokens);
		break;
	default:
		*s = t_prefill(sh->batch, sh->context, sh->tokens) +
		     t_decode(sh->dbatch, sh->dcontext) + 30e-3;
		break;
	}
	if (min_step < 0 || *s < min_step)
		min_step = *s;
	return 0;
}

/* Every figure of a result, bit for bit. */
static int same_result(const struct serve_result *a, const struct serve_result *b)
{
	const double *x[] = { &a->tok_s_total, &a->peak_tok_s, &a->tok_s_stream, &a->tpot_ms,
			      &a->ttft_ms, &a->decode_step_ms, &a->mean_batch, &a->itl_ms,
			      &a->e2e_ms, &a->kv_io_s };
	const double *y[] = { &b->tok_s_total, &b->peak_tok_s, &b->tok_s_stream, &b->tpot_ms,
			      &b->ttft_ms, &b->decode_step_ms, &b->mean_batch, &b->itl_ms,
			      &b->e2e_ms, &b->kv_io_s };
	size_t i;
	for (i = 0; i < sizeof(x) / sizeof(*x); i++)
		if (memcmp(x[i], y[i], sizeof(double)))
			return 0;
	return !memcmp(a->ttft_p, b->ttft_p, sizeof(a->ttft_p)) &&
	       !memcmp(a->tpot_p, b->tpot_p, sizeof(a->tpot_p)) &&
	       !memcmp(a->itl_p, b->itl_p, sizeof(a->itl_p)) &&
	       !memcmp(a->e2e_p, b->e2e_p, sizeof(a->e2e_p)) && a->steps == b->steps &&
	       a->kv_peak == b->kv_peak && a->preemptions == b->preemptions &&
	       a->max_waiting == b->max_waiting && a->completed == b->completed;
}

/* The loads of the check: fixed lengths that start and finish in waves,
 * spread lengths, mixed steps under a token budget (with and without
 * waves), a KV budget that queues and retracts, a benchmark run with its
 * drain, chunked prefill, speculative decoding and an open loop. */
static void load(int i, struct serve_params *p)
{
	serve_params_init(p);
	p->concurrency = 64;
	p->input_len = 300;
	p->output_len = 700;
	p->bucket = 128;
	p->spread = 0;
	switch (i) {
	case 0:
		break;
	case 1:
		p->spread = 0.5;
		break;
	case 2:
		p->max_batched = 1024;
		break;
	case 3:
		p->max_batched = 1024;
		p->spread = 0.5;
		break;
	case 4:
		p->kv_tokens = 40000;
		p->spread = 0.5;
		break;
	case 5:
		p->prompts = 300;
		p->spread = 0.2;
		break;
	case 6:
		p->chunk_tokens = 256;
		break;
	case 7:
		p->accept_per_step = 2;
		p->spread = 0.5;
		break;
	default:
		p->rate = 40;
		p->prompts = 200;
		p->concurrency = 48;
		p->spread = 0.5;
		break;
	}
}
#define NLOADS 9

/* A run of equal decode steps taken at once is the arithmetic of the same
 * steps taken one by one: every figure the same bits. */
static void test_runs_stepwise(void)
{
	int i;
	for (i = 0; i < NLOADS; i++) {
		struct serve_params p;
		struct serve_result a, b;
		load(i, &p);
		min_step = -1;
		CU_ASSERT_EQUAL_FATAL(serve_run(&p, ctx_steps, NULL, &a, NULL), 0);
		p.stepwise = 1;
		CU_ASSERT_EQUAL_FATAL(serve_run(&p, ctx_steps, NULL, &b, NULL), 0);
		if (!same_result(&a, &b))
			printf("\n  load %d: %.17g tok/s at once, %.17g step by step\n", i,
			       a.tok_s_total, b.tok_s_total);
		CU_ASSERT(same_result(&a, &b));
		CU_ASSERT(a.completed > 0);
	}
}

/*
 * Fixed lengths in a closed loop, prefill and decode alternating: the C
 * requests are prefilled in one step, decode together and finish in the
 * same step, and their clients' next requests wait for the next prefill.
 * A period is one prefill of C prompts and output - 1 decode steps of C,
 * and yields C x output tokens: the run reports exactly that rate.
 */
static void test_fixed_waves(void)
{
	struct serve_params p;
	struct serve_result r;
	long k;
	double period, ctx;
	serve_params_init(&p);
	p.concurrency = 16;
	p.input_len = 300;
	p.output_len = 200;
	p.spread = 0;
	p.bucket = 1;   /* every step at its exact context */
	min_step = -1;
	CU_ASSERT_EQUAL(serve_run(&p, ctx_steps, NULL, &r, NULL), 0);
	period = t_prefill(16, 0, 300);
	/* the k-th decode step writes the KV of the k-th token, sampled by
	 * the step before: its context is the prompt and k tokens */
	for (k = 1; k < 200; k++) {
		ctx = 300 + (double)k;
		period += t_decode(16, (long)ctx);
	}
	EXPECT_NEAR(r.tok_s_total, 16 * 200 / period, 1e-6);
	/* in buckets of 128 tokens, the same to the buckets' rounding */
	p.bucket = 128;
	CU_ASSERT_EQUAL(serve_run(&p, ctx_steps, NULL, &r, NULL), 0);
	CU_ASSERT(fabs(r.tok_s_total / (16 * 200 / period) - 1) < 1e-3);
}

/*
 * What a closed loop may report: every step yields at most one token a
 * client, so C clients get at most C tokens per shortest step, and at most
 * C tokens per mean step that carries decode tokens where every step does
 * (mixed steps under a token budget). Fixed lengths, whose requests start
 * and finish in waves, as well as spread ones; with 256 clients of 1,024 +
 * 2,048 tokens the loop reports what its steps allow.
 */
static void test_fixed_bound(void)
{
	static const double spreads[] = { 0, 0.001, 0.5 };
	size_t i;
	for (i = 0; i < sizeof(spreads) / sizeof(*spreads); i++) {
		struct serve_params p;
		struct serve_result r;
		serve_params_init(&p);
		p.concurrency = 256;
		p.input_len = 1024;
		p.output_len = 2048;
		p.spread = spreads[i];
		p.max_batched = 2048;
		min_step = -1;
		CU_ASSERT_EQUAL_FATAL(serve_run(&p, ctx_steps, NULL, &r, NULL), 0);
		CU_ASSERT(r.tok_s_total <= 256 / min_step * (1 + 1e-12));
		CU_ASSERT(r.tok_s_total <= 256 / (r.decode_step_ms * 1e-3) * (1 + 1e-12));
		/* a decode step of all 256 at the lowest context a running
		 * request has: the fastest any step of the window can be */
		CU_ASSERT(r.tok_s_total <= 256 / t_decode(256, 1025) * (1 + 1e-12));
		/* and every request's prefill is paid: below the decode-only rate
		 * at the mean context */
		CU_ASSERT(r.tok_s_total < 256 / t_decode(256, 1024 + 1024));
	}
}

/* A run above the peak (every step counted): each bucket and the peak the
 * same bits as step by step, across binades of the clock (starts just
 * under powers of two), with step times whose rounding ties and with runs
 * of over 64 steps a bucket. */
static void test_runs_seconds_each(void)
{
	static const double t0s[] = { 0.3, 1023.9, 4095.999, 7.0, 65535.5, 1e6 + 0.25 };
	static const double toks[] = { 8, 37.3, 0.1 };
	uint64_t x = 12345;
	size_t a, b, c, i;
	long bad = 0;
	for (a = 0; a < 40; a++)
		for (b = 0; b < sizeof(t0s) / sizeof(*t0s); b++)
			for (c = 0; c < sizeof(toks) / sizeof(*toks); c++) {
				struct seconds s1 = { NULL, NULL, -1, 0 }, s2 = { NULL, NULL, -1, 0 };
				double t = t0s[b], dt, u = t;
				long n = 3000, j;
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				dt = a < 8 ? ldexp(1.0, -(int)a - 3) * (1 + ldexp(1.0, -40))
				     : (double)(x >> 11) / 9007199254740992.0 * (a < 20 ? 0.001 : 0.08) + 1e-6;
				for (j = 0; j < n; j++) {
					double t1 = t + dt;
					serve_seconds_span(&s1, t1 - dt, t1, toks[c]);
					t = t1;
				}
				CU_ASSERT_EQUAL(serve_seconds_run(&s2, u, dt, n, toks[c]), 0);
				if (memcmp(&s1.peak, &s2.peak, sizeof(s1.peak)) || s1.hi != s2.hi)
					bad++;
				for (i = (size_t)(long)u; s1.hi == s2.hi && i <= (size_t)s1.hi; i++) {
					size_t r = i % SERVE_SEC_RING;
					if (s1.which[r] != s2.which[r] ||
					    memcmp(&s1.tok[r], &s2.tok[r], sizeof(double)))
						bad++;
				}
				free(s1.tok);
				free(s1.which);
				free(s2.tok);
				free(s2.which);
			}
	CU_ASSERT_EQUAL(bad, 0);
}

/* The ITL percentiles and mean: the same bits as a stable sort by gap
 * (glibc's qsort) and the same sums, with many equal gaps. */
static int cmp_gap(const void *a, const void *b)
{
	double x = ((const struct wv *)a)->v, y = ((const struct wv *)b)->v;
	return x < y ? -1 : x > y;
}

static void test_itl_sort(void)
{
	struct run R;
	struct wv *ref;
	double out[SERVE_NPCT], mean, W = 0, sum = 0, c = 0, want[SERVE_NPCT];
	uint64_t x = 99;
	int i, k = 0, n = 5000;
	memset(&R, 0, sizeof(R));
	R.itl = malloc((size_t)n * sizeof(*R.itl));
	ref = malloc((size_t)n * sizeof(*ref));
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		R.itl[i].v = (x >> 60) < 12 ? 0.02 + (double)((x >> 40) % 7) * 1e-3
					  : (double)(x >> 11) / 9007199254740992.0;
		R.itl[i].w = (double)(1 + (x >> 20) % 300);
	}
	R.nitl = n;
	memcpy(ref, R.itl, (size_t)n * sizeof(*ref));
	qsort(ref, (size_t)n, sizeof(*ref), cmp_gap);   /* glibc: stable */
	for (i = 0; i < n; i++) {
		W += ref[i].w;
		sum += ref[i].v * ref[i].w;
	}
	for (i = 0; i < n && k < SERVE_NPCT; i++) {
		c += ref[i].w;
		while (k < SERVE_NPCT && c >= serve_pct[k] * W)
			want[k++] = 1e3 * ref[i].v;
	}
	serve_itl_pcts(&R, out, &mean);
	CU_ASSERT(!memcmp(out, want, sizeof(out)));
	sum = 1e3 * sum / W;
	CU_ASSERT(!memcmp(&mean, &sum, sizeof(mean)));
	CU_ASSERT(!memcmp(R.itl, ref, (size_t)n * sizeof(*ref)));
	free(R.itl);
	free(ref);
}

/* The host's time to issue a step: *(double *)ctx a prefill request, a
 * decode step none (a CUDA graph's replay). */
static int host_steps(const void *ctx, const struct serve_shape *sh, double *s,
		      struct plumb_err *err)
{
	(void)err;
	*s = sh->kind == SERVE_DECODE ? 0 : *(const double *)ctx * sh->batch;
	return 0;
}

/* First tokens stream once the host has issued the next step, by hand: as
 * test_tokenizer_spacing's three clients (5 ms of tokenizer apart, prefill
 * 50 ms a request, a 7 ms front end) with 40 ms of host a prefill request.
 * The first is prefilled alone (0-50 ms, issued by 40 ms); the host issues
 * the two others' prefill from 40 to 120 ms, so the first's token streams
 * at 120 ms, 70 ms late; theirs (50-150 ms) stream when the decode step
 * after it is issued, at once. TTFTs 127, 157, 157. With 10 ms of host a
 * request nothing is late (10 + 20 < 50): the same bits as without, as for
 * a lone request, whose next step is a decode step. */
static void test_host_late(void)
{
	struct serve_params p;
	struct serve_result a, b;
	double host = 40e-3;
	fix_serve_params(&p, 3, 41);
	p.prompts = 3;
	p.frontend_s = 7e-3;
	p.tokenize_s = 5e-3;
	CU_ASSERT_EQUAL(serve_run(&p, fix_serve_steps, NULL, &a, NULL), 0);
	EXPECT_NEAR(a.ttft_ms, (57 + 157 + 157) / 3.0, 1e-9);
	p.host_fn = host_steps;
	p.host_ctx = &host;
	CU_ASSERT_EQUAL(serve_run(&p, fix_serve_steps, NULL, &b, NULL), 0);
	EXPECT_NEAR(b.ttft_ms, (127 + 157 + 157) / 3.0, 1e-9);
	CU_ASSERT(b.e2e_ms == a.e2e_ms && b.tok_s_total == a.tok_s_total);
	host = 10e-3;
	CU_ASSERT_EQUAL(serve_run(&p, fix_serve_steps, NULL, &b, NULL), 0);
	CU_ASSERT(!memcmp(&a, &b, sizeof(a)));
	p.concurrency = 1;
	p.host_fn = NULL;
	CU_ASSERT_EQUAL(serve_run(&p, fix_serve_steps, NULL, &a, NULL), 0);
	host = 40e-3;
	p.host_fn = host_steps;
	CU_ASSERT_EQUAL(serve_run(&p, fix_serve_steps, NULL, &b, NULL), 0);
	CU_ASSERT(!memcmp(&a, &b, sizeof(a)));
}

void suite_serve_runs(CU_pSuite s)
{
	CU_add_test(s, "runs of equal steps: the same bits as step by step", test_runs_stepwise);
	CU_add_test(s, "fixed lengths in waves: the period's rate", test_fixed_waves);
	CU_add_test(s, "a closed loop yields at most C tokens a step", test_fixed_bound);
	CU_add_test(s, "runs of equal steps above the peak: every bucket", test_runs_seconds_each);
	CU_add_test(s, "the ITL's sort: qsort's order, the same percentiles", test_itl_sort);
	CU_add_test(s, "first tokens after the next step's issue (overlap)", test_host_late);
}
