/*
 * fabric_net.c - paths between hosts (fabric.h): the network's payload
 * rate, the NICs a pair of hosts uses, the GPU each NIC serves, and a
 * path from a GPU through its host's PCIe (or NVLink to the NIC's GPU),
 * the NIC and the network to a GPU of another host.
 */
#include <string.h>
#include "fabric.h"
#include "fabric_int.h"
#include "topo.h"

#include <assert.h>

/*
 * Payload per 4096-byte MTU packet. InfiniBand adds LRH 8, BTH 12, ICRC 4
 * and VCRC 2 bytes to a packet in the middle of an RDMA write (IBTA
 * InfiniBand Architecture Specification vol. 1, ch. 5 "Data packets");
 * RoCE v2 carries BTH 12 and ICRC 4 in UDP 8 and IPv4 20 over Ethernet
 * (header 14, FCS 4, preamble 8, inter-frame gap 12; IBTA RoCEv2, annex
 * A17). port_gbps is the port's data rate (IB's 4x NDR 400 Gb/s and 4x
 * HDR 200 Gb/s are after line coding).
 */
double fab_net_bytes_per_s(const struct scenario *s)
{
	double hdr = s->net.kind == SCN_NET_IB ? 8 + 12 + 4 + 2 : 14 + 4 + 8 + 12 + 20 + 8 + 12 + 4;
	return s->net.port_gbps / 8 * 1e9 * 4096.0 / (4096.0 + hdr);
}

int fab_net_ways(const struct fabric *f, int a, int b)
{
	const struct scenario *s = f->s;
	int ha = s->nodes[s->gpu_node[a]].host, hb = s->nodes[s->gpu_node[b]].host, na, nb;
	if (!s->net.given)
		return 0;
	na = f->hnic_off[ha + 1] - f->hnic_off[ha];
	nb = f->hnic_off[hb + 1] - f->hnic_off[hb];
	return na > nb ? na : nb;
}

/*
 * The GPU of NIC node k's host nearest it (lowest path type), among the
 * nhg GPUs hgpu of that host. Several GPUs equally near share the NICs near
 * them in turn: the NIC that is the idx-th NIC child of its parent goes to
 * the (idx mod n)-th of the n nearest GPUs, as NCCL spreads its channels
 * over a switch's GPUs and NICs.
 */
int fab_nic_gpu_of(const struct scenario *s, const int *hgpu, int nhg, int k, int idx)
{
	int j, bp = NP_SYS + 1, n = 0, first = -1;

	/* two passes instead of a list of the nearest: no buffer sized by input */
	for (j = 0; j < nhg; j++) {
		int p = topo_node_path(s, s->gpu_node[hgpu[j]], k);
		if (p < bp) {
			bp = p;
			n = 0;
		}
		n += p == bp;
	}
	if (n == 0)
		return -1;
	idx %= n;
	for (j = 0; j < nhg; j++)
		if (topo_node_path(s, s->gpu_node[hgpu[j]], k) == bp && idx-- == 0) {
			first = hgpu[j];
			break;
		}
	return first;
}

/* PCIe path between nodes na and nb of one host (GPU or NIC), appended at len. */
static int pcie_path(const struct fabric *f, int na, int nb, int *path, int len)
{
	const struct scenario *s = f->s;
	int x, y, lca = -1, pa, pb;

	for (x = s->nodes[na].parent; x >= 0 && lca < 0; x = s->nodes[x].parent)
		for (y = s->nodes[nb].parent; y >= 0; y = s->nodes[y].parent)
			if (x == y) {
				lca = x;
				break;
			}
	if (lca >= 0 && topo_acs_redirect(s, f->acs_override, na, nb, NULL) >= 0)
		lca = fab_root_of(s, na);   /* up to the root complex and back */
	if (topo_chip_cross(s, f->acs_override, na, nb, &pa, &pb)) {
		len = fab_climb(f, na, pa, path, len);
		return fab_descend(f, pb, nb, path, len);
	}
	if (lca >= 0) {
		len = fab_climb(f, na, lca, path, len);
		return fab_descend(f, lca, nb, path, len);
	} else {
		int ra = fab_root_of(s, na), rb = fab_root_of(s, nb);
		int sa = s->nodes[ra].socket, sb = s->nodes[rb].socket;
		len = fab_climb(f, na, ra, path, len);
		path[len++] = f->rc_out[ra];
		if (sa != sb)
			path[len++] = fab_xs(f, sa, sb);
		path[len++] = f->rc_in[rb];
		return fab_descend(f, rb, nb, path, len);
	}
}

/* The NVLink from GPU a to GPU b (one host), or -1 when they share none. */
static int nvlink_hop(const struct fabric *f, int a, int b, int *hop)
{
	int k = fab_nvp(f, a, b);
	if (k >= 0) {
		hop[0] = k;
		return 1;
	}
	if (f->nvl_up[a] >= 0 && f->nvl_down[b] >= 0) {
		hop[0] = f->nvl_up[a];
		hop[1] = f->nvl_down[b];
		return 2;
	}
	return -1;
}

/*
 * GPU g's side of a step between hosts through NIC node k, appended at len:
 * g to the NIC (send 1) or the NIC to g (send 0).
 */
static int nic_leg(const struct fabric *f, int g, int k, int send, int *path, int len)
{
	const struct scenario *s = f->s;
	int p = f->nic_gpu[k], hop[2], nh = -1, i, ng, rk = fab_root_of(s, k);
	int sock = s->nodes[rk].socket;

	if (p >= 0 && p != g)
		nh = send ? nvlink_hop(f, g, p, hop) : nvlink_hop(f, p, g, hop);
	if (nh < 0)
		p = g;          /* no NVLink to the NIC's GPU: g's own PCIe path */
	if (send)
		for (i = 0; i < nh; i++)
			path[len++] = hop[i];
	ng = s->gpu_node[p];
	if (topo_net_gdr(s, p, k)) {
		len = send ? pcie_path(f, ng, k, path, len) : pcie_path(f, k, ng, path, len);
	} else if (send) {
		len += fab_path_to_host(f, p, sock, path + len);
		path[len++] = f->rc_in[rk];
		len = fab_descend(f, rk, k, path, len);
	} else {
		len = fab_climb(f, k, rk, path, len);
		path[len++] = f->rc_out[rk];
		len += fab_path_from_host(f, sock, p, path + len);
	}
	if (!send)
		for (i = 0; i < nh; i++)
			path[len++] = hop[i];
	return len;
}

int fab_net_nic_gpu(const struct fabric *f, int a, int i)
{
	const struct scenario *s = f->s;
	int h = s->nodes[s->gpu_node[a]].host, n = f->hnic_off[h + 1] - f->hnic_off[h];

	if (!s->net.given)
		return -1;
	return n > 0 ? f->nic_gpu[f->hnic[f->hnic_off[h] + i % n]] : -1;
}

/* GPU g's leg through NIC j of its host (send 1: to the NIC), appended at
 * len: from f's routes when they hold it, else computed (the same links). */
static int leg_of(const struct fabric *f, int g, int j, int k, int send, int *path, int len)
{
	const struct fab_routes *r = f->routes;
	if (r && r->leg_gpu && r->acs_override == f->acs_override && g < r->ngpus) {
		int row = r->leg_gpu[g] + 2 * j + !send, n = r->leg_off[row + 1] - r->leg_off[row];
		memcpy(path + len, r->leg_ids + r->leg_off[row], (size_t)n * sizeof(*path));
		return len + n;
	}
	return nic_leg(f, g, k, send, path, len);
}

int fab_path_net(const struct fabric *f, int a, int b, int i, int *path)
{
	const struct scenario *s = f->s;
	int ha = s->nodes[s->gpu_node[a]].host, hb = s->nodes[s->gpu_node[b]].host, ka, kb, ja, jb;
	int len;

	if (!s->net.given)
		return 0;
	ja = i % (f->hnic_off[ha + 1] - f->hnic_off[ha]);
	jb = i % (f->hnic_off[hb + 1] - f->hnic_off[hb]);
	ka = f->hnic[f->hnic_off[ha] + ja];
	kb = f->hnic[f->hnic_off[hb] + jb];
	len = leg_of(f, a, ja, ka, 1, path, 0);
	path[len++] = f->net_up[ka];
	path[len++] = f->net_down[kb];
	return leg_of(f, b, jb, kb, 0, path, len);
}

int fab_routes_net(const struct fabric *f, struct fab_routes *r, struct plumb_err *err)
{
	const struct scenario *s = f->s;
	int ng = r->ngpus, g, j, send, rows = 0, row = 0, cap = 0, path[FAB_MAX_PATH];

	if (!s->net.given || !f->hnic_off)
		return 0;
	if (!(r->leg_gpu = malloc(((size_t)ng + 1) * sizeof(*r->leg_gpu))))
		goto oom;
	for (g = 0; g < ng; g++) {
		int h = s->nodes[s->gpu_node[g]].host;
		r->leg_gpu[g] = rows;
		rows += 2 * (f->hnic_off[h + 1] - f->hnic_off[h]);
	}
	r->leg_gpu[ng] = rows;
	if (!(r->leg_off = malloc(((size_t)rows + 1) * sizeof(*r->leg_off))))
		goto oom;
	r->leg_off[0] = 0;
	for (g = 0; g < ng; g++) {
		int h = s->nodes[s->gpu_node[g]].host;
		for (j = 0; j < f->hnic_off[h + 1] - f->hnic_off[h]; j++)
			for (send = 1; send >= 0; send--, row++) {
				int n = nic_leg(f, g, f->hnic[f->hnic_off[h] + j], send, path, 0);
				if (r->leg_off[row] + n > cap) {
					int ncap = cap ? 2 * cap : 1024, *ni;
					while (ncap < r->leg_off[row] + n)
						ncap *= 2;
					if (!(ni = realloc(r->leg_ids, (size_t)ncap * sizeof(*ni))))
						goto oom;
					r->leg_ids = ni;
					cap = ncap;
				}
				if (n)
					memcpy(r->leg_ids + r->leg_off[row], path,
					       (size_t)n * sizeof(*path));
				r->leg_off[row + 1] = r->leg_off[row] + n;
			}
	}
	return 0;
oom:
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
}
