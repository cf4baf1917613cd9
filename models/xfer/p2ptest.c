/*
 * p2ptest.c - p2pBandwidthLatencyTest emulation (see p2ptest.h).
 */
#include "p2ptest.h"

#include <string.h>

#include "topo.h"
#include "xfer.h"

const char *p2pt_title(enum p2pt_matrix m)
{
	static const char *const t[] = {
		"Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)",
		"Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)",
		"Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)",
		"Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)",
		"P2P=Disabled Latency Matrix (us)",
		"P2P=Enabled Latency (P2P Writes) Matrix (us)",
	};
	return t[m];
}

int p2pt_run(const struct scenario *s, struct p2pt_result *r, struct plumb_err *err)
{
	struct topo_opts o;
	struct topo_view *v = NULL;
	int i, j, rc;

	memset(r, 0, sizeof(*r));
	/* the sample runs in one process on one host: with several hosts,
	 * the first host's GPUs */
	r->n = s->nhosts > 1 ? s->hosts[0].ngpus : s->ngpus;
	if (r->n > P2PT_MAX_GPUS)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "at most %d GPUs in the matrices (use --from and --to)",
				     P2PT_MAX_GPUS);
	topo_opts_init(&o);
	if ((rc = topo_build(s, s->vm.mode == SCN_VM ? TOPO_GUEST : TOPO_HOST, &o, &v, err)) < 0)
		return rc;
	for (i = 0; i < r->n; i++)
		for (j = 0; j < r->n; j++)
			r->can[i][j] = i == j || v->p2p[i][j] == P2P_OK;
	topo_free(v);

	for (i = 0; i < r->n; i++) {
		const struct scn_gpu_model *g = &s->catalog->gpus[s->nodes[s->gpu_node[i]].gpu_model];
		double local = g->memory_gbs * s->k.v[K_D2D_EFF];
		for (j = 0; j < r->n; j++) {
			double t;
			int k;
			if (i == j) {
				r->m[P2PT_UNI_DISABLED][i][j] = r->m[P2PT_UNI_ENABLED][i][j] = local;
				r->m[P2PT_BI_DISABLED][i][j] = r->m[P2PT_BI_ENABLED][i][j] = local;
				r->m[P2PT_LAT_DISABLED][i][j] = r->m[P2PT_LAT_ENABLED][i][j] =
					s->k.v[K_LOCAL_LAT_US];
				continue;
			}
			for (k = 0; k < 2; k++) {
				enum xfer_method m = (k == 1 && r->can[i][j]) ? XFER_P2P : XFER_BOUNCE;
				if ((rc = xfer_time(s, i, j, P2PT_BYTES, m, 0, &t, err)) < 0)
					return rc;
				r->m[k ? P2PT_UNI_ENABLED : P2PT_UNI_DISABLED][i][j] = P2PT_BYTES / t / 1e9;
				if ((rc = xfer_time(s, i, j, P2PT_BYTES, m, 1, &t, err)) < 0)
					return rc;
				r->m[k ? P2PT_BI_ENABLED : P2PT_BI_DISABLED][i][j] = 2 * P2PT_BYTES / t / 1e9;
				if ((rc = xfer_time(s, i, j, P2PT_LAT_BYTES, m, 0, &t, err)) < 0)
					return rc;
				r->m[k ? P2PT_LAT_ENABLED : P2PT_LAT_DISABLED][i][j] = t * 1e6;
			}
		}
	}
	return 0;
}

int p2pt_can(const struct scenario *s, int a, int b, struct plumb_err *err)
{
	struct topo_opts o;
	struct topo_view *v = NULL;
	int n = s->nhosts > 1 ? s->hosts[0].ngpus : s->ngpus, rc, can;

	if (a >= n || b >= n)
		return 0;
	topo_opts_init(&o);
	if ((rc = topo_build(s, s->vm.mode == SCN_VM ? TOPO_GUEST : TOPO_HOST, &o, &v, err)) < 0)
		return rc;
	can = a == b || v->p2p[a][b] == P2P_OK;
	topo_free(v);
	return can;
}

static void print_matrix(FILE *f, const struct p2pt_result *r, enum p2pt_matrix m)
{
	int i, j, lat = m >= P2PT_LAT_DISABLED;
	fprintf(f, "%s\n", p2pt_title(m));
	fprintf(f, "   %s", lat ? "GPU" : "D\\D");
	for (j = 0; j < r->n; j++)
		fprintf(f, " %6d", j);
	fputs(" \n", f);
	for (i = 0; i < r->n; i++) {
		fprintf(f, " %5d", i);
		for (j = 0; j < r->n; j++)
			fprintf(f, " %6.2f", r->m[m][i][j]);
		fputs(" \n", f);
	}
}

void p2pt_print(FILE *f, const struct scenario *s, const struct p2pt_result *r)
{
	int i, j;
	fputs("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n", f);
	fprintf(f, "(simulated by plumb for scenario %s%s)\n", s->name[0] ? s->name : s->path,
		s->vm.mode == SCN_VM ? ", inside the VM" : "");
	if (s->nhosts > 1)
		fprintf(f, "(on host %s, one of %d: the sample runs on one host)\n", s->hosts[0].name,
			s->nhosts);
	for (i = 0; i < r->n; i++) {
		const struct scn_node *d = &s->nodes[s->gpu_node[i]];
		fprintf(f, "Device: %d, %s, id: %s\n", i, s->catalog->gpus[d->gpu_model].name, d->id);
	}
	fputs("\nP2P Connectivity Matrix\n     D\\D", f);
	for (j = 0; j < r->n; j++)
		fprintf(f, " %5d", j);
	fputc('\n', f);
	for (i = 0; i < r->n; i++) {
		fprintf(f, " %5d\t", i);
		for (j = 0; j < r->n; j++)
			fprintf(f, " %5d", r->can[i][j]);
		fputc('\n', f);
	}
	for (i = 0; i < P2PT_NMATRIX; i++)
		print_matrix(f, r, (enum p2pt_matrix)i);
}
