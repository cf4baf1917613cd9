/*
 * test_import_amd.c - lspci of AMD Instinct boxes and the lspci fixes they
 * need: "Processing accelerators" GPUs by catalog name or PCI id, `lspci
 * -PP` paths, root buses split into sockets by bus number (not listing
 * order), every port of a multi-port NIC.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "import.h"
#include "scn.h"

void suite_import_amd(void);

static struct imp_scn *lspci(const char *text, size_t len, int sockets, struct plumb_err *e)
{
	struct imp_opts o;
	struct imp_scn *s = imp_scn_new();
	memset(&o, 0, sizeof(o));
	o.src = "mem";
	o.sockets = sockets;
	plumb_err_clear(e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	if (imp_lspci_parse(text, len, &o, s, e) < 0) {
		printf("\n  lspci import failed: %s\n", e->msg);
		imp_scn_free(s);
		return NULL;
	}
	return s;
}

/* Node index of the n-th node of kind k in output order, or -1. */
static int nth(const struct imp_scn *s, enum imp_kind k, int n)
{
	int i;
	for (i = 0; i < s->n; i++)
		if (s->nodes[i].kind == k && n-- == 0)
			return i;
	return -1;
}

static void test_pp_mi300x(void)
{
	char *buf = NULL;
	size_t len;
	struct plumb_err e;
	struct imp_scn *s;
	int g, k, gpus = 0;
	if (imp_read_input("tests/data/import/lspci-pp-8x-mi300x-cx7.txt", &buf, &len, &e) < 0) {
		CU_FAIL("sample file missing");
		return;
	}
	s = lspci(buf, len, 2, &e);
	free(buf);
	if (!s)
		return;
	EXPECT_INT(fix_imp_count(s, IMP_GPU), 8);
	EXPECT_INT(fix_imp_count(s, IMP_NIC), 8);
	for (g = 0; g < s->n; g++) {
		const struct imp_node *d = &s->nodes[g];
		if (d->kind != IMP_GPU)
			continue;
		CU_ASSERT_STRING_EQUAL(d->model, "mi300x");
		/* the page's adjacency table: GPUs 0-3 on CPU 0, 4-7 on CPU 1 */
		EXPECT_INT(s->nodes[fix_imp_root(s, g)].socket, gpus / 4);
		gpus++;
	}
	/* GPU0 (05:00.0) and its NIC (09:00.0) share the switch 01:00.0 */
	g = nth(s, IMP_GPU, 0);
	k = nth(s, IMP_NIC, 0);
	CU_ASSERT(g >= 0 && k >= 0);
	if (g >= 0 && k >= 0)
		CU_ASSERT_EQUAL(s->nodes[s->nodes[g].parent].parent, s->nodes[k].parent);
	imp_scn_free(s);
}

/* lspci -tv prints the highest root bus first: sockets still go by number. */
static void test_sockets_by_bus(void)
{
	static const char tv[] =
		"-+-[0000:c0]-+-01.1-[c1]----00.0  NVIDIA Corporation Device 2bb5\n"
		" +-[0000:80]-+-01.1-[81]----00.0  NVIDIA Corporation Device 2bb5\n"
		" +-[0000:40]-+-01.1-[41]----00.0  NVIDIA Corporation Device 2bb5\n"
		" \\-[0000:00]-+-01.1-[01]----00.0  NVIDIA Corporation Device 2bb5\n";
	struct plumb_err e;
	struct imp_scn *s = lspci(tv, sizeof(tv) - 1, 2, &e);
	int i;
	if (!s)
		return;
	EXPECT_INT(fix_imp_count(s, IMP_GPU), 4);
	for (i = 0; i < s->n; i++) {
		const struct imp_node *d = &s->nodes[i];
		if (d->kind == IMP_RC)
			EXPECT_INT(d->socket, strcmp(d->bdf, "0000:80") < 0 ? 0 : 1);
	}
	imp_scn_free(s);
}

/* A dual-port ConnectX: both functions are ports; a virtual function is not. */
static void test_dual_port_nic(void)
{
	static const char list[] =
		"00:01.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Device 14ab\n"
		"01:00.0 Processing accelerators: Advanced Micro Devices, Inc. [AMD/ATI] Device 74a5\n"
		"02:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
		"02:00.1 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
		"02:00.2 Ethernet controller: Mellanox Technologies ConnectX Family mlx5Gen Virtual Function\n";
	struct plumb_err e;
	struct imp_scn *s = lspci(list, sizeof(list) - 1, 1, &e);
	if (!s)
		return;
	EXPECT_INT(fix_imp_count(s, IMP_NIC), 2);
	imp_scn_free(s);
}

/* An Instinct by PCI id alone ([1002:74a5], lspci -nn): the catalog's mi325x. */
static void test_pci_id(void)
{
	static const char nn[] =
		"00:01.1 PCI bridge [0604]: Advanced Micro Devices, Inc. [AMD] Device [1022:14ab]\n"
		"01:00.0 Processing accelerators [1200]: Advanced Micro Devices, Inc. [AMD/ATI] Device [1002:74a5]\n";
	struct plumb_err e;
	struct imp_scn *s = lspci(nn, sizeof(nn) - 1, 1, &e);
	int g;
	if (!s)
		return;
	EXPECT_INT(fix_imp_count(s, IMP_GPU), 1);
	g = fix_imp_gpu_node(s, 0);
	if (g >= 0)
		CU_ASSERT_STRING_EQUAL(s->nodes[g].model, "mi325x");
	imp_scn_free(s);
}

void suite_import_amd(void)
{
	CU_pSuite s = CU_add_suite("import_amd", NULL, NULL);
	CU_add_test(s, "lspci -PP of 8x MI300X and ConnectX-7", test_pp_mi300x);
	CU_add_test(s, "sockets by root bus number, not listing order", test_sockets_by_bus);
	CU_add_test(s, "every port of a dual-port NIC, no virtual function", test_dual_port_nic);
	CU_add_test(s, "an Instinct by PCI id: Processing accelerators [1002:74a5]", test_pci_id);
}
