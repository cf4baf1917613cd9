/*
 * hfconfig_arch.c - the architectures of Hugging Face configs: which
 * model_type reads which keys into struct llm_model (hfconfig_int.h).
 *
 * Each architecture reads the keys its transformers configuration class
 * defines, and where a config leaves a key out, the default that class
 * supplies (Gemma 3's wrapper configs give only a few keys of their text
 * model). A key that changes the op list in a way plumb does not model is
 * refused by name rather than ignored. Values are checked against the same
 * ranges as the YAML catalog (models/llm/llm.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hfconfig_int.h"

enum family {
	F_MLA, F_GLM4, F_QWEN3MOE, F_QWEN3NEXT, F_GPTOSS, F_LLAMA, F_MIXTRAL,
	F_DENSE, F_GEMMA, F_LLAMA4, F_MINIMAX, F_CHATGLM
};

/* What a dense GQA family adds to plain Llama (F_DENSE, F_GEMMA). */
enum {
	D_QKV_BIAS = 1,         /* q, k, v biases, no key (Qwen2) */
	D_QK_NORM = 2,          /* RMSNorm on q and k (Qwen3, OLMo 2/3, EXAONE 4) */
	D_QWEN_SWA = 4,         /* sliding only with use_sliding_window, from
				   max_window_layers on (Qwen2Config) */
	D_ALL_SWA = 8,          /* a sliding_window makes every layer sliding
				   (Mistral, Phi-3) */
	D_MTP = 16,             /* num_nextn_predict_layers (MiMo) */
	D_GEMMA2 = 32,          /* Gemma2Config: every other layer sliding */
	D_GEMMA3 = 64           /* Gemma3TextConfig: sliding_window_pattern */
};

/*
 * count: how the family's publisher counts activated parameters (enum
 * llm_count; the published figures and what gives them are in
 * docs/model-decode.md, "Parameter counts").
 */
static const struct {
	const char *type;
	enum family f;
	enum llm_count count;
	int flags;
} families[] = {
	{ "deepseek_v3", F_MLA, LLM_COUNT_NO_EMBED, 0 },
	{ "kimi_k2", F_MLA, LLM_COUNT_NO_EMBED, 0 },
	{ "glm_moe_dsa", F_MLA, LLM_COUNT_NO_EMBED_HEAD, 0 },
	{ "deepseek_v32", F_MLA, LLM_COUNT_NO_EMBED, 0 },
	{ "deepseek_v2", F_MLA, LLM_COUNT_NO_EMBED, 0 },
	{ "glm4_moe_lite", F_MLA, LLM_COUNT_NO_EMBED_HEAD, 0 },
	{ "glm4_moe", F_GLM4, LLM_COUNT_NO_EMBED_HEAD, 0 },
	{ "qwen3_moe", F_QWEN3MOE, LLM_COUNT_ALL, 0 },
	{ "qwen3_next", F_QWEN3NEXT, LLM_COUNT_ALL, 0 },
	{ "qwen3_5_moe", F_QWEN3NEXT, LLM_COUNT_ALL, 0 },
	{ "qwen3_5_moe_text", F_QWEN3NEXT, LLM_COUNT_ALL, 0 },
	{ "qwen3_5", F_QWEN3NEXT, LLM_COUNT_ALL, 0 },
	{ "qwen3_5_text", F_QWEN3NEXT, LLM_COUNT_ALL, 0 },
	{ "gpt_oss", F_GPTOSS, LLM_COUNT_NO_EMBED, 0 },
	{ "llama", F_LLAMA, LLM_COUNT_ALL, 0 },
	{ "mixtral", F_MIXTRAL, LLM_COUNT_ALL, 0 },
	{ "mistral", F_DENSE, LLM_COUNT_ALL, D_ALL_SWA },
	{ "qwen2", F_DENSE, LLM_COUNT_ALL, D_QKV_BIAS | D_QWEN_SWA },
	{ "qwen3", F_DENSE, LLM_COUNT_ALL, D_QK_NORM | D_QWEN_SWA },
	{ "mimo", F_DENSE, LLM_COUNT_ALL, D_QKV_BIAS | D_QWEN_SWA | D_MTP },
	{ "ministral3", F_DENSE, LLM_COUNT_ALL, D_ALL_SWA },
	{ "phi3", F_DENSE, LLM_COUNT_ALL, D_ALL_SWA },
	{ "glm4", F_DENSE, LLM_COUNT_ALL, 0 },
	{ "chatglm", F_CHATGLM, LLM_COUNT_ALL, 0 },
	{ "olmo2", F_DENSE, LLM_COUNT_ALL, D_QK_NORM },
	{ "olmo3", F_DENSE, LLM_COUNT_ALL, D_QK_NORM },
	{ "exaone4", F_DENSE, LLM_COUNT_ALL, D_QK_NORM },
	{ "gemma2", F_GEMMA, LLM_COUNT_ALL, D_GEMMA2 },
	{ "gemma3", F_GEMMA, LLM_COUNT_ALL, D_GEMMA3 | D_QK_NORM },
	{ "gemma3_text", F_GEMMA, LLM_COUNT_ALL, D_GEMMA3 | D_QK_NORM },
	{ "llama4", F_LLAMA4, LLM_COUNT_ALL, 0 },
	{ "llama4_text", F_LLAMA4, LLM_COUNT_ALL, 0 },
	{ "minimax_m2", F_MINIMAX, LLM_COUNT_NO_EMBED_HEAD, 0 },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

int hf_arch_find(const char *type)
{
	size_t i;
	for (i = 0; i < NFAMILIES; i++)
		if (!strcmp(type, families[i].type))
			return (int)i;
	return -1;
}

enum llm_count hf_arch_count(int i)
{
	return families[i].count;
}

/* Edit distance of a and b (both under 64 characters; longer: large). */
static int distance(const char *a, const char *b)
{
	int d[65][65], i, j, n = (int)strlen(a), k = (int)strlen(b);
	if (n > 64 || k > 64)
		return 1000;
	for (i = 0; i <= n; i++)
		d[i][0] = i;
	for (j = 0; j <= k; j++)
		d[0][j] = j;
	for (i = 1; i <= n; i++)
		for (j = 1; j <= k; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			d[i][j] = best;
		}
	return d[n][k];
}

int hf_arch_unknown(const struct hfctx *c, const char *type)
{
	size_t i, best = 0, pre, best_pre = 0;
	int dist, best_dist = 1 << 30;
	for (i = 0; i < NFAMILIES; i++) {
		const char *t = families[i].type;
		for (pre = 0; type[pre] && type[pre] == t[pre]; pre++)
			;
		dist = distance(type, t);
		/* the longest common prefix (qwen2_moe: qwen2), then the fewest edits */
		if (pre > best_pre || (pre == best_pre && dist < best_dist)) {
			best = i;
			best_pre = pre;
			best_dist = dist;
		}
	}
	return hf_fail(c, "model_type", "architecture %s (model_type '%s') is not modelled; the "
		       "nearest plumb reads is '%s' (docs/model-decode.md lists them). A model catalog "
		       "YAML describes any other: --model FILE.yaml (docs/scenarios.md, \"Model "
		       "catalog keys\")", c->arch, type, families[best].type);
}

/* 1-based line and column of the first "key" in text, or 1:1. */
static void locate(const char *text, const char *key, int *line, int *col)
{
	char pat[160];
	const char *p, *q;
	*line = *col = 1;
	snprintf(pat, sizeof(pat), "\"%s\"", key);
	if (!key || !(p = strstr(text, pat)))
		return;
	for (q = text; q < p; q++) {
		if (*q == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

/* An EINPUT error at key's place in the config (1:1 when key is NULL). */
int hf_fail(const struct hfctx *c, const char *key, const char *fmt, ...)
{
	char msg[900];
	int line, col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	locate(c->text, key, &line, &col);
	return plumb_err_set(c->err, PLUMB_EINPUT, c->file, line, col, "%s", msg);
}

/* Integer key in [lo, hi] into *out; absent or null: an error when required,
 * else *out keeps its value. */
static int get_int(const struct hfctx *c, const char *key, long lo, long hi, int required,
		   int *out)
{
	const json_t *v = json_object_get(c->cfg, key);
	json_int_t n;
	if (!v || json_is_null(v)) {
		if (required)
			return hf_fail(c, NULL, "%s config has no '%s'", c->arch, key);
		return 0;
	}
	if (!json_is_integer(v))
		return hf_fail(c, key, "'%s' must be an integer", key);
	n = json_integer_value(v);
	if (n < lo || n > hi)
		return hf_fail(c, key, "'%s' is %lld, outside %ld..%ld", key, (long long)n, lo, hi);
	*out = (int)n;
	return 0;
}

static int get_bool(const struct hfctx *c, const char *key, int *out)
{
	const json_t *v = json_object_get(c->cfg, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return hf_fail(c, key, "'%s' must be true or false", key);
	*out = json_is_true(v);
	return 0;
}

/*
 * A DeepSeek-style router: topk_method "noaux_tc" (sigmoid scores, a
 * score-correction bias, n_group expert groups), or always where the
 * architecture has no other (always: Glm4MoeTopkRouter in transformers'
 * modeling_glm4_moe.py carries e_score_correction_bias; n_group defaults
 * to 1 in Glm4MoeConfig). Sets m->route_groups (llm.h).
 */
static int noaux_groups(const struct hfctx *c, struct llm_model *m, int always)
{
	const json_t *v = json_object_get(c->cfg, "topk_method");
	int g = 1, rc;
	if (!m->experts)
		return 0;
	if (!always && !(json_is_string(v) && !strcmp(json_string_value(v), "noaux_tc")))
		return 0;
	if ((rc = get_int(c, "n_group", 1, m->experts, 0, &g)) < 0)
		return rc;
	if (m->experts % g)
		return hf_fail(c, "n_group", "n_group (%d) does not divide the %d experts", g,
			       m->experts);
	m->route_groups = g;
	return 0;
}

/* Per-layer kinds from layer_types (strings): 0, 1 when absent, or an
 * error (also when the model has more layers than a hybrid one may). */
static int layer_types(const struct hfctx *c, struct llm_model *m)
{
	const json_t *a = json_object_get(c->cfg, "layer_types");
	size_t i;
	if (m->layers > LLM_MAX_LAYERS)
		return hf_fail(c, "num_hidden_layers", "at most %d layers in a hybrid model",
			       LLM_MAX_LAYERS);
	if (!a || json_is_null(a))
		return 1;       /* absent */
	if (!json_is_array(a) || json_array_size(a) != (size_t)m->layers)
		return hf_fail(c, "layer_types", "'layer_types' must list the %d layers", m->layers);
	for (i = 0; i < json_array_size(a); i++) {
		const char *t = json_string_value(json_array_get(a, i));
		if (t && !strcmp(t, "full_attention"))
			m->kind[i] = LLM_LAYER_FULL;
		else if (t && !strcmp(t, "sliding_attention"))
			m->kind[i] = LLM_LAYER_SLIDING;
		else if (t && !strcmp(t, "linear_attention"))
			m->kind[i] = LLM_LAYER_LINEAR;
		else if (t && !strcmp(t, "chunked_attention"))
			m->kind[i] = LLM_LAYER_CHUNKED;
		else
			return hf_fail(c, "layer_types", "layer %zu's type '%s' is not modelled "
				    "(full_attention, sliding_attention, linear_attention, "
				    "chunked_attention)", i,
				    t ? t : "?");
	}
	m->hybrid = 1;
	return 0;
}

/* The geometry shared by every family. */
/* defaults: the family's config class supplies vocab_size, the head counts
 * and head_dim when absent (they are already in m). */
static int common(const struct hfctx *c, struct llm_model *m, int defaults)
{
	int rc, kv = m->kv_heads, hd = m->head_dim;
	if ((rc = get_int(c, "num_hidden_layers", 1, 100000, 1, &m->layers)) < 0 ||
	    (rc = get_int(c, "hidden_size", 1, 1 << 20, 1, &m->hidden)) < 0 ||
	    (rc = get_int(c, "vocab_size", 1, 1 << 26, !defaults, &m->vocab)) < 0 ||
	    (rc = get_int(c, "num_attention_heads", 1, 4096, !defaults, &m->heads)) < 0 ||
	    (rc = get_int(c, "intermediate_size", 1, 1 << 24, 0, &m->intermediate)) < 0 ||
	    (rc = get_bool(c, "tie_word_embeddings", &m->tie_embeddings)) < 0)
		return rc;
	m->kv_heads = defaults ? kv : m->heads;
	m->head_dim = defaults ? hd : m->hidden / m->heads;
	if ((rc = get_int(c, "num_key_value_heads", 1, 4096, 0, &m->kv_heads)) < 0 ||
	    (rc = get_int(c, "head_dim", 1, 4096, 0, &m->head_dim)) < 0)
		return rc;
	return 0;
}

static int moe(const struct hfctx *c, struct llm_model *m, const char *experts_key,
	       const char *inter_key)
{
	int rc;
	if ((rc = get_int(c, experts_key, 1, 1 << 20, 1, &m->experts)) < 0 ||
	    (rc = get_int(c, "num_experts_per_tok", 1, 1 << 20, 1, &m->top_k)) < 0 ||
	    (rc = get_int(c, inter_key, 1, 1 << 24, 1, &m->moe_intermediate)) < 0)
		return rc;
	if (m->top_k > m->experts)
		return hf_fail(c, "num_experts_per_tok", "num_experts_per_tok (%d) is more than "
			    "the %d experts", m->top_k, m->experts);
	return 0;
}

/* Every layer MoE: Qwen's decoder_sparse_step 1 and no mlp_only_layers. */
static int qwen_every_layer_moe(const struct hfctx *c)
{
	const json_t *v = json_object_get(c->cfg, "mlp_only_layers");
	int step = 1, rc;
	if ((rc = get_int(c, "decoder_sparse_step", 1, 1000, 0, &step)) < 0)
		return rc;
	if (step != 1)
		return hf_fail(c, "decoder_sparse_step", "%s: decoder_sparse_step %d (MoE every "
			    "%d layers, dense MLPs between) is not modelled", c->arch, step, step);
	if (v && json_is_array(v) && json_array_size(v))
		return hf_fail(c, "mlp_only_layers", "%s: mlp_only_layers (dense layers between "
			    "MoE layers) is not modelled", c->arch);
	return 0;
}

/* Sliding layers of a dense family (flags D_*), when its config has none
 * in layer_types. */
static int dense_swa(const struct hfctx *c, int flags, struct llm_model *m)
{
	int rc, use = 0, from = 0, pattern = 0, i;
	if (flags & D_QWEN_SWA) {       /* Qwen2Config: layers from max_window_layers */
		if ((rc = get_bool(c, "use_sliding_window", &use)) < 0)
			return rc;
		if (!use)
			return m->sliding_window = 0, 0;
		if ((rc = get_int(c, "max_window_layers", 0, m->layers, 1, &from)) < 0)
			return rc;
		for (i = 0; i < m->layers; i++)
			m->kind[i] = i >= from ? LLM_LAYER_SLIDING : LLM_LAYER_FULL;
		m->hybrid = 1;
	} else if (flags & D_GEMMA2) {  /* Gemma2Config: layer 0 sliding, 1 full, ... */
		for (i = 0; i < m->layers; i++)
			m->kind[i] = (i + 1) % 2 ? LLM_LAYER_SLIDING : LLM_LAYER_FULL;
		m->hybrid = 1;
	} else if (flags & D_GEMMA3) {  /* Gemma3TextConfig: every pattern-th full */
		pattern = 6;
		if ((rc = get_int(c, "sliding_window_pattern", 1, 1000, 0, &pattern)) < 0)
			return rc;
		for (i = 0; i < m->layers; i++)
			m->kind[i] = (i + 1) % pattern ? LLM_LAYER_SLIDING : LLM_LAYER_FULL;
		m->hybrid = 1;
	}
	return 0;
}

/*
 * Dense GQA families (F_DENSE, F_GEMMA). Gemma's defaults are
 * Gemma3TextConfig's (transformers, configuration_gemma3.py: vocab_size
 * 262208, 8 heads, 4 KV heads, head_dim 256, tied embeddings, sliding_window
 * 4096, sliding_window_pattern 6), which Gemma 3's wrapper configs rely on.
 */
static int parse_dense(const struct hfctx *c, int flags, struct llm_model *m)
{
	int rc, gemma = flags & (D_GEMMA2 | D_GEMMA3), sliding;
	if (gemma) {
		m->sliding_window = 4096;
		if ((rc = get_int(c, "sliding_window", 1, 1 << 30, 0, &m->sliding_window)) < 0)
			return rc;
	} else if ((rc = get_int(c, "sliding_window", 0, 1 << 30, 0, &m->sliding_window)) < 0) {
		return rc;
	}
	if ((rc = get_int(c, "intermediate_size", 1, 1 << 24, 1, &m->intermediate)) < 0 ||
	    (rc = get_bool(c, "attention_bias", &m->attn_bias)) < 0)
		return rc;
	if (flags & D_QKV_BIAS)
		m->attn_bias = 1;
	m->qk_norm = (flags & D_QK_NORM) != 0;
	if ((flags & D_MTP) &&
	    (rc = get_int(c, "num_nextn_predict_layers", 0, 64, 0, &m->mtp_layers)) < 0)
		return rc;
	if ((rc = layer_types(c, m)) < 0)
		return rc;
	sliding = rc == 0;
	if (!sliding && !(flags & D_ALL_SWA) && (rc = dense_swa(c, flags, m)) < 0)
		return rc;
	if (m->hybrid && !m->sliding_window) {
		for (rc = 0; rc < m->layers; rc++)
			if (m->kind[rc] == LLM_LAYER_SLIDING)
				return hf_fail(c, "layer_types", "sliding layers need a "
					       "'sliding_window'");
		m->hybrid = 0;
	}
	return 0;
}

/*
 * Llama 4 (Llama4TextConfig): MoE layers every interleave_moe_layer_step-th
 * (moe_layers), each with num_local_experts of intermediate_size and one
 * shared expert of the same size, dense layers of intermediate_size_mlp;
 * chunked attention over attention_chunk_size tokens on the RoPE layers,
 * full attention on the NoPE ones (every 4th: no_rope_layers, layer_types).
 * Its q/k norm (use_qk_norm) is an L2 norm without weights.
 */
static int parse_llama4(const struct hfctx *c, struct llm_model *m)
{
	const json_t *nr = json_object_get(c->cfg, "no_rope_layers");
	int rc, step = 1, i;
	if ((rc = moe(c, m, "num_local_experts", "intermediate_size")) < 0 ||
	    (rc = get_int(c, "intermediate_size_mlp", 1, 1 << 24, 1, &m->intermediate)) < 0 ||
	    (rc = get_int(c, "interleave_moe_layer_step", 1, 1000, 0, &step)) < 0 ||
	    (rc = get_int(c, "attention_chunk_size", 1, 1 << 30, 0, &m->attn_chunk)) < 0 ||
	    (rc = get_bool(c, "attention_bias", &m->attn_bias)) < 0)
		return rc;
	if (json_object_get(c->cfg, "moe_layers") && !json_is_null(json_object_get(c->cfg, "moe_layers")))
		return hf_fail(c, "moe_layers", "%s: an explicit 'moe_layers' list is not "
			       "modelled (interleave_moe_layer_step is)", c->arch);
	m->dense_layers = 0;
	m->moe_step = step;
	m->shared_experts = 1;
	if ((rc = layer_types(c, m)) < 0)
		return rc;
	if (rc > 0 && m->attn_chunk) {
		if (nr && json_is_array(nr) && json_array_size(nr) == (size_t)m->layers) {
			for (i = 0; i < m->layers; i++)
				m->kind[i] = json_integer_value(json_array_get(nr, i)) ?
					     LLM_LAYER_CHUNKED : LLM_LAYER_FULL;
		} else if (nr && json_is_array(nr) && json_array_size(nr)) {
			return hf_fail(c, "no_rope_layers", "'no_rope_layers' must list the %d "
				       "layers", m->layers);
		} else {
			for (i = 0; i < m->layers; i++)
				m->kind[i] = (i + 1) % 4 ? LLM_LAYER_CHUNKED : LLM_LAYER_FULL;
		}
		m->hybrid = 1;
	}
	for (i = 0; m->hybrid && i < m->layers; i++)
		if (m->kind[i] == LLM_LAYER_CHUNKED && !m->attn_chunk)
			return hf_fail(c, "layer_types", "chunked layers need 'attention_chunk_size'");
	return 0;
}

/*
 * ChatGLM (THUDM's ChatGLMConfig, configuration_chatglm.py; GLM-4-9B and
 * ChatGLM2/3): Megatron key names. num_layers layers (transformers' dump
 * adds num_hidden_layers, the same number), padded_vocab_size rows in the
 * embedding and the output layer, kv_channels per head, multi_query_group_num
 * KV heads when multi_query_attention, a SwiGLU MLP of ffn_hidden_size, biases
 * on q, k and v only (add_qkv_bias). Its defaults are ChatGLMConfig's
 * (ChatGLM-6B's: 28 layers, 65024 rows, no grouped KV heads, no biases).
 * Biases on every linear (add_bias_linear) and LayerNorm instead of RMSNorm
 * change the op list: refused.
 */
static int parse_chatglm(const struct hfctx *c, struct llm_model *m)
{
	int rc, mqa = 0, bias_linear = 0, rms = 1;
	m->layers = 28;
	m->vocab = 65024;
	m->hidden = 4096;
	m->heads = 32;
	m->intermediate = 13696;
	m->head_dim = 0;
	if ((rc = get_int(c, "num_layers", 1, 100000, 0, &m->layers)) < 0 ||
	    (rc = get_int(c, "padded_vocab_size", 1, 1 << 26, 0, &m->vocab)) < 0 ||
	    (rc = get_int(c, "hidden_size", 1, 1 << 20, 0, &m->hidden)) < 0 ||
	    (rc = get_int(c, "num_attention_heads", 1, 4096, 0, &m->heads)) < 0 ||
	    (rc = get_int(c, "ffn_hidden_size", 1, 1 << 24, 0, &m->intermediate)) < 0 ||
	    (rc = get_int(c, "kv_channels", 1, 4096, 0, &m->head_dim)) < 0 ||
	    (rc = get_bool(c, "multi_query_attention", &mqa)) < 0 ||
	    (rc = get_bool(c, "add_qkv_bias", &m->attn_bias)) < 0 ||
	    (rc = get_bool(c, "add_bias_linear", &bias_linear)) < 0 ||
	    (rc = get_bool(c, "rmsnorm", &rms)) < 0 ||
	    (rc = get_bool(c, "tie_word_embeddings", &m->tie_embeddings)) < 0)
		return rc;
	if (json_object_get(c->cfg, "num_hidden_layers")) {
		int n = m->layers;
		if ((rc = get_int(c, "num_hidden_layers", 1, 100000, 1, &n)) < 0)
			return rc;
		if (n != m->layers)
			return hf_fail(c, "num_hidden_layers", "num_hidden_layers (%d) and "
				       "num_layers (%d) differ", n, m->layers);
	}
	if (!m->head_dim)
		m->head_dim = m->hidden / m->heads;
	m->kv_heads = m->heads;
	if (mqa) {
		m->kv_heads = 1;
		if ((rc = get_int(c, "multi_query_group_num", 1, 4096, 0, &m->kv_heads)) < 0)
			return rc;
	}
	if (bias_linear)
		return hf_fail(c, "add_bias_linear", "%s: biases on every linear layer "
			       "(add_bias_linear) are not modelled", c->arch);
	if (!rms)
		return hf_fail(c, "rmsnorm", "%s: LayerNorm (rmsnorm false) is not modelled",
			       c->arch);
	m->attn = LLM_ATTN_GQA;
	m->dense_layers = m->layers;
	return 0;
}

static int parse_family(const struct hfctx *c, int fi, const char *type, struct llm_model *m)
{
	enum family f = families[fi].f;
	int rc, freq = 1, interval = 0, i, use_mtp = 0;
	if (f == F_GEMMA) {     /* Gemma3TextConfig's defaults (parse_dense) */
		m->vocab = 262208;
		m->heads = 8;
		m->kv_heads = 4;
		m->head_dim = 256;
		m->tie_embeddings = 1;
	}
	if (f == F_CHATGLM) {
		if ((rc = parse_chatglm(c, m)) < 0)
			return rc;
		goto check;
	}
	if ((rc = common(c, m, f == F_GEMMA)) < 0)
		return rc;
	m->attn = LLM_ATTN_GQA;
	m->dense_layers = m->layers;
	switch (f) {
	case F_MLA:
		m->attn = LLM_ATTN_MLA;
		if ((rc = get_int(c, "q_lora_rank", 0, 1 << 20, 0, &m->q_lora)) < 0 ||
		    (rc = get_int(c, "kv_lora_rank", 1, 1 << 20, 1, &m->kv_lora)) < 0 ||
		    (rc = get_int(c, "qk_rope_head_dim", 0, 4096, 1, &m->qk_rope)) < 0 ||
		    (rc = get_int(c, "qk_nope_head_dim", 1, 4096, 1, &m->qk_nope)) < 0 ||
		    (rc = get_int(c, "v_head_dim", 1, 4096, 1, &m->v_head)) < 0 ||
		    (rc = moe(c, m, "n_routed_experts", "moe_intermediate_size")) < 0 ||
		    (rc = get_int(c, "n_shared_experts", 0, 64, 0, &m->shared_experts)) < 0 ||
		    (rc = get_int(c, "first_k_dense_replace", 0, m->layers, 0, &m->dense_layers)) < 0 ||
		    (rc = get_int(c, "moe_layer_freq", 1, 1000, 0, &freq)) < 0 ||
		    (rc = get_int(c, "num_nextn_predict_layers", 0, 64, 0, &m->mtp_layers)) < 0)
			return rc;
		if (!json_object_get(c->cfg, "first_k_dense_replace"))
			m->dense_layers = 0;
		if ((rc = noaux_groups(c, m, 0)) < 0)
			return rc;
		if (freq != 1)
			return hf_fail(c, "moe_layer_freq", "%s: moe_layer_freq %d (MoE every %d "
				    "layers) is not modelled", c->arch, freq, freq);
		m->kv_heads = 1;
		m->head_dim = m->qk_nope + m->qk_rope;
		if (!strcmp(type, "glm_moe_dsa") || !strcmp(type, "deepseek_v32")) {
			if ((rc = get_int(c, "index_topk", 1, 1 << 30, 1, &m->index_topk)) < 0 ||
			    (rc = get_int(c, "index_n_heads", 1, 4096, 1, &m->index_heads)) < 0 ||
			    (rc = get_int(c, "index_head_dim", 1, 4096, 1, &m->index_head_dim)) < 0)
				return rc;
		}
		break;
	case F_GLM4:
		if ((rc = moe(c, m, "n_routed_experts", "moe_intermediate_size")) < 0 ||
		    (rc = get_int(c, "n_shared_experts", 0, 64, 0, &m->shared_experts)) < 0 ||
		    (rc = get_int(c, "first_k_dense_replace", 0, m->layers, 1, &m->dense_layers)) < 0 ||
		    (rc = get_int(c, "num_nextn_predict_layers", 0, 64, 0, &m->mtp_layers)) < 0 ||
		    (rc = get_bool(c, "attention_bias", &m->attn_bias)) < 0 ||
		    (rc = get_bool(c, "use_qk_norm", &m->qk_norm)) < 0 ||
		    (rc = noaux_groups(c, m, 1)) < 0)
			return rc;
		break;
	case F_QWEN3MOE:
		if ((rc = moe(c, m, "num_experts", "moe_intermediate_size")) < 0 ||
		    (rc = qwen_every_layer_moe(c)) < 0 ||
		    (rc = get_bool(c, "attention_bias", &m->attn_bias)) < 0)
			return rc;
		m->dense_layers = 0;
		m->qk_norm = 1;
		break;
	case F_QWEN3NEXT:
		if (!strncmp(type, "qwen3_5", 7) && strncmp(type, "qwen3_5_moe", 11)) { /* the dense Qwen3.5: no experts */
			if ((rc = get_int(c, "intermediate_size", 1, 1 << 24, 1,
					  &m->intermediate)) < 0)
				return rc;
		} else if ((rc = moe(c, m, "num_experts", "moe_intermediate_size")) < 0 ||
			   (rc = qwen_every_layer_moe(c)) < 0) {
			return rc;
		}
		if ((rc = get_int(c, "shared_expert_intermediate_size", 0, 1 << 24, 0,
				  &m->shared_intermediate)) < 0 ||
		    (rc = get_int(c, "linear_num_key_heads", 1, 4096, 1, &m->lin_k_heads)) < 0 ||
		    (rc = get_int(c, "linear_num_value_heads", 1, 4096, 1, &m->lin_v_heads)) < 0 ||
		    (rc = get_int(c, "linear_key_head_dim", 1, 4096, 1, &m->lin_k_dim)) < 0 ||
		    (rc = get_int(c, "linear_value_head_dim", 1, 4096, 1, &m->lin_v_dim)) < 0 ||
		    (rc = get_int(c, "linear_conv_kernel_dim", 1, 64, 1, &m->lin_conv)) < 0)
			return rc;
		m->dense_layers = m->experts ? 0 : m->layers;
		m->shared_experts = m->experts && m->shared_intermediate > 0;
		m->shared_gate = m->shared_experts;
		m->attn_gate = 1;
		m->qk_norm = 1;
		if ((rc = layer_types(c, m)) < 0)
			return rc;
		if (rc > 0) {   /* no layer_types: every interval-th layer is full */
			if ((rc = get_int(c, "full_attention_interval", 1, 1000, 1, &interval)) < 0)
				return rc;
			for (i = 0; i < m->layers; i++)
				m->kind[i] = (i + 1) % interval ? LLM_LAYER_LINEAR : LLM_LAYER_FULL;
			m->hybrid = 1;
		}
		break;
	case F_GPTOSS:
		if ((rc = moe(c, m, "num_local_experts", "intermediate_size")) < 0 ||
		    (rc = get_int(c, "sliding_window", 1, 1 << 30, 1, &m->sliding_window)) < 0 ||
		    (rc = get_bool(c, "attention_bias", &m->attn_bias)) < 0)
			return rc;
		if ((rc = layer_types(c, m)) < 0)
			return rc;
		if (rc > 0)
			return hf_fail(c, NULL, "%s config has no 'layer_types'", c->arch);
		m->dense_layers = 0;
		m->attn_obias = m->attn_bias;
		m->attn_sinks = 1;
		m->router_bias = m->expert_bias = 1;
		break;
	case F_MIXTRAL:
		if ((rc = moe(c, m, "num_local_experts", "intermediate_size")) < 0 ||
		    (rc = get_int(c, "sliding_window", 0, 1 << 30, 0, &m->sliding_window)) < 0)
			return rc;
		m->dense_layers = 0;
		break;
	case F_LLAMA:
		if ((rc = get_int(c, "intermediate_size", 1, 1 << 24, 1, &m->intermediate)) < 0 ||
		    (rc = get_bool(c, "attention_bias", &m->attn_bias)) < 0)
			return rc;
		break;
	case F_DENSE:
	case F_GEMMA:
		if ((rc = parse_dense(c, families[fi].flags, m)) < 0)
			return rc;
		break;
	case F_LLAMA4:
		if ((rc = parse_llama4(c, m)) < 0)
			return rc;
		break;
	case F_MINIMAX:
		/* MiniMax-M2: every layer MoE (num_local_experts of
		 * intermediate_size), q/k norms over the whole projection
		 * (qk_norm_type per_layer), a shared expert when
		 * shared_intermediate_size > 0, use_mtp modules */
		if ((rc = moe(c, m, "num_local_experts", "intermediate_size")) < 0 ||
		    (rc = get_int(c, "shared_intermediate_size", 0, 1 << 24, 0,
				  &m->shared_intermediate)) < 0 ||
		    (rc = get_bool(c, "use_qk_norm", &m->qk_norm)) < 0 ||
		    (rc = get_bool(c, "use_mtp", &use_mtp)) < 0 ||
		    (use_mtp && (rc = get_int(c, "num_mtp_modules", 0, 64, 0, &m->mtp_layers)) < 0) ||
		    (rc = get_int(c, "sliding_window", 0, 1 << 30, 0, &m->sliding_window)) < 0)
			return rc;
		m->dense_layers = 0;
		m->shared_experts = m->shared_intermediate > 0;
		m->intermediate = 0;
		break;
	case F_CHATGLM:         /* parsed above */
		break;
	}
	if (m->sliding_window > 0 && !m->hybrid) {      /* Mistral-style: every layer */
		if (m->layers > LLM_MAX_LAYERS)
			return hf_fail(c, "sliding_window", "at most %d layers with a sliding window",
				    LLM_MAX_LAYERS);
		for (i = 0; i < m->layers; i++)
			m->kind[i] = LLM_LAYER_SLIDING;
		m->hybrid = 1;
	}
	if (!m->intermediate)
		m->intermediate = m->moe_intermediate;
check:
	if (m->attn == LLM_ATTN_GQA && m->heads % m->kv_heads)
		return hf_fail(c, "num_key_value_heads", "num_attention_heads (%d) must be a "
			    "multiple of num_key_value_heads (%d)", m->heads, m->kv_heads);
	return 0;
}


int hf_parse_arch(const struct hfctx *c, int i, const char *type, struct llm_model *m)
{
	return parse_family(c, i, type, m);
}
