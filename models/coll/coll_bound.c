/*
 * coll_bound.c - lower bounds on the flow model's time of a collective
 * alone (coll_int.h coll_bound), which the search (coll_search.c) uses to
 * leave a candidate unsimulated when it cannot be the fastest.
 *
 * A set of sends started together at time 0 cannot end before:
 *  - any of its flows' end alone: its delay and path latency (it carries
 *    nothing before), then its bytes at the least of its cap and its
 *    links' capacities (a flow never moves faster, sim/flow.h);
 *  - any link's: the first activation among its flows, then all their
 *    bytes (every copy's) at the link's capacity (max-min never gives a
 *    link more than its capacity).
 * A ring of `steps` steps: step k + 1 leaves a rank when step k has
 * arrived, so the last step arrives no earlier than t_first plus `steps`
 * sends one after another, each no shorter than the least bound of one
 * send. One-shot: t_first plus its one exchange; two-shot: both exchanges
 * and the barrier between (coll.c on_start, on_recv_step).
 *
 * The bounds hold in exact arithmetic; the flow model's times carry the
 * roundings of a few dozen operations (about 1e-15 relative), which the
 * search's margin (BOUND_EPS, 1e-9) covers. Where every send of a step
 * shares alike (the 8-GPU NVSwitch and xGMI boxes) they are the flows'
 * times to rounding (tests/unit/test_closed.c).
 *
 * Cost: O(sends x flows per send x path length) plus O(links) per
 * exchange, against a simulation's events.
 */
#include "coll.h"
#include "coll_int.h"

#include <math.h>
#include <stdlib.h>

/* Scratch over the links: bytes and first activation of the links the
 * sends of one bound touch, and which those are. */
struct lscratch {
	double *vol, *first;
	int *touched, nt;
};

/* The bound of the sends src[i] -> dst[i] (i < ns) of `bytes` each, all
 * started at 0 (chain: as coll_send_flow). */
static double sends_bound(const struct crun *r, const int *src, const int *dst, int ns,
			  double bytes, int chain, struct lscratch *x)
{
	const struct sim_net *net = r->fab->net;
	double end = 0;
	int i, w, k, nw;

	x->nt = 0;
	for (i = 0; i < ns; i++) {
		struct coll_flow f;
		nw = coll_send_flow(r, src[i], dst[i], bytes, chain, 0, &f);
		for (w = 0; w < nw; w++) {
			double act, rmax;
			if (w > 0)
				coll_send_flow(r, src[i], dst[i], bytes, chain, w, &f);
			act = f.delay + fab_path_latency(r->fab, f.path, f.len);
			rmax = f.cap > 0 ? f.cap : INFINITY;
			for (k = 0; k < f.len; k++) {
				int l = f.path[k];
				rmax = fmin(rmax, sim_net_link_capacity(net, l));
				if (!(x->vol[l] > 0) && !isfinite(x->first[l]))
					x->touched[x->nt++] = l;
				x->vol[l] += f.bytes * f.mult;
				x->first[l] = fmin(x->first[l], act);
			}
			/* a flow alone on its path, at its narrowest link */
			end = fmax(end, f.bytes > 0 ? act + f.bytes / rmax : act);
		}
	}
	/* a link's flows together, at its capacity; the scratch cleared */
	for (k = 0; k < x->nt; k++) {
		int l = x->touched[k];
		if (x->vol[l] > 0)
			end = fmax(end, x->first[l] + x->vol[l] / sim_net_link_capacity(net, l));
		x->vol[l] = 0;
		x->first[l] = INFINITY;
	}
	return end;
}

/* One exchange of a one-shot or two-shot: every rank reads `bytes` from
 * every peer at once (coll.c on_start). */
static double shot_exchange(const struct crun *r, double bytes, struct lscratch *x, int *pairs)
{
	int n = r->n, i, j, ns = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j) {
				pairs[ns] = j;          /* j sends to i */
				pairs[n * n + ns++] = i;
			}
	return sends_bound(r, pairs, pairs + n * n, ns, bytes, -1, x);
}

/* A ring's steps, each no shorter than its shortest send alone. */
static double ring_steps(const struct crun *r, struct lscratch *x)
{
	int n = r->n, i, t, nr = r->nring > 0 ? r->nring : 1;
	double least = INFINITY;
	for (t = 0; t < nr; t++)
		for (i = 0; i < n; i++) {
			int dst = r->nring > 0 ? r->rsucc[t * n + i] : (i + 1) % n;
			least = fmin(least, sends_bound(r, &i, &dst, 1, r->chunk,
							r->nring > 0 ? t : -1, x));
		}
	return r->nsteps * least;
}

int coll_bound(const struct crun *r, double *lb, struct plumb_err *err)
{
	const struct coll_spec *c = r->c;
	int nl = sim_net_nlinks(r->fab->net), n = r->n, k, rc = 0;
	struct lscratch x;
	int *pairs;
	double e;

	*lb = -1;
	if (r->algo == ALGO_RING &&
	    (r->ord || (c->op != COLL_ALLREDUCE && c->op != COLL_ALLGATHER &&
			c->op != COLL_REDUCESCATTER)))
		return 1;       /* chains, broadcast, send/recv, all-to-all: none */
	if (r->algo != ALGO_RING && r->algo != ALGO_ONESHOT && r->algo != ALGO_TWOSHOT)
		return 1;
	x.vol = malloc(2 * ((size_t)nl + 1) * sizeof(*x.vol));
	x.touched = malloc(((size_t)nl + 1) * sizeof(*x.touched));
	pairs = malloc(2 * (size_t)n * n * sizeof(*pairs));
	if (!x.vol || !x.touched || !pairs) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	x.first = x.vol + nl + 1;
	for (k = 0; k < nl; k++) {
		x.vol[k] = 0;
		x.first[k] = INFINITY;
	}
	if (r->algo == ALGO_RING) {
		*lb = r->t_first + ring_steps(r, &x);
	} else if (r->algo == ALGO_ONESHOT) {
		*lb = r->t_first + shot_exchange(r, c->bytes, &x, pairs);
	} else {
		/* the two exchanges send the same shards */
		e = shot_exchange(r, c->bytes / n, &x, pairs);
		*lb = r->t_first + e + coll_shot_barrier(r) + e;
	}
out:
	free(x.vol);
	free(x.touched);
	free(pairs);
	return rc;
}
