/*
 * llm_time.c - the time of a step's ops on one GPU (docs/model-ops.md, "Op
 * time"): bytes over the memory rate of the op's kernel class, FLOPs over
 * the tensor rate of its dtype at its class's efficiency with the GEMM's
 * rows rounded up to the tile they fill, each kernel's minimum, and the
 * launches: a gap per kernel replayed from a CUDA graph, or the host issuing
 * eager kernels as a queue ahead of the GPU.
 */
#include "llm.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* Does g run the math of format d on tensor cores of d's own width? */
static int native(const struct scn_gpu_model *g, enum llm_dtype d)
{
	switch (d) {
	case LLM_NVFP4:
	case LLM_MXFP4:
		return g->tflops_fp4 > 0;
	case LLM_FP8:
	case LLM_FP8T:
		return g->tflops_fp8 > 0;
	case LLM_BF16:
		return 1;
	default:
		return 0;       /* int4: weight-only everywhere */
	}
}

double llm_gpu_tflops(const struct scn_gpu_model *g, enum llm_dtype d)
{
	/* A format the GPU has no tensor cores for runs weight-only: the
	 * kernel (Marlin) dequantizes the weights to bf16 and multiplies at the
	 * bf16 rate (W4A16, W8A16), not at the next narrower rate it has
	 * (vllm-project/vllm PR 49376: GPUs without a native FP4 GEMM fall back
	 * to weight-only W4A16 Marlin; issue 40851: FP8 on an A800 "Weight-only
	 * FP8 compression will be used leveraging the Marlin kernel") */
	if (d == LLM_NVFP4 || d == LLM_MXFP4)
		return native(g, d) ? g->tflops_fp4 : g->tflops_bf16;
	if ((d == LLM_FP8 || d == LLM_FP8T) && native(g, d))
		return g->tflops_fp8;
	return g->tflops_bf16;
}

const char *llm_kernel_path(const struct scn_gpu_model *g, enum llm_dtype d)
{
	switch (d) {
	case LLM_NVFP4:
	case LLM_MXFP4:
		return native(g, d) ? "FP4 tensor cores (W4A4)" :
		       "weight-only, dequantized to bf16 (Marlin W4A16): no FP4 tensor cores, the "
		       "bf16 rate";
	case LLM_FP8:
	case LLM_FP8T:
		return native(g, d) ? "FP8 tensor cores (W8A8)" :
		       "weight-only, dequantized to bf16 (Marlin W8A16): no FP8 tensor cores, the "
		       "bf16 rate";
	case LLM_INT4:
		return "weight-only, dequantized to bf16 (W4A16), the bf16 rate";
	default:
		return "bf16 tensor cores";
	}
}

int llm_flops_eff_of(const struct scn_gpu_model *g, enum llm_kclass c, enum llm_dtype d)
{
	int fp8 = (d == LLM_FP8 || d == LLM_FP8T) && native(g, d);
	if (c == LLM_K_ATTN)
		return fp8 ? K_ATTN_FP8_FLOPS_EFF : K_ATTN_FLOPS_EFF;
	if ((d == LLM_NVFP4 || d == LLM_MXFP4) && g->tflops_fp4 > 0)
		return K_FP4_FLOPS_EFF;
	/* one scale a tensor or channel: applied in the epilogue, so the
	 * main loop runs at the plain FP8 rate (fp8t_flops_eff) */
	if (fp8 && d == LLM_FP8T)
		return K_FP8T_FLOPS_EFF;
	return fp8 ? K_FP8_FLOPS_EFF : K_FLOPS_EFF;
}

/* Bytes a per-token-group FP8 quantization moves per element: a bf16
 * read, an fp8 write and a 4-byte scale per group of 128. */
#define QUANT_BYTES (2.0 + 1.0 + 4.0 / 128.0)

/* The smallest MMA a tensor-core GEMM issues has 16 rows (mma.m16n8k16). */
enum { TILE_MIN_ROWS = 16 };

double llm_tile_rows(double M, double tile)
{
	double t = TILE_MIN_ROWS;
	if (M <= 0)
		return M;
	if (tile < TILE_MIN_ROWS)
		tile = TILE_MIN_ROWS;
	if (M >= tile)
		return ceil(M / tile - 1e-9) * tile;
	while (t < M && t < tile)
		t *= 2;
	return t < tile ? t : tile;
}

/*
 * Tile fill of a grouped MoE GEMM whose touched experts get `rows` rows on
 * average: each expert's rows are its own GEMM and round up to their own
 * tile, so the fill is E[tile(X)] / E[X] over the rows X of one touched
 * expert, not tile(mean) / mean. A token picks a given expert with
 * probability k / E, independently of the other tokens, so X is binomial,
 * Poisson for the many tokens and few picks per expert of a prefill: X ~
 * Poisson(lambda) given X >= 1 (the expert is touched), lambda solving
 * lambda / (1 - e^-lambda) = rows. At 256 rows on average and 128-row
 * tiles an expert computes 2 or 3 tiles with even odds: fill 1.24 where the
 * mean alone gives 1.0. The launch has one block height (vllm-project/vllm
 * PR 39327: DeepGEMM's grouped kernel pads each expert's rows to BLOCK_M
 * 128; Triton's fused_moe takes BLOCK_SIZE_M from a config chosen by the
 * total rows), here the tile a GEMM of the mean rows would pick, and every
 * expert pads to a multiple of it. docs/model-ops.md, "Op time".
 */
static double tile_fill(double rows, double tile)
{
	double lam, num = 0, den = 0, p, lo, hi, x, blk;
	int it;
	if (rows <= 1)
		return rows > 0 ? llm_tile_rows(1, tile) : 1.0;
	/* lambda / (1 - e^-lambda) = rows: rows - 1 < lambda < rows */
	lo = rows - 1 > 0 ? rows - 1 : 0;
	hi = rows;
	for (it = 0; it < 200 && hi - lo > 1e-12 * rows; it++) {
		double mid = 0.5 * (lo + hi);
		if (mid / -expm1(-mid) < rows)
			lo = mid;
		else
			hi = mid;
	}
	lam = 0.5 * (lo + hi);
	if (lam <= 0)
		return llm_tile_rows(1, tile);
	/* one block height for the whole launch, picked for the mean (as a
	 * single GEMM of that many rows would pick it); each expert pads its
	 * rows to a multiple of it */
	blk = llm_tile_rows(rows < tile ? rows : tile, tile);
	/* X >= 1 within 12 standard deviations of lambda (the rest < 1e-30) */
	lo = floor(lam - 12 * sqrt(lam) - 1);
	hi = ceil(lam + 12 * sqrt(lam) + 16);
	if (lo < 1)
		lo = 1;
	for (x = lo; x <= hi; x++) {
		p = exp(x * log(lam) - lam - lgamma(x + 1));
		num += p * ceil(x / blk - 1e-9) * blk;
		den += p * x;
	}
	return den > 0 ? num / den : llm_tile_rows(rows, tile) / rows;
}

/*
 * tile_fill sums up to a few hundred Poisson terms (about 0.1 M
 * instructions); a serving run asks it again for every step whose tokens
 * it has seen before (the same rows under every draw of the constants). Its
 * answers are kept by the bits of (rows, tile) in a direct-mapped table
 * under one mutex: a slot holds the last pair that landed there, so a
 * collision only computes again, and the answer is the function's, bit for
 * bit, whichever thread stored it.
 */
#define FILL_SLOTS 4096

static struct {
	pthread_mutex_t mu;
	struct fill_slot {
		uint64_t rows, tile;
		double fill;
		int used;
	} slot[FILL_SLOTS];
} fills = { PTHREAD_MUTEX_INITIALIZER, { { 0, 0, 0, 0 } } };

double llm_moe_tile_fill(double rows, double tile)
{
	uint64_t r, t, h;
	struct fill_slot *sl;
	double f;
	int hit;
	if (rows <= 1)
		return tile_fill(rows, tile);
	memcpy(&r, &rows, sizeof(r));
	memcpy(&t, &tile, sizeof(t));
	h = (r ^ (r >> 29) ^ (t * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
	sl = &fills.slot[(h >> 40) & (FILL_SLOTS - 1)];
	pthread_mutex_lock(&fills.mu);
	hit = sl->used && sl->rows == r && sl->tile == t;
	f = sl->fill;
	pthread_mutex_unlock(&fills.mu);
	if (hit)
		return f;
	f = tile_fill(rows, tile);
	pthread_mutex_lock(&fills.mu);
	sl->rows = r;
	sl->tile = t;
	sl->fill = f;
	sl->used = 1;
	pthread_mutex_unlock(&fills.mu);
	return f;
}

/* Seconds of `flops` of kernel class c on dtype d over `rows` rows on g: a
 * grouped MoE GEMM pays for every expert's own tiles and runs at
 * moe_flops_rel of the dense GEMM's rate of its dtype. */
static double compute_time(const struct scn_gpu_model *g, const struct plumb_consts *k,
			   enum llm_kclass c, enum llm_dtype d, double flops, double rows)
{
	double fill = 1.0, rate;
	if (flops <= 0)
		return 0;
	if (rows > 0)
		fill = c == LLM_K_MOE ? llm_moe_tile_fill(rows, k->v[K_GEMM_TILE_M]) :
		       llm_tile_rows(rows, k->v[K_GEMM_TILE_M]) / rows;
	rate = llm_gpu_tflops(g, d) * 1e12 * k->v[llm_flops_eff_of(g, c, d)];
	if (c == LLM_K_MOE)
		rate *= k->v[K_MOE_FLOPS_REL];
	return flops * fill / rate;
}

/* fmax(a, b) as glibc computes it on x86-64 (maxsd: the second when
 * neither is larger; the other when one is NaN), inline: it runs for every
 * op of every step timed. */
static inline double max2(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

/* Do a and b have the same inputs to their time (every field
 * llm_ops_time reads, bit for bit)? */
static int same_inputs(const struct llm_op *a, const struct llm_op *b)
{
	return a->kind == b->kind && a->kclass == b->kclass && a->dtype == b->dtype &&
	       a->gemm_dtype == b->gemm_dtype && a->kernels == b->kernels &&
	       a->host_calls == b->host_calls &&
	       !memcmp(&a->bytes, &b->bytes, sizeof(a->bytes)) &&
	       !memcmp(&a->flops, &b->flops, sizeof(a->flops)) &&
	       !memcmp(&a->rows, &b->rows, sizeof(a->rows)) &&
	       !memcmp(&a->gemm_flops, &b->gemm_flops, sizeof(a->gemm_flops)) &&
	       !memcmp(&a->gemm_rows, &b->gemm_rows, sizeof(a->gemm_rows)) &&
	       !memcmp(&a->pass_bytes, &b->pass_bytes, sizeof(a->pass_bytes)) &&
	       !memcmp(&a->quant_elems, &b->quant_elems, sizeof(a->quant_elems)) &&
	       !memcmp(&a->experts, &b->experts, sizeof(a->experts));
}

int llm_ops_time(struct llm_ops *o, const struct scn_gpu_model *g,
		 const struct plumb_consts *k, int cuda_graphs, double *total,
		 struct plumb_err *err)
{
	double launch = 1e-6 * k->v[cuda_graphs ? K_KERNEL_LAUNCH_US : K_KERNEL_LAUNCH_EAGER_US];
	static const int kmin_of[LLM_K_N] = { K_KMIN_GEMM_US, K_KMIN_MOE_US, K_KMIN_ATTN_US,
					      K_KMIN_ELEM_US };
	static const int eff_of[LLM_K_N] = { K_MEM_EFF, K_MOE_MEM_EFF, K_ATTN_MEM_EFF, K_MEM_EFF };
	double sum = 0, host = 0, gpu = 0;      /* eager: host issued up to, GPU free at */
	int i, j;

	for (i = 0; i < o->n; i++) {
		struct llm_op *op = &o->op[i];
		const struct llm_op *src = op->like > 0 && op->like <= i ? &o->op[op->like - 1] : NULL;
		double busy;
		if (src && same_inputs(op, src)) {
			/* the same inputs as an earlier op: its times */
			op->mem_s = src->mem_s;
			op->compute_s = src->compute_s;
			op->kmin_s = src->kmin_s;
			op->pass_s = src->pass_s;
			op->bound = src->bound;
			goto timed;
		}
		if ((llm_gpu_tflops(g, op->dtype) <= 0 && op->flops > 0) ||
		    (llm_gpu_tflops(g, op->gemm_dtype) <= 0 && op->gemm_flops > 0))
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "GPU '%s' has no tensor throughput for %s "
					     "(no tflops in %s)",
					     g->id, llm_dtype_name(op->flops > 0 ? op->dtype
										 : op->gemm_dtype),
					     g->cat_file && g->cat_file[0] ? g->cat_file : "its catalog entry");
		op->mem_s = op->bytes / (g->memory_gbs * 1e9 * k->v[eff_of[op->kclass]]);
		/* A GEMM of few rows pays for the tile it fills; an attention
		 * op's GEMM part (MLA prefill's kv_b) runs at the GEMM rate. */
		op->compute_s = compute_time(g, k, op->kclass, op->dtype, op->flops, op->rows) +
				compute_time(g, k, LLM_K_GEMM, op->gemm_dtype, op->gemm_flops,
					     op->gemm_rows);
		op->kmin_s = op->kernels * 1e-6 * k->v[kmin_of[op->kclass]] +
			     op->experts * 1e-6 * k->v[K_MOE_EXPERT_US];
		/* The op's element-wise passes (the activation between its
		 * GEMMs) and, on FP8 tensor cores, the per-token-group
		 * quantization before each block-scaled FP8 GEMM (SGLang
		 * per_token_group_quant_fp8 / sglang_per_token_group_quant_fp8
		 * in its w8a8 block FP8 linear and fused MoE paths; vLLM the
		 * same): kernels of their own that read bf16 and write fp8
		 * with one fp32 scale per 128, not hidden under the GEMMs'
		 * math. Per token they are a few hidden-wide rows: nothing at
		 * decode, a few percent of a prefill. */
		op->pass_s = (op->pass_bytes +
			      (op->dtype == LLM_FP8 && native(g, op->dtype) ?
			       op->quant_elems * QUANT_BYTES : 0)) /
			     (g->memory_gbs * 1e9 * k->v[K_MEM_EFF]);
		/* Every kernel pays its class's fixed minimum (ramp-up, tail,
		 * synchronisation) on top of moving its bytes or doing its math:
		 * small ops are kernel-latency-bound, large ones memory- or
		 * compute-bound. */
		op->bound = op->mem_s >= op->compute_s ? LLM_BOUND_MEM : LLM_BOUND_COMPUTE;
		if (op->kmin_s >= max2(op->mem_s, op->compute_s))
			op->bound = LLM_BOUND_KMIN;
	timed:
		busy = op->kmin_s + op->pass_s + max2(op->mem_s, op->compute_s);
		if (cuda_graphs) {
			/* A graph replays its kernels back to back with a gap
			 * between each (additive). */
			op->launch_s = op->kernels * launch;
		} else if (op->kernels < 1) {
			/* folded into a kernel already issued */
			op->launch_s = 0;
			gpu += busy;
		} else {
			/* Eager: the host issues kernel after kernel ahead of the
			 * GPU; a kernel starts when the GPU is free and the host
			 * has issued it, so the GPU idles only where the host has
			 * fallen behind (launch_s keeps that idle time). */
			int calls = llm_op_host_calls(op);
			double g0 = gpu, each = busy / calls;
			for (j = 0; j < calls; j++) {
				host += launch;
				gpu = max2(gpu, host) + each;
			}
			op->launch_s = max2(0, gpu - g0 - busy);
		}
		op->seconds = op->launch_s + busy;
		sum += op->seconds;
	}
	if (total)
		*total = sum;
	return 0;
}

int llm_op_host_calls(const struct llm_op *op)
{
	if (op->kernels < 1)
		return 0;
	return op->host_calls > 0 && op->host_calls < op->kernels ? op->host_calls : op->kernels;
}
