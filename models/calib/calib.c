/*
 * calib.c - the constants fit and the calibration file (calib.h).
 */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "p2ptest.h"
#include "predict.h"
#include "ytree.h"

/* ---- bounds and the map u -> value --------------------------------- */

/* Fit bounds: within the constant's own range, and within two decades of
 * its default either way so a fit stays in physical territory. */
static void bounds(int k, double start, double *lo, double *hi)
{
	const struct plumb_const_def *d = &plumb_const_defs[k];
	double ref = start > 0 ? start : d->def > 0 ? d->def : 1.0;
	*lo = d->lo > ref / 100 ? d->lo : ref / 100;
	*hi = d->hi < ref * 100 ? d->hi : ref * 100;
	if (*lo <= 0)
		*lo = ref / 100;
	if (*hi <= *lo)
		*hi = *lo * 10;
}

double calib_start(int k, double v)
{
	const struct plumb_const_def *d = &plumb_const_defs[k];
	if (v > 0)
		return v;
	return d->plo > 0 ? sqrt(d->plo * d->phi) : d->phi > 0 ? d->phi / 10 : 1.0;
}

/* Where value sits in [lo, hi] on the map's log scale, 0 to 1. */
static double map_pos(double value, double lo, double hi)
{
	return (log(value) - log(lo)) / (log(hi) - log(lo));
}

static double logistic(double u)
{
	return 1.0 / (1.0 + exp(-u));
}

/* value = exp(log lo + (log hi - log lo) logistic(u)) */
static double to_value(double u, double lo, double hi)
{
	return exp(log(lo) + (log(hi) - log(lo)) * logistic(u));
}

static double to_u(double value, double lo, double hi)
{
	double t = (log(value) - log(lo)) / (log(hi) - log(lo));
	if (t < 1e-6)
		t = 1e-6;
	if (t > 1 - 1e-6)
		t = 1 - 1e-6;
	return log(t / (1 - t));
}

/* d value / d u */
static double dvalue(double u, double lo, double hi)
{
	double s = logistic(u);
	return to_value(u, lo, hi) * (log(hi) - log(lo)) * s * (1 - s);
}

/* ---- default free constants ---------------------------------------- */

static void add_free(int *idx, int *n, int max, int k)
{
	int i;
	for (i = 0; i < *n; i++)
		if (idx[i] == k)
			return;
	if (*n < max)
		idx[(*n)++] = k;
}

/* The constants case c's data informs, added to idx. */
static void case_free(const struct val_set *v, int ci, int *idx, int *n, int max)
{
	const struct val_case *c = &v->cases[ci];
	switch (c->kind) {
	case VAL_NCCL:
	case VAL_COLLCSV: {
		struct topo_opts o;
		struct topo_view *view = NULL;
		int shm = 0, nvl = 0;
		topo_opts_init(&o);
		o.nccl_p2p_level = c->p2p_disable ? NP_LOC : c->nccl_level;
		if (c->ngpus >= 2 &&
		    topo_build(c->scn, c->scn->vm.mode == SCN_VM ? TOPO_GUEST : TOPO_HOST,
			       &o, &view, NULL) == 0) {
			shm = view->xport[c->gpus[0]][c->gpus[1]] != XP_P2P;
			nvl = view->cls[c->gpus[0]][c->gpus[1]] == TC_NV;
			topo_free(view);
		}
		if (shm) {
			add_free(idx, n, max, K_NCCL_SHM_STEP_US);
			add_free(idx, n, max, K_NCCL_SHM_GBS);
		} else {
			add_free(idx, n, max, nvl ? K_NCCL_NVL_LL_US : K_NCCL_PCI_LL_US);
		}
		add_free(idx, n, max, K_NCCL_BW_EFF);
		add_free(idx, n, max, nvl ? K_NCCL_NVL_SIMPLE_US : K_NCCL_PCI_SIMPLE_US);
		/* LL's share of Simple's bandwidth, and with one thread driving
		 * several GPUs the harness's launch floor (valid.h). */
		if (c->kind == VAL_NCCL && c->nccl->runs[c->run - 1].gpus_per_thread > 1)
			add_free(idx, n, max, K_NCCL_TESTS_LAUNCH_US);
		add_free(idx, n, max, K_NCCL_LL_FRAC);
		break;
	}
	case VAL_P2P:
		add_free(idx, n, max, K_P2P_LAT_US);
		add_free(idx, n, max, K_PCIE_EFF);
		add_free(idx, n, max, K_BOUNCE_FLOOR_US);
		add_free(idx, n, max, K_BOUNCE_CHUNK_KIB);
		break;
	case VAL_DECODE:
	case VAL_SERVING:
		/* The kernel classes' shortest runs set small batches, the
		 * memory efficiencies large ones and long contexts; a VM's
		 * host path its collectives. */
		add_free(idx, n, max, K_KMIN_GEMM_US);
		add_free(idx, n, max, K_KMIN_ATTN_US);
		add_free(idx, n, max, K_MOE_MEM_EFF);
		add_free(idx, n, max, K_ATTN_MEM_EFF);
		if (c->scn->vm.mode == SCN_VM)
			add_free(idx, n, max, K_VM_STEP_EXITS);
		break;
	}
}

int calib_default_free(const struct val_set *v, int *idx, int max)
{
	int n = 0, i;
	for (i = 0; i < v->ncases; i++)
		case_free(v, i, idx, &n, max);
	return n;
}

/* ---- the fit ---------------------------------------------------------- */

struct fctx {
	struct val_set *v;
	struct calib_result *r;
	const int *cg;              /* case -> fit group (fit_groups) */
	int *train;                 /* point indices */
	int n;
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

/* Does parameter group g (-1: every case) reach case c? */
static int reaches(int g, const int *cg, int c)
{
	return g < 0 || (cg && cg[c] == g);
}

static void set_all(struct val_set *v, const struct calib_result *r, const int *cg,
		    const double *value)
{
	int c, j;
	for (c = 0; c < v->ncases; c++)
		for (j = 0; j < r->nfree; j++)
			if (reaches(r->grp[j], cg, c)) {
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
		value[j] = to_value(gsl_vector_get(x, (size_t)j), fc->r->lo[j], fc->r->hi[j]);
	set_all(fc->v, fc->r, fc->cg, value);
	if (val_predict_train(fc->v, &fc->err) < 0) {
		fc->failed = 1;
		return GSL_EBADFUNC;
	}
	fc->r->evaluations++;
	for (i = 0; i < fc->n; i++) {
		const struct val_point *p = &fc->v->points[fc->train[i]];
		double res = p->predicted > 0 ? log(p->predicted / p->measured) : 50;
		gsl_vector_set(f, (size_t)i, isfinite(res) ? res : 50);
	}
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

/*
 * Keep in r->idx the constants of idx some training point depends on: each
 * is moved by 5% and the training points are predicted again; a constant
 * that moves no point by more than CALIB_INFORM (0.1%, well below the
 * run-to-run spread of a measured time) cannot be told from the data and
 * goes to r->dropped.
 */
#define CALIB_INFORM 1e-3

/* infl[j]: the largest relative change of a training point when idx[j]
 * moves by 5% in the cases of group grp[j] (grp NULL: every case; cg maps
 * cases to groups). A constant at 0 moves to 5% of its calib_start. */
static int influence(struct val_set *v, const int *idx, const int *grp, const int *cg, int n,
		     double *infl, struct plumb_err *err)
{
	double *base = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof(double));
	double *keep = malloc((size_t)(v->ncases > 0 ? v->ncases : 1) * sizeof(double));
	int i, j, c, rc;

	if (!base || !keep) {
		free(base);
		free(keep);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if ((rc = val_predict_train(v, err)) < 0)
		goto out;
	for (i = 0; i < v->npoints; i++)
		base[i] = v->points[i].predicted;
	for (j = 0; j < n; j++) {
		int k = idx[j];
		for (c = 0; c < v->ncases; c++) {
			keep[c] = v->cases[c].scn->k.v[k];
			if (reaches(grp ? grp[j] : -1, cg, c))
				v->cases[c].scn->k.v[k] = keep[c] > 0 ? keep[c] * 1.05 :
							  0.05 * calib_start(k, 0);
		}
		rc = val_predict_train(v, err);
		for (c = 0; c < v->ncases; c++)
			v->cases[c].scn->k.v[k] = keep[c];
		if (rc < 0)
			goto out;
		infl[j] = 0;
		for (i = 0; i < v->npoints; i++)
			if (v->points[i].train && base[i] != 0)
				infl[j] = fmax(infl[j], fabs(v->points[i].predicted / base[i] - 1));
	}
	/* The points now hold the last trial's predictions: calib_fit
	 * predicts them again with the starting constants. */
out:
	free(base);
	free(keep);
	return rc < 0 ? rc : 0;
}

int calib_informed(struct val_set *v, const int *idx, int n, int max, int *out,
		   struct plumb_err *err)
{
	double infl[CALIB_MAX_FREE];
	int j, m = 0, rc;
	if (n > CALIB_MAX_FREE)
		n = CALIB_MAX_FREE;
	if ((rc = influence(v, idx, NULL, NULL, n, infl, err)) < 0)
		return rc;
	/* Drop the least informative until at most max are left. */
	for (;;) {
		int least = -1, cnt = 0;
		for (j = 0; j < n; j++)
			if (infl[j] > CALIB_INFORM) {
				cnt++;
				if (least < 0 || infl[j] < infl[least])
					least = j;
			}
		if (cnt <= max || least < 0)
			break;
		infl[least] = 0;
	}
	for (j = 0; j < n; j++)
		if (infl[j] > CALIB_INFORM)
			out[m++] = idx[j];
	return m;
}

/* The parameters (idx[j], grp[j]) some training point depends on into
 * r->idx and r->grp, the others into r->dropped. */
static int drop_uninformed(struct val_set *v, const int *idx, const int *grp, const int *cg,
			   int n, struct calib_result *r, struct plumb_err *err)
{
	double infl[CALIB_MAX_FREE];
	int j, rc = influence(v, idx, grp, cg, n, infl, err);
	if (rc < 0)
		return rc;
	for (j = 0; j < n; j++)
		if (infl[j] > CALIB_INFORM) {
			r->idx[r->nfree] = idx[j];
			r->grp[r->nfree++] = grp[j];
		} else {
			int c;
			for (c = v->ncases - 1; c >= 0; c--)
				if (cg[c] >= 0 && reaches(grp[j], cg, c))
					r->dropped_at[r->ndropped] = v->cases[c].scn->k.v[idx[j]];
			r->dropped[r->ndropped] = idx[j];
			r->dropped_grp[r->ndropped++] = grp[j];
		}
	return 0;
}

/*
 * The NCCL_P2P_LEVEL collective case ci assumed, in words into level (size
 * n), and how the ring over its mapped GPUs hops: *p2p hops by P2P, *shm
 * through host memory (NCCL's SHM transport). Returns -1 when the topology
 * cannot be built.
 */
static int case_hops(const struct val_set *v, int ci, int *p2p, int *shm, char *level, size_t n)
{
	const struct val_case *c = &v->cases[ci];
	struct topo_opts o;
	struct topo_view *view = NULL;
	int i;

	*p2p = *shm = 0;
	snprintf(level, n, "-");
	topo_opts_init(&o);
	o.nccl_p2p_level = c->p2p_disable ? NP_LOC : c->nccl_level;
	if (topo_build(c->scn, c->scn->vm.mode == SCN_VM ? TOPO_GUEST : TOPO_HOST, &o, &view, NULL) < 0)
		return -1;
	if (c->p2p_disable)
		snprintf(level, n, "LOC (NCCL_P2P_DISABLE=1)");
	else
		snprintf(level, n, "%s (%s)", topo_nccl_path_str(view->nccl_level),
			 view->nccl_level_default ? "NCCL's default for this box" :
			 view->nccl_level_scenario ? "the scenario's nccl: p2p_level" : "--nccl-p2p-level");
	for (i = 0; c->ngpus >= 2 && i < c->ngpus; i++) {
		int a = c->gpus[i], b = c->gpus[(i + 1) % c->ngpus];
		if (view->xport[a][b] == XP_P2P)
			(*p2p)++;
		else
			(*shm)++;
	}
	topo_free(view);
	return 0;
}

/* Record what scenario group g's first case ran on into d. */
static void describe(const struct val_set *v, const int *cg, int g, struct calib_scn *d)
{
	static const char *const chipset[] = { "q35", "i440fx" };
	static const char *const iommu[] = { "off", "translate", "pt" };
	const struct scenario *s = NULL;
	struct scn_serving sv;
	const char *base;
	int c, i, j;

	memset(d, 0, sizeof(*d));
	for (c = 0; c < v->ncases && !s; c++)
		if (cg[c] == g)
			s = v->cases[c].scn;
	if (!s)
		return;
	base = strrchr(s->path, '/');
	snprintf(d->name, sizeof(d->name), "%.95s", s->name[0] ? s->name : base ? base + 1 : s->path);
	snprintf(d->file, sizeof(d->file), "%s", v->cases[c - 1].scenario);
	for (i = 0; i < s->ngpus; i++) {
		const char *m = s->nodes[s->gpu_node[i]].model;
		int seen = 0;
		for (j = 0; j < i; j++)
			seen |= !strcmp(s->nodes[s->gpu_node[j]].model, m);
		if (!seen && strlen(d->gpus) + strlen(m) + 2 < sizeof(d->gpus))
			snprintf(d->gpus + strlen(d->gpus), sizeof(d->gpus) - strlen(d->gpus), "%s%s",
				 d->gpus[0] ? "," : "", m);
	}
	d->vm = s->vm.mode == SCN_VM;
	if (d->vm) {
		snprintf(d->chipset, sizeof(d->chipset), "%s", chipset[s->vm.chipset == SCN_I440FX]);
		snprintf(d->iommu, sizeof(d->iommu), "%s", iommu[s->vm.host_iommu]);
	}
	/* the stack the group's cases ran: the first serving or decode case
	 * run with the engine table's fill (val_case.stack), else the
	 * scenario's section as it is */
	sv = s->serving;
	for (j = 0; j < v->ncases; j++) {
		const struct val_case *k = &v->cases[j];
		const struct llm_model *m;
		if (cg[j] != g || !k->stack || (k->kind != VAL_SERVING && k->kind != VAL_DECODE) ||
		    llm_model_resolve(k->model, &m, NULL) < 0)
			continue;
		pred_stack_of(k->scn, k->engine[0] ? k->engine : NULL, m, 0, &sv);
		break;
	}
	snprintf(d->engine, sizeof(d->engine), "%s", scn_engine_name(sv.engine));
	d->cuda_graphs = sv.cuda_graphs;
	snprintf(d->allreduce, sizeof(d->allreduce), "%s", scn_allreduce_name(sv.allreduce));
	snprintf(d->moe_backend, sizeof(d->moe_backend), "%s", sv.moe_backend);
	snprintf(d->attention_backend, sizeof(d->attention_backend), "%s", sv.attention_backend);
	d->allreduce_fusion = sv.allreduce_fusion;
	snprintf(d->dsa, sizeof(d->dsa), "%s", sv.dsa_dense ? "dense" : "sparse");
	for (c = 0; c < v->ncases; c++)
		if (cg[c] == g && (v->cases[c].kind == VAL_NCCL || v->cases[c].kind == VAL_COLLCSV)) {
			int p2p, shm;
			case_hops(v, c, &p2p, &shm, d->nccl_level, sizeof(d->nccl_level));
			break;
		}
}

void calib_result_release(struct calib_result *r)
{
	free(r->before);
	r->before = NULL;
}

int calib_fit(struct val_set *v, const int *idx, int n, struct calib_result *r,
	      struct plumb_err *err)
{
	const gsl_multifit_nlinear_type *T = gsl_multifit_nlinear_trust;
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w = NULL;
	gsl_multifit_nlinear_fdf fdf;
	gsl_vector *x0 = NULL;
	gsl_matrix *cov = NULL;
	struct fctx fc;
	double value[CALIB_MAX_FREE], *pred = NULL, mean = 0, sstot = 0;
	int pidx[CALIB_MAX_FREE], pgrp[CALIB_MAX_FREE], np = 0, *cg = NULL, ng, g;
	int i, j, rc = 0, info = 0, status;

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
	for (g = 0; g < ng; g++) {
		describe(v, cg, g, &r->scn[g]);
		for (j = 0; j < g; j++)
			if (!strcmp(r->scn[j].name, r->scn[g].name)) {
				rc = plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
						   "%s and %s are both named '%s': a joint calibration keeps "
						   "per-scenario constants by name", r->scn[j].file,
						   r->scn[g].file, r->scn[g].name);
				goto out;
			}
	}
	/* One parameter per shared constant; one per scenario for box- and
	 * vm-scope ones in a joint fit. */
	for (j = 0; j < n; j++)
		for (g = consts_shared(idx[j]) || ng < 2 ? -1 : 0; g < (consts_shared(idx[j]) || ng < 2 ? 0 : ng); g++) {
			if (np >= CALIB_MAX_FREE) {
				rc = plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
						   "%d scenarios make more than %d parameters of these constants: "
						   "free fewer", ng, CALIB_MAX_FREE);
				goto out;
			}
			pidx[np] = idx[j];
			pgrp[np++] = g;
		}
	if ((rc = drop_uninformed(v, pidx, pgrp, cg, np, r, err)) < 0)
		goto out;
	n = r->nfree;
	if (n < 1) {
		rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				   "no measured point depends on the constants freed (%s%s): "
				   "moving one by 5%% moves no point by 0.1%%",
				   plumb_const_defs[r->dropped[0]].name, r->ndropped > 1 ? ", ..." : "");
		goto out;
	}
	for (j = 0; j < n; j++) {
		double sv = v->cases[0].scn->k.v[r->idx[j]];
		for (i = v->ncases - 1; i >= 0; i--)
			if (cg[i] >= 0 && reaches(r->grp[j], cg, i))
				sv = v->cases[i].scn->k.v[r->idx[j]];
		r->start[j] = calib_start(r->idx[j], sv);
		r->moved[j] = !(sv > 0);
		bounds(r->idx[j], r->start[j], &r->lo[j], &r->hi[j]);
	}
	fc.v = v;
	fc.r = r;
	fc.cg = cg;
	fc.train = malloc((size_t)(v->npoints > 0 ? v->npoints : 1) * sizeof(int));
	if (!fc.train) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < v->npoints; i++)
		if (v->points[i].train)
			fc.train[fc.n++] = i;
	r->npoints = fc.n;
	if (fc.n < n + 1) {
		rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				   "%d measured point%s cannot fit %d constant%s: give at least %d points or free fewer constants",
				   fc.n, fc.n == 1 ? "" : "s", n, n == 1 ? "" : "s", n + 1);
		goto out;
	}
	/* Error before: the starting constants. */
	if ((rc = val_predict_train(v, err)) < 0)
		goto out;
	r->before = malloc((size_t)fc.n * sizeof(double));
	pred = malloc((size_t)fc.n * sizeof(double));
	if (!r->before || !pred) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < fc.n; i++)
		r->before[i] = v->points[fc.train[i]].predicted;
	err_summary(v, fc.train, fc.n, r->before, &r->before_median, &r->before_max);

	w = gsl_multifit_nlinear_alloc(T, &fp, (size_t)fc.n, (size_t)n);
	x0 = gsl_vector_alloc((size_t)n);
	cov = gsl_matrix_alloc((size_t)n, (size_t)n);
	if (!w || !x0 || !cov) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (j = 0; j < n; j++)
		gsl_vector_set(x0, (size_t)j, to_u(r->start[j], r->lo[j], r->hi[j]));
	memset(&fdf, 0, sizeof(fdf));
	fdf.f = residuals;
	fdf.df = jacobian;
	fdf.fvv = NULL;
	fdf.n = (size_t)fc.n;
	fdf.p = (size_t)n;
	fdf.params = &fc;
	if ((status = gsl_multifit_nlinear_init(x0, &fdf, w)) != GSL_SUCCESS) {
		if (fc.failed) {
			*err = fc.err;
			rc = -plumb_err_status(&fc.err);
		} else {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "fit could not start: %s",
					   gsl_strerror(status));
		}
		goto out;
	}
	status = gsl_multifit_nlinear_driver(100, 1e-6, 1e-6, 1e-10, NULL, NULL, &info, w);
	if (fc.failed) {
		*err = fc.err;
		rc = -plumb_err_status(&fc.err);
		goto out;
	}
	r->iterations = (int)gsl_multifit_nlinear_niter(w);
	if (status == GSL_SUCCESS) {
		r->converged = 1;
		snprintf(r->status, sizeof(r->status), "converged after %d iterations (%s)",
			 r->iterations, info == 1 ? "step small" : info == 2 ? "gradient small" : "residual small");
	} else if (status == GSL_EMAXITER) {
		snprintf(r->status, sizeof(r->status),
			 "did not converge: stopped after %d iterations still moving; the data may not inform every free constant (pin some with --pin)",
			 r->iterations);
	} else {
		snprintf(r->status, sizeof(r->status), "did not converge: %s after %d iterations",
			 gsl_strerror(status), r->iterations);
	}
	/* Final values, residuals, covariance. */
	{
		gsl_vector *x = gsl_multifit_nlinear_position(w);
		gsl_vector *f = gsl_multifit_nlinear_residual(w);
		gsl_matrix *J = gsl_multifit_nlinear_jac(w);
		double s2, chi2 = 0;
		int dof = fc.n - n;
		for (j = 0; j < n; j++)
			value[j] = to_value(gsl_vector_get(x, (size_t)j), r->lo[j], r->hi[j]);
		gsl_blas_ddot(f, f, &chi2);
		r->chi2 = chi2;
		s2 = dof > 0 ? chi2 / dof : 0;
		r->dof = dof;
		r->rms = sqrt(chi2 / fc.n);
		r->sd = sqrt(s2);
		gsl_multifit_nlinear_covar(J, 0.0, cov);
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				double di = dvalue(gsl_vector_get(x, (size_t)i), r->lo[i], r->hi[i]);
				double dj = dvalue(gsl_vector_get(x, (size_t)j), r->lo[j], r->hi[j]);
				r->cov[i * n + j] = s2 * gsl_matrix_get(cov, (size_t)i, (size_t)j) * di * dj;
			}
		for (j = 0; j < n; j++) {
			r->value[j] = value[j];
			r->se[j] = sqrt(fmax(0, r->cov[j * n + j]));
		}
	}
	/* Leave the fitted values in every scenario and predict with them. */
	set_all(v, r, cg, r->value);
	if ((rc = val_predict_train(v, err)) < 0)
		goto out;
	for (i = 0; i < fc.n; i++) {
		double lm = log(v->points[fc.train[i]].measured);
		pred[i] = v->points[fc.train[i]].predicted;
		mean += lm / fc.n;
	}
	for (i = 0; i < fc.n; i++) {
		double d = log(v->points[fc.train[i]].measured) - mean;
		sstot += d * d;
	}
	r->r2 = sstot > 0 ? 1 - r->chi2 / sstot : 1;
	err_summary(v, fc.train, fc.n, pred, &r->after_median, &r->after_max);
out:
	free(cg);
	free(pred);
	free(fc.train);
	if (w)
		gsl_multifit_nlinear_free(w);
	if (x0)
		gsl_vector_free(x0);
	if (cov)
		gsl_matrix_free(cov);
	return rc;
}

/* ---- report ------------------------------------------------------------ */

int calib_poor(const struct calib_result *r, char *why, size_t n)
{
	size_t len = 0;
	int j, poor = 0;
	why[0] = '\0';
	if (r->r2 < 0) {
		len += (size_t)snprintf(why, n, "R^2 is %.3f: the fitted model explains log(measured) "
				    "worse than their mean", r->r2);
		poor = 1;
	}
	for (j = 0; j < r->nfree && len < n; j++) {
		double t = map_pos(r->value[j], r->lo[j], r->hi[j]);
		if (t > CALIB_BOUND_EDGE && t < 1 - CALIB_BOUND_EDGE)
			continue;
		len += (size_t)snprintf(why + len, n - len, "%s%s%s%s ends on the %s bound of its fit range (%g)",
					poor ? "; " : "", plumb_const_defs[r->idx[j]].name,
					r->grp[j] >= 0 ? "@" : "", r->grp[j] >= 0 ? r->scn[r->grp[j]].name : "",
					t <= CALIB_BOUND_EDGE ? "lower" : "upper",
					t <= CALIB_BOUND_EDGE ? r->lo[j] : r->hi[j]);
		poor = 1;
	}
	return poor;
}

/* "name" or, for a joint fit's per-scenario parameter, "name@scenario". */
static const char *param_name(const struct calib_result *r, int idx, int grp, char *buf, size_t n)
{
	if (grp < 0)
		return plumb_const_defs[idx].name;
	snprintf(buf, n, "%s@%s", plumb_const_defs[idx].name, r->scn[grp].name);
	return buf;
}

/* What the collectives assumed: NCCL_P2P_LEVEL and the ring's hops. */
static void report_hops(FILE *f, const struct val_set *v)
{
	int c, i;
	for (c = 0; c < v->ncases; c++) {
		char level[64];
		int p2p, shm;
		if (v->cases[c].kind != VAL_NCCL && v->cases[c].kind != VAL_COLLCSV)
			continue;
		if (case_hops(v, c, &p2p, &shm, level, sizeof(level)) < 0)
			continue;
		fprintf(f, "collectives %s: NCCL_P2P_LEVEL=%s; ring over GPUs ", v->cases[c].name, level);
		for (i = 0; i < v->cases[c].ngpus; i++)
			fprintf(f, "%s%d", i ? "," : "", v->cases[c].gpus[i]);
		fprintf(f, ": %d hop%s P2P, %d SHM (host memory)\n", p2p, p2p == 1 ? "" : "s", shm);
		if (shm)
			fprintf(f, "  the SHM hops fit nccl_shm_step_us and nccl_shm_gbs; if the run set "
				   "NCCL_P2P_LEVEL (e.g. SYS) give it with --nccl-p2p-level\n");
	}
}

void calib_report(FILE *f, const struct val_set *v, const struct calib_result *r)
{
	char nb[160], nb2[160];
	int i, j, t = 0, w = 26;
	for (j = 0; j < r->nfree; j++) {
		int l = (int)strlen(param_name(r, r->idx[j], r->grp[j], nb, sizeof(nb)));
		w = l > w ? l : w;
	}
	fprintf(f, "plumb calibrate: %d points, %d free constant%s, %s\n", r->npoints, r->nfree,
		r->nfree == 1 ? "" : "s", r->status);
	if (r->nscn > 1) {
		fprintf(f, "joint fit on %d scenarios:", r->nscn);
		for (i = 0; i < r->nscn; i++)
			fprintf(f, "%s %s (%s)", i ? "," : "", r->scn[i].name, r->scn[i].gpus);
		fputs("; gpu, engine and nccl constants shared, box and vm ones per scenario (name@scenario)\n", f);
	}
	for (j = 0; j < v->nskipped; j++)
		fprintf(f, "note: skipped %s\n", j < VAL_MAX_SKIPPED ? v->skipped[j] : "...");
	if (v->nskipped > VAL_MAX_SKIPPED)
		fprintf(f, "note: %d runs skipped in all\n", v->nskipped);
	for (j = 0; j < r->ndropped; j++)
		fprintf(f, "note: no point depends on %s here (5%% on it moves none by 0.1%%): kept at %g, not fitted\n",
			param_name(r, r->dropped[j], r->dropped_grp[j], nb, sizeof(nb)), r->dropped_at[j]);
	for (j = 0; j < r->nfree; j++)
		if (r->moved[j])
			fprintf(f, "note: %s starts at %g, not the scenario's 0 (the fit cannot move off 0): "
				   "the geometric middle of %s %g-%g\n",
				   param_name(r, r->idx[j], r->grp[j], nb, sizeof(nb)), r->start[j],
				   plumb_const_defs[r->idx[j]].plo > 0 ? "its plausible range" :
				   "a hundredth of its plausible maximum to that maximum,",
				   plumb_const_defs[r->idx[j]].plo > 0 ? plumb_const_defs[r->idx[j]].plo :
				   plumb_const_defs[r->idx[j]].phi / 100, plumb_const_defs[r->idx[j]].phi);
	report_hops(f, v);
	fprintf(f, "\n%-*s %14s %14s %14s   %s\n", w, "constant", "start", "fitted", "std. error", "bounds");
	for (j = 0; j < r->nfree; j++) {
		const struct plumb_const_def *d = &plumb_const_defs[r->idx[j]];
		char se[32];
		if (r->se[j] > 0)
			snprintf(se, sizeof(se), "%.3g", r->se[j]);
		else
			snprintf(se, sizeof(se), "-");
		fprintf(f, "%-*s %14.6g %14.6g %14s   [%g, %g] %s", w, param_name(r, r->idx[j], r->grp[j], nb, sizeof(nb)),
			r->start[j], r->value[j], se, r->lo[j], r->hi[j], d->unit);
		if (!consts_plausible(r->idx[j], r->value[j]))
			fprintf(f, "  outside its plausible range %g-%g", d->plo, d->phi);
		fputc('\n', f);
	}
	for (j = 0; j < r->nfree; j++)
		if (!(r->se[j] > 0))
			fprintf(f, "note: %s has no standard error: at the fitted values no point depends on it\n"
				"      (it sits on a bound, or another limit sets those times); pin it with --pin\n",
				param_name(r, r->idx[j], r->grp[j], nb, sizeof(nb)));
	if (r->nfree > 1) {
		fputs("\ncorrelations:\n", f);
		for (i = 0; i < r->nfree; i++) {
			fprintf(f, "  %-*s", w - 2, param_name(r, r->idx[i], r->grp[i], nb2, sizeof(nb2)));
			for (j = 0; j < r->nfree; j++) {
				double d = sqrt(r->cov[i * r->nfree + i] * r->cov[j * r->nfree + j]);
				fprintf(f, " %6.3f", d > 0 ? r->cov[i * r->nfree + j] / d : (i == j ? 1.0 : 0.0));
			}
			fputc('\n', f);
		}
	}
	fprintf(f, "\nR^2 (log measured) %.4f, sum of squared log residuals %.4g\n", r->r2, r->chi2);
	fprintf(f, "residual spread: RMS of log residuals %.4f over %d points; %.4f per degree of freedom "
		   "(%d), the model error --calib intervals add\n", r->rms, r->npoints, r->sd, r->dof);
	fprintf(f, "error |pred/meas - 1|: before median %.1f%% max %.1f%%, after median %.1f%% max %.1f%%\n",
		100 * r->before_median, 100 * r->before_max, 100 * r->after_median, 100 * r->after_max);
	fprintf(f, "\n%-28s %-24s %12s %12s %12s %8s\n", "data", "point", "measured", "before", "after", "error");
	for (i = 0; i < v->npoints; i++) {
		const struct val_point *p = &v->points[i];
		if (!p->train)
			continue;
		fprintf(f, "%-28s %-24s %12.4g %12.4g %12.4g %7.1f%%\n", v->cases[p->c].name, p->label,
			p->measured, r->before ? r->before[t] : NAN, p->predicted,
			100 * (p->predicted / p->measured - 1));
		t++;
	}
}

/* ---- cross-validation ------------------------------------------------- */

int calib_cross(struct val_set *v, FILE *f, struct calib_cross_summary *sum,
		struct plumb_err *err)
{
	struct plumb_consts *saved = NULL;
	double *errs = NULL;
	int ci, i, half, rc = 0, nall = 0;

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
		case_free(v, ci, idx, &n, CALIB_MAX_FREE);
		/* A half of k sizes fits at most k - 1 constants: the ones the
		 * training sizes inform most. */
		for (i = 0; i < v->npoints; i++)
			v->points[i].train = i >= first && i < first + np && (i - first) % 2 == 1;
		if ((rc = calib_informed(v, idx, n, np / 2 - 1, idx, err)) < 0)
			goto out;
		n = rc;
		rc = 0;
		ce = errs + nall;
		for (half = 0; half < 2; half++) {
			struct calib_result r;
			for (i = 0; i < v->npoints; i++)
				v->points[i].train = i >= first && i < first + np && (i - first) % 2 == half;
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
				if (p->train)
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
