/*
 * valid_load.c - the case list (validation/cases.yaml): its YAML, each
 * case's keys, the whatif list; val_free.
 */
#include "valid_int.h"

#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "consts.h"
#include "predict.h"

static const char *const case_keys[] = {
	"name", "kind", "data", "run", "scenario", "gpus", "op", "nccl_p2p_level",
	"p2p_disable", "source", "model", "weights", "kv", "input", "output", "note", "group", "output_spread", "algo", "range_ratio",
	"acs", "points", "engine", "fits", "artefacts", "chunked_prefill", NULL
};
static const char *const whatif_keys[] = {
	"name", "scenarios", "layouts", "concurrency", "note", NULL
};
static const char *const kind_names[] = { "nccl", "p2p", "serving", "collectives", "decode", NULL };

/*
 * `fits: [kmin_gemm_us, ...]`: the constants derived from the case's data,
 * each a name of the constants table (plumb constants), once.
 */
static int load_fits(struct val_case *c, const struct ytree *t, const struct ynode *x,
		     struct plumb_err *err)
{
	size_t i;
	int rc, j;
	if ((rc = yexpect(t, x, Y_SEQ, "fits", err)) < 0)
		return rc;
	if (x->n > VAL_MAX_FITS)
		return yerr(t, x, PLUMB_EINPUT, err, "'fits' lists %zu constants, at most %d",
			    x->n, VAL_MAX_FITS);
	c->fits_line = x->line;
	c->fits_col = x->col;
	for (i = 0; i < x->n; i++) {
		char *name = c->fits[c->nfits];
		if ((rc = yget_str(t, x->vals[i], "fits", name, sizeof(c->fits[0]), err)) < 0)
			return rc;
		if (consts_find(name) < 0)
			return yerr(t, x->vals[i], PLUMB_EINPUT, err,
				    "'%s' in fits is not a constant (plumb constants lists them)", name);
		for (j = 0; j < c->nfits; j++)
			if (!strcmp(c->fits[j], name))
				return yerr(t, x->vals[i], PLUMB_EINPUT, err,
					    "'%s' is listed twice in fits", name);
		c->nfits++;
	}
	return 0;
}

/*
 * `artefacts: ["4294967296 B in-place", ...]`: points of the run that the
 * case's note shows to be measurement artefacts, each a point label as the
 * report names it (checked against the points once they are read).
 */
static int load_artefacts(struct val_case *c, const struct ytree *t, const struct ynode *x,
			  struct plumb_err *err)
{
	size_t i;
	int rc, j;
	if ((rc = yexpect(t, x, Y_SEQ, "artefacts", err)) < 0)
		return rc;
	if (x->n > VAL_MAX_ARTEFACTS)
		return yerr(t, x, PLUMB_EINPUT, err, "'artefacts' lists %zu points, at most %d",
			    x->n, VAL_MAX_ARTEFACTS);
	for (i = 0; i < x->n; i++) {
		char *label = c->artefacts[c->nartefacts];
		if ((rc = yget_str(t, x->vals[i], "artefacts", label, sizeof(c->artefacts[0]), err)) < 0)
			return rc;
		for (j = 0; j < c->nartefacts; j++)
			if (!strcmp(c->artefacts[j], label))
				return yerr(t, x->vals[i], PLUMB_EINPUT, err,
					    "'%s' is listed twice in artefacts", label);
		c->artefacts_line[c->nartefacts] = x->vals[i]->line;
		c->artefacts_col[c->nartefacts] = x->vals[i]->col;
		c->nartefacts++;
	}
	return 0;
}

static int load_case(struct val_set *v, const struct ytree *t, const struct ynode *n,
		     int idx, struct plumb_err *err)
{
	struct val_case *c = &v->cases[idx];
	struct ynode *x;
	char buf[128];
	int rc, e, i;
	long l;

	memset(c, 0, sizeof(*c));
	c->line = n->line;
	c->run = 1;
	c->nccl_level = -1;
	if ((rc = yexpect(t, n, Y_MAP, "case", err)) < 0 ||
	    (rc = ymap_check_keys(t, n, "case", case_keys, err)) < 0)
		return rc;
	if (!(x = ymap_get(n, "name")))
		return yerr(t, n, PLUMB_EINPUT, err, "case needs 'name'");
	if ((rc = yget_str(t, x, "name", c->name, sizeof(c->name), err)) < 0)
		return rc;
	for (i = 0; i < idx; i++)
		if (!strcmp(v->cases[i].name, c->name))
			return yerr(t, x, PLUMB_EINPUT, err, "duplicate case name '%s'", c->name);
	if (!(x = ymap_get(n, "kind")))
		return yerr(t, n, PLUMB_EINPUT, err, "case '%s' needs 'kind' (nccl or p2p)", c->name);
	if ((rc = yget_enum(t, x, "kind", kind_names, &e, err)) < 0)
		return rc;
	c->kind = (enum val_kind)e;
	if (!(x = ymap_get(n, "data")))
		return yerr(t, n, PLUMB_EINPUT, err, "case '%s' needs 'data'", c->name);
	if ((rc = yget_str(t, x, "data", c->data, sizeof(c->data), err)) < 0)
		return rc;
	if (!(x = ymap_get(n, "scenario")))
		return yerr(t, n, PLUMB_EINPUT, err, "case '%s' needs 'scenario'", c->name);
	if ((rc = yget_str(t, x, "scenario", c->scenario, sizeof(c->scenario), err)) < 0)
		return rc;
	if ((x = ymap_get(n, "source")) &&
	    (rc = yget_str(t, x, "source", c->source, sizeof(c->source), err)) < 0)
		return rc;
	if ((x = ymap_get(n, "run"))) {
		if ((rc = yget_int(t, x, "run", 1, 1000, &l, err)) < 0)
			return rc;
		c->run = (int)l;
	}
	snprintf(c->model, sizeof(c->model), "glm-5");
	snprintf(c->weights, sizeof(c->weights), "nvfp4");
	snprintf(c->kv, sizeof(c->kv), "bf16");
	c->input = 1024;
	c->output = 1024;
	if ((x = ymap_get(n, "model"))) {
		const struct llm_model *m;
		struct plumb_err me;
		if ((rc = yget_str(t, x, "model", c->model, sizeof(c->model), err)) < 0)
			return rc;
		if (llm_model_resolve(c->model, &m, &me) < 0)
			return yerr(t, x, PLUMB_EINPUT, err, "%s", me.msg);
	}
	if ((x = ymap_get(n, "engine"))) {
		enum scn_engine en;
		unsigned ver;
		char msg[256];
		if ((rc = yget_str(t, x, "engine", c->engine, sizeof(c->engine), err)) < 0)
			return rc;
		if (scn_engine_spec(c->engine, 0, &en, &ver, msg, sizeof(msg)) < 0)
			return yerr(t, x, PLUMB_EINPUT, err, "%s", msg);
		c->stack = 1;
	}
	if ((x = ymap_get(n, "weights"))) {
		if ((rc = yget_str(t, x, "weights", c->weights, sizeof(c->weights), err)) < 0)
			return rc;
		if (llm_weights_check(c->weights) < 0)
			return yerr(t, x, PLUMB_EINPUT, err, "unknown weights '%s' (bf16, fp8, fp8t, "
				    "nvfp4, mxfp4, int4, int4-gN or checkpoint)", c->weights);
	} else {
		snprintf(c->weights, sizeof(c->weights), "%s", llm_default_weights(c->model));
	}
	if ((x = ymap_get(n, "kv"))) {
		enum llm_dtype d;
		if ((rc = yget_str(t, x, "kv", c->kv, sizeof(c->kv), err)) < 0)
			return rc;
		if (llm_dtype_parse(c->kv, &d) < 0 || d == LLM_NVFP4)
			return yerr(t, x, PLUMB_EINPUT, err, "unknown kv '%s' (bf16 or fp8)", c->kv);
	}
	if ((x = ymap_get(n, "input"))) {
		if ((rc = yget_int(t, x, "input", 1, 10000000, &l, err)) < 0)
			return rc;
		c->input = l;
	}
	if ((x = ymap_get(n, "output"))) {
		if ((rc = yget_int(t, x, "output", 1, 10000000, &l, err)) < 0)
			return rc;
		c->output = l;
	}
	c->algo = ALGO_AUTO;
	if ((x = ymap_get(n, "algo"))) {
		static const char *const algos[] = { "ring", "tree", "oneshot", NULL };
		int a;
		if ((rc = yget_enum(t, x, "algo", algos, &a, err)) < 0)
			return rc;
		c->algo = a;    /* enum coll_algo order */
	}
	if ((x = ymap_get(n, "output_spread")) &&
	    (rc = yget_double(t, x, "output_spread", 0.001, 1, &c->output_spread, err)) < 0)
		return rc;
	if ((x = ymap_get(n, "range_ratio"))) {
		if ((rc = yget_double(t, x, "range_ratio", 0, 1, &c->range_ratio, err)) < 0)
			return rc;
		c->has_range_ratio = 1;
	}
	if ((x = ymap_get(n, "chunked_prefill"))) {
		if ((rc = yget_int(t, x, "chunked_prefill", 1, 10000000, &l, err)) < 0)
			return rc;
		c->chunked_prefill = l;
	}
	if ((x = ymap_get(n, "group")) &&
	    (rc = yget_str(t, x, "group", c->group, sizeof(c->group), err)) < 0)
		return rc;
	if ((x = ymap_get(n, "note")) &&
	    (rc = yget_str(t, x, "note", c->note, sizeof(c->note), err)) < 0)
		return rc;
	if ((x = ymap_get(n, "op"))) {
		if ((rc = yget_str(t, x, "op", c->op, sizeof(c->op), err)) < 0)
			return rc;
		if (coll_op_parse(c->op) < 0)
			return yerr(t, x, PLUMB_EINPUT, err, "unknown op '%s'", c->op);
	}
	if ((x = ymap_get(n, "nccl_p2p_level"))) {
		if ((rc = yget_str(t, x, "nccl_p2p_level", buf, sizeof(buf), err)) < 0)
			return rc;
		if ((c->nccl_level = topo_nccl_path_parse(buf)) < 0)
			return yerr(t, x, PLUMB_EINPUT, err, "unknown NCCL_P2P_LEVEL '%s'", buf);
	}
	if ((x = ymap_get(n, "p2p_disable")) &&
	    (rc = yget_bool(t, x, "p2p_disable", &c->p2p_disable, err)) < 0)
		return rc;
	if ((x = ymap_get(n, "artefacts")) && (rc = load_artefacts(c, t, x, err)) < 0)
		return rc;
	if ((x = ymap_get(n, "fits")) && (rc = load_fits(c, t, x, err)) < 0)
		return rc;
	if ((rc = scn_load(c->scenario, &c->scn, err)) < 0)
		return rc;
	c->acs = -1;
	if ((x = ymap_get(n, "acs"))) {
		static const char *const onoff[] = { "off", "on", NULL };
		if (c->kind != VAL_P2P)
			return yerr(t, x, PLUMB_EINPUT, err, "'acs' applies to p2p cases only");
		if ((rc = yget_enum(t, x, "acs", onoff, &c->acs, err)) < 0)
			return rc;
		topo_apply_acs(c->scn, c->acs);
	}
	if ((x = ymap_get(n, "points"))) {
		if (c->kind != VAL_P2P)
			return yerr(t, x, PLUMB_EINPUT, err, "'points' applies to p2p cases only");
		c->quoted = 1;
	}
	if ((x = ymap_get(n, "gpus"))) {
		if ((rc = yget_str(t, x, "gpus", buf, sizeof(buf), err)) < 0)
			return rc;
		c->ngpus = scn_gpu_list_parse(buf, c->gpus, c->scn->ngpus);
		if (c->ngpus < 1)
			return yerr(t, x, PLUMB_EINPUT, err,
				    "'gpus' must list distinct GPUs of %s (0-%d)", c->scenario, c->scn->ngpus - 1);
	} else {
		c->ngpus = c->scn->ngpus;
		for (i = 0; i < c->ngpus; i++)
			c->gpus[i] = i;
	}
	if (c->quoted)
		return val_quoted_points(v, idx, t, ymap_get(n, "points"), err);
	return val_case_data(v, idx, err);
}

/* The optional `whatif:` list: predictions shown beside the cases. */
static int load_whatif(struct val_set *v, const struct ytree *t, const struct ynode *list,
		       struct plumb_err *err)
{
	size_t i, k;
	int rc;
	if (!list)
		return 0;
	if ((rc = yexpect(t, list, Y_SEQ, "whatif", err)) < 0)
		return rc;
	v->whatif = calloc(list->n ? list->n : 1, sizeof(*v->whatif));
	if (!v->whatif)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < list->n; i++) {
		const struct ynode *n = list->vals[i], *x;
		struct val_whatif *w = &v->whatif[i];
		char buf[256];
		v->nwhatif = (int)i + 1;
		if ((rc = yexpect(t, n, Y_MAP, "whatif entry", err)) < 0 ||
		    (rc = ymap_check_keys(t, n, "whatif entry", whatif_keys, err)) < 0)
			return rc;
		if (!(x = ymap_get(n, "name")) ||
		    (rc = yget_str(t, x, "name", w->name, sizeof(w->name), err)) < 0)
			return x ? rc : yerr(t, n, PLUMB_EINPUT, err, "whatif entry needs 'name'");
		if ((x = ymap_get(n, "note")) &&
		    (rc = yget_str(t, x, "note", w->note, sizeof(w->note), err)) < 0)
			return rc;
		if (!(x = ymap_get(n, "scenarios")) || x->type != Y_SEQ || x->n < 1 || x->n > 8)
			return yerr(t, x ? x : n, PLUMB_EINPUT, err,
				    "whatif '%s' needs 'scenarios': a list of 1-8 files", w->name);
		for (k = 0; k < x->n; k++) {
			if ((rc = yget_str(t, x->vals[k], "scenario", buf, sizeof(buf), err)) < 0 ||
			    (rc = scn_load(buf, &w->scn[k], err)) < 0)
				return rc;
			w->nscn = (int)k + 1;
		}
		if (!(x = ymap_get(n, "layouts")) || x->type != Y_SEQ || x->n < 1 || x->n > 8)
			return yerr(t, x ? x : n, PLUMB_EINPUT, err,
				    "whatif '%s' needs 'layouts': a list of 1-8 layouts", w->name);
		for (k = 0; k < x->n; k++) {
			struct step_layout l;
			if ((rc = yget_str(t, x->vals[k], "layout", w->layouts[k], sizeof(w->layouts[k]), err)) < 0)
				return rc;
			if (step_layout_parse(w->layouts[k], &l, NULL) < 0)
				return yerr(t, x->vals[k], PLUMB_EINPUT, err, "unknown layout '%s'", w->layouts[k]);
			w->nlayouts = (int)k + 1;
		}
		if (!(x = ymap_get(n, "concurrency")) || x->type != Y_SEQ || x->n < 1 || x->n > 16)
			return yerr(t, x ? x : n, PLUMB_EINPUT, err,
				    "whatif '%s' needs 'concurrency': a list of 1-16 numbers", w->name);
		for (k = 0; k < x->n; k++) {
			long c;
			if ((rc = yget_int(t, x->vals[k], "concurrency", 1, 100000, &c, err)) < 0)
				return rc;
			w->conc[k] = (int)c;
			w->nconc = (int)k + 1;
		}
	}
	return 0;
}

/* Load the case list held in tree t (consumed: freed on every path). */
static int val_from_tree(struct ytree *t, const char *path, struct val_set **out,
			 struct plumb_err *err)
{
	struct val_set *v;
	struct ynode *cases;
	size_t i;
	int rc;

	v = calloc(1, sizeof(*v));
	if (!v) {
		ytree_free(t);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if (!(v->file = plumb_keep_path(path))) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	if (!t->root || t->root->type != Y_MAP || !(cases = ymap_get(t->root, "cases"))) {
		rc = plumb_err_set(err, PLUMB_EINPUT, path, 1, 1, "expected a 'cases:' list");
		goto fail;
	}
	if ((rc = yexpect(t, cases, Y_SEQ, "cases", err)) < 0)
		goto fail;
	v->cases = calloc(cases->n ? cases->n : 1, sizeof(*v->cases));
	if (!v->cases) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	for (i = 0; i < cases->n; i++) {
		v->ncases = (int)i + 1;
		if ((rc = load_case(v, t, cases->vals[i], (int)i, err)) < 0)
			goto fail;
	}
	if ((rc = load_whatif(v, t, ymap_get(t->root, "whatif"), err)) < 0)
		goto fail;
	ytree_free(t);
	*out = v;
	return 0;
fail:
	ytree_free(t);
	val_free(v);
	return rc;
}

int val_load(const char *path, struct val_set **out, struct plumb_err *err)
{
	struct ytree *t = NULL;
	int rc;

	*out = NULL;
	if ((rc = ytree_load(path, &t, err)) < 0)
		return rc;
	return val_from_tree(t, path, out, err);
}

int val_parse(const char *file, const char *text, size_t len, struct val_set **out,
	      struct plumb_err *err)
{
	struct ytree *t = NULL;
	int rc;

	*out = NULL;
	if ((rc = ytree_parse(file, text, len, &t, err)) < 0)
		return rc;
	return val_from_tree(t, file, out, err);
}

void val_free(struct val_set *v)
{
	int i;
	if (!v)
		return;
	for (i = 0; i < v->ncases; i++) {
		scn_free(v->cases[i].scn);
		meas_nccl_free(v->cases[i].nccl);
		meas_p2p_free(v->cases[i].p2p);
		meas_csv_free(v->cases[i].serving);
	}
	for (i = 0; i < v->nwhatif; i++) {
		int k;
		for (k = 0; k < v->whatif[i].nscn; k++)
			scn_free(v->whatif[i].scn[k]);
	}
	val_spread_free(v->spread);
	free(v->whatif);
	free(v->cases);
	free(v->points);
	free(v);
}
