/*
 * rows.c - a sweep's rows as text: CSV fields and JSON values, the header,
 * and reading a row back into its key for resuming (sweep.h "Rows").
 * Rows are written by eval.c with these helpers; run.c reads old outputs
 * through swp_row_key.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "sweep_int.h"

#include "jout.h"

/* ---- writing ------------------------------------------------------------------ */


void swp_sb_put(struct swp_sb *b, const char *t, size_t len)
{
	if (b->oom)
		return;
	if (b->n + len + 1 > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 512;
		char *ns;
		while (nc < b->n + len + 1)
			nc *= 2;
		if (!(ns = realloc(b->s, nc))) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = nc;
	}
	memcpy(b->s + b->n, t, len);
	b->n += len;
	b->s[b->n] = '\0';
}

void swp_sb_printf(struct swp_sb *b, const char *fmt, ...)
{
	char tmp[1400];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		swp_sb_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

void swp_csv_field(struct swp_sb *b, const char *s, int force)
{
	const char *p;
	size_t n = strlen(s);
	if (!force && !strpbrk(s, ",\"\n\r") && !(n && (s[0] == ' ' || s[n - 1] == ' '))) {
		swp_sb_put(b, s, n);
		return;
	}
	swp_sb_put(b, "\"", 1);
	for (p = s; *p; p++) {
		if (*p == '"')
			swp_sb_put(b, "\"", 1);
		swp_sb_put(b, p, 1);
	}
	swp_sb_put(b, "\"", 1);
}

void swp_csv_cell(struct swp_sb *b, const char *s, int raw)
{
	char *end, *t;
	size_t n;
	if (raw || !s[0] || !strchr("=+-@\t\r'", s[0]) ||
	    (s[0] != '\'' && (strtod(s, &end), end != s && !*end))) {
		swp_csv_field(b, s, 0);
		return;
	}
	n = strlen(s);
	if (!(t = malloc(n + 2))) {
		b->oom = 1;
		return;
	}
	t[0] = '\'';
	memcpy(t + 1, s, n + 1);
	swp_csv_field(b, t, 0);
	free(t);
}

/* The string through jansson's encoder (control characters escaped, not
 * dropped: a row read back when resuming must give the same key as the
 * point it was written for; json_split reads every escape it writes). */
void swp_json_str(struct swp_sb *b, const char *s)
{
	json_t *j = jout_str(s);
	char *e = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	json_decref(j);
	if (!e) {
		b->oom = 1;
		return;
	}
	swp_sb_put(b, e, strlen(e));
	free(e);
}

/* A JSON number as written: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_number(const char *s)
{
	const char *p = s;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return 0;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

void swp_json_val(struct swp_sb *b, const char *s)
{
	if (json_number(s))
		swp_sb_put(b, s, strlen(s));
	else
		swp_json_str(b, s);
}

/* Column names: key columns, then metrics, then derived ones. */
const char *const swp_fixed_cols[SWP_NFIXED] = {
	"scenario", "model", "weights", "kv", "input", "output", "cached_context"
};
static const char *const metric_cols[] = {
	"layout", "gpus", "concurrency", "context", "step_ms", "tok_s_total", "tok_s_per_stream",
	"tpot_ms", "ttft_ms", "comm_frac", "compute_frac", "idle_frac", "busy_frac", "fits",
	"diagnosis", NULL
};

/* After the metrics and the prices: the latency distributions (as
 * plumb predict --percentiles) and the KV cache. */
void swp_dist_col(int i, char *buf, size_t n)
{
	snprintf(buf, n, "%s_p%.0f_ms", serve_dist_name[i / SERVE_NPCT], 100 * serve_pct[i % SERVE_NPCT]);
}

static const char *const kv_cols[] = {
	"kv_tokens", "kv_peak_tokens", "queued_max", "retracted",
	/* power and money (models/cost, docs/sweep.md) */
	"gpu_w", "box_w", "j_per_tok", "usd_per_mtok"
};

/* Name index of extra column c. */
int swp_extra_name(const struct swp_grid *g, int c)
{
	int i;
	for (i = 0; i < g->nnames; i++)
		if (g->names[i].column == c)
			return i;
	return -1;
}

char *swp_key_join(char (*t)[1024], int n, const char *layout, const char *conc)
{
	struct swp_sb b = { 0 };
	int i;
	for (i = 0; i < n; i++) {
		swp_sb_put(&b, t[i], strlen(t[i]));
		swp_sb_put(&b, "\x1f", 1);
	}
	swp_sb_put(&b, layout, strlen(layout));
	swp_sb_put(&b, "\x1f", 1);
	swp_sb_put(&b, conc, strlen(conc));
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* ---- reading rows back ----------------------------------------------------- */

/* Split a CSV line into at most max fields (copied into buf); count or -1. */
static int csv_split(const char *line, char *buf, size_t n, char **f, int max)
{
	const char *p = line;
	size_t o = 0;
	int nf = 0;
	for (;;) {
		if (nf >= max || o >= n)
			return -1;
		f[nf++] = buf + o;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"') {
					buf[o++] = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					buf[o++] = *p++;
				}
				if (o >= n)
					return -1;
			}
		} else {
			while (*p && *p != ',' && o < n)
				buf[o++] = *p++;
		}
		if (o >= n)
			return -1;
		buf[o++] = '\0';
		if (*p == ',') {
			p++;
			continue;
		}
		return *p ? -1 : nf;
	}
}

/* Parse a flat JSON object {"k": v, ...}: names and raw texts (strings
 * unescaped) into buf; count or -1. */
static int json_split(const char *line, char *buf, size_t n, char **names, char **vals, int max)
{
	const char *p = line;
	size_t o = 0;
	int nf = 0;
	while (*p == ' ')
		p++;
	if (*p++ != '{')
		return -1;
	for (;;) {
		int which;
		while (*p == ' ')
			p++;
		if (*p == '}')
			return nf;
		if (nf >= max)
			return -1;
		for (which = 0; which < 2; which++) {
			char **dst = which ? vals : names;
			while (*p == ' ')
				p++;
			dst[nf] = buf + o;
			if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					char c = *p++;
					if (c == '\\') {
						unsigned u;
						c = *p++;
						if (c == 'n')
							c = '\n';
						else if (c == 't')
							c = '\t';
						else if (c == 'r')
							c = '\r';
						else if (c == 'b')
							c = '\b';
						else if (c == 'f')
							c = '\f';
						else if (c == 'u') {
							if (sscanf(p, "%4x", &u) != 1 || u < 1 || u >= 0x20)
								return -1;
							c = (char)u;
							p += 4;
						} else if (!c)
							return -1;
					}
					if (o + 1 >= n)
						return -1;
					buf[o++] = c;
				}
				if (*p++ != '"')
					return -1;
			} else if (which) {
				while (*p && *p != ',' && *p != '}' && *p != ' ') {
					if (o + 1 >= n)
						return -1;
					buf[o++] = *p++;
				}
			} else {
				return -1;
			}
			if (o + 1 >= n)
				return -1;
			buf[o++] = '\0';
			while (*p == ' ')
				p++;
			if (!which && *p++ != ':')
				return -1;
		}
		nf++;
		if (*p == ',')
			p++;
		else if (*p != '}')
			return -1;
	}
}

char *swp_rows_key(const struct swp_grid *g, enum swp_format fmt, const char *row)
{
	int nk = SWP_NFIXED + g->nextra, i, nf;
	size_t len = strlen(row) + 1;
	char *buf = malloc(len), **f = calloc(256, sizeof(*f)), **v = calloc(256, sizeof(*v));
	char (*t)[1024] = NULL, *k = NULL;
	const char *layout = NULL, *conc = NULL;

	if (!buf || !f || !v || !(t = calloc((size_t)nk, sizeof(*t))))
		goto out;
	if (fmt == SWP_CSV) {
		nf = csv_split(row, buf, len, f, 256);
		if (nf < nk + 3)
			goto out;
		/* a cell swp_csv_cell neutralised reads back as written */
		for (i = 0; i <= nk; i++)
			if (!g->csv_raw && f[i][0] == '\'')
				f[i]++;
		for (i = 0; i < nk; i++)
			snprintf(t[i], 1024, "%s", f[i]);
		layout = f[nk];
		conc = f[nk + 2];
	} else {
		nf = json_split(row, buf, len, f, v, 256);
		if (nf < nk + 3)
			goto out;
		for (i = 0; i < nk; i++) {
			const char *want = i < SWP_NFIXED ? swp_fixed_cols[i] :
				g->names[swp_extra_name(g, i - SWP_NFIXED)].name;
			if (strcmp(f[i], want))
				goto out;
			snprintf(t[i], 1024, "%s", v[i]);
		}
		if (strcmp(f[nk], "layout") || strcmp(f[nk + 2], "concurrency"))
			goto out;
		layout = v[nk];
		conc = v[nk + 2];
	}
	k = swp_key_join(t, nk, layout, conc);
out:
	free(buf);
	free(f);
	free(v);
	free(t);
	return k;
}

char *swp_rows_header(const struct swp_grid *g, enum swp_format fmt)
{
	struct swp_sb b = { 0 };
	int i, nk = SWP_NFIXED + g->nextra;
	const char *base = strrchr(g->file, '/');

	if (fmt == SWP_JSON) {
		swp_sb_put(&b, "{\n  \"grid\": ", 12);
		/* the grid's name, else its file name without the directory, so
		 * the header (compared when resuming) does not depend on the
		 * path the grid was given by */
		swp_json_str(&b, g->name[0] ? g->name : base ? base + 1 : g->file);
		swp_sb_put(&b, ",\n  \"columns\": [", 16);
	}
	for (i = 0; i < nk; i++) {
		const char *name = i < SWP_NFIXED ? swp_fixed_cols[i] : g->names[swp_extra_name(g, i - SWP_NFIXED)].name;
		if (fmt == SWP_JSON) {
			if (i)
				swp_sb_put(&b, ", ", 2);
			swp_json_str(&b, name);
		} else {
			swp_csv_field(&b, name, 0);
			swp_sb_put(&b, ",", 1);
		}
	}
	for (i = 0; metric_cols[i]; i++) {
		if (fmt == SWP_JSON) {
			swp_sb_put(&b, ", ", 2);
			swp_json_str(&b, metric_cols[i]);
		} else {
			swp_sb_printf(&b, "%s%s", i ? "," : "", metric_cols[i]);
		}
	}
	for (i = 0; i < g->nprice; i++) {
		if (fmt == SWP_JSON)
			swp_sb_printf(&b, ", \"tok_s_per_k%s\"", g->names[g->price[i]].name + 6);
		else
			swp_sb_printf(&b, ",tok_s_per_k%s", g->names[g->price[i]].name + 6);
	}
	for (i = 0; i < SWP_NDIST + 8; i++) {
		char dist[32];
		const char *name = dist;
		if (i < SWP_NDIST)
			swp_dist_col(i, dist, sizeof(dist));
		else
			name = kv_cols[i - SWP_NDIST];
		if (fmt == SWP_JSON)
			swp_sb_printf(&b, ", \"%s\"", name);
		else
			swp_sb_printf(&b, ",%s", name);
	}
	swp_sb_put(&b, fmt == SWP_JSON ? "],\n  \"rows\": [" : "\n", fmt == SWP_JSON ? 14 : 1);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

const char *swp_rows_footer(const struct swp_grid *g, enum swp_format fmt)
{
	return fmt == SWP_JSON ? "\n  ]\n}\n" : "";
}

const char *swp_rows_sep(const struct swp_grid *g, enum swp_format fmt, int first)
{
	if (fmt == SWP_JSON)
		return first ? "\n    " : ",\n    ";
	return "";
}
