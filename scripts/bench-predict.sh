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
#   compare      plumb compare of 4 boxes (bare metal, the VM, the switch box,
#                HGX H200) x 4 layouts (tp8, tp4pp2, ep8, tp8ep); the bar is
#                0.5 s
#   tp64         plumb predict --layout tp64 (Llama 3.1 70B, every default:
#                7 concurrencies, the interval's 32 draws) on a 64-GPU box
#                the script writes: one NVLink domain of 64 H200 (NVSwitch),
#                eight Gen5 PCIe switches of eight GPUs on two sockets; a
#                synthetic box for scale, not a product; the bar is 0.5 s.
#                Timed with replay only (without it every one of its 33
#                serving runs simulates 160 64-rank all-reduces a step: hours);
#                tests/replay.sh checks replay's bytes on the bundled boxes
#   kvbound      issue 30's figure: plumb predict at 256 clients and 262,144
#                output tokens (the KV cache binds; requests are retracted and
#                prefilled again), on the four bundled box kinds with --draws 0
#                and on bare metal with the default 32 draws; the bars are 1 s
#                and 5 s of CPU. Timed with replay only, as tp64
# Every case but tp64 and kvbound runs twice: with collective replay (the default) and with
# PLUMB_NO_REPLAY=1 (every collective simulated as flows; docs/engine.md
# "Collective replay"); the outputs must be the same bytes, the script stops
# if they are not. Columns: seconds (replay), seconds_no_replay, speedup,
# cpu_seconds (replay: user + system CPU of the same best run). Run from the
# repository root after `make`. Times are wall-clock seconds on this
# machine; they vary with its load; the CPU seconds vary less.
set -eu
PLUMB=${PLUMB:-./plumb}
scn=scenarios/proxmox-vm-8x-rtxpro6000.yaml
out=bench/predict.csv
mkdir -p bench
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.r" "$tmp.s" "$tmp.t0" "$tmp.t1" "$tmp.64.yaml"' EXIT

. scripts/bench-lib.sh    # cpu

# best of 3 wall-clock runs of the command: "wall cpu" of the fastest
best() {
	b=
	bc=
	for i in 1 2 3; do
		times > "$tmp.t0"
		s=$(date +%s.%N)
		"$@" > /dev/null
		e=$(date +%s.%N)
		times > "$tmp.t1"
		c0=$(cpu "$tmp.t0")
		c1=$(cpu "$tmp.t1")
		t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }')
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then
			b=$t
			bc=$(awk -v a="$c0" -v z="$c1" 'BEGIN { printf "%.3f", z - a }')
		fi
	done
	echo "$b $bc"
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
	rb=$(best "$PLUMB" "$@")
	r=${rb% *}
	rc=${rb#* }
	s=$(export PLUMB_NO_REPLAY=1; best "$PLUMB" "$@")
	s=${s% *}
	echo "$c,$v,$r,$s,$(awk -v r="$r" -v s="$s" 'BEGIN { printf "%.1f", (r > 0 ? s / r : 0) }'),$rc" >> "$tmp"
}

echo "case,value,seconds,seconds_no_replay,speedup,cpu_seconds" > "$tmp"
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
row compare "4 boxes x 4 layouts" compare scenarios/baremetal-8x-rtxpro6000.yaml \
	scenarios/proxmox-vm-8x-rtxpro6000.yaml scenarios/switch-8x-rtxpro6000.yaml \
	scenarios/hgx-8x-h200.yaml --layout tp8,tp4pp2,ep8,tp8ep
# the 64-GPU box of the tp64 case
{
	printf 'plumb_scenario: 1\nname: nvswitch-64x-h200\nseed: 1\n'
	printf 'description: 64 H200 in one NVLink domain (synthetic, for scale)\n'
	printf 'host: {cpu_vendor: intel, sockets: 2, cores_per_socket: 56, threads_per_core: 2}\n'
	printf 'pcie:\n'
	g=0
	for r in 0 1 2 3 4 5 6 7; do
		printf '  - {id: rc%d, kind: root_complex, socket: %d}\n' "$r" $((r / 4))
		printf '  - {id: rp%d, kind: root_port, parent: rc%d, gen: 5, width: 16}\n' "$r" "$r"
		printf '  - {id: sw%d, kind: switch, parent: rp%d, gen: 5, width: 16}\n' "$r" "$r"
		for k in 0 1 2 3 4 5 6 7; do
			printf '  - {id: gpu%d, kind: gpu, parent: sw%d, model: h200}\n' "$g" "$r"
			g=$((g + 1))
		done
	done
	printf 'nvlink: {nvswitch: true}\n'
} > "$tmp.64.yaml"
rb=$(best "$PLUMB" predict "$tmp.64.yaml" --model llama-3.1-70b --layout tp64)
echo "tp64,64-GPU NVSwitch box,${rb% *},-,-,${rb#* }" >> "$tmp"
for b in baremetal-8x-rtxpro6000 proxmox-vm-8x-rtxpro6000 hgx-8x-h200 mi300x-8x; do
	rb=$(best "$PLUMB" predict "scenarios/$b.yaml" --concurrency 256 --output 262144 --draws 0)
	echo "kvbound,$b 256 x 262144 draws 0,${rb% *},-,-,${rb#* }" >> "$tmp"
done
rb=$(best "$PLUMB" predict scenarios/baremetal-8x-rtxpro6000.yaml --concurrency 256 --output 262144)
echo "kvbound,baremetal-8x-rtxpro6000 256 x 262144 32 draws,${rb% *},-,-,${rb#* }" >> "$tmp"
mv "$tmp" "$out"
cat "$out"
