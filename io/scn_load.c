/*
 * scn_load.c - scenario YAML -> struct scenario, with validation.
 *
 * Validation order (the first problem wins, so messages are stable):
 * top-level keys, version, host, pcie entries in file order (keys, kind,
 * parent exists and is declared earlier, parent kind allowed, values), then
 * whole-tree checks (GPU count, sockets), nvlink, virtualization.
 * Requiring parents to be declared before children makes cycles impossible
 * and gives a precise message for a forward or dangling reference.
 */
#include "scn.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "input.h"
#include "ytree.h"

static const char *const top_keys[] = {
	"plumb_scenario", "name", "description", "seed", "event_budget", "source", "host",
	"pcie", "nvlink", "virtualization", "constants", "nccl", "serving", "gpu_catalog",
	"gpu_models", "hosts", "network", NULL
};
static const char *const hosts_keys[] = { "name", "count", "box", "host", "pcie", "nvlink", NULL };
static const char *const network_keys[] = { "kind", "port_gbps", "switch", NULL };
static const char *const netswitch_keys[] = { "model", "ports", NULL };
static const char *const net_kind_names[] = { "infiniband", "roce", NULL };
static const char *const serving_keys[] = {
	"engine", "cuda_graphs", "custom_allreduce", "allreduce_fusion", "moe_backend",
	"attention_backend", "dsa", "mtp", "note", NULL
};
static const char *const engine_names[] = { "sglang", "vllm", "trtllm", "other", NULL };
static const char *const allreduce_names[] = { "off", "oneshot", "twoshot", "auto", NULL };
static const char *const dsa_names[] = { "sparse", "dense", NULL };
static const char *const mtp_keys[] = { "draft", "accept", NULL };
static const char *const nccl_keys[] = { "p2p_level", "p2p_disable", "shm_disable", "net_gdr_level", NULL };
/* NCCL's path names in its order (src/graph/topo.h), as NCCL_P2P_LEVEL takes them. */
static const char *const nccl_levels[] = { "LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS", NULL };
static const char *const host_keys[] = {
	"board", "cpu_vendor", "cpu_model", "sockets", "numa_per_socket",
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
static const char *const vm_keys[] = {
	"mode", "hypervisor", "chipset", "pcie_passthrough", "firmware",
	"guest_phys_bits", "mmio64_window", "mmio32_window", "guest_ram",
	"host_iommu", "guest_kernel_args", "p2p_exposure", "guest_numa", "vcpus",
	"hugepages", "viommu", NULL
};

static const char *const kind_names[] = {
	"root_complex", "root_port", "switch", "gpu", "nic", NULL
};
static const char *const vendor_names[] = { "amd", "intel", "arm", "other", NULL };
static const char *const mode_names[] = { "bare_metal", "vm", NULL };
static const char *const chipset_names[] = { "q35", "i440fx", NULL };
static const char *const firmware_names[] = { "seabios", "ovmf", NULL };
static const char *const iommu_names[] = { "off", "translate", "pt", NULL };
static const char *const exposure_names[] = { "none", "clique", NULL };
static const char *const guest_numa_names[] = { "none", "host", NULL };

const char *scn_kind_name(enum scn_kind k)
{
	return kind_names[k];
}

/*
 * The scenario's tables grow as the file is read (doubling): p holds *cap
 * entries of size bytes. The table with room for need entries (p itself
 * when it has it), or NULL when out of memory (p is left as it was).
 */
static void *grow(void *p, int *cap, int need, size_t size)
{
	void *q;
	int n = *cap > 0 ? *cap : 8;
	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	if (!(q = realloc(p, (size_t)n * size)))
		return NULL;
	*cap = n;
	return q;
}

static int oom(struct plumb_err *err)
{
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
}

/* Room for need entries in a table of s: 0, or -PLUMB_ERUNTIME. */
static int room_nodes(struct scenario *s, int need, struct plumb_err *err)
{
	struct scn_node *q;
	if (need <= s->cap_nodes)
		return 0;
	if (!(q = grow(s->nodes, &s->cap_nodes, need, sizeof(*q))))
		return oom(err);
	s->nodes = q;
	return 0;
}

static int room_gpus(struct scenario *s, int need, struct plumb_err *err)
{
	int *q;
	if (need <= s->cap_gpus)
		return 0;
	if (!(q = grow(s->gpu_node, &s->cap_gpus, need, sizeof(*q))))
		return oom(err);
	s->gpu_node = q;
	return 0;
}

static int room_nvlink(struct scenario *s, int need, struct plumb_err *err)
{
	struct scn_nvlink *q;
	if (need <= s->cap_nvlink)
		return 0;
	if (!(q = grow(s->nvlink, &s->cap_nvlink, need, sizeof(*q))))
		return oom(err);
	s->nvlink = q;
	return 0;
}

/* Room for need NUMA nodes' CPU lists, the new ones "" and counted. */
static int room_numa(struct scenario *s, int need, struct plumb_err *err)
{
	char (*q)[128];
	if (need > s->cap_numa) {
		if (!(q = grow(s->numa_cpus, &s->cap_numa, need, sizeof(*q))))
			return oom(err);
		s->numa_cpus = q;
	}
	if (need > s->nnuma_cpus) {
		memset(s->numa_cpus[s->nnuma_cpus], 0,
		       (size_t)(need - s->nnuma_cpus) * sizeof(s->numa_cpus[0]));
		s->nnuma_cpus = need;
	}
	return 0;
}

static int room_hosts(struct scenario *s, int need, struct plumb_err *err)
{
	struct scn_box *q;
	if (need <= s->cap_hosts)
		return 0;
	if (!(q = grow(s->hosts, &s->cap_hosts, need, sizeof(*q))))
		return oom(err);
	s->hosts = q;
	return 0;
}

/* The tables of s freed, and their counts zero. */
static void tables_free(struct scenario *s)
{
	free(s->hosts);
	free(s->nodes);
	free(s->gpu_node);
	free(s->nvlink);
	free(s->numa_cpus);
	s->hosts = NULL;
	s->nodes = NULL;
	s->gpu_node = NULL;
	s->nvlink = NULL;
	s->numa_cpus = NULL;
	s->cap_hosts = s->cap_nodes = s->cap_gpus = s->cap_nvlink = s->cap_numa = 0;
	s->nhosts = s->nnodes = s->ngpus = s->nnvlink = s->nnuma_cpus = 0;
}

static int find_node(const struct scenario *s, const char *id)
{
	int i;
	for (i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i].id, id) == 0)
			return i;
	return -1;
}

/* A Linux CPU list as in /sys/devices/system/node/nodeN/cpulist. */
int scn_cpulist_next(const char **p, long *a, long *b)
{
	const char *q = *p;
	char *end;

	if (*q == '\0')
		return 0;
	if (*q < '0' || *q > '9')
		return -1;
	*a = *b = strtol(q, &end, 10);
	q = end;
	if (*q == '-') {
		if (q[1] < '0' || q[1] > '9')
			return -1;
		*b = strtol(q + 1, &end, 10);
		q = end;
	}
	if (*a > *b)
		return -1;
	if (*q == ',') {
		if (q[1] == '\0')
			return -1;
		q++;
	} else if (*q != '\0') {
		return -1;
	}
	*p = q;
	return 1;
}

int scn_cpulist_ok(const char *s)
{
	long a, b;
	int rc;

	if (*s == '\0')
		return 0;
	while ((rc = scn_cpulist_next(&s, &a, &b)) > 0)
		if (b > SCN_MAX_CPU)
			return 0;
	return rc == 0;
}

/* Optional integer field; leaves *out alone when absent. */
static int opt_int(const struct ytree *t, const struct ynode *m, const char *key,
		   long lo, long hi, int *out, struct plumb_err *err)
{
	struct ynode *v = ymap_get(m, key);
	long l;
	int rc;
	if (!v)
		return 0;
	if ((rc = yget_int(t, v, key, lo, hi, &l, err)) < 0)
		return rc;
	*out = (int)l;
	return 0;
}

static int opt_str(const struct ytree *t, const struct ynode *m, const char *key,
		   char *buf, size_t n, struct plumb_err *err)
{
	struct ynode *v = ymap_get(m, key);
	return v ? yget_str(t, v, key, buf, n, err) : 0;
}

static int opt_enum(const struct ytree *t, const struct ynode *m, const char *key,
		    const char *what, const char *const *names, int *out,
		    struct plumb_err *err)
{
	struct ynode *v = ymap_get(m, key);
	return v ? yget_enum(t, v, what, names, out, err) : 0;
}

static int check_id(const struct ytree *t, const struct ynode *v, const char *id,
		    struct plumb_err *err)
{
	const char *p;
	if (!id[0])
		return yerr(t, v, PLUMB_EINPUT, err, "'id' must not be empty");
	for (p = id; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
		      *p == '_' || *p == '-'))
			return yerr(t, v, PLUMB_EINPUT, err,
				    "id '%s' may only use a-z, 0-9, '_' and '-'", id);
	return 0;
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
	if ((rc = opt_enum(t, h, "cpu_vendor", "cpu_vendor", vendor_names, &e, err)) < 0)
		return rc;
	H->cpu_vendor = (enum scn_vendor)e;
	if ((rc = opt_str(t, h, "board", H->board, sizeof(H->board), err)) < 0 ||
	    (rc = opt_str(t, h, "cpu_model", H->cpu_model, sizeof(H->cpu_model), err)) < 0 ||
	    (rc = opt_int(t, h, "sockets", 1, SCN_MAX_SOCKETS, &H->sockets, err)) < 0 ||
	    (rc = opt_int(t, h, "numa_per_socket", 1, 8, &H->numa_per_socket, err)) < 0 ||
	    (rc = opt_int(t, h, "cores_per_socket", 1, 1024, &H->cores_per_socket, err)) < 0 ||
	    (rc = opt_int(t, h, "threads_per_core", 1, 8, &H->threads_per_core, err)) < 0)
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
		if ((rc = room_numa(s, (int)v->n, err)) < 0)
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
		    (rc = opt_str(t, v, "kind", H->inter_socket_kind,
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
	 * Intel (UPI/QPI peer traffic) - plumb's documented assumption.
	 */
	H->p2p_across_sockets = H->cpu_vendor != SCN_INTEL;
	if ((v = ymap_get(h, "p2p_across_sockets")) &&
	    (rc = yget_bool(t, v, "p2p_across_sockets", &H->p2p_across_sockets, err)) < 0)
		return rc;
	e = 0;
	if ((rc = opt_enum(t, h, "p2p_driver", "p2p_driver", driver_names, &e, err)) < 0)
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
	if ((rc = room_nodes(s, s->nnodes + 1, err)) < 0)
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
	    (rc = check_id(t, v, d->id, err)) < 0)
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
		if ((rc = opt_int(t, n, "socket", 0, SCN_MAX_SOCKETS - 1, &d->socket, err)) < 0)
			return rc;
		if (d->socket >= s->host.sockets)
			return yerr(t, v, PLUMB_EINPUT, err,
				    "socket %d does not exist (host has %d socket%s)",
				    d->socket, s->host.sockets, s->host.sockets == 1 ? "" : "s");
		d->numa = d->socket * s->host.numa_per_socket;
		if ((v = ymap_get(n, "numa"))) {
			if ((rc = opt_int(t, n, "numa", 0, SCN_MAX_SOCKETS - 1, &d->numa, err)) < 0)
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
	if ((rc = opt_str(t, n, "model", d->model, sizeof(d->model), err)) < 0 ||
	    (rc = opt_str(t, n, "bdf", d->bdf, sizeof(d->bdf), err)) < 0)
		return rc;
	if ((v = ymap_get(n, "clique"))) {
		if (d->kind != SCN_GPU)
			return yerr(t, v, PLUMB_EINPUT, err, "only a gpu takes 'clique'");
		if ((rc = opt_int(t, n, "clique", 0, 1000, &d->clique, err)) < 0)
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
		if ((rc = room_gpus(s, s->ngpus + 1, err)) < 0)
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
	int rc;
	if (a == b)
		return yerr(t, at, PLUMB_EINPUT, err, "an NVLink bond needs two different GPUs");
	if ((rc = pair_add(seen, a, b)) < 0)
		return oom(err);
	if (rc == 0)
		return yerr(t, at, PLUMB_EINPUT, err,
			    "NVLink between GPU%d and GPU%d is given twice", a, b);
	if ((rc = room_nvlink(s, s->nnvlink + 1, err)) < 0)
		return rc;
	s->nvlink[s->nnvlink].a = a < b ? a : b;
	s->nvlink[s->nnvlink].b = a < b ? b : a;
	s->nvlink[s->nnvlink].links = links;
	s->nnvlink++;
	return 0;
}

static int nvlink_bonds(const struct ytree *t, const struct ynode *nv,
			struct scenario *s, struct pairset *seen, struct plumb_err *err);

/* `nvlink:` of a machine: an NVSwitch domain and point-to-point pairs. */
static int parse_nvlink(const struct ytree *t, const struct ynode *nv,
			struct scenario *s, struct plumb_err *err)
{
	struct pairset seen = { NULL, 0, 0 };
	int rc, i;

	for (i = 0; i < s->nnvlink; i++)
		if (pair_add(&seen, s->nvlink[i].a, s->nvlink[i].b) < 0) {
			free(seen.k);
			return oom(err);
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
		if ((rc = opt_int(t, nv, "links_per_gpu", 1, 64, &links, err)) < 0)
			return rc;
		v = ymap_get(nv, "gpus");
		if (!(sel = malloc((size_t)(s->ngpus + (v ? (int)v->n : 0) + 1) * sizeof(*sel))))
			return oom(err);
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
	if ((v = ymap_get(nv, "pairs"))) {
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
	}
	return 0;
out:
	free(sel);
	return rc;
}

static int parse_vm(const struct ytree *t, const struct ynode *m, struct scenario *s,
		    struct plumb_err *err)
{
	struct scn_vm *V = &s->vm;
	struct ynode *v;
	int rc, e;
	size_t i;

	if ((rc = yexpect(t, m, Y_MAP, "virtualization", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "virtualization", vm_keys, err)) < 0)
		return rc;
	if (!(v = ymap_get(m, "mode")))
		return yerr(t, m, PLUMB_EINPUT, err, "virtualization needs 'mode' (bare_metal or vm)");
	if ((rc = yget_enum(t, v, "mode", mode_names, &e, err)) < 0)
		return rc;
	V->mode = (enum scn_mode)e;
	if (V->mode == SCN_BARE_METAL) {
		for (i = 0; i < m->n; i++) {
			const char *k = m->keys[i]->str;
			if (strcmp(k, "mode") && strcmp(k, "host_iommu"))
				return yerr(t, m->keys[i], PLUMB_EINPUT, err,
					    "'%s' only applies with 'mode: vm'", k);
		}
	}
	if ((rc = opt_str(t, m, "hypervisor", V->hypervisor, sizeof(V->hypervisor), err)) < 0)
		return rc;
	e = V->chipset;
	if ((rc = opt_enum(t, m, "chipset", "chipset", chipset_names, &e, err)) < 0)
		return rc;
	V->chipset = (enum scn_chipset)e;
	if ((v = ymap_get(m, "pcie_passthrough")) &&
	    (rc = yget_bool(t, v, "pcie_passthrough", &V->pcie_passthrough, err)) < 0)
		return rc;
	if (V->chipset == SCN_I440FX && V->pcie_passthrough)
		return yerr(t, ymap_get(m, "pcie_passthrough"), PLUMB_EINPUT, err,
			    "pcie_passthrough needs chipset q35 (i440fx has a flat PCI bus)");
	e = V->firmware;
	if ((rc = opt_enum(t, m, "firmware", "firmware", firmware_names, &e, err)) < 0)
		return rc;
	V->firmware = (enum scn_firmware)e;
	if ((rc = opt_int(t, m, "guest_phys_bits", 36, 57, &V->guest_phys_bits, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "mmio64_window")) &&
	    (rc = yget_size(t, v, "mmio64_window", &V->mmio64_window, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "mmio32_window")) &&
	    (rc = yget_size(t, v, "mmio32_window", &V->mmio32_window, err)) < 0)
		return rc;
	if (V->mmio32_window > (4ull << 30))
		return yerr(t, ymap_get(m, "mmio32_window"), PLUMB_EINPUT, err,
			    "'mmio32_window' must be at most 4G (the 32-bit window lies below 4 GiB), got '%s'",
			    ymap_get(m, "mmio32_window")->str);
	if ((v = ymap_get(m, "guest_ram")) &&
	    (rc = yget_size(t, v, "guest_ram", &V->guest_ram, err)) < 0)
		return rc;
	e = V->host_iommu;
	if ((rc = opt_enum(t, m, "host_iommu", "host_iommu mode", iommu_names, &e, err)) < 0)
		return rc;
	V->host_iommu = (enum scn_iommu)e;
	if ((v = ymap_get(m, "guest_kernel_args"))) {
		if ((rc = yexpect(t, v, Y_SEQ, "guest_kernel_args", err)) < 0)
			return rc;
		for (i = 0; i < v->n; i++) {
			char arg[128];
			if ((rc = yget_str(t, v->vals[i], "guest kernel argument", arg,
					   sizeof(arg), err)) < 0)
				return rc;
			if (strlen(V->kernel_args) + strlen(arg) + 2 > sizeof(V->kernel_args))
				return yerr(t, v->vals[i], PLUMB_EINPUT, err,
					    "guest_kernel_args too long");
			if (V->kernel_args[0])
				strcat(V->kernel_args, " ");
			strcat(V->kernel_args, arg);
			if (strcmp(arg, "pci=realloc") == 0 || strncmp(arg, "pci=realloc,", 12) == 0)
				V->pci_realloc = 1;
		}
	}
	e = V->p2p_exposure;
	if ((rc = opt_enum(t, m, "p2p_exposure", "p2p_exposure", exposure_names, &e, err)) < 0)
		return rc;
	V->p2p_exposure = (enum scn_p2p_exposure)e;
	e = V->guest_numa;
	if ((rc = opt_enum(t, m, "guest_numa", "guest_numa", guest_numa_names, &e, err)) < 0)
		return rc;
	V->guest_numa = e;
	if ((rc = opt_int(t, m, "vcpus", 1, SCN_MAX_CPU + 1, &V->vcpus, err)) < 0)
		return rc;
	{
		/* The guest's host path (models/coll/vmhost.c): its RAM's
		 * page size, which the host IOMMU maps it in, and a vIOMMU. */
		static const char *const page_names[] = { "none", "2m", "1g", NULL };
		if ((rc = opt_enum(t, m, "hugepages", "hugepages", page_names, &V->hugepages,
				   err)) < 0)
			return rc;
		if ((v = ymap_get(m, "viommu")) &&
		    (rc = yget_bool(t, v, "viommu", &V->viommu, err)) < 0)
			return rc;
	}
	if (V->mode == SCN_VM && V->guest_numa && !(V->chipset == SCN_Q35 && V->pcie_passthrough))
		return yerr(t, ymap_get(m, "guest_numa"), PLUMB_EINPUT, err,
			    "guest_numa: host needs chipset q35 with pcie_passthrough (pxb-pcie expander buses)");
	return 0;
}

int scn_parse_consts(const struct ytree *t, const struct ynode *m, int scope,
		     struct plumb_consts *k, struct plumb_err *err)
{
	size_t i;
	int rc;
	if ((rc = yexpect(t, m, Y_MAP, "constants", err)) < 0)
		return rc;
	for (i = 0; i < m->n; i++) {
		const char *name = m->keys[i]->str;
		int c = consts_find(name);
		const struct plumb_const_def *d;
		if (c < 0) {
			const char *best = NULL;
			int bd = 1000, j;
			for (j = 0; j < K_NCONSTS; j++) {
				int dist = str_distance(name, plumb_const_defs[j].name);
				if (dist < bd) {
					bd = dist;
					best = plumb_const_defs[j].name;
				}
			}
			if (best && bd <= 1 + (int)strlen(best) / 3)
				return yerr(t, m->keys[i], PLUMB_EINPUT, err,
					    "unknown constant '%s' (did you mean '%s'?)", name, best);
			return yerr(t, m->keys[i], PLUMB_EINPUT, err,
				    "unknown constant '%s' (see docs/model.md for the list)", name);
		}
		d = &plumb_const_defs[c];
		if (scope >= 0 && (int)d->scope != scope)
			return yerr(t, m->keys[i], PLUMB_EINPUT, err,
				    "'%s' has %s scope; a GPU entry holds %s-scope constants only",
				    name, consts_scope_name(d->scope),
				    consts_scope_name((enum plumb_scope)scope));
		if ((rc = yget_double(t, m->vals[i], name, d->lo, d->hi, &k->v[c], err)) < 0)
			return rc;
		k->set[c] = 1;
	}
	return 0;
}

static int parse_nccl(const struct ytree *t, const struct ynode *m, struct scenario *s,
		      struct plumb_err *err)
{
	struct ynode *v;
	int rc, e, off = 0;
	if ((rc = yexpect(t, m, Y_MAP, "nccl", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "nccl", nccl_keys, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "p2p_level"))) {
		if ((rc = yget_enum(t, v, "NCCL_P2P_LEVEL", nccl_levels, &e, err)) < 0)
			return rc;
		s->nccl_level = e;
	}
	if ((v = ymap_get(m, "p2p_disable"))) {
		if ((rc = yget_bool(t, v, "p2p_disable", &off, err)) < 0)
			return rc;
		if (off)
			s->nccl_level = 0;   /* NCCL_P2P_DISABLE=1 means LOC */
	}
	if ((v = ymap_get(m, "shm_disable")) &&
	    (rc = yget_bool(t, v, "shm_disable", &s->nccl_shm_disable, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "net_gdr_level"))) {
		if ((rc = yget_enum(t, v, "NCCL_NET_GDR_LEVEL", nccl_levels, &e, err)) < 0)
			return rc;
		s->nccl_gdr_level = e;
	}
	return 0;
}

const char *scn_engine_name(enum scn_engine e)
{
	return (unsigned)e < 4 ? engine_names[e] : "?";
}

const char *scn_allreduce_name(enum scn_allreduce a)
{
	return allreduce_names[a];
}

static int parse_serving(const struct ytree *t, const struct ynode *m, struct scenario *s,
			 struct plumb_err *err)
{
	struct scn_serving *sv = &s->serving;
	struct ynode *v;
	int rc, e;
	if ((rc = yexpect(t, m, Y_MAP, "serving", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "serving", serving_keys, err)) < 0)
		return rc;
	sv->given = 1;
	if ((v = ymap_get(m, "engine"))) {
		if ((rc = yget_enum(t, v, "engine", engine_names, &e, err)) < 0)
			return rc;
		sv->engine = (enum scn_engine)e;
	}
	if ((v = ymap_get(m, "cuda_graphs")) &&
	    (rc = yget_bool(t, v, "cuda_graphs", &sv->cuda_graphs, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "custom_allreduce"))) {
		if ((rc = yget_enum(t, v, "custom_allreduce", allreduce_names, &e, err)) < 0)
			return rc;
		sv->allreduce = (enum scn_allreduce)e;
	}
	if ((v = ymap_get(m, "allreduce_fusion")) &&
	    (rc = yget_bool(t, v, "allreduce_fusion", &sv->allreduce_fusion, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "moe_backend")) &&
	    (rc = yget_str(t, v, "moe_backend", sv->moe_backend, sizeof(sv->moe_backend), err)) < 0)
		return rc;
	/* FlashInfer's trtllm-gen fused MoE, whatever the engine calls it
	 * (SGLang's --moe-runner-backend names; docs/model.md) */
	sv->moe_trtllm_gen = !strcmp(sv->moe_backend, "flashinfer_mxfp4") ||
			     !strcmp(sv->moe_backend, "flashinfer_trtllm");
	if ((v = ymap_get(m, "attention_backend")) &&
	    (rc = yget_str(t, v, "attention_backend", sv->attention_backend,
			   sizeof(sv->attention_backend), err)) < 0)
		return rc;
	sv->attn_trtllm_gen = !strcmp(sv->attention_backend, "trtllm_mha") ||
			      !strcmp(sv->attention_backend, "trtllm_mla");
	if ((v = ymap_get(m, "dsa"))) {
		if ((rc = yget_enum(t, v, "dsa", dsa_names, &e, err)) < 0)
			return rc;
		sv->dsa_dense = e;
	}
	if ((v = ymap_get(m, "note")) &&
	    (rc = yget_str(t, v, "note", sv->note, sizeof(sv->note), err)) < 0)
		return rc;
	if ((v = ymap_get(m, "mtp"))) {
		struct ynode *w;
		long d = 0;
		if ((rc = yexpect(t, v, Y_MAP, "mtp", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "mtp", mtp_keys, err)) < 0)
			return rc;
		if ((w = ymap_get(v, "draft")) &&
		    (rc = yget_int(t, w, "mtp draft", 0, 16, &d, err)) < 0)
			return rc;
		sv->mtp_draft = (int)d;
		if ((w = ymap_get(v, "accept")) && w->type == Y_SEQ) {
			size_t i;
			/* per draft position: the k-th accepted given the ones before */
			if (w->n < 1 || (long)w->n > (d > 0 ? d : 16))
				return yerr(t, w, PLUMB_EINPUT, err,
					    "mtp accept: one rate per draft position, 1 to %ld of them",
					    d > 0 ? d : 16L);
			for (i = 0; i < w->n; i++)
				if ((rc = yget_double(t, w->vals[i], "mtp accept", 0, 1,
						      &sv->mtp_accept_pos[i], err)) < 0)
					return rc;
			sv->mtp_naccept = (int)w->n;
			sv->mtp_accept = sv->mtp_accept_pos[0];
		} else if (w && (rc = yget_double(t, w, "mtp accept", 0, 1, &sv->mtp_accept, err)) < 0) {
			return rc;
		}
		if (sv->mtp_draft > 0 && !ymap_get(v, "accept"))
			return yerr(t, v, PLUMB_EINPUT, err,
				    "mtp with %d draft tokens needs its acceptance (accept: 0..1)",
				    sv->mtp_draft);
	}
	return 0;
}

static void set_defaults(struct scenario *s)
{
	s->serving.cuda_graphs = 1;
	s->nccl_level = -1;
	s->nccl_gdr_level = -1;
	consts_defaults(&s->k);
	s->seed = 1;
	s->event_budget = SCN_DEFAULT_EVENT_BUDGET;
	s->host.cpu_vendor = SCN_OTHER_CPU;
	s->host.sockets = 1;
	s->host.numa_per_socket = 1;
	s->host.threads_per_core = 1;
	s->vm.mode = SCN_BARE_METAL;
	s->vm.chipset = SCN_Q35;
	s->vm.firmware = SCN_SEABIOS;
	/* QEMU's default for its named CPU models when host-phys-bits is off. */
	s->vm.guest_phys_bits = 40;
	/* QEMU q35 default 64-bit PCI hole: 32 GiB (Q35_PCI_HOST_HOLE64_SIZE_DEFAULT). */
	s->vm.mmio64_window = 32ull << 30;
	/* q35 places the 32-bit PCI hole at 2 GiB..4 GiB minus fixed devices. */
	s->vm.mmio32_window = 1ull << 30;
	s->vm.guest_ram = 16ull << 30;
	s->vm.host_iommu = SCN_IOMMU_TRANSLATE;
	s->vm.p2p_exposure = SCN_P2P_NONE;
}

/*
 * The machine of map m (a scenario's top level, a hosts entry or a box
 * file): its `host`, `pcie` tree and `nvlink`, into s.
 */
static int parse_machine(const struct ytree *t, const struct ynode *m, struct scenario *s,
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
	return 0;
}

const char *scn_net_kind_name(enum scn_net_kind k)
{
	return net_kind_names[k];
}

/* The first host field in which box b's host differs from a's, or NULL. */
static const char *host_differs(const struct scn_host *a, const struct scn_host *b)
{
	if (a->cpu_vendor != b->cpu_vendor)
		return "cpu_vendor";
	if (a->numa_per_socket != b->numa_per_socket)
		return "numa_per_socket";
	if (a->cores_per_socket != b->cores_per_socket)
		return "cores_per_socket";
	if (a->threads_per_core != b->threads_per_core)
		return "threads_per_core";
	if (strcmp(a->inter_socket_kind, b->inter_socket_kind) ||
	    a->inter_socket_gbs != b->inter_socket_gbs ||
	    a->inter_socket_latency_ns != b->inter_socket_latency_ns)
		return "inter_socket";
	if (a->p2p_across_sockets != b->p2p_across_sockets)
		return "p2p_across_sockets";
	if (a->p2p_patched != b->p2p_patched)
		return "p2p_driver";
	return NULL;
}

/*
 * Append box b (a machine parsed on its own) to s as host number s->nhosts,
 * named name; at is the hosts entry (for messages).
 */
static int add_box(const struct ytree *t, const struct ynode *at, struct scenario *s,
		   const struct scenario *b, const char *name, const char *source,
		   struct plumb_err *err)
{
	struct scn_box *h;
	int i, rc, noff = s->nnodes, goff = s->ngpus, soff, nps;
	const char *diff;

	if (s->nhosts >= SCN_MAX_HOSTS)
		return yerr(t, at, PLUMB_EINPUT, err, "more than %d hosts", SCN_MAX_HOSTS);
	for (i = 0; i < s->nhosts; i++)
		if (strcmp(s->hosts[i].name, name) == 0)
			return yerr(t, at, PLUMB_EINPUT, err, "duplicate host name '%s' (first at line %d)",
				    name, s->hosts[i].line);
	if (s->nhosts == 0) {
		s->host = b->host;
		s->host.sockets = 0;
	} else if ((diff = host_differs(&s->host, &b->host))) {
		return yerr(t, at, PLUMB_EINPUT, err,
			    "host '%s' differs from host '%s' in %s; the hosts of one scenario share their CPU kind",
			    name, s->hosts[0].name, diff);
	}
	soff = s->host.sockets;
	nps = s->host.numa_per_socket;
	if ((soff + b->host.sockets) * nps > SCN_MAX_SOCKETS)
		return yerr(t, at, PLUMB_EINPUT, err,
			    "the hosts hold more than %d sockets x numa_per_socket in all (host '%s' would make %d)",
			    SCN_MAX_SOCKETS, name, (soff + b->host.sockets) * nps);
	if (noff + b->nnodes > SCN_MAX_NODES)
		return yerr(t, at, PLUMB_EINPUT, err, "the hosts hold more than %d pcie entries in all",
			    SCN_MAX_NODES);
	if (goff + b->ngpus > SCN_MAX_GPUS)
		return yerr(t, at, PLUMB_EINPUT, err, "the hosts hold more than %d GPUs in all",
			    SCN_MAX_GPUS);
	if ((rc = room_hosts(s, s->nhosts + 1, err)) < 0 ||
	    (rc = room_nodes(s, noff + b->nnodes, err)) < 0 ||
	    (rc = room_gpus(s, goff + b->ngpus, err)) < 0 ||
	    (rc = room_nvlink(s, s->nnvlink + b->nnvlink, err)) < 0)
		return rc;
	h = &s->hosts[s->nhosts];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	snprintf(h->source, sizeof(h->source), "%s", source ? source : "");
	h->line = at->line;
	h->col = at->col;
	h->first_node = noff;
	h->nnodes = b->nnodes;
	h->first_gpu = goff;
	h->ngpus = b->ngpus;
	h->first_socket = soff;
	h->nsockets = b->host.sockets;
	for (i = 0; i < b->nnodes; i++) {
		struct scn_node *d = &s->nodes[noff + i];
		*d = b->nodes[i];
		snprintf(d->id, sizeof(d->id), "%s.%.*s", name,
			 (int)(sizeof(d->id) - strlen(name) - 2), b->nodes[i].id);
		if (d->parent >= 0)
			d->parent += noff;
		d->socket += soff;
		d->numa += soff * nps;
		d->host = s->nhosts;
		if (d->gpu_index >= 0) {
			d->gpu_index += goff;
			s->gpu_node[d->gpu_index] = noff + i;
		}
		h->nnics += d->kind == SCN_NIC;
	}
	/* the boxes' CPU lists, by NUMA node across hosts, when one gives them */
	if (b->nnuma_cpus || s->nnuma_cpus) {
		if ((rc = room_numa(s, (soff + b->host.sockets) * nps, err)) < 0)
			return rc;
		for (i = 0; i < b->nnuma_cpus; i++)
			memcpy(s->numa_cpus[soff * nps + i], b->numa_cpus[i], sizeof(s->numa_cpus[i]));
	}
	for (i = 0; i < b->nnvlink; i++) {
		s->nvlink[s->nnvlink] = b->nvlink[i];
		s->nvlink[s->nnvlink].a += goff;
		s->nvlink[s->nnvlink].b += goff;
		s->nnvlink++;
	}
	s->nvswitch |= b->nvswitch;
	s->nnodes += b->nnodes;
	s->ngpus += b->ngpus;
	s->host.sockets += b->host.sockets;
	s->nhosts++;
	return 0;
}

/*
 * The machine of `box: FILE` (a scenario file of one box, relative to the
 * scenario's directory) into b. Its host, pcie and nvlink are taken; the
 * rest of it (name, nccl, serving, constants) is the multi-host
 * scenario's own, and it must run on bare metal.
 */
static int load_box(const struct ytree *t, const struct ynode *v, struct scenario *b,
		    struct plumb_err *err)
{
	static const char *const refused[] = { "hosts", "network", "gpu_catalog", "gpu_models", NULL };
	struct ytree *bt = NULL;
	const struct ynode *r, *vm, *mode;
	const char *slash = strrchr(t->file, '/');
	char path[1100];
	int rc, i;

	if ((rc = yexpect(t, v, Y_SCALAR, "box", err)) < 0)
		return rc;
	if (v->str[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", v->str);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - t->file), t->file, v->str);
	if ((rc = ytree_load(path, &bt, err)) < 0) {
		if (err && err->line == 0) {
			/* unreadable: say so where the scenario names it */
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			return yerr(t, v, -rc, err, "box file %s: %s", path, msg);
		}
		return rc;
	}
	r = bt->root;
	if (!r) {
		rc = plumb_err_set(err, PLUMB_EINPUT, path, 1, 1, "empty box file (expected a scenario of one box)");
		goto out;
	}
	if ((rc = yexpect(bt, r, Y_MAP, "box", err)) < 0 ||
	    (rc = ymap_check_keys(bt, r, "scenario", top_keys, err)) < 0)
		goto out;
	for (i = 0; refused[i]; i++)
		if (ymap_get(r, refused[i])) {
			rc = yerr(bt, ymap_get(r, refused[i]), PLUMB_EINPUT, err,
				  "a box file describes one box: '%s' belongs in the scenario that names it",
				  refused[i]);
			goto out;
		}
	if ((vm = ymap_get(r, "virtualization")) && vm->type == Y_MAP &&
	    (mode = ymap_get(vm, "mode")) && mode->type == Y_SCALAR &&
	    strcmp(mode->str, "bare_metal") != 0) {
		rc = yerr(bt, mode, PLUMB_EINPUT, err,
			  "a box of several hosts runs on bare metal (virtual machines span one box)");
		goto out;
	}
	rc = parse_machine(bt, r, b, err);
out:
	ytree_free(bt);
	return rc;
}

static int parse_hosts(const struct ytree *t, const struct ynode *list, struct scenario *s,
		       struct plumb_err *err)
{
	struct scenario *b = NULL;
	size_t i;
	int rc = 0, k;

	if ((rc = yexpect(t, list, Y_SEQ, "hosts", err)) < 0)
		return rc;
	if (list->n == 0)
		return yerr(t, list, PLUMB_EINPUT, err, "'hosts' is empty (list the boxes)");
	if (!(b = calloc(1, sizeof(*b))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < list->n; i++) {
		const struct ynode *e = list->vals[i], *v;
		char name[24], one[40];
		long count = 1;

		if ((rc = yexpect(t, e, Y_MAP, "hosts entry", err)) < 0 ||
		    (rc = ymap_check_keys(t, e, "hosts entry", hosts_keys, err)) < 0)
			goto out;
		snprintf(name, sizeof(name), "host%d", s->nhosts);
		if ((v = ymap_get(e, "name"))) {
			if ((rc = yget_str(t, v, "name", name, sizeof(name), err)) < 0 ||
			    (rc = check_id(t, v, name, err)) < 0)
				goto out;
		}
		if ((v = ymap_get(e, "count")) &&
		    (rc = yget_int(t, v, "count", 1, SCN_MAX_HOSTS, &count, err)) < 0)
			goto out;
		tables_free(b);
		memset(b, 0, sizeof(*b));
		set_defaults(b);
		b->catalog = s->catalog;
		if ((v = ymap_get(e, "box"))) {
			static const char *const own[] = { "host", "pcie", "nvlink", NULL };
			for (k = 0; own[k]; k++)
				if (ymap_get(e, own[k])) {
					rc = yerr(t, ymap_get(e, own[k]), PLUMB_EINPUT, err,
						  "a hosts entry gives 'box: FILE' or its own '%s', not both",
						  own[k]);
					goto out;
				}
			if ((rc = load_box(t, v, b, err)) < 0)
				goto out;
		} else if (!ymap_get(e, "pcie")) {
			rc = yerr(t, e, PLUMB_EINPUT, err,
				  "a hosts entry needs 'box: FILE' (a scenario of one box) or its own 'pcie'");
			goto out;
		} else if ((rc = parse_machine(t, e, b, err)) < 0) {
			goto out;
		}
		for (k = 0; k < count; k++) {
			if (count > 1)
				snprintf(one, sizeof(one), "%s%d", name, k);
			else
				snprintf(one, sizeof(one), "%s", name);
			if ((rc = add_box(t, e, s, b, one, v ? v->str : NULL, err)) < 0)
				goto out;
		}
	}
out:
	tables_free(b);
	free(b);
	return rc;
}

/* `network:` of a scenario with hosts; every host needs a NIC. */
static int parse_network(const struct ytree *t, const struct ynode *m, struct scenario *s,
			 struct plumb_err *err)
{
	struct scn_network *N = &s->net;
	const struct ynode *v = NULL;
	int rc, e, i, ports = 0;

	if ((rc = yexpect(t, m, Y_MAP, "network", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "network", network_keys, err)) < 0)
		return rc;
	N->given = 1;
	if (!(v = ymap_get(m, "kind")))
		return yerr(t, m, PLUMB_EINPUT, err, "network needs 'kind' (infiniband or roce)");
	if ((rc = yget_enum(t, v, "network kind", net_kind_names, &e, err)) < 0)
		return rc;
	N->kind = (enum scn_net_kind)e;
	if (!(v = ymap_get(m, "port_gbps")))
		return yerr(t, m, PLUMB_EINPUT, err,
			    "network needs 'port_gbps' (a NIC port's line rate in Gb/s, e.g. 400 for NDR)");
	if ((rc = yget_double(t, v, "port_gbps", 1, 3200, &N->port_gbps, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "switch"))) {
		if ((rc = yexpect(t, v, Y_MAP, "switch", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "network switch", netswitch_keys, err)) < 0 ||
		    (rc = opt_str(t, v, "model", N->switch_model, sizeof(N->switch_model), err)) < 0 ||
		    (rc = opt_int(t, v, "ports", 1, 100000, &N->switch_ports, err)) < 0)
			return rc;
	}
	for (i = 0; i < s->nhosts; i++) {
		if (s->hosts[i].nnics == 0)
			return plumb_err_set(err, PLUMB_EINPUT, t->file, s->hosts[i].line, s->hosts[i].col,
					     "host '%s' has no nic in its pcie tree; the network reaches a host through its NICs",
					     s->hosts[i].name);
		ports += s->hosts[i].nnics;
	}
	if (N->switch_ports && ports > N->switch_ports)
		return yerr(t, ymap_get(v, "ports"), PLUMB_EINPUT, err,
			    "the switch has %d ports but the hosts' NICs need %d", N->switch_ports, ports);
	return 0;
}

static int parse_doc(const struct ytree *t, struct scenario *s, struct plumb_err *err)
{
	const struct ynode *r = t->root;
	struct ynode *v;
	long l;
	size_t i;
	int rc, j;

	if (!r || (r->type == Y_SCALAR && !r->quoted &&
		   (r->str[0] == '\0' || !strcmp(r->str, "~") || !strcmp(r->str, "null"))))
		return plumb_err_set(err, PLUMB_EINPUT, t->file, 1, 1,
				     "empty scenario (expected 'plumb_scenario: 1' and a 'pcie' list)");
	if ((rc = yexpect(t, r, Y_MAP, "scenario", err)) < 0 ||
	    (rc = ymap_check_keys(t, r, "scenario", top_keys, err)) < 0)
		return rc;
	if (!(v = ymap_get(r, "plumb_scenario")))
		return yerr(t, r, PLUMB_EINPUT, err,
			    "missing 'plumb_scenario: 1' (the scenario format version)");
	if ((rc = yget_int(t, v, "plumb_scenario", 0, 1000000, &l, err)) < 0)
		return rc;
	if (l != 1)
		return yerr(t, v, PLUMB_EINPUT, err,
			    "unsupported scenario format version %ld (this plumb reads 'plumb_scenario: 1')", l);
	if ((rc = opt_str(t, r, "name", s->name, sizeof(s->name), err)) < 0 ||
	    (rc = opt_str(t, r, "description", s->description, sizeof(s->description), err)) < 0)
		return rc;
	if ((v = ymap_get(r, "seed"))) {
		if ((rc = yget_int(t, v, "seed", 0, 2147483647L, &l, err)) < 0)
			return rc;
		s->seed = (unsigned long)l;
	}
	if ((v = ymap_get(r, "event_budget"))) {
		if ((rc = yget_int(t, v, "event_budget", 1, 1000000000000L, &l, err)) < 0)
			return rc;
		s->event_budget = (uint64_t)l;
	}
	if ((v = ymap_get(r, "hosts"))) {
		static const char *const own[] = { "host", "pcie", "nvlink", NULL };
		for (i = 0; own[i]; i++)
			if (ymap_get(r, own[i]))
				return yerr(t, ymap_get(r, own[i]), PLUMB_EINPUT, err,
					    "'%s' belongs in an entry of 'hosts' (or in its box file) when the scenario has 'hosts'",
					    own[i]);
		if ((rc = parse_hosts(t, v, s, err)) < 0)
			return rc;
	} else {
		if ((rc = parse_machine(t, r, s, err)) < 0)
			return rc;
		if ((rc = room_hosts(s, 1, err)) < 0)
			return rc;
		memset(&s->hosts[0], 0, sizeof(s->hosts[0]));
		s->nhosts = 1;
		snprintf(s->hosts[0].name, sizeof(s->hosts[0].name), "%s", "host0");
		s->hosts[0].nnodes = s->nnodes;
		s->hosts[0].ngpus = s->ngpus;
		s->hosts[0].nsockets = s->host.sockets;
		for (j = 0; j < s->nnodes; j++)
			s->hosts[0].nnics += s->nodes[j].kind == SCN_NIC;
		if ((v = ymap_get(r, "network")))
			return yerr(t, v, PLUMB_EINPUT, err,
				    "'network' joins the boxes of 'hosts'; this scenario describes one box");
	}
	if ((v = ymap_get(r, "network")) && (rc = parse_network(t, v, s, err)) < 0)
		return rc;
	if (s->nhosts > 1 && !s->net.given)
		return yerr(t, ymap_get(r, "hosts"), PLUMB_EINPUT, err,
			    "%d hosts need a 'network' (kind, port_gbps) joining their NICs", s->nhosts);
	if ((v = ymap_get(r, "virtualization")) && (rc = parse_vm(t, v, s, err)) < 0)
		return rc;
	if (s->nhosts > 1 && s->vm.mode == SCN_VM)
		return yerr(t, ymap_get(ymap_get(r, "virtualization"), "mode"), PLUMB_EINPUT, err,
			    "a scenario of several hosts runs on bare metal (virtual machines span one box)");
	if (s->vm.mode == SCN_VM && s->ngpus > SCN_MAX_VM_GPUS)
		return yerr(t, ymap_get(ymap_get(r, "virtualization"), "mode"), PLUMB_EINPUT, err,
			    "a virtual machine takes at most %d GPUs, this box has %d",
			    SCN_MAX_VM_GPUS, s->ngpus);
	if ((v = ymap_get(r, "constants")) && (rc = scn_parse_consts(t, v, -1, &s->k, err)) < 0)
		return rc;
	if ((v = ymap_get(r, "nccl")) && (rc = parse_nccl(t, v, s, err)) < 0)
		return rc;
	if ((v = ymap_get(r, "serving")) && (rc = parse_serving(t, v, s, err)) < 0)
		return rc;
	if (s->vm.mode == SCN_VM && s->vm.p2p_exposure == SCN_P2P_CLIQUE) {
		int any = 0;
		for (j = 0; j < s->ngpus; j++)
			any |= s->nodes[s->gpu_node[j]].clique > 0;
		if (!any)
			for (j = 0; j < s->ngpus; j++)
				s->nodes[s->gpu_node[j]].clique = 1;
	}
	return 0;
}

static struct plumb_consts overlay;
static int have_overlay;
static void (*load_hook)(struct scenario *s, void *arg);
static void *load_hook_arg;

void scn_set_overlay(const struct plumb_consts *k)
{
	have_overlay = k != NULL;
	if (k)
		overlay = *k;
}

void scn_set_load_hook(void (*fn)(struct scenario *s, void *arg), void *arg)
{
	load_hook = fn;
	load_hook_arg = arg;
}

/*
 * The GPU catalog's constants for the scenario's GPU model, where the
 * scenario's `constants:` does not set them. Only when every GPU is the
 * same model: a mixed box keeps the global defaults (docs/model.md).
 */
static void catalog_consts(struct scenario *s)
{
	const struct scn_gpu_model *g;
	int i, m;

	if (s->ngpus < 1)
		return;
	m = s->nodes[s->gpu_node[0]].gpu_model;
	for (i = 1; i < s->ngpus; i++)
		if (s->nodes[s->gpu_node[i]].gpu_model != m)
			return;
	if (m < 0)
		return;
	g = &s->catalog->gpus[m];
	for (i = 0; i < K_NCONSTS; i++)
		if (g->k.set[i] && !s->k.set[i]) {
			s->k.v[i] = g->k.v[i];
			s->k_catalog[i] = 1;
		}
}

/* Build a scenario from a parsed tree; takes ownership of t. */
/* Add the GPU models of catalog file path (`catalog: gpus`, `gpus:`) to c. */
static int add_catalog_file(struct scn_catalog *c, const char *path, struct plumb_err *err)
{
	static const char *const cat_keys[] = { "catalog", "gpus", NULL };
	struct ytree *ft = NULL;
	char *text = NULL;
	size_t len;
	int rc;

	if ((rc = input_read(path, &text, &len, err)) < 0)
		return rc;
	rc = ytree_parse(path, text, len, &ft, err);
	free(text);
	if (rc < 0)
		return rc;
	if (!ft->root)
		rc = plumb_err_set(err, PLUMB_EINPUT, path, 1, 1, "empty catalog");
	else if ((rc = yexpect(ft, ft->root, Y_MAP, "catalog", err)) == 0 &&
		 (rc = ymap_check_keys(ft, ft->root, "catalog", cat_keys, err)) == 0) {
		if (!ymap_get(ft->root, "gpus"))
			rc = yerr(ft, ft->root, PLUMB_EINPUT, err, "catalog needs 'gpus'");
		else
			rc = scn_catalog_add(c, ft, ymap_get(ft->root, "gpus"), err);
	}
	ytree_free(ft);
	return rc;
}

/*
 * --gpu-catalog FILE: the built-in catalog plus the file's models, under
 * every scenario of the run (set once from main, read-only afterwards, as
 * the constants overlay is).
 */
static struct scn_catalog *cli_catalog;

int scn_set_gpu_catalog(const char *path, struct plumb_err *err)
{
	const struct scn_catalog *b = scn_catalog_builtin(err);
	struct scn_catalog *c;
	int rc;
	if (!path) {
		free(cli_catalog);
		cli_catalog = NULL;
		return 0;
	}
	if (!b)
		return -PLUMB_ERUNTIME;
	if (!(c = malloc(sizeof(*c))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	*c = *b;
	if ((rc = add_catalog_file(c, path, err)) < 0) {
		free(c);
		return rc;
	}
	free(cli_catalog);
	cli_catalog = c;
	return 0;
}

const struct scn_catalog *scn_catalog_run(struct plumb_err *err)
{
	return cli_catalog ? cli_catalog : scn_catalog_builtin(err);
}

/*
 * GPU models of the scenario's own: `gpu_catalog: FILE` (a catalog as
 * gpus.yaml, relative to the scenario's directory) and inline `gpu_models:`
 * entries, added to a copy of the run's catalog that s owns.
 */
static int user_gpus(const struct ytree *t, const char *file, struct scenario *s,
		     struct plumb_err *err)
{
	const struct ynode *f = t->root ? ymap_get(t->root, "gpu_catalog") : NULL;
	const struct ynode *g = t->root ? ymap_get(t->root, "gpu_models") : NULL;
	char path[1100];
	const char *slash;
	int rc;

	if (!f && !g)
		return 0;
	if (!(s->own_catalog = malloc(sizeof(*s->own_catalog))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	*s->own_catalog = *s->catalog;
	s->catalog = s->own_catalog;
	if (f) {
		if ((rc = yexpect(t, f, Y_SCALAR, "gpu_catalog", err)) < 0)
			return rc;
		slash = strrchr(file, '/');
		if (f->str[0] == '/' || !slash)
			snprintf(path, sizeof(path), "%s", f->str);
		else
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - file), file, f->str);
		if ((rc = add_catalog_file(s->own_catalog, path, err)) < 0)
			return rc;
	}
	return g ? scn_catalog_add(s->own_catalog, t, g, err) : 0;
}

static int from_tree(struct ytree *t, const char *file, struct scenario **out,
		     struct plumb_err *err)
{
	struct scenario *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		ytree_free(t);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	snprintf(s->path, sizeof(s->path), "%s", file);
	set_defaults(s);
	s->catalog = cli_catalog ? cli_catalog : scn_catalog_builtin(err);
	if (!s->catalog) {
		rc = -PLUMB_ERUNTIME;
		goto fail;
	}
	if ((rc = user_gpus(t, file, s, err)) < 0 || (rc = parse_doc(t, s, err)) < 0)
		goto fail;
	catalog_consts(s);
	if (have_overlay) {
		int k;
		for (k = 0; k < K_NCONSTS; k++)
			if (overlay.set[k]) {
				s->k.v[k] = overlay.v[k];
				s->k.set[k] = 1;
				s->k_catalog[k] = 0;
			}
	}
	if (load_hook)
		load_hook(s, load_hook_arg);
	ytree_free(t);
	*out = s;
	return 0;
fail:
	ytree_free(t);
	scn_free(s);
	return rc;
}

int scn_parse(const char *file, const char *text, struct scenario **out,
	      struct plumb_err *err)
{
	struct ytree *t = NULL;
	int rc;

	*out = NULL;
	if ((rc = ytree_parse(file, text, strlen(text), &t, err)) < 0)
		return rc;
	return from_tree(t, file, out, err);
}

int scn_load(const char *path, struct scenario **out, struct plumb_err *err)
{
	struct ytree *t = NULL;
	char where[4096];
	int rc;

	*out = NULL;
	/* a bundled scenario by its name in the source tree, e.g.
	 * scenarios/hgx-8x-h200.yaml, is found in an installed plumb's data */
	path = plumb_data_path(path, where, sizeof(where));
	if ((rc = ytree_load(path, &t, err)) < 0)
		return rc;
	return from_tree(t, path, out, err);
}

void scn_free(struct scenario *s)
{
	if (!s)
		return;
	tables_free(s);
	free(s->own_catalog);
	free(s);
}

/* A copy of n entries of size bytes (NULL for none or out of memory). */
static void *dup_table(const void *p, int n, size_t size)
{
	void *q;
	if (n <= 0 || !(q = malloc((size_t)n * size)))
		return NULL;
	return memcpy(q, p, (size_t)n * size);
}

int scn_dup(const struct scenario *s, struct scenario **out, struct plumb_err *err)
{
	struct scenario *c = malloc(sizeof(*c));

	*out = NULL;
	if (!c)
		return oom(err);
	memcpy(c, s, sizeof(*c));
	c->hosts = dup_table(s->hosts, s->nhosts, sizeof(*s->hosts));
	c->nodes = dup_table(s->nodes, s->nnodes, sizeof(*s->nodes));
	c->gpu_node = dup_table(s->gpu_node, s->ngpus, sizeof(*s->gpu_node));
	c->nvlink = dup_table(s->nvlink, s->nnvlink, sizeof(*s->nvlink));
	c->numa_cpus = dup_table(s->numa_cpus, s->nnuma_cpus, sizeof(*s->numa_cpus));
	c->cap_numa = c->numa_cpus ? s->nnuma_cpus : 0;
	c->cap_hosts = c->hosts ? s->nhosts : 0;
	c->cap_nodes = c->nodes ? s->nnodes : 0;
	c->cap_gpus = c->gpu_node ? s->ngpus : 0;
	c->cap_nvlink = c->nvlink ? s->nnvlink : 0;
	c->own_catalog = NULL;
	if (s->own_catalog) {
		if ((c->own_catalog = malloc(sizeof(*c->own_catalog))))
			*c->own_catalog = *s->own_catalog;
		c->catalog = c->own_catalog;
	}
	if ((s->nhosts > 0 && !c->hosts) || (s->nnodes > 0 && !c->nodes) ||
	    (s->ngpus > 0 && !c->gpu_node) || (s->nnvlink > 0 && !c->nvlink) ||
	    (s->nnuma_cpus > 0 && !c->numa_cpus) ||
	    (s->own_catalog && !c->own_catalog)) {
		scn_free(c);
		return oom(err);
	}
	*out = c;
	return 0;
}

int scn_same_tables(const struct scenario *a, const struct scenario *b)
{
	return a->nhosts == b->nhosts && a->nnodes == b->nnodes && a->ngpus == b->ngpus &&
	       a->nnvlink == b->nnvlink && a->nnuma_cpus == b->nnuma_cpus &&
	       (!a->nhosts || !memcmp(a->hosts, b->hosts, (size_t)a->nhosts * sizeof(*a->hosts))) &&
	       (!a->nnodes || !memcmp(a->nodes, b->nodes, (size_t)a->nnodes * sizeof(*a->nodes))) &&
	       (!a->ngpus || !memcmp(a->gpu_node, b->gpu_node, (size_t)a->ngpus * sizeof(*a->gpu_node))) &&
	       (!a->nnvlink || !memcmp(a->nvlink, b->nvlink, (size_t)a->nnvlink * sizeof(*a->nvlink))) &&
	       (!a->nnuma_cpus ||
		!memcmp(a->numa_cpus, b->numa_cpus, (size_t)a->nnuma_cpus * sizeof(*a->numa_cpus)));
}

int scn_gpu_list_parse(const char *s, int *out, int max)
{
	int n = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0 || a >= max)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= max)
				return -1;
			p = end;
		}
		for (; a <= b; a++) {
			int k;
			if (n >= max)
				return -1;
			for (k = 0; k < n; k++)
				if (out[k] == (int)a)
					return -1;   /* a GPU listed twice */
			out[n++] = (int)a;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return n;
}
