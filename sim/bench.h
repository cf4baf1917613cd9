/*
 * bench.h - throughput benchmarks of the event engine and the flow network
 * (`plumb bench`, docs/perf-engine.md).
 *
 * Three synthetic workloads, each run on its own engine from a fresh start:
 *
 * RING: `gpus` GPUs in two sockets (GPU g is in socket g * 2 / gpus). Each
 * GPU has a PCIe link per direction (55 GB/s, 1 us); each socket's GPUs
 * share a root link (73 GB/s, 0.5 us, the I/O-die quadrant cap); the
 * sockets are joined by one inter-socket link per direction (64 GB/s,
 * 0.3 us). A flow from GPU i to GPU j crosses up(i), root(socket i),
 * [xsock(socket i), root(socket j)], down(j). `steps` ring all-reduces of
 * `bytes` bytes run one after another: each is 2(gpus-1) ring steps in
 * which every GPU sends one chunk (bytes / gpus) to its right neighbour as
 * one flow. A GPU sends step s (s >= 1) once its own send of step s-1 is
 * complete and it has received and reduced (a 2 us event) the chunk of
 * step s-1 from its left neighbour. After every GPU has finished, each runs
 * a compute phase of 10..30 us drawn from its own random stream and then
 * starts the next all-reduce. Flow starts and ends dominate: re-solves of
 * a few flows each. Flow starts = steps x gpus x 2(gpus-1) exactly.
 *
 * WIDE: `flows` flows stay active at once on 32 links of random capacity
 * (10..100 GB/s, 1 us), each on 1..4 distinct random links, `steps` flows in
 * all; each completion starts a new flow, so nearly every event is followed
 * by a re-solve over all `flows` flows. It measures the re-solve cost
 * against the number of active flows.
 *
 * HOLD: the classic hold model on the bare engine: `pending` events wait;
 * each handled event schedules one more at now + Exp(1). The run stops after
 * exactly `steps` events. It measures the queue and the run loop alone.
 *
 * The simulated outcome (events, flow starts, re-solves, simulated time,
 * bytes) is a pure function of the parameters and the seed; only the wall
 * time and what is derived from it vary between runs. Runs have no event
 * budget (each workload ends by construction). No globals: runs may go on
 * side by side in separate threads.
 */
#ifndef PLUMB_SIM_BENCH_H
#define PLUMB_SIM_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

enum sim_bench_workload {
	SIM_BENCH_RING,
	SIM_BENCH_WIDE,
	SIM_BENCH_HOLD,
	SIM_BENCH_NWORKLOADS
};

/* Limits on the parameters (sim_bench_run refuses values outside). */
#define SIM_BENCH_MAX_GPUS 1024
#define SIM_BENCH_MAX_FLOWS 100000

struct sim_bench_params {
	enum sim_bench_workload workload;
	long steps;     /* ring: all-reduces; wide: flows in all; hold: events */
	int gpus;       /* ring: GPUs, 2..SIM_BENCH_MAX_GPUS */
	double bytes;   /* ring: bytes per all-reduce, > 0 */
	int flows;      /* wide: flows active at once, 1..SIM_BENCH_MAX_FLOWS */
	int pending;    /* hold: pending events, 1..SIM_BENCH_MAX_FLOWS */
	uint64_t seed;  /* random streams (compute phases, wide paths, hold) */
};

struct sim_bench_result {
	/* simulated outcome: deterministic for given parameters */
	uint64_t events;        /* events handled */
	uint64_t flow_starts;   /* sim_flow_start() calls */
	uint64_t resolves;      /* flow-rate re-solves */
	uint64_t cancelled;     /* pending events cancelled (stale flow
				   completions after a re-solve) */
	double flows_per_resolve;   /* active flows per re-solve, mean */
	double rounds_per_resolve;  /* progressive-filling rounds, mean */
	size_t peak_pending;    /* largest number of pending events */
	double sim_seconds;     /* simulated time at the end */
	double bytes_sent;      /* bytes of all started flows */
	double bytes_done;      /* bytes of all completed flows */
	/* measured: wall time of sim_run() alone (setup excluded) */
	double wall_seconds;    /* CLOCK_MONOTONIC */
	double events_per_s;
	double flows_per_s;     /* flow starts per second */
	double resolves_per_s;
	double ns_per_event;
	double ns_per_resolve;  /* wall time / re-solves: an upper bound */
	long peak_rss_kib;      /* getrusage ru_maxrss: the whole process's
				   peak so far, not this run's; -1 if unknown */
};

/* "ring", "wide", "hold" ("?" when out of range). */
const char *sim_bench_workload_name(enum sim_bench_workload w);

/* The workload called name: 0 and *out set, or -1 when there is none. */
int sim_bench_workload_parse(const char *name, enum sim_bench_workload *out);

/*
 * Fill *p with the defaults of workload w, sized so that the three
 * defaults together run in about a second on one core: ring 8 GPUs,
 * 5000 all-reduces of 1 MiB; wide 64 flows, 100000 in all; hold 1000
 * pending, 5 million events; seed 1.
 */
void sim_bench_defaults(enum sim_bench_workload w,
			struct sim_bench_params *p);

/*
 * Run p->workload with parameters *p and fill *r (zeroed first).
 * Returns 0, -PLUMB_EINPUT for a parameter out of range (the message names
 * it), or -PLUMB_ERUNTIME (out of memory). Allocates only its own engine
 * and network, freed before returning. Cost: O(events x (log pending +
 * per-re-solve cost)), see docs/engine.md.
 */
int sim_bench_run(const struct sim_bench_params *p,
		  struct sim_bench_result *r, struct plumb_err *err);

#endif
