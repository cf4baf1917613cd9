/*
 * jout.h - plumb's one JSON writer: a document is built as jansson values
 * and written by jansson's encoder (escapes, numbers), laid out the same
 * way for every command.
 *
 * Layout: an object or array at a depth below `levels` (the document's
 * choice: 3 for topo's matrices, 2 for predict's rows) that holds a
 * non-empty object or array puts each member on its own line, indented two
 * spaces per level; every other value is one line as json_dumps() writes it
 * (", " and ": " between members, keys in insertion order). Reals are
 * written with JSON_REAL_PRECISION(JOUT_REAL_DIGITS): the shortest form
 * that gives the double back for any value a caller rounded with
 * jout_real(), so the same value always prints the same bytes.
 *
 * Ownership: every builder returns a new reference (NULL only when out of
 * memory); jout_set() and jout_push() take over v's reference, also when
 * they fail. A NULL container or value makes them fail, so a document
 * built through them is written whole or not at all.
 */
#ifndef PLUMB_JOUT_H
#define PLUMB_JOUT_H

#include <jansson.h>
#include <stdio.h>

#include "err.h"

#define JOUT_REAL_DIGITS 15

/* A JSON string of s ("" for NULL); a byte that is not part of valid UTF-8
 * becomes '?'. */
json_t *jout_str(const char *s);

/* x rounded to `decimals` places after the point (0-9), so that 191.80 is
 * written 191.8; a value that is not finite becomes null (JSON has none). */
json_t *jout_real(double x, int decimals);

/* o[key] = v (v's reference taken); 0, or -1 when o or v is NULL or out of
 * memory. */
int jout_set(json_t *o, const char *key, json_t *v);

/* a.append(v) (v's reference taken); 0 or -1 as jout_set(). */
int jout_push(json_t *a, json_t *v);

/*
 * Write v in the layout above (containers below depth `levels` may break)
 * and a final newline to f. Returns 0, or
 * -PLUMB_ERUNTIME with err filled when v is NULL (a failed build) or the
 * encoder runs out of memory. v is not changed (jansson's iteration takes
 * a non-const value). Write errors show on f (ferror) and are
 * reported by whoever commits f (io/out.h).
 */
int jout_write(FILE *f, json_t *v, int levels, struct plumb_err *err);

/*
 * Streaming, for documents too big to build whole (topo's matrices at
 * 1,024 GPUs): the caller writes the containers that break by hand in the
 * layout above and hands the rest to jout_put. jout_put writes v as the
 * value at `depth` of a document laid out with `levels` (no newline after
 * it); 0, or -1 when v is NULL or the encoder runs out of memory.
 * jout_encode returns s as jout_str(s) encodes it (malloc'd; NULL when out
 * of memory). jout_indent writes the indent of `depth`.
 */
int jout_put(FILE *f, json_t *v, int depth, int levels);
char *jout_encode(const char *s);
void jout_indent(FILE *f, int depth);

/* A document built with jout_set/jout_push: built is their or'ed results
 * (non-zero: a step failed, out of memory); written as jout_write when
 * whole. Takes doc's reference in every case. */
int jout_write_built(FILE *f, json_t *doc, int built, int levels, struct plumb_err *err);

#endif
