/*
 * cmd_predict_out.c - the printers of `plumb predict` and `plumb compare`
 * (cmd_predict_int.h): the rows as a table, CSV or JSON, the engine stacks,
 * what a speed-up depends on, and the throughput chart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "coll.h"
#include "cmd_predict_int.h"
#include "out.h"
#include "jout.h"
#include "render.h"

/* --breakdown in a table: each representative step's parts, ms per GPU. */
/* The model as a title: a file's model by its name (the config's
 * _name_or_path or its directory), a catalog id as given. */
static const char *model_title(const struct popts *o)
{
	const struct llm_model *m;
	if (llm_model_is_file(o->r.model) && llm_model_resolve(o->r.model, &m, NULL) == 0)
		return m->id;
	return o->r.model;
}

static void print_breakdown(FILE *f, const struct popts *o, const struct pred_row *rows, int nrows)
{
	int i, j;
	fprintf(f, "\nStep parts, ms per GPU (%s; launch and kernel_min are kernel latency, "
		   "weights and kv_cache memory):\n%-8s %11s", o->r.nbatch ? "each batch" :
		   "the decode step at each concurrency, context input + output/2", "layout",
		   o->r.nbatch ? "batch" : "concurrency");
	for (j = 0; j < PART_N; j++)
		fprintf(f, " %11s", pred_part_name((enum pred_part)j));
	fputc('\n', f);
	for (i = 0; i < nrows; i++) {
		const struct pred_row *r = &rows[i];
		if (!r->fits)
			continue;
		fprintf(f, "%-8s %11d", o->r.layouts[r->li], r->x);
		for (j = 0; j < PART_N; j++)
			fprintf(f, " %11.3f", r->part[j]);
		fputc('\n', f);
	}
}

/*
 * JSON: what the model is and how its weights are stored ("model_info"):
 * architecture, parameters, layer kinds, each weight group's format and bits
 * per weight with scales, what the checkpoint keeps in bf16, weight bytes.
 */
/* A count held in a double (parameters, bytes) as a JSON integer. */
static json_t *jcount(double x)
{
	return json_integer((json_int_t)llround(x));
}

/* The model's description (--format json "model_info"), or NULL when the
 * model does not resolve (the rows say why) or memory runs out. */
static json_t *model_json(const struct popts *o)
{
	static const char *const group[] = {
		"attention", "dense_mlp", "shared_experts", "routed_experts", "router",
		"embeddings", "lm_head"
	};
	const struct llm_model *m;
	struct llm_prec p;
	enum llm_dtype d[7];
	double total, active;
	int l, kinds[4] = { 0, 0, 0, 0 }, moe = 0, j, has[7], rc = 0;
	json_t *mi, *k, *fmt, *bits;
	if (llm_model_resolve(o->r.model, &m, NULL) < 0 ||
	    llm_prec_setup(&p, m, o->r.weights, o->r.kv, NULL) < 0)
		return NULL;
	llm_params(m, &total, &active);
	for (l = 0; l < m->layers; l++)
		kinds[llm_layer_kind(m, l)]++, moe += llm_layer_is_moe(m, l);
	d[0] = p.linear, d[1] = p.dense, d[2] = p.shared, d[3] = p.experts;
	d[4] = d[5] = d[6] = p.embed;
	/* the groups the model has */
	has[0] = has[5] = has[6] = 1;
	has[1] = moe < m->layers;
	has[2] = m->shared_experts > 0;
	has[3] = has[4] = m->experts > 0;
	mi = json_object();
	rc |= jout_set(mi, "id", jout_str(m->id));
	rc |= jout_set(mi, "name", jout_str(m->name));
	rc |= jout_set(mi, "architecture", jout_str(m->arch[0] ? m->arch : "catalog"));
	rc |= jout_set(mi, "source", jout_str(m->source));
	rc |= jout_set(mi, "params_total", jcount(total));
	rc |= jout_set(mi, "params_active", jcount(active));
	rc |= jout_set(mi, "layers", json_integer(m->layers));
	k = json_object();
	rc |= jout_set(k, "full", json_integer(kinds[LLM_LAYER_FULL]));
	rc |= jout_set(k, "sliding", json_integer(kinds[LLM_LAYER_SLIDING]));
	rc |= jout_set(k, "linear", json_integer(kinds[LLM_LAYER_LINEAR]));
	if (kinds[LLM_LAYER_CHUNKED])
		rc |= jout_set(k, "chunked", json_integer(kinds[LLM_LAYER_CHUNKED]));
	rc |= jout_set(mi, "layer_kinds", k);
	if (kinds[LLM_LAYER_SLIDING])
		rc |= jout_set(mi, "sliding_window", json_integer(m->sliding_window));
	if (kinds[LLM_LAYER_CHUNKED])
		rc |= jout_set(mi, "attention_chunk", json_integer(m->attn_chunk));
	if (m->experts && moe < m->layers - m->dense_layers)
		rc |= jout_set(mi, "moe_layers", json_integer(moe));
	fmt = json_object();
	bits = json_object();
	for (j = 0; j < 7; j++)
		if (has[j]) {
			rc |= jout_set(fmt, group[j], jout_str(llm_dtype_name(d[j])));
			rc |= jout_set(bits, group[j], jout_real(llm_prec_bits(&p, d[j]), 4));
		}
	rc |= jout_set(mi, "formats", fmt);
	rc |= jout_set(mi, "bits_per_weight", bits);
	if (d[0] == LLM_INT4 || d[3] == LLM_INT4) {
		rc |= jout_set(mi, "int4_group", json_integer(p.group));
		rc |= jout_set(mi, "int4_zero_points", json_boolean(p.zero));
	}
	if (m->ckpt.set) {
		json_t *c = json_object();
		rc |= jout_set(c, "quant_method", jout_str(m->ckpt.method));
		rc |= jout_set(c, "kept_bf16", jout_str(m->ckpt.kept));
		rc |= jout_set(c, "kv_cache", jout_str(m->ckpt.kv[0] ? m->ckpt.kv : "bf16"));
		rc |= jout_set(mi, "checkpoint", c);
	}
	rc |= jout_set(mi, "weight_bytes_total", jcount(llm_bytes_weights_total(m, &p, 0)));
	rc |= jout_set(mi, "kv_bytes_per_token", jcount(llm_kv_bytes_per_token(m, p.kv, 1)));
	if (rc) {
		json_decref(mi);
		return NULL;
	}
	return mi;
}

/* The GPUs row r's layout uses, all its replicas (0: it does not parse). */
static int row_gpus(const struct popts *o, const struct pred_row *r)
{
	(void)o;
	return pred_layout_gpus(r->lay);
}

/* r's power and money on its box under o's cost options (models/cost). */
static void row_cost(const struct popts *o, struct scenario **s, const struct pred_row *r,
		     struct cost_point *c)
{
	struct cost_params cp;
	cost_params_of(s[r->si], &o->cost, &cp);
	cost_point_eval(&cp, row_gpus(o, r), cost_activity(r->part), r->tok_total, c);
}

/* compare's table: what each box's costs assume, and each layout's power
 * and cost per million tokens at its highest load. */
static void print_money(FILE *f, const struct popts *o, struct scenario **s, int ns,
			const struct pred_row *rows, int nrows)
{
	int i, j, k;
	fputs("\nPower and money (models/cost; docs/model-serving.md \"Power and money\"):\n", f);
	for (j = 0; j < ns; j++) {
		struct cost_params cp;
		char t[400];
		cost_params_of(s[j], &o->cost, &cp);
		cost_params_text(&cp, t, sizeof(t));
		fprintf(f, "  %s: %s\n", s[j]->name, t);
	}
	for (j = 0; j < ns; j++)
		for (i = 0; i < nrows; i++) {
			const struct pred_row *r = &rows[i];
			struct cost_point c;
			char usd[32];
			if (r->si != j || !r->fits)
				continue;
			for (k = i + 1; k < nrows && (rows[k].si != j || rows[k].li != r->li); k++)
				;
			if (k < nrows)
				continue;       /* not the highest load of its layout */
			row_cost(o, s, r, &c);
			if (isnan(c.usd_per_mtok))
				snprintf(usd, sizeof(usd), "no price");
			else
				snprintf(usd, sizeof(usd), "$%.3f per million tokens", c.usd_per_mtok);
			if (isnan(c.gpu_w))
				fprintf(f, "  %s %s x%d: no GPU power in the catalog, %s\n", s[j]->name,
					r->lay, r->x, usd);
			else
				fprintf(f, "  %s %s x%d: GPU %.0f W, box %.2f kW, %.2f J/token, %s\n",
					s[j]->name, r->lay, r->x, c.gpu_w, c.box_w / 1000, c.j_per_tok, usd);
		}
}

/* Lines saying which layouts leave GPUs of a box idle, and that the rows'
 * tok/s is then that of the GPUs used (tok/s per GPU divides by them). */
static void print_unfilled(FILE *f, const struct popts *o, struct scenario **s, int ns)
{
	int li, j;
	for (li = 0; li < o->r.nlayouts; li++)
		for (j = 0; j < ns; j++) {
			struct step_layout l;
			int used;
			if (!(used = pred_layout_gpus(o->r.layouts[li])))
				continue;
			if (used >= s[j]->ngpus)
				continue;
			fprintf(f, "# %s uses %d of the %d GPUs of %s: the other %d stay idle; "
				   "tok/s is that of the GPUs used", o->r.layouts[li], used,
				s[j]->ngpus, s[j]->name[0] ? s[j]->name : s[j]->path,
				s[j]->ngpus - used);
			if (step_layout_parse(o->r.layouts[li], &l, NULL) == 0 && l.dp <= 1 &&
			    s[j]->ngpus % l.gpus == 0)
				fprintf(f, " (dp%d%s fills the box)", s[j]->ngpus / l.gpus,
					o->r.layouts[li]);
			fputc('\n', f);
		}
}

/* Under a comparison: what each layout runs as on each box where that is
 * not the layout itself (replicas filling the box), and why a cell is
 * n/a. Once per layout and box. */
static void print_boxes(FILE *f, const struct popts *o, struct scenario **s, int ns,
			const struct pred_row *rows, int nrows)
{
	int li, j, i, head = 0;
	for (li = 0; li < o->r.nlayouts; li++)
		for (j = 0; j < ns; j++) {
			const struct pred_row *r;
			struct step_layout l;
			for (i = 0; i < nrows && (rows[i].li != li || rows[i].si != j); i++)
				;
			if (i == nrows)
				continue;
			r = &rows[i];
			if (!r->fits && !strncmp(r->why, "n/a", 3)) {
				fprintf(f, "%s%s on %s: %s\n", head++ ? "" : "\n", o->r.layouts[li],
					s[j]->name, r->why);
			} else if (strcmp(r->lay, o->r.layouts[li]) &&
				   step_layout_parse(r->lay, &l, NULL) == 0) {
				fprintf(f, "%s%s on %s runs as %s: %d copies on its %d GPUs, the load "
					   "split between them (the default layouts fill each box)\n",
					head++ ? "" : "\n", o->r.layouts[li], s[j]->name, r->lay, l.dp,
					s[j]->ngpus);
			}
		}
}

/* "lo-hi" with prec decimals in buf, "-" for none. */
static const char *range_cell(char *buf, size_t n, double lo, double hi, int prec)
{
	if (isnan(lo))
		return "-";
	snprintf(buf, n, "%.*f-%.*f", prec, lo, prec, hi);
	return buf;
}

/* --format json: the whole document (docs/cli-predict.md). */
int cmd_predict_json(FILE *f, const struct popts *o, struct scenario **s,
		     const struct pred_row *rows, int nrows, struct plumb_err *err)
{
	const char *xname = o->r.nbatch ? "batch" : "concurrency";
	json_t *doc = json_object(), *arr = json_array(), *mi;
	int i, j, k, rc = 0;

	rc |= jout_set(doc, "model", jout_str(o->r.model));
	rc |= jout_set(doc, "weights", jout_str(o->r.weights));
	rc |= jout_set(doc, "kv", jout_str(o->r.kv));
	if ((mi = model_json(o)))
		rc |= jout_set(doc, "model_info", mi);
	{
		/* each box's engine stack (its first layout), in scenario order */
		json_t *es = json_array();
		for (i = 0; es && i < o->npaths; i++)
			rc |= jout_push(es, jout_str(o->stack[i]));
		rc |= !es || jout_set(doc, "engine_stacks", es);
	}
	for (i = 0; i < nrows; i++) {
		const struct pred_row *r = &rows[i];
		json_t *row = json_object();
		rc |= jout_set(row, "scenario", jout_str(s[r->si]->name));
		rc |= jout_set(row, "layout", jout_str(o->r.layouts[r->li]));
		if (strcmp(r->lay, o->r.layouts[r->li]))
			rc |= jout_set(row, "layout_run", jout_str(r->lay));
		rc |= jout_set(row, "gpus_used", json_integer(row_gpus(o, r)));
		rc |= jout_set(row, "box_gpus", json_integer(s[r->si]->ngpus));
		rc |= jout_set(row, xname, json_integer(r->x));
		rc |= jout_set(row, "fits", json_boolean(r->fits));
		if (!r->fits) {
			rc |= jout_set(row, "why", jout_str(r->why));
			rc |= jout_push(arr, row);
			continue;
		}
		rc |= jout_set(row, "step_ms", jout_real(r->step_ms, 3));
		rc |= jout_set(row, "tok_s_total", jout_real(r->tok_total, 2));
		rc |= jout_set(row, "tok_s_per_gpu",
			       jout_real(row_gpus(o, r) > 0 ? r->tok_total / row_gpus(o, r) : 0, 2));
		rc |= jout_set(row, "tok_s_per_stream", jout_real(r->tok_stream, 3));
		rc |= jout_set(row, "tpot_ms", jout_real(r->tpot_ms, 3));
		if (!isnan(r->ttft_ms))
			rc |= jout_set(row, "ttft_ms", jout_real(r->ttft_ms, 2));
		if (!isnan(r->lo)) {
			rc |= jout_set(row, "tok_s_total_p5", jout_real(r->lo, 2));
			rc |= jout_set(row, "tok_s_total_p95", jout_real(r->hi, 2));
			rc |= jout_set(row, "tpot_ms_p5", jout_real(r->tpot_lo, 3));
			rc |= jout_set(row, "tpot_ms_p95", jout_real(r->tpot_hi, 3));
		}
		if (!isnan(r->ttft_lo)) {
			rc |= jout_set(row, "ttft_ms_p5", jout_real(r->ttft_lo, 2));
			rc |= jout_set(row, "ttft_ms_p95", jout_real(r->ttft_hi, 2));
		}
		if (r->dv) {
			/* the interval's draws, in draw order (the same constants
			 * for draw d of every row): a paired speed-up is the
			 * ratio draw by draw; null where the point did not fit */
			json_t *dv = json_array();
			int d;
			rc |= !dv;
			for (d = 0; dv && d < r->ndv; d++)
				rc |= jout_push(dv, isnan(r->dv[d]) ? json_null()
								    : jout_real(r->dv[d], 2));
			if (dv)
				rc |= jout_set(row, "tok_s_draws", dv);
		}
		rc |= jout_set(row, "comm_frac", jout_real(r->comm, 4));
		rc |= jout_set(row, "compute_frac", jout_real(r->compute, 4));
		rc |= jout_set(row, "idle_frac", jout_real(r->idle, 4));
		rc |= jout_set(row, "busy_frac", jout_real(r->compute + r->comm, 4));
		rc |= jout_set(row, "diagnosis", jout_str(r->diag));
		if (o->r.compare) {
			struct cost_point c;
			row_cost(o, s, r, &c);
			rc |= jout_set(row, "gpu_w", jout_real(c.gpu_w, 1));
			rc |= jout_set(row, "box_w", jout_real(c.box_w, 1));
			rc |= jout_set(row, "j_per_tok", jout_real(c.j_per_tok, 3));
			rc |= jout_set(row, "usd_per_mtok", jout_real(c.usd_per_mtok, 4));
		}
		if (!o->r.nbatch) {
			json_t *pc = json_object();
			for (k = 0; k < SERVE_NDIST; k++) {
				const double *v = serve_dist(&r->sr, k);
				json_t *d = json_object();
				rc |= jout_set(d, "p50", jout_real(v[0], 3));
				rc |= jout_set(d, "p90", jout_real(v[1], 3));
				rc |= jout_set(d, "p99", jout_real(v[2], 3));
				rc |= jout_set(pc, serve_dist_name[k], d);
			}
			rc |= jout_set(row, "percentiles_ms", pc);
			rc |= jout_set(row, "itl_ms", jout_real(r->sr.itl_ms, 3));
			rc |= jout_set(row, "e2e_ms", jout_real(r->sr.e2e_ms, 2));
			if (pred_layout_is_design(r->lay)) {
				json_t *x = json_object();
				rc |= jout_set(x, "mean", jout_real(r->sr.xfer_ms, 3));
				rc |= jout_set(x, "p50", jout_real(r->sr.xfer_p[0], 3));
				rc |= jout_set(x, "p90", jout_real(r->sr.xfer_p[1], 3));
				rc |= jout_set(x, "p99", jout_real(r->sr.xfer_p[2], 3));
				rc |= jout_set(row, "kv_transfer_ms", x);
				rc |= jout_set(row, "prefill_ms", jout_real(r->sr.prefill_ms, 2));
				rc |= jout_set(row, "decode_link_delay_ms",
					       jout_real(r->sr.link_delay_s * 1e3, 3));
				rc |= jout_set(row, "prefill_link_delay_ms",
					       jout_real(r->sr.pf_link_delay_s * 1e3, 3));
			}
			rc |= jout_set(row, "kv_tokens", json_integer(r->kv_tokens));
			rc |= jout_set(row, "kv_peak_tokens", json_integer(r->sr.kv_peak));
			rc |= jout_set(row, "queued_max", json_integer(r->sr.max_waiting));
			rc |= jout_set(row, "retracted", json_integer(r->sr.preemptions));
			if (o->r.prefix_len > 0 || o->r.offload_gib > 0) {
				rc |= jout_set(row, "prefix_hits", json_integer(r->sr.prefix_hits));
				rc |= jout_set(row, "offloaded", json_integer(r->sr.offloads));
				rc |= jout_set(row, "reload_tokens", json_integer(r->sr.reload_tokens));
				rc |= jout_set(row, "kv_io_ms", jout_real(r->sr.kv_io_s * 1e3, 3));
			}
		}
		if (o->breakdown) {
			json_t *bd = json_object();
			for (j = 0; j < PART_N; j++)
				rc |= jout_set(bd, pred_part_name((enum pred_part)j),
					       jout_real(r->part[j], 3));
			rc |= jout_set(row, "breakdown_ms", bd);
		}
		rc |= jout_push(arr, row);
	}
	rc |= jout_set(doc, "rows", arr);
	return jout_write_built(f, doc, rc, 2, err);
}

/* --percentiles in a table: each serving row's distributions and KV. */
static void print_percentiles(FILE *f, const struct popts *o, const struct pred_row *rows, int nrows)
{
	int i, k;
	fprintf(f, "\nLatency percentiles, ms (p50 / p90 / p99), and the KV cache (tokens)%s:\n"
		   "%-8s %11s", o->r.rate > 0 ? "; arrivals Poisson" : "", "layout", "concurrency");
	for (k = 0; k < SERVE_NDIST; k++)
		fprintf(f, " %22s", serve_dist_name[k]);
	fprintf(f, " %10s %10s %7s %9s\n", "kv_tokens", "kv_peak", "queued", "retracted");
	for (i = 0; i < nrows; i++) {
		const struct pred_row *r = &rows[i];
		if (!r->fits)
			continue;
		fprintf(f, "%-8s %11d", o->r.layouts[r->li], r->x);
		for (k = 0; k < SERVE_NDIST; k++) {
			char cell[64];
			const double *v = serve_dist(&r->sr, k);
			snprintf(cell, sizeof(cell), "%.1f / %.1f / %.1f", v[0], v[1], v[2]);
			fprintf(f, " %22s", cell);
		}
		fprintf(f, " %10ld %10ld %7d %9d\n", r->kv_tokens, r->sr.kv_peak, r->sr.max_waiting,
			r->sr.preemptions);
	}
	if (o->r.prefix_len <= 0 && o->r.offload_gib <= 0)
		return;
	fprintf(f, "\nKV tiers: prefix %ld tokens, hit share %.2f; host tier %.1f GiB per copy (%s NUMA node):\n"
		   "%-8s %11s %11s %9s %13s %11s\n", o->r.prefix_len, o->r.prefix_hit, o->r.offload_gib,
		o->r.offload_far ? "far" : "near", "layout", "concurrency", "prefix_hits", "offloaded",
		"reload_tokens", "kv_io_ms");
	for (i = 0; i < nrows; i++) {
		const struct pred_row *r = &rows[i];
		if (r->fits)
			fprintf(f, "%-8s %11d %11d %9d %13ld %11.1f\n", o->r.layouts[r->li], r->x,
				r->sr.prefix_hits, r->sr.offloads, r->sr.reload_tokens,
				r->sr.kv_io_s * 1e3);
	}
}

/* Disaggregated designs: each row's KV transfer and time to the end of
 * its prefill. */
static void print_designs(FILE *f, const struct popts *o, const struct pred_row *rows, int nrows)
{
	int i, head = 0;
	for (i = 0; i < nrows; i++) {
		const struct pred_row *r = &rows[i];
		if (!r->fits || !pred_layout_is_design(r->lay))
			continue;
		if (!head++)
			fprintf(f, "\nDisaggregated designs: KV transfer from prefill to decode, ms "
				   "(mean, p50 / p90 / p99), arrival to prefill end, ms (mean), and the "
				   "time the decode and\nprefill steps lost to transfers on the links of "
				   "their collectives, ms (all steps):\n"
				   "%-20s %11s %28s %10s %10s %10s\n", "design", "concurrency",
				"kv_transfer", "prefill", "d_delay", "p_delay");
		fprintf(f, "%-20s %11d %8.2f %6.2f / %6.2f / %6.2f %10.1f %10.2f %10.2f\n",
			o->r.layouts[r->li], r->x, r->sr.xfer_ms, r->sr.xfer_p[0], r->sr.xfer_p[1],
			r->sr.xfer_p[2], r->sr.prefill_ms, r->sr.link_delay_s * 1e3,
			r->sr.pf_link_delay_s * 1e3);
	}
}

/* The stack assumed, and the first layout's first and last load under the
 * other engines against the rows (predict's table). */
static void print_engines(FILE *f, const struct popts *o, const struct pred_row *rows, int nrows)
{
	const struct pred_row *lo = NULL, *hi = NULL;
	const char *unit = "request";
	int i;
	fprintf(f, "# engine %s\n", o->stack[0]);
	for (i = 0; i < nrows; i++)
		if (rows[i].li == 0) {
			if (!lo)
				lo = &rows[i];
			hi = &rows[i];
		}
	for (i = 0; lo && i < o->nalt; i++) {
		const struct pred_engine_alt *a = &o->alt[i];
		char c0[64] = "does not fit", c1[64] = "does not fit";
		if (a->lo.fits)
			snprintf(c0, sizeof(c0), "%.1f tok/s (x%.2f)", a->lo.tok_total,
				 lo->fits ? a->lo.tok_total / lo->tok_total : NAN);
		if (a->hi.fits)
			snprintf(c1, sizeof(c1), "%.1f tok/s (x%.2f)", a->hi.tok_total,
				 hi->fits ? a->hi.tok_total / hi->tok_total : NAN);
		if (o->r.nbatch)
			fprintf(f, "#   under %s, %s: %s at batch %d", a->engine, o->r.layouts[0], c0,
				lo->x);
		else
			fprintf(f, "#   under %s, %s: %s at %d %s%s", a->engine, o->r.layouts[0], c0,
				lo->x, unit, lo->x == 1 ? "" : "s");
		if (hi != lo)
			fprintf(f, ", %s at %s%d", c1, o->r.nbatch ? "batch " : "", hi->x);
		fputc('\n', f);
	}
}

void cmd_predict_rows(FILE *f, const struct popts *o, struct scenario **s, int ns,
		      const struct pred_row *rows, int nrows, int compare)
{
	const char *xname = o->r.nbatch ? "batch" : "concurrency";
	int i, j, w, iv = 0, pct = o->percentiles && !o->r.nbatch;
	int raw = o->csv_raw ? OUT_CSV_RAW : 0;

	for (i = 0; i < nrows; i++)
		iv |= rows[i].fits && !isnan(rows[i].lo);

	if (!strcmp(o->format, "csv")) {
		fprintf(f, "%slayout,gpus,%s,context,step_ms,tok_s_total,tok_s_per_stream,tpot_ms,ttft_ms,comm_frac,compute_frac,idle_frac,busy_frac,fits,diagnosis%s",
			compare ? "scenario," : "", xname, iv ? ",tok_s_total_p5,tok_s_total_p95" : "");
		for (j = 0; o->breakdown && j < PART_N; j++)
			fprintf(f, ",%s_ms", pred_part_name((enum pred_part)j));
		for (j = 0; pct && j < SERVE_NDIST * SERVE_NPCT; j++)
			fprintf(f, ",%s_p%.0f_ms", serve_dist_name[j / SERVE_NPCT], 100 * serve_pct[j % SERVE_NPCT]);
		if (pct)
			fputs(",kv_tokens,kv_peak_tokens,queued_max,retracted", f);
		if (compare)
			fputs(",gpu_w,box_w,j_per_tok,usd_per_mtok", f);
		fputc('\n', f);
		for (i = 0; i < nrows; i++) {
			const struct pred_row *r = &rows[i];
			if (compare) {
				out_csv_cell(f, s[r->si]->name, raw);
				fputc(',', f);
			}
			out_csv_cell(f, r->lay, raw);
			fprintf(f, ",%d,%d,%ld,", row_gpus(o, r), r->x,
				o->r.nbatch ? o->r.context : o->r.input + o->r.output / 2);
			if (!r->fits) {
				fputs(",,,,,,,,,0,", f);
				out_csv_cell(f, r->why, raw | OUT_CSV_QUOTE);
				fputs(iv ? ",," : "", f);
				for (j = 0; o->breakdown && j < PART_N; j++)
					fputc(',', f);
				for (j = 0; pct && j < SERVE_NDIST * SERVE_NPCT + 4; j++)
					fputc(',', f);
				fputs(compare ? ",,,,\n" : "\n", f);
				continue;
			}
			fprintf(f, "%.3f,%.2f,%.3f,%.3f,", r->step_ms, r->tok_total, r->tok_stream, r->tpot_ms);
			if (isnan(r->ttft_ms))
				fputc(',', f);
			else
				fprintf(f, "%.2f,", r->ttft_ms);
			fprintf(f, "%.4f,%.4f,%.4f,%.4f,1,", r->comm, r->compute, r->idle,
				r->compute + r->comm);
			out_csv_cell(f, r->diag, raw | OUT_CSV_QUOTE);
			if (iv && !isnan(r->lo))
				fprintf(f, ",%.2f,%.2f", r->lo, r->hi);
			else if (iv)
				fputs(",,", f);
			for (j = 0; o->breakdown && j < PART_N; j++)
				fprintf(f, ",%.3f", r->part[j]);
			for (j = 0; pct && j < SERVE_NDIST * SERVE_NPCT; j++)
				fprintf(f, ",%.3f", serve_dist(&r->sr, j / SERVE_NPCT)[j % SERVE_NPCT]);
			if (pct)
				fprintf(f, ",%ld,%ld,%d,%d", r->kv_tokens, r->sr.kv_peak, r->sr.max_waiting,
					r->sr.preemptions);
			if (compare) {
				struct cost_point c;
				const double *v[] = { &c.gpu_w, &c.box_w, &c.j_per_tok, &c.usd_per_mtok };
				row_cost(o, s, r, &c);
				for (j = 0; j < 4; j++)
					isnan(*v[j]) ? fputc(',', f) : fprintf(f, ",%.4f", *v[j]);
			}
			fputc('\n', f);
		}
		return;
	}
	/* table */
	fprintf(f, "# %s, %s weights, %s KV cache; input %ld, output %ld, cached context %ld tokens%s%s\n",
		model_title(o), o->r.weights, o->r.kv, o->r.input, o->r.output, o->r.context,
		o->r.eager ? ", eager" : ", CUDA graphs", o->r.mtp ? ", speculative decoding" : "");
	if (o->trace)
		fprintf(f, "# requests: %d from %s (their arrivals and lengths)\n", o->r.nreqs, o->trace);
	else if (o->r.rate > 0)
		fprintf(f, "# requests: %ld arriving at %g/s (Poisson)\n",
			o->r.requests ? o->r.requests : 1000, o->r.rate);
	if (!compare) {
		fprintf(f, "# %s\n", s[0]->name[0] ? s[0]->name : s[0]->path);
		print_engines(f, o, rows, nrows);
		if (iv)
			fprintf(f, cmd_calib() ? "# tok/s 90%% interval from the calibration's covariance "
				   "and residual spread (%d draws)\n"
				   : "# tok/s 90%% interval from the step constants the scenario leaves "
				   "open, over their plausible ranges or the GPU catalog's measured "
				   "spreads, and the model error make validate measures (%d draws; "
				   "plumb constants)\n",
				o->r.draws);
		print_unfilled(f, o, s, 1);
		fprintf(f, "%-8s %11s %9s %11s ", "layout", xname, "step_ms", "tok/s");
		if (iv)
			fprintf(f, "%17s ", "tok/s 90%");
		fprintf(f, "%4s %9s ", "gpus", "tok/s/gpu");
		fprintf(f, "%11s %9s ", "tok/s/user", "tpot_ms");
		if (iv)
			fprintf(f, "%13s ", "tpot 90%");
		fprintf(f, "%9s ", "ttft_ms");
		if (iv)
			fprintf(f, "%15s ", "ttft 90%");
		fprintf(f, "%6s %6s  %s\n", "comm%", "busy%", "diagnosis");
		for (i = 0; i < nrows; i++) {
			const struct pred_row *r = &rows[i];
			char cell[48];
			if (!r->fits) {
				fprintf(f, "%-8s %11d  %s\n", o->r.layouts[r->li], r->x, r->why);
				continue;
			}
			fprintf(f, "%-8s %11d %9.2f %11.1f ", o->r.layouts[r->li], r->x, r->step_ms, r->tok_total);
			if (iv) {
				snprintf(cell, sizeof(cell), "%.1f-%.1f", r->lo, r->hi);
				fprintf(f, "%17s ", isnan(r->lo) ? "-" : cell);
			}
			fprintf(f, "%4d %9.1f ", row_gpus(o, r),
				row_gpus(o, r) > 0 ? r->tok_total / row_gpus(o, r) : 0);
			fprintf(f, "%11.2f %9.2f ", r->tok_stream, r->tpot_ms);
			if (iv)
				fprintf(f, "%13s ", range_cell(cell, sizeof(cell), r->tpot_lo, r->tpot_hi, 2));
			if (isnan(r->ttft_ms))
				fprintf(f, "%9s ", "-");
			else
				fprintf(f, "%9.1f ", r->ttft_ms);
			if (iv)
				fprintf(f, "%15s ", range_cell(cell, sizeof(cell), r->ttft_lo, r->ttft_hi, 1));
			fprintf(f, "%5.0f%% %5.0f%%  %s\n", 100 * r->comm, 100 * (r->compute + r->comm), r->diag);
		}
		if (o->breakdown)
			print_breakdown(f, o, rows, nrows);
		if (pct)
			print_percentiles(f, o, rows, nrows);
		print_designs(f, o, rows, nrows);
		return;
	}
	/* With draws every speed-up also gets its paired 90% range: the
	 * ratio under each draw (draw d the same constants for both rows). */
	for (i = 0, w = 30; i < nrows; i++)
		if (rows[i].dv)
			w = 44;
	for (j = 0; j < ns; j++)
		fprintf(f, "# %s: engine %s\n", s[j]->name, o->stack[j]);
	fprintf(f, "# total tok/s per box; x = speed-up over %s%s\n", s[0]->name,
		w > 30 ? " (with its 90% range over the draws, each the same for every box)" : "");
	fprintf(f, "%-8s %11s", "layout", xname);
	for (j = 0; j < ns; j++)
		fprintf(f, " %*s", j ? w : 24, s[j]->name);
	fputc('\n', f);
	for (i = 0; i < nrows; i += ns) {
		const struct pred_row *r0 = &rows[i];
		fprintf(f, "%-8s %11d", o->r.layouts[r0->li], r0->x);
		for (j = 0; j < ns; j++) {
			const struct pred_row *r = &rows[i + j];
			if (!r->fits)
				fprintf(f, " %*s", j ? w : 24,
					!strncmp(r->why, "n/a", 3) ? "n/a" : "does not fit");
			else {
				char cell[128], band[48] = "", xr[48] = "";
				if (!isnan(r->lo))
					snprintf(band, sizeof(band), " [%.0f-%.0f]", r->lo, r->hi);
				if (j > 0 && r0->fits && r->dv && r0->dv && r->ndv == r0->ndv) {
					double lo, hi;
					pred_ratio_interval(&o->r, r->dv, r0->dv, r->ndv, &lo, &hi);
					if (!isnan(lo))
						snprintf(xr, sizeof(xr), ", x%.2f-%.2f", lo, hi);
				}
				if (j == 0 || !r0->fits)
					snprintf(cell, sizeof(cell), "%.1f%s", r->tok_total, band);
				else
					snprintf(cell, sizeof(cell), "%.1f%s (x%.2f%s)", r->tok_total, band,
						 r->tok_total / r0->tok_total, xr);
				fprintf(f, " %*s", j ? w : 24, cell);
			}
		}
		fputc('\n', f);
	}
	print_boxes(f, o, s, ns, rows, nrows);
	print_money(f, o, s, ns, rows, nrows);
	fputs("\nWhy (per box, at the highest concurrency of each layout):\n", f);
	for (j = 0; j < ns; j++)
		for (i = nrows - 1; i >= 0; i--) {
			int k;
			const struct pred_row *r = &rows[i];
			if (r->si != j)
				continue;
			for (k = i + 1; k < nrows && (rows[k].si != j || rows[k].li != r->li); k++)
				;
			if (k < nrows || !r->fits)
				continue;
			fprintf(f, "  %s %s x%d: %s\n", s[j]->name, o->r.layouts[r->li], r->x, r->diag);
		}
}

/* " (90%: xLO-HI)", or "" without a range. */
static const char *range_text(char *buf, size_t n, double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		return "";
	snprintf(buf, n, " (90%%: x%.2f-%.2f)", lo, hi);
	return buf;
}

/*
 * What a box's speed-up over the first depends on, for every bare-metal box:
 * the first layout at the lowest and highest load again with NCCL's default
 * level (PXB) when the scenario sets NCCL_P2P_LEVEL=SYS (P2P across host
 * bridges becomes host-memory SHM), and with both boxes' engines on eager
 * launches (pred_run_depends).
 */
int cmd_predict_depends(FILE *f, const struct popts *o, struct scenario **s,
			const struct pred_row *rows, int nrows, struct plumb_err *err)
{
	struct pred_depends dep[MAXSCN];
	int k, n, rc;
	if ((rc = pred_run_depends(&o->r, s, o->npaths, rows, nrows, dep, &n, err)) < 0)
		return rc;
	for (k = 0; k < n; k++) {
		const struct pred_depends *d = &dep[k];
		char buf[2][64];
		if (k == 0) {
			fprintf(f, "\nWhat the speed-up over %s depends on (%s, %d and %d requests):\n",
				s[0]->name, o->r.layouts[0], d->lo->x, d->hi->x);
			if (!isnan(d->rlo[0]))
				fprintf(f, "  (90%%: the speed-up under %d draws of the constants, %s, "
					   "each draw the same for both boxes)\n", o->r.draws,
					cmd_calib() ? "from the calibration's covariance and residual spread" :
					coll_vm_unmeasured(s[0]) ? "the step constants the scenarios leave open "
					"over their plausible ranges and the unmeasured VM's host path over "
					"the measured VMs' prior" :
					"the step constants the scenarios leave open over their plausible ranges");
		}
		fprintf(f, "  %s: x%.2f%s and x%.2f%s as predicted above.\n", s[d->j]->name,
			d->lo->tok_total / d->lo0->tok_total,
			range_text(buf[0], sizeof(buf[0]), d->rlo[0], d->rhi[0]),
			d->hi->tok_total / d->hi0->tok_total,
			range_text(buf[1], sizeof(buf[1]), d->rlo[1], d->rhi[1]));
		/* A benchmark's "peak throughput" (the seed's 485) is the busiest
		 * second, not the run's mean that the table gives. */
		if (!o->r.nbatch && d->hi->sr.peak_tok_s > 0 && d->hi0->sr.peak_tok_s > 0)
			fprintf(f, "    Peak output rate at %d requests (the busiest second, bench_serving's "
				   "\"peak output token throughput\"; the table gives the run's mean): "
				   "%.1f against %.1f tok/s, x%.2f.\n", d->hi->x, d->hi->sr.peak_tok_s,
				d->hi0->sr.peak_tok_s, d->hi->sr.peak_tok_s / d->hi0->sr.peak_tok_s);
		if (d->pxb)
			fprintf(f, "    It runs P2P between GPUs on different host bridges only with "
				   "NCCL_P2P_LEVEL=SYS (its scenario sets it); with NCCL's default (PXB) "
				   "its all-reduces go through host memory: %.1f and %.1f tok/s, "
				   "x%.2f and x%.2f.\n", d->pxb_tok[0], d->pxb_tok[1],
				d->pxb_tok[0] / d->lo0->tok_total, d->pxb_tok[1] / d->hi0->tok_total);
		if (d->eager_fits)
			fprintf(f, "    With both engines on eager launches (no CUDA graphs): %.1f and "
				   "%.1f tok/s against %.1f and %.1f, x%.2f and x%.2f.\n",
				d->eager[0], d->eager[1], d->eager0[0], d->eager0[1],
				d->eager[0] / d->eager0[0], d->eager[1] / d->eager0[1]);
	}
	if (n && s[0]->vm.mode == SCN_VM && s[0]->serving.given && coll_vm_measured(&s[0]->k))
		fprintf(f, "  %s's host-path constant (vm_step_exits) is fitted to its measured "
			   "tok/s with CUDA graphs on; if its engine ran without them, the same data "
			   "gives a smaller one (scripts/calibrate-seed.sh prints both and the "
			   "speed-up each implies).\n", s[0]->name);
	return 0;
}

/* The rows as the throughput chart: a line per box and layout. */
int cmd_predict_plot(const struct popts *o, struct scenario **s, const struct pred_row *rows,
		     int nrows, struct plumb_err *err)
{
	struct rdr_series *ser = calloc((size_t)(o->npaths * o->r.nlayouts), sizeof(*ser));
	char title[256];
	int i, rc;
	if (!ser)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < o->npaths * o->r.nlayouts; i++) {
		snprintf(ser[i].label, sizeof(ser[i].label), "%s, %s", s[i / o->r.nlayouts]->name,
			 o->r.layouts[i % o->r.nlayouts]);
		ser[i].color = i / o->r.nlayouts;
		ser[i].dash = i % o->r.nlayouts;
	}
	for (i = 0; i < nrows; i++) {
		struct rdr_series *r = &ser[rows[i].si * o->r.nlayouts + rows[i].li];
		if (r->n < RDR_MAX_PTS) {
			r->x[r->n] = rows[i].x;
			/* the 90% interval as a band where there is one (NAN draws none) */
			r->lo[r->n] = rows[i].fits ? rows[i].lo : NAN;
			r->hi[r->n] = rows[i].fits ? rows[i].hi : NAN;
			r->y[r->n++] = rows[i].fits ? rows[i].tok_total : NAN;
		}
	}
	snprintf(title, sizeof(title), "%s %s: total tok/s (input %ld, output %ld)", model_title(o),
		 o->r.weights, o->r.input, o->r.output);
	rc = rdr_throughput(o->plot, title, o->r.nbatch ? "batch (one decode step)" :
			    "concurrent requests (closed loop)", ser, o->npaths * o->r.nlayouts, err);
	rdr_release_fonts();
	free(ser);
	return rc;
}
