/*
 * test_cost.c - models/cost: which value wins (option, scenario `cost:`,
 * default), the power rule, the cost formula, shares of a box, and plan's
 * default layouts and its SLO verdicts.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "plan.h"

void suite_cost(void);

static struct scenario *load(const char *path)
{
	struct scenario *s = NULL;
	struct plumb_err err;
	if (scn_load(path, &s, &err) < 0)
		printf("\n  %s: %s\n", path, err.msg);
	return s;
}

static void test_precedence(void)
{
	struct scenario *s = load("scenarios/baremetal-8x-rtxpro6000.yaml");
	struct cost_params p;
	struct cost_opts o;
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	/* defaults, the catalog's GPU price times 8, idle assumed */
	cost_params_of(s, NULL, &p);
	CU_ASSERT_DOUBLE_EQUAL(p.life_years, COST_LIFE_YEARS, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(p.usd_per_kwh, COST_USD_PER_KWH, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(p.pue, COST_PUE, 1e-12);
	CU_ASSERT_EQUAL(p.price_src, COST_PRICE_GPUS);
	CU_ASSERT_DOUBLE_EQUAL(p.price_usd, 8 * 8565.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p.tdp_w, 600, 1e-12);
	CU_ASSERT(p.idle_assumed);
	CU_ASSERT_DOUBLE_EQUAL(p.idle_w, 600 * COST_IDLE_FRAC, 1e-9);
	/* the scenario's cost: over the defaults */
	s->cost.price_usd = 120000;
	s->cost.usd_per_kwh = -1;   /* stated zero */
	s->cost.pue = 1.2;
	cost_params_of(s, NULL, &p);
	CU_ASSERT_EQUAL(p.price_src, COST_PRICE_SCENARIO);
	CU_ASSERT_DOUBLE_EQUAL(p.price_usd, 120000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p.usd_per_kwh, 0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(p.pue, 1.2, 1e-12);
	/* an option over both */
	memset(&o, 0, sizeof(o));
	o.price_usd = 90000;
	o.pue = 1.1;
	o.usd_per_kwh = 0.2;
	cost_params_of(s, &o, &p);
	CU_ASSERT_EQUAL(p.price_src, COST_PRICE_OPTION);
	CU_ASSERT_DOUBLE_EQUAL(p.price_usd, 90000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p.pue, 1.1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(p.usd_per_kwh, 0.2, 1e-12);
	scn_free(s);
	/* the H200 has a measured idle and no catalog price */
	s = load("scenarios/hgx-8x-h200.yaml");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	cost_params_of(s, NULL, &p);
	CU_ASSERT(!p.idle_assumed);
	CU_ASSERT_DOUBLE_EQUAL(p.idle_w, 73.65, 1e-9);
	CU_ASSERT_EQUAL(p.price_src, COST_PRICE_NONE);
	scn_free(s);
}

static void test_formula(void)
{
	struct cost_params p;
	struct cost_point c;
	double part[PART_N] = { 0 }, hours = 4 * 365.25 * 24, want;
	memset(&p, 0, sizeof(p));
	p.ngpus = 8;
	p.price_usd = 100000;
	p.price_src = COST_PRICE_OPTION;
	p.life_years = 4;
	p.usd_per_kwh = 0.1;
	p.pue = 1.5;
	p.hosting_usd_kw_month = 200;
	p.host_w = 500;
	p.tdp_w = 700;
	p.idle_w = 100;
	/* half the step in memory and compute, half waiting on all-reduce */
	part[PART_WEIGHTS] = 3;
	part[PART_COMPUTE] = 2;
	part[PART_ALLREDUCE] = 4;
	part[PART_LAUNCH] = 1;
	CU_ASSERT_DOUBLE_EQUAL(cost_activity(part), 0.5, 1e-12);
	cost_point_eval(&p, 8, 0.5, 1000, &c);
	CU_ASSERT_DOUBLE_EQUAL(c.gpu_w, 400, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.box_w, 8 * 400 + 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.j_per_tok, 3700 * 1.5 / 1000, 1e-9);
	want = 100000 / hours + 3.7 * 1.5 * 0.1 + (8 * 0.7 + 0.5) * 200 * 12 / (365.25 * 24);
	CU_ASSERT_DOUBLE_EQUAL(c.usd_per_hour, want, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.usd_per_mtok, want / (1000 * 3600.0) * 1e6, 1e-9);
	/* two of eight GPUs: a quarter of the price, host and rent */
	cost_point_eval(&p, 2, 0.5, 1000, &c);
	CU_ASSERT_DOUBLE_EQUAL(c.box_w, 2 * 400 + 125, 1e-9);
	want = 25000 / hours + 0.925 * 1.5 * 0.1 + (2 * 0.7 + 0.125) * 200 * 12 / (365.25 * 24);
	CU_ASSERT_DOUBLE_EQUAL(c.usd_per_hour, want, 1e-9);
	/* no price: no cost per token, power still known */
	p.price_src = COST_PRICE_NONE;
	cost_point_eval(&p, 8, 0.5, 1000, &c);
	CU_ASSERT(isnan(c.usd_per_mtok));
	CU_ASSERT_DOUBLE_EQUAL(c.gpu_w, 400, 1e-9);
}

static void test_layouts(void)
{
	char lay[PLAN_MAXLAY][32];
	int n;
	const struct llm_model *m = NULL;
	struct plumb_err err;
	CU_ASSERT_EQUAL_FATAL(llm_model_resolve("glm-5", &m, &err), 0);
	plan_layouts(8, m, lay, &n);
	CU_ASSERT_EQUAL_FATAL(n, 6);
	CU_ASSERT_STRING_EQUAL(lay[0], "tp8");
	CU_ASSERT_STRING_EQUAL(lay[1], "dp2tp4");
	CU_ASSERT_STRING_EQUAL(lay[2], "dp4tp2");
	CU_ASSERT_STRING_EQUAL(lay[3], "dp8");
	CU_ASSERT_STRING_EQUAL(lay[4], "tp4pp2");
	CU_ASSERT_STRING_EQUAL(lay[5], "ep8");
	CU_ASSERT_EQUAL_FATAL(llm_model_resolve("llama-3.1-70b", &m, &err), 0);
	plan_layouts(2, m, lay, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);   /* tp2, dp2; no pipeline of 1, no experts */
	CU_ASSERT_STRING_EQUAL(lay[1], "dp2");
}

/* A small plan: rows that meet come first and hold the target, the others
 * say which bound they break. */
static void test_plan(void)
{
	struct scenario *s = load("scenarios/baremetal-8x-rtxpro6000.yaml");
	struct plan_opts o;
	struct plan_row *rows = NULL;
	struct plumb_err err;
	int n = 0, i, met = 0, missed = 0, seen_miss = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	memset(&o, 0, sizeof(o));
	o.r.model = "glm-5";
	o.r.weights = "nvfp4";
	o.r.kv = "bf16";
	o.r.input = 1024;
	o.r.output = 128;
	o.r.level = -1;
	o.r.seed = -1;
	o.r.range_ratio = -1;
	o.r.conc[0] = 1;
	o.r.conc[1] = 64;
	o.r.nconc = 2;
	snprintf(o.r.layouts[0], 32, "tp8");
	o.r.nlayouts = 1;
	o.slo.tpot_p90 = 50;
	CU_ASSERT_EQUAL_FATAL(plan_run(&o, &s, 1, &rows, &n, &err), 0);
	CU_ASSERT_EQUAL(n, 2);
	for (i = 0; i < n; i++) {
		if (rows[i].meets) {
			met++;
			CU_ASSERT(!seen_miss);
			CU_ASSERT(rows[i].tpot_p90 <= 50);
			CU_ASSERT(rows[i].reason[0] == 0);
		} else {
			missed++;
			seen_miss = 1;
			CU_ASSERT(rows[i].tpot_p90 > 50);
			CU_ASSERT_PTR_NOT_NULL(strstr(rows[i].reason, "TPOT p90 at"));
		}
		CU_ASSERT(rows[i].cost.usd_per_mtok > 0);
	}
	CU_ASSERT_EQUAL(met, 1);
	CU_ASSERT_EQUAL(missed, 1);
	plan_rows_free(rows, n);
	scn_free(s);
}

void suite_cost(void)
{
	CU_pSuite s = CU_add_suite("cost", NULL, NULL);
	CU_add_test(s, "option over scenario over default", test_precedence);
	CU_add_test(s, "power and cost formula, shares of a box", test_formula);
	CU_add_test(s, "plan's default layouts", test_layouts);
	CU_add_test(s, "plan's verdicts and order", test_plan);
}
