/*
 * test_render_chart.c - the Chrome trace is valid JSON whose events are the
 * simulated step's; the chart layer (scales, ticks, labels, coinciding
 * series, outliers) and the throughput, timeline and step-parts charts.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "fixtures.h"
#include "render.h"
#include "test_render_int.h"

void suite_render_chart(void);

/* ---- JSON ------------------------------------------------------------------ */

struct jp {
	const char *p;
	int ok;
	/* the object being read at depth 2 (an element of traceEvents) */
	char ph[8];
	double pid, tid, dur;
	/* totals */
	int x_gpu, x_link, meta;
	double dur_gpu[SCN_MAX_GPUS];
};

static void ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
		j->p++;
}

static void jstring(struct jp *j, char *out, size_t n)
{
	size_t k = 0;
	if (*j->p != '"') {
		j->ok = 0;
		return;
	}
	j->p++;
	while (*j->p && *j->p != '"') {
		if ((unsigned char)*j->p < 0x20) {
			j->ok = 0;
			return;
		}
		if (*j->p == '\\') {
			j->p++;
			if (*j->p == 'u') {
				int i;
				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i])
						j->ok = 0;
				j->p += 4;
			} else if (!strchr("\"\\/bfnrt", *j->p) || !*j->p) {
				j->ok = 0;
				return;
			}
		}
		if (out && k + 1 < n)
			out[k++] = *j->p;
		j->p++;
	}
	if (out)
		out[k] = 0;
	if (*j->p != '"')
		j->ok = 0;
	else
		j->p++;
}

static double jnumber(struct jp *j)
{
	char *end;
	double v;
	if (!strchr("-0123456789", *j->p) || !*j->p) {
		j->ok = 0;
		return 0;
	}
	v = strtod(j->p, &end);
	if (end == j->p)
		j->ok = 0;
	j->p = end;
	return v;
}

static void jvalue(struct jp *j, int depth, const char *key);

static void jobject(struct jp *j, int depth)
{
	char key[64];
	j->p++;
	if (depth == 2) {
		j->ph[0] = 0;
		j->pid = j->tid = j->dur = -1;
	}
	ws(j);
	if (*j->p == '}') {
		j->p++;
		return;
	}
	while (j->ok) {
		ws(j);
		jstring(j, key, sizeof(key));
		ws(j);
		if (*j->p != ':') {
			j->ok = 0;
			return;
		}
		j->p++;
		ws(j);
		jvalue(j, depth + 1, depth == 2 ? key : "");
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == '}') {
			j->p++;
			break;
		}
		j->ok = 0;
	}
	if (depth == 2 && j->ok) {
		if (!strcmp(j->ph, "M"))
			j->meta++;
		else if (!strcmp(j->ph, "X") && j->pid == 1 && j->tid >= 0 && j->tid < SCN_MAX_GPUS) {
			j->x_gpu++;
			j->dur_gpu[(int)j->tid] += j->dur;
		} else if (!strcmp(j->ph, "X") && j->pid == 2) {
			j->x_link++;
		}
	}
}

static void jvalue(struct jp *j, int depth, const char *key)
{
	ws(j);
	if (*j->p == '{') {
		jobject(j, depth);
	} else if (*j->p == '[') {
		j->p++;
		ws(j);
		if (*j->p == ']') {
			j->p++;
			return;
		}
		while (j->ok) {
			jvalue(j, depth + 1, "");
			ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == ']') {
				j->p++;
				break;
			}
			j->ok = 0;
		}
	} else if (*j->p == '"') {
		jstring(j, !strcmp(key, "ph") ? j->ph : NULL, sizeof(j->ph));
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else if (!strncmp(j->p, "false", 5)) {
		j->p += 5;
	} else {
		double v = jnumber(j);
		if (!strcmp(key, "pid"))
			j->pid = v;
		else if (!strcmp(key, "tid"))
			j->tid = v;
		else if (!strcmp(key, "dur"))
			j->dur = v;
	}
}

static void trace_case(const struct scenario *s, const char *layout, int batch)
{
	struct pred_cfg c;
	struct rdr_trace_info info;
	struct plumb_err err;
	struct jp j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct step_span *spans = malloc(65536 * sizeof(*spans));
	struct pred_step_info pi;
	int g, n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	pred_cfg_init(&c);
	c.s = s;
	CU_ASSERT_EQUAL_FATAL(llm_model_lookup(llm_catalog_builtin(&err), "glm-5", &c.m, &err), 0);
	CU_ASSERT_EQUAL_FATAL(llm_prec_init(&c.prec, c.m, LLM_NVFP4, LLM_BF16, &err), 0);
	CU_ASSERT_EQUAL_FATAL(step_layout_parse(layout, &c.lay, &err), 0);
	EXPECT_INT(rdr_trace(f, &c, batch, 1024, &info, &err), 0);
	fclose(f);
	memset(&j, 0, sizeof(j));
	j.p = buf;
	j.ok = 1;
	jvalue(&j, 0, "");
	ws(&j);
	CU_ASSERT(j.ok && *j.p == 0);
	CU_ASSERT(strstr(buf, "\"traceEvents\"") != NULL);
	EXPECT_INT(j.x_gpu, info.gpu_events);
	EXPECT_INT(j.x_gpu, info.run.nspans);
	EXPECT_INT(j.x_link, info.link_events);
	CU_ASSERT(info.links > 0 && info.link_events > 0);
	CU_ASSERT(j.meta >= info.run.ngpus + 1);
	for (g = 0; g < info.run.ngpus; g++) {
		double want = (info.run.busy[g] + info.run.comm[g]) * 1e6;
		if (fabs(j.dur_gpu[g] - want) > 1e-6 * want + 0.01 * (info.run.nspans / info.run.ngpus))
			printf("\n  %s GPU%d: durations sum to %.3f us, the step says %.3f us", layout, g,
			       j.dur_gpu[g], want);
		CU_ASSERT(fabs(j.dur_gpu[g] - want) <= 1e-6 * want + 0.01 * (info.run.nspans / info.run.ngpus));
	}
	/* the same step as plumb predict's */
	CU_ASSERT_EQUAL(pred_step_spans(&c, SERVE_DECODE, batch, 1024, 1, spans, 65536, &n, &pi, &err), 0);
	EXPECT_INT(n, info.run.nspans);
	CU_ASSERT(fabs(pi.run.seconds - info.seconds) <= 1e-12 * info.seconds);
	free(spans);
	free(buf);
}

static void test_trace(void)
{
	struct scenario *s = NULL;
	struct plumb_err err;
	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/proxmox-vm-8x-rtxpro6000.yaml", &s, &err), 0);
	trace_case(s, "tp8", 8);
	trace_case(s, "tp4pp2", 8);
	scn_free(s);
	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/hgx-8x-h200.yaml", &s, &err), 0);
	trace_case(s, "ep8", 16);
	scn_free(s);
}

/* Boxes b[0..n) pairwise apart? */
static int boxes_apart(const struct rdr_box2 *b, int n)
{
	int i, j;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (b[i].x < b[j].x + b[j].w && b[j].x < b[i].x + b[i].w &&
			    b[i].y < b[j].y + b[j].h && b[j].y < b[i].y + b[i].h) {
				printf("\n  label %d (%.1f,%.1f %.1fx%.1f) overlaps %d (%.1f,%.1f %.1fx%.1f)\n",
				       i, b[i].x, b[i].y, b[i].w, b[i].h, j, b[j].x, b[j].y, b[j].w, b[j].h);
				return 0;
			}
	return 1;
}

/* The chart layer: scales, ticks, labels, coinciding series, outliers. */
static void test_chart_layer(void)
{
	static const double want_log[] = { 10, 20, 50, 100, 200, 500, 1000 };
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 600);
	cairo_t *cr = cairo_create(surf);
	struct rdr_chart c;
	struct rdr_axis a;
	double x[3] = { 1, 2, 4 }, y0[3] = { 11, 20, 40 }, y1[3] = { 11, 20, 40 },
	       y2[3] = { 15.8, 30, 60 }, yout[3] = { 20, 5000, 30 }, off[3], col[6];
	const double *xs[3] = { x, x, x }, *ys[3] = { y0, y1, y2 };
	const char *text[6] = { "a", "bb", "ccc", "dddd", "eeeee", "f" };
	unsigned rgb[6] = { 0 };
	int np[3] = { 3, 3, 3 }, same[3], i, k, placed = 0;
	char buf[32];

	/* log10 over 11 .. 793: 10 to 1000 in 1-2-5 steps */
	memset(&a, 0, sizeof(a));
	rdr_axis_fit(&a, RDR_LOG10, 11.3, 792.6, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.lo, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a.hi, 1000, 1e-9);
	for (i = k = 0; i < a.nticks; i++)
		if (a.major[i]) {
			CU_ASSERT(k < 7 && fabs(a.tick[i] - want_log[k]) < 1e-9);
			k++;
		}
	EXPECT_INT(k, 7);
	/* 11 against 15.8 tok/s is tens of points apart on a 500-point axis */
	rdr_chart_init(&c, cr, 100, 50, 600, 500);
	c.ay = a;
	CU_ASSERT(rdr_chart_py(&c, 11) - rdr_chart_py(&c, 15.8) > 30);
	/* log2: 1 .. 64, seven powers of two */
	rdr_axis_fit(&a, RDR_LOG2, 1, 64, 0);
	EXPECT_INT(a.nticks, 7);
	CU_ASSERT_DOUBLE_EQUAL(a.hi, 64, 1e-9);
	/* linear from zero */
	rdr_axis_fit(&a, RDR_LIN, 3, 97, 1);
	CU_ASSERT_DOUBLE_EQUAL(a.lo, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a.hi, 100, 1e-9);
	/* ratio: symmetric on a log scale, labelled as errors */
	rdr_axis_fit(&a, RDR_RATIO, 0.85, 1.3, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.hi, 1.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a.lo * a.hi, 1, 1e-9);
	rdr_axis_label(&a, 1.1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "+10%");
	rdr_axis_label(&a, 0.9, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "-10%");
	rdr_axis_label(&a, 1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0");
	rdr_axis_label(&a, 2, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "2x");
	/* an outlier far out still fits the ratio axis */
	rdr_axis_fit(&a, RDR_RATIO, 0.11, 1.9, 0);
	CU_ASSERT(a.lo <= 0.11 && a.hi >= 1.9);
	rdr_axis_fit(&a, RDR_RATIO, 1, 300, 0);
	CU_ASSERT(a.lo <= 1.0 / 300 && a.hi >= 300);
	/* coinciding series: the second lies on the first, the third apart */
	rdr_chart_init(&c, cr, 100, 50, 600, 500);
	rdr_axis_fit(&c.ax, RDR_LOG2, 1, 4, 0);
	rdr_axis_fit(&c.ay, RDR_LOG10, 10, 100, 0);
	rdr_chart_coincide(&c, 3, xs, ys, np, 1.0, same, off);
	EXPECT_INT(same[0], -1);
	EXPECT_INT(same[1], 0);
	EXPECT_INT(same[2], -1);
	CU_ASSERT(fabs(off[0] - off[1]) >= 3 - 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(off[0] + off[1], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(off[2], 0, 1e-9);
	/* a point beyond the y axis is counted (drawn at the border) */
	EXPECT_INT(rdr_chart_points(&c, 3, x, yout, 0, 3, 0, 1, 0), 1);
	EXPECT_INT(rdr_chart_points(&c, 3, x, y2, 0, 3, 0, 1, 0), 0);
	/* labels fighting for one spot: the placed ones never overlap */
	for (i = 0; i < 20; i++)
		placed += rdr_chart_label(&c, 400, 300, "speed-up x1.92", 11, 0, 0, 800) == 0;
	CU_ASSERT(placed >= 4 && placed <= 10);
	EXPECT_INT(c.nlab, placed);
	CU_ASSERT(boxes_apart(c.lab, c.nlab));
	/* a column of labels all wanting one height: spread apart, inside */
	c.nlab = 0;
	for (i = 0; i < 6; i++)
		col[i] = 540;
	rdr_chart_column(&c, 6, col, text, rgb, 710, 700, 11, 60, 540);
	EXPECT_INT(c.nlab, 6);
	CU_ASSERT(boxes_apart(c.lab, c.nlab));
	for (i = 0; i < c.nlab; i++)
		CU_ASSERT(c.lab[i].y >= 50 && c.lab[i].y + c.lab[i].h <= 550);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
}

/* The charts draw and are valid. */
static void test_charts(void)
{
	struct rdr_series ser[2];
	struct rdr_timeline t;
	struct step_span sp[3] = { { 0, 0, 1e-3, TAG_ATTN, 0 }, { 0, 1e-3, 1.5e-3, TAG_COMM_TP, 1 },
				   { 1, 0, 1.2e-3, TAG_EXPERTS, 0 } };
	struct plumb_err err;
	char p[400];
	long w, h;
	int i;
	memset(ser, 0, sizeof(ser));
	for (i = 0; i < 2; i++) {
		int k;
		snprintf(ser[i].label, sizeof(ser[i].label), "box %d, tp8", i);
		ser[i].color = i;
		ser[i].dash = i;
		for (k = 0; k < 7; k++) {
			ser[i].x[k] = 1 << k;
			ser[i].y[k] = k == 3 && i ? NAN : 10.0 * (k + 1) * (i + 1);
			ser[i].lo[k] = ser[i].y[k] * 0.8;
			ser[i].hi[k] = ser[i].y[k] * 1.2;
		}
		ser[i].n = 7;
	}
	snprintf(p, sizeof(p), "%s/tput.png", tmpdir);
	EXPECT_INT(rdr_throughput(p, "t", "concurrency", ser, 2, &err), 0);
	CU_ASSERT(png_ok(p, &w, &h));
	snprintf(p, sizeof(p), "%s/tput.svg", tmpdir);
	EXPECT_INT(rdr_throughput(p, "t", "concurrency", ser, 2, &err), 0);
	CU_ASSERT(svg_ok(p));
	memset(&t, 0, sizeof(t));
	t.ngpus = 2;
	t.seconds = 1.5e-3;
	t.spans = sp;
	t.nspans = 3;
	snprintf(p, sizeof(p), "%s/tl.pdf", tmpdir);
	EXPECT_INT(rdr_timeline(p, &t, &err), 0);
	CU_ASSERT(pdf_ok(p));
	/* the parts of a step: shares from ms, a bar with nothing in it, a pipeline */
	{
		struct rdr_parts_bar b[3];
		memset(b, 0, sizeof(b));
		snprintf(b[0].label, sizeof(b[0].label), "box 0, tp8");
		b[0].ms[PART_LAUNCH] = 2;
		b[0].ms[PART_WEIGHTS] = 10;
		b[0].ms[PART_ALLREDUCE] = 30;
		snprintf(b[1].label, sizeof(b[1].label), "box 1, tp8 (empty)");
		snprintf(b[2].label, sizeof(b[2].label), "box 1, tp4pp2");
		b[2].ms[PART_STAGE_SEND] = 1;
		b[2].ms[PART_IDLE] = 5;
		b[2].ms[PART_COMPUTE] = 4;
		snprintf(p, sizeof(p), "%s/parts.png", tmpdir);
		EXPECT_INT(rdr_parts(p, "parts", b, 3, &err), 0);
		CU_ASSERT(png_ok(p, &w, &h));
		snprintf(p, sizeof(p), "%s/parts.svg", tmpdir);
		EXPECT_INT(rdr_parts(p, "parts", b, 3, &err), 0);
		CU_ASSERT(svg_ok(p));
		snprintf(p, sizeof(p), "%s/parts-none.svg", tmpdir);
		EXPECT_INT(rdr_parts(p, "no bars", b, 0, &err), 0);
		CU_ASSERT(svg_ok(p));
	}
}

void suite_render_chart(void)
{
	CU_pSuite s = CU_add_suite("render_chart", suite_init, suite_clean);
	CU_add_test(s, "trace: valid JSON, events match the step", test_trace);
	CU_add_test(s, "throughput, timeline and step-parts charts", test_charts);
	CU_add_test(s, "chart layer: scales, labels, coinciding series, outliers", test_chart_layer);
}
