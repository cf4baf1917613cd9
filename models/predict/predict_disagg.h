/*
 * predict_disagg.h - disaggregated prefill and decode designs on a box or
 * a cluster (docs/model-disagg.md "Disaggregated prefill and decode"): a design
 * "pX:LP+dY:LD" (X prefill instances of layout LP, Y decode instances of
 * layout LD; a count of 1 may be left out: "p:tp4+d:tp4") is served by
 * serve_disagg_run with the step times of each layout and every request's
 * KV cache moved from its prefill instance's GPUs to its decode instance's
 * as transfers on the scenario's fabric.
 *
 * Placement: the prefill instances take the first X x |LP| GPUs of the
 * scenario in order, the decode instances the next Y x |LD|; in a
 * scenario of several hosts the GPUs are numbered host by host, so a
 * design larger than one host spans hosts (p1:tp8+d1:tp8 on two 8-GPU
 * hosts: prefill on the first, decode on the second).
 *
 * Transfer: decode GPU k of an instance receives its share of the KV
 * (pred_kv_bytes_gpu of LD: its heads under TP, the whole MLA latent on
 * every rank) from GPU k mod |LP| of the prefill instance: directly when
 * the pair may P2P (NVLink, or PCIe peer-to-peer, topo_p2p_forbidden on
 * the side the work runs on: the guest in a VM), else bounced through host
 * memory (models/xfer), and between hosts over the NICs (GPUDirect RDMA
 * when the path allows it, else staged through host memory: fab_path_net).
 * All transfers in flight share the links; the request's KV has landed
 * when its last share has.
 *
 * Step times: each instance's steps are simulated with its layout on the
 * scenario's first GPUs (every GPU of a design must be of one model); each
 * step also puts its collectives' bytes on the fabric as flows from each
 * GPU to the next of its ring, in bursts from the step's start, so the
 * transfers share links with them both ways: a transfer takes what the
 * collectives leave, and collectives slowed by a transfer end the step
 * as much later (docs/model-disagg.md "The instances' own traffic").
 *
 * Protocol: under vLLM a request passes two front ends (the proxy's
 * prefill request, then its decode request) and its first token comes
 * from its first pass on the decode instance; under the other engines
 * one front end and the prefill's first token.
 */
#ifndef PLUMB_PREDICT_DISAGG_H
#define PLUMB_PREDICT_DISAGG_H

#include "predict_run.h"

struct pred_disagg {
	int np, nd;                         /* prefill and decode instances */
	char lay_p[STEP_LAYOUT_MAX + 1];    /* their layouts (no dpN) */
	char lay_d[STEP_LAYOUT_MAX + 1];
	int gp, gd;                         /* GPUs per instance */
};

/*
 * Is s a disaggregated design? 1 and *d filled when it is one ("p" and
 * "d" parts joined by '+'), 0 when s is no design (a plain layout), or
 * -PLUMB_EUSAGE when it reads as one but is wrong (message in err).
 */
int pred_disagg_parse(const char *s, struct pred_disagg *d, struct plumb_err *err);

/* 1 when lay is a disaggregated design (it may still be a wrong one). */
int pred_layout_is_design(const char *lay);

/* GPUs a layout or a design uses; 0 when it parses as neither. */
int pred_layout_gpus(const char *lay);

/*
 * The serving run of c's design (c->disagg; c is its decode layout's cfg)
 * at load x with sp's traffic into *out. 1 with why (nw bytes) when the
 * prefill layout does not hold one request; 0 on success. Errors: the
 * setup's, serve_disagg_run's, the fabric's.
 */
int pred_disagg_serve(const struct pred_run *o, const struct pred_cfg *c, int x,
		      const struct serve_params *sp, struct serve_result *out, char *why,
		      size_t nw, struct plumb_err *err);

#endif
