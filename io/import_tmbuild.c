/*
 * import_tmbuild.c - a class matrix (import_tm.h) -> a PCIe tree that
 * reproduces it, for `plumb import topo-m` and `plumb import rocm-smi`;
 * io/import_topom.c's header comment gives the rules.
 */
#include "import_tm.h"
#include "scn.h"

#include <stdlib.h>
#include <string.h>

const char *const imp_tm_cls[6] = { "X", "PIX", "PXB", "PHB", "NODE", "SYS" };

/* Fill unknown cells from their mirror; drop endpoints left with unknowns. */
void imp_tm_complete(struct tm *t, struct imp_scn *s)
{
	int i, j, dropped = 0;
	char list[100] = "";

	for (i = 0; i < t->n; i++)
		for (j = 0; j < t->n; j++)
			if (t->cls[i][j] == C_UNK && t->cls[j][i] != C_UNK) {
				t->cls[i][j] = t->cls[j][i];
				t->nv[i][j] = t->nv[j][i];
			}
	for (i = 0; i < t->n; i++)
		t->ep[i].keep = t->ep[i].have_row;
	if (t->p2p_only)
		return;
	/* later endpoints go first, so GPU0.. are kept */
	for (i = t->n - 1; i >= 0; i--) {
		if (!t->ep[i].keep)
			continue;
		for (j = 0; j < t->n; j++)
			if (j != i && t->ep[j].keep && t->cls[i][j] == C_UNK) {
				t->ep[i].keep = 0;
				break;
			}
	}
	/* endpoints without a row whose cells the other rows give */
	for (i = 0; i < t->n; i++) {
		if (t->ep[i].keep)
			continue;
		for (j = 0; j < t->n; j++)
			if (j != i && t->ep[j].keep && t->cls[i][j] == C_UNK)
				break;
		if (j == t->n)
			t->ep[i].keep = 1;
	}
	for (i = 0; i < t->n; i++)
		if (!t->ep[i].keep) {
			size_t l = strlen(list);
			if (l + 40 < sizeof(list))
				snprintf(list + l, sizeof(list) - l, "%s%s", dropped ? " " : "",
					 t->ep[i].label);
			else if (l + 5 < sizeof(list) && !strstr(list, "..."))
				strcat(list, " ...");
			dropped++;
		}
	if (dropped)
		imp_note(s, "the matrix is truncated: %d endpoint(s) without a complete row "
			 "left out: %s", dropped, list);
	else if (t->truncated)
		imp_note(s, "the matrix is truncated; missing cells were taken from the "
			 "mirror cells");
}

static int uf_find(int *uf, int i)
{
	while (uf[i] != i)
		i = uf[i] = uf[uf[i]];
	return i;
}

static void uf_union(int *uf, int a, int b)
{
	a = uf_find(uf, a);
	b = uf_find(uf, b);
	if (a != b)
		uf[a > b ? a : b] = a < b ? a : b;   /* the smaller index is the root */
}

/* Model class between endpoints a and b of the built tree (for the check). */
static int model_class(const struct imp_scn *s, int a, int b)
{
	int ra = a, rb = b, pa, pb;

	while (s->nodes[ra].parent >= 0)
		ra = s->nodes[ra].parent;
	while (s->nodes[rb].parent >= 0)
		rb = s->nodes[rb].parent;
	if (s->nodes[ra].socket != s->nodes[rb].socket ||
	    s->nodes[ra].numa != s->nodes[rb].numa)
		return C_SYS;
	if (ra != rb)
		return C_NODE;
	pa = a;
	while (s->nodes[pa].kind != IMP_RP)
		pa = s->nodes[pa].parent;
	pb = b;
	while (s->nodes[pb].kind != IMP_RP)
		pb = s->nodes[pb].parent;
	if (pa != pb)
		return C_PHB;
	return s->nodes[a].parent == s->nodes[b].parent ? C_PIX : C_PXB;
}

/* Add endpoint i under parent. */
static int add_ep(struct tm *t, struct imp_scn *s, int i, int parent,
		  const struct imp_opts *o, struct plumb_err *err)
{
	struct tm_ep *e = &t->ep[i];
	int k = imp_add_node(s, e->is_gpu ? IMP_GPU : IMP_NIC, parent, t->src, err);

	if (k < 0)
		return -PLUMB_EINPUT;
	e->node = k;
	s->nodes[k].order = e->is_gpu ? i : 100000 + i;
	if (e->is_gpu) {
		snprintf(s->nodes[k].model, sizeof(s->nodes[k].model), "%s",
			 o->gpu_model ? o->gpu_model : IMP_GPU_UNSET);
		snprintf(s->nodes[k].comment, sizeof(s->nodes[k].comment),
			 "%s: model not in the input (--gpu-model)", e->label);
	} else {
		snprintf(s->nodes[k].model, sizeof(s->nodes[k].model), "%s",
			 e->nicname[0] ? e->nicname : e->label);
		snprintf(s->nodes[k].comment, sizeof(s->nodes[k].comment), "%s", e->label);
	}
	return 0;
}

/* Build the tree for the kept endpoints (see the top of the file). */
int imp_tm_build(struct tm *t, struct imp_scn *s, const struct imp_opts *o,
		 struct plumb_err *err)
{
	int uf_numa[TM_MAX_EP], uf_rc[TM_MAX_EP], uf_rp[TM_MAX_EP], uf_pix[TM_MAX_EP];
	int numa_of[TM_MAX_EP], group_numa[TM_MAX_EP], ngroups = 0, order[TM_MAX_EP];
	int i, j, g, n = t->n, nn, folded = 0, split_numa = 0;

	for (i = 0; i < n; i++)
		uf_numa[i] = uf_rc[i] = uf_rp[i] = uf_pix[i] = i;
	for (i = 0; i < n; i++) {
		if (!t->ep[i].keep)
			continue;
		for (j = i + 1; j < n; j++) {
			int c = t->cls[i][j], di = t->ep[i].numa, dj = t->ep[j].numa;
			if (!t->ep[j].keep)
				continue;
			if (c >= C_PIX && c <= C_NODE)
				uf_union(uf_numa, i, j);
			else if ((c == C_NV || c == C_UNK) && di == dj)
				uf_union(uf_numa, i, j);
			else if (c == C_SYS && di >= 0 && di == dj)
				split_numa = 1;
			if (c >= C_PIX && c <= C_PHB)
				uf_union(uf_rc, i, j);
			if (c >= C_PIX && c <= C_PXB)
				uf_union(uf_rp, i, j);
			if (c == C_PIX)
				uf_union(uf_pix, i, j);
		}
	}
	if (split_numa)
		imp_note(s, "endpoints of one declared NUMA node are SYS to each other; "
			 "they get NUMA nodes of their own to reproduce the matrix");
	/* NUMA groups -> dense ids ordered by (declared NUMA, first member) */
	for (i = 0; i < n; i++)
		if (t->ep[i].keep && uf_find(uf_numa, i) == i)
			order[ngroups++] = i;
	for (i = 0; i < ngroups; i++) {
		int d = -1;
		for (j = 0; j < n; j++)
			if (t->ep[j].keep && uf_find(uf_numa, j) == order[i] && t->ep[j].numa >= 0) {
				d = t->ep[j].numa;
				break;
			}
		group_numa[i] = d < 0 ? 100000 + order[i] : d * TM_MAX_EP + order[i];
	}
	for (i = 1; i < ngroups; i++)
		for (j = i; j > 0 && group_numa[j - 1] > group_numa[j]; j--) {
			int x = group_numa[j];
			group_numa[j] = group_numa[j - 1];
			group_numa[j - 1] = x;
			x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (i = 0; i < n; i++)
		numa_of[i] = -1;
	for (g = 0; g < ngroups; g++)
		for (i = 0; i < n; i++)
			if (t->ep[i].keep && uf_find(uf_numa, i) == order[g])
				numa_of[i] = g % IMP_MAX_NUMA;
	nn = ngroups < IMP_MAX_NUMA ? ngroups : IMP_MAX_NUMA;
	if (ngroups > IMP_MAX_NUMA) {
		folded = 1;
		imp_note(s, "%d NUMA groups folded into %d (the scenario limit)", ngroups,
			 IMP_MAX_NUMA);
	}
	if (nn <= 2 || nn % 2) {
		s->sockets = nn > 0 ? nn : 1;
		s->numa_per_socket = 1;
	} else {
		s->sockets = 2;
		s->numa_per_socket = nn / 2;
		imp_note(s, "%d NUMA nodes: sockets: 2 with numa_per_socket: %d is a guess "
			 "(topo -m does not show sockets)", nn, nn / 2);
	}
	/* socket_cpus: one per NUMA node when every node has an affinity */
	if (!folded && nn > 0) {
		int all = 1;
		for (g = 0; g < nn && all; g++) {
			all = 0;
			for (i = 0; i < n; i++)
				if (t->ep[i].keep && numa_of[i] == g && t->ep[i].cpus[0]) {
					snprintf(s->socket_cpus[g], sizeof(s->socket_cpus[g]), "%s",
						 t->ep[i].cpus);
					all = 1;
					break;
				}
		}
		s->nsocket_cpus = all ? nn : 0;
	}

	/* root complexes in order of their first endpoint */
	for (i = 0; i < n; i++) {
		int rc, e;
		if (!t->ep[i].keep || uf_find(uf_rc, i) != i)
			continue;
		if ((rc = imp_add_node(s, IMP_RC, -1, t->src, err)) < 0)
			return -PLUMB_EINPUT;
		s->nodes[rc].numa = numa_of[i];
		s->nodes[rc].socket = numa_of[i] / s->numa_per_socket;
		if (s->numa_per_socket == 1)
			s->nodes[rc].numa = -1;
		for (e = i; e < n; e++) {
			int rp, sw = -1, nclu = 0, size = 0, k, m;
			if (!t->ep[e].keep || uf_find(uf_rc, e) != i || uf_find(uf_rp, e) != e)
				continue;
			if ((rp = imp_add_node(s, IMP_RP, rc, t->src, err)) < 0)
				return -PLUMB_EINPUT;
			for (k = e; k < n; k++)
				if (t->ep[k].keep && uf_find(uf_rp, k) == e) {
					size++;
					if (uf_find(uf_pix, k) == k)
						nclu++;
				}
			if (size == 1) {
				if (add_ep(t, s, e, rp, o, err) < 0)
					return -PLUMB_EINPUT;
				continue;
			}
			if ((sw = imp_add_node(s, IMP_SW, rp, t->src, err)) < 0)
				return -PLUMB_EINPUT;
			for (k = e; k < n; k++) {
				int leaf = sw;
				if (!t->ep[k].keep || uf_find(uf_rp, k) != e || uf_find(uf_pix, k) != k)
					continue;
				if (nclu > 1 && (leaf = imp_add_node(s, IMP_SW, sw, t->src, err)) < 0)
					return -PLUMB_EINPUT;
				for (m = k; m < n; m++)
					if (t->ep[m].keep && uf_find(uf_pix, m) == k &&
					    add_ep(t, s, m, leaf, o, err) < 0)
						return -PLUMB_EINPUT;
			}
		}
	}
	return 0;
}

/* NVLink section and the reproduction check. */
void imp_tm_finish(struct tm *t, struct imp_scn *s)
{
	int i, j, ngpu = 0, nvpairs = 0, allsame = 1, first = 0, bad = 0;
	char list[160] = "";

	for (i = 0; i < t->n; i++) {
		if (!t->ep[i].keep || !t->ep[i].is_gpu)
			continue;
		ngpu++;
		for (j = i + 1; j < t->n; j++) {
			if (!t->ep[j].keep || !t->ep[j].is_gpu)
				continue;
			if (t->cls[i][j] == C_NV) {
				nvpairs++;
				if (!first)
					first = t->nv[i][j];
				else if (t->nv[i][j] != first)
					allsame = 0;
			} else {
				allsame = 0;
			}
		}
	}
	if (ngpu > 2 && allsame && nvpairs == ngpu * (ngpu - 1) / 2) {
		s->nvswitch = 1;
		s->links_per_gpu = first;
	} else {
		for (i = 0; i < t->n; i++)
			for (j = i + 1; j < t->n; j++)
				if (t->ep[i].keep && t->ep[j].keep && t->ep[i].is_gpu &&
				    t->ep[j].is_gpu && t->cls[i][j] == C_NV &&
				    s->npairs < IMP_MAX_PAIRS) {
					s->pairs[s->npairs].a = t->ep[i].node;
					s->pairs[s->npairs].b = t->ep[j].node;
					s->pairs[s->npairs].links = t->nv[i][j];
					s->npairs++;
				}
	}
	for (i = 0; i < t->n; i++)
		for (j = i + 1; j < t->n; j++) {
			int c = t->cls[i][j], m;
			if (!t->ep[i].keep || !t->ep[j].keep || c < C_PIX || c > C_SYS)
				continue;
			m = model_class(s, t->ep[i].node, t->ep[j].node);
			if (m != c) {
				size_t l = strlen(list);
				if (l + 40 < sizeof(list))
					snprintf(list + l, sizeof(list) - l, "%s%s-%s %s->%s",
						 bad ? ", " : "", t->ep[i].label, t->ep[j].label,
						 imp_tm_cls[c], imp_tm_cls[m]);
				bad++;
			}
		}
	if (bad)
		imp_note(s, "%d pair(s) cannot be reproduced by a PCIe tree: %s%s", bad, list,
			 strlen(list) + 45 >= sizeof(list) ? " ..." : "");
	if (t->p2p_only)
		imp_note(s, "no topo -m matrix in the input: GPUs taken from a topo -p2p "
			 "matrix, one root complex each (PCIe placement unknown)");
}

