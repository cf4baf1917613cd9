/*
 * flow_class_check.c - the class solver's books held against the active
 * flows (cls_check, flow_class.c's invariants), for sim_net_check.
 */
#include "flow_int.h"

#include <stdlib.h>

static int oom(struct plumb_err *err)
{
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
			     "out of memory keeping flow classes");
}

static int broken(struct plumb_err *err, const char *what, int a, int b)
{
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
			     "flow classes: %s (%d, %d)", what, a, b);
}

/*
 * The class books against the active flows: every link's count and XOR of
 * ids, every flow in the class of its key at its heap place (a flow marked
 * for the pending re-solve may be in its old class, or none yet), heaps
 * ordered, the table holding every keyed class once, an event queued for
 * every live class unless a re-solve is pending. O(F x P + L + C).
 */
int cls_check(const struct sim_net *net, struct plumb_err *err)
{
	int *cnt = calloc((size_t)net->nlinks + 1, 2 * sizeof(*cnt));
	int *buf = malloc(((size_t)net->kcap + 1) * sizeof(*buf));
	int i, j, w, nsh, members = 0, placed = 0, chained = 0, rc = 0;

	if (!cnt || !buf) {
		rc = oom(err);
		goto out;
	}
	for (i = 0; i < net->nact; i++) {
		int id = net->act[i];
		const struct flow *f = &net->flows[id];
		const struct fclass *c;
		double cap;
		int n;

		for (j = 0; j < f->plen; j++) {
			cnt[2 * f->path[j]] += f->w;
			cnt[2 * f->path[j] + 1] ^= id;
		}
		if (f->dirty && !net->resolve_pending) {
			rc = broken(err, "flow left unplaced by the solve", id,
				    f->cls);
			goto out;
		}
		if (f->dirty && f->cls < 0)
			continue;       /* started in this instant */
		if (f->cls < 0 || f->cls >= net->ncls ||
		    net->cls[f->cls].act_idx < 0) {
			rc = broken(err, "active flow in no live class", id,
				    f->cls);
			goto out;
		}
		placed++;
		c = &net->cls[f->cls];
		if (f->hidx < 0 || f->hidx >= c->n ||
		    c->heap[f->hidx].id != id || c->heap[f->hidx].tag != f->tag) {
			rc = broken(err, "flow not at its heap place", id,
				    f->hidx);
			goto out;
		}
		n = cls_key_of(net, f, buf, &cap);
		if (!f->dirty && !cls_key_is(c, buf, n, cap)) {
			rc = broken(err, "flow in the class of another key",
				    id, f->cls);
			goto out;
		}
	}
	for (i = 0; i < net->nlinks; i++)
		if (cnt[2 * i] != net->lcnt[i].nact ||
		    (cnt[2 * i] > 0 && cnt[2 * i + 1] != net->lcnt[i].xid)) {
			rc = broken(err, "link flow count or id XOR off", i,
				    net->lcnt[i].nact);
			goto out;
		}
	for (i = nsh = 0; i < net->nlinks; i++) {
		int sh = net->links[i].shi;

		nsh += net->lcnt[i].nact >= 2;
		if ((net->lcnt[i].nact >= 2) != (sh >= 0) ||
		    (sh >= 0 && (sh >= net->nshl || net->shl[sh] != i))) {
			rc = broken(err, "shared links' list off", i, sh);
			goto out;
		}
	}
	if (nsh != net->nshl) {
		rc = broken(err, "shared links' list off", nsh, net->nshl);
		goto out;
	}
	for (i = 0; i < net->nlive; i++) {
		const struct fclass *c = &net->cls[net->cact[i]];

		if (!c->keyed || c->act_idx != i || c->n < 1) {
			rc = broken(err, "live class list off", net->cact[i],
				    c->n);
			goto out;
		}
		for (j = 1; j < c->n; j++)
			if (cls_hent_before(&c->heap[j], &c->heap[(j - 1) / 2])) {
				rc = broken(err, "class heap out of order",
					    net->cact[i], j);
				goto out;
			}
		for (j = w = 0; j < c->n; j++)
			w += net->flows[c->heap[j].id].w;
		if (w != c->w) {
			rc = broken(err, "class weight is not its members' copies",
				    net->cact[i], c->w);
			goto out;
		}
		if (!net->resolve_pending && c->ev == SIM_HANDLE_NONE) {
			rc = broken(err, "class without an event",
				    net->cact[i], c->n);
			goto out;
		}
		members += c->n;
	}
	for (i = 0; i < net->nbucket; i++)
		for (j = net->bucket[i]; j >= 0; j = net->cls[j].next)
			chained++;
	if (members != placed || chained != net->nkeyed ||
	    (!net->resolve_pending && placed != net->nact))
		rc = broken(err, "members or table entries do not add up",
			    members, chained);
out:
	free(cnt);
	free(buf);
	return rc;
}
