/*
 * test_disagg.c - disaggregated prefill and decode (disagg.h) and the KV
 * tiers of a serving run (kvtier.c) against step times and transfers given
 * by formulas, so every figure can be checked by hand.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "disagg.h"
#include "fixtures.h"
#include "serve.h"

void suite_disagg(void);

/* Prefill 50 ms a request, decode 10 ms + 0.1 ms a sequence; the largest
 * prefill chunk seen is kept in *ctx (a long) when ctx is not NULL
 * (fixtures.h; no step here mixes the two). */
static const serve_step_fn steps = fix_serve_steps;

/* A link where every transfer takes `delay`: landings in sending order. */
struct fake_link {
	double delay;
	int id[4096];
	double t[4096];
	int head, n;
	long tokens;
	/* a decode step whose collectives lose `slow` to the transfers: its
	 * end reported at its own end, `slow` later */
	double slow, pend_t;
	int pend;
};

static int fake_send(void *ctx, int id, long tokens, int pi, int di, double t,
		     struct plumb_err *err)
{
	struct fake_link *L = ctx;
	(void)pi;
	(void)di;
	(void)err;
	CU_ASSERT_FATAL(L->n < 4096);
	L->id[L->n] = id;
	L->t[L->n++] = t + L->delay;
	L->tokens += tokens;
	return 0;
}

static int fake_advance(void *ctx, double t_end, int *id, double *t, double *end,
			struct plumb_err *err)
{
	struct fake_link *L = ctx;
	(void)err;
	if (L->pend && L->pend_t <= t_end &&
	    (L->head == L->n || L->pend_t < L->t[L->head])) {
		L->pend = 0;
		*id = 0;
		*t = L->pend_t;
		*end = L->pend_t + L->slow;
		return 2;
	}
	if (L->head == L->n || L->t[L->head] > t_end)
		return 0;
	*id = L->id[L->head];
	*t = L->t[L->head++];
	return 1;
}

static int fake_traffic(void *ctx, int prefill, int inst, const struct serve_shape *sh,
			double t0, double t1, int *pending, struct plumb_err *err)
{
	struct fake_link *L = ctx;
	(void)inst;
	(void)sh;
	(void)t0;
	(void)err;
	*pending = !prefill;
	if (!prefill) {
		CU_ASSERT(!L->pend);
		L->pend = 1;
		L->pend_t = t1;
	}
	return 0;
}

static void setup(struct serve_disagg *d, struct fake_link *L, double delay)
{
	memset(d, 0, sizeof(*d));
	memset(L, 0, sizeof(*L));
	L->delay = delay;
	d->nprefill = d->ndecode = 1;
	d->prefill_fn = d->decode_fn = steps;
	d->send = fake_send;
	d->advance = fake_advance;
	d->link_ctx = L;
}

/* One stream: TTFT is the prefill and the transfer, TPOT the decode step. */
static void test_single(void)
{
	struct serve_params p;
	struct serve_result r;
	struct serve_disagg d;
	static struct fake_link L;
	fix_serve_params(&p, 1, 101);
	setup(&d, &L, 5e-3);
	CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &r, NULL), 0);
	EXPECT_NEAR(r.ttft_ms, 55, 1e-9);
	EXPECT_NEAR(r.xfer_ms, 5, 1e-9);
	EXPECT_NEAR(r.prefill_ms, 50, 1e-9);
	EXPECT_NEAR(r.tpot_ms, 10.1, 1e-9);
	/* 101 tokens every 55 ms + 100 decode steps */
	EXPECT_NEAR(r.tok_s_total, 101 / (0.055 + 100 * 0.0101), 1e-6);
	/* the whole prompt's KV moved, per request */
	CU_ASSERT_EQUAL(L.tokens % p.input_len, 0);
}

/* vLLM's protocol: the first token comes from the decode instance's first
 * pass, and the request passes two front ends; TPOT keeps the decode
 * step. */
static void test_first_from_decode(void)
{
	struct serve_params p;
	struct serve_result r;
	struct serve_disagg d;
	static struct fake_link L;
	fix_serve_params(&p, 1, 101);
	p.frontend_s = 3e-3;
	setup(&d, &L, 5e-3);
	d.first_from_decode = 1;
	d.frontend_hops = 2;
	CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &r, NULL), 0);
	EXPECT_NEAR(r.ttft_ms, 50 + 5 + 10.1 + 6, 1e-9);
	EXPECT_NEAR(r.tpot_ms, 10.1, 1e-9);
	EXPECT_NEAR(r.e2e_ms, 50 + 5 + 101 * 10.1 + 6, 1e-9);
	/* the prompt's tokenizing (2 ms for its 1024 tokens) counts once */
	CU_ASSERT_EQUAL_FATAL(p.input_len, 1024);
	p.tokenize_token_s = 2e-3 / 1024;
	CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &r, NULL), 0);
	EXPECT_NEAR(r.ttft_ms, 50 + 5 + 10.1 + 6 + 2, 1e-9);
	EXPECT_NEAR(r.e2e_ms, 50 + 5 + 101 * 10.1 + 6 + 2, 1e-9);
}

/* A prefill of 1 ms a request: the decode instance never waits for one. */
static int fast_prefill(void *ctx, const struct serve_shape *sh, double *s,
			struct plumb_err *err)
{
	(void)ctx;
	(void)err;
	*s = 1e-3 * sh->batch;
	return 0;
}

/* Every token from a decode pass (vLLM's protocol) on one decode instance:
 * a step yields one token a sequence it carries, so the window's tokens
 * are at most its steps' sequences (mean batch per mean step), the step
 * whose completion opens the window and the tokens it yields left out of
 * it. */
static void test_window(void)
{
	static const double spreads[] = { 0, 0.3, 0.5 };
	size_t i;
	for (i = 0; i < sizeof(spreads) / sizeof(*spreads); i++) {
		struct serve_params p;
		struct serve_result r;
		struct serve_disagg d;
		static struct fake_link L;
		double bound;
		serve_params_init(&p);
		p.concurrency = 16;
		p.output_len = 40;
		p.spread = spreads[i];
		setup(&d, &L, 0);
		d.prefill_fn = fast_prefill;
		d.first_from_decode = 1;
		CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &r, NULL), 0);
		bound = r.mean_batch / (r.decode_step_ms * 1e-3);
		if (!(r.tok_s_total <= bound * (1 + 1e-12)))
			printf("\n  spread %g: %.17g tok/s, %.17g per mean step\n", spreads[i],
			       r.tok_s_total, bound);
		CU_ASSERT(r.tok_s_total <= bound * (1 + 1e-12));
	}
}

/* Decode steps whose collectives share links with transfers: a step
 * reported 2 ms late makes every token 2 ms later; the lost time is
 * counted. */
static void test_slowed(void)
{
	struct serve_params p;
	struct serve_result r;
	struct serve_disagg d;
	static struct fake_link L;
	fix_serve_params(&p, 1, 101);
	setup(&d, &L, 5e-3);
	L.slow = 2e-3;
	d.step_traffic = fake_traffic;
	CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &r, NULL), 0);
	EXPECT_NEAR(r.ttft_ms, 55, 1e-9);
	EXPECT_NEAR(r.tpot_ms, 12.1, 1e-9);
	EXPECT_NEAR(r.decode_step_ms, 12.1, 1e-9);
	CU_ASSERT(r.link_delay_s >= 100 * 2e-3 - 1e-9);
	EXPECT_NEAR(r.pf_link_delay_s + 1, 1, 1e-12);
}

/* A decode instance whose KV cache fills: it admits on the reserve, so
 * decoding outgrows the cache and the newest stream is retracted,
 * prefilled again on the decode instance, and finishes; the cache never
 * holds more than its size plus one step's tokens. Reserving the whole
 * output (a cache as large as every request's end) retracts nothing. */
static void test_decode_evict(void)
{
	struct serve_params p;
	struct serve_result r, big;
	struct serve_disagg d;
	static struct fake_link L;
	serve_params_init(&p);
	p.concurrency = 8;
	p.input_len = 1000;
	p.output_len = 2000;
	p.prompts = 32;
	setup(&d, &L, 1e-3);
	d.decode_kv_tokens = 8000;
	CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &r, NULL), 0);
	CU_ASSERT(r.preemptions > 0);
	CU_ASSERT_EQUAL(r.completed, 32);
	CU_ASSERT(r.kv_peak <= 8000 + 8);
	setup(&d, &L, 1e-3);
	d.decode_kv_tokens = 8 * (1000 + 3000);
	CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &big, NULL), 0);
	CU_ASSERT_EQUAL(big.preemptions, 0);
	CU_ASSERT(big.tok_s_total > r.tok_s_total);
}

/* Many streams: the decode instance never runs a prefill, so no gap
 * between two tokens exceeds its longest decode step; prefills of the
 * one prefill instance queue, which TTFT shows. */
static void test_no_interference(void)
{
	struct serve_params p;
	struct serve_result r;
	struct serve_disagg d;
	static struct fake_link L;
	serve_params_init(&p);
	p.concurrency = 8;
	p.output_len = 200;
	setup(&d, &L, 2e-3);
	CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &r, NULL), 0);
	CU_ASSERT(r.itl_p[2] <= 10 + 0.1 * 8 + 1e-9);
	CU_ASSERT(r.ttft_p[0] >= 52 - 1e-9);
	CU_ASSERT(r.mean_batch > 1);
	/* two prefill instances serve the same load with TTFT no longer */
	{
		struct serve_result r2;
		static struct fake_link L2;
		setup(&d, &L2, 2e-3);
		d.nprefill = 2;
		CU_ASSERT_EQUAL_FATAL(serve_disagg_run(&p, &d, &r2, NULL), 0);
		CU_ASSERT(r2.ttft_ms <= r.ttft_ms + 1e-9);
	}
}

/* A request larger than a decode instance's KV cache is an input error;
 * so is a design without decode instances. */
static void test_bad(void)
{
	struct serve_params p;
	struct serve_result r;
	struct serve_disagg d;
	static struct fake_link L;
	struct plumb_err e;
	serve_params_init(&p);
	p.concurrency = 2;
	setup(&d, &L, 1e-3);
	d.decode_kv_tokens = 100;
	plumb_err_clear(&e);
	CU_ASSERT(serve_disagg_run(&p, &d, &r, &e) < 0);
	CU_ASSERT(strstr(e.msg, "decode instance") != NULL);
	setup(&d, &L, 1e-3);
	d.ndecode = 0;
	CU_ASSERT(serve_disagg_run(&p, &d, &r, NULL) < 0);
}

/* Prefix hits: a hit prefills only what follows the prefix; a share of 0
 * is the run without one. */
static void test_prefix(void)
{
	struct serve_params p;
	struct serve_result a, b, c;
	long big = 0;
	serve_params_init(&p);
	p.concurrency = 1;
	p.input_len = 1024;
	p.spread = 0;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	p.prefix_len = 800;
	p.prefix_hit = 0;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	CU_ASSERT(!memcmp(&a, &b, sizeof(a)));
	p.prefix_hit = 1;
	CU_ASSERT_EQUAL(serve_run(&p, steps, &big, &c, NULL), 0);
	CU_ASSERT_EQUAL(big, 224);
	CU_ASSERT(c.prefix_hits > 0);
	/* half: about half the admissions hit */
	p.prefix_hit = 0.5;
	p.prompts = 100;
	CU_ASSERT_EQUAL(serve_run(&p, steps, NULL, &c, NULL), 0);
	CU_ASSERT(c.prefix_hits >= 45 && c.prefix_hits <= 55);
	/* bad share */
	p.prefix_hit = 1.5;
	CU_ASSERT(serve_run(&p, steps, NULL, &c, NULL) < 0);
}

struct io_count {
	long out, in;
	int calls;
};

/* 1 ms per 1000 tokens either way */
static int io(void *ctx, const struct serve_shape *sh, double step_s, long out, long in,
	      double *s, struct plumb_err *err)
{
	struct io_count *k = ctx;
	(void)err;
	(void)sh;
	(void)step_s;
	k->out += out;
	k->in += in;
	k->calls++;
	*s = 1e-6 * (double)(out + in);
	return 0;
}

/* Offload: every retracted request's KV goes to host memory while it has
 * room and comes back whole; without room they are recomputed. */
static void test_offload(void)
{
	struct serve_params p;
	struct serve_result a, b;
	struct io_count k;
	serve_params_init(&p);
	p.concurrency = 16;
	p.input_len = 1000;
	p.output_len = 2000;
	p.kv_tokens = 16000;
	p.prompts = 64;
	CU_ASSERT_EQUAL_FATAL(serve_run(&p, steps, NULL, &a, NULL), 0);
	CU_ASSERT(a.preemptions > 0);
	CU_ASSERT_EQUAL(a.offloads, 0);
	memset(&k, 0, sizeof(k));
	p.host_kv_tokens = 1000000;
	p.kv_io = io;
	p.kv_io_ctx = &k;
	CU_ASSERT_EQUAL_FATAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	CU_ASSERT(b.offloads > 0);
	CU_ASSERT_EQUAL(b.offloads, b.preemptions);
	/* every offloaded token came back (all requests completed) */
	CU_ASSERT_EQUAL(k.out, k.in);
	CU_ASSERT_EQUAL(b.reload_tokens, k.in);
	EXPECT_NEAR(b.kv_io_s, 1e-6 * (double)(k.out + k.in), 1e-9);
	/* no room: nothing offloaded */
	memset(&k, 0, sizeof(k));
	p.host_kv_tokens = 10;
	CU_ASSERT_EQUAL_FATAL(serve_run(&p, steps, NULL, &b, NULL), 0);
	CU_ASSERT_EQUAL(b.offloads, 0);
	CU_ASSERT_EQUAL(k.calls, 0);
	/* a tier without its move time is refused */
	p.kv_io = NULL;
	CU_ASSERT(serve_run(&p, steps, NULL, &b, NULL) < 0);
}

void suite_disagg(void)
{
	CU_pSuite s = CU_add_suite("disagg", NULL, NULL);
	CU_add_test(s, "one stream: TTFT = prefill + transfer", test_single);
	CU_add_test(s, "decode instances run no prefill", test_no_interference);
	CU_add_test(s, "transfers slow decode steps", test_slowed);
	CU_add_test(s, "first token from the decode instance", test_first_from_decode);
	CU_add_test(s, "the window: at most C tokens a decode step", test_window);
	CU_add_test(s, "a full decode instance retracts", test_decode_evict);
	CU_add_test(s, "bad designs and requests", test_bad);
	CU_add_test(s, "prefix cache hits", test_prefix);
	CU_add_test(s, "KV offload to host memory", test_offload);
}
