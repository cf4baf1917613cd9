/*
 * coll_int.h - what coll.c and coll_chain.c share inside models/coll/: the
 * rings and chains a collective runs over.
 */
#ifndef PLUMB_COLL_INT_H
#define PLUMB_COLL_INT_H

#include "coll.h"

/* Is the direct path between GPUs a and b all NVLink? */
int coll_nvlink_path(const struct fabric *f, int a, int b);

/* The chains of a tree or broadcast, in one block (ord, pos, cway and the
 * zeroed chunk state; coll_chain.c says how they are laid out and built);
 * between: chains that span hosts as NCCL's tree. NULL when out of memory. */
int *coll_chains_new(const struct fabric *f, const struct coll_spec *c, int between,
		     int *nchainp, int *nwaysp);

/* Pairs the collective's schedule uses (sender -> receiver ranks); pos:
 * the chains' positions (nchain x n) of a tree, or NULL. */
int coll_uses_pair(const struct coll_spec *c, int algo, int i, int j, const int *pos,
		   int nchain);

/* Do c's ranks span hosts? */
int coll_spans_hosts(const struct scenario *s, const struct coll_spec *c);

/* RCCL on an AMD xGMI mesh (coll_rccl.c). COLL_MESH_MAX: the most ranks
 * the mesh rings are searched for (an xGMI hive holds 8 GPUs).
 * coll_xgmi_mesh: 1 when s's bonds are xGMI and every pair of c's ranks
 * has its own link, so RCCL's rings can run over all of them.
 * coll_mesh_rings: arc-disjoint rings over n ranks of a complete mesh into
 * succ (room for (n - 1) x n: succ[t * n + i] is rank i's successor in
 * ring t); returns the ring count, n - 1 (n - 2 for 4 and 6 ranks), at
 * least 1. */
#define COLL_MESH_MAX 16
int coll_xgmi_mesh(const struct fabric *f, const struct coll_spec *c);
int coll_mesh_rings(int n, int *succ);

/* RCCL's MSCCL "allpairs" all-reduce (coll_rccl.c): 1 when RCCL runs c
 * with it on this mesh (8 ranks, sizes and counts its algorithm files
 * take), with its protocol and channels per peer exchange; run as the
 * two-shot schedule at RCCL's protocol costs. */
int coll_msccl_allpairs(const struct scenario *s, const struct topo_view *v,
			const struct coll_spec *c, int *proto, int *nch);

/* Does RCCL run LL128 on c's GPUs? Only on gfx90a (coll_rccl.c). */
int coll_rccl_ll128(const struct scenario *s, const struct coll_spec *c);

#endif
