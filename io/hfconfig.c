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

#include "hfconfig_int.h"
#include "input.h"

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
 * Limits of an ignore list's "re:" patterns (docs/model-decode.md, "Models
 * from Hugging Face configs"):
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
		return hf_fail(c, key, "'%s' must be a list of module names or patterns", key);
	if (json_array_size(list) > HF_IGNORE_MAX)
		return hf_fail(c, key, "'%s' lists %zu patterns (at most %d)", key,
			    json_array_size(list), HF_IGNORE_MAX);
	for (i = 0; i < json_array_size(list); i++) {
		const char *pat = json_string_value(json_array_get(list, i));
		regex_t re;
		if (!pat)
			return hf_fail(c, key, "'%s' entry %zu is not a string", key, i + 1);
		if (strncmp(pat, "re:", 3))
			continue;
		if (re_check(pat + 3, why, sizeof(why)))
			return hf_fail(c, key, "'%s' entry %zu: pattern has %s", key, i + 1, why);
		snprintf(buf, sizeof(buf), "^(%s)", pat + 3);
		if (regcomp(&re, buf, REG_EXTENDED | REG_NOSUB))
			return hf_fail(c, key, "'%s' entry %zu: '%s' is not a POSIX extended regular "
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
		return hf_fail(c, "quant_algo", "modelopt quantization without 'quant_algo'");
	if (!strcmp(algo, "NVFP4")) {
		if (jint(q, "group_size", 16) != 16)
			return hf_fail(c, "group_size", "NVFP4 with group_size %d is not modelled "
				    "(16)", jint(q, "group_size", 16));
		apply(m, LLM_NVFP4, ign, 0);
	} else if (!strcmp(algo, "FP8")) {
		apply(m, LLM_FP8T, ign, 0);
	} else {
		return hf_fail(c, "quant_algo", "modelopt quant_algo '%s' is not modelled "
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
		return hf_fail(c, "config_groups", "compressed-tensors: exactly one config group "
			    "is modelled");
	g = json_object_iter_value(json_object_iter(groups));
	w = json_object_get(g, "weights");
	type = jstr(w, "type");
	strategy = jstr(w, "strategy");
	bits = jint(w, "num_bits", 0);
	group = jint(w, "group_size", 0);
	if (!type)
		return hf_fail(c, "weights", "compressed-tensors: the group's weights need a type");
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
		return hf_fail(c, "num_bits", "compressed-tensors: %d-bit %s weights (group %d) "
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
		return hf_fail(c, "quantization_config", "quantization_config needs a quant_method");
	snprintf(k->method, sizeof(k->method), "%s", method);
	if (!strcmp(method, "fp8")) {
		const json_t *b = json_object_get(q, "weight_block_size");
		if (json_is_array(b) && (json_integer_value(json_array_get(b, 0)) != 128 ||
					 json_integer_value(json_array_get(b, 1)) != 128))
			return hf_fail(c, "weight_block_size", "fp8 with blocks other than 128 x 128 "
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
			return hf_fail(c, "bits", "%s with %d bits is not modelled (4)", method, bits);
		k->group = jint(q, "group_size", 128);
		if (k->group < 0)
			k->group = 0;
		/* GPTQ stores packed zeros even when symmetric; AWQ with zero_point */
		k->zero = !strcmp(method, "gptq") || !json_is_false(json_object_get(q, "zero_point"));
		apply(m, LLM_INT4, ntc, 0);
	} else {
		return hf_fail(c, "quant_method", "quantization '%s' is not modelled (fp8, modelopt, "
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
	int rc, fam;

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
		rc = hf_fail(&c, NULL, "config.json has no 'model_type'");
		goto out;
	}
	if ((fam = hf_arch_find(type)) < 0) {
		rc = hf_arch_unknown(&c, type);
		goto out;
	}
	snprintf(m->id, sizeof(m->id), "%s", id);
	snprintf(m->arch, sizeof(m->arch), "%s", c.arch);
	/* a multimodal wrapper: decode runs its text model; say what is left out */
	snprintf(m->name, sizeof(m->name), "%s (%s%s)", id, c.arch,
		 cfg != root && json_object_get(root, "vision_config") ?
		 "; text model, vision tower not counted" : "");
	{
		/* whole: the config's path and its quantization file's */
		size_t n = strlen(file) + (quant ? strlen(qfile) + 4 : 0) + 1;
		char *src = malloc(n);
		if (src)
			snprintf(src, n, "%s%s%s", file, quant ? " + " : "", quant ? qfile : "");
		m->source = src ? plumb_keep_path(src) : NULL;
		free(src);
		if (!m->source) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			goto out;
		}
	}
	/* printed to a terminal: from a directory name and the file's text */
	plumb_str_clean(m->id, sizeof(m->id));
	plumb_str_clean(m->name, sizeof(m->name));
	plumb_str_clean(m->arch, sizeof(m->arch));
	if ((rc = hf_parse_arch(&c, fam, type, m)) < 0)
		goto out;
	m->count = hf_arch_count(fam);
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
	char *buf, *p;
	size_t i, len = strlen(id);
	for (i = 0; i < len && strchr("0123456789abcdef", id[i]); i++)
		;
	if (len != 40 || i != 40 || !(buf = strdup(dir)))
		return;
	len = strlen(buf);
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	if (!(p = strrchr(buf, '/'))) {
		free(buf);
		return;
	}
	*p = '\0';                      /* .../models--ORG--NAME/snapshots */
	if (!(p = strrchr(buf, '/')) || strcmp(p + 1, "snapshots")) {
		free(buf);
		return;
	}
	*p = '\0';
	p = strrchr(buf, '/');
	p = p ? p + 1 : buf;
	if (!strncmp(p, "models--", 8))
		snprintf(id, n, "%s", p + 8);
	free(buf);
}

/*
 * The name of a model whose config is a file of its own (not a directory's
 * config.json): the config's _name_or_path when it names a Hub model
 * (ORG/NAME as ORG--NAME, a local path by its last component), else the
 * file's name without a .config, _config or -config suffix
 * (qwen3-30b-a3b.config.json and Qwen--Qwen3-8B_config.json are
 * qwen3-30b-a3b and Qwen--Qwen3-8B). id holds the file's name on entry.
 */
static void file_id(const char *text, char *id, size_t n)
{
	static const char *const suffix[] = { ".config", "_config", "-config" };
	json_t *root = json_loads(text, 0, NULL);
	const char *name = json_string_value(json_object_get(root, "_name_or_path"));
	size_t i, len;
	if (name && name[0] && name[0] != '/' && name[0] != '.' && strchr(name, '/') &&
	    strchr(name, '/') == strrchr(name, '/')) {
		snprintf(id, n, "%.*s--%s", (int)(strchr(name, '/') - name), name,
			 strchr(name, '/') + 1);
	} else if (name && name[0]) {
		base_of(name, id, n);
	} else {
		len = strlen(id);
		for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++)
			if (len > 7 && !strcmp(id + len - 7, suffix[i]))
				id[len - 7] = '\0';
	}
	json_decref(root);
}

int hf_model_load(const char *path, struct llm_model *m, struct plumb_err *err)
{
	char id[256];
	char *text = NULL, *qtext = NULL, *cfg, *qpath, *dir;
	size_t len = strlen(path), n;
	struct plumb_err qe;
	int rc, named = 0;

	/* the paths built below hold the name whole, at any length */
	cfg = malloc(len + sizeof("/config.json"));
	qpath = malloc(len + sizeof("/hf_quant_config.json"));
	dir = malloc(len + 2);
	if (!cfg || !qpath || !dir) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	if (len >= 5 && !strcmp(path + len - 5, ".json")) {
		const char *slash = strrchr(path, '/');
		strcpy(cfg, path);
		n = slash ? (size_t)(slash - path) : 0;
		if (n) {
			memcpy(dir, path, n);
			dir[n] = '\0';
		} else {
			strcpy(dir, ".");
		}
		if (!strcmp(slash ? slash + 1 : path, "config.json") && n) {
			base_of(dir, id, sizeof(id));
		} else {
			base_of(path, id, sizeof(id));
			n = strlen(id);
			if (n >= 5 && !strcmp(id + n - 5, ".json"))
				id[n - 5] = '\0';
			named = 1;
		}
	} else {
		strcpy(dir, path);
		sprintf(cfg, "%s/config.json", path);
		base_of(path, id, sizeof(id));
	}
	if ((rc = input_read(cfg, &text, &n, err)) < 0)
		goto out;
	if (named)
		file_id(text, id, sizeof(id));
	sprintf(qpath, "%s/hf_quant_config.json", dir);
	if (input_read(qpath, &qtext, &n, &qe) < 0 && qe.code != PLUMB_EIO) {
		if (err)
			*err = qe;
		rc = -qe.code;
		goto out;
	}
	cache_id(dir, id, sizeof(id));
	id[sizeof(m->id) - 1] = '\0';
	rc = hf_model_parse(cfg, text, qpath, qtext, id, m, err);
out:
	free(text);
	free(qtext);
	free(cfg);
	free(qpath);
	free(dir);
	return rc;
}
