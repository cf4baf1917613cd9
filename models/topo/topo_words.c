/*
 * topo_words.c - a view in words: the names of classes, P2P statuses, NCCL
 * transports and path levels, CPU affinity, a guest's bus addresses, and
 * the sentence saying why a pair has its P2P status (topo.h).
 */
#include "topo.h"
#include "topo_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const nccl_path_names[] = {
	"LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS", NULL
};

const char *topo_nccl_path_str(int p)
{
	return p >= 0 && p <= NP_SYS ? nccl_path_names[p] : "?";
}

int topo_nccl_path_parse(const char *s)
{
	/* NCCL's old numeric levels (src/graph/paths.cc levelsOldToNew). */
	static const int old[] = { NP_LOC, NP_PIX, NP_PXB, NP_PHB, NP_SYS, NP_SYS };
	int i;
	for (i = 0; nccl_path_names[i]; i++)
		if (strcmp(s, nccl_path_names[i]) == 0)
			return i;
	if (s[0] >= '0' && s[0] <= '9' && s[1] == '\0')
		return old[s[0] - '0' > 5 ? 5 : s[0] - '0'];
	return -1;
}

const char *topo_p2p_str(enum topo_p2p p)
{
	static const char *const n[] = { "X", "OK", "CNS", "GNS", "TNS", "NS", "DR", "U" };
	return n[p];
}

const char *topo_xport_str(enum topo_xport x)
{
	static const char *const n[] = { "X", "P2P", "SHM", "NET" };
	return n[x];
}

const char *topo_class_str(const struct topo_view *v, int i, int j, char *buf)
{
	static const char *const n[] = { "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS" };
	if (v->cls[i][j] == TC_NV) {
		/* amd-smi topology and rocm-smi --showtopo call an xGMI
		 * link between two GPUs "XGMI" */
		if (v->scn && v->scn->xgmi)
			snprintf(buf, 8, "XGMI");
		else
			snprintf(buf, 8, "NV%d", v->nvl[i][j]);
		return buf;
	}
	snprintf(buf, 8, "%s", n[v->cls[i][j]]);
	return buf;
}

int topo_numa_host(const struct scenario *s, int numa)
{
	int h, nps = s->host.numa_per_socket;
	for (h = 0; h < s->nhosts; h++)
		if (numa >= s->hosts[h].first_socket * nps &&
		    numa < (s->hosts[h].first_socket + s->hosts[h].nsockets) * nps)
			return h;
	return 0;
}

void topo_cpu_affinity(const struct scenario *s, int numa, char *buf, size_t n)
{
	const struct scn_host *h = &s->host;
	int nodes = h->sockets * h->numa_per_socket, cpn, total, local = numa;

	if (numa < 0 || numa >= nodes) {
		snprintf(buf, n, "N/A");
		return;
	}
	if (numa < s->nnuma_cpus && s->numa_cpus[numa][0]) {
		snprintf(buf, n, "%s", s->numa_cpus[numa]);
		return;
	}
	if (h->cores_per_socket <= 0) {
		snprintf(buf, n, "N/A");
		return;
	}
	/* Linux numbers first threads of every core, then the SMT siblings,
	 * on each host of a scenario with several from CPU 0. */
	{
		const struct scn_box *b = &s->hosts[topo_numa_host(s, numa)];
		local = numa - b->first_socket * h->numa_per_socket;
		total = h->cores_per_socket * (s->nhosts > 1 ? b->nsockets : h->sockets);
	}
	cpn = h->cores_per_socket / h->numa_per_socket;
	if (h->threads_per_core > 1)
		snprintf(buf, n, "%d-%d,%d-%d", local * cpn, local * cpn + cpn - 1,
			 total + local * cpn, total + local * cpn + cpn - 1);
	else
		snprintf(buf, n, "%d-%d", local * cpn, local * cpn + cpn - 1);
}

void topo_guest_cpus(const struct scenario *s, int numa, char *buf, size_t n)
{
	int nn = s->host.sockets * s->host.numa_per_socket, v = s->vm.vcpus, a, b;

	if (v <= 0 || nn <= 0) {
		snprintf(buf, n, "N/A");
		return;
	}
	if (!s->vm.guest_numa || numa < 0 || numa >= nn || v < nn) {
		snprintf(buf, n, "0-%d", v - 1);
		return;
	}
	a = numa * v / nn;
	b = (numa + 1) * v / nn - 1;
	snprintf(buf, n, "%d-%d", a, b);
}

static int is_proxmox(const struct scenario *s)
{
	const char *h = s->vm.hypervisor;
	return (h[0] == 'p' || h[0] == 'P') && strncmp(h + 1, "roxmox", 6) == 0;
}

/* Proxmox q35 root port of hostpci i as slot * 8 + function. */
static int pve_port_addr(int i)
{
	if (i < 4)
		return 0x1c * 8 + i;            /* ich9-pcie-port-1..4 (pve-q35 config) */
	if (i < 12)
		return 0x10 * 8 + (i - 4);      /* print_pcie_root_port: 10.0-10.7 */
	return 0x11 * 8 + (i - 12);             /* 11.0-11.3 */
}

void topo_guest_bdf(const struct scenario *s, int i, char *buf)
{
	int bus = i + 1, slot = 0;

	if (is_proxmox(s) && s->vm.chipset == SCN_Q35 && s->vm.pcie_passthrough) {
		/* Ports 1-4 always exist; the others only for the devices that
		 * need them. Buses follow the ports' addresses. */
		int nports = s->ngpus > 4 ? s->ngpus : 4, k, mine = pve_port_addr(i);
		bus = 1;
		for (k = 0; k < nports; k++)
			bus += pve_port_addr(k) < mine;
	} else if (is_proxmox(s) && s->vm.chipset == SCN_I440FX) {
		static const int slot0[] = { 0x10, 0x11, 0x1b, 0x1c };
		if (i < 4) {
			bus = 0;
			slot = slot0[i];
		} else {
			bus = 1;                        /* pci.2 at 00:1f.0, the only bridge */
			slot = 0x0d + (i - 4);
		}
	}
	snprintf(buf, 16, "0000:%02x:%02x.0", (unsigned)bus & 0xffu, (unsigned)slot & 0x1fu);
}

/* Phrase for where the two GPUs sit on the host. */
static void where_phrase(const struct scenario *s, int gi, int gj, char *buf, size_t n)
{
	struct topo_opts o;
	struct topo_view *h = NULL;
	int a = s->gpu_node[gi], b = s->gpu_node[gj];
	int alone = topo_rc_endpoints(s, a) == 1 && topo_rc_endpoints(s, b) == 1;
	enum topo_class c;

	topo_opts_init(&o);
	if (topo_build(s, TOPO_HOST, &o, &h, NULL) < 0) {
		snprintf(buf, n, "the GPUs");
		return;
	}
	c = (enum topo_class)h->cls[gi][gj];
	topo_free(h);
	if (alone && c == TC_SYS)
		snprintf(buf, n, "each GPU is alone on its root complex, on different sockets,");
	else if (alone)
		snprintf(buf, n, "each GPU is alone on its root complex");
	else if (c == TC_PIX)
		snprintf(buf, n, "both GPUs sit under switch %s",
			 s->nodes[s->nodes[a].parent].id);
	else if (c == TC_PXB)
		snprintf(buf, n, "the GPUs sit under one switch hierarchy");
	else if (c == TC_PHB)
		snprintf(buf, n, "the GPUs share root complex %s", s->nodes[topo_root_of(s, a)].id);
	else if (c == TC_NODE)
		snprintf(buf, n, "the GPUs hang off different root complexes of NUMA node %d",
			 s->nodes[a].numa);
	else if (c == TC_SYS)
		snprintf(buf, n, "the GPUs sit on different NUMA nodes (sockets),");
	else
		snprintf(buf, n, "the GPUs are joined by NVLink");
}

void topo_p2p_reason(const struct topo_view *v, int i, int j, char *buf, size_t n)
{
	struct topo_view *hostdef = NULL;

	topo_p2p_reason_with(v, &hostdef, i, j, buf, n);
	topo_free(hostdef);
}

void topo_p2p_reason_with(const struct topo_view *v, struct topo_view **hostdef,
			  int i, int j, char *buf, size_t n)
{
	const struct scenario *s = v->scn;
	const struct scn_gpu_model *a = &s->catalog->gpus[s->nodes[s->gpu_node[i]].gpu_model];
	const struct scn_gpu_model *b = &s->catalog->gpus[s->nodes[s->gpu_node[j]].gpu_model];
	const struct scn_gpu_model *gns = a->p2p == SCN_P2P_UNSUPPORTED ? a : b;
	char where[160];

	if (s->nodes[s->gpu_node[i]].host != s->nodes[s->gpu_node[j]].host) {
		snprintf(buf, n, "the GPUs are in different hosts (%s, %s): no PCIe path joins them, "
			 "NCCL reaches the other host through the NICs (NET)",
			 s->hosts[s->nodes[s->gpu_node[i]].host].name,
			 s->hosts[s->nodes[s->gpu_node[j]].host].name);
		return;
	}
	where_phrase(s, i, j, where, sizeof(where));
	switch ((enum topo_p2p)v->p2p[i][j]) {
	case P2P_X:
		snprintf(buf, n, "same GPU");
		break;
	case P2P_OK:
		if (v->nvl[i][j])
			snprintf(buf, n, "joined by %d %s: direct GPU-to-GPU DMA", v->nvl[i][j],
				 v->scn && v->scn->xgmi ? v->nvl[i][j] > 1 ? "xGMI links" : "xGMI link"
							 : "NVLinks");
		else if (v->side == TOPO_GUEST)
			snprintf(buf, n, "%s and the VM exposes a P2P clique: direct DMA over PCIe", where);
		else if (v->acs_via[i][j] >= 0)
			snprintf(buf, n, "%s, whose downstream ports enforce ACS P2P Request Redirect: "
				 "DMA over PCIe up to root complex %s and back down",
				 where, s->nodes[topo_root_of(s, s->gpu_node[i])].id);
		else if (v->side == TOPO_HOST &&
			 topo_chip_cross(s, v->acs_override, s->gpu_node[i], s->gpu_node[j], NULL, NULL))
			snprintf(buf, n, "%s, under two partitions of switch chip %s: direct DMA across "
				 "the chip, not through the root complexes",
				 where, s->nodes[topo_chip_top(s, s->gpu_node[i])].chip);
		else if (v->acs_dt[i][j])
			snprintf(buf, n, "%s; its ACS Direct Translated P2P lets the GPUs' "
				 "ATS-translated requests across: direct DMA over PCIe", where);
		else {
			size_t w = strlen(where);
			if (w && where[w - 1] == ',')
				where[w - 1] = 0;   /* "..., on different sockets: direct DMA" */
			snprintf(buf, n, "%s: direct DMA over PCIe", where);
		}
		break;
	case P2P_GNS:
		snprintf(buf, n, "%s and the stock driver refuses PCIe P2P on %s: transfers bounce through host memory",
			 where, gns->name);
		break;
	case P2P_TNS:
		snprintf(buf, n, "%s and P2P across the inter-socket link is not supported on this platform: transfers bounce through host memory",
			 where);
		break;
	case P2P_NS:
		if (s->vm.chipset != SCN_Q35 || !s->vm.pcie_passthrough)
			snprintf(buf, n, "%s and the VM presents the GPUs on a flat PCI bus (no pcie=1): transfers bounce through host memory",
				 where);
		else if (s->vm.p2p_exposure == SCN_P2P_CLIQUE)
			snprintf(buf, n, "%s and the VM puts the GPUs in different P2P cliques: transfers bounce through host memory",
				 where);
		else
			snprintf(buf, n, "%s and the VM exposes no P2P: transfers bounce through host memory",
				 where);
		break;
	default:
		snprintf(buf, n, "%s: status %s", where, topo_p2p_str((enum topo_p2p)v->p2p[i][j]));
		break;
	}
	if (v->side == TOPO_GUEST && v->p2p[i][j] != P2P_OK && v->p2p[i][j] != P2P_X) {
		/* Say when the host itself would also refuse. */
		if (!*hostdef) {
			struct topo_opts o;
			topo_opts_init(&o);
			if (topo_build(s, TOPO_HOST, &o, hostdef, NULL) != 0)
				*hostdef = NULL;
		}
		if (*hostdef && (*hostdef)->p2p[i][j] != P2P_OK) {
			size_t len = strlen(buf);
			snprintf(buf + len, n - len, " (on the host too: %s)",
				 topo_p2p_str((enum topo_p2p)(*hostdef)->p2p[i][j]));
		}
	}
}
