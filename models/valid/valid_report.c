/*
 * valid_report.c - the Markdown report of plumb validate (docs/validation.md).
 */
#include "out.h"
#include "valid_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *unit_of(const struct val_point *p, const struct val_case *c)
{
	if (c->kind == VAL_SERVING)
		return p->group == VAL_SRV_TPOT || p->group == VAL_SRV_TTFT ||
		       p->group == VAL_SRV_XFER ? "ms" : "tok/s";
	if (c->kind == VAL_NCCL)
		return "us";
	return p->group >= MEAS_P2P_LAT_DISABLED_GPU ? "us" : "GB/s";
}

/*
 * Cases that share a `group:` summarised together: their points' median and
 * worst error, the GPUs (scenario GPU models) they cover.
 */
static void group_table(FILE *f, const struct val_set *v)
{
	int i, j, p, head = 0;
	for (i = 0; i < v->ncases; i++) {
		const char *g = v->cases[i].group;
		double *e;
		char gpus[256] = "";
		int n = 0, ncase = 0;
		if (!g[0])
			continue;
		for (j = 0; j < i && strcmp(v->cases[j].group, g); j++)
			;
		if (j < i)
			continue;       /* summarised at its first case */
		e = malloc((size_t)(v->npoints + 1) * sizeof(*e));
		if (!e)
			return;
		for (j = i; j < v->ncases; j++) {
			const struct val_case *c = &v->cases[j];
			const struct scn_catalog *cat = c->scn->catalog;
			const char *id;
			if (strcmp(c->group, g))
				continue;
			ncase++;
			for (p = c->first_point; p < c->first_point + c->npoints; p++) {
				double r = v->points[p].predicted / v->points[p].measured;
				if (isfinite(r) && r > 0)
					e[n++] = fabs(r - 1);
			}
			id = c->scn->ngpus ? cat->gpus[c->scn->nodes[c->scn->gpu_node[0]].gpu_model].id : "";
			if (!strstr(gpus, id) && strlen(gpus) + strlen(id) + 3 < sizeof(gpus))
				snprintf(gpus + strlen(gpus), sizeof(gpus) - strlen(gpus), "%s%s",
					 gpus[0] ? ", " : "", id);
		}
		qsort(e, (size_t)n, sizeof(*e), val_cmp_double);
		if (!head++)
			fputs("\n| group | cases | points | GPUs | median error | worst error |\n"
			      "|---|---|---|---|---|---|\n", f);
		if (n)
			fprintf(f, "| %s | %d | %d | %s | %.1f%% | %.1f%% |\n", g, ncase, n, gpus,
				100 * (n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2])),
				100 * e[n - 1]);
		free(e);
	}
}

/* Error of the points of case c in nccl column g (0 out-of-place, 1 in-place). */
static void nccl_column_stats(const struct val_set *v, const struct val_case *c, int g,
			      struct val_stats *st)
{
	int p, first = -1, cnt = 0;
	for (p = c->first_point; p < c->first_point + c->npoints; p++)
		if (v->points[p].group == g) {
			if (first < 0)
				first = p;
			cnt++;
		}
	memset(st, 0, sizeof(*st));
	st->worst = -1;
	if (cnt)
		val_stats(v, first, cnt, st);
}

/* One error row per timed column of an nccl-tests table. */
static void nccl_columns(FILE *f, const struct val_set *v, const struct val_case *c)
{
	static const char *const name[] = { "out-of-place time", "in-place time" };
	int g;
	fputs("| column | points | median error | worst | within 2x |\n|---|---|---|---|---|\n", f);
	for (g = 0; g < 2; g++) {
		struct val_stats st;
		nccl_column_stats(v, c, g, &st);
		if (st.n)
			fprintf(f, "| %s | %d | %.1f%% | x%.2f | %d/%d |\n", name[g], st.n,
				100 * st.median_err, st.worst_ratio, st.within2x, st.n);
	}
}

/*
 * The CPU-side latency matrices: p2pBandwidthLatencyTest blocks the stream
 * with a spinning kernel while the host enqueues the copies, so its CPU
 * timer measures the driver's enqueue cost, never a transfer. plumb models
 * no host API cost: listed with their median, not scored.
 */
static void p2p_unscored(FILE *f, const struct val_case *c)
{
	static const enum meas_p2p_kind cpu[] = { MEAS_P2P_LAT_DISABLED_CPU, MEAS_P2P_LAT_WRITES_CPU,
						  MEAS_P2P_LAT_READS_CPU };
	const struct meas_p2p_run *run;
	size_t k;
	if (!c->p2p || c->run > c->p2p->nruns)
		return;
	run = &c->p2p->runs[c->run - 1];
	for (k = 0; k < sizeof(cpu) / sizeof(cpu[0]); k++) {
		double vals[MEAS_P2P_MAX_GPUS * MEAS_P2P_MAX_GPUS];
		int a, b, n = 0;
		for (a = 0; a < run->n; a++)
			for (b = 0; b < run->n; b++) {
				double x = meas_p2p_at(run, cpu[k], a, b);
				if (a != b && x > 0)
					vals[n++] = x;
			}
		if (!n)
			continue;
		qsort(vals, (size_t)n, sizeof(vals[0]), val_cmp_double);
		fprintf(f, "| %s | %d | not scored | median %.2f us: the host's time to enqueue a copy "
			"while the stream is blocked, not a transfer |\n",
			meas_p2p_kind_name(cpu[k]), n,
			n % 2 ? vals[n / 2] : (vals[n / 2 - 1] + vals[n / 2]) / 2);
	}
}

/* The model error of decode and serving points (val_spread_run). */
static void spread_table(FILE *f, const struct val_set *v)
{
	static const char *const what[VAL_NQ] = { "", "tok/s, TPOT, decode step", "TTFT" };
	static const char *const kname[VAL_NQ] = { "", "tok_err_sd", "ttft_err_sd" };
	int q, head = 0;
	for (q = VAL_Q_RATE; q < VAL_NQ; q++) {
		struct val_spread_summary s;
		if (!val_spread_get(v, q, &s))
			continue;
		if (!head++)
			fprintf(f, "\n## Model error\n\n"
				   "The 90%% range of a decode or serving point is what `plumb predict` draws "
				   "(%d draws): the step constants the scenario leaves at their defaults over "
				   "their plausible ranges, times a log-normal model error of log-sd `sd`. The "
				   "`sd` of a quantity is the smallest that puts 90%% of its out-of-sample "
				   "points inside their ranges. The constant predict uses is the one from all "
				   "out-of-sample points; each point's range in the tables below uses the `sd` "
				   "of every other case's points (leave one case out), so no point widens its "
				   "own range; `sh validation/coverage.sh` scores those ranges.\n\n"
				   "| quantity | out-of-sample points | sd from all of them | leave-one-case-out "
				   "sd | constant (predict) | inside with the constant (in-sample) |\n"
				   "|---|---|---|---|---|---|\n", s.ndraws);
		if (s.n)
			fprintf(f, "| %s | %d | %.4f | %.4f-%.4f | %s %.4f%s | %d of %d |\n", what[q], s.n,
				s.sd_all, s.sd_loo_lo, s.sd_loo_hi, kname[q], s.sd_const,
				fabs(s.sd_const - s.sd_all) > 0.005 ?
				" (stale: io/consts.c should hold the figure from all points)" : "",
				s.in_const, s.n);
		else
			fprintf(f, "| %s | 0 | - | - | %s %.4f (assumed: no point to measure it on) | - |\n",
				what[q], kname[q], s.sd_const);
	}
}

void val_report(FILE *f, const struct val_set *v, const char *title)
{
	int i, p;

	fprintf(f, "# %s\n\n", title);
	fprintf(f, "Generated by `make validate` (`plumb validate %s`); do not edit by hand.\n"
		   "Each measured number of each case is predicted by plumb from the case's scenario "
		   "with the constants it holds; error = |predicted / measured - 1|. "
		   "p2pBandwidthLatencyTest diagonals (a GPU copying within itself) are left out: "
		   "they measure the GPU's memory, not the interconnect. Every matrix of a p2p file "
		   "and both timed columns of an nccl-tests table (out-of-place, in-place) get an "
		   "error row; the CPU latency matrices are listed with their median, not scored "
		   "(they time the host's enqueue of a copy, not a transfer).\n\n", v->file);
	fprintf(f, "## Summary\n\n"
		   "A case whose data fixed a constant its own prediction uses (its `fits:` in "
		   "`%s`) is fitted: its points show the fit, not a prediction, and stay out of the "
		   "headline figures, which are the out-of-sample points only.\n\n", v->file);
	fputs("| points | cases | points | median error | worst | within 2x |\n"
	      "|---|---|---|---|---|---|\n", f);
	{
		static const struct { int kind, qty; const char *what; } by[] = {
			{ -1, -1, "**all**" },
			{ VAL_P2P, -1, "p2pBandwidthLatencyTest" },
			{ VAL_NCCL, -1, "nccl-tests" },
			{ VAL_COLLCSV, -1, "collective timings" },
			{ -1, VAL_Q_RATE, "decode and serving: tok/s, TPOT, step" },
			{ -1, VAL_Q_TTFT, "serving: TTFT" },
		};
		size_t b;
		int fitted;
		for (fitted = 0; fitted < 2; fitted++)
			for (b = 0; b < sizeof(by) / sizeof(by[0]); b++) {
				struct val_stats st;
				struct val_sel sel = { by[b].kind, fitted, by[b].qty };
				int ncase = 0, k, q;
				val_stats_sel(v, &sel, &st);
				if (!st.n && b > 0)
					continue;
				for (k = 0; k < v->ncases; k++)
					for (q = v->cases[k].first_point;
					     q < v->cases[k].first_point + v->cases[k].npoints; q++) {
						const struct val_point *pt = &v->points[q];
						if (VAL_CASE_FITTED(&v->cases[k]) == fitted &&
						    (sel.kind < 0 || (int)v->cases[k].kind == sel.kind) &&
						    (sel.qty < 0 || (int)val_point_qty(v, pt) == sel.qty)) {
							ncase++;
							break;
						}
					}
				fprintf(f, "| %s %s | %d | %d | %.1f%% | ", fitted ? "fitted" : "out-of-sample",
					by[b].what, ncase, st.n, 100 * st.median_err);
				/* the point whose error is the one printed */
				if (st.max_pt >= 0)
					fprintf(f, "%.1f%% (x%.2f, %s, %s) | %d/%d |\n", 100 * st.max_err,
						st.max_ratio, v->cases[v->points[st.max_pt].c].name,
						v->points[st.max_pt].label, st.within2x, st.n);
				else
					fputs("- | - |\n", f);
			}
	}
	{
		/* the bars of the serving and decode figures */
		struct val_stats r, t;
		struct val_sel sr = { -1, 0, VAL_Q_RATE }, stt = { -1, 0, VAL_Q_TTFT };
		val_stats_sel(v, &sr, &r);
		val_stats_sel(v, &stt, &t);
		fprintf(f, "\nOut-of-sample decode and serving points (tok/s, TPOT, decode steps): %d, "
			   "median error %.1f%%, worst %.1f%% (bar: median at most 6%%, worst at most 20%%: %s).\n",
			r.n, 100 * r.median_err, 100 * r.max_err,
			r.n && r.median_err <= 0.06 && r.max_err <= 0.20 ? "met" : "not met");
		if (t.n)
			fprintf(f, "Out-of-sample TTFT points: %d, median error %.1f%%, worst %.1f%% (bar: "
				   "median at most 12%%, worst at most 25%%: %s).\n", t.n, 100 * t.median_err,
				100 * t.max_err, t.median_err <= 0.12 && t.max_err <= 0.25 ? "met" : "not met");
		else
			fputs("Out-of-sample TTFT points: none (no serving case's CSV has a ttft_ms column "
			      "yet).\n", f);
	}
	{
		/* the points left out of these figures, each case's note says why */
		int q, said = 0;
		for (q = 0; q < v->npoints; q++) {
			const struct val_point *pt = &v->points[q];
			if (!pt->artefact)
				continue;
			fprintf(f, "%s%s %s (x%.2f)", said++ ? "; " :
				"\nLeft out of the figures above as measurement artefacts (each case's "
				"`artefacts:`; its note says why; scored in its own table): ",
				v->cases[pt->c].name, pt->label, pt->predicted / pt->measured);
		}
		if (said)
			fputs(".\n", f);
	}
	fprintf(f, "\n| case | kind | scored as | points | median error | worst | within 2x |\n"
		   "|---|---|---|---|---|---|---|\n");
	for (i = 0; i < v->ncases; i++) {
		const struct val_case *c = &v->cases[i];
		struct val_stats st;
		char fits[VAL_MAX_FITS * 96] = "";
		int k;
		for (k = 0; k < c->nfits; k++) {
			int ki = consts_find(c->fits[k]);
			snprintf(fits + strlen(fits), sizeof(fits) - strlen(fits), "%s%s", k ? ", " : "",
				 c->fits[k]);
			/* a fitted value outside its plausible range says so */
			if (ki >= 0 && c->scn && !consts_plausible(ki, c->scn->k.v[ki]))
				snprintf(fits + strlen(fits), sizeof(fits) - strlen(fits),
					 " %g %s, outside its plausible %g-%g", c->scn->k.v[ki],
					 plumb_const_defs[ki].unit, plumb_const_defs[ki].plo,
					 plumb_const_defs[ki].phi);
		}
		val_stats(v, c->first_point, c->npoints, &st);
		fprintf(f, "| %s | %s | %s%s%s | %d | %.1f%% | x%.2f | %d/%d |\n", c->name,
			c->kind == VAL_NCCL ? c->op : c->kind == VAL_P2P ? "p2p" :
			c->kind == VAL_DECODE ? "decode" : c->kind == VAL_COLLCSV ? "collectives" : "serving",
			c->nfits ? "fitted (" : "out-of-sample", fits, c->nfits ? ")" : "",
			st.n, 100 * st.median_err, st.worst_ratio, st.within2x, st.n);
	}
	spread_table(f, v);
	group_table(f, v);
	for (i = 0; i < v->ncases; i++) {
		const struct val_case *c = &v->cases[i];
		fprintf(f, "\n## %s\n\n", c->name);
		fprintf(f, "Scenario `%s`, data `%s`", c->scenario, c->data);
		if (c->run > 1)
			fprintf(f, " (run %d)", c->run);
		if (c->source[0])
			fprintf(f, "; source: %s", c->source);
		fputs(".", f);
		if (c->kind == VAL_SERVING)
			fprintf(f, " %s %s weights, %s KV cache, input %ld and output %ld tokens.\n\n"
				   "| point | measured | predicted | ratio | 90%% range | inside |\n"
				   "|---|---|---|---|---|---|\n",
				c->model, c->weights, c->kv, c->input, c->output);
		else if (c->kind == VAL_NCCL) {
			fprintf(f, " %s over %d GPUs%s%s.\n\n", c->op, c->ngpus,
				c->p2p_disable ? ", NCCL_P2P_DISABLE=1" : "",
				c->nccl_level >= 0 ? ", NCCL_P2P_LEVEL set" : "");
			nccl_columns(f, v, c);
			fputs("\n| size | measured (us) | predicted (us) | ratio | measured in-place (us) | ratio |\n"
			      "|---|---|---|---|---|---|\n", f);
		}
		else if (c->kind == VAL_DECODE)
			fprintf(f, " %s %s weights, %s KV cache; one decode step of `batch` sequences "
				   "holding `ctx` tokens each.\n\n| point | measured step (ms) | "
				   "predicted step (ms) | ratio | 90%% range | inside |\n|---|---|---|---|---|---|\n",
				c->model, c->weights, c->kv);
		else if (c->kind == VAL_COLLCSV)
			fputs("\n\n| point | measured (us) | predicted (us) | ratio |\n|---|---|---|---|\n", f);
		else
			fputs("\n\n| matrix | cells | median error | worst cell: measured -> predicted |\n|---|---|---|---|\n", f);
		if (c->kind == VAL_NCCL) {
			for (p = c->first_point; p < c->first_point + c->npoints; p++) {
				const struct val_point *o = &v->points[p], *ip = NULL;
				int q;
				if (o->group != 0)
					continue;
				for (q = c->first_point; q < c->first_point + c->npoints; q++)
					if (v->points[q].group == 1 && v->points[q].row == o->row)
						ip = &v->points[q];
				fprintf(f, "| %s | %.2f | %.2f | %.2f |", o->label, o->measured,
					o->predicted, o->predicted / o->measured);
				if (ip)
					fprintf(f, " %.2f | %.2f |\n", ip->measured, ip->predicted / ip->measured);
				else
					fputs(" - | - |\n", f);
			}
		} else if (c->kind != VAL_P2P) {
			for (p = c->first_point; p < c->first_point + c->npoints; p++) {
				const struct val_point *o = &v->points[p];
				fprintf(f, "| %s | %.2f | %.2f | %.2f |", o->label, o->measured,
					o->predicted, o->predicted / o->measured);
				if (c->kind == VAL_COLLCSV)
					fputc('\n', f);
				else if (isnan(o->lo))
					fputs(" - | - |\n", f);
				else
					fprintf(f, " %.2f-%.2f | %s |\n", o->lo, o->hi,
						o->measured >= o->lo && o->measured <= o->hi ? "yes" : "no");
			}
		} else {
			int g;
			for (g = 0; g < MEAS_P2P_NKINDS; g++) {
				int first = -1, cnt = 0;
				struct val_stats st;
				for (p = c->first_point; p < c->first_point + c->npoints; p++)
					if (v->points[p].group == g) {
						if (first < 0)
							first = p;
						cnt++;
					}
				if (!cnt)
					continue;
				val_stats(v, first, cnt, &st);
				fprintf(f, "| %s | %d | %.1f%% | %s: %.2f -> %.2f %s |\n",
					meas_p2p_kind_name((enum meas_p2p_kind)g), st.n, 100 * st.median_err,
					st.worst >= 0 ? v->points[st.worst].label : "-",
					st.worst >= 0 ? v->points[st.worst].measured : 0,
					st.worst >= 0 ? v->points[st.worst].predicted : 0,
					st.worst >= 0 ? unit_of(&v->points[st.worst], c) : "");
			}
			p2p_unscored(f, c);
		}
		if (c->note[0])
			fprintf(f, "\n%s\n", c->note);
	}
	for (i = 0; i < v->nwhatif; i++) {
		const struct val_whatif *w = &v->whatif[i];
		int a, b, k;
		fprintf(f, "\n## %s\n\nPredicted total tok/s (no measurement), GLM-5 NVFP4, input and output 1024 tokens.\n\n| layout | concurrency |", w->name);
		for (a = 0; a < w->nscn; a++)
			fprintf(f, " %s |", w->scn[a]->name);
		fputs("\n|---|---|", f);
		for (a = 0; a < w->nscn; a++)
			fputs("---|", f);
		fputc('\n', f);
		for (b = 0; b < w->nlayouts; b++)
			for (k = 0; k < w->nconc; k++) {
				fprintf(f, "| %s | %d |", w->layouts[b], w->conc[k]);
				for (a = 0; a < w->nscn; a++) {
					if (a == 0)
						fprintf(f, " %.1f |", w->tok[a][b][k]);
					else
						fprintf(f, " %.1f (x%.2f) |", w->tok[a][b][k],
							w->tok[a][b][k] / w->tok[0][b][k]);
				}
				fputc('\n', f);
			}
		if (w->note[0])
			fprintf(f, "\n%s\n", w->note);
	}
}

void val_points_csv(FILE *f, const struct val_set *v, int raw)
{
	static const char *const qn[VAL_NQ] = { "link", "rate", "ttft" };
	static const char *const kn[] = { "nccl", "p2p", "serving", "collectives", "decode" };
	int p;
	fputs("case,scored,kind,quantity,metric,point,measured,predicted,lo,hi\n", f);
	for (p = 0; p < v->npoints; p++) {
		const struct val_point *o = &v->points[p];
		const struct val_case *c = &v->cases[o->c];
		enum val_qty q = val_point_qty(v, o);
		const char *metric = q == VAL_Q_LINK ? "-" : c->kind == VAL_DECODE ? "step_ms" :
				     o->group == VAL_SRV_TPOT ? "tpot_ms" : o->group == VAL_SRV_TTFT ?
				     "ttft_ms" : o->group == VAL_SRV_PEAK ? "peak_tok_s" :
				     o->group == VAL_SRV_XFER ? "kv_transfer_ms" : "tok_s";
		char label[64];
		size_t i;
		snprintf(label, sizeof(label), "%s", o->label);
		for (i = 0; label[i]; i++)
			if (label[i] == ',')
				label[i] = ';';
		/* the case's name and the point's label come from the input */
		out_csv_cell(f, c->name, raw ? OUT_CSV_RAW : 0);
		fprintf(f, ",%s,%s,%s,%s,", VAL_CASE_FITTED(c) ? "fitted" : "out-of-sample",
			kn[c->kind], qn[q], metric);
		out_csv_cell(f, label, raw ? OUT_CSV_RAW : 0);
		fprintf(f, ",%.6g,%.6g,", o->measured, o->predicted);
		if (isnan(o->lo))
			fputs(",\n", f);
		else
			fprintf(f, "%.6g,%.6g\n", o->lo, o->hi);
	}
}
