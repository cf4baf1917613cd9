/*
 * xfer.c - P2P and host-bounce transfers (see xfer.h for the model).
 */
#include "xfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One transfer in flight. Freed when its last byte has arrived. */
struct xop {
	struct xfer_ctx *x;
	struct xfer_spec sp;
	int p2p_path[FAB_MAX_PATH], np2p;
	int to_host[FAB_MAX_PATH], nto;
	int from_host[FAB_MAX_PATH], nfrom;
	double chunk;                /* bytes per chunk */
	int nchunks;
	int leg1_started, leg1_done, leg2_done;
	int leg1_busy;               /* a leg 1 flow is in flight */
	int serial;                  /* legs share a switch uplink: no overlap */
	int waiting;                 /* queued for a staging buffer */
};

static int op_finish(struct xop *op, struct plumb_err *err)
{
	struct xfer_ctx *x = op->x;
	int rc = 0;
	x->active--;
	x->bytes_done += op->sp.bytes;
	if (op->sp.done)
		rc = op->sp.done(x, op->sp.arg, err);
	free(op);
	return rc;
}

double xfer_copy_lat(const struct scenario *s, int a, int b)
{
	double la = s->catalog->gpus[s->nodes[s->gpu_node[a]].gpu_model].p2p_lat_us;
	double lb = s->catalog->gpus[s->nodes[s->gpu_node[b]].gpu_model].p2p_lat_us;
	double l = la > lb ? la : lb;
	/* A scenario's explicit constant wins over the catalog's measurement. */
	return (l > 0 && !s->k.set[K_P2P_LAT_US] ? l : s->k.v[K_P2P_LAT_US]) * 1e-6;
}

/* Delay before a copy's flow starts so its first byte lands after
 * max(copy latency, path latency) (+ the VM's per-DMA cost). */
static double copy_pad(const struct xop *op, const int *path, int n)
{
	const struct xfer_ctx *x = op->x;
	const struct scenario *s = x->fab->s;
	double lat = fab_path_latency(x->fab, path, n);
	double pad = (op->sp.method == XFER_P2P ? xfer_copy_lat(s, op->sp.src, op->sp.dst)
						 : s->k.v[K_P2P_LAT_US] * 1e-6) - lat;
	if (pad < 0)
		pad = 0;
	if (x->vm_translate)
		pad += s->k.v[K_VM_DMA_US] * 1e-6;
	return pad;
}

static int start_flow(struct xop *op, const int *path, int n, double bytes, double at,
		      sim_flow_done_fn fn, struct plumb_err *err)
{
	struct sim_flow_spec fs;
	memset(&fs, 0, sizeof(fs));
	fs.path = path;
	fs.path_len = n;
	fs.bytes = bytes;
	fs.start = at + copy_pad(op, path, n);
	fs.on_done = fn;
	fs.arg = op;
	return sim_flow_start(op->x->fab->net, &fs, NULL, err);
}

static int p2p_done(struct sim_net *net, int flow, void *arg, struct plumb_err *err)
{
	(void)net;
	(void)flow;
	return op_finish(arg, err);
}

static double chunk_bytes(const struct xop *op, int k)
{
	double left = op->sp.bytes - op->chunk * k;
	return left < op->chunk ? (left > 0 ? left : 0) : op->chunk;
}

static int leg1_done(struct sim_net *net, int flow, void *arg, struct plumb_err *err);

/* Queue op for a staging buffer (FIFO). */
static int wait_buffer(struct xfer_ctx *x, struct xop *op, struct plumb_err *err)
{
	if (op->waiting)
		return 0;
	if (x->nwait == x->capwait) {
		size_t cap = x->capwait ? 2 * x->capwait : 16;
		void **nw = realloc(x->wait, cap * sizeof(*nw));
		if (!nw)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		x->wait = nw;
		x->capwait = cap;
	}
	x->wait[x->nwait++] = op;
	op->waiting = 1;
	return 0;
}

/* Start op's next leg 1 when its DMA engine and a staging buffer are free. */
static int try_leg1(struct xop *op, struct plumb_err *err)
{
	struct xfer_ctx *x = op->x;
	int rc;
	if (op->leg1_busy || op->leg1_started >= op->nchunks)
		return 0;
	if (op->serial && op->leg2_done < op->leg1_started)
		return 0;    /* the previous chunk's leg 2 is still reading */
	if (x->free_bufs == 0)
		return wait_buffer(x, op, err);
	x->free_bufs--;
	op->leg1_busy = 1;
	rc = start_flow(op, op->to_host, op->nto, chunk_bytes(op, op->leg1_started),
			sim_now(x->eng), leg1_done, err);
	op->leg1_started++;
	return rc;
}

/* A staging buffer came free: give it to the first waiting transfer. */
static int release_buffer(struct xfer_ctx *x, struct plumb_err *err)
{
	x->free_bufs++;
	while (x->nwait > 0 && x->free_bufs > 0) {
		struct xop *op = x->wait[0];
		int rc;
		memmove(x->wait, x->wait + 1, (x->nwait - 1) * sizeof(*x->wait));
		x->nwait--;
		op->waiting = 0;
		if ((rc = try_leg1(op, err)) < 0)
			return rc;
	}
	return 0;
}

static int leg2_done(struct sim_net *net, int flow, void *arg, struct plumb_err *err)
{
	struct xop *op = arg;
	int rc;
	(void)net;
	(void)flow;
	op->leg2_done++;
	if (op->leg2_done == op->nchunks) {
		struct xfer_ctx *x = op->x;
		if ((rc = op_finish(op, err)) < 0)
			return rc;
		return release_buffer(x, err);
	}
	if ((rc = try_leg1(op, err)) < 0)
		return rc;
	return release_buffer(op->x, err);
}

static int leg1_done(struct sim_net *net, int flow, void *arg, struct plumb_err *err)
{
	struct xop *op = arg;
	const struct scenario *s = op->x->fab->s;
	struct sim_payload pl;
	double sync = (s->k.v[K_BOUNCE_FLOOR_US] - 2 * s->k.v[K_P2P_LAT_US]) * 1e-6;
	int rc;
	(void)net;
	(void)flow;
	op->leg1_busy = 0;
	memset(&pl, 0, sizeof(pl));
	pl.p = op;
	pl.i0 = op->leg1_done++;
	if ((rc = sim_after(op->x->eng, sync > 0 ? sync : 0, SIM_PRIO_DEFAULT,
			    op->x->kind_sync, &pl, NULL, err)) < 0)
		return rc;
	return try_leg1(op, err);
}

static int on_sync(struct sim_engine *eng, void *ctx, const struct sim_event *ev,
		   struct plumb_err *err)
{
	struct xop *op = ev->pl.p;
	(void)ctx;
	if (ev->pl.i0 < 0)
		return try_leg1(op, err);
	return start_flow(op, op->from_host, op->nfrom, chunk_bytes(op, (int)ev->pl.i0),
			  sim_now(eng), leg2_done, err);
}

static const struct sim_ops sync_ops = { "xfer_bounce_sync", on_sync };

int xfer_ctx_init(struct xfer_ctx *x, struct sim_engine *eng, struct fabric *fab,
		  struct plumb_err *err)
{
	const struct scenario *s = fab->s;
	memset(x, 0, sizeof(*x));
	x->eng = eng;
	x->fab = fab;
	x->vm_translate = s->vm.mode == SCN_VM && s->vm.host_iommu == SCN_IOMMU_TRANSLATE;
	x->free_bufs = (int)s->k.v[K_BOUNCE_BUFFERS];
	return sim_register(eng, &sync_ops, x, &x->kind_sync, err);
}

void xfer_ctx_release(struct xfer_ctx *x)
{
	free(x->wait);
	x->wait = NULL;
	x->nwait = x->capwait = 0;
}

/*
 * Do the legs of a bounce cross one PCIe link in opposite directions (a
 * switch uplink both GPUs sit under)? Then leg 2's DMA read requests travel
 * up that link behind leg 1's posted writes, and PCIe ordering forbids a
 * read request to pass a posted write (PCIe Base Specification, "Ordering
 * Rules Summary": a non-posted request must not pass a posted request,
 * unless ID-based ordering is enabled): the receiving GPU's reads wait for
 * the writes ahead of them, so the legs do not overlap.
 */
static int legs_share_link(const struct fabric *f, const struct xop *op)
{
	int k, i, j, n = f->s->nnodes;
	for (k = 0; k < n; k++) {
		if (f->up[k] < 0 || f->down[k] < 0)
			continue;
		for (i = 0; i < op->nto && op->to_host[i] != f->up[k]; i++)
			;
		for (j = 0; j < op->nfrom && op->from_host[j] != f->down[k]; j++)
			;
		if (i < op->nto && j < op->nfrom)
			return 1;
	}
	return 0;
}

int xfer_start(struct xfer_ctx *x, const struct xfer_spec *sp, struct plumb_err *err)
{
	const struct scenario *s = x->fab->s;
	struct xop *op;
	int sock;

	if (sp->src < 0 || sp->src >= s->ngpus || sp->dst < 0 || sp->dst >= s->ngpus)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "transfer between GPU%d and GPU%d: the scenario has %d GPUs",
				     sp->src, sp->dst, s->ngpus);
	if (!(sp->bytes >= 0) || !isfinite(sp->bytes))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "transfer size must be >= 0");
	op = calloc(1, sizeof(*op));
	if (!op)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	op->x = x;
	op->sp = *sp;
	x->active++;
	if (sp->method == XFER_P2P ||
	    s->nodes[s->gpu_node[sp->src]].host != s->nodes[s->gpu_node[sp->dst]].host) {
		/* between hosts either way: RDMA through the NICs (fab_path_net) */
		op->np2p = fab_path_gpu(x->fab, sp->src, sp->dst, op->p2p_path);
		if (op->np2p == 0) {
			/* Same GPU: a local copy, modelled as instantaneous. */
			return op_finish(op, err);
		}
		return start_flow(op, op->p2p_path, op->np2p, sp->bytes, sp->start, p2p_done, err);
	}
	if (sp->host_socket >= 0) {
		sock = sp->host_socket;
		op->nto = fab_path_to_host(x->fab, sp->src, sock, op->to_host);
		op->nfrom = fab_path_from_host(x->fab, sock, sp->dst, op->from_host);
	} else {
		/* the staging buffers sit on the sender's NUMA node */
		int node = fab_gpu_numa(x->fab, sp->src);
		op->nto = fab_path_to_node(x->fab, sp->src, node, op->to_host);
		op->nfrom = fab_path_from_node(x->fab, node, sp->dst, op->from_host);
	}
	op->serial = legs_share_link(x->fab, op);
	op->chunk = s->k.v[K_BOUNCE_CHUNK_KIB] * 1024.0;
	op->nchunks = sp->bytes <= op->chunk ? 1 : (int)ceil(sp->bytes / op->chunk);
	if (sp->start > sim_now(x->eng)) {
		struct sim_payload pl;
		memset(&pl, 0, sizeof(pl));
		pl.p = op;
		pl.i0 = -1;   /* begin: ask for a staging buffer at sp->start */
		return sim_at(x->eng, sp->start, SIM_PRIO_DEFAULT, x->kind_sync, &pl, NULL, err);
	}
	return try_leg1(op, err);
}

int xfer_time(const struct scenario *s, int src, int dst, double bytes,
	      enum xfer_method m, int bidir, double *seconds, struct plumb_err *err)
{
	struct sim_engine *eng = NULL;
	struct fabric *fab = NULL;
	struct xfer_ctx x;
	struct xfer_spec sp;
	int rc;

	*seconds = 0;
	if ((rc = sim_engine_new(s->seed, &eng, err)) < 0)
		return rc;
	sim_set_budget(eng, s->event_budget);
	if ((rc = fab_build(eng, s, &fab, err)) < 0)
		goto out;
	if ((rc = xfer_ctx_init(&x, eng, fab, err)) < 0)
		goto out;
	memset(&sp, 0, sizeof(sp));
	sp.src = src;
	sp.dst = dst;
	sp.bytes = bytes;
	sp.method = m;
	sp.host_socket = -1;
	if ((rc = xfer_start(&x, &sp, err)) < 0)
		goto out;
	if (bidir) {
		sp.src = dst;
		sp.dst = src;
		if ((rc = xfer_start(&x, &sp, err)) < 0)
			goto out;
	}
	if ((rc = sim_run(eng, INFINITY, err)) < 0)
		goto out;
	*seconds = sim_now(eng);
	xfer_ctx_release(&x);
out:
	fab_free(fab);
	sim_engine_free(eng);
	return rc;
}
