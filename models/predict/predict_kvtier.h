/*
 * predict_kvtier.h - KV cache moves between a layout's GPUs and host
 * memory, simulated on the scenario's fabric: the host tier of a serving
 * run (serve.h host_kv_tokens, docs/model-serving.md "KV tiers").
 *
 * Each GPU of one copy of the layout moves its share of the tokens' KV
 * (pred_kv_bytes_gpu) to or from a buffer in host memory on its own NUMA
 * node (near) or on the next socket's (far), over the GPU's PCIe path;
 * all GPUs and both directions at once, so a shared switch uplink, root
 * complex, inter-socket link or memory channel splits its rate. Each copy
 * starts after the copy latency (p2p_lat_us, plus vm_dma_us in a VM whose
 * IOMMU translates).
 */
#ifndef PLUMB_PREDICT_KVTIER_H
#define PLUMB_PREDICT_KVTIER_H

#include "predict.h"

struct fabric;

/* The serve_kvio_fn context: c borrowed (outlives the run). */
struct pred_kvio {
	const struct pred_cfg *c;
	int far;                /* 1: buffers on the next socket's NUMA node */
};

void pred_kvio_init(struct pred_kvio *k, const struct pred_cfg *c, int far);

/* KV bytes a token of a request takes over every GPU of one copy of the
 * layout: what a token offloaded to host memory occupies there. */
double pred_kvio_bytes_per_token(const struct pred_cfg *c);

/* The NUMA node a host buffer of GPU g sits on (near: the GPU's own). */
int pred_kvio_node(const struct fabric *f, int g, int far);

/*
 * How much longer a step of shape sh (step_s alone) lasts when it moves
 * tok_out tokens of KV from c's GPUs to host memory and tok_in back, on a
 * fresh fabric of c's scenario that carries the step's own collectives
 * too: the loads first (the step's pass reads the reloaded KV), then the
 * step, its collectives and those of the layout's other replicas, which
 * step at once (bytes from each GPU to the next of its ring, in bursts at
 * the links' rate), beside the stores still under way, which
 * take their share of the links they cross; the step ends when its own
 * time, lengthened by what its collectives lost, and the stores are done.
 * sh NULL or step_s 0: the moves alone. Errors: the fabric's, the step
 * programs'.
 */
int pred_kvio_time(const struct pred_cfg *c, int far, const struct serve_shape *sh,
		   double step_s, double tok_out, double tok_in, double *extra,
		   struct plumb_err *err);

/* serve_kvio_fn adapter: ctx is a struct pred_kvio *. */
int pred_kvio_fn(void *ctx, const struct serve_shape *sh, double step_s, long tokens_out,
		 long tokens_in, double *extra, struct plumb_err *err);

/* The bytes each GPU of c sends to the next of its ring in a step of shape
 * sh through its collectives (each collective of the first stage's
 * program, all microbatches, as a ring moves it: 2 (n - 1) / n of its
 * bytes for an all-reduce, (n - 1) / n for the others); 0 for one GPU. */
int pred_ring_bytes(const struct pred_cfg *c, const struct serve_shape *sh, double *out,
		    struct plumb_err *err);

/* GPU k's ring neighbour in a copy whose first GPU is base: the next GPU
 * of its pipeline stage. */
int pred_ring_next(const struct pred_cfg *c, int base, int k);

#endif
