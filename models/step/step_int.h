/*
 * step_int.h - the step module's internals shared between its files.
 */
#ifndef PLUMB_STEP_INT_H
#define PLUMB_STEP_INT_H

#include <stddef.h>

#include "step.h"

/* The shared step memo's table (step_memo.c): key and value are byte
 * strings, copied. step_memo_get fills val (nv bytes) and returns 1 when
 * key is stored with a value of that size, else 0. */
int step_memo_get(const void *key, size_t n, void *val, size_t nv);
void step_memo_put(const void *key, size_t n, const void *val, size_t nv);

#endif
