/*
 * cmd_bench.c - `plumb bench`: how fast the engine runs (sim/bench.h).
 * One row per workload: events, flow starts, re-solves, wall time, the
 * rates derived from them and the process's peak RSS.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmd.h"
#include "out.h"
#include "ytree.h"

const char cmd_bench_usage[] =
	"usage: plumb bench [options]\n"
	"\n"
	"Measure the discrete-event engine on synthetic workloads and print one\n"
	"row per workload: events, flow starts, flow-rate re-solves, wall time,\n"
	"events/s, flows/s, re-solves/s, ns per event, ns per re-solve and the\n"
	"process's peak RSS. Wall time covers the event loop alone (not setup).\n"
	"\n"
	"Workloads:\n"
	"  ring   ring all-reduces over GPUs in two sockets; every chunk is a flow\n"
	"  wide   many flows active at once on 32 links: re-solve cost vs flows\n"
	"  hold   the hold model on the bare engine: queue and run loop alone\n"
	"\n"
	"Options:\n"
	"  --workload ring|wide|hold|all   what to run (default: all)\n"
	"  --steps N        ring: all-reduces (default 5000); wide: flows in all\n"
	"                   (default 100000); hold: events (default 5000000).\n"
	"                   Suffixes k and M multiply by 1000 and 1000000\n"
	"  --gpus N         ring: GPUs, 2..1024 (default 8)\n"
	"  --flows N        wide: flows active at once, 1..100000 (default 64)\n"
	"  --bytes N        ring: bytes per all-reduce (64M, 1G, ...; default 1M)\n"
	"  --seed N         random seed (default 1)\n"
	"  --format table|csv   output format (default: table)\n"
	"  -o FILE          write to FILE (atomically) instead of stdout\n"
	"  -h, --help       this help\n"
	"\n"
	"The defaults run in about a second. Counts are the same on every run;\n"
	"times and rates are not. See docs/perf-engine.md.\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 4 I/O error, 5 runtime error.\n"
	"Example: plumb bench --workload wide --flows 512 --format csv\n";

enum { FMT_TABLE, FMT_CSV };

/* A count: digits with an optional k (x 1000) or M (x 1000000) suffix. */
static int parse_count(const char *v, long max, long *out)
{
	char *end;
	long long n, mul = 1;

	if (!(*v >= '0' && *v <= '9'))
		return -1;
	n = strtoll(v, &end, 10);
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	if (*end || n < 0 || n > max / mul)
		return -1;
	*out = (long)(n * mul);
	return 0;
}

static void print_header(FILE *f, int fmt)
{
	if (fmt == FMT_CSV) {
		fputs("workload,gpus,flows,pending,bytes,steps,seed,events,"
		      "flow_starts,resolves,cancelled,flows_per_resolve,"
		      "rounds_per_resolve,peak_pending,sim_seconds,bytes_sent,"
		      "bytes_done,wall_seconds,events_per_s,flows_per_s,"
		      "resolves_per_s,ns_per_event,ns_per_resolve,"
		      "peak_rss_kib\n", f);
		return;
	}
	fprintf(f, "%-8s %5s %6s %9s %11s %11s %11s %7s %10s %9s %10s "
		"%8s %11s %8s\n", "workload", "gpus", "flows", "steps",
		"events", "flow starts", "re-solves", "wall s", "M events/s",
		"M flows/s", "M solves/s", "ns/event", "ns/re-solve",
		"RSS KiB");
}

static void print_row(FILE *f, int fmt, const struct sim_bench_params *p,
		      const struct sim_bench_result *r)
{
	int ring = p->workload == SIM_BENCH_RING;
	int wide = p->workload == SIM_BENCH_WIDE;
	int hold = p->workload == SIM_BENCH_HOLD;
	char gpus[16] = "-", flows[16] = "-", nsres[32] = "-";
	char fps[32] = "-", rps[32] = "-";

	if (fmt == FMT_CSV) {
		fprintf(f, "%s,", sim_bench_workload_name(p->workload));
		ring ? fprintf(f, "%d,", p->gpus) : fputs(",", f);
		wide ? fprintf(f, "%d,", p->flows) : fputs(",", f);
		hold ? fprintf(f, "%d,", p->pending) : fputs(",", f);
		ring ? fprintf(f, "%.0f,", p->bytes) : fputs(",", f);
		fprintf(f, "%ld,%llu,%llu,%llu,%llu,%llu,%.4f,%.4f,%zu,%.9g,"
			"%.17g,%.17g,%.6f,%.0f,%.0f,%.0f,%.2f,%.2f,%ld\n",
			p->steps, (unsigned long long)p->seed,
			(unsigned long long)r->events,
			(unsigned long long)r->flow_starts,
			(unsigned long long)r->resolves,
			(unsigned long long)r->cancelled,
			r->flows_per_resolve, r->rounds_per_resolve,
			r->peak_pending, r->sim_seconds, r->bytes_sent,
			r->bytes_done, r->wall_seconds, r->events_per_s,
			r->flows_per_s, r->resolves_per_s, r->ns_per_event,
			r->ns_per_resolve, r->peak_rss_kib);
		return;
	}
	if (ring)
		snprintf(gpus, sizeof(gpus), "%d", p->gpus);
	if (wide)
		snprintf(flows, sizeof(flows), "%d", p->flows);
	if (!hold) {
		snprintf(fps, sizeof(fps), "%.2f", r->flows_per_s / 1e6);
		snprintf(rps, sizeof(rps), "%.2f", r->resolves_per_s / 1e6);
	}
	if (r->resolves)
		snprintf(nsres, sizeof(nsres), "%.0f", r->ns_per_resolve);
	fprintf(f, "%-8s %5s %6s %9ld %11llu %11llu %11llu %7.3f %10.2f "
		"%9s %10s %8.1f %11s %8ld\n",
		sim_bench_workload_name(p->workload), gpus, flows, p->steps,
		(unsigned long long)r->events,
		(unsigned long long)r->flow_starts,
		(unsigned long long)r->resolves, r->wall_seconds,
		r->events_per_s / 1e6, fps, rps, r->ns_per_event, nsres,
		r->peak_rss_kib);
}

/* Long options' val is OPT_BASE + their index, so the name comes back. */
#define OPT_BASE 0x200
static const struct option longopts[] = {
	{ "workload", required_argument, NULL, OPT_BASE + 0 },
	{ "steps", required_argument, NULL, OPT_BASE + 1 },
	{ "gpus", required_argument, NULL, OPT_BASE + 2 },
	{ "flows", required_argument, NULL, OPT_BASE + 3 },
	{ "bytes", required_argument, NULL, OPT_BASE + 4 },
	{ "seed", required_argument, NULL, OPT_BASE + 5 },
	{ "format", required_argument, NULL, OPT_BASE + 6 },
	{ NULL, 0, NULL, 0 }
};

int cmd_bench(int argc, char **argv)
{
	struct plumb_err err;
	struct outfile out;
	struct sim_bench_params p;
	struct sim_bench_result r;
	const char *outpath = "-";
	long steps = 0, gpus = 0, flows = 0, seed = -1;
	uint64_t bytes = 0;
	int w, opt, first = 0, last = SIM_BENCH_NWORKLOADS - 1, fmt = FMT_TABLE;

	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((opt = cmd_getopt("bench", argc, argv, "o:", longopts)) != -1) {
		const char *val = optarg;
		char a[32];
		if (opt < 0)
			return -opt;
		snprintf(a, sizeof(a), "%s%s", opt == 'o' ? "-o" : "--",
			 opt == 'o' ? "" : longopts[opt - OPT_BASE].name);
		if (!strcmp(a, "--workload")) {
			enum sim_bench_workload wl;
			if (!strcmp(val, "all")) {
				first = 0;
				last = SIM_BENCH_NWORKLOADS - 1;
			} else if (sim_bench_workload_parse(val, &wl) == 0) {
				first = last = (int)wl;
			} else {
				return cmd_usage_error("bench", "--workload must be ring, wide, hold or all, not '%s'", val);
			}
		} else if (!strcmp(a, "--steps")) {
			if (parse_count(val, 1000000000000L, &steps) < 0 || steps < 1)
				return cmd_usage_error("bench", "--steps needs a count such as 10000 or 10k, not '%s'", val);
		} else if (!strcmp(a, "--gpus")) {
			if (parse_count(val, SIM_BENCH_MAX_GPUS, &gpus) < 0 || gpus < 2)
				return cmd_usage_error("bench", "--gpus needs a number from 2 to %d, not '%s'",
						       SIM_BENCH_MAX_GPUS, val);
		} else if (!strcmp(a, "--flows")) {
			if (parse_count(val, SIM_BENCH_MAX_FLOWS, &flows) < 0 || flows < 1)
				return cmd_usage_error("bench", "--flows needs a number from 1 to %d, not '%s'",
						       SIM_BENCH_MAX_FLOWS, val);
		} else if (!strcmp(a, "--bytes")) {
			if (parse_size(val, &bytes) < 0)
				return cmd_usage_error("bench", "--bytes needs a size such as 64M, not '%s'", val);
		} else if (!strcmp(a, "--seed")) {
			if (parse_count(val, 2147483647L, &seed) < 0)
				return cmd_usage_error("bench", "--seed needs a number from 0 to 2147483647, not '%s'", val);
		} else if (!strcmp(a, "--format")) {
			if (!strcmp(val, "table"))
				fmt = FMT_TABLE;
			else if (!strcmp(val, "csv"))
				fmt = FMT_CSV;
			else
				return cmd_usage_error("bench", "--format must be table or csv, not '%s'", val);
		} else {
			outpath = val;
		}
	}
	if (optind < argc)
		return cmd_usage_error("bench", "unexpected argument '%s'", argv[optind]);

	if (out_open(&out, outpath, &err) < 0)
		goto fail;
	print_header(out.f, fmt);
	for (w = first; w <= last; w++) {
		sim_bench_defaults((enum sim_bench_workload)w, &p);
		if (steps)
			p.steps = steps;
		if (gpus)
			p.gpus = (int)gpus;
		if (flows)
			p.flows = (int)flows;
		if (bytes)
			p.bytes = (double)bytes;
		if (seed >= 0)
			p.seed = (uint64_t)seed;
		if (sim_bench_run(&p, &r, &err) < 0) {
			out_abort(&out);
			goto fail;
		}
		print_row(out.f, fmt, &p, &r);
		fflush(out.f);
	}
	if (out_commit(&out, &err) < 0)
		goto fail;
	return PLUMB_OK;
fail:
	plumb_err_print(&err);
	return plumb_err_status(&err);
}
