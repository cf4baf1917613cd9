/*
 * test_step.c - layouts and the step runner: sequencing, pipelining,
 * collectives inside a step.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "fixtures.h"
#include "step.h"

void suite_step(void);

static const char four[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: amd}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0}\n"
	"  - {id: sw0, kind: switch, parent: rp0}\n"
	"  - {id: g0, kind: gpu, parent: sw0, model: rtx-pro-6000}\n"
	"  - {id: g1, kind: gpu, parent: sw0, model: rtx-pro-6000}\n"
	"  - {id: g2, kind: gpu, parent: sw0, model: rtx-pro-6000}\n"
	"  - {id: g3, kind: gpu, parent: sw0, model: rtx-pro-6000}\n";

static void test_layout_parse(void)
{
	struct step_layout l;
	struct plumb_err e;
	CU_ASSERT_EQUAL(step_layout_parse("tp8", &l, NULL), 0);
	CU_ASSERT(l.kind == LAY_TP && l.tp == 8 && l.pp == 1 && l.gpus == 8);
	CU_ASSERT_EQUAL(step_layout_parse("tp4pp2", &l, NULL), 0);
	CU_ASSERT(l.kind == LAY_TPPP && l.tp == 4 && l.pp == 2 && l.gpus == 8);
	CU_ASSERT_EQUAL(step_layout_parse("ep8", &l, NULL), 0);
	CU_ASSERT(l.kind == LAY_EP && l.ep == 8 && l.tp == 1 && l.gpus == 8);
	CU_ASSERT_EQUAL(step_layout_parse("tp8ep", &l, NULL), 0);
	CU_ASSERT(l.kind == LAY_TPEP && l.ep == 8 && l.tp == 8);
	CU_ASSERT_EQUAL(step_layout_parse("tp8dcp8", &l, NULL), 0);
	CU_ASSERT(l.kind == LAY_TP && l.tp == 8 && l.dcp == 8 && l.gpus == 8);
	CU_ASSERT(l.dcp == 8);
	CU_ASSERT_EQUAL(step_layout_parse("tp8", &l, NULL), 0);
	CU_ASSERT_EQUAL(l.dcp, 1);
	plumb_err_clear(&e);
	CU_ASSERT(step_layout_parse("tp8dcp4", &l, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "part of the tensor-parallel group"));
	CU_ASSERT(step_layout_parse("tp8dcp", &l, NULL) < 0);
	plumb_err_clear(&e);
	CU_ASSERT(step_layout_parse("tp", &l, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "unknown layout 'tp'"));
	CU_ASSERT_EQUAL(step_layout_parse("dp8", &l, NULL), 0);
	CU_ASSERT(l.dp == 8 && l.tp == 1 && l.gpus == 1 && step_layout_used(&l) == 8);
	CU_ASSERT_EQUAL(step_layout_parse("dp4tp2", &l, NULL), 0);
	CU_ASSERT(l.dp == 4 && l.tp == 2 && l.gpus == 2 && step_layout_used(&l) == 8);
	CU_ASSERT_STRING_EQUAL(l.name, "dp4tp2");
	CU_ASSERT_EQUAL(step_layout_parse("dp2tp2pp2", &l, NULL), 0);
	CU_ASSERT(l.dp == 2 && l.pp == 2 && step_layout_used(&l) == 8);
	CU_ASSERT_EQUAL(step_layout_parse("tp8", &l, NULL), 0);
	CU_ASSERT_EQUAL(l.dp, 1);
	plumb_err_clear(&e);
	CU_ASSERT(step_layout_parse("dp4tpx", &l, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "unknown layout 'dp4tpx'"));
	CU_ASSERT(step_layout_parse("dp", &l, NULL) < 0);
	CU_ASSERT(step_layout_parse("dp2dp2", &l, NULL) < 0);
	CU_ASSERT(step_layout_parse("tp4pp", &l, NULL) < 0);
}

/* A layout of 8 GPUs (one compute op of `seconds`) on the four-GPU box is
 * refused, the message saying so. */
static void expect_too_large(const char *layout, double seconds)
{
	struct scenario *s = NULL;
	struct step_layout l;
	struct step_prog p;
	struct step_result r = { 0 };
	struct topo_opts o;
	struct plumb_err e;
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", four, &s, NULL), 0);
	if (!s)
		return;
	topo_opts_init(&o);
	step_layout_parse(layout, &l, NULL);
	memset(&p, 0, sizeof(p));
	step_prog_add(&p, SOP_COMPUTE, seconds, 0, TAG_ATTN, NULL);
	plumb_err_clear(&e);
	CU_ASSERT(step_run(s, &o, &l, &p, 1, &r, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "needs 8 GPUs"));
	step_prog_release(&p);
	scn_free(s);
}

/* Two switches, a GPU pair under each: each pair's P2P turns at its own
 * switch's root port (a switch enforces ACS unless told otherwise). */
static const char split[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: amd}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0}\n"
	"  - {id: sw0, kind: switch, parent: rp0}\n"
	"  - {id: rp1, kind: root_port, parent: rc0}\n"
	"  - {id: sw1, kind: switch, parent: rp1}\n"
	"  - {id: g0, kind: gpu, parent: sw0, model: rtx-pro-6000}\n"
	"  - {id: g1, kind: gpu, parent: sw0, model: rtx-pro-6000}\n"
	"  - {id: g2, kind: gpu, parent: sw1, model: rtx-pro-6000}\n"
	"  - {id: g3, kind: gpu, parent: sw1, model: rtx-pro-6000}\n";

/* Replicas step at once: on GPUs whose paths are their own they take what
 * one takes alone; where both pairs' P2P turns at the same root port (four
 * GPUs under one switch), the big all-reduces share its uplink. */
static void test_replicas(void)
{
	static const char *const box[2] = { split, four };
	int b;
	for (b = 0; b < 2; b++) {
		struct scenario *s = NULL;
		struct step_layout l1, l2;
		struct step_prog p;
		struct step_result r1 = { 0 }, r2 = { 0 };
		struct topo_opts o;
		CU_ASSERT_EQUAL(scn_parse("inline.yaml", box[b], &s, NULL), 0);
		if (!s)
			return;
		topo_opts_init(&o);
		step_layout_parse("tp2", &l1, NULL);
		step_layout_parse("dp2tp2", &l2, NULL);
		memset(&p, 0, sizeof(p));
		step_prog_add(&p, SOP_COMPUTE, 10e-6, 0, TAG_ATTN, NULL);
		step_prog_add(&p, SOP_ALLREDUCE, 0, 64e6, TAG_COMM_TP, NULL);
		CU_ASSERT_EQUAL(step_run(s, &o, &l1, &p, 1, &r1, NULL), 0);
		CU_ASSERT_EQUAL(step_run(s, &o, &l2, &p, 1, &r2, NULL), 0);
		CU_ASSERT_EQUAL(r1.ngpus, 2);
		CU_ASSERT_EQUAL(r2.ngpus, 4);
		EXPECT_NEAR(r2.busy[3], 10e-6, 1e-12);        /* the second replica ran */
		EXPECT_NEAR(r2.by_tag[TAG_ATTN], 10e-6, 1e-12);  /* per replica */
		if (b == 0)
			EXPECT_NEAR(r2.seconds, r1.seconds, 1e-12);
		else
			CU_ASSERT(r2.seconds > 1.2 * r1.seconds && r2.seconds < 2.05 * r1.seconds);
		step_prog_release(&p);
		scn_free(s);
	}
	/* replicas count: four of tp2 need 8 GPUs, more than the box holds */
	expect_too_large("dp4tp2", 10e-6);
}

static void test_sequence(void)
{
	struct scenario *s = NULL;
	struct step_layout l;
	struct step_prog p;
	struct step_result r = { 0 };
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result cr;
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", four, &s, NULL), 0);
	if (!s)
		return;
	topo_opts_init(&o);
	step_layout_parse("tp4", &l, NULL);
	memset(&p, 0, sizeof(p));
	step_prog_add(&p, SOP_COMPUTE, 10e-6, 0, TAG_ATTN, NULL);
	step_prog_add(&p, SOP_ALLREDUCE, 0, 65536, TAG_COMM_TP, NULL);
	step_prog_add(&p, SOP_COMPUTE, 20e-6, 0, TAG_MLP, NULL);
	CU_ASSERT_EQUAL(step_run(s, &o, &l, &p, 1, &r, NULL), 0);
	fix_coll_spec(&c, COLL_ALLREDUCE, 4, 65536, ALGO_AUTO, PROTO_AUTO);
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &cr, NULL), 0);
	/* Alone in the step, the all-reduce takes what it takes alone. */
	EXPECT_NEAR(r.seconds, 30e-6 + cr.seconds, 1e-9);
	EXPECT_NEAR(r.busy[0], 30e-6, 1e-9);
	EXPECT_NEAR(r.comm[3], cr.seconds, 1e-9);
	EXPECT_NEAR(r.by_tag[TAG_MLP], 20e-6, 1e-9);
	step_prog_release(&p);
	scn_free(s);
}

/* The four-GPU box as tp2pp2: each stage's program one compute op of T
 * seconds, the first stage sending 8 bytes on; NULL (an assertion failed)
 * when the box does not load. */
static struct scenario *two_stages(double T, struct topo_opts *o, struct step_layout *l,
				   struct step_prog p[2])
{
	struct scenario *s = NULL;
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", four, &s, NULL), 0);
	if (!s)
		return NULL;
	topo_opts_init(o);
	step_layout_parse("tp2pp2", l, NULL);
	memset(p, 0, 2 * sizeof(*p));
	step_prog_add(&p[0], SOP_COMPUTE, T, 0, TAG_ATTN, NULL);
	step_prog_add(&p[1], SOP_COMPUTE, T, 0, TAG_ATTN, NULL);
	p[0].send_bytes = 8;
	return s;
}

static void test_pipeline(void)
{
	struct scenario *s;
	struct step_layout l;
	struct step_prog p[2];
	struct step_result r1 = { 0 }, r4 = { 0 };
	struct topo_opts o;
	double T = 100e-6;
	if (!(s = two_stages(T, &o, &l, p)))
		return;
	/* One microbatch: the stages run one after the other. */
	CU_ASSERT_EQUAL(step_run(s, &o, &l, p, 1, &r1, NULL), 0);
	CU_ASSERT(r1.seconds > 2 * T && r1.seconds < 2 * T + 2e-6);
	/* Four microbatches of a quarter of the work each: (4 + 2 - 1) quarters. */
	p[0].ops[0].seconds = p[1].ops[0].seconds = T / 4;
	CU_ASSERT_EQUAL(step_run(s, &o, &l, p, 4, &r4, NULL), 0);
	CU_ASSERT(r4.seconds > 5 * T / 4 && r4.seconds < 5 * T / 4 + 5e-6);
	EXPECT_NEAR(r4.busy[0], T, 1e-9);
	EXPECT_NEAR(r4.busy[3], T, 1e-9);
	CU_ASSERT(r4.comm[0] > 0);       /* the stage boundary sends */
	CU_ASSERT(r4.seconds < r1.seconds);
	step_prog_release(&p[0]);
	step_prog_release(&p[1]);
	scn_free(s);
}

/* Steady state: with a batch per stage in flight, a two-stage pipeline of
 * two microbatches is busy all the time; its period is one stage's work for
 * the batch, where a single pass from an empty pipeline takes one more
 * microbatch's time. */
static void test_pipeline_steady(void)
{
	struct scenario *s;
	struct step_layout l;
	struct step_prog p[2];
	struct step_result r1 = { 0 }, rs = { 0 };
	struct step_span spans[64];
	struct topo_opts o;
	double T = 100e-6, busy = 0;
	int i;
	if (!(s = two_stages(T, &o, &l, p)))
		return;
	CU_ASSERT_EQUAL(step_run(s, &o, &l, p, 2, &r1, NULL), 0);
	CU_ASSERT(r1.seconds > 3 * T && r1.seconds < 3 * T + 4e-6);
	rs.rounds = 4;
	rs.spans = spans;
	rs.cap = 64;
	CU_ASSERT_EQUAL(step_run(s, &o, &l, p, 2, &rs, NULL), 0);
	CU_ASSERT(rs.seconds > 2 * T && rs.seconds < 2 * T + 4e-6);
	CU_ASSERT(rs.window0 > 0 && rs.run_seconds > rs.window0 + rs.seconds);
	/* per pass: each GPU computes both microbatches once */
	EXPECT_NEAR(rs.busy[0], 2 * T, 1e-9);
	EXPECT_NEAR(rs.busy[3], 2 * T, 1e-9);
	CU_ASSERT_EQUAL(rs.sends, r1.sends);
	/* the window's spans: GPU0 computes (or sends) nearly all of it */
	for (i = 0; i < rs.nspans; i++) {
		CU_ASSERT(rs.spans[i].t0 >= 0 && rs.spans[i].t1 <= rs.seconds + 1e-12);
		if (rs.spans[i].gpu == 0 && !rs.spans[i].comm)
			busy += rs.spans[i].t1 - rs.spans[i].t0;
	}
	CU_ASSERT(busy > 0.95 * rs.seconds);
	step_prog_release(&p[0]);
	step_prog_release(&p[1]);
	scn_free(s);
}

/* Two results agree: step time, per-GPU busy and collective time, per-tag
 * time, spans. Replayed durations were measured at another start time, so
 * allow last-bit differences from absolute-time rounding (1e-12). */
static void expect_same_result(const struct step_result *a, const struct step_result *b)
{
	int g, t, i;
	EXPECT_NEAR(a->seconds, b->seconds, 1e-12);
	CU_ASSERT_EQUAL(a->ngpus, b->ngpus);
	for (g = 0; g < a->ngpus; g++) {
		EXPECT_NEAR(a->busy[g], b->busy[g], 1e-12);
		EXPECT_NEAR(a->comm[g], b->comm[g], 1e-12);
	}
	for (t = 0; t < TAG_NTAGS; t++)
		EXPECT_NEAR(a->by_tag[t], b->by_tag[t], 1e-12);
	CU_ASSERT_EQUAL(a->sends, b->sends);
	CU_ASSERT_EQUAL(a->nspans, b->nspans);
	for (i = 0; i < a->nspans && i < a->cap && i < b->cap; i++) {
		CU_ASSERT_EQUAL(a->spans[i].gpu, b->spans[i].gpu);
		CU_ASSERT_EQUAL(a->spans[i].tag, b->spans[i].tag);
		EXPECT_NEAR(a->spans[i].t1 + 1, b->spans[i].t1 + 1, 1e-12);
	}
}

static void test_replay_tp(void)
{
	static struct step_span sa[256], sb[256];
	struct scenario *s = NULL;
	struct step_layout l;
	struct step_prog p;
	struct step_result a = { 0 }, b = { 0 };
	struct topo_opts o;
	int i;
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", four, &s, NULL), 0);
	if (!s)
		return;
	topo_opts_init(&o);
	step_layout_parse("tp4", &l, NULL);
	memset(&p, 0, sizeof(p));
	for (i = 0; i < 10; i++) {
		step_prog_add(&p, SOP_COMPUTE, 5e-6, 0, TAG_ATTN, NULL);
		step_prog_add(&p, SOP_ALLREDUCE, 0, 65536, TAG_COMM_TP, NULL);
		step_prog_add(&p, SOP_COMPUTE, 3e-6, 0, TAG_MLP, NULL);
		step_prog_add(&p, SOP_ALLREDUCE, 0, 1 << 20, TAG_COMM_TP, NULL);
	}
	a.spans = sa;
	a.cap = 256;
	a.no_replay = 1;
	CU_ASSERT_EQUAL(step_run(s, &o, &l, &p, 1, &a, NULL), 0);
	CU_ASSERT_EQUAL(a.simulated, 20);
	CU_ASSERT_EQUAL(a.replayed, 0);
	b.spans = sb;
	b.cap = 256;
	CU_ASSERT_EQUAL(step_run(s, &o, &l, &p, 1, &b, NULL), 0);
	/* One stage, one collective at a time: every instance replayed, the
	 * first of each of the two with the tuner's time for it alone. */
	CU_ASSERT_EQUAL(b.simulated, 0);
	CU_ASSERT_EQUAL(b.replayed, 20);
	CU_ASSERT_EQUAL(b.reruns, 0);
	CU_ASSERT(b.events < a.events);
	expect_same_result(&a, &b);
	/* The environment switch turns it off too. */
	setenv("PLUMB_NO_REPLAY", "1", 1);
	CU_ASSERT_EQUAL(step_run(s, &o, &l, &p, 1, &b, NULL), 0);
	unsetenv("PLUMB_NO_REPLAY");
	CU_ASSERT_EQUAL(b.replayed, 0);
	CU_ASSERT_EQUAL(b.simulated, 20);
	step_prog_release(&p);
	scn_free(s);
}

static void test_replay_pipeline(void)
{
	static struct step_span sa[1024], sb[1024];
	struct scenario *s = NULL;
	struct step_layout l;
	struct step_prog p[2];
	struct step_result a = { 0 }, b = { 0 };
	struct topo_opts o;
	int i, st, micro;
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", four, &s, NULL), 0);
	if (!s)
		return;
	topo_opts_init(&o);
	/* Two stages under one switch: each ring and the stage sends share
	 * GPU links, so overlapping traffic must be simulated, not replayed. */
	step_layout_parse("tp2pp2", &l, NULL);
	memset(p, 0, sizeof(p));
	for (st = 0; st < 2; st++) {
		for (i = 0; i < 6; i++) {
			step_prog_add(&p[st], SOP_COMPUTE, (2 + st + i % 3) * 1e-6, 0, TAG_ATTN, NULL);
			step_prog_add(&p[st], SOP_ALLREDUCE, 0, 262144, TAG_COMM_TP, NULL);
		}
		p[st].send_bytes = 1 << 20;
	}
	for (micro = 1; micro <= 4; micro++) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		a.spans = sa;
		a.cap = 1024;
		a.no_replay = 1;
		b.spans = sb;
		b.cap = 1024;
		CU_ASSERT_EQUAL(step_run(s, &o, &l, p, micro, &a, NULL), 0);
		CU_ASSERT_EQUAL(step_run(s, &o, &l, p, micro, &b, NULL), 0);
		CU_ASSERT_EQUAL(b.simulated + b.replayed, a.simulated);
		CU_ASSERT(b.replayed > 0);
		/* With several microbatches the stages overlap: some collectives
		 * meet traffic and are simulated again. */
		if (micro == 4)
			CU_ASSERT(b.simulated > 2);
		expect_same_result(&a, &b);
	}
	step_prog_release(&p[0]);
	step_prog_release(&p[1]);
	scn_free(s);
}

/* Two-batch overlap: one microbatch's all-to-all under the other's compute,
 * the compute slowed beside it by overlap_rate. A program of compute a,
 * all-to-all x, compute a with a = x: microbatch 1's first compute runs
 * beside microbatch 0's all-to-all (rate f), ... the step ends at
 * 4x + 2x(1 - f) (4x at full rate) where two microbatches one after the
 * other take 6x. */
static void test_two_batch_overlap(void)
{
	struct scenario *s = NULL;
	struct step_layout l;
	struct step_prog p;
	struct step_result r = { 0 };
	struct topo_opts o;
	double x;
	int i;
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", four, &s, NULL), 0);
	if (!s)
		return;
	topo_opts_init(&o);
	step_layout_parse("ep4", &l, NULL);
	/* the all-to-all's time alone, from a step of it alone */
	memset(&p, 0, sizeof(p));
	step_prog_add(&p, SOP_ALLTOALL, 0, 1 << 24, TAG_COMM_EP, NULL);
	CU_ASSERT_EQUAL(step_run(s, &o, &l, &p, 1, &r, NULL), 0);
	x = r.seconds;
	CU_ASSERT(x > 0);
	step_prog_release(&p);
	memset(&p, 0, sizeof(p));
	step_prog_add(&p, SOP_COMPUTE, x, 0, TAG_ATTN, NULL);
	step_prog_add(&p, SOP_ALLTOALL, 0, 1 << 24, TAG_COMM_EP, NULL);
	step_prog_add(&p, SOP_COMPUTE, x, 0, TAG_EXPERTS, NULL);
	for (i = 0; i < 3; i++) {
		double f = i == 0 ? 1 : i == 1 ? 0.5 : 0;      /* 0: full rate */
		memset(&r, 0, sizeof(r));
		r.overlap = i < 2;
		r.overlap_rate = f;
		CU_ASSERT_EQUAL(step_run(s, &o, &l, &p, 2, &r, NULL), 0);
		if (i == 0)
			EXPECT_NEAR(r.seconds, 4 * x, 1e-9);
		else if (i == 1)
			EXPECT_NEAR(r.seconds, 5 * x, 1e-9);
		else
			EXPECT_NEAR(r.seconds, 6 * x, 1e-9);
		EXPECT_NEAR(r.comm[2], 2 * x, 1e-9);
	}
	/* overlap needs two microbatches */
	memset(&r, 0, sizeof(r));
	r.overlap = 1;
	CU_ASSERT_EQUAL(step_run(s, &o, &l, &p, 3, &r, NULL), -PLUMB_EINPUT);
	step_prog_release(&p);
	scn_free(s);
}

static void test_too_many_gpus(void)
{
	expect_too_large("tp8", 1e-6);
}

void suite_step(void)
{
	CU_pSuite s = CU_add_suite("step", NULL, NULL);
	CU_add_test(s, "layout names", test_layout_parse);
	CU_add_test(s, "replicas step at once on the same fabric", test_replicas);
	CU_add_test(s, "ops run in order; a lone collective", test_sequence);
	CU_add_test(s, "pipeline stages overlap microbatches", test_pipeline);
	CU_add_test(s, "a pipeline in steady state", test_pipeline_steady);
	CU_add_test(s, "replayed collectives match simulated ones", test_replay_tp);
	CU_add_test(s, "replay in a pipeline simulates overlapping traffic", test_replay_pipeline);
	CU_add_test(s, "layout larger than the box", test_too_many_gpus);
	CU_add_test(s, "two-batch overlap", test_two_batch_overlap);
}
