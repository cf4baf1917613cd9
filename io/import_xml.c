/*
 * import_xml.c - the two XML descriptions of a box: hwloc's topology
 * (`lstopo --of xml`, format versions 2 and 3) and NCCL's own topology
 * dump (NCCL_TOPO_DUMP_FILE, also the NCCL_TOPO_FILE format cloud vendors
 * ship). libxml2 parses; this file walks the tree into struct imp_scn.
 *
 * hwloc: a Package is a socket (NUMANode objects below it give
 * numa_per_socket); a host Bridge (bridge_type "0-1") is a root complex of
 * the socket it sits under; a bridge right below it is a root port; below
 * a root port, PCIe switches show as an upstream-port bridge whose children
 * are downstream-port bridges, so bridges alternate upstream/downstream and
 * one switch node is made per upstream port. PCIDev class 03xx of NVIDIA
 * (10de) or AMD (1002) is a GPU, class 02xx a NIC (one per function: each
 * port of a dual-port card). NVLink comes from the NVLinkBandwidth distance
 * matrix: bandwidth towards NVSwitch objects makes an NVSwitch fabric
 * (links per GPU = the switches it reaches, counted in units of the
 * smallest non-zero bandwidth), GPU-to-GPU bandwidth makes direct pairs.
 *
 * NCCL: each <cpu numaid=...> is one NUMA node (NCCL does not say which
 * NUMA nodes share a socket: each becomes a socket, said in a note). NCCL
 * writes one <pci> per switch (the kernel's upstream and downstream ports
 * folded) and leaves out root ports, so each bridge is a switch and each
 * child of a <cpu> gets a root port. <gpu><nvlink target= count=> gives
 * links; a target that is not a GPU (class 0x068000, an NVSwitch) makes
 * the NVSwitch fabric. <nic><net> below a PCI function marks it a NIC.
 *
 * GPU models: the PCI id "[vendor:device]" through the catalog's pci_ids,
 * then hwloc's GPUModel name, then --gpu-model; a GPU none of these names
 * is an error naming the closest catalog entries.
 */
#include "import.h"
#include "import_int.h"
#include "scn.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XW_MAX_GPU IMP_MAX_GPUS
#define XW_MAX_SW 64            /* NVSwitch objects of one box */
#define XW_MAX_KEY (8 * XW_MAX_GPU)
#define XW_MAX_PKG IMP_MAX_NUMA     /* sockets */
#define XW_MAX_NPS IMP_MAX_NUMA     /* NUMA nodes per socket */
#define XW_SET_WORDS 32             /* cpuset words kept: 1,024 CPUs */

struct xw {
	const struct imp_opts *o;
	struct imp_scn *s;
	struct plumb_err *err;
	int ngpu, nsw;
	int gpu_node[XW_MAX_GPU];       /* imp node of each GPU */
	int nkey;                       /* names a GPU goes by in NVLink data: */
	char key[XW_MAX_KEY][40];       /* hwloc "OSDev:802", "PCIDev:581"; NCCL busid */
	int key_gpu[XW_MAX_KEY];        /* the GPU index each key names */
	char sw_key[XW_MAX_SW][40];
	int gpu_cat[XW_MAX_GPU];        /* catalog entry the file's id or name gives, -1 */
	char gpu_name[XW_MAX_GPU][96];  /* hwloc's GPUModel, "" */
	int nic;                        /* NICs seen */
	int order;                      /* endpoint order (document order) */
	int noted_fn;                   /* the multi-function note is written */
	int npkg;                       /* hwloc Packages, document order */
	uint32_t pkg_set[XW_MAX_PKG][XW_SET_WORDS];    /* their cpusets */
	int pkg_nnuma[XW_MAX_PKG];
	uint32_t numa_set[XW_MAX_PKG][XW_MAX_NPS][XW_SET_WORDS];
	int noted_group;                /* the several-packages note is written */
};

static const char *attr(xmlNode *n, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	snprintf(buf, len, "%s", (const char *)v);
	xmlFree(v);
	return buf;
}

static int is_el(xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static int fail_at(struct xw *w, xmlNode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An input error at element n (its line; column 1): returns -PLUMB_EINPUT. */
static int fail_at(struct xw *w, xmlNode *n, const char *fmt, ...)
{
	char msg[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return plumb_err_set(w->err, PLUMB_EINPUT, w->o->src, n ? (int)xmlGetLineNo(n) : 0,
			     n ? 1 : 0, "%s", msg);
}

/*
 * Whether a PCI function of class cls (class and subclass, 0x0302) and
 * vendor ven is a GPU: NVIDIA's VGA (0300) and 3D (0302) controllers; AMD's
 * 3D controllers, display "other" (0380) and processing accelerators
 * (1200, Instinct), not its VGA parts (server BMC graphics such as the
 * ES1000); a 3D controller of a file that gives no vendor.
 */
static int is_gpu_class(unsigned cls, unsigned ven)
{
	if (ven == 0x10de)
		return cls == 0x0300 || cls == 0x0302;
	if (ven == 0x1002)
		return cls == 0x0302 || cls == 0x0380 || cls == 0x1200;
	return ven == 0 && cls == 0x0302;
}

/* PCIe generation from a transfer rate in GT/s (2.5, 5, 8, 16, 32, 64). */
static int gen_of_gts(double gts)
{
	static const double r[] = { 2.5, 5, 8, 16, 32, 64 };
	int i;
	for (i = 0; i < 6; i++)
		if (gts > r[i] * 0.9 && gts < r[i] * 1.1)
			return i + 1;
	return 0;
}

/*
 * A GPU endpoint under parent: model from the PCI id, then the name, then
 * --gpu-model. Returns the node index or a negative plumb_rc.
 */
static int add_gpu(struct xw *w, xmlNode *n, int parent, unsigned ven, unsigned dev,
		   const char *name, const char *bdf)
{
	char id[32], msg[600];
	int k = -1, nd;

	if (w->ngpu >= XW_MAX_GPU)
		return fail_at(w, n, "more than %d GPUs in one box", XW_MAX_GPU);
	snprintf(id, sizeof(id), "[%04x:%04x]", ven, dev);
	if (ven)
		k = imp_gpu_lookup(w->o->catalog, id);
	if (k < 0 && name && name[0])
		k = imp_gpu_lookup(w->o->catalog, name);
	if ((nd = imp_add_node(w->s, IMP_GPU, parent, w->o->src, w->err)) < 0)
		return -PLUMB_EINPUT;
	w->gpu_cat[w->ngpu] = k;
	snprintf(w->gpu_name[w->ngpu], sizeof(w->gpu_name[0]), "%s", name ? name : "");
	if (k >= 0)
		snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model), "%s",
			 w->o->catalog->gpus[k].id);
	else if (w->o->gpu_model)
		snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model), "%s",
			 w->o->gpu_model);
	else if (!ven && !(name && name[0]))
		return fail_at(w, n, "GPU %s: the file gives no PCI vendor/device id or name; "
			       "give --gpu-model ID", bdf);
	else {
		char what[200];
		snprintf(what, sizeof(what), "%s%s%s", name && name[0] ? name : "",
			 name && name[0] ? " " : "", id);
		imp_gpu_unknown(w->o->catalog, what, msg, sizeof(msg));
		return fail_at(w, n, "%s", msg);
	}
	snprintf(w->s->nodes[nd].bdf, sizeof(w->s->nodes[nd].bdf), "%s", bdf);
	if (name && name[0])
		snprintf(w->s->nodes[nd].comment, sizeof(w->s->nodes[nd].comment), "%s %s",
			 bdf, name);
	else
		snprintf(w->s->nodes[nd].comment, sizeof(w->s->nodes[nd].comment), "%s %s",
			 bdf, id);
	w->s->nodes[nd].order = w->order++;
	w->gpu_node[w->ngpu] = nd;
	return nd;
}

static int add_nic(struct xw *w, int parent, const char *model, const char *bdf)
{
	int nd = imp_add_node(w->s, IMP_NIC, parent, w->o->src, w->err);
	if (nd < 0)
		return -PLUMB_EINPUT;
	snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model), "%s", model);
	snprintf(w->s->nodes[nd].bdf, sizeof(w->s->nodes[nd].bdf), "%s", bdf);
	w->s->nodes[nd].order = 1000 + w->nic++;
	return nd;
}

/*
 * Drop bridges, switches and root complexes with no GPU or NIC below them
 * (the scenario loader refuses an empty switch), keeping node order;
 * w->gpu_node follows the new indices.
 */
static void prune(struct xw *w)
{
	struct imp_scn *s = w->s;
	int map[IMP_MAX_NODES], keep[IMP_MAX_NODES] = { 0 }, i, j, n = 0;

	for (i = 0; i < s->n; i++)
		if (s->nodes[i].kind == IMP_GPU || s->nodes[i].kind == IMP_NIC)
			for (j = i; j >= 0 && !keep[j]; j = s->nodes[j].parent)
				keep[j] = 1;
	for (i = 0; i < s->n; i++) {
		map[i] = keep[i] ? n : -1;
		if (!keep[i])
			continue;
		s->nodes[n] = s->nodes[i];
		if (s->nodes[n].parent >= 0)
			s->nodes[n].parent = map[s->nodes[n].parent];
		n++;
	}
	s->n = n;
	for (i = 0; i < w->ngpu; i++)
		w->gpu_node[i] = map[w->gpu_node[i]];
}

/* ---- hwloc ---- */

static const char *info(xmlNode *n, const char *name, char *buf, size_t len)
{
	xmlNode *c;
	char nm[64];
	for (c = n->children; c; c = c->next)
		if (is_el(c, "info") && attr(c, "name", nm, sizeof(nm)) && strcmp(nm, name) == 0)
			return attr(c, "value", buf, len);
	return NULL;
}

/* Record key as a name of GPU g (dropped past XW_MAX_KEY: no NVLink data
 * names a GPU by more than its handful of OS devices). */
static void add_key(struct xw *w, int g, const char *key)
{
	if (w->nkey < XW_MAX_KEY) {
		snprintf(w->key[w->nkey], sizeof(w->key[0]), "%s", key);
		w->key_gpu[w->nkey++] = g;
	}
}

/*
 * The GPU model the OS devices below a PCIDev name (the first GPUModel
 * info), and every OS device recorded as a name of GPU g: hwloc's
 * distance matrices name a GPU by any one of them (nvml0, cuda0, ...).
 */
static void hw_osdev(struct xw *w, xmlNode *n, int g, char *model, size_t mlen)
{
	xmlNode *c;
	char t[32], gp[16], key[40];
	model[0] = 0;
	for (c = n->children; c; c = c->next) {
		if (!is_el(c, "object") || !attr(c, "type", t, sizeof(t)) || strcmp(t, "OSDev"))
			continue;
		if (!model[0])
			info(c, "GPUModel", model, mlen);
		if (attr(c, "gp_index", gp, sizeof(gp))) {
			snprintf(key, sizeof(key), "OSDev:%s", gp);
			add_key(w, g, key);
		}
	}
}

/*
 * hwloc's bitmap text ("0x000000ff,0xffffffff", most significant 32-bit word
 * first, an empty word is 0) into set, least significant word first; words
 * past XW_SET_WORDS are dropped.
 */
static void hw_bitmap(const char *t, uint32_t *set)
{
	const char *w[XW_SET_WORDS * 4];
	int n = 0, i;
	memset(set, 0, XW_SET_WORDS * sizeof(uint32_t));
	if (!t)
		return;
	w[n++] = t;
	for (; *t && n < XW_SET_WORDS * 4; t++)
		if (*t == ',')
			w[n++] = t + 1;
	for (i = 0; i < n && i < XW_SET_WORDS; i++)
		set[i] = (uint32_t)strtoul(w[n - 1 - i], NULL, 16);
}

static int hw_meets(const uint32_t *a, const uint32_t *b)
{
	int i;
	for (i = 0; i < XW_SET_WORDS; i++)
		if (a[i] & b[i])
			return 1;
	return 0;
}

/* Collect the Packages below n and the NUMA nodes inside each (document order). */
static void hw_packages(struct xw *w, xmlNode *n, int pkg)
{
	xmlNode *c;
	char t[32], set[1024];
	for (c = n->children; c; c = c->next) {
		int p = pkg;
		if (!is_el(c, "object") || !attr(c, "type", t, sizeof(t)))
			continue;
		if (strcmp(t, "Package") == 0 && w->npkg < XW_MAX_PKG) {
			p = w->npkg++;
			hw_bitmap(attr(c, "cpuset", set, sizeof(set)), w->pkg_set[p]);
		} else if (strcmp(t, "NUMANode") == 0 && pkg >= 0 &&
			   w->pkg_nnuma[pkg] < XW_MAX_NPS) {
			hw_bitmap(attr(c, "cpuset", set, sizeof(set)),
				  w->numa_set[pkg][w->pkg_nnuma[pkg]++]);
		}
		hw_packages(w, c, p);
	}
}

/*
 * The socket and NUMA node (-1: the socket's first) of a root complex whose
 * host bridge hangs below element n: the first Package, and NUMA node in it,
 * whose CPUs meet those of n's nearest ancestor with a cpuset (hwloc attaches
 * I/O to the object its locality is). A locality spanning several packages
 * (a Group) takes the first, with a note.
 */
static void hw_locality(struct xw *w, xmlNode *n, int *socket, int *numa)
{
	uint32_t loc[XW_SET_WORDS];
	char set[1024];
	xmlNode *a;
	int p, k, hits = 0;
	*socket = 0;
	*numa = -1;
	for (a = n; a && a->type == XML_ELEMENT_NODE; a = a->parent)
		if (is_el(a, "object") && attr(a, "cpuset", set, sizeof(set)))
			break;
	if (!a || a->type != XML_ELEMENT_NODE || !w->npkg)
		return;
	hw_bitmap(set, loc);
	for (p = w->npkg - 1; p >= 0; p--)
		if (hw_meets(loc, w->pkg_set[p])) {
			*socket = p;
			hits++;
		}
	if (hits > 1 && !w->noted_group++)
		imp_note(w->s, "a host bridge local to %d packages (an hwloc Group) is written "
			 "on the first of them", hits);
	for (k = w->pkg_nnuma[*socket] - 1; k >= 0; k--)
		if (hw_meets(loc, w->numa_set[*socket][k]))
			*numa = k;
}

/* The GPU and NIC functions among the objects directly below n. */
static int hw_endpoints(xmlNode *n, char *first, size_t len)
{
	xmlNode *c;
	char t[32], pt[64];
	unsigned cls, ven, dev;
	int k = 0;
	for (c = n->children; c; c = c->next)
		if (is_el(c, "object") && attr(c, "type", t, sizeof(t)) && strcmp(t, "PCIDev") == 0 &&
		    attr(c, "pci_type", pt, sizeof(pt)) &&
		    sscanf(pt, "%4x [%4x:%4x]", &cls, &ven, &dev) == 3 &&
		    (is_gpu_class(cls, ven) || (cls >> 8) == 0x02) && k++ == 0)
			snprintf(first, len, "%04x:%04x", ven, dev);
	return k;
}

static int hw_walk(struct xw *w, xmlNode *n, int socket, int numa, int parent, int pkind);

/* pkind: what parent is: 0 none, 1 root complex, 2 root port,
 * 3 switch (upstream port seen, children are downstream ports), 4 downstream port */
static int hw_object(struct xw *w, xmlNode *n, int socket, int numa, int parent, int pkind)
{
	char type[32], bt[16], pt[64], busid[40], model[96], key[40], gp[16];
	unsigned cls = 0, ven = 0, dev = 0;
	int nd = parent, kind = pkind, rc;

	if (!attr(n, "type", type, sizeof(type)))
		return fail_at(w, n, "hwloc object without a type");
	if (strcmp(type, "Bridge") == 0) {
		attr(n, "bridge_type", bt, sizeof(bt));
		if (strncmp(bt, "0-", 2) == 0 || pkind == 0) {
			if ((nd = imp_add_node(w->s, IMP_RC, -1, w->o->src, w->err)) < 0)
				return -PLUMB_EINPUT;
			hw_locality(w, n->parent, &socket, &numa);
			w->s->nodes[nd].socket = socket;
			w->s->nodes[nd].numa = numa;
			kind = 1;
		} else if (pkind == 1) {
			char id[16];
			if ((nd = imp_add_node(w->s, IMP_RP, parent, w->o->src, w->err)) < 0)
				return -PLUMB_EINPUT;
			kind = 2;
			if (hw_endpoints(n, id, sizeof(id)) > 1) {
				/* the functions of one card in the slot (the ports of a
				 * dual-port NIC): a root port holds one link in a scenario,
				 * so a switch entry stands for the card and its functions
				 * share the link below it, as they do on the box */
				if ((nd = imp_add_node(w->s, IMP_SW, nd, w->o->src, w->err)) < 0)
					return -PLUMB_EINPUT;
				snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model),
					 "functions of one card [%s], not a switch", id);
				if (!w->noted_fn++)
					imp_note(w->s, "a card with several functions in one slot "
						 "is written as a switch entry holding them");
				kind = 3;
			}
		} else if (pkind == 2 || pkind == 4) {
			if ((nd = imp_add_node(w->s, IMP_SW, parent, w->o->src, w->err)) < 0)
				return -PLUMB_EINPUT;
			if (attr(n, "pci_type", pt, sizeof(pt)) && strchr(pt, '['))
				snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model),
					 "PCIe switch %.11s", strchr(pt, '['));
			kind = 3;
		} else {
			kind = 4;       /* a downstream port of the switch above */
		}
		return hw_walk(w, n, socket, numa, nd, kind);
	}
	if (strcmp(type, "PCIDev") == 0) {
		if (!attr(n, "pci_busid", busid, sizeof(busid)) || !attr(n, "pci_type", pt, sizeof(pt)) ||
		    sscanf(pt, "%4x [%4x:%4x]", &cls, &ven, &dev) != 3)
			return fail_at(w, n, "PCIDev without pci_busid or a pci_type "
				       "\"CLASS [VENDOR:DEVICE] ...\"");
		if (pkind == 0 || pkind == 1) {
			/* an endpoint on the host bus or with no bridge: give it a root port */
			int rcn = parent;
			if (pkind == 0) {
				if ((rcn = imp_add_node(w->s, IMP_RC, -1, w->o->src, w->err)) < 0)
					return -PLUMB_EINPUT;
				hw_locality(w, n->parent, &socket, &numa);
				w->s->nodes[rcn].socket = socket;
				w->s->nodes[rcn].numa = numa;
			}
			if ((parent = imp_add_node(w->s, IMP_RP, rcn, w->o->src, w->err)) < 0)
				return -PLUMB_EINPUT;
		}
		if (is_gpu_class(cls, ven)) {
			hw_osdev(w, n, w->ngpu, model, sizeof(model));
			if ((rc = add_gpu(w, n, parent, ven, dev, model, busid)) < 0)
				return rc;
			if (attr(n, "gp_index", gp, sizeof(gp))) {
				snprintf(key, sizeof(key), "PCIDev:%s", gp);
				add_key(w, w->ngpu, key);
			}
			w->ngpu++;
		} else if ((cls >> 8) == 0x02) {
			char nm[96];
			snprintf(nm, sizeof(nm), "NIC [%04x:%04x]", ven, dev);
			if ((rc = add_nic(w, parent, nm, busid)) < 0)
				return rc;
		} else if ((cls == 0x0680 && ven == 0x10de) ||
			   (attr(n, "subtype", gp, sizeof(gp)) && strcmp(gp, "NVSwitch") == 0)) {
			if (w->nsw < XW_MAX_SW && attr(n, "gp_index", gp, sizeof(gp)))
				snprintf(w->sw_key[w->nsw++], sizeof(w->sw_key[0]), "PCIDev:%s", gp);
		}
		return 0;
	}
	if (strcmp(type, "NVSwitch") == 0) {
		if (w->nsw < XW_MAX_SW && attr(n, "gp_index", gp, sizeof(gp)))
			snprintf(w->sw_key[w->nsw++], sizeof(w->sw_key[0]), "NVSwitch:%s", gp);
		return 0;
	}
	if (strcmp(type, "Package") == 0) {
		if (!w->s->cpu_model[0])
			info(n, "CPUModel", w->s->cpu_model, sizeof(w->s->cpu_model));
		if (info(n, "CPUVendor", model, sizeof(model)))
			w->s->cpu_vendor = strstr(model, "AMD") ? IMP_CPU_AMD
					 : strstr(model, "Intel") ? IMP_CPU_INTEL : IMP_CPU_OTHER;
	}
	return hw_walk(w, n, socket, numa, parent, pkind);
}

static int hw_walk(struct xw *w, xmlNode *n, int socket, int numa, int parent, int pkind)
{
	xmlNode *c;
	int rc;
	for (c = n->children; c; c = c->next)
		if (is_el(c, "object") && (rc = hw_object(w, c, socket, numa, parent, pkind)) < 0)
			return rc;
	return 0;
}

/* Index of the GPU that key names, or -1. */
static int gpu_of_key(const struct xw *w, const char *key)
{
	int i;
	for (i = 0; i < w->nkey; i++)
		if (strcmp(w->key[i], key) == 0)
			return w->key_gpu[i];
	return -1;
}

static int sw_of_key(const struct xw *w, const char *key)
{
	int i;
	for (i = 0; i < w->nsw; i++)
		if (strcmp(w->sw_key[i], key) == 0)
			return i;
	return -1;
}

/* Read whitespace-separated tokens of the <tag> children of d into out. */
static int hw_tokens(xmlNode *d, const char *tag, char (*out)[40], int max)
{
	xmlNode *c;
	int k = 0;
	for (c = d->children; c; c = c->next) {
		xmlChar *t;
		char *p, *save = NULL;
		if (!is_el(c, tag) || !(t = xmlNodeGetContent(c)))
			continue;
		for (p = strtok_r((char *)t, " \t\n", &save); p && k < max;
		     p = strtok_r(NULL, " \t\n", &save))
			snprintf(out[k++], 40, "%s", p);
		xmlFree(t);
	}
	return k;
}

/*
 * MB/s of one NVLink in hwloc's NVLinkBandwidth values: hwloc adds, per
 * link, 20000 for NVLink 1 (P100), 25000 for NVLink 2 to 4 (V100 to H100)
 * and 50000 for NVLink 5 (hwloc/topology-nvml.c). The version is not in the
 * file: the catalog's nvlink_gbs_per_link of the first GPU when the file's
 * id or name resolves, else P100 by name, else 25000.
 */
static double hw_link_mbs(const struct xw *w)
{
	if (w->ngpu > 0 && w->gpu_cat[0] >= 0 &&
	    w->o->catalog->gpus[w->gpu_cat[0]].nvlink_gbs_per_link > 0)
		return w->o->catalog->gpus[w->gpu_cat[0]].nvlink_gbs_per_link * 1000.0;
	if (w->ngpu > 0 && imp_has(w->gpu_name[0], "P100"))
		return 20000.0;
	return 25000.0;
}

static int hw_nvlink(struct xw *w, xmlNode *root)
{
	xmlNode *d;
	char nm[64];
	for (d = root->children; d; d = d->next) {
		int nb, ni, nv, i, j, first = -1;
		char (*idx)[40], (*val)[40];
		double unit = 0;
		if (!(is_el(d, "distances2hetero") || is_el(d, "distances2")) ||
		    !attr(d, "name", nm, sizeof(nm)) || strcmp(nm, "NVLinkBandwidth"))
			continue;
		if (!attr(d, "nbobjs", nm, sizeof(nm)) || (nb = atoi(nm)) <= 0 || nb > 256)
			return fail_at(w, d, "NVLinkBandwidth without a valid nbobjs");
		idx = calloc((size_t)nb, 40);
		val = calloc((size_t)nb * (size_t)nb, 40);
		if (!idx || !val) {
			free(idx);
			free(val);
			return plumb_err_set(w->err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		ni = hw_tokens(d, "indexes", idx, nb);
		nv = hw_tokens(d, "u64values", val, nb * nb);
		if (ni != nb || nv != nb * nb) {
			free(idx);
			free(val);
			return fail_at(w, d, "NVLinkBandwidth matrix is not nbobjs x nbobjs");
		}
		unit = hw_link_mbs(w);
		for (i = 0; i < nb; i++) {
			int gi = gpu_of_key(w, idx[i]), links = 0, pairs_here = 0;
			if (gi < 0)
				continue;
			for (j = 0; j < nb; j++) {
				double v = atof(val[i * nb + j]);
				int gj = gpu_of_key(w, idx[j]);
				if (v <= 0 || i == j)
					continue;
				if (sw_of_key(w, idx[j]) >= 0 ||
				    strncmp(idx[j], "NVSwitch:", 9) == 0) {
					links += (int)(v / unit + 0.5);
				} else if (gj > gi && w->s->npairs < IMP_MAX_PAIRS) {
					w->s->pairs[w->s->npairs].a = w->gpu_node[gi];
					w->s->pairs[w->s->npairs].b = w->gpu_node[gj];
					w->s->pairs[w->s->npairs].links = (int)(v / unit + 0.5);
					w->s->npairs++;
					pairs_here++;
				}
			}
			if (links > 0 && first < 0)
				first = links;
		}
		if (first > 0) {
			w->s->nvswitch = 1;
			w->s->links_per_gpu = first;
			w->s->npairs = 0;
		}
		imp_note(w->s, "NVLink from hwloc's NVLinkBandwidth matrix (%.0f MB/s per link)",
			 unit);
		free(idx);
		free(val);
	}
	return 0;
}

static int parse_hwloc(struct xw *w, xmlNode *root)
{
	int rc, i, p, nps;

	hw_packages(w, root, -1);
	if ((rc = hw_walk(w, root, 0, -1, -1, 0)) < 0)
		return rc;
	w->s->sockets = w->npkg ? w->npkg : 1;
	/* NUMA nodes per socket, when every package has the same number */
	nps = w->npkg ? w->pkg_nnuma[0] : 1;
	for (p = 1; p < w->npkg; p++)
		if (w->pkg_nnuma[p] != nps)
			nps = 0;
	if (nps > 1 && w->npkg * nps <= IMP_MAX_NUMA) {
		w->s->numa_per_socket = nps;
		for (i = 0; i < w->s->n; i++)
			if (w->s->nodes[i].kind == IMP_RC)
				w->s->nodes[i].numa = w->s->nodes[i].socket * nps +
						      (w->s->nodes[i].numa > 0 ? w->s->nodes[i].numa : 0);
	} else {
		if (nps != 1 && w->npkg)
			imp_note(w->s, "packages hold different numbers of NUMA nodes (or more "
				 "than %d in all): one NUMA node per socket is written", IMP_MAX_NUMA);
		w->s->numa_per_socket = 1;
		for (i = 0; i < w->s->n; i++)
			if (w->s->nodes[i].kind == IMP_RC)
				w->s->nodes[i].numa = -1;
	}
	prune(w);
	return hw_nvlink(w, root);
}

/* ---- NCCL ---- */

static int nc_pci(struct xw *w, xmlNode *n, int parent, int under_cpu);

static int nc_children(struct xw *w, xmlNode *n, int parent, int under_cpu)
{
	xmlNode *c;
	int rc;
	for (c = n->children; c; c = c->next)
		if (is_el(c, "pci") && (rc = nc_pci(w, c, parent, under_cpu)) < 0)
			return rc;
	return 0;
}

static int nc_pci(struct xw *w, xmlNode *n, int parent, int under_cpu)
{
	char busid[40], cls[40] = "", ven[16], dev[16], sp[32], wd[16];
	xmlNode *c, *gpu = NULL, *nic = NULL;
	unsigned cl = 0, v = 0, d = 0;
	int nd = -1, gen = 0, width = 0;

	if (!attr(n, "busid", busid, sizeof(busid)))
		return fail_at(w, n, "<pci> without a busid attribute");
	if (attr(n, "class", cls, sizeof(cls)))
		cl = (unsigned)strtoul(cls, NULL, 16);
	if (attr(n, "vendor", ven, sizeof(ven)))
		v = (unsigned)strtoul(ven, NULL, 16);
	if (attr(n, "device", dev, sizeof(dev)))
		d = (unsigned)strtoul(dev, NULL, 16);
	if (attr(n, "link_speed", sp, sizeof(sp)))
		gen = gen_of_gts(atof(sp));
	if (attr(n, "link_width", wd, sizeof(wd)))
		width = atoi(wd);
	for (c = n->children; c; c = c->next) {
		if (is_el(c, "gpu"))
			gpu = c;
		if (is_el(c, "nic"))
			nic = c;
	}
	if (under_cpu) {
		/* NCCL leaves the root port out: one per device under the CPU */
		if ((parent = imp_add_node(w->s, IMP_RP, parent, w->o->src, w->err)) < 0)
			return -PLUMB_EINPUT;
	}
	if ((cl >> 8) == 0x0604 || (!cls[0] && n->children && !gpu && !nic)) {
		if ((nd = imp_add_node(w->s, IMP_SW, parent, w->o->src, w->err)) < 0)
			return -PLUMB_EINPUT;
		if (v)
			snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model),
				 "PCIe switch [%04x:%04x]", v, d);
		if (gen && width) {
			w->s->nodes[nd].gen = gen;
			w->s->nodes[nd].width = width;
		}
		return nc_children(w, n, nd, 0);
	}
	if (gpu || is_gpu_class(cl >> 8, v)) {
		if ((nd = add_gpu(w, n, parent, v, d, NULL, busid)) < 0)
			return nd;
		add_key(w, w->ngpu, busid);
		w->ngpu++;
	} else if (nic || (cl >> 16) == 0x02) {
		char nm[64], port[64];
		int nnet = 0, k = 0;
		xmlNode *net;
		if (v)
			snprintf(nm, sizeof(nm), "NIC [%04x:%04x]", v, d);
		else
			snprintf(nm, sizeof(nm), "NIC");
		for (net = nic ? nic->children : NULL; net; net = net->next)
			nnet += is_el(net, "net");
		if (nnet > 1) {
			/* ports of one PCI function (mlx5_4 and mlx5_5 of one card):
			 * one NIC entry per port, below a switch entry standing for
			 * the card, whose link they share */
			int sw = imp_add_node(w->s, IMP_SW, parent, w->o->src, w->err);
			if (sw < 0)
				return -PLUMB_EINPUT;
			snprintf(w->s->nodes[sw].model, sizeof(w->s->nodes[sw].model),
				 "ports of one %s, not a switch", nm);
			if (gen && width) {
				w->s->nodes[sw].gen = gen;
				w->s->nodes[sw].width = width;
			}
			if (!w->noted_fn++)
				imp_note(w->s, "a NIC with several ports on one PCI function is "
					 "written as a switch entry holding one NIC per port");
			parent = sw;
		}
		for (net = nic ? nic->children : NULL; net || (k == 0 && nnet == 0);
		     net = net ? net->next : NULL) {
			if (net && !is_el(net, "net"))
				continue;
			if ((nd = add_nic(w, parent, nm, busid)) < 0)
				return nd;
			if (net && attr(net, "name", port, sizeof(port)))
				snprintf(w->s->nodes[nd].comment, sizeof(w->s->nodes[nd].comment),
					 "%s %s", busid, port);
			k++;
			if (!net)
				break;
		}
		if (nnet > 1)
			return 0;
	} else {
		return 0;
	}
	if (gen && width && nd >= 0) {
		w->s->nodes[nd].gen = gen;
		w->s->nodes[nd].width = width;
	}
	return 0;
}

static int nc_nvlink(struct xw *w, xmlNode *n, int *first)
{
	xmlNode *c;
	char busid[40], tgt[40], cnt[16];
	int rc;
	for (c = n->children; c; c = c->next) {
		if (!is_el(c, "pci") && !is_el(c, "cpu") && !is_el(c, "gpu"))
			continue;
		if (is_el(c, "gpu")) {
			xmlNode *l;
			int gi = gpu_of_key(w, attr(n, "busid", busid, sizeof(busid)) ? busid : ""),
			    sw = 0;
			for (l = c->children; l; l = l->next) {
				int gj, k;
				if (!is_el(l, "nvlink"))
					continue;
				if (!attr(l, "target", tgt, sizeof(tgt)) ||
				    !attr(l, "count", cnt, sizeof(cnt)) || (k = atoi(cnt)) <= 0)
					return fail_at(w, l, "<nvlink> needs target and a positive "
						       "count");
				gj = gpu_of_key(w, tgt);
				if (gj < 0)
					sw += k;
				else if (gi >= 0 && gj > gi && w->s->npairs < IMP_MAX_PAIRS) {
					w->s->pairs[w->s->npairs].a = w->gpu_node[gi];
					w->s->pairs[w->s->npairs].b = w->gpu_node[gj];
					w->s->pairs[w->s->npairs].links = k;
					w->s->npairs++;
				}
			}
			if (sw > 0 && *first < 0)
				*first = sw;
			continue;
		}
		if ((rc = nc_nvlink(w, c, first)) < 0)
			return rc;
	}
	return 0;
}

static int parse_nccl(struct xw *w, xmlNode *root)
{
	xmlNode *c;
	char v[64];
	int rc, ncpu = 0, first = -1;

	for (c = root->children; c; c = c->next) {
		int rcn;
		if (!is_el(c, "cpu"))
			continue;
		if (ncpu >= IMP_MAX_NUMA)
			return fail_at(w, c, "more than %d <cpu> (NUMA) nodes", IMP_MAX_NUMA);
		if ((rcn = imp_add_node(w->s, IMP_RC, -1, w->o->src, w->err)) < 0)
			return -PLUMB_EINPUT;
		w->s->nodes[rcn].socket = ncpu;
		w->s->nodes[rcn].numa = -1;
		if (attr(c, "vendor", v, sizeof(v)))
			w->s->cpu_vendor = strstr(v, "AMD") ? IMP_CPU_AMD
					 : strstr(v, "Intel") ? IMP_CPU_INTEL : IMP_CPU_OTHER;
		ncpu++;
		if ((rc = nc_children(w, c, rcn, 1)) < 0)
			return rc;
	}
	if (!ncpu)
		return fail_at(w, root, "no <cpu> element under <system>");
	w->s->sockets = ncpu;
	w->s->numa_per_socket = 1;
	imp_note(w->s, "%d NUMA node(s), each written as a socket: NCCL's dump does not "
		 "say which share a package", ncpu);
	prune(w);
	if ((rc = nc_nvlink(w, root, &first)) < 0)
		return rc;
	if (first > 0) {
		w->s->nvswitch = 1;
		w->s->links_per_gpu = first;
		w->s->npairs = 0;
	}
	return 0;
}

/* ---- entry ---- */

static int xml_parse(const char *text, size_t len, const struct imp_opts *o,
		     struct imp_scn *s, struct plumb_err *err, int want_nccl)
{
	xmlDoc *doc;
	xmlNode *root;
	struct xw *w;
	int rc;

	if ((rc = imp_check_text(text, len, o->src, want_nccl ? "NCCL_TOPO_DUMP_FILE"
				 : "`lstopo --of xml`", err)) < 0)
		return rc;
	if (len > (size_t)0x7fffffff)
		return plumb_err_set(err, PLUMB_EINPUT, o->src, 0, 0, "input too large");
	doc = xmlReadMemory(text, (int)len, o->src, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();
		char msg[300];
		snprintf(msg, sizeof(msg), "%s", e && e->message ? e->message : "unreadable XML");
		msg[strcspn(msg, "\n")] = 0;
		rc = plumb_err_set(err, PLUMB_EINPUT, o->src, e ? e->line : 0, e ? e->int2 : 0,
				   "malformed XML: %s", msg);
		xmlResetLastError();
		return rc;
	}
	root = xmlDocGetRootElement(doc);
	if (!(w = calloc(1, sizeof(*w)))) {
		xmlFreeDoc(doc);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	w->o = o;
	w->s = s;
	w->err = err;
	if (!root || !(want_nccl ? is_el(root, "system") : is_el(root, "topology"))) {
		rc = plumb_err_set(err, PLUMB_EINPUT, o->src, root ? (int)xmlGetLineNo(root) : 1, 1,
				   want_nccl ? "not an NCCL topology: the root element is <%s>, "
				   "expected <system>" : "not an hwloc topology: the root element "
				   "is <%s>, expected <topology> (lstopo --of xml)",
				   root ? (const char *)root->name : "");
		goto out;
	}
	rc = want_nccl ? parse_nccl(w, root) : parse_hwloc(w, root);
	if (rc >= 0 && w->ngpu == 0)
		rc = plumb_err_set(err, PLUMB_EINPUT, o->src, 0, 0,
				   "no GPU in the topology (%d NIC(s)); a scenario needs a GPU", w->nic);
	if (rc >= 0) {
		imp_set_names(s, o, want_nccl ? "nccl-topo" : "hwloc");
		rc = 0;
	}
out:
	free(w);
	xmlFreeDoc(doc);
	return rc;
}

int imp_hwloc_parse(const char *text, size_t len, const struct imp_opts *o,
		    struct imp_scn *s, struct plumb_err *err)
{
	return xml_parse(text, len, o, s, err, 0);
}

int imp_nccl_parse(const char *text, size_t len, const struct imp_opts *o,
		   struct imp_scn *s, struct plumb_err *err)
{
	return xml_parse(text, len, o, s, err, 1);
}
