/*
 * coll.h - NCCL-style collectives simulated as flows on the fabric.
 *
 * Algorithms (docs/model-collectives.md "Collectives"):
 *  - ring: ranks in GPU order form a ring; all-reduce runs 2(n-1) steps,
 *    all-gather and reduce-scatter n-1 steps, each step every rank sending
 *    size/n bytes to its successor. A rank sends step k+1 once it has
 *    received step k (the data dependency), so a slow link delays the ring
 *    and contention between concurrent sends comes from the flow network.
 *  - tree: NCCL's intra-node tree, a chain: the data, cut in chunks, is
 *    reduced down the chain and broadcast back up, pipelined chunk by chunk.
 *  - broadcast: a chain from the root, pipelined in chunks.
 *  - all-to-all: every rank sends size/n to every other rank at once.
 *  - send/recv: every rank sends size to its successor at once.
 * Protocols: LL (8 data bytes per 16), LL128 (120 per 128; only when every
 * link of the collective is NVLink, as NCCL disables it on PCIe), Simple.
 * Each costs NCCL's base latency once and its per-step hardware latency on
 * every hop (src/graph/tuning.cc); a hop that bounces through host memory
 * (NCCL's SHM transport) adds nccl_shm_step_us and is capped at nccl_shm_gbs.
 * With protocol "auto" every candidate is simulated and the fastest kept,
 * as NCCL's tuner picks the fastest by its model; algorithm "auto" is the
 * ring, which NCCL's model rates above its tree inside one node.
 *
 * Transport per pair comes from the topology view NCCL runs in (the guest
 * for a VM): P2P over the fabric path, else SHM through host memory of the
 * receiver's socket (NCCL's default NCCL_SHM_LOCALITY).
 */
#ifndef PLUMB_COLL_H
#define PLUMB_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "topo.h"

enum coll_op { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER, COLL_BROADCAST,
	       COLL_ALLTOALL, COLL_SENDRECV, COLL_NOPS };
/* ALGO_ONESHOT: a serving engine's one-shot all-reduce over P2P (every rank
 * reads every peer's whole buffer and reduces locally), not NCCL's.
 * ALGO_TWOSHOT: its two-shot kernel (each rank reads its 1/n shard from
 * every peer and reduces it, then every rank reads every reduced shard). */
enum coll_algo { ALGO_AUTO = -1, ALGO_RING, ALGO_TREE, ALGO_ONESHOT, ALGO_TWOSHOT };
/* coll_spec.custom: the engine's kernels algorithm auto may pick */
enum { COLL_CUSTOM_ONESHOT = 1, COLL_CUSTOM_TWOSHOT = 2,
       /* set by the search, not by engines: the two-shot is RCCL's MSCCL
	* allpairs all-reduce, at RCCL's protocol costs (coll_rccl.c) */
       COLL_CUSTOM_MSCCL = 4 };
enum coll_proto { PROTO_AUTO = -1, PROTO_LL, PROTO_LL128, PROTO_SIMPLE, PROTO_N };

/* A collective's description. */
struct coll_spec {
	enum coll_op op;
	int n;                      /* ranks */
	const int *gpus;            /* [n] rank -> GPU index (borrowed: coll_start and
				       the caches keep their own copies) */
	double bytes;               /* nccl-tests "size" */
	int algo;                   /* enum coll_algo */
	int proto;                  /* enum coll_proto */
	int root;                   /* broadcast root rank */
	int custom;                 /* all-reduce: with algorithm auto, the engine's
				       kernels that are candidates too
				       (COLL_CUSTOM_*, coll_custom_of()) */
	int flow;                   /* 1: the flow model even where the closed
				       form holds (coll_time; docs/model-collectives.md);
				       COLL_FLOW_GRID: as 1, but a ring across hosts
				       from the tuner's grid of sizes (the step model's,
				       coll_grid.c) */
};
#define COLL_FLOW_GRID 2

struct coll_result {
	double seconds;
	int algo, proto;            /* what ran (the fastest when auto) */
	int shm_hops, p2p_hops;     /* ring neighbours by transport */
	int net_hops;               /* ring neighbours on different hosts (NET) */
	double busbw_factor;
	int closed;                 /* the time is the closed form's: 1 every link one
				       pair's, 2 links shared in step; 0 the flow model's */
	const char *why;            /* with closed 0: why the closed form did not hold
				       (a static string), NULL when forced or one rank */
};

/*
 * Several collectives on one engine: a context on the caller's engine,
 * fabric and topology view (all borrowed), then coll_start() per
 * collective; concurrent collectives share links through the flow network.
 */
struct coll_ctx;
struct crun;
typedef int (*coll_done_fn)(struct coll_ctx *x, double seconds, void *arg,
			    struct plumb_err *err);

struct coll_ctx {
	struct sim_engine *eng;
	struct fabric *fab;
	const struct topo_view *view;   /* decides P2P vs SHM per pair */
	int kind_start;
	int active;                     /* collectives in flight */
	struct crun *runs;              /* their state, freed by coll_ctx_release() */
};

/* Returns 0 or a negative plumb code (registration failed). */
int coll_ctx_init(struct coll_ctx *x, struct sim_engine *eng, struct fabric *fab,
		  const struct topo_view *view, struct plumb_err *err);

/*
 * Free the state of collectives still in flight: a run stopped early (an
 * error, the event budget) leaves them. Call before freeing the engine and
 * the fabric; x can be initialised again afterwards.
 */
void coll_ctx_release(struct coll_ctx *x);

/*
 * Start collective c with the given algorithm and protocol (not auto) at
 * absolute time `start`; done(x, seconds since start, arg) runs when every
 * rank has its data. Fills res's hop counts when res is not NULL.
 * Returns 0, 1 when the protocol is not available on these links (LL128
 * off NVLink; nothing started), or a negative plumb code.
 */
int coll_start(struct coll_ctx *x, const struct coll_spec *c, int algo, int proto,
	       double start, coll_done_fn done, void *arg, struct coll_result *res,
	       struct plumb_err *err);

/*
 * The links collective c uses when run with algorithm `algo`: sets used[l]
 * to 1 for every link on the path of every rank pair its schedule sends
 * over (a superset for broadcast: the ring's pairs). used has room for the
 * fabric's sim_net_nlinks() entries and is not cleared first. A collective
 * whose links carry nothing else while it runs takes the same time wherever
 * it starts, which is what a replay cache relies on (models/step).
 */
void coll_links(const struct coll_ctx *x, const struct coll_spec *c, int algo,
		unsigned char *used);

/*
 * NCCL's decisions (coll_tune.c), each from the NCCL source line it
 * follows (docs/model-collectives.md "Collectives"). Bandwidths are NCCL's own units.
 *
 * coll_graph_of: the ring graph NCCL's search finds on c's ranks (in rank
 * order) and the channels it runs: SMxx_NVLINK_BW per NVLink, PCIe width x
 * speed / 80, the speed arrays of src/graph/search.cc, ncclTopoDupChannels
 * and connect.cc's doubling; p2pnChannelsPerPeer and the p2p chunk size.
 * A scenario that sets nccl_channels overrides the communicator's count.
 * A ring whose slowest hop is below the array's lowest speed has no ring
 * the search accepts: NCCL falls back to the ranks in order, one ring at
 * 0.1 GB/s (search.cc "falling back to simple order"), which its tuner
 * then weighs (g->fallback).
 * coll_tune_nch: the channels a ring collective of `bytes` runs
 * (src/enqueue.cc), at least 1; coll_tune_nthreads: the threads each of
 * those channels runs (src/enqueue.cc halves them once one channel is
 * left), at least 96.
 * coll_tune_time: NCCL's tuner estimate for protocol `proto` in us (-1
 * when the protocol is off: LL128 off NVLink); coll_tune_proto: the
 * protocol it picks (the least estimate).
 * coll_p2p_nch: channels of one send of `bytes` to one of nranks peers
 * (src/enqueue.cc scheduleP2pTasksToPlan); coll_p2p_ll: 1 when that send
 * uses LL (NCCL_P2P_LL_THRESHOLD 16384 per channel).
 */
struct coll_graph {
	int nvlink;                 /* every hop of the ring is NVLink */
	int sm;                     /* lowest compute capability x 10 */
	double hop_gbs;             /* slowest ring hop */
	double gpu_gbs;             /* what the rings leaving a GPU share */
	int graph_ch;               /* the search's rings after its duplication */
	double bw_intra;            /* per ring, GB/s */
	int fallback;               /* no ring at the array's lowest speed: NCCL's
				     * "simple order" (one ring at 0.1 GB/s) */
	int nch;                    /* channels of the communicator */
	int p2p_ch_per_peer;        /* p2pnChannelsPerPeer */
	int p2p_nch;                /* p2pnChannels */
	int p2p_chunk;              /* bytes: NCCL_P2P_NVL_CHUNKSIZE or _PCI_ */
};
void coll_graph_of(const struct scenario *s, const struct topo_view *v, const struct coll_spec *c,
		   struct coll_graph *g);
int coll_tune_nch(const struct coll_graph *g, double bytes, int nranks, int proto);
int coll_tune_nthreads(const struct coll_graph *g, double bytes, int nranks, int proto);
double coll_tune_time(const struct scenario *s, const struct coll_graph *g,
		      const struct coll_spec *c, int proto);
int coll_tune_proto(const struct scenario *s, const struct coll_graph *g, const struct coll_spec *c);
int coll_p2p_nch(const struct coll_graph *g, double bytes, int nranks);
int coll_p2p_ll(double bytes, int nch);

/* nccl-tests names: "allreduce" or "all_reduce"; -1 when unknown. */
int coll_op_parse(const char *s);
const char *coll_op_name(enum coll_op op);      /* "all_reduce" ... */
const char *coll_algo_name(int a);
/* The engine kernels (COLL_CUSTOM_*) a scenario's custom_allreduce allows. */
int coll_custom_of(const struct scenario *s);
const char *coll_proto_name(int p);

/* nccl-tests bus bandwidth factor: busbw = algbw x factor. */
double coll_busbw_factor(enum coll_op op, int n);

/*
 * Time one collective alone on scenario s: in closed form where every link
 * it uses carries one pair's sends and a ring hop's sends never overlap
 * (coll_closed.c, docs/model-collectives.md "Closed form"; the same time as the flow
 * model's to its last printed digit), else by simulating its flows; c->flow
 * forces the flows. r->closed says which ran (transports from the view
 * NCCL runs in, with topo options o). Returns 0 or a negative plumb code.
 */
int coll_time(const struct scenario *s, const struct topo_opts *o,
	      const struct coll_spec *c, struct coll_result *r, struct plumb_err *err);

/*
 * Shared derived state (coll_cache.c). What every simulation of a scenario
 * derives from it alone - the view NCCL runs in, every GPU pair's routes,
 * the tuner's answer per collective - is computed once per scenario content
 * and topology options and kept for the process (at most 16 scenarios, the
 * least recently used one that nobody holds dropped first). Thread-safe.
 *
 * coll_scn_get: the entry for (s, o), found by content (a scenario with the
 * same bytes and the same catalog entries for its nodes shares it; one
 * whose constants changed does not, unless only the step model's kernel
 * constants changed, or on bare metal a VM's host-path constants, which
 * nothing derived here reads; entries of one machine under other
 * constants share its view and routes, which read no constant). *out is held until
 * coll_scn_put. Errors: those of topo_build and
 * fab_build. The entry's view and routes are read-only and valid while it
 * is held.
 * coll_scn_id: an id no other content gets during the process.
 * coll_scn_clear: drop every entry nobody holds (tests; nothing needs it).
 */
struct coll_scn;
struct fab_routes;
int coll_scn_get(const struct scenario *s, const struct topo_opts *o, struct coll_scn **out,
		 struct plumb_err *err);
void coll_scn_put(struct coll_scn *e);
const struct topo_view *coll_scn_view(const struct coll_scn *e);
const struct fab_routes *coll_scn_routes(const struct coll_scn *e);
uint64_t coll_scn_id(const struct coll_scn *e);
void coll_scn_clear(void);

/* The tuner's answer kept for collective c (1, *r filled) or not (0);
 * keep one with coll_scn_choice_add. */
int coll_scn_choice(struct coll_scn *e, const struct coll_spec *c, struct coll_result *r);
void coll_scn_choice_add(struct coll_scn *e, const struct coll_spec *c,
			 const struct coll_result *r);

/* coll_time on the entry of s and o (held by the caller): the same result,
 * computed once per distinct c. */
int coll_time_in(struct coll_scn *e, const struct scenario *s, const struct coll_spec *c,
		 struct coll_result *r, struct plumb_err *err);

/*
 * A VM guest's host path (vmhost.c, docs/model-vm.md "A VM's host path"): the
 * extra time, us, of one NCCL ring step through host memory in scenario s's
 * guest: vm_shm_step_us when the scenario or a calibration gives it, else
 * the physical estimate (exits, IOTLB misses, NUMA placement) times
 * vm_path_scale; 0 on bare metal.
 */
double coll_vm_step_us(const struct scenario *s);

/* Does k hold a VM host-path constant of the VM's own (scenario or
 * calibration)? Then the interval draws leave the VM's path alone. */
int coll_vm_measured(const struct plumb_consts *k);

/* Is s a VM without P2P in its guest whose host path nobody measured? */
int coll_vm_unmeasured(const struct scenario *s);

/* The warning for such a VM (what is assumed, how to measure it) into buf
 * (n bytes, cut to fit); 1 when s has one, else 0 and buf untouched. */
int coll_vm_note(const struct scenario *s, char *buf, size_t n);

#endif
