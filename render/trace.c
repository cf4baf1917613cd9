/*
 * trace.c - one simulated decode step as Chrome trace event JSON
 * (render.h rdr_trace). GPU tracks come from the step's timeline spans;
 * link tracks from the flow network: after every rate re-solve the hook
 * sums the rates of the active flows per link, and each interval of
 * constant non-zero load becomes one event.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fabric.h"
#include "jout.h"
#include "render.h"

struct seg {
	int link;
	double t0, t1, bps;
};

struct linkrec {
	const struct sim_net *net;
	int nlinks;
	double *cur, *since, *load;
	struct seg *seg;
	int nseg, cap;
	int oom;
};

static void close_seg(struct linkrec *k, int l, double t)
{
	if (k->cur[l] > 0 && t > k->since[l]) {
		if (k->nseg == k->cap) {
			int nc = k->cap ? 2 * k->cap : 1024;
			struct seg *ns = realloc(k->seg, (size_t)nc * sizeof(*ns));
			if (!ns) {
				k->oom = 1;
				return;
			}
			k->seg = ns;
			k->cap = nc;
		}
		k->seg[k->nseg].link = l;
		k->seg[k->nseg].t0 = k->since[l];
		k->seg[k->nseg].t1 = t;
		k->seg[k->nseg].bps = k->cur[l];
		k->nseg++;
	}
}

static void on_resolve(void *ctx, const struct sim_net *net)
{
	struct linkrec *k = ctx;
	double t = sim_now(sim_net_engine(net));
	int i, j, l, m;
	for (l = 0; l < k->nlinks; l++)
		k->load[l] = 0;
	for (i = 0; i < sim_net_nactive(net); i++) {
		int fl = sim_net_active(net, i);
		const int *path;
		int n = sim_flow_path(net, fl, &path), w = sim_flow_copies(net, fl);
		double r = sim_flow_rate(net, fl);
		for (j = 0; j < n; j++)
			if (path[j] >= 0 && path[j] < k->nlinks)
				for (m = 0; m < w; m++) /* each copy, as flows */
					k->load[path[j]] += r;
	}
	for (l = 0; l < k->nlinks; l++)
		if (fabs(k->load[l] - k->cur[l]) > 1e-6 * sim_net_link_capacity(net, l)) {
			close_seg(k, l, t);
			k->cur[l] = k->load[l];
			k->since[l] = t;
		}
}

static void link_name(const struct fabric *f, const struct scenario *s, int id, char *buf,
		      size_t n)
{
	int i, j;
	snprintf(buf, n, "link %d", id);
	for (i = 0; i < s->nnodes; i++) {
		const struct scn_node *nd = &s->nodes[i];
		const char *par = nd->parent >= 0 ? s->nodes[nd->parent].id : "";
		if (f->up[i] == id)
			snprintf(buf, n, "PCIe %s -> %s", nd->id, par);
		else if (f->down[i] == id)
			snprintf(buf, n, "PCIe %s -> %s", par, nd->id);
		else if (f->rc_out[i] == id)
			snprintf(buf, n, "%s -> socket %d fabric", nd->id, nd->socket);
		else if (f->rc_in[i] == id)
			snprintf(buf, n, "socket %d fabric -> %s", nd->socket, nd->id);
	}
	for (i = 0; i < s->host.sockets; i++) {
		if (f->dram[i] == id)
			snprintf(buf, n, "host memory, socket %d", i);
		for (j = 0; j < s->host.sockets; j++)
			if (i != j && fab_xs(f, i, j) == id)
				snprintf(buf, n, "%s socket %d -> %d", s->host.inter_socket_kind[0] ?
					 s->host.inter_socket_kind : "inter-socket", i, j);
	}
	for (i = 0; i < s->ngpus; i++) {
		if (f->nvl_up[i] == id)
			snprintf(buf, n, "NVLink GPU%d -> NVSwitch", i);
		if (f->nvl_down[i] == id)
			snprintf(buf, n, "NVLink NVSwitch -> GPU%d", i);
		for (j = f->nvp_off[i]; j < f->nvp_off[i + 1]; j++)
			if (f->nvp_link[j] == id)
				snprintf(buf, n, "NVLink GPU%d -> GPU%d", i, f->nvp_peer[j]);
	}
}

/* A metadata ("M") event: name, pid, tid and one argument. */
static json_t *meta(const char *name, int pid, int tid, const char *key, json_t *val)
{
	json_t *e = json_object(), *args = json_object();
	int rc = 0;
	rc |= jout_set(e, "name", jout_str(name));
	rc |= jout_set(e, "ph", jout_str("M"));
	rc |= jout_set(e, "pid", json_integer(pid));
	rc |= jout_set(e, "tid", json_integer(tid));
	rc |= jout_set(args, key, val);
	rc |= jout_set(e, "args", args);
	if (rc) {
		json_decref(e);
		return NULL;
	}
	return e;
}

/* A complete ("X") event from t0 for dur seconds, in microseconds. */
static json_t *span(const char *name, const char *cat, int pid, int tid, double t0,
		    double dur)
{
	json_t *e = json_object();
	int rc = 0;
	rc |= jout_set(e, "name", jout_str(name));
	rc |= jout_set(e, "cat", jout_str(cat));
	rc |= jout_set(e, "ph", jout_str("X"));
	rc |= jout_set(e, "pid", json_integer(pid));
	rc |= jout_set(e, "tid", json_integer(tid));
	rc |= jout_set(e, "ts", jout_real(t0 * 1e6, 4));
	rc |= jout_set(e, "dur", jout_real(dur * 1e6, 4));
	if (rc) {
		json_decref(e);
		return NULL;
	}
	return e;
}

static const char *tag_name(int tag)
{
	static const char *const n[TAG_NTAGS] = {
		[TAG_ATTN] = "attention", [TAG_MLP] = "dense MLP", [TAG_EXPERTS] = "experts",
		[TAG_LMHEAD] = "LM head", [TAG_OTHER] = "other", [TAG_COMM_TP] = "all-reduce (TP)",
		[TAG_COMM_EP] = "all-to-all (EP)", [TAG_COMM_PP] = "stage send (PP)",
	};
	return tag >= 0 && tag < TAG_NTAGS && n[tag] ? n[tag] : "op";
}

int rdr_trace(FILE *f, const struct pred_cfg *c, int batch, long context,
	      struct rdr_trace_info *info, struct plumb_err *err)
{
	const struct scenario *s = c->s;
	struct step_prog prog[16];
	struct step_result r;
	struct linkrec k;
	struct step_span *spans = NULL;
	struct sim_engine *eng = NULL;
	struct fabric *fab = NULL;
	int rc, st, micro = 0, cap = 4096, i, l, nlinks, first = 1, ntracks = 0, bad = 0;
	json_t *doc = NULL, *ev;
	double sec;
	char name[160];

	memset(&k, 0, sizeof(k));
	memset(prog, 0, sizeof(prog));
	if ((rc = sim_engine_new(s->seed, &eng, err)) < 0 || (rc = fab_build(eng, s, &fab, err)) < 0)
		goto out;
	nlinks = sim_net_nlinks(fab->net);
	k.nlinks = nlinks;
	k.cur = calloc((size_t)nlinks + 1, sizeof(double));
	k.since = calloc((size_t)nlinks + 1, sizeof(double));
	k.load = calloc((size_t)nlinks + 1, sizeof(double));
	if (!k.cur || !k.since || !k.load) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	if ((rc = pred_programs(c, SERVE_DECODE, batch, context, 1, prog, &micro, err)) < 0)
		goto out;
	for (;;) {
		free(spans);
		spans = malloc((size_t)cap * sizeof(*spans));
		if (!spans) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			goto out;
		}
		memset(&r, 0, sizeof(r));
		r.spans = spans;
		r.cap = cap;
		r.hook = on_resolve;
		r.hook_ctx = &k;
		r.rounds = pred_rounds(c, SERVE_DECODE);
		k.nseg = 0;
		for (l = 0; l < nlinks; l++)
			k.cur[l] = k.since[l] = 0;
		if ((rc = step_run(s, &c->topo, &c->lay, prog, micro, &r, err)) < 0)
			goto out;
		if (r.nspans <= cap)
			break;
		cap = r.nspans;
	}
	for (l = 0; l < nlinks; l++)
		close_seg(&k, l, r.run_seconds);
	/* A steady-state step (a pipeline's last pass): its window only. */
	if (r.window0 > 0 || r.run_seconds > r.seconds) {
		int n = 0;
		for (i = 0; i < k.nseg; i++) {
			struct seg g = k.seg[i];
			g.t0 = fmax(g.t0, r.window0) - r.window0;
			g.t1 = fmin(g.t1, r.window0 + r.seconds) - r.window0;
			if (g.t1 > g.t0)
				k.seg[n++] = g;
		}
		k.nseg = n;
	}
	if (k.oom) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	sec = r.seconds;
	if (sec < s->k.v[K_STEP_OVERHEAD_US] * 1e-6)
		sec = s->k.v[K_STEP_OVERHEAD_US] * 1e-6;

	doc = json_object();
	ev = json_array();
	snprintf(name, sizeof(name), "GPUs: %s, %s, batch %d, context %ld", s->name, c->lay.name,
		 batch, context);
	bad |= jout_push(ev, meta("process_name", 1, 0, "name", jout_str(name)));
	for (i = 0; i < r.ngpus; i++) {
		snprintf(name, sizeof(name), "GPU%d", i);
		bad |= jout_push(ev, meta("thread_name", 1, i, "name", jout_str(name)));
		bad |= jout_push(ev, meta("thread_sort_index", 1, i, "sort_index", json_integer(i)));
	}
	for (i = 0; i < r.nspans; i++) {
		const struct step_span *sp = &spans[i];
		bad |= jout_push(ev, span(tag_name(sp->tag), sp->comm ? "comm" : "compute", 1, sp->gpu,
					  sp->t0, sp->t1 - sp->t0));
	}
	for (l = 0; l < nlinks; l++) {
		int used = 0;
		for (i = 0; i < k.nseg && !used; i++)
			used = k.seg[i].link == l;
		if (!used)
			continue;
		ntracks++;
		link_name(fab, s, l, name, sizeof(name));
		if (first) {
			bad |= jout_push(ev, meta("process_name", 2, 0, "name",
						  jout_str("links (load from the flow model)")));
			first = 0;
		}
		bad |= jout_push(ev, meta("thread_name", 2, l, "name", jout_str(name)));
	}
	for (i = 0; i < k.nseg; i++) {
		const struct seg *g = &k.seg[i];
		double capb = sim_net_link_capacity(fab->net, g->link);
		json_t *e, *args = json_object();
		snprintf(name, sizeof(name), "%.1f GB/s", g->bps / 1e9);
		e = span(name, "link", 2, g->link, g->t0, g->t1 - g->t0);
		bad |= jout_set(args, "GB/s", jout_real(g->bps / 1e9, 3));
		bad |= jout_set(args, "utilisation", jout_real(capb > 0 ? g->bps / capb : 0, 4));
		bad |= jout_set(e, "args", args);
		bad |= jout_push(ev, e);
	}
	bad |= jout_set(doc, "traceEvents", ev);
	bad |= jout_set(doc, "displayTimeUnit", jout_str("ms"));
	{
		json_t *od = json_object();
		bad |= jout_set(od, "scenario", jout_str(s->name));
		bad |= jout_set(od, "model", jout_str(c->m->id));
		bad |= jout_set(od, "layout", jout_str(c->lay.name));
		bad |= jout_set(od, "batch", json_integer(batch));
		bad |= jout_set(od, "context", json_integer(context));
		bad |= jout_set(od, "step_us", jout_real(sec * 1e6, 3));
		bad |= jout_set(od, "simulated_us", jout_real(r.seconds * 1e6, 3));
		bad |= jout_set(doc, "otherData", od);
	}
	if (bad) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	/* each event on its own line, as Perfetto's examples are */
	if ((rc = jout_write(f, doc, 2, err)) < 0)
		goto out;
	if (info) {
		memset(info, 0, sizeof(*info));
		info->run = r;
		info->run.spans = NULL;
		info->run.hook = NULL;
		info->run.hook_ctx = NULL;
		info->seconds = sec;
		info->gpu_events = r.nspans;
		info->link_events = k.nseg;
		info->links = ntracks;
	}
	rc = 0;
out:
	json_decref(doc);
	for (st = 0; st < 16; st++)
		step_prog_release(&prog[st]);
	free(spans);
	free(k.cur);
	free(k.since);
	free(k.load);
	free(k.seg);
	fab_free(fab);
	sim_engine_free(eng);
	return rc;
}
