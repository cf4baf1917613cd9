#!/bin/sh
# bench-cluster.sh: CPU time of plumb on clusters of many hosts, written to
# bench/cluster.csv. The clusters are those of `sh tests/gen_scale.sh
# cluster HOSTS` with 8 and 128 boxes: 8 H100 SXM on NVSwitch a box, a
# ConnectX-7 per GPU, over NDR InfiniBand (64 and 1,024 GPUs; synthetic, for
# scale, not a measured cluster).
#   coll        plumb coll, all-reduce of 1 MiB over every GPU (one size)
#   tp64, ep64  plumb predict --layout L --draws 0 on 64 GPUs of each cluster;
#               the bar: the 1,024-GPU cluster within 1.5x of the 64-GPU one
#   topo-json   plumb topo --format json of the whole cluster
# Columns: case, value (the cluster's GPUs), cpu_seconds (user + system of
# one run). CPU seconds vary less with the machine's load than wall time.
# Run from the repository root after `make`.
set -eu
PLUMB=${PLUMB:-./plumb}
out=bench/cluster.csv
mkdir -p bench
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.t0" "$tmp.t1" "$tmp".*.yaml' EXIT

# CPU seconds of the shell's children in `times` output file $1 (line 2)
cpu() {
	sed -n 2p "$1" | awk '{ t = 0
		for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
		printf "%.3f", t }'
}

# row CASE VALUE ARGS...: one run's CPU seconds
row() {
	c=$1
	v=$2
	shift 2
	times > "$tmp.t0"
	"$PLUMB" "$@" > /dev/null
	times > "$tmp.t1"
	echo "$c,$v,$(awk -v a="$(cpu "$tmp.t0")" -v z="$(cpu "$tmp.t1")" 'BEGIN { printf "%.3f", z - a }')" >> "$tmp"
}

for n in 8 128; do
	sh tests/gen_scale.sh cluster "$n" > "$tmp.$n.yaml"
done
echo "case,value,cpu_seconds" > "$tmp"
for n in 8 128; do
	row coll $((n * 8)) coll "$tmp.$n.yaml" -b 1M -e 1M
done
for l in tp64 ep64; do
	for n in 8 128; do
		row "$l" $((n * 8)) predict "$tmp.$n.yaml" --layout "$l" --draws 0
	done
done
row topo-json 1024 topo "$tmp.128.yaml" --format json
mv "$tmp" "$out"
cat "$out"
