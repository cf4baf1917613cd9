/*
 * topo_layout_int.h - what the topology diagram's layout files share: the
 * geometry, a panel (one view being laid out) and the placement steps of
 * topo_place.c that topo_layout.c runs.
 */
#ifndef PLUMB_TOPO_LAYOUT_INT_H
#define PLUMB_TOPO_LAYOUT_INT_H

#include "engine.h"
#include "fabric.h"
#include "render_int.h"

#define SLOT 124.0      /* room per endpoint */
#define BW 108.0        /* endpoint box width */
#define BH 46.0
#define VGAP 62.0       /* between rows of boxes */
#define ROWH (BH + VGAP)
#define PAD 16.0        /* inside a socket frame */
#define SOCK_GAP 132.0  /* between socket frames */
#define STITLE 26.0     /* socket frame title */
#define GLABEL 18.0     /* IOMMU group label under an endpoint */
#define PANEL_GAP 48.0
#define MARGIN 24.0

struct panel {
	struct rdr_layout *L;
	const struct scenario *s;
	const struct topo_view *v;
	int idx;                                /* 0 host side, 1 guest side */
	int host;                               /* 1: a host view (sockets, groups, NVLink) */
	int nchild[SCN_MAX_NODES];
	int child[SCN_MAX_NODES][SCN_MAX_NODES > 64 ? 64 : SCN_MAX_NODES];
	int depth[SCN_MAX_NODES], row[SCN_MAX_NODES];
	double wsub[SCN_MAX_NODES];
	int box_of[SCN_MAX_NODES];              /* node -> box */
	int edge_of[SCN_MAX_NODES];             /* node -> edge to its parent (root: to the CPU) */
	int cpu_box[SCN_MAX_SOCKETS], mem_box[SCN_MAX_SOCKETS];
	int mem_edge[SCN_MAX_SOCKETS];
	int xs_edge[SCN_MAX_SOCKETS];           /* socket s <-> s+1 */
	int nvs_box;
	int nvs_edge[SCN_MAX_GPUS];
	int nsock;
	int ndraw;                              /* hosts drawn: the first ndraw (draw_hosts) */
	double sock_x0[SCN_MAX_SOCKETS], sock_x1[SCN_MAX_SOCKETS];     /* socket frames */
	double sock_top;
	int net_edge[SCN_MAX_HOSTS];            /* a host's ports -> the network switch */
	double x0, y0, top_row_y, bottom;       /* panel origin, first PCIe row, content bottom */
	int erow;                               /* endpoints' row */
};

#define HOST_GAP 60.0   /* between the last socket of a host and the next host's */
#define HOST_TITLE 30.0 /* a host frame's title above its sockets */
#define DRAW_HOSTS 8
#define DRAW_FEW 2
#define ELIDE_W 300.0

int tl_add_frame(struct rdr_layout *L, enum rdr_frame_kind k, double x, double y, double w,
		 double h, const char *label);
int tl_gpu_host(const struct scenario *s, int g);
int tl_nearest_nic(const struct scenario *s, int g);
int tl_multi_host(const struct panel *p);
int tl_draw_hosts(const struct scenario *s);
double tl_layout_panel(struct panel *p, double x0, double y0);
void tl_group_frames(struct panel *p);
double tl_nvlink(struct panel *p, const struct fabric *f, double right);
double tl_hosts_net(struct panel *p, double y);

#endif
