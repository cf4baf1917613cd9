/*
 * llm_int.h - helpers shared by llm_size.c (weight and KV-cache sizes) and
 * llm_step.c (the ops of a step); not part of the model's interface.
 */
#ifndef PLUMB_LLM_INT_H
#define PLUMB_LLM_INT_H

#include "llm.h"

/* Bytes per weight stored in dtype d under p (scales included). */
double llm_wb(const struct llm_prec *p, enum llm_dtype d);
/* GPUs each expert is split over. */
int llm_moe_tp_of(const struct llm_shard *s);
/* Linear attention state of one sequence, one layer, one GPU. */
double llm_lin_state_bytes(const struct llm_model *m, int tp);
/* Attention weights of layer l on one GPU, in parameters. */
double llm_attn_params(const struct llm_model *m, const struct llm_prec *p, int tp, int l);
/* KV-cache bytes per token of one attention layer on one GPU. */
double llm_kv_layer_bytes(const struct llm_model *m, enum llm_dtype kv, int tp);
/* Parameters of one routed expert on one GPU; of the shared experts; of the router. */
double llm_expert_params(const struct llm_model *m, int moe_tp);
double llm_shared_params(const struct llm_model *m, int tp);
double llm_router_params(const struct llm_model *m);
/* Vocabulary rows of the embedding table on one GPU. */
double llm_vocab_shard(const struct llm_model *m, int tp);
/* Ranks one sequence's cache is split over (decode context parallel). */
double llm_dcp_of(const struct llm_shard *s);

#endif
