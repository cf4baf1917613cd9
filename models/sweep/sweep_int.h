/*
 * sweep_int.h - internals shared by the files of models/sweep/.
 */
#ifndef PLUMB_SWEEP_INT_H
#define PLUMB_SWEEP_INT_H

#include "serve.h"
#include "sweep.h"

/* Names of the prediction settings, enum swp_kind order, NULL-terminated. */
extern const char *const swp_setting_names[SWP_NSETTINGS + 1];

/* Fill p from one item index per axis. */
void swp_grid_point_items(const struct swp_grid *g, const size_t *idx, struct swp_point *p);

/* swp_variant_load, also giving a hash of the variant's scenario text:
 * variants with the same content (keys, values, constants) have the same
 * hash whatever the points that made them. */
struct scenario;
int swp_variant_load_hash(const struct swp_grid *g, const struct swp_point *p,
			  struct scenario **out, uint64_t *hash, struct plumb_err *err);

/* A value node as one line of text, whole: a scalar's text, other nodes in
 * flow YAML ({a: 1, b: [x, y]}). malloc'd; NULL when out of memory. */
char *swp_node_str(const struct ynode *v);

/* ---- row text (rows.c) ---- */

/* A growing string; oom set (and text kept) when an allocation fails. */
struct swp_sb {
	char *s;
	size_t n, cap;
	int oom;
};

void swp_sb_put(struct swp_sb *b, const char *t, size_t len);
void swp_sb_printf(struct swp_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A CSV field, quoted when needed (always with force). */
void swp_csv_field(struct swp_sb *b, const char *s, int force);
/* A cell from the grid (a value, a layout): as swp_csv_field, but unless raw
 * one that starts with = + - @ TAB CR and is not a number, or starts with an
 * apostrophe, is written after an apostrophe (OWASP's CSV injection advice),
 * which swp_rows_key strips when it reads the row back. */
void swp_csv_cell(struct swp_sb *b, const char *s, int raw);
/* A JSON string (jansson's encoder; b->oom set when memory runs out); a
 * value: a number, its digits as the row's other formats print them, when
 * s is one as written, else a string. */
void swp_json_str(struct swp_sb *b, const char *s);
void swp_json_val(struct swp_sb *b, const char *s);

/* The columns every row starts with. */
#define SWP_NFIXED 7
extern const char *const swp_fixed_cols[SWP_NFIXED];
/* The latency percentile columns that end every row (then the KV cache's):
 * each of serve's distributions at each of its percentiles. */
#define SWP_NDIST (SERVE_NDIST * SERVE_NPCT)
/* Column i of them, "ttft_p50_ms" ..., into buf. */
void swp_dist_col(int i, char *buf, size_t n);
/* Name index of extra column c, or -1. */
int swp_extra_name(const struct swp_grid *g, int c);
/* A row key from the key columns' texts (n of them, each whole, of any
 * length) plus layout and concurrency, each followed by its length, so no
 * two different lists of texts give one key; malloc'd, NULL when out of
 * memory. */
char *swp_key_join(char *const *t, int n, const char *layout, const char *conc);

char *swp_rows_key(const struct swp_grid *g, enum swp_format fmt, const char *row);
char *swp_rows_header(const struct swp_grid *g, enum swp_format fmt);
const char *swp_rows_footer(const struct swp_grid *g, enum swp_format fmt);
const char *swp_rows_sep(const struct swp_grid *g, enum swp_format fmt, int first);

/* ---- rows to resume from (resume.c) ---- */

struct swp_old {
	char *key, *row;
	int used;
	int carry;              /* read from OUT.partial: carried into the new one */
};

/* Old rows: key -> row, in the order read. */
struct swp_oldmap {
	struct swp_old *v;      /* in the order read */
	size_t n, cap;
	size_t *tab;            /* hash slots: index + 1 into v, 0 empty */
	size_t tcap;
};

struct swp_old *swp_old_find(const struct swp_oldmap *m, const char *key);
void swp_old_free(struct swp_oldmap *m);

/* Read the earlier output at path into m (a missing file holds no rows).
 * Errors: EINPUT (other columns, a row that does not parse, too large),
 * EIO. */
int swp_read_old_path(struct swp_eval *e, const char *path, const char *header,
		      struct swp_oldmap *m, struct plumb_err *err);

/*
 * Open and lock the existing OUT.partial (created empty when there is
 * none): never through a symbolic link, only a regular file, locked (flock)
 * so that a second sweep on the same output stops with an error instead of
 * mixing its rows in. Temporary files a killed run left beside it
 * (OUT.partial.tmp.XXXXXX) are removed. When `m`, the rows already in it
 * are read (marked to be carried; a torn last line skipped). The file is
 * left as it is. Returns the locked descriptor, or a negative code.
 */
int swp_open_partial(struct swp_eval *e, const char *partial, const char *outpath,
		     const char *header, struct swp_oldmap *m, struct plumb_err *err);

/* ---- the runner, shared with the MPI driver (mpi.c) ---- */

struct swp_runner;

/*
 * Up to max point indices to evaluate, in order, into out; rows already in
 * the old output are handed to the writer on the way. Returns the count; 0
 * when every point has been handed out or the run stopped. With wait 0 it
 * also returns 0 when the writer's window is full (try again later).
 */
int swp_runner_take(struct swp_runner *r, uint64_t *out, int max, int wait);

/* Points not handed out yet (0 also once the run has stopped). */
uint64_t swp_runner_left(struct swp_runner *r);

/* The row of point i (ownership passes to the runner). */
void swp_runner_put(struct swp_runner *r, uint64_t i, char *row);

/* Stop the run with this error (the first one is kept). */
void swp_runner_fail(struct swp_runner *r, const struct plumb_err *e);

/* Called by the writer between rows (every millisecond or so while it
 * waits); returns 0 or a negative code that stops the run. */
typedef int (*swp_poll_fn)(void *ctx, struct swp_runner *r, struct plumb_err *err);

/* swp_run, with poll called from the writer thread (the process's main
 * thread); poll_ms is how long the writer sleeps between polls. */
int swp_run_with(const struct swp_grid *g, enum swp_format fmt, const struct swp_run_opts *o,
		 swp_poll_fn poll, void *pctx, int poll_ms, struct swp_run_stats *st,
		 struct plumb_err *err);

/* Evaluate points and send rows: the remote ranks' half of swp_run_mpi.
 * The evaluator and the worker threads are those of one process. */
struct swp_eval;
int swp_eval_many(struct swp_eval *e, const uint64_t *pts, int n, int jobs, char **rows,
		  struct plumb_err *err);

#endif
