/*
 * calib_file.c - the calibration file (calib.h): writing it, loading it,
 * and applying it with --calib: shared constants to every scenario (the
 * loader's overlay), a joint fit's per-scenario constants to the scenario
 * of that name only (the load hook), covariance draws for intervals.
 *
 * Format (docs/cli-calibrate.md, "The calibration file"): top-level `constants:`
 * apply everywhere; `scenarios: NAME: {constant: value}` only to a scenario
 * named NAME; `fitted_on:` records each scenario the fit ran on (GPU
 * models, virtualization, serving stack, NCCL_P2P_LEVEL); the covariance
 * names a per-scenario entry "NAME/constant", and so does
 * `standard_errors:`; `units:` gives each constant's unit. These are data,
 * not comments, as libyaml's emitter writes none; the loader reads the
 * standard errors and checks only the names of `units:`. Older files
 * without the newer keys load unchanged.
 */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "yout.h"
#include "ytree.h"

/* ---- writing ----------------------------------------------------------- */

/* A key and its plain value. */
static void kv(struct yout *y, const char *key, const char *val)
{
	yout_scalar(y, key, 0);
	yout_scalar(y, val, 0);
}

/* A key and its text value (double-quoted). */
static void kq(struct yout *y, const char *key, const char *val)
{
	yout_scalar(y, key, 0);
	yout_scalar(y, val, 1);
}

static void write_scn(struct yout *y, const struct calib_scn *d)
{
	yout_map(y, YOUT_BLOCK);
	kq(y, "name", d->name);
	kq(y, "file", d->file ? d->file : "");
	kq(y, "gpus", d->gpus);
	kv(y, "virtualization", d->vm ? "vm" : "bare-metal");
	if (d->vm) {
		kv(y, "chipset", d->chipset);
		kv(y, "host_iommu", d->iommu);
	}
	yout_scalar(y, "serving", 0);
	yout_map(y, YOUT_BLOCK);
	kv(y, "engine", d->engine);
	kv(y, "cuda_graphs", d->cuda_graphs ? "true" : "false");
	kq(y, "custom_allreduce", d->allreduce);    /* "off" read plain is a YAML 1.1 bool */
	kv(y, "allreduce_fusion", d->allreduce_fusion ? "true" : "false");
	kq(y, "moe_backend", d->moe_backend);
	kq(y, "attention_backend", d->attention_backend);
	kv(y, "dsa", d->dsa);
	yout_map_end(y);
	if (d->nccl_level[0])
		kq(y, "nccl_p2p_level", d->nccl_level);
	yout_map_end(y);
}

/* Parameter j's name as the covariance and standard_errors: give it:
 * "constant", or "SCENARIO/constant" for a per-scenario one. */
static void param_name(const struct calib_result *r, int j, char *buf, size_t n)
{
	if (r->grp[j] < 0)
		snprintf(buf, n, "%s", plumb_const_defs[r->idx[j]].name);
	else
		snprintf(buf, n, "%s/%s", r->scn[r->grp[j]].name, plumb_const_defs[r->idx[j]].name);
}

int calib_write(FILE *f, const struct val_set *v, const struct calib_result *r,
		const char *const *files, int nfiles, const char *path, struct plumb_err *err)
{
	struct yout y;
	char buf[256];
	int i, j, g, any = 0;

	/* comments are not events: written before the document */
	fputs("# plumb calibration: fitted constants and their covariance.\n"
	      "# Use with --calib FILE on any plumb command.\n"
	      "# residual_rms: RMS of log(predicted / measured); residual_sd: sqrt(sum of\n"
	      "# squares / dof), the model error of intervals.\n", f);
	yout_begin(&y, f);
	yout_map(&y, YOUT_BLOCK);
	kv(&y, "plumb_calibration", "1");
	kq(&y, "scenario", v->ncases ? v->cases[0].scenario : "");
	yout_scalar(&y, "data", 0);
	yout_seq(&y, YOUT_BLOCK);
	for (i = 0; i < nfiles; i++)
		yout_scalar(&y, files[i], 1);
	yout_seq_end(&y);
	yout_scalar(&y, "points", 0);
	yout_fmt(&y, "%d", r->npoints);
	yout_scalar(&y, "dof", 0);
	yout_fmt(&y, "%d", r->dof);
	kv(&y, "converged", r->converged ? "true" : "false");
	kq(&y, "status", r->status);
	yout_scalar(&y, "r2", 0);
	yout_fmt(&y, "%.6f", r->r2);
	yout_scalar(&y, "residual_rms", 0);
	yout_fmt(&y, "%.6g", r->rms);
	yout_scalar(&y, "residual_sd", 0);
	yout_fmt(&y, "%.6g", r->sd);
	if (r->nblk > 0) {
		/* each data block's own model error: a prediction adds the error
		 * of what it depends on (calib_model_error) */
		yout_scalar(&y, "model_error", 0);
		yout_map(&y, YOUT_BLOCK);
		for (i = 0; i < r->nblk; i++) {
			yout_scalar(&y, r->blk[i], 0);
			yout_fmt(&y, "%.6g", r->blk_sd[i]);
		}
		yout_map_end(&y);
	}
	if (r->nscn > 0) {
		yout_scalar(&y, "fitted_on", 0);
		yout_seq(&y, YOUT_BLOCK);
		for (g = 0; g < r->nscn; g++)
			write_scn(&y, &r->scn[g]);
		yout_seq_end(&y);
	}
	yout_scalar(&y, "constants", 0);
	yout_map(&y, YOUT_BLOCK);
	for (j = 0; j < r->nfree; j++)
		if (r->grp[j] < 0) {
			yout_scalar(&y, plumb_const_defs[r->idx[j]].name, 0);
			yout_fmt(&y, "%.9g", r->value[j]);
		} else {
			any = 1;
		}
	yout_map_end(&y);
	if (any) {
		yout_scalar(&y, "scenarios", 0);
		yout_map(&y, YOUT_BLOCK);
		for (g = 0; g < r->nscn; g++) {
			int first = 1;
			for (j = 0; j < r->nfree; j++) {
				if (r->grp[j] != g)
					continue;
				if (first) {
					yout_scalar(&y, r->scn[g].name, 1);
					yout_map(&y, YOUT_BLOCK);
					first = 0;
				}
				yout_scalar(&y, plumb_const_defs[r->idx[j]].name, 0);
				yout_fmt(&y, "%.9g", r->value[j]);
			}
			if (!first)
				yout_map_end(&y);
		}
		yout_map_end(&y);
	}
	/* what the values' comments said before: each one's spread and unit */
	yout_scalar(&y, "standard_errors", 0);
	yout_map(&y, YOUT_BLOCK);
	for (j = 0; j < r->nfree; j++) {
		param_name(r, j, buf, sizeof(buf));
		yout_scalar(&y, buf, r->grp[j] >= 0);
		yout_fmt(&y, "%.9g", r->se[j]);
	}
	yout_map_end(&y);
	yout_scalar(&y, "units", 0);
	yout_map(&y, YOUT_BLOCK);
	for (j = 0; j < r->nfree; j++) {
		for (i = 0; i < j && r->idx[i] != r->idx[j]; i++)
			;
		if (i == j)     /* each constant once, shared or per scenario */
			kv(&y, plumb_const_defs[r->idx[j]].name, plumb_const_defs[r->idx[j]].unit);
	}
	yout_map_end(&y);
	yout_scalar(&y, "covariance", 0);
	yout_map(&y, YOUT_BLOCK);
	yout_scalar(&y, "names", 0);
	yout_seq(&y, YOUT_FLOW);
	for (j = 0; j < r->nfree; j++) {
		param_name(r, j, buf, sizeof(buf));
		yout_scalar(&y, buf, r->grp[j] >= 0);
	}
	yout_seq_end(&y);
	yout_scalar(&y, "matrix", 0);
	yout_seq(&y, YOUT_BLOCK);
	for (i = 0; i < r->nfree; i++) {
		yout_seq(&y, YOUT_FLOW);
		for (j = 0; j < r->nfree; j++)
			yout_fmt(&y, "%.9g", r->cov[i * r->nfree + j]);
		yout_seq_end(&y);
	}
	yout_seq_end(&y);
	yout_map_end(&y);
	yout_map_end(&y);
	return yout_end(&y, path, err);
}

/* ---- loading ------------------------------------------------------------ */

/* Index of the recorded scenario named name, added (name only) when new;
 * -1 when the table is full. */
static int scn_slot(struct calib_file *c, const char *name)
{
	int g;
	for (g = 0; g < c->nscn; g++)
		if (!strcmp(c->scn[g].name, name))
			return g;
	if (c->nscn >= CALIB_MAX_SCN)
		return -1;
	memset(&c->scn[c->nscn], 0, sizeof(c->scn[0]));
	snprintf(c->scn[c->nscn].name, sizeof(c->scn[0].name), "%s", name);
	return c->nscn++;
}

/* Optional string key of map m into buf. */
static int opt_str(const struct ytree *t, const struct ynode *m, const char *key, char *buf,
		   size_t n, struct plumb_err *err)
{
	const struct ynode *x = ymap_get(m, key);
	return x ? yget_str(t, x, key, buf, n, err) : 0;
}

static int load_fitted_on(const struct ytree *t, const struct ynode *list, struct calib_file *c,
			  struct plumb_err *err)
{
	static const char *const keys[] = {
		"name", "file", "gpus", "virtualization", "chipset", "host_iommu", "serving",
		"nccl_p2p_level", NULL
	};
	static const char *const skeys[] = {
		"engine", "cuda_graphs", "custom_allreduce", "allreduce_fusion", "moe_backend",
		"attention_backend", "dsa", NULL
	};
	size_t i;
	int rc;
	if ((rc = yexpect(t, list, Y_SEQ, "fitted_on", err)) < 0)
		return rc;
	for (i = 0; i < list->n; i++) {
		const struct ynode *e = list->vals[i], *x, *sv;
		struct calib_scn *d;
		char name[96], mode[32] = "";
		int g;
		if ((rc = yexpect(t, e, Y_MAP, "fitted_on entry", err)) < 0 ||
		    (rc = ymap_check_keys(t, e, "fitted_on entry", keys, err)) < 0)
			return rc;
		if (!(x = ymap_get(e, "name")))
			return yerr(t, e, PLUMB_EINPUT, err, "fitted_on entry needs 'name'");
		if ((rc = yget_str(t, x, "name", name, sizeof(name), err)) < 0)
			return rc;
		if ((g = scn_slot(c, name)) < 0)
			return yerr(t, e, PLUMB_EINPUT, err, "more than %d scenarios", CALIB_MAX_SCN);
		d = &c->scn[g];
		if ((x = ymap_get(e, "file"))) {
			/* a path, whole at any length */
			if ((rc = yexpect(t, x, Y_SCALAR, "file", err)) < 0)
				return rc;
			if (!(d->file = plumb_keep_path(x->str)))
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		if ((rc = opt_str(t, e, "gpus", d->gpus, sizeof(d->gpus), err)) < 0 ||
		    (rc = opt_str(t, e, "virtualization", mode, sizeof(mode), err)) < 0 ||
		    (rc = opt_str(t, e, "chipset", d->chipset, sizeof(d->chipset), err)) < 0 ||
		    (rc = opt_str(t, e, "host_iommu", d->iommu, sizeof(d->iommu), err)) < 0 ||
		    (rc = opt_str(t, e, "nccl_p2p_level", d->nccl_level, sizeof(d->nccl_level), err)) < 0)
			return rc;
		d->vm = !strcmp(mode, "vm");
		d->cuda_graphs = 1;
		if ((sv = ymap_get(e, "serving"))) {
			if ((rc = yexpect(t, sv, Y_MAP, "serving", err)) < 0 ||
			    (rc = ymap_check_keys(t, sv, "serving", skeys, err)) < 0 ||
			    (rc = opt_str(t, sv, "engine", d->engine, sizeof(d->engine), err)) < 0 ||
			    (rc = opt_str(t, sv, "custom_allreduce", d->allreduce, sizeof(d->allreduce), err)) < 0 ||
			    (rc = opt_str(t, sv, "moe_backend", d->moe_backend, sizeof(d->moe_backend), err)) < 0 ||
			    (rc = opt_str(t, sv, "attention_backend", d->attention_backend,
					  sizeof(d->attention_backend), err)) < 0 ||
			    (rc = opt_str(t, sv, "dsa", d->dsa, sizeof(d->dsa), err)) < 0)
				return rc;
			if ((x = ymap_get(sv, "cuda_graphs")) &&
			    (rc = yget_bool(t, x, "cuda_graphs", &d->cuda_graphs, err)) < 0)
				return rc;
			if ((x = ymap_get(sv, "allreduce_fusion")) &&
			    (rc = yget_bool(t, x, "allreduce_fusion", &d->allreduce_fusion, err)) < 0)
				return rc;
		}
	}
	return 0;
}

/* Constants of map m into c with group g. */
static int load_values(const struct ytree *t, const struct ynode *m, const char *what, int g,
		       struct calib_file *c, struct plumb_err *err)
{
	size_t i;
	int rc;
	if ((rc = yexpect(t, m, Y_MAP, what, err)) < 0)
		return rc;
	for (i = 0; i < m->n; i++) {
		int k = consts_find(m->keys[i]->str);
		if (k < 0)
			return yerr(t, m->keys[i], PLUMB_EINPUT, err, "unknown constant '%s'", m->keys[i]->str);
		if (c->n >= CALIB_MAX_ENTRIES)
			return yerr(t, m->keys[i], PLUMB_EINPUT, err, "too many constants");
		if ((rc = yget_double(t, m->vals[i], m->keys[i]->str, plumb_const_defs[k].lo,
				      plumb_const_defs[k].hi, &c->value[c->n], err)) < 0)
			return rc;
		c->grp[c->n] = g;
		c->idx[c->n++] = k;
	}
	return 0;
}

/* The value of covariance entry a (0 when the file has none). */
static double cov_value(const struct calib_file *c, int a)
{
	int i;
	for (i = 0; i < c->n; i++)
		if (c->idx[i] == c->cov_idx[a] && c->grp[i] == c->cov_grp[a])
			return c->value[i];
	return 0;
}

/* Lower Cholesky factor of c's covariance carried to log(value) (draws
 * are log-normal around the fitted values); a spread that is not finite
 * or more than CALIB_MAX_SDLOG is scaled down to it, correlations kept. A
 * constant without variance (no standard error) is not drawn: its row
 * stays 0. 0 when the matrix is not positive definite. */
static int factor(struct calib_file *c)
{
	double lc[CALIB_MAX_FREE * CALIB_MAX_FREE], f[CALIB_MAX_FREE];
	int n = c->ncov, a, b, k;
	memset(c->chol, 0, sizeof(c->chol));
	for (a = 0; a < n; a++) {
		double va = cov_value(c, a), sd;
		sd = va > 0 ? sqrt(c->cov[a * n + a]) / va : NAN;
		f[a] = !isfinite(sd) || sd <= 0 ? 0 : sd > CALIB_MAX_SDLOG ? CALIB_MAX_SDLOG / sd : 1;
	}
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			double va = cov_value(c, a), vb = cov_value(c, b);
			lc[a * n + b] = f[a] && f[b] ? c->cov[a * n + b] / (va * vb) * f[a] * f[b] : 0;
		}
	for (a = 0; a < n; a++)
		for (b = 0; b <= a; b++) {
			double sum = lc[a * n + b];
			if (lc[a * n + a] == 0 || lc[b * n + b] == 0)
				continue;
			for (k = 0; k < b; k++)
				sum -= c->chol[a * n + k] * c->chol[b * n + k];
			if (a == b) {
				if (sum <= 0)
					return 0;
				c->chol[a * n + a] = sqrt(sum);
			} else {
				c->chol[a * n + b] = sum / c->chol[b * n + b];
			}
		}
	return 1;
}

/*
 * The entry of c that x names ("constant", or "SCENARIO/constant" for a
 * per-scenario one, as the covariance and standard_errors: name them):
 * its index, with its constant in *k and group in *g; or an error at x,
 * `what` saying where the name is.
 */
static int entry_named(const struct ytree *t, const struct ynode *x, struct calib_file *c,
		       const char *what, int *k, int *g, struct plumb_err *err)
{
	const char *nm = x->type == Y_SCALAR ? x->str : "";
	const char *slash = strrchr(nm, '/');
	int j;

	*k = consts_find(slash ? slash + 1 : nm);
	*g = -1;
	if (x->type != Y_SCALAR)
		return yerr(t, x, PLUMB_EINPUT, err, "expected a constant's name in %s", what);
	if (*k < 0)
		return yerr(t, x, PLUMB_EINPUT, err, "unknown constant '%s' in %s", nm, what);
	if (slash) {
		char sn[96];
		snprintf(sn, sizeof(sn), "%.*s", (int)(slash - nm), nm);
		if ((*g = scn_slot(c, sn)) < 0)
			return yerr(t, x, PLUMB_EINPUT, err, "more than %d scenarios", CALIB_MAX_SCN);
	}
	for (j = 0; j < c->n && !(c->idx[j] == *k && c->grp[j] == *g); j++)
		;
	if (j == c->n)
		return yerr(t, x, PLUMB_EINPUT, err, "'%s' in %s is not among the file's constants",
			    nm, what);
	return j;
}

/* `standard_errors:` into c->se; have[] marks the entries it gives. */
static int load_se(const struct ytree *t, const struct ynode *m, struct calib_file *c,
		   int *have, struct plumb_err *err)
{
	size_t i;
	int rc, j, k, g;
	if ((rc = yexpect(t, m, Y_MAP, "standard_errors", err)) < 0)
		return rc;
	for (i = 0; i < m->n; i++) {
		if ((j = entry_named(t, m->keys[i], c, "standard_errors", &k, &g, err)) < 0)
			return j;
		if ((rc = yget_double(t, m->vals[i], m->keys[i]->str, 0, 1e300, &c->se[j], err)) < 0)
			return rc;
		have[j] = 1;
	}
	return 0;
}

/* `units:`: for people; its names must be constants, its values text. */
static int check_units(const struct ytree *t, const struct ynode *m, struct plumb_err *err)
{
	size_t i;
	int rc;
	if ((rc = yexpect(t, m, Y_MAP, "units", err)) < 0)
		return rc;
	for (i = 0; i < m->n; i++) {
		if (consts_find(m->keys[i]->str) < 0)
			return yerr(t, m->keys[i], PLUMB_EINPUT, err, "unknown constant '%s'",
				    m->keys[i]->str);
		if ((rc = yexpect(t, m->vals[i], Y_SCALAR, m->keys[i]->str, err)) < 0)
			return rc;
	}
	return 0;
}

static int load_cov(const struct ytree *t, const struct ynode *m, struct calib_file *c,
		    struct plumb_err *err)
{
	struct ynode *names = ymap_get(m, "names"), *mat = ymap_get(m, "matrix");
	size_t i, j;
	int rc, ok, k, g;
	if (m->type != Y_MAP || !names || !mat || names->type != Y_SEQ || mat->type != Y_SEQ ||
	    names->n != mat->n || names->n > CALIB_MAX_FREE)
		return yerr(t, m, PLUMB_EINPUT, err,
			    "'covariance' needs 'names' and a square 'matrix' of the same size (at most %d)",
			    CALIB_MAX_FREE);
	c->ncov = (int)names->n;
	for (i = 0; i < names->n; i++) {
		if ((rc = entry_named(t, names->vals[i], c, "the covariance", &k, &g, err)) < 0)
			return rc;
		for (j = 0; j < i; j++)
			if (c->cov_idx[j] == k && c->cov_grp[j] == g)
				return yerr(t, names->vals[i], PLUMB_EINPUT, err,
					    "'%s' is named twice in the covariance", names->vals[i]->str);
		c->cov_idx[i] = k;
		c->cov_grp[i] = g;
		if (mat->vals[i]->type != Y_SEQ || mat->vals[i]->n != names->n)
			return yerr(t, mat->vals[i], PLUMB_EINPUT, err,
				    "covariance row %zu needs %zu numbers", i + 1, names->n);
		for (j = 0; j < names->n; j++)
			if ((rc = yget_double(t, mat->vals[i]->vals[j], "covariance", -1e300, 1e300,
					      &c->cov[i * names->n + j], err)) < 0)
				return rc;
	}
	ok = factor(c);
	c->has_chol = ok && c->ncov > 0;
	if (!ok)
		return yerr(t, m, PLUMB_EINPUT, err,
			    "'covariance' is not a covariance matrix (not positive definite); "
			    "write the file again with plumb calibrate");
	return 0;
}

int calib_load(const char *path, struct calib_file *c, struct plumb_err *err)
{
	static const char *const keys[] = {
		"plumb_calibration", "scenario", "data", "points", "dof", "converged", "status", "r2",
		"residual_rms", "residual_sd", "model_error", "fitted_on", "constants", "scenarios",
		"standard_errors", "units", "covariance", NULL
	};
	struct ytree *t = NULL;
	struct ynode *x, *m;
	int have[CALIB_MAX_ENTRIES] = { 0 };
	size_t i;
	long l;
	int rc, j;

	memset(c, 0, sizeof(*c));
	if (!(c->path = plumb_keep_path(path)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = ytree_load(path, &t, err)) < 0)
		return rc;
	if (!t->root || t->root->type != Y_MAP) {
		rc = plumb_err_set(err, PLUMB_EINPUT, path, 1, 1,
				   "not a calibration file (expected 'plumb_calibration: 1')");
		goto out;
	}
	if ((rc = ymap_check_keys(t, t->root, "calibration", keys, err)) < 0)
		goto out;
	if (!(x = ymap_get(t->root, "plumb_calibration"))) {
		rc = yerr(t, t->root, PLUMB_EINPUT, err, "missing 'plumb_calibration: 1'");
		goto out;
	}
	if ((rc = yget_int(t, x, "plumb_calibration", 1, 1, &l, err)) < 0)
		goto out;
	if ((x = ymap_get(t->root, "points"))) {
		if ((rc = yget_int(t, x, "points", 0, 1000000000, &l, err)) < 0)
			goto out;
		c->npoints = (int)l;
	}
	if ((x = ymap_get(t->root, "dof"))) {
		if ((rc = yget_int(t, x, "dof", 0, 1000000000, &l, err)) < 0)
			goto out;
		c->dof = (int)l;
	}
	if ((x = ymap_get(t->root, "residual_sd")) &&
	    (rc = yget_double(t, x, "residual_sd", 0, 10, &c->sd, err)) < 0)
		goto out;
	if ((x = ymap_get(t->root, "model_error"))) {
		if ((rc = yexpect(t, x, Y_MAP, "model_error", err)) < 0)
			goto out;
		for (i = 0; i < x->n; i++) {
			if (c->nblk >= CALIB_MAX_BLK) {
				rc = yerr(t, x->keys[i], PLUMB_EINPUT, err, "more than %d data blocks",
					  CALIB_MAX_BLK);
				goto out;
			}
			snprintf(c->blk[c->nblk], sizeof(c->blk[0]), "%s", x->keys[i]->str);
			if ((rc = yget_double(t, x->vals[i], x->keys[i]->str, 0, 10,
					      &c->blk_sd[c->nblk], err)) < 0)
				goto out;
			c->nblk++;
		}
	}
	if ((x = ymap_get(t->root, "fitted_on")) && (rc = load_fitted_on(t, x, c, err)) < 0)
		goto out;
	if (!(m = ymap_get(t->root, "constants"))) {
		rc = yerr(t, t->root, PLUMB_EINPUT, err, "missing 'constants'");
		goto out;
	}
	if ((rc = load_values(t, m, "constants", -1, c, err)) < 0)
		goto out;
	if ((m = ymap_get(t->root, "scenarios"))) {
		if ((rc = yexpect(t, m, Y_MAP, "scenarios", err)) < 0)
			goto out;
		for (i = 0; i < m->n; i++) {
			int g = scn_slot(c, m->keys[i]->str);
			if (g < 0) {
				rc = yerr(t, m->keys[i], PLUMB_EINPUT, err, "more than %d scenarios", CALIB_MAX_SCN);
				goto out;
			}
			if ((rc = load_values(t, m->vals[i], "scenario constants", g, c, err)) < 0)
				goto out;
		}
	}
	if ((m = ymap_get(t->root, "standard_errors")) && (rc = load_se(t, m, c, have, err)) < 0)
		goto out;
	if ((m = ymap_get(t->root, "units")) && (rc = check_units(t, m, err)) < 0)
		goto out;
	if ((m = ymap_get(t->root, "covariance")) && (rc = load_cov(t, m, c, err)) < 0)
		goto out;
	/* an older file has no standard_errors: the covariance's diagonal */
	for (i = 0; i < (size_t)c->ncov; i++)
		for (j = 0; j < c->n; j++)
			if (!have[j] && c->idx[j] == c->cov_idx[i] && c->grp[j] == c->cov_grp[i] &&
			    c->cov[i * (size_t)c->ncov + i] > 0)
				c->se[j] = sqrt(c->cov[i * (size_t)c->ncov + i]);
out:
	ytree_free(t);
	return rc;
}

/* ---- applying ------------------------------------------------------------ */

void calib_apply(const struct calib_file *c, struct plumb_consts *k)
{
	int i;
	for (i = 0; i < c->n; i++)
		if (c->grp[i] < 0) {
			k->v[c->idx[i]] = c->value[i];
			k->set[c->idx[i]] = 1;
		}
}

int calib_apply_file(const char *path, struct plumb_consts *k, struct plumb_err *err)
{
	struct calib_file *c = malloc(sizeof(*c));
	int rc;
	if (!c)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = calib_load(path, c, err)) == 0)
		calib_apply(c, k);
	free(c);
	return rc;
}

/* The names of c's constants of scope sc with group g (-2: any) into buf;
 * 0 when there are none. */
static int scope_names(const struct calib_file *c, enum plumb_scope sc, int g, char *buf, size_t n)
{
	int i, cnt = 0;
	buf[0] = '\0';
	for (i = 0; i < c->n; i++) {
		size_t len = strlen(buf);
		if (plumb_const_defs[c->idx[i]].scope != sc || (g != -2 && c->grp[i] != g))
			continue;
		if (len + 40 < n)
			snprintf(buf + len, n - len, "%s%s", cnt ? ", " : "", plumb_const_defs[c->idx[i]].name);
		cnt++;
	}
	return cnt;
}

/* s's GPU model ids, "a,b". */
static void scn_gpus(const struct scenario *s, char *buf, size_t n)
{
	int i, j;
	buf[0] = '\0';
	for (i = 0; i < s->ngpus; i++) {
		const char *m = s->nodes[s->gpu_node[i]].model;
		int seen = 0;
		for (j = 0; j < i; j++)
			seen |= !strcmp(s->nodes[s->gpu_node[j]].model, m);
		if (!seen && strlen(buf) + strlen(m) + 2 < n)
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "," : "", m);
	}
}

void calib_apply_scn(struct calib_file *c, struct scenario *s, FILE *f)
{
	char gpus[128], names[512], fitted[256];
	const char *sname = s->name[0] ? s->name : s->path;
	int g, i, mine = -1, nper = 0, gpu_ok = 0, eng_ok = 0;

	for (g = 0; g < c->nscn; g++)
		if (!strcmp(c->scn[g].name, sname))
			mine = g;
	for (i = 0; i < c->n; i++) {
		nper += c->grp[i] >= 0;
		if (mine >= 0 && c->grp[i] == mine) {
			s->k.v[c->idx[i]] = c->value[i];
			s->k.set[c->idx[i]] = 1;
			s->k_catalog[c->idx[i]] = 0;
			s->k_line[c->idx[i]] = s->k_col[c->idx[i]] = 0;
		}
	}
	/* Warn once per scenario file. */
	for (i = 0; i < c->nwarned; i++)
		if (!strcmp(c->warned[i], s->path))
			return;
	if (c->nwarned < (int)(sizeof(c->warned) / sizeof(c->warned[0])))
		c->warned[c->nwarned++] = s->path;   /* kept for the process's life */
	if (!c->nscn)
		return;   /* an older file: nothing recorded to compare with */
	scn_gpus(s, gpus, sizeof(gpus));
	fitted[0] = '\0';
	for (g = 0; g < c->nscn; g++) {
		const struct calib_scn *d = &c->scn[g];
		gpu_ok |= !d->gpus[0] || !strcmp(d->gpus, gpus);
		eng_ok |= !d->engine[0] ||
			  (!strcmp(d->engine, scn_engine_name(s->serving.engine)) &&
			   d->cuda_graphs == s->serving.cuda_graphs &&
			   !strcmp(d->allreduce, scn_allreduce_name(s->serving.allreduce)) &&
			   d->allreduce_fusion == s->serving.allreduce_fusion);
		if (strlen(fitted) + strlen(d->name) + 3 < sizeof(fitted))
			snprintf(fitted + strlen(fitted), sizeof(fitted) - strlen(fitted), "%s%s",
				 g ? ", " : "", d->name);
	}
	if (!gpu_ok && scope_names(c, SCOPE_GPU, -2, names, sizeof(names)))
		fprintf(f, "plumb: warning: --calib %s: gpu-scope constants (%s) were fitted on %s; "
			   "scenario '%s' has %s\n", c->path, names, c->scn[0].gpus, sname, gpus);
	if (!eng_ok && scope_names(c, SCOPE_ENGINE, -2, names, sizeof(names)))
		fprintf(f, "plumb: warning: --calib %s: engine-scope constants (%s) were fitted with %s "
			   "(cuda_graphs %s, custom_allreduce %s); scenario '%s' serves with %s "
			   "(cuda_graphs %s, custom_allreduce %s)\n", c->path, names, c->scn[0].engine,
			c->scn[0].cuda_graphs ? "on" : "off", c->scn[0].allreduce, sname,
			scn_engine_name(s->serving.engine), s->serving.cuda_graphs ? "on" : "off",
			scn_allreduce_name(s->serving.allreduce));
	if (mine < 0) {
		int nb = scope_names(c, SCOPE_BOX, -1, names, sizeof(names));
		if (nb)
			fprintf(f, "plumb: warning: --calib %s: box-scope constants (%s) were fitted on "
				   "box %s; scenario '%s' is another box\n", c->path, names, fitted, sname);
		if (scope_names(c, SCOPE_VM, -1, names, sizeof(names)))
			fprintf(f, "plumb: warning: --calib %s: vm-scope constants (%s) were fitted on %s; "
				   "scenario '%s' is %s\n", c->path, names, fitted, sname,
				   s->vm.mode == SCN_VM ? "another VM" : "bare metal");
		if (nper)
			fprintf(f, "plumb: note: --calib %s has per-scenario constants for %s only; "
				   "scenario '%s' keeps its own box and vm constants\n", c->path, fitted, sname);
	} else if (nper) {
		int cnt = 0;
		names[0] = '\0';
		for (i = 0; i < c->n; i++)
			if (c->grp[i] == mine && strlen(names) + 40 < sizeof(names))
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 cnt++ ? ", " : "", plumb_const_defs[c->idx[i]].name);
		if (cnt)
			fprintf(f, "plumb: note: --calib %s: applied the constants fitted for scenario "
				   "'%s' (%s)\n", c->path, sname, names);
	}
}

void calib_on_load(struct scenario *s, void *arg)
{
	calib_apply_scn(arg, s, stderr);
}

double calib_model_error(const struct calib_file *c, const char *block)
{
	int i;
	for (i = 0; i < c->nblk; i++)
		if (!strcmp(c->blk[i], block))
			return c->blk_sd[i];
	if (!strcmp(block, "decode"))
		for (i = 0; i < c->nblk; i++)
			if (!strcmp(c->blk[i], "serving"))
				return c->blk_sd[i];
	return c->sd;
}

void calib_sample(const struct calib_file *c, gsl_rng *rng, struct plumb_consts *k)
{
	double z[CALIB_MAX_FREE];
	int a, b, n = c->ncov;
	if (!c->has_chol)
		return;
	for (a = 0; a < n; a++)
		z[a] = gsl_ran_ugaussian(rng);
	for (a = 0; a < n; a++) {
		int idx = c->cov_idx[a], i, here = c->cov_grp[a] < 0;
		double mean = k->v[idx], d = 0;
		for (i = 0; i < c->n; i++)
			if (c->idx[i] == idx && c->grp[i] == c->cov_grp[a]) {
				/* a per-scenario entry: only where it was applied */
				here |= k->v[idx] == c->value[i];
				mean = c->value[i];
			}
		if (!here)
			continue;
		for (b = 0; b <= a; b++)
			d += c->chol[a * n + b] * z[b];
		mean *= exp(d);
		if (mean < plumb_const_defs[idx].lo)
			mean = plumb_const_defs[idx].lo;
		if (mean > plumb_const_defs[idx].hi)
			mean = plumb_const_defs[idx].hi;
		k->v[idx] = mean;
		k->set[idx] = 1;
	}
}
