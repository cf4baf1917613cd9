/*
 * xfer.h - GPU-to-GPU transfers as flows in the engine: direct P2P DMA, or a
 * host bounce (sender's DMA into pinned host memory, receiver's DMA out).
 *
 * Timing model (docs/model-fabric.md "Transfers"):
 *  - A copy (a P2P transfer, or one leg of a bounce) is a flow on its path.
 *    Its first byte arrives after max(p2p_lat_us, path latency), so small
 *    copies cost the measured copy latency and long paths their wire time;
 *    then it moves at its max-min fair rate. In a VM whose host IOMMU
 *    translates, each copy adds vm_dma_us.
 *  - A bounce moves bytes in chunks of bounce_chunk_kib through staging
 *    buffers in host memory on the sender's socket, bounce_buffers of them
 *    shared by every bounce in flight (the driver's staging pool), handed out
 *    first come first served: leg 1 (GPU -> host) of chunk k starts once
 *    leg 1 of chunk k-1 is done and a buffer is free;
 *    after leg 1, a host synchronisation of bounce_floor_us - 2 p2p_lat_us
 *    passes before leg 2 (host -> GPU) starts; leg 2 frees the buffer.
 *    A small bounce therefore costs bounce_floor_us.
 *    When both legs cross one switch uplink (the GPUs share a switch),
 *    leg 1 of chunk k+1 also waits for leg 2 of chunk k: PCIe ordering
 *    keeps leg 2's read requests behind leg 1's posted writes.
 * Several transfers in flight share links through the flow network, so
 * contention (a shared root complex, the inter-socket link, host memory)
 * comes out of the simulation.
 *
 * Lifecycle: xfer_ctx_init() on an engine and a fabric the caller owns;
 * xfer_start() for each transfer; sim_run(); xfer_ctx_release().
 */
#ifndef PLUMB_XFER_H
#define PLUMB_XFER_H

#include "fabric.h"

enum xfer_method { XFER_P2P, XFER_BOUNCE };

struct xfer_ctx;

/* Called when a transfer's last byte has arrived. 0 or negative plumb code. */
typedef int (*xfer_done_fn)(struct xfer_ctx *x, void *arg, struct plumb_err *err);

struct xfer_ctx {
	struct sim_engine *eng;     /* borrowed */
	struct fabric *fab;         /* borrowed */
	int kind_sync;              /* engine event kind of the bounce sync timer */
	int active;                 /* transfers in flight */
	double bytes_done;          /* payload bytes delivered */
	int vm_translate;           /* VM with host IOMMU translate: add vm_dma_us */
	int free_bufs;              /* host staging buffers not in use */
	void **wait;                /* bounces queued for a buffer, FIFO */
	size_t nwait, capwait;
};

struct xfer_spec {
	int src, dst;               /* GPU indices */
	double bytes;               /* >= 0 */
	enum xfer_method method;
	int host_socket;            /* bounce staging socket; -1 = the sender's */
	double start;               /* absolute time >= now */
	xfer_done_fn done;          /* may be NULL */
	void *arg;
};

/* Returns 0 or a negative plumb code (registration failed). */
int xfer_ctx_init(struct xfer_ctx *x, struct sim_engine *eng, struct fabric *fab,
		  struct plumb_err *err);
void xfer_ctx_release(struct xfer_ctx *x);

/*
 * Start a transfer. Returns 0, -PLUMB_EINPUT (bad GPU index, bytes < 0, a
 * P2P transfer between GPUs without a path) or -PLUMB_ERUNTIME.
 */
int xfer_start(struct xfer_ctx *x, const struct xfer_spec *sp, struct plumb_err *err);

/* Small P2P copy latency between GPUs a and b, seconds: the larger of the
 * two catalog measurements, else p2p_lat_us. */
double xfer_copy_lat(const struct scenario *s, int a, int b);

/*
 * Convenience: simulate transfers alone on a fresh engine and fabric of s.
 * With bidir, a second transfer dst -> src runs at the same time.
 * *seconds receives the time until the last one completes.
 */
int xfer_time(const struct scenario *s, int src, int dst, double bytes,
	      enum xfer_method m, int bidir, double *seconds, struct plumb_err *err);

#endif
