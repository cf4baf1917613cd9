/*
 * import_lspci.c - lspci output -> the PCIe tree of a scenario (see import.h).
 *
 * Four input shapes, detected by counting their typical lines:
 *   tree     `lspci -tv` / `lspci -t`: "-+-[0000:00]-+-01.1-[01]--+-00.0  NAME";
 *            each "+-"/"\-" marker column belongs to the bridge or root bus
 *            whose children start there, so the parent of every entry is
 *            found from the column of its marker;
 *   list     `lspci -vvv` (also plain `lspci` / `lspci -nn`): a header line
 *            "[DDDD:]BB:DD.F class: name" per device, indented detail lines
 *            (Bus: primary=/secondary=, NUMA node, LnkCap, ACSCtl);
 *   path     "NAME (DDDD:BB:DD.F)" then "-> DDDD:BB:DD.F NAME" lines, each
 *            bridge the parent of the line above;
 *   outline  "Root [DDDD:BB]" and "DD.F -> [BUS] NAME" lines (a hand-drawn
 *            tree: a root port with one endpoint per line).
 * All shapes give one list of devices with parent links; a device whose
 * parent is not known hangs on a root bus of its own bus number. When no
 * bridge says which buses it forwards (a flat listing), the parent is taken
 * to be the bridge with the highest address on a lower bus (lspci numbers
 * buses depth first).
 *
 * Folding: a bridge on a root bus is a root port; a bridge below a root port
 * or below a switch downstream port is a switch upstream port, and it forms
 * one switch node with its downstream ports. Subtrees without a GPU or NIC
 * are dropped, as are audio functions, placeholder and management endpoints.
 */
#include "import.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LS_MAX_DEV 8192
#define LS_MAX_COL 2048

enum { T_OTHER, T_GPU, T_NIC };
enum { M_TREE, M_LIST, M_PATH, M_OUTLINE };

struct pdev {
	int parent;             /* index, -1 = not known yet */
	int is_root;            /* a root bus, not a device */
	int is_bridge;
	int domain, bus, dev, fn;   /* bus -1 unknown */
	int sec, sub;           /* bridge: -1 unknown */
	char cls[48];           /* list mode class text */
	char name[160];
	int numa, gen, width, acs;  /* -1 unknown */
	int type;               /* T_* */
	int guessed;            /* -t: GPU guessed from functions 00.0 + 00.1 */
	int keep;               /* subtree holds a GPU or NIC */
	int node;               /* result node, -1 */
};

struct ls {
	const char *src;
	int n, cap;
	struct pdev *d;
	int has_names, any_sec, any_numa, mode;
};

static int add_dev(struct ls *L, struct plumb_err *err)
{
	struct pdev *p;

	if (L->n >= LS_MAX_DEV)
		return plumb_err_set(err, PLUMB_EINPUT, L->src, 0, 0,
				     "more than %d PCI devices", LS_MAX_DEV), -1;
	if (L->n == L->cap) {
		int ncap = L->cap ? L->cap * 2 : 256;
		struct pdev *nd = realloc(L->d, sizeof(*nd) * (size_t)ncap);
		if (!nd)
			return plumb_err_set(err, PLUMB_ERUNTIME, L->src, 0, 0,
					     "out of memory"), -1;
		L->d = nd;
		L->cap = ncap;
	}
	p = &L->d[L->n];
	memset(p, 0, sizeof(*p));
	p->parent = -1;
	p->bus = p->sec = p->sub = -1;
	p->numa = p->gen = p->width = p->acs = -1;
	p->node = -1;
	return L->n++;
}

static int hexv(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Parse n hex digits at s; -1 when they are not all hex. */
static int hexn(const char *s, int n)
{
	int v = 0, i, h;

	for (i = 0; i < n; i++) {
		if ((h = hexv((unsigned char)s[i])) < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* "DD.F" at s: 1 and dev/fn set, else 0. */
static int parse_devfn(const char *s, int *dev, int *fn)
{
	int d = hexn(s, 2);

	if (d < 0 || d > 31 || s[2] != '.' || s[3] < '0' || s[3] > '7')
		return 0;
	*dev = d;
	*fn = s[3] - '0';
	return 1;
}

/* "[DDDD:]BB:DD.F" at s: length consumed (7 or 12) or 0. */
static int parse_bdf(const char *s, int *dom, int *bus, int *dev, int *fn)
{
	int off = 0;

	*dom = 0;
	if (hexn(s, 4) >= 0 && s[4] == ':' && hexn(s + 5, 2) >= 0 && s[7] == ':') {
		*dom = hexn(s, 4);
		off = 5;
	}
	if ((*bus = hexn(s + off, 2)) < 0 || s[off + 2] != ':' ||
	    !parse_devfn(s + off + 3, dev, fn))
		return 0;
	if (isalnum((unsigned char)s[off + 7]))
		return 0;
	return off + 7;
}

static void copy_trim(char *dst, size_t n, const char *b, const char *e)
{
	size_t l;

	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	l = (size_t)(e - b) < n - 1 ? (size_t)(e - b) : n - 1;
	memcpy(dst, b, l);
	dst[l] = '\0';
}

/* ---- tree mode ---- */

struct tree_ctx {
	struct ls *L;
	int own[LS_MAX_COL];    /* marker column -> parent index, -1 none */
	int implicit;           /* implicit root for fragments, -1 */
};

/* Bus of the children of element p. */
static int child_bus(const struct ls *L, int p)
{
	return L->d[p].is_root ? L->d[p].bus : L->d[p].sec;
}

/* Parse entries starting at column pos of line (length len) under parent. */
static int tree_entry(struct tree_ctx *T, const char *line, int len, int pos, int parent,
		      struct plumb_err *err)
{
	struct ls *L = T->L;

	while (pos < len) {
		int k, q, dev, fn;
		if (line[pos] == '[') {
			int dom = 0, bus;
			const char *r = memchr(line + pos, ']', (size_t)(len - pos));
			if (!r)
				return 0;
			if (r - (line + pos) == 8 && line[pos + 5] == ':') {
				dom = hexn(line + pos + 1, 4);
				bus = hexn(line + pos + 6, 2);
			} else if (r - (line + pos) == 3) {
				bus = hexn(line + pos + 1, 2);
			} else {
				return 0;
			}
			if (dom < 0 || bus < 0)
				return 0;
			if ((k = add_dev(L, err)) < 0)
				return -1;
			L->d[k].is_root = 1;
			L->d[k].domain = dom;
			L->d[k].bus = bus;
			q = (int)(r - line);
			/* "]-+-CHILD" or "]---CHILD" */
			if (q + 4 >= len || line[q + 1] != '-' || line[q + 3] != '-')
				return 0;
			if (line[q + 2] == '+' && q + 2 < LS_MAX_COL)
				T->own[q + 2] = k;
			parent = k;
			pos = q + 4;
			continue;
		}
		if (pos + 4 > len || !parse_devfn(line + pos, &dev, &fn))
			return 0;
		if ((k = add_dev(L, err)) < 0)
			return -1;
		L->d[k].parent = parent;
		L->d[k].dev = dev;
		L->d[k].fn = fn;
		if (parent >= 0) {
			L->d[k].domain = L->d[parent].domain;
			L->d[k].bus = child_bus(L, parent);
		}
		q = pos + 4;
		if (q + 1 < len && line[q] == '-' && line[q + 1] == '[') {
			const char *r = memchr(line + q, ']', (size_t)(len - q));
			int sec, sub;
			L->d[k].is_bridge = 1;
			if (!r)
				return 0;
			sec = hexn(line + q + 2, 2);
			sub = line[q + 4] == '-' ? hexn(line + q + 5, 2) : sec;
			L->d[k].sec = sec;
			L->d[k].sub = sub;
			L->any_sec = 1;
			q = (int)(r - line);
			/* "]--+-CHILD" or "]----CHILD" or "]--" (empty) */
			if (q + 5 >= len || line[q + 1] != '-' || line[q + 2] != '-' ||
			    line[q + 4] != '-')
				return 0;
			if (line[q + 3] == '+' && q + 3 < LS_MAX_COL)
				T->own[q + 3] = k;
			parent = k;
			pos = q + 5;
			continue;
		}
		if (q < len && line[q] == ' ') {
			const char *e = line + len;
			copy_trim(L->d[k].name, sizeof(L->d[k].name), line + q, e);
			if (L->d[k].name[0])
				L->has_names = 1;
		}
		return 0;
	}
	return 0;
}

/* Tree line kind: position of its first entry marker, or -1. */
static int tree_start(const char *line, int len, int *kind)
{
	int pos = 0;

	while (pos < len && (line[pos] == ' ' || line[pos] == '|'))
		pos++;
	if (pos + 1 < len && line[pos] == '-' && line[pos + 1] == '[') {
		*kind = 0;      /* "-[0000:00]-+-" single root */
		return pos;
	}
	if (pos + 3 < len && line[pos] == '-' && line[pos + 1] == '+' && line[pos + 2] == '-' &&
	    line[pos + 3] == '[') {
		*kind = 1;      /* "-+-[0000:00]" first of several roots */
		return pos;
	}
	if (pos + 3 < len && (line[pos] == '+' || line[pos] == '\\') && line[pos + 1] == '-' &&
	    (line[pos + 2] == '[' || hexv((unsigned char)line[pos + 2]) >= 0)) {
		int d, f;
		if (line[pos + 2] != '[' && (pos + 6 > len || !parse_devfn(line + pos + 2, &d, &f)))
			return -1;
		*kind = 2;      /* "+-01.0" sibling */
		return pos;
	}
	return -1;
}

static int parse_tree_line(struct tree_ctx *T, const char *line, int len,
			   struct plumb_err *err)
{
	int kind, pos = tree_start(line, len, &kind), parent;

	if (pos < 0)
		return 0;
	if (kind == 0)
		return tree_entry(T, line, len, pos + 1, -1, err);
	if (kind == 1) {
		if (pos + 1 < LS_MAX_COL)
			T->own[pos + 1] = -1;
		return tree_entry(T, line, len, pos + 3, -1, err);
	}
	parent = pos < LS_MAX_COL ? T->own[pos] : -1;
	if (parent == -1 && line[pos + 2] != '[') {
		/* a fragment without its root bus line */
		if (T->implicit < 0) {
			int k = add_dev(T->L, err);
			if (k < 0)
				return -1;
			T->L->d[k].is_root = 1;
			T->implicit = k;
		}
		parent = T->implicit;
		if (pos < LS_MAX_COL)
			T->own[pos] = parent;
	}
	return tree_entry(T, line, len, pos + 2, line[pos + 2] == '[' ? -1 : parent, err);
}

/* ---- list, path and outline modes ---- */

/* Speed "32GT/s" -> PCIe generation, 0 unknown. */
static int gen_of(const char *s)
{
	double v = strtod(s, NULL);

	if (v > 60)
		return 6;
	if (v > 30)
		return 5;
	if (v > 15)
		return 4;
	if (v > 7)
		return 3;
	if (v > 4)
		return 2;
	if (v > 2)
		return 1;
	return 0;
}

static void parse_detail(struct ls *L, int k, const char *b, const char *e)
{
	struct pdev *d = &L->d[k];
	char buf[512];
	const char *p;

	copy_trim(buf, sizeof(buf), b, e);
	if (strncmp(buf, "NUMA node:", 10) == 0) {
		d->numa = atoi(buf + 10);
		if (d->numa < 0)
			d->numa = -1;
		else
			L->any_numa = 1;
	} else if (strncmp(buf, "Bus: primary=", 13) == 0 && d->is_bridge) {
		if ((p = strstr(buf, "secondary=")))
			d->sec = hexn(p + 10, 2);
		if ((p = strstr(buf, "subordinate=")))
			d->sub = hexn(p + 12, 2);
		if (d->sec >= 0)
			L->any_sec = 1;
	} else if (strncmp(buf, "LnkCap:", 7) == 0) {
		if ((p = strstr(buf, "Speed ")))
			d->gen = gen_of(p + 6);
		if ((p = strstr(buf, "Width x")))
			d->width = atoi(p + 7);
		if (d->gen <= 0)
			d->gen = -1;
		if (d->width != 1 && d->width != 2 && d->width != 4 && d->width != 8 &&
		    d->width != 16 && d->width != 32)
			d->width = -1;
	} else if (strncmp(buf, "ACSCtl:", 7) == 0) {
		d->acs = strstr(buf, "SrcValid+") && strstr(buf, "ReqRedir+") &&
			 strstr(buf, "CmpltRedir+") && strstr(buf, "UpstreamFwd+");
	}
}

/* Header "[DDDD:]BB:DD.F class: name" at line start: device index or -1. */
static int parse_header(struct ls *L, const char *b, const char *e, int *err_rc,
			struct plumb_err *err)
{
	int dom, bus, dev, fn, n, k;
	const char *c, *colon, *hash;
	char tmp[24];

	if (e - b < 8)
		return -1;
	copy_trim(tmp, sizeof(tmp), b, b + ((e - b) < 20 ? (e - b) : 20));
	if (!(n = parse_bdf(b, &dom, &bus, &dev, &fn)) || b[n] != ' ')
		return -1;
	if ((k = add_dev(L, err)) < 0) {
		*err_rc = -1;
		return -1;
	}
	L->d[k].domain = dom;
	L->d[k].bus = bus;
	L->d[k].dev = dev;
	L->d[k].fn = fn;
	c = b + n + 1;
	colon = NULL;
	{
		const char *p;
		for (p = c; p + 1 < e; p++)
			if (p[0] == ':' && p[1] == ' ') {
				colon = p;
				break;
			}
	}
	if (!colon)
		colon = c;
	copy_trim(L->d[k].cls, sizeof(L->d[k].cls), c, colon);
	hash = colon;
	while (hash < e && !(hash[0] == '#' && hash > colon && hash[-1] == ' '))
		hash++;
	{
		/* drop " (rev a1)", " (prog-if 00 [Normal decode])" */
		const char *cut = colon < e ? colon + 1 : e, *q;
		for (q = cut; q < hash; q++)
			if ((hash - q >= 6 && strncmp(q, " (rev ", 6) == 0) ||
			    (hash - q >= 9 && strncmp(q, " (prog-if", 9) == 0)) {
				hash = q;
				break;
			}
		copy_trim(L->d[k].name, sizeof(L->d[k].name), cut, hash);
	}
	L->d[k].is_bridge = strncmp(L->d[k].cls, "PCI bridge", 10) == 0 ||
			    strncmp(L->d[k].cls, "CardBus bridge", 14) == 0;
	if (L->d[k].name[0])
		L->has_names = 1;
	return k;
}

/* "NAME (DDDD:BB:DD.F)" or "-> DDDD:BB:DD.F NAME": device index or -1. */
static int parse_path_line(struct ls *L, const char *b, const char *e, int prev,
			   struct plumb_err *err, int *err_rc)
{
	const char *p = b, *open;
	int dom, bus, dev, fn, n, k;

	while (p < e && isspace((unsigned char)*p))
		p++;
	if (e - p > 3 && p[0] == '-' && p[1] == '>') {
		p += 2;
		while (p < e && *p == ' ')
			p++;
		if (prev < 0 || !(n = parse_bdf(p, &dom, &bus, &dev, &fn)))
			return -1;
		if ((k = add_dev(L, err)) < 0) {
			*err_rc = -1;
			return -1;
		}
		copy_trim(L->d[k].name, sizeof(L->d[k].name), p + n, e);
		L->d[k].is_bridge = 1;
		L->d[k].sec = L->d[prev].bus;
		L->any_sec = 1;
	} else {
		open = memchr(p, '(', (size_t)(e - p));
		if (!open || !(n = parse_bdf(open + 1, &dom, &bus, &dev, &fn)) || open[1 + n] != ')')
			return -1;
		if ((k = add_dev(L, err)) < 0) {
			*err_rc = -1;
			return -1;
		}
		copy_trim(L->d[k].name, sizeof(L->d[k].name), p, open);
	}
	L->d[k].domain = dom;
	L->d[k].bus = bus;
	L->d[k].dev = dev;
	L->d[k].fn = fn;
	L->has_names = 1;
	return k;
}

/* "Root [DDDD:BB]" -> root index; "DD.F <arrow> [BUS(-SUB)] NAME" -> endpoint. */
static int parse_outline_line(struct ls *L, const char *b, const char *e, int *root,
			      struct plumb_err *err)
{
	const char *p = b, *r;
	int dev = 0, fn = 0, k, ep;

	if (e - b > 14 && strncmp(b, "Root [", 6) == 0 && b[10] == ':' && b[13] == ']') {
		if ((k = add_dev(L, err)) < 0)
			return -1;
		L->d[k].is_root = 1;
		L->d[k].domain = hexn(b + 6, 4);
		L->d[k].bus = hexn(b + 11, 2);
		if (L->d[k].domain < 0 || L->d[k].bus < 0)
			L->d[k].domain = 0, L->d[k].bus = -1;
		*root = k;
		return 0;
	}
	if (*root < 0)
		return 0;
	/* skip box-drawing and blanks up to the first "DD.F " */
	while (p + 5 <= e && !(parse_devfn(p, &dev, &fn) && p[4] == ' ' &&
			       (p == b || !isalnum((unsigned char)p[-1]))))
		p++;
	if (p + 5 > e || !(r = memchr(p, '[', (size_t)(e - p))) || r + 4 > e ||
	    hexn(r + 1, 2) < 0)
		return 0;
	if ((k = add_dev(L, err)) < 0 || (ep = add_dev(L, err)) < 0)
		return -1;
	L->d[k].parent = *root;
	L->d[k].domain = L->d[*root].domain;
	L->d[k].bus = L->d[*root].bus;
	L->d[k].dev = dev;
	L->d[k].fn = fn;
	L->d[k].is_bridge = 1;
	L->d[k].sec = hexn(r + 1, 2);
	L->any_sec = 1;
	L->d[ep].parent = k;
	L->d[ep].domain = L->d[k].domain;
	L->d[ep].bus = L->d[k].sec;
	{
		const char *q = memchr(r, ']', (size_t)(e - r));
		copy_trim(L->d[ep].name, sizeof(L->d[ep].name), q ? q + 1 : e, e);
	}
	L->has_names = 1;
	return 0;
}

/* Choose the input shape by counting typical lines. */
static int detect(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int ntree = 0, nlist = 0, npath = 0, nout = 0;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p)), *q;
		int kind, d1, d2, d3, d4;
		if (!e)
			e = end;
		if (tree_start(p, (int)(e - p < LS_MAX_COL ? e - p : LS_MAX_COL), &kind) >= 0)
			ntree++;
		else if (e - p > 8 && parse_bdf(p, &d1, &d2, &d3, &d4))
			nlist++;
		else if (e - p > 6 && strncmp(p, "Root [", 6) == 0)
			nout++;
		for (q = p; q < e && isspace((unsigned char)*q); q++)
			;
		if (e - q > 3 && q[0] == '-' && q[1] == '>')
			npath++;
		p = e + 1;
	}
	if (ntree && ntree >= nlist)
		return M_TREE;
	if (nlist && nlist >= npath)
		return M_LIST;
	if (nout)
		return M_OUTLINE;
	if (npath)
		return M_PATH;
	return -1;
}

static int parse_all(struct ls *L, const char *text, size_t len, struct plumb_err *err)
{
	const char *p = text, *end = text + len;
	struct tree_ctx *T = NULL;
	int cur = -1, root = -1, prev = -1, i, rc = 0;

	if (L->mode == M_TREE) {
		if (!(T = malloc(sizeof(*T))))
			return plumb_err_set(err, PLUMB_ERUNTIME, L->src, 0, 0, "out of memory");
		T->L = L;
		T->implicit = -1;
		for (i = 0; i < LS_MAX_COL; i++)
			T->own[i] = -1;
	}
	while (p < end && rc >= 0) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *le;
		int k, erc = 0;
		if (!e)
			e = end;
		le = e;
		if (le > p && le[-1] == '\r')
			le--;
		switch (L->mode) {
		case M_TREE:
			rc = parse_tree_line(T, p, (int)(le - p < LS_MAX_COL ? le - p : LS_MAX_COL),
					     err);
			break;
		case M_LIST:
			if ((k = parse_header(L, p, le, &erc, err)) >= 0)
				cur = k;
			else if (erc < 0)
				rc = -1;
			else if (cur >= 0 && p < le && (*p == '\t' || *p == ' '))
				parse_detail(L, cur, p, le);
			else
				cur = -1;
			break;
		case M_PATH:
			k = parse_path_line(L, p, le, prev, err, &erc);
			if (erc < 0)
				rc = -1;
			prev = k;
			break;
		default:
			rc = parse_outline_line(L, p, le, &root, err);
			break;
		}
		p = e + 1;
	}
	free(T);
	return rc < 0 ? -PLUMB_EINPUT : 0;
}

/* ---- from the device list to the scenario ---- */

static int has(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

static void classify(struct pdev *d)
{
	int audio = has(d->name, "Audio Controller") || has(d->name, "Audio device") ||
		    has(d->name, "HD Audio") || has(d->cls, "Audio");
	int nvidia = has(d->name, "NVIDIA") || imp_gpu_model_from_name(d->name) != NULL;

	d->type = T_OTHER;
	if (d->is_root || d->is_bridge || audio)
		return;
	if (d->cls[0]) {
		if (has(d->name, "NVIDIA") &&
		    (has(d->cls, "3D controller") || has(d->cls, "VGA compatible") ||
		     has(d->cls, "Display controller")))
			d->type = T_GPU;
		else if ((has(d->cls, "Ethernet") || has(d->cls, "Infiniband")) && d->fn == 0)
			d->type = T_NIC;
		return;
	}
	if (nvidia && d->fn == 0)
		d->type = T_GPU;
	else if ((has(d->name, "Mellanox") || has(d->name, "ConnectX") ||
		  has(d->name, "Ethernet") || has(d->name, "InfiniBand") ||
		  has(d->name, "BlueField") || has(d->name, "GbE")) && d->fn == 0)
		d->type = T_NIC;
}

/* Give every device a parent; create root buses as needed. */
static int link_parents(struct ls *L, struct plumb_err *err)
{
	int i, j, n = L->n;

	for (i = 0; i < n; i++) {
		struct pdev *d = &L->d[i];
		int best = -1;
		if (d->is_root || d->parent >= 0)
			continue;
		for (j = 0; j < n; j++) {
			const struct pdev *b = &L->d[j];
			if (j == i || !b->is_bridge || b->domain != d->domain)
				continue;
			if (L->any_sec) {
				if (b->sec >= 0 && b->sec == d->bus && d->bus >= 0) {
					best = j;
					break;
				}
			} else if (b->bus >= 0 && b->bus < d->bus &&
				   (best < 0 || b->bus > L->d[best].bus ||
				    (b->bus == L->d[best].bus &&
				     b->dev * 8 + b->fn > L->d[best].dev * 8 + L->d[best].fn))) {
				best = j;
			}
		}
		if (best < 0) {
			/* a root bus of its own */
			for (j = 0; j < L->n; j++)
				if (L->d[j].is_root && L->d[j].domain == d->domain &&
				    L->d[j].bus == d->bus)
					break;
			if (j == L->n) {
				if ((j = add_dev(L, err)) < 0)
					return -PLUMB_EINPUT;
				d = &L->d[i];
				L->d[j].is_root = 1;
				L->d[j].domain = d->domain;
				L->d[j].bus = d->bus;
			}
			best = j;
		}
		d->parent = best;
	}
	/* cycles can only come from contradictory input: cut them */
	for (i = 0; i < L->n; i++) {
		int p = L->d[i].parent, steps = 0;
		while (p >= 0 && steps <= L->n) {
			p = L->d[p].parent;
			steps++;
		}
		if (steps > L->n)
			L->d[i].parent = -1, L->d[i].is_root = 1;
	}
	return 0;
}

/* -t without names: GPU = function 00.0 of a bus holding exactly 00.0 and 00.1. */
static int guess_gpus(struct ls *L)
{
	int i, j, n = 0;

	for (i = 0; i < L->n; i++) {
		int f0 = -1, cnt = 0, ok = 1;
		if (!L->d[i].is_bridge)
			continue;
		for (j = 0; j < L->n; j++) {
			const struct pdev *c = &L->d[j];
			if (c->parent != i)
				continue;
			cnt++;
			if (c->is_bridge || c->dev != 0 || c->fn > 1)
				ok = 0;
			else if (c->fn == 0)
				f0 = j;
		}
		if (ok && cnt == 2 && f0 >= 0) {
			L->d[f0].type = T_GPU;
			L->d[f0].guessed = 1;
			n++;
		}
	}
	return n;
}

static void short_model(char *dst, size_t n, const char *name)
{
	const char *b = NULL, *e = NULL, *p;

	/* the last [...] that is not a vendor:device id */
	for (p = name; (p = strchr(p, '[')) != NULL; p++) {
		const char *q = strchr(p, ']');
		if (!q)
			break;
		if (!(q - p == 10 && p[5] == ':') && q - p > 1) {
			b = p + 1;
			e = q;
		}
	}
	if (!b) {
		b = name;
		e = strstr(name, " (rev");
		if (!e)
			e = name + strlen(name);
	}
	copy_trim(dst, n, b, e);
}

static void set_bdf(char *dst, size_t n, const struct pdev *d, int with_devfn)
{
	if (d->bus < 0)
		dst[0] = '\0';
	else if (with_devfn)
		snprintf(dst, n, "%04x:%02x:%02x.%d", d->domain & 0xffff, d->bus & 0xff,
			 d->dev & 0x1f, d->fn & 7);
	else
		snprintf(dst, n, "%04x:%02x", d->domain & 0xffff, d->bus & 0xff);
}

struct emit {
	struct ls *L;
	struct imp_scn *s;
	const struct imp_opts *o;
	struct plumb_err *err;
};

static int emit_endpoint(struct emit *E, int i, int parent)
{
	struct pdev *d = &E->L->d[i];
	struct imp_node *nd;
	const char *m;
	int k = imp_add_node(E->s, d->type == T_GPU ? IMP_GPU : IMP_NIC, parent, E->L->src,
			     E->err);

	if (k < 0)
		return -1;
	nd = &E->s->nodes[k];
	d->node = k;
	nd->order = ((d->domain & 0xffff) << 16) | ((d->bus & 0xff) << 8) | (d->dev << 3) | d->fn;
	set_bdf(nd->bdf, sizeof(nd->bdf), d, 1);
	if (d->type == T_NIC) {
		short_model(nd->model, sizeof(nd->model), d->name);
		return 0;
	}
	m = imp_gpu_model_from_name(d->name);
	snprintf(nd->model, sizeof(nd->model), "%s",
		 m ? m : E->o->gpu_model ? E->o->gpu_model : "rtx-pro-6000");
	if (d->guessed)
		snprintf(nd->comment, sizeof(nd->comment),
			 "guessed: functions 00.0 + 00.1 behind a port; model not in the "
			 "input (--gpu-model)");
	else if (!m && d->name[0])
		snprintf(nd->comment, sizeof(nd->comment), "'%.90s' is not in the catalog "
			 "(--gpu-model)", d->name);
	else if (!m)
		snprintf(nd->comment, sizeof(nd->comment), "model not in the input (--gpu-model)");
	return 0;
}

static void link_attrs(struct imp_node *nd, const struct pdev *d)
{
	if (d->gen > 0 && d->gen <= 6)
		nd->gen = d->gen;
	if (d->width > 0)
		nd->width = d->width;
}

/* Switch from upstream port u under result node parent. */
static int emit_switch(struct emit *E, int u, int parent)
{
	struct ls *L = E->L;
	int k = imp_add_node(E->s, IMP_SW, parent, L->src, E->err), i, j, acs = -1;

	if (k < 0)
		return -1;
	L->d[u].node = k;
	link_attrs(&E->s->nodes[k], &L->d[u]);
	set_bdf(E->s->nodes[k].bdf, sizeof(E->s->nodes[k].bdf), &L->d[u], 1);
	if (L->d[u].name[0])
		short_model(E->s->nodes[k].model, sizeof(E->s->nodes[k].model), L->d[u].name);
	for (i = 0; i < L->n; i++) {
		const struct pdev *dp = &L->d[i];
		if (dp->parent != u || !dp->keep)
			continue;
		if (!dp->is_bridge) {
			if (emit_endpoint(E, i, k) < 0)
				return -1;
			continue;
		}
		if (dp->acs >= 0)
			acs = acs < 0 ? dp->acs : acs && dp->acs;
		for (j = 0; j < L->n; j++) {
			if (L->d[j].parent != i || !L->d[j].keep)
				continue;
			if (L->d[j].is_bridge ? emit_switch(E, j, k) < 0 : emit_endpoint(E, j, k) < 0)
				return -1;
		}
	}
	E->s->nodes[k].acs = acs;
	return 0;
}

static int emit_root(struct emit *E, int r)
{
	struct ls *L = E->L;
	int rc = imp_add_node(E->s, IMP_RC, -1, L->src, E->err), i, j;

	if (rc < 0)
		return -1;
	L->d[r].node = rc;
	set_bdf(E->s->nodes[rc].bdf, sizeof(E->s->nodes[rc].bdf), &L->d[r], 0);
	for (i = 0; i < L->n; i++) {
		const struct pdev *d = &L->d[i];
		int rp;
		if (d->parent != r || !d->keep)
			continue;
		if ((rp = imp_add_node(E->s, IMP_RP, rc, L->src, E->err)) < 0)
			return -1;
		if (!d->is_bridge) {
			snprintf(E->s->nodes[rp].comment, sizeof(E->s->nodes[rp].comment),
				 "the endpoint sits on the root bus; port added");
			if (emit_endpoint(E, i, rp) < 0)
				return -1;
			continue;
		}
		link_attrs(&E->s->nodes[rp], d);
		E->s->nodes[rp].acs = d->acs;
		set_bdf(E->s->nodes[rp].bdf, sizeof(E->s->nodes[rp].bdf), d, 1);
		for (j = 0; j < L->n; j++) {
			if (L->d[j].parent != i || !L->d[j].keep)
				continue;
			if (L->d[j].is_bridge ? emit_switch(E, j, rp) < 0 : emit_endpoint(E, j, rp) < 0)
				return -1;
		}
	}
	return 0;
}

/* CPU vendor from the names of devices on root buses. */
static enum imp_vendor vendor(const struct ls *L)
{
	int i, amd = 0, intel = 0;

	for (i = 0; i < L->n; i++) {
		const struct pdev *d = &L->d[i];
		if (d->parent < 0 || !L->d[d->parent].is_root || d->type != T_OTHER)
			continue;
		if (has(d->name, "Advanced Micro Devices") || has(d->name, "[AMD]") ||
		    has(d->name, "AMD "))
			amd++;
		else if (has(d->name, "Intel Corporation"))
			intel++;
	}
	return amd > intel ? IMP_CPU_AMD : intel > amd ? IMP_CPU_INTEL : IMP_CPU_OTHER;
}

/* Sockets and NUMA nodes of the emitted root complexes. */
static void place_sockets(struct ls *L, struct imp_scn *s, const struct imp_opts *o)
{
	int i, j, nroots = 0, idx = 0, nnuma = 0, numas[IMP_MAX_NUMA * 8];

	for (i = 0; i < L->n; i++)
		nroots += L->d[i].is_root;
	if (L->any_numa) {
		/* NUMA of a root bus: first device below it that reports one */
		for (i = 0; i < L->n; i++) {
			int r = i;
			if (L->d[i].numa < 0)
				continue;
			while (L->d[r].parent >= 0)
				r = L->d[r].parent;
			if (L->d[r].numa < 0)
				L->d[r].numa = L->d[i].numa;
		}
		for (i = 0; i < L->n; i++) {
			int v = L->d[i].is_root ? L->d[i].numa : -1;
			if (v < 0)
				continue;
			for (j = 0; j < nnuma && numas[j] != v; j++)
				;
			if (j == nnuma && nnuma < (int)(sizeof(numas) / sizeof(numas[0])))
				numas[nnuma++] = v;
		}
		for (i = 1; i < nnuma; i++)
			for (j = i; j > 0 && numas[j - 1] > numas[j]; j--) {
				int x = numas[j];
				numas[j] = numas[j - 1];
				numas[j - 1] = x;
			}
	}
	if (nnuma > 0 && nnuma <= IMP_MAX_NUMA && (!o->sockets || nnuma % o->sockets == 0)) {
		s->sockets = o->sockets ? o->sockets : nnuma;
		s->numa_per_socket = nnuma / s->sockets;
		for (i = 0; i < L->n; i++) {
			struct imp_node *nd;
			int rank = 0;
			if (!L->d[i].is_root || L->d[i].node < 0)
				continue;
			nd = &s->nodes[L->d[i].node];
			for (j = 0; j < nnuma; j++)
				if (numas[j] == L->d[i].numa)
					rank = j;
			nd->socket = rank / s->numa_per_socket;
			nd->numa = s->numa_per_socket > 1 ? rank : -1;
		}
		imp_note(s, "sockets from the %d NUMA node(s) the devices report%s", nnuma,
			 o->sockets ? " and --sockets" : "");
		return;
	}
	s->sockets = o->sockets ? o->sockets
				: (s->cpu_vendor == IMP_CPU_AMD && nroots >= 4 ? 2 : 1);
	s->numa_per_socket = 1;
	for (i = 0; i < L->n; i++) {
		if (!L->d[i].is_root)
			continue;
		if (L->d[i].node >= 0)
			s->nodes[L->d[i].node].socket = idx * s->sockets / (nroots ? nroots : 1);
		idx++;
	}
	imp_note(s, "no NUMA information: the %d root bus(es) were split in bus order into "
		 "%d socket(s)%s", nroots, s->sockets,
		 o->sockets ? " (--sockets)" : "; use --sockets N to change");
}

static int cmp_dev(const void *a, const void *b)
{
	const struct pdev *x = a, *y = b;
	long kx = ((long)x->domain << 20) | ((long)(x->bus + 1) << 8) | (x->dev << 3) | x->fn;
	long ky = ((long)y->domain << 20) | ((long)(y->bus + 1) << 8) | (y->dev << 3) | y->fn;

	return (kx > ky) - (kx < ky);
}

int imp_lspci_parse(const char *text, size_t len, const struct imp_opts *o,
		    struct imp_scn *s, struct plumb_err *err)
{
	struct ls L;
	struct emit E;
	const char *src = o->src ? o->src : "-";
	int rc, i, ngpu = 0, nguess = 0;

	if ((rc = imp_check_text(text, len, src, "lspci -tv, -t or -vvv", err)) < 0)
		return rc;
	memset(&L, 0, sizeof(L));
	L.src = src;
	imp_set_names(s, o, "lspci");
	if ((L.mode = detect(text, len)) < 0)
		return plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
				     "no lspci output found (expected lspci -tv, -t or -vvv lines "
				     "such as \"-[0000:00]-+-01.0\" or \"00:01.0 PCI bridge: ...\")");
	if ((rc = parse_all(&L, text, len, err)) < 0)
		goto out;
	if (L.mode == M_LIST)   /* lspci sorts by address; keep it so for any input */
		qsort(L.d, (size_t)L.n, sizeof(L.d[0]), cmp_dev);
	if (L.mode == M_LIST && (rc = link_parents(&L, err)) < 0)
		goto out;
	if (L.mode == M_PATH && (rc = link_parents(&L, err)) < 0)
		goto out;
	for (i = 0; i < L.n; i++) {
		classify(&L.d[i]);
		if (has(L.d[i].name, "Placeholder") || has(L.d[i].name, "management endpoint"))
			L.d[i].type = T_OTHER;
	}
	if (!L.has_names && L.mode == M_TREE)
		nguess = guess_gpus(&L);
	for (i = 0; i < L.n; i++) {
		int p;
		if (L.d[i].type == T_OTHER)
			continue;
		ngpu += L.d[i].type == T_GPU;
		for (p = i; p >= 0 && !L.d[p].keep; p = L.d[p].parent)
			L.d[p].keep = 1;
	}
	if (ngpu == 0) {
		for (i = 0; i < L.n && !L.d[i].keep; i++)
			;
		if (i == L.n) {
			int ndev = 0;
			for (i = 0; i < L.n; i++)
				ndev += !L.d[i].is_root;
			rc = plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
					   "no GPU or NIC in the lspci output (%d device(s) read)",
					   ndev);
			goto out;
		}
	}
	s->cpu_vendor = vendor(&L);
	E.L = &L;
	E.s = s;
	E.o = o;
	E.err = err;
	for (i = 0; i < L.n; i++)
		if (L.d[i].is_root && L.d[i].keep && emit_root(&E, i) < 0) {
			rc = -PLUMB_EINPUT;
			goto out;
		}
	place_sockets(&L, s, o);
	if (nguess)
		imp_note(s, "lspci -t has no names: %d GPU(s) guessed as buses holding exactly "
			 "functions 00.0 and 00.1 behind a port", nguess);
	if (L.mode == M_LIST && !L.any_sec)
		imp_note(s, "no bridge bus ranges in the input: parents inferred from bus numbers");
	rc = 0;
out:
	free(L.d);
	return rc;
}
