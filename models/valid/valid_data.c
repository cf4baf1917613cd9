/*
 * valid_data.c - the measured points of a case: its data file (nccl-tests,
 * p2pBandwidthLatencyTest, a CSV) or the numbers it quotes; and cases built
 * from data files alone (val_from_files, val_add_files: plumb calibrate).
 */
#include "valid_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "datadir.h"
#include "input.h"
#include "meas.h"
#include "predict.h"
static const char *const qpoint_keys[] = { "matrix", "pairs", "value", "quote", NULL };

/* The p2p matrices plumb predicts, and where p2ptest keeps them. */
const struct val_p2p_map val_p2p_map[] = {
	{ MEAS_P2P_UNI_DISABLED, P2PT_UNI_DISABLED },
	{ MEAS_P2P_UNI_WRITES, P2PT_UNI_ENABLED },
	{ MEAS_P2P_BI_DISABLED, P2PT_BI_DISABLED },
	{ MEAS_P2P_BI_ENABLED, P2PT_BI_ENABLED },
	{ MEAS_P2P_LAT_DISABLED_GPU, P2PT_LAT_DISABLED },
	{ MEAS_P2P_LAT_WRITES_GPU, P2PT_LAT_ENABLED },
};
const int val_np2p_map = (int)(sizeof(val_p2p_map) / sizeof(val_p2p_map[0]));
#define NP2PMAP ((size_t)val_np2p_map)
#define p2p_map val_p2p_map

/* Append a measured point (NULL when the measurement is missing, or when out
 * of memory: then v->oom is set). */
static struct val_point *add_point(struct val_set *v, int c, const char *label, int group,
				   double meas)
{
	struct val_point *p;
	if (!(meas > 0) || !isfinite(meas))
		return NULL;
	if ((v->npoints & 255) == 0) {
		struct val_point *np = realloc(v->points, (size_t)(v->npoints + 256) * sizeof(*np));
		if (!np) {
			v->oom = 1;
			return NULL;
		}
		v->points = np;
	}
	p = &v->points[v->npoints++];
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->group = group;
	p->train = 1;
	snprintf(p->label, sizeof(p->label), "%s", label);
	p->measured = meas;
	p->predicted = NAN;
	p->lo = p->hi = NAN;
	return p;
}

/*
 * A p2p case whose numbers are quoted in prose (a summary table, "ACS ON
 * ~50 GB/s") rather than printed as matrices: `points:` lists each number
 * with the matrix it belongs to, the device pairs it stands for ("0:1
 * 0:2") and `quote`, text of the data file it was read from (checked: the
 * data file must contain it verbatim). Points are stored in matrix order.
 */
int val_quoted_points(struct val_set *v, int idx, const struct ytree *t,
			 const struct ynode *list, struct plumb_err *err)
{
	struct val_case *c = &v->cases[idx];
	char *text = NULL;
	int rc, kind;
	size_t i, len;

	c->first_point = v->npoints;
	if ((rc = yexpect(t, list, Y_SEQ, "points", err)) < 0)
		return rc;
	if ((rc = input_read(c->data, &text, &len, err)) < 0)
		return rc;
	for (i = 0; i < list->n; i++) {
		const struct ynode *e = list->vals[i];
		if ((rc = yexpect(t, e, Y_MAP, "point", err)) < 0 ||
		    (rc = ymap_check_keys(t, e, "point", qpoint_keys, err)) < 0)
			goto out;
		if (!ymap_get(e, "matrix") || !ymap_get(e, "pairs") || !ymap_get(e, "value") ||
		    !ymap_get(e, "quote")) {
			rc = yerr(t, e, PLUMB_EINPUT, err, "a point needs matrix, pairs, value and quote");
			goto out;
		}
	}
	/* one pass per matrix kind keeps each matrix's points together */
	for (kind = 0; kind < MEAS_P2P_NKINDS; kind++)
		for (i = 0; i < list->n; i++) {
			const struct ynode *e = list->vals[i];
			char name[32], quote[256], pairs[256];
			const char *q;
			double val;
			size_t k;
			if ((rc = yget_str(t, ymap_get(e, "matrix"), "matrix", name, sizeof(name), err)) < 0)
				goto out;
			for (k = 0; k < NP2PMAP; k++)
				if (!strcmp(name, meas_p2p_kind_name(p2p_map[k].meas)))
					break;
			if (k == NP2PMAP) {
				rc = yerr(t, ymap_get(e, "matrix"), PLUMB_EINPUT, err,
					  "matrix '%s' is not one plumb predicts (uni_disabled, uni_writes, "
					  "bi_disabled, bi_enabled, lat_disabled_gpu, lat_writes_gpu)", name);
				goto out;
			}
			if ((int)p2p_map[k].meas != kind)
				continue;
			if ((rc = yget_double(t, ymap_get(e, "value"), "value", 1e-9, 1e9, &val, err)) < 0 ||
			    (rc = yget_str(t, ymap_get(e, "quote"), "quote", quote, sizeof(quote), err)) < 0 ||
			    (rc = yget_str(t, ymap_get(e, "pairs"), "pairs", pairs, sizeof(pairs), err)) < 0)
				goto out;
			if (!strstr(text, quote)) {
				rc = yerr(t, ymap_get(e, "quote"), PLUMB_EINPUT, err,
					  "quote '%s' is not in %s", quote, c->data);
				goto out;
			}
			for (q = pairs; *q;) {
				char label[64], *end;
				long a, b;
				struct val_point *p;
				while (*q == ' ' || *q == ',')
					q++;
				if (!*q)
					break;
				a = strtol(q, &end, 10);
				b = -1;
				if (end != q && *end == ':') {
					q = end + 1;
					b = strtol(q, &end, 10);
					if (end == q)
						b = -1;
				}
				if (a < 0 || b < 0 || a == b || a >= c->ngpus || b >= c->ngpus) {
					rc = yerr(t, ymap_get(e, "pairs"), PLUMB_EINPUT, err,
						  "pairs must be 'A:B A:B ...' of distinct devices 0-%d",
						  c->ngpus - 1);
					goto out;
				}
				q = end;
				snprintf(label, sizeof(label), "%s %ld->%ld", name, a, b);
				if ((p = add_point(v, idx, label, kind, val))) {
					p->row = (int)k;
					p->a = (int)a;
					p->b = (int)b;
				}
				if (v->oom) {
					rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
					goto out;
				}
			}
		}
	c->npoints = v->npoints - c->first_point;
	rc = c->npoints ? 0 : yerr(t, list, PLUMB_EINPUT, err, "case '%s' lists no point", c->name);
out:
	free(text);
	return rc;
}

/* Read case idx's data file and list its measured points. */
int val_case_data(struct val_set *v, int idx, struct plumb_err *err)
{
	struct val_case *c = &v->cases[idx];
	int rc, i;
	struct val_point *p;

	c->first_point = v->npoints;
	if (c->kind == VAL_SERVING || c->kind == VAL_COLLCSV || c->kind == VAL_DECODE) {
		static const enum meas_csv_kind want[] = {
			[VAL_SERVING] = MEAS_CSV_SERVING, [VAL_COLLCSV] = MEAS_CSV_COLLECTIVES,
			[VAL_DECODE] = MEAS_CSV_DECODE
		};
		static const char *const cols[] = {
			[VAL_SERVING] = "layout,concurrency,context,tok_s",
			[VAL_COLLCSV] = "op,gpus,bytes,time_us",
			[VAL_DECODE] = "layout,batch,context,step_ms"
		};
		if ((rc = meas_csv_parse_file(c->data, &c->serving, err)) < 0)
			return rc;
		if (c->serving->kind != want[c->kind])
			return plumb_err_set(err, PLUMB_EINPUT, c->data, 0, 0,
					     "case '%s' needs a %s CSV, this one is %s", c->name,
					     cols[c->kind], meas_csv_kind_name(c->serving->kind));
		for (i = 0; i < c->serving->nrows; i++) {
			const struct meas_csv_row *row = &c->serving->rows[i];
			char label[64];
			if (c->kind == VAL_SERVING) {
				snprintf(label, sizeof(label), "%s x%d tok/s", row->layout, row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_TOK, row->tok_s)))
					p->row = i;
				snprintf(label, sizeof(label), "%s x%d tpot_ms", row->layout, row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_TPOT, row->tpot_ms)))
					p->row = i;
				snprintf(label, sizeof(label), "%s x%d peak tok/s", row->layout,
					 row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_PEAK, row->peak_tok_s)))
					p->row = i;
				snprintf(label, sizeof(label), "%s x%d ttft_ms", row->layout, row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_TTFT, row->ttft_ms)))
					p->row = i;
				snprintf(label, sizeof(label), "%s x%d kv_transfer_ms", row->layout,
					 row->concurrency);
				if ((p = add_point(v, idx, label, VAL_SRV_XFER, row->kv_xfer_ms)))
					p->row = i;
			} else if (c->kind == VAL_COLLCSV) {
				if (row->gpus > c->ngpus)
					return plumb_err_set(err, PLUMB_EINPUT, c->data, row->line, 0,
							     "%d GPUs, but %s maps %d", row->gpus,
							     c->scenario, c->ngpus);
				snprintf(label, sizeof(label), "%s %dg %llu B", row->op, row->gpus,
					 (unsigned long long)row->bytes);
				if ((p = add_point(v, idx, label, 0, row->time_us)))
					p->row = i;
			} else {
				snprintf(label, sizeof(label), "%s b%d ctx%ld", row->layout, row->batch,
					 row->context);
				if ((p = add_point(v, idx, label, 0, row->step_ms)))
					p->row = i;
			}
			if (v->oom)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
	} else if (c->kind == VAL_NCCL) {
		struct meas_nccl_hint h;
		const struct meas_nccl_run *run;
		memset(&h, 0, sizeof(h));
		h.op = c->op[0] ? c->op : NULL;
		h.ngpus = c->ngpus;
		if ((rc = meas_nccl_parse_file(c->data, &h, &c->nccl, err)) < 0)
			return rc;
		if (c->run > c->nccl->nruns)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, 0, 0,
					     "%s has %d run%s, not %d", c->data, c->nccl->nruns,
					     c->nccl->nruns == 1 ? "" : "s", c->run);
		run = &c->nccl->runs[c->run - 1];
		if (run->ngpus && run->ngpus > c->ngpus)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, run->line, 0,
					     "case '%s': the run has %d GPUs but the case maps %d",
					     c->name, run->ngpus, c->ngpus);
		if (run->ngpus && run->ngpus < c->ngpus)
			c->ngpus = run->ngpus;
		if (!c->op[0])
			snprintf(c->op, sizeof(c->op), "%s", run->op);
		if (coll_op_parse(c->op) < 0)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, run->line, 0,
					     "case '%s': op '%s' is not simulated", c->name, c->op);
		for (i = 0; i < run->nrows; i++) {
			char label[64];
			snprintf(label, sizeof(label), "%llu B", (unsigned long long)run->rows[i].size);
			if ((p = add_point(v, idx, label, 0, run->rows[i].oop_time_us)))
				p->row = i;
			if (v->oom)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		/* The in-place column times the same collective on one buffer:
		 * scored too, after the out-of-place rows, but left out of fits
		 * (the same point twice would weigh nccl-tests double). */
		for (i = 0; i < run->nrows; i++) {
			char label[64];
			snprintf(label, sizeof(label), "%llu B in-place", (unsigned long long)run->rows[i].size);
			if ((p = add_point(v, idx, label, 1, run->rows[i].ip_time_us))) {
				p->row = i;
				p->train = 0;
			}
			if (v->oom)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
	} else {
		const struct meas_p2p_run *run;
		size_t k;
		int a, b;
		if ((rc = meas_p2p_parse_file(c->data, &c->p2p, err)) < 0)
			return rc;
		if (c->run > c->p2p->nruns)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, 0, 0,
					     "%s has %d runs, not %d", c->data, c->p2p->nruns, c->run);
		run = &c->p2p->runs[c->run - 1];
		if (run->n > c->ngpus)
			return plumb_err_set(err, PLUMB_EINPUT, c->data, run->line, 0,
					     "case '%s': the data has %d GPUs but the case maps %d",
					     c->name, run->n, c->ngpus);
		for (k = 0; k < NP2PMAP; k++)
			for (a = 0; a < run->n; a++)
				for (b = 0; b < run->n; b++) {
					char label[64];
					if (a == b)
						continue;   /* local copies: not the interconnect */
					snprintf(label, sizeof(label), "%s %d->%d",
						 meas_p2p_kind_name(p2p_map[k].meas), a, b);
					if ((p = add_point(v, idx, label, (int)p2p_map[k].meas,
							   meas_p2p_at(run, p2p_map[k].meas, a, b)))) {
						p->row = (int)k;
						p->a = a;
						p->b = b;
					}
					if (v->oom)
						return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
				}
	}
	c->npoints = v->npoints - c->first_point;
	if (c->npoints == 0)   /* every value missing (N/A, nan) or zero */
		return plumb_err_set(err, PLUMB_EINPUT, c->data, 0, 0,
				     "no measured value to compare with in case '%s' (every "
				     "value is missing, NaN or zero)", c->name);
	for (i = 0; i < c->nartefacts; i++) {
		/* "LABEL #N": the N-th point named LABEL (serving rows of one
		 * layout and load share a name); plain LABEL: every such point */
		const char *a = c->artefacts[i], *hash = strstr(a, " #");
		size_t len = hash ? (size_t)(hash - a) : strlen(a);
		int q, found = 0, nth = 0, want = 0;
		if (hash) {
			char *end;
			long w = strtol(hash + 2, &end, 10);
			if (*end || w < 1 || w > 1000000)
				return plumb_err_set(err, PLUMB_EINPUT, v->file, c->artefacts_line[i],
						     c->artefacts_col[i],
						     "case '%s': artefact '%s': after \" #\" a point's "
						     "number among those of its name (1, 2, ...)", c->name, a);
			want = (int)w;
		}
		for (q = c->first_point; q < c->first_point + c->npoints; q++)
			if (strlen(v->points[q].label) == len &&
			    !strncmp(v->points[q].label, a, len) && (!want || ++nth == want))
				found = v->points[q].artefact = 1;
		if (!found)
			return plumb_err_set(err, PLUMB_EINPUT, v->file, c->artefacts_line[i],
					     c->artefacts_col[i],
					     "case '%s': artefact '%s' is not a point of its data "
					     "(points are named as the report names them, e.g. "
					     "\"%s\")", c->name, c->artefacts[i],
					     v->points[c->first_point].label);
	}
	return 0;
}


/* What kind of data a file holds, from its content. */
static int sniff_kind(const char *path, enum val_kind *k, struct plumb_err *err)
{
	char where[4096];
	FILE *f = fopen(path = plumb_data_path(path, where, sizeof(where)), "rb");
	char line[4096];
	int csv = 0, p2p = 0, seen = 0;
	if (!f)
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *q = line;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '#' || *q == '\n' || *q == '\r' || *q == '\0')
			continue;
		if (!seen++ && strchr(q, ',') && !strchr(q, ' '))
			csv = 1;
		if (strstr(q, "P2P Connectivity") || strstr(q, "Bandwidth Matrix") ||
		    strstr(q, "Latency Matrix"))
			p2p = 1;
		if (csv || p2p)
			break;
	}
	fclose(f);
	if (csv) {
		struct meas_csv *t = NULL;
		int rc = meas_csv_parse_file(path, &t, err);
		if (rc < 0)
			return rc;
		*k = t->kind == MEAS_CSV_COLLECTIVES ? VAL_COLLCSV :
		     t->kind == MEAS_CSV_DECODE ? VAL_DECODE : VAL_SERVING;
		meas_csv_free(t);
	} else {
		*k = p2p ? VAL_P2P : VAL_NCCL;
	}
	return 0;
}

/* How many runs the nccl-tests or p2p file of case c holds (1 for CSVs or
 * a file that does not parse: case_data then reports why). */
static int file_runs(const struct val_case *c)
{
	struct plumb_err e;
	int n = 1;
	if (c->kind == VAL_NCCL) {
		struct meas_nccl_file *f = NULL;
		struct meas_nccl_hint h;
		memset(&h, 0, sizeof(h));
		h.ngpus = c->ngpus;
		if (meas_nccl_parse_file(c->data, &h, &f, &e) == 0)
			n = f->nruns;
		meas_nccl_free(f);
	} else if (c->kind == VAL_P2P) {
		struct meas_p2p_file *f = NULL;
		if (meas_p2p_parse_file(c->data, &f, &e) == 0)
			n = f->nruns;
		meas_p2p_free(f);
	}
	return n > 1 ? n : 1;
}

/* Give back what case c owns and its points (the last ones of v). */
static void drop_case(struct val_set *v, struct val_case *c)
{
	scn_free(c->scn);
	meas_nccl_free(c->nccl);
	meas_p2p_free(c->p2p);
	meas_csv_free(c->serving);
	v->npoints = c->first_point;
	memset(c, 0, sizeof(*c));
}

/* One nccl-tests row of a case, for the duplicate check. */
struct nccl_key {
	const struct val_case *c;
	const struct meas_nccl_row *r;
	int ci;                     /* the case's index: cases in the order given */
};

static int nccl_key_cmp_same(const struct nccl_key *a, const struct nccl_key *b)
{
	int d;
	if ((d = strcmp(a->c->op, b->c->op)) != 0)
		return d;
	if (a->c->ngpus != b->c->ngpus)
		return a->c->ngpus < b->c->ngpus ? -1 : 1;
	if ((d = memcmp(a->c->gpus, b->c->gpus, (size_t)a->c->ngpus * sizeof(a->c->gpus[0]))) != 0)
		return d;
	if (a->r->size != b->r->size)
		return a->r->size < b->r->size ? -1 : 1;
	if ((d = strcmp(a->r->type, b->r->type)) != 0)
		return d;
	if ((d = strcmp(a->r->redop, b->r->redop)) != 0)
		return d;
	return a->r->root < b->r->root ? -1 : a->r->root > b->r->root;
}

/* Same measurement first, then in the order given (case, line). */
static int nccl_key_cmp(const void *pa, const void *pb)
{
	const struct nccl_key *a = pa, *b = pb;
	int d = nccl_key_cmp_same(a, b);
	if (d)
		return d;
	if (a->ci != b->ci)
		return a->ci < b->ci ? -1 : 1;
	return a->r->line < b->r->line ? -1 : a->r->line > b->r->line;
}

/*
 * The nccl-tests cases from index first on: no measurement twice (the same
 * op on the same GPUs at the same size, type, reduction and root), as a log
 * pasted or concatenated twice gives; fitting it twice would weigh it
 * double. The first repeat in the order given is named with the line of the
 * row it repeats: PLUMB_EINPUT. O(R log R) for R rows.
 */
static int nccl_duplicates(const struct val_set *v, int first, struct plumb_err *err)
{
	struct nccl_key *k = NULL, *dup = NULL, *orig = NULL;
	size_t n = 0, cap = 0, i;
	int ci, rc = 0;

	for (ci = first; ci < v->ncases; ci++) {
		const struct val_case *c = &v->cases[ci];
		const struct meas_nccl_run *run;
		int r;
		if (c->kind != VAL_NCCL || !c->nccl)
			continue;
		run = &c->nccl->runs[c->run - 1];
		for (r = 0; r < run->nrows; r++) {
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				struct nccl_key *nk = realloc(k, nc * sizeof(*nk));
				if (!nk) {
					free(k);
					return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
				}
				k = nk;
				cap = nc;
			}
			k[n].c = c;
			k[n].r = &run->rows[r];
			k[n++].ci = ci;
		}
	}
	if (n > 1)
		qsort(k, n, sizeof(*k), nccl_key_cmp);
	/* the repeat that comes first in the order given */
	for (i = 1; i < n; i++)
		if (!nccl_key_cmp_same(&k[i - 1], &k[i]) && (k[i - 1].c != k[i].c ||
							      k[i - 1].r->line != k[i].r->line) &&
		    (!dup || k[i].ci < dup->ci || (k[i].ci == dup->ci && k[i].r->line < dup->r->line))) {
			dup = &k[i];
			orig = &k[i - 1];
			while (orig > k && !nccl_key_cmp_same(orig - 1, dup))
				orig--;
		}
	if (dup)
		rc = plumb_err_set(err, PLUMB_EINPUT, dup->c->data, dup->r->line, 0,
				   "%s of %d GPUs at %llu B (%s%s%s) is measured again here, after %s:%d: "
				   "each measurement is fitted once; remove the repeated rows (a log "
				   "pasted or concatenated twice?)",
				   dup->c->op, dup->c->ngpus, (unsigned long long)dup->r->size,
				   dup->r->type, dup->r->redop[0] ? ", " : "", dup->r->redop,
				   orig->c->data, orig->r->line);
	free(k);
	return rc;
}

int val_add_files(struct val_set *v, const char *scenario, const char *const *files, int nfiles,
		  const char *gpus, const char *model, const char *weights, const char *kv,
		  struct plumb_err *err)
{
	int i, rc, first_case = v->ncases;

	for (i = 0; i < nfiles; i++) {
		const char *base = strrchr(files[i], '/');
		enum val_kind kind = VAL_NCCL;
		int run, nruns = 1, used = 0;
		struct plumb_err first;

		plumb_err_clear(&first);
		if ((rc = sniff_kind(files[i], &kind, err)) < 0)
			return rc;
		for (run = 1; run <= nruns; run++) {
			struct val_case *c, *nc;
			int k;
			nc = realloc(v->cases, (size_t)(v->ncases + 1) * sizeof(*nc));
			if (!nc)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			v->cases = nc;
			c = &v->cases[v->ncases++];
			memset(c, 0, sizeof(*c));
			c->kind = kind;
			snprintf(c->data, sizeof(c->data), "%s", files[i]);
			snprintf(c->scenario, sizeof(c->scenario), "%s", scenario);
			c->stack = 1;   /* as plumb predict runs the scenario */
			snprintf(c->model, sizeof(c->model), "%s", model ? model : "glm-5");
			snprintf(c->weights, sizeof(c->weights), "%s",
				 weights ? weights : llm_default_weights(c->model));
			snprintf(c->kv, sizeof(c->kv), "%s", kv ? kv : "bf16");
			c->run = run;
			c->nccl_level = -1;
			c->algo = ALGO_AUTO;
			c->input = 1024;
			c->output = 1024;
			if ((rc = scn_load(scenario, &c->scn, err)) < 0)
				return rc;
			if (gpus) {
				c->ngpus = scn_gpu_list_parse(gpus, c->gpus, c->scn->ngpus);
				if (c->ngpus < 1)
					return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
							     "--gpus '%s': give GPUs of %s (0-%d)", gpus,
							     scenario, c->scn->ngpus - 1);
			} else {
				c->ngpus = c->scn->ngpus;
				for (k = 0; k < c->ngpus; k++)
					c->gpus[k] = k;
			}
			if (run == 1)
				nruns = file_runs(c);
			/* One case per run: "file" alone, "file#2" for a file's
			 * second run. */
			if (nruns > 1)
				snprintf(c->name, sizeof(c->name), "%.52s#%d", base ? base + 1 : files[i], run);
			else
				snprintf(c->name, sizeof(c->name), "%s", base ? base + 1 : files[i]);
			c->first_point = v->npoints;
			if ((rc = val_case_data(v, v->ncases - 1, err)) == 0) {
				used++;
				continue;
			}
			/* A run that cannot be used is skipped and named when the
			 * file has others; the file's only run is an error. */
			if (nruns == 1 || v->oom)
				return rc;
			if (!first.code)
				first = *err;
			if (v->nskipped < VAL_MAX_SKIPPED)
				snprintf(v->skipped[v->nskipped], sizeof(v->skipped[0]), "%.80s run %d: %.150s",
					 files[i], run, err->msg);
			v->nskipped++;
			drop_case(v, c);
			v->ncases--;
			plumb_err_clear(err);
		}
		if (!used) {
			*err = first;
			return -plumb_err_status(err);
		}
	}
	return nccl_duplicates(v, first_case, err);
}

int val_from_files(const char *scenario, const char *const *files, int nfiles,
		   const char *gpus, const char *model, const char *weights, const char *kv,
		   struct val_set **out, struct plumb_err *err)
{
	struct val_set *v;
	int rc;

	*out = NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if (!(v->file = plumb_keep_path(scenario))) {
		val_free(v);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if ((rc = val_add_files(v, scenario, files, nfiles, gpus, model, weights, kv, err)) < 0) {
		val_free(v);
		return rc;
	}
	*out = v;
	return 0;
}
