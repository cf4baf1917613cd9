/*
 * cmd_validate.c - `plumb validate CASES.yaml`: predicted vs measured for
 * every validation case, as a Markdown report.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calib.h"
#include "cmd.h"
#include "out.h"
#include "valid.h"

const char cmd_validate_usage[] =
	"usage: plumb validate CASES.yaml [-o FILE] [--strict] [--cross] [--check-fits]\n"
	"                      [--points FILE]\n"
	"\n"
	"For every case in CASES.yaml (a measured nccl-tests table or\n"
	"p2pBandwidthLatencyTest output, and the scenario of its machine), predict\n"
	"each measured number and report the error: a summary (out-of-sample and\n"
	"fitted points in rows of their own; a case listing `fits:` is fitted), the\n"
	"model error of decode and serving points with their 90% ranges, then one\n"
	"table per case. The case format is in validation/README.md; `make validate` runs\n"
	"this on validation/cases.yaml and writes docs/validation.md.\n"
	"\n"
	"Options:\n"
	"  -o FILE     write the report to FILE (atomically) instead of stdout\n"
	"  --strict    exit 5 unless every point is within 2x and the median error\n"
	"              is at most 30% (the bar for default constants), or when the\n"
	"              model-error spread io/consts.c ships (tok_err_sd, ttft_err_sd)\n"
	"              is more than 0.005 from the one measured here\n"
	"  --cross     add the calibration cross-validation: for every nccl-tests\n"
	"              case, fit its constants on every other message size and\n"
	"              predict the sizes left out (and the other way round)\n"
	"  --check-fits  check that each case's `fits:` and the constants' sources\n"
	"              agree (a source naming a case's data file is listed in that\n"
	"              case's fits, and back); exit 3 naming the first disagreement\n"
	"  --points FILE  also write every point as CSV (case, fitted or out-of-sample,\n"
	"              kind, quantity, metric, point, measured, predicted and the 90%\n"
	"              range of decode and serving points): validation/coverage.sh\n"
	"  --csv-raw   the points' case names and labels as given; by default one a\n"
	"              spreadsheet would run as a formula (=, +, -, @, TAB, CR, not a\n"
	"              number) is written after an apostrophe\n"
	"  -h, --help  this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid case or data file, 4 I/O error,\n"
	"5 --strict and the bar is not met (with --cross also: held-out median\n"
	"error at most 5% and worst point at most 15%).\n";

/* The constants' draws of predict's range, for val_spread_run. */
static int draws_of(const struct plumb_consts *k, int n, struct plumb_consts *out, double *mult,
		    struct plumb_err *err)
{
	return cmd_interval_consts(k, n, 1, out, mult, err);
}

#define VALIDATE_DRAWS 50

static const struct option longopts[] = {
	{ "strict", no_argument, NULL, 's' },
	{ "cross", no_argument, NULL, 'x' },
	{ "check-fits", no_argument, NULL, 'f' },
	{ "points", required_argument, NULL, 'p' },
	{ "csv-raw", no_argument, NULL, 'r' },
	{ NULL, 0, NULL, 0 }
};

int cmd_validate(int argc, char **argv)
{
	struct plumb_err err;
	struct val_set *v = NULL;
	struct val_stats st, oos;
	struct val_sel oos_sel = { -1, 0, -1 };
	struct outfile out, pout;
	const char *path = NULL, *outpath = "-", *points = NULL;
	struct calib_cross_summary cs;
	int i, c, rc, strict = 0, opened = 0, cross = 0, check_fits = 0, stale = 0, popened = 0;
	int csv_raw = 0;

	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((c = cmd_getopt("validate", argc, argv, "o:", longopts)) != -1) {
		if (c == 'o')
			outpath = optarg;
		else if (c == 's')
			strict = 1;
		else if (c == 'x')
			cross = 1;
		else if (c == 'f')
			check_fits = 1;
		else if (c == 'p')
			points = optarg;
		else if (c == 'r')
			csv_raw = 1;
		else
			return -c;
	}
	for (i = optind; i < argc; i++) {
		if (!path)
			path = argv[i];
		else
			return cmd_usage_error("validate", "unexpected argument '%s'", argv[i]);
	}
	if (!path)
		return cmd_usage_error("validate", "missing CASES.yaml");
	if ((rc = val_load(path, &v, &err)) < 0 ||
	    (check_fits && (rc = val_fits_check(v, &err)) < 0) ||
	    (rc = val_predict(v, -1, &err)) < 0 ||
	    (rc = val_spread_run(v, VALIDATE_DRAWS, draws_of, &err)) < 0)
		goto fail;
	if ((rc = out_open(&out, outpath, &err)) < 0)
		goto fail;
	opened = 1;
	val_report(out.f, v, "Validation: plumb against measured runs");
	if (points) {   /* before --cross replaces predictions */
		if ((rc = out_open(&pout, points, &err)) < 0)
			goto fail;
		popened = 1;
		val_points_csv(pout.f, v, csv_raw);
	}
	val_stats(v, 0, v->npoints, &st);   /* before --cross replaces predictions */
	val_stats_sel(v, &oos_sel, &oos);
	if (cross) {
		fputs("\n## Calibration: cross-validation on nccl-tests sizes\n\n"
		      "`plumb calibrate` fits constants to measurements; this checks that a fit\n"
		      "predicts what it was not given. For every nccl-tests case above, the\n"
		      "constants its data informs (those `plumb calibrate` frees by default for\n"
		      "it) are fitted on every other message size (the posterior fit, priors\n"
		      "centred on the case's scenario), and the sizes left out are predicted;\n"
		      "then the halves swap.\n"
		      "A half of k sizes fits at most k - 1 constants: when the data informs more,\n"
		      "the ones that move its predictions most are fitted and the rest kept.\n"
		      "Errors are |predicted / measured - 1| of the held-out sizes. Bar: median\n"
		      "at most 3%, worst point at most 15%.\n\n", out.f);
		if ((rc = calib_cross(v, out.f, &cs, &err)) < 0)
			goto fail;
		fprintf(out.f, "\nAll cases: %d held-out points, median error %.1f%%, worst %.1f%% (%s); "
			"bar %s.\n", cs.npoints, 100 * cs.median, 100 * cs.worst, cs.worst_case,
			cs.median <= 0.03 && cs.worst <= 0.15 ? "met" : "not met");
	}
	opened = 0;
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	popened = 0;
	if (points && (rc = out_commit(&pout, &err)) < 0)
		goto fail;
	fprintf(stderr, "plumb validate: %d cases, %d points, median error %.1f%%, %d of %d within 2x\n",
		v->ncases, st.n, 100 * st.median_err, st.within2x, st.n);
	{
		int q;
		fprintf(stderr, "plumb validate: out of sample %d points, median error %.1f%%, %d within 2x\n",
			oos.n, 100 * oos.median_err, oos.within2x);
		for (q = VAL_Q_RATE; q < VAL_NQ; q++) {
			struct val_spread_summary sp;
			if (val_spread_get(v, q, &sp) && sp.n && fabs(sp.sd_const - sp.sd_all) > 0.005) {
				fprintf(stderr, "plumb validate: the %s model error io/consts.c ships, %.4f, "
					"is stale: the out-of-sample points give %.4f\n",
					q == VAL_Q_TTFT ? "TTFT" : "tok/s", sp.sd_const, sp.sd_all);
				stale = 1;
			}
		}
	}
	if (cross)
		fprintf(stderr, "plumb validate: cross-validation over %d nccl-tests cases, %d held-out points, median error %.1f%%, worst %.1f%% (%s)\n",
			cs.ncases, cs.npoints, 100 * cs.median, 100 * cs.worst, cs.worst_case);
	val_free(v);
	if (strict && (st.within2x < st.n || st.median_err > 0.30 || stale))
		return PLUMB_ERUNTIME;
	if (strict && cross && (cs.median > 0.05 || cs.worst > 0.15))
		return PLUMB_ERUNTIME;
	return PLUMB_OK;
fail:
	if (opened)
		out_abort(&out);
	if (popened)
		out_abort(&pout);
	plumb_err_print(&err);
	val_free(v);
	return plumb_err_status(&err);
}
