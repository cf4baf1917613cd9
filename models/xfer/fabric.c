/*
 * fabric.c - scenario -> flow-network links and paths (see fabric.h).
 */
#include "fabric.h"
#include "fabric_int.h"
#include "topo.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

double fab_lane_gbs(int gen)
{
	/* Payload rate per lane after line coding (PCIe base specs):
	 * 8b/10b for Gen1-2, 128b/130b for Gen3-5, FLIT 242/256 for Gen6. */
	switch (gen) {
	case 1: return 2.5 * 0.8 / 8;
	case 2: return 5.0 * 0.8 / 8;
	case 3: return 8.0 * 128.0 / 130.0 / 8;
	case 4: return 16.0 * 128.0 / 130.0 / 8;
	case 5: return 32.0 * 128.0 / 130.0 / 8;
	default: return 64.0 * 242.0 / 256.0 / 8;
	}
}

double fab_pcie_bytes_per_s(const struct scenario *s, int node)
{
	const struct scn_node *d = &s->nodes[node];
	return d->width * fab_lane_gbs(d->gen) * s->k.v[K_PCIE_EFF] * 1e9;
}

static int add(struct fabric *f, enum sim_link_kind kind, double bps, int *id,
	       struct plumb_err *err)
{
	return sim_net_add_link(f->net, kind, bps, f->s->k.v[K_HOP_NS] * 1e-9, id, err);
}


/*
 * The NIC lists of each host and the GPU each NIC serves (nic_gpu), once
 * per fabric: a path between hosts asks for them at every flow start.
 * O(nodes + NICs x GPUs of their host). 0, or -1 when out of memory.
 */
static int fab_nic_tables(struct fabric *f)
{
	const struct scenario *s = f->s;
	int n = s->nnodes, nh = f->nhnic_hosts, i, h;
	int *hgoff = calloc((size_t)nh + 1, sizeof(int)), *hg = NULL, *fill = NULL;
	int *sib = calloc((size_t)n + 1, sizeof(int));   /* NICs seen per parent */

	if (!hgoff || !sib || !(hg = malloc(((size_t)s->ngpus + 1) * sizeof(int))) ||
	    !(fill = calloc((size_t)nh + 1, sizeof(int)))) {
		free(hgoff);
		free(sib);
		free(hg);
		free(fill);
		return -1;
	}
	for (h = 0; h <= nh; h++)
		f->hnic_off[h] = 0;
	for (i = 0; i < n; i++)
		if (s->nodes[i].kind == SCN_NIC)
			f->hnic_off[s->nodes[i].host + 1]++;
	for (h = 0; h < nh; h++)
		f->hnic_off[h + 1] += f->hnic_off[h];
	for (i = 0; i < s->ngpus; i++)
		hgoff[s->nodes[s->gpu_node[i]].host + 1]++;
	for (h = 0; h < nh; h++)
		hgoff[h + 1] += hgoff[h];
	for (i = 0; i < s->ngpus; i++) {
		int hh = s->nodes[s->gpu_node[i]].host;
		hg[hgoff[hh] + fill[hh]++] = i;
	}
	for (h = 0; h < nh; h++)
		fill[h] = 0;
	for (i = 0; i < n; i++) {
		const struct scn_node *d = &s->nodes[i];
		int p = d->parent >= 0 ? d->parent : n, idx;
		if (d->kind != SCN_NIC)
			continue;
		f->hnic[f->hnic_off[d->host] + fill[d->host]++] = i;
		idx = sib[p]++;
		f->nic_gpu[i] = fab_nic_gpu_of(s, hg + hgoff[d->host], hgoff[d->host + 1] - hgoff[d->host],
					i, idx);
	}
	free(hgoff);
	free(sib);
	free(hg);
	free(fill);
	return 0;
}

/*
 * f's tables in one block: every link id -1, the sockets' hosts and the
 * rows of xs, and the offsets of each GPU's point-to-point bonds (filled
 * by fab_build in bond order). 0, or -1 when out of memory.
 */
static int fab_tables(struct fabric *f)
{
	const struct scenario *s = f->s;
	int n = s->nnodes, g = s->ngpus, ns = s->host.sockets, h, i, k, nxs = 0, nvp = 0;
	int nh = s->nhosts > 1 ? s->nhosts : 1, nnic = 0;
	int nps = s->host.numa_per_socket > 0 ? s->host.numa_per_socket : 1;
	size_t total;
	int *p;

	for (h = 0; h < s->nhosts; h++)
		nxs += s->hosts[h].nsockets * s->hosts[h].nsockets;
	if (s->nhosts < 1 || ns <= FAB_XS_ALL_PAIRS)
		nxs = ns * ns;
	if (!s->nvswitch)
		nvp = 2 * s->nnvlink;
	f->nmem = ns * nps;
	for (i = 0; i < n; i++) {
		nnic += s->nodes[i].kind == SCN_NIC;
		if (s->nodes[i].host >= nh)
			nh = s->nodes[i].host + 1;
	}
	total = (size_t)8 * n + (size_t)3 * ns + (size_t)f->nmem + (size_t)nxs + (size_t)2 * g +
		(size_t)(g + 1) + (size_t)2 * nvp + (size_t)(nh + 1) + (size_t)nnic;
	if (!(f->blk = malloc((total ? total : 1) * sizeof(*f->blk))))
		return -1;
	for (i = 0; i < (int)total; i++)
		f->blk[i] = -1;
	p = f->blk;
	f->up = p;       p += n;
	f->down = p;     p += n;
	f->dpx = p;      p += n;
	f->rc_out = p;   p += n;
	f->rc_in = p;    p += n;
	f->net_up = p;   p += n;
	f->net_down = p; p += n;
	f->dram = p;     p += ns;
	f->mem = p;      p += f->nmem;
	f->xs_group = p; p += ns;
	f->xs_row = p;   p += ns;
	f->xs = p;       p += nxs;
	f->nvl_up = p;   p += g;
	f->nvl_down = p; p += g;
	f->nvp_off = p;  p += g + 1;
	f->nvp_peer = p; p += nvp;
	f->nvp_link = p; p += nvp;
	f->nic_gpu = p;  p += n;
	f->hnic_off = p; p += nh + 1;
	f->hnic = p;
	f->nhnic_hosts = nh;
	/* a socket's group and its row: the pairs of each host's own
	 * sockets, or of all of them */
	for (i = 0, k = 0; i < ns; i++) {
		int first = 0, cnt = ns;
		for (h = 0; h < s->nhosts && ns > FAB_XS_ALL_PAIRS; h++)
			if (i >= s->hosts[h].first_socket &&
			    i < s->hosts[h].first_socket + s->hosts[h].nsockets) {
				first = s->hosts[h].first_socket;
				cnt = s->hosts[h].nsockets;
				break;
			}
		f->xs_group[i] = ns > FAB_XS_ALL_PAIRS && h < s->nhosts ? h : 0;
		f->xs_row[i] = k - first;
		k += cnt;
	}
	/* GPU a's bonds start at nvp_off[a] */
	for (i = 0; i <= g; i++)
		f->nvp_off[i] = 0;
	for (k = 0; k < nvp / 2; k++) {
		f->nvp_off[s->nvlink[k].a + 1]++;
		f->nvp_off[s->nvlink[k].b + 1]++;
	}
	for (i = 0; i < g; i++)
		f->nvp_off[i + 1] += f->nvp_off[i];
	return fab_nic_tables(f);
}

int fab_nvp(const struct fabric *f, int a, int b)
{
	int k;
	for (k = f->nvp_off[a]; k < f->nvp_off[a + 1]; k++)
		if (f->nvp_peer[k] == b)
			return f->nvp_link[k];
	return -1;
}

int fab_xs(const struct fabric *f, int a, int b)
{
	int ns = f->s->host.sockets;
	if (a < 0 || b < 0 || a >= ns || b >= ns || a == b || f->xs_group[a] != f->xs_group[b])
		return -1;
	return f->xs[f->xs_row[a] + b];
}

/* Append the point-to-point bond a -> b as link id (bonds come in order,
 * so each GPU's list fills from its start). */
static void nvp_put(struct fabric *f, int *fill, int a, int b, int id)
{
	int k = f->nvp_off[a] + fill[a]++;
	f->nvp_peer[k] = b;
	f->nvp_link[k] = id;
}

/*
 * Does node n's link to its parent end at a port of a switch chip: is n a
 * switch, or is its parent one? A "switch" all of whose children are NICs
 * is a multi-port NIC card written as a switch (its functions side by
 * side), not a switch chip: its ports are the card's own.
 */
/* Rate of one GPU bond link per direction, GB/s: the catalog's xGMI rate
 * in a scenario whose bonds are xGMI (`xgmi:`, which the loader only
 * accepts for GPUs with xgmi_links), else its NVLink rate (25 GB/s, an
 * NVLink 3/4 link, when the catalog has none). */
static double bond_gbs(const struct scenario *s, const struct scn_gpu_model *m)
{
	if (s->xgmi && m->xgmi_gbs_per_link > 0)
		return m->xgmi_gbs_per_link;
	return m->nvlink_gbs_per_link > 0 ? m->nvlink_gbs_per_link : 25.0;
}

static int switch_port(const struct scenario *s, const unsigned char *chip, int n)
{
	int p = s->nodes[n].parent;
	return chip[n] || (p >= 0 && chip[p]);
}

int fab_build(struct sim_engine *eng, const struct scenario *s, struct fabric **out,
	      struct plumb_err *err)
{
	struct fabric *f = calloc(1, sizeof(*f));
	unsigned char *chip = NULL;   /* [nnodes] a switch chip: a switch with a non-NIC child */
	int i, j, rc, nsock = s->host.sockets, *fill = NULL;
	double xgbs = s->host.inter_socket_gbs > 0 ? s->host.inter_socket_gbs
						   : s->k.v[K_XSOCK_GBS];

	*out = NULL;
	if (!f)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	f->s = s;
	f->acs_override = -1;
	if (fab_tables(f) < 0) {
		free(f);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if ((rc = sim_net_new(eng, &f->net, err)) < 0) {
		fab_free(f);
		return rc;
	}
	if (!(chip = calloc((size_t)s->nnodes + 1, 1))) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	for (i = 0; i < s->nnodes; i++) {
		int p = s->nodes[i].parent;
		if (p >= 0 && s->nodes[p].kind == SCN_SWITCH && s->nodes[i].kind != SCN_NIC)
			chip[p] = 1;
	}
	for (i = 0; i < s->nnodes; i++) {
		const struct scn_node *d = &s->nodes[i];
		if (d->kind == SCN_ROOT_COMPLEX) {
			double bps = s->k.v[K_RC_GBS] * 1e9;
			if ((rc = add(f, SIM_LINK_ROOT_COMPLEX, bps, &f->rc_out[i], err)) < 0 ||
			    (rc = add(f, SIM_LINK_ROOT_COMPLEX, bps, &f->rc_in[i], err)) < 0)
				goto fail;
		} else if (d->kind == SCN_ROOT_PORT) {
			continue;   /* its link is its child's link */
		} else {
			double bps = fab_pcie_bytes_per_s(s, i), dx = s->k.v[K_SW_DUPLEX_EFF];
			if ((rc = add(f, SIM_LINK_PCIE, bps, &f->up[i], err)) < 0 ||
			    (rc = add(f, SIM_LINK_PCIE, bps, &f->down[i], err)) < 0)
				goto fail;
			/* both directions of a switch port together: no
			 * latency of its own, the up and down links carry it */
			if (dx < 1 && switch_port(s, chip, i) &&
			    (rc = sim_net_add_link(f->net, SIM_LINK_SWITCH, 2 * dx * bps, 0,
						   &f->dpx[i], err)) < 0)
				goto fail;
		}
	}
	free(chip);
	chip = NULL;
	for (i = 0; i < nsock; i++)
		if ((rc = add(f, SIM_LINK_HOST_DRAM, s->k.v[K_DRAM_GBS] * 1e9, &f->dram[i], err)) < 0)
			goto fail;
	if (s->host.numa_per_socket > 1)
		for (i = 0; i < f->nmem; i++)
			if ((rc = add(f, SIM_LINK_HOST_DRAM,
				      s->k.v[K_DRAM_GBS] / s->host.numa_per_socket * 1e9,
				      &f->mem[i], err)) < 0)
				goto fail;
	for (i = 0; i < nsock; i++)
		for (j = 0; j < nsock; j++)
			if (i != j && f->xs_group[i] == f->xs_group[j] &&
			    (rc = add(f, SIM_LINK_INTER_SOCKET, xgbs * 1e9, &f->xs[f->xs_row[i] + j],
				      err)) < 0)
				goto fail;
	if (s->nvswitch) {
		/* a GPU's links to the NVSwitches: those of the last bond
		 * listing it */
		int *glinks = calloc((size_t)s->ngpus, sizeof(*glinks)), k;
		if (!glinks) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			goto fail;
		}
		for (k = 0; k < s->nnvlink; k++) {
			glinks[s->nvlink[k].a] = s->nvlink[k].links;
			glinks[s->nvlink[k].b] = s->nvlink[k].links;
		}
		for (i = 0; i < s->ngpus; i++) {
			const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[i]].gpu_model];
			int links = glinks[i];
			double bps;
			if (!links)
				continue;
			bps = links * bond_gbs(s, m) * 1e9;
			if ((rc = add(f, SIM_LINK_NVSWITCH, bps, &f->nvl_up[i], err)) < 0 ||
			    (rc = add(f, SIM_LINK_NVSWITCH, bps, &f->nvl_down[i], err)) < 0) {
				free(glinks);
				goto fail;
			}
		}
		free(glinks);
	} else {
		int k;
		if (!(fill = calloc((size_t)s->ngpus + 1, sizeof(*fill)))) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			goto fail;
		}
		for (k = 0; k < s->nnvlink; k++) {
			int a = s->nvlink[k].a, b = s->nvlink[k].b, ab, ba;
			const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[a]].gpu_model];
			double bps = s->nvlink[k].links *
				     bond_gbs(s, m) * 1e9;
			if ((rc = add(f, SIM_LINK_NVLINK, bps, &ab, err)) < 0 ||
			    (rc = add(f, SIM_LINK_NVLINK, bps, &ba, err)) < 0)
				goto fail;
			nvp_put(f, fill, a, b, ab);
			nvp_put(f, fill, b, a, ba);
		}
		free(fill);
		fill = NULL;
	}
	if (s->net.given)
		for (i = 0; i < s->nnodes; i++)
			if (s->nodes[i].kind == SCN_NIC &&
			    ((rc = add(f, SIM_LINK_NETWORK, fab_net_bytes_per_s(s), &f->net_up[i], err)) < 0 ||
			     (rc = add(f, SIM_LINK_NETWORK, fab_net_bytes_per_s(s), &f->net_down[i], err)) < 0))
				goto fail;
	*out = f;
	return 0;
fail:
	free(chip);
	free(fill);
	fab_free(f);
	return rc;
}

void fab_free(struct fabric *f)
{
	if (!f)
		return;
	sim_net_free(f->net);
	free(f->blk);
	free(f);
}

void fab_set_acs(struct fabric *f, int acs_override)
{
	f->acs_override = acs_override;
}

int fab_root_of(const struct scenario *s, int n)
{
	while (s->nodes[n].parent >= 0)
		n = s->nodes[n].parent;
	return n;
}

int fab_gpu_socket(const struct fabric *f, int a)
{
	return f->s->nodes[fab_root_of(f->s, f->s->gpu_node[a])].socket;
}

/* Append link id to path[0..len) unless it is there already; the length. */
static int put_once(int *path, int len, int id)
{
	int i;
	for (i = 0; i < len; i++)
		if (path[i] == id)
			return len;
	path[len++] = id;
	return len;
}

/*
 * Append node n's switch-port link (both directions together), once: a
 * path up a switch's uplink and back down it (ACS redirect) counts against
 * the port once.
 */
static int port(const struct fabric *f, int n, int *path, int len)
{
	return f->dpx[n] < 0 ? len : put_once(path, len, f->dpx[n]);
}

/* Append the up links from node n to (not including) ancestor stop. */
int fab_climb(const struct fabric *f, int n, int stop, int *path, int len)
{
	for (; n >= 0 && n != stop; n = f->s->nodes[n].parent)
		if (f->up[n] >= 0) {
			assert(len + 2 <= FAB_MAX_PATH);
			path[len++] = f->up[n];
			len = port(f, n, path, len);
		}
	return len;
}

/* Append the down links from ancestor stop (excluded) to node n, top first. */
int fab_descend(const struct fabric *f, int stop, int n, int *path, int len)
{
	int chain[SCN_MAX_SWITCH_DEPTH + 2], k = 0;
	for (; n >= 0 && n != stop; n = f->s->nodes[n].parent)
		if (f->down[n] >= 0) {
			assert(k < SCN_MAX_SWITCH_DEPTH + 2);   /* the loader's depth limit */
			chain[k++] = n;
		}
	while (k > 0) {
		n = chain[--k];
		assert(len + 2 <= FAB_MAX_PATH);
		path[len++] = f->down[n];
		len = port(f, n, path, len);
	}
	return len;
}

enum { ROUTE_P2P, ROUTE_SHM };

/* f's table entry for (kind, a, b), or -1 when f has none for its setting. */
static int route_slot(const struct fabric *f, int kind, int a, int b)
{
	const struct fab_routes *r = f->routes;
	if (!r || r->acs_override != f->acs_override || a >= r->ngpus || b >= r->ngpus)
		return -1;
	return (kind * r->ngpus + a) * r->ngpus + b;
}

static int path_gpu(const struct fabric *f, int a, int b, int *path);

int fab_path_gpu(const struct fabric *f, int a, int b, int *path)
{
	int k = route_slot(f, ROUTE_P2P, a, b), n;
	if (k < 0)
		return path_gpu(f, a, b, path);
	n = f->routes->off[k + 1] - f->routes->off[k];
	memcpy(path, f->routes->ids + f->routes->off[k], (size_t)n * sizeof(*path));
	return n;
}

static int path_shm(const struct fabric *f, int a, int b, int *path)
{
	int sock = fab_gpu_socket(f, b), n, m, tmp[FAB_MAX_PATH], i;
	if (f->s->nodes[f->s->gpu_node[a]].host != f->s->nodes[f->s->gpu_node[b]].host)
		return fab_path_net(f, a, b, 0, path);   /* no host memory is shared */
	n = fab_path_to_host(f, a, sock, path);
	m = fab_path_from_host(f, sock, b, tmp);
	/* Both halves hold the socket's memory link, and the port of a switch
	 * both GPUs sit under: keep each once. */
	for (i = 1; i < m; i++)
		n = put_once(path, n, tmp[i]);
	return n;
}

int fab_path_shm(const struct fabric *f, int a, int b, int *path)
{
	int k = route_slot(f, ROUTE_SHM, a, b), n;
	if (k < 0)
		return path_shm(f, a, b, path);
	n = f->routes->off[k + 1] - f->routes->off[k];
	memcpy(path, f->routes->ids + f->routes->off[k], (size_t)n * sizeof(*path));
	return n;
}

int fab_route_gpu(const struct fabric *f, int a, int b, int *buf, const int **path)
{
	int k = route_slot(f, ROUTE_P2P, a, b);
	if (k < 0) {
		*path = buf;
		return path_gpu(f, a, b, buf);
	}
	*path = f->routes->ids + f->routes->off[k];
	return f->routes->off[k + 1] - f->routes->off[k];
}

int fab_route_shm(const struct fabric *f, int a, int b, int *buf, const int **path)
{
	int k = route_slot(f, ROUTE_SHM, a, b);
	if (k < 0) {
		*path = buf;
		return path_shm(f, a, b, buf);
	}
	*path = f->routes->ids + f->routes->off[k];
	return f->routes->off[k + 1] - f->routes->off[k];
}

int fab_routes_build(const struct fabric *f, struct fab_routes **out, struct plumb_err *err)
{
	struct fab_routes *r = calloc(1, sizeof(*r));
	int ng = f->s->ngpus, kind, a, b, k = 0, n, cap = 0, path[FAB_MAX_PATH];

	*out = NULL;
	if (ng > FAB_ROUTES_MAX_GPUS) {
		free(r);
		return 0;
	}
	if (!r)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	r->ngpus = ng;
	r->acs_override = f->acs_override;
	r->off = malloc(((size_t)2 * ng * ng + 1) * sizeof(*r->off));
	if (!r->off)
		goto oom;
	r->off[0] = 0;
	for (kind = ROUTE_P2P; kind <= ROUTE_SHM; kind++)
		for (a = 0; a < ng; a++)
			for (b = 0; b < ng; b++) {
				n = kind == ROUTE_P2P ? path_gpu(f, a, b, path) : path_shm(f, a, b, path);
				if (r->off[k] + n > cap) {
					int ncap = cap ? 2 * cap : 1024, *ni;
					while (ncap < r->off[k] + n)
						ncap *= 2;
					if (!(ni = realloc(r->ids, (size_t)ncap * sizeof(*ni))))
						goto oom;
					r->ids = ni;
					cap = ncap;
				}
				if (n)
					memcpy(r->ids + r->off[k], path, (size_t)n * sizeof(*path));
				r->off[k + 1] = r->off[k] + n;
				k++;
			}
	if (fab_routes_net(f, r, err) < 0)
		goto oom;
	*out = r;
	return 0;
oom:
	fab_routes_free(r);
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
}

void fab_routes_free(struct fab_routes *r)
{
	if (!r)
		return;
	free(r->off);
	free(r->ids);
	free(r->leg_gpu);
	free(r->leg_off);
	free(r->leg_ids);
	free(r);
}

void fab_use_routes(struct fabric *f, const struct fab_routes *r)
{
	f->routes = r;
}

static int path_gpu(const struct fabric *f, int a, int b, int *path)
{
	const struct scenario *s = f->s;
	int na = s->gpu_node[a], nb = s->gpu_node[b], x, y, lca = -1, len = 0;

	if (a == b)
		return 0;
	if (s->nodes[na].host != s->nodes[nb].host)
		return fab_path_net(f, a, b, 0, path);
	if ((x = fab_nvp(f, a, b)) >= 0) {
		path[0] = x;
		return 1;
	}
	if (f->nvl_up[a] >= 0 && f->nvl_down[b] >= 0) {
		path[0] = f->nvl_up[a];
		path[1] = f->nvl_down[b];
		return 2;
	}
	for (x = s->nodes[na].parent; x >= 0 && lca < 0; x = s->nodes[x].parent)
		for (y = s->nodes[nb].parent; y >= 0; y = s->nodes[y].parent)
			if (x == y) {
				lca = x;
				break;
			}
	if (lca >= 0 && topo_acs_redirect(s, f->acs_override, na, nb, NULL) >= 0)
		lca = fab_root_of(s, na);   /* up to the root complex and back */
	{
		int pa, pb;
		if (topo_chip_cross(s, f->acs_override, na, nb, &pa, &pb)) {
			/* across the chip's partitions, inside the chip */
			len = fab_climb(f, na, pa, path, 0);
			return fab_descend(f, pb, nb, path, len);
		}
	}
	if (lca >= 0) {
		len = fab_climb(f, na, lca, path, 0);
		return fab_descend(f, lca, nb, path, len);
	} else {
		int ra = fab_root_of(s, na), rb = fab_root_of(s, nb);
		int sa = s->nodes[ra].socket, sb = s->nodes[rb].socket;
		len = fab_climb(f, na, ra, path, 0);
		path[len++] = f->rc_out[ra];
		if (sa != sb)
			path[len++] = fab_xs(f, sa, sb);
		path[len++] = f->rc_in[rb];
		return fab_descend(f, rb, nb, path, len);
	}
}

int fab_path_to_host(const struct fabric *f, int a, int sock, int *path)
{
	const struct scenario *s = f->s;
	int na = s->gpu_node[a], ra = fab_root_of(s, na), sa = s->nodes[ra].socket;
	int len = fab_climb(f, na, ra, path, 0);
	path[len++] = f->rc_out[ra];
	if (sa != sock)
		path[len++] = fab_xs(f, sa, sock);
	path[len++] = f->dram[sock];
	return len;
}

int fab_path_from_host(const struct fabric *f, int sock, int b, int *path)
{
	const struct scenario *s = f->s;
	int nb = s->gpu_node[b], rb = fab_root_of(s, nb), sb = s->nodes[rb].socket, len = 0;
	path[len++] = f->dram[sock];
	if (sb != sock)
		path[len++] = fab_xs(f, sock, sb);
	path[len++] = f->rc_in[rb];
	return fab_descend(f, rb, nb, path, len);
}

int fab_gpu_numa(const struct fabric *f, int a)
{
	return f->s->nodes[fab_root_of(f->s, f->s->gpu_node[a])].numa;
}

/* Socket of NUMA node `node`. */
static int node_socket(const struct scenario *s, int node)
{
	int nps = s->host.numa_per_socket > 0 ? s->host.numa_per_socket : 1;
	return node / nps;
}

int fab_path_to_node(const struct fabric *f, int a, int node, int *path)
{
	int len = fab_path_to_host(f, a, node_socket(f->s, node), path);
	if (node >= 0 && node < f->nmem && f->mem[node] >= 0)
		path[len++] = f->mem[node];
	return len;
}

int fab_path_from_node(const struct fabric *f, int node, int b, int *path)
{
	int tmp[FAB_MAX_PATH], n, len = 0, i;
	if (node >= 0 && node < f->nmem && f->mem[node] >= 0)
		path[len++] = f->mem[node];
	n = fab_path_from_host(f, node_socket(f->s, node), b, tmp);
	for (i = 0; i < n; i++)
		path[len++] = tmp[i];
	return len;
}

double fab_path_latency(const struct fabric *f, const int *path, int n)
{
	double t = 0;
	int i;
	for (i = 0; i < n; i++)
		t += sim_net_link_latency(f->net, path[i]);
	return t;
}
