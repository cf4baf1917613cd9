/*
 * test_scale.c - scenarios at the limits (io/scn.h): 1,024 GPUs in 128
 * boxes over InfiniBand load with their counts, copy, and give a view and a
 * fabric; an NVSwitch domain of 1,024 GPUs loads with a bond for every
 * pair; one GPU past the limit is refused where it stands. The texts are
 * written here, as tests/gen_scale.sh writes them for the command line.
 */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "fixtures.h"
#include "scn.h"
#include "engine.h"
#include "topo.h"

void suite_scale(void);

/* A growing text. */
struct text {
	char *p;
	size_t n, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int k;
	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->n + (size_t)k + 1 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		char *q;
		while (cap < t->n + (size_t)k + 1)
			cap *= 2;
		if (!(q = realloc(t->p, cap)))
			abort();
		t->p = q;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->p + t->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	t->n += (size_t)k;
}

/* hosts boxes of 8 H100 on NVSwitch, a switch and a NIC per GPU, over
 * InfiniBand (tests/gen_scale.sh cluster) */
static char *cluster(int hosts)
{
	struct text t = { NULL, 0, 0 };
	int g;
	put(&t, "plumb_scenario: 1\nname: cluster\nhosts:\n  - name: node\n    count: %d\n"
		"    host: {cpu_vendor: intel, sockets: 2, cores_per_socket: 56, threads_per_core: 2}\n"
		"    pcie:\n", hosts);
	for (g = 0; g < 8; g++)
		put(&t, "      - {id: rc%d, kind: root_complex, socket: %d}\n"
			"      - {id: rp%d, kind: root_port, parent: rc%d, gen: 5, width: 16}\n"
			"      - {id: sw%d, kind: switch, parent: rp%d, acs: false}\n"
			"      - {id: gpu%d, kind: gpu, parent: sw%d, model: h100-sxm}\n"
			"      - {id: nic%d, kind: nic, parent: sw%d, model: ConnectX-7}\n",
		    g, g / 4, g, g, g, g, g, g, g, g);
	put(&t, "    nvlink: {nvswitch: true}\nnetwork: {kind: infiniband, port_gbps: 400}\n");
	return t.p;
}

/* one box of n GPUs, 8 a PCIe switch; an NVSwitch domain of them all when
 * nvswitch (tests/gen_scale.sh nvswitch, flat) */
static char *one_box(int n, int nvswitch)
{
	struct text t = { NULL, 0, 0 };
	int g, r;
	put(&t, "plumb_scenario: 1\nname: box\nhost: {sockets: 2}\npcie:\n");
	for (g = 0, r = 0; g < n; r++) {
		put(&t, "  - {id: rc%d, kind: root_complex, socket: %d}\n"
			"  - {id: rp%d, kind: root_port, parent: rc%d}\n"
			"  - {id: sw%d, kind: switch, parent: rp%d}\n", r, r % 2, r, r, r, r);
		for (; g < n && g < 8 * (r + 1); g++)
			put(&t, "  - {id: gpu%d, kind: gpu, parent: sw%d, model: %s}\n", g, r,
			    nvswitch ? "b200" : "rtx-pro-6000");
	}
	if (nvswitch)
		put(&t, "nvlink: {nvswitch: true}\n");
	return t.p;
}

static struct scenario *load(const char *name, const char *text)
{
	struct scenario *s = NULL;
	struct plumb_err e;
	plumb_err_clear(&e);
	if (scn_parse(name, text, &s, &e) < 0)
		printf("\n  %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
	CU_ASSERT_PTR_NOT_NULL(s);
	return s;
}

static void test_cluster(void)
{
	char *text = cluster(128);
	struct scenario *s = load("cluster.yaml", text), *c = NULL;
	int i;

	free(text);
	if (!s)
		return;
	EXPECT_INT(s->nhosts, SCN_MAX_HOSTS);
	EXPECT_INT(s->ngpus, SCN_MAX_GPUS);
	EXPECT_INT(s->nnodes, 128 * 40);
	EXPECT_INT(s->nnvlink, 128 * 28);
	EXPECT_INT(s->host.sockets, 256);
	EXPECT_INT(s->hosts[127].first_gpu, 1016);
	EXPECT_INT(s->hosts[127].first_socket, 254);
	EXPECT_INT(s->hosts[127].nnics, 8);
	CU_ASSERT_STRING_EQUAL(s->nodes[s->gpu_node[1023]].id, "node127.gpu7");
	EXPECT_INT(s->nodes[s->gpu_node[1023]].host, 127);
	EXPECT_INT(s->nodes[s->gpu_node[1023]].socket, 255);
	for (i = 0; i < s->nnvlink; i++)
		CU_ASSERT(s->nvlink[i].a / 8 == s->nvlink[i].b / 8);
	/* a copy owns tables of the same content */
	EXPECT_INT(scn_dup(s, &c, NULL), 0);
	if (c) {
		CU_ASSERT(c->nodes != s->nodes && c->gpu_node != s->gpu_node);
		CU_ASSERT(scn_same_tables(s, c));
		c->nodes[0].gen = 1;
		CU_ASSERT(!scn_same_tables(s, c));
		scn_free(c);
	}
	{
		struct topo_opts o;
		struct topo_view *v = NULL;
		topo_opts_init(&o);
		EXPECT_INT(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
		if (v) {
			EXPECT_INT(v->ngpu, 1024);
			EXPECT_INT(v->nep, 2048);
			EXPECT_INT(v->cls[1016][1023], TC_NV);
			EXPECT_INT(v->cls[0][8], TC_SYS);
			EXPECT_INT(v->cls[1016][1024 + 127 * 8], TC_PIX);  /* GPU and NIC on one switch */
			EXPECT_INT(v->xport[0][1023], XP_NET);
			EXPECT_INT(v->p2p[1016][1017], P2P_OK);
			EXPECT_INT(topo_ep_host(v, 2047), 127);
			topo_free(v);
		}
	}
	{
		struct sim_engine *eng = NULL;
		struct fabric *f = NULL;
		int path[FAB_MAX_PATH], n;
		EXPECT_INT(sim_engine_new(1, &eng, NULL), 0);
		EXPECT_INT(fab_build(eng, s, &f, NULL), 0);
		if (f) {
			CU_ASSERT(f->nvl_up[1023] >= 0 && f->nvl_down[0] >= 0);
			EXPECT_INT(fab_nvp(f, 0, 1), -1);      /* NVSwitch, not point to point */
			CU_ASSERT(fab_xs(f, 254, 255) >= 0);   /* the sockets of one box */
			EXPECT_INT(fab_xs(f, 1, 2), -1);       /* two boxes: the network */
			/* GPU0 to GPU1000 (node125's first): through the first
			 * NIC of each box, the GPU's own */
			n = fab_path_gpu(f, 0, 1000, path);
			for (i = 0; i < n - 1 && path[i] != f->net_up[4]; i++)
				;
			CU_ASSERT(i < n - 1 && path[i + 1] == f->net_down[125 * 40 + 4]);
			n = fab_path_gpu(f, 1016, 1017, path);
			EXPECT_INT(n, 2);
			CU_ASSERT(n == 2 && path[0] == f->nvl_up[1016] && path[1] == f->nvl_down[1017]);
			fab_free(f);
		}
		sim_engine_free(eng);
	}
	scn_free(s);
}

static void test_nvswitch_domain(void)
{
	char *text = one_box(SCN_MAX_GPUS, 1);
	struct scenario *s = load("nvswitch.yaml", text);
	free(text);
	if (!s)
		return;
	EXPECT_INT(s->ngpus, SCN_MAX_GPUS);
	EXPECT_INT(s->nnvlink, SCN_MAX_GPUS * (SCN_MAX_GPUS - 1) / 2);
	EXPECT_INT(s->nvlink[s->nnvlink - 1].a, SCN_MAX_GPUS - 2);
	EXPECT_INT(s->nvlink[s->nnvlink - 1].b, SCN_MAX_GPUS - 1);
	scn_free(s);
}

static void test_point_to_point(void)
{
	static const char text[] =
		"plumb_scenario: 1\nhost: {sockets: 1}\npcie:\n"
		"  - {id: rc0, kind: root_complex, socket: 0}\n"
		"  - {id: rp0, kind: root_port, parent: rc0}\n"
		"  - {id: sw0, kind: switch, parent: rp0}\n"
		"  - {id: g0, kind: gpu, parent: sw0, model: a40}\n"
		"  - {id: g1, kind: gpu, parent: sw0, model: a40}\n"
		"  - {id: g2, kind: gpu, parent: sw0, model: a40}\n"
		"  - {id: g3, kind: gpu, parent: sw0, model: a40}\n"
		"nvlink:\n  pairs:\n    - {gpus: [g0, g1], links: 4}\n    - {gpus: [g3, g1]}\n";
	struct scenario *s = load("pairs.yaml", text);
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	if (!s)
		return;
	EXPECT_INT(sim_engine_new(1, &eng, NULL), 0);
	EXPECT_INT(fab_build(eng, s, &f, NULL), 0);
	if (f) {
		int ab = fab_nvp(f, 0, 1), ba = fab_nvp(f, 1, 0), db = fab_nvp(f, 3, 1);
		CU_ASSERT(ab >= 0 && ba >= 0 && db >= 0 && ab != ba && ba != db);
		CU_ASSERT(fab_nvp(f, 1, 3) >= 0 && fab_nvp(f, 1, 3) != db);
		EXPECT_INT(fab_nvp(f, 0, 2), -1);
		EXPECT_INT(fab_nvp(f, 2, 3), -1);
		fab_free(f);
	}
	sim_engine_free(eng);
	scn_free(s);
}

static void test_past_the_limit(void)
{
	char *text = one_box(SCN_MAX_GPUS + 1, 0), *at;
	struct scenario *s = NULL;
	struct plumb_err e;
	int line = 1;
	const char *p;

	plumb_err_clear(&e);
	EXPECT_INT(scn_parse("flat.yaml", text, &s, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(s);
	at = strstr(text, "  - {id: gpu1024,");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	for (p = text; p < at; p++)
		line += *p == '\n';
	EXPECT_INT(e.line, line);
	EXPECT_INT(e.col, 5);
	CU_ASSERT_STRING_EQUAL(e.msg, "more than 1024 GPUs");
	free(text);
}

/*
 * The host view fills the pairs of different hosts without a tree walk
 * (topo.c fill_classes): every cell must hold what the walks give, the
 * class topo_pair_class finds, the ACS redirect topo_acs_redirect finds,
 * and the P2P status and transport of two boxes (NS, NET).
 */
static void expect_walk(const struct scenario *s, int acs)
{
	struct topo_opts o;
	struct topo_view *v = NULL;
	int i, j, bad = 0;

	topo_opts_init(&o);
	o.acs_override = acs;
	EXPECT_INT(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
	if (!v)
		return;
	for (i = 0; i < v->nep; i++)
		for (j = 0; j < v->nep; j++) {
			int dt = 0, via, cross = topo_ep_host(v, i) != topo_ep_host(v, j);
			bad += v->cls[i][j] != (unsigned char)topo_pair_class(v, i, j);
			if (i >= v->ngpu || j >= v->ngpu || i == j || v->nvl[i][j])
				continue;
			via = topo_acs_redirect(s, acs, s->gpu_node[i], s->gpu_node[j], &dt);
			bad += v->acs_via[i][j] != via || v->acs_dt[i][j] != dt;
			if (cross)
				bad += v->p2p[i][j] != P2P_NS || v->xport[i][j] != XP_NET;
		}
	EXPECT_INT(bad, 0);
	topo_free(v);
}

static void test_cross_host_fill(void)
{
	static const char *const paths[] = { "scenarios/2x-hgx-8x-h100-ib.yaml",
					     "tests/data/multihost/two-h200.yaml" };
	static const int hosts[] = { 2, 16 };
	size_t k;
	int acs;

	for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		struct scenario *s = NULL;
		EXPECT_INT(scn_load(paths[k], &s, NULL), 0);
		for (acs = -1; s && acs <= 1; acs++)
			expect_walk(s, acs);
		scn_free(s);
	}
	for (k = 0; k < sizeof(hosts) / sizeof(hosts[0]); k++) {
		char *text = cluster(hosts[k]);
		struct scenario *s = load("cluster.yaml", text);
		free(text);
		for (acs = -1; s && acs <= 1; acs++)
			expect_walk(s, acs);
		scn_free(s);
	}
}

void suite_scale(void)
{
	CU_pSuite s = CU_add_suite("scale", NULL, NULL);
	CU_add_test(s, "1,024 GPUs in 128 boxes: counts, copy, view, fabric", test_cluster);
	CU_add_test(s, "an NVSwitch domain of 1,024 GPUs", test_nvswitch_domain);
	CU_add_test(s, "point-to-point NVLink: each GPU's bonds", test_point_to_point);
	CU_add_test(s, "one GPU past the limit", test_past_the_limit);
	CU_add_test(s, "pairs of two hosts: the fast fill is the walk", test_cross_host_fill);
}
