#!/bin/sh
# bench-predict.sh: wall time of the predictions, written to bench/predict.csv.
#   default      the bare `plumb` seed comparison (3 boxes x 3 layouts x 7
#                concurrencies), best of 3 runs; the bar is 1 s on one core
#   output=N     plumb predict on the seed VM, tp8, concurrency 64, with N
#                output tokens per request: more decode steps per request
#   requests=C   the same with concurrency C (and so about 2C requests)
#   batch=B      one decode step of B sequences (plumb predict --batch B)
#   layout=L     plumb predict on the seed VM with layout L, concurrencies 1-64
#   poisson=N    N requests arriving as a Poisson process (--rate 5, at most
#                256 in flight) on the bare-metal seed box
# Every case runs twice: with collective replay (the default) and with
# PLUMB_NO_REPLAY=1 (every collective simulated as flows; docs/engine.md
# "Collective replay"); the outputs must be the same bytes, the script stops
# if they are not. Columns: seconds (replay), seconds_no_replay, speedup.
# Run from the repository root after `make`. Times are wall-clock seconds on
# this machine; they vary with its load.
set -eu
PLUMB=${PLUMB:-./plumb}
scn=scenarios/proxmox-vm-8x-rtxpro6000.yaml
out=bench/predict.csv
mkdir -p bench
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.r" "$tmp.s"' EXIT

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

# row CASE VALUE ARGS...: both timings, after checking the outputs agree
row() {
	c=$1
	v=$2
	shift 2
	"$PLUMB" "$@" > "$tmp.r"
	PLUMB_NO_REPLAY=1 "$PLUMB" "$@" > "$tmp.s"
	if ! cmp -s "$tmp.r" "$tmp.s"; then
		echo "bench-predict: $c $v: replay and simulation differ" >&2
		exit 1
	fi
	r=$(best "$PLUMB" "$@")
	s=$(export PLUMB_NO_REPLAY=1; best "$PLUMB" "$@")
	echo "$c,$v,$r,$s,$(awk -v r="$r" -v s="$s" 'BEGIN { printf "%.1f", (r > 0 ? s / r : 0) }')" >> "$tmp"
}

echo "case,value,seconds,seconds_no_replay,speedup" > "$tmp"
row default "seed comparison"
for n in 256 1024 4096; do
	row output "$n" predict "$scn" --layout tp8 --concurrency 64 --output "$n"
done
for c in 1 8 64 128; do
	row requests "$c" predict "$scn" --layout tp8 --concurrency "$c"
done
for b in 1 64; do
	row batch "$b" predict "$scn" --layout tp8 --batch "$b"
done
for l in tp4pp2 ep8; do
	row layout "$l" predict "$scn" --layout "$l"
done
# open loop: 10,000 requests arriving at 5/s, at most 256 in flight, on the
# seed box on bare metal (the bar: under 2 s)
row poisson 10000 predict scenarios/baremetal-8x-rtxpro6000.yaml --layout tp8 \
	--concurrency 256 --rate 5 --requests 10000 --percentiles --draws 0
mv "$tmp" "$out"
cat "$out"
