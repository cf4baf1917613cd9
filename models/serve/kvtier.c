/*
 * kvtier.c - the KV cache's tiers in a serving run (serve.h, docs/model-serving.md
 * "KV tiers"): the prefix cache, which spares a request the prefill of a
 * shared prompt prefix, and the host tier, where the KV of a request
 * retracted from a full GPU cache waits in host memory and comes back
 * over PCIe instead of being prefilled again.
 *
 * The hit pattern is deterministic: request j hits when the fractional
 * part of 0.5 + j x (sqrt(5) - 2) falls below prefix_hit, a low-discrepancy
 * sequence of its own (serve.c draws lengths from two others), so a share
 * f of any run of requests hits, give or take one.
 */
#include "serve_int.h"

#include <math.h>

int serve_kvtier_check(const struct serve_params *p, struct plumb_err *err)
{
	if (p->prefix_len < 0 || !(p->prefix_hit >= 0 && p->prefix_hit <= 1) ||
	    p->host_kv_tokens < 0)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "prefix length and host KV tokens must be >= 0 and the hit "
				     "share in [0, 1]");
	if (p->host_kv_tokens > 0 && !p->kv_io)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "a host KV tier needs the time of its moves (kv_io)");
	return 0;
}

int serve_prefix_hit(const struct serve_params *p, long idx)
{
	double u = fmod(0.5 + (double)idx * 0.2360679774997897, 1.0);
	return p->prefix_len > 0 && p->prefix_hit > 0 && u < p->prefix_hit;
}

long serve_kvtier_admit(const struct serve_params *p, struct run *R, struct req *q, int idx,
			struct serve_result *r)
{
	long todo = q->todo, skip;
	if (q->offloaded > 0) {
		/* its whole cache back from host memory: only the last token
		 * is computed, for its logits */
		R->io_in += q->offloaded;
		R->host_used -= q->offloaded;
		r->reload_tokens += q->offloaded;
		q->offloaded = 0;
		return todo > 1 ? todo - 1 : 0;
	}
	if (!serve_prefix_hit(p, idx))
		return 0;
	skip = p->prefix_len - p->context;     /* the part not already counted cached */
	if (skip > todo - 1)
		skip = todo - 1;
	if (skip <= 0)
		return 0;
	r->prefix_hits++;
	return skip;
}

void serve_kvtier_evict(const struct serve_params *p, struct run *R, struct req *q,
			struct serve_result *r)
{
	if (p->host_kv_tokens <= 0 || q->kv <= 0 || R->host_used + q->kv > p->host_kv_tokens)
		return;         /* no tier, or no room: recomputed later */
	q->offloaded = q->kv;
	R->host_used += q->kv;
	R->io_out += q->kv;
	r->offloads++;
}

int serve_kvtier_step(const struct serve_params *p, struct run *R, const struct serve_shape *sh,
		      double *dt, struct serve_result *r, struct plumb_err *err)
{
	double s = 0;
	int rc;
	if (!R->io_out && !R->io_in)
		return 0;
	if ((rc = p->kv_io(p->kv_io_ctx, sh, *dt, R->io_out, R->io_in, &s, err)) < 0)
		return rc;
	R->io_out = R->io_in = 0;
	*dt += s;
	r->kv_io_s += s;
	return 0;
}
