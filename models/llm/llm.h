/*
 * llm.h - the LLM side of a decode step: the model catalog
 * (scenarios/catalog/models.yaml, compiled in) and the list of operations
 * one GPU runs in ONE decode step of one pipeline stage, each with the bytes
 * it reads from GPU memory, its FLOPs and a roofline time (docs/model-decode.md,
 * "The decode step").
 *
 * What is NOT here: collectives (all-reduce, all-to-all, stage sends). The
 * caller turns an op list into a DAG with those (models/step).
 *
 * Conventions: sizes in bytes, times in seconds, FLOPs as counts, all double.
 * "Tokens" T of a step = batch x q_len (q_len = 1, or d + 1 when verifying d
 * draft tokens, or a prefill chunk). Expected values (experts touched) are
 * not rounded.
 *
 * Lifecycle: llm_catalog_parse() returns a heap catalog freed with free();
 * llm_catalog_builtin() is parsed once and never freed. struct llm_ops is
 * embedded: llm_ops_init() / llm_ops_release().
 */
#ifndef PLUMB_LLM_H
#define PLUMB_LLM_H

#include "consts.h"
#include "err.h"
#include "scn.h"

#define LLM_MAX_MODELS 64
#define LLM_MAX_LAYERS 256      /* layers with a per-layer kind (hybrid models) */

enum llm_attn { LLM_ATTN_GQA, LLM_ATTN_MLA };

/*
 * Which tensors a model's publisher counts as "activated" per token
 * (llm_params): every one a token uses (Mistral, Qwen, Meta); all but the
 * input embedding, a row lookup (OpenAI's gpt-oss table says so; DeepSeek's
 * and Moonshot's figures are this count); all but the input embedding and
 * the lm_head (Z.ai's GLM figures). docs/model-decode.md gives the evidence.
 */
enum llm_count { LLM_COUNT_ALL, LLM_COUNT_NO_EMBED, LLM_COUNT_NO_EMBED_HEAD };

/*
 * Storage formats; llm_dtype_bits() gives bits per weight with scales.
 *   fp8      E4M3, one fp32 scale per 128 x 128 block (DeepSeek-V3 format)
 *   fp8t     E4M3, one scale per tensor or per output channel
 *   nvfp4    E2M1, one E4M3 scale per 16
 *   mxfp4    E2M1, one E8M0 scale per 32 (OCP microscaling)
 *   int4     weight-only integers, a 16-bit scale (and with zero points a
 *            4-bit zero) per group of llm_prec.group; the math runs in bf16
 */
enum llm_dtype { LLM_BF16, LLM_FP8, LLM_NVFP4, LLM_FP8T, LLM_MXFP4, LLM_INT4, LLM_NDTYPES };

/* What one decoder layer's attention is (hybrid models mix them). */
enum llm_layer_kind {
	LLM_LAYER_FULL,         /* attention over the whole cache */
	LLM_LAYER_SLIDING,      /* attention over the last sliding_window tokens */
	LLM_LAYER_LINEAR,       /* linear attention: a fixed-size state per sequence */
	LLM_LAYER_CHUNKED       /* attention within the current chunk of attn_chunk
				   tokens (Llama 4's chunked local attention) */
};

/*
 * The formats a checkpoint stores its weights in (config.json's
 * quantization_config, or hf_quant_config.json next to it); set = 0 for
 * catalog entries, which have none. Embeddings, router and lm_head stay
 * bf16 in every format plumb reads.
 */
struct llm_ckpt {
	int set;
	char method[24];        /* quant_method: none, fp8, modelopt, mxfp4,
				   compressed-tensors, awq, gptq */
	enum llm_dtype attn;    /* attention projections, indexer, linear attention */
	enum llm_dtype dense;   /* dense MLP layers */
	enum llm_dtype shared;  /* shared experts */
	enum llm_dtype experts; /* routed experts */
	int group, zero;        /* int4: group size, zero points stored */
	char kv[16];            /* KV cache format the checkpoint was calibrated for, or "" */
	char kept[160];         /* in words: what its ignore list keeps in bf16 */
};

/* One architecture of the catalog. Counts are per layer unless noted. */
struct llm_model {
	char id[48];
	char name[96];
	int layers;             /* decoder layers, MTP not included */
	int dense_layers;       /* the first that many have a dense MLP */
	int hidden;
	int intermediate;       /* dense MLP size */
	int vocab;
	int tie_embeddings;     /* lm_head shares the embedding table */
	enum llm_attn attn;
	int heads;
	int kv_heads, head_dim;                         /* gqa */
	int q_lora, kv_lora, qk_rope, qk_nope, v_head;  /* mla; q_lora 0 = direct */
	int index_topk, index_heads, index_head_dim;    /* DSA; index_topk 0 = none */
	int experts, top_k, shared_experts, moe_intermediate;  /* experts 0: dense */
	int mtp_layers;
	/* Read from Hugging Face configs (io/hfconfig.c); 0 in the catalog. */
	int attn_bias;          /* q, k, v projections have biases */
	int attn_obias;         /* the output projection has one too */
	int attn_gate;          /* q_proj also makes a sigmoid output gate (Qwen3-Next) */
	int attn_sinks;         /* one learned sink logit per head (gpt-oss) */
	int qk_norm;            /* RMSNorm on q and k per head */
	int sliding_window;     /* tokens a LLM_LAYER_SLIDING layer attends */
	int lin_k_heads, lin_v_heads, lin_k_dim, lin_v_dim, lin_conv;  /* linear attention
				   (Gated DeltaNet): heads and head sizes, conv kernel */
	int attn_chunk;         /* tokens of a LLM_LAYER_CHUNKED layer's chunk */
	int moe_step;           /* past dense_layers, every moe_step-th layer is MoE
				   (layers moe_step-1, 2 moe_step-1, ...; 0 or 1:
				   every one), the others dense (Llama 4's
				   interleave_moe_layer_step) */
	int shared_intermediate;        /* shared expert size (0: moe intermediate) */
	int shared_gate;        /* a sigmoid gate h -> 1 on the shared expert */
	int router_bias, expert_bias;   /* router and experts carry biases (gpt-oss) */
	int route_groups;       /* a DeepSeek-style router (sigmoid scores plus a
				   score-correction bias, topk_method noaux_tc)
				   over this many expert groups; 0: softmax top-k */
	int count;              /* enum llm_count: the publisher's active count
				   (Hugging Face configs; LLM_COUNT_ALL in the catalog) */
	int hybrid;             /* kind[] holds each layer's kind; else all full */
	unsigned char kind[LLM_MAX_LAYERS];     /* enum llm_layer_kind */
	char arch[64];          /* architectures[0] of a config, "" for catalog entries */
	struct llm_ckpt ckpt;
	const char *source;     /* where it came from, whole (plumb_keep_path); NULL none */
	int line, col;          /* where the entry starts in the catalog file */
};

struct llm_catalog {
	int n;
	struct llm_model models[LLM_MAX_MODELS];
};

/*
 * Parse a model catalog from YAML text named `file`. On success *out is a new
 * catalog (free with free()); on failure NULL and err holds file:line:col.
 */
int llm_catalog_parse(const char *file, const char *text, struct llm_catalog **out,
		      struct plumb_err *err);

/* The built-in catalog, parsed on first use; NULL + err only on a build bug. */
const struct llm_catalog *llm_catalog_builtin(struct plumb_err *err);

/* Index of id in c, or -1. */
int llm_catalog_find(const struct llm_catalog *c, const char *id);

/*
 * Model by id: *out points into c. Unknown id: PLUMB_EINPUT, "unknown model
 * 'glm5' (did you mean 'glm-5'?)" or the list of known ids.
 */
int llm_model_lookup(const struct llm_catalog *c, const char *id,
		     const struct llm_model **out, struct plumb_err *err);

/*
 * A model named by the user: a catalog id, a bundled Hugging Face config by
 * its model name (tests/data/hf/ORG--NAME, installed as models/hf: NAME,
 * case aside, e.g. gpt-oss-120b), or a file. A name with a '/' or
 * ending in .json, .yaml or .yml is a file: a Hugging Face config.json (or
 * its directory, config.json plus hf_quant_config.json when present; see
 * io/hfconfig.h), or a model catalog YAML with one model (FILE.yaml:ID picks
 * one of several). A file is read once per process and kept (as the built-in
 * catalog is): *out stays valid until exit. Safe to call from several
 * threads. Errors: EINPUT (unknown id, bad file, an architecture plumb does
 * not model), EIO (cannot read).
 */
int llm_model_resolve(const char *name, const struct llm_model **out,
		      struct plumb_err *err);

/* Does name denote a file for llm_model_resolve? */
int llm_model_is_file(const char *name);

/* name as llm_model_resolve should see it from a file in directory dir: a
 * relative file name is taken relative to dir (as a grid's scenario files
 * are); an id, an absolute name or an empty dir leave it as it is. Whole,
 * malloc'd (caller frees); NULL when out of memory. */
char *llm_model_path(const char *dir, const char *name);

/*
 * --weights when none is given: "checkpoint" for a model whose config names
 * its formats, else "nvfp4". Never fails (an unknown model fails later).
 */
const char *llm_default_weights(const char *model);

/*
 * Parameter counts (bf16 storage units, MTP layers not included, as every
 * publisher leaves them out): *total of the whole model, *active those one
 * token uses (top_k of the routed experts, the shared experts, the router,
 * every dense layer) counted as m->count says: with or without the input
 * embedding and the lm_head. Either may be NULL.
 */
void llm_params(const struct llm_model *m, double *total, double *active);

/* In words, what m->count leaves out of the active count ("nothing", ...). */
const char *llm_count_name(int count);

/* Is layer l a MoE layer (dense_layers and moe_step)? MTP layers
 * (l >= layers) are MoE when the model has experts. */
int llm_layer_is_moe(const struct llm_model *m, int l);

/* Layer l's kind (full attention for l beyond the table, i.e. MTP layers). */
enum llm_layer_kind llm_layer_kind(const struct llm_model *m, int l);

const char *llm_dtype_name(enum llm_dtype d);
/* "bf16", "fp8", "fp8t", "nvfp4" (also "fp4"), "mxfp4", "int4"; 0 ok, -1 unknown. */
int llm_dtype_parse(const char *name, enum llm_dtype *out);
/* Storage bits per weight, scales included: 16, 8.002, 8, 4.5, 4.25;
 * int4 at group 128 with a bf16 scale, no zero points: 4.125. */
double llm_dtype_bits(enum llm_dtype d);

/*
 * How the engine runs the routed experts of a layer (the scenario's
 * serving: moe_runner; docs/model-ops.md, "Ops of one layer"):
 *   fused   one grouped GEMM over every touched local expert (SGLang's and
 *           vLLM's fused_moe, FlashInfer/cutlass MoE): 4 kernels, plus
 *           moe_expert_us per touched local expert (the default);
 *   loop    a loop over the touched local experts, each its own gate_up
 *           GEMM, activation and down GEMM (Hugging Face eager, naive
 *           MoE): 2 + 3 per touched expert dense GEMM kernels;
 *   deepep  DeepEP-style dispatch into DeepGEMM's masked grouped GEMMs: 3
 *           kernels (gate_up, activation + quantize, down) whose grid spans
 *           every local expert, moe_expert_us per local expert.
 */
enum llm_moe_runner { LLM_MOE_FUSED, LLM_MOE_LOOP, LLM_MOE_DEEPEP, LLM_MOE_NRUNNERS };

/* "fused", "loop", "deepep". */
const char *llm_moe_runner_name(enum llm_moe_runner r);

/*
 * The dtype of each weight group and of the KV cache. llm_prec_init() fills
 * it the way checkpoints of that format are made (docs/model-decode.md):
 *   bf16:  everything bf16;
 *   fp8:   every linear layer fp8, embeddings, lm_head and router bf16;
 *   nvfp4: MoE models: routed and shared experts nvfp4, the rest bf16;
 *          dense models: every linear layer nvfp4, embeddings/lm_head bf16.
 * kv must be bf16 or fp8. Fields may be changed afterwards.
 */
struct llm_prec {
	enum llm_dtype experts;     /* routed experts */
	enum llm_dtype shared;      /* shared experts (llm_prec_init: = experts) */
	enum llm_dtype linear;      /* attention projections, indexer, MTP projection */
	enum llm_dtype dense;       /* dense MLP (llm_prec_init: = linear) */
	enum llm_dtype embed;       /* embeddings, lm_head, router */
	int group, zero;            /* int4: group size (0: 128), zero points stored */
	enum llm_dtype kv;          /* KV cache (the DSA indexer keys are fp8) */
	int dsa_dense;              /* the engine ignores the DSA indexer and runs
				       dense MLA over the whole cache (SGLang on
				       SM120, docs/model-kernels.md) */
	/* How the engine cuts a layer into kernels (the scenario's serving:
	 * section; docs/model-kernels.md, "Kernels per op"); 0 is plumb's default cut. */
	int moe_trtllm_gen;         /* FlashInfer's trtllm-gen fused MoE: top-k in
				       its routing kernel, SwiGLU in its gate_up GEMM */
	int attn_trtllm_gen;        /* trtllm-gen decode attention: one kernel, the
				       split-KV reduction inside it */
	int ar_norm_fused;          /* residual add + RMSNorm folded into the TP
				       all-reduce before it (tp > 1) */
	enum llm_moe_runner moe_runner;     /* llm_prec_init: LLM_MOE_FUSED */
	double moe_skew;            /* routing skew: Zipf exponent of the experts'
				       popularity, 0 uniform (llm_moe_busiest) */
	int router_unfused;         /* the engine picks a grouped router's top-k with
				       a chain of PyTorch kernels, not one fused
				       kernel (llm_router_fused; docs/model-kernels.md,
				       "Kernels per op") */
};
int llm_prec_init(struct llm_prec *p, const struct llm_model *m,
		  enum llm_dtype weights, enum llm_dtype kv, struct plumb_err *err);

/*
 * llm_prec_init from the user's words: weights "checkpoint" takes m's
 * checkpoint formats (llm_ckpt; an error when m has none), else a dtype name
 * (int4 also as int4-gN: group N); kv "bf16" or "fp8". Errors: EUSAGE
 * (unknown name), EINPUT.
 */
int llm_prec_setup(struct llm_prec *p, const struct llm_model *m, const char *weights,
		   const char *kv, struct plumb_err *err);

/* Is name a --weights value llm_prec_setup takes (a dtype, int4-gN,
 * checkpoint)? 0 yes, -1 no. */
int llm_weights_check(const char *name);

/* Storage bits per weight of dtype d under p (int4 by p's group and zeros). */
double llm_prec_bits(const struct llm_prec *p, enum llm_dtype d);

/*
 * How one GPU's share of the model is cut.
 *   tp      tensor-parallel degree of attention, dense MLP, shared experts,
 *           lm_head; batch is what one tp group's attention serves.
 *   ep      experts spread over ep GPUs (each holds experts / ep of them);
 *   moe_tp  each expert split over moe_tp GPUs (0: tp / ep).
 *           The ep x moe_tp GPUs of an expert group serve ep x moe_tp / tp
 *           attention groups: its tokens are batch x that.
 *   first, last: this pipeline stage holds layers [first, last); the first
 *           stage also holds the embeddings, the last the final norm and
 *           lm_head.
 *   mtp     the last stage holds the model's MTP layer (speculative decoding).
 */
struct llm_shard {
	int tp, ep, moe_tp;
	int dcp;                /* decode context parallel: the KV cache split over
				   this many ranks (MLA; 0 or 1: none) */
	int first, last;
	int mtp;
};

/* The whole model on one stage: tp, ep, moe_tp = 0, layers [0, layers), no MTP. */
void llm_shard_init(struct llm_shard *s, const struct llm_model *m, int tp, int ep);

/* Check s against m (divisibility, layer range); PLUMB_EINPUT with the reason. */
int llm_shard_check(const struct llm_model *m, const struct llm_shard *s,
		    struct plumb_err *err);

/* One decode step's shape. */
struct llm_step {
	int batch;              /* sequences, >= 1 */
	int context;            /* tokens already in each sequence's KV cache; the
				   step's q_len tokens attend causally to them and
				   to themselves (llm_causal_pairs) */
	int q_len;              /* tokens per sequence this step; 0 means 1 + draft;
				   more than 1 without draft: a prefill chunk */
	int draft;              /* MTP draft tokens made on the last stage (0: none) */
	long head_tokens;       /* rows the final norm and lm_head take: engines
				   compute logits only where a token is sampled
				   (a prefill's last position); 0: every token */
	long moe_tokens;        /* tokens per rank the experts' routing counts
				   (T_moe = this x dp): with data-parallel
				   attention the ranks' mean, where batch x q_len
				   is the busiest rank's own; 0: batch x q_len */
};

enum llm_op_kind {
	LLM_OP_ATTN,            /* attention projections (and indexer weights) */
	LLM_OP_KV,              /* attention core and indexer over the KV cache */
	LLM_OP_ROUTER,
	LLM_OP_EXPERTS,         /* routed experts */
	LLM_OP_SHARED,          /* shared experts */
	LLM_OP_DENSE_MLP,
	LLM_OP_LM_HEAD,
	LLM_OP_NORM,
	LLM_OP_NKINDS
};

/* Kernel classes: each has its own shortest run and memory efficiency. */
enum llm_kclass {
	LLM_K_GEMM,             /* dense weight-streaming GEMM / GEMV */
	LLM_K_MOE,              /* grouped MoE GEMM (the MoE backend) */
	LLM_K_ATTN,             /* attention and indexer over the KV cache */
	LLM_K_ELEM,             /* norms, element-wise, top-k, sampling */
	LLM_K_N
};

const char *llm_kclass_name(enum llm_kclass c);

struct llm_op {
	enum llm_op_kind kind;
	enum llm_kclass kclass;
	int layer;              /* 0-based; layers for the MTP layer; -1 final norm / lm_head */
	int pass;               /* 0 main model; 1..d the MTP draft passes */
	const char *what;       /* static label, e.g. "attention core" */
	enum llm_dtype dtype;   /* the math runs at this dtype's tensor rate */
	int kernels;            /* kernel launches (assumed fusion, docs/model-kernels.md) */
	int host_calls;         /* eager: the host issues the op's kernels in this
				   many calls (a torch.compile'd region's wrapper
				   launches its kernels in one); 0: one a kernel */
	double bytes;           /* read from GPU memory */
	double flops;
	double rows;            /* rows M of its GEMMs (tokens; per expert for the
				   routed experts; queries x heads sharing a KV head
				   for attention); 0: no tensor-core tile to fill */
	double gemm_flops;      /* GEMM work inside an attention op (MLA's prefill
				   decompresses the cached latent with kv_b), timed
				   at the GEMM rate of gemm_dtype over gemm_rows rows */
	enum llm_dtype gemm_dtype;
	double gemm_rows;
	/* The element-wise passes an op's own kernels make apart from its
	 * GEMMs (the activation between gate_up and down, writing its product
	 * for the next GEMM), bytes moved; and the activation elements its
	 * block-scaled FP8 GEMMs quantize first (per-token groups of 128, a
	 * kernel of its own before each such GEMM: read bf16, write fp8 and a
	 * scale), counted only where the GPU runs the op's dtype on FP8 tensor
	 * cores. Neither runs under the GEMMs' math: their memory time adds to
	 * the op's (llm_ops_time; docs/model-ops.md, "Op time"). */
	double pass_bytes;
	double quant_elems;
	/* filled by llm_ops_time(): */
	double mem_s, compute_s, launch_s, seconds;
	double kmin_s;          /* kernels x the class's minimum duration, plus
				   experts x moe_expert_us */
	double pass_s;          /* pass_bytes and the FP8 quantization of
				   quant_elems at the element-wise memory rate */
	double experts;         /* routed experts: local experts the runner pays
				   moe_expert_us for (the busiest rank's); else 0 */
	int bound;              /* enum llm_bound: which part decided the time */
	int like;               /* 1 + the index of an earlier op of its list with
				   the same inputs (llm_step_ops copies identical
				   layers), 0 none: a hint llm_ops_time() checks
				   before it reuses that op's times */
};

enum llm_bound { LLM_BOUND_KMIN, LLM_BOUND_MEM, LLM_BOUND_COMPUTE };

struct llm_ops {
	int n, cap;
	struct llm_op *op;      /* owned */
};

/* The host calls an eager engine issues op's kernels in (its host_calls
 * when fewer than its kernels, else one a kernel; 0 for an op folded into
 * another). */
int llm_op_host_calls(const struct llm_op *op);

void llm_ops_init(struct llm_ops *o);
void llm_ops_release(struct llm_ops *o);

const char *llm_op_kind_name(enum llm_op_kind k);

/*
 * The ops of one decode step on one GPU of stage s, in execution order:
 * per layer norm, attention, [indexer], attention core, norm, then router,
 * experts, shared experts (MoE layers) or dense MLP; on the last stage the
 * final norm and lm_head, then step->draft passes of the MTP layer (each
 * followed by lm_head) when s->mtp. Replaces o's contents. Errors: invalid
 * shard, batch < 1, context < 0 (PLUMB_EINPUT); out of memory.
 * Cost: O(layers).
 */
int llm_step_ops(const struct llm_model *m, const struct llm_prec *p,
		 const struct llm_shard *s, const struct llm_step *step,
		 struct llm_ops *o, struct plumb_err *err);

/*
 * Dense tensor TFLOPS of g for math on dtype d: fp4 formats on FP4 tensor
 * cores, fp8 on FP8 ones; a format the GPU has no tensor cores for runs
 * weight-only at the bf16 rate (Marlin W4A16 / W8A16, as engines run
 * MXFP4 on Ada or NVFP4 on Hopper), int4 always. 0 when g has no bf16 rate.
 */
double llm_gpu_tflops(const struct scn_gpu_model *g, enum llm_dtype d);

/* How g runs the math of weights in format d, in words (predict's stack
 * line; docs/model-decode.md "Weight formats"): "FP4 tensor cores (W4A4)", or
 * weight-only with the reason. Static text. */
const char *llm_kernel_path(const struct scn_gpu_model *g, enum llm_dtype d);

/*
 * The constant giving the share of that rate the math of kernel class c on
 * dtype d reaches on g: attention kernels K_ATTN_FLOPS_EFF (bf16) or
 * K_ATTN_FP8_FLOPS_EFF (fp8 on a GPU with fp8); GEMMs K_FLOPS_EFF (bf16 and
 * the weight-only int4), K_FP8_FLOPS_EFF (fp8: 128x128-block scales),
 * K_FP8T_FLOPS_EFF (fp8t: a scale a tensor or channel, applied in the
 * epilogue) or K_FP4_FLOPS_EFF (nvfp4, mxfp4), each falling back as
 * llm_gpu_tflops does.
 */
int llm_flops_eff_of(const struct scn_gpu_model *g, enum llm_kclass c, enum llm_dtype d);

/*
 * Rows a GEMM of M rows computes once its tiles are filled: M <= 16 fill
 * one 16-row MMA; up to `tile` rows a kernel picks the smallest power-of-two
 * tile holding them; beyond, whole tiles of `tile` rows (gemm_tile_m).
 * M <= 0: M (no tile). docs/model-ops.md, "Op time".
 */
double llm_tile_rows(double M, double tile);

/*
 * Tile fill of a grouped MoE GEMM whose touched experts compute `rows` rows
 * on average: E[llm_tile_rows(X)] / E[X] over one touched expert's rows X,
 * Poisson given X >= 1 with that mean, each expert padding its rows to a
 * multiple of the one block height the launch takes (llm_tile_rows of the
 * mean, at most `tile`). 16 / rows at rows <= 1. docs/model-ops.md, "Op time".
 */
double llm_moe_tile_fill(double rows, double tile);

/*
 * Query-key pairs of one sequence of q new tokens over c cached ones, each
 * token attending causally to the cache and to the new tokens up to itself,
 * at most `cap` keys per query (cap <= 0: no cap): q c + q (q + 1) / 2
 * uncapped (the rectangle over the cache plus the triangle of the chunk);
 * a sliding window or DSA's top-k caps each query's keys.
 */
double llm_causal_pairs(double c, double q, double cap);

/*
 * Time of every op on GPU g, in parts (docs/model-ops.md, "Op time"):
 *   gpu     = kernels x kmin(class) + experts x moe_expert_us
 *           + max(bytes / (memory_gbs x eff(class)),
 *                 flops x tile(rows) / rows / (tflops(dtype) x flops_eff(class, dtype))
 *                 + gemm_flops at the GEMM rate of gemm_dtype)
 *   seconds = gpu + launch part
 * tile(rows) = llm_tile_rows(rows, gemm_tile_m): a GEMM of few rows pays for
 * the tile it fills. With CUDA graphs the launch part is kernels x
 * kernel_launch_us (a replay gap per kernel). Without, the host is a queue:
 * it issues kernel after kernel at kernel_launch_eager_us each, from the
 * step's start, and a kernel starts at max(GPU free, host issued it) (the
 * op's GPU time split evenly over its kernels); the launch part is the
 * GPU's idle time before and inside the op, so an op behind a long one
 * shows none. kmin and eff are the op's kernel class constants (kmin_gemm_us,
 * mem_eff, ...). Each op's largest part is recorded (LLM_BOUND_*).
 * Fills each op's mem_s, compute_s, launch_s, seconds; *total (may be NULL)
 * gets their sum. Error (PLUMB_EINPUT) when g has no tensor rate for an op.
 */
int llm_ops_time(struct llm_ops *o, const struct scn_gpu_model *g,
		 const struct plumb_consts *k, int cuda_graphs, double *total,
		 struct plumb_err *err);

/*
 * Does SGLang pick model m's top-k experts with one fused kernel? A softmax
 * router (route_groups 0) always (topk_softmax). A grouped (noaux_tc) router
 * when its groups hold at most 32 experts each and the experts are a power
 * of two (moe_fused_gate), or for Kimi K2's 384 experts in one group
 * (kimi_k2_moe_fused_gate); any other (GLM-4.5 to 4.7: 160 experts, GLM-5:
 * 256 in one group) runs the PyTorch biased_grouped_topk_impl
 * (sgl-project/sglang python/sglang/srt/layers/moe/topk.py,
 * biased_grouped_topk_gpu). 1 fused, 0 not.
 */
int llm_router_fused(const struct llm_model *m);

/* Distinct experts a batch of B tokens touches: E (1 - (1 - k/E)^B). */
double llm_expected_experts(double E, double k, double B);

/*
 * What the busiest of ep expert-parallel ranks does in one MoE layer when T
 * tokens each pick k distinct experts of E, rank r holding experts
 * [r E/ep, (r + 1) E/ep): the expected maximum over ranks of the distinct
 * experts a rank touches (experts) and of the token-expert pairs it
 * computes (pairs). Every layer waits for that rank. ep = 1 gives the
 * totals: llm_expected_experts and T k.
 * Uniform routing (skew 0): experts is exact (the distinct count D after T
 * tokens is a Markov chain; given D = u the touched set is a uniform
 * u-subset, and a generating function counts the u-subsets with every
 * rank's share at most x); pairs is exact for T = 1 and for ep = 2 (a chain
 * over the first rank's pairs), else the normal approximation of the sum of
 * T multivariate hypergeometric draws. skew s > 0: expert popularity
 * follows a Zipf law p ~ 1 / rank^s, popularity ranks placed on experts by
 * a fixed seeded shuffle; each expert is taken independently with its
 * inclusion probability (the touched counts per rank are Poisson-binomial,
 * exact; pairs per rank normal). Deterministic; O(T E k + ep^2 (E/ep)^3)
 * at most, bounded by stopping once every expert is touched, about 0.1 ms;
 * answers are kept for the process (a pure function; thread-safe).
 * Errors: E, k, ep < 1, k > E, ep not dividing E, T < 1, skew < 0
 * (PLUMB_EINPUT); out of memory (PLUMB_ERUNTIME).
 */
struct llm_moe_load {
	double experts;         /* expected max distinct experts on one rank */
	double pairs;           /* expected max token-expert pairs on one rank */
};
int llm_moe_busiest(int E, int k, long T, int ep, double skew, struct llm_moe_load *out,
		    struct plumb_err *err);

/*
 * Speculative decoding: expected tokens a sequence gains per step with d
 * draft tokens each accepted with probability a (independently, stopping at
 * the first rejection): (1 - a^(d+1)) / (1 - a); d + 1 when a = 1. The step
 * itself verifies batch x (d + 1) tokens (struct llm_step q_len).
 */
double llm_spec_tokens_per_step(int d, double a);
/* The same with an acceptance rate per draft position (a[k-1]: the k-th
 * draft token is accepted given the ones before it were; positions past n
 * take a[n-1]): 1 + a1 + a1 a2 + ... + a1 ... ad. */
double llm_spec_tokens_per_step_pos(int d, const double *a, int n);

/* Whole-model weight bytes (every layer, embeddings, lm_head; MTP if mtp). */
double llm_bytes_weights_total(const struct llm_model *m, const struct llm_prec *p,
			       int mtp);

/* Weight bytes one GPU of stage s holds (all its experts, not only touched). */
double llm_bytes_weights_per_gpu(const struct llm_model *m, const struct llm_prec *p,
				 const struct llm_shard *s);

/*
 * KV cache bytes per token of the whole model (every layer, no MTP), KV dtype
 * kv; with_indexer adds the DSA indexer keys (index_head_dim bytes, fp8).
 * Hybrid models: the full-attention layers only (what grows with context).
 */
double llm_kv_bytes_per_token(const struct llm_model *m, enum llm_dtype kv,
			      int with_indexer);

/* KV cache bytes per token one GPU of stage s holds (indexer included);
 * hybrid models: the full-attention layers only. */
double llm_kv_bytes_per_token_per_gpu(const struct llm_model *m,
				      const struct llm_prec *p,
				      const struct llm_shard *s);

/* KV cache and state bytes one GPU of stage s holds for one sequence of
 * `context` tokens: full layers grow with it, sliding layers up to their
 * window, linear-attention layers hold a fixed state. */
double llm_kv_bytes_per_seq_per_gpu(const struct llm_model *m, const struct llm_prec *p,
				    const struct llm_shard *s, long context);

/*
 * Does stage s fit on g with batch sequences of `context` tokens each?
 * 0 when weights + KV <= memory; else PLUMB_EINPUT "model does not fit: ..."
 * with the numbers. Activations and workspace are not counted.
 */
int llm_check_fit(const struct llm_model *m, const struct llm_prec *p,
		  const struct llm_shard *s, const struct scn_gpu_model *g,
		  int batch, int context, struct plumb_err *err);

#endif
