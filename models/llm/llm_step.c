/*
 * llm_step.c - one decode or prefill step of one pipeline stage as a list of
 * ops, each with the bytes it reads, its FLOPs and the rows of its GEMMs
 * (docs/model-decode.md, "The decode step"). Weight and KV-cache sizes per GPU are
 * in llm_size.c; llm_time.c times the ops.
 *
 * Sharding follows what serving engines do for these models (SGLang, vLLM):
 *   - MLA: the low-rank input projections (q_a, kv_a with the rope key) and
 *     the DSA indexer are replicated on every tensor-parallel rank, the
 *     per-head ones (q_b, kv_b, o) are split by heads; the latent KV cache is
 *     one vector per token, so every rank holds and reads all of it.
 *   - GQA: heads and KV heads split by tp; with tp > kv_heads a KV head is
 *     replicated (at least one per GPU).
 *   - Experts: experts / ep per GPU, each split over moe_tp GPUs.
 * Kernel counts per op are the fusion of a decode step with CUDA graphs:
 * plumb's default cut below, or the cut of the engine's backends where the
 * scenario names them (struct llm_prec; docs/model-kernels.md, "Kernels per op").
 * Every kernel pays its launch gap and its class's minimum duration.
 */
#include "llm_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Assumed kernels per op (see the file comment). */
enum {
	KERN_NORM = 1,          /* fused residual add + RMSNorm */
	KERN_ATTN_MLA = 7,      /* qkv_a gemm, q/kv norms, q_b gemm, W_UK bmm, rope + cache write, W_UV bmm, o_proj */
	KERN_ATTN_GQA = 3,      /* qkv gemm, norm/rope + cache write, o_proj */
	KERN_ATTN_LIN = 4,      /* in_proj_qkvz + ba gemm, conv1d update, gated norm, out_proj */
	KERN_INDEXER = 3,       /* key write, fp8 scores over the context, top-k */
	KERN_CORE = 2,          /* split-KV attention, combine */
	/*
	 * A linear-attention (gated delta rule) layer's prefill runs the chunked
	 * form, not the recurrent update of a decode step: SGLang's GDN backend
	 * (python/sglang/srt/layers/attention/hybrid_linear_attn_backend.py,
	 * forward_extend) computes the gates (fused_gdn_gating) and calls
	 * chunk_gated_delta_rule with use_qk_l2norm_in_kernel=True
	 * (python/sglang/srt/layers/attention/fla/chunk.py, adapted from
	 * fla-org/flash-linear-attention): l2norm of q and
	 * of k, chunk_local_cumsum, chunk_scaled_dot_kkt_fwd, solve_tril,
	 * recompute_w_u_fwd, chunk_gated_delta_rule_fwd_h, chunk_fwd_o: nine
	 * Triton kernels where a decode step's recurrent update is KERN_CORE.
	 */
	KERN_LIN_CHUNK = 9,
	KERN_ROUTER = 2,        /* gate gemm, top-k */
	/*
	 * A grouped (noaux_tc) router whose top-k SGLang has no fused kernel
	 * for (llm_router_fused) runs biased_grouped_topk_impl under
	 * torch.compile: sigmoid + bias, the groups' top-2 and their sum, the
	 * groups' top-k, the group mask's zero fill and scatter, masked_fill,
	 * the experts' top-k, gather + renormalize, the padded rows' mask
	 * (_mask_topk_ids_padded_region): about nine kernels where the fused
	 * gate is one (assumed from the code; plausible 6-12, the three
	 * torch.topk calls stay kernels of their own). SGLang PR 5371 timed
	 * the same chain for DeepSeek-V3 on an H200 at 36 us a layer, its
	 * fused gate at 8 us ("Only one kernel now").
	 */
	KERN_ROUTER_TOPK_TORCH = 9,
	KERN_EXPERTS = 4,       /* align/sort, gate_up grouped gemm, activation, down + combine */
	/*
	 * FlashInfer's trtllm-gen fused MoE (SGLang --moe-runner-backend
	 * flashinfer_mxfp4 / flashinfer_trtllm): the engine passes the router
	 * logits, not top-k ids, to trtllm_fp4_block_scale_moe (SGLang
	 * python/sglang/srt/layers/quantization/mxfp4.py at 0043c43,
	 * Mxfp4MoEMethod.apply), whose routing kernel does the top-k; gate_up
	 * runs with SwiGLU in its epilogue, then down, then a finalize kernel
	 * (SGLang v0.5.6 on B200, one decode step: bmm_E2m1 gate_up, bmm down,
	 * finalizeKernelVecLoad once per MoE layer, SemiAnalysisAI/InferenceX
	 * issue 863). Before it the activations are quantized to the experts'
	 * input format (mxfp8_quantize in the same apply; cvt_fp16_to_fp4 in
	 * issue 863's step), an element-wise kernel.
	 */
	KERN_ROUTER_TRTLLM = 1,         /* gate gemm */
	KERN_EXPERTS_TRTLLM = 4,        /* routing with top-k, gate_up + SwiGLU, down, finalize */
	KERN_MOE_QUANT = 1,             /* activations to mxfp8 / nvfp4 / fp8 */
	/* trtllm-gen decode attention (SGLang trtllm_mha, trtllm_mla): one
	 * fmhaSm100 kernel per layer, no separate combine (InferenceX issue
	 * 863: 61 per step of DeepSeek-R1's 61 layers) */
	KERN_CORE_TRTLLM = 1,
	/* the other MoE runners (struct llm_prec moe_runner): a loop over the
	 * touched experts (routing metadata and the combine, then gate_up,
	 * activation and down per expert), and DeepGEMM's masked grouped
	 * GEMMs behind a DeepEP dispatch (gate_up, SwiGLU + quantize, down) */
	KERN_LOOP_ROUTE = 2,
	KERN_LOOP_PER_EXPERT = 3,
	KERN_EXPERTS_DEEPEP = 3,
	KERN_MLP = 3,           /* gate_up gemm, activation, down */
	KERN_LM_HEAD = 2        /* gemm, sampling */
};

/* ---- op lists ------------------------------------------------------------ */

void llm_ops_init(struct llm_ops *o)
{
	memset(o, 0, sizeof(*o));
}

void llm_ops_release(struct llm_ops *o)
{
	if (!o)
		return;
	free(o->op);
	memset(o, 0, sizeof(*o));
}

const char *llm_op_kind_name(enum llm_op_kind k)
{
	static const char *const names[LLM_OP_NKINDS] = {
		"attn", "kv", "router", "experts", "shared", "dense_mlp", "lm_head", "norm"
	};
	return (unsigned)k < LLM_OP_NKINDS ? names[k] : "?";
}

int llm_router_fused(const struct llm_model *m)
{
	int e = m->experts, g = m->route_groups;
	if (g <= 0 || e <= 0)
		return 1;
	if (e / g <= 32 && (e & (e - 1)) == 0)
		return 1;
	return e == 384 && g == 1;
}

double llm_expected_experts(double E, double k, double B)
{
	if (E <= 0 || k <= 0 || B <= 0)
		return 0;
	if (k >= E)
		return E;
	return E * (1.0 - pow(1.0 - k / E, B));
}

double llm_spec_tokens_per_step_pos(int d, const double *a, int n)
{
	double per = 1, p = 1;
	int k;
	if (n < 1)
		return 1.0;
	for (k = 1; k <= d; k++) {
		p *= a[(k <= n ? k : n) - 1];
		per += p;
	}
	return per;
}

double llm_spec_tokens_per_step(int d, double a)
{
	if (d <= 0)
		return 1.0;
	if (a >= 1.0)
		return d + 1.0;
	if (a <= 0)
		return 1.0;
	return (1.0 - pow(a, d + 1)) / (1.0 - a);
}

/* Distinct layers llm_step_ops remembers to copy (kinds x MoE or not x
 * first or not; a model has a few) */
#define LAYER_SEEN 16

struct emit {
	const struct llm_model *m;
	const struct llm_prec *p;
	const struct llm_shard *s;
	struct llm_ops *o;
	int layer, pass;
	int after_ar;           /* the layer's input follows the previous layer's all-reduce */
	int prefill;            /* a prefill chunk: MLA runs its compute form */
	int oom;
	int rc;                 /* first error (0 none), its message in err */
	struct plumb_err *err;
	/* the busiest rank's load for the last token counts asked (the main
	 * layers share one, the MTP passes another) */
	long load_T[2];
	struct llm_moe_load load[2];
	int nload;
	double moe_T;           /* tokens per rank the routing counts (0: T) */
};

const char *llm_kclass_name(enum llm_kclass c)
{
	static const char *const names[LLM_K_N] = { "gemm", "moe", "attention", "elementwise" };
	return (unsigned)c < LLM_K_N ? names[c] : "?";
}

static enum llm_kclass kclass_of(enum llm_op_kind k)
{
	switch (k) {
	case LLM_OP_EXPERTS: return LLM_K_MOE;
	case LLM_OP_KV: return LLM_K_ATTN;
	case LLM_OP_NORM: return LLM_K_ELEM;
	default: return LLM_K_GEMM;
	}
}

static void add(struct emit *e, enum llm_op_kind kind, const char *what,
		enum llm_dtype dt, int kernels, double bytes, double flops, double rows)
{
	struct llm_op *op;
	if (e->oom)
		return;
	if (e->o->n == e->o->cap) {
		int cap = e->o->cap ? 2 * e->o->cap : 64;
		struct llm_op *np = realloc(e->o->op, (size_t)cap * sizeof(*np));
		if (!np) {
			e->oom = 1;
			return;
		}
		e->o->op = np;
		e->o->cap = cap;
	}
	op = &e->o->op[e->o->n++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->kclass = kclass_of(kind);
	op->layer = e->layer;
	op->pass = e->pass;
	op->what = what;
	op->dtype = dt;
	op->kernels = kernels;
	op->bytes = bytes;
	op->flops = flops;
	op->rows = rows;
	op->gemm_dtype = dt;
}

/* Room for n ops in all (an allocation failure sets oom). */
static void reserve(struct emit *e, int n)
{
	struct llm_op *np;
	if (e->oom || n <= e->o->cap)
		return;
	if (!(np = realloc(e->o->op, (size_t)n * sizeof(*np)))) {
		e->oom = 1;
		return;
	}
	e->o->op = np;
	e->o->cap = n;
}

/* The ops a..b-1 of an earlier layer again, as e->layer's: the same
 * inputs, each marked as like its original (llm_ops_time). */
static void copy_layer(struct emit *e, int a, int b)
{
	int j;
	if (e->o->n + (b - a) > e->o->cap)
		reserve(e, e->o->n + (b - a) > 2 * e->o->cap ? e->o->n + (b - a) : 2 * e->o->cap);
	if (e->oom)
		return;
	for (j = a; j < b; j++) {
		struct llm_op *op = &e->o->op[e->o->n++];
		*op = e->o->op[j];
		op->layer = e->layer;
		op->like = j + 1;
	}
}

/* The op add() made last, or NULL after an allocation failure. */
static struct llm_op *last_op(struct emit *e)
{
	return e->oom || !e->o->n ? NULL : &e->o->op[e->o->n - 1];
}

/* The last op's element-wise passes and the activation elements its
 * block-scaled FP8 GEMMs quantize (struct llm_op; timed in llm_time.c). */
static void set_passes(struct emit *e, double pass_bytes, double quant_elems)
{
	struct llm_op *op = last_op(e);
	if (op) {
		op->pass_bytes = pass_bytes;
		op->quant_elems = quant_elems;
	}
}

/* An MLP of width `inter` (per GPU) over T tokens: the activation kernel
 * reads gate and up (bf16) and writes their product; its two GEMMs
 * quantize their inputs (hidden and inter wide) on FP8. */
static void mlp_passes(struct emit *e, double T, double inter)
{
	set_passes(e, T * inter * (2.0 * 2.0 + 2.0), T * (e->m->hidden + inter));
}

/*
 * RMSNorm over T tokens: reads its weight, the activation and the residual.
 * After a TP all-reduce that folds residual add + RMSNorm into its own
 * kernel (fused), the norm is no kernel of its own: its bytes stay, its
 * launch and minimum go.
 */
static void add_norm(struct emit *e, const char *what, double T, int fused)
{
	double h = e->m->hidden;
	add(e, LLM_OP_NORM, what, LLM_BF16, fused ? 0 : KERN_NORM, h * 2.0 + T * h * 2.0 * 2.0,
	    4.0 * h * T, 0);
}

/*
 * Does the TP all-reduce before a norm over T tokens take the norm into its
 * kernel? SGLang fuses up to 2048 tokens (FUSE_ALLREDUCE_MAX_BATCH_SIZE,
 * python/sglang/srt/layers/communicator.py); a longer prefill all-reduces
 * and normalises apart.
 */
static int norm_fused(const struct emit *e, double T)
{
	return e->p->ar_norm_fused && e->s->tp > 1 && T <= 2048;
}

/* Is the routed experts' activation a kernel of its own (not in the
 * gate_up GEMM's epilogue, as trtllm-gen's)? */
static int moe_act_pass(const struct emit *e)
{
	return !(e->p->moe_runner == LLM_MOE_FUSED && e->p->moe_trtllm_gen);
}

/*
 * Activation bytes the routed experts' GEMMs move for `pairs` token-expert
 * pairs (weights aside): each pair's row of the hidden state gathered into
 * its expert's group at the activations' width (one byte for fp8 math, half
 * for fp4, bf16 otherwise: weight-only formats multiply bf16 activations),
 * its gate_up output written and read back by the down projection (2 x
 * moe_intermediate / moe_tp bf16 values), and the down projection's output
 * row written in bf16 for the combine. At decode (a few pairs) this is
 * nothing beside the experts' weights; in a prefill chunk every pair moves
 * a hidden-wide row in and out, so under TP8 (experts 256 columns wide) the
 * grouped GEMMs move more activation bytes than weights (docs/model-decode.md,
 * "Sharding").
 */
static double moe_act_bytes(const struct emit *e, double pairs, int mtp)
{
	enum llm_dtype d = e->p->experts;
	double a = d == LLM_FP8 || d == LLM_FP8T ? 1.0 :
		   d == LLM_NVFP4 || d == LLM_MXFP4 ? 0.5 : 2.0;
	double il = (double)e->m->moe_intermediate / (mtp > 0 ? mtp : 1);
	if (moe_act_pass(e))
		/* gate_up writes its 2 il bf16 values; the activation kernel
		 * (moe_pass_bytes) makes the product the down GEMM reads */
		return pairs * (e->m->hidden * a + 2.0 * il * 2.0 + il * a + e->m->hidden * 2.0);
	return pairs * (e->m->hidden * a + 2.0 * il * 2.0 * 2.0 + e->m->hidden * 2.0);
}

/*
 * The routed experts' activation pass where it is a kernel of its own (the
 * fused runner's silu_and_mul between the grouped GEMMs, DeepEP's SwiGLU +
 * quantize, a loop's activation): per pair it reads gate_up's 2 il bf16
 * values and writes il (bf16) for the down GEMM, a memory pass apart from
 * the GEMMs' math. trtllm-gen does SwiGLU in its gate_up epilogue.
 */
static double moe_pass_bytes(const struct emit *e, double pairs, int mtp)
{
	double il = (double)e->m->moe_intermediate / (mtp > 0 ? mtp : 1);
	if (!moe_act_pass(e))
		return 0;
	/* DeepEP's path fuses the quantization into the SwiGLU kernel
	 * (SGLang silu_and_mul_masked_post_quant_fwd): it writes fp8 and
	 * a scale per 128 where the experts are fp8 */
	if (e->p->moe_runner == LLM_MOE_DEEPEP && e->p->experts == LLM_FP8)
		return pairs * il * (2.0 * 2.0 + 1.0 + 4.0 / 128.0);
	return pairs * il * (2.0 * 2.0 + 2.0);
}

/*
 * Activation elements the routed experts quantize to fp8 before their
 * GEMMs (block-scaled FP8 experts; llm_time.c counts them only there):
 * the fused runner quantizes the Tm tokens' hidden state before the
 * gather and each pair's intermediate before the down GEMM; DeepEP's
 * path quantizes its T tokens before the normal (prefill) dispatch
 * (sglang_per_token_group_quant_fp8, models/predict deepep_normal), its
 * low-latency dispatch casts to fp8 inside the kernel, and the
 * intermediate's quantization is in the SwiGLU kernel (moe_pass_bytes).
 */
static double moe_quant_elems(const struct emit *e, double T, double Tm, double pairs, int mtp)
{
	double il = (double)e->m->moe_intermediate / (mtp > 0 ? mtp : 1);
	if (!moe_act_pass(e))
		return 0;
	if (e->p->moe_runner == LLM_MOE_DEEPEP)
		return e->prefill ? T * e->m->hidden : 0;
	return Tm * e->m->hidden + pairs * il;
}

/* The busiest expert-parallel rank's experts and pairs for Tm tokens
 * reaching the experts (llm_moe_busiest), remembered per op list. */
static struct llm_moe_load moe_load(struct emit *e, double Tm)
{
	struct llm_moe_load ld = { 0, 0 };
	long t = lround(Tm);
	int i;
	if (t < 1)
		t = 1;
	for (i = 0; i < e->nload; i++)
		if (e->load_T[i] == t)
			return e->load[i];
	if (e->rc == 0) {
		int rc = llm_moe_busiest(e->m->experts, e->m->top_k, t, e->s->ep, e->p->moe_skew,
					 &ld, e->err);
		if (rc < 0) {
			e->rc = rc;
			return ld;
		}
	}
	i = e->nload < 2 ? e->nload++ : 1;
	e->load_T[i] = t;
	e->load[i] = ld;
	return ld;
}

/*
 * One decoder layer for `batch` sequences of T tokens in all (q = T / batch
 * each), `context` tokens cached each. Each new token attends causally to
 * the cache and to the new tokens up to itself (llm_causal_pairs): decode
 * (q = 1) attends to context + 1 tokens, its own key included; a prefill
 * chunk adds the triangle of its own tokens to the rectangle over the cache.
 * It depends on e->layer only through the layer's kind, its attention
 * parameters and e->after_ar, with moe: llm_step_ops copies a layer like an
 * earlier one on these.
 */
static void add_layer(struct emit *e, int moe, double batch, double T, double context)
{
	const struct llm_model *m = e->m;
	const struct llm_prec *p = e->p;
	const struct llm_shard *s = e->s;
	double h = m->hidden, hl = (double)m->heads / s->tp, q = T / batch;
	double ap = llm_attn_params(m, p, s->tp, e->layer), per, cap = 0, kvtok, pairs, group;
	enum llm_layer_kind kind = llm_layer_kind(m, e->layer);
	int dsa = m->index_topk && !p->dsa_dense && kind != LLM_LAYER_LINEAR;
	/* MLA's two forms (vLLM v1/attention/backends/mla/common.py docstring,
	 * PR 13789): decode runs absorbed (the latent cache as one 576-wide key
	 * and 512-wide value shared by every head); prefill runs the compute
	 * form, kv_b decompressing the cached latent into per-head keys
	 * (qk_nope + qk_rope) and values (v_head) for plain attention. DSA's
	 * sparse prefill stays absorbed (FlashMLA's sparse prefill kernel takes
	 * the 576/512 latent, deepseek-ai/FlashMLA README). */
	int mla_mha = m->attn == LLM_ATTN_MLA && e->prefill && !dsa;
	enum llm_dtype adt = p->kv == LLM_FP8 ? LLM_FP8 : LLM_BF16;
	struct llm_op *op;

	add_norm(e, "input norm", T, e->after_ar && norm_fused(e, T));
	add(e, LLM_OP_ATTN, "attention projections", p->linear,
	    kind == LLM_LAYER_LINEAR ? KERN_ATTN_LIN :
	    m->attn == LLM_ATTN_MLA ? KERN_ATTN_MLA : KERN_ATTN_GQA,
	    ap * llm_wb(p, p->linear), 2.0 * ap * T, T);
	/* the inputs its GEMMs quantize on FP8: the hidden state, the
	 * low-rank latents (MLA), the heads' output for o_proj */
	set_passes(e, 0, T * (h + (kind == LLM_LAYER_LINEAR ?
				   (double)m->lin_v_heads / s->tp * m->lin_v_dim :
				   m->attn == LLM_ATTN_MLA ?
				   (double)m->q_lora + m->kv_lora + hl * m->v_head :
				   hl * m->head_dim)));
	if (kind == LLM_LAYER_SLIDING)
		cap = m->sliding_window;
	/* a chunked layer attends within the current chunk: the cached tokens
	 * since the last chunk boundary, and never more than a chunk */
	if (kind == LLM_LAYER_CHUNKED && m->attn_chunk > 0) {
		context = fmod(context, m->attn_chunk);
		cap = m->attn_chunk;
	}
	/* keys read per sequence: the cache and the new tokens, a window's
	 * worth (and the chunk) on a sliding layer */
	kvtok = context + q;
	if (cap > 0 && kvtok > cap + q - 1)
		kvtok = cap + q - 1;
	if (kind == LLM_LAYER_LINEAR) {
		/* the delta rule reads and writes each sequence's state once per
		 * step; per token about 6 x heads x k_dim x v_dim FLOPs (decay,
		 * k^T v update, q S readout) */
		add(e, LLM_OP_KV, "linear attention state", LLM_BF16,
		    e->prefill ? KERN_LIN_CHUNK : KERN_CORE,
		    2.0 * batch * llm_lin_state_bytes(m, s->tp),
		    6.0 * m->lin_v_heads / s->tp * m->lin_k_dim * m->lin_v_dim * T, 0);
	} else {
		if (dsa) {
			/* the indexer scores every query against its whole causal
			 * prefix with its fp8 keys; the core then attends at most
			 * index_topk keys per query */
			add(e, LLM_OP_KV, "indexer", LLM_FP8, KERN_INDEXER,
			    batch * (context + q) * m->index_head_dim,
			    2.0 * m->index_heads * m->index_head_dim * batch * llm_causal_pairs(context, q, 0),
			    q * m->index_heads);
			cap = m->index_topk;
			/* the core reads only the keys picked: at most top-k per
			 * query (a decode token's top-k of its cache) */
			if (kvtok > q * cap)
				kvtok = q * cap;
		}
		pairs = batch * llm_causal_pairs(context, q, cap);
		if (mla_mha) {          /* scores over qk_nope + qk_rope, values over v_head */
			per = 2.0 * hl * (m->qk_nope + m->qk_rope + m->v_head);
			group = 1;
		} else if (m->attn == LLM_ATTN_MLA) {   /* absorbed: scores over 576, values over 512 */
			per = 2.0 * hl * (2.0 * m->kv_lora + m->qk_rope);
			group = hl;
		} else {
			per = 2.0 * hl * m->head_dim * 2.0;
			group = m->kv_heads >= s->tp ? (double)m->heads / m->kv_heads : hl;
		}
		/* With decode context parallel each rank holds 1/dcp of every
		 * sequence's cache and runs all dcp x heads/tp query heads over it:
		 * the same math, 1/dcp of the reads. */
		add(e, LLM_OP_KV, "attention core", adt,
		    p->attn_trtllm_gen ? KERN_CORE_TRTLLM : KERN_CORE,
		    batch * kvtok * llm_kv_layer_bytes(m, p->kv, s->tp) / llm_dcp_of(s),
		    per * pairs, q * group);
		if (mla_mha && (op = last_op(e)) != NULL) {
			/* kv_b over the cached latent of every sequence (the new tokens'
			 * own pass through it is in the projections) */
			op->gemm_flops = 2.0 * batch * context * m->kv_lora * hl * (m->qk_nope + m->v_head);
			op->gemm_dtype = p->linear;
			op->gemm_rows = batch * context;
		}
	}
	add_norm(e, "post-attention norm", T, norm_fused(e, T));
	if (moe) {
		int mtp = llm_moe_tp_of(s);
		/*
		 * Expert groups: the ep x moe_tp GPUs of one group serve
		 * dp = ep x moe_tp / tp attention groups, so T_moe = T x dp
		 * tokens reach the experts. The layer waits for the busiest of
		 * the ep ranks: it touches the expected maximum over ranks of
		 * the distinct experts a rank touches (n, each read as 1/moe_tp
		 * of 3 x hidden x moe_inter weights) and computes the maximum of
		 * the token-expert pairs (llm_moe_busiest); with ep = 1 these
		 * are E (1 - (1 - k/E)^T_moe) and T_moe x k.
		 */
		double Tm = (e->moe_T > 0 ? e->moe_T : T) * ((double)s->ep * mtp / s->tp);
		double eparams = llm_expert_params(m, mtp), rp = llm_router_params(m);
		struct llm_moe_load ld = moe_load(e, Tm);
		double n = ld.experts, charged = n;
		int fused = p->moe_runner == LLM_MOE_FUSED, trt = fused && p->moe_trtllm_gen;
		int kern = trt ? KERN_EXPERTS_TRTLLM : KERN_EXPERTS;
		int unfused = p->router_unfused && !trt;
		add(e, LLM_OP_ROUTER, "router", p->embed,
		    trt || unfused ? KERN_ROUTER_TRTLLM : KERN_ROUTER,
		    rp * llm_wb(p, p->embed), 2.0 * rp * T, T);
		if (unfused) {
			/* the PyTorch top-k: element-wise kernels over T x E
			 * fp32 scores (4 bytes), passing over them about four
			 * times (assumed: three reads and one write, from
			 * biased_grouped_topk_impl's topk, mask and gather) */
			add(e, LLM_OP_ROUTER, "router top-k (PyTorch)", LLM_BF16,
			    KERN_ROUTER_TOPK_TORCH, T * m->experts * 4.0 * 4.0, 0, 0);
			if (!e->oom) {
				e->o->op[e->o->n - 1].kclass = LLM_K_ELEM;
				/* eager (a prefill), one compiled call issues
				 * them all: the host pays one launch, not nine
				 * (assumed; plausible 1-3) */
				e->o->op[e->o->n - 1].host_calls = 1;
			}
		}
		if (trt && p->experts != LLM_BF16 && p->experts != LLM_INT4) {
			/* reads bf16 activations, writes one byte each (scales aside) */
			add(e, LLM_OP_EXPERTS, "MoE input quantize", LLM_BF16, KERN_MOE_QUANT,
			    T * h * 3.0, 0, 0);
			if (!e->oom)
				e->o->op[e->o->n - 1].kclass = LLM_K_ELEM;
		}
		/* the runner's kernels and what it pays per expert */
		if (p->moe_runner == LLM_MOE_LOOP) {
			kern = KERN_LOOP_ROUTE + (int)lround(KERN_LOOP_PER_EXPERT * n);
			charged = 0;    /* each expert's own kernels carry its cost */
		} else if (p->moe_runner == LLM_MOE_DEEPEP) {
			kern = KERN_EXPERTS_DEEPEP;
			charged = (double)m->experts / s->ep;   /* the grid spans them all */
		}
		add(e, LLM_OP_EXPERTS, "routed experts", p->experts, kern,
		    n * eparams * llm_wb(p, p->experts) + moe_act_bytes(e, ld.pairs, mtp),
		    2.0 * eparams * ld.pairs,
		    n > 0 ? ld.pairs / n : 0);  /* rows per touched expert */
		/* the activation pass; on FP8 the tokens' hidden state quantized
		 * once before the gather (trtllm-gen: its own op above) and each
		 * pair's intermediate before the down GEMM */
		set_passes(e, moe_pass_bytes(e, ld.pairs, mtp), moe_quant_elems(e, T, Tm, ld.pairs, mtp));
		if (!e->oom) {
			struct llm_op *xop = &e->o->op[e->o->n - 1];
			xop->experts = charged;
			if (p->moe_runner == LLM_MOE_LOOP)
				xop->kclass = LLM_K_GEMM;       /* plain GEMMs, one expert each */
		}
		/* The combine (finalize) kernel reads every pair's down output
		 * and writes each token's weighted sum; its launch is one of the
		 * runner's kernels above, its bytes come after the GEMMs'. */
		add(e, LLM_OP_EXPERTS, "MoE combine", LLM_BF16, 0,
		    ld.pairs * h * 2.0 + Tm * h * 2.0, 0, 0);
		if (!e->oom)
			e->o->op[e->o->n - 1].kclass = LLM_K_ELEM;
		if (m->shared_experts) {
			double sp = llm_shared_params(m, s->tp);
			add(e, LLM_OP_SHARED, "shared experts", p->shared, KERN_MLP,
			    sp * llm_wb(p, p->shared), 2.0 * sp * T, T);
			mlp_passes(e, T, sp / (3.0 * h));
		}
	} else {
		double dp = 3.0 * h * m->intermediate / s->tp;
		add(e, LLM_OP_DENSE_MLP, "dense MLP", p->dense, KERN_MLP,
		    dp * llm_wb(p, p->dense), 2.0 * dp * T, T);
		mlp_passes(e, T, (double)m->intermediate / s->tp);
	}
}

static void add_head(struct emit *e, double T)
{
	double vp = llm_vocab_shard(e->m, e->s->tp) * e->m->hidden;
	e->layer = -1;
	add_norm(e, "final norm", T, 0);
	add(e, LLM_OP_LM_HEAD, "lm_head", e->p->embed, KERN_LM_HEAD,
	    vp * llm_wb(e->p, e->p->embed), 2.0 * vp * T, T);
}

int llm_step_ops(const struct llm_model *m, const struct llm_prec *p,
		 const struct llm_shard *s, const struct llm_step *step,
		 struct llm_ops *o, struct plumb_err *err)
{
	struct emit e;
	double B, T, L;
	int rc, l, j, q, nseen = 0;
	double ap_of[LLM_LAYER_CHUNKED + 1];
	unsigned ap_known = 0;
	struct {
		int moe, after_ar, a, b;            /* ops a..b-1 */
		enum llm_layer_kind kind;
		double ap;
	} seen[LAYER_SEEN];

	if ((rc = llm_shard_check(m, s, err)) < 0)
		return rc;
	if (step->batch < 1 || step->context < 0 || step->q_len < 0 || step->draft < 0)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "decode step needs batch >= 1, context, q_len, draft >= 0 "
				     "(got %d, %d, %d, %d)", step->batch, step->context,
				     step->q_len, step->draft);
	if (step->draft && !s->mtp)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "%d draft tokens need the MTP layer on this stage", step->draft);
	q = step->q_len ? step->q_len : 1 + step->draft;
	B = step->batch;
	T = B * q;
	L = step->context;
	o->n = 0;
	memset(&e, 0, sizeof(e));
	e.m = m;
	e.p = p;
	e.s = s;
	e.o = o;
	e.prefill = step->q_len > 1 && !step->draft;
	e.moe_T = step->moe_tokens > 0 ? (double)step->moe_tokens : 0;
	e.err = err;
	for (l = s->first; l < s->last; l++) {
		int moe = llm_layer_is_moe(m, l), i;
		enum llm_layer_kind kind = llm_layer_kind(m, l);
		double ap;
		/* llm_attn_params depends on the layer through its kind alone
		 * (linear attention or not): once per kind */
		if ((unsigned)kind < LLM_LAYER_CHUNKED + 1) {
			if (!(ap_known >> kind & 1u)) {
				ap_of[kind] = llm_attn_params(m, p, s->tp, l);
				ap_known |= 1u << kind;
			}
			ap = ap_of[kind];
		} else {
			ap = llm_attn_params(m, p, s->tp, l);
		}
		e.layer = l;
		e.after_ar = l > s->first;
		/* a layer like one before has its ops: copied (add_layer
		 * depends on the layer through these four only) */
		for (i = 0; i < nseen; i++)
			if (seen[i].moe == moe && seen[i].kind == kind &&
			    seen[i].after_ar == e.after_ar && seen[i].ap == ap)
				break;
		if (i < nseen && !e.oom && !e.rc) {
			copy_layer(&e, seen[i].a, seen[i].b);
			continue;
		}
		i = o->n;
		add_layer(&e, moe, B, T, L);
		if (l == s->first)
			reserve(&e, 2 * (o->n - i) * (s->last - s->first) + 64);
		if (nseen < LAYER_SEEN) {
			seen[nseen].moe = moe;
			seen[nseen].kind = kind;
			seen[nseen].after_ar = e.after_ar;
			seen[nseen].ap = ap;
			seen[nseen].a = i;
			seen[nseen++].b = o->n;
		}
	}
	e.after_ar = 0;
	e.prefill = 0;
	e.moe_T = 0;
	if (s->last == m->layers)
		add_head(&e, step->head_tokens > 0 && step->head_tokens < T ? (double)step->head_tokens : T);
	for (j = 1; s->mtp && j <= step->draft; j++) {
		/* draft pass j: one token per sequence through the MTP layer */
		double ep = 2.0 * m->hidden * m->hidden / s->tp;
		e.pass = j;
		e.layer = m->layers;
		add_norm(&e, "MTP input norms", 2.0 * B, 0);
		add(&e, LLM_OP_DENSE_MLP, "MTP input projection", p->linear, 1,
		    ep * llm_wb(p, p->linear), 2.0 * ep * B, B);
		add_layer(&e, m->experts != 0, B, B, L + j);
		add_head(&e, B);
	}
	if (e.rc < 0)
		return e.rc;
	if (e.oom)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	return 0;
}

double llm_causal_pairs(double c, double q, double cap)
{
	double n1;
	if (q <= 0)
		return 0;
	if (c < 0)
		c = 0;
	if (cap <= 0 || c + q <= cap)
		return q * c + q * (q + 1) / 2;
	if (c + 1 >= cap)
		return q * cap;
	/* queries c+1 .. cap see their whole prefix, the rest cap keys */
	n1 = cap - c;
	return n1 * c + n1 * (n1 + 1) / 2 + (q - n1) * cap;
}
