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
run() {
	echo "check-valgrind: $*"
	"$@" || { fail=$((fail + 1)); echo "check-valgrind: FAILED: $*"; }
}
run sh tests/golden/run.sh
run sh tests/bad_inputs.sh
run sh tests/repeat.sh
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
