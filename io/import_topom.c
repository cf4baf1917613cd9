/*
 * import_topom.c - `nvidia-smi topo -m` -> a PCIe tree that reproduces the
 * matrix (see import.h for the result's invariants).
 *
 * Reading. The first line holding a "GPU0" column label (not followed by a
 * cell value) is a header; the rows below it whose first token is a column
 * label are the matrix. A header whose rows hold P2P status values (OK, NS,
 * CNS, ...) is a `topo -p2p` matrix: skipped, kept only as a fallback list of
 * GPUs. ANSI underline codes (ESC[4m, ESC[0m, also written without the ESC)
 * are removed first. Rows with tabs are split at tabs (nvidia-smi's own
 * output), others at runs of blanks; a last cell fused with the CPU affinity
 * ("PH0-115", a cell cut short by nvidia-smi) is split back. A "truncated"
 * marker ends the matrix: cells missing from a row are taken from the mirror
 * cell, endpoints whose relation to another kept endpoint stays unknown are
 * left out (later ones first; then an endpoint without a row is taken back
 * when the other rows give all its cells), and a note says so.
 *
 * Rebuilding. Classes are ordered PIX < PXB < PHB < NODE < SYS; NV# hides the
 * PCIe relation and links nothing. Endpoints are grouped with union-find:
 * NUMA node (cells up to NODE, or NV#/declared NUMA agreement), root complex
 * (cells up to PHB), root port (cells up to PXB), leaf switch (PIX). A lone
 * endpoint on a root port hangs on it; several share one switch; several PIX
 * clusters get a top switch with one leaf switch each. Finally the model
 * class of every pair is recomputed and a note lists pairs the tree cannot
 * reproduce (input that is not a tree, e.g. SYS inside one NUMA node is
 * handled by giving such endpoints NUMA nodes of their own).
 */
#include "import_tm.h"
#include "scn.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* One input line: [b, e) in the text, 1-based number. */
struct tm_line {
	const char *b, *e;
	int no;
};

/* Copy a raw line into t->line without \r and ANSI/underline codes. */
static void clean_line(struct tm *t, const char *b, const char *e)
{
	size_t n = 0;

	while (b < e && n + 1 < sizeof(t->line)) {
		if (*b == '\x1b' && b + 1 < e && b[1] == '[') {
			b += 2;
			while (b < e && (isdigit((unsigned char)*b) || *b == ';'))
				b++;
			if (b < e)
				b++;
			continue;
		}
		if (*b == '[' && e - b >= 3 && (b[1] == '0' || b[1] == '4' || b[1] == '1') &&
		    b[2] == 'm') {
			b += 3;
			continue;
		}
		if (*b != '\r')
			t->line[n++] = *b;
		b++;
	}
	t->line[n] = '\0';
}

/*
 * Split t->line into tokens: at tabs when tabs == 1 (fields trimmed, empty
 * fields kept), else at runs of blanks. Modifies t->line.
 */
static void split(struct tm *t, int tabs)
{
	char *p = t->line;

	t->ntok = 0;
	if (tabs) {
		for (;;) {
			char *f = p, *q = strchr(p, '\t'), *end;
			if (q)
				*q = '\0';
			while (*f == ' ')
				f++;
			end = f + strlen(f);
			while (end > f && end[-1] == ' ')
				*--end = '\0';
			if (t->ntok < TM_MAX_TOK) {
				t->tokcol[t->ntok] = (int)(f - t->line) + 1;
				t->tok[t->ntok++] = f;
			}
			if (!q)
				break;
			p = q + 1;
		}
		return;
	}
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || t->ntok >= TM_MAX_TOK)
			break;
		t->tokcol[t->ntok] = (int)(p - t->line) + 1;
		t->tok[t->ntok++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* Class of a cell token, C_NV with *nv set, or C_UNK. */
static int parse_cell(const char *s, int *nv)
{
	int i;

	for (i = 0; i < (int)(sizeof(imp_tm_cls) / sizeof(imp_tm_cls[0])); i++)
		if (strcmp(s, imp_tm_cls[i]) == 0)
			return i;
	if (s[0] == 'N' && s[1] == 'V' && isdigit((unsigned char)s[2])) {
		char *end;
		long v = strtol(s + 2, &end, 10);
		if (*end == '\0' && v > 0 && v <= 64) {
			*nv = (int)v;
			return C_NV;
		}
	}
	return C_UNK;
}

/* topo -p2p status values */
static int is_p2p_value(const char *s)
{
	static const char *const v[] = { "OK", "CNS", "GNS", "TNS", "NS", "DR", "U", NULL };
	int i;

	for (i = 0; v[i]; i++)
		if (strcmp(s, v[i]) == 0)
			return 1;
	return 0;
}

/*
 * A cell cut short and fused with the CPU affinity ("PH0-115"): the class
 * whose name starts with the letters before the first digit, and *rest
 * pointing at the digits. C_UNK when s is not of that form.
 */
static int split_fused(const char *s, const char **rest)
{
	size_t n = 0;
	int i;

	while (isupper((unsigned char)s[n]))
		n++;
	if (n < 1 || !isdigit((unsigned char)s[n]))
		return C_UNK;
	for (i = C_PIX; i <= C_SYS; i++)
		if (strncmp(imp_tm_cls[i], s, n) == 0 && strlen(imp_tm_cls[i]) > n) {
			*rest = s + n;
			return i;
		}
	return C_UNK;
}

static int find_label(const struct tm *t, const char *s)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->ep[i].label, s) == 0)
			return i;
	return -1;
}

/*
 * If the current tokens form a matrix header, fill t->ep labels and return
 * the column count; else 0.
 */
static int header_labels(struct tm *t)
{
	int k, i, n = 0, ngpu = 0;
	int nv;

	for (k = 0; k < t->ntok; k++)
		if (strcmp(t->tok[k], "GPU0") == 0)
			break;
	if (k == t->ntok || (k + 1 < t->ntok && (strcmp(t->tok[k + 1], "X") == 0 ||
						 parse_cell(t->tok[k + 1], &nv) != C_UNK ||
						 is_p2p_value(t->tok[k + 1]))))
		return 0;
	if (k > 0 && strncmp(t->tok[0], "GPU", 3) == 0 && isdigit((unsigned char)t->tok[0][3]))
		return 0;   /* a row whose first cell happens to be read as GPU0 */
	t->over_col = 0;
	for (i = k; i < t->ntok; i++) {
		const char *s = t->tok[i];
		if (!s[0])
			continue;
		if (strcmp(s, "CPU") == 0 || strncmp(s, "CPU ", 4) == 0 ||
		    strncmp(s, "NUMA", 4) == 0 || strcmp(s, "Affinity") == 0)
			break;
		if (strncmp(s, "GPU", 3) == 0 && !isdigit((unsigned char)s[3]))
			break;  /* "GPU NUMA ID" */
		/* the import's limits: a matrix past them is refused here,
		 * never cut short */
		t->over_gpus = strncmp(s, "GPU", 3) == 0 && ngpu == IMP_MAX_GPUS;
		if (t->over_gpus || n == TM_MAX_EP) {
			t->over_col = t->tokcol[i];
			break;
		}
		ngpu += strncmp(s, "GPU", 3) == 0;
		snprintf(t->ep[n].label, sizeof(t->ep[n].label), "%s", s);
		t->ep[n].is_gpu = strncmp(s, "GPU", 3) == 0;
		t->ep[n].numa = -1;
		n++;
	}
	return n;
}

static int numa_value(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	v = strtol(s, &end, 10);
	return *end == '\0' && v < 1024 ? (int)v : -1;
}

/*
 * Parse the row in t->tok (label at tok[0]) for endpoint r. Sets t->cls/nv
 * of row r. Returns 0 or a negative plumb_rc (ragged row, bad cell).
 */
static int parse_row(struct tm *t, int r, int lineno, struct plumb_err *err)
{
	int j, k = 1, nv = 0, c, cut = 0;
	const char *fused = NULL;
	struct tm_ep *e = &t->ep[r];

	for (j = 0; j < t->n; j++, k++) {
		const char *s;
		if (k >= t->ntok) {
			if (t->ntok > 0 && strstr(t->tok[t->ntok - 1], "truncated"))
				cut = 1;
			if (cut)
				break;
			return plumb_err_set(err, PLUMB_EINPUT, t->src, lineno, 1,
					     "row %s has %d cells but the header has %d columns",
					     e->label, j, t->n);
		}
		s = t->tok[k];
		if (s[0] == '[' || strstr(s, "truncated")) {
			cut = 1;
			break;
		}
		c = parse_cell(s, &nv);
		if (c == C_UNK && j == t->n - 1)
			c = split_fused(s, &fused);
		if (c == C_UNK)
			return plumb_err_set(err, PLUMB_EINPUT, t->src, lineno, t->tokcol[k],
					     "row %s, column %s: unknown cell '%.32s' (expected X, "
					     "PIX, PXB, PHB, NODE, SYS or NV#)",
					     e->label, t->ep[j].label, s);
		if ((c == C_X) != (j == r))
			return plumb_err_set(err, PLUMB_EINPUT, t->src, lineno, t->tokcol[k],
					     c == C_X ? "row %s, column %s: 'X' off the diagonal"
						      : "row %s, column %s: the diagonal cell must be 'X'",
					     e->label, t->ep[j].label);
		t->cls[r][j] = (signed char)c;
		t->nv[r][j] = (unsigned char)(c == C_NV ? nv : 0);
	}
	e->have_row = 1;
	e->partial = cut;
	e->line = lineno;
	if (cut) {
		t->truncated = 1;
		return 0;
	}
	/* extras: CPU Affinity, then NUMA Affinity (tab mode may leave empties) */
	{
		const char *cpus = fused, *numa = NULL;
		for (; k < t->ntok; k++) {
			const char *s = t->tok[k];
			if (!cpus) {
				cpus = s;
			} else if (!numa) {
				numa = s;
				break;
			}
		}
		if (cpus && scn_cpulist_ok(cpus))
			snprintf(e->cpus, sizeof(e->cpus), "%s", cpus);
		if (numa)
			e->numa = numa_value(numa);
	}
	return 0;
}

/* NIC Legend lines "  NIC0: mlx5_0". */
static void parse_legend(struct tm *t)
{
	int i;

	if (t->ntok != 2)
		return;
	{
		size_t l = strlen(t->tok[0]);
		if (l < 2 || t->tok[0][l - 1] != ':')
			return;
		t->tok[0][l - 1] = '\0';
	}
	if ((i = find_label(t, t->tok[0])) >= 0 && !t->ep[i].is_gpu)
		snprintf(t->ep[i].nicname, sizeof(t->ep[i].nicname), "%s", t->tok[1]);
}

/* True when [b, e) contains word (no NUL needed). */
static int span_has(const char *b, const char *e, const char *word)
{
	size_t n = strlen(word);

	for (; (size_t)(e - b) >= n; b++)
		if (memcmp(b, word, n) == 0)
			return 1;
	return 0;
}

/* Next line of [p, end) into *l; returns 0 at the end. */
static int next_line(const char **p, const char *end, struct tm_line *l)
{
	const char *q;

	if (*p >= end)
		return 0;
	q = memchr(*p, '\n', (size_t)(end - *p));
	l->b = *p;
	l->e = q ? q : end;
	l->no++;
	*p = q ? q + 1 : end;
	return 1;
}

/*
 * Find and read the matrix. Returns 0 (t->n > 0) or a negative plumb_rc.
 */
static int read_matrix(struct tm *t, const char *text, size_t len, struct plumb_err *err)
{
	const char *p = text, *end = text + len;
	struct tm_line l = { NULL, NULL, 0 };
	struct tm_ep p2p[TM_MAX_EP];
	int np2p = 0, rc, i, j, in_legend = 0, found = 0;

	while (next_line(&p, end, &l)) {
		int ncol, is_p2p = 0, nrows = 0;
		const char *save_p;
		struct tm_line save_l;

		clean_line(t, l.b, l.e);
		if (found) {
			split(t, 0);
			if (t->ntok == 2 && strcmp(t->tok[0], "NIC") == 0 &&
			    strcmp(t->tok[1], "Legend:") == 0)
				in_legend = 1;
			else if (in_legend)
				parse_legend(t);
			continue;
		}
		split(t, 0);
		if (!(ncol = header_labels(t)))
			continue;
		if (t->over_col && t->over_gpus)
			return plumb_err_set(err, PLUMB_EINPUT, t->src, l.no, t->over_col,
					     "more than %d GPUs: plumb import reads one box of at most %d",
					     IMP_MAX_GPUS, IMP_MAX_GPUS);
		if (t->over_col)
			return plumb_err_set(err, PLUMB_EINPUT, t->src, l.no, t->over_col,
					     "more than %d devices (GPUs and NICs) in one matrix",
					     TM_MAX_EP);
		t->n = ncol;
		for (i = 0; i < ncol; i++)
			for (j = 0; j < ncol; j++)
				t->cls[i][j] = C_UNK;
		/* rows */
		for (;;) {
			int r;
			save_p = p;
			save_l = l;
			if (!next_line(&p, end, &l))
				break;
			clean_line(t, l.b, l.e);
			split(t, 0);
			if (t->ntok == 0 || (r = find_label(t, t->tok[0])) < 0) {
				if (span_has(l.b, l.e, "truncated"))
					t->truncated = 1;
				p = save_p;
				l = save_l;
				break;
			}
			if (nrows == 0 && t->ntok > 1 &&
			    (is_p2p_value(t->tok[1]) ||
			     (strcmp(t->tok[1], "X") == 0 && t->ntok > 2 && is_p2p_value(t->tok[2]))))
				is_p2p = 1;
			nrows++;
			if (is_p2p)
				continue;
			if (t->ep[r].have_row)
				return plumb_err_set(err, PLUMB_EINPUT, t->src, l.no, 1,
						     "row %s appears twice (first at line %d)",
						     t->ep[r].label, t->ep[r].line);
			clean_line(t, l.b, l.e);
			split(t, strchr(t->line, '\t') != NULL);
			if (t->ntok > 0 && !t->tok[0][0]) {   /* " \tGPU0\t..." */
				memmove(t->tok, t->tok + 1, sizeof(t->tok[0]) * (size_t)(t->ntok - 1));
				memmove(t->tokcol, t->tokcol + 1, sizeof(int) * (size_t)(t->ntok - 1));
				t->ntok--;
			}
			if ((rc = parse_row(t, r, l.no, err)) < 0)
				return rc;
		}
		if (is_p2p || nrows == 0) {
			if (np2p == 0 && is_p2p) {
				np2p = ncol;
				memcpy(p2p, t->ep, sizeof(p2p[0]) * (size_t)ncol);
			}
			memset(t->ep, 0, sizeof(t->ep[0]) * (size_t)ncol);
			t->n = 0;
			t->truncated = 0;
			continue;
		}
		found = 1;
	}
	if (found)
		return 0;
	if (np2p > 0) {
		t->n = np2p;
		memcpy(t->ep, p2p, sizeof(p2p[0]) * (size_t)np2p);
		for (i = 0; i < np2p; i++) {
			t->ep[i].have_row = 1;
			t->ep[i].numa = -1;
			for (j = 0; j < np2p; j++)
				t->cls[i][j] = i == j ? C_X : C_UNK;
		}
		t->p2p_only = 1;
		return 0;
	}
	return plumb_err_set(err, PLUMB_EINPUT, t->src, 0, 0,
			     "no nvidia-smi topo -m matrix found (expected a header line "
			     "with GPU0, GPU1, ... and one row per GPU)");
}

/* Every pair given in both rows must agree: topo -m prints a symmetric matrix. */
static int check_symmetric(const struct tm *t, struct plumb_err *err)
{
	int i, j;

	for (j = 0; j < t->n; j++)
		for (i = 0; i < j; i++) {
			int a = t->cls[i][j], b = t->cls[j][i];
			if (a == C_UNK || b == C_UNK ||
			    (a == b && t->nv[i][j] == t->nv[j][i]))
				continue;
			return plumb_err_set(err, PLUMB_EINPUT, t->src, t->ep[j].line, 1,
					     "row %s, column %s: %s%.0d, but row %s, column %s: "
					     "%s%.0d (topo -m matrices are symmetric)",
					     t->ep[j].label, t->ep[i].label,
					     b == C_NV ? "NV" : imp_tm_cls[b], t->nv[j][i],
					     t->ep[i].label, t->ep[j].label,
					     a == C_NV ? "NV" : imp_tm_cls[a], t->nv[i][j]);
		}
	return 0;
}

int imp_topom_parse(const char *text, size_t len, const struct imp_opts *o,
		    struct imp_scn *s, struct plumb_err *err)
{
	struct tm *t;
	int rc, i, kept = 0;
	const char *src = o->src ? o->src : "-";

	if ((rc = imp_check_text(text, len, src, "nvidia-smi topo -m", err)) < 0)
		return rc;
	t = calloc(1, sizeof(*t));
	if (!t)
		return plumb_err_set(err, PLUMB_ERUNTIME, src, 0, 0, "out of memory");
	t->src = src;
	imp_set_names(s, o, "topo-m");
	if ((rc = read_matrix(t, text, len, err)) < 0 ||
	    (rc = check_symmetric(t, err)) < 0)
		goto out;
	imp_tm_complete(t, s);
	for (i = 0; i < t->n; i++)
		kept += t->ep[i].keep;
	if (kept == 0) {
		rc = plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
				   "the topo -m matrix has no complete row");
		goto out;
	}
	if (imp_cpu_vendor_from_text(s, text, len) == 0)
		imp_note(s, "cpu_vendor: other: topo -m does not show the CPU vendor and the input "
			 "has no lscpu line or CPU name; set host.cpu_vendor (amd or intel)");
	if (!o->gpu_model)
		imp_note(s, "topo -m does not name the GPU model: GPUs written as " IMP_GPU_UNSET
			 ", which does not load until set to a catalog id; or give --gpu-model ID");
	if ((rc = imp_tm_build(t, s, o, err)) < 0)
		goto out;
	imp_tm_finish(t, s);
	rc = 0;
out:
	free(t);
	return rc;
}
