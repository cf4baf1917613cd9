/*
 * consts.c - the table of named model constants and their sources.
 *
 * Derived defaults show their arithmetic. "realdata/" is the measurement
 * collection the project ships its validation against (see docs/model-constants.md).
 */
#include "consts.h"

#include <string.h>

const struct plumb_const_def plumb_const_defs[K_NCONSTS] = {
	[K_PCIE_EFF] = { "pcie_eff", "fraction", 55.08 / 63.0, 0.3, 1.0,
		"host->GPU DMA 55.08 GB/s of 63.0 raw on Gen5 x16 (realdata/gpu-specs.md 1c)",
		SCOPE_BOX, 0.75, 0.95 },
	[K_HOP_NS] = { "hop_ns", "ns", 360.0 / 4.0, 0, 10000,
		"derived: RTX PRO 6000 P2P latency 0.36 us same NUMA (realdata/gpu-specs.md 1d) over the "
		"4 links of a path between two root complexes (GPU link, root complex out and in, GPU link); "
		"the range of validation/data/p2p-crazy-8x5090-pro6000.txt's P2P write latencies",
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
		"RTX PRO 6000 P2P latency 0.36-0.45 us same NUMA, 0.44 us cross-NUMA (realdata/gpu-specs.md 1d; "
		"the range of validation/data/p2p-crazy-8x5090-pro6000.txt's P2P write latencies)",
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
		"NCCL src/graph/tuning.cc hwLat PCI, Ring Simple; plausible from 2 us: NCCL's tables "
		"put no Simple step below 2.8 us (hwLatencies, Simple: CollNet chain 2.8, NVLink ring "
		"3.4, PCI tree 4.0, PCI ring 5.7; ROCm/rccl's tuning models PCI 5.7)",
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
		"6.6 + 14 x 1.0 us for a P2P ring: (38.8 - 20.6) / 14 steps (realdata/nccl-tests-samples.txt, "
		"validation/data/nccl-8x4090-epyc7542-nop2p.txt)",
		SCOPE_BOX, 0.5, 20 },
	[K_NCCL_SHM_GBS] = { "nccl_shm_gbs", "GB/s", 8.0, 0.1, 1000,
		"SHM ring rate per GPU: 4.0 GB/s with 2 GPUs (2x2080Ti, A40) and 14.9 GB/s with 8 "
		"(8x4090: busbw 14.9 = 8 x algbw 8.5 / 14 x 14 / 8) in realdata/nccl-tests-samples.txt; "
		"8.0 is their geometric middle (validation/data/nccl-2x2080ti-autodl-nop2p.txt, "
		"validation/data/nccl-a40-2gpu-node-nop2p.txt, validation/data/nccl-8x4090-epyc7542-nop2p.txt)",
		SCOPE_BOX, 1, 60 },
	[K_NCCL_BW_EFF] = { "nccl_bw_eff", "fraction", 45.70 / (16 * 3.938 * 55.08 / 63.0), 0.05, 1.0,
		"8x RTX 5090 Gen5 P2P all_reduce busbw 45.70 GB/s over a 55.08 GB/s link "
		"(realdata/nccl-tests-samples.txt, gpu-specs.md 1c; validation/data/nccl-8x5090-epyc9575f-p2p.txt)",
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
		"24.5 / 8 GPUs (realdata/nccl-tests-samples.txt, SAMPLE 8x5090-epyc9575f-P2P: "
		"validation/data/nccl-8x5090-epyc9575f-p2p.txt); "
		"the lowest such floor in the samples (8x RTX 4090 -g 8: 38.8 us, 4.9 per GPU); per launch on that "
		"box's 5.0 GHz core, scaled by the scenario's host cpu_boost_ghz (an enqueue is one host thread's work)",
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
	[K_NCCL_SHM_RD_US] = { "nccl_shm_rd_us", "us", 1.16, 0.05, 100,
		"a GPU's 128-byte load of memory across its root complex: p2pmark remote-read latency "
		"NODE (through the root complex) 1.14-1.18 us on Threadripper PRO 7955WX "
		"(realdata/p2p-latency-samples.txt); NCCL's LL over SHM polls each 16-byte line of its "
		"FIFO in host memory with one such load per thread and trip (src/device/prims_ll.h "
		"readLL, src/transport/shm.cc buffers in host memory)",
		SCOPE_BOX, 0.4, 4 },
	[K_RCCL_STEP_US] = { "rccl_step_us", "us", 0.5, 0, 100,
		"what a step of RCCL's kernel costs its own thread block, before and apart from the "
		"hop NCCL's step latency holds: barriers that wait for the step's loads and stores to "
		"the GPU's own memory, and step counters. On a ring every step pays it in turn "
		"(src/device/prims_ll.h LLGenericOp: waitSend's and postRecv's barriers), a step whose "
		"chunk is empty pays only it (no line polled when nelem is 0); an MSCCL allpairs 're' "
		"step is one, a reduce of received shards in the GPU's own memory "
		"(src/device/msccl_kernel_impl.h MSCCL_REDUCE, then barrier: s_waitcnt vmcnt(0), "
		"s_barrier). No measurement isolates it; fitted: plumb calibrate on "
		"validation/data/rccl-8x-mi300x-aac8.txt gives 0.54 +- 0.03 (its 8-64 B ring rows "
		"and 1 KiB-4 MiB allpairs rows), 0.5 kept",
		SCOPE_NCCL, 0.2, 1.5 },
	/* The step model's kernel constants (docs/model-ops.md, "Op time"). Defaults
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
	[K_KERNEL_LAUNCH_EAGER_US] = { "kernel_launch_eager_us", "us", 76.0, 0, 1000,
		"derived: SGLang runs DeepSeek-V3's prefill of 1 new token eagerly in 82.6 ms "
		"(\"forward cost\"), 23.1 ms replayed from a CUDA graph (sgl-project/sglang PR 12160): "
		"host-bound, the whole pass is the host issuing its kernels; plumb's DeepSeek-V3 step "
		"on 8x H200 (fa3) has 1,084 kernels, 76 us each; overlapped with the GPU's work, only "
		"the excess shows",
		SCOPE_ENGINE, 12, 125 },
	[K_STEP_OVERHEAD_US] = { "step_overhead_us", "us", 0.0, 0, 1e6,
		"not modelled by default: the serving engine's host time per step (scheduling, "
		"sampling, launching), overlapped with the GPUs' previous step, so a step lasts "
		"max(GPU time, this); it depends on the engine and its version",
		SCOPE_ENGINE, 0, 5000 },
	[K_REQUEST_FRONTEND_US] = { "request_frontend_us", "us", 6900.0, 0, 1e7,
		"derived: SGLang with a CPU stand-in for the GPU (each forward a 2.632 ms busy-wait), "
		"vllm bench serve at one request of 128 tokens: median TTFT 9.54 ms "
		"(tenstorrent/tt-inference-server issue 3560), so 6.9 ms of HTTP, tokenizer, "
		"scheduler hand-off, detokenizer and client per request; added to every TTFT and "
		"end-to-end latency, not to the steps",
		SCOPE_ENGINE, 3000, 30000 },
	[K_REQUEST_TOKENIZE_US] = { "request_tokenize_us", "us", 3000.0, 0, 1e7,
		"assumed: the part of request_frontend_us a request spends in the engine's one "
		"tokenizer process before the scheduler (HTTP parsing, tokenizing, the ZMQ hand-off), "
		"taken to be under half of the 6.9 ms (the rest is the detokenizer, the stream back "
		"and the client); no per-request measurement found. Requests sent together reach the "
		"scheduler this far apart, and a step takes only those that have arrived "
		"(sgl-project/sglang PR 9436, issue 444); at most request_frontend_us",
		SCOPE_ENGINE, 1000, 6900 },
	[K_REQUEST_TOKENIZE_TOKEN_US] = { "request_tokenize_token_us", "us", 1.0, 0, 1000,
		"derived: a Hugging Face fast tokenizer (tokenizers 0.23.1) encodes ~10 kB English "
		"text on one thread at 2.6-4.6 MB/s (huggingface/tokenizers PRs 2298 and 2322, "
		"eng_Latn 3.9 and 2.6 MB/s; PR 1584: about 4.2 MB/s), about 4 bytes a token: about "
		"1 us a prompt token. sglang.bench_serving and vllm bench serve send the random "
		"prompts as text, and SGLang's TokenizerManager encodes them in its asyncio loop "
		"(tokenizer_manager.py _tokenize_texts), so this adds to a request's tokenizer time "
		"(request_tokenize_us, which requests sent together queue for) and to its front end",
		SCOPE_ENGINE, 0.5, 2.0 },
	[K_VM_SHM_STEP_US] = { "vm_shm_step_us", "us", 0.0, 0, 1000,
		"0: not given. A VM's measured host path per NCCL ring step through host memory, "
		"on top of nccl_shm_step_us; given (or above 0) it replaces the physical estimate "
		"of vm_step_exits, vm_iotlb_miss_us and the rest (docs/model-vm.md, \"A VM's host path\"); "
		"the seed VM fitted 29.5 before that estimate existed",
		SCOPE_VM, 0, 60 },
	/* A VM guest's host path per NCCL SHM ring step, from what the VM is
	 * (models/coll/vmhost.c, docs/model-vm.md "A VM's host path"): exits and
	 * injected interrupts, IOTLB misses of the host IOMMU (and a guest
	 * vIOMMU), staging pages on the wrong socket when the guest has no
	 * NUMA information. vm_shm_step_us, when given, replaces the sum. */
	[K_VM_EXIT_US] = { "vm_exit_us", "us", 1.0, 0, 1000,
		"a VM exit with interrupt injection costs 1,000-10,000 cycles, about 3,000 typical "
		"(newsletter.onedfrk.com archive c9ed37c4, 2026-05-28, posted interrupts on VFIO): "
		"1 us at 3 GHz; the range is 1,000-15,000 cycles",
		SCOPE_VM, 0.3, 5 },
	[K_VM_STEP_EXITS] = { "vm_step_exits", "count", 2.0, 0, 1000,
		"assumed: per ring step the receiving rank's progress and the sending rank's doorbell "
		"each cost the guest one exit or injected interrupt (no posted interrupts, vCPUs not "
		"pinned); 0 with posted interrupts and busy-polling pinned vCPUs; fitted per VM "
		"(the seed VM: scripts/calibrate-seed.sh)",
		SCOPE_VM, 0.5, 40 },
	[K_VM_IOTLB_MISS_US] = { "vm_iotlb_miss_us", "us", 0.61, 0, 1000,
		"derived: a small copy in a Proxmox guest (2x RTX 3090, P2P on) takes 1.01 us against "
		"0.40 on bare metal (realdata/p2p-latency-samples.txt sample 9, "
		"validation/data/p2p-proxmox-2x3090-summary.txt; p2p_lat_us): one cold "
		"translation of the host IOMMU per small DMA, as vm_dma_us",
		SCOPE_VM, 0.2, 2 },
	[K_VM_STEP_PAGES] = { "vm_step_pages", "count", 4.0, 0, 1000,
		"assumed: each of a SHM step's two DMA legs touches its FIFO slot and its head/tail "
		"flag, each on a 4 KiB page of its own; NCCL's 4 MiB buffers rotate over more pages "
		"than an IOTLB holds, so each visit misses. A 2 MiB or 1 GiB IOMMU page (hugepages) "
		"covers 512 or 262,144 of them",
		SCOPE_VM, 2, 16 },
	[K_VM_VIOMMU_FACTOR] = { "vm_viommu_factor", "factor", 2.0, 1, 100,
		"assumed: a guest vIOMMU adds a second translation stage, its walk up to 24 table "
		"reads against 4 for the host's stage alone (two-dimensional walk, x86-64 4-level "
		"tables), of which caching keeps most: 2, in 1-6",
		SCOPE_VM, 1, 6 },
	[K_VM_NUMA_HOP_US] = { "vm_numa_hop_us", "us", 0.08, 0, 1000,
		"derived: RTX PRO 6000 P2P latency 0.44 us across NUMA nodes against 0.36 within "
		"(realdata/gpu-specs.md 1d): one crossing of the inter-socket link per page touched",
		SCOPE_VM, 0.03, 0.5 },
	[K_VM_PATH_SCALE] = { "vm_path_scale", "factor", 1.0, 0.01, 100,
		"prior of an unmeasured VM: measured host paths over this model's estimate for the "
		"same VM span 0.76 (Proxmox 2x RTX 3090 guest, staged copy 15.23 us against 14.3 "
		"on bare metal: 0.93 us for two DMA legs the model puts at 1.22) to 6.4 (the seed "
		"VM: 29.5 us per step fitted against 4.6 estimated); each end widened 1.5x for "
		"having two VMs: 0.25-10, drawn when the VM has no constant of its own",
		SCOPE_VM, 0.25, 10 },
	/* The serving engine's own all-reduce (`serving: custom_allreduce:
	 * oneshot`), from the measured kernel on 4 RTX PRO 6000 behind one
	 * PEX890xx switch (realdata/serving-samples.md section 3). */
	[K_ONESHOT_US] = { "oneshot_ar_us", "us", 5.45, 0, 1000,
		"derived: the one-shot PCIe all-reduce of 4 RTX PRO 6000 on one PEX890xx switch "
		"takes 6.1 us at 1 KB and 95.6 us at 1 MB (realdata/serving-samples.md section 3); "
		"simulated on validation/scenarios/esc8000a-e13p-8xpro6000.yaml GPUs 0-3, those two "
		"sizes give this fixed time and oneshot_bw_eff (the other four sizes check them; "
		"all six are validation case oneshot-e13p-4gpu)",
		SCOPE_ENGINE, 2, 20 },
	[K_ONESHOT_BW_EFF] = { "oneshot_bw_eff", "fraction", 0.852, 0.05, 1.0,
		"derived with oneshot_ar_us (see there) from the same kernel's 1 KB and 1 MB "
		"all-reduces: its peer reads reach this share of a Gen5 x16 link (validation case "
		"oneshot-e13p-4gpu)",
		SCOPE_ENGINE, 0.3, 1 },
	[K_MEM_FRACTION] = { "mem_fraction", "fraction", 0.9, 0.1, 1.0,
		"the engine's static memory share (weights + KV cache; the rest is activations "
		"and graphs): vLLM's gpu_memory_utilization default 0.9; SGLang's "
		"mem_fraction_static picks about 0.8-0.93 by GPU size; the seed box's twin ran 0.92 "
		"(realdata/serving-samples.md section 1)",
		SCOPE_ENGINE, 0.5, 0.98 },
	/* Prefill's tensor-core rates (docs/model-ops.md, "Op time"): a GEMM per
	 * dtype, attention its own; catalog GPUs carry their own values. */
	[K_FP8_FLOPS_EFF] = { "fp8_flops_eff", "fraction", 1146.5 / 1978.9, 0.01, 1.0,
		"H800 SXM5 DeepGEMM FP8 GEMMs at M = 4096, the six dense shapes of DeepSeek-V3: "
		"751-1426 TFLOPS, median 1146.5 (deepseek-ai/DeepGEMM README at 55ab91f, \"Normal "
		"GEMMs for dense models\") of 1978.9 dense FP8 (scenarios/catalog/gpus.yaml, h100-sxm); "
		"replaces flops_eff for FP8 math",
		SCOPE_GPU, 0.3, 0.9 },
	/* FP8 weights with one scale per tensor or output channel (fp8t) are
	 * scaled in the GEMM's epilogue; 128x128-block scales (fp8) promote the
	 * accumulators every 128 of K in the main loop, which costs math. */
	[K_FP8T_FLOPS_EFF] = { "fp8t_flops_eff", "fraction", 0.806 * 1.923 / 2.0, 0.01, 1.0,
		"derived: on one H100 (pytorch/FBGEMM PR 2546, 500 W) row-wise scaled FP8 GEMMs run "
		"1125.51, 1082.75 and 1141.38 TFLOPS where bf16 runs 585.23, 575.12 and 546.31 "
		"(8192^3, 65536x8192x7168, 65536x3584x8192): 1.88-2.09x, median 1.923; times the "
		"H100's bf16 share 0.806 (flops_eff, scenarios/catalog/gpus.yaml) over FP8's doubled "
		"peak. The same PR's block-scaled kernels (870.40, 828.34, 828.31: 1.44-1.52x) give "
		"0.58-0.61 this way, fp8_flops_eff's DeepGEMM 0.579; replaces flops_eff for fp8t",
		SCOPE_GPU, 0.5, 0.9 },
	[K_ATTN_FLOPS_EFF] = { "attn_flops_eff", "fraction", 740.0 / 989.4, 0.01, 1.0,
		"FlashAttention-3 forward on H100 SXM5, FP16: \"up to 740 TFLOPs/s (75% utilization)\" "
		"(Shah et al., arXiv 2407.08608, abstract) of 989.4 dense; its best case (long "
		"sequences, head dim 128): short or causal ones reach less",
		SCOPE_GPU, 0.3, 0.85 },
	[K_ATTN_FP8_FLOPS_EFF] = { "attn_fp8_flops_eff", "fraction", 1200.0 / 1978.9, 0.01, 1.0,
		"FlashAttention-3 forward on H100 SXM5, FP8: \"close to 1.2 PFLOPs/s\" (arXiv "
		"2407.08608, abstract) of 1978.9 dense FP8; used when the KV cache is fp8 and the "
		"GPU has FP8 tensor cores",
		SCOPE_GPU, 0.2, 0.8 },
	[K_GEMM_TILE_M] = { "gemm_tile_m", "rows", 128, 16, 1024,
		"DeepGEMM picks BLOCK_M 64 or 128 (deepseek-ai/DeepGEMM README at 55ab91f: 64-row "
		"GEMMs read weights at 1688-2668 GB/s, memory-bound; 4096-row ones at 751-1426 "
		"TFLOPS); CUTLASS Hopper GEMMs tile 128 rows: a GEMM pays for whole tiles beyond "
		"this many rows, and for the smallest power-of-two tile (16 and up) below",
		SCOPE_GPU, 64, 256 },
	/* A fused MoE kernel's time grows with the experts it touches by their
	 * bytes and a fixed part each (tile setup, the pipeline filling again
	 * for each expert's weights). Kernel benchmarks of one MoE layer at
	 * batch 1..16 give the slope per touched expert; at moe_mem_eff's
	 * default the bytes alone explain it, so the fixed part is 0 beside
	 * that default and drawn over its range (it pairs with a higher
	 * moe_mem_eff). */
	[K_MOE_EXPERT_US] = { "moe_expert_us", "us", 0.0, 0, 1000,
		"derived: Triton fused_moe time per touched expert (slope over batch 1-16) 0.815 us for "
		"Qwen3-235B fp8 tp8 experts of 2.36 MB on H200 (sgl-project/sglang PR 11730) and 1.59 us "
		"for Qwen3-30B bf16 experts of 9.4 MB on B200 (vllm-project/vllm PR 31448): their bytes at "
		"moe_mem_eff's 0.7 leave +0.11 and -0.10 us each, so 0 beside that default; solved "
		"with Mixtral bf16 tp2 on H100 (55.31 us per 176.2 MB expert, vllm-project/vllm PR "
		"24700) for both parts, the weight stream runs at 0.956 and the fixed part is 0.30 "
		"(B200: 0.36), the top of the plausible range",
		SCOPE_ENGINE, 0, 0.4 },
	/* A prefill's routed experts run as one grouped GEMM: many small
	 * problems (an expert's rows, and under TP an expert's slice of
	 * moe_intermediate / tp columns) in one launch, each with its own
	 * prologue, epilogue and partial wave, where a dense GEMM of the same
	 * dtype streams one large problem. Its math runs at this share of the
	 * dense GEMM's rate (flops_eff, fp8_flops_eff, fp4_flops_eff), on top
	 * of each expert's own tile fill (llm_moe_tile_fill). */
	[K_MOE_FLOPS_REL] = { "moe_flops_rel", "fraction", 0.7023, 0.05, 1.0,
		"derived: vLLM's Triton fused_moe, Mixtral-8x7B bf16 tp2 on H100 at 1536 tokens: "
		"1122.93 us (vllm-project/vllm PR 24700, tuned config), 541.2 GFLOP = 481.9 TFLOPS, "
		"0.604 of the same GPU's dense bf16 matmul (797.5 TFLOPS, scenarios/catalog/gpus.yaml "
		"h100-sxm); with the 1.162 tile fill of its 384 rows per expert (llm_moe_tile_fill at "
		"128-row tiles) the math runs at 0.702 of the dense rate. Narrow experts reach less: "
		"Qwen3-30B-A3B fp8 tp1 (768 wide) at 4096 tokens 1647.57 us in the same PR, 187.7 "
		"TFLOPS, 0.164 of DeepGEMM's dense FP8 (1146.5): the plausible range's low end",
		SCOPE_GPU, 0.16, 1.0 },
	/* The model error of a prediction nothing was fitted to: the spread
	 * make validate measures on its out-of-sample decode and serving points
	 * (docs/validation.md, "Model error"); each draw of predict's 90% range
	 * multiplies tok/s by exp(tok_err_sd z) and TTFT by exp(-ttft_err_sd z). */
	[K_TOK_ERR_SD] = { "tok_err_sd", "log-sd", 0.1175, 0, 2,
		"out-of-sample residual spread of make validate (docs/validation.md, \"Model error\"), "
		"126 tok/s and TPOT points of 30 public cases: the smallest log-sd that, with the step "
		"constants' draws (50), puts 90% of them inside predict's range (0.0925-0.1275 with one "
		"case left out)",
		SCOPE_ENGINE, 0.03, 0.5 },
	[K_TTFT_ERR_SD] = { "ttft_err_sd", "log-sd", 0.4150, 0, 2,
		"out-of-sample residual spread of make validate (docs/validation.md, \"Model error\"), "
		"50 TTFT points of 9 public cases (median error 22%): the smallest log-sd that, with the "
		"step constants' draws (50), puts 90% of them inside predict's range (0.3925-0.4150 with "
		"one case left out)",
		SCOPE_ENGINE, 0.1, 1.5 },
};

void consts_defaults(struct plumb_consts *c)
{
	int i;
	for (i = 0; i < K_NCONSTS; i++) {
		c->v[i] = plumb_const_defs[i].def;
		c->set[i] = 0;
		c->dlo[i] = c->dhi[i] = 0;
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

const char *consts_basis_name(enum plumb_basis b)
{
	static const char *const names[] = { "", "measured", "fitted", "assumed" };
	return (unsigned)b <= BASIS_ASSUMED ? names[b] : "?";
}

void consts_draw_range(const struct plumb_consts *k, int i, double *lo, double *hi)
{
	const struct plumb_const_def *d = &plumb_const_defs[i];
	if (k->dlo[i] > 0 && k->dhi[i] >= k->dlo[i]) {
		*lo = k->dlo[i];
		*hi = k->dhi[i];
	} else {
		*lo = d->plo;
		*hi = d->phi;
	}
}

int consts_per_gpu(int i)
{
	return plumb_const_defs[i].scope == SCOPE_GPU || i == K_MOE_MEM_EFF || i == K_KMIN_MOE_US;
}
