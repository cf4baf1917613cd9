/*
 * import_int.h - what the lspci importer's two files share: the device list
 * that io/import_lspci.c reads from the four input shapes, and that
 * io/import_pcitree.c turns into the scenario tree.
 */
#ifndef PLUMB_IMPORT_INT_H
#define PLUMB_IMPORT_INT_H

#include <stddef.h>

#include "import.h"

#define LS_MAX_DEV 8192         /* devices per input */
#define LS_MAX_COL 2048         /* tree lines are read up to this column */

enum { T_OTHER, T_GPU, T_NIC };                 /* endpoint type */
enum { M_TREE, M_LIST, M_PATH, M_OUTLINE };     /* input shape */

/* One PCI function, or a root bus (is_root) that holds devices. */
struct imp_pdev {
	int parent;             /* index, -1 = not known yet */
	int is_root;            /* a root bus, not a device */
	int is_bridge;
	int domain, bus, dev, fn;   /* bus -1 unknown */
	int sec, sub;           /* bridge: -1 unknown */
	char cls[48];           /* list mode class text */
	char name[160];
	int numa, gen, width, acs;  /* -1 unknown */
	int type;               /* T_* */
	int guessed;            /* -t: GPU guessed from functions 00.0 + 00.1 */
	int keep;               /* subtree holds a GPU or NIC */
	int node;               /* result node, -1 */
	int line, col;          /* where the name starts in the input (1-based), 0 unknown */
	int gpu;                /* T_GPU: catalog entry its name gives, -1 none */
};

/* The device list; d is owned (free(L->d)). */
struct imp_ls {
	const char *src;        /* input name for messages (borrowed) */
	int lineno;             /* line being read (1-based), for new devices */
	int n, cap;
	struct imp_pdev *d;
	int has_names, any_sec, any_numa, mode;
	int pp;                 /* list lines of `lspci -PP` (parents set as read) */
};

/*
 * Append a device with every field unknown; returns its index, or -1 with
 * err filled (PLUMB_EINPUT past LS_MAX_DEV, PLUMB_ERUNTIME out of memory).
 * Invalidates pointers into L->d.
 */
int imp_ls_add(struct imp_ls *L, struct plumb_err *err);

/*
 * Detect the input shape and read every device line of text into L (which
 * starts zeroed with src set). Tree-shaped input gets parent links; the list
 * shapes leave parent -1 for imp_lspci_parse() to resolve. Returns 0, or a
 * negative plumb_rc with err filled (no lspci line found, limits, memory).
 */
int imp_ls_read(struct imp_ls *L, const char *text, size_t len, struct plumb_err *err);

/* Copy [b, e) without surrounding blanks into dst (n bytes, truncated). */
void imp_copy_trim(char *dst, size_t n, const char *b, const char *e);

/* True when needle occurs in hay, ignoring ASCII case. */
int imp_has(const char *hay, const char *needle);

#endif
