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
#include "scn_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "input.h"
#include "ytree.h"

const char *const scn_top_keys[] = {
	"plumb_scenario", "name", "description", "seed", "event_budget", "source", "host",
	"pcie", "nvlink", "xgmi", "virtualization", "constants", "nccl", "serving", "gpu_catalog",
	"gpu_models", "hosts", "network", "cost", NULL
};

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

int scn_oom(struct plumb_err *err)
{
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
}

/* Room for need entries in a table of s: 0, or -PLUMB_ERUNTIME. */
int scn_room_nodes(struct scenario *s, int need, struct plumb_err *err)
{
	struct scn_node *q;
	if (need <= s->cap_nodes)
		return 0;
	if (!(q = grow(s->nodes, &s->cap_nodes, need, sizeof(*q))))
		return scn_oom(err);
	s->nodes = q;
	return 0;
}

int scn_room_gpus(struct scenario *s, int need, struct plumb_err *err)
{
	int *q;
	if (need <= s->cap_gpus)
		return 0;
	if (!(q = grow(s->gpu_node, &s->cap_gpus, need, sizeof(*q))))
		return scn_oom(err);
	s->gpu_node = q;
	return 0;
}

int scn_room_nvlink(struct scenario *s, int need, struct plumb_err *err)
{
	struct scn_nvlink *q;
	if (need <= s->cap_nvlink)
		return 0;
	if (!(q = grow(s->nvlink, &s->cap_nvlink, need, sizeof(*q))))
		return scn_oom(err);
	s->nvlink = q;
	return 0;
}

/* Room for need NUMA nodes' CPU lists, the new ones "" and counted. */
int scn_room_numa(struct scenario *s, int need, struct plumb_err *err)
{
	char (*q)[128];
	if (need > s->cap_numa) {
		if (!(q = grow(s->numa_cpus, &s->cap_numa, need, sizeof(*q))))
			return scn_oom(err);
		s->numa_cpus = q;
	}
	if (need > s->nnuma_cpus) {
		memset(s->numa_cpus[s->nnuma_cpus], 0,
		       (size_t)(need - s->nnuma_cpus) * sizeof(s->numa_cpus[0]));
		s->nnuma_cpus = need;
	}
	return 0;
}

int scn_room_hosts(struct scenario *s, int need, struct plumb_err *err)
{
	struct scn_box *q;
	if (need <= s->cap_hosts)
		return 0;
	if (!(q = grow(s->hosts, &s->cap_hosts, need, sizeof(*q))))
		return scn_oom(err);
	s->hosts = q;
	return 0;
}

/* The tables of s freed, and their counts zero. */
void scn_tables_free(struct scenario *s)
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
int scn_opt_int(const struct ytree *t, const struct ynode *m, const char *key,
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

int scn_opt_str(const struct ytree *t, const struct ynode *m, const char *key,
		char *buf, size_t n, struct plumb_err *err)
{
	struct ynode *v = ymap_get(m, key);
	return v ? yget_str(t, v, key, buf, n, err) : 0;
}

int scn_opt_enum(const struct ytree *t, const struct ynode *m, const char *key,
		 const char *what, const char *const *names, int *out,
		 struct plumb_err *err)
{
	struct ynode *v = ymap_get(m, key);
	return v ? yget_enum(t, v, what, names, out, err) : 0;
}

int scn_check_id(const struct ytree *t, const struct ynode *v, const char *id,
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

void scn_set_defaults(struct scenario *s)
{
	int i;
	s->serving.cuda_graphs = 1;
	s->serving.prefill_graphs = -1;
	for (i = 0; i < (int)(sizeof(s->serving.src_row) / sizeof(s->serving.src_row[0])); i++)
		s->serving.src_row[i] = -1;
	s->nccl_level = -1;
	s->nccl_gdr_level = -1;
	consts_defaults(&s->k);
	s->k_model = -1;
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
	    (rc = ymap_check_keys(t, r, "scenario", scn_top_keys, err)) < 0)
		return rc;
	if (!(v = ymap_get(r, "plumb_scenario")))
		return yerr(t, r, PLUMB_EINPUT, err,
			    "missing 'plumb_scenario: 1' (the scenario format version)");
	if ((rc = yget_int(t, v, "plumb_scenario", 0, 1000000, &l, err)) < 0)
		return rc;
	if (l != 1)
		return yerr(t, v, PLUMB_EINPUT, err,
			    "unsupported scenario format version %ld (this plumb reads 'plumb_scenario: 1')", l);
	if ((rc = scn_opt_str(t, r, "name", s->name, sizeof(s->name), err)) < 0 ||
	    (rc = scn_opt_str(t, r, "description", s->description, sizeof(s->description), err)) < 0)
		return rc;
	/* every command prints them to a terminal: control characters, DEL and
	 * bytes that are not UTF-8 become '?' (as in error messages) */
	plumb_str_clean(s->name, sizeof(s->name));
	plumb_str_clean(s->description, sizeof(s->description));
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
		static const char *const own[] = { "host", "pcie", "nvlink", "xgmi", NULL };
		for (i = 0; own[i]; i++)
			if (ymap_get(r, own[i]))
				return yerr(t, ymap_get(r, own[i]), PLUMB_EINPUT, err,
					    "'%s' belongs in an entry of 'hosts' (or in its box file) when the scenario has 'hosts'",
					    own[i]);
		if ((rc = scn_parse_hosts(t, v, s, err)) < 0)
			return rc;
	} else {
		if ((rc = scn_parse_machine(t, r, s, err)) < 0)
			return rc;
		if ((rc = scn_room_hosts(s, 1, err)) < 0)
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
	if ((v = ymap_get(r, "network")) && (rc = scn_parse_network(t, v, s, err)) < 0)
		return rc;
	if (s->nhosts > 1 && !s->net.given)
		return yerr(t, ymap_get(r, "hosts"), PLUMB_EINPUT, err,
			    "%d hosts need a 'network' (kind, port_gbps) joining their NICs", s->nhosts);
	if ((v = ymap_get(r, "virtualization")) && (rc = scn_parse_vm(t, v, s, err)) < 0)
		return rc;
	if (s->nhosts > 1 && s->vm.mode == SCN_VM)
		return yerr(t, ymap_get(ymap_get(r, "virtualization"), "mode"), PLUMB_EINPUT, err,
			    "a scenario of several hosts runs on bare metal (virtual machines span one box)");
	if (s->vm.mode == SCN_VM && s->ngpus > SCN_MAX_VM_GPUS)
		return yerr(t, ymap_get(ymap_get(r, "virtualization"), "mode"), PLUMB_EINPUT, err,
			    "a virtual machine takes at most %d GPUs, this box has %d",
			    SCN_MAX_VM_GPUS, s->ngpus);
	if ((v = ymap_get(r, "constants"))) {
		if ((rc = scn_parse_consts(t, v, -1, &s->k, err)) < 0)
			return rc;
		for (j = 0; j < (int)v->n; j++) {
			int c = consts_find(v->keys[j]->str);
			s->k_line[c] = v->keys[j]->line;
			s->k_col[c] = v->keys[j]->col;
		}
	}
	if ((v = ymap_get(r, "nccl")) && (rc = scn_parse_nccl(t, v, s, err)) < 0)
		return rc;
	if ((v = ymap_get(r, "serving")) && (rc = scn_parse_serving(t, v, s, err)) < 0)
		return rc;
	if ((v = ymap_get(r, "cost")) && (rc = scn_parse_cost(t, v, s, err)) < 0)
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
 * same model: a mixed box keeps the global defaults (docs/model-constants.md).
 */
static void catalog_consts(struct scenario *s)
{
	const struct scn_gpu_model *g;
	int i, m;

	s->k_model = -1;
	if (s->ngpus < 1)
		return;
	m = s->nodes[s->gpu_node[0]].gpu_model;
	for (i = 1; i < s->ngpus; i++)
		if (s->nodes[s->gpu_node[i]].gpu_model != m)
			return;
	if (m < 0)
		return;
	s->k_model = m;
	g = &s->catalog->gpus[m];
	for (i = 0; i < K_NCONSTS; i++)
		if (g->k.set[i] && !s->k.set[i]) {
			s->k.v[i] = g->k.v[i];
			s->k_catalog[i] = 1;
		}
	/* what the interval draws take for a value the scenario leaves open:
	 * a measured one its measurement's spread, an assumed one its range */
	for (i = 0; i < g->nksrc; i++)
		if (!s->k.set[g->ksrc[i].k]) {
			s->k.dlo[g->ksrc[i].k] = g->ksrc[i].lo;
			s->k.dhi[g->ksrc[i].k] = g->ksrc[i].hi;
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
	char *path;
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
		if (!(path = input_path_beside(file, f->str)))   /* whole, never cut */
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		rc = add_catalog_file(s->own_catalog, path, err);
		free(path);
		if (rc < 0)
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
	if (!(s->path = plumb_keep_path(file))) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	scn_set_defaults(s);
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
				s->k_line[k] = s->k_col[k] = 0;
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
	scn_tables_free(s);
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
		return scn_oom(err);
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
		return scn_oom(err);
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
