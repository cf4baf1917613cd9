/*
 * coll_rccl.c - RCCL's rings on an AMD xGMI mesh (coll_int.h).
 *
 * On an 8x MI300X board every GPU has its own xGMI link to each of its
 * seven peers, and RCCL reaches the board's bandwidth only when its rings
 * drive all of them (ROCm/rccl pull request 1270, README: "each pair of GPUs
 * are connected with dedicated XGMI links in a fully-connected topology.
 * So, for collective operations, one can achieve good performance when all
 * 8 GPUs (and all XGMI links) are used"). One ring in rank order loads one
 * link per GPU: a seventh of the mesh. plumb runs the rings as a set of
 * arc-disjoint directed Hamiltonian cycles over the ranks, each ring on its
 * own links, so that n ranks drive n - 1 links each; the complete digraph
 * on n vertices splits into n - 1 such cycles for every n but 4 and 6
 * (Tillson, "A Hamiltonian decomposition of K*_2m, 2m >= 8", J. Combin.
 * Theory B 29, 1980), where n - 2 is the most.
 *
 * The rings are found by a depth-first search with a bounded number of
 * steps (deterministic: successors tried in rank order from each rank),
 * keeping the largest set found; every ring starts at rank 0 (each
 * Hamiltonian cycle passes it).
 */
#include "coll.h"
#include "coll_int.h"

#include <stdlib.h>
#include <string.h>

#define RING_BUDGET 200000L     /* search steps; n <= 16 needs far fewer */

struct rsearch {
	int n, target, nring, best;
	long steps;
	unsigned char *used;        /* n x n: arc taken by a ring */
	int *cur;                   /* target x n: the rings being built */
	int *out;                   /* target x n: the best set, as successors */
};

static void keep(struct rsearch *q)
{
	int t, i;
	if (q->nring <= q->best)
		return;
	q->best = q->nring;
	for (t = 0; t < q->nring; t++)
		for (i = 0; i < q->n; i++)
			q->out[t * q->n + q->cur[t * q->n + i]] = q->cur[t * q->n + (i + 1) % q->n];
}

/* Extend ring q->nring, whose first len ranks are placed (vis: their set). */
static int extend(struct rsearch *q, int len, unsigned long vis)
{
	int n = q->n, *ring = &q->cur[q->nring * n], last = ring[len - 1], k;
	if (++q->steps > RING_BUDGET)
		return 0;
	if (len == n) {
		if (q->used[last * n])
			return 0;
		q->used[last * n] = 1;
		q->nring++;
		keep(q);
		if (q->nring == q->target)
			return 1;
		q->cur[q->nring * n] = 0;
		if (extend(q, 1, 1UL))
			return 1;
		q->nring--;
		q->used[last * n] = 0;
		return 0;
	}
	for (k = 1; k < n; k++) {
		int nx = (last + k) % n;
		if (nx == 0 || (vis >> nx & 1UL) || q->used[last * n + nx])
			continue;
		q->used[last * n + nx] = 1;
		ring[len] = nx;
		if (extend(q, len + 1, vis | 1UL << nx))
			return 1;
		q->used[last * n + nx] = 0;
	}
	return 0;
}

int coll_mesh_rings(int n, int *succ)
{
	struct rsearch q;
	int i;
	if (n < 2 || n > COLL_MESH_MAX)
		return 0;
	if (n == 2) {
		succ[0] = 1;
		succ[1] = 0;
		return 1;
	}
	memset(&q, 0, sizeof(q));
	q.n = n;
	q.target = n == 4 || n == 6 ? n - 2 : n - 1;
	q.used = calloc((size_t)n * n, 1);
	q.cur = calloc((size_t)q.target * n, sizeof(*q.cur));
	q.out = succ;
	if (!q.used || !q.cur) {
		free(q.used);
		free(q.cur);
		for (i = 0; i < n; i++)
			succ[i] = (i + 1) % n;
		return 1;       /* out of memory: the one ring in rank order */
	}
	q.cur[0] = 0;
	extend(&q, 1, 1UL);
	free(q.used);
	free(q.cur);
	if (q.best < 1) {
		for (i = 0; i < n; i++)
			succ[i] = (i + 1) % n;
		return 1;
	}
	return q.best;
}

int coll_xgmi_mesh(const struct fabric *f, const struct coll_spec *c)
{
	const struct scenario *s = f->s;
	int i, j;
	if (!s->xgmi || c->n < 2 || c->n > COLL_MESH_MAX)
		return 0;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++) {
			int a = c->gpus[i], b = c->gpus[j];
			if (i == j)
				continue;
			if (a == b || fab_nvp(f, a, b) < 0)
				return 0;
		}
	return 1;
}
