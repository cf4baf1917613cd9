#!/bin/sh
# tests/fuzz/run.sh - run every libFuzzer target built in DIR/fuzz/ for
# SECONDS seconds each (docs/testing.md "Fuzzing"), FUZZ_JOBS (default 1)
# at a time, from libFuzzer seed FUZZ_SEED (default 0: a new random seed each
# run; CI sets 1 so its runs mutate the same way). `make fuzz FUZZ_SECONDS=N`
# builds the targets and calls this.
#
#   sh tests/fuzz/run.sh DIR SECONDS [TARGET...]
#
# Each target starts from its seeds in tests/fuzz/corpus/<target>/ and the
# regression inputs in tests/fuzz/regress/<target>/; inputs it finds go to
# DIR/corpus/<target>/ (kept between runs, never committed). A crash, leak,
# sanitizer report or timeout leaves its input in DIR/crashes/ and fails the
# run: copy it to tests/fuzz/regress/<target>/, fix the bug, and `make check`
# replays it from then on. Run from the repository root (fuzz_valid reads the
# files its cases name relative to it). Ends with "N passed, M failed".
LC_ALL=C
export LC_ALL
dir=${1:?usage: sh tests/fuzz/run.sh DIR SECONDS [TARGET...]}
secs=${2:?usage: sh tests/fuzz/run.sh DIR SECONDS [TARGET...]}
shift 2
targets=$*
[ -n "$targets" ] || targets=$(cd "$dir/fuzz" 2>/dev/null && ls)
[ -n "$targets" ] || { echo "fuzz: no targets in $dir/fuzz; run 'make fuzz-build'" >&2; exit 2; }
mkdir -p "$dir/crashes"
jobs=${FUZZ_JOBS:-1}
seed=${FUZZ_SEED:-0}

# fuzz_one TARGET: run it; its verdict goes to DIR/crashes/TARGET.result.
fuzz_one() {
	t=$1
	bin=$dir/fuzz/$t
	work=$dir/corpus/$t
	mkdir -p "$work"
	seeds=tests/fuzz/corpus/$t
	regress=tests/fuzz/regress/$t
	[ -d "$regress" ] || regress=
	log=$dir/crashes/$t.log
	# -rss_limit_mb: a 16 MiB input may take a few hundred MiB to refuse;
	# -timeout: one input taking longer than 10 s is a hang.
	if "$bin" -seed="$seed" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -close_fd_mask=3 \
		-artifact_prefix="$dir/crashes/$t-" "$work" "$seeds" $regress \
		</dev/null >"$log" 2>&1; then
		{
			echo "ok"
			echo "fuzz: $t for ${secs}s: $(grep -E '^stat::number_of_executed_units' "$log" | sed 's/.*: //') runs, no crash"
		} >"$dir/crashes/$t.result"
	else
		{
			echo "FAIL"
			echo "FAIL: $t (log: $log; input: $dir/crashes/$t-*)"
			grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 8 | sed 's/^/    /'
		} >"$dir/crashes/$t.result"
	fi
}

# FUZZ_JOBS targets at a time (CI sets 2 on two cores).
n=0
for t in $targets; do
	echo "fuzz: $t for ${secs}s"
	fuzz_one "$t" &
	n=$((n + 1))
	if [ "$n" -ge "$jobs" ]; then
		wait
		n=0
	fi
done
wait
pass=0
fail=0
for t in $targets; do
	if [ "$(head -n 1 "$dir/crashes/$t.result" 2>/dev/null)" = ok ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
	tail -n +2 "$dir/crashes/$t.result" 2>/dev/null || echo "FAIL: $t gave no result"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
