/*
 * import_lspci.c - read lspci output into a device list (import_int.h);
 * io/import_pcitree.c builds the scenario tree from it.
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
 * All shapes give one list of devices. The tree and outline shapes link
 * each device to its parent here; the list and path shapes record bridge bus
 * ranges, from which io/import_pcitree.c finds the parents.
 */
#include "import_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int imp_ls_add(struct imp_ls *L, struct plumb_err *err)
{
	struct imp_pdev *p;

	if (L->n >= LS_MAX_DEV)
		return plumb_err_set(err, PLUMB_EINPUT, L->src, 0, 0,
				     "more than %d PCI devices", LS_MAX_DEV), -1;
	if (L->n == L->cap) {
		int ncap = L->cap ? L->cap * 2 : 256;
		struct imp_pdev *nd = realloc(L->d, sizeof(*nd) * (size_t)ncap);
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
	p->gpu = -1;
	p->line = L->lineno;
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

void imp_copy_trim(char *dst, size_t n, const char *b, const char *e)
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

/* Copy the name [b, e) of device k, found on line (starting at line), and
 * note the column where it starts. */
static void set_name(struct imp_ls *L, int k, const char *line, const char *b, const char *e)
{
	const char *p = b;

	imp_copy_trim(L->d[k].name, sizeof(L->d[k].name), b, e);
	while (p < e && isspace((unsigned char)*p))
		p++;
	L->d[k].col = (int)(p - line) + 1;
}

/* ---- tree mode ---- */

struct tree_ctx {
	struct imp_ls *L;
	int own[LS_MAX_COL];    /* marker column -> parent index, -1 none */
	int implicit;           /* implicit root for fragments, -1 */
};

/* Bus of the children of element p. */
static int child_bus(const struct imp_ls *L, int p)
{
	return L->d[p].is_root ? L->d[p].bus : L->d[p].sec;
}

/* Parse entries starting at column pos of line (length len) under parent. */
static int tree_entry(struct tree_ctx *T, const char *line, int len, int pos, int parent,
		      struct plumb_err *err)
{
	struct imp_ls *L = T->L;

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
			if ((k = imp_ls_add(L, err)) < 0)
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
		if ((k = imp_ls_add(L, err)) < 0)
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
			int sec, sub, blen;
			L->d[k].is_bridge = 1;
			if (!r)
				return 0;
			blen = (int)(r - (line + q + 2));   /* "01" or "61-73" */
			sec = blen >= 2 ? hexn(line + q + 2, 2) : -1;
			sub = blen >= 5 && line[q + 4] == '-' ? hexn(line + q + 5, 2) : sec;
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
			set_name(L, k, line, line + q, e);
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
			int k = imp_ls_add(T->L, err);
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

static void parse_detail(struct imp_ls *L, int k, const char *b, const char *e)
{
	struct imp_pdev *d = &L->d[k];
	char buf[512];
	const char *p;

	imp_copy_trim(buf, sizeof(buf), b, e);
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
static int parse_header(struct imp_ls *L, const char *b, const char *e, int *err_rc,
			struct plumb_err *err)
{
	int dom, bus, dev, fn, n, k;
	const char *c, *colon, *hash;

	if (e - b < 8)
		return -1;
	if (!(n = parse_bdf(b, &dom, &bus, &dev, &fn)) || b[n] != ' ')
		return -1;
	if ((k = imp_ls_add(L, err)) < 0) {
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
	imp_copy_trim(L->d[k].cls, sizeof(L->d[k].cls), c, colon);
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
		set_name(L, k, b, cut, hash);
	}
	L->d[k].is_bridge = strncmp(L->d[k].cls, "PCI bridge", 10) == 0 ||
			    strncmp(L->d[k].cls, "CardBus bridge", 14) == 0;
	if (L->d[k].name[0])
		L->has_names = 1;
	return k;
}

/* The device at dom:bus:dev.fn (a root bus when root), added when new
 * (a bridge unless root); its index or -1 with *err_rc set. */
static int pp_find(struct imp_ls *L, int root, int dom, int bus, int dev, int fn, int *err_rc,
		   struct plumb_err *err)
{
	int k;
	for (k = 0; k < L->n; k++) {
		const struct imp_pdev *d = &L->d[k];
		if (d->is_root == root && d->domain == dom && d->bus == bus &&
		    (root || (d->dev == dev && d->fn == fn)))
			return k;
	}
	if ((k = imp_ls_add(L, err)) < 0) {
		*err_rc = -1;
		return -1;
	}
	L->d[k].domain = dom;
	L->d[k].bus = bus;
	if (root) {
		L->d[k].is_root = 1;
	} else {
		L->d[k].dev = dev;
		L->d[k].fn = fn;
		L->d[k].is_bridge = 1;
		snprintf(L->d[k].cls, sizeof(L->d[k].cls), "PCI bridge");
	}
	return k;
}

/*
 * `lspci -PP`: "BB:DD.F/BB:DD.F/.../BB:DD.F class: name", the device and
 * the bridges above it from its root port down. The first element hangs on
 * its root bus, each next one on the one before; the last is read as a
 * list header. Device index of the last, or -1 (not such a line, or
 * *err_rc set).
 */
static int parse_pp(struct imp_ls *L, const char *b, const char *e, int *err_rc,
		    struct plumb_err *err)
{
	const char *p = b;
	int dom, bus, dev, fn, n, prev, k;

	if (!(n = parse_bdf(p, &dom, &bus, &dev, &fn)) || p[n] != '/')
		return -1;
	if ((prev = pp_find(L, 1, dom, bus, 0, 0, err_rc, err)) < 0)
		return -1;
	while ((n = parse_bdf(p, &dom, &bus, &dev, &fn)) && p[n] == '/') {
		if ((k = pp_find(L, 0, dom, bus, dev, fn, err_rc, err)) < 0)
			return -1;
		if (L->d[k].parent < 0)
			L->d[k].parent = prev;
		prev = k;
		p += n + 1;
	}
	if ((k = parse_header(L, p, e, err_rc, err)) < 0)
		return -1;
	L->d[k].parent = prev;
	L->pp = 1;
	return k;
}

/* "NAME (DDDD:BB:DD.F)" or "-> DDDD:BB:DD.F NAME": device index or -1. */
static int parse_path_line(struct imp_ls *L, const char *b, const char *e, int prev,
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
		if ((k = imp_ls_add(L, err)) < 0) {
			*err_rc = -1;
			return -1;
		}
		set_name(L, k, b, p + n, e);
		L->d[k].is_bridge = 1;
		L->d[k].sec = L->d[prev].bus;
		L->any_sec = 1;
	} else {
		open = memchr(p, '(', (size_t)(e - p));
		if (!open || !(n = parse_bdf(open + 1, &dom, &bus, &dev, &fn)) || open[1 + n] != ')')
			return -1;
		if ((k = imp_ls_add(L, err)) < 0) {
			*err_rc = -1;
			return -1;
		}
		set_name(L, k, b, p, open);
	}
	L->d[k].domain = dom;
	L->d[k].bus = bus;
	L->d[k].dev = dev;
	L->d[k].fn = fn;
	L->has_names = 1;
	return k;
}

/* "Root [DDDD:BB]" -> root index; "DD.F <arrow> [BUS(-SUB)] NAME" -> endpoint. */
static int parse_outline_line(struct imp_ls *L, const char *b, const char *e, int *root,
			      struct plumb_err *err)
{
	const char *p = b, *r;
	int dev = 0, fn = 0, k, ep;

	if (e - b > 14 && strncmp(b, "Root [", 6) == 0 && b[10] == ':' && b[13] == ']') {
		if ((k = imp_ls_add(L, err)) < 0)
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
	if ((k = imp_ls_add(L, err)) < 0 || (ep = imp_ls_add(L, err)) < 0)
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
		set_name(L, ep, b, q ? q + 1 : e, e);
	}
	L->has_names = 1;
	return 0;
}

/*
 * Copy the line at *p into buf (NUL-terminated, cut at LS_MAX_COL bytes, a
 * final '\r' dropped) and advance *p past it. Returns the copied length, or
 * -1 at the end of the text. Parsers read only this copy, so the text need
 * not be NUL-terminated.
 */
static int next_line(const char **p, const char *end, char *buf)
{
	const char *e;
	size_t n;

	if (*p >= end)
		return -1;
	e = memchr(*p, '\n', (size_t)(end - *p));
	if (!e)
		e = end;
	n = (size_t)(e - *p) < LS_MAX_COL ? (size_t)(e - *p) : LS_MAX_COL;
	memcpy(buf, *p, n);
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	*p = e < end ? e + 1 : end;
	return (int)n;
}

/* Choose the input shape by counting typical lines. */
static int detect(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	char line[LS_MAX_COL + 1];
	int ntree = 0, nlist = 0, npath = 0, nout = 0, n;

	while ((n = next_line(&p, end, line)) >= 0) {
		const char *q;
		int kind, d1, d2, d3, d4;
		if (tree_start(line, n, &kind) >= 0)
			ntree++;
		else if (n > 8 && parse_bdf(line, &d1, &d2, &d3, &d4))
			nlist++;
		else if (strncmp(line, "Root [", 6) == 0)
			nout++;
		for (q = line; isspace((unsigned char)*q); q++)
			;
		if (q[0] == '-' && q[1] == '>' && strlen(q) > 3)
			npath++;
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

static int parse_all(struct imp_ls *L, const char *text, size_t len, struct plumb_err *err)
{
	const char *p = text, *end = text + len;
	struct tree_ctx *T = NULL;
	char line[LS_MAX_COL + 1];
	int cur = -1, root = -1, prev = -1, i, rc = 0, n;

	if (L->mode == M_TREE) {
		if (!(T = malloc(sizeof(*T))))
			return plumb_err_set(err, PLUMB_ERUNTIME, L->src, 0, 0, "out of memory");
		T->L = L;
		T->implicit = -1;
		for (i = 0; i < LS_MAX_COL; i++)
			T->own[i] = -1;
	}
	L->lineno = 0;
	while (rc >= 0 && (n = next_line(&p, end, line)) >= 0) {
		const char *le = line + n;
		int k, erc = 0;
		L->lineno++;
		switch (L->mode) {
		case M_TREE:
			rc = parse_tree_line(T, line, n, err);
			break;
		case M_LIST:
			if ((k = parse_pp(L, line, le, &erc, err)) >= 0 ||
			    (erc == 0 && (k = parse_header(L, line, le, &erc, err)) >= 0))
				cur = k;
			else if (erc < 0)
				rc = -1;
			else if (cur >= 0 && (line[0] == '\t' || line[0] == ' '))
				parse_detail(L, cur, line, le);
			else
				cur = -1;
			break;
		case M_PATH:
			k = parse_path_line(L, line, le, prev, err, &erc);
			if (erc < 0)
				rc = -1;
			prev = k;
			break;
		default:
			rc = parse_outline_line(L, line, le, &root, err);
			break;
		}
	}
	free(T);
	return rc < 0 ? -(err && err->code ? err->code : PLUMB_EINPUT) : 0;
}

int imp_ls_read(struct imp_ls *L, const char *text, size_t len, struct plumb_err *err)
{
	if ((L->mode = detect(text, len)) < 0)
		return plumb_err_set(err, PLUMB_EINPUT, L->src, 0, 0,
				     "no lspci output found (expected lspci -tv, -t or -vvv lines "
				     "such as \"-[0000:00]-+-01.0\" or \"00:01.0 PCI bridge: ...\")");
	return parse_all(L, text, len, err);
}
