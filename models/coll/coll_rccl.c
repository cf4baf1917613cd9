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

#include <math.h>
#include <pthread.h>
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

/* The search's answers, by n: a pure function of n, asked at every
 * simulated collective on a mesh (a search of up to RING_BUDGET steps). */
static struct {
	pthread_mutex_t mu;
	int nr[COLL_MESH_MAX + 1];      /* 0: not searched yet */
	int succ[COLL_MESH_MAX + 1][COLL_MESH_MAX * COLL_MESH_MAX];
} rings = { PTHREAD_MUTEX_INITIALIZER, { 0 }, { { 0 } } };

static int search_rings(int n, int *succ);

int coll_mesh_rings(int n, int *succ)
{
	int nr;
	if (n < 2 || n > COLL_MESH_MAX)
		return 0;
	pthread_mutex_lock(&rings.mu);
	if (!(nr = rings.nr[n])) {
		nr = search_rings(n, rings.succ[n]);
		if (nr < 0)
			nr = 1;         /* out of memory: this time only */
		else
			rings.nr[n] = nr;
	}
	/* the rings the search writes: nr of n successors each */
	memcpy(succ, rings.succ[n], (size_t)nr * (size_t)n * sizeof(*succ));
	pthread_mutex_unlock(&rings.mu);
	return nr;
}

static int search_rings(int n, int *succ)
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
		return -1;      /* out of memory: the one ring in rank order */
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

/*
 * RCCL's MSCCL all-reduce on 8 MI300X (ROCm/rccl tools/msccl-algorithms,
 * allreduce-allpairs-8n-*.xml, loaded by default on gfx94x with one rank
 * per GPU): "allpairs", a two-shot exchange, every rank sending each
 * peer its 1/8 of the buffer to reduce and then each reduced eighth to
 * every peer, one step each, over the direct links. RCCL takes it instead
 * of its tuner's ring where a file's range holds the size and the element
 * count is a multiple of the file's nchunksperloop
 * (src/misc/msccl/msccl_lifecycle.cc mscclSchedulerSelectAlgo):
 *   LL, 4 channels (32 thread blocks), 0-65536 B, nchunksperloop 256;
 *   LL, 8 channels (64 thread blocks), 65537-524287 B, nchunksperloop 512;
 *   Simple, 8 channels, 524288-16777216 B (in place to 11534336 and from
 *   14680065: no power of two falls between), nchunksperloop 512.
 * nccl-tests' float elements: count = bytes / 4. Below 1 KiB the count is
 * not a multiple of 256 and RCCL runs its ring.
 */
int coll_msccl_allpairs(const struct scenario *s, const struct topo_view *v,
			const struct coll_spec *c, int *proto, int *nch)
{
	double count = c->bytes / 4.0;
	int i, j, per = c->bytes <= 65536 ? 256 : 512;
	if (!s->xgmi || c->op != COLL_ALLREDUCE || c->n != 8 || c->bytes <= 0 ||
	    c->bytes > 16777216.0 || fmod(c->bytes, 4.0) != 0 || fmod(count, per) != 0)
		return 0;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++) {
			int a = c->gpus[i], b = c->gpus[j];
			if (i != j && (a == b || !v->nvl[a][b] || v->p2p[a][b] != P2P_OK))
				return 0;
			if (s->nodes[s->gpu_node[a]].host != s->nodes[s->gpu_node[b]].host)
				return 0;
		}
	*proto = c->bytes < 524288 ? PROTO_LL : PROTO_SIMPLE;
	*nch = c->bytes <= 65536 ? 4 : 8;
	return 1;
}

/*
 * What RCCL's allpairs does in its own memory, after each exchange: every
 * peer's thread block sends, then receives (allreduce-allpairs-8n-*.xml:
 * step "s" then "r", in order, src/device/msccl_kernel_impl.h), and the
 * receive copies the shard out of the connection's buffer into the
 * scratch buffer (phase 1) or the output (phase 2): with one process per
 * GPU the peers' buffers are IPC-mapped and the primitives go through the
 * connection's FIFO. Each copy reads and writes (n - 1) / n of the buffer;
 * the n - 1 reduces ("re") read a received shard and the partial sum and
 * write the sum, 3 (n - 1) / n of it. Every thread block does its part at
 * once, so the GPU's memory rate (memory_gbs x d2d_eff, a copy's share)
 * bounds them; they follow the exchange, as a block's steps run in order.
 */
double coll_msccl_local_s(const struct crun *r, int phase)
{
	const struct scenario *s = r->s;
	const struct scn_gpu_model *g =
		&s->catalog->gpus[s->nodes[s->gpu_node[r->c->gpus[0]]].gpu_model];
	double share = (double)(r->n - 1) / r->n * r->c->bytes, rate;
	rate = g->memory_gbs * 1e9 * s->k.v[K_D2D_EFF];
	if (!(rate > 0))
		return 0;
	return (phase == 1 ? 5 : 2) * share / rate;
}

/* ROCm/rccl src/graph/tuning.cc ncclTopoTuneModel: "Enable LL128 by
 * default only on gfx90a with available tuning table" (and not at all
 * unless built with ENABLE_LL128); an MI300X (gfx942) ring runs LL or
 * Simple. */
int coll_rccl_ll128(const struct scenario *s, const struct coll_spec *c)
{
	int i;
	for (i = 0; i < c->n; i++)
		if (strcmp(s->catalog->gpus[s->nodes[s->gpu_node[c->gpus[i]]].gpu_model].arch, "gfx90a"))
			return 0;
	return 1;
}

/*
 * RCCL's ring all-reduce with chunks that carry no data. Its kernel (ROCm/
 * rccl src/device/all_reduce.h runRing; NCCL 2.22.3's, in RCCL from 2.22.3,
 * ROCm 6.4.0) cuts the loop's last round into chunks of
 * alignUp(divUp(remCount, nranks), 16 / sizeof(T)) elements: 16 bytes or
 * more each, so a buffer of fewer than 16 bytes per rank fills only the
 * first chunks (8 ranks of floats: 8 and 16 B one, 32 B two, 64 B four,
 * 128 B all eight). RCCL 2.21 and before sized that chunk on the host
 * (src/enqueue.cc computeCollLastChunkInfo: aligned to 8 bytes x the
 * block's threads) and put every element of a buffer under 2 KiB into the
 * first chunk; plumb follows the newer kernel. Every step of RCCL's ring
 * pays rccl_step_us of its rank's own (coll.c adds it to the mesh rings'
 * step latency), the hop after it NCCL's step latency. Rank i at ring position p handles chunk (p - 1 - s)
 * mod n at step s (s = 0 .. 2n - 2; nelem is clamped to 0 past the end),
 * and src/device/prims_ll.h LLGenericOp polls no line when nelem is 0:
 * such a step waits for nothing, its rank only passes its barriers and
 * counters (rccl_step_us). A step with data waits for its predecessor's
 * step before it, then the data's trip: a rank ends step s at
 *   empty: e(i, s-1) + o_i
 *   data:  max(e(i, s-1) + o_i, e(pred, s-1)) + (d_i - o_i)
 * where d_i is the send into i as the lockstep ring takes it (its step
 * latency, wire and bytes) and o_i = min(rccl_step_us, its step latency).
 * With every chunk full this is the lockstep ring, d_i a step; with one,
 * the data crosses the ring's 2(n - 1) hops at d_i - o_i each while the
 * other steps pass at o_i. Float elements (nccl-tests' type) are assumed;
 * one loop, one channel (the sizes where chunks run empty are tiny).
 */
int coll_rccl_ring_chunks(double bytes, int n)
{
	double count, chunk, k;
	if (n < 2 || !(bytes > 0))
		return 0;
	count = ceil(bytes / 4.0);
	chunk = ceil(ceil(count / n) * 4.0 / 16.0) * 16.0;
	k = ceil(bytes / chunk);
	return k < n ? (int)k : 0;
}

int coll_rccl_step_data(int pos, int s, int n, int k)
{
	return ((pos - 1 - s) % n + n) % n < k;
}

/* The flow model's state: per rank its ring position and predecessor,
 * its last step done and when (e), its idle step (o), whether the send of
 * its next data step is in flight, whether it is done; per rank and step
 * when its predecessor ended the step before (arr, -1 not yet). */
struct rsparse {
	int *pos, *pred, *last, *busy, *fin, left;
	double *e, *o, *arr;
};

void coll_sparse_free(struct crun *r)
{
	free(r->sp);
	r->sp = NULL;
}

/* Run rank i's steps from its last: empty ones at once, up to a data step
 * (its send started when both its rank and its data are ready) or its end. */
static int sparse_advance(struct crun *r, int i, struct plumb_err *err)
{
	struct rsparse *q = r->sp;
	int n = r->n, s;
	double now = sim_now(r->eng), start, end;
	if (q->busy[i] || q->fin[i])
		return 0;
	while (q->last[i] < r->nsteps) {
		s = q->last[i] + 1;
		if (!coll_rccl_step_data(q->pos[i], s, n, r->kdata)) {
			q->e[i] += q->o[i];
			q->last[i] = s;
			continue;
		}
		if (q->arr[i * (r->nsteps + 1) + s] < 0)
			return 0;
		start = fmax(q->e[i] + q->o[i], q->arr[i * (r->nsteps + 1) + s]);
		q->busy[i] = 1;
		/* the send's delay is its step latency: less the idle part */
		return coll_send_shift(r, q->pred[i], i, PH_RING, s, r->chunk, 0,
				       start - now - q->o[i], err);
	}
	q->fin[i] = 1;
	if (--q->left > 0)
		return 0;
	for (end = 0, i = 0; i < n; i++)
		end = fmax(end, q->e[i]);
	return coll_finish_after(r, end - now, err);
}

int coll_sparse_start(struct crun *r, struct plumb_err *err)
{
	int n = r->n, i, v, rc;
	size_t ns = (size_t)r->nsteps + 1;
	struct rsparse *q;
	double now = sim_now(r->eng);
	char *blk = malloc(sizeof(*q) + (size_t)n * (3 + ns) * sizeof(double) +
			   (size_t)5 * n * sizeof(int));
	if (!blk)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	q = (struct rsparse *)(void *)blk;
	q->e = (double *)(void *)(q + 1);
	q->o = q->e + n;
	q->arr = q->o + n;
	q->pos = (int *)(void *)(q->arr + (size_t)n * ns);
	q->pred = q->pos + n;
	q->last = q->pred + n;
	q->busy = q->last + n;
	q->fin = q->busy + n;
	r->sp = q;
	r->recv_need = -2;      /* the end comes from coll_finish_after */
	q->left = n;
	for (i = 0, v = 0; i < n; i++) {
		int w = r->rsucc[v];
		q->pos[v] = i;
		q->pred[w] = v;
		v = w;
	}
	for (i = 0; i < n; i++) {
		q->o[i] = fmin(r->idle, r->step_lat[q->pred[i] * n + i]);
		q->e[i] = now;
		q->last[i] = q->busy[i] = q->fin[i] = 0;
	}
	for (i = 0; i < n * (int)ns; i++)
		q->arr[i] = -1;
	/* step 0: the ranks whose chunk holds data send it */
	for (i = 0; i < n; i++)
		if (coll_rccl_step_data(q->pos[i], 0, n, r->kdata))
			q->arr[r->rsucc[i] * ns + 1] = now;
	for (i = 0; i < n; i++)
		if ((rc = sparse_advance(r, i, err)) < 0)
			return rc;
	return 0;
}

int coll_sparse_recv(struct crun *r, const struct sendrec *sr, struct plumb_err *err)
{
	struct rsparse *q = r->sp;
	int i = sr->dst, s = sr->idx, j = r->rsucc[i], rc;
	q->e[i] = sim_now(r->eng);
	q->last[i] = s;
	q->busy[i] = 0;
	/* its data goes on to its successor's next step */
	if (s < r->nsteps) {
		q->arr[j * (r->nsteps + 1) + s + 1] = q->e[i];
		if ((rc = sparse_advance(r, j, err)) < 0)
			return rc;
	}
	return sparse_advance(r, i, err);
}
