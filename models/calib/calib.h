/*
 * calib.h - fitting the model's named constants to measurements, and the
 * calibration file every command accepts (`--calib FILE`).
 *
 * The fit maximises the posterior: nonlinear least squares (GSL
 * gsl_multifit_nlinear, trust region, forward-difference Jacobian with a
 * step of a few percent, as simulated times are piecewise smooth) on the
 * residuals log(predicted / measured) / s of the training points of a
 * struct val_set (models/valid), every evaluation re-simulating the points
 * with the trial constants, with one prior residual per constant appended
 * (calib_prior_z: its log-normal prior from the cited value and the
 * plausible range). s, the model error, is estimated from the residuals
 * (two passes). --no-priors drops the prior residuals: plain least squares.
 * Each free constant is kept inside its bounds by a log-logistic map from
 * an unbounded variable. The solver starts from the scenario's values, the
 * prior's median and its 5% and 95% quantiles, keeps the best, restarts
 * from it until the objective stops falling and checks the gradient there.
 * The posterior covariance, in log(value), is (J^T J / s^2 + P)^-1 with J
 * a central-difference Jacobian at the optimum and P the priors'
 * precisions; J^T J alone (the data's information) names what the data
 * cannot resolve (calib_report).
 *
 * A joint fit (cases on several scenarios) has one parameter per constant
 * of shared scope (consts_shared: gpu, engine, nccl) and one per scenario
 * for box- and vm-scope constants, for each scenario whose training points
 * depend on it. calib.c holds the fit and the report, calib_file.c the
 * calibration file and how --calib applies it.
 */
#ifndef PLUMB_CALIB_H
#define PLUMB_CALIB_H

#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "consts.h"
#include "valid.h"

#define CALIB_MAX_FREE 32             /* fitted parameters */
#define CALIB_MAX_SCN 8               /* scenarios of a joint calibration */
#define CALIB_BOUND_EDGE 0.005        /* "on a bound": this close in the map's [0, 1] */

/* What one scenario of a calibration was: recorded in the file, compared
 * with the scenario a calibration is applied to. */
struct calib_scn {
	char name[96];                      /* the scenario's name */
	const char *file;                   /* its path, whole (plumb_keep_path); NULL none */
	char gpus[128];                     /* GPU model ids, "a,b" */
	int vm;                             /* 1: a VM guest */
	char chipset[16], iommu[16];        /* VM only */
	char engine[16];                    /* serving: */
	int cuda_graphs;
	char allreduce[16], moe_backend[32], dsa[16];
	char attention_backend[32];
	int allreduce_fusion;
	char nccl_level[64];                /* NCCL_P2P_LEVEL its collectives assumed, "" none */
};

/* A constant's log-normal prior (calib_prior.c): median med, spread slo
 * below it and shi above it (in log), the plausible range plo-phi it was
 * built from holding 90%. */
struct calib_prior {
	double med, slo, shi;
	double plo, phi;
};

/* Constant k's prior, centred on centre (its cited value; 0: the middle of
 * its plausible range). A range starting at 0 starts at phi / 100. */
void calib_prior_of(int k, double centre, struct calib_prior *p);
/* Standard normal deviate of value v under p, and back. */
double calib_prior_z(const struct calib_prior *p, double v);
double calib_prior_at(const struct calib_prior *p, double z);
/* The prior's spread (log) on v's side of the median. */
double calib_prior_sd(const struct calib_prior *p, double v);

#define CALIB_MAX_BLK 16              /* data blocks with a model error of their own */
#define CALIB_MAX_FLAG 12             /* same-sign residual groups reported */
#define CALIB_S0 0.05                 /* model error the first pass assumes (log) */
#define CALIB_S_FLOOR 0.01            /* model error never taken below this (log) */

/* What the prior is centred on. */
enum calib_prior_mode {
	CALIB_PRIOR_SCENARIO,         /* the value in force: scenario, catalog, default */
	CALIB_PRIOR_DEFAULTS,         /* the constants table's cited default, which
					 is also where the fit starts: the values the
					 scenario and catalog give the freed constants
					 are set aside */
	CALIB_PRIOR_NONE              /* --no-priors: plain least squares */
};

struct calib_opts {
	enum calib_prior_mode prior;
};

struct calib_result {
	int nfree;
	int priors;                         /* 1: posterior, 0: least squares */
	struct calib_prior prior[CALIB_MAX_FREE];
	double sdlog[CALIB_MAX_FREE];       /* posterior sd of log(value) */
	double ci_lo[CALIB_MAX_FREE], ci_hi[CALIB_MAX_FREE];   /* 90%: value exp(-+1.645 sdlog) */
	double info[CALIB_MAX_FREE * CALIB_MAX_FREE];  /* data information J^T J / s^2, log(value) */
	double s;                           /* model error the final pass weighted the data by */
	double p_eff;                       /* parameters the data determines (trace) */
	int nstarts;                        /* multi-start: starts tried, */
	int best_start;                     /* the one that won (0: the scenario's values) */
	double objective;                   /* at the optimum: sum of squared weighted residuals */
	double decrement;                   /* Newton decrement left at the optimum */
	int nblk;                           /* model error per data block */
	char blk[CALIB_MAX_BLK][32];
	int blk_n[CALIB_MAX_BLK];
	double blk_sd[CALIB_MAX_BLK];
	int nflag;                          /* same-sign residual groups: missing physics */
	char flag[CALIB_MAX_FLAG][200];
	int idx[CALIB_MAX_FREE];            /* enum plumb_const of each free constant */
	int grp[CALIB_MAX_FREE];            /* -1 every case, else scn[] it is fitted for */
	int moved[CALIB_MAX_FREE];          /* started inside its plausible range, not at 0 */
	double value[CALIB_MAX_FREE];       /* fitted */
	double start[CALIB_MAX_FREE];       /* where the solver started (calib_start) */
	double given[CALIB_MAX_FREE];       /* the scenario's value before the fit (may be 0) */
	double lo[CALIB_MAX_FREE], hi[CALIB_MAX_FREE];   /* fit bounds */
	double se[CALIB_MAX_FREE];          /* standard errors */
	double cov[CALIB_MAX_FREE * CALIB_MAX_FREE];     /* covariance of the values */
	int npoints, iterations, evaluations;
	int converged;
	char status[256];                   /* why it stopped, in words */
	double r2;                          /* of log(measured) */
	double chi2;                        /* sum of squared log residuals */
	double before_median, before_max;   /* |pred/meas - 1| over training points */
	double after_median, after_max;
	double *before;                     /* predicted with the scenario's constants, per point */
	int ndropped;                       /* freed, but no point depends on them: */
	int dropped[CALIB_MAX_FREE];        /* kept at their start, not fitted */
	int dropped_grp[CALIB_MAX_FREE];    /* as grp */
	double dropped_at[CALIB_MAX_FREE];  /* the value they keep */
	int dof;                            /* npoints - p_eff, rounded; 0: the model error is assumed */
	double rms;                         /* RMS of the log residuals */
	double sd;                          /* sqrt(chi2 / dof): the model error intervals use */
	int nscn;                           /* the scenarios the cases ran on */
	struct calib_scn scn[CALIB_MAX_SCN];
};

/*
 * The constants the data of v can inform by default: collectives give NCCL's
 * step latency and bandwidth efficiency (or the SHM ones when the pairs bounce
 * through host memory), p2p matrices the copy latencies and rates, decode
 * steps memory efficiency and kernel launch cost, serving runs the kernel
 * floor and memory efficiency. Writes indices to idx, returns the count.
 */
int calib_default_free(const struct val_set *v, int *idx, int max);

/*
 * Fit the constants idx[0..n-1] to v's training points. Starts from each
 * case's scenario values; on return every case's scenario holds the fitted
 * values (marked set). r->before is allocated (free with calib_result_release).
 * A freed constant that no training point depends on (a 5% change moves no
 * prediction by more than 0.1%) is left at its value and listed in r->dropped.
 * A constant whose start is 0 starts inside its plausible range instead
 * (calib_start), r->moved says so. Cases on several scenarios make a joint
 * fit (calib.h, top). Errors: EINPUT for too few points, EUSAGE for a
 * constant named twice, more than CALIB_MAX_SCN scenarios, two scenarios
 * with one name or more than CALIB_MAX_FREE parameters; ERUNTIME for a
 * simulation error. A fit that stops without converging returns 0 with
 * r->converged 0 and the reason in r->status.
 */
int calib_fit(struct val_set *v, const int *idx, int n, struct calib_result *r,
	      struct plumb_err *err);
/* The same with options (o NULL: priors centred on the values in force).
 * Without priors, fewer training points than constants + 1 is EINPUT, the
 * message naming the constants and a --free the points can fit. */
int calib_fit_with(struct val_set *v, const int *idx, int n, const struct calib_opts *o,
		   struct calib_result *r, struct plumb_err *err);
void calib_result_release(struct calib_result *r);

/*
 * Of the n constants idx, those some training point of v depends on (a 5%
 * change moves it by more than 0.1%), at most max of them, the most
 * influential first kept; written to out (may be idx) in idx's order.
 * Returns their count or a negative plumb code.
 */
int calib_informed(struct val_set *v, const int *idx, int n, int max, int *out,
		   struct plumb_err *err);

/*
 * Where the fit starts constant k whose scenario value is v: v itself when
 * it is above 0; otherwise (the log-logistic map cannot leave 0) the
 * geometric middle of its plausible range, sqrt(plo * phi), or phi / 10
 * (the geometric middle of [phi / 100, phi]) when plo is 0.
 */
double calib_start(int k, double v);

/*
 * Is the fit too poor to write? 1 with the reasons in why (size n) when
 * R^2 < 0 or a fitted constant ends within CALIB_BOUND_EDGE of a bound of
 * its fit range (in the map's variable, log value scaled to [0, 1]).
 */
int calib_poor(const struct calib_result *r, char *why, size_t n);

/*
 * Is a fitted value outside its plausible range? 1 with the constants,
 * values and ranges in why (size n).
 */
int calib_implausible(const struct calib_result *r, char *why, size_t n);

/* Print the report: constants with standard errors, correlations, R^2,
 * residuals per point before and after, the error summary; values outside
 * their plausible range, starts moved off 0, skipped runs of multi-run
 * files, and the NCCL_P2P_LEVEL and hop transports collectives assumed. */
void calib_report(FILE *f, const struct val_set *v, const struct calib_result *r);

/*
 * Write the calibration file (YAML, through io/yout): what it was fitted
 * on, fitted constants (shared ones at top level, a joint fit's
 * per-scenario ones under `scenarios:`), their standard errors and units,
 * their covariance and the residual spread. files[0..nfiles) are every
 * data file. Values, standard errors and covariance are written "%.9g";
 * the same result gives the same bytes. Returns 0, or -PLUMB_ERUNTIME
 * (the emitter failed) or -PLUMB_EIO (writing f failed) with err naming
 * path; f then holds part of a file, for the caller to discard.
 */
int calib_write(FILE *f, const struct val_set *v, const struct calib_result *r,
		const char *const *files, int nfiles, const char *path, struct plumb_err *err);

#define CALIB_MAX_ENTRIES (K_NCONSTS + CALIB_MAX_FREE)
#define CALIB_MAX_SDLOG 1.0           /* a draw's spread in log(value) is capped here */

/* A loaded calibration file. */
struct calib_file {
	const char *path;                   /* whole (plumb_keep_path) */
	int n;
	int idx[CALIB_MAX_ENTRIES];
	int grp[CALIB_MAX_ENTRIES];         /* -1 top level, else scn[]: only for that scenario */
	double value[CALIB_MAX_ENTRIES];
	double se[CALIB_MAX_ENTRIES];       /* standard error: `standard_errors:`, else the
					       covariance's diagonal (older files), else 0 */
	int ncov;                           /* constants with a covariance */
	int cov_idx[CALIB_MAX_FREE];
	int cov_grp[CALIB_MAX_FREE];        /* as grp */
	double cov[CALIB_MAX_FREE * CALIB_MAX_FREE];
	double chol[CALIB_MAX_FREE * CALIB_MAX_FREE];   /* lower Cholesky factor */
	int has_chol;
	int npoints, dof;                   /* 0: not recorded (older file) */
	double sd;                          /* residual spread, 0: not recorded */
	int nblk;                           /* `model_error:` per data block */
	char blk[CALIB_MAX_BLK][32];
	double blk_sd[CALIB_MAX_BLK];
	int nscn;                           /* `fitted_on:`, 0 in older files */
	struct calib_scn scn[CALIB_MAX_SCN];
	int nwarned;                        /* scenario files already warned about */
	const char *warned[16];             /* their paths (kept: plumb_keep_path) */
};

/* Load a calibration file written by calib_write (errors with line/col,
 * among them a covariance that is not positive definite, and standard
 * errors of constants the file does not hold). Files without `fitted_on:`,
 * `scenarios:`, `standard_errors:`, `units:` or the residual spread (older
 * ones, which said standard errors and units in comments) still load. */
int calib_load(const char *path, struct calib_file *c, struct plumb_err *err);

/* Put c's top-level values into k (marked set). */
void calib_apply(const struct calib_file *c, struct plumb_consts *k);

/* Load path and apply it to k. */
int calib_apply_file(const char *path, struct plumb_consts *k, struct plumb_err *err);

/*
 * A scenario was loaded with c in force (scn_set_load_hook, arg = c):
 * put the per-scenario constants c has for a scenario of s's name into s,
 * and print to f what differs from what c was fitted on: GPU model (for
 * gpu-scope constants), serving engine (engine scope), box (box and vm
 * scope, applied from a single-box fit to another box) and whether
 * per-scenario constants were applied; each scenario file once.
 * calib_on_load is the hook form, writing to stderr.
 */
void calib_apply_scn(struct calib_file *c, struct scenario *s, FILE *f);
void calib_on_load(struct scenario *s, void *arg);

/*
 * The model error (log sd) of a prediction that depends on data block
 * `block`: that block's when c has one; for "decode" (a step or a
 * serving run) the decode block's, else the serving block's; else the
 * pooled residual spread c->sd.
 */
double calib_model_error(const struct calib_file *c, const char *block);

/* Draw one set of constants from c's covariance (log-normal: the
 * covariance carried to log(value), a standard error that is not finite
 * or more than CALIB_MAX_SDLOG in log capped there; clamped to the
 * constants' bounds) into k; k keeps its other values. A per-scenario
 * entry moves k only where k holds that entry's value (k belongs to the
 * scenario it was fitted for). */
void calib_sample(const struct calib_file *c, gsl_rng *rng, struct plumb_consts *k);

/*
 * Cross-validation of the fit on v's nccl-tests cases: for each, fit the
 * constants its data informs on every other message size and predict the
 * sizes left out, then the other way round. Writes a Markdown table (one
 * row per case) to f when f is not NULL. Every case's constants are left
 * as they were.
 */
struct calib_cross_summary {
	int ncases, npoints;          /* held-out predictions */
	double median;                /* over all held-out points */
	double worst_case_median;     /* the largest per-case median */
	double worst;                 /* the worst held-out point */
	char worst_case[160];         /* its case and point */
};
int calib_cross(struct val_set *v, FILE *f, struct calib_cross_summary *sum,
		struct plumb_err *err);

#endif
