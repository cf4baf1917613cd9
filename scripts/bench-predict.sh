#!/bin/sh
# bench-predict.sh: wall time of the predictions, written to bench/predict.csv.
#   default      the bare `plumb` seed comparison (3 boxes x 3 layouts x 7
#                concurrencies), best of 3 runs; the bar is 1 s on one core
#   output=N     plumb predict on the seed VM, tp8, concurrency 64, with N
#                output tokens per request: more decode steps per request
#   requests=C   the same with concurrency C (and so about 2C requests)
#   batch=B      one decode step of B sequences (plumb predict --batch B)
# Run from the repository root after `make`. Times are wall-clock seconds on
# this machine; they vary with its load.
set -eu
PLUMB=${PLUMB:-./plumb}
scn=scenarios/proxmox-vm-8x-rtxpro6000.yaml
out=bench/predict.csv
mkdir -p bench
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# best of 3 wall-clock runs of the command
best() {
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" > /dev/null
		e=$(date +%s.%N)
		t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }')
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
	done
	echo "$b"
}

echo "case,value,seconds" > "$tmp"
echo "default,seed comparison,$(best "$PLUMB")" >> "$tmp"
for n in 256 1024 4096; do
	echo "output,$n,$(best "$PLUMB" predict "$scn" --layout tp8 --concurrency 64 --output "$n")" >> "$tmp"
done
for c in 1 8 64 128; do
	echo "requests,$c,$(best "$PLUMB" predict "$scn" --layout tp8 --concurrency "$c")" >> "$tmp"
done
for b in 1 64; do
	echo "batch,$b,$(best "$PLUMB" predict "$scn" --layout tp8 --batch "$b")" >> "$tmp"
done
mv "$tmp" "$out"
cat "$out"
