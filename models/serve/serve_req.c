/*
 * serve_req.c - the requests of a serving run (serve_int.h): their lengths
 * and arrivals, the lists that hold them by state, and the admission order
 * of the waiting ones.
 */
#include "serve_int.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A new request in state `state`, at position pos of the run's order (its
 * client's slot, or its index in an open loop); its index or -1 (out of
 * memory: R->oom set). */
static int add_req(struct run *R, double arrival, long input, long target, int measured,
		   long pos)
{
	struct req *q;
	if (serve_grow((void **)&R->rq, &R->caprq, R->nrq + 1, sizeof(*R->rq)) < 0) {
		R->oom = 1;
		return -1;
	}
	q = &R->rq[R->nrq];
	memset(q, 0, sizeof(*q));
	q->arrival = arrival;
	q->input = input;
	q->target = target;
	q->measured = measured;
	q->pos = pos;
	q->state = RQ_PENDING;
	return R->nrq++;
}

int serve_new_req(struct run *R, double arrival, long input, long target, int measured, long pos)
{
	int i = add_req(R, arrival, input, target, measured, pos);
	if (i >= 0)
		serve_wait(R, i);
	return R->oom ? -1 : i;
}

void serve_tokenize(struct run *R, int i, double tok, double per_token)
{
	struct req *q = &R->rq[i];
	q->ready = q->arrival > R->tok_free ? q->arrival : R->tok_free;
	R->tok_free = q->ready + tok + per_token * (double)q->input;
}

void serve_wait(struct run *R, int i)
{
	R->rq[i].state = RQ_WAITING;
	R->nwait++;
	if (serve_grow((void **)&R->joined.a, &R->joined.cap, R->joined.n + 1, sizeof(int)) < 0) {
		R->oom = 1;
		return;
	}
	R->joined.a[R->joined.n++] = i;
}

/* The first entry of l whose request's position is pos or later. */
static int list_find(const struct run *R, const struct rlist *l, long pos)
{
	int lo = 0, hi = l->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (R->rq[l->a[mid]].pos < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int serve_list_insert(struct run *R, struct rlist *l, int i)
{
	int k;
	if (serve_grow((void **)&l->a, &l->cap, l->n + 1, sizeof(int)) < 0) {
		R->oom = 1;
		return -1;
	}
	k = list_find(R, l, R->rq[i].pos);
	memmove(&l->a[k + 1], &l->a[k], (size_t)(l->n - k) * sizeof(int));
	l->a[k] = i;
	l->n++;
	return 0;
}

void serve_list_remove(struct run *R, struct rlist *l, int i)
{
	int k = list_find(R, l, R->rq[i].pos);
	if (k < l->n && l->a[k] == i) {
		memmove(&l->a[k], &l->a[k + 1], (size_t)(l->n - k - 1) * sizeof(int));
		l->n--;
	}
}

long serve_out_len(const struct serve_params *p, long j)
{
	double u = fmod(0.5 + (double)j * 0.6180339887498949, 1.0);
	double len = (double)p->output_len * (1.0 - p->spread + 2.0 * p->spread * u);
	long l;
	if (p->range_ratio >= 0)        /* bench_serving's random dataset */
		len = (double)p->output_len * (p->range_ratio + (1.0 - p->range_ratio) * u);
	l = (long)(len + 0.5);
	return l < 1 ? 1 : l;
}

long serve_in_len(const struct serve_params *p, long j)
{
	double v = fmod(0.5 + (double)j * 0.4142135623730951, 1.0);
	long l;
	if (p->range_ratio < 0)
		return p->input_len;
	l = (long)((double)p->input_len * (p->range_ratio + (1.0 - p->range_ratio) * v) + 0.5);
	return l <= p->context ? p->context + 1 : l;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->retracted != y->retracted)
		return y->retracted - x->retracted;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return x->idx - y->idx;
}

/* An entry of the order that still stands: its request waits, as it did
 * when the entry was made. */
static int valid(const struct run *R, const struct cand *e)
{
	const struct req *q = &R->rq[e->idx];
	return q->state == RQ_WAITING && q->queued == 1 && q->retracted == e->retracted &&
	       q->arrival == e->arrival;
}

/*
 * (serve_int.h) From the last build: its entries still waiting as they
 * were keep their order, the requests that joined since (arrived, issued,
 * retracted: R->joined) are sorted apart and merged in. cmp_cand is a total
 * order, so this is the one sorted result a sort of them all gives.
 *
 * Admission takes a prefix of the order (it stops at the first request
 * that does not fit), and nothing else leaves it, so the entries that no
 * longer stand are a prefix: they are dropped by moving the head, and a
 * count says whether any other is stale (then every entry is checked, as
 * a full rebuild would). New requests sort after every waiting one (they
 * arrive last), so they are appended; a retracted one is merged in from
 * its place. A rebuild costs O(J log J + the entries after the first
 * joined one), not O(W), for J joined and W waiting.
 */
int serve_order_rebuild(struct run *R)
{
	int k, h = R->ohead, kept, nj = 0, waiting = R->nwait, pos, lo, hi, a, b, n;
	struct cand *o;
	/* 1. the admitted ones, from the front (queued is 0 or 1 here) */
	while (h < R->norder && !valid(R, &R->order[h])) {
		R->rq[R->order[h].idx].queued = 0;
		h++;
	}
	if (serve_grow((void **)&R->fresh, &R->capfresh, waiting > 0 ? waiting : 1,
		       sizeof(*R->fresh)) < 0 ||
	    serve_grow((void **)&R->merged, &R->capmerged, waiting > 0 ? waiting : 1,
		       sizeof(*R->merged)) < 0)
		return -1;
	/* 2. the ones that joined, marked 2 until the order is checked */
	for (k = 0; k < R->joined.n; k++) {
		int i = R->joined.a[k];
		struct req *q = &R->rq[i];
		if (q->state != RQ_WAITING || q->queued)
			continue;       /* admitted since, or listed twice */
		if (nj >= waiting)
			break;  /* cannot happen: waiting counts them */
		q->queued = 2;
		R->fresh[nj].retracted = q->retracted;
		R->fresh[nj].arrival = q->arrival;
		R->fresh[nj++].idx = i;
	}
	R->joined.n = 0;
	/* 3. every other waiting request has one entry: when there are more,
	 * one is stale (a request admitted and back since), so check all */
	kept = R->norder - h;
	if (kept != waiting - nj) {
		for (k = h, n = h; k < R->norder; k++) {
			struct req *q = &R->rq[R->order[k].idx];
			if (valid(R, &R->order[k]))
				R->order[n++] = R->order[k];
			else if (q->queued != 2)
				q->queued = 0;
		}
		kept = n - h;
	}
	for (k = 0; k < nj; k++)
		R->rq[R->fresh[k].idx].queued = 1;
	if (nj > 1)
		qsort(R->fresh, (size_t)nj, sizeof(*R->fresh), cmp_cand);
	/* room for the joined ones after the kept ones, the head moved to 0
	 * when the array would grow or the head passed the half */
	if (h > 0 && (h + kept + nj > R->caporder || h > kept)) {
		memmove(R->order, R->order + h, (size_t)kept * sizeof(*R->order));
		h = 0;
	}
	if (serve_grow((void **)&R->order, &R->caporder, h + kept + nj, sizeof(*R->order)) < 0)
		return -1;
	o = R->order + h;
	/* 4. the first kept entry after the first joined one */
	for (lo = 0, hi = kept; nj && lo < hi;) {
		int mid = lo + (hi - lo) / 2;
		if (cmp_cand(&o[mid], &R->fresh[0]) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	pos = lo;
	for (a = pos, b = 0, n = 0; a < kept || b < nj;)
		R->merged[n++] = b >= nj || (a < kept && cmp_cand(&o[a], &R->fresh[b]) < 0)
				 ? o[a++] : R->fresh[b++];
	memcpy(o + pos, R->merged, (size_t)n * sizeof(*o));
	R->ohead = h;
	R->norder = h + kept + nj;
	return kept + nj;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct serve_request *x = a, *y = b;
	return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

int serve_open_requests(const struct serve_params *p, struct run *R, struct plumb_err *err)
{
	int n, i;
	if (p->ntrace > 0) {
		struct serve_request *t = malloc((size_t)p->ntrace * sizeof(*t));
		if (!t)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		memcpy(t, p->trace, (size_t)p->ntrace * sizeof(*t));
		qsort(t, (size_t)p->ntrace, sizeof(*t), cmp_arrival);
		for (i = 0; i < p->ntrace; i++)
			add_req(R, t[i].arrival, t[i].input_len, t[i].output_len, 1, i);
		free(t);
	} else {
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		double t = 0;
		if (!rng)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		gsl_rng_set(rng, p->seed);
		n = p->prompts > 0 ? p->prompts : 1000;
		for (i = 0; i < n; i++) {
			t += gsl_ran_exponential(rng, 1.0 / p->rate);
			add_req(R, t, serve_in_len(p, i), serve_out_len(p, i), 1, i);
		}
		gsl_rng_free(rng);
	}
	return R->oom ? plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory") : 0;
}
