/*
 * disagg.h - disaggregated prefill and decode (xPyD): x prefill instances
 * and y decode instances, each with its own layout, serving one stream of
 * requests (docs/model-disagg.md "Disaggregated prefill and decode").
 *
 * A request waits in one FIFO for a prefill instance; a free prefill
 * instance admits waiting requests while their prompts fit its KV cache
 * and runs prefill steps of at most chunk_tokens prompt tokens (0: whole
 * prompts), which produce each request's first token. Its KV cache then
 * moves to the decode instance with the least KV held and promised (the
 * lowest index on a tie), through the caller's transfer model (`send`,
 * `advance`: the scenario's fabric, where transfers share links); the
 * prefill instance frees it when it has landed. A decode instance admits
 * landed requests in landing order as serve_run admits (while its KV held,
 * a reserve of SERVE_RESERVE of each running request's remaining output
 * and the newcomer's prompt and reserve fit) and runs decode steps: no
 * prompt's prefill ever stops its streams. When decoding outgrows its KV
 * cache it retracts the newest stream, whose KV is freed; readmitted
 * first, it is prefilled again on the decode instance (prompt and the
 * tokens it had), a step its other streams wait for. The steps of both
 * kinds of instance may last longer than alone where the transfers share
 * the links of their collectives (step_traffic). TTFT runs from arrival to the step where the request joins its
 * decode instance (its first token reaches the client from there), so it
 * holds the queue, the prefill, the transfer and the wait for a decode
 * step. Prefix cache hits (serve.h prefix_len, prefix_hit) shorten the
 * prefill; the whole prompt's KV still moves.
 *
 * The loads are serve.h's: closed loop (concurrency clients, the window
 * after the first `concurrency` completions, `requests` or twice the
 * clients measured), Poisson arrivals (rate, prompts) or a trace; lengths
 * as serve_run draws them. Step times come from two callbacks (a prefill
 * instance's and a decode instance's), memoised as in serve_run.
 * Deterministic: the same inputs give the same numbers.
 */
#ifndef PLUMB_DISAGG_H
#define PLUMB_DISAGG_H

#include "serve.h"

struct serve_disagg {
	int nprefill, ndecode;          /* instances, >= 1 each */
	serve_step_fn prefill_fn, decode_fn;
	void *prefill_ctx, *decode_ctx;
	long prefill_kv_tokens;         /* each prefill instance's KV cache, tokens */
	long decode_kv_tokens;          /* each decode instance's */
	/* Start moving request id's KV (tokens of it) from prefill instance
	 * pi to decode instance di at time t (>= every earlier call's and
	 * advance's time). 0 or a negative plumb code. */
	int (*send)(void *ctx, int id, long tokens, int pi, int di, double t,
		    struct plumb_err *err);
	/* Run the transfers up to t_end and report the earliest event not yet
	 * reported, at *t <= t_end: 1, a landing (request *id); 2, the
	 * collectives of a step that step_traffic left pending have finished,
	 * and the step ends at *end (>= *t): instance *id (a decode instance
	 * j as j, a prefill instance i as -1 - i). 0 when nothing happens by
	 * t_end (t_end may be INFINITY). Negative plumb code on error. */
	int (*advance)(void *ctx, double t_end, int *id, double *t, double *end,
		       struct plumb_err *err);
	/* May be NULL. A step of shape sh runs on instance inst (a prefill
	 * instance when prefill is 1) from t0 for t1 - t0 seconds alone (t0
	 * >= every earlier call's and advance's time): the model puts the
	 * step's own traffic (its collectives) on the links the transfers
	 * use. *pending 1: the step's end depends on that traffic (transfers
	 * on its links slow its collectives), and advance reports it (event
	 * 2); 0: the step ends at t1. */
	int (*step_traffic)(void *ctx, int prefill, int inst, const struct serve_shape *sh,
			    double t0, double t1, int *pending, struct plumb_err *err);
	void *link_ctx;
	/* The engine's PD protocol. first_from_decode 1: the first token a
	 * client sees comes from the request's first pass on its decode
	 * instance (which computes its last prompt token over the moved KV
	 * and samples; vLLM's connectors), so TTFT ends with that step; 0:
	 * the prefill's first token is sent on and reaches the client when
	 * the request joins its decode instance (SGLang). frontend_hops: how
	 * many serving front ends a request passes one after the other (its
	 * prefill request's, then its decode request's: 2 for vLLM's proxy,
	 * which needs the prefill's answer to address the decode); each adds
	 * p's frontend_s to TTFT and end-to-end latency. 0 counts as 1. */
	int first_from_decode;
	int frontend_hops;
};

/* Serve p's load on d's instances into *r (serve.h's result: tok/s of all
 * decode instances, latency distributions, xfer_ms and its percentiles,
 * prefill_ms; decode_step_ms, mean_batch and kv_peak per decode
 * instance). p's KV budget fields are ignored (d's hold); its chunk_tokens
 * caps a prefill step. Errors: EINPUT (a request that fits no instance,
 * bad parameters), the callbacks', ERUNTIME (out of memory, a run that
 * does not converge). */
int serve_disagg_run(const struct serve_params *p, const struct serve_disagg *d,
		     struct serve_result *r, struct plumb_err *err);

#endif
