#!/bin/sh
# calibrate-seed.sh: fit the two constants the seed's measurements inform and
# print them as a constants block for the seed scenarios.
#
# The seed VM measured (DESIGN.md, the seed articles): a 13.7 us floor for a
# small transfer through host memory, 11 tok/s for a single stream and about
# 485 tok/s in total at 64 concurrent requests, serving GLM-5-NVFP4 at TP8.
#   nccl_shm_step_us  an all-reduce step over host memory costs the VM's floor:
#                     13.7 us less NCCL's own PCI LL step latency (1.0 us);
#   kernel_floor_us   the shortest time a kernel runs: small kernels hit it, so
#                     with the step's kernel count it sets a single stream's
#                     token time (large ones stay memory-bound): solve
#                     tok/s/user(C=1) = 11 (plumb predict defaults: input 1024,
#                     output 1024 tokens);
#   nccl_shm_gbs      the SHM transport's rate, which sets what the large
#                     all-reduces of 64 streams (and prefills) cost: solve
#                     tok/s(C=64) = 485.
# The last two are found by bisection, each with the other held; three rounds.
# Usage: sh scripts/calibrate-seed.sh [SCENARIO]   (run from the repository root)
set -eu
scn=${1:-scenarios/proxmox-vm-8x-rtxpro6000.yaml}
PLUMB=${PLUMB:-./plumb}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
FLOOR=13.7
PCI_LL=1.0
STEP=$(awk -v f="$FLOOR" -v p="$PCI_LL" 'BEGIN { printf "%.2f", f - p }')
F=1
S=8

# metric F S -> "tok_s_per_stream@1 tok_s_total@64"
metric() {
	awk '/^constants:/ { skip = 1; next } skip && /^  / { next } { skip = 0; print }' "$scn" |
		sed "s/^seed: \(.*\)$/seed: \1\nconstants: {nccl_shm_step_us: $STEP, kernel_floor_us: $1, nccl_shm_gbs: $2}/" > "$tmp"
	"$PLUMB" predict "$tmp" --layout tp8 --concurrency 1,64 --format csv |
		awk -F, 'NR == 2 { u = $7 } NR == 3 { t = $6 } END { print u, t }'
}

# bisect WHICH LO HI TARGET: WHICH is F (column 1, falls with F) or S (column 2, rises with S)
bisect() {
	lo=$2 hi=$3 i=0
	while [ $i -lt 30 ]; do
		mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.4f", (a + b) / 2 }')
		if [ "$1" = F ]; then
			v=$(metric "$mid" "$S" | awk '{ print $1 }')
			up=$(awk -v v="$v" -v t="$4" 'BEGIN { print (v > t) }')
		else
			v=$(metric "$F" "$mid" | awk '{ print $2 }')
			up=$(awk -v v="$v" -v t="$4" 'BEGIN { print (v < t) }')
		fi
		if [ "$up" = 1 ]; then lo=$mid; else hi=$mid; fi
		i=$((i + 1))
	done
	echo "$mid"
}

for round in 1 2 3; do
	F=$(bisect F 0 1000 11)
	S=$(bisect S 1 200 485)
	echo "round $round: kernel_floor_us $F, nccl_shm_gbs $S -> $(metric "$F" "$S")" >&2
done
printf 'constants:\n  nccl_shm_step_us: %s\n  kernel_floor_us: %.2f\n  nccl_shm_gbs: %.1f\n' "$STEP" "$F" "$S"
