/*
 * test_sim_solvers.c - the class solver against the per-flow reference
 * (sim/flow.h, "TWO SOLVERS"): seeded random workloads run once under each,
 * and every flow's completion time must agree within 1e-9 relative.
 *
 * A workload is drawn before either run, so both see the same flows: a
 * topology of private links (one per endpoint and direction, as GPUs' PCIe
 * or NIC links) and a few shared ones (root complexes, switches, network),
 * flows from one endpoint to another across 0-3 shared links, caps and
 * sizes from small sets (so that many flows share a class and many end at
 * the same instant) or continuous, starts on a coarse grid (ties) or at
 * random, and a third of the flows started from another flow's completion
 * callback after a delay (0 on some), as collectives chain their steps.
 * A flow is named by its index in the workload, not by its id, so the
 * comparison does not depend on the order in which one instant's events
 * run.
 *
 * Copies (sim_flow_start_n): the same workloads with each flow standing
 * for 1-4 identical flows (24 on some, a collective's channels), run once
 * as flows of copies and once as that many separate flows, under each
 * solver; the finish times must agree within 1e-9 relative, and under
 * the class solver (the default) they are the same to the bit.
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

void suite_sim_solvers(void);

#define REL_TOL 1e-9
#define MAXPATH 6

struct wflow {
	int path[MAXPATH], plen;
	double bytes, cap;
	double start;           /* absolute, or the delay after the parent */
	int parent;             /* -1: started at setup */
	int copies;             /* identical flows it stands for (>= 1) */
	int nchild, child0;     /* children: kids[child0 .. child0+nchild) */
};

struct workload {
	int nend, nshared, nlinks;
	double *lcap, *llat;
	struct wflow *f;
	int nf;
	int *kids;
};

struct run {
	const struct workload *w;
	struct sim_engine *eng;
	struct sim_net *net;
	struct fctx *ctx;       /* one per workload flow */
	double *done;           /* completion time per workload flow */
	int *calls;
	int checks_failed;
	char first_failure[256];
	int check_each;         /* walk sim_net_check before every event */
	int mode;               /* COPIES_* */
};

/* How a run starts a workload flow: one flow, ignoring its copies; one flow
 * of its copies (sim_flow_start_n); or its copies as separate flows. */
enum { COPIES_NONE, COPIES_AS_ONE, COPIES_APART };

struct fctx {
	struct run *r;
	int idx;
	int left;               /* COPIES_APART: copies still running */
};

static int on_done(struct sim_net *net, int flow, void *arg,
		   struct plumb_err *err);

static int start_flow(struct run *r, struct fctx *ctx, int i, double t,
		      struct plumb_err *err)
{
	const struct wflow *wf = &r->w->f[i];
	struct sim_flow_spec s;

	int k, rc;

	ctx[i].r = r;
	ctx[i].idx = i;
	s.path = wf->path;
	s.path_len = wf->plen;
	s.bytes = wf->bytes;
	s.rate_cap = wf->cap;
	s.start = t;
	s.on_done = on_done;
	s.arg = &ctx[i];
	if (r->mode == COPIES_AS_ONE)
		return sim_flow_start_n(r->net, &s, wf->copies, NULL, err);
	ctx[i].left = r->mode == COPIES_APART ? wf->copies : 1;
	for (k = 0; k < ctx[i].left; k++)
		if ((rc = sim_flow_start(r->net, &s, NULL, err)) < 0)
			return rc;
	return 0;
}

static int on_done(struct sim_net *net, int flow, void *arg,
		   struct plumb_err *err)
{
	struct fctx *c = arg;
	struct run *r = c->r;
	const struct wflow *wf = &r->w->f[c->idx];
	double now = sim_now(sim_net_engine(net));
	int k, rc;

	(void)flow;
	if (--c->left > 0)
		return 0;       /* a copy of several ends: the last one counts */
	r->done[c->idx] = now;
	r->calls[c->idx]++;
	for (k = 0; k < wf->nchild; k++) {
		int ch = r->w->kids[wf->child0 + k];
		if ((rc = start_flow(r, r->ctx, ch, now + r->w->f[ch].start,
				     err)) < 0)
			return rc;
	}
	return 0;
}

static void trace_check(void *ctx, const struct sim_event *ev)
{
	struct run *r = ctx;
	struct plumb_err e;

	(void)ev;
	plumb_err_clear(&e);
	if (sim_check(r->eng, &e) < 0 || sim_net_check(r->net, &e) < 0) {
		if (r->checks_failed++ == 0)
			snprintf(r->first_failure, sizeof(r->first_failure),
				 "%.200s", e.msg);
	}
}

/* Draw workload number `seed` (sizes also from the seed). */
static void draw(struct workload *w, uint64_t seed)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	int i, j, nk = 0;
	int tied_sizes, tied_starts;
	static const double caps[] = { 25e9, 50e9, 100e9 };
	static const double sizes[] = { 1 << 16, 1 << 20, 3 << 20 };

	gsl_rng_set(g, (unsigned long)seed);
	memset(w, 0, sizeof(*w));
	w->nend = 4 + (int)gsl_rng_uniform_int(g, 29);
	w->nshared = 1 + (int)gsl_rng_uniform_int(g, 6);
	w->nlinks = 2 * w->nend + w->nshared;
	w->lcap = calloc((size_t)w->nlinks, sizeof(*w->lcap));
	w->llat = calloc((size_t)w->nlinks, sizeof(*w->llat));
	/* private links: a few capacities shared by many (ties) */
	for (i = 0; i < 2 * w->nend; i++) {
		w->lcap[i] = gsl_rng_uniform(g) < 0.7 ?
			     caps[gsl_rng_uniform_int(g, 3)] :
			     1e9 + gsl_rng_uniform(g) * 2e11;
		w->llat[i] = gsl_rng_uniform(g) < 0.5 ? 1e-6 :
			     gsl_rng_uniform(g) * 3e-6;
	}
	for (; i < w->nlinks; i++) {
		w->lcap[i] = 2e10 + gsl_rng_uniform(g) * 3e11;
		w->llat[i] = gsl_rng_uniform(g) < 0.3 ? 0 :
			     gsl_rng_uniform(g) * 1e-6;
	}
	w->nf = 50 + (int)gsl_rng_uniform_int(g, 350);
	w->f = calloc((size_t)w->nf, sizeof(*w->f));
	w->kids = calloc((size_t)w->nf, sizeof(*w->kids));
	tied_sizes = gsl_rng_uniform(g) < 0.6;
	tied_starts = gsl_rng_uniform(g) < 0.6;
	for (i = 0; i < w->nf; i++) {
		struct wflow *f = &w->f[i];
		int src = (int)gsl_rng_uniform_int(g, (unsigned long)w->nend);
		int dst = (int)gsl_rng_uniform_int(g, (unsigned long)w->nend);
		int ns = (int)gsl_rng_uniform_int(g, 4), k;

		if (ns > w->nshared)
			ns = w->nshared;
		if (gsl_rng_uniform(g) < 0.05) {
			f->plen = 0;    /* a pure cap, no link */
		} else {
			f->path[f->plen++] = 2 * src;           /* up */
			for (k = 0; k < ns; k++) {
				int l = 2 * w->nend + (int)gsl_rng_uniform_int(
					g, (unsigned long)w->nshared), dup = 0;
				for (j = 0; j < f->plen; j++)
					dup |= f->path[j] == l;
				if (!dup)
					f->path[f->plen++] = l;
			}
			if (dst != src || gsl_rng_uniform(g) < 0.5)
				f->path[f->plen++] = 2 * dst + 1;   /* down */
		}
		f->cap = gsl_rng_uniform(g) < 0.25 ?
			 caps[gsl_rng_uniform_int(g, 3)] / 2 : 0;
		if (f->plen == 0)
			f->cap = caps[gsl_rng_uniform_int(g, 3)];
		f->bytes = tied_sizes ? sizes[gsl_rng_uniform_int(g, 3)] :
			   1e3 + gsl_rng_uniform(g) * 1e7;
		if (gsl_rng_uniform(g) < 0.02)
			f->bytes = 0;
		f->parent = -1;
		if (i > 0 && gsl_rng_uniform(g) < 0.35) {
			f->parent = (int)gsl_rng_uniform_int(g,
							     (unsigned long)i);
			f->start = gsl_rng_uniform(g) < 0.5 ? 0 :
				   gsl_rng_uniform(g) * 1e-5;
		} else {
			f->start = tied_starts ?
				   1e-5 * (double)gsl_rng_uniform_int(g, 20) :
				   gsl_rng_uniform(g) * 2e-4;
		}
	}
	/* children lists in index order */
	for (i = 0; i < w->nf; i++) {
		w->f[i].child0 = nk;
		for (j = i + 1; j < w->nf; j++)
			if (w->f[j].parent == i) {
				w->kids[nk++] = j;
				w->f[i].nchild++;
			}
	}
	/* copies from a stream of their own, so that the workloads above
	 * stay what they were */
	gsl_rng_set(g, (unsigned long)seed + 1000003UL);
	for (i = 0; i < w->nf; i++)
		w->f[i].copies = gsl_rng_uniform(g) < 0.05 ? 24 :
				 1 + (int)gsl_rng_uniform_int(g, 4);
	gsl_rng_free(g);
}

static void workload_free(struct workload *w)
{
	free(w->lcap);
	free(w->llat);
	free(w->f);
	free(w->kids);
}

/* Run w under solver s; done[] and calls[] filled. 0 or a plumb code. */
static int run_one(const struct workload *w, enum sim_flow_solver s,
		   int mode, int check_each, double *done, int *calls,
		   char *why, size_t whylen)
{
	struct run r;
	struct plumb_err err;
	struct fctx *ctx = calloc((size_t)w->nf, sizeof(*ctx));
	int i, rc, id;

	memset(&r, 0, sizeof(r));
	r.w = w;
	r.ctx = ctx;
	r.done = done;
	r.calls = calls;
	r.check_each = check_each;
	r.mode = mode;
	plumb_err_clear(&err);
	for (i = 0; i < w->nf; i++) {
		done[i] = -1;
		calls[i] = 0;
	}
	if ((rc = sim_engine_new(7, &r.eng, &err)) < 0 ||
	    (rc = sim_net_new(r.eng, &r.net, &err)) < 0 ||
	    (rc = sim_net_set_solver(r.net, s, &err)) < 0)
		goto out;
	for (i = 0; i < w->nlinks; i++)
		if ((rc = sim_net_add_link(r.net, SIM_LINK_PCIE, w->lcap[i],
					   w->llat[i], &id, &err)) < 0)
			goto out;
	if (check_each)
		sim_set_trace(r.eng, trace_check, &r);
	for (i = 0; i < w->nf; i++)
		if (w->f[i].parent < 0 &&
		    (rc = start_flow(&r, ctx, i, w->f[i].start, &err)) < 0)
			goto out;
	if ((rc = sim_run(r.eng, INFINITY, &err)) < 0)
		goto out;
	if (r.checks_failed) {
		snprintf(why, whylen, "%d invariant walks failed, first: %s",
			 r.checks_failed, r.first_failure);
		rc = -PLUMB_ERUNTIME;
	}
out:
	if (rc < 0 && !r.checks_failed)
		snprintf(why, whylen, "%.200s", err.msg);
	sim_net_free(r.net);
	sim_engine_free(r.eng);
	free(ctx);
	return rc;
}

/* Compare two runs of workload seed, (solver, mode) a and b; returns the
 * worst relative difference of a completion time (INFINITY when a run
 * failed or a flow did not end exactly once), the flow in *worst_i;
 * *nexact: the flows whose times are the same to the bit. */
static double compare_runs(uint64_t seed, enum sim_flow_solver sa, int ma,
			   enum sim_flow_solver sb, int mb, int check_each,
			   int *nflows, int *nexact, int *worst_i, char *why,
			   size_t whylen)
{
	struct workload w;
	double *ta, *tb, worst = 0;
	int *ca, *cb, i;

	draw(&w, seed);
	*nflows = w.nf;
	*nexact = 0;
	*worst_i = -1;
	ta = calloc((size_t)w.nf, sizeof(*ta));
	tb = calloc((size_t)w.nf, sizeof(*tb));
	ca = calloc((size_t)w.nf, sizeof(*ca));
	cb = calloc((size_t)w.nf, sizeof(*cb));
	if (run_one(&w, sa, ma, check_each, ta, ca, why, whylen) < 0 ||
	    run_one(&w, sb, mb, check_each, tb, cb, why, whylen) < 0) {
		worst = INFINITY;
		goto out;
	}
	for (i = 0; i < w.nf; i++) {
		double d;

		if (ca[i] != 1 || cb[i] != 1) {
			snprintf(why, whylen, "flow %d ended %d and %d times",
				 i, ca[i], cb[i]);
			worst = INFINITY;
			*worst_i = i;
			goto out;
		}
		*nexact += ta[i] == tb[i];
		d = fabs(ta[i] - tb[i]) / fabs(ta[i]);
		if (ta[i] == 0)
			d = tb[i] == 0 ? 0 : INFINITY;
		if (d > worst || isnan(d)) {
			worst = isnan(d) ? INFINITY : d;
			*worst_i = i;
			snprintf(why, whylen, "flow %d: %.17g s and %.17g s",
				 i, ta[i], tb[i]);
		}
	}
out:
	free(ta);
	free(tb);
	free(ca);
	free(cb);
	workload_free(&w);
	return worst;
}

#define NSEEDS 200

static void test_random_workloads(void)
{
	double worst_all = 0;
	int s, bad = 0, flows = 0;

	for (s = 1; s <= NSEEDS; s++) {
		char why[512] = "";
		int nf, wi;
		/* the first seeds also walk every invariant before each event */
		int nx;
		double d = compare_runs((uint64_t)s, SIM_SOLVER_PER_FLOW,
					COPIES_NONE, SIM_SOLVER_CLASSES,
					COPIES_NONE, s <= 20, &nf, &nx, &wi,
					why, sizeof(why));

		flows += nf;

		if (d > worst_all)
			worst_all = d;
		if (!(d <= REL_TOL) && bad++ < 3)
			EXPECT_TRUE(0, "workload %d (%d flows): worst relative "
				    "difference %.3g > %g; %s", s, nf, d,
				    REL_TOL, why);
	}
	EXPECT_TRUE(bad == 0, "%d of %d workloads out of tolerance "
		    "(worst %.3g)", bad, NSEEDS, worst_all);
	EXPECT_TRUE(flows > NSEEDS * 50, "only %d flows compared", flows);
}

/* Flows of copies against as many separate flows, under solver sv: within
 * REL_TOL, and (exact) the same to the bit. */
static void copies_against_apart(enum sim_flow_solver sv, int exact)
{
	double worst_all = 0;
	int s, bad = 0, flows = 0, same = 0;

	for (s = 1; s <= NSEEDS / 2; s++) {
		char why[512] = "";
		int nf, nx, wi;
		double d = compare_runs((uint64_t)s, sv, COPIES_APART, sv,
					COPIES_AS_ONE, s <= 10, &nf, &nx, &wi,
					why, sizeof(why));

		flows += nf;
		same += nx;
		if (d > worst_all)
			worst_all = d;
		if ((!(d <= REL_TOL) || (exact && nx != nf)) && bad++ < 3)
			EXPECT_TRUE(0, "workload %d (%d flows, %d the same "
				    "to the bit): worst relative difference "
				    "%.3g; %s", s, nf, nx, d, why);
	}
	EXPECT_TRUE(bad == 0, "%d of %d workloads off (worst %.3g, %d of %d "
		    "flows the same to the bit)", bad, NSEEDS / 2, worst_all,
		    same, flows);
}

static void test_copies_classes(void)
{
	copies_against_apart(SIM_SOLVER_CLASSES, 1);
}

static void test_copies_per_flow(void)
{
	copies_against_apart(SIM_SOLVER_PER_FLOW, 0);
}

/* A flow of copies weighs its copies on its links: 3 copies and one other
 * flow on a 40 GB/s link get 10 GB/s each, and the copies' flow reports
 * its copies and counts every copy's bytes. */
static void test_copies_share(void)
{
	struct sim_engine *eng = NULL;
	struct sim_net *net = NULL;
	struct sim_flow_spec s;
	struct plumb_err err;
	int l, a, b;

	plumb_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_engine_new(1, &eng, &err), 0);
	CU_ASSERT_EQUAL_FATAL(sim_net_new(eng, &net, &err), 0);
	CU_ASSERT_EQUAL_FATAL(sim_net_add_link(net, SIM_LINK_PCIE, 40e9, 0, &l,
					       &err), 0);
	memset(&s, 0, sizeof(s));
	s.path = &l;
	s.path_len = 1;
	s.bytes = 1e6;
	CU_ASSERT_EQUAL(sim_flow_start_n(net, &s, 0, &a, &err), -PLUMB_EINPUT);
	CU_ASSERT_EQUAL(sim_flow_start_n(net, &s, 3, &a, &err), 0);
	CU_ASSERT_EQUAL(sim_flow_start(net, &s, &b, &err), 0);
	CU_ASSERT_EQUAL(sim_run(eng, 1e-9, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_flow_rate(net, a), 10e9, 1);
	CU_ASSERT_DOUBLE_EQUAL(sim_flow_rate(net, b), 10e9, 1);
	CU_ASSERT_DOUBLE_EQUAL(sim_net_link_load(net, l), 40e9, 1);
	CU_ASSERT_EQUAL(sim_flow_copies(net, a), 3);
	CU_ASSERT_EQUAL(sim_flow_copies(net, b), 1);
	CU_ASSERT_EQUAL(sim_net_check(net, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_net_bytes_started(net), 4e6, 1e-6);
	CU_ASSERT_EQUAL(sim_run(eng, INFINITY, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_net_bytes_done(net), 4e6, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(sim_now(eng), 1e-4, 1e-15);
	sim_net_free(net);
	sim_engine_free(eng);
}

void suite_sim_solvers(void)
{
	CU_pSuite s = CU_add_suite("sim_solvers", NULL, NULL);

	CU_add_test(s, "classes match per-flow on random workloads",
		    test_random_workloads);
	CU_add_test(s, "copies as one flow: the same bits as apart (classes)",
		    test_copies_classes);
	CU_add_test(s, "copies as one flow: within 1e-9 of apart (per flow)",
		    test_copies_per_flow);
	CU_add_test(s, "copies weigh on their links", test_copies_share);
}
