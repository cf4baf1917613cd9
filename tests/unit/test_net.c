/*
 * test_net.c - several hosts in one scenario: the loader's numbering, each
 * host's topo view, NCCL's NET transport with and without GPUDirect RDMA,
 * and the fabric's paths and rates between hosts.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "fabric.h"
#include "fixtures.h"
#include "scn.h"
#include "topo.h"
#include "xfer.h"

void suite_net(void);

/*
 * count boxes of two RTX PRO 6000 each (boxes_new). With one NIC per box,
 * GPU0 of a box shares a switch with the box's one NIC (PIX: GPUDirect
 * RDMA) and GPU1 hangs off the other root complex (NODE to the NIC, beyond
 * NCCL's default PXB: staged); 400 Gb/s InfiniBand. With a NIC per GPU,
 * each GPU sits beside its own 100 Gb/s NIC under a switch of its own.
 */
static const char boxes[] =
	"plumb_scenario: 1\n"
	"hosts:\n"
	"  - name: box\n"
	"    count: %d\n"
	"    host: {cpu_vendor: amd, sockets: 1, cores_per_socket: 32}\n"
	"    pcie:\n"
	"      - {id: rc0, kind: root_complex, socket: 0}\n"
	"      - {id: rp0, kind: root_port, parent: rc0, gen: 5, width: 16}\n"
	"      - {id: sw0, kind: switch, parent: rp0, gen: 5, width: 16, acs: false}\n"
	"      - {id: gpu0, kind: gpu, parent: sw0, model: rtx-pro-6000}\n"
	"      - {id: nic0, kind: nic, parent: sw0, model: %s}\n"
	"      - {id: rc1, kind: root_complex, socket: 0}\n"
	"      - {id: rp1, kind: root_port, parent: rc1, gen: 5, width: 16}\n"
	"%s"
	"network: {kind: infiniband, port_gbps: %d}\n";

static struct scenario *boxes_new(int count, int nic_per_gpu)
{
	char text[sizeof(boxes) + 512];
	snprintf(text, sizeof(text), boxes, count,
		 nic_per_gpu ? "ConnectX-6, gen: 4, width: 16" : "ConnectX-7, gen: 5, width: 16",
		 nic_per_gpu ?
		 "      - {id: sw1, kind: switch, parent: rp1, gen: 5, width: 16, acs: false}\n"
		 "      - {id: gpu1, kind: gpu, parent: sw1, model: rtx-pro-6000}\n"
		 "      - {id: nic1, kind: nic, parent: sw1, model: ConnectX-6, gen: 4, width: 16}\n" :
		 "      - {id: gpu1, kind: gpu, parent: rp1, model: rtx-pro-6000}\n",
		 nic_per_gpu ? 100 : 400);
	return fix_load(text);
}

static int has_kind(const struct fabric *f, const int *p, int n, enum sim_link_kind k)
{
	int i, c = 0;
	for (i = 0; i < n; i++)
		c += sim_net_link_kind(f->net, p[i]) == k;
	return c;
}

static void test_numbering_and_views(void)
{
	struct scenario *s = boxes_new(2, 0);
	struct topo_opts o;
	struct topo_view *v = NULL;
	int nic = -1;
	char why[512];

	if (!s)
		return;
	CU_ASSERT_EQUAL(s->nhosts, 2);
	CU_ASSERT_EQUAL(s->ngpus, 4);
	CU_ASSERT_STRING_EQUAL(s->nodes[s->gpu_node[2]].id, "box1.gpu0");
	CU_ASSERT_EQUAL(s->nodes[s->gpu_node[2]].socket, 1);
	topo_opts_init(&o);
	CU_ASSERT_EQUAL(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
	if (v) {
		CU_ASSERT_EQUAL(v->xport[0][2], XP_NET);
		CU_ASSERT_EQUAL(v->p2p[0][2], P2P_NS);
		/* a NODE pair: P2P, as NCCL's level is SYS on AMD with at most two
		 * GPUs in the node (each host has two, the scenario four) */
		CU_ASSERT_EQUAL(v->xport[0][1], XP_P2P);
		/* each GPU's NIC is its own host's */
		CU_ASSERT_EQUAL(topo_gdr(v, 2, &nic, why, sizeof(why)), 1);
		CU_ASSERT(nic >= 0 && topo_ep_host(v, nic) == 1);
		CU_ASSERT_EQUAL(topo_gdr(v, 3, &nic, why, sizeof(why)), 0);
		topo_cpu_affinity(s, 1, why, sizeof(why));
		CU_ASSERT_STRING_EQUAL(why, "0-31");    /* the second host numbers its CPUs from 0 */
		topo_free(v);
	}
	CU_ASSERT_EQUAL(topo_net_gdr(s, 0, s->gpu_node[0] + 1), 1);
	CU_ASSERT_EQUAL(topo_net_gdr(s, 1, s->gpu_node[0] + 1), 0);
	scn_free(s);
}

static void test_paths_and_rates(void)
{
	struct scenario *s = boxes_new(2, 0);
	struct sim_engine *eng = NULL;
	struct fabric *f = NULL;
	int p[FAB_MAX_PATH], n;
	double t = 0, port;

	if (!s)
		return;
	/* 400 Gb/s less IB's 26 header bytes per 4096-byte packet */
	port = fab_net_bytes_per_s(s);
	CU_ASSERT(fabs(port - 50e9 * 4096.0 / 4122.0) < 1e3);
	CU_ASSERT_EQUAL(sim_engine_new(1, &eng, NULL), 0);
	CU_ASSERT_EQUAL(fab_build(eng, s, &f, NULL), 0);
	if (f) {
		CU_ASSERT_EQUAL(fab_net_ways(f, 0, 2), 1);
		/* GDR both sides: PCIe to the NIC, the network, PCIe down */
		n = fab_path_net(f, 0, 2, 0, p);
		CU_ASSERT_EQUAL(has_kind(f, p, n, SIM_LINK_NETWORK), 2);
		CU_ASSERT_EQUAL(has_kind(f, p, n, SIM_LINK_HOST_DRAM), 0);
		/* GPU1 is too far from the NIC: staged in host memory on both sides */
		n = fab_path_net(f, 1, 3, 0, p);
		CU_ASSERT_EQUAL(has_kind(f, p, n, SIM_LINK_NETWORK), 2);
		CU_ASSERT_EQUAL(has_kind(f, p, n, SIM_LINK_HOST_DRAM), 2);
		/* the direct path between hosts is that one */
		CU_ASSERT_EQUAL(fab_path_gpu(f, 0, 2, p), fab_path_net(f, 0, 2, 0, p));
		fab_free(f);
	}
	sim_engine_free(eng);
	/* a large copy between hosts runs at the port's rate */
	CU_ASSERT_EQUAL(xfer_time(s, 0, 2, 1e9, XFER_P2P, 0, &t, NULL), 0);
	if (t > 0)
		CU_ASSERT(fabs(1e9 / t / port - 1) < 0.02);
	scn_free(s);
}

/* An all-reduce of bytes over GPUs 0 to n-1, (algo, Simple). */
static void allreduce(struct coll_spec *c, int n, double bytes, int algo)
{
	fix_coll_spec(c, COLL_ALLREDUCE, n, bytes, algo, PROTO_SIMPLE);
}

static void test_allreduce_between_hosts(void)
{
	struct scenario *s = boxes_new(2, 0);
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;

	if (!s)
		return;
	topo_opts_init(&o);
	allreduce(&c, 4, 4e9, ALGO_RING);
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.net_hops, 2);
	CU_ASSERT_EQUAL(r.p2p_hops + r.shm_hops, 2);
	/* the ring's two hops between hosts each take one NIC port: busbw at
	 * most the port's rate */
	if (r.seconds > 0)
		CU_ASSERT(c.bytes / r.seconds * coll_busbw_factor(COLL_ALLREDUCE, 4) <=
			  fab_net_bytes_per_s(s) * 1.001);
	scn_free(s);
}

/*
 * Two boxes of two GPUs, each GPU beside its own 100 Gb/s NIC under one
 * switch: NIC-bound. NCCL's tree crosses each NIC at the GPU beside it and
 * puts the buffer on the network once each way, the ring about 2(n-1)/n
 * times: the tree is faster, and no faster than the NICs carry it.
 */
static void test_tree_between_hosts(void)
{
	struct scenario *s = boxes_new(2, 1);
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result ring, tree;

	if (!s)
		return;
	topo_opts_init(&o);
	allreduce(&c, 4, 1e9, ALGO_RING);
	memset(&ring, 0, sizeof(ring));
	memset(&tree, 0, sizeof(tree));
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &ring, NULL), 0);
	c.algo = ALGO_TREE;
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &tree, NULL), 0);
	CU_ASSERT_EQUAL(tree.algo, ALGO_TREE);
	/* one chain per NIC, each crossing once each way at its own GPU */
	CU_ASSERT_EQUAL(tree.net_hops, 4);
	CU_ASSERT(tree.seconds > 0 && tree.seconds < ring.seconds * 0.8);
	/* the buffer crosses once each way over the two ports */
	if (tree.seconds > 0)
		CU_ASSERT(c.bytes / tree.seconds <= 2 * fab_net_bytes_per_s(s) * 1.001);
	scn_free(s);
}

/* Sixteen one-socket boxes: 16 sockets, more than one box's worth, and a
 * ring all-reduce over all 32 GPUs crosses every host once. */
static void test_many_hosts(void)
{
	struct scenario *s;
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;

	if (!(s = boxes_new(16, 0)))
		return;
	CU_ASSERT_EQUAL(s->nhosts, 16);
	CU_ASSERT_EQUAL(s->ngpus, 32);
	CU_ASSERT_EQUAL(s->host.sockets, 16);
	CU_ASSERT_STRING_EQUAL(s->nodes[s->gpu_node[31]].id, "box15.gpu1");
	CU_ASSERT_EQUAL(s->nodes[s->gpu_node[31]].socket, 15);
	topo_opts_init(&o);
	allreduce(&c, 32, 1e8, ALGO_RING);
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(coll_time(s, &o, &c, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.net_hops, 16);
	CU_ASSERT(r.seconds > 0);
	scn_free(s);
}

void suite_net(void)
{
	CU_pSuite su = CU_add_suite("net", NULL, NULL);
	CU_add_test(su, "hosts: numbering, per-host views, GDR", test_numbering_and_views);
	CU_add_test(su, "hosts: NET paths and port rates", test_paths_and_rates);
	CU_add_test(su, "hosts: ring all-reduce across hosts", test_allreduce_between_hosts);
	CU_add_test(su, "hosts: NCCL's tree across hosts, one chain per NIC", test_tree_between_hosts);
	CU_add_test(su, "hosts: sixteen boxes, a socket each", test_many_hosts);
}
