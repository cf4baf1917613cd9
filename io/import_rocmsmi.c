/*
 * import_rocmsmi.c - `rocm-smi --showtopo` and `amd-smi topology` -> the
 * class matrix of import_tm.h, whose tree io/import_tmbuild.c rebuilds as
 * it does for `nvidia-smi topo -m`.
 *
 * What the tools print (tests/data/import/ holds public captures):
 *  - rocm-smi --showtopo: sections headed "==== <title> ====": "Weight
 *    between two GPUs", "Hops between two GPUs", "Link Type between two
 *    GPUs" (matrices with GPU0.. labels, 0 on the diagonal) and "Numa
 *    Nodes" ("GPU[0] : (Topology) Numa Node: 0").
 *  - amd-smi topology: "ACCESS TABLE:", "WEIGHT TABLE:", "HOPS TABLE:",
 *    "LINK TYPE TABLE:" ... each followed by a header of PCI addresses and
 *    one row per GPU ("SELF" on the diagonal); no NUMA node per GPU.
 * Meaning (AMD's MI200 optimization guide, quoted in ROCm/rocm-systems
 * issue 5763): link type XGMI or PCIE; hops 1 = joined by xGMI, 2 = PCIe
 * under one CPU socket, 3 = PCIe across sockets.
 *
 * Classes: XGMI -> a one-link bond (C_NV, written as the scenario's xgmi
 * section); PCIE -> NODE with hops 2 or the same NUMA node, SYS with hops 3
 * or different NUMA nodes, NODE when neither is known. Neither tool shows
 * PCIe switches, so each GPU gets a root complex of its own; GPUs are
 * numbered in the tools' order (GPU0.. or the rows' PCI addresses).
 */
#include "import_tm.h"
#include "scn.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TBL_NONE, TBL_LINK, TBL_HOPS, TBL_NUMA, TBL_OTHER };

struct rs {
	int amd;                        /* amd-smi topology (else rocm-smi) */
	int n;                          /* GPUs: the first matrix's header */
	char lab[TM_MAX_EP][32];
	int link[TM_MAX_EP][TM_MAX_EP]; /* 0 unknown, 1 XGMI, 2 PCIE */
	int hops[TM_MAX_EP][TM_MAX_EP]; /* 0 unknown */
	int numa[TM_MAX_EP];            /* -1 unknown */
	int have_link;
};

/* Next line of [*p, end) into buf (cut at size - 1, \r dropped); its
 * number in *no. Returns 0 at the end. */
static int get_line(const char **p, const char *end, char *buf, size_t size, int *no)
{
	const char *b = *p, *e;
	size_t n;
	if (b >= end)
		return 0;
	for (e = b; e < end && *e != '\n'; e++)
		;
	*p = e < end ? e + 1 : end;
	n = (size_t)(e - b);
	if (n && b[n - 1] == '\r')
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(buf, b, n);
	buf[n] = '\0';
	(*no)++;
	return 1;
}

/* Split s at blanks into tok (at most max); the count. Modifies s. */
static int words(char *s, char **tok, int max)
{
	int n = 0;
	while (*s && n < max) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* The table a title line opens, or TBL_NONE when the line is no title. */
static int table_of(const char *l, int *amd)
{
	if (l[0] == '#')
		return TBL_NONE;        /* a comment of the capture */
	if (strchr(l, '=') && (strstr(l, "between two GPUs") || strstr(l, "Numa Nodes"))) {
		*amd = 0;
		return strstr(l, "Link Type") ? TBL_LINK : strstr(l, "Hops") ? TBL_HOPS :
		       strstr(l, "Numa Nodes") ? TBL_NUMA : TBL_OTHER;
	}
	if (isupper((unsigned char)l[0]) && strstr(l, " TABLE:")) {
		*amd = 1;
		return strncmp(l, "LINK TYPE TABLE:", 16) == 0 ? TBL_LINK :
		       strncmp(l, "HOPS TABLE:", 11) == 0 ? TBL_HOPS : TBL_OTHER;
	}
	return TBL_NONE;
}

static int label_index(const struct rs *r, const char *s)
{
	int i;
	for (i = 0; i < r->n; i++)
		if (strcmp(r->lab[i], s) == 0)
			return i;
	return -1;
}

/* "GPU[3] : (Topology) Numa Node: 1" */
static void numa_line(struct rs *r, const char *l)
{
	const char *p = strstr(l, "Numa Node:");
	int g;
	if (!p || sscanf(l, "GPU[%d]", &g) != 1)
		return;
	p += 10;
	while (*p == ' ')
		p++;
	if (g >= 0 && g < r->n && isdigit((unsigned char)*p))
		r->numa[g] = atoi(p);
}

/* Read every table of the input into r. */
static int read_tables(struct rs *r, const char *text, size_t len, const char *src,
		       struct plumb_err *err)
{
	const char *p = text, *end = text + len;
	char line[TM_MAX_LINE], *tok[TM_MAX_EP + 2];
	int no = 0, tbl = TBL_NONE, cols = 0, colmap[TM_MAX_EP + 1], i, k, amd = -1;

	for (i = 0; i < TM_MAX_EP; i++)
		r->numa[i] = -1;
	while (get_line(&p, end, line, sizeof(line), &no)) {
		int t = table_of(line, &amd), nt;
		if (t != TBL_NONE) {
			tbl = t;
			cols = 0;
			r->amd = amd;
			continue;
		}
		if (tbl == TBL_NUMA) {
			numa_line(r, line);
			continue;
		}
		if (tbl == TBL_NONE || tbl == TBL_OTHER)
			continue;
		nt = words(line, tok, TM_MAX_EP + 2);
		if (nt == 0 || line[0] == '=')
			continue;
		if (!cols) {
			/* the header: labels only */
			if (nt > TM_MAX_EP || nt > IMP_MAX_GPUS)
				return plumb_err_set(err, PLUMB_EINPUT, src, no, 1,
						     "more than %d GPUs in the %s matrix",
						     IMP_MAX_GPUS, r->amd ? "amd-smi" : "rocm-smi");
			for (k = 0; k < nt; k++) {
				int g = label_index(r, tok[k]);
				if (g < 0) {
					if (r->n >= TM_MAX_EP)
						break;
					g = r->n++;
					snprintf(r->lab[g], sizeof(r->lab[g]), "%s", tok[k]);
				}
				colmap[k] = g;
			}
			cols = nt;
			continue;
		}
		if ((i = label_index(r, tok[0])) < 0)
			continue;               /* not a row of this matrix */
		if (nt != cols + 1)
			return plumb_err_set(err, PLUMB_EINPUT, src, no, 1,
					     "row %s has %d cells, the header %d", tok[0], nt - 1, cols);
		for (k = 1; k < nt; k++) {
			int j = colmap[k - 1];
			const char *c = tok[k];
			if (j == i) {
				if (strcmp(c, "0") && strcmp(c, "SELF") && strcmp(c, "N/A"))
					return plumb_err_set(err, PLUMB_EINPUT, src, no, 1,
							     "%s's own cell is '%s', not 0 or SELF",
							     tok[0], c);
				continue;
			}
			if (tbl == TBL_LINK) {
				if (strcmp(c, "XGMI") == 0)
					r->link[i][j] = 1;
				else if (strcmp(c, "PCIE") == 0)
					r->link[i][j] = 2;
				else
					return plumb_err_set(err, PLUMB_EINPUT, src, no, 1,
							     "link type '%s' between %s and %s is "
							     "neither XGMI nor PCIE", c, tok[0], r->lab[j]);
				r->have_link = 1;
			} else if (isdigit((unsigned char)c[0])) {
				r->hops[i][j] = atoi(c);
			}
		}
	}
	if (!r->have_link)
		return plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
				     "no link type matrix (rocm-smi --showtopo's \"Link Type between "
				     "two GPUs\" or amd-smi topology's \"LINK TYPE TABLE:\")");
	return 0;
}

/* The class matrix of import_tm.h from the tables. */
static int to_tm(const struct rs *r, struct tm *t, const char *src, struct plumb_err *err)
{
	int i, j;
	t->n = t->ngpu = r->n;
	for (i = 0; i < r->n; i++) {
		struct tm_ep *e = &t->ep[i];
		snprintf(e->label, sizeof(e->label), "GPU%d", i);
		e->is_gpu = 1;
		e->have_row = 1;
		e->numa = r->numa[i];
		for (j = 0; j < r->n; j++) {
			int l = r->link[i][j] ? r->link[i][j] : r->link[j][i];
			int h = r->hops[i][j] ? r->hops[i][j] : r->hops[j][i];
			if (i == j) {
				t->cls[i][j] = C_X;
				continue;
			}
			if (!l)
				return plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
						     "no link type between %s and %s", r->lab[i],
						     r->lab[j]);
			if (r->link[i][j] && r->link[j][i] && r->link[i][j] != r->link[j][i])
				return plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
						     "the link type between %s and %s differs "
						     "between its two cells", r->lab[i], r->lab[j]);
			if (l == 1) {
				t->cls[i][j] = C_NV;
				t->nv[i][j] = 1;
			} else if (h == 3 || (h != 2 && r->numa[i] >= 0 && r->numa[j] >= 0 &&
					      r->numa[i] != r->numa[j])) {
				t->cls[i][j] = C_SYS;
			} else {
				t->cls[i][j] = C_NODE;
			}
		}
	}
	return 0;
}

int imp_rocmsmi_parse(const char *text, size_t len, const struct imp_opts *o,
		      struct imp_scn *s, struct plumb_err *err)
{
	struct rs *r = NULL;
	struct tm *t = NULL;
	const char *src = o->src ? o->src : "-";
	int rc, i, numa = 0, xg = 0;

	if ((rc = imp_check_text(text, len, src, "rocm-smi --showtopo", err)) < 0)
		return rc;
	if (!o->gpu_model)
		return plumb_err_set(err, PLUMB_EUSAGE, src, 0, 0,
				     "rocm-smi and amd-smi topology do not name the GPU model: give "
				     "--gpu-model ID (mi300x, mi325x, mi355x, or an id of --gpu-catalog)");
	r = calloc(1, sizeof(*r));
	t = calloc(1, sizeof(*t));
	if (!r || !t) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, src, 0, 0, "out of memory");
		goto out;
	}
	t->src = src;
	if ((rc = read_tables(r, text, len, src, err)) < 0 || (rc = to_tm(r, t, src, err)) < 0)
		goto out;
	imp_set_names(s, o, r->amd ? "amd-smi" : "rocm-smi");
	imp_tm_complete(t, s);
	for (i = 0; i < r->n; i++)
		numa += r->numa[i] >= 0;
	for (i = 0; i < r->n * r->n; i++)
		xg |= r->link[i / r->n][i % r->n] == 1;
	s->xgmi = xg;
	if (imp_cpu_vendor_from_text(s, text, len) == 0)
		imp_note(s, "cpu_vendor: other: %s does not show the CPU; set host.cpu_vendor "
			 "(amd or intel)", r->amd ? "amd-smi topology" : "rocm-smi --showtopo");
	imp_note(s, "%s shows no PCIe switches: each GPU on a root complex of its own",
		 r->amd ? "amd-smi topology" : "rocm-smi --showtopo");
	if (!numa)
		imp_note(s, "NUMA placement unknown (%s): set the root complexes' sockets",
			 r->amd ? "amd-smi topology gives none" : "no Numa Nodes section");
	if ((rc = imp_tm_build(t, s, o, err)) < 0)
		goto out;
	imp_tm_finish(t, s);
	rc = 0;
out:
	free(r);
	free(t);
	return rc;
}
