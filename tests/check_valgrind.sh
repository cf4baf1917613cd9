#!/bin/sh
# tests/check_valgrind.sh - the `make check-valgrind` tier: the CLI suites
# (golden runs of every command on the bundled scenarios, the bad inputs,
# the repeat runs) with every plumb process under valgrind memcheck.
# Any memory error or leak (definite, indirect or possible) makes that
# process exit 99, which the suite reports as a failure; still-reachable
# blocks (the compiled-in catalogs parsed once) are not leaks.
#
#   sh tests/check_valgrind.sh [PLUMB]      (PLUMB defaults to ./plumb)
LC_ALL=C
export LC_ALL
bin=${1:-./plumb}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
if ! command -v valgrind >/dev/null 2>&1; then
	echo "check-valgrind: valgrind not installed (sh scripts/install-deps.sh)" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-vg.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cat >"$tmp/plumb" <<WRAP
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full \\
	--show-leak-kinds=definite,indirect,possible \\
	--errors-for-leak-kinds=definite,indirect,possible \\
	--log-file="$tmp/vg.%p.log" "$bin" "\$@"
WRAP
chmod +x "$tmp/plumb"
PLUMB=$tmp/plumb
export PLUMB
fail=0
# Two lanes on the machine's two cores: the golden runs beside the bad
# inputs and then the repeat runs (each suite in its own temporary
# directory); each lane's output is printed when both are done.
lane() {
	name=$1
	shift
	for suite in "$@"; do
		echo "check-valgrind: sh $suite"
		if sh "$suite"; then :; else echo "check-valgrind: FAILED: sh $suite"; echo x >> "$tmp/$name.failed"; fi
	done > "$tmp/$name.out" 2>&1
}
lane a tests/golden/run.sh &
lane b tests/bad_inputs.sh tests/repeat.sh &
wait
for name in a b; do
	cat "$tmp/$name.out"
	if [ -s "$tmp/$name.failed" ]; then
		fail=$((fail + $(wc -l < "$tmp/$name.failed")))
	fi
done
# Every report, even one whose process status a suite did not look at.
for log in "$tmp"/vg.*.log; do
	[ -s "$log" ] || continue
	fail=$((fail + 1))
	echo "check-valgrind: report in $(basename "$log"):"
	head -n 40 "$log" | sed 's/^/    /'
done
if [ "$fail" -eq 0 ]; then
	echo "check-valgrind: no errors, no leaks"
else
	echo "check-valgrind: $fail failure(s)"
	exit 1
fi
