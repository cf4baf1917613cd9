/*
 * step.h - one decode (or prefill) step of a parallel layout, compiled into
 * a program per pipeline stage and run by the engine: compute ops take
 * their time on every GPU of the stage, collectives run as flows
 * (models/coll), activations cross stage boundaries as transfers
 * (models/xfer). Microbatches flow through the stages as in a pipeline, so
 * stages overlap and their traffic contends where it shares links.
 *
 * Layouts (names as on the command line, N and M dividing the GPU count):
 *   tpN     N-way tensor parallel: two all-reduces of the activations per layer
 *   tpNppM  N-way tensor parallel inside each of M pipeline stages
 *   epN     data-parallel attention, experts over N GPUs, all-to-all
 *           dispatch and combine around the experts of MoE layers
 *   tpNep   tensor-parallel attention, experts over the same N GPUs,
 *           combined by all-reduce
 *   tpNdcpN decode context parallel (MLA): as tpN, with every sequence's
 *           KV cache split over the N GPUs instead of replicated; each
 *           layer all-gathers the queries and reduce-scatters the partial
 *           attention outputs (with their log-sum-exp) around attention
 *   dpN...  N replicas of the layout that follows (dp8 = eight copies of
 *           one GPU): each on its own GPUs (replica i on the i-th run of
 *           consecutive GPUs, as SGLang's data-parallel controller hands
 *           out base GPU ids: sglang/srt/managers/data_parallel_controller.py
 *           launch_dp_schedulers), all stepping at once on the same fabric, so
 *           their collectives and sends share the box's links
 *
 * Lifecycle: step_layout_parse(), then step_run() with a program built by
 * the caller (step_prog_*), results in a struct step_result the caller
 * zero-initialises (its spans/cap fields are read: NULL/0 = no timeline).
 */
#ifndef PLUMB_STEP_H
#define PLUMB_STEP_H

#include "coll.h"
#include "scn.h"
#include "topo.h"

enum step_kind { LAY_TP, LAY_TPPP, LAY_EP, LAY_TPEP };

/* The longest layout name (tp8pp4, dp8192tp8192pp64 ...); longer text,
 * padded with zeros or signs, is refused rather than cut. */
#define STEP_LAYOUT_MAX 31

struct step_layout {
	char name[STEP_LAYOUT_MAX + 1];
	enum step_kind kind;
	int tp;             /* GPUs per stage sharing attention by TP (ep: 1) */
	int pp;             /* pipeline stages */
	int ep;             /* GPUs the experts spread over (0: no EP) */
	int gpus;           /* GPUs used: tp x pp, or ep */
	int dcp;            /* decode context parallel ranks (1: none) */
	int dp;             /* data-parallel replicas of all the above (1: one copy) */
};

/* GPUs a layout uses: its replicas times the GPUs of one. */
static inline int step_layout_used(const struct step_layout *l)
{
	return (l->dp > 1 ? l->dp : 1) * l->gpus;
}

/* Parse "tp8", "tp4pp2", "ep8", "tp8ep", "dp4tp2", "dp8" (dpN alone: N
 * copies of one GPU each), at most STEP_LAYOUT_MAX characters. Errors name
 * the problem. */
int step_layout_parse(const char *s, struct step_layout *l, struct plumb_err *err);

enum step_op_kind {
	SOP_COMPUTE,        /* every GPU of the stage busy for `seconds` */
	SOP_ALLREDUCE,      /* over the stage's GPUs, `bytes` per rank */
	SOP_ALLTOALL,       /* over the stage's GPUs, `bytes` per rank */
	SOP_ALLGATHER,
	SOP_REDUCESCATTER
};

struct step_op {
	enum step_op_kind kind;
	double seconds;     /* compute */
	double bytes;       /* collectives */
	int tag;            /* what it is, for reports (enum step_tag) */
};

enum step_tag { TAG_ATTN, TAG_MLP, TAG_EXPERTS, TAG_LMHEAD, TAG_OTHER, TAG_COMM_TP,
		TAG_COMM_EP, TAG_COMM_PP, TAG_NTAGS };

/* The ops one stage runs for one microbatch, in order, and the bytes it
 * hands to the next stage at the end. */
struct step_prog {
	int nops, cap;
	struct step_op *ops;
	double send_bytes;  /* activations per GPU pair to the next stage */
};

int step_prog_add(struct step_prog *p, enum step_op_kind k, double seconds, double bytes,
		  int tag, struct plumb_err *err);
void step_prog_release(struct step_prog *p);

/* One interval of one GPU's timeline (for Gantt charts and traces). */
struct step_span {
	int gpu;
	double t0, t1;              /* seconds since the step began */
	int tag;                    /* enum step_tag */
	int comm;                   /* 1: a collective or a stage send */
};

struct step_result {
	/* Optional: set spans and cap before step_run to record every interval;
	 * nspans counts them (those past cap are dropped, nspans still counts). */
	struct step_span *spans;
	int cap, nspans;
	/* Optional, kept like spans: called after every re-solve of the step's
	 * flow network (sim_net_set_resolve_hook), e.g. to trace link loads.
	 * Link ids are those fab_build() gives the scenario. */
	sim_net_hook_fn hook;
	void *hook_ctx;
	/* Optional, kept like spans: 1 simulates every collective (no replay;
	 * the environment variable PLUMB_NO_REPLAY=1 does the same). A hook
	 * turns replay off too: replayed collectives have no flows to trace. */
	int no_replay;
	/* Optional, kept like spans: 3 or 4 runs the batch through the
	 * stages that many times, each microbatch's next pass entering the
	 * first stage when its previous one leaves the last (as engines keep
	 * one batch per stage in flight), and reports the second-to-last pass
	 * in steady state (the last keeps the first stages busy meanwhile):
	 * seconds is its period (from the end of the pass before), busy,
	 * comm, by_tag and sends are per pass, spans those of that window.
	 * 0 or 1: one pass from an empty pipeline. */
	int rounds;
	/* Optional, kept like spans: 1 runs the two microbatches of a step of
	 * one stage and one replica as two-batch overlap (SGLang's
	 * --enable-two-batch-overlap): the GPUs compute one microbatch while
	 * the other's collectives run, the ops of each microbatch in order, one
	 * compute op and one collective at a time (step_line_tbo, step_line.c).
	 * Every collective takes the tuner's time for it alone. */
	int overlap;
	/* Optional, kept like spans: under overlap, the rate a compute op runs
	 * at while a collective runs beside it (the share of the SMs the
	 * communication kernels leave it); 0 or 1: full rate. */
	double overlap_rate;
	double seconds;             /* step time: first start to last finish */
	double window0;             /* simulated time the reported step starts at
				       (0 for one pass) */
	double run_seconds;         /* simulated time of the whole run */
	int ngpus;
	double busy[SCN_MAX_GPUS];  /* compute seconds per GPU */
	double comm[SCN_MAX_GPUS];  /* seconds a GPU spends in collectives or sends */
	double by_tag[TAG_NTAGS];   /* seconds per tag, summed over stages (one GPU each) */
	long events;
	long flows;
	int sends;                  /* stage-boundary transfers (GPU pairs x microbatches) */
	int simulated;              /* collectives run as flows (the last run) */
	int replayed;               /* collectives replayed from an earlier one */
	int reruns;                 /* runs thrown away because a replay met traffic */
};

/*
 * Run one step: pp stages (programs prog[0..pp-1], the same program for
 * every microbatch of a stage), `micro` microbatches, on GPUs stage s ->
 * gpus[s*per_stage .. (s+1)*per_stage-1] of scenario s; with l->dp > 1
 * every replica r runs the same programs at the same time on GPUs offset
 * by r x l->gpus (busy and comm then hold all dp x gpus GPUs, ngpus of
 * them), and the step lasts until the slowest replica is done. Transports come from
 * the view NCCL runs in (options o). Fills r. Deterministic.
 *
 * Replay (docs/engine.md "Collective replay"): a collective identical to an
 * earlier one of the same call (operation, bytes, GPUs, algorithm and
 * protocol) that finds no other traffic on its links is not simulated
 * again: it takes the earlier one's duration, which was measured while it
 * too had its links to itself. Should traffic reach a replayed collective's
 * links before it ends, the run is thrown away and done again with that
 * collective simulated. r->no_replay or PLUMB_NO_REPLAY=1 turns it off.
 */
int step_run(const struct scenario *s, const struct topo_opts *o, const struct step_layout *l,
	     const struct step_prog *prog, int micro, struct step_result *r,
	     struct plumb_err *err);

/*
 * Shared step memo (step_memo.c): step_run() keeps every step it simulated
 * without a timeline or a hook for the whole process, keyed on all its
 * inputs (the scenario by content, coll_scn_id, the topology options, the
 * layout, every op of every program, the microbatches, the passes, whether
 * collectives are replayed), so the serving runs of predict, compare,
 * calibrate, validate and sweep simulate a step once between them. Keys
 * are compared in full; the results are those of the simulation, bit for
 * bit. Thread-safe; the table grows until its keys and values hold 256 MiB.
 * PLUMB_NO_STEP_MEMO=1 in the environment (any value but empty or `0`)
 * simulates every step (tests/replay.sh checks the output is the same).
 *
 * step_memo_stats: lookups that hit and missed, entries and bytes stored.
 * step_memo_clear: forget every step (tests).
 */
struct step_memo_stats {
	unsigned long hits, misses, entries, bytes;
};
void step_memo_stats(struct step_memo_stats *st);
void step_memo_clear(void);

#endif
