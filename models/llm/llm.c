/*
 * llm.c - the model catalog (scenarios/catalog/models.yaml, compiled in),
 * weight formats and how a checkpoint of each format stores its weights.
 * The decode-step ops are in llm_step.c.
 */
#include "llm.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "datadir.h"
#include "hfconfig.h"
#include "input.h"
#include "ytree.h"

extern const char llm_catalog_models_yaml[];

static const char *const model_keys[] = {
	"id", "name", "layers", "dense_layers", "hidden", "intermediate", "vocab",
	"tie_embeddings", "attention", "indexer", "moe", "mtp_layers", "sliding_window",
	"layer_pattern", "linear_attention", "source", NULL
};
static const char *const gqa_keys[] = {
	"kind", "heads", "kv_heads", "head_dim", "bias", "out_bias", "gate", "sinks", "qk_norm",
	NULL
};
static const char *const layer_kinds[] = { "full", "sliding", "linear", NULL };
static const char *const linear_keys[] = { "k_heads", "v_heads", "k_dim", "v_dim", "conv", NULL };
static const char *const moe_flags[] = { "shared_gate", "router_bias", "expert_bias", NULL };
static const char *const mla_keys[] = {
	"kind", "heads", "q_lora", "kv_lora", "qk_rope", "qk_nope", "v_head", NULL
};
static const char *const attn_kinds[] = { "gqa", "mla", NULL };
static const char *const indexer_keys[] = { "topk", "heads", "head_dim", NULL };
static const char *const moe_keys[] = {
	"experts", "top_k", "shared", "intermediate", "shared_intermediate", "shared_gate",
	"router_bias", "expert_bias", "groups", NULL
};

/* Boolean fields keys[] of map n into out[] (absent: unchanged). */
static int get_bools(const struct ytree *t, const struct ynode *n, const char *const *keys,
		     int *const *out, struct plumb_err *err)
{
	struct ynode *v;
	int i, rc;
	for (i = 0; keys[i]; i++)
		if ((v = ymap_get(n, keys[i])) &&
		    (rc = yget_bool(t, v, keys[i], out[i], err)) < 0)
			return rc;
	return 0;
}

/* Integer field `key` of map n into *out, within [lo, hi]; required or not. */
static int get_int(const struct ytree *t, const struct ynode *n, const char *what,
		   const char *key, long lo, long hi, int required, int *out,
		   struct plumb_err *err)
{
	struct ynode *v = ymap_get(n, key);
	long l;
	int rc;
	if (!v) {
		if (required)
			return yerr(t, n, PLUMB_EINPUT, err, "%s needs '%s'", what, key);
		return 0;
	}
	if ((rc = yget_int(t, v, key, lo, hi, &l, err)) < 0)
		return rc;
	*out = (int)l;
	return 0;
}

static int parse_attention(const struct ytree *t, const struct ynode *n,
			   struct llm_model *m, struct plumb_err *err)
{
	struct ynode *v;
	int rc, kind;

	if ((rc = yexpect(t, n, Y_MAP, "attention", err)) < 0)
		return rc;
	if (!(v = ymap_get(n, "kind")))
		return yerr(t, n, PLUMB_EINPUT, err, "attention needs 'kind' (gqa or mla)");
	if ((rc = yget_enum(t, v, "attention kind", attn_kinds, &kind, err)) < 0)
		return rc;
	m->attn = kind ? LLM_ATTN_MLA : LLM_ATTN_GQA;
	if (m->attn == LLM_ATTN_GQA) {
		if ((rc = ymap_check_keys(t, n, "gqa attention", gqa_keys, err)) < 0 ||
		    (rc = get_int(t, n, "gqa attention", "heads", 1, 4096, 1, &m->heads, err)) < 0 ||
		    (rc = get_int(t, n, "gqa attention", "kv_heads", 1, 4096, 1,
				  &m->kv_heads, err)) < 0 ||
		    (rc = get_int(t, n, "gqa attention", "head_dim", 1, 4096, 1,
				  &m->head_dim, err)) < 0)
			return rc;
		if (m->heads % m->kv_heads)
			return yerr(t, ymap_get(n, "kv_heads"), PLUMB_EINPUT, err,
				    "heads (%d) must be a multiple of kv_heads (%d)",
				    m->heads, m->kv_heads);
		{
			int *const flags[] = { &m->attn_bias, &m->attn_obias, &m->attn_gate,
					       &m->attn_sinks, &m->qk_norm };
			return get_bools(t, n, gqa_keys + 4, flags, err);
		}
	}
	if ((rc = ymap_check_keys(t, n, "mla attention", mla_keys, err)) < 0 ||
	    (rc = get_int(t, n, "mla attention", "heads", 1, 4096, 1, &m->heads, err)) < 0 ||
	    (rc = get_int(t, n, "mla attention", "q_lora", 0, 1 << 20, 0, &m->q_lora, err)) < 0 ||
	    (rc = get_int(t, n, "mla attention", "kv_lora", 1, 1 << 20, 1, &m->kv_lora, err)) < 0 ||
	    (rc = get_int(t, n, "mla attention", "qk_rope", 0, 4096, 1, &m->qk_rope, err)) < 0 ||
	    (rc = get_int(t, n, "mla attention", "qk_nope", 1, 4096, 1, &m->qk_nope, err)) < 0 ||
	    (rc = get_int(t, n, "mla attention", "v_head", 1, 4096, 1, &m->v_head, err)) < 0)
		return rc;
	m->kv_heads = 1;        /* one latent vector per token */
	m->head_dim = m->qk_nope + m->qk_rope;
	return 0;
}

/*
 * Hybrid layers: `layer_pattern` (kinds repeated over the layers: [sliding,
 * full] alternates, [linear, linear, linear, full] is Qwen3-Next), with
 * `sliding_window` for sliding layers and `linear_attention` for linear ones.
 */
static int parse_layers(const struct ytree *t, const struct ynode *n, struct llm_model *m,
			struct plumb_err *err)
{
	struct ynode *v;
	int rc, k, l, have[3] = { 0, 0, 0 };
	size_t i;
	if ((rc = get_int(t, n, "models entry", "sliding_window", 1, 1 << 30, 0,
			  &m->sliding_window, err)) < 0)
		return rc;
	if ((v = ymap_get(n, "linear_attention"))) {
		if ((rc = yexpect(t, v, Y_MAP, "linear_attention", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "linear_attention", linear_keys, err)) < 0 ||
		    (rc = get_int(t, v, "linear_attention", "k_heads", 1, 4096, 1, &m->lin_k_heads, err)) < 0 ||
		    (rc = get_int(t, v, "linear_attention", "v_heads", 1, 4096, 1, &m->lin_v_heads, err)) < 0 ||
		    (rc = get_int(t, v, "linear_attention", "k_dim", 1, 4096, 1, &m->lin_k_dim, err)) < 0 ||
		    (rc = get_int(t, v, "linear_attention", "v_dim", 1, 4096, 1, &m->lin_v_dim, err)) < 0 ||
		    (rc = get_int(t, v, "linear_attention", "conv", 1, 64, 1, &m->lin_conv, err)) < 0)
			return rc;
	}
	if (!(v = ymap_get(n, "layer_pattern")))
		return m->sliding_window || m->lin_k_heads
		       ? yerr(t, n, PLUMB_EINPUT, err, "sliding_window and linear_attention "
			      "need 'layer_pattern'") : 0;
	if ((rc = yexpect(t, v, Y_SEQ, "layer_pattern", err)) < 0)
		return rc;
	if (!v->n || m->layers > LLM_MAX_LAYERS)
		return yerr(t, v, PLUMB_EINPUT, err, "layer_pattern needs 1 or more kinds and "
			    "at most %d layers", LLM_MAX_LAYERS);
	for (i = 0; i < v->n; i++) {
		if ((rc = yget_enum(t, v->vals[i], "layer kind", layer_kinds, &k, err)) < 0)
			return rc;
		have[k] = 1;
		for (l = (int)i; l < m->layers; l += (int)v->n)
			m->kind[l] = (unsigned char)k;
	}
	if (have[LLM_LAYER_SLIDING] && !m->sliding_window)
		return yerr(t, v, PLUMB_EINPUT, err, "sliding layers need 'sliding_window'");
	if (have[LLM_LAYER_LINEAR] && !m->lin_k_heads)
		return yerr(t, v, PLUMB_EINPUT, err, "linear layers need 'linear_attention'");
	m->hybrid = 1;
	return 0;
}

static int parse_model(const struct ytree *t, const struct ynode *n,
		       struct llm_model *m, struct plumb_err *err)
{
	struct ynode *v;
	int rc;

	if ((rc = yexpect(t, n, Y_MAP, "models entry", err)) < 0 ||
	    (rc = ymap_check_keys(t, n, "models entry", model_keys, err)) < 0)
		return rc;
	memset(m, 0, sizeof(*m));
	m->line = n->line;
	m->col = n->col;
	if (!(v = ymap_get(n, "id")))
		return yerr(t, n, PLUMB_EINPUT, err, "models entry needs 'id'");
	if ((rc = yget_str(t, v, "id", m->id, sizeof(m->id), err)) < 0)
		return rc;
	if ((v = ymap_get(n, "name")) &&
	    (rc = yget_str(t, v, "name", m->name, sizeof(m->name), err)) < 0)
		return rc;
	if (!(v = ymap_get(n, "source")))
		return yerr(t, n, PLUMB_EINPUT, err, "model '%s' needs 'source'", m->id);
	if ((rc = yexpect(t, v, Y_SCALAR, "source", err)) < 0)
		return rc;
	if (!(m->source = plumb_keep_path(v->str)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = get_int(t, n, "models entry", "layers", 1, 100000, 1, &m->layers, err)) < 0 ||
	    (rc = get_int(t, n, "models entry", "hidden", 1, 1 << 20, 1, &m->hidden, err)) < 0 ||
	    (rc = get_int(t, n, "models entry", "intermediate", 1, 1 << 24, 1,
			  &m->intermediate, err)) < 0 ||
	    (rc = get_int(t, n, "models entry", "vocab", 1, 1 << 26, 1, &m->vocab, err)) < 0 ||
	    (rc = get_int(t, n, "models entry", "mtp_layers", 0, 64, 0, &m->mtp_layers, err)) < 0)
		return rc;
	if ((v = ymap_get(n, "tie_embeddings")) &&
	    (rc = yget_bool(t, v, "tie_embeddings", &m->tie_embeddings, err)) < 0)
		return rc;
	if (!(v = ymap_get(n, "attention")))
		return yerr(t, n, PLUMB_EINPUT, err, "model '%s' needs 'attention'", m->id);
	if ((rc = parse_attention(t, v, m, err)) < 0)
		return rc;
	if ((v = ymap_get(n, "indexer"))) {
		if ((rc = yexpect(t, v, Y_MAP, "indexer", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "indexer", indexer_keys, err)) < 0 ||
		    (rc = get_int(t, v, "indexer", "topk", 1, 1 << 30, 1, &m->index_topk, err)) < 0 ||
		    (rc = get_int(t, v, "indexer", "heads", 1, 4096, 1, &m->index_heads, err)) < 0 ||
		    (rc = get_int(t, v, "indexer", "head_dim", 1, 4096, 1,
				  &m->index_head_dim, err)) < 0)
			return rc;
	}
	m->dense_layers = m->layers;
	if ((v = ymap_get(n, "moe"))) {
		if ((rc = yexpect(t, v, Y_MAP, "moe", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "moe", moe_keys, err)) < 0 ||
		    (rc = get_int(t, v, "moe", "experts", 1, 1 << 20, 1, &m->experts, err)) < 0 ||
		    (rc = get_int(t, v, "moe", "top_k", 1, 1 << 20, 1, &m->top_k, err)) < 0 ||
		    (rc = get_int(t, v, "moe", "shared", 0, 64, 0, &m->shared_experts, err)) < 0 ||
		    (rc = get_int(t, v, "moe", "intermediate", 1, 1 << 24, 1,
				  &m->moe_intermediate, err)) < 0 ||
		    (rc = get_int(t, v, "moe", "shared_intermediate", 1, 1 << 24, 0,
				  &m->shared_intermediate, err)) < 0 ||
		    (rc = get_int(t, v, "moe", "groups", 1, 1 << 20, 0, &m->route_groups, err)) < 0)
			return rc;
		if (m->route_groups && m->experts % m->route_groups)
			return yerr(t, ymap_get(v, "groups"), PLUMB_EINPUT, err,
				    "groups (%d) does not divide experts (%d)", m->route_groups,
				    m->experts);
		{
			int *const flags[] = { &m->shared_gate, &m->router_bias, &m->expert_bias };
			if ((rc = get_bools(t, v, moe_flags, flags, err)) < 0)
				return rc;
		}
		if (m->top_k > m->experts)
			return yerr(t, ymap_get(v, "top_k"), PLUMB_EINPUT, err,
				    "top_k (%d) is more than experts (%d)", m->top_k, m->experts);
		m->dense_layers = 0;
	}
	if ((v = ymap_get(n, "dense_layers"))) {
		if (!m->experts)
			return yerr(t, v, PLUMB_EINPUT, err,
				    "'dense_layers' needs 'moe' (without it every layer is dense)");
		if ((rc = get_int(t, n, "models entry", "dense_layers", 0, m->layers, 0,
				  &m->dense_layers, err)) < 0)
			return rc;
	}
	if (m->attn == LLM_ATTN_GQA && m->index_topk)
		return yerr(t, ymap_get(n, "indexer"), PLUMB_EINPUT, err,
			    "an indexer needs mla attention");
	return parse_layers(t, n, m, err);
}

int llm_catalog_parse(const char *file, const char *text, struct llm_catalog **out,
		      struct plumb_err *err)
{
	static const char *const top_keys[] = { "catalog", "models", NULL };
	struct ytree *t = NULL;
	struct llm_catalog *c;
	struct ynode *models;
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = ytree_parse(file, text, strlen(text), &t, err)) < 0)
		return rc;
	c = calloc(1, sizeof(*c));
	if (!c) {
		ytree_free(t);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if (!t->root) {
		rc = plumb_err_set(err, PLUMB_EINPUT, file, 1, 1, "empty model catalog");
		goto fail;
	}
	if ((rc = yexpect(t, t->root, Y_MAP, "model catalog", err)) < 0 ||
	    (rc = ymap_check_keys(t, t->root, "model catalog", top_keys, err)) < 0)
		goto fail;
	if (!(models = ymap_get(t->root, "models"))) {
		rc = yerr(t, t->root, PLUMB_EINPUT, err, "model catalog needs 'models'");
		goto fail;
	}
	if ((rc = yexpect(t, models, Y_SEQ, "models", err)) < 0)
		goto fail;
	if (models->n > LLM_MAX_MODELS) {
		rc = yerr(t, models, PLUMB_EINPUT, err, "at most %d models", LLM_MAX_MODELS);
		goto fail;
	}
	for (i = 0; i < models->n; i++) {
		if ((rc = parse_model(t, models->vals[i], &c->models[i], err)) < 0)
			goto fail;
		if (llm_catalog_find(c, c->models[i].id) >= 0) {
			rc = yerr(t, models->vals[i], PLUMB_EINPUT, err,
				  "duplicate model id '%s'", c->models[i].id);
			goto fail;
		}
		c->n = (int)i + 1;
	}
	ytree_free(t);
	*out = c;
	return 0;
fail:
	ytree_free(t);
	free(c);
	return rc;
}

const struct llm_catalog *llm_catalog_builtin(struct plumb_err *err)
{
	/* Parsed once, read-only afterwards (as scn_catalog_builtin); the
	 * first call may come from several threads at once (a run's points). */
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static struct llm_catalog *builtin;
	struct llm_catalog *c;
	pthread_mutex_lock(&mu);
	if (!builtin &&
	    llm_catalog_parse("scenarios/catalog/models.yaml", llm_catalog_models_yaml,
			      &builtin, err) < 0)
		builtin = NULL;
	c = builtin;
	pthread_mutex_unlock(&mu);
	return c;
}

int llm_catalog_find(const struct llm_catalog *c, const char *id)
{
	int i;
	for (i = 0; i < c->n; i++)
		if (strcasecmp(c->models[i].id, id) == 0)  /* GLM-5 is glm-5 */
			return i;
	return -1;
}

int llm_model_lookup(const struct llm_catalog *c, const char *id,
		     const struct llm_model **out, struct plumb_err *err)
{
	const char *best = NULL;
	char known[512] = "";
	int i, d, bd = 1 << 30;
	size_t len = 0;

	*out = NULL;
	if ((i = llm_catalog_find(c, id)) >= 0) {
		*out = &c->models[i];
		return 0;
	}
	for (i = 0; i < c->n; i++) {
		d = str_distance(id, c->models[i].id);
		if (d < bd) {
			bd = d;
			best = c->models[i].id;
		}
		if (len + strlen(c->models[i].id) + 3 < sizeof(known)) {
			if (len)
				strcat(known, ", ");
			strcat(known, c->models[i].id);
			len = strlen(known);
		}
	}
	if (best && bd <= 1 + (int)strlen(best) / 3)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "unknown model '%s' (did you mean '%s'?)", id, best);
	return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
			     "unknown model '%s' (known: %s)", id, known);
}

const char *llm_dtype_name(enum llm_dtype d)
{
	static const char *const names[LLM_NDTYPES] = {
		"bf16", "fp8", "nvfp4", "fp8t", "mxfp4", "int4"
	};
	return (unsigned)d < LLM_NDTYPES ? names[d] : "?";
}

int llm_dtype_parse(const char *name, enum llm_dtype *out)
{
	int d;
	if (strcmp(name, "fp4") == 0) {
		*out = LLM_NVFP4;
		return 0;
	}
	for (d = 0; d < LLM_NDTYPES; d++)
		if (strcmp(name, llm_dtype_name((enum llm_dtype)d)) == 0) {
			*out = (enum llm_dtype)d;
			return 0;
		}
	return -1;
}

double llm_dtype_bits(enum llm_dtype d)
{
	switch (d) {
	case LLM_BF16:
		return 16.0;
	case LLM_FP8:
		/*
		 * FP8 E4M3 with one fp32 scale per 128 x 128 block, the
		 * DeepSeek-V3 checkpoint format (config.json quantization_config
		 * weight_block_size [128, 128]): 8 + 32 / 16384 bits. (MXFP8,
		 * one 8-bit scale per 32 values, would be 8.25.)
		 */
		return 8.0 + 32.0 / (128.0 * 128.0);
	case LLM_NVFP4:
		/*
		 * NVFP4: 4-bit E2M1 values, one FP8 E4M3 scale per 16 (DESIGN.md:
		 * about 4.5 bits with scales); the per-tensor fp32 scale is
		 * negligible.
		 */
		return 4.0 + 8.0 / 16.0;
	case LLM_FP8T:
		/* one fp32 scale per tensor (or per output channel): negligible */
		return 8.0;
	case LLM_MXFP4:
		/* OCP MXFP4: E2M1 values, one E8M0 scale per 32 */
		return 4.0 + 8.0 / 32.0;
	case LLM_INT4:
		/* group 128, one 16-bit scale per group (llm_prec_bits for others) */
		return 4.0 + 16.0 / 128.0;
	case LLM_NDTYPES:
		break;
	}
	return 16.0;
}

double llm_prec_bits(const struct llm_prec *p, enum llm_dtype d)
{
	int g;
	if (d != LLM_INT4)
		return llm_dtype_bits(d);
	/* a bf16/fp16 scale per group, with zero points a 4-bit zero too; group
	 * 0 means per output channel (scales negligible) */
	g = p->group;
	if (g <= 0)
		return 4.0;
	return 4.0 + (16.0 + (p->zero ? 4.0 : 0.0)) / g;
}

int llm_prec_init(struct llm_prec *p, const struct llm_model *m,
		  enum llm_dtype weights, enum llm_dtype kv, struct plumb_err *err)
{
	if (kv != LLM_BF16 && kv != LLM_FP8)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "KV cache dtype must be bf16 or fp8, not %s",
				     llm_dtype_name(kv));
	p->kv = kv;
	p->dsa_dense = 0;
	p->moe_trtllm_gen = p->attn_trtllm_gen = p->ar_norm_fused = 0;
	p->moe_runner = LLM_MOE_FUSED;
	p->moe_skew = 0;
	p->router_unfused = 0;
	p->embed = LLM_BF16;
	p->experts = weights;
	p->linear = weights;
	p->group = 128;
	p->zero = 0;
	/*
	 * NVFP4 MoE checkpoints quantize the experts only: for GLM-5 that is
	 * what reproduces the published ~440 GB (docs/model-decode.md). MXFP4
	 * checkpoints (gpt-oss) do the same.
	 */
	if ((weights == LLM_NVFP4 || weights == LLM_MXFP4) && m->experts)
		p->linear = LLM_BF16;
	p->shared = p->experts;
	p->dense = p->linear;
	return 0;
}

int llm_prec_setup(struct llm_prec *p, const struct llm_model *m, const char *weights,
		   const char *kv, struct plumb_err *err)
{
	enum llm_dtype w = LLM_NVFP4, k;
	int rc, group = 0;
	char *end;
	if (llm_dtype_parse(kv, &k) < 0 || (k != LLM_BF16 && k != LLM_FP8))
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "unknown --kv '%s' (bf16 or fp8)", kv);
	if (!strcmp(weights, "checkpoint")) {
		if (!m->ckpt.set)
			return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
					     "--weights checkpoint: %s is a catalog model with no "
					     "checkpoint format (give bf16, fp8, fp8t, nvfp4, mxfp4 "
					     "or int4)", m->id);
	} else if (!strncmp(weights, "int4-g", 6)) {
		group = (int)strtol(weights + 6, &end, 10);
		if (*end || group < 8 || group > 4096)
			return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
					     "--weights %s: int4-gN needs a group size N of 8-4096",
					     weights);
		w = LLM_INT4;
	} else if (llm_dtype_parse(weights, &w) < 0) {
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "unknown --weights '%s' (bf16, fp8, fp8t, nvfp4, mxfp4, "
				     "int4, int4-gN or checkpoint)", weights);
	}
	if ((rc = llm_prec_init(p, m, w, k, err)) < 0)
		return rc;
	if (group)
		p->group = group;
	if (!strcmp(weights, "checkpoint")) {
		p->linear = m->ckpt.attn;
		p->dense = m->ckpt.dense;
		p->shared = m->ckpt.shared;
		p->experts = m->ckpt.experts;
		p->group = m->ckpt.group;
		p->zero = m->ckpt.zero;
	}
	return 0;
}

int llm_weights_check(const char *name)
{
	struct llm_model m;
	struct llm_prec p;
	memset(&m, 0, sizeof(m));
	m.ckpt.set = 1;
	return llm_prec_setup(&p, &m, name, "bf16", NULL) < 0 ? -1 : 0;
}

enum llm_layer_kind llm_layer_kind(const struct llm_model *m, int l)
{
	if (!m->hybrid || l < 0 || l >= m->layers || l >= LLM_MAX_LAYERS)
		return LLM_LAYER_FULL;
	return (enum llm_layer_kind)m->kind[l];
}

int llm_layer_is_moe(const struct llm_model *m, int l)
{
	if (!m->experts || l < m->dense_layers)
		return 0;
	if (m->moe_step <= 1 || l >= m->layers)
		return 1;
	return (l - m->dense_layers + 1) % m->moe_step == 0;
}

void llm_params(const struct llm_model *m, double *total, double *active)
{
	struct llm_prec p;
	double t, per, moe_layers = 0, emb;
	int l;
	llm_prec_init(&p, m, LLM_BF16, LLM_BF16, NULL);
	t = llm_bytes_weights_total(m, &p, 0) / 2.0;
	per = 3.0 * m->hidden * m->moe_intermediate +
	      (m->expert_bias ? 2.0 * m->moe_intermediate + m->hidden : 0);
	for (l = 0; l < m->layers; l++)
		moe_layers += llm_layer_is_moe(m, l);
	if (total)
		*total = t;
	if (!active)
		return;
	*active = t - moe_layers * (m->experts - m->top_k) * per;
	/* a tied table is the lm_head: "without the input embedding" keeps it */
	emb = (double)m->vocab * m->hidden;
	if (m->count == LLM_COUNT_NO_EMBED && !m->tie_embeddings)
		*active -= emb;
	else if (m->count == LLM_COUNT_NO_EMBED_HEAD)
		*active -= m->tie_embeddings ? emb : 2.0 * emb;
}

const char *llm_count_name(int count)
{
	switch (count) {
	case LLM_COUNT_NO_EMBED:
		return "the input embedding";
	case LLM_COUNT_NO_EMBED_HEAD:
		return "the input embedding and the lm_head";
	default:
		return "nothing";
	}
}

/* ---- models from files ---------------------------------------------------- */

int llm_model_is_file(const char *name)
{
	size_t n = strlen(name);
	return strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".json")) ||
	       strstr(name, ".yaml") || strstr(name, ".yml");
}

char *llm_model_path(const char *dir, const char *name)
{
	size_t dl, nl = strlen(name);
	char *p;
	if (!llm_model_is_file(name) || name[0] == '/' || !dir || !dir[0])
		return strdup(name);
	dl = strlen(dir);
	if (!(p = malloc(dl + nl + 2)))
		return NULL;
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, nl + 1);
	return p;
}

/* A model catalog YAML: its one model, or the one named after "FILE.yaml:". */
static int load_yaml(const char *arg, struct llm_model *out, struct plumb_err *err)
{
	char *path;
	const char *id = NULL, *ext = strstr(arg, ".yaml:");
	struct llm_catalog *c = NULL;
	const struct llm_model *m;
	char *text = NULL;
	size_t len;
	int rc;
	if (!ext)
		ext = strstr(arg, ".yml:");
	if (ext) {
		id = strchr(ext, ':') + 1;
		path = strndup(arg, (size_t)(id - 1 - arg));
	} else {
		path = strdup(arg);
	}
	if (!path)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = input_read(path, &text, &len, err)) < 0) {
		free(path);
		return rc;
	}
	rc = llm_catalog_parse(path, text, &c, err);
	free(text);
	if (rc < 0) {
		free(path);
		return rc;
	}
	if (!id && c->n != 1) {
		rc = plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				   "%s holds %d models: name one as %s:ID", path, c->n, path);
	} else if ((rc = llm_model_lookup(c, id ? id : c->models[0].id, &m, err)) == 0) {
		*out = *m;
	}
	free(c);
	free(path);
	return rc;
}

/*
 * A bundled Hugging Face config named by its model name: the directory
 * ORG--NAME of tests/data/hf (source tree) or models/hf (installed data)
 * whose NAME is name, case aside (gpt-oss-120b, Kimi-K2-Instruct). Fills
 * path and returns 0, or -1.
 */
static int bundled_config(const char *name, char *path, size_t n, char *near, size_t nn)
{
	static const char *const dirs[] = { "tests/data/hf", "models/hf" };
	char dir[4096];
	size_t i, len = strlen(name);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct dirent *d;
		DIR *dp = opendir(plumb_data_path(dirs[i], dir, sizeof(dir)));
		if (!dp)
			continue;
		while ((d = readdir(dp))) {
			const char *sep = strstr(d->d_name, "--");
			if (!sep)
				continue;
			if (!strcasecmp(sep + 2, name)) {
				snprintf(path, n, "%s/%s", dir, d->d_name);
				closedir(dp);
				return 0;
			}
			/* kimi-k2 for Kimi-K2-Instruct: a suggestion, not a match (the
			 * first in name order, whatever order readdir gives) */
			if (near && len && !strncasecmp(sep + 2, name, len) && sep[2 + len] == '-' &&
			    (!near[0] || strcmp(sep + 2, near) < 0))
				snprintf(near, nn, "%s", sep + 2);
		}
		closedir(dp);
	}
	return -1;
}

int llm_model_resolve(const char *name, const struct llm_model **out,
		      struct plumb_err *err)
{
	/* Models read from files, kept until exit like the built-in catalog;
	 * the lock lets sweep threads resolve concurrently. */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		char *name;             /* whole: two long paths never share one */
		struct llm_model *m;
	} loaded[LLM_MAX_MODELS];
	static int nloaded;
	struct llm_model *m;
	int i, rc = 0;

	*out = NULL;
	if (!llm_model_is_file(name)) {
		const struct llm_catalog *cat = llm_catalog_builtin(err);
		char path[4400], near[256] = "";
		if (!cat)
			return -PLUMB_ERUNTIME;
		if (llm_catalog_find(cat, name) >= 0)
			return llm_model_lookup(cat, name, out, err);
		if (!bundled_config(name, path, sizeof(path), near, sizeof(near)))
			return llm_model_resolve(path, out, err);
		if (near[0])
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "unknown model '%s' "
					     "(did you mean '%s', a bundled Hugging Face config?)",
					     name, near);
		return llm_model_lookup(cat, name, out, err);
	}
	pthread_mutex_lock(&lock);
	for (i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i].name, name)) {
			*out = loaded[i].m;
			goto done;
		}
	if (nloaded == LLM_MAX_MODELS) {
		rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				   "at most %d model files in one run", LLM_MAX_MODELS);
		goto done;
	}
	if (!(m = malloc(sizeof(*m))) || !(loaded[nloaded].name = strdup(name))) {
		free(m);
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto done;
	}
	rc = strstr(name, ".yaml") || strstr(name, ".yml") ? load_yaml(name, m, err)
							   : hf_model_load(name, m, err);
	if (rc < 0) {
		free(m);
		free(loaded[nloaded].name);
		loaded[nloaded].name = NULL;
		goto done;
	}
	loaded[nloaded++].m = m;
	*out = m;
done:
	pthread_mutex_unlock(&lock);
	return rc;
}

const char *llm_default_weights(const char *model)
{
	const struct llm_model *m;
	if (llm_model_resolve(model, &m, NULL) == 0 && m->ckpt.set)
		return "checkpoint";
	return "nvfp4";
}
