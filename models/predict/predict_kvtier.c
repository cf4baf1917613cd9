/*
 * predict_kvtier.c - the host tier of the KV cache on the scenario's
 * fabric (predict_kvtier.h): moving a request's KV between the GPUs of one
 * copy of the layout and host memory, every GPU its own share at once, as
 * flows on the box's links (each GPU's PCIe link, its switch uplink, the
 * root complex, the inter-socket link for a far NUMA node, the memory
 * channels), so GPUs that share an uplink or a socket share its rate.
 */
#include "predict_kvtier.h"

#include <math.h>
#include <string.h>

#include "fabric.h"
#include "topo.h"

void pred_kvio_init(struct pred_kvio *k, const struct pred_cfg *c, int far)
{
	memset(k, 0, sizeof(*k));
	k->c = c;
	k->far = far;
}

double pred_kvio_bytes_per_token(const struct pred_cfg *c)
{
	double b = 0;
	int g;
	for (g = 0; g < c->lay.gpus; g++)
		b += pred_kv_bytes_gpu(c, g);
	return b;
}

int pred_kvio_node(const struct fabric *f, int g, int far)
{
	const struct scenario *s = f->s;
	int near = fab_gpu_numa(f, g), nps = s->host.numa_per_socket > 0 ? s->host.numa_per_socket : 1;
	int ns = s->host.sockets > 0 ? s->host.sockets : 1, sock = near / nps, local = sock % ns;
	if (!far || ns < 2)
		return near;
	/* the next socket of the GPU's host, the same node within it */
	return (sock - local + (local + 1) % ns) * nps + near % nps;
}

int pred_ring_next(const struct pred_cfg *c, int base, int k)
{
	int per = c->lay.gpus / (c->lay.pp > 0 ? c->lay.pp : 1);
	return base + (k / per) * per + (k % per + 1) % per;
}

int pred_ring_bytes(const struct pred_cfg *c, const struct serve_shape *sh, double *out,
		    struct plumb_err *err)
{
	struct step_prog prog[64];
	int k, micro = 1, rc, n = c->lay.gpus / (c->lay.pp > 0 ? c->lay.pp : 1);
	double b = 0;
	*out = 0;
	if (!sh || n < 2 || c->lay.pp > 64)
		return 0;
	memset(prog, 0, sizeof(prog));
	if ((rc = pred_programs(c, sh->kind, sh->batch, sh->context, sh->tokens, prog, &micro,
				err)) < 0)
		return rc;
	for (k = 0; k < prog[0].nops; k++) {
		const struct step_op *op = &prog[0].ops[k];
		if (op->kind == SOP_ALLREDUCE)
			b += 2.0 * (n - 1) / n * op->bytes;
		else if (op->kind != SOP_COMPUTE)
			b += (double)(n - 1) / n * op->bytes;
	}
	b *= micro > 0 ? micro : 1;
	for (k = 0; k < c->lay.pp; k++)
		step_prog_release(&prog[k]);
	*out = b;
	return 0;
}

/* The path of a step's collectives from GPU a to GPU b: the NICs between
 * hosts, P2P where the pair may, else through host memory. */
static int ring_path(const struct fabric *f, int a, int b, int *path)
{
	const struct scenario *s = f->s;
	if (s->nodes[s->gpu_node[a]].host != s->nodes[s->gpu_node[b]].host)
		return fab_path_net(f, a, b, 0, path);
	if (topo_p2p_forbidden(s, a, b, NULL, 0) == 0)
		return fab_path_gpu(f, a, b, path);
	return fab_path_shm(f, a, b, path);
}

/* What one move step's flows report: the loads all in, the stores all
 * out, the step's collectives all done. */
struct kvrun {
	struct sim_engine *eng;
	int left[3];
	double at[3];
};

struct kvarg {
	struct kvrun *R;
	int kind;               /* 0 load (in), 1 store (out), 2 collective */
};

static int kv_done(struct sim_net *net, int flow, void *arg, struct plumb_err *err)
{
	struct kvarg *a = arg;
	(void)net;
	(void)flow;
	(void)err;
	if (--a->R->left[a->kind] == 0) {
		a->R->at[a->kind] = sim_now(a->R->eng);
		if (a->kind == 0)
			sim_stop(a->R->eng);    /* the step's compute may start */
	}
	return 0;
}

/* The step's ring flows (bytes from each GPU of every copy of the layout
 * to the next of its ring: replicas step at once) on f from t, capped at
 * cap (0: none), reporting to a. */
static int ring_start(const struct pred_cfg *c, struct fabric *f, double bytes, double t,
		      double cap, struct kvarg *a, struct plumb_err *err)
{
	int k, rc, dp = c->lay.dp > 1 ? c->lay.dp : 1;
	for (k = 0; k < dp * c->lay.gpus && k < f->s->ngpus; k++) {
		struct sim_flow_spec fs;
		int path[FAB_MAX_PATH], np, base = k / c->lay.gpus * c->lay.gpus;
		int x = k, y = pred_ring_next(c, base, k - base);
		if (x == y || y >= f->s->ngpus || (np = ring_path(f, x, y, path)) < 1)
			continue;
		memset(&fs, 0, sizeof(fs));
		fs.path = path;
		fs.path_len = np;
		fs.bytes = bytes;
		fs.start = t;
		fs.rate_cap = cap;
		fs.on_done = kv_done;
		fs.arg = a;
		a->R->left[a->kind]++;
		if ((rc = sim_flow_start(f->net, &fs, NULL, err)) < 0)
			return rc;
	}
	return 0;
}

/* A fresh engine and fabric of c's scenario. */
static int kv_fabric(const struct pred_cfg *c, struct sim_engine **eng, struct fabric **fab,
		     struct plumb_err *err)
{
	int rc;
	*eng = NULL;
	*fab = NULL;
	if ((rc = sim_engine_new(c->s->seed, eng, err)) < 0)
		return rc;
	sim_set_budget(*eng, c->s->event_budget);
	return fab_build(*eng, c->s, fab, err);
}

int pred_kvio_time(const struct pred_cfg *c, int far, const struct serve_shape *sh,
		   double step_s, double tok_out, double tok_in, double *extra,
		   struct plumb_err *err)
{
	const struct scenario *s = c->s;
	struct sim_engine *eng = NULL;
	struct fabric *fab = NULL;
	struct kvrun R;
	struct kvarg arg[3];
	double pad = s->k.v[K_P2P_LAT_US] * 1e-6, ring = 0, alone = 0, t_in = 0, end, late = 0;
	int g, rc, dir, burst = 0;

	*extra = 0;
	memset(&R, 0, sizeof(R));
	for (g = 0; g < 3; g++) {
		arg[g].R = &R;
		arg[g].kind = g;
	}
	if (step_s > 0 && (rc = pred_ring_bytes(c, sh, &ring, err)) < 0)
		return rc;
	if (ring > 0) {         /* the step's collectives alone on the links */
		if ((rc = kv_fabric(c, &eng, &fab, err)) < 0 ||
		    (R.eng = eng, rc = ring_start(c, fab, ring, 0, 0, &arg[2], err)) < 0 ||
		    (rc = sim_run(eng, INFINITY, err)) < 0)
			goto out;
		alone = R.left[2] == 0 ? R.at[2] : 0;
		burst = alone > 0 && alone <= step_s;
		fab_free(fab);
		sim_engine_free(eng);
		fab = NULL;
		eng = NULL;
		memset(&R, 0, sizeof(R));
	}
	if ((rc = kv_fabric(c, &eng, &fab, err)) < 0)
		goto out;
	R.eng = eng;
	if (s->vm.mode == SCN_VM && s->vm.host_iommu == SCN_IOMMU_TRANSLATE)
		pad += s->k.v[K_VM_DMA_US] * 1e-6;     /* each DMA translated by the host */
	for (g = 0; g < c->lay.gpus && g < s->ngpus; g++) {
		double per = pred_kv_bytes_gpu(c, g);
		int node = pred_kvio_node(fab, g, far);
		for (dir = 0; dir < 2; dir++) {
			struct sim_flow_spec fs;
			int path[FAB_MAX_PATH], n;
			double bytes = per * (dir ? tok_in : tok_out);
			if (!(bytes > 0))
				continue;
			n = dir ? fab_path_from_node(fab, node, g, path)
				: fab_path_to_node(fab, g, node, path);
			memset(&fs, 0, sizeof(fs));
			fs.path = path;
			fs.path_len = n;
			fs.bytes = bytes;
			fs.start = fmax(0, pad - fab_path_latency(fab, path, n));
			fs.on_done = kv_done;
			fs.arg = &arg[dir ? 0 : 1];
			R.left[dir ? 0 : 1]++;
			if ((rc = sim_flow_start(fab->net, &fs, NULL, err)) < 0)
				goto out;
		}
	}
	/* the loads first: the step's pass needs the reloaded KV */
	if (R.left[0] > 0) {
		if ((rc = sim_run(eng, INFINITY, err)) < 0)
			goto out;
		t_in = R.at[0];
	}
	/* then the step, its collectives beside the stores still running */
	if (ring > 0 && (rc = ring_start(c, fab, ring, t_in, burst ? 0 : ring / step_s, &arg[2],
					 err)) < 0)
		goto out;
	if ((rc = sim_run(eng, INFINITY, err)) < 0)
		goto out;
	if (ring > 0 && R.left[2] == 0)
		late = R.at[2] - t_in - (burst ? alone : step_s);
	end = t_in + step_s + (late > 0 ? late : 0);
	if (R.at[1] > end)
		end = R.at[1];  /* the stores done before their blocks are reused */
	*extra = end - step_s > 0 ? end - step_s : 0;
out:
	fab_free(fab);
	sim_engine_free(eng);
	return rc;
}

int pred_kvio_fn(void *ctx, const struct serve_shape *sh, double step_s, long tokens_out,
		 long tokens_in, double *extra, struct plumb_err *err)
{
	struct pred_kvio *k = ctx;
	return pred_kvio_time(k->c, k->far, sh, step_s, (double)tokens_out, (double)tokens_in,
			      extra, err);
}
