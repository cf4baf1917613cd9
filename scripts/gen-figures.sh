#!/bin/sh
# scripts/gen-figures.sh - draw every picture in docs/figures/ (make docs).
# Each line below is the command docs/tutorial-pcie-iommu.md shows under
# its picture; run from the repository root with ./plumb built. The output
# is deterministic, so an unchanged model redraws identical files.
set -e
PLUMB=${PLUMB:-./plumb}
OUT=docs/figures
S=scenarios
mkdir -p "$OUT"
LC_ALL=C
export LC_ALL
unset NCCL_P2P_LEVEL NCCL_P2P_DISABLE NCCL_SHM_DISABLE

fig() {
	echo "  FIG   $1"
	name=$1
	shift
	"$PLUMB" render "$@" -o "$OUT/$name"
}

fig baremetal-topology.png $S/baremetal-8x-rtxpro6000.yaml --what topology
fig switch-topology.png $S/switch-8x-rtxpro6000.yaml --what topology
fig switch-matrix.png $S/switch-8x-rtxpro6000.yaml --what matrix
fig switch-acs-on.png $S/switch-8x-rtxpro6000.yaml --what topology --acs on --path 0:1
fig vm-topology.png $S/proxmox-vm-q35-8x-rtxpro6000.yaml --what topology
fig vm-bars.png $S/proxmox-vm-q35-8x-rtxpro6000.yaml --what bars
fig baremetal-path-1-6.png $S/baremetal-8x-rtxpro6000.yaml --what topology --path 1:6
fig vm-path-0-5.png $S/proxmox-vm-8x-rtxpro6000.yaml --what topology --path 0:5
fig workstation-path-0-1.png $S/workstation-2x-rtx5090.yaml --what topology --path 0:1
fig hgx-path-0-5.png $S/hgx-8x-h200.yaml --what topology --path 0:5
fig vm-matrix.png $S/proxmox-vm-8x-rtxpro6000.yaml --what matrix
fig baremetal-matrix.png $S/baremetal-8x-rtxpro6000.yaml --what matrix
fig vm-timeline-tp8.png $S/proxmox-vm-8x-rtxpro6000.yaml --what timeline --layout tp8 --batch 8
fig vm-timeline-tp4pp2.png $S/proxmox-vm-8x-rtxpro6000.yaml --what timeline --layout tp4pp2 --batch 8
fig throughput.png $S/proxmox-vm-8x-rtxpro6000.yaml --scenario $S/baremetal-8x-rtxpro6000.yaml \
	--scenario $S/switch-8x-rtxpro6000.yaml --layout tp8,tp4pp2,ep8 --what throughput
fig fit.png --what fit --cases validation/cases.yaml
