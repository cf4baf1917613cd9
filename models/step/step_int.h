/*
 * step_int.h - the step module's internals shared between its files.
 */
#ifndef PLUMB_STEP_INT_H
#define PLUMB_STEP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "step.h"

/* Pipeline stages a layout may have (step_layout_parse). */
#define STEP_MAX_STAGES 16

/* The shared step memo's table (step_memo.c): key and value are byte
 * strings, copied. step_memo_get fills val (nv bytes) and returns 1 when
 * key is stored with a value of that size, else 0. */
int step_memo_get(const void *key, size_t n, void *val, size_t nv);
void step_memo_put(const void *key, size_t n, const void *val, size_t nv);

/* A growable byte string (oom: an allocation failed; the bytes are then
 * incomplete and must not be used as a key). Freed with free(p). */
struct step_bytes {
	unsigned char *p;
	size_t n, cap;
	int oom;
};

/* The memo key of a step_run (step_memo.c): everything its result depends
 * on, into b (scn: the scenario's shared id, replay: collectives replayed). */
void step_memo_key(struct step_bytes *b, uint64_t scn, int replay, const struct step_layout *l,
		   const struct step_prog *prog, int micro, int rounds, int overlap,
		   double overlap_rate);
/* A stored result's size for ngpus GPUs; r into p (room step_memo_size);
 * p (n bytes) back into r, keeping the caller's inputs in r. */
size_t step_memo_size(int ngpus);
void step_memo_pack(const struct step_result *r, unsigned char *p);
void step_memo_fill(const unsigned char *p, size_t n, struct step_result *r);

/*
 * A set of link ids of the flow network (step_links.c): sorted, no repeats,
 * id[0 .. n). Zero-initialised is empty; owns id; step_links_release frees
 * it. The builders return 0, or -1 when out of memory (s then unchanged).
 */
struct step_links {
	int *id;
	int n, cap;
};

/* The links flagged in flags[0 .. nlinks), clearing each flag (O(nlinks)). */
int step_links_from_flags(struct step_links *s, unsigned char *flags, int nlinks);
/* The ids[0 .. n) (sorted in place; negative ids skipped), O(n log n). */
int step_links_from_ids(struct step_links *s, int *ids, int n);
int step_links_copy(struct step_links *d, const struct step_links *s);
/* 1 when a and b share a link, else 0; O(a.n + b.n). */
int step_links_meet(const struct step_links *a, const struct step_links *b);
void step_links_release(struct step_links *s);

#define STEP_MAX_DENY 64        /* replays denied before replay is given up */

/* A collective seen in this step_run: key, links, and its duration alone. */
struct rentry {
	int op, n, algo, proto;
	int *gpus;                  /* [n], owned */
	double bytes;
	struct step_links links;    /* owned */
	double seconds;
	int have;                   /* seconds recorded from an untainted run */
};

/* Collectives of one step_run, kept across its re-runs. */
struct rcache {
	int nlinks;
	int n, cap;
	struct rentry *e;
	int deny[STEP_MAX_DENY][3]; /* (stage, microbatch, op) always simulated */
	int ndeny;
	unsigned char *scratch;     /* nlinks flags, all 0 between uses */
	struct step_links send;     /* a stage send's links, before its claim copies them */
};

/* 1 when collective instance (stage st, microbatch m, op pc) is on c's deny
 * list (always simulated), else 0. */
int step_denied(const struct rcache *c, int st, int m, int pc);
/* Frees rc, its entries and their links; NULL is a no-op. */
void step_rcache_free(struct rcache *rc);

/*
 * A step of one lane (one stage, one replica, one pass) with replay on and
 * no timeline or hook, run without the engine: its ops in order, every
 * collective at the tuner's time alone, as the engine would run them bit
 * for bit (step_line.c). 1: r holds the result; 0: not such a step (or a
 * collective the tuner gives no time, or the event budget), r to be reset
 * and run in the engine; negative: an error.
 */
struct coll_scn;
int step_line_run(const struct scenario *s, const struct step_layout *l,
		  const struct step_prog *prog, int micro, struct step_result *r,
		  struct coll_scn *shared, struct plumb_err *err);
/* A step of one lane as two-batch overlap (step.h, `overlap`): 0 and r
 * filled, or an error (a layout of more than one stage or replica, or other
 * than two microbatches: PLUMB_EINPUT). */
int step_line_tbo(const struct scenario *s, const struct step_layout *l,
		  const struct step_prog *prog, int micro, struct step_result *r,
		  struct coll_scn *shared, struct plumb_err *err);

#endif
