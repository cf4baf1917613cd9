/*
 * charts.c - the timeline of one decode step (Gantt), the throughput chart
 * and the measured-vs-predicted plot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "meas.h"

/* ---- timeline ---------------------------------------------------------- */

static const struct {
	unsigned rgb;
	const char *name;
} tags[TAG_NTAGS] = {
	[TAG_ATTN] = { 0x4e79a7, "attention" },
	[TAG_MLP] = { 0x76b7b2, "MLP (dense, or shared experts and router)" },
	[TAG_EXPERTS] = { 0x59a14f, "experts (MoE)" },
	[TAG_LMHEAD] = { 0xb07aa1, "LM head" },
	[TAG_OTHER] = { 0x9c9c9c, "other compute" },
	[TAG_COMM_TP] = { 0xe15759, "all-reduce (TP)" },
	[TAG_COMM_EP] = { 0xf28e2b, "all-to-all (EP)" },
	[TAG_COMM_PP] = { 0xd4a017, "stage send (PP)" },
};

#define IDLE_RGB 0xececec

/* The time axis of a Gantt panel from t0 to t1 seconds, in ms, on the chart
 * layer: grid lines over the rows from top, ticks at a nice step. */
static void axis_ms(cairo_t *cr, double x0, double top, double w, double rows_h, double t0,
		    double t1, const char *label)
{
	struct rdr_chart c;
	rdr_chart_init(&c, cr, x0, top, w, rows_h);
	rdr_axis_exact(&c.ax, t0 * 1e3, t1 * 1e3);
	c.ay.nticks = 0;
	c.ax.title = label;
	rdr_chart_axes(&c);
}

/*
 * A pipeline's stage sends on the first GPU of every stage: a gold mark
 * above each so the short sends show at any zoom, and where there is room
 * (a zoomed view) which microbatch goes to which stage, counted in the
 * order the stage sends them (microbatches go through a stage in turn).
 */
static void sends(cairo_t *cr, const struct rdr_timeline *t, int ng, double left, double pw,
		  double y0, double rowh, double t0, double t1)
{
	int per = t->stages > 1 ? ng / t->stages : 0, m = t->micro > 0 ? t->micro : t->stages;
	int g, i, k;
	double last_end;
	if (!per)
		return;
	for (g = 0; g < ng; g += per) {
		last_end = -1e9;
		for (i = 0, k = 0; i < t->nspans; i++) {
			const struct step_span *sp = &t->spans[i];
			double x0, x1, y = y0 + g * rowh + 3;
			char lab[32];
			if (sp->gpu != g || sp->tag != TAG_COMM_PP)
				continue;
			k++;
			if (sp->t1 < t0 || sp->t0 > t1)
				continue;
			x0 = left + pw * (sp->t0 - t0) / (t1 - t0);
			x1 = left + pw * (sp->t1 - t0) / (t1 - t0);
			rdr_rgb(cr, tags[TAG_COMM_PP].rgb);
			cairo_move_to(cr, (x0 + x1) / 2, y + 4);
			cairo_line_to(cr, (x0 + x1) / 2 - 4, y - 3);
			cairo_line_to(cr, (x0 + x1) / 2 + 4, y - 3);
			cairo_close_path(cr);
			cairo_fill(cr);
			snprintf(lab, sizeof(lab), "mb%d \xe2\x86\x92 stage %d", (k - 1) % m,
				 (g / per + 1) % t->stages);
			if (x1 - x0 > 6 && x1 + 6 + rdr_text_width(cr, lab, 10, 1) < left + pw &&
			    x1 > last_end) {
				double w = rdr_text_width(cr, lab, 10, 1);
				cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
				cairo_rectangle(cr, x1 + 3, y + 2, w + 6, 13);
				cairo_fill(cr);
				rdr_rgb(cr, 0x7a5c00);
				rdr_text(cr, x1 + 6, y + 12, lab, 10, 1, RA_LEFT, 0);
				last_end = x1 + 9 + w;
			}
		}
	}
}

/* GPU rows of the spans between times t0 and t1, from y0 down. */
static void gantt(cairo_t *cr, const struct rdr_timeline *t, int ng, double left, double pw,
		  double y0, double rowh, double t0, double t1)
{
	int g, i;
	cairo_save(cr);
	cairo_rectangle(cr, left, y0, pw, ng * rowh);
	cairo_clip(cr);
	for (g = 0; g < ng; g++) {
		rdr_rgb(cr, IDLE_RGB);
		cairo_rectangle(cr, left, y0 + g * rowh + 4, pw, rowh - 8);
		cairo_fill(cr);
	}
	for (i = 0; i < t->nspans; i++) {
		const struct step_span *sp = &t->spans[i];
		double x0, x1, y;
		if (sp->gpu < 0 || sp->gpu >= ng || sp->tag < 0 || sp->tag >= TAG_NTAGS ||
		    sp->t1 < t0 || sp->t0 > t1)
			continue;
		x0 = left + pw * (sp->t0 - t0) / (t1 - t0);
		x1 = left + pw * (sp->t1 - t0) / (t1 - t0);
		if (x1 - x0 < 0.6)
			x1 = x0 + 0.6;  /* visible at 100% however short */
		y = y0 + sp->gpu * rowh;
		/* communication in the lower half, compute in the upper: both show */
		rdr_rgb(cr, tags[sp->tag].rgb);
		if (sp->comm)
			cairo_rectangle(cr, x0, y + rowh / 2, x1 - x0, rowh / 2 - 4);
		else
			cairo_rectangle(cr, x0, y + 4, x1 - x0, rowh / 2 - 4);
		cairo_fill(cr);
	}
	cairo_restore(cr);
	sends(cr, t, ng, left, pw, y0, rowh, t0, t1);
	for (g = 0; g < ng; g++) {
		char lab[16];
		int per = t->stages > 1 ? ng / t->stages : 0;
		rdr_rgb(cr, 0x222222);
		snprintf(lab, sizeof(lab), "GPU%d", g);
		rdr_text(cr, left - 10, y0 + g * rowh + rowh / 2 + (per ? 0 : 5), lab, 13, 1, RA_RIGHT,
			 left - 14);
		if (per) {
			snprintf(lab, sizeof(lab), "stage %d", g / per);
			rdr_rgb(cr, 0x666666);
			rdr_text(cr, left - 10, y0 + g * rowh + rowh / 2 + 12, lab, 10, 0, RA_RIGHT,
				 left - 14);
			if (g && g % per == 0) {
				rdr_rgb(cr, 0x444444);
				cairo_set_line_width(cr, 1.2);
				cairo_move_to(cr, 8, y0 + g * rowh);
				cairo_line_to(cr, left + pw, y0 + g * rowh);
				cairo_stroke(cr);
			}
		}
	}
}

int rdr_timeline(const char *path, const struct rdr_timeline *t, struct plumb_err *err)
{
	struct rdr_canvas c;
	const double left = 90, right = 250, top = 84, W = 1400;
	double pw = W - left - right - 24, h, comp[SCN_MAX_GPUS] = { 0 }, comm[SCN_MAX_GPUS] = { 0 };
	double rowh, ztop, z0 = 0, z1, ly;
	int used[TAG_NTAGS] = { 0 }, i, g, rc, ng = t->ngpus < 1 ? 1 : t->ngpus;
	double sec = t->seconds > 0 ? t->seconds : 1e-9;
	char zlab[128];

	if (ng > SCN_MAX_GPUS)
		ng = SCN_MAX_GPUS;
	rowh = ng > 8 ? 24 : 32;
	/* the zoom: 4% of the step from the first op GPU0 starts past 45% */
	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].gpu == 0 && t->spans[i].t0 >= 0.45 * sec) {
			z0 = t->spans[i].t0;
			break;
		}
	z1 = z0 + 0.04 * sec;
	if (z1 > sec) {
		z1 = sec;
		z0 = sec * 0.96;
	}
	ztop = top + ng * rowh + 76;
	h = ztop + ng * rowh + 70 + 24 * 2 + 6 + (t->stages > 1 ? 40 : 0);
	if ((rc = rdr_canvas_begin(&c, path, W, h, err)) < 0)
		return rc;
	rdr_rgb(c.cr, 0x111111);
	rdr_text(c.cr, 24, 30, t->title, 18, 1, RA_LEFT, W - 48);
	rdr_rgb(c.cr, 0x505050);
	rdr_text(c.cr, 24, 52, t->subtitle, 12, 0, RA_LEFT, W - 48);
	for (i = 0; i < t->nspans; i++) {
		const struct step_span *sp = &t->spans[i];
		if (sp->gpu < 0 || sp->gpu >= ng || sp->tag < 0 || sp->tag >= TAG_NTAGS)
			continue;
		used[sp->tag] = 1;
		if (sp->comm)
			comm[sp->gpu] += sp->t1 - sp->t0;
		else
			comp[sp->gpu] += sp->t1 - sp->t0;
	}
	gantt(c.cr, t, ng, left, pw, top, rowh, 0, sec);
	/* where the zoom is */
	rdr_rgba(c.cr, 0x000000, 0.55);
	cairo_set_line_width(c.cr, 1.5);
	cairo_rectangle(c.cr, left + pw * z0 / sec, top + 1, pw * (z1 - z0) / sec, ng * rowh - 2);
	cairo_stroke(c.cr);
	for (g = 0; g < ng; g++) {
		char s[96];
		double idle = sec - comp[g] - comm[g];
		snprintf(s, sizeof(s), "compute %2.0f%%  comm %2.0f%%  idle %2.0f%%",
			 100 * comp[g] / sec, 100 * comm[g] / sec, 100 * (idle > 0 ? idle : 0) / sec);
		rdr_rgb(c.cr, 0x333333);
		rdr_text(c.cr, left + pw + 14, top + g * rowh + rowh / 2 + 4, s, 11.5, 0, RA_LEFT,
			 right - 10);
	}
	axis_ms(c.cr, left, top, pw, ng * rowh + 4, 0, sec,
		"time in the step (ms); upper half of a row: compute, lower half: communication");
	snprintf(zlab, sizeof(zlab), "zoom: %.2f to %.2f ms (the box above)", z0 * 1e3, z1 * 1e3);
	gantt(c.cr, t, ng, left, pw, ztop, rowh, z0, z1);
	axis_ms(c.cr, left, ztop, pw, ng * rowh + 4, z0, z1, zlab);
	ly = ztop + ng * rowh + 70;
	{
		double x = left, y = ly;
		for (i = 0; i <= TAG_NTAGS; i++) {
			unsigned rgb = i < TAG_NTAGS ? tags[i].rgb : IDLE_RGB;
			const char *name = i < TAG_NTAGS ? tags[i].name : "idle (waiting)";
			double tw;
			if (i < TAG_NTAGS && !used[i])
				continue;
			tw = rdr_text_width(c.cr, name, 12, 0);
			if (x + 26 + tw > W - 24) {
				x = left;
				y += 24;
			}
			rdr_rgb(c.cr, rgb);
			cairo_rectangle(c.cr, x, y - 11, 18, 14);
			cairo_fill(c.cr);
			rdr_rgb(c.cr, 0x222222);
			rdr_text(c.cr, x + 24, y, name, 12, 0, RA_LEFT, 0);
			x += 24 + tw + 26;
		}
		if (t->stages > 1) {
			char s[400];
			int per = ng / t->stages, m = t->micro > 0 ? t->micro : t->stages;
			snprintf(s, sizeof(s), "Pipeline: %d stages of %d GPUs, each running its share of "
				 "the layers; the batch of %d goes through as %d microbatches, so every "
				 "stage works on one while the next works on another, and a stage send "
				 "(gold) hands a microbatch's activations to the next stage.", t->stages,
				 per, t->batch, m);
			rdr_rgb(c.cr, 0x333333);
			rdr_text_wrap(c.cr, left, y + 28, s, 12, W - left - 24, 16, 2);
		}
	}
	return rdr_canvas_end(&c, err);
}

/* ---- throughput -------------------------------------------------------- */

/* The series i is compared with: color 0, the same dash; -1 if none or i. */
static int reference(const struct rdr_series *s, int n, int i)
{
	int j;
	if (s[i].color == 0)
		return -1;
	for (j = 0; j < n; j++)
		if (s[j].color == 0 && s[j].dash == s[i].dash)
			return j;
	return -1;
}

/* s's y at x (exact match), NAN if none. */
static double y_at(const struct rdr_series *s, double x)
{
	int k;
	for (k = 0; k < s->n; k++)
		if (s->x[k] == x)
			return s->y[k];
	return NAN;
}

/* "47.4" or "47.4 x4.20": series i at x, with its speed-up over ref. */
static void value_cell(char *buf, size_t len, const struct rdr_series *s, int n, int i, double x)
{
	double v = y_at(&s[i], x), r;
	int j = reference(s, n, i);
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	r = j >= 0 ? y_at(&s[j], x) : NAN;
	if (isfinite(r) && r > 0)
		snprintf(buf, len, v < 100 ? "%.1f x%.2f" : "%.0f x%.2f", v, v / r);
	else
		snprintf(buf, len, v < 100 ? "%.1f" : "%.0f", v);
}

/* The series with the highest y at x among those of color `color` (-1: any). */
static int best_at(const struct rdr_series *s, int n, double x, int color)
{
	int i, b = -1;
	for (i = 0; i < n; i++) {
		double v = y_at(&s[i], x);
		if ((color < 0 || s[i].color == color) && isfinite(v) &&
		    (b < 0 || v > y_at(&s[b], x)))
			b = i;
	}
	return b;
}

/* One sentence of the caption: the best series at x and its gain. */
static void best_sentence(char *buf, size_t len, const struct rdr_series *s, int n, double x,
			  const char *xunit)
{
	int b = best_at(s, n, x, -1), b0 = best_at(s, n, x, 0);
	if (x == 1 && !strcmp(xunit, "requests"))
		xunit = "request";
	if (b < 0) {
		snprintf(buf, len, "at %g %s nothing fits", x, xunit);
		return;
	}
	if (b0 >= 0 && s[b].color != 0)
		snprintf(buf, len, "at %g %s the best is %s, %.1f tok/s, x%.2f over the best of "
			 "the first box (%s, %.1f)", x, xunit, s[b].label, y_at(&s[b], x),
			 y_at(&s[b], x) / y_at(&s[b0], x), s[b0].label, y_at(&s[b0], x));
	else
		snprintf(buf, len, "at %g %s the best is %s, %.1f tok/s", x, xunit, s[b].label,
			 y_at(&s[b], x));
}

int rdr_throughput(const char *path, const char *title, const char *xlabel,
		   const struct rdr_series *series, int n, struct plumb_err *err)
{
	struct rdr_canvas cv;
	struct rdr_chart c;
	const double W = 1360, L = 96, T = 104, PW = 620, PH = 500, COLX = L + PW + 12;
	const double TX = COLX + 100;           /* the legend table */
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY, H;
	double offset[RDR_MAX_LABELS], ylast[RDR_MAX_LABELS], y;
	const double *xs[RDR_MAX_LABELS], *ys[RDR_MAX_LABELS];
	int np[RDR_MAX_LABELS], same[RDR_MAX_LABELS], i, k, rc, band = 0;
	char cap[2][512], buf[600], colbuf[RDR_MAX_LABELS][48];
	const char *coltext[RDR_MAX_LABELS];
	unsigned colrgb[RDR_MAX_LABELS];
	const char *xunit = strstr(xlabel, "batch") ? "batch" : "requests";

	if (n > RDR_MAX_LABELS)
		n = RDR_MAX_LABELS;
	for (i = 0; i < n; i++)
		for (k = 0; k < series[i].n; k++) {
			const struct rdr_series *s = &series[i];
			if (s->x[k] > 0) {
				xmin = fmin(xmin, s->x[k]);
				xmax = fmax(xmax, s->x[k]);
			}
			if (isfinite(s->y[k]) && s->y[k] > 0) {
				ymin = fmin(ymin, s->y[k]);
				ymax = fmax(ymax, s->y[k]);
			}
			if (s->lo[k] > 0 && s->hi[k] >= s->lo[k] && isfinite(s->hi[k])) {
				ymin = fmin(ymin, s->lo[k]);
				ymax = fmax(ymax, s->hi[k]);
				band = 1;
			}
		}
	if (!isfinite(xmin)) {
		xmin = 1;
		xmax = 2;
	}
	H = fmax(T + PH + 70, T + 34 + 22 * (n + 1) + 30 + 18 * n);
	if ((rc = rdr_canvas_begin(&cv, path, W, H, err)) < 0)
		return rc;
	rdr_chart_init(&c, cv.cr, L, T, PW, PH);
	rdr_axis_fit(&c.ax, RDR_LOG2, xmin, xmax, 0);
	rdr_axis_fit(&c.ay, RDR_LOG10, ymin, ymax, 0);
	c.ax.title = xlabel;
	c.ay.title = "output tokens per second, all requests (log scale)";
	rdr_rgb(cv.cr, 0x111111);
	rdr_text(cv.cr, 24, 32, title, 18, 1, RA_LEFT, W - 48);
	best_sentence(cap[0], sizeof(cap[0]), series, n, xmin, xunit);
	best_sentence(cap[1], sizeof(cap[1]), series, n, xmax, xunit);
	cap[0][0] = (char)(cap[0][0] - 'a' + 'A');
	rdr_rgb(cv.cr, 0x333333);
	snprintf(buf, sizeof(buf), "%s;", cap[0]);
	rdr_text(cv.cr, 24, 56, buf, 12.5, 0, RA_LEFT, W - 48);
	snprintf(buf, sizeof(buf), "%s.", cap[1]);
	rdr_text(cv.cr, 24, 74, buf, 12.5, 0, RA_LEFT, W - 48);
	rdr_rgb(cv.cr, 0x666666);
	rdr_text(cv.cr, 24, 92, band ? "Both axes logarithmic: equal distances are equal ratios. "
		 "Shaded: the 90% interval." : "Both axes logarithmic: equal distances are equal "
		 "ratios.", 11.5, 0, RA_LEFT, W - 48);
	rdr_chart_axes(&c);
	for (i = 0; i < n; i++) {
		xs[i] = series[i].x;
		ys[i] = series[i].y;
		np[i] = series[i].n;
	}
	rdr_chart_coincide(&c, n, xs, ys, np, 1.0, same, offset);
	for (i = 0; i < n; i++)
		if (series[i].n)
			rdr_chart_band(&c, series[i].n, series[i].x, series[i].lo, series[i].hi,
				       rdr_palette(series[i].color), 0.10);
	for (i = 0; i < n; i++) {
		const struct rdr_series *s = &series[i];
		rdr_chart_line(&c, s->n, s->x, s->y, rdr_palette(s->color), s->dash, 2.2, offset[i]);
		rdr_chart_points(&c, s->n, s->x, s->y, s->dash, 4.5, rdr_palette(s->color), 1,
				 offset[i]);
	}
	/* the column: each line's last value and speed-up, one label per coinciding group */
	for (i = 0; i < n; i++) {
		const struct rdr_series *s = &series[i];
		ylast[i] = NAN;
		coltext[i] = NULL;
		colrgb[i] = rdr_palette(s->color);
		for (k = s->n - 1; k >= 0; k--)
			if (isfinite(s->y[k]) && s->y[k] > 0)
				break;
		if (k < 0 || same[i] >= 0)
			continue;
		ylast[i] = rdr_chart_py(&c, s->y[k]);
		value_cell(colbuf[i], sizeof(colbuf[i]), series, n, i, s->x[k]);
		coltext[i] = colbuf[i];
	}
	rdr_chart_column(&c, n, ylast, coltext, colrgb, COLX + 8, L + PW + 1, 11, T + 6, T + PH - 4);
	/* the legend table */
	y = T + 4;
	rdr_rgb(cv.cr, 0x111111);
	rdr_text(cv.cr, TX, y, "box, layout", 12, 1, RA_LEFT, 0);
	snprintf(buf, sizeof(buf), "tok/s at %g", xmin);
	rdr_text(cv.cr, W - 130, y, buf, 12, 1, RA_RIGHT, 0);
	snprintf(buf, sizeof(buf), "at %g", xmax);
	rdr_text(cv.cr, W - 24, y, buf, 12, 1, RA_RIGHT, 0);
	y += 8;
	rdr_rgba(cv.cr, 0x000000, 0.3);
	cairo_set_line_width(cv.cr, 1);
	cairo_move_to(cv.cr, TX, y);
	cairo_line_to(cv.cr, W - 24, y);
	cairo_stroke(cv.cr);
	y += 18;
	for (i = 0; i < n; i++, y += 22) {
		const struct rdr_series *s = &series[i];
		rdr_rgb(cv.cr, rdr_palette(s->color));
		cairo_set_line_width(cv.cr, 2.2);
		rdr_chart_dash(cv.cr, s->dash);
		cairo_move_to(cv.cr, TX, y - 4);
		cairo_line_to(cv.cr, TX + 34, y - 4);
		cairo_stroke(cv.cr);
		cairo_set_dash(cv.cr, NULL, 0, 0);
		rdr_chart_marker(cv.cr, s->dash, TX + 17, y - 4, 4.5);
		rdr_rgb(cv.cr, 0x222222);
		rdr_text(cv.cr, TX + 42, y, s->label, 11.5, 0, RA_LEFT, W - 260 - TX - 42);
		value_cell(buf, sizeof(buf), series, n, i, xmin);
		rdr_text(cv.cr, W - 130, y, buf, 11.5, 0, RA_RIGHT, 0);
		value_cell(buf, sizeof(buf), series, n, i, xmax);
		rdr_text(cv.cr, W - 24, y, buf, 11.5, 0, RA_RIGHT, 0);
	}
	y += 4;
	rdr_rgb(cv.cr, 0x555555);
	rdr_text_wrap(cv.cr, TX, y, "xN: speed-up over the first box with the same layout, at the "
		      "same load.", 11, W - 24 - TX, 15, 2);
	y += 34;
	for (i = 0; i < n; i++) {
		if (same[i] < 0)
			continue;
		snprintf(buf, sizeof(buf), "%s coincides with %s (drawn 3 pt apart)", series[i].label,
			 series[same[i]].label);
		rdr_text_wrap(cv.cr, TX, y, buf, 11, W - 24 - TX, 15, 2);
		y += 34;
	}
	return rdr_canvas_end(&cv, err);
}

/* ---- parts of a step --------------------------------------------------- */

static const struct {
	unsigned rgb;
	const char *name;
} parts[PART_N] = {
	[PART_LAUNCH] = { 0x8c8c8c, "kernel launches" },
	[PART_KMIN] = { 0xbdbdbd, "minimum kernel durations" },
	[PART_WEIGHTS] = { 0x4e79a7, "reading weights" },
	[PART_KV] = { 0x9ecae9, "reading the KV cache" },
	[PART_COMPUTE] = { 0x59a14f, "tensor-core math" },
	[PART_ALLREDUCE] = { 0xe15759, "all-reduce (TP)" },
	[PART_EXPERT_COMM] = { 0xf28e2b, "expert all-to-all (EP)" },
	[PART_STAGE_SEND] = { 0xd4a017, "stage sends (PP)" },
	[PART_IDLE] = { 0xeeeeee, "idle (waiting)" },
};

/* The largest part of a bar and its share, as a phrase. */
static void largest(char *buf, size_t n, const struct rdr_parts_bar *b)
{
	double sum = 0;
	int k, m = 0;
	for (k = 0; k < PART_N; k++) {
		sum += b->ms[k];
		if (b->ms[k] > b->ms[m])
			m = k;
	}
	snprintf(buf, n, "%s: %s %.0f%% of a %.1f ms step", b->label, parts[m].name,
		 sum > 0 ? 100 * b->ms[m] / sum : 0, sum);
}

int rdr_parts(const char *path, const char *title, const struct rdr_parts_bar *bars, int n,
	      struct plumb_err *err)
{
	struct rdr_canvas cv;
	struct rdr_chart c;
	const double W = 1300, L = 330, T = 96, PW = 820, BH = 26, GAP = 10;
	double H, y;
	char buf[420], a[200], b[200];
	int i, k, rc, used[PART_N] = { 0 };

	H = T + n * (BH + GAP) + 50 + 26 * 3 + 20;
	if ((rc = rdr_canvas_begin(&cv, path, W, H, err)) < 0)
		return rc;
	rdr_rgb(cv.cr, 0x111111);
	rdr_text(cv.cr, 24, 32, title, 18, 1, RA_LEFT, W - 48);
	if (n > 0) {
		largest(a, sizeof(a), &bars[0]);
		largest(b, sizeof(b), &bars[n - 1]);
		snprintf(buf, sizeof(buf), "%s; %s.", a, b);
		rdr_rgb(cv.cr, 0x333333);
		rdr_text(cv.cr, 24, 56, buf, 12.5, 0, RA_LEFT, W - 48);
	}
	rdr_rgb(cv.cr, 0x666666);
	rdr_text(cv.cr, 24, 74, "Each bar is one decode step per GPU, split into what its time is "
		 "spent on; the longest part is what to fix first.", 11.5, 0, RA_LEFT, W - 48);
	rdr_chart_init(&c, cv.cr, L, T, PW, n * (BH + GAP));
	rdr_axis_fit(&c.ax, RDR_LIN, 0, 100, 1);
	c.ay.nticks = 0;
	c.ax.title = "share of the step (%)";
	rdr_chart_axes(&c);
	for (i = 0; i < n; i++) {
		double sum = 0, x = 0;
		y = T + GAP / 2 + i * (BH + GAP);
		for (k = 0; k < PART_N; k++)
			sum += bars[i].ms[k] > 0 ? bars[i].ms[k] : 0;
		rdr_rgb(cv.cr, 0x222222);
		rdr_text(cv.cr, L - 10, y + BH / 2 + 4, bars[i].label, 12, 0, RA_RIGHT, L - 34);
		if (!(sum > 0))
			continue;
		for (k = 0; k < PART_N; k++) {
			double share = (bars[i].ms[k] > 0 ? bars[i].ms[k] : 0) / sum, w = PW * share;
			if (!(w > 0))
				continue;
			used[k] = 1;
			rdr_rgb(cv.cr, parts[k].rgb);
			cairo_rectangle(cv.cr, L + x, y, w, BH);
			cairo_fill(cv.cr);
			if (share >= 0.06) {
				snprintf(buf, sizeof(buf), "%.0f%%", 100 * share);
				rdr_rgb(cv.cr, k == PART_KV || k == PART_KMIN || k == PART_IDLE ? 0x222222 :
					0xffffff);
				rdr_text(cv.cr, L + x + w / 2, y + BH / 2 + 4, buf, 11, 1, RA_CENTER, w - 4);
			}
			x += w;
		}
		snprintf(buf, sizeof(buf), "%.1f ms", sum);
		rdr_rgb(cv.cr, 0x222222);
		rdr_text(cv.cr, L + PW + 10, y + BH / 2 + 4, buf, 12, 0, RA_LEFT, W - L - PW - 30);
	}
	/* the legend: the parts any bar has */
	{
		double x = L;
		y = T + n * (BH + GAP) + 64;
		for (k = 0; k < PART_N; k++) {
			double tw;
			if (!used[k])
				continue;
			tw = rdr_text_width(cv.cr, parts[k].name, 12, 0);
			if (x + 26 + tw > W - 24) {
				x = L;
				y += 24;
			}
			rdr_rgb(cv.cr, parts[k].rgb);
			cairo_rectangle(cv.cr, x, y - 11, 18, 14);
			cairo_fill(cv.cr);
			rdr_rgb(cv.cr, 0x222222);
			rdr_text(cv.cr, x + 24, y, parts[k].name, 12, 0, RA_LEFT, 0);
			x += 24 + tw + 26;
		}
	}
	return rdr_canvas_end(&cv, err);
}

/* ---- fit --------------------------------------------------------------- */

enum { Q_US, Q_GBS, Q_TOKS, Q_MS, Q_N };

static int quantity(const struct val_set *v, const struct val_point *p)
{
	const struct val_case *c = &v->cases[p->c];
	if (c->kind == VAL_SERVING)
		return p->group ? Q_MS : Q_TOKS;
	if (c->kind == VAL_NCCL)
		return Q_US;
	return p->group >= MEAS_P2P_LAT_DISABLED_GPU ? Q_US : Q_GBS;
}

static int usable(const struct val_point *p)
{
	return p->measured > 0 && p->predicted > 0 && isfinite(p->predicted) &&
	       isfinite(p->measured);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median of |ratio - 1| over the n values in e (sorted in place). */
static double median(double *e, int n)
{
	if (n < 1)
		return NAN;
	qsort(e, (size_t)n, sizeof(*e), cmp_double);
	return n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
}

int rdr_fit(const char *path, const char *title, const struct val_set *v, struct plumb_err *err)
{
	static const char *const qname[Q_N] = { "latency and time (us)", "bandwidth (GB/s)",
						"throughput (tok/s)", "step time (ms)" };
	static const unsigned qrgb[Q_N] = { 0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd };
	struct rdr_canvas cv;
	const double W = 1200, PW = 470, PH = 300, T0 = 118;
	double qlo[Q_N], qhi[Q_N], rlo[Q_N], rhi[Q_N], *e = NULL, H;
	int count[Q_N] = { 0 }, q, i, rc, panels = 0, slot, n = 0, in25 = 0, in2 = 0;
	char buf[512];

	for (q = 0; q < Q_N; q++) {
		qlo[q] = rlo[q] = INFINITY;
		qhi[q] = rhi[q] = -INFINITY;
	}
	if (v->npoints > 0 && !(e = malloc((size_t)v->npoints * sizeof(*e))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < v->npoints; i++) {
		const struct val_point *p = &v->points[i];
		double r;
		if (!usable(p))
			continue;
		q = quantity(v, p);
		r = p->predicted / p->measured;
		count[q]++;
		qlo[q] = fmin(qlo[q], p->measured);
		qhi[q] = fmax(qhi[q], p->measured);
		rlo[q] = fmin(rlo[q], r);
		rhi[q] = fmax(rhi[q], r);
		e[n++] = fabs(r - 1);
		in25 += r >= 0.8 && r <= 1.25;
		in2 += r >= 0.5 && r <= 2;
	}
	for (q = 0; q < Q_N; q++)
		panels += count[q] > 0;
	if (!panels)
		panels = 1;
	H = T0 + ((panels + 1) / 2) * (PH + 96) + 10;
	if ((rc = rdr_canvas_begin(&cv, path, W, H, err)) < 0) {
		free(e);
		return rc;
	}
	rdr_rgb(cv.cr, 0x111111);
	rdr_text(cv.cr, 24, 32, title, 18, 1, RA_LEFT, W - 48);
	rdr_rgb(cv.cr, 0x333333);
	if (n)
		snprintf(buf, sizeof(buf), "%d points: median error %.1f%%; %.0f%% within +-25%%, "
			 "%d of %d within 2x.", n, 100 * median(e, n), 100.0 * in25 / n, in2, n);
	else
		snprintf(buf, sizeof(buf), "no point with both a measured and a predicted value");
	rdr_text(cv.cr, 24, 56, buf, 12.5, 0, RA_LEFT, W - 48);
	rdr_text(cv.cr, 24, 74, "Each panel: the measured value in its unit (log) against the "
		 "error of the prediction; above the line plumb predicts more than was measured.",
		 12.5, 0, RA_LEFT, W - 48);
	rdr_rgb(cv.cr, 0x666666);
	rdr_text(cv.cr, 24, 92, "Dark band: within +-10%; light band: within +-25%. The axes hold "
		 "every point.", 11.5, 0, RA_LEFT, W - 48);
	for (q = 0, slot = 0; q < Q_N; q++) {
		struct rdr_chart c;
		double px, py, lo, hi, x2[2], a[2], b[2];
		int m = 0;
		if (!count[q])
			continue;
		px = 100 + (slot % 2) * (PW + 120);
		py = T0 + 26 + (slot / 2) * (PH + 96);
		slot++;
		rdr_chart_init(&c, cv.cr, px, py, PW, PH);
		rdr_axis_fit(&c.ax, RDR_LOG10, qlo[q], qhi[q], 0);
		rdr_axis_fit(&c.ay, RDR_RATIO, rlo[q], rhi[q], 0);
		c.ax.title = qname[q];
		c.ay.title = "error of the prediction";
		/* bands at +-25% and +-10% */
		lo = c.ax.lo;
		hi = c.ax.hi;
		x2[0] = lo;
		x2[1] = hi;
		a[0] = a[1] = 0.8;
		b[0] = b[1] = 1.25;
		rdr_chart_band(&c, 2, x2, a, b, 0x2ca02c, 0.08);
		a[0] = a[1] = 0.9;
		b[0] = b[1] = 1.1;
		rdr_chart_band(&c, 2, x2, a, b, 0x2ca02c, 0.14);
		rdr_chart_axes(&c);
		for (i = 0; i < v->npoints; i++) {
			const struct val_point *p = &v->points[i];
			double r;
			if (!usable(p) || quantity(v, p) != q)
				continue;
			r = p->predicted / p->measured;
			rdr_chart_points(&c, 1, &p->measured, &r, 0, 3, qrgb[q], 0.55, 0);
			e[m++] = fabs(r - 1);
		}
		rdr_rgb(cv.cr, 0x111111);
		snprintf(buf, sizeof(buf), "%s: %d points, median error %.1f%%", qname[q], count[q],
			 100 * median(e, m));
		rdr_text(cv.cr, px, py - 10, buf, 13, 1, RA_LEFT, PW);
	}
	free(e);
	return rdr_canvas_end(&cv, err);
}
