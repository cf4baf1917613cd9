/*
 * hfconfig.h - a Hugging Face model (config.json, its quantization_config
 * and a ModelOpt hf_quant_config.json) read into a struct llm_model
 * (docs/model-decode.md, "Models from Hugging Face configs").
 *
 * Architectures (model_type): deepseek_v3, kimi_k2 (MLA + MoE), glm_moe_dsa,
 * deepseek_v32 (MLA + DSA indexer), glm4_moe, qwen3_moe, qwen3_next (linear
 * attention between full-attention layers), gpt_oss (sliding-window layers,
 * attention sinks), llama, mixtral. A wrapper config (text_config, e.g.
 * Kimi-K2.5) is read through its text model. Anything else, or a key plumb
 * cannot model (an expert interval, dense layers between MoE layers), is
 * refused with the architecture's name and what is missing.
 *
 * Errors carry FILE:LINE:COL: jansson's for a syntax error, the key's first
 * occurrence in the text for a bad value.
 */
#ifndef PLUMB_HFCONFIG_H
#define PLUMB_HFCONFIG_H

#include "err.h"
#include "llm.h"

/*
 * Read the model at path: a config.json, or a directory holding one (and
 * then hf_quant_config.json when present). Fills *m; its id is the
 * directory's name, its source the path. Errors: EIO (cannot read), EINPUT.
 */
int hf_model_load(const char *path, struct llm_model *m, struct plumb_err *err);

/*
 * The same from text: config is config.json's text named file, quant the
 * text of hf_quant_config.json (named qfile) or NULL. id names the model.
 */
int hf_model_parse(const char *file, const char *config, const char *qfile,
		   const char *quant, const char *id, struct llm_model *m,
		   struct plumb_err *err);

#endif
