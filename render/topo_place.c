/*
 * topo_place.c - placing the boxes of one panel of the topology diagram:
 * the PCIe subtrees as tidy trees, the socket and host frames, IOMMU group
 * outlines, NVLink below the sockets and the network between hosts (the
 * rules are at the top of topo_layout.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_layout_int.h"

static int add_box(struct rdr_layout *L, enum rdr_box_kind k, int panel, int node, int gpu,
		   double x, double y, double w, double h)
{
	struct rdr_box *b;
	if (L->nbox >= RDR_MAX_BOX)
		return -1;
	b = &L->box[L->nbox];
	memset(b, 0, sizeof(*b));
	b->kind = k;
	b->panel = panel;
	b->node = node;
	b->gpu = gpu;
	b->x = x;
	b->y = y;
	b->w = w;
	b->h = h;
	return L->nbox++;
}

int tl_add_frame(struct rdr_layout *L, enum rdr_frame_kind k, double x, double y, double w,
		 double h, const char *label)
{
	struct rdr_frame *f;
	if (L->nframe >= RDR_MAX_FRAME)
		return -1;
	f = &L->frame[L->nframe];
	f->kind = k;
	f->x = x;
	f->y = y;
	f->w = w;
	f->h = h;
	snprintf(f->label, sizeof(f->label), "%.127s", label);
	return L->nframe++;
}

/* Vertical edge from the top of box lo (below) into the bottom of box hi at x. */
static int add_vedge(struct rdr_layout *L, enum rdr_edge_kind k, int lo, int hi, double x,
		     const char *label)
{
	struct rdr_edge *e;
	const struct rdr_box *a = &L->box[lo], *b = &L->box[hi];
	if (L->nedge >= RDR_MAX_EDGE || lo < 0 || hi < 0)
		return -1;
	e = &L->edge[L->nedge];
	memset(e, 0, sizeof(*e));
	e->kind = k;
	e->a = lo;
	e->b = hi;
	e->npts = 2;
	e->px[0] = e->px[1] = x;
	e->py[0] = a->y;
	e->py[1] = b->y + b->h;
	snprintf(e->label, sizeof(e->label), "%s", label);
	e->lx = x;
	e->ly = a->y - 15;
	return L->nedge++;
}

static double subtree_width(struct panel *p, int n)
{
	int i;
	double w = 0;
	for (i = 0; i < p->nchild[n]; i++)
		w += subtree_width(p, p->child[n][i]);
	if (w < SLOT)
		w = SLOT;
	return p->wsub[n] = w;
}

static int is_endpoint(const struct scn_node *n)
{
	return n->kind == SCN_GPU || n->kind == SCN_NIC;
}

static void gpu_name(const struct scenario *s, const struct scn_node *n, char *buf, size_t sz)
{
	const char *name = n->gpu_model >= 0 ? s->catalog->gpus[n->gpu_model].name : n->model;
	int words = 0;
	size_t i;
	if (!strncmp(name, "NVIDIA ", 7))
		name += 7;
	snprintf(buf, sz, "%s", name);
	/* three words say which GPU it is ("RTX PRO 6000", "H100 80GB HBM3") */
	for (i = 0; buf[i]; i++)
		if (buf[i] == ' ' && ++words == 3) {
			buf[i] = 0;
			break;
		}
}

/* A device name from lspci without its vendor ("Intel Corporation
 * Ethernet Controller X710" -> "Ethernet Controller X710"): the box is
 * narrow and the vendor is the least telling part. */
static void device_name(const char *name, char *buf, size_t sz)
{
	static const char *const vendors[] = {
		"Intel Corporation ", "Broadcom / LSI ", "Broadcom Inc. and subsidiaries ",
		"Mellanox Technologies ", "NVIDIA Corporation ", "Advanced Micro Devices, Inc. [AMD] ",
		"Advanced Micro Devices, Inc. ", "PLX Technology, Inc. ", "Microchip Technology ",
		"Marvell Technology Group Ltd. ", "Broadcom Limited ", "Broadcom "
	};
	size_t i;
	for (i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++)
		if (!strncmp(name, vendors[i], strlen(vendors[i]))) {
			name += strlen(vendors[i]);
			break;
		}
	snprintf(buf, sz, "%s", name);
}

/* Place node n's subtree in [x, x + wsub). */
static int place(struct panel *p, int n, double x)
{
	const struct scn_node *nd = &p->v->nodes[n];
	double w = is_endpoint(nd) ? BW : p->wsub[n] - (SLOT - BW);
	double cx = x + p->wsub[n] / 2, y = p->top_row_y + p->row[n] * ROWH, cw = 0;
	static const enum rdr_box_kind kinds[] = { RB_RC, RB_RP, RB_SWITCH, RB_GPU, RB_NIC };
	int b, i, gpu = nd->kind == SCN_GPU ? nd->gpu_index : -1;
	struct rdr_box *bx;

	b = add_box(p->L, kinds[nd->kind], p->idx, n, gpu, cx - w / 2, y, w, BH);
	if (b < 0)
		return -1;
	p->box_of[n] = b;
	bx = &p->L->box[b];
	switch (nd->kind) {
	case SCN_GPU:
		snprintf(bx->line1, sizeof(bx->line1), "GPU%d", nd->gpu_index);
		gpu_name(p->s, nd, bx->line2, sizeof(bx->line2));
		break;
	case SCN_NIC: {
		int k, nic = 0;
		for (k = 0; k < n; k++)
			nic += p->v->nodes[k].kind == SCN_NIC;
		snprintf(bx->line1, sizeof(bx->line1), "NIC%d", nic);
		device_name(nd->model[0] ? nd->model : nd->id, bx->line2, sizeof(bx->line2));
		break;
	}
	case SCN_SWITCH:
		/* a long id is cut at the box's width */
		if (snprintf(bx->line1, sizeof(bx->line1), "PCIe switch %s%s", nd->id,
			     nd->acs ? "" : " (no ACS)") < 0)
			bx->line1[0] = 0;
		device_name(nd->model, bx->line2, sizeof(bx->line2));
		break;
	case SCN_ROOT_PORT:
		snprintf(bx->line1, sizeof(bx->line1), "root port");
		snprintf(bx->line2, sizeof(bx->line2), "%s%s%s%s", nd->id, nd->bdf[0] ? " \xc2\xb7 " : "",
			 nd->bdf, nd->acs ? "" : " \xc2\xb7 no ACS");
		break;
	case SCN_ROOT_COMPLEX:
		if (p->host) {
			snprintf(bx->line1, sizeof(bx->line1), "root complex");
			snprintf(bx->line2, sizeof(bx->line2), "%s%s%s \xc2\xb7 NUMA %d", nd->id,
				 nd->bdf[0] ? " \xc2\xb7 " : "", nd->bdf, nd->numa);
		} else {
			snprintf(bx->line1, sizeof(bx->line1), "host bridge");
			snprintf(bx->line2, sizeof(bx->line2), "%s \xc2\xb7 %s", nd->id,
				 nd->numa >= 0 ? "pxb-pcie expander" :
				 p->s->vm.chipset == SCN_I440FX ? "i440FX flat PCI bus" : "q35 root bus");
		}
		break;
	}
	for (i = 0; i < p->nchild[n]; i++)
		cw += p->wsub[p->child[n][i]];
	x += (p->wsub[n] - cw) / 2;
	for (i = 0; i < p->nchild[n]; i++) {
		int c = p->child[n][i];
		if (place(p, c, x) < 0)
			return -1;
		x += p->wsub[c];
	}
	return 0;
}

static void link_label(const struct scn_node *n, char *buf, size_t sz)
{
	if (n->gen > 0 && n->width > 0)
		snprintf(buf, sz, "Gen%d x%d", n->gen, n->width);
	else
		snprintf(buf, sz, "PCI");
}

/* The host (box) of socket sk, of GPU g: 0 in a scenario of one box. */
static int socket_host(const struct scenario *s, int sk)
{
	int h;
	for (h = 0; h < s->nhosts; h++)
		if (sk >= s->hosts[h].first_socket && sk < s->hosts[h].first_socket + s->hosts[h].nsockets)
			return h;
	return 0;
}

int tl_gpu_host(const struct scenario *s, int g)
{
	int h;
	for (h = 0; h < s->nhosts; h++)
		if (g >= s->hosts[h].first_gpu && g < s->hosts[h].first_gpu + s->hosts[h].ngpus)
			return h;
	return 0;
}

/* The NIC node of GPU g's host nearest to it (NCCL gives each GPU the
 * closest NIC: the smallest path type, then the first in the tree), or -1. */
int tl_nearest_nic(const struct scenario *s, int g)
{
	int n, best = -1, bp = 1 << 30, h = tl_gpu_host(s, g);
	for (n = 0; n < s->nnodes; n++) {
		int pt;
		if (s->nodes[n].kind != SCN_NIC || s->nodes[n].host != h)
			continue;
		pt = topo_node_path(s, s->gpu_node[g], n);
		if (pt < bp) {
			bp = pt;
			best = n;
		}
	}
	return best;
}

int tl_multi_host(const struct panel *p)
{
	return p->host && p->s->nhosts > 1;
}

/*
 * The hosts a picture draws: all of them up to DRAW_HOSTS when their boxes
 * (entries, CPUs, memory) fit, else the first DRAW_FEW that fit; the rest
 * are one frame that names them (ELIDE_W wide).
 */
int tl_draw_hosts(const struct scenario *s)
{
	int h, boxes = 8, max = s->nhosts;      /* 8: the network switch, NVSwitches */
	if (s->nhosts <= 1)
		return 1;
	for (h = 0; h < s->nhosts; h++)
		boxes += s->hosts[h].nnodes + 2 * s->hosts[h].nsockets + 2;
	if (s->nhosts > DRAW_HOSTS || boxes > RDR_MAX_BOX)
		max = DRAW_FEW;
	for (h = 0, boxes = 8; h < max; h++) {
		boxes += s->hosts[h].nnodes + 2 * s->hosts[h].nsockets + 2;
		if (boxes > RDR_MAX_BOX)
			break;
	}
	return h > 0 ? h : 1;
}

/* Lay out one view from x0, y0; returns the panel's right edge or < 0. */
double tl_layout_panel(struct panel *p, double x0, double y0)
{
	struct rdr_layout *L = p->L;
	const struct topo_view *v = p->v;
	const struct scenario *s = p->s;
	int n, sk, i, maxdepth = 0, emax = 0;
	double x = x0 + PAD, sock_top = y0 + 34 + (tl_multi_host(p) ? HOST_TITLE : 0), bottom = 0;
	double mem_y = sock_top + STITLE, cpu_y = mem_y + BH + 34;

	p->x0 = x0;
	p->y0 = y0;
	for (n = 0; n < SCN_MAX_NODES; n++) {
		p->box_of[n] = p->edge_of[n] = -1;
		p->nchild[n] = 0;
	}
	for (n = 0; n < v->nnodes; n++) {
		int par = v->nodes[n].parent;
		p->depth[n] = par < 0 ? 0 : p->depth[par] + 1;
		if (par >= 0 && p->nchild[par] < 64)
			p->child[par][p->nchild[par]++] = n;
		if (p->depth[n] > maxdepth)
			maxdepth = p->depth[n];
		if (is_endpoint(&v->nodes[n]) && p->depth[n] > emax)
			emax = p->depth[n];
	}
	p->erow = emax;
	for (n = 0; n < v->nnodes; n++)
		p->row[n] = is_endpoint(&v->nodes[n]) ? emax : p->depth[n];
	p->top_row_y = cpu_y + BH + VGAP;
	for (n = 0; n < v->nnodes; n++)
		if (v->nodes[n].parent < 0)
			subtree_width(p, n);

	p->nsock = !p->host ? 1 : p->ndraw < s->nhosts ?
		s->hosts[p->ndraw - 1].first_socket + s->hosts[p->ndraw - 1].nsockets : s->host.sockets;
	for (sk = 0; sk < p->nsock; sk++) {
		double w = 0, sx = x, cpuw, bot;
		int nroots = 0, numa, b;
		char lbl[160], cpus[128];
		for (n = 0; n < v->nnodes; n++)
			if (v->nodes[n].parent < 0 && (!p->host || v->nodes[n].socket == sk)) {
				w += p->wsub[n];
				nroots++;
			}
		if (w < SLOT * 1.5)
			w = SLOT * 1.5;
		/* roots of this socket, NUMA node by NUMA node */
		{
			double rx = sx + PAD + (w - 0) / 2, tot = 0;
			for (n = 0; n < v->nnodes; n++)
				if (v->nodes[n].parent < 0 && (!p->host || v->nodes[n].socket == sk))
					tot += p->wsub[n];
			rx = sx + PAD + (w - tot) / 2;
			for (numa = -1; numa < SCN_MAX_SOCKETS * 8; numa++) {
				double nx0 = rx;
				int cnt = 0;
				for (n = 0; n < v->nnodes; n++) {
					const struct scn_node *r = &v->nodes[n];
					int rn = r->numa < -1 ? -1 : r->numa;
					if (r->parent >= 0 || (p->host && r->socket != sk) || rn != numa)
						continue;
					if (place(p, n, rx) < 0)
						return -1;
					rx += p->wsub[n];
					cnt++;
				}
				if (cnt && p->host && s->host.numa_per_socket > 1) {
					char nl[32];
					snprintf(nl, sizeof(nl), "NUMA node %d", numa);
					tl_add_frame(L, RF_NUMA, nx0 + 3, p->top_row_y - 10, rx - nx0 - 6,
						  (p->erow + 1) * ROWH - VGAP + 10 + GLABEL + 26, nl);
				}
			}
		}
		/* CPU and memory boxes */
		cpuw = w - (SLOT - BW);
		b = add_box(L, RB_CPU, p->idx, sk, -1, sx + PAD + (w - cpuw) / 2, cpu_y, cpuw, BH);
		if (b < 0)
			return -1;
		p->cpu_box[sk] = b;
		if (p->host) {
			snprintf(L->box[b].line1, sizeof(L->box[b].line1), "CPU socket %d", sk);
			snprintf(L->box[b].line2, sizeof(L->box[b].line2), "%s",
				 s->host.cpu_model[0] ? s->host.cpu_model : "CPU");
		} else {
			snprintf(L->box[b].line1, sizeof(L->box[b].line1), "guest vCPUs");
			snprintf(L->box[b].line2, sizeof(L->box[b].line2), "%s %s",
				 s->vm.hypervisor[0] ? s->vm.hypervisor : "VM",
				 s->vm.chipset == SCN_Q35 ? "q35" : "i440fx");
		}
		b = add_box(L, RB_MEM, p->idx, sk, -1, sx + PAD + w / 2 - 80, mem_y, 160, BH);
		if (b < 0)
			return -1;
		p->mem_box[sk] = b;
		if (p->host) {
			snprintf(L->box[b].line1, sizeof(L->box[b].line1), "host memory");
			snprintf(L->box[b].line2, sizeof(L->box[b].line2), "DRAM of socket %d", sk);
		} else {
			snprintf(L->box[b].line1, sizeof(L->box[b].line1), "guest memory");
			snprintf(L->box[b].line2, sizeof(L->box[b].line2), "%.0f GiB RAM",
				 (double)s->vm.guest_ram / (1024.0 * 1024 * 1024));
		}
		p->mem_edge[sk] = add_vedge(L, RE_DRAM, p->cpu_box[sk], b, sx + PAD + w / 2, "");
		/* root complexes into the CPU */
		for (n = 0; n < v->nnodes; n++) {
			const struct rdr_box *rb;
			if (v->nodes[n].parent >= 0 || p->box_of[n] < 0 ||
			    (p->host && v->nodes[n].socket != sk))
				continue;
			rb = &L->box[p->box_of[n]];
			p->edge_of[n] = add_vedge(L, RE_FABRIC, p->box_of[n], p->cpu_box[sk],
						  rb->x + rb->w / 2, "");
		}
		bot = p->top_row_y + (p->erow + 1) * ROWH - VGAP + GLABEL + 14;
		if (p->host && s->host.numa_per_socket > 1)
			bot += 24;
		if (bot > bottom)
			bottom = bot;
		if (p->host) {
			topo_cpu_affinity(s, sk * s->host.numa_per_socket, cpus, sizeof(cpus));
			if (strcmp(cpus, "N/A"))
				snprintf(lbl, sizeof(lbl), "socket %d \xc2\xb7 CPUs %s", sk, cpus);
			else
				snprintf(lbl, sizeof(lbl), "socket %d", sk);
		} else {
			snprintf(lbl, sizeof(lbl), "the tree the hypervisor builds");
		}
		tl_add_frame(L, RF_SOCKET, sx, sock_top, w + 2 * PAD, 0, lbl);
		p->sock_x0[sk] = sx;
		p->sock_x1[sk] = sx + w + 2 * PAD;
		x = sx + w + 2 * PAD + SOCK_GAP;
		if (tl_multi_host(p) && sk + 1 < p->nsock && socket_host(s, sk + 1) != socket_host(s, sk))
			x += HOST_GAP;
		(void)nroots;
	}
	/* socket frames all reach the lowest content */
	for (i = 0; i < L->nframe; i++)
		if (L->frame[i].kind == RF_SOCKET && L->frame[i].h == 0)
			L->frame[i].h = bottom - sock_top;
	/* PCIe links */
	for (n = 0; n < v->nnodes; n++) {
		int par = v->nodes[n].parent;
		char lab[32];
		const struct rdr_box *cb;
		if (par < 0 || p->box_of[n] < 0 || p->box_of[par] < 0)
			continue;
		cb = &L->box[p->box_of[n]];
		link_label(&v->nodes[n], lab, sizeof(lab));
		if (!p->host && s->vm.chipset == SCN_I440FX)
			snprintf(lab, sizeof(lab), "PCI");   /* no PCIe capabilities */
		if (v->nodes[n].kind == SCN_ROOT_PORT)
			lab[0] = 0;     /* a root port is part of its root complex */
		p->edge_of[n] = add_vedge(L, RE_PCIE, p->box_of[n], p->box_of[par],
					  cb->x + cb->w / 2, lab);
	}
	/* inter-socket links, inside a host */
	for (sk = 0; sk + 1 < p->nsock; sk++) {
		const struct rdr_box *a = &L->box[p->cpu_box[sk]], *b = &L->box[p->cpu_box[sk + 1]];
		struct rdr_edge *e = &L->edge[L->nedge];
		char kind[16];
		int k;
		if (tl_multi_host(p) && socket_host(s, sk + 1) != socket_host(s, sk)) {
			p->xs_edge[sk] = -1;
			continue;
		}
		if (L->nedge >= RDR_MAX_EDGE)
			return -1;
		memset(e, 0, sizeof(*e));
		e->kind = RE_XSOCKET;
		e->a = p->cpu_box[sk];
		e->b = p->cpu_box[sk + 1];
		e->npts = 2;
		e->px[0] = a->x + a->w;
		e->px[1] = b->x;
		e->py[0] = e->py[1] = a->y + a->h / 2;
		snprintf(kind, sizeof(kind), "%s", s->host.inter_socket_kind[0] ?
			 s->host.inter_socket_kind : "inter-socket");
		for (k = 0; kind[k]; k++)
			if (kind[k] >= 'a' && kind[k] <= 'z' && strcmp(kind, "inter-socket"))
				kind[k] = (char)(kind[k] - 'a' + 'A');
		if (!strcmp(kind, "XGMI"))
			memcpy(kind, "xGMI", 5);
		if (s->host.inter_socket_gbs > 0)
			snprintf(e->label, sizeof(e->label), "%s %.0f GB/s", kind,
				 s->host.inter_socket_gbs);
		else
			snprintf(e->label, sizeof(e->label), "%s", kind);
		e->lx = (e->px[0] + e->px[1]) / 2;
		e->ly = e->py[0] - 14;
		p->xs_edge[sk] = L->nedge++;
	}
	p->bottom = bottom;
	p->sock_top = sock_top;
	if (tl_multi_host(p) && p->ndraw < s->nhosts)
		x += HOST_GAP + ELIDE_W + SOCK_GAP;     /* the hosts not drawn */
	return x - SOCK_GAP;
}

/* IOMMU group outlines around the host view's endpoints. */
void tl_group_frames(struct panel *p)
{
	const struct topo_view *v = p->v;
	struct rdr_layout *L = p->L;
	int g, i, j;
	for (g = 0; g < v->ngroups; g++) {
		double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
		int members = 0, contiguous = 1;
		char lab[48];
		for (i = 0; i < v->nep; i++) {
			const struct rdr_box *b;
			if (v->group[i] != g || p->box_of[v->ep[i].node] < 0)
				continue;
			b = &L->box[p->box_of[v->ep[i].node]];
			members++;
			x0 = fmin(x0, b->x);
			y0 = fmin(y0, b->y);
			x1 = fmax(x1, b->x + b->w);
			y1 = fmax(y1, b->y + b->h);
		}
		if (!members)
			continue;
		/* another endpoint inside the bounding box: outline members one by one */
		for (j = 0; j < v->nep; j++) {
			const struct rdr_box *b;
			if (v->group[j] == g || p->box_of[v->ep[j].node] < 0)
				continue;
			b = &L->box[p->box_of[v->ep[j].node]];
			if (b->x < x1 && b->x + b->w > x0 && b->y < y1 && b->y + b->h > y0)
				contiguous = 0;
		}
		snprintf(lab, sizeof(lab), "IOMMU group %d", g);
		if (contiguous) {
			tl_add_frame(L, RF_GROUP, x0 - 5, y0 - 5, x1 - x0 + 10, y1 - y0 + 5 + GLABEL, lab);
			continue;
		}
		for (i = 0; i < v->nep; i++) {
			const struct rdr_box *b;
			if (v->group[i] != g || p->box_of[v->ep[i].node] < 0)
				continue;
			b = &L->box[p->box_of[v->ep[i].node]];
			tl_add_frame(L, RF_GROUP, b->x - 5, b->y - 5, b->w + 10, b->h + 5 + GLABEL, lab);
		}
	}
}

/* NVLink below the sockets: an NVSwitch box, or U-shaped bonds. */
double tl_nvlink(struct panel *p, const struct fabric *f, double right)
{
	const struct topo_view *v = p->v;
	struct rdr_layout *L = p->L;
	double y = p->bottom + 36, x0 = 1e18, x1 = -1e18;
	int i, j, any = 0;

	int h, nh = tl_multi_host(p) ? p->ndraw : 1;
	double ybot = -1;

	for (i = 0; i < SCN_MAX_GPUS; i++)
		p->nvs_edge[i] = -1;
	p->nvs_box = -1;
	/* an NVSwitch domain per host: NVLink does not leave a box */
	for (h = 0; h < nh; h++) {
		int nb;
		x0 = 1e18;
		x1 = -1e18;
		any = 0;
		for (i = 0; i < v->ngpu; i++)
			if (f->nvl_up[i] >= 0 && p->box_of[v->ep[i].node] >= 0 &&
			    (nh == 1 || tl_gpu_host(p->s, i) == h)) {
				const struct rdr_box *b = &L->box[p->box_of[v->ep[i].node]];
				x0 = fmin(x0, b->x);
				x1 = fmax(x1, b->x + b->w);
				any = 1;
			}
		if (!any)
			continue;
		nb = add_box(L, RB_NVSWITCH, p->idx, -1, -1, x0, y + 40, x1 - x0, BH);
		if (nb < 0)
			return -1;
		p->nvs_box = nb;
		snprintf(L->box[nb].line1, sizeof(L->box[nb].line1), nh > 1 ? "NVSwitch of host %d" :
			 "NVSwitch", h);
		snprintf(L->box[nb].line2, sizeof(L->box[nb].line2), nh > 1 ?
			 "every GPU of the host reaches every other over NVLink" :
			 "every GPU reaches every other over NVLink");
		for (i = 0; i < v->ngpu; i++) {
			const struct rdr_box *b;
			struct rdr_edge *e;
			int links = 0;
			if (f->nvl_up[i] < 0 || p->box_of[v->ep[i].node] < 0 || L->nedge >= RDR_MAX_EDGE ||
			    (nh > 1 && tl_gpu_host(p->s, i) != h))
				continue;
			b = &L->box[p->box_of[v->ep[i].node]];
			for (j = 0; j < v->ngpu; j++)
				if (v->nvl[i][j] > links)
					links = v->nvl[i][j];
			e = &L->edge[L->nedge];
			memset(e, 0, sizeof(*e));
			e->kind = RE_NVLINK;
			e->a = p->box_of[v->ep[i].node];
			e->b = nb;
			e->npts = 2;
			e->px[0] = e->px[1] = b->x + b->w - 16;
			e->py[0] = b->y + b->h;
			e->py[1] = L->box[nb].y;
			snprintf(e->label, sizeof(e->label), "NV%d", links);
			e->lx = e->px[0];
			e->ly = L->box[nb].y - 18;
			p->nvs_edge[i] = L->nedge++;
		}
		ybot = L->box[nb].y + BH;
	}
	if (ybot >= 0)
		return ybot;
	/* point-to-point bonds, one level per overlap */
	{
		double lvl_end[32];
		int nl = 0, k;
		for (k = 0; k < 32; k++)
			lvl_end[k] = -1e18;
		for (i = 0; i < v->ngpu; i++)
			for (j = i + 1; j < v->ngpu; j++) {
				const struct rdr_box *a, *b;
				struct rdr_edge *e;
				double xa, xb;
				if (fab_nvp(f, i, j) < 0 || p->box_of[v->ep[i].node] < 0 ||
				    p->box_of[v->ep[j].node] < 0 || L->nedge >= RDR_MAX_EDGE)
					continue;
				a = &L->box[p->box_of[v->ep[i].node]];
				b = &L->box[p->box_of[v->ep[j].node]];
				xa = a->x + a->w - 20 - 6 * (j % 4);
				xb = b->x + b->w - 20 - 6 * (i % 4);
				for (k = 0; k < 31 && lvl_end[k] > fmin(xa, xb) - 4; k++)
					;
				lvl_end[k] = fmax(xa, xb);
				if (k + 1 > nl)
					nl = k + 1;
				e = &L->edge[L->nedge];
				memset(e, 0, sizeof(*e));
				e->kind = RE_NVLINK;
				e->a = p->box_of[v->ep[i].node];
				e->b = p->box_of[v->ep[j].node];
				e->npts = 4;
				e->px[0] = e->px[1] = xa;
				e->px[2] = e->px[3] = xb;
				e->py[0] = a->y + a->h;
				e->py[1] = e->py[2] = y + 22.0 * k;
				e->py[3] = b->y + b->h;
				if (v->scn && v->scn->xgmi)
					snprintf(e->label, sizeof(e->label), "XGMI");
				else
					snprintf(e->label, sizeof(e->label), "NV%d", v->nvl[i][j]);
				e->lx = (xa + xb) / 2;
				e->ly = e->py[1];
				p->nvs_edge[i] = L->nedge++;
			}
		(void)right;
		return nl ? y + 22.0 * nl : p->bottom;
	}
}

/*
 * Several hosts: a frame around each host's sockets (and NVSwitch), a box
 * for its NIC ports at the bottom of it, and the network switch below
 * every host with one link from each host's ports. Returns the bottom of
 * what it drew, or -1.
 */
double tl_hosts_net(struct panel *p, double y)
{
	const struct scenario *s = p->s;
	struct rdr_layout *L = p->L;
	int h, ports[SCN_MAX_HOSTS], nsw, elide = -1, nics = 0;   /* nics: the undrawn hosts' */
	double fx0 = 1e18, fx1 = -1e18, ybot = y;
	char lbl[160], rate[32];
	const char *net = s->net.kind == SCN_NET_ROCE ? "RoCE" : "InfiniBand";

	snprintf(rate, sizeof(rate), "%.0f Gb/s", s->net.port_gbps);
	for (h = 0; h < SCN_MAX_HOSTS; h++)
		p->net_edge[h] = -1;
	for (h = 0; h < p->ndraw; h++) {
		const struct scn_box *bx = &s->hosts[h];
		int first = bx->first_socket, last = bx->first_socket + bx->nsockets - 1;
		double hx0 = p->sock_x0[first] - 10, hx1 = p->sock_x1[last] + 10, pw = 260;
		ports[h] = -1;
		if (bx->nnics > 0) {
			ports[h] = add_box(L, RB_NIC, p->idx, -1, -1, (hx0 + hx1) / 2 - pw / 2, y + 24, pw, BH);
			if (ports[h] < 0)
				return -1;
			snprintf(L->box[ports[h]].line1, sizeof(L->box[ports[h]].line1), "%d NIC port%s",
				 bx->nnics, bx->nnics == 1 ? "" : "s");
			snprintf(L->box[ports[h]].line2, sizeof(L->box[ports[h]].line2), "%s %s each, "
				 "to the network", rate, net);
			ybot = fmax(ybot, y + 24 + BH);
		}
		snprintf(lbl, sizeof(lbl), "host %d \xc2\xb7 %s", h, bx->name[0] ? bx->name : "box");
		if (tl_add_frame(L, RF_HOST, hx0, p->sock_top - HOST_TITLE, hx1 - hx0, 0, lbl) < 0)
			return -1;
		fx0 = fmin(fx0, hx0);
		fx1 = fmax(fx1, hx1);
	}
	if (p->ndraw < s->nhosts) {
		/* the rest: one frame naming them, their ports in one box */
		int last = s->nhosts - 1, more = s->nhosts - p->ndraw;
		double hx0 = fx1 + HOST_GAP, pw = ELIDE_W - 40;
		for (h = p->ndraw; h < s->nhosts; h++)
			nics += s->hosts[h].nnics;
		elide = -1;
		if (nics > 0) {
			elide = add_box(L, RB_NIC, p->idx, -1, -1, hx0 + 20, y + 24, pw, BH);
			if (elide < 0)
				return -1;
			snprintf(L->box[elide].line1, sizeof(L->box[elide].line1), "%d NIC ports", nics);
			snprintf(L->box[elide].line2, sizeof(L->box[elide].line2), "%s %s each", rate, net);
			ybot = fmax(ybot, y + 24 + BH);
		}
		{
			int same = 1;
			for (h = p->ndraw + 1; h < s->nhosts; h++)
				same &= !strcmp(s->hosts[h].name, s->hosts[p->ndraw].name);
			if (same && s->hosts[p->ndraw].name[0])
				snprintf(lbl, sizeof(lbl), "hosts %d-%d \xc2\xb7 %s: %d more, not drawn",
					 p->ndraw, last, s->hosts[p->ndraw].name, more);
			else
				snprintf(lbl, sizeof(lbl), "hosts %d-%d: %d more, not drawn", p->ndraw,
					 last, more);
		}
		if (tl_add_frame(L, RF_HOST, hx0, p->sock_top - HOST_TITLE, ELIDE_W, 0, lbl) < 0)
			return -1;
		fx1 = hx0 + ELIDE_W;
	}
	/* host frames all reach the lowest content */
	for (h = 0; h < L->nframe; h++)
		if (L->frame[h].kind == RF_HOST && L->frame[h].h == 0)
			L->frame[h].h = ybot + 14 - L->frame[h].y;
	nsw = add_box(L, RB_NETSW, p->idx, -1, -1, fx0, ybot + 80, fx1 - fx0, BH);
	if (nsw < 0)
		return -1;
	snprintf(L->box[nsw].line1, sizeof(L->box[nsw].line1), "%s switch", net);
	if (s->net.switch_model[0])
		snprintf(L->box[nsw].line2, sizeof(L->box[nsw].line2), "%.60s%s", s->net.switch_model,
			 s->net.switch_ports > 0 ? "" : " \xc2\xb7 joins the hosts");
	else
		snprintf(L->box[nsw].line2, sizeof(L->box[nsw].line2), "joins the hosts");
	if (s->net.switch_ports > 0)
		snprintf(L->box[nsw].line2 + strlen(L->box[nsw].line2),
			 sizeof(L->box[nsw].line2) - strlen(L->box[nsw].line2), " \xc2\xb7 %d ports",
			 s->net.switch_ports);
	for (h = 0; h < p->ndraw; h++) {
		const struct rdr_box *pb;
		char lab[48];
		if (ports[h] < 0)
			continue;
		pb = &L->box[ports[h]];
		snprintf(lab, sizeof(lab), "%d x %s", s->hosts[h].nnics, rate);
		if ((p->net_edge[h] = add_vedge(L, RE_NET, nsw, ports[h], pb->x + pb->w / 2, lab)) < 0)
			return -1;
	}
	if (elide >= 0) {
		const struct rdr_box *pb = &L->box[elide];
		char lab[48];
		snprintf(lab, sizeof(lab), "%d x %s", nics, rate);
		if (add_vedge(L, RE_NET, nsw, elide, pb->x + pb->w / 2, lab) < 0)
			return -1;
	}
	return L->box[nsw].y + BH;
}

