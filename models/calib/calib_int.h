/*
 * calib_int.h - internals shared by the files of models/calib: the map
 * between the solver's variable and a constant's value (calib_prior.c),
 * the free constants a case informs and the transports its collectives
 * took (calib.c), the data blocks and size groups points belong to
 * (calib_ident.c).
 */
#ifndef PLUMB_CALIB_INT_H
#define PLUMB_CALIB_INT_H

#include <stddef.h>
#include <stdio.h>

#include "calib.h"

/* Fit bounds of constant k started at start (start is inside them). */
void calib_bounds(int k, double start, double *lo, double *hi);
/* Where value sits in [lo, hi] on the map's log scale, 0 to 1. */
double calib_map_pos(double value, double lo, double hi);
/* value = exp(log lo + (log hi - log lo) logistic(u)), and back. */
double calib_to_value(double u, double lo, double hi);
double calib_to_u(double value, double lo, double hi);

/* The constants case ci's data informs, added to idx (n of max used). */
void calib_case_free(const struct val_set *v, int ci, int *idx, int *n, int max);

/*
 * The NCCL_P2P_LEVEL collective case ci assumed, in words into level (size
 * n), and how the ring over its mapped GPUs hops: *p2p hops by P2P, *shm
 * through host memory (NCCL's SHM transport). Returns -1 when the topology
 * cannot be built.
 */
int calib_case_hops(const struct val_set *v, int ci, int *p2p, int *shm, char *level, size_t n);

/* "name" or, for a joint fit's per-scenario parameter, "name@scenario". */
const char *calib_param_name(const struct calib_result *r, int j, char *buf, size_t n);

/*
 * The data block point p belongs to, into buf (size n): "decode",
 * "serving", "p2p", or a collective's op ("all_reduce", "sendrecv", ...).
 */
void calib_block_of(const struct val_set *v, const struct val_point *p, char *buf, size_t n);

/*
 * Per-block model error and same-sign residual groups of r's training
 * points (train[0..nt) index v->points, res the log residuals): fills
 * r->blk_* and r->flag*. dof_scale is npoints / dof, so that the blocks'
 * errors pool to r->sd.
 */
void calib_blocks(const struct val_set *v, const int *train, const double *res, int nt,
		  double dof_scale, struct calib_result *r);

/* What data would pin constant k apart from the others, in words. */
const char *calib_hint(int k);

/*
 * The directions of r's constants its data cannot resolve (the data's
 * information along them is below the prior's), each printed to f (NULL:
 * not printed) as the constants it mixes and the combination the data do
 * determine, with its value and standard error. resolve (size rn, may be
 * NULL) gets, for every constant involved, the data that would pin it.
 * Returns the number of such directions.
 */
int calib_ident(FILE *f, const struct calib_result *r, char *resolve, size_t rn);

/* Does parameter group g (-1: every case) reach case c (cg: case ->
 * group, NULL: every case)? */
int calib_reaches(int g, const int *cg, int c);

/*
 * The parameters (idx[j], grp[j]) some training point of v depends on
 * (moving one by 5% moves a point by more than 0.1%) into r->idx and
 * r->grp, the others into r->dropped with the value they keep. Returns 0
 * or a negative plumb code (a simulation failed).
 */
int calib_drop_uninformed(struct val_set *v, const int *idx, const int *grp, const int *cg,
			  int n, struct calib_result *r, struct plumb_err *err);

/* Record what scenario group g's first case ran on into d (cg: case ->
 * group). */
void calib_describe(const struct val_set *v, const int *cg, int g, struct calib_scn *d);

#endif
