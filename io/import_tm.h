/*
 * import_tm.h - what the matrix importers share (io/import_topom.c reads
 * `nvidia-smi topo -m`, io/import_rocmsmi.c `rocm-smi --showtopo` and
 * `amd-smi topology`): the class matrix they fill, and the tree
 * io/import_tmbuild.c rebuilds from it (import_topom.c's header comment
 * gives the rules).
 */
#ifndef PLUMB_IMPORT_TM_H
#define PLUMB_IMPORT_TM_H

#include "import.h"

#define TM_MAX_EP 128
#define TM_MAX_LINE 4096
#define TM_MAX_TOK 192

enum { C_UNK = -1, C_X = 0, C_PIX, C_PXB, C_PHB, C_NODE, C_SYS, C_NV };
extern const char *const imp_tm_cls[6];   /* class names: "X", "PIX", ... "SYS" */

struct tm_ep {
	char label[32];
	int is_gpu;
	int have_row, partial;
	int line;               /* of the row, once have_row */
	int numa;               /* declared NUMA Affinity, -1 unknown */
	char cpus[128];         /* CPU Affinity, "" unknown */
	char nicname[64];       /* from the NIC Legend */
	int keep;
	int node;               /* node index in the result */
};

struct tm {
	const char *src;
	int n, ngpu;
	struct tm_ep ep[TM_MAX_EP];
	signed char cls[TM_MAX_EP][TM_MAX_EP];
	unsigned char nv[TM_MAX_EP][TM_MAX_EP];
	int truncated;
	int p2p_only;           /* endpoints come from a topo -p2p matrix */
	int over_col;           /* header: column of the first label past a limit, 0 none */
	int over_gpus;          /* ... the limit was IMP_MAX_GPUS (else TM_MAX_EP) */
	/* scratch */
	char line[TM_MAX_LINE];
	char *tok[TM_MAX_TOK];
	int tokcol[TM_MAX_TOK];
	int ntok;
};

/* Fill unknown cells from their mirror; drop endpoints left with unknowns
 * (a note names them). */
void imp_tm_complete(struct tm *t, struct imp_scn *s);

/* Build the PCIe tree of the kept endpoints into s. Returns 0 or a
 * negative plumb code (err filled: too many nodes, an unknown GPU model). */
int imp_tm_build(struct tm *t, struct imp_scn *s, const struct imp_opts *o,
		 struct plumb_err *err);

/* The GPU bonds (NV# or XGMI cells) into s, and a note for every pair the
 * tree does not reproduce. */
void imp_tm_finish(struct tm *t, struct imp_scn *s);

#endif
