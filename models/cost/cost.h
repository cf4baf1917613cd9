/*
 * cost.h - what a served token costs in power and money (docs/model-serving.md
 * "Power and money"): each GPU's power from how busy its step keeps it,
 * between its idle draw and its power limit; the box's power with its
 * host; the energy per token; and US dollars per million tokens from the
 * purchase price amortised over the box's life, the electricity the box
 * and its facility draw, and colocation rent on its rated power.
 *
 * Every value is settable: a command's option wins over the scenario's
 * `cost:` section, which wins over the defaults below (each cited). A
 * price no one states is the GPU catalog's per-GPU price times the GPUs
 * (the chassis not counted, and said so), or none: then there is no cost
 * per token, only power.
 */
#ifndef PLUMB_COST_H
#define PLUMB_COST_H

#include "predict.h"

/* Amortisation: Amazon's 10-K (January 2025) shortened the useful life of
 * its AI servers from 6 to 5 years; Lambda depreciates over 5, CoreWeave 6,
 * Nebius 4 (https://research-viewer.pages.dev/pages/gpu-useful-life). */
#define COST_LIFE_YEARS 5.0
/* US commercial electricity, 13.10 cents/kWh (EIA Electric Power Monthly,
 * October 2023, as tabulated at
 * https://shrinkthatfootprint.com/commercial-vs-residential-electricity-rates-across-the-us/). */
#define COST_USD_PER_KWH 0.131
/* Industry average PUE 1.58 in 2023 (Uptime Institute Global Data Center
 * Survey 2023, https://intelligence.uptimeinstitute.com/resource/large-data-centers-are-mostly-more-efficient-analysis-confirms). */
#define COST_PUE 1.58
/* Colocation in primary North American markets, about $196 per kW per
 * month for 250-500 kW deployments in H2 2025
 * (https://encoradvisors.com/data-center-colocation-pricing/), charged on
 * the box's rated power. */
#define COST_HOSTING_USD_KW_MONTH 196.0
/* The box without its GPUs (CPUs, memory, fans, drives, NICs): the worked
 * example "CPU + system = 400W" of a multi-GPU server's power budget
 * (https://365retail.co.uk/?p=29465: CPU 150-350 W, other 100-200 W). */
#define COST_HOST_W 400.0
/* Idle draw over the power limit where the catalog has no idle_w: an
 * H200 with nothing to do reads 73.65 W of its 700 W on nvidia-smi at 1 s
 * intervals (https://conservemode.com/case-studies.html), 0.105. */
#define COST_IDLE_FRAC (73.65 / 700.0)

/* A command's settings (0: not given, < 0: given as zero). */
struct cost_opts {
	double price_usd, life_years, usd_per_kwh, pue, hosting_usd_kw_month, host_w;
};

/* Where the price came from. */
enum cost_price_src { COST_PRICE_NONE, COST_PRICE_GPUS, COST_PRICE_SCENARIO, COST_PRICE_OPTION };

/* What a box's costs rest on, resolved (cost_params_of). */
struct cost_params {
	int ngpus;
	double price_usd;           /* the whole box; 0 with COST_PRICE_NONE */
	enum cost_price_src price_src;
	double life_years, usd_per_kwh, pue, hosting_usd_kw_month, host_w;
	double tdp_w, idle_w;       /* per GPU; 0, 0: the catalog has no power */
	int idle_assumed;           /* idle_w is COST_IDLE_FRAC of tdp_w */
};

/* s's costs under o (NULL: no options): the option, else the scenario's
 * `cost:`, else the defaults; the GPU's power from the catalog entry of
 * its first GPU. */
void cost_params_of(const struct scenario *s, const struct cost_opts *o, struct cost_params *p);

/* A point's power and money. NAN where it cannot be known (no power in the
 * catalog, no price). */
struct cost_point {
	double activity;            /* share of the step the GPU streams or computes */
	double gpu_w;               /* one GPU used */
	double box_w;               /* the GPUs used, idle ones, and the host's share */
	double j_per_tok;           /* joules per output token at the wall (PUE) */
	double usd_per_hour;        /* capex share + energy + hosting */
	double usd_per_mtok;        /* per million output tokens */
};

/* The share of a step (part[PART_N], its parts in any one unit, as struct
 * pred_row and struct pred_step_info have them) that keeps a GPU busy:
 * weights, KV cache, compute and kernel floors. Waiting on communication,
 * launch gaps and pipeline idle are counted at idle power. */
double cost_activity(const double *part);

/*
 * The cost of serving tok_s output tokens per second on gpus_used of the
 * box's GPUs at activity (cost_activity of the representative decode
 * step). A GPU's power is idle + (tdp - idle) x activity. A layout that
 * leaves GPUs of the box unused is charged their share of the box (price,
 * host, hosting): gpus_used / ngpus of it, its unused GPUs not drawing.
 */
void cost_point_eval(const struct cost_params *p, int gpus_used, double activity, double tok_s,
		     struct cost_point *out);

/* One line on what the costs assume ("price 8 x $8,565 (GPUs only, ...)"). */
void cost_params_text(const struct cost_params *p, char *buf, size_t n);

#endif
