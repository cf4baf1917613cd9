/*
 * queue.c - binary min-heap behind the sim_queue_ interface (queue.h).
 *
 * Invariants:
 *   - heap[0..n) is a min-heap under key_less() (the order rule of queue.h);
 *   - every heap key names a slot in state LIVE or CANCELLED, and every such
 *     slot is named by exactly one key;
 *   - live == number of LIVE slots; free slots form a list from free_head;
 *   - a slot in the heap knows its key's index (pos), so a live event can
 *     move in place (sim_queue_reschedule);
 *   - sequences are unique, so key_less() is a strict total order and the
 *     pop order does not depend on the heap's layout (compaction may reshape
 *     the heap without changing what pops next).
 */
#include "queue.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

enum { SLOT_FREE = 0, SLOT_LIVE = 1, SLOT_CANCELLED = 2 };

#define NO_SLOT UINT32_MAX
#define COMPACT_MIN 16

static int key_less(const struct sim_qkey *a, const struct sim_qkey *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->prio != b->prio)
		return a->prio < b->prio;
	return a->seq < b->seq;
}

void sim_queue_init(struct sim_queue *q)
{
	q->heap = NULL;
	q->n = q->cap = 0;
	q->slots = NULL;
	q->nslots = q->capslots = 0;
	q->free_head = NO_SLOT;
	q->live = 0;
	q->next_seq = 0;
	q->ncancelled = 0;
}

void sim_queue_release(struct sim_queue *q)
{
	if (!q)
		return;
	free(q->heap);
	free(q->slots);
	sim_queue_init(q);
}

size_t sim_queue_size(const struct sim_queue *q)
{
	return q->live;
}

/* Put key k at heap index i and tell its slot where it is. */
static void place(struct sim_queue *q, size_t i, const struct sim_qkey *k)
{
	q->heap[i] = *k;
	q->slots[k->slot].pos = (uint32_t)i;
}

static void sift_up(struct sim_queue *q, size_t i)
{
	struct sim_qkey *heap = q->heap, k = heap[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!key_less(&k, &heap[parent]))
			break;
		place(q, i, &heap[parent]);
		i = parent;
	}
	place(q, i, &k);
}

static void sift_down(struct sim_queue *q, size_t n, size_t i)
{
	struct sim_qkey *heap = q->heap, k = heap[i];

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && key_less(&heap[c + 1], &heap[c]))
			c++;
		if (!key_less(&heap[c], &k))
			break;
		place(q, i, &heap[c]);
		i = c;
	}
	place(q, i, &k);
}

static void slot_release(struct sim_queue *q, uint32_t s)
{
	struct sim_qslot *sl = &q->slots[s];

	sl->gen++;
	if (sl->gen == 0)       /* keep handles non-zero after wrap-around */
		sl->gen = 1;
	sl->state = SLOT_FREE;
	sl->next_free = q->free_head;
	q->free_head = s;
}

/* Remove heap[0] (whatever its state); the caller handles its slot. */
static void heap_remove_top(struct sim_queue *q)
{
	assert(q->n > 0);
	q->n--;
	if (q->n > 0) {
		q->heap[0] = q->heap[q->n];
		sift_down(q, q->n, 0);
	}
}

static int grow_slots(struct sim_queue *q)
{
	uint32_t ncap = q->capslots ? q->capslots * 2 : 64;
	struct sim_qslot *ns;

	if (ncap <= q->capslots || ncap == NO_SLOT)
		return -1;
	ns = realloc(q->slots, (size_t)ncap * sizeof(*ns));
	if (!ns)
		return -1;
	q->slots = ns;
	q->capslots = ncap;
	return 0;
}

static int grow_heap(struct sim_queue *q)
{
	size_t ncap = q->cap ? q->cap * 2 : 64;
	struct sim_qkey *nh = realloc(q->heap, ncap * sizeof(*nh));

	if (!nh)
		return -1;
	q->heap = nh;
	q->cap = ncap;
	return 0;
}

int sim_queue_push(struct sim_queue *q, const struct sim_event *ev,
		   sim_handle *h)
{
	uint32_t s;
	struct sim_qslot *sl;
	struct sim_qkey *k;

	assert(ev->time == ev->time);   /* NaN time is a caller bug */
	if (q->n == q->cap && grow_heap(q) < 0)
		return -1;
	if (q->free_head == NO_SLOT) {
		if (q->nslots == q->capslots && grow_slots(q) < 0)
			return -1;
		s = q->nslots++;
		q->slots[s].gen = 1;
	} else {
		s = q->free_head;
		q->free_head = q->slots[s].next_free;
	}
	sl = &q->slots[s];
	sl->ev = *ev;
	sl->ev.seq = q->next_seq++;
	sl->state = SLOT_LIVE;
	k = &q->heap[q->n];
	k->time = ev->time;
	k->prio = ev->prio;
	k->seq = sl->ev.seq;
	k->slot = s;
	q->n++;
	sift_up(q, q->n - 1);
	q->live++;
	if (h)
		*h = ((uint64_t)sl->gen << 32) | s;
	return 0;
}

int sim_queue_pop(struct sim_queue *q, struct sim_event *out)
{
	while (q->n > 0) {
		uint32_t s = q->heap[0].slot;
		struct sim_qslot *sl = &q->slots[s];

		heap_remove_top(q);
		if (sl->state == SLOT_LIVE) {
			*out = sl->ev;
			q->live--;
			slot_release(q, s);
			return 1;
		}
		assert(sl->state == SLOT_CANCELLED);
		slot_release(q, s);
	}
	return 0;
}

int sim_queue_peek_time(struct sim_queue *q, double *t)
{
	while (q->n > 0) {
		uint32_t s = q->heap[0].slot;

		if (q->slots[s].state == SLOT_LIVE) {
			*t = q->heap[0].time;
			return 1;
		}
		heap_remove_top(q);
		slot_release(q, s);
	}
	return 0;
}

/* Drop every cancelled key and rebuild the heap bottom-up: O(n). */
static void compact(struct sim_queue *q)
{
	size_t i, m = 0;

	for (i = 0; i < q->n; i++) {
		uint32_t s = q->heap[i].slot;
		if (q->slots[s].state == SLOT_LIVE)
			q->heap[m++] = q->heap[i];
		else
			slot_release(q, s);
	}
	q->n = m;
	assert(m == q->live);
	for (i = 0; i < m; i++)
		q->slots[q->heap[i].slot].pos = (uint32_t)i;
	for (i = m / 2; i-- > 0;)
		sift_down(q, m, i);
}

int sim_queue_cancel(struct sim_queue *q, sim_handle h)
{
	uint32_t s = (uint32_t)(h & 0xffffffffu);
	uint32_t gen = (uint32_t)(h >> 32);
	struct sim_qslot *sl;

	if (h == SIM_HANDLE_NONE || s >= q->nslots)
		return 0;
	sl = &q->slots[s];
	if (sl->gen != gen || sl->state != SLOT_LIVE)
		return 0;
	sl->state = SLOT_CANCELLED;
	q->live--;
	q->ncancelled++;
	if (q->n > COMPACT_MIN && q->n - q->live > q->live)
		compact(q);
	return 1;
}

int sim_queue_reschedule(struct sim_queue *q, sim_handle h, double time)
{
	uint32_t s = (uint32_t)(h & 0xffffffffu);
	uint32_t gen = (uint32_t)(h >> 32);
	struct sim_qslot *sl;
	struct sim_qkey *k;
	size_t i;

	assert(time == time);
	if (h == SIM_HANDLE_NONE || s >= q->nslots)
		return 0;
	sl = &q->slots[s];
	if (sl->gen != gen || sl->state != SLOT_LIVE)
		return 0;
	/* The key a cancel and a push would leave: same time rule, the next
	 * sequence; moved up or down from where it is. */
	sl->ev.time = time;
	sl->ev.seq = q->next_seq++;
	i = sl->pos;
	k = &q->heap[i];
	assert(k->slot == s);
	k->time = time;
	k->seq = sl->ev.seq;
	if (i > 0 && key_less(k, &q->heap[(i - 1) / 2]))
		sift_up(q, i);
	else
		sift_down(q, q->n, i);
	return 1;
}

int sim_queue_check(const struct sim_queue *q)
{
	size_t i, live = 0;

	for (i = 0; i < q->n; i++) {
		const struct sim_qkey *k = &q->heap[i];
		const struct sim_qslot *sl;

		if (k->slot >= q->nslots)
			return -1;
		sl = &q->slots[k->slot];
		if (sl->state != SLOT_LIVE && sl->state != SLOT_CANCELLED)
			return -1;
		if (sl->ev.seq != k->seq || sl->ev.time != k->time ||
		    sl->ev.prio != k->prio || k->seq >= q->next_seq)
			return -1;
		if (i > 0 && key_less(k, &q->heap[(i - 1) / 2]))
			return -1;
		if (sl->pos != i)
			return -1;
		live += sl->state == SLOT_LIVE;
	}
	return live == q->live ? 0 : -1;
}

double sim_queue_min_key_time(const struct sim_queue *q)
{
	return q->n ? q->heap[0].time : INFINITY;
}
