/*
 * cmd_report.c - `plumb report`: one self-contained HTML page about a
 * migration or purchase decision, for someone who will never run plumb.
 *
 * The numbers are those of `plumb compare` (or `plumb predict` for one
 * box): the command runs into a temporary directory with --format json
 * (every row, its interval, its diagnosis) and, for several boxes, as a
 * table (the "what the speed-up depends on" lines); `plumb topo` gives
 * each box's findings. The page holds the answer with its range, the
 * throughput chart and each box's topology as inline SVG (Cairo's SVG
 * surface; glyphs are paths, so no font or network is needed), the
 * tables, the diagnosis, the assumptions and the calibration used. It is
 * written through io/out.h (atomically); the same inputs give the same
 * bytes. The temporary directory is removed on every path.
 */
#include <assert.h>
#include <jansson.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "calib.h"
#include "cmd.h"
#include "datadir.h"
#include "out.h"
#include "render.h"

const char cmd_report_usage[] =
	"usage: plumb report [SCENARIO...] -o FILE.html [options]\n"
	"\n"
	"Write one self-contained HTML page about the boxes: the answer (what the\n"
	"best layout of each box gains over the first box's best, at the lowest and\n"
	"highest load, with 90% ranges), the throughput chart, the tok/s table with\n"
	"speed-ups, the diagnosis of every layout, what the speed-up depends on, each\n"
	"box's topology picture and findings, the assumptions and the calibration\n"
	"used. Figures are inline SVG; the page needs no network and no plumb to\n"
	"open. The numbers are those of `plumb compare` (`plumb predict` for one\n"
	"box). Without SCENARIO: the seed comparison of bare `plumb` (the Proxmox\n"
	"VM, bare metal and the switch chassis; layouts tp8,tp4pp2,ep8).\n"
	"\n"
	"Options:\n"
	"  -o FILE                the page (.html or .htm; required; written\n"
	"                         atomically)\n"
	"  --draws N              Monte Carlo draws of the 90% ranges (default 32; 0:\n"
	"                         none). With --calib FILE, from the calibration's\n"
	"                         covariance and residual spread; without, from the\n"
	"                         step constants the scenarios leave open, over their\n"
	"                         plausible ranges or the GPU catalog's measured spreads\n"
	"  --model M, --weights W, --kv DTYPE, --layout L,..., --concurrency C,...,\n"
	"  --input N, --output N, --context N, --microbatches M, --mtp D, --accept A,\n"
	"  --eager, --nccl-p2p-level L, --engine E[@V]\n"
	"                         as for `plumb predict`\n"
	"  -h, --help             this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input (a scenario, a model that does\n"
	"not fit anywhere), 4 I/O error, 5 runtime error.\n"
	"Example: plumb report -o study.html\n"
	"         plumb report scenarios/proxmox-vm-8x-rtxpro6000.yaml \\\n"
	"             scenarios/baremetal-8x-rtxpro6000.yaml --layout tp8,ep8 -o vm-vs-bm.html\n";

#define MAXSCN 8
#define MAXPASS 40
#define MAXROWS 2048

struct ropts {
	const char *out;
	char *paths[MAXSCN];
	char seed[3][4096];             /* the seed scenarios' paths */
	int npaths;
	char *pass[MAXPASS];            /* options handed on to compare / predict */
	int npass;
	int draws_given, layout_given;
	const char *input, *output, *context;
	const char *engine;             /* --engine, NULL: each scenario's */
};

/* Options of `plumb predict` the report hands on: with a value, then the
 * flag (the last). Handed on as "--name value". */
static char pass_names[][20] = {
	"--model", "--weights", "--kv", "--layout", "--concurrency", "--input", "--output",
	"--context", "--microbatches", "--mtp", "--accept", "--nccl-p2p-level", "--draws", "--engine",
	"--eager"
};
#define NPASS_VALUE 14          /* the first 14 take a value */

static const struct option longopts[] = {
	{ "model", required_argument, NULL, 0x100 + 0 },
	{ "weights", required_argument, NULL, 0x100 + 1 },
	{ "kv", required_argument, NULL, 0x100 + 2 },
	{ "layout", required_argument, NULL, 0x100 + 3 },
	{ "concurrency", required_argument, NULL, 0x100 + 4 },
	{ "input", required_argument, NULL, 0x100 + 5 },
	{ "output", required_argument, NULL, 0x100 + 6 },
	{ "context", required_argument, NULL, 0x100 + 7 },
	{ "microbatches", required_argument, NULL, 0x100 + 8 },
	{ "mtp", required_argument, NULL, 0x100 + 9 },
	{ "accept", required_argument, NULL, 0x100 + 10 },
	{ "nccl-p2p-level", required_argument, NULL, 0x100 + 11 },
	{ "draws", required_argument, NULL, 0x100 + 12 },
	{ "engine", required_argument, NULL, 0x100 + 13 },
	{ "eager", no_argument, NULL, 0x100 + 14 },
	{ NULL, 0, NULL, 0 }
};

static int html_name(const char *p)
{
	const char *dot = strrchr(p, '.');
	return dot && !strchr(dot, '/') && (!strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm"));
}

static char opt_layout[] = "--layout", seed_layouts[] = "tp8,tp4pp2,ep8";

static int parse(int argc, char **argv, struct ropts *o)
{
	static const char *cmd = "report";
	int i, opt;
	memset(o, 0, sizeof(*o));
	o->input = o->output = "1024";
	o->context = "0";
	cmd_getopt_start();
	while ((opt = cmd_getopt(cmd, argc, argv, "o:", longopts)) != -1) {
		int k = opt - 0x100;
		if (opt < 0)
			return -opt;
		if (opt == 'o') {
			o->out = optarg;
			continue;
		}
		if (k < 0 || k > NPASS_VALUE)
			return PLUMB_EUSAGE;
		if (o->npass + 2 > MAXPASS)
			return cmd_usage_error(cmd, "too many options");
		o->pass[o->npass++] = pass_names[k];
		if (k == NPASS_VALUE)
			continue;       /* --eager */
		o->pass[o->npass++] = optarg;
		o->draws_given |= k == 12;
		o->layout_given |= k == 3;
		if (k == 5)
			o->input = optarg;
		else if (k == 6)
			o->output = optarg;
		else if (k == 7)
			o->context = optarg;
		else if (k == 13)
			o->engine = optarg;
	}
	for (i = optind; i < argc; i++) {
		if (o->npaths >= MAXSCN)
			return cmd_usage_error(cmd, "at most %d scenarios", MAXSCN);
		o->paths[o->npaths++] = argv[i];
	}
	if (!o->out)
		return cmd_usage_error(cmd, "missing -o FILE.html");
	if (!html_name(o->out))
		return cmd_usage_error(cmd, "the report is an HTML page: -o needs a .html or .htm "
					    "file, not '%s'", o->out);
	if (!o->npaths) {
		static const char *const seed[3] = {
			"scenarios/proxmox-vm-8x-rtxpro6000.yaml",
			"scenarios/baremetal-8x-rtxpro6000.yaml", "scenarios/switch-8x-rtxpro6000.yaml"
		};
		for (i = 0; i < 3; i++) {
			plumb_data_path(seed[i], o->seed[i], sizeof(o->seed[i]));
			o->paths[o->npaths++] = o->seed[i];
		}
		if (!o->layout_given) {
			o->pass[o->npass++] = opt_layout;
			o->pass[o->npass++] = seed_layouts;
		}
	}
	return 0;
}

/* ---- the temporary directory ------------------------------------------- */

#define MAXTMP (5 + 3 * MAXSCN)

struct tmpdir {
	char dir[512];
	char files[MAXTMP][600];
	int nfiles;
};

static int tmp_open(struct tmpdir *t, struct plumb_err *err)
{
	const char *base = getenv("TMPDIR");
	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%s/plumb-report.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(t->dir))
		return plumb_err_set(err, PLUMB_EIO, t->dir, 0, 0,
				     "cannot create a temporary directory for the report's parts");
	out_tmp_add(t->dir, 1);    /* removed by a signal too (io/out.h) */
	return 0;
}

/* A new file name in the directory (remembered for tmp_close). */
static char *tmp_file(struct tmpdir *t, const char *name)
{
	char buf[sizeof(t->files[0])];
	assert(t->nfiles < MAXTMP);
	snprintf(buf, sizeof(buf), "%s/%s", t->dir, name);
	memcpy(t->files[t->nfiles], buf, sizeof(buf));
	out_tmp_add(t->files[t->nfiles], 0);
	return t->files[t->nfiles++];
}

static void tmp_close(struct tmpdir *t)
{
	int i;
	if (!t->dir[0])
		return;
	for (i = t->nfiles - 1; i >= 0; i--) {
		unlink(t->files[i]);
		out_tmp_forget(t->files[i]);
	}
	rmdir(t->dir);
	out_tmp_forget(t->dir);
	t->dir[0] = 0;
}

/* Whole file as a new NUL-terminated string (caller frees), NULL on error. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;
	if (!f)
		return NULL;
	do {
		if (n + 65536 + 1 > cap) {
			char *nb;
			cap = (n + 65536 + 1) * 2;
			if (!(nb = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* ---- running the commands ---------------------------------------------- */

/* Run compare (several boxes) or predict (one) into path with format fmt;
 * extra options appended last. Returns the command's exit status. */
static int run_pred(const struct ropts *o, char *fmt, char *path, char **extra, int nextra)
{
	static char compare[] = "compare", predict[] = "predict", format[] = "--format",
		    dash_o[] = "-o";
	char *argv[MAXSCN + MAXPASS + 16];
	int argc = 0, i;
	argv[argc++] = o->npaths > 1 ? compare : predict;
	for (i = 0; i < o->npaths; i++)
		argv[argc++] = o->paths[i];
	for (i = 0; i < o->npass; i++)
		argv[argc++] = o->pass[i];
	for (i = 0; i < nextra; i++)
		argv[argc++] = extra[i];
	argv[argc++] = format;
	argv[argc++] = fmt;
	argv[argc++] = dash_o;
	argv[argc++] = path;
	argv[argc] = NULL;
	return o->npaths > 1 ? cmd_compare(argc, argv) : cmd_predict(argc, argv);
}

/* ---- rows -------------------------------------------------------------- */

struct prow {
	int si, fits, x;
	const char *layout, *diag, *why;        /* borrowed from the JSON document */
	const char *run;                        /* layout_run: what ran, "" the layout */
	double tok, lo, hi, stream, tpot, ttft, comm, busy;
	double part[PART_N];                    /* the step's parts, ms per GPU */
	json_t *draws;                          /* tok_s_draws (borrowed), or NULL */
};

struct study {
	json_t *doc;
	struct prow rows[MAXROWS];
	int nrows;
	const char *layouts[32];
	int nlayouts;
	int xs[64], nx;
	int interval;                           /* some row has a range */
	struct scenario *s[MAXSCN];
	char **paths;                           /* their files (the options') */
	int ns;
};

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : "";
}

static int read_rows(struct study *st, const char *path, struct plumb_err *err)
{
	json_error_t je;
	json_t *rows;
	size_t i;
	if (!(st->doc = json_load_file(path, 0, &je)) ||
	    !json_is_array(rows = json_object_get(st->doc, "rows")))
		return plumb_err_set(err, PLUMB_ERUNTIME, path, 0, 0,
				     "the prediction's rows cannot be read back: %s", je.text);
	for (i = 0; i < json_array_size(rows) && st->nrows < MAXROWS; i++) {
		json_t *r = json_array_get(rows, i);
		struct prow *p = &st->rows[st->nrows];
		int k;
		p->si = (int)(i % (size_t)st->ns);     /* rows go layout, load, box */
		p->layout = str(r, "layout");
		p->x = (int)num(r, "concurrency");
		p->fits = json_is_true(json_object_get(r, "fits"));
		p->tok = num(r, "tok_s_total");
		p->lo = num(r, "tok_s_total_p5");
		p->hi = num(r, "tok_s_total_p95");
		p->stream = num(r, "tok_s_per_stream");
		p->tpot = num(r, "tpot_ms");
		p->ttft = num(r, "ttft_ms");
		p->comm = num(r, "comm_frac");
		p->busy = num(r, "busy_frac");
		p->diag = str(r, "diagnosis");
		for (k = 0; k < PART_N; k++)
			p->part[k] = num(json_object_get(r, "breakdown_ms"),
					 pred_part_name((enum pred_part)k));
		p->why = str(r, "why");
		p->run = str(r, "layout_run");
		p->draws = json_object_get(r, "tok_s_draws");
		if (!json_is_array(p->draws))
			p->draws = NULL;
		st->interval |= p->fits && isfinite(p->lo);
		for (k = 0; k < st->nlayouts && strcmp(st->layouts[k], p->layout); k++)
			;
		if (k == st->nlayouts && k < 32)
			st->layouts[st->nlayouts++] = p->layout;
		for (k = 0; k < st->nx && st->xs[k] != p->x; k++)
			;
		if (k == st->nx && k < 64)
			st->xs[st->nx++] = p->x;
		st->nrows++;
	}
	return 0;
}

/* The row of box si, layout lay at load x; NULL if none or it does not fit. */
static const struct prow *row_at(const struct study *st, int si, const char *lay, int x)
{
	int i;
	for (i = 0; i < st->nrows; i++) {
		const struct prow *p = &st->rows[i];
		if (p->si == si && p->x == x && !strcmp(p->layout, lay))
			return p->fits ? p : NULL;
	}
	return NULL;
}

/* 1 when box si has no room for layout lay at load x (its row is n/a). */
static int na_at(const struct study *st, int si, const char *lay, int x)
{
	int i;
	for (i = 0; i < st->nrows; i++) {
		const struct prow *p = &st->rows[i];
		if (p->si == si && p->x == x && !strcmp(p->layout, lay))
			return !p->fits && !strncmp(p->why, "n/a", 3);
	}
	return 0;
}

/* The fastest row of box si at load x, NULL if nothing fits. */
static const struct prow *best_at(const struct study *st, int si, int x)
{
	const struct prow *b = NULL;
	int i;
	for (i = 0; i < st->nrows; i++) {
		const struct prow *p = &st->rows[i];
		if (p->si == si && p->x == x && p->fits && (!b || p->tok > b->tok))
			b = p;
	}
	return b;
}

/* ---- HTML -------------------------------------------------------------- */

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
static void speedup_range(FILE *f, const struct prow *b, const struct prow *a)
{
	double v[1024], lo, hi;
	size_t d, n = b->draws && a->draws ? json_array_size(b->draws) : 0;
	int k = 0;
	if (!n || n != json_array_size(a->draws) || n > 1024)
		return;
	for (d = 0; d < n; d++) {
		json_t *x = json_array_get(b->draws, d), *y = json_array_get(a->draws, d);
		if (json_is_number(x) && json_is_number(y) && json_number_value(y) > 0)
			v[k++] = json_number_value(x) / json_number_value(y);
	}
	cmd_draws_interval(v, k, &lo, &hi);
	if (isfinite(lo))
		fprintf(f, " (90%%: x%.2f&ndash;%.2f)", lo, hi);
}

static const char *loadname(int x)
{
	return x == 1 ? "request" : "requests";
}

static void answer(FILE *f, const struct study *st)
{
	int j, e;
	fputs("<section class=\"answer\">\n<h2>The answer</h2>\n<ul>\n", f);
	for (e = 0; e < 2; e++) {
		int x = e ? st->xs[st->nx - 1] : st->xs[0];
		const struct prow *b0 = best_at(st, 0, x);
		if (st->ns == 1) {
			if (!b0)
				continue;
			fprintf(f, "<li>At %d %s the best layout on <b>", x, loadname(x));
			esc(f, st->s[0]->name);
			fprintf(f, "</b> is %s: ", b0->layout);
			tok_range(f, b0);
			fputs(".</li>\n", f);
			continue;
		}
		for (j = 1; j < st->ns; j++) {
			const struct prow *b = best_at(st, j, x);
			if (!b || !b0)
				continue;
			fprintf(f, "<li>At %d %s: <b>", x, loadname(x));
			esc(f, st->s[j]->name);
			fprintf(f, "</b> with %s gives ", b->layout);
			tok_range(f, b);
			fputs(" against ", f);
			esc(f, st->s[0]->name);
			fprintf(f, " with %s, ", b0->layout);
			tok_range(f, b0);
			fprintf(f, ": <b>x%.2f</b>", b->tok / b0->tok);
			speedup_range(f, b, b0);
			fputs(".</li>\n", f);
		}
	}
	fputs("</ul>\n<p class=\"note\">Each box at its own best layout. ", f);
	if (st->interval)
		fprintf(f, "The ranges are 90%% intervals of each box's tok/s and of the speed-up, "
			   "the latter taken draw by draw with the same constants drawn for both "
			   "boxes: %s.",
			cmd_calib() ? "constants drawn from the calibration's covariance, times its "
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
static int inline_svg(FILE *f, const char *path, const char *pre, const char *label,
		      struct plumb_err *err)
{
	char *svg = slurp(path, NULL), *p;
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

static int figure_tput(FILE *f, struct study *st, const char *path, struct plumb_err *err)
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
		int li;
		struct rdr_series *r;
		for (li = 0; strcmp(st->layouts[li], p->layout); li++)
			;
		r = &ser[p->si * st->nlayouts + li];
		if (r->n >= RDR_MAX_PTS)
			continue;
		r->x[r->n] = p->x;
		r->y[r->n] = p->fits ? p->tok : NAN;
		r->lo[r->n] = p->fits && isfinite(p->lo) ? p->lo : 0;
		r->hi[r->n] = p->fits && isfinite(p->hi) ? p->hi : 0;
		r->n++;
	}
	snprintf(title, sizeof(title), "%s %s: total tok/s against concurrency",
		 str(json_object_get(st->doc, "model_info"), "name"), str(st->doc, "weights"));
	rc = rdr_throughput(path, title, "concurrent requests (closed loop)", ser,
			    st->ns * st->nlayouts, err);
	free(ser);
	if (rc < 0)
		return rc;
	fputs("<figure>\n", f);
	if ((rc = inline_svg(f, path, "tput-", "total tok/s against concurrency", err)) < 0)
		return rc;
	fputs("<figcaption>Total output tok/s against concurrent requests, a line per box and "
	      "layout; both axes are logarithmic, so equal distances are equal ratios. The numbers "
	      "beside the lines and in the legend are speed-ups over the first box with the same "
	      "layout.", f);
	if (st->interval)
		fputs(" Shaded: the 90% range.", f);
	fputs("</figcaption>\n</figure>\n", f);
	return 0;
}

static void table(FILE *f, const struct study *st)
{
	int li, xi, j;
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
			const struct prow *r0 = row_at(st, 0, st->layouts[li], st->xs[xi]);
			fprintf(f, "<tr><td class=\"l n\">%s</td><td>%d</td>", st->layouts[li], st->xs[xi]);
			for (j = 0; j < st->ns; j++) {
				const struct prow *r = row_at(st, j, st->layouts[li], st->xs[xi]);
				if (!r) {
					/* n/a: the box is too small for the layout */
					fputs(na_at(st, j, st->layouts[li], st->xs[xi]) ? "<td>n/a</td>"
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
	for (j = 0; j < st->nrows; j++) {
		int k;
		if (st->rows[j].fits)
			continue;
		for (k = 0; k < j && (st->rows[k].fits || strcmp(st->rows[k].why, st->rows[j].why)); k++)
			;
		if (k < j)
			continue;
		fputs("<p class=\"note\">Does not fit (", f);
		esc(f, st->s[st->rows[j].si]->name);
		fprintf(f, ", %s): ", st->rows[j].layout);
		esc(f, st->rows[j].why);
		fputs("</p>\n", f);
	}
	/* a default layout run as replicas filling a larger box, once each */
	for (j = 0; j < st->nrows; j++) {
		int k;
		if (!st->rows[j].run[0])
			continue;
		for (k = 0; k < j && (strcmp(st->rows[k].run, st->rows[j].run) ||
				      st->rows[k].si != st->rows[j].si); k++)
			;
		if (k < j)
			continue;
		fprintf(f, "<p class=\"note\">%s on ", st->rows[j].layout);
		esc(f, st->s[st->rows[j].si]->name);
		fprintf(f, " runs as %s: copies of it fill the box, the load split between "
			   "them.</p>\n", st->rows[j].run);
	}
}

/* Where the step's time goes at load x: a bar per box and layout. */
static int figure_parts(FILE *f, const struct study *st, int x, struct tmpdir *t,
			struct plumb_err *err)
{
	struct rdr_parts_bar *bars = calloc((size_t)(st->ns * st->nlayouts), sizeof(*bars));
	char title[160], *svg = tmp_file(t, "parts.svg");
	int j, li, k, n = 0, rc;
	if (!bars)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (j = 0; j < st->ns; j++)
		for (li = 0; li < st->nlayouts; li++) {
			const struct prow *p = row_at(st, j, st->layouts[li], x);
			if (!p || !isfinite(p->part[0]))
				continue;
			snprintf(bars[n].label, sizeof(bars[n].label), "%s, %s", st->s[j]->name,
				 st->layouts[li]);
			for (k = 0; k < PART_N; k++)
				bars[n].ms[k] = isfinite(p->part[k]) ? p->part[k] : 0;
			n++;
		}
	snprintf(title, sizeof(title), "Where a decode step's time goes at %d %s", x, loadname(x));
	rc = n ? rdr_parts(svg, title, bars, n, err) : 0;
	free(bars);
	if (rc < 0 || !n)
		return rc;
	fputs("<figure>\n", f);
	if ((rc = inline_svg(f, svg, "parts-", "where the step's time goes", err)) < 0)
		return rc;
	fprintf(f, "<figcaption>One decode step per GPU at %d %s, split into kernel launches and "
		"minimum kernel durations, reading weights and the KV cache, math, each kind of "
		"communication and idle time: the longest part is what a faster box or another "
		"layout has to shorten.</figcaption>\n</figure>\n", x, loadname(x));
	return 0;
}

static int diagnosis(FILE *f, const struct study *st, const char *depends, struct tmpdir *t,
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
		x0, loadname(x0), x1, loadname(x1));
	for (j = 0; j < st->ns; j++)
		for (li = 0; li < st->nlayouts; li++) {
			const struct prow *a = row_at(st, j, st->layouts[li], x0),
					  *b = row_at(st, j, st->layouts[li], x1);
			fputs("<tr><td class=\"l\">", f);
			esc(f, st->s[j]->name);
			fprintf(f, "</td><td class=\"l n\">%s</td><td class=\"l\">", st->layouts[li]);
			esc(f, a ? a->diag : "does not fit");
			fputs("</td><td class=\"l\">", f);
			esc(f, b ? b->diag : "does not fit");
			fputs("</td></tr>\n", f);
		}
	fputs("</tbody>\n</table></div>\n", f);
	if ((rc = figure_parts(f, st, x1, t, err)) < 0)
		return rc;
	if (depends && *depends) {
		const char *p = depends, *nl;
		fputs("<h3>What the speed-up depends on</h3>\n", f);
		for (; *p; p = nl + (*nl != 0)) {
			char line[4096];
			size_t n, ind = 0;
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p);
			n = (size_t)(nl - p);
			snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), p);
			while (line[ind] == ' ')
				ind++;
			if (!line[ind])
				continue;
			fprintf(f, "<p class=\"dep d%d\">", ind >= 4 ? 2 : ind >= 2 ? 1 : 0);
			esc(f, line + ind);
			fputs("</p>\n", f);
		}
	}
	return 0;
}

/* "PCIe VM, q35 ..." as plumb topo says it. */
static const char *platform(const struct scenario *s)
{
	if (s->vm.mode != SCN_VM)
		return "bare metal";
	if (s->vm.chipset == SCN_Q35)
		return s->vm.pcie_passthrough ? "VM, q35 with PCIe passthrough" : "VM, q35 without pcie=1";
	return "VM, i440fx";
}

static int boxes(FILE *f, struct study *st, struct tmpdir *t, struct plumb_err *err)
{
	int j, rc;
	fputs("<h2>The boxes</h2>\n", f);
	for (j = 0; j < st->ns; j++) {
		const struct scenario *s = st->s[j];
		struct rdr_topo_opts to;
		static char topo[] = "topo", dash_o[] = "-o";
		char name[32], pre[16], *txt, *p, *end, *svg, *tf, *argv[5];
		int v;
		fputs("<h3>", f);
		esc(f, s->name);
		fprintf(f, "</h3>\n<p>%d GPU%s (", s->ngpus, s->ngpus == 1 ? "" : "s");
		esc(f, s->ngpus ? s->nodes[s->gpu_node[0]].model : "");
		fprintf(f, "), %s; file <code>", platform(s));
		esc(f, s->path);
		fputs("</code>.", f);
		if (s->description[0]) {
			fputc(' ', f);
			esc(f, s->description);
		}
		fputs("</p>\n", f);
		snprintf(name, sizeof(name), "topo-%d.txt", j);
		tf = tmp_file(t, name);
		argv[0] = topo;
		argv[1] = st->paths[j];
		argv[2] = dash_o;
		argv[3] = tf;
		argv[4] = NULL;
		if ((rc = cmd_topo(4, argv)) != 0)
			return plumb_err_set(err, rc, s->path, 0, 0, "the topology report failed "
					     "(its error is above)") ;
		if (!(txt = slurp(tf, NULL)))
			return plumb_err_set(err, PLUMB_EIO, tf, 0, 0, "cannot read the topology report back");
		if ((p = strstr(txt, "== Findings ==\n"))) {
			p += strlen("== Findings ==\n");
			fputs("<ul class=\"find\">\n", f);
			while (*p) {
				int more;
				end = strchr(p, '\n');
				if (!end)
					end = p + strlen(p);
				more = *end != 0;
				*end = 0;
				if (!strncmp(p, "- ", 2)) {
					fputs("<li>", f);
					esc(f, p + 2);
					fputs("</li>\n", f);
				}
				p = end + more;
			}
			fputs("</ul>\n", f);
		}
		free(txt);
		/* a VM: the host's tree and the guest's, each at the page's width */
		for (v = 0; v < (s->vm.mode == SCN_VM ? 2 : 1); v++) {
			snprintf(name, sizeof(name), "topo-%d-%d.svg", j, v);
			svg = tmp_file(t, name);
			rdr_topo_opts_init(&to);
			to.view = s->vm.mode != SCN_VM ? RDR_VIEW_DEFAULT : v ? RDR_VIEW_GUEST : RDR_VIEW_HOST;
			if (s->ngpus > 1) {
				/* the farthest pair's route, with what it costs */
				to.path_a = 0;
				to.path_b = s->ngpus - 1;
			}
			if ((rc = rdr_topology(svg, s, &to, err)) < 0)
				return rc;
			snprintf(pre, sizeof(pre), "topo%d%d-", j, v);
			fputs("<figure>\n", f);
			if ((rc = inline_svg(f, svg, pre, v ? "PCIe topology, the guest's view" :
					     "PCIe topology", err)) < 0)
				return rc;
			fputs("<figcaption>", f);
			if (s->ngpus > 1)
				fprintf(f, "Highlighted: a transfer from GPU0 to GPU%d, the way it goes "
					"and what it costs. ", s->ngpus - 1);
			if (s->vm.mode != SCN_VM)
				fputs("The PCIe tree on bare metal: sockets, root complexes, switches and GPUs "
				      "with each link's generation and width; dashed outlines are IOMMU "
				      "groups.", f);
			else if (!v)
				fputs("The physical machine under the VM: sockets, root complexes and GPUs "
				      "with each link's generation and width; dashed outlines are IOMMU "
				      "groups.", f);
			else
				fputs("What the VM shows its GPUs: the tree the hypervisor builds. NCCL and "
				      "nvidia-smi in the guest see only this.", f);
			fputs("</figcaption>\n</figure>\n", f);
		}
	}
	return 0;
}

static void assumptions(FILE *f, const struct study *st, const struct ropts *o)
{
	json_t *mi = json_object_get(st->doc, "model_info");
	int j, i, xi;
	fputs("<h2>Assumptions</h2>\n<ul>\n<li>Model: ", f);
	esc(f, str(mi, "name"));
	fprintf(f, ", %.0fB parameters (%.0fB active per token), %s weights, %s KV cache.</li>\n",
		num(mi, "params_total") / 1e9, num(mi, "params_active") / 1e9,
		str(st->doc, "weights"), str(st->doc, "kv"));
	fputs("<li>Load: closed loop of ", f);
	for (xi = 0; xi < st->nx; xi++)
		fprintf(f, "%s%d", xi ? ", " : "", st->xs[xi]);
	fputs(" concurrent requests, each ", f);
	esc(f, o->input);
	fputs(" prompt tokens and ", f);
	esc(f, o->output);
	fputs(" generated tokens, ", f);
	esc(f, o->context);
	fputs(" of them already cached; layouts ", f);
	for (i = 0; i < st->nlayouts; i++)
		fprintf(f, "%s%s", i ? ", " : "", st->layouts[i]);
	fputs(".</li>\n", f);
	if (o->npass) {
		fputs("<li>Options: <code>", f);
		for (i = 0; i < o->npass; i++) {
			if (i)
				fputc(' ', f);
			esc(f, o->pass[i]);
		}
		fputs("</code>.</li>\n", f);
	}
	for (j = 0; j < st->ns; j++) {
		const struct scenario *s = st->s[j];
		int nset = 0;
		fputs("<li>", f);
		esc(f, s->name);
		{
			/* the stack the prediction assumed (predict's JSON), else
			 * the scenario's own section */
			json_t *es = json_array_get(json_object_get(st->doc, "engine_stacks"),
						    (size_t)j);
			if (json_is_string(es)) {
				fputs(": engine ", f);
				esc(f, json_string_value(es));
			} else {
				fprintf(f, ": engine %s, CUDA graphs %s",
					scn_engine_name(s->serving.engine),
					s->serving.cuda_graphs ? "on" : "off");
			}
		}
		if (s->nccl_level >= 0)
			fprintf(f, ", NCCL_P2P_LEVEL=%s", topo_nccl_path_str(s->nccl_level));
		if (s->serving.mtp_draft > 0)
			fprintf(f, ", %d MTP draft token%s", s->serving.mtp_draft,
				s->serving.mtp_draft == 1 ? "" : "s");
		fputs("; constants set (the rest are the defaults of <code>plumb constants</code>): ", f);
		for (i = 0; i < K_NCONSTS; i++)
			if (s->k.set[i]) {
				fprintf(f, "%s<code>%s</code> = %g %s", nset++ ? ", " : "",
					plumb_const_defs[i].name, s->k.v[i], plumb_const_defs[i].unit);
			}
		if (!nset)
			fputs("none", f);
		fputs(".</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void calibration(FILE *f, const struct study *st, const struct ropts *o)
{
	const struct calib_file *c = cmd_calib();
	int i;
	fputs("<h2>Calibration</h2>\n", f);
	if (!c) {
		fputs("<p>None: every constant a scenario does not set has its documented default "
		      "(<code>plumb constants</code> lists each with its source).", f);
		if (st->interval)
			fputs(" The ranges come from drawing the step constants left at their defaults "
			      "over their plausible ranges; a calibration to your own measurements "
			      "(<code>plumb calibrate</code>, then <code>--calib FILE</code>) narrows "
			      "them.", f);
		fputs("</p>\n", f);
		return;
	}
	fputs("<p>Constants fitted by <code>plumb calibrate</code>, file <code>", f);
	esc(f, c->path);
	fputs("</code>", f);
	if (c->npoints)
		fprintf(f, ", on %d measured points", c->npoints);
	if (c->nscn) {
		fputs(" of ", f);
		for (i = 0; i < c->nscn; i++) {
			fputs(i ? ", " : "", f);
			esc(f, c->scn[i].name);
		}
	}
	if (c->sd > 0)
		fprintf(f, "; residual spread %.1f%%", 100 * c->sd);
	fputs(".</p>\n<div class=\"wide\"><table>\n<thead><tr><th class=\"l\">constant</th>"
	      "<th>value</th><th class=\"l\">unit</th><th class=\"l\">for</th></tr></thead>\n<tbody>\n",
	      f);
	for (i = 0; i < c->n; i++) {
		const struct plumb_const_def *d = &plumb_const_defs[c->idx[i]];
		fprintf(f, "<tr><td class=\"l\"><code>%s</code></td><td>%g</td><td class=\"l\">%s</td>"
			"<td class=\"l\">", d->name, c->value[i], d->unit);
		esc(f, c->grp[i] < 0 ? "every box" : c->scn[c->grp[i]].name);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n", f);
	(void)o;
}

static const char css[] =
	"body{font-family:\"DejaVu Sans\",Verdana,sans-serif;max-width:1100px;margin:0 auto;"
	"padding:12px 24px;color:#222;line-height:1.45}\n"
	"h1{font-size:1.55em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:1px solid #ccc;"
	"padding-bottom:3px;margin-top:1.8em}h3{font-size:1.05em}\n"
	"figure{margin:1em 0}figure svg{display:block;width:100%;height:auto}"
	"figcaption{font-size:.9em;color:#444}\n"
	".wide{max-width:100%}table{border-collapse:collapse;font-size:.85em;width:100%}"
	"th,td{border:1px solid #ddd;padding:3px 6px;text-align:right;vertical-align:top;"
	"overflow-wrap:anywhere}th{background:#f2f2f2}.l{text-align:left}.n{white-space:nowrap}\n"
	".answer{background:#f4f8fd;border-left:4px solid #1f77b4;padding:2px 16px 8px}"
	".answer h2{border:0;margin-top:.6em}\n"
	".note{color:#555;font-size:.9em}.rng{color:#666}code{overflow-wrap:anywhere}"
	"p,li{overflow-wrap:anywhere}\n"
	".dep{margin:.2em 0}.d1{margin-left:1.5em}.d2{margin-left:3em;color:#444}\n";

static int write_page(const struct ropts *o, struct study *st, const char *depends,
		      struct tmpdir *t, struct plumb_err *err)
{
	struct outfile out;
	char *svg = tmp_file(t, "throughput.svg");
	json_t *mi = json_object_get(st->doc, "model_info");
	int j, rc;
	FILE *f;

	if ((rc = out_open(&out, o->out, err)) < 0)
		return rc;
	f = out.f;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	esc(f, str(mi, "name"));
	fputs(": ", f);
	for (j = 0; j < st->ns; j++) {
		fputs(j ? (j + 1 == st->ns ? " and " : ", ") : "", f);
		esc(f, st->s[j]->name);
	}
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	esc(f, str(mi, "name"));
	fputs(st->ns > 1 ? " on " : " on ", f);
	for (j = 0; j < st->ns; j++) {
		fputs(j ? (j + 1 == st->ns ? " and " : ", ") : "", f);
		esc(f, st->s[j]->name);
	}
	fputs("</h1>\n<p class=\"note\">Predicted decode throughput from a simulation of the "
	      "boxes' PCIe, NVLink, NUMA and virtualisation plumbing (plumb). Every number below is "
	      "a prediction, not a measurement.</p>\n", f);
	answer(f, st);
	if ((rc = figure_tput(f, st, svg, err)) < 0)
		goto fail;
	table(f, st);
	if ((rc = diagnosis(f, st, depends, t, err)) < 0)
		goto fail;
	if ((rc = boxes(f, st, t, err)) < 0)
		goto fail;
	assumptions(f, st, o);
	calibration(f, st, o);
	fputs("<p class=\"note\">Written by <code>plumb report</code>; the same inputs give the "
	      "same page.</p>\n</body>\n</html>\n", f);
	return out_commit(&out, err);
fail:
	out_abort(&out);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct ropts o;
	struct plumb_err err;
	struct tmpdir t;
	struct study *st = NULL;
	static char opt_draws[] = "--draws", json[] = "json", tab[] = "table", zero[] = "0",
		    breakdown[] = "--breakdown";
	char *table_txt = NULL, *jpath, *tpath, draws[16], *extra[3];
	const char *depends = NULL;
	int rc, i, status = 0;

	if ((rc = parse(argc, argv, &o)) != 0)
		return rc;
	plumb_err_clear(&err);
	if ((rc = tmp_open(&t, &err)) < 0) {
		plumb_err_print(&err);
		return plumb_err_status(&err);
	}
	if (!(st = calloc(1, sizeof(*st)))) {
		rc = plumb_err_set(&err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	st->ns = o.npaths;
	st->paths = o.paths;
	for (i = 0; i < o.npaths; i++)
		if ((rc = scn_load(o.paths[i], &st->s[i], &err)) < 0)
			goto out;
	/* the rows, with ranges unless --draws says otherwise */
	jpath = tmp_file(&t, "rows.json");
	snprintf(draws, sizeof(draws), "%d", CMD_CALIB_DRAWS);
	extra[0] = breakdown;
	extra[1] = opt_draws;
	extra[2] = draws;
	if ((status = run_pred(&o, json, jpath, extra, o.draws_given ? 1 : 3)) != 0)
		goto quiet;
	if ((rc = read_rows(st, jpath, &err)) < 0)
		goto out;
	if (!st->nrows || !st->nx || !st->nlayouts) {
		rc = plumb_err_set(&err, PLUMB_ERUNTIME, jpath, 0, 0, "the prediction has no rows");
		goto out;
	}
	/* several boxes: the table's "what the speed-up depends on" lines */
	if (o.npaths > 1) {
		extra[0] = opt_draws;
		extra[1] = zero;
		tpath = tmp_file(&t, "table.txt");
		if ((status = run_pred(&o, tab, tpath, extra, 2)) != 0)
			goto quiet;
		if (!(table_txt = slurp(tpath, NULL))) {
			rc = plumb_err_set(&err, PLUMB_EIO, tpath, 0, 0, "cannot read the comparison back");
			goto out;
		}
		depends = strstr(table_txt, "\nWhat the speed-up");
		if (depends)
			depends++;
	}
	rc = write_page(&o, st, depends, &t, &err);
out:
	status = rc < 0 ? plumb_err_status(&err) : PLUMB_OK;
	if (rc < 0)
		plumb_err_print(&err);
quiet:
	/* a command run above printed its own error; status is its exit code */
	rdr_release_fonts();
	tmp_close(&t);
	free(table_txt);
	if (st) {
		json_decref(st->doc);
		for (i = 0; i < st->ns; i++)
			scn_free(st->s[i]);
		free(st);
	}
	return status;
}
