/*
 * valid_err.c - the model error of plumb's decode and serving predictions,
 * measured on the out-of-sample validation points, and the 90% ranges it
 * gives.
 *
 * A range is what `plumb predict` draws: the constants the scenario leaves at
 * their defaults drawn over their plausible ranges, each draw's value times a
 * log-normal model error exp(sd z) (tok/s; a time, TPOT, a step or TTFT, is
 * divided by it), the 5th to 95th percentile of the draws. The constants'
 * draws and z come from the caller (plumb's interval code, val_draws_fn), once
 * per row with sd = 1, so that a range for any sd is a re-sort of stored
 * values, not another simulation.
 *
 * The spread sd of a quantity (rates: tok/s, TPOT, decode steps; TTFT) is the
 * smallest that puts 90% of a set of out-of-sample points inside their
 * ranges. The published one (the constants tok_err_sd, ttft_err_sd) uses
 * every out-of-sample point; the range a point is scored against uses the
 * spread of the points of every other case (leave one case out), so no point
 * sets the width of its own range. Points of fitted cases get ranges too
 * (with the published spread) but are never scored.
 */
#include "valid_int.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "consts.h"

#define SD_MAX 2.0
#define SD_STEP 0.0025

/* The draws of one rate or TTFT point. */
struct pdraws {
	int p;                  /* point index */
	int q;                  /* enum val_qty */
	double sign;            /* +1 a rate that grows with speed, -1 a time */
	double lmeas;           /* log measured */
	double *lv;             /* ndraws log values (NAN: none) */
	double *z;              /* ndraws standard normals of the model error */
};

struct val_spread {
	int ndraws;
	int n;
	struct pdraws *pd;
	double sd_all[VAL_NQ];  /* from every out-of-sample point (-1: none) */
	int n_oos[VAL_NQ];
	int in_loo[VAL_NQ];     /* out-of-sample points inside their LOO range */
	int in_pub[VAL_NQ];     /* ... inside the range of the shipped constant */
	double sd_const[VAL_NQ];
	double sd_loo_lo[VAL_NQ], sd_loo_hi[VAL_NQ];
};

static int is_time(const struct val_set *v, const struct val_point *p)
{
	const struct val_case *c = &v->cases[p->c];
	return c->kind == VAL_DECODE || p->group == VAL_SRV_TPOT || p->group == VAL_SRV_TTFT ||
	       p->group == VAL_SRV_XFER;
}

/* The 90% range of pd at spread sd, in log units; tmp holds ndraws. */
static void range_at(const struct val_spread *s, const struct pdraws *pd, double sd, double *tmp,
		     double *llo, double *lhi)
{
	int i, n = 0;
	for (i = 0; i < s->ndraws; i++)
		if (!isnan(pd->lv[i]))
			tmp[n++] = pd->lv[i] + pd->sign * sd * pd->z[i];
	*llo = *lhi = NAN;
	if (n < 2)
		return;
	qsort(tmp, (size_t)n, sizeof(*tmp), val_cmp_double);
	{
		double a = 0.05 * (n - 1), b = 0.95 * (n - 1);
		int ia = (int)a, ib = (int)b;
		*llo = tmp[ia] + (ia + 1 < n ? (a - ia) * (tmp[ia + 1] - tmp[ia]) : 0);
		*lhi = tmp[ib] + (ib + 1 < n ? (b - ib) * (tmp[ib + 1] - tmp[ib]) : 0);
	}
}

static int inside(const struct val_spread *s, const struct pdraws *pd, double sd, double *tmp)
{
	double lo, hi;
	range_at(s, pd, sd, tmp, &lo, &hi);
	return !isnan(lo) && pd->lmeas >= lo && pd->lmeas <= hi;
}

/* Out-of-sample points of quantity q, leaving case `skip` out (-1: none)
 * and the measurement artefacts its case names (they set no range). */
static int oos(const struct val_set *v, const struct pdraws *pd, int q, int skip)
{
	const struct val_case *c = &v->cases[v->points[pd->p].c];
	return pd->q == q && !VAL_CASE_FITTED(c) && v->points[pd->p].c != skip &&
	       !v->points[pd->p].artefact;
}

/* The smallest spread putting 90% of the selected points inside; -1 when no
 * point is selected. */
static double fit_sd(const struct val_set *v, const struct val_spread *s, int q, int skip,
		     double *tmp)
{
	double sd;
	int i, n = 0;
	for (i = 0; i < s->n; i++)
		n += oos(v, &s->pd[i], q, skip);
	if (!n)
		return -1;
	for (sd = 0; sd < SD_MAX; sd += SD_STEP) {
		int in = 0;
		for (i = 0; i < s->n; i++)
			if (oos(v, &s->pd[i], q, skip))
				in += inside(s, &s->pd[i], sd, tmp);
		if (in >= 0.9 * n)
			return sd;
	}
	return SD_MAX;
}

void val_spread_free(struct val_spread *s)
{
	int i;
	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->pd[i].lv);
		free(s->pd[i].z);
	}
	free(s->pd);
	free(s);
}

/* The constants' draws of one case, and which of them hold a draw. */
struct cdraws {
	struct plumb_consts *ks;
	double *mult;
	int have;               /* 0: nothing drawn, the model error alone */
};

/* One decode or serving row to simulate under every draw: its points are
 * pd[first .. first + n). */
struct rowjob {
	int ci, row, first, n;
};

/* Set up the draws of case ci (fn, one call) and a row job per row with a
 * rate or TTFT point, each point's pdraws allocated. */
static int case_setup(struct val_set *v, struct val_spread *s, int ci, val_draws_fn fn,
		      struct cdraws *cd, struct rowjob *jobs, int *njobs, struct plumb_err *err)
{
	struct val_case *c = &v->cases[ci];
	struct plumb_consts k = c->scn->k;
	int p, d, r, rc;

	/* sd 1: each draw's factor is exp(z) */
	k.v[K_TOK_ERR_SD] = 1;
	cd->ks = malloc((size_t)s->ndraws * sizeof(*cd->ks));
	cd->mult = malloc((size_t)s->ndraws * sizeof(*cd->mult));
	if (!cd->ks || !cd->mult)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = fn(&k, s->ndraws, cd->ks, cd->mult, err)) < 0)
		return rc;
	cd->have = rc > 0;
	if (!cd->have)  /* nothing drawn: the model error alone, z of its own */
		for (d = 0; d < s->ndraws; d++)
			cd->mult[d] = exp(val_err_z(d));
	for (r = 0; r < (c->serving ? c->serving->nrows : 0); r++) {
		int first = s->n;
		for (p = c->first_point; p < c->first_point + c->npoints; p++) {
			const struct val_point *pt = &v->points[p];
			struct pdraws *pd;
			if (pt->row != r || val_point_qty(v, pt) == VAL_Q_LINK)
				continue;
			pd = &s->pd[s->n++];
			memset(pd, 0, sizeof(*pd));
			pd->p = p;
			pd->q = val_point_qty(v, pt);
			pd->sign = is_time(v, pt) ? -1 : 1;
			pd->lmeas = log(pt->measured);
			pd->lv = malloc((size_t)s->ndraws * sizeof(double));
			pd->z = malloc((size_t)s->ndraws * sizeof(double));
			if (!pd->lv || !pd->z)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			for (d = 0; d < s->ndraws; d++) {
				/* tok/s: the draw's factor at sd 1 is exp(z);
				 * TTFT: its own normal (val_ttft_err_factor) */
				pd->z[d] = pd->q == VAL_Q_TTFT ? val_err_z(d) :
					   cd->mult[d] > 0 ? log(cd->mult[d]) : 0;
				pd->lv[d] = pt->predicted > 0 && isfinite(pt->predicted) ?
					    log(pt->predicted) : NAN;
			}
		}
		if (s->n > first) {
			jobs[*njobs].ci = ci;
			jobs[*njobs].row = r;
			jobs[*njobs].first = first;
			jobs[*njobs].n = s->n - first;
			(*njobs)++;
		}
	}
	return 0;
}

/* The row jobs shared by the worker threads. */
struct pool {
	struct val_set *v;
	struct val_spread *s;
	const struct cdraws *cd;        /* per case */
	const struct rowjob *jobs;
	int njobs, next, failed;
	struct plumb_err err;           /* the first failure's */
	pthread_mutex_t mu;
};

/* Simulate a job's row under each draw on the thread's copy of its case's
 * scenario; the values go to the job's own points, so the result does not
 * depend on which thread runs it. */
static void *pool_run(void *arg)
{
	struct pool *pl = arg;
	struct scenario *copy = NULL;
	int copy_ci = -1;
	for (;;) {
		const struct rowjob *jb;
		const struct cdraws *cd;
		struct val_case *c;
		struct plumb_err e;
		int d, j, rc = 0;
		pthread_mutex_lock(&pl->mu);
		if (pl->failed || pl->next >= pl->njobs) {
			pthread_mutex_unlock(&pl->mu);
			break;
		}
		jb = &pl->jobs[pl->next++];
		pthread_mutex_unlock(&pl->mu);
		cd = &pl->cd[jb->ci];
		c = &pl->v->cases[jb->ci];
		if (!cd->have)
			continue;       /* the prediction itself, set up already */
		plumb_err_clear(&e);
		if (copy_ci != jb->ci) {
			scn_free(copy);
			copy = NULL;
			copy_ci = jb->ci;
			rc = scn_dup(c->scn, &copy, &e);
		}
		for (d = 0; rc == 0 && d < pl->s->ndraws; d++) {
			double vals[VAL_ROW_NV];
			copy->k = cd->ks[d];
			if ((rc = val_row_values(c, copy, jb->row, vals, &e)) < 0)
				break;
			for (j = jb->first; j < jb->first + jb->n; j++) {
				struct pdraws *pd = &pl->s->pd[j];
				double x = vals[c->kind == VAL_DECODE ? 0 : pl->v->points[pd->p].group];
				pd->lv[d] = x > 0 && isfinite(x) ? log(x) : NAN;
			}
		}
		if (rc < 0) {
			pthread_mutex_lock(&pl->mu);
			if (!pl->failed) {
				pl->failed = 1;
				pl->err = e;
			}
			pthread_mutex_unlock(&pl->mu);
			copy_ci = -1;
			scn_free(copy);
			copy = NULL;
		}
	}
	scn_free(copy);
	return NULL;
}

/* Simulate every decode and serving row under its case's draws, on up to 8
 * threads (one per core). */
static int all_draws(struct val_set *v, struct val_spread *s, val_draws_fn fn,
		     struct plumb_err *err)
{
	struct cdraws *cd = calloc((size_t)v->ncases, sizeof(*cd));
	struct rowjob *jobs = calloc((size_t)(v->npoints + 1), sizeof(*jobs));
	struct pool pl;
	pthread_t th[8];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int i, t, started = 0, nt, njobs = 0, rc = 0;

	if (!cd || !jobs) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < v->ncases && rc == 0; i++)
		if (v->cases[i].kind == VAL_DECODE || v->cases[i].kind == VAL_SERVING)
			rc = case_setup(v, s, i, fn, &cd[i], jobs, &njobs, err);
	if (rc < 0)
		goto out;
	memset(&pl, 0, sizeof(pl));
	pl.v = v;
	pl.s = s;
	pl.cd = cd;
	pl.jobs = jobs;
	pl.njobs = njobs;
	pthread_mutex_init(&pl.mu, NULL);
	nt = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (int)ncpu;
	if (nt > njobs)
		nt = njobs;
	/* the other threads, then this one */
	for (t = 0; t + 1 < nt; t++)
		if (pthread_create(&th[t], NULL, pool_run, &pl) == 0)
			started++;
	pool_run(&pl);
	for (t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&pl.mu);
	if (pl.failed) {
		*err = pl.err;
		rc = pl.err.code ? -pl.err.code : -PLUMB_ERUNTIME;
	}
out:
	for (i = 0; cd && i < v->ncases; i++) {
		free(cd[i].ks);
		free(cd[i].mult);
	}
	free(cd);
	free(jobs);
	return rc;
}

int val_spread_run(struct val_set *v, int ndraws, val_draws_fn fn, struct plumb_err *err)
{
	struct val_spread *s;
	double *tmp;
	int i, q, rc = 0, np = 0;

	val_spread_free(v->spread);
	v->spread = NULL;
	for (i = 0; i < v->npoints; i++)
		np += val_point_qty(v, &v->points[i]) != VAL_Q_LINK;
	if (!np || ndraws < 2)
		return 0;
	s = calloc(1, sizeof(*s));
	tmp = malloc((size_t)ndraws * sizeof(*tmp));
	if (!s || !tmp || !(s->pd = calloc((size_t)np, sizeof(*s->pd)))) {
		free(tmp);
		val_spread_free(s);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	s->ndraws = ndraws;
	v->spread = s;
	if ((rc = all_draws(v, s, fn, err)) < 0)
		goto out;
	for (q = VAL_Q_RATE; q < VAL_NQ; q++) {
		int c;
		s->sd_const[q] = plumb_const_defs[q == VAL_Q_TTFT ? K_TTFT_ERR_SD : K_TOK_ERR_SD].def;
		s->sd_all[q] = fit_sd(v, s, q, -1, tmp);
		s->sd_loo_lo[q] = s->sd_loo_hi[q] = -1;
		for (c = 0; c < v->ncases; c++) {
			double sd = -1;
			int j, touched = 0;
			for (j = 0; j < s->n; j++)
				touched |= oos(v, &s->pd[j], q, -1) && v->points[s->pd[j].p].c == c;
			if (touched) {
				sd = fit_sd(v, s, q, c, tmp);
				if (sd >= 0 && (s->sd_loo_lo[q] < 0 || sd < s->sd_loo_lo[q]))
					s->sd_loo_lo[q] = sd;
				if (sd > s->sd_loo_hi[q])
					s->sd_loo_hi[q] = sd;
			}
			for (j = 0; j < s->n; j++) {
				struct pdraws *pd = &s->pd[j];
				struct val_point *pt = &v->points[pd->p];
				double lo, hi, use;
				if (pd->q != q || pt->c != c)
					continue;
				/* scored points: the spread of the other cases;
				 * fitted ones: the published spread */
				use = touched ? sd : s->sd_const[q];
				if (use < 0)    /* no other case of this quantity */
					use = s->sd_const[q];
				range_at(s, pd, use, tmp, &lo, &hi);
				pt->lo = exp(lo);
				pt->hi = exp(hi);
				if (touched) {
					s->n_oos[q]++;
					s->in_loo[q] += inside(s, pd, use, tmp);
					s->in_pub[q] += inside(s, pd, s->sd_const[q], tmp);
				}
			}
		}
	}
out:
	free(tmp);
	return rc;
}

int val_spread_get(const struct val_set *v, int q, struct val_spread_summary *out)
{
	const struct val_spread *s = v->spread;
	memset(out, 0, sizeof(*out));
	if (!s || q <= VAL_Q_LINK || q >= VAL_NQ)
		return 0;
	out->ndraws = s->ndraws;
	out->n = s->n_oos[q];
	out->sd_all = s->sd_all[q];
	out->sd_const = s->sd_const[q];
	out->sd_loo_lo = s->sd_loo_lo[q];
	out->sd_loo_hi = s->sd_loo_hi[q];
	out->in_loo = s->in_loo[q];
	out->in_const = s->in_pub[q];
	return 1;
}

double val_err_z(int d)
{
	double u = fmod(0.5 + d * 0.6180339887498949, 1.0);
	return gsl_cdf_ugaussian_Pinv(u);
}

double val_ttft_err_factor(const struct plumb_consts *k, int d)
{
	return exp(-k->v[K_TTFT_ERR_SD] * val_err_z(d));
}
