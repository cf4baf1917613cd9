/*
 * valid_fits.c - which constants each validation case fixed (`fits:`), checked
 * against the constants' own sources so neither can rot alone.
 *
 * A constant's sources are its entry in the constants table (io/consts.c) and
 * every line that sets it in the GPU catalog (scenarios/catalog/gpus.yaml,
 * compiled in) or in a case's scenario file (its `constants:`). A YAML line's
 * source text is the line itself (its comment, or a catalog entry's
 * `source:`) and the comment lines directly above it.
 *
 * A source names a case by its data file's path ("validation/data/X") or by
 * "validation case NAME". Both directions are checked: every case a source
 * names lists the constant (for a data file: some case reading that file),
 * and every constant a case lists has a source naming the case.
 */
#include "valid_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "consts.h"
#include "input.h"

extern const char scn_catalog_gpus_yaml[];

/* One place a constant's value comes from. */
struct fsrc {
	int k;                  /* constant */
	char where[600];        /* "io/consts.c", "FILE:LINE" */
	char *text;             /* owned */
};

struct fsrcs {
	struct fsrc *s;
	int n, cap;
};

static int add_src(struct fsrcs *a, int k, const char *where, const char *text, size_t len)
{
	if (a->n == a->cap) {
		int cap = a->cap ? 2 * a->cap : 64;
		struct fsrc *ns = realloc(a->s, (size_t)cap * sizeof(*ns));
		if (!ns)
			return -1;
		a->s = ns;
		a->cap = cap;
	}
	a->s[a->n].k = k;
	snprintf(a->s[a->n].where, sizeof(a->s[a->n].where), "%s", where);
	if (!(a->s[a->n].text = malloc(len + 1)))
		return -1;
	memcpy(a->s[a->n].text, text, len);
	a->s[a->n].text[len] = '\0';
	a->n++;
	return 0;
}

/* Line kinds of a YAML text. */
enum lkind { L_OTHER, L_COMMENT, L_SETTING, L_CONSTANTS };

/* What line [b, e) is; a setting of a constant gives its index in *k. */
static enum lkind line_kind(const char *b, const char *e, int *k)
{
	char name[64];
	size_t n = 0;
	while (b < e && (*b == ' ' || *b == '\t' || *b == '-'))
		b++;
	if (b == e)
		return L_OTHER;
	if (*b == '#')
		return L_COMMENT;
	while (b + n < e && (isalnum((unsigned char)b[n]) || b[n] == '_') && n + 1 < sizeof(name)) {
		name[n] = b[n];
		n++;
	}
	name[n] = '\0';
	if (b + n >= e || b[n] != ':')
		return L_OTHER;
	if (!strcmp(name, "constants"))
		return L_CONSTANTS;
	if ((*k = consts_find(name)) >= 0)
		return L_SETTING;
	return L_OTHER;
}

/* The sources a YAML text (file `file`) gives: one per line setting a constant. */
static int yaml_sources(struct fsrcs *a, const char *file, const char *text)
{
	const char **ls = NULL, *p = text;
	int nl = 0, cap = 0, i, rc = 0;
	/* line starts; ls[nl] is the end */
	for (;;) {
		if (nl + 2 > cap) {
			const char **nls;
			cap = cap ? 2 * cap : 1024;
			if (!(nls = realloc(ls, (size_t)cap * sizeof(*ls)))) {
				free(ls);
				return -1;
			}
			ls = nls;
		}
		ls[nl] = p;
		if (!*p)
			break;
		p = strchr(p, '\n');
		p = p ? p + 1 : ls[nl] + strlen(ls[nl]);
		nl++;
	}
	for (i = 0; i < nl && rc == 0; i++) {
		int k = -1, j, kk;
		size_t len = 0;
		char *buf, where[600];
		if (line_kind(ls[i], ls[i + 1], &k) != L_SETTING)
			continue;
		/* walk up over the comment lines above it */
		for (j = i - 1; j >= 0 && line_kind(ls[j], ls[j + 1], &kk) == L_COMMENT; j--)
			;
		for (kk = j + 1; kk <= i; kk++)
			len += (size_t)(ls[kk + 1] - ls[kk]);
		if (!(buf = malloc(len + 1))) {
			rc = -1;
			break;
		}
		memcpy(buf, ls[j + 1], len);
		buf[len] = '\0';
		snprintf(where, sizeof(where), "%s:%d", file, i + 1);
		rc = add_src(a, k, where, buf, len);
		free(buf);
	}
	free(ls);
	return rc;
}

/* Does text name case c (its data file, or "validation case NAME")? */
static int names_case(const char *text, const struct val_case *c)
{
	const char *q;
	char phrase[96];
	if (c->data[0] && strstr(text, c->data))
		return 1;
	snprintf(phrase, sizeof(phrase), "validation case %s", c->name);
	for (q = text; (q = strstr(q, phrase)); q++) {
		char after = q[strlen(phrase)];
		if (!(isalnum((unsigned char)after) || after == '-' || after == '_'))
			return 1;
	}
	return 0;
}

static int lists(const struct val_case *c, int k)
{
	int j;
	for (j = 0; j < c->nfits; j++)
		if (consts_find(c->fits[j]) == k)
			return 1;
	return 0;
}

/* The first "validation/data/..." path in text that no case reads as its
 * data (a source naming a file outside the case list), in buf. */
static int unknown_data_path(const struct val_set *v, const char *text, char *buf, size_t n)
{
	const char *q;
	for (q = text; (q = strstr(q, "validation/data/")); q++) {
		size_t l = strcspn(q, " \t\n,;)\"'");
		int i;
		while (l > 0 && q[l - 1] == '.')
			l--;
		for (i = 0; i < v->ncases; i++)
			if (strlen(v->cases[i].data) == l && !strncmp(v->cases[i].data, q, l))
				break;
		if (i == v->ncases) {
			snprintf(buf, n, "%.*s", (int)l, q);
			return 1;
		}
	}
	return 0;
}

int val_fits_check(const struct val_set *v, struct plumb_err *err)
{
	struct fsrcs a;
	int i, j, k, rc = 0;
	memset(&a, 0, sizeof(a));
	for (k = 0; k < K_NCONSTS && rc == 0; k++)
		rc = add_src(&a, k, "io/consts.c", plumb_const_defs[k].source,
			     strlen(plumb_const_defs[k].source));
	if (rc == 0)
		rc = yaml_sources(&a, "scenarios/catalog/gpus.yaml", scn_catalog_gpus_yaml);
	for (i = 0; i < v->ncases && rc == 0; i++) {
		char *text = NULL;
		size_t len;
		struct plumb_err e;
		for (j = 0; j < i && strcmp(v->cases[j].scenario, v->cases[i].scenario); j++)
			;
		if (j < i)
			continue;
		if (input_read(v->cases[i].scenario, &text, &len, &e) < 0)
			continue;       /* loaded before; a file gone since has no say */
		rc = yaml_sources(&a, v->cases[i].scenario, text);
		free(text);
	}
	if (rc < 0) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	/* every case a source names lists the constant: a case named by name
	 * itself, a data file by some case reading it */
	for (j = 0; j < a.n && rc == 0; j++) {
		const struct fsrc *s = &a.s[j];
		const char *kn = plumb_const_defs[s->k].name;
		char path[512];
		for (i = 0; i < v->ncases && rc == 0; i++) {
			const struct val_case *c = &v->cases[i];
			int m, ok = 0;
			if (!names_case(s->text, c))
				continue;
			if (!strstr(s->text, c->data)) {        /* by name */
				if (!lists(c, s->k))
					rc = plumb_err_set(err, PLUMB_EINPUT, v->file, c->line, 0,
							   "%s: the source of %s names validation case %s, "
							   "which does not list %s in 'fits'", s->where, kn,
							   c->name, kn);
				continue;
			}
			for (m = 0; m < v->ncases && !ok; m++)
				ok = !strcmp(v->cases[m].data, c->data) && lists(&v->cases[m], s->k);
			if (!ok)
				rc = plumb_err_set(err, PLUMB_EINPUT, v->file, c->line, 0,
						   "%s: the source of %s names %s, but no case reading it "
						   "lists %s in 'fits'", s->where, kn, c->data, kn);
		}
		if (rc == 0 && unknown_data_path(v, s->text, path, sizeof(path)))
			rc = plumb_err_set(err, PLUMB_EINPUT, v->file, 0, 0,
					   "%s: the source of %s names %s, which no case reads", s->where,
					   kn, path);
	}
	/* every constant a case lists has a source naming the case */
	for (i = 0; i < v->ncases && rc == 0; i++) {
		const struct val_case *c = &v->cases[i];
		for (j = 0; j < c->nfits && rc == 0; j++) {
			int kk = consts_find(c->fits[j]), found = 0, s;
			for (s = 0; s < a.n && !found; s++)
				found = a.s[s].k == kk && names_case(a.s[s].text, c);
			if (!found)
				rc = plumb_err_set(err, PLUMB_EINPUT, v->file, c->fits_line, c->fits_col,
						   "case '%s' lists %s in 'fits', but no source of %s (io/consts.c, "
						   "the GPU catalog, the case's scenario) names %s or 'validation "
						   "case %s'", c->name, c->fits[j], c->fits[j], c->data, c->name);
		}
	}
out:
	for (j = 0; j < a.n; j++)
		free(a.s[j].text);
	free(a.s);
	return rc;
}
