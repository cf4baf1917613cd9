/*
 * cmd_predict_int.h - what `plumb predict` / `compare`'s two files share:
 * the options (cli/cmd_predict.c parses them and runs the points through
 * models/predict) and the printers of the rows (cli/cmd_predict_out.c:
 * table, CSV, JSON, what a speed-up depends on, the throughput chart).
 */
#ifndef PLUMB_CMD_PREDICT_INT_H
#define PLUMB_CMD_PREDICT_INT_H

#include <stdio.h>

#include "plan.h"
#include "predict_run.h"
#include "predict_disagg.h"

#define MAXLIST PRED_MAXLIST
#define MAXSCN 8

/* The options: what is predicted (r, models/predict), and how it is shown. */
struct popts {
	struct pred_run r;
	const char *format, *outpath;
	int breakdown;              /* --breakdown: the step's parts */
	const char *paths[MAXSCN];
	int npaths;
	const char *plot;           /* --plot FILE: the throughput chart */
	const char *trace;          /* --trace FILE */
	struct serve_request *reqs; /* its requests (owned) */
	int accept_given;           /* --accept given (only with --mtp) */
	int percentiles;            /* --percentiles */
	int csv_raw;                /* --csv-raw: CSV cells as given (out_csv_cell) */
	/* The engine stack of each box (its first layout), and for predict the
	 * answer under the other engines (pred_run_engines). */
	char stack[MAXSCN][640];
	struct pred_engine_alt alt[3];
	int nalt;
	/* power and money (--price-usd ...), and plan's search and SLO */
	struct cost_opts cost;
	struct plan_slo slo;
	long chunks[PLAN_MAXSET], maxbt[PLAN_MAXSET];
	int nchunk, nmaxbt;
	int top;                    /* plan: rows printed per verdict, 0 all */
};

/*
 * The options of predict, compare and plan (cmd is the command's name:
 * plan also takes the SLO, lists of engine settings and its own defaults)
 * into o; at least min_paths SCENARIO arguments. 0, or the exit status of
 * a usage error (printed).
 */
int cmd_predict_parse(const char *cmd, int argc, char **argv, struct popts *o, int min_paths);

/* --trace FILE into o->reqs (owned by o) and o->r. Errors: EINPUT, EIO. */
int cmd_predict_read_trace(struct popts *o, struct plumb_err *err);

/* --format csv or table (compare: several boxes side by side). */
void cmd_predict_rows(FILE *f, const struct popts *o, struct scenario **s, int ns,
		      const struct pred_row *rows, int nrows, int compare);

/* --format json: the whole document (docs/cli-predict.md); EUNTIME out of memory. */
int cmd_predict_json(FILE *f, const struct popts *o, struct scenario **s,
		     const struct pred_row *rows, int nrows, struct plumb_err *err);

/* compare's table: what each bare-metal box's speed-up over the first
 * depends on (pred_run_depends). */
int cmd_predict_depends(FILE *f, const struct popts *o, struct scenario **s,
			const struct pred_row *rows, int nrows, struct plumb_err *err);

/* --plot FILE: total tok/s against the load, a line per box and layout. */
int cmd_predict_plot(const struct popts *o, struct scenario **s, const struct pred_row *rows,
		     int nrows, struct plumb_err *err);

#endif
