/*
 * coll_closed.c - a collective's time alone in closed form (coll_int.h,
 * docs/model-collectives.md "Closed form"): the alpha-beta model of NCCL's tuner and
 * of analytical network simulators, per ring or chain step, with each
 * send's share of its bottleneck taken from the flow model's own rule.
 *
 * A step: every send of one ring step (or every hop of the chains, or
 * every send of send/recv) with the flows coll.c would start for it
 * (coll_send_flow: one per channel, or one per NIC way between hosts), all
 * started at time 0. Flows that share links form groups (a union-find over
 * the links); each group runs on its own clock, latency then bandwidth, its
 * rates re-solved by progressive filling at every activation and
 * completion exactly as sim/flow.c solves them. A send's time d is its
 * last flow's end.
 *
 *  - ring (all-reduce 2(n-1) steps, all-gather and reduce-scatter n-1;
 *    each of RCCL's mesh rings alike): a rank sends step k+1 when step k
 *    arrives, so step k reaches rank j at t_first + the sum of the k + 1
 *    hop times ending at j, and the collective ends at t_first + the
 *    largest sum of `steps` consecutive hop times: q x (all hops) + the
 *    widest window of steps mod n hops, O(n) with prefix sums. It holds
 *    while a hop's sends never overlap: a send of step k+1 leaves a rank
 *    one upstream hop time after the send of step k, so for every hop
 *    d - (time before its first flow carries bytes) <= the ring's least d;
 *    else sends queue at the slow hop and the flow model runs.
 *  - chains (tree all-reduce, broadcast): a position sends chunk c once it
 *    has it and its send of chunk c-1 has arrived (coll.c's busy flag):
 *    send(p, c) = max(has(p, c), send(p, c-1) + d_p), O(n x chunks) with
 *    chunks <= 64.
 *  - send/recv: one step, t_first + the longest d.
 *
 * Links shared by several sends (step_times): when no link carries two
 * pairs' sends, the step is exact for every step. When a ring's sends all
 * take the same time they run in lockstep, every step is the solved one,
 * and the shared solve is exact. Otherwise sends drift out of step and
 * meet on a shared link at offsets that vary from step to step; the
 * closed form is then taken only if sharing cannot matter: every send's
 * bandwidth time with all flows of its group active from one instant
 * (the most sharing can do) is within COLL_CLOSED_EPS of its time alone,
 * and its time alone is used. Else the flow model runs and says why.
 * All-to-all and the engine's one-shot and two-shot kernels send every
 * pair at once: always the flow model.
 *
 * Cost: O(sends x flows per send x path length x events of its group)
 * plus O(links), against the flow model's O(n x steps) events each
 * re-solving every active flow: on 1,024 GPUs of 128 hosts, groups are a
 * host's sends and the step is O(n).
 */
#include "coll.h"
#include "coll_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How much sharing a link may change a send's time, relative, when sends
 * out of step share it (step_times): below the printed precision of a
 * collective of 1,000 steps (0.01 us of 10 us steps, 1e-3) or far under */
#define COLL_CLOSED_EPS 1e-3

/* the flow model's freeze tolerance (sim/flow.c SHARE_EPS) */
#define SHARE_EPS 1e-12

/* One flow of a step's sends in the local solve. */
struct lflow {
	struct coll_flow f;
	int hop, next;              /* its send; the next flow of its group */
	double act;                 /* activation: delay + path latency */
	double rem, rate, end;
	int on, done, frozen;
};

/* One step: every send of it started at time 0, then solved by groups of
 * flows that share links (a union-find over the links). */
struct cctx {
	const struct crun *r;
	int *owner;                 /* [nlinks]: flow index + 1 of a link's first user */
	struct lflow *fl;
	int nf, cap;
	int *uf;                    /* [cap] union-find parents */
	int *lk, *ln, lcap;         /* scratch of one group's solve: links, counts */
	int *lidx;                  /* [nlinks]: a link's index in lk, -1 none */
	double *lrc;
	int shared;                 /* a group held two sends */
	int at_once;                /* solve as if every flow started at 0 */
};

static int uf_find(int *uf, int i)
{
	while (uf[i] != i)
		i = uf[i] = uf[uf[i]];
	return i;
}

/* Add the flows of the send of `bytes` from rank src to dst (chain: the
 * tree's chain, else -1) as send `hop`. Returns 0 or a negative code. */
static int step_add(struct cctx *x, int hop, int src, int dst, double bytes, int chain,
		    struct plumb_err *err)
{
	struct coll_flow f0;
	int nf = coll_send_flow(x->r, src, dst, bytes, chain, 0, &f0), i;

	if (x->nf + nf > x->cap) {
		int cap = 2 * (x->nf + nf);
		struct lflow *n = realloc(x->fl, (size_t)cap * sizeof(*n));
		int *u;
		if (!n)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		x->fl = n;      /* paths into a flow's own buffer are NULL: they move with it */
		if (!(u = realloc(x->uf, (size_t)cap * sizeof(*u))))
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		x->uf = u;
		x->cap = cap;
	}
	for (i = 0; i < nf; i++) {
		struct lflow *f = &x->fl[x->nf + i];
		if (i == 0)
			f->f = f0;
		else
			coll_send_flow(x->r, src, dst, bytes, chain, i, &f->f);
		if (i == 0 && f0.path == f0.buf)
			f->f.path = NULL;       /* its own buffer: f.buf */
		else if (f->f.path == f->f.buf)
			f->f.path = NULL;
		f->hop = hop;
		f->act = f->f.delay + fab_path_latency(x->r->fab, f->f.path ? f->f.path : f->f.buf,
						      f->f.len);
		f->rem = f->f.bytes;
		f->rate = f->end = 0;
		f->on = f->done = 0;
	}
	x->nf += nf;
	return 0;
}

static const int *fpath(const struct lflow *f)
{
	return f->f.path ? f->f.path : f->f.buf;
}

/* Progressive filling over the active flows of one group (sim/flow.c
 * solve_rates, a flow's channels counted mult times). */
static void lsolve(struct cctx *x, int head)
{
	const struct sim_net *net = x->r->fab->net;
	int i, j, k, nl = 0, nuf = 0;

	for (i = head; i >= 0; i = x->fl[i].next) {
		struct lflow *f = &x->fl[i];
		const int *p = fpath(f);
		f->frozen = !f->on || f->done;
		if (f->frozen)
			continue;
		nuf++;
		for (j = 0; j < f->f.len; j++) {
			k = x->lidx[p[j]];
			if (k < 0) {
				k = x->lidx[p[j]] = nl;
				x->lk[nl] = p[j];
				x->lrc[nl] = sim_net_link_capacity(net, p[j]);
				x->ln[nl++] = 0;
			}
			x->ln[k] += f->f.mult;
		}
	}
	while (nuf > 0) {
		double m = INFINITY, thr;
		for (k = 0; k < nl; k++)
			if (x->ln[k] > 0) {
				double sh = x->lrc[k] > 0 ? x->lrc[k] / x->ln[k] : 0;
				if (sh < m)
					m = sh;
			}
		for (i = head; i >= 0; i = x->fl[i].next)
			if (!x->fl[i].frozen && x->fl[i].f.cap > 0 && x->fl[i].f.cap < m)
				m = x->fl[i].f.cap;
		thr = m * (1 + SHARE_EPS);
		for (i = head; i >= 0; i = x->fl[i].next) {
			struct lflow *f = &x->fl[i];
			const int *p = fpath(f);
			int hit;
			if (f->frozen)
				continue;
			hit = f->f.cap > 0 && f->f.cap <= thr;
			for (j = 0; !hit && j < f->f.len; j++) {
				k = x->lidx[p[j]];
				hit = x->ln[k] > 0 && (x->lrc[k] > 0 ? x->lrc[k] / x->ln[k] : 0) <= thr;
			}
			if (!hit)
				continue;
			f->rate = (f->f.cap > 0 && f->f.cap < m) ? f->f.cap : m;
			f->frozen = 2;      /* frozen this round: links updated below */
		}
		for (i = head; i >= 0; i = x->fl[i].next) {
			struct lflow *f = &x->fl[i];
			const int *p = fpath(f);
			if (f->frozen != 2)
				continue;
			f->frozen = 1;
			nuf--;
			for (j = 0; j < f->f.len; j++) {
				k = x->lidx[p[j]];
				x->lrc[k] -= f->rate * f->f.mult;
				x->ln[k] -= f->f.mult;
			}
		}
	}
	for (k = 0; k < nl; k++)
		x->lidx[x->lk[k]] = -1;
}

/* One group's flows on a clock from the step's start: activations and
 * completions, a re-solve after each; every flow's end into f->end. */
static void group_run(struct cctx *x, int head)
{
	int i, left = 0;
	double t = 0;
	for (i = head; i >= 0; i = x->fl[i].next)
		left++;
	while (left > 0) {
		double next = INFINITY;
		for (i = head; i >= 0; i = x->fl[i].next) {
			struct lflow *f = &x->fl[i];
			if (!f->on && (x->at_once || f->act <= t)) {
				f->on = 1;
				if (f->rem <= 0) {
					f->done = 1;
					f->end = t;
					left--;
				}
			}
		}
		if (!left)
			break;
		lsolve(x, head);
		for (i = head; i >= 0; i = x->fl[i].next) {
			const struct lflow *f = &x->fl[i];
			double e = !f->on ? (x->at_once ? 0 : f->act) : f->done ? INFINITY : t + f->rem / f->rate;
			if (e < next)
				next = e;
		}
		for (i = head; i >= 0; i = x->fl[i].next) {
			struct lflow *f = &x->fl[i];
			if (!f->on || f->done)
				continue;
			if (t + f->rem / f->rate <= next) {
				f->done = 1;
				f->rem = 0;
				f->end = next;
				left--;
			} else {
				f->rem -= f->rate * (next - t);
				if (f->rem < 0)
					f->rem = 0;
			}
		}
		t = next;
	}
}

/*
 * Solve the step's flows (step_add) by groups sharing links, then each
 * send's time from its start to its last flow's end into d[hop] and the
 * time before its first flow carries bytes into idle[hop] (nhop sends).
 * Sets x->shared when a group held two sends. Returns 0 or a negative code.
 */
static int step_solve(struct cctx *x, int by_hop, int nhop, double *d, double *idle,
		      struct plumb_err *err)
{
	int i, j, *head, maxp = 0;

	for (i = 0; i < nhop; i++) {
		d[i] = 0;
		idle[i] = INFINITY;
	}
	for (i = 0; i < x->nf; i++) {
		struct lflow *f = &x->fl[i];
		f->rem = f->f.bytes;
		f->rate = f->end = 0;
		f->on = f->done = 0;
		/* by hop: a send's flows are added together, its first is the root */
		x->uf[i] = by_hop && i > 0 && x->fl[i - 1].hop == f->hop ? x->uf[i - 1] : i;
	}
	for (i = 0; i < x->nf; i++) {
		const int *p = fpath(&x->fl[i]);
		if (x->fl[i].f.len > maxp)
			maxp = x->fl[i].f.len;
		for (j = 0; !by_hop && j < x->fl[i].f.len; j++) {
			int *o = &x->owner[p[j]];
			if (!*o)
				*o = i + 1;
			else {
				int a = uf_find(x->uf, i), b = uf_find(x->uf, *o - 1);
				if (a != b)
					x->uf[a < b ? b : a] = a < b ? a : b;
			}
		}
	}
	/* groups as lists threaded through next, headed at their root */
	if (!(head = malloc((size_t)(x->nf + 1) * sizeof(*head))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < x->nf; i++)
		head[i] = -1;
	for (i = x->nf - 1; i >= 0; i--) {
		int g = uf_find(x->uf, i);
		x->fl[i].next = head[g];
		head[g] = i;
		if (!by_hop && x->fl[g].hop != x->fl[i].hop)
			x->shared = 1;
	}
	{
		int lc = 0;
		for (i = 0; i < x->nf; i++)
			if (head[i] >= 0) {
				int n = 0;
				for (j = head[i]; j >= 0; j = x->fl[j].next)
					n++;
				if (n * maxp > lc)
					lc = n * maxp;
			}
		if (lc > x->lcap) {
			free(x->lk);
			free(x->ln);
			free(x->lrc);
			x->lk = malloc((size_t)lc * sizeof(*x->lk));
			x->ln = malloc((size_t)lc * sizeof(*x->ln));
			x->lrc = malloc((size_t)lc * sizeof(*x->lrc));
			x->lcap = lc;
			if (!x->lk || !x->ln || !x->lrc) {
				x->lcap = 0;
				free(head);
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			}
		}
	}
	for (i = 0; i < x->nf; i++)
		if (head[i] >= 0)
			group_run(x, head[i]);
	free(head);
	for (i = 0; i < x->nf; i++) {
		const struct lflow *f = &x->fl[i];
		if (f->end > d[f->hop])
			d[f->hop] = f->end;
		if (f->act < idle[f->hop])
			idle[f->hop] = f->act;
	}
	return 0;
}

/*
 * Every send's time in one step (step_solve) into d and idle, or 1 with
 * *why when links shared between sends make the closed form unsafe. With
 * no link carrying two pairs' sends, the solve is exact. With shared links
 * the step's solve is exact when every send then takes the same time
 * (ring: the sends run in lockstep, step after step alike; lockstep 1);
 * otherwise the sends drift out of step, and the closed form holds only
 * when sharing cannot matter: each send's time alone and in the shared
 * solve differ by at most COLL_CLOSED_EPS, and the sends' times alone
 * are kept.
 */
static int step_times(struct cctx *x, int lockstep, int nhop, double *d, double *idle,
		      const char **why, struct plumb_err *err)
{
	int rc, h;
	double lo = INFINITY, hi = 0, *ds;

	if ((rc = step_solve(x, 0, nhop, d, idle, err)) < 0 || !x->shared)
		return rc;
	for (h = 0; h < nhop; h++) {
		lo = fmin(lo, d[h]);
		hi = fmax(hi, d[h]);
	}
	if (lockstep && hi - lo <= 1e-12 * hi)
		return 0;
	/* the bytes' time of each send alone and with every flow that shares
	 * its links active from the same instant (the most sharing can do) */
	if (!(ds = malloc((size_t)3 * nhop * sizeof(*ds))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	x->at_once = 1;
	if ((rc = step_solve(x, 0, nhop, ds, ds + 2 * nhop, err)) < 0 ||
	    (rc = step_solve(x, 1, nhop, ds + nhop, ds + 2 * nhop, err)) < 0) {
		x->at_once = 0;
		free(ds);
		return rc;
	}
	x->at_once = 0;
	if ((rc = step_solve(x, 1, nhop, d, idle, err)) < 0) {
		free(ds);
		return rc;
	}
	for (h = 0; h < nhop; h++)
		if (ds[h] - ds[nhop + h] > COLL_CLOSED_EPS * d[h]) {
			*why = "sends out of step share a link";
			rc = 1;
			break;
		}
	free(ds);
	return rc;
}

/* The rings: ring t's successor of rank i is succ(t, i). */
static int ring_succ(const struct crun *r, int t, int i)
{
	return r->nring > 0 ? r->rsucc[t * r->n + i] : (i + 1) % r->n;
}

/*
 * RCCL's ring with chunks that carry no data (coll_rccl.c, one ring): the
 * recurrence there over the ranks' steps, with hop k's send time d[k] (the
 * ring walked from rank 0) into the rank it reaches. pos: room for n + 1.
 */
static double sparse_ring(const struct crun *r, const double *d, int *pos)
{
	int n = r->n, i, s, v = 0, k;
	double *e = malloc((size_t)4 * n * sizeof(*e)), *e2, *din, *o, end = 0;
	int *pred = malloc((size_t)n * sizeof(*pred));
	if (!e || !pred) {
		free(e);
		free(pred);
		return -1;
	}
	e2 = e + n;
	din = e2 + n;
	o = din + n;
	for (k = 0; k < n; k++) {
		int w = ring_succ(r, 0, v);
		pos[v] = k;
		pred[w] = v;
		din[w] = d[k];
		v = w;
	}
	for (i = 0; i < n; i++) {
		o[i] = fmin(r->idle, r->step_lat[pred[i] * n + i]);
		e[i] = 0;
	}
	for (s = 1; s <= r->nsteps; s++) {
		for (i = 0; i < n; i++)
			e2[i] = coll_rccl_step_data(pos[i], s, n, r->kdata)
					? fmax(e[i] + o[i], e[pred[i]]) + din[i] - o[i] : e[i] + o[i];
		memcpy(e, e2, (size_t)n * sizeof(*e));
	}
	for (i = 0; i < n; i++)
		end = fmax(end, e[i]);
	free(e);
	free(pred);
	return end;
}

static int closed_ring(struct cctx *x, double *end, const char **why, struct plumb_err *err)
{
	const struct crun *r = x->r;
	int n = r->n, nr = r->nring > 0 ? r->nring : 1, t, k, rc, q = r->nsteps / n,
	    rem = r->nsteps % n, *rk;
	double *d = malloc((size_t)3 * n * nr * sizeof(*d)), *idle, *pre, best = 0;

	rk = malloc((size_t)(n * nr + 1) * sizeof(*rk));
	if (!d || !rk) {
		free(d);
		free(rk);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	idle = d + n * nr;
	pre = idle + n * nr;
	/* hop t x n + k: ring t's k-th hop, walked from rank 0 */
	for (t = 0; t < nr; t++) {
		int v = 0;
		for (k = 0; k < n; k++) {
			int w = ring_succ(r, t, v);
			if ((rc = step_add(x, t * n + k, v, w, r->chunk, r->nring > 0 ? t : -1, err)) < 0)
				goto out;
			v = w;
		}
	}
	if ((rc = step_times(x, 1, n * nr, d, idle, why, err)) != 0)
		goto out;
	if (r->kdata > 0) {
		if ((*end = sparse_ring(r, d, rk)) < 0)
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (t = 0; t < nr; t++) {
		double total = 0, dmin = INFINITY, *dt = d + t * n, *it = idle + t * n;
		for (k = 0; k < n; k++) {
			if (dt[k] < dmin)
				dmin = dt[k];
			total += dt[k];
			pre[k] = total;
		}
		/* a hop's next send leaves one upstream hop time after its
		 * last: it must find the hop's links free */
		for (k = 0; r->nsteps > 1 && k < n; k++)
			if (dt[k] - it[k] > dmin) {
				*why = "a ring hop is slower than the next step's arrival: sends queue there";
				rc = 1;
				goto out;
			}
		/* the last step reaches hop k's receiver after the `steps` hops
		 * ending at hop k: around the ring q times, then rem more */
		for (k = 0; k < n; k++) {
			double win = 0, acc;
			if (rem > 0)
				win = k + 1 >= rem ? pre[k] - (k + 1 > rem ? pre[k - rem] : 0)
						   : pre[k] + total - pre[n - 1 - (rem - k - 1)];
			acc = q * total + win;
			if (acc > best)
				best = acc;
		}
	}
	*end = best;
	rc = 0;
out:
	free(d);
	free(rk);
	return rc;
}

/* Position p's successor in phase ph of a chain (coll.c chain_succ). */
static int chain_succ(const struct crun *r, int ph, int p, int head1)
{
	if (ph == 0)
		return p > 0 ? p - 1 : -1;
	p = (p + 1) % r->n;
	return p == head1 ? -1 : p;
}

static int closed_chain(struct cctx *x, double *end, const char **why, struct plumb_err *err)
{
	const struct crun *r = x->r;
	int n = r->n, ar = r->c->op == COLL_ALLREDUCE, head1 = ar ? 0 : r->c->root, t, p, q, ch, rc;
	int nh = r->nchain * 2 * n;
	double bytes = r->c->bytes / r->nchunks / r->nchain, best = 0;
	double *d = malloc((size_t)2 * (nh + n) * sizeof(*d)), *idle, *er, *eb;

	if (!d)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	idle = d + nh;
	er = idle + nh;
	eb = er + n;
	/* hop (t x 2 + phase) x n + p: chain t's send from position p */
	for (t = 0; t < r->nchain; t++) {
		const int *ord = &r->ord[t * n];
		for (p = 0; p < n; p++) {
			if (ar && (q = chain_succ(r, 0, p, head1)) >= 0 &&
			    (rc = step_add(x, (t * 2) * n + p, ord[p], ord[q], bytes, t, err)) < 0)
				goto out;
			if ((q = chain_succ(r, 1, p, head1)) >= 0 &&
			    (rc = step_add(x, (t * 2 + 1) * n + p, ord[p], ord[q], bytes, t, err)) < 0)
				goto out;
		}
	}
	if ((rc = step_times(x, 0, nh, d, idle, why, err)) != 0)
		goto out;
	for (t = 0; t < r->nchain; t++) {
		const double *dr = d + t * 2 * n, *db = dr + n;
		for (p = 0; p < n; p++)
			er[p] = eb[p] = -INFINITY;
		/* chunk by chunk: a position sends a chunk once it has it and
		 * its last send of the phase has arrived */
		for (ch = 0; ch < r->nchunks; ch++) {
			double have = 0;
			if (ar)
				for (p = n - 1; p >= 1; p--) {
					er[p] = fmax(have, er[p]) + dr[p];
					have = er[p];
				}
			for (p = head1; (q = chain_succ(r, 1, p, head1)) >= 0; p = q) {
				eb[p] = fmax(have, eb[p]) + db[p];
				have = eb[p];
			}
			if (have > best)
				best = have;
		}
	}
	rc = 0;
	*end = best;
out:
	free(d);
	return rc;
}

/* Send/recv: every rank's one send to its successor, all at once. */
static int closed_sendrecv(struct cctx *x, double *end, struct plumb_err *err)
{
	const struct crun *r = x->r;
	int i, rc;
	double *d = malloc((size_t)2 * r->n * sizeof(*d));
	if (!d)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	*end = 0;
	for (i = 0; i < r->n; i++)
		if ((rc = step_add(x, i, i, (i + 1) % r->n, r->c->bytes, -1, err)) < 0)
			goto out;
	if ((rc = step_solve(x, 0, r->n, d, d + r->n, err)) < 0)
		goto out;
	for (i = 0; i < r->n; i++)
		if (d[i] > *end)
			*end = d[i];
out:
	free(d);
	return rc;
}

int coll_closed(const struct crun *r, double *seconds, int *shared, const char **why,
		struct plumb_err *err)
{
	struct cctx x;
	int rc;
	double end = 0;

	*why = NULL;
	*seconds = -1;
	*shared = 0;
	if (r->c->op == COLL_ALLTOALL || r->algo == ALGO_ONESHOT || r->algo == ALGO_TWOSHOT) {
		*why = r->c->op == COLL_ALLTOALL ? "all-to-all sends every pair at once" :
		       r->msccl ? "RCCL's allpairs exchanges with every peer at once" :
				  "the engine's kernel reads every peer at once";
		return 1;
	}
	memset(&x, 0, sizeof(x));
	x.r = r;
	x.owner = calloc((size_t)sim_net_nlinks(r->fab->net) + 1, sizeof(*x.owner));
	x.lidx = malloc(((size_t)sim_net_nlinks(r->fab->net) + 1) * sizeof(*x.lidx));
	if (!x.owner || !x.lidx) {
		free(x.owner);
		free(x.lidx);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	for (rc = 0; rc <= sim_net_nlinks(r->fab->net); rc++)
		x.lidx[rc] = -1;
	if (r->c->op == COLL_SENDRECV)
		rc = closed_sendrecv(&x, &end, err);
	else if (r->ord)
		rc = closed_chain(&x, &end, why, err);
	else
		rc = closed_ring(&x, &end, why, err);
	if (rc == 0)
		*seconds = r->t_first + end;
	*shared = x.shared;
	free(x.owner);
	free(x.lidx);
	free(x.fl);
	free(x.uf);
	free(x.lk);
	free(x.ln);
	free(x.lrc);
	return rc;
}
