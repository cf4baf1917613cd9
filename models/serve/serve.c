/*
 * serve.c - the serving run (serve.h): admission under the KV budget and
 * the step loop. The requests and their lists are in serve_req.c, the
 * step-time memo in serve_memo.c, what a run measures in serve_stats.c.
 *
 * A step visits the running and the prefilling requests only, each list
 * in the order of the clients' slots (arrival order in an open loop), so
 * that every sum a step takes adds the same numbers in the same order as a
 * visit of every slot would: the same bits, at a cost that follows the
 * requests that run rather than the clients.
 */
#include "serve_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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


/* Middle of the bucket holding ctx (the step is simulated there). */
static long bucketed(long ctx, long bucket)
{
	if (bucket <= 1)
		return ctx;
	return (ctx / bucket) * bucket + bucket / 2;
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
 * running requests holding kv_used tokens, does the next admission
 * take none? It is the admission's own test on its first candidate (FIFO:
 * when the first does not fit, none is taken), with the reserve summed in
 * the same order. A pure decode step then changes only the running
 * requests: every one holds kv_step more tokens and owes kv_step fewer, so
 * the test's left side grows by (1 - SERVE_RESERVE) x kv_step x running, at
 * least 0.6 tokens, while the rounding of its sums stays far below that:
 * none fits at the next step either, until a request completes, is
 * retracted or arrives. O(running requests).
 */
static int admits_none(const struct serve_params *p, const struct run *R, int nw, long kv_used)
{
	const struct req *q;
	double reserve = 0;
	long prompt;
	int k;
	if (p->kv_tokens <= 0 || nw < 1)
		return 0;
	for (k = 0; k < R->runq.n; k++)
		reserve += SERVE_RESERVE * ((double)R->rq[R->runq.a[k]].target -
					    R->rq[R->runq.a[k]].generated);
	q = &R->rq[R->order[R->ohead].idx];
	prompt = q->input + (q->retracted ? (long)q->generated : 0);
	return kv_used + reserve + prompt + SERVE_RESERVE * (double)q->target > p->kv_tokens ||
	       kv_used + prompt + 1 > p->kv_tokens;
}

/* The running requests' contexts summed in the step's order. */
static double run_ctxsum(const struct run *R)
{
	double sum = 0;
	int k;
	for (k = 0; k < R->runq.n; k++)
		sum += R->rq[R->runq.a[k]].input + R->rq[R->runq.a[k]].generated;
	return sum;
}

int serve_run(const struct serve_params *p, serve_step_fn fn, void *ctx,
	      struct serve_result *r, struct plumb_err *err)
{
	struct seconds sec = { NULL, NULL, -1, 0 };
	struct loop lp;
	struct run R;
	int open = p->rate > 0 || p->ntrace > 0;
	int C = open ? 0 : p->concurrency, i, rc = 0, done_measured = 0, want, steps = 0;
	double t = 0, win0 = -1, tokens_win = 0, tpot_sum = 0, ttft_sum = 0, dstep_sum = 0;
	double batch_sum = 0, max_steps = 1e7;
	long kv_step = (long)ceil(p->accept_per_step);     /* KV a full decode step adds */
	int dsteps = 0, completed = 0, ttft_n = 0, next = 0;
	long issued = 0, kv_used = 0, admissions = 0;
	/* The running requests' contexts summed in order as the next step
	 * would sum them, left by a pure decode step (closed loop); fast says
	 * it stands. */
	int fast = 0;
	/* Open loop: when the arrivals were last taken in, and how many
	 * requests were in the system from then on (the step just taken) */
	double t_seen = -1;
	int live_seen = 0;
	/* R.order holds the waiting requests sorted while sorted_nw >= 0:
	 * every change to who waits sets it to -1 */
	int sorted_nw = -1;
	double next_ctx = 0;
	/* The measured first tokens of the last step, not yet streamed
	 * (p->host_fn): their requests, their TTFTs from R.ttft[pend_t0] on;
	 * that step's end, time and host time */
	int *pend = NULL, npend = 0, cappend = 0, pend_t0 = 0;
	double pend_end = -1, pend_dt = 0, pend_host = 0;
	/* the tokenizer's time a request, within the whole front end */
	double tok = p->tokenize_s < p->frontend_s ? p->tokenize_s : p->frontend_s;
	/* PLUMB_EXACT_CHUNKS=1: every prefill step at its exact context
	 * (tests/chunk_buckets.sh measures what the buckets move) */
	const char *ev = getenv("PLUMB_EXACT_CHUNKS");
	int exact_chunks = ev && *ev && strcmp(ev, "0") != 0;

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
	lp.host_fn = p->host_fn;
	lp.host_ctx = p->host_ctx;
	if (p->spread < 0 || p->spread > 1 || p->prompts < 0 || p->cached_prompts < 0 || p->kv_tokens < 0 ||
	    p->range_ratio > 1 || !(p->frontend_s >= 0) || !(p->tokenize_s >= 0) ||
	    !(p->tokenize_token_s >= 0)) {
		rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				   "output spread must be in [0, 1], prompts, the KV budget and the front-end and tokenizer times at least 0");
		goto out;
	}
	if ((rc = serve_kvtier_check(p, err)) < 0)
		goto out;
	want = p->requests > 0 ? p->requests : 2 * C;
	if (open) {
		if ((rc = serve_open_requests(p, &R, err)) < 0)
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
		/* client i's requests stand at pos i */
		for (i = 0; i < C && !(p->prompts > 0 && issued >= p->prompts); i++) {
			int qi = serve_new_req(&R, 0, serve_in_len(p, issued), serve_out_len(p, issued),
					       p->prompts > 0, i);
			if (qi >= 0)
				serve_tokenize(&R, qi, tok, p->tokenize_token_s);
			issued++;
		}
		if (R.oom)
			goto oom;
	}

	/* Closed loop: all clients issue at time 0; the window opens when the
	 * first round of requests has completed (warm-up) and closes after
	 * `want` more. Open loop: until every request is done. The requests in
	 * the system are visited in a fixed order: the clients' slots, or the
	 * arrival order (R.runq and R.pfq keep it). */
	while (done_measured < want) {
		int waiting, active, prefilling, k, nw, admit = 0;
		double ctxsum_run;      /* the running requests' contexts, in order */
		double dt, reserve = 0, ctxsum_pf = 0;
		long newsum = 0, budget;
		int np, mixed, n, fresh;
		struct serve_shape shp;
		int retracted = 0;
		int inwin;              /* the step is in the measured window */

		if (open) {
			/* With a concurrency cap (bench_serving's
			 * --max-concurrency) a request is sent when a slot is
			 * free, and its times count from then: at its arrival
			 * if it came during the step just taken (after t_seen)
			 * while that step left a slot free (live_seen requests
			 * held them, and those that came before it took theirs),
			 * else now, when a completion has freed one. */
			int during = live_seen;
			while (next < R.nrq && R.rq[next].arrival <= t &&
			       (p->concurrency < 1 || R.nlive < p->concurrency)) {
				if (R.rq[next].arrival > t_seen &&
				    (p->concurrency < 1 || during < p->concurrency))
					during++;
				else if (t > R.rq[next].arrival)
					R.rq[next].arrival = t;
				serve_tokenize(&R, next, tok, p->tokenize_token_s);
				serve_wait(&R, next++);
				R.nlive++;
				sorted_nw = -1;
				fast = 0;       /* one more waits */
			}
			if (R.oom)
				goto oom;
			t_seen = t;
			live_seen = R.nlive;
			if (R.nlive == 0) {
				t = R.rq[next].arrival;         /* idle until the next arrival */
				continue;
			}
		}
		waiting = R.nwait;
		active = R.runq.n;
		prefilling = R.pfq.n;
		ctxsum_run = fast ? next_ctx : run_ctxsum(&R);
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
		if (fast && !p->stepwise && !prefilling && active > 0 && (double)kv_step == p->accept_per_step &&
		    (!waiting || (sorted_nw == waiting &&
				  admits_none(p, &R, waiting, kv_used)))) {
			long left = -1, nblk, j, room;
			double nmeas = 0;
			if (waiting > r->max_waiting)
				r->max_waiting = waiting;     /* as each step would leave it */
			for (k = 0; k < R.runq.n; k++) {
				const struct req *q = &R.rq[R.runq.a[k]];
				long rem = (long)((double)q->target - q->generated);
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
					long ctx0 = run_bucket(p, ctxsum_run, active, kv_step, j), lo, hi;
					double t0 = t;
					long m;
					/* the segment: j .. j + m - 1, the last of that bucket;
					 * first where the mean context would reach the next
					 * bucket, checked there (run_bucket is monotone in j),
					 * then halving what is left, if anything */
					lo = j;
					hi = nblk - 1;
					if (p->bucket > 1) {
						double end = (double)(ctx0 - p->bucket / 2 + p->bucket) * active;
						double est = floor((end - ctxsum_run) / ((double)active * kv_step));
						long e = est < (double)lo ? lo : est > (double)hi ? hi : (long)est;
						if (run_bucket(p, ctxsum_run, active, kv_step, e) == ctx0) {
							lo = e;
							if (e < hi && run_bucket(p, ctxsum_run, active, kv_step, e + 1) != ctx0)
								hi = e;
						} else {
							hi = e - 1;
							if (run_bucket(p, ctxsum_run, active, kv_step, hi) == ctx0)
								lo = hi;
						}
					}
					while (lo < hi) {
						long mid = lo + (hi - lo + 1) / 2;
						if (run_bucket(p, ctxsum_run, active, kv_step, mid) == ctx0)
							lo = mid;
						else
							hi = mid - 1;
					}
					m = lo - j + 1;
					memset(&shp, 0, sizeof(shp));
					shp.kind = SERVE_DECODE;
					shp.batch = active;
					shp.context = ctx0;
					shp.tokens = 1;
					if ((rc = serve_step_time(&lp, &shp, &dt, err)) < 0)
						goto out;
					if (open && next < R.nrq && (p->concurrency < 1 || R.nlive < p->concurrency) &&
					    serve_add_n(t, dt, m) >= R.rq[next].arrival) {
						/* it is sent before the step after the first
						 * that ends at or past its arrival */
						long a = 1, z = m;
						while (a < z) {
							long mid = a + (z - a) / 2;
							if (serve_add_n(t, dt, mid) >= R.rq[next].arrival)
								z = mid;
							else
								a = mid + 1;
						}
						m = a;
						nblk = j + m;
					}
					t = serve_clock_run(&R, t, dt, m, nmeas);
					if (win0 >= 0) {
						dstep_sum = serve_add_n(dstep_sum, dt, m);
						batch_sum = serve_add_n(batch_sum, active, m);
						dsteps += (int)m;
						tokens_win = serve_add_n(tokens_win, step_tokens, m);
					}
					kv_used += m * (long)active * kv_step;
					if (serve_seconds_run(&sec, t0, dt, m, step_tokens) < 0)
						goto oom;
					if (R.oom)
						goto oom;
					if (kv_used > r->kv_peak)
						r->kv_peak = kv_used;
					steps += (int)m;
					j += m;
				}
				next_ctx = 0;
				for (k = 0; k < R.runq.n; k++) {
					struct req *q = &R.rq[R.runq.a[k]];
					q->generated += (double)(nblk * kv_step);
					q->kv += nblk * kv_step;
					q->last = t;
					next_ctx += q->input + q->generated;
				}
				continue;       /* fast still holds */
			}
		}
		/* Admission while the prompts fit the KV budget: retracted
		 * requests first, then by arrival (FIFO). Without a budget every
		 * waiting request is admitted (the order changes nothing). */
		if (sorted_nw >= 0 && sorted_nw == waiting) {
			nw = sorted_nw;         /* the same requests wait: the same order */
		} else {
			if ((nw = serve_order_rebuild(&R)) < 0)
				goto oom;
			sorted_nw = nw;
		}
		/* Room the running requests will still take: the scheduler
		 * keeps SERVE_RESERVE of each one's remaining output free, as
		 * SGLang's new_token_ratio does, so that admissions do not
		 * retract each other at once. */
		if (p->kv_tokens > 0 && nw > 0) {
			reserve = 0;
			for (k = 0; k < R.runq.n; k++)
				reserve += SERVE_RESERVE * ((double)R.rq[R.runq.a[k]].target -
							    R.rq[R.runq.a[k]].generated);
		}
		for (k = 0; k < nw; k++) {
			int qi = R.order[R.ohead + k].idx;
			struct req *q = &R.rq[qi];
			long prompt = q->input + (q->retracted ? (long)q->generated : 0);
			/* A request sent at the end of the step now ending (a
			 * client's next request after its completion, or one let
			 * through the concurrency cap by it) reaches the
			 * scheduler after the engine has started its next step:
			 * the completion leaves through the detokenizer and the
			 * HTTP server, the client answers, the request comes back
			 * through the tokenizer, while the engine's loop goes on
			 * with the requests it holds (SGLang's event_loop_normal
			 * and event_loop_overlap take new requests at the top of
			 * each iteration, recv_requests; vLLM's EngineCore
			 * _process_input_queue before each step). It joins the
			 * step after; an idle engine takes it at once. Later
			 * candidates came no earlier (FIFO). docs/model-serving.md,
			 * "Layouts, the step and serving". */
			if (!q->retracted && q->arrival >= t && (active > 0 || prefilling > 0))
				break;
			/* Requests sent together reach the scheduler one
			 * tokenizer time apart (serve_tokenize): the SGLang
			 * TokenizerManager, one asyncio loop in one process,
			 * tokenizes each and sends it over ZMQ on its own
			 * (sgl-project/sglang PR 9436: a batch of 50 "split
			 * (e.g., 10 + 40) at the Scheduler"), and the step
			 * starts with what recv_requests found. One that has
			 * not arrived when the step starts waits for the next;
			 * an idle engine waits for the first. */
			if (!q->retracted && q->ready > t) {
				if (active > 0 || prefilling > 0 || admit > 0)
					break;
				t = q->ready;
			}
			if (p->kv_tokens > 0 && admit + active > 0 &&
			    kv_used + reserve + prompt + SERVE_RESERVE * (double)q->target > p->kv_tokens)
				break;
			if (p->kv_tokens > 0 && kv_used + prompt + 1 > p->kv_tokens)
				break;
			reserve += SERVE_RESERVE * ((double)q->target - q->generated);
			q->state = RQ_PREFILL;
			q->chunks = 0;
			q->queued = 0;
			q->kv = prompt;
			q->todo = prompt - p->context;
			q->todo -= serve_kvtier_admit(p, &R, q, qi, r);
			/* A prompt whole in the prefix cache (not a retracted
			 * one, whose output is new) computes its last token
			 * only, for its logits (SGLang's radix cache keeps at
			 * least one token to prefill). */
			if (p->prompts > 0 && qi < p->cached_prompts && !q->retracted && q->todo > 1)
				q->todo = 1;
			kv_used += prompt;
			admit++;
			R.nwait--;
			if (serve_list_insert(&R, &R.pfq, qi) < 0)
				goto oom;
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
		for (k = 0, np = 0, fresh = 0; k < R.pfq.n; k++) {
			struct req *q = &R.rq[R.pfq.a[k]];
			long take = q->todo < 1 ? 1 : q->todo;
			if (budget >= 0 && take > budget - newsum)
				take = budget - newsum;
			q->chunk = take > 0 ? take : 0;
			if (!q->chunk)
				continue;
			fresh |= !q->retracted && !q->chunks;
			ctxsum_pf += (double)(q->kv - q->todo);
			newsum += take;
			np++;
		}
		if (waiting - admit > r->max_waiting)
			r->max_waiting = waiting - admit;     /* left in the queue */
		if (waiting && !np && !active) {
			rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					   "a request of %ld tokens does not fit the KV cache (%ld tokens)",
					   R.rq[R.order[R.ohead].idx].input, p->kv_tokens);
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
				for (k = 0; k < R.runq.n; k++)
					if (newest < 0 || R.rq[R.runq.a[k]].admitted > R.rq[newest].admitted)
						newest = R.runq.a[k];
				serve_list_remove(&R, &R.runq, newest);
				R.rq[newest].retracted = 1;
				serve_kvtier_evict(p, &R, &R.rq[newest], r);
				serve_wait(&R, newest);
				if (R.oom)
					goto oom;
				sorted_nw = -1;
				kv_used -= R.rq[newest].kv;
				R.rq[newest].kv = 0;
				active--;
				r->preemptions++;
				retracted = 1;
			}
			if (retracted)  /* summed again, in the same order */
				ctxsum = run_ctxsum(&R);
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
			/* Chunks of a long prompt: one per bucket. A prefill
			 * step also snaps its context to the middle of its
			 * bucket when all it carries are later chunks of
			 * prompts or re-prefills of retracted requests and
			 * the context fills a bucket: a new prompt's first
			 * chunk stays at its exact context (its cached
			 * prefix). docs/model-serving.md, "Prefill chunks". */
			if (mixed || (!fresh && !exact_chunks && shp.context >= p->bucket))
				shp.context = bucketed(shp.context, p->bucket);
			shp.tokens = newtok < 1 ? 1 : newtok;
		}
		if ((rc = serve_step_time(&lp, &shp, &dt, err)) < 0 ||
		    (rc = serve_kvtier_step(p, &R, &shp, &dt, r, err)) < 0)
			goto out;
		/* The first tokens of the step before this one, started at its
		 * end, stream once the host has issued this one too: SGLang's
		 * overlap scheduler launches batch n + 1 before it processes
		 * batch n's results (scheduler.py event_loop_overlap, "Process
		 * the last batch" after "Launch the current batch"). The host
		 * issued the step before in pend_host and this one right after,
		 * while the GPUs ran the step before for pend_dt: the tokens
		 * are late by what that is longer than pend_dt. Only a step
		 * the host issues slowly (an eager prefill) makes them late; an
		 * idle engine (a step that did not start at that end) processes
		 * them at once. docs/model-serving.md, "Layouts, the step and serving". */
		if (npend) {
			double host = 0, late = 0;
			if (t == pend_end) {
				if ((rc = serve_step_host(&lp, &shp, &host, err)) < 0)
					goto out;
				late = pend_host + host - pend_dt;
			}
			for (k = 0; late > 0 && k < npend; k++) {
				/* streamed late: the next gap counts from here */
				R.rq[pend[k]].first += late;
				R.rq[pend[k]].last += late;
				if (pend_t0 + k < R.nttft)
					R.ttft[pend_t0 + k] += late;
				ttft_sum += late;
			}
			npend = 0;
		}
		/* The window is (win0, end]: a step counts, its time and its
		 * tokens, when it starts at or after win0. The step whose
		 * completion opens the window ends at win0 and is outside it,
		 * also the tokens it yields after that completion (later
		 * requests of its batch, prompts it finishes). */
		inwin = win0 >= 0;
		t += dt;
		fast = !np && !admit && !prefilling && !retracted;
		next_ctx = 0;
		if (!np || mixed) {
			double step_tokens = 0;
			if (inwin) {
				dstep_sum += dt;
				batch_sum += active;
				dsteps++;
			}
			for (k = 0, n = 0; k < R.runq.n; k++) {
				double add = p->accept_per_step;
				long kv_add = kv_step;
				int qi = R.runq.a[k];
				long pos;
				struct req *q = &R.rq[qi];
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
				if (inwin)
					tokens_win += add;
				step_tokens += add;
				if (q->generated < (double)q->target - 1e-9) {
					next_ctx += q->input + q->generated;
					R.runq.a[n++] = qi;     /* runs on */
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
						   t - q->arrival + serve_frontend(p, q));
				}
				completed++;
				if (open) {
					R.nlive--;      /* it leaves the system */
					continue;
				}
				if (win0 < 0 && completed >= C)
					win0 = t;
				/* The client issues its next request. */
				if (p->prompts > 0 && issued >= p->prompts)
					continue;   /* the benchmark has issued all */
				pos = q->pos;       /* q moves when the requests grow */
				{
					int ni = serve_new_req(&R, t, serve_in_len(p, issued),
							       serve_out_len(p, issued), win0 >= 0, pos);
					if (ni >= 0)
						serve_tokenize(&R, ni, tok, p->tokenize_token_s);
				}
				sorted_nw = -1;
				issued++;
			}
			R.runq.n = n;
			serve_itl_flush(&R);
			if (serve_seconds_span(&sec, t - dt, t, step_tokens) < 0)
				goto oom;
		}
		if (np) {
			double firsts = 0;
			pend_t0 = R.nttft;
			for (k = 0, n = 0; k < R.pfq.n; k++) {
				int qi = R.pfq.a[k];
				struct req *q = &R.rq[qi];
				if (!q->chunk) {
					R.pfq.a[n++] = qi;
					continue;
				}
				q->todo -= q->chunk;
				q->chunk = 0;
				q->chunks++;
				if (q->todo > 0) {
					R.pfq.a[n++] = qi;
					continue;       /* the rest of its prompt next step */
				}
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
						double ttft = t - q->arrival + serve_frontend(p, q);
						ttft_sum += ttft;
						ttft_n++;
						serve_push(&R, &R.ttft, &R.nttft, &R.cap1, ttft);
						if (p->host_fn) {
							if (serve_grow((void **)&pend, &cappend, npend + 1,
								       sizeof(int)) < 0)
								goto oom;
							pend[npend++] = qi;
						}
					}
				}
				q->last = t;
				q->retracted = 0;
				if (inwin)
					tokens_win += 1;
				firsts++;
				if (serve_list_insert(&R, &R.runq, qi) < 0)
					goto oom;
			}
			R.pfq.n = n;
			serve_itl_flush(&R);
			if (serve_seconds_span(&sec, t, t, firsts) < 0)
				goto oom;
			if (npend) {
				if ((rc = serve_step_host(&lp, &shp, &pend_host, err)) < 0)
					goto out;
				pend_end = t;
				pend_dt = dt;
			}
		}
		if (R.oom)
			goto oom;
		if (kv_used > r->kv_peak)
			r->kv_peak = kv_used;
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
	free(R.rq);
	free(R.runq.a);
	free(R.pfq.a);
	free(R.joined.a);
	free(R.order);
	free(R.fresh);
	free(R.merged);
	free(R.ttft);
	free(R.tpot);
	free(R.e2e);
	free(R.itl);
	free(pend);
	return rc;
}

/* The lengths of request j as a run draws them (disagg.c draws the same). */
long serve_req_input(const struct serve_params *p, long j)
{
	return serve_in_len(p, j);
}

long serve_req_output(const struct serve_params *p, long j)
{
	return serve_out_len(p, j);
}
