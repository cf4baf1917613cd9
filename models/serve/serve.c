/*
 * serve.c - the serving run (serve.h): the requests, admission under the KV
 * budget and the step loop. The step-time memo is in serve_memo.c, what a
 * run measures in serve_stats.c.
 */
#include "serve_int.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int new_req(struct run *R, double arrival, long input, long target, int measured)
{
	struct req *q;
	if (serve_grow((void **)&R->rq, &R->caprq, R->nrq + 1, sizeof(*R->rq)) < 0) {
		R->oom = 1;
		return -1;
	}
	q = &R->rq[R->nrq];
	memset(q, 0, sizeof(*q));
	q->arrival = arrival;
	q->input = input;
	q->target = target;
	q->measured = measured;
	q->state = RQ_WAITING;
	return R->nrq++;
}

const double serve_pct[SERVE_NPCT] = { 0.50, 0.90, 0.99 };
const char *const serve_dist_name[SERVE_NDIST] = { "ttft", "tpot", "itl", "e2e" };

const double *serve_dist(const struct serve_result *r, int k)
{
	return k == 0 ? r->ttft_p : k == 1 ? r->tpot_p : k == 2 ? r->itl_p : r->e2e_p;
}

void serve_params_init(struct serve_params *p)
{
	memset(p, 0, sizeof(*p));
	p->concurrency = 1;
	p->input_len = 1024;
	p->output_len = 256;
	p->context = 0;
	p->requests = 0;
	p->accept_per_step = 1;
	p->bucket = 1024;
	p->spread = 0.5;
	p->range_ratio = -1;
}

/* Output length of the j-th request: golden-ratio sequence over the spread. */
static long out_len(const struct serve_params *p, long j)
{
	double u = fmod(0.5 + (double)j * 0.6180339887498949, 1.0);
	double len = (double)p->output_len * (1.0 - p->spread + 2.0 * p->spread * u);
	long l;
	if (p->range_ratio >= 0)        /* bench_serving's random dataset */
		len = (double)p->output_len * (p->range_ratio + (1.0 - p->range_ratio) * u);
	l = (long)(len + 0.5);
	return l < 1 ? 1 : l;
}

/* Input length of the j-th request: the nominal one, or with a range ratio
 * r spread over [r, 1] x input_len (another low-discrepancy sequence, so
 * inputs and outputs do not move together), longer than the cached part. */
static long in_len(const struct serve_params *p, long j)
{
	double v = fmod(0.5 + (double)j * 0.4142135623730951, 1.0);
	long l;
	if (p->range_ratio < 0)
		return p->input_len;
	l = (long)((double)p->input_len * (p->range_ratio + (1.0 - p->range_ratio) * v) + 0.5);
	return l <= p->context ? p->context + 1 : l;
}


/* Middle of the bucket holding ctx (the step is simulated there). */
static long bucketed(long ctx, long bucket)
{
	if (bucket <= 1)
		return ctx;
	return (ctx / bucket) * bucket + bucket / 2;
}

/* An admission candidate: retracted ones first, then by arrival. */
struct cand {
	int retracted, idx;
	double arrival;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->retracted != y->retracted)
		return y->retracted - x->retracted;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return x->idx - y->idx;
}

/*
 * R->order becomes the waiting requests of sys sorted by cmp_cand, from
 * the last build: its entries still waiting as they were keep their order,
 * the requests that joined since (arrived, issued, retracted) are sorted
 * apart and merged in. cmp_cand is a total order, so this is the one
 * sorted result a sort of them all gives, in O(W + J log J) for W waiting
 * and J joined rather than O(W log W) at every change. Returns the count,
 * or -1 when out of memory.
 */
static int order_rebuild(struct run *R, const int *sys, int nsys, int waiting)
{
	int k, nk = 0, nj = 0, a = 0, b = 0, n = 0;
	struct cand *c;
	for (k = 0; k < R->norder; k++) {
		struct req *q = &R->rq[R->order[k].idx];
		if (q->state == RQ_WAITING && q->queued && q->retracted == R->order[k].retracted &&
		    q->arrival == R->order[k].arrival)
			R->order[nk++] = R->order[k];
		else
			q->queued = 0;
	}
	if (serve_grow((void **)&R->fresh, &R->capfresh, waiting > 0 ? waiting : 1,
		       sizeof(*R->fresh)) < 0 ||
	    serve_grow((void **)&R->merged, &R->capmerged, waiting > 0 ? waiting : 1,
		       sizeof(*R->merged)) < 0)
		return -1;
	for (k = 0; k < nsys; k++) {
		struct req *q;
		if (sys[k] < 0 || R->rq[sys[k]].state != RQ_WAITING || R->rq[sys[k]].queued)
			continue;
		q = &R->rq[sys[k]];
		if (nk + nj >= waiting)
			break;  /* cannot happen: waiting counts them */
		q->queued = 1;
		R->fresh[nj].retracted = q->retracted;
		R->fresh[nj].arrival = q->arrival;
		R->fresh[nj++].idx = sys[k];
	}
	if (nj > 1)
		qsort(R->fresh, (size_t)nj, sizeof(*R->fresh), cmp_cand);
	while (a < nk || b < nj)
		R->merged[n++] = b >= nj || (a < nk && cmp_cand(&R->order[a], &R->fresh[b]) < 0)
				 ? R->order[a++] : R->fresh[b++];
	c = R->order;
	R->order = R->merged;
	R->merged = c;
	k = R->caporder;
	R->caporder = R->capmerged;
	R->capmerged = k;
	return R->norder = n;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct serve_request *x = a, *y = b;
	return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

/* The requests of an open-loop run, in arrival order. */
static int open_requests(const struct serve_params *p, struct run *R, struct plumb_err *err)
{
	int n, i;
	if (p->ntrace > 0) {
		struct serve_request *t = malloc((size_t)p->ntrace * sizeof(*t));
		if (!t)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		memcpy(t, p->trace, (size_t)p->ntrace * sizeof(*t));
		qsort(t, (size_t)p->ntrace, sizeof(*t), cmp_arrival);
		for (i = 0; i < p->ntrace; i++)
			new_req(R, t[i].arrival, t[i].input_len, t[i].output_len, 1);
		free(t);
	} else {
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		double t = 0;
		if (!rng)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		gsl_rng_set(rng, p->seed);
		n = p->prompts > 0 ? p->prompts : 1000;
		for (i = 0; i < n; i++) {
			t += gsl_ran_exponential(rng, 1.0 / p->rate);
			new_req(R, t, in_len(p, i), out_len(p, i), 1);
		}
		gsl_rng_free(rng);
	}
	for (i = 0; i < R->nrq; i++)
		R->rq[i].state = RQ_PENDING;
	return R->oom ? plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory") : 0;
}

/* The context bucket of the j-th step of a pure decode run from contexts
 * summing to ctxsum over active requests, as the step itself computes it. */
static long run_bucket(const struct serve_params *p, double ctxsum, int active, long kv_step,
		       long j)
{
	double cx = ctxsum + (double)(j * (long)active * kv_step);
	return bucketed((long)(cx / active), p->bucket);
}

/*
 * With nw requests waiting, R->order holding them in admission order and the
 * running requests of sys holding kv_used tokens, does the next admission
 * take none? It is the admission's own test on its first candidate (FIFO:
 * when the first does not fit, none is taken), with the reserve summed in
 * the same order. A pure decode step then changes only the running
 * requests: every one holds kv_step more tokens and owes kv_step fewer, so
 * the test's left side grows by (1 - SERVE_RESERVE) x kv_step x running, at
 * least 0.6 tokens, while the rounding of its sums stays far below that:
 * none fits at the next step either, until a request completes, is
 * retracted or arrives. O(requests in sys).
 */
static int admits_none(const struct serve_params *p, const struct run *R, const int *sys,
		       int nsys, int nw, long kv_used)
{
	const struct req *q;
	double reserve = 0;
	long prompt;
	int k;
	if (p->kv_tokens <= 0 || nw < 1)
		return 0;
	for (k = 0; k < nsys; k++)
		if (sys[k] >= 0 && R->rq[sys[k]].state == RQ_RUNNING)
			reserve += SERVE_RESERVE * ((double)R->rq[sys[k]].target - R->rq[sys[k]].generated);
	q = &R->rq[R->order[0].idx];
	prompt = q->input + (q->retracted ? (long)q->generated : 0);
	return kv_used + reserve + prompt + SERVE_RESERVE * (double)q->target > p->kv_tokens ||
	       kv_used + prompt + 1 > p->kv_tokens;
}

int serve_run(const struct serve_params *p, serve_step_fn fn, void *ctx,
	      struct serve_result *r, struct plumb_err *err)
{
	struct seconds sec = { NULL, NULL, -1, 0 };
	struct loop lp;
	struct run R;
	int *slot = NULL;
	int open = p->rate > 0 || p->ntrace > 0;
	int C = open ? 0 : p->concurrency, i, rc = 0, done_measured = 0, want, steps = 0;
	double t = 0, win0 = -1, tokens_win = 0, tpot_sum = 0, ttft_sum = 0, dstep_sum = 0;
	double batch_sum = 0, max_steps = 1e7;
	long kv_step = (long)ceil(p->accept_per_step);     /* KV a full decode step adds */
	int dsteps = 0, completed = 0, ttft_n = 0, next = 0;
	long issued = 0, kv_used = 0, admissions = 0;
	/* Counts a pure decode step leaves for the next (closed loop): its
	 * running requests' contexts summed in slot order as the next step
	 * would sum them, and the waiting ones; fast says they stand. */
	int fast = 0, next_active = 0, next_waiting = 0;
	/* R.order holds the waiting requests sorted while sorted_nw >= 0:
	 * every change to who waits sets it to -1 */
	int sorted_nw = -1;
	double next_ctx = 0;

	memset(r, 0, sizeof(*r));
	memset(&R, 0, sizeof(R));
	if ((!open && C < 1) || p->output_len < 1 || p->input_len < 1 || p->context < 0 ||
	    p->context >= p->input_len || p->accept_per_step < 1)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "serving needs concurrency >= 1, output >= 1 token and a cached context shorter than the input");
	for (i = 0; i < p->ntrace; i++)
		if (!(p->trace[i].arrival >= 0) || p->trace[i].output_len < 1 ||
		    p->trace[i].input_len <= p->context)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "request %d of the trace: arrival >= 0, output >= 1 token and "
					     "an input longer than the cached context (%ld) needed",
					     i + 1, p->context);
	memset(&lp, 0, sizeof(lp));
	lp.fn = fn;
	lp.ctx = ctx;
	if (p->spread < 0 || p->spread > 1 || p->prompts < 0 || p->cached_prompts < 0 || p->kv_tokens < 0 ||
	    p->range_ratio > 1 || !(p->frontend_s >= 0)) {
		rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				   "output spread must be in [0, 1], prompts, the KV budget and the front-end time at least 0");
		goto out;
	}
	want = p->requests > 0 ? p->requests : 2 * C;
	if (open) {
		if ((rc = open_requests(p, &R, err)) < 0)
			goto out;
		want = R.nrq;
		win0 = 0;
		/* every token a step of its own, every prompt token a chunk:
		 * four times that is a run that goes nowhere */
		for (i = 0, max_steps = 0; i < R.nrq; i++)
			max_steps += 4.0 * ((double)R.rq[i].target + R.rq[i].input + 2);
		max_steps = fmax(max_steps, 1e7);
	} else {
		if (p->prompts > 0) {
			/* A benchmark run: everything is measured from time 0. */
			want = p->prompts;
			win0 = 0;
		}
		max_steps = fmax(1e7, 4.0 * (want + C) *
				      ((double)p->output_len * 2 + (double)p->input_len + 2));
		if (!(slot = malloc((size_t)C * sizeof(*slot))))
			goto oom;
		for (i = 0; i < C; i++) {
			slot[i] = -1;
			if (p->prompts > 0 && issued >= p->prompts)
				continue;
			slot[i] = new_req(&R, 0, in_len(p, issued), out_len(p, issued), p->prompts > 0);
			issued++;
		}
		if (R.oom)
			goto oom;
	}

	/* Closed loop: all clients issue at time 0; the window opens when the
	 * first round of requests has completed (warm-up) and closes after
	 * `want` more. Open loop: until every request is done. The requests in
	 * the system are visited in a fixed order: the clients' slots, or the
	 * arrival order. */
	while (done_measured < want) {
		int waiting = 0, active = 0, prefilling = 0, nsys, k, nw, admit = 0, *sys;
		double ctxsum_run = 0;  /* the running requests' contexts, in slot order */
		double dt, reserve = 0, ctxsum_pf = 0;
		long newsum = 0, budget;
		int np, mixed;
		struct serve_shape shp;
		int retracted = 0;

		if (open) {
			/* With a concurrency cap (bench_serving's
			 * --max-concurrency) a request is sent when a slot is
			 * free, and its times count from then. */
			while (next < R.nrq && R.rq[next].arrival <= t &&
			       (p->concurrency < 1 || R.nlive < p->concurrency)) {
				if (serve_grow((void **)&R.live, &R.caplive, R.nlive + 1, sizeof(int)) < 0)
					goto oom;
				R.rq[next].state = RQ_WAITING;
				sorted_nw = -1;
				fast = 0;       /* one more waits */
				R.rq[next].arrival = t > R.rq[next].arrival ? t : R.rq[next].arrival;
				R.live[R.nlive++] = next++;
			}
			if (R.nlive == 0) {
				t = R.rq[next].arrival;         /* idle until the next arrival */
				continue;
			}
			sys = R.live;
			nsys = R.nlive;
		} else {
			sys = slot;
			nsys = C;
		}
		if (fast) {
			active = next_active;
			waiting = next_waiting;
			ctxsum_run = next_ctx;
		}
		for (k = 0; !fast && k < nsys; k++) {
			if (sys[k] < 0)
				continue;
			waiting += R.rq[sys[k]].state == RQ_WAITING;
			prefilling += R.rq[sys[k]].state == RQ_PREFILL;
			if (R.rq[sys[k]].state == RQ_RUNNING) {
				active++;
				ctxsum_run += R.rq[sys[k]].input + R.rq[sys[k]].generated;
			}
		}
		/* A run of pure decode steps: the last step was one (fast),
		 * nothing prefills, nothing that waits can be admitted (see
		 * admits_none), and each step adds the same whole number of
		 * tokens to every running request. Until the first of them
		 * completes, the KV budget would retract one or (open loop) a
		 * request arrives, the steps are taken here, each with its
		 * shape, time, gap and counts, and the requests' own updates are
		 * summed once at the end. Every sum involved holds whole
		 * numbers, exact in any order, so this is the arithmetic of the
		 * steps taken one by one. */
		if (fast && !prefilling && active > 0 && (double)kv_step == p->accept_per_step &&
		    (!waiting || (sorted_nw == waiting &&
				  admits_none(p, &R, sys, nsys, waiting, kv_used)))) {
			long left = -1, nblk, j, room;
			double nmeas = 0;
			if (waiting > r->max_waiting)
				r->max_waiting = waiting;     /* as each step would leave it */
			for (k = 0; k < nsys; k++) {
				const struct req *q;
				long rem;
				if (sys[k] < 0 || R.rq[sys[k]].state != RQ_RUNNING)
					continue;
				q = &R.rq[sys[k]];
				rem = (long)((double)q->target - q->generated);
				if (left < 0 || rem < left)
					left = rem;
				nmeas += q->measured;
			}
			/* steps j = 1.. with generated + j x kv_step < target */
			nblk = left > 0 ? (left - 1) / kv_step : 0;
			if (p->kv_tokens > 0 && active > 1) {
				room = p->kv_tokens - (long)ceil(active * p->accept_per_step) - kv_used;
				if (room < 0)
					nblk = 0;
				else if (room / ((long)active * kv_step) + 1 < nblk)
					nblk = room / ((long)active * kv_step) + 1;
			}
			if (nblk > (long)(max_steps - steps))
				nblk = (long)(max_steps - steps);
			if (nblk >= 2) {
				/* segments of one shape: the context bucket moves
				 * every bucket / kv_step steps */
				double step_tokens = (double)active * p->accept_per_step;
				for (j = 0; j < nblk;) {
					long ctx0 = run_bucket(p, ctxsum_run, active, kv_step, j), lo, hi, n;
					double t0 = t;
					/* the segment: j .. j + n - 1, the last of that bucket */
					for (lo = j, hi = nblk - 1; lo < hi;) {
						long mid = lo + (hi - lo + 1) / 2;
						if (run_bucket(p, ctxsum_run, active, kv_step, mid) == ctx0)
							lo = mid;
						else
							hi = mid - 1;
					}
					n = lo - j + 1;
					memset(&shp, 0, sizeof(shp));
					shp.kind = SERVE_DECODE;
					shp.batch = active;
					shp.context = ctx0;
					shp.tokens = 1;
					if ((rc = serve_step_time(&lp, &shp, &dt, err)) < 0)
						goto out;
					if (open && next < R.nrq && (p->concurrency < 1 || R.nlive < p->concurrency) &&
					    serve_add_n(t, dt, n) >= R.rq[next].arrival) {
						/* it is sent before the step after the first
						 * that ends at or past its arrival */
						long a = 1, z = n;
						while (a < z) {
							long mid = a + (z - a) / 2;
							if (serve_add_n(t, dt, mid) >= R.rq[next].arrival)
								z = mid;
							else
								a = mid + 1;
						}
						n = a;
						nblk = j + n;
					}
					t = serve_clock_run(&R, t, dt, n, nmeas);
					if (win0 >= 0) {
						dstep_sum = serve_add_n(dstep_sum, dt, n);
						batch_sum = serve_add_n(batch_sum, active, n);
						dsteps += (int)n;
						tokens_win = serve_add_n(tokens_win, step_tokens, n);
					}
					kv_used += n * (long)active * kv_step;
					if (serve_seconds_run(&sec, t0, dt, n, step_tokens) < 0)
						goto oom;
					if (R.oom)
						goto oom;
					if (kv_used > r->kv_peak)
						r->kv_peak = kv_used;
					steps += (int)n;
					j += n;
				}
				next_ctx = 0;
				for (k = 0; k < nsys; k++) {
					struct req *q;
					if (sys[k] < 0 || R.rq[sys[k]].state != RQ_RUNNING)
						continue;
					q = &R.rq[sys[k]];
					q->generated += (double)(nblk * kv_step);
					q->kv += nblk * kv_step;
					q->last = t;
					next_ctx += q->input + q->generated;
				}
				next_active = active;
				next_waiting = waiting;
				continue;       /* fast still holds */
			}
		}
		/* Admission while the prompts fit the KV budget: retracted
		 * requests first, then by arrival (FIFO). */
		if (serve_grow((void **)&R.order, &R.caporder, waiting, sizeof(*R.order)) < 0)
			goto oom;
		if (sorted_nw >= 0 && sorted_nw == waiting) {
			nw = sorted_nw;         /* the same requests wait: the same order */
		} else {
			if (p->kv_tokens > 0) {
				if ((nw = order_rebuild(&R, sys, nsys, waiting)) < 0)
					goto oom;
			} else {
				/* no KV budget: every waiting request is admitted, in
				 * slot order */
				for (k = 0, nw = 0; waiting && k < nsys; k++)
					if (sys[k] >= 0 && R.rq[sys[k]].state == RQ_WAITING) {
						R.order[nw].retracted = R.rq[sys[k]].retracted;
						R.order[nw].arrival = R.rq[sys[k]].arrival;
						R.order[nw++].idx = sys[k];
					}
			}
			sorted_nw = nw;
		}
		/* Room the running requests will still take: the scheduler
		 * keeps SERVE_RESERVE of each one's remaining output free, as
		 * SGLang's new_token_ratio does, so that admissions do not
		 * retract each other at once. */
		if (p->kv_tokens > 0 && nw > 0) {
			reserve = 0;
			for (k = 0; k < nsys; k++)
				if (sys[k] >= 0 && R.rq[sys[k]].state == RQ_RUNNING)
					reserve += SERVE_RESERVE *
						   ((double)R.rq[sys[k]].target - R.rq[sys[k]].generated);
		}
		for (k = 0; k < nw; k++) {
			struct req *q = &R.rq[R.order[k].idx];
			long prompt = q->input + (q->retracted ? (long)q->generated : 0);
			if (p->kv_tokens > 0 && admit + active > 0 &&
			    kv_used + reserve + prompt + SERVE_RESERVE * (double)q->target > p->kv_tokens)
				break;
			if (p->kv_tokens > 0 && kv_used + prompt + 1 > p->kv_tokens)
				break;
			reserve += SERVE_RESERVE * ((double)q->target - q->generated);
			q->state = RQ_PREFILL;
			q->queued = 0;
			q->kv = prompt;
			q->todo = prompt - p->context;
			/* A prompt whole in the prefix cache (not a retracted
			 * one, whose output is new) computes its last token
			 * only, for its logits (SGLang's radix cache keeps at
			 * least one token to prefill). */
			if (p->prompts > 0 && R.order[k].idx < p->cached_prompts && !q->retracted &&
			    q->todo > 1)
				q->todo = 1;
			kv_used += prompt;
			admit++;
			sorted_nw = -1;
		}
		/* This step's prefill: every admitted prompt, or with a token
		 * budget (chunked prefill) the first ones' chunks in order; a
		 * prompt cut short goes on in the next step. */
		budget = p->chunk_tokens > 0 ? p->chunk_tokens : -1;
		if (p->max_batched > 0) {
			/* the running requests' decode tokens come first */
			long left = p->max_batched -
				    (long)active * (p->decode_tokens > 1 ? p->decode_tokens : 1);
			budget = budget < 0 || left < budget ? left : budget;
			if (budget < 1)
				budget = 0;
		}
		for (k = 0, np = 0; (admit || prefilling) && k < nsys; k++) {
			struct req *q;
			long take;
			if (sys[k] < 0 || R.rq[sys[k]].state != RQ_PREFILL)
				continue;
			q = &R.rq[sys[k]];
			take = q->todo < 1 ? 1 : q->todo;
			if (budget >= 0 && take > budget - newsum)
				take = budget - newsum;
			q->chunk = take > 0 ? take : 0;
			if (!q->chunk)
				continue;
			ctxsum_pf += (double)(q->kv - q->todo);
			newsum += take;
			np++;
		}
		if (waiting - admit > r->max_waiting)
			r->max_waiting = waiting - admit;     /* left in the queue */
		if (waiting && !np && !active) {
			rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					   "a request of %ld tokens does not fit the KV cache (%ld tokens)",
					   R.rq[R.order[0].idx].input, p->kv_tokens);
			goto out;
		}
		/* One pass: the prefill chunks, the running requests' decode
		 * tokens, or with a token budget both at once. */
		mixed = np > 0 && p->max_batched > 0 && active > 0;
		memset(&shp, 0, sizeof(shp));
		if (!np || mixed) {
			double ctxsum = ctxsum_run;
			/* Decoding past the KV budget: retract the newest. */
			while (p->kv_tokens > 0 && active > 1 &&
			       kv_used + (long)ceil(active * p->accept_per_step) > p->kv_tokens) {
				int newest = -1;
				for (k = 0; k < nsys; k++)
					if (sys[k] >= 0 && R.rq[sys[k]].state == RQ_RUNNING &&
					    (newest < 0 || R.rq[sys[k]].admitted > R.rq[newest].admitted))
						newest = sys[k];
				R.rq[newest].state = RQ_WAITING;
				sorted_nw = -1;
				R.rq[newest].retracted = 1;
				kv_used -= R.rq[newest].kv;
				R.rq[newest].kv = 0;
				active--;
				r->preemptions++;
				retracted = 1;
			}
			if (retracted)  /* summed again, in the same order */
				for (k = 0, ctxsum = 0; k < nsys; k++)
					if (sys[k] >= 0 && R.rq[sys[k]].state == RQ_RUNNING)
						ctxsum += R.rq[sys[k]].input + R.rq[sys[k]].generated;
			shp.kind = SERVE_DECODE;
			shp.batch = active;
			shp.context = bucketed((long)(ctxsum / active), p->bucket);
			shp.tokens = 1;
		}
		if (np) {
			long newtok = (newsum + np / 2) / np;
			if (mixed) {
				shp.kind = SERVE_MIXED;
				shp.dbatch = shp.batch;
				shp.dcontext = shp.context;
			} else {
				shp.kind = SERVE_PREFILL;
			}
			shp.batch = np;
			shp.context = (long)(ctxsum_pf / np + 0.5);
			if (mixed)      /* chunks of a long prompt: one per bucket */
				shp.context = bucketed(shp.context, p->bucket);
			shp.tokens = newtok < 1 ? 1 : newtok;
		}
		if ((rc = serve_step_time(&lp, &shp, &dt, err)) < 0)
			goto out;
		t += dt;
		fast = !np && !admit && !prefilling && !retracted;
		next_active = 0;
		next_waiting = waiting;
		next_ctx = 0;
		if (!np || mixed) {
			double step_tokens = 0;
			if (win0 >= 0) {
				dstep_sum += dt;
				batch_sum += active;
				dsteps++;
			}
			for (k = 0; k < nsys; k++) {
				double add = p->accept_per_step;
				long kv_add = kv_step;
				struct req *q;
				if (sys[k] < 0 || R.rq[sys[k]].state != RQ_RUNNING)
					continue;
				q = &R.rq[sys[k]];
				if (q->generated + add > (double)q->target) {
					add = (double)q->target - q->generated;
					kv_add = (long)ceil(add);
				}
				q->generated += add;
				q->kv += kv_add;
				kv_used += kv_add;
				if (q->measured)
					serve_itl_add(&R, t - q->last);
				q->last = t;
				if (win0 >= 0)
					tokens_win += add;
				step_tokens += add;
				if (q->generated < (double)q->target - 1e-9) {
					next_active++;
					next_ctx += q->input + q->generated;
					continue;
				}
				q->state = RQ_DONE;
				kv_used -= q->kv;
				q->kv = 0;
				if (q->measured) {
					done_measured++;
					serve_push(&R, &R.tpot, &R.ntpot, &R.cap2,
					     q->target > 1 ? (t - q->first) / (double)(q->target - 1) : dt);
					if (!R.oom)
						tpot_sum += R.tpot[R.ntpot - 1];
					serve_push(&R, &R.e2e, &R.ne2e, &R.cap3,
						   t - q->arrival + p->frontend_s);
				}
				completed++;
				if (open)
					continue;
				if (win0 < 0 && completed >= C)
					win0 = t;
				/* The client issues its next request. */
				if (p->prompts > 0 && issued >= p->prompts) {
					slot[k] = -1;       /* the benchmark has issued all */
					continue;
				}
				slot[k] = new_req(&R, t, in_len(p, issued), out_len(p, issued), win0 >= 0);
				sorted_nw = -1;
				issued++;
				next_waiting++;
				sys = slot;
			}
			serve_itl_flush(&R);
			if (serve_seconds_span(&sec, t - dt, t, step_tokens) < 0)
				goto oom;
		}
		if (np) {
			double firsts = 0;
			for (k = 0; k < nsys; k++) {
				struct req *q;
				if (sys[k] < 0 || R.rq[sys[k]].state != RQ_PREFILL || !R.rq[sys[k]].chunk)
					continue;
				q = &R.rq[sys[k]];
				q->todo -= q->chunk;
				q->chunk = 0;
				if (q->todo > 0)
					continue;       /* the rest of its prompt next step */
				q->state = RQ_RUNNING;
				q->admitted = ++admissions;
				if (q->retracted) {
					/* Its prefill again yields its next token. */
					if (q->measured)
						serve_itl_add(&R, t - q->last);
					q->generated += 1;
				} else {
					q->first = t;
					q->generated = 1;
					if (q->measured) {
						double ttft = t - q->arrival + p->frontend_s;
						ttft_sum += ttft;
						ttft_n++;
						serve_push(&R, &R.ttft, &R.nttft, &R.cap1, ttft);
					}
				}
				q->last = t;
				q->retracted = 0;
				if (win0 >= 0)
					tokens_win += 1;
				firsts++;
			}
			serve_itl_flush(&R);
			if (serve_seconds_span(&sec, t, t, firsts) < 0)
				goto oom;
		}
		if (R.oom)
			goto oom;
		if (kv_used > r->kv_peak)
			r->kv_peak = kv_used;
		if (open) {
			/* done requests leave the system */
			int n = 0;
			for (k = 0; k < R.nlive; k++)
				if (R.rq[R.live[k]].state != RQ_DONE)
					R.live[n++] = R.live[k];
			R.nlive = n;
		}
		steps++;
		if (steps > max_steps) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					   "serving run did not converge (more than %.0f steps for its %d "
					   "requests)", max_steps, want);
			goto out;
		}
	}
	r->tok_s_total = tokens_win / (t - win0);
	/* A run shorter than a second has no full bucket: its rate is the peak. */
	r->peak_tok_s = t >= 1 ? sec.peak : sec.peak / t;
	r->tpot_ms = tpot_sum / done_measured * 1e3;
	r->ttft_ms = ttft_n ? ttft_sum / ttft_n * 1e3 : 0;
	r->tok_s_stream = r->tpot_ms > 0 ? 1e3 / r->tpot_ms : 0;
	r->decode_step_ms = dsteps ? dstep_sum / dsteps * 1e3 : 0;
	r->mean_batch = dsteps ? batch_sum / dsteps : 0;
	r->steps = steps;
	r->distinct_steps = lp.misses;
	r->completed = completed;
	serve_pcts(R.ttft, R.nttft, r->ttft_p, NULL);
	serve_pcts(R.tpot, R.ntpot, r->tpot_p, NULL);
	serve_pcts(R.e2e, R.ne2e, r->e2e_p, &r->e2e_ms);
	serve_itl_pcts(&R, r->itl_p, &r->itl_ms);
	goto out;
oom:
	rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
out:
	free(sec.tok);
	free(sec.which);
	free(lp.memo);
	free(slot);
	free(R.rq);
	free(R.live);
	free(R.order);
	free(R.fresh);
	free(R.merged);
	free(R.ttft);
	free(R.tpot);
	free(R.e2e);
	free(R.itl);
	return rc;
}
