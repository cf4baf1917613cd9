/*
 * engine.h - the discrete-event engine: clock, event queue, handler
 * registry, per-entity random streams, statistics and an event budget.
 *
 * Everything lives in one struct sim_engine passed to every call; there is
 * no global state, so several engines can run side by side in one process
 * (one thread per engine at most: an engine is not itself thread-safe).
 *
 * Event order: the queue's rule (queue.h) - increasing (time, priority,
 * sequence assigned at scheduling). Priorities used by sim/ itself:
 * SIM_PRIO_DEFAULT for ordinary events. Work that must see every other
 * event of the same instant first (the flow re-solve) is queued with
 * sim_at_instant_end(): it runs once no queued event is left at the
 * current time, whatever their priorities, before the clock moves on.
 *
 * Handlers plug in through a const ops table registered once per model;
 * registration returns the event kind to put in scheduled events.
 *
 * Random streams: sim_rng(eng, entity) gives entity its own gsl_rng
 * (mt19937) seeded from (scenario seed, entity id) by sim_seed_mix() below,
 * so adding or removing one entity never changes another entity's draws,
 * and the order in which streams are first requested does not matter.
 *
 * Event budget: sim_run() fails with PLUMB_ERUNTIME once the engine has
 * processed its budget of events (SIM_DEFAULT_BUDGET, 100 million, unless
 * sim_set_budget() says otherwise), so a model that reschedules itself
 * forever stops with an error instead of running away.
 */
#ifndef PLUMB_SIM_ENGINE_H
#define PLUMB_SIM_ENGINE_H

#include <limits.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "err.h"
#include "queue.h"

#define SIM_DEFAULT_BUDGET 100000000ULL
#define SIM_PRIO_DEFAULT 0
#define SIM_PRIO_LAST INT_MAX

struct sim_engine;

/*
 * A model's handler table. `handle` runs one event of the kind it was
 * registered under; ctx is the pointer given to sim_register(). It returns 0,
 * or a negative plumb code after filling err, which stops sim_run() with that
 * code. `name` labels the kind in traces and error messages.
 */
struct sim_ops {
	const char *name;
	int (*handle)(struct sim_engine *eng, void *ctx,
		      const struct sim_event *ev, struct plumb_err *err);
};

/* Counters, all since sim_engine_new(). */
struct sim_stats {
	uint64_t events;          /* events handled (cancelled ones excluded) */
	uint64_t scheduled;       /* events pushed */
	uint64_t cancelled;       /* pending events cancelled */
	uint64_t resolves;        /* flow-rate re-solves (flow.c) */
	uint64_t resolve_rounds;  /* progressive-filling rounds over all solves */
	uint64_t resolve_flows;   /* active flows summed over all solves */
	uint64_t resolve_classes; /* flow classes summed over all solves (0
				     under the per-flow solver) */
	size_t peak_pending;      /* largest number of pending live events */
};

/* Called before each event is handled (optional; for traces and tests). */
typedef void (*sim_trace_fn)(void *ctx, const struct sim_event *ev);

/*
 * Create an engine at time 0 with the scenario's random seed.
 * *out receives it (caller frees with sim_engine_free), NULL on failure.
 * Returns 0 or -PLUMB_ERUNTIME (out of memory).
 */
int sim_engine_new(uint64_t seed, struct sim_engine **out,
		   struct plumb_err *err);

/* Free eng, its queue and its random streams. NULL is a no-op. */
void sim_engine_free(struct sim_engine *eng);

/*
 * Register a handler table. ops must outlive eng (normally a static const);
 * ctx is passed back to ops->handle unchanged and stays owned by the caller.
 * *kind receives the event kind. Returns 0 or -PLUMB_ERUNTIME.
 */
int sim_register(struct sim_engine *eng, const struct sim_ops *ops, void *ctx,
		 int *kind, struct plumb_err *err);

/* Current simulated time (seconds). */
double sim_now(const struct sim_engine *eng);

/* The scenario seed given to sim_engine_new(). */
uint64_t sim_seed(const struct sim_engine *eng);

/*
 * Schedule an event of `kind` at absolute time t (t >= sim_now(); earlier is
 * a bug and aborts) with priority prio and payload *pl (copied; NULL means
 * all zero). *h (if not NULL) receives a handle for sim_cancel().
 * Returns 0 or -PLUMB_ERUNTIME (out of memory). O(log pending).
 */
int sim_at(struct sim_engine *eng, double t, int prio, int kind,
	   const struct sim_payload *pl, sim_handle *h, struct plumb_err *err);

/*
 * Queue an event of `kind` (payload *pl copied, NULL all zero) at the
 * current time, to run after every event queued at this time - whatever
 * its priority, and also those queued later in this instant - and before
 * the clock moves on. Several such events run in the order asked; one may
 * queue events at the current time, which then run before the next one.
 * It is handled, traced and counted like any event (its trace shows
 * priority SIM_PRIO_LAST and sequence 0) but has no handle and cannot be
 * cancelled. Returns 0 or -PLUMB_ERUNTIME (out of memory). O(1): no queue
 * work, which is its reason to be (the flow network asks one per instant
 * that changes its flows).
 */
int sim_at_instant_end(struct sim_engine *eng, int kind,
		       const struct sim_payload *pl, struct plumb_err *err);

/* sim_at(eng, sim_now(eng) + delay, ...); delay >= 0. */
int sim_after(struct sim_engine *eng, double delay, int prio, int kind,
	      const struct sim_payload *pl, sim_handle *h,
	      struct plumb_err *err);

/* Cancel a pending event. Returns 1 if it was pending, else 0. O(1). */
int sim_cancel(struct sim_engine *eng, sim_handle h);

/*
 * Move a pending event to absolute time t (t >= sim_now()), keeping its
 * kind, priority, payload and handle: the same order as sim_cancel() then
 * sim_at() of that event (it takes the next sequence), done in place.
 * Statistics count it as that cancel and that schedule. Returns 1, or 0
 * when h is not pending (nothing done). O(log pending), no allocation.
 */
int sim_reschedule(struct sim_engine *eng, sim_handle h, double t);

/*
 * Handle events in order while the next one is at time <= t_end (pass
 * INFINITY to run until the queue is empty). The clock moves to each
 * event's time; when the run ends because the next event lies beyond t_end
 * (or none is left) and t_end is finite, the clock moves to t_end.
 * Returns 0; a handler's negative code (its err is kept); or
 * -PLUMB_ERUNTIME when the event budget is exhausted. A handler may call
 * sim_stop() to make sim_run() return 0 after that event, clock unchanged.
 * Cost per event: one heap pop (O(log pending)) plus the handler.
 * Not re-entrant: a handler must not call sim_run() on its own engine.
 */
int sim_run(struct sim_engine *eng, double t_end, struct plumb_err *err);

/* Ask sim_run() to return after the current event. */
void sim_stop(struct sim_engine *eng);

/* Maximum events handled over the engine's life; 0 means no limit. */
void sim_set_budget(struct sim_engine *eng, uint64_t max_events);

/* Install (or with fn NULL remove) a trace hook. ctx stays the caller's. */
void sim_set_trace(struct sim_engine *eng, sim_trace_fn fn, void *ctx);

/* Name of a registered kind ("?" when unknown). */
const char *sim_kind_name(const struct sim_engine *eng, int kind);

/* Statistics; the pointer stays valid for the engine's life. */
const struct sim_stats *sim_stats(const struct sim_engine *eng);

/* Writable statistics, for sim/ modules that count their own work. */
struct sim_stats *sim_stats_mut(struct sim_engine *eng);

/*
 * Walk the engine's invariants: the queue's (sim_queue_check) and no
 * pending event earlier than the clock. Returns 0 or -PLUMB_ERUNTIME naming
 * the broken one. O(pending); meant for tests, e.g. from a trace hook.
 */
int sim_check(const struct sim_engine *eng, struct plumb_err *err);

/* Number of pending (live, not cancelled) events, those of
 * sim_at_instant_end() included. */
size_t sim_pending(const struct sim_engine *eng);

/*
 * The random stream of `entity`, created on first use and seeded with
 * sim_seed_mix(seed, entity). Owned by eng (freed by sim_engine_free; do not
 * gsl_rng_free it). *out is NULL on failure. Returns 0 or -PLUMB_ERUNTIME.
 * O(1) expected (open-addressing table).
 */
int sim_rng(struct sim_engine *eng, uint64_t entity, gsl_rng **out,
	    struct plumb_err *err);

/*
 * The stream seed of an entity: z = splitmix64(seed ^ splitmix64(entity)),
 * where splitmix64(x) is the SplitMix64 output function applied to
 * x + 0x9e3779b97f4a7c15 (Steele, Lea, Flood 2014). mt19937 keeps 32 bits of
 * its seed, so the stream is seeded with (z ^ (z >> 32)) & 0xffffffff.
 */
uint64_t sim_seed_mix(uint64_t seed, uint64_t entity);

#endif
