/*
 * test_valid.c - validation cases: a summary's "GPUn:" matrix, points
 * quoted in prose (checked against the data file), the case's ACS setting,
 * a serving row's TTFT scored as its own point; `fits:` against the
 * constants' sources; the model-error spread.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "consts.h"
#include "input.h"
#include "meas.h"
#include "valid.h"

/* A serving row's ttft_ms is a point of its own, predicted as the simulated
 * run's mean time to first token: longer prompts take longer to come back. */
static void test_ttft_points(void)
{
	char dir[] = "/tmp/plumb-test-valid.XXXXXX", path[64], cases[512];
	static const char csv[] =
		"layout,concurrency,context,tok_s,tpot_ms,ttft_ms,input_len,output_len\n"
		"tp8,1,0,,10.0,100,1000,100\n"
		"tp8,1,0,,,800,8000,100\n";
	struct val_set *v = NULL;
	struct plumb_err e;
	FILE *f;
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ttft.csv", dir);
	snprintf(cases, sizeof(cases),
		 "cases:\n"
		 "  - name: t\n"
		 "    kind: serving\n"
		 "    data: %s\n"
		 "    scenario: scenarios/hgx-8x-h200.yaml\n"
		 "    model: llama-3.1-70b\n"
		 "    weights: fp8t\n"
		 "    kv: bf16\n", path);
	if (!(f = fopen(path, "w"))) {
		CU_FAIL("cannot write the data file");
		rmdir(dir);
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
	rmdir(dir);
}

/* validation/cases.yaml with `from` replaced by `to`, loaded and checked. */
static int fits_variant(const char *from, const char *to, struct plumb_err *e)
{
	char *text = NULL, *out, *at;
	size_t len;
	struct val_set *v = NULL;
	int rc;
	plumb_err_clear(e);
	if (input_read("validation/cases.yaml", &text, &len, e) < 0)
		return -100;
	out = malloc(len + strlen(to) + 1);
	if (!out || !(at = strstr(text, from))) {
		free(text);
		free(out);
		return -100;
	}
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	rc = val_parse("validation/cases.yaml", out, strlen(out), &v, e);
	if (rc == 0)
		rc = val_fits_check(v, e);
	val_free(v);
	free(out);
	free(text);
	return rc;
}

/* One nccl-tests case of the 8x A100 box, up to the opening of its
 * artefacts list: the tests below end it with their labels. */
#define A100_CASE \
	"cases:\n" \
	"  - name: a\n" \
	"    kind: nccl\n" \
	"    data: validation/data/nccl-dgxa100-4gpu-nvswitch.txt\n" \
	"    scenario: validation/scenarios/dgx-a100-8x.yaml\n" \
	"    gpus: 4-7\n" \
	"    artefacts: [\""

/* `artefacts:` marks the points it names; a label that is no point of the
 * data stops the case list at its line. */
static void test_artefacts(void)
{
	static const char good[] = A100_CASE "4294967296 B in-place\"]\n";
	static const char bad[] = A100_CASE "4 GiB in-place\"]\n";
	struct val_set *v = NULL;
	struct plumb_err e;
	int i, n = 0;
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL(val_parse("cases.yaml", good, strlen(good), &v, &e), 0);
	if (v) {
		for (i = 0; i < v->npoints; i++)
			if (v->points[i].artefact) {
				n++;
				CU_ASSERT_STRING_EQUAL(v->points[i].label, "4294967296 B in-place");
			}
		CU_ASSERT_EQUAL(n, 1);
		{
			/* the summary's figures leave it out, its case's table not */
			struct val_sel all = VAL_SEL_ALL;
			struct val_stats st;
			for (i = 0; i < v->npoints; i++)       /* as if predicted */
				v->points[i].predicted = v->points[i].measured;
			val_stats_sel(v, &all, &st);
			CU_ASSERT_EQUAL(st.n, v->npoints - 1);
			val_stats(v, 0, v->npoints, &st);
			CU_ASSERT_EQUAL(st.n, v->npoints);
		}
		val_free(v);
	}
	v = NULL;
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL(val_parse("cases.yaml", bad, strlen(bad), &v, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_EQUAL(e.line, 7);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "not a point of its data"));
	val_free(v);
	{
		/* "NAME #N": the N-th point of that name; past the last, or not a
		 * number: exit 3 at the label */
		static const char *const tail[] = { "4294967296 B in-place #1\"]\n",
						    "4294967296 B in-place #2\"]\n",
						    "4294967296 B in-place #x\"]\n" };
		static const char head[] = A100_CASE;
		char text[1024];
		int t;
		for (t = 0; t < 3; t++) {
			snprintf(text, sizeof(text), "%s%s", head, tail[t]);
			v = NULL;
			plumb_err_clear(&e);
			if (t == 0) {
				CU_ASSERT_EQUAL(val_parse("cases.yaml", text, strlen(text), &v, &e), 0);
				for (n = 0, i = 0; v && i < v->npoints; i++)
					n += v->points[i].artefact;
				CU_ASSERT_EQUAL(n, 1);
			} else {
				CU_ASSERT_EQUAL(val_parse("cases.yaml", text, strlen(text), &v, &e),
						-PLUMB_EINPUT);
				CU_ASSERT_EQUAL(e.line, 7);
			}
			val_free(v);
		}
	}
}

static void test_fits(void)
{
	struct plumb_err e;
	/* the shipped list agrees with the sources */
	CU_ASSERT_EQUAL(fits_variant("cases:", "cases:", &e), 0);
	/* a source names the data file of a case that does not list it */
	CU_ASSERT_EQUAL(fits_variant("    fits: [nccl_bw_eff, nccl_tests_launch_us, nccl_pci_simple_us]\n", "", &e),
			-PLUMB_EINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "nccl-8x5090-epyc9575f-p2p.txt"));
	/* a case lists a constant no source derives from its data */
	CU_ASSERT_EQUAL(fits_variant("fits: [vm_dma_us, vm_iotlb_miss_us]", "fits: [vm_dma_us, vm_iotlb_miss_us, d2d_eff]", &e),
			-PLUMB_EINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "lists d2d_eff"));
	/* a source names a case by name: that case must list it */
	CU_ASSERT_EQUAL(fits_variant("fits: [oneshot_ar_us, oneshot_bw_eff]",
				     "fits: [oneshot_ar_us]", &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "oneshot_bw_eff"));
	/* not a constant, or twice: the case list does not load */
	CU_ASSERT_EQUAL(fits_variant("fits: [vm_dma_us, vm_iotlb_miss_us]", "fits: [vm_dma_uss]", &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "not a constant"));
	CU_ASSERT_EQUAL(fits_variant("fits: [vm_dma_us, vm_iotlb_miss_us]", "fits: [vm_dma_us, vm_dma_us]", &e),
			-PLUMB_EINPUT);
}

/* Draws of nothing but the model error: the constants as given, z from
 * the fixed sequence. */
static int error_only(const struct plumb_consts *k, int n, struct plumb_consts *out, double *mult,
		      struct plumb_err *err)
{
	int i;
	(void)err;
	for (i = 0; i < n; i++) {
		out[i] = *k;
		mult[i] = exp(k->v[K_TOK_ERR_SD] * val_err_z(i + 7));
	}
	return 1;
}

static void test_spread(void)
{
	static const char text[] =
		"cases:\n"
		"  - {name: a, kind: serving, data: validation/data/public-h100-gptoss120-1k1k.csv, "
		"scenario: validation/scenarios/hgx-h100-8x-vllm.yaml, model: gpt-oss-120b, "
		"weights: checkpoint, kv: bf16}\n"
		"  - {name: b, kind: serving, data: validation/data/public-h100-llama70-nim.csv, "
		"scenario: validation/scenarios/hgx-h100-8x-trtllm.yaml, model: llama-3.1-70b, "
		"weights: fp8t, kv: bf16, input: 5000, output: 500}\n";
	struct val_set *v = NULL;
	struct val_spread_summary s;
	struct plumb_err e;
	int p, n = 0;
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(val_parse("c.yaml", text, strlen(text), &v, &e), 0);
	CU_ASSERT_EQUAL(val_predict(v, -1, &e), 0);
	CU_ASSERT_EQUAL(val_spread_run(v, 64, error_only, &e), 0);
	CU_ASSERT_EQUAL(val_spread_get(v, VAL_Q_RATE, &s), 1);
	CU_ASSERT_EQUAL(s.n, v->npoints);
	/* the predictions miss by a few %: a spread is needed, a small one */
	CU_ASSERT(s.sd_all > 0 && s.sd_all < 0.3);
	CU_ASSERT(s.sd_loo_lo >= 0 && s.sd_loo_lo <= s.sd_loo_hi);
	CU_ASSERT(s.in_loo >= 0 && s.in_loo <= s.n);
	for (p = 0; p < v->npoints; p++) {
		const struct val_point *o = &v->points[p];
		/* the constants are not drawn: the range is around the prediction */
		CU_ASSERT(o->lo <= o->predicted * (1 + 1e-9) && o->hi >= o->predicted * (1 - 1e-9));
		n += o->measured >= o->lo && o->measured <= o->hi;
	}
	CU_ASSERT_EQUAL(n, s.in_loo);
	val_free(v);
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
	char dir[] = "/tmp/plumb-test-valid.XXXXXX", path[64];
	struct val_set *v = NULL;
	struct plumb_err e;
	FILE *f;
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	if (!(f = fopen(path, "w"))) {
		CU_FAIL("cannot write the data file");
		rmdir(dir);
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
	rmdir(dir);
}

void suite_valid(void)
{
	CU_pSuite s = CU_add_suite("valid", NULL, NULL);
	CU_add_test(s, "summary matrix with GPUn: rows", test_summary_matrix);
	CU_add_test(s, "points quoted from the data file, ACS on and off", test_quoted_points);
	CU_add_test(s, "a serving row's TTFT is its own point", test_ttft_points);
	CU_add_test(s, "fits: against the constants' sources", test_fits);
	CU_add_test(s, "artefacts: marked, and checked against the data", test_artefacts);
	CU_add_test(s, "model-error spread and leave-one-case-out ranges", test_spread);
}
