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
	K_NCCL_SHM_RD_US,       /* a GPU's load from host memory, round trip (LL over SHM polls it) */
	K_RCCL_STEP_US,         /* a step of RCCL's kernel that crosses no link (no data, or a local reduce) */
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
	K_REQUEST_FRONTEND_US,  /* a request's path outside the GPU steps (HTTP, tokenizer, detokenizer, client) */
	K_REQUEST_TOKENIZE_US,  /* its part in the one tokenizer process before the scheduler (serialises) */
	K_REQUEST_TOKENIZE_TOKEN_US,    /* the tokenizer's time per prompt token (text prompts) */
	K_VM_SHM_STEP_US,       /* a VM guest's measured host path per NCCL SHM step (overrides the model) */
	K_VM_EXIT_US,           /* one VM exit and re-entry (interrupt injection, doorbell trap) */
	K_VM_STEP_EXITS,        /* VM exits and injected interrupts per NCCL SHM step */
	K_VM_IOTLB_MISS_US,     /* one host IOMMU translation miss (IOTLB page walk) */
	K_VM_STEP_PAGES,        /* IOMMU pages a SHM step's two DMA legs touch */
	K_VM_VIOMMU_FACTOR,     /* a guest vIOMMU's translation cost / the host's alone */
	K_VM_NUMA_HOP_US,       /* a staging page on the wrong socket, per page touched */
	K_VM_PATH_SCALE,        /* measured VM host paths / the physical estimate (prior) */
	K_ONESHOT_US,           /* fixed time of the engine's one-shot P2P all-reduce */
	K_ONESHOT_BW_EFF,       /* share of link rate its peer reads reach */
	K_MEM_FRACTION,         /* share of GPU memory for weights and the KV cache */
	K_FP8_FLOPS_EFF,        /* share of the dense FP8 tensor rate FP8 GEMMs reach */
	K_FP8T_FLOPS_EFF,       /* the same for FP8 weights with one scale a tensor or channel */
	K_ATTN_FLOPS_EFF,       /* share of the bf16 tensor rate compute-bound flash attention reaches */
	K_ATTN_FP8_FLOPS_EFF,   /* share of the FP8 tensor rate FP8 flash attention reaches */
	K_GEMM_TILE_M,          /* rows of a GEMM tile once M fills it (tile fill) */
	K_MOE_EXPERT_US,        /* a grouped MoE GEMM's fixed time per touched local expert */
	K_MOE_FLOPS_REL,        /* a grouped MoE GEMM's math rate / the dense GEMM's of its dtype */
	K_TOK_ERR_SD,           /* model error of an uncalibrated tok/s, log-sd */
	K_TTFT_ERR_SD,          /* model error of an uncalibrated TTFT, log-sd */
	K_NCONSTS
};

/* What a constant belongs to: a calibration shares the first three across
 * boxes and fits the last two per box (docs/model-constants.md, "Constants"). */
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
	/* The range the defaults' interval draws a value left open over (cli/
	 * cmd.c): a per-GPU catalog value measured on that GPU carries its
	 * measurement's spread; 0 and 0: the constant's plausible range. */
	double dlo[K_NCONSTS], dhi[K_NCONSTS];
};

/* What a per-GPU value of the GPU catalog rests on (docs/scenarios.md,
 * "The GPU catalog"): a kernel measurement on that GPU, a fit to that GPU's
 * data, or an assumption (no measurement of its own). */
enum plumb_basis { BASIS_NONE, BASIS_MEASURED, BASIS_FITTED, BASIS_ASSUMED };

/* A measured or fitted per-GPU value whose entry gives no `range:` is drawn
 * within this fraction either side of it (x/ (1 + f) .. x (1 + f)). */
#define CONSTS_MEASURED_SPREAD 0.10

/* May a GPU catalog entry carry constant i? The gpu-scope constants, and
 * the grouped MoE kernels' two (engine scope: the MoE backend's, but a
 * kernel library's property where it was measured on that GPU). */
int consts_per_gpu(int i);

/* "measured", "fitted", "assumed" ("" for BASIS_NONE). */
const char *consts_basis_name(enum plumb_basis b);

/* The range the defaults' draws use for constant i of k: k's draw range
 * when it has one, else the plausible range. */
void consts_draw_range(const struct plumb_consts *k, int i, double *lo, double *hi);

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
