/*
 * hfconfig_int.h - what io/hfconfig.c (entry points, quantization) and
 * io/hfconfig_arch.c (architectures) share.
 */
#ifndef PLUMB_HFCONFIG_INT_H
#define PLUMB_HFCONFIG_INT_H

#include <jansson.h>

#include "err.h"
#include "llm.h"

struct hfctx {
	const char *file, *text;        /* config.json: name and text (for positions) */
	const json_t *cfg;              /* the text model's keys */
	const char *arch;               /* architectures[0] or model_type */
	struct plumb_err *err;
	const char *qfile, *qtext;      /* hf_quant_config.json, or NULL */
};

/* An EINPUT error at key's first place in the config (1:1 when key is NULL). */
int hf_fail(const struct hfctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The architecture of model_type `type`: its index for hf_parse_arch, or -1.
 * hf_arch_count(i) is the enum llm_count its publisher counts by.
 */
int hf_arch_find(const char *type);
enum llm_count hf_arch_count(int i);

/* Fill m's geometry from c's keys as architecture i reads them. */
int hf_parse_arch(const struct hfctx *c, int i, const char *type, struct llm_model *m);

/*
 * The refusal of an unknown model_type, at its key: the architectures plumb
 * reads, the nearest of them, and the model catalog YAML route.
 */
int hf_arch_unknown(const struct hfctx *c, const char *type);

#endif
