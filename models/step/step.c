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
 */
#include "step.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xfer.h"

#define STEP_MAX_STAGES 16
#define STEP_MAX_MICRO 256
#define STEP_MEMO 64

int step_layout_parse(const char *s, struct step_layout *l, struct plumb_err *err)
{
	char *end;
	long a, b;

	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", s);
	if (!strncmp(s, "tp", 2)) {
		a = strtol(s + 2, &end, 10);
		if (end == s + 2 || a < 1 || a > SCN_MAX_GPUS)
			goto bad;
		l->tp = (int)a;
		l->pp = 1;
		if (*end == '\0') {
			l->kind = LAY_TP;
		} else if (!strncmp(end, "pp", 2)) {
			const char *q = end + 2;
			b = strtol(q, &end, 10);
			if (end == q || *end || b < 1 || b > STEP_MAX_STAGES)
				goto bad;
			l->kind = LAY_TPPP;
			l->pp = (int)b;
		} else if (!strcmp(end, "ep")) {
			l->kind = LAY_TPEP;
			l->ep = l->tp;
		} else {
			goto bad;
		}
		l->gpus = l->tp * l->pp;
		return 0;
	}
	if (!strncmp(s, "ep", 2)) {
		a = strtol(s + 2, &end, 10);
		if (end == s + 2 || *end || a < 1 || a > SCN_MAX_GPUS)
			goto bad;
		l->kind = LAY_EP;
		l->tp = 1;
		l->pp = 1;
		l->ep = (int)a;
		l->gpus = (int)a;
		return 0;
	}
bad:
	return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
			     "unknown layout '%s' (expected tpN, tpNppM, epN or tpNep, e.g. tp8, tp4pp2, ep8, tp8ep)",
			     s);
}

int step_prog_add(struct step_prog *p, enum step_op_kind k, double seconds, double bytes,
		  int tag, struct plumb_err *err)
{
	if (p->nops == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		struct step_op *n = realloc(p->ops, (size_t)cap * sizeof(*n));
		if (!n)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		p->ops = n;
		p->cap = cap;
	}
	p->ops[p->nops].kind = k;
	p->ops[p->nops].seconds = seconds;
	p->ops[p->nops].bytes = bytes;
	p->ops[p->nops].tag = tag;
	p->nops++;
	return 0;
}

void step_prog_release(struct step_prog *p)
{
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

struct memo {
	int stage, op;
	double bytes;
	int algo, proto;
};

struct srun {
	const struct scenario *s;
	const struct step_layout *l;
	const struct step_prog *prog;
	const struct topo_opts *o;
	const struct topo_view *view;
	struct sim_engine *eng;
	struct fabric *fab;
	struct coll_ctx cx;
	struct xfer_ctx xx;
	int kind_done;
	int micro, per_stage;
	int cur[STEP_MAX_STAGES];           /* microbatch in progress, -1 idle */
	int pc[STEP_MAX_STAGES];            /* next op */
	int next[STEP_MAX_STAGES];          /* next microbatch to take */
	unsigned char ready[STEP_MAX_STAGES][STEP_MAX_MICRO];
	int sends_left[STEP_MAX_STAGES][STEP_MAX_MICRO];
	double op_t0[STEP_MAX_STAGES];
	struct memo memo[STEP_MEMO];
	int nmemo;
	int finished;                       /* stage x microbatch units done */
	struct step_result *r;
};

static int advance(struct srun *sr, int st, struct plumb_err *err);

static int stage_gpu(const struct srun *sr, int st, int i)
{
	return st * sr->per_stage + i;
}

/* The fastest algorithm/protocol for a collective alone, remembered. */
static int pick(struct srun *sr, int st, const struct coll_spec *c, int *algo, int *proto,
		struct plumb_err *err)
{
	struct coll_result cr;
	int i, rc;
	for (i = 0; i < sr->nmemo; i++)
		if (sr->memo[i].stage == st && sr->memo[i].op == (int)c->op &&
		    sr->memo[i].bytes == c->bytes) {
			*algo = sr->memo[i].algo;
			*proto = sr->memo[i].proto;
			return 0;
		}
	if ((rc = coll_time(sr->s, sr->o, c, &cr, err)) < 0)
		return rc;
	*algo = cr.algo;
	*proto = cr.proto;
	if (sr->nmemo < STEP_MEMO) {
		struct memo *m = &sr->memo[sr->nmemo++];
		m->stage = st;
		m->op = c->op;
		m->bytes = c->bytes;
		m->algo = cr.algo;
		m->proto = cr.proto;
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
	sr->r->by_tag[op->tag] += dt;
}

static int coll_done(struct coll_ctx *x, double seconds, void *arg, struct plumb_err *err)
{
	struct srun *sr = (struct srun *)((char *)x - offsetof(struct srun, cx));
	int st = (int)(intptr_t)arg;
	account(sr, st, &sr->prog[st].ops[sr->pc[st]], seconds);
	sr->pc[st]++;
	return advance(sr, st, err);
}

static int on_compute(struct sim_engine *eng, void *ctx, const struct sim_event *ev,
		      struct plumb_err *err)
{
	struct srun *sr = ctx;
	int st = (int)ev->pl.i0;
	(void)eng;
	account(sr, st, &sr->prog[st].ops[sr->pc[st]], sim_now(sr->eng) - sr->op_t0[st]);
	sr->pc[st]++;
	return advance(sr, st, err);
}

static const struct sim_ops compute_ops = { "step_compute", on_compute };

struct sendarg {
	struct srun *sr;
	int stage, micro;
	double t0;
};

static int send_done(struct xfer_ctx *x, void *arg, struct plumb_err *err)
{
	struct sendarg *sa = arg;
	struct srun *sr = sa->sr;
	int st = sa->stage, m = sa->micro, i, rc = 0;
	(void)x;
	if (--sr->sends_left[st][m] == 0) {
		double dt = sim_now(sr->eng) - sa->t0;
		for (i = 0; i < sr->per_stage; i++) {
			sr->r->comm[stage_gpu(sr, st, i)] += dt;
			span(sr, stage_gpu(sr, st, i), sa->t0, sim_now(sr->eng), TAG_COMM_PP, 1);
		}
		sr->r->by_tag[TAG_COMM_PP] += dt;
		sr->ready[st + 1][m] = 1;
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
	if (st + 1 >= sr->l->pp) {
		sr->finished++;
		return 0;
	}
	sr->sends_left[st][m] = sr->per_stage;
	for (i = 0; i < sr->per_stage; i++) {
		struct xfer_spec xs;
		struct sendarg *sa = malloc(sizeof(*sa));
		int a = stage_gpu(sr, st, i), b = stage_gpu(sr, st + 1, i);
		if (!sa)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		sa->sr = sr;
		sa->stage = st;
		sa->micro = m;
		sa->t0 = sim_now(sr->eng);
		memset(&xs, 0, sizeof(xs));
		xs.src = a;
		xs.dst = b;
		xs.bytes = sr->prog[st].send_bytes;
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
	const struct step_prog *p = &sr->prog[st];
	int rc;

	for (;;) {
		if (sr->cur[st] < 0) {
			int m = sr->next[st];
			if (m >= sr->micro || !sr->ready[st][m])
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
			int algo, proto, i;
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
			       op->kind == SOP_ALLTOALL ? COLL_ALLTOALL : COLL_ALLGATHER;
			c.n = sr->per_stage;
			for (i = 0; i < c.n; i++)
				c.gpus[i] = stage_gpu(sr, st, i);
			c.bytes = op->bytes;
			c.algo = ALGO_AUTO;
			c.proto = PROTO_AUTO;
			if ((rc = pick(sr, st, &c, &algo, &proto, err)) < 0)
				return rc;
			rc = coll_start(&sr->cx, &c, algo, proto, sim_now(sr->eng), coll_done,
					(void *)(intptr_t)st, NULL, err);
			return rc > 0 ? plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
						      "chosen protocol not available") : rc;
		}
	}
}

int step_run(const struct scenario *s, const struct topo_opts *o, const struct step_layout *l,
	     const struct step_prog *prog, int micro, struct step_result *r,
	     struct plumb_err *err)
{
	struct srun *sr;
	struct topo_view *view = NULL;
	int rc, st, m;

	{
		struct step_span *spans = r->spans;
		int cap = r->cap;
		sim_net_hook_fn hook = r->hook;
		void *hook_ctx = r->hook_ctx;
		memset(r, 0, sizeof(*r));
		r->spans = spans;
		r->cap = cap;
		r->hook = hook;
		r->hook_ctx = hook_ctx;
	}
	if (l->gpus > s->ngpus)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "layout %s needs %d GPUs but %s has %d", l->name, l->gpus,
				     s->name[0] ? s->name : s->path, s->ngpus);
	if (l->pp > STEP_MAX_STAGES || micro < 1 || micro > STEP_MAX_MICRO)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "at most %d stages and 1-%d microbatches", STEP_MAX_STAGES,
				     STEP_MAX_MICRO);
	sr = calloc(1, sizeof(*sr));
	if (!sr)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	sr->s = s;
	sr->l = l;
	sr->prog = prog;
	sr->o = o;
	sr->r = r;
	sr->micro = micro;
	sr->per_stage = l->gpus / l->pp;
	r->ngpus = l->gpus;
	if ((rc = topo_build(s, s->vm.mode == SCN_VM ? TOPO_GUEST : TOPO_HOST, o, &view, err)) < 0)
		goto out;
	sr->view = view;
	if ((rc = sim_engine_new(s->seed, &sr->eng, err)) < 0)
		goto out;
	sim_set_budget(sr->eng, s->event_budget);
	if ((rc = fab_build(sr->eng, s, &sr->fab, err)) < 0 ||
	    (rc = coll_ctx_init(&sr->cx, sr->eng, sr->fab, view, err)) < 0 ||
	    (rc = xfer_ctx_init(&sr->xx, sr->eng, sr->fab, err)) < 0 ||
	    (rc = sim_register(sr->eng, &compute_ops, sr, &sr->kind_done, err)) < 0)
		goto out;
	if (r->hook)
		sim_net_set_resolve_hook(sr->fab->net, r->hook, r->hook_ctx);
	for (st = 0; st < l->pp; st++) {
		sr->cur[st] = -1;
		for (m = 0; m < micro; m++)
			sr->ready[st][m] = st == 0;
	}
	if ((rc = advance(sr, 0, err)) < 0)
		goto out;
	if ((rc = sim_run(sr->eng, INFINITY, err)) < 0)
		goto out;
	if (sr->finished != l->pp * micro) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				   "step stopped with %d of %d stage-microbatches done",
				   sr->finished, l->pp * micro);
		goto out;
	}
	r->seconds = sim_now(sr->eng);
	r->events = (long)sim_stats(sr->eng)->events;
out:
	xfer_ctx_release(&sr->xx);
	coll_ctx_release(&sr->cx);
	if (sr->fab)
		fab_free(sr->fab);
	sim_engine_free(sr->eng);
	topo_free(view);
	free(sr);
	return rc;
}
