/*
 * render.h - pictures with Cairo: the topology diagram, the topo/P2P matrix,
 * the Gantt timeline of one decode step, the throughput chart and the
 * measured-vs-predicted plot.
 *
 * Every rdr_* drawing function writes one file whose format comes from the
 * extension (.png, .svg, .pdf). Files are written atomically (io/out.h): the
 * picture goes to a temporary name that is renamed over the path only when
 * it is complete; on failure the temporary file is removed and the old file
 * stays. Output is deterministic: fixed sizes, the font "DejaVu Sans"
 * through Cairo's toy text API, fixed PDF metadata dates.
 *
 * The topology layout is computed apart from drawing (rdr_topo_layout) so
 * tests can check its geometry: node boxes never intersect and every edge
 * starts and ends on the border of its two boxes.
 *
 * Errors: PLUMB_EUSAGE (unknown extension, bad option), PLUMB_EINPUT (GPU
 * out of range), PLUMB_EIO (cannot write), PLUMB_ERUNTIME (Cairo failed or
 * out of memory). Nothing here keeps state between calls.
 */
#ifndef PLUMB_RENDER_H
#define PLUMB_RENDER_H

#include <stdio.h>

#include "predict.h"
#include "scn.h"
#include "step.h"
#include "topo.h"
#include "valid.h"

enum rdr_format { RDR_PNG, RDR_SVG, RDR_PDF };

/* Format from the path's extension (case-insensitive); -1 if none fits. */
int rdr_format_of(const char *path);

/*
 * Free the font caches Cairo and fontconfig keep between pictures (a leak
 * checker reports them at exit otherwise). Call after the last picture,
 * with no Cairo object alive; the next picture loads the fonts again.
 */
void rdr_release_fonts(void);

/* ---- topology ---------------------------------------------------------- */

enum rdr_view { RDR_VIEW_DEFAULT, RDR_VIEW_HOST, RDR_VIEW_GUEST, RDR_VIEW_BOTH };

struct rdr_topo_opts {
	enum rdr_view view;     /* default: both for a VM, host otherwise */
	int path_a, path_b;     /* GPUs of the highlighted transfer; -1 none */
	struct topo_opts topo;  /* ACS / NCCL options the views are built with */
};

void rdr_topo_opts_init(struct rdr_topo_opts *o);

/* The GPUs the topology picture of s draws: GPUs 0 to the result - 1 (all
 * of them, or those of the first hosts when a scenario has too many hosts
 * to draw; path_a and path_b must be among them). */
int rdr_topo_drawn_gpus(const struct scenario *s);

enum rdr_box_kind { RB_MEM, RB_CPU, RB_RC, RB_RP, RB_SWITCH, RB_GPU, RB_NIC, RB_NVSWITCH,
		    RB_NETSW };
enum rdr_frame_kind { RF_PANEL, RF_HOST, RF_SOCKET, RF_NUMA, RF_GROUP };
enum rdr_edge_kind { RE_PCIE, RE_FABRIC, RE_DRAM, RE_XSOCKET, RE_NVLINK, RE_NET };
enum rdr_hl { RH_NONE, RH_P2P, RH_BOUNCE };

#define RDR_MAX_BOX 640
#define RDR_MAX_EDGE 1400
#define RDR_MAX_FRAME 200
#define RDR_EDGE_PTS 4

/* A node of the diagram (a box that nothing else may overlap). */
struct rdr_box {
	enum rdr_box_kind kind;
	int panel;              /* 0 host (or the only view), 1 guest */
	int node;               /* index into the view's nodes; socket for CPU/MEM; -1 */
	int gpu;                /* GPU index or -1 */
	double x, y, w, h;
	char line1[64], line2[96];
	int hl;                 /* 1: an end of the highlighted path */
};

/* A container drawn behind the boxes: panel, socket, NUMA node, IOMMU group. */
struct rdr_frame {
	enum rdr_frame_kind kind;
	double x, y, w, h;
	char label[128];
};

/* A link: a polyline from box a's border to box b's border. */
struct rdr_edge {
	enum rdr_edge_kind kind;
	int a, b;               /* box indices */
	int npts;
	double px[RDR_EDGE_PTS], py[RDR_EDGE_PTS];
	char label[32];         /* "Gen5 x16", "NV18", "xGMI 192 GB/s" */
	double lx, ly;          /* label centre */
	enum rdr_hl hl;
	int dir;                /* highlighted: 1 data goes from box a to box b, -1 from
				   b to a, 2 both ways (into host memory and out) */
};

struct rdr_layout {
	double w, h;
	char title[256], subtitle[512];
	char note[640];         /* under the picture: the path's reason and cost, or
				   what NCCL_P2P_LEVEL decides */
	char cost[96];          /* on the highlighted path, two lines:
				   "13.7 us small copy\n41.3 GB/s large" */
	double cost_x, cost_y;  /* its label's left end (centre if cost_center) and middle */
	int cost_center;
	double vfio_y;          /* a VM with a path in both views: the level of the lines
				   joining each highlighted guest GPU to its host GPU; 0 none */
	int nbox, nframe, nedge;
	struct rdr_box box[RDR_MAX_BOX];
	struct rdr_frame frame[RDR_MAX_FRAME];
	struct rdr_edge edge[RDR_MAX_EDGE];
	double legend_y;        /* top of the legend strip */
};

/*
 * Lay out the topology diagram of s. *out: new layout (free with free()).
 * Errors: EUSAGE (guest view of bare metal), EINPUT (path GPU out of
 * range or a == b), ERUNTIME.
 */
int rdr_topo_layout(const struct scenario *s, const struct rdr_topo_opts *o,
		    struct rdr_layout **out, struct plumb_err *err);

/* Draw the topology diagram of s into path. */
int rdr_topology(const char *path, const struct scenario *s, const struct rdr_topo_opts *o,
		 struct plumb_err *err);

/* Devices (GPUs and NICs) a matrix picture holds: 256 columns of 78 pt,
 * within what one Cairo image surface takes (32,767 pixels a side). */
#define RDR_MATRIX_MAX 256

/* The topo -m matrix with P2P status and NCCL transport per cell, coloured
 * by class, with the legend; host, guest or both side by side. */
int rdr_matrix(const char *path, const struct scenario *s, const struct rdr_topo_opts *o,
	       struct plumb_err *err);

/* A VM's 64-bit MMIO space with each GPU's large BARs placed, without and
 * with pci=realloc (models/topo/bar.h). EUSAGE for bare metal. */
int rdr_bars(const char *path, const struct scenario *s, struct plumb_err *err);

/* ---- timeline ---------------------------------------------------------- */

struct rdr_timeline {
	char title[256], subtitle[256];
	int ngpus;                      /* rows: GPUs 0 .. ngpus-1 */
	double seconds;                 /* step time */
	const struct step_span *spans;  /* borrowed */
	int nspans;
	int stages;                     /* pipeline stages (GPUs split evenly); 0 or 1: none */
	int micro;                      /* microbatches in flight through the stages */
	int batch;                      /* sequences in the step */
};

/* Gantt chart of one step: per GPU compute and communication by tag, idle
 * as the gaps, a time axis in ms and the legend; with stages, each row
 * names its stage, a line parts the stages and a line under the legend
 * says how the microbatches go through them. */
int rdr_timeline(const char *path, const struct rdr_timeline *t, struct plumb_err *err);

/* ---- throughput -------------------------------------------------------- */

#define RDR_MAX_PTS 32
/* rdr_throughput draws at most this many series (the first ones); the
 * chart layer places at most this many labels (chart.h's RDR_MAX_LABELS) */
#define RDR_MAX_SERIES 128

/* One line of the chart: a box and a layout over concurrency. */
struct rdr_series {
	char label[128];
	int color;                      /* palette index (the box) */
	int dash;                       /* style index (the layout) */
	int n;
	double x[RDR_MAX_PTS], y[RDR_MAX_PTS];
	/* y's 90% interval where known: lo[k] <= hi[k], both > 0; anything
	 * else (a zeroed series) draws no band at point k */
	double lo[RDR_MAX_PTS], hi[RDR_MAX_PTS];
};

/*
 * tok/s against concurrency for several series, both axes logarithmic
 * (equal distances are equal ratios, so 11 against 16 tok/s shows as
 * plainly as 400 against 600). The series of color 0 with the same dash
 * is each series' reference: a column right of the plot gives every
 * line's last value and its speed-up over its reference, and a table its
 * values at the lowest and highest x with speed-ups. A shaded band shows
 * a series' interval where it has one. Series that coincide are drawn 3
 * points apart and named under the table. The caption says which series
 * is best at the lowest and highest x and, with several boxes, what the
 * best of each box gains over the best of box 0. xlabel names the x axis
 * ("concurrent requests" or "batch").
 */
int rdr_throughput(const char *path, const char *title, const char *xlabel,
		   const struct rdr_series *series, int n, struct plumb_err *err);

/* ---- Pareto frontier (plumb plan) --------------------------------------- */

/* One configuration: tok/s per user (x) and per GPU (y). */
struct rdr_pareto_pt {
	double x, y;
	int box;                        /* palette index: the scenario */
	int meets;                      /* meets the latency target: filled marker */
	int frontier;                   /* on the frontier: joined by the line */
	char label[48];                 /* "dp4tp2@64" */
};

/*
 * The trade-off of serving: tok/s per GPU (what the box earns) against
 * tok/s per user (what each user sees), both axes logarithmic; a colour
 * per box (names[0..nbox) in the legend), a filled marker where the target
 * is met and a hollow one where it is missed, the frontier joined by a
 * line with its points labelled where there is room.
 */
int rdr_pareto(const char *path, const char *title, const struct rdr_pareto_pt *pt, int n,
	       const char *const *names, int nbox, struct plumb_err *err);

/* ---- parts of a step --------------------------------------------------- */

/* One bar: a box and layout's decode step in its physical parts. */
struct rdr_parts_bar {
	char label[128];
	double ms[PART_N];              /* pred_part order, ms per GPU; they sum to the step */
};

/*
 * Where the step's time goes: a horizontal bar per box and layout, split
 * into the parts of enum pred_part as shares of its step (launch and
 * minimum kernel durations in greys, weights and KV cache in blues,
 * compute green, all-reduce red, expert all-to-all orange, stage sends
 * gold, idle pale), each share of 6% or more written on it, the step in
 * ms at the end; the caption names the largest part of the first bar and
 * of the last.
 */
int rdr_parts(const char *path, const char *title, const struct rdr_parts_bar *bars, int n,
	      struct plumb_err *err);

/* ---- fit --------------------------------------------------------------- */

/*
 * Measured against predicted for every point of a predicted validation
 * set: one panel per quantity (latency, bandwidth, tok/s, step time) with
 * the measured value in its own unit on a log x axis and the relative
 * error (predicted / measured, labelled in %) on a log y axis shared by
 * the panels, bands at +-10% and +-25%; the axes hold every point. The
 * caption gives the median error and the share within +-25% and 2x.
 */
int rdr_fit(const char *path, const char *title, const struct val_set *v,
	    struct plumb_err *err);

/* ---- Chrome trace ------------------------------------------------------ */

/* What rdr_trace wrote, for reports and tests. */
struct rdr_trace_info {
	struct step_result run;         /* the step (spans pointer cleared) */
	double seconds;                 /* step time with the host's floor */
	int gpu_events;                 /* "X" events on GPU tracks (= spans) */
	int link_events;                /* "X" events on link tracks */
	int links;                      /* link tracks */
};

/*
 * One decode step of `batch` sequences with `context` cached tokens under
 * configuration c, as Chrome trace event JSON (chrome://tracing, Perfetto):
 * pid 1 holds one track (tid) per GPU with a complete ("X") event per
 * compute op, collective and stage send, timestamps in microseconds; pid 2
 * one track per link that carried traffic, an event per interval of
 * constant load (args: GB/s and utilisation), from the flow network's
 * re-solves. Writes to f; info may be NULL.
 */
int rdr_trace(FILE *f, const struct pred_cfg *c, int batch, long context,
	      struct rdr_trace_info *info, struct plumb_err *err);

#endif
