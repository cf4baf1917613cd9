/*
 * cmd_report.c - `plumb report`: the options, then models/study writes the
 * page (study.h says what it holds and how it is made).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cmd.h"
#include "cost.h"
#include "datadir.h"
#include "study.h"

const char cmd_report_usage[] =
	"usage: plumb report [SCENARIO...] -o FILE.html [options]\n"
	"\n"
	"Write one self-contained HTML page about the boxes: the answer (what the\n"
	"best layout of each box gains over the first box's best, at the lowest and\n"
	"highest load, with 90% ranges), the throughput chart, the tok/s table with\n"
	"speed-ups, the diagnosis of every layout, what the speed-up depends on, each\n"
	"box's topology picture and findings, the assumptions and the calibration\n"
	"used. It opens with the answer in one sentence (the same layout on both\n"
	"boxes and each at its best, both named) and holds the latency percentiles\n"
	"(TTFT, TPOT p50/p90/p99) of each box's best layout per load against the\n"
	"targets given, each box's power and $ per million tokens, and a footer with\n"
	"plumb's version, the date (SOURCE_DATE_EPOCH when set) and the command line.\n"
	"Figures are inline SVG; the page needs no network and no plumb to\n"
	"open. The numbers are those of `plumb compare` (`plumb predict` for one\n"
	"box). Without SCENARIO: the seed comparison of bare `plumb` (the Proxmox\n"
	"VM, bare metal and the switch chassis; layouts tp8,tp4pp2,ep8).\n"
	"\n"
	"Options:\n"
	"  -o FILE                the page (.html or .htm; required; written\n"
	"                         atomically)\n"
	"  --draws N              Monte Carlo draws of the 90% ranges (default 32; 0:\n"
	"                         none). With --calib FILE, from the calibration's\n"
	"                         covariance and residual spread; without, from the\n"
	"                         step constants the scenarios leave open, over their\n"
	"                         plausible ranges or the GPU catalog's measured spreads\n"
	"  --model M, --weights W, --kv DTYPE, --layout L,..., --concurrency C,...,\n"
	"  --input N, --output N, --context N, --microbatches M, --mtp D, --accept A,\n"
	"  --eager, --nccl-p2p-level L, --engine E[@V]\n"
	"                         as for `plumb predict`\n"
	"  --price-usd USD, --life-years Y, --usd-per-kwh P, --pue X,\n"
	"  --hosting-usd-kw-month H, --host-w W\n"
	"                         what the power and money table assumes, as for\n"
	"                         `plumb plan` (default: the scenario's cost: section,\n"
	"                         else the defaults docs/model-constants.md cites)\n"
	"  --ttft-p90 MS, --tpot-p90 MS\n"
	"                         service-level targets: the latency table says for\n"
	"                         each box and load whether its best layout meets them\n"
	"  -h, --help             this help\n"
	"\n"
	"Any number of scenarios, layouts and loads: the tables have a row for every\n"
	"layout and load and a column for every box. A cluster too large to draw in\n"
	"full has its first hosts drawn and the transfer highlighted among them;\n"
	"without --layout it also runs dpHtpG, a tensor-parallel copy per host.\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input (a scenario, a model that does\n"
	"not fit anywhere), 4 I/O error, 5 runtime error.\n"
	"Example: plumb report -o study.html\n"
	"         plumb report scenarios/proxmox-vm-8x-rtxpro6000.yaml \\\n"
	"             scenarios/baremetal-8x-rtxpro6000.yaml --layout tp8,ep8 -o vm-vs-bm.html\n";

#define MAXPASS 40

struct ropts {
	const char *out;
	char **paths;                   /* the scenarios (argv's, or seed's) */
	char *seed_paths[3];
	char seed[3][4096];             /* the seed scenarios' paths */
	int npaths;
	char *pass[MAXPASS];            /* options handed on to compare / predict */
	int npass;
	int draws_given, layout_given;
	const char *input, *output, *context;
	const char *engine;             /* --engine, NULL: each scenario's */
	double ttft_p90, tpot_p90;      /* --ttft-p90, --tpot-p90; 0 none */
	long long when;                 /* SOURCE_DATE_EPOCH, else now */
	struct cost_opts cost;          /* the money options */
};

/* Options of `plumb predict` the report hands on: with a value, then the
 * flag (the last). Handed on as "--name value". */
static char pass_names[][20] = {
	"--model", "--weights", "--kv", "--layout", "--concurrency", "--input", "--output",
	"--context", "--microbatches", "--mtp", "--accept", "--nccl-p2p-level", "--draws", "--engine",
	"--eager"
};
#define NPASS_VALUE 14          /* the first 14 take a value */

static const struct option longopts[] = {
	{ "model", required_argument, NULL, 0x100 + 0 },
	{ "weights", required_argument, NULL, 0x100 + 1 },
	{ "kv", required_argument, NULL, 0x100 + 2 },
	{ "layout", required_argument, NULL, 0x100 + 3 },
	{ "concurrency", required_argument, NULL, 0x100 + 4 },
	{ "input", required_argument, NULL, 0x100 + 5 },
	{ "output", required_argument, NULL, 0x100 + 6 },
	{ "context", required_argument, NULL, 0x100 + 7 },
	{ "microbatches", required_argument, NULL, 0x100 + 8 },
	{ "mtp", required_argument, NULL, 0x100 + 9 },
	{ "accept", required_argument, NULL, 0x100 + 10 },
	{ "nccl-p2p-level", required_argument, NULL, 0x100 + 11 },
	{ "draws", required_argument, NULL, 0x100 + 12 },
	{ "engine", required_argument, NULL, 0x100 + 13 },
	{ "eager", no_argument, NULL, 0x100 + 14 },
	{ "ttft-p90", required_argument, NULL, 0x100 + 15 },
	{ "tpot-p90", required_argument, NULL, 0x100 + 16 },
	{ "price-usd", required_argument, NULL, 0x100 + 17 },
	{ "life-years", required_argument, NULL, 0x100 + 18 },
	{ "usd-per-kwh", required_argument, NULL, 0x100 + 19 },
	{ "pue", required_argument, NULL, 0x100 + 20 },
	{ "hosting-usd-kw-month", required_argument, NULL, 0x100 + 21 },
	{ "host-w", required_argument, NULL, 0x100 + 22 },
	{ NULL, 0, NULL, 0 }
};

static int html_name(const char *p)
{
	const char *dot = strrchr(p, '.');
	return dot && !strchr(dot, '/') && (!strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm"));
}

static char opt_layout[] = "--layout", seed_layouts[] = "tp8,tp4pp2,ep8";

static int parse(int argc, char **argv, struct ropts *o)
{
	static const char *cmd = "report";
	int i, opt;
	memset(o, 0, sizeof(*o));
	o->input = o->output = "1024";
	o->context = "0";
	cmd_getopt_start();
	while ((opt = cmd_getopt(cmd, argc, argv, "o:", longopts)) != -1) {
		int k = opt - 0x100;
		if (opt < 0)
			return -opt;
		if (opt == 'o') {
			o->out = optarg;
			continue;
		}
		if (k == 15 || k == 16) {
			char *end;
			double x;
			errno = 0;
			x = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(x >= 0.001 && x <= 1e9))
				return cmd_usage_error(cmd, "--%s needs a number of milliseconds "
							    "from 0.001 to 1e9, not '%s'",
						       k == 15 ? "ttft-p90" : "tpot-p90", optarg);
			*(k == 15 ? &o->ttft_p90 : &o->tpot_p90) = x;
			continue;
		}
		if (k >= 17 && k <= 22) {
			/* handed on too: compare's JSON carries them */
			static char names[6][24] = { "--price-usd", "--life-years", "--usd-per-kwh",
						     "--pue", "--hosting-usd-kw-month", "--host-w" };
			int rc = cmd_money_option(cmd, names[k - 17], optarg, &o->cost);
			if (rc)
				return rc;
			if (o->npass + 2 > MAXPASS)
				return cmd_usage_error(cmd, "too many options");
			o->pass[o->npass++] = names[k - 17];
			o->pass[o->npass++] = optarg;
			continue;
		}
		if (k < 0 || k > NPASS_VALUE)
			return PLUMB_EUSAGE;
		if (o->npass + 2 > MAXPASS)
			return cmd_usage_error(cmd, "too many options");
		o->pass[o->npass++] = pass_names[k];
		if (k == NPASS_VALUE)
			continue;       /* --eager */
		o->pass[o->npass++] = optarg;
		o->draws_given |= k == 12;
		o->layout_given |= k == 3;
		if (k == 5)
			o->input = optarg;
		else if (k == 6)
			o->output = optarg;
		else if (k == 7)
			o->context = optarg;
		else if (k == 13)
			o->engine = optarg;
	}
	o->paths = argv + optind;
	o->npaths = argc - optind;
	/* the page's date: SOURCE_DATE_EPOCH (reproducible-builds.org) */
	{
		const char *sde = getenv("SOURCE_DATE_EPOCH");
		if (sde) {
			char *end;
			errno = 0;
			o->when = strtoll(sde, &end, 10);
			if (end == sde || *end || errno || o->when < 0 || o->when > 253402300799LL)
				return cmd_usage_error(cmd, "SOURCE_DATE_EPOCH must be seconds since "
							    "1970 up to the year 9999, not '%s'", sde);
		} else {
			o->when = (long long)time(NULL);
		}
	}
	if (!o->out)
		return cmd_usage_error(cmd, "missing -o FILE.html");
	if (!html_name(o->out))
		return cmd_usage_error(cmd, "the report is an HTML page: -o needs a .html or .htm "
					    "file, not '%s'", o->out);
	if (!o->npaths) {
		static const char *const seed[3] = {
			"scenarios/proxmox-vm-8x-rtxpro6000.yaml",
			"scenarios/baremetal-8x-rtxpro6000.yaml", "scenarios/switch-8x-rtxpro6000.yaml"
		};
		for (i = 0; i < 3; i++) {
			plumb_data_path(seed[i], o->seed[i], sizeof(o->seed[i]));
			o->seed_paths[i] = o->seed[i];
		}
		o->paths = o->seed_paths;
		o->npaths = 3;
		if (!o->layout_given) {
			o->pass[o->npass++] = opt_layout;
			o->pass[o->npass++] = seed_layouts;
		}
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct ropts o;
	struct study_opts r;
	char **given;   /* the command line as given (getopt reorders argv) */
	int rc;

	if (!(given = malloc((size_t)(argc + 1) * sizeof(*given)))) {
		fputs("plumb: error: out of memory\n", stderr);
		return PLUMB_ERUNTIME;
	}
	memcpy(given, argv, (size_t)argc * sizeof(*given));
	given[argc] = NULL;
	if ((rc = parse(argc, argv, &o)) != 0) {
		free(given);
		return rc;
	}
	memset(&r, 0, sizeof(r));
	r.out = o.out;
	r.paths = o.paths;
	r.npaths = o.npaths;
	r.pass = o.pass;
	r.npass = o.npass;
	r.draws_given = o.draws_given;
	r.layout_given = o.layout_given;
	r.input = o.input;
	r.output = o.output;
	r.context = o.context;
	r.calib = cmd_calib();
	r.calib_draws = CMD_CALIB_DRAWS;
	r.slo_ttft_p90 = o.ttft_p90;
	r.slo_tpot_p90 = o.tpot_p90;
	r.cost = o.cost;
	r.version = PLUMB_VERSION_STRING;
	r.when = o.when;
	r.argv = given;
	r.argc = argc;
	r.cmd.compare = cmd_compare;
	r.cmd.predict = cmd_predict;
	r.cmd.topo = cmd_topo;
	r.cmd.interval = cmd_draws_interval;
	rc = study_write(&r);
	free(given);
	return rc;
}
