/*
 * hfconfig.c - Hugging Face config.json (and quantization config) to
 * struct llm_model, through jansson (hfconfig.h).
 *
 * Each architecture reads the keys its transformers configuration class
 * defines; a key that changes the op list in a way plumb does not model is
 * refused by name rather than ignored. Values are checked against the same
 * ranges as the YAML catalog (models/llm/llm.c).
 */
#include "hfconfig.h"

#include <fnmatch.h>
#include <limits.h>
#include <jansson.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

enum family { F_MLA, F_GLM4, F_QWEN3MOE, F_QWEN3NEXT, F_GPTOSS, F_LLAMA, F_MIXTRAL };

/*
 * count: how the family's publisher counts activated parameters (enum
 * llm_count; the published figures and what gives them are in
 * docs/model.md, "Parameter counts").
 */
static const struct {
	const char *type;
	enum family f;
	enum llm_count count;
} families[] = {
	{ "deepseek_v3", F_MLA, LLM_COUNT_NO_EMBED },
	{ "kimi_k2", F_MLA, LLM_COUNT_NO_EMBED },
	{ "glm_moe_dsa", F_MLA, LLM_COUNT_NO_EMBED_HEAD },
	{ "deepseek_v32", F_MLA, LLM_COUNT_NO_EMBED },
	{ "glm4_moe", F_GLM4, LLM_COUNT_NO_EMBED_HEAD },
	{ "qwen3_moe", F_QWEN3MOE, LLM_COUNT_ALL },
	{ "qwen3_next", F_QWEN3NEXT, LLM_COUNT_ALL },
	{ "gpt_oss", F_GPTOSS, LLM_COUNT_NO_EMBED },
	{ "llama", F_LLAMA, LLM_COUNT_ALL },
	{ "mixtral", F_MIXTRAL, LLM_COUNT_ALL },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

struct hfctx {
	const char *file, *text;        /* config.json: name and text (for positions) */
	const json_t *cfg;              /* the text model's keys */
	const char *arch;               /* architectures[0] or model_type */
	struct plumb_err *err;
	const char *qfile, *qtext;      /* hf_quant_config.json, or NULL */
};

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

static int fail(const struct hfctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An EINPUT error at key's place in the config (1:1 when key is NULL). */
static int fail(const struct hfctx *c, const char *key, const char *fmt, ...)
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
			return fail(c, NULL, "%s config has no '%s'", c->arch, key);
		return 0;
	}
	if (!json_is_integer(v))
		return fail(c, key, "'%s' must be an integer", key);
	n = json_integer_value(v);
	if (n < lo || n > hi)
		return fail(c, key, "'%s' is %lld, outside %ld..%ld", key, (long long)n, lo, hi);
	*out = (int)n;
	return 0;
}

static int get_bool(const struct hfctx *c, const char *key, int *out)
{
	const json_t *v = json_object_get(c->cfg, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return fail(c, key, "'%s' must be true or false", key);
	*out = json_is_true(v);
	return 0;
}

/* Per-layer kinds from layer_types (strings), or an error. */
static int layer_types(const struct hfctx *c, struct llm_model *m)
{
	const json_t *a = json_object_get(c->cfg, "layer_types");
	size_t i;
	if (!a || json_is_null(a))
		return 1;       /* absent */
	if (!json_is_array(a) || json_array_size(a) != (size_t)m->layers)
		return fail(c, "layer_types", "'layer_types' must list the %d layers", m->layers);
	for (i = 0; i < json_array_size(a); i++) {
		const char *t = json_string_value(json_array_get(a, i));
		if (t && !strcmp(t, "full_attention"))
			m->kind[i] = LLM_LAYER_FULL;
		else if (t && !strcmp(t, "sliding_attention"))
			m->kind[i] = LLM_LAYER_SLIDING;
		else if (t && !strcmp(t, "linear_attention"))
			m->kind[i] = LLM_LAYER_LINEAR;
		else
			return fail(c, "layer_types", "layer %zu's type '%s' is not modelled "
				    "(full_attention, sliding_attention, linear_attention)", i,
				    t ? t : "?");
	}
	m->hybrid = 1;
	return 0;
}

/* The geometry shared by every family. */
static int common(const struct hfctx *c, struct llm_model *m)
{
	int rc;
	if ((rc = get_int(c, "num_hidden_layers", 1, 100000, 1, &m->layers)) < 0 ||
	    (rc = get_int(c, "hidden_size", 1, 1 << 20, 1, &m->hidden)) < 0 ||
	    (rc = get_int(c, "vocab_size", 1, 1 << 26, 1, &m->vocab)) < 0 ||
	    (rc = get_int(c, "num_attention_heads", 1, 4096, 1, &m->heads)) < 0 ||
	    (rc = get_int(c, "intermediate_size", 1, 1 << 24, 0, &m->intermediate)) < 0 ||
	    (rc = get_bool(c, "tie_word_embeddings", &m->tie_embeddings)) < 0)
		return rc;
	m->kv_heads = m->heads;
	m->head_dim = m->hidden / m->heads;
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
		return fail(c, "num_experts_per_tok", "num_experts_per_tok (%d) is more than "
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
		return fail(c, "decoder_sparse_step", "%s: decoder_sparse_step %d (MoE every "
			    "%d layers, dense MLPs between) is not modelled", c->arch, step, step);
	if (v && json_is_array(v) && json_array_size(v))
		return fail(c, "mlp_only_layers", "%s: mlp_only_layers (dense layers between "
			    "MoE layers) is not modelled", c->arch);
	return 0;
}

static int parse_family(const struct hfctx *c, enum family f, const char *type,
			struct llm_model *m)
{
	int rc, freq = 1, interval = 0, i;
	if ((rc = common(c, m)) < 0)
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
		if (freq != 1)
			return fail(c, "moe_layer_freq", "%s: moe_layer_freq %d (MoE every %d "
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
		    (rc = get_bool(c, "use_qk_norm", &m->qk_norm)) < 0)
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
		if ((rc = moe(c, m, "num_experts", "moe_intermediate_size")) < 0 ||
		    (rc = qwen_every_layer_moe(c)) < 0 ||
		    (rc = get_int(c, "shared_expert_intermediate_size", 0, 1 << 24, 0,
				  &m->shared_intermediate)) < 0 ||
		    (rc = get_int(c, "linear_num_key_heads", 1, 4096, 1, &m->lin_k_heads)) < 0 ||
		    (rc = get_int(c, "linear_num_value_heads", 1, 4096, 1, &m->lin_v_heads)) < 0 ||
		    (rc = get_int(c, "linear_key_head_dim", 1, 4096, 1, &m->lin_k_dim)) < 0 ||
		    (rc = get_int(c, "linear_value_head_dim", 1, 4096, 1, &m->lin_v_dim)) < 0 ||
		    (rc = get_int(c, "linear_conv_kernel_dim", 1, 64, 1, &m->lin_conv)) < 0)
			return rc;
		m->dense_layers = 0;
		m->shared_experts = m->shared_intermediate > 0;
		m->shared_gate = m->shared_experts;
		m->attn_gate = 1;
		m->qk_norm = 1;
		if (m->layers > LLM_MAX_LAYERS)
			return fail(c, "num_hidden_layers", "at most %d layers in a hybrid model",
				    LLM_MAX_LAYERS);
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
		if (m->layers > LLM_MAX_LAYERS)
			return fail(c, "num_hidden_layers", "at most %d layers in a hybrid model",
				    LLM_MAX_LAYERS);
		if ((rc = layer_types(c, m)) < 0)
			return rc;
		if (rc > 0)
			return fail(c, NULL, "%s config has no 'layer_types'", c->arch);
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
	}
	if (m->sliding_window > 0 && !m->hybrid) {      /* Mistral-style: every layer */
		if (m->layers > LLM_MAX_LAYERS)
			return fail(c, "sliding_window", "at most %d layers with a sliding window",
				    LLM_MAX_LAYERS);
		for (i = 0; i < m->layers; i++)
			m->kind[i] = LLM_LAYER_SLIDING;
		m->hybrid = 1;
	}
	if (!m->intermediate)
		m->intermediate = m->moe_intermediate;
	if (m->attn == LLM_ATTN_GQA && m->heads % m->kv_heads)
		return fail(c, "num_key_value_heads", "num_attention_heads (%d) must be a "
			    "multiple of num_key_value_heads (%d)", m->heads, m->kv_heads);
	return 0;
}

/* ---- quantization ---------------------------------------------------------- */

/*
 * Does an ignore-list pattern name module `name`? "re:" patterns are regular
 * expressions matched from the start (compressed-tensors); patterns with a
 * wildcard are fnmatch globs, of the module or of a parent (ModelOpt,
 * transformers); a plain name matches the module or any module under it, at
 * '.' boundaries (transformers' modules_to_not_convert).
 */
static int pat_match(const char *pat, const char *name)
{
	char buf[600];
	const char *p;
	size_t n = strlen(pat);
	if (n == 0)
		return 0;       /* an empty pattern names nothing (and strstr would walk off the name) */
	if (!strncmp(pat, "re:", 3)) {
		regex_t re;
		int ok;
		snprintf(buf, sizeof(buf), "^(%s)", pat + 3);
		if (regcomp(&re, buf, REG_EXTENDED | REG_NOSUB))
			return 0;
		ok = !regexec(&re, name, 0, NULL, 0);
		regfree(&re);
		return ok;
	}
	if (strpbrk(pat, "*?[")) {
		snprintf(buf, sizeof(buf), "%s.*", pat);
		return !fnmatch(pat, name, 0) || !fnmatch(buf, name, 0);
	}
	for (p = strstr(name, pat); p; p = strstr(p + 1, pat))
		if ((p == name || p[-1] == '.') && (p[n] == '\0' || p[n] == '.'))
			return 1;
	return 0;
}

/*
 * Limits of an ignore list's "re:" patterns (docs/model.md, "Checkpoints"):
 * POSIX regcomp copies a bounded repetition's operand once per count, so
 * nested {m,n} multiply the compiled size ("((a{1,99}){1,99}){1,99}" takes
 * minutes and gigabytes). Module names are short and patterns in published
 * checkpoints are a few dozen bytes with `.*`, `+` and `[0-9]`: keep them
 * short, counts small, nesting shallow, and no back-references (the only
 * exponential case of matching).
 */
#define HF_PAT_MAX_LEN 256      /* bytes of one pattern */
#define HF_PAT_MAX_COUNT 32     /* the upper bound of a {m,n} */
#define HF_PAT_MAX_COPIES 256   /* product of the upper bounds of all {m,n} */
#define HF_PAT_MAX_DEPTH 8      /* nested parentheses */
#define HF_IGNORE_MAX 4096      /* patterns in one list */

/* NULL when "re:" pattern re (without "re:") is within the limits, else why not. */
static const char *re_check(const char *re, char *why, size_t n)
{
	long copies = 1;
	int depth = 0, cls = 0;
	const char *p;
	if (strlen(re) > HF_PAT_MAX_LEN)
		return snprintf(why, n, "longer than %d bytes", HF_PAT_MAX_LEN), why;
	for (p = re; *p; p++) {
		if (cls) {              /* inside [...]: nothing is special but ] */
			if (*p == ']' && cls > 1)
				cls = 0;
			else
				cls++;
			continue;
		}
		switch (*p) {
		case '\\':
			if (p[1] >= '1' && p[1] <= '9')
				return snprintf(why, n, "a back-reference (\\%c)", p[1]), why;
			if (p[1])
				p++;
			break;
		case '[':
			cls = 1;
			if (p[1] == '^')
				p++;
			break;
		case '(':
			if (++depth > HF_PAT_MAX_DEPTH)
				return snprintf(why, n, "groups nested deeper than %d", HF_PAT_MAX_DEPTH), why;
			break;
		case ')':
			if (depth > 0)
				depth--;
			break;
		case '{': {
			char *e;
			long lo = strtol(p + 1, &e, 10), hi = lo;
			if (*e == ',')
				hi = e[1] == '}' ? HF_PAT_MAX_COUNT + 1 : strtol(e + 1, &e, 10);
			if (hi > HF_PAT_MAX_COUNT || lo > HF_PAT_MAX_COUNT)
				return snprintf(why, n, "a repetition count above %d (use + or *)",
						HF_PAT_MAX_COUNT), why;
			/* nested or not, the product bounds the copies regcomp makes */
			copies *= hi > 0 ? hi : 1;
			if (copies > HF_PAT_MAX_COPIES)
				return snprintf(why, n, "repetition counts whose product exceeds %d",
						HF_PAT_MAX_COPIES), why;
			break;
		}
		default:
			break;
		}
	}
	return NULL;
}

/*
 * Check the ignore list under key (of q, from hf_quant_config.json when
 * in_quant_file): a list of strings, each "re:"
 * pattern within the limits above and one regcomp accepts. Returns 0 or an
 * EINPUT error at the key.
 */
static int check_ignore(const struct hfctx *c, int in_quant_file, const json_t *q,
			const char *key)
{
	const json_t *list = q ? json_object_get(q, key) : NULL;
	char why[96], buf[HF_PAT_MAX_LEN + 8];
	struct hfctx qc = *c;
	size_t i;
	if (in_quant_file) {
		qc.file = c->qfile;     /* errors at hf_quant_config.json's list */
		qc.text = c->qtext;
	}
	c = &qc;
	if (!list || json_is_null(list))
		return 0;
	if (!json_is_array(list))
		return fail(c, key, "'%s' must be a list of module names or patterns", key);
	if (json_array_size(list) > HF_IGNORE_MAX)
		return fail(c, key, "'%s' lists %zu patterns (at most %d)", key,
			    json_array_size(list), HF_IGNORE_MAX);
	for (i = 0; i < json_array_size(list); i++) {
		const char *pat = json_string_value(json_array_get(list, i));
		regex_t re;
		if (!pat)
			return fail(c, key, "'%s' entry %zu is not a string", key, i + 1);
		if (strncmp(pat, "re:", 3))
			continue;
		if (re_check(pat + 3, why, sizeof(why)))
			return fail(c, key, "'%s' entry %zu: pattern has %s", key, i + 1, why);
		snprintf(buf, sizeof(buf), "^(%s)", pat + 3);
		if (regcomp(&re, buf, REG_EXTENDED | REG_NOSUB))
			return fail(c, key, "'%s' entry %zu: '%s' is not a POSIX extended regular "
				    "expression", key, i + 1, pat + 3);
		regfree(&re);
	}
	return 0;
}

/* Is any of the NULL-terminated names matched by a pattern of list? */
static int ignored(const json_t *list, const char *const *names)
{
	size_t i;
	int j;
	if (!list || !json_is_array(list))
		return 0;
	for (i = 0; i < json_array_size(list); i++) {
		const char *pat = json_string_value(json_array_get(list, i));
		for (j = 0; pat && names[j]; j++)
			if (pat_match(pat, names[j]))
				return 1;
	}
	return 0;
}

/*
 * Apply format d to the weight groups, each kept in bf16 when the ignore
 * list names it (checked on representative module names of the first MoE
 * layer, or layer 0). experts_only: the format converts routed experts only
 * (transformers' MXFP4).
 */
static void apply(struct llm_model *m, enum llm_dtype d, const json_t *ign, int experts_only)
{
	char a[6][96], dn[2][96], sh[2][96], ex[3][96];
	const char *attn[7], *dense[3], *shared[3], *experts[4];
	int L = m->experts ? m->dense_layers : 0, lin = 0, i;
	struct llm_ckpt *k = &m->ckpt;
	size_t n = 0;

	for (i = 0; i < m->layers && i < LLM_MAX_LAYERS; i++)
		lin |= m->hybrid && m->kind[i] == LLM_LAYER_LINEAR;
	snprintf(a[0], 96, "model.layers.%d.self_attn.q_proj", L);
	snprintf(a[1], 96, "model.layers.%d.self_attn.q_b_proj", L);
	snprintf(a[2], 96, "model.layers.%d.self_attn.kv_b_proj", L);
	snprintf(a[3], 96, "model.layers.%d.self_attn.o_proj", L);
	snprintf(a[4], 96, "model.layers.%d.self_attn.indexer.wk", L);
	snprintf(a[5], 96, "model.layers.%d.linear_attn.in_proj_qkvz", 0);
	for (i = 0; i < 6; i++)
		attn[i] = a[i];
	attn[lin ? 6 : 5] = NULL;
	attn[6] = NULL;
	snprintf(dn[0], 96, "model.layers.0.mlp.gate_proj");
	snprintf(dn[1], 96, "model.layers.0.mlp.down_proj");
	dense[0] = dn[0], dense[1] = dn[1], dense[2] = NULL;
	snprintf(sh[0], 96, "model.layers.%d.mlp.shared_experts.gate_proj", L);
	snprintf(sh[1], 96, "model.layers.%d.mlp.shared_expert.gate_proj", L);
	shared[0] = sh[0], shared[1] = sh[1], shared[2] = NULL;
	snprintf(ex[0], 96, "model.layers.%d.mlp.experts.0.gate_proj", L);
	snprintf(ex[1], 96, "model.layers.%d.mlp.experts.gate_up_proj", L);
	snprintf(ex[2], 96, "model.layers.%d.block_sparse_moe.experts.0.w1", L);
	experts[0] = ex[0], experts[1] = ex[1], experts[2] = ex[2], experts[3] = NULL;

	k->attn = experts_only || ignored(ign, attn) ? LLM_BF16 : d;
	k->dense = experts_only || ignored(ign, dense) ? LLM_BF16 : d;
	k->shared = experts_only || ignored(ign, shared) ? LLM_BF16 : d;
	k->experts = ignored(ign, experts) ? LLM_BF16 : d;
	k->kept[0] = '\0';
#define KEPT(cond, what) \
	if (cond) \
		n += (size_t)snprintf(k->kept + n, n < sizeof(k->kept) ? sizeof(k->kept) - n : 0, \
				      "%s, ", what)
	KEPT(k->attn == LLM_BF16, lin ? "attention (full and linear)" : "attention");
	KEPT(m->dense_layers && k->dense == LLM_BF16, "dense MLP");
	KEPT(m->shared_experts && k->shared == LLM_BF16, "shared experts");
	KEPT(m->experts && k->experts == LLM_BF16, "routed experts");
#undef KEPT
	if (d == LLM_BF16)
		snprintf(k->kept, sizeof(k->kept), "everything (not quantized)");
	else if (n < sizeof(k->kept))
		snprintf(k->kept + n, sizeof(k->kept) - n, "%s", m->experts ?
			 "router, embeddings, lm_head" : "embeddings, lm_head");
}

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int jint(const json_t *o, const char *key, int def)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

/* ModelOpt: quant_algo NVFP4 or FP8, exclude_modules (or ignore). */
static int modelopt(const struct hfctx *c, const json_t *q, struct llm_model *m)
{
	const char *algo = jstr(q, "quant_algo"), *kv = jstr(q, "kv_cache_quant_algo");
	const json_t *ign = json_object_get(q, "exclude_modules");
	const json_t *kvs = json_object_get(q, "kv_cache_scheme");
	if (!ign)
		ign = json_object_get(q, "ignore");
	if (!algo)
		return fail(c, "quant_algo", "modelopt quantization without 'quant_algo'");
	if (!strcmp(algo, "NVFP4")) {
		if (jint(q, "group_size", 16) != 16)
			return fail(c, "group_size", "NVFP4 with group_size %d is not modelled "
				    "(16)", jint(q, "group_size", 16));
		apply(m, LLM_NVFP4, ign, 0);
	} else if (!strcmp(algo, "FP8")) {
		apply(m, LLM_FP8T, ign, 0);
	} else {
		return fail(c, "quant_algo", "modelopt quant_algo '%s' is not modelled "
			    "(NVFP4, FP8)", algo);
	}
	if (kv || (kvs && jint(kvs, "num_bits", 0) == 8))
		snprintf(m->ckpt.kv, sizeof(m->ckpt.kv), "fp8");
	return 0;
}

/* compressed-tensors: one config group of weights on Linear layers. */
static int compressed(const struct hfctx *c, const json_t *q, struct llm_model *m)
{
	json_t *groups = json_object_get(q, "config_groups");
	const json_t *g, *w;
	const char *type, *strategy;
	int bits, group;
	if (!json_is_object(groups) || json_object_size(groups) != 1)
		return fail(c, "config_groups", "compressed-tensors: exactly one config group "
			    "is modelled");
	g = json_object_iter_value(json_object_iter(groups));
	w = json_object_get(g, "weights");
	type = jstr(w, "type");
	strategy = jstr(w, "strategy");
	bits = jint(w, "num_bits", 0);
	group = jint(w, "group_size", 0);
	if (!type)
		return fail(c, "weights", "compressed-tensors: the group's weights need a type");
	if (!strcmp(type, "int") && bits == 4) {
		m->ckpt.group = group > 0 ? group : 0;
		m->ckpt.zero = json_is_false(json_object_get(w, "symmetric"));
		apply(m, LLM_INT4, json_object_get(q, "ignore"), 0);
	} else if (!strcmp(type, "float") && bits == 4 && group == 16) {
		apply(m, LLM_NVFP4, json_object_get(q, "ignore"), 0);
	} else if (!strcmp(type, "float") && bits == 8) {
		apply(m, strategy && !strcmp(strategy, "block") ? LLM_FP8 : LLM_FP8T,
		      json_object_get(q, "ignore"), 0);
	} else {
		return fail(c, "num_bits", "compressed-tensors: %d-bit %s weights (group %d) "
			    "are not modelled (int4, nvfp4, fp8)", bits, type, group);
	}
	return 0;
}

/* The checkpoint's formats from quantization_config q and/or ModelOpt's hq. */
static int parse_quant(const struct hfctx *c, const json_t *q, const json_t *hq,
		       struct llm_model *m)
{
	struct llm_ckpt *k = &m->ckpt;
	const char *method = q ? jstr(q, "quant_method") : NULL;
	const json_t *ntc = q ? json_object_get(q, "modules_to_not_convert") : NULL;
	int bits;

	memset(k, 0, sizeof(*k));
	k->set = 1;
	if ((bits = check_ignore(c, 0, q, "modules_to_not_convert")) < 0 ||
	    (bits = check_ignore(c, 0, q, "ignore")) < 0 ||
	    (bits = check_ignore(c, 0, q, "exclude_modules")) < 0 ||
	    (bits = check_ignore(c, 1, hq, "ignore")) < 0 ||
	    (bits = check_ignore(c, 1, hq, "exclude_modules")) < 0)
		return bits;
	if (hq) {
		snprintf(k->method, sizeof(k->method), "modelopt");
		return modelopt(c, hq, m);
	}
	if (!q || json_is_null(q)) {
		snprintf(k->method, sizeof(k->method), "none");
		apply(m, LLM_BF16, NULL, 0);
		return 0;
	}
	if (!json_is_object(q) || !method)
		return fail(c, "quantization_config", "quantization_config needs a quant_method");
	snprintf(k->method, sizeof(k->method), "%s", method);
	if (!strcmp(method, "fp8")) {
		const json_t *b = json_object_get(q, "weight_block_size");
		if (json_is_array(b) && (json_integer_value(json_array_get(b, 0)) != 128 ||
					 json_integer_value(json_array_get(b, 1)) != 128))
			return fail(c, "weight_block_size", "fp8 with blocks other than 128 x 128 "
				    "is not modelled");
		apply(m, json_is_array(b) ? LLM_FP8 : LLM_FP8T, ntc, 0);
	} else if (!strcmp(method, "modelopt")) {
		return modelopt(c, q, m);
	} else if (!strcmp(method, "mxfp4")) {
		apply(m, LLM_MXFP4, ntc, 1);
	} else if (!strcmp(method, "compressed-tensors")) {
		return compressed(c, q, m);
	} else if (!strcmp(method, "awq") || !strcmp(method, "gptq")) {
		bits = jint(q, "bits", 4);
		if (bits != 4)
			return fail(c, "bits", "%s with %d bits is not modelled (4)", method, bits);
		k->group = jint(q, "group_size", 128);
		if (k->group < 0)
			k->group = 0;
		/* GPTQ stores packed zeros even when symmetric; AWQ with zero_point */
		k->zero = !strcmp(method, "gptq") || !json_is_false(json_object_get(q, "zero_point"));
		apply(m, LLM_INT4, ntc, 0);
	} else {
		return fail(c, "quant_method", "quantization '%s' is not modelled (fp8, modelopt, "
			    "mxfp4, compressed-tensors, awq, gptq)", method);
	}
	return 0;
}

/* ---- entry points ------------------------------------------------------------ */

int hf_model_parse(const char *file, const char *config, const char *qfile,
		   const char *quant, const char *id, struct llm_model *m,
		   struct plumb_err *err)
{
	json_error_t je;
	json_t *root = NULL, *qroot = NULL;
	const json_t *cfg, *archs, *hq = NULL;
	const char *type;
	struct hfctx c = { file, config, NULL, NULL, err, qfile, quant };
	size_t i;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!(root = json_loads(config, JSON_REJECT_DUPLICATES, &je)))
		return plumb_err_set(err, PLUMB_EINPUT, file, je.line > 0 ? je.line : 1,
				     je.column > 0 ? je.column : 1, "invalid JSON: %s", je.text);
	if (!json_is_object(root)) {
		rc = plumb_err_set(err, PLUMB_EINPUT, file, 1, 1, "config.json must be an object");
		goto out;
	}
	if (quant) {
		if (!(qroot = json_loads(quant, JSON_REJECT_DUPLICATES, &je))) {
			rc = plumb_err_set(err, PLUMB_EINPUT, qfile, je.line > 0 ? je.line : 1,
					   je.column > 0 ? je.column : 1, "invalid JSON: %s", je.text);
			goto out;
		}
		if (!json_is_object(hq = json_object_get(qroot, "quantization"))) {
			rc = plumb_err_set(err, PLUMB_EINPUT, qfile, 1, 1,
					   "hf_quant_config.json needs a 'quantization' object");
			goto out;
		}
	}
	cfg = json_object_get(root, "text_config");
	if (!json_is_object(cfg))
		cfg = root;
	c.cfg = cfg;
	type = jstr(cfg, "model_type");
	archs = json_object_get(cfg, "architectures");
	if (!json_is_array(archs))
		archs = json_object_get(root, "architectures");
	c.arch = json_string_value(json_array_get(archs, 0));
	if (!c.arch)
		c.arch = type ? type : "?";
	if (!type) {
		rc = fail(&c, NULL, "config.json has no 'model_type'");
		goto out;
	}
	for (i = 0; i < NFAMILIES; i++)
		if (!strcmp(type, families[i].type))
			break;
	if (i == NFAMILIES) {
		rc = fail(&c, "model_type", "architecture %s (model_type '%s') is not modelled: "
			  "plumb has decode-step ops for deepseek_v3, kimi_k2, glm_moe_dsa, "
			  "deepseek_v32, glm4_moe, qwen3_moe, qwen3_next, gpt_oss, llama, mixtral",
			  c.arch, type);
		goto out;
	}
	snprintf(m->id, sizeof(m->id), "%s", id);
	snprintf(m->arch, sizeof(m->arch), "%s", c.arch);
	/* a multimodal wrapper: decode runs its text model; say what is left out */
	snprintf(m->name, sizeof(m->name), "%s (%s%s)", id, c.arch,
		 cfg != root && json_object_get(root, "vision_config") ?
		 "; text model, vision tower not counted" : "");
	snprintf(m->source, sizeof(m->source), "%s%s%s", file, quant ? " + " : "",
		 quant ? qfile : "");
	{       /* printed to a terminal: from a directory name and the file's text */
		char safe[sizeof(m->source)];
		memset(safe, 0, sizeof(safe));     /* structs are compared bytewise */
		plumb_err_safe(safe, sizeof(m->id), m->id, sizeof(m->id));
		memcpy(m->id, safe, sizeof(m->id));
		memset(safe, 0, sizeof(safe));     /* structs are compared bytewise */
		plumb_err_safe(safe, sizeof(m->name), m->name, sizeof(m->name));
		memcpy(m->name, safe, sizeof(m->name));
		memset(safe, 0, sizeof(safe));     /* structs are compared bytewise */
		plumb_err_safe(safe, sizeof(m->arch), m->arch, sizeof(m->arch));
		memcpy(m->arch, safe, sizeof(m->arch));
	}
	if ((rc = parse_family(&c, families[i].f, type, m)) < 0)
		goto out;
	m->count = families[i].count;
	{
		const json_t *q = json_object_get(cfg, "quantization_config");
		if (!q)
			q = json_object_get(root, "quantization_config");
		rc = parse_quant(&c, q, hq, m);
	}
out:
	json_decref(root);
	json_decref(qroot);
	return rc;
}

/* The last path component of dir (without a trailing '/'), into id. */
static void base_of(const char *path, char *id, size_t n)
{
	size_t len = strlen(path), b;
	while (len > 1 && path[len - 1] == '/')
		len--;
	for (b = len; b > 0 && path[b - 1] != '/'; b--)
		;
	snprintf(id, n, "%.*s", (int)(len - b < (size_t)INT_MAX ? len - b : INT_MAX), path + b);
}

/*
 * A Hugging Face cache directory .../models--ORG--NAME/snapshots/<commit>
 * names the model ORG--NAME, not its commit: id is rewritten then.
 */
static void cache_id(const char *dir, char *id, size_t n)
{
	char buf[1024], *p;
	size_t i, len = strlen(id);
	for (i = 0; i < len && strchr("0123456789abcdef", id[i]); i++)
		;
	if (len != 40 || i != 40)
		return;
	snprintf(buf, sizeof(buf), "%s", dir);
	len = strlen(buf);
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	if (!(p = strrchr(buf, '/')))
		return;
	*p = '\0';                      /* .../models--ORG--NAME/snapshots */
	if (!(p = strrchr(buf, '/')) || strcmp(p + 1, "snapshots"))
		return;
	*p = '\0';
	p = strrchr(buf, '/');
	p = p ? p + 1 : buf;
	if (!strncmp(p, "models--", 8))
		snprintf(id, n, "%s", p + 8);
}

int hf_model_load(const char *path, struct llm_model *m, struct plumb_err *err)
{
	char cfg[1100], qpath[1100], id[256], dir[1024];
	char *text = NULL, *qtext = NULL;
	size_t len = strlen(path), n;
	struct plumb_err qe;
	int rc;

	/* the paths built below must hold the name whole, or another file loads */
	if (len + sizeof("/hf_quant_config.json") > sizeof(dir))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "model path of %zu bytes is too long (at most %zu)",
				     len, sizeof(dir) - sizeof("/hf_quant_config.json"));
	if (len >= 5 && !strcmp(path + len - 5, ".json")) {
		const char *slash = strrchr(path, '/');
		snprintf(cfg, sizeof(cfg), "%s", path);
		n = slash ? (size_t)(slash - path) : 0;
		snprintf(dir, sizeof(dir), "%.*s", (int)(n ? n : 1), n ? path : ".");
		if (!strcmp(slash ? slash + 1 : path, "config.json") && n) {
			base_of(dir, id, sizeof(id));
		} else {
			base_of(path, id, sizeof(id));
			n = strlen(id);
			if (n >= 5 && !strcmp(id + n - 5, ".json"))
				id[n - 5] = '\0';
		}
	} else {
		snprintf(dir, sizeof(dir), "%s", path);
		snprintf(cfg, sizeof(cfg), "%s/config.json", path);
		base_of(path, id, sizeof(id));
	}
	if ((rc = input_read(cfg, &text, &n, err)) < 0)
		return rc;
	snprintf(qpath, sizeof(qpath), "%s/hf_quant_config.json", dir);
	if (input_read(qpath, &qtext, &n, &qe) < 0 && qe.code != PLUMB_EIO) {
		free(text);
		if (err)
			*err = qe;
		return -qe.code;
	}
	cache_id(dir, id, sizeof(id));
	id[sizeof(m->id) - 1] = '\0';
	rc = hf_model_parse(cfg, text, qpath, qtext, id, m, err);
	free(text);
	free(qtext);
	return rc;
}
