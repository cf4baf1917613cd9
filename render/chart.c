/*
 * chart.c - the chart layer (chart.h): scales and ticks, the axes, bands,
 * lines, markers, outliers kept at the border, coinciding series drawn
 * apart, labels placed clear of each other.
 *
 * Invariants: an axis's lo < hi, and both > 0 on a log or ratio scale
 * (rdr_axis_fit guarantees it); its ticks are increasing and inside
 * [lo, hi].
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

/* Ratios (predicted / measured) a ratio axis may tick, increasing. */
static const double ratio_ticks[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 1.0 / 3, 0.5, 2.0 / 3, 0.8, 0.9,
				      1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100 };
#define NRATIO ((int)(sizeof(ratio_ticks) / sizeof(ratio_ticks[0])))

static double tr(const struct rdr_axis *a, double v)
{
	if (a->scale == RDR_LIN)
		return v;
	return v > 0 ? log(v) : NAN;
}

static void add_tick(struct rdr_axis *a, double v, int major)
{
	if (a->nticks < RDR_MAX_TICKS) {
		a->tick[a->nticks] = v;
		a->major[a->nticks++] = major;
	}
}

static void fit_lin(struct rdr_axis *a, double lo, double hi, int zero_based)
{
	double step, v;
	if (zero_based && lo > 0)
		lo = 0;
	if (zero_based && hi < 0)
		hi = 0;
	if (!(hi > lo)) {
		double d = fabs(lo) > 0 ? fabs(lo) * 0.1 : 1;
		lo -= d;
		hi += d;
	}
	step = rdr_nice_step(hi - lo, 8);
	a->lo = floor(lo / step + 1e-9) * step;
	a->hi = ceil(hi / step - 1e-9) * step;
	for (v = a->lo; v <= a->hi + step * 1e-6; v += step)
		add_tick(a, fabs(v) < step * 1e-9 ? 0 : v, 1);
}

static void fit_log10(struct rdr_axis *a, double lo, double hi)
{
	static const double m125[3] = { 1, 2, 5 };
	double d0 = floor(log10(lo) + 1e-9), d1 = ceil(log10(hi) - 1e-9), e;
	int i;
	if (d1 <= d0)
		d1 = d0 + 1;
	if (d1 - d0 <= 3) {
		/* 1-2-5 steps: the range from the one at or below lo to the one at or above hi */
		double best_lo = pow(10, d0), best_hi = pow(10, d1);
		for (e = d0; e <= d1; e += 1)
			for (i = 0; i < 3; i++) {
				double v = m125[i] * pow(10, e);
				if (v <= lo * (1 + 1e-9))
					best_lo = v;
				if (v >= hi * (1 - 1e-9) && v < best_hi)
					best_hi = v;
			}
		a->lo = best_lo;
		a->hi = best_hi;
		for (e = d0; e <= d1; e += 1)
			for (i = 1; i <= 9; i++) {
				double v = i * pow(10, e);
				if (v < a->lo * (1 - 1e-9) || v > a->hi * (1 + 1e-9))
					continue;
				add_tick(a, v, i == 1 || i == 2 || i == 5);
			}
		return;
	}
	a->lo = pow(10, d0);
	a->hi = pow(10, d1);
	for (e = d0; e <= d1; e += 1)
		/* more than 8 decades: every other one labelled */
		add_tick(a, pow(10, e), d1 - d0 <= 8 || ((long)(e - d0)) % 2 == 0);
}

static void fit_log2(struct rdr_axis *a, double lo, double hi)
{
	double e0 = floor(log2(lo) + 1e-9), e1 = ceil(log2(hi) - 1e-9), e;
	if (e1 <= e0)
		e1 = e0 + 1;
	a->lo = exp2(e0);
	a->hi = exp2(e1);
	for (e = e0; e <= e1; e += 1)
		add_tick(a, exp2(e), e1 - e0 <= 12 || ((long)(e - e0)) % 2 == 0);
}

static void fit_ratio(struct rdr_axis *a, double lo, double hi)
{
	double m = fmax(1 / lo, hi), c = ratio_ticks[NRATIO - 1];
	int i;
	if (m < 1.25)
		m = 1.25;
	for (i = 0; i < NRATIO; i++)
		if (ratio_ticks[i] >= m * (1 - 1e-9)) {
			c = ratio_ticks[i];
			break;
		}
	if (m > c)
		c = m * 1.05;   /* beyond the table: the range still holds every point */
	a->lo = 1 / c;
	a->hi = c;
	for (i = 0; i < NRATIO; i++)
		if (ratio_ticks[i] >= a->lo * (1 - 1e-9) && ratio_ticks[i] <= a->hi * (1 + 1e-9))
			add_tick(a, ratio_ticks[i], 1);
}

void rdr_axis_fit(struct rdr_axis *a, enum rdr_scale scale, double lo, double hi,
		  int zero_based)
{
	a->scale = scale;
	a->nticks = 0;
	if (!isfinite(lo) || !isfinite(hi) || lo > hi) {
		lo = scale == RDR_LIN ? 0 : 1;
		hi = scale == RDR_LIN ? 1 : 10;
	}
	if (scale == RDR_LIN) {
		fit_lin(a, lo, hi, zero_based);
		return;
	}
	if (!(lo > 0))
		lo = hi > 0 ? hi / 10 : 1;
	if (!(hi > 0))
		hi = lo * 10;
	if (scale == RDR_LOG10)
		fit_log10(a, lo, hi);
	else if (scale == RDR_LOG2)
		fit_log2(a, lo, hi);
	else
		fit_ratio(a, lo, hi);
}

void rdr_axis_exact(struct rdr_axis *a, double lo, double hi)
{
	double step, v;
	assert(hi > lo);
	a->scale = RDR_LIN;
	a->nticks = 0;
	a->lo = lo;
	a->hi = hi;
	step = rdr_nice_step(hi - lo, 10);
	for (v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-6; v += step)
		add_tick(a, fabs(v) < step * 1e-9 ? 0 : v, 1);
}

void rdr_axis_label(const struct rdr_axis *a, double v, char *buf, size_t n)
{
	double av = fabs(v);
	if (a->scale == RDR_RATIO) {
		if (fabs(v - 1) < 1e-9)
			snprintf(buf, n, "0");
		else if (v >= 2 - 1e-9)
			snprintf(buf, n, "%.3gx", v);
		else
			snprintf(buf, n, "%+.0f%%", 100 * (v - 1));
		return;
	}
	if (av >= 1e9 - 1e-3)
		snprintf(buf, n, "%.3gG", v / 1e9);
	else if (av >= 1e6 - 1e-6)
		snprintf(buf, n, "%.3gM", v / 1e6);
	else if (av >= 1e4 - 1e-9)
		snprintf(buf, n, "%.3gk", v / 1e3);
	else
		snprintf(buf, n, "%.4g", v);
}

void rdr_chart_init(struct rdr_chart *c, cairo_t *cr, double x, double y, double w, double h)
{
	memset(c, 0, sizeof(*c));
	c->cr = cr;
	c->x = x;
	c->y = y;
	c->w = w;
	c->h = h;
	rdr_axis_fit(&c->ax, RDR_LIN, 0, 1, 0);
	rdr_axis_fit(&c->ay, RDR_LIN, 0, 1, 0);
}

double rdr_chart_px(const struct rdr_chart *c, double v)
{
	const struct rdr_axis *a = &c->ax;
	return c->x + c->w * (tr(a, v) - tr(a, a->lo)) / (tr(a, a->hi) - tr(a, a->lo));
}

double rdr_chart_py(const struct rdr_chart *c, double v)
{
	const struct rdr_axis *a = &c->ay;
	return c->y + c->h - c->h * (tr(a, v) - tr(a, a->lo)) / (tr(a, a->hi) - tr(a, a->lo));
}

static int in_axis(const struct rdr_axis *a, double v)
{
	double slack = 1e-9 * fmax(fabs(a->lo), fabs(a->hi));
	return isfinite(v) && v >= a->lo - slack && v <= a->hi + slack && (a->scale == RDR_LIN || v > 0);
}

int rdr_chart_inside(const struct rdr_chart *c, double x, double y)
{
	return in_axis(&c->ax, x) && in_axis(&c->ay, y);
}

/* The label of y tick i unless it would touch the one at *last; *maxw
 * grows to the widest label. */
static void ylabel(struct rdr_chart *c, int i, double *last, double *maxw)
{
	char buf[32];
	double y = rdr_chart_py(c, c->ay.tick[i]);
	if (!c->ay.major[i] || (isfinite(*last) && fabs(y - *last) < 13))
		return;
	rdr_axis_label(&c->ay, c->ay.tick[i], buf, sizeof(buf));
	rdr_rgb(c->cr, 0x333333);
	*maxw = fmax(*maxw, rdr_text(c->cr, c->x - 8, y + 4, buf, 11, 0, RA_RIGHT, 0));
	*last = y;
}

void rdr_chart_axes(struct rdr_chart *c)
{
	cairo_t *cr = c->cr;
	char buf[32];
	double lastx = -1e9, maxw = 0;
	double last;
	int i, ref = -1;

	for (i = 0; i < c->ay.nticks; i++)
		if (c->ay.scale == RDR_RATIO ? fabs(c->ay.tick[i] - 1) < 1e-9 : c->ay.tick[i] == 0)
			ref = i;
	cairo_save(cr);
	cairo_set_line_width(cr, 1);
	for (i = 0; i < c->ay.nticks; i++) {
		double v = c->ay.tick[i], y = rdr_chart_py(c, v);
		rdr_rgba(cr, 0x000000, i == ref ? 0.5 : c->ay.major[i] ? 0.12 : 0.05);
		cairo_move_to(cr, c->x, y);
		cairo_line_to(cr, c->x + c->w, y);
		cairo_stroke(cr);
	}
	/* y labels from the reference tick (0, or no error) outwards, each at
	 * least a line from the last one placed on its side */
	if (ref < 0) {
		last = NAN;
		for (i = 0; i < c->ay.nticks; i++)
			ylabel(c, i, &last, &maxw);
	} else {
		last = NAN;
		ylabel(c, ref, &last, &maxw);
		for (i = ref - 1; i >= 0; i--)
			ylabel(c, i, &last, &maxw);
		last = rdr_chart_py(c, c->ay.tick[ref]);
		for (i = ref + 1; i < c->ay.nticks; i++)
			ylabel(c, i, &last, &maxw);
	}
	for (i = 0; i < c->ax.nticks; i++) {
		double v = c->ax.tick[i], x = rdr_chart_px(c, v), tw;
		rdr_rgba(cr, 0x000000, c->ax.major[i] ? 0.12 : 0.05);
		cairo_move_to(cr, x, c->y);
		cairo_line_to(cr, x, c->y + c->h);
		cairo_stroke(cr);
		if (!c->ax.major[i])
			continue;
		rdr_axis_label(&c->ax, v, buf, sizeof(buf));
		tw = rdr_text_width(cr, buf, 11, 0);
		if (x - tw / 2 < lastx + 4)
			continue;       /* would touch the label before */
		rdr_rgb(cr, 0x333333);
		rdr_text(cr, x, c->y + c->h + 18, buf, 11, 0, RA_CENTER, 0);
		lastx = x + tw / 2;
	}
	rdr_rgb(cr, 0x333333);
	cairo_rectangle(cr, c->x, c->y, c->w, c->h);
	cairo_stroke(cr);
	if (c->ax.title)
		rdr_text(cr, c->x + c->w / 2, c->y + c->h + 40, c->ax.title, 12.5, 0, RA_CENTER, c->w);
	if (c->ay.title) {
		cairo_translate(cr, c->x - maxw - 20, c->y + c->h / 2);
		cairo_rotate(cr, -RDR_PI / 2);
		rdr_text(cr, 0, 0, c->ay.title, 12.5, 0, RA_CENTER, c->h);
	}
	cairo_restore(cr);
}

static void clip_plot(struct rdr_chart *c)
{
	cairo_save(c->cr);
	cairo_rectangle(c->cr, c->x, c->y, c->w, c->h);
	cairo_clip(c->cr);
}

void rdr_chart_band(struct rdr_chart *c, int n, const double *x, const double *lo,
		    const double *hi, unsigned rgb, double alpha)
{
	cairo_t *cr = c->cr;
	int k = 0;
	clip_plot(c);
	rdr_rgba(cr, rgb, alpha);
	while (k < n) {
		int a, b, j;
		/* a run of points with both bounds */
		while (k < n && !(isfinite(tr(&c->ax, x[k])) && isfinite(tr(&c->ay, lo[k])) &&
				  isfinite(tr(&c->ay, hi[k]))))
			k++;
		a = k;
		while (k < n && isfinite(tr(&c->ax, x[k])) && isfinite(tr(&c->ay, lo[k])) &&
		       isfinite(tr(&c->ay, hi[k])))
			k++;
		b = k;
		if (b - a < 1)
			continue;
		if (b - a == 1) {
			/* one point: a short bar */
			double px = rdr_chart_px(c, x[a]);
			cairo_rectangle(cr, px - 3, rdr_chart_py(c, hi[a]), 6,
					rdr_chart_py(c, lo[a]) - rdr_chart_py(c, hi[a]));
			cairo_fill(cr);
			continue;
		}
		for (j = a; j < b; j++)
			cairo_line_to(cr, rdr_chart_px(c, x[j]), rdr_chart_py(c, hi[j]));
		for (j = b - 1; j >= a; j--)
			cairo_line_to(cr, rdr_chart_px(c, x[j]), rdr_chart_py(c, lo[j]));
		cairo_close_path(cr);
		cairo_fill(cr);
	}
	cairo_restore(cr);
}

void rdr_chart_dash(cairo_t *cr, int style)
{
	static const double d[4][4] = { { 0 }, { 9, 5 }, { 2, 4 }, { 12, 4, 2, 4 } };
	static const int nd[4] = { 0, 2, 2, 4 };
	int s = (style < 0 ? -style : style) % 4;
	cairo_set_dash(cr, d[s], nd[s], 0);
}

void rdr_chart_line(struct rdr_chart *c, int n, const double *x, const double *y, unsigned rgb,
		    int dash, double width, double dy)
{
	cairo_t *cr = c->cr;
	int k, started = 0;
	clip_plot(c);
	rdr_rgb(cr, rgb);
	cairo_set_line_width(cr, width);
	rdr_chart_dash(cr, dash);
	for (k = 0; k < n; k++) {
		double px = rdr_chart_px(c, x[k]), py = rdr_chart_py(c, y[k]) + dy;
		if (!isfinite(px) || !isfinite(py)) {
			if (started)
				cairo_stroke(cr);
			started = 0;
			continue;
		}
		if (started)
			cairo_line_to(cr, px, py);
		else
			cairo_move_to(cr, px, py);
		started = 1;
	}
	if (started)
		cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_restore(cr);
}

void rdr_chart_marker(cairo_t *cr, int kind, double x, double y, double r)
{
	switch ((kind < 0 ? -kind : kind) % 4) {
	case 0:
		cairo_new_sub_path(cr);
		cairo_arc(cr, x, y, r, 0, 2 * RDR_PI);
		break;
	case 1:
		cairo_rectangle(cr, x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r);
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

/* An arrow head at (x, y) pointing along (dx, dy) (unit), for an outlier. */
static void arrow(cairo_t *cr, double x, double y, double dx, double dy, double r)
{
	cairo_move_to(cr, x + dx * r * 1.4, y + dy * r * 1.4);
	cairo_line_to(cr, x - dy * r - dx * r * 0.6, y + dx * r - dy * r * 0.6);
	cairo_line_to(cr, x + dy * r - dx * r * 0.6, y - dx * r - dy * r * 0.6);
	cairo_close_path(cr);
	cairo_fill(cr);
}

int rdr_chart_points(struct rdr_chart *c, int n, const double *x, const double *y, int kind,
		     double r, unsigned rgb, double alpha, double dy)
{
	cairo_t *cr = c->cr;
	int k, beyond = 0;
	rdr_rgba(cr, rgb, alpha);
	for (k = 0; k < n; k++) {
		double px, py, ax = 0, ay = 0;
		if (!isfinite(x[k]) || !isfinite(y[k]) ||
		    (c->ax.scale != RDR_LIN && !(x[k] > 0)) || (c->ay.scale != RDR_LIN && !(y[k] > 0)))
			continue;
		px = rdr_chart_px(c, x[k]);
		py = rdr_chart_py(c, y[k]) + dy;
		if (px < c->x)
			ax = -1;
		else if (px > c->x + c->w)
			ax = 1;
		if (py < c->y)
			ay = -1;
		else if (py > c->y + c->h)
			ay = 1;
		if (ax == 0 && ay == 0) {
			rdr_chart_marker(cr, kind, px, py, r);
			continue;
		}
		beyond++;
		px = fmin(fmax(px, c->x + r), c->x + c->w - r);
		py = fmin(fmax(py, c->y + r), c->y + c->h - r);
		{
			double len = sqrt(ax * ax + ay * ay);
			rdr_rgb(cr, rgb);
			arrow(cr, px, py, ax / len, ay / len, r * 1.2);
			rdr_rgba(cr, rgb, alpha);
		}
	}
	return beyond;
}

void rdr_chart_coincide(const struct rdr_chart *c, int n, const double *const *xs,
			const double *const *ys, const int *np, double tol, int *same_as,
			double *offset)
{
	int i, j, k;
	for (i = 0; i < n; i++) {
		same_as[i] = -1;
		offset[i] = 0;
		for (j = 0; j < i && same_as[i] < 0; j++) {
			int same = np[i] == np[j] && np[i] > 0 && same_as[j] < 0;
			for (k = 0; same && k < np[i]; k++) {
				double yi = rdr_chart_py(c, ys[i][k]), yj = rdr_chart_py(c, ys[j][k]);
				if (fabs(xs[i][k] - xs[j][k]) > 1e-9 * fmax(1, fabs(xs[j][k])) ||
				    isfinite(yi) != isfinite(yj) || (isfinite(yi) && fabs(yi - yj) > tol))
					same = 0;
			}
			if (same)
				same_as[i] = j;
		}
	}
	/* a group of g series: 3 points apart, centred on the true line */
	for (j = 0; j < n; j++) {
		int g = 1, m = 0;
		if (same_as[j] >= 0)
			continue;
		for (i = j + 1; i < n; i++)
			g += same_as[i] == j;
		if (g == 1)
			continue;
		offset[j] = -1.5 * (g - 1);
		for (i = j + 1; i < n; i++)
			if (same_as[i] == j)
				offset[i] = 3.0 * ++m - 1.5 * (g - 1);
	}
}

static int overlaps(const struct rdr_chart *c, const struct rdr_box2 *b)
{
	int i;
	for (i = 0; i < c->nlab; i++) {
		const struct rdr_box2 *o = &c->lab[i];
		if (b->x < o->x + o->w && o->x < b->x + b->w && b->y < o->y + o->h && o->y < b->y + b->h)
			return 1;
	}
	return 0;
}

static void remember(struct rdr_chart *c, const struct rdr_box2 *b)
{
	if (c->nlab < RDR_MAX_LABELS)
		c->lab[c->nlab++] = *b;
}

int rdr_chart_label(struct rdr_chart *c, double px, double py, const char *text, double size,
		    int bold, unsigned rgb, double pw)
{
	/* offsets of the box's left/baseline from the point, in order of preference */
	double w = rdr_text_width(c->cr, text, size, bold), hgt = size * 1.25, asc = size * 0.95;
	const double gap = 7;
	double cand[10][2] = {
		{ gap, size * 0.35 }, { -gap - w, size * 0.35 }, { -w / 2, -gap },
		{ -w / 2, gap + asc }, { gap, -gap }, { gap, gap + asc }, { -gap - w, -gap },
		{ -gap - w, gap + asc }, { -w / 2, -gap - hgt }, { -w / 2, gap + asc + hgt },
	};
	int i;
	for (i = 0; i < 10; i++) {
		struct rdr_box2 b = { px + cand[i][0] - 2, py + cand[i][1] - asc - 1, w + 4, hgt + 2 };
		if (b.x < 2 || b.x + b.w > pw - 2 || overlaps(c, &b))
			continue;
		remember(c, &b);
		cairo_save(c->cr);
		cairo_set_source_rgba(c->cr, 1, 1, 1, 0.85);
		cairo_rectangle(c->cr, b.x, b.y, b.w, b.h);
		cairo_fill(c->cr);
		rdr_rgb(c->cr, rgb);
		rdr_text(c->cr, px + cand[i][0], py + cand[i][1], text, size, bold, RA_LEFT, 0);
		cairo_restore(c->cr);
		return 0;
	}
	return -1;
}

struct colitem {
	int i;
	double want, at;
};

static int by_want(const void *a, const void *b)
{
	const struct colitem *x = a, *y = b;
	if (x->want != y->want)
		return x->want < y->want ? -1 : 1;
	return x->i - y->i;
}

void rdr_chart_column(struct rdr_chart *c, int n, const double *y, const char *const *text,
		      const unsigned *rgb, double x, double x0, double size, double top,
		      double bottom)
{
	struct colitem it[RDR_MAX_LABELS];
	double gap = size * 1.3;
	int k, m = 0;
	for (k = 0; k < n && m < RDR_MAX_LABELS; k++)
		if (isfinite(y[k]) && text[k] && text[k][0]) {
			it[m].i = k;
			it[m].want = y[k];
			it[m++].at = y[k];
		}
	qsort(it, (size_t)m, sizeof(it[0]), by_want);
	for (k = 0; k < m; k++) {
		if (it[k].at < top)
			it[k].at = top;
		if (k && it[k].at < it[k - 1].at + gap)
			it[k].at = it[k - 1].at + gap;
	}
	for (k = m - 1; k >= 0; k--) {
		if (it[k].at > bottom)
			it[k].at = bottom;
		if (k < m - 1 && it[k].at > it[k + 1].at - gap)
			it[k].at = it[k + 1].at - gap;
	}
	for (k = 0; k < m; k++) {
		int i = it[k].i;
		struct rdr_box2 b;
		double w = rdr_text_width(c->cr, text[i], size, 0);
		rdr_rgba(c->cr, rgb[i], 0.6);
		cairo_set_line_width(c->cr, 0.8);
		cairo_move_to(c->cr, x0, it[k].want);
		cairo_line_to(c->cr, x - 3, it[k].at);
		cairo_stroke(c->cr);
		rdr_rgb(c->cr, rgb[i]);
		rdr_text(c->cr, x, it[k].at + size * 0.35, text[i], size, 0, RA_LEFT, 0);
		b.x = x - 1;
		b.y = it[k].at - size * 0.65;
		b.w = w + 2;
		b.h = size * 1.25;
		remember(c, &b);
	}
}
