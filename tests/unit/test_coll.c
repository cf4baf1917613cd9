/*
 * test_coll.c - collectives as flows: latency terms, bandwidth, protocol
 * rules, contention between concurrent collectives.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "fixtures.h"
#include "scn.h"
#include "step.h"

void suite_coll(void);

static double t_us(const struct scenario *s, int level, enum coll_op op, int n,
		   const int *gpus, double bytes, int algo, int proto)
{
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;
	topo_opts_init(&o);
	o.nccl_p2p_level = level;
	fix_coll_spec(&c, op, n, bytes, algo, proto);
	if (gpus)
		c.gpus = gpus;
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
	return r.seconds * 1e6;
}

static void test_small_latency(void)
{
	struct scenario *s = fix_seed_box("192", "");
	double base, pci, shm;
	if (!s)
		return;
	/* NCCL's base latency and the fixed floor of every collective */
	base = s->k.v[K_NCCL_BASE_US] + s->k.v[K_NCCL_FLOOR_US];
	pci = s->k.v[K_NCCL_PCI_LL_US];
	shm = s->k.v[K_NCCL_SHM_STEP_US];
	/* P2P (level SYS): NCCL's ring LL model, base + 2(n-1) x hwLat. */
	EXPECT_NEAR(t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 8, ALGO_RING, PROTO_LL),
		    base + 14 * pci, 0.01);
	EXPECT_NEAR(t_us(s, NP_SYS, COLL_ALLREDUCE, 2, NULL, 8, ALGO_RING, PROTO_LL),
		    base + 2 * pci, 0.01);
	/* NCCL's default level (PXB) on this box means SHM on every hop. */
	EXPECT_NEAR(t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 8, ALGO_RING, PROTO_LL),
		    base + 14 * (pci + shm), 0.01);
	/* All-gather: n-1 steps. */
	EXPECT_NEAR(t_us(s, NP_SYS, COLL_ALLGATHER, 8, NULL, 8, ALGO_RING, PROTO_LL),
		    base + 7 * pci, 0.01);
	scn_free(s);
}

static void test_large_bandwidth(void)
{
	struct scenario *s = fix_seed_box("192", "");
	double t, link, busbw;
	if (!s)
		return;
	/* Ring all-reduce busbw tends to the link rate times nccl_bw_eff. */
	t = t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 1 << 30, ALGO_RING, PROTO_SIMPLE);
	busbw = (1 << 30) / (t * 1e-6) * coll_busbw_factor(COLL_ALLREDUCE, 8);
	link = 16 * 3.93846154e9 * s->k.v[K_PCIE_EFF];
	EXPECT_NEAR(busbw, link * s->k.v[K_NCCL_BW_EFF], 0.02);
	/* SHM hops run at nccl_shm_gbs. */
	t = t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 1 << 30, ALGO_RING, PROTO_SIMPLE);
	busbw = (1 << 30) / (t * 1e-6) * coll_busbw_factor(COLL_ALLREDUCE, 8);
	EXPECT_NEAR(busbw, s->k.v[K_NCCL_SHM_GBS] * 1e9, 0.02);
	/* LL through host memory: a channel moves threads x 8 bytes per load
	 * round trip; one trip hides in the step latency (8 B unchanged),
	 * several show (512 KiB slower with a slower load). */
	{
		double t8 = t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 8, ALGO_RING, PROTO_LL);
		double tb = t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 512 * 1024, ALGO_RING, PROTO_LL);
		s->k.v[K_NCCL_SHM_RD_US] *= 2;
		EXPECT_NEAR(t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 8, ALGO_RING, PROTO_LL), t8, 1e-6);
		CU_ASSERT(t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 512 * 1024, ALGO_RING, PROTO_LL) > tb * 1.05);
	}
	scn_free(s);
}

static void test_protocols_and_auto(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;
	struct plumb_err e;
	double tll, tsimple, tauto;
	if (!s)
		return;
	/* LL128 is not available on PCIe. */
	topo_opts_init(&o);
	fix_coll_spec(&c, COLL_ALLREDUCE, 4, 1 << 20, ALGO_RING, PROTO_LL128);
	plumb_err_clear(&e);
	CU_ASSERT(coll_time(s, &o, &c, &r, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "LL128"));
	/* Over P2P auto is never slower than either protocol it may pick. */
	tll = t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 1 << 20, ALGO_RING, PROTO_LL);
	tsimple = t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 1 << 20, ALGO_RING, PROTO_SIMPLE);
	tauto = t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 1 << 20, ALGO_AUTO, PROTO_AUTO);
	CU_ASSERT(tauto <= tll + 1e-9 && tauto <= tsimple + 1e-9);
	/* Larger messages never finish sooner. */
	CU_ASSERT(t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 2 << 20, ALGO_AUTO, PROTO_AUTO) >= tauto);
	/* Through host memory (NCCL's default level here) auto runs NCCL's
	 * tuner pick, LL up to 512 KiB (where the 8x RTX 4090 SHM run shows
	 * it running LL slower than Simple would) and Simple from 1 MiB. */
	tll = t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 1 << 19, ALGO_RING, PROTO_LL);
	tauto = t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 1 << 19, ALGO_AUTO, PROTO_AUTO);
	EXPECT_NEAR(tauto, tll, 1e-9);
	tsimple = t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 1 << 20, ALGO_RING, PROTO_SIMPLE);
	tauto = t_us(s, -1, COLL_ALLREDUCE, 8, NULL, 1 << 20, ALGO_AUTO, PROTO_AUTO);
	EXPECT_NEAR(tauto, tsimple, 1e-9);
	/* Algorithm auto is the ring (NCCL's choice inside one node), even
	 * where the simulated chain would finish first: 4 GPUs through host
	 * memory, 1 GiB. */
	{
		double ttree = t_us(s, NP_LOC, COLL_ALLREDUCE, 4, NULL, 1 << 30, ALGO_TREE, PROTO_SIMPLE);
		double tring = t_us(s, NP_LOC, COLL_ALLREDUCE, 4, NULL, 1 << 30, ALGO_RING, PROTO_AUTO);
		c.n = 4;
		c.bytes = 1 << 30;
		c.algo = ALGO_AUTO;
		c.proto = PROTO_AUTO;
		o.nccl_p2p_level = NP_LOC;
		CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
		CU_ASSERT_EQUAL(r.algo, ALGO_RING);
		EXPECT_NEAR(r.seconds * 1e6, tring, 1e-12);
		CU_ASSERT(ttree < tring);
	}
	scn_free(s);
}

static void test_other_ops(void)
{
	struct scenario *s = fix_seed_box("192", "");
	double link, t;
	if (!s)
		return;
	link = 16 * 3.93846154e9 * s->k.v[K_PCIE_EFF] * s->k.v[K_NCCL_BW_EFF];
	/* Send/recv: every rank sends the whole buffer to its successor at
	 * once, over NCCL's p2p channels: on PCIe 2 for 1 GiB (parts over 32
	 * x the 128 KiB chunk double 1), each at half a channel's rate. */
	t = t_us(s, NP_SYS, COLL_SENDRECV, 8, NULL, 1 << 30, ALGO_RING, PROTO_SIMPLE);
	EXPECT_NEAR((1 << 30) / (t * 1e-6), fmin(link, 2 * s->k.v[K_NCCL_CH_GBS] * 1e9 / 2), 0.02);
	/* Broadcast as a pipelined chain: about one buffer time plus the pipeline fill. */
	t = t_us(s, NP_SYS, COLL_BROADCAST, 8, NULL, 1 << 30, ALGO_RING, PROTO_SIMPLE);
	CU_ASSERT((1 << 30) / (t * 1e-6) > 0.8 * link);
	CU_ASSERT((1 << 30) / (t * 1e-6) <= link * 1.0001);
	/* Tree (chain) all-reduce completes and moves the data twice along the chain. */
	t = t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 1 << 30, ALGO_TREE, PROTO_SIMPLE);
	CU_ASSERT(t > 0);
	/* All-to-all: each rank's GPU link carries (n-1)/n of the buffer. */
	t = t_us(s, NP_SYS, COLL_ALLTOALL, 8, NULL, 1 << 30, ALGO_RING, PROTO_SIMPLE);
	EXPECT_NEAR((1 << 30) * 7.0 / 8 / (t * 1e-6), link, 0.05);
	EXPECT_NEAR(coll_busbw_factor(COLL_ALLREDUCE, 8), 1.75, 1e-12);
	EXPECT_NEAR(coll_busbw_factor(COLL_ALLGATHER, 4), 0.75, 1e-12);
	CU_ASSERT_EQUAL(coll_op_parse("all_reduce"), COLL_ALLREDUCE);
	CU_ASSERT_EQUAL(coll_op_parse("reducescatter"), COLL_REDUCESCATTER);
	CU_ASSERT_EQUAL(coll_op_parse("gather"), -1);
	scn_free(s);
}

/* Two 4-GPU all-reduces whose rings both cross the sockets run at once. */
static int add_time(struct coll_ctx *x, double seconds, void *arg, struct plumb_err *err)
{
	(void)x;
	(void)err;
	*(double *)arg = seconds;
	return 0;
}

static void test_contention(void)
{
	struct scenario *s = fix_seed_box("20", "");
	struct sim_engine *eng = NULL;
	struct fabric *fab = NULL;
	struct topo_view *v = NULL;
	struct topo_opts o;
	struct coll_ctx x;
	struct coll_spec a, b;
	static const int ga[4] = { 0, 4, 1, 5 }, gb[4] = { 2, 6, 3, 7 };
	double alone, ta = 0, tb = 0;
	if (!s)
		return;
	alone = t_us(s, NP_SYS, COLL_ALLREDUCE, 4, ga, 256 << 20, ALGO_RING, PROTO_SIMPLE);
	topo_opts_init(&o);
	o.nccl_p2p_level = NP_SYS;
	CU_ASSERT_EQUAL(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
	CU_ASSERT_EQUAL(sim_engine_new(1, &eng, NULL), 0);
	CU_ASSERT_EQUAL(fab_build(eng, s, &fab, NULL), 0);
	CU_ASSERT_EQUAL(coll_ctx_init(&x, eng, fab, v, NULL), 0);
	memset(&a, 0, sizeof(a));
	a.op = COLL_ALLREDUCE;
	a.n = 4;
	a.gpus = ga;
	a.bytes = 256 << 20;
	b = a;
	b.gpus = gb;
	CU_ASSERT_EQUAL(coll_start(&x, &a, ALGO_RING, PROTO_SIMPLE, 0, add_time, &ta, NULL, NULL), 0);
	CU_ASSERT_EQUAL(coll_start(&x, &b, ALGO_RING, PROTO_SIMPLE, 0, add_time, &tb, NULL, NULL), 0);
	CU_ASSERT_EQUAL(sim_run(eng, INFINITY, NULL), 0);
	CU_ASSERT_EQUAL(x.active, 0);
	/* Both rings cross the 20 GB/s inter-socket link each way: each gets
	 * half of it, so each takes about twice as long as alone. */
	EXPECT_NEAR(ta * 1e6, 2 * alone, 0.05);
	EXPECT_NEAR(tb * 1e6, 2 * alone, 0.05);
	fab_free(fab);
	sim_engine_free(eng);
	topo_free(v);
	scn_free(s);
}

/*
 * The engine's one-shot all-reduce: a fixed time, then every rank pulls each
 * peer's whole buffer over P2P; it ignores NCCL_P2P_LEVEL, needs P2P status
 * OK, and joins "auto" only when the scenario's engine has it.
 */
static void test_oneshot(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;
	double big = 64e6, fixed, rate, t;
	if (!s)
		return;
	fixed = s->k.v[K_ONESHOT_US];
	/* 2 GPUs: each rank reads 64 MB over its own Gen5 x16 link. */
	rate = 16 * 3.938 * s->k.v[K_PCIE_EFF] * s->k.v[K_ONESHOT_BW_EFF] * 1e3;   /* bytes/us */
	t = t_us(s, -1, COLL_ALLREDUCE, 2, NULL, big, ALGO_ONESHOT, PROTO_AUTO);
	EXPECT_NEAR(t, fixed + big / rate, 0.01);
	/* Small: the fixed time (plus a path latency), whatever NCCL's level. */
	t = t_us(s, NP_LOC, COLL_ALLREDUCE, 8, NULL, 8, ALGO_ONESHOT, PROTO_AUTO);
	CU_ASSERT(t >= fixed && t < fixed + 1.0);
	/* auto: NCCL only, unless the engine has the kernel; then the faster. */
	CU_ASSERT(t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 8, ALGO_AUTO, PROTO_AUTO) > t);
	topo_opts_init(&o);
	o.nccl_p2p_level = NP_SYS;
	fix_coll_spec(&c, COLL_ALLREDUCE, 8, 8, ALGO_AUTO, PROTO_AUTO);
	c.custom = COLL_CUSTOM_ONESHOT;
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.algo, ALGO_ONESHOT);
	c.bytes = 256e6;        /* large: NCCL's ring moves fewer bytes per link */
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.algo, ALGO_RING);
	/* Only all-reduce. */
	c.op = COLL_ALLGATHER;
	c.algo = ALGO_ONESHOT;
	CU_ASSERT(coll_time(s, &o, &c, &r, NULL) < 0);
	scn_free(s);
}

/* Two-shot: a reduce-scatter of 1/n shards, a barrier, an all-gather. */
static void test_twoshot(void)
{
	struct scenario *s = fix_seed_box("192", "");
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;
	double big = 64e6, fixed, rate, t1, t2;
	if (!s)
		return;
	fixed = s->k.v[K_ONESHOT_US];
	rate = 16 * 3.938 * s->k.v[K_PCIE_EFF] * s->k.v[K_ONESHOT_BW_EFF] * 1e3;   /* bytes/us */
	/* 2 GPUs: two phases, each a fixed time and half the buffer read over
	 * the rank's own link. */
	t2 = t_us(s, -1, COLL_ALLREDUCE, 2, NULL, big, ALGO_TWOSHOT, PROTO_AUTO);
	EXPECT_NEAR(t2, 2 * fixed + big / rate, 0.01);
	/* 8 GPUs: one-shot reads 7 whole buffers per rank, two-shot 2 x 7/8
	 * of one, so two-shot wins at sizes where bytes dominate, one-shot
	 * (one barrier) at small ones. */
	t1 = t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 4e6, ALGO_ONESHOT, PROTO_AUTO);
	t2 = t_us(s, NP_SYS, COLL_ALLREDUCE, 8, NULL, 4e6, ALGO_TWOSHOT, PROTO_AUTO);
	CU_ASSERT(t2 < t1);
	topo_opts_init(&o);
	o.nccl_p2p_level = NP_SYS;
	fix_coll_spec(&c, COLL_ALLREDUCE, 8, 8, ALGO_AUTO, PROTO_AUTO);
	c.custom = COLL_CUSTOM_ONESHOT | COLL_CUSTOM_TWOSHOT;
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.algo, ALGO_ONESHOT);
	c.bytes = 4e6;
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.algo, ALGO_TWOSHOT);
	EXPECT_NEAR(r.seconds * 1e6, t2, 1e-6);
	/* Not a candidate unless the engine has it. */
	c.custom = COLL_CUSTOM_ONESHOT;
	CU_ASSERT_EQUAL_FATAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT(r.algo != ALGO_TWOSHOT);
	c.op = COLL_ALLGATHER;
	c.algo = ALGO_TWOSHOT;
	CU_ASSERT(coll_time(s, &o, &c, &r, NULL) < 0);
	scn_free(s);
}

/* Derived state is shared by content: a second copy of a scenario finds
 * the first one's entry, a changed constant does not, and the tuner's
 * answers and step results come back equal to a fresh computation. */
static void test_shared_by_content(void)
{
	struct scenario *a = fix_seed_box("192", ""), *b = fix_seed_box("192", "");
	struct coll_scn *ea = NULL, *eb = NULL;
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r1, r2;
	struct step_layout l;
	struct step_prog p;
	struct step_result s1, s2;
	struct step_memo_stats m0, m1;
	if (!a || !b) {
		scn_free(a);
		scn_free(b);
		return;
	}
	topo_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(a, &o, &ea, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(b, &o, &eb, NULL), 0);
	CU_ASSERT_PTR_EQUAL(ea, eb);
	CU_ASSERT_EQUAL(coll_scn_id(ea), coll_scn_id(eb));
	coll_scn_put(eb);
	fix_coll_spec(&c, COLL_ALLREDUCE, 8, 1 << 20, ALGO_AUTO, PROTO_AUTO);
	CU_ASSERT_EQUAL(coll_time(a, &o, &c, &r1, NULL), 0);
	CU_ASSERT_TRUE(coll_scn_choice(ea, &c, &r2));
	CU_ASSERT_EQUAL(memcmp(&r1, &r2, sizeof(r1)), 0);
	/* A constant changed in place (as a calibration does): another entry. */
	b->k.v[K_NCCL_FLOOR_US] += 10;
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(b, &o, &eb, NULL), 0);
	CU_ASSERT_PTR_NOT_EQUAL(ea, eb);
	CU_ASSERT_FALSE(coll_scn_choice(eb, &c, &r2));
	CU_ASSERT_EQUAL(coll_time(b, &o, &c, &r2, NULL), 0);
	EXPECT_NEAR(r2.seconds - r1.seconds, 10e-6, 1e-6);
	coll_scn_put(eb);
	coll_scn_put(ea);
	/* A step asked twice is simulated once, with the same result. */
	step_layout_parse("tp8", &l, NULL);
	memset(&p, 0, sizeof(p));
	step_prog_add(&p, SOP_COMPUTE, 10e-6, 0, TAG_ATTN, NULL);
	step_prog_add(&p, SOP_ALLREDUCE, 0, 65536, TAG_COMM_TP, NULL);
	step_prog_add(&p, SOP_COMPUTE, 20e-6, 0, TAG_MLP, NULL);
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	step_memo_stats(&m0);
	CU_ASSERT_EQUAL(step_run(a, &o, &l, &p, 1, &s1, NULL), 0);
	CU_ASSERT_EQUAL(step_run(a, &o, &l, &p, 1, &s2, NULL), 0);
	step_memo_stats(&m1);
	CU_ASSERT_EQUAL(m1.entries, m0.entries + 1);
	CU_ASSERT_EQUAL(m1.hits, m0.hits + 1);
	CU_ASSERT_EQUAL(memcmp(&s1, &s2, sizeof(s1)), 0);
	/* Without the memo (a hook or a timeline would do the same): equal. */
	coll_scn_clear();
	step_memo_clear();
	memset(&s2, 0, sizeof(s2));
	CU_ASSERT_EQUAL(step_run(a, &o, &l, &p, 1, &s2, NULL), 0);
	CU_ASSERT_EQUAL(memcmp(&s1, &s2, sizeof(s1)), 0);
	step_prog_release(&p);
	scn_free(a);
	scn_free(b);
}

/* Scenarios that differ only in their serving: section (the engines a
 * prediction compares) are separate entries (the step memo keys on the
 * entry) sharing the tuner's answers: the tuner reads of that section only
 * serving.allreduce, through the question's custom, which is in the key. */
static void test_answers_across_engines(void)
{
	struct scenario *a = fix_seed_box("192", ""), *b = fix_seed_box("192", "");
	struct coll_scn *ea = NULL, *eb = NULL;
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r1, r2, r3;
	if (!a || !b)
		goto out;
	coll_scn_clear();
	topo_opts_init(&o);
	b->serving.engine = a->serving.engine == SCN_ENGINE_VLLM ? SCN_ENGINE_SGLANG :
								   SCN_ENGINE_VLLM;
	b->serving.allreduce = a->serving.allreduce == SCN_AR_NCCL ? SCN_AR_AUTO : SCN_AR_NCCL;
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(a, &o, &ea, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(b, &o, &eb, NULL), 0);
	CU_ASSERT_PTR_NOT_EQUAL(ea, eb);
	CU_ASSERT_NOT_EQUAL(coll_scn_id(ea), coll_scn_id(eb));
	fix_coll_spec(&c, COLL_ALLREDUCE, 8, 1 << 20, ALGO_AUTO, PROTO_AUTO);
	c.custom = coll_custom_of(a);
	CU_ASSERT_EQUAL(coll_time(a, &o, &c, &r1, NULL), 0);
	CU_ASSERT_TRUE(coll_scn_choice(eb, &c, &r2));
	CU_ASSERT_EQUAL(memcmp(&r1, &r2, sizeof(r1)), 0);
	/* b's own question (its custom) is its own answer, as fresh */
	c.custom = coll_custom_of(b);
	CU_ASSERT_FALSE(coll_scn_choice(ea, &c, &r2));
	CU_ASSERT_EQUAL(coll_time(b, &o, &c, &r2, NULL), 0);
	coll_scn_put(ea);
	coll_scn_put(eb);
	coll_scn_clear();
	CU_ASSERT_EQUAL(coll_time(b, &o, &c, &r3, NULL), 0);
	CU_ASSERT_EQUAL(memcmp(&r2, &r3, sizeof(r2)), 0);
out:
	scn_free(a);
	scn_free(b);
}

/* The seed box as a VM guest without P2P (every pair SHM), with extra
 * virtualization keys and constants. */
static struct scenario *vm_box(const char *vm_extra, const char *consts)
{
	char extra[1024];
	snprintf(extra, sizeof(extra),
		 "virtualization: {mode: vm, chipset: q35, pcie_passthrough: true, "
		 "mmio64_window: 2T, guest_phys_bits: 46, host_iommu: translate, "
		 "p2p_exposure: none, guest_kernel_args: [pci=realloc]%s}\n%s", vm_extra, consts);
	return fix_seed_box("192", extra);
}

/* A VM's host path (vmhost.c): each term where the VM has it, the sum on
 * every SHM ring step of the guest, nothing on bare metal. */
/* The defaults' interval draws vm_path_scale for every box: on bare metal
 * nothing derived reads a VM's host-path constants, so a draw keeps the
 * tuner's answers; a VM guest's draw changes its host path, so it does
 * not. */
static void test_vm_consts_key(void)
{
	struct scenario *bm = fix_seed_box("192", ""), *bm2 = fix_seed_box("192", "");
	struct scenario *vm = vm_box("", ""), *vm2 = vm_box("", "");
	struct coll_scn *e1 = NULL, *e2 = NULL;
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r1, r2;
	if (!bm || !bm2 || !vm || !vm2)
		goto out;
	topo_opts_init(&o);
	fix_coll_spec(&c, COLL_ALLREDUCE, 8, 1 << 20, ALGO_AUTO, PROTO_AUTO);
	bm2->k.v[K_VM_PATH_SCALE] *= 3;
	bm2->k.v[K_VM_DMA_US] += 5;
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(bm, &o, &e1, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(bm2, &o, &e2, NULL), 0);
	CU_ASSERT_PTR_EQUAL(e1, e2);
	CU_ASSERT_EQUAL(coll_time(bm, &o, &c, &r1, NULL), 0);
	CU_ASSERT_EQUAL(coll_time(bm2, &o, &c, &r2, NULL), 0);
	CU_ASSERT_EQUAL(memcmp(&r1, &r2, sizeof(r1)), 0);
	coll_scn_put(e1);
	coll_scn_put(e2);
	vm2->k.v[K_VM_PATH_SCALE] *= 3;
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(vm, &o, &e1, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(coll_scn_get(vm2, &o, &e2, NULL), 0);
	CU_ASSERT_PTR_NOT_EQUAL(e1, e2);
	CU_ASSERT_EQUAL(coll_time(vm, &o, &c, &r1, NULL), 0);
	CU_ASSERT_EQUAL(coll_time(vm2, &o, &c, &r2, NULL), 0);
	CU_ASSERT(r2.seconds > r1.seconds);
	coll_scn_put(e1);
	coll_scn_put(e2);
out:
	scn_free(bm);
	scn_free(bm2);
	scn_free(vm);
	scn_free(vm2);
}

static void test_vm_host_path(void)
{
	struct scenario *bm = fix_seed_box("192", "constants: {vm_step_exits: 30, vm_shm_step_us: 50}\n");
	struct scenario *vm = vm_box("", "");
	struct scenario *huge = vm_box(", hugepages: 1g", "");
	struct scenario *viommu = vm_box(", hugepages: 1g, viommu: true", "");
	struct scenario *numa = vm_box(", guest_numa: host", "");
	struct scenario *meas = vm_box("", "constants: {vm_shm_step_us: 20}\n");
	struct scenario *scaled = vm_box("", "constants: {vm_path_scale: 3}\n");
	double base, pci, shm, exits, iotlb, cross;
	char note[1024];
	if (!bm || !vm || !huge || !viommu || !numa || !meas || !scaled)
		goto out;
	base = vm->k.v[K_NCCL_BASE_US] + vm->k.v[K_NCCL_FLOOR_US];
	pci = vm->k.v[K_NCCL_PCI_LL_US];
	shm = vm->k.v[K_NCCL_SHM_STEP_US];
	exits = vm->k.v[K_VM_STEP_EXITS] * vm->k.v[K_VM_EXIT_US];
	iotlb = vm->k.v[K_VM_STEP_PAGES] * vm->k.v[K_VM_IOTLB_MISS_US];
	cross = 0.5 * vm->k.v[K_VM_STEP_PAGES] * vm->k.v[K_VM_NUMA_HOP_US];
	/* bare metal never pays it, whatever its constants say */
	EXPECT_NEAR(coll_vm_step_us(bm) + 1, 1, 1e-12);
	EXPECT_NEAR(t_us(bm, -1, COLL_ALLREDUCE, 8, NULL, 8, ALGO_RING, PROTO_LL),
		    base + 14 * (pci + shm), 0.01);
	CU_ASSERT_FALSE(coll_vm_unmeasured(bm));
	CU_ASSERT_FALSE(coll_vm_note(bm, note, sizeof(note)));
	/* the guest: exits + IOTLB (4 KiB pages) + half the pages across sockets */
	EXPECT_NEAR(coll_vm_step_us(vm), exits + iotlb + cross, 1e-9);
	EXPECT_NEAR(t_us(vm, -1, COLL_ALLREDUCE, 8, NULL, 8, ALGO_RING, PROTO_LL),
		    base + 14 * (pci + shm + exits + iotlb + cross), 0.01);
	/* all-gather: n-1 steps pay it */
	EXPECT_NEAR(t_us(vm, -1, COLL_ALLGATHER, 8, NULL, 8, ALGO_RING, PROTO_LL),
		    base + 7 * (pci + shm + exits + iotlb + cross), 0.01);
	/* 1 GiB pages: one IOMMU entry covers the step; a vIOMMU maps in 4 KiB
	 * pages again and walks two stages */
	EXPECT_NEAR(coll_vm_step_us(huge), exits + iotlb / 262144 + cross, 1e-9);
	EXPECT_NEAR(coll_vm_step_us(viommu), exits + iotlb * vm->k.v[K_VM_VIOMMU_FACTOR] + cross,
		    1e-9);
	/* the guest knows the host's NUMA layout: no crossing */
	EXPECT_NEAR(coll_vm_step_us(numa), exits + iotlb, 1e-9);
	/* the prior's scale, and a measured value replacing the estimate */
	EXPECT_NEAR(coll_vm_step_us(scaled), 3 * (exits + iotlb + cross), 1e-9);
	EXPECT_NEAR(coll_vm_step_us(meas), 20, 1e-12);
	EXPECT_NEAR(t_us(meas, -1, COLL_ALLREDUCE, 8, NULL, 8, ALGO_RING, PROTO_LL),
		    base + 14 * (pci + shm + 20), 0.01);
	/* only the unmeasured VM says so, with how to measure it */
	CU_ASSERT_TRUE(coll_vm_unmeasured(vm));
	CU_ASSERT_FALSE(coll_vm_unmeasured(meas));
	CU_ASSERT_FALSE(coll_vm_unmeasured(scaled));
	CU_ASSERT_TRUE(coll_vm_note(vm, note, sizeof(note)));
	CU_ASSERT_PTR_NOT_NULL(strstr(note, "unmeasured"));
	CU_ASSERT_PTR_NOT_NULL(strstr(note, "all_reduce_perf -b 8 -e 128M -f 2 -g 8"));
	CU_ASSERT_PTR_NOT_NULL(strstr(note, "plumb calibrate"));
	CU_ASSERT_FALSE(coll_vm_note(meas, note, sizeof(note)));
out:
	scn_free(bm);
	scn_free(vm);
	scn_free(huge);
	scn_free(viommu);
	scn_free(numa);
	scn_free(meas);
	scn_free(scaled);
}

/* NCCL's graph of ranks 0..n-1 of scenario s. */
static int graph_of(struct scenario *s, int n, struct coll_graph *g)
{
	struct topo_view *v = NULL;
	struct topo_opts o;
	struct coll_spec c;
	topo_opts_init(&o);
	if (topo_build(s, TOPO_HOST, &o, &v, NULL) < 0)
		return -1;
	memset(&c, 0, sizeof(c));
	c.op = COLL_ALLREDUCE;
	c.n = n;
	c.gpus = fix_ranks;
	coll_graph_of(s, v, &c, g);
	topo_free(v);
	return 0;
}

static void test_channels(void)
{
	struct scenario *s = NULL;
	struct coll_graph g;

	/* NVSwitch H100: 18 links x 20.6 GB/s; 6 rings at 60 (search.cc
	 * sm90SpeedArrayIntra), duplicated to 12 at 30, doubled to 24
	 * channels (connect.cc); p2p 2 per link, 36 -> 64 per peer, 32
	 * channels, the 512 KiB NVLink chunk. */
	CU_ASSERT_EQUAL_FATAL(scn_load("validation/scenarios/hgx-h100-8x.yaml", &s, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(graph_of(s, 8, &g), 0);
	CU_ASSERT_EQUAL(g.nvlink, 1);
	CU_ASSERT_EQUAL(g.sm, 90);
	EXPECT_NEAR(g.hop_gbs, 18 * 20.6, 1e-9);
	CU_ASSERT_EQUAL(g.graph_ch, 12);
	EXPECT_NEAR(g.bw_intra, 30, 1e-9);
	CU_ASSERT_EQUAL(g.nch, 24);
	CU_ASSERT_EQUAL(g.p2p_ch_per_peer, 64);
	CU_ASSERT_EQUAL(g.p2p_nch, 32);
	CU_ASSERT_EQUAL(g.p2p_chunk, 512 * 1024);
	scn_free(s);

	/* An NVLink-bridged A40 pair (NV4, SM86 12 GB/s per link): one ring
	 * at 40, duplicated to 2 at 20, 4 channels; 8 p2p channels per peer
	 * over 4. */
	CU_ASSERT_EQUAL_FATAL(scn_load("validation/scenarios/a40-8x-nv4.yaml", &s, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(graph_of(s, 2, &g), 0);
	CU_ASSERT_EQUAL(g.nvlink, 1);
	EXPECT_NEAR(g.hop_gbs, 48, 1e-9);
	CU_ASSERT_EQUAL(g.graph_ch, 2);
	EXPECT_NEAR(g.bw_intra, 20, 1e-9);
	CU_ASSERT_EQUAL(g.nch, 4);
	CU_ASSERT_EQUAL(g.p2p_ch_per_peer, 8);
	CU_ASSERT_EQUAL(g.p2p_nch, 4);
	CU_ASSERT_EQUAL(g.p2p_chunk, 512 * 1024);
	scn_free(s);

	/* A PCIe pair across the sockets of the seed box: the ring is held
	 * to AMD_BW 16 between the sockets, one ring at 18 (the slowest
	 * speed of the SM100+ array), 2 channels; p2p 2 per peer, the
	 * 128 KiB PCI chunk. Ranks 0 and 4 sit on different sockets. */
	s = fix_seed_box("192", "");
	if (s) {
		struct topo_view *v = NULL;
		struct topo_opts o;
		struct coll_spec c;
		int pair[2] = { 0, 4 };
		topo_opts_init(&o);
		CU_ASSERT_EQUAL_FATAL(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
		memset(&c, 0, sizeof(c));
		c.op = COLL_ALLREDUCE;
		c.n = 2;
		c.gpus = pair;
		coll_graph_of(s, v, &c, &g);
		CU_ASSERT_EQUAL(g.nvlink, 0);
		EXPECT_NEAR(g.hop_gbs, 16, 1e-9);
		CU_ASSERT_EQUAL(g.graph_ch, 1);
		CU_ASSERT_EQUAL(g.nch, 2);
		CU_ASSERT_EQUAL(g.p2p_ch_per_peer, 2);
		CU_ASSERT_EQUAL(g.p2p_chunk, 128 * 1024);
		/* nccl_channels set: NCCL_MIN/MAX_NCHANNELS */
		s->k.v[K_NCCL_CHANNELS] = 6;
		s->k.set[K_NCCL_CHANNELS] = 1;
		coll_graph_of(s, v, &c, &g);
		CU_ASSERT_EQUAL(g.nch, 6);
		topo_free(v);
		scn_free(s);
	}
}

static void test_size_and_protocol(void)
{
	struct scenario *s = NULL;
	struct coll_graph g;
	struct coll_spec c;
	double kb = 1024, mb = 1024 * 1024;
	CU_ASSERT_EQUAL_FATAL(scn_load("validation/scenarios/hgx-h100-8x.yaml", &s, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(graph_of(s, 8, &g), 0);
	/* enqueue.cc: Simple keeps nc while bytes >= nc x 512 x 64 */
	CU_ASSERT_EQUAL(coll_tune_nch(&g, 8, 8, PROTO_SIMPLE), 1);
	CU_ASSERT_EQUAL(coll_tune_nch(&g, 256 * kb, 8, PROTO_SIMPLE), 8);
	CU_ASSERT_EQUAL(coll_tune_nch(&g, 1 * mb, 8, PROTO_SIMPLE), 24);
	/* LL: 8 x nranks per thread, 512 threads: 32 KiB a channel */
	CU_ASSERT_EQUAL(coll_tune_nch(&g, 64 * kb, 8, PROTO_LL), 2);
	/* LL128: 8 per thread, 640 threads */
	CU_ASSERT_EQUAL(coll_tune_nch(&g, 51200, 8, PROTO_LL128), 10);
	/* once one channel is left, threads halve under the same threshold */
	CU_ASSERT_EQUAL(coll_tune_nthreads(&g, 8 * kb, 8, PROTO_LL), 128);
	CU_ASSERT_EQUAL(coll_tune_nthreads(&g, 1 * mb, 8, PROTO_LL), 512);
	CU_ASSERT_EQUAL(coll_tune_nthreads(&g, 8, 8, PROTO_LL), 96);
	/* The tuner's picks for an 8-GPU ring all-reduce on NVSwitch H100:
	 * LL up to 2 MiB, LL128 from 4 to 32 MiB, Simple from 64 MiB (its
	 * model crosses at about 3.6 and 36 MB). */
	memset(&c, 0, sizeof(c));
	c.op = COLL_ALLREDUCE;
	c.n = 8;
	c.gpus = fix_ranks;
	c.bytes = 2 * mb;
	CU_ASSERT_EQUAL(coll_tune_proto(s, &g, &c), PROTO_LL);
	c.bytes = 4 * mb;
	CU_ASSERT_EQUAL(coll_tune_proto(s, &g, &c), PROTO_LL128);
	c.bytes = 32 * mb;
	CU_ASSERT_EQUAL(coll_tune_proto(s, &g, &c), PROTO_LL128);
	c.bytes = 64 * mb;
	CU_ASSERT_EQUAL(coll_tune_proto(s, &g, &c), PROTO_SIMPLE);
	/* LL128 is off on PCIe */
	g.nvlink = 0;
	CU_ASSERT(coll_tune_time(s, &g, &c, PROTO_LL128) < 0);
	scn_free(s);
}

static void test_p2p_path(void)
{
	struct scenario *s = NULL;
	struct coll_graph g;
	double mb = 1024 * 1024, t1, t2;
	CU_ASSERT_EQUAL_FATAL(scn_load("validation/scenarios/dgx-a100-8x.yaml", &s, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(graph_of(s, 8, &g), 0);
	/* 8 A100 on NVSwitch: 24 channels, 32 per peer, 32 p2p channels:
	 * 4 a peer (4 x 8 ranks fit 32); parts of at least 64 KiB, doubling
	 * while over 16 MiB */
	CU_ASSERT_EQUAL(g.nch, 24);
	CU_ASSERT_EQUAL(g.p2p_ch_per_peer, 32);
	CU_ASSERT_EQUAL(coll_p2p_nch(&g, 16384, 8), 1);
	CU_ASSERT_EQUAL(coll_p2p_nch(&g, 1 * mb, 8), 4);
	CU_ASSERT_EQUAL(coll_p2p_nch(&g, 128 * mb, 8), 8);
	CU_ASSERT_EQUAL(coll_p2p_nch(&g, 256 * mb, 8), 16);
	/* LL while a peer's bytes fit 16 KiB per channel */
	CU_ASSERT_EQUAL(coll_p2p_ll(16384, 1), 1);
	CU_ASSERT_EQUAL(coll_p2p_ll(16385, 1), 0);
	CU_ASSERT_EQUAL(coll_p2p_ll(65536, 4), 1);
	/* The doubling shows in send/recv: twice the bytes on twice the
	 * channels take well under twice the time (li-plus/playground: 1211
	 * and 1423 us at 128 and 256 MiB) */
	t1 = t_us(s, -1, COLL_SENDRECV, 8, NULL, 128 * mb, ALGO_AUTO, PROTO_AUTO);
	t2 = t_us(s, -1, COLL_SENDRECV, 8, NULL, 256 * mb, ALGO_AUTO, PROTO_AUTO);
	CU_ASSERT(t2 < 1.5 * t1);
	/* and the channels' rate caps the smaller one: 8 channels of
	 * nccl_ch_gbs / 2 */
	EXPECT_NEAR(128 * mb / (t1 * 1e-6), 8 * s->k.v[K_NCCL_CH_GBS] * 1e9 / 2, 0.05);
	scn_free(s);
}

/* NCCL 2.25.1 and later search Blackwell rings down to 18 GB/s only: the
 * 8x RTX 5090 box's ring crosses its AMD sockets (AMD_BW 16), finds none
 * and falls back to one ring at 0.1 GB/s, on which the tuner's LL gives
 * way to Simple between 2 and 4 KiB (ring LL 6.6 + 14 x 1.0 us at 0.05 x
 * 8/14 GB/s against Simple 8.4 + 14 x 5.7 at 0.1 x 8/14: 3863 B), where
 * the run (NCCL 2.29.7) steps from 24.5 to 36.3 us. A run that names no
 * release keeps the lowest speed. */
static void test_search_fallback(void)
{
	static const int ranks[8] = { 0, 1, 2, 3, 4, 5, 7, 8 };
	struct scenario *s = NULL;
	struct topo_view *v = NULL;
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;
	struct coll_graph g;
	struct plumb_err e;
	int ver;
	CU_ASSERT_EQUAL_FATAL(scn_load("validation/scenarios/crazy-epyc9575f-8x5090-pro6000.yaml",
				       &s, NULL), 0);
	memset(&c, 0, sizeof(c));
	c.op = COLL_ALLREDUCE;
	c.n = 8;
	c.gpus = ranks;
	for (ver = 0; ver <= 22907; ver += 22907) {
		topo_opts_init(&o);
		o.nccl_p2p_level = NP_SYS;
		o.nccl_version = ver;
		CU_ASSERT_EQUAL_FATAL(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
		coll_graph_of(s, v, &c, &g);
		CU_ASSERT_EQUAL(g.sm, 120);
		EXPECT_NEAR(g.hop_gbs, 16.0, 1e-9);
		CU_ASSERT_EQUAL(g.fallback, ver > 0);
		EXPECT_NEAR(g.bw_intra, ver > 0 ? 0.1 : 18.0, 1e-9);
		CU_ASSERT_EQUAL(g.graph_ch, 1);
		CU_ASSERT_EQUAL(g.nch, 2);
		if (ver > 0) {
			c.bytes = 2048;
			CU_ASSERT_EQUAL(coll_tune_proto(s, &g, &c), PROTO_LL);
			c.bytes = 4096;
			CU_ASSERT_EQUAL(coll_tune_proto(s, &g, &c), PROTO_SIMPLE);
			c.bytes = 3800;
			CU_ASSERT_EQUAL(coll_tune_proto(s, &g, &c), PROTO_LL);
			c.bytes = 3900;
			CU_ASSERT_EQUAL(coll_tune_proto(s, &g, &c), PROTO_SIMPLE);
		}
		topo_free(v);
		v = NULL;
		/* auto runs that pick on the fallback ring; without a
		 * release, the fastest simulated (LL at 4 KiB) */
		c.algo = ALGO_AUTO;
		c.proto = PROTO_AUTO;
		c.bytes = 4096;
		plumb_err_clear(&e);
		CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, &e), 0);
		CU_ASSERT_EQUAL(r.proto, ver > 0 ? PROTO_SIMPLE : PROTO_LL);
		c.bytes = 2048;
		CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, &e), 0);
		CU_ASSERT_EQUAL(r.proto, PROTO_LL);
	}
	scn_free(s);
}

void suite_coll(void)
{
	CU_pSuite s = CU_add_suite("coll", NULL, NULL);
	CU_add_test(s, "small messages: NCCL latency terms", test_small_latency);
	CU_add_test(s, "large messages: link rate, SHM rate", test_large_bandwidth);
	CU_add_test(s, "protocols: LL128 rule, auto is the fastest or NCCL's pick", test_protocols_and_auto);
	CU_add_test(s, "send/recv, broadcast, tree, all-to-all", test_other_ops);
	CU_add_test(s, "concurrent collectives share links", test_contention);
	CU_add_test(s, "the engine's one-shot all-reduce", test_oneshot);
	CU_add_test(s, "the engine's two-shot all-reduce", test_twoshot);
	CU_add_test(s, "derived state and steps shared by content", test_shared_by_content);
	CU_add_test(s, "the engines' scenarios share the tuner's answers",
		    test_answers_across_engines);
	CU_add_test(s, "a VM's host path: its terms, never on bare metal", test_vm_host_path);
	CU_add_test(s, "a VM's host-path constants key the tuner's answers in a guest only",
		    test_vm_consts_key);
	CU_add_test(s, "NCCL's channels: NVSwitch, NVLink bridge, PCIe", test_channels);
	CU_add_test(s, "channels by size, the tuner's protocol switch points", test_size_and_protocol);
	CU_add_test(s, "the p2p path: channels per peer, LL threshold", test_p2p_path);
	CU_add_test(s, "NCCL's search falls back: one ring at 0.1 GB/s, Simple from 4 KiB",
		    test_search_fallback);
}
