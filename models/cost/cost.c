/*
 * cost.c - power and money per point (cost.h).
 */
#include "cost.h"

#include <math.h>
#include <stdio.h>

/* An option (0 unset, < 0 a stated zero) over a scenario's value (the
 * same) over a default. */
static double pick(double opt, double scn, double def)
{
	if (opt != 0)
		return opt < 0 ? 0 : opt;
	if (scn != 0)
		return scn < 0 ? 0 : scn;
	return def;
}

void cost_params_of(const struct scenario *s, const struct cost_opts *o, struct cost_params *p)
{
	static const struct cost_opts none;
	const struct scn_gpu_model *g = NULL;
	if (!o)
		o = &none;
	p->ngpus = s->ngpus;
	p->life_years = pick(o->life_years, s->cost.life_years, COST_LIFE_YEARS);
	p->usd_per_kwh = pick(o->usd_per_kwh, s->cost.usd_per_kwh, COST_USD_PER_KWH);
	p->pue = pick(o->pue, s->cost.pue, COST_PUE);
	p->hosting_usd_kw_month = pick(o->hosting_usd_kw_month, s->cost.hosting_usd_kw_month,
				       COST_HOSTING_USD_KW_MONTH);
	p->host_w = pick(o->host_w, s->cost.host_w, COST_HOST_W);
	if (s->ngpus > 0 && s->catalog) {
		int m = s->nodes[s->gpu_node[0]].gpu_model;
		if (m >= 0 && m < s->catalog->n)
			g = &s->catalog->gpus[m];
	}
	p->tdp_w = g ? g->tdp_w : 0;
	p->idle_assumed = g && g->tdp_w > 0 && !(g->idle_w > 0);
	p->idle_w = !g ? 0 : p->idle_assumed ? g->tdp_w * COST_IDLE_FRAC : g->idle_w;
	if (o->price_usd > 0) {
		p->price_usd = o->price_usd;
		p->price_src = COST_PRICE_OPTION;
	} else if (s->cost.price_usd > 0) {
		p->price_usd = s->cost.price_usd;
		p->price_src = COST_PRICE_SCENARIO;
	} else if (g && g->price_usd > 0) {
		p->price_usd = g->price_usd * s->ngpus;
		p->price_src = COST_PRICE_GPUS;
	} else {
		p->price_usd = 0;
		p->price_src = COST_PRICE_NONE;
	}
}

double cost_activity(const double *part)
{
	double step = 0, busy = part[PART_KMIN] + part[PART_WEIGHTS] + part[PART_KV] +
				part[PART_COMPUTE];
	int i;
	for (i = 0; i < PART_N; i++)
		step += part[i];
	return step > 0 ? busy / step : 0;
}

void cost_point_eval(const struct cost_params *p, int gpus_used, double activity, double tok_s,
		     struct cost_point *out)
{
	double share, used_w, host_w, rated_w, hours_life;
	out->activity = activity;
	if (gpus_used < 1 || gpus_used > p->ngpus)
		gpus_used = p->ngpus;
	share = p->ngpus > 0 ? (double)gpus_used / p->ngpus : 1;
	if (p->tdp_w > 0) {
		out->gpu_w = p->idle_w + (p->tdp_w - p->idle_w) * out->activity;
		used_w = out->gpu_w * gpus_used;
		host_w = p->host_w * share;
		out->box_w = used_w + host_w;
		rated_w = (p->tdp_w * gpus_used + host_w);
	} else {
		out->gpu_w = out->box_w = rated_w = NAN;
	}
	out->j_per_tok = tok_s > 0 ? out->box_w * p->pue / tok_s : NAN;
	hours_life = p->life_years * 365.25 * 24;
	out->usd_per_hour = (p->price_src != COST_PRICE_NONE ? p->price_usd * share / hours_life
							     : NAN) +
			    out->box_w * p->pue / 1000 * p->usd_per_kwh +
			    rated_w / 1000 * p->hosting_usd_kw_month * 12 / (365.25 * 24);
	out->usd_per_mtok = tok_s > 0 ? out->usd_per_hour / (tok_s * 3600) * 1e6 : NAN;
}

void cost_params_text(const struct cost_params *p, char *buf, size_t n)
{
	char price[160];
	switch (p->price_src) {
	case COST_PRICE_GPUS:
		snprintf(price, sizeof(price), "price $%.0f (%d GPUs at the catalog's price; chassis "
			 "not counted: set cost: price_usd or --price-usd)", p->price_usd, p->ngpus);
		break;
	case COST_PRICE_SCENARIO:
	case COST_PRICE_OPTION:
		snprintf(price, sizeof(price), "price $%.0f", p->price_usd);
		break;
	default:
		snprintf(price, sizeof(price), "no price (set cost: price_usd or --price-usd)");
	}
	if (p->tdp_w > 0)
		snprintf(buf, n, "%s over %g years; GPU %.0f-%.0f W%s, host %g W; $%g/kWh at PUE %g; "
			 "hosting $%g/kW-month", price, p->life_years, p->idle_w, p->tdp_w,
			 p->idle_assumed ? " (idle assumed)" : "", p->host_w, p->usd_per_kwh, p->pue,
			 p->hosting_usd_kw_month);
	else
		snprintf(buf, n, "%s; no GPU power in the catalog (tdp_w)", price);
}
