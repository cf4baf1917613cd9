/*
 * test_valid.c - validation cases: a summary's "GPUn:" matrix, points
 * quoted in prose (checked against the data file), the case's ACS setting,
 * a serving row's TTFT scored as its own point.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meas.h"
#include "valid.h"

/* A serving row's ttft_ms is a point of its own, predicted as the simulated
 * run's mean time to first token: longer prompts take longer to come back. */
static void test_ttft_points(void)
{
	const char *path = "build/test_valid_ttft.csv";
	static const char csv[] =
		"layout,concurrency,context,tok_s,tpot_ms,ttft_ms,input_len,output_len\n"
		"tp8,1,0,,10.0,100,1000,100\n"
		"tp8,1,0,,,800,8000,100\n";
	static const char cases[] =
		"cases:\n"
		"  - name: t\n"
		"    kind: serving\n"
		"    data: build/test_valid_ttft.csv\n"
		"    scenario: scenarios/hgx-8x-h200.yaml\n"
		"    model: llama-3.1-70b\n"
		"    weights: fp8t\n"
		"    kv: bf16\n";
	struct val_set *v = NULL;
	struct plumb_err e;
	FILE *f = fopen(path, "w");
	if (!f) {
		CU_FAIL("cannot write the data file");
		return;
	}
	fputs(csv, f);
	fclose(f);
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL(val_parse("cases.yaml", cases, strlen(cases), &v, &e), 0);
	if (v) {
		CU_ASSERT_EQUAL(v->npoints, 3);
		CU_ASSERT_EQUAL(val_predict(v, -1, &e), 0);
		CU_ASSERT_EQUAL(v->points[0].group, VAL_SRV_TPOT);
		CU_ASSERT_EQUAL(v->points[1].group, VAL_SRV_TTFT);
		CU_ASSERT_EQUAL(v->points[2].group, VAL_SRV_TTFT);
		CU_ASSERT_PTR_NOT_NULL(strstr(v->points[1].label, "ttft_ms"));
		CU_ASSERT_DOUBLE_EQUAL(v->points[2].measured, 800, 1e-9);
		CU_ASSERT(v->points[1].predicted > 0);
		CU_ASSERT(v->points[2].predicted > 2 * v->points[1].predicted);
		val_free(v);
	}
	remove(path);
}

void suite_valid(void);

static const char summary[] =
	"Full 3x3 Unidirectional Bandwidth Matrix (GB/s)\n"
	" Dst\xE2\x86\x92   GPU0   GPU1   GPU2\n"
	"GPU0:    \xE2\x80\x94     53.9   35.9\n"
	"GPU1:  53.8     \xE2\x80\x94     36.0\n"
	"GPU2:  39.7   39.7     \xE2\x80\x94\n"
	"P2P Latency: \"Same NUMA 0.71 us\"; ACS ON ~50 GB/s\n";

static void test_summary_matrix(void)
{
	struct meas_p2p_file *f = NULL;
	CU_ASSERT_EQUAL(meas_p2p_parse(summary, strlen(summary), "s.txt", &f, NULL), 0);
	if (!f)
		return;
	CU_ASSERT_EQUAL(f->nruns, 1);
	CU_ASSERT_EQUAL(f->runs[0].n, 3);
	CU_ASSERT_DOUBLE_EQUAL(meas_p2p_at(&f->runs[0], MEAS_P2P_UNI_WRITES, 0, 2), 35.9, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(meas_p2p_at(&f->runs[0], MEAS_P2P_UNI_WRITES, 2, 1), 39.7, 1e-9);
	CU_ASSERT(isnan(meas_p2p_at(&f->runs[0], MEAS_P2P_UNI_WRITES, 1, 1)));
	meas_p2p_free(f);
}

/* Cases on the two-switch ESC8000A-E13P scenario with quoted points. */
static int run_case(const char *data, const char *extra, struct val_set **out,
		    struct plumb_err *e)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 "cases:\n"
		 "  - name: q\n"
		 "    kind: p2p\n"
		 "    data: %s\n"
		 "    scenario: validation/scenarios/esc8000a-e13p-8xpro6000.yaml\n"
		 "%s", data, extra);
	plumb_err_clear(e);
	return val_parse("cases.yaml", text, strlen(text), out, e);
}

static void test_quoted_points(void)
{
	const char *path = "build/test_valid_summary.txt";
	struct val_set *v = NULL;
	struct plumb_err e;
	FILE *f = fopen(path, "w");
	if (!f) {
		CU_FAIL("cannot write the data file");
		return;
	}
	fputs(summary, f);
	fclose(f);
	/* ACS on: the pair under one switch goes through the root complex. */
	CU_ASSERT_EQUAL(run_case(path, "    acs: on\n    points:\n"
				 "      - {matrix: bi_enabled, value: 50, quote: \"ACS ON ~50 GB/s\", pairs: \"0:1\"}\n"
				 "      - {matrix: lat_writes_gpu, value: 0.71, quote: \"Same NUMA 0.71 us\", pairs: \"0:1 1:0\"}\n",
				 &v, &e), 0);
	if (v) {
		CU_ASSERT_EQUAL(v->npoints, 3);
		CU_ASSERT_EQUAL(val_predict(v, -1, &e), 0);
		/* both directions over one uplink: one Gen5 x16 link's worth */
		CU_ASSERT(fabs(v->points[0].predicted - 55.08) < 0.5);
		CU_ASSERT_EQUAL(v->points[0].group, MEAS_P2P_BI_ENABLED);
		CU_ASSERT_EQUAL(v->points[1].a, 0);
		CU_ASSERT_EQUAL(v->points[2].a, 1);
		val_free(v);
		v = NULL;
	}
	CU_ASSERT_EQUAL(run_case(path, "    acs: off\n    points:\n"
				 "      - {matrix: bi_enabled, value: 50, quote: \"ACS ON ~50 GB/s\", pairs: \"0:1\"}\n",
				 &v, &e), 0);
	if (v) {
		CU_ASSERT_EQUAL(val_predict(v, -1, &e), 0);
		/* the switch's turn: both GPUs' switch ports, both ways at
		 * once, 2 x switch_duplex_eff x 55.08 */
		CU_ASSERT(fabs(v->points[0].predicted - 2 * 0.945 * 55.08) < 0.5);
		val_free(v);
		v = NULL;
	}
	/* A quote the data file does not hold is refused. */
	CU_ASSERT(run_case(path, "    points:\n"
			   "      - {matrix: bi_enabled, value: 51, quote: \"ACS ON ~51 GB/s\", pairs: \"0:1\"}\n",
			   &v, &e) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is not in"));
	val_free(v);
	v = NULL;
	CU_ASSERT(run_case(path, "    points:\n"
			   "      - {matrix: bi_enabled, value: 50, quote: \"ACS ON ~50 GB/s\", pairs: \"0:0\"}\n",
			   &v, &e) < 0);
	val_free(v);
	remove(path);
}

void suite_valid(void)
{
	CU_pSuite s = CU_add_suite("valid", NULL, NULL);
	CU_add_test(s, "summary matrix with GPUn: rows", test_summary_matrix);
	CU_add_test(s, "points quoted from the data file, ACS on and off", test_quoted_points);
	CU_add_test(s, "a serving row's TTFT is its own point", test_ttft_points);
}
