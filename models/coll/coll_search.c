/*
 * coll_search.c - one collective alone: the names and bus-bandwidth
 * factors of nccl-tests, the checks, and the choice of algorithm and
 * protocol (coll.h; the engine that runs a choice is coll.c).
 *
 * Protocol auto: a ring with a hop through host memory (NCCL's SHM
 * transport) runs the protocol NCCL's tuner picks by its own model
 * (coll_tune_proto, src/graph/tuning.cc), which has no term for those
 * hops, so the machine runs NCCL's pick where it is slower; so does an
 * NVLink ring (NVSwitch or bonds), whose graph plumb finds as NCCL's
 * search does, the pick made from NCCL's compiled tables whatever step
 * latencies the machine has. A ring over PCIe P2P runs the fastest
 * simulated protocol (the tuner's pick in NCCL's units, from plumb's
 * reading of its search, missed more on the public runs: docs/model-collectives.md),
 * unless NCCL's search found no ring and fell back to one at 0.1 GB/s
 * (a Blackwell ring across AMD sockets): then its tuner's pick, Simple
 * from a few KiB.
 * RCCL on 8 MI300X runs its MSCCL allpairs where its algorithm files
 * take the size (coll_rccl.c). Send/recv and all-to-all take NCCL's p2p
 * rule (LL under NCCL_P2P_LL_THRESHOLD per channel, else Simple).
 */
#include "coll.h"
#include "coll_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int coll_op_parse(const char *s)
{
	static const char *const a[] = { "allreduce", "allgather", "reducescatter",
					  "broadcast", "alltoall", "sendrecv" };
	static const char *const b[] = { "all_reduce", "all_gather", "reduce_scatter",
					  "broadcast", "alltoall", "sendrecv" };
	int i;
	for (i = 0; i < COLL_NOPS; i++)
		if (!strcmp(s, a[i]) || !strcmp(s, b[i]))
			return i;
	return -1;
}

const char *coll_op_name(enum coll_op op)
{
	static const char *const b[] = { "all_reduce", "all_gather", "reduce_scatter",
					  "broadcast", "alltoall", "sendrecv" };
	return b[op];
}

const char *coll_algo_name(int a)
{
	return a == ALGO_TREE ? "tree" : a == ALGO_RING ? "ring" : a == ALGO_ONESHOT ? "oneshot" :
	       a == ALGO_TWOSHOT ? "twoshot" : "auto";
}

int coll_custom_of(const struct scenario *s)
{
	switch (s->serving.allreduce) {
	case SCN_AR_ONESHOT:
		return COLL_CUSTOM_ONESHOT;
	case SCN_AR_TWOSHOT:
		return COLL_CUSTOM_TWOSHOT;
	case SCN_AR_AUTO:
		return COLL_CUSTOM_ONESHOT | COLL_CUSTOM_TWOSHOT;
	default:
		return 0;
	}
}

const char *coll_proto_name(int p)
{
	return p == PROTO_LL ? "LL" : p == PROTO_LL128 ? "LL128" : p == PROTO_SIMPLE ? "Simple" : "auto";
}

double coll_busbw_factor(enum coll_op op, int n)
{
	switch (op) {
	case COLL_ALLREDUCE: return n > 1 ? 2.0 * (n - 1) / n : 1;
	case COLL_ALLGATHER:
	case COLL_REDUCESCATTER:
	case COLL_ALLTOALL: return n > 1 ? (double)(n - 1) / n : 1;
	default: return 1;
	}
}

static int record_time(struct coll_ctx *x, double seconds, void *arg, struct plumb_err *err)
{
	(void)x;
	(void)err;
	*(double *)arg = seconds;
	return 0;
}

/* An engine and fabric of s with a collective context on them: the closed
 * form and the bounds read them (links, routes) and start nothing, so one
 * serves every candidate of a search, and the search's first simulation
 * (used: one has run, its clock is no longer at 0); a later simulation
 * takes a fresh one. */
struct env {
	struct sim_engine *eng;
	struct fabric *fab;
	struct coll_ctx x;
	int used;
};

static void env_free(struct env *v)
{
	coll_ctx_release(&v->x);
	fab_free(v->fab);
	sim_engine_free(v->eng);
	memset(v, 0, sizeof(*v));
}

static int env_new(const struct scenario *s, const struct topo_view *view,
		   const struct fab_routes *routes, struct env *v, struct plumb_err *err)
{
	int rc;
	memset(v, 0, sizeof(*v));
	if ((rc = sim_engine_new(s->seed, &v->eng, err)) < 0)
		return rc;
	sim_set_budget(v->eng, s->event_budget);
	if ((rc = fab_build(v->eng, s, &v->fab, err)) < 0 ||
	    (fab_use_routes(v->fab, routes), rc = coll_ctx_init(&v->x, v->eng, v->fab, view, err)) < 0) {
		env_free(v);
		return rc;
	}
	return 0;
}

/* The closed form of one (algorithm, protocol) on cl (built on first use):
 * 0 with *seconds (-1: not allowed here), 1 when it does not hold
 * (res->why), or a negative code. */
static int closed_one(const struct scenario *s, const struct topo_view *view,
		      const struct fab_routes *routes, struct env *cl,
		      const struct coll_spec *c, int algo, int proto, double *seconds,
		      struct coll_result *res, struct plumb_err *err)
{
	struct crun *r = NULL;
	int rc, shared = 0;
	double t = -1;

	*seconds = -1;
	if (!cl->eng && (rc = env_new(s, view, routes, cl, err)) < 0)
		return rc;
	if ((rc = coll_run_new(&cl->x, c, algo, proto, res, &r, err)) != 0)
		return rc > 0 ? 0 : rc;         /* 1: protocol not available here */
	rc = coll_closed(r, &t, &shared, &res->why, err);
	coll_run_free(r);
	if (rc == 0) {
		res->closed = shared ? 2 : 1;
		*seconds = t;
	}
	return rc;
}

/* One (algorithm, protocol): in closed form where it holds (unless c->flow),
 * else simulated. *seconds = -1: not allowed. */
static int run_one(const struct scenario *s, const struct topo_view *view,
		   const struct fab_routes *routes, struct env *cl,
		   const struct coll_spec *c, int algo, int proto, double *seconds,
		   struct coll_result *res, struct plumb_err *err)
{
	struct env fresh, *v = cl;
	double t = -1;
	int rc;

	*seconds = -1;
	res->closed = 0;
	res->why = NULL;
	if (!c->flow && (rc = closed_one(s, view, routes, cl, c, algo, proto, seconds, res,
					 err)) <= 0)
		return rc;
	/* the search's own engine while nothing has run on it (built as a
	 * fresh one is: the same run, the same bits), else a fresh one */
	memset(&fresh, 0, sizeof(fresh));
	if (cl->used)
		v = &fresh;
	if (!v->eng && (rc = env_new(s, view, routes, v, err)) < 0)
		return rc;
	rc = coll_start(&v->x, c, algo, proto, 0, record_time, &t, res, err);
	if (rc != 0) {
		rc = rc > 0 ? 0 : rc;   /* 1: protocol not available here */
		goto out;
	}
	v->used = 1;
	if ((rc = sim_run(v->eng, INFINITY, err)) < 0)
		goto out;
	if (v->x.active != 0 || t < 0) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				   "collective did not complete (%d still running)", v->x.active);
		goto out;
	}
	*seconds = t;
out:
	env_free(&fresh);
	return rc;
}

/* The checks coll_time makes before simulating; 1 when c has one rank
 * (r filled), 0 to simulate, or a negative code. */
static int coll_check(const struct scenario *s, const struct coll_spec *c, struct coll_result *r,
		      struct plumb_err *err)
{
	int i;
	memset(r, 0, sizeof(*r));
	if (c->n < 1 || c->n > s->ngpus)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "a collective needs 1 to %d ranks, got %d", s->ngpus, c->n);
	for (i = 0; i < c->n; i++)
		if (c->gpus[i] < 0 || c->gpus[i] >= s->ngpus)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "GPU %d does not exist (the scenario has %d)", c->gpus[i], s->ngpus);
	if (!(c->bytes >= 0) || !isfinite(c->bytes))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "size must be >= 0");
	if (c->op == COLL_SENDRECV && c->n < 2)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "sendrecv needs 2 ranks or more");
	r->busbw_factor = coll_busbw_factor(c->op, c->n);
	if (c->n == 1) {
		r->seconds = s->k.v[K_NCCL_BASE_US] * 1e-6;
		r->algo = ALGO_RING;
		r->proto = PROTO_LL;
		return 1;
	}
	return 0;
}

/*
 * The protocol NCCL runs collective c with, or -1 to keep the fastest
 * simulated: send/recv and all-to-all by NCCL's p2p rule (LL while a
 * peer's bytes fit NCCL_P2P_LL_THRESHOLD per channel); a ring inside one
 * host with a hop through host memory, or on the graph NCCL's search
 * falls back to (coll_graph_of), by its tuner (coll_tune_proto); other
 * rings -1.
 */
static int nccl_pick(const struct scenario *s, const struct topo_view *view,
		     const struct coll_spec *c)
{
	struct coll_graph g;
	int i;
	/* between hosts NCCL's tuner weighs its NET terms, which
	 * coll_tune_time leaves out: the fastest simulated instead */
	for (i = 1; i < c->n; i++)
		if (s->nodes[s->gpu_node[c->gpus[i]]].host != s->nodes[s->gpu_node[c->gpus[0]]].host)
			return -1;
	coll_graph_of(s, view, c, &g);
	if (c->op != COLL_SENDRECV && c->op != COLL_ALLTOALL) {
		int shm = 0;
		for (i = 0; i < c->n; i++) {
			int a = c->gpus[i], b = c->gpus[(i + 1) % c->n];
			if (a != b && view->xport[a][b] == XP_SHM)
				shm = 1;
		}
		/* an NVLink ring (NVSwitch or bonds), whose graph NCCL's search
		 * finds as coll_graph_of does: the tuner's pick too; RCCL on an
		 * xGMI mesh tunes by its own tables: the fastest simulated */
		if (!shm && (!g.nvlink || s->xgmi) && !g.fallback)
			return -1;
	}
	if (c->op == COLL_SENDRECV || c->op == COLL_ALLTOALL) {
		double b = c->op == COLL_ALLTOALL ? c->bytes / c->n : c->bytes;
		return coll_p2p_ll(b, coll_p2p_nch(&g, b, c->n)) ? PROTO_LL : PROTO_SIMPLE;
	}
	return coll_tune_proto(s, &g, c);
}

/* A candidate of a search, (algorithm, protocol): the closed form's time
 * (-1: none), a lower bound of its flows (-1: none), the simulated time
 * (-1: not simulated or not allowed) and its result. pick: a ring whose
 * protocol NCCL's pick decided (nccl_pick); pruned: left unsimulated;
 * na: not allowed here (found setting up its bound). */
struct cand {
	int algo, proto, pick, pruned, na;
	double est, lb, t;
	struct coll_result res;
};

#define MAX_CAND (2 * (ALGO_TWOSHOT + 1) * PROTO_N)

/* The closed form is the flows' within COLL_CLOSED_EPS (1e-3) where it
 * holds (docs/model-collectives.md, "Closed form"); a candidate its closed form puts
 * this much above the best simulated is slower in the flows too. */
#define PRUNE_EPS 1e-2

/* A candidate whose lower bound (coll_bound, exact but for the roundings
 * of a few dozen operations, ~1e-15 relative) is above the best simulated
 * by this much cannot be the fastest: it is not simulated. */
#define BOUND_EPS 1e-9

/* 0: every candidate simulated (tests/unit/test_closed.c compares). */
int coll_search_prune = 1;

/* The candidates of algo for c after those in x[0 .. *nc): its protocols
 * (the pick alone when pick >= 0). */
static void add_algo(const struct coll_spec *c, int algo, int pick, struct cand *x, int *nc)
{
	int proto;
	for (proto = PROTO_LL; proto < PROTO_N && *nc < MAX_CAND; proto++) {
		if (c->proto != PROTO_AUTO && c->proto != proto)
			continue;
		if (pick >= 0 && proto != pick)
			continue;
		if ((algo == ALGO_ONESHOT || algo == ALGO_TWOSHOT) && proto != PROTO_LL &&
		    c->proto == PROTO_AUTO)
			continue;   /* no NCCL protocol: simulated once */
		memset(&x[*nc], 0, sizeof(x[*nc]));
		x[*nc].algo = algo;
		x[*nc].proto = proto;
		x[*nc].pick = pick >= 0;
		x[*nc].est = x[*nc].lb = x[*nc].t = -1;
		(*nc)++;
	}
}

/* Candidate x's lower bound (coll_bound, on cl built on first use; -1:
 * none; x->na when it is not allowed here): the engine's kernels always, a
 * ring where its flows are forced (else its closed form, which may lie
 * within 1e-3 under the flows, is its time). 0 or a negative code. */
static int bound_of(const struct scenario *s, const struct topo_view *view,
		    const struct fab_routes *routes, struct env *cl, const struct coll_spec *c,
		    struct cand *x, struct plumb_err *err)
{
	struct coll_result scratch;
	struct crun *r = NULL;
	int rc;

	x->lb = -1;
	if (x->algo != ALGO_ONESHOT && x->algo != ALGO_TWOSHOT && !(x->algo == ALGO_RING && c->flow))
		return 0;
	if (!cl->eng && (rc = env_new(s, view, routes, cl, err)) < 0)
		return rc;
	memset(&scratch, 0, sizeof(scratch));
	if ((rc = coll_run_new(&cl->x, c, x->algo, x->proto, &scratch, &r, err)) != 0) {
		x->na = rc > 0;
		return rc > 0 ? 0 : rc;
	}
	rc = coll_bound(r, &x->lb, err);
	coll_run_free(r);
	if (rc != 0)
		x->lb = -1;
	return rc < 0 ? rc : 0;
}

/* Simulate the candidates x[from .. n) (or take their closed form where it
 * holds and c->flow is not set), the likeliest fastest first: ordered by
 * their lower bounds, those without one first (they run whatever the
 * others give). One whose bound is above the best time so far by
 * BOUND_EPS, or, flows forced among several protocols, whose closed form
 * is above it by PRUNE_EPS, cannot be the fastest and is not simulated.
 * *best: the best so far, in and out. 0 or a negative code. */
static int simulate(const struct scenario *s, const struct topo_view *view,
		    const struct fab_routes *routes, struct env *cl, const struct coll_spec *c,
		    struct cand *x, int from, int n, double *best, struct plumb_err *err)
{
	int ord[MAX_CAND], i, j, k, rc, nalgo[ALGO_TWOSHOT + 1] = { 0 };

	for (i = from; i < n; i++) {
		nalgo[x[i].algo]++;
		/* one candidate runs whatever its bound */
		if (n - from > 1 && (rc = bound_of(s, view, routes, cl, c, &x[i], err)) < 0)
			return rc;
	}
	/* insertion, stable: at most MAX_CAND */
	for (i = from, k = 0; i < n; i++, k++) {
		for (j = k; j > 0 && x[i].lb < x[ord[j - 1]].lb; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	for (k = 0; k < n - from; k++) {
		struct cand *y = &x[ord[k]];
		int prune = coll_search_prune && isfinite(*best);
		if (y->na)
			continue;
		if (prune && y->lb >= 0 && y->lb > *best * (1 + BOUND_EPS)) {
			y->pruned = 1;
			continue;
		}
		/* flows forced, several protocols: the closed form's time
		 * where it holds (the flows' within COLL_CLOSED_EPS) */
		if (prune && c->flow && nalgo[y->algo] > 1) {
			struct coll_result scratch;
			double t = -1;
			memset(&scratch, 0, sizeof(scratch));
			if ((rc = closed_one(s, view, routes, cl, c, y->algo, y->proto, &t,
					     &scratch, err)) < 0)
				return rc;
			y->est = rc == 0 && t >= 0 ? t : -1;
			if (y->est >= 0 && y->est > *best * (1 + PRUNE_EPS)) {
				y->pruned = 1;
				continue;
			}
		}
		memset(&y->res, 0, sizeof(y->res));
		if ((rc = run_one(s, view, routes, cl, c, y->algo, y->proto, &y->t, &y->res,
				  err)) < 0)
			return rc;
		if (y->t >= 0 && y->t < *best)
			*best = y->t;
	}
	return 0;
}

/* Every candidate (algorithm, protocol) of c alone; the fastest, the first
 * in algorithm then protocol order on a tie. With protocol auto a ring
 * NCCL's pick decides runs it alone (nccl_pick). */
static int coll_search(const struct scenario *s, const struct topo_view *view,
		       const struct fab_routes *routes, const struct coll_spec *c,
		       struct coll_result *r, struct plumb_err *err)
{
	int algo, proto, rc, pick, mnch, nc = 0, k, from;
	double best = INFINITY, floor_t = INFINITY;
	struct coll_result tmp;
	struct cand cand[MAX_CAND];
	struct env cl;

	memset(&cl, 0, sizeof(cl));
	/* RCCL's MSCCL allpairs where its algorithm files take the size:
	 * RCCL runs it instead of its tuner's choice (coll_rccl.c) */
	if (c->algo == ALGO_AUTO && c->proto == PROTO_AUTO &&
	    !(c->custom & (COLL_CUSTOM_ONESHOT | COLL_CUSTOM_TWOSHOT)) &&
	    coll_msccl_allpairs(s, view, c, &proto, &mnch)) {
		struct coll_spec m = *c;
		double t;
		m.custom |= COLL_CUSTOM_MSCCL;
		memset(&tmp, 0, sizeof(tmp));
		if ((rc = run_one(s, view, routes, &cl, &m, ALGO_TWOSHOT, proto, &t, &tmp, err)) < 0) {
			env_free(&cl);
			return rc;
		}
		if (t >= 0) {
			r->seconds = t;
			r->algo = ALGO_TWOSHOT;
			r->proto = proto;
			r->shm_hops = tmp.shm_hops;
			r->p2p_hops = tmp.p2p_hops;
			r->net_hops = tmp.net_hops;
			r->closed = tmp.closed;
			r->why = tmp.why;
			env_free(&cl);
			return 0;
		}
	}

	for (algo = ALGO_RING; algo <= ALGO_TWOSHOT; algo++) {
		if (c->algo != ALGO_AUTO && c->algo != algo)
			continue;
		/* The engine's one-shot kernel: asked for, or a candidate of
		 * "auto" when the scenario's engine has it (the engine runs it
		 * where it is faster than NCCL). */
		if (algo == ALGO_ONESHOT && c->algo == ALGO_AUTO &&
		    !((c->custom & COLL_CUSTOM_ONESHOT) && c->op == COLL_ALLREDUCE))
			continue;
		if (algo == ALGO_TWOSHOT && c->algo == ALGO_AUTO &&
		    !((c->custom & COLL_CUSTOM_TWOSHOT) && c->op == COLL_ALLREDUCE))
			continue;
		/* "auto" is NCCL's choice, and inside one node NCCL's tuning
		 * model (src/graph/tuning.cc) rates its tree below its ring in
		 * every term: the same 2(n-1) hop latencies with a higher base
		 * (LL 6.8 vs 6.6 us) or per-hop cost (Simple 28 vs 5.7 us on
		 * PCI), and at most 0.9 x 0.5 of the bus bandwidth as algorithm
		 * bandwidth against the ring's n / 2(n-1) >= 0.5. So it runs
		 * the ring; --algo tree still simulates the chain. */
		if (algo == ALGO_TREE && c->algo == ALGO_AUTO)
			continue;
		pick = -1;
		if (algo == ALGO_RING && c->proto == PROTO_AUTO)
			pick = nccl_pick(s, view, c);
		add_algo(c, algo, pick, cand, &nc);
	}
	if ((rc = simulate(s, view, routes, &cl, c, cand, 0, nc, &floor_t, err)) < 0)
		goto out;
	/* NCCL's pick cannot run here (simulated: not allowed; a pruned
	 * one could run): the ring's fastest protocol instead */
	for (k = 0; k < nc && !(cand[k].pick && !cand[k].pruned && cand[k].t < 0); k++)
		;
	if (k < nc) {
		from = nc;
		add_algo(c, ALGO_RING, -1, cand, &nc);
		if ((rc = simulate(s, view, routes, &cl, c, cand, from, nc, &floor_t, err)) < 0)
			goto out;
	}
	/* the fastest in algorithm, then protocol order, as one pass over
	 * them picks it */
	for (algo = ALGO_RING; algo <= ALGO_TWOSHOT; algo++)
		for (proto = PROTO_LL; proto < PROTO_N; proto++)
			for (k = 0; k < nc; k++) {
				if (cand[k].algo != algo || cand[k].proto != proto ||
				    !(cand[k].t >= 0 && cand[k].t < best))
					continue;
				best = cand[k].t;
				r->seconds = cand[k].t;
				r->algo = algo;
				r->proto = proto;
				r->shm_hops = cand[k].res.shm_hops;
				r->p2p_hops = cand[k].res.p2p_hops;
				r->net_hops = cand[k].res.net_hops;
				r->closed = cand[k].res.closed;
				r->why = cand[k].res.why;
			}
	rc = 0;
out:
	env_free(&cl);
	if (rc < 0)
		return rc;
	if (!isfinite(best))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "protocol %s is not available here (LL128 needs NVLink on every hop)",
				     coll_proto_name(c->proto));
	return 0;
}

int coll_time_in(struct coll_scn *e, const struct scenario *s, const struct coll_spec *c,
		 struct coll_result *r, struct plumb_err *err)
{
	int rc = coll_check(s, c, r, err);
	if (rc != 0)
		return rc > 0 ? 0 : rc;
	if (coll_scn_choice(e, c, r))
		return 0;
	/* the step model's ring across hosts inside a cell of the grid whose
	 * anchors chose alike, its time straight: interpolated (coll_grid.c);
	 * else searched */
	if ((rc = coll_grid_time(e, s, c, r, err)) < 0)
		return rc;
	if (rc > 0 && (rc = coll_search(s, coll_scn_view(e), coll_scn_routes(e), c, r, err)) < 0)
		return rc;
	coll_scn_choice_add(e, c, r);
	return 0;
}

int coll_time(const struct scenario *s, const struct topo_opts *o,
	      const struct coll_spec *c, struct coll_result *r, struct plumb_err *err)
{
	struct coll_scn *e = NULL;
	int rc = coll_check(s, c, r, err);
	if (rc != 0)
		return rc > 0 ? 0 : rc;
	if ((rc = coll_scn_get(s, o, &e, err)) < 0)
		return rc;
	rc = coll_time_in(e, s, c, r, err);
	coll_scn_put(e);
	return rc;
}
