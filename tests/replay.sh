#!/bin/sh
# tests/replay.sh - collective replay changes no output byte (docs/engine.md
# "Collective replay"). For every bundled scenario and each of the layouts
# tp8, tp4pp2 (also with 4 microbatches), ep8 and tp2, `plumb predict` (CSV
# with the breakdown, concurrencies 1 to 64) runs twice, once with
# PLUMB_NO_REPLAY=1: stdout, stderr and exit status must be identical (the
# interval's Monte Carlo draws are compared on one scenario, not all). A
# layout the box cannot run fails the same way both times; each scenario must
# run at least one. The bare `plumb` seed comparison is compared too.
# The shared step memo (docs/engine.md "Shared derived state and the step
# memo") changes no byte either: the seed comparison, a compare of four
# boxes and four layouts and the interval's draws run again with
# PLUMB_NO_STEP_MEMO=1 (every step simulated).
#   sh tests/replay.sh        PLUMB names the binary (default ./plumb)
# Ends with "N passed, M failed"; exit status 1 when M > 0.
. "$(dirname "$0")/lib.sh"
begin_tests replay
unset NCCL_P2P_LEVEL NCCL_P2P_DISABLE NCCL_SHM_DISABLE PLUMB_NO_REPLAY PLUMB_NO_STEP_MEMO

# same NAME ARGS...: 0 when both runs succeed, 1 when both fail alike; the
# second run has $off=1 in its environment (PLUMB_NO_REPLAY unless set)
off=PLUMB_NO_REPLAY
same() {
	name=$1
	shift
	# side by side: the simulated run is the slow one
	(env "$off=1" "$PLUMB" "$@" >"$tmp/s.out" 2>"$tmp/s.err"; echo $? >"$tmp/s.rc") &
	"$PLUMB" "$@" >"$tmp/r.out" 2>"$tmp/r.err"
	rc1=$?
	wait
	rc2=$(cat "$tmp/s.rc")
	if [ $rc1 -ne $rc2 ] || ! cmp -s "$tmp/r.out" "$tmp/s.out" || ! cmp -s "$tmp/r.err" "$tmp/s.err"; then
		bad "$name: plumb $*: differs with $off=1 (exit $rc1 vs $rc2)"
		diff "$tmp/s.out" "$tmp/r.out" | head -n 6 | sed 's/^/    /'
		diff "$tmp/s.err" "$tmp/r.err" | head -n 4 | sed 's/^/    /'
		return 2
	fi
	ok
	[ $rc1 -eq 0 ]
}

same seed-comparison
# the interval's draws (other constants, other steps) replay alike too
same interval-draws predict scenarios/hgx-8x-h200.yaml --concurrency 1,64 --format csv --draws 4
for scn in scenarios/*.yaml; do
	name=$(basename "$scn" .yaml)
	ran=0
	for lay in tp8 tp4pp2 ep8 tp2; do
		model=glm-5
		[ $lay = tp2 ] && model=llama-3.1-70b
		same "$name/$lay" predict "$scn" --model $model --layout $lay --format csv --breakdown \
			--draws 0 && ran=$((ran + 1))
	done
	same "$name/tp4pp2-m4" predict "$scn" --layout tp4pp2 --microbatches 4 --format csv --breakdown \
		--draws 0 && ran=$((ran + 1))
	if [ $ran -eq 0 ]; then
		bad "$name: no layout ran"
	fi
done
# tp16 across the two-host box's NICs: its rings take the size grid
# (docs/model-collectives.md, "Across hosts: a grid of sizes"), whose
# interpolated time may seed a replay within COLL_GRID_TOL; the printed
# figures agree
same 2x-hgx-8x-h100-ib/tp16 predict scenarios/2x-hgx-8x-h100-ib.yaml --layout tp16 \
	--concurrency 1,64 --input 8192 --format csv --breakdown --draws 0
off=PLUMB_NO_STEP_MEMO
same memo/seed-comparison
same memo/compare compare scenarios/baremetal-8x-rtxpro6000.yaml \
	scenarios/proxmox-vm-8x-rtxpro6000.yaml scenarios/switch-8x-rtxpro6000.yaml \
	scenarios/hgx-8x-h200.yaml --layout tp8,tp4pp2,ep8,tp8ep
same memo/interval-draws predict scenarios/hgx-8x-h200.yaml --concurrency 1,64 --format csv \
	--draws 4
end_tests
