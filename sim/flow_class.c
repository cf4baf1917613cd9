/*
 * flow_class.c - the default solver (flow_int.h): flow classes on virtual
 * clocks.
 *
 * Two active flows that cross the same shared links (links carrying two
 * active flows or more) and have the same effective cap (the least of their
 * own cap and the capacities of their unshared links, which act on them as
 * caps) freeze in the same filling round at the same level: max-min gives
 * them the same rate. So the solver keeps the active flows in classes keyed
 * by (shared links, effective cap) and runs progressive filling over the
 * classes, each weighing its member count. A class keeps a virtual clock
 * V(t) = v0 + rate x (t - t0), the bytes one member has moved since the
 * class began; a member that joined at t1 with b bytes to go carries the
 * finish tag V(t1) + b, and the members sit in a min-heap on their tags.
 * Only the head (least tag) has an event; when the class's rate changes,
 * the solve moves the clock's anchor and that one event, not each member.
 *
 * A flow's key changes when one of its links turns shared (a second flow
 * joins it) or unshared (the last but one leaves): it then moves to its new
 * class with the bytes it has left. Each link keeps the count of active
 * flows through it and the XOR of their ids, which is the id of the only
 * one when the count is 1; so a join or a completion marks at most one
 * other flow per link of its path. Marked flows, and flows that became
 * active, are placed at the instant's re-solve, once all of the instant's
 * starts and ends have changed the counts: when many flows start together
 * (a collective's step), each is keyed once, not once per flow that joins
 * its links after it. Until then a new flow has rate 0 and a marked one
 * keeps its class (no time passes in between).
 *
 * In exact arithmetic the rates and completion times are those of the
 * per-flow solver (flow_ref.c); in floating point they differ by roundings
 * (a class subtracts rate x members from a link where the per-flow solver
 * subtracts rate once per flow, and a remaining byte count is a difference
 * of virtual times). tests/unit/test_sim_solvers.c runs both on random
 * workloads and holds every flow's finish time within 1e-9 relative.
 *
 * A flow started as several copies (sim_flow_start_n) is one member that
 * weighs its copies: it counts that many times on its links (nact) and in
 * its class's weight (w), which is what the filling reads, so its rate and
 * finish time are those the copies would get one by one.
 *
 * Completions at one instant: when the head ends and the next member's tag
 * gives the same finish time, the class's event is queued again at the
 * same instant, so members that end together end before the instant's
 * re-solve, as their own events would under the per-flow solver.
 *
 * Cost: a join or completion O(P) to count it on its links, plus at the
 * solve O(P x log P + log k) to key and place each marked flow (P links,
 * k members in its class) and one class event; a re-solve O(C + L + R x
 * (C x S + L)) over C live classes with S shared links each and L shared
 * links (kept in a list as flows join and leave: the filling starts from
 * it, not from each class's links) and O(changed classes x log pending) to
 * move their events.
 */
#include "flow_int.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- virtual clocks ------------------------------------------------------ */

static double vclock(const struct fclass *c, double now)
{
	return c->v0 + c->rate * (now - c->t0);
}

/* When the virtual clock of c reaches tag (never, before c has a rate). */
static double tag_time(const struct fclass *c, double tag)
{
	if (!(c->rate > 0))
		return INFINITY;
	return c->t0 + (tag - c->v0) / c->rate;
}

double cls_flow_rate(const struct sim_net *net, int id)
{
	const struct flow *f = &net->flows[id];

	if (f->state != FLOW_ACTIVE || f->cls < 0)
		return 0;
	return net->cls[f->cls].rate;
}

double cls_flow_remaining(const struct sim_net *net, int id)
{
	const struct flow *f = &net->flows[id];

	if (f->cls < 0)
		return f->state == FLOW_ACTIVE ? 0 : f->bytes;
	return f->tag - vclock(&net->cls[f->cls], sim_now(net->eng));
}

/* ---- keys and the class table ------------------------------------------- */

/* Flow f's key as the links count now: its shared links, ascending, in
 * buf; the effective cap (0 = none) in *cap. Returns the number of links. */
static int flow_key(const struct sim_net *net, const struct flow *f, int *buf,
		    double *cap)
{
	double c = f->cap > 0 ? f->cap : INFINITY;
	int i, j, n = 0;

	for (i = 0; i < f->plen; i++) {
		const struct lcount *l = &net->lcnt[f->path[i]];
		int v = f->path[i];

		if (l->nact < 2) {
			if (l->cap < c)
				c = l->cap;
			continue;
		}
		for (j = n; j > 0 && buf[j - 1] > v; j--)
			buf[j] = buf[j - 1];
		buf[j] = v;
		n++;
	}
	*cap = isinf(c) ? 0 : c;
	return n;
}

static uint64_t key_hash(const int *links, int n, double cap)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL, bits;
	int i;

	memcpy(&bits, &cap, sizeof(bits));
	h = (h ^ bits) * 0x100000001b3ULL;
	for (i = 0; i < n; i++)
		h = (h ^ (uint32_t)links[i]) * 0x100000001b3ULL;
	/* SplitMix64 finaliser (Steele, Lea, Flood 2014): spread the bits */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

static int key_equal(const struct fclass *c, const int *links, int n,
		     double cap)
{
	return c->nl == n && c->cap == cap &&
	       (n == 0 || memcmp(c->links, links, (size_t)n * sizeof(*links))
			  == 0);
}

static int oom(struct plumb_err *err)
{
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
			     "out of memory keeping flow classes");
}

/* Double the hash table and put every keyed class back in. */
static int table_grow(struct sim_net *net, struct plumb_err *err)
{
	int nb = net->nbucket ? 2 * net->nbucket : 64, i;
	int *b = malloc((size_t)nb * sizeof(*b));

	if (!b)
		return oom(err);
	for (i = 0; i < nb; i++)
		b[i] = -1;
	for (i = 0; i < net->ncls; i++) {
		struct fclass *c = &net->cls[i];
		int h = (int)(c->hash & (uint64_t)(nb - 1));

		if (!c->keyed)
			continue;
		c->next = b[h];
		b[h] = i;
	}
	free(net->bucket);
	net->bucket = b;
	net->nbucket = nb;
	return 0;
}

/* Free every empty class (their slots and arrays kept for reuse). */
static void sweep_empty(struct sim_net *net)
{
	int i;

	for (i = 0; i < net->nbucket; i++) {
		int *p = &net->bucket[i];

		while (*p >= 0) {
			struct fclass *c = &net->cls[*p];
			int ci = *p;

			if (c->act_idx >= 0) {
				p = &c->next;
				continue;
			}
			*p = c->next;
			c->keyed = 0;
			c->next = net->cls_free;
			net->cls_free = ci;
			net->nkeyed--;
		}
	}
}

/* A free class slot (its arrays kept for reuse), or -1 out of memory. */
static int slot_alloc(struct sim_net *net)
{
	int ci;

	if (net->cls_free >= 0) {
		ci = net->cls_free;
		net->cls_free = net->cls[ci].next;
		return ci;
	}
	if (net->ncls == net->capcls) {
		int ncap = net->capcls ? 2 * net->capcls : 16;
		struct fclass *nc = realloc(net->cls,
					    (size_t)ncap * sizeof(*nc));
		int *na;

		if (!nc)
			return -1;
		net->cls = nc;
		na = realloc(net->cact, (size_t)ncap * sizeof(*na));
		if (!na)
			return -1;
		net->cact = na;
		net->capcls = ncap;
	}
	ci = net->ncls++;
	memset(&net->cls[ci], 0, sizeof(net->cls[ci]));
	return ci;
}

/* Class ci gets members again (or for the first time): a fresh clock, and
 * a place in the live list. */
static void cls_wake(struct sim_net *net, int ci, double now)
{
	struct fclass *c = &net->cls[ci];

	c->n = c->w = 0;
	c->rate = c->old_rate = 0;
	c->t0 = now;
	c->v0 = 0;
	c->ev = SIM_HANDLE_NONE;
	c->ev_head = -1;
	c->act_idx = net->nlive;
	net->cact[net->nlive++] = ci;
}

/*
 * The class of key (links, n, cap), created if there is none, woken if it
 * is empty. Returns its index or a negative plumb code. An empty class
 * stays in the table, so that the flows of a collective's next step find
 * the classes of the step before; empty ones are freed when they outnumber
 * the live ones (and 256).
 */
static int cls_find(struct sim_net *net, const int *links, int n, double cap,
		    double now, struct plumb_err *err)
{
	uint64_t h = key_hash(links, n, cap);
	struct fclass *c;
	int ci, b, rc;

	if (net->nbucket) {
		for (ci = net->bucket[h & (uint64_t)(net->nbucket - 1)];
		     ci >= 0; ci = net->cls[ci].next)
			if (net->cls[ci].hash == h &&
			    key_equal(&net->cls[ci], links, n, cap)) {
				if (net->cls[ci].act_idx < 0)
					cls_wake(net, ci, now);
				return ci;
			}
	}
	if (net->nkeyed - net->nlive > net->nlive + 256)
		sweep_empty(net);
	if (2 * (net->nkeyed + 1) > net->nbucket &&
	    (rc = table_grow(net, err)) < 0)
		return rc;
	if ((ci = slot_alloc(net)) < 0)
		return oom(err);
	c = &net->cls[ci];
	if (c->lcap < n) {
		int *nl = realloc(c->links, (size_t)n * sizeof(*nl));
		if (!nl) {
			c->next = net->cls_free;
			net->cls_free = ci;
			return oom(err);
		}
		c->links = nl;
		c->lcap = n;
	}
	if (n)
		memcpy(c->links, links, (size_t)n * sizeof(*links));
	c->nl = n;
	c->cap = cap;
	c->hash = h;
	c->keyed = 1;
	b = (int)(h & (uint64_t)(net->nbucket - 1));
	c->next = net->bucket[b];
	net->bucket[b] = ci;
	net->nkeyed++;
	cls_wake(net, ci, now);
	return ci;
}

/* Class ci has no member left: cancel its event and take it out of the
 * live list; it stays in the table, empty. */
static void cls_idle(struct sim_net *net, int ci)
{
	struct fclass *c = &net->cls[ci];
	int last;

	assert(c->keyed && c->n == 0 && c->act_idx >= 0);
	sim_cancel(net->eng, c->ev);
	c->ev = SIM_HANDLE_NONE;
	last = net->cact[--net->nlive];
	net->cact[c->act_idx] = last;
	net->cls[last].act_idx = c->act_idx;
	c->act_idx = -1;
	c->gen++;
}

/* ---- member heaps -------------------------------------------------------- */

static int before(const struct hent *a, const struct hent *b)
{
	return a->tag < b->tag || (a->tag == b->tag && a->id < b->id);
}

static void heap_put(struct sim_net *net, struct fclass *c, int i,
		     struct hent e)
{
	c->heap[i] = e;
	net->flows[e.id].hidx = i;
}

static void mh_up(struct sim_net *net, struct fclass *c, int i)
{
	struct hent e = c->heap[i];

	while (i > 0) {
		int p = (i - 1) / 2;
		if (!before(&e, &c->heap[p]))
			break;
		heap_put(net, c, i, c->heap[p]);
		i = p;
	}
	heap_put(net, c, i, e);
}

static void mh_down(struct sim_net *net, struct fclass *c, int i)
{
	struct hent e = c->heap[i];

	for (;;) {
		int l = 2 * i + 1, m = l;
		if (l >= c->n)
			break;
		if (l + 1 < c->n && before(&c->heap[l + 1], &c->heap[l]))
			m = l + 1;
		if (!before(&c->heap[m], &e))
			break;
		heap_put(net, c, i, c->heap[m]);
		i = m;
	}
	heap_put(net, c, i, e);
}

/* Put active flow id, with rem bytes to go, into the class of key
 * (net->keybuf[0..n), cap). */
static int cls_insert(struct sim_net *net, int id, double rem, int n,
		      double cap, double now, struct plumb_err *err)
{
	struct fclass *c;
	struct flow *f;
	int ci = cls_find(net, net->keybuf, n, cap, now, err);

	if (ci < 0)
		return ci;
	c = &net->cls[ci];
	if (c->n == c->hcap) {
		int ncap = c->hcap ? 2 * c->hcap : 4;
		struct hent *nh = realloc(c->heap,
					  (size_t)ncap * sizeof(*nh));

		if (!nh) {
			if (c->n == 0)
				cls_idle(net, ci);
			return oom(err);
		}
		c->heap = nh;
		c->hcap = ncap;
	}
	f = &net->flows[id];
	f->cls = ci;
	f->tag = vclock(c, now) + rem;
	c->heap[c->n].tag = f->tag;
	c->heap[c->n++].id = id;
	c->w += f->w;
	mh_up(net, c, c->n - 1);
	return 0;
}

/* Take flow id out of its class; returns the bytes it had left. */
static double cls_remove(struct sim_net *net, int id, double now)
{
	struct flow *f = &net->flows[id];
	int ci = f->cls, i = f->hidx;
	struct fclass *c = &net->cls[ci];
	double rem = f->tag - vclock(c, now);
	struct hent last;

	assert(ci >= 0 && c->heap[i].id == id);
	c->w -= f->w;
	last = c->heap[--c->n];
	if (i < c->n) {
		heap_put(net, c, i, last);
		if (i > 0 && before(&last, &c->heap[(i - 1) / 2]))
			mh_up(net, c, i);
		else
			mh_down(net, c, i);
	}
	f->cls = -1;
	f->hidx = -1;
	if (c->n == 0)
		cls_idle(net, ci);
	return rem > 0 ? rem : 0;
}

/* Put flow id in the class of its key as the links count now: a new flow
 * with all its bytes, a flow whose key changed with what it has left. */
static int cls_place(struct sim_net *net, int id, double now,
		     struct plumb_err *err)
{
	struct flow *f = &net->flows[id];
	double cap, rem;
	int n = flow_key(net, f, net->keybuf, &cap);

	if (f->cls >= 0 && key_equal(&net->cls[f->cls], net->keybuf, n, cap))
		return 0;
	rem = f->cls >= 0 ? cls_remove(net, id, now) : f->bytes;
	return cls_insert(net, id, rem, n, cap, now, err);
}

/* Queue flow id to be placed again at the next solve. */
static void set_dirty(struct sim_net *net, int id)
{
	struct flow *f = &net->flows[id];

	if (!f->dirty) {
		f->dirty = 1;
		net->dirty[net->ndirty++] = id;
	}
}

/* ---- flows joining and leaving ------------------------------------------ */

/* The shared links' list: a link is in it while two active flows or more
 * (copies counting) cross it, which are the links of the live classes'
 * keys once the instant's marked flows are placed. */
static void shl_add(struct sim_net *net, int li)
{
	net->links[li].shi = net->nshl;
	net->shl[net->nshl++] = li;
}

static void shl_drop(struct sim_net *net, int li)
{
	int at = net->links[li].shi, last = net->shl[--net->nshl];

	net->shl[at] = last;
	net->links[last].shi = at;
	net->links[li].shi = -1;
}

/* A flow becomes active: it counts on its links at once (keys depend on
 * the counts) and joins its class at the instant's solve, once every start
 * and end of the instant has changed the counts. */
int cls_join(struct sim_net *net, int id, struct plumb_err *err)
{
	struct flow *f = &net->flows[id];
	int i;

	(void)err;
	for (i = 0; i < f->plen; i++) {
		struct lcount *l = &net->lcnt[f->path[i]];

		/* the link turns shared: its other flow changes key */
		if (l->nact == 1)
			set_dirty(net, l->xid);
		if (l->nact < 2 && l->nact + f->w >= 2)
			shl_add(net, f->path[i]);
		l->nact += f->w;
		l->xid ^= id;
	}
	set_dirty(net, id);
	return 0;
}

static void cls_leave(struct sim_net *net, int id, double now)
{
	struct flow *f = &net->flows[id];
	int i;

	cls_remove(net, id, now);
	f->dirty = 0;           /* a stale entry in net->dirty is skipped */
	for (i = 0; i < f->plen; i++) {
		struct lcount *l = &net->lcnt[f->path[i]];

		l->xid ^= id;
		/* the link turns unshared: its last flow changes key */
		if ((l->nact -= f->w) == 1)
			set_dirty(net, l->xid);
		if (l->nact < 2 && l->nact + f->w >= 2)
			shl_drop(net, f->path[i]);
	}
}

/* (Re)queue class ci's event at t, for its present head. */
static int cls_schedule(struct sim_net *net, int ci, double t,
			struct plumb_err *err)
{
	struct fclass *c = &net->cls[ci];
	struct sim_payload pl;

	c->ev_head = c->heap[0].id;
	c->ev_time = t;
	if (sim_reschedule(net->eng, c->ev, t))
		return 0;
	pl.i0 = ci;
	pl.i1 = c->gen;
	pl.p = NULL;
	return sim_at(net->eng, t, SIM_PRIO_DEFAULT, net->kind_done, &pl,
		      &c->ev, err);
}

/* The event of class ev->pl.i0 (payload: class, generation): its head
 * completes, or, when the event came early (the class slowed down after
 * it was queued, or its head changed), it is queued again for the head's
 * completion. */
int cls_complete(struct sim_net *net, const struct sim_event *ev,
		 struct plumb_err *err)
{
	double now = sim_now(net->eng), t;
	int ci = (int)ev->pl.i0, id, rc;
	uint32_t gen = (uint32_t)ev->pl.i1;
	struct fclass *c = &net->cls[ci];

	assert(c->act_idx >= 0 && c->gen == gen && c->n > 0);
	c->ev = SIM_HANDLE_NONE;
	id = c->heap[0].id;
	t = tag_time(c, c->heap[0].tag);
	if (t > now)
		return isinf(t) ? 0 : cls_schedule(net, ci, t, err);
	flow_act_remove(net, id);
	cls_leave(net, id, now);
	c = &net->cls[ci];
	if (c->act_idx >= 0 && c->gen == gen &&
	    tag_time(c, c->heap[0].tag) <= now &&
	    (rc = cls_schedule(net, ci, now, err)) < 0)
		return rc;
	if ((rc = flow_mark_dirty(net, err)) < 0)
		return rc;
	return flow_finish(net, id, err);
}

/* ---- the re-solve ---------------------------------------------------------- */

/*
 * Progressive filling over the live classes (flow.h), a class weighing its
 * members: per round, level m = least link share rc / n and class cap;
 * freeze every class at a cap or across a link within SHARE_EPS of m.
 * Leaves the previous rate in old_rate.
 */
static void fill(struct sim_net *net)
{
	struct sim_stats *st = sim_stats_mut(net->eng);
	struct link *links = net->links;
	int *uc = net->uf;
	int i, j, nfz, nt = net->nshl, nuc = net->nlive;

	for (i = 0; i < net->nlive; i++) {
		struct fclass *c = &net->cls[net->cact[i]];

		c->old_rate = c->rate;
		uc[i] = net->cact[i];
	}
	/* the live classes' links are the shared links, each crossed by
	 * its active flows (nact, copies counting), all unfrozen; the
	 * order of the list does not matter (it only gives a least share) */
	for (i = 0; i < nt; i++) {
		struct link *l = &links[net->shl[i]];

		l->rc = l->cap;
		l->n = net->lcnt[net->shl[i]].nact;
		net->touched[i] = net->shl[i];
	}
	while (nuc > 0) {
		double m = INFINITY, thr;
		int k;

		st->resolve_rounds++;
		for (i = k = 0; i < nt; i++) {
			struct link *l = &links[net->touched[i]];
			if (l->n == 0)
				continue;
			net->touched[k++] = net->touched[i];
			l->share = l->rc > 0 ? l->rc / l->n : 0;
			if (l->share < m)
				m = l->share;
		}
		nt = k;
		for (i = 0; i < nuc; i++) {
			const struct fclass *c = &net->cls[uc[i]];
			if (c->cap > 0 && c->cap < m)
				m = c->cap;
		}
		assert(isfinite(m) && m > 0);
		thr = m * (1 + SHARE_EPS);
		/* freeze: a class at its cap or across a saturated link (a
		 * link of an unfrozen class has n > 0, so its share is this
		 * round's); a frozen class is marked ~ci in uc */
		for (i = nfz = 0; i < nuc; i++) {
			struct fclass *c = &net->cls[uc[i]];
			int hit = c->cap > 0 && c->cap <= thr;

			for (j = 0; !hit && j < c->nl; j++)
				hit = links[c->links[j]].share <= thr;
			if (!hit)
				continue;
			c->rate = (c->cap > 0 && c->cap < m) ? c->cap : m;
			uc[i] = ~uc[i];
			nfz++;
		}
		assert(nfz > 0);        /* every round freezes a class */
		if (nfz == nuc)
			break;          /* the last round: no link is read again */
		/* take the frozen classes off their links, in list order (the
		 * order of the subtractions is that of the rounding) */
		for (i = k = 0; i < nuc; i++) {
			struct fclass *c;

			if (uc[i] >= 0) {
				uc[k++] = uc[i];
				continue;
			}
			c = &net->cls[~uc[i]];
			for (j = 0; j < c->nl; j++) {
				struct link *l = &links[c->links[j]];
				l->rc -= c->rate * c->w;
				l->n -= c->w;
			}
		}
		nuc = k;
	}
}

int cls_solve(struct sim_net *net, struct plumb_err *err)
{
	double now = sim_now(net->eng);
	int i, rc;

	/* flows that started, and flows whose key a start or an end changed */
	for (i = 0; i < net->ndirty; i++) {
		int id = net->dirty[i];

		if (!net->flows[id].dirty)
			continue;
		net->flows[id].dirty = 0;
		if (net->flows[id].state == FLOW_ACTIVE &&
		    (rc = cls_place(net, id, now, err)) < 0)
			return rc;
	}
	net->ndirty = 0;
	sim_stats_mut(net->eng)->resolve_classes += (uint64_t)net->nlive;
	fill(net);
	for (i = 0; i < net->nlive; i++) {
		int ci = net->cact[i];
		struct fclass *c = &net->cls[ci];
		double t;

		if (c->rate != c->old_rate) {
			/* the clock ran at the old rate until now */
			c->v0 += c->old_rate * (now - c->t0);
			c->t0 = now;
		} else if (c->ev != SIM_HANDLE_NONE &&
			   c->ev_head == c->heap[0].id) {
			continue;       /* same rate, same head: same time */
		}
		t = tag_time(c, c->heap[0].tag);
		if (t < now)
			t = now;
		/* an event that comes early stays: it queues itself again
		 * when it runs, which costs less than moving it at every
		 * solve that slows the class down */
		if (c->ev != SIM_HANDLE_NONE && c->ev_time <= t) {
			c->ev_head = c->heap[0].id;
			continue;
		}
		if ((rc = cls_schedule(net, ci, t, err)) < 0)
			return rc;
	}
	return 0;
}

/* ---- for the checks (flow_class_check.c) ------------------------------- */

int cls_key_of(const struct sim_net *net, const struct flow *f, int *buf,
	       double *cap)
{
	return flow_key(net, f, buf, cap);
}

int cls_key_is(const struct fclass *c, const int *links, int n, double cap)
{
	return key_equal(c, links, n, cap);
}

int cls_hent_before(const struct hent *a, const struct hent *b)
{
	return before(a, b);
}

/* ---- cleanup ---------------------------------------------------------------- */

void cls_free_all(struct sim_net *net)
{
	int i;

	for (i = 0; i < net->ncls; i++) {
		free(net->cls[i].links);
		free(net->cls[i].heap);
	}
	free(net->cls);
	free(net->cact);
	free(net->bucket);
}
