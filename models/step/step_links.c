/*
 * step_links.c - sets of flow-network links held by the fabric users of a
 * step_run (step_int.h): sorted ids, so that two sets meet in time
 * proportional to their sizes, not to the links of the whole fabric; and
 * the step_run's cache of collectives and their links (struct rcache).
 */
#include "step_int.h"

#include <stdlib.h>
#include <string.h>

static int reserve(struct step_links *s, int n)
{
	int *p;
	if (n <= s->cap)
		return 0;
	if (!(p = realloc(s->id, (size_t)n * sizeof(*p))))
		return -1;
	s->id = p;
	s->cap = n;
	return 0;
}

int step_links_from_flags(struct step_links *s, unsigned char *flags, int nlinks)
{
	int l, n = 0;
	for (l = 0; l < nlinks; l++)
		n += flags[l] != 0;
	if (reserve(s, n) < 0)
		return -1;
	s->n = 0;
	for (l = 0; l < nlinks; l++)
		if (flags[l]) {
			s->id[s->n++] = l;
			flags[l] = 0;
		}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int step_links_from_ids(struct step_links *s, int *ids, int n)
{
	int i;
	qsort(ids, (size_t)n, sizeof(*ids), cmp_int);
	if (reserve(s, n) < 0)
		return -1;
	s->n = 0;
	for (i = 0; i < n; i++)
		if (ids[i] >= 0 && (s->n == 0 || s->id[s->n - 1] != ids[i]))
			s->id[s->n++] = ids[i];
	return 0;
}

int step_links_copy(struct step_links *d, const struct step_links *s)
{
	if (reserve(d, s->n) < 0)
		return -1;
	if (s->n)
		memcpy(d->id, s->id, (size_t)s->n * sizeof(*d->id));
	d->n = s->n;
	return 0;
}

int step_links_meet(const struct step_links *a, const struct step_links *b)
{
	int i = 0, j = 0;
	while (i < a->n && j < b->n) {
		if (a->id[i] == b->id[j])
			return 1;
		if (a->id[i] < b->id[j])
			i++;
		else
			j++;
	}
	return 0;
}

void step_links_release(struct step_links *s)
{
	free(s->id);
	s->id = NULL;
	s->n = s->cap = 0;
}

int step_denied(const struct rcache *c, int st, int m, int pc)
{
	int i;
	for (i = 0; i < c->ndeny && i < STEP_MAX_DENY; i++)
		if (c->deny[i][0] == st && c->deny[i][1] == m && c->deny[i][2] == pc)
			return 1;
	return 0;
}

void step_rcache_free(struct rcache *rc)
{
	int i;
	if (!rc)
		return;
	for (i = 0; i < rc->n; i++) {
		step_links_release(&rc->e[i].links);
		free(rc->e[i].gpus);
	}
	free(rc->e);
	free(rc->scratch);
	step_links_release(&rc->send);
	free(rc);
}
