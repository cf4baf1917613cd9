/*
 * eval.c - one point of a sweep: its settings, its scenario variant, the
 * prediction `plumb predict` makes for it, and its row (sweep.h).
 *
 * The prediction is the one of cli/cmd_predict.c for a single layout and
 * concurrency: memory fit, a closed-loop serving run, and a report step
 * (decode of `concurrency` sequences at context input + output/2) for the
 * compute/communication split and the diagnosis; numbers are printed with
 * the same formats, so a sweep row and a predict row agree digit for digit.
 * Every step goes through the step cache; parsed variants are kept in a
 * small cache (VCAP, least recently used out) so consecutive points on the
 * same variant parse it once.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "predict_run.h"
#include "scn.h"
#include "sweep.h"
#include "cost.h"
#include "sweep_int.h"

#define VCAP 16
#define REPORT_STEP 99

struct vslot {
	int used;
	uint64_t id;            /* variant id (point) */
	uint64_t content;       /* hash of its scenario text */
	struct scenario *s;
	int refs;
	uint64_t tick;
};

struct swp_eval {
	const struct swp_grid *g;
	enum swp_format fmt;
	struct swp_cache *cache;
	const struct llm_catalog *cat;
	pthread_mutex_t mu;
	struct vslot v[VCAP];
	uint64_t tick;
};

/* A point's prediction settings. */
struct settings {
	char scenario[1024], model[256], weights[16], kv[16], layout[32];
	long concurrency, context, input, output, micro, mtp;
	double accept;
	int eager;
};

struct swp_eval *swp_eval_new(const struct swp_grid *g, enum swp_format fmt)
{
	struct swp_eval *e = calloc(1, sizeof(*e));
	struct plumb_err err;
	if (!e)
		return NULL;
	e->g = g;
	e->fmt = fmt;
	/* The catalogs are parsed on first use: do it before any thread runs. */
	e->cat = llm_catalog_builtin(&err);
	if (!e->cat || !scn_catalog_builtin(&err) || !(e->cache = swp_cache_new())) {
		free(e);
		return NULL;
	}
	pthread_mutex_init(&e->mu, NULL);
	return e;
}

void swp_eval_free(struct swp_eval *e)
{
	int i;
	if (!e)
		return;
	for (i = 0; i < VCAP; i++)
		scn_free(e->v[i].s);
	swp_cache_free(e->cache);
	pthread_mutex_destroy(&e->mu);
	free(e);
}

struct swp_cache *swp_eval_cache(struct swp_eval *e)
{
	return e->cache;
}

/* The parsed variant of p; release with vput. *slot is -1 when the
 * scenario is not in the cache (then vput frees it). */
static int vget(struct swp_eval *e, const struct swp_point *p, struct scenario **s, int *slot,
		uint64_t *content, struct plumb_err *err)
{
	struct scenario *mine;
	uint64_t h;
	int i, rc, victim = -1;

	pthread_mutex_lock(&e->mu);
	for (i = 0; i < VCAP; i++)
		if (e->v[i].used && e->v[i].id == p->variant) {
			e->v[i].refs++;
			e->v[i].tick = ++e->tick;
			*s = e->v[i].s;
			*slot = i;
			*content = e->v[i].content;
			pthread_mutex_unlock(&e->mu);
			return 0;
		}
	pthread_mutex_unlock(&e->mu);
	if ((rc = swp_variant_load_hash(e->g, p, &mine, &h, err)) < 0)
		return rc;
	*content = h;
	pthread_mutex_lock(&e->mu);
	for (i = 0; i < VCAP; i++)
		if (e->v[i].used && e->v[i].id == p->variant) {   /* another thread won */
			e->v[i].refs++;
			e->v[i].tick = ++e->tick;
			*s = e->v[i].s;
			*slot = i;
			pthread_mutex_unlock(&e->mu);
			scn_free(mine);
			return 0;
		}
	for (i = 0; i < VCAP; i++)
		if (!e->v[i].used || (!e->v[i].refs && (victim < 0 || !e->v[victim].used ||
							e->v[i].tick < e->v[victim].tick)))
			if (victim < 0 || e->v[victim].used)
				victim = i;
	if (victim >= 0) {
		scn_free(e->v[victim].s);
		e->v[victim].used = 1;
		e->v[victim].id = p->variant;
		e->v[victim].content = h;
		e->v[victim].s = mine;
		e->v[victim].refs = 1;
		e->v[victim].tick = ++e->tick;
	}
	pthread_mutex_unlock(&e->mu);
	*s = mine;
	*slot = victim;
	return 0;
}

static void vput(struct swp_eval *e, struct scenario *s, int slot)
{
	if (slot < 0) {
		scn_free(s);
		return;
	}
	pthread_mutex_lock(&e->mu);
	e->v[slot].refs--;
	pthread_mutex_unlock(&e->mu);
}

static long ival(const struct swp_grid *g, const struct ynode *v, long def)
{
	long x;
	if (!v || yget_int(g->t, v, "value", -2147483647L, 2147483647L, &x, NULL) < 0)
		return def;
	return x;
}

static void text_or(const struct ynode *v, const char *def, char *buf, size_t n)
{
	if (v)
		swp_node_text(v, buf, n);
	else
		snprintf(buf, n, "%s", def);
}

static void settings(const struct swp_eval *e, const struct swp_point *p, int ngpus,
		     struct settings *st)
{
	const struct swp_grid *g = e->g;
	const struct ynode *v[SWP_NSETTINGS] = { NULL };
	char def[32];
	int i;

	for (i = 0; i < g->nnames; i++)
		if (g->names[i].kind < SWP_NSETTINGS)
			v[g->names[i].kind] = p->val[i];
	text_or(v[SWP_SCENARIO], "", st->scenario, sizeof(st->scenario));
	text_or(v[SWP_MODEL], "glm-5", st->model, sizeof(st->model));
	{
		char path[1400];
		llm_model_path(e->g->dir, st->model, path, sizeof(path));
		text_or(v[SWP_WEIGHTS], llm_default_weights(path), st->weights, sizeof(st->weights));
	}
	text_or(v[SWP_KV], "bf16", st->kv, sizeof(st->kv));
	snprintf(def, sizeof(def), "tp%d", ngpus);
	text_or(v[SWP_LAYOUT], def, st->layout, sizeof(st->layout));
	st->concurrency = ival(g, v[SWP_CONCURRENCY], 1);
	st->context = ival(g, v[SWP_CONTEXT], 0);
	st->input = ival(g, v[SWP_INPUT], 1024);
	st->output = ival(g, v[SWP_OUTPUT], 1024);
	st->micro = ival(g, v[SWP_MICRO], 0);
	st->mtp = ival(g, v[SWP_MTP], 0);
	st->accept = 0;
	if (v[SWP_ACCEPT])
		yget_double(g->t, v[SWP_ACCEPT], "accept", 0, 1, &st->accept, NULL);
	st->eager = 0;
	if (v[SWP_EAGER])
		yget_bool(g->t, v[SWP_EAGER], "eager", &st->eager, NULL);
}

/* ---- the prediction ------------------------------------------------------ */

struct stepctx {
	struct swp_eval *e;
	const struct pred_cfg *c;
	struct swp_step_key k;  /* template: variant and configuration */
};

static int compute(void *ctx, const struct swp_step_key *k, struct swp_step_val *v,
		   struct plumb_err *err)
{
	const struct stepctx *sc = ctx;
	struct pred_step_info info;
	int rc;
	if (k->kind != REPORT_STEP) {
		struct serve_shape sh;
		memset(&sh, 0, sizeof(sh));
		sh.kind = (enum serve_step)k->kind;
		sh.batch = k->batch;
		sh.context = k->context;
		sh.tokens = k->tokens;
		sh.dbatch = k->dbatch;
		sh.dcontext = k->dcontext;
		return pred_step_shape(sc->c, &sh, &v->seconds, NULL, err);
	}
	if ((rc = pred_step(sc->c, SERVE_DECODE, k->batch, k->context, 1, &v->seconds, &info,
			    err)) < 0)
		return rc;
	v->comm_s = info.comm_s;
	v->compute_s = info.compute_s;
	v->idle_s = info.idle_s;
	v->activity = cost_activity(info.part);
	pred_diagnosis(sc->c, &info, v->diag, sizeof(v->diag));
	return 0;
}

static int cached(struct stepctx *sc, int kind, int batch, long context, long tokens,
		  struct swp_step_val *v, struct plumb_err *err)
{
	struct swp_step_key k = sc->k;
	k.kind = kind;
	k.batch = batch;
	k.context = context;
	k.tokens = tokens;
	return swp_cache_get(sc->e->cache, &k, compute, sc, v, err);
}

static int serve_step(void *ctx, const struct serve_shape *sh, double *seconds,
		      struct plumb_err *err)
{
	struct stepctx *sc = ctx;
	struct swp_step_key k = sc->k;
	struct swp_step_val v;
	int rc;
	k.kind = (int)sh->kind;
	k.batch = sh->batch;
	k.context = sh->context;
	k.tokens = sh->tokens;
	k.dbatch = sh->dbatch;
	k.dcontext = sh->dcontext;
	rc = swp_cache_get(sc->e->cache, &k, compute, sc, &v, err);
	*seconds = v.seconds;
	return rc;
}

struct result {
	int fits, gpus;             /* gpus: the layout's, all its replicas */
	int box_gpus;               /* the box's */
	char why[1024];
	double step_ms, tok_total, tok_stream, tpot_ms, ttft_ms, comm, compute, idle;
	char diag[320];
	struct serve_result sr;     /* the latency distributions and the KV cache */
	long kv_tokens;
	double activity;            /* the decode step's busy share (models/cost) */
	struct cost_params cp;      /* the box's costs (its `cost:`, the defaults) */
};

/* The i-th distribution column (swp_dist_col). */
static double dist_at(const struct result *r, int i)
{
	return serve_dist(&r->sr, i / SERVE_NPCT)[i % SERVE_NPCT];
}

static int unfit(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int unfit(struct result *r, const char *fmt, ...)
{
	va_list ap;
	r->fits = 0;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return 0;
}

/* FNV-1a of s folded to 31 bits: a step cache key part. */
static int str_hash31(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (int)(h & 0x7fffffff);
}

static int predict(struct swp_eval *e, uint64_t content, const struct scenario *s,
		   const struct settings *st, struct result *r, struct plumb_err *err)
{
	struct pred_cfg c;
	struct stepctx sc;
	struct swp_step_val v;
	struct serve_params sp;
	struct serve_result sr;
	struct plumb_err fe;
	char mpath[1400];
	int rc;

	memset(r, 0, sizeof(*r));
	pred_cfg_init(&c);
	c.s = s;
	llm_model_path(e->g->dir, st->model, mpath, sizeof(mpath));
	if ((rc = llm_model_resolve(mpath, &c.m, err)) < 0 ||
	    (rc = llm_prec_setup(&c.prec, c.m, st->weights, st->kv, err)) < 0 ||
	    (rc = step_layout_parse(st->layout, &c.lay, err)) < 0)
		return rc;
	pred_cfg_serving(&c);
	r->gpus = step_layout_used(&c.lay);
	r->box_gpus = s->ngpus;
	plumb_err_clear(&fe);
	if (pred_cfg_check_box(&c, st->layout, &fe) < 0)   /* as plumb predict refuses it */
		return unfit(r, "%s", fe.msg);
	if (st->context >= st->input)
		return unfit(r, "cached context (%ld) must be shorter than the input (%ld)",
			     st->context, st->input);
	if (st->mtp && !(st->accept > 0))
		return unfit(r, "mtp %ld needs accept > 0 (the draft acceptance rate)", st->mtp);
	c.topo.nccl_p2p_level = -1;
	if (st->eager)
		c.cuda_graphs = 0;
	c.micro = (int)st->micro;
	c.draft = (int)st->mtp;
	c.accept = st->accept;

	plumb_err_clear(&fe);
	/* as plumb predict: one request must fit; the engine queues the rest */
	if (pred_check_fit(&c, 1, st->input + st->output, &fe) < 0)
		return unfit(r, "%s", fe.msg);
	r->fits = 1;

	memset(&sc, 0, sizeof(sc));
	sc.e = e;
	sc.c = &c;
	sc.k.variant = content;
	/* model (an id or a file), weights and KV names, hashed */
	sc.k.model = str_hash31(st->model);
	sc.k.weights = str_hash31(st->weights);
	sc.k.kv = str_hash31(st->kv);
	snprintf(sc.k.layout, sizeof(sc.k.layout), "%s", st->layout);
	sc.k.graphs = c.cuda_graphs;
	sc.k.micro = c.micro;
	sc.k.draft = c.draft;
	sc.k.accept = c.accept;

	/* a replica's share of the load (pred_serve_replicas) */
	if ((rc = cached(&sc, REPORT_STEP, (int)((st->concurrency + c.lay.dp - 1) / c.lay.dp),
			 st->input + st->output / 2, 1, &v, err)) < 0)
		return rc;
	r->comm = v.seconds > 0 ? v.comm_s / v.seconds : 0;
	r->compute = v.seconds > 0 ? v.compute_s / v.seconds : 0;
	r->idle = v.seconds > 0 ? v.idle_s / v.seconds : 0;
	r->activity = v.activity;
	cost_params_of(s, NULL, &r->cp);
	snprintf(r->diag, sizeof(r->diag), "%s", v.diag);

	pred_serve_params(&c, (int)st->concurrency, st->input, st->output, st->context, &sp);
	r->kv_tokens = sp.kv_tokens;
	if ((rc = pred_serve_replicas(&c, (int)st->concurrency, &sp, serve_step, &sc, &sr,
				      err)) < 0)
		return rc;
	r->sr = sr;
	r->step_ms = sr.decode_step_ms;
	r->tok_total = sr.tok_s_total;
	r->tok_stream = sr.tok_s_stream;
	r->tpot_ms = sr.tpot_ms;
	r->ttft_ms = sr.ttft_ms;
	return 0;
}

/* The key columns' texts of a point, in column order (fixed, extra). */
static void key_texts(const struct swp_eval *e, const struct swp_point *p, const struct settings *st,
		      char (*t)[1024])
{
	const struct swp_grid *g = e->g;
	int c;
	snprintf(t[0], 1024, "%s", st->scenario);
	snprintf(t[1], 1024, "%s", st->model);
	snprintf(t[2], 1024, "%s", st->weights);
	snprintf(t[3], 1024, "%s", st->kv);
	snprintf(t[4], 1024, "%ld", st->input);
	snprintf(t[5], 1024, "%ld", st->output);
	snprintf(t[6], 1024, "%ld", st->context);
	for (c = 0; c < g->nextra; c++) {
		int n = swp_extra_name(g, c);
		text_or(n >= 0 ? p->val[n] : NULL, "", t[SWP_NFIXED + c], 1024);
	}
}

/* The price a row is charged: the box's share its layout uses (tp2 on an
 * 8-GPU box a quarter; the rest of the box could run other replicas, which
 * dpN predicts with their contention). docs/sweep.md. */
static double used_price(const struct result *r, double price)
{
	return r->box_gpus > 0 && r->gpus > 0 && r->gpus < r->box_gpus
	       ? price * r->gpus / r->box_gpus : price;
}

/* A row's power and money: the box's costs, a `price_usd` input as its
 * price (docs/sweep.md). */
static void row_cost(const struct swp_grid *g, const double *price, const struct result *r,
		     struct cost_point *c)
{
	struct cost_params cp = r->cp;
	int i;
	for (i = 0; i < g->nprice; i++)
		if (!strcmp(g->names[g->price[i]].name, "price_usd") && !isnan(price[i])) {
			cp.price_usd = price[i];
			cp.price_src = COST_PRICE_OPTION;
		}
	cost_point_eval(&cp, r->gpus, r->activity, r->tok_total, c);
}

static const char *const cost_cols[] = { "gpu_w", "box_w", "j_per_tok", "usd_per_mtok" };

static void format_row(const struct swp_eval *e, char (*t)[1024], const struct settings *st,
		       const struct result *r, struct swp_sb *b)
{
	struct cost_point cost;
	double cv[4];
	const struct swp_grid *g = e->g;
	int nk = SWP_NFIXED + g->nextra, i;
	long ctx = st->input + st->output / 2;
	double price[SWP_MAX_NAMES];

	for (i = 0; i < g->nprice; i++) {
		char *end;
		int c = g->names[g->price[i]].column;
		price[i] = strtod(t[SWP_NFIXED + c], &end);
		if (end == t[SWP_NFIXED + c] || *end || !(price[i] > 0))
			price[i] = NAN;
	}
	if (r->fits) {
		row_cost(g, price, r, &cost);
		cv[0] = cost.gpu_w;
		cv[1] = cost.box_w;
		cv[2] = cost.j_per_tok;
		cv[3] = cost.usd_per_mtok;
	} else {
		cv[0] = cv[1] = cv[2] = cv[3] = NAN;
	}
	if (e->fmt == SWP_CSV) {
		for (i = 0; i < nk; i++) {
			swp_csv_cell(b, t[i], g->csv_raw);
			swp_sb_put(b, ",", 1);
		}
		swp_csv_cell(b, st->layout, g->csv_raw);
		swp_sb_printf(b, ",%d,%ld,%ld,", r->gpus, st->concurrency, ctx);
		if (!r->fits) {
			swp_sb_put(b, ",,,,,,,,,0,", 11);
			swp_csv_field(b, r->why, 1);
		} else {
			swp_sb_printf(b, "%.3f,%.2f,%.3f,%.3f,", r->step_ms, r->tok_total, r->tok_stream,
				  r->tpot_ms);
			if (isnan(r->ttft_ms))
				swp_sb_put(b, ",", 1);
			else
				swp_sb_printf(b, "%.2f,", r->ttft_ms);
			swp_sb_printf(b, "%.4f,%.4f,%.4f,%.4f,1,", r->comm, r->compute, r->idle,
				  r->compute + r->comm);
			swp_csv_field(b, r->diag, 1);
		}
		for (i = 0; i < g->nprice; i++) {
			swp_sb_put(b, ",", 1);
			if (r->fits && !isnan(price[i]))
				swp_sb_printf(b, "%.4f", r->tok_total / (used_price(r, price[i]) / 1000));
		}
		for (i = 0; i < SWP_NDIST; i++) {
			if (r->fits)
				swp_sb_printf(b, ",%.3f", dist_at(r, i));
			else
				swp_sb_put(b, ",", 1);
		}
		if (r->fits)
			swp_sb_printf(b, ",%ld,%ld,%d,%d", r->kv_tokens, r->sr.kv_peak,
				      r->sr.max_waiting, r->sr.preemptions);
		else
			swp_sb_put(b, ",,,,", 4);
		for (i = 0; i < 4; i++)
			isnan(cv[i]) ? swp_sb_put(b, ",", 1) : swp_sb_printf(b, ",%.4f", cv[i]);
		return;
	}
	swp_sb_put(b, "{", 1);
	for (i = 0; i < nk; i++) {
		const char *name = i < SWP_NFIXED ? swp_fixed_cols[i] : g->names[swp_extra_name(g, i - SWP_NFIXED)].name;
		if (i)
			swp_sb_put(b, ", ", 2);
		swp_json_str(b, name);
		swp_sb_put(b, ": ", 2);
		swp_json_val(b, t[i]);
	}
	swp_sb_put(b, ", \"layout\": ", 12);
	swp_json_str(b, st->layout);
	swp_sb_printf(b, ", \"gpus\": %d, \"concurrency\": %ld, \"context\": %ld, \"fits\": %s", r->gpus,
		  st->concurrency, ctx, r->fits ? "true" : "false");
	if (r->fits) {
		swp_sb_printf(b, ", \"step_ms\": %.3f, \"tok_s_total\": %.2f, \"tok_s_per_stream\": %.3f, \"tpot_ms\": %.3f",
			  r->step_ms, r->tok_total, r->tok_stream, r->tpot_ms);
		if (!isnan(r->ttft_ms))
			swp_sb_printf(b, ", \"ttft_ms\": %.2f", r->ttft_ms);
		swp_sb_printf(b, ", \"comm_frac\": %.4f, \"compute_frac\": %.4f, \"idle_frac\": %.4f, \"busy_frac\": %.4f, \"diagnosis\": ",
			  r->comm, r->compute, r->idle, r->compute + r->comm);
		swp_json_str(b, r->diag);
	} else {
		swp_sb_put(b, ", \"why\": ", 9);
		swp_json_str(b, r->why);
	}
	for (i = 0; i < g->nprice; i++)
		if (r->fits && !isnan(price[i]))
			swp_sb_printf(b, ", \"tok_s_per_k%s\": %.4f", g->names[g->price[i]].name + 6,
				  r->tok_total / (used_price(r, price[i]) / 1000));
	if (r->fits) {
		for (i = 0; i < SWP_NDIST; i++) {
			char name[32];
			swp_dist_col(i, name, sizeof(name));
			swp_sb_printf(b, ", \"%s\": %.3f", name, dist_at(r, i));
		}
		swp_sb_printf(b, ", \"kv_tokens\": %ld, \"kv_peak_tokens\": %ld, \"queued_max\": %d, "
			      "\"retracted\": %d", r->kv_tokens, r->sr.kv_peak, r->sr.max_waiting,
			      r->sr.preemptions);
		for (i = 0; i < 4; i++)
			if (!isnan(cv[i]))
				swp_sb_printf(b, ", \"%s\": %.4f", cost_cols[i], cv[i]);
	}
	swp_sb_put(b, "}", 1);
}

int swp_eval_point(struct swp_eval *e, uint64_t i, char **row, struct plumb_err *err)
{
	char (*t)[1024];
	struct swp_point p;
	struct scenario *s = NULL;
	struct settings st;
	struct result r;
	struct swp_sb b = { 0 };
	uint64_t content;
	int rc, slot;

	*row = NULL;
	swp_grid_point(e->g, i, &p);
	if ((rc = vget(e, &p, &s, &slot, &content, err)) < 0)
		return rc;
	settings(e, &p, s->ngpus, &st);
	rc = predict(e, content, s, &st, &r, err);
	vput(e, s, slot);
	if (rc < 0)
		return rc;
	if (!(t = calloc((size_t)(SWP_NFIXED + e->g->nextra), sizeof(*t))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	key_texts(e, &p, &st, t);
	format_row(e, t, &st, &r, &b);
	free(t);
	if (b.oom) {
		free(b.s);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	*row = b.s;
	return 0;
}

char *swp_point_key(struct swp_eval *e, uint64_t i)
{
	struct swp_point p;
	struct settings st;
	char (*t)[1024], conc[32], *k;
	int ngpus = 0;

	swp_grid_point(e->g, i, &p);
	/* The default layout needs the scenario's GPU count. */
	{
		int n, has_layout = 0;
		for (n = 0; n < e->g->nnames; n++)
			has_layout |= e->g->names[n].kind == SWP_LAYOUT;
		if (!has_layout) {
			struct scenario *s;
			int slot;
			struct plumb_err err;
			uint64_t content;
			if (vget(e, &p, &s, &slot, &content, &err) < 0)
				return NULL;
			ngpus = s->ngpus;
			vput(e, s, slot);
		}
	}
	settings(e, &p, ngpus, &st);
	if (!(t = calloc((size_t)(SWP_NFIXED + e->g->nextra), sizeof(*t))))
		return NULL;
	key_texts(e, &p, &st, t);
	snprintf(conc, sizeof(conc), "%ld", st.concurrency);
	k = swp_key_join(t, SWP_NFIXED + e->g->nextra, st.layout, conc);
	free(t);
	return k;
}

char *swp_row_key(const struct swp_eval *e, const char *row)
{
	return swp_rows_key(e->g, e->fmt, row);
}

char *swp_header(const struct swp_eval *e)
{
	return swp_rows_header(e->g, e->fmt);
}

const char *swp_footer(const struct swp_eval *e)
{
	return swp_rows_footer(e->g, e->fmt);
}

const char *swp_row_sep(const struct swp_eval *e, int first)
{
	return swp_rows_sep(e->g, e->fmt, first);
}
