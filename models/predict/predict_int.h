/*
 * predict_int.h - what the files of a step's programs share (predict.c:
 * the op lists' questions and the step; predict_stage.c: an op list folded
 * into a stage's program; predict_plan.c: op lists and their folds kept
 * for the process, and timed from there).
 */
#ifndef PLUMB_PREDICT_INT_H
#define PLUMB_PREDICT_INT_H

#include "predict.h"

/* The microbatches a step is cut into; the tokens one microbatch of a mixed
 * step carries; does the step replay CUDA graphs (predict.c). */
int pred_step_micro(const struct pred_cfg *c, const struct serve_shape *sh);
long pred_mixed_tokens(const struct pred_cfg *c, const struct serve_shape *sh, int micro);
int pred_step_graphs(const struct pred_cfg *c, enum serve_step kind);

/* The GPU model of stage st's first GPU (its ops are timed on it). */
const struct scn_gpu_model *pred_stage_gpu(const struct pred_cfg *c, int st);

/*
 * What llm_step_ops is asked for stage st of a step: n = 1, one list; n =
 * 3, a mixed step's: [0] every token once through the weights, [1] the
 * prefill chunks' attention, [2] the decode sequences' attention and drafts
 * (predict_stage.c merges them, pred_merge_mixed). Errors: the shard's.
 */
struct pred_parts {
	int n;
	struct llm_shard sh[3];
	struct llm_step step[3];
};
int pred_stage_parts(const struct pred_cfg *c, int st, const struct serve_shape *shp,
		     struct pred_parts *pp, struct plumb_err *err);

/* Stage st's timed op list for one microbatch (o initialised; replaced). */
int pred_stage_ops(const struct pred_cfg *c, int st, const struct serve_shape *shp,
		   struct llm_ops *o, struct plumb_err *err);

/* A mixed step's lists merged into u (predict_stage.c); the merge of one
 * attention-core op o (u's) from the prefill part's p and the decode
 * part's d. */
int pred_merge_mixed(struct llm_ops *u, const struct llm_ops *p, const struct llm_ops *d,
		     struct plumb_err *err);
void pred_merge_kv(struct llm_op *o, const struct llm_op *p, const struct llm_op *d);

/* Stage st's program of the step (predict_stage.c). */
int pred_build_stage(const struct pred_cfg *c, int st, const struct serve_shape *sh,
		     struct step_prog *p, struct plumb_err *err);

/*
 * A stage's fold (predict_stage.c): the program's ops in order, each a
 * collective (its bytes the builder's `which`) or a compute op whose
 * seconds are the sum, in list order from 0, of the list's ops
 * [previous compute op's end, end).
 */
enum pred_bytes { PB_NONE, PB_AR, PB_A2A, PB_DISPATCH, PB_LOGITS, PB_DCP_Q, PB_DCP_O, PB_N };
struct pred_fold_op {
	unsigned char kind;         /* enum step_op_kind */
	unsigned char which;        /* enum pred_bytes */
	unsigned char tag;          /* enum step_tag */
	int end;
};
/* The fold of ops under c's layout (dcp: the step emits decode context
 * parallel exchanges) into *out (malloc'd, *n ops); 0 or an error. */
int pred_fold_record(const struct pred_cfg *c, int dcp, const struct llm_ops *ops,
		     struct pred_fold_op **out, int *n, struct plumb_err *err);

/*
 * A stage's ops timed from the kept lists (predict_plan.c): the list's
 * fold, and each op's seconds through pred_timed_sec, in list order.
 * pred_plan_time: 1 and t filled (release with pred_timed_release), 0 when
 * the step is not one the kept lists time (drafts in a mixed step, lists
 * that do not line up, a full table: the caller builds the list), or an
 * error.
 */
struct pred_plan_entry;
struct pred_timed {
	const struct pred_plan_entry *e, *pe, *de;  /* the list (u), a mixed step's parts */
	struct llm_ops t;           /* e's kept ops, timed */
	struct llm_ops kv;          /* mixed: its attention-core ops, merged and timed */
	const struct pred_fold_op *fold;
	int nfold;
	int j, kvj;                 /* the next op, the next attention-core op */
	int graphs;                 /* 0: eager launches, in list order */
	double launch, host, gpu;   /* eager: a launch's seconds, the queue's state */
};
int pred_plan_time(const struct pred_cfg *c, int st, const struct serve_shape *sh,
		   struct pred_timed *t, struct plumb_err *err);
/* The sum of the op times from the next op to op end (excluded), from 0
 * in list order, as fold sums them; the ops are asked for in order, each
 * once. */
double pred_timed_sum(struct pred_timed *t, int end);
void pred_timed_release(struct pred_timed *t);

#endif
