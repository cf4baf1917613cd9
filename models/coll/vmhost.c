/*
 * vmhost.c - a VM guest's host path: what one NCCL ring step through host
 * memory (the SHM transport, which a guest without P2P uses for every
 * pair) costs the guest beyond what it costs on bare metal, from what the
 * VM is (docs/model-vm.md "A VM's host path"):
 *
 *   exits   vm_step_exits x vm_exit_us: the exits and injected interrupts
 *           a step's progress costs the guest's vCPUs (doorbells, MSI-X
 *           injection, the proxy thread's polling descheduled);
 *   IOTLB   vm_step_pages x vm_iotlb_miss_us, times vm_viommu_factor with a
 *           guest vIOMMU: the host IOMMU translates every DMA of an
 *           assigned device (VFIO maps guest memory through it whether or
 *           not the host runs iommu=pt, which concerns the host's own DMA);
 *           guest RAM on hugepages is mapped in 2 MiB or 1 GiB pages, each
 *           miss then covering 512 or 262,144 of the 4 KiB pages;
 *   NUMA    without NUMA information in the guest, the staging pages of
 *           the ranks on the other sockets' GPUs sit on the wrong socket:
 *           a share (sockets - 1) / sockets of the pages cross the
 *           inter-socket link, vm_numa_hop_us each;
 *
 * the sum times vm_path_scale, the prior of VMs nobody measured (1 unless
 * drawn). A VM that has its own measurement of the whole path gives
 * vm_shm_step_us (set, or above its default 0), which replaces the sum.
 * Bare metal pays nothing.
 */
#include <stdio.h>

#include "coll.h"
#include "scn.h"

/* The host-path constants a VM's own measurement sets. */
static const int vm_own[] = {
	K_VM_SHM_STEP_US, K_VM_EXIT_US, K_VM_STEP_EXITS, K_VM_IOTLB_MISS_US, K_VM_STEP_PAGES,
	K_VM_VIOMMU_FACTOR, K_VM_NUMA_HOP_US, K_VM_PATH_SCALE
};

int coll_vm_measured(const struct plumb_consts *k)
{
	size_t i;
	if (k->v[K_VM_SHM_STEP_US] > 0)
		return 1;
	for (i = 0; i < sizeof(vm_own) / sizeof(vm_own[0]); i++)
		if (k->set[vm_own[i]])
			return 1;
	return 0;
}

double coll_vm_step_us(const struct scenario *s)
{
	const struct scn_vm *V = &s->vm;
	const double *k = s->k.v;
	double pages, miss, exits, numa = 0;
	int sockets = s->host.sockets > 1 ? s->host.sockets : 1;

	if (V->mode != SCN_VM)
		return 0;
	if (s->k.set[K_VM_SHM_STEP_US] || k[K_VM_SHM_STEP_US] > 0)
		return k[K_VM_SHM_STEP_US];
	exits = k[K_VM_STEP_EXITS] * k[K_VM_EXIT_US];
	/* Expected misses: the 4 KiB pages a step touches over those one
	 * IOMMU entry maps. A guest IOMMU maps its own DMA in 4 KiB pages,
	 * so hugepages do not help its stage. */
	pages = k[K_VM_STEP_PAGES];
	miss = 0;
	if (V->host_iommu != SCN_IOMMU_OFF) {
		double per = V->viommu ? 1.0 : V->hugepages == 2 ? 262144.0 :
			     V->hugepages == 1 ? 512.0 : 1.0;
		miss = pages / per * k[K_VM_IOTLB_MISS_US];
		if (V->viommu)
			miss *= k[K_VM_VIOMMU_FACTOR];
	}
	if (!V->guest_numa && sockets > 1)
		numa = (sockets - 1.0) / sockets * pages * k[K_VM_NUMA_HOP_US];
	return (exits + miss + numa) * k[K_VM_PATH_SCALE];
}

int coll_vm_unmeasured(const struct scenario *s)
{
	return s->vm.mode == SCN_VM && s->vm.p2p_exposure == SCN_P2P_NONE &&
	       !coll_vm_measured(&s->k);
}

int coll_vm_note(const struct scenario *s, char *buf, size_t n)
{
	if (!coll_vm_unmeasured(s))
		return 0;
	snprintf(buf, n,
		 "warning: %s's host path is unmeasured: its GPUs have no P2P in the guest, so "
		 "every NCCL step goes through guest memory at %.1f us more than on bare metal, "
		 "a physical estimate (VM exits, IOMMU misses, NUMA placement) whose ranges draw "
		 "vm_path_scale from the VMs measured so far (x%.2f-%.0f). To measure it, run "
		 "nccl-tests in the guest, `all_reduce_perf -b 8 -e 128M -f 2 -g %d`, and fit the "
		 "guest's own constant: `plumb calibrate SCENARIO --data OUTPUT --free vm_step_exits "
		 "-o vm.yaml`, then predict with --calib vm.yaml (or give vm_step_exits under the "
		 "scenario's constants:); p2pBandwidthLatencyTest run in the guest fits its copies "
		 "the same way (--free vm_dma_us).",
		 s->name, coll_vm_step_us(s), plumb_const_defs[K_VM_PATH_SCALE].plo,
		 plumb_const_defs[K_VM_PATH_SCALE].phi, s->ngpus);
	return 1;
}
