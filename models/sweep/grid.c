/*
 * grid.c - grid files: names, values, points (sweep.h, docs/sweep.md).
 *
 * The grid tree is kept for the life of the grid: every value is a node of
 * it, so messages about a value point at its line and column. Scenario
 * files named by the grid are loaded once as trees (grid->bases); variants
 * are written from them by variant.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "llm.h"
#include "scn.h"
#include "step.h"
#include "sweep.h"
#include "meas.h"
#include "sweep_int.h"

const char *const swp_setting_names[SWP_NSETTINGS + 1] = {
	"scenario", "model", "weights", "kv", "layout", "concurrency", "context", "input",
	"output", "microbatches", "mtp", "accept", "eager", NULL
};

/* Top-level keys of a scenario: a name starting with one is a path. */
static const char *const scn_top[] = {
	"name", "description", "seed", "source", "host", "pcie", "nvlink", "virtualization",
	"nccl", "constants", "network", "serving", NULL
};

static const char *const grid_keys[] = {
	"plumb_grid", "name", "description", "set", "axes", NULL
};

static int key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* Split "a.b[c].d" into segments; -1 when malformed. */
static int split_path(const char *s, struct swp_name *nm)
{
	const char *p = s;
	nm->nseg = 0;
	while (*p) {
		struct swp_seg *sg;
		size_t n = 0;
		int sel = 0;
		if (nm->nseg >= SWP_MAX_SEGS)
			return -1;
		sg = &nm->seg[nm->nseg];
		if (*p == '[') {
			sel = 1;
			p++;
		} else if (nm->nseg > 0) {
			if (*p != '.')
				return -1;
			p++;
		}
		while (key_char(*p) && n + 1 < sizeof(sg->key))
			sg->key[n++] = *p++;
		sg->key[n] = '\0';
		if (!n)
			return -1;
		if (sel) {
			if (*p != ']')
				return -1;
			p++;
		}
		if (key_char(*p))
			return -1;
		sg->select = sel;
		nm->nseg++;
	}
	return nm->nseg ? 0 : -1;
}

static const char *closest(const char *s, const char *const *list, int maxd)
{
	const char *best = NULL;
	int i, bd = maxd + 1;
	for (i = 0; list[i]; i++) {
		int d = str_distance(s, list[i]);
		if (d < bd) {
			bd = d;
			best = list[i];
		}
	}
	return best;
}

/* Index of name `key` (a grid key node), adding it; negative on error. */
static int name_index(struct swp_grid *g, const struct ynode *key, struct plumb_err *err)
{
	const char *s = key->str;
	struct swp_name nm;
	int i;

	for (i = 0; i < g->nnames; i++)
		if (!strcmp(g->names[i].name, s))
			return i;
	memset(&nm, 0, sizeof(nm));
	if (strlen(s) >= sizeof(nm.name))
		return yerr(g->t, key, PLUMB_EINPUT, err, "name too long");
	snprintf(nm.name, sizeof(nm.name), "%s", s);
	nm.where = key;
	nm.column = -1;
	for (i = 0; i < SWP_NSETTINGS; i++)
		if (!strcmp(s, swp_setting_names[i]))
			break;
	if (i < SWP_NSETTINGS) {
		nm.kind = (enum swp_kind)i;
	} else if (split_path(s, &nm) < 0) {
		return yerr(g->t, key, PLUMB_EINPUT, err,
			    "'%s' is not a name: use a setting, a scenario key path like host.inter_socket.bandwidth_gbs or pcie[gpu0].gen, or a free input like price_usd", s);
	} else {
		int top = -1;
		for (i = 0; scn_top[i]; i++)
			if (!strcmp(nm.seg[0].key, scn_top[i]))
				top = i;
		if (top >= 0 && !nm.seg[0].select) {
			nm.kind = SWP_PATH;
		} else if (nm.nseg > 1 || nm.seg[0].select) {
			const char *d = closest(nm.seg[0].key, scn_top, 3);
			return yerr(g->t, key, PLUMB_EINPUT, err,
				    "unknown scenario key '%s' in '%s'%s%s%s", nm.seg[0].key, s,
				    d ? " (did you mean '" : "", d ? d : "", d ? "'?)" : "");
		} else {
			const char *d = closest(s, swp_setting_names, 2);
			if (!d)
				d = closest(s, scn_top, 1);
			if (d && strlen(s) > 3)
				return yerr(g->t, key, PLUMB_EINPUT, err,
					    "unknown name '%s' (did you mean '%s'? a free input must not be that close to a setting)",
					    s, d);
			nm.kind = SWP_FREE;
			nm.nseg = 0;
		}
	}
	if (g->nnames >= SWP_MAX_NAMES)
		return yerr(g->t, key, PLUMB_EINPUT, err, "more than %d names", SWP_MAX_NAMES);
	/* A path inside another path's value would be set twice. */
	if (nm.kind == SWP_PATH)
		for (i = 0; i < g->nnames; i++) {
			const struct swp_name *o = &g->names[i];
			int k, n = o->nseg < nm.nseg ? o->nseg : nm.nseg, same = 1;
			if (o->kind != SWP_PATH)
				continue;
			for (k = 0; k < n; k++)
				same &= !strcmp(o->seg[k].key, nm.seg[k].key) &&
					o->seg[k].select == nm.seg[k].select;
			if (same)
				return yerr(g->t, key, PLUMB_EINPUT, err,
					    "'%s' overlaps '%s' (line %d): one holds the other", s, o->name,
					    o->where->line);
		}
	g->names[g->nnames] = nm;
	return g->nnames++;
}

static int check_int(const struct swp_grid *g, const struct ynode *v, const char *what, long lo,
		     long hi, struct plumb_err *err)
{
	long x;
	return yget_int(g->t, v, what, lo, hi, &x, err);
}

/* Check the value of a prediction setting; scenario values load their file. */
static int check_value(struct swp_grid *g, struct swp_setting *st, struct plumb_err *err)
{
	const struct swp_name *nm = &g->names[st->name];
	const struct ynode *v = st->val;
	struct plumb_err e2;
	double d;
	int rc, b;

	st->base = -1;
	if (nm->kind >= SWP_NSETTINGS)
		return 0;
	if ((rc = yexpect(g->t, v, Y_SCALAR, nm->name, err)) < 0)
		return rc;
	switch (nm->kind) {
	case SWP_SCENARIO: {
		char *path;
		struct ytree *t = NULL;
		if (!v->str[0])
			return yerr(g->t, v, PLUMB_EINPUT, err, "empty scenario file name");
		/* the whole name, however long: a cut one would load another file */
		path = v->str[0] == '/' || !g->dir[0] ? strdup(v->str)
						      : malloc(strlen(g->dir) + strlen(v->str) + 2);
		if (!path)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		if (!(v->str[0] == '/' || !g->dir[0]))
			sprintf(path, "%s/%s", g->dir, v->str);
		for (b = 0; b < g->nbases; b++)
			if (!strcmp(g->bases[b].path, path)) {
				st->base = b;
				free(path);
				return 0;
			}
		plumb_err_clear(&e2);
		if ((rc = ytree_load(path, &t, &e2)) < 0) {
			free(path);
			if (e2.line > 0) {
				*err = e2;
				return rc;
			}
			return yerr(g->t, v, -rc, err, "scenario %s: %s", v->str, e2.msg);
		}
		{
			struct swp_base *nb = realloc(g->bases, (size_t)(g->nbases + 1) * sizeof(*nb));
			if (!nb) {
				ytree_free(t);
				free(path);
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			}
			g->bases = nb;
		}
		g->bases[g->nbases].path = path;
		g->bases[g->nbases].t = t;
		st->base = g->nbases++;
		return 0;
	}
	case SWP_MODEL: {
		const struct llm_model *m;
		char *path = llm_model_path(g->dir, v->str);   /* a file: as scenarios */
		plumb_err_clear(&e2);
		if (!path)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		rc = llm_model_resolve(path, &m, &e2);
		free(path);
		if (rc < 0)
			return yerr(g->t, v, PLUMB_EINPUT, err, "%s", e2.msg);
		return 0;
	}
	case SWP_WEIGHTS:
	case SWP_KV: {
		enum llm_dtype dt;
		if (nm->kind == SWP_KV ? llm_dtype_parse(v->str, &dt) < 0 ||
					 (dt != LLM_BF16 && dt != LLM_FP8)
				       : llm_weights_check(v->str) < 0)
			return yerr(g->t, v, PLUMB_EINPUT, err, "unknown %s '%s' (%s)", nm->name, v->str,
				    nm->kind == SWP_KV ? "bf16 or fp8" : "bf16, fp8, fp8t, nvfp4, "
				    "mxfp4, int4, int4-gN or checkpoint");
		return 0;
	}
	case SWP_LAYOUT: {
		struct step_layout l;
		plumb_err_clear(&e2);
		if (step_layout_parse(v->str, &l, &e2) < 0)
			return yerr(g->t, v, PLUMB_EINPUT, err, "%s", e2.msg);
		return 0;
	}
	case SWP_CONCURRENCY:
		return check_int(g, v, "concurrency", 1, MEAS_MAX_CONCURRENCY, err);
	case SWP_CONTEXT:
		return check_int(g, v, "context", 0, 100000000, err);
	case SWP_INPUT:
		return check_int(g, v, "input", 1, 100000000, err);
	case SWP_OUTPUT:
		return check_int(g, v, "output", 1, 100000000, err);
	case SWP_MICRO:
		return check_int(g, v, "microbatches", 0, 256, err);
	case SWP_MTP:
		return check_int(g, v, "mtp", 0, 16, err);
	case SWP_ACCEPT:
		if ((rc = yget_double(g->t, v, "accept", 0, 1, &d, err)) < 0)
			return rc;
		if (d >= 1)
			return yerr(g->t, v, PLUMB_EINPUT, err, "accept must be below 1");
		return 0;
	case SWP_EAGER:
		return yget_bool(g->t, v, "eager", &b, err);
	default:
		return 0;
	}
}

/* Is name n already given somewhere (set or an axis)? */
static const struct ynode *given(const struct swp_grid *g, int n, int naxes)
{
	int a, k;
	for (k = 0; k < g->set.n; k++)
		if (g->set.set[k].name == n)
			return g->names[n].where;
	for (a = 0; a < naxes; a++) {
		const struct swp_axis *ax = &g->axes[a];
		if (ax->name == n)
			return ax->key;
		if (ax->nitems)
			for (k = 0; k < ax->items[0].n; k++)
				if (ax->items[0].set[k].name == n)
					return ax->key;
	}
	return NULL;
}

static int add_setting(struct swp_grid *g, struct swp_item *it, int name, const struct ynode *val,
		       struct plumb_err *err)
{
	struct swp_setting *ns = realloc(it->set, (size_t)(it->n + 1) * sizeof(*ns));
	if (!ns)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	it->set = ns;
	ns[it->n].name = name;
	ns[it->n].val = val;
	it->n++;
	return check_value(g, &ns[it->n - 1], err);
}

static int parse_axis(struct swp_grid *g, const struct ynode *key, const struct ynode *list,
		      struct plumb_err *err)
{
	struct swp_axis *ax;
	const struct ynode *dup;
	size_t i;
	int rc, n;

	if (g->naxes >= SWP_MAX_AXES)
		return yerr(g->t, key, PLUMB_EINPUT, err, "more than %d axes", SWP_MAX_AXES);
	if ((n = name_index(g, key, err)) < 0)
		return n;
	if ((dup = given(g, n, g->naxes)))
		return yerr(g->t, key, PLUMB_EINPUT, err, "'%s' is already given at line %d",
			    key->str, dup->line);
	if (list->type != Y_SEQ)
		return yerr(g->t, list, PLUMB_EINPUT, err,
			    "axis '%s' needs a list of values, e.g. [1, 8, 64] (one value belongs in 'set:')",
			    key->str);
	if (list->n == 0)
		return yerr(g->t, list, PLUMB_EINPUT, err, "axis '%s' has no values", key->str);
	ax = &g->axes[g->naxes];
	memset(ax, 0, sizeof(*ax));
	ax->name = n;
	ax->key = key;
	ax->items = calloc(list->n, sizeof(*ax->items));
	if (!ax->items)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	g->naxes++;          /* from here on swp_grid_free releases the items */
	ax->nitems = list->n;
	for (i = 0; i < list->n; i++) {
		const struct ynode *v = list->vals[i], *val = v;
		struct swp_item *it = &ax->items[i];
		size_t k;
		int linked = v->type == Y_MAP && ymap_get(v, "value");
		if ((rc = add_setting(g, it, n, linked ? ymap_get(v, "value") : val, err)) < 0)
			return rc;
		if (linked)
			for (k = 0; k < v->n; k++) {
				int m;
				if (!strcmp(v->keys[k]->str, "value"))
					continue;
				if ((m = name_index(g, v->keys[k], err)) < 0)
					return m;
				if (m == n || ((dup = given(g, m, g->naxes - 1)) && dup != key))
					return yerr(g->t, v->keys[k], PLUMB_EINPUT, err,
						    "'%s' is already given at line %d", v->keys[k]->str,
						    m == n ? key->line : dup->line);
				if ((rc = add_setting(g, it, m, v->vals[k], err)) < 0)
					return rc;
			}
		/* Every item sets the same names, in the same order. */
		if (i > 0) {
			int same = it->n == ax->items[0].n;
			for (k = 0; same && k < (size_t)it->n; k++)
				same = it->set[k].name == ax->items[0].set[k].name;
			if (!same)
				return yerr(g->t, v, PLUMB_EINPUT, err,
					    "every item of axis '%s' must set the same names in the same order as the first (line %d)",
					    key->str, list->vals[0]->line);
		}
	}
	for (i = 0; i < (size_t)ax->items[0].n; i++) {
		enum swp_kind k = g->names[ax->items[0].set[i].name].kind;
		ax->scn |= k == SWP_SCENARIO || k == SWP_PATH;
	}
	return 0;
}

static void fmt_count(uint64_t v, char *buf, size_t n)
{
	char tmp[32];
	size_t len, i, o = 0;
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	len = strlen(tmp);
	for (i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

static int parse_grid(struct swp_grid *g, struct plumb_err *err)
{
	const struct ynode *r = g->t->root, *v, *axes;
	size_t i;
	long ver;
	int rc, a, sc;

	if (!r)
		return plumb_err_set(err, PLUMB_EINPUT, g->file, 1, 1,
				     "empty grid (expected 'plumb_grid: 1', 'set:' and 'axes:')");
	if ((rc = yexpect(g->t, r, Y_MAP, "grid", err)) < 0 ||
	    (rc = ymap_check_keys(g->t, r, "grid", grid_keys, err)) < 0)
		return rc;
	if (!(v = ymap_get(r, "plumb_grid")))
		return yerr(g->t, r, PLUMB_EINPUT, err, "missing 'plumb_grid: 1' (the grid format version)");
	if ((rc = yget_int(g->t, v, "plumb_grid", 0, 1000000, &ver, err)) < 0)
		return rc;
	if (ver != 1)
		return yerr(g->t, v, PLUMB_EINPUT, err,
			    "unsupported grid format version %ld (this plumb reads 'plumb_grid: 1')", ver);
	if ((v = ymap_get(r, "name")) &&
	    (rc = yget_str(g->t, v, "name", g->name, sizeof(g->name), err)) < 0)
		return rc;
	if ((v = ymap_get(r, "set"))) {
		if ((rc = yexpect(g->t, v, Y_MAP, "set", err)) < 0)
			return rc;
		for (i = 0; i < v->n; i++) {
			int n = name_index(g, v->keys[i], err);
			if (n < 0)
				return n;
			if ((rc = add_setting(g, &g->set, n, v->vals[i], err)) < 0)
				return rc;
		}
	}
	axes = ymap_get(r, "axes");
	if (axes) {
		if ((rc = yexpect(g->t, axes, Y_MAP, "axes", err)) < 0)
			return rc;
		for (i = 0; i < axes->n; i++)
			if ((rc = parse_axis(g, axes->keys[i], axes->vals[i], err)) < 0)
				return rc;
	}
	sc = 0;
	for (a = 0; a < g->nnames; a++)
		sc |= g->names[a].kind == SWP_SCENARIO;
	if (!sc)
		return yerr(g->t, r, PLUMB_EINPUT, err,
			    "no scenario: give 'scenario: FILE' under 'set:' or a 'scenario:' axis");
	/* Point count, refused before any work when over the limit. */
	g->npoints = 1;
	for (a = 0; a < g->naxes; a++) {
		if (g->npoints > SWP_MAX_POINTS)
			break;
		g->npoints *= g->axes[a].nitems;
	}
	if (g->npoints > SWP_MAX_POINTS) {
		char cnt[48], lim[48], desc[512] = "";
		unsigned long long prod = 1;
		int over = 0;
		size_t len = 0;
		for (a = 0; a < g->naxes; a++) {
			if (prod > (~0ull) / (g->axes[a].nitems ? g->axes[a].nitems : 1))
				over = 1;
			else
				prod *= g->axes[a].nitems;
			if (len + 80 < sizeof(desc))
				len += (size_t)snprintf(desc + len, sizeof(desc) - len, "%s%s %zu",
							a ? " x " : "", g->names[g->axes[a].name].name,
							g->axes[a].nitems);
		}
		fmt_count(prod, cnt, sizeof(cnt));
		fmt_count(SWP_MAX_POINTS, lim, sizeof(lim));
		return yerr(g->t, axes, PLUMB_EINPUT, err,
			    "the grid has %s%s points (%s); at most %s are allowed: split it into several grids",
			    over ? "more than " : "", cnt, desc, lim);
	}
	/* Extra columns: every name but the always-present ones, in order. */
	g->nextra = 0;
	for (a = 0; a < g->nnames; a++) {
		struct swp_name *nm = &g->names[a];
		if (nm->kind >= SWP_MICRO)
			nm->column = g->nextra++;
		if (nm->kind == SWP_FREE && !strncmp(nm->name, "price_", 6) && nm->name[6])
			g->price[g->nprice++] = a;
	}
	return 0;
}

static int finish(struct swp_grid *g, struct plumb_err *err)
{
	int rc = parse_grid(g, err);
	if (rc < 0)
		return rc;
	return 0;
}

static struct swp_grid *grid_alloc(const char *file)
{
	struct swp_grid *g = calloc(1, sizeof(*g));
	const char *slash;
	if (!g)
		return NULL;
	slash = strrchr(file, '/');
	g->file = strdup(file);
	g->dir = slash == file ? strdup("/") : strndup(file, slash ? (size_t)(slash - file) : 0);
	if (!g->file || !g->dir) {
		free(g->file);
		free(g->dir);
		free(g);
		return NULL;
	}
	return g;
}

int swp_grid_load(const char *path, struct swp_grid **out, struct plumb_err *err)
{
	struct swp_grid *g;
	char where[4096];
	int rc;

	*out = NULL;
	/* a bundled grid (scenarios/grids/...) is found in an installed copy,
	 * and its scenario files beside it, as in the source tree */
	path = plumb_data_path(path, where, sizeof(where));
	if (!(g = grid_alloc(path)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = ytree_load(path, &g->t, err)) < 0 || (rc = finish(g, err)) < 0) {
		swp_grid_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int swp_grid_parse(const char *file, const char *text, struct swp_grid **out,
		   struct plumb_err *err)
{
	struct swp_grid *g;
	int rc;

	*out = NULL;
	if (!(g = grid_alloc(file)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = ytree_parse(file, text, strlen(text), &g->t, err)) < 0 ||
	    (rc = finish(g, err)) < 0) {
		swp_grid_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

void swp_grid_free(struct swp_grid *g)
{
	int a, b;
	size_t i;
	if (!g)
		return;
	for (a = 0; a < g->naxes; a++) {
		for (i = 0; i < g->axes[a].nitems; i++)
			free(g->axes[a].items[i].set);
		free(g->axes[a].items);
	}
	free(g->set.set);
	for (b = 0; b < g->nbases; b++) {
		ytree_free(g->bases[b].t);
		free(g->bases[b].path);
	}
	free(g->bases);
	ytree_free(g->t);
	free(g->file);
	free(g->dir);
	free(g);
}

static void apply_item(const struct swp_item *it, struct swp_point *p)
{
	int k;
	for (k = 0; k < it->n; k++) {
		p->val[it->set[k].name] = it->set[k].val;
		if (it->set[k].base >= 0)
			p->base = it->set[k].base;
	}
}

void swp_grid_point_items(const struct swp_grid *g, const size_t *idx, struct swp_point *p)
{
	uint64_t v = 0, lin = 0;
	int a;
	memset(p, 0, sizeof(*p));
	p->base = -1;
	apply_item(&g->set, p);
	for (a = 0; a < g->naxes; a++) {
		const struct swp_axis *ax = &g->axes[a];
		apply_item(&ax->items[idx[a]], p);
		lin = lin * ax->nitems + idx[a];
		if (ax->scn)
			v = v * ax->nitems + idx[a];
	}
	p->index = lin;
	p->variant = v;
}

void swp_grid_point(const struct swp_grid *g, uint64_t i, struct swp_point *p)
{
	size_t idx[SWP_MAX_AXES];
	int a;
	for (a = g->naxes - 1; a >= 0; a--) {
		idx[a] = (size_t)(i % g->axes[a].nitems);
		i /= g->axes[a].nitems;
	}
	swp_grid_point_items(g, idx, p);
}

int swp_grid_check(const struct swp_grid *g, struct plumb_err *err)
{
	size_t idx[SWP_MAX_AXES] = { 0 };
	struct swp_point p;
	struct scenario *s;
	int a, rc, sa = -1;
	size_t i, j, ns = 1;

	/* Each scenario-touching value once, on every scenario of the grid. */
	for (a = 0; a < g->naxes; a++)
		for (i = 0; i < (size_t)g->axes[a].items[0].n; i++)
			if (g->names[g->axes[a].items[0].set[i].name].kind == SWP_SCENARIO)
				sa = a;
	if (sa >= 0)
		ns = g->axes[sa].nitems;
	for (j = 0; j < ns; j++) {
		if (sa >= 0)
			idx[sa] = j;
		for (a = -1; a < g->naxes; a++) {
			size_t n = a < 0 ? 1 : g->axes[a].nitems;
			if (a >= 0 && (!g->axes[a].scn || a == sa))
				continue;
			for (i = a < 0 ? 0 : 1; i < n; i++) {
				if (a >= 0)
					idx[a] = i;
				swp_grid_point_items(g, idx, &p);
				if ((rc = swp_variant_load(g, &p, &s, err)) < 0)
					return rc;
				scn_free(s);
			}
			if (a >= 0)
				idx[a] = 0;
		}
	}
	return 0;
}
