/*
 * predict_kvtier.h - KV cache moves between a layout's GPUs and host
 * memory, simulated on the scenario's fabric: the host tier of a serving
 * run (serve.h host_kv_tokens, docs/model.md "KV tiers").
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

/* Seconds to move tok_out tokens of KV from c's GPUs to host memory and
 * tok_in back, at once, on a fresh fabric of c's scenario. Errors: the
 * fabric's (out of memory). */
int pred_kvio_time(const struct pred_cfg *c, int far, double tok_out, double tok_in,
		   double *seconds, struct plumb_err *err);

/* serve_kvio_fn adapter: ctx is a struct pred_kvio *. */
int pred_kvio_fn(void *ctx, long tokens_out, long tokens_in, double *seconds,
		 struct plumb_err *err);

#endif
