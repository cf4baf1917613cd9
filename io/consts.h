/*
 * consts.h - the model's named constants: every free parameter of the
 * transfer and collective models, with its default, unit, bounds and the
 * source of the default. A scenario may override any of them in its
 * `constants:` block; calibration fits them by name.
 *
 * The table is read-only data; a struct plumb_consts holds one value per
 * constant and is owned by whoever holds it (a scenario embeds one).
 */
#ifndef PLUMB_CONSTS_H
#define PLUMB_CONSTS_H

enum plumb_const {
	K_PCIE_EFF,             /* DMA payload efficiency of a PCIe link */
	K_HOP_NS,               /* latency per fabric element on a path */
	K_RC_GBS,               /* root complex (I/O die quadrant) capacity, per direction */
	K_SW_DUPLEX_EFF,        /* a PCIe switch port's both-ways rate / twice its one-way rate */
	K_DRAM_GBS,             /* host memory bandwidth per socket */
	K_XSOCK_GBS,            /* inter-socket link when the scenario gives none */
	K_P2P_LAT_US,           /* small P2P copy latency */
	K_BOUNCE_FLOOR_US,      /* small host-bounced copy latency */
	K_BOUNCE_CHUNK_KIB,     /* staging chunk of a host-bounced copy */
	K_BOUNCE_BUFFERS,       /* staging buffers shared by all bounces */
	K_LOCAL_LAT_US,         /* latency of a local (same GPU) copy */
	K_VM_DMA_US,            /* extra per DMA leg in a VM with host IOMMU translate */
	K_D2D_EFF,              /* local device-to-device copy / memory bandwidth */
	K_NCCL_BASE_US,         /* NCCL base latency, ring LL */
	K_NCCL_BASE_LL128_US,   /* NCCL base latency, ring LL128 */
	K_NCCL_BASE_SIMPLE_US,  /* NCCL base latency, ring Simple */
	K_NCCL_PCI_LL_US,       /* NCCL per-step hardware latency, PCI, LL */
	K_NCCL_PCI_LL128_US,
	K_NCCL_PCI_SIMPLE_US,
	K_NCCL_NVL_LL_US,       /* NCCL per-step hardware latency, NVLink, LL */
	K_NCCL_NVL_LL128_US,
	K_NCCL_NVL_SIMPLE_US,
	K_NCCL_NET_LL_US,       /* NCCL per-step latency of a step between hosts, LL */
	K_NCCL_NET_LL128_US,
	K_NCCL_NET_SIMPLE_US,
	K_NCCL_NET_OVERHEAD_US, /* NCCL's floor of an intra-host step of an inter-host ring */
	K_NCCL_SHM_STEP_US,     /* extra per step when a step bounces through host memory */
	K_NCCL_SHM_GBS,         /* per-GPU rate of NCCL's SHM transport (GPU reads of host memory) */
	K_NCCL_BW_EFF,          /* fraction of link bandwidth a ring step reaches (Simple) */
	K_NCCL_CHANNELS,        /* channels (parallel rings) of a collective */
	K_NCCL_LL_MAX_VOLTA,    /* NCCL llMaxBws, one node, by GPU generation */
	K_NCCL_LL_MAX_AMPERE,
	K_NCCL_LL_MAX_HOPPER,
	K_NCCL_LL_MAX_BLACKWELL,
	K_NCCL_LL128_CH_VOLTA,  /* NCCL perChMaxRingLL128Bws, by GPU generation */
	K_NCCL_LL128_CH_AMPERE,
	K_NCCL_LL128_CH_HOPPER,
	K_NCCL_LL128_CH_BLACKWELL,
	K_NCCL_LL_FRAC,         /* LL's payload rate / Simple's */
	K_NCCL_TESTS_LAUNCH_US, /* nccl-tests host time per GPU per iteration (one thread, -g G) */
	K_NCCL_FLOOR_US,        /* fixed time of every NCCL collective (launch, prologue, handshake) */
	K_NCCL_CH_GBS,          /* rate of one NCCL channel (one thread block) */
	K_MEM_EFF,              /* dense weight-streaming GEMMs' share of GPU memory bandwidth */
	K_ATTN_MEM_EFF,         /* attention kernels' share of memory bandwidth reading the KV cache */
	K_MOE_MEM_EFF,          /* grouped MoE GEMMs' share of memory bandwidth (MoE backend) */
	K_FLOPS_EFF,            /* share of dense tensor throughput a GEMM reaches */
	K_FP4_FLOPS_EFF,        /* share of the dense FP4 tensor rate block-scaled FP4 GEMMs reach */
	K_KMIN_GEMM_US,         /* shortest run of a dense GEMM / GEMV kernel */
	K_KMIN_MOE_US,          /* shortest run of a grouped MoE kernel (MoE backend) */
	K_KMIN_ATTN_US,         /* shortest run of an attention kernel */
	K_KMIN_ELEM_US,         /* shortest run of a norm / element-wise / sampling kernel */
	K_KERNEL_LAUNCH_US,     /* gap between kernels replayed from a CUDA graph */
	K_KERNEL_LAUNCH_EAGER_US,   /* host time per kernel launched eagerly (no CUDA graphs) */
	K_STEP_OVERHEAD_US,     /* serving engine's host time per step (scheduler, sampling) */
	K_VM_SHM_STEP_US,       /* extra per NCCL host-memory ring step in a VM guest */
	K_ONESHOT_US,           /* fixed time of the engine's one-shot P2P all-reduce */
	K_ONESHOT_BW_EFF,       /* share of link rate its peer reads reach */
	K_MEM_FRACTION,         /* share of GPU memory for weights and the KV cache */
	K_NCONSTS
};

/* What a constant belongs to: a calibration shares the first three across
 * boxes and fits the last two per box (docs/model.md, "Constants"). */
enum plumb_scope {
	SCOPE_GPU,              /* the GPU and its kernel library */
	SCOPE_ENGINE,           /* the serving engine and its settings */
	SCOPE_NCCL,             /* the NCCL library (its tuning model) */
	SCOPE_BOX,              /* the machine: PCIe, NUMA, host memory, sockets */
	SCOPE_VM,               /* a virtual machine's host path; never moves to bare metal */
	SCOPE_N
};

struct plumb_const_def {
	const char *name;
	const char *unit;
	double def, lo, hi;     /* default; hard bounds a value must respect */
	const char *source;
	enum plumb_scope scope;
	double plo, phi;        /* plausible range: outside it a value is reported */
};

struct plumb_consts {
	double v[K_NCONSTS];
	unsigned char set[K_NCONSTS];   /* 1: given by the scenario or a calibration */
};

/* The table, K_NCONSTS entries in enum order. */
extern const struct plumb_const_def plumb_const_defs[K_NCONSTS];

/* Fill c with every default; nothing marked set. */
void consts_defaults(struct plumb_consts *c);

/* Index of name, or -1. */
int consts_find(const char *name);

/* "gpu", "engine", "nccl", "box", "vm". */
const char *consts_scope_name(enum plumb_scope s);

/* Is v inside constant i's plausible range? */
int consts_plausible(int i, double v);

/* Is constant i shared by every box of a joint calibration (gpu, engine,
 * nccl scope) rather than fitted per box (box, vm)? */
int consts_shared(int i);

#endif
