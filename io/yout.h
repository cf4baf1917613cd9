/*
 * yout.h - plumb's one YAML writer: libyaml's emitter, fed event by event,
 * with the layout every YAML output shares (two-space indent, no line
 * wrapping, UTF-8 kept as it is).
 *
 * libyaml writes no comments: a writer puts its comment lines on f itself,
 * before yout_begin(). A document is one value (usually a block mapping):
 *
 *	yout_begin(&y, f);
 *	yout_map(&y, YOUT_BLOCK);
 *	yout_scalar(&y, "name", 0);
 *	yout_scalar(&y, name, 1);
 *	yout_map_end(&y);
 *	rc = yout_end(&y, path, err);
 *
 * Errors are sticky: after the first event that fails (out of memory, an
 * event out of order) nothing more is emitted and yout_end() reports it, so
 * a writer emits unconditionally and checks once. yout_end() releases the
 * emitter on every path; between the two nothing needs freeing.
 */
#ifndef PLUMB_YOUT_H
#define PLUMB_YOUT_H

#include <stdio.h>
#include <yaml.h>

#include "err.h"

#define YOUT_BLOCK 0
#define YOUT_FLOW 1

struct yout {
	yaml_emitter_t e;
	FILE *f;
	int live;       /* e initialized: yout_end() deletes it */
	int bad;        /* an event failed: nothing more is emitted */
};

/* Start a stream and its (implicit, no "---") document on f. */
void yout_begin(struct yout *y, FILE *f);

/*
 * End the document and the stream, flush, and release the emitter (always).
 * Returns 0; -PLUMB_ERUNTIME naming path when an event failed; -PLUMB_EIO
 * when writing to f failed.
 */
int yout_end(struct yout *y, const char *path, struct plumb_err *err);

/*
 * A scalar: plain for keys, ids, numbers and enums (libyaml quotes it all
 * the same when plain would not read back as the same string), double-
 * quoted for text from the input. libyaml takes UTF-8 only: a byte that is
 * not part of a valid sequence (tool output in another encoding) becomes
 * '?'. v NULL is "".
 */
void yout_scalar(struct yout *y, const char *v, int quoted);

/* A plain scalar formatted by printf: numbers ("%.9g", "%d"). */
void yout_fmt(struct yout *y, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Mappings and sequences, YOUT_BLOCK or YOUT_FLOW ({a: 1} or [1, 2], on
 * one line). An empty block one is written {} or []. */
void yout_map(struct yout *y, int flow);
void yout_map_end(struct yout *y);
void yout_seq(struct yout *y, int flow);
void yout_seq_end(struct yout *y);

#endif
