/*
 * predict_disagg.c - disaggregated designs (predict_disagg.h): parsing,
 * and the KV transfers of serve_disagg_run on one engine and fabric of the
 * scenario that lives for the whole run.
 */
#include "predict_disagg.h"
#include "predict_kvtier.h"
#include "disagg.h"
#include "serve.h"
#include "topo.h"
#include "xfer.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One part "p2:tp4" (or "p:tp4") into count and layout; 0 or EUSAGE. */
static int parse_part(const char *s, size_t n, char *kind, int *count, char *lay,
		      struct plumb_err *err)
{
	const char *colon = memchr(s, ':', n);
	struct step_layout l;
	char num[16];
	size_t k;
	if (!colon || (s[0] != 'p' && s[0] != 'd') || (size_t)(colon - s) > sizeof(num))
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "disaggregated design part '%.*s': want pN:LAYOUT or dN:LAYOUT "
				     "(p2:tp4+d1:tp8)", (int)n, s);
	*kind = s[0];
	*count = 1;
	if (colon > s + 1) {
		for (k = 1; s + k < colon; k++)
			if (!isdigit((unsigned char)s[k]))
				return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
						     "disaggregated design part '%.*s': the instance "
						     "count must be a number", (int)n, s);
		memcpy(num, s + 1, (size_t)(colon - s - 1));
		num[colon - s - 1] = '\0';
		*count = atoi(num);
		if (*count < 1 || *count > 1024)
			return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
					     "disaggregated design part '%.*s': 1 to 1024 instances",
					     (int)n, s);
	}
	k = n - (size_t)(colon + 1 - s);
	if (k < 1 || k > STEP_LAYOUT_MAX)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "disaggregated design part '%.*s': no layout", (int)n, s);
	memcpy(lay, colon + 1, k);
	lay[k] = '\0';
	if (step_layout_parse(lay, &l, err) < 0)
		return -PLUMB_EUSAGE;
	if (l.dp > 1)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "disaggregated design part '%.*s': give instances as the count "
				     "(p2:tp4), not dpN", (int)n, s);
	return 0;
}

int pred_disagg_parse(const char *s, struct pred_disagg *d, struct plumb_err *err)
{
	const char *plus = strchr(s, '+');
	char k1, k2, l1[STEP_LAYOUT_MAX + 1], l2[STEP_LAYOUT_MAX + 1];
	int c1, c2;
	struct step_layout l;
	if (!plus && !strchr(s, ':'))
		return 0;
	if (!plus || strchr(plus + 1, '+'))
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "disaggregated design '%s': want a prefill and a decode part "
				     "joined by '+' (p1:tp4+d1:tp4)", s);
	if (parse_part(s, (size_t)(plus - s), &k1, &c1, l1, err) < 0 ||
	    parse_part(plus + 1, strlen(plus + 1), &k2, &c2, l2, err) < 0)
		return -PLUMB_EUSAGE;
	if (k1 == k2)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "disaggregated design '%s': one part p (prefill) and one d "
				     "(decode)", s);
	memset(d, 0, sizeof(*d));
	d->np = k1 == 'p' ? c1 : c2;
	d->nd = k1 == 'p' ? c2 : c1;
	snprintf(d->lay_p, sizeof(d->lay_p), "%s", k1 == 'p' ? l1 : l2);
	snprintf(d->lay_d, sizeof(d->lay_d), "%s", k1 == 'p' ? l2 : l1);
	step_layout_parse(d->lay_p, &l, NULL);
	d->gp = l.gpus;
	step_layout_parse(d->lay_d, &l, NULL);
	d->gd = l.gpus;
	return 1;
}

int pred_layout_is_design(const char *lay)
{
	return strchr(lay, '+') || strchr(lay, ':');
}

int pred_layout_gpus(const char *lay)
{
	struct pred_disagg d;
	struct step_layout l;
	if (pred_disagg_parse(lay, &d, NULL) == 1)
		return d.np * d.gp + d.nd * d.gd;
	return step_layout_parse(lay, &l, NULL) == 0 ? step_layout_used(&l) : 0;
}

/*
 * What a KV transfer engine (Mooncake's, NIXL's) adds to the wire:
 *  - over RDMA it moves a NIC port's data at PRED_KV_RDMA_EFF of its line
 *    rate: Mooncake's transfer engine benchmark, up to 87 GB/s over 4x 200
 *    Gbps RoCE moving 40 GB (kvcache-ai/Mooncake README.md, Transfer
 *    Engine; https://deepwiki.com/kvcache-ai/Mooncake/1.3-performance-and-benchmarks),
 *    87 of 100 GB/s; a run apart from the PD serving points it is checked
 *    on (validation case public-h800-mooncake-1p1d). The same README's
 *    190 GB/s over 8x 400 Gbps (0.475) is a port class the cases do not
 *    hold; the 200 Gb/s figure is taken as the ports of the checked run
 *    are 200 Gb/s;
 *  - every request's transfer starts PRED_KV_XFER_SETUP_US after its
 *    prefill ends (the engine's request, notification and descriptor
 *    posting): FITTED on the 128-token row of Mooncake's vLLM PD benchmark
 *    (0.54 ms for 20 MB, of which 0.115 ms is wire time at the rate above),
 *    validation/data/public-h800-mooncake-1p1d.csv, whose other rows
 *    are scored.
 */
#define PRED_KV_RDMA_EFF 0.87
#define PRED_KV_XFER_SETUP_US 425.0

/* A step shape's collective bytes per GPU, and the time its ring flows
 * take on the fabric with nothing else on it, remembered. */
struct traffic_memo {
	int prefill;
	struct serve_shape sh;
	double bytes, alone;
};

/* An event for serve_disagg_run: a landing (kind 1) or a step's end
 * (kind 2). */
struct devent {
	int kind, id;
	double t, end;
};

/* The transfers of one run. */
struct dlink {
	const struct scenario *s;       /* the physical scenario */
	const struct pred_cfg *cd;      /* the decode layout: bytes per GPU */
	struct pred_disagg D;
	struct sim_engine *eng;
	struct fabric *fab;
	struct xfer_ctx x;
	int xinit;
	signed char *method;            /* [ngpus x ngpus] XFER_P2P / XFER_BOUNCE, -1 unknown */
	struct devent *ev;              /* FIFO of events not yet reported */
	int nland, headland, capland;
	struct sim_engine *seng;        /* a fabric of the scenario alone: the */
	struct fabric *sfab;            /* time a step's ring flows take there */
	const struct pred_cfg *cp;      /* the prefill layout */
	struct traffic_memo *tm;
	int ntm, captm;
};

struct dreq_arg {
	struct dlink *L;
	int id, left;
};

static int link_done(struct xfer_ctx *x, void *arg, struct plumb_err *err)
{
	struct dreq_arg *a = arg;
	struct dlink *L = a->L;
	(void)x;
	if (--a->left > 0)
		return 0;
	if (serve_grow((void **)&L->ev, &L->capland, L->nland + 1, sizeof(*L->ev)) < 0) {
		free(a);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	L->ev[L->nland].kind = 1;
	L->ev[L->nland].id = a->id;
	L->ev[L->nland++].t = sim_now(L->eng);
	free(a);
	sim_stop(L->eng);
	return 0;
}

static int net_done(struct sim_net *net, int flow, void *arg, struct plumb_err *err)
{
	(void)net;
	(void)flow;
	return link_done(NULL, arg, err);
}

/*
 * A share between hosts: over the NIC nearest the sending GPU and the
 * same-numbered NIC of the receiving host (the KV transfer engines pick
 * NICs by topology, as Mooncake's and NIXL's do: each GPU's own), a flow
 * on fab_path_net's path (GPUDirect RDMA where the path allows it, else
 * staged through host memory), its first byte after the copy latency.
 */
static int send_net(struct dlink *L, int src, int dst, double bytes, double t,
		    struct dreq_arg *a, struct plumb_err *err)
{
	struct sim_flow_spec fs;
	int path[FAB_MAX_PATH], n, i, ways = fab_net_ways(L->fab, src, dst), way = src;
	double pad;
	for (i = 0; i < ways; i++)
		if (fab_net_nic_gpu(L->fab, src, i) == src) {
			way = i;
			break;
		}
	if (ways < 1 || !(n = fab_path_net(L->fab, src, dst, way, path)))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "GPU%d and GPU%d are on two hosts and the scenario has no "
				     "network to join them", src, dst);
	pad = xfer_copy_lat(L->s, src, dst) - fab_path_latency(L->fab, path, n);
	if (L->x.vm_translate)          /* a VM whose host IOMMU translates each DMA */
		pad = (pad > 0 ? pad : 0) + L->s->k.v[K_VM_DMA_US] * 1e-6;
	memset(&fs, 0, sizeof(fs));
	fs.path = path;
	fs.path_len = n;
	fs.bytes = bytes;
	fs.start = t + (pad > 0 ? pad : 0);
	fs.rate_cap = PRED_KV_RDMA_EFF * L->s->net.port_gbps / 8 * 1e9;
	fs.on_done = net_done;
	fs.arg = a;
	return sim_flow_start(L->fab->net, &fs, NULL, err);
}

static enum xfer_method pair_method(struct dlink *L, int a, int b)
{
	const struct scenario *s = L->s;
	signed char *m = &L->method[(size_t)a * (size_t)s->ngpus + (size_t)b];
	if (*m < 0) {
		if (s->nodes[s->gpu_node[a]].host != s->nodes[s->gpu_node[b]].host)
			*m = XFER_P2P;  /* over the NICs: xfer_start routes it */
		else
			*m = topo_p2p_forbidden(s, a, b, NULL, 0) == 0 ? XFER_P2P : XFER_BOUNCE;
	}
	return (enum xfer_method)*m;
}

static int link_send(void *ctx, int id, long tokens, int pi, int di, double t,
		     struct plumb_err *err)
{
	struct dlink *L = ctx;
	struct dreq_arg *a = malloc(sizeof(*a));
	int k, rc;
	if (!a)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	a->L = L;
	a->id = id;
	a->left = L->D.gd + 1;          /* one more, dropped once all are started */
	if (t < sim_now(L->eng))
		t = sim_now(L->eng);    /* as link_traffic: never before the fabric's clock */
	t += PRED_KV_XFER_SETUP_US * 1e-6;
	for (k = 0; k < L->D.gd; k++) {
		struct xfer_spec sp;
		memset(&sp, 0, sizeof(sp));
		sp.src = pi * L->D.gp + k % L->D.gp;
		sp.dst = L->D.np * L->D.gp + di * L->D.gd + k;
		sp.bytes = pred_kv_bytes_gpu(L->cd, k) * (double)tokens;
		if (L->s->nodes[L->s->gpu_node[sp.src]].host != L->s->nodes[L->s->gpu_node[sp.dst]].host) {
			if ((rc = send_net(L, sp.src, sp.dst, sp.bytes, t, a, err)) < 0)
				return rc;
			continue;
		}
		sp.method = pair_method(L, sp.src, sp.dst);
		sp.host_socket = -1;
		sp.start = t;
		sp.done = link_done;
		sp.arg = a;
		if ((rc = xfer_start(&L->x, &sp, err)) < 0)
			return rc;      /* a is owned by the flows started */
	}
	if (--a->left == 0) {           /* every share was a local copy */
		a->left = 1;
		return link_done(&L->x, a, err);
	}
	return 0;
}

static int link_advance(void *ctx, double t_end, int *id, double *t, double *end,
			struct plumb_err *err)
{
	struct dlink *L = ctx;
	int rc;
	if (L->headland == L->nland) {
		L->headland = L->nland = 0;
		if (!(t_end >= sim_now(L->eng)))
			t_end = sim_now(L->eng);
		if ((rc = sim_run(L->eng, t_end, err)) < 0)
			return rc;
		if (L->nland == 0)
			return 0;
	}
	*id = L->ev[L->headland].id;
	*t = L->ev[L->headland].t;
	*end = L->ev[L->headland].end;
	return L->ev[L->headland++].kind;
}

/* The first GPU of instance inst (its ring neighbours: pred_ring_next). */
static int ring_base(const struct dlink *L, int prefill, int inst)
{
	return prefill ? inst * L->D.gp : L->D.np * L->D.gp + inst * L->D.gd;
}

/* The path a step's collectives take from GPU a to GPU b on fabric f: P2P,
 * through host memory where P2P is not allowed, the NICs between hosts. */
static int ring_path(struct dlink *L, struct fabric *f, int a, int b, int *path)
{
	if (L->s->nodes[L->s->gpu_node[a]].host != L->s->nodes[L->s->gpu_node[b]].host)
		return fab_path_net(f, a, b, 0, path);
	if (pair_method(L, a, b) == XFER_P2P)
		return fab_path_gpu(f, a, b, path);
	return fab_path_shm(f, a, b, path);
}

/*
 * Start one flow of tmpl's bytes, start, rate cap and callback from each GPU
 * of the instance whose first GPU is base to the next GPU of its ring
 * (pred_ring_next of layout c) on fabric f, over the path its collectives
 * take (ring_path); a GPU that is its own next, or with no path, sends
 * nothing. With left not NULL, *left counts each flow before it starts.
 * Returns 0 or sim_flow_start's error (the flows started stay).
 */
static int start_ring_flows(struct dlink *L, struct fabric *f, const struct pred_cfg *c,
			    int base, const struct sim_flow_spec *tmpl, int *left,
			    struct plumb_err *err)
{
	int k, rc;
	for (k = 0; k < c->lay.gpus; k++) {
		struct sim_flow_spec fs = *tmpl;
		int path[FAB_MAX_PATH], np, a = base + k, b = pred_ring_next(c, base, k);
		if (a == b || (np = ring_path(L, f, a, b, path)) < 1)
			continue;
		fs.path = path;
		fs.path_len = np;
		if (left)
			(*left)++;
		if ((rc = sim_flow_start(f->net, &fs, NULL, err)) < 0)
			return rc;
	}
	return 0;
}

/*
 * The time the ring flows of a step of instance inst (bytes from each GPU
 * to the next) take on a fabric of the scenario that carries nothing else:
 * what the step's collectives cost on the links with no transfer beside
 * them. Run on a second engine and fabric, kept for the run.
 */
static int ring_alone(struct dlink *L, int prefill, int inst, double bytes, double *alone,
		      struct plumb_err *err)
{
	const struct pred_cfg *c = prefill ? L->cp : L->cd;
	int base = ring_base(L, prefill, inst), rc;
	struct sim_flow_spec fs;
	double t0;
	if (!L->seng && ((rc = sim_engine_new(L->s->seed, &L->seng, err)) < 0 ||
			 (rc = fab_build(L->seng, L->s, &L->sfab, err)) < 0))
		return rc;
	t0 = sim_now(L->seng);
	memset(&fs, 0, sizeof(fs));
	fs.bytes = bytes;
	fs.start = t0;
	if ((rc = start_ring_flows(L, L->sfab, c, base, &fs, NULL, err)) < 0 ||
	    (rc = sim_run(L->seng, INFINITY, err)) < 0)
		return rc;
	*alone = sim_now(L->seng) - t0;
	return 0;
}

/*
 * The bytes one GPU of an instance sends in a step of shape sh through its
 * collectives: each collective of the first stage's program (all the
 * microbatches') as a ring moves them, 2 (n - 1) / n of its bytes for an
 * all-reduce, (n - 1) / n for the others; and the time they take alone on
 * the links (ring_alone).
 */
static int step_bytes(struct dlink *L, int prefill, int inst, const struct serve_shape *sh,
		      double *out, double *alone, struct plumb_err *err)
{
	const struct pred_cfg *c = prefill ? L->cp : L->cd;
	int k, rc, key = prefill ? -1 - inst : inst;
	double b = 0;
	for (k = 0; k < L->ntm; k++)
		if (L->tm[k].prefill == key && !memcmp(&L->tm[k].sh, sh, sizeof(*sh))) {
			*out = L->tm[k].bytes;
			*alone = L->tm[k].alone;
			return 0;
		}
	*out = *alone = 0;
	if ((rc = pred_ring_bytes(c, sh, &b, err)) < 0)
		return rc;
	if (b > 0 && (rc = ring_alone(L, prefill, inst, b, alone, err)) < 0)
		return rc;
	if (serve_grow((void **)&L->tm, &L->captm, L->ntm + 1, sizeof(*L->tm)) < 0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	L->tm[L->ntm].prefill = key;
	L->tm[L->ntm].sh = *sh;
	L->tm[L->ntm].alone = *alone;
	L->tm[L->ntm++].bytes = b;
	*out = b;
	return 0;
}

/* A step whose end waits for its collectives' flows. */
struct step_arg {
	struct dlink *L;
	int code, left;         /* the instance (serve_disagg's code), flows left */
	double t0, start, dur, alone;
};

/* The last flow of a step's collectives is done: the step ends its own
 * time after its start plus what its collectives lost to the transfers. */
static int step_done(struct sim_net *net, int flow, void *arg, struct plumb_err *err)
{
	struct step_arg *a = arg;
	struct dlink *L = a->L;
	double now, late;
	(void)net;
	(void)flow;
	if (--a->left > 0)
		return 0;
	now = sim_now(L->eng);
	late = now - (a->start + a->alone);
	if (serve_grow((void **)&L->ev, &L->capland, L->nland + 1, sizeof(*L->ev)) < 0) {
		free(a);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	L->ev[L->nland].kind = 2;
	L->ev[L->nland].id = a->code;
	L->ev[L->nland].t = now;
	L->ev[L->nland++].end = fmax(now, a->t0 + a->dur + (late > 0 ? late : 0));
	free(a);
	sim_stop(L->eng);
	return 0;
}

/*
 * A step's collectives on the fabric: each GPU of the instance sends its
 * step's collective bytes to the next GPU of its ring over the path its
 * collectives take, as fast as the links let it from the step's start
 * (collectives run at the links' rate in bursts; a step's own flows,
 * alone, take `alone` of its `t1 - t0`). A transfer sharing one of those
 * links takes its share of it; the flows then end later than alone, and
 * the step as much later (pending: advance reports its end). A step whose
 * collectives the fabric cannot move within its time even alone keeps its
 * time, its flows spread over it, as they are then a floor the step's own
 * simulation already went below (a switch's collective offload, a
 * latency-bound protocol).
 */
static int link_traffic(void *ctx, int prefill, int inst, const struct serve_shape *sh,
			double t0, double t1, int *pending, struct plumb_err *err)
{
	struct dlink *L = ctx;
	const struct pred_cfg *c = prefill ? L->cp : L->cd;
	int base = ring_base(L, prefill, inst), rc = 0, burst;
	double bytes, alone, start = t0 > sim_now(L->eng) ? t0 : sim_now(L->eng);
	struct step_arg *sa = NULL;
	struct sim_flow_spec fs;
	*pending = 0;
	if (!(t1 > t0) || (rc = step_bytes(L, prefill, inst, sh, &bytes, &alone, err)) < 0)
		return rc < 0 ? rc : 0;
	if (!(bytes > 0))
		return 0;
	burst = alone > 0 && alone <= t1 - t0;
	if (burst) {
		if (!(sa = calloc(1, sizeof(*sa))))
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		sa->L = L;
		sa->code = prefill ? -1 - inst : inst;
		sa->left = 1;           /* one more, dropped once all are started */
		sa->t0 = t0;
		sa->start = start;
		sa->dur = t1 - t0;
		sa->alone = alone;
	}
	memset(&fs, 0, sizeof(fs));
	fs.bytes = bytes;
	/* a landing reported late (several at one time) leaves the fabric's
	 * clock a little ahead */
	fs.start = start;
	if (burst) {
		fs.on_done = step_done;
		fs.arg = sa;
	} else {
		fs.rate_cap = bytes / (t1 - t0);
	}
	if ((rc = start_ring_flows(L, L->fab, c, base, &fs, burst ? &sa->left : NULL, err)) < 0)
		return rc;      /* sa is owned by the flows started */
	if (burst) {
		if (--sa->left == 0) {
			free(sa);       /* no flow: the step keeps its time */
			return 0;
		}
		*pending = 1;
	}
	return 0;
}

int pred_disagg_serve(const struct pred_run *o, const struct pred_cfg *c, int x,
		      const struct serve_params *sp, struct serve_result *out, char *why,
		      size_t nw, struct plumb_err *err)
{
	const struct scenario *s = c->scn ? c->scn : c->s;
	struct serve_disagg sd;
	struct pred_cfg cp, cd = *c;
	struct dlink L;
	struct serve_params p = *sp;
	struct plumb_err fe;
	int rc, need, k;

	memset(&L, 0, sizeof(L));
	memset(out, 0, sizeof(*out));
	if ((rc = pred_disagg_parse(c->disagg, &L.D, err)) != 1)
		return rc < 0 ? rc : plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
						   "'%s' is no disaggregated design", c->disagg);
	need = L.D.np * L.D.gp + L.D.nd * L.D.gd;
	if (need > s->ngpus)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "design %s needs %d GPUs but %s has %d", c->disagg, need,
				     s->name[0] ? s->name : s->path, s->ngpus);
	/* each instance's steps are simulated on the scenario's first GPUs:
	 * its own must be of their model */
	for (k = 0; k < need; k++) {
		int first = k < L.D.np * L.D.gp ? k % L.D.gp : (k - L.D.np * L.D.gp) % L.D.gd;
		int mk = s->nodes[s->gpu_node[k]].gpu_model, m0 = s->nodes[s->gpu_node[first]].gpu_model;
		if (mk != m0)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "design %s: GPU%d (%s) differs from GPU%d (%s), where its "
					     "instance's steps are simulated; plumb times every instance "
					     "on the scenario's first GPUs, so the GPUs of a design must "
					     "be of one model", c->disagg, k, s->catalog->gpus[mk].id, first,
					     s->catalog->gpus[m0].id);
	}
	if ((rc = pred_run_setup(o, s, L.D.lay_p, &cp, err)) < 0)
		return rc;
	plumb_err_clear(&fe);
	if (pred_check_fit(&cp, 1, o->input, &fe) < 0) {
		snprintf(why, nw, "prefill %s: %s", L.D.lay_p, fe.msg);
		return 1;
	}
	L.s = s;
	L.cd = &cd;
	if (!(L.method = malloc((size_t)s->ngpus * (size_t)s->ngpus)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	memset(L.method, -1, (size_t)s->ngpus * (size_t)s->ngpus);
	if ((rc = sim_engine_new(s->seed, &L.eng, err)) < 0 ||
	    (rc = fab_build(L.eng, s, &L.fab, err)) < 0 ||
	    (rc = xfer_ctx_init(&L.x, L.eng, L.fab, err)) < 0)
		goto out;
	L.xinit = 1;
	memset(&sd, 0, sizeof(sd));
	sd.nprefill = L.D.np;
	sd.ndecode = L.D.nd;
	sd.prefill_fn = pred_serve_step;
	sd.prefill_ctx = &cp;
	sd.decode_fn = pred_serve_step;
	sd.decode_ctx = &cd;
	sd.prefill_kv_tokens = pred_kv_tokens(&cp, o->input);
	sd.decode_kv_tokens = pred_kv_tokens(&cd, o->input + o->output);
	sd.send = link_send;
	sd.advance = link_advance;
	sd.step_traffic = link_traffic;
	/* vLLM's P/D protocol (its connectors and their proxy,
	 * tests/v1/kv_connector/nixl_integration/toy_proxy_server.py): the
	 * proxy sends the prefill request (max_tokens 1, not streamed), waits
	 * for its answer, whose kv_transfer_params address the KV, and only
	 * then sends the decode request, which the client's stream comes
	 * from: two front ends one after the other. The decode instance
	 * takes the moved blocks as computed but for at least the prompt's
	 * last token (v1/core/sched/scheduler.py _update_waiting_for_remote_kv:
	 * "if num_computed_tokens == request.num_tokens: num_computed_tokens
	 * -= 1"), so the first token a client sees is sampled by its first
	 * pass there. SGLang's router sends both requests at once and the
	 * decode instance streams the prefill's first token (its transfer
	 * carries it): one front end, the first token on joining. */
	if (c->s->serving.engine == SCN_ENGINE_VLLM) {
		sd.first_from_decode = 1;
		sd.frontend_hops = 2;
	}
	L.cp = &cp;
	sd.link_ctx = &L;
	p.concurrency = x;
	p.kv_tokens = 0;
	/* a prefill instance's steps take the engine's token budget */
	if (p.chunk_tokens <= 0 && p.max_batched > 0)
		p.chunk_tokens = p.max_batched;
	p.max_batched = 0;      /* decode instances never mix in prefill */
	rc = serve_disagg_run(&p, &sd, out, err);
out:
	if (L.xinit)
		xfer_ctx_release(&L.x);
	fab_free(L.fab);
	sim_engine_free(L.eng);
	free(L.method);
	free(L.ev);
	free(L.tm);
	fab_free(L.sfab);
	sim_engine_free(L.seng);
	return rc;
}
