/*
 * variant.c - a point's scenario: the base scenario's tree written back out
 * as block YAML with the point's overrides in place, then parsed by the
 * scenario loader (sweep.h).
 *
 * Every written line remembers where its key and its value came from (the
 * scenario file or the grid), so an error the loader reports at a line of
 * the written text is moved to the file, line and column of the key or value
 * behind it. Comments and styles are not kept; values keep their text, and
 * quoted scalars stay quoted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn.h"
#include "sweep.h"
#include "sweep_int.h"

struct src {
	int file;               /* 0: the base scenario, 1: the grid */
	int line, col;
};

struct lmap {
	struct src key, val;
	int has_val;
	int val_col;            /* column of the value in the written line */
};

struct em {
	char *s;
	size_t n, cap;
	int col;                /* current column, 1-based */
	struct lmap *map;
	size_t nmap, mapcap;
	int oom;
};

/* An override on its way down the base tree: seg[pos] is next. */
struct ovr {
	const struct swp_name *nm;
	int pos;
	const struct ynode *val;
};

static void put(struct em *m, const char *t, size_t len)
{
	if (m->oom)
		return;
	if (m->n + len + 1 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 4096;
		char *ns;
		while (nc < m->n + len + 1)
			nc *= 2;
		if (!(ns = realloc(m->s, nc))) {
			m->oom = 1;
			return;
		}
		m->s = ns;
		m->cap = nc;
	}
	memcpy(m->s + m->n, t, len);
	m->n += len;
	m->s[m->n] = '\0';
	m->col += (int)len;
}

static void puts_(struct em *m, const char *t)
{
	put(m, t, strlen(t));
}

/* Start a line at `indent`, recording where its key comes from. */
static void line(struct em *m, int indent, int file, const struct ynode *key)
{
	struct lmap *l;
	int i;
	if (m->n && m->s[m->n - 1] != '\n')
		put(m, "\n", 1);
	m->col = 1;
	for (i = 0; i < indent; i++)
		put(m, " ", 1);
	if (m->nmap == m->mapcap) {
		size_t nc = m->mapcap ? m->mapcap * 2 : 256;
		struct lmap *nmp = realloc(m->map, nc * sizeof(*nmp));
		if (!nmp) {
			m->oom = 1;
			return;
		}
		m->map = nmp;
		m->mapcap = nc;
	}
	l = &m->map[m->nmap++];
	memset(l, 0, sizeof(*l));
	l->key.file = file;
	l->key.line = key ? key->line : 0;
	l->key.col = key ? key->col : 0;
}

static void mark_val(struct em *m, int file, const struct ynode *v)
{
	struct lmap *l;
	if (!m->nmap)
		return;
	l = &m->map[m->nmap - 1];
	l->has_val = 1;
	l->val.file = file;
	l->val.line = v->line;
	l->val.col = v->col;
	l->val_col = m->col;
}

/* Can s be written as a plain scalar in block context? */
static int plain_ok(const char *s)
{
	size_t i, n = strlen(s);
	if (!n || s[0] == ' ' || s[n - 1] == ' ' || s[n - 1] == ':')
		return 0;
	if (strchr("-?:,[]{}#&*!|>'\"%@`", s[0]))
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if ((unsigned char)c < 0x20 || c == '#' || c == '"' || c == '\'' ||
		    c == '{' || c == '}' || c == '[' || c == ']')
			return 0;
		if (c == ':' && s[i + 1] == ' ')
			return 0;
	}
	return 1;
}

static void scalar(struct em *m, const struct ynode *v)
{
	const char *p;
	char esc[8];
	if (!v->quoted && (!v->str[0] || plain_ok(v->str))) {
		puts_(m, v->str);
		return;
	}
	put(m, "\"", 1);
	for (p = v->str; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(m, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			puts_(m, esc);
		} else {
			put(m, (const char *)p, 1);
		}
	}
	put(m, "\"", 1);
}

static int emit(struct em *m, const struct swp_grid *g, int file, const struct ynode *v,
		int indent, struct ovr *ov, int nov, int inline_first, struct plumb_err *err);

/* Overrides of ov[0..nov) whose next segment is the map key k; moved to the
 * front of a scratch list `sub`, advanced by one segment. */
static int pick_key(struct ovr *ov, int nov, const char *k, struct ovr *sub)
{
	int i, n = 0;
	for (i = 0; i < nov; i++)
		if (ov[i].pos < ov[i].nm->nseg && !ov[i].nm->seg[ov[i].pos].select &&
		    !strcmp(ov[i].nm->seg[ov[i].pos].key, k)) {
			sub[n] = ov[i];
			sub[n].pos++;
			n++;
		}
	return n;
}

static int path_err(const struct swp_grid *g, const struct ovr *o, struct plumb_err *err,
		    const char *what)
{
	return yerr(g->t, o->nm->where, PLUMB_EINPUT, err, "'%s': %s", o->nm->name, what);
}

/* The value of a key whose overrides are sub[0..n): replaced, descended
 * into, or left alone. */
static int emit_val(struct em *m, const struct swp_grid *g, int file, const struct ynode *v,
		    int indent, struct ovr *sub, int n, struct plumb_err *err)
{
	int i;
	for (i = 0; i < n; i++)
		if (sub[i].pos == sub[i].nm->nseg)
			return emit(m, g, 1, sub[i].val, indent, NULL, 0, 0, err);
	return emit(m, g, file, v, indent, sub, n, 0, err);
}

static int emit_map(struct em *m, const struct swp_grid *g, int file, const struct ynode *v,
		    int indent, struct ovr *ov, int nov, int inline_first, struct plumb_err *err)
{
	struct ovr sub[SWP_MAX_NAMES];
	int i, j, first = 1, rc, n;
	size_t k;

	for (k = 0; v && k < v->n; k++) {
		n = pick_key(ov, nov, v->keys[k]->str, sub);
		if (!(first && inline_first))
			line(m, indent, file, v->keys[k]);
		else
			m->map[m->nmap - 1].key = (struct src){ file, v->keys[k]->line, v->keys[k]->col };
		first = 0;
		scalar(m, v->keys[k]);
		puts_(m, ":");
		if ((rc = emit_val(m, g, file, v->vals[k], indent + 2, sub, n, err)) < 0)
			return rc;
	}
	/* Keys the base does not have: created from the grid. */
	for (i = 0; i < nov; i++) {
		const struct ovr *o = &ov[i];
		const char *key;
		struct ynode kn;
		char kb[64];
		int seen = 0;
		if (o->pos >= o->nm->nseg)
			continue;
		if (o->nm->seg[o->pos].select)
			return path_err(g, o, err, v ? "selects an entry of something that is not a list" :
						       "selects an entry of a list the scenario does not have");
		key = o->nm->seg[o->pos].key;
		for (k = 0; v && k < v->n && !seen; k++)
			seen = !strcmp(v->keys[k]->str, key);
		for (j = 0; j < i && !seen; j++)
			seen = ov[j].pos < ov[j].nm->nseg && !ov[j].nm->seg[ov[j].pos].select &&
			       !strcmp(ov[j].nm->seg[ov[j].pos].key, key);
		if (seen)
			continue;
		n = pick_key(ov, nov, key, sub);
		if (!(first && inline_first))
			line(m, indent, 1, o->nm->where);
		first = 0;
		memset(&kn, 0, sizeof(kn));
		kn.type = Y_SCALAR;
		snprintf(kb, sizeof(kb), "%s", key);
		kn.str = kb;
		scalar(m, &kn);
		puts_(m, ":");
		if ((rc = emit_val(m, g, 1, NULL, indent + 2, sub, n, err)) < 0)
			return rc;
	}
	if (first) {
		puts_(m, inline_first ? "{}" : " {}");
	}
	return 0;
}

/* Does list entry i (item it) match selector sel? By id, else by index. */
static int selects(const struct ynode *list, size_t i, const char *sel)
{
	const struct ynode *id;
	size_t k;
	char *end;
	long x;
	if (list->vals[i]->type == Y_MAP && (id = ymap_get(list->vals[i], "id")) &&
	    id->type == Y_SCALAR)
		return !strcmp(id->str, sel);
	for (k = 0; k < list->n; k++)
		if (list->vals[k]->type == Y_MAP && (id = ymap_get(list->vals[k], "id")) &&
		    id->type == Y_SCALAR && !strcmp(id->str, sel))
			return 0;
	x = strtol(sel, &end, 10);
	return !*end && x >= 0 && (size_t)x == i;
}

static int emit_seq(struct em *m, const struct swp_grid *g, int file, const struct ynode *v,
		    int indent, struct ovr *ov, int nov, struct plumb_err *err)
{
	struct ovr sub[SWP_MAX_NAMES];
	size_t k;
	int i, rc;

	for (i = 0; i < nov; i++) {
		const struct ovr *o = &ov[i];
		int hit = 0;
		if (o->pos >= o->nm->nseg)
			continue;
		if (!o->nm->seg[o->pos].select)
			return path_err(g, o, err, "names a key of something that is a list (select an entry with [id])");
		for (k = 0; k < v->n && !hit; k++)
			hit = selects(v, k, o->nm->seg[o->pos].key);
		if (!hit) {
			char msg[200];
			snprintf(msg, sizeof(msg), "the scenario has no list entry '%s'",
				 o->nm->seg[o->pos].key);
			return path_err(g, o, err, msg);
		}
	}
	if (!v->n) {
		puts_(m, " []");
		return 0;
	}
	for (k = 0; k < v->n; k++) {
		int n = 0;
		for (i = 0; i < nov; i++)
			if (ov[i].pos < ov[i].nm->nseg && selects(v, k, ov[i].nm->seg[ov[i].pos].key)) {
				sub[n] = ov[i];
				sub[n].pos++;
				n++;
			}
		line(m, indent, file, v->vals[k]);
		puts_(m, "- ");
		for (i = 0; i < n; i++)
			if (sub[i].pos == sub[i].nm->nseg)
				break;
		if (i < n) {
			if ((rc = emit(m, g, 1, sub[i].val, indent + 2, NULL, 0, 1, err)) < 0)
				return rc;
		} else if ((rc = emit(m, g, file, v->vals[k], indent + 2, sub, n, 1, err)) < 0) {
			return rc;
		}
	}
	return 0;
}

/*
 * Write node v (from `file`) after a "key:" (inline_first 0) or a "- "
 * (inline_first 1) at the current position; children go at `indent`.
 * v NULL: a mapping the base does not have, created for the overrides.
 */
static int emit(struct em *m, const struct swp_grid *g, int file, const struct ynode *v,
		int indent, struct ovr *ov, int nov, int inline_first, struct plumb_err *err)
{
	if (!v || v->type == Y_MAP) {
		if (!v && !nov) {
			puts_(m, inline_first ? "{}" : " {}");
			return 0;
		}
		return emit_map(m, g, file, v, indent, ov, nov, inline_first, err);
	}
	if (v->type == Y_SEQ) {
		if (inline_first && v->n) {
			/* a list inside a list: start it on its own line */
			line(m, indent, file, v);
		}
		return emit_seq(m, g, file, v, indent, ov, nov, err);
	}
	if (nov)
		return path_err(g, &ov[0], err, "goes below a value that is not a mapping or a list");
	if (!inline_first)
		puts_(m, " ");
	mark_val(m, file, v);
	scalar(m, v);
	return 0;
}

static int variant_text_map(const struct swp_grid *g, const struct swp_point *p, char **text,
			 void **map, size_t *nmap, struct plumb_err *err)
{
	struct ovr ov[SWP_MAX_NAMES];
	struct em m;
	int i, nov = 0, rc;
	const struct ytree *bt;

	*text = NULL;
	if (map)
		*map = NULL;
	if (p->base < 0 || p->base >= g->nbases)
		return plumb_err_set(err, PLUMB_EINPUT, g->file, 0, 0, "no scenario");
	bt = g->bases[p->base].t;
	for (i = 0; i < g->nnames; i++)
		if (g->names[i].kind == SWP_PATH && p->val[i]) {
			ov[nov].nm = &g->names[i];
			ov[nov].pos = 0;
			ov[nov].val = p->val[i];
			nov++;
		}
	memset(&m, 0, sizeof(m));
	if (!bt->root || bt->root->type != Y_MAP) {
		/* Let the scenario loader say what is wrong with the file. */
		return 1;
	}
	rc = emit_map(&m, g, 0, bt->root, 0, ov, nov, 0, err);
	put(&m, "\n", 1);
	if (rc < 0 || m.oom) {
		free(m.s);
		free(m.map);
		return rc < 0 ? rc : plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	*text = m.s;
	if (map) {
		*map = m.map;
		*nmap = m.nmap;
	} else {
		free(m.map);
	}
	return 0;
}

int swp_variant_text(const struct swp_grid *g, const struct swp_point *p, char **text,
		     struct plumb_err *err)
{
	int rc = variant_text_map(g, p, text, NULL, NULL, err);
	return rc > 0 ? 0 : rc;
}

int swp_variant_load(const struct swp_grid *g, const struct swp_point *p,
		     struct scenario **out, struct plumb_err *err)
{
	uint64_t h;
	return swp_variant_load_hash(g, p, out, &h, err);
}

int swp_variant_load_hash(const struct swp_grid *g, const struct swp_point *p,
			  struct scenario **out, uint64_t *hash, struct plumb_err *err)
{
	void *mp = NULL;
	struct lmap *map;
	size_t nmap = 0;
	char *text = NULL;
	int rc;

	*out = NULL;
	rc = variant_text_map(g, p, &text, &mp, &nmap, err);
	if (rc < 0)
		return rc;
	*hash = 0;
	if (rc > 0)     /* not a mapping: the loader's own message on the file */
		return scn_load(g->bases[p->base].path, out, err);
	map = mp;
	{
		/* FNV-1a of the written text: the variant's content */
		const unsigned char *c = (const unsigned char *)text;
		uint64_t h = 1469598103934665603ull;
		for (; *c; c++) {
			h ^= *c;
			h *= 1099511628211ull;
		}
		*hash = h;
	}
	rc = scn_parse(g->bases[p->base].path, text, out, err);
	if (rc < 0 && err) {
		if (err->line >= 1 && (size_t)err->line <= nmap) {
			const struct lmap *l = &map[err->line - 1];
			const struct src *s = l->has_val && err->col >= l->val_col ? &l->val : &l->key;
			if (!(err->file = plumb_keep_path(s->file ? g->file : g->bases[p->base].path)))
				err->file = "";
			err->line = s->line;
			err->col = s->col;
		} else {
			err->line = err->col = 0;
		}
	}
	free(text);
	free(map);
	return rc;
}

static void node_text(const struct ynode *v, struct swp_sb *b)
{
	size_t k;
#define OUT(str) swp_sb_put(b, str, strlen(str))
	if (v->type == Y_SCALAR) {
		OUT(v->str);
	} else if (v->type == Y_SEQ) {
		OUT("[");
		for (k = 0; k < v->n; k++) {
			if (k)
				OUT(", ");
			node_text(v->vals[k], b);
		}
		OUT("]");
	} else {
		OUT("{");
		for (k = 0; k < v->n; k++) {
			if (k)
				OUT(", ");
			OUT(v->keys[k]->str);
			OUT(": ");
			node_text(v->vals[k], b);
		}
		OUT("}");
	}
#undef OUT
}

char *swp_node_str(const struct ynode *v)
{
	struct swp_sb b = { 0 };
	swp_sb_put(&b, "", 0);
	node_text(v, &b);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
