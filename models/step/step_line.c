/*
 * step_line.c - a step of one lane without the engine (step_int.h).
 *
 * With one pipeline stage and one replica (one lane) and replay on, a step
 * runs its program's ops one after another: nothing else is ever in flight,
 * so no claim meets another, every collective is replayed at the time the
 * tuner gave it alone (step.c, "Replay"), and the engine only adds each
 * op's time to its clock. step_line_run() does those additions itself, in
 * the same order and with the same operations as the engine's events and
 * their handlers (sim_after's now + delay, on_compute's now - start,
 * account's sums), so the result is the engine's bit for bit, at the cost
 * of the ops instead of an event queue, a fabric and claims per step.
 * tests/unit/test_step_line.c compares the two on whole programs.
 * PLUMB_STEP_ENGINE=1 runs every step in the engine.
 */
#include "step_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"

#define LINE_MEMO 64

/* The tuner's answer for one (operation, bytes): as step.c's pick(). */
struct line_memo {
	int op;
	double bytes;
	double seconds;
};

static void line_account(struct step_result *r, int per_stage, const struct step_op *op,
			 double dt)
{
	int i, comm = op->kind != SOP_COMPUTE;
	for (i = 0; i < per_stage; i++) {
		/* span(): counted (the caller records none) */
		r->nspans++;
		if (comm)
			r->comm[i] += dt;
		else
			r->busy[i] += dt;
	}
	r->by_tag[op->tag] += dt;
}

/* The tuner's time for collective op alone over gpus[0 .. n), memoised in
 * memo (*nmemo entries): as step.c's pick(). 0 and *alone set, or an
 * error. */
static int line_coll(const struct scenario *s, struct coll_scn *shared, const struct step_op *op,
		     int n, int *gpus, struct line_memo *memo, int *nmemo, double *alone,
		     struct plumb_err *err)
{
	struct coll_spec c;
	struct coll_result cr;
	int i, rc;
	memset(&c, 0, sizeof(c));
	c.op = op->kind == SOP_ALLREDUCE ? COLL_ALLREDUCE :
	       op->kind == SOP_ALLTOALL ? COLL_ALLTOALL :
	       op->kind == SOP_REDUCESCATTER ? COLL_REDUCESCATTER : COLL_ALLGATHER;
	c.n = n;
	c.gpus = gpus;
	c.bytes = op->bytes;
	c.algo = ALGO_AUTO;
	c.custom = coll_custom_of(s);
	c.proto = PROTO_AUTO;
	for (i = 0; i < *nmemo; i++)
		if (memo[i].op == (int)c.op && memo[i].bytes == c.bytes) {
			*alone = memo[i].seconds;
			return 0;
		}
	c.flow = COLL_FLOW_GRID;        /* as pick(): the flow model's time */
	if ((rc = coll_time_in(shared, s, &c, &cr, err)) < 0)
		return rc;
	*alone = cr.seconds;
	if (*nmemo < LINE_MEMO) {
		memo[*nmemo].op = c.op;
		memo[*nmemo].bytes = c.bytes;
		memo[(*nmemo)++].seconds = *alone;
	}
	return 0;
}

int step_line_run(const struct scenario *s, const struct step_layout *l,
		  const struct step_prog *prog, int micro, struct step_result *r,
		  struct coll_scn *shared, struct plumb_err *err)
{
	struct line_memo memo[LINE_MEMO];
	int nmemo = 0, per_stage = l->gpus / l->pp, m, pc, i, rc;
	int gpus[SCN_MAX_GPUS];
	double now = 0;
	long events = 0;

	if (l->pp != 1 || l->dp > 1 || r->rounds > 1 ||
	    r->hook || r->no_replay || (r->spans && r->cap > 0) || per_stage > SCN_MAX_GPUS)
		return 0;
	for (i = 0; i < per_stage; i++)
		gpus[i] = i;
	r->ngpus = step_layout_used(l);
	for (m = 0; m < micro; m++) {
		for (pc = 0; pc < prog->nops; pc++) {
			const struct step_op *op = &prog->ops[pc];
			double alone = -1, t0 = now;
			if (s->event_budget && (unsigned long long)events >= (unsigned long long)s->event_budget)
				return 0;       /* the engine says so */
			if (op->kind == SOP_COMPUTE) {
				now = now + (op->seconds > 0 ? op->seconds : 0);
				events++;
				line_account(r, per_stage, op, now - t0);
				continue;
			}
			if (per_stage < 2)
				continue;       /* a collective over one GPU is a no-op */
			if ((rc = line_coll(s, shared, op, per_stage, gpus, memo, &nmemo, &alone,
					    err)) < 0)
				return rc;
			/* a collective the tuner gives no time runs as flows */
			if (!(alone > 0))
				return 0;
			now = now + alone;
			events++;
			r->replayed++;
			line_account(r, per_stage, op, alone);
		}
	}
	r->seconds = r->run_seconds = now;
	r->events = events;
	return 1;
}

/* Record one op of the TBO schedule on every GPU of the stage. */
static void tbo_account(struct step_result *r, int per_stage, const struct step_op *op,
			int stream, double t0, double t1)
{
	int g, k;
	for (g = 0; g < per_stage; g++) {
		k = r->nspans;
		if (r->spans && k < r->cap) {
			r->spans[k].gpu = g;
			r->spans[k].t0 = t0;
			r->spans[k].t1 = t1;
			r->spans[k].tag = op->tag;
			r->spans[k].comm = stream;
		}
		r->nspans++;
		if (stream)
			r->comm[g] += t1 - t0;
		else
			r->busy[g] += t1 - t0;
	}
	r->by_tag[op->tag] += t1 - t0;
}

/*
 * Two-batch overlap (step.h, `overlap`). Two streams: the GPUs' compute and
 * their communication, one op on each at a time, each in the order the
 * host issues them: op j of microbatch 0, then op j of microbatch 1, then
 * op j + 1 ... (SGLang's two-batch overlap runs one layer's operations as a
 * list with yield points, switching microbatches at each; LMSYS's 96-H100
 * post). An op starts when its stream reaches it and its microbatch has
 * finished the ops before it, so microbatch 1 computes while microbatch 0's
 * all-to-all runs and the other way round.
 * A collective takes the tuner's time for it alone; a compute op runs at
 * r->overlap_rate of its speed while a collective runs beside it (the
 * communication kernels' SMs), else at full speed.
 */
int step_line_tbo(const struct scenario *s, const struct step_layout *l,
		  const struct step_prog *prog, int micro, struct step_result *r,
		  struct coll_scn *shared, struct plumb_err *err)
{
	struct line_memo memo[LINE_MEMO];
	int nmemo = 0, per_stage = l->gpus / l->pp, pc[2] = { 0, 0 }, i, rc;
	int gpus[SCN_MAX_GPUS];
	int run[2] = { -1, -1 };                /* the microbatch on each stream */
	int nx[2] = { 0, 0 };                   /* each stream's next (op, microbatch): 2 op + m */
	double left[2] = { 0, 0 }, t0[2] = { 0, 0 };   /* [0] compute (full-rate s), [1] comm */
	double now = 0, slow = r->overlap_rate > 0 && r->overlap_rate < 1 ? r->overlap_rate : 1;
	long events = 0;

	if (l->pp != 1 || l->dp > 1 || micro != 2 || per_stage > SCN_MAX_GPUS)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "layout %s: two-batch overlap runs two microbatches of one "
				     "stage and one replica (%d stages, %d replicas, %d microbatches)",
				     l->name, l->pp, l->dp > 1 ? l->dp : 1, micro);
	for (i = 0; i < per_stage; i++)
		gpus[i] = i;
	r->ngpus = step_layout_used(l);
	for (i = 0; i < 2; i++)
		while (per_stage < 2 && pc[i] < prog->nops && prog->ops[pc[i]].kind != SOP_COMPUTE)
			pc[i]++;
	for (;;) {
		int st, m, done;
		double dt[2];
		/* an idle stream takes its next op in issue order once that
		 * op's microbatch has finished the ops before it */
		for (st = 0; st < 2; st++) {
			int j, mm;
			if (run[st] >= 0)
				continue;
			while (nx[st] < 2 * prog->nops) {
				j = nx[st] / 2;
				if ((prog->ops[j].kind != SOP_COMPUTE) == st &&
				    (st == 0 || per_stage >= 2))
					break;
				nx[st]++;
			}
			if (nx[st] >= 2 * prog->nops)
				continue;
			j = nx[st] / 2;
			mm = nx[st] % 2;
			if (pc[mm] != j)
				continue;
			{
				const struct step_op *op = &prog->ops[j];
				double d;
				if (st) {
					if ((rc = line_coll(s, shared, op, per_stage, gpus, memo, &nmemo,
							    &d, err)) < 0)
						return rc;
					r->replayed++;
				} else {
					d = op->seconds;
				}
				left[st] = d > 0 ? d : 0;
				t0[st] = now;
				run[st] = mm;
				nx[st]++;
			}
		}
		if (run[0] < 0 && run[1] < 0)
			break;  /* the earliest op left can always start: the end */
		/* the first of the running ops to end */
		dt[0] = run[0] >= 0 ? left[0] / (run[1] >= 0 ? slow : 1) : INFINITY;
		dt[1] = run[1] >= 0 ? left[1] : INFINITY;
		done = dt[1] < dt[0] ? 1 : 0;
		if (run[0] >= 0)
			left[0] = done == 0 ? 0 : left[0] - dt[1] * (run[1] >= 0 ? slow : 1);
		if (run[1] >= 0)
			left[1] = done == 1 ? 0 : left[1] - dt[0];
		now += dt[done];
		m = run[done];
		tbo_account(r, per_stage, &prog->ops[pc[m]], done, t0[done], now);
		events++;
		pc[m]++;
		while (per_stage < 2 && pc[m] < prog->nops && prog->ops[pc[m]].kind != SOP_COMPUTE)
			pc[m]++;        /* a collective over one GPU is a no-op */
		run[done] = -1;
		if (left[!done] < 0)
			left[!done] = 0;
	}
	if (pc[0] < prog->nops || pc[1] < prog->nops)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "two-batch overlap stalled at ops %d and %d of %d", pc[0], pc[1],
				     prog->nops);
	r->seconds = r->run_seconds = now;
	r->events = events;
	return 0;
}
