/*
 * calib.h - fitting the model's named constants to measurements, and the
 * calibration file every command accepts (`--calib FILE`).
 *
 * The fit is nonlinear least squares (GSL gsl_multifit_nlinear, trust region,
 * forward-difference Jacobian with a step of a few percent, as simulated
 * times are piecewise smooth) on the residuals log(predicted / measured) of
 * the training points of a struct val_set (models/valid): every evaluation
 * re-simulates the points with the trial constants. Each free constant is
 * kept inside its bounds by a log-logistic map from an unbounded variable.
 * Standard errors come from the covariance (J^T J)^-1 scaled by the residual
 * variance, carried to the constants by the map's derivative; correlations
 * from the same matrix.
 */
#ifndef PLUMB_CALIB_H
#define PLUMB_CALIB_H

#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "consts.h"
#include "valid.h"

#define CALIB_MAX_FREE 16

struct calib_result {
	int nfree;
	int idx[CALIB_MAX_FREE];            /* enum plumb_const of each free constant */
	double value[CALIB_MAX_FREE];       /* fitted */
	double start[CALIB_MAX_FREE];       /* before the fit */
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
	double *before;                     /* predicted with the starting constants, per point */
	int ndropped;                       /* freed, but no point depends on them: */
	int dropped[CALIB_MAX_FREE];        /* kept at their start, not fitted */
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
 * Errors: EINPUT for too few points, EUSAGE for a constant named twice; ERUNTIME for
 * a simulation error. A fit that stops without converging returns 0 with
 * r->converged 0 and the reason in r->status.
 */
int calib_fit(struct val_set *v, const int *idx, int n, struct calib_result *r,
	      struct plumb_err *err);
void calib_result_release(struct calib_result *r);

/*
 * Of the n constants idx, those some training point of v depends on (a 5%
 * change moves it by more than 0.1%), at most max of them, the most
 * influential first kept; written to out (may be idx) in idx's order.
 * Returns their count or a negative plumb code.
 */
int calib_informed(struct val_set *v, const int *idx, int n, int max, int *out,
		   struct plumb_err *err);

/* Print the report: constants with standard errors, correlations, R^2,
 * residuals per point before and after, the error summary. */
void calib_report(FILE *f, const struct val_set *v, const struct calib_result *r);

/* Write the calibration file (YAML): fitted constants and their covariance. */
void calib_write(FILE *f, const struct val_set *v, const struct calib_result *r,
		 const char *const *files, int nfiles);

/* A loaded calibration file. */
struct calib_file {
	int n;
	int idx[K_NCONSTS];
	double value[K_NCONSTS];
	int ncov;                           /* constants with a covariance */
	int cov_idx[CALIB_MAX_FREE];
	double cov[CALIB_MAX_FREE * CALIB_MAX_FREE];
	double chol[CALIB_MAX_FREE * CALIB_MAX_FREE];   /* lower Cholesky factor */
	int has_chol;
};

/* Load a calibration file written by calib_write (errors with line/col,
 * among them a covariance that is not positive definite). */
int calib_load(const char *path, struct calib_file *c, struct plumb_err *err);

/* Put c's values into k (marked set). */
void calib_apply(const struct calib_file *c, struct plumb_consts *k);

/* Load path and apply it to k. */
int calib_apply_file(const char *path, struct plumb_consts *k, struct plumb_err *err);

/* Draw one set of constants from c's covariance (normal, clamped to the
 * constants' bounds) into k; k keeps its other values. */
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
