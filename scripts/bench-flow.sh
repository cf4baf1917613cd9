#!/bin/sh
# bench-flow.sh: CPU cost of the flow solver on the ring workload of
# `plumb bench` (sim/bench.h: two sockets, one root link each, 1 MiB
# all-reduces chunked into 2N(N-1) flows), written to bench/flow.csv.
#   startup     plumb bench --workload hold --steps 1: what a run costs
#               before any flow (process start, tables); subtracted before
#               the exponent is fitted
#   ring-one N  one ring all-reduce over N = 64, 128, 256, 512, 1024 GPUs
#   ring-two N  two all-reduces over 1,024 GPUs (the GPUs fall out of step
#               after the first: every flow start and end is its own solve)
#   calib-seed  sh tests/calib_seed.sh (the seed fit: calibrate's steps,
#               whose collectives' classes hold one or two flows each),
#               value 0, under each solver
# Each row runs under the class solver (the default) and, for comparison,
# the per-flow reference (PLUMB_FLOW_SOLVER=per-flow), except its
# two-all-reduce row, which takes about two minutes of CPU on its own: set
# FLOW_REFERENCE_TWO=1 to run it too. Small cases repeat (1024 / N runs) so
# that each row sums enough CPU to measure; the row gives the mean per run.
# Columns: case, value (GPUs), solver, runs, cpu_seconds (user + system per
# run, from the shell's `times`). CPU seconds vary less with the machine's
# load than wall time, but a loaded machine still slows them (shared caches).
# Run from the repository root after `make`.
set -eu
PLUMB=${PLUMB:-./plumb}
out=bench/flow.csv
mkdir -p bench
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.t0" "$tmp.t1"' EXIT
. scripts/bench-lib.sh

# row CASE VALUE SOLVER RUNS ARGS...: mean CPU seconds of RUNS runs
row() {
	c=$1
	v=$2
	s=$3
	n=$4
	shift 4
	times > "$tmp.t0"
	i=0
	while [ "$i" -lt "$n" ]; do
		PLUMB_FLOW_SOLVER=$s "$PLUMB" "$@" > /dev/null
		i=$((i + 1))
	done
	times > "$tmp.t1"
	echo "$c,$v,$s,$n,$(awk -v a="$(cpu "$tmp.t0")" -v z="$(cpu "$tmp.t1")" -v n="$n" \
		'BEGIN { printf "%.4f", (z - a) / n }')" >> "$tmp"
}

echo "case,value,solver,runs,cpu_seconds" > "$tmp"
for s in classes per-flow; do
	row startup 0 "$s" 16 bench --workload hold --steps 1
	for n in 64 128 256 512 1024; do
		row ring-one "$n" "$s" $((1024 / n)) bench --workload ring --gpus "$n" --steps 1
	done
done
row ring-two 1024 classes 1 bench --workload ring --gpus 1024 --steps 2
for s in classes per-flow; do
	times > "$tmp.t0"
	PLUMB_FLOW_SOLVER=$s PLUMB="$PLUMB" sh tests/calib_seed.sh > /dev/null
	times > "$tmp.t1"
	echo "calib-seed,0,$s,1,$(awk -v a="$(cpu "$tmp.t0")" -v z="$(cpu "$tmp.t1")" \
		'BEGIN { printf "%.4f", z - a }')" >> "$tmp"
done
if [ "${FLOW_REFERENCE_TWO:-0}" = 1 ]; then
	row ring-two 1024 per-flow 1 bench --workload ring --gpus 1024 --steps 2
fi
mv "$tmp" "$out"
cat "$out"
# the figures the report derives (bench-report.sh prints the same)
sh scripts/bench-flow-fit.sh "$out"
