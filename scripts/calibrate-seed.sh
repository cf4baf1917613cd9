#!/bin/sh
# calibrate-seed.sh: fit the seed scenarios' constants jointly and print the
# values the GPU catalog (rtx-pro-6000: the gpu-scope ones) and the scenarios carry.
#
# One `plumb calibrate` over two boxes (docs/cli.md, joint calibration):
#   the bare-metal twin's decode table (realdata/serving-samples.md section 1,
#   validation/data/baremetal-glm5-cutlass-decode.csv: 17 points, batch 1-64,
#   context 0-128k) on scenarios/baremetal-8x-rtxpro6000.yaml, and
#   the seed VM's 11 tok/s at one stream and 485 tok/s at 64
#   (validation/data/seed-vm-serving.csv) on scenarios/proxmox-vm-8x-rtxpro6000.yaml.
# Shared by both (gpu and engine scope), fitted once:
#   kmin_gemm_us  the dense GEMM class's minimum kernel duration,
#   attn_mem_eff  how fast attention reads the KV cache,
#   moe_mem_eff   how fast the cutlass MoE runner reads the touched experts;
# the VM's own (vm scope), fitted for the VM only:
#   vm_step_exits   the guest's VM exits and injected interrupts per NCCL ring
#                   step through host memory (models/coll/vmhost.c: the one
#                   term of the VM's physical host path the data informs).
# Everything else keeps the scenarios' values (nccl_shm_gbs, box scope, is the
# 8-GPU SHM sample's rate, cited in the scenarios).
# The fit is run twice: with the VM's engine on CUDA graphs (the scenarios'
# assumption) and without (the seed does not say). The data cannot tell the
# two apart; the script prints both and the speed-up each implies.
#
# Usage: sh scripts/calibrate-seed.sh   (from the repository root, after make)
set -eu
PLUMB=${PLUMB:-./plumb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FREE=kmin_gemm_us,attn_mem_eff,moe_mem_eff,vm_step_exits

# strip SCENARIO OUT [EAGER]: the scenario without the fitted constants (so the
# fit starts from their defaults), CUDA graphs off when EAGER is 1.
strip() {
	awk -v e="${3:-0}" -v free="$FREE" '
		BEGIN { n = split(free, f, ","); for (i = 1; i <= n; i++) drop[f[i] ":"] = 1 }
		/^constants:/ { inb = 1; print; next }
		inb && /^  / { if ($1 in drop) next; print; next }
		{ inb = 0 }
		e == 1 && /^  cuda_graphs:/ { next }
		e == 1 && /^serving:/ { print; print "  cuda_graphs: false"; next }
		{ print }' "$1" > "$2"
}

# fitted FILE NAME: a constant's fitted value from a calibration file
fitted() {
	awk -v n="$2" '$1 == n ":" { print $2; exit }' "$1"
}

joint() {   # joint EAGER OUT
	strip scenarios/baremetal-8x-rtxpro6000.yaml "$tmp/bm.yaml"
	strip scenarios/proxmox-vm-8x-rtxpro6000.yaml "$tmp/vm-$1.yaml" "$1"
	"$PLUMB" calibrate "$tmp/bm.yaml" --data validation/data/baremetal-glm5-cutlass-decode.csv \
		--and "$tmp/vm-$1.yaml" --data validation/data/seed-vm-serving.csv \
		--free "$FREE" -o "$2" >&2
}
joint 0 "$tmp/graphs.yaml"
joint 1 "$tmp/eager.yaml"
G=$(fitted "$tmp/graphs.yaml" kmin_gemm_us)
A=$(fitted "$tmp/graphs.yaml" attn_mem_eff)
M=$(fitted "$tmp/graphs.yaml" moe_mem_eff)

printf '# gpu scope: scenarios/catalog/gpus.yaml, entry rtx-pro-6000\n'
printf 'constants:\n  kmin_gemm_us: %.3g\n  attn_mem_eff: %.3g\n' "$G" "$A"
printf '# engine scope (the MoE runner): the RTX PRO 6000 scenarios\n'
printf '  moe_mem_eff: %.3g\n' "$M"
for v in graphs eager; do
	printf '# the seed VM, CUDA graphs %s (vm scope)%s\n' \
		"$([ $v = graphs ] && echo on || echo off)" \
		"$([ $v = eager ] && echo '; shared constants then' \
			"$(fitted "$tmp/eager.yaml" kmin_gemm_us) $(fitted "$tmp/eager.yaml" attn_mem_eff)" \
			"$(fitted "$tmp/eager.yaml" moe_mem_eff)" || true)"
	printf '  vm_step_exits: %.3g\n' "$(fitted "$tmp/$v.yaml" vm_step_exits)"
done

# The VM -> bare metal speed-up (tp8) each explanation implies, both boxes
# running the same engine settings.
tps() {   # tps CALIB SCENARIO [--eager]: total tok/s at 1 and 64 requests
	"$PLUMB" predict "$2" --calib "$1" --draws 0 --layout tp8 --concurrency 1,64 \
		--format csv ${3:-} 2>/dev/null | awk -F, 'NR > 1 { printf "%s ", $6 }'
}
for v in graphs eager; do
	flag=; e=0; [ $v = eager ] && flag=--eager && e=1
	set -- $(tps "$tmp/$v.yaml" "$tmp/vm-$e.yaml") $(tps "$tmp/$v.yaml" "$tmp/bm.yaml" $flag)
	awk -v v="$v" -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN {
		printf "# CUDA graphs %s: VM %.1f / %.1f tok/s, bare metal %.1f / %.1f at 1 / 64 requests: x%.2f / x%.2f\n",
			v == "graphs" ? "on" : "off", a, b, c, d, c / a, d / b }'
done
