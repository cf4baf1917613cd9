/*
 * predict_run.h - the points of `plumb predict` and `plumb compare`: each
 * (layout, load, box) compiled into a pred_cfg, run as one decode step or a
 * serving run, with its 90% interval from draws of the constants; and what
 * a speed-up between boxes depends on. The CLI parses options into a
 * struct pred_run and prints the struct pred_row results; nothing here
 * prints.
 *
 * Points run on the machine's cores (at most 8 threads). A point's result
 * does not depend on which thread runs it or when: the results are those of
 * one thread, and an error is that of the first failing point in row order.
 */
#ifndef PLUMB_PREDICT_RUN_H
#define PLUMB_PREDICT_RUN_H

#include "predict.h"

#define PRED_MAXLIST 32

/*
 * Where the draws of an interval come from: the caller's calibration or the
 * documented defaults (the CLI's --calib). consts fills out[0..draws) with
 * each draw's constants over k and mult[] with its model-error factor,
 * returning 1, 0 when there is no interval, < 0 on error; interval gives
 * the 5th and 95th percentile of the values that are not NAN. calibrated:
 * the draws come from a calibration (compare then draws without --draws).
 */
struct pred_draw_src {
	int (*consts)(const struct plumb_consts *k, int draws, struct plumb_consts *out,
		      double *mult, struct plumb_err *err);
	void (*interval)(const double *vals, int draws, double *lo, double *hi);
	int calibrated;
};

/* What is predicted: model, layouts, loads and the serving run's shape. */
struct pred_run {
	const char *model, *weights, *kv;   /* borrowed */
	char layouts[PRED_MAXLIST][32];
	int nlayouts;
	int conc[PRED_MAXLIST], nconc;      /* closed-loop concurrencies, or */
	int batch[PRED_MAXLIST], nbatch;    /* one decode step of these batches */
	long context, input, output;
	int micro, mtp, eager, level;       /* level: NCCL_P2P_LEVEL, -1 the scenario's */
	int draws;                  /* Monte Carlo draws for the interval */
	int draws_given, compare;   /* compare draws only when calibrated or draws_given */
	int mtp_given;              /* mtp given (else the scenario's serving: mtp) */
	double accept;
	double accept_pos[16];      /* per draft position (naccept of them) */
	int naccept;
	double rate;                /* Poisson arrivals per second, 0 closed loop */
	long requests;              /* requests of a rate run, 0: 1000 */
	long seed;                  /* seed of the arrivals, -1: the scenario's */
	long chunk;                 /* chunked prefill tokens, 0: the engine's */
	long max_batched;           /* max batched tokens, 0: the engine's (either
				       given: both as given, the engine's scheduler
				       is not used) */
	double range_ratio;         /* < 0: off */
	const struct serve_request *reqs;   /* a trace's requests (borrowed), or NULL */
	int nreqs;
	const char *engine;         /* NAME[@VERSION], NULL: the scenario's (borrowed) */
	struct pred_draw_src src;
	long prefix_len;            /* KV tiers: a shared prompt prefix, tokens (0: none) */
	double prefix_hit;          /* the share of requests that find it cached */
	double offload_gib;         /* host memory for offloaded KV per copy of the
				       layout, GiB (0: none; retracted requests recompute) */
	int offload_far;            /* 1: that memory on the next socket's NUMA node */
	int designs;                /* plan --disagg: add disaggregated designs per box */
	int fill;                   /* 1: the layouts are the defaults, each run as
				       replicas filling its box (pred_layout_on_box) */
};

/* One predicted point. */
struct pred_row {
	int si, li, x;              /* scenario, layout, concurrency or batch */
	char lay[32];               /* the layout run on the box (pred_layout_on_box) */
	int fits;
	char why[1024];
	double step_ms, tok_total, tok_stream, tpot_ms, ttft_ms;
	double comm, compute, idle;
	double part[PART_N];        /* the representative step's parts, ms */
	char diag[320];
	double lo, hi;              /* tok_total 90% interval, NAN: none */
	double tpot_lo, tpot_hi, ttft_lo, ttft_hi;   /* theirs, from the same draws */
	double *dv;                 /* its draws (ndv, NAN: no value), or NULL */
	int ndv;
	struct serve_result sr;     /* serving runs: distributions, KV */
	long kv_tokens;             /* the KV cache, tokens */
};

/* Fill c for o's model on scenario s (which outlives c) under layout lay,
 * with o's overrides (NCCL level, eager, microbatches, drafts). Errors as
 * pred_cfg_setup. */
int pred_run_setup(const struct pred_run *o, const struct scenario *s, const char *lay,
		   struct pred_cfg *c, struct plumb_err *err);

/* Point x (a concurrency, or a batch with nbatch) of c into r (r->x, fits
 * or why, times, parts, diagnosis, serving results); r's interval is left
 * alone. A point that does not fit is 0 with r->fits 0. */
int pred_run_point(const struct pred_run *o, const struct pred_cfg *c, int x,
		   struct pred_row *r, struct plumb_err *err);

/*
 * Every row of o on the ns scenarios s, ordered layout, load, scenario
 * (what a comparison table wants), each with its interval where o draws
 * one. *rows is owned by the caller (pred_rows_free), *nrows its length;
 * both are set even on error (rows run so far).
 */
int pred_run_rows(const struct pred_run *o, struct scenario *const *s, int ns,
		  struct pred_row **rows, int *nrows, struct plumb_err *err);

/*
 * The serving run sp0 of c's layout at load x (sp0->concurrency is x),
 * split over its replicas (c->lay.dp; one: serve_run as it is): each
 * replica runs x / dp clients (the first x % dp one more), a rate's 1/dp
 * (replica i seeded sp0->seed + i), a trace's every dp-th request; every
 * step through fn(ctx), which runs the dp copies at once on the box. Into
 * *out: tok/s summed, means weighted by completed requests, percentiles
 * the largest replica's. Errors: serve_run's.
 */
int pred_serve_replicas(const struct pred_cfg *c, int x, const struct serve_params *sp0,
			serve_step_fn fn, void *ctx, struct serve_result *out,
			struct plumb_err *err);

/*
 * The default layouts of a comparison (predict_compare.c): tpN for every
 * distinct GPU count N among the ns boxes, smallest first, into
 * lay[0..*n) (room for cap); the list does not depend on the boxes' order.
 */
void pred_default_layouts(struct scenario *const *s, int ns, char (*lay)[32], int cap, int *n);

/*
 * The layout that `lay` runs as on box s, into out (n bytes): lay itself,
 * or, with fill (the default layouts) on a box it does not fill and whose
 * GPU count its own divides, dpK followed by lay, K copies filling the box.
 * 0, or 1 when the box cannot run it, with why "n/a: tp8 needs 8 GPUs,
 * box has 4" (nw bytes). Errors: EUSAGE for a layout that does not parse.
 */
int pred_layout_on_box(const struct scenario *s, const char *lay, int fill, char *out, size_t n,
		       char *why, size_t nw, struct plumb_err *err);

/* rows[0..n) and their draws freed; NULL is a no-op. */
void pred_rows_free(struct pred_row *rows, int n);

/*
 * The draws of one point (layout lay, load x on scenario s): the point again
 * under each draw's constants, its total tok/s times the draw's model
 * error, NAN where it does not fit, into vals[0..o->draws). 1 when filled,
 * 0 when there is no interval, < 0 on error. Draw d has the same constants
 * for every point, so the ratio of two points draw by draw is paired.
 */
int pred_point_draws(const struct pred_run *o, const struct scenario *s, const char *lay,
		     int x, double *vals, struct plumb_err *err);

/* The 90% interval of num[d] / den[d] over n paired draws; NAN, NAN
 * without a value or memory. */
void pred_ratio_interval(const struct pred_run *o, const double *num, const double *den, int n,
			 double *lo, double *hi);

/*
 * What box s[j]'s speed-up over s[0] depends on (compare): the first layout
 * at the lowest and highest load of the rows again with NCCL's default
 * level when the box sets NCCL_P2P_LEVEL=SYS, and with both engines on
 * eager launches; and the speed-up's paired 90% range.
 */
struct pred_depends {
	int j;                      /* the box, an index of s */
	const char *lay, *lay0;     /* the first layout as each box runs it (the rows') */
	const struct pred_row *lo, *hi;     /* its rows at the lowest and highest load */
	const struct pred_row *lo0, *hi0;   /* the first box's */
	double rlo[2], rhi[2];      /* the speed-up's 90% range, NAN: none */
	int pxb;                    /* the box sets NCCL_P2P_LEVEL=SYS: pxb_tok was run */
	double pxb_tok[2];          /* tok/s with NCCL's default level (PXB) */
	int eager_fits;             /* both eager runs fit at both loads */
	double eager0[2], eager[2]; /* tok/s of s[0] and s[j] on eager launches */
};

/*
 * The depends of every bare-metal box after the first that has rows of the
 * first layout that fit at both ends, into out[0..*n) (room for ns - 1).
 */
int pred_run_depends(const struct pred_run *o, struct scenario *const *s, int ns,
		     const struct pred_row *rows, int nrows, struct pred_depends *out, int *n,
		     struct plumb_err *err);

/*
 * The engine's share of an answer: the stack o assumes on s (its text, as
 * pred_stack_text, into assumed) and, for each other engine of the table
 * (sglang, vllm, trtllm), its stack and the first layout at the first and
 * last load again under it (its default version, the scenario's stated
 * settings still winning), into alt[0..*nalt) (room for 3).
 */
struct pred_engine_alt {
	char engine[32];            /* its name and version */
	char stack[400];            /* pred_stack_text */
	struct pred_row lo, hi;     /* the first and last load of the first layout */
};
int pred_run_engines(const struct pred_run *o, const struct scenario *s, char *assumed,
		     size_t n, struct pred_engine_alt *alt, int *nalt, struct plumb_err *err);

#endif
