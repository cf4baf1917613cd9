/*
 * report_json.c - the topology views as one JSON document (rep_json,
 * report.h): GPUs, hosts, network, the topology, P2P and NCCL transport
 * matrices, IOMMU groups and the BAR check.
 */
#include "report.h"

#include "jout.h"

#include <stdio.h>
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
 * The few distinct cells of a matrix (PIX, NV18, OK, P2P, ...) as one JSON
 * string each, shared by every cell that holds it: a matrix of 2,048
 * endpoints has 4 million cells, and a string value per cell cost about
 * 1.3 GB. Holds one reference to each string until json_cells_release.
 */
#define JSON_CELLS 64

struct json_cells {
	int n;
	char name[JSON_CELLS][16];
	json_t *v[JSON_CELLS];
};

/* A new reference to the string s (shared when seen before), or NULL when
 * out of memory. O(distinct strings). */
static json_t *json_cell(struct json_cells *c, const char *s)
{
	int i;

	if (strlen(s) >= sizeof(c->name[0]))
		return jout_str(s);
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], s))
			return json_incref(c->v[i]);
	if (c->n == JSON_CELLS || !(c->v[c->n] = jout_str(s)))
		return jout_str(s);
	snprintf(c->name[c->n], sizeof(c->name[0]), "%s", s);
	return json_incref(c->v[c->n++]);
}

static void json_cells_release(struct json_cells *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		json_decref(c->v[i]);
	c->n = 0;
}

/* A GPU x GPU matrix of names, one row per GPU. */
static json_t *json_matrix(const struct topo_view *v, struct json_cells *c,
			   const char *(*name)(const struct topo_view *v, int i, int j))
{
	json_t *rows = json_array();
	int i, j, rc = 0;

	for (i = 0; i < v->ngpu; i++) {
		json_t *row = json_array();
		for (j = 0; j < v->ngpu; j++)
			rc |= jout_push(row, json_cell(c, name(v, i, j)));
		rc |= jout_push(rows, row);
	}
	if (rc) {
		json_decref(rows);
		return NULL;
	}
	return rows;
}

static const char *p2p_name(const struct topo_view *v, int i, int j)
{
	return topo_p2p_str((enum topo_p2p)v->p2p[i][j]);
}

static const char *xport_name(const struct topo_view *v, int i, int j)
{
	return topo_xport_str((enum topo_xport)v->xport[i][j]);
}

int rep_json(FILE *f, const struct topo_view *v, const struct topo_view *host,
	     const struct bar_result *without, const struct bar_result *with,
	     struct plumb_err *err)
{
	const struct scenario *s = v->scn;
	json_t *doc = json_object(), *a, *o;
	struct json_cells cells = { 0 };
	int i, j, rc = 0;
	char buf[16], why[512];

	rc |= jout_set(doc, "scenario", jout_str(s->name));
	rc |= jout_set(doc, "view", jout_str(v->side == TOPO_HOST ? "host" : "guest"));
	a = json_array();
	for (i = 0; i < v->ngpu; i++) {
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
	rc |= jout_set(doc, "gpus", a);
	a = json_array();
	for (i = 0; i < s->nhosts; i++) {
		const struct scn_box *b = &s->hosts[i];
		json_t *g = json_array();
		o = json_object();
		for (j = 0; j < b->ngpus; j++)
			rc |= jout_push(g, json_integer(b->first_gpu + j));
		rc |= jout_set(o, "name", jout_str(b->name));
		rc |= jout_set(o, "gpus", g);
		rc |= jout_set(o, "nics", json_integer(b->nnics));
		rc |= jout_set(o, "sockets", json_integer(b->nsockets));
		rc |= jout_set(o, "box", b->source[0] ? jout_str(b->source) : json_null());
		rc |= jout_push(a, o);
	}
	rc |= jout_set(doc, "hosts", a);
	if (s->net.given) {
		o = json_object();
		rc |= jout_set(o, "kind", jout_str(scn_net_kind_name(s->net.kind)));
		rc |= jout_set(o, "port_gbps", json_real(s->net.port_gbps));
		rc |= jout_set(o, "switch", s->net.switch_model[0] ? jout_str(s->net.switch_model)
								  : json_null());
		rc |= jout_set(o, "switch_ports", s->net.switch_ports ? json_integer(s->net.switch_ports)
								      : json_null());
		rc |= jout_set(doc, "network", o);
	} else {
		rc |= jout_set(doc, "network", json_null());
	}

	o = json_object();
	a = json_array();
	for (i = 0; i < v->nep; i++)
		rc |= jout_push(a, jout_str(v->ep[i].label));
	rc |= jout_set(o, "labels", a);
	a = json_array();
	for (i = 0; i < v->nep; i++) {
		json_t *row = json_array();
		for (j = 0; j < v->nep; j++)
			rc |= jout_push(row, json_cell(&cells, topo_class_str(v, i, j, buf)));
		rc |= jout_push(a, row);
	}
	rc |= jout_set(o, "rows", a);
	rc |= jout_set(doc, "topo_matrix", o);
	rc |= jout_set(doc, "p2p_matrix", json_matrix(v, &cells, p2p_name));

	a = json_array();
	for (i = 0; i < v->ngpu; i++)
		for (j = i + 1; j < v->ngpu; j++) {
			if (v->p2p[i][j] == P2P_OK && v->acs_via[i][j] < 0 && !v->acs_dt[i][j])
				continue;
			topo_p2p_reason(v, i, j, why, sizeof(why));
			o = json_object();
			rc |= jout_set(o, "a", json_integer(i));
			rc |= jout_set(o, "b", json_integer(j));
			rc |= jout_set(o, "status", jout_str(p2p_name(v, i, j)));
			rc |= jout_set(o, "reason", jout_str(why));
			rc |= jout_push(a, o);
		}
	rc |= jout_set(doc, "p2p_reasons", a);

	a = json_array();
	for (i = 0; i < host->ngroups; i++) {
		json_t *g = json_array();
		for (j = 0; j < host->nep; j++)
			if (host->group[j] == i)
				rc |= jout_push(g, jout_str(host->ep[j].label));
		rc |= jout_push(a, g);
	}
	rc |= jout_set(doc, "iommu_groups", a);

	o = json_object();
	rc |= jout_set(o, "p2p_level", jout_str(topo_nccl_path_str(v->nccl_level)));
	rc |= jout_set(o, "default", json_boolean(v->nccl_level_default));
	rc |= jout_set(o, "matrix", json_matrix(v, &cells, xport_name));
	rc |= jout_set(doc, "nccl_transport", o);

	if (without && with) {
		o = json_object();
		rc |= jout_set(o, "without_realloc", json_bars(without));
		rc |= jout_set(o, "with_realloc", json_bars(with));
		rc |= jout_set(o, "guest_has_realloc", json_boolean(s->vm.pci_realloc));
		rc |= jout_set(doc, "bar_check", o);
	} else {
		rc |= jout_set(doc, "bar_check", json_null());
	}
	json_cells_release(&cells);
	if (rc) {
		json_decref(doc);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	rc = jout_write(f, doc, 3, err);
	json_decref(doc);
	return rc;
}

