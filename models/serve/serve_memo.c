/*
 * serve_memo.c - the step-time memo of a serving run (serve_int.h).
 */
#include "serve_int.h"

#include <stdint.h>
#include <stdlib.h>

static size_t memo_hash(const struct serve_shape *sh)
{
	uint64_t h = 0x9e3779b97f4a7c15u;
	h = (h ^ (uint64_t)(unsigned)sh->kind) * 0xff51afd7ed558ccdu;
	h = (h ^ (uint64_t)(unsigned)sh->batch) * 0xff51afd7ed558ccdu;
	h = (h ^ (uint64_t)sh->context) * 0xc4ceb9fe1a85ec53u;
	h = (h ^ (uint64_t)sh->tokens) * 0xc4ceb9fe1a85ec53u;
	h = (h ^ (uint64_t)(unsigned)sh->dbatch) * 0xff51afd7ed558ccdu;
	h = (h ^ (uint64_t)sh->dcontext) * 0xc4ceb9fe1a85ec53u;
	return (size_t)(h ^ (h >> 33));
}

static int same_shape(const struct serve_shape *a, const struct serve_shape *b)
{
	return a->kind == b->kind && a->batch == b->batch && a->context == b->context &&
	       a->tokens == b->tokens && a->dbatch == b->dbatch && a->dcontext == b->dcontext;
}

/* The slot holding the key, or the empty slot where it would go. */
static struct memo *memo_slot(struct memo *t, size_t nslots, const struct serve_shape *sh)
{
	size_t i = memo_hash(sh) & (nslots - 1);
	for (;; i = (i + 1) & (nslots - 1)) {
		struct memo *m = &t[i];
		if (!m->used || same_shape(&m->sh, sh))
			return m;
	}
}

/* Room for one more entry, keeping the table at most half full. */
static int memo_grow(struct loop *lp, struct plumb_err *err)
{
	size_t n = lp->nslots ? 2 * lp->nslots : SERVE_MEMO_MIN, i;
	struct memo *t;
	if (2 * (lp->nmemo + 1) <= lp->nslots)
		return 0;
	t = calloc(n, sizeof(*t));
	if (!t)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < lp->nslots; i++)
		if (lp->memo[i].used)
			*memo_slot(t, n, &lp->memo[i].sh) = lp->memo[i];
	free(lp->memo);
	lp->memo = t;
	lp->nslots = n;
	return 0;
}

int serve_step_time(struct loop *lp, const struct serve_shape *sh, double *s,
		      struct plumb_err *err)
{
	struct memo *m;
	int rc;
	if (lp->nslots) {
		m = memo_slot(lp->memo, lp->nslots, sh);
		if (m->used) {
			*s = m->seconds;
			return 0;
		}
	}
	if ((rc = lp->fn(lp->ctx, sh, s, err)) < 0)
		return rc;
	lp->misses++;
	if ((rc = memo_grow(lp, err)) < 0)
		return rc;
	m = memo_slot(lp->memo, lp->nslots, sh);
	m->used = 1;
	m->sh = *sh;
	m->seconds = *s;
	lp->nmemo++;
	return 0;
}

int serve_step_host(struct loop *lp, const struct serve_shape *sh, double *s,
		    struct plumb_err *err)
{
	struct memo *m;
	int rc;
	*s = 0;
	if (!lp->host_fn)
		return 0;
	m = lp->nslots ? memo_slot(lp->memo, lp->nslots, sh) : NULL;
	if (m && m->used && m->has_host) {
		*s = m->host;
		return 0;
	}
	if ((rc = lp->host_fn(lp->host_ctx, sh, s, err)) < 0)
		return rc;
	if (m && m->used) {
		m->host = *s;
		m->has_host = 1;
	}
	return 0;
}
