#!/bin/sh
# bench-sweep.sh: how fast `plumb sweep` runs, written to bench/sweep.csv.
#   seed-10k     scenarios/grids/glm5-seed-10k.yaml: 10,080 points (3 seed boxes
#                x 3 layouts x 7 concurrencies x 16 inputs x 10 outputs) with
#                -j 2; the bar is 60 s on 2 cores and 200 MB peak memory
#   four-boxes   scenarios/grids/four-boxes-glm5.yaml (60 points)
#   gpus=G       Llama 3.1 70B at tpG on the switch box, 7 concurrencies x 3
#                output lengths: the cost of a step against its GPU count
#   layers=M     model M (its layer count in the name) at tp8 on the VM, same
#                loads: the cost of a step against the layers it runs
#   output=N     GLM-5 tp8 on the VM, concurrency 64, N output tokens: decode
#                steps per request
#   requests=C   the same at 1024 output tokens and concurrency C (2C requests)
# Each row: points, step simulations (cache misses), step lookups, wall
# seconds, points/s, milliseconds of wall time per simulated step, threads
# and the process's peak RSS (getrusage, KiB), from `plumb sweep --stats`.
# SWEEP_QUICK=1 skips seed-10k. Run from the repository root after `make`.
set -eu
PLUMB=${PLUMB:-./plumb}
out=bench/sweep.csv
root=$(pwd)
mkdir -p bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run CASE VALUE GRID [-j N]: one row from the --stats line
run() {
	c=$1 v=$2 g=$3
	shift 3
	"$PLUMB" sweep "$g" --fresh --no-progress --stats -o "$tmp/out.csv" "$@" 2> "$tmp/stats"
	sed -n 's/^sweep: \([0-9]*\) points.* in \([0-9.]*\) s: \([0-9.]*\) points\/s; steps simulated \([0-9]*\), cache hits [0-9]* of \([0-9]*\); peak RSS \([0-9]*\) KiB; \([0-9]*\) threads.*/\1 \2 \3 \4 \5 \6 \7/p' "$tmp/stats" |
	while read -r pts wall rate sims looks rss th; do
		ms=$(awk -v w="$wall" -v s="$sims" -v t="$th" 'BEGIN { printf "%.3f", s ? w * 1000 * t / s : 0 }')
		echo "$c,$v,$pts,$sims,$looks,$wall,$rate,$ms,$th,$rss"
	done
}

grid() {   # grid FILE SCENARIO MODEL LAYOUT CONCURRENCIES OUTPUTS
	cat > "$1" <<EOF
plumb_grid: 1
set: {scenario: $root/scenarios/$2.yaml, model: $3, layout: $4}
axes:
  concurrency: [$5]
  output: [$6]
EOF
}

echo "case,value,points,steps_simulated,step_lookups,wall_s,points_per_s,ms_per_step_thread,threads,peak_rss_kib" > "$tmp/csv"
if [ "${SWEEP_QUICK:-0}" != 1 ]; then
	run seed-10k glm5-seed-10k scenarios/grids/glm5-seed-10k.yaml -j 2 >> "$tmp/csv"
fi
run four-boxes four-boxes-glm5 scenarios/grids/four-boxes-glm5.yaml -j 2 >> "$tmp/csv"
for g in 1 2 4 8; do
	grid "$tmp/g.yaml" switch-8x-rtxpro6000 llama-3.1-70b tp$g "1, 2, 4, 8, 16, 32, 64" "256, 1024, 4096"
	run gpus "$g" "$tmp/g.yaml" -j 1 >> "$tmp/csv"
done
for m in mixtral-8x7b:32 deepseek-v3:61 glm-5:78 llama-3.1-70b:80 qwen3-235b-a22b:94; do
	grid "$tmp/g.yaml" proxmox-vm-8x-rtxpro6000 "${m%:*}" tp8 "1, 2, 4, 8, 16, 32, 64" "256, 1024, 4096"
	run layers "$m" "$tmp/g.yaml" -j 1 >> "$tmp/csv"
done
for n in 256 1024 2048 4096; do
	grid "$tmp/g.yaml" proxmox-vm-8x-rtxpro6000 glm-5 tp8 64 "$n"
	run output "$n" "$tmp/g.yaml" -j 1 >> "$tmp/csv"
done
for c in 1 8 64 128; do
	grid "$tmp/g.yaml" proxmox-vm-8x-rtxpro6000 glm-5 tp8 "$c" 1024
	run requests "$c" "$tmp/g.yaml" -j 1 >> "$tmp/csv"
done
mv "$tmp/csv" "$out"
cat "$out"
