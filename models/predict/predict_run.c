/*
 * predict_run.c - the points of predict and compare (predict_run.h): a
 * pred_cfg per point, its decode step or serving run, its interval's draws,
 * every row of a run on the machine's cores.
 */
#include "predict_run.h"
#include "predict_kvtier.h"
#include "predict_disagg.h"
#include "valid.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pred_run_setup(const struct pred_run *o, const struct scenario *s, const char *lay,
		   struct pred_cfg *c, struct plumb_err *err)
{
	struct pred_disagg d;
	int rc;
	pred_cfg_init(c);
	c->engine = o->engine;
	/* a disaggregated design: c is its decode instances' layout */
	if ((rc = pred_disagg_parse(lay, &d, err)) < 0)
		return rc;
	if ((rc = pred_cfg_setup(c, s, o->model, o->weights, o->kv, rc ? d.lay_d : lay, err)) < 0)
		return rc;
	if (pred_disagg_parse(lay, &d, NULL) == 1)
		snprintf(c->disagg, sizeof(c->disagg), "%s", lay);
	c->topo.nccl_p2p_level = o->level;
	if (o->eager)
		c->cuda_graphs = 0;
	c->micro = o->micro;
	c->draft = o->mtp;
	c->accept = o->accept;
	c->naccept = o->naccept;
	memcpy(c->accept_pos, o->accept_pos, sizeof(c->accept_pos));
	/* The scenario's engine drafts with the model's MTP layer unless
	 * --mtp says otherwise. */
	if (!o->mtp_given && s->serving.mtp_draft > 0 && c->m->mtp_layers > 0) {
		c->draft = s->serving.mtp_draft;
		c->accept = s->serving.mtp_accept;
		c->naccept = s->serving.mtp_naccept;
		memcpy(c->accept_pos, s->serving.mtp_accept_pos, sizeof(c->accept_pos));
	}
	return 0;
}

/*
 * (predict_run.h) The serving run of a layout with dp replicas: the load split evenly
 * (replica i of dp takes x / dp clients, one more for the first x % dp; a
 * rate's arrivals 1/dp each, replica i seeded seed + i; a trace's every
 * dp-th request from the i-th), each replica served on its own while
 * every step it takes is simulated with all replicas stepping on the same
 * fabric (pred_step runs the dp copies at once). Runs with the same share
 * give the same result, so closed loops run at most two. The sum: tok/s
 * and peak added, per-stream rate and the means weighted by completed
 * requests, each percentile the largest replica's (the merged one lies
 * between the replicas'), the KV peak per replica.
 */
int pred_serve_replicas(const struct pred_cfg *c, int x, const struct serve_params *sp0,
			serve_step_fn fn, void *ctx, struct serve_result *out,
			struct plumb_err *err)
{
	int dp = c->lay.dp > 1 ? c->lay.dp : 1, i, k, rc = 0, done = 0, last = -1;
	struct serve_request *sub = NULL;
	struct serve_result one, prev;
	double w = 0;
	memset(out, 0, sizeof(*out));
	memset(&prev, 0, sizeof(prev));
	if (dp == 1)
		return serve_run(sp0, fn, ctx, out, err);
	if (sp0->trace && !(sub = malloc((size_t)(sp0->ntrace / dp + 1) * sizeof(*sub))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < dp; i++) {
		struct serve_params sp = *sp0;
		int share = x / dp + (i < x % dp);
		if (sp0->trace) {
			int n = 0;
			for (k = i; k < sp0->ntrace; k += dp)
				sub[n++] = sp0->trace[k];
			if (!n)
				continue;
			sp.trace = sub;
			sp.ntrace = n;
			sp.concurrency = share;
		} else if (sp0->rate > 0) {
			sp.rate = sp0->rate / dp;
			sp.prompts = sp0->prompts / dp > 0 ? sp0->prompts / dp : 1;
			sp.seed = sp0->seed + (unsigned long)i;
			sp.concurrency = sp0->concurrency > 0 ? (share > 0 ? share : 1) : 0;
		} else {
			if (share < 1)
				continue;       /* fewer clients than replicas: idle */
			sp.concurrency = share;
		}
		if (!sp0->trace && sp0->rate <= 0 && share == last) {
			one = prev;     /* the same share: the same run */
		} else {
			if ((rc = serve_run(&sp, fn, ctx, &one, err)) < 0)
				break;
			prev = one;
			last = share;
		}
		out->tok_s_total += one.tok_s_total;
		out->peak_tok_s += one.peak_tok_s;
		w += one.completed;
		out->tok_s_stream += one.tok_s_stream * one.completed;
		out->tpot_ms += one.tpot_ms * one.completed;
		out->ttft_ms += one.ttft_ms * one.completed;
		out->itl_ms += one.itl_ms * one.completed;
		out->e2e_ms += one.e2e_ms * one.completed;
		out->mean_batch += one.mean_batch * one.completed;
		if (one.decode_step_ms > out->decode_step_ms)
			out->decode_step_ms = one.decode_step_ms;
		out->steps += one.steps;
		out->distinct_steps += one.distinct_steps;
		for (k = 0; k < SERVE_NPCT; k++) {
			out->ttft_p[k] = fmax(out->ttft_p[k], one.ttft_p[k]);
			out->tpot_p[k] = fmax(out->tpot_p[k], one.tpot_p[k]);
			out->itl_p[k] = fmax(out->itl_p[k], one.itl_p[k]);
			out->e2e_p[k] = fmax(out->e2e_p[k], one.e2e_p[k]);
		}
		if (one.kv_peak > out->kv_peak)
			out->kv_peak = one.kv_peak;
		out->preemptions += one.preemptions;
		out->prefix_hits += one.prefix_hits;
		out->offloads += one.offloads;
		out->reload_tokens += one.reload_tokens;
		out->kv_io_s += one.kv_io_s;
		if (one.max_waiting > out->max_waiting)
			out->max_waiting = one.max_waiting;
		out->completed += one.completed;
		done++;
	}
	free(sub);
	if (rc < 0)
		return rc;
	if (w > 0) {
		out->tok_s_stream /= w;
		out->tpot_ms /= w;
		out->ttft_ms /= w;
		out->itl_ms /= w;
		out->e2e_ms /= w;
		out->mean_batch /= w;
	}
	(void)done;
	return 0;
}

/* o's KV tiers into sp: the prefix cache, and the host tier served by
 * kio (on c's fabric). */
static void pred_run_kvtier(const struct pred_run *o, const struct pred_cfg *c,
			    struct pred_kvio *kio, struct serve_params *sp)
{
	double per = pred_kvio_bytes_per_token(c);
	sp->prefix_len = o->prefix_len;
	sp->prefix_hit = o->prefix_hit;
	if (o->offload_gib > 0 && per > 0) {
		sp->host_kv_tokens = (long)(o->offload_gib * 1073741824.0 / per);
		sp->kv_io = pred_kvio_fn;
		sp->kv_io_ctx = kio;
	}
}

int pred_run_point(const struct pred_run *o, const struct pred_cfg *c, int x,
		   struct pred_row *r, struct plumb_err *err)
{
	struct pred_step_info info;
	double sec;
	int rc, dp = c->lay.dp > 1 ? c->lay.dp : 1, batch;
	long ctx = o->nbatch ? o->context : o->input + o->output / 2;
	struct plumb_err fe;
	struct pred_disagg dd;

	if (c->disagg[0] && pred_disagg_parse(c->disagg, &dd, NULL) == 1)
		dp = dd.nd;     /* the load splits over the decode instances */
	batch = (x + dp - 1) / dp;

	r->x = x;
	plumb_err_clear(&fe);
	/* One decode step must hold its batch; a serving run one request (the
	 * engine queues what its KV cache does not hold). */
	if (pred_check_fit(c, o->nbatch ? batch : 1, o->nbatch ? o->context : o->input + o->output,
			   &fe) < 0) {
		r->fits = 0;
		snprintf(r->why, sizeof(r->why), "%s", fe.msg);
		return 0;
	}
	r->fits = 1;
	if ((rc = pred_step(c, SERVE_DECODE, batch, ctx, 1, &sec, &info, err)) < 0)
		return rc;
	r->comm = sec > 0 ? info.comm_s / sec : 0;
	r->compute = sec > 0 ? info.compute_s / sec : 0;
	r->idle = sec > 0 ? info.idle_s / sec : 0;
	for (rc = 0; rc < PART_N; rc++)
		r->part[rc] = info.part[rc] * 1e3;
	rc = 0;
	pred_diagnosis(c, &info, r->diag, sizeof(r->diag));
	if (o->nbatch) {
		double per = pred_tokens_per_step(c);
		r->step_ms = sec * 1e3;
		r->tok_total = x * per / sec;       /* every replica's sequences */
		r->tok_stream = per / sec;
		r->tpot_ms = sec * 1e3 / per;
		r->ttft_ms = NAN;
	} else {
		struct serve_params sp;
		struct serve_result sr;
		struct pred_cfg cc = *c;
		struct pred_kvio kio;
		pred_serve_params(c, x, o->input, o->output, o->context, &sp);
		pred_kvio_init(&kio, &cc, o->offload_far);
		pred_run_kvtier(o, &cc, &kio, &sp);
		r->kv_tokens = sp.kv_tokens;
		/* the engine's scheduler unless the options give one */
		sp.chunk_tokens = o->chunk || o->max_batched ? o->chunk : c->s->serving.chunk_tokens;
		sp.max_batched = o->chunk || o->max_batched ? o->max_batched : c->s->serving.max_batched;
		sp.range_ratio = o->range_ratio;
		if (o->nreqs > 0) {
			sp.trace = o->reqs;
			sp.ntrace = o->nreqs;
		} else if (o->rate > 0) {
			sp.rate = o->rate;
			sp.prompts = o->requests ? (int)o->requests : 1000;
			sp.seed = o->seed >= 0 ? (unsigned long)o->seed : c->s->seed;
		}
		if (c->disagg[0]) {
			if ((rc = pred_disagg_serve(o, c, x, &sp, &sr, r->why, sizeof(r->why), err)) < 0)
				return rc;
			if (rc == 1) {
				r->fits = 0;
				return 0;
			}
		} else if ((rc = pred_serve_replicas(c, x, &sp, pred_serve_step, &cc, &sr, err)) < 0) {
			return rc;
		}
		r->sr = sr;
		r->step_ms = sr.decode_step_ms;
		r->tok_total = sr.tok_s_total;
		r->tok_stream = sr.tok_s_stream;
		r->tpot_ms = sr.tpot_ms;
		r->ttft_ms = sr.ttft_ms;
	}
	return 0;
}

/*
 * Items 0..n-1 on the machine's cores (at most 8 threads, at most n): each
 * thread takes the next item until none is left or one has failed, with a
 * state of its own (tls_new, freed by tls_free; both may be NULL). An item's
 * result must not depend on which thread runs it or when, so the results
 * are those of one thread; the error returned is that of the first failing
 * item in item order, as one thread would meet it (later items may not run).
 */
typedef int (*work_fn)(void *arg, void *tls, int i, struct plumb_err *err);

struct wpool {
	work_fn item;
	void *arg;
	void *(*tls_new)(void *arg);
	void (*tls_free)(void *tls);
	pthread_mutex_t mu;
	int n, next;
	int bad;                    /* the first item that failed, n if none */
	struct plumb_err err;       /* its error */
};

static void *wpool_run(void *arg)
{
	struct wpool *p = arg;
	void *tls = p->tls_new ? p->tls_new(p->arg) : NULL;
	for (;;) {
		struct plumb_err e;
		int i;
		pthread_mutex_lock(&p->mu);
		i = p->next < p->bad ? p->next++ : p->n;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			break;
		plumb_err_clear(&e);
		if (p->item(p->arg, tls, i, &e) < 0) {
			pthread_mutex_lock(&p->mu);
			if (i < p->bad) {
				p->bad = i;
				p->err = e;
			}
			pthread_mutex_unlock(&p->mu);
		}
	}
	if (p->tls_free)
		p->tls_free(tls);
	return NULL;
}

static int work_run(int n, work_fn item, void *arg, void *(*tls_new)(void *arg),
		    void (*tls_free)(void *tls), struct plumb_err *err)
{
	struct wpool p;
	pthread_t th[8];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int i, t = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (int)ncpu, started = 0;
	if (t > n)
		t = n;
	memset(&p, 0, sizeof(p));
	p.item = item;
	p.arg = arg;
	p.tls_new = tls_new;
	p.tls_free = tls_free;
	p.n = p.bad = n;
	pthread_mutex_init(&p.mu, NULL);
	/* the other threads, then this one as the last */
	for (i = 0; i + 1 < t; i++)
		if (pthread_create(&th[i], NULL, wpool_run, &p) == 0)
			started++;
	wpool_run(&p);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.mu);
	if (p.bad < n) {
		if (err)
			*err = p.err;
		return p.err.code ? -p.err.code : -PLUMB_ERUNTIME;
	}
	return 0;
}

/*
 * The draws of one point: each thread runs its draws on its own copy of the
 * scenario; a draw's value does not depend on which thread runs it (the
 * shared caches return what a simulation gives).
 */
struct draws {
	const struct pred_run *o;
	const struct scenario *s;
	const char *lay;
	int x;
	const struct plumb_consts *ks;
	const double *mult;
	double *vals;
	double *tpot, *ttft;        /* the same draws' TPOT and TTFT, or NULL */
};

static void *draw_copy(void *arg)
{
	const struct draws *d = arg;
	struct scenario *copy = NULL;
	scn_dup(d->s, &copy, NULL);
	return copy;
}

static void draw_free(void *tls)
{
	scn_free(tls);
}

static int draw_item(void *arg, void *tls, int i, struct plumb_err *err)
{
	const struct draws *d = arg;
	struct scenario *copy = tls;
	struct pred_cfg c;
	struct pred_row t;
	int rc;
	if (!copy)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	memset(&t, 0, sizeof(t));
	copy->k = d->ks[i];
	if ((rc = pred_run_setup(d->o, copy, d->lay, &c, err)) < 0 ||
	    (rc = pred_run_point(d->o, &c, d->x, &t, err)) < 0)
		return rc;
	d->vals[i] = t.fits ? t.tok_total * d->mult[i] : NAN;
	/* a time divides by the draw's model error; TTFT's has its own spread */
	if (d->tpot) {
		d->tpot[i] = t.fits ? t.tpot_ms / d->mult[i] : NAN;
		d->ttft[i] = t.fits ? t.ttft_ms * val_ttft_err_factor(&copy->k, i) : NAN;
	}
	return 0;
}

/* pred_point_draws, and the same draws' TPOT and TTFT unless tpot is NULL. */
static int point_draws(const struct pred_run *o, const struct scenario *s, const char *lay,
		       int x, double *vals, double *tpot, double *ttft, struct plumb_err *err)
{
	struct draws d;
	struct plumb_consts *ks;
	double *mult;
	int i, rc;

	if (o->draws < 1 || !o->src.consts)
		return 0;
	ks = malloc((size_t)o->draws * sizeof(*ks));
	mult = malloc((size_t)o->draws * sizeof(*mult));
	if (!ks || !mult) {
		free(ks);
		free(mult);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if ((rc = o->src.consts(&s->k, o->draws, ks, mult, err)) > 0) {
		d.o = o;
		d.s = s;
		d.lay = lay;
		d.x = x;
		d.ks = ks;
		d.mult = mult;
		d.vals = vals;
		d.tpot = tpot;
		d.ttft = ttft;
		for (i = 0; i < o->draws; i++)
			vals[i] = NAN;
		rc = work_run(o->draws, draw_item, &d, draw_copy, draw_free, err);
		rc = rc < 0 ? rc : 1;
	}
	free(ks);
	free(mult);
	return rc;
}

int pred_point_draws(const struct pred_run *o, const struct scenario *s, const char *lay,
		     int x, double *vals, struct plumb_err *err)
{
	return point_draws(o, s, lay, x, vals, NULL, NULL, err);
}

/* The 90% interval of r's total tok/s (and TPOT, TTFT), where o draws one. */
static int interval(const struct pred_run *o, const struct scenario *s, const char *lay, int x,
		    struct pred_row *r, struct plumb_err *err)
{
	double *tw;
	int rc;
	r->lo = r->hi = r->tpot_lo = r->tpot_hi = r->ttft_lo = r->ttft_hi = NAN;
	if (!r->fits || o->draws < 1 || !o->src.interval)
		return 0;
	/* Uncalibrated: the interval of the defaults, for predict, and for
	 * compare when --draws is given (it runs many boxes). */
	if (!o->src.calibrated && o->compare && !o->draws_given)
		return 0;
	r->dv = malloc((size_t)o->draws * sizeof(*r->dv));
	tw = malloc(2 * (size_t)o->draws * sizeof(*tw));
	if (!r->dv || !tw) {
		free(r->dv);
		r->dv = NULL;
		free(tw);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if ((rc = point_draws(o, s, lay, x, r->dv, tw, tw + o->draws, err)) <= 0) {
		free(r->dv);
		r->dv = NULL;
		free(tw);
		return rc;
	}
	r->ndv = o->draws;
	o->src.interval(r->dv, r->ndv, &r->lo, &r->hi);
	o->src.interval(tw, r->ndv, &r->tpot_lo, &r->tpot_hi);
	o->src.interval(tw + o->draws, r->ndv, &r->ttft_lo, &r->ttft_hi);
	free(tw);
	return 0;
}

/*
 * The rows of a run: each point (layout, load, scenario) with its interval,
 * on the machine's cores (work_run). The rows are independent and read the
 * scenarios only (an interval's draws run on copies); an error is the first
 * failing row's, in row order.
 */
struct rows {
	const struct pred_run *o;
	struct scenario *const *s;
	int ns;
	struct pred_row *rows;
	int nx;
};

static int row_item(void *arg, void *tls, int i, struct plumb_err *err)
{
	const struct rows *w = arg;
	const struct pred_run *o = w->o;
	struct pred_row *r = &w->rows[i];
	struct pred_cfg c;
	int xi = i / w->ns % w->nx, x = o->nbatch ? o->batch[xi] : o->conc[xi], rc;
	(void)tls;
	r->x = x;
	r->lo = r->hi = r->tpot_lo = r->tpot_hi = r->ttft_lo = r->ttft_hi = NAN;
	/* a box too small for the layout: its cell says n/a and why */
	if ((rc = pred_layout_on_box(w->s[r->si], o->layouts[r->li], o->fill, r->lay,
				     sizeof(r->lay), r->why, sizeof(r->why), err)) != 0)
		return rc < 0 ? rc : 0;
	if ((rc = pred_run_setup(o, w->s[r->si], r->lay, &c, err)) < 0 ||
	    (rc = pred_run_point(o, &c, x, r, err)) < 0)
		return rc;
	return interval(o, w->s[r->si], r->lay, x, r, err);
}

int pred_run_rows(const struct pred_run *o, struct scenario *const *s, int ns,
		  struct pred_row **rows, int *nrows, struct plumb_err *err)
{
	int li, xi, si, n = 0, nx = o->nbatch ? o->nbatch : o->nconc;
	struct pred_row *r;

	*nrows = 0;
	if (!(*rows = r = calloc((size_t)(o->nlayouts * nx * ns), sizeof(*r))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (li = 0; li < o->nlayouts; li++)
		for (xi = 0; xi < nx; xi++)
			for (si = 0; si < ns; si++) {
				r[n].si = si;
				r[n++].li = li;
			}
	*nrows = n;
	{
		struct rows w = { o, s, ns, r, nx };
		return work_run(n, row_item, &w, NULL, NULL, err);
	}
}

void pred_rows_free(struct pred_row *rows, int n)
{
	int i;
	for (i = 0; rows && i < n; i++)
		free(rows[i].dv);
	free(rows);
}
