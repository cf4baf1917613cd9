/*
 * flow.c - max-min fair flow network (model and cost in flow.h): links,
 * flows and their lifecycle, the public queries and the invariant walk.
 * The rates come from one of two solvers behind flow_int.h: flow classes
 * on virtual clocks (flow_class.c, the default) or the per-flow reference
 * (flow_ref.c).
 *
 * Invariants:
 *   - a flow slot is FREE, WAITING (its activation event pending) or ACTIVE
 *     (in act[] at act_idx, and in the solver's books);
 *   - resolve_pending is 1 exactly when a re-solve event is queued;
 *   - after a solve, for every link the sum of active rates <= capacity.
 * Per-link and per-flow solver scratch lives in the link and flow records,
 * so a solve allocates nothing.
 */
#include "flow_int.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[SIM_LINK_NKINDS] = {
	[SIM_LINK_PCIE] = "pcie",
	[SIM_LINK_SWITCH] = "switch",
	[SIM_LINK_ROOT_COMPLEX] = "root_complex",
	[SIM_LINK_INTER_SOCKET] = "inter_socket",
	[SIM_LINK_HOST_DRAM] = "host_dram",
	[SIM_LINK_NVLINK] = "nvlink",
	[SIM_LINK_NVSWITCH] = "nvswitch",
	[SIM_LINK_NETWORK] = "network",
};

const char *sim_link_kind_name(enum sim_link_kind kind)
{
	if ((int)kind < 0 || kind >= SIM_LINK_NKINDS)
		return "?";
	return kind_names[kind];
}

static int on_activate(struct sim_engine *eng, void *ctx,
		       const struct sim_event *ev, struct plumb_err *err);
static int on_complete(struct sim_engine *eng, void *ctx,
		       const struct sim_event *ev, struct plumb_err *err);
static int on_solve(struct sim_engine *eng, void *ctx,
		    const struct sim_event *ev, struct plumb_err *err);

static const struct sim_ops ops_activate = { "flow_activate", on_activate };
static const struct sim_ops ops_complete = { "flow_complete", on_complete };
static const struct sim_ops ops_solve = { "flow_resolve", on_solve };

int sim_net_new(struct sim_engine *eng, struct sim_net **out,
		struct plumb_err *err)
{
	struct sim_net *net = calloc(1, sizeof(*net));
	const char *solver;
	int rc;

	*out = NULL;
	if (!net)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "out of memory creating a flow network");
	net->eng = eng;
	net->free_head = -1;
	net->cls_free = -1;
	solver = getenv("PLUMB_FLOW_SOLVER");
	if (solver && *solver && strcmp(solver, "classes") != 0) {
		if (strcmp(solver, "per-flow") != 0) {
			rc = plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					   "PLUMB_FLOW_SOLVER is '%.40s'; it "
					   "must be 'classes' (the default) "
					   "or 'per-flow'", solver);
			goto fail;
		}
		net->per_flow = 1;
	}
	if ((rc = sim_register(eng, &ops_activate, net, &net->kind_act, err)) ||
	    (rc = sim_register(eng, &ops_complete, net, &net->kind_done, err)) ||
	    (rc = sim_register(eng, &ops_solve, net, &net->kind_solve, err)))
		goto fail;
	*out = net;
	return 0;
fail:
	sim_net_free(net);
	return rc;
}

void sim_net_free(struct sim_net *net)
{
	int i;

	if (!net)
		return;
	for (i = 0; i < net->nslots; i++)
		free(net->flows[i].path);
	free(net->flows);
	free(net->act);
	free(net->uf);
	free(net->links);
	free(net->touched);
	free(net->shl);
	free(net->lcnt);
	cls_free_all(net);
	free(net->keybuf);
	free(net->dirty);
	free(net);
}

int sim_net_add_link(struct sim_net *net, enum sim_link_kind kind,
		     double capacity, double latency, int *id,
		     struct plumb_err *err)
{
	struct link *l;

	if (!(capacity > 0) || !isfinite(capacity))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "link capacity must be a positive finite "
				     "number of bytes/s, got %g", capacity);
	if (!(latency >= 0) || !isfinite(latency))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "link latency must be a finite number of "
				     "seconds >= 0, got %g", latency);
	if ((int)kind < 0 || kind >= SIM_LINK_NKINDS)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "unknown link kind %d", (int)kind);
	if (net->nlinks == net->caplinks) {
		int ncap = net->caplinks ? net->caplinks * 2 : 16;
		struct link *nl = realloc(net->links,
					  (size_t)ncap * sizeof(*nl));
		struct lcount *nc;
		int *nt;

		if (!nl)
			goto oom;
		net->links = nl;
		nt = realloc(net->touched, (size_t)ncap * sizeof(*nt));
		if (!nt)
			goto oom;
		net->touched = nt;
		nt = realloc(net->shl, (size_t)ncap * sizeof(*nt));
		if (!nt)
			goto oom;
		net->shl = nt;
		nc = realloc(net->lcnt, (size_t)ncap * sizeof(*nc));
		if (!nc)
			goto oom;
		net->lcnt = nc;
		net->caplinks = ncap;
	}
	l = &net->links[net->nlinks];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->cap = capacity;
	l->lat = latency;
	l->shi = -1;
	net->lcnt[net->nlinks].nact = 0;
	net->lcnt[net->nlinks].xid = 0;
	net->lcnt[net->nlinks].cap = capacity;
	*id = net->nlinks++;
	return 0;
oom:
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
			     "out of memory adding a link");
}

int sim_net_nlinks(const struct sim_net *net)
{
	return net->nlinks;
}

double sim_net_link_capacity(const struct sim_net *net, int link)
{
	assert(link >= 0 && link < net->nlinks);
	return net->links[link].cap;
}

double sim_net_link_latency(const struct sim_net *net, int link)
{
	assert(link >= 0 && link < net->nlinks);
	return net->links[link].lat;
}

enum sim_link_kind sim_net_link_kind(const struct sim_net *net, int link)
{
	assert(link >= 0 && link < net->nlinks);
	return net->links[link].kind;
}

double sim_net_link_load(const struct sim_net *net, int link)
{
	double sum = 0;
	int i, j;

	for (i = 0; i < net->nact; i++) {
		const struct flow *f = &net->flows[net->act[i]];
		for (j = 0; j < f->plen; j++)
			if (f->path[j] == link) {
				double r = sim_flow_rate(net, net->act[i]);
				int k;
				for (k = 0; k < f->w; k++)  /* as separate flows */
					sum += r;
			}
	}
	return sum;
}

int sim_net_set_solver(struct sim_net *net, enum sim_flow_solver solver,
		       struct plumb_err *err)
{
	if (solver != SIM_SOLVER_CLASSES && solver != SIM_SOLVER_PER_FLOW)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "unknown flow solver %d", (int)solver);
	if (net->nflows > 0)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "the flow solver can only change while "
				     "no flow is open (%d are)", net->nflows);
	net->per_flow = solver == SIM_SOLVER_PER_FLOW;
	return 0;
}

enum sim_flow_solver sim_net_solver(const struct sim_net *net)
{
	return net->per_flow ? SIM_SOLVER_PER_FLOW : SIM_SOLVER_CLASSES;
}

/* Check spec; 0 or -PLUMB_EINPUT. Uses link stamps to find repeats. */
static int check_spec(struct sim_net *net, const struct sim_flow_spec *s,
		      struct plumb_err *err)
{
	double now = sim_now(net->eng);
	int i;

	if (!(s->bytes >= 0) || !isfinite(s->bytes))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "flow size must be a finite number of "
				     "bytes >= 0, got %g", s->bytes);
	if (!(s->rate_cap >= 0) || !isfinite(s->rate_cap))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "flow rate cap must be finite and >= 0 "
				     "(0 = none), got %g", s->rate_cap);
	if (!(s->start >= now) || !isfinite(s->start))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "flow start %.9g s lies before the "
				     "current time %.9g s", s->start, now);
	if (s->path_len < 0 || (s->path_len == 0 && s->rate_cap == 0))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "flow needs at least one link or a rate "
				     "cap (path length %d)", s->path_len);
	net->stamp++;
	for (i = 0; i < s->path_len; i++) {
		int l = s->path[i];
		if (l < 0 || l >= net->nlinks)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "flow path names link %d; the "
					     "network has links 0..%d", l,
					     net->nlinks - 1);
		if (net->links[l].stamp == net->stamp)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "flow path crosses link %d twice",
					     l);
		net->links[l].stamp = net->stamp;
	}
	return 0;
}

/* A free flow slot index, or -1 when memory runs out. */
static int flow_alloc(struct sim_net *net)
{
	int id;

	if (net->free_head >= 0) {
		id = net->free_head;
		net->free_head = net->flows[id].next_free;
		return id;
	}
	if (net->nslots == net->capflows) {
		int ncap = net->capflows ? net->capflows * 2 : 32;
		struct flow *nf = realloc(net->flows,
					  (size_t)ncap * sizeof(*nf));
		int *na;

		if (!nf)
			return -1;
		net->flows = nf;
		na = realloc(net->act, (size_t)ncap * sizeof(*na));
		if (!na)
			return -1;
		net->act = na;
		na = realloc(net->uf, (size_t)ncap * sizeof(*na));
		if (!na)
			return -1;
		net->uf = na;
		/* an id is listed at most twice between solves: a flow that
		 * ended in the instant and a new one on its slot */
		na = realloc(net->dirty, 2 * (size_t)ncap * sizeof(*na));
		if (!na)
			return -1;
		net->dirty = na;
		net->capflows = ncap;
	}
	id = net->nslots++;
	memset(&net->flows[id], 0, sizeof(net->flows[id]));
	return id;
}

static void flow_release(struct sim_net *net, int id)
{
	struct flow *f = &net->flows[id];

	f->state = FLOW_FREE;
	f->gen++;
	f->ev = SIM_HANDLE_NONE;
	f->next_free = net->free_head;
	net->free_head = id;
	net->nflows--;
}

int sim_flow_start(struct sim_net *net, const struct sim_flow_spec *spec,
		   int *id, struct plumb_err *err)
{
	return sim_flow_start_n(net, spec, 1, id, err);
}

int sim_flow_start_n(struct sim_net *net, const struct sim_flow_spec *spec,
		     int copies, int *id, struct plumb_err *err)
{
	struct sim_payload pl;
	struct flow *f;
	double lat = 0;
	int fid, rc, i;

	if (id)
		*id = -1;
	if (copies < 1)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "a flow stands for at least one copy, "
				     "got %d", copies);
	if ((rc = check_spec(net, spec, err)) < 0)
		return rc;
	fid = flow_alloc(net);
	if (fid < 0)
		goto oom;
	f = &net->flows[fid];
	if (f->pcap < spec->path_len) {
		int *np = realloc(f->path, (size_t)spec->path_len * sizeof(*np));
		if (!np) {
			f->next_free = net->free_head;
			net->free_head = fid;
			goto oom;
		}
		f->path = np;
		f->pcap = spec->path_len;
	}
	if (net->kcap < spec->path_len) {
		int *nk = realloc(net->keybuf,
				  (size_t)spec->path_len * sizeof(*nk));
		if (!nk) {
			f->next_free = net->free_head;
			net->free_head = fid;
			goto oom;
		}
		net->keybuf = nk;
		net->kcap = spec->path_len;
	}
	for (i = 0; i < spec->path_len; i++) {
		f->path[i] = spec->path[i];
		lat += net->links[spec->path[i]].lat;
	}
	f->plen = spec->path_len;
	f->w = copies;
	f->bytes = f->remaining = spec->bytes;
	f->rate = f->old_rate = 0;
	f->cap = spec->rate_cap;
	f->t_upd = 0;
	f->on_done = spec->on_done;
	f->arg = spec->arg;
	f->act_idx = -1;
	f->cls = -1;
	f->hidx = -1;
	f->dirty = 0;
	f->state = FLOW_WAITING;
	net->nflows++;
	pl.i0 = fid;
	pl.i1 = f->gen;
	pl.p = NULL;
	rc = sim_at(net->eng, spec->start + lat, SIM_PRIO_DEFAULT,
		    net->kind_act, &pl, &f->ev, err);
	if (rc < 0) {
		flow_release(net, fid);
		return rc;
	}
	for (i = 0; i < copies; i++)    /* as separate flows would add */
		net->bytes_started += spec->bytes;
	if (id)
		*id = fid;
	return 0;
oom:
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
			     "out of memory starting a flow");
}

int flow_mark_dirty(struct sim_net *net, struct plumb_err *err)
{
	int rc;

	if (net->resolve_pending)
		return 0;
	rc = sim_at_instant_end(net->eng, net->kind_solve, NULL, err);
	if (rc == 0)
		net->resolve_pending = 1;
	return rc;
}

/* Complete flow id now: account, callback, free the slot. The flow has
 * already left the active list and the solver's books. */
int flow_finish(struct sim_net *net, int id, struct plumb_err *err)
{
	struct flow *f = &net->flows[id];
	int rc = 0, i;

	for (i = 0; i < f->w; i++)
		net->bytes_done += f->bytes;
	f->remaining = 0;
	f->rate = 0;
	f->ev = SIM_HANDLE_NONE;
	if (f->on_done)
		rc = f->on_done(net, id, f->arg, err);
	/* the callback may have grown net->flows: f may dangle now */
	flow_release(net, id);
	return rc;
}

/* Swap-remove flow id from the active list. */
void flow_act_remove(struct sim_net *net, int id)
{
	struct flow *f = &net->flows[id];
	int last = net->act[--net->nact];

	net->act[f->act_idx] = last;
	net->flows[last].act_idx = f->act_idx;
	f->act_idx = -1;
}

static int on_activate(struct sim_engine *eng, void *ctx,
		       const struct sim_event *ev, struct plumb_err *err)
{
	struct sim_net *net = ctx;
	int id = (int)ev->pl.i0, rc;
	struct flow *f = &net->flows[id];

	assert(f->state == FLOW_WAITING && f->gen == (uint32_t)ev->pl.i1);
	f->ev = SIM_HANDLE_NONE;
	f->state = FLOW_ACTIVE;
	if (f->bytes == 0)
		return flow_finish(net, id, err);
	f->t_upd = sim_now(eng);
	f->act_idx = net->nact;
	net->act[net->nact++] = id;
	if (!net->per_flow && (rc = cls_join(net, id, err)) < 0)
		return rc;
	return flow_mark_dirty(net, err);
}

static int on_complete(struct sim_engine *eng, void *ctx,
		       const struct sim_event *ev, struct plumb_err *err)
{
	struct sim_net *net = ctx;

	(void)eng;
	return net->per_flow ? ref_complete(net, ev, err) :
			       cls_complete(net, ev, err);
}

static int on_solve(struct sim_engine *eng, void *ctx,
		    const struct sim_event *ev, struct plumb_err *err)
{
	struct sim_net *net = ctx;
	struct sim_stats *st = sim_stats_mut(eng);
	int rc;

	(void)ev;
	net->resolve_pending = 0;
	st->resolves++;
	st->resolve_flows += (uint64_t)net->nact;
	rc = net->per_flow ? ref_solve(net, err) : cls_solve(net, err);
	if (rc < 0)
		return rc;
	if (net->hook)
		net->hook(net->hook_ctx, net);
	return 0;
}

double sim_flow_rate(const struct sim_net *net, int flow)
{
	assert(flow >= 0 && flow < net->nslots);
	if (!net->per_flow)
		return cls_flow_rate(net, flow);
	return net->flows[flow].rate;
}

double sim_flow_bytes(const struct sim_net *net, int flow)
{
	assert(flow >= 0 && flow < net->nslots);
	return net->flows[flow].bytes;
}

void *sim_flow_arg(const struct sim_net *net, int flow)
{
	assert(flow >= 0 && flow < net->nslots);
	return net->flows[flow].arg;
}

double sim_flow_rate_cap(const struct sim_net *net, int flow)
{
	assert(flow >= 0 && flow < net->nslots);
	return net->flows[flow].cap;
}

int sim_flow_path(const struct sim_net *net, int flow, const int **path)
{
	assert(flow >= 0 && flow < net->nslots);
	*path = net->flows[flow].path;
	return net->flows[flow].plen;
}

int sim_flow_copies(const struct sim_net *net, int flow)
{
	assert(flow >= 0 && flow < net->nslots);
	return net->flows[flow].w;
}

int sim_net_nactive(const struct sim_net *net)
{
	return net->nact;
}

int sim_net_active(const struct sim_net *net, int i)
{
	assert(i >= 0 && i < net->nact);
	return net->act[i];
}

int sim_net_nflows(const struct sim_net *net)
{
	return net->nflows;
}

double sim_net_bytes_started(const struct sim_net *net)
{
	return net->bytes_started;
}

double sim_net_bytes_done(const struct sim_net *net)
{
	return net->bytes_done;
}

struct sim_engine *sim_net_engine(const struct sim_net *net)
{
	return net->eng;
}

void sim_net_set_resolve_hook(struct sim_net *net, sim_net_hook_fn fn,
			      void *ctx)
{
	net->hook = fn;
	net->hook_ctx = ctx;
}

int sim_net_check(const struct sim_net *net, struct plumb_err *err)
{
	int i, j, waiting = 0, active = 0;
	double *load = calloc((size_t)net->nlinks + 1, sizeof(*load));

	if (!load)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "out of memory checking the network");
	for (i = 0; i < net->nact; i++) {
		int id = net->act[i];
		const struct flow *f = &net->flows[id];
		double rate, rem, slack;

		if (id < 0 || id >= net->nslots || f->state != FLOW_ACTIVE ||
		    f->act_idx != i)
			goto bad_list;
		rate = sim_flow_rate(net, id);
		if (!(rate >= 0) ||
		    (f->cap > 0 && rate > f->cap * (1 + 1e-9))) {
			free(load);
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					     "flow %d: rate %.17g, cap %.17g",
					     id, rate, f->cap);
		}
		/* a virtual clock read back may land a rounding off the
		 * ends; the per-flow solver clamps its own count at 0 */
		rem = net->per_flow ? f->remaining :
				      cls_flow_remaining(net, id);
		slack = net->per_flow ? 0 : 1e-9 * f->bytes;
		if (!(rem >= -slack && rem <= f->bytes + slack)) {
			free(load);
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					     "flow %d: %.17g of %.17g bytes "
					     "remaining", id, rem, f->bytes);
		}
		for (j = 0; j < f->plen; j++)
			load[f->path[j]] += rate * f->w;
	}
	for (i = 0; i < net->nslots; i++) {
		waiting += net->flows[i].state == FLOW_WAITING;
		active += net->flows[i].state == FLOW_ACTIVE;
	}
	if (active != net->nact || waiting + active != net->nflows)
		goto bad_list;
	/* a flow that joined a class since the last solve shows the class's
	 * rate until the solve of that instant: loads are checked between
	 * solves only */
	for (i = 0; i < net->nlinks && (net->per_flow || !net->resolve_pending);
	     i++)
		if (load[i] > net->links[i].cap * (1 + 1e-9)) {
			double l = load[i];
			free(load);
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					     "link %d carries %.17g bytes/s, "
					     "capacity %.17g", i, l,
					     net->links[i].cap);
		}
	free(load);
	return net->per_flow ? 0 : cls_check(net, err);
bad_list:
	free(load);
	return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
			     "active flow list inconsistent (%d listed, %d "
			     "flows open)", net->nact, net->nflows);
}
