/*
 * test_topo.c - topology classes, P2P status, IOMMU groups, NCCL transport
 * and the BAR placement model, on small scenarios written inline.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "bar.h"
#include "fixtures.h"
#include "scn.h"
#include "topo.h"

void suite_topo(void);
void suite_bar(void);

static const char seed_vm[] =
	"plumb_scenario: 1\nname: t\n"
	"host: {cpu_vendor: amd, sockets: 2, cores_per_socket: 4}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0, gen: 5, width: 16}\n"
	"  - {id: gpu0, kind: gpu, parent: rp0, model: rtx-pro-6000}\n"
	"  - {id: rc1, kind: root_complex, socket: 0}\n"
	"  - {id: rp1, kind: root_port, parent: rc1, gen: 5, width: 16}\n"
	"  - {id: gpu1, kind: gpu, parent: rp1, model: rtx-pro-6000}\n"
	"  - {id: rc2, kind: root_complex, socket: 1}\n"
	"  - {id: rp2, kind: root_port, parent: rc2, gen: 5, width: 16}\n"
	"  - {id: gpu2, kind: gpu, parent: rp2, model: rtx-pro-6000}\n"
	"virtualization: {mode: vm, chipset: q35, pcie_passthrough: true,\n"
	"  firmware: seabios, guest_ram: 432G, mmio64_window: 1.5T, guest_phys_bits: 40}\n";

static struct topo_view *view(const struct scenario *s, enum topo_side side, int acs, int level)
{
	struct topo_opts o;
	struct topo_view *v = NULL;
	topo_opts_init(&o);
	o.acs_override = acs;
	o.nccl_p2p_level = level;
	CU_ASSERT_EQUAL(topo_build(s, side, &o, &v, NULL), 0);
	return v;
}

static void test_seed_vm_classes(void)
{
	struct scenario *s = fix_load(seed_vm);
	struct topo_view *h, *g;
	char buf[8], why[512];
	if (!s)
		return;
	h = view(s, TOPO_HOST, -1, -1);
	g = view(s, TOPO_GUEST, -1, -1);
	EXPECT_STR(topo_class_str(h, 0, 1, buf), "NODE");
	EXPECT_STR(topo_class_str(h, 0, 2, buf), "SYS");
	EXPECT_STR(topo_class_str(h, 1, 1, buf), "X");
	EXPECT_STR(topo_class_str(g, 0, 1, buf), "PHB");
	EXPECT_STR(topo_class_str(g, 0, 2, buf), "PHB");
	EXPECT_INT(g->ep[0].numa, -1);
	EXPECT_INT(h->ep[2].numa, 1);
	EXPECT_INT(h->p2p[0][1], P2P_OK);
	EXPECT_INT(g->p2p[0][1], P2P_NS);
	topo_p2p_reason(g, 0, 1, why, sizeof(why));
	EXPECT_STR(why, "each GPU is alone on its root complex and the VM exposes no P2P: "
		   "transfers bounce through host memory");
	/* Guest BDFs follow hostpci order. */
	EXPECT_STR(g->ep[1].bdf, "0000:02:00.0");
	topo_free(h);
	topo_free(g);
	scn_free(s);
}

static void test_nccl_transport(void)
{
	struct scenario *s = fix_load(seed_vm);
	struct topo_view *h, *hs, *g;
	if (!s)
		return;
	/* Default PXB (AMD with more than two GPUs): NODE/SYS pairs use SHM. */
	h = view(s, TOPO_HOST, -1, -1);
	EXPECT_INT(h->nccl_level, NP_PXB);
	EXPECT_INT(h->xport[0][1], XP_SHM);
	hs = view(s, TOPO_HOST, -1, NP_SYS);
	EXPECT_INT(hs->xport[0][1], XP_P2P);
	EXPECT_INT(hs->xport[0][2], XP_P2P);
	/* In the guest P2P is NS: no level makes NCCL use P2P. */
	g = view(s, TOPO_GUEST, -1, NP_SYS);
	EXPECT_INT(g->xport[0][1], XP_SHM);
	EXPECT_INT(topo_nccl_path_parse("PHB"), NP_PHB);
	EXPECT_INT(topo_nccl_path_parse("2"), NP_PXB);
	EXPECT_INT(topo_nccl_path_parse("NODE"), -1);
	topo_free(h);
	topo_free(hs);
	topo_free(g);
	scn_free(s);
}

static const char switches[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: intel, sockets: 2}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0}\n"
	"  - {id: top, kind: switch, parent: rp0}\n"
	"  - {id: leaf0, kind: switch, parent: top, acs: false}\n"
	"  - {id: gpu0, kind: gpu, parent: leaf0, model: l40s}\n"
	"  - {id: gpu1, kind: gpu, parent: leaf0, model: l40s}\n"
	"  - {id: gpu2, kind: gpu, parent: top, model: l40s}\n"
	"  - {id: rp1, kind: root_port, parent: rc0}\n"
	"  - {id: gpu3, kind: gpu, parent: rp1, model: l40s}\n"
	"  - {id: rc1, kind: root_complex, socket: 1}\n"
	"  - {id: rp2, kind: root_port, parent: rc1}\n"
	"  - {id: gpu4, kind: gpu, parent: rp2, model: l40s}\n"
	"  - {id: rp3, kind: root_port, parent: rc1}\n"
	"  - {id: nic0, kind: nic, parent: rp3, model: ConnectX-7}\n";

static void test_switch_classes_and_groups(void)
{
	struct scenario *s = fix_load(switches);
	struct topo_view *h, *off, *on;
	char buf[8];
	if (!s)
		return;
	h = view(s, TOPO_HOST, -1, -1);
	EXPECT_STR(topo_class_str(h, 0, 1, buf), "PIX");
	EXPECT_STR(topo_class_str(h, 0, 2, buf), "PXB");
	EXPECT_STR(topo_class_str(h, 0, 3, buf), "PHB");
	EXPECT_STR(topo_class_str(h, 0, 4, buf), "SYS");
	EXPECT_INT(h->nep, 6);
	EXPECT_STR(h->ep[5].label, "NIC0");
	EXPECT_STR(topo_class_str(h, 4, 5, buf), "PHB");
	/* Intel across sockets: TNS by default. */
	EXPECT_INT(h->p2p[0][4], P2P_TNS);
	EXPECT_INT(h->p2p[0][2], P2P_OK);
	/* leaf0 has no ACS: gpu0 and gpu1 share a group, the rest are alone. */
	EXPECT_INT(h->group[0], h->group[1]);
	CU_ASSERT_NOT_EQUAL(h->group[0], h->group[2]);
	EXPECT_INT(h->ngroups, 5);
	off = view(s, TOPO_HOST, 0, -1);
	/* ACS off: everything below rp0 merges; gpu3 alone on rp1 does not. */
	EXPECT_INT(off->group[0], off->group[2]);
	CU_ASSERT_NOT_EQUAL(off->group[0], off->group[3]);
	CU_ASSERT_NOT_EQUAL(off->group[0], off->group[4]);
	EXPECT_INT(off->ngroups, 4);
	on = view(s, TOPO_HOST, 1, -1);
	EXPECT_INT(on->ngroups, 6);
	topo_free(h);
	topo_free(off);
	topo_free(on);
	scn_free(s);
}

static void test_seed_acs_merges_nothing(void)
{
	struct scenario *s = fix_load(seed_vm);
	struct topo_view *on, *off;
	if (!s)
		return;
	on = view(s, TOPO_HOST, 1, -1);
	off = view(s, TOPO_HOST, 0, -1);
	EXPECT_INT(on->ngroups, 3);
	EXPECT_INT(off->ngroups, 3);
	topo_free(on);
	topo_free(off);
	scn_free(s);
}

static void test_nvlink_and_gns(void)
{
	struct scenario *s = fix_load(
		"plumb_scenario: 1\n"
		"host: {cpu_vendor: amd}\n"
		"pcie:\n"
		"  - {id: rc0, kind: root_complex, socket: 0}\n"
		"  - {id: rp0, kind: root_port, parent: rc0}\n"
		"  - {id: gpu0, kind: gpu, parent: rp0, model: rtx-5090}\n"
		"  - {id: rp1, kind: root_port, parent: rc0}\n"
		"  - {id: gpu1, kind: gpu, parent: rp1, model: rtx-5090}\n");
	struct scenario *n = fix_load(
		"plumb_scenario: 1\n"
		"pcie:\n"
		"  - {id: rc0, kind: root_complex, socket: 0}\n"
		"  - {id: rp0, kind: root_port, parent: rc0}\n"
		"  - {id: sw, kind: switch, parent: rp0}\n"
		"  - {id: gpu0, kind: gpu, parent: sw, model: h100-sxm}\n"
		"  - {id: gpu1, kind: gpu, parent: sw, model: h100-sxm}\n"
		"  - {id: gpu2, kind: gpu, parent: sw, model: h100-sxm}\n"
		"nvlink: {pairs: [{gpus: [gpu0, gpu1], links: 4}]}\n");
	struct topo_view *v, *w;
	char buf[8];
	if (!s || !n)
		return;
	v = view(s, TOPO_HOST, -1, -1);
	EXPECT_STR(topo_class_str(v, 0, 1, buf), "PHB");
	EXPECT_INT(v->p2p[0][1], P2P_GNS);
	/* AMD with two GPUs: NCCL's level is SYS, but GNS forces SHM. */
	EXPECT_INT(v->nccl_level, NP_SYS);
	EXPECT_INT(v->xport[0][1], XP_SHM);
	w = view(n, TOPO_HOST, -1, -1);
	EXPECT_STR(topo_class_str(w, 0, 1, buf), "NV4");
	EXPECT_STR(topo_class_str(w, 0, 2, buf), "PIX");
	EXPECT_INT(w->xport[0][1], XP_P2P);
	EXPECT_INT(w->xport[0][2], XP_P2P);
	topo_free(v);
	topo_free(w);
	scn_free(s);
	scn_free(n);
}

static void test_i440fx_guest(void)
{
	char text[2048];
	struct scenario *s;
	struct topo_view *g;
	char buf[8], why[512];
	snprintf(text, sizeof(text), "%s", seed_vm);
	/* Replace the virtualization block with an i440fx one. */
	*strstr(text, "virtualization:") = '\0';
	strcat(text, "virtualization: {mode: vm, chipset: i440fx}\n");
	s = fix_load(text);
	if (!s)
		return;
	g = view(s, TOPO_GUEST, -1, -1);
	EXPECT_STR(topo_class_str(g, 0, 1, buf), "PHB");
	EXPECT_INT(g->p2p[0][1], P2P_NS);
	topo_p2p_reason(g, 0, 1, why, sizeof(why));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "flat PCI bus"));
	topo_free(g);
	scn_free(s);
}

static void test_guest_numa_and_clique(void)
{
	char text[2048];
	struct scenario *s;
	struct topo_view *g;
	char buf[8];
	snprintf(text, sizeof(text), "%s", seed_vm);
	*strstr(text, "virtualization:") = '\0';
	strcat(text, "virtualization: {mode: vm, chipset: q35, pcie_passthrough: true,\n"
		     "  guest_numa: host, p2p_exposure: clique}\n");
	s = fix_load(text);
	if (!s)
		return;
	g = view(s, TOPO_GUEST, -1, -1);
	/* pxb-pcie per NUMA node: one host bridge per node. */
	EXPECT_STR(topo_class_str(g, 0, 1, buf), "PHB");
	EXPECT_STR(topo_class_str(g, 0, 2, buf), "SYS");
	EXPECT_INT(g->ep[2].numa, 1);
	/* Clique exposed and the host allows P2P: OK inside the guest. */
	EXPECT_INT(g->p2p[0][1], P2P_OK);
	topo_free(g);
	scn_free(s);
}

static const char seed8_vm[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: amd, sockets: 2}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: r0, kind: root_port, parent: rc0}\n"
	"  - {id: g0, kind: gpu, parent: r0, model: rtx-pro-6000}\n"
	"  - {id: rc1, kind: root_complex, socket: 0}\n"
	"  - {id: r1, kind: root_port, parent: rc1}\n"
	"  - {id: g1, kind: gpu, parent: r1, model: rtx-pro-6000}\n"
	"  - {id: rc2, kind: root_complex, socket: 0}\n"
	"  - {id: r2, kind: root_port, parent: rc2}\n"
	"  - {id: g2, kind: gpu, parent: r2, model: rtx-pro-6000}\n"
	"  - {id: rc3, kind: root_complex, socket: 0}\n"
	"  - {id: r3, kind: root_port, parent: rc3}\n"
	"  - {id: g3, kind: gpu, parent: r3, model: rtx-pro-6000}\n"
	"  - {id: rc4, kind: root_complex, socket: 1}\n"
	"  - {id: r4, kind: root_port, parent: rc4}\n"
	"  - {id: g4, kind: gpu, parent: r4, model: rtx-pro-6000}\n"
	"  - {id: rc5, kind: root_complex, socket: 1}\n"
	"  - {id: r5, kind: root_port, parent: rc5}\n"
	"  - {id: g5, kind: gpu, parent: r5, model: rtx-pro-6000}\n"
	"  - {id: rc6, kind: root_complex, socket: 1}\n"
	"  - {id: r6, kind: root_port, parent: rc6}\n"
	"  - {id: g6, kind: gpu, parent: r6, model: rtx-pro-6000}\n"
	"  - {id: rc7, kind: root_complex, socket: 1}\n"
	"  - {id: r7, kind: root_port, parent: rc7}\n"
	"  - {id: g7, kind: gpu, parent: r7, model: rtx-pro-6000}\n"
	"virtualization: {mode: vm, chipset: q35, pcie_passthrough: true, firmware: %s,\n"
	"  guest_ram: 432G, mmio64_window: %s, guest_phys_bits: %d}\n";

static struct scenario *seed8(const char *fw, const char *win, int bits)
{
	char text[4096];
	snprintf(text, sizeof(text), seed8_vm, fw, win, bits);
	return fix_load(text);
}

static void test_bar_seed_story(void)
{
	struct scenario *s = seed8("seabios", "1.5T", 40);
	struct bar_result r;
	int i, noassign = 0, realloc_hint = 0;
	if (!s)
		return;
	EXPECT_INT(bar_fit(s, 0, &r, NULL), 0);
	EXPECT_INT(r.ok_gpus, 2);
	EXPECT_INT(r.ngpus, 8);
	for (i = 0; i < r.nmsg; i++) {
		noassign += strstr(r.msg[i], "BAR 2 [mem size 0x2000000000 64bit pref]: can't assign; no space") != NULL;
		realloc_hint += strstr(r.msg[i], "try booting with pci=realloc") != NULL;
	}
	EXPECT_INT(noassign, 6);
	EXPECT_INT(realloc_hint, 1);
	EXPECT_INT(bar_fit(s, 1, &r, NULL), 0);
	EXPECT_INT(r.ok_gpus, 8);
	EXPECT_INT(r.nmsg, 0);
	EXPECT_INT(r.need64 >> 30, 1024);
	scn_free(s);
}

static void test_bar_phys_bits_and_window(void)
{
	struct scenario *s;
	struct bar_result r;
	/* host-phys-bits (46 bits) lets SeaBIOS place all eight windows. */
	s = seed8("seabios", "1.5T", 46);
	if (s) {
		bar_fit(s, 0, &r, NULL);
		EXPECT_INT(r.ok_gpus, 8);
		scn_free(s);
	}
	/* A 512 GiB window starting at 434 GiB holds three 128 GiB BARs, aligned. */
	s = seed8("seabios", "512G", 40);
	if (s) {
		bar_fit(s, 1, &r, NULL);
		EXPECT_INT(r.ok_gpus, 3);
		scn_free(s);
	}
	/* OVMF uses its window (32 GiB default in QEMU): no 128 GiB BAR fits. */
	s = seed8("ovmf", "32G", 46);
	if (s) {
		bar_fit(s, 0, &r, NULL);
		EXPECT_INT(r.ok_gpus, 0);
		scn_free(s);
	}
}

static void test_bar_monotonic(void)
{
	/* A larger window never fits fewer GPUs. */
	static const char *const wins[] = { "64G", "256G", "512G", "1T", "1.5T", "2T", "4T" };
	int last = -1;
	size_t i;
	for (i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
		struct scenario *s = seed8("ovmf", wins[i], 52);
		struct bar_result r;
		if (!s)
			return;
		bar_fit(s, 0, &r, NULL);
		CU_ASSERT(r.ok_gpus >= last);
		last = r.ok_gpus;
		scn_free(s);
	}
	EXPECT_INT(last, 8);
}

static void test_bar_bare_metal(void)
{
	struct scenario *s = fix_load(switches);
	struct bar_result r;
	struct plumb_err e;
	if (!s)
		return;
	plumb_err_clear(&e);
	CU_ASSERT(bar_fit(s, 0, &r, &e) < 0);
	EXPECT_INT(e.code, PLUMB_EUSAGE);
	scn_free(s);
}

static void test_cpu_affinity(void)
{
	struct scenario *s = fix_load(seed_vm);
	char buf[64];
	if (!s)
		return;
	topo_cpu_affinity(s, 1, buf, sizeof(buf));
	EXPECT_STR(buf, "4-7");
	topo_cpu_affinity(s, 5, buf, sizeof(buf));
	EXPECT_STR(buf, "N/A");
	scn_free(s);
}

void suite_topo(void)
{
	CU_pSuite s = CU_add_suite("topo", NULL, NULL);
	CU_add_test(s, "seed VM: host NODE/SYS, guest PHB/NS", test_seed_vm_classes);
	CU_add_test(s, "NCCL transport and P2P level", test_nccl_transport);
	CU_add_test(s, "switch classes, TNS, IOMMU groups", test_switch_classes_and_groups);
	CU_add_test(s, "seed box: ACS off merges nothing", test_seed_acs_merges_nothing);
	CU_add_test(s, "NVLink and GNS", test_nvlink_and_gns);
	CU_add_test(s, "i440fx guest", test_i440fx_guest);
	CU_add_test(s, "guest NUMA and P2P clique", test_guest_numa_and_clique);
	CU_add_test(s, "CPU affinity lists", test_cpu_affinity);
}

void suite_bar(void)
{
	CU_pSuite s = CU_add_suite("bar", NULL, NULL);
	CU_add_test(s, "seed: 6 of 8 lose BAR2 without pci=realloc", test_bar_seed_story);
	CU_add_test(s, "phys-bits and window size", test_bar_phys_bits_and_window);
	CU_add_test(s, "larger window never fits fewer GPUs", test_bar_monotonic);
	CU_add_test(s, "bare metal is refused", test_bar_bare_metal);
}
