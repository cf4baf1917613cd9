#!/bin/sh
# tests/resume_kill.sh - a sweep killed at random points while it resumes
# (models/sweep/run.c) never loses a row it had on disk and ends with the
# bytes of an uninterrupted run.
#
# PLUMB_SWEEP_CRASH_AT=K makes the sweep kill itself with SIGKILL at its
# K-th output step (docs/testing.md): a row, a flush, an fsync, a rename,
# in the rewrite of FILE.partial, in the copy into FILE and between the
# rename of FILE and the removal of FILE.partial. Each episode starts with
# no output, alternates CSV and JSON, and runs `plumb sweep` with a random K
# until a run completes; the test goes on until KILLS (default 100) runs
# were killed. After every kill:
#   - the rows on disk (FILE and FILE.partial, whole lines) are a superset
#     of those before the run (no work lost);
# after every episode:
#   - FILE is byte-identical to an uninterrupted run's;
#   - no FILE.partial and no temporary file is left.
# A few runs are also killed by a plain SIGKILL after a random delay.
#   sh tests/resume_kill.sh     PLUMB names the binary (default ./plumb),
#                               KILLS the kill count, SEED the random seed
# Ends with "resume kills: N killed runs (R inside the rewrite of FILE.partial),
# M episodes, F failed".
LC_ALL=C
export LC_ALL
PLUMB=${PLUMB:-./plumb}
case $PLUMB in /*) ;; *) PLUMB=$(pwd)/$PLUMB ;; esac
KILLS=${KILLS:-100}
SEED=${SEED:-$$}
SCN=$(pwd)/scenarios
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-resume.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 2
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 16 points, two of them with a value that needs quoting, one that does not fit
cat >grid.yaml <<EOF
plumb_grid: 1
name: resume-kill
set: {layout: tp8, input: 512, output: 128}
axes:
  scenario:
    - {value: $SCN/proxmox-vm-8x-rtxpro6000.yaml, note: "vm, \"quoted\""}
    - {value: $SCN/baremetal-8x-rtxpro6000.yaml, note: "=SUM(A1)"}
  constants.kmin_gemm_us: [4, 8.22]
  concurrency: [1, 2, 8, 64]
EOF
for fmt in csv json; do
	"$PLUMB" sweep grid.yaml --fresh --format $fmt -j 2 --no-progress -o ref.$fmt 2>err ||
		{ cat err; echo "FAIL: the uninterrupted $fmt run"; exit 1; }
done

# R: a random number in [1, $1] (a linear congruential generator, seeded)
rnd_state=$((SEED % 2147483648))
rnd() {
	rnd_state=$(((rnd_state * 1103515245 + 12345) % 2147483648))
	R=$((rnd_state / 65536 % $1 + 1))
}

# FILE without a torn last line (one without its newline yet)
whole() { [ -f "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" != '\n' ] && sed '$d' "$1" || cat "$1" 2>/dev/null; }
# the rows of FILE and FILE.partial, sorted and unique
rows_whole() {
	for f in "$1" "$1.partial"; do
		[ -f "$f" ] || continue
		whole "$f" | awk 'NR > 1' | grep -v '^ *\]' | grep -v '^}' | grep -v '^  "' | grep -v '^{' |
			sed 's/,$//; s/^    //'
	done | grep -v '^$' | sort -u
}

kills=0
inrw=0
episodes=0
runs=0
while [ $kills -lt "$KILLS" ]; do
	episodes=$((episodes + 1))
	fmt=csv
	[ $((episodes % 2)) -eq 0 ] && fmt=json
	out=out.$fmt
	rm -f out.*
	: >before
	n=0
	while :; do
		n=$((n + 1))
		runs=$((runs + 1))
		if [ $((runs % 10)) -eq 0 ]; then
			# a plain SIGKILL after a random delay (0-40 ms)
			"$PLUMB" sweep grid.yaml --format $fmt -j 2 --no-progress -o $out 2>err &
			pid=$!
			rnd 40
			sleep "$(awk -v r=$R 'BEGIN { printf "%.3f", r / 1000 }')"
			kill -KILL $pid 2>/dev/null
			wait $pid 2>/dev/null
			rc=$?
			k=
		else
			# the first run of an episode is always stopped before its end
			# (it writes more than 45 times), the others anywhere: a run
			# that carries all 16 rows makes some 130 steps
			if [ $n -eq 1 ]; then rnd 45; else rnd 160; fi
			k=$R
			# steps of the rewrite of FILE.partial: the header, each
			# carried row (CSV 3, JSON 4), a line break, flush and fsync
			c=0
			[ -f $out.partial ] && c=$(whole $out.partial | grep -c '^ *[{/'"'"']')
			per=3
			[ $fmt = json ] && per=4
			[ $c -gt 0 ] && [ $k -le $((1 + per * c + 3)) ] && inrw=$((inrw + 1))
			PLUMB_SWEEP_CRASH_AT=$k "$PLUMB" sweep grid.yaml --format $fmt -j 2 --no-progress \
				-o $out 2>err
			rc=$?
		fi
		rows_whole $out >after
		if [ $rc -eq 137 ]; then
			kills=$((kills + 1))
			lost=$(comm -23 before after | wc -l)
			[ "$lost" -eq 0 ] ||
				bad "episode $episodes run $n ($fmt, killed at ${k:-a delay}): $lost rows lost"
			mv after before
		elif [ $rc -eq 0 ]; then
			break
		else
			cat err
			bad "episode $episodes run $n ($fmt): exit $rc"
			break
		fi
		if [ $n -gt 200 ]; then
			bad "episode $episodes ($fmt): no complete run in 200"
			break
		fi
	done
	cmp -s $out ref.$fmt || { bad "episode $episodes ($fmt): $out differs from an uninterrupted run"; [ -n "$KEEP" ] && cp $out "$KEEP/differs.$episodes.$fmt"; cp ref.$fmt "$KEEP/"; }
	# a killed run's temporary files (SIGKILL cannot be caught) are removed
	# by the next run on the same output
	left=$(ls | grep "^out\\." | grep -v "^$out\$")
	[ -z "$left" ] || bad "episode $episodes ($fmt): left behind: $left"
done
echo "resume kills: $kills killed runs ($inrw inside the rewrite of FILE.partial), $episodes episodes, $fail failed (seed $SEED)"
[ $fail -eq 0 ]
