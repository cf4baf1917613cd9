/*
 * step_memo.c - step results shared by every step_run() of the process
 * (step_int.h).
 *
 * An open-addressing hash table of (key bytes, value bytes) under one
 * mutex. Keys are byte strings step.c builds from everything a step depends
 * on; they are compared in full, never by hash alone, so a hit is the same
 * question. A value is stored only after its step was simulated without
 * error, and a step simulation is a pure function of its key, so which
 * thread stores it first changes nothing. The table doubles when half full;
 * it stops taking new entries once keys and values hold STEP_MEMO_BYTES
 * (each entry stands for a step simulation of about 1-5 ms and costs a few
 * kilobytes), so memory stays bounded however long a sweep runs.
 */
#include "step_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define STEP_MEMO_BYTES (256UL << 20)

struct mentry {
	uint64_t hash;
	size_t n, nv;
	unsigned char *key;     /* NULL: empty; the value follows the key */
};

static struct {
	pthread_mutex_t mu;
	struct mentry *tab;
	size_t cap, used;
	struct step_memo_stats st;
} memo = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, { 0, 0, 0, 0 } };

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The slot of key, or the empty slot where it would go. Lock held. */
static struct mentry *find(const unsigned char *key, size_t n, uint64_t h)
{
	size_t i = (size_t)h & (memo.cap - 1);
	for (;; i = (i + 1) & (memo.cap - 1)) {
		struct mentry *e = &memo.tab[i];
		if (!e->key || (e->hash == h && e->n == n && !memcmp(e->key, key, n)))
			return e;
	}
}

int step_memo_get(const void *key, size_t n, void *val, size_t nv)
{
	uint64_t h = hash_bytes(key, n);
	int hit = 0;
	pthread_mutex_lock(&memo.mu);
	if (memo.cap) {
		struct mentry *e = find(key, n, h);
		if (e->key && e->nv == nv) {
			memcpy(val, e->key + n, nv);
			hit = 1;
		}
	}
	if (hit)
		memo.st.hits++;
	else
		memo.st.misses++;
	pthread_mutex_unlock(&memo.mu);
	return hit;
}

/* Double the table (or make its first one). Lock held. 0 or -1. */
static int grow(void)
{
	size_t cap = memo.cap ? 2 * memo.cap : 1024, i;
	struct mentry *old = memo.tab, *t = calloc(cap, sizeof(*t));
	size_t ocap = memo.cap;
	if (!t)
		return -1;
	memo.tab = t;
	memo.cap = cap;
	for (i = 0; i < ocap; i++)
		if (old[i].key)
			*find(old[i].key, old[i].n, old[i].hash) = old[i];
	free(old);
	return 0;
}

void step_memo_put(const void *key, size_t n, const void *val, size_t nv)
{
	uint64_t h = hash_bytes(key, n);
	struct mentry *e;
	pthread_mutex_lock(&memo.mu);
	/* full, or out of memory: the step is simulated again next time */
	if (memo.st.bytes + n + nv > STEP_MEMO_BYTES ||
	    (2 * (memo.used + 1) > memo.cap && grow() < 0))
		goto out;
	e = find(key, n, h);
	if (!e->key) {
		if (!(e->key = malloc(n + nv)))
			goto out;
		memcpy(e->key, key, n);
		memcpy(e->key + n, val, nv);
		e->n = n;
		e->nv = nv;
		e->hash = h;
		memo.used++;
		memo.st.entries = memo.used;
		memo.st.bytes += n + nv;
	}
out:
	pthread_mutex_unlock(&memo.mu);
}

void step_memo_stats(struct step_memo_stats *st)
{
	pthread_mutex_lock(&memo.mu);
	*st = memo.st;
	pthread_mutex_unlock(&memo.mu);
}

void step_memo_clear(void)
{
	size_t i;
	pthread_mutex_lock(&memo.mu);
	for (i = 0; i < memo.cap; i++)
		free(memo.tab[i].key);
	free(memo.tab);
	memo.tab = NULL;
	memo.cap = memo.used = 0;
	memset(&memo.st, 0, sizeof(memo.st));
	pthread_mutex_unlock(&memo.mu);
}
