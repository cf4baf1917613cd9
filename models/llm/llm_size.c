/*
 * llm_size.c - how a model is sharded and what it holds per GPU: the shard's
 * checks, weight bytes per GPU and in total, KV-cache bytes per token and per
 * sequence, and whether a batch fits (docs/model-decode.md, "The decode step").
 * llm_step.c turns the same counts into the ops of a step.
 */
#include "llm_int.h"

#include <math.h>
#include <string.h>

/* Bytes per weight stored in dtype d under p (scales included). */
double llm_wb(const struct llm_prec *p, enum llm_dtype d)
{
	return llm_prec_bits(p, d) / 8.0;
}

static double kv_elem_bytes(enum llm_dtype d)
{
	return d == LLM_FP8 ? 1.0 : 2.0;
}

int llm_moe_tp_of(const struct llm_shard *s)
{
	return s->moe_tp ? s->moe_tp : (s->ep && s->tp % s->ep == 0 ? s->tp / s->ep : 1);
}

void llm_shard_init(struct llm_shard *s, const struct llm_model *m, int tp, int ep)
{
	memset(s, 0, sizeof(*s));
	s->tp = tp;
	s->ep = ep;
	s->first = 0;
	s->last = m->layers;
}

int llm_shard_check(const struct llm_model *m, const struct llm_shard *s,
		    struct plumb_err *err)
{
	int mtp;

	if (s->tp < 1 || s->ep < 1 || s->moe_tp < 0)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "tp (%d), ep (%d) must be at least 1", s->tp, s->ep);
	if (s->dcp > 1 && m->attn != LLM_ATTN_MLA)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "decode context parallel splits an MLA cache; %s has none", m->id);
	if (s->dcp > 1 && s->tp % s->dcp)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "dcp %d does not divide tp %d",
				     s->dcp, s->tp);
	if (s->first < 0 || s->first >= s->last || s->last > m->layers)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "stage layers [%d, %d) outside %s's 0..%d",
				     s->first, s->last, m->id, m->layers);
	if (m->heads % s->tp)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "tp %d does not divide %s's %d attention heads",
				     s->tp, m->id, m->heads);
	if (m->attn == LLM_ATTN_GQA && m->kv_heads % s->tp && s->tp % m->kv_heads)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "tp %d and %s's %d KV heads: neither divides the other",
				     s->tp, m->id, m->kv_heads);
	if (m->lin_k_heads && (m->lin_k_heads % s->tp || m->lin_v_heads % s->tp))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "tp %d does not divide %s's %d key and %d value heads of "
				     "linear attention", s->tp, m->id, m->lin_k_heads,
				     m->lin_v_heads);
	if (s->mtp && (!m->mtp_layers || s->last != m->layers))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     m->mtp_layers ? "the MTP layer belongs to the last stage"
						   : "%s has no MTP layer", m->id);
	if (!m->experts) {
		if (s->ep != 1)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "ep %d: %s has no experts", s->ep, m->id);
		return 0;
	}
	if (!s->moe_tp && s->tp % s->ep)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "ep %d does not divide tp %d; give moe_tp", s->ep, s->tp);
	mtp = llm_moe_tp_of(s);
	if (m->experts % s->ep)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "ep %d does not divide %s's %d experts", s->ep, m->id,
				     m->experts);
	if ((s->ep * mtp) % s->tp)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "ep x moe_tp (%d) must be a multiple of tp (%d)",
				     s->ep * mtp, s->tp);
	return 0;
}

/* ---- parameter counts per GPU -------------------------------------------- */

/*
 * Linear attention (Gated DeltaNet) weights of one layer on one GPU, heads
 * split by tp: in_proj_qkvz (q, k, v, gate z), in_proj_ba (beta, decay), the
 * causal conv1d over q, k, v, A_log and dt_bias, out_proj.
 */
static double lin_params(const struct llm_model *m, int tp)
{
	double h = m->hidden, vl = (double)m->lin_v_heads / tp;
	double kd = (double)m->lin_k_heads / tp * m->lin_k_dim, vd = vl * m->lin_v_dim;
	return h * (2.0 * kd + 2.0 * vd) + h * 2.0 * vl + (2.0 * kd + vd) * m->lin_conv +
	       2.0 * vl + vd * h;
}

/* Linear attention state of one sequence, one layer, one GPU, bf16: the
 * recurrent heads x k_dim x v_dim matrices and the conv window. */
double llm_lin_state_bytes(const struct llm_model *m, int tp)
{
	double vl = (double)m->lin_v_heads / tp, kl = (double)m->lin_k_heads / tp;
	return 2.0 * (vl * m->lin_k_dim * m->lin_v_dim +
		      (m->lin_conv - 1.0) * (2.0 * kl * m->lin_k_dim + vl * m->lin_v_dim));
}

/* Attention weights of layer l on one GPU; the DSA indexer's unless the
 * engine runs the model dense (it then loads no indexer). */
double llm_attn_params(const struct llm_model *m, const struct llm_prec *p, int tp, int l)
{
	double h = m->hidden, hl = (double)m->heads / tp;
	if (llm_layer_kind(m, l) == LLM_LAYER_LINEAR)
		return lin_params(m, tp);
	if (m->attn == LLM_ATTN_GQA) {
		double kvl = m->kv_heads >= tp ? (double)m->kv_heads / tp : 1.0;
		double q = (m->attn_gate ? 2.0 : 1.0) * hl * m->head_dim;   /* gate: 2x q_proj */
		double n = h * q + h * hl * m->head_dim + 2.0 * h * kvl * m->head_dim;
		if (m->attn_bias)
			n += q + 2.0 * kvl * m->head_dim;
		if (m->attn_obias)
			n += h;
		if (m->attn_sinks)
			n += hl;
		return n;
	}
	double qin = m->q_lora ? m->q_lora : h;
	double rep = (m->q_lora ? h * m->q_lora : 0) + h * (m->kv_lora + m->qk_rope);
	double shard = qin * hl * (m->qk_nope + m->qk_rope) +
		       (double)m->kv_lora * hl * (m->qk_nope + m->v_head) +
		       hl * m->v_head * h;
	if (m->index_topk && !p->dsa_dense)
		rep += qin * m->index_heads * m->index_head_dim + h * m->index_head_dim +
		       h * m->index_heads;
	return rep + shard;
}

/* Norm weights of layer l (bf16), in parameters. */
static double norm_params(const struct llm_model *m, int l)
{
	double n = 2.0 * m->hidden;
	if (llm_layer_kind(m, l) == LLM_LAYER_LINEAR)
		return n + m->lin_v_dim;
	if (m->attn == LLM_ATTN_MLA)
		n += m->q_lora + m->kv_lora;
	if (m->qk_norm)
		n += 2.0 * m->head_dim;
	return n;
}

/* KV-cache bytes per token of one attention layer on one GPU (indexer not
 * included). */
double llm_kv_layer_bytes(const struct llm_model *m, enum llm_dtype kv, int tp)
{
	if (m->attn == LLM_ATTN_MLA)
		return (double)(m->kv_lora + m->qk_rope) * kv_elem_bytes(kv);
	double kvl = m->kv_heads >= tp ? (double)m->kv_heads / tp : 1.0;
	return 2.0 * kvl * m->head_dim * kv_elem_bytes(kv);
}

/* KV cache (or linear attention state) one GPU holds for one sequence of L
 * cached tokens at layer l, indexer not included. */
static double kv_seq_layer(const struct llm_model *m, enum llm_dtype kv, int tp, int l,
			   double L)
{
	switch (llm_layer_kind(m, l)) {
	case LLM_LAYER_LINEAR:
		return llm_lin_state_bytes(m, tp);
	case LLM_LAYER_SLIDING:
		if (L > m->sliding_window)
			L = m->sliding_window;
		break;
	case LLM_LAYER_CHUNKED:         /* the current chunk at most */
		if (L > m->attn_chunk)
			L = m->attn_chunk;
		break;
	case LLM_LAYER_FULL:
		break;
	}
	return L * llm_kv_layer_bytes(m, kv, tp);
}

/* Parameters of one routed expert on one GPU (1/moe_tp of it), biases included. */
double llm_expert_params(const struct llm_model *m, int moe_tp)
{
	double mi = m->moe_intermediate;
	return (3.0 * m->hidden * mi + (m->expert_bias ? 2.0 * mi : 0)) / moe_tp +
	       (m->expert_bias ? m->hidden : 0);
}

/* Parameters of the shared experts on one GPU (with their gate). */
double llm_shared_params(const struct llm_model *m, int tp)
{
	double si = m->shared_intermediate ? m->shared_intermediate : m->moe_intermediate;
	return m->shared_experts * 3.0 * m->hidden * si / tp + (m->shared_gate ? m->hidden : 0);
}

double llm_router_params(const struct llm_model *m)
{
	return (double)m->experts * m->hidden + (m->router_bias ? m->experts : 0);
}

/* Weight bytes of layer l on one GPU; moe selects the MLP kind. */
static double layer_weight_bytes(const struct llm_model *m, const struct llm_prec *p,
				 const struct llm_shard *s, int moe, int l)
{
	double h = m->hidden, b;
	b = llm_attn_params(m, p, s->tp, l) * llm_wb(p, p->linear) + norm_params(m, l) * 2.0;
	if (moe) {
		b += llm_router_params(m) * llm_wb(p, p->embed);
		b += (double)m->experts / s->ep * llm_expert_params(m, llm_moe_tp_of(s)) *
		     llm_wb(p, p->experts);
		b += llm_shared_params(m, s->tp) * llm_wb(p, p->shared);
	} else {
		b += 3.0 * h * m->intermediate / s->tp * llm_wb(p, p->dense);
	}
	return b;
}

double llm_vocab_shard(const struct llm_model *m, int tp)
{
	return ceil((double)m->vocab / tp);
}

double llm_bytes_weights_per_gpu(const struct llm_model *m, const struct llm_prec *p,
				 const struct llm_shard *s)
{
	double b = 0, table = llm_vocab_shard(m, s->tp) * m->hidden * llm_wb(p, p->embed);
	int l;
	for (l = s->first; l < s->last; l++)
		b += layer_weight_bytes(m, p, s, llm_layer_is_moe(m, l), l);
	if (s->first == 0)
		b += table;                                     /* embeddings */
	if (s->last == m->layers) {
		b += m->hidden * 2.0;                           /* final norm */
		if (!m->tie_embeddings || s->first != 0)
			b += table;                             /* lm_head */
	}
	if (s->mtp)     /* MTP: a layer, its input projection 2h -> h, three norms */
		b += m->mtp_layers * (layer_weight_bytes(m, p, s, m->experts != 0, m->layers) +
				      2.0 * m->hidden * m->hidden / s->tp * llm_wb(p, p->linear) +
				      3.0 * m->hidden * 2.0);
	return b;
}

double llm_bytes_weights_total(const struct llm_model *m, const struct llm_prec *p,
			       int mtp)
{
	struct llm_shard s;
	llm_shard_init(&s, m, 1, 1);
	s.moe_tp = 1;
	s.mtp = mtp && m->mtp_layers;
	return llm_bytes_weights_per_gpu(m, p, &s);
}

/* Full-attention layers in [first, last). */
static int full_layers(const struct llm_model *m, int first, int last)
{
	int l, n = 0;
	for (l = first; l < last; l++)
		n += llm_layer_kind(m, l) == LLM_LAYER_FULL;
	return n;
}

double llm_kv_bytes_per_token(const struct llm_model *m, enum llm_dtype kv,
			      int with_indexer)
{
	double per = llm_kv_layer_bytes(m, kv, 1);
	if (with_indexer && m->index_topk)
		per += m->index_head_dim;       /* fp8 keys, 1 byte each */
	return per * full_layers(m, 0, m->layers);
}

/* Ranks one sequence's cache is split over (decode context parallel). */
double llm_dcp_of(const struct llm_shard *s)
{
	return s->dcp > 1 ? s->dcp : 1;
}

double llm_kv_bytes_per_token_per_gpu(const struct llm_model *m,
				      const struct llm_prec *p,
				      const struct llm_shard *s)
{
	double per = llm_kv_layer_bytes(m, p->kv, s->tp);
	int n = full_layers(m, s->first, s->last) + (s->mtp ? m->mtp_layers : 0);
	if (m->index_topk && !p->dsa_dense)
		per += m->index_head_dim;
	return per * n / llm_dcp_of(s);
}

double llm_kv_bytes_per_seq_per_gpu(const struct llm_model *m, const struct llm_prec *p,
				    const struct llm_shard *s, long context)
{
	double b = 0, idx = m->index_topk && !p->dsa_dense ? m->index_head_dim : 0;
	int l;
	if (!m->hybrid)
		return llm_kv_bytes_per_token_per_gpu(m, p, s) * (double)context;
	for (l = s->first; l < s->last; l++)
		b += kv_seq_layer(m, p->kv, s->tp, l, (double)context);
	if (s->mtp)
		b += m->mtp_layers * kv_seq_layer(m, p->kv, s->tp, m->layers, (double)context);
	return (b + idx * (double)context * (s->last - s->first)) / llm_dcp_of(s);
}

int llm_check_fit(const struct llm_model *m, const struct llm_prec *p,
		  const struct llm_shard *s, const struct scn_gpu_model *g,
		  int batch, int context, struct plumb_err *err)
{
	double w = llm_bytes_weights_per_gpu(m, p, s);
	double per = llm_kv_bytes_per_token_per_gpu(m, p, s);
	double kv = (double)batch * llm_kv_bytes_per_seq_per_gpu(m, p, s, context);
	if (m->hybrid && context > 0)   /* sliding and linear layers: the average */
		per = kv / ((double)batch * context);
	double have = g->memory_gib * 1073741824.0;
	if (w + kv <= have)
		return 0;
	return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
			     "model does not fit: %s %s needs %.1f GB of weights + %.1f GB of "
			     "KV cache (%d x %d tokens x %.0f B) per GPU, %s has %.1f GB",
			     m->id, llm_dtype_name(m->experts ? p->experts : p->dense), w / 1e9,
			     kv / 1e9, batch,
			     context, per, g->id, have / 1e9);
}

