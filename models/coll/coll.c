/*
 * coll.c - collectives as flows (see coll.h for the model).
 */
#include "coll.h"
#include "coll_int.h"
#include "xfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Take a send off its run's list (it is about to be freed). */
static void send_unlink(struct sendrec *sr)
{
	if (sr->prev)
		sr->prev->next = sr->next;
	else
		sr->r->sends = sr->next;
	if (sr->next)
		sr->next->prev = sr->prev;
}

static int on_recv(struct crun *r, const struct sendrec *sr, struct plumb_err *err);
static int on_recv_step(struct crun *r, const struct sendrec *sr, int n, int j,
			struct plumb_err *err);

static int flow_done(struct sim_net *net, int flow, void *arg, struct plumb_err *err)
{
	struct sendrec *sr = arg;
	struct sendrec copy;
	(void)net;
	(void)flow;
	if (--sr->remaining > 0)
		return 0;
	copy = *sr;
	send_unlink(sr);
	free(sr);
	return on_recv(copy.r, &copy, err);
}

/*
 * A send between hosts: NCCL's channels cross over every NIC of the hosts
 * (fab_net_ways, at least one way per channel), each way its own path
 * (fab_path_net) carrying an equal share. Inside a host: one flow per
 * channel on the pair's path (P2P, or SHM through host memory).
 */
int coll_send_flow(const struct crun *r, int src, int dst, double bytes, int chain, int w,
		   struct coll_flow *f)
{
	int a = r->c->gpus[src], b = r->c->gpus[dst], sh = r->shm[src * r->n + dst];
	double lat = r->step_lat[src * r->n + dst];

	f->cap = 0;
	f->mult = 1;
	if (sh == 2) {
		int ways = fab_net_ways(r->fab, a, b);
		const int *wl = NULL;
		if (chain >= 0 && r->cway && r->cway[chain * (r->nways + 1)] > 0) {
			/* a tree channel crosses over its own NICs */
			wl = &r->cway[chain * (r->nways + 1) + 1];
			ways = wl[-1];
		} else if (ways < r->nch) {
			ways = r->nch;
		}
		if (r->ch_cap > 0)
			f->cap = r->ch_cap * r->nch / ways;
		f->bytes = bytes / r->eff / ways;
		f->delay = lat;
		f->len = fab_path_net(r->fab, a, b, wl ? wl[w] : w, f->buf);
		f->path = f->buf;
		return ways;
	}
	if (sh) {
		f->len = fab_route_shm(r->fab, a, b, f->buf, &f->path);
		/* The cap is a payload rate per GPU, shared by the channels;
		 * flows carry wire bytes. */
		f->cap = r->s->k.v[K_NCCL_SHM_GBS] * 1e9 / r->eff / r->nch;
		if (r->shm_ll_cap > 0 && r->shm_ll_cap < f->cap)
			f->cap = r->shm_ll_cap;
	} else {
		f->len = fab_route_gpu(r->fab, a, b, f->buf, &f->path);
	}
	if (r->ch_cap > 0 && (f->cap == 0 || r->ch_cap < f->cap))
		f->cap = r->ch_cap;
	f->bytes = bytes / r->eff / r->nch;
	f->mult = r->nch;
	f->delay = lat;
	if (sh == 1 && r->shm_ll_cap > 0)
		/* the step's latency already holds its first load round trip
		 * (the poll that sees the line): the cap times the others */
		f->delay = fmax(0, lat - fmin(r->s->k.v[K_NCCL_SHM_RD_US] * 1e-6,
					      f->bytes / r->shm_ll_cap));
	if (f->len == 0 && f->cap == 0)
		f->cap = 1e18;   /* same GPU twice: nothing crosses a link */
	return 1;
}

/* Start the flows of a send (coll_send_flow) after the hop's step latency
 * and shift seconds more; chain: the chain a chain's send belongs to, else -1. */
static int send_ch(struct crun *r, int src, int dst, int phase, int idx, double bytes,
		   int chain, double shift, struct plumb_err *err)
{
	struct sim_flow_spec fs;
	struct coll_flow f;
	struct sendrec *sr = malloc(sizeof(*sr));
	int rc, w, nw;

	if (!sr)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	sr->r = r;
	sr->src = src;
	sr->dst = dst;
	sr->phase = phase;
	sr->idx = idx;
	sr->ch = chain;
	sr->bytes = bytes;
	sr->prev = NULL;
	sr->next = r->sends;
	if (r->sends)
		r->sends->prev = sr;
	r->sends = sr;
	memset(&fs, 0, sizeof(fs));
	nw = coll_send_flow(r, src, dst, bytes, chain, 0, &f);
	sr->remaining = nw;
	for (w = 0; w < nw; w++) {
		if (w > 0)
			coll_send_flow(r, src, dst, bytes, chain, w, &f);
		fs.path = f.path;
		fs.path_len = f.len;
		fs.rate_cap = f.cap;
		fs.bytes = f.bytes;
		fs.start = sim_now(r->eng) + fmax(0, f.delay + shift);
		fs.on_done = flow_done;
		fs.arg = sr;
		/* the channels inside a host: f.mult identical flows, started
		 * as one that shares the links as they would (sim_flow_start_n) */
		if ((rc = sim_flow_start_n(r->fab->net, &fs, f.mult, NULL, err)) < 0) {
			if (w == 0) {
				send_unlink(sr);
				free(sr);
			}
			return rc;
		}
	}
	return 0;
}

static int send_now(struct crun *r, int src, int dst, int phase, int idx, double bytes,
		    struct plumb_err *err)
{
	return send_ch(r, src, dst, phase, idx, bytes, -1, 0, err);
}

int coll_send_shift(struct crun *r, int src, int dst, int phase, int idx, double bytes,
		    int chain, double shift, struct plumb_err *err)
{
	return send_ch(r, src, dst, phase, idx, bytes, chain, shift, err);
}

void coll_run_free(struct crun *r)
{
	if (!r)
		return;
	coll_sparse_free(r);
	free(r->rsucc);
	free(r->ord);
	free(r);
}

static int chain_next(const struct crun *r, int i, int dir)
{
	return (i + dir + r->n) % r->n;
}

/* All receives in: report and free the run. */
static int finish(struct crun *r, struct plumb_err *err)
{
	int rc = 0;
	r->ctx->active--;
	if (r->prev)
		r->prev->next = r->next;
	else
		r->ctx->runs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	if (r->done)
		rc = r->done(r->ctx, sim_now(r->eng) - r->t0, r->arg, err);
	coll_run_free(r);
	return rc;
}

int coll_finish_after(struct crun *r, double after, struct plumb_err *err)
{
	struct sim_payload pl;
	memset(&pl, 0, sizeof(pl));
	pl.p = r;
	r->recv_need = -1;      /* on_start: the end */
	return sim_after(r->eng, after > 0 ? after : 0, SIM_PRIO_DEFAULT, r->ctx->kind_start, &pl,
			 NULL, err);
}

static int on_recv(struct crun *r, const struct sendrec *sr, struct plumb_err *err)
{
	int n = r->n, j = sr->dst, rc = 0;
	r->recv_total++;
	rc = on_recv_step(r, sr, n, j, err);
	if (rc < 0)
		return rc;
	if (r->recv_total == r->recv_need)
		/* RCCL's allpairs copies the gathered shards out of the
		 * connections' buffers last (coll_msccl_local_s) */
		return r->msccl ? coll_finish_after(r, coll_msccl_local_s(r, 2), err) : finish(r, err);
	return 0;
}

/* Chain order, in positions of a chain: broadcast runs root, root+1, ...;
 * the tree's reduce runs n-1 -> 0 and its broadcast 0 -> n-1. */
enum { C_SENT, C_RECV, C_BUSY };
#define CST(r, t, ph, p, k) ((r)->cst[(((t) * 2 + (ph)) * (r)->n + (p)) * 3 + (k)])
static int chain_head(const struct crun *r, int ph)
{
	if (ph == 0)
		return r->n - 1;
	return r->c->op == COLL_BROADCAST ? r->c->root : 0;
}

static int chain_succ(const struct crun *r, int ph, int i)
{
	if (ph == 0)
		return i > 0 ? i - 1 : -1;
	i = chain_next(r, i, 1);
	return i == chain_head(r, 1) ? -1 : i;
}

/* Chunks position i of chain t holds for phase ph. */
static int chain_avail(const struct crun *r, int t, int ph, int i)
{
	if (i == chain_head(r, ph))
		return ph == 1 && r->c->op == COLL_ALLREDUCE ? CST(r, t, 0, 0, C_RECV) : r->nchunks;
	return CST(r, t, ph, i, C_RECV);
}

/* Send position i's next chunk of chain t, phase ph, if it has one and is
 * not busy. Each chain carries its share of the buffer. */
static int chain_try(struct crun *r, int t, int ph, int i, struct plumb_err *err)
{
	int j = chain_succ(r, ph, i);
	if (j < 0 || CST(r, t, ph, i, C_BUSY) || CST(r, t, ph, i, C_SENT) >= chain_avail(r, t, ph, i))
		return 0;
	CST(r, t, ph, i, C_BUSY) = 1;
	return send_ch(r, r->ord[t * r->n + i], r->ord[t * r->n + j],
		       ph == 0 ? PH_REDUCE : PH_BCAST, CST(r, t, ph, i, C_SENT)++,
		       r->c->bytes / r->nchunks / r->nchain, t, 0, err);
}

double coll_shot_barrier(const struct crun *r)
{
	/* RCCL's allpairs: one thread block reduces the n - 1 shards it
	 * received one after another (the "re" steps of
	 * allreduce-allpairs-8n-*.xml), before the all-gather: each a reduce
	 * in the GPU's own memory and a barrier, no link crossed
	 * (src/device/msccl_kernel_impl.h MSCCL_REDUCE), rccl_step_us each
	 * whatever the protocol; first the received shards' copies out of the
	 * connections' buffers and the reduces' memory traffic
	 * (coll_msccl_local_s). The engine's kernel: its second barrier. */
	return r->msccl ? (r->n - 1) * r->s->k.v[K_RCCL_STEP_US] * 1e-6 +
			  coll_msccl_local_s(r, 1) :
			  r->s->k.v[K_ONESHOT_US] * 1e-6;
}

static int on_recv_step(struct crun *r, const struct sendrec *sr, int n, int j,
			struct plumb_err *err)
{
	int ph, rc, t, ps, pj;
	switch (sr->phase) {
	case PH_RING:
		if (r->kdata > 0)
			return coll_sparse_recv(r, sr, err);
		if (r->nring > 0) {
			int *got = &r->rgot[sr->ch * n + j];
			if (++*got < r->nsteps)
				return send_ch(r, j, r->rsucc[sr->ch * n + j], PH_RING, *got, r->chunk,
					       sr->ch, 0, err);
			return 0;
		}
		r->got[j]++;
		if (r->got[j] < r->nsteps)
			return send_now(r, j, (j + 1) % n, PH_RING, r->got[j], r->chunk, err);
		return 0;
	case PH_SHOT1:
		/* Two-shot: when every rank holds its reduced shard, the
		 * kernel's second barrier (coll_shot_barrier), then the
		 * all-gather of the shards. */
		if (r->recv_total == n * (n - 1)) {
			struct sim_payload pl;
			memset(&pl, 0, sizeof(pl));
			pl.p = r;
			r->shot2 = 1;
			return sim_after(r->eng, coll_shot_barrier(r), SIM_PRIO_DEFAULT,
					 r->ctx->kind_start, &pl, NULL, err);
		}
		return 0;
	case PH_REDUCE:
	case PH_BCAST:
		ph = sr->phase == PH_REDUCE ? 0 : 1;
		t = sr->ch;
		ps = r->pos[t * n + sr->src];
		pj = r->pos[t * n + j];
		CST(r, t, ph, pj, C_RECV)++;
		CST(r, t, ph, ps, C_BUSY) = 0;
		if ((rc = chain_try(r, t, ph, ps, err)) < 0 || (rc = chain_try(r, t, ph, pj, err)) < 0)
			return rc;
		/* The chain's first rank turns reduced chunks around for the
		 * broadcast. */
		if (ph == 0 && pj == 0)
			return chain_try(r, t, 1, 0, err);
		return 0;
	default:
		return 0;
	}
}

static int on_start(struct sim_engine *eng, void *ctx, const struct sim_event *ev,
		    struct plumb_err *err)
{
	struct crun *r = ev->pl.p;
	const struct coll_spec *c = r->c;
	int n = r->n, i, j, rc;
	(void)eng;
	(void)ctx;
	if (r->recv_need < 0)
		return finish(r, err);  /* the end coll_finish_after set */
	if (r->kdata > 0)
		return coll_sparse_start(r, err);
	switch (c->op) {
	case COLL_ALLTOALL:
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (i != j && (rc = send_now(r, i, j, PH_DIRECT, 0, c->bytes / n, err)) < 0)
					return rc;
		r->recv_need = n * (n - 1);
		return 0;
	case COLL_SENDRECV:
		for (i = 0; i < n; i++)
			if ((rc = send_now(r, i, (i + 1) % n, PH_DIRECT, 0, c->bytes, err)) < 0)
				return rc;
		r->recv_need = n;
		return 0;
	case COLL_BROADCAST:
		r->recv_need = (n - 1) * r->nchunks;
		return chain_try(r, 0, 1, c->root, err);
	default:
		break;
	}
	if (r->algo == ALGO_TREE && c->op == COLL_ALLREDUCE) {
		int t;
		r->recv_need = 2 * (n - 1) * r->nchunks * r->nchain;
		for (t = 0; t < r->nchain; t++)
			if ((rc = chain_try(r, t, 0, n - 1, err)) < 0)
				return rc;
		return 0;
	}
	if (r->algo == ALGO_TWOSHOT) {
		/* Each rank reads its shard from every peer (reduce-scatter),
		 * then, after a barrier, every reduced shard (all-gather). */
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (i != j && (rc = send_now(r, j, i, r->shot2 ? PH_SHOT2 : PH_SHOT1, 0,
							     c->bytes / n, err)) < 0)
					return rc;
		r->recv_need = 2 * n * (n - 1);
		return 0;
	}
	if (r->algo == ALGO_ONESHOT) {
		/* Every rank reads every peer's whole buffer at once. */
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (i != j && (rc = send_now(r, j, i, PH_DIRECT, 0, c->bytes, err)) < 0)
					return rc;
		r->recv_need = n * (n - 1);
		return 0;
	}
	if (r->nring > 0) {
		int t;
		for (t = 0; t < r->nring; t++)
			for (i = 0; i < n; i++)
				if ((rc = send_ch(r, i, r->rsucc[t * n + i], PH_RING, 0, r->chunk, t,
						  0, err)) < 0)
					return rc;
		r->recv_need = r->nring * n * r->nsteps;
		return 0;
	}
	for (i = 0; i < n; i++)
		if ((rc = send_now(r, i, (i + 1) % n, PH_RING, 0, r->chunk, err)) < 0)
			return rc;
	r->recv_need = n * r->nsteps;
	return 0;
}

static const struct sim_ops start_ops = { "coll_start", on_start };

/*
 * RCCL's rings on an xGMI mesh (coll_rccl.c): the channels the size keeps
 * spread over the mesh's rings, two per ring as connect.cc doubles every
 * ring of the search (RCCL is NCCL's fork), a ring dropped when fewer
 * channels are left than rings; each ring carries its share of the buffer.
 */
static int mesh_rings(struct crun *r, struct coll_graph *g, const struct coll_spec *c, int proto,
		      struct plumb_err *err)
{
	int n = r->n, nr, nc;
	if (!(r->rsucc = malloc((size_t)2 * (n - 1) * n * sizeof(*r->rsucc))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	nr = coll_mesh_rings(n, r->rsucc);
	r->rgot = r->rsucc + (size_t)(n - 1) * n;
	memset(r->rgot, 0, (size_t)(n - 1) * n * sizeof(*r->rgot));
	if (!r->s->k.set[K_NCCL_CHANNELS])
		g->nch = 2 * nr;
	nc = coll_tune_nch(g, c->bytes, n, proto);
	r->nring = nc < nr ? nc : nr;
	r->nch = nc / r->nring > 0 ? nc / r->nring : 1;
	return 0;
}


int coll_ctx_init(struct coll_ctx *x, struct sim_engine *eng, struct fabric *fab,
		  const struct topo_view *view, struct plumb_err *err)
{
	memset(x, 0, sizeof(*x));
	x->eng = eng;
	x->fab = fab;
	x->view = view;
	return sim_register(eng, &start_ops, x, &x->kind_start, err);
}

/*
 * The ranks rank i may send to under r's schedule, into js (room 2 + 2 x
 * chains): its neighbours in rank order and in every chain, each once;
 * returns their count, or -1 when it may send to every rank (RCCL's mesh
 * rings, all-to-all, the engine's kernels). O(chains).
 */
static int pair_cands(const struct crun *r, const struct coll_spec *c, int algo, int mesh, int i,
		      int *js)
{
	int n = r->n, m = 0, t, k, q, cand[2];
	if (mesh || c->op == COLL_ALLTOALL || algo == ALGO_ONESHOT || algo == ALGO_TWOSHOT)
		return -1;
	cand[0] = (i + 1) % n;
	cand[1] = (i + n - 1) % n;
	for (k = 0; k < 2; k++) {
		for (q = 0; q < m && js[q] != cand[k]; q++)
			;
		if (q == m)
			js[m++] = cand[k];
	}
	for (t = 0; r->ord && t < r->nchain; t++) {
		int p = r->pos[t * n + i];
		cand[0] = p > 0 ? r->ord[t * n + p - 1] : -1;
		cand[1] = p < n - 1 ? r->ord[t * n + p + 1] : -1;
		for (k = 0; k < 2; k++) {
			if (cand[k] < 0)
				continue;
			for (q = 0; q < m && js[q] != cand[k]; q++)
				;
			if (q == m)
				js[m++] = cand[k];
		}
	}
	return m;
}

int coll_run_new(struct coll_ctx *x, const struct coll_spec *c, int algo, int proto,
		 struct coll_result *res, struct crun **out, struct plumb_err *err)
{
	static const int base_k[PROTO_N] = { K_NCCL_BASE_US, K_NCCL_BASE_LL128_US, K_NCCL_BASE_SIMPLE_US };
	static const int pci_k[PROTO_N] = { K_NCCL_PCI_LL_US, K_NCCL_PCI_LL128_US, K_NCCL_PCI_SIMPLE_US };
	static const int nvl_k[PROTO_N] = { K_NCCL_NVL_LL_US, K_NCCL_NVL_LL128_US, K_NCCL_NVL_SIMPLE_US };
	static const int net_k[PROTO_N] = { K_NCCL_NET_LL_US, K_NCCL_NET_LL128_US, K_NCCL_NET_SIMPLE_US };
	const struct scenario *s = x->fab->s;
	const struct topo_view *view = x->view;
	struct crun *r;
	int i, j, rc, all_nvl = 1, hosts = 0, p2p, mesh, *js;
	double net_floor = 0;
	struct coll_graph g;

	*out = NULL;
	if (c->n < 2 || c->n > s->ngpus)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "a simulated collective needs 2 to %d ranks", s->ngpus);
	if ((algo == ALGO_TREE || algo == ALGO_ONESHOT || algo == ALGO_TWOSHOT) &&
	    c->op != COLL_ALLREDUCE)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "the %s algorithm is modelled for all-reduce only",
				     coll_algo_name(algo));
	/* RCCL runs LL128 on gfx90a only (coll_rccl_ll128): not here, before
	 * any set-up (NVLink rings are checked below, hop by hop) */
	if (proto == PROTO_LL128 && s->xgmi && !coll_rccl_ll128(s, c))
		return 1;
	/* One block: the run, then its n x n latency table, its ranks' GPUs
	 * and steps received, and its n x n transport table. The tables are
	 * left unset but for the pairs the schedule sends over (set below),
	 * the only ones read: O(n) for a ring or chains, not O(n^2). */
	r = malloc(sizeof(*r) + (size_t)c->n * c->n * (sizeof(double) + 1) +
		   (size_t)2 * c->n * sizeof(int));
	if (!r)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	memset(r, 0, sizeof(*r));
	r->step_lat = (double *)(void *)(r + 1);
	r->gpus = (int *)(void *)(r->step_lat + (size_t)c->n * c->n);
	r->got = r->gpus + c->n;
	r->shm = (unsigned char *)(r->got + c->n);
	memset(r->got, 0, (size_t)c->n * sizeof(*r->got));
	memcpy(r->gpus, c->gpus, (size_t)c->n * sizeof(*r->gpus));
	r->s = s;
	r->eng = x->eng;
	r->fab = x->fab;
	r->ctx = x;
	r->spec = *c;
	r->spec.gpus = r->gpus;
	r->c = &r->spec;
	r->view = view;
	r->algo = algo;
	r->proto = proto;
	r->n = c->n;
	if (res)
		res->shm_hops = res->p2p_hops = res->net_hops = 0;
	hosts = coll_spans_hosts(s, c);
	if (algo == ALGO_TREE || c->op == COLL_BROADCAST) {
		int *blk = coll_chains_new(x->fab, c, hosts && algo == ALGO_TREE, &r->nchain,
					   &r->nways);
		if (!blk) {
			free(r);
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		r->ord = blk;
		r->pos = blk + r->nchain * r->n;
		r->cway = r->pos + r->nchain * r->n;
		r->cst = r->cway + r->nchain * (r->nways + 1);
	}
	if (hosts) {
		/* NCCL's getNetOverhead floors every intra-node step of a ring
		 * that spans nodes: 1 us on Intel, 2 us on AMD, three times that
		 * for Simple (src/graph/tuning.cc). */
		net_floor = s->k.v[K_NCCL_NET_OVERHEAD_US];
		if (!s->k.set[K_NCCL_NET_OVERHEAD_US] && s->host.cpu_vendor == SCN_AMD)
			net_floor = 2.0;
		if (proto == PROTO_SIMPLE)
			net_floor *= 3;
	}
	/* RCCL on an xGMI mesh runs its ring collectives over every link */
	mesh = !hosts && algo == ALGO_RING && c->op != COLL_SENDRECV && c->op != COLL_ALLTOALL &&
	       c->op != COLL_BROADCAST && coll_xgmi_mesh(x->fab, c);
	if (!(js = malloc((size_t)(2 + 2 * (r->nchain > 0 ? r->nchain : 1)) * sizeof(*js)))) {
		coll_run_free(r);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	for (i = 0; i < r->n; i++) {
		int nc = pair_cands(r, c, algo, mesh, i, js), k;
		for (k = 0; k < (nc < 0 ? r->n : nc); k++) {
			int a, b, nvl, net;
			j = nc < 0 ? k : js[k];
			a = c->gpus[i];
			b = c->gpus[j];
			if (i == j)
				continue;
			r->shm[i * r->n + j] = 0;
			r->step_lat[i * r->n + j] = 0;
			if (a == b)
				continue;       /* the same GPU twice: nothing to cross */
			/* pairs the schedule never sends over need no latency */
			if (!mesh && !coll_uses_pair(c, algo, i, j, r->nchain > 1 ? r->pos : NULL, r->nchain) &&
			    !(r->ord && coll_uses_pair(c, algo, i, j, r->pos, r->nchain)))
				continue;
			net = s->nodes[s->gpu_node[a]].host != s->nodes[s->gpu_node[b]].host;
			r->shm[(i) * r->n + (j)] = net ? 2 : view->xport[a][b] != XP_P2P;
			nvl = !r->shm[(i) * r->n + (j)] && coll_nvlink_path(r->fab, a, b);
			if (mesh || coll_uses_pair(c, algo, i, j, r->nchain > 1 ? r->pos : NULL, r->nchain)) {
				/* LL128 crosses the network (NCCL's NET has it);
				 * inside a host it needs NVLink */
				all_nvl &= nvl || net;
				if (res && net)
					res->net_hops++;
				else if (res && r->shm[(i) * r->n + (j)])
					res->shm_hops++;
				else if (res)
					res->p2p_hops++;
			}
			if (net) {
				/* NCCL's interLat: its NET hardware latency per step
				 * (src/graph/tuning.cc hwLatencies NET, Ring) */
				int buf[FAB_MAX_PATH], np = fab_path_net(r->fab, a, b, 0, buf);
				double hw = s->k.v[net_k[proto]] * 1e-6 - fab_path_latency(r->fab, buf, np);
				r->step_lat[(i) * r->n + (j)] = hw > 0 ? hw : 0;
				continue;
			}
			{
				/* NCCL's per-step latency already holds the wire's: the
				 * flow adds its path latency, so delay by the rest. */
				int buf[FAB_MAX_PATH], np;
				const int *path;
				double hw = fmax(nvl ? s->k.v[nvl_k[proto]] : s->k.v[pci_k[proto]], net_floor) * 1e-6;
				np = r->shm[(i) * r->n + (j)] ? fab_route_shm(r->fab, a, b, buf, &path)
						  : fab_route_gpu(r->fab, a, b, buf, &path);
				hw -= fab_path_latency(r->fab, path, np);
				r->step_lat[(i) * r->n + (j)] = hw > 0 ? hw : 0;
			}
			if (r->shm[(i) * r->n + (j)])
				/* A guest's host path (vmhost.c) stays with the
				 * VM: bare metal never pays it. */
				r->step_lat[(i) * r->n + (j)] +=
					(s->k.v[K_NCCL_SHM_STEP_US] + coll_vm_step_us(s)) * 1e-6;
			else if (!nvl)
				/* NCCL's PCI latency is a recent GPU's; GPUs whose
				 * measured P2P copy latency is longer pay the rest. */
				r->step_lat[(i) * r->n + (j)] += fmax(0, xfer_copy_lat(s, a, b) -
							     s->k.v[K_P2P_LAT_US] * 1e-6);
			if (mesh)
				/* RCCL's ring step: its rank's own barriers and
				 * counters (rccl_step_us) before the hop NCCL's
				 * latency holds (coll_rccl.c) */
				r->step_lat[(i) * r->n + (j)] += s->k.v[K_RCCL_STEP_US] * 1e-6;
		}
	}
	free(js);
	/* LL128 needs NVLink on every hop (NCCL turns it off on PCIe);
	 * RCCL runs it on gfx90a only (coll_rccl_ll128). */
	if (proto == PROTO_LL128 && (!all_nvl || (s->xgmi && !coll_rccl_ll128(s, c)))) {
		coll_run_free(r);
		return 1;
	}
	if (algo == ALGO_ONESHOT || algo == ALGO_TWOSHOT) {
		/* The engine's kernel reads its peers' buffers with CUDA P2P
		 * (not NCCL, so NCCL_P2P_LEVEL does not matter): without P2P
		 * status OK on every pair it is not there. Its own fixed time
		 * (launch and barrier; two-shot pays a second barrier between
		 * its phases) replaces NCCL's latencies; its reads reach
		 * oneshot_bw_eff of a link, on the GPU-to-GPU paths. */
		for (i = 0; i < r->n; i++)
			for (j = 0; j < r->n; j++) {
				int a = c->gpus[i], b = c->gpus[j];
				if (i == j || a == b)
					continue;
				if (view->p2p[a][b] != P2P_OK) {
					coll_run_free(r);
					return 1;
				}
				r->shm[(i) * r->n + (j)] = 0;
			}
		r->nch = 1;
		r->nsteps = 1;
		r->chunk = c->bytes;
		r->nchunks = 1;
		/* a two-shot the search picked (or a step replays) where no
		 * engine kernel is in play is RCCL's allpairs */
		if (algo == ALGO_TWOSHOT &&
		    ((c->custom & COLL_CUSTOM_MSCCL) ||
		     (c->algo == ALGO_AUTO && !(c->custom & (COLL_CUSTOM_ONESHOT | COLL_CUSTOM_TWOSHOT)))) &&
		    coll_msccl_allpairs(s, view, c, &i, &r->nch) && i == proto) {
			/* RCCL's allpairs: its protocol's payload share, its
			 * channels, NCCL's base latency and floor once and the
			 * per-step latency on each of the two exchanges */
			r->msccl = 1;
			r->eff = proto == PROTO_LL ? s->k.v[K_NCCL_LL_FRAC] * s->k.v[K_NCCL_BW_EFF] :
							  s->k.v[K_NCCL_BW_EFF];
			r->ch_cap = s->k.v[K_NCCL_CH_GBS] * 1e9 / r->eff;
			r->t_first = (s->k.v[base_k[proto]] + s->k.v[K_NCCL_FLOOR_US]) * 1e-6;
		} else {
			for (i = 0; i < r->n * r->n; i++)
				r->step_lat[i] = 0;
			r->nch = 1;
			r->eff = s->k.v[K_ONESHOT_BW_EFF];
			r->t_first = s->k.v[K_ONESHOT_US] * 1e-6;
		}
		*out = r;
		return 0;
	}
	/* Payload fraction: Simple reaches nccl_bw_eff of the link, LL128
	 * 120 of 128 bytes of that, LL nccl_ll_frac of it (8 of 16 bytes). */
	r->eff = proto == PROTO_LL ? s->k.v[K_NCCL_LL_FRAC] * s->k.v[K_NCCL_BW_EFF] :
		 proto == PROTO_LL128 ? 120.0 / 128.0 * s->k.v[K_NCCL_BW_EFF] : s->k.v[K_NCCL_BW_EFF];
	/* Channels (one thread block each) as NCCL runs them: the ring
	 * collectives as many as enqueue.cc keeps for the size, a p2p
	 * transfer (send/recv, all-to-all) as many as its p2p schedule gives
	 * one peer (coll_tune.c). A channel moves at most nccl_ch_gbs; a p2p
	 * channel gives half its threads to receiving, so sends at half. */
	coll_graph_of(s, view, c, &g);
	p2p = c->op == COLL_SENDRECV || c->op == COLL_ALLTOALL;
	if (hosts)
		/* NCCL's search between hosts (NICs, PXN) is not followed:
		 * nccl_channels flows, no channel cap */
		r->nch = (int)s->k.v[K_NCCL_CHANNELS];
	else if (p2p)
		r->nch = coll_p2p_nch(&g, c->op == COLL_ALLTOALL ? c->bytes / c->n : c->bytes, c->n);
	else
		r->nch = coll_tune_nch(&g, c->bytes, c->n, proto);
	if (r->nch < 1 || r->nchain > 1)
		r->nch = 1;         /* a tree between hosts: its chains are the channels */
	if (mesh && (rc = mesh_rings(r, &g, c, proto, err)) < 0) {
		coll_run_free(r);
		return rc;
	}
	if (!hosts)
		r->ch_cap = s->k.v[K_NCCL_CH_GBS] * 1e9 / r->eff / (p2p ? 2 : 1);
	if (proto != PROTO_SIMPLE) {
		/* NCCL's LL caps (llMaxBws) bound the collective's bus bandwidth,
		 * LL128's (perChMaxRingLL128Bws) each of the search's rings,
		 * which the communicator runs on g.nch channels; by GPU
		 * generation of the slowest rank. */
		int gen = g.sm < 80 ? 0 : g.sm < 90 ? 1 : g.sm < 100 ? 2 : 3;
		double cap;
		if (proto == PROTO_LL)
			cap = s->k.v[K_NCCL_LL_MAX_VOLTA + gen] * 1e9 / r->eff / r->nch /
			      (r->nchain > 1 ? r->nchain : 1) / (r->nring > 0 ? r->nring : 1);
		else
			cap = s->k.v[K_NCCL_LL128_CH_VOLTA + gen] * 1e9 / r->eff *
			      (hosts || g.nch < 1 ? 1.0 : (double)g.graph_ch / g.nch);
		r->ch_cap = r->ch_cap > 0 ? fmin(r->ch_cap, cap) : cap;
	}
	if (proto == PROTO_LL && !p2p && !hosts && r->nchain <= 1) {
		/* LL through host memory (NCCL's SHM transport keeps every
		 * FIFO in host memory, src/transport/shm.cc shmRecvConnect):
		 * each thread of the receiving channel polls one 16-byte line
		 * (8 bytes of payload) with a volatile load per trip and
		 * waits for it before the next (src/device/prims_ll.h readLL,
		 * LLGenericOp). A channel then moves threads x 8 bytes per
		 * load round trip to host memory, whatever the link's rate. */
		int nt = coll_tune_nthreads(&g, c->bytes, c->n, proto);
		r->shm_ll_cap = nt * 8.0 / (s->k.v[K_NCCL_SHM_RD_US] * 1e-6) / r->eff;
	}
	r->nsteps = c->op == COLL_ALLREDUCE ? 2 * (r->n - 1) : r->n - 1;
	r->chunk = c->bytes / r->n / (r->nring > 0 ? r->nring : 1);
	if (mesh && c->op == COLL_ALLREDUCE && proto == PROTO_LL && r->nring == 1 && r->nch == 1 &&
	    (r->kdata = coll_rccl_ring_chunks(c->bytes, r->n)) > 0) {
		/* RCCL's ring with chunks that carry nothing (coll_rccl.c):
		 * a chunk holds at most 16 bytes here */
		r->idle = s->k.v[K_RCCL_STEP_US] * 1e-6;
		r->chunk = fmin(c->bytes, 16.0);
	}
	r->nchunks = (int)ceil(c->bytes / (r->nchain > 1 ? r->nchain : 1) / COLL_CHUNK);
	if (r->nchunks < 1)
		r->nchunks = 1;
	if (r->nchunks > COLL_MAX_CHUNKS)
		r->nchunks = COLL_MAX_CHUNKS;
	/* NCCL's base latency, and the fixed floor of every collective */
	r->t_first = (s->k.v[base_k[proto]] + s->k.v[K_NCCL_FLOOR_US]) * 1e-6;
	*out = r;
	return 0;
}

int coll_start(struct coll_ctx *x, const struct coll_spec *c, int algo, int proto,
	       double start, coll_done_fn done, void *arg, struct coll_result *res,
	       struct plumb_err *err)
{
	struct crun *r;
	struct sim_payload pl;
	int rc = coll_run_new(x, c, algo, proto, res, &r, err);

	if (rc != 0)
		return rc;
	r->done = done;
	r->arg = arg;
	r->t0 = start;
	memset(&pl, 0, sizeof(pl));
	pl.p = r;
	if ((rc = sim_at(x->eng, start + r->t_first, SIM_PRIO_DEFAULT, x->kind_start, &pl, NULL,
			 err)) < 0) {
		coll_run_free(r);
		return rc;
	}
	x->active++;
	r->next = x->runs;
	if (x->runs)
		x->runs->prev = r;
	x->runs = r;
	return 0;
}

void coll_ctx_release(struct coll_ctx *x)
{
	while (x->runs) {
		struct crun *r = x->runs;
		x->runs = r->next;
		while (r->sends) {
			struct sendrec *sr = r->sends;
			r->sends = sr->next;
			free(sr);
		}
		coll_run_free(r);
	}
	x->active = 0;
}

