/*
 * coll_cache.c - derived state of a scenario shared by every simulation of
 * it in the process (coll.h, "Shared derived state").
 *
 * An entry is keyed on the scenario's content, not its address: a sweep
 * frees variants and parses others that may land at the same address, and
 * a calibration changes constants in place. A lookup compares the caller's
 * scenario byte for byte with the entry's machine and constants (all of
 * struct scenario but its table and catalog pointers, then the tables and
 * the catalog's entries its nodes name), so a hit is a scenario every
 * derived value is a function of.
 *
 * The view and the routes depend on the machine alone, not on the
 * constants nor the `serving:` section: entries of one machine under other
 * constants (an interval's draws) or engines (the ones a prediction
 * compares) share them (struct coll_views, counted references), built once
 * from a copy of the scenario and of its GPU catalog that they own, so
 * they never point at a scenario that was freed. On a machine of 1,024
 * GPUs a view is tens of megabytes and a fraction of a second to build;
 * a thread wanting one that another thread is building waits for it.
 *
 * The pool is process-wide, like the parsed catalogs (io/scn_catalog.c,
 * models/llm/llm.c): every command reaches it without a context to carry,
 * and the sweep's threads share it under one mutex. It holds at most
 * POOL_CAP entries; the least recently used entry nobody holds goes first.
 * Values computed from it are pure functions of the key, so which thread
 * fills an entry, and when, changes no output.
 */
#include "coll.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define POOL_CAP 16

/* A tuner question (coll_time's spec, normalised) and its answer. */
struct choice_key {
	int op, n, algo, proto, root, custom, flow;
	double bytes;
	const int *gpus;                /* [n]: the question's, or a kept answer's own */
};

struct choice {
	struct choice_key k;
	int *gpus;                      /* owned: k.gpus */
	uint64_t hash;
	struct coll_result r;
};

/* What the machine alone derives: shared by the entries of one machine. */
struct coll_views {
	struct scenario *s;             /* owned copy; s->catalog = cat; its constants and serving: are
					   the first entry's, which nothing here reads */
	struct scn_catalog *cat;        /* owned copy of the scenario's catalog */
	struct topo_opts o;
	struct topo_view *view;
	struct fab_routes *routes;
	atomic_int refs;                /* entries holding it */
};

/* The tuner's answers: open addressing, power-of-two capacity, -1 empty.
 * Shared by the entries whose scenarios differ only in their `serving:`
 * section (the engines a prediction compares): the tuner reads of it only
 * serving.allreduce, through the question's custom (coll_custom_of), which
 * is in the key. */
struct coll_answers {
	struct choice *ch;
	int nch, chcap;
	int *slot;
	int nslot;
	atomic_int refs;                /* entries holding it */
};

struct coll_scn {
	struct coll_views *vw;          /* held */
	struct coll_answers *ans;       /* held */
	struct plumb_consts k;          /* the entry's constants */
	struct scn_serving serving;     /* the entry's `serving:` (its view's may be
					   another entry's) */
	unsigned char k_catalog[K_NCONSTS];
	uint64_t id;
	int refs;
	int pooled;                     /* 0: not in the pool, freed on the last put */
	uint64_t tick;
};

/* Views being built outside the lock (their machine and options, the
 * builder's scenario borrowed): a thread wanting the same one waits for it
 * (cv) rather than building a copy of tens of megabytes. */
#define PEND_CAP 16

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct coll_scn *e[POOL_CAP];
	const struct scenario *pend[PEND_CAP];
	const struct topo_opts *pend_o[PEND_CAP];
	uint64_t next_id, tick;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { NULL }, { NULL }, { NULL },
	  0, 0 };

/*
 * The step model's kernel constants: models/llm/llm_step.c is their only
 * reader (it turns them into the step's op durations, which the step memo
 * keys on), so nothing derived here depends on them. The defaults'
 * interval draws (cli/cmd.c) vary exactly these: leaving them out of the
 * key lets every draw share the views, routes and tuner answers.
 */
static int step_only(int i)
{
	switch (i) {
	case K_MEM_EFF: case K_ATTN_MEM_EFF: case K_MOE_MEM_EFF: case K_FLOPS_EFF:
	case K_FP4_FLOPS_EFF: case K_KMIN_GEMM_US: case K_KMIN_MOE_US: case K_KMIN_ATTN_US:
	case K_KMIN_ELEM_US: case K_KERNEL_LAUNCH_US: case K_FP8_FLOPS_EFF: case K_FP8T_FLOPS_EFF:
	case K_ATTN_FLOPS_EFF: case K_ATTN_FP8_FLOPS_EFF: case K_GEMM_TILE_M:
	case K_MOE_FLOPS_REL:
		return 1;
	default:
		return 0;
	}
}

/* The machine: the bytes of struct scenario but its constants (k,
 * k_catalog and where they come from, k_line and k_col), its `serving:`
 * section (nothing derived from the machine reads it: the entries and the
 * tuner's key hold it), the tables' pointers and room and the two catalog
 * pointers; the tables and the catalog by content; b's catalog is bcat. */
static int same_machine_of(const struct scenario *a, const struct scenario *b,
			   const struct scn_catalog *bcat)
{
	size_t k0 = offsetof(struct scenario, k);
	size_t k1 = offsetof(struct scenario, k_col) + sizeof(a->k_col);
	size_t head = offsetof(struct scenario, hosts);
	size_t tail = offsetof(struct scenario, own_catalog) + sizeof(a->own_catalog);
	size_t sv0 = offsetof(struct scenario, serving);
	size_t sv1 = sv0 + sizeof(a->serving);
	if (memcmp(a, b, k0) != 0)
		return 0;
	if (memcmp((const char *)a + k1, (const char *)b + k1, sv0 - k1) != 0 ||
	    memcmp((const char *)a + sv1, (const char *)b + sv1, head - sv1) != 0)
		return 0;
	if (!scn_same_tables(a, b))
		return 0;
	if (tail < sizeof(*a) && memcmp((const char *)a + tail, (const char *)b + tail,
					sizeof(*a) - tail) != 0)
		return 0;
	if (!a->catalog || !b->catalog)
		return !a->catalog && !b->catalog;
	if (a->catalog->n != bcat->n)
		return 0;
	/* The entries the machine's nodes name (the nodes are equal, so both
	 * name the same ones): everything derived here reads the catalog
	 * through a node's gpu_model (topo, bar, fabric, xfer, coll_tune,
	 * coll_rccl), never another entry. A whole catalog is tens of GPUs of
	 * 8.8 kB each, compared at every step otherwise. */
	{
		unsigned char seen[SCN_MAX_CATALOG];
		int i, m;
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < a->nnodes; i++) {
			m = a->nodes[i].gpu_model;
			if (m < 0 || m >= a->catalog->n || seen[m])
				continue;
			seen[m] = 1;
			if (memcmp(&a->catalog->gpus[m], &bcat->gpus[m], sizeof(a->catalog->gpus[m])))
				return 0;
		}
	}
	return 1;
}

static int same_machine(const struct scenario *a, const struct coll_views *w)
{
	return same_machine_of(a, w->s, w->cat);
}

/*
 * A VM guest's host-path constants: read only for a scenario that is a VM
 * guest (coll_vm_step_us returns 0 on bare metal before reading any;
 * vm_dma_us counts only where xfer_ctx_init sets vm_translate, a VM guest
 * with a translating host IOMMU). The defaults' interval draws
 * vm_path_scale for every box (cli/cmd.c perturb_vm), so on bare metal
 * leaving these out of the key lets every draw share the tuner's answers.
 */
static int vm_only(int i)
{
	switch (i) {
	case K_VM_DMA_US: case K_VM_SHM_STEP_US: case K_VM_EXIT_US: case K_VM_STEP_EXITS:
	case K_VM_IOTLB_MISS_US: case K_VM_STEP_PAGES: case K_VM_VIOMMU_FACTOR:
	case K_VM_NUMA_HOP_US: case K_VM_PATH_SCALE:
		return 1;
	default:
		return 0;
	}
}

/* All a derived value depends on: the machine and the constants but the
 * step model's kernel constants (and a VM's host path on bare metal). */
static int same_consts(const struct scenario *a, const struct coll_scn *e);

static int same_scenario(const struct scenario *a, const struct coll_scn *e)
{
	return same_consts(a, e) && same_machine(a, e->vw) &&
	       !memcmp(&a->serving, &e->serving, sizeof(a->serving));
}

/* The tuner's inputs: a's scenario but its `serving:` section. */
static int same_tuner(const struct scenario *a, const struct coll_scn *e)
{
	return same_consts(a, e) && same_machine(a, e->vw);
}

static int same_consts(const struct scenario *a, const struct coll_scn *e)
{
	int i, guest = a->vm.mode == SCN_VM;
	if (memcmp(a->k.set, e->k.set, sizeof(a->k.set)) != 0 ||
	    memcmp(a->k_catalog, e->k_catalog, sizeof(a->k_catalog)) != 0 ||
	    guest != (e->vw->s->vm.mode == SCN_VM))
		return 0;
	for (i = 0; i < K_NCONSTS; i++)
		if (!step_only(i) && (guest || !vm_only(i)) &&
		    memcmp(&a->k.v[i], &e->k.v[i], sizeof(a->k.v[i])) != 0)
			return 0;
	return 1;
}

static void views_put(struct coll_views *w)
{
	if (!w || atomic_fetch_sub(&w->refs, 1) != 1)
		return;
	topo_free(w->view);
	fab_routes_free(w->routes);
	scn_free(w->s);
	free(w->cat);
	free(w);
}

static void answers_put(struct coll_answers *a)
{
	int i;
	if (!a || atomic_fetch_sub(&a->refs, 1) != 1)
		return;
	for (i = 0; i < a->nch; i++)
		free(a->ch[i].gpus);
	free(a->ch);
	free(a->slot);
	free(a);
}

static void entry_free(struct coll_scn *e)
{
	if (!e)
		return;
	views_put(e->vw);
	answers_put(e->ans);
	free(e);
}

/* Routes of the copy's fabric (ACS as the scenario says, as every
 * simulation builds it). */
static int views_routes(struct coll_views *w, struct plumb_err *err)
{
	struct sim_engine *eng = NULL;
	struct fabric *fab = NULL;
	int rc;
	if ((rc = sim_engine_new(w->s->seed, &eng, err)) < 0)
		return rc;
	if ((rc = fab_build(eng, w->s, &fab, err)) == 0)
		rc = fab_routes_build(fab, &w->routes, err);
	fab_free(fab);
	sim_engine_free(eng);
	return rc;
}

/* The view and routes of s's machine under options o, one reference. */
static int views_new(const struct scenario *s, const struct topo_opts *o,
		     struct coll_views **out, struct plumb_err *err)
{
	struct coll_views *w = calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	if (!w || !(w->cat = malloc(sizeof(*w->cat)))) {
		free(w);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	atomic_init(&w->refs, 1);
	if ((rc = scn_dup(s, &w->s, err)) < 0) {
		views_put(w);
		return rc;
	}
	free(w->s->own_catalog);   /* the copy's catalog is w->cat */
	if (s->catalog)
		memcpy(w->cat, s->catalog, sizeof(*w->cat));
	else
		memset(w->cat, 0, sizeof(*w->cat));
	w->s->catalog = s->catalog ? w->cat : NULL;   /* a hand-built scenario may have none */
	w->s->own_catalog = NULL;
	w->o = *o;
	if ((rc = topo_build(w->s, w->s->vm.mode == SCN_VM ? TOPO_GUEST : TOPO_HOST, &w->o,
			     &w->view, err)) < 0 ||
	    (rc = views_routes(w, err)) < 0) {
		views_put(w);
		return rc;
	}
	*out = w;
	return 0;
}

/* A new entry for s over w (its reference passes to the entry), or over
 * a new view and routes when w is NULL. */
static int entry_new(const struct scenario *s, const struct topo_opts *o,
		     struct coll_views *w, struct coll_scn **out, struct plumb_err *err)
{
	struct coll_scn *e = calloc(1, sizeof(*e));
	int rc;

	*out = NULL;
	if (!e) {
		views_put(w);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if (!w && (rc = views_new(s, o, &w, err)) < 0) {
		free(e);
		return rc;
	}
	if (!(e->ans = calloc(1, sizeof(*e->ans)))) {
		views_put(w);
		free(e);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	atomic_init(&e->ans->refs, 1);
	e->vw = w;
	e->k = s->k;
	memcpy(&e->serving, &s->serving, sizeof(e->serving));
	memcpy(e->k_catalog, s->k_catalog, sizeof(e->k_catalog));
	*out = e;
	return 0;
}

/* With pool.mu held: the pool's entry for s under o, taken (a reference
 * more, the lock released), or NULL with the lock still held. */
static struct coll_scn *pool_take(const struct scenario *s, const struct topo_opts *o)
{
	int i;
	for (i = 0; i < POOL_CAP; i++) {
		struct coll_scn *p = pool.e[i];
		if (p && !memcmp(&p->vw->o, o, sizeof(*o)) && same_scenario(s, p)) {
			p->refs++;
			p->tick = ++pool.tick;
			pthread_mutex_unlock(&pool.mu);
			return p;
		}
	}
	return NULL;
}

int coll_scn_get(const struct scenario *s, const struct topo_opts *o, struct coll_scn **out,
		 struct plumb_err *err)
{
	struct coll_scn *e = NULL;
	struct coll_views *w = NULL;
	int i, victim = -1, rc, mine = -1;

	*out = NULL;
	pthread_mutex_lock(&pool.mu);
	for (;;) {
		if ((*out = pool_take(s, o)))
			return 0;
		/* the same machine under other constants or another `serving:`
		 * section (the engines a prediction compares): its view and
		 * routes, which read neither (topo_build, fab_build and
		 * fab_routes_build never look at serving; the questions' custom
		 * comes from the caller's scenario) */
		for (i = 0; i < POOL_CAP && !w; i++) {
			struct coll_scn *p = pool.e[i];
			if (p && !memcmp(&p->vw->o, o, sizeof(*o)) && same_machine(s, p->vw)) {
				w = p->vw;
				atomic_fetch_add(&w->refs, 1);
			}
		}
		if (w)
			break;
		/* another thread is building this machine's view: wait for it */
		for (i = 0; i < PEND_CAP; i++)
			if (pool.pend[i] && !memcmp(pool.pend_o[i], o, sizeof(*o)) &&
			    same_machine_of(s, pool.pend[i], pool.pend[i]->catalog))
				break;
		if (i == PEND_CAP)
			break;
		pthread_cond_wait(&pool.cv, &pool.mu);
	}
	for (i = 0; !w && i < PEND_CAP && mine < 0; i++)
		if (!pool.pend[i]) {
			pool.pend[mine = i] = s;
			pool.pend_o[i] = o;
		}
	pthread_mutex_unlock(&pool.mu);
	/* Built outside the lock: another thread may still build the same one
	 * (more builders than PEND_CAP, or an entry left out of the pool), and
	 * then the first to enter keeps its copy. */
	rc = entry_new(s, o, w, &e, err);
	if (mine >= 0) {
		pthread_mutex_lock(&pool.mu);
		pool.pend[mine] = NULL;
		/* waiters wake once this thread releases the lock below, its entry
		 * in the pool */
		pthread_cond_broadcast(&pool.cv);
		if (rc < 0)
			pthread_mutex_unlock(&pool.mu);
	} else if (rc >= 0) {
		pthread_mutex_lock(&pool.mu);
	}
	if (rc < 0)
		return rc;
	if ((*out = pool_take(s, o))) {
		entry_free(e);
		return 0;
	}
	/* another engine's entry on the same machine and constants: its
	 * tuner answers */
	for (i = 0; i < POOL_CAP; i++) {
		struct coll_scn *p = pool.e[i];
		if (p && !memcmp(&p->vw->o, o, sizeof(*o)) && same_tuner(s, p)) {
			answers_put(e->ans);
			e->ans = p->ans;
			atomic_fetch_add(&e->ans->refs, 1);
			break;
		}
	}
	for (i = 0; i < POOL_CAP && victim < 0; i++)
		if (!pool.e[i])
			victim = i;
	if (victim < 0)
		for (i = 0; i < POOL_CAP; i++)
			if (!pool.e[i]->refs && (victim < 0 || pool.e[i]->tick < pool.e[victim]->tick))
				victim = i;
	e->id = ++pool.next_id;
	e->refs = 1;
	e->tick = ++pool.tick;
	if (victim >= 0) {
		if (pool.e[victim])
			pool.e[victim]->pooled = 0;
		entry_free(pool.e[victim]);
		pool.e[victim] = e;
		e->pooled = 1;
	}
	pthread_mutex_unlock(&pool.mu);
	*out = e;
	return 0;
}

void coll_scn_put(struct coll_scn *e)
{
	int last;
	if (!e)
		return;
	pthread_mutex_lock(&pool.mu);
	last = --e->refs == 0 && !e->pooled;
	pthread_mutex_unlock(&pool.mu);
	if (last)
		entry_free(e);
}

void coll_scn_clear(void)
{
	int i;
	pthread_mutex_lock(&pool.mu);
	for (i = 0; i < POOL_CAP; i++)
		if (pool.e[i] && !pool.e[i]->refs) {
			entry_free(pool.e[i]);
			pool.e[i] = NULL;
		} else if (pool.e[i]) {
			pool.e[i]->pooled = 0;  /* its last holder frees it */
			pool.e[i] = NULL;
		}
	pthread_mutex_unlock(&pool.mu);
}

const struct topo_view *coll_scn_view(const struct coll_scn *e)
{
	return e->vw->view;
}

const struct fab_routes *coll_scn_routes(const struct coll_scn *e)
{
	return e->vw->routes;
}

uint64_t coll_scn_id(const struct coll_scn *e)
{
	return e->id;
}

/* ---- the tuner's answers ---------------------------------------------- */

static void choice_key(const struct coll_spec *c, struct choice_key *k)
{
	memset(k, 0, sizeof(*k));
	k->op = c->op;
	k->n = c->n;
	k->algo = c->algo;
	k->proto = c->proto;
	k->root = c->root;
	k->custom = c->custom;
	k->flow = c->flow;
	k->bytes = c->bytes;
	k->gpus = c->gpus;
}

/* FNV-1a over the key's fields' bytes (normalised, so padding is zero),
 * then its GPUs. */
static uint64_t choice_hash(const struct choice_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	size_t i, n = offsetof(struct choice_key, gpus);
	uint64_t h = 0xcbf29ce484222325ULL;
	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	p = (const unsigned char *)k->gpus;
	for (i = 0; i < (size_t)k->n * sizeof(int); i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int choice_same(const struct choice_key *a, const struct choice_key *b)
{
	return !memcmp(a, b, offsetof(struct choice_key, gpus)) &&
	       !memcmp(a->gpus, b->gpus, (size_t)a->n * sizeof(*a->gpus));
}

/* Index of k's answer in e->ch, or -1. Caller holds the lock. */
static int choice_find(const struct coll_answers *e, const struct choice_key *k, uint64_t h)
{
	size_t i;
	if (!e->nslot)
		return -1;
	for (i = h & (size_t)(e->nslot - 1);; i = (i + 1) & (size_t)(e->nslot - 1)) {
		int j = e->slot[i];
		if (j < 0)
			return -1;
		if (e->ch[j].hash == h && choice_same(&e->ch[j].k, k))
			return j;
	}
}

/* Keep k's answer r. Caller holds the lock. Out of memory only forgets. */
static void choice_add(struct coll_answers *e, const struct choice_key *k, uint64_t h,
		       const struct coll_result *r)
{
	size_t i;
	int *gpus;
	if (choice_find(e, k, h) >= 0)
		return;
	if (e->nch == e->chcap) {
		int cap = e->chcap ? 2 * e->chcap : 32;
		struct choice *n = realloc(e->ch, (size_t)cap * sizeof(*n));
		if (!n)
			return;
		e->ch = n;
		e->chcap = cap;
	}
	if (2 * (e->nch + 1) > e->nslot) {
		int ns = e->nslot ? 2 * e->nslot : 64, j;
		int *n = malloc((size_t)ns * sizeof(*n));
		if (!n)
			return;
		for (j = 0; j < ns; j++)
			n[j] = -1;
		for (j = 0; j < e->nch; j++) {
			for (i = e->ch[j].hash & (size_t)(ns - 1); n[i] >= 0; i = (i + 1) & (size_t)(ns - 1))
				;
			n[i] = j;
		}
		free(e->slot);
		e->slot = n;
		e->nslot = ns;
	}
	if (!(gpus = malloc((size_t)(k->n > 0 ? k->n : 1) * sizeof(*gpus))))
		return;
	memcpy(gpus, k->gpus, (size_t)k->n * sizeof(*gpus));
	e->ch[e->nch].k = *k;
	e->ch[e->nch].k.gpus = gpus;
	e->ch[e->nch].gpus = gpus;
	e->ch[e->nch].hash = h;
	e->ch[e->nch].r = *r;
	for (i = h & (size_t)(e->nslot - 1); e->slot[i] >= 0; i = (i + 1) & (size_t)(e->nslot - 1))
		;
	e->slot[i] = e->nch++;
}

int coll_scn_choice(struct coll_scn *e, const struct coll_spec *c, struct coll_result *r)
{
	struct choice_key k;
	uint64_t h;
	int j;
	choice_key(c, &k);
	h = choice_hash(&k);
	pthread_mutex_lock(&pool.mu);
	j = choice_find(e->ans, &k, h);
	if (j >= 0)
		*r = e->ans->ch[j].r;
	pthread_mutex_unlock(&pool.mu);
	return j >= 0;
}

void coll_scn_choice_add(struct coll_scn *e, const struct coll_spec *c,
			 const struct coll_result *r)
{
	struct choice_key k;
	choice_key(c, &k);
	pthread_mutex_lock(&pool.mu);
	choice_add(e->ans, &k, choice_hash(&k), r);
	pthread_mutex_unlock(&pool.mu);
}
