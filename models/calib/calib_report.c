/*
 * calib_report.c - a fit in words (calib.h): whether it is too poor or
 * implausible to write, and the report `plumb calibrate` prints.
 */
#include "calib.h"
#include "calib_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *calib_param_name(const struct calib_result *r, int j, char *buf, size_t n)
{
	if (r->grp[j] < 0)
		return plumb_const_defs[r->idx[j]].name;
	snprintf(buf, n, "%s@%s", plumb_const_defs[r->idx[j]].name, r->scn[r->grp[j]].name);
	return buf;
}

int calib_poor(const struct calib_result *r, char *why, size_t n)
{
	char nb[160];
	size_t len = 0;
	int j, poor = 0;
	why[0] = '\0';
	if (r->r2 < 0) {
		len += (size_t)snprintf(why, n, "R^2 is %.3f: the fitted model explains log(measured) "
				    "worse than their mean", r->r2);
		poor = 1;
	}
	for (j = 0; j < r->nfree && len < n; j++) {
		double t = calib_map_pos(r->value[j], r->lo[j], r->hi[j]);
		if (t > CALIB_BOUND_EDGE && t < 1 - CALIB_BOUND_EDGE)
			continue;
		len += (size_t)snprintf(why + len, n - len, "%s%s ends on the %s bound of its fit range (%g); "
					"what would pin it: %s", poor ? "; " : "",
					calib_param_name(r, j, nb, sizeof(nb)),
					t <= CALIB_BOUND_EDGE ? "lower" : "upper",
					t <= CALIB_BOUND_EDGE ? r->lo[j] : r->hi[j], calib_hint(r->idx[j]));
		poor = 1;
	}
	return poor;
}

int calib_implausible(const struct calib_result *r, char *why, size_t n)
{
	char nb[160];
	size_t len = 0;
	int j, bad = 0;
	why[0] = '\0';
	for (j = 0; j < r->nfree && len < n; j++) {
		const struct plumb_const_def *d = &plumb_const_defs[r->idx[j]];
		if (consts_plausible(r->idx[j], r->value[j]))
			continue;
		len += (size_t)snprintf(why + len, n - len, "%s%s = %.4g %s is outside its plausible range "
					"%g-%g (what would pin it: %s)",
					bad ? "; " : "", calib_param_name(r, j, nb, sizeof(nb)),
					r->value[j], d->unit, d->plo, d->phi, calib_hint(r->idx[j]));
		bad = 1;
	}
	return bad;
}

/* What the collectives assumed: NCCL_P2P_LEVEL and the ring's hops. */
static void report_hops(FILE *f, const struct val_set *v)
{
	int c, i;
	for (c = 0; c < v->ncases; c++) {
		char level[64];
		int p2p, shm;
		if (v->cases[c].kind != VAL_NCCL && v->cases[c].kind != VAL_COLLCSV)
			continue;
		if (calib_case_hops(v, c, &p2p, &shm, level, sizeof(level)) < 0)
			continue;
		fprintf(f, "collectives %s: NCCL_P2P_LEVEL=%s; ring over GPUs ", v->cases[c].name, level);
		for (i = 0; i < v->cases[c].ngpus; i++)
			fprintf(f, "%s%d", i ? "," : "", v->cases[c].gpus[i]);
		fprintf(f, ": %d hop%s P2P, %d SHM (host memory)\n", p2p, p2p == 1 ? "" : "s", shm);
		if (shm)
			fprintf(f, "  the SHM hops fit nccl_shm_step_us and nccl_shm_gbs; if the run set "
				   "NCCL_P2P_LEVEL (e.g. SYS) give it with --nccl-p2p-level\n");
	}
}

/* How much the data told about parameter j: the posterior's spread
 * against the prior's, in words. */
static const char *informed(const struct calib_result *r, int j)
{
	double ps = calib_prior_sd(&r->prior[j], r->value[j]), q = r->sdlog[j] / ps;
	if (!r->priors)
		return "";
	return q < 0.5 ? "data" : q < 0.9 ? "data + prior" : "prior";
}

void calib_report(FILE *f, const struct val_set *v, const struct calib_result *r)
{
	char nb[160], nb2[160];
	int i, j, t = 0, w = 26, moved = 0, stayed = 0;
	for (j = 0; j < r->nfree; j++) {
		int l = (int)strlen(calib_param_name(r, j, nb, sizeof(nb)));
		w = l > w ? l : w;
	}
	fprintf(f, "plumb calibrate: %d points, %d free constant%s, %s\n", r->npoints, r->nfree,
		r->nfree == 1 ? "" : "s", r->status);
	if (r->priors)
		fprintf(f, "maximum posterior: each constant's log-normal prior (median its value "
			   "before the fit, 90%% in its plausible range) with the data weighted by a "
			   "model error of %.3f in log\n", r->s);
	else
		fputs("least squares without priors (--no-priors)\n", f);
	if (r->nscn > 1) {
		fprintf(f, "joint fit on %d scenarios:", r->nscn);
		for (i = 0; i < r->nscn; i++)
			fprintf(f, "%s %s (%s)", i ? "," : "", r->scn[i].name, r->scn[i].gpus);
		fputs("; gpu, engine and nccl constants shared, box and vm ones per scenario (name@scenario)\n", f);
	}
	for (j = 0; j < v->nskipped; j++)
		fprintf(f, "note: skipped %s\n", j < VAL_MAX_SKIPPED ? v->skipped[j] : "...");
	if (v->nskipped > VAL_MAX_SKIPPED)
		fprintf(f, "note: %d runs skipped in all\n", v->nskipped);
	for (j = 0; j < r->ndropped; j++) {
		const struct plumb_const_def *d = &plumb_const_defs[r->dropped[j]];
		fprintf(f, "note: no point depends on %s%s%s here (neither 5%% on it nor its plausible ends move one by 0.1%%): "
			   "kept at %g, not fitted\n", d->name, r->dropped_grp[j] >= 0 ? "@" : "",
			r->dropped_grp[j] >= 0 ? r->scn[r->dropped_grp[j]].name : "", r->dropped_at[j]);
	}
	for (j = 0; j < r->nfree; j++)
		if (r->moved[j])
			fprintf(f, "note: %s is 0 in the scenario; the prior's median is %g, the "
				   "geometric middle of %g-%g\n", calib_param_name(r, j, nb, sizeof(nb)),
				r->start[j], r->prior[j].plo, r->prior[j].phi);
	report_hops(f, v);
	fprintf(f, "\n%-*s %11s %11s %11s %23s %-12s %s\n", w, "constant", "before", "fitted",
		"std. error", "90% range", r->priors ? "from" : "", "prior 90%");
	for (j = 0; j < r->nfree; j++) {
		const struct plumb_const_def *d = &plumb_const_defs[r->idx[j]];
		const char *src = informed(r, j);
		char rng[48];
		snprintf(rng, sizeof(rng), "%.4g-%.4g", r->ci_lo[j], r->ci_hi[j]);
		fprintf(f, "%-*s %11.5g %11.5g %11.3g %23s %-12s %.3g-%.3g %s",
			w, calib_param_name(r, j, nb, sizeof(nb)), r->given[j], r->value[j], r->se[j], rng,
			src, calib_prior_at(&r->prior[j], -1.6448536269514722),
			calib_prior_at(&r->prior[j], 1.6448536269514722), d->unit);
		if (!consts_plausible(r->idx[j], r->value[j]))
			fprintf(f, "  IMPLAUSIBLE: outside %g-%g", d->plo, d->phi);
		fputc('\n', f);
		moved += !strcmp(src, "data");
		stayed += !strcmp(src, "prior");
	}
	if (r->priors) {
		fprintf(f, "from: data = the data set it (posterior spread under half the prior's), "
			   "prior = it stayed at its prior");
		fprintf(f, "; %d moved by the data, %d at their prior, %.1f parameters' worth determined\n",
			moved, stayed, r->p_eff);
	}
	if (r->nfree > 1) {
		fputs("\ncorrelations:\n", f);
		for (i = 0; i < r->nfree; i++) {
			fprintf(f, "  %-*s", w - 2, calib_param_name(r, i, nb2, sizeof(nb2)));
			for (j = 0; j < r->nfree; j++) {
				double d = sqrt(r->cov[i * r->nfree + i] * r->cov[j * r->nfree + j]);
				fprintf(f, " %6.3f", d > 0 ? r->cov[i * r->nfree + j] / d : (i == j ? 1.0 : 0.0));
			}
			fputc('\n', f);
		}
	}
	{
		char resolve[2048];
		fputs("\nidentifiability (the data's information, priors left out):\n", f);
		if (!calib_ident(f, r, resolve, sizeof(resolve)))
			fputs("  the data resolve every free constant\n", f);
		else
			fprintf(f, "  what would resolve them: %s\n", resolve);
	}
	if (r->nflag) {
		fputs("\nresidual structure (one sign over a whole group: physics the model lacks, "
		      "not noise):\n", f);
		for (j = 0; j < r->nflag; j++)
			fprintf(f, "  missing physics? %s\n", r->flag[j]);
	}
	fprintf(f, "\nR^2 (log measured) %.4f, sum of squared log residuals %.4g\n", r->r2, r->chi2);
	fprintf(f, "residual spread: RMS of log residuals %.4f over %d points; %.4f per degree of freedom "
		   "(%d), the model error --calib intervals add\n", r->rms, r->npoints, r->sd, r->dof);
	fputs("model error per data block (what a prediction depending on it adds):", f);
	for (j = 0; j < r->nblk; j++)
		fprintf(f, "%s %s %.4f (%d point%s)", j ? "," : "", r->blk[j], r->blk_sd[j], r->blk_n[j],
			r->blk_n[j] == 1 ? "" : "s");
	fputc('\n', f);
	fprintf(f, "error |pred/meas - 1|: before median %.1f%% max %.1f%%, after median %.1f%% max %.1f%%\n",
		100 * r->before_median, 100 * r->before_max, 100 * r->after_median, 100 * r->after_max);
	fprintf(f, "\n%-28s %-24s %12s %12s %12s %8s\n", "data", "point", "measured", "before", "after", "error");
	for (i = 0; i < v->npoints; i++) {
		const struct val_point *p = &v->points[i];
		if (!p->train)
			continue;
		fprintf(f, "%-28s %-24s %12.4g %12.4g %12.4g %7.1f%%\n", v->cases[p->c].name, p->label,
			p->measured, r->before ? r->before[t] : NAN, p->predicted,
			100 * (p->predicted / p->measured - 1));
		t++;
	}
	/* --leave-out: measurement artefacts, not fitted and not counted above */
	for (i = 0, t = 0; i < v->npoints; i++) {
		const struct val_point *p = &v->points[i];
		if (!p->artefact)
			continue;
		if (!t++)
			fputs("\nleft out (--leave-out: measurement artefacts, not fitted, not counted "
			      "above):\n", f);
		fprintf(f, "%-28s %-24s %12.4g %12s %12.4g %7.1f%%\n", v->cases[p->c].name, p->label,
			p->measured, "-", p->predicted, 100 * (p->predicted / p->measured - 1));
	}
}
