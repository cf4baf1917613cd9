/*
 * import_xml.c - the two XML descriptions of a box, hwloc's topology
 * (`lstopo --of xml`, formats 2 and 3, io/import_hwloc.c) and NCCL's own
 * topology dump (NCCL_TOPO_DUMP_FILE, also the NCCL_TOPO_FILE format cloud
 * vendors ship, io/import_nccl.c): libxml2 parses here, the two walkers
 * fill struct imp_scn through the helpers below (io/import_xml_int.h).
 *
 * GPU models: the PCI id "[vendor:device]" through the catalog's pci_ids,
 * then hwloc's GPUModel name, then --gpu-model; a GPU none of these names
 * is an error naming the closest catalog entries. Bridges and switches
 * with no GPU or NIC below them are left out (xw_prune()).
 */
#include "import.h"
#include "import_int.h"
#include "import_xml_int.h"
#include "scn.h"

#include <libxml/parser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *xw_attr(xmlNode *n, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	snprintf(buf, len, "%s", (const char *)v);
	xmlFree(v);
	return buf;
}

int xw_is_el(xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* An input error at element n (its line; column 1): returns -PLUMB_EINPUT. */
int xw_fail_at(struct xw *w, xmlNode *n, const char *fmt, ...)
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
int xw_is_gpu_class(unsigned cls, unsigned ven)
{
	if (ven == 0x10de)
		return cls == 0x0300 || cls == 0x0302;
	if (ven == 0x1002)
		return cls == 0x0302 || cls == 0x0380 || cls == 0x1200;
	return ven == 0 && cls == 0x0302;
}

/* PCIe generation from a transfer rate in GT/s (2.5, 5, 8, 16, 32, 64). */
int xw_gen_of_gts(double gts)
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
int xw_add_gpu(struct xw *w, xmlNode *n, int parent, unsigned ven, unsigned dev,
		   const char *name, const char *bdf)
{
	char id[32], msg[600];
	int k = -1, nd;

	if (w->ngpu >= XW_MAX_GPU)
		return xw_fail_at(w, n, "more than %d GPUs in one box", XW_MAX_GPU);
	snprintf(id, sizeof(id), "[%04x:%04x]", ven, dev);
	if (ven)
		k = imp_gpu_lookup(w->cat, id);
	if (k < 0 && name && name[0])
		k = imp_gpu_lookup(w->cat, name);
	if ((nd = imp_add_node(w->s, IMP_GPU, parent, w->o->src, w->err)) < 0)
		return -PLUMB_EINPUT;
	w->gpu_cat[w->ngpu] = k;
	snprintf(w->gpu_name[w->ngpu], sizeof(w->gpu_name[0]), "%s", name ? name : "");
	if (k >= 0)
		snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model), "%s",
			 w->cat->gpus[k].id);
	else if (w->o->gpu_model)
		snprintf(w->s->nodes[nd].model, sizeof(w->s->nodes[nd].model), "%s",
			 w->o->gpu_model);
	else if (!ven && !(name && name[0]))
		return xw_fail_at(w, n, "GPU %s: the file gives no PCI vendor/device id or name; "
			       "give --gpu-model ID", bdf);
	else {
		char what[200];
		snprintf(what, sizeof(what), "%s%s%s", name && name[0] ? name : "",
			 name && name[0] ? " " : "", id);
		imp_gpu_unknown(w->cat, what, msg, sizeof(msg));
		return xw_fail_at(w, n, "%s", msg);
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

int xw_add_nic(struct xw *w, int parent, const char *model, const char *bdf)
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
void xw_prune(struct xw *w)
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

/* Record key as a name of GPU g (dropped past XW_MAX_KEY: no NVLink data
 * names a GPU by more than its handful of OS devices). */
void xw_add_key(struct xw *w, int g, const char *key)
{
	if (w->nkey < XW_MAX_KEY) {
		snprintf(w->key[w->nkey], sizeof(w->key[0]), "%s", key);
		w->key_gpu[w->nkey++] = g;
	}
}

int xw_gpu_of_key(const struct xw *w, const char *key)
{
	int i;
	for (i = 0; i < w->nkey; i++)
		if (strcmp(w->key[i], key) == 0)
			return w->key_gpu[i];
	return -1;
}

/* The first error libxml2 raises while parsing (the later ones follow from
 * it); kept through the context's _private. */
struct xw_first {
	int set, line, col;
	char msg[300];
};

static void first_error(void *user, xmlErrorPtr e)
{
	xmlParserCtxtPtr ctxt = user;
	struct xw_first *f = ctxt ? ctxt->_private : NULL;
	if (!f || f->set || !e)
		return;
	f->set = 1;
	f->line = e->line;
	f->col = e->int2;
	snprintf(f->msg, sizeof(f->msg), "%s", e->message ? e->message : "unreadable XML");
	f->msg[strcspn(f->msg, "\n")] = 0;
}

static int xml_parse(const char *text, size_t len, const struct imp_opts *o,
		     struct imp_scn *s, struct plumb_err *err, int want_nccl)
{
	struct xw_first first = { 0, 0, 0, "" };
	xmlParserCtxt *ctxt;
	xmlDoc *doc;
	xmlNode *root;
	struct xw *w;
	int rc;

	if ((rc = imp_check_text(text, len, o->src, want_nccl ? "NCCL_TOPO_DUMP_FILE"
				 : "`lstopo --of xml`", err)) < 0)
		return rc;
	if (len > (size_t)0x7fffffff)
		return plumb_err_set(err, PLUMB_EINPUT, o->src, 0, 0, "input too large");
	/* a parser context of our own: its error is not libxml2's global one;
	 * no network, no DTD or external entity is loaded (hwloc's DOCTYPE
	 * names hwloc2.dtd), libxml2's default size limits hold */
	if (!(ctxt = xmlNewParserCtxt()))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	ctxt->_private = &first;
	ctxt->sax->serror = first_error;        /* also keeps libxml2 off stderr */
	doc = xmlCtxtReadMemory(ctxt, text, (int)len, o->src, NULL,
				XML_PARSE_NONET | XML_PARSE_NOWARNING);
	if (!doc || first.set) {
		rc = plumb_err_set(err, PLUMB_EINPUT, o->src, first.line, first.col,
				   "malformed XML: %s", first.set ? first.msg : "unreadable XML");
		xmlFreeDoc(doc);
		xmlFreeParserCtxt(ctxt);
		return rc;
	}
	xmlFreeParserCtxt(ctxt);
	root = xmlDocGetRootElement(doc);
	if (!(w = calloc(1, sizeof(*w)))) {
		xmlFreeDoc(doc);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	w->o = o;
	w->s = s;
	w->err = err;
	if (!(w->cat = o->catalog ? o->catalog : scn_catalog_builtin(err))) {
		rc = -PLUMB_ERUNTIME;
		goto out;
	}
	if (!root || !(want_nccl ? xw_is_el(root, "system") : xw_is_el(root, "topology"))) {
		rc = plumb_err_set(err, PLUMB_EINPUT, o->src, root ? (int)xmlGetLineNo(root) : 1, 1,
				   want_nccl ? "not an NCCL topology: the root element is <%s>, "
				   "expected <system>" : "not an hwloc topology: the root element "
				   "is <%s>, expected <topology> (lstopo --of xml)",
				   root ? (const char *)root->name : "");
		goto out;
	}
	rc = want_nccl ? xw_parse_nccl(w, root) : xw_parse_hwloc(w, root);
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
