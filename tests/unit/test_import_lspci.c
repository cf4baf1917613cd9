/*
 * test_import_lspci.c - `plumb import lspci`: every sample block of
 * realdata/lspci-samples.txt (one file each under tests/data/import/) and
 * the rtx6kpro `lspci -vvv` log import and load as scenarios; the rtx6kpro
 * tree gives exactly the GPU matrix its `nvidia-smi topo -m` printed; the
 * formats' details (sockets, ACS, link, -t guesses) come out right; broken
 * input fails with the exact message and never crashes the parser.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "import.h"
#include "scn.h"

void suite_import_lspci(void);

#define DATA "tests/data/import/"

static struct imp_scn *import_opts(const char *text, size_t len, const char *src,
				   int sockets, const char *gpu_model,
				   const struct scn_catalog *cat, struct plumb_err *e)
{
	struct imp_opts o;
	struct imp_scn *s = imp_scn_new();

	memset(&o, 0, sizeof(o));
	o.src = src;
	o.sockets = sockets;
	o.gpu_model = gpu_model;
	o.catalog = cat;
	plumb_err_clear(e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	if (imp_lspci_parse(text, len, &o, s, e) < 0) {
		imp_scn_free(s);
		return NULL;
	}
	return s;
}

static struct imp_scn *import_text(const char *text, size_t len, const char *src,
				   int sockets, struct plumb_err *e)
{
	return import_opts(text, len, src, sockets, NULL, NULL, e);
}

static struct imp_scn *import_file_as(const char *name, int sockets, const char *gpu_model,
				      struct plumb_err *e)
{
	char path[256], *buf;
	size_t len;
	struct imp_scn *s;

	snprintf(path, sizeof(path), DATA "%s", name);
	if (imp_read_input(path, &buf, &len, e) < 0) {
		printf("\n  cannot read %s: %s\n", path, e->msg);
		CU_FAIL("sample file missing");
		return NULL;
	}
	s = import_opts(buf, len, path, sockets, gpu_model, NULL, e);
	free(buf);
	return s;
}

static struct imp_scn *import_file(const char *name, int sockets, struct plumb_err *e)
{
	return import_file_as(name, sockets, NULL, e);
}

static int port_of(const struct imp_scn *s, int i)
{
	while (i >= 0 && s->nodes[i].kind != IMP_RP)
		i = s->nodes[i].parent;
	return i;
}

/* nvidia-smi class of two endpoints in the imported tree. */
static const char *class_of(const struct imp_scn *s, int a, int b)
{
	int ra = fix_imp_root(s, a), rb = fix_imp_root(s, b);

	if (a == b)
		return "X";
	if (s->nodes[ra].socket != s->nodes[rb].socket || s->nodes[ra].numa != s->nodes[rb].numa)
		return "SYS";
	if (ra != rb)
		return "NODE";
	if (port_of(s, a) != port_of(s, b))
		return "PHB";
	return s->nodes[a].parent == s->nodes[b].parent ? "PIX" : "PXB";
}

/*
 * Every sample, the GPU model its GPUs come out as, and the CPU vendor.
 * gpu_model: --gpu-model for the samples whose GPU names the catalog lacks
 * (the H20's id 10de:2329) or that name no exact model (a hand-drawn tree's
 * "RTX PRO 6000 Blackwell"); lspci -t names nothing (the default model).
 * NICs count ports: a dual-port card's two functions are two NICs.
 */
static const struct {
	const char *file;
	int gpus, nics;
	const char *gpu_model, *model;
	enum imp_vendor vendor;
} samples[] = {
	{ "lspci-2x5090-single-root-with-chipset-switch.txt", 2, 0, NULL, "rtx-pro-6000",
	  IMP_CPU_OTHER },
	{ "lspci-4x-rtxpro6000-server-kvm-host.txt", 4, 0, NULL, "rtx-pro-6000", IMP_CPU_OTHER },
	{ "lspci-asus-esc8000a-e12-4x-rtx6000ada.txt", 4, 6, NULL, "rtx-6000-ada", IMP_CPU_AMD },
	{ "lspci-dual-3090-behind-pcie-switch.txt", 2, 0, "rtx-3090", "rtx-3090", IMP_CPU_OTHER },
	{ "lspci-h20-server-lspci.txt", 1, 2, "h100-sxm", "h100-sxm", IMP_CPU_AMD },
	{ "lspci-pcie-path-b200-behind-2-pex890xx.txt", 1, 0, NULL, "b200", IMP_CPU_AMD },
	{ "lspci-strix-halo-oculink-rtxpro6000ws.txt", 1, 0, NULL, "rtx-pro-6000", IMP_CPU_AMD },
	{ "lspci-wrx80-2x5090.txt", 2, 0, "rtx-5090", "rtx-5090", IMP_CPU_AMD },
	{ "lspci-wrx90-2x-rtxpro6000ws.txt", 2, 1, "rtx-pro-6000", "rtx-pro-6000", IMP_CPU_AMD },
	{ "lspci-rtx6kpro-asus-full.log", 8, 4, NULL, "rtx-pro-6000", IMP_CPU_AMD },
};

static void test_samples(void)
{
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		struct plumb_err e;
		struct imp_scn *s = import_file_as(samples[i].file, 0, samples[i].gpu_model, &e);
		struct scenario *scn = NULL;
		char *y;
		int g;
		if (!s) {
			printf("\n  %s: %s:%d:%d: %s\n", samples[i].file, e.file, e.line, e.col, e.msg);
			CU_FAIL("sample did not import");
			continue;
		}
		EXPECT_INT(fix_imp_count(s, IMP_GPU), samples[i].gpus);
		EXPECT_INT(fix_imp_count(s, IMP_NIC), samples[i].nics);
		for (g = 0; g < samples[i].gpus; g++)
			EXPECT_STR(s->nodes[fix_imp_gpu_node(s, g)].model, samples[i].model);
		if (s->cpu_vendor != samples[i].vendor)
			printf("\n  %s: ", samples[i].file);
		EXPECT_INT(s->cpu_vendor, samples[i].vendor);
		y = fix_imp_yaml(s);
		if (scn_parse(samples[i].file, y, &scn, &e) < 0)
			printf("\n  %s: imported YAML does not load: %d:%d: %s\n", samples[i].file,
			       e.line, e.col, e.msg);
		CU_ASSERT_PTR_NOT_NULL(scn);
		if (scn)
			EXPECT_INT(scn->ngpus, samples[i].gpus);
		scn_free(scn);
		free(y);
		imp_scn_free(s);
	}
}

/* rtx6kpro-asus-server: the tree reproduces nvidia_topo.log exactly. */
static void test_rtx6kpro_matrix(void)
{
	static const char *const want[8][8] = {
		{ "X", "PIX", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS" },
		{ "PIX", "X", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS" },
		{ "NODE", "NODE", "X", "PIX", "SYS", "SYS", "SYS", "SYS" },
		{ "NODE", "NODE", "PIX", "X", "SYS", "SYS", "SYS", "SYS" },
		{ "SYS", "SYS", "SYS", "SYS", "X", "PIX", "NODE", "NODE" },
		{ "SYS", "SYS", "SYS", "SYS", "PIX", "X", "NODE", "NODE" },
		{ "SYS", "SYS", "SYS", "SYS", "NODE", "NODE", "X", "PIX" },
		{ "SYS", "SYS", "SYS", "SYS", "NODE", "NODE", "PIX", "X" },
	};
	static const char *const bdf[8] = {
		"0000:06:00.0", "0000:07:00.0", "0000:75:00.0", "0000:76:00.0",
		"0000:84:00.0", "0000:85:00.0", "0000:f4:00.0", "0000:f5:00.0",
	};
	struct plumb_err e;
	struct imp_scn *s = import_file("lspci-rtx6kpro-asus-full.log", 0, &e);
	int g[8], i, j, rcs = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (i = 0; i < 8; i++) {
		g[i] = fix_imp_gpu_node(s, i);
		CU_ASSERT_FATAL(g[i] >= 0);
		EXPECT_STR(s->nodes[g[i]].bdf, bdf[i]);
		EXPECT_STR(s->nodes[g[i]].model, "rtx-pro-6000");
		EXPECT_STR(s->nodes[g[i]].comment, "");
	}
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++) {
			const char *got = class_of(s, g[i], g[j]);
			if (strcmp(got, want[i][j]) != 0)
				printf("\n  GPU%d-GPU%d: got %s, expected %s\n", i, j, got, want[i][j]);
			CU_ASSERT_STRING_EQUAL(got, want[i][j]);
		}
	for (i = 0; i < s->n; i++) {
		int k;
		if (s->nodes[i].kind != IMP_RC)
			continue;
		for (k = 0; k < 8 && fix_imp_root(s, g[k]) != i; k++)
			;
		rcs += k < 8;
	}
	EXPECT_INT(fix_imp_count(s, IMP_GPU), 8);
	/* four PEX890xx switches and two dual-port NIC cards (a switch of
	 * NICs each) */
	EXPECT_INT(fix_imp_count(s, IMP_SW), 6);
	EXPECT_INT(rcs, 4);
	EXPECT_INT(s->sockets, 2);
	EXPECT_INT(s->numa_per_socket, 1);
	EXPECT_INT(s->cpu_vendor, IMP_CPU_AMD);
	/* link and ACS as the log reports them */
	{
		int sw = s->nodes[g[0]].parent, rp = s->nodes[sw].parent;
		EXPECT_INT(s->nodes[sw].kind, IMP_SW);
		EXPECT_STR(s->nodes[sw].model, "Broadcom / LSI PEX890xx PCIe Gen 5 Switch");
		EXPECT_STR(s->nodes[sw].bdf, "0000:01:00.0");
		EXPECT_INT(s->nodes[sw].gen, 5);
		EXPECT_INT(s->nodes[sw].width, 16);
		EXPECT_INT(s->nodes[sw].acs, 0);
		EXPECT_INT(s->nodes[rp].kind, IMP_RP);
		EXPECT_STR(s->nodes[rp].bdf, "0000:00:01.1");
		EXPECT_INT(s->nodes[rp].gen, 5);
		EXPECT_INT(s->nodes[fix_imp_root(s, g[2])].socket, 0);
		EXPECT_STR(s->nodes[fix_imp_root(s, g[2])].bdf, "0000:70");
	}
	imp_scn_free(s);
}

/* -tv: no NUMA, AMD with 8 root buses -> 2 sockets split in bus order. */
static void test_tree_sockets(void)
{
	struct plumb_err e;
	struct imp_scn *s = import_file("lspci-asus-esc8000a-e12-4x-rtx6000ada.txt", 0, &e);
	int g;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(s->sockets, 2);
	EXPECT_INT(s->cpu_vendor, IMP_CPU_AMD);
	EXPECT_INT(s->nodes[fix_imp_root(s, fix_imp_gpu_node(s, 1))].socket, 0);
	EXPECT_INT(s->nodes[fix_imp_root(s, fix_imp_gpu_node(s, 2))].socket, 1);
	EXPECT_STR(class_of(s, fix_imp_gpu_node(s, 0), fix_imp_gpu_node(s, 1)), "NODE");
	EXPECT_STR(class_of(s, fix_imp_gpu_node(s, 2), fix_imp_gpu_node(s, 3)), "NODE");
	EXPECT_STR(class_of(s, fix_imp_gpu_node(s, 0), fix_imp_gpu_node(s, 2)), "SYS");
	g = fix_imp_gpu_node(s, 0);
	EXPECT_STR(s->nodes[g].bdf, "0000:01:00.0");
	/* "AD102GL [RTX 6000 Ada Generation]": the catalog's name, no comment */
	EXPECT_STR(s->nodes[g].model, "rtx-6000-ada");
	EXPECT_STR(s->nodes[g].comment, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(s->notes[0], "split in bus order into 2 socket"));
	imp_scn_free(s);

	s = import_file("lspci-asus-esc8000a-e12-4x-rtx6000ada.txt", 1, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(s->sockets, 1);
	EXPECT_INT(s->nodes[fix_imp_root(s, fix_imp_gpu_node(s, 3))].socket, 0);
	imp_scn_free(s);
}

/* -t: GPUs guessed from 00.0 + 00.1; switch chains folded. */
static void test_tree_guess_and_switch(void)
{
	struct plumb_err e;
	struct imp_scn *s = import_file("lspci-2x5090-single-root-with-chipset-switch.txt", 0, &e);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_STR(s->nodes[fix_imp_gpu_node(s, 0)].bdf, "0000:01:00.0");
	EXPECT_STR(s->nodes[fix_imp_gpu_node(s, 1)].bdf, "0000:03:00.0");
	CU_ASSERT_PTR_NOT_NULL(strstr(s->nodes[fix_imp_gpu_node(s, 0)].comment, "guessed"));
	EXPECT_STR(class_of(s, fix_imp_gpu_node(s, 0), fix_imp_gpu_node(s, 1)), "PHB");
	imp_scn_free(s);

	/* lspci -tv path with chained switches: B200 behind one folded switch */
	s = import_file("lspci-pcie-path-b200-behind-2-pex890xx.txt", 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_STR(s->nodes[fix_imp_gpu_node(s, 0)].model, "b200");
	EXPECT_INT(fix_imp_count(s, IMP_SW), 1);
	EXPECT_INT(s->nodes[s->nodes[fix_imp_gpu_node(s, 0)].parent].kind, IMP_SW);
	imp_scn_free(s);
}

/* A small -vvv text: ACS on, nested switch, audio and placeholder dropped. */
static void test_vvv_details(void)
{
	static const char vvv[] =
		"0000:40:01.1 PCI bridge: Intel Corporation Device 352a (rev 04)\n"
		"\tNUMA node: 1\n"
		"\tBus: primary=40, secondary=41, subordinate=45, sec-latency=0\n"
		"\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n"
		"\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1\n"
		"\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
		"41:00.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane PCI Express Gen 3 Switch (rev ca)\n"
		"\tBus: primary=41, secondary=42, subordinate=45, sec-latency=0\n"
		"\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16\n"
		"42:08.0 PCI bridge: PLX Technology, Inc. PEX 8747 (rev ca)\n"
		"\tBus: primary=42, secondary=43, subordinate=43, sec-latency=0\n"
		"\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+\n"
		"42:10.0 PCI bridge: PLX Technology, Inc. PEX 8747 (rev ca)\n"
		"\tBus: primary=42, secondary=44, subordinate=44, sec-latency=0\n"
		"\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+\n"
		"43:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 4090] (rev a1)\n"
		"\tNUMA node: 1\n"
		"43:00.1 Audio device: NVIDIA Corporation GA102 High Definition Audio Controller (rev a1)\n"
		"44:00.0 3D controller: NVIDIA Corporation Device 2b85 (rev a1)\n"
		"45:00.0 System peripheral: Broadcom / LSI Virtual PCIe Placeholder Endpoint\n";
	struct plumb_err e;
	struct imp_scn *s = import_text(vvv, sizeof(vvv) - 1, "vvv.txt", 0, &e);
	int g0, g1, sw;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(fix_imp_count(s, IMP_GPU), 2);
	EXPECT_INT(fix_imp_count(s, IMP_SW), 1);
	g0 = fix_imp_gpu_node(s, 0);
	g1 = fix_imp_gpu_node(s, 1);
	EXPECT_STR(s->nodes[g0].model, "rtx-4090");
	EXPECT_STR(s->nodes[g1].model, "rtx-5090");
	sw = s->nodes[g0].parent;
	EXPECT_INT(sw, s->nodes[g1].parent);
	EXPECT_INT(s->nodes[sw].acs, 1);
	EXPECT_INT(s->nodes[sw].gen, 3);
	EXPECT_STR(s->nodes[sw].model, "PLX Technology, Inc. PEX 8747 48-Lane PCI Express Gen 3 Switch");
	EXPECT_INT(s->nodes[s->nodes[sw].parent].acs, 1);
	EXPECT_INT(s->nodes[s->nodes[sw].parent].gen, 4);
	EXPECT_INT(s->sockets, 1);
	EXPECT_INT(s->cpu_vendor, IMP_CPU_INTEL);
	EXPECT_STR(class_of(s, g0, g1), "PIX");
	imp_scn_free(s);
}

static void test_gpu_names(void)
{
	static const struct {
		const char *name, *id;
	} t[] = {
		{ "NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition] [10de:2bb5]", "rtx-pro-6000" },
		{ "NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Workstation Edition]", "rtx-pro-6000" },
		{ "NVIDIA Corporation Device 2bb5", "rtx-pro-6000" },
		{ "NVIDIA Corporation GB202 [GeForce RTX 5090] [10de:2b85]", "rtx-5090" },
		{ "NVIDIA Corporation AD102 [GeForce RTX 4090]", "rtx-4090" },
		{ "NVIDIA A100-SXM4-80GB", "a100-sxm" },
		{ "NVIDIA Corporation Device 2330", "h100-sxm" },
		{ "NVIDIA H100 80GB HBM3", "h100-sxm" },
		{ "NVIDIA H200", "h200" },
		{ "B200", "b200" },
		{ "NVIDIA L40S", "l40s" },
		{ "NVIDIA Corporation AD102GL [RTX 6000 Ada Generation]", "rtx-6000-ada" },
		/* older pci.ids: two names in one bracket */
		{ "NVIDIA Corporation AD102GL [L6000 / RTX 6000 Ada Generation]", "rtx-6000-ada" },
		{ "NVIDIA Corporation AD102GL [RTX 6000 Ada Generation] [10de:26b1]", "rtx-6000-ada" },
		{ "nvidia rtx  6000-ada generation", "rtx-6000-ada" },
		/* what the catalog does not hold is never a neighbour's id */
		{ "NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Max-Q Workstation Edition] [10de:2bb4]", NULL },
		{ "NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Max-Q Workstation Edition]", NULL },
		{ "NVIDIA Corporation GA100 [A100 SXM4 40GB] [10de:20b0]", NULL },
		{ "NVIDIA H100 PCIe", NULL },
		{ "NVIDIA RTX 6000", NULL },
		{ "NVIDIA Corporation Device 2329", NULL },
		{ "Intel Corporation Device 22bb50", NULL },
		{ "", NULL },
	};
	struct plumb_err e;
	const struct scn_catalog *cat = scn_catalog_builtin(&e);
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int k = imp_gpu_lookup(cat, t[i].name);
		const char *got = k >= 0 ? cat->gpus[k].id : "(none)";
		if (strcmp(got, t[i].id ? t[i].id : "(none)") != 0)
			printf("\n  name \"%s\"", t[i].name);
		EXPECT_STR(got, t[i].id ? t[i].id : "(none)");
	}
}

/* A GPU the catalog lacks: an error at its name with the closest entries;
 * --gpu-model writes it as that model; a user catalog names it. */
static void test_unknown_gpu(void)
{
	static const char list[] =
		"00:01.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Device 14ab\n"
		"01:00.0 3D controller: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Max-Q Workstation Edition]\n"
		"02:00.0 3D controller: NVIDIA Corporation Device 2329 (rev a1)\n";
	static const char ids[] = "02:00.0 3D controller: NVIDIA Corporation Device 2329 (rev a1)\n";
	static const char user[] =
		"catalog: gpus\n"
		"gpus:\n"
		"  - id: h20\n"
		"    pci_ids: [\"10de:2329\"]\n"
		"    names: [H20]\n"
		"    memory_gib: 96\n"
		"    memory_gbs: 4000\n"
		"  - id: rtx-pro-6000-maxq\n"
		"    names: [\"RTX PRO 6000 Blackwell Max-Q Workstation Edition\"]\n"
		"    memory_gib: 96\n"
		"    memory_gbs: 1792\n";
	struct plumb_err e;
	struct scn_catalog *cat = NULL;
	struct imp_scn *s = import_text(list, sizeof(list) - 1, "list.txt", 0, &e);

	CU_ASSERT_PTR_NULL(s);
	EXPECT_INT(e.code, PLUMB_EINPUT);
	EXPECT_INT(e.line, 2);
	EXPECT_INT(e.col, 24);
	EXPECT_STR(e.msg, "GPU 'NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Max-Q "
		   "Workstation Edition]' is not in the GPU catalog (no entry has that name; "
		   "closest: rtx-pro-6000 'RTX PRO 6000 Blackwell Workstation Edition', "
		   "rtx-6000-ada 'RTX 6000 Ada Generation', rtx-2080ti 'GeForce RTX 2080 Ti'); give "
		   "--gpu-model ID, or add it to a catalog file (names:, pci_ids:) given with "
		   "--gpu-catalog FILE");

	s = import_text(ids, sizeof(ids) - 1, "ids.txt", 0, &e);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no entry has PCI id 10de:2329; closest: "
				      "h100-sxm 10de:2330, h200 10de:2335"));

	s = import_opts(list, sizeof(list) - 1, "list.txt", 0, "rtx-pro-6000", NULL, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_STR(s->nodes[fix_imp_gpu_node(s, 0)].model, "rtx-pro-6000");
	CU_ASSERT_PTR_NOT_NULL(strstr(s->nodes[fix_imp_gpu_node(s, 0)].comment,
				      "is not in the catalog (--gpu-model)"));
	imp_scn_free(s);

	if (scn_catalog_parse("user.yaml", user, &cat, &e) < 0)
		printf("\n  user.yaml:%d:%d: %s\n", e.line, e.col, e.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
	s = import_opts(list, sizeof(list) - 1, "list.txt", 0, NULL, cat, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_STR(s->nodes[fix_imp_gpu_node(s, 0)].model, "rtx-pro-6000-maxq");
	EXPECT_STR(s->nodes[fix_imp_gpu_node(s, 1)].model, "h20");
	imp_scn_free(s);
	free(cat);
}

/* A catalog's names and ids: well formed, each belonging to one entry. */
static void test_catalog_names(void)
{
	static const struct {
		const char *tail;   /* entries after a first one named "A 1" with id 10de:0001 */
		int line, col;
		const char *msg;
	} t[] = {
		{ "  - {id: b, memory_gib: 1, memory_gbs: 1, names: [\"a-1\"]}\n", 4, 5,
		  "GPU name 'a-1' of 'b' is already a name of 'a' (a name identifies one model)" },
		{ "  - {id: b, memory_gib: 1, memory_gbs: 1, pci_ids: [\"10DE:0001\"]}\n", 4, 5,
		  "PCI id 10de:0001 of 'b' is already an id of 'a' (an id identifies one model)" },
		{ "  - {id: b, memory_gib: 1, memory_gbs: 1, pci_ids: [\"10de:1\"]}\n", 4, 53,
		  "pci_ids entry '10de:1' is not a vendor:device id of 4 + 4 hex digits "
		  "(\"10de:2bb5\")" },
		{ "  - {id: b, memory_gib: 1, memory_gbs: 1, pci_ids: [\"10de:00g1\"]}\n", 4, 53,
		  "pci_ids entry '10de:00g1' is not a vendor:device id of 4 + 4 hex digits "
		  "(\"10de:2bb5\")" },
		{ "  - {id: b, memory_gib: 1, memory_gbs: 1, names: [\" - \"]}\n", 4, 51,
		  "empty GPU name" },
		{ "  - {id: b, memory_gib: 1, memory_gbs: 1, names: [B, b]}\n", 4, 5,
		  "catalog entry 'b' lists the name 'b' twice" },
		{ "  - {id: b, memory_gib: 1, memory_gbs: 1, names: B}\n", 4, 50,
		  "'names' must be a list, not a single value" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char text[512];
		struct scn_catalog *c = NULL;
		struct plumb_err e;
		plumb_err_clear(&e);
		snprintf(text, sizeof(text), "catalog: gpus\ngpus:\n"
			 "  - {id: a, memory_gib: 1, memory_gbs: 1, names: [\"A 1\"], pci_ids: [\"10de:0001\"]}\n%s",
			 t[i].tail);
		CU_ASSERT(scn_catalog_parse("c.yaml", text, &c, &e) < 0);
		CU_ASSERT_PTR_NULL(c);
		free(c);
		EXPECT_INT(e.line, t[i].line);
		EXPECT_INT(e.col, t[i].col);
		EXPECT_STR(e.msg, t[i].msg);
	}
}

static void expect_error(const char *text, size_t len, int line, int col, const char *msg)
{
	struct plumb_err e;
	struct imp_scn *s = import_text(text, len, "bad.txt", 0, &e);

	CU_ASSERT_PTR_NULL(s);
	imp_scn_free(s);
	EXPECT_INT(e.code, PLUMB_EINPUT);
	EXPECT_STR(e.file, "bad.txt");
	EXPECT_INT(e.line, line);
	EXPECT_INT(e.col, col);
	EXPECT_STR(e.msg, msg);
}

static void test_errors(void)
{
	static const char nogpu[] =
		"-[0000:00]-+-00.0  Advanced Micro Devices, Inc. [AMD] Device 14a4\n"
		"           \\-01.1-[01]----00.0  Samsung Electronics Co Ltd NVMe SSD Controller\n";
	static const char binary[] = "00:00.0 Host bridge: X\n\0\x01";

	expect_error("", 0, 0, 0, "empty input; expected the output of lspci -tv, -t or -vvv");
	expect_error("hello\nworld\n", 12, 0, 0,
		     "no lspci output found (expected lspci -tv, -t or -vvv lines such as "
		     "\"-[0000:00]-+-01.0\" or \"00:01.0 PCI bridge: ...\")");
	expect_error(nogpu, sizeof(nogpu) - 1, 0, 0,
		     "no GPU or NIC in the lspci output (3 device(s) read)");
	expect_error(binary, sizeof(binary) - 1, 0, 0,
		     "binary input (NUL byte at offset 23); expected the output of "
		     "lspci -tv, -t or -vvv");
}

/* Every prefix of the samples, and junk: an answer, no crash. */
static void test_no_crash(void)
{
	static const char *const files[] = {
		"lspci-asus-esc8000a-e12-4x-rtx6000ada.txt",
		"lspci-dual-3090-behind-pcie-switch.txt",
		"lspci-wrx90-2x-rtxpro6000ws.txt",
		"lspci-pcie-path-b200-behind-2-pex890xx.txt",
		"lspci-h20-server-lspci.txt",
		"lspci-rtx6kpro-asus-full.log",
	};
	size_t f;

	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[256], *buf;
		size_t len;
		snprintf(path, sizeof(path), DATA "%s", files[f]);
		if (!(buf = fix_imp_read(path, &len)))
			continue;
		fix_imp_prefixes(imp_lspci_parse, buf, len, len > 20000 ? len / 97 : 5);
		free(buf);
	}
	/* 33 of the alphabet's characters: its terminating NUL too */
	fix_imp_junk(imp_lspci_parse, "0123456789abcdef:.-+[]| \n\\NVIDIA", 33, 987654321);
}

void suite_import_lspci(void)
{
	CU_pSuite s = CU_add_suite("import_lspci", NULL, NULL);

	CU_add_test(s, "every lspci sample imports and loads", test_samples);
	CU_add_test(s, "rtx6kpro -vvv reproduces its topo -m", test_rtx6kpro_matrix);
	CU_add_test(s, "-tv: sockets from root buses", test_tree_sockets);
	CU_add_test(s, "-t guesses, path excerpt, folded switch", test_tree_guess_and_switch);
	CU_add_test(s, "-vvv: ACS, link, audio and placeholders", test_vvv_details);
	CU_add_test(s, "GPU names to catalog ids", test_gpu_names);
	CU_add_test(s, "an unknown GPU: error, --gpu-model, a user catalog", test_unknown_gpu);
	CU_add_test(s, "catalog names and PCI ids", test_catalog_names);
	CU_add_test(s, "malformed input: exact errors", test_errors);
	CU_add_test(s, "prefixes and junk do not crash", test_no_crash);
}
