/*
 * study_html.c - the report's numbers as HTML: the answer, the throughput
 * chart, the tok/s table with the reasons a point does not fit, the
 * diagnosis and where a step's time goes. Every layout, load and box the
 * prediction ran has its line, cell or bar; names from inputs are escaped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "render.h"
#include "study_int.h"

static void esc(FILE *f, const char *s)
{
	out_xml(f, s);
}

/* "47.4" or "47.4 (90%: 33.1-63.9)" */
static void tok_range(FILE *f, const struct prow *p)
{
	fprintf(f, "%.1f tok/s", p->tok);
	if (isfinite(p->lo))
		fprintf(f, " (90%%: %.1f&ndash;%.1f)", p->lo, p->hi);
}

/*
 * " (90%: x1.9-2.6)": the speed-up of b over a draw by draw (draw d of
 * every row has the same constants drawn, so the ratio cancels what the
 * two boxes share), its 5th and 95th percentile; nothing without draws.
 */
static void speedup_range(FILE *f, const struct study *st, const struct prow *b,
			  const struct prow *a)
{
	double *v, lo, hi;
	size_t d, n = b->draws && a->draws ? json_array_size(b->draws) : 0;
	int k = 0;
	if (!n || n != json_array_size(a->draws) || n > (size_t)1 << 24 ||
	    !(v = malloc(n * sizeof(*v))))
		return;
	for (d = 0; d < n; d++) {
		json_t *x = json_array_get(b->draws, d), *y = json_array_get(a->draws, d);
		if (json_is_number(x) && json_is_number(y) && json_number_value(y) > 0)
			v[k++] = json_number_value(x) / json_number_value(y);
	}
	st->o->cmd.interval(v, k, &lo, &hi);
	free(v);
	if (isfinite(lo))
		fprintf(f, " (90%%: x%.2f&ndash;%.2f)", lo, hi);
}

void study_answer(FILE *f, const struct study *st)
{
	int j, e;
	fputs("<section class=\"answer\">\n<h2>The answer</h2>\n<ul>\n", f);
	for (e = 0; e < 2; e++) {
		int xi = e ? st->nx - 1 : 0, x = st->xs[xi];
		const struct prow *b0 = study_best(st, 0, xi);
		if (st->ns == 1) {
			if (!b0)
				continue;
			fprintf(f, "<li>At %d %s the best layout on <b>", x, study_loadname(x));
			esc(f, st->s[0]->name);
			fprintf(f, "</b> is %s: ", b0->layout);
			tok_range(f, b0);
			fputs(".</li>\n", f);
			continue;
		}
		for (j = 1; j < st->ns; j++) {
			const struct prow *b = study_best(st, j, xi);
			if (!b || !b0)
				continue;
			fprintf(f, "<li>At %d %s: <b>", x, study_loadname(x));
			esc(f, st->s[j]->name);
			fprintf(f, "</b> with %s gives ", b->layout);
			tok_range(f, b);
			fputs(" against ", f);
			esc(f, st->s[0]->name);
			fprintf(f, " with %s, ", b0->layout);
			tok_range(f, b0);
			fprintf(f, ": <b>x%.2f</b>", b->tok / b0->tok);
			speedup_range(f, st, b, b0);
			fputs(".</li>\n", f);
		}
	}
	fputs("</ul>\n<p class=\"note\">Each box at its own best layout. ", f);
	if (st->interval)
		fprintf(f, "The ranges are 90%% intervals of each box's tok/s and of the speed-up, "
			   "the latter taken draw by draw with the same constants drawn for both "
			   "boxes: %s.",
			st->o->calib ? "constants drawn from the calibration's covariance, times its "
				      "residual spread" :
				      "the step constants the scenarios leave at their defaults drawn over "
				      "their plausible ranges (no calibration to measurements of these "
				      "boxes; see Calibration below)");
	else
		fputs("No ranges were asked for (--draws 0).", f);
	fputs("</p>\n</section>\n", f);
}

/* The SVG file at path inline: without its XML declaration, ids prefixed
 * with `pre` (Cairo numbers glyphs and clips from 0 in every file, and
 * several pictures share one page), sized by the page's width. */
int study_inline_svg(FILE *f, const char *path, const char *pre, const char *label,
		      struct plumb_err *err)
{
	char *svg = study_slurp(path), *p;
	static const char *const keys[] = { "id=\"", "href=\"#", "url(#" };
	if (!svg)
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot read a figure back");
	p = strstr(svg, "<svg");
	if (!p) {
		free(svg);
		return plumb_err_set(err, PLUMB_ERUNTIME, path, 0, 0, "a figure is not SVG");
	}
	fputs("<svg role=\"img\" aria-label=\"", f);
	esc(f, label);
	fputc('"', f);
	p += 4;
	while (*p) {
		int k, hit = -1;
		for (k = 0; k < 3 && hit < 0; k++)
			if (!strncmp(p, keys[k], strlen(keys[k])))
				hit = k;
		if (hit >= 0) {
			fputs(keys[hit], f);
			fputs(pre, f);
			p += strlen(keys[hit]);
		} else {
			fputc(*p++, f);
		}
	}
	free(svg);
	return 0;
}

int study_figure_tput(FILE *f, struct study *st, const char *path, struct plumb_err *err)
{
	struct rdr_series *ser = calloc((size_t)(st->ns * st->nlayouts), sizeof(*ser));
	char title[300];
	int i, rc;
	if (!ser)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < st->ns * st->nlayouts; i++) {
		snprintf(ser[i].label, sizeof(ser[i].label), "%s, %s", st->s[i / st->nlayouts]->name,
			 st->layouts[i % st->nlayouts]);
		ser[i].color = i / st->nlayouts;
		ser[i].dash = i % st->nlayouts;
	}
	for (i = 0; i < st->nrows; i++) {
		const struct prow *p = &st->rows[i];
		struct rdr_series *r = &ser[p->si * st->nlayouts + p->li];
		if (r->n >= RDR_MAX_PTS)
			continue;
		r->x[r->n] = p->x;
		r->y[r->n] = p->fits ? p->tok : NAN;
		r->lo[r->n] = p->fits && isfinite(p->lo) ? p->lo : 0;
		r->hi[r->n] = p->fits && isfinite(p->hi) ? p->hi : 0;
		r->n++;
	}
	snprintf(title, sizeof(title), "%s %s: total tok/s against concurrency",
		 study_str(json_object_get(st->doc, "model_info"), "name"), study_str(st->doc, "weights"));
	rc = rdr_throughput(path, title, "concurrent requests (closed loop)", ser,
			    st->ns * st->nlayouts, err);
	free(ser);
	if (rc < 0)
		return rc;
	fputs("<figure>\n", f);
	if ((rc = study_inline_svg(f, path, "tput-", "total tok/s against concurrency", err)) < 0)
		return rc;
	fputs("<figcaption>Total output tok/s against concurrent requests, a line per box and "
	      "layout; both axes are logarithmic, so equal distances are equal ratios. The numbers "
	      "beside the lines and in the legend are speed-ups over the first box with the same "
	      "layout.", f);
	if (st->interval)
		fputs(" Shaded: the 90% range.", f);
	/* the chart's own bounds (render/chart.h): said, never silent */
	if (st->ns * st->nlayouts > RDR_MAX_SERIES)
		fprintf(f, " The chart draws the first %d of the %d lines; the table below has "
			"every box and layout.", RDR_MAX_SERIES, st->ns * st->nlayouts);
	if (st->nx > RDR_MAX_PTS)
		fprintf(f, " Each line has the first %d of the %d loads; the table has them all.",
			RDR_MAX_PTS, st->nx);
	fputs("</figcaption>\n</figure>\n", f);
	return 0;
}

/* Order of notes: by key, then by row. */
struct note {
	const struct prow *p;
	int i;
};

static int note_why_cmp(const void *pa, const void *pb)
{
	const struct note *a = pa, *b = pb;
	int d = strcmp(a->p->why, b->p->why);
	return d ? d : a->i - b->i;
}

static int note_run_cmp(const void *pa, const void *pb)
{
	const struct note *a = pa, *b = pb;
	int d = strcmp(a->p->run, b->p->run);
	if (!d)
		d = a->p->si - b->p->si;
	return d ? d : a->i - b->i;
}

/*
 * first[i] = 1 for the rows that open a note: of the rows keep() takes, the
 * first of each key cmp() says is equal. O(R log R). NULL when out of memory.
 */
static char *first_rows(const struct study *st, int (*keep)(const struct prow *),
			int (*cmp)(const void *, const void *))
{
	struct note *n = malloc((size_t)(st->nrows ? st->nrows : 1) * sizeof(*n));
	char *first = calloc((size_t)(st->nrows ? st->nrows : 1), 1);
	int i, k = 0;
	if (!n || !first) {
		free(n);
		free(first);
		return NULL;
	}
	for (i = 0; i < st->nrows; i++)
		if (keep(&st->rows[i])) {
			n[k].p = &st->rows[i];
			n[k++].i = i;
		}
	qsort(n, (size_t)k, sizeof(*n), cmp);
	for (i = 0; i < k; i++)
		if (!i || cmp(&(struct note){ n[i - 1].p, 0 }, &(struct note){ n[i].p, 0 }))
			first[n[i].i] = 1;
	free(n);
	return first;
}

static int unfit(const struct prow *p)
{
	return !p->fits;
}

static int replicated(const struct prow *p)
{
	return p->run[0] != 0;
}

int study_table(FILE *f, const struct study *st, struct plumb_err *err)
{
	int li, xi, j;
	char *first;
	fputs("<h2>Tokens per second</h2>\n<p>Total output tok/s of all requests, a closed loop "
	      "of that many clients (as <code>sglang.bench_serving --max-concurrency</code>)", f);
	if (st->ns > 1) {
		fputs("; x: the speed-up over ", f);
		esc(f, st->s[0]->name);
		fputs(" with the same layout", f);
	}
	fputs(".</p>\n<div class=\"wide\"><table>\n<thead><tr><th class=\"l\">layout</th>"
	      "<th>requests</th>", f);
	for (j = 0; j < st->ns; j++) {
		fputs("<th>", f);
		esc(f, st->s[j]->name);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (li = 0; li < st->nlayouts; li++)
		for (xi = 0; xi < st->nx; xi++) {
			const struct prow *r0 = study_fit(st, 0, li, xi);
			fprintf(f, "<tr><td class=\"l n\">%s</td><td>%d</td>", st->layouts[li], st->xs[xi]);
			for (j = 0; j < st->ns; j++) {
				const struct prow *r = study_fit(st, j, li, xi), *u;
				if (!r) {
					/* n/a: the box is too small for the layout */
					u = study_row(st, j, li, xi);
					fputs(u && !strncmp(u->why, "n/a", 3) ? "<td>n/a</td>"
					      : "<td>does not fit</td>", f);
					continue;
				}
				fprintf(f, "<td>%.1f", r->tok);
				if (isfinite(r->lo))
					fprintf(f, " <span class=\"rng\">[%.0f&ndash;%.0f]</span>", r->lo, r->hi);
				if (j && r0)
					fprintf(f, " <b>x%.2f</b>", r->tok / r0->tok);
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
	fputs("</tbody>\n</table></div>\n", f);
	/* why a point does not fit, once per reason */
	if (!(first = first_rows(st, unfit, note_why_cmp)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (j = 0; j < st->nrows; j++) {
		if (!first[j])
			continue;
		fputs("<p class=\"note\">Does not fit (", f);
		esc(f, st->s[st->rows[j].si]->name);
		fprintf(f, ", %s): ", st->rows[j].layout);
		esc(f, st->rows[j].why);
		fputs("</p>\n", f);
	}
	free(first);
	/* a default layout run as replicas filling a larger box, once each */
	if (!(first = first_rows(st, replicated, note_run_cmp)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (j = 0; j < st->nrows; j++) {
		if (!first[j])
			continue;
		fprintf(f, "<p class=\"note\">%s on ", st->rows[j].layout);
		esc(f, st->s[st->rows[j].si]->name);
		fprintf(f, " runs as %s: copies of it fill the box, the load split between "
			   "them.</p>\n", st->rows[j].run);
	}
	free(first);
	return 0;
}

/* Where the step's time goes at load x: a bar per box and layout. */
static int figure_parts(FILE *f, const struct study *st, int xi, struct study_tmp *t,
			struct plumb_err *err)
{
	struct rdr_parts_bar *bars = calloc((size_t)(st->ns * st->nlayouts), sizeof(*bars));
	char title[160], *svg = study_tmp_file(t, "parts.svg", err);
	int j, li, k, n = 0, rc, x = st->xs[xi];
	if (!svg) {
		free(bars);
		return -PLUMB_ERUNTIME;
	}
	if (!bars)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (j = 0; j < st->ns; j++)
		for (li = 0; li < st->nlayouts; li++) {
			const struct prow *p = study_fit(st, j, li, xi);
			if (!p || !isfinite(p->part[0]))
				continue;
			snprintf(bars[n].label, sizeof(bars[n].label), "%s, %s", st->s[j]->name,
				 st->layouts[li]);
			for (k = 0; k < PART_N; k++)
				bars[n].ms[k] = isfinite(p->part[k]) ? p->part[k] : 0;
			n++;
		}
	snprintf(title, sizeof(title), "Where a decode step's time goes at %d %s", x, study_loadname(x));
	rc = n ? rdr_parts(svg, title, bars, n, err) : 0;
	free(bars);
	if (rc < 0 || !n)
		return rc;
	fputs("<figure>\n", f);
	if ((rc = study_inline_svg(f, svg, "parts-", "where the step's time goes", err)) < 0)
		return rc;
	fprintf(f, "<figcaption>One decode step per GPU at %d %s, split into kernel launches and "
		"minimum kernel durations, reading weights and the KV cache, math, each kind of "
		"communication and idle time: the longest part is what a faster box or another "
		"layout has to shorten.</figcaption>\n</figure>\n", x, study_loadname(x));
	return 0;
}

int study_diagnosis(FILE *f, const struct study *st, const char *depends, struct study_tmp *t,
		  struct plumb_err *err)
{
	int j, li, rc;
	int x0 = st->xs[0], x1 = st->xs[st->nx - 1];
	fputs("<h2>Diagnosis</h2>\n<p>Where each step's time goes, from the simulated decode step "
	      "(kernel latency is launch gaps and minimum kernel durations; memory is streaming "
	      "weights and the KV cache).</p>\n<div class=\"wide\"><table>\n<colgroup>"
	      "<col style=\"width:19%\"><col style=\"width:8%\"><col style=\"width:36.5%\">"
	      "<col style=\"width:36.5%\"></colgroup>\n<thead><tr>"
	      "<th class=\"l\">box</th><th class=\"l\">layout</th>", f);
	fprintf(f, "<th class=\"l\">at %d %s</th><th class=\"l\">at %d %s</th></tr></thead>\n<tbody>\n",
		x0, study_loadname(x0), x1, study_loadname(x1));
	for (j = 0; j < st->ns; j++)
		for (li = 0; li < st->nlayouts; li++) {
			const struct prow *a = study_fit(st, j, li, 0),
					  *b = study_fit(st, j, li, st->nx - 1);
			fputs("<tr><td class=\"l\">", f);
			esc(f, st->s[j]->name);
			fprintf(f, "</td><td class=\"l n\">%s</td><td class=\"l\">", st->layouts[li]);
			esc(f, a ? a->diag : "does not fit");
			fputs("</td><td class=\"l\">", f);
			esc(f, b ? b->diag : "does not fit");
			fputs("</td></tr>\n", f);
		}
	fputs("</tbody>\n</table></div>\n", f);
	if ((rc = figure_parts(f, st, st->nx - 1, t, err)) < 0)
		return rc;
	if (depends && *depends) {
		const char *p = depends, *nl;
		fputs("<h3>What the speed-up depends on</h3>\n", f);
		for (; *p; p = nl + (*nl != 0)) {
			char *line;
			size_t n, ind = 0;
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p);
			n = (size_t)(nl - p);
			while (ind < n && p[ind] == ' ')
				ind++;
			if (ind == n)
				continue;
			if (!(line = malloc(n - ind + 1)))
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			memcpy(line, p + ind, n - ind);
			line[n - ind] = 0;
			fprintf(f, "<p class=\"dep d%d\">", ind >= 4 ? 2 : ind >= 2 ? 1 : 0);
			esc(f, line);
			free(line);
			fputs("</p>\n", f);
		}
	}
	return 0;
}

