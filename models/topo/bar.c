/*
 * bar.c - the VM BAR/MMIO placement model (see bar.h for the rules).
 */
#include "bar.h"
#include "topo.h"

#include <stdio.h>
#include <string.h>

#define GIB (1ull << 30)

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* Guest physical address where the 64-bit PCI region may start. */
static uint64_t region64_start(const struct scn_vm *vm)
{
	uint64_t ram = vm->guest_ram, low, high;
	/* q35 (pc_q35_init): lowmem 2 GiB when RAM >= 0xb0000000. */
	low = ram >= 0xb0000000ull ? 2 * GIB : ram;
	high = ram - low;
	return align_up(4 * GIB + high, GIB);
}

/* The kernel's two lines for a BAR it could not place. */
static void log_fail(struct bar_result *r, const char *bdf, int region, uint64_t size)
{
	if (r->nmsg + 2 > BAR_MAX_MSG)
		return;
	snprintf(r->msg[r->nmsg++], sizeof(r->msg[0]),
		 "pci %s: BAR %d [mem size 0x%llx 64bit pref]: can't assign; no space",
		 bdf, region, (unsigned long long)size);
	snprintf(r->msg[r->nmsg++], sizeof(r->msg[0]),
		 "pci %s: BAR %d [mem size 0x%llx 64bit pref]: failed to assign",
		 bdf, region, (unsigned long long)size);
}

/* First fit of `size` aligned to `size` in the 32-bit window; 0 on success. */
static int place32(uint64_t *next32, uint64_t end32, uint64_t size, uint64_t *addr)
{
	uint64_t a = align_up(*next32, size);
	if (a + size > end32)
		return -1;
	*addr = a;
	*next32 = a + size;
	return 0;
}

int bar_fit(const struct scenario *s, int realloc, struct bar_result *r,
	    struct plumb_err *err)
{
	const struct scn_vm *vm = &s->vm;
	uint64_t start = region64_start(vm), next64, limit, next32, end32;
	uint64_t win_base[SCN_MAX_VM_GPUS], win_size[SCN_MAX_VM_GPUS];
	int g, k, any_fail = 0;

	memset(r, 0, sizeof(*r));
	if (vm->mode != SCN_VM)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "the BAR check models a VM's firmware; '%s' is bare metal",
				     s->name);
	if (s->ngpus > SCN_MAX_VM_GPUS)     /* the loader refuses such a VM */
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "a virtual machine takes at most %d GPUs", SCN_MAX_VM_GPUS);
	r->realloc = realloc;
	r->ngpus = s->ngpus;
	r->start64 = start;
	/* The 32-bit window: [4 GiB - mmio32_window, 4 GiB). */
	end32 = 4 * GIB;
	next32 = end32 - vm->mmio32_window;

	if (realloc) {
		limit = start + vm->mmio64_window;
	} else if (vm->firmware == SCN_SEABIOS) {
		limit = vm->guest_phys_bits >= 64 ? UINT64_MAX : 1ull << vm->guest_phys_bits;
	} else {
		uint64_t top = 1ull << vm->guest_phys_bits;
		limit = start + vm->mmio64_window < top ? start + vm->mmio64_window : top;
	}
	r->limit64 = limit;
	r->avail64 = limit > start ? limit - start : 0;
	next64 = start;

	for (g = 0; g < s->ngpus; g++) {
		const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[g]].gpu_model];
		uint64_t sum = 0, big = 0;
		for (k = 0; k < m->nbars; k++)
			if (m->bars[k].bits == 64 && m->bars[k].prefetchable) {
				sum += m->bars[k].size;
				if (m->bars[k].size > big)
					big = m->bars[k].size;
			}
		win_base[g] = 0;
		win_size[g] = 0;
		if (!big)
			continue;
		if (realloc) {
			/* Only the largest BAR needs the 64-bit window. */
			uint64_t a = align_up(next64, big);
			r->need64 += big;
			if (a + big <= limit) {
				win_base[g] = a;
				win_size[g] = big;
				next64 = a + big;
			}
		} else {
			uint64_t size = align_up(sum, big), a = align_up(next64, big);
			r->need64 += size;
			if (a + size <= limit) {
				win_base[g] = a;
				win_size[g] = size;
				next64 = a + size;
			}
		}
	}

	for (g = 0; g < s->ngpus; g++) {
		const struct scn_gpu_model *m = &s->catalog->gpus[s->nodes[s->gpu_node[g]].gpu_model];
		char bdf[16];
		uint64_t cur = win_base[g];
		int ok = 1;
		int order[SCN_MAX_BARS], a, b;
		topo_guest_bdf(s, g, bdf);
		/* Largest BAR first, as the kernel sorts by alignment. */
		for (a = 0; a < m->nbars; a++)
			order[a] = a;
		for (a = 1; a < m->nbars; a++)
			for (b = a; b > 0 && m->bars[order[b]].size > m->bars[order[b - 1]].size; b--) {
				int t = order[b];
				order[b] = order[b - 1];
				order[b - 1] = t;
			}
		for (a = 0; a < m->nbars; a++) {
			const struct scn_bar *bar = &m->bars[order[a]];
			struct bar_place *p = &r->place[r->nplace++];
			uint64_t addr;
			p->gpu = g;
			p->region = bar->region;
			p->size = bar->size;
			if (win_size[g] && (!realloc || a == 0)) {
				addr = align_up(cur, bar->size);
				if (bar->bits == 64 && bar->prefetchable &&
				    addr + bar->size <= win_base[g] + win_size[g]) {
					p->addr = addr;
					p->assigned = 1;
					p->window64 = 1;
					cur = addr + bar->size;
					continue;
				}
			}
			if (place32(&next32, end32, bar->size, &addr) == 0) {
				p->addr = addr;
				p->assigned = 1;
				continue;
			}
			ok = 0;
			log_fail(r, bdf, bar->region, bar->size);
		}
		if (ok)
			r->ok_gpus++;
		else
			any_fail = 1;
	}
	if (any_fail && !realloc && r->nmsg < BAR_MAX_MSG)
		snprintf(r->msg[r->nmsg++], sizeof(r->msg[0]),
			 "pci_bus 0000:00: Some PCI device resources are unassigned, try booting with pci=realloc");
	for (g = 0; g < s->ngpus && r->nmsg < BAR_MAX_MSG; g++) {
		int bad = 0;
		char bdf[16];
		topo_guest_bdf(s, g, bdf);
		for (k = 0; k < r->nplace; k++)
			if (r->place[k].gpu == g && !r->place[k].assigned) {
				if (r->nmsg + 2 >= BAR_MAX_MSG)
					break;
				snprintf(r->msg[r->nmsg++], sizeof(r->msg[0]),
					 "NVRM: BAR%d is 0M @ 0x0 (PCI:%s)",
					 r->place[k].region, bdf);
				bad = 1;
			}
		if (bad && r->nmsg < BAR_MAX_MSG)
			snprintf(r->msg[r->nmsg++], sizeof(r->msg[0]),
				 "nvidia: probe of %s failed with error -1", bdf);
	}
	memcpy(r->win_base, win_base, (size_t)s->ngpus * sizeof(win_base[0]));
	memcpy(r->win_size, win_size, (size_t)s->ngpus * sizeof(win_size[0]));
	return 0;
}
