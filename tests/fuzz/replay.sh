#!/bin/sh
# tests/fuzz/replay.sh - feed every seed of tests/fuzz/corpus/<target>/ and
# every regression input of tests/fuzz/regress/<target>/ to that target's
# replay binary DIR/replay/<target> (tests/fuzz/replay.c), so inputs that
# once crashed a parser keep being run by `make check` and, under ASan and
# UBSan, by `make check-asan`. Ends with "N passed, M failed".
#
#   sh tests/fuzz/replay.sh DIR
LC_ALL=C
export LC_ALL
dir=${1:?usage: sh tests/fuzz/replay.sh DIR}
pass=0
fail=0
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	bin=$dir/replay/$t
	if [ ! -x "$bin" ]; then
		fail=$((fail + 1))
		echo "FAIL: $bin not built"
		continue
	fi
	for sub in corpus regress; do
		d=tests/fuzz/$sub/$t
		[ -d "$d" ] || continue
		# shellcheck disable=SC2046 # file names have no blanks
		if "$bin" $(find "$d" -type f | sort) </dev/null >/dev/null 2>"$dir/replay/$t.$sub.err"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL: $t on $d (exit $?)"
			head -n 20 "$dir/replay/$t.$sub.err" | sed 's/^/    /'
		fi
	done
done
echo "fuzz replay: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
