/*
 * import_xml_int.h - what the XML importers share: io/import_xml.c (libxml2
 * parsing, the shared helpers and the entry points), io/import_hwloc.c
 * (hwloc's tree) and io/import_nccl.c (NCCL's tree) fill one struct xw
 * and, through it, the struct imp_scn of io/import.h.
 */
#ifndef PLUMB_IMPORT_XML_INT_H
#define PLUMB_IMPORT_XML_INT_H

#include <libxml/tree.h>
#include <stddef.h>
#include <stdint.h>

#include "import.h"

#define XW_MAX_GPU IMP_MAX_GPUS
#define XW_MAX_SW 64            /* NVSwitch objects of one box */
#define XW_MAX_KEY (8 * XW_MAX_GPU)
#define XW_MAX_PKG IMP_MAX_NUMA     /* sockets */
#define XW_MAX_NPS IMP_MAX_NUMA     /* NUMA nodes per socket */
#define XW_SET_WORDS 32             /* cpuset words kept: 1,024 CPUs */

/* One XML import in progress: the options, the result being filled, the
 * error, and what the walk keeps to join NVLink data to the GPUs. */
struct xw {
	const struct imp_opts *o;
	const struct scn_catalog *cat;  /* o->catalog, or the built-in one */
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

/* Copy attribute name of n into buf (len bytes, truncated); NULL if absent. */
const char *xw_attr(xmlNode *n, const char *name, char *buf, size_t len);

/* Whether n is an element called name. */
int xw_is_el(xmlNode *n, const char *name);

/* An input error at element n (its line, column 1; file:0 for NULL): fills
 * w->err and returns -PLUMB_EINPUT. */
int xw_fail_at(struct xw *w, xmlNode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether PCI class cls (class and subclass, 0x0302) of vendor ven is a GPU. */
int xw_is_gpu_class(unsigned cls, unsigned ven);

/* PCIe generation 1-6 of a rate in GT/s, 0 when none matches. */
int xw_gen_of_gts(double gts);

/*
 * Append a GPU (bus id bdf, PCI id ven:dev, name or NULL) under parent; its
 * model from the catalog by id, then by name, then --gpu-model. Returns the
 * node index, or -PLUMB_EINPUT (unknown GPU, limits) at element n. The
 * caller records its keys and then increments w->ngpu.
 */
int xw_add_gpu(struct xw *w, xmlNode *n, int parent, unsigned ven, unsigned dev,
	       const char *name, const char *bdf);

/* Append a NIC (free-text model, bus id) under parent: index or -PLUMB_EINPUT. */
int xw_add_nic(struct xw *w, int parent, const char *model, const char *bdf);

/* Drop the nodes with no GPU or NIC below them, keeping order and indices
 * of w->gpu_node in step. */
void xw_prune(struct xw *w);

/* Record key as a name of GPU g in NVLink data; xw_gpu_of_key() finds it. */
void xw_add_key(struct xw *w, int g, const char *key);
int xw_gpu_of_key(const struct xw *w, const char *key);

/* Walk the document under root (<topology> / <system>) into w->s: 0 or a
 * negative plumb_rc with w->err filled. */
int xw_parse_hwloc(struct xw *w, xmlNode *root);
int xw_parse_nccl(struct xw *w, xmlNode *root);

#endif
