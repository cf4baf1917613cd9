/*
 * topo_layout.c - where every box of the topology diagram goes: the rules
 * below, the highlighted path, the notes, and rdr_topo_layout, which runs
 * the placement of topo_place.c for each panel.
 *
 * One panel per view (host; for a VM the guest beside it). Inside a panel,
 * one frame per CPU socket, side by side, joined by the inter-socket link;
 * each holds the host-memory box, the CPU box and the PCIe subtrees of its
 * root complexes. Subtrees are laid out like a tidy tree: every endpoint
 * (GPU, NIC) gets a slot of SLOT points, all endpoints share the bottom row,
 * a bridge (root complex, root port, switch) sits in the row of its depth
 * and spans the slots of its subtree. Subtrees therefore occupy disjoint
 * column ranges, every PCIe link is a vertical segment from the middle of a
 * child up into its parent (which spans it), and no two boxes can meet.
 * NVLink runs below the sockets: to an NVSwitch box, or as U-shaped bonds
 * on separate levels.
 *
 * The highlighted path (--path A:B) comes from the transfer model: the
 * links of models/xfer/fabric.h's path (P2P, or the host bounce through the
 * receiver's host memory) are mapped back to the edges drawn for them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fabric.h"
#include "p2ptest.h"
#include "xfer.h"
#include "render_int.h"
#include "topo_layout_int.h"

static void mark(struct rdr_layout *L, int e, enum rdr_hl hl)
{
	if (e >= 0 && e < L->nedge)
		L->edge[e].hl = hl;
}

/* Highlight the host panel's edges on the fabric path of link ids. */
static void mark_fabric(struct panel *p, const struct fabric *f, const int *path, int n,
			enum rdr_hl hl)
{
	const struct scenario *s = p->s;
	int i, k, a, b;
	for (i = 0; i < n; i++) {
		int id = path[i];
		for (k = 0; k < s->nnodes; k++)
			if (f->up[k] == id || f->down[k] == id || f->rc_out[k] == id || f->rc_in[k] == id)
				mark(p->L, p->edge_of[k], hl);
		for (k = 0; k < s->host.sockets; k++)
			if (f->dram[k] == id)
				mark(p->L, p->mem_edge[k], hl);
		for (a = 0; a < p->nsock; a++)
			for (b = 0; b < p->nsock; b++)
				if (a != b && fab_xs(f, a, b) == id) {
					int lo = a < b ? a : b, hi = a < b ? b : a, t;
					for (t = lo; t < hi; t++)
						mark(p->L, p->xs_edge[t], hl);
				}
		for (k = 0; k < s->ngpus; k++) {
			if (f->nvl_up[k] == id || f->nvl_down[k] == id)
				mark(p->L, p->nvs_edge[k], hl);
			for (a = 0; a < s->ngpus; a++)
				if (fab_nvp(f, k, a) == id) {
					int e;
					for (e = 0; e < p->L->nedge; e++) {
						const struct rdr_edge *ed = &p->L->edge[e];
						if (ed->kind == RE_NVLINK && ed->npts == 4 &&
						    ((p->L->box[ed->a].gpu == k && p->L->box[ed->b].gpu == a) ||
						     (p->L->box[ed->a].gpu == a && p->L->box[ed->b].gpu == k)))
							mark(p->L, e, hl);
					}
				}
		}
	}
}

/* Highlight the guest panel: up to the common bridge (P2P) or through guest memory. */
static void mark_tree(struct panel *p, int na, int nb, enum rdr_hl hl)
{
	const struct topo_view *v = p->v;
	int up[SCN_MAX_NODES] = { 0 }, k;
	for (k = na; k >= 0; k = v->nodes[k].parent)
		up[k] = 1;
	if (hl == RH_P2P) {
		int lca = nb;
		while (lca >= 0 && !up[lca])
			lca = v->nodes[lca].parent;
		for (k = na; k >= 0 && k != lca; k = v->nodes[k].parent)
			mark(p->L, p->edge_of[k], hl);
		for (k = nb; k >= 0 && k != lca; k = v->nodes[k].parent)
			mark(p->L, p->edge_of[k], hl);
		return;
	}
	for (k = na; k >= 0; k = v->nodes[k].parent)
		mark(p->L, p->edge_of[k], hl);
	for (k = nb; k >= 0; k = v->nodes[k].parent)
		mark(p->L, p->edge_of[k], hl);
	mark(p->L, p->mem_edge[0], hl);
}

/* Is node k an ancestor of node n (or n itself) in view v? */
static int above(const struct topo_view *v, int k, int n)
{
	for (; n >= 0; n = v->nodes[n].parent)
		if (n == k)
			return 1;
	return 0;
}

/*
 * Which way data goes on each highlighted edge of panel p for a transfer
 * from GPU a to GPU b (sockets sa, sb): up the tree on a's side, down on
 * b's, both ways through host memory, from a's socket to b's across the
 * inter-socket link, from a into NVLink and out to b.
 */
static void orient(struct panel *p, int a, int b, int sa, int sb)
{
	struct rdr_layout *L = p->L;
	const struct topo_view *v = p->v;
	int na = v->ep[a].node, nb = v->ep[b].node, e, k;
	for (e = 0; e < L->nedge; e++) {
		struct rdr_edge *ed = &L->edge[e];
		if (ed->hl == RH_NONE || L->box[ed->a].panel != p->idx)
			continue;
		ed->dir = 2;
		if (ed->kind == RE_XSOCKET)
			ed->dir = sa < sb ? 1 : -1;
		else if (ed->kind == RE_NVLINK)
			ed->dir = L->box[ed->a].gpu == a ? 1 : -1;
		else if (ed->kind != RE_DRAM)
			for (k = 0; k < v->nnodes; k++)
				if (p->edge_of[k] == e) {
					int ua = above(v, k, na), ub = above(v, k, nb);
					ed->dir = ua && ub ? 2 : ua ? 1 : ub ? -1 : 2;
				}
	}
}

/*
 * The cost of the highlighted transfer, as the transfer model has it: a
 * 4-byte copy's latency and a 40 MB copy's rate (p2pBandwidthLatencyTest's
 * sizes), by P2P or through host memory; labelled beside the path's
 * highest edge in the first panel.
 */
static int path_cost(struct rdr_layout *L, const struct scenario *s, int a, int b, int p2p,
		     struct plumb_err *err)
{
	double small, big, top = 1e18;
	enum xfer_method m = p2p ? XFER_P2P : XFER_BOUNCE;
	int rc, e;
	if ((rc = xfer_time(s, a, b, P2PT_LAT_BYTES, m, 0, &small, err)) < 0 ||
	    (rc = xfer_time(s, a, b, P2PT_BYTES, m, 0, &big, err)) < 0)
		return rc;
	snprintf(L->cost, sizeof(L->cost), "%.1f us small copy\n%.1f GB/s large", small * 1e6,
		 P2PT_BYTES / big / 1e9);
	if (strlen(L->note) + 120 < sizeof(L->note))
		snprintf(L->note + strlen(L->note), sizeof(L->note) - strlen(L->note),
			 "%s Cost: %.1f us for a 4-byte copy, %.1f GB/s for 40 MB "
			 "(p2pBandwidthLatencyTest's sizes).",
			 L->note[0] && L->note[strlen(L->note) - 1] != '.' ? "." : "", small * 1e6,
			 P2PT_BYTES / big / 1e9);
	for (e = 0; e < L->nedge; e++) {
		const struct rdr_edge *ed = &L->edge[e];
		double y = fmin(ed->py[0], ed->py[ed->npts - 1]);
		if (ed->hl == RH_NONE || L->box[ed->a].panel != L->box[0].panel || ed->npts < 2)
			continue;
		if (y < top) {
			top = y;
			if (ed->npts == 2 && ed->py[0] == ed->py[1]) {
				/* across: centred under the link, between the boxes it joins */
				L->cost_center = 1;
				L->cost_x = (ed->px[0] + ed->px[1]) / 2;
				L->cost_y = ed->py[0] + 30;
			} else if (ed->npts > 2 && ed->py[1] > y && ed->py[ed->npts - 2] > y) {
				/* under the boxes (a link routed below them, as a
				 * mesh's are): centred just above its lowest run,
				 * clear of the boxes its ends leave */
				double low = ed->py[1];
				int k;
				for (k = 2; k < ed->npts - 1; k++)
					low = fmax(low, ed->py[k]);
				L->cost_center = 1;
				L->cost_x = (ed->px[0] + ed->px[ed->npts - 1]) / 2;
				L->cost_y = low - 24;
			} else {
				L->cost_center = 0;
				L->cost_x = fmax(ed->px[0], ed->px[ed->npts - 1]) + 10;
				L->cost_y = (ed->py[0] + ed->py[ed->npts - 1]) / 2;
			}
		}
	}
	return 0;
}

/*
 * Without a path: what NCCL makes of pairs whose P2P status is OK but that
 * cross a host bridge (PHB, NODE, SYS): NCCL's default NCCL_P2P_LEVEL (PXB)
 * sends them through host memory; a scenario's SYS lets them run P2P.
 */
static void level_note(struct rdr_layout *L, const struct topo_view *v)
{
	int i, j, far = 0, p2p = 0;
	for (i = 0; i < v->ngpu; i++)
		for (j = i + 1; j < v->ngpu; j++)
			if (v->p2p[i][j] == P2P_OK && v->cls[i][j] >= TC_PHB) {
				far++;
				p2p += v->xport[i][j] == XP_P2P;
			}
	if (!far)
		return;
	if (p2p == far)
		snprintf(L->note, sizeof(L->note), "P2P works, but %s %d GPU pairs cross a host "
			 "bridge (PHB, NODE or SYS): NCCL runs them peer-to-peer only because "
			 "NCCL_P2P_LEVEL=%s %s; with NCCL's default (PXB) they would go through host "
			 "memory.", far == v->ngpu * (v->ngpu - 1) / 2 ? "all" : "", far,
			 topo_nccl_path_str(v->nccl_level),
			 v->nccl_level_scenario ? "is set in the scenario" : "is set");
	else
		snprintf(L->note, sizeof(L->note), "%d pairs have P2P status OK but cross a host "
			 "bridge (PHB, NODE or SYS): NCCL_P2P_LEVEL=%s%s stops at host bridges, so %d "
			 "of them go through host memory (SHM); NCCL_P2P_LEVEL=SYS would run them "
			 "peer-to-peer.", far, topo_nccl_path_str(v->nccl_level),
			 v->nccl_level_default ? " (NCCL's default)" : "", far - p2p);
}

void rdr_topo_opts_init(struct rdr_topo_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->view = RDR_VIEW_DEFAULT;
	o->path_a = o->path_b = -1;
	topo_opts_init(&o->topo);
}

static void legend_note(struct rdr_layout *L, const struct scenario *s,
			const struct topo_view *nv, const struct rdr_topo_opts *o, int p2p)
{
	char why[400], cls[16];
	int a = o->path_a, b = o->path_b;
	topo_p2p_reason(nv, a, b, why, sizeof(why));
	if (s->nhosts > 1 && tl_gpu_host(s, a) != tl_gpu_host(s, b)) {
		/* NCCL's NET route: each GPU's nearest NIC */
		int ha = tl_gpu_host(s, a), hb = tl_gpu_host(s, b), na = tl_nearest_nic(s, a),
		    nb = tl_nearest_nic(s, b), ga, gb;
		ga = na >= 0 && topo_net_gdr(s, a, na);
		gb = nb >= 0 && topo_net_gdr(s, b, nb);
		snprintf(L->note, sizeof(L->note), "GPU%d \xe2\x86\x92 GPU%d: between hosts, NCCL's NET "
			 "transport over %s: out through %s of host %d, in through %s of host %d; %s. "
			 "No P2P and no shared host memory between hosts.",
			 a, b, s->net.kind == SCN_NET_ROCE ? "RoCE" : "InfiniBand",
			 na >= 0 ? s->nodes[na].id : "a NIC", ha, nb >= 0 ? s->nodes[nb].id : "a NIC", hb,
			 ga && gb ? "GPUDirect RDMA at both ends (each NIC reads or writes its GPU's "
				    "memory over PCIe)" :
			 ga || gb ? "GPUDirect RDMA at one end, staged through host memory at the other "
				    "(NCCL_NET_GDR_LEVEL)" :
				    "staged through host memory at both ends (NCCL_NET_GDR_LEVEL)");
		return;
	}
	if (!p2p && nv->p2p[a][b] == P2P_OK) {
		/* the driver allows P2P; NCCL's level is what sends it through memory */
		snprintf(L->note, sizeof(L->note), "GPU%d \xe2\x86\x92 GPU%d: a host bounce through "
			 "host memory (NCCL %s%s), although P2P status is OK: the pair is %s, beyond "
			 "NCCL_P2P_LEVEL=%s%s; with NCCL_P2P_LEVEL=SYS NCCL would use peer-to-peer DMA.",
			 a, b, topo_xport_str((enum topo_xport)nv->xport[a][b]),
			 s->vm.mode == SCN_VM ? " in the guest" : "", topo_class_str(nv, a, b, cls),
			 topo_nccl_path_str(nv->nccl_level),
			 nv->nccl_level_default ? " (NCCL's default)" : "");
		return;
	}
	snprintf(L->note, sizeof(L->note), "GPU%d \xe2\x86\x92 GPU%d: %s (NCCL %s%s). P2P status %s: %s",
		 a, b, p2p ? "peer-to-peer DMA" : "a host bounce through host memory",
		 topo_xport_str((enum topo_xport)nv->xport[a][b]),
		 s->vm.mode == SCN_VM ? " in the guest" : "",
		 topo_p2p_str((enum topo_p2p)nv->p2p[a][b]), why);
}

/*
 * A VM without a path: what its guest makes of every pair, and what one
 * transfer between the first two GPUs costs.
 */
static int vm_note(struct rdr_layout *L, const struct scenario *s, const struct topo_view *gv,
		   struct plumb_err *err)
{
	double small, big;
	int i, j, shm = 0, pairs = 0, rc;
	if (gv->ngpu < 2)
		return 0;
	for (i = 0; i < gv->ngpu; i++)
		for (j = i + 1; j < gv->ngpu; j++) {
			pairs++;
			shm += gv->xport[i][j] != XP_P2P;
		}
	if (!shm)
		return 0;
	if ((rc = xfer_time(s, 0, 1, P2PT_LAT_BYTES, XFER_BOUNCE, 0, &small, err)) < 0 ||
	    (rc = xfer_time(s, 0, 1, P2PT_BYTES, XFER_BOUNCE, 0, &big, err)) < 0)
		return rc;
	snprintf(L->note, sizeof(L->note), "In the guest %s%d of %d GPU pairs go through host "
		 "memory (NCCL %s), never peer-to-peer: from GPU0 to GPU1 a 4-byte copy takes %.1f us "
		 "and 40 MB run at %.1f GB/s (plumb xfer). --path A:B draws one such route.",
		 shm == pairs ? "all " : "", shm, pairs,
		 topo_xport_str((enum topo_xport)gv->xport[0][1]), small * 1e6,
		 P2PT_BYTES / big / 1e9);
	return 0;
}

int rdr_topo_drawn_gpus(const struct scenario *s)
{
	int nd;
	if (s->nhosts <= 1)
		return s->ngpus;
	nd = tl_draw_hosts(s);
	return s->hosts[nd - 1].first_gpu + s->hosts[nd - 1].ngpus;
}

int rdr_topo_layout(const struct scenario *s, const struct rdr_topo_opts *o,
		    struct rdr_layout **out, struct plumb_err *err)
{
	struct rdr_layout *L = NULL;
	struct panel *pn[2] = { NULL, NULL };
	struct topo_view *hv = NULL, *gv = NULL;
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	enum rdr_view view = o->view;
	int rc, np = 0, i, nd, vm = s->vm.mode == SCN_VM;
	double x = MARGIN, right = MARGIN, bottom = 0;
	char hosts_title[96];

	*out = NULL;
	if (view == RDR_VIEW_DEFAULT)
		view = vm ? RDR_VIEW_BOTH : RDR_VIEW_HOST;
	if (!vm && view != RDR_VIEW_HOST)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "scenario '%s' is bare metal: there is no guest view", s->name);
	if (o->path_a >= 0 || o->path_b >= 0) {
		if (o->path_a < 0 || o->path_b < 0 || o->path_a >= s->ngpus || o->path_b >= s->ngpus)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "--path needs two GPUs of 0-%d", s->ngpus - 1);
		if (o->path_a == o->path_b)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "--path needs two different GPUs");
		for (i = 0, nd = tl_draw_hosts(s); i < 2; i++) {
			int g = i ? o->path_b : o->path_a, h = tl_gpu_host(s, g);
			if (h >= nd)
				return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
						     "--path: GPU%d is in host %d, and the picture "
						     "draws hosts 0-%d of %d (GPUs 0-%d)", g, h, nd - 1,
						     s->nhosts, s->hosts[nd - 1].first_gpu +
						     s->hosts[nd - 1].ngpus - 1);
		}
	}
	L = calloc(1, sizeof(*L));
	if (L)
		L->xgmi = s->xgmi;
	pn[0] = calloc(1, sizeof(*pn[0]));
	pn[1] = calloc(1, sizeof(*pn[1]));
	if (!L || !pn[0] || !pn[1]) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	if ((rc = topo_build(s, TOPO_HOST, &o->topo, &hv, err)) < 0)
		goto fail;
	if (vm && (rc = topo_build(s, TOPO_GUEST, &o->topo, &gv, err)) < 0)
		goto fail;
	if ((rc = sim_engine_new(s->seed, &eng, err)) < 0 || (rc = fab_build(eng, s, &f, err)) < 0)
		goto fail;
	fab_set_acs(f, o->topo.acs_override);
	snprintf(L->title, sizeof(L->title), "%.200s: PCIe topology%s", s->name[0] ? s->name : s->path,
		 view == RDR_VIEW_BOTH ? ", host and guest views" :
		 view == RDR_VIEW_GUEST ? ", guest view" : "");
	snprintf(L->subtitle, sizeof(L->subtitle), "%s", s->description);
	if (view != RDR_VIEW_GUEST) {
		struct panel *p = pn[np++];
		p->L = L;
		p->s = s;
		p->v = hv;
		p->idx = 0;
		p->host = 1;
		p->ndraw = tl_draw_hosts(s);
	}
	if (view != RDR_VIEW_HOST) {
		struct panel *p = pn[np++];
		p->L = L;
		p->s = s;
		p->v = gv;
		p->idx = 1;
		p->host = 0;
		p->ndraw = 1;
	}
	for (i = 0; i < np; i++) {
		struct panel *p = pn[i];
		double r = tl_layout_panel(p, x + 12, MARGIN + 56), b;
		int fr;
		if (r < 0) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "too many boxes to draw");
			goto fail;
		}
		if (p->host)
			tl_group_frames(p);
		b = p->host ? tl_nvlink(p, f, r) : p->bottom;
		if (b >= 0 && tl_multi_host(p))
			b = tl_hosts_net(p, b);
		snprintf(hosts_title, sizeof(hosts_title), "%d hosts joined by a%s %s network",
			 s->nhosts, s->net.kind == SCN_NET_ROCE ? "" : "n",
			 s->net.kind == SCN_NET_ROCE ? "RoCE" : "InfiniBand");
		if (b < 0) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "too many boxes to draw");
			goto fail;
		}
		fr = tl_add_frame(L, RF_PANEL, x, MARGIN + 56 - 4, r - x + 12, b - (MARGIN + 52) + 16,
			       p->host ? (vm ? "host: the physical machine" :
					  tl_multi_host(p) ? hosts_title : "host") :
			       "guest: what the VM sees");
		(void)fr;
		if (b + 12 > bottom)
			bottom = b + 12;
		x = r + 12 + PANEL_GAP;
		right = r + 12;
	}
	/* a guest GPU is a host GPU passed through: say which */
	if (gv && hv)
		for (i = 0; i < L->nbox; i++) {
			struct rdr_box *bx = &L->box[i];
			int k;
			if (bx->kind != RB_GPU || bx->panel != 1 || bx->gpu < 0)
				continue;
			for (k = 0; k < hv->ngpu; k++)
				if (hv->ep[k].gpu == bx->gpu)
					snprintf(bx->line2, sizeof(bx->line2), "VFIO: host %s", hv->ep[k].label);
		}
	/* all panels as tall as the tallest */
	for (i = 0; i < L->nframe; i++)
		if (L->frame[i].kind == RF_PANEL)
			L->frame[i].h = bottom - L->frame[i].y;
	if (o->path_a >= 0) {
		const struct topo_view *nv = vm ? gv : hv;
		int a = o->path_a, b = o->path_b, p2p = nv->xport[a][b] == XP_P2P, path[FAB_MAX_PATH];
		int cross = s->nhosts > 1 && tl_gpu_host(s, a) != tl_gpu_host(s, b);
		int nic_a = cross ? tl_nearest_nic(s, a) : -1, nic_b = cross ? tl_nearest_nic(s, b) : -1;
		enum rdr_hl hl = p2p ? RH_P2P : RH_BOUNCE;
		for (i = 0; i < np; i++) {
			struct panel *p = pn[i];
			const struct topo_view *v = p->v;
			int k;
			for (k = 0; k < L->nbox; k++)
				if (L->box[k].panel == p->idx && (L->box[k].gpu == a || L->box[k].gpu == b))
					L->box[k].hl = 1;
			if (cross && p->host) {
				/* between hosts: each GPU's nearest NIC, the network */
				if (nic_a >= 0)
					mark_tree(p, v->ep[a].node, nic_a, RH_P2P);
				if (nic_b >= 0)
					mark_tree(p, nic_b, v->ep[b].node, RH_P2P);
				if (p->net_edge[tl_gpu_host(s, a)] >= 0)
					mark(L, p->net_edge[tl_gpu_host(s, a)], RH_P2P);
				if (p->net_edge[tl_gpu_host(s, b)] >= 0)
					mark(L, p->net_edge[tl_gpu_host(s, b)], RH_P2P);
			} else if (p->host) {
				int n;
				if (p2p) {
					n = fab_path_gpu(f, a, b, path);
					mark_fabric(p, f, path, n, hl);
				} else {
					int sock = fab_gpu_socket(f, b);
					n = fab_path_to_host(f, a, sock, path);
					mark_fabric(p, f, path, n, hl);
					n = fab_path_from_host(f, sock, b, path);
					mark_fabric(p, f, path, n, hl);
				}
				/* the root port sits inside its root complex: no link of
				 * its own in the fabric; draw the route through it */
				for (k = 0; k < v->nnodes; k++) {
					int par = v->nodes[k].parent;
					if (par >= 0 && v->nodes[par].kind == SCN_ROOT_PORT &&
					    p->edge_of[k] >= 0 && L->edge[p->edge_of[k]].hl != RH_NONE)
						mark(L, p->edge_of[par], L->edge[p->edge_of[k]].hl);
				}
			} else {
				mark_tree(p, v->ep[a].node, v->ep[b].node, hl);
			}
			orient(p, a, b, p->host ? fab_gpu_socket(f, a) : 0,
			       p->host ? fab_gpu_socket(f, b) : 0);
			if (cross && p->host) {
				/* data goes down into the sender's NIC, up out of the
				 * receiver's, out of one host's ports and into the other's */
				if (nic_a >= 0 && p->edge_of[nic_a] >= 0)
					L->edge[p->edge_of[nic_a]].dir = -1;
				if (nic_b >= 0 && p->edge_of[nic_b] >= 0)
					L->edge[p->edge_of[nic_b]].dir = 1;
				if (p->net_edge[tl_gpu_host(s, a)] >= 0)
					L->edge[p->net_edge[tl_gpu_host(s, a)]].dir = -1;
				if (p->net_edge[tl_gpu_host(s, b)] >= 0)
					L->edge[p->net_edge[tl_gpu_host(s, b)]].dir = 1;
			}
		}
		legend_note(L, s, nv, o, p2p);
		if ((rc = path_cost(L, s, a, b, p2p, err)) < 0)
			goto fail;
		if (cross && pn[0]->host && pn[0]->net_edge[tl_gpu_host(s, a)] >= 0) {
			/* the cost beside the sender's link to the network */
			const struct rdr_edge *ne = &L->edge[pn[0]->net_edge[tl_gpu_host(s, a)]];
			L->cost_center = 0;
			L->cost_x = ne->px[0] + 14;
			L->cost_y = (ne->py[0] + ne->py[1]) / 2;
		}
	} else if (view == RDR_VIEW_HOST && !vm) {
		level_note(L, hv);
	} else if (gv && (rc = vm_note(L, s, gv, err)) < 0) {
		goto fail;
	}
	if (o->path_a >= 0 && np == 2) {
		/* room under the panels for the passthrough lines */
		L->vfio_y = bottom + 16;
		bottom += 52;
	}
	L->legend_y = bottom + 14;
	L->w = right + MARGIN;
	L->h = L->legend_y + 30 + (L->note[0] ? 40 : 0) + MARGIN;
	if (L->w < 1000)
		L->w = 1000;
	*out = L;
	L = NULL;
	rc = 0;
fail:
	free(L);
	free(pn[0]);
	free(pn[1]);
	fab_free(f);
	sim_engine_free(eng);
	topo_free(hv);
	topo_free(gv);
	return rc;
}
