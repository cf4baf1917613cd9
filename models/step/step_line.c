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
			struct coll_spec c;
			struct coll_result cr;
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
			memset(&c, 0, sizeof(c));
			c.op = op->kind == SOP_ALLREDUCE ? COLL_ALLREDUCE :
			       op->kind == SOP_ALLTOALL ? COLL_ALLTOALL :
			       op->kind == SOP_REDUCESCATTER ? COLL_REDUCESCATTER : COLL_ALLGATHER;
			c.n = per_stage;
			c.gpus = gpus;
			c.bytes = op->bytes;
			c.algo = ALGO_AUTO;
			c.custom = coll_custom_of(s);
			c.proto = PROTO_AUTO;
			for (i = 0; i < nmemo; i++)
				if (memo[i].op == (int)c.op && memo[i].bytes == c.bytes) {
					alone = memo[i].seconds;
					break;
				}
			if (i == nmemo) {
				c.flow = 1;     /* as pick(): the flow model's time */
				if ((rc = coll_time_in(shared, s, &c, &cr, err)) < 0)
					return rc;
				alone = cr.seconds;
				if (nmemo < LINE_MEMO) {
					memo[nmemo].op = c.op;
					memo[nmemo].bytes = c.bytes;
					memo[nmemo++].seconds = alone;
				}
			}
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
