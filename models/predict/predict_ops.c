/*
 * predict_ops.c - a mixed step's op list (predict_ops.h): the three lists
 * llm_step_ops gives for it merged into one, the second and third taken
 * from a table kept for the process by their own shapes; and each thread's
 * op-list buffers, kept from step to step.
 *
 * A mixed step (a prefill chunk beside the decode batch) is distinct in the
 * pair of contexts it carries, but its prefill part (batch, context, chunk)
 * and its decode part (batch, context) each repeat far more: at 256
 * clients and 262,144 output tokens on the bare-metal box, the 13,032
 * mixed steps of the two comparison engines have 2,141 distinct prefill
 * parts and 837 decode parts. The merge reads only the parts' attention-core ops (and checks that
 * the lists line up: the same kinds, passes and layers), so a part is kept
 * as that: its ops' kinds, passes and layers (one array shared by every part
 * with the same, compared in full), its attention-core ops (the distinct
 * ones, each kept once) and which of them each is. A merge from kept parts
 * does what pred_merge_mixed does with the lists themselves, field for field.
 *
 * The table: the (model, formats) pairs seen, compared in full, each given
 * a number; parts keyed on that number, the shard and the step, in an
 * open-addressing hash table under one mutex, doubled when half full. A
 * part never changes once stored and is never freed, so a reader uses it
 * after dropping the lock. New parts stop once the table holds OPS_BYTES;
 * past OPS_MAX_CTX pairs or OPS_MAX_KL arrays, the lists are built.
 */
#include "predict_ops.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OPS_BYTES (64UL << 20)
#define OPS_MAX_CTX 64
#define OPS_MAX_KL 256
#define OPS_KEY 13

/* An op's kind, pass and layer in one int. */
#define KL(op) ((int)(op)->kind | ((op)->pass & 0xff) << 4 | ((op)->layer + 1) << 12)

struct part {
	int n;                      /* ops in the list */
	const int *kl;              /* [n]: KL of each (shared) */
	int nkv;                    /* attention-core ops */
	unsigned short *kvsrc;      /* [nkv]: which of kv each is */
	struct llm_op *kv;          /* the distinct ones */
};

struct slot {
	uint64_t hash;
	int64_t key[OPS_KEY];
	struct part *p;             /* NULL: empty */
};

static struct {
	pthread_mutex_t mu;
	struct {
		struct llm_model m;
		struct llm_prec p;
	} *ctx[OPS_MAX_CTX];
	int nctx;
	struct {
		int n;
		int *v;
	} kl[OPS_MAX_KL];
	int nkl;
	struct slot *tab;
	size_t cap, used, bytes;
} ops = { PTHREAD_MUTEX_INITIALIZER, { NULL }, 0, { { 0, NULL } }, 0, NULL, 0, 0, 0 };

/* One attention-core op of a mixed step: its parts' work summed. */
static void merge_kv(struct llm_op *o, const struct llm_op *p, const struct llm_op *d)
{
	o->bytes = p->bytes + d->bytes;
	o->flops = p->flops + d->flops;
	/* the chunks' queries fill the attention tiles; MLA's prefill
	 * form decompresses their cache (docs/model-serving.md) */
	o->rows = p->flops > 0 ? p->rows : d->rows;
	o->dtype = p->dtype;
	o->gemm_flops = p->gemm_flops + d->gemm_flops;
	o->gemm_dtype = p->gemm_dtype;
	o->gemm_rows = p->gemm_rows + d->gemm_rows;
	o->kernels = p->kernels > d->kernels ? p->kernels : d->kernels;
}

/*
 * A mixed step is one forward pass over every token it carries: the
 * weight-streaming ops (projections, experts, MLP, lm_head, norms) run once
 * over all of them, as u's op list of that many single-token sequences
 * computes them (experts touched by all the tokens), while attention reads
 * each part's own cache: u's attention cores become the sum of the prefill
 * chunks' (p: each chunk's triangle and its rectangle over its cache, MLA in
 * its prefill form) and the decode sequences' (d). d's draft passes follow.
 */
int pred_merge_mixed(struct llm_ops *u, const struct llm_ops *p, const struct llm_ops *d,
		     struct plumb_err *err)
{
	int i, n0 = 0;
	while (n0 < d->n && d->op[n0].pass == 0)
		n0++;
	if (u->n != p->n || u->n != n0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "mixed step: op lists of %d, %d and %d ops do not line up",
				     u->n, p->n, n0);
	for (i = 0; i < u->n; i++) {
		struct llm_op *o = &u->op[i];
		if (o->kind != p->op[i].kind || o->kind != d->op[i].kind ||
		    o->layer != p->op[i].layer || o->layer != d->op[i].layer)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					     "mixed step: op %d differs between its parts", i);
		if (o->kind == LLM_OP_KV)
			merge_kv(o, &p->op[i], &d->op[i]);
	}
	for (i = n0; i < d->n; i++) {
		if (u->n == u->cap) {
			int cap = u->cap ? 2 * u->cap : 64;
			struct llm_op *op = realloc(u->op, (size_t)cap * sizeof(*op));
			if (!op)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			u->op = op;
			u->cap = cap;
		}
		u->op[u->n++] = d->op[i];
	}
	return 0;
}

/* The number of (m, p), adding it; -1 when full. Lock held. */
static int ctx_of(const struct llm_model *m, const struct llm_prec *p)
{
	int i;
	for (i = 0; i < ops.nctx; i++)
		if (!memcmp(&ops.ctx[i]->p, p, sizeof(*p)) && !memcmp(&ops.ctx[i]->m, m, sizeof(*m)))
			return i;
	if (ops.nctx == OPS_MAX_CTX || !(ops.ctx[ops.nctx] = malloc(sizeof(*ops.ctx[0]))))
		return -1;
	memcpy(&ops.ctx[ops.nctx]->m, m, sizeof(*m));
	memcpy(&ops.ctx[ops.nctx]->p, p, sizeof(*p));
	return ops.nctx++;
}

static uint64_t hash_key(const int64_t *k)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;
	for (i = 0; i < OPS_KEY; i++) {
		h ^= (uint64_t)k[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

/* The slot of key k, or the empty one where it would go. Lock held. */
static struct slot *find(const int64_t *k, uint64_t h)
{
	size_t i = (size_t)h & (ops.cap - 1);
	for (;; i = (i + 1) & (ops.cap - 1)) {
		struct slot *e = &ops.tab[i];
		if (!e->p || (e->hash == h && !memcmp(e->key, k, sizeof(e->key))))
			return e;
	}
}

/* Room for one more part (the table at most half full); 0 or -1. Lock
 * held. */
static int grow(void)
{
	size_t cap = ops.cap ? 2 * ops.cap : 1024, i, oc = ops.cap;
	struct slot *old = ops.tab, *t;
	if ((ops.used + 1) * 2 <= ops.cap)
		return 0;
	if (!(t = calloc(cap, sizeof(*t))))
		return -1;
	ops.tab = t;
	ops.cap = cap;
	for (i = 0; i < oc; i++)
		if (old[i].p)
			*find(old[i].key, old[i].hash) = old[i];
	free(old);
	ops.bytes += cap * sizeof(*t);
	return 0;
}

/* The shared array equal to kl[0 .. n), adding a copy; NULL when full.
 * Lock held. */
static const int *kl_of(const int *kl, int n)
{
	int i;
	for (i = 0; i < ops.nkl; i++)
		if (ops.kl[i].n == n && !memcmp(ops.kl[i].v, kl, (size_t)n * sizeof(*kl)))
			return ops.kl[i].v;
	if (ops.nkl == OPS_MAX_KL || !(ops.kl[ops.nkl].v = malloc((size_t)(n + 1) * sizeof(*kl))))
		return NULL;
	memcpy(ops.kl[ops.nkl].v, kl, (size_t)n * sizeof(*kl));
	ops.kl[ops.nkl].n = n;
	ops.bytes += (size_t)n * sizeof(*kl);
	return ops.kl[ops.nkl++].v;
}

/* Is b the same op as a but for its layer and hint? */
static int same_kv(const struct llm_op *a, const struct llm_op *b)
{
	struct llm_op c = *a;
	c.layer = b->layer;
	c.like = b->like;
	return !memcmp(&c, b, sizeof(c));
}

/* List o as a part (kl: its KL array; first and src: room for an int and
 * a short an op); NULL when out of memory. Lock held. */
static struct part *pack(const struct llm_ops *o, const int *kl, int *first, unsigned short *src)
{
	struct part *p;
	int i, k, nkv = 0, nu = 0;
	size_t sz;
	/* the distinct attention-core ops: first[k], the index of the k-th */
	for (i = 0; i < o->n; i++) {
		const struct llm_op *op = &o->op[i];
		if (op->kind != LLM_OP_KV)
			continue;
		for (k = 0; k < nu && !same_kv(&o->op[first[k]], op); k++)
			;
		if (k == nu) {
			if (nu == 65535)
				return NULL;
			first[nu++] = i;
		}
		src[nkv++] = (unsigned short)k;
	}
	sz = sizeof(*p) + (size_t)nu * sizeof(*p->kv) + (size_t)nkv * sizeof(*p->kvsrc);
	if (!(p = malloc(sz)))
		return NULL;
	p->kv = (struct llm_op *)(void *)(p + 1);
	p->kvsrc = (unsigned short *)(void *)(p->kv + nu);
	p->n = o->n;
	p->kl = kl;
	p->nkv = nkv;
	for (k = 0; k < nu; k++)
		p->kv[k] = o->op[first[k]];
	memcpy(p->kvsrc, src, (size_t)nkv * sizeof(*src));
	ops.bytes += sz;
	return p;
}

/*
 * The part of list (m, pr, sh, st): from the table, or built (into the
 * thread's buffer `buf`) and stored. 1 and *out; 0 when the table cannot
 * take it (the caller builds the lists); or llm_step_ops's error.
 */
static int part_of(const struct llm_model *m, const struct llm_prec *pr,
		   const struct llm_shard *sh, const struct llm_step *st, int buf,
		   const struct part **out, struct plumb_err *err)
{
	int64_t k[OPS_KEY];
	uint64_t h;
	struct part *p = NULL;
	struct llm_ops *o;
	int ctx, rc, i, *kl;

	pthread_mutex_lock(&ops.mu);
	ctx = ctx_of(m, pr);
	k[0] = ctx;
	k[1] = sh->tp;
	k[2] = sh->ep;
	k[3] = sh->moe_tp;
	k[4] = sh->dcp;
	k[5] = sh->first;
	k[6] = sh->last;
	k[7] = sh->mtp;
	k[8] = st->batch;
	k[9] = st->context;
	k[10] = st->q_len;
	k[11] = st->draft;
	k[12] = st->head_tokens;
	h = hash_key(k);
	if (ctx >= 0 && ops.cap)
		p = find(k, h)->p;
	rc = ctx < 0 || (!p && ops.bytes >= OPS_BYTES);
	pthread_mutex_unlock(&ops.mu);
	if (p) {
		*out = p;
		return 1;
	}
	if (rc || !(o = pred_ops_buf(buf)))
		return 0;
	if ((rc = llm_step_ops(m, pr, sh, st, o, err)) < 0)
		return rc;
	/* kl, then pack's room: an int and a short an op */
	if (!(kl = malloc((size_t)(o->n + 1) * (2 * sizeof(*kl) + 2 * sizeof(short)))))
		return 0;
	for (i = 0; i < o->n; i++)
		kl[i] = KL(&o->op[i]);
	rc = 0;
	pthread_mutex_lock(&ops.mu);
	if (grow() == 0) {
		struct slot *s = find(k, h);
		const int *shared;
		if (s->p) {
			*out = s->p;        /* another thread stored it meanwhile */
			rc = 1;
		} else if ((shared = kl_of(kl, o->n)) &&
			   (p = pack(o, shared, kl + o->n + 1,
				     (unsigned short *)(void *)(kl + 2 * (o->n + 1))))) {
			s->p = p;
			s->hash = h;
			memcpy(s->key, k, sizeof(s->key));
			ops.used++;
			*out = p;
			rc = 1;
		}
	}
	pthread_mutex_unlock(&ops.mu);
	free(kl);
	return rc;
}

/* u merged with kept parts p and d as pred_merge_mixed would (no draft
 * passes); 0 when the lists do not line up (nothing changed). */
static int merge_parts(struct llm_ops *u, const struct part *p, const struct part *d)
{
	int i, k;
	if (u->n != p->n || u->n != d->n)
		return 0;
	for (i = 0; i < u->n; i++) {
		int kl = KL(&u->op[i]);
		if (kl != p->kl[i] || kl != d->kl[i])
			return 0;
	}
	for (i = k = 0; i < u->n; i++)
		if (u->op[i].kind == LLM_OP_KV) {
			merge_kv(&u->op[i], &p->kv[p->kvsrc[k]], &d->kv[d->kvsrc[k]]);
			k++;
		}
	return 1;
}

int pred_mixed_ops(const struct llm_model *m, const struct llm_prec *pr,
		   const struct llm_shard *sh, const struct llm_step *st, struct llm_ops *o,
		   struct plumb_err *err)
{
	const struct part *pp = NULL, *dp = NULL;
	struct llm_ops *p, *d;
	int rc;
	if ((rc = llm_step_ops(m, pr, &sh[0], &st[0], o, err)) < 0)
		return rc;
	/* the parts from the table: no draft passes to append */
	if (!st[2].draft && (rc = part_of(m, pr, &sh[1], &st[1], 1, &pp, err)) != 0 &&
	    (rc < 0 || (rc = part_of(m, pr, &sh[2], &st[2], 2, &dp, err)) != 0)) {
		if (rc < 0)
			return rc;
		if (merge_parts(o, pp, dp))
			return 0;
	}
	if (!(p = pred_ops_buf(1)) || !(d = pred_ops_buf(2)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = llm_step_ops(m, pr, &sh[1], &st[1], p, err)) < 0 ||
	    (rc = llm_step_ops(m, pr, &sh[2], &st[2], d, err)) < 0)
		return rc;
	return pred_merge_mixed(o, p, d, err);
}

/* Each thread's buffers: freed when it exits (the main thread's at exit,
 * as every table of the process). */
#define OPS_BUFS 3

static pthread_key_t buf_key;
static pthread_once_t buf_once = PTHREAD_ONCE_INIT;
static int buf_ok;

static void buf_free(void *v)
{
	struct llm_ops *b = v;
	int i;
	for (i = 0; i < OPS_BUFS; i++)
		llm_ops_release(&b[i]);
	free(b);
}

static void buf_init(void)
{
	buf_ok = pthread_key_create(&buf_key, buf_free) == 0;
}

struct llm_ops *pred_ops_buf(int i)
{
	struct llm_ops *b;
	int k;
	if (pthread_once(&buf_once, buf_init) != 0 || !buf_ok || i < 0 || i >= OPS_BUFS)
		return NULL;
	if (!(b = pthread_getspecific(buf_key))) {
		if (!(b = malloc(OPS_BUFS * sizeof(*b))))
			return NULL;
		for (k = 0; k < OPS_BUFS; k++)
			llm_ops_init(&b[k]);
		if (pthread_setspecific(buf_key, b) != 0) {
			free(b);
			return NULL;
		}
	}
	return &b[i];
}
