/*
 * import_nccl.c - NCCL's topology XML (NCCL_TOPO_DUMP_FILE, NCCL_TOPO_FILE)
 * into struct imp_scn (io/import_xml.c parses and holds the shared helpers).
 *
 * NCCL: each <cpu numaid=...> is one NUMA node (NCCL does not say which
 * NUMA nodes share a socket: each becomes a socket, said in a note). NCCL
 * writes one <pci> per switch (the kernel's upstream and downstream ports
 * folded) and leaves out root ports, so each bridge is a switch and each
 * child of a <cpu> gets a root port. <gpu><nvlink target= count=> gives
 * links; a target that is not a GPU (class 0x068000, an NVSwitch) makes
 * the NVSwitch fabric. <nic> below a PCI function makes a NIC per <net>
 * port (several below a switch entry standing for the card).
 */
#include "import_xml_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nc_pci(struct xw *w, xmlNode *n, int parent, int under_cpu);

static int nc_children(struct xw *w, xmlNode *n, int parent, int under_cpu)
{
	xmlNode *c;
	int rc;
	for (c = n->children; c; c = c->next)
		if (xw_is_el(c, "pci") && (rc = nc_pci(w, c, parent, under_cpu)) < 0)
			return rc;
	return 0;
}

static int nc_pci(struct xw *w, xmlNode *n, int parent, int under_cpu)
{
	char busid[40], cls[40] = "", ven[16], dev[16], sp[32], wd[16];
	xmlNode *c, *gpu = NULL, *nic = NULL;
	unsigned cl = 0, v = 0, d = 0;
	int nd = -1, gen = 0, width = 0;

	if (!xw_attr(n, "busid", busid, sizeof(busid)))
		return xw_fail_at(w, n, "<pci> without a busid attribute");
	if (xw_attr(n, "class", cls, sizeof(cls)))
		cl = (unsigned)strtoul(cls, NULL, 16);
	if (xw_attr(n, "vendor", ven, sizeof(ven)))
		v = (unsigned)strtoul(ven, NULL, 16);
	if (xw_attr(n, "device", dev, sizeof(dev)))
		d = (unsigned)strtoul(dev, NULL, 16);
	if (xw_attr(n, "link_speed", sp, sizeof(sp)))
		gen = xw_gen_of_gts(atof(sp));
	if (xw_attr(n, "link_width", wd, sizeof(wd)))
		width = atoi(wd);
	for (c = n->children; c; c = c->next) {
		if (xw_is_el(c, "gpu"))
			gpu = c;
		if (xw_is_el(c, "nic"))
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
	if (gpu || xw_is_gpu_class(cl >> 8, v)) {
		if ((nd = xw_add_gpu(w, n, parent, v, d, NULL, busid)) < 0)
			return nd;
		xw_add_key(w, w->ngpu, busid);
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
			nnet += xw_is_el(net, "net");
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
			if (net && !xw_is_el(net, "net"))
				continue;
			if ((nd = xw_add_nic(w, parent, nm, busid)) < 0)
				return nd;
			if (net && xw_attr(net, "name", port, sizeof(port)))
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
		if (!xw_is_el(c, "pci") && !xw_is_el(c, "cpu") && !xw_is_el(c, "gpu"))
			continue;
		if (xw_is_el(c, "gpu")) {
			xmlNode *l;
			int gi = xw_gpu_of_key(w, xw_attr(n, "busid", busid, sizeof(busid)) ? busid : ""),
			    sw = 0;
			for (l = c->children; l; l = l->next) {
				int gj, k;
				if (!xw_is_el(l, "nvlink"))
					continue;
				if (!xw_attr(l, "target", tgt, sizeof(tgt)) ||
				    !xw_attr(l, "count", cnt, sizeof(cnt)) || (k = atoi(cnt)) <= 0)
					return xw_fail_at(w, l, "<nvlink> needs target and a positive "
						       "count");
				gj = xw_gpu_of_key(w, tgt);
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

int xw_parse_nccl(struct xw *w, xmlNode *root)
{
	xmlNode *c;
	char v[64];
	int rc, ncpu = 0, first = -1;

	for (c = root->children; c; c = c->next) {
		int rcn;
		if (!xw_is_el(c, "cpu"))
			continue;
		if (ncpu >= IMP_MAX_NUMA)
			return xw_fail_at(w, c, "more than %d <cpu> (NUMA) nodes", IMP_MAX_NUMA);
		if ((rcn = imp_add_node(w->s, IMP_RC, -1, w->o->src, w->err)) < 0)
			return -PLUMB_EINPUT;
		w->s->nodes[rcn].socket = ncpu;
		w->s->nodes[rcn].numa = -1;
		if (xw_attr(c, "vendor", v, sizeof(v)))
			w->s->cpu_vendor = strstr(v, "AMD") ? IMP_CPU_AMD
					 : strstr(v, "Intel") ? IMP_CPU_INTEL : IMP_CPU_OTHER;
		ncpu++;
		if ((rc = nc_children(w, c, rcn, 1)) < 0)
			return rc;
	}
	if (!ncpu)
		return xw_fail_at(w, root, "no <cpu> element under <system>");
	w->s->sockets = ncpu;
	w->s->numa_per_socket = 1;
	imp_note(w->s, "%d NUMA node(s), each written as a socket: NCCL's dump does not "
		 "say which share a package", ncpu);
	xw_prune(w);
	if ((rc = nc_nvlink(w, root, &first)) < 0)
		return rc;
	if (first > 0) {
		w->s->nvswitch = 1;
		w->s->links_per_gpu = first;
		w->s->npairs = 0;
	}
	return 0;
}
