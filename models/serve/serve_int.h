/*
 * serve_int.h - what the files of the serving run share (serve.c: the step
 * loop; serve_req.c: the requests, their lists by state and the admission
 * order; serve_memo.c: the step-time memo; serve_stats.c: latency
 * distributions and the per-second peak).
 */
#ifndef PLUMB_SERVE_INT_H
#define PLUMB_SERVE_INT_H

#include "serve.h"

#include <stddef.h>

/* Step-time memo: open addressing over a power-of-two table, kept at most
 * half full, doubled when it would fill further; no cap on entries. The key
 * is every argument of the step callback (the callback's ctx is fixed for a
 * run), so two steps share an entry only when the callback would be asked
 * the same question. */
#define SERVE_MEMO_MIN 64
/* Share of a running request's remaining output kept free at admission.
 * SGLang's new_token_ratio starts at 0.7 and decays to 0.1 while nothing is
 * retracted; the middle. */
#define SERVE_RESERVE 0.4

struct memo {
	int used;
	int has_host;           /* host holds the host's time */
	struct serve_shape sh;
	double seconds, host;
};

/* pending: not arrived yet; waiting: for admission; prefill: admitted to
 * this step's prefill */
enum { RQ_PENDING, RQ_WAITING, RQ_PREFILL, RQ_RUNNING, RQ_DONE };

struct req {
	double arrival, first, last;    /* times: issued, first token, last token */
	double ready;           /* when the scheduler can take it (serve_tokenize) */
	double generated;       /* tokens so far (fractional with drafts) */
	long input, target;     /* prompt and output lengths */
	long kv;                /* KV tokens it holds while running */
	long todo, chunk;       /* prompt tokens left to prefill; this step's share */
	long admitted;          /* admission order (retraction takes the newest) */
	int state, measured, retracted;
	int chunks;             /* prefill chunks of its prompt taken since admission */
	int queued;             /* in the run's admission order (struct run) */
	long offloaded;         /* KV tokens it holds in host memory (kvtier.c) */
	long pos;               /* its place in the order the step visits the
				   requests: its client's slot (closed loop), its
				   index (open loop, arrival order) */
};

/* An admission candidate: retracted ones first, then by arrival. */
struct cand {
	int retracted, idx;
	double arrival;
};

/* Request indices, by pos unless said otherwise. */
struct rlist {
	int *a;
	int n, cap;
};

/* A value and how many times it occurs, for the ITL distribution. */
struct wv {
	double v, w;
};

/* Growable arrays of the run. */
struct run {
	struct req *rq;
	int nrq, caprq;
	int nlive;                      /* open loop: arrived, not done */
	double tok_free;                /* when the tokenizer takes the next request */
	/* The requests by state, so that a step costs what it runs, not the
	 * clients: running and prefilling ones by pos (the order every sum of
	 * a step takes, so the bits are those of a visit of every slot), and
	 * the ones that started waiting since the last admission order. */
	struct rlist runq, pfq, joined;
	int nwait;                      /* requests waiting */
	struct cand *order;             /* admission candidates, from ohead */
	int caporder, norder, ohead;    /* norder: the end of the last build */
	struct cand *fresh, *merged;    /* its rebuild's scratch */
	int capfresh, capmerged;
	double *ttft, *tpot, *e2e;      /* per measured request, seconds */
	int nttft, ntpot, ne2e, cap1, cap2, cap3;
	struct wv *itl;
	int nitl, capitl;
	struct wv stepitl[8];           /* this step's, merged by value */
	int nstep;
	int oom;
	long host_used;                 /* KV tokens in host memory (kvtier.c) */
	long io_out, io_in;             /* KV tokens this step moves out and in */
};

struct loop {
	serve_step_fn fn;
	serve_host_fn host_fn;  /* NULL: host times not asked for */
	void *ctx;
	const void *host_ctx;
	struct memo *memo;      /* nslots entries, NULL until the first step */
	size_t nslots, nmemo;
	int misses;
};

/* Output tokens per second of run time, for the peak: one-second buckets
 * from the first request, as bench_serving counts them. A decode step's
 * tokens are spread over the buckets its duration covers (bench_serving
 * counts each token in the second it arrives; spreading them keeps the
 * peak a continuous function of step times, which a fit needs, and is the
 * same count on average); a prefill's first tokens land at its end. */
/* The buckets live in a ring of SERVE_SEC_RING seconds behind the latest:
 * steps run in time order and none lasts that long, so a bucket that left
 * the ring gets no more tokens, and its count already went into the peak.
 * Memory stays fixed whatever the span of the run (a trace in Unix-epoch
 * seconds, a gap of years, --rate 1e-9). */
#define SERVE_SEC_RING 65536

struct seconds {
	double *tok;            /* [SERVE_SEC_RING], bucket b at b % SERVE_SEC_RING */
	long *which;            /* [SERVE_SEC_RING]: the bucket a slot holds (a
				   stale one reads as empty, so nothing is cleared) */
	long hi;                /* the latest bucket touched, -1 none */
	double peak;
};

/* A new request, waiting (serve_wait), at pos; its index, or -1 when out
 * of memory (R->oom set). Invalidates pointers into R->rq. */
int serve_new_req(struct run *R, double arrival, long input, long target, int measured,
		  long pos);
/* Request i starts waiting: counted, listed in R->joined. */
void serve_wait(struct run *R, int i);
/* Request i, just sent, goes through the engine's one tokenizer process
 * (tok + per_token x its prompt's length seconds each, in the order
 * sent): it reaches the scheduler at its send time or when the request
 * before it is through, whichever is later. */
void serve_tokenize(struct run *R, int i, double tok, double per_token);
/* Request q's front end, seconds: frontend_s and its prompt's tokenizing
 * (tokenize_token_s a prompt token), added to its TTFT and end-to-end
 * latency. */
static inline double serve_frontend(const struct serve_params *p, const struct req *q)
{
	return p->frontend_s + p->tokenize_token_s * (double)q->input;
}
/* Request i into l at its pos (0, or -1 out of memory: R->oom set); out of
 * l (a no-op when not there). O(n). */
int serve_list_insert(struct run *R, struct rlist *l, int i);
void serve_list_remove(struct run *R, struct rlist *l, int i);
/* Output and input lengths of the j-th request (a golden-ratio sequence
 * over the spread; inputs another low-discrepancy sequence, so inputs and
 * outputs do not move together, longer than the cached part). */
long serve_out_len(const struct serve_params *p, long j);
long serve_in_len(const struct serve_params *p, long j);
/* R->order from R->ohead becomes the waiting requests sorted for
 * admission: retracted first, then by arrival, then by index (a total
 * order); R->joined is emptied. Returns the count, or -1 when out of
 * memory. */
int serve_order_rebuild(struct run *R);
/* The requests of an open-loop run, in arrival order, pending (pos: index). */
int serve_open_requests(const struct serve_params *p, struct run *R, struct plumb_err *err);

/* Append v to a growable array; sets R->oom when memory runs out. */
void serve_push(struct run *R, double **a, int *n, int *cap, double v);
/* One inter-token gap of a measured request, merged with this step's equal
 * ones (the requests of a step mostly share their gap). */
void serve_itl_add(struct run *R, double v);
/* w measured requests with one gap v, in a step with no gap added yet: what
 * w calls of serve_itl_add(R, v) leave. */
void serve_itl_step_w(struct run *R, double v, double w);
/* The step's gaps into the run's list (a run of equal gaps: one entry). */
void serve_itl_flush(struct run *R);
/* Percentiles of n values (sorted in place), linear between ranks as
 * numpy's, in ms, and their mean (mean may be NULL); 0 without values. */
void serve_pcts(double *v, int n, double *out, double *mean);
/* Weighted percentiles and mean of the ITL samples, ms (sorts R->itl). */
void serve_itl_pcts(struct run *R, double *out, double *mean);
/* tokens produced evenly over [t0, t1] (a point at t1 when t1 <= t0); 0 or
 * -1 (out of memory). Calls come in time order. */
int serve_seconds_span(struct seconds *s, double t0, double t1, double tokens);

/* s after n times s += c (s, c >= 0), bit for bit as the loop, in time
 * O(binades s crosses), not O(n). */
double serve_add_n(double s, double c, long n);
/* n steps of dt from clock t: the clock after them, bit for bit as n times
 * t += dt, and the gaps between their ends into the ITL with w measured
 * requests each, as n times serve_itl_step_w and serve_itl_flush would
 * leave them. O(binades). */
double serve_clock_run(struct run *R, double t, double dt, long n, double w);
/* n steps of dt from clock t0, each producing tokens: what n calls of
 * serve_seconds_span(s, t - dt, t, tokens) with t += dt before each leave
 * in the peak and in the buckets later steps can touch. When no bucket of
 * these steps can reach the peak, only the steps at either end are taken
 * one by one; else every one. 0 or -1 (out of memory). */
int serve_seconds_run(struct seconds *s, double t0, double dt, long n, double tokens);

/* Time of the step of shape sh: from the memo, else from the callback
 * (remembered); 0 or the callback's error (or out of memory). */
int serve_step_time(struct loop *lp, const struct serve_shape *sh, double *s,
		    struct plumb_err *err);
/* The host's time to issue the step of shape sh (lp->host_fn; 0 without
 * one), remembered beside its step time: sh's step time must have been
 * asked for first. */
int serve_step_host(struct loop *lp, const struct serve_shape *sh, double *s,
		    struct plumb_err *err);

/* Input and output lengths of the j-th request of a run (serve.c). */
long serve_req_input(const struct serve_params *p, long j);
long serve_req_output(const struct serve_params *p, long j);

/* KV tiers (kvtier.c). At q's admission (idx: its request number): the
 * prompt tokens it need not prefill (its KV back from host memory, or a
 * prefix cache hit), with the moves and counts recorded; q->todo is then
 * to be reduced by it. */
long serve_kvtier_admit(const struct serve_params *p, struct run *R, struct req *q, int idx,
			struct serve_result *r);
/* q is retracted: its KV goes to host memory when the host tier has room. */
void serve_kvtier_evict(const struct serve_params *p, struct run *R, struct req *q,
			struct serve_result *r);
/* The step's KV moves (if any) lengthen *dt; 0 or kv_io's error. */
int serve_kvtier_step(const struct serve_params *p, struct run *R, const struct serve_shape *sh,
		      double *dt, struct serve_result *r, struct plumb_err *err);
/* EINPUT unless the KV tier parameters are in range. */
int serve_kvtier_check(const struct serve_params *p, struct plumb_err *err);
/* Is request idx one whose prefix is cached (the prefix_hit share)? */
int serve_prefix_hit(const struct serve_params *p, long idx);

#endif
