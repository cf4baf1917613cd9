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
 * Below the table: the key a step_run() is stored under and its result as
 * stored (step_memo_key, step_memo_pack, step_memo_fill).
 */
#include "step_int.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
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

/* ---- keys and values ---------------------------------------------------- */

/* n bytes more at the end of b, to be written by the caller (NULL when
 * out of memory, or for n 0). */
static unsigned char *room(struct step_bytes *b, size_t n)
{
	size_t at = b->n;
	if (b->oom || n == 0)
		return NULL;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		unsigned char *np;
		while (cap < b->n + n)
			cap *= 2;
		if (!(np = realloc(b->p, cap))) {
			b->oom = 1;
			return NULL;
		}
		b->p = np;
		b->cap = cap;
	}
	b->n += n;
	return b->p + at;
}

static void put(struct step_bytes *b, const void *x, size_t n)
{
	unsigned char *w = room(b, n);
	if (w)
		memcpy(w, x, n);
}

static void put_int(struct step_bytes *b, long v)
{
	int64_t x = v;
	put(b, &x, sizeof(x));
}

static void put_dbl(struct step_bytes *b, double v)
{
	put(b, &v, sizeof(v));
}

/* A mix of an op's fields as step_memo_key compares them (their bits). */
static uint64_t op_hash(const struct step_op *op)
{
	uint64_t a, c, h;
	memcpy(&a, &op->seconds, sizeof(a));
	memcpy(&c, &op->bytes, sizeof(c));
	h = a * 0x9e3779b97f4a7c15ULL ^ c * 0xc2b2ae3d27d4eb4fULL ^
	    ((uint64_t)(uint32_t)op->kind << 32 | (uint32_t)op->tag) * 0x165667b19e3779f9ULL;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

/* Everything step_run's result depends on, field by field (no padding).
 * The scenario and topology options are the held entry's id. A stage's
 * ops repeat layer after layer, so each stage is written as a list of
 * distinct ops, then every op as an index into it: an exact encoding (the
 * ops follow from it), several times smaller than the plain one. */
void step_memo_key(struct step_bytes *b, uint64_t scn, int replay, const struct step_layout *l,
		   const struct step_prog *prog, int micro, int rounds, int overlap,
		   double overlap_rate)
{
	int st, i, j;
	put(b, &scn, sizeof(scn));
	put_int(b, replay);
	put_int(b, l->kind);
	put_int(b, l->tp);
	put_int(b, l->pp);
	put_int(b, l->ep);
	put_int(b, l->gpus);
	put_int(b, l->dcp);
	put_int(b, l->dp);
	put_int(b, micro);
	put_int(b, rounds);
	put_int(b, overlap);
	put(b, &overlap_rate, sizeof(overlap_rate));
	for (st = 0; st < l->pp; st++) {
		const struct step_prog *p = &prog[st];
		size_t hcap = 64, hm, hi;
		int *idx, *of, *tab, nd = 0;
		while (hcap < 2 * (size_t)p->nops)
			hcap *= 2;
		hm = hcap - 1;
		idx = malloc((2 * ((size_t)p->nops + 1) + hcap) * sizeof(*idx));
		if (!idx) {
			b->oom = 1;
			return;
		}
		of = idx + p->nops + 1;
		tab = of + p->nops + 1;
		for (hi = 0; hi < hcap; hi++)
			tab[hi] = -1;
		put_int(b, p->nops);
		put_dbl(b, p->send_bytes);
		/* distinct ops, in the order they first occur, found in a hash
		 * table of the ones so far (a layer's ops repeat layer after
		 * layer); every op is then the index of its distinct one */
		for (i = 0; i < p->nops; i++) {
			const struct step_op *op = &p->ops[i];
			hi = (size_t)op_hash(op) & hm;
			for (;; hi = (hi + 1) & hm) {
				const struct step_op *q;
				if ((j = tab[hi]) < 0) {
					j = tab[hi] = nd;
					idx[nd++] = i;
					break;
				}
				q = &p->ops[idx[j]];
				if (q->kind == op->kind && q->tag == op->tag &&
				    !memcmp(&q->seconds, &op->seconds, sizeof(op->seconds)) &&
				    !memcmp(&q->bytes, &op->bytes, sizeof(op->bytes)))
					break;
			}
			of[i] = j;
		}
		put_int(b, nd);
		for (j = 0; j < nd; j++) {
			const struct step_op *op = &p->ops[idx[j]];
			int32_t kt[2] = { (int32_t)op->kind, (int32_t)op->tag };
			put(b, kt, sizeof(kt));
			put_dbl(b, op->seconds);
			put_dbl(b, op->bytes);
		}
		if (nd <= 65536) {
			/* the same bytes as a put of each uint16_t, room made once */
			unsigned char *w = room(b, (size_t)p->nops * sizeof(uint16_t));
			for (i = 0; w && i < p->nops; i++) {
				uint16_t k = (uint16_t)of[i];
				memcpy(w + (size_t)i * sizeof(k), &k, sizeof(k));
			}
		} else {
			for (i = 0; i < p->nops; i++)
				put_int(b, of[i]);
		}
		free(idx);
	}
}

/*
 * A step's result as the memo keeps it: the whole struct, so every field
 * step_run() fills comes back (one added later included), but of the
 * per-GPU arrays only the step's ngpus entries (the rest are zero): the
 * bytes before busy, busy and comm of ngpus each, the bytes after comm.
 */
#define MEMO_HEAD offsetof(struct step_result, busy)
#define MEMO_TAIL (offsetof(struct step_result, comm) + sizeof(((struct step_result *)0)->comm))

size_t step_memo_size(int ngpus)
{
	return MEMO_HEAD + (size_t)2 * ngpus * sizeof(double) + (sizeof(struct step_result) - MEMO_TAIL);
}

/* r as the memo keeps it into p (room memo_size(r->ngpus)). */
void step_memo_pack(const struct step_result *r, unsigned char *p)
{
	size_t g = (size_t)r->ngpus * sizeof(double);
	memcpy(p, r, MEMO_HEAD);
	memcpy(p + MEMO_HEAD, r->busy, g);
	memcpy(p + MEMO_HEAD + g, r->comm, g);
	memcpy(p + MEMO_HEAD + 2 * g, (const char *)r + MEMO_TAIL, sizeof(*r) - MEMO_TAIL);
}

/* The caller's inputs (timeline, hook, switches) are the asker's, not the
 * stored run's. */
void step_memo_fill(const unsigned char *p, size_t n, struct step_result *r)
{
	struct step_result in = *r;
	size_t g = (n - MEMO_HEAD - (sizeof(*r) - MEMO_TAIL)) / 2;
	memset(r, 0, sizeof(*r));
	memcpy(r, p, MEMO_HEAD);
	memcpy(r->busy, p + MEMO_HEAD, g);
	memcpy(r->comm, p + MEMO_HEAD + g, g);
	memcpy((char *)r + MEMO_TAIL, p + MEMO_HEAD + 2 * g, sizeof(*r) - MEMO_TAIL);
	r->spans = in.spans;
	r->cap = in.cap;
	r->hook = in.hook;
	r->hook_ctx = in.hook_ctx;
	r->no_replay = in.no_replay;
	r->rounds = in.rounds;
	r->overlap = in.overlap;
	r->overlap_rate = in.overlap_rate;
}
