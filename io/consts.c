/*
 * consts.c - the table of named model constants and their sources.
 *
 * Derived defaults show their arithmetic. "realdata/" is the measurement
 * collection the project ships its validation against (see docs/model.md).
 */
#include "consts.h"

#include <string.h>

const struct plumb_const_def plumb_const_defs[K_NCONSTS] = {
	[K_PCIE_EFF] = { "pcie_eff", "fraction", 55.08 / 63.0, 0.3, 1.0,
		"host->GPU DMA 55.08 GB/s of 63.0 raw on Gen5 x16 (realdata/gpu-specs.md 1c)",
		SCOPE_BOX, 0.75, 0.95 },
	[K_HOP_NS] = { "hop_ns", "ns", 360.0 / 4.0, 0, 10000,
		"derived: RTX PRO 6000 P2P latency 0.36 us same NUMA (realdata/gpu-specs.md 1d) over the "
		"4 links of a path between two root complexes (GPU link, root complex out and in, GPU link)",
		SCOPE_BOX, 20, 300 },
	[K_RC_GBS] = { "rc_gbs", "GB/s", 73.09, 1, 10000,
		"8 GPUs through one I/O-die quadrant cap at 73.09 GB/s H2D (realdata/gpu-specs.md 1c)",
		SCOPE_BOX, 40, 300 },
	[K_SW_DUPLEX_EFF] = { "switch_duplex_eff", "fraction", 103.571 / (2 * 54.802), 0.3, 1.0,
		"Gen5 Microchip Switchtec box, every GPU under a switch: bidirectional P2P mean 103.57 GB/s "
		"over twice the unidirectional mean 54.80 GB/s, 56 pairs each "
		"(validation/data/p2p-wrx90-cpayne-8xpro6000.txt); Broadcom PEX890xx pairs under one "
		"switch 103 / (2 x 53.5), 0.96 (validation/data/p2p-esc8000a-e13p-8xpro6000.txt)",
		SCOPE_BOX, 0.85, 1.0 },
	[K_DRAM_GBS] = { "dram_gbs", "GB/s", 614.4, 1, 100000,
		"AMD EPYC 9005: 12 channels DDR5-6400, 12 x 51.2 GB/s (AMD datasheet)",
		SCOPE_BOX, 100, 1500 },
	[K_XSOCK_GBS] = { "xsock_gbs", "GB/s", 192.0, 1, 100000,
		"Turin xGMI 192-256 GB/s measured, low end (realdata/gpu-specs.md 1d)",
		SCOPE_BOX, 50, 512 },
	[K_P2P_LAT_US] = { "p2p_lat_us", "us", 0.40, 0, 1000,
		"RTX PRO 6000 P2P latency 0.36-0.45 us same NUMA, 0.44 us cross-NUMA (realdata/gpu-specs.md 1d)",
		SCOPE_BOX, 0.2, 5 },
	[K_BOUNCE_FLOOR_US] = { "bounce_floor_us", "us", 13.7, 0, 10000,
		"seed VM small-transfer floor through host memory 13.7 us; bare metal 2x5090 14.3 us (DESIGN.md)",
		SCOPE_BOX, 5, 40 },
	[K_BOUNCE_CHUNK_KIB] = { "bounce_chunk_kib", "KiB", 1242.0, 4, 1048576,
		"derived: with double-buffered staging, bandwidth fraction "
		"2C/r / (2C/r + s) = 43/55 (Gen5 bounce 43 GB/s vs 55 direct, DESIGN.md) "
		"and sync s = 13.7 - 2 x 0.40 us give C = 1242 KiB at r = 55 GB/s",
		SCOPE_BOX, 64, 8192 },
	[K_BOUNCE_BUFFERS] = { "bounce_buffers", "count", 2, 1, 64,
		"double buffering; shared by concurrent bounces: staged copies in both directions at once "
		"reach 1.07-1.31x one direction (RTX 4090, RTX 5090 in realdata/p2p-latency-samples.txt), "
		"closer to a shared pair (1x) than to a pair each (2x)",
		SCOPE_BOX, 1, 8 },
	[K_LOCAL_LAT_US] = { "local_lat_us", "us", 1.0, 0, 1000,
		"p2pBandwidthLatencyTest diagonal 0.92-1.04 us on RTX 5090 / RTX PRO 6000 "
		"(realdata/p2p-latency-samples.txt sample 4)",
		SCOPE_GPU, 0.5, 3 },
	[K_VM_DMA_US] = { "vm_dma_us", "us", 0.0, 0, 1000,
		"VM and bare-metal bounce floors agree (13.7 vs 14.3 us, DESIGN.md): no extra by default",
		SCOPE_VM, 0, 20 },
	[K_D2D_EFF] = { "d2d_eff", "fraction", 1600.0 / 1792.0, 0.05, 1.0,
		"RTX PRO 6000 local copy ~1600 GB/s of 1792 GB/s memory bandwidth (realdata/gpu-specs.md 3)",
		SCOPE_GPU, 0.6, 0.98 },
	[K_NCCL_BASE_US] = { "nccl_base_ll_us", "us", 6.6, 0, 1000,
		"NCCL src/graph/tuning.cc baseLat, Ring LL",
		SCOPE_NCCL, 3, 20 },
	[K_NCCL_BASE_LL128_US] = { "nccl_base_ll128_us", "us", 14.0, 0, 1000,
		"NCCL src/graph/tuning.cc baseLat, Ring LL128",
		SCOPE_NCCL, 5, 40 },
	[K_NCCL_BASE_SIMPLE_US] = { "nccl_base_simple_us", "us", 8.4, 0, 1000,
		"NCCL src/graph/tuning.cc baseLat, Ring Simple",
		SCOPE_NCCL, 4, 30 },
	[K_NCCL_PCI_LL_US] = { "nccl_pci_ll_us", "us", 1.0, 0, 1000,
		"NCCL src/graph/tuning.cc hwLat PCI, Ring LL",
		SCOPE_NCCL, 0.5, 5 },
	[K_NCCL_PCI_LL128_US] = { "nccl_pci_ll128_us", "us", 2.5, 0, 1000,
		"NCCL src/graph/tuning.cc hwLat PCI, Ring LL128",
		SCOPE_NCCL, 1, 10 },
	[K_NCCL_PCI_SIMPLE_US] = { "nccl_pci_simple_us", "us", 5.7, 0, 1000,
		"NCCL src/graph/tuning.cc hwLat PCI, Ring Simple",
		SCOPE_NCCL, 2, 20 },
	[K_NCCL_NVL_LL_US] = { "nccl_nvl_ll_us", "us", 0.6, 0, 1000,
		"NCCL src/graph/tuning.cc hwLat NVLink, Ring LL",
		SCOPE_NCCL, 0.3, 3 },
	[K_NCCL_NVL_LL128_US] = { "nccl_nvl_ll128_us", "us", 1.9, 0, 1000,
		"NCCL src/graph/tuning.cc hwLat NVLink, Ring LL128",
		SCOPE_NCCL, 0.8, 8 },
	[K_NCCL_NVL_SIMPLE_US] = { "nccl_nvl_simple_us", "us", 3.4, 0, 1000,
		"NCCL src/graph/tuning.cc hwLat NVLink, Ring Simple",
		SCOPE_NCCL, 1.5, 15 },
	[K_NCCL_NET_LL_US] = { "nccl_net_ll_us", "us", 2.7, 0, 1000,
		"NCCL src/graph/tuning.cc hwLatencies NET, Ring LL (the interLat of a ring step between nodes)",
		SCOPE_NCCL, 1, 15 },
	[K_NCCL_NET_LL128_US] = { "nccl_net_ll128_us", "us", 4.0, 0, 1000,
		"NCCL src/graph/tuning.cc hwLatencies NET, Ring LL128",
		SCOPE_NCCL, 1.5, 20 },
	[K_NCCL_NET_SIMPLE_US] = { "nccl_net_simple_us", "us", 14.0, 0, 1000,
		"NCCL src/graph/tuning.cc hwLatencies NET, Ring Simple",
		SCOPE_NCCL, 5, 60 },
	[K_NCCL_NET_OVERHEAD_US] = { "nccl_net_overhead_us", "us", 1.0, 0, 1000,
		"NCCL src/graph/tuning.cc getNetOverhead: 1.0 us on Intel x86 (2.0 on AMD, taken "
		"from the scenario's cpu_vendor when this is not set), three times that for Simple; "
		"the floor of every intra-node step of a ring that spans nodes",
		SCOPE_NCCL, 0.3, 10 },
	[K_NCCL_SHM_STEP_US] = { "nccl_shm_step_us", "us", 1.3, 0, 1000,
		"derived: 8x RTX 4090 SHM all_reduce 8 B takes 38.8 us vs NCCL's "
		"6.6 + 14 x 1.0 us for a P2P ring: (38.8 - 20.6) / 14 steps (realdata/nccl-tests-samples.txt)",
		SCOPE_BOX, 0.5, 20 },
	[K_NCCL_SHM_GBS] = { "nccl_shm_gbs", "GB/s", 8.0, 0.1, 1000,
		"SHM ring rate per GPU: 4.0 GB/s with 2 GPUs (2x2080Ti, A40) and 14.9 GB/s with 8 "
		"(8x4090: busbw 14.9 = 8 x algbw 8.5 / 14 x 14 / 8) in realdata/nccl-tests-samples.txt; "
		"8.0 is their geometric middle",
		SCOPE_BOX, 1, 60 },
	[K_NCCL_BW_EFF] = { "nccl_bw_eff", "fraction", 45.70 / (16 * 3.938 * 55.08 / 63.0), 0.05, 1.0,
		"8x RTX 5090 Gen5 P2P all_reduce busbw 45.70 GB/s over a 55.08 GB/s link "
		"(realdata/nccl-tests-samples.txt, gpu-specs.md 1c)",
		SCOPE_NCCL, 0.5, 0.98 },
	[K_NCCL_CHANNELS] = { "nccl_channels", "count", 2, 1, 64,
		"NCCL duplicates the one ring its search finds on a single PCIe node (src/graph/search.cc), "
		"giving 2 channels; used between hosts, and when set it overrides the count NCCL's search "
		"gives inside a host (models/coll/coll_tune.c), as NCCL_MIN/MAX_NCHANNELS do",
		SCOPE_NCCL, 1, 32 },
	[K_NCCL_LL_MAX_VOLTA] = { "nccl_ll_max_volta_gbs", "GB/s", 39.0, 0.1, 10000,
		"NCCL src/graph/tuning.cc llMaxBws, Volta, one node",
		SCOPE_NCCL, 1, 10000 },
	[K_NCCL_LL_MAX_AMPERE] = { "nccl_ll_max_ampere_gbs", "GB/s", 87.7, 0.1, 10000,
		"NCCL src/graph/tuning.cc llMaxBws, Ampere, one node",
		SCOPE_NCCL, 1, 10000 },
	[K_NCCL_LL_MAX_HOPPER] = { "nccl_ll_max_hopper_gbs", "GB/s", 141.0, 0.1, 10000,
		"NCCL src/graph/tuning.cc llMaxBws, Hopper, one node",
		SCOPE_NCCL, 1, 10000 },
	[K_NCCL_LL_MAX_BLACKWELL] = { "nccl_ll_max_blackwell_gbs", "GB/s", 282.0, 0.1, 10000,
		"NCCL src/graph/tuning.cc llMaxBws, Blackwell (2 x 141), one node",
		SCOPE_NCCL, 1, 10000 },
	[K_NCCL_LL128_CH_VOLTA] = { "nccl_ll128_ch_volta_gbs", "GB/s", 20.0, 0.1, 10000,
		"NCCL src/graph/tuning.cc perChMaxRingLL128Bws, Volta",
		SCOPE_NCCL, 1, 10000 },
	[K_NCCL_LL128_CH_AMPERE] = { "nccl_ll128_ch_ampere_gbs", "GB/s", 20.0, 0.1, 10000,
		"NCCL src/graph/tuning.cc perChMaxRingLL128Bws, Ampere",
		SCOPE_NCCL, 1, 10000 },
	[K_NCCL_LL128_CH_HOPPER] = { "nccl_ll128_ch_hopper_gbs", "GB/s", 36.7, 0.1, 10000,
		"NCCL src/graph/tuning.cc perChMaxRingLL128Bws, Hopper",
		SCOPE_NCCL, 1, 10000 },
	[K_NCCL_LL128_CH_BLACKWELL] = { "nccl_ll128_ch_blackwell_gbs", "GB/s", 40.0, 0.1, 10000,
		"NCCL src/graph/tuning.cc perChMaxRingLL128Bws, Blackwell",
		SCOPE_NCCL, 1, 10000 },
	[K_NCCL_LL_FRAC] = { "nccl_ll_frac", "fraction", 0.5, 0.01, 1.0,
		"LL's payload share of Simple's rate: 8 data bytes in every 16 (NCCL src/include/device.h "
		"union ncclLLFifoLine: data1, flag1, data2, flag2); NCCL's tuner assumes less, ring LL "
		"busBw = Simple's x 1.0/4.0 for all-reduce (src/graph/tuning.cc): a free constant of "
		"nccl-tests calibrations",
		SCOPE_NCCL, 0.2, 0.6 },
	[K_NCCL_TESTS_LAUNCH_US] = { "nccl_tests_launch_us", "us", 3.1, 0, 1000,
		"8x RTX 5090 all_reduce_perf -g 8 (one thread): flat 24.5-25.5 us from 8 B to 2 KiB, "
		"24.5 / 8 GPUs (realdata/nccl-tests-samples.txt, SAMPLE 8x5090-epyc9575f-P2P); "
		"the lowest such floor in the samples (8x RTX 4090 -g 8: 38.8 us, 4.9 per GPU)",
		SCOPE_BOX, 1, 10 },
	[K_NCCL_FLOOR_US] = { "nccl_floor_us", "us", 2.3, 0, 1000,
		"derived: 2x A100-SXM4 all_reduce_perf 32 B takes 10.14 us (GitHub NVIDIA/nccl issue 583) "
		"against NCCL's ring LL estimate 6.6 + 2 x 0.6 us over NVLink (src/graph/tuning.cc): the "
		"rest, 2.3 us, is the kernel's launch, prologue and first handshake, paid once",
		SCOPE_NCCL, 0, 10 },
	[K_NCCL_CH_GBS] = { "nccl_ch_gbs", "GB/s", 2 * 110.81 / 8, 0.1, 10000,
		"derived: 8x A100 NVSwitch sendrecv_perf 128 MiB at 110.81 GB/s (GitHub li-plus/playground "
		"cuda/nccl.md) runs 8 p2p channels (src/enqueue.cc: 4 per peer, doubled while a part "
		"exceeds 32 x the 512 KiB NVLink chunk), 13.85 GB/s each with half of the thread block "
		"sending: a channel (thread block) moves 27.7 GB/s",
		SCOPE_NCCL, 10, 100 },
	/* The step model's kernel constants (docs/model.md, "Op time"). Defaults
	 * are what public kernel measurements give; the bundled RTX PRO 6000
	 * scenarios carry values fitted jointly to the seed VM and its bare-metal
	 * twin (scripts/calibrate-seed.sh), each inside its plausible range. */
	[K_MEM_EFF] = { "mem_eff", "fraction", 1600.0 / 1792.0, 0.05, 1.0,
		"dense GEMMs streaming weights read as fast as a copy: RTX PRO 6000 local copy ~1600 GB/s "
		"of 1792 GB/s (realdata/gpu-specs.md 3)",
		SCOPE_GPU, 0.6, 0.95 },
	[K_ATTN_MEM_EFF] = { "attn_mem_eff", "fraction", 0.7, 0.05, 1.0,
		"assumed: split-KV decode attention reads the cache at 70% of the memory rate "
		"(fewer heads per GPU than a copy has threads; a free constant of serving calibrations)",
		SCOPE_GPU, 0.3, 0.95 },
	[K_MOE_MEM_EFF] = { "moe_mem_eff", "fraction", 0.7, 0.05, 1.0,
		"assumed: grouped MoE GEMMs read the touched experts at 70% of the memory rate "
		"(many small problems; flashinfer-ai/flashinfer issue 4990: SM120 CUTLASS grouped MoE GEMM "
		"latency-bound at 32-35% memory throughput in prefill); depends on the MoE backend",
		SCOPE_ENGINE, 0.3, 0.95 },
	[K_FLOPS_EFF] = { "flops_eff", "fraction", 417.34 / 503.8, 0.05, 1.0,
		"RTX PRO 6000 torch bf16 matmul 8192: 417.34 TFLOPS measured (realdata/gpu-specs.md 1b) "
		"of 503.8 dense in NVIDIA's whitepaper (scenarios/catalog/gpus.yaml)",
		SCOPE_GPU, 0.4, 0.95 },
	/* FP4 tensor cores: the math needs the block scales applied, and the
	 * kernels that do it reach a much smaller share of the datasheet rate
	 * than bf16 GEMMs do, differently on each GPU generation. */
	[K_FP4_FLOPS_EFF] = { "fp4_flops_eff", "fraction", 5239.0 / 9000.0, 0.01, 1.0,
		"B200 cuBLASLt NVFP4 GEMM 8192^3: 5239 TFLOPS (deepseek-ai/DeepGEMM PR 348, "
		"cublasTest 13.3) of 9000 dense (scenarios/catalog/gpus.yaml); replaces flops_eff "
		"for FP4 math",
		SCOPE_GPU, 0.1, 0.9 },
	[K_KMIN_GEMM_US] = { "kmin_gemm_us", "us", 4.0, 0, 1000,
		"assumed: a GEMV-shaped GEMM with few weights still fills the GPU for a few us "
		"(one wave of CTAs, split-K reduction); a free constant of serving calibrations",
		SCOPE_GPU, 2, 15 },
	[K_KMIN_MOE_US] = { "kmin_moe_us", "us", 6.0, 0, 1000,
		"assumed: a grouped MoE kernel (expert sort, grouped GEMM) runs at least one "
		"wave with its routing metadata; sgl-project/sglang PR 38884: a fused metadata kernel "
		"0.008 ms per layer; depends on the MoE backend",
		SCOPE_ENGINE, 2, 30 },
	[K_KMIN_ATTN_US] = { "kmin_attn_us", "us", 5.0, 0, 1000,
		"assumed: split-KV decode attention and its merge kernel; lightseekorg/tokenspeed "
		"PR 1154: a linear-attention (KDA) decode kernel 7.30-9.09 us per layer call at "
		"batch 1 (CUDA-graph microbenchmark)",
		SCOPE_GPU, 2, 20 },
	[K_KMIN_ELEM_US] = { "kmin_elem_us", "us", 2.9, 0, 1000,
		"NVIDIA/Megatron-LM PR 6463: at decode a TransformerEngine rmsnorm_fwd_tuned runs ~2.9 us, "
		"a residual add ~1.5 us, the two fused 4.11 us; lightseekorg/tokenspeed PR "
		"1154: a gated RMSNorm 1.90 us at batch 1",
		SCOPE_GPU, 1, 6 },
	[K_KERNEL_LAUNCH_US] = { "kernel_launch_us", "us", 1.0, 0, 1000,
		"assumed: about 1 us between kernels replayed from a CUDA graph, a few times less than "
		"an eager launch",
		SCOPE_GPU, 0.3, 3 },
	/* A Python engine running eagerly dispatches every elementary PyTorch
	 * op from the host; plumb's ops are the fused kernels of a captured
	 * decode step (10-21 per layer), each standing for several eager ops. */
	[K_KERNEL_LAUNCH_EAGER_US] = { "kernel_launch_eager_us", "us", 38.0, 0, 1000,
		"derived: an eager transformer block dispatches ~50 elementary ops "
		"(mlhero.books.neutronlabs.ai ch. 21, PyTorch dispatch stack), each ~5-25 us of host "
		"work before its kernel (jiahuanglin.xyz gpu_kernel_serving lesson 18); over plumb's "
		"10-21 fused kernels per layer that is 12-125 us per kernel, 38 at the geometric middles "
		"(50 x 11 / 14.5); overlapped with the GPU's work, only the excess shows",
		SCOPE_ENGINE, 12, 125 },
	[K_STEP_OVERHEAD_US] = { "step_overhead_us", "us", 0.0, 0, 1e6,
		"not modelled by default: the serving engine's host time per step (scheduling, "
		"sampling, launching), overlapped with the GPUs' previous step, so a step lasts "
		"max(GPU time, this); it depends on the engine and its version",
		SCOPE_ENGINE, 0, 5000 },
	[K_VM_SHM_STEP_US] = { "vm_shm_step_us", "us", 0.0, 0, 1000,
		"0 by default (no VM); in a VM guest each NCCL ring step through host memory pays "
		"the guest's host path (IOMMU translation, interrupt and doorbell exits) on top of "
		"nccl_shm_step_us: fitted per VM configuration (the seed VM: scripts/calibrate-seed.sh)",
		SCOPE_VM, 0, 60 },
	/* The serving engine's own all-reduce (`serving: custom_allreduce:
	 * oneshot`), from the measured kernel on 4 RTX PRO 6000 behind one
	 * PEX890xx switch (realdata/serving-samples.md section 3). */
	[K_ONESHOT_US] = { "oneshot_ar_us", "us", 5.45, 0, 1000,
		"derived: the one-shot PCIe all-reduce of 4 RTX PRO 6000 on one PEX890xx switch "
		"takes 6.1 us at 1 KB and 95.6 us at 1 MB (realdata/serving-samples.md section 3); "
		"simulated on validation/scenarios/esc8000a-e13p-8xpro6000.yaml GPUs 0-3, those two "
		"sizes give this fixed time and oneshot_bw_eff (the other four sizes are the "
		"validation case oneshot-e13p-4gpu)",
		SCOPE_ENGINE, 2, 20 },
	[K_ONESHOT_BW_EFF] = { "oneshot_bw_eff", "fraction", 0.852, 0.05, 1.0,
		"derived with oneshot_ar_us (see there) from the same kernel's 1 KB and 1 MB "
		"all-reduces: its peer reads reach this share of a Gen5 x16 link",
		SCOPE_ENGINE, 0.3, 1 },
	[K_MEM_FRACTION] = { "mem_fraction", "fraction", 0.9, 0.1, 1.0,
		"the engine's static memory share (weights + KV cache; the rest is activations "
		"and graphs): vLLM's gpu_memory_utilization default 0.9; SGLang's "
		"mem_fraction_static picks about 0.8-0.93 by GPU size; the seed box's twin ran 0.92 "
		"(realdata/serving-samples.md section 1)",
		SCOPE_ENGINE, 0.5, 0.98 },
};

void consts_defaults(struct plumb_consts *c)
{
	int i;
	for (i = 0; i < K_NCONSTS; i++) {
		c->v[i] = plumb_const_defs[i].def;
		c->set[i] = 0;
	}
}

int consts_find(const char *name)
{
	int i;
	for (i = 0; i < K_NCONSTS; i++)
		if (strcmp(plumb_const_defs[i].name, name) == 0)
			return i;
	return -1;
}

const char *consts_scope_name(enum plumb_scope s)
{
	static const char *const names[SCOPE_N] = { "gpu", "engine", "nccl", "box", "vm" };
	return (unsigned)s < SCOPE_N ? names[s] : "?";
}

int consts_plausible(int i, double v)
{
	const struct plumb_const_def *d = &plumb_const_defs[i];
	return v >= d->plo * (1 - 1e-9) && v <= d->phi * (1 + 1e-9);
}

int consts_shared(int i)
{
	enum plumb_scope s = plumb_const_defs[i].scope;
	return s == SCOPE_GPU || s == SCOPE_ENGINE || s == SCOPE_NCCL;
}
