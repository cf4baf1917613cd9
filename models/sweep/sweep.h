/*
 * sweep.h - parameter sweeps: a grid of `plumb predict` runs (docs/sweep.md).
 *
 * A grid file names settings for every point (`set:`) and axes (`axes:`)
 * whose cartesian product are the points; the first axis varies slowest. A
 * name is one of
 *   - a prediction setting: scenario, model, weights, kv, layout,
 *     concurrency, context, input, output, microbatches, mtp, accept, eager;
 *   - a scenario key by its dotted path (`host.inter_socket.bandwidth_gbs`,
 *     `constants.nccl_shm_gbs`, `pcie[gpu0].gen`: `[X]` picks the list entry
 *     whose id is X, else the X-th entry counting from 0);
 *   - a free input (`price_usd`): carried to the output untouched.
 * An axis item may be a mapping `{value: V, NAME: W, ...}`: the axis takes V
 * and the other names take W at that item (a price per scenario).
 *
 * Scenario variants: the base scenario's YAML tree is written back out as
 * block YAML with the point's overrides substituted (swp_variant_text) and
 * parsed by scn_parse, so a variant is validated exactly like a file; a map
 * from the written lines back to the grid and scenario files turns its errors
 * into FILE:LINE:COL of the value that caused them. Points that differ only
 * in axes that do not touch the scenario share one variant (same id).
 *
 * Step cache (struct swp_cache): every step a point's serving run asks for
 * is keyed by (scenario content, model, dtypes, layout, launch mode,
 * microbatches, drafts, kind, batch, context, tokens), the content being a
 * hash of the variant's written YAML, so a sweep simulates each distinct
 * step once per process. It is thread-safe; a thread asking for a step
 * another thread is simulating waits for that result.
 *
 * Rows: CSV or JSON, one per point in point order, columns
 *   scenario,model,weights,kv,input,output,cached_context,<other names>,
 *   layout,gpus,concurrency,context,step_ms,...,diagnosis (as plumb predict),
 *   tok_s_per_k<unit> for each free input named price_<unit>.
 * A row is identified (for resuming) by its key: every column before
 * `layout`, plus layout and concurrency.
 *
 * No globals: everything lives in the structs below. Thread-safety: a grid
 * is read-only after swp_grid_load; a struct swp_eval may be shared by
 * threads (it locks its caches).
 */
#ifndef PLUMB_SWEEP_H
#define PLUMB_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "ytree.h"

#define SWP_MAX_POINTS 10000000ull  /* larger grids are refused */
#define SWP_MAX_AXES 32
#define SWP_MAX_NAMES 64
#define SWP_MAX_SEGS 8

enum swp_kind {
	SWP_SCENARIO, SWP_MODEL, SWP_WEIGHTS, SWP_KV, SWP_LAYOUT, SWP_CONCURRENCY,
	SWP_CONTEXT, SWP_INPUT, SWP_OUTPUT, SWP_MICRO, SWP_MTP, SWP_ACCEPT, SWP_EAGER,
	SWP_NSETTINGS,
	SWP_PATH = SWP_NSETTINGS,   /* a scenario key */
	SWP_FREE                    /* a free input */
};

struct swp_seg {
	char key[64];           /* map key, or the selector text */
	int select;             /* 1: `[key]` list selector */
};

/* A settable name (a column unless it is one of the fixed ones). */
struct swp_name {
	char name[128];
	enum swp_kind kind;
	int nseg;
	struct swp_seg seg[SWP_MAX_SEGS];   /* SWP_PATH */
	const struct ynode *where;          /* first mention, for messages */
	int column;                         /* position among the extra columns, -1: fixed */
};

/* One name set to one value (a node of the grid tree). */
struct swp_setting {
	int name;               /* index into grid names */
	const struct ynode *val;
	int base;               /* SWP_SCENARIO: index into grid bases */
};

/* One item of an axis: its value and the values attached to it. */
struct swp_item {
	int n;
	struct swp_setting *set;   /* n entries, owned by the grid */
};

struct swp_axis {
	int name;               /* the axis's own name */
	const struct ynode *key;
	size_t nitems;
	struct swp_item *items;
	int scn;                /* 1: some item touches the scenario */
};

struct swp_base {
	char path[1024];        /* as opened (grid directory + value) */
	struct ytree *t;
};

struct swp_grid {
	struct ytree *t;
	char file[512];
	char dir[512];
	char name[96];
	int nnames;
	struct swp_name names[SWP_MAX_NAMES];
	int nextra;             /* extra columns (names with column >= 0) */
	struct swp_item set;    /* `set:` */
	int naxes;
	struct swp_axis axes[SWP_MAX_AXES];
	uint64_t npoints;
	int csv_raw;            /* 1: CSV cells from the grid as given (--csv-raw);
				   0: a cell a spreadsheet would take as a formula
				   gets a leading apostrophe (swp_csv_cell) */
	int nbases;
	struct swp_base *bases;
	int nprice;             /* free inputs named price_<unit> */
	int price[SWP_MAX_NAMES];   /* their name indices */
};

/* A point: the value node of every name (NULL = the default). */
struct swp_point {
	uint64_t index;
	uint64_t variant;       /* scenario variant id */
	const struct ynode *val[SWP_MAX_NAMES];
	int base;               /* index into grid bases */
};

/*
 * Load and check a grid file: names, values of the prediction settings,
 * every scenario file it names, the point count (at most SWP_MAX_POINTS;
 * the message names the count). On success *out is a new grid (free with
 * swp_grid_free). Errors: EINPUT with FILE:LINE:COL, EIO.
 */
int swp_grid_load(const char *path, struct swp_grid **out, struct plumb_err *err);

/* Same from text; `file` names it and its directory anchors relative paths. */
int swp_grid_parse(const char *file, const char *text, struct swp_grid **out,
		   struct plumb_err *err);

void swp_grid_free(struct swp_grid *g);

/* Fill p for point index i < g->npoints (mixed radix, last axis fastest). */
void swp_grid_point(const struct swp_grid *g, uint64_t i, struct swp_point *p);

/*
 * The scenario YAML of point p: the base tree with p's overrides. *text is
 * malloc'd (caller frees). Errors (EINPUT): a path that does not resolve
 * in the base, at the axis name in the grid.
 */
int swp_variant_text(const struct swp_grid *g, const struct swp_point *p, char **text,
		     struct plumb_err *err);

/*
 * Parse the variant of p into *out (scn_free it). Errors of the scenario
 * loader are reported at the grid value or scenario line that caused them.
 */
struct scenario;
int swp_variant_load(const struct swp_grid *g, const struct swp_point *p,
		     struct scenario **out, struct plumb_err *err);

/* Check every axis value once against its scenario(s): errors before work. */
int swp_grid_check(const struct swp_grid *g, struct plumb_err *err);

/* ---- step cache ---------------------------------------------------------- */

/* Everything that determines one simulated step. Zero it before filling. */
struct swp_step_key {
	uint64_t variant;       /* hash of the scenario variant's text */
	int model, weights, kv;
	char layout[32];
	int graphs, micro, draft;
	double accept;
	int kind;               /* enum serve_step, or 99: the report step with its breakdown */
	int batch;
	long context, tokens;
	int dbatch;             /* a mixed step's decode part (struct serve_shape) */
	long dcontext;
};

struct swp_step_val {
	double seconds;
	double comm_s, compute_s, idle_s;
	double activity;        /* cost_activity of the step (models/cost) */
	char diag[320];
};

struct swp_cache_stats {
	uint64_t lookups, hits, misses, waits;
};

struct swp_cache;

/* A new empty cache (NULL when out of memory); swp_cache_free(NULL) is a no-op. */
struct swp_cache *swp_cache_new(void);
void swp_cache_free(struct swp_cache *c);

/* Compute the value of a step (called once per distinct key). */
typedef int (*swp_step_fn)(void *ctx, const struct swp_step_key *k, struct swp_step_val *v,
			   struct plumb_err *err);

/*
 * The value for k: from the cache, or computed by fn(ctx, ...) and stored.
 * If another thread is computing k, waits for it. Errors: fn's (not stored).
 */
int swp_cache_get(struct swp_cache *c, const struct swp_step_key *k, swp_step_fn fn,
		  void *ctx, struct swp_step_val *v, struct plumb_err *err);

void swp_cache_stats(struct swp_cache *c, struct swp_cache_stats *s);

/* ---- evaluating points and writing rows ------------------------------------ */

enum swp_format { SWP_CSV, SWP_JSON };

struct swp_eval;

/* Shared evaluation state for g (borrowed; outlives it): caches of steps and
 * parsed scenario variants. NULL when out of memory. */
struct swp_eval *swp_eval_new(const struct swp_grid *g, enum swp_format fmt);
void swp_eval_free(struct swp_eval *e);

/*
 * Evaluate point i and format its row (one line, no newline; JSON: one
 * object). *row is malloc'd, caller frees. A layout that does not fit or
 * needs more GPUs than the scenario has gives fits 0 and the reason.
 * Errors: EINPUT (a scenario variant that does not validate), ERUNTIME.
 */
int swp_eval_point(struct swp_eval *e, uint64_t i, char **row, struct plumb_err *err);

/* The key of point i (see above), malloc'd. */
char *swp_point_key(struct swp_eval *e, uint64_t i);

/* The key of a row as swp_eval_point formats it (or as read back), malloc'd;
 * NULL when the row does not parse. */
char *swp_row_key(const struct swp_eval *e, const char *row);

/* Header (CSV: the column line; JSON: the opening up to the row list) and
 * footer, malloc'd. */
char *swp_header(const struct swp_eval *e);
const char *swp_footer(const struct swp_eval *e);

/* Separator written before a row: JSON "\n" for the first, ",\n" after. */
const char *swp_row_sep(const struct swp_eval *e, int first);

struct swp_cache *swp_eval_cache(struct swp_eval *e);

/* ---- running a sweep --------------------------------------------------------- */

struct swp_run_opts {
	const char *outpath;    /* "-": stdout, no resume */
	int jobs;               /* worker threads (>= 1) */
	int progress;           /* 1: progress bar on stderr */
	int resume;             /* 1: skip rows already in outpath */
};

struct swp_run_stats {
	uint64_t points, computed, reused, kept;   /* kept: old rows not in the grid */
	double wall_s;
	struct swp_cache_stats cache;
};

/*
 * Run the sweep: evaluate every point not already in the output with `jobs`
 * threads, write rows in point order to OUT.partial (flushed as the
 * in-order prefix grows, so an interrupted run can be resumed), then add old
 * rows that are not in the grid and rename OUT.partial over OUT. Output is
 * the same bytes for any number of jobs.
 * Errors: EINPUT (a variant, or an output file from another grid), EIO.
 */
int swp_run(const struct swp_grid *g, enum swp_format fmt, const struct swp_run_opts *o,
	    struct swp_run_stats *st, struct plumb_err *err);

#ifdef PLUMB_MPI
/*
 * The same across the ranks of MPI_COMM_WORLD (MPI must be initialised with
 * at least MPI_THREAD_FUNNELED): rank 0 hands out chunks of points on
 * request, evaluates points on its own threads too and writes the output;
 * the other ranks evaluate what they are given and send the rows back.
 */
int swp_run_mpi(const struct swp_grid *g, enum swp_format fmt, const struct swp_run_opts *o,
		struct swp_run_stats *st, struct plumb_err *err);
#endif

#endif
