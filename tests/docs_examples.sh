#!/bin/sh
# docs_examples.sh - every ```yaml block in docs/*.md that contains
# "plumb_scenario:" must load and run: `plumb topo` exits 0 on it; every
# block with "plumb_calibration:" must load: `plumb constants --calib` on it.
# Prints "N passed, M failed" and exits 1 on any failure.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for doc in docs/*.md; do
	awk -v dir="$tmp" -v base="$(basename "$doc" .md)" '
		/^```yaml[ \t]*$/ { inb = 1; n++; file = dir "/" base "-" n ".yaml"; printf "" > file; next }
		/^```/ && inb { inb = 0; close(file); next }
		inb { print >> file }
	' "$doc"
done
for f in "$tmp"/*.yaml; do
	[ -e "$f" ] || continue
	if grep -q '^plumb_calibration:' "$f"; then
		set -- constants --calib "$f"
	elif grep -q '^plumb_scenario:' "$f"; then
		set -- topo "$f"
	else
		continue
	fi
	if ./plumb "$@" > /dev/null 2> "$tmp/err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "docs example $(basename "$f") failed:"
		cat "$tmp/err"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
