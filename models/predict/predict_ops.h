/*
 * predict_ops.h - a mixed step's op list from its three parts, and each
 * thread's op-list buffers (predict_ops.c).
 */
#ifndef PLUMB_PREDICT_OPS_H
#define PLUMB_PREDICT_OPS_H

#include "llm.h"
#include "predict.h"

/*
 * A mixed step's list for one stage into o: llm_step_ops of sh[0], st[0]
 * (every token once through the weights) with its attention-core ops merged
 * from the lists of sh[1], st[1] (the prefill chunks) and sh[2], st[2] (the
 * decode sequences, whose draft passes follow), as pred_merge_mixed does;
 * the second and third lists' parts kept for the process by their inputs
 * (the model and formats compared in full). Thread-safe. Errors:
 * llm_step_ops's, lists that do not line up, out of memory.
 */
int pred_mixed_ops(const struct llm_model *m, const struct llm_prec *pr,
		   const struct llm_shard *sh, const struct llm_step *st, struct llm_ops *o,
		   struct plumb_err *err);

/* u's attention-core ops merged with p's and d's, d's draft passes
 * appended; an error when the lists do not line up. */
int pred_merge_mixed(struct llm_ops *u, const struct llm_ops *p, const struct llm_ops *d,
		     struct plumb_err *err);

/* The calling thread's op-list buffer i (0-2), kept from call to call so a
 * list grows once per thread; NULL when out of memory. Buffers 1 and 2 are
 * pred_mixed_ops's. */
struct llm_ops *pred_ops_buf(int i);

/* The shard of stage st of c's layout (predict_serve.c). */
void pred_stage_shard(const struct pred_cfg *c, int st, struct llm_shard *sh);

#endif
