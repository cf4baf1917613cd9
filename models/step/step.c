/*
 * step.c - running a step's per-stage programs in the engine (step.h).
 *
 * Each stage is a thread of control that works through its program for one
 * microbatch at a time, in microbatch order. Compute ops are timers; a
 * collective is started with the algorithm and protocol NCCL's tuner would
 * pick for it alone (the fastest, found once per distinct size) and then
 * shares links with whatever else runs; at the end of a microbatch each GPU
 * of the stage sends its activations to the same-rank GPU of the next stage
 * (P2P or through host memory, as the view allows) and the stage moves on.
 *
 * Replay. Every fabric user in flight (a collective, simulated or replayed,
 * and a stage send) holds a claim on the links it uses. A collective
 * starting with no other claim on its links, whose key (operation, bytes,
 * GPUs, algorithm, protocol) matches one simulated earlier in this call
 * that kept its links to itself from start to end (an untainted claim), is
 * replayed: one timer of the recorded duration instead of its flows.
 * Anything starting on the links of a replay in flight breaks that promise:
 * the run stops, the collective instance (stage, microbatch, op) goes on a
 * deny list and the step runs again from the start, the recorded durations
 * kept. A claim is conservative (whole links, whole intervals), so a doubt
 * always ends in simulation. With pp = 1 nothing ever overlaps: a stage
 * runs one collective at a time and there are no sends.
 */
#include "step.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "step_int.h"
#include "xfer.h"

#define STEP_MAX_MICRO 256
#define STEP_MAX_ROUNDS 4       /* passes of the batch a steady-state run makes */
#define STEP_MEMO 64
#define STEP_MAX_LANES 64       /* replicas x stages run at once */

struct memo {
	int stage, op;
	double bytes;
	int algo, proto;
	double seconds;             /* the tuner's: the collective alone */
};

enum { CL_FREE, CL_SIM, CL_REPLAY, CL_SEND };

/* A fabric user in flight and the links it holds. */
struct claim {
	int kind;
	int taint;                  /* shared its links with another claim */
	int st, m, pc;              /* collectives: the instance */
	int entry;                  /* collectives: index in the cache */
	struct step_links links;    /* owned */
};

struct srun {
	const struct scenario *s;
	const struct step_layout *l;
	const struct step_prog *prog;
	const struct topo_opts *o;
	const struct topo_view *view;       /* shared's */
	struct coll_scn *shared;            /* the scenario's derived state (held) */
	struct sim_engine *eng;
	struct fabric *fab;
	struct coll_ctx cx;
	struct xfer_ctx xx;
	int kind_done;
	int micro, per_stage;
	int nlanes;                         /* replicas x stages: lane r x pp + stage */
	int cur[STEP_MAX_LANES];            /* microbatch in progress, -1 idle */
	int pc[STEP_MAX_LANES];             /* next op */
	int next[STEP_MAX_LANES];           /* next microbatch to take */
	int rounds, total;                  /* passes of the batch; micro x rounds */
	double round_end[STEP_MAX_ROUNDS];  /* the last stage done with a pass */
	/* by lane and pass-microbatch index g = pass x micro + microbatch:
	 * [lane x total + g], nlanes x total entries (sized to the run, so a
	 * step does not clear the largest layout's arrays) */
	unsigned char *ready;
	int *sends_left;
	double op_t0[STEP_MAX_LANES];
	struct memo memo[STEP_MEMO];
	int nmemo;
	int finished;                       /* stage x microbatch units done */
	struct step_result *r;
	/* replay */
	struct rcache *rc;                  /* NULL: simulate everything */
	int kind_replay;
	struct claim *cl;
	int ncl;
	int ccl[STEP_MAX_LANES];            /* claim of the lane's collective, -1 */
	int breach;                         /* a replay met traffic: stop, re-run */
};

static int advance(struct srun *sr, int st, struct plumb_err *err);

/* The i-th GPU of lane st (replica st / pp, stage st % pp): replica r
 * holds GPUs r x gpus .. (r + 1) x gpus - 1, consecutive as the engine
 * numbers them, so a replica's GPUs are neighbours on the PCIe tree and
 * NVLink wherever the box's order follows them. */
static int stage_gpu(const struct srun *sr, int st, int i)
{
	return st / sr->l->pp * sr->l->gpus + st % sr->l->pp * sr->per_stage + i;
}

/* The program lane st runs: its stage's. */
static const struct step_prog *lane_prog(const struct srun *sr, int st)
{
	return &sr->prog[st % sr->l->pp];
}

/* ---- replay ------------------------------------------------------------ */

/* The cache entry for collective c run with (algo, proto), added (with its
 * links, no duration yet) when new. Returns its index or a negative code. */
static int rentry_get(struct srun *sr, const struct coll_spec *c, int algo, int proto,
		      struct plumb_err *err)
{
	struct rcache *rc = sr->rc;
	struct rentry *e;
	int i;
	for (i = 0; i < rc->n; i++) {
		e = &rc->e[i];
		if (e->op == (int)c->op && e->n == c->n && e->algo == algo && e->proto == proto &&
		    e->bytes == c->bytes && !memcmp(e->gpus, c->gpus, (size_t)c->n * sizeof(int)))
			return i;
	}
	if (rc->n == rc->cap) {
		int cap = rc->cap ? 2 * rc->cap : 16;
		struct rentry *n = realloc(rc->e, (size_t)cap * sizeof(*n));
		if (!n)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		rc->e = n;
		rc->cap = cap;
	}
	e = &rc->e[rc->n];
	memset(e, 0, sizeof(*e));
	e->gpus = malloc((size_t)c->n * sizeof(*e->gpus));
	if (!e->gpus)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	e->op = c->op;
	e->n = c->n;
	e->algo = algo;
	e->proto = proto;
	e->bytes = c->bytes;
	memcpy(e->gpus, c->gpus, (size_t)c->n * sizeof(int));
	coll_links(&sr->cx, c, algo, rc->scratch);
	if (step_links_from_flags(&e->links, rc->scratch, rc->nlinks) < 0) {
		free(e->gpus);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	return rc->n++;
}

/* A new claim of `kind` on a copy of links. Returns its index or a negative
 * code. The claim array may move: hold indices, not pointers. */
static int claim_new(struct srun *sr, int kind, const struct step_links *links,
		     struct plumb_err *err)
{
	int i;
	for (i = 0; i < sr->ncl && sr->cl[i].kind != CL_FREE; i++)
		;
	if (i == sr->ncl) {
		struct claim *n = realloc(sr->cl, (size_t)(sr->ncl + 1) * sizeof(*n));
		if (!n)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		sr->cl = n;
		memset(&n[i], 0, sizeof(n[i]));
		sr->ncl++;
	}
	if (step_links_copy(&sr->cl[i].links, links) < 0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	sr->cl[i].kind = kind;
	sr->cl[i].taint = 0;
	sr->cl[i].st = sr->cl[i].m = sr->cl[i].pc = sr->cl[i].entry = -1;
	return i;
}

/*
 * Claim k is about to start: compare its links with every other claim in
 * flight. Replays it meets are denied and the run breached (it drains and
 * runs again); simulated collectives it meets are tainted, and so is k.
 * Returns 1 when the run is breached.
 */
static int claim_meet(struct srun *sr, int k)
{
	struct rcache *rc = sr->rc;
	int i;
	for (i = 0; i < sr->ncl; i++) {
		struct claim *c = &sr->cl[i];
		if (i == k || c->kind == CL_FREE || !step_links_meet(&c->links, &sr->cl[k].links))
			continue;
		sr->cl[k].taint = 1;
		if (c->kind == CL_SIM)
			c->taint = 1;
		if (c->kind == CL_REPLAY) {
			if (rc->ndeny < STEP_MAX_DENY) {
				rc->deny[rc->ndeny][0] = c->st;
				rc->deny[rc->ndeny][1] = c->m;
				rc->deny[rc->ndeny][2] = c->pc;
			}
			rc->ndeny++;
			sr->breach = 1;
		}
	}
	return sr->breach;
}

/* Links of the stage send from GPU a to GPU b (as xfer_start routes it)
 * into *used; 0 or -1 when out of memory. O(path length). */
static int send_links(const struct srun *sr, int a, int b, struct step_links *used)
{
	int path[2 * FAB_MAX_PATH], n, sock;
	if (sr->view->xport[a][b] == XP_P2P ||
	    sr->fab->s->nodes[sr->fab->s->gpu_node[a]].host !=
	    sr->fab->s->nodes[sr->fab->s->gpu_node[b]].host) {   /* between hosts: the NICs */
		n = fab_path_gpu(sr->fab, a, b, path);
		return step_links_from_ids(used, path, n);
	}
	sock = fab_gpu_socket(sr->fab, a);
	n = fab_path_to_host(sr->fab, a, sock, path);
	n += fab_path_from_host(sr->fab, sock, b, path + n);
	return step_links_from_ids(used, path, n);
}

/* The fastest algorithm/protocol for a collective alone, remembered, and
 * its time alone (*seconds, the tuner's simulation of it on an idle
 * fabric). */
static int pick(struct srun *sr, int st, const struct coll_spec *c, int *algo, int *proto,
		double *seconds, struct plumb_err *err)
{
	struct coll_result cr;
	struct coll_spec cf;
	int i, rc;
	for (i = 0; i < sr->nmemo; i++)
		if (sr->memo[i].stage == st && sr->memo[i].op == (int)c->op &&
		    sr->memo[i].bytes == c->bytes) {
			*algo = sr->memo[i].algo;
			*proto = sr->memo[i].proto;
			*seconds = sr->memo[i].seconds;
			return 0;
		}
	/* The flow model: the step's fits (calibrate) move with the last bits
	 * of these times, which the closed form does not keep (docs/model-collectives.md,
	 * "Closed form"); a ring across hosts from the tuner's grid of sizes,
	 * within COLL_GRID_TOL of its flows ("Across hosts: a grid of sizes"). */
	cf = *c;
	cf.flow = COLL_FLOW_GRID;
	if ((rc = coll_time_in(sr->shared, sr->s, &cf, &cr, err)) < 0)
		return rc;
	*algo = cr.algo;
	*proto = cr.proto;
	*seconds = cr.seconds;
	if (sr->nmemo < STEP_MEMO) {
		struct memo *m = &sr->memo[sr->nmemo++];
		m->stage = st;
		m->op = c->op;
		m->bytes = c->bytes;
		m->algo = cr.algo;
		m->proto = cr.proto;
		m->seconds = cr.seconds;
	}
	return 0;
}

static void span(struct srun *sr, int g, double t0, double t1, int tag, int comm)
{
	struct step_result *r = sr->r;
	if (r->spans && r->nspans < r->cap) {
		struct step_span *p = &r->spans[r->nspans];
		p->gpu = g;
		p->t0 = t0;
		p->t1 = t1;
		p->tag = tag;
		p->comm = comm;
	}
	r->nspans++;
}

static void account(struct srun *sr, int st, const struct step_op *op, double dt)
{
	int i, comm = op->kind != SOP_COMPUTE;
	double now = sim_now(sr->eng);
	for (i = 0; i < sr->per_stage; i++) {
		int g = stage_gpu(sr, st, i);
		span(sr, g, now - dt, now, op->tag, comm);
		if (comm)
			sr->r->comm[g] += dt;
		else
			sr->r->busy[g] += dt;
	}
	if (st < sr->l->pp)     /* per replica: the first one's */
		sr->r->by_tag[op->tag] += dt;
}

static int coll_done(struct coll_ctx *x, double seconds, void *arg, struct plumb_err *err)
{
	struct srun *sr = (struct srun *)((char *)x - offsetof(struct srun, cx));
	int st = (int)(intptr_t)arg;
	if (sr->rc && sr->ccl[st] >= 0) {
		struct claim *c = &sr->cl[sr->ccl[st]];
		struct rentry *e = &sr->rc->e[c->entry];
		/* its links were its own from start to end: a time to replay */
		if (!c->taint && !e->have) {
			e->seconds = seconds;
			e->have = 1;
		}
		c->kind = CL_FREE;
		sr->ccl[st] = -1;
	}
	account(sr, st, &lane_prog(sr, st)->ops[sr->pc[st]], seconds);
	sr->pc[st]++;
	return advance(sr, st, err);
}

static int on_compute(struct sim_engine *eng, void *ctx, const struct sim_event *ev,
		      struct plumb_err *err)
{
	struct srun *sr = ctx;
	int st = (int)ev->pl.i0;
	(void)eng;
	account(sr, st, &lane_prog(sr, st)->ops[sr->pc[st]], sim_now(sr->eng) - sr->op_t0[st]);
	sr->pc[st]++;
	return advance(sr, st, err);
}

static const struct sim_ops compute_ops = { "step_compute", on_compute };

/* A replayed collective of stage ev->pl.i0 ends. */
static int on_replay(struct sim_engine *eng, void *ctx, const struct sim_event *ev,
		     struct plumb_err *err)
{
	struct srun *sr = ctx;
	int st = (int)ev->pl.i0;
	struct claim *c = &sr->cl[sr->ccl[st]];
	(void)eng;
	c->kind = CL_FREE;
	sr->ccl[st] = -1;
	account(sr, st, &lane_prog(sr, st)->ops[sr->pc[st]], sr->rc->e[c->entry].seconds);
	sr->pc[st]++;
	return advance(sr, st, err);
}

static const struct sim_ops replay_ops = { "step_replay", on_replay };

struct sendarg {
	struct srun *sr;
	int stage, micro;
	int claim;                  /* -1: none */
	double t0;
};

static int send_done(struct xfer_ctx *x, void *arg, struct plumb_err *err)
{
	struct sendarg *sa = arg;
	struct srun *sr = sa->sr;
	int st = sa->stage, m = sa->micro, i, rc = 0;
	(void)x;
	if (sa->claim >= 0)
		sr->cl[sa->claim].kind = CL_FREE;
	if (--sr->sends_left[st * sr->total + m] == 0) {
		double dt = sim_now(sr->eng) - sa->t0;
		for (i = 0; i < sr->per_stage; i++) {
			sr->r->comm[stage_gpu(sr, st, i)] += dt;
			span(sr, stage_gpu(sr, st, i), sa->t0, sim_now(sr->eng), TAG_COMM_PP, 1);
		}
		if (st < sr->l->pp)
			sr->r->by_tag[TAG_COMM_PP] += dt;
		sr->ready[(st + 1) * sr->total + m] = 1;
		sr->finished++;
		if (sr->cur[st + 1] < 0)
			rc = advance(sr, st + 1, err);
	}
	free(sa);
	return rc;
}

/* End of a microbatch at stage st: hand it to the next stage. */
static int finish_micro(struct srun *sr, int st, struct plumb_err *err)
{
	int m = sr->cur[st], i, rc;
	sr->cur[st] = -1;
	if (st % sr->l->pp + 1 >= sr->l->pp) {
		int first = st - st % sr->l->pp;        /* the replica's first lane */
		/* Out of the pipeline: its next token's pass may enter it (the
		 * engine keeps the batches in flight, each waiting only for its
		 * own previous token). */
		sr->finished++;
		if (m % sr->micro == sr->micro - 1)
			sr->round_end[m / sr->micro] = sim_now(sr->eng);
		if (m + sr->micro < sr->total) {
			sr->ready[first * sr->total + m + sr->micro] = 1;
			if (sr->cur[first] < 0 && st != first)
				return advance(sr, first, err);
		}
		return 0;
	}
	sr->sends_left[st * sr->total + m] = sr->per_stage;
	for (i = 0; i < sr->per_stage; i++) {
		struct xfer_spec xs;
		struct sendarg *sa;
		int a = stage_gpu(sr, st, i), b = stage_gpu(sr, st + 1, i), k = -1;
		if (sr->rc) {
			if (send_links(sr, a, b, &sr->rc->send) < 0)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			if ((k = claim_new(sr, CL_SEND, &sr->rc->send, err)) < 0)
				return k;
			if (claim_meet(sr, k)) {
				sr->cl[k].kind = CL_FREE;
				return 0;       /* the run drains and runs again */
			}
		}
		sa = malloc(sizeof(*sa));
		if (!sa)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		sa->claim = k;
		sa->sr = sr;
		sa->stage = st;
		sa->micro = m;
		sa->t0 = sim_now(sr->eng);
		memset(&xs, 0, sizeof(xs));
		xs.src = a;
		xs.dst = b;
		xs.bytes = lane_prog(sr, st)->send_bytes;
		xs.method = sr->view->xport[a][b] == XP_P2P ? XFER_P2P : XFER_BOUNCE;
		xs.host_socket = -1;
		xs.start = sim_now(sr->eng);
		xs.done = send_done;
		xs.arg = sa;
		if ((rc = xfer_start(&sr->xx, &xs, err)) < 0)
			return rc;
		sr->r->sends++;
	}
	return 0;
}

/* Run stage st's next op, or take its next microbatch when it is idle. */
static int advance(struct srun *sr, int st, struct plumb_err *err)
{
	const struct step_prog *p = lane_prog(sr, st);
	int rc;

	for (;;) {
		if (sr->breach)
			return 0;       /* draining: start nothing new */
		if (sr->cur[st] < 0) {
			int m = sr->next[st];
			if (m >= sr->total || !sr->ready[st * sr->total + m])
				return 0;
			sr->cur[st] = m;
			sr->next[st]++;
			sr->pc[st] = 0;
		}
		if (sr->pc[st] >= p->nops) {
			if ((rc = finish_micro(sr, st, err)) < 0)
				return rc;
			continue;
		}
		{
			const struct step_op *op = &p->ops[sr->pc[st]];
			struct sim_payload pl;
			struct coll_spec c;
			int algo, proto, i, gpus[SCN_MAX_GPUS];
			double alone;
			if (op->kind == SOP_COMPUTE) {
				memset(&pl, 0, sizeof(pl));
				pl.i0 = st;
				sr->op_t0[st] = sim_now(sr->eng);
				return sim_after(sr->eng, op->seconds > 0 ? op->seconds : 0,
						 SIM_PRIO_DEFAULT, sr->kind_done, &pl, NULL, err);
			}
			if (sr->per_stage < 2) {
				sr->pc[st]++;   /* a collective over one GPU is a no-op */
				continue;
			}
			memset(&c, 0, sizeof(c));
			c.op = op->kind == SOP_ALLREDUCE ? COLL_ALLREDUCE :
			       op->kind == SOP_ALLTOALL ? COLL_ALLTOALL :
			       op->kind == SOP_REDUCESCATTER ? COLL_REDUCESCATTER : COLL_ALLGATHER;
			c.n = sr->per_stage;
			for (i = 0; i < c.n; i++)
				gpus[i] = stage_gpu(sr, st, i);
			c.gpus = gpus;
			c.bytes = op->bytes;
			c.algo = ALGO_AUTO;
			/* The engine's own all-reduce, where the scenario's has one. */
			c.custom = coll_custom_of(sr->s);
			c.proto = PROTO_AUTO;
			if ((rc = pick(sr, st, &c, &algo, &proto, &alone, err)) < 0)
				return rc;
			if (sr->rc) {
				int e, k;
				struct claim *cl;
				if ((e = rentry_get(sr, &c, algo, proto, err)) < 0)
					return e;
				/* The tuner simulated it alone on this fabric: that
				 * is its time wherever its links are its own, so even
				 * its first instance is replayed (claims still check
				 * that nothing meets it). */
				if (!sr->rc->e[e].have && alone > 0) {
					sr->rc->e[e].seconds = alone;
					sr->rc->e[e].have = 1;
				}
				if ((k = claim_new(sr, CL_SIM, &sr->rc->e[e].links, err)) < 0)
					return k;
				cl = &sr->cl[k];
				cl->st = st;
				cl->m = sr->cur[st];
				cl->pc = sr->pc[st];
				cl->entry = e;
				sr->ccl[st] = k;
				if (claim_meet(sr, k)) {
					cl->kind = CL_FREE;
					sr->ccl[st] = -1;
					return 0;       /* the run drains and runs again */
				}
				if (!cl->taint && sr->rc->e[e].have && !step_denied(sr->rc, st, cl->m, cl->pc)) {
					cl->kind = CL_REPLAY;
					sr->r->replayed++;
					memset(&pl, 0, sizeof(pl));
					pl.i0 = st;
					return sim_after(sr->eng, sr->rc->e[e].seconds, SIM_PRIO_DEFAULT,
							 sr->kind_replay, &pl, NULL, err);
				}
			}
			sr->r->simulated++;
			rc = coll_start(&sr->cx, &c, algo, proto, sim_now(sr->eng), coll_done,
					(void *)(intptr_t)st, NULL, err);
			return rc > 0 ? plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
						      "chosen protocol not available") : rc;
		}
	}
}

/* Zero r's results, keeping what the caller set. */
/*
 * A steady-state run: the step is the second-to-last pass, from the end of
 * the one before (its period; the last pass keeps the first stages busy
 * meanwhile, as the next tokens would); the totals are per pass, and the
 * spans those of that window, in its time.
 */
static void steady_window(struct srun *sr, struct step_result *r)
{
	double w0 = sr->round_end[sr->rounds - 3], w1 = sr->round_end[sr->rounds - 2];
	int i, n = 0, g;

	r->seconds = w1 - w0;
	r->window0 = w0;
	for (g = 0; g < r->ngpus; g++) {
		r->busy[g] /= sr->rounds;
		r->comm[g] /= sr->rounds;
	}
	for (i = 0; i < TAG_NTAGS; i++)
		r->by_tag[i] /= sr->rounds;
	r->sends /= sr->rounds;
	if (!r->spans || r->nspans > r->cap)
		return;         /* the caller runs again with room for them all */
	for (i = 0; i < r->nspans; i++) {
		struct step_span sp = r->spans[i];
		sp.t0 = fmax(sp.t0, w0) - w0;
		sp.t1 = fmin(sp.t1, w1) - w0;
		if (sp.t1 > sp.t0)
			r->spans[n++] = sp;
	}
	r->nspans = n;
}

static void result_reset(struct step_result *r)
{
	struct step_span *spans = r->spans;
	int cap = r->cap, no_replay = r->no_replay, reruns = r->reruns, rounds = r->rounds;
	int overlap = r->overlap;
	double overlap_rate = r->overlap_rate;
	sim_net_hook_fn hook = r->hook;
	void *hook_ctx = r->hook_ctx;
	memset(r, 0, sizeof(*r));
	r->spans = spans;
	r->cap = cap;
	r->hook = hook;
	r->hook_ctx = hook_ctx;
	r->no_replay = no_replay;
	r->reruns = reruns;
	r->rounds = rounds;
	r->overlap = overlap;
	r->overlap_rate = overlap_rate;
}

/* One run of the step; *breach = 1 when a replay met traffic (r is then
 * meaningless and the caller runs again). rc NULL: simulate everything. */
static int run_once(const struct scenario *s, const struct topo_opts *o,
		    const struct step_layout *l, const struct step_prog *prog, int micro,
		    struct step_result *r, struct coll_scn *shared, struct rcache *rcache,
		    int *breach, struct plumb_err *err)
{
	struct srun *sr;
	const struct topo_view *view = coll_scn_view(shared);
	int rc, st, m, i;

	*breach = 0;
	result_reset(r);
	sr = calloc(1, sizeof(*sr));
	if (!sr)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	sr->s = s;
	sr->l = l;
	sr->prog = prog;
	sr->o = o;
	sr->r = r;
	sr->micro = micro;
	sr->rounds = r->rounds > 1 ? r->rounds : 1;
	sr->total = micro * sr->rounds;
	sr->per_stage = l->gpus / l->pp;
	sr->nlanes = (l->dp > 1 ? l->dp : 1) * l->pp;
	sr->rc = rcache;
	r->ngpus = step_layout_used(l);
	sr->shared = shared;
	sr->view = view;
	sr->ready = calloc((size_t)sr->nlanes * (size_t)sr->total, sizeof(*sr->ready));
	sr->sends_left = calloc((size_t)sr->nlanes * (size_t)sr->total, sizeof(*sr->sends_left));
	if (!sr->ready || !sr->sends_left) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	if ((rc = sim_engine_new(s->seed, &sr->eng, err)) < 0)
		goto out;
	sim_set_budget(sr->eng, s->event_budget);
	if ((rc = fab_build(sr->eng, s, &sr->fab, err)) < 0)
		goto out;
	fab_use_routes(sr->fab, coll_scn_routes(shared));
	if ((rc = coll_ctx_init(&sr->cx, sr->eng, sr->fab, view, err)) < 0 ||
	    (rc = xfer_ctx_init(&sr->xx, sr->eng, sr->fab, err)) < 0 ||
	    (rc = sim_register(sr->eng, &compute_ops, sr, &sr->kind_done, err)) < 0 ||
	    (rc = sim_register(sr->eng, &replay_ops, sr, &sr->kind_replay, err)) < 0)
		goto out;
	if (rcache && !rcache->scratch) {
		rcache->nlinks = sim_net_nlinks(sr->fab->net);
		rcache->scratch = calloc((size_t)rcache->nlinks + 1, 1);
		if (!rcache->scratch) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			goto out;
		}
	}
	if (r->hook)
		sim_net_set_resolve_hook(sr->fab->net, r->hook, r->hook_ctx);
	for (st = 0; st < sr->nlanes; st++) {
		sr->cur[st] = -1;
		sr->ccl[st] = -1;
		for (m = 0; m < micro; m++)
			sr->ready[st * sr->total + m] = st % l->pp == 0;
	}
	/* every replica's first stage starts at once */
	for (st = 0; st < sr->nlanes; st += l->pp)
		if ((rc = advance(sr, st, err)) < 0)
			goto out;
	if ((rc = sim_run(sr->eng, INFINITY, err)) < 0)
		goto out;
	if (sr->breach) {
		*breach = 1;
		goto out;
	}
	if (sr->finished != sr->nlanes * sr->total) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				   "step stopped with %d of %d stage-microbatches done",
				   sr->finished, sr->nlanes * sr->total);
		goto out;
	}
	r->seconds = r->run_seconds = sim_now(sr->eng);
	if (sr->rounds >= 3)
		steady_window(sr, r);
	r->events = (long)sim_stats(sr->eng)->events;
out:
	xfer_ctx_release(&sr->xx);
	coll_ctx_release(&sr->cx);
	if (sr->fab)
		fab_free(sr->fab);
	sim_engine_free(sr->eng);
	for (i = 0; i < sr->ncl; i++)
		step_links_release(&sr->cl[i].links);
	free(sr->cl);
	free(sr->ready);
	free(sr->sends_left);
	free(sr);
	return rc;
}

/* Environment variable `name` set to anything but "" or "0". */
static int env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

/* PLUMB_NO_REPLAY: simulate every collective. */
static int replay_off_env(void)
{
	return env_on("PLUMB_NO_REPLAY");
}

/* The simulation itself: replay's re-runs around run_once. */
static int step_sim(const struct scenario *s, const struct topo_opts *o,
		    const struct step_layout *l, const struct step_prog *prog, int micro,
		    struct step_result *r, struct coll_scn *shared, int replay,
		    struct plumb_err *err)
{
	struct rcache *rcache = NULL;
	int rc, breach;

	/* two-batch overlap: the two microbatches' ops on two streams */
	if (r->overlap)
		return step_line_tbo(s, l, prog, micro, r, shared, err);
	/* one lane: its ops in a line, without the engine (step_line.c) */
	if (replay && !env_on("PLUMB_STEP_ENGINE") &&
	    (rc = step_line_run(s, l, prog, micro, r, shared, err)) != 0)
		return rc < 0 ? rc : 0;
	if (replay) {
		rcache = calloc(1, sizeof(*rcache));
		if (!rcache)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	for (;;) {
		/* After STEP_MAX_DENY denials replay is not worth it: simulate. */
		if (rcache && rcache->ndeny >= STEP_MAX_DENY) {
			step_rcache_free(rcache);
			rcache = NULL;
		}
		if ((rc = run_once(s, o, l, prog, micro, r, shared, rcache, &breach, err)) < 0 ||
		    !breach)
			break;
		r->reruns++;
	}
	step_rcache_free(rcache);
	return rc;
}

int step_run(const struct scenario *s, const struct topo_opts *o, const struct step_layout *l,
	     const struct step_prog *prog, int micro, struct step_result *r,
	     struct plumb_err *err)
{
	struct coll_scn *shared = NULL;
	struct step_bytes key, val;
	int rc, replay, memo;

	r->reruns = 0;
	result_reset(r);
	if (step_layout_used(l) > s->ngpus)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "layout %s needs %d GPUs but %s has %d", l->name,
				     step_layout_used(l), s->name[0] ? s->name : s->path, s->ngpus);
	if ((l->dp > 1 ? l->dp : 1) * l->pp > STEP_MAX_LANES)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "layout %s: at most %d replicas x stages", l->name,
				     STEP_MAX_LANES);
	if (l->pp > STEP_MAX_STAGES || micro < 1 || micro > STEP_MAX_MICRO ||
	    r->rounds > STEP_MAX_ROUNDS)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "at most %d stages and 1-%d microbatches", STEP_MAX_STAGES,
				     STEP_MAX_MICRO);
	if ((rc = coll_scn_get(s, o, &shared, err)) < 0)
		return rc;
	replay = !r->no_replay && !r->hook && !replay_off_env();
	/* A timeline or a hook needs the run itself; PLUMB_NO_STEP_MEMO=1
	 * simulates every step (tests/replay.sh compares the bytes). */
	memo = !r->hook && !(r->spans && r->cap > 0) && !env_on("PLUMB_NO_STEP_MEMO");
	memset(&key, 0, sizeof(key));
	memset(&val, 0, sizeof(val));
	if (memo) {
		/* a step's result has one entry per GPU of its layout */
		size_t nv = step_memo_size(step_layout_used(l));
		step_memo_key(&key, coll_scn_id(shared), replay, l, prog, micro, r->rounds,
			      r->overlap, r->overlap_rate);
		if (!key.oom && (val.p = malloc(nv)) != NULL &&
		    step_memo_get(key.p, key.n, val.p, nv)) {
			step_memo_fill(val.p, nv, r);
			goto out;
		}
	}
	rc = step_sim(s, o, l, prog, micro, r, shared, replay, err);
	if (rc == 0 && memo && !key.oom && r->ngpus == step_layout_used(l) &&
	    (val.p || (val.p = malloc(step_memo_size(r->ngpus))) != NULL)) {
		step_memo_pack(r, val.p);
		step_memo_put(key.p, key.n, val.p, step_memo_size(r->ngpus));
	}
out:
	free(key.p);
	free(val.p);
	coll_scn_put(shared);
	return rc;
}
