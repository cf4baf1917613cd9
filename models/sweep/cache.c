/*
 * cache.c - the step cache shared by a sweep's threads (sweep.h).
 *
 * An open-addressing hash table of (key, value, state) under one mutex.
 * A miss marks the entry "running" and releases the lock while the caller's
 * function simulates the step; other threads asking for the same key wait on
 * the condition variable and read the value when it is ready, so a step is
 * simulated once however many points and threads ask for it. A failed
 * computation removes its entry (waiters then try themselves). Keys are
 * compared as bytes: callers zero them before filling (padding included).
 * The table doubles when half full; lookups are O(1) on average.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

enum { E_EMPTY, E_RUNNING, E_READY, E_DEAD };

struct entry {
	int state;
	uint64_t hash;
	struct swp_step_key k;
	struct swp_step_val v;
};

struct swp_cache {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct entry *tab;
	size_t cap, used;       /* used counts every non-empty slot */
	struct swp_cache_stats st;
};

static uint64_t hash_key(const struct swp_step_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 1469598103934665603ull;
	size_t i;
	for (i = 0; i < sizeof(*k); i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

struct swp_cache *swp_cache_new(void)
{
	struct swp_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cap = 1024;
	if (!(c->tab = calloc(c->cap, sizeof(*c->tab)))) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	return c;
}

void swp_cache_free(struct swp_cache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c->tab);
	free(c);
}

/* Slot of k, or the empty slot where it would go (first dead one reused). */
static struct entry *find(struct swp_cache *c, const struct swp_step_key *k, uint64_t h)
{
	size_t i = (size_t)h & (c->cap - 1);
	struct entry *dead = NULL;
	for (;;) {
		struct entry *e = &c->tab[i];
		if (e->state == E_EMPTY)
			return dead ? dead : e;
		if (e->state == E_DEAD) {
			if (!dead)
				dead = e;
		} else if (e->hash == h && !memcmp(&e->k, k, sizeof(*k))) {
			return e;
		}
		i = (i + 1) & (c->cap - 1);
	}
}

static int grow(struct swp_cache *c)
{
	struct entry *old = c->tab;
	size_t i, oc = c->cap;
	struct entry *nt = calloc(oc * 2, sizeof(*nt));
	if (!nt)
		return -1;
	c->tab = nt;
	c->cap = oc * 2;
	c->used = 0;
	for (i = 0; i < oc; i++)
		if (old[i].state == E_READY || old[i].state == E_RUNNING) {
			*find(c, &old[i].k, old[i].hash) = old[i];
			c->used++;
		}
	free(old);
	return 0;
}

int swp_cache_get(struct swp_cache *c, const struct swp_step_key *k, swp_step_fn fn,
		  void *ctx, struct swp_step_val *v, struct plumb_err *err)
{
	uint64_t h = hash_key(k);
	struct entry *e;
	int rc, waited = 0;

	pthread_mutex_lock(&c->mu);
	c->st.lookups++;
	for (;;) {
		e = find(c, k, h);
		if (e->state == E_READY) {
			*v = e->v;
			c->st.hits++;
			c->st.waits += (uint64_t)waited;
			pthread_mutex_unlock(&c->mu);
			return 0;
		}
		if (e->state != E_RUNNING)
			break;
		waited = 1;
		pthread_cond_wait(&c->cv, &c->mu);
	}
	if ((c->used + 1) * 2 > c->cap) {
		if (grow(c) < 0) {
			pthread_mutex_unlock(&c->mu);
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		e = find(c, k, h);
	}
	if (e->state == E_EMPTY)
		c->used++;
	e->state = E_RUNNING;
	e->hash = h;
	e->k = *k;
	c->st.misses++;
	pthread_mutex_unlock(&c->mu);

	memset(v, 0, sizeof(*v));
	rc = fn(ctx, k, v, err);

	pthread_mutex_lock(&c->mu);
	e = find(c, k, h);      /* the table may have grown meanwhile */
	if (rc < 0) {
		e->state = E_DEAD;
	} else {
		e->state = E_READY;
		e->v = *v;
	}
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return rc;
}

void swp_cache_stats(struct swp_cache *c, struct swp_cache_stats *s)
{
	pthread_mutex_lock(&c->mu);
	*s = c->st;
	pthread_mutex_unlock(&c->mu);
}
