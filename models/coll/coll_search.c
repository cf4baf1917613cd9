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
 * reading of its search, missed more on the public runs: docs/model.md),
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
 * form reads them (links, routes) and starts nothing, so one serves every
 * candidate of a search; a simulation takes a fresh one. */
struct env {
	struct sim_engine *eng;
	struct fabric *fab;
	struct coll_ctx x;
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

/* A lower bound on the flow model's time of a one-shot or two-shot (algo,
 * proto) of c (coll_shot_bound; cl built on first use): 0 with *lb (-1:
 * not allowed here), or a negative code. */
static int shot_bound(const struct scenario *s, const struct topo_view *view,
		      const struct fab_routes *routes, struct env *cl,
		      const struct coll_spec *c, int algo, int proto, double *lb,
		      struct plumb_err *err)
{
	struct coll_result scratch;
	struct crun *r = NULL;
	int rc;

	*lb = -1;
	if (!cl->eng && (rc = env_new(s, view, routes, cl, err)) < 0)
		return rc;
	memset(&scratch, 0, sizeof(scratch));
	if ((rc = coll_run_new(&cl->x, c, algo, proto, &scratch, &r, err)) != 0)
		return rc > 0 ? 0 : rc;
	rc = coll_shot_bound(r, lb, err);
	coll_run_free(r);
	return rc < 0 ? rc : 0;
}

/* One (algorithm, protocol): in closed form where it holds (unless c->flow),
 * else simulated. *seconds = -1: not allowed. */
static int run_one(const struct scenario *s, const struct topo_view *view,
		   const struct fab_routes *routes, struct env *cl,
		   const struct coll_spec *c, int algo, int proto, double *seconds,
		   struct coll_result *res, struct plumb_err *err)
{
	struct env v;
	double t = -1;
	int rc;

	*seconds = -1;
	res->closed = 0;
	res->why = NULL;
	if (!c->flow && (rc = closed_one(s, view, routes, cl, c, algo, proto, seconds, res,
					 err)) <= 0)
		return rc;
	if ((rc = env_new(s, view, routes, &v, err)) < 0)
		return rc;
	rc = coll_start(&v.x, c, algo, proto, 0, record_time, &t, res, err);
	if (rc != 0) {
		rc = rc > 0 ? 0 : rc;   /* 1: protocol not available here */
		goto out;
	}
	if ((rc = sim_run(v.eng, INFINITY, err)) < 0)
		goto out;
	if (v.x.active != 0 || t < 0) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				   "collective did not complete (%d still running)", v.x.active);
		goto out;
	}
	*seconds = t;
out:
	env_free(&v);
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

/* A protocol a search may simulate: the closed form's time (-1: none),
 * the simulated one (-1: not simulated or not allowed) and its result. */
struct cand {
	int proto;
	double est, t;
	struct coll_result res;
};

/* The closed form is the flows' within COLL_CLOSED_EPS (1e-3) where it
 * holds (docs/model.md, "Closed form"); a candidate its closed form puts
 * this much above the best simulated is slower in the flows too. */
#define PRUNE_EPS 1e-2

/* A one-shot or two-shot whose lower bound (coll_shot_bound, exact but for
 * the roundings of a few dozen operations, ~1e-15 relative) is above the
 * best simulated by this much cannot be the fastest: it is not simulated. */
#define BOUND_EPS 1e-9

/* The closed form's time of each candidate where it holds; then the
 * candidates in the order to simulate them: without one first (they are
 * simulated whatever the others give), then the fastest first. 0 or a
 * negative code. */
static int estimates(const struct scenario *s, const struct topo_view *view,
		     const struct fab_routes *routes, struct env *cl, const struct coll_spec *c,
		     int algo, struct cand *x, int n, struct plumb_err *err)
{
	int i, j, rc;
	for (i = 0; i < n; i++) {
		struct coll_result scratch;
		double t = -1;
		memset(&scratch, 0, sizeof(scratch));
		if ((rc = closed_one(s, view, routes, cl, c, algo, x[i].proto, &t, &scratch,
				     err)) < 0)
			return rc;
		x[i].est = rc == 0 && t >= 0 ? t : -1;
	}
	for (i = 1; i < n; i++)         /* insertion: at most PROTO_N */
		for (j = i; j > 0 && x[j].est < x[j - 1].est; j--) {
			struct cand y = x[j];
			x[j] = x[j - 1];
			x[j - 1] = y;
		}
	return 0;
}

/* Every candidate (algorithm, protocol) of c simulated alone; the fastest.
 * With protocol auto a ring NCCL's pick decides runs it alone (nccl_pick). */
static int coll_search(const struct scenario *s, const struct topo_view *view,
		       const struct fab_routes *routes, const struct coll_spec *c,
		       struct coll_result *r, struct plumb_err *err)
{
	int algo, proto, rc, pick, found, mnch, nc, k;
	double best = INFINITY, floor_t;
	struct coll_result tmp;
	struct cand cand[PROTO_N];
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
		found = 0;
	again:
		for (proto = PROTO_LL, nc = 0; proto < PROTO_N; proto++) {
			if (c->proto != PROTO_AUTO && c->proto != proto)
				continue;
			if (pick >= 0 && proto != pick)
				continue;
			if ((algo == ALGO_ONESHOT || algo == ALGO_TWOSHOT) && proto != PROTO_LL &&
			    c->proto == PROTO_AUTO)
				continue;   /* no NCCL protocol: simulated once */
			cand[nc].proto = proto;
			cand[nc].est = -1;
			cand[nc++].t = -1;
		}
		/* Flows forced, several protocols: the closed form's time of each
		 * where it holds (the flows' within COLL_CLOSED_EPS) orders
		 * them, and one slower than the best simulated so far by more
		 * than PRUNE_EPS is not simulated: it cannot be the fastest. */
		if (c->flow && nc > 1 && (rc = estimates(s, view, routes, &cl, c, algo, cand, nc,
							  err)) < 0) {
			env_free(&cl);
			return rc;
		}
		for (k = 0, floor_t = best; k < nc; k++) {
			struct cand *x = &cand[k];
			if (x->est >= 0 && isfinite(floor_t) && x->est > floor_t * (1 + PRUNE_EPS))
				continue;
			/* the engine's kernels: slower than the best simulated
			 * whatever their flows do, they are not simulated */
			if ((algo == ALGO_ONESHOT || algo == ALGO_TWOSHOT) && isfinite(floor_t)) {
				double lb;
				if ((rc = shot_bound(s, view, routes, &cl, c, algo, x->proto, &lb,
						     err)) < 0) {
					env_free(&cl);
					return rc;
				}
				if (lb > floor_t * (1 + BOUND_EPS))
					continue;
			}
			memset(&x->res, 0, sizeof(x->res));
			if ((rc = run_one(s, view, routes, &cl, c, algo, x->proto, &x->t, &x->res,
					  err)) < 0) {
				env_free(&cl);
				return rc;
			}
			found |= x->t >= 0;
			if (x->t >= 0 && x->t < floor_t)
				floor_t = x->t;
		}
		/* the fastest in protocol order, as one pass over them picks it */
		for (proto = PROTO_LL; proto < PROTO_N; proto++) {
			for (k = 0; k < nc && cand[k].proto != proto; k++)
				;
			if (k == nc || !(cand[k].t >= 0 && cand[k].t < best))
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
		if (!found && pick >= 0) {
			pick = -1;      /* the pick cannot run here: the fastest */
			goto again;
		}
	}
	env_free(&cl);
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
	if ((rc = coll_search(s, coll_scn_view(e), coll_scn_routes(e), c, r, err)) < 0)
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
