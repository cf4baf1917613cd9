/*
 * plan.h - `plumb plan`: the cheapest configurations that meet a latency
 * target. Boxes x layouts (replicas included) x engine settings (prefill
 * chunk, max batched tokens) x load are each predicted exactly as `plumb
 * predict` predicts that point (pred_run_rows on the same struct pred_run),
 * costed (models/cost), checked against the SLO's percentiles, ranked by
 * cost per million output tokens, and marked on the Pareto frontier of
 * tok/s per GPU against tok/s per user. Nothing here prints.
 */
#ifndef PLUMB_PLAN_H
#define PLUMB_PLAN_H

#include "cost.h"
#include "predict_run.h"

#define PLAN_MAXSET 8           /* engine settings per kind */
#define PLAN_MAXLAY 16          /* layouts searched per box */

/* A latency target: each bound in ms, 0 when not set. */
struct plan_slo {
	double ttft_p90, tpot_p90, ttft_p99, tpot_p99;
};

struct plan_opts {
	/* model, traffic and the loads (conc), as predict takes them; its
	 * layouts, when given, are searched on every box instead of the
	 * default list (plan_layouts); its chunk and max_batched are set per
	 * setting below. draws are not run. */
	struct pred_run r;
	long chunk[PLAN_MAXSET];        /* 0: the engine's scheduler */
	int nchunk;                     /* 0: one setting, the engine's */
	long max_batched[PLAN_MAXSET];
	int nmax_batched;
	struct plan_slo slo;
	struct cost_opts cost;
};

/* One configuration: a predicted point and its verdict. */
struct plan_row {
	struct pred_row p;              /* as predict gives it (p.lay, p.x, p.sr) */
	int si;                         /* the scenario */
	long chunk, max_batched;        /* the engine setting (0, 0: the engine's) */
	int gpus_used;
	double tok_s_per_gpu, tok_s_per_user;
	double ttft_p90, tpot_p90, ttft_p99, tpot_p99;  /* ms, NAN: does not fit */
	struct cost_point cost;
	int meets;                      /* fits and every SLO bound holds */
	char reason[1100];              /* why not ("TTFT p90 2,345 ms > 2,000", or the
					   prediction's own why); "" when it meets */
	int pareto;                     /* on the frontier (among the rows that fit) */
};

/*
 * The layouts searched on a box of n GPUs for model m (no --layout): tpN,
 * then data-parallel copies of each smaller tensor-parallel group that
 * divides N (dp2tp4, dp4tp2, dp8 on 8), tp(N/2)pp2, and epN for a model
 * with experts; into lay[0..*nlay) (room for PLAN_MAXLAY).
 */
void plan_layouts(int n, const struct llm_model *m, char (*lay)[32], int *nlay);

/* --disagg: the disaggregated designs added for a box of n GPUs after the
 * *nlay layouts of lay (while PLAN_MAXLAY allows): p1:tp(n/2)+d1:tp(n/2)
 * for an even n, p2:tp(n/4)+d1:tp(n/2) for n a multiple of 4. */
void plan_designs(int n, char (*lay)[32], int *nlay);

/*
 * Every configuration of o on the ns scenarios: for each box its layouts,
 * for each engine setting and load the point, costed with the box's
 * cost_params (o->cost over its `cost:`), judged, then sorted: those that
 * meet the SLO by cost per million tokens (then tok/s per GPU), then those
 * that fit but miss it, then those that do not fit; the rows' pareto set.
 * *rows owned by the caller (plan_rows_free). Errors: pred_run_rows'.
 */
int plan_run(const struct plan_opts *o, struct scenario *const *s, int ns,
	     struct plan_row **rows, int *nrows, struct plumb_err *err);

void plan_rows_free(struct plan_row *rows, int n);

#endif
