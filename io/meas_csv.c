/*
 * meas_csv.c - read plumb's measurement CSVs (docs/data-formats.md):
 *
 *   collectives   op,gpus,bytes,time_us
 *   decode steps  layout,batch,context,step_ms
 *   requests      arrival_s,input_len,output_len (a trace of arrivals)
 *   serving       layout,concurrency,context,tok_s
 *                 [,tpot_ms][,ttft_ms][,input_len][,output_len][,prompts]
 *                 [,peak_tok_s][,cached_prompts]
 *
 * The kind follows from the header's columns (any order, any case). Lines
 * whose first non-blank character is '#' and blank lines are skipped;
 * fields may be quoted ("a,b", "" for a quote); CRLF and a UTF-8 BOM are
 * fine. Every value is checked (integers where counts are meant, positive
 * times, finite numbers) and two rows with the same key columns are an
 * error, since a fit would silently weigh that point twice.
 * Every error names the line and the column where the offending field
 * starts.
 */
#include "meas.h"
#include "datadir.h"
#include "meas_int.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 32

/* Every column any kind knows; the order is the documented one. */
enum ccol {
	K_OP, K_GPUS, K_BYTES, K_TIME_US,
	K_LAYOUT, K_BATCH, K_CONTEXT, K_STEP_MS,
	K_CONCURRENCY, K_TOK_S, K_TPOT_MS, K_TTFT_MS, K_INPUT_LEN, K_OUTPUT_LEN,
	K_PROMPTS, K_PEAK_TOK_S, K_ARRIVAL_S, K_CACHED_PROMPTS, K_KV_XFER_MS,
	K_NCOLS
};

static const char *const col_names[K_NCOLS] = {
	"op", "gpus", "bytes", "time_us",
	"layout", "batch", "context", "step_ms",
	"concurrency", "tok_s", "tpot_ms", "ttft_ms", "input_len", "output_len",
	"prompts", "peak_tok_s", "arrival_s", "cached_prompts", "kv_transfer_ms",
};

/* Per kind: allowed columns, required columns, columns that identify it. */
static const struct {
	const char *name;       /* for messages */
	unsigned allowed, required, marks;
	const char *allowed_list;
} kinds[] = {
	[MEAS_CSV_COLLECTIVES] = {
		"collectives",
		1u << K_OP | 1u << K_GPUS | 1u << K_BYTES | 1u << K_TIME_US,
		1u << K_OP | 1u << K_GPUS | 1u << K_BYTES | 1u << K_TIME_US,
		1u << K_OP | 1u << K_GPUS | 1u << K_BYTES | 1u << K_TIME_US,
		"op, gpus, bytes, time_us",
	},
	[MEAS_CSV_DECODE] = {
		"decode steps",
		1u << K_LAYOUT | 1u << K_BATCH | 1u << K_CONTEXT | 1u << K_STEP_MS,
		1u << K_LAYOUT | 1u << K_BATCH | 1u << K_CONTEXT | 1u << K_STEP_MS,
		1u << K_BATCH | 1u << K_STEP_MS,
		"layout, batch, context, step_ms",
	},
	[MEAS_CSV_SERVING] = {
		"serving",
		1u << K_LAYOUT | 1u << K_CONCURRENCY | 1u << K_CONTEXT | 1u << K_TOK_S |
		1u << K_TPOT_MS | 1u << K_TTFT_MS | 1u << K_INPUT_LEN | 1u << K_OUTPUT_LEN |
		1u << K_PROMPTS | 1u << K_PEAK_TOK_S | 1u << K_CACHED_PROMPTS | 1u << K_KV_XFER_MS,
		1u << K_LAYOUT | 1u << K_CONCURRENCY | 1u << K_CONTEXT | 1u << K_TOK_S,
		1u << K_CONCURRENCY | 1u << K_TOK_S | 1u << K_TPOT_MS | 1u << K_TTFT_MS |
		1u << K_INPUT_LEN | 1u << K_OUTPUT_LEN,
		"layout, concurrency, context, tok_s, tpot_ms, ttft_ms, input_len, output_len, prompts, "
		"peak_tok_s, cached_prompts, kv_transfer_ms",
	},
	[MEAS_CSV_REQUESTS] = {
		"requests",
		1u << K_ARRIVAL_S | 1u << K_INPUT_LEN | 1u << K_OUTPUT_LEN,
		1u << K_ARRIVAL_S | 1u << K_INPUT_LEN | 1u << K_OUTPUT_LEN,
		1u << K_ARRIVAL_S | 1u << K_INPUT_LEN | 1u << K_OUTPUT_LEN,
		"arrival_s, input_len, output_len",
	},
};

static const char *const op_list[] = {
	"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv", "broadcast",
};

struct fld {
	const char *s;          /* unquoted text, NUL-terminated, in the scratch */
	int len;
	int col;                /* 1-based column where the field starts */
};

struct cctx {
	const char *fname;
	struct plumb_err *err;
	int line;
	int linelen;
	enum meas_csv_kind kind;
	int nhdr;
	enum ccol hdr[MAX_FIELDS];
	int header_line;
	struct meas_csv *t;
	int cap;
};

const char *meas_csv_kind_name(enum meas_csv_kind kind)
{
	switch (kind) {
	case MEAS_CSV_COLLECTIVES: return "collectives";
	case MEAS_CSV_DECODE: return "decode";
	case MEAS_CSV_SERVING: return "serving";
	case MEAS_CSV_REQUESTS: return "requests";
	case MEAS_CSV_NKINDS: break;
	}
	return "?";
}

static int fail(struct cctx *c, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Set an input error at the current line and the given column. */
static int fail(struct cctx *c, int col, const char *fmt, ...)
{
	char msg[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, col, "%s", msg);
}

/* s[0..len) equals the lower-case word w, ignoring case. */
static int ieq(const char *s, size_t len, const char *w)
{
	size_t i;

	if (len != strlen(w))
		return 0;
	for (i = 0; i < len; i++)
		if (tolower((unsigned char)s[i]) != w[i])
			return 0;
	return 1;
}

/*
 * Split line into fields, unquoting into scratch (at least strlen(line)+
 * MAX_FIELDS bytes). Returns the number of fields (may exceed MAX_FIELDS;
 * the rest are not stored) or a negative error code.
 */
static int split(struct cctx *c, const char *line, char *scratch, struct fld *f)
{
	const char *p = line;
	char *o = scratch;
	int n = 0;

	for (;;) {
		const char *s;
		int col;
		while (*p == ' ' || *p == '\t')
			p++;
		col = (int)(p - line) + 1;
		s = o;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					return plumb_err_set(c->err, PLUMB_EINPUT, c->fname,
							     c->line, col,
							     "unterminated quoted field");
				if (*p == '"') {
					if (p[1] == '"') {
						*o++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				*o++ = *p++;
			}
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p && *p != ',')
				return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line,
						     (int)(p - line) + 1,
						     "unexpected text after a closing quote");
		} else {
			while (*p && *p != ',')
				*o++ = *p++;
			while (o > s && (o[-1] == ' ' || o[-1] == '\t'))
				o--;
		}
		if (n < MAX_FIELDS) {
			f[n].s = s;
			f[n].len = (int)(o - s);
			f[n].col = col;
		}
		*o++ = '\0';
		n++;
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

static int col_index(const struct fld *f)
{
	int k;

	for (k = 0; k < K_NCOLS; k++)
		if (ieq(f->s, (size_t)f->len, col_names[k]))
			return k;
	return -1;
}

static int popcount(unsigned v)
{
	int n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static int header(struct cctx *c, const struct fld *f, int n)
{
	unsigned have = 0;
	int i, k, known = 0, best = -1, best_score = 0, tie = 0;
	int idx[MAX_FIELDS];

	if (n > MAX_FIELDS)
		return fail(c, f[MAX_FIELDS - 1].col, "header has more than %d columns",
			    MAX_FIELDS);
	for (i = 0; i < n; i++) {
		idx[i] = col_index(&f[i]);
		if (idx[i] >= 0) {
			known++;
			have |= 1u << idx[i];
		}
	}
	if (known == 0)
		return fail(c, 1, "missing header: the first line must name the columns "
			    "(e.g. op,gpus,bytes,time_us or layout,batch,context,step_ms)");
	for (k = 0; k < MEAS_CSV_NKINDS; k++) {
		int score = popcount(have & kinds[k].marks);
		if (score > best_score) {
			best = k;
			best_score = score;
			tie = 0;
		} else if (score == best_score && score > 0) {
			tie = 1;
		}
	}
	if (best < 0)
		return fail(c, 1, "cannot tell the kind of CSV from the header: expected "
			    "op,gpus,bytes,time_us (collectives), layout,batch,context,"
			    "step_ms (decode steps), layout,concurrency,context,tok_s "
			    "(serving) or arrival_s,input_len,output_len (requests)");
	if (tie)
		return fail(c, 1, "header mixes columns of different kinds: expected "
			    "op,gpus,bytes,time_us (collectives), layout,batch,context,"
			    "step_ms (decode steps), layout,concurrency,context,tok_s "
			    "(serving) or arrival_s,input_len,output_len (requests)");
	c->kind = (enum meas_csv_kind)best;
	for (i = 0; i < n; i++) {
		char name[64];
		meas_copy(name, sizeof(name), f[i].s, (size_t)f[i].len);
		if (f[i].len == 0)
			return fail(c, f[i].col, "empty column name in the header "
				    "(field %d)", i + 1);
		if (idx[i] < 0 || !(kinds[best].allowed & (1u << idx[i]))) {
			return fail(c, f[i].col, "unknown column '%s' for a %s CSV "
				    "(allowed: %s)", name, kinds[best].name,
				    kinds[best].allowed_list);
		}
		for (k = 0; k < i; k++)
			if (idx[k] == idx[i]) {
				return fail(c, f[i].col,
					    "column '%s' appears twice (first at column %d)",
					    name, f[k].col);
			}
		c->hdr[i] = (enum ccol)idx[i];
	}
	for (k = 0; k < K_NCOLS; k++)
		if ((kinds[best].required & (1u << k)) && !(have & (1u << k))) {
			return fail(c, 1, "missing required column '%s' (a %s CSV "
				    "needs %s)", col_names[k], kinds[best].name,
				    best == MEAS_CSV_SERVING ?
				    "layout, concurrency, context, tok_s" :
				    kinds[best].allowed_list);
		}
	c->nhdr = n;
	c->header_line = c->line;
	return 0;
}

/* Numbers: integer (min as given) or real (> 0 when positive). */
static int num_int(struct cctx *c, const struct fld *f, enum ccol k, long min,
		   long *out)
{
	const char *name = col_names[k];
	double d;
	uint64_t u;
	int rc = meas_num_double(f->s, (size_t)f->len, &d), i, neg;

	if (rc == MEAS_NUM_NONFINITE)
		return fail(c, f->col, "%s '%s' is not a finite number", name, f->s);
	if (rc == MEAS_NUM_RANGE)
		return fail(c, f->col, "%s '%s' is out of range", name, f->s);
	if (rc != MEAS_NUM_OK)
		return fail(c, f->col, "%s '%s' is not a number", name, f->s);
	neg = f->s[0] == '-';
	for (i = (neg || f->s[0] == '+'); i < f->len; i++)
		if (!isdigit((unsigned char)f->s[i]))
			return fail(c, f->col, "%s '%s' is not an integer", name, f->s);
	rc = meas_num_u64(f->s + (neg || f->s[0] == '+'),
			  (size_t)f->len - (neg || f->s[0] == '+'), &u);
	if (rc == MEAS_NUM_RANGE || u > (uint64_t)(k == K_BYTES ? INT64_MAX : 2147483647))
		return fail(c, f->col, "%s '%s' is out of range", name, f->s);
	*out = neg ? -(long)u : (long)u;
	if (*out < min)
		return fail(c, f->col, "%s must be at least %ld, got '%s'", name, min, f->s);
	return 0;
}

static int num_pos(struct cctx *c, const struct fld *f, enum ccol k, double *out)
{
	const char *name = col_names[k];
	int rc = meas_num_double(f->s, (size_t)f->len, out);

	if (rc == MEAS_NUM_NONFINITE)
		return fail(c, f->col, "%s '%s' is not a finite number", name, f->s);
	if (rc == MEAS_NUM_RANGE)
		return fail(c, f->col, "%s '%s' is out of range", name, f->s);
	if (rc != MEAS_NUM_OK)
		return fail(c, f->col, "%s '%s' is not a number", name, f->s);
	if (!(*out > 0))
		return fail(c, f->col, "%s must be positive, got '%s'", name, f->s);
	return 0;
}

static int value(struct cctx *c, struct meas_csv_row *r, enum ccol k,
		 const struct fld *f)
{
	long v = 0;
	int rc = 0, i;

	if (f->len == 0) {
		if (k == K_TPOT_MS || k == K_TTFT_MS || k == K_INPUT_LEN || k == K_OUTPUT_LEN ||
		    k == K_TOK_S || k == K_PROMPTS || k == K_PEAK_TOK_S)
			return 0;       /* optional: stays unset (tok_s: see data_row) */
		return fail(c, f->col, "empty value for '%s'", col_names[k]);
	}
	switch (k) {
	case K_OP: {
		char low[16];
		const char *near;
		for (i = 0; i < 6; i++)
			if (ieq(f->s, (size_t)f->len, op_list[i]))
				break;
		if (i < 6) {
			snprintf(r->op, sizeof(r->op), "%s", op_list[i]);
			return 0;
		}
		near = meas_nccl_op_name(f->s);
		meas_copy(low, sizeof(low), near ? near : "", near ? strlen(near) : 0);
		if (near)
			return fail(c, f->col, "unknown op '%s' (did you mean '%s'?)",
				    f->s, low);
		return fail(c, f->col, "unknown op '%s' (expected allreduce, allgather, "
			    "reducescatter, alltoall, sendrecv or broadcast)", f->s);
	}
	case K_LAYOUT:
		for (i = 0; i < f->len; i++)
			if (!(islower((unsigned char)f->s[i]) || isdigit((unsigned char)f->s[i]) ||
			      (c->kind == MEAS_CSV_SERVING && (f->s[i] == ':' || f->s[i] == '+'))))
				break;
		if (i < f->len || (size_t)f->len >= sizeof(r->layout))
			return fail(c, f->col, "layout '%s' must be 1-31 lower-case letters "
				    "and digits, like tp8, tp4pp2, ep8%s", f->s,
				    c->kind == MEAS_CSV_SERVING ? " (or a disaggregated design, "
				    "p1:tp4+d1:tp4)" : "");
		meas_copy(r->layout, sizeof(r->layout), f->s, (size_t)f->len);
		return 0;
	case K_GPUS:
		rc = num_int(c, f, k, 2, &v);
		r->gpus = (int)v;
		return rc;
	case K_BYTES:
		rc = num_int(c, f, k, 1, &v);
		r->bytes = (uint64_t)v;
		return rc;
	case K_BATCH:
		rc = num_int(c, f, k, 1, &v);
		r->batch = (int)v;
		return rc;
	case K_CONCURRENCY:
		rc = num_int(c, f, k, 1, &v);
		if (rc == 0 && v > MEAS_MAX_CONCURRENCY)
			return fail(c, f->col, "concurrency %ld is above the %d plumb simulates "
				    "(as --concurrency)", v, MEAS_MAX_CONCURRENCY);
		r->concurrency = (int)v;
		return rc;
	case K_CONTEXT:
		rc = num_int(c, f, k, 0, &v);
		r->context = v;
		return rc;
	case K_INPUT_LEN:
		rc = num_int(c, f, k, 1, &v);
		r->input_len = v;
		return rc;
	case K_OUTPUT_LEN:
		rc = num_int(c, f, k, 1, &v);
		r->output_len = v;
		return rc;
	case K_PROMPTS:
		rc = num_int(c, f, k, 1, &v);
		if (rc == 0 && v > MEAS_MAX_REQUESTS)
			return fail(c, f->col, "prompts %ld is above the %d plumb simulates "
				    "(as --requests)", v, MEAS_MAX_REQUESTS);
		r->prompts = v;
		return rc;
	case K_CACHED_PROMPTS:
		rc = num_int(c, f, k, 0, &v);
		r->cached_prompts = v;
		return rc;
	case K_TIME_US:
		return num_pos(c, f, k, &r->time_us);
	case K_STEP_MS:
		return num_pos(c, f, k, &r->step_ms);
	case K_TOK_S:
		return num_pos(c, f, k, &r->tok_s);
	case K_TPOT_MS:
		return num_pos(c, f, k, &r->tpot_ms);
	case K_TTFT_MS:
		return num_pos(c, f, k, &r->ttft_ms);
	case K_PEAK_TOK_S:
		return num_pos(c, f, k, &r->peak_tok_s);
	case K_KV_XFER_MS:
		return num_pos(c, f, k, &r->kv_xfer_ms);
	case K_ARRIVAL_S: {
		double d;
		if (meas_num_double(f->s, (size_t)f->len, &d) < 0 || !isfinite(d) || d < 0)
			return fail(c, f->col, "arrival_s must be a time >= 0 in seconds, not '%.*s'",
				    f->len, f->s);
		r->arrival_s = d;
		return 0;
	}
	case K_NCOLS:
		break;
	}
	return 0;
}

static int data_row(struct cctx *c, const struct fld *f, int n)
{
	struct meas_csv_row r;
	int i, rc;

	if (n != c->nhdr) {
		int col = n > c->nhdr ? f[c->nhdr].col : c->linelen + 1;
		return fail(c, col, "wrong number of fields: %d, the header at line %d "
			    "has %d", n, c->header_line, c->nhdr);
	}
	memset(&r, 0, sizeof(r));
	r.line = c->line;
	r.context = -1;
	r.input_len = r.output_len = -1;
	r.time_us = r.step_ms = r.tok_s = r.tpot_ms = r.ttft_ms = r.peak_tok_s = NAN;
	r.kv_xfer_ms = NAN;
	for (i = 0; i < n; i++)
		if ((rc = value(c, &r, c->hdr[i], &f[i])) < 0)
			return rc;
	if (c->kind == MEAS_CSV_SERVING && isnan(r.tok_s) && isnan(r.tpot_ms) &&
	    isnan(r.ttft_ms) && isnan(r.peak_tok_s) && isnan(r.kv_xfer_ms))
		return fail(c, 1, "a serving row needs tok_s, tpot_ms, ttft_ms, peak_tok_s or kv_transfer_ms (all are empty)");
	if (c->kind == MEAS_CSV_COLLECTIVES && strcmp(r.op, "sendrecv") == 0 && r.gpus != 2) {
		for (i = 0; i < n && c->hdr[i] != K_GPUS; i++)
			;
		return fail(c, f[i].col, "sendrecv runs between 2 GPUs, got gpus %d", r.gpus);
	}
	if (c->t->nrows == c->cap) {
		int ncap = c->cap ? c->cap * 2 : 64;
		struct meas_csv_row *nr = realloc(c->t->rows, (size_t)ncap * sizeof(*nr));
		if (!nr)
			return plumb_err_set(c->err, PLUMB_ERUNTIME, c->fname, c->line, 0,
					     "out of memory");
		c->t->rows = nr;
		c->cap = ncap;
	}
	c->t->rows[c->t->nrows++] = r;
	return 0;
}

/* Order rows by key columns, then by line: equal keys end up adjacent
 * with the earliest line first. */
static int cmp_key(const struct meas_csv_row *a, const struct meas_csv_row *b)
{
	int d = strcmp(a->op, b->op);

	if (!d)
		d = strcmp(a->layout, b->layout);
	if (!d)
		d = (a->gpus > b->gpus) - (a->gpus < b->gpus);
	if (!d)
		d = (a->bytes > b->bytes) - (a->bytes < b->bytes);
	if (!d)
		d = (a->batch > b->batch) - (a->batch < b->batch);
	if (!d)
		d = (a->concurrency > b->concurrency) - (a->concurrency < b->concurrency);
	if (!d)
		d = (a->context > b->context) - (a->context < b->context);
	if (!d)
		d = (a->input_len > b->input_len) - (a->input_len < b->input_len);
	if (!d)
		d = (a->output_len > b->output_len) - (a->output_len < b->output_len);
	return d;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct meas_csv_row *a = *(const struct meas_csv_row *const *)pa;
	const struct meas_csv_row *b = *(const struct meas_csv_row *const *)pb;
	int d = cmp_key(a, b);

	return d ? d : (a->line > b->line) - (a->line < b->line);
}

/* The duplicate met first when reading top down: among rows whose key
 * an earlier row has, the one with the smallest line. */
static int duplicates(struct cctx *c)
{
	const struct meas_csv_row **v;
	int i, dup = -1, first = 0, n = c->t->nrows;

	v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return plumb_err_set(c->err, PLUMB_ERUNTIME, c->fname, 0, 0, "out of memory");
	for (i = 0; i < n; i++)
		v[i] = &c->t->rows[i];
	qsort(v, (size_t)n, sizeof(*v), cmp_rows);
	for (i = 1; i < n; i++)
		if (cmp_key(v[i - 1], v[i]) == 0 && (i < 2 || cmp_key(v[i - 2], v[i]) != 0) &&
		    (dup < 0 || v[i]->line < dup)) {
			dup = v[i]->line;
			first = v[i - 1]->line;
		}
	free(v);
	if (dup < 0)
		return 0;
	c->line = dup;
	return fail(c, 1, "duplicate point (first at line %d)", first);
}

void meas_csv_free(struct meas_csv *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

int meas_csv_parse(const char *buf, size_t len, const char *fname,
		   struct meas_csv **out, struct plumb_err *err)
{
	struct cctx c;
	struct meas_lines l;
	struct fld f[MAX_FIELDS];
	char *line, *scratch = NULL;
	size_t scap = 0;
	int rc, any = 0;

	*out = NULL;
	if (!fname)
		fname = "<input>";
	if ((rc = meas_check_text(buf, len, fname, err)) < 0)
		return rc;
	memset(&c, 0, sizeof(c));
	c.fname = fname;
	c.err = err;
	c.t = calloc(1, sizeof(*c.t));
	if (!c.t)
		return plumb_err_set(err, PLUMB_ERUNTIME, fname, 0, 0, "out of memory");
	meas_lines_init(&l, buf, len, 0);
	while ((rc = meas_lines_next(&l, &line)) > 0) {
		const char *p = line;
		size_t need = strlen(line) + MAX_FIELDS + 2;
		int n;
		c.line = l.lineno;
		c.linelen = (int)strlen(line);
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p)
			any = 1;
		if (!*p || *p == '#')
			continue;
		if (need > scap) {
			char *ns = realloc(scratch, need);
			if (!ns) {
				rc = -1;
				break;
			}
			scratch = ns;
			scap = need;
		}
		if ((rc = n = split(&c, line, scratch, f)) < 0)
			break;
		if (c.nhdr == 0)
			rc = header(&c, f, n);
		else
			rc = data_row(&c, f, n);
		if (rc < 0)
			break;
	}
	if (rc == -1)
		rc = plumb_err_set(err, PLUMB_ERUNTIME, fname, c.line, 0, "out of memory");
	if (rc == 0 && !any) {
		c.line = 1;
		rc = fail(&c, 1, "empty file: expected a header such as "
			  "op,gpus,bytes,time_us and data rows");
	} else if (rc == 0 && c.nhdr == 0) {
		c.line = l.lineno;
		rc = fail(&c, 1, "missing header: the file has only comments and "
			  "blank lines");
	} else if (rc == 0 && c.t->nrows == 0) {
		c.line = c.header_line;
		rc = fail(&c, 1, "no data rows after the header");
	}
	/* a trace may hold two requests alike; measured points may not */
	if (rc == 0 && c.kind != MEAS_CSV_REQUESTS)
		rc = duplicates(&c);
	meas_lines_release(&l);
	free(scratch);
	if (rc < 0) {
		meas_csv_free(c.t);
		return rc;
	}
	c.t->kind = c.kind;
	*out = c.t;
	return 0;
}

int meas_csv_parse_file(const char *path, struct meas_csv **out,
			struct plumb_err *err)
{
	char where[4096];
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	path = plumb_data_path(path, where, sizeof(where));
	if ((rc = meas_read_file(path, &buf, &len, err)) < 0)
		return rc;
	rc = meas_csv_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
