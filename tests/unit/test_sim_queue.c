/*
 * test_sim_queue.c - the event queue's order rule, cancellation and
 * compaction (sim/queue.h).
 */
#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>

#include "queue.h"
#include "test_sim_int.h"

void suite_sim_queue(void);

static struct sim_event mk(double t, int prio, int tag)
{
	struct sim_event ev;

	ev.time = t;
	ev.prio = prio;
	ev.kind = 0;
	ev.seq = 0;
	ev.pl.i0 = tag;
	ev.pl.i1 = 0;
	ev.pl.p = NULL;
	return ev;
}

static int key_cmp(const struct sim_event *a, const struct sim_event *b)
{
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

static int qsort_cmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

/* time first, then priority, then FIFO among equal (time, priority) */
static void test_order(void)
{
	static const struct { double t; int prio; } in[] = {
		{ 2.0, 0 }, { 1.0, 5 }, { 1.0, -1 }, { 1.0, 5 }, { 1.0, 5 },
		{ 0.5, 100 }, { 2.0, 0 },
	};
	static const int want[] = { 5, 2, 1, 3, 4, 0, 6 };
	struct sim_queue q;
	struct sim_event ev;
	double t;
	size_t i;

	sim_queue_init(&q);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct sim_event e = mk(in[i].t, in[i].prio, (int)i);
		EXPECT_INT(sim_queue_push(&q, &e, NULL), 0);
	}
	EXPECT_INT(sim_queue_size(&q), 7);
	EXPECT_INT(sim_queue_peek_time(&q, &t), 1);
	EXPECT_TRUE(t == 0.5, "peek time = %g, expected 0.5", t);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		EXPECT_INT(sim_queue_pop(&q, &ev), 1);
		EXPECT_INT(ev.pl.i0, want[i]);
	}
	EXPECT_INT(sim_queue_pop(&q, &ev), 0);
	EXPECT_INT(sim_queue_peek_time(&q, &t), 0);
	sim_queue_release(&q);
	sim_queue_release(NULL);
}

static void test_cancel(void)
{
	struct sim_queue q;
	struct sim_event ev, e;
	sim_handle ha, hb, hc, hd;

	sim_queue_init(&q);
	e = mk(1, 0, 1);
	sim_queue_push(&q, &e, &ha);
	e = mk(2, 0, 2);
	sim_queue_push(&q, &e, &hb);
	e = mk(3, 0, 3);
	sim_queue_push(&q, &e, &hc);
	EXPECT_TRUE(ha != SIM_HANDLE_NONE && hb != SIM_HANDLE_NONE,
		    "handles must not be SIM_HANDLE_NONE");
	EXPECT_INT(sim_queue_cancel(&q, hb), 1);
	EXPECT_INT(sim_queue_cancel(&q, hb), 0);
	EXPECT_INT(sim_queue_size(&q), 2);
	EXPECT_INT(sim_queue_pop(&q, &ev), 1);
	EXPECT_INT(ev.pl.i0, 1);
	EXPECT_INT(sim_queue_cancel(&q, ha), 0);        /* already popped */
	/* a new event may reuse a's slot; a's stale handle must not hit it */
	e = mk(4, 0, 4);
	sim_queue_push(&q, &e, &hd);
	EXPECT_INT(sim_queue_cancel(&q, ha), 0);
	EXPECT_INT(sim_queue_cancel(&q, SIM_HANDLE_NONE), 0);
	EXPECT_INT(sim_queue_pop(&q, &ev), 1);
	EXPECT_INT(ev.pl.i0, 3);
	EXPECT_INT(sim_queue_cancel(&q, hc), 0);
	EXPECT_INT(sim_queue_cancel(&q, hd), 1);
	EXPECT_INT(sim_queue_pop(&q, &ev), 0);
	EXPECT_INT(sim_queue_size(&q), 0);
	EXPECT_INT(q.ncancelled, 2);
	sim_queue_release(&q);
}

/* Cancelling most events compacts the heap and keeps the order. */
static void test_compact(void)
{
	enum { N = 1000 };
	struct sim_queue q;
	sim_handle *h = malloc(N * sizeof(*h));
	struct sim_event ev, prev;
	int i, n = 0;

	sim_queue_init(&q);
	for (i = 0; i < N; i++) {
		struct sim_event e = mk((double)((i * 7919) % N), i % 3, i);
		sim_queue_push(&q, &e, &h[i]);
	}
	for (i = 0; i < N; i++)
		if (i % 10 != 0)
			EXPECT_INT(sim_queue_cancel(&q, h[i]), 1);
	EXPECT_INT(sim_queue_size(&q), N / 10);
	EXPECT_INT(sim_queue_check(&q), 0);
	EXPECT_TRUE(q.n <= 2 * sim_queue_size(&q) + 1,
		    "heap keeps %zu keys for %zu live events, expected at "
		    "most twice as many", q.n, sim_queue_size(&q));
	while (sim_queue_pop(&q, &ev)) {
		EXPECT_INT(ev.pl.i0 % 10, 0);
		if (n > 0)
			EXPECT_TRUE(key_cmp(&prev, &ev) < 0,
				    "pop %d out of order: (%g,%d,%llu) after "
				    "(%g,%d,%llu)", n, ev.time, ev.prio,
				    (unsigned long long)ev.seq, prev.time,
				    prev.prio, (unsigned long long)prev.seq);
		prev = ev;
		n++;
	}
	EXPECT_INT(n, N / 10);
	free(h);
	sim_queue_release(&q);
}

/*
 * Many random pushes (with ties and cancels) pop in exactly the order of a
 * sort of the survivors by (time, priority, sequence).
 */
static void test_random_sorted(void)
{
	enum { N = 20000 };
	struct sim_queue q;
	struct sim_event *ref = malloc(N * sizeof(*ref));
	sim_handle *h = malloc(N * sizeof(*h));
	char *dead = calloc(N, 1);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct sim_event ev;
	int i, nref = 0, bad = 0;

	gsl_rng_set(r, 12345);
	sim_queue_init(&q);
	for (i = 0; i < N; i++) {
		/* coarse times and few priorities force many ties */
		struct sim_event e = mk((double)gsl_rng_uniform_int(r, 100) / 8,
					(int)gsl_rng_uniform_int(r, 4) - 1, i);
		sim_queue_push(&q, &e, &h[i]);
		e.seq = (uint64_t)i;    /* the queue numbers pushes 0, 1, ... */
		ref[i] = e;
		if (i > 0 && gsl_rng_uniform(r) < 0.3) {
			int victim = (int)gsl_rng_uniform_int(r, (unsigned long)i);
			int hit = sim_queue_cancel(&q, h[victim]);
			EXPECT_INT(hit, !dead[victim]);
			dead[victim] = 1;
		}
		if (i % 1000 == 0)
			EXPECT_INT(sim_queue_check(&q), 0);
	}
	for (i = 0; i < N; i++)
		if (!dead[i])
			ref[nref++] = ref[i];
	qsort(ref, (size_t)nref, sizeof(*ref), qsort_cmp);
	EXPECT_INT(sim_queue_size(&q), nref);
	for (i = 0; i < nref && sim_queue_pop(&q, &ev); i++)
		if (!bad && (ev.pl.i0 != ref[i].pl.i0 || ev.seq != ref[i].seq)) {
			EXPECT_TRUE(0, "pop %d: event %lld (seq %llu), expected "
				    "%lld (seq %llu)", i, (long long)ev.pl.i0,
				    (unsigned long long)ev.seq,
				    (long long)ref[i].pl.i0,
				    (unsigned long long)ref[i].seq);
			bad = 1;
		}
	EXPECT_INT(i, nref);
	EXPECT_INT(sim_queue_pop(&q, &ev), 0);
	gsl_rng_free(r);
	free(dead);
	free(h);
	free(ref);
	sim_queue_release(&q);
}

/*
 * Moving events in place gives the pop order of cancelling them and
 * pushing them again: two queues fed the same random pushes, moves, cancels
 * and pops, one moving with sim_queue_reschedule and one with cancel and
 * push, pop the same events (time, priority, payload, sequence) in the same
 * order; stale handles move nothing.
 */
static void test_reschedule(void)
{
	enum { N = 20000 };
	struct sim_queue a, b;
	sim_handle *ha = malloc(N * sizeof(*ha)), *hb = malloc(N * sizeof(*hb));
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct sim_event ea, eb;
	double now = 0;
	int i, n = 0, bad = 0;

	gsl_rng_set(r, 99);
	sim_queue_init(&a);
	sim_queue_init(&b);
	for (i = 0; i < N; i++) {
		double u = gsl_rng_uniform(r);
		if (u < 0.4 || n == 0) {
			struct sim_event e = mk(now + (double)gsl_rng_uniform_int(r, 50) / 8,
						(int)gsl_rng_uniform_int(r, 3), n);
			sim_queue_push(&a, &e, &ha[n]);
			sim_queue_push(&b, &e, &hb[n]);
			n++;
		} else if (u < 0.8) {
			int v = (int)gsl_rng_uniform_int(r, (unsigned long)n);
			double t = now + (double)gsl_rng_uniform_int(r, 50) / 8;
			int live = sim_queue_cancel(&b, hb[v]);
			EXPECT_INT(sim_queue_reschedule(&a, ha[v], t), live);
			if (live) {
				struct sim_event e = mk(t, 0, v);
				/* the same event: its priority came with its push */
				e.prio = a.slots[ha[v] & 0xffffffffu].ev.prio;
				sim_queue_push(&b, &e, &hb[v]);
			}
		} else if (u < 0.85) {
			int v = (int)gsl_rng_uniform_int(r, (unsigned long)n);
			EXPECT_INT(sim_queue_cancel(&a, ha[v]), sim_queue_cancel(&b, hb[v]));
		} else {
			int pa = sim_queue_pop(&a, &ea), pb = sim_queue_pop(&b, &eb);
			EXPECT_INT(pa, pb);
			if (pa && pb && !bad && (ea.time != eb.time || ea.prio != eb.prio ||
						 ea.pl.i0 != eb.pl.i0 || ea.seq != eb.seq)) {
				EXPECT_TRUE(0, "step %d: popped event %lld at %g (seq %llu), "
					    "expected %lld at %g (seq %llu)", i, (long long)ea.pl.i0,
					    ea.time, (unsigned long long)ea.seq, (long long)eb.pl.i0,
					    eb.time, (unsigned long long)eb.seq);
				bad = 1;
			}
			if (pa)
				now = ea.time;
		}
		if (i % 1000 == 0)
			EXPECT_INT(sim_queue_check(&a), 0);
	}
	while (sim_queue_pop(&a, &ea)) {
		EXPECT_INT(sim_queue_pop(&b, &eb), 1);
		if (!bad && (ea.pl.i0 != eb.pl.i0 || ea.seq != eb.seq)) {
			EXPECT_TRUE(0, "drain: event %lld, expected %lld", (long long)ea.pl.i0,
				    (long long)eb.pl.i0);
			bad = 1;
		}
	}
	EXPECT_INT(sim_queue_pop(&b, &eb), 0);
	EXPECT_INT(sim_queue_reschedule(&a, SIM_HANDLE_NONE, 1), 0);
	EXPECT_INT(sim_queue_reschedule(&a, ha[0], now + 1), 0);    /* popped */
	gsl_rng_free(r);
	free(ha);
	free(hb);
	sim_queue_release(&a);
	sim_queue_release(&b);
}

/* Interleaved pushes at or after the last popped time pop monotonically. */
static void test_interleaved(void)
{
	struct sim_queue q;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct sim_event ev, prev = mk(0, 0, -1);
	int i, pops = 0, pushes = 0, bad = 0;

	gsl_rng_set(r, 7);
	sim_queue_init(&q);
	prev.seq = 0;
	for (i = 0; i < 50000; i++) {
		if (sim_queue_size(&q) == 0 || gsl_rng_uniform(r) < 0.55) {
			struct sim_event e = mk(prev.time +
					(double)gsl_rng_uniform_int(r, 5),
					(int)gsl_rng_uniform_int(r, 2), i);
			sim_queue_push(&q, &e, NULL);
			pushes++;
		} else {
			sim_queue_pop(&q, &ev);
			if (pops > 0 && !bad && ev.time < prev.time) {
				EXPECT_TRUE(0, "pop %d at t=%g after t=%g", pops,
					    ev.time, prev.time);
				bad = 1;
			}
			prev = ev;
			pops++;
		}
	}
	EXPECT_INT(sim_queue_size(&q), pushes - pops);
	EXPECT_INT(sim_queue_check(&q), 0);
	gsl_rng_free(r);
	sim_queue_release(&q);
}

void suite_sim_queue(void)
{
	CU_pSuite s = CU_add_suite("sim_queue", NULL, NULL);

	CU_add_test(s, "order: time, priority, fifo", test_order);
	CU_add_test(s, "cancel and stale handles", test_cancel);
	CU_add_test(s, "compaction after mass cancel", test_compact);
	CU_add_test(s, "moving in place orders as cancel and push", test_reschedule);
	CU_add_test(s, "random pushes pop sorted", test_random_sorted);
	CU_add_test(s, "interleaved push/pop", test_interleaved);
}
