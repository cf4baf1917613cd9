/*
 * calib_cross.c - cross-validation of the fit on nccl-tests message sizes
 * (calib.h, calib_cross): fit on every other size, predict the rest.
 */
#include "calib.h"
#include "calib_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>


int calib_cross(struct val_set *v, FILE *f, struct calib_cross_summary *sum,
		struct plumb_err *err)
{
	struct plumb_consts *saved = NULL;
	double *errs = NULL;
	int ci, i, k, half, rc = 0, nall = 0, said = 0;

	memset(sum, 0, sizeof(*sum));
	saved = malloc((size_t)(v->ncases > 0 ? v->ncases : 1) * sizeof(*saved));
	errs = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof(*errs));
	if (!saved || !errs) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (ci = 0; ci < v->ncases; ci++)
		saved[ci] = v->cases[ci].scn->k;
	if (f) {
		fputs("| case | free constants | held-out points | median error | worst error (point) | fits converged |\n"
		      "|---|---|---:|---:|---:|---:|\n", f);
	}
	for (ci = 0; ci < v->ncases; ci++) {
		struct val_case *c = &v->cases[ci];
		int idx[CALIB_MAX_FREE], n = 0, first = c->first_point, np = c->npoints;
		int conv = 0, worst = -1, nerr = 0, j, nfit = 0, fitted[CALIB_MAX_FREE];
		double *ce, med = 0, mx = 0;
		if (c->kind != VAL_NCCL)
			continue;
		if (np < 4) {
			if (f)
				fprintf(f, "| %s | - | 0 | - | - | not run: %d sizes, too few to fit on half |\n",
					c->name, np);
			continue;
		}
		calib_case_free(v, ci, idx, &n, CALIB_MAX_FREE);
		/* A half of k sizes fits at most k - 1 constants: the ones the
		 * training sizes inform most. */
		for (i = 0; i < v->npoints; i++)
			v->points[i].train = i >= first && i < first + np && (i - first) % 2 == 1 &&
					     !v->points[i].artefact;
		if ((rc = calib_informed(v, idx, n, np / 2 - 1, idx, err)) < 0)
			goto out;
		n = rc;
		rc = 0;
		ce = errs + nall;
		for (half = 0; half < 2; half++) {
			struct calib_result r;
			for (i = 0; i < v->npoints; i++)
				v->points[i].train = i >= first && i < first + np &&
						     (i - first) % 2 == half && !v->points[i].artefact;
			rc = calib_fit(v, idx, n, &r, err);
			calib_result_release(&r);
			if (rc < 0)
				goto out;
			if (half == 0) {
				nfit = r.nfree;
				memcpy(fitted, r.idx, sizeof(fitted));
			}
			conv += r.converged;
			if ((rc = val_predict(v, ci, err)) < 0)
				goto out;
			for (i = first; i < first + np; i++) {
				const struct val_point *p = &v->points[i];
				double e;
				if (p->train || p->artefact)
					continue;
				e = fabs(p->predicted / p->measured - 1);
				ce[nerr++] = e;
				if (e > mx) {
					mx = e;
					worst = i;
				}
			}
			for (j = 0; j < v->ncases; j++)
				v->cases[j].scn->k = saved[j];
		}
		gsl_sort(ce, 1, (size_t)nerr);
		med = gsl_stats_median_from_sorted_data(ce, 1, (size_t)nerr);
		nall += nerr;
		sum->ncases++;
		if (mx > sum->worst) {
			sum->worst = mx;
			snprintf(sum->worst_case, sizeof(sum->worst_case), "%s %s", c->name,
				 worst >= 0 ? v->points[worst].label : "");
		}
		if (med > sum->worst_case_median)
			sum->worst_case_median = med;
		if (f) {
			fprintf(f, "| %s | ", c->name);
			for (j = 0; j < nfit; j++)
				fprintf(f, "%s`%s`", j ? ", " : "", plumb_const_defs[fitted[j]].name);
			fprintf(f, " | %d | %.1f%% | %.1f%% (%s) | %d of 2 |\n", nerr, 100 * med, 100 * mx,
				worst >= 0 ? v->points[worst].label : "-", conv);
		}
	}
	/* the points a case's note shows to be artefacts, named */
	for (ci = 0; f && ci < v->ncases; ci++) {
		const struct val_case *c = &v->cases[ci];
		if (c->kind != VAL_NCCL || c->nartefacts == 0 || c->npoints < 4)
			continue;
		fprintf(f, "%s%s: ", said++ ? "; " : "\nLeft out as measurement artefacts (each "
			"case's note says why; its own table scores them as printed): ", c->name);
		for (k = 0; k < c->nartefacts; k++)
			fprintf(f, "%s%s", k ? ", " : "", c->artefacts[k]);
	}
	if (said)
		fputs(".\n", f);
	if (nall) {
		gsl_sort(errs, 1, (size_t)nall);
		sum->median = gsl_stats_median_from_sorted_data(errs, 1, (size_t)nall);
	}
	sum->npoints = nall;
out:
	for (i = 0; i < v->npoints; i++)
		v->points[i].train = 1;
	if (saved && rc < 0)
		for (ci = 0; ci < v->ncases; ci++)
			v->cases[ci].scn->k = saved[ci];
	free(saved);
	free(errs);
	return rc;
}
