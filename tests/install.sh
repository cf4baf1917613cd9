#!/bin/sh
# tests/install.sh - `make install PREFIX=...` into a temporary prefix, then
# the installed plumb run from / (no source tree in sight): the seed
# comparison, a bundled scenario by its source-tree name, an installed
# Hugging Face config by path and by name, and a scenario with its own GPU
# catalog.
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
if ! make -s install PREFIX="$tmp/p" >"$tmp/make.log" 2>&1; then
	cat "$tmp/make.log"
	echo "0 passed, 1 failed"
	exit 1
fi
P=$tmp/p/bin/plumb
check "plumb (seed comparison)" "$P"
grep -q "proxmox-vm-8x-rtxpro6000" "$tmp/out" || { fail=$((fail + 1)); echo "FAIL: seed comparison output"; }
check "bundled scenario by name" "$P" topo scenarios/hgx-8x-h200.yaml
check "installed model config" "$P" predict scenarios/hgx-8x-h200.yaml \
	--model "$tmp/p/share/plumb/models/hf/openai--gpt-oss-120b" --batch 1 --draws 0
check "bundled config by name" "$P" predict scenarios/hgx-8x-h200.yaml --model gpt-oss-120b \
	--batch 1 --draws 0
check "scenario with its own GPU catalog" "$P" topo "$src/tests/data/user-catalog/scenario.yaml"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
