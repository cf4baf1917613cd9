/*
 * bar.h - will every passed-through GPU's BARs fit in a VM's MMIO windows?
 *
 * Model (docs/model-topo.md "BARs and the MMIO window"):
 *  - Guest RAM: q35 keeps min(RAM, 2 GiB) below 4 GiB when RAM >= 2.75 GiB,
 *    the rest from 4 GiB up; the 64-bit PCI region starts above it, 1 GiB
 *    aligned.
 *  - Firmware pass: each GPU's root port gets a 64-bit prefetchable bridge
 *    window of ALIGN(sum of its 64-bit BARs, largest BAR), aligned to the
 *    largest BAR (SeaBIOS pciinit.c sizing), placed in bus order below the
 *    firmware's limit: 2^guest_phys_bits for SeaBIOS, the 64-bit window for
 *    OVMF. A window that does not fit is left unassigned.
 *  - Kernel without pci=realloc keeps the firmware's windows; BARs of a GPU
 *    whose window is missing go to the 32-bit window if they fit there,
 *    otherwise "can't assign; no space".
 *  - Kernel with pci=realloc releases and re-sizes every window: each GPU's
 *    largest BAR is packed at its alignment in the 64-bit window
 *    (mmio64_window) and the small BARs go to the 32-bit window.
 */
#ifndef PLUMB_BAR_H
#define PLUMB_BAR_H

#include <stdint.h>

#include "scn.h"

#define BAR_MAX_MSG 64

struct bar_place {
	int gpu;
	int region;
	uint64_t size;
	uint64_t addr;          /* 0 when unassigned */
	int assigned;
	int window64;           /* 1: placed in the 64-bit window, 0: 32-bit */
};

struct bar_result {
	int realloc;            /* the pass modelled: 1 with pci=realloc */
	int ngpus, ok_gpus;     /* GPUs with every BAR assigned */
	int nplace;
	struct bar_place place[SCN_MAX_VM_GPUS * SCN_MAX_BARS];
	uint64_t need64, avail64;   /* bytes asked of / offered by the 64-bit window */
	uint64_t start64, limit64;  /* 64-bit region bounds used */
	uint64_t win_base[SCN_MAX_VM_GPUS], win_size[SCN_MAX_VM_GPUS];  /* each GPU's 64-bit window
				       (firmware: its root port's bridge window; realloc: its
				       largest BAR), size 0 when it found no room */
	int nmsg;
	char msg[BAR_MAX_MSG][160]; /* kernel log lines, kernel wording */
};

/*
 * Model the guest's BAR assignment of VM scenario s, with (realloc=1) or
 * without (0) pci=realloc. Fills *r. Returns 0, or EUSAGE for bare metal
 * (EINPUT past SCN_MAX_VM_GPUS GPUs, which the loader refuses for a VM).
 */
int bar_fit(const struct scenario *s, int realloc, struct bar_result *r,
	    struct plumb_err *err);

#endif
