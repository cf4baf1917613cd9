/*
 * test_grid.c - the tuner's grid of sizes for rings across hosts (models/
 * coll/coll_grid.c) against searching every size.
 *
 * Tolerance: COLL_GRID_TOL (1e-3) relative. On the two-host H100 box's
 * 16-rank ring the interpolation's worst error over every size of 1 ..
 * 8,196 tokens (12,288 bytes a token) was 3.2e-4 with 16 anchors an
 * octave (Simple; LL is affine there, 1.7e-15); here random sizes of 64
 * KiB to 128 MiB on that box and on the two-host A100 RoCE box, all-reduce
 * and all-gather, take the same algorithm and protocol as their own search
 * and a time within the tolerance (the largest error is printed when the
 * suite runs with PLUMB_TEST_VERBOSE set). A one-host box's collectives
 * never take the grid: the same bits as the flow model's search.
 */
#include "coll.h"
#include "coll_int.h"
#include "fixtures.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void suite_grid(void);

/* a fixed sequence (xorshift64*): the same sizes every run */
static double next_size(uint64_t *x, double lo, double hi)
{
	double u;
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	u = (double)((*x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
	/* log-uniform, whole bytes */
	return floor(lo * pow(hi / lo, u));
}

static void spec(struct coll_spec *c, const struct scenario *s, int op, double bytes)
{
	fix_coll_spec(c, op, s->ngpus, bytes, ALGO_AUTO, PROTO_AUTO);
	c->custom = coll_custom_of(s);
	c->flow = COLL_FLOW_GRID;
}

static void test_anchors(void)
{
	static const int ms[] = { 1, 2, 8, 16, 64 };
	uint64_t x = 88172645463325252ULL;
	size_t k;
	int i;
	for (k = 0; k < sizeof(ms) / sizeof(ms[0]); k++)
		for (i = 0; i < 2000; i++) {
			double b = next_size(&x, 1, 1e12), lo, hi, lo2, hi2;
			coll_grid_anchors(b, ms[k], &lo, &hi);
			CU_ASSERT(lo <= b && b < hi);
			CU_ASSERT(hi - lo <= lo / ms[k]);
			/* an anchor is its own lower anchor */
			coll_grid_anchors(lo, ms[k], &lo2, &hi2);
			CU_ASSERT(lo2 == lo && hi2 == hi);
		}
}

/* random sizes on two-host boxes: the grid's answer against the search */
static void test_random(void)
{
	static const char *const paths[] = { "scenarios/2x-hgx-8x-h100-ib.yaml",
					     "validation/scenarios/oci-2x-bm-gpu4-8.yaml" };
	static const int ops[] = { COLL_ALLREDUCE, COLL_ALLGATHER };
	struct topo_opts o;
	double worst = 0;
	size_t p, q;
	int i, n = 0, interp = 0;

	topo_opts_init(&o);
	for (p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		struct scenario *s = NULL;
		uint64_t x = 0x9E3779B97F4A7C15ULL + p;
		CU_ASSERT_EQUAL_FATAL(scn_load(paths[p], &s, NULL), 0);
		CU_ASSERT_FATAL(s->nhosts > 1);
		for (q = 0; q < sizeof(ops) / sizeof(ops[0]); q++)
			for (i = 0; i < 40; i++) {
				struct coll_spec c;
				struct coll_result g, e;
				double rel;
				spec(&c, s, ops[q], next_size(&x, COLL_GRID_MIN, 128.0 * 1024 * 1024));
				CU_ASSERT_FATAL(coll_grid_applies(s, &c));
				coll_scn_clear();
				coll_grid_m = 0;
				CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &e, NULL), 0);
				coll_scn_clear();
				coll_grid_m = COLL_GRID_M;
				CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &g, NULL), 0);
				CU_ASSERT_EQUAL(g.algo, e.algo);
				CU_ASSERT_EQUAL(g.proto, e.proto);
				rel = fabs(g.seconds - e.seconds) / e.seconds;
				CU_ASSERT(rel <= COLL_GRID_TOL);
				interp += g.seconds != e.seconds;
				if (rel > worst)
					worst = rel;
				n++;
			}
		scn_free(s);
	}
	coll_grid_m = COLL_GRID_M;
	coll_scn_clear();
	if (getenv("PLUMB_TEST_VERBOSE"))
		printf("\n  grid: %d sizes, %d moved; the largest error %.3g\n", n, interp, worst);
	CU_ASSERT(interp > 0);
}

/* an answer depends on the size alone: asked in one order or the other */
static void test_order(void)
{
	struct scenario *s = NULL;
	struct topo_opts o;
	struct coll_result a[24], b[24];
	double sz[24];
	uint64_t x = 12345;
	int i;

	topo_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/2x-hgx-8x-h100-ib.yaml", &s, NULL), 0);
	for (i = 0; i < 24; i++)
		sz[i] = next_size(&x, COLL_GRID_MIN, 64.0 * 1024 * 1024);
	coll_scn_clear();
	for (i = 0; i < 24; i++) {
		struct coll_spec c;
		spec(&c, s, COLL_ALLREDUCE, sz[i]);
		CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &a[i], NULL), 0);
	}
	coll_scn_clear();
	for (i = 23; i >= 0; i--) {
		struct coll_spec c;
		spec(&c, s, COLL_ALLREDUCE, sz[i]);
		CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &b[i], NULL), 0);
	}
	for (i = 0; i < 24; i++) {
		CU_ASSERT(a[i].seconds == b[i].seconds);
		CU_ASSERT_EQUAL(a[i].proto, b[i].proto);
	}
	coll_scn_clear();
	scn_free(s);
}

/* one host: the grid never applies, the flows' bits */
static void test_one_host(void)
{
	static const char *const paths[] = { "scenarios/hgx-8x-h200.yaml",
					     "scenarios/mi300x-8x.yaml" };
	struct topo_opts o;
	size_t p;
	int i;

	topo_opts_init(&o);
	for (p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		struct scenario *s = NULL;
		uint64_t x = 777 + p;
		CU_ASSERT_EQUAL_FATAL(scn_load(paths[p], &s, NULL), 0);
		for (i = 0; i < 12; i++) {
			struct coll_spec c, f;
			struct coll_result g, e;
			spec(&c, s, COLL_ALLREDUCE, next_size(&x, COLL_GRID_MIN, 64.0 * 1024 * 1024));
			f = c;
			f.flow = 1;
			CU_ASSERT(!coll_grid_applies(s, &c));
			coll_scn_clear();
			CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &g, NULL), 0);
			CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &f, &e, NULL), 0);
			CU_ASSERT(g.seconds == e.seconds);
			CU_ASSERT_EQUAL(g.algo, e.algo);
			CU_ASSERT_EQUAL(g.proto, e.proto);
		}
		scn_free(s);
	}
	coll_scn_clear();
}

void suite_grid(void)
{
	CU_pSuite s = CU_add_suite("grid", NULL, NULL);
	CU_add_test(s, "anchors: on the grid, around the size", test_anchors);
	CU_add_test(s, "rings across hosts: the grid within COLL_GRID_TOL of the search",
		    test_random);
	CU_add_test(s, "an answer does not depend on what was asked before", test_order);
	CU_add_test(s, "one host: the grid never applies", test_one_host);
}
