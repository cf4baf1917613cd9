/*
 * report.h - printing topology views the way the real tools print them
 * (nvidia-smi topo -m / -p2p r), plus IOMMU groups, NCCL transports, the BAR
 * check, plain-language findings, JSON and an NCCL topology XML file.
 * Every printer writes to a FILE * it does not own and is deterministic.
 */
#ifndef PLUMB_REPORT_H
#define PLUMB_REPORT_H

#include <stdio.h>

#include "bar.h"
#include "topo.h"

struct plumb_err;

/* `nvidia-smi topo -m`: matrix, CPU/NUMA affinity columns, legend. */
void rep_topo_matrix(FILE *f, const struct topo_view *v, int legend);
/* `nvidia-smi topo -p2p r`: status matrix and legend. */
void rep_p2p_matrix(FILE *f, const struct topo_view *v, int legend);
/* One line per non-OK pair: "GPU0-GPU1: NS, <reason>". */
void rep_p2p_reasons(FILE *f, const struct topo_view *v);
/* IOMMU groups as configured (host tree), compared with ACS on and off everywhere. */
void rep_iommu(FILE *f, const struct topo_view *as_is, const struct topo_view *acs_on,
	       const struct topo_view *acs_off);
/* NCCL transport matrix and the level it used. */
void rep_transport(FILE *f, const struct topo_view *v);
/* BAR placement without and with pci=realloc. */
void rep_bars(FILE *f, const struct scenario *s, const struct bar_result *without,
	      const struct bar_result *with);
/* Plain-language findings. host is required; guest may be NULL. */
void rep_findings(FILE *f, const struct topo_view *host, const struct topo_view *guest,
		  const struct bar_result *without, const struct bar_result *with);

/*
 * JSON document with keys: scenario, view, gpus, topo_matrix, p2p_matrix,
 * p2p_reasons, iommu_groups, nccl_transport, bar_check (docs/cli-fabric.md),
 * written through io/jout.h. view is the side NCCL runs on; host is used
 * for IOMMU groups. Returns 0, or -PLUMB_ERUNTIME with err filled when out
 * of memory (part of the document may be on f: the caller aborts it).
 */
int rep_json(FILE *f, const struct topo_view *v, const struct topo_view *host,
	     const struct bar_result *without, const struct bar_result *with,
	     struct plumb_err *err);

/*
 * NCCL topology XML (for NCCL_TOPO_FILE) of view v with the host's true NUMA
 * placement: one <cpu> per NUMA node, GPUs under it with their bus ids as v
 * sees them; gdr="0" where GPUs have no P2P.
 */
void rep_nccl_xml(FILE *f, const struct topo_view *v, const struct topo_view *host);

#endif
