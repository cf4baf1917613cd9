#!/bin/sh
# calibrate-seed.sh: fit the seed scenarios' constants jointly and print the
# one fitted set per scope that the repository carries.
#
# One `plumb calibrate` over two boxes (docs/cli-calibrate.md, joint calibration):
#   the bare-metal twin's decode table (realdata/serving-samples.md section 1,
#   validation/data/baremetal-glm5-cutlass-decode.csv: 17 points, batch 1-64,
#   context 0-128k) on scenarios/baremetal-8x-rtxpro6000.yaml, and
#   the seed VM's 11 tok/s at one stream and 485 tok/s at 64
#   (validation/data/seed-vm-serving.csv) on scenarios/proxmox-vm-8x-rtxpro6000.yaml.
# The constants fitted are the names in FREE; each is printed under its
# scope (`plumb constants` says which), and that says where it lives:
#   gpu     scenarios/catalog/gpus.yaml, entry rtx-pro-6000 (kernel floors and
#           rates of this GPU, whatever box it is in);
#   engine  the `constants:` block of every RTX PRO 6000 scenario (the
#           serving engine's MoE runner they all run);
#   box, vm the `constants:` block of the scenario it was fitted for.
# Everything else keeps the scenarios' values (nccl_shm_gbs, box scope, is the
# 8-GPU SHM sample's rate, cited in the scenarios).
# The priors are centred on the constants table's cited defaults
# (--prior-from defaults), not on the values the repository carries, so the
# fit does not feed on its own earlier output: the same data gives the same
# constants. `make check` (tests/calib_seed.sh) checks that what this prints
# is what `plumb constants` reports for the seed scenarios.
# The fit is run twice: with the VM's engine on CUDA graphs (the scenarios'
# assumption) and without (the seed does not say). The data cannot tell the
# two apart; the second is printed as a comment with the speed-up it implies.
#
# Usage: sh scripts/calibrate-seed.sh   (from the repository root, after make)
set -eu
PLUMB=${PLUMB:-./plumb}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FREE=${FREE:-kmin_gemm_us,attn_mem_eff,moe_mem_eff,vm_step_exits}
BM=scenarios/baremetal-8x-rtxpro6000.yaml
VM=scenarios/proxmox-vm-8x-rtxpro6000.yaml

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

# fitted FILE NAME: a constant's fitted value from a calibration file (the
# first line naming it: `constants:` or its scenario's block under `scenarios:`)
fitted() {
	awk -v n="$2" '$1 == n ":" { print $2; exit }' "$1"
}

# scope NAME: the constant's scope, from `plumb constants`
scope() {
	"$PLUMB" constants | awk -v n="$1" '$1 == n { print $2; exit }'
}

joint() {   # joint EAGER OUT
	strip "$BM" "$tmp/bm.yaml"
	strip "$VM" "$tmp/vm-$1.yaml" "$1"
	"$PLUMB" calibrate "$tmp/bm.yaml" --data validation/data/baremetal-glm5-cutlass-decode.csv \
		--and "$tmp/vm-$1.yaml" --data validation/data/seed-vm-serving.csv \
		--free "$FREE" --prior-from defaults -o "$2" >&2
}
joint 0 "$tmp/graphs.yaml"
joint 1 "$tmp/eager.yaml"

names=$(echo "$FREE" | tr ',' ' ')
for sc in gpu engine box vm; do
	first=1
	for n in $names; do
		[ "$(scope "$n")" = "$sc" ] || continue
		if [ $first = 1 ]; then
			case $sc in
			gpu) printf '# gpu scope: scenarios/catalog/gpus.yaml, entry rtx-pro-6000\n' ;;
			engine) printf '# engine scope: every RTX PRO 6000 scenario (%s, %s, ...)\n' "$BM" "$VM" ;;
			*) printf '# %s scope: %s (the seed VM, CUDA graphs on)\n' "$sc" "$VM" ;;
			esac
			first=0
		fi
		printf '  %s: %.3g\n' "$n" "$(fitted "$tmp/graphs.yaml" "$n")"
	done
done
printf '# without CUDA graphs in the VM instead:'
for n in $names; do
	printf ' %s %.3g' "$n" "$(fitted "$tmp/eager.yaml" "$n")"
done
printf '\n'

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
