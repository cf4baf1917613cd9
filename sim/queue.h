/*
 * queue.h - the pending-event set of the discrete-event engine.
 *
 * ORDER RULE (the whole engine's determinism rests on it):
 *   events leave the queue in increasing (time, priority, sequence) order:
 *     1. earlier time first (double seconds, compared with <; NaN is a bug);
 *     2. at equal time, smaller priority first (an int; negative is allowed);
 *     3. at equal time and priority, smaller sequence first, where the
 *        sequence is a uint64 the queue assigns at push time from a counter
 *        that only grows: ties are first-in, first-out.
 *   No key depends on an address, a hash or a wall clock, so the same pushes
 *   always pop in the same order.
 *
 * This is the queue's whole interface: the engine reaches the data structure
 * only through these functions, so a calendar queue or a ladder queue could
 * replace the binary heap in queue.c without touching any other file.
 *
 * Implementation (queue.c): a binary min-heap of small keys (time, priority,
 * sequence, slot) over a slot array that holds the events themselves. Both
 * arrays grow by doubling and are reused, so a push costs no malloc once the
 * queue has reached its working size.
 *
 * Rescheduling is in place: every queued slot knows its key's heap index,
 * so sim_queue_reschedule() moves a pending event to a new time by sifting
 * its key up or down (the flow network's completions move at every rate
 * change).
 *
 * Cancellation is lazy: sim_queue_cancel() marks the event's slot and leaves
 * its key in the heap; pop and peek discard marked keys when they reach the
 * top. When marked keys outnumber live ones (and the heap holds more than 16
 * keys), the heap is rebuilt without them in O(n), so memory stays within
 * twice the live set however many events are cancelled.
 *
 * Handles: a push returns a handle (slot index and generation). A slot's
 * generation changes whenever its event leaves the queue, so a stale handle
 * (event already popped or cancelled) is recognised and cancel returns 0.
 * Handle 0 (SIM_HANDLE_NONE) is never issued.
 */
#ifndef PLUMB_SIM_QUEUE_H
#define PLUMB_SIM_QUEUE_H

#include <stdint.h>
#include <stddef.h>

/* Opaque reference to a pending event; 0 means "none". */
typedef uint64_t sim_handle;
#define SIM_HANDLE_NONE ((sim_handle)0)

/* Small payload carried by every event; its meaning belongs to the handler. */
struct sim_payload {
	int64_t i0, i1;
	void *p;
};

struct sim_event {
	double time;           /* seconds since the start of the simulation */
	int prio;              /* tie-break at equal time: smaller runs first */
	int kind;              /* handler id (index in the engine's registry) */
	uint64_t seq;          /* assigned by sim_queue_push(); input ignored */
	struct sim_payload pl;
};

/* Heap key; the order rule above is the comparison of these. */
struct sim_qkey {
	double time;
	int prio;
	uint32_t slot;
	uint64_t seq;
};

struct sim_qslot {
	struct sim_event ev;
	uint32_t gen;          /* bumped whenever the slot is released */
	uint32_t state;        /* free, live or cancelled (queue.c) */
	uint32_t next_free;
	uint32_t pos;          /* index of its key in the heap while queued */
};

/*
 * Embed it in another struct and use _init/_release. The fields are public
 * only so the struct can be embedded; read them through the functions.
 */
struct sim_queue {
	struct sim_qkey *heap;
	size_t n, cap;          /* keys in heap (live + cancelled), capacity */
	struct sim_qslot *slots;
	uint32_t nslots, capslots, free_head;
	size_t live;            /* events not cancelled */
	uint64_t next_seq;
	uint64_t ncancelled;    /* statistics: cancels that hit a live event */
};

/* Set q empty. Allocates nothing. */
void sim_queue_init(struct sim_queue *q);

/* Free q's arrays; q becomes empty and reusable. NULL is a no-op. */
void sim_queue_release(struct sim_queue *q);

/*
 * Insert a copy of *ev (time, prio, kind, pl; ev->seq is ignored and
 * overwritten in the stored copy). If h is not NULL it receives the handle.
 * Returns 0, or -1 when memory runs out (q is unchanged then).
 * O(log n); amortised O(1) memory work.
 */
int sim_queue_push(struct sim_queue *q, const struct sim_event *ev,
		   sim_handle *h);

/*
 * Remove the first live event (order rule above) into *out.
 * Returns 1, or 0 when no live event is pending (*out untouched).
 * O(log n) amortised (cancelled keys met on the way are dropped).
 */
int sim_queue_pop(struct sim_queue *q, struct sim_event *out);

/*
 * Time of the first live event into *t without removing it.
 * Returns 1, or 0 when empty. Drops cancelled keys it finds at the top.
 */
int sim_queue_peek_time(struct sim_queue *q, double *t);

/*
 * Cancel the event behind h. Returns 1 when it was pending and is now
 * cancelled, 0 when h is SIM_HANDLE_NONE, already popped or cancelled.
 * O(1), plus an occasional O(n) compaction (see above).
 */
int sim_queue_cancel(struct sim_queue *q, sim_handle h);

/*
 * Move the pending event behind h to `time` in place: its key becomes the
 * one a cancel and a push of the same event would give it (the time, the
 * event's priority, the next sequence), so the pop order is exactly theirs,
 * without a cancelled key left in the heap. h stays valid. Returns 1, or 0
 * (nothing done) when h is SIM_HANDLE_NONE, popped or cancelled. O(log n).
 */
int sim_queue_reschedule(struct sim_queue *q, sim_handle h, double time);

/* Number of live (pending, not cancelled) events. */
size_t sim_queue_size(const struct sim_queue *q);

/*
 * Walk every invariant (heap order, slot states, live count, handles'
 * sequences). Returns 0, or -1 when one is broken. O(n); for tests.
 */
int sim_queue_check(const struct sim_queue *q);

/* Time of the earliest key in the heap, live or cancelled; +INFINITY when
 * the heap is empty. O(1); for invariant checks. */
double sim_queue_min_key_time(const struct sim_queue *q);

#endif
