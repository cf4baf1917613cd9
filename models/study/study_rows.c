/*
 * study_rows.c - the report's temporary directory and the rows it reads
 * back from the prediction's JSON, indexed by box, layout and load so that
 * every lookup is O(1) (the page looks rows up once per table cell).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "study_int.h"
#include "out.h"

int study_tmp_open(struct study_tmp *t, struct plumb_err *err)
{
	const char *base = getenv("TMPDIR");
	size_t n;
	memset(t, 0, sizeof(*t));
	if (!base || !*base)
		base = "/tmp";
	n = strlen(base) + sizeof("/plumb-report.XXXXXX");
	if (!(t->dir = malloc(n)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	snprintf(t->dir, n, "%s/plumb-report.XXXXXX", base);
	if (!mkdtemp(t->dir)) {
		plumb_err_set(err, PLUMB_EIO, t->dir, 0, 0,
			      "cannot create a temporary directory for the report's parts");
		free(t->dir);
		t->dir = NULL;
		return -PLUMB_EIO;
	}
	out_tmp_add(t->dir, 1);    /* removed by a signal too (io/out.h) */
	return 0;
}

char *study_tmp_file(struct study_tmp *t, const char *name, struct plumb_err *err)
{
	size_t n = strlen(t->dir) + strlen(name) + 2;
	char *p;
	if (t->nfiles == t->cap) {
		int nc = t->cap ? 2 * t->cap : 16;
		char **nf = realloc(t->files, (size_t)nc * sizeof(*nf));
		if (!nf)
			goto oom;
		t->files = nf;
		t->cap = nc;
	}
	if (!(p = malloc(n)))
		goto oom;
	snprintf(p, n, "%s/%s", t->dir, name);
	out_tmp_add(p, 0);
	return t->files[t->nfiles++] = p;
oom:
	plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	return NULL;
}

void study_tmp_close(struct study_tmp *t)
{
	int i;
	for (i = t->nfiles - 1; i >= 0; i--) {
		unlink(t->files[i]);
		out_tmp_forget(t->files[i]);
		free(t->files[i]);
	}
	free(t->files);
	if (t->dir) {
		rmdir(t->dir);
		out_tmp_forget(t->dir);
	}
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

char *study_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;
	if (!f)
		return NULL;
	do {
		if (n + 65536 + 1 > cap) {
			char *nb;
			cap = (n + 65536 + 1) * 2;
			if (!(nb = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	return buf;
}

double study_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *study_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : "";
}

const char *study_loadname(int x)
{
	return x == 1 ? "request" : "requests";
}

/* Index of s among the n strings of *list, appended when new. -1: out of
 * memory. */
static int intern_str(const char ***list, int *n, const char *s)
{
	const char **nl;
	int k;
	for (k = 0; k < *n; k++)
		if (!strcmp((*list)[k], s))
			return k;
	if (!(nl = realloc(*list, (size_t)(*n + 1) * sizeof(*nl))))
		return -1;
	*list = nl;
	nl[*n] = s;
	return (*n)++;
}

static int intern_int(int **list, int *n, int x)
{
	int *nl, k;
	for (k = 0; k < *n; k++)
		if ((*list)[k] == x)
			return k;
	if (!(nl = realloc(*list, (size_t)(*n + 1) * sizeof(*nl))))
		return -1;
	*list = nl;
	nl[*n] = x;
	return (*n)++;
}

int study_read_rows(struct study *st, const char *path, struct plumb_err *err)
{
	json_error_t je;
	json_t *rows;
	size_t i, n, cells;
	if (!(st->doc = json_load_file(path, 0, &je)) ||
	    !json_is_array(rows = json_object_get(st->doc, "rows")))
		return plumb_err_set(err, PLUMB_ERUNTIME, path, 0, 0,
				     "the prediction's rows cannot be read back: %s", je.text);
	n = json_array_size(rows);
	if (n && !(st->rows = calloc(n, sizeof(*st->rows))))
		goto oom;
	for (i = 0; i < n; i++) {
		json_t *r = json_array_get(rows, i);
		struct prow *p = &st->rows[st->nrows];
		const char *name = study_str(r, "scenario");
		int k;
		p->si = (int)(i % (size_t)st->ns);     /* rows go layout, load, box */
		if (st->ns > 1 && strcmp(name, st->s[p->si]->name))
			return plumb_err_set(err, PLUMB_ERUNTIME, path, 0, 0,
					     "row %zu is of '%s', not of box %d '%s'", i + 1, name,
					     p->si + 1, st->s[p->si]->name);
		p->layout = study_str(r, "layout");
		p->x = (int)study_num(r, "concurrency");
		p->fits = json_is_true(json_object_get(r, "fits"));
		p->tok = study_num(r, "tok_s_total");
		p->lo = study_num(r, "tok_s_total_p5");
		p->hi = study_num(r, "tok_s_total_p95");
		p->stream = study_num(r, "tok_s_per_stream");
		p->tpot = study_num(r, "tpot_ms");
		p->ttft = study_num(r, "ttft_ms");
		p->comm = study_num(r, "comm_frac");
		p->busy = study_num(r, "busy_frac");
		p->diag = study_str(r, "diagnosis");
		for (k = 0; k < PART_N; k++)
			p->part[k] = study_num(json_object_get(r, "breakdown_ms"),
					     pred_part_name((enum pred_part)k));
		for (k = 0; k < 3; k++) {
			static const char *const q[3] = { "p50", "p90", "p99" };
			json_t *pc = json_object_get(r, "percentiles_ms");
			p->ttft_p[k] = study_num(json_object_get(pc, "ttft"), q[k]);
			p->tpot_p[k] = study_num(json_object_get(pc, "tpot"), q[k]);
		}
		p->gpu_w = study_num(r, "gpu_w");
		p->box_w = study_num(r, "box_w");
		p->j_per_tok = study_num(r, "j_per_tok");
		p->usd_per_mtok = study_num(r, "usd_per_mtok");
		p->why = study_str(r, "why");
		p->run = study_str(r, "layout_run");
		p->draws = json_object_get(r, "tok_s_draws");
		if (!json_is_array(p->draws))
			p->draws = NULL;
		st->interval |= p->fits && isfinite(p->lo);
		if ((p->li = intern_str(&st->layouts, &st->nlayouts, p->layout)) < 0 ||
		    (p->xi = intern_int(&st->xs, &st->nx, p->x)) < 0)
			goto oom;
		st->nrows++;
	}
	cells = (size_t)st->ns * (size_t)st->nlayouts * (size_t)st->nx;
	if (cells && !(st->at = malloc(cells * sizeof(*st->at))))
		goto oom;
	for (i = 0; i < cells; i++)
		st->at[i] = -1;
	for (i = 0; i < (size_t)st->nrows; i++) {
		const struct prow *p = &st->rows[i];
		size_t c = ((size_t)p->si * (size_t)st->nlayouts + (size_t)p->li) * (size_t)st->nx +
			   (size_t)p->xi;
		if (st->at[c] < 0)
			st->at[c] = (int)i;
	}
	return 0;
oom:
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
}

const struct prow *study_row(const struct study *st, int si, int li, int xi)
{
	int r = st->at[((size_t)si * (size_t)st->nlayouts + (size_t)li) * (size_t)st->nx +
		       (size_t)xi];
	return r < 0 ? NULL : &st->rows[r];
}

const struct prow *study_fit(const struct study *st, int si, int li, int xi)
{
	const struct prow *p = study_row(st, si, li, xi);
	return p && p->fits ? p : NULL;
}

const struct prow *study_best(const struct study *st, int si, int xi)
{
	const struct prow *b = NULL;
	int li;
	for (li = 0; li < st->nlayouts; li++) {
		const struct prow *p = study_fit(st, si, li, xi);
		if (p && (!b || p->tok > b->tok))
			b = p;
	}
	return b;
}

void study_study_release(struct study *st)
{
	int i;
	json_decref(st->doc);
	free(st->rows);
	free(st->layouts);
	free(st->xs);
	free(st->at);
	for (i = 0; st->s && i < st->ns; i++)
		scn_free(st->s[i]);
	free(st->s);
	memset(st, 0, sizeof(*st));
}
