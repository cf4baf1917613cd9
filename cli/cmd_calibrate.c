/*
 * cmd_calibrate.c - `plumb calibrate SCENARIO --data FILE...`: fit the
 * model's named constants to measurements and write a calibration file
 * that every command takes with --calib.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calib.h"
#include "cmd.h"
#include "input.h"
#include "out.h"
#include "render.h"
#include "valid.h"

const char cmd_calibrate_usage[] =
	"usage: plumb calibrate SCENARIO --data FILE... [--and SCENARIO --data FILE...]...\n"
	"                       [-o calibrated.yaml] [options]\n"
	"\n"
	"Fit the model's named constants (`plumb constants`) to measurements made on\n"
	"the scenario's box: the maximum of the posterior, each constant's log-normal\n"
	"prior (median: its value before the fit; its plausible range holds 90%)\n"
	"times the likelihood of log(predicted / measured), found by nonlinear least\n"
	"squares (GSL, trust region) from several starts (the scenario's values, the\n"
	"prior's median and quantiles), every evaluation a full simulation of the\n"
	"measured runs, with a gradient check at the end. Prints each fitted constant\n"
	"with its standard error and 90% range, whether the data or its prior set it,\n"
	"their correlations, the combinations the data cannot resolve and what data\n"
	"would, groups of residuals of one sign (missing physics), R^2, the model\n"
	"error per data block, the residual of every point and the error before and\n"
	"after; writes the fitted constants, their covariance, the model errors and\n"
	"what they were fitted on to -o.\n"
	"\n"
	"Joint fit: `--and SCENARIO --data FILE...` adds another box's measurements.\n"
	"Constants of gpu, engine and nccl scope are fitted once across all of them;\n"
	"box- and vm-scope constants once per scenario (reported as name@scenario,\n"
	"written under `scenarios:` and applied by --calib only to a scenario of\n"
	"that name). --data, --gpus and --nccl-p2p-level belong to the scenario\n"
	"they follow; the other options to the whole fit.\n"
	"\n"
	"Data files (the kind is found from the content; docs/data-formats.md):\n"
	"  nccl-tests output        all_reduce_perf, all_gather_perf, reduce_scatter_perf,\n"
	"                           alltoall_perf, sendrecv_perf, broadcast_perf\n"
	"  p2pBandwidthLatencyTest  its bandwidth and latency matrices\n"
	"  CSV collectives          op,gpus,bytes,time_us\n"
	"  CSV decode steps         layout,batch,context,step_ms\n"
	"  CSV serving              layout,concurrency,context,tok_s[,tpot_ms,ttft_ms,...]\n"
	"Every run of a multi-run nccl-tests or p2p file is used (cases FILE#1,\n"
	"FILE#2, ...); a run that cannot be used is skipped and named in the report.\n"
	"\n"
	"Options:\n"
	"  --data FILE...     measured data (repeatable; every following non-option\n"
	"                     argument is a data file)\n"
	"  --and SCENARIO     start the next (scenario, data) pair of a joint fit\n"
	"  -o FILE            write the calibration (YAML) to FILE, atomically\n"
	"  --plot FILE        draw measured against fitted for every point (.png, .svg\n"
	"                     or .pdf; `plumb render --what fit` draws the same for a\n"
	"                     case list)\n"
	"  --free NAME,...    fit exactly these constants (default: what the data\n"
	"                     informs: collective step latencies (LL and Simple, or\n"
	"                     SHM) and bandwidth efficiency,\n"
	"                     copy latencies and rates, memory efficiency, kernel costs);\n"
	"                     one whose value is 0 starts inside its plausible range\n"
	"  --pin NAME,...     keep these at the scenario's value (remove from the fit)\n"
	"  --accept-poor-fit  write the calibration even when R^2 < 0 or a fitted\n"
	"                     constant ends on a bound of its fit range\n"
	"  --accept-implausible  write it even when a fitted value is outside its\n"
	"                     plausible range (`plumb constants`)\n"
	"  --no-priors        plain least squares: no priors; then at least one more\n"
	"                     point than free constants is needed\n"
	"  --prior-from W     centre each prior on W: scenario (default: the value in\n"
	"                     force, from the scenario, the GPU catalog or the default)\n"
	"                     or defaults (the constants table's cited default; the\n"
	"                     fit then also starts there, setting aside what the\n"
	"                     scenario and catalog give the freed constants)\n"
	"  --gpus LIST        scenario GPUs the ranks/devices ran on (default 0,1,...)\n"
	"  --leave-out POINT,...  points of the data before it not to fit, named as the\n"
	"                     report names them (\"1024 B\", \"1024 B in-place\"):\n"
	"                     measurement artefacts; the report prints their\n"
	"                     residuals apart, uncounted\n"
	"  --model M          what decode and serving data measured (default glm-5)\n"
	"  --weights W        bf16, fp8, fp8t, nvfp4, mxfp4, int4, int4-gN or checkpoint\n"
	"                     (default: a model file's own formats, else nvfp4)\n"
	"  --kv DTYPE         bf16 or fp8 (default bf16)\n"
	"  --nccl-p2p-level L NCCL_P2P_LEVEL the collectives ran with (default: the\n"
	"                     scenario's, else NCCL's; the report says which it used\n"
	"                     and whether the ring's hops were P2P or SHM)\n"
	"  -h, --help         this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario or data (file:line:col), or too\n"
	"few points for the constants freed with --no-priors (the message names them\n"
	"and a --free that fits), 4 I/O error, 5 the fit did not converge, is poor\n"
	"(R^2 < 0, a constant on a bound) without --accept-poor-fit, or a value is\n"
	"implausible without --accept-implausible (the report says why; stderr the\n"
	"reason and what data would resolve it; nothing is written).\n"
	"Example: plumb calibrate scenarios/proxmox-vm-8x-rtxpro6000.yaml \\\n"
	"           --data my-allreduce.txt my-p2p.txt -o calibrated.yaml\n"
	"         plumb calibrate scenarios/baremetal-8x-rtxpro6000.yaml --data bm.csv \\\n"
	"           --and scenarios/proxmox-vm-8x-rtxpro6000.yaml --data vm.csv -o joint.yaml\n";

#define MAXDATA 64

/* Parse "a,b,c" into constant indices; -1 and a message on an unknown name. */
static int parse_names(const char *opt, const char *s, int *idx, int max)
{
	char *buf = strdup(s), *p, *save = NULL;   /* the list whole, at any length */
	int n = 0;
	if (!buf) {
		cmd_usage_error("calibrate", "%s: out of memory", opt);
		return -1;
	}
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		int k = consts_find(p);
		if (k < 0) {
			cmd_usage_error("calibrate", "%s: unknown constant '%s' (see `plumb constants`)",
					opt, p);
			free(buf);
			return -1;
		}
		if (n >= max) {
			cmd_usage_error("calibrate", "%s: at most %d constants", opt, max);
			free(buf);
			return -1;
		}
		idx[n++] = k;
	}
	free(buf);
	if (!n) {
		cmd_usage_error("calibrate", "%s needs constant names", opt);
		return -1;
	}
	return n;
}

/* Whether paths a and b name the same file (after input_check). */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * --leave-out "a,b": mark the points so labelled among cases first.. of v
 * (the data given with scenario scn)
 * as artefacts, out of the fit (train 0); the report prints them apart.
 * *n counts them. A label that is no point of those cases: usage error.
 */
static int leave_out(struct val_set *v, int first, const char *scn, const char *list, int *n)
{
	char *buf = strdup(list), *p, *save = NULL;
	int i;
	if (!buf)
		return cmd_usage_error("calibrate", "--leave-out: out of memory");
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		int found = 0;
		while (*p == ' ')
			p++;
		for (i = 0; i < v->npoints; i++)
			if (v->points[i].c >= first && !strcmp(v->points[i].label, p)) {
				v->points[i].train = 0;
				v->points[i].artefact = 1;
				found++;
			}
		if (!found) {
			int rc = cmd_usage_error("calibrate", "--leave-out: '%s' is no point of the data "
						 "given with %s (name points as the report does: "
						 "\"1024 B\", \"1024 B in-place\")", p,
						 scn);
			free(buf);
			return rc;
		}
		*n += found;
	}
	free(buf);
	return 0;
}

/* One (scenario, data) pair of the command line. */
struct pair {
	const char *scenario, *gpus;
	const char *leave_out;      /* --leave-out's list, NULL none */
	int level;
	int first, nfiles;          /* its slice of files[] */
};

/* Long options' val is OPT_BASE + their index, so the name comes back. */
#define OPT_BASE 0x200
static const struct option longopts[] = {
	{ "data", optional_argument, NULL, OPT_BASE + 0 },
	{ "and", required_argument, NULL, OPT_BASE + 1 },
	{ "plot", required_argument, NULL, OPT_BASE + 2 },
	{ "free", required_argument, NULL, OPT_BASE + 3 },
	{ "pin", required_argument, NULL, OPT_BASE + 4 },
	{ "accept-poor-fit", no_argument, NULL, OPT_BASE + 5 },
	{ "gpus", required_argument, NULL, OPT_BASE + 6 },
	{ "model", required_argument, NULL, OPT_BASE + 7 },
	{ "weights", required_argument, NULL, OPT_BASE + 8 },
	{ "kv", required_argument, NULL, OPT_BASE + 9 },
	{ "nccl-p2p-level", required_argument, NULL, OPT_BASE + 10 },
	{ "accept-implausible", no_argument, NULL, OPT_BASE + 11 },
	{ "no-priors", no_argument, NULL, OPT_BASE + 12 },
	{ "prior-from", required_argument, NULL, OPT_BASE + 13 },
	{ "leave-out", required_argument, NULL, OPT_BASE + 14 },
	{ NULL, 0, NULL, 0 }
};

int cmd_calibrate(int argc, char **argv)
{
	const char *outpath = NULL, *plot = NULL;
	const char *model = NULL, *weights = NULL, *kv = NULL;
	const char *files[MAXDATA];
	struct pair pairs[CALIB_MAX_SCN];
	int npairs = 1, nfiles = 0, i, j, rc, opt, in_data = 0, accept = 0, accept_impl = 0;
	int nleft = 0;
	struct calib_opts co = { CALIB_PRIOR_SCENARIO };
	int freeidx[CALIB_MAX_FREE], nfree = -1, pin[K_NCONSTS], npin = 0;
	struct val_set *v = NULL;
	struct calib_result r;
	struct plumb_err err;
	struct outfile out;
	char why[1024], name[40];

	memset(&r, 0, sizeof(r));
	memset(pairs, 0, sizeof(pairs));
	pairs[0].level = -1;
	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((opt = cmd_getopt("calibrate", argc, argv, "-o:", longopts)) != -1) {
		struct pair *p = &pairs[npairs - 1];
		const char *a = name, *val = optarg;
		if (opt < 0)
			return -opt;
		if (opt == 1) {         /* an argument, in its place */
			if (in_data) {
				if (nfiles >= MAXDATA)
					return cmd_usage_error("calibrate", "at most %d data files", MAXDATA);
				files[nfiles++] = val;
				p->nfiles++;
			} else if (!p->scenario) {
				p->scenario = val;
			} else {
				return cmd_usage_error("calibrate", "unexpected argument '%s' (data files "
						       "follow --data)", val);
			}
			continue;
		}
		snprintf(name, sizeof(name), "%s%s", opt == 'o' ? "-o" : "--",
			 opt == 'o' ? "" : longopts[opt - OPT_BASE].name);
		in_data = 0;
		if (!strcmp(a, "--data")) {
			/* --data FILE... or --data=FILE [FILE...] */
			in_data = 1;
			if (val) {
				if (nfiles >= MAXDATA)
					return cmd_usage_error("calibrate", "at most %d data files", MAXDATA);
				files[nfiles++] = val;
				p->nfiles++;
			} else if (optind >= argc || (argv[optind][0] == '-' && argv[optind][1])) {
				return cmd_usage_error("calibrate", "option --data needs a file");
			}
		} else if (!strcmp(a, "--and")) {
			if (!p->scenario || !p->nfiles)
				return cmd_usage_error("calibrate", "--and: the scenario before it needs its "
						       "data first (SCENARIO --data FILE... --and SCENARIO --data FILE...)");
			if (npairs >= CALIB_MAX_SCN)
				return cmd_usage_error("calibrate", "at most %d scenarios", CALIB_MAX_SCN);
			p = &pairs[npairs++];
			p->scenario = val;
			p->level = -1;
			p->first = nfiles;
		} else if (!strcmp(a, "-o")) {
			outpath = val;
		} else if (!strcmp(a, "--plot")) {
			plot = val;
			if (rdr_format_of(plot) < 0)
				return cmd_usage_error("calibrate", "--plot '%s': give a .png, .svg or .pdf file", plot);
		} else if (!strcmp(a, "--free")) {
			if ((nfree = parse_names("--free", val, freeidx, CALIB_MAX_FREE)) < 0)
				return PLUMB_EUSAGE;
		} else if (!strcmp(a, "--pin")) {
			int n = parse_names("--pin", val, pin + npin, K_NCONSTS - npin);
			if (n < 0)
				return PLUMB_EUSAGE;
			npin += n;
		} else if (!strcmp(a, "--accept-poor-fit")) {
			accept = 1;
		} else if (!strcmp(a, "--accept-implausible")) {
			accept_impl = 1;
		} else if (!strcmp(a, "--no-priors")) {
			co.prior = CALIB_PRIOR_NONE;
		} else if (!strcmp(a, "--prior-from")) {
			if (!strcmp(val, "scenario"))
				co.prior = CALIB_PRIOR_SCENARIO;
			else if (!strcmp(val, "defaults"))
				co.prior = CALIB_PRIOR_DEFAULTS;
			else
				return cmd_usage_error("calibrate", "--prior-from '%s': give scenario or defaults", val);
		} else if (!strcmp(a, "--gpus")) {
			p->gpus = val;
		} else if (!strcmp(a, "--leave-out")) {
			p->leave_out = val;
		} else if (!strcmp(a, "--model")) {
			model = val;
		} else if (!strcmp(a, "--weights")) {
			weights = val;
		} else if (!strcmp(a, "--kv")) {
			kv = val;
		} else {        /* --nccl-p2p-level */
			if ((p->level = topo_nccl_path_parse(val)) < 0)
				return cmd_usage_error("calibrate", "unknown NCCL_P2P_LEVEL '%s'", val);
		}
	}
	if (!pairs[0].scenario)
		return cmd_usage_error("calibrate", "missing SCENARIO");
	for (i = 0; i < npairs; i++)
		if (!pairs[i].nfiles)
			return cmd_usage_error("calibrate", "give measured data for %s with --data FILE...",
					       pairs[i].scenario);

	/* every data file is read more than once (its kind, then its rows):
	 * a regular file within the input limit, each given once */
	for (i = 0; i < nfiles; i++) {
		if (input_check(files[i], &err) < 0)
			goto fail;
		for (j = 0; j < i; j++)
			if (same_file(files[i], files[j]))
				return cmd_usage_error("calibrate", "--data: %s is given twice%s%s",
						       files[i], strcmp(files[i], files[j]) ? " as " : "",
						       strcmp(files[i], files[j]) ? files[j] : "");
	}
	for (i = 0; i < npairs; i++) {
		const struct pair *p = &pairs[i];
		int before = v ? v->ncases : 0;
		rc = i == 0 ? val_from_files(p->scenario, files + p->first, p->nfiles, p->gpus, model,
					     weights, kv, &v, &err)
			    : val_add_files(v, p->scenario, files + p->first, p->nfiles, p->gpus, model,
					    weights, kv, &err);
		if (rc < 0)
			goto fail;
		for (j = before; j < v->ncases; j++)
			v->cases[j].nccl_level = p->level;
		if (p->leave_out && (rc = leave_out(v, before, p->scenario, p->leave_out, &nleft)) != 0) {
			val_free(v);
			return rc;
		}
	}
	if (nfree < 0)
		nfree = calib_default_free(v, freeidx, CALIB_MAX_FREE);
	for (i = 0; i < npin; i++)
		for (j = 0; j < nfree; j++)
			if (freeidx[j] == pin[i]) {
				memmove(freeidx + j, freeidx + j + 1, (size_t)(nfree - j - 1) * sizeof(int));
				nfree--;
				j--;
			}
	if (nfree < 1) {
		val_free(v);
		return cmd_usage_error("calibrate", "no constant left to fit (see --free)");
	}
	if ((rc = calib_fit_with(v, freeidx, nfree, &co, &r, &err)) < 0)
		goto fail;
	/* the points left out get the fitted model's prediction too */
	if (nleft && (rc = val_predict(v, -1, &err)) < 0)
		goto fail;
	calib_report(stdout, v, &r);
	if (plot) {
		char title[256];
		snprintf(title, sizeof(title), "plumb calibrate: %d points, measured vs fitted (R^2 %.3f)",
			 r.npoints, r.r2);
		if ((rc = rdr_fit(plot, title, v, &err)) < 0)
			goto fail;
	}
	if (!r.converged) {
		fprintf(stderr, "plumb calibrate: %s; no calibration written\n", r.status);
		calib_result_release(&r);
		val_free(v);
		return PLUMB_ERUNTIME;
	}
	if (calib_poor(&r, why, sizeof(why))) {
		if (!accept) {
			fprintf(stderr, "plumb calibrate: refusing a poor fit: %s; no calibration written "
					"(pin or free other constants, or give --accept-poor-fit)\n", why);
			calib_result_release(&r);
			val_free(v);
			return PLUMB_ERUNTIME;
		}
		fprintf(stderr, "plumb calibrate: warning: poor fit accepted (--accept-poor-fit): %s\n", why);
	}
	if (calib_implausible(&r, why, sizeof(why))) {
		if (!accept_impl) {
			fprintf(stderr, "plumb calibrate: refusing implausible values: %s; no calibration "
					"written (check the data and the scenario, pin or free other constants, "
					"or give --accept-implausible)\n", why);
			calib_result_release(&r);
			val_free(v);
			return PLUMB_ERUNTIME;
		}
		fprintf(stderr, "plumb calibrate: warning: implausible values accepted "
				"(--accept-implausible): %s\n", why);
	}
	if (outpath) {
		if ((rc = out_open(&out, outpath, &err)) < 0)
			goto fail;
		if ((rc = calib_write(out.f, v, &r, files, nfiles, outpath, &err)) < 0) {
			out_abort(&out);
			goto fail;
		}
		if ((rc = out_commit(&out, &err)) < 0)
			goto fail;
		fprintf(stderr, "plumb calibrate: wrote %s (use it with --calib %s)\n", outpath, outpath);
	}
	calib_result_release(&r);
	val_free(v);
	return PLUMB_OK;
fail:
	plumb_err_print(&err);
	calib_result_release(&r);
	val_free(v);
	return plumb_err_status(&err);
}
