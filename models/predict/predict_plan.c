/*
 * predict_plan.c - op lists and their folds kept for the process, and a
 * stage's op times taken from them (predict_int.h, pred_plan_time).
 *
 * llm_step_ops is a pure function of the model, the formats, the shard and
 * the step's shape; it reads no constant. A serving run asks for the same
 * shapes again and again: a mixed step's prefill part and decode part each
 * repeat far more than the pair, and every draw of the constants asks for
 * the shapes the first draw asked. Building a list (about 700 ops of GLM-5)
 * costs about as much as timing it and folding it into a program, so a kept
 * list is not copied out: with CUDA graphs an op's time is a function of
 * its own inputs alone (llm_ops_time), so only the distinct ops of a list
 * are timed, and the recorded fold (pred_fold_record) sums their times in
 * the list's order, the sums fold would make, bit for bit. A mixed step
 * takes its three lists from here: the merged list is the first one with
 * its attention-core ops merged from the other two (pred_merge_kv), so only
 * those are timed besides the first list's distinct ops.
 *
 * A list is kept compact: llm_step_ops copies a layer like one before it
 * (the same ops, `like` pointing at the original, the layer changed), so
 * an entry holds the ops that are not such copies and, for each op, which
 * of them it is (a copy is checked field by field before it is taken for
 * one).
 *
 * Eager launches make an op's launch part depend on the ops before it:
 * the distinct ops' GPU times are kept and the launches run over the list
 * in order (llm_eager_launch), as llm_ops_time does. A mixed step with
 * draft passes is not served from here: the caller builds the list.
 *
 * The table: the (model, formats) pairs seen, compared in full, each given
 * a number; entries keyed on that number, the shard, the step and the
 * fold's layout, in an open-addressing hash table under one mutex, doubled
 * when half full. An entry never changes once stored, and its block is
 * never freed, so a reader uses it after dropping the lock. New entries
 * stop once the table holds PLAN_BYTES; past PLAN_MAX_CTX pairs, or then,
 * the caller builds the list.
 */
#include "predict_int.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_BYTES (192UL << 20)
#define PLAN_MAX_CTX 64
#define PLAN_KEY 16

struct pred_plan_entry {
	int n, nu, nkv;
	int *kl;                    /* [n]: each op's kind, pass and layer (KL) */
	int *src;                   /* [n]: op i is kept op src[i]; NULL in a part */
	struct llm_op *u;           /* [nu]: the kept ops, untimed, like 0; a part
				       (a mixed step's second or third list)
				       keeps its attention-core ops alone */
	int *kvidx;                 /* [nkv]: the attention-core ops */
	struct pred_fold_op *fold;  /* the list's fold, or NULL */
	int nfold;
};

/* An op's kind, pass and layer in one int: the lists of a mixed step line
 * up when these are the same. */
#define KL(op) ((int)(op)->kind | ((op)->pass & 0xff) << 4 | ((op)->layer + 1) << 12)

struct slot {
	uint64_t hash;
	int64_t key[PLAN_KEY];
	struct pred_plan_entry *e;  /* NULL: empty */
};

struct plan_ctx {
	struct llm_model m;
	struct llm_prec p;
};

static struct {
	pthread_mutex_t mu;
	struct plan_ctx *ctx[PLAN_MAX_CTX];
	int nctx;
	struct slot *tab;
	size_t cap, used, bytes;
} plans = { PTHREAD_MUTEX_INITIALIZER, { NULL }, 0, NULL, 0, 0, 0 };

/* The number of (m, p), adding it; -1 when the pairs are full (or out of
 * memory). Lock held. */
static int ctx_of(const struct llm_model *m, const struct llm_prec *p)
{
	int i;
	for (i = 0; i < plans.nctx; i++)
		if (!memcmp(&plans.ctx[i]->p, p, sizeof(*p)) && !memcmp(&plans.ctx[i]->m, m, sizeof(*m)))
			return i;
	if (plans.nctx == PLAN_MAX_CTX || !(plans.ctx[plans.nctx] = malloc(sizeof(struct plan_ctx))))
		return -1;
	memcpy(&plans.ctx[plans.nctx]->m, m, sizeof(*m));
	memcpy(&plans.ctx[plans.nctx]->p, p, sizeof(*p));
	return plans.nctx++;
}

/* fold: 0 no fold kept; else 1 + (layout kind, tp > 1, dcp) packed */
static void make_key(int64_t *k, int ctx, const struct llm_shard *s, const struct llm_step *st,
		     int64_t fold)
{
	memset(k, 0, PLAN_KEY * sizeof(*k));
	k[0] = ctx;
	k[1] = s->tp;
	k[2] = s->ep;
	k[3] = s->moe_tp;
	k[4] = s->dcp;
	k[5] = s->first;
	k[6] = s->last;
	k[7] = s->mtp;
	k[8] = st->batch;
	k[9] = st->context;
	k[10] = st->q_len;
	k[11] = st->draft;
	k[12] = st->head_tokens;
	k[13] = fold;
}

static uint64_t hash_key(const int64_t *k)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;
	for (i = 0; i < PLAN_KEY; i++) {
		h ^= (uint64_t)k[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

/* The slot of key k, or the empty one where it would go. Lock held. */
static struct slot *find(const int64_t *k, uint64_t h)
{
	size_t i = (size_t)h & (plans.cap - 1);
	for (;; i = (i + 1) & (plans.cap - 1)) {
		struct slot *e = &plans.tab[i];
		if (!e->e || (e->hash == h && !memcmp(e->key, k, sizeof(e->key))))
			return e;
	}
}

/* Room for one more entry (the table at most half full); 0 or -1. Lock
 * held. */
static int grow(void)
{
	size_t cap = plans.cap ? 2 * plans.cap : 1024, i, oc = plans.cap;
	struct slot *old = plans.tab, *t;
	if ((plans.used + 1) * 2 <= plans.cap)
		return 0;
	if (!(t = calloc(cap, sizeof(*t))))
		return -1;
	plans.tab = t;
	plans.cap = cap;
	for (i = 0; i < oc; i++)
		if (old[i].e)
			*find(old[i].key, old[i].hash) = old[i];
	free(old);
	return 0;
}

/* Is op i of o a copy of op j (llm_step_ops's copy_layer: every field
 * the same but the layer and the hint)? Compared as bytes: a copy made by
 * assignment equals its original in its padding too, and an op that is
 * not taken for a copy is only kept on its own. */
static int copy_of(const struct llm_ops *o, int i, int j)
{
	struct llm_op c;
	if (j < 0 || j >= i)
		return 0;
	c = o->op[j];
	c.layer = o->op[i].layer;
	c.like = o->op[i].like;
	return !memcmp(&c, &o->op[i], sizeof(c));
}

/* o compacted into a new entry (one block); NULL when out of memory.
 * part: keep the attention-core ops alone. */
static struct pred_plan_entry *pack(const struct llm_ops *o, int part, struct pred_fold_op *fold,
				    int nfold)
{
	struct pred_plan_entry *e;
	int i, nu = 0, nkv = 0, *copy = NULL;
	size_t sz;
	for (i = 0; i < o->n; i++)
		nkv += o->op[i].kind == LLM_OP_KV;
	if (part) {
		nu = nkv;
	} else {
		/* copy[i]: the op i copies, or -1 */
		if (!(copy = malloc((size_t)(o->n > 0 ? o->n : 1) * sizeof(*copy))))
			return NULL;
		for (i = 0; i < o->n; i++) {
			copy[i] = copy_of(o, i, o->op[i].like - 1) ? o->op[i].like - 1 : -1;
			nu += copy[i] < 0;
		}
	}
	sz = sizeof(*e) + (size_t)nu * sizeof(*e->u) +
	     ((size_t)o->n * (part ? 1 : 2) + (size_t)nkv) * sizeof(int);
	if (!(e = malloc(sz))) {
		free(copy);
		return NULL;
	}
	e->u = (struct llm_op *)(void *)(e + 1);
	e->kl = (int *)(void *)(e->u + nu);
	e->kvidx = e->kl + o->n;
	e->src = part ? NULL : e->kvidx + nkv;
	e->n = o->n;
	e->nu = nu;
	e->nkv = nkv;
	e->fold = fold;
	e->nfold = nfold;
	for (i = nu = nkv = 0; i < o->n; i++) {
		const struct llm_op *op = &o->op[i];
		e->kl[i] = KL(op);
		if (op->kind == LLM_OP_KV)
			e->kvidx[nkv++] = i;
		if (part) {
			if (op->kind == LLM_OP_KV)
				e->u[nu++] = *op;
			continue;
		}
		if (copy[i] >= 0) {
			e->src[i] = e->src[copy[i]];
			continue;
		}
		e->u[nu] = *op;
		e->u[nu].like = 0;
		e->src[i] = nu++;
	}
	free(copy);
	plans.bytes += sz + (size_t)nfold * sizeof(*fold);
	return e;
}

/*
 * The entry of list (sh, st): with fold > 0 the whole list and its fold
 * under c's layout (fold - 1: the step's DCP flag), with fold 0 a part's
 * (a mixed step's second or third list); built and stored when new. 1 and
 * *out; 0 when the table cannot take it (the caller builds the list); or
 * an error.
 */
static int entry(const struct pred_cfg *c, const struct llm_shard *sh, const struct llm_step *st,
		 int fold, const struct pred_plan_entry **out, struct plumb_err *err)
{
	int64_t k[PLAN_KEY];
	uint64_t h;
	struct pred_plan_entry *e = NULL;
	struct pred_fold_op *f = NULL;
	struct llm_ops o;
	int ctx, rc, nf = 0;

	pthread_mutex_lock(&plans.mu);
	ctx = ctx_of(c->m, &c->prec);
	make_key(k, ctx, sh, st,
		 fold ? 1 + ((int64_t)c->lay.kind << 8 | (int64_t)(c->lay.tp > 1) << 4 | (fold - 1))
		      : 0);
	h = hash_key(k);
	if (ctx >= 0 && plans.cap)
		e = find(k, h)->e;
	rc = ctx < 0 || (!e && plans.bytes >= PLAN_BYTES);
	pthread_mutex_unlock(&plans.mu);
	if (e) {
		*out = e;
		return 1;
	}
	if (rc)
		return 0;
	llm_ops_init(&o);
	if ((rc = llm_step_ops(c->m, &c->prec, sh, st, &o, err)) < 0 ||
	    (fold && (rc = pred_fold_record(c, fold - 1, &o, &f, &nf, err)) < 0)) {
		llm_ops_release(&o);
		return rc;
	}
	pthread_mutex_lock(&plans.mu);
	if (grow() == 0) {
		struct slot *s = find(k, h);
		if (s->e) {             /* another thread stored it meanwhile */
			*out = s->e;
			rc = 1;
		} else if ((e = pack(&o, !fold, f, nf))) {
			s->e = e;
			s->hash = h;
			memcpy(s->key, k, sizeof(s->key));
			plans.used++;
			*out = e;
			f = NULL;
			rc = 1;
		}
	}
	pthread_mutex_unlock(&plans.mu);
	free(f);
	llm_ops_release(&o);
	return rc;
}

/* e's kept ops into o, untimed (o initialised); 0 or -1. */
static int kept_ops(const struct pred_plan_entry *e, struct llm_ops *o)
{
	if (e->nu > o->cap) {
		struct llm_op *op = realloc(o->op, (size_t)e->nu * sizeof(*op));
		if (!op)
			return -1;
		o->op = op;
		o->cap = e->nu;
	}
	memcpy(o->op, e->u, (size_t)e->nu * sizeof(*o->op));
	o->n = e->nu;
	return 0;
}

/* Do a mixed step's three lists line up as pred_merge_mixed needs (the
 * same kinds and layers), with no draft passes to append? */
static int lined_up(const struct pred_plan_entry *u, const struct pred_plan_entry *p,
		    const struct pred_plan_entry *d)
{
	size_t n = (size_t)u->n * sizeof(*u->kl);
	return u->n == p->n && u->n == d->n && !memcmp(u->kl, p->kl, n) && !memcmp(u->kl, d->kl, n);
}

int pred_plan_time(const struct pred_cfg *c, int st, const struct serve_shape *sh,
		   struct pred_timed *t, struct plumb_err *err)
{
	const struct scn_gpu_model *g;
	struct pred_parts pp;
	int rc, dcp, i;

	memset(t, 0, sizeof(*t));
	llm_ops_init(&t->t);
	llm_ops_init(&t->kv);
	if (sh->kind == SERVE_MIXED && c->draft)
		return 0;
	t->graphs = pred_step_graphs(c, sh->kind);
	t->launch = 1e-6 * c->s->k.v[t->graphs ? K_KERNEL_LAUNCH_US : K_KERNEL_LAUNCH_EAGER_US];
	if ((rc = pred_stage_parts(c, st, sh, &pp, err)) < 0)
		return rc;
	dcp = c->lay.dcp > 1 && sh->kind != SERVE_PREFILL;
	if ((rc = entry(c, &pp.sh[0], &pp.step[0], 1 + dcp, &t->e, err)) <= 0)
		return rc;
	if (pp.n == 3) {
		if ((rc = entry(c, &pp.sh[1], &pp.step[1], 0, &t->pe, err)) <= 0 ||
		    (rc = entry(c, &pp.sh[2], &pp.step[2], 0, &t->de, err)) <= 0)
			return rc;
		if (!lined_up(t->e, t->pe, t->de))
			return 0;
	}
	g = pred_stage_gpu(c, st);
	if (kept_ops(t->e, &t->t) < 0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = llm_ops_time(&t->t, g, &c->s->k, 1, NULL, err)) < 0)
		return rc;
	if (pp.n == 3) {
		const struct pred_plan_entry *u = t->e, *p = t->pe, *d = t->de;
		if (u->nkv > t->kv.cap) {
			struct llm_op *op = realloc(t->kv.op, (size_t)u->nkv * sizeof(*op));
			if (!op)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			t->kv.op = op;
			t->kv.cap = u->nkv;
		}
		for (i = 0; i < u->nkv; i++) {
			struct llm_op *o = &t->kv.op[i];
			*o = u->u[u->src[u->kvidx[i]]];
			o->layer = (u->kl[u->kvidx[i]] >> 12) - 1;
			pred_merge_kv(o, &p->u[i], &d->u[i]);
			/* a hint: llm_ops_time takes the one before's times
			 * only when its inputs are the same */
			o->like = i;
		}
		t->kv.n = u->nkv;
		if ((rc = llm_ops_time(&t->kv, g, &c->s->k, 1, NULL, err)) < 0)
			return rc;
	}
	t->fold = t->e->fold;
	t->nfold = t->e->nfold;
	return 1;
}

double pred_timed_sum(struct pred_timed *t, int end)
{
	const struct pred_plan_entry *e = t->e;
	const struct llm_op *u = t->t.op, *kv = t->kv.op;
	double acc = 0;
	int j = t->j;
	if (t->graphs && !t->pe) {
		for (; j < end; j++)
			acc += u[e->src[j]].seconds;
	} else if (t->graphs) {
		for (; j < end; j++)
			acc += (e->kl[j] & 15) == LLM_OP_KV ? kv[t->kvj++].seconds
							     : u[e->src[j]].seconds;
	} else {
		/* eager: llm_ops_time's launches over the list in order */
		for (; j < end; j++) {
			const struct llm_op *o = t->pe && (e->kl[j] & 15) == LLM_OP_KV
							 ? &kv[t->kvj++]
							 : &u[e->src[j]];
			double busy = o->kmin_s + fmax(o->mem_s, o->compute_s);
			acc += llm_eager_launch(o->kernels, busy, t->launch, &t->host, &t->gpu) + busy;
		}
	}
	t->j = j;
	return acc;
}

void pred_timed_release(struct pred_timed *t)
{
	llm_ops_release(&t->t);
	llm_ops_release(&t->kv);
}
