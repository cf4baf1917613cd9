/*
 * p2ptest.h - what CUDA's p2pBandwidthLatencyTest would measure on a
 * scenario, computed by simulating each copy alone on the fabric.
 *
 * The sample copies 10,000,000 ints (40 MB) per bandwidth measurement and
 * one int per latency measurement, with cudaMemcpyPeerAsync: P2P when
 * peer access is enabled and possible, staged through host memory otherwise.
 * "P2P=Enabled" matrices use P2P only where the side the test runs on (the
 * guest in a VM) reports P2P OK; elsewhere they repeat the staged numbers,
 * as the real test does. The diagonal is a local copy at d2d_eff of the
 * GPU's memory bandwidth, and p2p_lat_us for latency. On a scenario of
 * several hosts it runs on the first host, as the sample runs on one.
 */
#ifndef PLUMB_P2PTEST_H
#define PLUMB_P2PTEST_H

#include <stdio.h>

#include "scn.h"

#define P2PT_BYTES 40000000.0    /* 10,000,000 x sizeof(int) */
#define P2PT_MAX_GPUS 64         /* GPUs of the host the matrices are for */
#define P2PT_LAT_BYTES 4.0

enum p2pt_matrix {
	P2PT_UNI_DISABLED, P2PT_UNI_ENABLED, P2PT_BI_DISABLED, P2PT_BI_ENABLED,
	P2PT_LAT_DISABLED, P2PT_LAT_ENABLED, P2PT_NMATRIX
};

struct p2pt_result {
	int n;                                   /* GPUs */
	int can[P2PT_MAX_GPUS][P2PT_MAX_GPUS];   /* P2P connectivity */
	double m[P2PT_NMATRIX][P2PT_MAX_GPUS][P2PT_MAX_GPUS];  /* GB/s or us */
};

/* Fill r for scenario s (its first host's GPUs, at most P2PT_MAX_GPUS).
 * Returns 0 or a negative plumb code. */
int p2pt_run(const struct scenario *s, struct p2pt_result *r, struct plumb_err *err);

/*
 * The test's P2P connectivity of GPUs a and b alone (p2pt_run's can[a][b],
 * without the matrices): 1 or 0, 0 for a GPU past the first host's; or a
 * negative plumb code.
 */
int p2pt_can(const struct scenario *s, int a, int b, struct plumb_err *err);

/* Print r in p2pBandwidthLatencyTest's layout. */
void p2pt_print(FILE *f, const struct scenario *s, const struct p2pt_result *r);

/* Title of a matrix as the test prints it. */
const char *p2pt_title(enum p2pt_matrix m);

#endif
