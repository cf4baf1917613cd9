/*
 * cmd.c - the subcommand table and the helpers every command uses.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "err.h"

const struct plumb_cmd plumb_commands[] = {
	{ "predict", cmd_predict, "tokens/s for a model, layouts and concurrency on one box",
	  cmd_predict_usage },
	{ "compare", cmd_compare, "the same prediction on several boxes side by side, with speed-ups",
	  cmd_compare_usage },
	{ "sweep", cmd_sweep, "predict over a grid: scenarios x keys x layouts x load, CSV or JSON (MPI too)",
	  cmd_sweep_usage },
	{ "topo", cmd_topo, "topology views: topo -m, P2P status, IOMMU groups, NCCL transports, BARs",
	  cmd_topo_usage },
	{ "import", cmd_import, "write a scenario skeleton from `nvidia-smi topo -m` or `lspci` output",
	  cmd_import_usage },
	{ "xfer", cmd_xfer, "p2pBandwidthLatencyTest-style matrices: P2P vs host-bounce copies",
	  cmd_xfer_usage },
	{ "coll", cmd_coll, "nccl-tests style tables: NCCL collectives simulated on the fabric",
	  cmd_coll_usage },
	{ "bench", cmd_bench, "engine speed: events/s, flow re-solves/s, memory",
	  cmd_bench_usage },
	{ "validate", cmd_validate, "predicted vs measured for a list of real runs (docs/validation.md)",
	  cmd_validate_usage },
	{ "calibrate", cmd_calibrate, "fit the model's constants to your measurements (--calib FILE)",
	  cmd_calibrate_usage },
	{ "render", cmd_render, "pictures: topology, topo matrix, step timeline, throughput, fit (PNG/SVG/PDF)",
	  cmd_render_usage },
	{ "trace", cmd_trace, "one simulated decode step as a Chrome trace (Perfetto, chrome://tracing)",
	  cmd_trace_usage },
	{ "constants", cmd_constants, "the model's named constants, their values and sources",
	  cmd_constants_usage },
	{ NULL, NULL, NULL, NULL }
};

const struct plumb_cmd *plumb_cmd_find(const char *name)
{
	const struct plumb_cmd *c;
	for (c = plumb_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static const struct calib_file *the_calib;

const struct calib_file *cmd_calib(void)
{
	return the_calib;
}

void cmd_set_calib(const struct calib_file *c)
{
	the_calib = c;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fputs("plumb: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'plumb %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return PLUMB_EUSAGE;
}

int cmd_wants_help(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	}
	return 0;
}

