#!/bin/sh
# tests/install.sh - `make install PREFIX=...` into a temporary prefix, then
# the installed plumb run from / (no source tree in sight): the seed
# comparison, a bundled scenario by its source-tree name, an installed
# Hugging Face config by path and by name, and a scenario with its own GPU
# catalog. The prefix has a space in it. Then `make uninstall`: it removes
# exactly what install listed in share/plumb/install-manifest (a file of
# ours left in the prefix, and the file named by the prefix cut at its
# space, stay), refuses without a manifest, and DESTDIR with a space works.
# Ends with "N passed, M failed"; exit status 1 when M > 0.
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-install.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
src=$(pwd)
pass=0
fail=0
check() {   # LABEL COMMAND...: exit 0 and some output, run from /
	label=$1
	shift
	if (cd / && "$@") >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/out" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $label"
		sed 's/^/    /' "$tmp/err"
	fi
}
ok() {      # LABEL COMMAND...: the command succeeds
	label=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $label"
	fi
}
pre="$tmp/p q"
# the prefix cut at its space: a file `make uninstall` once deleted
echo notes >"$tmp/p"
if ! make -s install PREFIX="$pre" >"$tmp/make.log" 2>&1; then
	cat "$tmp/make.log"
	echo "0 passed, 1 failed"
	exit 1
fi
P=$pre/bin/plumb
check "plumb (seed comparison)" "$P"
grep -q "proxmox-vm-8x-rtxpro6000" "$tmp/out" || { fail=$((fail + 1)); echo "FAIL: seed comparison output"; }
check "bundled scenario by name" "$P" topo scenarios/hgx-8x-h200.yaml
check "installed model config" "$P" predict scenarios/hgx-8x-h200.yaml \
	--model "$pre/share/plumb/models/hf/openai--gpt-oss-120b" --batch 1 --draws 0
check "bundled config by name" "$P" predict scenarios/hgx-8x-h200.yaml --model gpt-oss-120b \
	--batch 1 --draws 0
check "scenario with its own GPU catalog" "$P" topo "$src/tests/data/user-catalog/scenario.yaml"

# The documented examples (README, docs/cli-calibrate.md) run from an empty directory
# with the installed copy, under their source-tree names: each exits 0 and
# prints (or writes with -o) the same bytes as ./plumb in the source tree.
# A case list of the first two nccl-tests and p2p cases of
# validation/cases.yaml (the whole list takes minutes) names its scenarios
# and data by their source-tree paths, found in share/plumb.
awk '
/^cases:/ { print; inl = 1; next }
/^[a-z]/ { inl = 0 }
inl && /^  - name:/ { flush(); blk = $0 "\n"; next }
inl && blk != "" { blk = blk $0 "\n"; next }
END { flush() }
function flush(  k) {
	if (blk == "") return
	if (match(blk, /\n    kind: [a-z0-9]+/)) k = substr(blk, RSTART + 11, RLENGTH - 11)
	if ((k == "nccl" || k == "p2p") && n[k]++ < 2) printf "%s", blk
	blk = ""
}' validation/cases.yaml >"$tmp/cases.yaml"
ok "the case list holds 2 nccl-tests and 2 p2p cases" \
	test "$(grep -c '^    kind: \(nccl\|p2p\)$' "$tmp/cases.yaml")" -eq 4
mkdir "$tmp/empty dir" "$tmp/src-out"
same() {    # LABEL OUTFILE COMMAND...: installed and source tree agree
	label=$1
	of=$2
	shift 2
	if ! (cd "$tmp/empty dir" && "$P" "$@") >"$tmp/inst.out" 2>"$tmp/inst.err"; then
		fail=$((fail + 1))
		echo "FAIL: $label: the installed plumb, from an empty directory"
		sed 's/^/    /' "$tmp/inst.err"
		return
	fi
	if ! (cd "$src/" && ./plumb "$@") >"$tmp/src.out" 2>"$tmp/src.err"; then
		fail=$((fail + 1))
		echo "FAIL: $label: ./plumb in the source tree"
		sed 's/^/    /' "$tmp/src.err"
		return
	fi
	if [ "$of" != - ]; then     # the file -o wrote in each directory
		mv "$src/$of" "$tmp/src.out" && cp "$tmp/empty dir/$of" "$tmp/inst.out" || {
			fail=$((fail + 1)); echo "FAIL: $label: no $of"; return; }
	fi
	if [ -s "$tmp/inst.out" ] && cmp -s "$tmp/inst.out" "$tmp/src.out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $label: output differs from the source tree's"
		diff "$tmp/src.out" "$tmp/inst.out" | head -10 | sed 's/^/    /'
	fi
}
man=$pre/share/plumb/install-manifest
same "README: plumb" -
same "predict a bundled scenario" - predict scenarios/proxmox-vm-8x-rtxpro6000.yaml
same "predict a bundled scenario (json)" - predict scenarios/workstation-2x-rtx5090.yaml \
	--model llama-3.1-70b --format json
same "compare bundled scenarios" - compare scenarios/proxmox-vm-8x-rtxpro6000.yaml \
	scenarios/baremetal-8x-rtxpro6000.yaml
same "sweep a bundled grid" plumb-install-test.csv sweep scenarios/grids/four-boxes-glm5.yaml \
	-o plumb-install-test.csv --no-progress
same "sweep a bundled grid (tiny)" - sweep scenarios/grids/tiny.yaml --no-progress
same "validate cases by their source-tree paths" - validate "$tmp/cases.yaml"
same "calibrate --data validation/data/" plumb-install-test.yaml calibrate \
	scenarios/proxmox-vm-8x-rtxpro6000.yaml --no-priors \
	--data validation/data/seed-vm-serving.csv --free vm_step_exits -o plumb-install-test.yaml
same "coll of a bundled scenario" - coll scenarios/proxmox-vm-8x-rtxpro6000.yaml --op allreduce \
	--gpus 0-7 -b 8 -e 256M -f 2
# the grid itself from share/plumb: sweep --check names the file it read
(cd "$tmp/empty dir" && "$P" sweep scenarios/grids/four-boxes-glm5.yaml --check) >"$tmp/out" 2>&1
ok "sweep --check names the installed grid" \
	grep -qF "$pre/share/plumb/scenarios/grids/four-boxes-glm5.yaml: 60 points" "$tmp/out"
ok "install lists the validation cases and data" \
	grep -qx 'f share/plumb/validation/cases.yaml' "$man"
ok "install lists validation/data" \
	grep -qx 'f share/plumb/validation/data/seed-vm-serving.csv' "$man"
# a file of the user's under a bundled name comes first
mkdir -p "$tmp/empty dir/scenarios/grids"
printf 'plumb_grid: 1\nname: mine\naxes:\n  scenario: [../../nope.yaml]\n' \
	>"$tmp/empty dir/scenarios/grids/tiny.yaml"
(cd "$tmp/empty dir" && "$P" sweep scenarios/grids/tiny.yaml --check) >"$tmp/out" 2>&1
ok "a grid in the current directory wins over the installed one" \
	grep -qF "error: scenarios/grids/tiny.yaml:4:14: scenario ../../nope.yaml" "$tmp/out"
ok "the examples wrote nothing into the source tree" \
	test ! -e "$src/plumb-install-test.csv" -a ! -e "$src/plumb-install-test.yaml"

man=$pre/share/plumb/install-manifest
ok "install writes a manifest listing bin/plumb" grep -qx 'f bin/plumb' "$man"
ok "the manifest lists every installed file" \
	test "$(grep -c '^f ' "$man")" -eq "$(find "$pre" -type f ! -name install-manifest | wc -l)"
# files of the user's in the prefix, which uninstall must leave
echo mine >"$pre/share/plumb/scenarios/mine.yaml"
echo other >"$pre/bin/other-tool"
make -s uninstall PREFIX="$pre" >"$tmp/make.log" 2>&1 ||
	{ fail=$((fail + 1)); echo "FAIL: make uninstall"; cat "$tmp/make.log"; }
ok "uninstall removes bin/plumb" test ! -e "$P"
ok "uninstall removes the manifest" test ! -e "$man"
ok "uninstall removes the installed data" test ! -e "$pre/share/plumb/models"
ok "uninstall leaves the user's files" test -f "$pre/share/plumb/scenarios/mine.yaml"
ok "uninstall leaves the user's files (bin)" test -f "$pre/bin/other-tool"
ok "uninstall leaves no installed file" \
	test "$(find "$pre" -type f | wc -l)" -eq 2
ok "uninstall never touches the prefix cut at its space" grep -qx notes "$tmp/p"
ok "uninstall without a manifest refuses" \
	sh -c '! make -s uninstall PREFIX="$1" >/dev/null 2>&1' sh "$pre"
ok "a refused uninstall removes nothing" test -f "$pre/bin/other-tool"
# DESTDIR (a staging root) with a space
if make -s install DESTDIR="$tmp/stage d" PREFIX=/usr >"$tmp/make.log" 2>&1 &&
	make -s uninstall DESTDIR="$tmp/stage d" PREFIX=/usr >>"$tmp/make.log" 2>&1; then
	ok "DESTDIR with a space: install and uninstall" test ! -e "$tmp/stage d/usr/bin/plumb"
	ok "DESTDIR: uninstall removes the directories install made" test ! -e "$tmp/stage d/usr/share/plumb"
else
	fail=$((fail + 1))
	echo "FAIL: make install/uninstall DESTDIR='$tmp/stage d'"
	cat "$tmp/make.log"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
