/*
 * import.h - turn real tool output into a scenario skeleton (YAML text).
 *
 * The importers share one in-memory result, struct imp_scn:
 *   imp_topom_parse()  `nvidia-smi topo -m` matrix -> a PCIe tree that
 *                      reproduces the matrix (io/import_topom.c);
 *   imp_lspci_parse()  `lspci -tv`, `lspci -t`, `lspci -vvv` (and flat
 *                      `lspci`/`lspci -nn` listings) -> the PCIe tree with
 *                      switches folded into one node each (io/import_lspci.c
 *                      reads, io/import_pcitree.c builds; io/import_int.h).
 *   imp_hwloc_parse()  hwloc's `lstopo --of xml` and
 *   imp_nccl_parse()   NCCL's topology XML -> the PCIe tree, sockets, NICs
 *                      and NVLink they describe (io/import_xml.c, libxml2).
 * imp_write_yaml() (io/import.c) prints the result in the scenario format
 * of docs/scenarios.md. The importers only write text: they do not depend on
 * the scenario loader, and the loader validates what they produce.
 *
 * Invariants of a filled struct imp_scn: nodes[] lists parents before their
 * children; ids are unique and match [a-z0-9_-]+; every GPU and NIC has a
 * root_port or switch parent; every switch has a root_port or switch parent;
 * every root port has a root_complex parent. imp_write_yaml() lists nodes
 * depth first with children ordered by their smallest endpoint `order`, so
 * GPUs come out in `order` (GPU0..N for topo -m, bus order for lspci).
 * Output is deterministic: the same input gives the same bytes.
 */
#ifndef PLUMB_IMPORT_H
#define PLUMB_IMPORT_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

struct scn_catalog;

/* An import is one box as one tool prints it (a scenario of several boxes
 * names their files in `hosts:`): its tables are sized for one box. */
#define IMP_MAX_INPUT (16u << 20)   /* largest input accepted, bytes */
#define IMP_MAX_NODES 512           /* PCIe entries of the box */
#define IMP_MAX_GPUS 64             /* GPUs of the box */
#define IMP_MAX_PAIRS 1024
#define IMP_MAX_NUMA 8              /* sockets x numa_per_socket limit */
#define IMP_MAX_NOTES 16

enum imp_kind { IMP_RC, IMP_RP, IMP_SW, IMP_GPU, IMP_NIC };
enum imp_vendor { IMP_CPU_OTHER, IMP_CPU_AMD, IMP_CPU_INTEL, IMP_CPU_ARM };

struct imp_node {
	enum imp_kind kind;
	int parent;             /* index into imp_scn.nodes, -1 for a root complex */
	int socket, numa;       /* root complex only; numa -1 = same as socket */
	int gen, width;         /* 0 = unknown (not written) */
	int acs;                /* -1 = unknown (not written), else 0/1 */
	int order;              /* endpoints: sort key (GPU index, bus order) */
	char model[96];         /* gpu: catalog id; switch/nic: free text */
	char bdf[16];           /* "" or "0000:06:00.0" / "0000:00" */
	char comment[160];      /* written as a YAML comment after the entry */
};

struct imp_pair {
	int a, b;               /* node indices of the two GPUs */
	int links;
};

struct imp_scn {
	char name[96];
	char description[256];
	enum imp_vendor cpu_vendor;
	char cpu_model[96];
	int sockets;
	int numa_per_socket;            /* written only when > 1 */
	int nsocket_cpus;               /* 0, or sockets x numa_per_socket */
	char socket_cpus[IMP_MAX_NUMA][128];
	int n;
	struct imp_node nodes[IMP_MAX_NODES];
	int nvswitch, links_per_gpu;    /* nvswitch: every GPU pair linked */
	int xgmi;                       /* the bonds are AMD xGMI links (rocm-smi,
					   amd-smi): written as `xgmi:`, every pair
					   linked (nvswitch) as a mesh */
	int npairs;
	struct imp_pair pairs[IMP_MAX_PAIRS];
	int nnotes;                     /* header comments, one line each */
	char notes[IMP_MAX_NOTES][200];
};

struct imp_opts {
	const char *src;        /* input name for messages and description ("-" = stdin) */
	const char *name;       /* scenario name, NULL = from src's base name */
	const char *gpu_model;  /* catalog id for GPUs the input does not name or the
				   catalog lacks; NULL: rtx-pro-6000 for unnamed GPUs
				   (said in a note), an error for unknown ones */
	int sockets;            /* lspci: socket count, 0 = guess */
	const struct scn_catalog *catalog;  /* GPU names resolve here; NULL = built-in */
};

/*
 * Allocate an empty result. Returns NULL when out of memory.
 * Ownership: the caller frees it with imp_scn_free().
 */
struct imp_scn *imp_scn_new(void);

/* Free s; imp_scn_free(NULL) is a no-op. */
void imp_scn_free(struct imp_scn *s);

/*
 * Parse `nvidia-smi topo -m` output (len bytes at text, need not be
 * NUL-terminated) into s, which must come from imp_scn_new(). Text before
 * and after the matrix is ignored. Returns 0, or a negative plumb_rc with err
 * filled (file = o->src, 1-based line and column): PLUMB_EINPUT for input
 * that holds no usable matrix or a malformed row. On failure s is left in an
 * unspecified but freeable state. Time O(len + E^3) for E endpoints.
 */
int imp_topom_parse(const char *text, size_t len, const struct imp_opts *o,
		    struct imp_scn *s, struct plumb_err *err);

/*
 * Parse lspci output (-tv, -t, -vvv, plain or -nn listing) into s; same
 * contract as imp_topom_parse(). Returns PLUMB_EINPUT when no device line is
 * found or the devices hold no GPU or NIC. Time O(len + D^2) for D devices.
 */
int imp_lspci_parse(const char *text, size_t len, const struct imp_opts *o,
		    struct imp_scn *s, struct plumb_err *err);

/* The model `import topo-m` writes for GPUs it cannot name without
 * --gpu-model: no catalog entry has it, so the skeleton does not load until
 * the user sets one (a wrong GPU would run silently). */
#define IMP_GPU_UNSET "set-gpu-model"

/*
 * Parse hwloc's XML (`lstopo --of xml`, formats 2 and 3) or NCCL's topology
 * XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE) into s with libxml2 (io/
 * import_xml.c); same contract as imp_topom_parse(). Malformed XML is
 * PLUMB_EINPUT at libxml2's line and column; a topology without a GPU or
 * NIC, an unknown GPU (no catalog PCI id or name, no --gpu-model) or a
 * malformed element is PLUMB_EINPUT at the element's line. Time O(len + G^2).
 */
int imp_hwloc_parse(const char *text, size_t len, const struct imp_opts *o,
		    struct imp_scn *s, struct plumb_err *err);
int imp_nccl_parse(const char *text, size_t len, const struct imp_opts *o,
		   struct imp_scn *s, struct plumb_err *err);

/*
 * `rocm-smi --showtopo` or `amd-smi topology` output (the format is
 * detected; io/import_rocmsmi.c) into s: one root complex per GPU, NUMA
 * from rocm-smi's Numa Nodes or the hops, XGMI cells as an xgmi section.
 * Same contract as imp_topom_parse(); o->gpu_model is required (neither
 * tool names the model): PLUMB_EUSAGE without it.
 */
int imp_rocmsmi_parse(const char *text, size_t len, const struct imp_opts *o,
		      struct imp_scn *s, struct plumb_err *err);

/*
 * Write s as scenario YAML to f. Returns 0, or -PLUMB_EIO with err filled
 * (file = path) when the stream reports a write error.
 */
int imp_write_yaml(FILE *f, const struct imp_scn *s, const char *path,
		   struct plumb_err *err);

/*
 * Read a whole input file ("-" = standard input) of at most IMP_MAX_INPUT
 * bytes. On success *buf is a new NUL-terminated buffer (caller frees with
 * free()) and *len its length without the NUL. Errors: PLUMB_EIO (cannot
 * open or read), PLUMB_EINPUT (larger than IMP_MAX_INPUT); *buf is NULL then.
 */
int imp_read_input(const char *path, char **buf, size_t *len, struct plumb_err *err);

/*
 * Index of the entry of catalog c that a GPU name from the input names, or
 * -1: a PCI id in it ("[10de:2bb5]", "Device 2bb5") among the entries'
 * `pci_ids:`, else a marketing name among their `names:` (the alternatives,
 * split at " / ", of lspci's bracketed name, or the name without a leading
 * "NVIDIA Corporation " / "NVIDIA "; scn_catalog_find_name() compares).
 */
int imp_gpu_lookup(const struct scn_catalog *c, const char *name);

/*
 * The message for a GPU name imp_gpu_lookup() does not find, into buf (n
 * bytes): the name, up to three closest catalog entries (by marketing name,
 * or by PCI device id when the input gives only an id) and what to do.
 */
void imp_gpu_unknown(const struct scn_catalog *c, const char *name, char *buf, size_t n);

/*
 * The CPU vendor the text shows outside any matrix: lscpu's "Vendor ID:"
 * or /proc/cpuinfo's "vendor_id" line, a CPU brand name (EPYC, Ryzen,
 * Threadripper, Xeon, Core(TM), Neoverse, Grace CPU, GH200, aarch64), else
 * the kernel options amd_iommu / intel_iommu. Sets s->cpu_vendor and adds a
 * header note saying which line it was taken from, and returns 1; returns 0
 * with s->cpu_vendor IMP_CPU_OTHER when the text names none (no note: the
 * caller says why), -1 when it names CPUs of two vendors (a note says so,
 * cpu_vendor IMP_CPU_OTHER). s->cpu_model
 * is set from lscpu's "Model name:" (cpuinfo's "model name") line if any.
 */
int imp_cpu_vendor_from_text(struct imp_scn *s, const char *text, size_t len);

/*
 * Append a node of the given kind under parent (-1 for a root complex) with
 * every other field unknown, and return its index; or return -1 with err
 * filled (PLUMB_EINPUT, file src) when IMP_MAX_NODES is reached. Ids are
 * given by imp_write_yaml() in output order (rc0.., rp0.., sw0.., gpu0..).
 */
int imp_add_node(struct imp_scn *s, enum imp_kind kind, int parent,
		 const char *src, struct plumb_err *err);

/*
 * Reject input that cannot be tool output: only blanks ("empty input;
 * expected the output of WHAT") or a NUL byte ("binary input (NUL byte at
 * offset N) ...", without line and column so that no binary line is
 * echoed). Returns 0 or -PLUMB_EINPUT with err filled (file src).
 */
int imp_check_text(const char *text, size_t len, const char *src, const char *what,
		   struct plumb_err *err);

/* Append a header note (printf format); silently dropped past IMP_MAX_NOTES. */
void imp_note(struct imp_scn *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Fill s->name and s->description from the options and the importer name
 * ("topo-m", "lspci"): the name is o->name or the base name of o->src
 * without extension, lowercased, with characters outside [a-z0-9_-]
 * replaced by '-', prefixed "imported-".
 */
void imp_set_names(struct imp_scn *s, const struct imp_opts *o, const char *importer);

#endif
