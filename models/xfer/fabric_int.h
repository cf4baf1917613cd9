/*
 * fabric_int.h - what fabric.c and fabric_net.c share inside the fabric.
 */
#ifndef PLUMB_FABRIC_INT_H
#define PLUMB_FABRIC_INT_H

#include "fabric.h"

/* The root complex above node n. */
int fab_root_of(const struct scenario *s, int n);

/* Append the up links from node n to (not including) ancestor stop; the
 * path's new length. */
int fab_climb(const struct fabric *f, int n, int stop, int *path, int len);

/* Append the down links from ancestor stop (excluded) to node n, top
 * first; the path's new length. */
int fab_descend(const struct fabric *f, int stop, int n, int *path, int len);

/* The GPU of NIC node k's host nearest it, among the nhg GPUs hgpu of that
 * host; the idx-th NIC child of its parent takes the (idx mod n)-th of the
 * n nearest (fabric_net.c). */
int fab_nic_gpu_of(const struct scenario *s, const int *hgpu, int nhg, int k, int idx);

#endif
