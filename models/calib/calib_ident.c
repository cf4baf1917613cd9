/*
 * calib_ident.c - what a fit's data can and cannot say: the data blocks
 * and their model errors, same-sign residual groups (missing physics),
 * and the directions of the constants the data cannot resolve, named as
 * combinations with the data that would resolve them.
 */
#include "calib.h"
#include "calib_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>

#include "coll.h"

/* ---- blocks and groups ------------------------------------------------ */

void calib_block_of(const struct val_set *v, const struct val_point *p, char *buf, size_t n)
{
	const struct val_case *c = &v->cases[p->c];
	char op[24];
	int k;
	switch (c->kind) {
	case VAL_DECODE:
		snprintf(buf, n, "decode");
		return;
	case VAL_SERVING:
		snprintf(buf, n, "serving");
		return;
	case VAL_P2P:
		snprintf(buf, n, "p2p");
		return;
	case VAL_NCCL:
		snprintf(op, sizeof(op), "%s", c->op);
		break;
	case VAL_COLLCSV:
		sscanf(p->label, "%23s", op);
		break;
	default:
		snprintf(buf, n, "other");
		return;
	}
	k = coll_op_parse(op);
	snprintf(buf, n, "%s", k >= 0 ? coll_op_name((enum coll_op)k) : op);
}

/* The size group of a collective point ("up to 64 KiB", ...), or the
 * context group of a decode step; "" when it has none. */
static void group_of(const struct val_set *v, const struct val_point *p, char *buf, size_t n)
{
	const struct val_case *c = &v->cases[p->c];
	const char *s;
	buf[0] = '\0';
	if (c->kind == VAL_NCCL || c->kind == VAL_COLLCSV) {
		unsigned long long b = 0;
		if ((s = strstr(p->label, " B")) != NULL) {
			while (s > p->label && s[-1] >= '0' && s[-1] <= '9')
				s--;
			b = strtoull(s, NULL, 10);
		}
		snprintf(buf, n, "%s", b <= 65536 ? "up to 64 KiB" : b <= (4ULL << 20) ?
			 "64 KiB-4 MiB" : "over 4 MiB");
	} else if (c->kind == VAL_DECODE && (s = strstr(p->label, "ctx")) != NULL) {
		snprintf(buf, n, "context %s", s + 3);
	}
}

static int blk_slot(struct calib_result *r, const char *name)
{
	int b;
	for (b = 0; b < r->nblk; b++)
		if (!strcmp(r->blk[b], name))
			return b;
	if (r->nblk >= CALIB_MAX_BLK)
		return -1;
	snprintf(r->blk[r->nblk], sizeof(r->blk[0]), "%s", name);
	return r->nblk++;
}

/* Flag the points i of train whose (case, block, group) match, when there
 * are at least 3, all on one side, by more than 2% on average. */
static void flag_group(const struct val_set *v, const int *train, const double *res, int nt,
		       const char *case_name, const char *blk, const char *grp,
		       struct calib_result *r)
{
	char b[32], g[48];
	double lo = INFINITY, hi = -INFINITY, sum = 0;
	int i, cnt = 0, pos = 0;
	for (i = 0; i < nt; i++) {
		const struct val_point *p = &v->points[train[i]];
		if (strcmp(v->cases[p->c].name, case_name))
			continue;
		calib_block_of(v, p, b, sizeof(b));
		if (strcmp(b, blk))
			continue;
		if (grp) {
			group_of(v, p, g, sizeof(g));
			if (strcmp(g, grp))
				continue;
		}
		cnt++;
		pos += res[i] > 0;
		sum += fabs(res[i]);
		lo = fmin(lo, res[i]);
		hi = fmax(hi, res[i]);
	}
	if (cnt < 3 || (pos && pos < cnt) || sum / cnt < 0.02 || r->nflag >= CALIB_MAX_FLAG)
		return;
	snprintf(r->flag[r->nflag++], sizeof(r->flag[0]),
		 "all %d points of %s (%s%s%s) are predicted %s: %+.0f%% to %+.0f%%", cnt, blk,
		 case_name, grp ? ", " : "", grp ? grp : "", pos ? "above the measurement" :
		 "below the measurement", 100 * (exp(pos ? lo : hi) - 1), 100 * (exp(pos ? hi : lo) - 1));
}

void calib_blocks(const struct val_set *v, const int *train, const double *res, int nt,
		  double dof_scale, struct calib_result *r)
{
	double ss[CALIB_MAX_BLK] = { 0 };
	char b[32], g[48];
	int i, k, c;
	r->nblk = r->nflag = 0;
	for (i = 0; i < nt; i++) {
		calib_block_of(v, &v->points[train[i]], b, sizeof(b));
		if ((k = blk_slot(r, b)) < 0)
			continue;
		r->blk_n[k]++;
		ss[k] += res[i] * res[i];
	}
	/* A block of fewer than 3 points has no spread of its own: it takes
	 * the pooled one. */
	for (k = 0; k < r->nblk; k++)
		r->blk_sd[k] = fmax(r->blk_n[k] >= 3 ? sqrt(ss[k] / r->blk_n[k] * dof_scale) : r->sd,
				    CALIB_S_FLOOR);
	/* Same-sign groups: a whole block of one case, else its size or
	 * context groups. */
	for (c = 0; c < v->ncases; c++) {
		int before;
		for (k = 0; k < r->nblk; k++) {
			before = r->nflag;
			flag_group(v, train, res, nt, v->cases[c].name, r->blk[k], NULL, r);
			if (r->nflag > before)
				continue;
			for (i = 0; i < nt; i++) {
				const struct val_point *p = &v->points[train[i]];
				int j, seen = 0;
				if (p->c != c)
					continue;
				calib_block_of(v, p, b, sizeof(b));
				group_of(v, p, g, sizeof(g));
				if (strcmp(b, r->blk[k]) || !g[0])
					continue;
				for (j = 0; j < i && !seen; j++) {
					char b2[32], g2[48];
					const struct val_point *q = &v->points[train[j]];
					if (q->c != c)
						continue;
					calib_block_of(v, q, b2, sizeof(b2));
					group_of(v, q, g2, sizeof(g2));
					seen = !strcmp(b2, b) && !strcmp(g2, g);
				}
				if (!seen)
					flag_group(v, train, res, nt, v->cases[c].name, b, g, r);
			}
		}
	}
}

/* ---- identifiability --------------------------------------------------- */

/* What data pins constant k apart from the others. */
static const struct {
	enum plumb_const k;
	const char *what;
} hints[] = {
	{ K_KMIN_GEMM_US, "decode steps at batch 1 of a second model with another mix of GEMM and "
			  "attention kernels, or one step's kernel times from an nsys trace" },
	{ K_KMIN_ATTN_US, "decode steps at batch 1 over several contexts of a model with another "
			  "count of attention kernels, or one step's kernel times from an nsys trace" },
	{ K_KMIN_MOE_US, "decode steps at batch 1 of a dense and an MoE model" },
	{ K_KMIN_ELEM_US, "one step's kernel times from an nsys trace" },
	{ K_ATTN_MEM_EFF, "decode steps at long context (32k-128k) and small batch" },
	{ K_MOE_MEM_EFF, "decode steps at batch 16-128 and short context" },
	{ K_MEM_EFF, "decode steps of a dense model at batch 1-8 and short context" },
	{ K_KERNEL_LAUNCH_US, "decode steps with and without CUDA graphs" },
	{ K_VM_SHM_STEP_US, "nccl-tests all_reduce_perf in the guest, 8 B-1 MB" },
	{ K_VM_STEP_EXITS, "nccl-tests all_reduce_perf in the guest, 8 B-1 MB, or decode steps "
			   "at batch 1 in the guest and on bare metal" },
	{ K_NCCL_SHM_STEP_US, "nccl-tests with NCCL_P2P_DISABLE=1 at 8 B-64 KB" },
	{ K_NCCL_SHM_GBS, "nccl-tests with NCCL_P2P_DISABLE=1 at 64 MB and more" },
	{ K_NCCL_SHM_RD_US, "nccl-tests with NCCL_P2P_DISABLE=1 at 128 KB-1 MB (LL through host "
			    "memory), or a GPU's load latency of pinned host memory" },
	{ K_NCCL_PCI_LL_US, "nccl-tests all_reduce_perf at 8 B-64 KB on 2 and on 8 GPUs" },
	{ K_NCCL_NVL_LL_US, "nccl-tests all_reduce_perf at 8 B-64 KB on 2 and on 8 GPUs" },
	{ K_NCCL_PCI_SIMPLE_US, "nccl-tests all_reduce_perf at 256 KB-4 MB on 2 and on 8 GPUs" },
	{ K_NCCL_NVL_SIMPLE_US, "nccl-tests all_reduce_perf at 256 KB-4 MB on 2 and on 8 GPUs" },
	{ K_NCCL_BASE_US, "nccl-tests at 8 B-64 KB on two GPU counts (the base does not scale "
			     "with the ring, the step latency does)" },
	{ K_NCCL_BASE_SIMPLE_US, "nccl-tests at 256 KB-4 MB on two GPU counts" },
	{ K_NCCL_BW_EFF, "nccl-tests all_reduce_perf at 64 MB and more" },
	{ K_NCCL_LL_FRAC, "nccl-tests at 16-256 KB, where LL and Simple cross" },
	{ K_RCCL_STEP_US, "rccl-tests all_reduce_perf on 8 GPUs at 8-128 B (the ring's empty "
			  "steps) and at 1 KB-4 MB (MSCCL allpairs' local reduce steps)" },
	{ K_NCCL_TESTS_LAUNCH_US, "nccl-tests at 8 B with one GPU per thread (-t N -g 1)" },
	{ K_P2P_LAT_US, "p2pBandwidthLatencyTest's latency matrix with P2P enabled" },
	{ K_PCIE_EFF, "p2pBandwidthLatencyTest's bandwidth matrices" },
	{ K_BOUNCE_FLOOR_US, "p2pBandwidthLatencyTest's latency matrix with P2P disabled" },
	{ K_BOUNCE_CHUNK_KIB, "copy bandwidth with P2P disabled at several sizes" },
};

const char *calib_hint(int k)
{
	size_t i;
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if ((int)hints[i].k == k)
			return hints[i].what;
	return "data that moves it without moving the others";
}

/* Eigenvalues (ascending) and vectors (columns) of the n x n symmetric A. */
static int eigen(const double *A, int n, gsl_vector *val, gsl_matrix *vec)
{
	gsl_matrix *m = gsl_matrix_alloc((size_t)n, (size_t)n);
	gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc((size_t)n);
	int i, j, rc = -1;
	if (m && w) {
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				gsl_matrix_set(m, (size_t)i, (size_t)j, A[i * n + j]);
		rc = gsl_eigen_symmv(m, val, vec, w) == GSL_SUCCESS ? 0 : -1;
		if (!rc)
			gsl_eigen_symmv_sort(val, vec, GSL_EIGEN_SORT_VAL_ASC);
	}
	if (m)
		gsl_matrix_free(m);
	if (w)
		gsl_eigen_symmv_free(w);
	return rc;
}

/* The prior's precision of parameter j at its fitted value. */
static double prior_prec(const struct calib_result *r, int j)
{
	double sd = calib_prior_sd(&r->prior[j], r->value[j]);
	return 1 / (sd * sd);
}

/* Print combination vector e (whitened, over the m constants map[])
 * in value terms, with its value and standard error. */
static void print_combo(FILE *f, const struct calib_result *r, const int *map, int m,
			const double *e, const double *sdp)
{
	double c[CALIB_MAX_FREE], cmin = INFINITY, C = 0, var = 0;
	char nb[160];
	int a, b, same = 1, first = 1, n = r->nfree;
	for (a = 0; a < m; a++) {
		/* whitened -> log(value) -> value */
		c[a] = e[a] / sdp[map[a]] / r->value[map[a]];
		if (fabs(e[a]) > 0.05)
			cmin = fmin(cmin, fabs(c[a]));
		same &= !strcmp(plumb_const_defs[r->idx[map[a]]].unit,
				plumb_const_defs[r->idx[map[0]]].unit);
	}
	if (!(cmin < INFINITY))
		return;
	for (a = 0; a < m; a++)
		if (fabs(e[a]) > 0.05 && c[a] < 0)
			break;
	/* the largest term positive */
	{
		int big = 0;
		for (a = 1; a < m; a++)
			if (fabs(e[a]) > fabs(e[big]))
				big = a;
		if (c[big] < 0)
			cmin = -cmin;
	}
	for (a = 0; a < m; a++) {
		c[a] = fabs(e[a]) > 0.05 ? c[a] / cmin : 0;
		C += c[a] * r->value[map[a]];
	}
	for (a = 0; a < m; a++)
		for (b = 0; b < m; b++)
			var += c[a] * c[b] * r->cov[map[a] * n + map[b]];
	for (a = 0; a < m; a++) {
		if (c[a] == 0)
			continue;
		fprintf(f, "%s%.3g x %s", first ? (c[a] < 0 ? "-" : "") : (c[a] < 0 ? " - " : " + "),
			fabs(c[a]), calib_param_name(r, map[a], nb, sizeof(nb)));
		first = 0;
	}
	fprintf(f, " = %.4g +- %.2g%s%s", C, sqrt(fmax(var, 0)), same ? " " : "",
		same ? plumb_const_defs[r->idx[map[0]]].unit : "");
}

int calib_ident(FILE *f, const struct calib_result *r, char *resolve, size_t rn)
{
	int n = r->nfree, k, j, i, a, b, ncomp = 0;
	unsigned comp[CALIB_MAX_FREE], hinted = 0;
	gsl_vector *val = gsl_vector_alloc((size_t)(n > 0 ? n : 1));
	gsl_matrix *vec = gsl_matrix_alloc((size_t)(n > 0 ? n : 1), (size_t)(n > 0 ? n : 1));
	double wi[CALIB_MAX_FREE * CALIB_MAX_FREE], sdp[CALIB_MAX_FREE];
	char nb[160];
	size_t rl = 0;

	if (resolve && rn)
		resolve[0] = '\0';
	if (!val || !vec || n < 1)
		goto out;
	/* In the priors' units: each log(value) over its prior's spread, so
	 * that "the data say less than the prior" is an eigenvalue below 1
	 * and a direction's components compare constants of any spread. */
	for (j = 0; j < n; j++)
		sdp[j] = 1 / sqrt(prior_prec(r, j));
	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			wi[j * n + i] = r->info[j * n + i] * sdp[j] * sdp[i];
	if (eigen(wi, n, val, vec) < 0)
		goto out;
	/* Each unresolved direction: the constants along it and those the
	 * posterior ties to its main one; overlapping sets merge. */
	for (k = 0; k < n; k++) {
		unsigned set = 0;
		int main_j = 0;
		if (gsl_vector_get(val, (size_t)k) >= 1)
			continue;
		for (j = 0; j < n; j++)
			if (fabs(gsl_matrix_get(vec, (size_t)j, (size_t)k)) >
			    fabs(gsl_matrix_get(vec, (size_t)main_j, (size_t)k)))
				main_j = j;
		for (j = 0; j < n; j++) {
			double e = gsl_matrix_get(vec, (size_t)j, (size_t)k);
			double d = sqrt(r->cov[j * n + j] * r->cov[main_j * n + main_j]);
			double rho = d > 0 ? r->cov[j * n + main_j] / d : 0;
			if (fabs(e) >= 0.1 || fabs(rho) >= 0.5)
				set |= 1u << j;
		}
		for (i = 0; i < ncomp; i++)
			if (comp[i] & set) {
				set |= comp[i];
				comp[i] = comp[--ncomp];
				i = -1;
			}
		comp[ncomp++] = set;
	}
	for (i = 0; i < ncomp; i++) {
		int map[CALIB_MAX_FREE], m = 0, nres = 0;
		double sub[CALIB_MAX_FREE * CALIB_MAX_FREE];
		gsl_vector *sv;
		gsl_matrix *sm;
		for (j = 0; j < n; j++)
			if (comp[i] >> j & 1)
				map[m++] = j;
		for (a = 0; a < m && resolve; a++)
			if (!(hinted >> map[a] & 1) && rl + 1 < rn) {
				hinted |= 1u << map[a];
				rl += (size_t)snprintf(resolve + rl, rn - rl, "%s%s: %s", rl ? "; " : "",
						       calib_param_name(r, map[a], nb, sizeof(nb)),
						       calib_hint(r->idx[map[a]]));
			}
		if (!f)
			continue;
		if (m == 1) {
			fprintf(f, "  the data hardly inform %s: it stays near its prior, %.4g "
				   "(90%% %.4g-%.4g)\n", calib_param_name(r, map[0], nb, sizeof(nb)),
				r->value[map[0]], r->ci_lo[map[0]], r->ci_hi[map[0]]);
			continue;
		}
		fputs("  the data cannot tell ", f);
		for (a = 0; a < m; a++)
			fprintf(f, "%s%s", a ? (a == m - 1 ? " and " : ", ") : "",
				calib_param_name(r, map[a], nb, sizeof(nb)));
		fputs(" apart", f);
		sv = gsl_vector_alloc((size_t)m);
		sm = gsl_matrix_alloc((size_t)m, (size_t)m);
		for (a = 0; a < m; a++)
			for (b = 0; b < m; b++)
				sub[a * m + b] = wi[map[a] * n + map[b]];
		if (sv && sm && eigen(sub, m, sv, sm) == 0)
			for (k = m - 1; k >= 0 && nres < 2; k--) {
				double e[CALIB_MAX_FREE];
				if (gsl_vector_get(sv, (size_t)k) < 1)
					break;
				for (a = 0; a < m; a++)
					e[a] = gsl_matrix_get(sm, (size_t)a, (size_t)k);
				fputs(nres ? "; and " : ": only ", f);
				print_combo(f, r, map, m, e, sdp);
				nres++;
			}
		fputs(nres ? (nres == 1 ? " is determined\n" : " are determined\n") :
		      ", nor any combination of them: they stay near their priors\n", f);
		if (sv)
			gsl_vector_free(sv);
		if (sm)
			gsl_matrix_free(sm);
	}
out:
	if (val)
		gsl_vector_free(val);
	if (vec)
		gsl_matrix_free(vec);
	return ncomp;
}
