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
 * Deterministic: no randomness; identical inputs give identical numbers.
 */
#ifndef PLUMB_SERVE_H
#define PLUMB_SERVE_H

#include "err.h"

enum serve_step { SERVE_DECODE, SERVE_PREFILL };

/* Time of one step, seconds: decode of `batch` sequences whose KV caches
 * hold `context` tokens on average, or prefill of `batch` requests of
 * `tokens` new tokens each on top of `context` cached ones. */
typedef int (*serve_step_fn)(void *ctx, enum serve_step kind, int batch, long context,
			     long tokens, double *seconds, struct plumb_err *err);

struct serve_params {
	int concurrency;        /* clients (max-concurrency) */
	long input_len;         /* prompt tokens per request */
	long output_len;        /* generated tokens per request */
	long context;           /* tokens of each prompt already in the KV cache */
	int requests;           /* requests measured (after the warm-up ones) */
	double accept_per_step; /* tokens a decode step yields per sequence (>= 1) */
	long bucket;            /* context bucket for memoisation, tokens */
	double spread;          /* output lengths spread over [1-spread, 1+spread] x output_len (0-1) */
	int prompts;            /* > 0: a benchmark run of exactly this many requests
				   (bench_serving --num-prompts), measured from the
				   first request to the last completion, ramp-up and
				   drain included; 0: the steady state (default) */
};

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
};

void serve_params_init(struct serve_params *p);

/* Run the closed loop; returns 0 or the callback's error. */
int serve_run(const struct serve_params *p, serve_step_fn fn, void *ctx,
	      struct serve_result *r, struct plumb_err *err);

#endif
