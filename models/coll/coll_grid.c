/*
 * coll_grid.c - the tuner's time of a ring collective across hosts from a
 * grid of sizes (coll_int.h; docs/model-collectives.md "Across hosts: a
 * grid of sizes").
 *
 * The step model forces the flow model (models/step), and between hosts
 * the closed form does not hold (a ring's sends overlap on the NIC hops),
 * so every distinct size a serving run asks (the mixed steps' prefill
 * chunks make thousands) was one search of flow simulations. Here, for
 * the step model's questions (flow COLL_FLOW_GRID) about a ring across
 * hosts of COLL_GRID_MIN bytes or more, the search runs at anchor sizes
 * alone: 2^e x (1 + i / 2m), i = 0 .. 2m - 1 with m = COLL_GRID_M, every
 * one exact in binary. A size lies in a cell of m an octave, [lo, hi),
 * whose middle is an anchor too. When the three searches chose the same
 * algorithm, protocol and transports, and the middle's time lies on the
 * line of the ends' within COLL_GRID_BEND, the size takes the chosen
 * candidate's time interpolated linearly in its half of the cell; else
 * (the choice changes in the cell, or the time bends in it) the size is
 * searched itself. An answer depends on the size and the grid alone,
 * never on what was asked before, so the sweep's threads share them.
 *
 * Where the anchors chose the same candidate, that candidate is also the
 * least of every candidate's interpolated time (a convex combination
 * keeps the order), so the choice and the time the step replays are one.
 *
 * Measured (every size of 1 .. 8,196 tokens of 12,288 bytes on the
 * two-host H100 box's 16-rank ring): a plain grid's worst error against
 * the search is 1.06e-3 with 8 anchors an octave, 3.2e-4 with 16 (Simple;
 * LL is affine there, 1.7e-15); but on the two-host A100 RoCE box the
 * flows' time is not even monotone in the size (a 2% bump 3 MB wide near
 * 86 MB) and a plain grid misses by 2.0e-2 with 16 an octave, 8.9e-3 with
 * 64. With the middle's check the worst errors are 6.8e-5 (H100 box),
 * 3.2e-5 (A100 RoCE), 1.2e-4 (H800 RoCE), 4.5e-5 (four H100 hosts, 32
 * ranks); COLL_GRID_TOL is the bound tests/unit/test_grid.c holds it to.
 */
#include "coll.h"
#include "coll_int.h"

#include <math.h>
#include <string.h>

int coll_grid_m = COLL_GRID_M;

/* Ring collectives only: their runs between hosts keep one shape at
 * every size (nccl_channels flows a send, size / n bytes a step); the
 * tree's chunk count and the p2p rules change with the size. */
int coll_grid_applies(const struct scenario *s, const struct coll_spec *c)
{
	if (coll_grid_m <= 0 || c->flow != COLL_FLOW_GRID || c->n < 2 ||
	    !(c->bytes >= COLL_GRID_MIN) || !isfinite(c->bytes))
		return 0;
	if (c->algo != ALGO_AUTO && c->algo != ALGO_RING)
		return 0;
	if (c->op != COLL_ALLREDUCE && c->op != COLL_ALLGATHER && c->op != COLL_REDUCESCATTER)
		return 0;
	return coll_spans_hosts(s, c);
}

void coll_grid_anchors(double bytes, int m, double *lo, double *hi)
{
	int e;
	double base, i;
	(void)frexp(bytes, &e);             /* bytes in [2^(e-1), 2^e) */
	base = ldexp(1.0, e - 1);
	i = floor((bytes / base - 1) * m);  /* exact: m a power of two */
	if (i > m - 1)
		i = m - 1;
	*lo = base * (1 + i / m);
	*hi = base * (1 + (i + 1) / m);
}

/* The search's answer at anchor size `bytes` (c's other fields). */
static int anchor(struct coll_scn *e, const struct scenario *s, const struct coll_spec *c,
		  double bytes, struct coll_result *r, struct plumb_err *err)
{
	struct coll_spec a = *c;
	a.bytes = bytes;
	return coll_time_in(e, s, &a, r, err);
}

/* Did a and b choose alike (algorithm, protocol, transports)? */
static int alike(const struct coll_result *a, const struct coll_result *b)
{
	return a->algo == ALGO_RING && a->algo == b->algo && a->proto == b->proto &&
	       a->closed == b->closed &&
	       a->shm_hops == b->shm_hops && a->p2p_hops == b->p2p_hops &&
	       a->net_hops == b->net_hops && a->seconds > 0 && b->seconds > 0;
}

int coll_grid_time(struct coll_scn *e, const struct scenario *s, const struct coll_spec *c,
		   struct coll_result *r, struct plumb_err *err)
{
	struct coll_result ra, rm, rb;
	double lo, hi, mid, line;
	int rc;

	if (!coll_grid_applies(s, c))
		return 1;
	coll_grid_anchors(c->bytes, coll_grid_m, &lo, &hi);
	mid = 0.5 * (lo + hi);          /* on the grid of 2 x coll_grid_m: exact */
	if (lo == c->bytes || mid == c->bytes)
		return 1;                   /* an anchor: searched */
	if ((rc = anchor(e, s, c, lo, &ra, err)) < 0 ||
	    (rc = anchor(e, s, c, mid, &rm, err)) < 0 ||
	    (rc = anchor(e, s, c, hi, &rb, err)) < 0)
		return rc;
	if (!alike(&ra, &rm) || !alike(&rm, &rb))
		return 1;                   /* the choice changes in between: searched */
	/* the middle off the anchors' line: the time bends inside, searched */
	line = 0.5 * (ra.seconds + rb.seconds);
	if (!(fabs(rm.seconds - line) <= COLL_GRID_BEND * rm.seconds))
		return 1;
	if (c->bytes < mid) {
		*r = ra;
		r->seconds = ra.seconds + (rm.seconds - ra.seconds) * ((c->bytes - lo) / (mid - lo));
	} else {
		*r = rm;
		r->seconds = rm.seconds + (rb.seconds - rm.seconds) * ((c->bytes - mid) / (hi - mid));
	}
	return 0;
}
