/*
 * scn.h - a scenario: the machine (host, PCIe tree, NVLink) and how it is
 * virtualised, loaded from YAML and validated (docs/scenarios.md).
 *
 * Lifecycle: scn_load() returns a heap scenario freed with scn_free().
 * The PCIe tree is a flat array of nodes with parent indices; the loader
 * guarantees: ids unique, every parent exists and is of an allowed kind, no
 * cycles, every GPU references a catalog entry, at least one GPU.
 * GPUs are numbered in file order (GPU0 is the first gpu entry), as
 * nvidia-smi numbers them with CUDA_DEVICE_ORDER=PCI_BUS_ID when the file
 * lists them in bus order.
 */
#ifndef PLUMB_SCN_H
#define PLUMB_SCN_H

#include <stdint.h>

#include "consts.h"
#include "err.h"

/*
 * Limits of a scenario, over all its hosts. The tables that grow with them
 * are sized to the scenario (below), so a limit costs nothing until used:
 * 1,024 GPUs, e.g. 128 boxes of 8 with a root port, a switch and a NIC
 * per GPU (5,120 entries), or one NVSwitch domain of them all (NVLink
 * bonds have no limit of their own: at most one per pair of GPUs); 128
 * two-socket boxes at NPS 2.
 */
#define SCN_MAX_NODES 8192      /* `pcie` entries */
#define SCN_MAX_GPUS 1024
#define SCN_MAX_SOCKETS 512     /* sockets x numa_per_socket */
#define SCN_MAX_CPU 1023  /* highest CPU in socket_cpus (NCCL's 1024-bit affinity mask) */
#define SCN_MAX_BARS 6
#define SCN_MAX_CATALOG 64
#define SCN_MAX_GPU_NAMES 8     /* `names:` of one catalog entry */
#define SCN_MAX_PCI_IDS 8       /* `pci_ids:` of one catalog entry */
#define SCN_MAX_GPU_KSRC 20     /* cited `constants:` of one catalog entry */
#define SCN_KSRC_LEN 256        /* a cited constant's `source:` text, with its NUL */
#define SCN_MAX_HOSTS 128       /* `hosts:` of a scenario of several boxes */
/* Switches stacked between a root port and a device. PCIe's 256 bus numbers
 * per segment allow about 127 (each switch level takes two), real boxes have
 * one to three (a PLX/Broadcom switch under another): 8 leaves room and
 * keeps the largest output (plumb trace of two boxes at that depth,
 * tests/gen_scale.sh chain 8: 12 s, 1 GB) inside the limits tier's budget.
 * The fabric's path buffers (models/xfer/fabric.h, FAB_MAX_PATH) are sized
 * from it. */
#define SCN_MAX_SWITCH_DEPTH 8
#define SCN_MAX_VM_GPUS 64      /* GPUs passed through to one virtual machine
				   (the guest's BAR placement, models/topo/bar.h) */
/* Events one simulation of the scenario may handle (sim/engine.h's budget). */
#define SCN_DEFAULT_EVENT_BUDGET 100000000ULL

enum scn_kind { SCN_ROOT_COMPLEX, SCN_ROOT_PORT, SCN_SWITCH, SCN_GPU, SCN_NIC };
enum scn_vendor { SCN_AMD, SCN_INTEL, SCN_ARM, SCN_OTHER_CPU };
enum scn_mode { SCN_BARE_METAL, SCN_VM };
enum scn_chipset { SCN_Q35, SCN_I440FX };
enum scn_firmware { SCN_SEABIOS, SCN_OVMF };
enum scn_iommu { SCN_IOMMU_OFF, SCN_IOMMU_TRANSLATE, SCN_IOMMU_PT };
enum scn_p2p_exposure { SCN_P2P_NONE, SCN_P2P_CLIQUE };
enum scn_p2p_support { SCN_P2P_NATIVE, SCN_P2P_UNSUPPORTED };

struct scn_bar {
	int region;             /* lspci "Region N" / kernel "BAR N" */
	uint64_t size;          /* bytes, a power of two */
	int bits;               /* 32 or 64 */
	int prefetchable;
};

/* One GPU model of the catalog (scenarios/catalog/gpus.yaml). */
/* A constant of a catalog entry given as {value, basis, source, range}
 * (docs/scenarios.md, "The GPU catalog"): what it rests on and where it
 * comes from, for `plumb constants` and the defaults' interval draws. */
struct scn_gpu_ksrc {
	int k;                        /* enum plumb_const */
	enum plumb_basis basis;       /* measured, fitted or assumed */
	double lo, hi;                /* the range its draws take; 0, 0: plausible */
	int line, col;                /* where the catalog states it */
	char source[SCN_KSRC_LEN];
};

struct scn_gpu_model {
	char id[48];
	char name[96];
	char arch[16];
	double memory_gib;
	double memory_gbs;            /* memory bandwidth, GB/s */
	int pcie_gen, pcie_width;
	int nbars;
	struct scn_bar bars[SCN_MAX_BARS];
	enum scn_p2p_support p2p;
	int nvlink_links;
	double nvlink_gbs_per_link;   /* per direction per link, GB/s; 0 unknown */
	int xgmi_links;               /* AMD Infinity Fabric (xGMI) links to peer GPUs */
	double xgmi_gbs_per_link;     /* per direction per xGMI link, GB/s; 0 unknown */
	double p2p_lat_us;            /* measured small P2P copy latency; 0 = the model's default */
	double tflops_bf16;           /* dense tensor TFLOPS per dtype; 0 = not supported */
	double tflops_fp8;
	double tflops_fp4;
	/* Power and price (docs/scenarios.md "Power and money"): the board's
	 * power limit and its draw with a model loaded but no work, watts, and
	 * a purchase price, US dollars; 0: not stated (tdp_w, idle_w: the
	 * cost model's rule, price: the scenario must give one). */
	double tdp_w, idle_w, price_usd;
	/* Streaming multiprocessors (`sms:`), 0 not stated: what kernels
	 * running beside each other share (two-batch overlap). */
	int sms;
	/* How tools name it (plumb import): `names:` as lspci's bracketed name
	 * or nvidia-smi's without "NVIDIA " give it, and `pci_ids:` vendor and
	 * device id pairs (vendor << 16 | device). */
	int nnames;
	char names[SCN_MAX_GPU_NAMES][64];
	int npci_ids;
	uint32_t pci_ids[SCN_MAX_PCI_IDS];
	struct plumb_consts k;        /* `constants:` gpu-scope defaults of this
					 model (set[] marks the ones given) */
	char source[256];
	/* The constants given with their sources ({value, basis, source,
	 * range}); one given as a bare number has none. An assumed one may
	 * have no value (k.set[] 0): it documents why the global default is
	 * used on this GPU. */
	int nksrc;
	struct scn_gpu_ksrc ksrc[SCN_MAX_GPU_KSRC];
	const char *cat_file;         /* the catalog file the entry is in, whole
					 (plumb_keep_path); NULL for none */
};

/* The cited entry of constant k in g, or NULL. */
const struct scn_gpu_ksrc *scn_gpu_ksrc_find(const struct scn_gpu_model *g, int k);

struct scn_catalog {
	int n;
	struct scn_gpu_model gpus[SCN_MAX_CATALOG];
};

struct scn_node {
	char id[48];
	enum scn_kind kind;
	int parent;             /* index into nodes, -1 for a root complex */
	int socket;             /* root complex: as given; others: inherited */
	int numa;               /* root complex: as given or = socket; others inherited */
	int gen, width;         /* link to the parent (root complex: 0) */
	int acs;                /* root port / switch: ACS enforced on downstream ports,
				   P2P Request Redirect included */
	int acs_dt;             /* switch: ACS Direct Translated P2P (ATS-translated
				   peer requests skip the redirect) */
	int ats;                /* gpu: uses Address Translation Services */
	char chip[48];          /* switch: the physical chip this partition is part of
				   ("" none); partitions of one chip pass P2P inside it */
	char model[96];         /* catalog id (gpu), free text (switch, nic) */
	char bdf[16];           /* optional PCI address "0000:01:00.0" or bus "0000:00" */
	int gpu_model;          /* gpu: index into the catalog */
	int gpu_index;          /* gpu: 0..ngpus-1, else -1 */
	int clique;             /* gpu in a VM with p2p_exposure clique: its clique id */
	int host;               /* the host (box) the node is in, 0..nhosts-1 */
	int line, col;          /* where the entry starts in the scenario file */
};

struct scn_nvlink {
	int a, b;               /* GPU indices */
	int links;
};

struct scn_vm {
	enum scn_mode mode;
	char hypervisor[32];
	enum scn_chipset chipset;
	int pcie_passthrough;
	enum scn_firmware firmware;
	int guest_phys_bits;
	uint64_t mmio64_window;     /* bytes */
	uint64_t mmio32_window;     /* bytes below 4 GiB for 32-bit BARs */
	uint64_t guest_ram;         /* bytes */
	enum scn_iommu host_iommu;
	char kernel_args[256];      /* space-separated guest kernel arguments */
	int pci_realloc;            /* derived: kernel_args has pci=realloc */
	enum scn_p2p_exposure p2p_exposure;
	int guest_numa;             /* 1: the guest sees the host NUMA layout */
	int vcpus;                  /* the guest's CPUs (numbered 0..vcpus-1); 0 unknown */
	int hugepages;              /* guest RAM backing, so the host IOMMU's page:
				       0 4 KiB, 1 2 MiB, 2 1 GiB (`hugepages:`) */
	int viommu;                 /* the guest has a virtual IOMMU (`viommu:`) */
};

/* The serving stack (docs/scenarios.md, `serving:`): what the engine-scope
 * constants describe. Unset fields keep the defaults below. */
enum scn_engine { SCN_ENGINE_SGLANG, SCN_ENGINE_VLLM, SCN_ENGINE_TRTLLM, SCN_ENGINE_OTHER };
/* custom_allreduce: off (NCCL), the engine's one-shot or two-shot kernel,
 * or auto (the engine's choice by size: both kernels are candidates). */
enum scn_allreduce { SCN_AR_NCCL, SCN_AR_ONESHOT, SCN_AR_TWOSHOT, SCN_AR_AUTO };
/* How the engine runs the routed experts (`moe_runner:`, in the order of
 * enum llm_moe_runner), how skewed its router is (`moe_skew:`) and whether
 * it overlaps two micro-batches (`two_batch_overlap:`). */
enum scn_moe_runner { SCN_MOE_FUSED, SCN_MOE_LOOP, SCN_MOE_DEEPEP };
struct scn_moe {
	enum scn_moe_runner runner; /* default fused */
	int stated;                 /* the scenario names the runner */
	double skew;                /* Zipf exponent of expert popularity, 0 uniform */
	int tbo;                    /* two_batch_overlap: SGLang's two micro-batches, one's
				       expert all-to-all under the other's compute */
	int redundant;              /* redundant_experts: extra physical copies of the
				       busiest experts (EPLB; SGLang's
				       --ep-num-redundant-experts), 0 none */
};
struct scn_serving {
	int given;                  /* the scenario has a serving: section */
	enum scn_engine engine;     /* default sglang */
	int cuda_graphs;            /* default 1 */
	enum scn_allreduce allreduce;   /* custom_allreduce */
	char moe_backend[32];       /* free text, recorded by calibrations; "" unknown */
	int moe_trtllm_gen;         /* derived: moe_backend is a FlashInfer trtllm-gen
				       fused MoE (flashinfer_mxfp4, flashinfer_trtllm) */
	char attention_backend[32]; /* free text; "" unknown */
	int attn_trtllm_gen;        /* derived: attention_backend is trtllm-gen's
				       decode kernel (trtllm_mha, trtllm_mla) */
	int allreduce_fusion;       /* the engine folds residual add + RMSNorm into
				       its all-reduce kernel (allreduce_fusion) */
	int dsa_dense;              /* dsa: dense (indexer ignored) or sparse (default) */
	int mtp_draft;              /* MTP draft tokens, 0 off */
	double mtp_accept;          /* acceptance per draft token */
	double mtp_accept_pos[16];  /* accept: [a1, a2, ...] per draft position */
	int mtp_naccept;            /* entries of mtp_accept_pos, 0: one rate */
	char note[256];
	struct scn_moe moe;         /* moe_runner, moe_skew */
	/* The keys the file states (SCN_SV_* bits): they win over the engine
	 * table (they record what was measured). */
	unsigned stated;
	unsigned version;           /* `engine: NAME@VERSION` (scn_version_pack), 0: the
				       table's default for the engine */
	/* Filled from the engine table (scn_serving_fill) where not stated;
	 * before that: prefill_graphs -1 (plumb's old rule: eager under SGLang),
	 * the rest 0. */
	int from_table;             /* 1: the table filled this stack */
	int prefill_graphs;         /* prefill steps replay CUDA graphs (-1 unknown) */
	int mixed;                  /* the scheduler mixes decode and prompt chunks */
	long chunk_tokens;          /* prefill chunk, 0: prompts whole */
	long max_batched;           /* a mixed step's token budget, 0: none */
	char table_moe_runner[16];  /* the engine table's MoE runner: fused, grouped, loop,
				       deepep ("" unknown); sets moe.runner unless stated */
	int src_row[16];            /* the table row that gave each setting
				       (enum scn_eng_col), -1: stated or none */
};

/* Bits of scn_serving.stated. */
enum {
	SCN_SV_ENGINE = 1u << 0, SCN_SV_GRAPHS = 1u << 1, SCN_SV_ALLREDUCE = 1u << 2,
	SCN_SV_FUSION = 1u << 3, SCN_SV_MOE_BACKEND = 1u << 4, SCN_SV_ATTN = 1u << 5,
	SCN_SV_DSA = 1u << 6, SCN_SV_MOE_RUNNER = 1u << 7
};

const char *scn_engine_name(enum scn_engine e);
/* moe_trtllm_gen and attn_trtllm_gen from sv's backend names. */
void scn_serving_derive(struct scn_serving *sv);
const char *scn_allreduce_name(enum scn_allreduce a);

struct scn_host {
	char board[96];
	enum scn_vendor cpu_vendor;
	char cpu_model[96];
	double cpu_boost_ghz;       /* the CPU's datasheet max boost clock, 0 = not given */
	int sockets;
	int numa_per_socket;        /* NPS setting: NUMA nodes per socket */
	int cores_per_socket, threads_per_core;
	char inter_socket_kind[16];
	double inter_socket_gbs;
	double inter_socket_latency_ns;
	int p2p_across_sockets;     /* driver allows PCIe P2P between sockets */
	int p2p_patched;            /* driver patched to allow P2P on GeForce cards */
};

/*
 * One box of a scenario with `hosts:`. Its nodes, GPUs and sockets are
 * contiguous in the scenario's arrays: GPU indices first_gpu.. (the NCCL
 * ranks of a run over every GPU), sockets first_socket.. and NUMA nodes
 * first_socket x numa_per_socket.. (numbered across hosts); node ids are
 * "<host>.<id>".
 */
struct scn_box {
	char name[40];
	int first_node, nnodes;
	int first_gpu, ngpus;
	int first_socket, nsockets;
	int nnics;                  /* NIC ports: `kind: nic` entries */
	const char *source;         /* `box: FILE` as given, whole (plumb_keep_path);
				       NULL inline */
	int line, col;              /* the hosts entry */
};

/* The network between hosts (`network:`, one switch level). */
enum scn_net_kind { SCN_NET_IB, SCN_NET_ROCE };
struct scn_network {
	int given;
	enum scn_net_kind kind;
	double port_gbps;           /* line rate of one NIC port, Gb/s */
	char switch_model[96];
	int switch_ports;           /* 0: not stated */
};

const char *scn_net_kind_name(enum scn_net_kind k);

/*
 * `cost:` what a box costs to own and run (docs/scenarios.md "Power and
 * money"); each 0 when not stated (then the defaults of
 * models/cost/cost.h, which cite their sources), -1 when stated as 0.
 */
struct scn_cost {
	double price_usd;           /* the box's purchase price */
	double life_years;          /* over which the price is amortised */
	double usd_per_kwh;         /* electricity */
	double pue;                 /* facility power over IT power */
	double hosting_usd_kw_month;    /* colocation rent per kW of rated power */
	double host_w;              /* CPUs, memory, fans, NICs: the box without GPUs */
};

struct scenario {
	const char *path;           /* as loaded, whole (plumb_keep_path) */
	char name[96];
	char description[512];
	unsigned long seed;
	uint64_t event_budget;          /* `event_budget`: per simulation, see above */
	struct scn_host host;           /* with `hosts:`, the first box's, with
					   sockets over every box */
	int nhosts;                     /* 1 for a scenario of one box */
	struct scn_network net;
	int nnodes;
	int ngpus;
	int nnvlink;
	int nvswitch;                   /* 1: GPUs listed in nvswitch share NVSwitches */
	int xgmi;                       /* 1: the GPU bonds are AMD xGMI (Infinity Fabric)
					   links, `xgmi:`, not NVLink: views say XGMI,
					   collectives are RCCL's */
	struct scn_vm vm;
	struct plumb_consts k;          /* model constants: defaults, the GPU
					   catalog's, then `constants:` */
	unsigned char k_catalog[K_NCONSTS]; /* 1: the value is the GPU catalog's */
	/* Where each value in force comes from (plumb constants): the line
	 * and column of the scenario's `constants:` entry setting it (0: not
	 * the scenario's; a calibration applied over it clears it), and the
	 * catalog entry whose constants apply (every GPU that model; -1:
	 * none, the global defaults). */
	int k_line[K_NCONSTS], k_col[K_NCONSTS];
	int k_model;
	int nccl_level;                 /* `nccl: p2p_level` (topo.h enum topo_nccl_path), -1 unset */
	int nccl_shm_disable;           /* `nccl: shm_disable` */
	int nccl_gdr_level;             /* `nccl: net_gdr_level` (enum topo_nccl_path), -1 unset */
	struct scn_serving serving;     /* `serving:` the software stack measured or planned */
	struct scn_cost cost;           /* `cost:` price, life, power and hosting */
	/* The tables that grow with the machine, sized to it (owned: scn_free
	 * frees them, scn_dup copies them). Only their first nhosts, nnodes,
	 * ngpus and nnvlink entries are the scenario's; cap_* is the room. */
	struct scn_box *hosts;          /* [nhosts] */
	struct scn_node *nodes;         /* [nnodes] */
	int *gpu_node;                  /* [ngpus] GPU index -> node index */
	struct scn_nvlink *nvlink;      /* [nnvlink] */
	char (*numa_cpus)[128];         /* [nnuma_cpus] `socket_cpus` of each NUMA node,
					   numbered across hosts ("" = derive from cores);
					   nnuma_cpus is 0 or host.sockets x numa_per_socket */
	int nnuma_cpus;
	int cap_hosts, cap_nodes, cap_gpus, cap_nvlink, cap_numa;
	const struct scn_catalog *catalog;  /* the built-in catalog (borrowed), or
					       own_catalog */
	struct scn_catalog *own_catalog;    /* owned: the built-in one plus the
					       scenario's `gpu_catalog:` file and
					       `gpu_models:` entries; NULL without them */
};

/*
 * The built-in GPU catalog, parsed on first use. Returns NULL and fills err
 * only if the compiled-in catalog is broken (a build bug).
 */
const struct scn_catalog *scn_catalog_builtin(struct plumb_err *err);

/* Parse a catalog from YAML text; caller frees *out with free(). */
int scn_catalog_parse(const char *file, const char *text, struct scn_catalog **out,
		      struct plumb_err *err);

/* Catalog entry index for id, or -1. */
int scn_catalog_find(const struct scn_catalog *c, const char *id);

/*
 * Catalog entry index of the GPU with PCI vendor:device id (vendor << 16 |
 * device), or -1.
 */
int scn_catalog_find_pci(const struct scn_catalog *c, uint32_t id);

/*
 * Catalog entry index of the GPU one of whose `names:` is name, compared
 * without case, with '-' and '_' as blanks and runs of blanks as one; or -1.
 */
int scn_catalog_find_name(const struct scn_catalog *c, const char *name);

/*
 * The catalog a command's GPU names resolve against: the built-in one plus
 * the models of --gpu-catalog FILE (scn_set_gpu_catalog) when given.
 * Borrowed; NULL with err filled only if the built-in catalog is broken.
 */
const struct scn_catalog *scn_catalog_run(struct plumb_err *err);

/*
 * --gpu-catalog FILE: every scenario loaded afterwards may name the GPU
 * models of catalog file path (the format of gpus.yaml) besides the built-in
 * ones; NULL goes back to the built-in catalog alone. Call before loading
 * scenarios (not thread-safe); a scenario loaded before must be freed before
 * the next call. Errors: EIO, EINPUT (file:line:col; an id the built-in
 * catalog has).
 */
int scn_set_gpu_catalog(const char *path, struct plumb_err *err);

struct ytree;
struct ynode;
/*
 * Append the GPU models of YAML sequence seq (entries as in gpus.yaml) of
 * tree t to c. A model whose id c already has, or more than SCN_MAX_CATALOG
 * in all, is an error at its place (EINPUT); c keeps the entries before it.
 */
int scn_catalog_add(struct scn_catalog *c, const struct ytree *t, const struct ynode *seq,
		    struct plumb_err *err);

/*
 * A `constants:` map of tree t into k (values within their hard bounds,
 * set[] marked; an unknown name is an error with the closest one). scope
 * >= 0 (enum plumb_scope) admits constants of that scope only, as a GPU
 * catalog entry holds gpu-scope ones; -1 admits every one.
 */
int scn_parse_consts(const struct ytree *t, const struct ynode *m, int scope,
		     struct plumb_consts *k, struct plumb_err *err);

/*
 * The constant a `constants:` key names (enum plumb_const), or a negative
 * error at the key: unknown (with the closest name), or outside scope as
 * scn_parse_consts admits it (SCOPE_GPU also admits the MoE kernels'
 * constants, consts_per_gpu).
 */
int scn_const_index(const struct ytree *t, const struct ynode *key, int scope,
		    struct plumb_err *err);

/*
 * Load and validate the scenario file at path. On success *out is a new
 * scenario (free with scn_free). On failure *out is NULL and err holds the
 * first problem with file, line and column.
 */
int scn_load(const char *path, struct scenario **out, struct plumb_err *err);

/* Same from text in memory; `file` names it in messages. */
int scn_parse(const char *file, const char *text, struct scenario **out,
	      struct plumb_err *err);

void scn_free(struct scenario *s);

/*
 * A copy of s that owns its own tables (and its own catalog copy when s
 * owns one); free with scn_free. The copy's catalog pointer is s's when s
 * borrows the built-in or the run's catalog. Returns 0, or -PLUMB_ERUNTIME
 * (out of memory) with *out NULL. O(size of s).
 */
int scn_dup(const struct scenario *s, struct scenario **out, struct plumb_err *err);

/*
 * 1 when a and b hold the same tables (hosts, nodes, GPUs, NVLink bonds),
 * entry for entry, whatever room each allocated; the rest of the structs
 * is the caller's to compare.
 */
int scn_same_tables(const struct scenario *a, const struct scenario *b);

/*
 * Parse a GPU list such as "0-3,6,7" into out (at most max entries, each
 * below max): the count, or -1 for a malformed list, an index out of range
 * or a GPU listed twice.
 */
int scn_gpu_list_parse(const char *s, int *out, int max);

/*
 * A Linux CPU list: "0-15,32-47", comma-separated CPUs or ascending ranges.
 * scn_cpulist_next reads one item at *p into [*a, *b] and moves *p past it
 * and its comma: 1 for an item, 0 at the end, -1 when malformed.
 * scn_cpulist_ok is 1 when all of s is such a list with every CPU within
 * 0..SCN_MAX_CPU, as socket_cpus takes it.
 */
int scn_cpulist_next(const char **p, long *a, long *b);
int scn_cpulist_ok(const char *s);

/*
 * Constants marked set in k override every scenario loaded afterwards (a
 * calibration file given with --calib); NULL clears the overlay. k is
 * copied. Process-wide: set it once, before loading.
 */
void scn_set_overlay(const struct plumb_consts *k);

/*
 * fn(s, arg) runs on every scenario loaded afterwards, after the overlay
 * (a calibration's per-scenario constants and its warnings); NULL clears
 * it. Process-wide, like the overlay.
 */
void scn_set_load_hook(void (*fn)(struct scenario *s, void *arg), void *arg);

const char *scn_kind_name(enum scn_kind k);

/*
 * The engine table (scenarios/catalog/engines.yaml, compiled in; docs/model-kernels.md
 * "Engine stacks"): what SGLang, vLLM and TensorRT-LLM run by default, by
 * version, model family and GPU architecture. Each row states some settings
 * (enum scn_eng_col) for the versions, families and architectures it
 * matches; a setting comes from the first matching row that states it.
 */
#define SCN_ENG_MAX_ROWS 32
#define SCN_ENG_MAX_ARCH 6
#define SCN_ENG_MAX_TIERS 6
#define SCN_NENGINES 3          /* sglang, vllm, trtllm: the engines with a table */
enum scn_family { SCN_FAM_DSA, SCN_FAM_MLA, SCN_FAM_GQA_MOE, SCN_FAM_GQA, SCN_NFAMILY };
enum scn_eng_col {
	SCN_EC_ATTN, SCN_EC_DSA, SCN_EC_AR, SCN_EC_AR_PCIE, SCN_EC_FUSION, SCN_EC_MOE_BACKEND,
	SCN_EC_MOE_RUNNER, SCN_EC_GRAPHS, SCN_EC_PREFILL_GRAPHS, SCN_EC_SCHED, SCN_EC_CHUNK,
	SCN_EC_MAXBATCH, SCN_NEC
};
/* [[below_gib, tokens], ...]: the first tier whose bound (0: any) is above
 * the GPU's memory gives the tokens. */
struct scn_eng_tiers {
	int n;
	double below_gib[SCN_ENG_MAX_TIERS];
	long tokens[SCN_ENG_MAX_TIERS];
};
struct scn_eng_row {
	unsigned since, before;     /* versions (scn_version_pack), before 0: none */
	unsigned families;          /* 1 << enum scn_family; all when not given */
	int narch;                  /* 0: every architecture */
	char arch[SCN_ENG_MAX_ARCH][16];
	unsigned states;            /* 1 << enum scn_eng_col */
	char attention_backend[32];
	int dsa_dense;
	enum scn_allreduce ar, ar_pcie;
	int fusion;
	char moe_backend[32];
	char moe_runner[16];
	int graphs, prefill_graphs, mixed;
	struct scn_eng_tiers chunk, maxbatch;
	char source[640];
	int line, col;
};
struct scn_eng {
	enum scn_engine id;
	unsigned oldest, newest, def;   /* known versions [oldest, newest], default */
	int nrows;
	struct scn_eng_row rows[SCN_ENG_MAX_ROWS];
};
struct scn_eng_table {
	int n;
	struct scn_eng e[SCN_NENGINES];
};

/* The compiled-in table, parsed on first use (read-only, shared); NULL with
 * err filled only on a build bug. */
const struct scn_eng_table *scn_engines_builtin(struct plumb_err *err);

/* Parse an engine table from YAML text named file; *out is freed with
 * free(). Errors: EINPUT at file:line:col (unknown engine or key, bad
 * version, an engine whose last row does not state every setting). */
int scn_engines_parse(const char *file, const char *text, struct scn_eng_table **out,
		      struct plumb_err *err);

/* "0.5.9" -> 5009 + ... (major << 20 | minor << 10 | patch, each below
 * 1024): the packed version, or 0 when s is not 1 to 3 numbers. */
unsigned scn_version_pack(const char *s);
/* The packed version as text ("0.5.9") into buf. */
const char *scn_version_text(unsigned v, char *buf, size_t n);

/* Engine e's entry in t, or NULL (SCN_ENGINE_OTHER has none). */
const struct scn_eng *scn_engines_find(const struct scn_eng_table *t, enum scn_engine e);

/*
 * "NAME" or "NAME@VERSION" (sglang, vllm, trtllm; `other` too when
 * allow_other) against the built-in table: *e and *version (0 for NAME
 * alone). -1 with a message in msg (an unknown name with the closest one,
 * a malformed version, a version outside what the table knows) else 0.
 */
int scn_engine_spec(const char *spec, int allow_other, enum scn_engine *e, unsigned *version,
		    char *msg, size_t n);

/*
 * What engine eng runs at version (0: its default) for a model of family fam
 * on GPUs of architecture arch with mem_gib of memory, its all-reduce group
 * fully connected by NVLink or not (nvlink): into sv's settings that the
 * scenario does not state (sv->stated), with src_row[] naming each row. The
 * engine and version go into sv unless stated. 0, or -1 when a setting has
 * no row (a table bug) or eng has no table.
 */
int scn_serving_fill(struct scn_serving *sv, const struct scn_eng_table *t,
		     enum scn_engine eng, unsigned version, enum scn_family fam,
		     const char *arch, double mem_gib, int nvlink);

const char *scn_family_name(enum scn_family f);
const char *scn_eng_col_name(enum scn_eng_col c);

/* Sum of a GPU model's BARs, bytes. */
uint64_t scn_gpu_bar_total(const struct scn_gpu_model *m);

#endif
