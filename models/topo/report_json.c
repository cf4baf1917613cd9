/*
 * report_json.c - the topology views as one JSON document (rep_json,
 * report.h): GPUs, hosts, network, the topology, P2P and NCCL transport
 * matrices, IOMMU groups and the BAR check.
 */
#include "report.h"

#include "jout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *json_bars(const struct bar_result *r)
{
	json_t *o = json_object(), *log = json_array();
	int i, rc = 0;

	for (i = 0; i < r->nmsg; i++)
		rc |= jout_push(log, jout_str(r->msg[i]));
	rc |= jout_set(o, "gpus", json_integer(r->ngpus));
	rc |= jout_set(o, "gpus_ok", json_integer(r->ok_gpus));
	rc |= jout_set(o, "need64_bytes", json_integer((json_int_t)r->need64));
	rc |= jout_set(o, "room64_bytes", json_integer((json_int_t)r->avail64));
	rc |= jout_set(o, "kernel_log", log);
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/*
 * The document is streamed: its matrices at 1,024 GPUs (2,048 endpoints
 * with the NICs) hold millions of cells and the P2P reasons half a million
 * entries, which as jansson values cost gigabytes and most of the run
 * time. The big members are written by hand in jout.h's layout (depth 3:
 * one matrix row, one reason per line), everything else through jout_put,
 * so the bytes are those jout_write gives for the whole document.
 */
#define LEVELS 3

/*
 * A matrix's cells (PIX, NV18, OK, P2P, ...) have few distinct values, each
 * named by a small key (the class, with the NVLink count for NV; the P2P
 * status; the transport) and encoded once, on the first cell that has it.
 */
#define CELL_KEYS (TC_SYS + 1 + 256)

struct cell_kind {
	int (*key)(const struct topo_view *v, int i, int j);
	const char *(*name)(const struct topo_view *v, int i, int j, char *buf);
	char *enc[CELL_KEYS];
	size_t len[CELL_KEYS];
};

/* The encoded cell (i, j) and its length; NULL when out of memory. */
static const char *cell(struct cell_kind *c, const struct topo_view *v, int i, int j,
			size_t *len)
{
	int k = c->key(v, i, j);
	char buf[16];

	if (!c->enc[k]) {
		if (!(c->enc[k] = jout_encode(c->name(v, i, j, buf))))
			return NULL;
		c->len[k] = strlen(c->enc[k]);
	}
	*len = c->len[k];
	return c->enc[k];
}

static void cell_release(struct cell_kind *c)
{
	int k;

	for (k = 0; k < CELL_KEYS; k++) {
		free(c->enc[k]);
		c->enc[k] = NULL;
	}
}

static int class_key(const struct topo_view *v, int i, int j)
{
	return v->cls[i][j] == TC_NV ? TC_SYS + 1 + v->nvl[i][j] : v->cls[i][j];
}

static const char *class_name(const struct topo_view *v, int i, int j, char *buf)
{
	return topo_class_str(v, i, j, buf);
}

static int p2p_key(const struct topo_view *v, int i, int j)
{
	return v->p2p[i][j];
}

static const char *p2p_name(const struct topo_view *v, int i, int j, char *buf)
{
	(void)buf;
	return topo_p2p_str((enum topo_p2p)v->p2p[i][j]);
}

static int xport_key(const struct topo_view *v, int i, int j)
{
	return v->xport[i][j];
}

static const char *xport_name(const struct topo_view *v, int i, int j, char *buf)
{
	(void)buf;
	return topo_xport_str((enum topo_xport)v->xport[i][j]);
}

/* An n x n matrix as the value at `depth`: one row per line, each built in
 * memory and written whole; "[]" when n is 0 (as jout_put writes an empty
 * array). */
static int put_matrix(FILE *f, const struct topo_view *v, int n, int depth,
		      struct cell_kind *c)
{
	char *row = NULL;
	size_t cap = 0;
	int i, j;

	if (n == 0) {
		fputs("[]", f);
		return 0;
	}
	fputs("[\n", f);
	for (i = 0; i < n; i++) {
		size_t at = 0;
		for (j = 0; j < n; j++) {
			size_t len;
			const char *e = cell(c, v, i, j, &len);
			if (!e)
				goto oom;
			if (at + len + 4 > cap) {
				size_t ncap = 2 * (at + len + 4) + 256;
				char *nr = realloc(row, ncap);
				if (!nr)
					goto oom;
				row = nr;
				cap = ncap;
			}
			row[at++] = j ? ',' : '[';
			if (j)
				row[at++] = ' ';
			memcpy(row + at, e, len);
			at += len;
		}
		row[at++] = ']';
		jout_indent(f, depth + 1);
		fwrite(row, 1, at, f);
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	free(row);
	jout_indent(f, depth);
	fputc(']', f);
	return 0;
oom:
	free(row);
	return -1;
}

/* A member's key at depth 1, after the previous member's ",\n". */
static void member(FILE *f, const char *key, int *n)
{
	fputs((*n)++ ? ",\n" : "{\n", f);
	jout_indent(f, 1);
	fprintf(f, "\"%s\": ", key);
}

/* Writes v (its reference taken) at depth; -1 when v is NULL or out of
 * memory. */
static int put_new(FILE *f, json_t *v, int depth)
{
	int rc = jout_put(f, v, depth, LEVELS);

	json_decref(v);
	return rc;
}

/* The matrix object of depth 1 with members before "matrix" given as a
 * jansson object o (its reference taken): the topology's {labels, rows}
 * and the transports' {p2p_level, default, matrix}. Inline (as jout_put
 * writes an object that holds no non-empty container) when n is 0. */
static int put_matrix_object(FILE *f, json_t *o, const char *key, const struct topo_view *v,
			     int n, struct cell_kind *c)
{
	const char *k;
	json_t *m;

	if (!o)
		return -1;
	if (n == 0) {
		if (jout_set(o, key, json_array())) {
			json_decref(o);
			return -1;
		}
		return put_new(f, o, 1);
	}
	fputs("{\n", f);
	json_object_foreach(o, k, m) {
		jout_indent(f, 2);
		fprintf(f, "\"%s\": ", k);
		if (jout_put(f, m, 2, LEVELS) < 0) {
			json_decref(o);
			return -1;
		}
		fputs(",\n", f);
	}
	json_decref(o);
	jout_indent(f, 2);
	fprintf(f, "\"%s\": ", key);
	if (put_matrix(f, v, n, 2, c) < 0)
		return -1;
	fputc('\n', f);
	jout_indent(f, 1);
	fputc('}', f);
	return 0;
}

/* A non-negative int as jansson writes it (half a million of them). */
static void put_int(FILE *f, int x)
{
	char d[12];
	int k = sizeof(d);

	d[--k] = '\0';
	do {
		d[--k] = (char)('0' + x % 10);
		x /= 10;
	} while (x > 0 && k > 0);
	fputs(d + k, f);
}

/* The reasons of every pair that is not plain P2P OK: one per line. hostdef
 * is the host view with default options, for a guest's reasons (built on
 * the first one that needs it). */
static int put_reasons(FILE *f, const struct topo_view *v, struct cell_kind *c)
{
	struct topo_view *hostdef = NULL;
	char why[512], last[512] = "";
	char *enc = NULL;
	int i, j, n = 0, rc = 0;

	for (i = 0; i < v->ngpu && !rc; i++)
		for (j = i + 1; j < v->ngpu; j++) {
			const char *st;
			size_t stlen;
			if (v->p2p[i][j] == P2P_OK && v->acs_via[i][j] < 0 && !v->acs_dt[i][j])
				continue;
			topo_p2p_reason_with(v, &hostdef, i, j, why, sizeof(why));
			if (!enc || strcmp(why, last)) {
				free(enc);
				snprintf(last, sizeof(last), "%s", why);
				enc = jout_encode(why);
			}
			if (!enc || !(st = cell(c, v, i, j, &stlen))) {
				rc = -1;
				break;
			}
			fputs(n++ ? ",\n" : "[\n", f);
			jout_indent(f, 2);
			fputs("{\"a\": ", f);
			put_int(f, i);
			fputs(", \"b\": ", f);
			put_int(f, j);
			fputs(", \"status\": ", f);
			fputs(st, f);
			fputs(", \"reason\": ", f);
			fputs(enc, f);
			fputc('}', f);
		}
	free(enc);
	topo_free(hostdef);
	if (rc)
		return rc;
	if (!n) {
		fputs("[]", f);
		return 0;
	}
	fputc('\n', f);
	jout_indent(f, 1);
	fputc(']', f);
	return 0;
}

int rep_json(FILE *f, const struct topo_view *v, const struct topo_view *host,
	     const struct bar_result *without, const struct bar_result *with,
	     struct plumb_err *err)
{
	const struct scenario *s = v->scn;
	json_t *a, *o;
	struct cell_kind cls = { class_key, class_name, { 0 }, { 0 } };
	struct cell_kind p2p = { p2p_key, p2p_name, { 0 }, { 0 } };
	struct cell_kind xport = { xport_key, xport_name, { 0 }, { 0 } };
	int i, j, rc = 0, n = 0;

	member(f, "scenario", &n);
	rc |= put_new(f, jout_str(s->name), 1);
	member(f, "view", &n);
	rc |= put_new(f, jout_str(v->side == TOPO_HOST ? "host" : "guest"), 1);
	a = json_array();
	for (i = 0; i < v->ngpu && !rc; i++) {
		const struct scn_node *d = &s->nodes[v->ep[i].host_node];
		o = json_object();
		rc |= jout_set(o, "index", json_integer(i));
		rc |= jout_set(o, "id", jout_str(d->id));
		rc |= jout_set(o, "model", jout_str(d->model));
		rc |= jout_set(o, "bdf", v->ep[i].bdf[0] ? jout_str(v->ep[i].bdf) : json_null());
		rc |= jout_set(o, "numa", v->ep[i].numa >= 0 ? json_integer(v->ep[i].numa)
							    : json_null());
		rc |= jout_set(o, "host", jout_str(s->nhosts > 0 ? s->hosts[d->host].name : "host0"));
		rc |= jout_push(a, o);
	}
	member(f, "gpus", &n);
	rc |= put_new(f, a, 1);
	a = json_array();
	for (i = 0; i < s->nhosts && !rc; i++) {
		const struct scn_box *b = &s->hosts[i];
		json_t *g = json_array();
		o = json_object();
		for (j = 0; j < b->ngpus; j++)
			rc |= jout_push(g, json_integer(b->first_gpu + j));
		rc |= jout_set(o, "name", jout_str(b->name));
		rc |= jout_set(o, "gpus", g);
		rc |= jout_set(o, "nics", json_integer(b->nnics));
		rc |= jout_set(o, "sockets", json_integer(b->nsockets));
		rc |= jout_set(o, "box", b->source && b->source[0] ? jout_str(b->source) : json_null());
		rc |= jout_push(a, o);
	}
	member(f, "hosts", &n);
	rc |= put_new(f, a, 1);
	if (s->net.given) {
		o = json_object();
		rc |= jout_set(o, "kind", jout_str(scn_net_kind_name(s->net.kind)));
		rc |= jout_set(o, "port_gbps", json_real(s->net.port_gbps));
		rc |= jout_set(o, "switch", s->net.switch_model[0] ? jout_str(s->net.switch_model)
								  : json_null());
		rc |= jout_set(o, "switch_ports", s->net.switch_ports ? json_integer(s->net.switch_ports)
								      : json_null());
	} else {
		o = json_null();
	}
	member(f, "network", &n);
	rc |= put_new(f, o, 1);
	if (rc)
		goto oom;

	o = json_object();
	a = json_array();
	for (i = 0; i < v->nep; i++)
		rc |= jout_push(a, jout_str(v->ep[i].label));
	rc |= jout_set(o, "labels", a);
	if (rc) {
		json_decref(o);
		goto oom;
	}
	member(f, "topo_matrix", &n);
	if (put_matrix_object(f, o, "rows", v, v->nep, &cls) < 0)
		goto oom;
	member(f, "p2p_matrix", &n);
	if (put_matrix(f, v, v->ngpu, 1, &p2p) < 0)
		goto oom;
	member(f, "p2p_reasons", &n);
	if (put_reasons(f, v, &p2p) < 0)
		goto oom;

	a = json_array();
	for (i = 0; i < host->ngroups; i++) {
		json_t *g = json_array();
		for (j = 0; j < host->nep; j++)
			if (host->group[j] == i)
				rc |= jout_push(g, jout_str(host->ep[j].label));
		rc |= jout_push(a, g);
	}
	member(f, "iommu_groups", &n);
	if ((rc |= put_new(f, a, 1)))
		goto oom;

	o = json_object();
	rc |= jout_set(o, "p2p_level", jout_str(topo_nccl_path_str(v->nccl_level)));
	rc |= jout_set(o, "default", json_boolean(v->nccl_level_default));
	if (rc) {
		json_decref(o);
		goto oom;
	}
	member(f, "nccl_transport", &n);
	if (put_matrix_object(f, o, "matrix", v, v->ngpu, &xport) < 0)
		goto oom;

	if (without && with) {
		o = json_object();
		rc |= jout_set(o, "without_realloc", json_bars(without));
		rc |= jout_set(o, "with_realloc", json_bars(with));
		rc |= jout_set(o, "guest_has_realloc", json_boolean(s->vm.pci_realloc));
	} else {
		o = json_null();
	}
	member(f, "bar_check", &n);
	if ((rc |= put_new(f, o, 1)))
		goto oom;
	fputs("\n}\n", f);
	cell_release(&cls);
	cell_release(&p2p);
	cell_release(&xport);
	return 0;
oom:
	cell_release(&cls);
	cell_release(&p2p);
	cell_release(&xport);
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory writing JSON");
}
