/*
 * calib.c - the constants fit (calib.h): the constants data informs, the
 * multi-start posterior fit, its covariance and gradient check. The
 * prior and the map live in calib_prior.c, the report in calib_report.c,
 * identifiability, blocks and residual groups in calib_ident.c,
 * cross-validation in calib_cross.c, the file in calib_file.c.
 */
#include "calib.h"
#include "calib_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "p2ptest.h"

/* ---- the fit ---------------------------------------------------------- */

struct fctx {
	struct val_set *v;
	struct calib_result *r;
	const int *cg;              /* case -> fit group (fit_groups) */
	int *train;                 /* point indices */
	int n;
	int priors;                 /* append one prior residual per parameter */
	double s;                   /* the data residuals' weight 1 / s */
	int failed;
	struct plumb_err err;
};

/*
 * The fit's scenario groups: cases on one scenario file form one, counted
 * only when some of their points are training points. cg[c] gets case c's
 * group or -1; returns the count.
 */
static int fit_groups(const struct val_set *v, int *cg)
{
	int c, d, i, n = 0;
	for (c = 0; c < v->ncases; c++) {
		const struct val_case *vc = &v->cases[c];
		int train = 0;
		cg[c] = -1;
		for (i = vc->first_point; i < vc->first_point + vc->npoints; i++)
			train |= v->points[i].train;
		if (!train)
			continue;
		for (d = 0; d < c && cg[c] < 0; d++)
			if (cg[d] >= 0 && !strcmp(v->cases[d].scenario, vc->scenario))
				cg[c] = cg[d];
		if (cg[c] < 0)
			cg[c] = n++;
	}
	return n;
}

/* calib_int.h */
int calib_reaches(int g, const int *cg, int c)
{
	return g < 0 || (cg && cg[c] == g);
}

static void set_all(struct val_set *v, const struct calib_result *r, const int *cg,
		    const double *value)
{
	int c, j;
	for (c = 0; c < v->ncases; c++)
		for (j = 0; j < r->nfree; j++)
			if (calib_reaches(r->grp[j], cg, c)) {
				v->cases[c].scn->k.v[r->idx[j]] = value[j];
				v->cases[c].scn->k.set[r->idx[j]] = 1;
			}
}

static int residuals(const gsl_vector *x, void *params, gsl_vector *f)
{
	struct fctx *fc = params;
	double value[CALIB_MAX_FREE];
	int j, i;
	for (j = 0; j < fc->r->nfree; j++)
		value[j] = calib_to_value(gsl_vector_get(x, (size_t)j), fc->r->lo[j], fc->r->hi[j]);
	set_all(fc->v, fc->r, fc->cg, value);
	if (val_predict_train(fc->v, &fc->err) < 0) {
		fc->failed = 1;
		return GSL_EBADFUNC;
	}
	fc->r->evaluations++;
	for (i = 0; i < fc->n; i++) {
		const struct val_point *p = &fc->v->points[fc->train[i]];
		double res = p->predicted > 0 ? log(p->predicted / p->measured) : 50;
		gsl_vector_set(f, (size_t)i, (isfinite(res) ? res : 50) / fc->s);
	}
	if (fc->priors)
		for (j = 0; j < fc->r->nfree; j++)
			gsl_vector_set(f, (size_t)(fc->n + j), calib_prior_z(&fc->r->prior[j], value[j]));
	return GSL_SUCCESS;
}

/*
 * Forward-difference Jacobian with a fixed step in u: the simulator's times
 * are piecewise smooth (protocol and algorithm choices, clamps), so a step of
 * a few percent of each constant sees its effect where an infinitesimal one
 * can land on a flat piece.
 */
#define CALIB_DU 0.05

static int jacobian(const gsl_vector *x, void *params, gsl_matrix *J)
{
	struct fctx *fc = params;
	size_t n = x->size, m = J->size1, i, j;
	gsl_vector *f0 = gsl_vector_alloc(m), *f1 = gsl_vector_alloc(m), *xx = gsl_vector_alloc(n);
	int rc = GSL_SUCCESS;

	if (!f0 || !f1 || !xx) {
		rc = GSL_ENOMEM;
		goto out;
	}
	if ((rc = residuals(x, params, f0)) != GSL_SUCCESS)
		goto out;
	for (j = 0; j < n; j++) {
		gsl_vector_memcpy(xx, x);
		gsl_vector_set(xx, j, gsl_vector_get(x, j) + CALIB_DU);
		if ((rc = residuals(xx, params, f1)) != GSL_SUCCESS)
			goto out;
		for (i = 0; i < m; i++)
			gsl_matrix_set(J, i, j, (gsl_vector_get(f1, i) - gsl_vector_get(f0, i)) / CALIB_DU);
	}
out:
	(void)fc;
	if (f0)
		gsl_vector_free(f0);
	if (f1)
		gsl_vector_free(f1);
	if (xx)
		gsl_vector_free(xx);
	return rc;
}

static void err_summary(const struct val_set *v, const int *train, int n, const double *pred,
			double *median, double *max)
{
	double *e = malloc((size_t)(n > 0 ? n : 1) * sizeof(*e));
	int i;
	*median = *max = 0;
	if (!e)
		return;
	for (i = 0; i < n; i++)
		e[i] = fabs(pred[i] / v->points[train[i]].measured - 1);
	gsl_sort(e, 1, (size_t)n);
	if (n) {
		*median = gsl_stats_median_from_sorted_data(e, 1, (size_t)n);
		*max = e[n - 1];
	}
	free(e);
}

void calib_result_release(struct calib_result *r)
{
	free(r->before);
	r->before = NULL;
}


/* ---- the solver ---------------------------------------------------------- */

/* inv = (A + 0)^-1 for symmetric A (n x n, row-major) through its
 * eigenvalues, each taken at least lfloor. Returns 0, or -1 out of memory. */
static int sym_inverse(const double *A, int n, double lfloor, double *inv)
{
	gsl_matrix *m = gsl_matrix_alloc((size_t)n, (size_t)n);
	gsl_matrix *vec = gsl_matrix_alloc((size_t)n, (size_t)n);
	gsl_vector *val = gsl_vector_alloc((size_t)n);
	gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc((size_t)n);
	int i, j, k, rc = -1;
	if (!m || !vec || !val || !w)
		goto out;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			gsl_matrix_set(m, (size_t)i, (size_t)j, A[i * n + j]);
	if (gsl_eigen_symmv(m, val, vec, w) != GSL_SUCCESS)
		goto out;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			double s = 0;
			for (k = 0; k < n; k++)
				s += gsl_matrix_get(vec, (size_t)i, (size_t)k) *
				     gsl_matrix_get(vec, (size_t)j, (size_t)k) /
				     fmax(gsl_vector_get(val, (size_t)k), lfloor);
			inv[i * n + j] = s;
		}
	rc = 0;
out:
	if (m)
		gsl_matrix_free(m);
	if (vec)
		gsl_matrix_free(vec);
	if (val)
		gsl_vector_free(val);
	if (w)
		gsl_eigen_symmv_free(w);
	return rc;
}

/* The training points' log residuals at value into res (fc->n). */
static int log_residuals(struct fctx *fc, const double *value, double *res)
{
	int i;
	set_all(fc->v, fc->r, fc->cg, value);
	if (val_predict_train(fc->v, &fc->err) < 0) {
		fc->failed = 1;
		return -1;
	}
	fc->r->evaluations++;
	for (i = 0; i < fc->n; i++) {
		const struct val_point *p = &fc->v->points[fc->train[i]];
		double e = p->predicted > 0 ? log(p->predicted / p->measured) : 50;
		res[i] = isfinite(e) ? e : 50;
	}
	return 0;
}

/*
 * Central-difference Jacobian of the log residuals in log(value), a step
 * of 5% each way (kept inside the fit bounds): Jd[i * n + j]. res gets
 * the residuals at value.
 */
#define CALIB_DLOG 0.05

static int log_jacobian(struct fctx *fc, const double *value, double *res, double *Jd)
{
	struct calib_result *r = fc->r;
	int n = r->nfree, i, j;
	double vv[CALIB_MAX_FREE], *rp = malloc((size_t)fc->n * 2 * sizeof(double)), *rm;
	if (!rp)
		return plumb_err_set(&fc->err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory"), fc->failed = 1, -1;
	rm = rp + fc->n;
	if (log_residuals(fc, value, res) < 0)
		goto fail;
	for (j = 0; j < n; j++) {
		double up = fmin(value[j] * exp(CALIB_DLOG), r->hi[j]);
		double dn = fmax(value[j] * exp(-CALIB_DLOG), r->lo[j]);
		memcpy(vv, value, (size_t)n * sizeof(double));
		vv[j] = up;
		if (log_residuals(fc, vv, rp) < 0)
			goto fail;
		vv[j] = dn;
		if (log_residuals(fc, vv, rm) < 0)
			goto fail;
		for (i = 0; i < fc->n; i++)
			Jd[i * n + j] = up > dn ? (rp[i] - rm[i]) / log(up / dn) : 0;
	}
	free(rp);
	return 0;
fail:
	free(rp);
	return -1;
}

/* Run the trust-region driver from value0; on return x holds where it
 * stopped and *obj the objective there. Returns GSL's status, or
 * GSL_EBADFUNC when a simulation failed (fc->failed). */
static int run_from(struct fctx *fc, gsl_multifit_nlinear_fdf *fdf,
		    gsl_multifit_nlinear_workspace *w, const double *value0, int maxiter,
		    gsl_vector *x, double *obj, int *iters)
{
	struct calib_result *r = fc->r;
	int j, info = 0, status;
	for (j = 0; j < r->nfree; j++)
		gsl_vector_set(x, (size_t)j, calib_to_u(value0[j], r->lo[j], r->hi[j]));
	if ((status = gsl_multifit_nlinear_init(x, fdf, w)) != GSL_SUCCESS)
		return fc->failed ? GSL_EBADFUNC : status;
	status = gsl_multifit_nlinear_driver((size_t)maxiter, 1e-8, 1e-8, 1e-12, NULL, NULL, &info, w);
	if (fc->failed)
		return GSL_EBADFUNC;
	*iters += (int)gsl_multifit_nlinear_niter(w);
	gsl_vector_memcpy(x, gsl_multifit_nlinear_position(w));
	gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w), obj);
	return status;
}

/* The weighted objective at value (data / s and prior residuals). */
static int objective_at(struct fctx *fc, const double *value, double *res, double *obj)
{
	int i, j;
	if (log_residuals(fc, value, res) < 0)
		return -1;
	*obj = 0;
	for (i = 0; i < fc->n; i++)
		*obj += res[i] * res[i] / (fc->s * fc->s);
	if (fc->priors)
		for (j = 0; j < fc->r->nfree; j++) {
			double z = calib_prior_z(&fc->r->prior[j], value[j]);
			*obj += z * z;
		}
	return 0;
}

static const char *const start_names[] = {
	"the values before the fit", "the prior's medians", "the prior's 5% quantiles",
	"the prior's 95% quantiles", "the prior's 5% and 95% quantiles alternating",
	"the prior's 95% and 5% quantiles alternating"
};
#define NSTARTS 6
#define Z95 1.6448536269514722

/* Start k's values into value. */
static void start_values(const struct calib_result *r, int k, double *value)
{
	int j;
	for (j = 0; j < r->nfree; j++) {
		double z = k == 2 ? -Z95 : k == 3 ? Z95 : k == 4 ? (j % 2 ? Z95 : -Z95) :
			   k == 5 ? (j % 2 ? -Z95 : Z95) : 0;
		value[j] = k == 0 ? r->start[j] : calib_prior_at(&r->prior[j], z);
		if (value[j] <= r->lo[j] || value[j] >= r->hi[j])
			value[j] = r->start[j];
	}
}

/*
 * Minimise from every start, keep the best, restart from it until the
 * objective stops falling. best gets the values, *obj the objective.
 */
static int solve(struct fctx *fc, gsl_multifit_nlinear_fdf *fdf, gsl_multifit_nlinear_workspace *w,
		 gsl_vector *x, int nstarts, double *best, double *obj)
{
	struct calib_result *r = fc->r;
	double value[CALIB_MAX_FREE], o;
	int k, j, round, status;
	*obj = INFINITY;
	for (k = 0; k < nstarts; k++) {
		if (k >= 4 && r->nfree < 2)
			break;
		if (k > 0 || nstarts > 1)
			start_values(r, k, value);
		else
			memcpy(value, best, (size_t)r->nfree * sizeof(double));
		status = run_from(fc, fdf, w, value, 60, x, &o, &r->iterations);
		if (status == GSL_EBADFUNC)
			return -1;
		if (k == 0 || o < *obj) {
			*obj = o;
			r->best_start = k;
			for (j = 0; j < r->nfree; j++)
				best[j] = calib_to_value(gsl_vector_get(x, (size_t)j), r->lo[j], r->hi[j]);
		}
		r->nstarts = k + 1 > r->nstarts ? k + 1 : r->nstarts;
	}
	/* Converged is judged on the objective: restart until it stops falling. */
	for (round = 0; round < 8; round++) {
		status = run_from(fc, fdf, w, best, 200, x, &o, &r->iterations);
		if (status == GSL_EBADFUNC)
			return -1;
		if (!(o < *obj))
			break;
		for (j = 0; j < r->nfree; j++)
			best[j] = calib_to_value(gsl_vector_get(x, (size_t)j), r->lo[j], r->hi[j]);
		if (*obj - o <= 1e-9 * (1 + *obj)) {
			*obj = o;
			break;
		}
		*obj = o;
	}
	return 0;
}

/* The names of r's parameters, comma-separated, into buf. */
static void names_of(const struct calib_result *r, const int *idx, const int *grp, int n,
		     char *buf, size_t len)
{
	char nb[160];
	size_t l = 0;
	int j;
	buf[0] = '\0';
	for (j = 0; j < n && l + 1 < len; j++) {
		const char *nm = plumb_const_defs[idx[j]].name;
		if (grp && grp[j] >= 0) {
			snprintf(nb, sizeof(nb), "%s@%s", nm, r->scn[grp[j]].name);
			nm = nb;
		}
		l += (size_t)snprintf(buf + l, len - l, "%s%s", j ? "," : "", nm);
	}
}

int calib_fit(struct val_set *v, const int *idx, int n, struct calib_result *r,
	      struct plumb_err *err)
{
	return calib_fit_with(v, idx, n, NULL, r, err);
}

int calib_fit_with(struct val_set *v, const int *idx, int n, const struct calib_opts *o,
		   struct calib_result *r, struct plumb_err *err)
{
	const gsl_multifit_nlinear_type *T = gsl_multifit_nlinear_trust;
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w = NULL;
	gsl_multifit_nlinear_fdf fdf;
	gsl_vector *x = NULL;
	struct fctx fc;
	enum calib_prior_mode mode = o ? o->prior : CALIB_PRIOR_SCENARIO;
	double value[CALIB_MAX_FREE], *pred = NULL, *res = NULL, *Jd = NULL, mean = 0, sstot = 0;
	double P[CALIB_MAX_FREE], H[CALIB_MAX_FREE * CALIB_MAX_FREE], C[CALIB_MAX_FREE * CALIB_MAX_FREE];
	double g[CALIB_MAX_FREE], obj = 0, chi2, sw, shat, resid_dof;
	int pidx[CALIB_MAX_FREE], pgrp[CALIB_MAX_FREE], np = 0, *cg = NULL, ng, gi;
	int i, j, k, rc = 0, pass, round;

	memset(r, 0, sizeof(*r));
	memset(&fc, 0, sizeof(fc));
	if (n < 1 || n > CALIB_MAX_FREE)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "free 1 to %d constants, not %d", CALIB_MAX_FREE, n);
	if (v->ncases < 1)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "no data to fit");
	for (j = 0; j < n; j++)
		for (i = 0; i < j; i++)
			if (idx[i] == idx[j])
				return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
						     "constant '%s' is freed twice",
						     plumb_const_defs[idx[j]].name);
	cg = malloc((size_t)v->ncases * sizeof(*cg));
	if (!cg)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	ng = fit_groups(v, cg);
	if (ng > CALIB_MAX_SCN) {
		rc = plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				   "a joint calibration takes at most %d scenarios, not %d", CALIB_MAX_SCN, ng);
		goto out;
	}
	r->nscn = ng;
	r->priors = mode != CALIB_PRIOR_NONE;
	for (gi = 0; gi < ng; gi++) {
		calib_describe(v, cg, gi, &r->scn[gi]);
		for (j = 0; j < gi; j++)
			if (!strcmp(r->scn[j].name, r->scn[gi].name)) {
				rc = plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
						   "%s and %s are both named '%s': a joint calibration keeps "
						   "per-scenario constants by name",
						   r->scn[j].file ? r->scn[j].file : "?",
						   r->scn[gi].file ? r->scn[gi].file : "?", r->scn[gi].name);
				goto out;
			}
	}
	/* One parameter per shared constant; one per scenario for box- and
	 * vm-scope ones in a joint fit. */
	for (j = 0; j < n; j++)
		for (gi = consts_shared(idx[j]) || ng < 2 ? -1 : 0; gi < (consts_shared(idx[j]) || ng < 2 ? 0 : ng); gi++) {
			if (np >= CALIB_MAX_FREE) {
				rc = plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
						   "%d scenarios make more than %d parameters of these constants: "
						   "free fewer", ng, CALIB_MAX_FREE);
				goto out;
			}
			pidx[np] = idx[j];
			pgrp[np++] = gi;
		}
	if ((rc = calib_drop_uninformed(v, pidx, pgrp, cg, np, r, err)) < 0)
		goto out;
	n = r->nfree;
	if (n < 1) {
		rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				   "no measured point depends on the constants freed (%s%s): "
				   "moving one by 5%% moves no point by 0.1%%",
				   plumb_const_defs[r->dropped[0]].name, r->ndropped > 1 ? ", ..." : "");
		goto out;
	}
	/* From the defaults: the freed constants start at the table's values
	 * whatever the scenario and its catalog say. */
	if (mode == CALIB_PRIOR_DEFAULTS)
		for (j = 0; j < n; j++)
			for (i = 0; i < v->ncases; i++)
				if (cg[i] >= 0 && calib_reaches(r->grp[j], cg, i))
					v->cases[i].scn->k.v[r->idx[j]] = plumb_const_defs[r->idx[j]].def;
	for (j = 0; j < n; j++) {
		double sv = v->cases[0].scn->k.v[r->idx[j]];
		for (i = v->ncases - 1; i >= 0; i--)
			if (cg[i] >= 0 && calib_reaches(r->grp[j], cg, i))
				sv = v->cases[i].scn->k.v[r->idx[j]];
		r->given[j] = sv;
		r->start[j] = calib_start(r->idx[j], sv);
		r->moved[j] = !(sv > 0);
		calib_prior_of(r->idx[j], sv, &r->prior[j]);
		calib_bounds(r->idx[j], r->start[j], &r->lo[j], &r->hi[j]);
		P[j] = 0;
	}
	fc.v = v;
	fc.r = r;
	fc.cg = cg;
	fc.priors = r->priors;
	fc.s = r->priors ? CALIB_S0 : 1;
	fc.train = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof(int));
	if (!fc.train) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < v->npoints; i++)
		if (v->points[i].train)
			fc.train[fc.n++] = i;
	r->npoints = fc.n;
	if (fc.n < 1 || (!r->priors && fc.n < n + 1)) {
		char names[1024], fit[1024];
		int fidx[CALIB_MAX_FREE] = { 0 }, m = 0;
		names_of(r, r->idx, r->grp, n, names, sizeof(names));
		/* the most informative ones the points can fit */
		if (fc.n >= 2) {
			int keep[CALIB_MAX_FREE];
			if ((m = calib_informed(v, r->idx, n, fc.n - 1, keep, err)) < 0) {
				rc = m;
				goto out;
			}
			for (j = 0; j < m; j++)
				fidx[j] = keep[j];
		}
		names_of(r, fidx, NULL, m, fit, sizeof(fit));
		rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				   "%d measured point%s cannot fit %d constant%s (%s) without priors: "
				   "give at least %d points, drop --no-priors (the priors hold what the data "
				   "cannot), or free fewer%s%s",
				   fc.n, fc.n == 1 ? "" : "s", n, n == 1 ? "" : "s", names, n + 1,
				   m ? ", e.g. --free " : "", m ? fit : "");
		goto out;
	}
	/* Error before: the scenario's constants as given. */
	if ((rc = val_predict_train(v, err)) < 0)
		goto out;
	r->before = malloc((size_t)fc.n * sizeof(double));
	pred = malloc((size_t)fc.n * sizeof(double));
	res = malloc((size_t)fc.n * sizeof(double));
	Jd = malloc((size_t)fc.n * (size_t)n * sizeof(double));
	if (!r->before || !pred || !res || !Jd) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < fc.n; i++)
		r->before[i] = v->points[fc.train[i]].predicted;
	err_summary(v, fc.train, fc.n, r->before, &r->before_median, &r->before_max);

	w = gsl_multifit_nlinear_alloc(T, &fp, (size_t)(fc.n + (fc.priors ? n : 0)), (size_t)n);
	x = gsl_vector_alloc((size_t)n);
	if (!w || !x) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	memset(&fdf, 0, sizeof(fdf));
	fdf.f = residuals;
	fdf.df = jacobian;
	fdf.fvv = NULL;
	fdf.n = (size_t)(fc.n + (fc.priors ? n : 0));
	fdf.p = (size_t)n;
	fdf.params = &fc;
	/* Pass 1 from every start with the assumed model error; with priors a
	 * second pass from its optimum with the model error it left. */
	for (pass = 0; pass < (fc.priors ? 2 : 1); pass++) {
		if (solve(&fc, &fdf, w, x, pass ? 1 : NSTARTS, value, &obj) < 0)
			goto failed;
		if (!fc.priors)
			break;
		if (log_residuals(&fc, value, res) < 0)
			goto failed;
		for (chi2 = 0, i = 0; i < fc.n; i++)
			chi2 += res[i] * res[i];
		fc.s = fmax(sqrt(chi2 / fc.n), CALIB_S_FLOOR);
	}
	/* Final values, information, posterior covariance, gradient check:
	 * a Newton step from the optimum that would move it by more than a
	 * tenth of a standard error is tried; when it lowers the objective the
	 * solver goes on from there, else the optimum stands (the gradient is
	 * the simulator's kinks, not a slope). */
	for (round = 0;; round++) {
		double nv[CALIB_MAX_FREE], nobj, scale;
		if (log_jacobian(&fc, value, res, Jd) < 0)
			goto failed;
		for (chi2 = 0, i = 0; i < fc.n; i++)
			chi2 += res[i] * res[i];
		sw = fc.s;
		for (j = 0; j < n; j++) {
			double z = calib_prior_z(&r->prior[j], value[j]);
			double sd = calib_prior_sd(&r->prior[j], value[j]);
			P[j] = fc.priors ? 1 / (sd * sd) : 0;
			g[j] = fc.priors ? z / sd : 0;
			for (i = 0; i < fc.n; i++)
				g[j] += Jd[i * n + j] * res[i] / (sw * sw);
		}
		for (j = 0; j < n; j++)
			for (k = 0; k < n; k++) {
				double s = 0;
				for (i = 0; i < fc.n; i++)
					s += Jd[i * n + j] * Jd[i * n + k];
				r->info[j * n + k] = s / (sw * sw);
				H[j * n + k] = r->info[j * n + k] + (j == k ? P[j] : 0);
			}
		{
			/* Without priors a direction the data cannot see keeps the
			 * fit range's spread (a quarter of its log width), not
			 * infinity. */
			double lf = INFINITY;
			for (j = 0; j < n; j++) {
				double cap = log(r->hi[j] / r->lo[j]) / 4;
				lf = fmin(lf, 1 / (cap * cap));
			}
			if (sym_inverse(H, n, fc.priors ? 1e-300 : lf, C) < 0) {
				rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
				goto out;
			}
		}
		r->decrement = 0;
		for (j = 0; j < n; j++)
			for (k = 0; k < n; k++)
				r->decrement += g[j] * C[j * n + k] * g[k];
		/* in squared standard errors: without priors the objective is
		 * not weighted by the model error */
		scale = fc.priors ? 1 : fmax(chi2 / fmax(fc.n - n, 1), 1e-12);
		r->decrement /= scale;
		if (r->decrement <= 0.01) {
			r->converged = 1;
			break;
		}
		if (round >= 4)
			break;
		for (j = 0; j < n; j++) {
			double d = 0;
			for (k = 0; k < n; k++)
				d -= C[j * n + k] * g[k];
			nv[j] = fmin(fmax(value[j] * exp(d), r->lo[j] * 1.000001), r->hi[j] / 1.000001);
		}
		if (objective_at(&fc, nv, res, &nobj) < 0)
			goto failed;
		if (!(nobj < obj - 1e-9 * (1 + obj))) {
			r->converged = 1;       /* judged on the objective */
			break;
		}
		memcpy(value, nv, (size_t)n * sizeof(double));
		if (solve(&fc, &fdf, w, x, 1, value, &obj) < 0)
			goto failed;
		if (nobj < obj) {
			memcpy(value, nv, (size_t)n * sizeof(double));
			obj = nobj;
		}
	}
	r->objective = obj;
	r->s = sw;
	r->p_eff = n;
	if (fc.priors)
		for (j = 0; j < n; j++)
			r->p_eff -= C[j * n + j] * P[j];
	resid_dof = fc.n - r->p_eff;
	shat = resid_dof >= 1 ? sqrt(chi2 / resid_dof) : CALIB_S0;
	r->chi2 = chi2;
	r->rms = sqrt(chi2 / fc.n);
	r->sd = fc.priors ? fmax(shat, CALIB_S_FLOOR) : shat;
	/* With priors, fewer than one residual degree of freedom leaves the
	 * model error assumed (CALIB_S0), not estimated: dof 0 (intervals
	 * then draw it normal, not Student's t). */
	r->dof = fc.priors ? (resid_dof >= 1 ? (int)floor(resid_dof + 0.5) : 0) : fc.n - n;
	for (j = 0; j < n; j++)
		for (k = 0; k < n; k++) {
			/* without priors the covariance scales with the residual variance */
			double c = fc.priors ? C[j * n + k] : C[j * n + k] * shat * shat;
			r->cov[j * n + k] = c * value[j] * value[k];
			if (j == k)
				r->sdlog[j] = sqrt(fmax(c, 0));
		}
	/* never a non-finite spread: the prior's instead, uncorrelated */
	for (j = 0; j < n; j++)
		if (!isfinite(r->sdlog[j])) {
			r->sdlog[j] = calib_prior_sd(&r->prior[j], value[j]);
			for (k = 0; k < n; k++)
				r->cov[j * n + k] = r->cov[k * n + j] = 0;
			r->cov[j * n + j] = pow(r->sdlog[j] * value[j], 2);
		}
	for (j = 0; j < n; j++) {
		r->value[j] = value[j];
		r->se[j] = value[j] * r->sdlog[j];
		/* inside the fit bounds (a fraction's stop at 1), the value always inside */
		r->ci_lo[j] = fmax(value[j] * exp(-Z95 * r->sdlog[j]), fmin(r->lo[j], value[j]));
		r->ci_hi[j] = fmin(value[j] * exp(Z95 * r->sdlog[j]), fmax(r->hi[j], value[j]));
	}
	snprintf(r->status, sizeof(r->status),
		 "%s: best of %d starts (from %s), %d iterations in all; gradient check %s "
		 "(a Newton step would move the constants by %.2g standard errors%s)",
		 r->converged ? "converged" : "did not converge", r->nstarts, start_names[r->best_start],
		 r->iterations, r->converged ? "passed" : "failed", sqrt(r->decrement),
		 r->decrement > 0.01 && r->converged ? " and does not lower the objective" : "");
	/* Leave the fitted values in every scenario and predict with them. */
	set_all(v, r, cg, r->value);
	if ((rc = val_predict_train(v, err)) < 0)
		goto out;
	for (i = 0; i < fc.n; i++) {
		double lm = log(v->points[fc.train[i]].measured);
		pred[i] = v->points[fc.train[i]].predicted;
		res[i] = log(pred[i] / v->points[fc.train[i]].measured);
		mean += lm / fc.n;
	}
	for (i = 0; i < fc.n; i++) {
		double d = log(v->points[fc.train[i]].measured) - mean;
		sstot += d * d;
	}
	r->r2 = sstot > 0 ? 1 - r->chi2 / sstot : 1;
	err_summary(v, fc.train, fc.n, pred, &r->after_median, &r->after_max);
	calib_blocks(v, fc.train, res, fc.n, resid_dof >= 1 ? fc.n / resid_dof : 1, r);
	goto out;
failed:
	if (fc.failed) {
		*err = fc.err;
		rc = -plumb_err_status(&fc.err);
	} else {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "the fit could not run");
	}
out:
	free(cg);
	free(pred);
	free(res);
	free(Jd);
	free(fc.train);
	if (w)
		gsl_multifit_nlinear_free(w);
	if (x)
		gsl_vector_free(x);
	return rc;
}
