/*
 * pareto.c - plan's chart (render.h rdr_pareto): tok/s per GPU against
 * tok/s per user for every configuration that runs, the frontier joined.
 */
#include "chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_x(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

int rdr_pareto(const char *path, const char *title, const struct rdr_pareto_pt *pt, int n,
	       const char *const *names, int nbox, struct plumb_err *err)
{
	struct rdr_canvas cv;
	struct rdr_chart c;
	const double W = 1100, L = 96, T = 92, PW = 700, PH = 520, TX = L + PW + 40;
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY, y;
	double (*fr)[2] = malloc((size_t)(n ? n : 1) * sizeof(*fr));
	double *fx = malloc((size_t)(n ? n : 1) * sizeof(*fx));
	double *fy = malloc((size_t)(n ? n : 1) * sizeof(*fy));
	int i, nf = 0, rc, met = 0;
	char buf[200];

	if (!fr || !fx || !fy) {
		free(fr);
		free(fx);
		free(fy);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (!(pt[i].x > 0 && pt[i].y > 0))
			continue;
		xmin = fmin(xmin, pt[i].x);
		xmax = fmax(xmax, pt[i].x);
		ymin = fmin(ymin, pt[i].y);
		ymax = fmax(ymax, pt[i].y);
		met += pt[i].meets;
		if (pt[i].frontier) {
			fr[nf][0] = pt[i].x;
			fr[nf++][1] = pt[i].y;
		}
	}
	if (!isfinite(xmin)) {
		xmin = ymin = 1;
		xmax = ymax = 10;
	}
	qsort(fr, (size_t)nf, sizeof(*fr), by_x);
	for (i = 0; i < nf; i++) {
		fx[i] = fr[i][0];
		fy[i] = fr[i][1];
	}
	if ((rc = rdr_canvas_begin(&cv, path, W, T + PH + 70, err)) < 0)
		goto out;
	rdr_chart_init(&c, cv.cr, L, T, PW, PH);
	rdr_axis_fit(&c.ax, RDR_LOG10, xmin, xmax, 0);
	rdr_axis_fit(&c.ay, RDR_LOG10, ymin, ymax, 0);
	c.ax.title = "output tok/s per user (log scale)";
	c.ay.title = "output tok/s per GPU (log scale)";
	rdr_rgb(cv.cr, 0x111111);
	rdr_text(cv.cr, 24, 32, title, 17, 1, RA_LEFT, W - 48);
	rdr_rgb(cv.cr, 0x333333);
	snprintf(buf, sizeof(buf), "%d configurations run, %d meet the target (filled); the line joins "
		 "the Pareto frontier: no other point is better on both axes.", n, met);
	rdr_text(cv.cr, 24, 56, buf, 12.5, 0, RA_LEFT, W - 48);
	rdr_rgb(cv.cr, 0x666666);
	rdr_text(cv.cr, 24, 74, "Up: more tokens per GPU (cheaper); right: faster for each user.",
		 11.5, 0, RA_LEFT, W - 48);
	rdr_chart_axes(&c);
	if (nf > 1)
		rdr_chart_line(&c, nf, fx, fy, 0x444444, 1, 1.6, 0);
	for (i = 0; i < n; i++) {
		unsigned rgb = rdr_palette(pt[i].box);
		double px = rdr_chart_px(&c, pt[i].x), py = rdr_chart_py(&c, pt[i].y);
		if (!(pt[i].x > 0 && pt[i].y > 0))
			continue;
		/* rdr_chart_marker fills with the current source: hollow is a
		 * white marker inside a coloured one */
		rdr_rgb(cv.cr, rgb);
		rdr_chart_marker(cv.cr, pt[i].box, px, py, 5.5);
		if (!pt[i].meets) {
			rdr_rgb(cv.cr, 0xffffff);
			rdr_chart_marker(cv.cr, pt[i].box, px, py, 3.3);
		}
	}
	for (i = 0; i < n; i++)
		if (pt[i].frontier && pt[i].x > 0 && pt[i].y > 0)
			rdr_chart_label(&c, rdr_chart_px(&c, pt[i].x), rdr_chart_py(&c, pt[i].y),
					pt[i].label, 10, 0, 0x222222, L + PW);
	/* legend */
	y = T + 8;
	rdr_rgb(cv.cr, 0x111111);
	rdr_text(cv.cr, TX, y, "box", 12, 1, RA_LEFT, 0);
	y += 22;
	for (i = 0; i < nbox; i++, y += 22) {
		rdr_rgb(cv.cr, rdr_palette(i));
		rdr_chart_marker(cv.cr, i, TX + 6, y - 4, 5.5);
		rdr_rgb(cv.cr, 0x222222);
		rdr_text(cv.cr, TX + 18, y, names[i], 11.5, 0, RA_LEFT, W - 24 - TX - 18);
	}
	y += 10;
	rdr_rgb(cv.cr, 0x555555);
	rdr_text_wrap(cv.cr, TX, y, "Filled: meets the latency target. Hollow: misses it. Labels: "
		      "layout@concurrency on the frontier.", 11, W - 24 - TX, 15, 4);
	rc = rdr_canvas_end(&cv, err);
out:
	free(fr);
	free(fx);
	free(fy);
	return rc;
}
