#!/bin/sh
# tests/repeat.sh - same inputs and seed, same bytes; output files appear
# whole or not at all. For every row of the table below (every command, on
# the bundled scenarios):
#   1. two runs give byte-identical output (stdout, or the -o file);
#   2. `-o FILE` writes the same bytes as standard output (MODE std);
#   3. a failing run (the row's inputs swapped for broken ones) given
#      `-o FILE` exits non-zero, leaves an existing FILE unchanged, and
#      leaves no FILE.tmp.* behind; nothing goes to standard output.
# Rows: NAME MODE ARGS...; a NAME with an extension is the -o file's name
# (pictures take their format from it). MODE std (stdout or -o), file (the
# -o file: pictures, traces, calibration files), nodet (-o checked for
# atomicity only: bench measures wall time, so its bytes differ between
# runs). Commands that are not in `plumb --help` are skipped, so a row may
# come before its command.
# The failing variant replaces the first bundled scenario with
# tests/bad/zero-gpus.yaml, a grid with one of 1.6 billion points, measured
# data, an imported file and the case list with empty ones.
#   sh tests/repeat.sh        PLUMB names the binary (default ./plumb)
# Ends with "N passed, M failed".
. "$(dirname "$0")/lib.sh"
begin_tests repeat
unset NCCL_P2P_LEVEL NCCL_P2P_DISABLE NCCL_SHM_DISABLE
VM=scenarios/proxmox-vm-8x-rtxpro6000.yaml
BM=scenarios/baremetal-8x-rtxpro6000.yaml
HGX=scenarios/hgx-8x-h200.yaml
WS=scenarios/workstation-2x-rtx5090.yaml
mkdir "$tmp/o"
CASES=$tmp/cases.yaml
printf 'cases:\n  - name: a40-nvlink\n    kind: nccl\n    data: validation/data/nccl-a40-2gpu-nvlink.txt\n    scenario: validation/scenarios/a40-8x-nv4.yaml\n    gpus: 0,1\n    op: allreduce\n' >"$CASES"
cmds=$("$PLUMB" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on && NF { print $1 }')

row() {
	name=$1
	mode=$2
	shift 2
	cmd=$1
	[ "$cmd" = "-" ] && cmd=
	if [ -n "$cmd" ] && ! echo "$cmds" | grep -qx "$cmd"; then
		echo "skip: $name (no 'plumb $cmd' in this build)"
		return
	fi
	shift
	set -- $cmd "$@"
	case $name in *.*) out=$tmp/o/$name ;; *) out=$tmp/o/$name.out ;; esac
	if [ "$mode" = std ]; then
		"$PLUMB" "$@" >"$tmp/run1" 2>"$tmp/err" || { bad "$name: plumb $*: exit $?"; sed 's/^/    /' "$tmp/err" | head -n 5; return; }
		"$PLUMB" "$@" >"$tmp/run2" 2>/dev/null
		if cmp -s "$tmp/run1" "$tmp/run2"; then ok; else bad "$name: plumb $*: two runs differ"; fi
	fi
	"$PLUMB" "$@" -o "$out" >"$tmp/stdout" 2>"$tmp/err" || { bad "$name: plumb $* -o FILE: exit $?"; sed 's/^/    /' "$tmp/err" | head -n 5; return; }
	case $mode in
	std)
		if cmp -s "$out" "$tmp/run1"; then ok; else bad "$name: plumb $* -o FILE: the file differs from standard output"; fi ;;
	file)
		cp "$out" "$tmp/file1"
		"$PLUMB" "$@" -o "$out" >/dev/null 2>&1
		if cmp -s "$out" "$tmp/file1"; then ok; else bad "$name: plumb $* -o FILE: two runs differ"; fi ;;
	esac
	# The failing variant must not touch the existing file.
	fargs=$(echo "$*" | sed -e 's| scenarios/grids/[^ ]*| tests/bad_inputs/grid-billions.yaml|' \
		-e 's| scenarios/[a-z0-9-]*\.yaml| tests/bad/zero-gpus.yaml|' \
		-e 's| validation/data/[^ ]*| tests/bad_inputs/nccl-empty.txt|' \
		-e 's|tests/data/import/[^ ]*|tests/bad_inputs/topom-empty.txt|' \
		-e "s|$CASES|tests/bad_inputs/cases-empty.yaml|")
	[ "$name" = bench ] && fargs="bench --steps 0"   # bench reads no file
	printf 'previous contents\n' >"$out"
	# shellcheck disable=SC2086 # word list on purpose
	"$PLUMB" $fargs -o "$out" >"$tmp/stdout" 2>/dev/null
	rc=$?
	if [ "$rc" -eq 0 ]; then
		bad "$name: plumb $fargs -o FILE: the failing variant exited 0"
	elif [ "$(cat "$out")" != "previous contents" ]; then
		bad "$name: plumb $fargs -o FILE: a failing run changed the existing file"
	elif [ -s "$tmp/stdout" ]; then
		bad "$name: plumb $fargs -o FILE: a failing run wrote to standard output"
	else
		ok
	fi
	left=$(find "$tmp/o" -name '*.tmp.*')
	if [ -z "$left" ]; then ok; else bad "$name: temporary files left behind: $left"; rm -f $left; fi
}

while read -r name mode rest; do
	case $name in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086
	row "$name" "$mode" $rest
done <<TABLE
topo-vm          std   topo $VM
topo-bm-json     std   topo $BM --format json
topo-hgx-xml     std   topo $HGX --format nccl-xml
topo-ws-matrix   std   topo $WS --format matrix
xfer-vm          std   xfer $VM
xfer-pair        std   xfer $BM --from 0 --to 5 --bytes 1G --bidir
coll-hgx         std   coll $HGX -b 8 -e 16M -f 8 --verbose
coll-bm-a2a      std   coll $BM --op alltoall -b 1K -e 1M -f 32
predict-vm       std   predict $VM --layout tp8,tp4pp2,ep8 --concurrency 1,16 --output 64 --draws 4
predict-ws-json  std   predict $WS --model llama-3.1-70b --concurrency 1,4 --output 64 --format json --draws 4
predict-batch    std   predict $HGX --batch 1,32 --format csv --draws 4
compare          std   compare $VM $BM --layout tp8 --concurrency 1,8 --output 64
constants        std   constants $VM --format yaml
import-topom     std   import topo-m tests/data/import/topom-8x-pcie-pix-node-sys.txt --gpu-model rtx-4090
import-lspci     std   import lspci tests/data/import/lspci-asus-esc8000a-e12-4x-rtx6000ada.txt
validate         std   validate $CASES
bench            nodet bench --workload hold --steps 20k
calibrated.yaml  file  calibrate validation/scenarios/a40-8x-nv4.yaml --data validation/data/nccl-a40-2gpu-nvlink.txt
trace.json       file  trace $VM --layout tp4pp2 --batch 2
sweep            std   sweep scenarios/grids/tiny.yaml --fresh -j 2
sweep-json       std   sweep scenarios/grids/tiny.yaml --fresh --format json
topology.svg     file  render $VM --what topology
timeline.png     file  render $BM --what timeline --layout tp8
TABLE

# The bare command (the seed comparison) prints to standard output only.
"$PLUMB" >"$tmp/run1" 2>"$tmp/err"
rc1=$?
"$PLUMB" >"$tmp/run2" 2>/dev/null
if [ "$rc1" -ne 0 ]; then
	bad "plumb (no arguments): exit $rc1"
	sed 's/^/    /' "$tmp/err" | head -n 5
elif cmp -s "$tmp/run1" "$tmp/run2"; then
	ok
else
	bad "plumb (no arguments): two runs differ"
fi
end_tests repeat
