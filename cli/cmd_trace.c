/*
 * cmd_trace.c - `plumb trace`: one simulated decode step in Chrome trace
 * event format (render/trace.c), for chrome://tracing or Perfetto.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_stepopt.h"
#include "out.h"
#include "render.h"

const char cmd_trace_usage[] =
	"usage: plumb trace SCENARIO [options] -o FILE\n"
	"\n"
	"Simulate one decode step and write it in Chrome trace event format (JSON), to\n"
	"open in https://ui.perfetto.dev or chrome://tracing: one track per GPU with\n"
	"every compute op, collective and pipeline send as it ran, and one track per\n"
	"link (PCIe, root complex, host memory, inter-socket, NVLink) that carried\n"
	"traffic, with its load in GB/s and as a share of its capacity over time.\n"
	"Times are microseconds from the start of the step.\n"
	"\n"
	"Options:\n"
	CMD_STEPOPT_HELP
	"  -o FILE                write to FILE (atomically; default: standard output)\n"
	"  -h, --help             this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input or a model that does not fit,\n"
	"4 I/O error, 5 runtime error.\n"
	"Example: plumb trace scenarios/proxmox-vm-8x-rtxpro6000.yaml --layout tp4pp2 \\\n"
	"           --batch 8 -o step.json\n";

static const struct option longopts[] = {
	CMD_STEPOPT_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

int cmd_trace(int argc, char **argv)
{
	struct cmd_stepopt so;
	struct plumb_err err;
	struct scenario *s = NULL;
	struct pred_cfg c;
	struct outfile out;
	const char *path = NULL, *outpath = "-";
	int i, opt, rc, opened = 0;

	cmd_stepopt_init(&so);
	cmd_getopt_start();
	while ((opt = cmd_getopt("trace", argc, argv, "o:", longopts)) != -1) {
		if (opt == 'o')
			outpath = optarg;
		else if ((rc = cmd_stepopt_take("trace", &so, opt, optarg)) != 1)
			return rc ? PLUMB_EUSAGE : -opt;
	}
	for (i = optind; i < argc; i++) {
		if (path)
			return cmd_usage_error("trace", "one SCENARIO");
		path = argv[i];
	}
	if (!path)
		return cmd_usage_error("trace", "missing SCENARIO file");
	plumb_err_clear(&err);
	if ((rc = scn_load(path, &s, &err)) < 0 || (rc = cmd_stepopt_cfg(&so, s, &c, &err)) < 0 ||
	    (rc = pred_check_fit(&c, so.batch, so.context, &err)) < 0 ||
	    (rc = out_open(&out, outpath, &err)) < 0)
		goto fail;
	opened = 1;
	if ((rc = rdr_trace(out.f, &c, so.batch, so.context, NULL, &err)) < 0)
		goto fail;
	opened = 0;
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	scn_free(s);
	return PLUMB_OK;
fail:
	if (opened)
		out_abort(&out);
	scn_free(s);
	plumb_err_print(&err);
	return plumb_err_status(&err);
}
