/*
 * meas_p2p.c - read the output of CUDA's p2pBandwidthLatencyTest.
 *
 * The test prints a banner, a device list, "Device=i CAN Access Peer
 * Device=j" lines, then matrices, each under a title line:
 *
 *   Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
 *      D\D     0      1
 *        0 909.49  18.77
 *        1  19.95 919.12
 *
 * Latency sections hold two matrices, a "GPU" one and a "CPU" one, each
 * under its own header line. The parser is a small state machine: a title
 * opens a section, a header ("D\D", "GPU" or "CPU" and the column indices
 * 0..n-1) opens a matrix, rows fill it; blank lines and elision marks
 * ("[... elided ...]") keep the state, any other line closes the section.
 * Pasted excerpts are common, so rows may be missing, cells may be "—" and
 * a row may end in an elision mark: those cells stay NaN. A row with more
 * values than the header, or fewer without an elision mark, is an error,
 * as is a non-numeric or negative cell.
 *
 * A run is one invocation of the test: it starts at the banner, a device
 * list, or a matrix the current run already has or whose size differs.
 */
#include "meas.h"
#include "datadir.h"
#include "meas_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOK (MEAS_P2P_MAX_GPUS + 8)

struct pctx {
	const char *fname;
	struct plumb_err *err;
	int line;
	struct meas_p2p_file *f;
	int cap_runs;
	struct meas_p2p_run r;  /* the run being collected */
	int cap_dev;
	int sec;                /* section kind (GPU kind for latency), -1: none */
	int sec_line;
	int mat;                /* matrix receiving rows, -1: none */
	unsigned char seen[MEAS_P2P_MAX_GPUS];
};

static const char *const kind_names[MEAS_P2P_NKINDS] = {
	"connectivity", "uni_disabled", "uni_writes", "uni_reads",
	"bi_disabled", "bi_enabled", "lat_disabled_gpu", "lat_disabled_cpu",
	"lat_writes_gpu", "lat_writes_cpu", "lat_reads_gpu", "lat_reads_cpu",
};

/* Titles as the test prints them, for messages. */
static const char *const kind_titles[MEAS_P2P_NKINDS] = {
	"P2P Connectivity Matrix",
	"Unidirectional P2P=Disabled Bandwidth Matrix",
	"Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix",
	"Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix",
	"Bidirectional P2P=Disabled Bandwidth Matrix",
	"Bidirectional P2P=Enabled Bandwidth Matrix",
	"P2P=Disabled Latency Matrix (GPU)",
	"P2P=Disabled Latency Matrix (CPU)",
	"P2P=Enabled Latency (P2P Writes) Matrix (GPU)",
	"P2P=Enabled Latency (P2P Writes) Matrix (CPU)",
	"P2P=Enabled Latency (P2P Reads) Matrix (GPU)",
	"P2P=Enabled Latency (P2P Reads) Matrix (CPU)",
};

const char *meas_p2p_kind_name(enum meas_p2p_kind kind)
{
	return (unsigned)kind < MEAS_P2P_NKINDS ? kind_names[kind] : "?";
}

double meas_p2p_at(const struct meas_p2p_run *r, enum meas_p2p_kind kind,
		   int src, int dst)
{
	const struct meas_p2p_matrix *m;

	if ((unsigned)kind >= MEAS_P2P_NKINDS || src < 0 || dst < 0 ||
	    src >= r->n || dst >= r->n)
		return NAN;
	m = &r->m[kind];
	return m->present ? m->v[src * r->n + dst] : NAN;
}

static int oom(struct pctx *c)
{
	return plumb_err_set(c->err, PLUMB_ERUNTIME, c->fname, c->line, 0,
			     "out of memory");
}

static int is_latency(int kind)
{
	return kind >= MEAS_P2P_LAT_DISABLED_GPU;
}

static void run_release(struct meas_p2p_run *r)
{
	int k;

	for (k = 0; k < MEAS_P2P_NKINDS; k++)
		free(r->m[k].v);
	free(r->devices);
	memset(r, 0, sizeof(*r));
}

static int run_has_matrix(const struct meas_p2p_run *r)
{
	int k;

	for (k = 0; k < MEAS_P2P_NKINDS; k++)
		if (r->m[k].present)
			return 1;
	return 0;
}

/* Close the run: keep it when it has a matrix, count missing cells. */
static int close_run(struct pctx *c)
{
	struct meas_p2p_run *r = &c->r;
	int k, i;

	c->mat = -1;
	if (!run_has_matrix(r)) {
		run_release(r);
		c->cap_dev = 0;
		return 0;
	}
	for (k = 0; k < MEAS_P2P_NKINDS; k++) {
		struct meas_p2p_matrix *m = &r->m[k];
		if (!m->present) {
			free(m->v);
			memset(m, 0, sizeof(*m));
			continue;
		}
		m->nmissing = 0;
		for (i = 0; i < r->n * r->n; i++)
			if (isnan(m->v[i]))
				m->nmissing++;
	}
	if (c->f->nruns == c->cap_runs) {
		int ncap = c->cap_runs ? c->cap_runs * 2 : 4;
		struct meas_p2p_run *nr = realloc(c->f->runs, (size_t)ncap * sizeof(*nr));
		if (!nr)
			return oom(c);
		c->f->runs = nr;
		c->cap_runs = ncap;
	}
	c->f->runs[c->f->nruns++] = *r;
	memset(r, 0, sizeof(*r));
	c->cap_dev = 0;
	return 0;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Section kind of a title line, -1 when the line is not a title. */
static int title_kind(const char *s)
{
	int uni, bi, en, dis, reads;

	while (*s == ' ' || *s == '\t')
		s++;
	if (starts(s, "P2P Connectivity Matrix"))
		return MEAS_P2P_CONNECTIVITY;
	/* "Full 8x8 Unidirectional Bandwidth Matrix (GB/s)": a summary's P2P
	 * write matrix, the test's unidirectional P2P=Enabled one */
	if (strstr(s, "Unidirectional Bandwidth Matrix") && !strstr(s, "P2P="))
		return MEAS_P2P_UNI_WRITES;
	uni = starts(s, "Unidirectional P2P=");
	bi = starts(s, "Bidirectional P2P=");
	if (!uni && !bi && !starts(s, "P2P="))
		return -1;
	en = strstr(s, "P2P=Enabled") != NULL;
	dis = strstr(s, "P2P=Disabled") != NULL;
	reads = strstr(s, "Read") != NULL;
	if (en == dis)
		return -1;
	if (strstr(s, "Latency"))
		return dis ? MEAS_P2P_LAT_DISABLED_GPU :
		       reads ? MEAS_P2P_LAT_READS_GPU : MEAS_P2P_LAT_WRITES_GPU;
	if (!strstr(s, "Bandwidth") || (!uni && !bi))
		return -1;
	if (uni)
		return dis ? MEAS_P2P_UNI_DISABLED :
		       reads ? MEAS_P2P_UNI_READS : MEAS_P2P_UNI_WRITES;
	return dis ? MEAS_P2P_BI_DISABLED : MEAS_P2P_BI_ENABLED;
}

/* "GPU3" or "GPU3:" names device 3 in a summary table: the digits of t
 * (the token itself when it has no such prefix or suffix). */
static struct meas_tok gpu_label(const struct meas_tok *t)
{
	struct meas_tok d = *t;
	if (d.len > 3 && strncmp(d.s, "GPU", 3) == 0) {
		d.s += 3;
		d.len -= 3;
	}
	if (d.len > 1 && d.s[d.len - 1] == ':')
		d.len--;
	return d;
}

/* Columns of a header "D\D 0 1 2" / "GPU 0 1" / "CPU 0 1" / "Dst→ GPU0
 * GPU1", else 0. */
static int header_cols(const struct meas_tok *tok, int n)
{
	int i, v;

	if (n < 2 || !(meas_tok_is(&tok[0], "D\\D") || meas_tok_is(&tok[0], "GPU") ||
		       meas_tok_is(&tok[0], "CPU") || meas_tok_is(&tok[0], "Dst\xE2\x86\x92")))
		return 0;
	for (i = 1; i < n; i++) {
		struct meas_tok d = gpu_label(&tok[i]);
		if (meas_num_int(d.s, (size_t)d.len, &v) != 0 || v != i - 1)
			return 0;
	}
	return n - 1;
}

static int open_matrix(struct pctx *c, const struct meas_tok *tok, int ncols)
{
	struct meas_p2p_run *r = &c->r;
	struct meas_p2p_matrix *m;
	int kind = c->sec, i, rc;

	if (is_latency(kind) && meas_tok_is(&tok[0], "CPU"))
		kind++;
	if (ncols > MEAS_P2P_MAX_GPUS)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, tok[0].col,
				     "matrix has %d columns; at most %d GPUs are "
				     "supported", ncols, MEAS_P2P_MAX_GPUS);
	if (r->m[kind].present || (r->n && r->n != ncols)) {
		if ((rc = close_run(c)) < 0)
			return rc;
	}
	if (r->ndevices && r->ndevices != ncols)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, tok[0].col,
				     "matrix has %d columns but %d devices are listed "
				     "at line %d", ncols, r->ndevices, r->line);
	if (r->line == 0)
		r->line = c->sec_line;
	r->n = ncols;
	m = &r->m[kind];
	free(m->v);
	m->v = malloc((size_t)ncols * (size_t)ncols * sizeof(double));
	if (!m->v)
		return oom(c);
	for (i = 0; i < ncols * ncols; i++)
		m->v[i] = NAN;
	m->present = 0;
	m->line = c->sec_line;
	c->mat = kind;
	memset(c->seen, 0, sizeof(c->seen));
	return 0;
}

/* A cell that stands for "no value": dashes, N/A. */
static int missing_cell(const struct meas_tok *t)
{
	return meas_tok_is(t, "\xE2\x80\x94") || meas_tok_is(t, "\xE2\x80\x93") ||
	       meas_tok_is(t, "-") || meas_tok_is(t, "--") || meas_tok_icase(t, "N/A");
}

/* "[..." marks text left out. */
static char *elision(char *line)
{
	char *p = strstr(line, "[...");
	if (!p)
		p = strstr(line, "[\xE2\x80\xA6"); /* "[…" */
	return p;
}

static int matrix_row(struct pctx *c, char *line, struct meas_tok *tok, int n)
{
	struct meas_p2p_run *r = &c->r;
	struct meas_p2p_matrix *m = &r->m[c->mat];
	const char *title = kind_titles[c->mat];
	char *cut = elision(line);
	int row, i, nv;

	if (cut) {
		/* a value glued to the mark may be cut short: drop it */
		int glued = cut > line && cut[-1] != ' ' && cut[-1] != '\t';
		*cut = '\0';
		n = meas_split(line, tok, MAX_TOK);
		if (glued && n > 1)
			n--;
	}
	if (meas_num_int(tok[0].s, (size_t)tok[0].len, &row) != 0 || row < 0 || row >= r->n)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, tok[0].col,
				     "row index %.*s out of range in '%s' (it has %d "
				     "columns)", tok[0].len, tok[0].s, title, r->n);
	if (c->seen[row])
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, tok[0].col,
				     "row %d of '%s' appears twice", row, title);
	nv = n - 1;
	if (nv > r->n)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line,
				     tok[r->n + 1 < MAX_TOK ? r->n + 1 : MAX_TOK - 1].col,
				     "row %d of '%s' has %d values, the header has %d "
				     "columns", row, title, nv, r->n);
	if (nv < r->n && !cut) {
		const struct meas_tok *last = &tok[n - 1];
		return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line,
				     last->col + last->len,
				     "row %d of '%s' has %d values, the header has %d "
				     "columns (truncated row?)", row, title, nv, r->n);
	}
	for (i = 0; i < nv; i++) {
		const struct meas_tok *t = &tok[i + 1];
		double v;
		int rc;
		if (missing_cell(t))
			continue;
		rc = meas_num_double(t->s, (size_t)t->len, &v);
		if (rc == MEAS_NUM_RANGE)
			return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
					     "value '%.*s' is out of range", t->len, t->s);
		if (rc != MEAS_NUM_OK)
			return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
					     "value '%.*s' in '%s' is not a number",
					     t->len, t->s, title);
		if (v < 0)
			return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
					     "value '%.*s' in '%s' is negative",
					     t->len, t->s, title);
		if (c->mat == MEAS_P2P_CONNECTIVITY && v != 0 && v != 1)
			return plumb_err_set(c->err, PLUMB_EINPUT, c->fname, c->line, t->col,
					     "connectivity value '%.*s' is not 0 or 1",
					     t->len, t->s);
		m->v[row * r->n + i] = v;
	}
	c->seen[row] = 1;
	m->present = 1;
	return 0;
}

/* "Device: 0, NVIDIA A100-SXM4-80GB, pciBusID: 7, pciDeviceID: 0, ..." */
static int device_line(struct pctx *c, const char *s)
{
	struct meas_p2p_run *r = &c->r;
	struct meas_p2p_device d;
	const char *name, *bus, *e;
	int rc;

	memset(&d, 0, sizeof(d));
	s += strlen("Device:");
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	d.index = (int)strtol(s, NULL, 10);
	name = strchr(s, ',');
	if (!name)
		return 0;
	name++;
	while (*name == ' ')
		name++;
	bus = strstr(name, ", pciBusID:");
	meas_copy(d.name, sizeof(d.name), name, bus ? (size_t)(bus - name) : strlen(name));
	if (bus) {
		bus += strlen(", pciBusID:");
		while (*bus == ' ')
			bus++;
		e = bus;
		while (*e && *e != ',' && *e != ' ')
			e++;
		meas_copy(d.bus, sizeof(d.bus), bus, (size_t)(e - bus));
	}
	if (run_has_matrix(r) || (d.index == 0 && r->ndevices > 0))
		if ((rc = close_run(c)) < 0)
			return rc;
	if (r->ndevices == c->cap_dev) {
		int ncap = c->cap_dev ? c->cap_dev * 2 : 8;
		struct meas_p2p_device *nd = realloc(r->devices, (size_t)ncap * sizeof(*nd));
		if (!nd)
			return oom(c);
		r->devices = nd;
		c->cap_dev = ncap;
	}
	if (r->line == 0)
		r->line = c->line;
	r->devices[r->ndevices++] = d;
	return 0;
}

/* An index of digits, then a value (digit, dot, dash, "N/A") or nothing:
 * "3  9.44  48.34" is a row, "8 GPUs were tested" and "13b. note" are not. */
static int looks_like_row(const struct meas_tok *tok, int n)
{
	int i;
	unsigned char c;

	for (i = 0; i < tok[0].len; i++)
		if (!isdigit((unsigned char)tok[0].s[i]))
			return 0;
	if (n < 2)
		return 1;
	c = (unsigned char)tok[1].s[0];
	return isdigit(c) || c == '.' || c == '-' || c == '[' || c == 0xE2 ||
	       meas_tok_icase(&tok[1], "N/A");
}

static int do_line(struct pctx *c, char *line)
{
	struct meas_tok tok[MAX_TOK];
	const char *s = line;
	int n, k, rc;

	n = meas_split(line, tok, MAX_TOK);
	if (n > MAX_TOK)
		n = MAX_TOK;
	if (c->sec >= 0) {
		int ncols;
		if (n == 0 || (elision(line) && elision(line) == tok[0].s))
			return 0;
		if ((ncols = header_cols(tok, n)) > 0)
			return open_matrix(c, tok, ncols);
		if (c->mat >= 0 && n > 0)
			tok[0] = gpu_label(&tok[0]);   /* "GPU0:" rows of a summary */
		if (c->mat >= 0 && looks_like_row(tok, n))
			return matrix_row(c, line, tok, n);
		c->sec = -1;
		c->mat = -1;
	}
	if (n == 0)
		return 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if ((k = title_kind(s)) >= 0) {
		c->sec = k;
		c->sec_line = c->line;
		c->mat = -1;
		return 0;
	}
	if (starts(s, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]")) {
		if ((run_has_matrix(&c->r) || c->r.ndevices) && (rc = close_run(c)) < 0)
			return rc;
		c->r.line = c->line;
		return 0;
	}
	if (starts(s, "Device:"))
		return device_line(c, s);
	return 0;
}

void meas_p2p_free(struct meas_p2p_file *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->nruns; i++)
		run_release(&f->runs[i]);
	free(f->runs);
	free(f);
}

int meas_p2p_parse(const char *buf, size_t len, const char *fname,
		   struct meas_p2p_file **out, struct plumb_err *err)
{
	struct pctx c;
	struct meas_lines l;
	char *line;
	int rc;

	*out = NULL;
	if (!fname)
		fname = "<input>";
	if ((rc = meas_check_text(buf, len, fname, err)) < 0)
		return rc;
	memset(&c, 0, sizeof(c));
	c.fname = fname;
	c.err = err;
	c.sec = c.mat = -1;
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
				   "no p2pBandwidthLatencyTest matrix found (expected a "
				   "title such as 'Unidirectional P2P=Disabled Bandwidth "
				   "Matrix (GB/s)', a 'D\\D 0 1 ...' header and rows)");
	meas_lines_release(&l);
	if (rc < 0) {
		run_release(&c.r);
		meas_p2p_free(c.f);
		return rc;
	}
	*out = c.f;
	return 0;
}

int meas_p2p_parse_file(const char *path, struct meas_p2p_file **out,
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
	rc = meas_p2p_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
