/*
 * cmd_calibrate.c - `plumb calibrate SCENARIO --data FILE...`: fit the
 * model's named constants to measurements and write a calibration file
 * that every command takes with --calib.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "cmd.h"
#include "out.h"
#include "render.h"
#include "valid.h"

const char cmd_calibrate_usage[] =
	"usage: plumb calibrate SCENARIO --data FILE... [-o calibrated.yaml] [options]\n"
	"\n"
	"Fit the model's named constants (`plumb constants`) to measurements made on\n"
	"the scenario's box: nonlinear least squares (GSL, trust region) on the\n"
	"log of predicted / measured, every evaluation a full simulation of the\n"
	"measured runs. Prints each fitted constant with its standard error, their\n"
	"correlations, R^2, the residual of every point and the error before and\n"
	"after; writes the fitted constants and their covariance to -o.\n"
	"\n"
	"Data files (the kind is found from the content; docs/data-formats.md):\n"
	"  nccl-tests output        all_reduce_perf, all_gather_perf, reduce_scatter_perf,\n"
	"                           alltoall_perf, sendrecv_perf, broadcast_perf\n"
	"  p2pBandwidthLatencyTest  its bandwidth and latency matrices\n"
	"  CSV collectives          op,gpus,bytes,time_us\n"
	"  CSV decode steps         layout,batch,context,step_ms\n"
	"  CSV serving              layout,concurrency,context,tok_s[,tpot_ms,ttft_ms,...]\n"
	"\n"
	"Options:\n"
	"  --data FILE...     measured data (repeatable; every following non-option\n"
	"                     argument is a data file)\n"
	"  -o FILE            write the calibration (YAML) to FILE, atomically\n"
	"  --plot FILE        draw measured against fitted for every point (.png, .svg\n"
	"                     or .pdf; `plumb render --what fit` draws the same for a\n"
	"                     case list)\n"
	"  --free NAME,...    fit exactly these constants (default: what the data\n"
	"                     informs: collective step latencies (LL and Simple, or\n"
	"                     SHM) and bandwidth efficiency,\n"
	"                     copy latencies and rates, memory efficiency, kernel costs)\n"
	"  --pin NAME,...     keep these at the scenario's value (remove from the fit)\n"
	"  --gpus LIST        scenario GPUs the ranks/devices ran on (default 0,1,...)\n"
	"  --model M          what decode and serving data measured (default glm-5)\n"
	"  --weights DTYPE    bf16, fp8 or nvfp4 (default nvfp4)\n"
	"  --kv DTYPE         bf16 or fp8 (default bf16)\n"
	"  --nccl-p2p-level L NCCL_P2P_LEVEL the collectives ran with (default: the\n"
	"                     scenario's, else NCCL's)\n"
	"  -h, --help         this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario or data (file:line:col), or too\n"
	"few points for the constants freed, 4 I/O error, 5 the fit did not converge\n"
	"(the report says why; nothing is written).\n"
	"Example: plumb calibrate scenarios/proxmox-vm-8x-rtxpro6000.yaml \\\n"
	"           --data my-allreduce.txt my-p2p.txt -o calibrated.yaml\n";

#define MAXDATA 64

/* Parse "a,b,c" into constant indices; -1 and a message on an unknown name. */
static int parse_names(const char *opt, const char *s, int *idx, int max)
{
	char buf[1024], *p, *save = NULL;
	int n = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		int k = consts_find(p);
		if (k < 0) {
			cmd_usage_error("calibrate", "%s: unknown constant '%s' (see `plumb constants`)",
					opt, p);
			return -1;
		}
		if (n >= max) {
			cmd_usage_error("calibrate", "%s: at most %d constants", opt, max);
			return -1;
		}
		idx[n++] = k;
	}
	if (!n) {
		cmd_usage_error("calibrate", "%s needs constant names", opt);
		return -1;
	}
	return n;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *scenario = NULL, *outpath = NULL, *gpus = NULL, *plot = NULL;
	const char *model = NULL, *weights = NULL, *kv = NULL;
	int level = -1;
	const char *files[MAXDATA];
	int nfiles = 0, i, j, rc, in_data = 0;
	int freeidx[CALIB_MAX_FREE], nfree = -1, pin[K_NCONSTS], npin = 0;
	struct val_set *v = NULL;
	struct calib_result r;
	struct plumb_err err;
	struct outfile out;

	memset(&r, 0, sizeof(r));
	plumb_err_clear(&err);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int needs = !strcmp(a, "-o") || !strcmp(a, "--plot") || !strcmp(a, "--free") || !strcmp(a, "--pin") ||
			    !strcmp(a, "--gpus") || !strcmp(a, "--model") || !strcmp(a, "--weights") ||
			    !strcmp(a, "--kv") || !strcmp(a, "--nccl-p2p-level");
		if (needs && i + 1 >= argc)
			return cmd_usage_error("calibrate", "option %s needs a value", a);
		if (a[0] == '-' && a[1])
			in_data = 0;
		if (!strcmp(a, "--data")) {
			in_data = 1;
			if (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1]))
				return cmd_usage_error("calibrate", "option --data needs a file");
		} else if (!strcmp(a, "-o")) {
			outpath = argv[++i];
		} else if (!strcmp(a, "--plot")) {
			plot = argv[++i];
			if (rdr_format_of(plot) < 0)
				return cmd_usage_error("calibrate", "--plot '%s': give a .png, .svg or .pdf file", plot);
		} else if (!strcmp(a, "--free")) {
			if ((nfree = parse_names("--free", argv[++i], freeidx, CALIB_MAX_FREE)) < 0)
				return PLUMB_EUSAGE;
		} else if (!strcmp(a, "--pin")) {
			int n = parse_names("--pin", argv[++i], pin + npin, K_NCONSTS - npin);
			if (n < 0)
				return PLUMB_EUSAGE;
			npin += n;
		} else if (!strcmp(a, "--gpus")) {
			gpus = argv[++i];
		} else if (!strcmp(a, "--model")) {
			model = argv[++i];
		} else if (!strcmp(a, "--weights")) {
			weights = argv[++i];
		} else if (!strcmp(a, "--kv")) {
			kv = argv[++i];
		} else if (!strcmp(a, "--nccl-p2p-level")) {
			if ((level = topo_nccl_path_parse(argv[++i])) < 0)
				return cmd_usage_error("calibrate", "unknown NCCL_P2P_LEVEL '%s'", argv[i]);
		} else if (a[0] == '-' && a[1]) {
			return cmd_usage_error("calibrate", "unknown option '%s'", a);
		} else if (in_data) {
			if (nfiles >= MAXDATA)
				return cmd_usage_error("calibrate", "at most %d data files", MAXDATA);
			files[nfiles++] = a;
		} else if (!scenario) {
			scenario = a;
		} else {
			return cmd_usage_error("calibrate", "unexpected argument '%s' (data files follow --data)", a);
		}
	}
	if (!scenario)
		return cmd_usage_error("calibrate", "missing SCENARIO");
	if (!nfiles)
		return cmd_usage_error("calibrate", "give measured data with --data FILE...");

	if ((rc = val_from_files(scenario, files, nfiles, gpus, model, weights, kv, &v, &err)) < 0)
		goto fail;
	for (i = 0; i < v->ncases; i++)
		v->cases[i].nccl_level = level;
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
	if ((rc = calib_fit(v, freeidx, nfree, &r, &err)) < 0)
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
	if (outpath) {
		if ((rc = out_open(&out, outpath, &err)) < 0)
			goto fail;
		calib_write(out.f, v, &r, files, nfiles);
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
