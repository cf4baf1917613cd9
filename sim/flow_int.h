/*
 * flow_int.h - what the three files of the flow network share (not part of
 * the interface, which is flow.h):
 *   flow.c        links, flows, their lifecycle and the public queries;
 *   flow_class.c  the default solver: flow classes on virtual clocks;
 *   flow_ref.c    the per-flow reference solver (PLUMB_FLOW_SOLVER=per-flow,
 *                 sim_net_set_solver()), kept to check the first against.
 *
 * Both solvers compute the same max-min rates (flow.h); they differ in what
 * they keep per flow and in how many events they move at a re-solve.
 */
#ifndef PLUMB_SIM_FLOW_INT_H
#define PLUMB_SIM_FLOW_INT_H

#include <stdint.h>

#include "flow.h"

enum { FLOW_FREE = 0, FLOW_WAITING = 1, FLOW_ACTIVE = 2 };

/* A link is saturated in a filling round when its share is within this
 * relative distance of the round's level (flow.h). */
#define SHARE_EPS 1e-12

struct link {
	enum sim_link_kind kind;
	double cap, lat;
	/* solver scratch */
	double rc;              /* capacity not yet given to frozen flows */
	double share;           /* rc / n in the current round */
	int n;                  /* unfrozen flows through the link */
	int sat;                /* saturated in the current round */
	int shi;                /* place in net->shl, -1 while not shared
				   (class solver) */
	uint64_t stamp;         /* solve number that last reset rc and n */
};

/* What the class solver counts per link, apart from struct link so that
 * counting a flow's start or end touches 16 bytes per link, not 64. */
struct lcount {
	int nact;               /* active flows through the link, a flow
				   counting its copies (sim_flow_start_n) */
	int xid;                /* XOR of their ids: the id of the only one
				   when nact == 1 */
	double cap;             /* the link's capacity (a copy) */
};

struct flow {
	int state;
	int act_idx;
	int plen, pcap;
	int w;                  /* identical copies it stands for (>= 1) */
	int *path;              /* owned; reused when the slot is reused */
	uint32_t gen;
	double bytes, cap;
	sim_handle ev;          /* pending activation (both solvers) or
				   completion (per-flow solver) */
	sim_flow_done_fn on_done;
	void *arg;
	int next_free;
	/* per-flow solver */
	double remaining, rate, t_upd;
	double old_rate;        /* rate before this solve */
	/* class solver */
	int cls;                /* its class, -1 when in none */
	int hidx;               /* its place in the class's heap */
	double tag;             /* finish tag on the class's virtual clock */
	int dirty;              /* its key may have changed: in net->dirty,
				   placed again at the next solve */
};

/* A class member in its class's heap: the tag is kept here too, so that the
 * heap's comparisons stay in the heap's own memory. */
struct hent {
	double tag;
	int id;
};

/*
 * A flow class (flow_class.c): the active flows whose shared links (links
 * carrying two active flows or more) and effective cap (their own cap and
 * the capacities of their other links) are the same. Its members all get
 * the same rate. Virtual time V(t) = v0 + rate x (t - t0) counts the bytes
 * one member has moved since the class began; a member that joined at t1
 * with b bytes to go has tag V(t1) + b and finishes when V reaches it.
 */
struct fclass {
	int *links;             /* key: the shared links, ascending; owned */
	int nl, lcap;
	double cap;             /* key: effective cap, 0 = none */
	struct hent *heap;      /* members, a min-heap on (tag, id); owned */
	int n, hcap;
	int w;                  /* members counting their copies: the weight
				   of the class in the filling */
	double rate, old_rate;  /* per member, bytes/s */
	double t0, v0;          /* virtual clock anchor */
	sim_handle ev;          /* pending event: at or before the head's
				   completion, never after */
	double ev_time;         /* its time */
	int ev_head;            /* the head when ev_time was last checked */
	uint32_t gen;           /* changes when the class empties */
	int keyed;              /* 1 while in the hash table */
	uint64_t hash;          /* of the key */
	int next;               /* hash chain, or free list */
	int act_idx;            /* place in net->cact, -1 while empty */
};

struct sim_net {
	struct sim_engine *eng;
	int kind_act, kind_done, kind_solve;
	int per_flow;           /* 1: the reference solver (flow_ref.c) */

	struct link *links;
	struct lcount *lcnt;    /* one per link (class solver) */
	int nlinks, caplinks;
	int *touched;           /* links met by the current solve */
	int *shl;               /* class solver: the shared links (two
				   active flows or more), in no order */
	int nshl;
	uint64_t stamp;

	struct flow *flows;
	int nslots, capflows, free_head, nflows;
	int *act;               /* ids of active flows */
	int nact;
	int *uf;                /* solver scratch: unfrozen flows or classes */

	/* class solver */
	struct fclass *cls;
	int ncls, capcls, cls_free;
	int *bucket;            /* hash table of keyed classes, -1 = empty */
	int nbucket;            /* a power of two, or 0 */
	int nkeyed;             /* classes in the table, empty ones included */
	int nlive;
	int *cact;              /* live classes: those with members */
	int *keybuf;            /* scratch: a key's links */
	int kcap;               /* size of keybuf, at least the longest path */
	int *dirty;             /* flows to place at the next solve (capflows) */
	int ndirty;

	int resolve_pending;
	double bytes_started, bytes_done;

	sim_net_hook_fn hook;
	void *hook_ctx;
};

/* flow.c */
int flow_finish(struct sim_net *net, int id, struct plumb_err *err);
void flow_act_remove(struct sim_net *net, int id);
int flow_mark_dirty(struct sim_net *net, struct plumb_err *err);

/* flow_ref.c: the reference solver */
int ref_complete(struct sim_net *net, const struct sim_event *ev,
		 struct plumb_err *err);
int ref_solve(struct sim_net *net, struct plumb_err *err);

/* flow_class.c: the class solver */
int cls_join(struct sim_net *net, int id, struct plumb_err *err);
int cls_complete(struct sim_net *net, const struct sim_event *ev,
		 struct plumb_err *err);
int cls_solve(struct sim_net *net, struct plumb_err *err);
double cls_flow_rate(const struct sim_net *net, int id);
double cls_flow_remaining(const struct sim_net *net, int id);
int cls_check(const struct sim_net *net, struct plumb_err *err);
void cls_free_all(struct sim_net *net);
/* flow_class.c's helpers that cls_check (flow_class_check.c) reads */
int cls_key_of(const struct sim_net *net, const struct flow *f, int *buf,
	       double *cap);
int cls_key_is(const struct fclass *c, const int *links, int n, double cap);
int cls_hent_before(const struct hent *a, const struct hent *b);

#endif
