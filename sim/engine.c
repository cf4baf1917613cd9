/*
 * engine.c - clock, run loop, handler registry and random streams.
 *
 * Invariants: now never decreases; every queued event has time >= now and a
 * registered kind; stats.events <= budget whenever budget != 0.
 */
#include "engine.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

struct rng_entry {
	uint64_t entity;
	gsl_rng *r;             /* NULL: empty entry */
};

struct sim_engine {
	double now;
	uint64_t seed;
	struct sim_queue q;
	struct sim_stats stats;
	uint64_t budget;
	int stop;

	const struct sim_ops **ops;
	void **ctx;
	int nkinds, capkinds;

	struct rng_entry *rngs;
	size_t nrngs, caprngs;  /* caprngs is 0 or a power of two */

	sim_trace_fn trace;
	void *trace_ctx;

	/* sim_at_instant_end(): events of the current instant that run after
	 * every queued one at that time, first asked first run */
	struct sim_event *late;
	size_t late_head, nlate, caplate;
};

static uint64_t splitmix64(uint64_t x)
{
	uint64_t z = x + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sim_seed_mix(uint64_t seed, uint64_t entity)
{
	return splitmix64(seed ^ splitmix64(entity));
}

int sim_engine_new(uint64_t seed, struct sim_engine **out,
		   struct plumb_err *err)
{
	struct sim_engine *eng = calloc(1, sizeof(*eng));

	*out = NULL;
	if (!eng)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "out of memory creating the engine");
	eng->seed = seed;
	eng->budget = SIM_DEFAULT_BUDGET;
	sim_queue_init(&eng->q);
	*out = eng;
	return 0;
}

void sim_engine_free(struct sim_engine *eng)
{
	size_t i;

	if (!eng)
		return;
	sim_queue_release(&eng->q);
	for (i = 0; i < eng->caprngs; i++)
		if (eng->rngs[i].r)
			gsl_rng_free(eng->rngs[i].r);
	free(eng->rngs);
	free(eng->ops);
	free(eng->ctx);
	free(eng->late);
	free(eng);
}

int sim_register(struct sim_engine *eng, const struct sim_ops *ops, void *ctx,
		 int *kind, struct plumb_err *err)
{
	assert(ops && ops->handle);
	if (eng->nkinds == eng->capkinds) {
		int ncap = eng->capkinds ? eng->capkinds * 2 : 8;
		const struct sim_ops **nops;
		void **nctx;

		nops = realloc(eng->ops, (size_t)ncap * sizeof(*nops));
		if (!nops)
			goto oom;
		eng->ops = nops;
		nctx = realloc(eng->ctx, (size_t)ncap * sizeof(*nctx));
		if (!nctx)
			goto oom;
		eng->ctx = nctx;
		eng->capkinds = ncap;
	}
	eng->ops[eng->nkinds] = ops;
	eng->ctx[eng->nkinds] = ctx;
	*kind = eng->nkinds++;
	return 0;
oom:
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
			     "out of memory registering handler '%s'",
			     ops->name ? ops->name : "?");
}

double sim_now(const struct sim_engine *eng)
{
	return eng->now;
}

uint64_t sim_seed(const struct sim_engine *eng)
{
	return eng->seed;
}

const char *sim_kind_name(const struct sim_engine *eng, int kind)
{
	if (kind < 0 || kind >= eng->nkinds || !eng->ops[kind]->name)
		return "?";
	return eng->ops[kind]->name;
}

int sim_at(struct sim_engine *eng, double t, int prio, int kind,
	   const struct sim_payload *pl, sim_handle *h, struct plumb_err *err)
{
	struct sim_event ev;

	assert(t >= eng->now);          /* also rejects NaN */
	assert(kind >= 0 && kind < eng->nkinds);
	ev.time = t;
	ev.prio = prio;
	ev.kind = kind;
	ev.seq = 0;
	if (pl) {
		ev.pl = *pl;
	} else {
		ev.pl.i0 = ev.pl.i1 = 0;
		ev.pl.p = NULL;
	}
	if (sim_queue_push(&eng->q, &ev, h) < 0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "out of memory scheduling a '%s' event "
				     "(%zu pending)", sim_kind_name(eng, kind),
				     sim_queue_size(&eng->q));
	eng->stats.scheduled++;
	if (eng->q.live > eng->stats.peak_pending)
		eng->stats.peak_pending = eng->q.live;
	return 0;
}

int sim_at_instant_end(struct sim_engine *eng, int kind,
		       const struct sim_payload *pl, struct plumb_err *err)
{
	struct sim_event *ev;

	assert(kind >= 0 && kind < eng->nkinds);
	if (eng->nlate == eng->caplate) {
		size_t ncap = eng->caplate ? 2 * eng->caplate : 8;
		struct sim_event *nl = realloc(eng->late, ncap * sizeof(*nl));

		if (!nl)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					     "out of memory scheduling a '%s' "
					     "event", sim_kind_name(eng, kind));
		eng->late = nl;
		eng->caplate = ncap;
	}
	ev = &eng->late[eng->nlate++];
	ev->time = eng->now;
	ev->prio = SIM_PRIO_LAST;
	ev->kind = kind;
	ev->seq = 0;
	if (pl) {
		ev->pl = *pl;
	} else {
		ev->pl.i0 = ev->pl.i1 = 0;
		ev->pl.p = NULL;
	}
	return 0;
}

int sim_after(struct sim_engine *eng, double delay, int prio, int kind,
	      const struct sim_payload *pl, sim_handle *h,
	      struct plumb_err *err)
{
	assert(delay >= 0);
	return sim_at(eng, eng->now + delay, prio, kind, pl, h, err);
}

int sim_cancel(struct sim_engine *eng, sim_handle h)
{
	int hit = sim_queue_cancel(&eng->q, h);

	eng->stats.cancelled += (uint64_t)hit;
	return hit;
}

int sim_reschedule(struct sim_engine *eng, sim_handle h, double t)
{
	int hit;

	assert(t >= eng->now);          /* also rejects NaN */
	hit = sim_queue_reschedule(&eng->q, h, t);
	/* counted as the cancel and the schedule it stands for */
	eng->stats.cancelled += (uint64_t)hit;
	eng->stats.scheduled += (uint64_t)hit;
	return hit;
}

int sim_run(struct sim_engine *eng, double t_end, struct plumb_err *err)
{
	struct sim_event ev;
	double t;

	assert(!(t_end < eng->now));
	eng->stop = 0;
	for (;;) {
		int have = sim_queue_peek_time(&eng->q, &t), rc;
		/* the instant's late events run once no queued event is left
		 * at its time */
		int late = eng->late_head < eng->nlate &&
			   (!have || t > eng->now);

		if (!late && (!have || t > t_end))
			break;

		if (eng->budget && eng->stats.events >= eng->budget)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				"simulation exceeded its event budget of %llu "
				"events (at t=%.9g s, %zu events pending); the "
				"run is too large or the model reschedules itself "
				"forever",
				(unsigned long long)eng->budget, eng->now,
				sim_pending(eng));
		if (late) {
			ev = eng->late[eng->late_head++];
			if (eng->late_head == eng->nlate)
				eng->late_head = eng->nlate = 0;
		} else {
			sim_queue_pop(&eng->q, &ev);
			assert(ev.time >= eng->now);
			eng->now = ev.time;
		}
		eng->stats.events++;
		if (eng->trace)
			eng->trace(eng->trace_ctx, &ev);
		rc = eng->ops[ev.kind]->handle(eng, eng->ctx[ev.kind], &ev,
					       err);
		if (rc < 0)
			return rc;
		if (eng->stop)
			return 0;
	}
	if (isfinite(t_end))
		eng->now = t_end;
	return 0;
}

void sim_stop(struct sim_engine *eng)
{
	eng->stop = 1;
}

void sim_set_budget(struct sim_engine *eng, uint64_t max_events)
{
	eng->budget = max_events;
}

void sim_set_trace(struct sim_engine *eng, sim_trace_fn fn, void *ctx)
{
	eng->trace = fn;
	eng->trace_ctx = ctx;
}

const struct sim_stats *sim_stats(const struct sim_engine *eng)
{
	return &eng->stats;
}

struct sim_stats *sim_stats_mut(struct sim_engine *eng)
{
	return &eng->stats;
}

int sim_check(const struct sim_engine *eng, struct plumb_err *err)
{
	if (sim_queue_check(&eng->q) < 0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "event queue invariant broken");
	if (sim_queue_min_key_time(&eng->q) < eng->now)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "pending event at t=%.17g before the "
				     "clock t=%.17g",
				     sim_queue_min_key_time(&eng->q), eng->now);
	if (eng->budget && eng->stats.events > eng->budget)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "%llu events handled, over the budget "
				     "of %llu",
				     (unsigned long long)eng->stats.events,
				     (unsigned long long)eng->budget);
	return 0;
}

size_t sim_pending(const struct sim_engine *eng)
{
	return sim_queue_size(&eng->q) + (eng->nlate - eng->late_head);
}

/* Slot for entity in a table of capacity cap (power of two, not full). */
static size_t rng_find(const struct rng_entry *tab, size_t cap,
		       uint64_t entity)
{
	size_t mask = cap - 1, i = (size_t)splitmix64(entity) & mask;

	while (tab[i].r && tab[i].entity != entity)
		i = (i + 1) & mask;
	return i;
}

static int rng_grow(struct sim_engine *eng)
{
	size_t ncap = eng->caprngs ? eng->caprngs * 2 : 16, i;
	struct rng_entry *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -1;
	for (i = 0; i < eng->caprngs; i++)
		if (eng->rngs[i].r)
			nt[rng_find(nt, ncap, eng->rngs[i].entity)] =
				eng->rngs[i];
	free(eng->rngs);
	eng->rngs = nt;
	eng->caprngs = ncap;
	return 0;
}

int sim_rng(struct sim_engine *eng, uint64_t entity, gsl_rng **out,
	    struct plumb_err *err)
{
	size_t i;
	uint64_t z;
	gsl_rng *r;

	*out = NULL;
	if (eng->caprngs) {
		i = rng_find(eng->rngs, eng->caprngs, entity);
		if (eng->rngs[i].r) {
			*out = eng->rngs[i].r;
			return 0;
		}
	}
	/* keep the load factor at or below one half */
	if (2 * (eng->nrngs + 1) > eng->caprngs && rng_grow(eng) < 0)
		goto oom;
	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		goto oom;
	z = sim_seed_mix(eng->seed, entity);
	gsl_rng_set(r, (unsigned long)((z ^ (z >> 32)) & 0xffffffffULL));
	i = rng_find(eng->rngs, eng->caprngs, entity);
	eng->rngs[i].entity = entity;
	eng->rngs[i].r = r;
	eng->nrngs++;
	*out = r;
	return 0;
oom:
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
			     "out of memory creating the random stream of "
			     "entity %llu", (unsigned long long)entity);
}
