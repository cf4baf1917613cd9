/*
 * test_llm_int.h - what test_llm.c and test_llm_ops.c share (defined in
 * test_llm.c).
 */
#ifndef PLUMB_TEST_LLM_INT_H
#define PLUMB_TEST_LLM_INT_H

#include "llm.h"
#include "scn.h"

/* A made-up model small enough to count by hand (a models catalog). */
extern const char tiny_yaml[];

/* The built-in catalog's model and GPU of that id (asserted, fatal when
 * missing). */
const struct llm_model *builtin(const char *id);
const struct scn_gpu_model *gpu(const char *id);

#endif
