/*
 * cmd_validate.c - `plumb validate CASES.yaml`: predicted vs measured for
 * every validation case, as a Markdown report.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "calib.h"
#include "cmd.h"
#include "out.h"
#include "valid.h"

const char cmd_validate_usage[] =
	"usage: plumb validate CASES.yaml [-o FILE] [--strict] [--cross]\n"
	"\n"
	"For every case in CASES.yaml (a measured nccl-tests table or\n"
	"p2pBandwidthLatencyTest output, and the scenario of its machine), predict\n"
	"each measured number and report the error: a summary, then one table per\n"
	"case. The case format is in validation/README.md; `make validate` runs\n"
	"this on validation/cases.yaml and writes docs/validation.md.\n"
	"\n"
	"Options:\n"
	"  -o FILE     write the report to FILE (atomically) instead of stdout\n"
	"  --strict    exit 5 unless every point is within 2x and the median error\n"
	"              is at most 30% (the bar for default constants)\n"
	"  --cross     add the calibration cross-validation: for every nccl-tests\n"
	"              case, fit its constants on every other message size and\n"
	"              predict the sizes left out (and the other way round)\n"
	"  -h, --help  this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid case or data file, 4 I/O error,\n"
	"5 --strict and the bar is not met (with --cross also: held-out median\n"
	"error at most 5% and worst point at most 15%).\n";

static const struct option longopts[] = {
	{ "strict", no_argument, NULL, 's' },
	{ "cross", no_argument, NULL, 'x' },
	{ NULL, 0, NULL, 0 }
};

int cmd_validate(int argc, char **argv)
{
	struct plumb_err err;
	struct val_set *v = NULL;
	struct val_stats st;
	struct outfile out;
	const char *path = NULL, *outpath = "-";
	struct calib_cross_summary cs;
	int i, c, rc, strict = 0, opened = 0, cross = 0;

	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((c = cmd_getopt("validate", argc, argv, "o:", longopts)) != -1) {
		if (c == 'o')
			outpath = optarg;
		else if (c == 's')
			strict = 1;
		else if (c == 'x')
			cross = 1;
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
	if ((rc = val_load(path, &v, &err)) < 0 || (rc = val_predict(v, -1, &err)) < 0)
		goto fail;
	if ((rc = out_open(&out, outpath, &err)) < 0)
		goto fail;
	opened = 1;
	val_report(out.f, v, "Validation: plumb against measured runs");
	val_stats(v, 0, v->npoints, &st);   /* before --cross replaces predictions */
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
	fprintf(stderr, "plumb validate: %d cases, %d points, median error %.1f%%, %d of %d within 2x\n",
		v->ncases, st.n, 100 * st.median_err, st.within2x, st.n);
	if (cross)
		fprintf(stderr, "plumb validate: cross-validation over %d nccl-tests cases, %d held-out points, median error %.1f%%, worst %.1f%% (%s)\n",
			cs.ncases, cs.npoints, 100 * cs.median, 100 * cs.worst, cs.worst_case);
	val_free(v);
	if (strict && (st.within2x < st.n || st.median_err > 0.30))
		return PLUMB_ERUNTIME;
	if (strict && cross && (cs.median > 0.05 || cs.worst > 0.15))
		return PLUMB_ERUNTIME;
	return PLUMB_OK;
fail:
	if (opened)
		out_abort(&out);
	plumb_err_print(&err);
	val_free(v);
	return plumb_err_status(&err);
}
