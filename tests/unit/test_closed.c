/*
 * test_closed.c - the closed form of a collective alone (models/coll/
 * coll_closed.c) against the flow model it stands for, on the bundled
 * scenarios and on generated clusters of up to 64 GPUs (the shapes of
 * tests/gen_scale.sh).
 *
 * Tolerance: 1e-3 relative, and 1e-9 where every link carries one pair's
 * sends. Where no link is shared, or shared links carry sends in lockstep,
 * the closed form solves the flow model's own flows and differs from it by
 * rounding alone. Where sends out of step share a link it is taken only
 * when full sharing would change a send's time by at most COLL_CLOSED_EPS
 * (1e-3), which bounds the ring's error by the same fraction; on every case
 * here it agrees to the printed 0.01 us (the largest error found is
 * printed when the suite runs with PLUMB_TEST_VERBOSE set).
 *
 * The lower bounds of rings and of the engine's one-shot and two-shot
 * kernels (coll_bound), which the search uses to leave a candidate
 * unsimulated: never above the flow model's time; and the search's choice
 * and time the same as simulating every candidate.
 */
#include "coll.h"
#include "coll_int.h"
#include "fixtures.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void suite_closed(void);

#define TOL 1e-3
#define TOL_EXACT 1e-9

struct tally {
	int cases, closed, exact, flow;
	double worst;
	char where[160];
};

/* hosts boxes of 8 H100 on NVSwitch, a switch and a 400 Gb/s NIC per GPU,
 * over InfiniBand (tests/gen_scale.sh cluster) */
static char *cluster_text(int hosts)
{
	size_t cap = 8192 + 1024;
	char *t = malloc(cap);
	int g, n;
	if (!t)
		return NULL;
	n = snprintf(t, cap, "plumb_scenario: 1\nname: cluster\nhosts:\n  - name: node\n"
		     "    count: %d\n"
		     "    host: {cpu_vendor: intel, sockets: 2, cores_per_socket: 56, "
		     "threads_per_core: 2}\n    pcie:\n", hosts);
	for (g = 0; g < 8; g++)
		n += snprintf(t + n, cap - (size_t)n,
			      "      - {id: rc%d, kind: root_complex, socket: %d}\n"
			      "      - {id: rp%d, kind: root_port, parent: rc%d, gen: 5, width: 16}\n"
			      "      - {id: sw%d, kind: switch, parent: rp%d, acs: false}\n"
			      "      - {id: gpu%d, kind: gpu, parent: sw%d, model: h100-sxm}\n"
			      "      - {id: nic%d, kind: nic, parent: sw%d, model: ConnectX-7}\n",
			      g, g / 4, g, g, g, g, g, g, g, g);
	snprintf(t + n, cap - (size_t)n,
		 "    nvlink: {nvswitch: true}\nnetwork: {kind: infiniband, port_gbps: 400}\n");
	return t;
}

/* One collective with the closed form allowed and with the flows forced. */
static void check(const struct scenario *s, const char *name, int op, int algo, int n,
		  double bytes, struct tally *t)
{
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result a, f;
	double e;

	topo_opts_init(&o);
	fix_coll_spec(&c, op, n, bytes, algo, PROTO_AUTO);
	memset(&a, 0, sizeof(a));
	memset(&f, 0, sizeof(f));
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &a, NULL), 0);
	c.flow = 1;
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &f, NULL), 0);
	CU_ASSERT_EQUAL(f.closed, 0);           /* forced: the flows ran */
	e = fabs(a.seconds - f.seconds) / f.seconds;
	t->cases++;
	if (a.closed) {
		t->closed++;
		t->exact += a.closed == 1;
	} else {
		t->flow++;
		CU_ASSERT_PTR_NOT_NULL(a.why);  /* the flows ran for a reason */
	}
	if (e > t->worst) {
		t->worst = e;
		snprintf(t->where, sizeof(t->where), "%s %s %s %g B", name, coll_op_name(op),
			 coll_algo_name(algo), bytes);
	}
	if (e > (a.closed == 1 ? TOL_EXACT : TOL))
		printf("\n  %s %s/%s over %d GPUs, %g B: closed form (%d) %.6f us, flows %.6f us\n",
		       name, coll_op_name(op), coll_algo_name(algo), n, bytes, a.closed,
		       a.seconds * 1e6, f.seconds * 1e6);
	CU_ASSERT(e <= (a.closed == 1 ? TOL_EXACT : TOL));
}

/* The ops and algorithms the closed form covers, at sizes from latency-
 * to bandwidth-bound. */
static void sweep(const struct scenario *s, const char *name, int n, const double *sizes,
		  struct tally *t)
{
	static const int cases[][2] = {
		{ COLL_ALLREDUCE, ALGO_RING }, { COLL_ALLREDUCE, ALGO_TREE },
		{ COLL_ALLGATHER, ALGO_RING }, { COLL_REDUCESCATTER, ALGO_RING },
		{ COLL_BROADCAST, ALGO_RING }, { COLL_SENDRECV, ALGO_RING },
	};
	size_t i;
	int k;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (k = 0; sizes[k] > 0; k++)
			check(s, name, cases[i][0], cases[i][1], n, sizes[k], t);
}

static void report(const char *what, const struct tally *t)
{
	if (getenv("PLUMB_TEST_VERBOSE"))
		printf("\n  %s: %d cases, %d closed (%d exact), %d flows; worst %.3g (%s)\n", what,
		       t->cases, t->closed, t->exact, t->flow, t->worst, t->where);
}

static void test_bundled(void)
{
	static const char *const names[] = {
		"2x-hgx-8x-h100-ib", "baremetal-8x-rtxpro6000", "hgx-8x-h200", "mi300x-8x",
		"proxmox-vm-8x-rtxpro6000", "proxmox-vm-q35-8x-rtxpro6000",
		"switch-8x-rtxpro6000-acs", "switch-8x-rtxpro6000", "workstation-2x-rtx5090",
	};
	static const double sizes[] = { 4096, 1 << 20, 64 << 20, 0 };
	struct tally t;
	size_t i;
	memset(&t, 0, sizeof(t));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[128];
		struct scenario *s = NULL;
		snprintf(path, sizeof(path), "scenarios/%s.yaml", names[i]);
		CU_ASSERT_EQUAL_FATAL(scn_load(path, &s, NULL), 0);
		sweep(s, names[i], s->ngpus, sizes, &t);
		scn_free(s);
	}
	report("bundled", &t);
	/* the closed form carries most of them (it may not stop holding
	 * unnoticed), and the flows still run where it does not hold */
	CU_ASSERT(t.closed >= t.cases * 2 / 3);
	CU_ASSERT(t.exact > 0);
	CU_ASSERT(t.flow > 0);
}

static void test_clusters(void)
{
	static const double sizes[] = { 4096, 1 << 20, 16 << 20, 0 };
	struct tally t;
	int hosts;
	memset(&t, 0, sizeof(t));
	for (hosts = 2; hosts <= 8; hosts *= 2) {
		char *text = cluster_text(hosts), name[32];
		struct scenario *s = text ? fix_load(text) : NULL;
		free(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		snprintf(name, sizeof(name), "cluster of %d GPUs", 8 * hosts);
		sweep(s, name, s->ngpus, sizes, &t);
		/* a part of the cluster: ranks on the first hosts only */
		check(s, name, COLL_ALLREDUCE, ALGO_RING, 4 * hosts, 1 << 20, &t);
		scn_free(s);
	}
	report("clusters", &t);
	CU_ASSERT(t.closed >= t.cases / 2);
}

/* Where a ring hop's sends would overlap, or out-of-step sends share a
 * link enough to matter, the flows run and say why. */
static void test_falls_back(void)
{
	struct scenario *s = NULL;
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;

	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/2x-hgx-8x-h100-ib.yaml", &s, NULL), 0);
	topo_opts_init(&o);
	fix_coll_spec(&c, COLL_ALLREDUCE, 16, 128 << 20, ALGO_RING, PROTO_SIMPLE);
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.closed, 0);
	CU_ASSERT_PTR_NOT_NULL(r.why);
	/* all-to-all always runs its flows */
	c.op = COLL_ALLTOALL;
	c.bytes = 1 << 20;
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.closed, 0);
	scn_free(s);
}

/* RCCL's ring all-reduce on the MI300X mesh below 16 bytes a rank, where
 * chunks carry no data (models/coll/coll_rccl.c): the closed form's
 * recurrence is the flow model's, and a step without data waits for
 * nothing: 8 ranks of floats take longer with every chunk that fills (8 and
 * 16 B one, 32 B two, 64 B four, 128 B eight) and no longer from 128 B; with
 * rccl_step_us 0 an empty step costs nothing and the data's 14 hops take
 * what the lockstep ring takes. */
static void test_rccl_sparse(void)
{
	static const double sizes[] = { 8, 16, 32, 64, 100, 128, 160, 512 };
	struct scenario *s = NULL;
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result a, f;
	double t[8];
	int i, n;

	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/mi300x-8x.yaml", &s, NULL), 0);
	topo_opts_init(&o);
	for (n = 4; n <= 8; n += 4)
		for (i = 0; i < 8; i++) {
			fix_coll_spec(&c, COLL_ALLREDUCE, n, sizes[i], ALGO_RING, PROTO_LL);
			CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &a, NULL), 0);
			CU_ASSERT_EQUAL(a.closed, 1);
			c.flow = 1;
			CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &f, NULL), 0);
			CU_ASSERT(fabs(a.seconds - f.seconds) <= TOL_EXACT * f.seconds);
			t[i] = a.seconds;
		}
	/* (the bytes' own time apart: under 1% here) */
	CU_ASSERT(fabs(t[1] - t[0]) < 1e-2 * t[0]);
	CU_ASSERT(t[2] > t[1] && t[3] > t[2] && t[5] > t[3]);
	CU_ASSERT(t[5] - t[1] > 0.1 * t[1]);
	CU_ASSERT(fabs(t[7] - t[5]) < 1e-2 * t[5]);
	s->k.v[K_RCCL_STEP_US] = 0;
	fix_coll_spec(&c, COLL_ALLREDUCE, 8, 16, ALGO_RING, PROTO_LL);
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &a, NULL), 0);
	c.bytes = 128;
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &f, NULL), 0);
	CU_ASSERT(fabs(a.seconds - f.seconds) < 1e-2 * f.seconds);
	scn_free(s);
}

/* The bound of (algo, proto) for c on s, from a run set up as the search
 * sets it up (-1: none). */
static double bound_of(const struct scenario *s, const struct coll_spec *c, int algo, int proto)
{
	struct topo_opts o;
	struct coll_scn *e = NULL;
	struct sim_engine *eng = NULL;
	struct fabric *fab = NULL;
	struct coll_ctx x;
	struct crun *r = NULL;
	struct coll_result res;
	double lb = -1;

	topo_opts_init(&o);
	memset(&res, 0, sizeof(res));
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(s, &o, &e, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(sim_engine_new(s->seed, &eng, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(fab_build(eng, s, &fab, NULL), 0);
	fab_use_routes(fab, coll_scn_routes(e));
	CU_ASSERT_EQUAL_FATAL(coll_ctx_init(&x, eng, fab, coll_scn_view(e), NULL), 0);
	if (coll_run_new(&x, c, algo, proto, &res, &r, NULL) == 0) {
		if (coll_bound(r, &lb, NULL) != 0)
			lb = -1;
		coll_run_free(r);
	}
	coll_ctx_release(&x);
	fab_free(fab);
	sim_engine_free(eng);
	coll_scn_put(e);
	return lb;
}

static const char *const bound_names[] = {
	"2x-hgx-8x-h100-ib", "baremetal-8x-rtxpro6000", "hgx-8x-h200", "mi300x-8x",
	"proxmox-vm-8x-rtxpro6000", "switch-8x-rtxpro6000", "workstation-2x-rtx5090",
};
static const double bound_sizes[] = { 4096, 65536, 1 << 20, 7 << 20, 16 << 20, 128 << 20, 0 };

/* bound_names[i], loaded (NULL when it does not load) */
static struct scenario *bound_scenario(size_t i)
{
	char path[128];
	struct scenario *s = NULL;
	snprintf(path, sizeof(path), "scenarios/%s.yaml", bound_names[i]);
	CU_ASSERT_EQUAL(scn_load(path, &s, NULL), 0);
	return s;
}

/* The bounds (coll_bound) of the ring under each protocol and of the
 * engine's kernels never above the flows' time, on the bundled scenarios
 * at sizes from 4 KiB to 128 MiB. */
static void test_bounds(void)
{
	static const int cases[][2] = {
		{ ALGO_RING, PROTO_LL }, { ALGO_RING, PROTO_LL128 }, { ALGO_RING, PROTO_SIMPLE },
		{ ALGO_ONESHOT, PROTO_LL }, { ALGO_TWOSHOT, PROTO_LL },
	};
	static const int ops[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER };
	struct topo_opts o;
	size_t i, a, q;
	int k, n = 0;
	double tight = 0;

	topo_opts_init(&o);
	for (i = 0; i < sizeof(bound_names) / sizeof(bound_names[0]); i++) {
		struct scenario *s = bound_scenario(i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		for (k = 0; bound_sizes[k] > 0; k++)
			for (q = 0; q < sizeof(ops) / sizeof(ops[0]); q++)
				for (a = 0; a < sizeof(cases) / sizeof(cases[0]); a++) {
					struct coll_spec c;
					struct coll_result f;
					double lb;
					if (ops[q] != COLL_ALLREDUCE && cases[a][0] != ALGO_RING)
						continue;
					fix_coll_spec(&c, ops[q], s->ngpus, bound_sizes[k],
						      cases[a][0], cases[a][1]);
					c.custom = COLL_CUSTOM_ONESHOT | COLL_CUSTOM_TWOSHOT;
					c.flow = 1;
					memset(&f, 0, sizeof(f));
					if (coll_time(s, &o, &c, &f, NULL) != 0)
						continue;       /* not available here */
					lb = bound_of(s, &c, cases[a][0], cases[a][1]);
					CU_ASSERT(lb > 0);
					CU_ASSERT(lb <= f.seconds * (1 + 1e-12));
					if (!(lb > 0 && lb <= f.seconds * (1 + 1e-12)))
						printf("\n  %s %g B %s/%s: bound %.17g, flows %.17g\n",
						       bound_names[i], bound_sizes[k],
						       coll_algo_name(cases[a][0]),
						       coll_proto_name(cases[a][1]), lb, f.seconds);
					if (lb > 0 && lb / f.seconds > tight)
						tight = lb / f.seconds;
					n++;
				}
		scn_free(s);
	}
	if (getenv("PLUMB_TEST_VERBOSE"))
		printf("\n  bounds: %d cases; the closest %.15f of the flows' time\n", n, tight);
	CU_ASSERT(n > 100);
}

/* The search with its pruning (closed forms, bounds) against simulating
 * every candidate: the same choice and time to the bit, flows forced or
 * not, on the bundled scenarios (their engines' kernels as candidates). */
static void test_pruned_search(void)
{
	static const int ops[] = { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER };
	struct topo_opts o;
	size_t i, q;
	int k, fl, n = 0, kernel = 0;

	topo_opts_init(&o);
	for (i = 0; i < sizeof(bound_names) / sizeof(bound_names[0]); i++) {
		struct scenario *s = bound_scenario(i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		for (k = 0; bound_sizes[k] > 0; k++)
			for (q = 0; q < sizeof(ops) / sizeof(ops[0]); q++)
				for (fl = 0; fl < 2; fl++) {
					struct coll_spec c;
					struct coll_result all, pruned;
					fix_coll_spec(&c, ops[q], s->ngpus, bound_sizes[k], ALGO_AUTO,
						      PROTO_AUTO);
					c.custom = coll_custom_of(s) |
						   COLL_CUSTOM_ONESHOT | COLL_CUSTOM_TWOSHOT;
					c.flow = fl;
					memset(&all, 0, sizeof(all));
					memset(&pruned, 0, sizeof(pruned));
					coll_scn_clear();
					coll_search_prune = 0;
					CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &all, NULL), 0);
					coll_scn_clear();
					coll_search_prune = 1;
					CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &pruned, NULL), 0);
					CU_ASSERT_EQUAL(pruned.algo, all.algo);
					CU_ASSERT_EQUAL(pruned.proto, all.proto);
					CU_ASSERT(pruned.seconds == all.seconds);
					CU_ASSERT_EQUAL(pruned.closed, all.closed);
					kernel += all.algo == ALGO_ONESHOT || all.algo == ALGO_TWOSHOT;
					n++;
				}
		scn_free(s);
	}
	coll_search_prune = 1;
	coll_scn_clear();
	/* kernels and rings both win somewhere */
	CU_ASSERT(kernel > 0 && kernel < n);
}

void suite_closed(void)
{
	CU_pSuite s = CU_add_suite("closed", NULL, NULL);
	CU_add_test(s, "closed form = flows on the bundled scenarios", test_bundled);
	CU_add_test(s, "closed form = flows on clusters of 16 to 64 GPUs", test_clusters);
	CU_add_test(s, "flows where the closed form does not hold", test_falls_back);
	CU_add_test(s, "RCCL's ring with empty chunks: closed form = flows", test_rccl_sparse);
	CU_add_test(s, "lower bounds of rings and kernels: below the flows", test_bounds);
	CU_add_test(s, "the pruned search: the same choice as simulating every candidate",
		    test_pruned_search);
}
