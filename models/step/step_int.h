/*
 * step_int.h - the step module's internals shared between its files.
 */
#ifndef PLUMB_STEP_INT_H
#define PLUMB_STEP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "step.h"

/* The shared step memo's table (step_memo.c): key and value are byte
 * strings, copied. step_memo_get fills val (nv bytes) and returns 1 when
 * key is stored with a value of that size, else 0. */
int step_memo_get(const void *key, size_t n, void *val, size_t nv);
void step_memo_put(const void *key, size_t n, const void *val, size_t nv);

/* A growable byte string (oom: an allocation failed; the bytes are then
 * incomplete and must not be used as a key). Freed with free(p). */
struct step_bytes {
	unsigned char *p;
	size_t n, cap;
	int oom;
};

/* The memo key of a step_run (step_memo.c): everything its result depends
 * on, into b (scn: the scenario's shared id, replay: collectives replayed). */
void step_memo_key(struct step_bytes *b, uint64_t scn, int replay, const struct step_layout *l,
		   const struct step_prog *prog, int micro, int rounds);
/* A stored result's size for ngpus GPUs; r into p (room step_memo_size);
 * p (n bytes) back into r, keeping the caller's inputs in r. */
size_t step_memo_size(int ngpus);
void step_memo_pack(const struct step_result *r, unsigned char *p);
void step_memo_fill(const unsigned char *p, size_t n, struct step_result *r);

#endif
