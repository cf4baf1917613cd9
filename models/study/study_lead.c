/*
 * study_lead.c - the parts of the report a manager reads first and last:
 * the answer in one sentence with its conditions (the same layout on both
 * boxes, and each box at its best, both named), the latency percentiles of
 * each box's best layout at every load against the service-level targets,
 * each box's power and cost per million tokens (models/cost), and the
 * footer that says which plumb made the page, when, and with what command.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "out.h"
#include "step.h"
#include "study_int.h"

static void esc(FILE *f, const char *s)
{
	out_xml(f, s);
}

/* The layout that fits on both boxes at load xi with the most tok/s on box
 * b, the rows of it on a (box 0) and b; 0 when no layout fits both. */
static int same_layout(const struct study *st, int b, int xi, const struct prow **ra,
		       const struct prow **rb)
{
	int li;
	*ra = *rb = NULL;
	for (li = 0; li < st->nlayouts; li++) {
		const struct prow *x = study_fit(st, 0, li, xi), *y = study_fit(st, b, li, xi);
		if (x && y && x->tok > 0 && (!*rb || y->tok > (*rb)->tok)) {
			*ra = x;
			*rb = y;
		}
	}
	return *rb != NULL;
}

/* "at 1 request" / "at 64 requests" */
static void at_load(FILE *f, int x)
{
	fprintf(f, "at %d %s", x, study_loadname(x));
}

/* One box against the first at load xi: "serves x4.20 the tokens/s of A at
 * 1 request with the same layout (tp8 on both); best against best (tp8 vs
 * tp4pp2) it is x2.20". */
static void versus(FILE *f, const struct study *st, int b, int xi, int first)
{
	const struct prow *ra, *rb, *bb = study_best(st, b, xi), *ba = study_best(st, 0, xi);
	if (same_layout(st, b, xi, &ra, &rb)) {
		fprintf(f, "%s<b>x%.2f</b> ", first ? "serves " : "; ", rb->tok / ra->tok);
		if (first) {
			fputs("the tokens/s of <b>", f);
			esc(f, st->s[0]->name);
			fputs("</b> ", f);
		}
		at_load(f, st->xs[xi]);
		fprintf(f, " with the same layout (%s on both)", ra->layout);
	} else {
		fputs(first ? "has no layout that fits both it and " : "; no layout fits both ", f);
		if (first) {
			fputs("<b>", f);
			esc(f, st->s[0]->name);
			fputs("</b> ", f);
		}
		at_load(f, st->xs[xi]);
	}
	if (bb && ba)
		fprintf(f, "; best against best (%s vs %s) it is <b>x%.2f</b>", bb->layout, ba->layout,
			bb->tok / ba->tok);
}

void study_lead(FILE *f, const struct study *st)
{
	json_t *mi = json_object_get(st->doc, "model_info");
	const struct study_opts *o = st->o;
	int j, e;
	fputs("<p class=\"lead\">", f);
	for (j = st->ns > 1 ? 1 : 0; j < st->ns; j++) {
		fputs(j > 1 ? " " : "", f);
		fputs("On ", f);
		esc(f, study_str(mi, "name"));
		fputs(", <b>", f);
		esc(f, st->s[j]->name);
		fputs("</b> ", f);
		for (e = 0; e < (st->nx > 1 ? 2 : 1); e++) {
			int xi = e ? st->nx - 1 : 0;
			if (st->ns > 1) {
				versus(f, st, j, xi, !e);
			} else {
				const struct prow *b = study_best(st, 0, xi);
				fputs(e ? "; " : "serves at best ", f);
				if (b)
					fprintf(f, "<b>%.0f tok/s</b> ", b->tok);
				else
					fputs("nothing ", f);
				at_load(f, st->xs[xi]);
				if (b)
					fprintf(f, " (%s)", b->layout);
			}
		}
		fputs(".", f);
	}
	fputs(" Conditions: each request ", f);
	esc(f, o->input);
	fputs(" prompt and ", f);
	esc(f, o->output);
	fputs(" generated tokens, a closed loop of that many requests at once; tokens/s are "
	      "output tokens of all requests together.</p>\n", f);
}

/* " 812" or an empty cell */
static void ms_cell(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "<td>%.*f</td>", v < 10 ? 2 : v < 100 ? 1 : 0, v);
	else
		fputs("<td>&ndash;</td>", f);
}

/* Whether p meets the targets (1), misses them (0, why in buf). */
static int meets(const struct study_opts *o, const struct prow *p, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	if (o->slo_ttft_p90 > 0 && !(p->ttft_p[1] <= o->slo_ttft_p90))
		k += (size_t)snprintf(buf, n, "TTFT p90 %.0f &gt; %g ms", p->ttft_p[1], o->slo_ttft_p90);
	if (o->slo_tpot_p90 > 0 && !(p->tpot_p[1] <= o->slo_tpot_p90) && k < n)
		snprintf(buf + k, n - k, "%sTPOT p90 %.1f &gt; %g ms", k ? "; " : "", p->tpot_p[1],
			 o->slo_tpot_p90);
	return !buf[0];
}

void study_latency(FILE *f, const struct study *st)
{
	const struct study_opts *o = st->o;
	int slo = o->slo_ttft_p90 > 0 || o->slo_tpot_p90 > 0, j, xi, q, nmeet = 0, nrow = 0;
	fputs("<h2>Latency</h2>\n<p>What one request waits, in milliseconds, on each box at its "
	      "best layout for the load (the one in the answer): time to the first token (TTFT) "
	      "and time per output token after it (TPOT), the median, 90th and 99th percentile "
	      "over the requests of the simulated run (those of <code>plumb predict "
	      "--percentiles</code>).", f);
	if (slo) {
		fputs(" Targets:", f);
		if (o->slo_ttft_p90 > 0)
			fprintf(f, " TTFT p90 at most %g ms", o->slo_ttft_p90);
		if (o->slo_tpot_p90 > 0)
			fprintf(f, "%s TPOT p90 at most %g ms", o->slo_ttft_p90 > 0 ? "," : "",
				o->slo_tpot_p90);
		fputs(".", f);
	}
	fputs("</p>\n<div class=\"wide\"><table class=\"lat\">\n<thead><tr><th class=\"l\" rowspan=\"2\">"
	      "box</th><th rowspan=\"2\">load</th><th class=\"l\" rowspan=\"2\">layout</th>"
	      "<th colspan=\"3\">TTFT, ms</th><th colspan=\"3\">TPOT, ms</th>", f);
	if (slo)
		fputs("<th class=\"l\" rowspan=\"2\">targets</th>", f);
	fputs("</tr>\n<tr><th>p50</th><th>p90</th><th>p99</th><th>p50</th><th>p90</th><th>p99</th>"
	      "</tr></thead>\n<tbody>\n", f);
	for (j = 0; j < st->ns; j++)
		for (xi = 0; xi < st->nx; xi++) {
			const struct prow *b = study_best(st, j, xi);
			fputs("<tr><td class=\"l\">", f);
			esc(f, st->s[j]->name);
			fprintf(f, "</td><td>%d</td>", st->xs[xi]);
			if (!b) {
				fprintf(f, "<td class=\"l\" colspan=\"%d\">no layout fits</td></tr>\n",
					slo ? 8 : 7);
				continue;
			}
			fprintf(f, "<td class=\"l n\">%s</td>", b->layout);
			for (q = 0; q < 3; q++)
				ms_cell(f, b->ttft_p[q]);
			for (q = 0; q < 3; q++)
				ms_cell(f, b->tpot_p[q]);
			if (slo) {
				char why[160];
				int m = meets(o, b, why, sizeof(why));
				nrow++;
				nmeet += m;
				fprintf(f, "<td class=\"l %s\">%s</td>", m ? "ok" : "miss",
					m ? "met" : why);
			}
			fputs("</tr>\n", f);
		}
	fputs("</tbody>\n</table></div>\n", f);
	if (slo)
		fprintf(f, "<p class=\"note\">%d of %d points meet the targets. <code>plumb plan</code> "
			   "searches layouts and engine settings for the cheapest that does.</p>\n",
			nmeet, nrow);
}

void study_money(FILE *f, const struct study *st)
{
	int j, xi;
	fputs("<h2>Power and money</h2>\n<p>Each box at its best layout for the load: the power "
	      "of one GPU used and of the box (the GPUs used, idle ones and the host), the energy "
	      "per output token at the wall, and US dollars per million output tokens (the price "
	      "over the box's life, electricity and colocation rent; docs/model-serving.md \"Power and "
	      "money\").</p>\n<div class=\"wide\"><table>\n<thead><tr><th class=\"l\">box</th>"
	      "<th>load</th><th class=\"l\">layout</th><th>tok/s</th><th>GPU, W</th><th>box, kW</th>"
	      "<th>J/token</th><th>$/Mtok</th></tr></thead>\n<tbody>\n", f);
	for (j = 0; j < st->ns; j++)
		for (xi = 0; xi < st->nx; xi++) {
			const struct prow *b = study_best(st, j, xi);
			struct cost_params cp;
			struct cost_point c;
			struct step_layout l;
			fputs("<tr><td class=\"l\">", f);
			esc(f, st->s[j]->name);
			fprintf(f, "</td><td>%d</td>", st->xs[xi]);
			if (!b || step_layout_parse(b->layout, &l, NULL) < 0) {
				fputs("<td class=\"l\" colspan=\"6\">no layout fits</td></tr>\n", f);
				continue;
			}
			/* compare's figures (from the unrounded row), else predict's
			 * row through the same model */
			cost_params_of(st->s[j], &st->o->cost, &cp);
			cost_point_eval(&cp, step_layout_used(&l), cost_activity(b->part), b->tok, &c);
			if (isfinite(b->gpu_w) || isfinite(b->usd_per_mtok)) {
				c.gpu_w = b->gpu_w;
				c.box_w = b->box_w;
				c.j_per_tok = b->j_per_tok;
				c.usd_per_mtok = b->usd_per_mtok;
			}
			fprintf(f, "<td class=\"l n\">%s</td><td>%.0f</td>", b->layout, b->tok);
			if (isfinite(c.gpu_w))
				fprintf(f, "<td>%.0f</td><td>%.2f</td><td>%.2f</td>", c.gpu_w,
					c.box_w / 1000, c.j_per_tok);
			else
				fputs("<td colspan=\"3\">no power in the GPU catalog</td>", f);
			if (isfinite(c.usd_per_mtok))
				fprintf(f, "<td>%.3f</td>", c.usd_per_mtok);
			else
				fputs("<td>no price</td>", f);
			fputs("</tr>\n", f);
		}
	fputs("</tbody>\n</table></div>\n<ul class=\"note\">\n", f);
	for (j = 0; j < st->ns; j++) {
		struct cost_params cp;
		char t[400];
		cost_params_of(st->s[j], &st->o->cost, &cp);
		cost_params_text(&cp, t, sizeof(t));
		fputs("<li>", f);
		esc(f, st->s[j]->name);
		fputs(": ", f);
		esc(f, t);
		fputs(".</li>\n", f);
	}
	fputs("</ul>\n", f);
}

/* a word of the command line, quoted for a POSIX shell when it needs it */
static void shell_word(FILE *f, const char *w)
{
	const char *p;
	int plain = *w != 0;
	for (p = w; *p && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			       "@%_+=:,./-", *p) != NULL;
	if (plain) {
		esc(f, w);
		return;
	}
	fputc('\'', f);
	for (p = w; *p; p++) {
		char one[2] = { *p, 0 };
		if (*p == '\'')
			fputs("'\\''", f);
		else
			esc(f, one);
	}
	fputc('\'', f);
}

void study_footer(FILE *f, const struct study_opts *o)
{
	time_t when = (time_t)o->when;
	struct tm tm;
	char date[40];
	int i;
	if (gmtime_r(&when, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	else
		snprintf(date, sizeof(date), "%lld seconds after 1970", (long long)o->when);
	fputs("<footer class=\"note\"><p>Written by ", f);
	esc(f, o->version);
	fprintf(f, " on %s with <code class=\"cmd\">plumb", date);
	for (i = 0; i < o->argc; i++) {
		fputc(' ', f);
		shell_word(f, o->argv[i]);
	}
	fputs("</code>. The same inputs give the same page (the date is "
	      "<code>SOURCE_DATE_EPOCH</code> when it is set).</p></footer>\n", f);
}
