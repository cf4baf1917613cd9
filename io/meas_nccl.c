/*
 * meas_nccl.c - read nccl-tests output (all_reduce_perf and friends).
 *
 * The text is walked line by line (CRLF, BOM and ANSI colour codes hidden
 * by meas_lines). Lines fall in four groups:
 *   context  a command line naming X_perf, "# nccl-tests version",
 *            "# Collective test starting: X", "# nThread T nGpus G",
 *            "# Using devices", the column header "# size count type ...";
 *            any of them after data rows closes the run and opens a new one;
 *   details  "#  Rank r ... device d [bus] name" lines, NCCL INFO lines
 *            ("via P2P/..." transports, "nranks N"), "# Avg bus bandwidth";
 *   rows     two leading unsigned integers (size, count) and then the
 *            columns the header named, or, without a header, 13 fields
 *            (current layout, with root) or 12 (before the root column);
 *   other    banners, notes, prose: skipped.
 * A row that starts like a row but does not parse is an error: a cut or
 * garbled table must not yield plausible numbers.
 */
#include "meas.h"
#include "datadir.h"
#include "meas_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOK 64

enum col {
	C_SKIP, C_SIZE, C_COUNT, C_TYPE, C_REDOP, C_ROOT,
	C_OOP_TIME, C_OOP_ALGBW, C_OOP_BUSBW, C_OOP_WRONG,
	C_IP_TIME, C_IP_ALGBW, C_IP_BUSBW, C_IP_WRONG
};

/* The run being collected plus what it needs until it is closed. */
struct build {
	struct meas_nccl_run r;
	int cap_rows, cap_dev;
	int ncols;              /* 0: no column header seen */
	enum col cols[MAX_TOK];
	int header_line;
	char op_file[16];
	int ngpus_cmd;          /* from -g/-t/-np on the command line */
	int ngpus_hdr;          /* nThread * nGpus */
	int ngpus_info;         /* "nranks N" in NCCL INFO lines */
};

struct ctx {
	const char *fname;
	const struct meas_nccl_hint *hint;
	struct plumb_err *err;
	struct meas_nccl_file *f;
	int cap_runs;
	struct build b;
	int line;
};

static const struct {
	const char *canon;
	const char *bin;        /* name of the nccl-tests binary without _perf */
} ops[] = {
	{ "allreduce", "all_reduce" },
	{ "allgather", "all_gather" },
	{ "reducescatter", "reduce_scatter" },
	{ "alltoall", "alltoall" },
	{ "sendrecv", "sendrecv" },
	{ "broadcast", "broadcast" },
};

const char *meas_nccl_op_name(const char *name)
{
	char k[32];
	size_t i, n = 0, len;

	if (!name)
		return NULL;
	len = strlen(name);
	if (len > 5 && strcmp(name + len - 5, "_perf") == 0)
		len -= 5;
	for (i = 0; i < len && n + 1 < sizeof(k); i++)
		if (name[i] != '_' && name[i] != '-')
			k[n++] = (char)tolower((unsigned char)name[i]);
	if (i < len)
		return NULL;
	k[n] = '\0';
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(k, ops[i].canon) == 0)
			return ops[i].canon;
	return NULL;
}

static int oom(struct ctx *c)
{
	return plumb_err_set(c->err, PLUMB_ERUNTIME, c->fname, c->line, 0,
			     "out of memory");
}

static void build_reset(struct build *b)
{
	memset(b, 0, sizeof(*b));
	b->r.avg_busbw = NAN;
}

static void run_release(struct meas_nccl_run *r)
{
	free(r->rows);
	free(r->devices);
}

/* Close the current run: resolve op and GPU count, append it to the file
 * (or drop it when it has no rows). */
static int close_run(struct ctx *c)
{
	struct build *b = &c->b;
	struct meas_nccl_run *r = &b->r;

	if (r->nrows == 0) {
		run_release(r);
		build_reset(b);
		return 0;
	}
	if (b->op_file[0]) {
		snprintf(r->op, sizeof(r->op), "%s", b->op_file);
		r->op_src = MEAS_SRC_FILE;
	} else if (c->hint && c->hint->op) {
		snprintf(r->op, sizeof(r->op), "%s", meas_nccl_op_name(c->hint->op));
		r->op_src = MEAS_SRC_HINT;
	} else {
		snprintf(r->op, sizeof(r->op), "allreduce");
		r->op_src = MEAS_SRC_DEFAULT;
	}
	r->ngpus_src = MEAS_SRC_FILE;
	/* MPI runs print nGpus per process and one Rank line per rank; a
	 * pasted excerpt may drop Rank lines: take the larger. */
	if (r->ndevices > 0 || b->ngpus_hdr > 0)
		r->ngpus = r->ndevices > b->ngpus_hdr ? r->ndevices : b->ngpus_hdr;
	else if (b->ngpus_info > 0)
		r->ngpus = b->ngpus_info;
	else if (b->ngpus_cmd > 0)
		r->ngpus = b->ngpus_cmd;
	else if (c->hint && c->hint->ngpus > 0) {
		r->ngpus = c->hint->ngpus;
		r->ngpus_src = MEAS_SRC_HINT;
	} else {
		r->ngpus = 0;
		r->ngpus_src = MEAS_SRC_UNKNOWN;
	}
	if (c->f->nruns == c->cap_runs) {
		int ncap = c->cap_runs ? c->cap_runs * 2 : 4;
		struct meas_nccl_run *nr = realloc(c->f->runs, (size_t)ncap * sizeof(*nr));
		if (!nr)
			return oom(c);
		c->f->runs = nr;
		c->cap_runs = ncap;
	}
	c->f->runs[c->f->nruns++] = *r;
	build_reset(b);
	return 0;
}

/* A context line: close the run if it already has rows. */
static int context_line(struct ctx *c)
{
	int rc;

	if (c->b.r.nrows > 0 && (rc = close_run(c)) < 0)
		return rc;
	if (c->b.r.line == 0)
		c->b.r.line = c->line;
	return 0;
}

static int tok_digits(const struct meas_tok *t)
{
	int i;
	for (i = 0; i < t->len; i++)
		if (!isdigit((unsigned char)t->s[i]))
			return 0;
	return t->len > 0;
}

/* Op name of a token "./build/all_reduce_perf" or "all_gather_perf_mpi";
 * writes the canonical (or squeezed) name into op and returns 1. */
static int perf_token(const struct meas_tok *t, char *op, size_t n)
{
	const char *s = t->s, *e = t->s + t->len, *base = s, *p;
	size_t len, i, o = 0;
	char name[64];
	const char *canon;

	for (p = s; p < e; p++)
		if (*p == '/')
			base = p + 1;
	len = (size_t)(e - base);
	if (len > 9 && memcmp(e - 9, "_perf_mpi", 9) == 0)
		len -= 4;
	if (len <= 5 || memcmp(base + len - 5, "_perf", 5) != 0 || len >= sizeof(name))
		return 0;
	memcpy(name, base, len);
	name[len] = '\0';
	canon = meas_nccl_op_name(name);
	if (canon) {
		snprintf(op, n, "%s", canon);
		return 1;
	}
	for (i = 0; i + 5 < len && o + 1 < n; i++)
		if (isalnum((unsigned char)name[i]))
			op[o++] = (char)tolower((unsigned char)name[i]);
	op[o] = '\0';
	return o > 0;
}

/* A command line runs X_perf: a token naming it with a path or followed by
 * a flag. Fills op and the GPU count the flags imply. Returns 1 if so. */
static int command_line(const struct meas_tok *tok, int n, char *op, size_t opn,
			int *ngpus)
{
	int i, j, g = 0, t = 0, np = 0;

	for (i = 0; i < n; i++) {
		int path = memchr(tok[i].s, '/', (size_t)tok[i].len) != NULL;
		int flag = i + 1 < n && tok[i + 1].s[0] == '-';
		if ((path || flag || i + 1 == n) && perf_token(&tok[i], op, opn))
			break;
	}
	if (i == n)
		return 0;
	for (j = 0; j < n; j++) {
		const struct meas_tok *a = &tok[j];
		int *dst = NULL, v;
		size_t skip = 0;
		if (j > i && a->len >= 2 && a->s[0] == '-' && (a->s[1] == 'g' || a->s[1] == 't') &&
		    (a->len == 2 || isdigit((unsigned char)a->s[2]))) {
			dst = a->s[1] == 'g' ? &g : &t;
			skip = 2;
		} else if (j < i && (meas_tok_is(a, "-np") || meas_tok_is(a, "-n"))) {
			dst = &np;
			skip = (size_t)a->len;
		}
		if (!dst)
			continue;
		if ((size_t)a->len > skip) {
			if (meas_num_int(a->s + skip, (size_t)a->len - skip, &v) == 0 && v > 0)
				*dst = v;
		} else if (j + 1 < n &&
			   meas_num_int(tok[j + 1].s, (size_t)tok[j + 1].len, &v) == 0 && v > 0) {
			*dst = v;
		}
	}
	*ngpus = (g || np) ? (g ? g : 1) * (t ? t : 1) * (np ? np : 1) : 0;
	return 1;
}

/* "# size count type redop root time algbw busbw #wrong time ..." */
static int header_line(struct ctx *c, const struct meas_tok *tok, int n)
{
	struct build *b = &c->b;
	int i, ntime = 0, nalg = 0, nbus = 0, nwrong = 0, have_size = 0, have_count = 0;
	enum col cols[MAX_TOK];
	int ncols = 0, old_error = 0;

	for (i = 1; i < n && i < MAX_TOK; i++) {
		const struct meas_tok *t = &tok[i];
		enum col k = C_SKIP;
		if (meas_tok_is(t, "size")) {
			k = C_SIZE;
			have_size = 1;
		} else if (meas_tok_is(t, "count")) {
			k = C_COUNT;
			have_count = 1;
		} else if (meas_tok_is(t, "type")) {
			k = C_TYPE;
		} else if (meas_tok_is(t, "redop")) {
			k = C_REDOP;
		} else if (meas_tok_is(t, "root")) {
			k = C_ROOT;
		} else if (meas_tok_is(t, "time") || meas_tok_is(t, "cputime")) {
			k = ntime++ ? C_IP_TIME : C_OOP_TIME;
		} else if (meas_tok_is(t, "algbw")) {
			k = nalg++ ? C_IP_ALGBW : C_OOP_ALGBW;
		} else if (meas_tok_is(t, "busbw")) {
			k = nbus++ ? C_IP_BUSBW : C_OOP_BUSBW;
		} else if (meas_tok_is(t, "#wrong") || meas_tok_is(t, "wrong") ||
			   meas_tok_is(t, "error")) {
			old_error = meas_tok_is(t, "error");
			k = nwrong++ ? C_IP_WRONG : C_OOP_WRONG;
		}
		cols[ncols++] = k;
	}
	if (!have_size || !have_count || ntime == 0)
		return 0;
	if ((i = context_line(c)) < 0)
		return i;
	memcpy(b->cols, cols, sizeof(cols));
	b->ncols = ncols;
	b->header_line = c->line;
	b->r.has_root = 0;
	for (i = 0; i < ncols; i++)
		if (cols[i] == C_ROOT)
			b->r.has_root = 1;
	b->r.wrong_is_error = old_error;
	return 1;
}

/* "#  Rank  0 Group  0 Pid 1756513 on host device  0 [0x01] NVIDIA ..." */
static int rank_line(struct ctx *c, const struct meas_tok *tok, int n)
{
	struct build *b = &c->b;
	struct meas_nccl_device d;
	int i;

	if (n < 3 || !meas_tok_is(&tok[1], "Rank") ||
	    meas_num_int(tok[2].s, (size_t)tok[2].len, &d.rank) != 0)
		return 0;
	d.device = -1;
	d.bus[0] = d.name[0] = '\0';
	for (i = 3; i < n; i++) {
		if (meas_tok_is(&tok[i], "device") && i + 1 < n) {
			int v;
			if (meas_num_int(tok[i + 1].s, (size_t)tok[i + 1].len, &v) == 0)
				d.device = v;
			i++;
		} else if (tok[i].s[0] == '[' && tok[i].s[tok[i].len - 1] == ']') {
			const char *name = tok[i].s + tok[i].len;
			size_t len;
			meas_copy(d.bus, sizeof(d.bus), tok[i].s + 1, (size_t)tok[i].len - 2);
			while (*name == ' ' || *name == '\t')
				name++;
			len = strlen(name);
			while (len > 0 && (name[len - 1] == ' ' || name[len - 1] == '\t'))
				len--;
			meas_copy(d.name, sizeof(d.name), name, len);
			break;
		}
	}
	if (b->r.ndevices == b->cap_dev) {
		int ncap = b->cap_dev ? b->cap_dev * 2 : 8;
		struct meas_nccl_device *nd = realloc(b->r.devices, (size_t)ncap * sizeof(*nd));
		if (!nd)
			return oom(c);
		b->r.devices = nd;
		b->cap_dev = ncap;
	}
	b->r.devices[b->r.ndevices++] = d;
	return 1;
}

/* NCCL INFO line: transports of "via X/..." and "nranks N". */
static void info_line(struct ctx *c, const char *line, const struct meas_tok *tok, int n)
{
	static const struct { const char *name; unsigned bit; } tr[] = {
		{ "P2P", MEAS_TR_P2P }, { "SHM", MEAS_TR_SHM }, { "NET", MEAS_TR_NET },
		{ "COLLNET", MEAS_TR_COLLNET }, { "CollNet", MEAS_TR_COLLNET },
		{ "NVLS", MEAS_TR_NVLS },
	};
	const char *via = strstr(line, " via ");
	int i;

	if (via) {
		via += 5;
		for (i = 0; i < (int)(sizeof(tr) / sizeof(tr[0])); i++) {
			size_t k = strlen(tr[i].name);
			if (strncmp(via, tr[i].name, k) == 0 &&
			    (via[k] == '/' || via[k] == ' ' || via[k] == '\0'))
				c->b.r.transports |= tr[i].bit;
		}
	}
	for (i = 0; i + 1 < n; i++) {
		int v;
		if (meas_tok_is(&tok[i], "nranks") &&
		    meas_num_int(tok[i + 1].s, (size_t)tok[i + 1].len, &v) == 0 &&
		    v > c->b.ngpus_info)
			c->b.ngpus_info = v;
	}
}

/* Parse a number cell that may be "N/A" (or nan/inf as printf writes
 * them when a time is zero): NaN then. */
static int cell_double(struct ctx *c, const struct meas_tok *t, const char *what,
		       double *out)
{
	int rc;

	if (meas_tok_icase(t, "N/A") || meas_tok_icase(t, "-nan") ||
	    meas_tok_icase(t, "nan") || meas_tok_icase(t, "inf") ||
	    meas_tok_is(t, "-")) {
		*out = NAN;
		return 0;
	}
	rc = meas_num_double(t->s, (size_t)t->len, out);
	if (rc == MEAS_NUM_RANGE)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
				     "%s '%.*s' is out of range", what, t->len, t->s);
	if (rc != MEAS_NUM_OK)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
				     "%s '%.*s' is not a number", what, t->len, t->s);
	if (*out < 0 && strcmp(what, "#wrong") != 0)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
				     "%s '%.*s' is negative", what, t->len, t->s);
	return 0;
}

static int cell_u64(struct ctx *c, const struct meas_tok *t, const char *what,
		    uint64_t *out)
{
	int rc = meas_num_u64(t->s, (size_t)t->len, out);

	if (rc == MEAS_NUM_RANGE)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
				     "%s '%.*s' is out of range", what, t->len, t->s);
	if (rc != MEAS_NUM_OK)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
				     "%s '%.*s' is not an integer", what, t->len, t->s);
	return 0;
}

static int cell_word(struct ctx *c, const struct meas_tok *t, const char *what,
		     char *dst, size_t n)
{
	int i;

	for (i = 0; i < t->len; i++)
		if (!isalnum((unsigned char)t->s[i]) && t->s[i] != '_')
			break;
	if (i < t->len || (size_t)t->len >= n)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
				     "%s '%.*s' is not a name", what, t->len, t->s);
	meas_copy(dst, n, t->s, (size_t)t->len);
	return 0;
}

/* The column layout of a row when no header was seen. */
static int infer_cols(struct ctx *c, const struct meas_tok *tok, int n)
{
	static const enum col with_root[] = {
		C_SIZE, C_COUNT, C_TYPE, C_REDOP, C_ROOT,
		C_OOP_TIME, C_OOP_ALGBW, C_OOP_BUSBW, C_OOP_WRONG,
		C_IP_TIME, C_IP_ALGBW, C_IP_BUSBW, C_IP_WRONG
	};
	struct build *b = &c->b;
	int i, v;

	if (n == 13) {
		memcpy(b->cols, with_root, sizeof(with_root));
		b->ncols = 13;
		b->r.has_root = 1;
		b->r.wrong_is_error = 0;
		return 0;
	}
	if (n == 12) {
		/* before the root column: redop, or root in broadcast_perf */
		int root = meas_num_int(tok[3].s, (size_t)tok[3].len, &v) == 0;
		b->cols[0] = C_SIZE;
		b->cols[1] = C_COUNT;
		b->cols[2] = C_TYPE;
		b->cols[3] = root ? C_ROOT : C_REDOP;
		for (i = 4; i < 12; i++)
			b->cols[i] = with_root[i + 1];
		b->ncols = 12;
		b->r.has_root = root;
		b->r.wrong_is_error = 1;
		return 0;
	}
	/* point at the first extra field, or just after the last one */
	return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line,
			     n > 13 ? tok[13].col : tok[n - 1].col + tok[n - 1].len,
			     "data row has %d fields; expected 13 (size count type "
			     "redop root time algbw busbw #wrong time algbw busbw "
			     "#wrong) or 12 (older nccl-tests, no root column)", n);
}

static int data_row(struct ctx *c, const struct meas_tok *tok, int n)
{
	struct build *b = &c->b;
	struct meas_nccl_row row;
	int i;

	if (b->ncols == 0) {
		if ((i = infer_cols(c, tok, n)) < 0)
			return i;
		b->header_line = 0;
	}
	if (n < b->ncols) {
		const struct meas_tok *last = &tok[n - 1];
		if (b->header_line)
			return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line,
					     last->col + last->len,
					     "data row has %d fields, the column header "
					     "at line %d has %d (truncated row?)",
					     n, b->header_line, b->ncols);
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line,
				     last->col + last->len,
				     "data row has %d fields, the rows above have %d "
				     "(truncated row?)", n, b->ncols);
	}
	memset(&row, 0, sizeof(row));
	row.line = c->line;
	row.root = -1;
	row.oop_time_us = row.oop_algbw = row.oop_busbw = row.oop_wrong = NAN;
	row.ip_time_us = row.ip_algbw = row.ip_busbw = row.ip_wrong = NAN;
	for (i = 0; i < b->ncols; i++) {
		const struct meas_tok *t = &tok[i];
		int rc = 0, v = -1;
		switch (b->cols[i]) {
		case C_SKIP:
			break;
		case C_SIZE:
			rc = cell_u64(c, t, "size", &row.size);
			break;
		case C_COUNT:
			rc = cell_u64(c, t, "count", &row.count);
			break;
		case C_TYPE:
			rc = cell_word(c, t, "type", row.type, sizeof(row.type));
			break;
		case C_REDOP:
			rc = cell_word(c, t, "redop", row.redop, sizeof(row.redop));
			break;
		case C_ROOT:
			if (meas_num_int(t->s, (size_t)t->len, &v) != 0)
				rc = plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line,
						   t->col, "root '%.*s' is not an integer",
						   t->len, t->s);
			row.root = v;
			break;
		case C_OOP_TIME:
			rc = cell_double(c, t, "time", &row.oop_time_us);
			break;
		case C_OOP_ALGBW:
			rc = cell_double(c, t, "algbw", &row.oop_algbw);
			break;
		case C_OOP_BUSBW:
			rc = cell_double(c, t, "busbw", &row.oop_busbw);
			break;
		case C_OOP_WRONG:
			rc = cell_double(c, t, "#wrong", &row.oop_wrong);
			break;
		case C_IP_TIME:
			rc = cell_double(c, t, "time", &row.ip_time_us);
			break;
		case C_IP_ALGBW:
			rc = cell_double(c, t, "algbw", &row.ip_algbw);
			break;
		case C_IP_BUSBW:
			rc = cell_double(c, t, "busbw", &row.ip_busbw);
			break;
		case C_IP_WRONG:
			rc = cell_double(c, t, "#wrong", &row.ip_wrong);
			break;
		}
		if (rc < 0)
			return rc;
	}
	if (b->r.nrows == b->cap_rows) {
		int ncap = b->cap_rows ? b->cap_rows * 2 : 32;
		struct meas_nccl_row *nr = realloc(b->r.rows, (size_t)ncap * sizeof(*nr));
		if (!nr)
			return oom(c);
		b->r.rows = nr;
		b->cap_rows = ncap;
	}
	if (b->r.line == 0)
		b->r.line = c->line;
	b->r.rows[b->r.nrows++] = row;
	return 0;
}

static int do_line(struct ctx *c, const char *line)
{
	struct meas_tok tok[MAX_TOK];
	int n, v, rc;
	const char *p;
	char op[16];

	/* mpirun --tag-output prefix "[1,0]<stdout>:" */
	if (line[0] == '[' && (p = strstr(line, "]<stdout>:")) != NULL && p - line < 24)
		line = p + 10;
	n = meas_split(line, tok, MAX_TOK);
	if (n == 0)
		return 0;
	if (n > MAX_TOK && tok_digits(&tok[0]))
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line,
				     tok[MAX_TOK - 1].col,
				     "data row has more than %d fields", MAX_TOK);
	if (n > MAX_TOK)
		n = MAX_TOK;

	if (strstr(line, "NCCL INFO")) {
		info_line(c, line, tok, n);
		return 0;
	}
	if (tok[0].s[0] == '#') {
		if (n >= 2 && meas_tok_is(&tok[0], "#") && meas_tok_is(&tok[1], "nccl-tests")) {
			int k;
			if ((rc = context_line(c)) < 0)
				return rc;
			/* "nccl-headers=22907 nccl-library=22907": the release the
			 * run linked (major x 10000 + minor x 100 + patch) */
			for (k = 2; k < n; k++)
				if (tok[k].len > 13 && !strncmp(tok[k].s, "nccl-library=", 13) &&
				    meas_num_int(tok[k].s + 13, (size_t)tok[k].len - 13, &v) == 0 &&
				    v >= 20000 && v < 100000)
					c->b.r.nccl_version = v;
			return 0;
		}
		if (n >= 4 && meas_tok_is(&tok[1], "Collective") &&
		    meas_tok_is(&tok[2], "test") && meas_tok_is(&tok[3], "starting:")) {
			if ((rc = context_line(c)) < 0)
				return rc;
			if (n >= 5 && perf_token(&tok[4], op, sizeof(op)))
				snprintf(c->b.op_file, sizeof(c->b.op_file), "%s", op);
			return 0;
		}
		if (n >= 5 && meas_tok_is(&tok[1], "nThread") && meas_tok_is(&tok[3], "nGpus")) {
			int t;
			if ((rc = context_line(c)) < 0)
				return rc;
			if (meas_num_int(tok[2].s, (size_t)tok[2].len, &t) == 0 &&
			    meas_num_int(tok[4].s, (size_t)tok[4].len, &v) == 0 && t > 0 && v > 0) {
				c->b.ngpus_hdr = t * v;
				c->b.r.gpus_per_thread = v;
			}
			return 0;
		}
		if (n >= 3 && meas_tok_is(&tok[1], "Using") && meas_tok_is(&tok[2], "devices"))
			return context_line(c);
		if (n >= 3 && meas_tok_is(&tok[1], "Rank"))
			return rank_line(c, tok, n) < 0 ? -PLUMB_ERUNTIME : 0;
		if (n >= 5 && meas_tok_is(&tok[1], "Avg") && meas_tok_is(&tok[2], "bus")) {
			double bw;
			if (meas_num_double(tok[n - 1].s, (size_t)tok[n - 1].len, &bw) == 0)
				c->b.r.avg_busbw = bw;
			return 0;
		}
		if (command_line(tok + 1, n - 1, op, sizeof(op), &v)) {
			if ((rc = context_line(c)) < 0)
				return rc;
			snprintf(c->b.op_file, sizeof(c->b.op_file), "%s", op);
			c->b.ngpus_cmd = v;
			return 0;
		}
		rc = header_line(c, tok, n);
		return rc < 0 ? rc : 0;
	}
	if (n >= 2 && tok_digits(&tok[0]) && tok_digits(&tok[1]))
		return data_row(c, tok, n);
	if (command_line(tok, n, op, sizeof(op), &v)) {
		if ((rc = context_line(c)) < 0)
			return rc;
		snprintf(c->b.op_file, sizeof(c->b.op_file), "%s", op);
		c->b.ngpus_cmd = v;
	}
	return 0;
}

void meas_nccl_free(struct meas_nccl_file *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->nruns; i++)
		run_release(&f->runs[i]);
	free(f->runs);
	free(f);
}

int meas_nccl_parse(const char *buf, size_t len, const char *fname,
		    const struct meas_nccl_hint *hint,
		    struct meas_nccl_file **out, struct plumb_err *err)
{
	struct ctx c;
	struct meas_lines l;
	char *line;
	int rc;

	*out = NULL;
	if (!fname)
		fname = "<input>";
	if (hint && hint->op && !meas_nccl_op_name(hint->op))
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "unknown collective '%s' (expected allreduce, "
				     "allgather, reducescatter, alltoall, sendrecv "
				     "or broadcast)", hint->op);
	if (hint && hint->ngpus < 0)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "GPU count %d must be positive", hint->ngpus);
	if ((rc = meas_check_text(buf, len, fname, err)) < 0)
		return rc;
	memset(&c, 0, sizeof(c));
	c.fname = fname;
	c.hint = hint;
	c.err = err;
	build_reset(&c.b);
	c.f = calloc(1, sizeof(*c.f));
	if (!c.f)
		return plumb_err_set(err, PLUMB_ERUNTIME, fname, 0, 0, "out of memory");
	meas_lines_init(&l, buf, len, 1);
	while ((rc = meas_lines_next(&l, &line)) > 0) {
		c.line = l.lineno;
		if ((rc = do_line(&c, line)) < 0)
			break;
	}
	if (rc == -1)   /* meas_lines_next: out of memory */
		rc = oom(&c);
	if (rc == 0 && (rc = close_run(&c)) == 0 && c.f->nruns == 0)
		rc = plumb_err_set(err, PLUMB_EINPUT, fname, 0, 0,
				   "no nccl-tests data rows found (expected lines "
				   "like '8  2  float  sum  -1  38.83  0.00  0.00  0  "
				   "40.43  0.00  0.00  0' under a '# size count type ...' "
				   "header)");
	meas_lines_release(&l);
	if (rc < 0) {
		run_release(&c.b.r);
		meas_nccl_free(c.f);
		return rc;
	}
	*out = c.f;
	return 0;
}

int meas_nccl_parse_file(const char *path, const struct meas_nccl_hint *hint,
			 struct meas_nccl_file **out, struct plumb_err *err)
{
	char where[4096];
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	path = plumb_data_path(path, where, sizeof(where));
	if ((rc = meas_read_file(path, &buf, &len, err)) < 0)
		return rc;
	rc = meas_nccl_parse(buf, len, path, hint, out, err);
	free(buf);
	return rc;
}
