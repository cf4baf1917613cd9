/*
 * topo_draw.c - draws the topology diagram laid out by topo_layout.c, and
 * the topo -m / P2P matrix as a coloured grid.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define C_P2P 0x2ca02c
#define C_BOUNCE 0xe8710a
#define C_NVLINK 0x0f7c8c     /* teal: apart from the P2P route's green */

static unsigned box_fill(enum rdr_box_kind k)
{
	switch (k) {
	case RB_MEM: return 0xfbefc4;
	case RB_CPU: return 0xd6e2f3;
	case RB_RC: return 0xe4e4e4;
	case RB_RP: return 0xf1f1f1;
	case RB_SWITCH: return 0xdcefdc;
	case RB_GPU: return 0xd5eaa8;
	case RB_NIC: return 0xf6d9c6;
	case RB_NVSWITCH: return 0xbfe3a0;
	case RB_NETSW: return 0xdcd3ec;
	}
	return 0xffffff;
}

static void draw_frame(cairo_t *cr, const struct rdr_frame *f)
{
	static const double dash[] = { 5, 3 };
	switch (f->kind) {
	case RF_PANEL:
		rdr_rgb(cr, 0xb0b0b0);
		cairo_set_line_width(cr, 1);
		rdr_round_rect(cr, f->x, f->y, f->w, f->h, 6);
		cairo_stroke(cr);
		rdr_rgb(cr, 0x303030);
		rdr_text(cr, f->x + 10, f->y + 20, f->label, 14, 1, RA_LEFT, f->w - 20);
		break;
	case RF_HOST:
		rdr_rgb(cr, 0xfcfcfd);
		rdr_round_rect(cr, f->x, f->y, f->w, f->h, 8);
		cairo_fill_preserve(cr);
		rdr_rgb(cr, 0x4a5a70);
		cairo_set_line_width(cr, 1.8);
		cairo_stroke(cr);
		rdr_rgb(cr, 0x1f2d40);
		rdr_text(cr, f->x + 10, f->y + 19, f->label, 13, 1, RA_LEFT, f->w - 20);
		break;
	case RF_SOCKET:
		rdr_rgb(cr, 0xf5f7fb);
		rdr_round_rect(cr, f->x, f->y, f->w, f->h, 8);
		cairo_fill_preserve(cr);
		rdr_rgb(cr, 0x8da2c0);
		cairo_set_line_width(cr, 1.2);
		cairo_stroke(cr);
		rdr_rgb(cr, 0x2c3e5a);
		rdr_text(cr, f->x + 8, f->y + 17, f->label, 12, 1, RA_LEFT, f->w - 16);
		break;
	case RF_NUMA:
		rdr_rgb(cr, 0x8da2c0);
		cairo_set_line_width(cr, 1);
		cairo_set_dash(cr, dash, 2, 0);
		rdr_round_rect(cr, f->x, f->y, f->w, f->h, 6);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		rdr_rgb(cr, 0x2c3e5a);
		rdr_text(cr, f->x + 6, f->y + f->h - 7, f->label, 11, 0, RA_LEFT, f->w - 12);
		break;
	case RF_GROUP:
		rdr_rgb(cr, 0x9b59b6);
		cairo_set_line_width(cr, 1.2);
		cairo_set_dash(cr, dash, 2, 0);
		rdr_round_rect(cr, f->x, f->y, f->w, f->h, 5);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		rdr_rgb(cr, 0x6c3483);
		/* left part only: NVLink lines leave the box near its right edge */
		rdr_text(cr, f->x + 5, f->y + f->h - 5, f->label, 10, 0, RA_LEFT, f->w - 30);
		break;
	}
}

static void edge_path(cairo_t *cr, const struct rdr_edge *e)
{
	int i;
	cairo_move_to(cr, e->px[0], e->py[0]);
	for (i = 1; i < e->npts; i++)
		cairo_line_to(cr, e->px[i], e->py[i]);
}

/* An arrow head with its tip at (x, y) pointing along (dx, dy) (unit). */
static void head(cairo_t *cr, double x, double y, double dx, double dy)
{
	const double len = 13, half = 7;
	cairo_move_to(cr, x, y);
	cairo_line_to(cr, x - dx * len - dy * half, y - dy * len + dx * half);
	cairo_line_to(cr, x - dx * len + dy * half, y - dy * len - dx * half);
	cairo_close_path(cr);
	cairo_fill_preserve(cr);
	cairo_save(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_set_line_width(cr, 1);
	cairo_stroke(cr);
	cairo_restore(cr);
}

/* Which way the data goes: heads on the longest segment of a highlighted
 * edge, one way, or both ways side by side. */
static void arrows(cairo_t *cr, const struct rdr_edge *e)
{
	double best = -1, x0 = 0, y0 = 0, x1 = 0, y1 = 0, dx, dy, len;
	int i;
	for (i = 0; i + 1 < e->npts; i++) {
		double l = hypot(e->px[i + 1] - e->px[i], e->py[i + 1] - e->py[i]);
		if (l > best) {
			best = l;
			x0 = e->px[i], y0 = e->py[i], x1 = e->px[i + 1], y1 = e->py[i + 1];
		}
	}
	if (best < 30 || !e->dir)
		return;
	dx = (x1 - x0) / best;
	dy = (y1 - y0) / best;
	len = best;
	if (e->dir == 1 || e->dir == -1) {
		double t = e->dir == 1 ? 0.5 + 6.5 / len : 0.5 - 6.5 / len;
		head(cr, x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, dx * e->dir, dy * e->dir);
		return;
	}
	/* both ways: two heads beside each other across the line */
	head(cr, x0 + (x1 - x0) * 0.5 + dx * 6.5 - dy * 7, y0 + (y1 - y0) * 0.5 + dy * 6.5 + dx * 7,
	     dx, dy);
	head(cr, x0 + (x1 - x0) * 0.5 - dx * 6.5 + dy * 7, y0 + (y1 - y0) * 0.5 - dy * 6.5 - dx * 7,
	     -dx, -dy);
}

static void draw_edge(cairo_t *cr, const struct rdr_edge *e, int hl_pass)
{
	static const double dash[] = { 9, 6 };
	if (!hl_pass) {
		double w = 1.6;
		unsigned c = 0x7a7a7a;
		if (e->kind == RE_FABRIC || e->kind == RE_DRAM)
			w = 3, c = 0x5b7396;
		else if (e->kind == RE_XSOCKET)
			w = 4, c = 0x2c3e5a;
		else if (e->kind == RE_NVLINK)
			w = 2.4, c = C_NVLINK;
		else if (e->kind == RE_NET)
			w = 3.2, c = 0x6a4c93;
		rdr_rgb(cr, c);
		cairo_set_line_width(cr, w);
		edge_path(cr, e);
		cairo_stroke(cr);
		return;
	}
	if (e->hl == RH_NONE)
		return;
	rdr_rgb(cr, e->hl == RH_P2P ? C_P2P : C_BOUNCE);
	cairo_set_line_width(cr, 5);
	if (e->hl == RH_BOUNCE)
		cairo_set_dash(cr, dash, 2, 0);
	edge_path(cr, e);
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	arrows(cr, e);
}

/* A box's second line too long for one line: broken at the space nearest
 * its middle into two smaller lines. */
static void two_lines(cairo_t *cr, const struct rdr_box *b, double maxw)
{
	static const char dot[] = " \xc2\xb7 ";     /* " · " between the line's parts */
	char a[96], c[96];
	const char *mid = b->line2 + strlen(b->line2) / 2, *sp = NULL, *p;
	size_t skip = 1;
	/* between parts if it has them, else at the space nearest the middle */
	for (p = strstr(b->line2, dot); p; p = strstr(p + 1, dot))
		if (!sp || fabs((double)(p - mid)) < fabs((double)(sp - mid)))
			sp = p;
	if (sp)
		skip = strlen(dot);
	else
		for (p = b->line2; *p; p++)
			if (*p == ' ' && (!sp || fabs((double)(p - mid)) < fabs((double)(sp - mid))))
				sp = p;
	snprintf(a, sizeof(a), "%.*s", (int)(sp - b->line2), b->line2);
	snprintf(c, sizeof(c), "%s", sp + skip);
	rdr_text(cr, b->x + b->w / 2, b->y + 31, a, 9, 0, RA_CENTER, maxw);
	rdr_text(cr, b->x + b->w / 2, b->y + 41.5, c, 9, 0, RA_CENTER, maxw);
}

static void draw_box(cairo_t *cr, const struct rdr_box *b)
{
	double pad = 6;
	rdr_rgb(cr, box_fill(b->kind));
	rdr_round_rect(cr, b->x, b->y, b->w, b->h, 5);
	cairo_fill_preserve(cr);
	if (b->hl) {
		rdr_rgb(cr, 0x111111);
		cairo_set_line_width(cr, 3);
	} else {
		rdr_rgb(cr, 0x555555);
		cairo_set_line_width(cr, 1);
	}
	cairo_stroke(cr);
	rdr_rgb(cr, 0x111111);
	rdr_text(cr, b->x + b->w / 2, b->y + 19, b->line1, 13, 1, RA_CENTER, b->w - 2 * pad);
	rdr_rgb(cr, 0x404040);
	if (rdr_text_width(cr, b->line2, 10.5, 0) * 0.8 <= b->w - 2 * pad || !strchr(b->line2, ' '))
		rdr_text(cr, b->x + b->w / 2, b->y + 36, b->line2, 10.5, 0, RA_CENTER, b->w - 2 * pad);
	else
		two_lines(cr, b, b->w - 2 * pad);
}

/* One legend entry: a sample drawn by kind, then its text; returns the
 * next entry's x. */
static double entry(cairo_t *cr, double x, double y, int kind, const char *text)
{
	static const double dash[] = { 9, 6 }, gdash[] = { 5, 3 };
	double w = 36;
	switch (kind) {
	case 0:         /* P2P route */
	case 1:         /* host bounce */
		rdr_rgb(cr, kind ? C_BOUNCE : C_P2P);
		cairo_set_line_width(cr, 5);
		if (kind)
			cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, x, y);
		cairo_line_to(cr, x + w, y);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		break;
	case 2:         /* IOMMU group */
		w = 30;
		rdr_rgb(cr, 0x9b59b6);
		cairo_set_line_width(cr, 1.2);
		cairo_set_dash(cr, gdash, 2, 0);
		cairo_rectangle(cr, x, y - 7, w, 14);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		break;
	default:        /* NVLink */
		rdr_rgb(cr, C_NVLINK);
		cairo_set_line_width(cr, 2.4);
		cairo_move_to(cr, x, y);
		cairo_line_to(cr, x + w, y);
		cairo_stroke(cr);
		break;
	}
	rdr_rgb(cr, 0x222222);
	return x + w + 8 + rdr_text(cr, x + w + 8, y + 4, text, 12, 0, RA_LEFT, 0) + 24;
}

/* The legend names only what the picture draws. */
static void legend(cairo_t *cr, const struct rdr_layout *L)
{
	double x = 30, y = L->legend_y + 12;
	int i, has[4] = { 0, 0, 0, 0 };
	for (i = 0; i < L->nedge; i++) {
		has[0] |= L->edge[i].hl == RH_P2P;
		has[1] |= L->edge[i].hl == RH_BOUNCE;
		has[3] |= L->edge[i].kind == RE_NVLINK;
	}
	for (i = 0; i < L->nframe; i++)
		has[2] |= L->frame[i].kind == RF_GROUP;
	if (has[0])
		x = entry(cr, x, y, 0, "P2P route (arrows: the way data goes)");
	if (has[1])
		x = entry(cr, x, y, 1, "host bounce via host memory (arrows: the way data goes)");
	if (has[2])
		x = entry(cr, x, y, 2, "IOMMU group (host)");
	if (has[3])
		x = entry(cr, x, y, 3, L->xgmi ? "xGMI (Infinity Fabric)" : "NVLink");
	rdr_rgb(cr, 0x222222);
	rdr_text(cr, x, y + 4, "links: PCIe generation and lanes", 12, 0, RA_LEFT, L->w - x - 20);
	if (L->note[0]) {
		rdr_rgb(cr, 0x222222);
		rdr_text_wrap(cr, 30, y + 28, L->note, 12, L->w - 60, 17, 3);
	}
}

/*
 * A VM with a path in both views: a dotted line from each highlighted
 * guest GPU down under the panels and up into the host GPU passed through
 * to it, labelled, so the guest's route and the host's read as one.
 */
static void vfio_lines(cairo_t *cr, const struct rdr_layout *L)
{
	static const double dot[] = { 2, 3 };
	int i, k, n, pass;
	/* lines first, then their labels (beside the guest end) over them */
	for (pass = 0; pass < 2; pass++)
		for (i = 0, n = 0; i < L->nbox; i++) {
			const struct rdr_box *g = &L->box[i], *h = NULL;
			double y, gx, hx;
			char lab[200];
			if (!g->hl || g->panel != 1 || g->kind != RB_GPU)
				continue;
			for (k = 0; k < L->nbox; k++)
				if (L->box[k].panel == 0 && L->box[k].kind == RB_GPU &&
				    L->box[k].gpu == g->gpu)
					h = &L->box[k];
			if (!h)
				continue;
			y = L->vfio_y + 22 * n++;
			/* near the right edge: an IOMMU group's label sits at the left */
			gx = g->x + g->w - 14;
			hx = h->x + h->w - 14;
			if (!pass) {
				rdr_rgb(cr, 0x6c3483);
				cairo_set_line_width(cr, 1.6);
				cairo_set_dash(cr, dot, 2, 0);
				cairo_move_to(cr, gx, g->y + g->h);
				cairo_line_to(cr, gx, y);
				cairo_line_to(cr, hx, y);
				cairo_line_to(cr, hx, h->y + h->h);
				cairo_stroke(cr);
				cairo_set_dash(cr, NULL, 0, 0);
				continue;
			}
			snprintf(lab, sizeof(lab), "VFIO passthrough: guest %s is host %s", g->line1,
				 h->line1);
			rdr_rgb(cr, 0x6c3483);
			rdr_label(cr, gx - 14 - rdr_text_width(cr, lab, 10.5, 0) / 2, y, lab, 10.5);
		}
}

static void draw_layout(cairo_t *cr, const struct rdr_layout *L)
{
	int i, k;
	rdr_rgb(cr, 0x111111);
	rdr_text(cr, 24, 30, L->title, 18, 1, RA_LEFT, L->w - 48);
	rdr_rgb(cr, 0x505050);
	rdr_text(cr, 24, 52, L->subtitle, 12, 0, RA_LEFT, L->w - 48);
	for (k = RF_PANEL; k < RF_GROUP; k++)   /* outer frames first */
		for (i = 0; i < L->nframe; i++)
			if ((int)L->frame[i].kind == k)
				draw_frame(cr, &L->frame[i]);
	for (i = 0; i < L->nedge; i++)
		draw_edge(cr, &L->edge[i], 0);
	for (i = 0; i < L->nedge; i++)
		draw_edge(cr, &L->edge[i], 1);
	for (i = 0; i < L->nframe; i++)
		if (L->frame[i].kind == RF_GROUP)
			draw_frame(cr, &L->frame[i]);
	if (L->vfio_y > 0)
		vfio_lines(cr, L);
	for (i = 0; i < L->nbox; i++)
		draw_box(cr, &L->box[i]);
	rdr_rgb(cr, 0x333333);
	for (i = 0; i < L->nedge; i++)
		if (L->edge[i].label[0])
			rdr_label(cr, L->edge[i].lx, L->edge[i].ly, L->edge[i].label, 10.5);
	if (L->cost[0]) {
		char l1[96], l2[96];
		const char *nl = strchr(L->cost, '\n');
		double w, x;
		int p2p = 0;
		snprintf(l1, sizeof(l1), "%.*s", nl ? (int)(nl - L->cost) : (int)strlen(L->cost),
			 L->cost);
		snprintf(l2, sizeof(l2), "%s", nl ? nl + 1 : "");
		w = fmax(rdr_text_width(cr, l1, 11, 1), rdr_text_width(cr, l2, 11, 1));
		x = L->cost_center ? L->cost_x - w / 2 - 6 : L->cost_x - 3;
		for (i = 0; i < L->nedge; i++)
			p2p |= L->edge[i].hl == RH_P2P;
		rdr_rgba(cr, 0xffffff, 0.94);
		rdr_round_rect(cr, x, L->cost_y - 17, w + 12, 34, 4);
		cairo_fill_preserve(cr);
		rdr_rgb(cr, p2p ? C_P2P : C_BOUNCE);
		cairo_set_line_width(cr, 1.5);
		cairo_stroke(cr);
		rdr_rgb(cr, 0x111111);
		rdr_text(cr, x + 6, L->cost_y - 3, l1, 11, 1, RA_LEFT, 0);
		rdr_text(cr, x + 6, L->cost_y + 12, l2, 11, 1, RA_LEFT, 0);
	}
	legend(cr, L);
}

int rdr_topology(const char *path, const struct scenario *s, const struct rdr_topo_opts *o,
		 struct plumb_err *err)
{
	struct rdr_layout *L;
	struct rdr_canvas c;
	int rc;
	if (rdr_format_of(path) < 0)
		return rdr_canvas_begin(&c, path, 1, 1, err);
	if ((rc = rdr_topo_layout(s, o, &L, err)) < 0)
		return rc;
	if ((rc = rdr_canvas_begin(&c, path, L->w, L->h, err)) < 0) {
		free(L);
		return rc;
	}
	draw_layout(c.cr, L);
	free(L);
	return rdr_canvas_end(&c, err);
}

/* ---- matrix ------------------------------------------------------------ */

#define CELL_W 78.0
#define CELL_H 48.0
#define HEAD 60.0

static unsigned class_color(enum topo_class c)
{
	switch (c) {
	case TC_X: return 0xd9d9d9;
	case TC_NV: return 0x8fd16a;
	case TC_PIX: return 0x9fd8cb;
	case TC_PXB: return 0xa9c8ec;
	case TC_PHB: return 0xf7df8b;
	case TC_NODE: return 0xf6b26b;
	case TC_SYS: return 0xec8f8f;
	}
	return 0xffffff;
}

/*
 * A GPU pair's cell is coloured by what its transfers cost, best to worst:
 * P2P over NVLink, P2P under PCIe switches, P2P through the CPU's host
 * bridges, through host memory although P2P would work (NCCL's level),
 * through host memory because P2P is not supported. The class alone would
 * make a guest's all-PHB matrix look milder than a host's SYS.
 */
enum cost_rank { CR_SELF, CR_NVLINK, CR_SWITCH, CR_HOSTBRIDGE, CR_SHM, CR_NOP2P, CR_N };

static const struct {
	unsigned rgb;
	const char *name;
} cost_key[CR_N] = {
	[CR_SELF] = { 0xd9d9d9, "self" },
	[CR_NVLINK] = { 0x63b35f, "P2P over NVLink" },
	[CR_SWITCH] = { 0xa6dba0, "P2P under PCIe switches (never touches the CPU)" },
	[CR_HOSTBRIDGE] = { 0xe3ef9f, "P2P through the CPU's host bridges" },
	[CR_SHM] = { 0xf6b26b, "through host memory (SHM), though P2P works: NCCL_P2P_LEVEL" },
	[CR_NOP2P] = { 0xe06666, "through host memory: no P2P at all (NS, CNS, GNS, TNS)" },
};

static enum cost_rank pair_rank(const struct topo_view *v, int i, int j)
{
	if (i == j)
		return CR_SELF;
	if (v->xport[i][j] == XP_P2P)
		return v->cls[i][j] == TC_NV ? CR_NVLINK :
		       v->cls[i][j] <= TC_PXB && v->acs_via[i][j] < 0 ? CR_SWITCH : CR_HOSTBRIDGE;
	return v->p2p[i][j] == P2P_OK ? CR_SHM : CR_NOP2P;
}

static double matrix_w(const struct topo_view *v)
{
	return HEAD + v->nep * CELL_W;
}

static void draw_matrix(cairo_t *cr, const struct topo_view *v, double x0, double y0,
			const char *title)
{
	int i, j;
	rdr_rgb(cr, 0x111111);
	rdr_text(cr, x0, y0 + 14, title, 14, 1, RA_LEFT, matrix_w(v));
	y0 += 26;
	for (i = 0; i < v->nep; i++) {
		rdr_rgb(cr, 0x222222);
		rdr_text(cr, x0 + HEAD + i * CELL_W + CELL_W / 2, y0 + HEAD - 10, v->ep[i].label, 12, 1,
			 RA_CENTER, CELL_W - 4);
		rdr_text(cr, x0 + HEAD - 8, y0 + HEAD + i * CELL_H + CELL_H / 2 + 4, v->ep[i].label, 12,
			 1, RA_RIGHT, HEAD - 10);
	}
	for (i = 0; i < v->nep; i++)
		for (j = 0; j < v->nep; j++) {
			double x = x0 + HEAD + j * CELL_W, y = y0 + HEAD + i * CELL_H;
			char cls[16], sub[48];
			if (i < v->ngpu && j < v->ngpu)
				rdr_rgb(cr, cost_key[pair_rank(v, i, j)].rgb);
			else    /* a NIC: no P2P status, the class's shade */
				rdr_rgb(cr, class_color((enum topo_class)v->cls[i][j]));
			cairo_rectangle(cr, x, y, CELL_W, CELL_H);
			cairo_fill_preserve(cr);
			rdr_rgb(cr, 0xffffff);
			cairo_set_line_width(cr, 2);
			cairo_stroke(cr);
			topo_class_str(v, i, j, cls);
			rdr_rgb(cr, 0x111111);
			rdr_text(cr, x + CELL_W / 2, y + 20, cls, 14, 1, RA_CENTER, CELL_W - 6);
			sub[0] = 0;
			if (i != j && i < v->ngpu && j < v->ngpu)
				snprintf(sub, sizeof(sub), "%s \xc2\xb7 %s",
					 topo_p2p_str((enum topo_p2p)v->p2p[i][j]),
					 topo_xport_str((enum topo_xport)v->xport[i][j]));
			rdr_rgb(cr, 0x333333);
			if (sub[0])
				rdr_text(cr, x + CELL_W / 2, y + 38, sub, 10.5, 0, RA_CENTER, CELL_W - 6);
		}
}

int rdr_matrix(const char *path, const struct scenario *s, const struct rdr_topo_opts *o,
	       struct plumb_err *err)
{
	static const char *const meaning[] = {
		"X    = self",
		"NV#  = connection traversing a bonded set of # NVLinks",
		"PIX  = at most a single PCIe bridge",
		"PXB  = multiple PCIe bridges (without the PCIe host bridge)",
		"PHB  = a PCIe host bridge (typically the CPU)",
		"NODE = PCIe and the interconnect between host bridges of one NUMA node",
		"SYS  = PCIe and the SMP interconnect between NUMA nodes (QPI/UPI, xGMI)",
	};
	struct topo_view *v[2] = { NULL, NULL };
	struct rdr_canvas c;
	enum rdr_view view = o->view;
	int vm = s->vm.mode == SCN_VM, n = 0, rc, i;
	double w = 48, h, x;
	char title[2][160], lvl[160];

	if (rdr_format_of(path) < 0)
		return rdr_canvas_begin(&c, path, 1, 1, err);
	if (view == RDR_VIEW_DEFAULT)
		view = vm ? RDR_VIEW_BOTH : RDR_VIEW_HOST;
	if (!vm && view != RDR_VIEW_HOST)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "scenario '%s' is bare metal: there is no guest view", s->name);
	if (view != RDR_VIEW_GUEST) {
		if ((rc = topo_build(s, TOPO_HOST, &o->topo, &v[n], err)) < 0)
			goto out;
		snprintf(title[n++], sizeof(title[0]), "%s", vm ? "host view" : "topo -m");
	}
	if (view != RDR_VIEW_HOST) {
		if ((rc = topo_build(s, TOPO_GUEST, &o->topo, &v[n], err)) < 0)
			goto out;
		snprintf(title[n++], sizeof(title[0]), "guest view (where the GPUs are used)");
	}
	for (i = 0; i < n; i++)
		if (v[i]->nep > RDR_MATRIX_MAX) {
			rc = plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
					   "the matrix picture holds at most %d devices and %s has "
					   "%d; `plumb topo %s` prints the whole matrix as text",
					   RDR_MATRIX_MAX, s->name[0] ? s->name : s->path, v[i]->nep,
					   s->path[0] ? s->path : "SCENARIO");
			goto out;
		}
	for (i = 0; i < n; i++)
		w += matrix_w(v[i]) + (i ? 60 : 0);
	if (w < 900)
		w = 900;
	h = 90 + 26 + HEAD + v[0]->nep * CELL_H + 40 + 7 * 18 + 24 + 26 + (CR_N - 1) * 18 + 40;
	if ((rc = rdr_canvas_begin(&c, path, w, h, err)) < 0)
		goto out;
	rdr_rgb(c.cr, 0x111111);
	{
		char t[256];
		snprintf(t, sizeof(t), "%.200s: GPU topology matrix (%s)",
			 s->name[0] ? s->name : s->path,
			 s->xgmi ? "amd-smi topology" : "nvidia-smi topo -m");
		rdr_text(c.cr, 24, 32, t, 18, 1, RA_LEFT, w - 48);
	}
	rdr_rgb(c.cr, 0x505050);
	rdr_text(c.cr, 24, 54,
		 "each cell: topo class; below it the P2P status (topo -p2p r) and NCCL's transport; "
		 "the colour is what a transfer between the pair costs (key below), not the class",
		 12, 0, RA_LEFT, w - 48);
	x = 24;
	for (i = 0; i < n; i++) {
		draw_matrix(c.cr, v[i], x, 70, title[i]);
		x += matrix_w(v[i]) + 60;
	}
	{
		double y = 70 + 26 + HEAD + v[0]->nep * CELL_H + 30, lx = 24;
		const struct topo_view *nv = v[n - 1];
		int k;
		rdr_rgb(c.cr, 0x111111);
		rdr_text(c.cr, lx, y, "colour: what a transfer costs, best to worst", 12.5, 1, RA_LEFT, 0);
		for (k = CR_NVLINK; k < CR_N; k++) {
			double ky = y + 20 + (k - CR_NVLINK) * 18;
			rdr_rgb(c.cr, cost_key[k].rgb);
			cairo_rectangle(c.cr, lx, ky - 11, 26, 14);
			cairo_fill(c.cr);
			rdr_rgb(c.cr, 0x222222);
			rdr_text(c.cr, lx + 34, ky, cost_key[k].name, 12, 0, RA_LEFT, w - 90);
		}
		y += 20 + (CR_N - 1) * 18 + 14;
		rdr_rgb(c.cr, 0x111111);
		rdr_text(c.cr, lx, y, "the class in each cell (nvidia-smi topo -m)", 12.5, 1, RA_LEFT, 0);
		for (k = TC_X; k <= TC_SYS; k++) {
			rdr_rgb(c.cr, 0x222222);
			rdr_text(c.cr, lx, y + 20 + k * 18,
				 k == 1 && s->xgmi ? "XGMI = an AMD xGMI (Infinity Fabric) link between the GPUs"
						   : meaning[k], 12, 0, RA_LEFT, w - 48);
		}
		snprintf(lvl, sizeof(lvl),
			 "P2P: OK, NS not supported, CNS chipset, GNS GPU, TNS topology; "
			 "transport under NCCL_P2P_LEVEL=%s: P2P, SHM (host memory) or NET",
			 topo_nccl_path_str(nv->nccl_level));
		rdr_text(c.cr, lx, y + 20 + 7 * 18 + 8, lvl, 12, 0, RA_LEFT, w - 48);
	}
	rc = rdr_canvas_end(&c, err);
out:
	topo_free(v[0]);
	topo_free(v[1]);
	return rc;
}
