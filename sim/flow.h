/*
 * flow.h - flow-level network model on top of the event engine.
 *
 * Links are directed capacity resources: capacity in bytes/s, latency in
 * seconds, and a kind label (PCIe, switch, root complex, ...). A full-duplex
 * PCIe link is two links, one per direction.
 *
 * A flow moves `bytes` along a path (ordered list of distinct link ids),
 * optionally capped at rate_cap bytes/s, starting at an absolute time.
 *
 * LATENCY MODEL ("latency, then bandwidth"): a flow started at t0 first waits
 * the sum L of its path's link latencies without using any bandwidth; at
 * t0 + L it becomes active and transfers at its fair rate until its last
 * byte arrives. A lone flow of B bytes on a path whose narrowest link has
 * capacity C thus completes at t0 + L + B / C. (Store-and-forward and
 * pipelining are not modelled; per-hop latency is added once per flow.)
 * A flow of 0 bytes completes at t0 + L.
 *
 * SHARING: active flows share link capacity max-min fairly, computed by
 * progressive filling (water-filling): all unfrozen flows' rates rise
 * together; when a link's capacity is used up (or a flow reaches its own
 * rate cap), the flows through that link (or that flow) are frozen at the
 * current level; repeat until every flow is frozen. Implemented as rounds:
 *   m = min( min over links l with unfrozen flows of  rc(l) / n(l),
 *            min over unfrozen capped flows of cap(f) )
 *   freeze, at rate m, every unfrozen flow that has a cap <= m or crosses a
 *   link whose share rc(l)/n(l) <= m (1 + 1e-12); subtract m from rc(l) of
 *   every link on its path and decrement n(l).
 * (rc = capacity not yet given to frozen flows, n = unfrozen flows through
 * the link.) No link is ever given more than its capacity: a frozen flow
 * receives m, which is at most the share of every link on its path.
 *
 * WHEN: rates are re-solved whenever a flow becomes active or completes.
 * Every start or completion at one instant marks the network dirty and one
 * re-solve event runs at the end of that same instant (sim_at_instant_end:
 * after every other event of the instant, no queue work), so n flows
 * starting together cost one solve, not n.
 *
 * TWO SOLVERS compute these rates (flow_int.h):
 *   - flow classes (the default, flow_class.c): active flows that cross the
 *     same shared links (links carrying two active flows or more) with the
 *     same effective cap (their own cap and the capacities of their other
 *     links, which act as caps) get the same max-min rate, so the filling
 *     runs over such classes, each weighing its member count. A class keeps
 *     its members' finish tags on a virtual clock that runs at the class's
 *     per-flow rate; only its first finisher has a completion event, and a
 *     re-solve moves one anchor and one event per class whose rate changed,
 *     whatever the number of its members.
 *   - per flow (flow_ref.c): each solve charges every active flow rate x
 *     elapsed time, computes the new rates flow by flow, and reschedules
 *     the completion event of each flow whose rate changed. It is the
 *     reference the class solver is checked against; choose it with
 *     sim_net_set_solver() or PLUMB_FLOW_SOLVER=per-flow in the environment.
 * In exact arithmetic both give the same rates and completion times; in
 * floating point they differ by roundings (completion times within 1e-9
 * relative on random workloads, tests/unit/test_sim_solvers.c).
 *
 * COST of one re-solve: per flow, O(R x (F x P + L)) for F active flows of
 * mean path length P crossing L distinct links, with R rounds (R <= number
 * of distinct bottleneck levels, at most min(F, L + capped flows)), plus
 * O(changed x log pending) to reschedule. With classes, F becomes the
 * number of live classes C and P their shared links; a flow's start and
 * completion add O(P log P + log k) to key it and keep its class (k
 * members), and mark at most one other flow per link of its path whose key
 * they change, placed again at the instant's re-solve.
 * Measured figures: docs/engine.md, docs/perf-engine.md,
 * docs/perf-cluster.md.
 *
 * Flow ids are small integers, reused after the flow's completion callback
 * has returned. Link ids are 0, 1, 2, ... in order of sim_net_add_link().
 */
#ifndef PLUMB_SIM_FLOW_H
#define PLUMB_SIM_FLOW_H

#include "engine.h"

enum sim_link_kind {
	SIM_LINK_PCIE,
	SIM_LINK_SWITCH,
	SIM_LINK_ROOT_COMPLEX,  /* I/O die / root complex */
	SIM_LINK_INTER_SOCKET,
	SIM_LINK_HOST_DRAM,
	SIM_LINK_NVLINK,
	SIM_LINK_NVSWITCH,
	SIM_LINK_NETWORK,       /* a NIC port <-> the network switch */
	SIM_LINK_NKINDS
};

/* Lowercase label of a kind ("pcie", "root_complex", ...), "?" if unknown. */
const char *sim_link_kind_name(enum sim_link_kind kind);

struct sim_net;

enum sim_flow_solver {
	SIM_SOLVER_CLASSES,     /* flow classes on virtual clocks (default) */
	SIM_SOLVER_PER_FLOW     /* the per-flow reference */
};

/*
 * Called at a flow's completion time, before the re-solve of that instant.
 * May start new flows. Returns 0 or a negative plumb code after filling err
 * (stops sim_run()). The flow id stays valid until the callback returns.
 */
typedef int (*sim_flow_done_fn)(struct sim_net *net, int flow, void *arg,
				struct plumb_err *err);

/* Called after every re-solve (for checks and traces). */
typedef void (*sim_net_hook_fn)(void *ctx, const struct sim_net *net);

struct sim_flow_spec {
	const int *path;        /* link ids, distinct; copied */
	int path_len;           /* >= 1, or 0 with rate_cap > 0 */
	double bytes;           /* >= 0 */
	double rate_cap;        /* bytes/s; 0 = no cap */
	double start;           /* absolute time >= sim_now() */
	sim_flow_done_fn on_done;       /* may be NULL */
	void *arg;              /* given back to on_done; caller keeps it */
};

/*
 * Create an empty network driven by eng (which must outlive it; the network
 * registers three event kinds with eng). *out is NULL on failure.
 * Returns 0 or -PLUMB_ERUNTIME.
 */
int sim_net_new(struct sim_engine *eng, struct sim_net **out,
		struct plumb_err *err);

/*
 * Choose the rate solver of net (both above). The default is
 * SIM_SOLVER_CLASSES, or SIM_SOLVER_PER_FLOW when the environment holds
 * PLUMB_FLOW_SOLVER=per-flow at sim_net_new() (any value other than
 * "per-flow", "classes" or empty makes sim_net_new() fail with
 * -PLUMB_EINPUT). Only while no flow is open: returns 0 or -PLUMB_EINPUT.
 */
int sim_net_set_solver(struct sim_net *net, enum sim_flow_solver solver,
		       struct plumb_err *err);
enum sim_flow_solver sim_net_solver(const struct sim_net *net);

/* Free net. Pending events of net's kinds must not run afterwards (free the
 * engine too, or do not call sim_run() again). NULL is a no-op. */
void sim_net_free(struct sim_net *net);

/*
 * Add a link: capacity > 0 bytes/s, latency >= 0 s, both finite.
 * *id receives its id. Returns 0, -PLUMB_EINPUT (bad values) or
 * -PLUMB_ERUNTIME (out of memory).
 */
int sim_net_add_link(struct sim_net *net, enum sim_link_kind kind,
		     double capacity, double latency, int *id,
		     struct plumb_err *err);

int sim_net_nlinks(const struct sim_net *net);
double sim_net_link_capacity(const struct sim_net *net, int link);
double sim_net_link_latency(const struct sim_net *net, int link);
enum sim_link_kind sim_net_link_kind(const struct sim_net *net, int link);

/* Sum of the current rates of active flows through link. O(F x P). */
double sim_net_link_load(const struct sim_net *net, int link);

/*
 * Start a flow (spec copied). *id (if not NULL) receives its id. The flow
 * becomes active at spec->start + path latency. Returns 0, -PLUMB_EINPUT
 * (unknown or repeated link, negative or non-finite bytes/cap, start in the
 * past, empty path without cap) or -PLUMB_ERUNTIME (out of memory).
 * Allocates only when the network's arrays must grow.
 */
int sim_flow_start(struct sim_net *net, const struct sim_flow_spec *spec,
		   int *id, struct plumb_err *err);

/*
 * Start `copies` (>= 1) identical flows of spec as one: the network shares
 * its links as it would among that many flows started one after another
 * with the same spec (each counts on every link of the path and gets the
 * same max-min rate, spec->bytes each), and they finish together, with one
 * completion callback for all of them. So the rates and finish times are
 * those of the separate flows, computed with the same operations (a class
 * already weighs its members by their count; the per-flow solver charges a
 * link rate x copies where it charged rate once per flow). A collective's
 * channels are such copies (models/coll/coll.c send_ch): 24 flows a send
 * on an NVSwitch box cost one flow's events. The byte counters count
 * every copy. Returns what sim_flow_start returns, or -PLUMB_EINPUT when
 * copies < 1.
 */
int sim_flow_start_n(struct sim_net *net, const struct sim_flow_spec *spec,
		     int copies, int *id, struct plumb_err *err);

/*
 * Queries on a started, not yet completed flow (or on its id inside its
 * completion callback). sim_flow_rate: current rate in bytes/s, 0 while the
 * flow waits its latency; sim_flow_bytes: size; sim_flow_rate_cap: cap (0 =
 * none); sim_flow_arg: the spec's arg (still the caller's). sim_flow_path
 * sets *path to the flow's copy of its path (owned by net, valid until the
 * flow completes) and returns its length. Under the class solver a flow
 * that became active at this instant shows its class's rate until the
 * instant's re-solve (the per-flow solver shows 0); no time passes between.
 */
double sim_flow_rate(const struct sim_net *net, int flow);
double sim_flow_bytes(const struct sim_net *net, int flow);
void *sim_flow_arg(const struct sim_net *net, int flow);
double sim_flow_rate_cap(const struct sim_net *net, int flow);
int sim_flow_path(const struct sim_net *net, int flow, const int **path);
/* How many identical flows it stands for (sim_flow_start_n; 1 otherwise):
 * its rate is each copy's, its links carry rate x copies. */
int sim_flow_copies(const struct sim_net *net, int flow);

/* Active flows (past their latency): count, and the id of the i-th (a
 * flow of copies counts once here). */
int sim_net_nactive(const struct sim_net *net);
int sim_net_active(const struct sim_net *net, int i);

/* Flows started but not yet completed (waiting or active). */
int sim_net_nflows(const struct sim_net *net);

/* Bytes of all started flows, and of all completed flows. */
double sim_net_bytes_started(const struct sim_net *net);
double sim_net_bytes_done(const struct sim_net *net);

/* The engine given to sim_net_new() (borrowed). */
struct sim_engine *sim_net_engine(const struct sim_net *net);

/*
 * Walk the network's invariants: active-list bookkeeping, flow counts,
 * every rate within its cap and every link's load within its capacity
 * (relative tolerance 1e-9; loads only when no re-solve is pending under
 * the class solver), remaining bytes within [0, bytes] (1e-9 x bytes of
 * slack for a virtual clock), and under the class solver the class books:
 * link counts, every flow in the class of its key, heaps in order.
 * Returns 0 or -PLUMB_ERUNTIME naming the broken one. O(F x P + L);
 * meant for tests.
 */
int sim_net_check(const struct sim_net *net, struct plumb_err *err);

/* Install (fn NULL: remove) the after-re-solve hook; ctx stays the
 * caller's. The hook must not start flows. */
void sim_net_set_resolve_hook(struct sim_net *net, sim_net_hook_fn fn,
			      void *ctx);

#endif
