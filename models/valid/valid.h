/*
 * valid.h - validation against measured runs: a case list (YAML) pairs each
 * measured nccl-tests table or p2pBandwidthLatencyTest output with the
 * scenario of its machine; plumb predicts every measured number and the
 * report gives the error of each.
 *
 * Case file format: validation/README.md and docs/validation.md.
 * Lifecycle: val_load() -> val_predict() -> val_report() -> val_free().
 */
#ifndef PLUMB_VALID_H
#define PLUMB_VALID_H

#include <stdio.h>

#include "meas.h"
#include "scn.h"
#include "topo.h"

enum val_kind { VAL_NCCL, VAL_P2P, VAL_SERVING, VAL_COLLCSV, VAL_DECODE };

#define VAL_MAX_FITS 16
#define VAL_MAX_ARTEFACTS 8

struct val_case {
	char name[64];
	enum val_kind kind;
	char data[512], scenario[512], source[256];
	int run;                    /* 1-based run of the data file */
	int ngpus;                  /* mapping given: ranks/devices -> GPUs */
	int gpus[SCN_MAX_GPUS];
	char op[24];                /* nccl: op, "" = from the file */
	int nccl_level;             /* -1: default */
	int p2p_disable;
	int line;                   /* of the case in the case file */
	struct scenario *scn;       /* owned */
	struct meas_nccl_file *nccl;/* owned, kind nccl */
	struct meas_p2p_file *p2p;  /* owned, kind p2p */
	struct meas_csv *serving;   /* owned, kinds serving, collectives, decode */
	char model[256], weights[16], kv[16];  /* serving: what was served (model: id or file) */
	char engine[48];            /* serving: `engine: NAME[@VERSION]`, the stack its source
				       ran, "": the scenario's engine */
	int stack;                  /* 1: the engine table fills the scenario's serving: (a
				       case that names its engine, or a calibrate --data
				       case, run as predict runs it); 0: the section as it is */
	long input, output;         /* serving: request lengths */
	char note[1024];            /* shown under the case's table */
	char group[48];             /* cases summarised together ("" none) */
	int algo;                   /* collectives: enum coll_algo (ALGO_AUTO unless given) */
	double output_spread;       /* serving: output lengths over [1 -+ this] x mean; 0 default */
	double range_ratio;         /* serving, with has_range_ratio: inputs and outputs
				       uniform over [r, 1] x a top length, as
				       bench_serving's random dataset, with the
				       means the rows give */
	int has_range_ratio;
	long chunked_prefill;       /* serving: `chunked_prefill: N`, the prefill chunk the
				       source's server ran (its --chunked-prefill-size); it
				       replaces the engine's scheduler, as predict's
				       --chunked-prefill does; 0: the engine's */
	int first_point, npoints;   /* slice of the point array */
	int acs;                    /* p2p: -1 as the scenario, 0/1 ACS forced off/on */
	int quoted;                 /* p2p: points listed in the case (`points:`), each
				       with the text it was read from, not matrices */
	int nfits;                  /* `fits:`: constants derived from this case's data */
	char fits[VAL_MAX_FITS][32];
	int fits_line, fits_col;    /* of the `fits:` list ("" none: 0) */
	/* `artefacts:`: points of the run its note shows to be measurement
	 * artefacts (labels as the report names them): scored as printed in
	 * the case's table, left out of the calibration cross-validation */
	int nartefacts;
	char artefacts[VAL_MAX_ARTEFACTS][64];
	int artefacts_line[VAL_MAX_ARTEFACTS], artefacts_col[VAL_MAX_ARTEFACTS];
};

/* A case is fitted (in-sample) when its data fixed a constant: its points are
 * not predictions and stay out of the headline figures. */
#define VAL_CASE_FITTED(c) ((c)->nfits > 0)

/* What a serving point measures. */
enum val_srv_metric {
	VAL_SRV_TOK,            /* mean output tok/s of the run */
	VAL_SRV_TPOT,           /* time per output token, ms */
	VAL_SRV_PEAK,           /* peak output tok/s (most tokens in one second) */
	VAL_SRV_TTFT,           /* mean time to first token, ms */
	VAL_SRV_XFER            /* mean KV transfer of a disaggregated design, ms */
};

/*
 * The quantity a point measures, for the summaries and the model-error
 * spread: a decode or serving rate (tok/s, time per output token, a decode
 * step), a time to first token, or an interconnect number (p2p, nccl-tests,
 * collectives).
 */
enum val_qty { VAL_Q_LINK, VAL_Q_RATE, VAL_Q_TTFT, VAL_NQ };


struct val_point {
	int c;                      /* case index */
	int row;                    /* source row (nccl run row, CSV row) */
	int a, b;                   /* p2p: matrix cell */
	int train;                  /* 1: used by a fit, 0: held out (calibration) */
	int artefact;               /* listed in its case's `artefacts:` */
	char label[64];             /* "size 1048576", "uni_disabled 0->1" */
	int group;                  /* nccl: 0; p2p: the matrix kind; serving:
				       enum val_srv_metric */
	double measured, predicted; /* us or GB/s, as measured */
	double lo, hi;              /* rate and TTFT points: plumb's 90% range
				       (NAN: none) */
};

/* A prediction without a measurement: the same model on other boxes. */
struct val_whatif {
	char name[64];
	int nscn;
	struct scenario *scn[8];    /* owned */
	char layouts[8][32];
	int nlayouts;
	int conc[16], nconc;
	char note[2048];
	double tok[8][8][16];       /* [scenario][layout][concurrency], predicted */
};

#define VAL_MAX_SKIPPED 8

struct val_spread;

struct val_set {
	const char *file;           /* whole (plumb_keep_path) */
	int ncases;
	struct val_case *cases;
	int nwhatif;
	struct val_whatif *whatif;
	int npoints;
	struct val_point *points;
	int oom;                    /* a point could not be stored */
	int nskipped;               /* runs of multi-run files val_add_files could not use */
	char skipped[VAL_MAX_SKIPPED][256];   /* the first ones: "file run N: why" */
	struct val_spread *spread;  /* owned: model-error spread (val_spread_run), NULL */
};

/*
 * Load the case file at path and every scenario and data file it names
 * (paths relative to the current directory). Measured points are listed;
 * predictions are not made yet. Errors name the file, line and column.
 */
int val_load(const char *path, struct val_set **out, struct plumb_err *err);
/*
 * Same from len bytes of text in memory (need not be NUL-terminated); `file`
 * names it in messages. The scenario and data files it names are still read
 * from disk.
 */
int val_parse(const char *file, const char *text, size_t len, struct val_set **out,
	      struct plumb_err *err);
void val_free(struct val_set *v);

/*
 * Build a set programmatically: one case per data file, all on the
 * scenario at `scenario` (loaded per case, so each case owns its copy).
 * The kind of each file is found from its content: a CSV header names the
 * CSV kind (collectives, decode steps, serving), a p2pBandwidthLatencyTest
 * matrix a p2p case, otherwise an nccl-tests table. `gpus` (NULL: the first
 * ones) maps ranks/devices to scenario GPUs; model, weights, kv name what
 * decode and serving data measured.
 */
int val_from_files(const char *scenario, const char *const *files, int nfiles,
		   const char *gpus, const char *model, const char *weights, const char *kv,
		   struct val_set **out, struct plumb_err *err);

/*
 * Add to v the cases of files measured on `scenario`, as val_from_files
 * builds them (a joint calibration adds one scenario's files after
 * another). A multi-run nccl-tests or p2pBandwidthLatencyTest file gives
 * one case per run, named "file#N"; a run that cannot be used (more GPUs
 * than mapped, an op not simulated, no value) is left out and listed in
 * v->skipped, unless it is the file's only usable one (then the error).
 * A measurement given twice among the nccl-tests files of one call (the
 * same op, GPUs, size, type, reduction and root: a log pasted twice) is
 * refused, PLUMB_EINPUT at the repeated row's line, naming the first.
 * On error v keeps the cases added so far (val_free releases them).
 */
int val_add_files(struct val_set *v, const char *scenario, const char *const *files, int nfiles,
		  const char *gpus, const char *model, const char *weights, const char *kv,
		  struct plumb_err *err);

/*
 * Predict every point of case c (all cases when c < 0) with the constants
 * in each case's scenario (the caller may change scn->k before).
 */
int val_predict(struct val_set *v, int c, struct plumb_err *err);

/* Predict only the points marked train (a fit's residuals). */
int val_predict_train(struct val_set *v, struct plumb_err *err);

/* Summary of the error of points [first, first+n): |pred/meas - 1|. */
struct val_stats {
	int n;
	double median_err, max_err;     /* relative */
	double worst_ratio;             /* pred/meas of the largest error, |ratio - 1| */
	int worst;                      /* point index */
	int max_pt;                     /* the point of max_err (index; -1: none) */
	double max_ratio;               /* its pred/meas */
	int within2x;                   /* points with 0.5 <= ratio <= 2 */
};
void val_stats(const struct val_set *v, int first, int n, struct val_stats *st);

/* The quantity point p measures. */
enum val_qty val_point_qty(const struct val_set *v, const struct val_point *p);

/* Which points a summary takes: -1 for any. */
struct val_sel {
	int kind;                   /* enum val_kind */
	int fitted;                 /* 1 points of fitted cases, 0 out-of-sample */
	int qty;                    /* enum val_qty */
};
#define VAL_SEL_ALL { -1, -1, -1 }
/* val_stats over the points s selects. */
void val_stats_sel(const struct val_set *v, const struct val_sel *s, struct val_stats *st);

/*
 * Check that the cases' `fits:` lists and the constants' sources agree:
 * a constant whose source (the consts table, the GPU catalog, a case's
 * scenario `constants:`) names a validation data file or "validation case
 * NAME" is listed in `fits:` of a case with that data file (of that case),
 * and every constant a case lists names the case (or its data file) in one
 * of its sources. Returns 0, or PLUMB_EINPUT with the first disagreement
 * (file:line:column of the case's `fits:`) in err.
 */
int val_fits_check(const struct val_set *v, struct plumb_err *err);

/*
 * The constants' draws of a 90% range (plumb's interval code supplies it:
 * cmd_interval_consts): n copies of k with the constants it draws drawn, and
 * each draw's model-error factor exp(k->v[K_TOK_ERR_SD] z) in mult. Returns 1,
 * 0 when nothing is drawn (out and mult untouched), < 0 on error.
 */
typedef int (*val_draws_fn)(const struct plumb_consts *k, int n, struct plumb_consts *out,
			    double *mult, struct plumb_err *err);

/*
 * The model-error spread of rate and TTFT points (valid_err.c): each decode
 * and serving row simulated under ndraws draws of fn; the log-sd of the
 * model error each quantity needs for 90% of its out-of-sample points to lie
 * inside their ranges; a leave-one-case-out spread per case sets its points'
 * lo/hi (a range never widened by its own point). Fitted cases' points get
 * the ranges of the shipped constants (tok_err_sd, ttft_err_sd).
 */
int val_spread_run(struct val_set *v, int ndraws, val_draws_fn fn, struct plumb_err *err);
void val_spread_free(struct val_spread *s);

struct val_spread_summary {
	int ndraws;
	int n;                      /* out-of-sample points */
	double sd_all;              /* spread from all of them (-1: no point) */
	double sd_const;            /* the shipped constant */
	double sd_loo_lo, sd_loo_hi;/* the leave-one-case-out spreads' range */
	int in_loo;                 /* points inside their leave-one-case-out range */
	int in_const;               /* ... inside the range of the shipped constant */
};
/* Summary of quantity q (VAL_Q_RATE, VAL_Q_TTFT); 0 when there is none. */
int val_spread_get(const struct val_set *v, int q, struct val_spread_summary *out);

/*
 * TTFT's model-error factor in draw d of a range: exp(-ttft_err_sd z_d) (k),
 * z_d = val_err_z(d), a standard normal of its own (tok/s's comes from the
 * interval's random stream): the quantiles of a golden-ratio (Weyl)
 * sequence, the same for every run.
 */
double val_ttft_err_factor(const struct plumb_consts *k, int d);
double val_err_z(int d);

/*
 * One CSV row per point: case, scored (fitted or out-of-sample), kind,
 * quantity (link, rate, ttft), metric, point, measured, predicted, and the
 * 90% range lo, hi (empty when none). validation/coverage.sh reads it.
 * The case name and label are CSV cells from the input (out_csv_cell:
 * neutralised against formulas unless raw).
 */
void val_points_csv(FILE *f, const struct val_set *v, int raw);

/* Markdown report of predicted vs measured (deterministic). */
void val_report(FILE *f, const struct val_set *v, const char *title);

#endif
