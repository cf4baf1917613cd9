/*
 * cmd_predict.c - `plumb predict`, `plumb compare` and the bare `plumb`
 * comparison: tokens per second for a model, layouts and boxes.
 */
#include <getopt.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "coll.h"
#include "datadir.h"
#include "meas.h"
#include "jout.h"
#include "out.h"
#include "cmd_predict_int.h"
#include "render.h"

const char cmd_predict_usage[] =
	"usage: plumb predict SCENARIO [options]\n"
	"\n"
	"Predict decode speed for a model on the scenario's box: each decode step is\n"
	"compiled from the model's ops and the layout's collectives and simulated on\n"
	"the fabric; a closed-loop serving run (like `sglang.bench_serving\n"
	"--max-concurrency C`) turns step times into tokens per second.\n"
	"\n"
	"Options:\n"
	"  --model M              catalog model (default glm-5): glm-5, deepseek-v3,\n"
	"                         qwen3-235b-a22b, mixtral-8x7b, llama-3.1-70b; a bundled\n"
	"                         Hugging Face config by name (gpt-oss-120b, ...: the\n"
	"                         directories of tests/data/hf); or a file: a Hugging\n"
	"                         Face config.json (or its directory), a model catalog\n"
	"                         YAML (FILE.yaml[:ID])\n"
	"  --weights W            bf16, fp8 (128x128 blocks), fp8t (per tensor), nvfp4,\n"
	"                         mxfp4, int4 (group 128), int4-gN, or checkpoint: the\n"
	"                         model file's own formats (its default; else nvfp4)\n"
	"  --kv DTYPE             KV cache dtype, bf16 or fp8 (default bf16)\n"
	"  --layout L,...         tpN, tpNppM, epN, tpNep, tpNdcpN (decode context\n"
	"                         parallel: an MLA cache split over the N GPUs), each\n"
	"                         optionally after dpK: K replicas on consecutive GPUs,\n"
	"                         stepping at once on the box's links, the load split\n"
	"                         evenly (dp4tp2, dp8 = eight single-GPU copies);\n"
	"                         default tp<all GPUs>. A layout that leaves GPUs idle\n"
	"                         says so above the table; rows give the GPUs used and\n"
	"                         tok/s per GPU\n"
	"  --concurrency C,...    clients (default 1,2,4,8,16,32,64)\n"
	"  --batch B,...          instead: one decode step of B sequences each\n"
	"  --context N            tokens of each prompt already in the KV cache (default 0)\n"
	"  --input N              prompt tokens per request (default 1024; with --output,\n"
	"                         sglang.bench_serving's random-dataset defaults)\n"
	"  --output N             generated tokens per request (default 1024)\n"
	"  --rate R               requests arrive as a Poisson process at R per second\n"
	"                         (open loop; --concurrency caps those in flight, as\n"
	"                         bench_serving's --request-rate with --max-concurrency)\n"
	"  --requests N           requests of a --rate run (default 1000)\n"
	"  --trace FILE           open loop: the requests of a CSV trace (columns\n"
	"                         arrival_s,input_len,output_len) instead of --rate\n"
	"  --range-ratio R        inputs and outputs uniform over [R, 1] x --input and\n"
	"                         --output, as bench_serving's random dataset (default:\n"
	"                         inputs fixed, outputs over 0.5-1.5x the mean)\n"
	"  --chunked-prefill N    a prefill step takes at most N prompt tokens, a longer\n"
	"                         prompt goes on over several steps (SGLang's\n"
	"                         --chunked-prefill-size; default: prompts whole)\n"
	"  --max-batched-tokens N every step carries the running requests' decode tokens\n"
	"                         and fills the rest of N with prompt chunks, in one pass\n"
	"                         (vLLM's --max-num-batched-tokens; SGLang's\n"
	"                         --enable-mixed-chunk; default: prefill and decode steps\n"
	"                         alternate, as SGLang's default scheduler)\n"
	"  --seed S               seed of the arrivals (default the scenario's)\n"
	"  --percentiles          also TTFT, TPOT, ITL and end-to-end latency at p50, p90,\n"
	"                         p99 (table block, CSV columns <metric>_p<q>_ms; JSON\n"
	"                         always has them)\n"
	"  --microbatches M       pipeline microbatches (default: the stage count)\n"
	"  --mtp D --accept A     speculative decoding: D draft tokens, acceptance A, or\n"
	"                         A1,A2,... one per draft position (the k-th accepted\n"
	"                         given the ones before; later positions take the last)\n"
	"                         (default: the scenario's serving: mtp, else off;\n"
	"                         --mtp 0 turns it off)\n"
	"  --engine E[@V]         the serving engine's stack: sglang, vllm or trtllm, at\n"
	"                         version V (default: the scenario's serving: engine, else\n"
	"                         sglang; each at the engine table's default version):\n"
	"                         attention backend, dense or sparse DSA, custom all-reduce\n"
	"                         and fusion, MoE runner, CUDA graphs and scheduler for the\n"
	"                         model family and GPU (docs/model-kernels.md \"Engine stacks\");\n"
	"                         what the scenario's serving: states still wins. The\n"
	"                         table names the stack and the first layout's answer at\n"
	"                         the first and last load under the other engines\n"
	"  --eager                kernel launches without CUDA graphs\n"
	"  --breakdown            also the step's parts in ms per GPU: launch,\n"
	"                         kernel_min, weights, kv_cache, compute, allreduce,\n"
	"                         expert_comm, stage_send, idle (table, CSV columns\n"
	"                         <part>_ms, JSON breakdown_ms)\n"
	"  --nccl-p2p-level L     NCCL_P2P_LEVEL (default: the scenario's, else NCCL's)\n"
	"  --format table|csv|json  output format (default table)\n"
	"  --csv-raw              CSV cells from the input (scenario names, messages) as\n"
	"                         given; by default one a spreadsheet would run as a\n"
	"                         formula (=, +, -, @, TAB, CR, not a number) is written\n"
	"                         after an apostrophe\n"
	"  -o FILE                write to FILE (atomically) instead of stdout\n"
	"  --calib FILE           constants from `plumb calibrate`; tok/s then carries a\n"
	"                         90% interval (5th-95th percentile of --draws runs with\n"
	"                         constants drawn from the fit's covariance, fixed seed)\n"
	"  --draws N              Monte Carlo draws for the interval (default 32, 0: none);\n"
	"                         without --calib the interval is that of the defaults:\n"
	"                         the step constants the scenario does not set drawn over\n"
	"                         their plausible ranges (compare: only with --draws)\n"
	"  -h, --help             this help\n"
	"\n"
	"The engine's KV cache holds mem_fraction of each GPU's memory less the weights\n"
	"(plumb constants): requests are admitted while their tokens fit and queue\n"
	"otherwise, and decoding past it retracts the newest request (recomputed later).\n"
	"CSV columns: layout,gpus,concurrency,context,step_ms,tok_s_total,\n"
	"tok_s_per_stream,tpot_ms,ttft_ms,comm_frac,compute_frac,idle_frac,busy_frac,fits,\n"
	"diagnosis (busy = compute + communication: what nvidia-smi counts as utilised),\n"
	"and with --calib tok_s_total_p5,tok_s_total_p95, with --percentiles\n"
	"ttft_p50_ms ... e2e_p99_ms, kv_tokens, kv_peak_tokens, queued_max, retracted\n"
	"(with --batch the third column is batch and ttft_ms is empty).\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario or a model that does not fit,\n"
	"4 I/O error, 5 runtime error.\n"
	"Example: plumb predict scenarios/proxmox-vm-8x-rtxpro6000.yaml --layout tp8,tp4pp2,ep8\n";

const char cmd_compare_usage[] =
	"usage: plumb compare SCENARIO SCENARIO... [options]\n"
	"\n"
	"The same model, layouts and load on several boxes side by side, with the\n"
	"speed-up of each box over the first: the report for a migration decision.\n"
	"Takes the options of `plumb predict` (model, layouts, concurrency, ...).\n"
	"`plumb` with no arguments runs the seed comparison: GLM-5 NVFP4 on the\n"
	"Proxmox VM, bare-metal and switch-chassis scenarios, layouts tp8, tp4pp2,\n"
	"ep8, concurrency 1 to 64.\n"
	"Boxes may differ in GPU count, in any order (the rows are the same): a\n"
	"layout needing more GPUs than a box has is n/a there, with the reason.\n"
	"Without --layout the layouts are tpN for every box size N, and on a larger\n"
	"box each runs as replicas filling it (tp2 on 8 GPUs as dp4tp2).\n"
	"  --plot FILE            also draw total tok/s against concurrency, a line per\n"
	"                         box and layout (.png, .svg or .pdf; plumb render)\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario, 4 I/O error, 5 runtime error.\n"
	"Example: plumb compare scenarios/proxmox-vm-8x-rtxpro6000.yaml scenarios/baremetal-8x-rtxpro6000.yaml\n";

static int parse_long(const char *s, long lo, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < lo || v > 100000000)
		return -1;
	*out = v;
	return 0;
}

/* Long options' val is OPT_BASE + their index, so the name comes back. */
#define OPT_BASE 0x200
static const struct option longopts[] = {
	{ "model", required_argument, NULL, OPT_BASE + 0 },
	{ "weights", required_argument, NULL, OPT_BASE + 1 },
	{ "kv", required_argument, NULL, OPT_BASE + 2 },
	{ "layout", required_argument, NULL, OPT_BASE + 3 },
	{ "concurrency", required_argument, NULL, OPT_BASE + 4 },
	{ "batch", required_argument, NULL, OPT_BASE + 5 },
	{ "context", required_argument, NULL, OPT_BASE + 6 },
	{ "input", required_argument, NULL, OPT_BASE + 7 },
	{ "output", required_argument, NULL, OPT_BASE + 8 },
	{ "microbatches", required_argument, NULL, OPT_BASE + 9 },
	{ "mtp", required_argument, NULL, OPT_BASE + 10 },
	{ "accept", required_argument, NULL, OPT_BASE + 11 },
	{ "format", required_argument, NULL, OPT_BASE + 12 },
	{ "nccl-p2p-level", required_argument, NULL, OPT_BASE + 13 },
	{ "draws", required_argument, NULL, OPT_BASE + 14 },
	{ "plot", required_argument, NULL, OPT_BASE + 15 },
	{ "rate", required_argument, NULL, OPT_BASE + 16 },
	{ "requests", required_argument, NULL, OPT_BASE + 17 },
	{ "seed", required_argument, NULL, OPT_BASE + 18 },
	{ "chunked-prefill", required_argument, NULL, OPT_BASE + 19 },
	{ "trace", required_argument, NULL, OPT_BASE + 20 },
	{ "max-batched-tokens", required_argument, NULL, OPT_BASE + 21 },
	{ "range-ratio", required_argument, NULL, OPT_BASE + 22 },
	{ "percentiles", no_argument, NULL, OPT_BASE + 23 },
	{ "eager", no_argument, NULL, OPT_BASE + 24 },
	{ "breakdown", no_argument, NULL, OPT_BASE + 25 },
	{ "engine", required_argument, NULL, OPT_BASE + 26 },
	{ "price-usd", required_argument, NULL, OPT_BASE + 27 },
	{ "life-years", required_argument, NULL, OPT_BASE + 28 },
	{ "usd-per-kwh", required_argument, NULL, OPT_BASE + 29 },
	{ "pue", required_argument, NULL, OPT_BASE + 30 },
	{ "hosting-usd-kw-month", required_argument, NULL, OPT_BASE + 31 },
	{ "host-w", required_argument, NULL, OPT_BASE + 32 },
	{ "ttft-p90", required_argument, NULL, OPT_BASE + 33 },
	{ "tpot-p90", required_argument, NULL, OPT_BASE + 34 },
	{ "ttft-p99", required_argument, NULL, OPT_BASE + 35 },
	{ "tpot-p99", required_argument, NULL, OPT_BASE + 36 },
	{ "top", required_argument, NULL, OPT_BASE + 37 },
	{ "csv-raw", no_argument, NULL, OPT_BASE + 38 },
	{ "prefix-len", required_argument, NULL, OPT_BASE + 39 },
	{ "prefix-hit", required_argument, NULL, OPT_BASE + 40 },
	{ "kv-offload", required_argument, NULL, OPT_BASE + 41 },
	{ "kv-offload-numa", required_argument, NULL, OPT_BASE + 42 },
	{ "disagg", no_argument, NULL, OPT_BASE + 43 },
	{ NULL, 0, NULL, 0 }
};

/* A number in [lo, hi] into *out; -1 when v is not one. */
static int parse_num(const char *v, double lo, double hi, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || !(x >= lo && x <= hi))
		return -1;
	*out = x;
	return 0;
}

/* A list N or N,M,... of at most max numbers in [1, hi]: how many, or -1. */
static int parse_longs(const char *v, long hi, long *out, int max)
{
	int n = 0;
	const char *p = v;
	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);
		if (end == p || x < 1 || x > hi || n >= max)
			return -1;
		out[n++] = x;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return n;
}

/* --concurrency and --batch: numbers in [1, 1000000]. */
static int parse_ints(const char *s, int *out, int max)
{
	long v[MAXLIST];
	int n = parse_longs(s, 1000000, v, max < MAXLIST ? max : MAXLIST), i;
	for (i = 0; i < n; i++)
		out[i] = (int)v[i];
	return n;
}

int cmd_money_option(const char *cmd, const char *a, const char *v, struct cost_opts *c)
{
	static const struct {
		const char *name;
		double lo, hi;
		size_t off;
	} m[] = {
		{ "--price-usd", 1, 1e9, offsetof(struct cost_opts, price_usd) },
		{ "--life-years", 0.1, 50, offsetof(struct cost_opts, life_years) },
		{ "--usd-per-kwh", 0, 10, offsetof(struct cost_opts, usd_per_kwh) },
		{ "--pue", 1, 5, offsetof(struct cost_opts, pue) },
		{ "--hosting-usd-kw-month", 0, 1e5, offsetof(struct cost_opts, hosting_usd_kw_month) },
		{ "--host-w", 0, 1e5, offsetof(struct cost_opts, host_w) },
	};
	size_t i;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(a, m[i].name)) {
			double x, *dst = (double *)((char *)c + m[i].off);
			if (parse_num(v, m[i].lo, m[i].hi, &x) < 0)
				return cmd_usage_error(cmd, "%s needs a number in [%g, %g], not '%s'", a,
						       m[i].lo, m[i].hi, v);
			*dst = x == 0 ? -1 : x;
			return 0;
		}
	return -1;
}

int cmd_predict_parse(const char *cmd, int argc, char **argv, struct popts *o, int min_paths)
{
	int i, opt, plan = !strcmp(cmd, "plan");
	int prefix_hit_given = 0;
	memset(o, 0, sizeof(*o));
	o->r.model = "glm-5";
	o->r.weights = NULL;          /* after the options: llm_default_weights */
	o->r.kv = "bf16";
	o->format = "table";
	o->outpath = "-";
	o->r.input = 1024;
	o->r.output = 1024;
	o->r.level = -1;
	o->r.seed = -1;
	o->r.range_ratio = -1;
	o->r.draws = CMD_CALIB_DRAWS;
	o->r.compare = !strcmp(cmd, "compare");
	cmd_getopt_start();
	while ((opt = cmd_getopt(cmd, argc, argv, "o:", longopts)) != -1) {
		const char *v = optarg;
		char a[40];
		if (opt < 0)
			return -opt;
		snprintf(a, sizeof(a), "%s%s", opt == 'o' ? "-o" : "--",
			 opt == 'o' ? "" : longopts[opt - OPT_BASE].name);
		if ((i = cmd_money_option(cmd, a, v, &o->cost)) >= 0) {
			if (i > 0)
				return i;
		} else if (!strncmp(a, "--ttft-p", 8) || !strncmp(a, "--tpot-p", 8) ||
			   !strcmp(a, "--top")) {
			double x;
			if (!plan)
				return cmd_usage_error(cmd, "%s is an option of plumb plan", a);
			if (parse_num(v, !strcmp(a, "--top") ? 0 : 0.001, 1e9, &x) < 0)
				return cmd_usage_error(cmd, "%s needs a positive number, not '%s'", a, v);
			if (!strcmp(a, "--ttft-p90"))
				o->slo.ttft_p90 = x;
			else if (!strcmp(a, "--tpot-p90"))
				o->slo.tpot_p90 = x;
			else if (!strcmp(a, "--ttft-p99"))
				o->slo.ttft_p99 = x;
			else if (!strcmp(a, "--tpot-p99"))
				o->slo.tpot_p99 = x;
			else
				o->top = (int)x;
		} else if (plan && (!strcmp(a, "--chunked-prefill") ||
				    !strcmp(a, "--max-batched-tokens"))) {
			int c = !strcmp(a, "--chunked-prefill");
			int k = parse_longs(v, 10000000, c ? o->chunks : o->maxbt, PLAN_MAXSET);
			if (k < 0)
				return cmd_usage_error(cmd, "%s needs token counts like 2048,8192 (at most "
						       "%d), not '%s'", a, PLAN_MAXSET, v);
			*(c ? &o->nchunk : &o->nmaxbt) = k;
		} else if (!strcmp(a, "--model")) {
			o->r.model = v;
		} else if (!strcmp(a, "--weights")) {
			o->r.weights = v;
		} else if (!strcmp(a, "--kv")) {
			o->r.kv = v;
		} else if (!strcmp(a, "--layout")) {
			/* the whole list, however long: a cut one turned tp16 into tp1 */
			const char *tok = v, *end;
			o->r.nlayouts = 0;
			for (; *tok; tok = *end ? end + 1 : end) {
				struct step_layout l;
				struct pred_disagg dd;
				struct plumb_err e;
				char name[STEP_LAYOUT_MAX + 1];
				size_t n;
				end = strchr(tok, ',');
				if (!end)
					end = tok + strlen(tok);
				if (!(n = (size_t)(end - tok)))
					continue;   /* as strtok: empty items skipped */
				if (o->r.nlayouts >= MAXLIST)
					return cmd_usage_error(cmd, "at most %d layouts", MAXLIST);
				if (n > STEP_LAYOUT_MAX)
					return cmd_usage_error(cmd, "layout '%.*s...' is longer than %d characters",
							       40, tok, STEP_LAYOUT_MAX);
				memcpy(name, tok, n);
				name[n] = '\0';
				plumb_err_clear(&e);
				if (pred_disagg_parse(name, &dd, &e) != 1 &&
				    (e.code || step_layout_parse(name, &l, &e) < 0))
					return cmd_usage_error(cmd, "%s", e.msg);
				memcpy(o->r.layouts[o->r.nlayouts++], name, n + 1);
			}
		} else if (!strcmp(a, "--concurrency")) {
			if ((o->r.nconc = parse_ints(v, o->r.conc, MAXLIST)) < 0)
				return cmd_usage_error(cmd, "--concurrency needs numbers like 1,2,4, not '%s'", v);
			for (i = 0; i < o->r.nconc; i++)
				if (o->r.conc[i] > MEAS_MAX_CONCURRENCY)
					return cmd_usage_error(cmd, "--concurrency %d is above the %d plumb "
							       "simulates", o->r.conc[i], MEAS_MAX_CONCURRENCY);
		} else if (!strcmp(a, "--batch")) {
			if ((o->r.nbatch = parse_ints(v, o->r.batch, MAXLIST)) < 0)
				return cmd_usage_error(cmd, "--batch needs numbers like 1,8,64, not '%s'", v);
		} else if (!strcmp(a, "--context")) {
			if (parse_long(v, 0, &o->r.context) < 0)
				return cmd_usage_error(cmd, "--context needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--input")) {
			if (parse_long(v, 1, &o->r.input) < 0)
				return cmd_usage_error(cmd, "--input needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--output")) {
			if (parse_long(v, 1, &o->r.output) < 0)
				return cmd_usage_error(cmd, "--output needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--microbatches")) {
			long m;
			if (parse_long(v, 1, &m) < 0 || m > 256)
				return cmd_usage_error(cmd, "--microbatches needs 1-256, not '%s'", v);
			o->r.micro = (int)m;
		} else if (!strcmp(a, "--mtp")) {
			long m;
			if (parse_long(v, 0, &m) < 0 || m > 16)
				return cmd_usage_error(cmd, "--mtp needs 0-16 draft tokens, not '%s'", v);
			o->r.mtp = (int)m;
			o->r.mtp_given = 1;
		} else if (!strcmp(a, "--accept")) {
			const char *q = v;
			char *end;
			o->r.naccept = 0;
			o->accept_given = 1;
			/* one rate, or one per draft position: 0.8,0.6,0.4 */
			for (;;) {
				double x = strtod(q, &end);
				if (end == q || !(x >= 0 && x < 1) || o->r.naccept >= 16 ||
				    (*end && *end != ','))
					return cmd_usage_error(cmd, "--accept needs a probability in [0, 1), "
							       "or one per draft position (0.8,0.6,0.4), not '%s'", v);
				o->r.accept_pos[o->r.naccept++] = x;
				if (!*end)
					break;
				q = end + 1;
			}
			o->r.accept = o->r.accept_pos[0];
			if (o->r.naccept == 1)
				o->r.naccept = 0;
		} else if (!strcmp(a, "--format")) {
			if (strcmp(v, "table") && strcmp(v, "csv") && strcmp(v, "json"))
				return cmd_usage_error(cmd, "--format must be table, csv or json, not '%s'", v);
			o->format = v;
		} else if (!strcmp(a, "--nccl-p2p-level")) {
			if ((o->r.level = topo_nccl_path_parse(v)) < 0)
				return cmd_usage_error(cmd, "unknown NCCL_P2P_LEVEL '%s'", v);
		} else if (!strcmp(a, "-o")) {
			o->outpath = v;
		} else if (!strcmp(a, "--draws")) {
			long d;
			if (parse_long(v, 0, &d) < 0 || d > 10000)
				return cmd_usage_error(cmd, "--draws needs 0-10000, not '%s'", v);
			o->r.draws = (int)d;
			o->r.draws_given = 1;
		} else if (!strcmp(a, "--plot")) {
			if (rdr_format_of(v) < 0)
				return cmd_usage_error(cmd, "--plot needs a .png, .svg or .pdf file, not '%s'", v);
			o->plot = v;
		} else if (!strcmp(a, "--rate")) {
			char *end;
			o->r.rate = strtod(v, &end);
			if (*end || !(o->r.rate > 0 && o->r.rate <= 1e6))
				return cmd_usage_error(cmd, "--rate needs requests per second (> 0), not '%s'", v);
		} else if (!strcmp(a, "--requests")) {
			if (parse_long(v, 1, &o->r.requests) < 0 || o->r.requests > MEAS_MAX_REQUESTS)
				return cmd_usage_error(cmd, "--requests needs 1-%d, not '%s'",
						       MEAS_MAX_REQUESTS, v);
		} else if (!strcmp(a, "--seed")) {
			if (parse_long(v, 0, &o->r.seed) < 0)
				return cmd_usage_error(cmd, "--seed needs a number >= 0, not '%s'", v);
		} else if (!strcmp(a, "--range-ratio")) {
			char *end;
			o->r.range_ratio = strtod(v, &end);
			if (*end || !(o->r.range_ratio >= 0 && o->r.range_ratio <= 1))
				return cmd_usage_error(cmd, "--range-ratio needs a number in [0, 1], not '%s'", v);
		} else if (!strcmp(a, "--trace")) {
			o->trace = v;
		} else if (!strcmp(a, "--chunked-prefill")) {
			if (parse_long(v, 1, &o->r.chunk) < 0 || o->r.chunk > 10000000)
				return cmd_usage_error(cmd, "--chunked-prefill needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--max-batched-tokens")) {
			if (parse_long(v, 1, &o->r.max_batched) < 0 || o->r.max_batched > 10000000)
				return cmd_usage_error(cmd, "--max-batched-tokens needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--disagg")) {
			if (!plan)
				return cmd_usage_error(cmd, "--disagg is an option of plumb plan (plumb "
						       "predict takes designs in --layout: p1:tp4+d1:tp4)");
			o->r.designs = 1;
		} else if (!strcmp(a, "--prefix-len")) {
			if (parse_long(v, 0, &o->r.prefix_len) < 0 || o->r.prefix_len > 10000000)
				return cmd_usage_error(cmd, "--prefix-len needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--prefix-hit")) {
			if (parse_num(v, 0, 1, &o->r.prefix_hit) < 0)
				return cmd_usage_error(cmd, "--prefix-hit needs a share in [0, 1], not '%s'", v);
			prefix_hit_given = 1;
		} else if (!strcmp(a, "--kv-offload")) {
			if (parse_num(v, 0, 1e6, &o->r.offload_gib) < 0)
				return cmd_usage_error(cmd, "--kv-offload needs GiB of host memory (0-1e6), not '%s'", v);
		} else if (!strcmp(a, "--kv-offload-numa")) {
			if (strcmp(v, "near") && strcmp(v, "far"))
				return cmd_usage_error(cmd, "--kv-offload-numa must be near or far, not '%s'", v);
			o->r.offload_far = !strcmp(v, "far");
		} else if (!strcmp(a, "--percentiles")) {
			o->percentiles = 1;
		} else if (!strcmp(a, "--csv-raw")) {
			o->csv_raw = 1;
		} else if (!strcmp(a, "--eager")) {
			o->r.eager = 1;
		} else if (!strcmp(a, "--breakdown")) {
			o->breakdown = 1;
		} else if (!strcmp(a, "--engine")) {
			enum scn_engine e;
			unsigned ver;
			char msg[256];
			if (scn_engine_spec(v, 0, &e, &ver, msg, sizeof(msg)) < 0)
				return cmd_usage_error(cmd, "--engine: %s", msg);
			o->r.engine = v;
		}
	}
	for (i = optind; i < argc; i++) {
		if (o->npaths >= MAXSCN)
			return cmd_usage_error(cmd, "at most %d scenarios", MAXSCN);
		o->paths[o->npaths++] = argv[i];
	}
	/* a prefix without a share: every request shares it */
	if (o->r.prefix_len > 0 && !prefix_hit_given)
		o->r.prefix_hit = 1;
	if (o->r.prefix_len >= o->r.input && o->r.prefix_len > 0)
		return cmd_usage_error(cmd, "--prefix-len (%ld) must be shorter than --input (%ld)",
				       o->r.prefix_len, o->r.input);
	if (!o->r.weights)
		o->r.weights = llm_default_weights(o->r.model);
	if (o->npaths < min_paths)
		return cmd_usage_error(cmd, min_paths > 1 ? "give at least %d SCENARIO files" :
					    "missing SCENARIO file", min_paths);
	if (plan && (o->r.nbatch || o->r.draws_given || o->breakdown))
		return cmd_usage_error(cmd, "plan runs serving points: --batch, --draws and "
				       "--breakdown do not apply");
	if (!strcmp(cmd, "predict") && o->npaths > 1)
		return cmd_usage_error(cmd, "one SCENARIO (use 'plumb compare' for several)");
	if (o->r.nbatch && o->r.nconc)
		return cmd_usage_error(cmd, "--batch and --concurrency do not go together");
	if (o->r.nbatch && (o->r.rate > 0 || o->r.requests))
		return cmd_usage_error(cmd, "--batch is one decode step: --rate and --requests do not apply");
	if (o->r.requests && !(o->r.rate > 0))
		return cmd_usage_error(cmd, "--requests needs --rate");
	if (o->trace && (o->r.rate > 0 || o->r.nbatch))
		return cmd_usage_error(cmd, "--trace gives the arrivals: not with --rate or --batch");
	if (o->accept_given && !o->r.mtp_given)
		return cmd_usage_error(cmd, "--accept needs --mtp (the number of draft tokens)");
	if (o->r.mtp && !(o->r.accept > 0))
		return cmd_usage_error(cmd, "--mtp needs --accept (the draft acceptance rate)");
	if (o->r.naccept > o->r.mtp)
		return cmd_usage_error(cmd, "--accept lists %d rates for %d draft positions",
				       o->r.naccept, o->r.mtp);
	if (o->r.context >= o->r.input && !o->r.nbatch)
		return cmd_usage_error(cmd, "--context (%ld) must be shorter than --input (%ld)",
				       o->r.context, o->r.input);
	if (!o->r.nconc && !o->r.nbatch) {
		static const int def[] = { 1, 2, 4, 8, 16, 32, 64 };
		memcpy(o->r.conc, def, sizeof(def));
		o->r.nconc = 7;
	}
	if (plan && !o->slo.ttft_p90 && !o->slo.tpot_p90 && !o->slo.ttft_p99 && !o->slo.tpot_p99)
		return cmd_usage_error(cmd, "give a target: --ttft-p90 MS, --tpot-p90 MS "
				       "(or the p99 ones)");
	return 0;
}

/* --trace FILE: its requests, checked against the run's cached context. */
int cmd_predict_read_trace(struct popts *o, struct plumb_err *err)
{
	struct meas_csv *t = NULL;
	int i, rc;
	if ((rc = meas_csv_parse_file(o->trace, &t, err)) < 0)
		return rc;
	if (t->kind != MEAS_CSV_REQUESTS) {
		rc = plumb_err_set(err, PLUMB_EINPUT, o->trace, 0, 0,
				   "--trace needs a requests CSV (arrival_s,input_len,output_len), "
				   "this one is %s", meas_csv_kind_name(t->kind));
		goto out;
	}
	if (!(o->reqs = malloc((size_t)t->nrows * sizeof(*o->reqs)))) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < t->nrows; i++) {
		const struct meas_csv_row *r = &t->rows[i];
		if (r->input_len <= o->r.context) {
			rc = plumb_err_set(err, PLUMB_EINPUT, o->trace, r->line, 1,
					   "input_len %ld is not longer than the cached context (%ld)",
					   r->input_len, o->r.context);
			goto out;
		}
		o->reqs[i].arrival = r->arrival_s;
		o->reqs[i].input_len = r->input_len;
		o->reqs[i].output_len = r->output_len;
	}
	o->r.reqs = o->reqs;
	o->r.nreqs = t->nrows;
out:
	meas_csv_free(t);
	return rc;
}

/* --calib's draws, or the defaults' (cli/cmd.c), for models/predict. */
static int draw_consts(const struct plumb_consts *k, int draws, struct plumb_consts *out,
		       double *mult, struct plumb_err *err)
{
	return cmd_interval_consts(k, draws, 1, out, mult, err);
}

static int run(const char *cmd, struct popts *o, int compare)
{
	struct plumb_err err;
	struct scenario *s[MAXSCN] = { NULL };
	struct pred_row *rows = NULL;
	struct outfile out;
	int i, rc = 0, nrows = 0, opened = 0;

	plumb_err_clear(&err);
	o->r.src.consts = draw_consts;
	o->r.src.interval = cmd_draws_interval;
	o->r.src.calibrated = cmd_calib() != NULL;
	if (o->trace && (rc = cmd_predict_read_trace(o, &err)) < 0)
		goto fail;
	for (i = 0; i < o->npaths; i++)
		if ((rc = scn_load(o->paths[i], &s[i], &err)) < 0)
			goto fail;
	if (!o->r.nlayouts) {
		/* tpN for each box size, each filling its box (models/predict) */
		pred_default_layouts(s, o->npaths, o->r.layouts, MAXLIST, &o->r.nlayouts);
		o->r.fill = 1;
	}
	if ((rc = pred_run_rows(&o->r, s, o->npaths, &rows, &nrows, &err)) < 0)
		goto fail;
	for (i = 0; i < o->npaths; i++) {
		struct pred_cfg c;
		char lay[32], why[160];
		int li;
		/* the first layout the box runs */
		for (li = 0; li < o->r.nlayouts &&
		     pred_layout_on_box(s[i], o->r.layouts[li], o->r.fill, lay, sizeof(lay), why,
					sizeof(why), NULL) != 0; li++)
			;
		if (li < o->r.nlayouts && pred_run_setup(&o->r, s[i], lay, &c, NULL) == 0)
			pred_stack_text(&c, o->stack[i], sizeof(o->stack[i]));
		else
			snprintf(o->stack[i], sizeof(o->stack[i]), "(the first layout does not run)");
	}
	if (!compare && !strcmp(o->format, "table") &&
	    (rc = pred_run_engines(&o->r, s[0], o->stack[0], sizeof(o->stack[0]), o->alt,
				   &o->nalt, &err)) < 0)
		goto fail;
	for (i = 0; i < nrows && !rows[i].fits; i++)
		;
	if (i == nrows) {   /* nothing to print but reasons: say the first */
		rc = plumb_err_set(&err, PLUMB_EINPUT, NULL, 0, 0, "%s%s", rows[0].why,
				   nrows > 1 ? " (and no other requested point fits either)" : "");
		goto fail;
	}
	if ((rc = out_open(&out, o->outpath, &err)) < 0)
		goto fail;
	opened = 1;
	if (!strcmp(o->format, "json")) {
		if ((rc = cmd_predict_json(out.f, o, s, rows, nrows, &err)) < 0)
			goto fail;
	} else {
		cmd_predict_rows(out.f, o, s, o->npaths, rows, nrows, compare);
	}
	if (compare && !strcmp(o->format, "table") && (rc = cmd_predict_depends(out.f, o, s, rows, nrows, &err)) < 0)
		goto fail;
	for (i = 0; i < o->npaths && !strcmp(o->format, "table"); i++) {
		char note[1024];    /* a VM nobody measured says so */
		if (coll_vm_note(s[i], note, sizeof(note)))
			fprintf(out.f, "\n%s\n", note);
	}
	opened = 0;
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	if (o->plot && (rc = cmd_predict_plot(o, s, rows, nrows, &err)) < 0)
		goto fail;
	pred_rows_free(rows, nrows);
	free(o->reqs);
	for (i = 0; i < o->npaths; i++)
		scn_free(s[i]);
	(void)cmd;
	return PLUMB_OK;
fail:
	if (opened)
		out_abort(&out);
	plumb_err_print(&err);
	pred_rows_free(rows, nrows);
	free(o->reqs);
	for (i = 0; i < o->npaths; i++)
		scn_free(s[i]);
	return plumb_err_status(&err);
}

int cmd_predict(int argc, char **argv)
{
	struct popts o;
	int rc = cmd_predict_parse("predict", argc, argv, &o, 1);
	if (rc)
		return rc;
	return run("predict", &o, 0);
}

int cmd_compare(int argc, char **argv)
{
	struct popts o;
	int rc = cmd_predict_parse("compare", argc, argv, &o, 2);
	if (rc)
		return rc;
	return run("compare", &o, 1);
}

int cmd_default(void)
{
	static const char *const args[] = {
		"compare", "scenarios/proxmox-vm-8x-rtxpro6000.yaml",
		"scenarios/baremetal-8x-rtxpro6000.yaml", "scenarios/switch-8x-rtxpro6000.yaml",
		"--layout", "tp8,tp4pp2,ep8"
	};
	char buf[6][4096], *argv[7];
	struct popts o;
	int i, rc;
	for (i = 0; i < 6; i++) {
		/* the bundled scenarios: the source tree's, or an installed copy */
		plumb_data_path(args[i], buf[i], sizeof(buf[i]));
		argv[i] = buf[i];
	}
	argv[6] = NULL;
	rc = cmd_predict_parse("compare", 6, argv, &o, 2);
	if (rc)
		return rc;
	return run("compare", &o, 1);
}
