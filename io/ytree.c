/*
 * ytree.c - libyaml document -> struct ytree, and the typed getters.
 *
 * Each libyaml node becomes exactly one struct ynode (aliases share it), so a
 * document with many aliases stays linear in size. A node that refers to
 * itself through an alias is rejected, so walks always terminate.
 */
#include "ytree.h"
#include "input.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YMAX_KEYS 10000   /* keys per mapping (duplicate check is quadratic) */
#define YMAX_DEPTH 64     /* nesting levels; conversion recurses once per level */

struct conv {
	struct ytree *t;
	yaml_document_t *doc;
	unsigned char *state;   /* per libyaml node: 0 new, 1 in progress, 2 done */
	int depth;              /* nesting level of the node being converted */
	struct plumb_err *err;
};

static int conv_node(struct conv *c, int idx, struct ynode **out);

static int conv_fail(struct conv *c, const yaml_node_t *yn, const char *msg)
{
	return plumb_err_set(c->err, PLUMB_EINPUT, c->t->file,
			     (int)yn->start_mark.line + 1,
			     (int)yn->start_mark.column + 1, "%s", msg);
}

static int conv_body(struct conv *c, int idx, struct ynode **out);

/* Convert node idx, refusing documents nested deeper than YMAX_DEPTH (the
 * recursion would otherwise exhaust the stack on "[[[[...]]]]"). */
static int conv_node(struct conv *c, int idx, struct ynode **out)
{
	yaml_node_t *yn = yaml_document_get_node(c->doc, idx);
	int rc;

	if (yn && c->depth >= YMAX_DEPTH)
		return conv_fail(c, yn, "nesting deeper than 64 levels");
	c->depth++;
	rc = conv_body(c, idx, out);
	c->depth--;
	return rc;
}

static int conv_body(struct conv *c, int idx, struct ynode **out)
{
	yaml_node_t *yn = yaml_document_get_node(c->doc, idx);
	struct ynode *n;
	size_t i, cnt;

	if (!yn || idx < 1 || (size_t)idx > c->t->npool)
		return plumb_err_set(c->err, PLUMB_EINPUT, c->t->file, 0, 0,
				     "malformed YAML document");
	n = &c->t->pool[idx - 1];
	if (c->state[idx - 1] == 2) {
		*out = n;
		return 0;
	}
	if (c->state[idx - 1] == 1)
		return conv_fail(c, yn, "alias refers to the node that contains it");
	c->state[idx - 1] = 1;
	n->line = (int)yn->start_mark.line + 1;
	n->col = (int)yn->start_mark.column + 1;

	switch (yn->type) {
	case YAML_SCALAR_NODE:
		n->type = Y_SCALAR;
		n->str = malloc(yn->data.scalar.length + 1);
		if (!n->str)
			return plumb_err_set(c->err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		memcpy(n->str, yn->data.scalar.value, yn->data.scalar.length);
		n->str[yn->data.scalar.length] = '\0';
		if (strlen(n->str) != yn->data.scalar.length)
			return conv_fail(c, yn, "NUL byte inside a scalar");
		n->quoted = yn->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			    yn->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		break;
	case YAML_SEQUENCE_NODE:
		n->type = Y_SEQ;
		cnt = (size_t)(yn->data.sequence.items.top - yn->data.sequence.items.start);
		n->vals = calloc(cnt ? cnt : 1, sizeof(*n->vals));
		if (!n->vals)
			return plumb_err_set(c->err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		for (i = 0; i < cnt; i++) {
			int rc = conv_node(c, yn->data.sequence.items.start[i], &n->vals[i]);
			if (rc < 0)
				return rc;
			n->n = i + 1;
		}
		break;
	case YAML_MAPPING_NODE:
		n->type = Y_MAP;
		cnt = (size_t)(yn->data.mapping.pairs.top - yn->data.mapping.pairs.start);
		if (cnt > YMAX_KEYS)
			return conv_fail(c, yn, "mapping has more than 10000 keys");
		n->keys = calloc(cnt ? cnt : 1, sizeof(*n->keys));
		n->vals = calloc(cnt ? cnt : 1, sizeof(*n->vals));
		if (!n->keys || !n->vals)
			return plumb_err_set(c->err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		for (i = 0; i < cnt; i++) {
			yaml_node_pair_t *p = &yn->data.mapping.pairs.start[i];
			struct ynode *k, *v;
			size_t j;
			int rc = conv_node(c, p->key, &k);
			if (rc < 0)
				return rc;
			if (k->type != Y_SCALAR)
				return plumb_err_set(c->err, PLUMB_EINPUT, c->t->file,
						     k->line, k->col,
						     "mapping keys must be plain scalars");
			if (!k->quoted && strcmp(k->str, "<<") == 0)
				return plumb_err_set(c->err, PLUMB_EINPUT, c->t->file,
						     k->line, k->col,
						     "YAML merge keys ('<<') are not supported; write the keys out");
			for (j = 0; j < i; j++)
				if (strcmp(n->keys[j]->str, k->str) == 0)
					return plumb_err_set(c->err, PLUMB_EINPUT,
						c->t->file, k->line, k->col,
						"duplicate key '%s' (first at line %d)",
						k->str, n->keys[j]->line);
			rc = conv_node(c, p->value, &v);
			if (rc < 0)
				return rc;
			n->keys[i] = k;
			n->vals[i] = v;
			n->n = i + 1;
		}
		break;
	default:
		return conv_fail(c, yn, "unsupported YAML node");
	}
	c->state[idx - 1] = 2;
	*out = n;
	return 0;
}

int ytree_parse(const char *file, const char *buf, size_t len,
		struct ytree **out, struct plumb_err *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct ytree *t;
	yaml_node_t *root;
	int rc = 0;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	snprintf(t->file, sizeof(t->file), "%s", file);
	if (memchr(buf, '\0', len)) {
		size_t off = (size_t)((const char *)memchr(buf, '\0', len) - buf);
		int line = 1;
		size_t i, lstart = 0;
		for (i = 0; i < off; i++)
			if (buf[i] == '\n') {
				line++;
				lstart = i + 1;
			}
		free(t);
		return plumb_err_set(err, PLUMB_EINPUT, file, line, (int)(off - lstart) + 1,
				     "binary data (NUL byte) in a YAML file");
	}
	if (!yaml_parser_initialize(&parser)) {
		free(t);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		const char *prob = parser.problem ? parser.problem : "YAML syntax error";
		if (parser.error == YAML_READER_ERROR) {
			/* libyaml gives a byte offset for encoding errors. */
			size_t off = parser.problem_offset, i, lstart = 0;
			int line = 1, bad = parser.problem_value;
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
				rc = plumb_err_set(err, PLUMB_EINPUT, file, line, (int)(off - lstart) + 1,
						   "invalid UTF-8 (byte 0x%02x); save the file as UTF-8",
						   (unsigned)bad & 0xffu);
			else
				rc = plumb_err_set(err, PLUMB_EINPUT, file, line, (int)(off - lstart) + 1,
						   "cannot read the file as text: %s", prob);
		} else if (parser.problem_mark.index < len &&
			   buf[parser.problem_mark.index] == '\t') {
			rc = plumb_err_set(err, PLUMB_EINPUT, file,
					   (int)parser.problem_mark.line + 1,
					   (int)parser.problem_mark.column + 1,
					   "tab character in indentation (YAML indents with spaces only)");
		} else {
			rc = plumb_err_set(err, PLUMB_EINPUT, file,
					   (int)parser.problem_mark.line + 1,
					   (int)parser.problem_mark.column + 1,
					   "YAML syntax: %s%s%s", prob,
					   parser.context ? " " : "",
					   parser.context ? parser.context : "");
		}
		yaml_parser_delete(&parser);
		free(t);
		return rc;
	}
	root = yaml_document_get_root_node(&doc);
	if (root) {
		struct conv c;
		t->npool = (size_t)(doc.nodes.top - doc.nodes.start);
		t->pool = calloc(t->npool, sizeof(*t->pool));
		c.t = t;
		c.doc = &doc;
		c.err = err;
		c.depth = 0;
		c.state = calloc(t->npool, 1);
		if (!t->pool || !c.state)
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		else
			rc = conv_node(&c, 1, &t->root);
		free(c.state);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc < 0) {
		ytree_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int ytree_load(const char *path, struct ytree **out, struct plumb_err *err)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	if ((rc = input_read(path, &buf, &len, err)) < 0)
		return rc;
	rc = ytree_parse(path, buf, len, out, err);
	free(buf);
	return rc;
}

void ytree_free(struct ytree *t)
{
	size_t i;
	if (!t)
		return;
	for (i = 0; i < t->npool; i++) {
		free(t->pool[i].str);
		free(t->pool[i].keys);
		free(t->pool[i].vals);
	}
	free(t->pool);
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
