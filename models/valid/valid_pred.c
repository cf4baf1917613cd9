/*
 * valid_pred.c - plumb's prediction of every measured point of a case, and
 * the error statistics over points.
 */
#include "predict_run.h"
#include "predict_disagg.h"
#include "valid_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "predict.h"

/* Serve `model` with `layout` at concurrency conc on scenario scn. */
static int serve_point(const struct scenario *scn, const char *engine, int stack, const char *model,
		       const char *weights, const char *kv, const char *layout, int conc,
		       long input, long output, long context, long prompts, long cached,
		       double spread, double range_ratio, long chunk, struct serve_result *sr,
		       struct plumb_err *err)
{
	struct pred_cfg c;
	struct serve_params sp;
	const char *layout_d = NULL;
	int rc;
	pred_cfg_init(&c);
	/* the engine table fills the stack when stack is 1 (engine "" or
	 * NULL: the scenario's engine) */
	c.engine = engine && engine[0] ? engine : NULL;
	c.stack = stack;
	if (pred_layout_is_design(layout)) {
		/* a disaggregated design: c is its decode layout */
		struct pred_disagg d;
		if ((rc = pred_disagg_parse(layout, &d, err)) < 0)
			return rc;
		layout_d = d.lay_d;
	}
	if ((rc = pred_cfg_setup(&c, scn, model, weights, kv, layout_d ? layout_d : layout, err)) < 0)
		return rc;
	pred_serve_params(&c, conc, input, output, context, &sp);
	sp.prompts = (int)prompts;
	sp.cached_prompts = (int)cached;
	/* the engine's scheduler, as plumb predict runs it (pred_run_point):
	 * SGLang's prefill chunks, vLLM's and TensorRT-LLM's mixed steps */
	sp.chunk_tokens = chunk > 0 ? chunk : c.s->serving.chunk_tokens;
	sp.max_batched = chunk > 0 ? 0 : c.s->serving.max_batched;
	if (spread > 0)
		sp.spread = spread;
	if (range_ratio >= 0) {
		/* bench_serving's random dataset: lengths uniform over
		 * [r, 1] x the top, whose mean (1 + r) / 2 x top is the run's
		 * printed mean */
		sp.range_ratio = range_ratio;
		sp.input_len = lround((double)input * 2.0 / (1.0 + range_ratio));
		sp.output_len = lround((double)output * 2.0 / (1.0 + range_ratio));
	}
	if (layout_d) {
		/* as plumb predict runs it (pred_run_point) */
		struct pred_run o;
		char why[512];
		memset(&o, 0, sizeof(o));
		o.model = model;
		o.weights = weights;
		o.kv = kv;
		o.engine = c.engine;
		o.level = -1;
		o.input = input;
		o.output = output;
		snprintf(c.disagg, sizeof(c.disagg), "%s", layout);
		if ((rc = pred_disagg_serve(&o, &c, conc, &sp, sr, why, sizeof(why), err)) == 1)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "%s", why);
		return rc;
	}
	/* a replicated layout splits the clients (predict_run.h) */
	return pred_serve_replicas(&c, conc, &sp, pred_serve_step, &c, sr, err);
}


/* The max boost clock of the CPU nccl_tests_launch_us was measured on:
 * AMD EPYC 9575F, up to 5.0 GHz (AMD's product page,
 * https://www.amd.com/en/products/processors/server/epyc/9005-series/amd-epyc-9575f.html). */
#define NCCL_TESTS_LAUNCH_REF_GHZ 5.0

/*
 * nccl-tests with one thread driving G GPUs (-g G) enqueues the G ranks'
 * collectives one after another every iteration and times back-to-back
 * iterations, so an iteration lasts at least G x nccl_tests_launch_us
 * however short the collective. The enqueue is one host thread's work
 * (driver calls and doorbell writes), so it takes longer on a slower
 * core: scaled by the scenario's cpu_boost_ghz where it gives one. The
 * -g 8 floors of the public runs line up by clock: 3.1 us a launch at
 * 5.0 GHz (8x RTX 5090, EPYC 9575F), 4.4-4.6 at 3.4 GHz (8x A100,
 * EPYC 7742) and 4.9 at 3.4 GHz (8x RTX 4090, EPYC 7542), 4.6 predicted.
 */
static double nccl_tests_floor_us(const struct val_case *c)
{
	const struct meas_nccl_run *run = &c->nccl->runs[c->run - 1];
	int g = run->gpus_per_thread > 0 ? run->gpus_per_thread : 1;
	double ghz = c->scn->host.cpu_boost_ghz;
	double clk = ghz > 0 ? NCCL_TESTS_LAUNCH_REF_GHZ / ghz : 1.0;
	return g * c->scn->k.v[K_NCCL_TESTS_LAUNCH_US] * clk;
}

/* A pred_cfg for case c's model on scenario scn (c->scn or a copy) with
 * `layout`. */
static int case_cfg(const struct val_case *c, const struct scenario *scn, const char *layout,
		    struct pred_cfg *pc, struct plumb_err *err)
{
	pred_cfg_init(pc);
	pc->engine = c->engine[0] ? c->engine : NULL;
	pc->stack = c->stack;
	return pred_cfg_setup(pc, scn, c->model, c->weights, c->kv, layout, err);
}

int val_row_values(const struct val_case *c, const struct scenario *scn, int ri,
		   double vals[VAL_ROW_NV], struct plumb_err *err)
{
	const struct meas_csv_row *row = &c->serving->rows[ri];
	int rc, i;
	for (i = 0; i < VAL_ROW_NV; i++)
		vals[i] = NAN;
	if (c->kind == VAL_DECODE) {
		struct pred_cfg pc;
		double sec;
		if ((rc = case_cfg(c, scn, row->layout, &pc, err)) < 0)
			return rc;
		topo_opts_init(&pc.topo);
		pc.topo.nccl_p2p_level = c->p2p_disable ? NP_LOC : c->nccl_level;
		if ((rc = pred_step(&pc, SERVE_DECODE, row->batch, row->context, 1, &sec, NULL,
				    err)) < 0)
			return rc;
		vals[0] = sec * 1e3;
	} else {
		struct serve_result sr;
		if ((rc = serve_point(scn, c->engine, c->stack, c->model, c->weights, c->kv, row->layout,
				      row->concurrency,
				      row->input_len > 0 ? row->input_len : c->input,
				      row->output_len > 0 ? row->output_len : c->output,
				      row->context, row->prompts, row->cached_prompts, c->output_spread,
				      c->has_range_ratio ? c->range_ratio : -1.0, c->chunked_prefill,
				      &sr, err)) < 0)
			return rc;
		vals[VAL_SRV_TOK] = sr.tok_s_total;
		vals[VAL_SRV_TPOT] = sr.tpot_ms;
		vals[VAL_SRV_PEAK] = sr.peak_tok_s;
		vals[VAL_SRV_TTFT] = sr.ttft_ms;
		vals[VAL_SRV_XFER] = sr.xfer_ms;
	}
	return 0;
}

static int predict_case(struct val_set *v, int ci, int only_train, struct plumb_err *err)
{
	struct val_case *c = &v->cases[ci];
	struct p2pt_result *r = NULL;
	struct topo_opts o;
	int p, rc = 0;

	topo_opts_init(&o);
	o.nccl_p2p_level = c->p2p_disable ? NP_LOC : c->nccl_level;
	if (c->kind == VAL_NCCL)        /* the release its header names: NCCL's search of it */
		o.nccl_version = c->nccl->runs[c->run - 1].nccl_version;
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
			pt->predicted = r->m[val_p2p_map[pt->row].pred][c->gpus[pt->a]][c->gpus[pt->b]];
			break;
		case VAL_DECODE:
		case VAL_SERVING: {
			double vals[VAL_ROW_NV];
			if ((rc = val_row_values(c, c->scn, pt->row, vals, err)) < 0)
				goto out;
			pt->predicted = vals[c->kind == VAL_DECODE ? 0 : pt->group];
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
							      0, 0, 0, -1.0, 0, &sr, err)) < 0)
						return rc;
					w->tok[a][b][k] = sr.tok_s_total;
				}
	}
	return 0;
}

int val_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

enum val_qty val_point_qty(const struct val_set *v, const struct val_point *p)
{
	const struct val_case *c = &v->cases[p->c];
	if (c->kind == VAL_DECODE)
		return VAL_Q_RATE;
	if (c->kind == VAL_SERVING)
		return p->group == VAL_SRV_TTFT ? VAL_Q_TTFT :
		       p->group == VAL_SRV_XFER ? VAL_Q_LINK : VAL_Q_RATE;
	return VAL_Q_LINK;
}

static int selected(const struct val_set *v, const struct val_point *p, const struct val_sel *s)
{
	const struct val_case *c = &v->cases[p->c];
	/* a point its case's note shows to be a measurement artefact stays
	 * in its case's table and out of the summary's figures */
	return !p->artefact && (s->kind < 0 || (int)c->kind == s->kind) &&
	       (s->fitted < 0 || VAL_CASE_FITTED(c) == s->fitted) &&
	       (s->qty < 0 || (int)val_point_qty(v, p) == s->qty);
}

/* val_stats over the points [first, first+n) that s selects (NULL: all). */
static void stats_of(const struct val_set *v, int first, int n, const struct val_sel *s,
		     struct val_stats *st)
{
	double *e = malloc((size_t)(n > 0 ? n : 1) * sizeof(*e)), worst = -1;
	int i, k = 0;
	memset(st, 0, sizeof(*st));
	st->worst = -1;
	st->worst_ratio = 1;
	st->max_pt = -1;
	st->max_ratio = 1;
	if (!e)
		return;
	for (i = first; i < first + n; i++) {
		const struct val_point *p = &v->points[i];
		double ratio = p->predicted / p->measured, lr;
		if (s && !selected(v, p, s))
			continue;
		if (!isfinite(ratio) || ratio <= 0)
			continue;
		e[k++] = fabs(ratio - 1);
		if (st->max_pt < 0 || fabs(ratio - 1) > fabs(st->max_ratio - 1)) {
			st->max_pt = i;
			st->max_ratio = ratio;
		}
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
		qsort(e, (size_t)k, sizeof(*e), val_cmp_double);
		st->median_err = val_median_sorted(e, k);
		st->max_err = e[k - 1];
	}
	free(e);
}

void val_stats_sel(const struct val_set *v, const struct val_sel *s, struct val_stats *st)
{
	stats_of(v, 0, v->npoints, s, st);
}

void val_stats(const struct val_set *v, int first, int n, struct val_stats *st)
{
	stats_of(v, first, n, NULL, st);
}

double val_median_sorted(const double *x, int n)
{
	if (n < 1)
		return 0;
	return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}
