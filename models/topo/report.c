/*
 * report.c - text and XML renderings of topology views (report.h); the JSON
 * one is report_json.c.
 */
#include "report.h"

#include "jout.h"
#include "out.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char legend_m[] =
	"Legend:\n\n"
	"  X    = Self\n"
	"  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
	"  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
	"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
	"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
	"  PIX  = Connection traversing at most a single PCIe bridge\n"
	"  NV#  = Connection traversing a bonded set of # NVLinks\n";

static const char legend_p2p[] =
	"Legend:\n\n"
	"  X    = Self\n"
	"  OK   = Status Ok\n"
	"  CNS  = Chipset not supported\n"
	"  GNS  = GPU not supported\n"
	"  TNS  = Topology not supported\n"
	"  NS   = Not supported\n"
	"  U    = Unknown\n";

static void cell(FILE *f, const char *s)
{
	if (strcmp(s, "X") == 0)
		fputs(" X ", f);
	else
		fputs(s, f);
}

/*
 * The endpoints of host h of v into ep (GPUs, then NICs) and their labels
 * as nvidia-smi on that host prints them (GPU0.., NIC0..); the count. A
 * scenario of one box has every endpoint under its own label.
 */
static int host_eps(const struct topo_view *v, int h, int *ep, char (*label)[16])
{
	int i, n = 0, gpus = 0, nics = 0;
	for (i = 0; i < v->nep; i++) {
		if (v->scn->nhosts > 1 && topo_ep_host(v, i) != h)
			continue;
		ep[n] = i;
		if (v->scn->nhosts <= 1)
			snprintf(label[n], 16, "%s", v->ep[i].label);
		else if (v->ep[i].gpu >= 0)
			snprintf(label[n], 16, "GPU%d", gpus++);
		else
			snprintf(label[n], 16, "NIC%d", nics++);
		n++;
	}
	return n;
}

/* Heading of host h's block when the scenario has several hosts. */
static void host_heading(FILE *f, const struct topo_view *v, int h)
{
	const struct scn_box *b = &v->scn->hosts[h];
	if (v->scn->nhosts <= 1)
		return;
	fprintf(f, "%s%s (GPU%d-GPU%d of the scenario, %d NIC%s):\n", h ? "\n" : "", b->name,
		b->first_gpu, b->first_gpu + b->ngpus - 1, b->nnics, b->nnics == 1 ? "" : "s");
}

void rep_topo_matrix(FILE *f, const struct topo_view *v, int legend)
{
	int i, j, h, n, *ep = malloc((size_t)v->nep * sizeof(*ep)), nics = 0;
	char buf[16], aff[160], (*label)[16] = malloc((size_t)v->nep * sizeof(*label));
	const struct scenario *s = v->scn;

	if (!ep || !label) {
		free(ep);
		free(label);
		fputs("plumb: out of memory\n", f);
		return;
	}

	for (h = 0; h < (s->nhosts > 1 ? s->nhosts : 1); h++) {
		n = host_eps(v, h, ep, label);
		host_heading(f, v, h);
		for (i = 0; i < n; i++)
			fprintf(f, "\t%s", label[i]);
		fputs("\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n", f);
		for (i = 0; i < n; i++) {
			const struct topo_ep *e = &v->ep[ep[i]];
			fputs(label[i], f);
			for (j = 0; j < n; j++) {
				fputc('\t', f);
				cell(f, topo_class_str(v, ep[i], ep[j], buf));
			}
			if (e->gpu >= 0) {
				int numa = e->numa;
				if (v->side == TOPO_GUEST)
					topo_guest_cpus(s, numa, aff, sizeof(aff));
				else
					topo_cpu_affinity(s, numa, aff, sizeof(aff));
				/* each host numbers its NUMA nodes from 0 */
				if (numa >= 0 && s->nhosts > 1)
					numa -= s->hosts[h].first_socket * s->host.numa_per_socket;
				if (numa >= 0)
					fprintf(f, "\t%s\t%d\t\tN/A", aff, numa);
				else
					fprintf(f, "\t%s\tN/A\t\tN/A", aff);
			}
			fputc('\n', f);
			nics += e->gpu < 0;
		}
		if (legend && s->nhosts > 1 && n > s->hosts[h].ngpus) {
			fputs("\nNIC Legend:\n\n", f);
			for (i = 0; i < n; i++)
				if (v->ep[ep[i]].gpu < 0)
					fprintf(f, "  %s: %s\n", label[i], s->nodes[v->ep[ep[i]].host_node].model[0]
						? s->nodes[v->ep[ep[i]].host_node].model
						: s->nodes[v->ep[ep[i]].host_node].id);
		}
	}
	if (legend) {
		fputc('\n', f);
		fputs(legend_m, f);
		if (s->xgmi)
			fputs("  XGMI = Connection traversing an AMD xGMI (Infinity Fabric) link between the two GPUs\n", f);
	}
	if (legend && nics && s->nhosts <= 1) {
		fputs("\nNIC Legend:\n\n", f);
		for (i = 0; i < v->nep; i++)
			if (v->ep[i].gpu < 0)
				fprintf(f, "  %s: %s\n", v->ep[i].label,
					s->nodes[v->ep[i].host_node].model[0]
						? s->nodes[v->ep[i].host_node].model
						: s->nodes[v->ep[i].host_node].id);
	}
	free(ep);
	free(label);
}

void rep_p2p_matrix(FILE *f, const struct topo_view *v, int legend)
{
	int i, j, h, n, ng, *ep = malloc((size_t)v->nep * sizeof(*ep));
	char (*label)[16] = malloc((size_t)v->nep * sizeof(*label));

	if (!ep || !label) {
		free(ep);
		free(label);
		fputs("plumb: out of memory\n", f);
		return;
	}

	for (h = 0; h < (v->scn->nhosts > 1 ? v->scn->nhosts : 1); h++) {
		n = host_eps(v, h, ep, label);
		for (ng = 0; ng < n && v->ep[ep[ng]].gpu >= 0; ng++)
			;
		host_heading(f, v, h);
		fputs(" ", f);
		for (i = 0; i < ng; i++)
			fprintf(f, "\t%s", label[i]);
		fputc('\n', f);
		for (i = 0; i < ng; i++) {
			fprintf(f, " %s", label[i]);
			for (j = 0; j < ng; j++)
				fprintf(f, "\t%s", topo_p2p_str((enum topo_p2p)v->p2p[ep[i]][ep[j]]));
			fputc('\n', f);
		}
	}
	if (legend) {
		fputc('\n', f);
		fputs(legend_p2p, f);
	}
	free(ep);
	free(label);
}

void rep_p2p_reasons(FILE *f, const struct topo_view *v)
{
	int i, j, any = 0;
	char why[512];
	for (i = 0; i < v->ngpu; i++)
		for (j = i + 1; j < v->ngpu; j++) {
			if (v->p2p[i][j] == P2P_OK && v->acs_via[i][j] < 0 && !v->acs_dt[i][j])
				continue;
			if (topo_ep_host(v, i) != topo_ep_host(v, j))
				continue;       /* between hosts: the network, rep_transport */
			topo_p2p_reason(v, i, j, why, sizeof(why));
			if (v->scn->nhosts > 1) {
				/* as the host's own matrices number its GPUs */
				const struct scn_box *b = &v->scn->hosts[topo_ep_host(v, i)];
				fprintf(f, "%s GPU%d-GPU%d: %s, %s\n", b->name, i - b->first_gpu,
					j - b->first_gpu, topo_p2p_str((enum topo_p2p)v->p2p[i][j]), why);
				any = 1;
				continue;
			}
			fprintf(f, "%s-%s: %s, %s\n", v->ep[i].label, v->ep[j].label,
				topo_p2p_str((enum topo_p2p)v->p2p[i][j]), why);
			any = 1;
		}
	if (!any)
		fputs("every GPU pair has P2P status OK\n", f);

}

static void print_groups(FILE *f, const struct topo_view *v)
{
	int g, i;
	for (g = 0; g < v->ngroups; g++) {
		int first = 1;
		fprintf(f, "  group %d:", g);
		for (i = 0; i < v->nep; i++)
			if (v->group[i] == g) {
				const struct scn_node *d = &v->scn->nodes[v->ep[i].host_node];
				fprintf(f, "%s %s (%s)", first ? "" : ",", v->ep[i].label, d->id);
				first = 0;
			}
		fputc('\n', f);
	}
}

void rep_iommu(FILE *f, const struct topo_view *as_is, const struct topo_view *acs_on,
	       const struct topo_view *acs_off)
{
	int merged = acs_on->ngroups - acs_off->ngroups;
	const struct scenario *s = as_is->scn;

	fprintf(f, "IOMMU groups (host, %s): %d\n",
		as_is->acs_override < 0 ? "ACS as configured" :
		as_is->acs_override ? "ACS forced on by --acs" : "ACS forced off by --acs",
		as_is->ngroups);
	print_groups(f, as_is);
	if (s->vm.host_iommu == SCN_IOMMU_OFF)
		fputs("  (the host runs with the IOMMU off: these are the groups VFIO would see with it on)\n", f);
	if (merged <= 0) {
		fprintf(f, "ACS enforced or disabled everywhere: %d groups either way.\n", acs_off->ngroups);
		fputs("  Disabling ACS merges nothing: no switch has several devices below it (a root\n"
		      "  port has one link), so ACS has nothing to control; every GPU keeps its own group.\n", f);
		return;
	}
	if (acs_on->ngroups != as_is->ngroups) {
		fprintf(f, "With ACS enforced everywhere: %d\n", acs_on->ngroups);
		print_groups(f, acs_on);
	}
	if (acs_off->ngroups != as_is->ngroups) {
		fprintf(f, "With ACS disabled everywhere: %d\n", acs_off->ngroups);
		print_groups(f, acs_off);
	}
	fprintf(f, "  Disabling ACS merges %d groups into %d: devices below one switch can reach each\n"
		"  other without the IOMMU, so VFIO must pass them to a guest together.\n",
		acs_on->ngroups, acs_off->ngroups);
}

void rep_transport(FILE *f, const struct topo_view *v)
{
	int i, j;
	fprintf(f, "NCCL_P2P_LEVEL=%s (%s)\n", topo_nccl_path_str(v->nccl_level),
		v->nccl_level_default
			? (v->nccl_level == NP_SYS ? "NCCL default: AMD CPU with at most 2 GPUs"
						  : "NCCL default")
			: v->nccl_level_scenario ? "set by the scenario" : "set by the user");
	for (i = 0; i < v->ngpu; i++)
		fprintf(f, "\t%s", v->ep[i].label);
	fputc('\n', f);
	for (i = 0; i < v->ngpu; i++) {
		fputs(v->ep[i].label, f);
		for (j = 0; j < v->ngpu; j++)
			fprintf(f, "\t%s", topo_xport_str((enum topo_xport)v->xport[i][j]));
		fputc('\n', f);
	}
	if (v->nep > v->ngpu) {
		char why[512];
		int lvl = v->scn->nccl_gdr_level;
		fprintf(f, "NET (NCCL_NET_GDR_LEVEL=%s%s), each GPU's nearest NIC:\n",
			topo_nccl_path_str(lvl >= 0 ? lvl : NP_PXB),
			lvl >= 0 ? ", set by the scenario" : ", NCCL default");
		for (i = 0; i < v->ngpu; i++)
			if (topo_gdr(v, i, NULL, why, sizeof(why)) >= 0)
				fprintf(f, "%s: %s\n", v->ep[i].label, why);
	}
}

static void print_bar_pass(FILE *f, const struct bar_result *r, const char *title)
{
	int i;
	fprintf(f, "%s: %d of %d GPUs get every BAR (64-bit region 0x%llx-0x%llx, need %llu GiB, room %llu GiB)\n",
		title, r->ok_gpus, r->ngpus, (unsigned long long)r->start64,
		(unsigned long long)(r->limit64 - 1),
		(unsigned long long)(r->need64 >> 30), (unsigned long long)(r->avail64 >> 30));
	for (i = 0; i < r->nmsg; i++)
		fprintf(f, "  %s\n", r->msg[i]);
}

void rep_bars(FILE *f, const struct scenario *s, const struct bar_result *without,
	      const struct bar_result *with)
{
	fprintf(f, "Firmware %s, guest RAM %llu GiB, guest phys-bits %d, 64-bit MMIO window %llu GiB\n",
		s->vm.firmware == SCN_SEABIOS ? "SeaBIOS" : "OVMF",
		(unsigned long long)(s->vm.guest_ram >> 30), s->vm.guest_phys_bits,
		(unsigned long long)(s->vm.mmio64_window >> 30));
	print_bar_pass(f, without, "without pci=realloc");
	print_bar_pass(f, with, "with pci=realloc");
	fprintf(f, "This guest boots %s pci=realloc.\n", s->vm.pci_realloc ? "with" : "without");
}

void rep_findings(FILE *f, const struct topo_view *host, const struct topo_view *guest,
		  const struct bar_result *without, const struct bar_result *with)
{
	const struct scenario *s = host->scn;
	const struct topo_view *run = guest ? guest : host;
	int i, j, n = 0, ok = 0, p2p = 0, pairs = 0;
	char why[512];

	for (i = 0; i < run->ngpu; i++)
		for (j = i + 1; j < run->ngpu; j++) {
			if (topo_ep_host(run, i) != topo_ep_host(run, j))
				continue;       /* between hosts: the network's finding */
			pairs++;
			ok += run->p2p[i][j] == P2P_OK;
			p2p += run->xport[i][j] == XP_P2P;
		}
	if (s->nhosts > 1) {
		int gdr = 0;
		for (i = 0; i < host->ngpu; i++)
			gdr += topo_gdr(host, i, NULL, NULL, 0) == 1;
		fprintf(f, "- %d hosts joined by %s at %g Gb/s per NIC port through %s: GPUs of "
			"different hosts use NCCL's NET transport, %d of %d GPUs with GPUDirect RDMA to "
			"their NIC%s.\n",
			s->nhosts, s->net.kind == SCN_NET_IB ? "InfiniBand" : "RoCE", s->net.port_gbps,
			s->net.switch_model[0] ? s->net.switch_model : "one switch", gdr, host->ngpu,
			gdr < host->ngpu ? ", the others staged through host memory" : "");
	}
	if (pairs && ok < pairs) {
		/* The first non-OK pair stands for the rest with the same story. */
		for (i = 0; i < run->ngpu && !n; i++)
			for (j = i + 1; j < run->ngpu && !n; j++)
				if (run->p2p[i][j] != P2P_OK && topo_ep_host(run, i) == topo_ep_host(run, j)) {
					topo_p2p_reason(run, i, j, why, sizeof(why));
					fprintf(f, "- %s-%s: %s, %s", run->ep[i].label, run->ep[j].label,
						topo_p2p_str((enum topo_p2p)run->p2p[i][j]), why);
					n = 1;
				}
		fprintf(f, " (%d of %d pairs without P2P).\n", pairs - ok, pairs);
	} else if (pairs) {
		fprintf(f, "- All %d GPU pairs have P2P status OK.\n", pairs);
	}
	if (pairs && p2p < ok)
		fprintf(f, "- NCCL uses P2P for %d of %d pairs that could do it: its path limit is %s; "
			"set NCCL_P2P_LEVEL=SYS to allow P2P over %s paths.\n",
			p2p, ok, topo_nccl_path_str(run->nccl_level),
			run->side == TOPO_GUEST ? "the guest's" : "PHB/NODE/SYS");
	if (pairs && p2p < pairs)
		fprintf(f, "- %d of %d pairs use NCCL's %s transport: every such transfer is a DMA into host memory and a second DMA out.\n",
			pairs - p2p, pairs, run->nccl_level >= 0 && run->xport[0][1] == XP_NET ? "NET" : "SHM");
	{
		int red = 0, dt = 0, nsw = 0, k;
		char sw[160] = "";
		for (i = 0; i < host->ngpu; i++)
			for (j = i + 1; j < host->ngpu; j++) {
				int x = host->acs_via[i][j];
				red += x >= 0;
				dt += host->acs_dt[i][j];
				if (x < 0 || strstr(sw, s->nodes[x].id))
					continue;
				k = (int)strlen(sw);
				if (nsw++ < 4)
					snprintf(sw + k, sizeof(sw) - (size_t)k, "%s%s", k ? ", " : "", s->nodes[x].id);
			}
		if (red)
			fprintf(f, "- ACS P2P Request Redirect on %s%s sends the P2P traffic of %d GPU pair%s "
				"up to the root complex and back: both directions cross the switch's uplink, "
				"so such a pair moves one link's worth in total instead of one per direction. "
				"acs: false on the switch, or ACS Direct Translated P2P (acs_dt) with GPUs "
				"using ATS, keeps it inside the switch.\n",
				sw, nsw > 4 ? ", ..." : "", red, red == 1 ? "" : "s");
		if (dt)
			fprintf(f, "- ACS Direct Translated P2P lets %d GPU pair%s under an ACS switch go "
				"straight across with ATS-translated requests.\n", dt, dt == 1 ? "" : "s");
	}
	if (guest) {
		int phb = 1;
		for (i = 0; i < guest->ngpu; i++)
			for (j = 0; j < guest->ngpu; j++)
				if (i != j && guest->cls[i][j] != TC_PHB)
					phb = 0;
		for (i = 0; i < guest->ngpu && guest->ep[i].dev == i; i++)
			;
		if (i < guest->ngpu) {
			fputs("- Inside the VM nvidia-smi and CUDA number the GPUs by guest bus id, not in "
			      "passthrough order:", f);
			for (j = 0; j < guest->ngpu; j++)
				for (i = 0; i < guest->ngpu; i++)
					if (guest->ep[i].dev == j)
						fprintf(f, "%s guest GPU%d = host GPU%d (%s)", j ? "," : "", j, i,
							guest->ep[i].bdf);
			fputs(".\n", f);
		}
		if (phb && guest->ngpu > 1 && !s->vm.guest_numa)
			fputs("- Inside the VM every pair is PHB and NUMA is not exposed: NCCL cannot tell "
			      "same-socket from cross-socket pairs. An NCCL topology file with the host's NUMA "
			      "layout (plumb topo --format nccl-xml) restores that.\n", f);
	}
	{
		int sys = 0;
		for (i = 0; i < host->ngpu; i++)
			for (j = i + 1; j < host->ngpu; j++)
				sys += host->cls[i][j] == TC_SYS &&
				       topo_ep_host(host, i) == topo_ep_host(host, j);
		if (sys)
			fprintf(f, "- On the host %d pairs cross the inter-socket link (SYS); keeping tensor-parallel "
				"groups inside one NUMA node (e.g. TP4+PP2) avoids it for all-reduce.\n", sys);
	}
	if (without && with) {
		if (without->ok_gpus < without->ngpus)
			fprintf(f, "- BARs: without pci=realloc only %d of %d GPUs get BAR space (the kernel says "
				"\"can't assign; no space\"); with pci=realloc %d of %d fit.%s\n",
				without->ok_gpus, without->ngpus, with->ok_gpus, with->ngpus,
				s->vm.pci_realloc ? " This guest has pci=realloc." :
				" Add pci=realloc to the guest kernel command line.");
		else
			fprintf(f, "- BARs: all %d GPUs fit in the VM's MMIO windows.\n", without->ngpus);
	}
}

/* NCCL's affinity mask: comma-separated 32-bit hex words, most significant first. */
static void cpu_mask(const char *list, char *out, size_t n)
{
	uint32_t w[(SCN_MAX_CPU + 1) / 32] = { 0 };
	int top = 0, i;
	long a, b;
	size_t len = 0;

	/* Lists derived from core counts may run past the mask: cut there. */
	while (scn_cpulist_next(&list, &a, &b) > 0)
		for (; a <= b && a <= SCN_MAX_CPU; a++) {
			w[a / 32] |= 1u << (a % 32);
			if (a / 32 > top)
				top = (int)(a / 32);
		}
	out[0] = '\0';
	for (i = top; i >= 0 && len + 10 < n; i--)
		len += (size_t)snprintf(out + len, n - len, "%s%08x", i == top ? "" : ",", w[i]);
}

static const char *speed_str(int gen)
{
	return gen >= 6 ? "64.0 GT/s PCIe" : gen == 5 ? "32.0 GT/s PCIe" :
	       gen == 4 ? "16.0 GT/s PCIe" : gen == 3 ? "8.0 GT/s PCIe" :
	       gen == 2 ? "5.0 GT/s PCIe" : "2.5 GT/s PCIe";
}

struct xml_ctx {
	FILE *f;
	const struct topo_view *v;
	int gdr;
	int next_bus;           /* synthesised bus numbers for bridges without a bdf */
};

static void xml_indent(FILE *f, int depth)
{
	int i;
	for (i = 0; i < depth; i++)
		fputs("  ", f);
}

/* Print node k of the view's tree (a switch, GPU or NIC) and what is below it. */
static void xml_node(struct xml_ctx *c, int k, int depth)
{
	const struct topo_view *v = c->v;
	const struct scenario *s = v->scn;
	const struct scn_node *d = &v->nodes[k];
	FILE *f = c->f;
	int j;

	if (d->kind == SCN_ROOT_PORT) {
		for (j = 0; j < v->nnodes; j++)
			if (v->nodes[j].parent == k)
				xml_node(c, j, depth);
		return;
	}
	xml_indent(f, depth);
	if (d->kind == SCN_SWITCH) {
		char bus[16];
		if (d->bdf[0])
			snprintf(bus, sizeof(bus), "%s", d->bdf);
		else
			snprintf(bus, sizeof(bus), "0000:%02x:00.0", c->next_bus++ & 0xff);
		fputs("<pci busid=\"", f);
		out_xml(f, bus);
		fprintf(f, "\" class=\"0x060400\" link_speed=\"%s\" link_width=\"%d\">\n",
			speed_str(d->gen), d->width);
		for (j = 0; j < v->nnodes; j++)
			if (v->nodes[j].parent == k)
				xml_node(c, j, depth + 1);
		xml_indent(f, depth);
		fputs("</pci>\n", f);
		return;
	}
	for (j = 0; j < v->nep; j++)
		if (v->ep[j].node == k)
			break;
	if (j == v->nep)
		return;
	if (d->kind == SCN_GPU) {
		const char *arch = s->catalog->gpus[d->gpu_model].arch;
		int sm = strncmp(arch, "sm_", 3) == 0 ? atoi(arch + 3) : 0;
		char bus[16];
		if (v->ep[j].bdf[0])
			snprintf(bus, sizeof(bus), "%s", v->ep[j].bdf);
		else
			snprintf(bus, sizeof(bus), "0000:%02x:00.0", (j + 1) & 0xff);
		fputs("<pci busid=\"", f);
		out_xml(f, bus);
		fprintf(f, "\" class=\"0x030200\" vendor=\"0x10de\" link_speed=\"%s\" link_width=\"%d\">\n",
			speed_str(d->gen), d->width);
		xml_indent(f, depth + 1);
		fprintf(f, "<gpu dev=\"%d\" sm=\"%d\" rank=\"%d\" gdr=\"%d\"/>\n",
			v->ep[j].dev, sm, v->ep[j].dev, c->gdr);
	} else {
		char bus[16];
		if (d->bdf[0])
			snprintf(bus, sizeof(bus), "%s", d->bdf);
		else
			snprintf(bus, sizeof(bus), "0000:%02x:00.0", c->next_bus++ & 0xff);
		fputs("<pci busid=\"", f);
		out_xml(f, bus);
		fprintf(f, "\" class=\"0x020700\" link_speed=\"%s\" link_width=\"%d\">\n",
			speed_str(d->gen), d->width);
		xml_indent(f, depth + 1);
		fprintf(f, "<nic>\n");
		xml_indent(f, depth + 2);
		fputs("<net name=\"", f);
		out_xml(f, v->ep[j].label);
		fprintf(f, "\" dev=\"%d\" gdr=\"%d\"/>\n", j - v->ngpu, c->gdr);
		xml_indent(f, depth + 1);
		fprintf(f, "</nic>\n");
	}
	xml_indent(f, depth);
	fputs("</pci>\n", f);
}

void rep_nccl_xml(FILE *f, const struct topo_view *v, const struct topo_view *host)
{
	const struct scenario *s = v->scn;
	int nn = s->host.sockets * s->host.numa_per_socket, numa, i, j;
	char aff[160], mask[400];
	struct xml_ctx c;

	c.f = f;
	c.v = v;
	c.gdr = 0;
	c.next_bus = 0xa0;
	for (i = 0; i < v->ngpu; i++)
		for (j = 0; j < v->ngpu; j++)
			if (i != j && v->p2p[i][j] == P2P_OK)
				c.gdr = 1;
	fputs("<!-- NCCL topology for ", f);
	out_xml_comment(f, s->name);   /* the scenario's text: escaped */
	fprintf(f, " (%s view) with the host's NUMA placement; "
		   "bus ids of bridges without one in the scenario are made up. "
		   "Use with NCCL_TOPO_FILE=FILE. -->\n",
		v->side == TOPO_HOST ? "host" : "guest");
	if (v->side == TOPO_GUEST)
		fprintf(f, "<!-- Guest bus ids and GPU numbers (%s), guest CPU numbers (%s). -->\n",
			s->vm.chipset == SCN_Q35 && s->vm.pcie_passthrough ?
			"one root port per GPU" : "GPUs on the flat root bus",
			s->vm.vcpus > 0 ? (s->vm.guest_numa ? "the vCPUs split over the host's NUMA nodes" :
					   "every vCPU: the guest sees one NUMA node") :
			"unknown: set vcpus in the scenario; without it NCCL reads each node's cpumap "
			"from the guest's sysfs");
	if (s->nhosts > 1) {
		/* NCCL_TOPO_FILE describes the node it is read on */
		fprintf(f, "<!-- Host %s, the first of %d: NCCL reads one such file on each node. -->\n",
			s->hosts[0].name, s->nhosts);
		nn = s->hosts[0].nsockets * s->host.numa_per_socket;
	}
	fputs("<system version=\"1\">\n", f);
	for (numa = 0; numa < nn; numa++) {
		int has = 0;
		for (i = 0; i < v->nep; i++)
			has |= host->ep[i].numa == numa;
		if (!has)
			continue;
		if (v->side == TOPO_GUEST)
			topo_guest_cpus(s, numa, aff, sizeof(aff));
		else
			topo_cpu_affinity(s, numa, aff, sizeof(aff));
		if (strcmp(aff, "N/A") == 0)
			snprintf(mask, sizeof(mask), "%s", v->side == TOPO_GUEST ? "" : "ffffffff");
		else
			cpu_mask(aff, mask, sizeof(mask));
		fprintf(f, "  <cpu numaid=\"%d\"%s%s%s arch=\"x86_64\" vendor=\"%s\">\n",
			numa, mask[0] ? " affinity=\"" : "", mask, mask[0] ? "\"" : "",
			s->host.cpu_vendor == SCN_AMD ? "AuthenticAMD" :
			s->host.cpu_vendor == SCN_INTEL ? "GenuineIntel" : "");
		if (v->side == TOPO_HOST) {
			/* Root complexes of this NUMA node, and their subtrees. */
			for (i = 0; i < v->nnodes; i++)
				if (v->nodes[i].kind == SCN_ROOT_COMPLEX && v->nodes[i].numa == numa)
					for (j = 0; j < v->nnodes; j++)
						if (v->nodes[j].parent == i)
							xml_node(&c, j, 2);
		} else {
			/* The guest's own tree hides the host's: place each GPU
			 * under the NUMA node it really sits on. */
			int d;
			for (d = 0; d < v->ngpu; d++)       /* in guest bus order */
				for (i = 0; i < v->ngpu; i++)
					if (v->ep[i].dev == d && host->ep[i].numa == numa) {
						xml_indent(f, 2);
						fprintf(f, "<!-- guest GPU%d is host GPU%d%s%s -->\n", d, i,
							host->ep[i].bdf[0] ? " at " : "", host->ep[i].bdf);
						xml_node(&c, v->ep[i].node, 2);
					}
		}
		fputs("  </cpu>\n", f);
	}
	fputs("</system>\n", f);
}
