/*
 * llm_moe.c - what the busiest expert-parallel rank does in one MoE layer
 * (llm_moe_busiest) and the MoE runners' names (llm.h; docs/model-decode.md,
 * "Sharding").
 *
 * Every MoE layer of an expert-parallel step ends in a collective (the
 * combine all-to-all, or the all-reduce of tp+ep), so the layer lasts as
 * long as its busiest rank: the expected maximum over ranks of the experts
 * a rank touches and of the token-expert pairs it computes, not their mean.
 * At one token of Mixtral (E = 8, k = 2) on two ranks both experts land on
 * one rank with probability 3/7, so that rank reads 10/7 experts on average
 * where the mean is 1.
 *
 * Uniform routing is exact for the experts (see llm.h); a skewed router
 * takes each expert independently with its inclusion probability. All of it
 * is deterministic: the one shuffle (where the popular experts sit) uses a
 * fixed seed.
 */
#include "llm.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MOE_PI 3.14159265358979323846
#define MOE_LN2 0.69314718055994530942

const char *llm_moe_runner_name(enum llm_moe_runner r)
{
	static const char *const names[LLM_MOE_NRUNNERS] = { "fused", "loop", "deepep" };
	return (unsigned)r < LLM_MOE_NRUNNERS ? names[r] : "?";
}

/* log C(n, r); -inf outside 0 <= r <= n. */
static double lchoose(int n, int r)
{
	if (r < 0 || r > n)
		return -INFINITY;
	return lgamma(n + 1.0) - lgamma(r + 1.0) - lgamma(n - r + 1.0);
}

static double phi_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

/* E[max of n independent standard normals], by quadrature. */
static double max_std_normals(int n)
{
	const int steps = 160;          /* Simpson; 1e-7 off at n = 2..64 */
	double lo = -8.0, hi = 8.0, h = (hi - lo) / steps, s = 0;
	int i;
	if (n <= 1)
		return 0;
	for (i = 0; i <= steps; i++) {
		double x = lo + i * h;
		double f = x * n * exp(-0.5 * x * x) / sqrt(2.0 * MOE_PI) * pow(phi_cdf(x), n - 1);
		s += (i == 0 || i == steps ? 1.0 : i % 2 ? 4.0 : 2.0) * f;
	}
	return s * h / 3;
}

/*
 * dist[u] = P(D = u), D the distinct experts T uniformly routed tokens
 * touch: each token adds x new experts with the hypergeometric
 * C(E - d, x) C(d, k - x) / C(E, k). Stops once all E are touched for
 * certain (to 1e-13), which bounds the work for long prefills.
 * Work arrays: next[E + 1], h[(E + 1) (k + 1)].
 */
static void distinct_dist(int E, int k, long T, const double *lf, double *dist, double *next,
			  double *h)
{
	double lck = lf[E] - lf[k] - lf[E - k];
	long t;
	int d, x, lo, hi;
	memset(dist, 0, (size_t)(E + 1) * sizeof(*dist));
	/* every expert touched but with odds below 1e-13: skip the chain */
	if (E * pow(1.0 - (double)k / E, (double)T) < 1e-13) {
		dist[E] = 1;
		return;
	}
	for (d = 0; d <= E; d++)        /* rows filled on first use */
		h[d * (k + 1)] = -1;
	dist[0] = 1;
	lo = hi = 0;            /* the states holding mass (above 1e-18) */
	for (t = 0; t < T; t++) {
		int nhi = hi + k < E ? hi + k : E, nlo = E;
		memset(next + lo, 0, (size_t)(nhi - lo + 1) * sizeof(*next));
		for (d = lo; d <= hi; d++) {
			if (dist[d] < 1e-18)
				continue;
			if (h[d * (k + 1)] < 0)
				for (x = 0; x <= k; x++)
					h[d * (k + 1) + x] = x <= E - d && k - x <= d
						? exp(lf[E - d] - lf[x] - lf[E - d - x] + lf[d] -
						      lf[k - x] - lf[d - k + x] - lck) : 0;
			for (x = 0; x <= k && d + x <= E; x++)
				next[d + x] += dist[d] * h[d * (k + 1) + x];
		}
		memset(dist + lo, 0, (size_t)(hi - lo + 1) * sizeof(*dist));
		for (d = lo; d <= nhi; d++) {
			dist[d] = next[d] >= 1e-18 ? next[d] : 0;
			if (dist[d] > 0 && d < nlo)
				nlo = d;
		}
		lo = nlo;
		hi = nhi;
		if (dist[E] >= 1.0 - 1e-13) {
			memset(dist, 0, (size_t)E * sizeof(*dist));
			dist[E] = 1;
			break;
		}
	}
}

/*
 * Uniform routing, the busiest rank's distinct experts: given D = u the
 * touched set is a uniform u-subset (routing is symmetric in the experts),
 * and the share of u-subsets with at most x on every one of ep ranks of m
 * is [z^u] (sum_{j <= x} C(m, j) z^j)^ep / C(E, u). The factors are taken
 * as binomial(m, 1/2) probabilities so nothing overflows.
 * Work arrays: poly[E + 1], tmp[E + 1].
 */
static double max_distinct_uniform(int E, int ep, const double *lf, const double *dist,
				   double *poly, double *tmp)
{
	int m = E / ep, x, u, i, j, umin = E, umax = 0, deg;
	double sum = 0, a[1025];
	for (u = 0; u <= E; u++)
		if (dist[u] > 0) {
			umin = u < umin ? u : umin;
			umax = u;
		}
	if (umin == E)                  /* all touched: every rank holds m */
		return m;
	for (j = 0; j <= m; j++)
		a[j] = exp(lf[m] - lf[j] - lf[m - j] - m * MOE_LN2);
	/* E[max] = sum over x < m of P(max > x). Below umin / ep some rank
	 * holds more than x for sure (each such x adds 1); at x >= umax no rank
	 * can (0). In between, from the bottom up until P(max > x) is
	 * negligible, which it then is for every larger x too. */
	x = (umin + ep - 1) / ep;
	sum = x;
	for (; x < (umax < m ? umax : m); x++) {
		double le = 0;
		memset(poly, 0, (size_t)(umax + 1) * sizeof(*poly));
		poly[0] = 1;
		deg = 0;
		for (i = 0; i < ep - 1; i++) {  /* the first ep - 1 ranks whole */
			int nd = deg + x < umax ? deg + x : umax;
			memset(tmp, 0, (size_t)(nd + 1) * sizeof(*tmp));
			for (u = 0; u <= deg; u++) {
				if (poly[u] == 0)
					continue;
				for (j = 0; j <= x && u + j <= nd; j++)
					tmp[u + j] += poly[u] * a[j];
			}
			deg = nd;
			memcpy(poly, tmp, (size_t)(nd + 1) * sizeof(*poly));
		}
		for (u = umin; u <= umax; u++) {   /* the last rank: only the u needed */
			double g, c = 0;
			if (dist[u] <= 0)
				continue;
			for (j = u - deg > 0 ? u - deg : 0; j <= x && j <= u; j++)
				c += a[j] * poly[u - j];
			if (c <= 0)
				continue;
			g = exp(log(c) + E * MOE_LN2 - (lf[E] - lf[u] - lf[E - u]));
			le += dist[u] * (g < 1 ? g : 1);
		}
		if (le > 1)
			le = 1;
		sum += 1 - le;
		if (1 - le < 1e-13)
			break;
	}
	return sum;
}

/*
 * Uniform routing, ep = 2: the first rank's pairs after T tokens (each adds
 * a hypergeometric C(m, y) C(E - m, k - y) / C(E, k)), exactly; the busiest
 * rank has max(P, T k - P). Work array: 2 (T k + 1) doubles.
 */
static double max_pairs_two(int E, int k, long T, double *w)
{
	int m = E / 2, y;
	long n = T * k, t, p;
	double *cur = w, *nxt = w + n + 1, hy[65], s = 0;
	for (y = 0; y <= k && y <= 64; y++)
		hy[y] = exp(lchoose(m, y) + lchoose(E - m, k - y) - lchoose(E, k));
	memset(cur, 0, (size_t)(n + 1) * sizeof(*cur));
	cur[0] = 1;
	for (t = 0; t < T; t++) {
		double *sw;
		memset(nxt, 0, (size_t)(n + 1) * sizeof(*nxt));
		for (p = 0; p <= t * k; p++) {
			if (cur[p] < 1e-300)
				continue;
			for (y = 0; y <= k; y++)
				nxt[p + y] += cur[p] * hy[y];
		}
		sw = cur;
		cur = nxt;
		nxt = sw;
	}
	for (p = 0; p <= n; p++)
		s += cur[p] * (double)(p > n - p ? p : n - p);
	return s;
}

/* Uniform routing: the pairs of the busiest rank. */
static double max_pairs_uniform(int E, int k, long T, int ep, double *w)
{
	double mu = (double)T * k / ep, f = 1.0 / ep;
	double var = (double)T * k * f * (1 - f) * (E > 1 ? (double)(E - k) / (E - 1) : 0);
	if (ep == 1)
		return (double)T * k;
	if (ep == 2 && T * k <= 256)
		return max_pairs_two(E, k, T, w);
	return mu + sqrt(var) * sqrt((double)ep / (ep - 1)) * max_std_normals(ep);
}

/* splitmix64: the fixed stream of the popularity shuffle. */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/*
 * Skewed routing: pi[j], the probability a token takes expert j, for a Zipf
 * popularity 1 / rank^s with ranks shuffled over the experts, scaled to sum
 * to k and capped at 1 (the cap's excess goes to the others). Work: perm[E].
 */
static void skew_inclusion(int E, int k, double s, double *pi, int *perm)
{
	uint64_t seed = 0x6d6f652d736b6577ull;  /* fixed: same inputs, same placement */
	int i, capped = 0, it;
	for (i = 0; i < E; i++)
		perm[i] = i;
	for (i = E - 1; i > 0; i--) {
		int j = (int)(splitmix(&seed) % (uint64_t)(i + 1)), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < E; i++)
		pi[perm[i]] = pow(i + 1.0, -s);
	/* water-filling: pi = c w for the uncapped ones, c giving them what
	 * the capped (pi = 1) leave of k; perm now marks the capped */
	for (i = 0; i < E; i++)
		perm[i] = 0;
	for (it = 0; it <= E; it++) {
		double free_w = 0, c;
		int more = 0;
		for (i = 0; i < E; i++)
			if (!perm[i])
				free_w += pi[i];
		if (free_w <= 0)
			break;
		c = (k - capped) / free_w;
		for (i = 0; i < E; i++)
			if (!perm[i] && c * pi[i] >= 1) {
				perm[i] = 1;
				capped++;
				more = 1;
			}
		if (!more) {
			for (i = 0; i < E; i++)
				pi[i] = perm[i] ? 1 : c * pi[i];
			break;
		}
	}
}

/* Skewed routing: each expert touched independently with q = 1 - (1 - pi)^T. */
static void busiest_skew(int E, int k, long T, int ep, double s, double *pi, int *perm,
			 double *pb, double *cdf, struct llm_moe_load *out)
{
	int m = E / ep, r, j, c, x;
	double lo = INFINITY, hi = -INFINITY, mu[1024], sd[1024];
	skew_inclusion(E, k, s, pi, perm);
	if (ep == 1) {
		double n = 0;
		for (j = 0; j < E; j++)
			n += 1 - pow(1 - pi[j], (double)T);
		out->experts = n;
		out->pairs = (double)T * k;
		return;
	}
	/* cdf[r (m + 1) + x] = P(rank r touches at most x), Poisson-binomial */
	for (r = 0; r < ep; r++) {
		double mr = 0, vr = 0;
		memset(pb, 0, (size_t)(m + 1) * sizeof(*pb));
		pb[0] = 1;
		for (j = 0; j < m; j++) {
			double p = pi[r * m + j], q = 1 - pow(1 - p, (double)T);
			for (c = j + 1; c >= 1; c--)
				pb[c] = pb[c] * (1 - q) + pb[c - 1] * q;
			pb[0] *= 1 - q;
			mr += p;
			vr += p * (1 - p);
		}
		for (x = 0, c = 0; x <= m; x++) {
			double a = 0;
			for (c = 0; c <= x; c++)
				a += pb[c];
			cdf[r * (m + 1) + x] = a;
		}
		if (r < 1024) {
			mu[r] = (double)T * mr;
			sd[r] = sqrt((double)T * vr);
			lo = fmin(lo, mu[r] - 8 * sd[r]);
			hi = fmax(hi, mu[r] + 8 * sd[r]);
		}
	}
	out->experts = 0;
	for (x = 0; x < m; x++) {
		double all = 1;
		for (r = 0; r < ep; r++)
			all *= cdf[r * (m + 1) + x];
		out->experts += 1 - all;
	}
	if (T == 1 || ep > 1024) {
		out->pairs = T == 1 ? out->experts : (double)T * k / ep;
		return;
	}
	/* independent normals per rank: E[max] = lo + integral of P(max > y) */
	{
		const int steps = 2000;
		double h = (hi - lo) / steps, acc = 0;
		int i;
		for (i = 0; i <= steps && h > 0; i++) {
			double y = lo + i * h, all = 1;
			for (r = 0; r < ep; r++)
				all *= sd[r] > 0 ? phi_cdf((y - mu[r]) / sd[r]) : (y >= mu[r] ? 1.0 : 0.0);
			acc += (i == 0 || i == steps ? 0.5 : 1.0) * (1 - all);
		}
		out->pairs = lo + acc * h;
	}
}

/*
 * Answers kept for the process (a pure function of its inputs, as
 * llm_model_resolve keeps the model files it read): one slot per hash of
 * the inputs, a later answer replacing an earlier one; the lock lets sweep
 * threads share it. A serving run asks the same few token counts again for
 * every draw of its constants.
 */
#define MOE_MEMO 1024
struct moe_memo {
	int E, k, ep, used;
	long T;
	double skew;
	struct llm_moe_load ld;
};

static struct moe_memo *memo_slot(int E, int k, long T, int ep, double skew)
{
	static struct moe_memo memo[MOE_MEMO];
	uint64_t h = (uint64_t)E * 0x9E3779B97F4A7C15ull ^ (uint64_t)k * 0xC2B2AE3D27D4EB4Full ^
		     (uint64_t)T * 0x165667B19E3779F9ull ^ (uint64_t)ep * 0x27D4EB2F165667C5ull ^
		     (uint64_t)(skew * 1e6);
	h ^= h >> 29;
	return &memo[h % MOE_MEMO];
}

static int busiest(int E, int k, long T, int ep, double skew, struct llm_moe_load *out,
		   struct plumb_err *err);

int llm_moe_busiest(int E, int k, long T, int ep, double skew, struct llm_moe_load *out,
		    struct plumb_err *err)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct moe_memo *m;
	int rc;
	if (E < 1 || k < 1 || k > E || ep < 1 || E % ep || T < 1 || !(skew >= 0) ||
	    !isfinite(skew) || k > 64 || E / ep > 1024)
		return busiest(E, k, T, ep, skew, out, err);     /* the error */
	m = memo_slot(E, k, T, ep, skew);
	pthread_mutex_lock(&lock);
	if (m->used && m->E == E && m->k == k && m->T == T && m->ep == ep && m->skew == skew) {
		*out = m->ld;
		pthread_mutex_unlock(&lock);
		return 0;
	}
	pthread_mutex_unlock(&lock);
	if ((rc = busiest(E, k, T, ep, skew, out, err)) < 0)
		return rc;
	pthread_mutex_lock(&lock);
	m->E = E;
	m->k = k;
	m->T = T;
	m->ep = ep;
	m->skew = skew;
	m->ld = *out;
	m->used = 1;
	pthread_mutex_unlock(&lock);
	return 0;
}

static int busiest(int E, int k, long T, int ep, double skew, struct llm_moe_load *out,
		   struct plumb_err *err)
{
	double *buf;
	int m, rc = 0;
	size_t n;
	if (E < 1 || k < 1 || k > E || ep < 1 || E % ep || T < 1 || !(skew >= 0) ||
	    !isfinite(skew) || k > 64 || E / ep > 1024)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "expert load: need 1 <= k <= min(E, 64), ep dividing E, E / ep <= 1024, "
				     "T >= 1, "
				     "skew >= 0 (got E %d, k %d, ep %d, T %ld, skew %g)", E, k, ep, T,
				     skew);
	m = E / ep;
	if (skew == 0 && ep == 1) {
		out->experts = llm_expected_experts(E, k, (double)T);
		out->pairs = (double)T * k;
		return 0;
	}
	n = (size_t)(E + 1) * (size_t)(k + 6) + (size_t)ep * (m + 1) + (size_t)E +
	    (ep == 2 && T * k <= 256 ? 2 * (size_t)(T * k + 1) : 0);
	if (!(buf = malloc(n * sizeof(*buf))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if (skew > 0) {
		double *pi = buf, *pb = pi + E, *cdf = pb + (m + 1);
		int *perm = malloc((size_t)E * sizeof(*perm));
		if (!perm) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		} else {
			busiest_skew(E, k, T, ep, skew, pi, perm, pb, cdf, out);
			free(perm);
		}
	} else {
		double *dist = buf, *next = dist + E + 1, *h = next + E + 1;
		double *poly = h + (size_t)(E + 1) * (k + 1), *tmp = poly + E + 1, *lf = tmp + E + 1;
		double *w = lf + E + 1;
		int i;
		lf[0] = 0;
		for (i = 1; i <= E; i++)        /* log i! */
			lf[i] = lf[i - 1] + log((double)i);
		distinct_dist(E, k, T, lf, dist, next, h);
		out->experts = max_distinct_uniform(E, ep, lf, dist, poly, tmp);
		out->pairs = T == 1 ? out->experts : max_pairs_uniform(E, k, T, ep, w);
	}
	if (rc == 0) {
		double cap = (double)T * (k < m ? k : m);
		if (out->pairs < out->experts)
			out->pairs = out->experts;
		if (out->pairs > cap)
			out->pairs = cap;
		if (out->experts > m)
			out->experts = m;
		if (out->experts > (double)T * k)
			out->experts = (double)T * k;
	}
	free(buf);
	return rc;
}
