/*
 * test_sim_flow.c - the max-min flow network (sim/flow.h) on the engine
 * (sim/engine.h): hand-computed sharing cases, latency, a seeded property
 * test. The engine alone is in test_sim_engine.c.
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

void suite_sim_flow(void);

/* ---- small fixtures ---------------------------------------------------- */

struct done {
	double t;               /* completion time, -1 until then */
	int calls;
};

static int record_done(struct sim_net *net, int flow, void *arg,
		       struct plumb_err *err)
{
	struct done *d = arg;

	(void)flow;
	(void)err;
	d->t = sim_now(sim_net_engine(net));
	d->calls++;
	return 0;
}

void fix_init(struct fix *f, uint64_t seed)
{
	plumb_err_clear(&f->err);
	EXPECT_INT(sim_engine_new(seed, &f->eng, &f->err), 0);
	EXPECT_INT(sim_net_new(f->eng, &f->net, &f->err), 0);
}

void fix_release(struct fix *f)
{
	sim_net_free(f->net);
	sim_engine_free(f->eng);
}

int add_link(struct fix *f, double cap, double lat)
{
	int id = -1;

	EXPECT_INT(sim_net_add_link(f->net, SIM_LINK_PCIE, cap, lat, &id,
				    &f->err), 0);
	return id;
}

static int start(struct fix *f, const int *path, int n, double bytes,
		 double cap, double t0, struct done *d)
{
	struct sim_flow_spec s;
	int id = -1;

	s.path = path;
	s.path_len = n;
	s.bytes = bytes;
	s.rate_cap = cap;
	s.start = t0;
	s.on_done = record_done;
	s.arg = d;
	d->t = -1;
	d->calls = 0;
	EXPECT_INT(sim_flow_start(f->net, &s, &id, &f->err), 0);
	return id;
}

/* ---- hand-computed sharing cases --------------------------------------- */

/* Two flows of 100 B on one 100 B/s link: 50 B/s each, both done at 2 s. */
static void test_two_flows_half(void)
{
	struct fix f;
	struct done a, b;
	int l, fa, fb;

	fix_init(&f, 1);
	l = add_link(&f, 100, 0);
	fa = start(&f, &l, 1, 100, 0, 0, &a);
	fb = start(&f, &l, 1, 100, 0, 0, &b);
	EXPECT_INT(sim_run(f.eng, 0.5, &f.err), 0);
	EXPECT_NEAR(sim_flow_rate(f.net, fa), 50, TOL);
	EXPECT_NEAR(sim_flow_rate(f.net, fb), 50, TOL);
	EXPECT_NEAR(sim_net_link_load(f.net, l), 100, TOL);
	EXPECT_INT(sim_stats(f.eng)->resolves, 1);  /* both starts: one solve */
	EXPECT_INT(sim_run(f.eng, INFINITY, &f.err), 0);
	EXPECT_NEAR(a.t, 2.0, TOL);
	EXPECT_NEAR(b.t, 2.0, TOL);
	EXPECT_INT(a.calls + b.calls, 2);
	EXPECT_INT(sim_net_nflows(f.net), 0);
	fix_release(&f);
}

/*
 * L1 = 90 B/s, L2 = 10 B/s. A and B cross L1; C crosses L1 then L2.
 * Progressive filling by hand:
 *   round 1: shares L1 90/3 = 30, L2 10/1 = 10 -> level 10, L2 full:
 *            C frozen at 10; L1 keeps 90 - 10 = 80 for 2 flows.
 *   round 2: share L1 80/2 = 40 -> A = B = 40; L1 carries 40+40+10 = 90.
 * (Without L2 each would get 30: C's bottleneck elsewhere frees 20 B/s.)
 * Sizes A = B = 400 B, C = 50 B: C ends at 50/10 = 5 s. Then A and B have
 * 400 - 5*40 = 200 B left at 90/2 = 45 B/s: they end at 5 + 200/45 =
 * 85/9 s.
 */
static void test_bottleneck_elsewhere(void)
{
	struct fix f;
	struct done a, b, c;
	int l1, l2, pc[2], fa, fb, fc;

	fix_init(&f, 1);
	l1 = add_link(&f, 90, 0);
	l2 = add_link(&f, 10, 0);
	pc[0] = l1;
	pc[1] = l2;
	fa = start(&f, &l1, 1, 400, 0, 0, &a);
	fb = start(&f, &l1, 1, 400, 0, 0, &b);
	fc = start(&f, pc, 2, 50, 0, 0, &c);
	EXPECT_INT(sim_run(f.eng, 1, &f.err), 0);
	EXPECT_NEAR(sim_flow_rate(f.net, fa), 40, TOL);
	EXPECT_NEAR(sim_flow_rate(f.net, fb), 40, TOL);
	EXPECT_NEAR(sim_flow_rate(f.net, fc), 10, TOL);
	EXPECT_NEAR(sim_net_link_load(f.net, l1), 90, TOL);
	EXPECT_NEAR(sim_net_link_load(f.net, l2), 10, TOL);
	EXPECT_INT(sim_run(f.eng, 6, &f.err), 0);
	EXPECT_NEAR(c.t, 5, TOL);
	EXPECT_NEAR(sim_flow_rate(f.net, fa), 45, TOL);
	EXPECT_INT(sim_run(f.eng, INFINITY, &f.err), 0);
	EXPECT_NEAR(a.t, 85.0 / 9.0, TOL);
	EXPECT_NEAR(b.t, 85.0 / 9.0, TOL);
	fix_release(&f);
}

/*
 * A rate cap acts as a private bottleneck: on a 100 B/s link, X capped at
 * 20 B/s gets 20 and Y gets the remaining 80 (not 50/50).
 */
static void test_rate_cap(void)
{
	struct fix f;
	struct done x, y;
	int l, fx, fy;

	fix_init(&f, 1);
	l = add_link(&f, 100, 0);
	fx = start(&f, &l, 1, 20, 20, 0, &x);
	fy = start(&f, &l, 1, 160, 0, 0, &y);
	EXPECT_INT(sim_run(f.eng, 0.5, &f.err), 0);
	EXPECT_NEAR(sim_flow_rate(f.net, fx), 20, TOL);
	EXPECT_NEAR(sim_flow_rate(f.net, fy), 80, TOL);
	/* X done at 1 s; Y has 80 B left at 100 B/s: done at 1.8 s */
	EXPECT_INT(sim_run(f.eng, INFINITY, &f.err), 0);
	EXPECT_NEAR(x.t, 1.0, TOL);
	EXPECT_NEAR(y.t, 1.8, TOL);
	fix_release(&f);
}

/*
 * A starts alone at 0 s (100 B on 100 B/s); B (25 B) starts at 0.5 s.
 * 0..0.5: A alone at 100 B/s, 50 B left. From 0.5: 50 B/s each; B ends at
 * 0.5 + 25/50 = 1.0 s, A then has 25 B left at 100 B/s: ends at 1.25 s
 * (1.0 s had it been alone).
 */
static void test_late_flow_slows_early(void)
{
	struct fix f;
	struct done a, b;
	int l;

	fix_init(&f, 1);
	l = add_link(&f, 100, 0);
	start(&f, &l, 1, 100, 0, 0, &a);
	start(&f, &l, 1, 25, 0, 0.5, &b);
	EXPECT_INT(sim_run(f.eng, INFINITY, &f.err), 0);
	EXPECT_NEAR(b.t, 1.0, TOL);
	EXPECT_NEAR(a.t, 1.25, TOL);
	EXPECT_INT(sim_stats(f.eng)->resolves, 4);
	fix_release(&f);
}

/*
 * Latency, then bandwidth: path latency 1 ms + 2 ms = 3 ms, narrowest link
 * 500 B/s, 1000 B: done at 0.003 + 2 = 2.003 s. No bandwidth is used while
 * the latency runs. A 0-byte flow on the same path ends at 0.003 s.
 */
static void test_path_latency(void)
{
	struct fix f;
	struct done a, z;
	int p[2], fa;

	fix_init(&f, 1);
	p[0] = add_link(&f, 1000, 0.001);
	p[1] = add_link(&f, 500, 0.002);
	fa = start(&f, p, 2, 1000, 0, 0, &a);
	start(&f, p, 2, 0, 0, 0, &z);
	EXPECT_INT(sim_run(f.eng, 0.002, &f.err), 0);
	EXPECT_INT(sim_net_nactive(f.net), 0);
	EXPECT_NEAR(sim_flow_rate(f.net, fa), 0, TOL);
	EXPECT_INT(sim_run(f.eng, 1, &f.err), 0);
	EXPECT_NEAR(z.t, 0.003, TOL);
	EXPECT_NEAR(sim_flow_rate(f.net, fa), 500, TOL);
	EXPECT_INT(sim_run(f.eng, INFINITY, &f.err), 0);
	EXPECT_NEAR(a.t, 2.003, TOL);
	EXPECT_NEAR(sim_net_bytes_done(f.net), 1000, TOL);
	fix_release(&f);
}

static void test_bad_input(void)
{
	struct fix f;
	struct sim_flow_spec s;
	int l, id = 7, p[2];

	fix_init(&f, 1);
	EXPECT_INT(sim_net_add_link(f.net, SIM_LINK_NVLINK, 0, 0, &l, &f.err),
		   -PLUMB_EINPUT);
	EXPECT_INT(sim_net_add_link(f.net, SIM_LINK_NVLINK, 1, -1, &l, &f.err),
		   -PLUMB_EINPUT);
	l = add_link(&f, 100, 0);
	memset(&s, 0, sizeof(s));
	p[0] = l;
	p[1] = l;
	s.path = p;
	s.path_len = 2;
	s.bytes = 1;
	EXPECT_INT(sim_flow_start(f.net, &s, &id, &f.err), -PLUMB_EINPUT);
	EXPECT_TRUE(strstr(f.err.msg, "twice") != NULL,
		    "message '%.300s', expected it to say 'twice'", f.err.msg);
	EXPECT_INT(id, -1);
	p[1] = 5;
	EXPECT_INT(sim_flow_start(f.net, &s, &id, &f.err), -PLUMB_EINPUT);
	s.path_len = 0;
	EXPECT_INT(sim_flow_start(f.net, &s, &id, &f.err), -PLUMB_EINPUT);
	s.path_len = 1;
	s.bytes = -1;
	EXPECT_INT(sim_flow_start(f.net, &s, &id, &f.err), -PLUMB_EINPUT);
	s.bytes = 1;
	EXPECT_INT(sim_run(f.eng, 1, &f.err), 0);
	s.start = 0.5;          /* before now = 1 */
	EXPECT_INT(sim_flow_start(f.net, &s, &id, &f.err), -PLUMB_EINPUT);
	EXPECT_INT(sim_net_nflows(f.net), 0);
	EXPECT_TRUE(strcmp(sim_link_kind_name(SIM_LINK_ROOT_COMPLEX),
			   "root_complex") == 0, "kind name '%s'",
		    sim_link_kind_name(SIM_LINK_ROOT_COMPLEX));
	fix_release(&f);
}

/* ---- property test: random flows on random paths ----------------------- */

#define PNLINKS 16
#define PNFLOWS 400

struct prop;

struct pflow {
	struct prop *owner;
	double bytes, rate, since, delivered;
	int done;
};

struct prop {
	struct fix f;
	gsl_rng *r;
	struct pflow fl[PNFLOWS];
	int nstarted;
	int links[PNLINKS];
	int violations, not_maxmin, solves;
	double worst;           /* largest load / capacity seen */
	int broken;             /* invariant walks that failed */
	char first_broken[256];
};

/* Before every event: walk the engine's and the network's invariants. */
static void prop_trace(void *ctx, const struct sim_event *ev)
{
	struct prop *p = ctx;
	struct plumb_err e;

	(void)ev;
	plumb_err_clear(&e);
	if (sim_check(p->f.eng, &e) < 0 || sim_net_check(p->f.net, &e) < 0) {
		if (p->broken++ == 0)
			snprintf(p->first_broken, sizeof(p->first_broken),
				 "%.200s", e.msg);
	}
}

static int prop_done(struct sim_net *net, int flow, void *arg,
		     struct plumb_err *err);

static int prop_start(struct prop *p, double t0, struct plumb_err *err)
{
	struct sim_flow_spec s;
	int path[4], n, i, j, rc;
	struct pflow *pf;

	if (p->nstarted == PNFLOWS)
		return 0;
	pf = &p->fl[p->nstarted++];
	n = 1 + (int)gsl_rng_uniform_int(p->r, 4);
	for (i = 0; i < n; i++) {
		int again;
		do {    /* distinct links */
			path[i] = p->links[gsl_rng_uniform_int(p->r, PNLINKS)];
			again = 0;
			for (j = 0; j < i; j++)
				again |= path[j] == path[i];
		} while (again);
	}
	pf->bytes = 1e3 + gsl_rng_uniform(p->r) * 1e7;
	pf->owner = p;
	pf->rate = pf->delivered = 0;
	pf->since = t0;
	pf->done = 0;
	s.path = path;
	s.path_len = n;
	s.bytes = pf->bytes;
	s.rate_cap = gsl_rng_uniform(p->r) < 0.2 ?
		     1e8 + gsl_rng_uniform(p->r) * 1e10 : 0;
	s.start = t0;
	s.on_done = prop_done;
	s.arg = pf;
	rc = sim_flow_start(p->f.net, &s, NULL, err);
	return rc;
}

static int prop_done(struct sim_net *net, int flow, void *arg,
		     struct plumb_err *err)
{
	struct pflow *pf = arg;
	double now = sim_now(sim_net_engine(net));

	(void)flow;
	pf->delivered += pf->rate * (now - pf->since);
	pf->done++;
	/* later flows start from completions, at the completion instant */
	return prop_start(pf->owner, now, err);
}

/* The hook sees every re-solve: integrate, check capacity and max-min. */
static void prop_hook(void *ctx, const struct sim_net *net)
{
	struct prop *p = ctx;
	double now = sim_now(sim_net_engine(net));
	double load[PNLINKS], maxr[PNLINKS];
	int i, j, nl = sim_net_nlinks(net);

	p->solves++;
	for (i = 0; i < nl; i++)
		load[i] = maxr[i] = 0;
	for (i = 0; i < sim_net_nactive(net); i++) {
		int id = sim_net_active(net, i);
		struct pflow *pf = sim_flow_arg(net, id);
		const int *path;
		int n = sim_flow_path(net, id, &path);
		double r = sim_flow_rate(net, id);

		pf->delivered += pf->rate * (now - pf->since);
		pf->since = now;
		pf->rate = r;
		for (j = 0; j < n; j++) {
			load[path[j]] += r;
			if (r > maxr[path[j]])
				maxr[path[j]] = r;
		}
	}
	for (i = 0; i < nl; i++) {
		double c = sim_net_link_capacity(net, i);
		if (load[i] > c * (1 + 1e-9))
			p->violations++;
		if (load[i] / c > p->worst)
			p->worst = load[i] / c;
	}
	/* max-min: every flow is at its cap or has a bottleneck link that
	 * is full and on which no flow gets more than it does */
	for (i = 0; i < sim_net_nactive(net); i++) {
		int id = sim_net_active(net, i), ok;
		const int *path;
		int n = sim_flow_path(net, id, &path);
		double r = sim_flow_rate(net, id), cap;

		cap = sim_flow_rate_cap(net, id);
		ok = cap > 0 && r >= cap * (1 - 1e-9);
		for (j = 0; !ok && j < n; j++) {
			int l = path[j];
			ok = load[l] >= sim_net_link_capacity(net, l) *
				       (1 - 1e-9) &&
			     r >= maxr[l] * (1 - 1e-9);
		}
		if (!ok)
			p->not_maxmin++;
	}
}

static void test_property_random(void)
{
	struct prop *p = calloc(1, sizeof(*p));
	double sent = 0, got = 0;
	int i, bad = 0;

	fix_init(&p->f, 2024);
	EXPECT_INT(sim_rng(p->f.eng, 1, &p->r, &p->f.err), 0);
	for (i = 0; i < PNLINKS; i++)
		p->links[i] = add_link(&p->f, 1e9 + gsl_rng_uniform(p->r) * 1e11,
				       gsl_rng_uniform(p->r) * 5e-6);
	sim_net_set_resolve_hook(p->f.net, prop_hook, p);
	sim_set_trace(p->f.eng, prop_trace, p);
	for (i = 0; i < PNFLOWS * 3 / 4; i++)
		EXPECT_INT(prop_start(p, gsl_rng_uniform(p->r) * 1e-3,
				      &p->f.err), 0);
	EXPECT_INT(sim_run(p->f.eng, INFINITY, &p->f.err), 0);
	EXPECT_INT(p->nstarted, PNFLOWS);
	for (i = 0; i < PNFLOWS; i++) {
		struct pflow *pf = &p->fl[i];
		sent += pf->bytes;
		got += pf->delivered;
		if (!bad && (pf->done != 1 ||
			     fabs(pf->delivered - pf->bytes) > 1e-9 * pf->bytes)) {
			EXPECT_TRUE(0, "flow %d: delivered %.17g of %.17g bytes, "
				    "%d completions (expected 1)", i,
				    pf->delivered, pf->bytes, pf->done);
			bad = 1;
		}
	}
	EXPECT_NEAR(got, sent, 1e-9);
	EXPECT_NEAR(sim_net_bytes_done(p->f.net), sent, TOL);
	EXPECT_NEAR(sim_net_bytes_started(p->f.net), sent, TOL);
	EXPECT_INT(p->violations, 0);
	EXPECT_INT(p->not_maxmin, 0);
	EXPECT_TRUE(p->broken == 0, "%d invariant walks failed, first: %s",
		    p->broken, p->first_broken);
	EXPECT_TRUE(p->worst <= 1 + 1e-9, "max load/capacity %.17g", p->worst);
	EXPECT_INT(p->solves, sim_stats(p->f.eng)->resolves);
	EXPECT_TRUE(p->solves > PNFLOWS / 2, "only %d re-solves", p->solves);
	EXPECT_INT(sim_net_nflows(p->f.net), 0);
	fix_release(&p->f);
	free(p);
}

void suite_sim_flow(void)
{
	CU_pSuite s = CU_add_suite("sim_flow", NULL, NULL);

	CU_add_test(s, "two flows share a link half each", test_two_flows_half);
	CU_add_test(s, "bottleneck elsewhere frees capacity",
		    test_bottleneck_elsewhere);
	CU_add_test(s, "rate cap", test_rate_cap);
	CU_add_test(s, "later flow slows an earlier one",
		    test_late_flow_slows_early);
	CU_add_test(s, "path latency adds", test_path_latency);
	CU_add_test(s, "bad input is refused", test_bad_input);
	CU_add_test(s, "random flows: bytes, capacity, max-min",
		    test_property_random);
}
