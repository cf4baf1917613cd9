/*
 * cmd_predict.c - `plumb predict`, `plumb compare` and the bare `plumb`
 * comparison: tokens per second for a model, layouts and boxes.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "datadir.h"
#include "meas.h"
#include "jout.h"
#include "out.h"
#include "predict_run.h"
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
	"  --engine E[@V]         the serving engine's stack: sglang, vllm or trtllm, at\n"
	"                         version V (default: the scenario's serving: engine, else\n"
	"                         sglang; each at the engine table's default version):\n"
	"                         attention backend, dense or sparse DSA, custom all-reduce\n"
	"                         and fusion, MoE runner, CUDA graphs and scheduler for the\n"
	"                         model family and GPU (docs/model.md \"Engine stacks\");\n"
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

#define MAXLIST PRED_MAXLIST
#define MAXSCN 8

/* The options: what is predicted (r, models/predict), and how it is shown. */
struct popts {
	struct pred_run r;
	const char *format, *outpath;
	int breakdown;              /* --breakdown: the step's parts */
	const char *paths[MAXSCN];
	int npaths;
	const char *plot;           /* --plot FILE: the throughput chart */
	const char *trace;          /* --trace FILE */
	struct serve_request *reqs; /* its requests (owned) */
	int accept_given;           /* --accept given (only with --mtp) */
	int percentiles;            /* --percentiles */
	/* The engine stack of each box (its first layout), and for predict the
	 * answer under the other engines (pred_run_engines). */
	char stack[MAXSCN][400];
	struct pred_engine_alt alt[3];
	int nalt;
};

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
	{ "engine", required_argument, NULL, OPT_BASE + 26 },
	{ NULL, 0, NULL, 0 }
};

static int parse_args(const char *cmd, int argc, char **argv, struct popts *o, int min_paths)
{
	int i, opt;
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
		if (!strcmp(a, "--model")) {
			o->r.model = v;
		} else if (!strcmp(a, "--weights")) {
			o->r.weights = v;
		} else if (!strcmp(a, "--kv")) {
			o->r.kv = v;
		} else if (!strcmp(a, "--layout")) {
			char buf[512], *tok, *save = NULL;
			snprintf(buf, sizeof(buf), "%s", v);
			o->r.nlayouts = 0;
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				struct step_layout l;
				struct plumb_err e;
				if (o->r.nlayouts >= MAXLIST)
					return cmd_usage_error(cmd, "at most %d layouts", MAXLIST);
				if (step_layout_parse(tok, &l, &e) < 0)
					return cmd_usage_error(cmd, "%s", e.msg);
				snprintf(o->r.layouts[o->r.nlayouts++], 32, "%s", tok);
			}
		} else if (!strcmp(a, "--concurrency")) {
			if ((o->r.nconc = parse_ints(v, o->r.conc, MAXLIST)) < 0)
				return cmd_usage_error(cmd, "--concurrency needs numbers like 1,2,4, not '%s'", v);
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
			if (parse_long(v, 1, &o->r.requests) < 0 || o->r.requests > 1000000)
				return cmd_usage_error(cmd, "--requests needs 1-1000000, not '%s'", v);
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
		} else if (!strcmp(a, "--percentiles")) {
			o->percentiles = 1;
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
	if (!o->r.weights)
		o->r.weights = llm_default_weights(o->r.model);
	if (o->npaths < min_paths)
		return cmd_usage_error(cmd, min_paths > 1 ? "give at least %d SCENARIO files" :
					    "missing SCENARIO file", min_paths);
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
	return 0;
}

/* --breakdown in a table: each representative step's parts, ms per GPU. */
static void print_breakdown(FILE *f, const struct popts *o, const struct pred_row *rows, int nrows)
{
	int i, j;
	fprintf(f, "\nStep parts, ms per GPU (%s; launch and kernel_min are kernel latency, "
		   "weights and kv_cache memory):\n%-8s %11s", o->r.nbatch ? "each batch" :
		   "the decode step at each concurrency, context input + output/2", "layout",
		   o->r.nbatch ? "batch" : "concurrency");
	for (j = 0; j < PART_N; j++)
		fprintf(f, " %11s", pred_part_name((enum pred_part)j));
	fputc('\n', f);
	for (i = 0; i < nrows; i++) {
		const struct pred_row *r = &rows[i];
		if (!r->fits)
			continue;
		fprintf(f, "%-8s %11d", o->r.layouts[r->li], r->x);
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
	if (llm_model_resolve(o->r.model, &m, NULL) < 0 ||
	    llm_prec_setup(&p, m, o->r.weights, o->r.kv, NULL) < 0)
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
		      const struct pred_row *rows, int nrows, struct plumb_err *err)
{
	const char *xname = o->r.nbatch ? "batch" : "concurrency";
	json_t *doc = json_object(), *arr = json_array(), *mi;
	int i, j, k, rc = 0;

	rc |= jout_set(doc, "model", jout_str(o->r.model));
	rc |= jout_set(doc, "weights", jout_str(o->r.weights));
	rc |= jout_set(doc, "kv", jout_str(o->r.kv));
	if ((mi = model_json(o)))
		rc |= jout_set(doc, "model_info", mi);
	{
		/* each box's engine stack (its first layout), in scenario order */
		json_t *es = json_array();
		for (i = 0; es && i < o->npaths; i++)
			rc |= jout_push(es, jout_str(o->stack[i]));
		rc |= !es || jout_set(doc, "engine_stacks", es);
	}
	for (i = 0; i < nrows; i++) {
		const struct pred_row *r = &rows[i];
		json_t *row = json_object();
		rc |= jout_set(row, "scenario", jout_str(s[r->si]->name));
		rc |= jout_set(row, "layout", jout_str(o->r.layouts[r->li]));
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
		if (!o->r.nbatch) {
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
static void print_percentiles(FILE *f, const struct popts *o, const struct pred_row *rows, int nrows)
{
	int i, k;
	fprintf(f, "\nLatency percentiles, ms (p50 / p90 / p99), and the KV cache (tokens)%s:\n"
		   "%-8s %11s", o->r.rate > 0 ? "; arrivals Poisson" : "", "layout", "concurrency");
	for (k = 0; k < SERVE_NDIST; k++)
		fprintf(f, " %22s", serve_dist_name[k]);
	fprintf(f, " %10s %10s %7s %9s\n", "kv_tokens", "kv_peak", "queued", "retracted");
	for (i = 0; i < nrows; i++) {
		const struct pred_row *r = &rows[i];
		if (!r->fits)
			continue;
		fprintf(f, "%-8s %11d", o->r.layouts[r->li], r->x);
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

/* The stack assumed, and the first layout's first and last load under the
 * other engines against the rows (predict's table). */
static void print_engines(FILE *f, const struct popts *o, const struct pred_row *rows, int nrows)
{
	const struct pred_row *lo = NULL, *hi = NULL;
	const char *unit = o->r.nbatch ? "batch" : "request";
	int i;
	fprintf(f, "# engine %s\n", o->stack[0]);
	for (i = 0; i < nrows; i++)
		if (rows[i].li == 0) {
			if (!lo)
				lo = &rows[i];
			hi = &rows[i];
		}
	for (i = 0; lo && i < o->nalt; i++) {
		const struct pred_engine_alt *a = &o->alt[i];
		char c0[64] = "does not fit", c1[64] = "does not fit";
		if (a->lo.fits)
			snprintf(c0, sizeof(c0), "%.1f tok/s (x%.2f)", a->lo.tok_total,
				 lo->fits ? a->lo.tok_total / lo->tok_total : NAN);
		if (a->hi.fits)
			snprintf(c1, sizeof(c1), "%.1f tok/s (x%.2f)", a->hi.tok_total,
				 hi->fits ? a->hi.tok_total / hi->tok_total : NAN);
		fprintf(f, "#   under %s, %s: %s at %d %s%s", a->engine, o->r.layouts[0], c0, lo->x,
			unit, lo->x == 1 || o->r.nbatch ? "" : "s");
		if (hi != lo)
			fprintf(f, ", %s at %d", c1, hi->x);
		fputc('\n', f);
	}
}

static void print_rows(FILE *f, const struct popts *o, struct scenario **s, int ns,
		       const struct pred_row *rows, int nrows, int compare)
{
	const char *xname = o->r.nbatch ? "batch" : "concurrency";
	int i, j, w, iv = 0, pct = o->percentiles && !o->r.nbatch;

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
			const struct pred_row *r = &rows[i];
			struct step_layout l;
			step_layout_parse(o->r.layouts[r->li], &l, NULL);
			if (compare)
				fprintf(f, "%s,", s[r->si]->name);
			fprintf(f, "%s,%d,%d,%ld,", o->r.layouts[r->li], l.gpus, r->x,
				o->r.nbatch ? o->r.context : o->r.input + o->r.output / 2);
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
		o->r.model, o->r.weights, o->r.kv, o->r.input, o->r.output, o->r.context,
		o->r.eager ? ", eager" : ", CUDA graphs", o->r.mtp ? ", speculative decoding" : "");
	if (o->trace)
		fprintf(f, "# requests: %d from %s (their arrivals and lengths)\n", o->r.nreqs, o->trace);
	else if (o->r.rate > 0)
		fprintf(f, "# requests: %ld arriving at %g/s (Poisson)\n",
			o->r.requests ? o->r.requests : 1000, o->r.rate);
	if (!compare) {
		fprintf(f, "# %s\n", s[0]->name[0] ? s[0]->name : s[0]->path);
		print_engines(f, o, rows, nrows);
		if (iv)
			fprintf(f, cmd_calib() ? "# tok/s 90%% interval from the calibration's covariance "
				   "and residual spread (%d draws)\n"
				   : "# tok/s 90%% interval from the plausible ranges of the step constants "
				   "the scenario leaves at their defaults (%d draws; plumb constants)\n",
				o->r.draws);
		fprintf(f, "%-8s %11s %9s %11s ", "layout", xname, "step_ms", "tok/s");
		if (iv)
			fprintf(f, "%17s ", "tok/s 90%");
		fprintf(f, "%11s %9s %9s %6s %6s  %s\n", "tok/s/user", "tpot_ms", "ttft_ms", "comm%", "busy%", "diagnosis");
		for (i = 0; i < nrows; i++) {
			const struct pred_row *r = &rows[i];
			if (!r->fits) {
				fprintf(f, "%-8s %11d  %s\n", o->r.layouts[r->li], r->x, r->why);
				continue;
			}
			fprintf(f, "%-8s %11d %9.2f %11.1f ", o->r.layouts[r->li], r->x, r->step_ms, r->tok_total);
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
	for (j = 0; j < ns; j++)
		fprintf(f, "# %s: engine %s\n", s[j]->name, o->stack[j]);
	fprintf(f, "# total tok/s per box; x = speed-up over %s%s\n", s[0]->name,
		w > 30 ? " (with its 90% range over the draws, each the same for every box)" : "");
	fprintf(f, "%-8s %11s", "layout", xname);
	for (j = 0; j < ns; j++)
		fprintf(f, " %*s", j ? w : 24, s[j]->name);
	fputc('\n', f);
	for (i = 0; i < nrows; i += ns) {
		const struct pred_row *r0 = &rows[i];
		fprintf(f, "%-8s %11d", o->r.layouts[r0->li], r0->x);
		for (j = 0; j < ns; j++) {
			const struct pred_row *r = &rows[i + j];
			if (!r->fits)
				fprintf(f, " %*s", j ? w : 24, "does not fit");
			else {
				char cell[128], band[48] = "", xr[48] = "";
				if (!isnan(r->lo))
					snprintf(band, sizeof(band), " [%.0f-%.0f]", r->lo, r->hi);
				if (j > 0 && r0->fits && r->dv && r0->dv && r->ndv == r0->ndv) {
					double lo, hi;
					pred_ratio_interval(&o->r, r->dv, r0->dv, r->ndv, &lo, &hi);
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
			const struct pred_row *r = &rows[i];
			if (r->si != j)
				continue;
			for (k = i + 1; k < nrows && (rows[k].si != j || rows[k].li != r->li); k++)
				;
			if (k < nrows || !r->fits)
				continue;
			fprintf(f, "  %s %s x%d: %s\n", s[j]->name, o->r.layouts[r->li], r->x, r->diag);
		}
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
 * launches (pred_run_depends).
 */
static int print_depends(FILE *f, const struct popts *o, struct scenario **s,
			 const struct pred_row *rows, int nrows, struct plumb_err *err)
{
	struct pred_depends dep[MAXSCN];
	int k, n, rc;
	if ((rc = pred_run_depends(&o->r, s, o->npaths, rows, nrows, dep, &n, err)) < 0)
		return rc;
	for (k = 0; k < n; k++) {
		const struct pred_depends *d = &dep[k];
		char buf[2][64];
		if (k == 0) {
			fprintf(f, "\nWhat the speed-up over %s depends on (%s, %d and %d requests):\n",
				s[0]->name, o->r.layouts[0], d->lo->x, d->hi->x);
			if (!isnan(d->rlo[0]))
				fprintf(f, "  (90%%: the speed-up under %d draws of the constants, %s, "
					   "each draw the same for both boxes)\n", o->r.draws,
					cmd_calib() ? "from the calibration's covariance and residual spread" :
					"the step constants the scenarios leave open over their plausible ranges");
		}
		fprintf(f, "  %s: x%.2f%s and x%.2f%s as predicted above.\n", s[d->j]->name,
			d->lo->tok_total / d->lo0->tok_total,
			range_text(buf[0], sizeof(buf[0]), d->rlo[0], d->rhi[0]),
			d->hi->tok_total / d->hi0->tok_total,
			range_text(buf[1], sizeof(buf[1]), d->rlo[1], d->rhi[1]));
		if (d->pxb)
			fprintf(f, "    It runs P2P between GPUs on different host bridges only with "
				   "NCCL_P2P_LEVEL=SYS (its scenario sets it); with NCCL's default (PXB) "
				   "its all-reduces go through host memory: %.1f and %.1f tok/s, "
				   "x%.2f and x%.2f.\n", d->pxb_tok[0], d->pxb_tok[1],
				d->pxb_tok[0] / d->lo0->tok_total, d->pxb_tok[1] / d->hi0->tok_total);
		if (d->eager_fits)
			fprintf(f, "    With both engines on eager launches (no CUDA graphs): %.1f and "
				   "%.1f tok/s against %.1f and %.1f, x%.2f and x%.2f.\n",
				d->eager[0], d->eager[1], d->eager0[0], d->eager0[1],
				d->eager[0] / d->eager0[0], d->eager[1] / d->eager0[1]);
	}
	if (n && s[0]->vm.mode == SCN_VM && s[0]->serving.given)
		fprintf(f, "  %s's host-path constant (vm_shm_step_us) is fitted to its measured "
			   "tok/s with CUDA graphs on; if its engine ran without them, the same data "
			   "gives a smaller one (scripts/calibrate-seed.sh prints both and the "
			   "speed-up each implies).\n", s[0]->name);
	return 0;
}

/* The rows as the throughput chart: a line per box and layout. */
static int plot_rows(const struct popts *o, struct scenario **s, const struct pred_row *rows,
		     int nrows, struct plumb_err *err)
{
	struct rdr_series *ser = calloc((size_t)(o->npaths * o->r.nlayouts), sizeof(*ser));
	char title[256];
	int i, rc;
	if (!ser)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < o->npaths * o->r.nlayouts; i++) {
		snprintf(ser[i].label, sizeof(ser[i].label), "%s, %s", s[i / o->r.nlayouts]->name,
			 o->r.layouts[i % o->r.nlayouts]);
		ser[i].color = i / o->r.nlayouts;
		ser[i].dash = i % o->r.nlayouts;
	}
	for (i = 0; i < nrows; i++) {
		struct rdr_series *r = &ser[rows[i].si * o->r.nlayouts + rows[i].li];
		if (r->n < RDR_MAX_PTS) {
			r->x[r->n] = rows[i].x;
			/* the 90% interval as a band where there is one (NAN draws none) */
			r->lo[r->n] = rows[i].fits ? rows[i].lo : NAN;
			r->hi[r->n] = rows[i].fits ? rows[i].hi : NAN;
			r->y[r->n++] = rows[i].fits ? rows[i].tok_total : NAN;
		}
	}
	snprintf(title, sizeof(title), "%s %s: total tok/s (input %ld, output %ld)", o->r.model,
		 o->r.weights, o->r.input, o->r.output);
	rc = rdr_throughput(o->plot, title, o->r.nbatch ? "batch (one decode step)" :
			    "concurrent requests (closed loop)", ser, o->npaths * o->r.nlayouts, err);
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
	if (o->trace && (rc = read_trace(o, &err)) < 0)
		goto fail;
	for (i = 0; i < o->npaths; i++)
		if ((rc = scn_load(o->paths[i], &s[i], &err)) < 0)
			goto fail;
	if (!o->r.nlayouts) {
		snprintf(o->r.layouts[0], 32, "tp%d", s[0]->ngpus);
		o->r.nlayouts = 1;
	}
	if ((rc = pred_run_rows(&o->r, s, o->npaths, &rows, &nrows, &err)) < 0)
		goto fail;
	for (i = 0; i < o->npaths; i++) {
		struct pred_cfg c;
		if (pred_run_setup(&o->r, s[i], o->r.layouts[0], &c, NULL) == 0)
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
		if ((rc = print_json(out.f, o, s, rows, nrows, &err)) < 0)
			goto fail;
	} else {
		print_rows(out.f, o, s, o->npaths, rows, nrows, compare);
	}
	if (compare && !strcmp(o->format, "table") && (rc = print_depends(out.f, o, s, rows, nrows, &err)) < 0)
		goto fail;
	opened = 0;
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	if (o->plot && (rc = plot_rows(o, s, rows, nrows, &err)) < 0)
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
