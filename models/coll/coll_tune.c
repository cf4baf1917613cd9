/*
 * coll_tune.c - NCCL's own decisions about a collective, as its source
 * makes them (NVIDIA/nccl, src/graph/search.cc, connect.cc, tuning.cc,
 * paths.cc, src/enqueue.cc, src/init.cc; coll.h "NCCL's decisions"):
 * how many channels its ring search finds on the ranks' links, how many
 * of them a collective of a given size runs, which protocol its tuner
 * picks, and how its p2p path (send/recv, all-to-all) splits a transfer.
 * Everything here is a pure function of the scenario, the topology view
 * and the collective; nothing simulates.
 *
 * Bandwidths in struct coll_graph are NCCL's own units (its topology's
 * GB/s per direction: SMxx_NVLINK_BW per NVLink, width x speed / 80 per
 * PCIe link, AMD_BW or a QPI figure between sockets), which its search
 * and tuner compare; they are not the fabric's rates.
 */
#include "coll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* src/graph/topo.h: NVLink bandwidth per link by SM generation. */
static double nvlink_bw(int sm)
{
	return sm >= 100 ? 40.1 : sm >= 90 ? 20.6 : sm == 86 ? 12.0 : sm >= 80 ? 20.0 :
	       sm >= 70 ? 20.0 : sm >= 60 ? 18.0 : 20.0;
}

/* src/graph/search.cc speedArrayIntra, sm90SpeedArrayIntra, sm100SpeedArrayIntra. */
static const double speed_intra[] = { 40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0,
				      4.0, 3.0 };
static const double speed_sm90[] = { 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0 };
static const double speed_sm100[] = { 90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0,
				      19.0, 18.0 };

#define NCCL_MAXCHANNELS 64             /* src/include/device.h MAXCHANNELS */
#define NCCL_PCI_BW 12.0                /* src/graph/topo.h PCI_BW (Gen3 x16) */
/* The release whose search took sm100SpeedArrayIntra (NCCL 2.25.1-1,
 * commit 80f6bda4), down to 19 GB/s on Blackwell (18 from 2.27.3-1,
 * commit 72d24320; either is above AMD_BW's 16). */
#define NCCL_SM100_SEARCH 22501

/* Compute capability x 10 of a GPU ("sm_90" -> 90; unknown: 100). */
static int gpu_sm(const struct scenario *s, int g)
{
	const char *arch = s->catalog->gpus[s->nodes[s->gpu_node[g]].gpu_model].arch;
	return strncmp(arch, "sm_", 3) == 0 ? atoi(arch + 3) : 100;
}

/* NCCL's PCIe link bandwidth of GPU g: width x speed / 80 GB/s
 * (src/graph/topo.cc, kvDictPciGen in units of 100 Mb/s per lane). */
static double pci_bw(const struct scenario *s, int g)
{
	static const double gen_speed[] = { 0, 15, 30, 60, 120, 240, 480 };
	const struct scn_node *nd = &s->nodes[s->gpu_node[g]];
	int gen = nd->gen >= 1 && nd->gen <= 6 ? nd->gen : 4;
	int width = nd->width > 0 ? nd->width : 16;
	return width * gen_speed[gen] / 80.0;
}

/* NCCL's bandwidth between sockets (src/graph/topo.cc ncclTopoGetInterCpuBw:
 * AMD_BW 16; Intel Skylake's QPI 10, the generation plumb assumes when it
 * cannot tell; others ARM_BW 6). */
static double inter_cpu_bw(const struct scenario *s)
{
	return s->host.cpu_vendor == SCN_AMD ? 16.0 : s->host.cpu_vendor == SCN_INTEL ? 10.0 : 6.0;
}

/* A GPU's NVLink bandwidth toward the collective's other ranks in NCCL's
 * units: its links to the NVSwitches, or the sum of its direct bonds. */
/* The ranks on each host, for gpu_nvl_bw (NVLink stays inside a host):
 * host h's ranks are rk[off[h] .. off[h + 1]), in rank order. */
struct host_ranks {
	int *rk, *off;
};

/* s's NVLinks all join GPUs of one host? Then hr is filled (free rk);
 * else hr->rk is NULL and gpu_nvl_bw scans every rank. */
static void host_ranks_of(const struct scenario *s, const struct coll_spec *c,
			  struct host_ranks *hr)
{
	int k, i, h;
	hr->rk = NULL;
	for (k = 0; k < s->nnvlink; k++)
		if (s->nodes[s->gpu_node[s->nvlink[k].a]].host !=
		    s->nodes[s->gpu_node[s->nvlink[k].b]].host)
			return;
	if (!(hr->rk = malloc(((size_t)c->n + s->nhosts + 2) * sizeof(int))))
		return;
	hr->off = hr->rk + c->n;
	memset(hr->off, 0, ((size_t)s->nhosts + 2) * sizeof(int));
	for (i = 0; i < c->n; i++)
		hr->off[s->nodes[s->gpu_node[c->gpus[i]]].host + 2]++;
	for (h = 0; h < s->nhosts; h++)
		hr->off[h + 2] += hr->off[h + 1];
	for (i = 0; i < c->n; i++)
		hr->rk[hr->off[s->nodes[s->gpu_node[c->gpus[i]]].host + 1]++] = i;
}

static double gpu_nvl_bw(const struct scenario *s, const struct topo_view *v,
			 const struct coll_spec *c, const struct host_ranks *hr, int i, int sm)
{
	int a = c->gpus[i], j, k, k0 = 0, k1 = c->n, best = 0, sum = 0;
	if (hr->rk) {
		int h = s->nodes[s->gpu_node[a]].host;
		k0 = h > 0 ? hr->off[h] : 0;
		k1 = hr->off[h + 1];
	}
	for (k = k0; k < k1; k++) {
		int b;
		j = hr->rk ? hr->rk[k] : k;
		b = c->gpus[j];
		if (j == i || b == a || !v->nvl[a][b])
			continue;
		sum += v->nvl[a][b];
		if (v->nvl[a][b] > best)
			best = v->nvl[a][b];
	}
	return (s->nvswitch ? best : sum) * nvlink_bw(sm);
}

void coll_graph_of(const struct scenario *s, const struct topo_view *v, const struct coll_spec *c,
		   struct coll_graph *g)
{
	const double *sp;
	int nsp, i, j, k, nch, best_k, p2p_pp = NCCL_MAXCHANNELS, p2p_nch, all_nvl = 1;
	double hop = INFINITY, tot = INFINITY, best;
	struct host_ranks hr;

	memset(g, 0, sizeof(*g));
	host_ranks_of(s, c, &hr);
	g->sm = 1000;
	for (i = 0; i < c->n; i++)
		if (gpu_sm(s, c->gpus[i]) < g->sm)
			g->sm = gpu_sm(s, c->gpus[i]);
	g->nvlink = 1;
	/* The ring in rank order: each hop's NCCL bandwidth, and what every
	 * ring leaving a GPU shares (its NVLinks, or its one PCIe link). */
	for (i = 0; i < c->n; i++) {
		int a = c->gpus[i], b = c->gpus[(i + 1) % c->n];
		double h, t;
		if (a == b || s->nodes[s->gpu_node[a]].host != s->nodes[s->gpu_node[b]].host)
			continue;       /* a hop between hosts: NCCL's NET, not this graph */
		if (v->nvl[a][b]) {
			h = (s->nvswitch ? gpu_nvl_bw(s, v, c, &hr, i, g->sm)
					 : v->nvl[a][b] * nvlink_bw(g->sm));
			t = gpu_nvl_bw(s, v, c, &hr, i, g->sm);
		} else {
			g->nvlink = 0;
			h = fmin(pci_bw(s, a), pci_bw(s, b));
			if (v->cls[a][b] == TC_SYS)
				h = fmin(h, inter_cpu_bw(s));
			t = h;
		}
		hop = fmin(hop, h);
		tot = fmin(tot, t);
	}
	if (!isfinite(hop))
		hop = tot = nvlink_bw(g->sm);
	g->hop_gbs = hop;
	g->gpu_gbs = tot;
	/* src/graph/search.cc ncclTopoCompute: the fastest speed of the array
	 * within the slowest hop, as many rings as the GPUs' links hold; then
	 * lower speeds while they stay above 0.49 of the best, keeping the one
	 * with the most bandwidth (the first on a tie). */
	sp = g->sm >= 100 ? speed_sm100 : g->sm >= 90 ? speed_sm90 : speed_intra;
	nsp = g->sm >= 100 ? (int)(sizeof(speed_sm100) / sizeof(*sp)) :
	      g->sm >= 90 ? (int)(sizeof(speed_sm90) / sizeof(*sp)) :
			    (int)(sizeof(speed_intra) / sizeof(*sp));
	for (k = 0; k < nsp - 1 && sp[k] > hop; k++)
		;
	if (sp[k] > hop + 1e-9 && v->nccl_version >= NCCL_SM100_SEARCH) {
		/* No ring holds even the array's lowest speed (a Blackwell
		 * ring across AMD sockets: AMD_BW 16 under 18 GB/s): the
		 * search returns no channel and ncclTopoCompute falls back
		 * to the ranks in order, "bwIntra = 0.1; typeIntra =
		 * PATH_SYS; nChannels = 1" (src/graph/search.cc, NCCL
		 * 2.25.1 to 2.30.7), below the duplication threshold. Only
		 * for a run that names its release: plumb's other
		 * predictions keep the lowest speed (docs/model-collectives.md). */
		g->fallback = 1;
		g->bw_intra = 0.1;
		g->graph_ch = 1;
		goto channels;
	}
	best_k = k;
	nch = (int)(tot / sp[k] + 1e-9);
	if (nch < 1)
		nch = 1;
	if (nch > NCCL_MAXCHANNELS / 2)
		nch = NCCL_MAXCHANNELS / 2;
	best = nch * sp[k];
	g->graph_ch = nch;
	for (k = k + 1; k < nsp && sp[k] / sp[best_k] > .49; k++) {
		int n2 = (int)(tot / sp[k] + 1e-9);
		if (n2 > NCCL_MAXCHANNELS / 2)
			n2 = NCCL_MAXCHANNELS / 2;
		if (n2 * sp[k] > best + 1e-9) {
			best = n2 * sp[k];
			best_k = k;
			g->graph_ch = n2;
		}
	}
	g->bw_intra = sp[best_k];
	/* ncclTopoDupChannels: a fast graph runs each ring twice at half the
	 * speed, except on Hopper and later below 50 GB/s with over 4 rings. */
	if (g->bw_intra >= 25.0 && !(g->sm > 80 && g->bw_intra < 50.0 && g->graph_ch > 4)) {
		int dup = 2 * g->graph_ch < NCCL_MAXCHANNELS / 2 ? 2 * g->graph_ch : NCCL_MAXCHANNELS / 2;
		g->bw_intra /= (dup + g->graph_ch - 1) / g->graph_ch;
		g->graph_ch = dup;
	}
channels:
	/* src/graph/connect.cc ncclTopoPostset: every channel once more. */
	g->nch = 2 * g->graph_ch < NCCL_MAXCHANNELS ? 2 * g->graph_ch : NCCL_MAXCHANNELS;
	if (s->k.set[K_NCCL_CHANNELS])      /* NCCL_MIN/MAX_NCHANNELS given */
		g->nch = (int)s->k.v[K_NCCL_CHANNELS];
	/* every GPU pair NVLink? (O(n) when not: the first rank's row tells) */
	for (i = 0; i < c->n && all_nvl; i++)
		for (j = 0; j < c->n; j++)
			if (c->gpus[i] != c->gpus[j] && !v->nvl[c->gpus[i]][c->gpus[j]])
				all_nvl = 0;
	/* src/graph/paths.cc ncclTopoGetNchannels: 2 per NVLink of a pair
	 * (2 on PCIe), the least over the peers; powers of two. A pair off
	 * NVLink gives 2, the least any pair gives. */
	if (!all_nvl)
		p2p_pp = 2;
	for (i = 0; i < c->n && all_nvl; i++) {
		for (j = 0; j < c->n; j++) {
			int a = c->gpus[i], b = c->gpus[j], pc;
			if (a == b)
				continue;
			if (v->nvl[a][b])
				pc = 2 * (s->nvswitch ? (int)(gpu_nvl_bw(s, v, c, &hr, i, g->sm) / nvlink_bw(g->sm) + 1e-9)
						      : v->nvl[a][b]);
			else
				pc = 2;
			if (pc < p2p_pp)
				p2p_pp = pc;
		}
	}
	for (k = 1; k < p2p_pp; k *= 2)
		;
	g->p2p_ch_per_peer = k;
	p2p_nch = g->nch < NCCL_MAXCHANNELS ? g->nch : NCCL_MAXCHANNELS;
	for (k = 1; k < p2p_nch; k *= 2)
		;
	g->p2p_nch = k > NCCL_MAXCHANNELS ? NCCL_MAXCHANNELS : k;
	/* src/init.cc: NCCL_P2P_NVL_CHUNKSIZE 512 KiB when every GPU pair is
	 * NVLink, else NCCL_P2P_PCI_CHUNKSIZE 128 KiB. */
	g->p2p_chunk = all_nvl ? 512 * 1024 : 128 * 1024;
	free(hr.rk);
}

/* src/enqueue.cc topoGetAlgoInfo (ring channel tuning): threads per
 * channel from tuning.cc ncclTopoTuneModel (Simple 256 when the whole
 * graph is no faster than PCI_BW, else 512; LL 512; LL128 640) and the
 * per-thread thresholds of src/include/comm.h (LL 8 per rank, LL128 8,
 * Simple 64; tuning.cc multiplies the ring's LL one by nRanks). */
static void tune_threads(const struct coll_graph *g, int nranks, int proto, int *nt, double *thr)
{
	*nt = proto == PROTO_LL ? 512 : proto == PROTO_LL128 ? 640 :
	      g->bw_intra * g->graph_ch <= NCCL_PCI_BW ? 256 : 512;
	*thr = proto == PROTO_LL ? 8.0 * nranks : proto == PROTO_LL128 ? 8 : 64;
}

int coll_tune_nch(const struct coll_graph *g, double bytes, int nranks, int proto)
{
	/* drop channels while the buffer is under nc x threads x threshold */
	int nt, nc = g->nch > 0 ? g->nch : 1;
	double thr;
	tune_threads(g, nranks, proto, &nt, &thr);
	while (bytes < nc * nt * thr && nc >= 2)
		nc--;
	return nc;
}

int coll_tune_nthreads(const struct coll_graph *g, double bytes, int nranks, int proto)
{
	/* src/enqueue.cc topoGetAlgoInfo: once one channel is left, halve
	 * the threads (while a multiple of 128) under the same threshold;
	 * never fewer than 3 warps. Simple's extra sync warp does not move
	 * data and is not counted. */
	int nt, nc = coll_tune_nch(g, bytes, nranks, proto);
	double thr;
	tune_threads(g, nranks, proto, &nt, &thr);
	while (bytes < nc * nt * thr && nt % 128 == 0)
		nt /= 2;
	return nt < 96 ? 96 : nt;
}

/* Index of the GPU generation in NCCL's tables (tuning.cc compCapIndex). */
static int gen_index(int sm)
{
	return sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : 0;
}

double coll_tune_time(const struct scenario *s, const struct coll_graph *g,
		      const struct coll_spec *c, int proto)
{
	static const int base_k[PROTO_N] = { K_NCCL_BASE_US, K_NCCL_BASE_LL128_US, K_NCCL_BASE_SIMPLE_US };
	static const int pci_k[PROTO_N] = { K_NCCL_PCI_LL_US, K_NCCL_PCI_LL128_US, K_NCCL_PCI_SIMPLE_US };
	static const int nvl_k[PROTO_N] = { K_NCCL_NVL_LL_US, K_NCCL_NVL_LL128_US, K_NCCL_NVL_SIMPLE_US };
	int n = c->n, gi = gen_index(g->sm);
	int nsteps = c->op == COLL_ALLREDUCE ? 2 * (n - 1) :
		     c->op == COLL_ALLGATHER || c->op == COLL_REDUCESCATTER ? n - 1 : n;
	double bus = g->graph_ch * g->bw_intra, lat;

	/* tuning.cc ncclTopoTuneModel, ring: LL at half the bus bandwidth
	 * under llMaxBws, LL128 at 0.92 under perChMaxRingLL128Bws per
	 * channel; LL128 only on NVLink */
	if (proto == PROTO_LL)
		bus = fmin(s->k.v[K_NCCL_LL_MAX_VOLTA + gi], bus * .5);
	else if (proto == PROTO_LL128) {
		if (!g->nvlink || g->sm < 70)
			return -1;
		bus = fmin(bus * .92, g->graph_ch * s->k.v[K_NCCL_LL128_CH_VOLTA + gi]);
	}
	/* On NVLink, NCCL's own tables (baseLat, hwLat), compiled into it:
	 * the cited defaults, not the scenario's or a calibration's step
	 * latencies, which describe what the machine does rather than what
	 * NCCL's model assumes when it picks. A ring through host memory
	 * keeps the latencies in force: there plumb's graph is not always
	 * NCCL's (docs/model-collectives.md "Collectives"), and the fitted PCI steps
	 * carry its switch points. The fallback ring (g->fallback) is
	 * NCCL's tables at 0.1 GB/s, whatever the machine's steps. */
	lat = g->nvlink ? plumb_const_defs[base_k[proto]].def +
			  nsteps * plumb_const_defs[nvl_k[proto]].def :
	      g->fallback ? plumb_const_defs[base_k[proto]].def +
			    nsteps * plumb_const_defs[pci_k[proto]].def :
			  s->k.v[base_k[proto]] + nsteps * s->k.v[pci_k[proto]];
	/* bus to algorithm bandwidth: nRanks / nsteps; time in us
	 * (ncclTopoGetAlgoTime: lat + bytes / (1000 x bw)) */
	return lat + c->bytes / (1000.0 * bus * n / nsteps);
}

int coll_tune_proto(const struct scenario *s, const struct coll_graph *g, const struct coll_spec *c)
{
	int p, best = PROTO_SIMPLE;
	double tbest = INFINITY;
	for (p = PROTO_LL; p < PROTO_N; p++) {
		double t = coll_tune_time(s, g, c, p);
		if (t >= 0 && t < tbest) {
			tbest = t;
			best = p;
		}
	}
	return best;
}

int coll_p2p_nch(const struct coll_graph *g, double bytes, int nranks)
{
	/* src/enqueue.cc scheduleP2pTasksToPlan: at most p2pnChannelsPerPeer,
	 * halved until nRanks peers fit p2pnChannels; then per operation
	 * (one node) parts of at least chunk / 8, doubling the channels while
	 * a part exceeds chunk x 32. */
	int nmax = g->p2p_ch_per_peer > 0 ? g->p2p_ch_per_peer : 1, nmin = nmax, nc;
	double minpart = g->p2p_chunk / 8.0, maxpart = g->p2p_chunk * 32.0, part;
	while (nmin * nranks > g->p2p_nch && nmin > 1)
		nmin /= 2;
	if (bytes <= 0)
		return 1;
	nc = (int)ceil(bytes / minpart);
	if (nc > nmin)
		nc = nmin;
	if (nc < 1)
		nc = 1;
	part = fmax(minpart, ceil(bytes / nc));
	while (part > maxpart && nc <= nmax / 2) {
		nc *= 2;
		part = ceil(bytes / nc);
	}
	return nc;
}

int coll_p2p_ll(double bytes, int nch)
{
	/* src/enqueue.cc: LL while the bytes are at most nChannels x
	 * NCCL_P2P_LL_THRESHOLD (16384) */
	return bytes <= nch * 16384.0;
}
