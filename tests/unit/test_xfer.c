/*
 * test_xfer.c - the fabric's paths and the P2P / host-bounce transfer model.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fabric.h"
#include "fixtures.h"
#include "p2ptest.h"
#include "scn.h"
#include "topo.h"
#include "xfer.h"

void suite_xfer(void);

static const char two_rc[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: amd, sockets: 2, inter_socket: {kind: xgmi, bandwidth_gbs: 20}}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0, gen: 5, width: 16}\n"
	"  - {id: sw0, kind: switch, parent: rp0, gen: 5, width: 16, acs: false}\n"
	"  - {id: gpu0, kind: gpu, parent: sw0, model: rtx-pro-6000}\n"
	"  - {id: gpu1, kind: gpu, parent: sw0, model: rtx-pro-6000}\n"
	"  - {id: rc1, kind: root_complex, socket: 1}\n"
	"  - {id: rp1, kind: root_port, parent: rc1, gen: 4, width: 16}\n"
	"  - {id: gpu2, kind: gpu, parent: rp1, model: rtx-pro-6000, gen: 4}\n"
	"%s";

static struct scenario *load(const char *extra)
{
	char text[4096];
	struct scenario *s = NULL;
	struct plumb_err e;
	snprintf(text, sizeof(text), two_rc, extra);
	plumb_err_clear(&e);
	if (scn_parse("inline.yaml", text, &s, &e) < 0)
		printf("\n  scenario failed: %d:%d: %s\n", e.line, e.col, e.msg);
	CU_ASSERT_PTR_NOT_NULL(s);
	return s;
}

/* p without its switch-port links (both directions together): the PCIe
 * links a route climbs and descends. */
static int pcie_links(const struct fabric *f, int *p, int n)
{
	int i, k = 0;
	for (i = 0; i < n; i++)
		if (sim_net_link_kind(f->net, p[i]) != SIM_LINK_SWITCH)
			p[k++] = p[i];
	return k;
}

static void test_paths(void)
{
	struct scenario *s = load("");
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	int p[FAB_MAX_PATH], n;
	if (!s)
		return;
	CU_ASSERT_EQUAL(sim_engine_new(1, &eng, NULL), 0);
	CU_ASSERT_EQUAL(fab_build(eng, s, &f, NULL), 0);
	/* Under one switch: GPU0 up, GPU1 down; the switch uplink is not used. */
	n = pcie_links(f, p, fab_path_gpu(f, 0, 1, p));
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(p[0], f->up[s->gpu_node[0]]);
	CU_ASSERT_EQUAL(p[1], f->down[s->gpu_node[1]]);
	/* Across sockets: GPU0 up, switch up, rc0 out, socket 0->1, rc1 in, GPU2 down. */
	n = pcie_links(f, p, fab_path_gpu(f, 0, 2, p));
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT_EQUAL(p[3], fab_xs(f, 0, 1));
	CU_ASSERT_EQUAL(p[5], f->down[s->gpu_node[2]]);
	/* Into host memory of socket 1 from GPU0. */
	n = pcie_links(f, p, fab_path_to_host(f, 0, 1, p));
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(p[4], f->dram[1]);
	EXPECT_NEAR(fab_lane_gbs(5), 3.9384615, 1e-6);
	EXPECT_NEAR(fab_pcie_bytes_per_s(s, s->gpu_node[2]),
		    16 * fab_lane_gbs(4) * (55.08 / 63.0) * 1e9, 1e-12);
	fab_free(f);
	sim_engine_free(eng);
	scn_free(s);
}

static void test_p2p_time(void)
{
	struct scenario *s = load("");
	double t, rate, lat;
	if (!s)
		return;
	/* Lone flow under one switch: max(p2p_lat, 2 hops) + B / link rate. */
	rate = fab_pcie_bytes_per_s(s, s->gpu_node[0]);
	lat = fmax(s->k.v[K_P2P_LAT_US] * 1e-6, 2 * s->k.v[K_HOP_NS] * 1e-9);
	CU_ASSERT_EQUAL(xfer_time(s, 0, 1, 1e8, XFER_P2P, 0, &t, NULL), 0);
	EXPECT_NEAR(t, lat + 1e8 / rate, 1e-9);
	/* Across sockets the 20 GB/s inter-socket link is the bottleneck. */
	CU_ASSERT_EQUAL(xfer_time(s, 0, 2, 1e8, XFER_P2P, 0, &t, NULL), 0);
	EXPECT_NEAR(1e8 / t, 20e9, 0.01);
	/* Both directions at once share no link, only each GPU's switch port,
	 * which carries switch_duplex_eff of two links' worth. */
	{
		double t2;
		xfer_time(s, 0, 1, 1e8, XFER_P2P, 1, &t2, NULL);
		EXPECT_NEAR(t2, lat + 1e8 / (s->k.v[K_SW_DUPLEX_EFF] * rate), 1e-9);
	}
	scn_free(s);
}

/* Switch ports: one two-way link each where a PCIe link ends at a switch
 * chip; none on a root port, none for a card of NICs written as a switch,
 * none at switch_duplex_eff 1. */
static void test_switch_ports(void)
{
	static const char nics[] =
		"  - {id: rc2, kind: root_complex, socket: 0}\n"
		"  - {id: rp2, kind: root_port, parent: rc2, gen: 5, width: 16}\n"
		"  - {id: card, kind: switch, parent: rp2, gen: 5, width: 16}\n"
		"  - {id: nic0, kind: nic, parent: card, model: mlx5_0}\n"
		"  - {id: nic1, kind: nic, parent: card, model: mlx5_1}\n";
	struct scenario *s = load(nics);
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	double t1, t2, rate;
	int p[FAB_MAX_PATH], n, i, k, ports = 0;
	if (!s)
		return;
	CU_ASSERT_EQUAL(sim_engine_new(1, &eng, NULL), 0);
	CU_ASSERT_EQUAL(fab_build(eng, s, &f, NULL), 0);
	for (i = 0; i < s->nnodes; i++) {
		const char *id = s->nodes[i].id;
		int want = !strcmp(id, "sw0") || !strcmp(id, "gpu0") || !strcmp(id, "gpu1");
		CU_ASSERT_EQUAL(f->dpx[i] >= 0, want);
		ports += f->dpx[i] >= 0;
		if (f->dpx[i] >= 0)
			EXPECT_NEAR(sim_net_link_capacity(f->net, f->dpx[i]),
				    2 * s->k.v[K_SW_DUPLEX_EFF] * fab_pcie_bytes_per_s(s, i), 1e-12);
	}
	CU_ASSERT_EQUAL(ports, 3);
	/* GPU0 -> GPU2: GPU0's port after its link up, the uplink's after the
	 * uplink; GPU2 on its root port has none. */
	n = fab_path_gpu(f, 0, 2, p);
	for (i = k = 0; i < n; i++)
		k += sim_net_link_kind(f->net, p[i]) == SIM_LINK_SWITCH;
	CU_ASSERT_EQUAL(k, 2);
	CU_ASSERT_EQUAL(p[1], f->dpx[s->gpu_node[0]]);
	CU_ASSERT_EQUAL(p[3], f->dpx[s->gpu_node[0] - 1]);
	/* Under ACS the route goes up the uplink and back down: its port once. */
	fab_set_acs(f, 1);
	n = fab_path_gpu(f, 0, 1, p);
	for (i = k = 0; i < n; i++)
		k += p[i] == f->dpx[s->gpu_node[0] - 1];
	CU_ASSERT_EQUAL(k, 1);
	fab_free(f);
	sim_engine_free(eng);
	scn_free(s);
	/* At 1 the bound is gone: both ways as fast as one. */
	s = load("constants: {switch_duplex_eff: 1}\n");
	if (!s)
		return;
	rate = fab_pcie_bytes_per_s(s, s->gpu_node[0]);
	CU_ASSERT_EQUAL(xfer_time(s, 0, 1, 1e8, XFER_P2P, 0, &t1, NULL), 0);
	CU_ASSERT_EQUAL(xfer_time(s, 0, 1, 1e8, XFER_P2P, 1, &t2, NULL), 0);
	EXPECT_NEAR(t2, t1, 1e-9);
	CU_ASSERT(t1 > 1e8 / rate);
	scn_free(s);
}

/* A fourth GPU on its own root complex of socket 0. */
static const char own_rc[] =
	"  - {id: rc2, kind: root_complex, socket: 0}\n"
	"  - {id: rp2, kind: root_port, parent: rc2, gen: 5, width: 16}\n"
	"  - {id: gpu3, kind: gpu, parent: rp2, model: rtx-pro-6000}\n";

static void test_bounce_floor_and_rate(void)
{
	struct scenario *s = load(own_rc);
	double t, r, C, sync, eff, lat;
	if (!s)
		return;
	/* A 4-byte bounce costs the measured floor. */
	CU_ASSERT_EQUAL(xfer_time(s, 0, 3, 4, XFER_BOUNCE, 0, &t, NULL), 0);
	EXPECT_NEAR(t * 1e6, s->k.v[K_BOUNCE_FLOOR_US], 1e-3);
	/* Long bounce between root complexes: two buffers, each cycling leg 1
	 * + sync + leg 2, where a leg is the copy latency plus C / r: two
	 * chunks per 2 (L + C/r) + s. */
	r = fab_pcie_bytes_per_s(s, s->gpu_node[0]);
	C = s->k.v[K_BOUNCE_CHUNK_KIB] * 1024;
	sync = (s->k.v[K_BOUNCE_FLOOR_US] - 2 * s->k.v[K_P2P_LAT_US]) * 1e-6;
	lat = s->k.v[K_P2P_LAT_US] * 1e-6;
	eff = (2 * C / r) / (2 * (lat + C / r) + sync);
	CU_ASSERT_EQUAL(xfer_time(s, 0, 3, 4e9, XFER_BOUNCE, 0, &t, NULL), 0);
	EXPECT_NEAR(4e9 / t, r * eff, 0.01);
	/* About 43 GB/s on Gen5 x16, as measured. */
	EXPECT_NEAR(4e9 / t / 1e9, 43.0, 0.05);
	/* Under one switch the legs cross its uplink in opposite directions:
	 * leg 2's reads may not pass leg 1's posted writes, so a chunk's legs
	 * run one after the other and the other buffer idles: one chunk per
	 * 2 (L + C/r) + s, half the rate. */
	CU_ASSERT_EQUAL(xfer_time(s, 0, 1, 4e9, XFER_BOUNCE, 0, &t, NULL), 0);
	EXPECT_NEAR(4e9 / t, r * eff / 2, 0.01);
	/* The floor of a small bounce is the same. */
	CU_ASSERT_EQUAL(xfer_time(s, 0, 1, 4, XFER_BOUNCE, 0, &t, NULL), 0);
	EXPECT_NEAR(t * 1e6, s->k.v[K_BOUNCE_FLOOR_US], 1e-3);
	scn_free(s);
}

static void test_bounce_never_faster_than_p2p(void)
{
	struct scenario *s = load("");
	static const double sizes[] = { 4, 4096, 1 << 20, 64 << 20 };
	size_t i;
	if (!s)
		return;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double tp, tb;
		xfer_time(s, 0, 1, sizes[i], XFER_P2P, 0, &tp, NULL);
		xfer_time(s, 0, 1, sizes[i], XFER_BOUNCE, 0, &tb, NULL);
		CU_ASSERT(tp <= tb);
	}
	scn_free(s);
}

static void test_more_bandwidth_never_slower(void)
{
	static const char *const eff[] = {
		"constants: {pcie_eff: 0.5}\n", "constants: {pcie_eff: 0.7}\n",
		"constants: {pcie_eff: 0.9}\n"
	};
	double last_p = INFINITY, last_b = INFINITY;
	size_t i;
	for (i = 0; i < 3; i++) {
		struct scenario *s = load(eff[i]);
		double tp, tb;
		if (!s)
			return;
		xfer_time(s, 0, 2, 1e8, XFER_P2P, 0, &tp, NULL);
		xfer_time(s, 0, 1, 1e8, XFER_BOUNCE, 0, &tb, NULL);
		CU_ASSERT(tp <= last_p);
		CU_ASSERT(tb <= last_b);
		last_p = tp;
		last_b = tb;
		scn_free(s);
	}
}

/* Two bounces at once share the staging buffers. */
static int count_done(struct xfer_ctx *x, void *arg, struct plumb_err *err)
{
	(void)x;
	(void)err;
	(*(int *)arg)++;
	return 0;
}

static const char two_roots[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: amd}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0}\n"
	"  - {id: gpu0, kind: gpu, parent: rp0, model: rtx-pro-6000}\n"
	"  - {id: rc1, kind: root_complex, socket: 0}\n"
	"  - {id: rp1, kind: root_port, parent: rc1}\n"
	"  - {id: gpu1, kind: gpu, parent: rp1, model: rtx-pro-6000}\n"
	"constants: {bounce_buffers: %d}\n";

/* GPU0 -> GPU1 and GPU1 -> GPU0 bounced at once on disjoint links; returns
 * the time of both relative to one alone. */
static double bidir_ratio(int buffers)
{
	char text[1024];
	struct scenario *s = NULL;
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	struct xfer_ctx x;
	struct xfer_spec sp;
	double one, both;
	int done = 0;

	snprintf(text, sizeof(text), two_roots, buffers);
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", text, &s, NULL), 0);
	if (!s)
		return 0;
	xfer_time(s, 0, 1, 1e9, XFER_BOUNCE, 0, &one, NULL);
	CU_ASSERT_EQUAL(sim_engine_new(1, &eng, NULL), 0);
	CU_ASSERT_EQUAL(fab_build(eng, s, &f, NULL), 0);
	CU_ASSERT_EQUAL(xfer_ctx_init(&x, eng, f, NULL), 0);
	memset(&sp, 0, sizeof(sp));
	sp.bytes = 1e9;
	sp.method = XFER_BOUNCE;
	sp.host_socket = -1;
	sp.done = count_done;
	sp.arg = &done;
	sp.src = 0;
	sp.dst = 1;
	CU_ASSERT_EQUAL(xfer_start(&x, &sp, NULL), 0);
	sp.src = 1;
	sp.dst = 0;
	CU_ASSERT_EQUAL(xfer_start(&x, &sp, NULL), 0);
	CU_ASSERT_EQUAL(sim_run(eng, INFINITY, NULL), 0);
	both = sim_now(eng);
	CU_ASSERT_EQUAL(done, 2);
	EXPECT_NEAR(x.bytes_done, 2e9, 1e-12);
	xfer_ctx_release(&x);
	fab_free(f);
	sim_engine_free(eng);
	scn_free(s);
	return both / one;
}

static void test_shared_staging(void)
{
	/* Two buffers shared by two transfers: each is single-buffered, half
	 * the rate. With plenty of buffers each runs as if alone (links are
	 * disjoint); in between, more buffers never hurt. */
	double r2 = bidir_ratio(2), r4 = bidir_ratio(4), r16 = bidir_ratio(16);
	EXPECT_NEAR(r2, 2.0, 0.02);
	EXPECT_NEAR(r16, 1.0, 0.02);
	CU_ASSERT(r4 <= r2 && r16 <= r4);
}

static void test_p2ptest_matrices(void)
{
	struct scenario *s = load("");
	static struct p2pt_result r;
	if (!s)
		return;
	CU_ASSERT_EQUAL(p2pt_run(s, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.n, 3);
	CU_ASSERT_EQUAL(r.can[0][1], 1);
	/* Enabled uses P2P: faster than staged; latency far below the bounce floor. */
	CU_ASSERT(r.m[P2PT_UNI_ENABLED][0][1] > r.m[P2PT_UNI_DISABLED][0][1]);
	EXPECT_NEAR(r.m[P2PT_LAT_DISABLED][0][1], s->k.v[K_BOUNCE_FLOOR_US], 1e-3);
	EXPECT_NEAR(r.m[P2PT_LAT_ENABLED][0][1], s->k.v[K_P2P_LAT_US], 1e-3);
	EXPECT_NEAR(r.m[P2PT_UNI_DISABLED][1][1], 1792 * s->k.v[K_D2D_EFF], 1e-12);
	scn_free(s);
}

/* Two GPUs under one switch; switch keys, each GPU's keys, host IOMMU. */
static const char acs_sw[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: amd}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0, gen: 5, width: 16}\n"
	"  - {id: sw0, kind: switch, parent: rp0, gen: 5, width: 16%s}\n"
	"  - {id: gpu0, kind: gpu, parent: sw0, model: rtx-pro-6000%s}\n"
	"  - {id: gpu1, kind: gpu, parent: sw0, model: rtx-pro-6000%s}\n"
	"virtualization: {mode: bare_metal, host_iommu: %s}\n";

/* Links of GPU0 -> GPU1 with the switch's ACS as given (override -1) or forced. */
static int acs_path(const char *sw, const char *gpu, const char *iommu, int override,
		    int *via, int *dt)
{
	char text[2048];
	struct scenario *s = NULL;
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	struct topo_view *v = NULL;
	struct topo_opts o;
	int p[FAB_MAX_PATH], n = -1;

	snprintf(text, sizeof(text), acs_sw, sw, gpu, gpu, iommu);
	if (scn_parse("acs.yaml", text, &s, NULL) < 0)
		return -1;
	topo_opts_init(&o);
	o.acs_override = override;
	if (sim_engine_new(1, &eng, NULL) == 0 && fab_build(eng, s, &f, NULL) == 0 &&
	    topo_build(s, TOPO_HOST, &o, &v, NULL) == 0) {
		fab_set_acs(f, override);
		n = pcie_links(f, p, fab_path_gpu(f, 0, 1, p));
		/* the P2P route and the view agree */
		*via = v->acs_via[0][1];
		*dt = v->acs_dt[0][1];
		if (n == 4) {
			int sw0 = s->gpu_node[0] - 1;
			CU_ASSERT_EQUAL(p[1], f->up[sw0]);
			CU_ASSERT_EQUAL(p[2], f->down[sw0]);
			CU_ASSERT_EQUAL(*via, sw0);
		}
	}
	topo_free(v);
	fab_free(f);
	sim_engine_free(eng);
	scn_free(s);
	return n;
}

static void test_acs_redirect(void)
{
	int via, dt;
	char text[2048];
	struct scenario *s = NULL;
	double t1, t2;

	/* ACS enforced (the default): up the uplink to the root complex and back. */
	CU_ASSERT_EQUAL(acs_path("", "", "translate", -1, &via, &dt), 4);
	CU_ASSERT(via >= 0);
	CU_ASSERT_EQUAL(dt, 0);
	/* acs: false, or --acs off: the switch turns it. */
	CU_ASSERT_EQUAL(acs_path(", acs: false", "", "translate", -1, &via, &dt), 2);
	CU_ASSERT_EQUAL(via, -1);
	CU_ASSERT_EQUAL(acs_path("", "", "translate", 0, &via, &dt), 2);
	CU_ASSERT_EQUAL(acs_path(", acs: false", "", "translate", 1, &via, &dt), 4);
	/* Direct Translated P2P: only with ATS on both GPUs and an IOMMU to answer. */
	CU_ASSERT_EQUAL(acs_path(", acs_dt: true", ", ats: true", "translate", -1, &via, &dt), 2);
	CU_ASSERT_EQUAL(dt, 1);
	CU_ASSERT_EQUAL(acs_path(", acs_dt: true", ", ats: true", "off", -1, &via, &dt), 4);
	CU_ASSERT_EQUAL(acs_path(", acs_dt: true", "", "translate", -1, &via, &dt), 4);
	/* Redirected, both directions share the uplink: a bidirectional copy
	 * takes twice as long as one way; without ACS as long. */
	snprintf(text, sizeof(text), acs_sw, "", "", "", "translate");
	CU_ASSERT_EQUAL(scn_parse("acs.yaml", text, &s, NULL), 0);
	if (s) {
		xfer_time(s, 0, 1, 1e9, XFER_P2P, 0, &t1, NULL);
		xfer_time(s, 0, 1, 1e9, XFER_P2P, 1, &t2, NULL);
		EXPECT_NEAR(t2, 2 * t1, 1e-3);
		scn_free(s);
	}
	snprintf(text, sizeof(text), acs_sw, ", acs: false", "", "", "translate");
	CU_ASSERT_EQUAL(scn_parse("acs.yaml", text, &s, NULL), 0);
	if (s) {
		double r = fab_pcie_bytes_per_s(s, s->gpu_node[0]);
		xfer_time(s, 0, 1, 1e9, XFER_P2P, 0, &t1, NULL);
		xfer_time(s, 0, 1, 1e9, XFER_P2P, 1, &t2, NULL);
		/* only the GPUs' switch ports, both ways, slow it */
		EXPECT_NEAR(t2 - t1, 1e9 / r * (1 / s->k.v[K_SW_DUPLEX_EFF] - 1), 1e-6);
		scn_free(s);
	}
}

/* Two partitions of one switch chip on two root complexes, a GPU under each. */
static const char two_parts[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: amd}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0, gen: 5, width: 16}\n"
	"  - {id: p0, kind: switch, parent: rp0, gen: 5, width: 16, acs: false%s}\n"
	"  - {id: gpu0, kind: gpu, parent: p0, model: rtx-pro-6000}\n"
	"  - {id: rc1, kind: root_complex, socket: 0}\n"
	"  - {id: rp1, kind: root_port, parent: rc1, gen: 5, width: 16}\n"
	"  - {id: p1, kind: switch, parent: rp1, gen: 5, width: 16, acs: false%s}\n"
	"  - {id: gpu1, kind: gpu, parent: p1, model: rtx-pro-6000}\n";

static int parts_path(const char *c0, const char *c1, int override)
{
	char text[2048];
	struct scenario *s = NULL;
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	int p[FAB_MAX_PATH], n = -1;
	snprintf(text, sizeof(text), two_parts, c0, c1);
	if (scn_parse("parts.yaml", text, &s, NULL) < 0)
		return -1;
	if (sim_engine_new(1, &eng, NULL) == 0 && fab_build(eng, s, &f, NULL) == 0) {
		fab_set_acs(f, override);
		n = pcie_links(f, p, fab_path_gpu(f, 0, 1, p));
		if (n == 2) {
			CU_ASSERT_EQUAL(p[0], f->up[s->gpu_node[0]]);
			CU_ASSERT_EQUAL(p[1], f->down[s->gpu_node[1]]);
		}
	}
	fab_free(f);
	sim_engine_free(eng);
	scn_free(s);
	return n;
}

static void test_chip_partitions(void)
{
	/* one chip: across it, not up the uplinks and through the root complexes */
	CU_ASSERT_EQUAL(parts_path(", chip: a", ", chip: a", -1), 2);
	/* two chips, or no chip: GPU up, partition up, rc0 out, rc1 in, partition down, GPU down */
	CU_ASSERT_EQUAL(parts_path(", chip: a", ", chip: b", -1), 6);
	CU_ASSERT_EQUAL(parts_path("", "", -1), 6);
	/* ACS enforced: the requests go upstream */
	CU_ASSERT_EQUAL(parts_path(", chip: a", ", chip: a", 1), 6);
}

/* NPS2: a bounce's staging buffer sits on the sender's node, behind that
 * node's share of the socket's memory channels. */
static void test_numa_node_memory(void)
{
	static const char nps2[] =
		"plumb_scenario: 1\n"
		"host: {cpu_vendor: amd, sockets: 1, numa_per_socket: 2}\n"
		"constants: {dram_gbs: 40}\n"
		"pcie:\n"
		"  - {id: rc0, kind: root_complex, socket: 0, numa: 1}\n"
		"  - {id: rp0, kind: root_port, parent: rc0, gen: 5, width: 16}\n"
		"  - {id: gpu0, kind: gpu, parent: rp0, model: rtx-pro-6000}\n"
		"  - {id: rc1, kind: root_complex, socket: 0, numa: 0}\n"
		"  - {id: rp1, kind: root_port, parent: rc1, gen: 5, width: 16}\n"
		"  - {id: gpu1, kind: gpu, parent: rp1, model: rtx-pro-6000}\n";
	struct scenario *s = NULL;
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	int p[FAB_MAX_PATH], n;
	CU_ASSERT_EQUAL_FATAL(scn_parse("nps2.yaml", nps2, &s, NULL), 0);
	CU_ASSERT_EQUAL(sim_engine_new(1, &eng, NULL), 0);
	CU_ASSERT_EQUAL(fab_build(eng, s, &f, NULL), 0);
	if (f) {
		CU_ASSERT_EQUAL(fab_gpu_numa(f, 0), 1);
		CU_ASSERT(f->mem[0] >= 0 && f->mem[1] >= 0);
		/* GPU0 up, rc0 out, socket memory, node 1's channels */
		n = fab_path_to_node(f, 0, 1, p);
		CU_ASSERT_EQUAL(n, 4);
		CU_ASSERT_EQUAL(p[n - 1], f->mem[1]);
		n = fab_path_from_node(f, 1, 1, p);
		CU_ASSERT_EQUAL(p[0], f->mem[1]);
		/* the socket-level paths (NCCL's SHM) keep no node link */
		CU_ASSERT_EQUAL(fab_path_to_host(f, 0, 0, p), 3);
	}
	fab_free(f);
	sim_engine_free(eng);
	scn_free(s);
}

void suite_xfer(void)
{
	CU_pSuite s = CU_add_suite("xfer", NULL, NULL);
	CU_add_test(s, "fabric paths", test_paths);
	CU_add_test(s, "ACS redirect: P2P through the root complex", test_acs_redirect);
	CU_add_test(s, "partitions of one switch chip: P2P inside the chip", test_chip_partitions);
	CU_add_test(s, "NPS: staging memory on the sender's node", test_numa_node_memory);
	CU_add_test(s, "P2P: latency then bandwidth; inter-socket bottleneck", test_p2p_time);
	CU_add_test(s, "switch ports: both directions together", test_switch_ports);
	CU_add_test(s, "bounce: floor and pipelined rate", test_bounce_floor_and_rate);
	CU_add_test(s, "P2P never slower than bounce", test_bounce_never_faster_than_p2p);
	CU_add_test(s, "more bandwidth never slower", test_more_bandwidth_never_slower);
	CU_add_test(s, "concurrent bounces share staging", test_shared_staging);
	CU_add_test(s, "p2pBandwidthLatencyTest matrices", test_p2ptest_matrices);
}
