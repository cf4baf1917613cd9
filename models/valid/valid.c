/*
 * valid.c - predicted vs measured for the validation cases (valid.h).
 */
#include "valid.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "input.h"
#include "p2ptest.h"
#include "predict.h"
#include "ytree.h"

static const char *const case_keys[] = {
	"name", "kind", "data", "run", "scenario", "gpus", "op", "nccl_p2p_level",
	"p2p_disable", "source", "model", "weights", "kv", "input", "output", "note", "group", "output_spread", "algo",
	"acs", "points", "engine", NULL
};
static const char *const qpoint_keys[] = { "matrix", "pairs", "value", "quote", NULL };
static const char *const whatif_keys[] = {
	"name", "scenarios", "layouts", "concurrency", "note", NULL
};
static const char *const kind_names[] = { "nccl", "p2p", "serving", "collectives", "decode", NULL };

/* The p2p matrices plumb predicts, and where p2ptest keeps them. */
static const struct {
	enum meas_p2p_kind meas;
	enum p2pt_matrix pred;
} p2p_map[] = {
	{ MEAS_P2P_UNI_DISABLED, P2PT_UNI_DISABLED },
	{ MEAS_P2P_UNI_WRITES, P2PT_UNI_ENABLED },
	{ MEAS_P2P_BI_DISABLED, P2PT_BI_DISABLED },
	{ MEAS_P2P_BI_ENABLED, P2PT_BI_ENABLED },
	{ MEAS_P2P_LAT_DISABLED_GPU, P2PT_LAT_DISABLED },
	{ MEAS_P2P_LAT_WRITES_GPU, P2PT_LAT_ENABLED },
};
#define NP2PMAP (sizeof(p2p_map) / sizeof(p2p_map[0]))

/* Append a measured point (NULL when the measurement is missing, or when out
 * of memory: then v->oom is set). */
static struct val_point *add_point(struct val_set *v, int c, const char *label, int group,
				   double meas)
{
	struct val_point *p;
	if (!(meas > 0) || !isfinite(meas))
		return NULL;
	if ((v->npoints & 255) == 0) {
		struct val_point *np = realloc(v->points, (size_t)(v->npoints + 256) * sizeof(*np));
		if (!np) {
			v->oom = 1;
			return NULL;
		}
		v->points = np;
	}
	p = &v->points[v->npoints++];
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->group = group;
	p->train = 1;
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->measured = meas;
	p->predicted = NAN;
	return p;
}

static int case_data(struct val_set *v, int idx, struct plumb_err *err);
static int quoted_points(struct val_set *v, int idx, const struct ytree *t,
			 const struct ynode *list, struct plumb_err *err);

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
		return quoted_points(v, idx, t, ymap_get(n, "points"), err);
	return case_data(v, idx, err);
}

/*
 * A p2p case whose numbers are quoted in prose (a summary table, "ACS ON
 * ~50 GB/s") rather than printed as matrices: `points:` lists each number
 * with the matrix it belongs to, the device pairs it stands for ("0:1
 * 0:2") and `quote`, text of the data file it was read from (checked: the
 * data file must contain it verbatim). Points are stored in matrix order.
 */
static int quoted_points(struct val_set *v, int idx, const struct ytree *t,
			 const struct ynode *list, struct plumb_err *err)
{
	struct val_case *c = &v->cases[idx];
	char *text = NULL;
	int rc, kind;
	size_t i, len;

	c->first_point = v->npoints;
	if ((rc = yexpect(t, list, Y_SEQ, "points", err)) < 0)
		return rc;
	if ((rc = input_read(c->data, &text, &len, err)) < 0)
		return rc;
	for (i = 0; i < list->n; i++) {
		const struct ynode *e = list->vals[i];
		if ((rc = yexpect(t, e, Y_MAP, "point", err)) < 0 ||
		    (rc = ymap_check_keys(t, e, "point", qpoint_keys, err)) < 0)
			goto out;
		if (!ymap_get(e, "matrix") || !ymap_get(e, "pairs") || !ymap_get(e, "value") ||
		    !ymap_get(e, "quote")) {
			rc = yerr(t, e, PLUMB_EINPUT, err, "a point needs matrix, pairs, value and quote");
			goto out;
		}
	}
	/* one pass per matrix kind keeps each matrix's points together */
	for (kind = 0; kind < MEAS_P2P_NKINDS; kind++)
		for (i = 0; i < list->n; i++) {
			const struct ynode *e = list->vals[i];
			char name[32], quote[256], pairs[256];
			const char *q;
			double val;
			size_t k;
			if ((rc = yget_str(t, ymap_get(e, "matrix"), "matrix", name, sizeof(name), err)) < 0)
				goto out;
			for (k = 0; k < NP2PMAP; k++)
				if (!strcmp(name, meas_p2p_kind_name(p2p_map[k].meas)))
					break;
			if (k == NP2PMAP) {
				rc = yerr(t, ymap_get(e, "matrix"), PLUMB_EINPUT, err,
					  "matrix '%s' is not one plumb predicts (uni_disabled, uni_writes, "
					  "bi_disabled, bi_enabled, lat_disabled_gpu, lat_writes_gpu)", name);
				goto out;
			}
			if ((int)p2p_map[k].meas != kind)
				continue;
			if ((rc = yget_double(t, ymap_get(e, "value"), "value", 1e-9, 1e9, &val, err)) < 0 ||
			    (rc = yget_str(t, ymap_get(e, "quote"), "quote", quote, sizeof(quote), err)) < 0 ||
			    (rc = yget_str(t, ymap_get(e, "pairs"), "pairs", pairs, sizeof(pairs), err)) < 0)
				goto out;
			if (!strstr(text, quote)) {
				rc = yerr(t, ymap_get(e, "quote"), PLUMB_EINPUT, err,
					  "quote '%s' is not in %s", quote, c->data);
				goto out;
			}
			for (q = pairs; *q;) {
				char label[64], *end;
				long a, b;
				struct val_point *p;
				while (*q == ' ' || *q == ',')
					q++;
				if (!*q)
					break;
				a = strtol(q, &end, 10);
				b = -1;
				if (end != q && *end == ':') {
					q = end + 1;
					b = strtol(q, &end, 10);
					if (end == q)
						b = -1;
				}
				if (a < 0 || b < 0 || a == b || a >= c->ngpus || b >= c->ngpus) {
					rc = yerr(t, ymap_get(e, "pairs"), PLUMB_EINPUT, err,
						  "pairs must be 'A:B A:B ...' of distinct devices 0-%d",
						  c->ngpus - 1);
					goto out;
				}
				q = end;
				snprintf(label, sizeof(label), "%s %ld->%ld", name, a, b);
				if ((p = add_point(v, idx, label, kind, val))) {
					p->row = (int)k;
					p->a = (int)a;
					p->b = (int)b;
				}
				if (v->oom) {
					rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
					goto out;
				}
			}
		}
	c->npoints = v->npoints - c->first_point;
	rc = c->npoints ? 0 : yerr(t, list, PLUMB_EINPUT, err, "case '%s' lists no point", c->name);
out:
	free(text);
	return rc;
}

/* Read case idx's data file and list its measured points. */
static int case_data(struct val_set *v, int idx, struct plumb_err *err)
{
	struct val_case *c = &v->cases[idx];
	int rc, i;
	struct val_point *p;

	c->first_point = v->npoints;
	if (c->kind == VAL_SERVING || c->kind == VAL_COLLCSV || c->kind == VAL_DECODE) {
		static const enum meas_csv_kind want[] = {
			[VAL_SERVING] = MEAS_CSV_SERVING, [VAL_COLLCSV] = MEAS_CSV_COLLECTIVES,
			[VAL_DECODE] = MEAS_CSV_DECODE
		};
		static const char *const cols[] = {
			[VAL_SERVING] = "layout,concurrency,context,tok_s",
			[VAL_COLLCSV] = "op,gpus,bytes,time_us",
			[VAL_DECODE] = "layout,batch,context,step_ms"
		};
		if ((rc = meas_csv_parse_file(c->data, &c->serving, err)) < 0)
			return rc;
		if (c->serving->kind != want[c->kind])
			return plumb_err_set(err, PLUMB_EINPUT, c->data, 0, 0,
					     "case '%s' needs a %s CSV, this one is %s", c->name,
					     cols[c->kind], meas_csv_kind_name(c->serving->kind));
		for (i = 0; i < c->serving->nrows; i++) {
			const struct meas_csv_row *row = &c->serving->rows[i];
			char label[64];
			if (c->kind == VAL_SERVING) {
				snprintf(label, sizeof(label), "%s x%d tok/s", row->layout, row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_TOK, row->tok_s)))
					p->row = i;
				snprintf(label, sizeof(label), "%s x%d tpot_ms", row->layout, row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_TPOT, row->tpot_ms)))
					p->row = i;
				snprintf(label, sizeof(label), "%s x%d peak tok/s", row->layout,
					 row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_PEAK, row->peak_tok_s)))
					p->row = i;
				snprintf(label, sizeof(label), "%s x%d ttft_ms", row->layout, row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_TTFT, row->ttft_ms)))
					p->row = i;
			} else if (c->kind == VAL_COLLCSV) {
				if (row->gpus > c->ngpus)
					return plumb_err_set(err, PLUMB_EINPUT, c->data, row->line, 0,
							     "%d GPUs, but %s maps %d", row->gpus,
							     c->scenario, c->ngpus);
				snprintf(label, sizeof(label), "%s %dg %llu B", row->op, row->gpus,
					 (unsigned long long)row->bytes);
				if ((p = add_point(v, idx, label, 0, row->time_us)))
					p->row = i;
			} else {
				snprintf(label, sizeof(label), "%s b%d ctx%ld", row->layout, row->batch,
					 row->context);
				if ((p = add_point(v, idx, label, 0, row->step_ms)))
					p->row = i;
			}
			if (v->oom)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
	} else if (c->kind == VAL_NCCL) {
		struct meas_nccl_hint h;
		const struct meas_nccl_run *run;
		memset(&h, 0, sizeof(h));
		h.op = c->op[0] ? c->op : NULL;
		h.ngpus = c->ngpus;
		if ((rc = meas_nccl_parse_file(c->data, &h, &c->nccl, err)) < 0)
			return rc;
		if (c->run > c->nccl->nruns)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, 0, 0,
					     "%s has %d run%s, not %d", c->data, c->nccl->nruns,
					     c->nccl->nruns == 1 ? "" : "s", c->run);
		run = &c->nccl->runs[c->run - 1];
		if (run->ngpus && run->ngpus > c->ngpus)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, run->line, 0,
					     "case '%s': the run has %d GPUs but the case maps %d",
					     c->name, run->ngpus, c->ngpus);
		if (run->ngpus && run->ngpus < c->ngpus)
			c->ngpus = run->ngpus;
		if (!c->op[0])
			snprintf(c->op, sizeof(c->op), "%s", run->op);
		if (coll_op_parse(c->op) < 0)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, run->line, 0,
					     "case '%s': op '%s' is not simulated", c->name, c->op);
		for (i = 0; i < run->nrows; i++) {
			char label[64];
			snprintf(label, sizeof(label), "%llu B", (unsigned long long)run->rows[i].size);
			if ((p = add_point(v, idx, label, 0, run->rows[i].oop_time_us)))
				p->row = i;
			if (v->oom)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		/* The in-place column times the same collective on one buffer:
		 * scored too, after the out-of-place rows, but left out of fits
		 * (the same point twice would weigh nccl-tests double). */
		for (i = 0; i < run->nrows; i++) {
			char label[64];
			snprintf(label, sizeof(label), "%llu B in-place", (unsigned long long)run->rows[i].size);
			if ((p = add_point(v, idx, label, 1, run->rows[i].ip_time_us))) {
				p->row = i;
				p->train = 0;
			}
			if (v->oom)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
	} else {
		const struct meas_p2p_run *run;
		size_t k;
		int a, b;
		if ((rc = meas_p2p_parse_file(c->data, &c->p2p, err)) < 0)
			return rc;
		if (c->run > c->p2p->nruns)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, 0, 0,
					     "%s has %d runs, not %d", c->data, c->p2p->nruns, c->run);
		run = &c->p2p->runs[c->run - 1];
		if (run->n > c->ngpus)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, run->line, 0,
					     "case '%s': the data has %d GPUs but the case maps %d",
					     c->name, run->n, c->ngpus);
		for (k = 0; k < NP2PMAP; k++)
			for (a = 0; a < run->n; a++)
				for (b = 0; b < run->n; b++) {
					char label[64];
					if (a == b)
						continue;   /* local copies: not the interconnect */
					snprintf(label, sizeof(label), "%s %d->%d",
						 meas_p2p_kind_name(p2p_map[k].meas), a, b);
					if ((p = add_point(v, idx, label, (int)p2p_map[k].meas,
							   meas_p2p_at(run, p2p_map[k].meas, a, b)))) {
						p->row = (int)k;
						p->a = a;
						p->b = b;
					}
					if (v->oom)
						return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
				}
	}
	c->npoints = v->npoints - c->first_point;
	if (c->npoints == 0)   /* every value missing (N/A, nan) or zero */
		return plumb_err_set(err, PLUMB_EINPUT, c->data, 0, 0,
				     "no measured value to compare with in case '%s' (every "
				     "value is missing, NaN or zero)", c->name);
	return 0;
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
	snprintf(v->file, sizeof(v->file), "%s", path);
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

/* What kind of data a file holds, from its content. */
static int sniff_kind(const char *path, enum val_kind *k, struct plumb_err *err)
{
	FILE *f = fopen(path, "rb");
	char line[4096];
	int csv = 0, p2p = 0, seen = 0;
	if (!f)
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *q = line;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '#' || *q == '\n' || *q == '\r' || *q == '\0')
			continue;
		if (!seen++ && strchr(q, ',') && !strchr(q, ' '))
			csv = 1;
		if (strstr(q, "P2P Connectivity") || strstr(q, "Bandwidth Matrix") ||
		    strstr(q, "Latency Matrix"))
			p2p = 1;
		if (csv || p2p)
			break;
	}
	fclose(f);
	if (csv) {
		struct meas_csv *t = NULL;
		int rc = meas_csv_parse_file(path, &t, err);
		if (rc < 0)
			return rc;
		*k = t->kind == MEAS_CSV_COLLECTIVES ? VAL_COLLCSV :
		     t->kind == MEAS_CSV_DECODE ? VAL_DECODE : VAL_SERVING;
		meas_csv_free(t);
	} else {
		*k = p2p ? VAL_P2P : VAL_NCCL;
	}
	return 0;
}

/* How many runs the nccl-tests or p2p file of case c holds (1 for CSVs or
 * a file that does not parse: case_data then reports why). */
static int file_runs(const struct val_case *c)
{
	struct plumb_err e;
	int n = 1;
	if (c->kind == VAL_NCCL) {
		struct meas_nccl_file *f = NULL;
		struct meas_nccl_hint h;
		memset(&h, 0, sizeof(h));
		h.ngpus = c->ngpus;
		if (meas_nccl_parse_file(c->data, &h, &f, &e) == 0)
			n = f->nruns;
		meas_nccl_free(f);
	} else if (c->kind == VAL_P2P) {
		struct meas_p2p_file *f = NULL;
		if (meas_p2p_parse_file(c->data, &f, &e) == 0)
			n = f->nruns;
		meas_p2p_free(f);
	}
	return n > 1 ? n : 1;
}

/* Give back what case c owns and its points (the last ones of v). */
static void drop_case(struct val_set *v, struct val_case *c)
{
	scn_free(c->scn);
	meas_nccl_free(c->nccl);
	meas_p2p_free(c->p2p);
	meas_csv_free(c->serving);
	v->npoints = c->first_point;
	memset(c, 0, sizeof(*c));
}

int val_add_files(struct val_set *v, const char *scenario, const char *const *files, int nfiles,
		  const char *gpus, const char *model, const char *weights, const char *kv,
		  struct plumb_err *err)
{
	int i, rc;

	for (i = 0; i < nfiles; i++) {
		const char *base = strrchr(files[i], '/');
		enum val_kind kind = VAL_NCCL;
		int run, nruns = 1, used = 0;
		struct plumb_err first;

		plumb_err_clear(&first);
		if ((rc = sniff_kind(files[i], &kind, err)) < 0)
			return rc;
		for (run = 1; run <= nruns; run++) {
			struct val_case *c, *nc;
			int k;
			nc = realloc(v->cases, (size_t)(v->ncases + 1) * sizeof(*nc));
			if (!nc)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			v->cases = nc;
			c = &v->cases[v->ncases++];
			memset(c, 0, sizeof(*c));
			c->kind = kind;
			snprintf(c->data, sizeof(c->data), "%s", files[i]);
			snprintf(c->scenario, sizeof(c->scenario), "%s", scenario);
			c->stack = 1;   /* as plumb predict runs the scenario */
			snprintf(c->model, sizeof(c->model), "%s", model ? model : "glm-5");
			snprintf(c->weights, sizeof(c->weights), "%s",
				 weights ? weights : llm_default_weights(c->model));
			snprintf(c->kv, sizeof(c->kv), "%s", kv ? kv : "bf16");
			c->run = run;
			c->nccl_level = -1;
			c->algo = ALGO_AUTO;
			c->input = 1024;
			c->output = 1024;
			if ((rc = scn_load(scenario, &c->scn, err)) < 0)
				return rc;
			if (gpus) {
				c->ngpus = scn_gpu_list_parse(gpus, c->gpus, c->scn->ngpus);
				if (c->ngpus < 1)
					return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
							     "--gpus '%s': give GPUs of %s (0-%d)", gpus,
							     scenario, c->scn->ngpus - 1);
			} else {
				c->ngpus = c->scn->ngpus;
				for (k = 0; k < c->ngpus; k++)
					c->gpus[k] = k;
			}
			if (run == 1)
				nruns = file_runs(c);
			/* One case per run: "file" alone, "file#2" for a file's
			 * second run. */
			if (nruns > 1)
				snprintf(c->name, sizeof(c->name), "%.52s#%d", base ? base + 1 : files[i], run);
			else
				snprintf(c->name, sizeof(c->name), "%s", base ? base + 1 : files[i]);
			c->first_point = v->npoints;
			if ((rc = case_data(v, v->ncases - 1, err)) == 0) {
				used++;
				continue;
			}
			/* A run that cannot be used is skipped and named when the
			 * file has others; the file's only run is an error. */
			if (nruns == 1 || v->oom)
				return rc;
			if (!first.code)
				first = *err;
			if (v->nskipped < VAL_MAX_SKIPPED)
				snprintf(v->skipped[v->nskipped], sizeof(v->skipped[0]), "%.80s run %d: %.150s",
					 files[i], run, err->msg);
			v->nskipped++;
			drop_case(v, c);
			v->ncases--;
			plumb_err_clear(err);
		}
		if (!used) {
			*err = first;
			return -plumb_err_status(err);
		}
	}
	return 0;
}

int val_from_files(const char *scenario, const char *const *files, int nfiles,
		   const char *gpus, const char *model, const char *weights, const char *kv,
		   struct val_set **out, struct plumb_err *err)
{
	struct val_set *v;
	int rc;

	*out = NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	snprintf(v->file, sizeof(v->file), "%s", scenario);
	if ((rc = val_add_files(v, scenario, files, nfiles, gpus, model, weights, kv, err)) < 0) {
		val_free(v);
		return rc;
	}
	*out = v;
	return 0;
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
	free(v->whatif);
	free(v->cases);
	free(v->points);
	free(v);
}

/* Serve `model` with `layout` at concurrency conc on scenario scn. */
static int serve_point(const struct scenario *scn, const char *engine, int stack, const char *model,
		       const char *weights, const char *kv, const char *layout, int conc,
		       long input, long output, long context, long prompts, double spread,
		       struct serve_result *sr, struct plumb_err *err)
{
	struct pred_cfg c;
	struct serve_params sp;
	int rc;
	pred_cfg_init(&c);
	/* the engine table fills the stack when stack is 1 (engine "" or
	 * NULL: the scenario's engine) */
	c.engine = engine && engine[0] ? engine : NULL;
	c.stack = stack;
	if ((rc = pred_cfg_setup(&c, scn, model, weights, kv, layout, err)) < 0)
		return rc;
	pred_serve_params(&c, conc, input, output, context, &sp);
	sp.prompts = (int)prompts;
	if (spread > 0)
		sp.spread = spread;
	return serve_run(&sp, pred_serve_step, &c, sr, err);
}

/* A pred_cfg for case c's model on its scenario with `layout`. */
static int case_cfg(const struct val_case *c, const char *layout, struct pred_cfg *pc,
		    struct plumb_err *err)
{
	pred_cfg_init(pc);
	pc->engine = c->engine[0] ? c->engine : NULL;
	pc->stack = c->stack;
	return pred_cfg_setup(pc, c->scn, c->model, c->weights, c->kv, layout, err);
}

/*
 * nccl-tests with one thread driving G GPUs (-g G) enqueues the G ranks'
 * collectives one after another every iteration and times back-to-back
 * iterations, so an iteration lasts at least G x nccl_tests_launch_us
 * however short the collective.
 */
static double nccl_tests_floor_us(const struct val_case *c)
{
	const struct meas_nccl_run *run = &c->nccl->runs[c->run - 1];
	int g = run->gpus_per_thread > 0 ? run->gpus_per_thread : 1;
	return g * c->scn->k.v[K_NCCL_TESTS_LAUNCH_US];
}

static int predict_case(struct val_set *v, int ci, int only_train, struct plumb_err *err)
{
	struct val_case *c = &v->cases[ci];
	struct p2pt_result *r = NULL;
	struct topo_opts o;
	int p, rc = 0;

	topo_opts_init(&o);
	o.nccl_p2p_level = c->p2p_disable ? NP_LOC : c->nccl_level;
	for (p = c->first_point; p < c->first_point + c->npoints; p++) {
		struct val_point *pt = &v->points[p];
		if (only_train && !pt->train)
			continue;
		switch (c->kind) {
		case VAL_NCCL:
		case VAL_COLLCSV: {
			struct coll_spec cs;
			struct coll_result cr;
			memset(&cs, 0, sizeof(cs));
			if (c->kind == VAL_NCCL) {
				cs.op = (enum coll_op)coll_op_parse(c->op);
				cs.n = c->ngpus;
				cs.bytes = (double)c->nccl->runs[c->run - 1].rows[pt->row].size;
			} else {
				const struct meas_csv_row *row = &c->serving->rows[pt->row];
				cs.op = (enum coll_op)coll_op_parse(row->op);
				cs.n = row->gpus;
				cs.bytes = (double)row->bytes;
			}
			cs.gpus = c->gpus;
			cs.algo = c->algo;
			cs.custom = coll_custom_of(c->scn);
			cs.proto = PROTO_AUTO;
			if ((rc = coll_time(c->scn, &o, &cs, &cr, err)) < 0)
				goto out;
			pt->predicted = cr.seconds * 1e6;
			if (c->kind == VAL_NCCL)
				pt->predicted = fmax(pt->predicted, nccl_tests_floor_us(c));
			break;
		}
		case VAL_P2P:
			if (!r) {
				r = malloc(sizeof(*r));
				if (!r) {
					rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
					goto out;
				}
				if ((rc = p2pt_run(c->scn, r, err)) < 0)
					goto out;
			}
			pt->predicted = r->m[p2p_map[pt->row].pred][c->gpus[pt->a]][c->gpus[pt->b]];
			break;
		case VAL_DECODE: {
			const struct meas_csv_row *row = &c->serving->rows[pt->row];
			struct pred_cfg pc;
			double sec;
			if ((rc = case_cfg(c, row->layout, &pc, err)) < 0)
				goto out;
			pc.topo = o;
			if ((rc = pred_step(&pc, SERVE_DECODE, row->batch, row->context, 1, &sec,
					    NULL, err)) < 0)
				goto out;
			pt->predicted = sec * 1e3;
			break;
		}
		case VAL_SERVING: {
			const struct meas_csv_row *row = &c->serving->rows[pt->row];
			struct serve_result sr;
			if ((rc = serve_point(c->scn, c->engine, c->stack, c->model, c->weights, c->kv, row->layout,
					      row->concurrency,
					      row->input_len > 0 ? row->input_len : c->input,
					      row->output_len > 0 ? row->output_len : c->output,
					      row->context, row->prompts, c->output_spread, &sr,
					      err)) < 0)
				goto out;
			pt->predicted = pt->group == VAL_SRV_TPOT ? sr.tpot_ms :
					pt->group == VAL_SRV_TTFT ? sr.ttft_ms :
					pt->group == VAL_SRV_PEAK ? sr.peak_tok_s : sr.tok_s_total;
			break;
		}
		}
	}
out:
	free(r);
	return rc;
}

int val_predict_train(struct val_set *v, struct plumb_err *err)
{
	int i, rc;
	for (i = 0; i < v->ncases; i++)
		if ((rc = predict_case(v, i, 1, err)) < 0)
			return rc;
	return 0;
}

int val_predict(struct val_set *v, int c, struct plumb_err *err)
{
	int i, rc, a, b, k;
	for (i = 0; i < v->ncases; i++)
		if ((c < 0 || i == c) && (rc = predict_case(v, i, 0, err)) < 0)
			return rc;
	if (c >= 0)
		return 0;
	for (i = 0; i < v->nwhatif; i++) {
		struct val_whatif *w = &v->whatif[i];
		for (a = 0; a < w->nscn; a++)
			for (b = 0; b < w->nlayouts; b++)
				for (k = 0; k < w->nconc; k++) {
					struct serve_result sr;
					if ((rc = serve_point(w->scn[a], NULL, 1, "glm-5", "nvfp4", "bf16",
							      w->layouts[b], w->conc[k], 1024, 1024, 0,
							      0, 0, &sr, err)) < 0)
						return rc;
					w->tok[a][b][k] = sr.tok_s_total;
				}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* val_stats over the points of cases of one kind (-1: every kind). */
static void stats_of(const struct val_set *v, int first, int n, int kind, struct val_stats *st)
{
	double *e = malloc((size_t)(n > 0 ? n : 1) * sizeof(*e)), worst = -1;
	int i, k = 0;
	memset(st, 0, sizeof(*st));
	st->worst = -1;
	st->worst_ratio = 1;
	if (!e)
		return;
	for (i = first; i < first + n; i++) {
		const struct val_point *p = &v->points[i];
		double ratio = p->predicted / p->measured, lr;
		if (kind >= 0 && (int)v->cases[p->c].kind != kind)
			continue;
		if (!isfinite(ratio) || ratio <= 0)
			continue;
		e[k++] = fabs(ratio - 1);
		lr = fabs(log(ratio));
		if (lr > worst) {
			worst = lr;
			st->worst = i;
			st->worst_ratio = ratio;
		}
		st->within2x += ratio >= 0.5 && ratio <= 2.0;
	}
	st->n = k;
	if (k) {
		qsort(e, (size_t)k, sizeof(*e), cmp_double);
		st->median_err = k % 2 ? e[k / 2] : 0.5 * (e[k / 2 - 1] + e[k / 2]);
		st->max_err = e[k - 1];
	}
	free(e);
}

void val_stats(const struct val_set *v, int first, int n, struct val_stats *st)
{
	stats_of(v, first, n, -1, st);
}

static const char *unit_of(const struct val_point *p, const struct val_case *c)
{
	if (c->kind == VAL_SERVING)
		return p->group == VAL_SRV_TPOT || p->group == VAL_SRV_TTFT ? "ms" : "tok/s";
	if (c->kind == VAL_NCCL)
		return "us";
	return p->group >= MEAS_P2P_LAT_DISABLED_GPU ? "us" : "GB/s";
}

/*
 * Cases that share a `group:` summarised together: their points' median and
 * worst error, the GPUs (scenario GPU models) they cover.
 */
static void group_table(FILE *f, const struct val_set *v)
{
	int i, j, p, head = 0;
	for (i = 0; i < v->ncases; i++) {
		const char *g = v->cases[i].group;
		double *e;
		char gpus[256] = "";
		int n = 0, ncase = 0;
		if (!g[0])
			continue;
		for (j = 0; j < i && strcmp(v->cases[j].group, g); j++)
			;
		if (j < i)
			continue;       /* summarised at its first case */
		e = malloc((size_t)(v->npoints + 1) * sizeof(*e));
		if (!e)
			return;
		for (j = i; j < v->ncases; j++) {
			const struct val_case *c = &v->cases[j];
			const struct scn_catalog *cat = c->scn->catalog;
			const char *id;
			if (strcmp(c->group, g))
				continue;
			ncase++;
			for (p = c->first_point; p < c->first_point + c->npoints; p++) {
				double r = v->points[p].predicted / v->points[p].measured;
				if (isfinite(r) && r > 0)
					e[n++] = fabs(r - 1);
			}
			id = c->scn->ngpus ? cat->gpus[c->scn->nodes[c->scn->gpu_node[0]].gpu_model].id : "";
			if (!strstr(gpus, id) && strlen(gpus) + strlen(id) + 3 < sizeof(gpus))
				snprintf(gpus + strlen(gpus), sizeof(gpus) - strlen(gpus), "%s%s",
					 gpus[0] ? ", " : "", id);
		}
		qsort(e, (size_t)n, sizeof(*e), cmp_double);
		if (!head++)
			fputs("\n| group | cases | points | GPUs | median error | worst error |\n"
			      "|---|---|---|---|---|---|\n", f);
		if (n)
			fprintf(f, "| %s | %d | %d | %s | %.1f%% | %.1f%% |\n", g, ncase, n, gpus,
				100 * (n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2])),
				100 * e[n - 1]);
		free(e);
	}
}

/* Error of the points of case c in nccl column g (0 out-of-place, 1 in-place). */
static void nccl_column_stats(const struct val_set *v, const struct val_case *c, int g,
			      struct val_stats *st)
{
	int p, first = -1, cnt = 0;
	for (p = c->first_point; p < c->first_point + c->npoints; p++)
		if (v->points[p].group == g) {
			if (first < 0)
				first = p;
			cnt++;
		}
	memset(st, 0, sizeof(*st));
	st->worst = -1;
	if (cnt)
		val_stats(v, first, cnt, st);
}

/* One error row per timed column of an nccl-tests table. */
static void nccl_columns(FILE *f, const struct val_set *v, const struct val_case *c)
{
	static const char *const name[] = { "out-of-place time", "in-place time" };
	int g;
	fputs("| column | points | median error | worst | within 2x |\n|---|---|---|---|---|\n", f);
	for (g = 0; g < 2; g++) {
		struct val_stats st;
		nccl_column_stats(v, c, g, &st);
		if (st.n)
			fprintf(f, "| %s | %d | %.1f%% | x%.2f | %d/%d |\n", name[g], st.n,
				100 * st.median_err, st.worst_ratio, st.within2x, st.n);
	}
}

/*
 * The CPU-side latency matrices: p2pBandwidthLatencyTest blocks the stream
 * with a spinning kernel while the host enqueues the copies, so its CPU
 * timer measures the driver's enqueue cost, never a transfer. plumb models
 * no host API cost: listed with their median, not scored.
 */
static void p2p_unscored(FILE *f, const struct val_case *c)
{
	static const enum meas_p2p_kind cpu[] = { MEAS_P2P_LAT_DISABLED_CPU, MEAS_P2P_LAT_WRITES_CPU,
						  MEAS_P2P_LAT_READS_CPU };
	const struct meas_p2p_run *run;
	size_t k;
	if (!c->p2p || c->run > c->p2p->nruns)
		return;
	run = &c->p2p->runs[c->run - 1];
	for (k = 0; k < sizeof(cpu) / sizeof(cpu[0]); k++) {
		double vals[MEAS_P2P_MAX_GPUS * MEAS_P2P_MAX_GPUS];
		int a, b, n = 0;
		for (a = 0; a < run->n; a++)
			for (b = 0; b < run->n; b++) {
				double x = meas_p2p_at(run, cpu[k], a, b);
				if (a != b && x > 0)
					vals[n++] = x;
			}
		if (!n)
			continue;
		qsort(vals, (size_t)n, sizeof(vals[0]), cmp_double);
		fprintf(f, "| %s | %d | not scored | median %.2f us: the host's time to enqueue a copy "
			"while the stream is blocked, not a transfer |\n",
			meas_p2p_kind_name(cpu[k]), n,
			n % 2 ? vals[n / 2] : (vals[n / 2 - 1] + vals[n / 2]) / 2);
	}
}

void val_report(FILE *f, const struct val_set *v, const char *title)
{
	struct val_stats all;
	int i, p;

	val_stats(v, 0, v->npoints, &all);
	fprintf(f, "# %s\n\n", title);
	fprintf(f, "Generated by `make validate` (`plumb validate %s`); do not edit by hand.\n"
		   "Each measured number of each case is predicted by plumb from the case's scenario "
		   "with the constants it holds; error = |predicted / measured - 1|. "
		   "p2pBandwidthLatencyTest diagonals (a GPU copying within itself) are left out: "
		   "they measure the GPU's memory, not the interconnect. Every matrix of a p2p file "
		   "and both timed columns of an nccl-tests table (out-of-place, in-place) get an "
		   "error row; the CPU latency matrices are listed with their median, not scored "
		   "(they time the host's enqueue of a copy, not a transfer).\n\n", v->file);
	fprintf(f, "## Summary\n\n");
	fprintf(f, "| | value |\n|---|---|\n");
	fprintf(f, "| cases | %d |\n| measured points | %d |\n", v->ncases, all.n);
	fprintf(f, "| median error | %.1f%% |\n", 100 * all.median_err);
	fprintf(f, "| points within 2x | %d of %d |\n", all.within2x, all.n);
	{
		static const struct { int kind; const char *what; } by[] = {
			{ VAL_P2P, "p2pBandwidthLatencyTest points" },
			{ VAL_NCCL, "nccl-tests points" },
			{ VAL_COLLCSV, "collective timings" },
			{ VAL_DECODE, "decode points" },
			{ VAL_SERVING, "serving points" },
		};
		size_t b;
		for (b = 0; b < sizeof(by) / sizeof(by[0]); b++) {
			struct val_stats st;
			stats_of(v, 0, v->npoints, by[b].kind, &st);
			if (st.n)
				fprintf(f, "| %s | %d, median error %.1f%%, %d within 2x |\n",
					by[b].what, st.n, 100 * st.median_err, st.within2x);
		}
	}
	if (all.worst >= 0)
		fprintf(f, "| worst point | %s, %s: measured %.4g, predicted %.4g (x%.2f) |\n",
			v->cases[v->points[all.worst].c].name, v->points[all.worst].label,
			v->points[all.worst].measured, v->points[all.worst].predicted, all.worst_ratio);
	fprintf(f, "\n| case | kind | points | median error | worst | within 2x |\n|---|---|---|---|---|---|\n");
	for (i = 0; i < v->ncases; i++) {
		const struct val_case *c = &v->cases[i];
		struct val_stats st;
		val_stats(v, c->first_point, c->npoints, &st);
		fprintf(f, "| %s | %s | %d | %.1f%% | x%.2f | %d/%d |\n", c->name,
			c->kind == VAL_NCCL ? c->op : c->kind == VAL_P2P ? "p2p" :
			c->kind == VAL_DECODE ? "decode" : c->kind == VAL_COLLCSV ? "collectives" : "serving",
			st.n, 100 * st.median_err,
			st.worst_ratio, st.within2x, st.n);
	}
	group_table(f, v);
	for (i = 0; i < v->ncases; i++) {
		const struct val_case *c = &v->cases[i];
		fprintf(f, "\n## %s\n\n", c->name);
		fprintf(f, "Scenario `%s`, data `%s`", c->scenario, c->data);
		if (c->run > 1)
			fprintf(f, " (run %d)", c->run);
		if (c->source[0])
			fprintf(f, "; source: %s", c->source);
		fputs(".", f);
		if (c->kind == VAL_SERVING)
			fprintf(f, " %s %s weights, %s KV cache, input %ld and output %ld tokens.\n\n"
				   "| point | measured | predicted | ratio |\n|---|---|---|---|\n",
				c->model, c->weights, c->kv, c->input, c->output);
		else if (c->kind == VAL_NCCL) {
			fprintf(f, " %s over %d GPUs%s%s.\n\n", c->op, c->ngpus,
				c->p2p_disable ? ", NCCL_P2P_DISABLE=1" : "",
				c->nccl_level >= 0 ? ", NCCL_P2P_LEVEL set" : "");
			nccl_columns(f, v, c);
			fputs("\n| size | measured (us) | predicted (us) | ratio | measured in-place (us) | ratio |\n"
			      "|---|---|---|---|---|---|\n", f);
		}
		else if (c->kind == VAL_DECODE)
			fprintf(f, " %s %s weights, %s KV cache; one decode step of `batch` sequences "
				   "holding `ctx` tokens each.\n\n| point | measured step (ms) | "
				   "predicted step (ms) | ratio |\n|---|---|---|---|\n",
				c->model, c->weights, c->kv);
		else if (c->kind == VAL_COLLCSV)
			fputs("\n\n| point | measured (us) | predicted (us) | ratio |\n|---|---|---|---|\n", f);
		else
			fputs("\n\n| matrix | cells | median error | worst cell: measured -> predicted |\n|---|---|---|---|\n", f);
		if (c->kind == VAL_NCCL) {
			for (p = c->first_point; p < c->first_point + c->npoints; p++) {
				const struct val_point *o = &v->points[p], *ip = NULL;
				int q;
				if (o->group != 0)
					continue;
				for (q = c->first_point; q < c->first_point + c->npoints; q++)
					if (v->points[q].group == 1 && v->points[q].row == o->row)
						ip = &v->points[q];
				fprintf(f, "| %s | %.2f | %.2f | %.2f |", o->label, o->measured,
					o->predicted, o->predicted / o->measured);
				if (ip)
					fprintf(f, " %.2f | %.2f |\n", ip->measured, ip->predicted / ip->measured);
				else
					fputs(" - | - |\n", f);
			}
		} else if (c->kind != VAL_P2P) {
			for (p = c->first_point; p < c->first_point + c->npoints; p++)
				fprintf(f, "| %s | %.2f | %.2f | %.2f |\n", v->points[p].label,
					v->points[p].measured, v->points[p].predicted,
					v->points[p].predicted / v->points[p].measured);
		} else {
			int g;
			for (g = 0; g < MEAS_P2P_NKINDS; g++) {
				int first = -1, cnt = 0;
				struct val_stats st;
				for (p = c->first_point; p < c->first_point + c->npoints; p++)
					if (v->points[p].group == g) {
						if (first < 0)
							first = p;
						cnt++;
					}
				if (!cnt)
					continue;
				val_stats(v, first, cnt, &st);
				fprintf(f, "| %s | %d | %.1f%% | %s: %.2f -> %.2f %s |\n",
					meas_p2p_kind_name((enum meas_p2p_kind)g), st.n, 100 * st.median_err,
					st.worst >= 0 ? v->points[st.worst].label : "-",
					st.worst >= 0 ? v->points[st.worst].measured : 0,
					st.worst >= 0 ? v->points[st.worst].predicted : 0,
					st.worst >= 0 ? unit_of(&v->points[st.worst], c) : "");
			}
			p2p_unscored(f, c);
		}
		if (c->note[0])
			fprintf(f, "\n%s\n", c->note);
	}
	for (i = 0; i < v->nwhatif; i++) {
		const struct val_whatif *w = &v->whatif[i];
		int a, b, k;
		fprintf(f, "\n## %s\n\nPredicted total tok/s (no measurement), GLM-5 NVFP4, input and output 1024 tokens.\n\n| layout | concurrency |", w->name);
		for (a = 0; a < w->nscn; a++)
			fprintf(f, " %s |", w->scn[a]->name);
		fputs("\n|---|---|", f);
		for (a = 0; a < w->nscn; a++)
			fputs("---|", f);
		fputc('\n', f);
		for (b = 0; b < w->nlayouts; b++)
			for (k = 0; k < w->nconc; k++) {
				fprintf(f, "| %s | %d |", w->layouts[b], w->conc[k]);
				for (a = 0; a < w->nscn; a++) {
					if (a == 0)
						fprintf(f, " %.1f |", w->tok[a][b][k]);
					else
						fprintf(f, " %.1f (x%.2f) |", w->tok[a][b][k],
							w->tok[a][b][k] / w->tok[0][b][k]);
				}
				fputc('\n', f);
			}
		if (w->note[0])
			fprintf(f, "\n%s\n", w->note);
	}
}
