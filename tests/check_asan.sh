#!/bin/sh
# tests/check_asan.sh - the `make check-asan` tier: the unit tests, the CLI
# suites and the fuzz replays on the AddressSanitizer + UndefinedBehavior-
# Sanitizer build in DIR (built by `make check-asan`, which also compiles
# with -fno-sanitize-recover=all, so any report ends the process).
# LeakSanitizer is on: a leak turns exit status 0 or 3 into 23, which every
# suite reports as a failure (tests/lsan.supp lists the third-party caches
# that are never freed).
#
#   sh tests/check_asan.sh [DIR]      (DIR defaults to build-asan)
LC_ALL=C
export LC_ALL
dir=${1:-build-asan}
ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_string_checks=1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
PLUMB=$dir/plumb
export PLUMB
fail=0
run() {
	echo "check-asan: $*"
	"$@" || { fail=$((fail + 1)); echo "check-asan: FAILED: $*"; }
}
run "$dir/unit-tests"
run sh tests/golden/run.sh
run sh tests/import_roundtrip.sh "$PLUMB"
run sh tests/bad_inputs.sh
run sh tests/repeat.sh
run sh tests/fuzz/replay.sh "$dir"
if [ "$fail" -eq 0 ]; then
	echo "check-asan: all suites clean"
else
	echo "check-asan: $fail suite(s) failed"
	exit 1
fi
