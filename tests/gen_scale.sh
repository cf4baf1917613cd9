#!/bin/sh
# tests/gen_scale.sh - scenarios at the scale limits, written to stdout
# (synthetic, for scale: shapes of real machines, not captures of them).
#
#   sh tests/gen_scale.sh cluster HOSTS   HOSTS boxes of 8 H100 SXM on NVSwitch,
#                                         a 400 Gb/s ConnectX-7 per GPU on the
#                                         GPU's PCIe switch, over NDR InfiniBand:
#                                         the box of scenarios/2x-hgx-8x-h100-ib.yaml
#                                         (cluster 128: 1,024 GPUs, 5,120 entries)
#   sh tests/gen_scale.sh nvswitch GPUS   one box of GPUS B200 in one NVSwitch
#                                         domain (72: an NVL72 rack's GPUs as one
#                                         box), 8 a PCIe switch, a root complex
#                                         per switch, two sockets
#   sh tests/gen_scale.sh flat GPUS       one box of GPUS RTX PRO 6000, 8 a PCIe
#                                         switch, no NVLink (1025: one GPU past
#                                         the limit)
#   sh tests/gen_scale.sh chain DEPTH     two boxes of 4 RTX PRO 6000, on each
#                                         socket two GPUs and a NIC under DEPTH
#                                         PCIe switches stacked on one root port,
#                                         over RoCE (32: the depth limit, 33:
#                                         one switch past it); the longest paths
# Exit status 2 on a usage error.
set -eu
usage() {
	echo "usage: sh tests/gen_scale.sh cluster HOSTS | nvswitch GPUS | flat GPUS | chain DEPTH" >&2
	exit 2
}
[ $# -eq 2 ] || usage
kind=$1
n=$2
case $n in '' | *[!0-9]*) usage ;; esac
[ "$n" -ge 1 ] || usage

# one box of `per` GPUs of model m, `per` GPUs a switch, a root complex per
# switch on socket (switch / half); $indent before each entry
box() {
	m=$1 per=$2 total=$3 half=$4 indent=$5
	g=0
	r=0
	while [ "$g" -lt "$total" ]; do
		printf '%s- {id: rc%d, kind: root_complex, socket: %d}\n' "$indent" "$r" $((r / half))
		printf '%s- {id: rp%d, kind: root_port, parent: rc%d, gen: 5, width: 16}\n' "$indent" "$r" "$r"
		printf '%s- {id: sw%d, kind: switch, parent: rp%d, gen: 5, width: 16, acs: false}\n' \
			"$indent" "$r" "$r"
		k=0
		while [ "$k" -lt "$per" ] && [ "$g" -lt "$total" ]; do
			printf '%s- {id: gpu%d, kind: gpu, parent: sw%d, model: %s}\n' "$indent" "$g" "$r" "$m"
			g=$((g + 1))
			k=$((k + 1))
		done
		r=$((r + 1))
	done
}

case $kind in
cluster)
	cat <<EOF
plumb_scenario: 1
name: cluster-${n}x-hgx-8x-h100-ib
description: >-
  $n boxes of 8 H100 SXM (NVSwitch inside each), one 400 Gb/s ConnectX-7 per
  GPU on the GPU's PCIe switch, over NDR InfiniBand (synthetic, for scale).
seed: 1
hosts:
  - name: node
    count: $n
    host:
      cpu_vendor: intel
      cpu_model: Intel Xeon Platinum 8480+
      cores_per_socket: 56
      threads_per_core: 2
      sockets: 2
      inter_socket: {kind: upi}
    pcie:
EOF
	g=0
	while [ "$g" -lt 8 ]; do
		printf '      - {id: rc%d, kind: root_complex, socket: %d}\n' "$g" $((g / 4))
		printf '      - {id: rp%d, kind: root_port, parent: rc%d, gen: 5, width: 16}\n' "$g" "$g"
		printf '      - {id: sw%d, kind: switch, parent: rp%d, model: PCIe Gen5 switch, gen: 5, width: 16, acs: false}\n' "$g" "$g"
		printf '      - {id: gpu%d, kind: gpu, parent: sw%d, model: h100-sxm}\n' "$g" "$g"
		printf '      - {id: nic%d, kind: nic, parent: sw%d, model: ConnectX-7, gen: 5, width: 16}\n' "$g" "$g"
		g=$((g + 1))
	done
	cat <<EOF
    nvlink:
      nvswitch: true
network:
  kind: infiniband
  port_gbps: 400
  switch: {model: NDR InfiniBand fabric}
virtualization:
  mode: bare_metal
  host_iommu: pt
EOF
	;;
nvswitch)
	printf 'plumb_scenario: 1\nname: nvswitch-%dx-b200\nseed: 1\n' "$n"
	printf 'description: %d B200 in one NVLink domain (synthetic, for scale)\n' "$n"
	printf 'host: {cpu_vendor: arm, sockets: 2, cores_per_socket: 72, threads_per_core: 1}\n'
	printf 'pcie:\n'
	sw=$(((n + 7) / 8))
	box b200 8 "$n" $(((sw + 1) / 2)) '  '
	printf 'nvlink: {nvswitch: true}\n'
	;;
flat)
	printf 'plumb_scenario: 1\nname: flat-%dx-rtxpro6000\nseed: 1\n' "$n"
	printf 'description: %d RTX PRO 6000 under PCIe switches (synthetic, for scale)\n' "$n"
	printf 'host: {cpu_vendor: amd, sockets: 2, cores_per_socket: 64, threads_per_core: 2}\n'
	printf 'pcie:\n'
	sw=$(((n + 7) / 8))
	box rtx-pro-6000 8 "$n" $(((sw + 1) / 2)) '  '
	;;
chain)
	printf 'plumb_scenario: 1\nname: chain-%d-switches\nseed: 1\n' "$n"
	printf 'description: two boxes, GPUs and NICs under %d stacked PCIe switches (synthetic, for limits)\n' "$n"
	printf 'hosts:\n  - name: node\n    count: 2\n    host: {cpu_vendor: amd, sockets: 2, cores_per_socket: 64, threads_per_core: 2}\n    pcie:\n'
	for r in 0 1; do
		printf '      - {id: rc%d, kind: root_complex, socket: %d}\n' "$r" "$r"
		printf '      - {id: rp%d, kind: root_port, parent: rc%d, gen: 5, width: 16}\n' "$r" "$r"
		p=rp$r
		k=0
		while [ "$k" -lt "$n" ]; do
			printf '      - {id: s%d-%d, kind: switch, parent: %s, gen: 5, width: 16, acs: false}\n' "$r" "$k" "$p"
			p=s$r-$k
			k=$((k + 1))
		done
		printf '      - {id: gpu%d, kind: gpu, parent: %s, model: rtx-pro-6000}\n' $((2 * r)) "$p"
		printf '      - {id: gpu%d, kind: gpu, parent: %s, model: rtx-pro-6000}\n' $((2 * r + 1)) "$p"
		printf '      - {id: nic%d, kind: nic, parent: %s, model: ConnectX-7, gen: 5, width: 16}\n' "$r" "$p"
	done
	printf 'network: {kind: roce, port_gbps: 400}\n'
	printf 'virtualization: {mode: bare_metal, host_iommu: pt}\n'
	;;
*)
	usage
	;;
esac
