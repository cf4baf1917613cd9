/*
 * test_import_rocmsmi.c - `plumb import rocm-smi`: public rocm-smi
 * --showtopo and amd-smi topology captures (tests/data/import/, each file
 * names its origin) become scenarios whose matrix is the box's own: XGMI
 * cells a mesh or pairs, PCIE pairs NODE or SYS, NUMA as the tool says.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "import.h"
#include "scn.h"
#include "topo.h"

void suite_import_rocmsmi(void);

#define DATA "tests/data/import/"

/* Import text; NULL (e filled) on failure. */
static struct imp_scn *import_text(const char *text, size_t len, const char *model,
				   struct plumb_err *e)
{
	struct imp_opts o;
	struct imp_scn *s = imp_scn_new();
	memset(&o, 0, sizeof(o));
	o.src = "mem";
	o.gpu_model = model;
	plumb_err_clear(e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	if (imp_rocmsmi_parse(text, len, &o, s, e) < 0) {
		imp_scn_free(s);
		return NULL;
	}
	return s;
}

/* Import a capture and load what it writes; the scenario (caller frees). */
static struct scenario *load_capture(const char *name, const char *model)
{
	char path[256], *buf = NULL, *yaml;
	size_t len;
	struct plumb_err e;
	struct imp_scn *s;
	struct scenario *sc;
	snprintf(path, sizeof(path), DATA "%s", name);
	if (imp_read_input(path, &buf, &len, &e) < 0) {
		printf("\n  cannot read %s: %s\n", path, e.msg);
		CU_FAIL("sample file missing");
		return NULL;
	}
	s = import_text(buf, len, model, &e);
	free(buf);
	if (!s) {
		printf("\n  %s: %s\n", name, e.msg);
		CU_FAIL("import failed");
		return NULL;
	}
	yaml = fix_imp_yaml(s);
	imp_scn_free(s);
	sc = fix_load(yaml);
	free(yaml);
	return sc;
}

/* The host view's class string of GPUs a and b. */
static const char *cls(const struct topo_view *v, int a, int b, char *buf)
{
	return topo_class_str(v, a, b, buf);
}

static void test_rocmsmi_mesh(void)
{
	struct scenario *s = load_capture("rocmsmi-8x-mi308x-xgmi-msswift.txt", "mi300x");
	struct topo_view *v = NULL;
	struct topo_opts o;
	char buf[8];
	int i, j;
	if (!s)
		return;
	EXPECT_INT(s->ngpus, 8);
	CU_ASSERT_EQUAL(s->xgmi, 1);
	EXPECT_INT(s->nnvlink, 28);
	topo_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++)
			if (i != j)
				CU_ASSERT_STRING_EQUAL(cls(v, i, j, buf), "XGMI");
	/* the Numa Nodes section: GPUs 0-3 on node 0, 4-7 on node 1 */
	for (i = 0; i < v->nep; i++)
		if (v->ep[i].gpu >= 0)
			EXPECT_INT(v->ep[i].numa, v->ep[i].gpu / 4);
	topo_free(v);
	scn_free(s);
}

static void test_amdsmi_mesh(void)
{
	struct scenario *s = load_capture("amdsmi-8x-mi355x-oci.txt", "mi355x");
	if (!s)
		return;
	EXPECT_INT(s->ngpus, 8);
	CU_ASSERT_EQUAL(s->xgmi, 1);
	EXPECT_INT(s->nnvlink, 28);
	scn_free(s);
}

static void test_pcie_classes(void)
{
	struct scenario *s = load_capture("rocmsmi-4gpu-pcie-hops3-issue108.txt", "mi300x");
	struct scenario *two = load_capture("rocmsmi-2x-mi100-pcie-issue1503.txt", "mi300x");
	struct topo_view *v = NULL;
	struct topo_opts o;
	char buf[8];
	topo_opts_init(&o);
	if (s) {
		/* hops 3: across sockets */
		CU_ASSERT_EQUAL(s->xgmi, 0);
		EXPECT_INT(s->nnvlink, 0);
		CU_ASSERT_EQUAL_FATAL(topo_build(s, TOPO_HOST, &o, &v, NULL), 0);
		CU_ASSERT_STRING_EQUAL(cls(v, 0, 3, buf), "SYS");
		topo_free(v);
		v = NULL;
	}
	if (two) {
		/* PCIE without hops or NUMA: NODE */
		EXPECT_INT(two->ngpus, 2);
		CU_ASSERT_EQUAL_FATAL(topo_build(two, TOPO_HOST, &o, &v, NULL), 0);
		CU_ASSERT_STRING_EQUAL(cls(v, 0, 1, buf), "NODE");
		topo_free(v);
	}
	scn_free(s);
	scn_free(two);
}

static void expect_refused(const char *text, const char *model, const char *want)
{
	struct plumb_err e;
	struct imp_scn *s = import_text(text, strlen(text), model, &e);
	CU_ASSERT_PTR_NULL(s);
	if (!strstr(e.msg, want))
		printf("\n  error '%s', expected it to hold '%s'\n", e.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, want));
	imp_scn_free(s);
}

static void test_refusals(void)
{
	static const char ok[] = "=== Link Type between two GPUs ===\nGPU0 GPU1\nGPU0 0 XGMI\nGPU1 XGMI 0\n";
	expect_refused(ok, NULL, "--gpu-model");
	expect_refused("=== Link Type between two GPUs ===\nGPU0 GPU1\nGPU0 0 NVLINK\nGPU1 XGMI 0\n",
		       "mi300x", "neither XGMI nor PCIE");
	expect_refused("=== Link Type between two GPUs ===\nGPU0 GPU1\nGPU0 0 XGMI\nGPU1 PCIE 0\n",
		       "mi300x", "differs");
	expect_refused("=== Link Type between two GPUs ===\nGPU0 GPU1\nGPU0 0\n", "mi300x",
		       "cells");
	expect_refused("hello\n", "mi300x", "no link type matrix");
}

void suite_import_rocmsmi(void)
{
	CU_pSuite s = CU_add_suite("import_rocmsmi", NULL, NULL);
	CU_add_test(s, "rocm-smi --showtopo: an 8-GPU xGMI mesh, NUMA 0/1", test_rocmsmi_mesh);
	CU_add_test(s, "amd-smi topology: an 8x MI355X mesh", test_amdsmi_mesh);
	CU_add_test(s, "PCIE pairs: SYS by hops 3, NODE without hops", test_pcie_classes);
	CU_add_test(s, "refusals: no model, bad cells, no matrix", test_refusals);
}
