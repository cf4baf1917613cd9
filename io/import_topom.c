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
#include "import.h"
#include "scn.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define TM_MAX_EP 128
#define TM_MAX_LINE 4096
#define TM_MAX_TOK 192

enum { C_UNK = -1, C_X = 0, C_PIX, C_PXB, C_PHB, C_NODE, C_SYS, C_NV };
static const char *const cls_names[] = { "X", "PIX", "PXB", "PHB", "NODE", "SYS" };

struct tm_ep {
	char label[32];
	int is_gpu;
	int have_row, partial;
	int line;               /* of the row, once have_row */
	int numa;               /* declared NUMA Affinity, -1 unknown */
	char cpus[128];         /* CPU Affinity, "" unknown */
	char nicname[64];       /* from the NIC Legend */
	int keep;
	int node;               /* node index in the result */
};

struct tm {
	const char *src;
	int n, ngpu;
	struct tm_ep ep[TM_MAX_EP];
	signed char cls[TM_MAX_EP][TM_MAX_EP];
	unsigned char nv[TM_MAX_EP][TM_MAX_EP];
	int truncated;
	int p2p_only;           /* endpoints come from a topo -p2p matrix */
	int over_col;           /* header: column of the first label past a limit, 0 none */
	int over_gpus;          /* ... the limit was IMP_MAX_GPUS (else TM_MAX_EP) */
	/* scratch */
	char line[TM_MAX_LINE];
	char *tok[TM_MAX_TOK];
	int tokcol[TM_MAX_TOK];
	int ntok;
};

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

	for (i = 0; i < (int)(sizeof(cls_names) / sizeof(cls_names[0])); i++)
		if (strcmp(s, cls_names[i]) == 0)
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
		if (strncmp(cls_names[i], s, n) == 0 && strlen(cls_names[i]) > n) {
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
					     b == C_NV ? "NV" : cls_names[b], t->nv[j][i],
					     t->ep[i].label, t->ep[j].label,
					     a == C_NV ? "NV" : cls_names[a], t->nv[i][j]);
		}
	return 0;
}

/* Fill unknown cells from their mirror; drop endpoints left with unknowns. */
static void complete(struct tm *t, struct imp_scn *s)
{
	int i, j, dropped = 0;
	char list[100] = "";

	for (i = 0; i < t->n; i++)
		for (j = 0; j < t->n; j++)
			if (t->cls[i][j] == C_UNK && t->cls[j][i] != C_UNK) {
				t->cls[i][j] = t->cls[j][i];
				t->nv[i][j] = t->nv[j][i];
			}
	for (i = 0; i < t->n; i++)
		t->ep[i].keep = t->ep[i].have_row;
	if (t->p2p_only)
		return;
	/* later endpoints go first, so GPU0.. are kept */
	for (i = t->n - 1; i >= 0; i--) {
		if (!t->ep[i].keep)
			continue;
		for (j = 0; j < t->n; j++)
			if (j != i && t->ep[j].keep && t->cls[i][j] == C_UNK) {
				t->ep[i].keep = 0;
				break;
			}
	}
	/* endpoints without a row whose cells the other rows give */
	for (i = 0; i < t->n; i++) {
		if (t->ep[i].keep)
			continue;
		for (j = 0; j < t->n; j++)
			if (j != i && t->ep[j].keep && t->cls[i][j] == C_UNK)
				break;
		if (j == t->n)
			t->ep[i].keep = 1;
	}
	for (i = 0; i < t->n; i++)
		if (!t->ep[i].keep) {
			size_t l = strlen(list);
			if (l + 40 < sizeof(list))
				snprintf(list + l, sizeof(list) - l, "%s%s", dropped ? " " : "",
					 t->ep[i].label);
			else if (l + 5 < sizeof(list) && !strstr(list, "..."))
				strcat(list, " ...");
			dropped++;
		}
	if (dropped)
		imp_note(s, "the matrix is truncated: %d endpoint(s) without a complete row "
			 "left out: %s", dropped, list);
	else if (t->truncated)
		imp_note(s, "the matrix is truncated; missing cells were taken from the "
			 "mirror cells");
}

static int uf_find(int *uf, int i)
{
	while (uf[i] != i)
		i = uf[i] = uf[uf[i]];
	return i;
}

static void uf_union(int *uf, int a, int b)
{
	a = uf_find(uf, a);
	b = uf_find(uf, b);
	if (a != b)
		uf[a > b ? a : b] = a < b ? a : b;   /* the smaller index is the root */
}

/* Model class between endpoints a and b of the built tree (for the check). */
static int model_class(const struct imp_scn *s, int a, int b)
{
	int ra = a, rb = b, pa, pb;

	while (s->nodes[ra].parent >= 0)
		ra = s->nodes[ra].parent;
	while (s->nodes[rb].parent >= 0)
		rb = s->nodes[rb].parent;
	if (s->nodes[ra].socket != s->nodes[rb].socket ||
	    s->nodes[ra].numa != s->nodes[rb].numa)
		return C_SYS;
	if (ra != rb)
		return C_NODE;
	pa = a;
	while (s->nodes[pa].kind != IMP_RP)
		pa = s->nodes[pa].parent;
	pb = b;
	while (s->nodes[pb].kind != IMP_RP)
		pb = s->nodes[pb].parent;
	if (pa != pb)
		return C_PHB;
	return s->nodes[a].parent == s->nodes[b].parent ? C_PIX : C_PXB;
}

/* Add endpoint i under parent. */
static int add_ep(struct tm *t, struct imp_scn *s, int i, int parent,
		  const struct imp_opts *o, struct plumb_err *err)
{
	struct tm_ep *e = &t->ep[i];
	int k = imp_add_node(s, e->is_gpu ? IMP_GPU : IMP_NIC, parent, t->src, err);

	if (k < 0)
		return -PLUMB_EINPUT;
	e->node = k;
	s->nodes[k].order = e->is_gpu ? i : 100000 + i;
	if (e->is_gpu) {
		snprintf(s->nodes[k].model, sizeof(s->nodes[k].model), "%s",
			 o->gpu_model ? o->gpu_model : "rtx-pro-6000");
		snprintf(s->nodes[k].comment, sizeof(s->nodes[k].comment),
			 "%s: model not in the input (--gpu-model)", e->label);
	} else {
		snprintf(s->nodes[k].model, sizeof(s->nodes[k].model), "%s",
			 e->nicname[0] ? e->nicname : e->label);
		snprintf(s->nodes[k].comment, sizeof(s->nodes[k].comment), "%s", e->label);
	}
	return 0;
}

/* Build the tree for the kept endpoints (see the top of the file). */
static int build(struct tm *t, struct imp_scn *s, const struct imp_opts *o,
		 struct plumb_err *err)
{
	int uf_numa[TM_MAX_EP], uf_rc[TM_MAX_EP], uf_rp[TM_MAX_EP], uf_pix[TM_MAX_EP];
	int numa_of[TM_MAX_EP], group_numa[TM_MAX_EP], ngroups = 0, order[TM_MAX_EP];
	int i, j, g, n = t->n, nn, folded = 0, split_numa = 0;

	for (i = 0; i < n; i++)
		uf_numa[i] = uf_rc[i] = uf_rp[i] = uf_pix[i] = i;
	for (i = 0; i < n; i++) {
		if (!t->ep[i].keep)
			continue;
		for (j = i + 1; j < n; j++) {
			int c = t->cls[i][j], di = t->ep[i].numa, dj = t->ep[j].numa;
			if (!t->ep[j].keep)
				continue;
			if (c >= C_PIX && c <= C_NODE)
				uf_union(uf_numa, i, j);
			else if ((c == C_NV || c == C_UNK) && di == dj)
				uf_union(uf_numa, i, j);
			else if (c == C_SYS && di >= 0 && di == dj)
				split_numa = 1;
			if (c >= C_PIX && c <= C_PHB)
				uf_union(uf_rc, i, j);
			if (c >= C_PIX && c <= C_PXB)
				uf_union(uf_rp, i, j);
			if (c == C_PIX)
				uf_union(uf_pix, i, j);
		}
	}
	if (split_numa)
		imp_note(s, "endpoints of one declared NUMA node are SYS to each other; "
			 "they get NUMA nodes of their own to reproduce the matrix");
	/* NUMA groups -> dense ids ordered by (declared NUMA, first member) */
	for (i = 0; i < n; i++)
		if (t->ep[i].keep && uf_find(uf_numa, i) == i)
			order[ngroups++] = i;
	for (i = 0; i < ngroups; i++) {
		int d = -1;
		for (j = 0; j < n; j++)
			if (t->ep[j].keep && uf_find(uf_numa, j) == order[i] && t->ep[j].numa >= 0) {
				d = t->ep[j].numa;
				break;
			}
		group_numa[i] = d < 0 ? 100000 + order[i] : d * TM_MAX_EP + order[i];
	}
	for (i = 1; i < ngroups; i++)
		for (j = i; j > 0 && group_numa[j - 1] > group_numa[j]; j--) {
			int x = group_numa[j];
			group_numa[j] = group_numa[j - 1];
			group_numa[j - 1] = x;
			x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (i = 0; i < n; i++)
		numa_of[i] = -1;
	for (g = 0; g < ngroups; g++)
		for (i = 0; i < n; i++)
			if (t->ep[i].keep && uf_find(uf_numa, i) == order[g])
				numa_of[i] = g % IMP_MAX_NUMA;
	nn = ngroups < IMP_MAX_NUMA ? ngroups : IMP_MAX_NUMA;
	if (ngroups > IMP_MAX_NUMA) {
		folded = 1;
		imp_note(s, "%d NUMA groups folded into %d (the scenario limit)", ngroups,
			 IMP_MAX_NUMA);
	}
	if (nn <= 2 || nn % 2) {
		s->sockets = nn > 0 ? nn : 1;
		s->numa_per_socket = 1;
	} else {
		s->sockets = 2;
		s->numa_per_socket = nn / 2;
		imp_note(s, "%d NUMA nodes: sockets: 2 with numa_per_socket: %d is a guess "
			 "(topo -m does not show sockets)", nn, nn / 2);
	}
	/* socket_cpus: one per NUMA node when every node has an affinity */
	if (!folded && nn > 0) {
		int all = 1;
		for (g = 0; g < nn && all; g++) {
			all = 0;
			for (i = 0; i < n; i++)
				if (t->ep[i].keep && numa_of[i] == g && t->ep[i].cpus[0]) {
					snprintf(s->socket_cpus[g], sizeof(s->socket_cpus[g]), "%s",
						 t->ep[i].cpus);
					all = 1;
					break;
				}
		}
		s->nsocket_cpus = all ? nn : 0;
	}

	/* root complexes in order of their first endpoint */
	for (i = 0; i < n; i++) {
		int rc, e;
		if (!t->ep[i].keep || uf_find(uf_rc, i) != i)
			continue;
		if ((rc = imp_add_node(s, IMP_RC, -1, t->src, err)) < 0)
			return -PLUMB_EINPUT;
		s->nodes[rc].numa = numa_of[i];
		s->nodes[rc].socket = numa_of[i] / s->numa_per_socket;
		if (s->numa_per_socket == 1)
			s->nodes[rc].numa = -1;
		for (e = i; e < n; e++) {
			int rp, sw = -1, nclu = 0, size = 0, k, m;
			if (!t->ep[e].keep || uf_find(uf_rc, e) != i || uf_find(uf_rp, e) != e)
				continue;
			if ((rp = imp_add_node(s, IMP_RP, rc, t->src, err)) < 0)
				return -PLUMB_EINPUT;
			for (k = e; k < n; k++)
				if (t->ep[k].keep && uf_find(uf_rp, k) == e) {
					size++;
					if (uf_find(uf_pix, k) == k)
						nclu++;
				}
			if (size == 1) {
				if (add_ep(t, s, e, rp, o, err) < 0)
					return -PLUMB_EINPUT;
				continue;
			}
			if ((sw = imp_add_node(s, IMP_SW, rp, t->src, err)) < 0)
				return -PLUMB_EINPUT;
			for (k = e; k < n; k++) {
				int leaf = sw;
				if (!t->ep[k].keep || uf_find(uf_rp, k) != e || uf_find(uf_pix, k) != k)
					continue;
				if (nclu > 1 && (leaf = imp_add_node(s, IMP_SW, sw, t->src, err)) < 0)
					return -PLUMB_EINPUT;
				for (m = k; m < n; m++)
					if (t->ep[m].keep && uf_find(uf_pix, m) == k &&
					    add_ep(t, s, m, leaf, o, err) < 0)
						return -PLUMB_EINPUT;
			}
		}
	}
	return 0;
}

/* NVLink section and the reproduction check. */
static void finish(struct tm *t, struct imp_scn *s)
{
	int i, j, ngpu = 0, nvpairs = 0, allsame = 1, first = 0, bad = 0;
	char list[160] = "";

	for (i = 0; i < t->n; i++) {
		if (!t->ep[i].keep || !t->ep[i].is_gpu)
			continue;
		ngpu++;
		for (j = i + 1; j < t->n; j++) {
			if (!t->ep[j].keep || !t->ep[j].is_gpu)
				continue;
			if (t->cls[i][j] == C_NV) {
				nvpairs++;
				if (!first)
					first = t->nv[i][j];
				else if (t->nv[i][j] != first)
					allsame = 0;
			} else {
				allsame = 0;
			}
		}
	}
	if (ngpu > 2 && allsame && nvpairs == ngpu * (ngpu - 1) / 2) {
		s->nvswitch = 1;
		s->links_per_gpu = first;
	} else {
		for (i = 0; i < t->n; i++)
			for (j = i + 1; j < t->n; j++)
				if (t->ep[i].keep && t->ep[j].keep && t->ep[i].is_gpu &&
				    t->ep[j].is_gpu && t->cls[i][j] == C_NV &&
				    s->npairs < IMP_MAX_PAIRS) {
					s->pairs[s->npairs].a = t->ep[i].node;
					s->pairs[s->npairs].b = t->ep[j].node;
					s->pairs[s->npairs].links = t->nv[i][j];
					s->npairs++;
				}
	}
	for (i = 0; i < t->n; i++)
		for (j = i + 1; j < t->n; j++) {
			int c = t->cls[i][j], m;
			if (!t->ep[i].keep || !t->ep[j].keep || c < C_PIX || c > C_SYS)
				continue;
			m = model_class(s, t->ep[i].node, t->ep[j].node);
			if (m != c) {
				size_t l = strlen(list);
				if (l + 40 < sizeof(list))
					snprintf(list + l, sizeof(list) - l, "%s%s-%s %s->%s",
						 bad ? ", " : "", t->ep[i].label, t->ep[j].label,
						 cls_names[c], cls_names[m]);
				bad++;
			}
		}
	if (bad)
		imp_note(s, "%d pair(s) cannot be reproduced by a PCIe tree: %s%s", bad, list,
			 strlen(list) + 45 >= sizeof(list) ? " ..." : "");
	if (t->p2p_only)
		imp_note(s, "no topo -m matrix in the input: GPUs taken from a topo -p2p "
			 "matrix, one root complex each (PCIe placement unknown)");
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
	complete(t, s);
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
		imp_note(s, "topo -m does not name the GPU model: GPUs written as rtx-pro-6000; "
			 "give --gpu-model ID");
	if ((rc = build(t, s, o, err)) < 0)
		goto out;
	finish(t, s);
	rc = 0;
out:
	free(t);
	return rc;
}
