/*
 * topo.h - derived views of a scenario's hardware graph: what
 * `nvidia-smi topo -m` and `topo -p2p r` would print, IOMMU groups, NCCL's
 * transport per GPU pair and, for a VM, the BAR/MMIO placement.
 *
 * A view is the machine as one side sees it. The host view is the scenario's
 * PCIe tree. For a VM, the guest view is the tree the hypervisor builds:
 * q35 with PCIe passthrough puts each GPU behind its own root port of one
 * host bridge (pcie.0), so every pair is PHB; i440fx (or q35 without
 * pcie=1) puts them on the flat root bus, also PHB; `guest_numa: host`
 * models pxb-pcie expander buses, one per host NUMA node.
 *
 * Lifecycle: topo_build() fills a heap struct topo_view freed with
 * topo_free(). The view borrows the scenario (must outlive it).
 */
#ifndef PLUMB_TOPO_H
#define PLUMB_TOPO_H

#include <stdint.h>

#include "scn.h"

enum topo_class { TC_X, TC_NV, TC_PIX, TC_PXB, TC_PHB, TC_NODE, TC_SYS };
enum topo_p2p { P2P_X, P2P_OK, P2P_CNS, P2P_GNS, P2P_TNS, P2P_NS, P2P_DR, P2P_U };
enum topo_xport { XP_SELF, XP_P2P, XP_SHM, XP_NET };
enum topo_side { TOPO_HOST, TOPO_GUEST };

/* NCCL path types, in NCCL's order (src/graph/topo.h), for NCCL_P2P_LEVEL. */
enum topo_nccl_path { NP_LOC, NP_NVL, NP_NVB, NP_PIX, NP_PXB, NP_PHB, NP_SYS };

/* Options that change the derived views (command-line flags). */
struct topo_opts {
	int acs_override;       /* -1 as in the scenario, 0 all off, 1 all on */
	int nccl_p2p_level;     /* -1 NCCL's default, else enum topo_nccl_path */
	int nccl_shm_disable;   /* NCCL_SHM_DISABLE=1 */
	int pci_realloc;        /* -1 as in the scenario, 0 without, 1 with */
	int nccl_version;       /* the NCCL release a measured run linked
				   (22907: 2.29.7), 0 when unknown */
};

void topo_opts_init(struct topo_opts *o);

struct topo_ep {
	char label[16];         /* "GPU0", "NIC1" */
	int node;               /* index into the view's tree */
	int host_node;          /* index into the scenario's nodes */
	int gpu;                /* GPU index or -1 for a NIC */
	int numa;               /* -1: not exposed (printed N/A) */
	char bdf[16];
	int dev;                /* GPU: its index on this side (nvidia-smi and CUDA with
				   PCI bus order); in a guest, by guest bus id */
};

/*
 * The tables are sized to the scenario (owned, freed by topo_free): the
 * pair tables are nep x nep, rows of one block each, so v->cls[i][j] reads
 * as a two-dimensional array.
 */
struct topo_view {
	enum topo_side side;
	const struct scenario *scn;
	int nnodes;
	struct scn_node *nodes;                 /* the tree this side sees */
	int nep, ngpu;                          /* GPUs first, then NICs */
	struct topo_ep *ep;                     /* [nep] */
	unsigned char **cls;                    /* [nep][nep] enum topo_class */
	unsigned char **nvl;                    /* [nep][nep] bonded NVLinks */
	unsigned char **p2p;                    /* [nep][nep] enum topo_p2p (GPUs only) */
	unsigned char **xport;                  /* [nep][nep] enum topo_xport (GPUs only) */
	short **acs_via;                        /* [nep][nep] host: switch whose ACS redirect
						   sends the pair's P2P up to the root complex
						   (index into nodes), -1 none (GPUs only) */
	unsigned char **acs_dt;                 /* [nep][nep] host: 1 when ACS Direct Translated
						   P2P lets the pair's ATS requests skip it */
	int nccl_level;                         /* effective NCCL_P2P_LEVEL */
	int nccl_level_default;                 /* 1 when it is NCCL's default */
	int nccl_level_scenario;                /* 1 when the scenario's `nccl:` set it */
	int nccl_version;                       /* topo_opts nccl_version */
	int *group;                             /* [nep] IOMMU group per endpoint (host) */
	int ngroups;
	int acs_override;                       /* the option the view was built with */
};

/*
 * Build the view of `side` for scenario s (TOPO_GUEST needs a VM scenario).
 * Errors: EUSAGE (guest view of bare metal), ERUNTIME (out of memory).
 */
int topo_build(const struct scenario *s, enum topo_side side,
	       const struct topo_opts *o, struct topo_view **out,
	       struct plumb_err *err);
void topo_free(struct topo_view *v);

/* Class of the pair (i, j) of the view's endpoints; exported for tests. */
enum topo_class topo_pair_class(const struct topo_view *v, int i, int j);

/* "PIX", "NV12", ... into buf (at least 8 bytes). */
const char *topo_class_str(const struct topo_view *v, int i, int j, char *buf);
const char *topo_p2p_str(enum topo_p2p p);
const char *topo_xport_str(enum topo_xport x);
const char *topo_nccl_path_str(int p);
/* Parse an NCCL_P2P_LEVEL value (name or old-style number); -1 if invalid. */
int topo_nccl_path_parse(const char *s);

/*
 * One sentence saying why the pair (i, j) has its P2P status, e.g. "each
 * GPU is alone on its root complex and the VM exposes no P2P: transfers
 * bounce through host memory". Writes into buf (size n).
 */
void topo_p2p_reason(const struct topo_view *v, int i, int j, char *buf, size_t n);
/* The same for a loop over many pairs: *hostdef is the host view with
 * default options a guest's reason compares with, built on the first call
 * that needs it (start with NULL; the caller topo_frees it). */
void topo_p2p_reason_with(const struct topo_view *v, struct topo_view **hostdef,
			  int i, int j, char *buf, size_t n);

/*
 * Host (index into s->hosts) of endpoint i of v, and the host of NUMA node
 * numa: a scenario of several boxes numbers sockets and NUMA nodes across
 * its hosts.
 */
int topo_ep_host(const struct topo_view *v, int i);
int topo_numa_host(const struct scenario *s, int numa);

/* CPU affinity list of NUMA node `numa` ("0-31,64-95"), or "N/A"; with
 * several hosts, as that node's host numbers its CPUs (from 0). */
void topo_cpu_affinity(const struct scenario *s, int numa, char *buf, size_t n);

/*
 * The guest's CPUs near host NUMA node `numa`, in guest numbering: with
 * `vcpus` set, all of them ("0-63") when the guest sees no NUMA, else the
 * share QEMU gives that node (vCPUs split evenly over the host's nodes,
 * in order). "N/A" when the scenario does not give vcpus.
 */
void topo_guest_cpus(const struct scenario *s, int numa, char *buf, size_t n);

/*
 * PCI address the guest gives the GPU passed through as the i-th device
 * (scenario GPU i = hostpci i), into buf (16 bytes). Proxmox follows its
 * address map (qemu-server PVE/QemuServer/PCI.pm): q35 with pcie=1 puts
 * hostpci0-3 behind root ports 00:1c.0-1c.3 and hostpci4-11 behind
 * 00:10.0-10.7 (12-15: 00:11.0-11.3), and the guest numbers the root
 * ports' buses in address order, so 8 GPUs get buses 05-08 (hostpci0-3)
 * and 01-04 (hostpci4-7); i440fx puts hostpci0-3 on the root bus at slots
 * 10, 11, 1b, 1c and hostpci4-15 behind the pci.2 bridge (bus 01) from
 * slot 0d. Other hypervisors: one root port per device in order, GPU i on
 * bus i+1.
 */
void topo_guest_bdf(const struct scenario *s, int i, char *buf);

/* Number of endpoints below the root complex of host node `node`. */
int topo_rc_endpoints(const struct scenario *s, int node);

/* Root complex index (host nodes) above host node `node`. */
int topo_root_of(const struct scenario *s, int node);

/*
 * GPUDirect RDMA between GPU g and the NIC NCCL gives it (src/graph/paths.cc
 * ncclTopoCheckGdr): the nearest NIC by path type (ties: the first); GDR
 * when both support it (GeForce cards do not: NVIDIA's GPUDirect RDMA is
 * for datacenter and professional GPUs) and the GPU-NIC path type is at
 * most NCCL_NET_GDR_LEVEL (`nccl: net_gdr_level`, default PXB); otherwise
 * the NIC's traffic is staged through host memory. Host views only.
 * Returns 1 (GDR), 0 (staged) or -1 (no NIC); *nic gets the NIC's
 * endpoint index, `why` a sentence (size n, may be NULL).
 */
int topo_gdr(const struct topo_view *v, int g, int *nic, char *why, size_t n);

/*
 * NCCL's PCIe path type (enum topo_nccl_path: NP_PIX, NP_PXB, NP_PHB or
 * NP_SYS) between host nodes na and nb of one host of s, by the classes'
 * rule (NODE counts as PHB, as in NCCL's graph); NP_SYS across hosts.
 */
int topo_node_path(const struct scenario *s, int na, int nb);

/*
 * Does NCCL use GPUDirect RDMA between GPU g and NIC node nic (src/graph/
 * paths.cc ncclTopoCheckGdr)? 1 when the GPU supports it (GeForce cards do
 * not) and their path type is at most NCCL_NET_GDR_LEVEL (`nccl:
 * net_gdr_level`, default PXB), else 0: the NIC's traffic is staged through
 * host memory. (NCCL also refuses GDR reads on pre-Ampere GPUs without
 * NVLink; the catalog's GPUs before Ampere are GeForce cards, refused
 * anyway.)
 */
int topo_net_gdr(const struct scenario *s, int g, int nic);

/*
 * Force ACS on (1) or off (0) on every root port and switch of s, as
 * `--acs` does for topo and render; -1 leaves the scenario as it is.
 */
void topo_apply_acs(struct scenario *s, int acs);

/*
 * Does the P2P status of GPUs a and b forbid a direct copy on the side the
 * work runs on (the guest in a VM, else the host)? 1 when it is not OK;
 * `why` (size n, may be NULL) then gets "NS in the guest: <reason>".
 * 0 when P2P is allowed, a negative plumb code when the view cannot be built.
 */
int topo_p2p_forbidden(const struct scenario *s, int a, int b, char *why, size_t n);

/*
 * Where the P2P traffic between host nodes na and nb turns. A peer request
 * arriving at a switch downstream port that enforces ACS P2P Request
 * Redirect is sent upstream instead of across (PCIe Base Specification,
 * "ACS P2P Request Redirect"); it climbs to the root complex, which routes
 * it back down as it routes any peer request between its ports. Only the
 * switch where the two paths meet matters: below it the requests travel
 * upstream anyway. Returns that switch (index into s->nodes) when it
 * redirects, else -1. acs_override as in struct topo_opts (-1: each
 * switch's `acs`).
 * ACS Direct Translated P2P (`acs_dt` on the switch) forwards requests
 * whose address is already translated straight across: when both GPUs use
 * ATS (`ats`) and the host IOMMU is on (it answers their translation
 * requests), the pair is not redirected; *dt (may be NULL) is then 1.
 */
int topo_acs_redirect(const struct scenario *s, int acs_override, int na, int nb, int *dt);

/*
 * P2P between partitions of one switch chip. A switch chip split into
 * partitions (virtual switches), each with its own uplink, is one node per
 * partition; partitions that name the same `chip` forward peer traffic
 * between them inside the chip (the vendors' cross-partition fabric), so a
 * NODE pair under two such partitions never reaches the root complexes.
 * Returns 1 and the two partitions (indices into s->nodes: the topmost
 * switch of that chip above each host node) when na and nb sit under
 * different partitions of one chip, neither enforcing ACS (a redirect
 * sends the requests upstream); else 0.
 */
int topo_chip_cross(const struct scenario *s, int acs_override, int na, int nb, int *pa, int *pb);

#endif
