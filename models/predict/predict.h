/*
 * predict.h - tokens per second for a model, a layout and a box: the
 * decode (and prefill) step is compiled from the model's op list
 * (models/llm) into per-stage programs with the layout's collectives
 * (models/step), simulated on the scenario's fabric, and served by the
 * closed-loop serving run (models/serve).
 *
 * Per layer and layout (docs/model-serving.md "Layouts"):
 *   tp / tppp : attention, all-reduce, MLP or experts, all-reduce
 *   ep        : data-parallel attention on batch/N sequences per GPU; MoE
 *               layers dispatch (all-to-all), run the local experts, combine
 *               (all-to-all); dense layers need no communication
 *   tpep      : attention, all-reduce, the local experts, all-reduce
 * Activations are bf16; an all-reduce moves batch x tokens x hidden x 2 bytes.
 */
#ifndef PLUMB_PREDICT_H
#define PLUMB_PREDICT_H

#include "llm.h"
#include "serve.h"
#include "step.h"

struct pred_cfg {
	const struct scenario *s;
	const struct llm_model *m;
	/* With redundant experts (serving: redundant_experts), m points here: a
	 * copy of the model with that many more physical experts
	 * (pred_cfg_serving); phys_set once done (a copy of the cfg keeps
	 * pointing at its original's, which outlives it). */
	struct llm_model phys_m;
	int phys_set;
	struct llm_prec prec;
	struct step_layout lay;
	struct topo_opts topo;
	int cuda_graphs;        /* 1: CUDA-graph launch cost, 0: eager */
	int micro;              /* pipeline microbatches; 0 = as many as stages */
	int draft;              /* speculative draft tokens (MTP), 0 = off */
	double accept;          /* draft acceptance probability */
	double accept_pos[16];  /* per draft position (naccept of them), else accept */
	int naccept;
	/* The engine stack (docs/model-kernels.md "Engine stacks"): set before
	 * pred_cfg_setup / pred_cfg_serving. engine: --engine NAME[@VERSION]
	 * (borrowed; NULL: the scenario's `serving: engine`, else sglang);
	 * stack 0 keeps the scenario's serving: section as it is (no table). */
	const char *engine;
	int stack;
	/* s with its serving: section filled from the engine table; s points
	 * here after pred_cfg_serving (a copy of the scenario struct whose
	 * tables are the scenario's: valid while the scenario is). */
	struct scenario stack_s;
	/* The scenario as given to pred_cfg_setup (borrowed). */
	const struct scenario *scn;
	/* A disaggregated design (predict_disagg.h, "p1:tp4+d1:tp4"): c is
	 * then its decode instances' layout; empty for an aggregated one. */
	char disagg[STEP_LAYOUT_MAX + 1];
};

/* Tokens a decode step yields per sequence: 1 plus the expected accepted
 * drafts (one rate, or one per position). */
double pred_tokens_per_step(const struct pred_cfg *c);

/*
 * The step's time in physical parts, seconds per GPU (averaged over the
 * stages): each op's time is launch + the largest of its kernels' shortest
 * runs, its memory traffic (weights, or the KV cache for attention) and its
 * math, so every op second lands in exactly one of the first five parts;
 * communication splits by what it is; idle is the rest of the step.
 */
enum pred_part {
	PART_LAUNCH,            /* gaps between kernels (graph replay or eager launches) */
	PART_KMIN,              /* kernels running at their class's shortest run */
	PART_WEIGHTS,           /* streaming weights */
	PART_KV,                /* reading the KV cache */
	PART_COMPUTE,           /* tensor-core math */
	PART_ALLREDUCE,         /* tensor-parallel all-reduce (and logits all-gather) */
	PART_EXPERT_COMM,       /* expert-parallel all-to-all or all-reduce */
	PART_STAGE_SEND,        /* pipeline stage sends */
	PART_IDLE,              /* waiting for another stage, or the host */
	PART_N
};
const char *pred_part_name(enum pred_part p);

/* What one step cost, for reports. */
struct pred_step_info {
	double part[PART_N];                /* seconds per GPU, sum = step */
	struct step_result run;
	double compute_s, comm_s, idle_s;   /* per GPU, averaged */
	double busy_frac;                   /* compute / step, averaged over GPUs */
	double comm_host_frac;              /* communication through host memory */
	int comm_net;                       /* 1: the layout's groups span hosts (NCCL's NET) */
	int shm_hops;                       /* collectives' hops that bounce via the host */
};

/* Defaults: CUDA graphs on, micro 0, no drafts, the engine table on. */
void pred_cfg_init(struct pred_cfg *c);

/*
 * Fill c (after pred_cfg_init's defaults) for serving `model` (a catalog id
 * or a model file, llm_model_resolve) with weights and KV cache formats
 * (llm_prec_setup; weights NULL: llm_default_weights) and `layout` on s,
 * which must outlive c; then pred_cfg_check_box. Errors: EUSAGE (dtype),
 * EINPUT (unknown model or layout, a layout the box cannot run).
 */
int pred_cfg_setup(struct pred_cfg *c, const struct scenario *s, const char *model,
		   const char *weights, const char *kv, const char *layout,
		   struct plumb_err *err);

/* Take the serving stack of c's scenario: its `serving:` section with
 * what it does not state filled from the engine table (c->engine, or the
 * scenario's engine, for c's model family, the box's GPU architecture and
 * memory, and whether the layout's all-reduce group is on NVLink); then CUDA
 * graphs, dense or sparse DSA and the kernel cut. c->s then points at
 * c->stack_s. pred_cfg_setup calls it; callers filling a pred_cfg by hand
 * call it after llm_prec_init (and step_layout_parse, for the group). */
void pred_cfg_serving(struct pred_cfg *c);

/*
 * The stack a prediction of model m on s runs under engine (NAME[@VERSION],
 * NULL: the scenario's), with an all-reduce group of group GPUs (0: all):
 * s's serving: section filled from the engine table, into *out (what
 * pred_cfg_serving puts in c->stack_s.serving).
 */
void pred_stack_of(const struct scenario *s, const char *engine, const struct llm_model *m,
		   int group, struct scn_serving *out);

/* The model family the engine table matches for m. */
enum scn_family pred_family(const struct llm_model *m);

/* A line on c's stack (after pred_cfg_serving): engine and version, and
 * what it runs ("sglang 0.5.9: attention triton, DSA dense, all-reduce
 * NCCL, ..."), with the settings the scenario states named. */
void pred_stack_text(const struct pred_cfg *c, char *buf, size_t n);

/*
 * Can c's box run its layout? It needs no more GPUs than the box has, a
 * GPU count that divides the box's (replicas fill it), and, in a VM, that
 * many GPUs whose BARs the guest maps. EINPUT with the reason otherwise.
 */
int pred_cfg_check_box(const struct pred_cfg *c, const char *layout, struct plumb_err *err);

/*
 * One step of `batch` sequences (decode: 1 token each plus drafts; prefill:
 * `tokens` new tokens each) whose caches hold `context` tokens. Fills
 * *seconds and, when info is not NULL, the breakdown.
 */
int pred_step(const struct pred_cfg *c, enum serve_step kind, int batch, long context,
	      long tokens, double *seconds, struct pred_step_info *info,
	      struct plumb_err *err);

/* As pred_step, recording up to cap timeline spans into spans (*nspans set). */
/* Passes of the batch step_run makes for a step (step_result.rounds): 4 for
 * decode through a pipeline (its steady state), else 1. */
int pred_rounds(const struct pred_cfg *c, enum serve_step kind);

int pred_step_spans(const struct pred_cfg *c, enum serve_step kind, int batch, long context,
		    long tokens, struct step_span *spans, int cap, int *nspans,
		    struct pred_step_info *info, struct plumb_err *err);

/*
 * The per-stage programs of one step (what pred_step runs), for reports and
 * tests: prog[0 .. lay.pp-1] are filled (release each with
 * step_prog_release); *micro receives the microbatch count used.
 */
int pred_programs(const struct pred_cfg *c, enum serve_step kind, int batch, long context,
		  long tokens, struct step_prog *prog, int *micro, struct plumb_err *err);

/* A step of any shape (serve.h), mixed prefill and decode included: one
 * pass over every token it carries; the weights are read once for all,
 * each part's attention reads its own cache. */
int pred_step_shape(const struct pred_cfg *c, const struct serve_shape *sh, double *seconds,
		    struct pred_step_info *info, struct plumb_err *err);

/* serve_step_fn adapter: ctx is a const struct pred_cfg *. */
int pred_serve_step(void *ctx, const struct serve_shape *sh, double *seconds,
		    struct plumb_err *err);

/* serve_host_fn adapter (ctx a const struct pred_cfg *): the host's time
 * to issue a step, its eager kernel launches. */
int pred_serve_host(const void *ctx, const struct serve_shape *sh, double *seconds,
		    struct plumb_err *err);

/* The KV cache's size in tokens, as the engine sizes it: mem_fraction of
 * each GPU's memory less its weights, over the KV bytes a token takes
 * there; the smallest stage's, times the ranks for data-parallel attention
 * (EP). A hybrid model's fixed per-sequence state (sliding windows, linear
 * attention) is charged as a request of seq_tokens tokens holds it. 0 when
 * the weights leave no room. */
long pred_kv_tokens(const struct pred_cfg *c, long seq_tokens);

/* KV cache bytes one token of a request puts on GPU g (0 .. lay.gpus - 1)
 * of one copy of c's layout, on average: its stage's share (heads split by
 * TP, an MLA cache whole on every rank), over the ranks for data-parallel
 * attention, where a sequence's cache sits on one of them. */
double pred_kv_bytes_gpu(const struct pred_cfg *c, int g);

/* Serving parameters for c's engine: concurrency, lengths and cached
 * context as given, the tokens a decode step yields (drafts) and the KV
 * cache's size; the rest serve_params_init's. */
void pred_serve_params(const struct pred_cfg *c, int concurrency, long input, long output,
		       long context, struct serve_params *sp);

/* Does the model fit for this layout, batch and context? EINPUT with numbers. */
int pred_check_fit(const struct pred_cfg *c, int batch, long context, struct plumb_err *err);

/* A sentence on where the step's time goes, from its parts: the largest of
 * kernel latency (launch + shortest runs), memory, compute, communication and
 * pipeline idle, with its share, e.g. "kernel-latency-bound: 48% of the step
 * is kernel launches and minimum kernel durations (memory 31%, all-reduce
 * 19%)". */
void pred_diagnosis(const struct pred_cfg *c, const struct pred_step_info *i, char *buf,
		    size_t n);

#endif
