/*
 * test_bench.c - the engine benchmarks (sim/bench.h): each workload run
 * tiny, its counts checked against what the workload must do, the same
 * parameters giving the same counts, bad parameters refused. No timing
 * assertions: wall-clock figures are only checked to be non-negative.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "test_sim_int.h"

void suite_bench(void);

static int run(const struct sim_bench_params *p, struct sim_bench_result *r)
{
	struct plumb_err err;
	int rc;

	plumb_err_clear(&err);
	rc = sim_bench_run(p, r, &err);
	EXPECT_TRUE(rc == 0, "sim_bench_run(%s) = %d: %.200s",
		    sim_bench_workload_name(p->workload), rc, err.msg);
	return rc;
}

/* Figures every successful run must satisfy. */
static void check_common(const struct sim_bench_result *r)
{
	EXPECT_TRUE(r->events > 0, "events = %llu, expected > 0",
		    (unsigned long long)r->events);
	EXPECT_TRUE(r->wall_seconds >= 0, "wall_seconds = %g",
		    r->wall_seconds);
	EXPECT_TRUE(r->sim_seconds > 0, "sim_seconds = %g", r->sim_seconds);
	/* equal up to the order of summation */
	EXPECT_TRUE(fabs(r->bytes_done - r->bytes_sent) <=
		    1e-12 * r->bytes_sent,
		    "bytes_done = %.17g, bytes_sent = %.17g",
		    r->bytes_done, r->bytes_sent);
}

static void test_ring(void)
{
	struct sim_bench_params p;
	struct sim_bench_result r;
	int gpus[] = { 2, 3, 8 };
	size_t i;

	for (i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++) {
		sim_bench_defaults(SIM_BENCH_RING, &p);
		p.gpus = gpus[i];
		p.steps = 10;
		if (run(&p, &r) < 0)
			return;
		check_common(&r);
		/* every GPU sends 2(n-1) chunks per all-reduce, one flow each */
		EXPECT_INT(r.flow_starts, 10 * p.gpus * 2 * (p.gpus - 1));
		EXPECT_TRUE(fabs(r.bytes_sent - (double)r.flow_starts *
				 p.bytes / p.gpus) <= 1e-9 * r.bytes_sent,
			    "bytes_sent = %.17g for %llu chunks of %g",
			    r.bytes_sent, (unsigned long long)r.flow_starts,
			    p.bytes / p.gpus);
		EXPECT_TRUE(r.resolves > 0 && r.resolves <= 2 * r.flow_starts,
			    "resolves = %llu for %llu flows",
			    (unsigned long long)r.resolves,
			    (unsigned long long)r.flow_starts);
		/* at least: activation, completion and reduce per flow */
		EXPECT_TRUE(r.events >= 3 * r.flow_starts,
			    "events = %llu for %llu flows",
			    (unsigned long long)r.events,
			    (unsigned long long)r.flow_starts);
	}
}

static void test_wide(void)
{
	struct sim_bench_params p;
	struct sim_bench_result r;

	sim_bench_defaults(SIM_BENCH_WIDE, &p);
	p.flows = 8;
	p.steps = 50;
	if (run(&p, &r) < 0)
		return;
	check_common(&r);
	EXPECT_INT(r.flow_starts, 50);
	EXPECT_TRUE(r.flows_per_resolve > 1 && r.flows_per_resolve <= 8,
		    "flows_per_resolve = %g, expected in (1, 8]",
		    r.flows_per_resolve);
	/* fewer flows in all than at once: only `steps` start */
	p.flows = 20;
	p.steps = 5;
	if (run(&p, &r) < 0)
		return;
	EXPECT_INT(r.flow_starts, 5);
	check_common(&r);
}

static void test_hold(void)
{
	struct sim_bench_params p;
	struct sim_bench_result r;

	sim_bench_defaults(SIM_BENCH_HOLD, &p);
	p.pending = 16;
	p.steps = 10;
	if (run(&p, &r) < 0)
		return;
	EXPECT_INT(r.events, 10);
	EXPECT_INT(r.flow_starts, 0);
	EXPECT_INT(r.resolves, 0);
	EXPECT_INT(r.peak_pending, 16);
	check_common(&r);
}

/* Same parameters, same outcome; another seed changes the ring's timing. */
static void test_deterministic(void)
{
	struct sim_bench_params p;
	struct sim_bench_result a, b;
	int w;

	for (w = 0; w < SIM_BENCH_NWORKLOADS; w++) {
		sim_bench_defaults((enum sim_bench_workload)w, &p);
		p.steps = 10;
		p.flows = 8;
		p.pending = 8;
		if (run(&p, &a) < 0 || run(&p, &b) < 0)
			return;
		EXPECT_INT(a.events, b.events);
		EXPECT_INT(a.flow_starts, b.flow_starts);
		EXPECT_INT(a.resolves, b.resolves);
		EXPECT_INT(a.cancelled, b.cancelled);
		EXPECT_TRUE(a.sim_seconds == b.sim_seconds,
			    "%s: sim_seconds %.17g then %.17g",
			    sim_bench_workload_name(p.workload),
			    a.sim_seconds, b.sim_seconds);
	}
	sim_bench_defaults(SIM_BENCH_RING, &p);
	p.steps = 10;
	if (run(&p, &a) < 0)
		return;
	p.seed = 2;
	if (run(&p, &b) < 0)
		return;
	EXPECT_INT(a.flow_starts, b.flow_starts);
	EXPECT_TRUE(a.sim_seconds != b.sim_seconds,
		    "seeds 1 and 2 give the same simulated time %.17g",
		    a.sim_seconds);
}

static void test_bad_params(void)
{
	struct sim_bench_params p;
	struct sim_bench_result r;
	struct plumb_err err;

	sim_bench_defaults(SIM_BENCH_RING, &p);
	p.gpus = 1;
	plumb_err_clear(&err);
	EXPECT_INT(sim_bench_run(&p, &r, &err), -PLUMB_EINPUT);
	EXPECT_TRUE(strstr(err.msg, "gpus") != NULL, "message '%.200s'", err.msg);
	sim_bench_defaults(SIM_BENCH_WIDE, &p);
	p.steps = 0;
	EXPECT_INT(sim_bench_run(&p, &r, &err), -PLUMB_EINPUT);
	sim_bench_defaults(SIM_BENCH_WIDE, &p);
	p.flows = 0;
	EXPECT_INT(sim_bench_run(&p, &r, &err), -PLUMB_EINPUT);
	sim_bench_defaults(SIM_BENCH_HOLD, &p);
	p.pending = 0;
	EXPECT_INT(sim_bench_run(&p, &r, &err), -PLUMB_EINPUT);
	EXPECT_INT(r.events, 0);
}

static void test_names(void)
{
	enum sim_bench_workload w;
	int i;

	for (i = 0; i < SIM_BENCH_NWORKLOADS; i++) {
		const char *n = sim_bench_workload_name((enum sim_bench_workload)i);
		EXPECT_INT(sim_bench_workload_parse(n, &w), 0);
		EXPECT_INT(w, i);
	}
	EXPECT_INT(sim_bench_workload_parse("all", &w), -1);
	EXPECT_TRUE(strcmp(sim_bench_workload_name(SIM_BENCH_NWORKLOADS),
			   "?") == 0, "name of an unknown workload");
}

void suite_bench(void)
{
	CU_pSuite s = CU_add_suite("bench", NULL, NULL);

	CU_add_test(s, "ring: one flow per chunk, bytes all delivered",
		    test_ring);
	CU_add_test(s, "wide: flow count and flows per re-solve", test_wide);
	CU_add_test(s, "hold: exactly `steps` events", test_hold);
	CU_add_test(s, "same parameters, same counts", test_deterministic);
	CU_add_test(s, "parameters out of range refused", test_bad_params);
	CU_add_test(s, "workload names", test_names);
}
