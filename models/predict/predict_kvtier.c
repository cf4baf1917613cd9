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

int pred_kvio_time(const struct pred_cfg *c, int far, double tok_out, double tok_in,
		   double *seconds, struct plumb_err *err)
{
	const struct scenario *s = c->s;
	struct sim_engine *eng = NULL;
	struct fabric *fab = NULL;
	double pad = s->k.v[K_P2P_LAT_US] * 1e-6;
	int g, rc, dir;

	*seconds = 0;
	if ((rc = sim_engine_new(s->seed, &eng, err)) < 0)
		return rc;
	sim_set_budget(eng, s->event_budget);
	if ((rc = fab_build(eng, s, &fab, err)) < 0)
		goto out;
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
			if ((rc = sim_flow_start(fab->net, &fs, NULL, err)) < 0)
				goto out;
		}
	}
	if ((rc = sim_run(eng, INFINITY, err)) < 0)
		goto out;
	*seconds = sim_now(eng);
out:
	fab_free(fab);
	sim_engine_free(eng);
	return rc;
}

int pred_kvio_fn(void *ctx, long tokens_out, long tokens_in, double *seconds,
		 struct plumb_err *err)
{
	struct pred_kvio *k = ctx;
	return pred_kvio_time(k->c, k->far, (double)tokens_out, (double)tokens_in, seconds, err);
}
