/*
 * topo.c - classes, P2P status, IOMMU groups and NCCL transports of a view
 * (the words for them, affinity and the P2P reasons are in topo_words.c).
 *
 * Class rule (nvidia-smi's legend, switches counted as one bridge as the
 * driver does): NVLink beats PCIe; otherwise find the lowest common ancestor
 * of the two endpoints in the PCIe tree. A switch as LCA with no further
 * switch between it and either endpoint -> PIX; a switch with switches below
 * it on the way -> PXB; the root complex -> PHB; different root complexes on
 * one NUMA node -> NODE; different NUMA nodes -> SYS.
 */
#include "topo.h"
#include "topo_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void topo_opts_init(struct topo_opts *o)
{
	o->acs_override = -1;
	o->nccl_p2p_level = -1;
	o->nccl_shm_disable = 0;
	o->pci_realloc = -1;
	o->nccl_version = 0;
}

int topo_root_of(const struct scenario *s, int node)
{
	while (s->nodes[node].parent >= 0)
		node = s->nodes[node].parent;
	return node;
}

int topo_rc_endpoints(const struct scenario *s, int node)
{
	int rc = topo_root_of(s, node), i, n = 0;
	for (i = 0; i < s->nnodes; i++)
		if ((s->nodes[i].kind == SCN_GPU || s->nodes[i].kind == SCN_NIC) &&
		    topo_root_of(s, i) == rc)
			n++;
	return n;
}

int topo_acs_redirect(const struct scenario *s, int acs_override, int na, int nb, int *dt)
{
	const struct scn_node *n = s->nodes;
	int x, y, lca = -1;

	if (dt)
		*dt = 0;
	for (x = n[na].parent; x >= 0 && lca < 0; x = n[x].parent)
		for (y = n[nb].parent; y >= 0; y = n[y].parent)
			if (x == y) {
				lca = x;
				break;
			}
	if (lca < 0 || n[lca].kind != SCN_SWITCH ||
	    !(acs_override >= 0 ? acs_override : n[lca].acs))
		return -1;
	if (n[lca].acs_dt && n[na].ats && n[nb].ats && s->vm.host_iommu != SCN_IOMMU_OFF) {
		if (dt)
			*dt = 1;
		return -1;
	}
	return lca;
}

int topo_chip_top(const struct scenario *s, int n)
{
	int x, top = -1;
	for (x = s->nodes[n].parent; x >= 0; x = s->nodes[x].parent)
		if (s->nodes[x].kind == SCN_SWITCH && s->nodes[x].chip[0])
			top = x;
	return top;
}

int topo_chip_cross(const struct scenario *s, int acs_override, int na, int nb, int *pa, int *pb)
{
	int a = topo_chip_top(s, na), b = topo_chip_top(s, nb);
	if (a < 0 || b < 0 || a == b || strcmp(s->nodes[a].chip, s->nodes[b].chip) != 0)
		return 0;
	if (acs_override > 0 || (acs_override < 0 && (s->nodes[a].acs || s->nodes[b].acs)))
		return 0;
	if (pa)
		*pa = a;
	if (pb)
		*pb = b;
	return 1;
}

int topo_ep_host(const struct topo_view *v, int i)
{
	return v->scn->nodes[v->ep[i].host_node].host;
}

static int vroot(const struct topo_view *v, int node)
{
	while (v->nodes[node].parent >= 0)
		node = v->nodes[node].parent;
	return node;
}

/* Nodes above n in view v. */
static int vdepth(const struct topo_view *v, int n)
{
	int d = 0;
	while ((n = v->nodes[n].parent) >= 0)
		d++;
	return d;
}

enum topo_class topo_pair_class(const struct topo_view *v, int i, int j)
{
	int a = v->ep[i].node, b = v->ep[j].node;
	int x, y, dx, dy, lca, sw_below = 0;

	if (i == j)
		return TC_X;
	if (v->nvl[i][j])
		return TC_NV;
	/* The lowest common ancestor of the two parents: the deeper one
	 * climbs to the other's depth, then both climb together (a walk of
	 * the tree's depth, no table per pair: this runs for every pair). */
	x = v->nodes[a].parent;
	y = v->nodes[b].parent;
	lca = -1;
	if (x >= 0 && y >= 0) {
		dx = vdepth(v, x);
		dy = vdepth(v, y);
		for (; dx > dy; dx--)
			x = v->nodes[x].parent;
		for (; dy > dx; dy--)
			y = v->nodes[y].parent;
		while (x != y) {
			x = v->nodes[x].parent;
			y = v->nodes[y].parent;
		}
		lca = x;   /* -1 when the trees are apart */
	}
	if (lca < 0) {
		int na_ = v->nodes[vroot(v, a)].numa, nb_ = v->nodes[vroot(v, b)].numa;
		return na_ == nb_ ? TC_NODE : TC_SYS;
	}
	if (v->nodes[lca].kind == SCN_ROOT_COMPLEX)
		return TC_PHB;
	/* Switches strictly between an endpoint and the LCA. */
	for (x = v->nodes[a].parent; x != lca; x = v->nodes[x].parent)
		sw_below += v->nodes[x].kind == SCN_SWITCH;
	for (x = v->nodes[b].parent; x != lca; x = v->nodes[x].parent)
		sw_below += v->nodes[x].kind == SCN_SWITCH;
	return sw_below ? TC_PXB : TC_PIX;
}

/* Copy the host tree, applying the ACS override. */
static void build_host_tree(struct topo_view *v, const struct topo_opts *o)
{
	const struct scenario *s = v->scn;
	int i;
	v->nnodes = s->nnodes;
	memcpy(v->nodes, s->nodes, sizeof(s->nodes[0]) * (size_t)s->nnodes);
	if (o->acs_override >= 0)
		for (i = 0; i < v->nnodes; i++)
			v->nodes[i].acs = o->acs_override;
}

static int add_vnode(struct topo_view *v, const char *id, enum scn_kind k, int parent,
		     int numa, int gen, int width)
{
	struct scn_node *d = &v->nodes[v->nnodes];
	memset(d, 0, sizeof(*d));
	snprintf(d->id, sizeof(d->id), "%s", id);
	d->kind = k;
	d->parent = parent;
	d->numa = numa;
	d->socket = numa < 0 ? 0 : numa;
	d->gen = gen;
	d->width = width;
	d->acs = 1;
	d->gpu_index = -1;
	d->gpu_model = -1;
	return v->nnodes++;
}

/*
 * The guest's tree. Proxmox (and libvirt) attach each passed-through GPU to
 * its own pcie-root-port under pcie.0 when pcie=1 on q35; buses are numbered
 * in hostpci order (GPU i on bus i+1). NICs are not passed through.
 */
static void build_guest_tree(struct topo_view *v)
{
	const struct scenario *s = v->scn;
	int root[SCN_MAX_SOCKETS], i, nn = s->host.sockets * s->host.numa_per_socket;
	int per_numa = s->vm.guest_numa;

	v->nnodes = 0;
	for (i = 0; i < SCN_MAX_SOCKETS; i++)
		root[i] = -1;
	if (!per_numa)
		root[0] = add_vnode(v, "pcie.0", SCN_ROOT_COMPLEX, -1, -1, 0, 0);
	for (i = 0; i < s->ngpus; i++) {
		const struct scn_node *g = &s->nodes[s->gpu_node[i]];
		int rcn = per_numa ? g->numa : 0, parent, idx;
		char id[48];
		if (rcn < 0 || rcn >= nn)
			rcn = 0;
		if (root[rcn] < 0) {
			snprintf(id, sizeof(id), "pxb%d", rcn);
			root[rcn] = add_vnode(v, id, SCN_ROOT_COMPLEX, -1, rcn, 0, 0);
		}
		parent = root[rcn];
		if (s->vm.chipset == SCN_Q35 && s->vm.pcie_passthrough) {
			snprintf(id, sizeof(id), "vrp%d", i);
			parent = add_vnode(v, id, SCN_ROOT_PORT, parent,
					   v->nodes[parent].numa, g->gen, g->width);
		}
		idx = add_vnode(v, g->id, SCN_GPU, parent, v->nodes[parent].numa,
				g->gen, g->width);
		v->nodes[idx].gpu_index = i;
		v->nodes[idx].gpu_model = g->gpu_model;
		v->nodes[idx].clique = g->clique;
		snprintf(v->nodes[idx].model, sizeof(v->nodes[idx].model), "%s", g->model);
		topo_guest_bdf(s, i, v->nodes[idx].bdf);
	}
}

static unsigned char **uc_table(int n)
{
	unsigned char **r = malloc((size_t)n * sizeof(*r)), *c = calloc((size_t)n * n, 1);
	int i;
	if (!r || !c) {
		free(r);
		free(c);
		return NULL;
	}
	for (i = 0; i < n; i++)
		r[i] = c + (size_t)i * n;
	return r;
}

static void uc_table_free(unsigned char **t)
{
	if (t)
		free(t[0]);
	free(t);
}

/* The view's endpoint tables for its tree's GPUs and NICs, zeroed (acs_via
 * -1). 0, or -1 when out of memory. */
static int alloc_tables(struct topo_view *v)
{
	int n = v->scn->ngpus, k, i;
	short *c;
	for (k = 0; k < v->nnodes; k++)
		n += v->nodes[k].kind == SCN_NIC;
	if (n < 1)
		n = 1;
	if (!(v->ep = calloc((size_t)n, sizeof(*v->ep))) ||
	    !(v->group = calloc((size_t)n, sizeof(*v->group))) ||
	    !(v->cls = uc_table(n)) || !(v->nvl = uc_table(n)) || !(v->p2p = uc_table(n)) ||
	    !(v->xport = uc_table(n)) || !(v->acs_dt = uc_table(n)) ||
	    !(c = malloc((size_t)n * n * sizeof(*c))))
		return -1;
	if (!(v->acs_via = malloc((size_t)n * sizeof(*v->acs_via)))) {
		free(c);
		return -1;
	}
	memset(c, 0xff, (size_t)n * n * sizeof(*c));   /* -1 */
	for (i = 0; i < n; i++)
		v->acs_via[i] = c + (size_t)i * n;
	return 0;
}

/* 0, or -1 when out of memory. */
static int collect_endpoints(struct topo_view *v)
{
	const struct scenario *s = v->scn;
	int i, k, nics = 0, *gnode = malloc((size_t)(s->ngpus + 1) * sizeof(*gnode));

	if (!gnode)
		return -1;
	/* the tree's node of each GPU (the last one naming it) */
	for (i = 0; i < s->ngpus; i++)
		gnode[i] = -1;
	for (k = 0; k < v->nnodes; k++)
		if (v->nodes[k].kind == SCN_GPU && v->nodes[k].gpu_index >= 0 &&
		    v->nodes[k].gpu_index < s->ngpus)
			gnode[v->nodes[k].gpu_index] = k;
	v->nep = 0;
	for (i = 0; i < s->ngpus; i++) {
		struct topo_ep *e = &v->ep[v->nep];
		int node = gnode[i];
		e->node = node;
		e->host_node = s->gpu_node[i];
		e->gpu = i;
		snprintf(e->label, sizeof(e->label), "GPU%d", i);
		e->numa = v->nodes[vroot(v, node)].numa;
		memcpy(e->bdf, v->nodes[node].bdf, sizeof(e->bdf));
		v->nep++;
	}
	v->ngpu = v->nep;
	/* nvidia-smi numbers GPUs in bus order: the host's file order, the
	 * guest's own bus ids */
	for (i = 0; i < v->ngpu; i++) {
		v->ep[i].dev = i;
		if (v->side == TOPO_GUEST)
			for (k = 0, v->ep[i].dev = 0; k < v->ngpu; k++)
				v->ep[i].dev += strcmp(v->ep[k].bdf, v->ep[i].bdf) < 0;
	}
	for (k = 0; k < v->nnodes; k++) {
		struct topo_ep *e;
		if (v->nodes[k].kind != SCN_NIC)
			continue;
		e = &v->ep[v->nep++];
		e->node = k;
		e->host_node = k;
		e->gpu = -1;
		snprintf(e->label, sizeof(e->label), "NIC%d", nics++);
		e->numa = v->nodes[vroot(v, k)].numa;
		memcpy(e->bdf, v->nodes[k].bdf, sizeof(e->bdf));
	}
	free(gnode);
	return 0;
}

/* Host-level P2P status of GPUs i, j (indices into s's GPUs). */
static enum topo_p2p host_p2p(const struct scenario *s, const struct topo_view *host,
			      int i, int j)
{
	const struct scn_gpu_model *a = &s->catalog->gpus[s->nodes[s->gpu_node[i]].gpu_model];
	const struct scn_gpu_model *b = &s->catalog->gpus[s->nodes[s->gpu_node[j]].gpu_model];
	if (s->nodes[s->gpu_node[i]].host != s->nodes[s->gpu_node[j]].host)
		return P2P_NS;          /* no PCIe path between boxes */
	if (host->nvl[i][j])
		return P2P_OK;
	if ((a->p2p == SCN_P2P_UNSUPPORTED || b->p2p == SCN_P2P_UNSUPPORTED) &&
	    !s->host.p2p_patched)
		return P2P_GNS;
	if (host->cls[i][j] == TC_SYS && !s->host.p2p_across_sockets)
		return P2P_TNS;
	return P2P_OK;
}

/* Endpoint indices in order of key (ties by index) into ord[n]; lo[i], hi[i]
 * bound the run of ord holding i's key. 0, or -1 when out of memory. */
static int cmp_kv(const void *x, const void *y)
{
	const int *a = x, *b = y;
	return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

static int group_by(const int *key, int n, int *ord, int *lo, int *hi)
{
	int *kv = malloc((size_t)(2 * n + 2) * sizeof(*kv)), i, r;
	if (!kv)
		return -1;
	for (i = 0; i < n; i++) {
		kv[2 * i] = key[i];
		kv[2 * i + 1] = i;
	}
	qsort(kv, (size_t)n, 2 * sizeof(*kv), cmp_kv);
	for (i = 0; i < n; i++)
		ord[i] = kv[2 * i + 1];
	for (i = 0; i < n; i = r) {
		int k;
		for (r = i + 1; r < n && kv[2 * r] == kv[2 * i]; r++)
			;
		for (k = i; k < r; k++) {
			lo[ord[k]] = i;
			hi[ord[k]] = r;
		}
	}
	free(kv);
	return 0;
}

/*
 * Endpoints of different hosts share no PCIe tree: their class is their
 * roots' NUMA nodes' (NODE or SYS, as topo_pair_class finds), their P2P is
 * NS, no ACS redirect applies and NCCL's transport is NET, all known without
 * a walk. Most pairs of a cluster are such pairs: a row starts as SYS, the
 * endpoints of other hosts on its NUMA node become NODE and only the pairs
 * within a host walk the tree (test_cross_host_fill in tests/unit/test_scale.c checks the shortcut).
 * ehost: [nep] each endpoint's host, or all 0 in a guest (whose tree holds
 * the GPUs of every host). 0, or -1 when out of memory.
 */
static int fill_classes(struct topo_view *v, const int *ehost)
{
	const struct scenario *s = v->scn;
	int n = v->nep, i, j, k, p, *root, *numa, *hord, *hlo, *hhi, *nord, *nlo, *nhi;
	for (k = 0; k < s->nnvlink; k++) {
		v->nvl[s->nvlink[k].a][s->nvlink[k].b] = (unsigned char)s->nvlink[k].links;
		v->nvl[s->nvlink[k].b][s->nvlink[k].a] = (unsigned char)s->nvlink[k].links;
	}
	if (!(root = malloc((size_t)(8 * n + 1) * sizeof(*root))))
		return -1;
	numa = root + n;
	hord = numa + n, hlo = hord + n, hhi = hlo + n;
	nord = hhi + n, nlo = nord + n, nhi = nlo + n;
	for (i = 0; i < n; i++) {
		root[i] = vroot(v, v->ep[i].node);
		numa[i] = v->nodes[root[i]].numa;
	}
	if (group_by(ehost, n, hord, hlo, hhi) < 0 || group_by(numa, n, nord, nlo, nhi) < 0) {
		free(root);
		return -1;
	}
	for (i = 0; i < n; i++) {
		unsigned char *c = v->cls[i];
		memset(c, TC_SYS, (size_t)n);
		for (p = nlo[i]; p < nhi[i]; p++)
			if (ehost[nord[p]] != ehost[i])
				c[nord[p]] = TC_NODE;
		/* Endpoints under different root complexes share no ancestor:
		 * their class is their roots' NUMA nodes' (as topo_pair_class
		 * finds), known without a walk. */
		for (p = hlo[i]; p < hhi[i]; p++) {
			j = hord[p];
			if (i != j && !v->nvl[i][j] && root[i] != root[j])
				c[j] = numa[i] == numa[j] ? TC_NODE : TC_SYS;
			else
				c[j] = (unsigned char)topo_pair_class(v, i, j);
		}
	}
	/* NVLink between hosts (a multi-node NVLink domain) beats the above */
	for (k = 0; k < s->nnvlink; k++) {
		int a = s->nvlink[k].a, b = s->nvlink[k].b;
		if (a != b && v->nvl[a][b])
			v->cls[a][b] = v->cls[b][a] = TC_NV;
	}
	free(root);
	return 0;
}

/* Union-find over endpoints. */
static int uf_find(int *p, int x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

/*
 * IOMMU groups (Linux pci_device_group, simplified): an endpoint is isolated
 * when every bridge above it enforces ACS. Below the topmost bridge without
 * ACS, everything shares one group (the devices can reach each other
 * peer-to-peer without the IOMMU seeing it). A root port has a single link,
 * so a lone device below it keeps its own group, ACS or not; root ports are
 * taken as separate devices (not functions of one multifunction device,
 * the case where Linux would group their subtrees).
 */
static int fill_groups(struct topo_view *v)
{
	int n = v->nep, *parent = malloc((size_t)(n * 6 + 1) * sizeof(*parent)), *key, i, x, p;
	int *ord, *lo, *hi, *gid;

	if (!parent)
		return -1;
	key = parent + n;
	ord = key + n, lo = ord + n, hi = lo + n, gid = hi + n;

	for (i = 0; i < n; i++) {
		int top = -1;
		parent[i] = i;
		for (x = v->nodes[v->ep[i].node].parent; x >= 0; x = v->nodes[x].parent)
			if ((v->nodes[x].kind == SCN_SWITCH || v->nodes[x].kind == SCN_ROOT_PORT) &&
			    !v->nodes[x].acs)
				top = x;
		key[i] = top;
	}
	/* endpoints of one key (not -1) share a group */
	if (group_by(key, n, ord, lo, hi) < 0) {
		free(parent);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (key[i] != -1 && ord[lo[i]] != i)
			parent[uf_find(parent, i)] = uf_find(parent, ord[lo[i]]);
	v->ngroups = 0;
	/* Number groups in host-tree order of their first device (endpoints
	 * have nodes of their own). */
	for (i = 0; i < n; i++)
		key[i] = v->ep[i].node;
	if (group_by(key, n, ord, lo, hi) < 0) {
		free(parent);
		return -1;
	}
	for (i = 0; i < n; i++)
		gid[i] = -1;
	for (p = 0; p < n; p++) {
		int r = uf_find(parent, ord[p]);
		if (gid[r] < 0)
			gid[r] = v->ngroups++;
	}
	for (i = 0; i < n; i++)
		v->group[i] = gid[uf_find(parent, i)];
	free(parent);
	return 0;
}

static int nccl_path(enum topo_class c)
{
	switch (c) {
	case TC_X: return NP_LOC;
	case TC_NV: return NP_NVL;
	case TC_PIX: return NP_PIX;
	case TC_PXB: return NP_PXB;
	/* NCCL's graph has no NODE: host bridges of one CPU are the CPU node. */
	case TC_PHB: case TC_NODE: return NP_PHB;
	case TC_SYS: return NP_SYS;
	}
	return NP_SYS;
}

/* The most GPUs one host holds: NCCL's topology is the node's own. */
static int gpus_per_host(const struct scenario *s)
{
	int h, n = s->nhosts > 1 ? 0 : s->ngpus;
	for (h = 0; s->nhosts > 1 && h < s->nhosts; h++)
		if (s->hosts[h].ngpus > n)
			n = s->hosts[h].ngpus;
	return n;
}

/*
 * NCCL transport per pair (src/graph/paths.cc ncclTopoCheckP2p): P2P when
 * the path type is at most NCCL_P2P_LEVEL and the driver reports P2P OK;
 * the default level is PXB, raised to SYS on AMD x86 with at most two GPUs;
 * otherwise SHM (host memory) inside one node, NET when SHM is disabled.
 */
static void fill_transport(struct topo_view *v, const struct topo_opts *o, const int *xhost)
{
	const struct scenario *s = v->scn;
	int i, j;
	v->nccl_level_default = o->nccl_p2p_level < 0 && s->nccl_level < 0;
	v->nccl_level_scenario = o->nccl_p2p_level < 0 && s->nccl_level >= 0;
	v->nccl_version = o->nccl_version;
	if (o->nccl_p2p_level >= 0)
		v->nccl_level = o->nccl_p2p_level;
	else if (s->nccl_level >= 0)
		v->nccl_level = s->nccl_level;
	else if (s->host.cpu_vendor == SCN_AMD && gpus_per_host(s) <= 2)
		v->nccl_level = NP_SYS;
	else
		v->nccl_level = NP_PXB;
	for (i = 0; i < v->ngpu; i++)
		for (j = 0; j < v->ngpu; j++) {
			int p2p;
			if (i == j) {
				v->xport[i][j] = XP_SELF;
				continue;
			}
			if (xhost[i] != xhost[j]) {
				v->xport[i][j] = XP_NET;    /* between hosts: NCCL's NET */
				continue;
			}
			p2p = nccl_path((enum topo_class)v->cls[i][j]) <= v->nccl_level &&
			      v->p2p[i][j] == P2P_OK;
			v->xport[i][j] = p2p ? XP_P2P : (o->nccl_shm_disable || s->nccl_shm_disable) ? XP_NET : XP_SHM;
		}
}

int topo_build(const struct scenario *s, enum topo_side side,
	       const struct topo_opts *o, struct topo_view **out,
	       struct plumb_err *err)
{
	struct topo_view *v, *host = NULL;
	int i, j, *xhost = NULL, *ehost;

	*out = NULL;
	if (side == TOPO_GUEST && s->vm.mode != SCN_VM)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "scenario '%s' is bare metal: there is no guest view", s->name);
	v = calloc(1, sizeof(*v));
	if (!v)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	v->side = side;
	v->scn = s;
	v->acs_override = o->acs_override;
	/* the guest's tree: a root per NUMA node, a root port and the GPU per GPU */
	if (!(v->nodes = malloc((size_t)(s->nnodes + 1 + s->host.sockets * s->host.numa_per_socket +
					 2 * s->ngpus) * sizeof(*v->nodes))))
		goto oom;
	if (side == TOPO_HOST) {
		build_host_tree(v, o);
	} else {
		int rc = topo_build(s, TOPO_HOST, o, &host, err);
		if (rc < 0) {
			topo_free(v);
			return rc;
		}
		build_guest_tree(v);
	}
	if (alloc_tables(v) < 0)
		goto oom;
	if (collect_endpoints(v) < 0)
		goto oom;
	/* each endpoint's host (xhost), and the same for the tree walks
	 * (ehost: in a guest, one tree holds every GPU) */
	if (!(xhost = malloc((size_t)(2 * v->nep + 1) * sizeof(*xhost))))
		goto oom;
	ehost = xhost + v->nep;
	for (i = 0; i < v->nep; i++) {
		xhost[i] = topo_ep_host(v, i);
		ehost[i] = side == TOPO_HOST ? xhost[i] : 0;
	}
	if (fill_classes(v, ehost) < 0)
		goto oom;
	for (i = 0; i < v->ngpu; i++)
		for (j = 0; j < v->ngpu; j++) {
			enum topo_p2p p;
			if (i == j)
				p = P2P_X;
			else if (side == TOPO_HOST)
				p = xhost[i] != xhost[j] ? P2P_NS : host_p2p(s, v, i, j);
			else if (v->nvl[i][j])
				p = P2P_OK;
			else if (s->vm.p2p_exposure == SCN_P2P_NONE ||
				 !(s->vm.chipset == SCN_Q35 && s->vm.pcie_passthrough))
				p = P2P_NS;
			else if (s->nodes[s->gpu_node[i]].clique != s->nodes[s->gpu_node[j]].clique)
				p = P2P_NS;
			else
				p = (enum topo_p2p)host->p2p[i][j];
			v->p2p[i][j] = (unsigned char)p;
		}
	/* host: the ACS redirect per GPU pair of one host (between hosts no
	 * switch is shared: -1, as the tables start) */
	if (side == TOPO_HOST)
		for (i = 0; i < v->ngpu; i++)
			for (j = 0; j < v->ngpu; j++) {
				int dt = 0;
				if (i == j || xhost[i] != xhost[j] || v->nvl[i][j])
					continue;
				v->acs_via[i][j] = (short)topo_acs_redirect(s, o->acs_override,
									    s->gpu_node[i], s->gpu_node[j], &dt);
				v->acs_dt[i][j] = (unsigned char)dt;
			}
	if (side == TOPO_HOST) {
		if (fill_groups(v) < 0)
			goto oom;
	} else {
		/* the guest's endpoints are the host's GPUs, in their order */
		memcpy(v->group, host->group, (size_t)v->nep * sizeof(*v->group));
		v->ngroups = host->ngroups;
	}
	fill_transport(v, o, xhost);
	free(xhost);
	topo_free(host);
	*out = v;
	return 0;
oom:
	free(xhost);
	topo_free(host);
	topo_free(v);
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
}

void topo_free(struct topo_view *v)
{
	if (!v)
		return;
	free(v->nodes);
	free(v->ep);
	free(v->group);
	uc_table_free(v->cls);
	uc_table_free(v->nvl);
	uc_table_free(v->p2p);
	uc_table_free(v->xport);
	uc_table_free(v->acs_dt);
	if (v->acs_via)
		free(v->acs_via[0]);
	free(v->acs_via);
	free(v);
}

int topo_gdr(const struct topo_view *v, int g, int *nic, char *why, size_t n)
{
	const struct scenario *s = v->scn;
	const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[g]].gpu_model];
	int level = s->nccl_gdr_level >= 0 ? s->nccl_gdr_level : NP_PXB, best = -1, k, path, x;
	char cls[8];

	for (k = v->ngpu; k < v->nep; k++)
		if (topo_ep_host(v, k) == topo_ep_host(v, g) && (best < 0 || nccl_path((enum topo_class)v->cls[g][k]) <
				nccl_path((enum topo_class)v->cls[g][best])))
			best = k;
	if (nic)
		*nic = best;
	if (best < 0) {
		if (why)
			snprintf(why, n, "no NIC");
		return -1;
	}
	path = nccl_path((enum topo_class)v->cls[g][best]);
	topo_class_str(v, g, best, cls);
	if (m->p2p == SCN_P2P_UNSUPPORTED) {
		if (why)
			snprintf(why, n, "%s is %s from %s, but %s has no GPUDirect RDMA: "
				 "the NIC's traffic is staged through host memory",
				 v->ep[best].label, cls, v->ep[g].label, m->name);
		return 0;
	}
	if (path > level) {
		if (why)
			snprintf(why, n, "%s is %s from %s, beyond NCCL_NET_GDR_LEVEL=%s: "
				 "the NIC's traffic is staged through host memory",
				 v->ep[best].label, cls, v->ep[g].label, topo_nccl_path_str(level));
		return 0;
	}
	x = v->side == TOPO_HOST ?
	    topo_acs_redirect(s, v->acs_override, v->ep[g].host_node, v->ep[best].host_node, NULL) : -1;
	if (why) {
		if (x >= 0)
			snprintf(why, n, "%s is %s from %s: GPUDirect RDMA, but the ACS redirect of %s "
				 "sends it up to root complex %s and back", v->ep[best].label, cls,
				 v->ep[g].label, s->nodes[x].id, s->nodes[topo_root_of(s, x)].id);
		else
			snprintf(why, n, "%s is %s from %s: GPUDirect RDMA, the NIC reads and writes "
				 "GPU memory directly", v->ep[best].label, cls, v->ep[g].label);
	}
	return 1;
}

int topo_node_path(const struct scenario *s, int na, int nb)
{
	int x, y, lca = -1, sw = 0;

	if (s->nodes[na].host != s->nodes[nb].host)
		return NP_SYS;
	for (x = s->nodes[na].parent; x >= 0 && lca < 0; x = s->nodes[x].parent)
		for (y = s->nodes[nb].parent; y >= 0; y = s->nodes[y].parent)
			if (x == y) {
				lca = x;
				break;
			}
	if (lca < 0)
		return s->nodes[topo_root_of(s, na)].numa == s->nodes[topo_root_of(s, nb)].numa
		       ? NP_PHB : NP_SYS;
	if (s->nodes[lca].kind == SCN_ROOT_COMPLEX)
		return NP_PHB;
	for (x = s->nodes[na].parent; x != lca; x = s->nodes[x].parent)
		sw += s->nodes[x].kind == SCN_SWITCH;
	for (x = s->nodes[nb].parent; x != lca; x = s->nodes[x].parent)
		sw += s->nodes[x].kind == SCN_SWITCH;
	return sw ? NP_PXB : NP_PIX;
}

int topo_net_gdr(const struct scenario *s, int g, int nic)
{
	const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[g]].gpu_model];
	int level = s->nccl_gdr_level >= 0 ? s->nccl_gdr_level : NP_PXB;
	if (m->p2p == SCN_P2P_UNSUPPORTED)
		return 0;
	return topo_node_path(s, s->gpu_node[g], nic) <= level;
}

void topo_apply_acs(struct scenario *s, int acs)
{
	int i;
	if (acs < 0)
		return;
	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].kind == SCN_SWITCH || s->nodes[i].kind == SCN_ROOT_PORT)
			s->nodes[i].acs = acs;
}

int topo_p2p_forbidden(const struct scenario *s, int a, int b, char *why, size_t n)
{
	struct topo_opts o;
	struct topo_view *v = NULL;
	int rc, bad;
	char reason[512];

	topo_opts_init(&o);
	if ((rc = topo_build(s, s->vm.mode == SCN_VM ? TOPO_GUEST : TOPO_HOST, &o, &v, NULL)) < 0)
		return rc;
	bad = a != b && v->p2p[a][b] != P2P_OK;
	if (bad && why) {
		topo_p2p_reason(v, a, b, reason, sizeof(reason));
		snprintf(why, n, "%s %s: %s", topo_p2p_str((enum topo_p2p)v->p2p[a][b]),
			 v->side == TOPO_GUEST ? "in the guest" : "on the host", reason);
	}
	topo_free(v);
	return bad;
}
