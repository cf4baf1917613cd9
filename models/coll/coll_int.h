/*
 * coll_int.h - what coll.c and coll_chain.c share inside models/coll/: the
 * rings and chains a collective runs over.
 */
#ifndef PLUMB_COLL_INT_H
#define PLUMB_COLL_INT_H

#include "coll.h"

/* NCCL's chunk for pipelined chains: NCCL_BUFFSIZE 4 MiB over NCCL_STEPS 8. */
#define COLL_CHUNK (512.0 * 1024)
#define COLL_MAX_CHUNKS 64

enum { PH_RING, PH_REDUCE, PH_BCAST, PH_DIRECT, PH_SHOT1, PH_SHOT2 };

struct crun {
	const struct scenario *s;
	struct sim_engine *eng;
	struct fabric *fab;
	struct coll_ctx *ctx;
	struct coll_spec spec;
	const struct coll_spec *c;      /* &spec */
	coll_done_fn done;
	void *arg;
	double t0;
	const struct topo_view *view;
	int algo, proto;
	int n;
	double eff;                 /* payload fraction on the wire */
	int nch;                    /* channels: parallel flows per send */
	double ch_cap;              /* per-channel wire rate cap (LL, LL128), 0 = none */
	double shm_ll_cap;          /* per-channel wire rate cap of LL over SHM, 0 = none */
	double *step_lat;           /* n x n, per hop, seconds (allocated with the run) */
	unsigned char *shm;         /* n x n, 1: hop bounces through host, 2: between
				       hosts (NCCL's NET, fab_path_net) */
	int kind_send;
	/* ring */
	int nsteps;
	double chunk;
	int *got;                   /* [n] ring: steps received */
	int *gpus;                  /* [n] spec.gpus, the run's own copy */
	/* RCCL's rings on an xGMI mesh (coll_rccl.c): nring rings at once,
	 * each its own successor per rank and its own steps received; 0 for
	 * the one ring in rank order. One block, r->rsucc. */
	int nring;
	int *rsucc;                 /* nring x n */
	int *rgot;                  /* nring x n */
	/* chains (tree, broadcast): nchain chains of the n ranks, each its
	 * own order; per chain, phase (0 reduce, 1 broadcast) and position:
	 * chunks sent and received, and whether a send is in flight (a rank
	 * sends a chain's chunks one after another). One block, r->ord. */
	int nchain, nways;
	int *ord;                   /* nchain x n: the rank at each position */
	int *pos;                   /* nchain x n: each rank's position */
	int *cst;                   /* nchain x 2 x n x 3: sent, received, busy */
	int *cway;                  /* nchain x (nways + 1): the chain's NIC ways
				       between hosts, their count first; 0 = every way */
	int nchunks;
	int recv_total, recv_need;
	int shot2;                  /* two-shot: the second phase has started */
	int msccl;                  /* two-shot as RCCL's MSCCL allpairs (coll_rccl.c) */
	double t_first;             /* from the start to the first sends: NCCL's base
				       latency and floor, or the engine kernel's fixed time */
	/* RCCL's ring all-reduce with chunks that carry no data (coll_rccl.c
	 * coll_rccl_ring_chunks): kdata of the loop's n chunks hold elements
	 * (0: every one, the ring runs in lockstep); a step without data
	 * costs its rank idle seconds and waits for nothing. */
	int kdata;
	double idle;
	struct rsparse *sp;         /* the flow model's state of such a ring */
	struct crun *prev, *next;   /* the context's runs in flight */
	struct sendrec *sends;      /* sends in flight */
};

struct sendrec {
	struct crun *r;
	int src, dst, phase, idx;
	int ch;                     /* the chain of a chain's send, else -1 */
	double bytes;
	int remaining;              /* channel flows still in flight */
	struct sendrec *prev, *next;    /* the run's sends in flight */
};


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

/* RCCL's ring all-reduce of `bytes` (float elements) over n ranks in one
 * loop (coll_rccl.c): how many of the loop's n chunks carry data, when
 * some do not (1 .. n - 1); 0 when every chunk does. */
int coll_rccl_ring_chunks(double bytes, int n);

/* Does the rank at ring position pos carry data at ring step s of a ring
 * whose first k chunks hold the elements? (RCCL's runRing chunk order) */
int coll_rccl_step_data(int pos, int s, int n, int k);

/* The flow model of such a ring (coll_rccl.c): start it (at t_first),
 * take a send's arrival, and free its state. */
int coll_sparse_start(struct crun *r, struct plumb_err *err);
int coll_sparse_recv(struct crun *r, const struct sendrec *sr, struct plumb_err *err);
void coll_sparse_free(struct crun *r);

/* coll.c's send (send_ch) with its flows started `shift` seconds later
 * (shift may be negative down to minus the send's delay), and the run's
 * end (every rank done: report and free it) `after` seconds from now. */
int coll_send_shift(struct crun *r, int src, int dst, int phase, int idx, double bytes,
		    int chain, double shift, struct plumb_err *err);
int coll_finish_after(struct crun *r, double after, struct plumb_err *err);

/* RCCL's allpairs (coll_rccl.c): the seconds its ranks spend in their own
 * memory after phase 1's exchange (1: the received shards copied out of
 * the connections' buffers, and the reduces) or phase 2's (2: the copies). */
double coll_msccl_local_s(const struct crun *r, int phase);

/* Does RCCL run LL128 on c's GPUs? Only on gfx90a (coll_rccl.c). */
int coll_rccl_ll128(const struct scenario *s, const struct coll_spec *c);

/* One flow of a send as coll.c starts it (coll_send_flow): its path (into
 * buf or the fabric's routes), wire bytes, rate cap (0: none), delay from
 * the send to the flow's start, and how many identical copies start (the
 * channels of a send inside a host). */
struct coll_flow {
	int buf[FAB_MAX_PATH];
	const int *path;
	int len, mult;
	double bytes, cap, delay;
};

/* Flow w of the send of `bytes` from rank src to dst (chain: the tree's
 * chain, else -1) into *f; returns the send's count of distinct flows (w
 * ranges over 0 .. count - 1). O(path length). */
int coll_send_flow(const struct crun *r, int src, int dst, double bytes, int chain, int w,
		   struct coll_flow *f);

/* A run of c with (algo, proto) set up but not started: transports, step
 * latencies of the pairs its schedule uses, channels, caps, steps, chains.
 * Returns 0 (*out owned by the caller: coll_run_free), 1 when the protocol
 * or algorithm is not available here (*out NULL), or a negative code. */
int coll_run_new(struct coll_ctx *x, const struct coll_spec *c, int algo, int proto,
		 struct coll_result *res, struct crun **out, struct plumb_err *err);
void coll_run_free(struct crun *r);

/*
 * The closed form (coll_closed.c, docs/model-collectives.md "Closed form"): the time of
 * run r alone from one step of its sends solved at once (each group of
 * flows that share links by itself), then the ring's or the chains'
 * recurrence over the sends' times. *shared: 0 when every link carries
 * one pair's sends (then exact), 1 when some link carries several (the
 * step solve assumes they run in step). Returns 0 with *seconds, 1 when
 * the closed form does not hold (*why says which condition failed) or a
 * negative code (out of memory).
 */
int coll_closed(const struct crun *r, double *seconds, int *shared, const char **why,
		struct plumb_err *err);

/* The wait between a two-shot's exchanges (the engine kernel's second
 * barrier, or RCCL's allpairs reducing its n - 1 shards), seconds. */
double coll_shot_barrier(const struct crun *r);

/*
 * A lower bound on the flow model's time of run r alone (coll_bound.c): a
 * ring (all-reduce, all-gather, reduce-scatter, RCCL's mesh rings), the
 * engine's one-shot and two-shot kernels, RCCL's allpairs. No flow ends
 * before its delay and path latency plus its bytes at the least of its cap
 * and its links' capacities, and no link carries its flows' bytes faster
 * than its capacity from the first of them on. The search leaves a
 * candidate unsimulated when its bound is above the best time simulated
 * (coll_search.c). 0 with *lb, 1 for another algorithm or op (chains,
 * broadcast, send/recv, all-to-all), or a negative code (out of memory).
 */
int coll_bound(const struct crun *r, double *lb, struct plumb_err *err);

/* 1 (the default): the search leaves unsimulated the candidates that
 * cannot be the fastest (their closed form or their bound above the best
 * simulated); 0: it simulates every one (tests compare the two). */
extern int coll_search_prune;

/*
 * The tuner's time of a ring collective across hosts from a grid of sizes
 * (coll_grid.c, docs/model-collectives.md "Across hosts: a grid of
 * sizes"): for the step model's questions (flow COLL_FLOW_GRID) of
 * COLL_GRID_MIN bytes or more, the search runs at the ends and the middle
 * of the grid's cell around the size (COLL_GRID_M cells an octave) and,
 * where the three chose the same candidate and the middle lies on the
 * ends' line within COLL_GRID_BEND (relative), its time is interpolated
 * linearly in the size's half (within COLL_GRID_TOL of the search on the
 * bundled boxes of several hosts). coll_grid_m: the cells an octave (a
 * power of two), 0 to search every size (tests compare the two).
 * coll_grid_applies: is c such a question? coll_grid_anchors: the cell
 * lo <= bytes < hi for m cells an octave. coll_grid_time: 0 with *r (the
 * interpolated answer), 1 when the size is to be searched itself (not
 * such a question, an anchor, or the cell's choice changes or its time
 * bends), or a negative code.
 */
#define COLL_GRID_M 8
#define COLL_GRID_MIN 65536.0
#define COLL_GRID_TOL 1e-3
/* the largest bend (the middle's distance from the ends' line, relative)
 * a cell is interpolated across: a quarter of COLL_GRID_TOL, so that a
 * size between an end and the middle, on a curve that bends by at most
 * this much within its cell, lies within COLL_GRID_TOL of the line (the
 * measured errors under it: docs/model-collectives.md) */
#define COLL_GRID_BEND 2.5e-4
extern int coll_grid_m;
int coll_grid_applies(const struct scenario *s, const struct coll_spec *c);
void coll_grid_anchors(double bytes, int m, double *lo, double *hi);
int coll_grid_time(struct coll_scn *e, const struct scenario *s, const struct coll_spec *c,
		   struct coll_result *r, struct plumb_err *err);

#endif
