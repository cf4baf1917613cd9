/*
 * serve_stats.c - what a serving run measures (serve_int.h): the gaps
 * between tokens merged by value, percentiles, and the per-second buckets
 * of the peak output rate.
 */
#include "serve_int.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int serve_grow(void **p, int *cap, int need, size_t size)
{
	int n = *cap ? *cap : 64;
	void *q;
	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (!(q = realloc(*p, (size_t)n * size)))
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

void serve_push(struct run *R, double **a, int *n, int *cap, double v)
{
	if (serve_grow((void **)a, cap, *n + 1, sizeof(**a)) < 0) {
		R->oom = 1;
		return;
	}
	(*a)[(*n)++] = v;
}

/* One inter-token gap of a measured request, merged with this step's equal
 * ones (the requests of a step mostly share their gap). */
void serve_itl_add(struct run *R, double v)
{
	int i;
	if (R->nstep && R->stepitl[0].v == v) {         /* the step's common gap */
		R->stepitl[0].w += 1;
		return;
	}
	for (i = 1; i < R->nstep; i++)
		if (R->stepitl[i].v == v) {
			R->stepitl[i].w += 1;
			return;
		}
	if (R->nstep == 8) {
		if (serve_grow((void **)&R->itl, &R->capitl, R->nitl + 1, sizeof(*R->itl)) < 0) {
			R->oom = 1;
			return;
		}
		R->itl[R->nitl].v = v;
		R->itl[R->nitl++].w = 1;
		return;
	}
	R->stepitl[R->nstep].v = v;
	R->stepitl[R->nstep++].w = 1;
}

/* w measured requests with one gap v, in a step with no gap added yet: what
 * w calls of serve_itl_add(R, v) leave. */
void serve_itl_step_w(struct run *R, double v, double w)
{
	if (w <= 0)
		return;
	R->stepitl[0].v = v;
	R->stepitl[0].w = w;
	R->nstep = 1;
}

void serve_itl_flush(struct run *R)
{
	int i;
	if (serve_grow((void **)&R->itl, &R->capitl, R->nitl + R->nstep, sizeof(*R->itl)) < 0) {
		R->oom = 1;
		return;
	}
	for (i = 0; i < R->nstep; i++) {
		/* a run of steps of one duration gives one gap: one entry */
		if (R->nitl && R->itl[R->nitl - 1].v == R->stepitl[i].v)
			R->itl[R->nitl - 1].w += R->stepitl[i].w;
		else
			R->itl[R->nitl++] = R->stepitl[i];
	}
	R->nstep = 0;
}

static int cmp_wv(const void *a, const void *b)
{
	double x = ((const struct wv *)a)->v, y = ((const struct wv *)b)->v;
	return x < y ? -1 : x > y;
}

/* Sort the (gap, weight) pairs by gap as qsort with cmp_wv leaves them
 * (glibc's merge sort: stable, equal gaps in the order they came, which the
 * mean's sum follows). The gaps, not negative and not NaN, order as their
 * bits, equal gaps have equal bits: a stable radix sort of the bits, a pass
 * a byte, skipping the bytes all gaps share, gives that order. Anything
 * else (a negative or NaN gap, no memory) goes to qsort. */
static void sort_wv(struct wv *a, size_t n)
{
	static const int nb = 8;
	size_t (*cnt)[256], i;
	struct wv *tmp, *src = a, *dst;
	int p;
	if (n < 64)
		goto q;
	for (i = 0; i < n; i++)
		if (!(a[i].v >= 0) || signbit(a[i].v))
			goto q;
	cnt = calloc((size_t)nb, sizeof(*cnt));
	tmp = malloc(n * sizeof(*tmp));
	if (!cnt || !tmp) {
		free(cnt);
		free(tmp);
		goto q;
	}
	for (i = 0; i < n; i++) {
		uint64_t k;
		memcpy(&k, &a[i].v, sizeof(k));
		for (p = 0; p < nb; p++)
			cnt[p][(k >> (8 * p)) & 0xff]++;
	}
	dst = tmp;
	for (p = 0; p < nb; p++) {
		size_t off = 0, c;
		int j;
		uint64_t k0;
		memcpy(&k0, &src[0].v, sizeof(k0));
		if (cnt[p][(k0 >> (8 * p)) & 0xff] == n)
			continue;       /* every gap has this byte */
		for (j = 0; j < 256; j++) {
			c = cnt[p][j];
			cnt[p][j] = off;
			off += c;
		}
		for (i = 0; i < n; i++) {
			uint64_t k;
			memcpy(&k, &src[i].v, sizeof(k));
			dst[cnt[p][(k >> (8 * p)) & 0xff]++] = src[i];
		}
		dst = src;
		src = src == a ? tmp : a;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(cnt);
	free(tmp);
	return;
q:
	qsort(a, n, sizeof(*a), cmp_wv);
}

/* Percentiles of n values (sorted in place), linear between ranks as
 * numpy's, in ms; 0 without values. */
void serve_pcts(double *v, int n, double *out, double *mean)
{
	int i;
	double sum = 0;
	for (i = 0; i < SERVE_NPCT; i++)
		out[i] = 0;
	if (mean)
		*mean = 0;
	if (n < 1)
		return;
	gsl_sort(v, 1, (size_t)n);
	for (i = 0; i < SERVE_NPCT; i++)
		out[i] = 1e3 * gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, serve_pct[i]);
	for (i = 0; i < n; i++)
		sum += v[i];
	if (mean)
		*mean = 1e3 * sum / n;
}

/* Weighted percentiles (the smallest value holding that share of the
 * weight) and mean of the ITL samples, ms. */
void serve_itl_pcts(struct run *R, double *out, double *mean)
{
	double W = 0, sum = 0, c = 0;
	int i, k = 0;
	for (i = 0; i < SERVE_NPCT; i++)
		out[i] = 0;
	*mean = 0;
	if (!R->nitl)
		return;
	sort_wv(R->itl, (size_t)R->nitl);
	for (i = 0; i < R->nitl; i++) {
		W += R->itl[i].w;
		sum += R->itl[i].v * R->itl[i].w;
	}
	for (i = 0; i < R->nitl && k < SERVE_NPCT; i++) {
		c += R->itl[i].w;
		while (k < SERVE_NPCT && c >= serve_pct[k] * W)
			out[k++] = 1e3 * R->itl[i].v;
	}
	*mean = 1e3 * sum / W;
}

static int seconds_add(struct seconds *s, long b, double tokens)
{
	size_t i = (size_t)(b % SERVE_SEC_RING);
	if (!s->tok) {
		s->tok = malloc(SERVE_SEC_RING * sizeof(*s->tok));
		s->which = malloc(SERVE_SEC_RING * sizeof(*s->which));
		if (!s->tok || !s->which)
			return -1;
		for (i = 0; i < SERVE_SEC_RING; i++)
			s->which[i] = -1;
		i = (size_t)(b % SERVE_SEC_RING);
	}
	if (b > s->hi)
		s->hi = b;
	assert(b > s->hi - SERVE_SEC_RING);     /* steps come in time order */
	if (s->which[i] != b) {
		s->which[i] = b;
		s->tok[i] = 0;
	}
	s->tok[i] += tokens;
	if (s->tok[i] > s->peak)
		s->peak = s->tok[i];
	return 0;
}

/* tokens produced evenly over [t0, t1] (a point at t1 when t1 <= t0) */
int serve_seconds_span(struct seconds *s, double t0, double t1, double tokens)
{
	long b;
	if (tokens == 0)
		return 0;       /* an idle wait between arrivals counts nothing */
	if (!(t1 > t0))
		return seconds_add(s, (long)t1, tokens);
	/* within one bucket (a step is far shorter than a second): the loop
	 * below with lo = t0 and hi = t1, the same expression */
	if (t0 >= 0 && (long)t1 == (long)t0)
		return seconds_add(s, (long)t0, tokens * (t1 - t0) / (t1 - t0));
	if ((long)t1 - (long)t0 >= 2) {
		/* the whole seconds inside get tokens / (t1 - t0) each and nothing
		 * else (steps do not overlap): count them in the peak unwritten, so
		 * a step over a long idle gap costs two buckets, not one per second */
		double rate = tokens / (t1 - t0);
		if (rate > s->peak)
			s->peak = rate;
		if (seconds_add(s, (long)t0, tokens * ((double)(long)t0 + 1 - t0) / (t1 - t0)) < 0)
			return -1;
		return seconds_add(s, (long)t1, tokens * (t1 - (double)(long)t1) / (t1 - t0));
	}
	for (b = (long)t0; b <= (long)t1; b++) {
		double lo = fmax(t0, (double)b), hi = fmin(t1, (double)b + 1);
		if (hi > lo && seconds_add(s, b, tokens * (hi - lo) / (t1 - t0)) < 0)
			return -1;
	}
	return 0;
}


/*
 * Runs of equal steps. A pure decode run adds the same step time dt to the
 * clock n times; taking those n additions one by one costs n, taking them
 * as one product would round differently. Within one binade of the clock
 * every value is a multiple of the same ulp u, so once two additions in a
 * row have added the same d (a multiple of u), every further one adds d too
 * (the sum's rounding to the grid of u does not depend on where on the grid
 * it starts; with a tie, round-half-even settles after one step, which the
 * check of three steps sees) until the sum nears the binade's top: those m
 * steps give s + i x d, exact, for i = 1..m. A run of n steps costs its
 * binades, a few dozen at most, and gives the same bits as the loop.
 */

/* 2^e, exactly ldexp(1.0, e), from its bits when it is a normal number
 * (add_piece and serve_seconds_run ask for these once per run of steps). */
static double pow2i(int e)
{
	uint64_t b;
	double d;
	if (e < -1022 || e > 1023)
		return ldexp(1.0, e);
	b = (uint64_t)(e + 1023) << 52;
	memcpy(&d, &b, sizeof(d));
	return d;
}

/* The biased exponent field of x >= 0 (0 for zero and subnormals). */
static int exp_field(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof(b));
	return (int)((b >> 52) & 0x7ff);
}

/* Of n >= 1 additions s += c from s (s >= 0, c >= 0): how many, m >= 1, take
 * the form s + i x d (i = 1..m, exact); *d is the first one's increment.
 * m = 1 means: take that one by hand (s + c). */
static long add_piece(double s, double c, long n, double *d)
{
	double s1 = s + c, s2, s3, top, u, room;
	long m;
	int e;
	*d = s1 - s;
	if (n < 4 || !(c >= 0) || !(s >= 0) || !(s >= s1 / 2) || !isfinite(s1))
		return 1;       /* s1 - s is exact by Sterbenz only for s >= s1 / 2 */
	s2 = s1 + c;
	s3 = s2 + c;
	if (s2 - s1 != *d || s3 - s2 != *d)
		return 1;
	if (*d == 0)
		return n;       /* c under half an ulp: s stays */
	/* s1 in [2^(e-1), 2^e): frexp's e, from the bits of a normal s1 */
	if (exp_field(s1) > 0 && exp_field(s1) < 0x7ff)
		e = exp_field(s1) - 1022;
	else
		frexp(s1, &e);
	top = pow2i(e);
	u = pow2i(e - 53);
	/* the sum before step i (i >= 2) is s1 + (i - 2) d; it must stay below
	 * top - u, less a margin of three steps for this estimate's rounding */
	room = (top - u - c - s1) / *d;
	if (!(room >= 4))
		return 1;
	m = room > (double)n ? n : (long)room - 1;
	return m < 1 ? 1 : m > n ? n : m;
}

double serve_add_n(double s, double c, long n)
{
	while (n > 0) {
		double d;
		long m = add_piece(s, c, n, &d);
		s = m == 1 ? s + c : s + (double)m * d;
		n -= m;
	}
	return s;
}

/* m steps in a row with one gap v, w measured requests each: what m times
 * serve_itl_step_w(R, v, w) and serve_itl_flush(R) leave (the weights are
 * whole numbers: their sums are exact). */
static void itl_run(struct run *R, double v, double w, long m)
{
	if (w <= 0 || m < 1)
		return;
	serve_itl_step_w(R, v, w);
	serve_itl_flush(R);
	if (!R->oom && m > 1)
		R->itl[R->nitl - 1].w += (double)(m - 1) * w;
}

double serve_clock_run(struct run *R, double t, double dt, long n, double w)
{
	while (n > 0) {
		double d;
		long m = add_piece(t, dt, n, &d);
		itl_run(R, d, w, m);    /* the gap t_i - t_(i-1) is d, exactly */
		t = m == 1 ? t + dt : t + (double)m * d;
		n -= m;
	}
	return t;
}

/* serve_seconds_span of one step, its one-bucket case (nearly every step)
 * written out here: the same operations as seconds_add's, without the
 * calls (serve_seconds_run takes runs of steps one by one). */
static inline int span_one(struct seconds *s, double t0, double t1, double tokens)
{
	if (tokens != 0 && t1 > t0 && t0 >= 0 && (long)t1 == (long)t0 && s->tok) {
		long b = (long)t0;
		size_t i = (size_t)(b % SERVE_SEC_RING);
		if (b > s->hi)
			s->hi = b;
		assert(b > s->hi - SERVE_SEC_RING);
		if (s->which[i] != b) {
			s->which[i] = b;
			s->tok[i] = 0;
		}
		s->tok[i] += tokens * (t1 - t0) / (t1 - t0);
		if (s->tok[i] > s->peak)
			s->peak = s->tok[i];
		return 0;
	}
	return serve_seconds_span(s, t0, t1, tokens);
}

/* n steps of dt from the clock *t, each added to its bucket as span_one
 * does, the clock left in *t. Inside one binade of the clock, with the
 * clock strictly above its bottom and |dt - d| under half its ulp u (d the
 * increment add_piece finds, dt - d exact by Sterbenz), each step's
 * t1 - dt rounds back to the clock before it, so every step of the piece
 * spans exactly d and adds tokens x d / d to its bucket: the steps inside
 * one bucket are a run of equal additions to it, done in a row (or, for
 * a long run, as serve_add_n adds the clock's: the same bits), and the
 * peak, the counts only growing, is the bucket's last value if above it. */
static int steps_each(struct seconds *s, double *tp, double dt, long n, double tokens)
{
	double t = *tp;
	while (n > 0) {
		double d, u, inc;
		long m = 1, q, b;
		size_t r;
		if (n >= 8 && tokens > 0 && s->tok && t > 0 && dt > 0)
			m = add_piece(t, dt, n, &d);
		if (m >= 4 && exp_field(t) == exp_field(t + d) && exp_field(t) > 0 &&
		    exp_field(t) < 0x7ff && t > pow2i(exp_field(t) - 1023) &&
		    d / 2 <= dt && dt <= 2 * d) {
			u = pow2i(exp_field(t) - 1023 - 52);
			b = (long)t;
			if (fabs(dt - d) < u / 2 && (double)b < t + d) {
				/* steps 1..q end below b + 1: t + q d, exact */
				q = (long)(((double)b + 1 - t) / d);
				if (q > m)
					q = m;
				while (q > 0 && t + (double)q * d >= (double)b + 1)
					q--;
				while (q < m && t + (double)(q + 1) * d < (double)b + 1)
					q++;
				if (q >= 2) {
					r = (size_t)(b % SERVE_SEC_RING);
					if (b > s->hi)
						s->hi = b;
					assert(b > s->hi - SERVE_SEC_RING);
					if (s->which[r] != b) {
						s->which[r] = b;
						s->tok[r] = 0;
					}
					inc = tokens * d / d;
					if (q > 64) {
						s->tok[r] = serve_add_n(s->tok[r], inc, q);
					} else {
						/* a few dozen: serve_add_n would take
						 * about as many pieces as additions */
						double v = s->tok[r];
						long j;
						for (j = 0; j < q; j++)
							v += inc;
						s->tok[r] = v;
					}
					if (s->tok[r] > s->peak)
						s->peak = s->tok[r];
					t = t + (double)q * d;
					n -= q;
					continue;
				}
			}
		}
		{
			double t1 = t + dt;
			if (span_one(s, t1 - dt, t1, tokens) < 0)
				return -1;
			t = t1;
			n--;
		}
	}
	*tp = t;
	return 0;
}

int serve_seconds_run(struct seconds *s, double t0, double dt, long n, double tokens)
{
	double t = t0, tend, U, xmin, steps, bound;
	long bfirst, blast, i, k;
	if (n < 64 || tokens == 0)
		goto each;
	tend = serve_add_n(t0, dt, n);
	/* two ulps of the clock, or more: ilogb's exponent from the bits of a
	 * normal tend + 1 */
	U = exp_field(tend + 1) > 0 && exp_field(tend + 1) < 0x7ff
		    ? pow2i(exp_field(tend + 1) - 1023 - 51)
		    : ldexp(1.0, ilogb(tend + 1) - 51);
	xmin = dt - U;                          /* a step's t1 - t0, at least */
	/* the steps before ended at t0, those after start within an ulp of
	 * tend: they touch buckets up to bfirst and from blast */
	bfirst = (long)t0;
	blast = (long)(tend - U);
	if (blast - bfirst < 4 || !(xmin > 0))
		goto each;
	/* No bucket made of these steps alone can hold more than this: at most
	 * steps of them touch it, their shares of it sum to at most one second
	 * plus the ulps where they overlap, each adds tokens x share / (t1 - t0)
	 * with three roundings. */
	steps = 1 / xmin + 3;
	bound = tokens / xmin * (1 + (steps + 2) * U + 16 * steps * DBL_EPSILON) * (1 + 1e-9);
	if (bound > s->peak)
		goto each;
	/* Then only the buckets at the ends need their counts: those up to
	 * bfirst (the steps before also wrote there) and from blast (the steps
	 * after will). The steps touching them are taken one by one; those
	 * between only fill buckets under the peak. bfirst is written for the
	 * last time here: when what it holds and all these steps could add
	 * stay under the peak too, its steps are skipped as well. */
	i = 0;
	{
		size_t r = (size_t)(bfirst % SERVE_SEC_RING);
		double held = s->tok && s->which[r] == bfirst ? s->tok[r] : 0;
		if ((held + bound) * (1 + 1e-9) <= s->peak) {
			for (; i < n; i++) {
				double t1 = t + dt;
				if (t1 - dt >= (double)(bfirst + 1))
					break;
				t = t1;
			}
		}
	}
	for (; i < n; i++) {
		double t1 = t + dt;
		if (t1 - dt >= (double)(bfirst + 1))
			break;
		if (span_one(s, t1 - dt, t1, tokens) < 0)
			return -1;
		t = t1;
	}
	/* the last step k before the tail: its clock under blast */
	k = (long)(((double)blast - t0) / dt) - 2;
	if (k > n)
		k = n;
	while (k > i && serve_add_n(t0, dt, k) >= (double)blast)
		k = i + (k - i) / 2;
	if (k > i) {
		t = serve_add_n(t0, dt, k);
		i = k;
	}
	return steps_each(s, &t, dt, n - i, tokens);
each:
	return steps_each(s, &t, dt, n, tokens);
}
