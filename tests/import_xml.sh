#!/bin/sh
# tests/import_xml.sh - `plumb import hwloc` and `plumb import nccl-topo` on
# public boxes' files (tests/data/import/xml/SOURCES.md), checked against
# the matrix each box shows:
#   hwloc-nvidia-dgx2.xml   a DGX-2: every GPU pair NV6 (its `nvidia-smi
#                           topo -m`, tests/data/import/topom-dgx2-16gpu-nv6.txt)
#   nccl-aws-p4d-24xl-topo.xml  p4d.24xlarge: two GPUs and a NIC per switch,
#                           two switches per CPU: PIX within a switch, PHB
#                           across switches of one CPU, SYS across CPUs
# Ends with "N passed, M failed"; exit 1 on any failure.
LC_ALL=C
export LC_ALL
PLUMB=${PLUMB:-./plumb}
D=tests/data/import/xml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-xml.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# DGX-2 (hwloc): 16 GPUs, NV6 between every pair; V100 is not in the
# catalog, so the model is given (the matrix does not depend on it)
if $PLUMB import hwloc $D/hwloc-nvidia-dgx2.xml --gpu-model a100-sxm -o "$tmp/dgx2.yaml" &&
   $PLUMB topo "$tmp/dgx2.yaml" --format matrix >"$tmp/dgx2.m"; then
	n=$(awk -F'\t' '/^GPU[0-9]/ { for (i = 2; i <= 17; i++) if ($i != " X " && $i != "NV6") print $1, i }' "$tmp/dgx2.m" | wc -l)
	g=$(grep -c '^GPU[0-9]' "$tmp/dgx2.m")
	[ "$n" -eq 0 ] && [ "$g" -eq 16 ] && ok || bad "dgx2: $g GPU rows, $n cells not NV6"
	# sockets: GPU0-7 on NUMA 0, GPU8-15 on NUMA 1 (hwloc's two packages)
	s=$(awk -F'\t' '/^GPU[0-9]/ { print $19 }' "$tmp/dgx2.m" | tr -d ' \n')
	[ "$s" = 0000000011111111 ] && ok || bad "dgx2: NUMA affinity '$s'"
else
	bad "dgx2: import or topo failed"
fi

# p4d.24xlarge (NCCL topology): expected type from the file's layout
if $PLUMB import nccl-topo $D/nccl-aws-p4d-24xl-topo.xml --gpu-model a100-sxm -o "$tmp/p4d.yaml" &&
   $PLUMB topo "$tmp/p4d.yaml" --format matrix >"$tmp/p4d.m"; then
	n=$(awk -F'\t' '
		function sw(i) { return i < 8 ? int(i / 2) : i - 8 }   # GPUk: k/2, NICk: k
		function want(a, b) { return sw(a) == sw(b) ? "PIX" : int(sw(a) / 2) == int(sw(b) / 2) ? "PHB" : "SYS" }
		/^(GPU|NIC)[0-9]/ {
			r = ($1 ~ /^GPU/) ? substr($1, 4) + 0 : substr($1, 4) + 8
			for (c = 0; c < 12; c++) {
				if (c == r) continue
				if ($(c + 2) != want(r, c)) { print $1, c, $(c + 2), want(r, c) }
			}
		}' "$tmp/p4d.m" | tee "$tmp/p4d.diff" | wc -l)
	[ "$n" -eq 0 ] && ok || { bad "p4d: $n cells differ"; cat "$tmp/p4d.diff"; }
else
	bad "p4d: import or topo failed"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
