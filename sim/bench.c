/*
 * bench.c - the engine benchmarks of bench.h: the ring, wide and hold
 * workloads, each on its own engine, and the figures derived from one run.
 *
 * Every workload keeps its state in a struct of its own, allocated by
 * sim_bench_run() and freed before it returns; handlers reach it through
 * the ctx pointer given to sim_register() or the flow's arg.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"
#include "engine.h"
#include "flow.h"

static const char *const workload_names[SIM_BENCH_NWORKLOADS] = {
	"ring", "wide", "hold"
};

const char *sim_bench_workload_name(enum sim_bench_workload w)
{
	if ((int)w < 0 || w >= SIM_BENCH_NWORKLOADS)
		return "?";
	return workload_names[w];
}

int sim_bench_workload_parse(const char *name, enum sim_bench_workload *out)
{
	int i;

	for (i = 0; i < SIM_BENCH_NWORKLOADS; i++)
		if (strcmp(name, workload_names[i]) == 0) {
			*out = (enum sim_bench_workload)i;
			return 0;
		}
	return -1;
}

void sim_bench_defaults(enum sim_bench_workload w,
			struct sim_bench_params *p)
{
	memset(p, 0, sizeof(*p));
	p->workload = w;
	p->gpus = 8;
	p->bytes = 1 << 20;
	p->flows = 64;
	p->pending = 1000;
	p->seed = 1;
	switch (w) {
	case SIM_BENCH_RING:
		p->steps = 5000;
		break;
	case SIM_BENCH_WIDE:
		p->steps = 100000;
		break;
	default:
		p->steps = 5000000;
		break;
	}
}

/* ---- ring all-reduce ------------------------------------------------- */

struct ring;

struct gpu {
	int id;
	int step;               /* next step to send, 0..nstep */
	int busy;               /* a send is in flight */
	int reduced;            /* chunks received and reduced */
	int computing;          /* compute phase not over yet */
	int finished;
	gsl_rng *r;             /* owned by the engine */
	struct ring *ring;
};

struct ring {
	struct sim_engine *eng;
	struct sim_net *net;
	int n, nstep;
	struct gpu *g;          /* n of them */
	int *up, *down;         /* n link ids each */
	int root[2], xs[2];
	int kind_compute, kind_reduce;
	double chunk;
	long left;              /* all-reduces not yet finished */
	int nfinished;
	uint64_t starts;
};

static int ring_socket(const struct ring *rg, int g)
{
	return (int)((long)g * 2 / rg->n);
}

static int ring_try_send(struct ring *rg, struct gpu *g,
			 struct plumb_err *err);

static int ring_flow_done(struct sim_net *net, int flow, void *arg,
			  struct plumb_err *err)
{
	struct gpu *src = arg;
	struct ring *rg = src->ring;
	struct sim_payload pl = { 0, 0, NULL };
	int rc;

	(void)net;
	(void)flow;
	src->busy = 0;
	pl.i0 = (src->id + 1) % rg->n;
	rc = sim_after(rg->eng, 2e-6, SIM_PRIO_DEFAULT, rg->kind_reduce, &pl,
		       NULL, err);
	if (rc < 0)
		return rc;
	return ring_try_send(rg, src, err);
}

/* The all-reduce barrier: when every GPU is done, start compute phases. */
static int ring_check_finished(struct ring *rg, struct gpu *g,
			       struct plumb_err *err)
{
	int i, rc;

	if (g->finished || g->step < rg->nstep || g->busy ||
	    g->reduced < rg->nstep)
		return 0;
	g->finished = 1;
	if (++rg->nfinished < rg->n)
		return 0;
	rg->nfinished = 0;
	if (--rg->left == 0)
		return 0;
	for (i = 0; i < rg->n; i++) {
		struct gpu *x = &rg->g[i];
		struct sim_payload pl = { 0, 0, NULL };

		x->step = x->reduced = x->finished = 0;
		x->computing = 1;
		pl.i0 = i;
		rc = sim_after(rg->eng, gsl_ran_flat(x->r, 10e-6, 30e-6),
			       SIM_PRIO_DEFAULT, rg->kind_compute, &pl, NULL,
			       err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int ring_try_send(struct ring *rg, struct gpu *g,
			 struct plumb_err *err)
{
	struct sim_flow_spec s;
	int path[5], n = 0, dst = (g->id + 1) % rg->n;
	int ss = ring_socket(rg, g->id), ds = ring_socket(rg, dst);

	if (g->busy || g->computing || g->step >= rg->nstep ||
	    (g->step > 0 && g->reduced < g->step))
		return ring_check_finished(rg, g, err);
	path[n++] = rg->up[g->id];
	path[n++] = rg->root[ss];
	if (ss != ds) {
		path[n++] = rg->xs[ss];
		path[n++] = rg->root[ds];
	}
	path[n++] = rg->down[dst];
	s.path = path;
	s.path_len = n;
	s.bytes = rg->chunk;
	s.rate_cap = 0;
	s.start = sim_now(rg->eng);
	s.on_done = ring_flow_done;
	s.arg = g;
	g->busy = 1;
	g->step++;
	rg->starts++;
	return sim_flow_start(rg->net, &s, NULL, err);
}

static int ring_on_compute(struct sim_engine *eng, void *ctx,
			   const struct sim_event *ev, struct plumb_err *err)
{
	struct ring *rg = ctx;
	struct gpu *g = &rg->g[ev->pl.i0];

	(void)eng;
	g->computing = 0;
	return ring_try_send(rg, g, err);
}

static int ring_on_reduce(struct sim_engine *eng, void *ctx,
			  const struct sim_event *ev, struct plumb_err *err)
{
	struct ring *rg = ctx;
	struct gpu *g = &rg->g[ev->pl.i0];

	(void)eng;
	g->reduced++;
	return ring_try_send(rg, g, err);
}

static const struct sim_ops ring_compute_ops = { "compute", ring_on_compute };
static const struct sim_ops ring_reduce_ops = { "reduce", ring_on_reduce };

/* Build the fabric and start step 0 on every GPU. */
static int ring_setup(struct ring *rg, const struct sim_bench_params *p,
		      struct plumb_err *err)
{
	int i, rc;

	rg->n = p->gpus;
	rg->nstep = 2 * (p->gpus - 1);
	rg->chunk = p->bytes / p->gpus;
	rg->left = p->steps;
	rg->g = calloc((size_t)rg->n, sizeof(*rg->g));
	rg->up = calloc((size_t)rg->n, sizeof(*rg->up));
	rg->down = calloc((size_t)rg->n, sizeof(*rg->down));
	if (!rg->g || !rg->up || !rg->down)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "out of memory");
	for (i = 0; i < rg->n; i++) {
		if ((rc = sim_net_add_link(rg->net, SIM_LINK_PCIE, 55e9, 1e-6,
					   &rg->up[i], err)) < 0 ||
		    (rc = sim_net_add_link(rg->net, SIM_LINK_PCIE, 55e9, 1e-6,
					   &rg->down[i], err)) < 0)
			return rc;
	}
	for (i = 0; i < 2; i++) {
		if ((rc = sim_net_add_link(rg->net, SIM_LINK_ROOT_COMPLEX,
					   73e9, 0.5e-6, &rg->root[i],
					   err)) < 0 ||
		    (rc = sim_net_add_link(rg->net, SIM_LINK_INTER_SOCKET,
					   64e9, 0.3e-6, &rg->xs[i], err)) < 0)
			return rc;
	}
	if ((rc = sim_register(rg->eng, &ring_compute_ops, rg,
			       &rg->kind_compute, err)) < 0 ||
	    (rc = sim_register(rg->eng, &ring_reduce_ops, rg,
			       &rg->kind_reduce, err)) < 0)
		return rc;
	for (i = 0; i < rg->n; i++) {
		rg->g[i].id = i;
		rg->g[i].ring = rg;
		if ((rc = sim_rng(rg->eng, (uint64_t)i, &rg->g[i].r, err)) < 0)
			return rc;
	}
	for (i = 0; i < rg->n; i++)
		if ((rc = ring_try_send(rg, &rg->g[i], err)) < 0)
			return rc;
	return 0;
}

static void ring_release(struct ring *rg)
{
	free(rg->g);
	free(rg->up);
	free(rg->down);
}

/* ---- many concurrent flows ------------------------------------------- */

#define WIDE_LINKS 32

struct wide {
	struct sim_net *net;
	gsl_rng *r;             /* owned by the engine */
	int links[WIDE_LINKS];
	long left;              /* flows not yet started */
	uint64_t starts;
};

static int wide_start(struct wide *w, struct plumb_err *err);

static int wide_done(struct sim_net *net, int flow, void *arg,
		     struct plumb_err *err)
{
	(void)net;
	(void)flow;
	return wide_start(arg, err);
}

/* Start one flow on 1..4 distinct random links, unless all have started. */
static int wide_start(struct wide *w, struct plumb_err *err)
{
	struct sim_flow_spec s;
	int path[4], n, i, j;

	if (w->left <= 0)
		return 0;
	w->left--;
	n = 1 + (int)gsl_rng_uniform_int(w->r, 4);
	for (i = 0; i < n; i++) {
		int again;
		do {
			path[i] = w->links[gsl_rng_uniform_int(w->r,
							       WIDE_LINKS)];
			again = 0;
			for (j = 0; j < i; j++)
				again |= path[j] == path[i];
		} while (again);
	}
	s.path = path;
	s.path_len = n;
	s.bytes = 1e5 + gsl_rng_uniform(w->r) * 1e7;
	s.rate_cap = 0;
	s.start = sim_now(sim_net_engine(w->net));
	s.on_done = wide_done;
	s.arg = w;
	w->starts++;
	return sim_flow_start(w->net, &s, NULL, err);
}

static int wide_setup(struct wide *w, struct sim_engine *eng,
		      const struct sim_bench_params *p, struct plumb_err *err)
{
	int i, rc;

	if ((rc = sim_rng(eng, 0, &w->r, err)) < 0)
		return rc;
	for (i = 0; i < WIDE_LINKS; i++)
		if ((rc = sim_net_add_link(w->net, SIM_LINK_PCIE,
					   gsl_ran_flat(w->r, 10e9, 100e9),
					   1e-6, &w->links[i], err)) < 0)
			return rc;
	w->left = p->steps;
	for (i = 0; i < p->flows; i++)
		if ((rc = wide_start(w, err)) < 0)
			return rc;
	return 0;
}

/* ---- hold model -------------------------------------------------------- */

struct hold {
	int kind;
	gsl_rng *r;             /* owned by the engine */
	long left;              /* events still to handle */
};

static int hold_on_event(struct sim_engine *eng, void *ctx,
			 const struct sim_event *ev, struct plumb_err *err)
{
	struct hold *h = ctx;

	(void)ev;
	if (--h->left == 0) {
		sim_stop(eng);
		return 0;
	}
	return sim_after(eng, gsl_ran_exponential(h->r, 1.0), SIM_PRIO_DEFAULT,
			 h->kind, NULL, NULL, err);
}

static const struct sim_ops hold_ops = { "hold", hold_on_event };

static int hold_setup(struct hold *h, struct sim_engine *eng,
		      const struct sim_bench_params *p, struct plumb_err *err)
{
	int i, rc;

	h->left = p->steps;
	if ((rc = sim_register(eng, &hold_ops, h, &h->kind, err)) < 0 ||
	    (rc = sim_rng(eng, 0, &h->r, err)) < 0)
		return rc;
	for (i = 0; i < p->pending; i++)
		if ((rc = sim_after(eng, gsl_ran_exponential(h->r, 1.0),
				    SIM_PRIO_DEFAULT, h->kind, NULL, NULL,
				    err)) < 0)
			return rc;
	return 0;
}

/* ---- one run ------------------------------------------------------------ */

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return ru.ru_maxrss;    /* kilobytes on Linux */
}

static int check_params(const struct sim_bench_params *p,
			struct plumb_err *err)
{
	if ((int)p->workload < 0 || p->workload >= SIM_BENCH_NWORKLOADS)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "unknown workload %d", (int)p->workload);
	if (p->steps < 1)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "steps must be at least 1, not %ld",
				     p->steps);
	switch (p->workload) {
	case SIM_BENCH_RING:
		if (p->gpus < 2 || p->gpus > SIM_BENCH_MAX_GPUS)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "gpus must be 2..%d, not %d",
					     SIM_BENCH_MAX_GPUS, p->gpus);
		if (!(p->bytes > 0) || !isfinite(p->bytes))
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "bytes must be positive, not %g",
					     p->bytes);
		break;
	case SIM_BENCH_WIDE:
		if (p->flows < 1 || p->flows > SIM_BENCH_MAX_FLOWS)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "flows must be 1..%d, not %d",
					     SIM_BENCH_MAX_FLOWS, p->flows);
		break;
	default:
		if (p->pending < 1 || p->pending > SIM_BENCH_MAX_FLOWS)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "pending must be 1..%d, not %d",
					     SIM_BENCH_MAX_FLOWS, p->pending);
		break;
	}
	return 0;
}

/* Derive the per-second and per-event figures from counts and wall time. */
static void fill_result(struct sim_bench_result *r,
			const struct sim_engine *eng, const struct sim_net *net,
			uint64_t starts, double secs)
{
	const struct sim_stats *st = sim_stats(eng);

	r->events = st->events;
	r->flow_starts = starts;
	r->resolves = st->resolves;
	r->cancelled = st->cancelled;
	if (st->resolves) {
		r->flows_per_resolve = (double)st->resolve_flows /
				       (double)st->resolves;
		r->rounds_per_resolve = (double)st->resolve_rounds /
					(double)st->resolves;
	}
	r->peak_pending = st->peak_pending;
	r->sim_seconds = sim_now(eng);
	if (net) {
		r->bytes_sent = sim_net_bytes_started(net);
		r->bytes_done = sim_net_bytes_done(net);
	}
	r->wall_seconds = secs;
	if (secs > 0) {
		r->events_per_s = (double)r->events / secs;
		r->flows_per_s = (double)r->flow_starts / secs;
		r->resolves_per_s = (double)r->resolves / secs;
	}
	if (r->events)
		r->ns_per_event = 1e9 * secs / (double)r->events;
	if (r->resolves)
		r->ns_per_resolve = 1e9 * secs / (double)r->resolves;
	r->peak_rss_kib = peak_rss_kib();
}

int sim_bench_run(const struct sim_bench_params *p,
		  struct sim_bench_result *r, struct plumb_err *err)
{
	struct sim_engine *eng = NULL;
	struct sim_net *net = NULL;
	struct ring *rg = NULL;
	struct wide *w = NULL;
	struct hold *h = NULL;
	uint64_t starts = 0;
	double t0, secs;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = check_params(p, err)) < 0)
		return rc;
	if ((rc = sim_engine_new(p->seed, &eng, err)) < 0)
		return rc;
	sim_set_budget(eng, 0);
	if (p->workload != SIM_BENCH_HOLD &&
	    (rc = sim_net_new(eng, &net, err)) < 0)
		goto fail;
	switch (p->workload) {
	case SIM_BENCH_RING:
		if (!(rg = calloc(1, sizeof(*rg))))
			goto oom;
		rg->eng = eng;
		rg->net = net;
		rc = ring_setup(rg, p, err);
		break;
	case SIM_BENCH_WIDE:
		if (!(w = calloc(1, sizeof(*w))))
			goto oom;
		w->net = net;
		rc = wide_setup(w, eng, p, err);
		break;
	default:
		if (!(h = calloc(1, sizeof(*h))))
			goto oom;
		rc = hold_setup(h, eng, p, err);
		break;
	}
	if (rc < 0)
		goto fail;
	t0 = wall_now();
	rc = sim_run(eng, INFINITY, err);
	secs = wall_now() - t0;
	if (rc < 0)
		goto fail;
	if (rg)
		starts = rg->starts;
	else if (w)
		starts = w->starts;
	fill_result(r, eng, net, starts, secs);
	rc = 0;
	goto out;
oom:
	rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
fail:
	memset(r, 0, sizeof(*r));
out:
	if (rg)
		ring_release(rg);
	free(rg);
	free(w);
	free(h);
	sim_net_free(net);
	sim_engine_free(eng);
	return rc;
}
