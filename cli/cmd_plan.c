/*
 * cmd_plan.c - `plumb plan`: parses the options (cmd_predict_parse) and
 * prints what models/plan finds: the configurations that meet the SLO,
 * cheapest first, those that miss it and why, the Pareto frontier, and
 * its chart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_predict_int.h"
#include "jout.h"
#include "out.h"
#include "render.h"

const char cmd_plan_usage[] =
	"usage: plumb plan SCENARIO... --ttft-p90 MS --tpot-p90 MS [options]\n"
	"\n"
	"The cheapest configurations that meet a latency target: every box (scenario\n"
	"file) x layout (replicas included) x engine setting (prefill chunk, max\n"
	"batched tokens) x load is predicted as `plumb predict --percentiles` predicts\n"
	"that point, costed, and checked against the target. Prints those that meet it,\n"
	"cheapest per million output tokens first; those that miss it with the reason\n"
	"(TTFT p90 at X ms, the model does not fit, ...); and the Pareto frontier of\n"
	"tok/s per GPU against tok/s per user.\n"
	"\n"
	"Target (at least one):\n"
	"  --ttft-p90 MS, --tpot-p90 MS, --ttft-p99 MS, --tpot-p99 MS\n"
	"Search:\n"
	"  --layout L,...         layouts tried on every box (default per box of N GPUs:\n"
	"                         tpN, dpKtp(N/K) for each smaller group, dpN, tp(N/2)pp2,\n"
	"                         epN for a model with experts)\n"
	"  --disagg               also disaggregated designs on every box of N GPUs:\n"
	"                         p1:tp(N/2)+d1:tp(N/2) and p2:tp(N/4)+d1:tp(N/2); any\n"
	"                         design pX:LP+dY:LD may also be given in --layout\n"
	"  --concurrency C,...    loads (default 1,2,4,8,16,32,64); with --rate: the cap\n"
	"  --chunked-prefill N,...     prefill chunk settings tried (default the engine's)\n"
	"  --max-batched-tokens N,...  mixed-step token budgets tried (default the engine's)\n"
	"Traffic and model: --model, --weights, --kv, --input, --output, --context,\n"
	"  --range-ratio, --rate, --requests, --trace, --seed, --mtp, --accept, --engine,\n"
	"  --eager, --nccl-p2p-level, --microbatches, and the KV tiers --prefix-len,\n"
	"  --prefix-hit, --kv-offload, --kv-offload-numa, as `plumb predict` takes them.\n"
	"Money (each also a scenario `cost:` key; the option wins):\n"
	"  --price-usd USD        the box's price (default: the GPU catalog's price per\n"
	"                         GPU times the GPUs, the chassis not counted)\n"
	"  --life-years Y         amortisation (default 5)\n"
	"  --usd-per-kwh P        electricity (default 0.131)\n"
	"  --pue R                facility power over IT power (default 1.58)\n"
	"  --hosting-usd-kw-month H  colocation rent per kW of rated power (default 196)\n"
	"  --host-w W             the box without GPUs (default 400)\n"
	"  (docs/cli-predict.md \"plumb plan\" cites each default)\n"
	"Output:\n"
	"  --top N                at most N rows per block of the table (default all)\n"
	"  --format table|csv|json  (default table)\n"
	"  -o FILE                write to FILE (atomically)\n"
	"  --plot FILE            the Pareto chart: tok/s per GPU against tok/s per user,\n"
	"                         a colour per box, filled where the SLO is met (.png,\n"
	"                         .svg, .pdf)\n"
	"\n"
	"JSON rows: scenario, layout, concurrency, chunked_prefill, max_batched_tokens,\n"
	"meets_slo, reason, ttft_p90_ms, tpot_p90_ms, ttft_p99_ms, tpot_p99_ms,\n"
	"tok_s_total, tok_s_per_gpu, tok_s_per_user, gpus_used, gpu_w, box_w,\n"
	"j_per_tok, usd_per_hour, usd_per_mtok, pareto.\n"
	"Exit status: 0 ok (also when nothing meets the target), 2 usage, 3 invalid\n"
	"scenario, 4 I/O error, 5 runtime error.\n"
	"Example: plumb plan scenarios/baremetal-8x-rtxpro6000.yaml "
	"scenarios/switch-8x-rtxpro6000.yaml --ttft-p90 2000 --tpot-p90 50\n";

static void num(char *buf, size_t n, double v, int dec)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.*f", dec, v);
}

static void slo_text(const struct plan_slo *t, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	if (t->ttft_p90 > 0)
		len += (size_t)snprintf(buf + len, n - len, "TTFT p90 <= %g ms", t->ttft_p90);
	if (t->tpot_p90 > 0 && len < n)
		len += (size_t)snprintf(buf + len, n - len, "%sTPOT p90 <= %g ms", len ? ", " : "",
					t->tpot_p90);
	if (t->ttft_p99 > 0 && len < n)
		len += (size_t)snprintf(buf + len, n - len, "%sTTFT p99 <= %g ms", len ? ", " : "",
					t->ttft_p99);
	if (t->tpot_p99 > 0 && len < n)
		snprintf(buf + len, n - len, "%sTPOT p99 <= %g ms", len ? ", " : "", t->tpot_p99);
}

static void setting(const struct plan_row *r, char *buf, size_t n)
{
	if (!r->chunk && !r->max_batched)
		snprintf(buf, n, "default");
	else if (r->max_batched)
		snprintf(buf, n, "mbt%ld", r->max_batched);
	else
		snprintf(buf, n, "chunk%ld", r->chunk);
}

static void print_table(FILE *f, const struct popts *o, struct scenario **s,
			const struct plan_row *rows, int n)
{
	char slo[200], load[64];
	int i, blk, shown;
	slo_text(&o->slo, slo, sizeof(slo));
	if (o->r.rate > 0)
		snprintf(load, sizeof(load), "Poisson arrivals at %g/s", o->r.rate);
	else
		snprintf(load, sizeof(load), "closed loop");
	fprintf(f, "# plan: %s %s, input %ld, output %ld, %s; target %s\n", o->r.model,
		o->r.weights, o->r.input, o->r.output, load, slo);
	for (i = 0; i < o->npaths; i++) {
		struct cost_params cp;
		char t[400];
		cost_params_of(s[i], &o->cost, &cp);
		cost_params_text(&cp, t, sizeof(t));
		fprintf(f, "# %s: %s\n", s[i]->name, t);
	}
	for (blk = 0; blk < 3; blk++) {
		static const char *const head[] = {
			"Meets the target, cheapest per million output tokens first:",
			"Misses the target:",
			"Does not run:"
		};
		int any = 0;
		for (i = 0, shown = 0; i < n; i++) {
			const struct plan_row *r = &rows[i];
			int b = r->meets ? 0 : r->p.fits && !isnan(r->tok_s_per_gpu) ? 1 : 2;
			char set[32], a[16], bb[16], c[16], d[16], e[16], g[16], h[16], k[16];
			if (b != blk || (o->top > 0 && shown >= o->top))
				continue;
			if (!any++) {
				fprintf(f, "\n%s\n", head[blk]);
				if (blk < 2)
					fprintf(f, "%-28s %-10s %5s %-10s %8s %9s %10s %9s %9s %6s %6s %7s %8s%s\n",
						"scenario", "layout", "conc", "setting", "tok/s", "tok/s/gpu",
						"tok/s/user", "ttft_p90", "tpot_p90", "gpu_W", "box_kW",
						"J/tok", "$/Mtok", blk == 1 ? "  reason" : "  pareto");
				else
					fprintf(f, "%-28s %-10s  %s\n", "scenario", "layout", "reason");
			}
			if (blk == 2 && i > 0 && rows[i - 1].si == r->si &&
			    !strcmp(rows[i - 1].p.lay, r->p.lay) && !strcmp(rows[i - 1].reason, r->reason))
				continue;       /* the same reason at every load: once */
			shown++;
			if (blk == 2) {
				fprintf(f, "%-28s %-10s  %s\n", s[r->si]->name, r->p.lay, r->reason);
				continue;
			}
			setting(r, set, sizeof(set));
			num(a, sizeof(a), r->p.tok_total, 1);
			num(bb, sizeof(bb), r->tok_s_per_gpu, 1);
			num(c, sizeof(c), r->tok_s_per_user, 2);
			num(d, sizeof(d), r->ttft_p90, 0);
			num(e, sizeof(e), r->tpot_p90, 1);
			num(g, sizeof(g), r->cost.gpu_w, 0);
			num(h, sizeof(h), r->cost.box_w / 1000, 2);
			num(k, sizeof(k), r->cost.j_per_tok, 2);
			fprintf(f, "%-28s %-10s %5d %-10s %8s %9s %10s %9s %9s %6s %6s %7s ", s[r->si]->name,
				r->p.lay, r->p.x, set, a, bb, c, d, e, g, h, k);
			num(a, sizeof(a), r->cost.usd_per_mtok, 3);
			fprintf(f, "%8s  %s\n", a, blk == 1 ? r->reason : r->pareto ? "*" : "");
		}
		if (!any && blk == 0)
			fprintf(f, "\nNo configuration meets the target.\n");
	}
	fprintf(f, "\nPareto frontier (no other configuration has more tok/s per GPU and per user):\n");
	for (i = 0; i < n; i++)
		if (rows[i].pareto) {
			char set[32] = "";
			if (rows[i].chunk || rows[i].max_batched) {
				set[0] = ' ';
				setting(&rows[i], set + 1, sizeof(set) - 1);
			}
			fprintf(f, "  %s %s%s at %d: %.1f tok/s per GPU, %.2f tok/s per user%s\n",
				s[rows[i].si]->name, rows[i].p.lay, set, rows[i].p.x,
				rows[i].tok_s_per_gpu, rows[i].tok_s_per_user,
				rows[i].meets ? " (meets the target)" : "");
		}
	fprintf(f, "\nPower: idle + (TDP - idle) x the share of the decode step in memory, compute and\n"
		"kernel floors; $/Mtok = (price / life + energy x PUE x $/kWh + rent on rated kW) / tokens.\n");
}

static void print_csv(FILE *f, struct scenario **s, const struct plan_row *rows, int n)
{
	int i;
	fprintf(f, "scenario,layout,concurrency,chunked_prefill,max_batched_tokens,meets_slo,"
		"ttft_p90_ms,tpot_p90_ms,ttft_p99_ms,tpot_p99_ms,tok_s_total,tok_s_per_gpu,"
		"tok_s_per_user,gpus_used,gpu_w,box_w,j_per_tok,usd_per_hour,usd_per_mtok,pareto,reason\n");
	for (i = 0; i < n; i++) {
		const struct plan_row *r = &rows[i];
		const double v[] = {
			r->ttft_p90, r->tpot_p90, r->ttft_p99, r->tpot_p99, r->p.fits ? r->p.tok_total : NAN,
			r->tok_s_per_gpu, r->tok_s_per_user
		};
		const double w[] = { r->cost.gpu_w, r->cost.box_w, r->cost.j_per_tok,
				     r->cost.usd_per_hour, r->cost.usd_per_mtok };
		char reason[1200];
		size_t k, j = 0;
		fprintf(f, "%s,%s,%d,%ld,%ld,%d", s[r->si]->name, r->p.lay, r->p.x, r->chunk,
			r->max_batched, r->meets);
		for (k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			isnan(v[k]) ? fprintf(f, ",") : fprintf(f, ",%.3f", v[k]);
		fprintf(f, ",%d", r->gpus_used);
		for (k = 0; k < sizeof(w) / sizeof(w[0]); k++)
			!r->p.fits || isnan(w[k]) ? fprintf(f, ",") : fprintf(f, ",%.4f", w[k]);
		/* the reason quoted (it holds commas) */
		for (k = 0; r->reason[k] && j + 2 < sizeof(reason); k++) {
			if (r->reason[k] == '"')
				reason[j++] = '"';
			reason[j++] = r->reason[k];
		}
		reason[j] = 0;
		fprintf(f, ",%d,\"%s\"\n", r->pareto, reason);
	}
}

static int print_json(FILE *f, const struct popts *o, struct scenario **s,
		      const struct plan_row *rows, int n, struct plumb_err *err)
{
	json_t *doc = json_object(), *slo = json_object(), *arr = json_array(), *costs = json_array();
	int i, rc = 0;
	rc |= jout_set(doc, "model", jout_str(o->r.model));
	rc |= jout_set(doc, "weights", jout_str(o->r.weights));
	rc |= jout_set(doc, "input", json_integer(o->r.input));
	rc |= jout_set(doc, "output", json_integer(o->r.output));
	rc |= jout_set(doc, "rate", o->r.rate > 0 ? jout_real(o->r.rate, 6) : json_null());
	rc |= jout_set(slo, "ttft_p90_ms", o->slo.ttft_p90 > 0 ? jout_real(o->slo.ttft_p90, 3) : json_null());
	rc |= jout_set(slo, "tpot_p90_ms", o->slo.tpot_p90 > 0 ? jout_real(o->slo.tpot_p90, 3) : json_null());
	rc |= jout_set(slo, "ttft_p99_ms", o->slo.ttft_p99 > 0 ? jout_real(o->slo.ttft_p99, 3) : json_null());
	rc |= jout_set(slo, "tpot_p99_ms", o->slo.tpot_p99 > 0 ? jout_real(o->slo.tpot_p99, 3) : json_null());
	rc |= jout_set(doc, "slo", slo);
	for (i = 0; i < o->npaths; i++) {
		struct cost_params cp;
		json_t *c = json_object();
		cost_params_of(s[i], &o->cost, &cp);
		rc |= jout_set(c, "scenario", jout_str(s[i]->name));
		rc |= jout_set(c, "price_usd", cp.price_src ? jout_real(cp.price_usd, 2) : json_null());
		rc |= jout_set(c, "price_is_gpus_only", json_boolean(cp.price_src == COST_PRICE_GPUS));
		rc |= jout_set(c, "life_years", jout_real(cp.life_years, 3));
		rc |= jout_set(c, "usd_per_kwh", jout_real(cp.usd_per_kwh, 4));
		rc |= jout_set(c, "pue", jout_real(cp.pue, 3));
		rc |= jout_set(c, "hosting_usd_kw_month", jout_real(cp.hosting_usd_kw_month, 2));
		rc |= jout_set(c, "host_w", jout_real(cp.host_w, 1));
		rc |= jout_set(c, "gpu_tdp_w", cp.tdp_w > 0 ? jout_real(cp.tdp_w, 1) : json_null());
		rc |= jout_set(c, "gpu_idle_w", cp.tdp_w > 0 ? jout_real(cp.idle_w, 2) : json_null());
		rc |= jout_set(c, "gpu_idle_assumed", json_boolean(cp.idle_assumed));
		rc |= jout_push(costs, c);
	}
	rc |= jout_set(doc, "costs", costs);
	for (i = 0; i < n; i++) {
		const struct plan_row *r = &rows[i];
		json_t *row = json_object();
		rc |= jout_set(row, "scenario", jout_str(s[r->si]->name));
		rc |= jout_set(row, "layout", jout_str(r->p.lay));
		rc |= jout_set(row, "concurrency", json_integer(r->p.x));
		rc |= jout_set(row, "chunked_prefill", r->chunk ? json_integer(r->chunk) : json_null());
		rc |= jout_set(row, "max_batched_tokens",
			       r->max_batched ? json_integer(r->max_batched) : json_null());
		rc |= jout_set(row, "meets_slo", json_boolean(r->meets));
		rc |= jout_set(row, "reason", jout_str(r->reason));
		rc |= jout_set(row, "fits", json_boolean(r->p.fits && !isnan(r->tok_s_per_gpu)));
		rc |= jout_set(row, "ttft_p90_ms", jout_real(r->ttft_p90, 3));
		rc |= jout_set(row, "tpot_p90_ms", jout_real(r->tpot_p90, 3));
		rc |= jout_set(row, "ttft_p99_ms", jout_real(r->ttft_p99, 3));
		rc |= jout_set(row, "tpot_p99_ms", jout_real(r->tpot_p99, 3));
		rc |= jout_set(row, "tok_s_total", jout_real(isnan(r->tok_s_per_gpu) ? NAN : r->p.tok_total, 2));
		rc |= jout_set(row, "tok_s_per_gpu", jout_real(r->tok_s_per_gpu, 2));
		rc |= jout_set(row, "tok_s_per_user", jout_real(r->tok_s_per_user, 3));
		rc |= jout_set(row, "gpus_used", json_integer(r->gpus_used));
		rc |= jout_set(row, "gpu_w", jout_real(r->cost.gpu_w, 1));
		rc |= jout_set(row, "box_w", jout_real(r->cost.box_w, 1));
		rc |= jout_set(row, "j_per_tok", jout_real(r->cost.j_per_tok, 3));
		rc |= jout_set(row, "usd_per_hour", jout_real(isnan(r->tok_s_per_gpu) ? NAN : r->cost.usd_per_hour, 4));
		rc |= jout_set(row, "usd_per_mtok", jout_real(r->cost.usd_per_mtok, 4));
		rc |= jout_set(row, "pareto", json_boolean(r->pareto));
		rc |= jout_push(arr, row);
	}
	rc |= jout_set(doc, "rows", arr);
	return jout_write_built(f, doc, rc, 2, err);
}

/* --plot: every configuration that runs, tok/s per GPU against tok/s per user. */
static int plot(const struct popts *o, struct scenario **s, const struct plan_row *rows, int n,
		struct plumb_err *err)
{
	struct rdr_pareto_pt *pt = calloc((size_t)(n ? n : 1), sizeof(*pt));
	const char *names[MAXSCN];
	char title[256], slo[200];
	int i, k = 0, rc;
	if (!pt)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < n; i++) {
		if (isnan(rows[i].tok_s_per_gpu))
			continue;
		pt[k].x = rows[i].tok_s_per_user;
		pt[k].y = rows[i].tok_s_per_gpu;
		pt[k].box = rows[i].si;
		pt[k].meets = rows[i].meets;
		pt[k].frontier = rows[i].pareto;
		snprintf(pt[k].label, sizeof(pt[k].label), "%s@%d", rows[i].p.lay, rows[i].p.x);
		k++;
	}
	for (i = 0; i < o->npaths; i++)
		names[i] = s[i]->name;
	slo_text(&o->slo, slo, sizeof(slo));
	snprintf(title, sizeof(title), "%s %s, input %ld, output %ld: target %s", o->r.model,
		 o->r.weights, o->r.input, o->r.output, slo);
	rc = rdr_pareto(o->plot, title, pt, k, names, o->npaths, err);
	rdr_release_fonts();
	free(pt);
	return rc;
}

int cmd_plan(int argc, char **argv)
{
	struct popts o;
	struct plumb_err err;
	struct scenario *s[MAXSCN] = { NULL };
	struct plan_opts po;
	struct plan_row *rows = NULL;
	struct outfile out;
	int i, rc, nrows = 0, opened = 0;

	if ((rc = cmd_predict_parse("plan", argc, argv, &o, 1)) != 0)
		return rc;
	plumb_err_clear(&err);
	for (i = 0; i < o.npaths; i++)
		if ((rc = scn_load(o.paths[i], &s[i], &err)) < 0)
			goto fail;
	if (o.trace && (rc = cmd_predict_read_trace(&o, &err)) < 0)
		goto fail;
	memset(&po, 0, sizeof(po));
	po.r = o.r;
	memcpy(po.chunk, o.chunks, sizeof(po.chunk));
	po.nchunk = o.nchunk;
	memcpy(po.max_batched, o.maxbt, sizeof(po.max_batched));
	po.nmax_batched = o.nmaxbt;
	po.slo = o.slo;
	po.cost = o.cost;
	if ((rc = plan_run(&po, s, o.npaths, &rows, &nrows, &err)) < 0)
		goto fail;
	if ((rc = out_open(&out, o.outpath, &err)) < 0)
		goto fail;
	opened = 1;
	if (!strcmp(o.format, "json")) {
		if ((rc = print_json(out.f, &o, s, rows, nrows, &err)) < 0)
			goto fail;
	} else if (!strcmp(o.format, "csv")) {
		print_csv(out.f, s, rows, nrows);
	} else {
		print_table(out.f, &o, s, rows, nrows);
	}
	opened = 0;
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	if (o.plot && (rc = plot(&o, s, rows, nrows, &err)) < 0)
		goto fail;
	plan_rows_free(rows, nrows);
	free(o.reqs);
	for (i = 0; i < o.npaths; i++)
		scn_free(s[i]);
	return PLUMB_OK;
fail:
	if (opened)
		out_abort(&out);
	plumb_err_print(&err);
	plan_rows_free(rows, nrows);
	free(o.reqs);
	for (i = 0; i < o.npaths; i++)
		scn_free(s[i]);
	return plumb_err_status(&err);
}
