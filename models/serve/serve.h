/*
 * serve.h - a closed-loop serving run, like `sglang.bench_serving` or
 * `vllm bench serve --max-concurrency C`: C clients each keep one request in
 * flight; a request is prefilled (its input tokens, minus the context
 * already cached) and then decoded token by token in a continuously batched
 * decode step shared by every active request.
 *
 * The scheduler alternates as SGLang's does by default: when requests wait
 * for prefill, one prefill step takes all of them; otherwise one decode step
 * advances every active request by one token (plus accepted draft tokens
 * with speculative decoding). Step times come from a callback (the engine
 * simulation of the layout) and are memoised by everything the callback is
 * asked (kind, batch, context bucket, new tokens) in a table that grows as
 * needed, so a run costs a handful of step simulations.
 *
 * Output lengths vary from request to request over [1 - spread, 1 + spread]
 * x output_len (mean output_len) in a fixed low-discrepancy sequence, as a
 * benchmark's random dataset does, so requests finish at different times
 * and prefills spread out instead of arriving in lockstep.
 *
 * With prompts > 0 the run is what a benchmark client measures: exactly that
 * many requests, the clients stop issuing when they are all out, and total
 * tok/s is every output token over the time from the first request to the
 * last completion, so the prefill of the first wave and the drain of the
 * last requests count. Without, the window is the steady state after the
 * first C requests complete.
 *
 * Open loop: with `rate` the requests arrive as a Poisson process (seeded:
 * the same seed gives the same arrivals), with `trace` at the given times
 * with the given lengths; every request is measured, from the first
 * arrival to the last completion. A request that arrives while a step runs
 * waits for its end. One sent at the end of a step (a client's next request
 * at its last one's completion, or one let through the concurrency cap
 * then) misses the step the engine starts at that moment and joins the one
 * after, unless the engine has nothing else to run.
 *
 * With a KV budget (`kv_tokens`) the scheduler admits waiting requests in
 * arrival order while they fit and queues the rest; their wait shows in
 * TTFT. Decoding past the budget retracts the newest running request.
 *
 * Deterministic: identical inputs (and seed) give identical numbers.
 */
#ifndef PLUMB_SERVE_H
#define PLUMB_SERVE_H

#include "err.h"

#include <stddef.h>

enum serve_step { SERVE_DECODE, SERVE_PREFILL, SERVE_MIXED };

/*
 * What one step computes.
 *   decode   `batch` sequences whose KV caches hold `context` tokens on
 *            average once this step's token is written (its prompt and
 *            generated tokens), one token each (plus drafts);
 *   prefill  `batch` requests of `tokens` new tokens each on top of
 *            `context` cached ones;
 *   mixed    one pass carrying both (vLLM's scheduler, SGLang's
 *            --enable-mixed-chunk): the prefill part as above, and
 *            `dbatch` decode sequences at `dcontext`.
 */
struct serve_shape {
	enum serve_step kind;
	int batch;
	long context, tokens;
	int dbatch;             /* mixed: decode sequences riding along */
	long dcontext;          /* mixed: their mean context */
};

/* Time of one step, seconds. */
typedef int (*serve_step_fn)(void *ctx, const struct serve_shape *sh, double *seconds,
			     struct plumb_err *err);

/* The host's time to issue a step of shape sh, seconds: what the engine's
 * one scheduler thread spends launching it (an eager step's kernel
 * launches), not the GPUs' time. */
typedef int (*serve_host_fn)(const void *ctx, const struct serve_shape *sh, double *seconds,
			     struct plumb_err *err);

/* KV tiers (kvtier.c): *extra, the seconds a step of shape sh (step_s
 * alone) lasts longer when it moves tokens_out tokens of KV cache from the
 * GPUs to host memory and tokens_in back. */
typedef int (*serve_kvio_fn)(void *ctx, const struct serve_shape *sh, double step_s,
			     long tokens_out, long tokens_in, double *extra,
			     struct plumb_err *err);

/* A request of an open-loop run: when it arrives and its lengths. */
struct serve_request {
	double arrival;         /* seconds from the start */
	long input_len, output_len;
};

struct serve_params {
	int concurrency;        /* clients (max-concurrency); open loop: the most
				   requests in flight (0: no cap) */
	long input_len;         /* prompt tokens per request */
	long output_len;        /* generated tokens per request */
	long context;           /* tokens of each prompt already in the KV cache */
	int requests;           /* requests measured (after the warm-up ones) */
	double accept_per_step; /* tokens a decode step yields per sequence (>= 1) */
	long bucket;            /* context bucket for memoisation, tokens */
	double spread;          /* output lengths spread over [1-spread, 1+spread] x output_len (0-1) */
	double range_ratio;     /* >= 0: inputs and outputs over [r, 1] x their
				   lengths, as bench_serving's random dataset
				   (--random-range-ratio r); < 0 (default): fixed
				   inputs, outputs by spread */
	int prompts;            /* > 0: a benchmark run of exactly this many requests
				   (bench_serving --num-prompts), measured from the
				   first request to the last completion, ramp-up and
				   drain included; 0: the steady state (default) */
	int cached_prompts;     /* with prompts: the run's first this many prompts
				   are whole in the engine's prefix cache (an earlier
				   benchmark run on the same server sent them: the
				   random dataset draws the same prompts from the same
				   seed), so their prefill computes only the last
				   token over the cached rest; 0 (default): none */
	/* Open loop (instead of the clients): requests arrive on their own. */
	double rate;            /* > 0: Poisson arrivals at this many requests/s,
				   `prompts` of them (default 1000) */
	unsigned long seed;     /* of the Poisson arrivals */
	const struct serve_request *trace;  /* given arrivals and lengths */
	int ntrace;
	/* The engine's KV cache: > 0 admits a waiting request only while the
	 * tokens of the running ones and its prompt fit, queues the rest, and
	 * when decoding would overflow it retracts the newest running request
	 * (its KV freed; prefilled again with what it generated, as vLLM's
	 * recompute preemption and SGLang's retraction do). 0: unlimited. */
	long kv_tokens;
	/* Chunked prefill: > 0 caps the prompt tokens one prefill step takes
	 * (SGLang's --chunked-prefill-size); a longer prompt is prefilled over
	 * several steps. 0: a step takes every admitted prompt whole. */
	long chunk_tokens;
	/* Mixed batches under a token budget: > 0 makes every step take the
	 * running requests' decode tokens first and fill the rest of the
	 * budget with prompt chunks, in one pass (vLLM's
	 * --max-num-batched-tokens with chunked prefill, its default; SGLang
	 * with --enable-mixed-chunk). 0: prefill and decode steps alternate. */
	long max_batched;
	int decode_tokens;      /* a decode sequence's tokens in a step's budget:
				   1 + its draft tokens (0: 1) */
	/* KV tiers (kvtier.c, docs/model-serving.md "KV tiers"). Prefix cache: a
	 * prefix_hit share of the requests (which ones: a fixed
	 * low-discrepancy sequence over the request number) find their first
	 * prefix_len prompt tokens in the cache and prefill only the rest
	 * (at least their last token). 0: no hits. */
	long prefix_len;
	double prefix_hit;
	/* Host tier: > 0 tokens of host memory for offloaded KV. A request
	 * retracted when the GPU cache is full moves its KV there (kv_io,
	 * out) while the host tier has room, and on readmission moves it
	 * back (kv_io, in) and prefills only its last token, instead of
	 * prefilling prompt and output again. The step that moves them
	 * lasts kv_io's extra seconds longer. 0: retracted requests
	 * recompute. */
	long host_kv_tokens;
	serve_kvio_fn kv_io;
	void *kv_io_ctx;
	/* The request's path outside the GPU steps, seconds: the engine's
	 * HTTP server, tokenizer and detokenizer and the client's own
	 * handling. Every request's TTFT and end-to-end latency carry it; the
	 * steps do not (in a closed loop the client's gap of this length
	 * before its next request is left out: under 1% of a request of more
	 * than a few hundred tokens). 0: none. */
	double frontend_s;
	/* The part of frontend_s a request spends in the engine's one
	 * tokenizer process before its scheduler (HTTP parsing, tokenizing,
	 * the hand-off), seconds. That process takes the requests one after
	 * another, so of requests sent within this time of each other each
	 * reaches the scheduler this long after the one before; the engine's
	 * step takes only those that have reached it when it starts. A lone
	 * request reaches it at its send time (the engine's clock counts
	 * from there; its TTFT carries frontend_s whole). At most frontend_s
	 * (more is taken as frontend_s); 0: requests sent together arrive
	 * together. docs/model-serving.md, "Layouts, the step and serving". */
	double tokenize_s;
	/* The tokenizer's time per prompt token, seconds: a request's
	 * tokenizer time is tokenize_s + this x its prompt's length (the
	 * client sends text), and its front end frontend_s + this x its
	 * prompt's length. 0: none (the client sends token ids). */
	double tokenize_token_s;
	/* The engine streams a step's outputs only once it has issued the
	 * next step (SGLang's overlap scheduler, event_loop_overlap: a
	 * batch's results are processed after the next batch is launched):
	 * given, it gives each step's host time (called with host_ctx), and
	 * the first tokens of a prefill step reach their clients when the
	 * host has issued the step after it, if that is later than the
	 * step's end. NULL (default): at the step's end. docs/model-serving.md,
	 * "Layouts, the step and serving". */
	serve_host_fn host_fn;
	const void *host_ctx;
	/* 1: every step taken one by one, never a run of equal decode steps
	 * at once (serve.c); the two give the same bits, which the unit
	 * tests check. 0 (default): runs at once. */
	int stepwise;
};

/* Percentiles reported: p50, p90, p99. */
#define SERVE_NPCT 3
extern const double serve_pct[SERVE_NPCT];
/* The distributions reported, by name: ttft, tpot, itl, e2e. */
#define SERVE_NDIST 4
extern const char *const serve_dist_name[SERVE_NDIST];

struct serve_result {
	double tok_s_total;     /* output tokens per second, all clients */
	double peak_tok_s;      /* most output tokens in one second of the run
				   (1 s buckets from the first request, as
				   bench_serving's "Peak output token throughput") */
	double tok_s_stream;    /* output tokens per second seen by one client */
	double tpot_ms;         /* time per output token after the first */
	double ttft_ms;         /* time to first token */
	double decode_step_ms;  /* mean decode step */
	double mean_batch;      /* mean decode batch */
	int steps;              /* steps simulated in the measured window */
	int distinct_steps;     /* step simulations run (memo misses: distinct keys) */
	/* Distributions over the measured requests (bench_serving's): time to
	 * first token, time per output token after the first, every gap
	 * between two tokens of a request, and end-to-end latency, ms. */
	double ttft_p[SERVE_NPCT], tpot_p[SERVE_NPCT], itl_p[SERVE_NPCT], e2e_p[SERVE_NPCT];
	double itl_ms, e2e_ms;  /* means */
	long kv_peak;           /* most KV tokens held at once */
	int preemptions;        /* retracted requests (KV overflow) */
	int max_waiting;        /* most requests left waiting by an admission */
	int completed;          /* requests finished in the run */
	int prefix_hits;        /* admissions that found their prefix cached */
	int offloads;           /* retracted requests whose KV went to host memory */
	long reload_tokens;     /* KV tokens moved back from host memory */
	double kv_io_s;         /* seconds the steps lasted longer for moving KV to
				   and from the host */
	/* disaggregated runs (disagg.h): each request's KV transfer from its
	 * prefill instance to its decode instance, ms */
	double xfer_ms, xfer_p[SERVE_NPCT];
	double prefill_ms;      /* mean time from arrival to the end of its prefill */
	double link_delay_s;    /* seconds the decode instances' steps lasted
				   longer than alone because transfers shared the
				   links of their collectives (all steps, all
				   decode instances) */
	double pf_link_delay_s; /* the same of the prefill instances' steps */
};

void serve_params_init(struct serve_params *p);

/* Distribution k's percentiles (SERVE_NPCT values, ms) of a result. */
const double *serve_dist(const struct serve_result *r, int k);

/* Run the closed loop; returns 0 or the callback's error. */
int serve_run(const struct serve_params *p, serve_step_fn fn, void *ctx,
	      struct serve_result *r, struct plumb_err *err);

/* Grow *p (of *cap elements of size bytes) to hold need; 0 or -1 (out of
 * memory, *p unchanged). Doubles from 64. The serving run's arrays and
 * those of the runs that drive it (predict_disagg.c) grow by it. */
int serve_grow(void **p, int *cap, int need, size_t size);

#endif
