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
#include "scn.h"
#include "sweep.h"
#include "sweep_int.h"

#define VCAP 16
#define REPORT_STEP 2

struct vslot {
	int used;
	uint64_t id;
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
	char scenario[1024], model[64], weights[16], kv[16], layout[32];
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
		struct plumb_err *err)
{
	struct scenario *mine;
	int i, rc, victim = -1;

	pthread_mutex_lock(&e->mu);
	for (i = 0; i < VCAP; i++)
		if (e->v[i].used && e->v[i].id == p->variant) {
			e->v[i].refs++;
			e->v[i].tick = ++e->tick;
			*s = e->v[i].s;
			*slot = i;
			pthread_mutex_unlock(&e->mu);
			return 0;
		}
	pthread_mutex_unlock(&e->mu);
	if ((rc = swp_variant_load(e->g, p, &mine, err)) < 0)
		return rc;
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
	text_or(v[SWP_WEIGHTS], "nvfp4", st->weights, sizeof(st->weights));
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
	if (k->kind != REPORT_STEP)
		return pred_step(sc->c, (enum serve_step)k->kind, k->batch, k->context, k->tokens,
				 &v->seconds, NULL, err);
	if ((rc = pred_step(sc->c, SERVE_DECODE, k->batch, k->context, 1, &v->seconds, &info,
			    err)) < 0)
		return rc;
	v->comm_s = info.comm_s;
	v->compute_s = info.compute_s;
	v->idle_s = info.idle_s;
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

static int serve_step(void *ctx, enum serve_step kind, int batch, long context, long tokens,
		      double *seconds, struct plumb_err *err)
{
	struct swp_step_val v;
	int rc = cached(ctx, (int)kind, batch, context, tokens, &v, err);
	*seconds = v.seconds;
	return rc;
}

struct result {
	int fits, gpus;
	char why[1024];
	double step_ms, tok_total, tok_stream, tpot_ms, ttft_ms, comm, compute, idle;
	char diag[160];
};

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

static int predict(struct swp_eval *e, const struct swp_point *p, const struct scenario *s,
		   const struct settings *st, struct result *r, struct plumb_err *err)
{
	struct pred_cfg c;
	struct stepctx sc;
	struct swp_step_val v;
	struct serve_params sp;
	struct serve_result sr;
	struct plumb_err fe;
	enum llm_dtype w, kv;
	int rc, mi;

	memset(r, 0, sizeof(*r));
	pred_cfg_init(&c);
	c.s = s;
	mi = llm_catalog_find(e->cat, st->model);
	if (mi < 0 || llm_dtype_parse(st->weights, &w) < 0 || llm_dtype_parse(st->kv, &kv) < 0)
		return plumb_err_set(err, PLUMB_EINPUT, e->g->file, 0, 0, "bad model or dtype");
	c.m = &e->cat->models[mi];
	if ((rc = llm_prec_init(&c.prec, c.m, w, kv, err)) < 0 ||
	    (rc = step_layout_parse(st->layout, &c.lay, err)) < 0)
		return rc;
	r->gpus = c.lay.gpus;
	if (c.lay.gpus > s->ngpus)
		return unfit(r, "layout %s needs %d GPUs but the scenario has %d", st->layout,
			     c.lay.gpus, s->ngpus);
	if (st->context >= st->input)
		return unfit(r, "cached context (%ld) must be shorter than the input (%ld)",
			     st->context, st->input);
	if (st->mtp && !(st->accept > 0))
		return unfit(r, "mtp %ld needs accept > 0 (the draft acceptance rate)", st->mtp);
	c.topo.nccl_p2p_level = -1;
	c.cuda_graphs = !st->eager;
	c.micro = (int)st->micro;
	c.draft = (int)st->mtp;
	c.accept = st->accept;

	plumb_err_clear(&fe);
	if (pred_check_fit(&c, (int)st->concurrency, st->input + st->output, &fe) < 0)
		return unfit(r, "%s", fe.msg);
	r->fits = 1;

	memset(&sc, 0, sizeof(sc));
	sc.e = e;
	sc.c = &c;
	sc.k.variant = p->variant;
	sc.k.model = mi;
	sc.k.weights = (int)w;
	sc.k.kv = (int)kv;
	snprintf(sc.k.layout, sizeof(sc.k.layout), "%s", st->layout);
	sc.k.graphs = c.cuda_graphs;
	sc.k.micro = c.micro;
	sc.k.draft = c.draft;
	sc.k.accept = c.accept;

	if ((rc = cached(&sc, REPORT_STEP, (int)st->concurrency, st->input + st->output / 2, 1,
			 &v, err)) < 0)
		return rc;
	r->comm = v.seconds > 0 ? v.comm_s / v.seconds : 0;
	r->compute = v.seconds > 0 ? v.compute_s / v.seconds : 0;
	r->idle = v.seconds > 0 ? v.idle_s / v.seconds : 0;
	snprintf(r->diag, sizeof(r->diag), "%s", v.diag);

	serve_params_init(&sp);
	sp.concurrency = (int)st->concurrency;
	sp.input_len = st->input;
	sp.output_len = st->output;
	sp.context = st->context;
	sp.accept_per_step = c.draft ? llm_spec_tokens_per_step(c.draft, c.accept) : 1;
	if ((rc = serve_run(&sp, serve_step, &sc, &sr, err)) < 0)
		return rc;
	r->step_ms = sr.decode_step_ms;
	r->tok_total = sr.tok_s_total;
	r->tok_stream = sr.tok_s_stream;
	r->tpot_ms = sr.tpot_ms;
	r->ttft_ms = sr.ttft_ms;
	return 0;
}

/* ---- rows ------------------------------------------------------------------ */

struct sb {
	char *s;
	size_t n, cap;
	int oom;
};

static void sb_put(struct sb *b, const char *t, size_t len)
{
	if (b->oom)
		return;
	if (b->n + len + 1 > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 512;
		char *ns;
		while (nc < b->n + len + 1)
			nc *= 2;
		if (!(ns = realloc(b->s, nc))) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = nc;
	}
	memcpy(b->s + b->n, t, len);
	b->n += len;
	b->s[b->n] = '\0';
}

static void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct sb *b, const char *fmt, ...)
{
	char tmp[1400];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void csv_field(struct sb *b, const char *s, int force)
{
	const char *p;
	size_t n = strlen(s);
	if (!force && !strpbrk(s, ",\"\n\r") && !(n && (s[0] == ' ' || s[n - 1] == ' '))) {
		sb_put(b, s, n);
		return;
	}
	sb_put(b, "\"", 1);
	for (p = s; *p; p++) {
		if (*p == '"')
			sb_put(b, "\"", 1);
		sb_put(b, p, 1);
	}
	sb_put(b, "\"", 1);
}

static void json_str(struct sb *b, const char *s)
{
	sb_put(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_put(b, "\\", 1);
		if ((unsigned char)*s >= 0x20)
			sb_put(b, s, 1);
	}
	sb_put(b, "\"", 1);
}

/* A JSON number as written: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_number(const char *s)
{
	const char *p = s;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return 0;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

static void json_val(struct sb *b, const char *s)
{
	if (json_number(s))
		sb_put(b, s, strlen(s));
	else
		json_str(b, s);
}

/* Column names: key columns, then metrics, then derived ones. */
#define NFIXED 7
static const char *const fixed_cols[NFIXED] = {
	"scenario", "model", "weights", "kv", "input", "output", "cached_context"
};
static const char *const metric_cols[] = {
	"layout", "gpus", "concurrency", "context", "step_ms", "tok_s_total", "tok_s_per_stream",
	"tpot_ms", "ttft_ms", "comm_frac", "compute_frac", "idle_frac", "busy_frac", "fits",
	"diagnosis", NULL
};

/* Name index of extra column c. */
static int extra_name(const struct swp_grid *g, int c)
{
	int i;
	for (i = 0; i < g->nnames; i++)
		if (g->names[i].column == c)
			return i;
	return -1;
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
		int n = extra_name(g, c);
		text_or(n >= 0 ? p->val[n] : NULL, "", t[NFIXED + c], 1024);
	}
}

static char *key_join(char (*t)[1024], int n, const char *layout, const char *conc)
{
	struct sb b = { 0 };
	int i;
	for (i = 0; i < n; i++) {
		sb_put(&b, t[i], strlen(t[i]));
		sb_put(&b, "\x1f", 1);
	}
	sb_put(&b, layout, strlen(layout));
	sb_put(&b, "\x1f", 1);
	sb_put(&b, conc, strlen(conc));
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

static void format_row(const struct swp_eval *e, char (*t)[1024], const struct settings *st,
		       const struct result *r, struct sb *b)
{
	const struct swp_grid *g = e->g;
	int nk = NFIXED + g->nextra, i;
	long ctx = st->input + st->output / 2;
	double price[SWP_MAX_NAMES];

	for (i = 0; i < g->nprice; i++) {
		char *end;
		int c = g->names[g->price[i]].column;
		price[i] = strtod(t[NFIXED + c], &end);
		if (end == t[NFIXED + c] || *end || !(price[i] > 0))
			price[i] = NAN;
	}
	if (e->fmt == SWP_CSV) {
		for (i = 0; i < nk; i++) {
			csv_field(b, t[i], 0);
			sb_put(b, ",", 1);
		}
		csv_field(b, st->layout, 0);
		sb_printf(b, ",%d,%ld,%ld,", r->gpus, st->concurrency, ctx);
		if (!r->fits) {
			sb_put(b, ",,,,,,,,,0,", 11);
			csv_field(b, r->why, 1);
		} else {
			sb_printf(b, "%.3f,%.2f,%.3f,%.3f,", r->step_ms, r->tok_total, r->tok_stream,
				  r->tpot_ms);
			if (isnan(r->ttft_ms))
				sb_put(b, ",", 1);
			else
				sb_printf(b, "%.2f,", r->ttft_ms);
			sb_printf(b, "%.4f,%.4f,%.4f,%.4f,1,", r->comm, r->compute, r->idle,
				  r->compute + r->comm);
			csv_field(b, r->diag, 1);
		}
		for (i = 0; i < g->nprice; i++) {
			sb_put(b, ",", 1);
			if (r->fits && !isnan(price[i]))
				sb_printf(b, "%.4f", r->tok_total / (price[i] / 1000));
		}
		return;
	}
	sb_put(b, "{", 1);
	for (i = 0; i < nk; i++) {
		const char *name = i < NFIXED ? fixed_cols[i] : g->names[extra_name(g, i - NFIXED)].name;
		if (i)
			sb_put(b, ", ", 2);
		json_str(b, name);
		sb_put(b, ": ", 2);
		json_val(b, t[i]);
	}
	sb_put(b, ", \"layout\": ", 12);
	json_str(b, st->layout);
	sb_printf(b, ", \"gpus\": %d, \"concurrency\": %ld, \"context\": %ld, \"fits\": %s", r->gpus,
		  st->concurrency, ctx, r->fits ? "true" : "false");
	if (r->fits) {
		sb_printf(b, ", \"step_ms\": %.3f, \"tok_s_total\": %.2f, \"tok_s_per_stream\": %.3f, \"tpot_ms\": %.3f",
			  r->step_ms, r->tok_total, r->tok_stream, r->tpot_ms);
		if (!isnan(r->ttft_ms))
			sb_printf(b, ", \"ttft_ms\": %.2f", r->ttft_ms);
		sb_printf(b, ", \"comm_frac\": %.4f, \"compute_frac\": %.4f, \"idle_frac\": %.4f, \"busy_frac\": %.4f, \"diagnosis\": ",
			  r->comm, r->compute, r->idle, r->compute + r->comm);
		json_str(b, r->diag);
	} else {
		sb_put(b, ", \"why\": ", 9);
		json_str(b, r->why);
	}
	for (i = 0; i < g->nprice; i++)
		if (r->fits && !isnan(price[i]))
			sb_printf(b, ", \"tok_s_per_k%s\": %.4f", g->names[g->price[i]].name + 6,
				  r->tok_total / (price[i] / 1000));
	sb_put(b, "}", 1);
}

int swp_eval_point(struct swp_eval *e, uint64_t i, char **row, struct plumb_err *err)
{
	char (*t)[1024];
	struct swp_point p;
	struct scenario *s = NULL;
	struct settings st;
	struct result r;
	struct sb b = { 0 };
	int rc, slot;

	*row = NULL;
	swp_grid_point(e->g, i, &p);
	if ((rc = vget(e, &p, &s, &slot, err)) < 0)
		return rc;
	settings(e, &p, s->ngpus, &st);
	rc = predict(e, &p, s, &st, &r, err);
	vput(e, s, slot);
	if (rc < 0)
		return rc;
	if (!(t = calloc((size_t)(NFIXED + e->g->nextra), sizeof(*t))))
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
			if (vget(e, &p, &s, &slot, &err) < 0)
				return NULL;
			ngpus = s->ngpus;
			vput(e, s, slot);
		}
	}
	settings(e, &p, ngpus, &st);
	if (!(t = calloc((size_t)(NFIXED + e->g->nextra), sizeof(*t))))
		return NULL;
	key_texts(e, &p, &st, t);
	snprintf(conc, sizeof(conc), "%ld", st.concurrency);
	k = key_join(t, NFIXED + e->g->nextra, st.layout, conc);
	free(t);
	return k;
}

/* ---- reading rows back ----------------------------------------------------- */

/* Split a CSV line into at most max fields (copied into buf); count or -1. */
static int csv_split(const char *line, char *buf, size_t n, char **f, int max)
{
	const char *p = line;
	size_t o = 0;
	int nf = 0;
	for (;;) {
		if (nf >= max || o >= n)
			return -1;
		f[nf++] = buf + o;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"') {
					buf[o++] = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					buf[o++] = *p++;
				}
				if (o >= n)
					return -1;
			}
		} else {
			while (*p && *p != ',' && o < n)
				buf[o++] = *p++;
		}
		if (o >= n)
			return -1;
		buf[o++] = '\0';
		if (*p == ',') {
			p++;
			continue;
		}
		return *p ? -1 : nf;
	}
}

/* Parse a flat JSON object {"k": v, ...}: names and raw texts (strings
 * unescaped) into buf; count or -1. */
static int json_split(const char *line, char *buf, size_t n, char **names, char **vals, int max)
{
	const char *p = line;
	size_t o = 0;
	int nf = 0;
	while (*p == ' ')
		p++;
	if (*p++ != '{')
		return -1;
	for (;;) {
		int which;
		while (*p == ' ')
			p++;
		if (*p == '}')
			return nf;
		if (nf >= max)
			return -1;
		for (which = 0; which < 2; which++) {
			char **dst = which ? vals : names;
			while (*p == ' ')
				p++;
			dst[nf] = buf + o;
			if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1])
						p++;
					if (o + 1 >= n)
						return -1;
					buf[o++] = *p++;
				}
				if (*p++ != '"')
					return -1;
			} else if (which) {
				while (*p && *p != ',' && *p != '}' && *p != ' ') {
					if (o + 1 >= n)
						return -1;
					buf[o++] = *p++;
				}
			} else {
				return -1;
			}
			if (o + 1 >= n)
				return -1;
			buf[o++] = '\0';
			while (*p == ' ')
				p++;
			if (!which && *p++ != ':')
				return -1;
		}
		nf++;
		if (*p == ',')
			p++;
		else if (*p != '}')
			return -1;
	}
}

char *swp_row_key(const struct swp_eval *e, const char *row)
{
	int nk = NFIXED + e->g->nextra, i, nf;
	size_t len = strlen(row) + 1;
	char *buf = malloc(len), **f = calloc(256, sizeof(*f)), **v = calloc(256, sizeof(*v));
	char (*t)[1024] = NULL, *k = NULL;
	const char *layout = NULL, *conc = NULL;

	if (!buf || !f || !v || !(t = calloc((size_t)nk, sizeof(*t))))
		goto out;
	if (e->fmt == SWP_CSV) {
		nf = csv_split(row, buf, len, f, 256);
		if (nf < nk + 3)
			goto out;
		for (i = 0; i < nk; i++)
			snprintf(t[i], 1024, "%s", f[i]);
		layout = f[nk];
		conc = f[nk + 2];
	} else {
		nf = json_split(row, buf, len, f, v, 256);
		if (nf < nk + 3)
			goto out;
		for (i = 0; i < nk; i++) {
			const char *want = i < NFIXED ? fixed_cols[i] :
				e->g->names[extra_name(e->g, i - NFIXED)].name;
			if (strcmp(f[i], want))
				goto out;
			snprintf(t[i], 1024, "%s", v[i]);
		}
		if (strcmp(f[nk], "layout") || strcmp(f[nk + 2], "concurrency"))
			goto out;
		layout = v[nk];
		conc = v[nk + 2];
	}
	k = key_join(t, nk, layout, conc);
out:
	free(buf);
	free(f);
	free(v);
	free(t);
	return k;
}

char *swp_header(const struct swp_eval *e)
{
	const struct swp_grid *g = e->g;
	struct sb b = { 0 };
	int i, nk = NFIXED + g->nextra;

	if (e->fmt == SWP_JSON) {
		sb_put(&b, "{\n  \"grid\": ", 12);
		json_str(&b, g->name[0] ? g->name : g->file);
		sb_put(&b, ",\n  \"columns\": [", 16);
	}
	for (i = 0; i < nk; i++) {
		const char *name = i < NFIXED ? fixed_cols[i] : g->names[extra_name(g, i - NFIXED)].name;
		if (e->fmt == SWP_JSON) {
			if (i)
				sb_put(&b, ", ", 2);
			json_str(&b, name);
		} else {
			csv_field(&b, name, 0);
			sb_put(&b, ",", 1);
		}
	}
	for (i = 0; metric_cols[i]; i++) {
		if (e->fmt == SWP_JSON) {
			sb_put(&b, ", ", 2);
			json_str(&b, metric_cols[i]);
		} else {
			sb_printf(&b, "%s%s", i ? "," : "", metric_cols[i]);
		}
	}
	for (i = 0; i < g->nprice; i++) {
		if (e->fmt == SWP_JSON)
			sb_printf(&b, ", \"tok_s_per_k%s\"", g->names[g->price[i]].name + 6);
		else
			sb_printf(&b, ",tok_s_per_k%s", g->names[g->price[i]].name + 6);
	}
	sb_put(&b, e->fmt == SWP_JSON ? "],\n  \"rows\": [" : "\n", e->fmt == SWP_JSON ? 14 : 1);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

const char *swp_footer(const struct swp_eval *e)
{
	return e->fmt == SWP_JSON ? "\n  ]\n}\n" : "";
}

const char *swp_row_sep(const struct swp_eval *e, int first)
{
	if (e->fmt == SWP_JSON)
		return first ? "\n    " : ",\n    ";
	return "";
}
