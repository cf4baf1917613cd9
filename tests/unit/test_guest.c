/*
 * test_guest.c - what a VM guest sees: bus ids as Proxmox places the
 * passed-through GPUs, GPU numbers in guest bus order, guest CPU numbers in
 * the NCCL topology file, and the P2P check behind xfer's warning.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "scn.h"
#include "topo.h"

void suite_guest(void);

/* 8 GPUs, 4 per socket, in a VM: chipset, pcie_passthrough, extra vm keys. */
static struct scenario *vm8(const char *chipset, const char *pcie, const char *extra)
{
	char text[4096];
	struct scenario *s = NULL;
	struct plumb_err e;
	int n = snprintf(text, sizeof(text),
			 "plumb_scenario: 1\n"
			 "host: {cpu_vendor: amd, sockets: 2, cores_per_socket: 32, threads_per_core: 2}\n"
			 "pcie:\n");
	int i;
	for (i = 0; i < 8; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "  - {id: rc%d, kind: root_complex, socket: %d}\n"
			      "  - {id: rp%d, kind: root_port, parent: rc%d, gen: 5, width: 16}\n"
			      "  - {id: gpu%d, kind: gpu, parent: rp%d, model: rtx-pro-6000}\n",
			      i, i / 4, i, i, i, i);
	snprintf(text + n, sizeof(text) - (size_t)n,
		 "virtualization: {mode: vm, hypervisor: proxmox, chipset: %s, pcie_passthrough: %s%s}\n",
		 chipset, pcie, extra);
	plumb_err_clear(&e);
	if (scn_parse("vm.yaml", text, &s, &e) < 0)
		printf("\n  scenario failed: %d:%d: %s\n", e.line, e.col, e.msg);
	CU_ASSERT_PTR_NOT_NULL(s);
	return s;
}

static void test_proxmox_bdf(void)
{
	struct scenario *s = vm8("q35", "true", "");
	struct topo_view *v = NULL;
	struct topo_opts o;
	char b[16];
	if (!s)
		return;
	/* hostpci0-3 behind 00:1c.0-1c.3, hostpci4-7 behind 00:10.0-10.3:
	 * the guest numbers the 10.x ports' buses first */
	topo_guest_bdf(s, 0, b);
	CU_ASSERT_STRING_EQUAL(b, "0000:05:00.0");
	topo_guest_bdf(s, 4, b);
	CU_ASSERT_STRING_EQUAL(b, "0000:01:00.0");
	topo_guest_bdf(s, 7, b);
	CU_ASSERT_STRING_EQUAL(b, "0000:04:00.0");
	topo_opts_init(&o);
	CU_ASSERT_EQUAL(topo_build(s, TOPO_GUEST, &o, &v, NULL), 0);
	if (v) {
		/* nvidia-smi in the guest: GPU0 is the one on bus 01, host GPU4 */
		CU_ASSERT_EQUAL(v->ep[4].dev, 0);
		CU_ASSERT_EQUAL(v->ep[0].dev, 4);
		CU_ASSERT_STRING_EQUAL(v->ep[4].bdf, "0000:01:00.0");
		topo_free(v);
	}
	scn_free(s);
	s = vm8("i440fx", "false", "");
	if (!s)
		return;
	topo_guest_bdf(s, 2, b);
	CU_ASSERT_STRING_EQUAL(b, "0000:00:1b.0");
	topo_guest_bdf(s, 5, b);
	CU_ASSERT_STRING_EQUAL(b, "0000:01:0e.0");
	scn_free(s);
}

static void test_guest_cpus_in_xml(void)
{
	struct scenario *s = vm8("q35", "true", ", vcpus: 48");
	struct topo_view *g = NULL, *h = NULL;
	struct topo_opts o;
	char buf[64], *xml = NULL;
	size_t len = 0;
	FILE *f;
	if (!s)
		return;
	topo_guest_cpus(s, 1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0-47");       /* one guest NUMA node: every vCPU */
	topo_opts_init(&o);
	CU_ASSERT_EQUAL(topo_build(s, TOPO_GUEST, &o, &g, NULL), 0);
	CU_ASSERT_EQUAL(topo_build(s, TOPO_HOST, &o, &h, NULL), 0);
	f = open_memstream(&xml, &len);
	if (g && h && f) {
		rep_nccl_xml(f, g, h);
		fclose(f);
		/* guest CPUs 0-47 (the host's 0-31,128-159 are not the guest's) */
		CU_ASSERT_PTR_NOT_NULL(strstr(xml, "affinity=\"0000ffff,ffffffff\""));
		CU_ASSERT_PTR_NOT_NULL(strstr(xml, "busid=\"0000:01:00.0\""));
		CU_ASSERT_PTR_NOT_NULL(strstr(xml, "<!-- guest GPU0 is host GPU4 -->"));
		CU_ASSERT_PTR_NULL(strstr(xml, "busid=\"0000:09:00.0\""));
	}
	free(xml);
	topo_free(g);
	topo_free(h);
	scn_free(s);
	/* without vcpus the guest's CPU numbers are unknown: no affinity */
	s = vm8("q35", "true", "");
	xml = NULL;
	if (!s)
		return;
	topo_build(s, TOPO_GUEST, &o, &g, NULL);
	topo_build(s, TOPO_HOST, &o, &h, NULL);
	f = open_memstream(&xml, &len);
	if (g && h && f) {
		rep_nccl_xml(f, g, h);
		fclose(f);
		CU_ASSERT_PTR_NULL(strstr(xml, "affinity="));
	}
	free(xml);
	topo_free(g);
	topo_free(h);
	scn_free(s);
}

static void test_p2p_forbidden(void)
{
	struct scenario *s = vm8("q35", "true", "");
	char why[640];
	if (!s)
		return;
	/* no clique: NS in the guest although the host would allow it */
	CU_ASSERT_EQUAL(topo_p2p_forbidden(s, 0, 1, why, sizeof(why)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "NS in the guest"));
	CU_ASSERT_EQUAL(topo_p2p_forbidden(s, 0, 0, why, sizeof(why)), 0);
	scn_free(s);
}

/* A GPU and a NIC under one switch, a second GPU on another root complex. */
static void test_gdr(void)
{
	static const char box[] =
		"plumb_scenario: 1\n"
		"host: {cpu_vendor: amd}\n"
		"pcie:\n"
		"  - {id: rc0, kind: root_complex, socket: 0}\n"
		"  - {id: rp0, kind: root_port, parent: rc0, gen: 5, width: 16}\n"
		"  - {id: sw0, kind: switch, parent: rp0, gen: 5, width: 16, acs: %s}\n"
		"  - {id: gpu0, kind: gpu, parent: sw0, model: %s}\n"
		"  - {id: nic0, kind: nic, parent: sw0, model: ConnectX-7}\n"
		"  - {id: rc1, kind: root_complex, socket: 0}\n"
		"  - {id: rp1, kind: root_port, parent: rc1, gen: 5, width: 16}\n"
		"  - {id: gpu1, kind: gpu, parent: rp1, model: %s}\n"
		"%s";
	static const struct { const char *acs, *model, *extra; int g0, g1; const char *why0; } t[] = {
		{ "false", "rtx-pro-6000", "", 1, 0, "directly" },
		{ "true", "rtx-pro-6000", "", 1, 0, "root complex rc0" },
		{ "false", "rtx-pro-6000", "nccl: {net_gdr_level: SYS}\n", 1, 1, "directly" },
		{ "false", "rtx-5090", "", 0, 0, "no GPUDirect RDMA" },
	};
	size_t i;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char text[2048], why[512];
		struct scenario *s = NULL;
		struct topo_view *v = NULL;
		struct topo_opts o;
		int nic = -1;
		snprintf(text, sizeof(text), box, t[i].acs, t[i].model, t[i].model, t[i].extra);
		CU_ASSERT_EQUAL_FATAL(scn_parse("gdr.yaml", text, &s, NULL), 0);
		topo_opts_init(&o);
		CU_ASSERT_EQUAL(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
		if (v) {
			CU_ASSERT_EQUAL(topo_gdr(v, 0, &nic, why, sizeof(why)), t[i].g0);
			CU_ASSERT_EQUAL(nic, 2);
			CU_ASSERT_PTR_NOT_NULL(strstr(why, t[i].why0));
			CU_ASSERT_EQUAL(topo_gdr(v, 1, &nic, NULL, 0), t[i].g1);   /* NODE */
		}
		topo_free(v);
		scn_free(s);
	}
}

void suite_guest(void)
{
	CU_pSuite s = CU_add_suite("guest", NULL, NULL);
	CU_add_test(s, "Proxmox guest bus ids and GPU numbers", test_proxmox_bdf);
	CU_add_test(s, "guest CPU numbers in the NCCL topology file", test_guest_cpus_in_xml);
	CU_add_test(s, "P2P status forbids a direct copy", test_p2p_forbidden);
	CU_add_test(s, "GPUDirect RDMA to the nearest NIC", test_gdr);
}
