/*
 * test_rccl.c - AMD boxes: the xGMI mesh a scenario's `xgmi:` builds, how
 * views name it, and RCCL's rings over every link of the mesh.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "coll_int.h"
#include "fixtures.h"
#include "scn.h"
#include "topo.h"

void suite_rccl(void);

/* Eight GPUs of model, one per root complex, four per socket, then extra. */
static void box_text(char *text, size_t size, const char *model, const char *extra)
{
	int n = 0, i;
	n += snprintf(text + n, size - (size_t)n,
		      "plumb_scenario: 1\n"
		      "host: {cpu_vendor: amd, sockets: 2, inter_socket: {kind: xgmi}}\n"
		      "pcie:\n");
	for (i = 0; i < 8; i++)
		n += snprintf(text + n, size - (size_t)n,
			      "  - {id: rc%d, kind: root_complex, socket: %d}\n"
			      "  - {id: r%d, kind: root_port, parent: rc%d, gen: 5, width: 16}\n"
			      "  - {id: g%d, kind: gpu, parent: r%d, model: %s}\n",
			      i, i / 4, i, i, i, i, model);
	snprintf(text + n, size - (size_t)n, "%s", extra);
}

static struct scenario *mi300x_box(const char *model, const char *extra)
{
	char text[4096];
	box_text(text, sizeof(text), model, extra);
	return fix_load(text);
}

/* Load the box expecting an error whose message holds want. */
static void expect_error(const char *model, const char *extra, const char *want)
{
	char text[4096];
	struct scenario *s = NULL;
	struct plumb_err e;
	box_text(text, sizeof(text), model, extra);
	plumb_err_clear(&e);
	CU_ASSERT(scn_parse("inline.yaml", text, &s, &e) < 0);
	CU_ASSERT_PTR_NULL(s);
	if (!strstr(e.msg, want))
		printf("\n  error '%s', expected it to hold '%s'\n", e.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, want));
	CU_ASSERT(e.line > 0);
	scn_free(s);
}

/* Every ring visits every rank once; no arc is in two rings. */
static void test_mesh_rings(void)
{
	int n, succ[(COLL_MESH_MAX - 1) * COLL_MESH_MAX];
	for (n = 2; n <= COLL_MESH_MAX; n++) {
		unsigned char arc[COLL_MESH_MAX * COLL_MESH_MAX];
		int nr = coll_mesh_rings(n, succ), t, want;
		want = n == 2 ? 1 : n == 4 || n == 6 ? n - 2 : n - 1;
		EXPECT_INT(nr, want);
		memset(arc, 0, sizeof(arc));
		for (t = 0; t < nr; t++) {
			int at = 0, steps = 0;
			unsigned seen = 0;
			do {
				int nx = succ[t * n + at];
				CU_ASSERT(nx >= 0 && nx < n && nx != at);
				if (nx < 0 || nx >= n)
					break;
				if (n > 2) {
					CU_ASSERT_EQUAL(arc[at * n + nx], 0);
				}
				arc[at * n + nx] = 1;
				seen |= 1u << at;
				at = nx;
				steps++;
			} while (at != 0 && steps <= n);
			EXPECT_INT(steps, n);
			EXPECT_INT(seen, (1u << n) - 1);
		}
	}
}

static double allreduce_busbw(const struct scenario *s, int n, double bytes, int proto)
{
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;
	topo_opts_init(&o);
	memset(&c, 0, sizeof(c));
	c.op = COLL_ALLREDUCE;
	c.n = n;
	c.gpus = fix_ranks;
	c.bytes = bytes;
	c.algo = ALGO_RING;
	c.proto = proto;
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
	return bytes / r.seconds * coll_busbw_factor(COLL_ALLREDUCE, n) / 1e9;
}

/* A full mesh: RCCL's rings drive every link, seven per GPU; the same
 * GPUs bonded only as a ring drive one. */
static void test_mesh_bandwidth(void)
{
	struct scenario *mesh = mi300x_box("mi300x", "xgmi: {mesh: true}\n");
	struct scenario *ring = mi300x_box("mi300x",
		"xgmi:\n  pairs:\n"
		"    - {gpus: [g0, g1]}\n    - {gpus: [g1, g2]}\n    - {gpus: [g2, g3]}\n"
		"    - {gpus: [g3, g4]}\n    - {gpus: [g4, g5]}\n    - {gpus: [g5, g6]}\n"
		"    - {gpus: [g6, g7]}\n    - {gpus: [g0, g7]}\n");
	double link, bw_mesh, bw_ring, bw4;
	if (!mesh || !ring)
		goto out;
	EXPECT_INT(mesh->nnvlink, 28);
	CU_ASSERT_EQUAL(mesh->xgmi, 1);
	link = mesh->catalog->gpus[mesh->nodes[mesh->gpu_node[0]].gpu_model].xgmi_gbs_per_link;
	CU_ASSERT(link > 0);
	bw_mesh = allreduce_busbw(mesh, 8, 1 << 30, PROTO_SIMPLE);
	bw_ring = allreduce_busbw(ring, 8, 1 << 30, PROTO_SIMPLE);
	if (fabs(bw_mesh - 7 * link * mesh->k.v[K_NCCL_BW_EFF]) > 0.03 * bw_mesh)
		printf("\n  mesh busbw %.2f, expected 7 x %.1f x %.3f\n", bw_mesh, link,
		       mesh->k.v[K_NCCL_BW_EFF]);
	CU_ASSERT(fabs(bw_mesh - 7 * link * mesh->k.v[K_NCCL_BW_EFF]) <= 0.03 * bw_mesh);
	CU_ASSERT(fabs(bw_ring - link * ring->k.v[K_NCCL_BW_EFF]) <= 0.03 * bw_ring);
	/* four ranks of the mesh: two rings (K*_4 has no three) */
	bw4 = allreduce_busbw(mesh, 4, 1 << 30, PROTO_SIMPLE);
	CU_ASSERT(fabs(bw4 - 2 * link * mesh->k.v[K_NCCL_BW_EFF]) <= 0.03 * bw4);
out:
	scn_free(mesh);
	scn_free(ring);
}

/* RCCL's MSCCL allpairs: 8 ranks of the mesh from 1 KiB (a float count
 * that is a multiple of 256) to 16 MiB, LL below 512 KiB; the ring below
 * 1 KiB, above 16 MiB and on fewer ranks; no LL128 on gfx942. */
static void test_msccl(void)
{
	struct scenario *s = mi300x_box("mi300x", "xgmi: {mesh: true}\n");
	static const double sizes[] = { 512, 1024, 65536, 524288, 16777216, 33554432 };
	static const int algo[] = { ALGO_RING, ALGO_TWOSHOT, ALGO_TWOSHOT, ALGO_TWOSHOT,
				    ALGO_TWOSHOT, ALGO_RING };
	static const int proto[] = { -1, PROTO_LL, PROTO_LL, PROTO_SIMPLE, PROTO_SIMPLE, -1 };
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;
	size_t i;
	if (!s)
		return;
	topo_opts_init(&o);
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		memset(&c, 0, sizeof(c));
		c.op = COLL_ALLREDUCE;
		c.n = 8;
		c.gpus = fix_ranks;
		c.bytes = sizes[i];
		c.algo = ALGO_AUTO;
		c.proto = PROTO_AUTO;
		CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
		EXPECT_INT(r.algo, algo[i]);
		if (proto[i] >= 0)
			EXPECT_INT(r.proto, proto[i]);
		CU_ASSERT(r.proto != PROTO_LL128);
	}
	/* the allpairs' two exchanges beat the ring's 14 steps at 4 KiB */
	c.n = 8;
	c.bytes = 4096;
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
	{
		struct coll_result ring;
		c.algo = ALGO_RING;
		CU_ASSERT_EQUAL(coll_time(s, &o, &c, &ring, NULL), 0);
		CU_ASSERT(r.seconds < ring.seconds);
	}
	/* four ranks: no allpairs file */
	c.n = 4;
	c.algo = ALGO_AUTO;
	c.bytes = 4096;
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
	EXPECT_INT(r.algo, ALGO_RING);
	scn_free(s);
}

/* amd-smi topology names an xGMI pair XGMI. */
static void test_views(void)
{
	struct scenario *s = mi300x_box("mi300x", "xgmi: {mesh: true}\n");
	struct topo_view *v = NULL;
	struct topo_opts o;
	char buf[8];
	if (!s)
		return;
	topo_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
	CU_ASSERT_STRING_EQUAL(topo_class_str(v, 0, 5, buf), "XGMI");
	CU_ASSERT_EQUAL(v->xport[0][5], XP_P2P);
	topo_free(v);
	scn_free(s);
}

static void test_errors(void)
{
	expect_error("rtx-pro-6000", "xgmi: {mesh: true}\n", "has no xGMI links");
	expect_error("mi300x", "xgmi: {mesh: true, links_per_pair: 2}\n",
		     "has 7 xGMI links, the bonds give it 14");
	expect_error("mi300x", "xgmi: {gpus: [g0, g1]}\n", "need 'mesh: true'");
	expect_error("mi300x", "nvlink: {pairs: [{gpus: [g0, g1]}]}\nxgmi: {mesh: true}\n",
		     "not both");
	expect_error("mi300x", "xgmi: {mesh: true, pairs: [{gpus: [g0, g1]}]}\n",
		     "xGMI between GPU0 and GPU1 is given twice");
}

void suite_rccl(void)
{
	CU_pSuite s = CU_add_suite("rccl", NULL, NULL);
	CU_add_test(s, "mesh rings: Hamiltonian, arc-disjoint, n-1 of them", test_mesh_rings);
	CU_add_test(s, "an xGMI mesh: RCCL's rings on every link", test_mesh_bandwidth);
	CU_add_test(s, "RCCL's MSCCL allpairs all-reduce where its files take the size", test_msccl);
	CU_add_test(s, "views name xGMI as AMD's tools do", test_views);
	CU_add_test(s, "xgmi: refusals at the user's line", test_errors);
}
