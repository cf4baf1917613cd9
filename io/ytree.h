/*
 * ytree.h - a YAML document as a small tree that remembers where each node
 * came from, plus typed getters that report errors with file, line, column.
 *
 * Loading walks libyaml's event stream, refusing nesting deeper than 64
 * levels as it goes (linear in the input); the tree owns copies of every
 * scalar. Aliases share their anchor's node; merge keys are not supported;
 * a file holds one document.
 * Every getter below takes the tree (for the file name) and fills a
 * struct plumb_err on failure, returning a negative plumb_rc.
 */
#ifndef PLUMB_YTREE_H
#define PLUMB_YTREE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "input.h"

enum ynode_type { Y_SCALAR, Y_MAP, Y_SEQ };

struct ynode {
	enum ynode_type type;
	int line, col;          /* 1-based position of the node's first character */
	char *str;              /* Y_SCALAR: the text (NUL-terminated) */
	int quoted;             /* Y_SCALAR: written in quotes */
	size_t n;               /* Y_MAP: pairs; Y_SEQ: items */
	struct ynode **keys;    /* Y_MAP: key scalars */
	struct ynode **vals;    /* Y_MAP: values; Y_SEQ: items */
	size_t xsize;           /* nodes with every alias under it expanded
				   (capped just past YMAX_EXPANDED) */
};

struct ychunk;

struct ytree {
	char *file;             /* as given, whole */
	struct ynode *root;     /* NULL for an empty document */
	struct ychunk *chunks;  /* all nodes, in blocks (ytree.c) */
};

/*
 * Parse `len` bytes of YAML named `file` (for messages). On success *out is a
 * new tree the caller frees with ytree_free(). Errors: EINPUT for syntax,
 * duplicate keys, non-scalar keys; the position is libyaml's.
 */
int ytree_parse(const char *file, const char *buf, size_t len,
		struct ytree **out, struct plumb_err *err);

/* Read the file at path (at most PLUMB_MAX_INPUT bytes) and parse it. */
int ytree_load(const char *path, struct ytree **out, struct plumb_err *err);


void ytree_free(struct ytree *t);

/* Value for key in map m, or NULL. */
struct ynode *ymap_get(const struct ynode *m, const char *key);

/*
 * Check every key of map m is in the NULL-terminated list `allowed`; the
 * error for an unknown key suggests the closest allowed key when close.
 * `what` names the map in messages ("host", "pcie entry").
 */
int ymap_check_keys(const struct ytree *t, const struct ynode *m,
		    const char *what, const char *const *allowed,
		    struct plumb_err *err);

/* Fail with "expected a mapping/sequence/scalar for 'what'". */
int yexpect(const struct ytree *t, const struct ynode *n, enum ynode_type ty,
	    const char *what, struct plumb_err *err);

/* Error at node n's position; returns -code. */
int yerr(const struct ytree *t, const struct ynode *n, int code,
	 struct plumb_err *err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Typed scalar readers: fail with a precise message when n is not of the type. */
int yget_str(const struct ytree *t, const struct ynode *n, const char *what,
	     char *buf, size_t size, struct plumb_err *err);
int yget_int(const struct ytree *t, const struct ynode *n, const char *what,
	     long lo, long hi, long *out, struct plumb_err *err);
int yget_double(const struct ytree *t, const struct ynode *n, const char *what,
		double lo, double hi, double *out, struct plumb_err *err);
int yget_bool(const struct ytree *t, const struct ynode *n, const char *what,
	      int *out, struct plumb_err *err);
/*
 * A byte size: a number with an optional binary unit K, M, G, T, P (also
 * KiB..PiB, case-insensitive), e.g. "128G", "1.5T", "64MiB"; a bare number is
 * bytes. Result must be > 0 and fit in 64 bits.
 */
int yget_size(const struct ytree *t, const struct ynode *n, const char *what,
	      uint64_t *out, struct plumb_err *err);
/* One of the NULL-terminated `choices`; *out is its index. */
int yget_enum(const struct ytree *t, const struct ynode *n, const char *what,
	      const char *const *choices, int *out, struct plumb_err *err);

/* Parse a size string as yget_size does; 0 on success. */
int parse_size(const char *s, uint64_t *out);

/* Edit distance, for "did you mean" suggestions. */
int str_distance(const char *a, const char *b);

#endif
