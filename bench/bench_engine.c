/*
 * bench_engine.c - throughput benchmark of the event engine and the flow
 * network (sim/). Not part of the plumb binary; see bench/README.md.
 *
 * Workload "ring": 8 endpoints (GPUs) in two sockets of 4. Each GPU has a
 * PCIe link per direction (55 GB/s, 1 us); each socket's GPUs share a root
 * link (73 GB/s, 0.5 us, the I/O-die quadrant cap); the sockets are joined
 * by one inter-socket link per direction (64 GB/s, 0.3 us). A flow from GPU
 * i to GPU j crosses up(i), root(socket i), [xsock(socket i -> socket j),
 * root(socket j)], down(j).
 *
 * Each all-reduce is a ring all-reduce of `bytes` bytes: 2(n-1) = 14 steps
 * in which every GPU sends one chunk (bytes / 8) to its right neighbour.
 * A GPU sends step s (s >= 1) once its own send of step s-1 is complete and
 * it has received and reduced the chunk of step s-1 from its left neighbour
 * (a "reduce" event, 2 us). After every GPU has finished its 14 steps, each
 * GPU runs a "compute" event of 10..30 us drawn from its own random stream
 * and then starts the next all-reduce. Every chunk is one flow, so the run
 * is dominated by flow starts and ends, that is, by re-solves.
 *
 * Workload "wide": `wide` flows stay active at once on 32 links of
 * random capacity (paths of 1..4 distinct random links); each completion
 * starts a new flow, so nearly every event is followed by a re-solve over
 * all `wide` flows. It measures the re-solve cost against the number of
 * active flows.
 *
 * Workload "hold": the classic hold model on the bare engine: `hold`
 * pending events; each event schedules one more at now + Exp(1). It
 * measures the queue and the run loop alone.
 *
 * Output: events, events/s, re-solves, re-solves/s, ns per event, peak
 * pending events and peak RSS (getrusage).
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "engine.h"
#include "flow.h"

#define NGPU 8
#define NSTEP (2 * (NGPU - 1))

struct gpu {
	int id;
	int step;               /* next step to send, 0..NSTEP */
	int busy;               /* a send is in flight */
	int recvd;              /* chunks received this all-reduce */
	int reduced;            /* chunks received and reduced */
	int computing;          /* compute phase not over yet */
	int finished;
	gsl_rng *r;
	struct ring *ring;
};

struct ring {
	struct sim_engine *eng;
	struct sim_net *net;
	struct gpu g[NGPU];
	int up[NGPU], down[NGPU], root[2], xs[2];
	int kind_compute, kind_reduce;
	double chunk;
	long allreduces, left;
	int nfinished;
};

static int socket_of(int g)
{
	return g / (NGPU / 2);
}

static int try_send(struct ring *rg, struct gpu *g, struct plumb_err *err);

static int flow_done(struct sim_net *net, int flow, void *arg,
		     struct plumb_err *err)
{
	struct gpu *src = arg;
	struct ring *rg = src->ring;
	struct gpu *dst = &rg->g[(src->id + 1) % NGPU];
	struct sim_payload pl = { 0, 0, NULL };

	(void)net;
	(void)flow;
	src->busy = 0;
	dst->recvd++;
	pl.i0 = dst->id;
	if (sim_after(rg->eng, 2e-6, SIM_PRIO_DEFAULT, rg->kind_reduce, &pl,
		      NULL, err) < 0)
		return -PLUMB_ERUNTIME;
	return try_send(rg, src, err);
}

static int check_finished(struct ring *rg, struct gpu *g,
			  struct plumb_err *err)
{
	int i;

	if (g->finished || g->step < NSTEP || g->busy || g->reduced < NSTEP)
		return 0;
	g->finished = 1;
	if (++rg->nfinished < NGPU)
		return 0;
	/* barrier reached: next all-reduce after each GPU's compute phase */
	rg->nfinished = 0;
	if (--rg->left == 0)
		return 0;
	for (i = 0; i < NGPU; i++) {
		struct gpu *x = &rg->g[i];
		struct sim_payload pl = { 0, 0, NULL };
		int rc;

		x->step = x->recvd = x->reduced = x->finished = 0;
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

static int try_send(struct ring *rg, struct gpu *g, struct plumb_err *err)
{
	struct sim_flow_spec s;
	int path[5], n = 0, dst = (g->id + 1) % NGPU, rc;
	int ss = socket_of(g->id), ds = socket_of(dst);

	if (g->busy || g->computing || g->step >= NSTEP ||
	    (g->step > 0 && g->reduced < g->step))
		return check_finished(rg, g, err);
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
	s.on_done = flow_done;
	s.arg = g;
	g->busy = 1;
	g->step++;
	rc = sim_flow_start(rg->net, &s, NULL, err);
	return rc;
}

static int on_compute(struct sim_engine *eng, void *ctx,
		      const struct sim_event *ev, struct plumb_err *err)
{
	struct ring *rg = ctx;
	struct gpu *g = &rg->g[ev->pl.i0];

	(void)eng;
	g->computing = 0;
	return try_send(rg, g, err);
}

static int on_reduce(struct sim_engine *eng, void *ctx,
		     const struct sim_event *ev, struct plumb_err *err)
{
	struct ring *rg = ctx;
	struct gpu *g = &rg->g[ev->pl.i0];

	(void)eng;
	g->reduced++;
	return try_send(rg, g, err);
}

static const struct sim_ops compute_ops = { "compute", on_compute };
static const struct sim_ops reduce_ops = { "reduce", on_reduce };

static int ring_setup(struct ring *rg, struct plumb_err *err)
{
	int i, rc;

	for (i = 0; i < NGPU; i++) {
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
	if ((rc = sim_register(rg->eng, &compute_ops, rg, &rg->kind_compute,
			       err)) < 0 ||
	    (rc = sim_register(rg->eng, &reduce_ops, rg, &rg->kind_reduce,
			       err)) < 0)
		return rc;
	for (i = 0; i < NGPU; i++) {
		struct gpu *g = &rg->g[i];
		g->id = i;
		g->ring = rg;
		if ((rc = sim_rng(rg->eng, (uint64_t)i, &g->r, err)) < 0)
			return rc;
	}
	for (i = 0; i < NGPU; i++)
		if ((rc = try_send(rg, &rg->g[i], err)) < 0)
			return rc;
	return 0;
}

#define WLINKS 32

struct wide {
	struct sim_net *net;
	gsl_rng *r;
	int links[WLINKS];
	long left;
};

static int wide_start(struct wide *w, struct plumb_err *err);

static int wide_done(struct sim_net *net, int flow, void *arg,
		     struct plumb_err *err)
{
	(void)net;
	(void)flow;
	return wide_start(arg, err);
}

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
			path[i] = w->links[gsl_rng_uniform_int(w->r, WLINKS)];
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
	return sim_flow_start(w->net, &s, NULL, err);
}

struct hold {
	int kind;
	gsl_rng *r;
};

static int on_hold(struct sim_engine *eng, void *ctx,
		   const struct sim_event *ev, struct plumb_err *err)
{
	struct hold *h = ctx;

	(void)ev;
	return sim_after(eng, gsl_ran_exponential(h->r, 1.0), SIM_PRIO_DEFAULT,
			 h->kind, NULL, NULL, err);
}

static const struct sim_ops hold_ops = { "hold", on_hold };

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return ru.ru_maxrss;    /* kilobytes on Linux */
}

static void report(const char *name, const struct sim_engine *eng,
		   double secs)
{
	const struct sim_stats *st = sim_stats(eng);

	printf("%s: %llu events in %.3f s wall, %.3f s simulated\n", name,
	       (unsigned long long)st->events, secs, sim_now(eng));
	printf("  events/s        %.3g (%.1f ns/event)\n",
	       (double)st->events / secs, 1e9 * secs / (double)st->events);
	printf("  re-solves       %llu (%.3g /s, %.2f flows and %.2f rounds "
	       "per solve)\n", (unsigned long long)st->resolves,
	       (double)st->resolves / secs,
	       st->resolves ? (double)st->resolve_flows /
			      (double)st->resolves : 0.0,
	       st->resolves ? (double)st->resolve_rounds /
			      (double)st->resolves : 0.0);
	printf("  cancelled       %llu\n", (unsigned long long)st->cancelled);
	printf("  peak pending    %zu events\n", st->peak_pending);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-engine [--allreduces N] [--bytes B] "
		"[--wide F] [--wide-flows N] [--hold N] [--hold-events N] "
		"[--seed S]\n");
}

int main(int argc, char **argv)
{
	struct plumb_err err;
	struct sim_engine *eng = NULL;
	struct ring *rg = NULL;
	struct hold h;
	long allreduces = 20000, hold = 1000, wide = 64, wide_flows = 200000;
	struct wide w;
	double bytes = 1 << 20, hold_events = 1e7, t0, secs;
	unsigned long long seed = 1;
	int i, rc;

	gsl_set_error_handler_off();
	plumb_err_clear(&err);
	w.net = NULL;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v) {
			usage();
			return PLUMB_EUSAGE;
		}
		if (strcmp(a, "--allreduces") == 0)
			allreduces = atol(v);
		else if (strcmp(a, "--bytes") == 0)
			bytes = atof(v);
		else if (strcmp(a, "--wide") == 0)
			wide = atol(v);
		else if (strcmp(a, "--wide-flows") == 0)
			wide_flows = atol(v);
		else if (strcmp(a, "--hold") == 0)
			hold = atol(v);
		else if (strcmp(a, "--hold-events") == 0)
			hold_events = atof(v);
		else if (strcmp(a, "--seed") == 0)
			seed = strtoull(v, NULL, 10);
		else {
			usage();
			return PLUMB_EUSAGE;
		}
		i++;
	}
	if (allreduces < 1 || hold < 1 || wide < 1 || wide_flows < wide || !(bytes > 0) || !(hold_events >= 1)) {
		usage();
		return PLUMB_EUSAGE;
	}

	/* ring all-reduce over the flow network */
	rg = calloc(1, sizeof(*rg));
	if (!rg)
		return PLUMB_ERUNTIME;
	if ((rc = sim_engine_new(seed, &rg->eng, &err)) < 0 ||
	    (rc = sim_net_new(rg->eng, &rg->net, &err)) < 0)
		goto fail;
	rg->chunk = bytes / NGPU;
	rg->allreduces = rg->left = allreduces;
	if ((rc = ring_setup(rg, &err)) < 0)
		goto fail;
	t0 = wall();
	if ((rc = sim_run(rg->eng, INFINITY, &err)) < 0)
		goto fail;
	secs = wall() - t0;
	printf("ring: %ld all-reduces of %.0f bytes over %d GPUs "
	       "(%.2f us each)\n", allreduces, bytes, NGPU,
	       1e6 * sim_now(rg->eng) / (double)allreduces);
	report("ring", rg->eng, secs);

	/* many concurrent flows: re-solve cost against active flows */
	if ((rc = sim_engine_new(seed, &eng, &err)) < 0 ||
	    (rc = sim_net_new(eng, &w.net, &err)) < 0 ||
	    (rc = sim_rng(eng, 0, &w.r, &err)) < 0)
		goto fail;
	for (i = 0; i < WLINKS; i++)
		if ((rc = sim_net_add_link(w.net, SIM_LINK_PCIE,
					   gsl_ran_flat(w.r, 10e9, 100e9),
					   1e-6, &w.links[i], &err)) < 0)
			goto fail;
	w.left = wide_flows;
	for (i = 0; i < wide; i++)
		if ((rc = wide_start(&w, &err)) < 0)
			goto fail;
	t0 = wall();
	if ((rc = sim_run(eng, INFINITY, &err)) < 0)
		goto fail;
	secs = wall() - t0;
	printf("wide: %ld flows, %ld active at once, on %d links\n",
	       wide_flows, wide, WLINKS);
	report("wide", eng, secs);
	printf("  per re-solve    %.0f ns (upper bound: all wall time / "
	       "re-solves)\n", 1e9 * secs / (double)sim_stats(eng)->resolves);
	sim_net_free(w.net);
	w.net = NULL;
	sim_engine_free(eng);
	eng = NULL;

	/* hold model on the bare engine */
	if ((rc = sim_engine_new(seed, &eng, &err)) < 0 ||
	    (rc = sim_register(eng, &hold_ops, &h, &h.kind, &err)) < 0 ||
	    (rc = sim_rng(eng, 0, &h.r, &err)) < 0)
		goto fail;
	for (i = 0; i < hold; i++)
		if ((rc = sim_after(eng, gsl_ran_exponential(h.r, 1.0),
				    SIM_PRIO_DEFAULT, h.kind, NULL, NULL,
				    &err)) < 0)
			goto fail;
	sim_set_budget(eng, (uint64_t)hold_events);
	t0 = wall();
	rc = sim_run(eng, INFINITY, &err);   /* ends on the budget */
	secs = wall() - t0;
	if (rc != -PLUMB_ERUNTIME || sim_stats(eng)->events !=
				     (uint64_t)hold_events)
		goto fail;
	printf("hold: %ld pending events\n", hold);
	report("hold", eng, secs);
	printf("peak RSS %ld KiB\n", peak_rss_kb());
	sim_engine_free(eng);
	sim_net_free(rg->net);
	sim_engine_free(rg->eng);
	free(rg);
	return 0;
fail:
	fprintf(stderr, "bench-engine: error: %s\n", err.msg);
	sim_net_free(w.net);
	sim_engine_free(eng);
	if (rg) {
		sim_net_free(rg->net);
		sim_engine_free(rg->eng);
		free(rg);
	}
	return PLUMB_ERUNTIME;
}
