/*
 * ytree.c - libyaml events -> struct ytree, and the typed getters.
 *
 * The tree is built from libyaml's event stream, one event at a time, with
 * an explicit stack of the open collections: nesting deeper than YMAX_DEPTH
 * is refused at the event that opens the 65th level, before the rest of the
 * document is read, so the work is linear in the input whatever its shape
 * (a million nested '[' is refused after about a thousand bytes). Nothing
 * recurses. An alias shares the node of its anchor, so a document with many
 * aliases stays linear in size; an alias to a node that is still open (the
 * node that contains it) is refused, so walks always terminate. A file holds
 * one document.
 */
#include "ytree.h"
#include "input.h"
#include "datadir.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YMAX_KEYS 10000   /* keys per mapping (duplicate check is quadratic) */
#define YMAX_DEPTH 64     /* nesting levels */
#define YCHUNK 256        /* nodes per allocation block */
/* Nodes one document may stand for with its aliases expanded ("billion
 * laughs": nine levels of ten aliases are 10^9 nodes in a few hundred
 * bytes). The tree shares an alias's node, but whatever walks or writes the
 * document whole (a sweep writes each point's scenario) pays the expanded
 * size, so it is counted while reading, as libyaml users do, and refused at
 * the alias that passes it. A 128-host scenario of aliased boxes is about
 * 10,000. */
#define YMAX_EXPANDED 1000000

/* Nodes are allocated in blocks that never move (nodes point at nodes). */
struct ychunk {
	struct ychunk *next;
	size_t used;
	struct ynode n[YCHUNK];
};

/* An open collection. */
struct frame {
	struct ynode *n;
	size_t cap;             /* room in n->keys / n->vals */
	struct ynode *key;      /* Y_MAP: the key waiting for its value */
	const char *anchor;     /* its anchor's name (the table's copy), or NULL */
};

/* Anchor name -> node; open addressing, size a power of two. */
struct anchor {
	char *name;
	struct ynode *n;
	int open;               /* the node is a collection still being read */
};

struct build {
	struct ytree *t;
	struct plumb_err *err;
	struct frame st[YMAX_DEPTH];
	int depth;              /* open collections */
	struct anchor *anc;
	size_t nanc, canc;
	int docs;               /* documents started */
};

static int oom(struct plumb_err *err)
{
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
}

static int at(struct build *b, const yaml_mark_t *m, const char *msg)
{
	return plumb_err_set(b->err, PLUMB_EINPUT, b->t->file, (int)m->line + 1,
			     (int)m->column + 1, "%s", msg);
}

static struct ynode *new_node(struct build *b, enum ynode_type ty, const yaml_mark_t *m)
{
	struct ychunk *c = b->t->chunks;
	struct ynode *n;
	if (!c || c->used == YCHUNK) {
		if (!(c = calloc(1, sizeof(*c))))
			return NULL;
		c->next = b->t->chunks;
		b->t->chunks = c;
	}
	n = &c->n[c->used++];
	n->type = ty;
	n->xsize = 1;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	return n;
}

static uint64_t hname(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static struct anchor *anchor_find(const struct build *b, const char *name)
{
	size_t i;
	if (!b->canc)
		return NULL;
	for (i = (size_t)hname(name) & (b->canc - 1); b->anc[i].name; i = (i + 1) & (b->canc - 1))
		if (!strcmp(b->anc[i].name, name))
			return &b->anc[i];
	return NULL;
}

/* Record (or redefine: YAML allows it, later aliases see the new node) an
 * anchor; its entry, or NULL when out of memory. */
static struct anchor *anchor_add(struct build *b, const char *name, struct ynode *n, int open)
{
	struct anchor *a = anchor_find(b, name);
	size_t i;
	if (!a && (b->nanc + 1) * 2 > b->canc) {
		size_t nc = b->canc ? b->canc * 2 : 64, j;
		struct anchor *na = calloc(nc, sizeof(*na));
		if (!na)
			return NULL;
		for (j = 0; j < b->canc; j++) {
			if (!b->anc[j].name)
				continue;
			for (i = (size_t)hname(b->anc[j].name) & (nc - 1); na[i].name; i = (i + 1) & (nc - 1))
				;
			na[i] = b->anc[j];
		}
		free(b->anc);
		b->anc = na;
		b->canc = nc;
	}
	if (!a) {
		char *d = malloc(strlen(name) + 1);
		if (!d)
			return NULL;
		strcpy(d, name);
		for (i = (size_t)hname(name) & (b->canc - 1); b->anc[i].name; i = (i + 1) & (b->canc - 1))
			;
		a = &b->anc[i];
		a->name = d;
		b->nanc++;
	}
	a->n = n;
	a->open = open;
	return a;
}

/* Add node n (starting at m) to the open collection, or make it the root. */
static int attach(struct build *b, struct ynode *n)
{
	struct frame *f;
	struct ynode *c;
	size_t i;

	if (!b->depth) {
		b->t->root = n;
		return 0;
	}
	f = &b->st[b->depth - 1];
	c = f->n;
	if (c->type == Y_MAP && !f->key) {
		if (n->type != Y_SCALAR)
			return plumb_err_set(b->err, PLUMB_EINPUT, b->t->file, n->line, n->col,
					     "mapping keys must be plain scalars");
		if (!n->quoted && strcmp(n->str, "<<") == 0)
			return plumb_err_set(b->err, PLUMB_EINPUT, b->t->file, n->line, n->col,
					     "YAML merge keys ('<<') are not supported; write the keys out");
		for (i = 0; i < c->n; i++)
			if (strcmp(c->keys[i]->str, n->str) == 0)
				return plumb_err_set(b->err, PLUMB_EINPUT, b->t->file, n->line, n->col,
						     "duplicate key '%s' (first at line %d)",
						     n->str, c->keys[i]->line);
		if (c->n >= YMAX_KEYS)
			return plumb_err_set(b->err, PLUMB_EINPUT, b->t->file, c->line, c->col,
					     "mapping has more than 10000 keys");
		f->key = n;
		return 0;
	}
	if (c->n == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 4;
		struct ynode **nv = realloc(c->vals, nc * sizeof(*nv)), **nk;
		if (!nv)
			return oom(b->err);
		c->vals = nv;
		if (c->type == Y_MAP) {
			if (!(nk = realloc(c->keys, nc * sizeof(*nk))))
				return oom(b->err);
			c->keys = nk;
		}
		f->cap = nc;
	}
	if (c->type == Y_MAP) {
		c->keys[c->n] = f->key;
		f->key = NULL;
	}
	c->vals[c->n++] = n;
	return 0;
}

/* Add a finished child's expanded size to the open collection's (capped). */
static void grow_open(struct build *b, size_t x)
{
	struct ynode *p;
	if (b->depth == 0)
		return;
	p = b->st[b->depth - 1].n;
	p->xsize = p->xsize + x > YMAX_EXPANDED + 1 ? YMAX_EXPANDED + 1 : p->xsize + x;
}

/* The document's expanded size so far: the open collections' own plus the
 * closed root's. */
static size_t expanded(const struct build *b)
{
	size_t x = b->t->root ? b->t->root->xsize : 0;
	int i;
	for (i = 1; i < b->depth; i++)
		x += b->st[i].n->xsize;
	return x;
}

/* One event; 0, or a negative plumb_rc. */
static int on_event(struct build *b, const yaml_event_t *ev)
{
	const yaml_mark_t *m = &ev->start_mark;
	const yaml_char_t *anchor = NULL;
	struct anchor *a = NULL;
	struct ynode *n;
	int rc;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++)
			return at(b, m, "a second YAML document ('---'); a file holds one document");
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0) {
			struct frame *f = &b->st[--b->depth];
			/* the anchor of a closed collection may now be aliased */
			struct anchor *fa = f->anchor ? anchor_find(b, f->anchor) : NULL;
			if (fa && fa->n == f->n)
				fa->open = 0;
			grow_open(b, f->n->xsize);
		}
		return 0;
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
	case YAML_ALIAS_EVENT:
		break;
	default:
		return 0;
	}
	if (b->depth >= YMAX_DEPTH)
		return at(b, m, "nesting deeper than 64 levels");
	if (ev->type == YAML_ALIAS_EVENT) {
		a = anchor_find(b, (const char *)ev->data.alias.anchor);
		if (!a)
			return at(b, m, "YAML syntax: found undefined alias");
		if (a->open)
			return at(b, m, "alias refers to the node that contains it");
		grow_open(b, a->n->xsize);
		if (a->n->xsize > YMAX_EXPANDED || expanded(b) > YMAX_EXPANDED)
			return at(b, m, "aliases expand the document past 1,000,000 nodes "
				  "(YAML's billion laughs); write the values out or use fewer aliases");
		return attach(b, a->n);
	}
	if (ev->type == YAML_SCALAR_EVENT) {
		size_t len = ev->data.scalar.length;
		if (!(n = new_node(b, Y_SCALAR, m)) || !(n->str = malloc(len + 1)))
			return oom(b->err);
		memcpy(n->str, ev->data.scalar.value, len);
		n->str[len] = '\0';
		if (strlen(n->str) != len)
			return at(b, m, "NUL byte inside a scalar");
		n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		anchor = ev->data.scalar.anchor;
	} else {
		int map = ev->type == YAML_MAPPING_START_EVENT;
		if (!(n = new_node(b, map ? Y_MAP : Y_SEQ, m)))
			return oom(b->err);
		anchor = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
	}
	/* anchors before attaching: a key that is an anchored collection is
	 * refused either way, a scalar one is usable at once */
	if (anchor && !(a = anchor_add(b, (const char *)anchor, n, n->type != Y_SCALAR)))
		return oom(b->err);
	if ((rc = attach(b, n)) < 0)
		return rc;
	if (n->type == Y_SCALAR)
		grow_open(b, 1);
	if (n->type != Y_SCALAR) {
		struct frame *f = &b->st[b->depth++];
		f->n = n;
		f->cap = 0;
		f->key = NULL;
		f->anchor = a ? a->name : NULL;
	}
	return 0;
}

/* The error for libyaml's parser failure. */
static int parser_error(const yaml_parser_t *parser, const char *file, const char *buf,
			size_t len, struct plumb_err *err)
{
	const char *prob = parser->problem ? parser->problem : "YAML syntax error";
	if (parser->error == YAML_MEMORY_ERROR)
		return oom(err);
	if (parser->error == YAML_READER_ERROR) {
		/* libyaml gives a byte offset for encoding errors. */
		size_t off = parser->problem_offset, i, lstart = 0;
		int line = 1, bad = parser->problem_value;
		if (strstr(prob, "trailing") && off > 0 && off <= len) {
			/* Point at the lead byte of the broken sequence. */
			while (off > 0 && ((unsigned char)buf[off - 1] & 0xc0) == 0x80)
				off--;
			if (off > 0 && ((unsigned char)buf[off - 1] & 0xc0) == 0xc0)
				off--;
			bad = (unsigned char)buf[off];
		}
		for (i = 0; i < off && i < len; i++)
			if (buf[i] == '\n') {
				line++;
				lstart = i + 1;
			}
		if (bad >= 0 && strstr(prob, "UTF-8"))
			return plumb_err_set(err, PLUMB_EINPUT, file, line, (int)(off - lstart) + 1,
					     "invalid UTF-8 (byte 0x%02x); save the file as UTF-8",
					     (unsigned)bad & 0xffu);
		return plumb_err_set(err, PLUMB_EINPUT, file, line, (int)(off - lstart) + 1,
				     "cannot read the file as text: %s", prob);
	}
	if (parser->problem_mark.index < len && buf[parser->problem_mark.index] == '\t')
		return plumb_err_set(err, PLUMB_EINPUT, file, (int)parser->problem_mark.line + 1,
				     (int)parser->problem_mark.column + 1,
				     "tab character in indentation (YAML indents with spaces only)");
	return plumb_err_set(err, PLUMB_EINPUT, file, (int)parser->problem_mark.line + 1,
			     (int)parser->problem_mark.column + 1, "YAML syntax: %s%s%s", prob,
			     parser->context ? " " : "", parser->context ? parser->context : "");
}

int ytree_parse(const char *file, const char *buf, size_t len,
		struct ytree **out, struct plumb_err *err)
{
	yaml_parser_t parser;
	struct build b;
	struct ytree *t;
	const char *nul;
	size_t i;
	int rc = 0, done = 0;

	*out = NULL;
	if ((nul = memchr(buf, '\0', len))) {
		size_t off = (size_t)(nul - buf), lstart = 0;
		int line = 1;
		for (i = 0; i < off; i++)
			if (buf[i] == '\n') {
				line++;
				lstart = i + 1;
			}
		return plumb_err_set(err, PLUMB_EINPUT, file, line, (int)(off - lstart) + 1,
				     "binary data (NUL byte) in a YAML file");
	}
	if (!(t = calloc(1, sizeof(*t))))
		return oom(err);
	if (!(t->file = strdup(file))) {
		free(t);
		return oom(err);
	}
	if (!yaml_parser_initialize(&parser)) {
		free(t->file);
		free(t);
		return oom(err);
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	memset(&b, 0, sizeof(b));
	b.t = t;
	b.err = err;
	while (!done && rc == 0) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parser_error(&parser, file, buf, len, err);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	for (i = 0; i < b.canc; i++)
		free(b.anc[i].name);
	free(b.anc);
	if (rc < 0) {
		ytree_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int ytree_load(const char *path, struct ytree **out, struct plumb_err *err)
{
	char where[4096];
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	path = plumb_data_path(path, where, sizeof(where));
	if ((rc = input_read(path, &buf, &len, err)) < 0)
		return rc;
	rc = ytree_parse(path, buf, len, out, err);
	free(buf);
	return rc;
}

void ytree_free(struct ytree *t)
{
	struct ychunk *c, *next;
	size_t i;
	if (!t)
		return;
	for (c = t->chunks; c; c = next) {
		next = c->next;
		for (i = 0; i < c->used; i++) {
			free(c->n[i].str);
			free(c->n[i].keys);
			free(c->n[i].vals);
		}
		free(c);
	}
	free(t->file);
	free(t);
}

struct ynode *ymap_get(const struct ynode *m, const char *key)
{
	size_t i;
	if (!m || m->type != Y_MAP)
		return NULL;
	for (i = 0; i < m->n; i++)
		if (strcmp(m->keys[i]->str, key) == 0)
			return m->vals[i];
	return NULL;
}

int str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int row[128], prev, tmp;

	if (la > 120 || lb > 120)
		return 1000;
	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int best = prev + (tolower((unsigned char)a[i - 1]) !=
					   tolower((unsigned char)b[j - 1]));
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* Closest of choices to s when close enough to suggest, else NULL. */
static const char *suggest(const char *s, const char *const *choices)
{
	const char *best = NULL;
	int bd = 1000, i;
	for (i = 0; choices[i]; i++) {
		int d = str_distance(s, choices[i]);
		if (d < bd) {
			bd = d;
			best = choices[i];
		}
	}
	if (best && bd <= 1 + (int)strlen(best) / 3)
		return best;
	return NULL;
}

int yerr(const struct ytree *t, const struct ynode *n, int code,
	 struct plumb_err *err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return plumb_err_set(err, code, t->file, n ? n->line : 0, n ? n->col : 0,
			     "%s", msg);
}

int ymap_check_keys(const struct ytree *t, const struct ynode *m,
		    const char *what, const char *const *allowed,
		    struct plumb_err *err)
{
	size_t i;
	for (i = 0; i < m->n; i++) {
		const char *k = m->keys[i]->str;
		int j, ok = 0;
		for (j = 0; allowed[j]; j++)
			if (strcmp(k, allowed[j]) == 0)
				ok = 1;
		if (!ok) {
			const char *s = suggest(k, allowed);
			if (s)
				return yerr(t, m->keys[i], PLUMB_EINPUT, err,
					    "unknown key '%s' in %s (did you mean '%s'?)",
					    k, what, s);
			return yerr(t, m->keys[i], PLUMB_EINPUT, err,
				    "unknown key '%s' in %s", k, what);
		}
	}
	return 0;
}

static const char *type_name(enum ynode_type ty)
{
	return ty == Y_MAP ? "a mapping" : ty == Y_SEQ ? "a list" : "a single value";
}

int yexpect(const struct ytree *t, const struct ynode *n, enum ynode_type ty,
	    const char *what, struct plumb_err *err)
{
	if (n->type == ty)
		return 0;
	return yerr(t, n, PLUMB_EINPUT, err, "'%s' must be %s, not %s", what,
		    type_name(ty), type_name(n->type));
}

int yget_str(const struct ytree *t, const struct ynode *n, const char *what,
	     char *buf, size_t size, struct plumb_err *err)
{
	int rc = yexpect(t, n, Y_SCALAR, what, err);
	if (rc < 0)
		return rc;
	if (strlen(n->str) >= size)
		return yerr(t, n, PLUMB_EINPUT, err,
			    "'%s' is too long (at most %zu characters)", what, size - 1);
	memcpy(buf, n->str, strlen(n->str) + 1);
	return 0;
}

int yget_int(const struct ytree *t, const struct ynode *n, const char *what,
	     long lo, long hi, long *out, struct plumb_err *err)
{
	char *end;
	long v;
	int rc = yexpect(t, n, Y_SCALAR, what, err);
	if (rc < 0)
		return rc;
	errno = 0;
	v = strtol(n->str, &end, 10);
	if (n->str[0] != '\0' && *end == '\0' && errno == ERANGE)
		return yerr(t, n, PLUMB_EINPUT, err,
			    "'%s' must be between %ld and %ld, got %s", what, lo, hi, n->str);
	if (n->str[0] == '\0' || *end != '\0')
		return yerr(t, n, PLUMB_EINPUT, err,
			    "'%s' must be a whole number, got '%s'", what, n->str);
	if (v < lo || v > hi)
		return yerr(t, n, PLUMB_EINPUT, err,
			    "'%s' must be between %ld and %ld, got %ld", what, lo, hi, v);
	*out = v;
	return 0;
}

int yget_double(const struct ytree *t, const struct ynode *n, const char *what,
		double lo, double hi, double *out, struct plumb_err *err)
{
	char *end;
	double v;
	int rc = yexpect(t, n, Y_SCALAR, what, err);
	if (rc < 0)
		return rc;
	errno = 0;
	v = strtod(n->str, &end);
	/* ERANGE on underflow (1e-308, 1e-400) is a tiny finite number, not an error */
	if (errno == ERANGE && fabs(v) < 1)
		errno = 0;
	if (n->str[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v))
		return yerr(t, n, PLUMB_EINPUT, err,
			    "'%s' must be a finite number, got '%s'", what, n->str);
	if (v < lo || v > hi)
		return yerr(t, n, PLUMB_EINPUT, err,
			    "'%s' must be between %g and %g, got %g", what, lo, hi, v);
	*out = v;
	return 0;
}

int yget_bool(const struct ytree *t, const struct ynode *n, const char *what,
	      int *out, struct plumb_err *err)
{
	int rc = yexpect(t, n, Y_SCALAR, what, err);
	if (rc < 0)
		return rc;
	if (!strcmp(n->str, "true") || !strcmp(n->str, "yes") || !strcmp(n->str, "on")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(n->str, "false") || !strcmp(n->str, "no") || !strcmp(n->str, "off")) {
		*out = 0;
		return 0;
	}
	return yerr(t, n, PLUMB_EINPUT, err, "'%s' must be true or false, got '%s'",
		    what, n->str);
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v, mul = 1;
	char unit[8] = "";
	size_t i = 0;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(v) || v <= 0)
		return -1;
	while (*end == ' ')
		end++;
	while (end[i] && i < sizeof(unit) - 1) {
		unit[i] = (char)toupper((unsigned char)end[i]);
		i++;
	}
	if (end[i])
		return -1;
	unit[i] = '\0';
	if (!strcmp(unit, "") || !strcmp(unit, "B"))
		mul = 1;
	else if (!strcmp(unit, "K") || !strcmp(unit, "KB") || !strcmp(unit, "KIB"))
		mul = 1024.0;
	else if (!strcmp(unit, "M") || !strcmp(unit, "MB") || !strcmp(unit, "MIB"))
		mul = 1024.0 * 1024;
	else if (!strcmp(unit, "G") || !strcmp(unit, "GB") || !strcmp(unit, "GIB"))
		mul = 1024.0 * 1024 * 1024;
	else if (!strcmp(unit, "T") || !strcmp(unit, "TB") || !strcmp(unit, "TIB"))
		mul = 1024.0 * 1024 * 1024 * 1024;
	else if (!strcmp(unit, "P") || !strcmp(unit, "PB") || !strcmp(unit, "PIB"))
		mul = 1024.0 * 1024 * 1024 * 1024 * 1024;
	else
		return -1;
	v *= mul;
	if (v >= 1.8e19 || v < 1)
		return -1;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

int yget_size(const struct ytree *t, const struct ynode *n, const char *what,
	      uint64_t *out, struct plumb_err *err)
{
	int rc = yexpect(t, n, Y_SCALAR, what, err);
	if (rc < 0)
		return rc;
	if (parse_size(n->str, out) < 0)
		return yerr(t, n, PLUMB_EINPUT, err,
			    "'%s' must be a positive size such as 64M, 128G or 1.5T, got '%s'",
			    what, n->str);
	return 0;
}

int yget_enum(const struct ytree *t, const struct ynode *n, const char *what,
	      const char *const *choices, int *out, struct plumb_err *err)
{
	char list[512] = "";
	int i, rc = yexpect(t, n, Y_SCALAR, what, err);
	const char *s;
	if (rc < 0)
		return rc;
	for (i = 0; choices[i]; i++) {
		if (strcmp(n->str, choices[i]) == 0) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", choices[i]);
	}
	s = suggest(n->str, choices);
	if (s)
		return yerr(t, n, PLUMB_EINPUT, err,
			    "unknown %s '%s' (did you mean '%s'?)", what, n->str, s);
	return yerr(t, n, PLUMB_EINPUT, err, "unknown %s '%s' (expected one of: %s)",
		    what, n->str, list);
}
