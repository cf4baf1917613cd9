#!/bin/sh
# docs_examples.sh - every ```yaml block in docs/*.md that contains
# "plumb_scenario:" must load and run: `plumb topo` exits 0 on it; every
# block with "plumb_calibration:" must load: `plumb constants --calib` on it.
# A block with "plumb_grid:" must run: `plumb sweep` writes one row per point
# (grid paths are relative to the repository root, where a user keeps the
# file, so scenarios/ is linked beside the extracted copy). Every `plumb
# calibrate` example of docs/cli-calibrate.md runs, with the commands beside it, and
# exits 0 or the status a "# exit N" line before it documents.
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
ln -s "$(pwd)/scenarios" "$tmp/scenarios"
for f in "$tmp"/*.yaml; do
	[ -e "$f" ] || continue
	if grep -q '^plumb_grid:' "$f"; then
		# a grid: every point runs and gives one row
		n=$(./plumb sweep "$f" --check 2> "$tmp/err" | sed -n 's/.*: \([0-9]*\) points.*/\1/p')
		if [ -n "$n" ] && ./plumb sweep "$f" --fresh -o "$tmp/sweep.csv" 2>> "$tmp/err" &&
		   [ "$(($(wc -l < "$tmp/sweep.csv") - 1))" -eq "$n" ]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "docs grid example $(basename "$f") failed:"
			cat "$tmp/err"
		fi
		continue
	elif grep -q '^plumb_calibration:' "$f"; then
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
# Every command of a plain ``` block of docs/cli-calibrate.md that runs `plumb
# calibrate` runs and exits 0, in order (a later `--calib FILE` reads the
# file an earlier one wrote), in a directory holding scenarios/ and
# validation/ as the repository does.
run="$tmp/run"
mkdir -p "$run"
ln -s "$(pwd)/scenarios" "$run/scenarios"
ln -s "$(pwd)/validation" "$run/validation"
awk -v dir="$tmp" '
	/^```/ && inb == 1 { inb = 0; close(file); next }
	/^```/ && inb == 2 { inb = 0; next }
	/^```[ \t]*$/ { inb = 1; n++; file = dir "/cli-cmd-" n ".sh"; printf "" > file; next }
	/^```/ { inb = 2; next }
	inb == 1 { print >> file }
' docs/cli-calibrate.md
plumb=$(pwd)/plumb
for f in "$tmp"/cli-cmd-*.sh; do
	[ -e "$f" ] || continue
	grep -q '^plumb calibrate' "$f" || continue
	# join continued lines, one command a line
	# (a "# exit N" line before a command: it is documented to exit N)
	want=0
	awk '{ if (sub(/\\$/, "")) { line = line $0; next } print line $0; line = "" }' "$f" |
	while IFS= read -r cmd; do
		case $cmd in
		"# exit "[0-9]*) want=${cmd#\# exit }; continue ;;
		plumb\ *) ;;
		*) continue ;;
		esac
		(cd "$run" && eval "\"$plumb\"${cmd#plumb}") > /dev/null 2> "$tmp/err"
		got=$?
		if [ "$got" -eq "$want" ]; then
			echo ok
			want=0
		else
			echo "(exit $got, documented $want)" >> "$tmp/err"
			want=0
			echo "docs command failed: $cmd" >&2
			cat "$tmp/err" >&2
			echo fail
		fi
	done > "$tmp/res"
	pass=$((pass + $(grep -c '^ok' "$tmp/res")))
	fail=$((fail + $(grep -c '^fail' "$tmp/res")))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
