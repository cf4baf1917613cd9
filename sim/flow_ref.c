/*
 * flow_ref.c - the per-flow reference solver (flow_int.h): every re-solve
 * charges every active flow for the time since the last one, runs
 * progressive filling over the flows one by one, and moves the completion
 * event of every flow whose rate changed. O(R x (F x P + L)) per solve
 * plus O(changed x log pending) (flow.h). A flow of several copies
 * (sim_flow_start_n) counts, and is charged, once per copy on its links. It is what the class solver
 * (flow_class.c) was checked against: tests/unit/test_sim_solvers.c runs
 * both on random workloads. Chosen with sim_net_set_solver() or
 * PLUMB_FLOW_SOLVER=per-flow.
 */
#include "flow_int.h"

#include <assert.h>
#include <math.h>

/* The completion event of flow ev->pl.i0 (payload: id, generation). */
int ref_complete(struct sim_net *net, const struct sim_event *ev,
		 struct plumb_err *err)
{
	int id = (int)ev->pl.i0, rc;
	struct flow *f = &net->flows[id];

	assert(f->state == FLOW_ACTIVE && f->gen == (uint32_t)ev->pl.i1);
	f->ev = SIM_HANDLE_NONE;
	flow_act_remove(net, id);
	if ((rc = flow_mark_dirty(net, err)) < 0)
		return rc;
	return flow_finish(net, id, err);
}

/*
 * Charge every active flow for the time since its last update, then
 * progressive filling over the active flows (see flow.h). Leaves the
 * previous rate in old_rate. Each round visits only the flows still
 * unfrozen (kept packed in uf[]) and the links that still carry one
 * (kept packed in touched[]).
 */
static void solve_rates(struct sim_net *net, double now)
{
	struct sim_stats *st = sim_stats_mut(net->eng);
	struct link *links = net->links;
	int *uf = net->uf;
	int i, j, nt = 0, nuf = net->nact;
	uint64_t stamp = ++net->stamp;

	for (i = 0; i < net->nact; i++) {
		struct flow *f = &net->flows[net->act[i]];

		f->remaining -= f->rate * (now - f->t_upd);
		if (f->remaining < 0)
			f->remaining = 0;
		f->t_upd = now;
		f->old_rate = f->rate;
		uf[i] = net->act[i];
		for (j = 0; j < f->plen; j++) {
			struct link *l = &links[f->path[j]];
			if (l->stamp != stamp) {
				l->stamp = stamp;
				l->rc = l->cap;
				l->n = 0;
				net->touched[nt++] = f->path[j];
			}
			l->n += f->w;
		}
	}
	while (nuf > 0) {
		double m = INFINITY, thr;
		int k;

		st->resolve_rounds++;
		/* drop links whose flows are all frozen: they stay so */
		for (i = k = 0; i < nt; i++) {
			struct link *l = &links[net->touched[i]];
			if (l->n == 0)
				continue;
			net->touched[k++] = net->touched[i];
			l->share = l->rc > 0 ? l->rc / l->n : 0;
			if (l->share < m)
				m = l->share;
		}
		nt = k;
		for (i = 0; i < nuf; i++) {
			const struct flow *f = &net->flows[uf[i]];
			if (f->cap > 0 && f->cap < m)
				m = f->cap;
		}
		assert(isfinite(m) && m > 0);
		thr = m * (1 + SHARE_EPS);
		for (i = 0; i < nt; i++) {
			struct link *l = &links[net->touched[i]];
			l->sat = l->share <= thr;
		}
		/* freeze the flows at level m; keep the others packed */
		for (i = k = 0; i < nuf; i++) {
			struct flow *f = &net->flows[uf[i]];
			int hit = f->cap > 0 && f->cap <= thr;

			for (j = 0; !hit && j < f->plen; j++)
				hit = links[f->path[j]].sat;
			if (!hit) {
				uf[k++] = uf[i];
				continue;
			}
			/* never above the flow's own cap */
			f->rate = (f->cap > 0 && f->cap < m) ? f->cap : m;
			for (j = 0; j < f->plen; j++) {
				struct link *l = &links[f->path[j]];
				l->rc -= f->rate * f->w;
				l->n -= f->w;
			}
		}
		assert(k < nuf);        /* every round freezes a flow */
		nuf = k;
	}
}

/* The re-solve: new rates, then the completions that moved. */
int ref_solve(struct sim_net *net, struct plumb_err *err)
{
	struct sim_engine *eng = net->eng;
	double now = sim_now(eng);
	int i, rc;

	solve_rates(net, now);
	for (i = 0; i < net->nact; i++) {
		int id = net->act[i];
		struct flow *f = &net->flows[id];
		struct sim_payload pl;

		if (f->rate == f->old_rate && f->ev != SIM_HANDLE_NONE)
			continue;       /* same rate: same completion time */
		/* its completion moves in place (as a cancel and a new event) */
		if (sim_reschedule(eng, f->ev, now + f->remaining / f->rate))
			continue;
		pl.i0 = id;
		pl.i1 = f->gen;
		pl.p = NULL;
		rc = sim_at(eng, now + f->remaining / f->rate,
			    SIM_PRIO_DEFAULT, net->kind_done, &pl, &f->ev,
			    err);
		if (rc < 0)
			return rc;
	}
	return 0;
}
