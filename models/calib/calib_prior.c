/*
 * calib_prior.c - where a fitted constant may go: its prior (calib.h,
 * struct calib_prior), the fit's bounds, and the map from the solver's
 * unbounded variable u to the constant's value.
 *
 * The prior is log-normal with a median and two spreads: the median is the
 * cited value, and each side of the documented plausible range holds 45%
 * of the mass (the range holds 90%: its ends are the 5% and 95% quantiles).
 * A default that sits off the range's geometric middle so gets a lopsided
 * prior with the cited value as median and the range as its 90% interval.
 * A range that starts at 0 starts at a hundredth of its top instead (two
 * decades below the largest plausible value: a constant of 0 cannot be
 * drawn in log space); a value of 0 puts the median at that range's
 * geometric middle.
 */
#include "calib.h"
#include "calib_int.h"

#include <math.h>

/* The standard normal's 95% quantile: a 90% range is median -+ 1.645 sd. */
#define Z95 1.6448536269514722

void calib_prior_of(int k, double centre, struct calib_prior *p)
{
	const struct plumb_const_def *d = &plumb_const_defs[k];
	double w, floor_sd;
	p->plo = d->plo > 0 ? d->plo : d->phi > 0 ? d->phi / 100 : 0.01;
	p->phi = d->phi > p->plo ? d->phi : p->plo * 100;
	p->med = centre > 0 ? centre : sqrt(p->plo * p->phi);
	if (p->med < p->plo)
		p->med = p->plo;
	if (p->med > p->phi)
		p->med = p->phi;
	w = log(p->phi / p->plo);
	/* A median at an end of its range would leave that side no spread:
	 * each side keeps at least a quarter of the symmetric one. */
	floor_sd = w / (2 * Z95) / 4;
	p->slo = fmax(log(p->med / p->plo) / Z95, floor_sd);
	p->shi = fmax(log(p->phi / p->med) / Z95, floor_sd);
}

double calib_prior_z(const struct calib_prior *p, double v)
{
	double l = log(v / p->med);
	return l < 0 ? l / p->slo : l / p->shi;
}

double calib_prior_at(const struct calib_prior *p, double z)
{
	return p->med * exp(z * (z < 0 ? p->slo : p->shi));
}

double calib_prior_sd(const struct calib_prior *p, double v)
{
	return v < p->med ? p->slo : p->shi;
}

double calib_start(int k, double v)
{
	struct calib_prior p;
	if (v > 0)
		return v;
	calib_prior_of(k, 0, &p);
	return p.med;
}

/* Fit bounds: within the constant's hard bounds, and within two decades
 * of the prior's plausible range either way, so a fit stays in physical
 * territory; the start always inside. */
void calib_bounds(int k, double start, double *lo, double *hi)
{
	const struct plumb_const_def *d = &plumb_const_defs[k];
	struct calib_prior p;
	calib_prior_of(k, start, &p);
	*lo = fmin(p.plo, start) / 100;
	*hi = fmax(p.phi, start) * 100;
	if (d->lo > *lo)
		*lo = d->lo;
	if (d->hi < *hi)
		*hi = d->hi;
	if (*lo <= 0)
		*lo = fmin(p.plo, start) / 100;
	if (*hi <= *lo)
		*hi = *lo * 10;
}

double calib_map_pos(double value, double lo, double hi)
{
	return (log(value) - log(lo)) / (log(hi) - log(lo));
}

static double logistic(double u)
{
	return 1.0 / (1.0 + exp(-u));
}

/* value = exp(log lo + (log hi - log lo) logistic(u)) */
double calib_to_value(double u, double lo, double hi)
{
	return exp(log(lo) + (log(hi) - log(lo)) * logistic(u));
}

double calib_to_u(double value, double lo, double hi)
{
	double t = calib_map_pos(value, lo, hi);
	if (t < 1e-6)
		t = 1e-6;
	if (t > 1 - 1e-6)
		t = 1 - 1e-6;
	return log(t / (1 - t));
}
