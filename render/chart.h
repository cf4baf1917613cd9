/*
 * chart.h - the chart layer every x/y picture of render/ is drawn with
 * (internal to render/): axes with linear or logarithmic scales and their
 * ticks, filled bands (intervals, tolerance zones), lines with dash styles,
 * markers, points kept inside the plot (an outlier beyond an axis is drawn
 * at the border as an arrow, never clipped away), series that coincide
 * drawn apart, and labels placed where no other label is.
 *
 * Usage: fill a struct rdr_chart (rdr_chart_init, the plot rectangle, the
 * two axes through rdr_axis_fit), draw rdr_chart_axes, then bands, lines
 * and markers, then labels. Coordinates: data values in, page points out
 * (rdr_chart_px / rdr_chart_py). Nothing here allocates.
 */
#ifndef PLUMB_RENDER_CHART_H
#define PLUMB_RENDER_CHART_H

#include "render_int.h"

enum rdr_scale {
	RDR_LIN,        /* linear */
	RDR_LOG10,      /* log, ticks at 1-2-5 steps or decades */
	RDR_LOG2,       /* log, ticks at powers of two */
	RDR_RATIO       /* log of a ratio (predicted / measured), ticks labelled as % error */
};

#define RDR_MAX_TICKS 40

struct rdr_axis {
	enum rdr_scale scale;
	double lo, hi;                  /* the shown range (rdr_axis_fit) */
	const char *title;              /* borrowed; NULL: none */
	int nticks;                     /* rdr_axis_fit fills the ticks */
	double tick[RDR_MAX_TICKS];
	int major[RDR_MAX_TICKS];       /* 1: labelled, 0: grid line only */
};

/* A text box already on the page, for label placement. */
struct rdr_box2 {
	double x, y, w, h;
};

#define RDR_MAX_LABELS RDR_MAX_SERIES  /* render.h */

struct rdr_chart {
	cairo_t *cr;
	double x, y, w, h;              /* plot rectangle, page points */
	struct rdr_axis ax, ay;
	int nlab;                       /* labels placed (rdr_chart_label) */
	struct rdr_box2 lab[RDR_MAX_LABELS];
};

/* A chart on cr with plot rectangle (x, y, w, h); axes unset (linear 0-1). */
void rdr_chart_init(struct rdr_chart *c, cairo_t *cr, double x, double y, double w, double h);

/*
 * Set axis a to scale and a range holding [lo, hi] (values <= 0 are left
 * out of a log range) widened to tick values, and fill its ticks: linear,
 * a nice step from rdr_nice_step (from zero when zero_based); log10, the
 * 1-2-5 values when the range spans at most 3 decades, else decades;
 * log2, powers of two; ratio, ratios whose % errors read well (-50%, -20%,
 * -10%, 0, +10%, +25%, +50%, 2x, ...). A degenerate range is widened.
 */
void rdr_axis_fit(struct rdr_axis *a, enum rdr_scale scale, double lo, double hi,
		  int zero_based);

/* A linear axis over exactly [lo, hi] (a time span, a zoom), ticks at a
 * nice step inside it. lo < hi. */
void rdr_axis_exact(struct rdr_axis *a, double lo, double hi);

/* Tick label text of value v on axis a ("0.5", "20", "1k", "2M", "+10%"). */
void rdr_axis_label(const struct rdr_axis *a, double v, char *buf, size_t n);

/* Page coordinates of data values (not clamped). */
double rdr_chart_px(const struct rdr_chart *c, double v);
double rdr_chart_py(const struct rdr_chart *c, double v);

/* Is (x, y) inside the axes' ranges (with a 1e-9 relative slack)? */
int rdr_chart_inside(const struct rdr_chart *c, double x, double y);

/*
 * Grid lines, the frame, tick labels (an x label that would touch the one
 * before it is left out) and the axis titles (y rotated, left of the tick
 * labels).
 */
void rdr_chart_axes(struct rdr_chart *c);

/* A band between lo[k] and hi[k] over x[k]; points where either bound is
 * not a finite value of the axis break it. */
void rdr_chart_band(struct rdr_chart *c, int n, const double *x, const double *lo,
		    const double *hi, unsigned rgb, double alpha);

/* Dash styles: 0 solid, 1 dashed, 2 dotted, 3 dash-dot (cycling). */
void rdr_chart_dash(cairo_t *cr, int style);

/* A polyline through the finite points, dy page points lower (a series
 * drawn apart from one it coincides with), clipped to the plot; a NaN
 * breaks the line. */
void rdr_chart_line(struct rdr_chart *c, int n, const double *x, const double *y, unsigned rgb,
		    int dash, double width, double dy);

/* Marker kind (0 circle, 1 square, 2 triangle, 3 diamond; cycling) of
 * radius r at page point (x, y), filled with the current source. */
void rdr_chart_marker(cairo_t *cr, int kind, double x, double y, double r);

/*
 * Markers at the finite points, dy lower. A point beyond the y range is
 * drawn as an arrow head on the plot's border pointing the way it lies,
 * so an outlier is never lost. Returns how many points were beyond.
 */
int rdr_chart_points(struct rdr_chart *c, int n, const double *x, const double *y, int kind,
		     double r, unsigned rgb, double alpha, double dy);

/*
 * Series that coincide: same_as[i] gets the first series j < i whose every
 * point is within tol page points of i's (same x values, both finite or
 * both not), else -1; offset[i] the page points to draw i lower so a group
 * of k coinciding series sits 3 points apart around the true line.
 * xs[i], ys[i] hold np[i] points.
 */
void rdr_chart_coincide(const struct rdr_chart *c, int n, const double *const *xs,
			const double *const *ys, const int *np, double tol, int *same_as,
			double *offset);

/*
 * Text near page point (px, py), at the first of a few positions (right,
 * left, above, below, then further out) where its box overlaps no label
 * placed before and stays inside the page width pw; recorded for the next.
 * Returns 0 when placed, -1 when there was no room (nothing drawn).
 */
int rdr_chart_label(struct rdr_chart *c, double px, double py, const char *text, double size,
		    int bold, unsigned rgb, double pw);

/*
 * Labels in a column at x (left-aligned), each wanting the height of its
 * point y[i] (page points), spread apart by at least `size` * 1.3 and kept
 * within [top, bottom]; a thin leader line joins a moved label to x0, its
 * point. Order is kept.
 */
void rdr_chart_column(struct rdr_chart *c, int n, const double *y, const char *const *text,
		      const unsigned *rgb, double x, double x0, double size, double top,
		      double bottom);

#endif
