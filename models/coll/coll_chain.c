/*
 * coll_chain.c - the rings and chains a collective runs over (coll.h,
 * coll_int.h): which GPU pairs a ring uses, the per-host chains of a
 * collective that spans hosts, and the links those pairs load.
 */
#include "coll.h"
#include "coll_int.h"
#include "xfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Is the direct path between GPUs a and b all NVLink? */
int coll_nvlink_path(const struct fabric *f, int a, int b)
{
	int buf[FAB_MAX_PATH], n, i;
	const int *path;
	n = fab_route_gpu(f, a, b, buf, &path);
	if (n == 0)
		return 1;
	for (i = 0; i < n; i++) {
		enum sim_link_kind k = sim_net_link_kind(f->net, path[i]);
		if (k != SIM_LINK_NVLINK && k != SIM_LINK_NVSWITCH)
			return 0;
	}
	return 1;
}

/* Rank of host h's GPU g among the collective's ranks, or -1. */
static int rank_on(const struct scenario *s, const struct coll_spec *c, int h, int g)
{
	int i;
	for (i = 0; i < c->n; i++)
		if (c->gpus[i] == g && s->nodes[s->gpu_node[g]].host == h)
			return i;
	return -1;
}

/*
 * The chains of a tree or broadcast, in one block: ord (nchain x n, the rank
 * at each position), pos (nchain x n), cway (nchain x (nways + 1)) and the
 * zeroed chunk state (nchain x 2 x n x 3). NULL when out of memory.
 *
 * In one host a chain runs in rank order. Between hosts it is NCCL's tree
 * (src/graph/trees.cc, connect.cc): every channel chains the GPUs of each
 * host and reaches the next host over one NIC, entering and leaving a host
 * at the GPU nearest that NIC, so the crossing is that GPU's own GPUDirect
 * RDMA (or staged copy), with no PXN hop through another GPU; channels over
 * different NICs cross at different GPUs, which spreads the hosts' traffic
 * over every NIC and the PCIe links of the GPUs near them. The chain stands
 * for the channel's tree: each link carries the buffer's share once up
 * (reduce) and once down (broadcast), a tree's bytes. Channels whose chains
 * come out the same are one chain over all their NICs.
 */
int *coll_chains_new(const struct fabric *f, const struct coll_spec *c, int between,
		     int *nchainp, int *nwaysp)
{
	const struct scenario *s = f->s;
	int n = c->n, *hosts, *first, nh = 0, ways = 1, i, h, w, t;
	int nchain = 0, *o, *blk = NULL, *ord, *pos, *cway;

	if (!(hosts = malloc((size_t)3 * (n + 1) * sizeof(*hosts))))
		return NULL;
	first = hosts + n + 1;
	o = first + n + 1;

	if (between) {
		for (i = 0; i < n; i++) {
			int hi = s->nodes[s->gpu_node[c->gpus[i]]].host;
			for (h = 0; h < nh && hosts[h] != hi; h++)
				;
			if (h == nh) {
				hosts[nh] = hi;
				first[nh++] = i;
			}
		}
		for (h = 0, ways = 0; h + 1 < nh; h++) {
			int k = fab_net_ways(f, c->gpus[first[h]], c->gpus[first[h + 1]]);
			ways = k > ways ? k : ways;
		}
		if (nh < 2 || ways < 1)
			between = 0, ways = 1;
	}
	blk = calloc((size_t)ways * (2 * n + ways + 1 + 6 * n), sizeof(int));
	if (!blk) {
		free(hosts);
		return NULL;
	}
	ord = blk;
	for (w = 0; w < ways; w++) {
		int p = 0;
		if (!between) {
			for (i = 0; i < n; i++)
				o[i] = i;
		}
		for (h = 0; between && h < nh; h++) {
			int in = -1, out = -1, g = fab_net_nic_gpu(f, c->gpus[first[h]], w);
			if (h > 0)
				in = rank_on(s, c, hosts[h], g);
			if (h + 1 < nh) {
				out = rank_on(s, c, hosts[h], g);
				if (out < 0 || out == in)
					/* a host between two others leaves at
					 * another of its GPUs */
					for (i = n - 1, out = -1; i >= 0 && out < 0; i--)
						if (i != in && s->nodes[s->gpu_node[c->gpus[i]]].host == hosts[h])
							out = i;
			}
			if (h > 0 && in < 0)
				in = first[h];
			if (in >= 0 && in == out)
				out = -1;
			if (in >= 0)
				o[p++] = in;
			for (i = 0; i < n; i++)
				if (i != in && i != out && s->nodes[s->gpu_node[c->gpus[i]]].host == hosts[h])
					o[p++] = i;
			if (out >= 0)
				o[p++] = out;
		}
		for (t = 0; t < nchain && memcmp(&ord[t * n], o, n * sizeof(int)); t++)
			;
		if (t == nchain)
			memcpy(&ord[nchain++ * n], o, n * sizeof(int));
		if (between) {
			cway = &blk[2 * ways * n + t * (ways + 1)];
			cway[1 + cway[0]++] = w;
		}
	}
	/* pack: pos, cway and the state follow the chains actually made */
	pos = ord + nchain * n;
	if (between)
		memmove(pos + nchain * n, blk + 2 * ways * n, (size_t)nchain * (ways + 1) * sizeof(int));
	cway = pos + nchain * n;
	for (t = 0; t < nchain; t++)
		for (i = 0; i < n; i++)
			pos[t * n + ord[t * n + i]] = i;
	if (!between)
		memset(cway, 0, (size_t)nchain * (ways + 1) * sizeof(int));
	memset(cway + nchain * (ways + 1), 0, (size_t)nchain * 6 * n * sizeof(int));
	*nchainp = nchain;
	*nwaysp = ways;
	free(hosts);
	return blk;
}

/* Pairs the collective's schedule uses (sender -> receiver ranks); pos:
 * the chains' positions (nchain x n) of a tree, or NULL. */
int coll_uses_pair(const struct coll_spec *c, int algo, int i, int j, const int *pos,
		   int nchain)
{
	int n = c->n, t;
	if (i == j)
		return 0;
	if (c->op == COLL_ALLTOALL || algo == ALGO_ONESHOT || algo == ALGO_TWOSHOT)
		return 1;
	if (algo == ALGO_TREE && c->op == COLL_ALLREDUCE) {
		if (!pos)
			return j == i - 1 || j == i + 1;
		for (t = 0; t < nchain; t++)
			if (abs(pos[t * n + i] - pos[t * n + j]) == 1)
				return 1;
		return 0;
	}
	return j == (i + 1) % n;
}

/* Do c's ranks span hosts? */
int coll_spans_hosts(const struct scenario *s, const struct coll_spec *c)
{
	int i;
	for (i = 1; i < c->n; i++)
		if (s->nodes[s->gpu_node[c->gpus[i]]].host != s->nodes[s->gpu_node[c->gpus[0]]].host)
			return 1;
	return 0;
}

void coll_links(const struct coll_ctx *x, const struct coll_spec *c, int algo,
		unsigned char *used)
{
	int i, j, k, np, buf[FAB_MAX_PATH], n = c->n, nchain = 0, nways = 0, *blk = NULL;
	const int *path, *pos = NULL, *cway = NULL;
	if (algo == ALGO_TREE && c->op == COLL_ALLREDUCE && coll_spans_hosts(x->fab->s, c) &&
	    (blk = coll_chains_new(x->fab, c, 1, &nchain, &nways))) {
		pos = blk + nchain * n;
		cway = pos + nchain * n;
	}
	/* RCCL's rings on an xGMI mesh take every pair (coll_rccl.c) */
	int mesh = algo == ALGO_RING && c->op != COLL_SENDRECV && c->op != COLL_BROADCAST &&
		   !coll_spans_hosts(x->fab->s, c) && coll_xgmi_mesh(x->fab, c);
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->n; j++) {
			int a = c->gpus[i], b = c->gpus[j];
			if (i == j || a == b || !(mesh || coll_uses_pair(c, algo, i, j, pos, nchain)))
				continue;
			if (x->fab->s->nodes[x->fab->s->gpu_node[a]].host !=
			    x->fab->s->nodes[x->fab->s->gpu_node[b]].host) {
				int w, t, ways = fab_net_ways(x->fab, a, b);
				for (t = 0; t < (pos ? nchain : 1); t++) {
					const int *wl = pos ? &cway[t * (nways + 1)] : NULL;
					if (pos && abs(pos[t * n + i] - pos[t * n + j]) != 1)
						continue;
					for (w = 0; w < (wl ? wl[0] : ways); w++) {
						np = fab_path_net(x->fab, a, b, wl ? wl[1 + w] : w, buf);
						for (k = 0; k < np; k++)
							used[buf[k]] = 1;
					}
				}
				continue;
			}
			/* the path send_now() takes for this pair */
			np = x->view->xport[a][b] != XP_P2P ? fab_route_shm(x->fab, a, b, buf, &path)
							    : fab_route_gpu(x->fab, a, b, buf, &path);
			for (k = 0; k < np; k++)
				used[path[k]] = 1;
		}
	free(blk);
}
