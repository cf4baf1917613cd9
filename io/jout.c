/*
 * jout.c - the JSON writer of io/jout.h: jansson encodes, this file only
 * chooses where lines break.
 */
#include "jout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JOUT_FLAGS (JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | \
		    JSON_REAL_PRECISION(JOUT_REAL_DIGITS))

json_t *jout_str(const char *s)
{
	json_t *v;
	char *copy;
	size_t i, n;

	if (!s)
		s = "";
	if ((v = json_string(s)))
		return v;
	/* not UTF-8: keep the ASCII, mark every other byte */
	n = strlen(s);
	if (!(copy = malloc(n + 1)))
		return NULL;
	for (i = 0; i < n; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	copy[n] = '\0';
	v = json_string(copy);
	free(copy);
	return v;
}

json_t *jout_real(double x, int decimals)
{
	double scale;

	if (!isfinite(x))
		return json_null();
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	scale = pow(10.0, decimals);
	x = round(x * scale) / scale;
	if (x == 0)
		x = 0;   /* no "-0.0" */
	return json_real(x);
}

int jout_set(json_t *o, const char *key, json_t *v)
{
	if (!o || !v) {
		json_decref(v);
		return -1;
	}
	return json_object_set_new(o, key, v);
}

int jout_push(json_t *a, json_t *v)
{
	if (!a || !v) {
		json_decref(v);
		return -1;
	}
	return json_array_append_new(a, v);
}

/* Does container v hold a non-empty container? */
static int holds_container(json_t *v)
{
	const char *k;
	json_t *m;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, m)
			if ((json_is_object(m) && json_object_size(m)) ||
			    (json_is_array(m) && json_array_size(m)))
				return 1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, m)
			if ((json_is_object(m) && json_object_size(m)) ||
			    (json_is_array(m) && json_array_size(m)))
				return 1;
	}
	return 0;
}

static int put_inline(FILE *f, const json_t *v)
{
	char *s = json_dumps(v, JOUT_FLAGS);

	if (!s)
		return -1;
	fputs(s, f);
	free(s);
	return 0;
}

static void indent(FILE *f, int depth)
{
	int i;

	for (i = 0; i < depth; i++)
		fputs("  ", f);
}

/* Recursion depth is bounded by levels: deeper values go inline. */
static int put(FILE *f, json_t *v, int depth, int levels)
{
	const char *k;
	json_t *m;
	size_t i, n;

	if (depth >= levels || !holds_container(v))
		return put_inline(f, v);
	if (json_is_object(v)) {
		n = json_object_size(v);
		i = 0;
		fputs("{\n", f);
		json_object_foreach(v, k, m) {
			json_t *key = jout_str(k);
			indent(f, depth + 1);
			if (!key || put_inline(f, key) < 0) {
				json_decref(key);
				return -1;
			}
			json_decref(key);
			fputs(": ", f);
			if (put(f, m, depth + 1, levels) < 0)
				return -1;
			fputs(++i < n ? ",\n" : "\n", f);
		}
		indent(f, depth);
		fputc('}', f);
		return 0;
	}
	n = json_array_size(v);
	fputs("[\n", f);
	json_array_foreach(v, i, m) {
		indent(f, depth + 1);
		if (put(f, m, depth + 1, levels) < 0)
			return -1;
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	indent(f, depth);
	fputc(']', f);
	return 0;
}

int jout_put(FILE *f, json_t *v, int depth, int levels)
{
	return v ? put(f, v, depth, levels) : -1;
}

char *jout_encode(const char *s)
{
	json_t *v = jout_str(s);
	char *e;

	if (!v)
		return NULL;
	e = json_dumps(v, JOUT_FLAGS);
	json_decref(v);
	return e;
}

void jout_indent(FILE *f, int depth)
{
	indent(f, depth);
}

int jout_write(FILE *f, json_t *v, int levels, struct plumb_err *err)
{
	if (!v || put(f, v, 0, levels) < 0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "out of memory writing JSON");
	fputc('\n', f);
	return 0;
}

int jout_write_built(FILE *f, json_t *doc, int built, int levels, struct plumb_err *err)
{
	int rc;
	if (built) {
		json_decref(doc);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	rc = jout_write(f, doc, levels, err);
	json_decref(doc);
	return rc;
}
