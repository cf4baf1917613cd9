/*
 * charts.c - the timeline of one decode step (Gantt), the throughput chart
 * and the measured-vs-predicted plot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meas.h"
#include "render_int.h"

/* ---- timeline ---------------------------------------------------------- */

static const struct {
	unsigned rgb;
	const char *name;
} tags[TAG_NTAGS] = {
	[TAG_ATTN] = { 0x4e79a7, "attention" },
	[TAG_MLP] = { 0x76b7b2, "dense MLP" },
	[TAG_EXPERTS] = { 0x59a14f, "experts (MoE)" },
	[TAG_LMHEAD] = { 0xb07aa1, "LM head" },
	[TAG_OTHER] = { 0x9c9c9c, "other compute" },
	[TAG_COMM_TP] = { 0xe15759, "all-reduce (TP)" },
	[TAG_COMM_EP] = { 0xf28e2b, "all-to-all (EP)" },
	[TAG_COMM_PP] = { 0xd4a017, "stage send (PP)" },
};

#define IDLE_RGB 0xececec

static void axis_ms(cairo_t *cr, double x0, double y, double w, double t0, double t1,
		    double top, const char *label)
{
	double a = t0 * 1e3, b = t1 * 1e3, step = rdr_nice_step(b - a, 10), t;
	char buf[32];
	rdr_rgb(cr, 0x333333);
	cairo_set_line_width(cr, 1);
	cairo_move_to(cr, x0, y);
	cairo_line_to(cr, x0 + w, y);
	cairo_stroke(cr);
	for (t = ceil(a / step - 1e-9) * step; t <= b + step * 1e-6; t += step) {
		double x = x0 + w * (t - a) / (b - a);
		rdr_rgba(cr, 0x000000, 0.12);
		cairo_move_to(cr, x, top);
		cairo_line_to(cr, x, y);
		cairo_stroke(cr);
		rdr_rgb(cr, 0x333333);
		cairo_move_to(cr, x, y);
		cairo_line_to(cr, x, y + 5);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), step < 0.01 ? "%.3f" : step < 0.1 ? "%.2f" :
			 step < 1 ? "%.1f" : "%.0f", fabs(t) < step * 1e-6 ? 0.0 : t);
		rdr_text(cr, x, y + 18, buf, 11, 0, RA_CENTER, 0);
	}
	rdr_text(cr, x0 + w / 2, y + 36, label, 12, 0, RA_CENTER, 0);
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
	for (g = 0; g < ng; g++) {
		char lab[16];
		rdr_rgb(cr, 0x222222);
		snprintf(lab, sizeof(lab), "GPU%d", g);
		rdr_text(cr, left - 10, y0 + g * rowh + rowh / 2 + 5, lab, 13, 1, RA_RIGHT, left - 14);
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
	h = ztop + ng * rowh + 70 + 24 * 2 + 6;
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
	axis_ms(c.cr, left, top + ng * rowh + 4, pw, 0, sec, top,
		"time in the step (ms); upper half of a row: compute, lower half: communication");
	snprintf(zlab, sizeof(zlab), "zoom: %.2f to %.2f ms (the box above)", z0 * 1e3, z1 * 1e3);
	gantt(c.cr, t, ng, left, pw, ztop, rowh, z0, z1);
	axis_ms(c.cr, left, ztop + ng * rowh + 4, pw, z0, z1, ztop, zlab);
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
	}
	return rdr_canvas_end(&c, err);
}

/* ---- throughput -------------------------------------------------------- */

static const double dashes[4][4] = { { 0 }, { 9, 5 }, { 2, 4 }, { 12, 4, 2, 4 } };
static const int ndash[4] = { 0, 2, 2, 4 };

static void marker(cairo_t *cr, int kind, double x, double y)
{
	double r = 4.5;
	switch (kind % 4) {
	case 0:
		cairo_arc(cr, x, y, r, 0, 2 * RDR_PI);
		break;
	case 1:
		cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r);
		break;
	case 2:
		cairo_move_to(cr, x, y - r * 1.2);
		cairo_line_to(cr, x + r * 1.1, y + r * 0.8);
		cairo_line_to(cr, x - r * 1.1, y + r * 0.8);
		cairo_close_path(cr);
		break;
	default:
		cairo_move_to(cr, x, y - r * 1.3);
		cairo_line_to(cr, x + r * 1.1, y);
		cairo_line_to(cr, x, y + r * 1.3);
		cairo_line_to(cr, x - r * 1.1, y);
		cairo_close_path(cr);
		break;
	}
	cairo_fill(cr);
}

int rdr_throughput(const char *path, const char *title, const char *xlabel,
		   const struct rdr_series *series, int n, struct plumb_err *err)
{
	struct rdr_canvas c;
	const double W = 1180, H = 660, L = 90, T = 70, PW = 720, PH = 500;
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0, ystep, lx0, lx1, v;
	int i, k, rc;
	char buf[64];

	for (i = 0; i < n; i++)
		for (k = 0; k < series[i].n; k++) {
			if (series[i].x[k] > 0) {
				xmin = fmin(xmin, series[i].x[k]);
				xmax = fmax(xmax, series[i].x[k]);
			}
			if (isfinite(series[i].y[k]))
				ymax = fmax(ymax, series[i].y[k]);
		}
	if (!isfinite(xmin)) {
		xmin = 1;
		xmax = 2;
	}
	lx0 = floor(log2(xmin));
	lx1 = ceil(log2(xmax));
	if (lx1 <= lx0)
		lx1 = lx0 + 1;
	if (!(ymax > 0))
		ymax = 1;
	ystep = rdr_nice_step(ymax * 1.05, 8);
	ymax = ceil(ymax * 1.05 / ystep) * ystep;
	if ((rc = rdr_canvas_begin(&c, path, W, H, err)) < 0)
		return rc;
	rdr_rgb(c.cr, 0x111111);
	rdr_text(c.cr, 24, 32, title, 18, 1, RA_LEFT, W - 48);
	/* grid and axes */
	cairo_set_line_width(c.cr, 1);
	for (v = 0; v <= ymax * (1 + 1e-9); v += ystep) {
		double y = T + PH - PH * v / ymax;
		rdr_rgba(c.cr, 0x000000, v > 0 ? 0.1 : 0.6);
		cairo_move_to(c.cr, L, y);
		cairo_line_to(c.cr, L + PW, y);
		cairo_stroke(c.cr);
		rdr_rgb(c.cr, 0x333333);
		snprintf(buf, sizeof(buf), "%.0f", v);
		rdr_text(c.cr, L - 8, y + 4, buf, 11, 0, RA_RIGHT, 0);
	}
	for (v = lx0; v <= lx1 + 1e-9; v += 1) {
		double x = L + PW * (v - lx0) / (lx1 - lx0);
		rdr_rgba(c.cr, 0x000000, 0.1);
		cairo_move_to(c.cr, x, T);
		cairo_line_to(c.cr, x, T + PH);
		cairo_stroke(c.cr);
		rdr_rgb(c.cr, 0x333333);
		snprintf(buf, sizeof(buf), "%.0f", exp2(v));
		rdr_text(c.cr, x, T + PH + 18, buf, 11, 0, RA_CENTER, 0);
	}
	rdr_rgb(c.cr, 0x333333);
	cairo_rectangle(c.cr, L, T, PW, PH);
	cairo_stroke(c.cr);
	rdr_text(c.cr, L + PW / 2, T + PH + 42, xlabel, 13, 0, RA_CENTER, 0);
	cairo_save(c.cr);
	cairo_translate(c.cr, 30, T + PH / 2);
	cairo_rotate(c.cr, -RDR_PI / 2);
	rdr_text(c.cr, 0, 0, "output tokens per second (all requests)", 13, 0, RA_CENTER, 0);
	cairo_restore(c.cr);
	/* series */
	for (i = 0; i < n; i++) {
		const struct rdr_series *s = &series[i];
		int d = s->dash % 4, started = 0;
		rdr_rgb(c.cr, rdr_palette(s->color));
		cairo_set_line_width(c.cr, 2.2);
		cairo_set_dash(c.cr, dashes[d], ndash[d], 0);
		for (k = 0; k < s->n; k++) {
			double x, y;
			if (!(s->x[k] > 0) || !isfinite(s->y[k])) {
				started = 0;
				continue;
			}
			x = L + PW * (log2(s->x[k]) - lx0) / (lx1 - lx0);
			y = T + PH - PH * s->y[k] / ymax;
			if (started)
				cairo_line_to(c.cr, x, y);
			else
				cairo_move_to(c.cr, x, y);
			started = 1;
		}
		cairo_stroke(c.cr);
		cairo_set_dash(c.cr, NULL, 0, 0);
		for (k = 0; k < s->n; k++)
			if (s->x[k] > 0 && isfinite(s->y[k]))
				marker(c.cr, s->dash, L + PW * (log2(s->x[k]) - lx0) / (lx1 - lx0),
				       T + PH - PH * s->y[k] / ymax);
	}
	/* legend */
	{
		double x = L + PW + 30, y = T + 10;
		rdr_rgb(c.cr, 0x111111);
		rdr_text(c.cr, x, y, "box, layout", 13, 1, RA_LEFT, 0);
		y += 24;
		for (i = 0; i < n && y < T + PH + 40; i++, y += 24) {
			int d = series[i].dash % 4;
			rdr_rgb(c.cr, rdr_palette(series[i].color));
			cairo_set_line_width(c.cr, 2.2);
			cairo_set_dash(c.cr, dashes[d], ndash[d], 0);
			cairo_move_to(c.cr, x, y - 4);
			cairo_line_to(c.cr, x + 40, y - 4);
			cairo_stroke(c.cr);
			cairo_set_dash(c.cr, NULL, 0, 0);
			marker(c.cr, series[i].dash, x + 20, y - 4);
			rdr_rgb(c.cr, 0x222222);
			rdr_text(c.cr, x + 50, y, series[i].label, 12, 0, RA_LEFT, W - x - 50 - 16);
		}
	}
	return rdr_canvas_end(&c, err);
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

/* 0.01, 0.1, 1, 10, 100, 1k, ... 1G */
static void decade(char *buf, size_t n, int e)
{
	static const char *const big[] = { "1", "10", "100", "1k", "10k", "100k", "1M", "10M",
					   "100M", "1G", "10G", "100G" };
	if (e >= 0 && e < 12)
		snprintf(buf, n, "%s", big[e]);
	else if (e < 0 && e >= -4)
		snprintf(buf, n, "%.*f", -e, pow(10, e));
	else
		snprintf(buf, n, "1e%d", e);
}

int rdr_fit(const char *path, const char *title, const struct val_set *v, struct plumb_err *err)
{
	static const char *const qname[Q_N] = { "latency / time (us)", "bandwidth (GB/s)",
						"throughput (tok/s)", "step time (ms)" };
	static const unsigned qrgb[Q_N] = { 0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd };
	struct rdr_canvas c;
	struct val_stats st;
	const double W = 1060, H = 760, L = 90, T = 80, P = 600;
	double lo = INFINITY, hi = -INFINITY, d0, d1, e;
	int i, rc, count[Q_N] = { 0 };
	char buf[256];

	for (i = 0; i < v->npoints; i++) {
		const struct val_point *p = &v->points[i];
		if (p->measured > 0 && p->predicted > 0 && isfinite(p->predicted)) {
			lo = fmin(lo, fmin(p->measured, p->predicted));
			hi = fmax(hi, fmax(p->measured, p->predicted));
		}
	}
	if (!isfinite(lo)) {
		lo = 1;
		hi = 10;
	}
	d0 = floor(log10(lo));
	d1 = ceil(log10(hi));
	if (d1 <= d0)
		d1 = d0 + 1;
	if ((rc = rdr_canvas_begin(&c, path, W, H, err)) < 0)
		return rc;
#define PX(val) (L + P * (log10(val) - d0) / (d1 - d0))
#define PY(val) (T + P - P * (log10(val) - d0) / (d1 - d0))
	rdr_rgb(c.cr, 0x111111);
	rdr_text(c.cr, 24, 32, title, 18, 1, RA_LEFT, W - 48);
	val_stats(v, 0, v->npoints, &st);
	snprintf(buf, sizeof(buf), "%d points, median error %.1f%%, %d within 2x", st.n,
		 100 * st.median_err, st.within2x);
	rdr_rgb(c.cr, 0x505050);
	rdr_text(c.cr, 24, 54, buf, 12, 0, RA_LEFT, W - 48);
	cairo_save(c.cr);
	cairo_rectangle(c.cr, L, T, P, P);
	cairo_clip(c.cr);
	/* the 2x band and y = x */
	rdr_rgba(c.cr, 0x2ca02c, 0.12);
	cairo_move_to(c.cr, PX(pow(10, d0)), PY(pow(10, d0) * 2));
	cairo_line_to(c.cr, PX(pow(10, d1)), PY(pow(10, d1) * 2));
	cairo_line_to(c.cr, PX(pow(10, d1)), PY(pow(10, d1) / 2));
	cairo_line_to(c.cr, PX(pow(10, d0)), PY(pow(10, d0) / 2));
	cairo_close_path(c.cr);
	cairo_fill(c.cr);
	rdr_rgb(c.cr, 0x444444);
	cairo_set_line_width(c.cr, 1.2);
	cairo_move_to(c.cr, PX(pow(10, d0)), PY(pow(10, d0)));
	cairo_line_to(c.cr, PX(pow(10, d1)), PY(pow(10, d1)));
	cairo_stroke(c.cr);
	cairo_restore(c.cr);
	/* decades */
	cairo_set_line_width(c.cr, 1);
	for (e = d0; e <= d1 + 1e-9; e += 1) {
		double x = L + P * (e - d0) / (d1 - d0), y = T + P - P * (e - d0) / (d1 - d0);
		rdr_rgba(c.cr, 0x000000, 0.1);
		cairo_move_to(c.cr, x, T);
		cairo_line_to(c.cr, x, T + P);
		cairo_move_to(c.cr, L, y);
		cairo_line_to(c.cr, L + P, y);
		cairo_stroke(c.cr);
		rdr_rgb(c.cr, 0x333333);
		decade(buf, sizeof(buf), (int)lround(e));
		rdr_text(c.cr, x, T + P + 18, buf, 11, 0, RA_CENTER, 0);
		rdr_text(c.cr, L - 8, y + 4, buf, 11, 0, RA_RIGHT, 0);
	}
	rdr_rgb(c.cr, 0x333333);
	cairo_rectangle(c.cr, L, T, P, P);
	cairo_stroke(c.cr);
	rdr_text(c.cr, L + P / 2, T + P + 42, "measured", 13, 0, RA_CENTER, 0);
	cairo_save(c.cr);
	cairo_translate(c.cr, 34, T + P / 2);
	cairo_rotate(c.cr, -RDR_PI / 2);
	rdr_text(c.cr, 0, 0, "predicted by plumb", 13, 0, RA_CENTER, 0);
	cairo_restore(c.cr);
	for (i = 0; i < v->npoints; i++) {
		const struct val_point *p = &v->points[i];
		int q;
		if (!(p->measured > 0 && p->predicted > 0 && isfinite(p->predicted)))
			continue;
		q = quantity(v, p);
		count[q]++;
		rdr_rgba(c.cr, qrgb[q], 0.55);
		cairo_arc(c.cr, PX(p->measured), PY(p->predicted), 3, 0, 2 * RDR_PI);
		cairo_fill(c.cr);
	}
#undef PX
#undef PY
	{
		double x = L + P + 30, y = T + 14;
		rdr_rgb(c.cr, 0x111111);
		rdr_text(c.cr, x, y, "quantity (points)", 13, 1, RA_LEFT, 0);
		y += 26;
		for (i = 0; i < Q_N; i++) {
			if (!count[i])
				continue;
			rdr_rgb(c.cr, qrgb[i]);
			cairo_arc(c.cr, x + 8, y - 4, 5, 0, 2 * RDR_PI);
			cairo_fill(c.cr);
			rdr_rgb(c.cr, 0x222222);
			snprintf(buf, sizeof(buf), "%s (%d)", qname[i], count[i]);
			rdr_text(c.cr, x + 22, y, buf, 12, 0, RA_LEFT, W - x - 40);
			y += 24;
		}
		y += 12;
		rdr_rgb(c.cr, 0x444444);
		cairo_move_to(c.cr, x, y - 4);
		cairo_line_to(c.cr, x + 18, y - 4);
		cairo_stroke(c.cr);
		rdr_rgb(c.cr, 0x222222);
		rdr_text(c.cr, x + 22, y, "predicted = measured", 12, 0, RA_LEFT, 0);
		y += 24;
		rdr_rgba(c.cr, 0x2ca02c, 0.25);
		cairo_rectangle(c.cr, x, y - 11, 18, 14);
		cairo_fill(c.cr);
		rdr_rgb(c.cr, 0x222222);
		rdr_text(c.cr, x + 22, y, "within 2x", 12, 0, RA_LEFT, 0);
	}
	return rdr_canvas_end(&c, err);
}
