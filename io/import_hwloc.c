/*
 * import_hwloc.c - hwloc's XML (`lstopo --of xml`) into struct imp_scn
 * (io/import_xml.c parses and holds the shared helpers).
 *
 * hwloc: each Package is a socket; a host Bridge (bridge_type "0-1") is a
 * root complex of the package (and NUMA node in it) whose CPUs meet those of
 * the object hwloc attaches it to; a bridge right below it is a root port;
 * below a root port, PCIe switches show as an upstream-port bridge whose
 * children are downstream-port bridges, so bridges alternate upstream/
 * downstream and one switch node is made per upstream port. A PCIDev is a
 * GPU by vendor and class (xw_is_gpu_class()), a NIC by class 02xx, one entry
 * per function; several such functions in one slot (a dual-port NIC) go
 * below a switch entry standing for the card, as a root port holds one
 * link. NVLink comes from the NVLinkBandwidth distance matrix at hwloc's
 * per-link rate (hw_link_mbs()): bandwidth towards NVSwitch objects makes
 * an NVSwitch fabric, GPU-to-GPU bandwidth makes direct pairs.
 */
#include "import_int.h"
#include "import_xml_int.h"
#include "scn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *info(xmlNode *n, const char *name, char *buf, size_t len)
{
	xmlNode *c;
	char nm[64];
	for (c = n->children; c; c = c->next)
		if (xw_is_el(c, "info") && xw_attr(c, "name", nm, sizeof(nm)) && strcmp(nm, name) == 0)
			return xw_attr(c, "value", buf, len);
	return NULL;
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
		if (!xw_is_el(c, "object") || !xw_attr(c, "type", t, sizeof(t)) || strcmp(t, "OSDev"))
			continue;
		if (!model[0])
			info(c, "GPUModel", model, mlen);
		if (xw_attr(c, "gp_index", gp, sizeof(gp))) {
			snprintf(key, sizeof(key), "OSDev:%s", gp);
			xw_add_key(w, g, key);
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
		if (!xw_is_el(c, "object") || !xw_attr(c, "type", t, sizeof(t)))
			continue;
		if (strcmp(t, "Package") == 0 && w->npkg < XW_MAX_PKG) {
			p = w->npkg++;
			hw_bitmap(xw_attr(c, "cpuset", set, sizeof(set)), w->pkg_set[p]);
		} else if (strcmp(t, "NUMANode") == 0 && pkg >= 0 &&
			   w->pkg_nnuma[pkg] < XW_MAX_NPS) {
			hw_bitmap(xw_attr(c, "cpuset", set, sizeof(set)),
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
		if (xw_is_el(a, "object") && xw_attr(a, "cpuset", set, sizeof(set)))
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
		if (xw_is_el(c, "object") && xw_attr(c, "type", t, sizeof(t)) && strcmp(t, "PCIDev") == 0 &&
		    xw_attr(c, "pci_type", pt, sizeof(pt)) &&
		    sscanf(pt, "%4x [%4x:%4x]", &cls, &ven, &dev) == 3 &&
		    (xw_is_gpu_class(cls, ven) || (cls >> 8) == 0x02) && k++ == 0)
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

	if (!xw_attr(n, "type", type, sizeof(type)))
		return xw_fail_at(w, n, "hwloc object without a type");
	if (strcmp(type, "Bridge") == 0) {
		xw_attr(n, "bridge_type", bt, sizeof(bt));
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
			if (xw_attr(n, "pci_type", pt, sizeof(pt)) && strchr(pt, '['))
				snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model),
					 "PCIe switch %.11s", strchr(pt, '['));
			kind = 3;
		} else {
			kind = 4;       /* a downstream port of the switch above */
		}
		return hw_walk(w, n, socket, numa, nd, kind);
	}
	if (strcmp(type, "PCIDev") == 0) {
		if (!xw_attr(n, "pci_busid", busid, sizeof(busid)) || !xw_attr(n, "pci_type", pt, sizeof(pt)) ||
		    sscanf(pt, "%4x [%4x:%4x]", &cls, &ven, &dev) != 3)
			return xw_fail_at(w, n, "PCIDev without pci_busid or a pci_type "
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
		if (xw_is_gpu_class(cls, ven)) {
			hw_osdev(w, n, w->ngpu, model, sizeof(model));
			if ((rc = xw_add_gpu(w, n, parent, ven, dev, model, busid)) < 0)
				return rc;
			if (xw_attr(n, "gp_index", gp, sizeof(gp))) {
				snprintf(key, sizeof(key), "PCIDev:%s", gp);
				xw_add_key(w, w->ngpu, key);
			}
			w->ngpu++;
		} else if ((cls >> 8) == 0x02) {
			char nm[96];
			snprintf(nm, sizeof(nm), "NIC [%04x:%04x]", ven, dev);
			if ((rc = xw_add_nic(w, parent, nm, busid)) < 0)
				return rc;
		} else if ((cls == 0x0680 && ven == 0x10de) ||
			   (xw_attr(n, "subtype", gp, sizeof(gp)) && strcmp(gp, "NVSwitch") == 0)) {
			if (w->nsw < XW_MAX_SW && xw_attr(n, "gp_index", gp, sizeof(gp)))
				snprintf(w->sw_key[w->nsw++], sizeof(w->sw_key[0]), "PCIDev:%s", gp);
		}
		return 0;
	}
	if (strcmp(type, "NVSwitch") == 0) {
		if (w->nsw < XW_MAX_SW && xw_attr(n, "gp_index", gp, sizeof(gp)))
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
		if (xw_is_el(c, "object") && (rc = hw_object(w, c, socket, numa, parent, pkind)) < 0)
			return rc;
	return 0;
}

/* Index of the GPU that key names, or -1. */
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
		if (!xw_is_el(c, tag) || !(t = xmlNodeGetContent(c)))
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
	    w->cat->gpus[w->gpu_cat[0]].nvlink_gbs_per_link > 0)
		return w->cat->gpus[w->gpu_cat[0]].nvlink_gbs_per_link * 1000.0;
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
		if (!(xw_is_el(d, "distances2hetero") || xw_is_el(d, "distances2")) ||
		    !xw_attr(d, "name", nm, sizeof(nm)) || strcmp(nm, "NVLinkBandwidth"))
			continue;
		if (!xw_attr(d, "nbobjs", nm, sizeof(nm)) || (nb = atoi(nm)) <= 0 || nb > 256)
			return xw_fail_at(w, d, "NVLinkBandwidth without a valid nbobjs");
		idx = calloc((size_t)nb, 40);
		val = calloc((size_t)nb * (size_t)nb, 40);
		if (!idx || !val) {
			free(idx);
			free(val);
			return plumb_err_set(w->err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		ni = hw_tokens(d, "indexes", idx, nb);
		nv = hw_tokens(d, "u64values", val, nb * nb);
		/* a matrix of one object type (<distances2 type="OSDev"
		 * indexing="gp">) lists bare gp indexes: name them as the
		 * heterogeneous form does ("OSDev:802") */
		if (xw_is_el(d, "distances2") && xw_attr(d, "type", nm, sizeof(nm)))
			for (i = 0; i < ni; i++)
				if (!strchr(idx[i], ':')) {
					char t[40];
					snprintf(t, sizeof(t), "%.20s:%.18s", nm, idx[i]);
					memcpy(idx[i], t, sizeof(t));
				}
		if (ni != nb || nv != nb * nb) {
			free(idx);
			free(val);
			return xw_fail_at(w, d, "NVLinkBandwidth matrix is not nbobjs x nbobjs");
		}
		unit = hw_link_mbs(w);
		for (i = 0; i < nb; i++) {
			int gi = xw_gpu_of_key(w, idx[i]), links = 0, pairs_here = 0;
			if (gi < 0)
				continue;
			for (j = 0; j < nb; j++) {
				double v = atof(val[i * nb + j]);
				int gj = xw_gpu_of_key(w, idx[j]);
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

int xw_parse_hwloc(struct xw *w, xmlNode *root)
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
	xw_prune(w);
	return hw_nvlink(w, root);
}
