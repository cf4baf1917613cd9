/*
 * calib_cases.c - what a fit's cases are (calib.h, calib_int.h): the
 * constants each one's data informs (by default, and which freed ones a
 * training point depends on at all), the transports its collectives took,
 * and the scenario it ran on, as recorded in the calibration file.
 */
#include "calib.h"
#include "calib_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2ptest.h"
#include "predict.h"

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
void calib_case_free(const struct val_set *v, int ci, int *idx, int *n, int max)
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
			add_free(idx, n, max, K_NCCL_SHM_RD_US);
		} else {
			add_free(idx, n, max, nvl ? K_NCCL_NVL_LL_US : K_NCCL_PCI_LL_US);
		}
		add_free(idx, n, max, K_NCCL_BW_EFF);
		add_free(idx, n, max, nvl ? K_NCCL_NVL_SIMPLE_US : K_NCCL_PCI_SIMPLE_US);
		/* on NVLink NCCL's tuner runs LL128 between LL and Simple
		 * (coll_tune.c); a run without such sizes leaves it unused,
		 * and the fit keeps it */
		if (nvl)
			add_free(idx, n, max, K_NCCL_NVL_LL128_US);
		/* LL's share of Simple's bandwidth, and with one thread driving
		 * several GPUs the harness's launch floor (valid.h). */
		if (c->kind == VAL_NCCL && c->nccl->runs[c->run - 1].gpus_per_thread > 1)
			add_free(idx, n, max, K_NCCL_TESTS_LAUNCH_US);
		add_free(idx, n, max, K_NCCL_LL_FRAC);
		/* RCCL on an xGMI mesh: its kernel's own step (coll_rccl.c) */
		if (c->scn->xgmi)
			add_free(idx, n, max, K_RCCL_STEP_US);
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
		calib_case_free(v, i, idx, &n, max);
	return n;
}

/* calib_int.h */
int calib_case_hops(const struct val_set *v, int ci, int *p2p, int *shm, char *level, size_t n)
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
void calib_describe(const struct val_set *v, const int *cg, int g, struct calib_scn *d)
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
	d->file = plumb_keep_path(v->cases[c - 1].scenario);
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
			calib_case_hops(v, c, &p2p, &shm, d->nccl_level, sizeof(d->nccl_level));
			break;
		}
}


/* ---- what the data depend on ------------------------------------------ */

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
	int i, j, c, e, rc;

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
			if (calib_reaches(grp ? grp[j] : -1, cg, c))
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
		/* A constant whose effect a cap hides where it starts (LL's
		 * payload share under NCCL's LL ceiling) still informs the data
		 * if a value inside its plausible range moves them: tried at
		 * both ends of the range before it is called uninformed. */
		for (e = 0; e < 2 && infl[j] <= CALIB_INFORM &&
			    plumb_const_defs[k].plo < plumb_const_defs[k].phi; e++) {
			for (c = 0; c < v->ncases; c++)
				if (calib_reaches(grp ? grp[j] : -1, cg, c))
					v->cases[c].scn->k.v[k] = e ? plumb_const_defs[k].phi :
								      plumb_const_defs[k].plo;
			rc = val_predict_train(v, err);
			for (c = 0; c < v->ncases; c++)
				v->cases[c].scn->k.v[k] = keep[c];
			if (rc < 0)
				goto out;
			for (i = 0; i < v->npoints; i++)
				if (v->points[i].train && base[i] != 0)
					infl[j] = fmax(infl[j], fabs(v->points[i].predicted / base[i] - 1));
		}
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
int calib_drop_uninformed(struct val_set *v, const int *idx, const int *grp, const int *cg,
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
				if (cg[c] >= 0 && calib_reaches(grp[j], cg, c))
					r->dropped_at[r->ndropped] = v->cases[c].scn->k.v[idx[j]];
			r->dropped[r->ndropped] = idx[j];
			r->dropped_grp[r->ndropped++] = grp[j];
		}
	return 0;
}

