/*
 * plan.c - the SLO planner (plan.h): a predict run per box and engine
 * setting, each row costed and judged, ranked, the Pareto frontier.
 */
#include "plan.h"
#include "predict_disagg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plan_layouts(int n, const struct llm_model *m, char (*lay)[32], int *nlay)
{
	int k = 0, t;
	snprintf(lay[k++], 32, "tp%d", n);
	/* replicas of every smaller tensor-parallel group that divides the box */
	for (t = n / 2; t >= 1 && k < PLAN_MAXLAY; t /= 2)
		if (n % t == 0) {
			if (t == 1)
				snprintf(lay[k++], 32, "dp%d", n);
			else
				snprintf(lay[k++], 32, "dp%dtp%d", n / t, t);
		}
	if (n >= 4 && n % 2 == 0 && k < PLAN_MAXLAY)
		snprintf(lay[k++], 32, "tp%dpp2", n / 2);
	if (n >= 2 && m && m->experts > 0 && k < PLAN_MAXLAY)
		snprintf(lay[k++], 32, "ep%d", n);
	*nlay = k;
}

void plan_designs(int n, char (*lay)[32], int *nlay)
{
	int k = *nlay;
	if (n >= 2 && n % 2 == 0 && k < PLAN_MAXLAY)
		snprintf(lay[k++], 32, "p1:tp%d+d1:tp%d", n / 2, n / 2);
	if (n >= 4 && n % 4 == 0 && k < PLAN_MAXLAY)
		snprintf(lay[k++], 32, "p2:tp%d+d1:tp%d", n / 4, n / 2);
	*nlay = k;
}

/* A thousands-separated integer of v, for reasons. */
static void grouped(double v, char *buf, size_t n)
{
	char d[32];
	long x = lround(v);
	int len, i, j = 0;
	snprintf(d, sizeof(d), "%ld", x);
	len = (int)strlen(d);
	for (i = 0; i < len && j + 2 < (int)n; i++) {
		if (i > 0 && d[i - 1] != '-' && (len - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = d[i];
	}
	buf[j] = 0;
}

/* One bound: appends "NAME VALUE ms > BOUND" to r->reason when it fails. */
static void check(struct plan_row *r, const char *name, double v, double bound)
{
	char a[32], b[32];
	size_t len = strlen(r->reason);
	if (!(bound > 0) || v <= bound)
		return;
	grouped(v, a, sizeof(a));
	grouped(bound, b, sizeof(b));
	snprintf(r->reason + len, sizeof(r->reason) - len, "%s%s at %s ms > %s", len ? ", " : "",
		 name, a, b);
	r->meets = 0;
}

static void judge(const struct plan_opts *o, const struct cost_params *cp, struct plan_row *r)
{
	struct pred_row *p = &r->p;
	r->gpus_used = pred_layout_gpus(p->lay);
	r->ttft_p90 = r->tpot_p90 = r->ttft_p99 = r->tpot_p99 = NAN;
	r->tok_s_per_gpu = r->tok_s_per_user = NAN;
	memset(&r->cost, 0, sizeof(r->cost));
	r->cost.usd_per_mtok = r->cost.box_w = r->cost.gpu_w = r->cost.j_per_tok = NAN;
	if (!p->fits || !p->lay[0]) {
		r->meets = 0;
		snprintf(r->reason, sizeof(r->reason), "%s", p->why);
		return;
	}
	/* serve_pct: p50, p90, p99 */
	r->ttft_p90 = p->sr.ttft_p[1];
	r->ttft_p99 = p->sr.ttft_p[2];
	r->tpot_p90 = p->sr.tpot_p[1];
	r->tpot_p99 = p->sr.tpot_p[2];
	r->tok_s_per_gpu = r->gpus_used > 0 ? p->tok_total / r->gpus_used : NAN;
	r->tok_s_per_user = p->tok_stream;
	cost_point_eval(cp, r->gpus_used, cost_activity(p->part), p->tok_total, &r->cost);
	r->meets = 1;
	r->reason[0] = 0;
	check(r, "TTFT p90", r->ttft_p90, o->slo.ttft_p90);
	check(r, "TPOT p90", r->tpot_p90, o->slo.tpot_p90);
	check(r, "TTFT p99", r->ttft_p99, o->slo.ttft_p99);
	check(r, "TPOT p99", r->tpot_p99, o->slo.tpot_p99);
}

/* Sort keys: meets, then fits, then cost (NAN last), then tok/s per GPU;
 * the original order (box, setting, layout, load) breaks ties. */
struct keyed {
	const struct plan_row *r;
	int i;
};

static int rank(const struct plan_row *r)
{
	return r->meets ? 0 : r->p.fits && r->p.lay[0] ? 1 : 2;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int rx = rank(x->r), ry = rank(y->r);
	double cx = x->r->cost.usd_per_mtok, cy = y->r->cost.usd_per_mtok;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (rx < 2) {
		if (isnan(cx) != isnan(cy))
			return isnan(cx) ? 1 : -1;
		if (!isnan(cx) && cx != cy)
			return cx < cy ? -1 : 1;
		if (x->r->tok_s_per_gpu != y->r->tok_s_per_gpu)
			return x->r->tok_s_per_gpu > y->r->tok_s_per_gpu ? -1 : 1;
	}
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The frontier: a row that fits is on it unless another has at least its
 * tok/s per GPU and per user and more of one. */
static void pareto(struct plan_row *rows, int n)
{
	int i, j;
	for (i = 0; i < n; i++) {
		struct plan_row *a = &rows[i];
		a->pareto = 0;
		if (rank(a) == 2)
			continue;
		a->pareto = 1;
		for (j = 0; j < n && a->pareto; j++) {
			const struct plan_row *b = &rows[j];
			if (j == i || rank(b) == 2)
				continue;
			if (b->tok_s_per_gpu >= a->tok_s_per_gpu &&
			    b->tok_s_per_user >= a->tok_s_per_user &&
			    (b->tok_s_per_gpu > a->tok_s_per_gpu ||
			     b->tok_s_per_user > a->tok_s_per_user))
				a->pareto = 0;
		}
	}
}

/* Room for one more row in *out (n used, cap held); 0 or ERUNTIME. */
static int grow(struct plan_row **out, int n, int *cap, struct plumb_err *err)
{
	struct plan_row *t;
	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 64;
	if (!(t = realloc(*out, (size_t)*cap * sizeof(*t))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	*out = t;
	return 0;
}

/* r's layouts that box s (index si) can be set up for stay in r; each
 * other becomes a row that does not fit, with the setup's message. */
static int keep_runnable(struct pred_run *r, const struct scenario *s, int si,
			 struct plan_row **out, int *n, int *cap, struct plumb_err *err)
{
	int li, k = 0, rc;
	for (li = 0; li < r->nlayouts; li++) {
		struct pred_cfg c;
		struct plumb_err e;
		struct plan_row *pl;
		plumb_err_clear(&e);
		if (pred_run_setup(r, s, r->layouts[li], &c, &e) == 0) {
			if (k != li)
				memcpy(r->layouts[k], r->layouts[li], sizeof(r->layouts[k]));
			k++;
			continue;
		}
		if (e.code != PLUMB_EINPUT) {
			*err = e;
			return -e.code;
		}
		if ((rc = grow(out, *n, cap, err)) < 0)
			return rc;
		pl = &(*out)[(*n)++];
		memset(pl, 0, sizeof(*pl));
		pl->si = pl->p.si = si;
		snprintf(pl->p.lay, sizeof(pl->p.lay), "%s", r->layouts[li]);
		snprintf(pl->p.why, sizeof(pl->p.why), "%s", e.msg);
		pl->p.x = r->nconc ? r->conc[0] : 0;
		pl->ttft_p90 = pl->tpot_p90 = pl->ttft_p99 = pl->tpot_p99 = NAN;
		pl->tok_s_per_gpu = pl->tok_s_per_user = NAN;
		pl->cost.usd_per_mtok = pl->cost.box_w = pl->cost.gpu_w = pl->cost.j_per_tok = NAN;
		snprintf(pl->reason, sizeof(pl->reason), "%s", e.msg);
	}
	r->nlayouts = k;
	return 0;
}

int plan_run(const struct plan_opts *o, struct scenario *const *s, int ns,
	     struct plan_row **rows, int *nrows, struct plumb_err *err)
{
	int nch = o->nchunk > 0 ? o->nchunk : 1, nmb = o->nmax_batched > 0 ? o->nmax_batched : 1;
	int si, ci, mi, i, n = 0, cap = 0, rc = 0;
	const struct llm_model *m = NULL;
	struct plan_row *out = NULL;
	struct keyed *kk;

	*rows = NULL;
	*nrows = 0;
	if (!o->r.nlayouts && (rc = llm_model_resolve(o->r.model, &m, err)) < 0)
		return rc;
	for (si = 0; si < ns; si++) {
		struct pred_run r = o->r;
		struct cost_params cp;
		cost_params_of(s[si], &o->cost, &cp);
		r.draws = 0;
		r.fill = 0;
		if (!o->r.nlayouts)
			plan_layouts(s[si]->ngpus, m, r.layouts, &r.nlayouts);
		if (o->r.designs)
			plan_designs(s[si]->ngpus, r.layouts, &r.nlayouts);
		/* a layout the box cannot run at all is a row saying why */
		if ((rc = keep_runnable(&r, s[si], si, &out, &n, &cap, err)) < 0) {
			free(out);
			return rc;
		}
		for (ci = 0; ci < nch; ci++)
			for (mi = 0; mi < nmb; mi++) {
				struct pred_row *pr = NULL;
				int np = 0;
				r.chunk = o->nchunk ? o->chunk[ci] : o->r.chunk;
				r.max_batched = o->nmax_batched ? o->max_batched[mi] : o->r.max_batched;
				if (!r.nlayouts)
					continue;
				rc = pred_run_rows(&r, &s[si], 1, &pr, &np, err);
				for (i = 0; rc == 0 && i < np; i++) {
					struct plan_row *pl;
					if ((rc = grow(&out, n, &cap, err)) < 0)
						break;
					pl = &out[n++];
					memset(pl, 0, sizeof(*pl));
					pl->p = pr[i];
					pl->p.dv = NULL;
					pl->p.si = si;
					if (!pl->p.lay[0])
						snprintf(pl->p.lay, sizeof(pl->p.lay), "%s",
							 r.layouts[pl->p.li]);
					pl->si = si;
					pl->chunk = r.chunk;
					pl->max_batched = r.max_batched;
					judge(o, &cp, pl);
				}
				pred_rows_free(pr, np);
				if (rc < 0) {
					free(out);
					return rc;
				}
			}
	}
	pareto(out, n);
	if (!(kk = malloc((size_t)(n ? n : 1) * sizeof(*kk)))) {
		free(out);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	for (i = 0; i < n; i++) {
		kk[i].r = &out[i];
		kk[i].i = i;
	}
	qsort(kk, (size_t)n, sizeof(*kk), cmp_rows);
	{
		struct plan_row *sorted = malloc((size_t)(n ? n : 1) * sizeof(*sorted));
		if (!sorted) {
			free(kk);
			free(out);
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		for (i = 0; i < n; i++)
			sorted[i] = *kk[i].r;
		free(out);
		out = sorted;
	}
	free(kk);
	*rows = out;
	*nrows = n;
	return 0;
}

void plan_rows_free(struct plan_row *rows, int n)
{
	(void)n;
	free(rows);     /* the rows hold no draws (plan runs none) */
}
