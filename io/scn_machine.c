/*
 * scn_machine.c - one machine of a scenario: its `host`, its `pcie` tree
 * (entries in file order, each parent declared before its children) and its
 * `nvlink` bonds, into struct scenario. A scenario's top level, a `hosts`
 * entry and a box file all describe a machine this way.
 */
#include "scn_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ytree.h"

static const char *const host_keys[] = {
	"board", "cpu_vendor", "cpu_model", "cpu_boost_ghz", "sockets", "numa_per_socket",
	"cores_per_socket", "threads_per_core", "socket_cpus", "inter_socket",
	"p2p_across_sockets", "p2p_driver", NULL
};
static const char *const driver_names[] = { "stock", "patched", NULL };
static const char *const inter_keys[] = { "kind", "bandwidth_gbs", "latency_ns", NULL };
static const char *const node_keys[] = {
	"id", "kind", "parent", "socket", "numa", "gen", "width", "acs",
	"acs_dt", "ats", "chip", "model", "bdf", "clique", NULL
};
static const char *const nvlink_keys[] = { "nvswitch", "links_per_gpu", "gpus", "pairs", NULL };
static const char *const pair_keys[] = { "gpus", "links", NULL };
static const char *const xgmi_keys[] = { "mesh", "gpus", "links_per_pair", "pairs", NULL };
static const char *const kind_names[] = {
	"root_complex", "root_port", "switch", "gpu", "nic", NULL
};
static const char *const vendor_names[] = { "amd", "intel", "arm", "other", NULL };

const char *scn_kind_name(enum scn_kind k)
{
	return kind_names[k];
}

static int find_node(const struct scenario *s, const char *id)
{
	int i;
	for (i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i].id, id) == 0)
			return i;
	return -1;
}


static int parse_host(const struct ytree *t, const struct ynode *h,
		      struct scenario *s, struct plumb_err *err)
{
	struct scn_host *H = &s->host;
	struct ynode *v;
	int rc, e;
	size_t i;

	if ((rc = yexpect(t, h, Y_MAP, "host", err)) < 0 ||
	    (rc = ymap_check_keys(t, h, "host", host_keys, err)) < 0)
		return rc;
	e = H->cpu_vendor;
	if ((rc = scn_opt_enum(t, h, "cpu_vendor", "cpu_vendor", vendor_names, &e, err)) < 0)
		return rc;
	H->cpu_vendor = (enum scn_vendor)e;
	if ((rc = scn_opt_str(t, h, "board", H->board, sizeof(H->board), err)) < 0 ||
	    (rc = scn_opt_str(t, h, "cpu_model", H->cpu_model, sizeof(H->cpu_model), err)) < 0 ||
	    (rc = scn_opt_int(t, h, "sockets", 1, SCN_MAX_SOCKETS, &H->sockets, err)) < 0 ||
	    (rc = scn_opt_int(t, h, "numa_per_socket", 1, 8, &H->numa_per_socket, err)) < 0 ||
	    (rc = scn_opt_int(t, h, "cores_per_socket", 1, 1024, &H->cores_per_socket, err)) < 0 ||
	    (rc = scn_opt_int(t, h, "threads_per_core", 1, 8, &H->threads_per_core, err)) < 0)
		return rc;
	if ((v = ymap_get(h, "cpu_boost_ghz")) &&
	    (rc = yget_double(t, v, "cpu_boost_ghz", 0.5, 10.0, &H->cpu_boost_ghz, err)) < 0)
		return rc;
	if (H->sockets * H->numa_per_socket > SCN_MAX_SOCKETS)
		return yerr(t, h, PLUMB_EINPUT, err,
			    "sockets x numa_per_socket must be at most %d", SCN_MAX_SOCKETS);
	if ((v = ymap_get(h, "socket_cpus"))) {
		if ((rc = yexpect(t, v, Y_SEQ, "socket_cpus", err)) < 0)
			return rc;
		if (v->n != (size_t)(H->sockets * H->numa_per_socket))
			return yerr(t, v, PLUMB_EINPUT, err,
				    "socket_cpus has %zu entr%s but the host has %d NUMA node%s (sockets x numa_per_socket)",
				    v->n, v->n == 1 ? "y" : "ies", H->sockets * H->numa_per_socket,
				    H->sockets * H->numa_per_socket == 1 ? "" : "s");
		if ((rc = scn_room_numa(s, (int)v->n, err)) < 0)
			return rc;
		for (i = 0; i < v->n; i++) {
			if ((rc = yget_str(t, v->vals[i], "socket_cpus entry",
					   s->numa_cpus[i], sizeof(s->numa_cpus[i]), err)) < 0)
				return rc;
			if (!scn_cpulist_ok(s->numa_cpus[i]))
				return yerr(t, v->vals[i], PLUMB_EINPUT, err,
					    "socket_cpus entry \"%s\" is not a CPU list like \"0-15,32-47\" "
					    "(ascending ranges of CPUs 0-%d)", s->numa_cpus[i], SCN_MAX_CPU);
		}
	}
	if ((v = ymap_get(h, "inter_socket"))) {
		struct ynode *w;
		if ((rc = yexpect(t, v, Y_MAP, "inter_socket", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "inter_socket", inter_keys, err)) < 0 ||
		    (rc = scn_opt_str(t, v, "kind", H->inter_socket_kind,
				  sizeof(H->inter_socket_kind), err)) < 0)
			return rc;
		if ((w = ymap_get(v, "bandwidth_gbs")) &&
		    (rc = yget_double(t, w, "bandwidth_gbs", 0.001, 1e5,
				      &H->inter_socket_gbs, err)) < 0)
			return rc;
		if ((w = ymap_get(v, "latency_ns")) &&
		    (rc = yget_double(t, w, "latency_ns", 0, 1e6,
				      &H->inter_socket_latency_ns, err)) < 0)
			return rc;
	}
	/*
	 * Default: PCIe P2P across sockets is allowed on AMD (Turin measured
	 * 0.44 us cross-NUMA P2P, realdata/gpu-specs.md 1d) and refused on
	 * Intel (UPI/QPI peer traffic) - plumb's documented assumption; arm
	 * and other (a vendor an import could not see) are not refused on a
	 * guess (docs/scenarios.md, docs/model-topo.md).
	 */
	H->p2p_across_sockets = H->cpu_vendor != SCN_INTEL;
	if ((v = ymap_get(h, "p2p_across_sockets")) &&
	    (rc = yget_bool(t, v, "p2p_across_sockets", &H->p2p_across_sockets, err)) < 0)
		return rc;
	e = 0;
	if ((rc = scn_opt_enum(t, h, "p2p_driver", "p2p_driver", driver_names, &e, err)) < 0)
		return rc;
	H->p2p_patched = e;
	return 0;
}

/* Line of a later entry of list (after index `after`) whose id is `id`, or 0. */
static int declared_later(const struct ynode *list, size_t after, const char *id)
{
	size_t j;
	for (j = after + 1; j < list->n; j++) {
		const struct ynode *e = list->vals[j], *v = ymap_get(e, "id");
		if (v && v->type == Y_SCALAR && strcmp(v->str, id) == 0)
			return e->line;
	}
	return 0;
}

static int parse_node(const struct ytree *t, const struct ynode *list, size_t idx,
		      struct scenario *s, struct plumb_err *err)
{
	const struct ynode *n = list->vals[idx];
	struct scn_node *d;
	struct ynode *v;
	char buf[64];
	int rc, e, p;

	if ((rc = yexpect(t, n, Y_MAP, "pcie entry", err)) < 0 ||
	    (rc = ymap_check_keys(t, n, "pcie entry", node_keys, err)) < 0)
		return rc;
	if (s->nnodes >= SCN_MAX_NODES)
		return yerr(t, n, PLUMB_EINPUT, err, "more than %d pcie entries",
			    SCN_MAX_NODES);
	if ((rc = scn_room_nodes(s, s->nnodes + 1, err)) < 0)
		return rc;
	d = &s->nodes[s->nnodes];
	memset(d, 0, sizeof(*d));
	d->line = n->line;
	d->col = n->col;
	d->parent = -1;
	d->gpu_model = -1;
	d->gpu_index = -1;
	d->clique = 0;
	d->acs = 1;
	if (!(v = ymap_get(n, "id")))
		return yerr(t, n, PLUMB_EINPUT, err, "pcie entry needs 'id'");
	if ((rc = yget_str(t, v, "id", d->id, sizeof(d->id), err)) < 0 ||
	    (rc = scn_check_id(t, v, d->id, err)) < 0)
		return rc;
	if (find_node(s, d->id) >= 0)
		return yerr(t, v, PLUMB_EINPUT, err, "duplicate id '%s' (first at line %d)",
			    d->id, s->nodes[find_node(s, d->id)].line);
	if (!(v = ymap_get(n, "kind")))
		return yerr(t, n, PLUMB_EINPUT, err, "pcie entry '%s' needs 'kind'", d->id);
	if ((rc = yget_enum(t, v, "kind", kind_names, &e, err)) < 0)
		return rc;
	d->kind = (enum scn_kind)e;

	v = ymap_get(n, "parent");
	if (d->kind == SCN_ROOT_COMPLEX) {
		if (v)
			return yerr(t, v, PLUMB_EINPUT, err,
				    "a root_complex has no parent; give its 'socket' instead");
		if (!(v = ymap_get(n, "socket")))
			return yerr(t, n, PLUMB_EINPUT, err,
				    "root_complex '%s' needs 'socket'", d->id);
		if ((rc = scn_opt_int(t, n, "socket", 0, SCN_MAX_SOCKETS - 1, &d->socket, err)) < 0)
			return rc;
		if (d->socket >= s->host.sockets)
			return yerr(t, v, PLUMB_EINPUT, err,
				    "socket %d does not exist (host has %d socket%s)",
				    d->socket, s->host.sockets, s->host.sockets == 1 ? "" : "s");
		d->numa = d->socket * s->host.numa_per_socket;
		if ((v = ymap_get(n, "numa"))) {
			if ((rc = scn_opt_int(t, n, "numa", 0, SCN_MAX_SOCKETS - 1, &d->numa, err)) < 0)
				return rc;
			if (d->numa / s->host.numa_per_socket != d->socket)
				return yerr(t, v, PLUMB_EINPUT, err,
					    "NUMA node %d is not on socket %d (numa_per_socket %d)",
					    d->numa, d->socket, s->host.numa_per_socket);
		}
	} else {
		if (!v)
			return yerr(t, n, PLUMB_EINPUT, err, "%s '%s' needs 'parent'",
				    kind_names[d->kind], d->id);
		if ((rc = yget_str(t, v, "parent", buf, sizeof(buf), err)) < 0)
			return rc;
		p = find_node(s, buf);
		if (p < 0 && declared_later(list, idx, buf))
			return yerr(t, v, PLUMB_EINPUT, err,
				    "parent '%s' is declared below this entry (line %d); list a parent before its children",
				    buf, declared_later(list, idx, buf));
		if (p < 0) {
			int j;
			for (j = 0; j < s->nnodes; j++)
				if (str_distance(buf, s->nodes[j].id) <= 1)
					return yerr(t, v, PLUMB_EINPUT, err,
						    "parent '%s' is not defined above (did you mean '%s'?)",
						    buf, s->nodes[j].id);
			return yerr(t, v, PLUMB_EINPUT, err,
				    "parent '%s' is not defined above this entry", buf);
		}
		if (ymap_get(n, "socket"))
			return yerr(t, ymap_get(n, "socket"), PLUMB_EINPUT, err,
				    "only a root_complex takes 'socket'");
		switch (d->kind) {
		case SCN_ROOT_PORT:
			if (s->nodes[p].kind != SCN_ROOT_COMPLEX)
				return yerr(t, v, PLUMB_EINPUT, err,
					    "a root_port's parent must be a root_complex, '%s' is a %s",
					    buf, kind_names[s->nodes[p].kind]);
			break;
		case SCN_SWITCH:
		case SCN_GPU:
		case SCN_NIC:
			if (s->nodes[p].kind != SCN_ROOT_PORT && s->nodes[p].kind != SCN_SWITCH)
				return yerr(t, v, PLUMB_EINPUT, err,
					    "a %s's parent must be a root_port or a switch, '%s' is a %s",
					    kind_names[d->kind], buf, kind_names[s->nodes[p].kind]);
			if (s->nodes[p].kind != SCN_SWITCH) {
				int j;
				for (j = 0; j < s->nnodes; j++)
					if (s->nodes[j].parent == p)
						return yerr(t, v, PLUMB_EINPUT, err,
							    "root_port '%s' already holds '%s'; a root port has one link (put a switch between)",
							    buf, s->nodes[j].id);
			}
			break;
		case SCN_ROOT_COMPLEX:
			break;
		}
		if (s->nodes[p].kind == SCN_GPU || s->nodes[p].kind == SCN_NIC)
			return yerr(t, v, PLUMB_EINPUT, err, "'%s' is an endpoint and cannot be a parent", buf);
		if (d->kind != SCN_ROOT_PORT) {
			int j, depth = d->kind == SCN_SWITCH;
			for (j = p; j >= 0; j = s->nodes[j].parent)
				depth += s->nodes[j].kind == SCN_SWITCH;
			if (depth > SCN_MAX_SWITCH_DEPTH)
				return yerr(t, v, PLUMB_EINPUT, err,
					    "'%s' is switch %d stacked under one root port; at most %d may stack between a root port and a device",
					    d->id, depth, SCN_MAX_SWITCH_DEPTH);
		}
		d->parent = p;
		d->socket = s->nodes[p].socket;
		d->numa = s->nodes[p].numa;
		if (ymap_get(n, "numa"))
			return yerr(t, ymap_get(n, "numa"), PLUMB_EINPUT, err,
				    "only a root_complex takes 'numa'");
	}

	if (d->kind != SCN_ROOT_COMPLEX) {
		struct ynode *w;
		long l;
		d->gen = 0;
		d->width = 0;
		if ((w = ymap_get(n, "gen"))) {
			if ((rc = yget_int(t, w, "gen", 1, 6, &l, err)) < 0)
				return rc;
			d->gen = (int)l;
		}
		if ((w = ymap_get(n, "width"))) {
			if ((rc = yget_int(t, w, "width", 1, 32, &l, err)) < 0)
				return rc;
			if (l != 1 && l != 2 && l != 4 && l != 8 && l != 16 && l != 32)
				return yerr(t, w, PLUMB_EINPUT, err,
					    "'width' must be 1, 2, 4, 8, 16 or 32, got %ld", l);
			d->width = (int)l;
		}
	} else if (ymap_get(n, "gen") || ymap_get(n, "width")) {
		struct ynode *w = ymap_get(n, "gen") ? ymap_get(n, "gen") : ymap_get(n, "width");
		return yerr(t, w, PLUMB_EINPUT, err,
			    "a root_complex has no link of its own; put gen/width on its root ports");
	}
	if ((v = ymap_get(n, "acs"))) {
		if (d->kind != SCN_ROOT_PORT && d->kind != SCN_SWITCH)
			return yerr(t, v, PLUMB_EINPUT, err,
				    "'acs' belongs on a root_port or switch, not a %s",
				    kind_names[d->kind]);
		if ((rc = yget_bool(t, v, "acs", &d->acs, err)) < 0)
			return rc;
	}
	if ((v = ymap_get(n, "acs_dt"))) {
		if (d->kind != SCN_SWITCH)
			return yerr(t, v, PLUMB_EINPUT, err,
				    "'acs_dt' belongs on a switch, not a %s", kind_names[d->kind]);
		if ((rc = yget_bool(t, v, "acs_dt", &d->acs_dt, err)) < 0)
			return rc;
	}
	if ((v = ymap_get(n, "chip"))) {
		if (d->kind != SCN_SWITCH)
			return yerr(t, v, PLUMB_EINPUT, err, "only a switch takes 'chip'");
		if ((rc = yget_str(t, v, "chip", d->chip, sizeof(d->chip), err)) < 0)
			return rc;
	}
	if ((v = ymap_get(n, "ats"))) {
		if (d->kind != SCN_GPU)
			return yerr(t, v, PLUMB_EINPUT, err, "only a gpu takes 'ats'");
		if ((rc = yget_bool(t, v, "ats", &d->ats, err)) < 0)
			return rc;
	}
	if ((rc = scn_opt_str(t, n, "model", d->model, sizeof(d->model), err)) < 0 ||
	    (rc = scn_opt_str(t, n, "bdf", d->bdf, sizeof(d->bdf), err)) < 0)
		return rc;
	if ((v = ymap_get(n, "clique"))) {
		if (d->kind != SCN_GPU)
			return yerr(t, v, PLUMB_EINPUT, err, "only a gpu takes 'clique'");
		if ((rc = scn_opt_int(t, n, "clique", 0, 1000, &d->clique, err)) < 0)
			return rc;
	}
	if (d->kind == SCN_GPU) {
		if (!d->model[0])
			return yerr(t, n, PLUMB_EINPUT, err,
				    "gpu '%s' needs 'model' (a catalog id such as rtx-pro-6000)", d->id);
		d->gpu_model = scn_catalog_find(s->catalog, d->model);
		if (d->gpu_model < 0) {
			const char *best = NULL;
			int bd = 1000, j;
			for (j = 0; j < s->catalog->n; j++) {
				int dd = str_distance(d->model, s->catalog->gpus[j].id);
				if (dd < bd) {
					bd = dd;
					best = s->catalog->gpus[j].id;
				}
			}
			v = ymap_get(n, "model");
			if (best && bd <= 3)
				return yerr(t, v, PLUMB_EINPUT, err,
					    "unknown GPU model '%s' (did you mean '%s'?)", d->model, best);
			return yerr(t, v, PLUMB_EINPUT, err,
				    "unknown GPU model '%s' (see scenarios/catalog/gpus.yaml)", d->model);
		}
		if (s->ngpus >= SCN_MAX_GPUS)
			return yerr(t, n, PLUMB_EINPUT, err, "more than %d GPUs", SCN_MAX_GPUS);
		if ((rc = scn_room_gpus(s, s->ngpus + 1, err)) < 0)
			return rc;
		d->gpu_index = s->ngpus;
		s->gpu_node[s->ngpus++] = s->nnodes;
		/* An unstated link trains to the lower of the card and its slot. */
		const struct scn_node *par = &s->nodes[d->parent];
		const struct scn_gpu_model *gm = &s->catalog->gpus[d->gpu_model];
		if (!d->gen)
			d->gen = par->gen && par->gen < gm->pcie_gen ? par->gen : gm->pcie_gen;
		if (!d->width)
			d->width = par->width && par->width < gm->pcie_width ? par->width : gm->pcie_width;
	}
	if (d->kind != SCN_ROOT_COMPLEX && d->kind != SCN_ROOT_PORT) {
		/* An unstated link runs at what its parent's link offers. A root
		 * port without gen/width follows the device in its slot. */
		if (!d->gen)
			d->gen = s->nodes[d->parent].gen ? s->nodes[d->parent].gen : 4;
		if (!d->width)
			d->width = s->nodes[d->parent].width ? s->nodes[d->parent].width : 16;
	}
	s->nnodes++;
	return 0;
}

static int gpu_ref(const struct ytree *t, const struct ynode *v, const struct scenario *s,
		   int *out, struct plumb_err *err)
{
	char buf[64];
	int rc, i;
	if ((rc = yget_str(t, v, "gpu", buf, sizeof(buf), err)) < 0)
		return rc;
	i = find_node(s, buf);
	if (i < 0 || s->nodes[i].kind != SCN_GPU)
		return yerr(t, v, PLUMB_EINPUT, err, "'%s' is not a gpu of this scenario", buf);
	*out = s->nodes[i].gpu_index;
	return 0;
}

/*
 * The GPU pairs bonded so far, to find a bond given twice in O(1) rather
 * than by a pass over the bonds (an NVSwitch domain of N GPUs has N(N-1)/2):
 * open addressing, power-of-two capacity, key (lo << 32 | hi) + 1, 0 empty.
 */
struct pairset {
	uint64_t *k;
	size_t cap, n;
};

static size_t pair_slot(const struct pairset *p, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (p->cap - 1);
	while (p->k[i] && p->k[i] != key)
		i = (i + 1) & (p->cap - 1);
	return i;
}

/* Add the pair (a, b): 1 when it is new, 0 when it was there, -1 when out
 * of memory. */
static int pair_add(struct pairset *p, int a, int b)
{
	uint64_t key = ((uint64_t)(a < b ? a : b) << 32 | (uint64_t)(a < b ? b : a)) + 1;
	size_t i;
	if (2 * (p->n + 1) > p->cap) {
		struct pairset q = { NULL, p->cap ? 2 * p->cap : 64, 0 };
		if (!(q.k = calloc(q.cap, sizeof(*q.k))))
			return -1;
		for (i = 0; i < p->cap; i++)
			if (p->k[i])
				q.k[pair_slot(&q, p->k[i])] = p->k[i];
		q.n = p->n;
		free(p->k);
		*p = q;
	}
	i = pair_slot(p, key);
	if (p->k[i])
		return 0;
	p->k[i] = key;
	p->n++;
	return 1;
}

static int add_link(const struct ytree *t, const struct ynode *at, struct scenario *s,
		    struct pairset *seen, int a, int b, int links, struct plumb_err *err)
{
	const char *kind = s->xgmi ? "xGMI" : "NVLink";
	int rc;
	if (a == b)
		return yerr(t, at, PLUMB_EINPUT, err, "an %s bond needs two different GPUs", kind);
	if ((rc = pair_add(seen, a, b)) < 0)
		return scn_oom(err);
	if (rc == 0)
		return yerr(t, at, PLUMB_EINPUT, err,
			    "%s between GPU%d and GPU%d is given twice", kind, a, b);
	if ((rc = scn_room_nvlink(s, s->nnvlink + 1, err)) < 0)
		return rc;
	s->nvlink[s->nnvlink].a = a < b ? a : b;
	s->nvlink[s->nnvlink].b = a < b ? b : a;
	s->nvlink[s->nnvlink].links = links;
	s->nnvlink++;
	return 0;
}

static int nvlink_bonds(const struct ytree *t, const struct ynode *nv,
			struct scenario *s, struct pairset *seen, struct plumb_err *err);

/* `pairs:` of nvlink or xgmi: one bond per entry, `gpus: [A, B]` with
 * `links` (1). */
static int parse_pairs(const struct ytree *t, const struct ynode *v, struct scenario *s,
		       struct pairset *seen, struct plumb_err *err)
{
	size_t k;
	int rc;
	if ((rc = yexpect(t, v, Y_SEQ, "pairs", err)) < 0)
		return rc;
	for (k = 0; k < v->n; k++) {
		struct ynode *p = v->vals[k], *g, *l;
		int a, b;
		long nl = 1;
		if ((rc = yexpect(t, p, Y_MAP, "pairs entry", err)) < 0 ||
		    (rc = ymap_check_keys(t, p, "pairs entry", pair_keys, err)) < 0)
			return rc;
		g = ymap_get(p, "gpus");
		if (!g || g->type != Y_SEQ || g->n != 2)
			return yerr(t, g ? g : p, PLUMB_EINPUT, err,
				    "a pairs entry needs 'gpus: [A, B]'");
		if ((rc = gpu_ref(t, g->vals[0], s, &a, err)) < 0 ||
		    (rc = gpu_ref(t, g->vals[1], s, &b, err)) < 0)
			return rc;
		if ((l = ymap_get(p, "links")) &&
		    (rc = yget_int(t, l, "links", 1, 64, &nl, err)) < 0)
			return rc;
		if ((rc = add_link(t, p, s, seen, a, b, (int)nl, err)) < 0)
			return rc;
	}
	return 0;
}

/* `nvlink:` of a machine: an NVSwitch domain and point-to-point pairs. */
static int parse_nvlink(const struct ytree *t, const struct ynode *nv,
			struct scenario *s, struct plumb_err *err)
{
	struct pairset seen = { NULL, 0, 0 };
	int rc, i;

	for (i = 0; i < s->nnvlink; i++)
		if (pair_add(&seen, s->nvlink[i].a, s->nvlink[i].b) < 0) {
			free(seen.k);
			return scn_oom(err);
		}
	rc = nvlink_bonds(t, nv, s, &seen, err);
	free(seen.k);
	return rc;
}

static int nvlink_bonds(const struct ytree *t, const struct ynode *nv,
			struct scenario *s, struct pairset *seen, struct plumb_err *err)
{
	struct ynode *v;
	int rc, nvs = 0, links = 0, *sel = NULL, nsel = 0, i, j;
	size_t k;

	if ((rc = yexpect(t, nv, Y_MAP, "nvlink", err)) < 0 ||
	    (rc = ymap_check_keys(t, nv, "nvlink", nvlink_keys, err)) < 0)
		return rc;
	if ((v = ymap_get(nv, "nvswitch")) && (rc = yget_bool(t, v, "nvswitch", &nvs, err)) < 0)
		return rc;
	if (nvs) {
		if ((rc = scn_opt_int(t, nv, "links_per_gpu", 1, 64, &links, err)) < 0)
			return rc;
		v = ymap_get(nv, "gpus");
		if (!(sel = malloc((size_t)(s->ngpus + (v ? (int)v->n : 0) + 1) * sizeof(*sel))))
			return scn_oom(err);
		if (!v || (v->type == Y_SCALAR && strcmp(v->str, "all") == 0)) {
			for (i = 0; i < s->ngpus; i++)
				sel[nsel++] = i;
		} else {
			if ((rc = yexpect(t, v, Y_SEQ, "gpus", err)) < 0)
				goto out;
			for (k = 0; k < v->n && nsel < SCN_MAX_GPUS; k++)
				if ((rc = gpu_ref(t, v->vals[k], s, &sel[nsel++], err)) < 0)
					goto out;
		}
		for (i = 0; i < nsel; i++) {
			const struct scn_gpu_model *m =
				&s->catalog->gpus[s->nodes[s->gpu_node[sel[i]]].gpu_model];
			int l = links ? links : m->nvlink_links;
			if (l <= 0) {
				rc = yerr(t, nv, PLUMB_EINPUT, err,
					  "GPU%d (%s) has no NVLink; set links_per_gpu or use another model",
					  sel[i], m->id);
				goto out;
			}
			for (j = i + 1; j < nsel; j++)
				if ((rc = add_link(t, nv, s, seen, sel[i], sel[j], l, err)) < 0)
					goto out;
		}
		free(sel);
		sel = NULL;
		s->nvswitch = 1;
	} else if (ymap_get(nv, "links_per_gpu") || ymap_get(nv, "gpus")) {
		return yerr(t, nv, PLUMB_EINPUT, err,
			    "'links_per_gpu' and 'gpus' need 'nvswitch: true'");
	}
	if ((v = ymap_get(nv, "pairs")) && (rc = parse_pairs(t, v, s, seen, err)) < 0)
		return rc;
	return 0;
out:
	free(sel);
	return rc;
}


/* The GPUs of `gpus:` (all when absent or "all") into sel; their count. */
static int xgmi_sel(const struct ytree *t, const struct ynode *v, struct scenario *s, int *sel,
		    int *nsel, struct plumb_err *err)
{
	size_t k;
	int i, rc;
	*nsel = 0;
	if (!v || (v->type == Y_SCALAR && strcmp(v->str, "all") == 0)) {
		for (i = 0; i < s->ngpus; i++)
			sel[(*nsel)++] = i;
		return 0;
	}
	if ((rc = yexpect(t, v, Y_SEQ, "gpus", err)) < 0)
		return rc;
	for (k = 0; k < v->n && *nsel < SCN_MAX_GPUS; k++)
		if ((rc = gpu_ref(t, v->vals[k], s, &sel[(*nsel)++], err)) < 0)
			return rc;
	return 0;
}

/*
 * `xgmi:` of a machine: AMD Infinity Fabric links between GPUs, each pair
 * its own point-to-point link(s), as on an 8x MI300X board where every GPU
 * reaches its seven peers over seven links (rocm.blogs.amd.com,
 * "Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct
 * MI300X": "a fully connected mesh"). `mesh: true` joins every pair of
 * `gpus` (all by default) with `links_per_pair` links (1); `pairs` adds
 * single bonds as nvlink's do. A GPU may not use more links than its
 * catalog's xgmi_links. The bonds share the NVLink table; s->xgmi says
 * what they are.
 */
static int parse_xgmi(const struct ytree *t, const struct ynode *x, struct scenario *s,
		      struct plumb_err *err)
{
	struct pairset seen = { NULL, 0, 0 };
	struct ynode *v;
	int rc, mesh = 0, per = 1, sel[SCN_MAX_GPUS], nsel = 0, i, j, *used = NULL;

	if ((rc = yexpect(t, x, Y_MAP, "xgmi", err)) < 0 ||
	    (rc = ymap_check_keys(t, x, "xgmi", xgmi_keys, err)) < 0)
		return rc;
	s->xgmi = 1;
	for (i = 0; i < s->ngpus; i++) {
		const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[i]].gpu_model];
		if (m->xgmi_links <= 0)
			return yerr(t, x, PLUMB_EINPUT, err,
				    "GPU%d (%s) has no xGMI links in its catalog entry (xgmi_links)",
				    i, m->id);
	}
	if ((v = ymap_get(x, "mesh")) && (rc = yget_bool(t, v, "mesh", &mesh, err)) < 0)
		return rc;
	if ((rc = scn_opt_int(t, x, "links_per_pair", 1, 64, &per, err)) < 0)
		return rc;
	if (!per)
		per = 1;
	if (!mesh && (ymap_get(x, "gpus") || ymap_get(x, "links_per_pair")))
		return yerr(t, x, PLUMB_EINPUT, err, "'gpus' and 'links_per_pair' need 'mesh: true'");
	for (i = 0; i < s->nnvlink; i++)
		if (pair_add(&seen, s->nvlink[i].a, s->nvlink[i].b) < 0) {
			free(seen.k);
			return scn_oom(err);
		}
	if (mesh) {
		if ((rc = xgmi_sel(t, ymap_get(x, "gpus"), s, sel, &nsel, err)) < 0)
			goto out;
		for (i = 0; i < nsel; i++)
			for (j = i + 1; j < nsel; j++)
				if ((rc = add_link(t, x, s, &seen, sel[i], sel[j], per, err)) < 0)
					goto out;
	}
	if ((v = ymap_get(x, "pairs")) && (rc = parse_pairs(t, v, s, &seen, err)) < 0)
		goto out;
	/* no GPU uses more links than it has */
	if (!(used = calloc((size_t)s->ngpus, sizeof(*used)))) {
		rc = scn_oom(err);
		goto out;
	}
	for (i = 0; i < s->nnvlink; i++) {
		used[s->nvlink[i].a] += s->nvlink[i].links;
		used[s->nvlink[i].b] += s->nvlink[i].links;
	}
	for (i = 0; i < s->ngpus; i++) {
		const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[i]].gpu_model];
		if (used[i] > m->xgmi_links) {
			rc = yerr(t, x, PLUMB_EINPUT, err,
				  "GPU%d (%s) has %d xGMI links, the bonds give it %d", i, m->id,
				  m->xgmi_links, used[i]);
			goto out;
		}
	}
	rc = 0;
out:
	free(used);
	free(seen.k);
	return rc;
}

/*
 * The machine of map m (a scenario's top level, a hosts entry or a box
 * file): its `host`, `pcie` tree and `nvlink`, into s.
 */
int scn_parse_machine(const struct ytree *t, const struct ynode *m, struct scenario *s,
		      struct plumb_err *err)
{
	struct ynode *v;
	size_t i;
	int rc, j;

	if ((v = ymap_get(m, "host")) && (rc = parse_host(t, v, s, err)) < 0)
		return rc;
	if (!(v = ymap_get(m, "pcie")))
		return yerr(t, m, PLUMB_EINPUT, err, "missing 'pcie' (the list of root complexes, ports, switches and devices)");
	if ((rc = yexpect(t, v, Y_SEQ, "pcie", err)) < 0)
		return rc;
	for (i = 0; i < v->n; i++)
		if ((rc = parse_node(t, v, i, s, err)) < 0)
			return rc;
	if (s->ngpus == 0)
		return yerr(t, v, PLUMB_EINPUT, err, "the scenario has no GPU (add a 'kind: gpu' entry)");
	for (j = 0; j < s->nnodes; j++) {
		const struct scn_node *d = &s->nodes[j];
		if (d->kind == SCN_ROOT_PORT || d->kind == SCN_SWITCH) {
			int k, kids = 0;
			for (k = 0; k < s->nnodes; k++)
				kids += s->nodes[k].parent == j;
			if (kids == 0 && d->kind == SCN_SWITCH)
				return plumb_err_set(err, PLUMB_EINPUT, t->file, d->line, d->col,
						     "switch '%s' has nothing below it", d->id);
		}
	}
	if ((v = ymap_get(m, "nvlink")) && (rc = parse_nvlink(t, v, s, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "xgmi"))) {
		if (ymap_get(m, "nvlink"))
			return yerr(t, v, PLUMB_EINPUT, err,
				    "a machine has 'nvlink' or 'xgmi', not both (NVIDIA and AMD GPUs do not share a bond)");
		if ((rc = parse_xgmi(t, v, s, err)) < 0)
			return rc;
	}
	return 0;
}
