/*
 * fabric.h - a scenario's data paths as links of the flow network.
 *
 * Links (each direction its own capacity resource, sim/flow.h):
 *  - every PCIe link between a node and its parent (GPU, NIC, switch uplink):
 *    lanes x per-lane rate x pcie_eff, up and down;
 *  - where such a link ends at a port of a switch chip, that port with both
 *    directions together: switch_duplex_eff x twice the link (Gen5 switches
 *    forward about 95% of two links' worth with traffic both ways, where a
 *    GPU on a root port moves the full two), no latency of its own; a path
 *    lists it after the link;
 *  - every root complex toward the socket's data fabric: rc_gbs, in and out
 *    (an I/O-die quadrant's cap);
 *  - host memory per socket: dram_gbs, one resource for reads and writes;
 *    with several NUMA nodes per socket (NPS2, NPS4) also each node's own
 *    channels, dram_gbs / numa_per_socket: memory allocated on a node is
 *    interleaved over that node's channels only;
 *  - inter-socket link per ordered pair of sockets of one host: the
 *    scenario's bandwidth_gbs (or xsock_gbs); a scenario of at most
 *    FAB_XS_ALL_PAIRS sockets has one per pair across hosts too (on no
 *    path, but the link ids after them, a trace's link tracks, stay those
 *    of the fabric before links were per host);
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

/* The longest path: a network path is four PCIe legs (GPU or NIC up to its
 * root complex, or down from it), each at most 2 links (link and switch
 * port) per level of SCN_MAX_SWITCH_DEPTH switches plus the device's and
 * root port's own, and at most 16 more (NVLink hops, root complex, inter-
 * socket, memory and network links). fab_* paths assert they stay inside. */
#define FAB_MAX_PATH (4 * 2 * (SCN_MAX_SWITCH_DEPTH + 2) + 16)
/* Scenarios of up to this many GPUs get the table of every pair's routes
 * (fab_routes_build): 2 x N^2 paths, cheap at 128 GPUs; a larger one
 * computes each path when asked (the same links). */
#define FAB_ROUTES_MAX_GPUS 128
#define FAB_XS_ALL_PAIRS 32

/*
 * Every GPU pair's paths (fab_path_gpu and fab_path_shm), computed once for
 * a scenario and shared by the fabrics built for the same scenario content
 * (fab_use_routes): link ids depend only on the scenario, as fab_build adds
 * links in a fixed order. Build from a fabric with the ACS setting the
 * routes are for; they answer only fabrics with that setting.
 */
struct fab_routes {
	int ngpus;
	int acs_override;
	int *off;           /* [2 x ngpus x ngpus + 1]: kind x (a, b) -> start in ids */
	int *ids;
	/* GPU g's legs to and from its host's NICs (fab_path_net): leg row
	 * leg_gpu[g] + 2 j + dir is NIC j of g's host, sending (dir 0) or
	 * receiving (dir 1), links leg_ids[leg_off[row] .. leg_off[row + 1]);
	 * NULL without a network */
	int *leg_gpu;       /* [ngpus + 1] */
	int *leg_off;
	int *leg_ids;
};

/*
 * Link ids of the scenario's parts (-1: none), in tables sized to the
 * scenario (one block, owned). Point-to-point NVLink is sparse: GPU a's
 * bonds are nvp_peer/nvp_link[nvp_off[a] .. nvp_off[a + 1]) (fab_nvp);
 * the inter-socket links are those of each host's own sockets (fab_xs).
 */
struct fabric {
	const struct scenario *s;     /* borrowed */
	struct sim_net *net;          /* owned */
	int *up, *down;               /* [nnodes] node <-> parent; -1 for a root complex */
	int *dpx;                     /* [nnodes] a switch port's link, both ways together
					 (switch_duplex_eff); -1 if none */
	int *rc_out, *rc_in;          /* [nnodes] root complex <-> socket fabric */
	int *dram;                    /* [sockets] */
	int nmem;
	int *mem;                     /* [nmem] a NUMA node's channels, -1 if one node per socket */
	int *xs_group;                /* [sockets] the sockets a socket has links to: its
					 host's (all of them up to FAB_XS_ALL_PAIRS) */
	int *xs_row;                  /* [sockets] socket s's row in xs */
	int *xs;                      /* row s: s -> each socket of its group, from the first */
	int *nvl_up, *nvl_down;       /* [ngpus] NVSwitch ports, -1 if none */
	int *nvp_off;                 /* [ngpus + 1] */
	int *nvp_peer, *nvp_link;     /* point-to-point NVLink a -> peer */
	int *net_up, *net_down;       /* [nnodes] NIC port -> network switch and back, -1 for
					 other nodes */
	int *hnic_off;                /* [nhosts + 1] host h's NIC nodes are
					 hnic[hnic_off[h] .. hnic_off[h + 1]), in tree order */
	int *hnic;                    /* [nnics] */
	int nhnic_hosts;              /* rows of hnic_off less one */
	int *nic_gpu;                 /* [nnodes] a NIC node's GPU (the nearest of its
					 host, fab_net_nic_gpu), -1 for none or another node */
	int acs_override;             /* -1 each switch's acs, 0 off, 1 on */
	const struct fab_routes *routes;  /* borrowed, NULL: paths computed per call */
	int *blk;                     /* owned: the tables above */
};

/* The point-to-point NVLink from GPU a to GPU b, or -1 (O(bonds of a)). */
int fab_nvp(const struct fabric *f, int a, int b);

/* The inter-socket link from socket a to socket b, or -1 (the same socket,
 * or sockets of two hosts past FAB_XS_ALL_PAIRS sockets). */
int fab_xs(const struct fabric *f, int a, int b);


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

/*
 * Path of a GPU-to-GPU transfer through host memory (NCCL's SHM transport):
 * NCCL puts the buffer on the receiver's side (NCCL_SHM_LOCALITY=2), so the
 * sender's writes cross to GPU b's socket; its memory link appears once.
 */
int fab_path_shm(const struct fabric *f, int a, int b, int *path);

/*
 * The same two paths as pointers into f's route table when it has one
 * (else computed into buf, room FAB_MAX_PATH); returns the length. *path
 * stays valid while the table and buf do.
 */
int fab_route_gpu(const struct fabric *f, int a, int b, int *buf, const int **path);
int fab_route_shm(const struct fabric *f, int a, int b, int *buf, const int **path);

/*
 * The routes of every GPU pair of f's scenario. *out: new table, free with
 * fab_routes_free; NULL (and 0) for a scenario of more than
 * FAB_ROUTES_MAX_GPUS GPUs. Returns 0 or -PLUMB_ERUNTIME (out of memory).
 */
int fab_routes_build(const struct fabric *f, struct fab_routes **out, struct plumb_err *err);
void fab_routes_free(struct fab_routes *r);

/* Answer f's path questions from r (borrowed: it must outlive f), which was
 * built for a scenario of the same content as f's. NULL detaches. */
void fab_use_routes(struct fabric *f, const struct fab_routes *r);

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

/*
 * Between hosts (a scenario's `hosts:` and `network:`). A NIC port's link
 * to the network switch runs at the port's line rate less the packet
 * headers of a 4096-byte MTU (fab_net_bytes_per_s). NCCL's NET transport
 * moves GPU a's data to a GPU b of another host in parallel over the
 * hosts' NICs: fab_net_ways gives the number of parallel paths a step
 * between hosts uses (every NIC of the busier side, at least one per
 * channel), fab_path_net the i-th of them: NIC i of a's host (in tree
 * order, round robin), reached from a over NVLink through the GPU nearest
 * that NIC when they share NVLink (NCCL's PXN), then GPUDirect RDMA from
 * that GPU when the pair's path type is within NCCL_NET_GDR_LEVEL
 * (topo_net_gdr: the NIC reads GPU memory over PCIe, through the root
 * complex when an ACS redirect sends it there), else staged through host
 * memory on the NIC's socket; the network switch; and the mirror image on
 * b's host. Returns the path length (room FAB_MAX_PATH).
 */
double fab_net_bytes_per_s(const struct scenario *s);
int fab_net_ways(const struct fabric *f, int a, int b);
int fab_path_net(const struct fabric *f, int a, int b, int i, int *path);
/* Fill r's NIC legs from f (fab_routes_build). 0 or a negative code. */
int fab_routes_net(const struct fabric *f, struct fab_routes *r, struct plumb_err *err);
/* The GPU nearest the i-th NIC (round robin) of GPU a's host, the GPU
 * fab_path_net's way i leaves or enters that host through; -1 without NICs. */
int fab_net_nic_gpu(const struct fabric *f, int a, int i);

/* Sum of the latencies of a path, seconds. */
double fab_path_latency(const struct fabric *f, const int *path, int n);

#endif
