/*
 * calib_file.c - the calibration file (calib.h): writing it, loading it,
 * and applying it with --calib: shared constants to every scenario (the
 * loader's overlay), a joint fit's per-scenario constants to the scenario
 * of that name only (the load hook), covariance draws for intervals.
 *
 * Format (docs/cli.md, "The calibration file"): top-level `constants:`
 * apply everywhere; `scenarios: NAME: {constant: value}` only to a scenario
 * named NAME; `fitted_on:` records each scenario the fit ran on (GPU
 * models, virtualization, serving stack, NCCL_P2P_LEVEL); the covariance
 * names a per-scenario entry "NAME/constant". Older files without the
 * newer keys load unchanged.
 */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "out.h"
#include "ytree.h"

/* ---- writing ----------------------------------------------------------- */

static void write_scn(FILE *f, const struct calib_scn *d)
{
	fputs("  - name: ", f);
	out_quoted(f, d->name);
	fputs("\n    file: ", f);
	out_quoted(f, d->file);
	fputs("\n    gpus: ", f);
	out_quoted(f, d->gpus);
	fprintf(f, "\n    virtualization: %s\n", d->vm ? "vm" : "bare-metal");
	if (d->vm)
		fprintf(f, "    chipset: %s\n    host_iommu: %s\n", d->chipset, d->iommu);
	fprintf(f, "    serving:\n      engine: %s\n      cuda_graphs: %s\n"
		   "      custom_allreduce: \"%s\"\n      moe_backend: ",
		d->engine, d->cuda_graphs ? "true" : "false", d->allreduce);
	out_quoted(f, d->moe_backend);
	fprintf(f, "\n      dsa: %s\n", d->dsa);
	if (d->nccl_level[0]) {
		fputs("    nccl_p2p_level: ", f);
		out_quoted(f, d->nccl_level);
		fputc('\n', f);
	}
}

void calib_write(FILE *f, const struct val_set *v, const struct calib_result *r,
		 const char *const *files, int nfiles)
{
	int i, j, g, any = 0;
	fprintf(f, "# plumb calibration: fitted constants and their covariance.\n"
		   "# Use with --calib FILE on any plumb command.\n");
	fputs("plumb_calibration: 1\nscenario: ", f);
	out_quoted(f, v->ncases ? v->cases[0].scenario : "");
	fputs("\ndata:\n", f);
	for (i = 0; i < nfiles; i++) {
		fputs("  - ", f);
		out_quoted(f, files[i]);
		fputc('\n', f);
	}
	fprintf(f, "points: %d\ndof: %d\nconverged: %s\nstatus: ", r->npoints, r->dof,
		r->converged ? "true" : "false");
	out_quoted(f, r->status);
	fprintf(f, "\nr2: %.6f\n", r->r2);
	fprintf(f, "residual_rms: %.6g    # RMS of log(predicted / measured)\n", r->rms);
	fprintf(f, "residual_sd: %.6g    # sqrt(sum of squares / dof): the model error of intervals\n",
		r->sd);
	if (r->nscn > 0) {
		fputs("fitted_on:\n", f);
		for (g = 0; g < r->nscn; g++)
			write_scn(f, &r->scn[g]);
	}
	for (j = 0; j < r->nfree && r->grp[j] >= 0; j++)
		;
	fputs(j < r->nfree ? "constants:\n" : "constants: {}\n", f);
	for (j = 0; j < r->nfree; j++)
		if (r->grp[j] < 0)
			fprintf(f, "  %s: %.9g    # +- %.3g %s\n", plumb_const_defs[r->idx[j]].name,
				r->value[j], r->se[j], plumb_const_defs[r->idx[j]].unit);
		else
			any = 1;
	if (any) {
		fputs("scenarios:\n", f);
		for (g = 0; g < r->nscn; g++) {
			int first = 1;
			for (j = 0; j < r->nfree; j++) {
				if (r->grp[j] != g)
					continue;
				if (first) {
					fputs("  ", f);
					out_quoted(f, r->scn[g].name);
					fputs(":\n", f);
					first = 0;
				}
				fprintf(f, "    %s: %.9g    # +- %.3g %s\n", plumb_const_defs[r->idx[j]].name,
					r->value[j], r->se[j], plumb_const_defs[r->idx[j]].unit);
			}
		}
	}
	fputs("covariance:\n  names: [", f);
	for (j = 0; j < r->nfree; j++) {
		fputs(j ? ", " : "", f);
		if (r->grp[j] < 0) {
			fputs(plumb_const_defs[r->idx[j]].name, f);
		} else {
			char buf[256];
			snprintf(buf, sizeof(buf), "%s/%s", r->scn[r->grp[j]].name,
				 plumb_const_defs[r->idx[j]].name);
			out_quoted(f, buf);
		}
	}
	fputs("]\n  matrix:\n", f);
	for (i = 0; i < r->nfree; i++) {
		fputs("    - [", f);
		for (j = 0; j < r->nfree; j++)
			fprintf(f, "%s%.9g", j ? ", " : "", r->cov[i * r->nfree + j]);
		fputs("]\n", f);
	}
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
		"engine", "cuda_graphs", "custom_allreduce", "moe_backend", "dsa", NULL
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
		if ((rc = opt_str(t, e, "file", d->file, sizeof(d->file), err)) < 0 ||
		    (rc = opt_str(t, e, "gpus", d->gpus, sizeof(d->gpus), err)) < 0 ||
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
			    (rc = opt_str(t, sv, "dsa", d->dsa, sizeof(d->dsa), err)) < 0)
				return rc;
			if ((x = ymap_get(sv, "cuda_graphs")) &&
			    (rc = yget_bool(t, x, "cuda_graphs", &d->cuda_graphs, err)) < 0)
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

/* Lower Cholesky factor of c's covariance; a constant without variance
 * (no standard error) is not drawn: its row stays 0. 0 when the matrix is
 * not positive definite. */
static int factor(struct calib_file *c)
{
	int n = c->ncov, a, b, k;
	memset(c->chol, 0, sizeof(c->chol));
	for (a = 0; a < n; a++)
		for (b = 0; b <= a; b++) {
			double sum = c->cov[a * n + b];
			if (c->cov[a * n + a] == 0 || c->cov[b * n + b] == 0)
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

static int load_cov(const struct ytree *t, const struct ynode *m, struct calib_file *c,
		    struct plumb_err *err)
{
	struct ynode *names = ymap_get(m, "names"), *mat = ymap_get(m, "matrix");
	size_t i, j;
	int rc, ok;
	if (m->type != Y_MAP || !names || !mat || names->type != Y_SEQ || mat->type != Y_SEQ ||
	    names->n != mat->n || names->n > CALIB_MAX_FREE)
		return yerr(t, m, PLUMB_EINPUT, err,
			    "'covariance' needs 'names' and a square 'matrix' of the same size (at most %d)",
			    CALIB_MAX_FREE);
	c->ncov = (int)names->n;
	for (i = 0; i < names->n; i++) {
		const char *nm = names->vals[i]->type == Y_SCALAR ? names->vals[i]->str : "";
		const char *slash = strrchr(nm, '/');
		int k = consts_find(slash ? slash + 1 : nm), g = -1;
		if (names->vals[i]->type != Y_SCALAR || k < 0)
			return yerr(t, names->vals[i], PLUMB_EINPUT, err, "unknown constant in 'names'");
		if (slash) {
			char sn[96];
			snprintf(sn, sizeof(sn), "%.*s", (int)(slash - nm), nm);
			if ((g = scn_slot(c, sn)) < 0)
				return yerr(t, names->vals[i], PLUMB_EINPUT, err, "more than %d scenarios",
					    CALIB_MAX_SCN);
		}
		for (j = 0; j < (size_t)c->n && !(c->idx[j] == k && c->grp[j] == g); j++)
			;
		if (j == (size_t)c->n)
			return yerr(t, names->vals[i], PLUMB_EINPUT, err,
				    "'%s' in the covariance is not among the file's constants", nm);
		for (j = 0; j < i; j++)
			if (c->cov_idx[j] == k && c->cov_grp[j] == g)
				return yerr(t, names->vals[i], PLUMB_EINPUT, err,
					    "'%s' is named twice in the covariance", nm);
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
		"residual_rms", "residual_sd", "fitted_on", "constants", "scenarios", "covariance", NULL
	};
	struct ytree *t = NULL;
	struct ynode *x, *m;
	size_t i;
	long l;
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
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
	if ((m = ymap_get(t->root, "covariance")) && (rc = load_cov(t, m, c, err)) < 0)
		goto out;
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
		}
	}
	/* Warn once per scenario file. */
	for (i = 0; i < c->nwarned; i++)
		if (!strcmp(c->warned[i], s->path))
			return;
	if (c->nwarned < (int)(sizeof(c->warned) / sizeof(c->warned[0])))
		snprintf(c->warned[c->nwarned++], sizeof(c->warned[0]), "%s", s->path);
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
			   !strcmp(d->allreduce, scn_allreduce_name(s->serving.allreduce)));
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
		mean += d;
		if (mean < plumb_const_defs[idx].lo)
			mean = plumb_const_defs[idx].lo;
		if (mean > plumb_const_defs[idx].hi)
			mean = plumb_const_defs[idx].hi;
		k->v[idx] = mean;
		k->set[idx] = 1;
	}
}
