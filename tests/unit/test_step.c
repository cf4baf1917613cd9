/*
 * test_step.c - layouts and the step runner: sequencing, pipelining,
 * collectives inside a step.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "step.h"

void suite_step(void);

#define EXPECT_NEAR(actual, expected, rel) do { \
	double a_ = (actual), e_ = (expected); \
	if (!(fabs(a_ - e_) <= (rel) * fabs(e_))) \
		printf("\n  %s:%d: %s = %.9g, expected %.9g (rel %g)\n", __FILE__, __LINE__, \
		       #actual, a_, e_, (double)(rel)); \
	CU_ASSERT(fabs(a_ - e_) <= (rel) * fabs(e_)); \
} while (0)

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
	plumb_err_clear(&e);
	CU_ASSERT(step_layout_parse("tp", &l, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "unknown layout 'tp'"));
	CU_ASSERT(step_layout_parse("dp8", &l, NULL) < 0);
	CU_ASSERT(step_layout_parse("tp4pp", &l, NULL) < 0);
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
	memset(&c, 0, sizeof(c));
	c.op = COLL_ALLREDUCE;
	c.n = 4;
	c.gpus[1] = 1, c.gpus[2] = 2, c.gpus[3] = 3;
	c.bytes = 65536;
	c.algo = ALGO_AUTO;
	c.proto = PROTO_AUTO;
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &cr, NULL), 0);
	/* Alone in the step, the all-reduce takes what it takes alone. */
	EXPECT_NEAR(r.seconds, 30e-6 + cr.seconds, 1e-9);
	EXPECT_NEAR(r.busy[0], 30e-6, 1e-9);
	EXPECT_NEAR(r.comm[3], cr.seconds, 1e-9);
	EXPECT_NEAR(r.by_tag[TAG_MLP], 20e-6, 1e-9);
	step_prog_release(&p);
	scn_free(s);
}

static void test_pipeline(void)
{
	struct scenario *s = NULL;
	struct step_layout l;
	struct step_prog p[2];
	struct step_result r1 = { 0 }, r4 = { 0 };
	struct topo_opts o;
	double T = 100e-6;
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", four, &s, NULL), 0);
	if (!s)
		return;
	topo_opts_init(&o);
	step_layout_parse("tp2pp2", &l, NULL);
	memset(p, 0, sizeof(p));
	step_prog_add(&p[0], SOP_COMPUTE, T, 0, TAG_ATTN, NULL);
	step_prog_add(&p[1], SOP_COMPUTE, T, 0, TAG_ATTN, NULL);
	p[0].send_bytes = 8;
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

static void test_too_many_gpus(void)
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
	step_layout_parse("tp8", &l, NULL);
	memset(&p, 0, sizeof(p));
	step_prog_add(&p, SOP_COMPUTE, 1e-6, 0, TAG_ATTN, NULL);
	plumb_err_clear(&e);
	CU_ASSERT(step_run(s, &o, &l, &p, 1, &r, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "needs 8 GPUs"));
	step_prog_release(&p);
	scn_free(s);
}

void suite_step(void)
{
	CU_pSuite s = CU_add_suite("step", NULL, NULL);
	CU_add_test(s, "layout names", test_layout_parse);
	CU_add_test(s, "ops run in order; a lone collective", test_sequence);
	CU_add_test(s, "pipeline stages overlap microbatches", test_pipeline);
	CU_add_test(s, "layout larger than the box", test_too_many_gpus);
}
