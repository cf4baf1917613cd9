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
