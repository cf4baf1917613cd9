/*
 * disagg.c - disaggregated prefill and decode (disagg.h): prefill and
 * decode instances as a discrete-event run. The events are arrivals, the
 * end of a prefill step, the end of a decode step, and a KV transfer
 * landing; the first three are known ahead, the last comes from the
 * caller's transfer model, which is run up to the next known event and
 * stops at the first landing before it. Events at one time are taken in a
 * fixed order: a landing first, then arrivals, prefill instances, decode
 * instances (by index); then every idle instance with work starts a step.
 */
#include "disagg.h"
#include "serve_int.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DQ_PENDING, DQ_WAIT_P, DQ_PREFILL, DQ_XFER, DQ_WAIT_D, DQ_RUN, DQ_DONE };

struct dreq {
	double arrival, pf_end, first, last, generated;
	long input, target, todo, chunk;
	long kv;                /* KV tokens it holds on its decode instance */
	long admitted;          /* admission order there (retraction: the newest) */
	int state, measured, pi, di, retracted;
};

/* A FIFO of request indices: items[head .. n). */
struct fifo {
	int *items, n, cap, head;
};

struct inst {
	double busy_until;      /* the running step's end; < 0 idle */
	double started;         /* the running step's start */
	double alone;           /* its end with its links to itself */
	int pending;            /* its end waits for its collectives (advance) */
	long kv_used;           /* tokens held */
	long promised;          /* decode: tokens of requests sent to it, not admitted */
	struct fifo q;          /* prefill: admitted, in order; decode: landed, waiting */
	struct fifo back;       /* decode: retracted, waiting to be recomputed */
	int *run, nrun, caprun; /* decode: running requests */
	int *re, nre, capre;    /* decode: this step's recomputed requests */
};

struct dstate {
	const struct serve_params *p;
	const struct serve_disagg *d;
	struct serve_result *r;
	struct dreq *rq;
	int nrq, caprq;
	struct fifo wait;       /* requests waiting for a prefill instance */
	struct inst *pf, *dc;
	struct loop lp_pf, lp_dc;
	struct run R;           /* the distributions (serve_stats.c) */
	struct seconds sec;
	double *xfer;
	int nxfer, capxfer;
	double win0, tokens_win, dstep_sum, batch_sum, pf_sum, now;
	int dsteps, completed, done_measured, want, C, open, inflight, npf, npfm;
	long issued, admissions;
};

static int fifo_push(struct fifo *f, int v)
{
	if (f->head > 0 && f->n == f->cap) {
		memmove(f->items, f->items + f->head, (size_t)(f->n - f->head) * sizeof(int));
		f->n -= f->head;
		f->head = 0;
	}
	if (serve_grow((void **)&f->items, &f->cap, f->n + 1, sizeof(int)) < 0)
		return -1;
	f->items[f->n++] = v;
	return 0;
}

static int fifo_len(const struct fifo *f)
{
	return f->n - f->head;
}

static int oom(struct plumb_err *err)
{
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
}

static int new_req(struct dstate *S, double arrival, long input, long target, int measured)
{
	struct dreq *q;
	if (serve_grow((void **)&S->rq, &S->caprq, S->nrq + 1, sizeof(*S->rq)) < 0)
		return -1;
	q = &S->rq[S->nrq];
	memset(q, 0, sizeof(*q));
	q->arrival = arrival;
	q->input = input;
	q->target = target;
	q->measured = measured;
	q->state = DQ_PENDING;
	q->pi = q->di = -1;
	return S->nrq++;
}

/* A request enters the system at time t: it waits for a prefill instance. */
static int enter(struct dstate *S, int id, double t)
{
	struct dreq *q = &S->rq[id];
	q->arrival = t > q->arrival ? t : q->arrival;
	q->state = DQ_WAIT_P;
	S->inflight++;
	return fifo_push(&S->wait, id);
}

/* Closed loop: a client issues its next request at t. */
static int issue(struct dstate *S, double t)
{
	const struct serve_params *p = S->p;
	int id;
	if (p->prompts > 0 && S->issued >= p->prompts)
		return 0;
	id = new_req(S, t, serve_req_input(p, S->issued), serve_req_output(p, S->issued),
		     p->prompts > 0 || S->win0 >= 0);
	if (id < 0)
		return -1;
	S->issued++;
	return enter(S, id, t);
}

/* Open loop: the requests that have arrived by t, while the cap allows. */
static int arrivals(struct dstate *S, double t)
{
	int cap = S->p->concurrency;
	while (S->npf < S->nrq && S->rq[S->npf].arrival <= t && (cap < 1 || S->inflight < cap))
		if (enter(S, S->npf++, t) < 0)
			return -1;
	return 0;
}

/* Start a prefill step on idle instance i: admit waiting requests while
 * their prompts fit and the step's token budget is not spent, then take
 * chunks of the admitted ones in order. */
static int start_prefill(struct dstate *S, int i, struct plumb_err *err)
{
	const struct serve_params *p = S->p;
	struct inst *in = &S->pf[i];
	long budget = p->chunk_tokens > 0 ? p->chunk_tokens : -1, newsum = 0, left = 0;
	double ctxsum = 0, dt;
	struct serve_shape sh;
	int k, np = 0, rc;
	for (k = in->q.head; k < in->q.n; k++)
		left += S->rq[in->q.items[k]].todo;
	while (fifo_len(&S->wait) > 0 && (budget < 0 || left < budget)) {
		int id = S->wait.items[S->wait.head];
		struct dreq *q = &S->rq[id];
		long skip = 0;
		if (S->d->prefill_kv_tokens > 0 && in->kv_used + q->input > S->d->prefill_kv_tokens) {
			if (in->kv_used == 0)
				return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
						     "a request of %ld tokens does not fit a prefill "
						     "instance's KV cache (%ld tokens)",
						     q->input, S->d->prefill_kv_tokens);
			break;
		}
		S->wait.head++;
		q->state = DQ_PREFILL;
		q->pi = i;
		q->todo = q->input - p->context;
		if (serve_prefix_hit(p, id) && p->prefix_len > p->context) {
			skip = p->prefix_len - p->context;
			if (skip > q->todo - 1)
				skip = q->todo - 1;
			if (skip > 0) {
				q->todo -= skip;
				S->r->prefix_hits++;
			}
		}
		in->kv_used += q->input;
		left += q->todo;
		if (fifo_push(&in->q, id) < 0)
			return oom(err);
	}
	for (k = in->q.head; k < in->q.n; k++) {
		struct dreq *q = &S->rq[in->q.items[k]];
		long take = q->todo < 1 ? 1 : q->todo;
		if (budget >= 0 && take > budget - newsum)
			take = budget - newsum;
		if (take <= 0)
			break;
		q->chunk = take;
		ctxsum += (double)(q->input - q->todo);
		newsum += take;
		np++;
	}
	if (!np)
		return 0;
	memset(&sh, 0, sizeof(sh));
	sh.kind = SERVE_PREFILL;
	sh.batch = np;
	sh.context = (long)(ctxsum / np + 0.5);
	sh.tokens = (newsum + np / 2) / np;
	if (sh.tokens < 1)
		sh.tokens = 1;
	if ((rc = serve_step_time(&S->lp_pf, &sh, &dt, err)) < 0)
		return rc;
	in->busy_until = S->now + dt;
	in->started = S->now;
	in->alone = S->now + dt;
	in->pending = 0;
	if (S->d->step_traffic)
		return S->d->step_traffic(S->d->link_ctx, 1, i, &sh, S->now, S->now + dt,
					  &in->pending, err);
	return 0;
}

/* The decode instance for a request leaving prefill: the least KV held and
 * promised, the lowest index on a tie. */
static int pick_decode(const struct dstate *S)
{
	int j, best = 0;
	for (j = 1; j < S->d->ndecode; j++)
		if (S->dc[j].kv_used + S->dc[j].promised < S->dc[best].kv_used + S->dc[best].promised)
			best = j;
	return best;
}

static int finish_prefill(struct dstate *S, int i, struct plumb_err *err)
{
	struct inst *in = &S->pf[i];
	int k, n = in->q.head, rc;
	in->busy_until = -1;
	for (k = in->q.head; k < in->q.n; k++) {
		int id = in->q.items[k];
		struct dreq *q = &S->rq[id];
		q->todo -= q->chunk;
		q->chunk = 0;
		if (q->todo > 0) {
			in->q.items[n++] = id;  /* the rest of its prompt next step */
			continue;
		}
		q->state = DQ_XFER;
		q->pf_end = S->now;
		if (q->measured) {
			S->pf_sum += S->now - q->arrival;
			S->npfm++;
		}
		q->di = pick_decode(S);
		S->dc[q->di].promised += q->input + q->target;
		if ((rc = S->d->send(S->d->link_ctx, id, q->input, i, q->di, S->now, err)) < 0)
			return rc;
	}
	in->q.n = n;
	return 0;
}

/* The front ends' time request q carries: each hop's, and its prompt's
 * tokenizing once (the prefill and decode servers encode the text side by
 * side). */
static double front(const struct dstate *S, const struct dreq *q)
{
	return S->p->frontend_s * (S->d->frontend_hops > 1 ? S->d->frontend_hops : 1) +
	       S->p->tokenize_token_s * (double)q->input;
}

/* Request id's KV has landed on its decode instance at S->now. */
static int landed(struct dstate *S, int id)
{
	struct dreq *q = &S->rq[id];
	S->pf[q->pi].kv_used -= q->input;
	q->state = DQ_WAIT_D;
	if (q->measured)
		serve_push(&S->R, &S->xfer, &S->nxfer, &S->capxfer, S->now - q->pf_end);
	return fifo_push(&S->dc[q->di].q, id);
}

/* Is a token yielded now in the measured window (win0, end]? Not one of
 * the step whose completion opens it, which ends at win0 (serve.c). */
static int in_window(const struct dstate *S)
{
	return S->win0 >= 0 && S->now > S->win0;
}

static int complete(struct dstate *S, struct inst *in, int id)
{
	struct dreq *q = &S->rq[id];
	q->state = DQ_DONE;
	in->kv_used -= q->kv;
	q->kv = 0;
	S->inflight--;
	S->completed++;
	if (q->measured) {
		S->done_measured++;
		if (q->target > 1)
			serve_push(&S->R, &S->R.tpot, &S->R.ntpot, &S->R.cap2,
				   (S->now - q->first) / (double)(q->target - 1));
		serve_push(&S->R, &S->R.e2e, &S->R.ne2e, &S->R.cap3, S->now - q->arrival + front(S, q));
	}
	if (S->open)
		return arrivals(S, S->now);
	if (S->win0 < 0 && S->completed >= S->C)
		S->win0 = S->now;
	return issue(S, S->now);
}

/* Decoding past the decode instance's KV cache: retract the newest
 * running request (its KV freed; recomputed on this instance when it is
 * readmitted, as vLLM's and SGLang's decode schedulers do). */
static int retract(struct dstate *S, struct inst *in)
{
	int k, newest = 0, id;
	for (k = 1; k < in->nrun; k++)
		if (S->rq[in->run[k]].admitted > S->rq[in->run[newest]].admitted)
			newest = k;
	id = in->run[newest];
	memmove(in->run + newest, in->run + newest + 1, (size_t)(in->nrun - newest - 1) * sizeof(int));
	in->nrun--;
	in->kv_used -= S->rq[id].kv;
	S->rq[id].kv = 0;
	S->rq[id].retracted = 1;
	S->rq[id].state = DQ_WAIT_D;
	S->r->preemptions++;
	return fifo_push(&in->back, id);
}

/*
 * Start a step on idle decode instance j. Admission as serve_run's: the
 * retracted requests first, then the landed ones in landing order, while
 * the KV held, a reserve of SERVE_RESERVE of every running request's
 * remaining output, and the newcomer's prompt and reserve fit (the first
 * needs only its prompt and a token). A landed request starts decoding at
 * once (its first token came from its prefill); retracted ones are
 * prefilled again here (prompt and what they had generated) in a prefill
 * step of this instance, which its streams wait for. Otherwise one decode
 * step of all it runs, retracting the newest while the step's new tokens
 * would overflow the cache.
 */
static int start_decode(struct dstate *S, int j, struct plumb_err *err)
{
	const struct serve_params *p = S->p;
	struct inst *in = &S->dc[j];
	long cap = S->d->decode_kv_tokens;
	double ctxsum = 0, dt, reserve = 0;
	struct serve_shape sh;
	int k, rc;
	for (k = 0; k < in->nrun; k++)
		reserve += SERVE_RESERVE * ((double)S->rq[in->run[k]].target - S->rq[in->run[k]].generated);
	while (fifo_len(&in->back) > 0 || fifo_len(&in->q) > 0) {
		int back = fifo_len(&in->back) > 0;
		int id = back ? in->back.items[in->back.head] : in->q.items[in->q.head];
		struct dreq *q = &S->rq[id];
		long prompt = q->input + (back ? (long)ceil(q->generated) : 0);
		if (cap > 0 && prompt + 1 > cap)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "a request of %ld tokens does not fit a decode "
					     "instance's KV cache (%ld tokens)", prompt + 1, cap);
		if (cap > 0 && in->nrun + in->nre > 0 &&
		    (in->kv_used + reserve + prompt + SERVE_RESERVE * ((double)q->target - q->generated) >
			     (double)cap || in->kv_used + prompt + 1 > cap))
			break;
		if (cap > 0 && in->kv_used + prompt + 1 > cap)
			break;
		if (back)
			in->back.head++;
		else
			in->q.head++;
		reserve += SERVE_RESERVE * ((double)q->target - (back ? q->generated : 1));
		q->kv = prompt;
		q->admitted = S->admissions++;
		in->kv_used += prompt;
		if (in->kv_used > S->r->kv_peak)
			S->r->kv_peak = in->kv_used;
		q->state = DQ_RUN;
		if (back) {
			if (serve_grow((void **)&in->re, &in->capre, in->nre + 1, sizeof(int)) < 0)
				return oom(err);
			in->re[in->nre++] = id;
			continue;
		}
		in->promised -= q->input + q->target;
		q->first = q->last = S->now;
		if (S->d->first_from_decode) {
			q->generated = 0;       /* its first token comes from this step */
		} else {
			q->generated = 1;       /* the first token, from its prefill */
			if (in_window(S))
				S->tokens_win += 1;
			if (serve_seconds_span(&S->sec, S->now, S->now, 1) < 0)
				return oom(err);
			if (q->measured)
				serve_push(&S->R, &S->R.ttft, &S->R.nttft, &S->R.cap1,
					   S->now - q->arrival + front(S, q));
		}
		if (q->target <= 1 && !S->d->first_from_decode) {
			if ((rc = complete(S, in, id)) < 0)
				return rc < -1 ? rc : oom(err);
			continue;
		}
		if (serve_grow((void **)&in->run, &in->caprun, in->nrun + 1, sizeof(int)) < 0)
			return oom(err);
		in->run[in->nrun++] = id;
	}
	memset(&sh, 0, sizeof(sh));
	if (in->nre > 0) {      /* the retracted ones' prefill again */
		long sum = 0;
		for (k = 0; k < in->nre; k++)
			sum += S->rq[in->re[k]].kv;
		sh.kind = SERVE_PREFILL;
		sh.batch = in->nre;
		sh.tokens = (sum + in->nre / 2) / in->nre;
		if ((rc = serve_step_time(&S->lp_dc, &sh, &dt, err)) < 0)
			return rc;
	} else {
		while (cap > 0 && in->nrun > 1 &&
		       in->kv_used + (long)ceil(in->nrun * p->accept_per_step) > cap)
			if (retract(S, in) < 0)
				return oom(err);
		if (!in->nrun)
			return 0;
		for (k = 0; k < in->nrun; k++)
			ctxsum += (double)S->rq[in->run[k]].input + S->rq[in->run[k]].generated;
		sh.kind = SERVE_DECODE;
		sh.batch = in->nrun;
		sh.context = p->bucket > 1 ? ((long)(ctxsum / in->nrun) / p->bucket) * p->bucket + p->bucket / 2
					   : (long)(ctxsum / in->nrun);
		sh.tokens = 1;
		if ((rc = serve_step_time(&S->lp_dc, &sh, &dt, err)) < 0)
			return rc;
	}
	in->started = S->now;
	in->busy_until = S->now + dt;
	in->alone = S->now + dt;
	in->pending = 0;
	if (S->d->step_traffic &&
	    (rc = S->d->step_traffic(S->d->link_ctx, 0, j, &sh, S->now, S->now + dt,
				     &in->pending, err)) < 0)
		return rc;
	if (S->win0 >= 0 && sh.kind == SERVE_DECODE) {
		S->dstep_sum += dt;
		S->batch_sum += in->nrun;
		S->dsteps++;
	}
	return 0;
}

static int finish_decode(struct dstate *S, int j, struct plumb_err *err)
{
	const struct serve_params *p = S->p;
	struct inst *in = &S->dc[j];
	double step_tokens = 0, t0 = in->started;
	int k, n = 0, rc;
	in->busy_until = -1;
	if (in->nre > 0) {      /* recomputed: they decode again */
		if (serve_grow((void **)&in->run, &in->caprun, in->nrun + in->nre, sizeof(int)) < 0)
			return oom(err);
		for (k = 0; k < in->nre; k++)
			in->run[in->nrun++] = in->re[k];
		in->nre = 0;
		return 0;
	}
	for (k = 0; k < in->nrun; k++) {
		int id = in->run[k];
		struct dreq *q = &S->rq[id];
		double add = p->accept_per_step;
		int first = q->generated <= 0;
		if (first)
			add = 1;        /* the last prompt token's pass: one token */
		if (q->generated + add > (double)q->target)
			add = (double)q->target - q->generated;
		q->generated += add;
		in->kv_used += (q->input + (long)ceil(q->generated)) - q->kv;
		q->kv = q->input + (long)ceil(q->generated);
		if (in->kv_used > S->r->kv_peak)
			S->r->kv_peak = in->kv_used;
		if (first) {
			q->first = S->now;
			if (q->measured)
				serve_push(&S->R, &S->R.ttft, &S->R.nttft, &S->R.cap1,
					   S->now - q->arrival + front(S, q));
		} else if (q->measured) {
			serve_itl_add(&S->R, S->now - q->last);
		}
		q->last = S->now;
		step_tokens += add;
		if (in_window(S))
			S->tokens_win += add;
		if (q->generated < (double)q->target - 1e-9) {
			in->run[n++] = id;
			continue;
		}
		if ((rc = complete(S, in, id)) < 0)
			return rc < -1 ? rc : oom(err);
	}
	in->nrun = n;
	serve_itl_flush(&S->R);
	if (S->R.oom || serve_seconds_span(&S->sec, t0, S->now, step_tokens) < 0)
		return oom(err);
	return 0;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct serve_request *x = a, *y = b;
	return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

/* The requests of an open-loop run, in arrival order (serve.c's draws). */
static int open_requests(struct dstate *S, struct plumb_err *err)
{
	const struct serve_params *p = S->p;
	int i;
	if (p->ntrace > 0) {
		struct serve_request *t = malloc((size_t)p->ntrace * sizeof(*t));
		if (!t)
			return oom(err);
		memcpy(t, p->trace, (size_t)p->ntrace * sizeof(*t));
		qsort(t, (size_t)p->ntrace, sizeof(*t), cmp_arrival);
		for (i = 0; i < p->ntrace; i++)
			if (new_req(S, t[i].arrival, t[i].input_len, t[i].output_len, 1) < 0)
				break;
		free(t);
		return i < p->ntrace ? oom(err) : 0;
	} else {
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		double t = 0;
		int n = p->prompts > 0 ? p->prompts : 1000;
		if (!rng)
			return oom(err);
		gsl_rng_set(rng, p->seed);
		for (i = 0; i < n; i++) {
			t += gsl_ran_exponential(rng, 1.0 / p->rate);
			if (new_req(S, t, serve_req_input(p, i), serve_req_output(p, i), 1) < 0)
				break;
		}
		gsl_rng_free(rng);
		return i < n ? oom(err) : 0;
	}
}

static void release(struct dstate *S)
{
	int k;
	for (k = 0; S->pf && k < S->d->nprefill; k++)
		free(S->pf[k].q.items);
	for (k = 0; S->dc && k < S->d->ndecode; k++) {
		free(S->dc[k].q.items);
		free(S->dc[k].back.items);
		free(S->dc[k].run);
		free(S->dc[k].re);
	}
	free(S->pf);
	free(S->dc);
	free(S->rq);
	free(S->wait.items);
	free(S->lp_pf.memo);
	free(S->lp_dc.memo);
	free(S->R.ttft);
	free(S->R.tpot);
	free(S->R.e2e);
	free(S->R.itl);
	free(S->xfer);
	free(S->sec.tok);
	free(S->sec.which);
}

int serve_disagg_run(const struct serve_params *p, const struct serve_disagg *d,
		     struct serve_result *r, struct plumb_err *err)
{
	struct dstate S;
	double max_events = 1e7, events = 0;
	int i, rc = 0;

	memset(r, 0, sizeof(*r));
	memset(&S, 0, sizeof(S));
	S.p = p;
	S.d = d;
	S.r = r;
	S.sec.hi = -1;
	S.win0 = -1;
	S.open = p->rate > 0 || p->ntrace > 0;
	S.C = S.open ? 0 : p->concurrency;
	if (d->nprefill < 1 || d->ndecode < 1 || !d->send || !d->advance || !d->prefill_fn ||
	    !d->decode_fn)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "disaggregated serving needs a prefill and a decode instance");
	if ((!S.open && S.C < 1) || p->output_len < 1 || p->input_len < 1 || p->context < 0 ||
	    p->context >= p->input_len || p->accept_per_step < 1)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "serving needs concurrency >= 1, output >= 1 token and a cached context shorter than the input");
	if ((rc = serve_kvtier_check(p, err)) < 0)
		return rc;
	S.lp_pf.fn = d->prefill_fn;
	S.lp_pf.ctx = d->prefill_ctx;
	S.lp_dc.fn = d->decode_fn;
	S.lp_dc.ctx = d->decode_ctx;
	S.pf = calloc((size_t)d->nprefill, sizeof(*S.pf));
	S.dc = calloc((size_t)d->ndecode, sizeof(*S.dc));
	if (!S.pf || !S.dc) {
		rc = oom(err);
		goto out;
	}
	for (i = 0; i < d->nprefill; i++)
		S.pf[i].busy_until = -1;
	for (i = 0; i < d->ndecode; i++)
		S.dc[i].busy_until = -1;
	if (S.open) {
		if ((rc = open_requests(&S, err)) < 0)
			goto out;
		S.want = S.nrq;
		S.win0 = 0;
	} else {
		S.want = p->prompts > 0 ? p->prompts : p->requests > 0 ? p->requests : 2 * S.C;
		if (p->prompts > 0)
			S.win0 = 0;
		for (i = 0; i < S.C; i++)
			if (issue(&S, 0) < 0) {
				rc = oom(err);
				goto out;
			}
	}
	for (i = 0; i < S.nrq; i++)
		max_events += 4.0 * ((double)S.rq[i].target + S.rq[i].input + 2);
	if (!S.open)
		max_events += 4.0 * (S.want + S.C) * ((double)p->output_len * 2 + p->input_len + 2);

	while (S.done_measured < S.want) {
		double T = INFINITY, tl, tend = 0;
		int id;
		if (S.open && arrivals(&S, S.now) < 0) {
			rc = oom(err);
			goto out;
		}
		for (i = 0; i < d->nprefill; i++)
			if (S.pf[i].busy_until < 0 && (rc = start_prefill(&S, i, err)) < 0)
				goto out;
		for (i = 0; i < d->ndecode; i++)
			if (S.dc[i].busy_until < 0 && (rc = start_decode(&S, i, err)) < 0)
				goto out;
		if (S.done_measured >= S.want)
			break;
		if (S.open && S.npf < S.nrq && (p->concurrency < 1 || S.inflight < p->concurrency))
			T = S.rq[S.npf].arrival > S.now ? S.rq[S.npf].arrival : S.now;
		for (i = 0; i < d->nprefill; i++)
			if (S.pf[i].busy_until >= 0 && !S.pf[i].pending && S.pf[i].busy_until < T)
				T = S.pf[i].busy_until;
		for (i = 0; i < d->ndecode; i++)
			if (S.dc[i].busy_until >= 0 && !S.dc[i].pending && S.dc[i].busy_until < T)
				T = S.dc[i].busy_until;
		if ((rc = d->advance(d->link_ctx, T, &id, &tl, &tend, err)) < 0)
			goto out;
		if (++events > max_events) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					   "disaggregated run did not converge (more than %.0f events)",
					   max_events);
			goto out;
		}
		if (rc == 1) {
			rc = 0;
			S.now = tl > S.now ? tl : S.now;
			if (landed(&S, id) < 0) {
				rc = oom(err);
				goto out;
			}
			continue;
		}
		if (rc == 2) {  /* a step's collectives done: its end is known */
			struct inst *in = id < 0 ? &S.pf[-1 - id] : &S.dc[id];
			rc = 0;
			S.now = tl > S.now ? tl : S.now;
			if ((id < 0 ? -1 - id >= d->nprefill : id >= d->ndecode) || !in->pending) {
				rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
						   "disaggregated run: a step end for no pending step");
				goto out;
			}
			in->pending = 0;
			in->busy_until = tend > S.now ? tend : S.now;
			if (in->busy_until > in->alone) {
				*(id < 0 ? &S.r->pf_link_delay_s : &S.r->link_delay_s) +=
					in->busy_until - in->alone;
				if (id >= 0 && S.win0 >= 0 && in->started >= S.win0)
					S.dstep_sum += in->busy_until - in->alone;
			}
			continue;
		}
		if (!isfinite(T)) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					   "disaggregated run stalled: requests wait with no step or "
					   "transfer under way");
			goto out;
		}
		S.now = T;
		for (i = 0; i < d->nprefill; i++)
			if (S.pf[i].busy_until == T && !S.pf[i].pending &&
			    (rc = finish_prefill(&S, i, err)) < 0)
				goto out;
		for (i = 0; i < d->ndecode; i++)
			if (S.dc[i].busy_until == T && !S.dc[i].pending &&
			    (rc = finish_decode(&S, i, err)) < 0)
				goto out;
		if (S.R.oom) {
			rc = oom(err);
			goto out;
		}
	}
	r->tok_s_total = S.now > S.win0 ? S.tokens_win / (S.now - S.win0) : 0;
	r->peak_tok_s = S.now >= 1 ? S.sec.peak : S.now > 0 ? S.sec.peak / S.now : 0;
	serve_pcts(S.R.ttft, S.R.nttft, r->ttft_p, &r->ttft_ms);
	serve_pcts(S.R.tpot, S.R.ntpot, r->tpot_p, &r->tpot_ms);
	serve_pcts(S.R.e2e, S.R.ne2e, r->e2e_p, &r->e2e_ms);
	serve_pcts(S.xfer, S.nxfer, r->xfer_p, &r->xfer_ms);
	serve_itl_pcts(&S.R, r->itl_p, &r->itl_ms);
	r->tok_s_stream = r->tpot_ms > 0 ? 1e3 / r->tpot_ms : 0;
	r->decode_step_ms = S.dsteps ? S.dstep_sum / S.dsteps * 1e3 : 0;
	r->mean_batch = S.dsteps ? S.batch_sum / S.dsteps : 0;
	r->steps = S.dsteps;
	r->distinct_steps = S.lp_pf.misses + S.lp_dc.misses;
	r->completed = S.completed;
	r->prefill_ms = S.npfm ? S.pf_sum / S.npfm * 1e3 : 0;
out:
	release(&S);
	return rc;
}
