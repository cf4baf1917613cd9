/*
 * cmd_predict.c - `plumb predict`, `plumb compare` and the bare `plumb`
 * comparison: tokens per second for a model, layouts and boxes.
 */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "datadir.h"
#include "meas.h"
#include "jout.h"
#include "out.h"
#include "predict.h"
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
	"                         parallel: an MLA cache split over the N GPUs; default\n"
	"                         tp<all GPUs>)\n"
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
	"  --eager                kernel launches without CUDA graphs\n"
	"  --breakdown            also the step's parts in ms per GPU: launch,\n"
	"                         kernel_min, weights, kv_cache, compute, allreduce,\n"
	"                         expert_comm, stage_send, idle (table, CSV columns\n"
	"                         <part>_ms, JSON breakdown_ms)\n"
	"  --nccl-p2p-level L     NCCL_P2P_LEVEL (default: the scenario's, else NCCL's)\n"
	"  --format table|csv|json  output format (default table)\n"
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
	"  --plot FILE            also draw total tok/s against concurrency, a line per\n"
	"                         box and layout (.png, .svg or .pdf; plumb render)\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario, 4 I/O error, 5 runtime error.\n"
	"Example: plumb compare scenarios/proxmox-vm-8x-rtxpro6000.yaml scenarios/baremetal-8x-rtxpro6000.yaml\n";

#define MAXLIST 32
#define MAXSCN 8

struct popts {
	const char *model, *weights, *kv, *format, *outpath;
	char layouts[MAXLIST][32];
	int nlayouts;
	int conc[MAXLIST], nconc;
	int batch[MAXLIST], nbatch;
	long context, input, output;
	int micro, mtp, eager, level;
	int breakdown;              /* --breakdown: the step's parts */
	int draws;                  /* Monte Carlo draws for the interval */
	int draws_given, compare;
	int mtp_given;              /* --mtp given (else the scenario's serving: mtp) */
	int accept_given;           /* --accept given (only with --mtp) */
	double accept;
	double accept_pos[16];      /* --accept a1,a2,...: per draft position */
	int naccept;
	const char *paths[MAXSCN];
	int npaths;
	const char *plot;           /* --plot FILE: the throughput chart */
	double rate;                /* --rate: Poisson arrivals per second, 0 closed loop */
	long requests;              /* --requests */
	long seed;                  /* --seed, -1: the scenario's */
	long chunk;                 /* --chunked-prefill, 0: off */
	long max_batched;           /* --max-batched-tokens, 0: off */
	double range_ratio;         /* --range-ratio, < 0: off */
	const char *trace;          /* --trace FILE */
	struct serve_request *reqs; /* its requests */
	int nreqs;
	int percentiles;            /* --percentiles */
};

/* One predicted point. */
struct row {
	int si, li, x;              /* scenario, layout, concurrency or batch */
	int fits;
	char why[1024];
	double step_ms, tok_total, tok_stream, tpot_ms, ttft_ms;
	double comm, compute, idle;
	double part[PART_N];        /* the representative step's parts, ms */
	char diag[320];
	double lo, hi;              /* tok_total 90% interval, NAN: none */
	double *dv;                 /* its draws (ndv, NAN: no value), or NULL */
	int ndv;
	struct serve_result sr;     /* serving runs: distributions, KV */
	long kv_tokens;             /* the KV cache, tokens */
};

static void free_rows(struct row *rows, int n)
{
	int i;
	for (i = 0; rows && i < n; i++)
		free(rows[i].dv);
	free(rows);
}

static int parse_ints(const char *s, int *out, int max)
{
	int n = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > 1000000 || n >= max)
			return -1;
		out[n++] = (int)v;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return n;
}

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
	{ NULL, 0, NULL, 0 }
};

static int parse_args(const char *cmd, int argc, char **argv, struct popts *o, int min_paths)
{
	int i, opt;
	memset(o, 0, sizeof(*o));
	o->model = "glm-5";
	o->weights = NULL;          /* after the options: llm_default_weights */
	o->kv = "bf16";
	o->format = "table";
	o->outpath = "-";
	o->input = 1024;
	o->output = 1024;
	o->level = -1;
	o->seed = -1;
	o->range_ratio = -1;
	o->draws = CMD_CALIB_DRAWS;
	o->compare = !strcmp(cmd, "compare");
	cmd_getopt_start();
	while ((opt = cmd_getopt(cmd, argc, argv, "o:", longopts)) != -1) {
		const char *v = optarg;
		char a[40];
		if (opt < 0)
			return -opt;
		snprintf(a, sizeof(a), "%s%s", opt == 'o' ? "-o" : "--",
			 opt == 'o' ? "" : longopts[opt - OPT_BASE].name);
		if (!strcmp(a, "--model")) {
			o->model = v;
		} else if (!strcmp(a, "--weights")) {
			o->weights = v;
		} else if (!strcmp(a, "--kv")) {
			o->kv = v;
		} else if (!strcmp(a, "--layout")) {
			char buf[512], *tok, *save = NULL;
			snprintf(buf, sizeof(buf), "%s", v);
			o->nlayouts = 0;
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				struct step_layout l;
				struct plumb_err e;
				if (o->nlayouts >= MAXLIST)
					return cmd_usage_error(cmd, "at most %d layouts", MAXLIST);
				if (step_layout_parse(tok, &l, &e) < 0)
					return cmd_usage_error(cmd, "%s", e.msg);
				snprintf(o->layouts[o->nlayouts++], 32, "%s", tok);
			}
		} else if (!strcmp(a, "--concurrency")) {
			if ((o->nconc = parse_ints(v, o->conc, MAXLIST)) < 0)
				return cmd_usage_error(cmd, "--concurrency needs numbers like 1,2,4, not '%s'", v);
		} else if (!strcmp(a, "--batch")) {
			if ((o->nbatch = parse_ints(v, o->batch, MAXLIST)) < 0)
				return cmd_usage_error(cmd, "--batch needs numbers like 1,8,64, not '%s'", v);
		} else if (!strcmp(a, "--context")) {
			if (parse_long(v, 0, &o->context) < 0)
				return cmd_usage_error(cmd, "--context needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--input")) {
			if (parse_long(v, 1, &o->input) < 0)
				return cmd_usage_error(cmd, "--input needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--output")) {
			if (parse_long(v, 1, &o->output) < 0)
				return cmd_usage_error(cmd, "--output needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--microbatches")) {
			long m;
			if (parse_long(v, 1, &m) < 0 || m > 256)
				return cmd_usage_error(cmd, "--microbatches needs 1-256, not '%s'", v);
			o->micro = (int)m;
		} else if (!strcmp(a, "--mtp")) {
			long m;
			if (parse_long(v, 0, &m) < 0 || m > 16)
				return cmd_usage_error(cmd, "--mtp needs 0-16 draft tokens, not '%s'", v);
			o->mtp = (int)m;
			o->mtp_given = 1;
		} else if (!strcmp(a, "--accept")) {
			const char *q = v;
			char *end;
			o->naccept = 0;
			o->accept_given = 1;
			/* one rate, or one per draft position: 0.8,0.6,0.4 */
			for (;;) {
				double x = strtod(q, &end);
				if (end == q || !(x >= 0 && x < 1) || o->naccept >= 16 ||
				    (*end && *end != ','))
					return cmd_usage_error(cmd, "--accept needs a probability in [0, 1), "
							       "or one per draft position (0.8,0.6,0.4), not '%s'", v);
				o->accept_pos[o->naccept++] = x;
				if (!*end)
					break;
				q = end + 1;
			}
			o->accept = o->accept_pos[0];
			if (o->naccept == 1)
				o->naccept = 0;
		} else if (!strcmp(a, "--format")) {
			if (strcmp(v, "table") && strcmp(v, "csv") && strcmp(v, "json"))
				return cmd_usage_error(cmd, "--format must be table, csv or json, not '%s'", v);
			o->format = v;
		} else if (!strcmp(a, "--nccl-p2p-level")) {
			if ((o->level = topo_nccl_path_parse(v)) < 0)
				return cmd_usage_error(cmd, "unknown NCCL_P2P_LEVEL '%s'", v);
		} else if (!strcmp(a, "-o")) {
			o->outpath = v;
		} else if (!strcmp(a, "--draws")) {
			long d;
			if (parse_long(v, 0, &d) < 0 || d > 10000)
				return cmd_usage_error(cmd, "--draws needs 0-10000, not '%s'", v);
			o->draws = (int)d;
			o->draws_given = 1;
		} else if (!strcmp(a, "--plot")) {
			if (rdr_format_of(v) < 0)
				return cmd_usage_error(cmd, "--plot needs a .png, .svg or .pdf file, not '%s'", v);
			o->plot = v;
		} else if (!strcmp(a, "--rate")) {
			char *end;
			o->rate = strtod(v, &end);
			if (*end || !(o->rate > 0 && o->rate <= 1e6))
				return cmd_usage_error(cmd, "--rate needs requests per second (> 0), not '%s'", v);
		} else if (!strcmp(a, "--requests")) {
			if (parse_long(v, 1, &o->requests) < 0 || o->requests > 1000000)
				return cmd_usage_error(cmd, "--requests needs 1-1000000, not '%s'", v);
		} else if (!strcmp(a, "--seed")) {
			if (parse_long(v, 0, &o->seed) < 0)
				return cmd_usage_error(cmd, "--seed needs a number >= 0, not '%s'", v);
		} else if (!strcmp(a, "--range-ratio")) {
			char *end;
			o->range_ratio = strtod(v, &end);
			if (*end || !(o->range_ratio >= 0 && o->range_ratio <= 1))
				return cmd_usage_error(cmd, "--range-ratio needs a number in [0, 1], not '%s'", v);
		} else if (!strcmp(a, "--trace")) {
			o->trace = v;
		} else if (!strcmp(a, "--chunked-prefill")) {
			if (parse_long(v, 1, &o->chunk) < 0 || o->chunk > 10000000)
				return cmd_usage_error(cmd, "--chunked-prefill needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--max-batched-tokens")) {
			if (parse_long(v, 1, &o->max_batched) < 0 || o->max_batched > 10000000)
				return cmd_usage_error(cmd, "--max-batched-tokens needs a token count, not '%s'", v);
		} else if (!strcmp(a, "--percentiles")) {
			o->percentiles = 1;
		} else if (!strcmp(a, "--eager")) {
			o->eager = 1;
		} else if (!strcmp(a, "--breakdown")) {
			o->breakdown = 1;
		}
	}
	for (i = optind; i < argc; i++) {
		if (o->npaths >= MAXSCN)
			return cmd_usage_error(cmd, "at most %d scenarios", MAXSCN);
		o->paths[o->npaths++] = argv[i];
	}
	if (!o->weights)
		o->weights = llm_default_weights(o->model);
	if (o->npaths < min_paths)
		return cmd_usage_error(cmd, min_paths > 1 ? "give at least %d SCENARIO files" :
					    "missing SCENARIO file", min_paths);
	if (!strcmp(cmd, "predict") && o->npaths > 1)
		return cmd_usage_error(cmd, "one SCENARIO (use 'plumb compare' for several)");
	if (o->nbatch && o->nconc)
		return cmd_usage_error(cmd, "--batch and --concurrency do not go together");
	if (o->nbatch && (o->rate > 0 || o->requests))
		return cmd_usage_error(cmd, "--batch is one decode step: --rate and --requests do not apply");
	if (o->requests && !(o->rate > 0))
		return cmd_usage_error(cmd, "--requests needs --rate");
	if (o->trace && (o->rate > 0 || o->nbatch))
		return cmd_usage_error(cmd, "--trace gives the arrivals: not with --rate or --batch");
	if (o->accept_given && !o->mtp_given)
		return cmd_usage_error(cmd, "--accept needs --mtp (the number of draft tokens)");
	if (o->mtp && !(o->accept > 0))
		return cmd_usage_error(cmd, "--mtp needs --accept (the draft acceptance rate)");
	if (o->naccept > o->mtp)
		return cmd_usage_error(cmd, "--accept lists %d rates for %d draft positions",
				       o->naccept, o->mtp);
	if (o->context >= o->input && !o->nbatch)
		return cmd_usage_error(cmd, "--context (%ld) must be shorter than --input (%ld)",
				       o->context, o->input);
	if (!o->nconc && !o->nbatch) {
		static const int def[] = { 1, 2, 4, 8, 16, 32, 64 };
		memcpy(o->conc, def, sizeof(def));
		o->nconc = 7;
	}
	return 0;
}

/* Fill c for scenario s, layout name lay. */
static int setup(const struct popts *o, const struct scenario *s, const char *lay,
		 struct pred_cfg *c, struct plumb_err *err)
{
	int rc;
	pred_cfg_init(c);
	if ((rc = pred_cfg_setup(c, s, o->model, o->weights, o->kv, lay, err)) < 0)
		return rc;
	c->topo.nccl_p2p_level = o->level;
	if (o->eager)
		c->cuda_graphs = 0;
	c->micro = o->micro;
	c->draft = o->mtp;
	c->accept = o->accept;
	c->naccept = o->naccept;
	memcpy(c->accept_pos, o->accept_pos, sizeof(c->accept_pos));
	/* The scenario's engine drafts with the model's MTP layer unless
	 * --mtp says otherwise. */
	if (!o->mtp_given && s->serving.mtp_draft > 0 && c->m->mtp_layers > 0) {
		c->draft = s->serving.mtp_draft;
		c->accept = s->serving.mtp_accept;
		c->naccept = s->serving.mtp_naccept;
		memcpy(c->accept_pos, s->serving.mtp_accept_pos, sizeof(c->accept_pos));
	}
	return 0;
}

static int run_point(const struct popts *o, const struct pred_cfg *c, int x, struct row *r,
		     struct plumb_err *err)
{
	struct pred_step_info info;
	double sec;
	int rc, batch = x;
	long ctx = o->nbatch ? o->context : o->input + o->output / 2;
	struct plumb_err fe;

	r->x = x;
	plumb_err_clear(&fe);
	/* One decode step must hold its batch; a serving run one request (the
	 * engine queues what its KV cache does not hold). */
	if (pred_check_fit(c, o->nbatch ? batch : 1, o->nbatch ? o->context : o->input + o->output,
			   &fe) < 0) {
		r->fits = 0;
		snprintf(r->why, sizeof(r->why), "%s", fe.msg);
		return 0;
	}
	r->fits = 1;
	if ((rc = pred_step(c, SERVE_DECODE, batch, ctx, 1, &sec, &info, err)) < 0)
		return rc;
	r->comm = sec > 0 ? info.comm_s / sec : 0;
	r->compute = sec > 0 ? info.compute_s / sec : 0;
	r->idle = sec > 0 ? info.idle_s / sec : 0;
	for (rc = 0; rc < PART_N; rc++)
		r->part[rc] = info.part[rc] * 1e3;
	rc = 0;
	pred_diagnosis(c, &info, r->diag, sizeof(r->diag));
	if (o->nbatch) {
		double per = pred_tokens_per_step(c);
		r->step_ms = sec * 1e3;
		r->tok_total = batch * per / sec;
		r->tok_stream = per / sec;
		r->tpot_ms = sec * 1e3 / per;
		r->ttft_ms = NAN;
	} else {
		struct serve_params sp;
		struct serve_result sr;
		pred_serve_params(c, x, o->input, o->output, o->context, &sp);
		r->kv_tokens = sp.kv_tokens;
		sp.chunk_tokens = o->chunk;
		sp.max_batched = o->max_batched;
		sp.range_ratio = o->range_ratio;
		if (o->nreqs > 0) {
			sp.trace = o->reqs;
			sp.ntrace = o->nreqs;
		} else if (o->rate > 0) {
			sp.rate = o->rate;
			sp.prompts = o->requests ? (int)o->requests : 1000;
			sp.seed = o->seed >= 0 ? (unsigned long)o->seed : c->s->seed;
		}
		struct pred_cfg cc = *c;
		if ((rc = serve_run(&sp, pred_serve_step, &cc, &sr, err)) < 0)
			return rc;
		r->sr = sr;
		r->step_ms = sr.decode_step_ms;
		r->tok_total = sr.tok_s_total;
		r->tok_stream = sr.tok_s_stream;
		r->tpot_ms = sr.tpot_ms;
		r->ttft_ms = sr.ttft_ms;
	}
	return 0;
}

/*
 * Items 0..n-1 on the machine's cores (at most 8 threads, at most n): each
 * thread takes the next item until none is left or one has failed, with a
 * state of its own (tls_new, freed by tls_free; both may be NULL). An item's
 * result must not depend on which thread runs it or when, so the results
 * are those of one thread; the error returned is that of the first failing
 * item in item order, as one thread would meet it (later items may not run).
 */
typedef int (*work_fn)(void *arg, void *tls, int i, struct plumb_err *err);

struct wpool {
	work_fn item;
	void *arg;
	void *(*tls_new)(void *arg);
	void (*tls_free)(void *tls);
	pthread_mutex_t mu;
	int n, next;
	int bad;                    /* the first item that failed, n if none */
	struct plumb_err err;       /* its error */
};

static void *wpool_run(void *arg)
{
	struct wpool *p = arg;
	void *tls = p->tls_new ? p->tls_new(p->arg) : NULL;
	for (;;) {
		struct plumb_err e;
		int i;
		pthread_mutex_lock(&p->mu);
		i = p->next < p->bad ? p->next++ : p->n;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			break;
		plumb_err_clear(&e);
		if (p->item(p->arg, tls, i, &e) < 0) {
			pthread_mutex_lock(&p->mu);
			if (i < p->bad) {
				p->bad = i;
				p->err = e;
			}
			pthread_mutex_unlock(&p->mu);
		}
	}
	if (p->tls_free)
		p->tls_free(tls);
	return NULL;
}

static int work_run(int n, work_fn item, void *arg, void *(*tls_new)(void *arg),
		    void (*tls_free)(void *tls), struct plumb_err *err)
{
	struct wpool p;
	pthread_t th[8];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int i, t = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (int)ncpu, started = 0;
	if (t > n)
		t = n;
	memset(&p, 0, sizeof(p));
	p.item = item;
	p.arg = arg;
	p.tls_new = tls_new;
	p.tls_free = tls_free;
	p.n = p.bad = n;
	pthread_mutex_init(&p.mu, NULL);
	/* the other threads, then this one as the last */
	for (i = 0; i + 1 < t; i++)
		if (pthread_create(&th[i], NULL, wpool_run, &p) == 0)
			started++;
	wpool_run(&p);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.mu);
	if (p.bad < n) {
		if (err)
			*err = p.err;
		return p.err.code ? -p.err.code : -PLUMB_ERUNTIME;
	}
	return 0;
}

/*
 * The draws of one point (layout lay, load x on scenario s): the point again
 * under each draw's constants (cmd_interval_consts), its total tok/s times
 * the draw's model error, NAN where it does not fit. Each thread runs its
 * draws on its own copy of the scenario; a draw's value does not depend on
 * which thread runs it (the shared caches return what a simulation gives).
 */
struct draws {
	const struct popts *o;
	const struct scenario *s;
	const char *lay;
	int x;
	const struct plumb_consts *ks;
	const double *mult;
	double *vals;
};

static void *draw_copy(void *arg)
{
	const struct draws *d = arg;
	struct scenario *copy = NULL;
	scn_dup(d->s, &copy, NULL);
	return copy;
}

static void draw_free(void *tls)
{
	scn_free(tls);
}

static int draw_item(void *arg, void *tls, int i, struct plumb_err *err)
{
	const struct draws *d = arg;
	struct scenario *copy = tls;
	struct pred_cfg c;
	struct row t;
	int rc;
	if (!copy)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	memset(&t, 0, sizeof(t));
	copy->k = d->ks[i];
	if ((rc = setup(d->o, copy, d->lay, &c, err)) < 0 ||
	    (rc = run_point(d->o, &c, d->x, &t, err)) < 0)
		return rc;
	d->vals[i] = t.fits ? t.tok_total * d->mult[i] : NAN;
	return 0;
}

/* 1 when vals[0..o->draws) were filled, 0 when there is no interval, < 0
 * on error. */
static int point_draws(const struct popts *o, const struct scenario *s, const char *lay, int x,
		       double *vals, struct plumb_err *err)
{
	struct draws d;
	struct plumb_consts *ks;
	double *mult;
	int i, rc;

	if (o->draws < 1)
		return 0;
	ks = malloc((size_t)o->draws * sizeof(*ks));
	mult = malloc((size_t)o->draws * sizeof(*mult));
	if (!ks || !mult) {
		free(ks);
		free(mult);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if ((rc = cmd_interval_consts(&s->k, o->draws, 1, ks, mult, err)) > 0) {
		d.o = o;
		d.s = s;
		d.lay = lay;
		d.x = x;
		d.ks = ks;
		d.mult = mult;
		d.vals = vals;
		for (i = 0; i < o->draws; i++)
			vals[i] = NAN;
		rc = work_run(o->draws, draw_item, &d, draw_copy, draw_free, err);
		rc = rc < 0 ? rc : 1;
	}
	free(ks);
	free(mult);
	return rc;
}

/* With --calib: the 90% interval of r's total tok/s. */
static int interval(const struct popts *o, struct scenario *s, const char *lay, int x,
		    struct row *r, struct plumb_err *err)
{
	int rc;
	r->lo = r->hi = NAN;
	if (!r->fits || o->draws < 1)
		return 0;
	/* Uncalibrated: the interval of the defaults, for predict, and for
	 * compare when --draws is given (it runs many boxes). */
	if (!cmd_calib() && o->compare && !o->draws_given)
		return 0;
	if (!(r->dv = malloc((size_t)o->draws * sizeof(*r->dv))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = point_draws(o, s, lay, x, r->dv, err)) <= 0) {
		free(r->dv);
		r->dv = NULL;
		return rc;
	}
	r->ndv = o->draws;
	cmd_draws_interval(r->dv, r->ndv, &r->lo, &r->hi);
	return 0;
}

/* --breakdown in a table: each representative step's parts, ms per GPU. */
static void print_breakdown(FILE *f, const struct popts *o, const struct row *rows, int nrows)
{
	int i, j;
	fprintf(f, "\nStep parts, ms per GPU (%s; launch and kernel_min are kernel latency, "
		   "weights and kv_cache memory):\n%-8s %11s", o->nbatch ? "each batch" :
		   "the decode step at each concurrency, context input + output/2", "layout",
		   o->nbatch ? "batch" : "concurrency");
	for (j = 0; j < PART_N; j++)
		fprintf(f, " %11s", pred_part_name((enum pred_part)j));
	fputc('\n', f);
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		if (!r->fits)
			continue;
		fprintf(f, "%-8s %11d", o->layouts[r->li], r->x);
		for (j = 0; j < PART_N; j++)
			fprintf(f, " %11.3f", r->part[j]);
		fputc('\n', f);
	}
}

/*
 * JSON: what the model is and how its weights are stored ("model_info"):
 * architecture, parameters, layer kinds, each weight group's format and bits
 * per weight with scales, what the checkpoint keeps in bf16, weight bytes.
 */
/* A count held in a double (parameters, bytes) as a JSON integer. */
static json_t *jcount(double x)
{
	return json_integer((json_int_t)llround(x));
}

/* The model's description (--format json "model_info"), or NULL when the
 * model does not resolve (the rows say why) or memory runs out. */
static json_t *model_json(const struct popts *o)
{
	static const char *const group[] = {
		"attention", "dense_mlp", "shared_experts", "routed_experts", "router",
		"embeddings", "lm_head"
	};
	const struct llm_model *m;
	struct llm_prec p;
	enum llm_dtype d[7];
	double total, active;
	int l, kinds[3] = { 0, 0, 0 }, j, has[7], rc = 0;
	json_t *mi, *k, *fmt, *bits;
	if (llm_model_resolve(o->model, &m, NULL) < 0 ||
	    llm_prec_setup(&p, m, o->weights, o->kv, NULL) < 0)
		return NULL;
	llm_params(m, &total, &active);
	for (l = 0; l < m->layers; l++)
		kinds[llm_layer_kind(m, l)]++;
	d[0] = p.linear, d[1] = p.dense, d[2] = p.shared, d[3] = p.experts;
	d[4] = d[5] = d[6] = p.embed;
	/* the groups the model has */
	has[0] = has[5] = has[6] = 1;
	has[1] = !m->experts || m->dense_layers > 0;
	has[2] = m->shared_experts > 0;
	has[3] = has[4] = m->experts > 0;
	mi = json_object();
	rc |= jout_set(mi, "id", jout_str(m->id));
	rc |= jout_set(mi, "name", jout_str(m->name));
	rc |= jout_set(mi, "architecture", jout_str(m->arch[0] ? m->arch : "catalog"));
	rc |= jout_set(mi, "source", jout_str(m->source));
	rc |= jout_set(mi, "params_total", jcount(total));
	rc |= jout_set(mi, "params_active", jcount(active));
	rc |= jout_set(mi, "layers", json_integer(m->layers));
	k = json_object();
	rc |= jout_set(k, "full", json_integer(kinds[LLM_LAYER_FULL]));
	rc |= jout_set(k, "sliding", json_integer(kinds[LLM_LAYER_SLIDING]));
	rc |= jout_set(k, "linear", json_integer(kinds[LLM_LAYER_LINEAR]));
	rc |= jout_set(mi, "layer_kinds", k);
	if (kinds[LLM_LAYER_SLIDING])
		rc |= jout_set(mi, "sliding_window", json_integer(m->sliding_window));
	fmt = json_object();
	bits = json_object();
	for (j = 0; j < 7; j++)
		if (has[j]) {
			rc |= jout_set(fmt, group[j], jout_str(llm_dtype_name(d[j])));
			rc |= jout_set(bits, group[j], jout_real(llm_prec_bits(&p, d[j]), 4));
		}
	rc |= jout_set(mi, "formats", fmt);
	rc |= jout_set(mi, "bits_per_weight", bits);
	if (d[0] == LLM_INT4 || d[3] == LLM_INT4) {
		rc |= jout_set(mi, "int4_group", json_integer(p.group));
		rc |= jout_set(mi, "int4_zero_points", json_boolean(p.zero));
	}
	if (m->ckpt.set) {
		json_t *c = json_object();
		rc |= jout_set(c, "quant_method", jout_str(m->ckpt.method));
		rc |= jout_set(c, "kept_bf16", jout_str(m->ckpt.kept));
		rc |= jout_set(c, "kv_cache", jout_str(m->ckpt.kv[0] ? m->ckpt.kv : "bf16"));
		rc |= jout_set(mi, "checkpoint", c);
	}
	rc |= jout_set(mi, "weight_bytes_total", jcount(llm_bytes_weights_total(m, &p, 0)));
	rc |= jout_set(mi, "kv_bytes_per_token", jcount(llm_kv_bytes_per_token(m, p.kv, 1)));
	if (rc) {
		json_decref(mi);
		return NULL;
	}
	return mi;
}

/* --format json: the whole document (docs/cli.md). */
static int print_json(FILE *f, const struct popts *o, struct scenario **s,
		      const struct row *rows, int nrows, struct plumb_err *err)
{
	const char *xname = o->nbatch ? "batch" : "concurrency";
	json_t *doc = json_object(), *arr = json_array(), *mi;
	int i, j, k, rc = 0;

	rc |= jout_set(doc, "model", jout_str(o->model));
	rc |= jout_set(doc, "weights", jout_str(o->weights));
	rc |= jout_set(doc, "kv", jout_str(o->kv));
	if ((mi = model_json(o)))
		rc |= jout_set(doc, "model_info", mi);
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		json_t *row = json_object();
		rc |= jout_set(row, "scenario", jout_str(s[r->si]->name));
		rc |= jout_set(row, "layout", jout_str(o->layouts[r->li]));
		rc |= jout_set(row, xname, json_integer(r->x));
		rc |= jout_set(row, "fits", json_boolean(r->fits));
		if (!r->fits) {
			rc |= jout_set(row, "why", jout_str(r->why));
			rc |= jout_push(arr, row);
			continue;
		}
		rc |= jout_set(row, "step_ms", jout_real(r->step_ms, 3));
		rc |= jout_set(row, "tok_s_total", jout_real(r->tok_total, 2));
		rc |= jout_set(row, "tok_s_per_stream", jout_real(r->tok_stream, 3));
		rc |= jout_set(row, "tpot_ms", jout_real(r->tpot_ms, 3));
		if (!isnan(r->ttft_ms))
			rc |= jout_set(row, "ttft_ms", jout_real(r->ttft_ms, 2));
		if (!isnan(r->lo)) {
			rc |= jout_set(row, "tok_s_total_p5", jout_real(r->lo, 2));
			rc |= jout_set(row, "tok_s_total_p95", jout_real(r->hi, 2));
		}
		if (r->dv) {
			/* the interval's draws, in draw order (the same constants
			 * for draw d of every row): a paired speed-up is the
			 * ratio draw by draw; null where the point did not fit */
			json_t *dv = json_array();
			int d;
			rc |= !dv;
			for (d = 0; dv && d < r->ndv; d++)
				rc |= jout_push(dv, isnan(r->dv[d]) ? json_null()
								    : jout_real(r->dv[d], 2));
			if (dv)
				rc |= jout_set(row, "tok_s_draws", dv);
		}
		rc |= jout_set(row, "comm_frac", jout_real(r->comm, 4));
		rc |= jout_set(row, "compute_frac", jout_real(r->compute, 4));
		rc |= jout_set(row, "idle_frac", jout_real(r->idle, 4));
		rc |= jout_set(row, "busy_frac", jout_real(r->compute + r->comm, 4));
		rc |= jout_set(row, "diagnosis", jout_str(r->diag));
		if (!o->nbatch) {
			json_t *pc = json_object();
			for (k = 0; k < SERVE_NDIST; k++) {
				const double *v = serve_dist(&r->sr, k);
				json_t *d = json_object();
				rc |= jout_set(d, "p50", jout_real(v[0], 3));
				rc |= jout_set(d, "p90", jout_real(v[1], 3));
				rc |= jout_set(d, "p99", jout_real(v[2], 3));
				rc |= jout_set(pc, serve_dist_name[k], d);
			}
			rc |= jout_set(row, "percentiles_ms", pc);
			rc |= jout_set(row, "itl_ms", jout_real(r->sr.itl_ms, 3));
			rc |= jout_set(row, "e2e_ms", jout_real(r->sr.e2e_ms, 2));
			rc |= jout_set(row, "kv_tokens", json_integer(r->kv_tokens));
			rc |= jout_set(row, "kv_peak_tokens", json_integer(r->sr.kv_peak));
			rc |= jout_set(row, "queued_max", json_integer(r->sr.max_waiting));
			rc |= jout_set(row, "retracted", json_integer(r->sr.preemptions));
		}
		if (o->breakdown) {
			json_t *bd = json_object();
			for (j = 0; j < PART_N; j++)
				rc |= jout_set(bd, pred_part_name((enum pred_part)j),
					       jout_real(r->part[j], 3));
			rc |= jout_set(row, "breakdown_ms", bd);
		}
		rc |= jout_push(arr, row);
	}
	rc |= jout_set(doc, "rows", arr);
	if (rc) {
		json_decref(doc);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	rc = jout_write(f, doc, 2, err);
	json_decref(doc);
	return rc;
}

/* --percentiles in a table: each serving row's distributions and KV. */
static void print_percentiles(FILE *f, const struct popts *o, const struct row *rows, int nrows)
{
	int i, k;
	fprintf(f, "\nLatency percentiles, ms (p50 / p90 / p99), and the KV cache (tokens)%s:\n"
		   "%-8s %11s", o->rate > 0 ? "; arrivals Poisson" : "", "layout", "concurrency");
	for (k = 0; k < SERVE_NDIST; k++)
		fprintf(f, " %22s", serve_dist_name[k]);
	fprintf(f, " %10s %10s %7s %9s\n", "kv_tokens", "kv_peak", "queued", "retracted");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		if (!r->fits)
			continue;
		fprintf(f, "%-8s %11d", o->layouts[r->li], r->x);
		for (k = 0; k < SERVE_NDIST; k++) {
			char cell[64];
			const double *v = serve_dist(&r->sr, k);
			snprintf(cell, sizeof(cell), "%.1f / %.1f / %.1f", v[0], v[1], v[2]);
			fprintf(f, " %22s", cell);
		}
		fprintf(f, " %10ld %10ld %7d %9d\n", r->kv_tokens, r->sr.kv_peak, r->sr.max_waiting,
			r->sr.preemptions);
	}
}

/* The 90% interval of num[d] / den[d] over n paired draws (draw d the same
 * constants for both); NAN, NAN without a value or memory. */
static void ratio_interval(const double *num, const double *den, int n, double *lo, double *hi)
{
	double *q = malloc((size_t)(n > 0 ? n : 1) * sizeof(*q));
	int d;
	*lo = *hi = NAN;
	if (!q)
		return;
	for (d = 0; d < n; d++)
		q[d] = num[d] > 0 && den[d] > 0 ? num[d] / den[d] : NAN;
	cmd_draws_interval(q, n, lo, hi);
	free(q);
}

static void print_rows(FILE *f, const struct popts *o, struct scenario **s, int ns,
		       const struct row *rows, int nrows, int compare)
{
	const char *xname = o->nbatch ? "batch" : "concurrency";
	int i, j, w, iv = 0, pct = o->percentiles && !o->nbatch;

	for (i = 0; i < nrows; i++)
		iv |= rows[i].fits && !isnan(rows[i].lo);

	if (!strcmp(o->format, "csv")) {
		fprintf(f, "%slayout,gpus,%s,context,step_ms,tok_s_total,tok_s_per_stream,tpot_ms,ttft_ms,comm_frac,compute_frac,idle_frac,busy_frac,fits,diagnosis%s",
			compare ? "scenario," : "", xname, iv ? ",tok_s_total_p5,tok_s_total_p95" : "");
		for (j = 0; o->breakdown && j < PART_N; j++)
			fprintf(f, ",%s_ms", pred_part_name((enum pred_part)j));
		for (j = 0; pct && j < SERVE_NDIST * SERVE_NPCT; j++)
			fprintf(f, ",%s_p%.0f_ms", serve_dist_name[j / SERVE_NPCT], 100 * serve_pct[j % SERVE_NPCT]);
		if (pct)
			fputs(",kv_tokens,kv_peak_tokens,queued_max,retracted", f);
		fputc('\n', f);
		for (i = 0; i < nrows; i++) {
			const struct row *r = &rows[i];
			struct step_layout l;
			step_layout_parse(o->layouts[r->li], &l, NULL);
			if (compare)
				fprintf(f, "%s,", s[r->si]->name);
			fprintf(f, "%s,%d,%d,%ld,", o->layouts[r->li], l.gpus, r->x,
				o->nbatch ? o->context : o->input + o->output / 2);
			if (!r->fits) {
				fprintf(f, ",,,,,,,,,0,\"%s\"%s", r->why, iv ? ",," : "");
				for (j = 0; o->breakdown && j < PART_N; j++)
					fputc(',', f);
				for (j = 0; pct && j < SERVE_NDIST * SERVE_NPCT + 4; j++)
					fputc(',', f);
				fputc('\n', f);
				continue;
			}
			fprintf(f, "%.3f,%.2f,%.3f,%.3f,", r->step_ms, r->tok_total, r->tok_stream, r->tpot_ms);
			if (isnan(r->ttft_ms))
				fputc(',', f);
			else
				fprintf(f, "%.2f,", r->ttft_ms);
			fprintf(f, "%.4f,%.4f,%.4f,%.4f,1,\"%s\"", r->comm, r->compute, r->idle,
				r->compute + r->comm, r->diag);
			if (iv && !isnan(r->lo))
				fprintf(f, ",%.2f,%.2f", r->lo, r->hi);
			else if (iv)
				fputs(",,", f);
			for (j = 0; o->breakdown && j < PART_N; j++)
				fprintf(f, ",%.3f", r->part[j]);
			for (j = 0; pct && j < SERVE_NDIST * SERVE_NPCT; j++)
				fprintf(f, ",%.3f", serve_dist(&r->sr, j / SERVE_NPCT)[j % SERVE_NPCT]);
			if (pct)
				fprintf(f, ",%ld,%ld,%d,%d", r->kv_tokens, r->sr.kv_peak, r->sr.max_waiting,
					r->sr.preemptions);
			fputc('\n', f);
		}
		return;
	}
	/* table */
	fprintf(f, "# %s, %s weights, %s KV cache; input %ld, output %ld, cached context %ld tokens%s%s\n",
		o->model, o->weights, o->kv, o->input, o->output, o->context,
		o->eager ? ", eager" : ", CUDA graphs", o->mtp ? ", speculative decoding" : "");
	if (o->trace)
		fprintf(f, "# requests: %d from %s (their arrivals and lengths)\n", o->nreqs, o->trace);
	else if (o->rate > 0)
		fprintf(f, "# requests: %ld arriving at %g/s (Poisson)\n",
			o->requests ? o->requests : 1000, o->rate);
	if (!compare) {
		fprintf(f, "# %s\n", s[0]->name[0] ? s[0]->name : s[0]->path);
		if (iv)
			fprintf(f, cmd_calib() ? "# tok/s 90%% interval from the calibration's covariance "
				   "and residual spread (%d draws)\n"
				   : "# tok/s 90%% interval from the plausible ranges of the step constants "
				   "the scenario leaves at their defaults (%d draws; plumb constants)\n",
				o->draws);
		fprintf(f, "%-8s %11s %9s %11s ", "layout", xname, "step_ms", "tok/s");
		if (iv)
			fprintf(f, "%17s ", "tok/s 90%");
		fprintf(f, "%11s %9s %9s %6s %6s  %s\n", "tok/s/user", "tpot_ms", "ttft_ms", "comm%", "busy%", "diagnosis");
		for (i = 0; i < nrows; i++) {
			const struct row *r = &rows[i];
			if (!r->fits) {
				fprintf(f, "%-8s %11d  %s\n", o->layouts[r->li], r->x, r->why);
				continue;
			}
			fprintf(f, "%-8s %11d %9.2f %11.1f ", o->layouts[r->li], r->x, r->step_ms, r->tok_total);
			if (iv) {
				char cell[48];
				snprintf(cell, sizeof(cell), "%.1f-%.1f", r->lo, r->hi);
				fprintf(f, "%17s ", isnan(r->lo) ? "-" : cell);
			}
			fprintf(f, "%11.2f %9.2f ", r->tok_stream, r->tpot_ms);
			if (isnan(r->ttft_ms))
				fprintf(f, "%9s ", "-");
			else
				fprintf(f, "%9.1f ", r->ttft_ms);
			fprintf(f, "%5.0f%% %5.0f%%  %s\n", 100 * r->comm, 100 * (r->compute + r->comm), r->diag);
		}
		if (o->breakdown)
			print_breakdown(f, o, rows, nrows);
		if (pct)
			print_percentiles(f, o, rows, nrows);
		return;
	}
	/* With draws every speed-up also gets its paired 90% range: the
	 * ratio under each draw (draw d the same constants for both rows). */
	for (i = 0, w = 30; i < nrows; i++)
		if (rows[i].dv)
			w = 44;
	fprintf(f, "# total tok/s per box; x = speed-up over %s%s\n", s[0]->name,
		w > 30 ? " (with its 90% range over the draws, each the same for every box)" : "");
	fprintf(f, "%-8s %11s", "layout", xname);
	for (j = 0; j < ns; j++)
		fprintf(f, " %*s", j ? w : 24, s[j]->name);
	fputc('\n', f);
	for (i = 0; i < nrows; i += ns) {
		const struct row *r0 = &rows[i];
		fprintf(f, "%-8s %11d", o->layouts[r0->li], r0->x);
		for (j = 0; j < ns; j++) {
			const struct row *r = &rows[i + j];
			if (!r->fits)
				fprintf(f, " %*s", j ? w : 24, "does not fit");
			else {
				char cell[128], band[48] = "", xr[48] = "";
				if (!isnan(r->lo))
					snprintf(band, sizeof(band), " [%.0f-%.0f]", r->lo, r->hi);
				if (j > 0 && r0->fits && r->dv && r0->dv && r->ndv == r0->ndv) {
					double lo, hi;
					ratio_interval(r->dv, r0->dv, r->ndv, &lo, &hi);
					if (!isnan(lo))
						snprintf(xr, sizeof(xr), ", x%.2f-%.2f", lo, hi);
				}
				if (j == 0 || !r0->fits)
					snprintf(cell, sizeof(cell), "%.1f%s", r->tok_total, band);
				else
					snprintf(cell, sizeof(cell), "%.1f%s (x%.2f%s)", r->tok_total, band,
						 r->tok_total / r0->tok_total, xr);
				fprintf(f, " %*s", j ? w : 24, cell);
			}
		}
		fputc('\n', f);
	}
	fputs("\nWhy (per box, at the highest concurrency of each layout):\n", f);
	for (j = 0; j < ns; j++)
		for (i = nrows - 1; i >= 0; i--) {
			int k;
			const struct row *r = &rows[i];
			if (r->si != j)
				continue;
			for (k = i + 1; k < nrows && (rows[k].si != j || rows[k].li != r->li); k++)
				;
			if (k < nrows || !r->fits)
				continue;
			fprintf(f, "  %s %s x%d: %s\n", s[j]->name, o->layouts[r->li], r->x, r->diag);
		}
}

/*
 * The 90% range of the speed-up of box s over box s0 at load x (layout
 * lay): both predicted under the same draws of the constants (draw d draws
 * the same values for both, so what the boxes share cancels in the ratio),
 * the 5th and 95th percentiles of the ratios. *lo = *hi = NAN without
 * draws. v0: s0's draws, filled when *have0 is 0.
 */
static int pair_range(const struct popts *o, struct scenario *s0, struct scenario *s,
		      const char *lay, int x, double *v0, int *have0, double *lo, double *hi,
		      struct plumb_err *err)
{
	double *v1;
	int rc;
	*lo = *hi = NAN;
	if (o->draws < 1)
		return 0;
	if (!*have0) {
		if ((rc = point_draws(o, s0, lay, x, v0, err)) <= 0)
			return rc;
		*have0 = 1;
	}
	if (!(v1 = malloc((size_t)o->draws * sizeof(*v1))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = point_draws(o, s, lay, x, v1, err)) > 0)
		ratio_interval(v1, v0, o->draws, lo, hi);
	free(v1);
	return rc < 0 ? rc : 0;
}

/* " (90%: xLO-HI)", or "" without a range. */
static const char *range_text(char *buf, size_t n, double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		return "";
	snprintf(buf, n, " (90%%: x%.2f-%.2f)", lo, hi);
	return buf;
}

/*
 * What a box's speed-up over the first depends on, for every bare-metal box:
 * the first layout at the lowest and highest load again with NCCL's default
 * level (PXB) when the scenario sets NCCL_P2P_LEVEL=SYS (P2P across host
 * bridges becomes host-memory SHM), and with both boxes' engines on eager
 * launches.
 */
static int print_depends(FILE *f, const struct popts *o, struct scenario **s,
			 const struct row *rows, int nrows, struct plumb_err *err)
{
	int j, i, rc = 0, head = 0, have0[2] = { 0, 0 };
	double *v0 = calloc((size_t)(o->draws > 0 ? 2 * o->draws : 2), sizeof(*v0));
	if (!v0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (j = 1; j < o->npaths; j++) {
		const struct row *lo = NULL, *hi = NULL;
		struct row t[2], v[2], b[2];
		double rlo[2], rhi[2];
		char buf[2][64];
		if (s[j]->vm.mode == SCN_VM)
			continue;
		for (i = 0; i < nrows; i++)
			if (rows[i].si == j && rows[i].li == 0 && rows[i].fits) {
				if (!lo)
					lo = &rows[i];
				hi = &rows[i];
			}
		if (!lo || !rows[lo - rows - j].fits || !rows[hi - rows - j].fits)
			continue;
		for (i = 0; i < 2; i++) {
			struct pred_cfg c;
			int x = (i ? hi : lo)->x;
			if ((rc = pair_range(o, s[0], s[j], o->layouts[0], x, v0 + i * o->draws,
					     &have0[i], &rlo[i], &rhi[i], err)) < 0)
				goto out;
			memset(&t[i], 0, sizeof(t[i]));
			memset(&v[i], 0, sizeof(v[i]));
			memset(&b[i], 0, sizeof(b[i]));
			/* NCCL's default level: P2P across host bridges becomes SHM. */
			if (s[j]->nccl_level == NP_SYS) {
				if ((rc = setup(o, s[j], o->layouts[0], &c, err)) < 0)
					goto out;
				c.topo.nccl_p2p_level = NP_PXB;
				if ((rc = run_point(o, &c, x, &t[i], err)) < 0)
					goto out;
			}
			/* Both boxes without CUDA graphs. */
			if ((rc = setup(o, s[0], o->layouts[0], &c, err)) < 0)
				goto out;
			c.cuda_graphs = 0;
			if ((rc = run_point(o, &c, x, &v[i], err)) < 0)
				goto out;
			if ((rc = setup(o, s[j], o->layouts[0], &c, err)) < 0)
				goto out;
			c.cuda_graphs = 0;
			if ((rc = run_point(o, &c, x, &b[i], err)) < 0)
				goto out;
		}
		if (!head++) {
			fprintf(f, "\nWhat the speed-up over %s depends on (%s, %d and %d requests):\n",
				s[0]->name, o->layouts[0], lo->x, hi->x);
			if (!isnan(rlo[0]))
				fprintf(f, "  (90%%: the speed-up under %d draws of the constants, %s, "
					   "each draw the same for both boxes)\n", o->draws,
					cmd_calib() ? "from the calibration's covariance and residual spread" :
					coll_vm_unmeasured(s[0]) ? "the step constants the scenarios leave open "
					"over their plausible ranges and the unmeasured VM's host path over "
					"the measured VMs' prior" :
					"the step constants the scenarios leave open over their plausible ranges");
		}
		fprintf(f, "  %s: x%.2f%s and x%.2f%s as predicted above.\n", s[j]->name,
			lo->tok_total / rows[lo - rows - j].tok_total,
			range_text(buf[0], sizeof(buf[0]), rlo[0], rhi[0]),
			hi->tok_total / rows[hi - rows - j].tok_total,
			range_text(buf[1], sizeof(buf[1]), rlo[1], rhi[1]));
		/* A benchmark's "peak throughput" (the seed's 485) is the busiest
		 * second, not the run's mean that the table gives. */
		if (!o->nbatch && hi->sr.peak_tok_s > 0 && rows[hi - rows - j].sr.peak_tok_s > 0)
			fprintf(f, "    Peak output rate at %d requests (the busiest second, bench_serving's "
				   "\"peak output token throughput\"; the table gives the run's mean): "
				   "%.1f against %.1f tok/s, x%.2f.\n", hi->x, hi->sr.peak_tok_s,
				rows[hi - rows - j].sr.peak_tok_s,
				hi->sr.peak_tok_s / rows[hi - rows - j].sr.peak_tok_s);
		if (s[j]->nccl_level == NP_SYS)
			fprintf(f, "    It runs P2P between GPUs on different host bridges only with "
				   "NCCL_P2P_LEVEL=SYS (its scenario sets it); with NCCL's default (PXB) "
				   "its all-reduces go through host memory: %.1f and %.1f tok/s, "
				   "x%.2f and x%.2f.\n", t[0].tok_total, t[1].tok_total,
				t[0].tok_total / rows[lo - rows - j].tok_total,
				t[1].tok_total / rows[hi - rows - j].tok_total);
		if (v[0].fits && v[1].fits && b[0].fits && b[1].fits)
			fprintf(f, "    With both engines on eager launches (no CUDA graphs): %.1f and "
				   "%.1f tok/s against %.1f and %.1f, x%.2f and x%.2f.\n",
				b[0].tok_total, b[1].tok_total, v[0].tok_total, v[1].tok_total,
				b[0].tok_total / v[0].tok_total, b[1].tok_total / v[1].tok_total);
	}
	if (head && s[0]->vm.mode == SCN_VM && s[0]->serving.given && coll_vm_measured(&s[0]->k))
		fprintf(f, "  %s's host-path constant (vm_step_exits) is fitted to its measured "
			   "tok/s with CUDA graphs on; if its engine ran without them, the same data "
			   "gives a smaller one (scripts/calibrate-seed.sh prints both and the "
			   "speed-up each implies).\n", s[0]->name);
out:
	free(v0);
	return rc < 0 ? rc : 0;
}

/* The rows as the throughput chart: a line per box and layout. */
static int plot_rows(const struct popts *o, struct scenario **s, const struct row *rows,
		     int nrows, struct plumb_err *err)
{
	struct rdr_series *ser = calloc((size_t)(o->npaths * o->nlayouts), sizeof(*ser));
	char title[256];
	int i, rc;
	if (!ser)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < o->npaths * o->nlayouts; i++) {
		snprintf(ser[i].label, sizeof(ser[i].label), "%s, %s", s[i / o->nlayouts]->name,
			 o->layouts[i % o->nlayouts]);
		ser[i].color = i / o->nlayouts;
		ser[i].dash = i % o->nlayouts;
	}
	for (i = 0; i < nrows; i++) {
		struct rdr_series *r = &ser[rows[i].si * o->nlayouts + rows[i].li];
		if (r->n < RDR_MAX_PTS) {
			r->x[r->n] = rows[i].x;
			/* the 90% interval as a band where there is one (NAN draws none) */
			r->lo[r->n] = rows[i].fits ? rows[i].lo : NAN;
			r->hi[r->n] = rows[i].fits ? rows[i].hi : NAN;
			r->y[r->n++] = rows[i].fits ? rows[i].tok_total : NAN;
		}
	}
	snprintf(title, sizeof(title), "%s %s: total tok/s (input %ld, output %ld)", o->model,
		 o->weights, o->input, o->output);
	rc = rdr_throughput(o->plot, title, o->nbatch ? "batch (one decode step)" :
			    "concurrent requests (closed loop)", ser, o->npaths * o->nlayouts, err);
	rdr_release_fonts();
	free(ser);
	return rc;
}

/* --trace FILE: its requests, checked against the run's cached context. */
static int read_trace(struct popts *o, struct plumb_err *err)
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
		if (r->input_len <= o->context) {
			rc = plumb_err_set(err, PLUMB_EINPUT, o->trace, r->line, 1,
					   "input_len %ld is not longer than the cached context (%ld)",
					   r->input_len, o->context);
			goto out;
		}
		o->reqs[i].arrival = r->arrival_s;
		o->reqs[i].input_len = r->input_len;
		o->reqs[i].output_len = r->output_len;
	}
	o->nreqs = t->nrows;
out:
	meas_csv_free(t);
	return rc;
}

/*
 * The rows of run(): each point (layout, load, scenario) with its interval,
 * on the machine's cores (work_run). The rows are independent and read the
 * scenarios only (an interval's draws run on copies); an error is the first
 * failing row's, in row order.
 */
struct rows {
	const struct popts *o;
	struct scenario *const *s;
	struct row *rows;
	int nx;
};

static int row_item(void *arg, void *tls, int i, struct plumb_err *err)
{
	const struct rows *w = arg;
	const struct popts *o = w->o;
	struct row *r = &w->rows[i];
	struct pred_cfg c;
	int xi = i / o->npaths % w->nx, x = o->nbatch ? o->batch[xi] : o->conc[xi], rc;
	(void)tls;
	if ((rc = setup(o, w->s[r->si], o->layouts[r->li], &c, err)) < 0 ||
	    (rc = run_point(o, &c, x, r, err)) < 0)
		return rc;
	return interval(o, w->s[r->si], o->layouts[r->li], x, r, err);
}

static int run(const char *cmd, struct popts *o, int compare)
{
	struct plumb_err err;
	struct scenario *s[MAXSCN] = { NULL };
	struct row *rows = NULL;
	struct outfile out;
	int i, li, xi, si, rc = 0, nrows = 0, opened = 0, nx;

	plumb_err_clear(&err);
	if (o->trace && (rc = read_trace(o, &err)) < 0)
		goto fail;
	for (i = 0; i < o->npaths; i++)
		if ((rc = scn_load(o->paths[i], &s[i], &err)) < 0)
			goto fail;
	if (!o->nlayouts) {
		snprintf(o->layouts[0], 32, "tp%d", s[0]->ngpus);
		o->nlayouts = 1;
	}
	nx = o->nbatch ? o->nbatch : o->nconc;
	rows = calloc((size_t)(o->nlayouts * nx * o->npaths), sizeof(*rows));
	if (!rows) {
		plumb_err_set(&err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	/* Rows ordered layout, x, scenario: what the comparison table wants. */
	for (li = 0; li < o->nlayouts; li++)
		for (xi = 0; xi < nx; xi++)
			for (si = 0; si < o->npaths; si++) {
				struct row *r = &rows[nrows++];
				r->si = si;
				r->li = li;
			}
	{
		struct rows w = { o, s, rows, nx };
		if ((rc = work_run(nrows, row_item, &w, NULL, NULL, &err)) < 0)
			goto fail;
	}
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
		if ((rc = print_json(out.f, o, s, rows, nrows, &err)) < 0)
			goto fail;
	} else {
		print_rows(out.f, o, s, o->npaths, rows, nrows, compare);
	}
	if (compare && !strcmp(o->format, "table") && (rc = print_depends(out.f, o, s, rows, nrows, &err)) < 0)
		goto fail;
	for (i = 0; i < o->npaths && !strcmp(o->format, "table"); i++) {
		char note[1024];    /* a VM nobody measured says so */
		if (coll_vm_note(s[i], note, sizeof(note)))
			fprintf(out.f, "\n%s\n", note);
	}
	opened = 0;
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	if (o->plot && (rc = plot_rows(o, s, rows, nrows, &err)) < 0)
		goto fail;
	free_rows(rows, nrows);
	free(o->reqs);
	for (i = 0; i < o->npaths; i++)
		scn_free(s[i]);
	(void)cmd;
	return PLUMB_OK;
fail:
	if (opened)
		out_abort(&out);
	plumb_err_print(&err);
	free_rows(rows, nrows);
	free(o->reqs);
	for (i = 0; i < o->npaths; i++)
		scn_free(s[i]);
	return plumb_err_status(&err);
}

int cmd_predict(int argc, char **argv)
{
	struct popts o;
	int rc = parse_args("predict", argc, argv, &o, 1);
	if (rc)
		return rc;
	return run("predict", &o, 0);
}

int cmd_compare(int argc, char **argv)
{
	struct popts o;
	int rc = parse_args("compare", argc, argv, &o, 2);
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
	rc = parse_args("compare", 6, argv, &o, 2);
	if (rc)
		return rc;
	return run("compare", &o, 1);
}
