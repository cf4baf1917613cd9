/*
 * test_scn.c - the scenario loader (io/scn.h): every bundled scenario loads,
 * the GPU catalog, defaults, GPU numbering, inherited link values, and the
 * position and code of errors for invalid input.
 *
 * Run from the repository root (make check does): the bundled scenarios are
 * every .yaml file directly in scenarios/.
 */
#include <CUnit/CUnit.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "scn.h"

void suite_scn(void);

/* The smallest valid scenario; tests append to or edit a copy of it. */
#define MINI_PCIE \
	"pcie:\n" \
	"  - {id: rc0, kind: root_complex, socket: 0}\n" \
	"  - {id: rp0, kind: root_port, parent: rc0}\n" \
	"  - {id: gpu0, kind: gpu, parent: rp0, model: rtx-pro-6000}\n"

/*
 * Expected-failure case: text must fail with code at line:col and a message
 * containing sub. `at` is the caller's line, printed when the case fails.
 */
#define expect_fail(...) expect_fail_at(__LINE__, __VA_ARGS__)
static void expect_fail_at(int at, const char *text, int code, int line, int col,
			   const char *sub)
{
	struct scenario *s = (struct scenario *)1;
	struct plumb_err e;
	int rc;

	plumb_err_clear(&e);
	rc = scn_parse("bad.yaml", text, &s, &e);
	if (rc != -code || e.line != line || e.col != col || !strstr(e.msg, sub))
		printf("\n  case at %s:%d: got %d, %s:%d:%d: %s\n", __FILE__, at, rc,
		       e.file, e.line, e.col, e.msg);
	EXPECT_INT(rc, -code);
	CU_ASSERT_PTR_NULL(s);
	EXPECT_INT(e.code, code);
	EXPECT_INT(e.line, line);
	EXPECT_INT(e.col, col);
	EXPECT_STR(e.file, "bad.yaml");
	if (!strstr(e.msg, sub))
		printf("\n  message \"%s\" lacks \"%s\"\n", e.msg, sub);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, sub));
	if (rc == 0)
		scn_free(s);
}

/* GPU count from a bundled scenario's name: "...-8x-..." -> 8. */
/* GPUs a bundled scenario's name gives: "8x", or hosts times GPUs ("2x-hgx-8x"). */
static int gpus_in_name(const char *path)
{
	const char *p = strrchr(path, '/'), *base;
	int n = -1;
	p = base = p ? p + 1 : path;
	for (; *p; p++)
		if (*p >= '1' && *p <= '9' && (p[1] == 'x' || (p[1] >= '0' && p[1] <= '9' && p[2] == 'x')) &&
		    (p == base || p[-1] == '-'))
			n = n < 0 ? atoi(p) : n * atoi(p);
	return n;
}

static void test_bundled_scenarios(void)
{
	glob_t g;
	size_t i;
	int rc = glob("scenarios/*.yaml", 0, NULL, &g);

	if (rc != 0)
		printf("\n  no scenarios/*.yaml (run from the repository root)\n");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT(g.gl_pathc >= 1);
	for (i = 0; i < g.gl_pathc; i++) {
		const char *path = g.gl_pathv[i];
		struct scenario *s = NULL;
		struct plumb_err e;
		int want = gpus_in_name(path), j;

		plumb_err_clear(&e);
		rc = scn_load(path, &s, &e);
		if (rc != 0)
			printf("\n  %s: %s:%d:%d: %s\n", path, e.file, e.line, e.col, e.msg);
		EXPECT_INT(rc, 0);
		if (!s)
			continue;
		if (want != s->ngpus)
			printf("\n  %s: %d GPUs, its name says %d\n", path, s->ngpus, want);
		EXPECT_INT(s->ngpus, want);
		CU_ASSERT(want == 8 || want == 2 || want == 16);
		CU_ASSERT(s->name[0] != '\0');
		CU_ASSERT_PTR_NOT_NULL(s->catalog);
		/* The loader's guarantees (scn.h): parents come first, GPUs in order. */
		for (j = 0; j < s->nnodes; j++) {
			const struct scn_node *d = &s->nodes[j];
			if (d->kind == SCN_ROOT_COMPLEX)
				EXPECT_INT(d->parent, -1);
			else
				CU_ASSERT(d->parent >= 0 && d->parent < j);
			CU_ASSERT(d->socket >= 0 && d->socket < s->host.sockets);
		}
		for (j = 0; j < s->ngpus; j++) {
			EXPECT_INT(s->nodes[s->gpu_node[j]].gpu_index, j);
			CU_ASSERT(j == 0 || s->gpu_node[j] > s->gpu_node[j - 1]);
		}
		scn_free(s);
	}
	globfree(&g);
}

static void test_seed_scenario_values(void)
{
	struct scenario *s = NULL;
	struct plumb_err e;
	int rc = scn_load("scenarios/proxmox-vm-8x-rtxpro6000.yaml", &s, &e);

	EXPECT_INT(rc, 0);
	if (!s)
		return;
	EXPECT_STR(s->name, "proxmox-vm-8x-rtxpro6000");
	EXPECT_INT(s->host.cpu_vendor, SCN_AMD);
	EXPECT_INT(s->host.sockets, 2);
	EXPECT_INT(s->host.p2p_across_sockets, 1);
	EXPECT_INT(s->vm.mode, SCN_VM);
	/* As benchmarked: i440FX, no pcie=1, the host IOMMU translating. */
	EXPECT_INT(s->vm.chipset, SCN_I440FX);
	EXPECT_INT(s->vm.pcie_passthrough, 0);
	EXPECT_INT(s->vm.firmware, SCN_SEABIOS);
	EXPECT_INT(s->vm.guest_phys_bits, 40);
	EXPECT_U64(s->vm.mmio64_window, 3ull << 39);   /* 1.5T */
	EXPECT_U64(s->vm.guest_ram, 432ull << 30);
	EXPECT_INT(s->vm.host_iommu, SCN_IOMMU_TRANSLATE);
	EXPECT_INT(s->vm.pci_realloc, 1);
	EXPECT_STR(s->vm.kernel_args, "pci=realloc");
	EXPECT_INT(s->vm.p2p_exposure, SCN_P2P_NONE);
	EXPECT_INT(s->vm.guest_numa, 0);
	EXPECT_INT(s->ngpus, 8);
	/* GPUs 0-3 on socket 0, 4-7 on socket 1, each Gen5 x16. */
	EXPECT_INT(s->nodes[s->gpu_node[3]].socket, 0);
	EXPECT_INT(s->nodes[s->gpu_node[4]].socket, 1);
	EXPECT_INT(s->nodes[s->gpu_node[7]].numa, 1);
	EXPECT_INT(s->nodes[s->gpu_node[0]].gen, 5);
	EXPECT_INT(s->nodes[s->gpu_node[0]].width, 16);
	scn_free(s);
	scn_free(NULL);
}

static void test_catalog(void)
{
	struct plumb_err e;
	const struct scn_catalog *c = scn_catalog_builtin(&e);
	const struct scn_gpu_model *m;
	struct scn_catalog *file = NULL;
	int i, found = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT(c->n >= 8);
	CU_ASSERT_PTR_EQUAL(scn_catalog_builtin(&e), c);   /* parsed once */
	i = scn_catalog_find(c, "rtx-pro-6000");
	CU_ASSERT_FATAL(i >= 0);
	EXPECT_INT(scn_catalog_find(c, "rtx-pro-600"), -1);
	m = &c->gpus[i];
	EXPECT_STR(m->id, "rtx-pro-6000");
	EXPECT_INT(m->pcie_gen, 5);
	EXPECT_INT(m->pcie_width, 16);
	EXPECT_INT(m->p2p, SCN_P2P_NATIVE);
	EXPECT_INT(m->nvlink_links, 0);
	CU_ASSERT_DOUBLE_EQUAL(m->memory_gib, 96, 1e-9);
	for (i = 0; i < m->nbars; i++) {
		if (m->bars[i].region != 2)
			continue;
		found = 1;
		EXPECT_U64(m->bars[i].size, 128ull << 30);
		EXPECT_INT(m->bars[i].bits, 64);
		EXPECT_INT(m->bars[i].prefetchable, 1);
	}
	EXPECT_INT(found, 1);
	EXPECT_U64(scn_gpu_bar_total(m), (64ull << 20) + (128ull << 30) + (32ull << 20));
	/* Every entry's BARs are powers of two; every id is unique. */
	for (i = 0; i < c->n; i++) {
		int b, j;
		for (b = 0; b < c->gpus[i].nbars; b++) {
			uint64_t sz = c->gpus[i].bars[b].size;
			if (sz == 0 || (sz & (sz - 1)))
				printf("\n  %s BAR %d size %llu is not a power of two\n", c->gpus[i].id,
				       c->gpus[i].bars[b].region, (unsigned long long)sz);
			CU_ASSERT(sz != 0 && (sz & (sz - 1)) == 0);
		}
		for (j = 0; j < i; j++)
			CU_ASSERT(strcmp(c->gpus[i].id, c->gpus[j].id) != 0);
	}

	/* The file in the tree parses to the same catalog as the compiled-in one. */
	{
		FILE *f = fopen("scenarios/catalog/gpus.yaml", "rb");
		static char text[1 << 17];
		size_t n;
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		EXPECT_INT(scn_catalog_parse("scenarios/catalog/gpus.yaml", text, &file, &e), 0);
		if (file) {
			EXPECT_INT(file->n, c->n);
			free(file);
		}
	}
}

/* A GPU entry's `constants:` are the defaults of scenarios built of that
 * model; the scenario's own `constants:` win; only gpu-scope ones fit. */
static void test_catalog_consts(void)
{
	static const char cat_ok[] =
		"catalog: gpus\ngpus:\n"
		"  - {id: x, name: X, memory_gib: 8, memory_gbs: 100, tflops: {bf16: 1},\n"
		"     constants: {mem_eff: 0.5, kmin_gemm_us: 3}}\n";
	static const char cat_engine[] =
		"catalog: gpus\ngpus:\n"
		"  - {id: x, name: X, memory_gib: 8, memory_gbs: 100,\n"
		"     constants: {step_overhead_us: 5}}\n";
	struct scn_catalog *c = NULL;
	struct plumb_err e;
	struct scenario *s;
	int k = consts_find("mem_eff"), g = consts_find("kmin_gemm_us");

	EXPECT_INT(scn_catalog_parse("cat.yaml", cat_ok, &c, &e), 0);
	if (c) {
		EXPECT_INT(c->gpus[0].k.set[k], 1);
		CU_ASSERT_DOUBLE_EQUAL(c->gpus[0].k.v[k], 0.5, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(c->gpus[0].k.v[g], 3, 1e-12);
		EXPECT_INT(c->gpus[0].k.set[consts_find("attn_mem_eff")], 0);
		free(c);
	}
	c = NULL;
	plumb_err_clear(&e);
	EXPECT_INT(scn_catalog_parse("cat.yaml", cat_engine, &c, &e), -PLUMB_EINPUT);
	EXPECT_INT(e.line, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'step_overhead_us' has engine scope"));
	free(c);

	/* The bundled rtx-pro-6000 entry: its values unless the scenario sets one. */
	s = fix_load("plumb_scenario: 1\n" MINI_PCIE);
	if (s) {
		const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[0]].gpu_model];
		CU_ASSERT(m->k.set[g]);
		CU_ASSERT_DOUBLE_EQUAL(s->k.v[g], m->k.v[g], 1e-12);
		EXPECT_INT(s->k_catalog[g], 1);
		EXPECT_INT(s->k.set[g], 0);
		EXPECT_INT(s->k_catalog[consts_find("d2d_eff")], 0);
		scn_free(s);
	}
	s = fix_load("plumb_scenario: 1\nconstants: {kmin_gemm_us: 4.5}\n" MINI_PCIE);
	if (s) {
		CU_ASSERT_DOUBLE_EQUAL(s->k.v[g], 4.5, 1e-12);
		EXPECT_INT(s->k_catalog[g], 0);
		scn_free(s);
	}
}

/* A catalog entry's cited constants: {value, basis, source, range}, what
 * each rests on, the range its draws take, and errors at their place. */
static void test_catalog_sources(void)
{
	static const char cat[] =
		"catalog: gpus\ngpus:\n"
		"  - id: x\n"
		"    memory_gib: 8\n"
		"    memory_gbs: 100\n"
		"    constants:\n"
		"      mem_eff: {value: 0.8, basis: measured, source: \"a/b issue 1\", range: [0.7, 0.85]}\n"
		"      attn_mem_eff: {value: 0.6, basis: fitted, source: \"a fit\"}\n"
		"      kmin_gemm_us: {basis: assumed, source: \"no GEMV timing\"}\n"
		"      kmin_moe_us: {value: 9, basis: assumed, source: \"a guess\", range: [3, 20]}\n"
		"      moe_mem_eff: {value: 0.5, basis: measured, source: \"c/d PR 2\"}\n"
		"      d2d_eff: 0.9\n";
	/* one bad constant at a time, in an otherwise good entry: line 7 */
	static const struct { const char *k, *sub; int col; } bad[] = {
		{ "{value: 0.8, basis: measured}", "'mem_eff' needs 'source'", 16 },
		{ "{value: 0.8, source: \"s\"}", "'mem_eff' needs 'basis'", 16 },
		{ "{value: 0.8, basis: guessed, source: \"s\"}", "basis", 36 },
		{ "{basis: measured, source: \"s\"}", "'mem_eff' needs 'value'", 16 },
		{ "{value: 0.8, basis: measured, source: \"\"}", "empty 'source'", 54 },
		{ "{value: 0.8, basis: measured, source: \"s\", range: [0.85, 0.9]}",
		  "must hold its value 0.8", 66 },
		{ "{value: 0.8, basis: measured, source: \"s\", range: [0.7]}", "two numbers", 66 },
		{ "{value: 0.8, basis: measured, source: \"s\", spread: 1}", "unknown key", 59 },
		{ "{value: 2, basis: measured, source: \"s\"}", "mem_eff", 24 },
	};
	int me = consts_find("mem_eff"), am = consts_find("attn_mem_eff"),
	    kg = consts_find("kmin_gemm_us"), km = consts_find("kmin_moe_us"),
	    mm = consts_find("moe_mem_eff"), dd = consts_find("d2d_eff");
	struct scn_catalog *c = NULL;
	const struct scn_gpu_ksrc *ks;
	struct plumb_err e;
	struct scenario *s;
	char text[2048];
	size_t i;

	plumb_err_clear(&e);
	EXPECT_INT(scn_catalog_parse("cat.yaml", cat, &c, &e), 0);
	if (c) {
		const struct scn_gpu_model *g = &c->gpus[0];
		EXPECT_INT(g->nksrc, 5);
		ks = scn_gpu_ksrc_find(g, me);
		CU_ASSERT_PTR_NOT_NULL(ks);
		if (ks) {
			EXPECT_INT(ks->basis, BASIS_MEASURED);
			EXPECT_INT(ks->line, 7);
			EXPECT_INT(ks->col, 7);
			CU_ASSERT_STRING_EQUAL(ks->source, "a/b issue 1");
			CU_ASSERT_DOUBLE_EQUAL(ks->lo, 0.7, 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(ks->hi, 0.85, 1e-12);
		}
		CU_ASSERT_DOUBLE_EQUAL(g->k.v[me], 0.8, 1e-12);
		/* fitted without a range: within CONSTS_MEASURED_SPREAD */
		ks = scn_gpu_ksrc_find(g, am);
		if (ks) {
			EXPECT_INT(ks->basis, BASIS_FITTED);
			CU_ASSERT_DOUBLE_EQUAL(ks->lo, 0.6 / (1 + CONSTS_MEASURED_SPREAD), 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(ks->hi, 0.6 * (1 + CONSTS_MEASURED_SPREAD), 1e-12);
		}
		/* assumed without a value: the global default, drawn over the plausible range */
		ks = scn_gpu_ksrc_find(g, kg);
		CU_ASSERT_PTR_NOT_NULL(ks);
		if (ks) {
			EXPECT_INT(ks->basis, BASIS_ASSUMED);
			CU_ASSERT_DOUBLE_EQUAL(ks->lo, 0, 0);
			CU_ASSERT_DOUBLE_EQUAL(ks->hi, 0, 0);
		}
		EXPECT_INT(g->k.set[kg], 0);
		ks = scn_gpu_ksrc_find(g, km);
		if (ks)
			CU_ASSERT_DOUBLE_EQUAL(ks->hi, 20, 1e-12);
		/* the MoE kernels' constants belong to a GPU entry too */
		EXPECT_INT(g->k.set[mm], 1);
		/* a bare number: the entry's value, no source of its own */
		EXPECT_INT(g->k.set[dd], 1);
		CU_ASSERT_PTR_NULL(scn_gpu_ksrc_find(g, dd));
		CU_ASSERT_STRING_EQUAL(g->cat_file, "cat.yaml");
		free(c);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "catalog: gpus\ngpus:\n  - id: x\n    memory_gib: 8\n"
			 "    memory_gbs: 100\n    constants:\n      mem_eff: %s\n", bad[i].k);
		c = NULL;
		plumb_err_clear(&e);
		EXPECT_INT(scn_catalog_parse("cat.yaml", text, &c, &e), -PLUMB_EINPUT);
		EXPECT_INT(e.line, 7);
		EXPECT_INT(e.col, bad[i].col);
		if (!strstr(e.msg, bad[i].sub))
			printf("\n  case %zu: '%s' lacks '%s'\n", i, e.msg, bad[i].sub);
		CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, bad[i].sub));
		free(c);
	}

	/* A scenario of that model: the draw ranges and where each value comes
	 * from; its own constants: win and say their line. */
	s = fix_load("plumb_scenario: 1\n"
		     "gpu_models:\n"
		     "  - id: y\n"
		     "    memory_gib: 8\n"
		     "    memory_gbs: 100\n"
		     "    tflops: {bf16: 100}\n"
		     "    constants:\n"
		     "      mem_eff: {value: 0.8, basis: measured, source: \"a/b issue 1\", range: [0.7, 0.85]}\n"
		     "      kmin_attn_us: {value: 4, basis: measured, source: \"e/f PR 3\"}\n"
		     "constants:\n"
		     "  kmin_attn_us: 6\n"
		     "pcie:\n"
		     "  - {id: rc0, kind: root_complex, socket: 0}\n"
		     "  - {id: rp0, kind: root_port, parent: rc0}\n"
		     "  - {id: gpu0, kind: gpu, parent: rp0, model: y}\n");
	if (s) {
		int ka = consts_find("kmin_attn_us");
		double lo, hi;
		CU_ASSERT(s->k_model >= 0);
		EXPECT_INT(s->k_catalog[me], 1);
		consts_draw_range(&s->k, me, &lo, &hi);
		CU_ASSERT_DOUBLE_EQUAL(lo, 0.7, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(hi, 0.85, 1e-12);
		/* a value the scenario sets is not the catalog's */
		EXPECT_INT(s->k_catalog[ka], 0);
		EXPECT_INT(s->k.set[ka], 1);
		EXPECT_INT(s->k_line[ka], 11);
		EXPECT_INT(s->k_col[ka], 3);
		EXPECT_INT(s->k_line[me], 0);
		/* a constant no entry names keeps its plausible range */
		consts_draw_range(&s->k, kg, &lo, &hi);
		CU_ASSERT_DOUBLE_EQUAL(lo, plumb_const_defs[kg].plo, 0);
		CU_ASSERT_DOUBLE_EQUAL(hi, plumb_const_defs[kg].phi, 0);
		scn_free(s);
	}
}

/* Every constant of the bundled catalog's entries with public serving
 * points is cited: {value, basis, source}, none a bare number (the GEMM
 * FLOP efficiencies aside: they are stated per dtype elsewhere), and
 * each kernel constant is there, measured, fitted or assumed. */
static void test_catalog_cited(void)
{
	static const char *const ids[] = { "h100-sxm", "h200", "b200", "a100-sxm", "rtx-pro-6000",
					   "rtx-5090", "l40s" };
	static const char *const kernel[] = { "kmin_gemm_us", "kmin_moe_us", "kmin_attn_us",
					      "kmin_elem_us", "kernel_launch_us", "attn_mem_eff",
					      "mem_eff" };
	struct plumb_err e;
	const struct scn_catalog *c = scn_catalog_builtin(&e);
	size_t i, j;
	int k;

	CU_ASSERT_PTR_NOT_NULL(c);
	if (!c)
		return;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		int m = scn_catalog_find(c, ids[i]);
		const struct scn_gpu_model *g;
		CU_ASSERT(m >= 0);
		if (m < 0)
			continue;
		g = &c->gpus[m];
		for (k = 0; k < K_NCONSTS; k++)
			if (g->k.set[k] && !scn_gpu_ksrc_find(g, k) && k != K_FLOPS_EFF &&
			    k != K_FP4_FLOPS_EFF) {
				printf("\n  %s: %s has no source\n", g->id, plumb_const_defs[k].name);
				CU_FAIL("a bundled constant without a source");
			}
		for (j = 0; j < sizeof(kernel) / sizeof(kernel[0]); j++)
			if (!scn_gpu_ksrc_find(g, consts_find(kernel[j]))) {
				printf("\n  %s: %s is neither measured nor marked assumed\n", g->id,
				       kernel[j]);
				CU_FAIL("a kernel constant the entry does not state");
			}
	}
}

/* serving: mtp accept as one rate or one per draft position. */
static void test_mtp_accept(void)
{
	struct scenario *s = fix_load("plumb_scenario: 1\n" MINI_PCIE
				      "serving: {mtp: {draft: 3, accept: [0.9, 0.7, 0.5]}}\n");
	if (s) {
		EXPECT_INT(s->serving.mtp_draft, 3);
		EXPECT_INT(s->serving.mtp_naccept, 3);
		CU_ASSERT_DOUBLE_EQUAL(s->serving.mtp_accept_pos[2], 0.5, 1e-12);
		scn_free(s);
	}
	s = fix_load("plumb_scenario: 1\n" MINI_PCIE "serving: {mtp: {draft: 2, accept: 0.6}}\n");
	if (s) {
		EXPECT_INT(s->serving.mtp_naccept, 0);
		CU_ASSERT_DOUBLE_EQUAL(s->serving.mtp_accept, 0.6, 1e-12);
		scn_free(s);
	}
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "serving: {mtp: {draft: 2, accept: [0.9, 0.7, 0.5]}}\n",
		    PLUMB_EINPUT, 6, 35, "one rate per draft position");
}

/* serving: the MoE runner and the routing skew, defaults fused and 0. */
static void test_serving_moe(void)
{
	struct scenario *s = fix_load("plumb_scenario: 1\n" MINI_PCIE
				      "serving: {moe_runner: deepep, moe_skew: 0.8, "
				      "two_batch_overlap: true, redundant_experts: 32}\n");
	if (s) {
		EXPECT_INT(s->serving.moe.runner, SCN_MOE_DEEPEP);
		CU_ASSERT_DOUBLE_EQUAL(s->serving.moe.skew, 0.8, 1e-12);
		EXPECT_INT(s->serving.moe.tbo, 1);
		EXPECT_INT(s->serving.moe.redundant, 32);
		scn_free(s);
	}
	s = fix_load("plumb_scenario: 1\n" MINI_PCIE "serving: {engine: vllm}\n");
	if (s) {
		EXPECT_INT(s->serving.moe.runner, SCN_MOE_FUSED);
		CU_ASSERT_DOUBLE_EQUAL(s->serving.moe.skew, 0, 1e-12);
		EXPECT_INT(s->serving.moe.tbo, 0);
		EXPECT_INT(s->serving.moe.redundant, 0);
		scn_free(s);
	}
	expect_fail("plumb_scenario: 1\n" MINI_PCIE "serving: {moe_runner: grouped}\n",
		    PLUMB_EINPUT, 6, 23, "unknown moe_runner 'grouped'");
}

/* hosts: two boxes from one box file, numbered across the hosts. */
static void test_hosts(void)
{
	struct scenario *s = NULL;
	struct plumb_err e;
	int i;

	plumb_err_clear(&e);
	EXPECT_INT(scn_load("tests/data/multihost/two-h200.yaml", &s, &e), 0);
	if (!s) {
		printf("\n  %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
		return;
	}
	EXPECT_INT(s->nhosts, 2);
	EXPECT_INT(s->ngpus, 16);
	EXPECT_INT(s->host.sockets, 4);
	EXPECT_INT(s->hosts[1].first_gpu, 8);
	EXPECT_INT(s->hosts[1].first_socket, 2);
	EXPECT_INT(s->hosts[0].nnics, 4);
	EXPECT_INT(s->net.kind, SCN_NET_ROCE);
	CU_ASSERT_DOUBLE_EQUAL(s->net.port_gbps, 400, 1e-12);
	CU_ASSERT_STRING_EQUAL(s->hosts[1].name, "h1");
	CU_ASSERT_STRING_EQUAL(s->nodes[s->gpu_node[8]].id, "h1.gpu0");
	EXPECT_INT(s->nodes[s->gpu_node[8]].host, 1);
	EXPECT_INT(s->nodes[s->gpu_node[8]].socket, 2);
	/* 28 NVSwitch pairs per box, none between the boxes */
	EXPECT_INT(s->nnvlink, 56);
	for (i = 0; i < s->nnvlink; i++)
		CU_ASSERT((s->nvlink[i].a < 8) == (s->nvlink[i].b < 8));
	for (i = 0; i < s->nnodes; i++)
		CU_ASSERT(s->nodes[i].parent < i);
	scn_free(s);
}

static void test_defaults(void)
{
	struct scenario *s;

	/* No host, no virtualization block: one socket, bare metal. */
	s = fix_load("plumb_scenario: 1\n" MINI_PCIE);
	if (s) {
		EXPECT_INT(s->vm.mode, SCN_BARE_METAL);
		EXPECT_INT(s->host.sockets, 1);
		EXPECT_INT(s->host.numa_per_socket, 1);
		EXPECT_INT(s->host.cpu_vendor, SCN_OTHER_CPU);
		EXPECT_INT(s->seed, 1);
		EXPECT_INT(s->nnvlink, 0);
		EXPECT_INT(s->nvswitch, 0);
		EXPECT_INT(s->ngpus, 1);
		/* Unstated links: a root port follows its device (0), the GPU the catalog. */
		EXPECT_INT(s->nodes[1].gen, 0);
		EXPECT_INT(s->nodes[1].width, 0);
		EXPECT_INT(s->nodes[2].gen, 5);
		EXPECT_INT(s->nodes[2].width, 16);
		EXPECT_INT(s->nodes[1].acs, 1);
		scn_free(s);
	}
	s = fix_load("plumb_scenario: 1\nhost: {cpu_vendor: amd, sockets: 2}\n" MINI_PCIE);
	if (s) {
		EXPECT_INT(s->host.p2p_across_sockets, 1);
		scn_free(s);
	}
	s = fix_load("plumb_scenario: 1\nhost: {cpu_vendor: intel, sockets: 2}\n" MINI_PCIE);
	if (s) {
		EXPECT_INT(s->host.p2p_across_sockets, 0);
		scn_free(s);
	}
	s = fix_load("plumb_scenario: 1\nhost: {cpu_vendor: amd, p2p_across_sockets: false}\n" MINI_PCIE);
	if (s) {
		EXPECT_INT(s->host.p2p_across_sockets, 0);
		scn_free(s);
	}
	s = fix_load("plumb_scenario: 1\nhost: {cpu_vendor: intel, p2p_across_sockets: true}\n" MINI_PCIE);
	if (s) {
		EXPECT_INT(s->host.p2p_across_sockets, 1);
		scn_free(s);
	}
	/* A VM block with only the mode takes QEMU q35's defaults. */
	s = fix_load("plumb_scenario: 1\n" MINI_PCIE "virtualization: {mode: vm}\n");
	if (s) {
		EXPECT_INT(s->vm.mode, SCN_VM);
		EXPECT_INT(s->vm.chipset, SCN_Q35);
		EXPECT_INT(s->vm.pcie_passthrough, 0);
		EXPECT_INT(s->vm.firmware, SCN_SEABIOS);
		EXPECT_INT(s->vm.guest_phys_bits, 40);
		EXPECT_U64(s->vm.mmio64_window, 32ull << 30);
		EXPECT_U64(s->vm.mmio32_window, 1ull << 30);
		EXPECT_U64(s->vm.guest_ram, 16ull << 30);
		EXPECT_INT(s->vm.host_iommu, SCN_IOMMU_TRANSLATE);
		EXPECT_INT(s->vm.pci_realloc, 0);
		scn_free(s);
	}
	/* pci=realloc with options still counts; other args do not. */
	s = fix_load("plumb_scenario: 1\n" MINI_PCIE
		 "virtualization: {mode: vm, guest_kernel_args: [quiet, 'pci=realloc,nocrs']}\n");
	if (s) {
		EXPECT_INT(s->vm.pci_realloc, 1);
		EXPECT_STR(s->vm.kernel_args, "quiet pci=realloc,nocrs");
		scn_free(s);
	}
	s = fix_load("plumb_scenario: 1\n" MINI_PCIE
		 "virtualization: {mode: vm, guest_kernel_args: [pci=reallocate]}\n");
	if (s) {
		EXPECT_INT(s->vm.pci_realloc, 0);
		scn_free(s);
	}
	/* p2p_exposure clique without clique ids puts every GPU in clique 1. */
	s = fix_load("plumb_scenario: 1\n" MINI_PCIE
		 "virtualization: {mode: vm, p2p_exposure: clique}\n");
	if (s) {
		EXPECT_INT(s->nodes[s->gpu_node[0]].clique, 1);
		scn_free(s);
	}
}

static void test_numbering_and_inheritance(void)
{
	static const char text[] =
		"plumb_scenario: 1\n"
		"host: {sockets: 2, numa_per_socket: 2}\n"
		"pcie:\n"
		"  - {id: rc1, kind: root_complex, socket: 1}\n"
		"  - {id: rp1, kind: root_port, parent: rc1, gen: 3, width: 8}\n"
		"  - {id: sw1, kind: switch, parent: rp1, acs: false}\n"
		"  - {id: zeta, kind: gpu, parent: sw1, model: rtx-4090}\n"
		"  - {id: nic0, kind: nic, parent: sw1}\n"
		"  - {id: alpha, kind: gpu, parent: sw1, model: l40s, gen: 2, width: 4}\n"
		"  - {id: rc0, kind: root_complex, socket: 0, numa: 1}\n"
		"  - {id: rp0, kind: root_port, parent: rc0}\n"
		"  - {id: beta, kind: gpu, parent: rp0, model: h200}\n";
	struct scenario *s = fix_load(text);
	int g;

	if (!s)
		return;
	EXPECT_INT(s->ngpus, 3);
	EXPECT_INT(s->nnodes, 9);
	/* File order, not id order. */
	EXPECT_STR(s->nodes[s->gpu_node[0]].id, "zeta");
	EXPECT_STR(s->nodes[s->gpu_node[1]].id, "alpha");
	EXPECT_STR(s->nodes[s->gpu_node[2]].id, "beta");
	EXPECT_INT(s->nodes[4].gpu_index, -1);   /* the nic */
	/* Root complex NUMA: first node of its socket unless given. */
	EXPECT_INT(s->nodes[0].numa, 2);
	EXPECT_INT(s->nodes[6].numa, 1);
	g = s->gpu_node[0];
	EXPECT_INT(s->nodes[g].socket, 1);
	EXPECT_INT(s->nodes[g].numa, 2);
	EXPECT_INT(s->nodes[g].gen, 3);       /* rtx-4090 (Gen4 x16) behind a Gen3 x8 switch port */
	EXPECT_INT(s->nodes[g].width, 8);
	EXPECT_INT(s->nodes[g].parent, 2);
	EXPECT_INT(s->nodes[2].acs, 0);
	EXPECT_INT(s->nodes[2].gen, 3);       /* switch: its parent's link */
	EXPECT_INT(s->nodes[2].width, 8);
	EXPECT_INT(s->nodes[4].gen, 3);       /* nic: its parent's link */
	g = s->gpu_node[1];
	EXPECT_INT(s->nodes[g].gen, 2);
	EXPECT_INT(s->nodes[g].width, 4);
	EXPECT_STR(s->catalog->gpus[s->nodes[g].gpu_model].id, "l40s");
	g = s->gpu_node[2];
	EXPECT_INT(s->nodes[g].socket, 0);
	EXPECT_INT(s->nodes[g].numa, 1);
	scn_free(s);
}

static void test_nvlink(void)
{
	static const char sw[] =
		"plumb_scenario: 1\n"
		"pcie:\n"
		"  - {id: rc0, kind: root_complex, socket: 0}\n"
		"  - {id: rp0, kind: root_port, parent: rc0}\n"
		"  - {id: sw0, kind: switch, parent: rp0}\n"
		"  - {id: g0, kind: gpu, parent: sw0, model: h200}\n"
		"  - {id: g1, kind: gpu, parent: sw0, model: h200}\n"
		"  - {id: g2, kind: gpu, parent: sw0, model: h200}\n";
	char text[2048];
	struct scenario *s;

	snprintf(text, sizeof(text), "%snvlink: {nvswitch: true}\n", sw);
	s = fix_load(text);
	if (s) {
		EXPECT_INT(s->nvswitch, 1);
		EXPECT_INT(s->nnvlink, 3);   /* every pair of three GPUs */
		EXPECT_INT(s->nvlink[0].links, 18);   /* the catalog's count */
		scn_free(s);
	}
	snprintf(text, sizeof(text),
		 "%snvlink:\n  pairs:\n    - {gpus: [g2, g0], links: 4}\n", sw);
	s = fix_load(text);
	if (s) {
		EXPECT_INT(s->nnvlink, 1);
		EXPECT_INT(s->nvlink[0].a, 0);   /* stored as (low, high) */
		EXPECT_INT(s->nvlink[0].b, 2);
		EXPECT_INT(s->nvlink[0].links, 4);
		scn_free(s);
	}
}

static void test_errors(void)
{
	expect_fail("", PLUMB_EINPUT, 1, 1, "empty scenario");
	expect_fail("- a\n- b\n", PLUMB_EINPUT, 1, 1, "'scenario' must be a mapping, not a list");
	expect_fail(MINI_PCIE, PLUMB_EINPUT, 1, 1, "missing 'plumb_scenario: 1'");
	expect_fail("plumb_scenario: 1\npcei: []\n", PLUMB_EINPUT, 2, 1,
		    "unknown key 'pcei' in scenario (did you mean 'pcie'?)");
	expect_fail("plumb_scenario: 1\nhost:\n  cpu_vendr: amd\n" MINI_PCIE, PLUMB_EINPUT, 3, 3,
		    "unknown key 'cpu_vendr' in host (did you mean 'cpu_vendor'?)");
	expect_fail("plumb_scenario: 1\nhost: {sockets: 0}\n" MINI_PCIE, PLUMB_EINPUT, 2, 17,
		    "'sockets' must be between 1 and 512, got 0");
	expect_fail("plumb_scenario: 1\nhost: {sockets: 1, sockets: 2}\n" MINI_PCIE, PLUMB_EINPUT,
		    2, 20, "duplicate key 'sockets' (first at line 2)");

	/* The pcie list is lines 2-5 of MINI_PCIE after the version line. */
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "  - {id: rp0, kind: root_port, parent: rc0}\n",
		    PLUMB_EINPUT, 6, 10, "duplicate id 'rp0' (first at line 4)");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "  - {id: rp1, kind: root_port, parent: nowhere}\n",
		    PLUMB_EINPUT, 6, 40, "parent 'nowhere' is not defined above");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "  - {id: gpu1, kind: gpu, parent: rp0, model: rtx-pro-6000}\n",
		    PLUMB_EINPUT, 6, 35, "root_port 'rp0' already holds 'gpu0'");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "  - {id: g9, kind: gpu, parent: rc0, model: rtx-pro-6000}\n",
		    PLUMB_EINPUT, 6, 33, "a gpu's parent must be a root_port or a switch");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "  - {id: rc1, kind: root_complex, socket: 1}\n",
		    PLUMB_EINPUT, 6, 43, "socket 1 does not exist (host has 1 socket)");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "  - {id: rp1, kind: root_port, parent: rc0, gen: 7}\n",
		    PLUMB_EINPUT, 6, 50, "'gen' must be between 1 and 6, got 7");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "  - {id: rp1, kind: root_port, parent: rc0, width: 3}\n",
		    PLUMB_EINPUT, 6, 52, "'width' must be 1, 2, 4, 8, 16 or 32, got 3");
	expect_fail("plumb_scenario: 1\npcie:\n"
		    "  - {id: rc0, kind: root_complex, socket: 0}\n"
		    "  - {id: rp0, kind: root_port, parent: rc0}\n"
		    "  - {id: gpu0, kind: gpu, parent: rp0, model: rtx-pro-600}\n",
		    PLUMB_EINPUT, 5, 47, "unknown GPU model 'rtx-pro-600' (did you mean 'rtx-pro-6000'?)");
	expect_fail("plumb_scenario: 1\npcie:\n"
		    "  - {id: rc0, kind: root_complex, socket: 0}\n",
		    PLUMB_EINPUT, 3, 3, "the scenario has no GPU");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE "virtualization: {chipset: q35}\n",
		    PLUMB_EINPUT, 6, 17, "virtualization needs 'mode'");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "virtualization:\n  mode: vm\n  chipset: i440fx\n  pcie_passthrough: true\n",
		    PLUMB_EINPUT, 9, 21, "pcie_passthrough needs chipset q35");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "virtualization:\n  mode: vm\n  mmio64_window: lots\n",
		    PLUMB_EINPUT, 8, 18, "'mmio64_window' must be a positive size");
	expect_fail("plumb_scenario: 1\n" MINI_PCIE
		    "virtualization:\n  mode: bare_metal\n  guest_ram: 64G\n",
		    PLUMB_EINPUT, 8, 3, "'guest_ram' only applies with 'mode: vm'");
	expect_fail("plumb_scenario: 1\nhost: {inter_socket: {bandwidth_gbs: .inf}}\n" MINI_PCIE,
		    PLUMB_EINPUT, 2, 38, "'bandwidth_gbs' must be a finite number");
	expect_fail("plumb_scenario: 1\nhost: {cpu_boost_ghz: 40}\n" MINI_PCIE,
		    PLUMB_EINPUT, 2, 23, "'cpu_boost_ghz' must be between 0.5 and 10, got 40");
}

void suite_scn(void)
{
	CU_pSuite s = CU_add_suite("scn", NULL, NULL);
	CU_add_test(s, "every bundled scenario loads", test_bundled_scenarios);
	CU_add_test(s, "hosts: several boxes", test_hosts);
	CU_add_test(s, "seed scenario values", test_seed_scenario_values);
	CU_add_test(s, "GPU catalog", test_catalog);
	CU_add_test(s, "GPU catalog constants", test_catalog_consts);
	CU_add_test(s, "GPU catalog constants' sources", test_catalog_sources);
	CU_add_test(s, "GPU catalog cites its kernel constants", test_catalog_cited);
	CU_add_test(s, "serving: mtp acceptance per position", test_mtp_accept);
	CU_add_test(s, "serving: MoE runner and routing skew", test_serving_moe);
	CU_add_test(s, "defaults", test_defaults);
	CU_add_test(s, "GPU numbering, NUMA and link inheritance", test_numbering_and_inheritance);
	CU_add_test(s, "NVLink: nvswitch and pairs", test_nvlink);
	CU_add_test(s, "errors: code, line and column", test_errors);
}
