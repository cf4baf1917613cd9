/*
 * predict_compare.c - boxes side by side (predict_run.h): the default
 * layouts of boxes of any size and the layout each box runs (the same
 * whatever the boxes' order), and what a speed-up between boxes depends
 * on (pred_run_depends): paired draws of the constants for its range, and
 * the same points again under NCCL's default level and on eager launches.
 */
#include "predict_run.h"
#include "predict_disagg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pred_default_layouts(struct scenario *const *s, int ns, char (*lay)[32], int cap, int *n)
{
	int i, j, k, g;
	*n = 0;
	for (i = 0; i < ns; i++) {
		g = s[i]->ngpus;
		for (j = 0; j < *n && atoi(lay[j] + 2) < g; j++)
			;
		if ((j < *n && atoi(lay[j] + 2) == g) || *n >= cap)
			continue;
		for (k = *n; k > j; k--)        /* keep them smallest first */
			memcpy(lay[k], lay[k - 1], sizeof(lay[k]));
		snprintf(lay[j], sizeof(lay[j]), "tp%d", g);
		(*n)++;
	}
}

int pred_layout_on_box(const struct scenario *s, const char *lay, int fill, char *out, size_t n,
		       char *why, size_t nw, struct plumb_err *err)
{
	struct step_layout l;
	struct pred_disagg d;
	int rc, used;
	snprintf(out, n, "%s", lay);
	if ((rc = pred_disagg_parse(lay, &d, err)) < 0)
		return rc;
	if (rc == 1) {          /* a design runs as given, or not at all */
		used = d.np * d.gp + d.nd * d.gd;
		if (used > s->ngpus) {
			snprintf(why, nw, "n/a: %s needs %d GPUs, box has %d", lay, used, s->ngpus);
			return 1;
		}
		return 0;
	}
	if ((rc = step_layout_parse(lay, &l, err)) < 0)
		return rc;
	used = step_layout_used(&l);
	if (used > s->ngpus) {
		snprintf(why, nw, "n/a: %s needs %d GPUs, box has %d", lay, used, s->ngpus);
		return 1;
	}
	if (fill && l.dp <= 1 && used < s->ngpus && s->ngpus % used == 0)
		snprintf(out, n, "dp%d%s", s->ngpus / used, lay);
	return 0;
}

void pred_ratio_interval(const struct pred_run *o, const double *num, const double *den, int n,
			 double *lo, double *hi)
{
	double *q = malloc((size_t)(n > 0 ? n : 1) * sizeof(*q));
	int d;
	*lo = *hi = NAN;
	if (!q || !o->src.interval) {
		free(q);
		return;
	}
	for (d = 0; d < n; d++)
		q[d] = num[d] > 0 && den[d] > 0 ? num[d] / den[d] : NAN;
	o->src.interval(q, n, lo, hi);
	free(q);
}

/*
 * The 90% range of the speed-up of box s over box s0 at load x (layout
 * lay): both predicted under the same draws of the constants (draw d draws
 * the same values for both, so what the boxes share cancels in the ratio),
 * the 5th and 95th percentiles of the ratios. *lo = *hi = NAN without
 * draws. v0: s0's draws, filled when *have0 is 0.
 */
static int pair_range(const struct pred_run *o, const struct scenario *s0, const char *lay0,
		      const struct scenario *s, const char *lay, int x, double *v0, int *have0,
		      double *lo, double *hi, struct plumb_err *err)
{
	double *v1;
	int rc;
	*lo = *hi = NAN;
	if (o->draws < 1)
		return 0;
	if (!*have0) {
		if ((rc = pred_point_draws(o, s0, lay0, x, v0, err)) <= 0)
			return rc;
		*have0 = 1;
	}
	if (!(v1 = malloc((size_t)o->draws * sizeof(*v1))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = pred_point_draws(o, s, lay, x, v1, err)) > 0)
		pred_ratio_interval(o, v1, v0, o->draws, lo, hi);
	free(v1);
	return rc < 0 ? rc : 0;
}

/* Point x of layout lay (the first layout as s runs it) on s, with the
 * NCCL level (>= 0) or eager launches forced, into r. */
static int point_with(const struct pred_run *o, const struct scenario *s, const char *lay,
		      int x, int level, int eager, struct pred_row *r, struct plumb_err *err)
{
	struct pred_cfg c;
	int rc;
	memset(r, 0, sizeof(*r));
	if ((rc = pred_run_setup(o, s, lay, &c, err)) < 0)
		return rc;
	if (level >= 0)
		c.topo.nccl_p2p_level = level;
	if (eager)
		c.cuda_graphs = 0;
	return pred_run_point(o, &c, x, r, err);
}

int pred_run_depends(const struct pred_run *o, struct scenario *const *s, int ns,
		     const struct pred_row *rows, int nrows, struct pred_depends *out, int *n,
		     struct plumb_err *err)
{
	int j, i, rc = 0, have0[2] = { 0, 0 };
	double *v0 = calloc((size_t)(o->draws > 0 ? 2 * o->draws : 2), sizeof(*v0));
	*n = 0;
	if (!v0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (j = 1; j < ns; j++) {
		const struct pred_row *lo = NULL, *hi = NULL;
		struct pred_depends *d = &out[*n];
		if (s[j]->vm.mode == SCN_VM)
			continue;
		for (i = 0; i < nrows; i++)
			if (rows[i].si == j && rows[i].li == 0 && rows[i].fits) {
				if (!lo)
					lo = &rows[i];
				hi = &rows[i];
			}
		if (!lo || !rows[lo - rows - j].fits || !rows[hi - rows - j].fits)
			continue;
		memset(d, 0, sizeof(*d));
		d->j = j;
		d->lo = lo;
		d->hi = hi;
		d->lo0 = &rows[lo - rows - j];
		d->hi0 = &rows[hi - rows - j];
		d->lay = lo->lay;
		d->lay0 = d->lo0->lay;
		d->pxb = s[j]->nccl_level == NP_SYS;
		d->eager_fits = 1;
		for (i = 0; i < 2; i++) {
			struct pred_row t, v, b;
			int x = (i ? hi : lo)->x;
			if ((rc = pair_range(o, s[0], d->lay0, s[j], d->lay, x, v0 + i * o->draws,
					     &have0[i], &d->rlo[i], &d->rhi[i], err)) < 0)
				goto out;
			/* NCCL's default level: P2P across host bridges becomes SHM. */
			if (d->pxb) {
				if ((rc = point_with(o, s[j], d->lay, x, NP_PXB, 0, &t, err)) < 0)
					goto out;
				d->pxb_tok[i] = t.tok_total;
			}
			/* Both boxes without CUDA graphs. */
			if ((rc = point_with(o, s[0], d->lay0, x, -1, 1, &v, err)) < 0 ||
			    (rc = point_with(o, s[j], d->lay, x, -1, 1, &b, err)) < 0)
				goto out;
			d->eager0[i] = v.tok_total;
			d->eager[i] = b.tok_total;
			d->eager_fits &= v.fits && b.fits;
		}
		(*n)++;
	}
out:
	free(v0);
	return rc < 0 ? rc : 0;
}

int pred_run_engines(const struct pred_run *o, const struct scenario *s, char *assumed,
		     size_t n, struct pred_engine_alt *alt, int *nalt, struct plumb_err *err)
{
	static const char *const names[] = { "sglang", "vllm", "trtllm" };
	struct pred_cfg c;
	struct pred_run w = *o;
	int rc, i, nx = o->nbatch ? o->nbatch : o->nconc;
	int x0 = o->nbatch ? o->batch[0] : o->conc[0];
	int x1 = o->nbatch ? o->batch[nx - 1] : o->conc[nx - 1];
	enum scn_engine mine;

	*nalt = 0;
	if ((rc = pred_run_setup(o, s, o->layouts[0], &c, err)) < 0)
		return rc;
	pred_stack_text(&c, assumed, n);
	mine = c.s->serving.engine;
	w.draws = 0;
	for (i = 0; i < 3; i++) {
		struct pred_engine_alt *a = &alt[*nalt];
		if ((int)mine == i)
			continue;   /* an engine outside the table ("other") gets all three */
		memset(a, 0, sizeof(*a));
		snprintf(a->engine, sizeof(a->engine), "%s", names[i]);
		w.engine = names[i];
		if ((rc = pred_run_setup(&w, s, o->layouts[0], &c, err)) < 0 ||
		    (rc = pred_run_point(&w, &c, x0, &a->lo, err)) < 0)
			return rc;
		/* one load: the same point (a point is a pure function of it) */
		if (x1 == x0)
			a->hi = a->lo;
		else if ((rc = pred_run_point(&w, &c, x1, &a->hi, err)) < 0)
			return rc;
		pred_stack_text(&c, a->stack, sizeof(a->stack));
		/* "vllm 0.28.0": the stack's name and version */
		snprintf(a->engine, sizeof(a->engine), "%.*s", (int)strcspn(a->stack, ":"), a->stack);
		(*nalt)++;
	}
	return 0;
}
