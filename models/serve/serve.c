/*
 * serve.c - the closed-loop serving run (serve.h).
 */
#include "serve.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Step-time memo: open addressing over a power-of-two table, kept at most
 * half full, doubled when it would fill further; no cap on entries. The key
 * is every argument of the step callback (the callback's ctx is fixed for a
 * run), so two steps share an entry only when the callback would be asked
 * the same question. */
#define SERVE_MEMO_MIN 64

struct memo {
	int used;
	int kind, batch;
	long context, tokens;
	double seconds;
};

struct client {
	int decoding;           /* 0: waiting for prefill */
	double issued, first;   /* times */
	double generated;       /* tokens so far (fractional with drafts) */
	long target;            /* this request's output length */
	int measured;           /* issued inside the measured window */
	int idle;               /* benchmark run: no request left to issue */
};

struct loop {
	serve_step_fn fn;
	void *ctx;
	struct memo *memo;      /* nslots entries, NULL until the first step */
	size_t nslots, nmemo;
	int misses;
};

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
}

/* Output length of the j-th request: golden-ratio sequence over the spread. */
static long out_len(const struct serve_params *p, long j)
{
	double u = fmod(0.5 + (double)j * 0.6180339887498949, 1.0);
	double len = (double)p->output_len * (1.0 - p->spread + 2.0 * p->spread * u);
	long l = (long)(len + 0.5);
	return l < 1 ? 1 : l;
}

static size_t memo_hash(int kind, int batch, long context, long tokens)
{
	uint64_t h = 0x9e3779b97f4a7c15u;
	h = (h ^ (uint64_t)(unsigned)kind) * 0xff51afd7ed558ccdu;
	h = (h ^ (uint64_t)(unsigned)batch) * 0xff51afd7ed558ccdu;
	h = (h ^ (uint64_t)context) * 0xc4ceb9fe1a85ec53u;
	h = (h ^ (uint64_t)tokens) * 0xc4ceb9fe1a85ec53u;
	return (size_t)(h ^ (h >> 33));
}

/* The slot holding the key, or the empty slot where it would go. */
static struct memo *memo_slot(struct memo *t, size_t nslots, int kind, int batch,
			      long context, long tokens)
{
	size_t i = memo_hash(kind, batch, context, tokens) & (nslots - 1);
	for (;; i = (i + 1) & (nslots - 1)) {
		struct memo *m = &t[i];
		if (!m->used || (m->kind == kind && m->batch == batch && m->context == context &&
				 m->tokens == tokens))
			return m;
	}
}

/* Room for one more entry, keeping the table at most half full. */
static int memo_grow(struct loop *lp, struct plumb_err *err)
{
	size_t n = lp->nslots ? 2 * lp->nslots : SERVE_MEMO_MIN, i;
	struct memo *t;
	if (2 * (lp->nmemo + 1) <= lp->nslots)
		return 0;
	t = calloc(n, sizeof(*t));
	if (!t)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < lp->nslots; i++)
		if (lp->memo[i].used) {
			const struct memo *o = &lp->memo[i];
			*memo_slot(t, n, o->kind, o->batch, o->context, o->tokens) = *o;
		}
	free(lp->memo);
	lp->memo = t;
	lp->nslots = n;
	return 0;
}

static int step_time(struct loop *lp, enum serve_step kind, int batch, long context,
		     long tokens, double *s, struct plumb_err *err)
{
	struct memo *m;
	int rc;
	if (lp->nslots) {
		m = memo_slot(lp->memo, lp->nslots, (int)kind, batch, context, tokens);
		if (m->used) {
			*s = m->seconds;
			return 0;
		}
	}
	if ((rc = lp->fn(lp->ctx, kind, batch, context, tokens, s, err)) < 0)
		return rc;
	lp->misses++;
	if ((rc = memo_grow(lp, err)) < 0)
		return rc;
	m = memo_slot(lp->memo, lp->nslots, (int)kind, batch, context, tokens);
	m->used = 1;
	m->kind = (int)kind;
	m->batch = batch;
	m->context = context;
	m->tokens = tokens;
	m->seconds = *s;
	lp->nmemo++;
	return 0;
}

/* Middle of the bucket holding ctx (the step is simulated there). */
static long bucketed(long ctx, long bucket)
{
	if (bucket <= 1)
		return ctx;
	return (ctx / bucket) * bucket + bucket / 2;
}

/* Output tokens per second of run time, for the peak: one-second buckets
 * from the first request, as bench_serving counts them. A decode step's
 * tokens are spread over the buckets its duration covers (bench_serving
 * counts each token in the second it arrives; spreading them keeps the
 * peak a continuous function of step times, which a fit needs, and is the
 * same count on average); a prefill's first tokens land at its end. */
struct seconds {
	double *tok;
	long cap;
	double peak;
};

static int seconds_add(struct seconds *s, long b, double tokens)
{
	if (b >= s->cap) {
		long ncap = s->cap ? s->cap : 64;
		double *nt;
		while (ncap <= b)
			ncap *= 2;
		if (!(nt = realloc(s->tok, (size_t)ncap * sizeof(*nt))))
			return -1;
		memset(nt + s->cap, 0, (size_t)(ncap - s->cap) * sizeof(*nt));
		s->tok = nt;
		s->cap = ncap;
	}
	s->tok[b] += tokens;
	if (s->tok[b] > s->peak)
		s->peak = s->tok[b];
	return 0;
}

/* tokens produced evenly over [t0, t1] (a point at t1 when t1 <= t0) */
static int seconds_span(struct seconds *s, double t0, double t1, double tokens)
{
	long b;
	if (!(t1 > t0))
		return seconds_add(s, (long)t1, tokens);
	for (b = (long)t0; b <= (long)t1; b++) {
		double lo = fmax(t0, (double)b), hi = fmin(t1, (double)b + 1);
		if (hi > lo && seconds_add(s, b, tokens * (hi - lo) / (t1 - t0)) < 0)
			return -1;
	}
	return 0;
}

int serve_run(const struct serve_params *p, serve_step_fn fn, void *ctx,
	      struct serve_result *r, struct plumb_err *err)
{
	struct seconds sec = { NULL, 0, 0 };
	struct loop lp;
	struct client *cl;
	int C = p->concurrency, i, rc = 0, done_measured = 0, want, steps = 0;
	long newtok = p->input_len - p->context;
	double t = 0, win0 = -1, tokens_win = 0, tpot_sum = 0, ttft_sum = 0, dstep_sum = 0;
	double batch_sum = 0;
	int dsteps = 0, completed = 0, ttft_n = 0;
	long issued = 0;

	memset(r, 0, sizeof(*r));
	if (C < 1 || p->output_len < 1 || p->input_len < 1 || p->context < 0 ||
	    p->context >= p->input_len || p->accept_per_step < 1)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "serving needs concurrency >= 1, output >= 1 token and a cached context shorter than the input");
	if (newtok < 1)
		newtok = 1;
	want = p->requests > 0 ? p->requests : 2 * C;
	cl = calloc((size_t)C, sizeof(*cl));
	if (!cl)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	memset(&lp, 0, sizeof(lp));
	lp.fn = fn;
	lp.ctx = ctx;
	if (p->spread < 0 || p->spread > 1 || p->prompts < 0) {
		rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				   "output spread must be in [0, 1] and prompts at least 0");
		goto out;
	}
	if (p->prompts > 0) {
		/* A benchmark run: everything is measured from time 0. */
		want = p->prompts;
		win0 = 0;
	}
	for (i = 0; i < C; i++) {
		if (p->prompts > 0 && issued >= p->prompts) {
			cl[i].idle = 1;
			continue;
		}
		cl[i].measured = p->prompts > 0;
		cl[i].target = out_len(p, issued++);
	}

	/* All clients issue at time 0; the window opens when the first round
	 * of requests has completed (warm-up) and closes after `want` more. */
	while (done_measured < want) {
		int waiting = 0, active = 0;
		double dt, firsts = 0, step_tokens = 0;
		for (i = 0; i < C; i++) {
			waiting += !cl[i].decoding && !cl[i].idle;
			active += cl[i].decoding;
		}
		if (waiting) {
			if ((rc = step_time(&lp, SERVE_PREFILL, waiting, p->context, newtok, &dt, err)) < 0)
				goto out;
			t += dt;
			for (i = 0; i < C; i++)
				if (!cl[i].decoding && !cl[i].idle) {
					cl[i].decoding = 1;
					cl[i].first = t;
					cl[i].generated = 1;
					if (cl[i].measured) {
						ttft_sum += t - cl[i].issued;
						ttft_n++;
					}
					if (win0 >= 0)
						tokens_win += 1;
					firsts++;
				}
			if (seconds_span(&sec, t, t, firsts) < 0)
				goto oom;
		} else {
			double ctxsum = 0;
			long cx;
			for (i = 0; i < C; i++)
				if (cl[i].decoding)
					ctxsum += p->input_len + cl[i].generated;
			cx = bucketed((long)(ctxsum / active), p->bucket);
			if ((rc = step_time(&lp, SERVE_DECODE, active, cx, 1, &dt, err)) < 0)
				goto out;
			t += dt;
			if (win0 >= 0) {
				dstep_sum += dt;
				batch_sum += active;
				dsteps++;
			}
			for (i = 0; i < C; i++) {
				double add = p->accept_per_step;
				if (!cl[i].decoding)
					continue;
				if (cl[i].generated + add > (double)cl[i].target)
					add = (double)cl[i].target - cl[i].generated;
				cl[i].generated += add;
				if (win0 >= 0)
					tokens_win += add;
				step_tokens += add;
				if (cl[i].generated >= (double)cl[i].target - 1e-9) {
					if (cl[i].measured) {
						done_measured++;
						tpot_sum += cl[i].target > 1 ? (t - cl[i].first) / (double)(cl[i].target - 1)
									     : dt;
					}
					completed++;
					if (win0 < 0 && completed >= C)
						win0 = t;
					cl[i].decoding = 0;
					cl[i].issued = t;
					cl[i].generated = 0;
					cl[i].measured = win0 >= 0;
					if (p->prompts > 0 && issued >= p->prompts) {
						cl[i].idle = 1;     /* the benchmark has issued all */
						continue;
					}
					cl[i].target = out_len(p, issued++);
				}
			}
			if (seconds_span(&sec, t - dt, t, step_tokens) < 0)
				goto oom;
		}
		steps++;
		if (steps > 10000000) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					   "serving run did not converge (more than 10 million steps)");
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
	goto out;
oom:
	rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
out:
	free(sec.tok);
	free(lp.memo);
	free(cl);
	return rc;
}
