/*
 * fabric.h - a scenario's data paths as links of the flow network.
 *
 * Links (each direction its own capacity resource, sim/flow.h):
 *  - every PCIe link between a node and its parent (GPU, NIC, switch uplink):
 *    lanes x per-lane rate x pcie_eff, up and down;
 *  - every root complex toward the socket's data fabric: rc_gbs, in and out
 *    (an I/O-die quadrant's cap);
 *  - host memory per socket: dram_gbs, one resource for reads and writes;
 *    with several NUMA nodes per socket (NPS2, NPS4) also each node's own
 *    channels, dram_gbs / numa_per_socket: memory allocated on a node is
 *    interleaved over that node's channels only;
 *  - inter-socket link per ordered socket pair: the scenario's bandwidth_gbs
 *    (or xsock_gbs);
 *  - NVLink: per GPU an NVSwitch port (links x per-link rate) up and down,
 *    or one link per direction of each point-to-point bond.
 * Every link has latency hop_ns. Paths never repeat a link.
 *
 * P2P between GPUs under one switch turns in the switch, unless the switch
 * enforces ACS P2P Request Redirect (topo_acs_redirect): then it climbs to
 * the root complex and back down, over the switch's uplink both ways.
 * Between partitions of one switch chip (`chip`, topo_chip_cross) it
 * crosses inside the chip.
 *
 * The fabric is the physical one: a VM's transfers run over the host's
 * tree; the guest view only decides which method (P2P or host bounce) is
 * allowed.
 */
#ifndef PLUMB_FABRIC_H
#define PLUMB_FABRIC_H

#include "flow.h"
#include "scn.h"

#define FAB_MAX_PATH 64
#define FAB_MAX_NUMA (SCN_MAX_SOCKETS * 8)

struct fabric {
	const struct scenario *s;     /* borrowed */
	struct sim_net *net;          /* owned */
	int up[SCN_MAX_NODES], down[SCN_MAX_NODES];      /* node <-> parent; -1 for a root complex */
	int rc_out[SCN_MAX_NODES], rc_in[SCN_MAX_NODES]; /* root complex <-> socket fabric */
	int dram[SCN_MAX_SOCKETS];
	int mem[FAB_MAX_NUMA];                           /* a NUMA node's channels, -1 if one node per socket */
	int xs[SCN_MAX_SOCKETS][SCN_MAX_SOCKETS];        /* socket s -> t */
	int nvl_up[SCN_MAX_GPUS], nvl_down[SCN_MAX_GPUS];/* NVSwitch ports, -1 if none */
	int nvp[SCN_MAX_GPUS][SCN_MAX_GPUS];             /* point-to-point NVLink a -> b, -1 if none */
	int acs_override;                                /* -1 each switch's acs, 0 off, 1 on */
};

/* Per-lane payload rate of PCIe generation gen before efficiency, GB/s. */
double fab_lane_gbs(int gen);

/* PCIe link capacity of node (its link to the parent), bytes/s. */
double fab_pcie_bytes_per_s(const struct scenario *s, int node);

/*
 * Build the links of scenario s on a new network driven by eng.
 * *out: new fabric, free with fab_free (frees the network too).
 * Returns 0 or a negative plumb code.
 */
int fab_build(struct sim_engine *eng, const struct scenario *s, struct fabric **out,
	      struct plumb_err *err);
void fab_free(struct fabric *f);

/* Route P2P as if every switch had ACS on (1) or off (0), or as the
 * scenario says (-1, the default): `--acs` of topo and render. */
void fab_set_acs(struct fabric *f, int acs_override);

/*
 * Path of a direct GPU-to-GPU transfer from GPU a to GPU b (GPU indices):
 * over NVLink when the GPUs share one, else PCIe up to the lowest common
 * ancestor (the root complex when that is a switch redirecting peer
 * requests under ACS), or through the root complexes, sockets' fabric and the
 * inter-socket link) and down. Writes link ids to path (room FAB_MAX_PATH);
 * returns the length.
 */
int fab_path_gpu(const struct fabric *f, int a, int b, int *path);

/* Path from GPU a into host memory of socket `sock`, and back out to GPU b. */
int fab_path_to_host(const struct fabric *f, int a, int sock, int *path);
int fab_path_from_host(const struct fabric *f, int sock, int b, int *path);

/* The same for a buffer on NUMA node `node` (its socket's memory and, with
 * several nodes per socket, the node's own channels). */
int fab_path_to_node(const struct fabric *f, int a, int node, int *path);
int fab_path_from_node(const struct fabric *f, int node, int b, int *path);

/* NUMA node of GPU a (its root complex's). */
int fab_gpu_numa(const struct fabric *f, int a);

/* Socket of GPU a (its root complex's). */
int fab_gpu_socket(const struct fabric *f, int a);

/* Sum of the latencies of a path, seconds. */
double fab_path_latency(const struct fabric *f, const int *path, int n);

#endif
