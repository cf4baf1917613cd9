/*
 * test_import_topom.c - `plumb import topo-m`: every sample block of
 * realdata/topo-m-samples.txt (and the topo blocks of
 * p2p-latency-samples.txt), one file each under tests/data/import/, imports
 * and loads as a scenario; the rebuilt tree has the expected shape; broken
 * input fails with the exact message; no input crashes the parser.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "import.h"
#include "scn.h"

void suite_import_topom(void);

#define DATA "tests/data/import/"

/* Import text; returns the result (caller frees) or NULL with *e filled. */
static struct imp_scn *import_text(const char *text, size_t len, const char *src,
				   struct plumb_err *e)
{
	struct imp_opts o;
	struct imp_scn *s = imp_scn_new();

	memset(&o, 0, sizeof(o));
	o.src = src;
	plumb_err_clear(e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	if (imp_topom_parse(text, len, &o, s, e) < 0) {
		imp_scn_free(s);
		return NULL;
	}
	return s;
}

/* The GPUs topo -m could not name (IMP_GPU_UNSET) given a model, as a user
 * sets one; returns how many. A skeleton with the placeholder does not load:
 * checked here first. */
static int name_gpus(struct imp_scn *s, const char *model)
{
	struct scenario *scn = NULL;
	struct plumb_err e;
	char *y = fix_imp_yaml(s);
	int i, n = 0;
	for (i = 0; i < s->n; i++)
		if (s->nodes[i].kind == IMP_GPU && !strcmp(s->nodes[i].model, IMP_GPU_UNSET)) {
			snprintf(s->nodes[i].model, sizeof(s->nodes[i].model), "%s", model);
			n++;
		}
	if (n) {
		CU_ASSERT(scn_parse("unset.yaml", y, &scn, &e) < 0);
		scn_free(scn);
	}
	free(y);
	return n;
}

static struct imp_scn *import_file(const char *name, struct plumb_err *e)
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
	s = import_text(buf, len, path, e);
	free(buf);
	return s;
}

static const struct {
	const char *file;
	int gpus, nics;     /* gpus -1: the import must fail (no matrix) */
} samples[] = {
	{ "topom-2gpu-node-p2p-ns.txt", 2, 0 },
	{ "topom-2x3090-phb-patched-p2p-ok.txt", 2, 0 },
	{ "topom-2x5070-phb.txt", 2, 0 },
	{ "topom-8x-pcie-pix-node-sys.txt", 5, 0 },
	{ "topom-8x4090-dual-socket-all-sys.txt", 8, 2 },
	{ "topom-aikitoria-p2p-verify-2gpu-ok.txt", 2, 0 },
	{ "topom-asus-esc8000a-e13p-8x-rtxpro6000-raw.txt", 8, 0 },
	{ "topom-autodl-2x2080ti-container.txt", 2, 0 },
	{ "topom-cloud-vm-8xa100-sxm4-nv12-phb.txt", 8, 8 },
	{ "topom-dgx2-16gpu-nv6.txt", 5, 0 },
	{ "topom-epyc7542-8x4090-nps4.txt", 8, 4 },
	{ "topom-h100-4gpu-vm.txt", 4, 8 },
	{ "topom-hgx-a100-distserve.txt", 8, 4 },
	{ "topom-hgx-h20-3e-nv18.txt", 8, 1 },
	{ "topom-k8s-8gpu-pix-phb-sys.txt", 6, 0 },
	{ "topom-l40s-4gpu-2socket.txt", 4, 2 },
	{ "topom-numa-aware-allreduce-8gpu-pix-node-sys.txt", 8, 0 },
	{ "topom-rtx6kpro-asus-nvidia-topo.log", 8, 0 },
	{ "topom-th2k-4gpu-partial-nvlink.txt", 4, 4 },
	{ "topom-topo-p2p-8gpu-ok-and-2xl4-cns.txt", 8, 0 },
	{ "topom-tr3975wx-2x5090-phb-gns.txt", 2, 0 },
	{ "topom-vm-qemu-guest-notes.txt", -1, 0 },     /* prose only, no matrix */
	{ "topom-wrx90-cpayne-microchip-8x-rtxpro6000.txt", 8, 0 },
	{ "topom-p2plat-sample01.txt", 8, 4 },
	{ "topom-p2plat-sample03.txt", 4, 4 },
	{ "topom-p2plat-sample05.txt", 4, 4 },
};

/* Every sample imports with the expected endpoints and loads as a scenario. */
static void test_samples(void)
{
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		struct plumb_err e;
		struct imp_scn *s = import_file(samples[i].file, &e);
		struct scenario *scn = NULL;
		char *y;
		if (samples[i].gpus < 0) {
			CU_ASSERT_PTR_NULL(s);
			EXPECT_INT(e.code, PLUMB_EINPUT);
			imp_scn_free(s);
			continue;
		}
		if (!s) {
			printf("\n  %s: %s:%d:%d: %s\n", samples[i].file, e.file, e.line, e.col, e.msg);
			CU_FAIL("sample did not import");
			continue;
		}
		EXPECT_INT(fix_imp_count(s, IMP_GPU), samples[i].gpus);
		EXPECT_INT(fix_imp_count(s, IMP_NIC), samples[i].nics);
		name_gpus(s, "rtx-pro-6000");
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

/* ASUS ESC8000A-E13P: pairs under one switch, two root complexes per socket. */
static void test_asus_structure(void)
{
	struct plumb_err e;
	struct imp_scn *s = import_file("topom-asus-esc8000a-e13p-8x-rtxpro6000-raw.txt", &e);
	int g[8], i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (i = 0; i < 8; i++) {
		g[i] = fix_imp_gpu_node(s, i);
		CU_ASSERT_FATAL(g[i] >= 0);
	}
	EXPECT_INT(s->nodes[s->nodes[g[0]].parent].kind, IMP_SW);
	EXPECT_INT(s->nodes[g[0]].parent, s->nodes[g[1]].parent);
	CU_ASSERT_NOT_EQUAL(s->nodes[g[0]].parent, s->nodes[g[2]].parent);
	CU_ASSERT_NOT_EQUAL(fix_imp_root(s, g[0]), fix_imp_root(s, g[2]));
	EXPECT_INT(s->nodes[fix_imp_root(s, g[0])].socket, 0);
	EXPECT_INT(s->nodes[fix_imp_root(s, g[2])].socket, 0);
	EXPECT_INT(s->nodes[fix_imp_root(s, g[4])].socket, 1);
	EXPECT_INT(s->sockets, 2);
	EXPECT_INT(fix_imp_count(s, IMP_SW), 4);
	EXPECT_INT(fix_imp_count(s, IMP_RC), 4);
	EXPECT_INT(s->nsocket_cpus, 2);
	EXPECT_STR(s->socket_cpus[1], "64-127,192-238");
	EXPECT_STR(s->nodes[g[0]].model, IMP_GPU_UNSET);
	CU_ASSERT_PTR_NOT_NULL(strstr(s->nodes[g[0]].comment, "model not in the input"));
	EXPECT_INT(s->nvswitch, 0);
	EXPECT_INT(s->npairs, 0);
	imp_scn_free(s);
}

/* PXB pairs: a top switch with one leaf switch per PIX pair. */
static void test_switch_hierarchy(void)
{
	struct plumb_err e;
	struct imp_scn *s = import_file("topom-wrx90-cpayne-microchip-8x-rtxpro6000.txt", &e);
	int g0, g2, leaf0, leaf2;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	g0 = fix_imp_gpu_node(s, 0);
	g2 = fix_imp_gpu_node(s, 2);
	leaf0 = s->nodes[g0].parent;
	leaf2 = s->nodes[g2].parent;
	CU_ASSERT_NOT_EQUAL(leaf0, leaf2);
	EXPECT_INT(s->nodes[leaf0].kind, IMP_SW);
	EXPECT_INT(s->nodes[s->nodes[leaf0].parent].kind, IMP_SW);
	EXPECT_INT(s->nodes[leaf0].parent, s->nodes[leaf2].parent);
	EXPECT_INT(fix_imp_count(s, IMP_SW), 6);
	EXPECT_INT(fix_imp_count(s, IMP_RC), 2);
	EXPECT_INT(s->sockets, 1);
	imp_scn_free(s);
}

/* NV12 between all 8 GPUs: an NVSwitch system; fused "PH0-115" cell. */
static void test_nvswitch_and_fused_cell(void)
{
	struct plumb_err e;
	struct imp_scn *s = import_file("topom-cloud-vm-8xa100-sxm4-nv12-phb.txt", &e);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(s->nvswitch, 1);
	EXPECT_INT(s->links_per_gpu, 12);
	EXPECT_INT(s->npairs, 0);
	EXPECT_INT(s->nsocket_cpus, 1);
	EXPECT_STR(s->socket_cpus[0], "0-115");
	/* every endpoint PHB to every other: one root complex, a port each */
	EXPECT_INT(fix_imp_count(s, IMP_RC), 1);
	EXPECT_INT(fix_imp_count(s, IMP_RP), 16);
	imp_scn_free(s);

	s = import_file("topom-hgx-a100-distserve.txt", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(s->nvswitch, 1);
	EXPECT_INT(s->links_per_gpu, 12);
	EXPECT_STR(s->nodes[s->n - 1].model, "mlx5_3");
	imp_scn_free(s);
}

/* Partial NVLink mesh: pairs, not nvswitch. */
static void test_nvlink_pairs(void)
{
	struct plumb_err e;
	struct imp_scn *s = import_file("topom-th2k-4gpu-partial-nvlink.txt", &e);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(s->nvswitch, 0);
	EXPECT_INT(s->npairs, 4);
	EXPECT_INT(s->pairs[1].a, fix_imp_gpu_node(s, 0));
	EXPECT_INT(s->pairs[1].b, fix_imp_gpu_node(s, 2));
	EXPECT_INT(s->pairs[1].links, 1);
	imp_scn_free(s);
}

/* Truncated matrix: rows that exist are kept, mirror cells fill a missing row. */
static void test_truncated(void)
{
	struct plumb_err e;
	struct imp_scn *s = import_file("topom-k8s-8gpu-pix-phb-sys.txt", &e);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(fix_imp_count(s, IMP_GPU), 6);
	EXPECT_INT(s->nodes[fix_imp_gpu_node(s, 4)].parent, s->nodes[fix_imp_gpu_node(s, 5)].parent);
	CU_ASSERT(s->nnotes >= 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(s->notes[0], "GPU6 GPU7 mlx4_0"));
	imp_scn_free(s);
}

/* Real ESC[4m codes, spaces instead of tabs, "N/A" and empty NUMA. */
static void test_quirks(void)
{
	static const char esc[] =
		"$ nvidia-smi topo -m\n"
		"\t\x1b[4mGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
		"GPU0\t X \tPIX\tPHB\t0-7\tN/A\t\tN/A\n"
		"GPU1\tPIX\t X \tPHB\t0-7\t\t\tN/A\n"
		"NIC0\tPHB\tPHB\t X \n\nNIC Legend:\n\n  NIC0: mlx5_0\n";
	struct plumb_err e;
	struct imp_scn *s = import_text(esc, sizeof(esc) - 1, "esc.txt", &e);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(fix_imp_count(s, IMP_GPU), 2);
	EXPECT_INT(fix_imp_count(s, IMP_NIC), 1);
	EXPECT_INT(fix_imp_count(s, IMP_SW), 1);
	EXPECT_INT(fix_imp_count(s, IMP_RP), 2);
	EXPECT_STR(s->nodes[s->n - 1].model, "mlx5_0");
	EXPECT_STR(s->name, "imported-esc");
	EXPECT_STR(s->description, "Imported from esc.txt by plumb import topo-m");
	imp_scn_free(s);
}

/* The CPU vendor from what the input shows besides the matrix, or a note
 * that it shows none. */
static void test_cpu_vendor(void)
{
	static const char mat[] =
		"\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
		"GPU0\t X \tSYS\t0-31\t0\n"
		"GPU1\tSYS\t X \t32-63\t1\n";
	static const struct {
		const char *pre;
		enum imp_vendor v;
		const char *model, *note;
	} t[] = {
		{ "", IMP_CPU_OTHER, "", "cpu_vendor: other: topo -m does not show the CPU vendor "
		  "and the input has no lscpu line or CPU name; set host.cpu_vendor (amd or intel)" },
		{ "Architecture:  x86_64\nVendor ID:     GenuineIntel\n"
		  "Model name:    Intel(R) Xeon(R) Platinum 8480+\n", IMP_CPU_INTEL,
		  "Intel(R) Xeon(R) Platinum 8480+", "cpu_vendor: intel from the input (line 2: "
		  "GenuineIntel)" },
		{ "vendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9575F 64-Core Processor\n",
		  IMP_CPU_AMD, "AMD EPYC 9575F 64-Core Processor",
		  "cpu_vendor: amd from the input (line 1: AuthenticAMD)" },
		{ "Architecture: aarch64\n", IMP_CPU_ARM, "",
		  "cpu_vendor: arm from the input (line 1: aarch64)" },
		/* a brand name outweighs a kernel option */
		{ "cmdline: intel_iommu=on iommu=pt\nCPU: 2x EPYC 9654\n", IMP_CPU_AMD, "",
		  "cpu_vendor: amd from the input (line 2: EPYC)" },
		{ "cmdline: amd_iommu=off\n", IMP_CPU_AMD, "",
		  "cpu_vendor: amd from the input (line 1: amd_iommu)" },
		{ "CPU: Xeon, or was it an EPYC?\n", IMP_CPU_OTHER, "",
		  "cpu_vendor: other: the input names CPUs of two vendors (line 1: EPYC); set "
		  "host.cpu_vendor" },
		/* an emulated Intel chipset and prose are not a CPU */
		{ "bridge Intel 82G33 in a grace period; Core count 64\n", IMP_CPU_OTHER, "",
		  "cpu_vendor: other: topo -m does not show the CPU vendor and the input has no "
		  "lscpu line or CPU name; set host.cpu_vendor (amd or intel)" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char text[1024];
		struct plumb_err e;
		struct imp_scn *s;
		int len = snprintf(text, sizeof(text), "%s%s", t[i].pre, mat);
		s = import_text(text, (size_t)len, "v.txt", &e);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		EXPECT_INT(s->cpu_vendor, t[i].v);
		EXPECT_STR(s->cpu_model, t[i].model);
		CU_ASSERT_FATAL(s->nnotes > 0);
		EXPECT_STR(s->notes[0], t[i].note);
		imp_scn_free(s);
	}
}

/* Exact output for a small sample, and the same bytes twice. */
static void test_yaml_exact(void)
{
	static const char want[] =
		"# Scenario skeleton written by `plumb import`; check it against the\n"
		"# machine before use.\n"
		"# cpu_vendor: amd from the input (line 3: amd_iommu)\n"
		"# topo -m does not name the GPU model: GPUs written as set-gpu-model, which "
		"does not load until set to a catalog id; or give --gpu-model ID\n"
		"# gpu0: GPU0: model not in the input (--gpu-model)\n"
		"# gpu1: GPU1: model not in the input (--gpu-model)\n"
		"plumb_scenario: 1\n"
		"name: \"imported-topom-2x5070-phb\"\n"
		"description: \"Imported from tests/data/import/topom-2x5070-phb.txt by plumb "
		"import topo-m\"\n"
		"host:\n"
		"  cpu_vendor: amd\n"
		"  sockets: 1\n"
		"  socket_cpus: [\"0-23\"]\n"
		"pcie:\n"
		"- {id: rc0, kind: root_complex, socket: 0}\n"
		"- {id: rp0, kind: root_port, parent: rc0}\n"
		"- {id: gpu0, kind: gpu, parent: rp0, model: set-gpu-model}\n"
		"- {id: rp1, kind: root_port, parent: rc0}\n"
		"- {id: gpu1, kind: gpu, parent: rp1, model: set-gpu-model}\n";
	struct plumb_err e;
	struct imp_scn *s = import_file("topom-2x5070-phb.txt", &e), *s2;
	char *a, *b;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	a = fix_imp_yaml(s);
	EXPECT_STR(a, want);
	s2 = import_file("topom-2x5070-phb.txt", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
	b = fix_imp_yaml(s2);
	EXPECT_STR(b, a);
	free(a);
	free(b);
	imp_scn_free(s);
	imp_scn_free(s2);
}

static void expect_error(const char *text, size_t len, int line, int col, const char *msg)
{
	struct plumb_err e;
	struct imp_scn *s = import_text(text, len, "bad.txt", &e);

	CU_ASSERT_PTR_NULL(s);
	imp_scn_free(s);
	EXPECT_INT(e.code, PLUMB_EINPUT);
	EXPECT_STR(e.file, "bad.txt");
	EXPECT_INT(e.line, line);
	EXPECT_INT(e.col, col);
	EXPECT_STR(e.msg, msg);
}

/* A generated n-GPU matrix, every pair `cell` (caller frees). */
static char *matrix(int n, const char *cell, size_t *len)
{
	size_t cap = (size_t)(n + 2) * ((size_t)n * 8 + 64), o = 0;
	char *t = malloc(cap);
	int i, j;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (j = 0; j < n; j++)
		o += (size_t)snprintf(t + o, cap - o, "\tGPU%d", j);
	o += (size_t)snprintf(t + o, cap - o, "\tCPU Affinity\tNUMA Affinity\n");
	for (i = 0; i < n; i++) {
		o += (size_t)snprintf(t + o, cap - o, "GPU%d", i);
		for (j = 0; j < n; j++)
			o += (size_t)snprintf(t + o, cap - o, "\t%s", i == j ? "X" : cell);
		o += (size_t)snprintf(t + o, cap - o, "\t0-63\t0\n");
	}
	*len = o;
	return t;
}

/* What imports loads, and a matrix past the import's limit (one box of
 * IMP_MAX_GPUS) is refused at its header, never cut short. */
static void test_limits(void)
{
	struct plumb_err e;
	struct imp_scn *s;
	struct scenario *scn = NULL;
	size_t len;
	char *t = matrix(IMP_MAX_GPUS, "NV18", &len), *y;

	s = import_text(t, len, "nv64.txt", &e);
	free(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	EXPECT_INT(name_gpus(s, "rtx-pro-6000"), IMP_MAX_GPUS);
	y = fix_imp_yaml(s);
	if (scn_parse("nv64.yaml", y, &scn, &e) < 0)
		printf("\n  64 x NV18: imported YAML does not load: %d:%d: %s\n", e.line, e.col, e.msg);
	CU_ASSERT_PTR_NOT_NULL(scn);
	if (scn) {
		EXPECT_INT(scn->ngpus, IMP_MAX_GPUS);
		EXPECT_INT(scn->nnvlink, IMP_MAX_GPUS * (IMP_MAX_GPUS - 1) / 2);
	}
	scn_free(scn);
	free(y);
	imp_scn_free(s);

	t = matrix(IMP_MAX_GPUS + 1, "SYS", &len);
	CU_ASSERT_PTR_NULL(import_text(t, len, "bad.txt", &e));
	EXPECT_INT(e.code, PLUMB_EINPUT);
	EXPECT_INT(e.line, 1);
	EXPECT_INT(e.col, (int)(strstr(t, "\tGPU64\t") - t) + 2);
	EXPECT_STR(e.msg, "more than 64 GPUs: plumb import reads one box of at most 64");
	free(t);
	t = matrix(200, "SYS", &len);
	CU_ASSERT_PTR_NULL(import_text(t, len, "bad.txt", &e));
	EXPECT_STR(e.msg, "more than 64 GPUs: plumb import reads one box of at most 64");
	free(t);
}

static void test_errors(void)
{
	static const char binary[] = "GPU0\tGPU1\n\x01\x02\0\xff\xfe";
	static const char ragged[] =
		"\tGPU0\tGPU1\tGPU2\n"
		"GPU0\t X \tPIX\tPIX\n"
		"GPU1\tPIX\t X \n"
		"GPU2\tPIX\tPIX\t X \n";
	static const char badcell[] =
		"        GPU0    GPU1\n"
		"GPU0     X      FOO\n"
		"GPU1    PIX      X\n";
	static const char diag[] =
		"        GPU0    GPU1\n"
		"GPU0    PIX     PIX\n";

	expect_error("", 0, 0, 0, "empty input; expected the output of nvidia-smi topo -m");
	expect_error(" \n\t\n", 4, 0, 0, "empty input; expected the output of nvidia-smi topo -m");
	expect_error("hello\nno matrix here\n", 21, 0, 0,
		     "no nvidia-smi topo -m matrix found (expected a header line with GPU0, "
		     "GPU1, ... and one row per GPU)");
	expect_error(binary, sizeof(binary) - 1, 0, 0,
		     "binary input (NUL byte at offset 12); expected the output of "
		     "nvidia-smi topo -m");
	expect_error(ragged, sizeof(ragged) - 1, 3, 1,
		     "row GPU1 has 2 cells but the header has 3 columns");
	expect_error(badcell, sizeof(badcell) - 1, 2, 17,
		     "row GPU0, column GPU1: unknown cell 'FOO' (expected X, PIX, PXB, PHB, "
		     "NODE, SYS or NV#)");
	expect_error(diag, sizeof(diag) - 1, 2, 9,
		     "row GPU0, column GPU0: the diagonal cell must be 'X'");
}

/* Every prefix of a sample, and pseudo-random bytes: an answer, no crash. */
static void test_no_crash(void)
{
	static const char *const files[] = {
		"topom-asus-esc8000a-e13p-8x-rtxpro6000-raw.txt",
		"topom-cloud-vm-8xa100-sxm4-nv12-phb.txt",
		"topom-hgx-h20-3e-nv18.txt",
		"topom-2gpu-node-p2p-ns.txt",
	};
	size_t f;

	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[256], *buf;
		size_t len;
		snprintf(path, sizeof(path), DATA "%s", files[f]);
		if (!(buf = fix_imp_read(path, &len)))
			continue;
		fix_imp_prefixes(imp_topom_parse, buf, len, 7);
		free(buf);
	}
	/* mostly matrix-like tokens, some raw bytes, never NUL */
	fix_imp_junk(imp_topom_parse, "GPU0123 \t\nXPIXSYSNV", 19, 12345);
}

void suite_import_topom(void)
{
	CU_pSuite s = CU_add_suite("import_topom", NULL, NULL);

	CU_add_test(s, "every topo -m sample imports and loads", test_samples);
	CU_add_test(s, "asus: GPU pairs share a switch", test_asus_structure);
	CU_add_test(s, "PXB: top switch and leaf switches", test_switch_hierarchy);
	CU_add_test(s, "NV12 everywhere: nvswitch; fused cell", test_nvswitch_and_fused_cell);
	CU_add_test(s, "partial NVLink: pairs", test_nvlink_pairs);
	CU_add_test(s, "truncated matrix", test_truncated);
	CU_add_test(s, "ANSI codes, N/A and empty NUMA", test_quirks);
	CU_add_test(s, "exact and deterministic YAML", test_yaml_exact);
	CU_add_test(s, "the CPU vendor from the input, or a note", test_cpu_vendor);
	CU_add_test(s, "malformed input: exact errors", test_errors);
	CU_add_test(s, "the import's limits: 64 GPUs, every pair bonded", test_limits);
	CU_add_test(s, "prefixes and junk do not crash", test_no_crash);
}
