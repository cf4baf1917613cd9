/*
 * test_sim_engine.c - the engine (sim/engine.h): determinism, engines side
 * by side, random streams, event budget, the clock, end-of-instant events.
 */
#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "flow.h"
#include "test_sim_int.h"

void suite_sim_engine(void);

/* ---- determinism, side-by-side engines --------------------------------- */

struct tr {
	double t;
	int64_t kind;
	uint64_t seq;
	int64_t i0;
};

struct wl {
	struct fix f;
	gsl_rng *r;
	int links[6];
	int left;               /* flows still to start */
	struct tr *trace;
	size_t ntrace, cap;
};

static void wl_trace(void *ctx, const struct sim_event *ev)
{
	struct wl *w = ctx;

	if (w->ntrace == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->trace = realloc(w->trace, w->cap * sizeof(*w->trace));
	}
	memset(&w->trace[w->ntrace], 0, sizeof(w->trace[0]));
	w->trace[w->ntrace].t = ev->time;
	w->trace[w->ntrace].kind = ev->kind;
	w->trace[w->ntrace].seq = ev->seq;
	w->trace[w->ntrace].i0 = ev->pl.i0;
	w->ntrace++;
}

static int wl_spawn(struct wl *w, struct plumb_err *err);

static int wl_done(struct sim_net *net, int flow, void *arg,
		   struct plumb_err *err)
{
	(void)net;
	(void)flow;
	return wl_spawn(arg, err);
}

static int wl_spawn(struct wl *w, struct plumb_err *err)
{
	struct sim_flow_spec s;
	int path[2];

	if (w->left == 0)
		return 0;
	w->left--;
	path[0] = w->links[gsl_rng_uniform_int(w->r, 3)];
	path[1] = w->links[3 + gsl_rng_uniform_int(w->r, 3)];
	s.path = path;
	s.path_len = 1 + (int)gsl_rng_uniform_int(w->r, 2);
	s.bytes = 1e4 + gsl_rng_uniform(w->r) * 1e6;
	s.rate_cap = 0;
	s.start = sim_now(w->f.eng) + gsl_rng_uniform(w->r) * 1e-5;
	s.on_done = wl_done;
	s.arg = w;
	return sim_flow_start(w->f.net, &s, NULL, err);
}

static struct wl *wl_new(uint64_t seed)
{
	struct wl *w = calloc(1, sizeof(*w));
	int i;

	fix_init(&w->f, seed);
	sim_set_trace(w->f.eng, wl_trace, w);
	/* stream of entity 42 drives the workload */
	EXPECT_INT(sim_rng(w->f.eng, 42, &w->r, &w->f.err), 0);
	for (i = 0; i < 6; i++)
		w->links[i] = add_link(&w->f, 1e9 * (1 + i), 1e-6 * i);
	w->left = 2000;
	for (i = 0; i < 16; i++)
		EXPECT_INT(wl_spawn(w, &w->f.err), 0);
	return w;
}

static void wl_free(struct wl *w)
{
	fix_release(&w->f);
	free(w->trace);
	free(w);
}

static int trace_equal(const struct wl *a, const struct wl *b)
{
	return a->ntrace == b->ntrace &&
	       memcmp(a->trace, b->trace, a->ntrace * sizeof(*a->trace)) == 0;
}

static void test_determinism(void)
{
	struct wl *a = wl_new(77), *b = wl_new(77), *c = wl_new(78);

	EXPECT_INT(sim_run(a->f.eng, INFINITY, &a->f.err), 0);
	EXPECT_INT(sim_run(b->f.eng, INFINITY, &b->f.err), 0);
	EXPECT_INT(sim_run(c->f.eng, INFINITY, &c->f.err), 0);
	EXPECT_TRUE(a->ntrace > 4000, "trace has %zu events", a->ntrace);
	EXPECT_INT(b->ntrace, a->ntrace);
	EXPECT_TRUE(trace_equal(a, b), "same seed gave different traces");
	EXPECT_TRUE(!trace_equal(a, c), "seeds 77 and 78 gave equal traces");
	wl_free(a);
	wl_free(b);
	wl_free(c);
}

/* Three engines advanced in interleaved slices match solo runs. */
static void test_side_by_side(void)
{
	struct wl *solo = wl_new(5), *solo2 = wl_new(6);
	struct wl *a = wl_new(5), *b = wl_new(6), *c = wl_new(5);
	double t;

	EXPECT_INT(sim_run(solo->f.eng, INFINITY, &solo->f.err), 0);
	EXPECT_INT(sim_run(solo2->f.eng, INFINITY, &solo2->f.err), 0);
	for (t = 1e-5; sim_pending(a->f.eng) || sim_pending(b->f.eng) ||
		       sim_pending(c->f.eng); t += 1e-5) {
		EXPECT_INT(sim_run(a->f.eng, t, &a->f.err), 0);
		EXPECT_INT(sim_run(b->f.eng, t * 0.7, &b->f.err), 0);
		EXPECT_INT(sim_run(c->f.eng, t * 1.3, &c->f.err), 0);
	}
	EXPECT_TRUE(trace_equal(a, solo), "engine a diverged from its solo run "
		    "(%zu vs %zu events)", a->ntrace, solo->ntrace);
	EXPECT_TRUE(trace_equal(c, solo), "engine c diverged from its solo run "
		    "(%zu vs %zu events)", c->ntrace, solo->ntrace);
	EXPECT_TRUE(trace_equal(b, solo2), "engine b diverged from its solo run "
		    "(%zu vs %zu events)", b->ntrace, solo2->ntrace);
	wl_free(solo);
	wl_free(solo2);
	wl_free(a);
	wl_free(b);
	wl_free(c);
}

/* ---- random streams ---------------------------------------------------- */

static void test_rng_streams(void)
{
	struct sim_engine *e1, *e2;
	gsl_rng *r, *r5a, *r5b, *r6;
	unsigned long x5a[4], x5b[4];
	int i;

	EXPECT_INT(sim_engine_new(99, &e1, NULL), 0);
	EXPECT_INT(sim_engine_new(99, &e2, NULL), 0);
	/* e2 creates (and draws from) entities 0..99 first; e1 only 5 */
	for (i = 0; i < 100; i++) {
		EXPECT_INT(sim_rng(e2, (uint64_t)i * 3 + 1, &r, NULL), 0);
		gsl_rng_get(r);
	}
	EXPECT_INT(sim_rng(e1, 5, &r5a, NULL), 0);
	EXPECT_INT(sim_rng(e2, 5, &r5b, NULL), 0);
	for (i = 0; i < 4; i++) {
		x5a[i] = gsl_rng_get(r5a);
		x5b[i] = gsl_rng_get(r5b);
		EXPECT_INT(x5a[i], x5b[i]);
	}
	EXPECT_INT(sim_rng(e1, 5, &r, NULL), 0);
	EXPECT_TRUE(r == r5a, "second request of entity 5 gave a new stream");
	EXPECT_INT(sim_rng(e1, 6, &r6, NULL), 0);
	EXPECT_TRUE(gsl_rng_get(r6) != x5a[0] || gsl_rng_get(r6) != x5a[1],
		    "entities 5 and 6 drew the same numbers");
	/* the documented formula: splitmix64(0) = 0xe220a8397b1dcdaf, so
	 * mix(seed = that value, entity 0) = splitmix64(0) again */
	EXPECT_TRUE(sim_seed_mix(0xe220a8397b1dcdafULL, 0) ==
		    0xe220a8397b1dcdafULL, "sim_seed_mix(s, 0) = %#llx",
		    (unsigned long long)sim_seed_mix(0xe220a8397b1dcdafULL, 0));
	EXPECT_TRUE(sim_seed_mix(1, 2) != sim_seed_mix(2, 1),
		    "seed and entity must not commute");
	sim_engine_free(e1);
	sim_engine_free(e2);
	sim_engine_free(NULL);
}

/* ---- engine run loop: budget, stop, clock ------------------------------ */

struct ticker {
	int kind;
	int count;
	int stop_at;
};

static int tick(struct sim_engine *eng, void *ctx, const struct sim_event *ev,
		struct plumb_err *err)
{
	struct ticker *tk = ctx;

	(void)ev;
	tk->count++;
	if (tk->count == tk->stop_at)
		sim_stop(eng);
	return sim_after(eng, 1.0, SIM_PRIO_DEFAULT, tk->kind, NULL, NULL,
			 err);
}

static const struct sim_ops tick_ops = { "tick", tick };

static void test_budget(void)
{
	struct sim_engine *eng;
	struct plumb_err err;
	struct ticker tk = { 0, 0, 0 };
	int rc;

	plumb_err_clear(&err);
	EXPECT_INT(sim_engine_new(1, &eng, &err), 0);
	EXPECT_INT(sim_register(eng, &tick_ops, &tk, &tk.kind, &err), 0);
	EXPECT_TRUE(strcmp(sim_kind_name(eng, tk.kind), "tick") == 0,
		    "kind name '%s'", sim_kind_name(eng, tk.kind));
	sim_set_budget(eng, 1000);
	EXPECT_INT(sim_at(eng, 0, 0, tk.kind, NULL, NULL, &err), 0);
	rc = sim_run(eng, INFINITY, &err);
	EXPECT_INT(rc, -PLUMB_ERUNTIME);
	EXPECT_INT(err.code, PLUMB_ERUNTIME);
	EXPECT_TRUE(strstr(err.msg, "budget") != NULL,
		    "message '%.300s', expected it to mention the budget", err.msg);
	EXPECT_INT(sim_stats(eng)->events, 1000);
	EXPECT_INT(tk.count, 1000);
	sim_engine_free(eng);
}

static void test_stop_and_clock(void)
{
	struct sim_engine *eng;
	struct ticker tk = { 0, 0, 5 };

	EXPECT_INT(sim_engine_new(1, &eng, NULL), 0);
	EXPECT_INT(sim_register(eng, &tick_ops, &tk, &tk.kind, NULL), 0);
	EXPECT_INT(sim_at(eng, 0.5, 0, tk.kind, NULL, NULL, NULL), 0);
	EXPECT_INT(sim_run(eng, 100, NULL), 0);
	EXPECT_INT(tk.count, 5);
	EXPECT_NEAR(sim_now(eng), 4.5, TOL);       /* stopped after event 5 */
	EXPECT_INT(sim_run(eng, 7.0, NULL), 0);
	EXPECT_INT(tk.count, 7);                    /* events at 5.5, 6.5 */
	EXPECT_NEAR(sim_now(eng), 7.0, TOL);       /* clock moved to t_end */
	EXPECT_INT(sim_pending(eng), 1);
	sim_engine_free(eng);
}

/* ---- end-of-instant events ---------------------------------------------- */

struct order {
	int kind_ev, kind_late;
	char seen[32];
	int n;
};

static int ord_ev(struct sim_engine *eng, void *ctx, const struct sim_event *ev,
		  struct plumb_err *err)
{
	struct order *o = ctx;
	struct sim_payload pl = { 'K', 0, NULL };
	int rc;

	o->seen[o->n++] = (char)ev->pl.i0;
	/* 'b' asks for two late events while its instant still has 'a' */
	if (ev->pl.i0 != 'b')
		return 0;
	if ((rc = sim_at_instant_end(eng, o->kind_late, &pl, err)) < 0)
		return rc;
	pl.i0 = 'L';
	return sim_at_instant_end(eng, o->kind_late, &pl, err);
}

static int ord_late(struct sim_engine *eng, void *ctx,
		    const struct sim_event *ev, struct plumb_err *err)
{
	struct order *o = ctx;
	struct sim_payload pl = { 'c', 0, NULL };

	o->seen[o->n++] = (char)ev->pl.i0;
	/* the first late event queues an ordinary event now: it runs before
	 * the second late event */
	if (ev->pl.i0 != 'K')
		return 0;
	return sim_at(eng, sim_now(eng), SIM_PRIO_DEFAULT, o->kind_ev, &pl,
		      NULL, err);
}

static const struct sim_ops ord_ev_ops = { "ord", ord_ev };
static const struct sim_ops ord_late_ops = { "ord_late", ord_late };

/* At t = 1 the late events K and L run after every queued event of the
 * instant (b at priority 0, a at priority 5), in the order asked; the
 * event c that K queues at t = 1 runs between them; d at t = 2 comes
 * last. A run that stops before t = 1 leaves them all pending. */
static void test_instant_end(void)
{
	struct sim_engine *eng;
	struct order o;
	struct sim_payload pl = { 0, 0, NULL };

	memset(&o, 0, sizeof(o));
	EXPECT_INT(sim_engine_new(1, &eng, NULL), 0);
	EXPECT_INT(sim_register(eng, &ord_ev_ops, &o, &o.kind_ev, NULL), 0);
	EXPECT_INT(sim_register(eng, &ord_late_ops, &o, &o.kind_late, NULL),
		   0);
	pl.i0 = 'd';
	EXPECT_INT(sim_at(eng, 2, 0, o.kind_ev, &pl, NULL, NULL), 0);
	pl.i0 = 'a';
	EXPECT_INT(sim_at(eng, 1, 5, o.kind_ev, &pl, NULL, NULL), 0);
	pl.i0 = 'b';
	EXPECT_INT(sim_at(eng, 1, 0, o.kind_ev, &pl, NULL, NULL), 0);
	EXPECT_INT(sim_run(eng, 0.5, NULL), 0);
	EXPECT_INT(o.n, 0);
	EXPECT_INT(sim_pending(eng), 3);
	EXPECT_INT(sim_run(eng, 1.5, NULL), 0);
	o.seen[o.n] = 0;
	EXPECT_TRUE(strcmp(o.seen, "baKcL") == 0,
		    "order '%s', expected 'baKcL'", o.seen);
	EXPECT_INT(sim_pending(eng), 1);
	EXPECT_INT(sim_run(eng, INFINITY, NULL), 0);
	EXPECT_INT(o.n, 6);
	EXPECT_INT(sim_stats(eng)->events, 6);
	EXPECT_INT(sim_pending(eng), 0);
	sim_engine_free(eng);
}
void suite_sim_engine(void)
{
	CU_pSuite s = CU_add_suite("sim_engine", NULL, NULL);

	CU_add_test(s, "same seed, same trace", test_determinism);
	CU_add_test(s, "engines side by side", test_side_by_side);
	CU_add_test(s, "per-entity random streams", test_rng_streams);
	CU_add_test(s, "event budget stops a runaway", test_budget);
	CU_add_test(s, "sim_stop and the clock", test_stop_and_clock);
	CU_add_test(s, "end-of-instant events", test_instant_end);
}
