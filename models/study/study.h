/*
 * study.h - `plumb report`: one self-contained HTML page about a migration
 * or purchase decision, for someone who will never run plumb.
 *
 * The numbers are those of `plumb compare` (or `plumb predict` for one
 * box): the report runs that command into a temporary directory with
 * --format json (every row, its interval, its diagnosis) and, for several
 * boxes, as a table (the "what the speed-up depends on" lines); `plumb
 * topo` gives each box's findings. The commands come in as function
 * pointers (struct study_cmds), so models/ does not depend on cli/. The page
 * opens with the answer in one sentence (the same layout and best against
 * best, both named, with the load and lengths), then holds the answer with
 * its range, the latency percentiles against the targets, each box's power
 * and $ per million tokens (models/cost), the throughput chart and each box's
 * topology as inline SVG, the tables, the diagnosis, the assumptions and
 * the calibration used, and a footer with plumb's version, the date and
 * the command line. It is written through io/out.h (atomically); the
 * same inputs give the same bytes. The temporary directory is removed on
 * every path.
 *
 * Scale: no fixed limit on scenarios, layouts, loads or rows (all dynamic
 * arrays); every layout the prediction ran is shown. Without --layout, a
 * scenario of several hosts adds dpHtpG (a tensor-parallel copy per host
 * of G GPUs, H copies) to predict's default tp over every GPU, which a
 * model's heads often do not divide past 64 GPUs. A cluster whose
 * topology picture draws only its first hosts highlights a transfer
 * between GPUs that picture shows.
 */
#ifndef PLUMB_STUDY_H
#define PLUMB_STUDY_H

#include "calib.h"
#include "cost.h"

/* The commands the report runs (argv[0] is the command's name). */
struct study_cmds {
	int (*compare)(int argc, char **argv);
	int (*predict)(int argc, char **argv);
	int (*topo)(int argc, char **argv);
	/* the 5th and 95th percentile of vals[0..n) (NaN skipped) */
	void (*interval)(const double *vals, int n, double *lo, double *hi);
};

struct study_opts {
	const char *out;                /* the page, .html */
	char **paths;                   /* the scenarios (borrowed) */
	int npaths;
	char **pass;                    /* options handed on to compare/predict */
	int npass;
	int draws_given;                /* --draws among pass */
	int layout_given;               /* --layout among pass */
	const char *input, *output, *context;   /* as given (for the assumptions) */
	const struct calib_file *calib; /* --calib, NULL none (borrowed) */
	int calib_draws;                /* default --draws with ranges */
	double slo_ttft_p90, slo_tpot_p90;      /* targets in ms, 0: none */
	struct cost_opts cost;          /* the money options (0: not given) */
	const char *version;            /* "plumb 0.1", as --version prints it */
	long long when;                 /* the page's date, seconds since 1970 UTC */
	char **argv;                    /* the command line after "plumb" (borrowed) */
	int argc;
	struct study_cmds cmd;
};

/*
 * Write the page o describes. Returns an exit status (PLUMB_OK or a
 * PLUMB_E* code); the error is printed (a command run underneath prints
 * its own). Nothing is left at o->out on failure (the old file stays).
 */
int study_write(const struct study_opts *o);

#endif
