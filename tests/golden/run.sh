#!/bin/sh
# tests/golden/run.sh - golden runs of the plumb CLI (docs/testing.md).
#
#   sh tests/golden/run.sh            compare against the stored outputs
#   sh tests/golden/run.sh --update   rewrite the stored outputs instead
#
# Run from the repository root with ./plumb built. Checks, in order:
#   1. every scenarios/*.yaml: `plumb topo` in each variant below, stdout
#      byte-identical to tests/golden/<name>.<variant>.out, exit status 0;
#   2. every tests/bad/*.yaml: exit status and stderr exactly as in
#      tests/bad/<name>.expected (first line "exit: N", then the stderr text);
#   3. every command listed by `plumb --help` answers --help and is
#      documented in docs/cli.md or a docs/cli-*.md page; usage and I/O errors give exit 2 and 4;
#   4. determinism (two runs agree) and atomic -o output;
#   5. predict without --calib brackets every point with the defaults' interval;
#   6. `plumb constants --format yaml` pasted into a scenario loads and gives
#      the same values;
#   7. `plumb constants` of a scenario whose GPU has per-GPU catalog values
#      (tests/data/constants/*.yaml) names the source of each value in force,
#      table, json and yaml, stdout as tests/golden/constants/<name>.<fmt>.out.
# tests/bad/pending/ holds bad inputs whose message should read better; their
# .expected file has the proposed text. Only their exit status counts; when
# the text matches too, the script says the case can move to tests/bad/.
# (YAML examples in docs/ are checked by tests/docs_examples.sh.)
# Ends with exactly one line "N passed, M failed"; exit status 1 when M > 0.
# Variants: text (default), json, nccl-xml, acs-off (--acs off), and for a
# VM also view-host (--view host); xfer (plumb xfer: p2pBandwidthLatencyTest
# matrices), coll (plumb coll: an nccl-tests all_reduce table) and predict
# (plumb predict: CSV for concurrency 1 and 8; Llama 3.1 70B on 2-GPU boxes).

LC_ALL=C
export LC_ALL
unset NCCL_P2P_LEVEL NCCL_P2P_DISABLE NCCL_SHM_DISABLE

PLUMB=${PLUMB:-./plumb}
GOLDEN=tests/golden
BAD=tests/bad
update=0
case ${1:-} in
--update) update=1 ;;
"") ;;
*) echo "usage: sh tests/golden/run.sh [--update]" >&2; exit 2 ;;
esac

if [ ! -x "$PLUMB" ]; then
	echo "run.sh: $PLUMB not found; run 'make' first (from the repository root)" >&2
	exit 2
fi

pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# compare EXPECTED_FILE ACTUAL_FILE LABEL: diff -u on mismatch.
compare() {
	if [ ! -f "$1" ]; then
		bad "$3: missing $1 (run 'make golden-update' and review the new file)"
	elif cmp -s "$1" "$2"; then
		ok
	else
		bad "$3: output differs from $1"
		diff -u "$1" "$2" | sed 's/^/    /' | head -n 60
	fi
}

# store SRC DEST: --update mode, copy and report only real changes.
store() {
	if [ -f "$2" ] && cmp -s "$1" "$2"; then
		ok
		return
	fi
	[ -f "$2" ] && echo "updated: $2" || echo "created: $2"
	cp "$1" "$2"
	ok
}

# ---- 1. bundled scenarios -------------------------------------------------
nscn=0
baremetal=
for scn in scenarios/*.yaml; do
	[ -f "$scn" ] || continue
	nscn=$((nscn + 1))
	name=$(basename "$scn" .yaml)
	"$PLUMB" topo "$scn" >"$tmp/text" 2>"$tmp/err"
	rc=$?
	variants="text json nccl-xml acs-off xfer coll predict"
	if head -n 1 "$tmp/text" | grep -q '(.*, VM'; then
		variants="$variants view-host"
	else
		baremetal=$scn
	fi
	for v in $variants; do
		cmd=topo
		case $v in
		text) args= ;;
		json) args="--format json" ;;
		nccl-xml) args="--format nccl-xml" ;;
		acs-off) args="--acs off" ;;
		view-host) args="--view host" ;;
		xfer) cmd=xfer args= ;;
		coll) cmd=coll args="-b 8 -e 64M -f 8 --verbose" ;;
		predict) cmd=predict args="--concurrency 1,8 --output 128 --format csv --draws 0"
			# GLM-5 does not fit on two GPUs (that is a bad input now).
			case $name in *-2x-*) args="$args --model llama-3.1-70b" ;; esac ;;
		esac
		out=$tmp/$name.$v.out
		# shellcheck disable=SC2086 # args is a word list on purpose
		"$PLUMB" $cmd "$scn" $args >"$out" 2>"$tmp/err"
		rc=$?
		label="plumb $cmd $scn${args:+ $args}"
		if [ "$rc" -ne 0 ]; then
			bad "$label: exit status $rc, expected 0"
			sed 's/^/    /' "$tmp/err"
			continue
		fi
		if [ -s "$tmp/err" ]; then
			bad "$label: unexpected stderr"
			sed 's/^/    /' "$tmp/err"
			continue
		fi
		if [ "$update" -eq 1 ]; then
			store "$out" "$GOLDEN/$name.$v.out"
		else
			compare "$GOLDEN/$name.$v.out" "$out" "$label"
		fi
	done
done
[ "$nscn" -gt 0 ] || bad "no scenarios/*.yaml found (run from the repository root)"

# Every Hugging Face config of tests/data/hf on the H200 box: predict's JSON
# (model_info: parameters, layer kinds, each weight group's format) at batch
# 1 and 32, or its refusal; tests/golden/models/<dir>.out holds the exit
# status, stdout and stderr.
for d in tests/data/hf/*/; do
	[ -d "$d" ] || continue
	name=$(basename "$d")
	out=$tmp/model.$name.out
	"$PLUMB" predict scenarios/hgx-8x-h200.yaml --model "${d%/}" --batch 1,32 \
		--context 4096 --format json --draws 0 >"$tmp/stdout" 2>"$tmp/err"
	{ echo "exit: $?"; cat "$tmp/stdout" "$tmp/err"; } >"$out"
	if [ "$update" -eq 1 ]; then
		mkdir -p "$GOLDEN/models"
		store "$out" "$GOLDEN/models/$name.out"
	else
		compare "$GOLDEN/models/$name.out" "$out" "plumb predict --model ${d%/}"
	fi
done

# The engine stacks (docs/model-kernels.md "Engine stacks"): GLM-5 on the bare-metal
# RTX PRO 6000 box under vLLM, at 0 and 32k tokens of cached context: the
# stack line, the other engines' answers, and the table.
for v in ctx0:0 ctx32k:32768; do
	name=${v%%:*}
	ctx=${v#*:}
	out=$tmp/engine.$name.out
	"$PLUMB" predict scenarios/baremetal-8x-rtxpro6000.yaml --engine vllm --concurrency 1,8 \
		--context "$ctx" --input $((ctx + 1024)) --output 128 --draws 0 >"$tmp/stdout" 2>"$tmp/err"
	{ echo "exit: $?"; cat "$tmp/stdout" "$tmp/err"; } >"$out"
	if [ "$update" -eq 1 ]; then
		mkdir -p "$GOLDEN/engines"
		store "$out" "$GOLDEN/engines/vllm-$name.out"
	else
		compare "$GOLDEN/engines/vllm-$name.out" "$out" "plumb predict --engine vllm --context $ctx"
	fi
done

# plumb plan (docs/cli-predict.md "plumb plan"): GLM-5 on the bare-metal and switch
# RTX PRO 6000 boxes against TTFT p90 2 s and TPOT p90 50 ms, short outputs:
# the table (costs, verdicts, reasons, frontier) and the JSON rows.
for fmt in table json; do
	out=$tmp/plan.$fmt.out
	"$PLUMB" plan scenarios/baremetal-8x-rtxpro6000.yaml scenarios/switch-8x-rtxpro6000.yaml \
		--ttft-p90 2000 --tpot-p90 50 --concurrency 1,16,64 --output 128 --format $fmt \
		>"$tmp/stdout" 2>"$tmp/err"
	{ echo "exit: $?"; cat "$tmp/stdout" "$tmp/err"; } >"$out"
	if [ "$update" -eq 1 ]; then
		mkdir -p "$GOLDEN/plan"
		store "$out" "$GOLDEN/plan/glm5-rtxpro6000.$fmt.out"
	else
		compare "$GOLDEN/plan/glm5-rtxpro6000.$fmt.out" "$out" "plumb plan --format $fmt"
	fi
done

# Golden files whose scenario is gone would never be checked again.
for g in "$GOLDEN"/*.out; do
	[ -f "$g" ] || continue
	name=$(basename "$g" .out)
	name=${name%.*}
	[ -f "scenarios/$name.yaml" ] && continue
	if [ "$update" -eq 1 ]; then
		echo "removed: $g (no scenarios/$name.yaml)"
		rm -f "$g"
	else
		bad "$g: no scenarios/$name.yaml (stale golden file; 'make golden-update' removes it)"
	fi
done

# ---- 2. malformed scenarios -------------------------------------------------
for y in "$BAD"/*.yaml; do
	[ -f "$y" ] || continue
	exp=${y%.yaml}.expected
	"$PLUMB" topo "$y" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	{ echo "exit: $rc"; cat "$tmp/err"; } >"$tmp/actual"
	if [ "$rc" -eq 0 ]; then
		bad "plumb topo $y: loaded without error (a bad scenario must fail)"
		continue
	fi
	if [ "$rc" -gt 5 ]; then
		bad "plumb topo $y: exit status $rc (crash?), expected a documented status"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	if [ -s "$tmp/out" ]; then
		bad "plumb topo $y: wrote to stdout on failure"
		continue
	fi
	if [ "$update" -eq 1 ]; then
		store "$tmp/actual" "$exp"
	else
		compare "$exp" "$tmp/actual" "plumb topo $y"
	fi
done
npending=0
for y in "$BAD"/pending/*.yaml; do
	[ -f "$y" ] || continue
	exp=${y%.yaml}.expected
	"$PLUMB" topo "$y" >/dev/null 2>"$tmp/err"
	rc=$?
	# The proposed text names the file where it will live, tests/bad/.
	{ echo "exit: $rc"; sed "s|$BAD/pending/|$BAD/|" "$tmp/err"; } >"$tmp/actual"
	want=$(head -n 1 "$exp" 2>/dev/null)
	if [ "$want" != "exit: $rc" ]; then
		bad "plumb topo $y: '$want' expected, got exit status $rc"
		continue
	fi
	ok
	if cmp -s "$exp" "$tmp/actual"; then
		echo "note: $y now gives the proposed message; move it and its .expected to $BAD/"
	else
		npending=$((npending + 1))
	fi
done
[ "$npending" -eq 0 ] ||
	echo "pending: $npending bad inputs in $BAD/pending/ await the message in their .expected"
for e in "$BAD"/*.expected "$BAD"/pending/*.expected; do
	[ -f "$e" ] || continue
	[ -f "${e%.expected}.yaml" ] || bad "$e: no ${e%.expected}.yaml next to it"
done

# ---- 3. command table: --help, docs, exit statuses ------------------------
# expect_rc RC LABEL CMD...: run CMD, check the exit status, stdout to $tmp/out.
expect_rc() {
	want=$1
	label=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$label: exit status $rc, expected $want"
		sed 's/^/    /' "$tmp/err"
		return 1
	fi
	ok
	return 0
}

expect_rc 0 "plumb --help" "$PLUMB" --help
cp "$tmp/out" "$tmp/help"
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^[ \t]*$/ { exit }
	    on && NF { print $1 }' "$tmp/help")
if [ -n "$cmds" ]; then ok; else bad "plumb --help lists no commands under 'Commands:'"; fi
for c in $cmds; do
	if expect_rc 0 "plumb $c --help" "$PLUMB" "$c" --help; then
		if [ -s "$tmp/out" ]; then ok; else bad "plumb $c --help: empty output"; fi
	fi
	if [ -f docs/cli.md ]; then
		if cat docs/cli.md docs/cli-*.md 2>/dev/null |
		   grep -Eq "plumb $c([^a-z0-9_-]|\$)|^#+ (.*[^a-z0-9_-])?$c([^a-z0-9_-]|\$)"; then
			ok
		else
			bad "command '$c' is not documented in docs/cli.md or docs/cli-*.md"
		fi
	fi
done
[ -f docs/cli.md ] || echo "note: docs/cli.md does not exist yet; skipped the command documentation check"

first=
for scn in scenarios/*.yaml; do
	[ -f "$scn" ] && { first=$scn; break; }
done

expect_rc 2 "plumb (unknown command)" "$PLUMB" no-such-command
expect_rc 2 "plumb topo (no scenario)" "$PLUMB" topo
expect_rc 2 "plumb topo --format bogus" "$PLUMB" topo "$first" --format bogus
expect_rc 2 "plumb topo --no-such-option" "$PLUMB" topo "$first" --no-such-option
[ -z "$baremetal" ] ||
	expect_rc 2 "plumb topo $baremetal --view guest (bare metal)" \
		"$PLUMB" topo "$baremetal" --view guest
expect_rc 4 "plumb topo (missing file)" "$PLUMB" topo "$tmp/does-not-exist.yaml"
if [ -s "$tmp/out" ]; then bad "plumb topo (missing file): wrote to stdout"; else ok; fi

# "--name=VALUE" is "--name VALUE" (getopt_long), before or after the file
if [ -n "$first" ]; then
	for pair in "topo|--format|json" "topo|--acs|off" "xfer|--bytes|1M" "coll|--minbytes|1M" \
		    "constants|--format|yaml" "trace|--layout|tp4pp2" \
		    "predict|--concurrency|4"; do
		c=${pair%%|*} rest=${pair#*|} o=${rest%%|*} v=${rest#*|}
		"$PLUMB" "$c" "$first" "$o" "$v" >"$tmp/sep" 2>&1
		rc1=$?
		"$PLUMB" "$c" "$o=$v" "$first" >"$tmp/eq" 2>&1
		rc2=$?
		if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s "$tmp/sep" "$tmp/eq"; then
			ok
		else
			bad "plumb $c $o=$v FILE (exit $rc2) differs from plumb $c FILE $o $v (exit $rc1)"
			diff -u "$tmp/sep" "$tmp/eq" | sed 's/^/    /' | head -n 20
		fi
	done
fi

# ---- 4. determinism and atomic output -------------------------------------
if [ -n "$first" ]; then
	for f in text json nccl-xml; do
		"$PLUMB" topo "$first" --format "$f" >"$tmp/run1" 2>/dev/null
		"$PLUMB" topo "$first" --format "$f" >"$tmp/run2" 2>/dev/null
		if cmp -s "$tmp/run1" "$tmp/run2"; then
			ok
		else
			bad "plumb topo $first --format $f: two runs differ"
			diff -u "$tmp/run1" "$tmp/run2" | sed 's/^/    /' | head -n 20
		fi
	done

	mkdir "$tmp/o"
	if expect_rc 0 "plumb topo $first -o FILE" "$PLUMB" topo "$first" -o "$tmp/o/topo.txt"; then
		"$PLUMB" topo "$first" >"$tmp/stdout.txt" 2>/dev/null
		if cmp -s "$tmp/o/topo.txt" "$tmp/stdout.txt"; then
			ok
		else
			bad "plumb topo $first -o FILE: file differs from stdout output"
		fi
		if [ -s "$tmp/out" ]; then bad "plumb topo -o FILE: also wrote to stdout"; else ok; fi
	fi
	printf 'previous contents\n' >"$tmp/o/keep.txt"
	cp "$tmp/o/keep.txt" "$tmp/keep.orig"
	badscn=
	for y in "$BAD"/*.yaml; do
		[ -f "$y" ] && { badscn=$y; break; }
	done
	if [ -n "$badscn" ]; then
		expect_rc 3 "plumb topo $badscn -o existing" "$PLUMB" topo "$badscn" -o "$tmp/o/keep.txt"
		if cmp -s "$tmp/o/keep.txt" "$tmp/keep.orig"; then
			ok
		else
			bad "plumb topo $badscn -o FILE: a failing run changed the existing file"
		fi
	fi
	# A commit that cannot happen (no such directory; the name is a
	# directory) fails with exit 4 and leaves nothing behind.
	expect_rc 4 "plumb topo $first -o MISSING_DIR/FILE" \
		"$PLUMB" topo "$first" -o "$tmp/o/no-such-dir/topo.txt"
	mkdir "$tmp/o/adir"
	expect_rc 4 "plumb topo $first -o DIRECTORY" "$PLUMB" topo "$first" -o "$tmp/o/adir"
	if [ -z "$(ls -A "$tmp/o/adir")" ]; then
		ok
	else
		bad "plumb topo -o DIRECTORY: wrote into the directory"
	fi
	left=$(find "$tmp/o" -name '*.tmp.*' | head -n 5)
	if [ -z "$left" ]; then
		ok
	else
		bad "temporary files left behind by -o: $left"
	fi
fi

# ---- 5. intervals of uncalibrated predictions ------------------------------
# Without --calib, predict gives the interval of the defaults: a 5th and 95th
# percentile around every point (the defaults are the medians of the draws,
# each times the model error: 32 draws, as a handful may all fall below),
# and the model error's alone when the scenario sets every step constant.
"$PLUMB" predict scenarios/hgx-8x-h200.yaml --concurrency 1,64 --output 128 --format csv --draws 32 \
	> "$tmp/iv.csv" 2> "$tmp/iv.err"
if awk -F, 'NR == 1 { if ($(NF - 1) != "tok_s_total_p5" || $NF != "tok_s_total_p95") exit 1; next }
	{ if (!($(NF - 1) < $6 && $6 <= $NF)) exit 1 }
	END { if (NR != 3) exit 1 }' "$tmp/iv.csv"; then
	ok
else
	bad "plumb predict without --calib: no interval around each point (see $tmp/iv.csv)"
fi
if "$PLUMB" predict scenarios/hgx-8x-h200.yaml --concurrency 1 --output 128 --format csv --draws 0 |
	head -1 | grep -q p95; then
	bad "plumb predict --draws 0 still prints an interval"
else
	ok
fi

# compare's "depends on" lines carry the speed-up's paired 90% range, which
# holds the speed-up; --draws 0 leaves it out.
"$PLUMB" compare scenarios/proxmox-vm-8x-rtxpro6000.yaml scenarios/baremetal-8x-rtxpro6000.yaml \
	--layout tp8 --concurrency 1,64 --output 128 --draws 8 > "$tmp/dep.txt" 2>&1
if sed -n 's/.*: x\([0-9.]*\) (90%: x\([0-9.]*\)-\([0-9.]*\)) and x\([0-9.]*\) (90%: x\([0-9.]*\)-\([0-9.]*\)) as predicted above\./\1 \2 \3 \4 \5 \6/p' \
	"$tmp/dep.txt" | awk '{ n++; if (!($2 <= $1 && $1 <= $3 && $5 <= $4 && $4 <= $6 && $2 < $3)) exit 1 }
	END { if (n != 1) exit 1 }'; then
	ok
else
	bad "plumb compare: the speed-up's range is missing or does not hold it (see $tmp/dep.txt)"
fi
# and so does every speed-up of the table
if sed -n 's/.*(x\([0-9.]*\), x\([0-9.]*\)-\([0-9.]*\))$/\1 \2 \3/p' "$tmp/dep.txt" |
	awk '{ n++; if (!($2 <= $1 && $1 <= $3 && $2 < $3)) exit 1 } END { if (n != 2) exit 1 }'; then
	ok
else
	bad "plumb compare --draws: a speed-up of the table lacks its range or is outside it (see $tmp/dep.txt)"
fi
if "$PLUMB" compare scenarios/proxmox-vm-8x-rtxpro6000.yaml scenarios/baremetal-8x-rtxpro6000.yaml \
	--layout tp8 --concurrency 1,64 --output 128 --draws 0 2>&1 | grep 'as predicted above' | grep -q '90%'; then
	bad "plumb compare --draws 0 still prints the speed-up's range"
else
	ok
fi

# A VM nobody measured (tests/data/vm: the seed VM's box without its fitted
# constant, a user's 4x L40S guest) draws its host path from the measured
# VMs' prior: the speed-up's range is never zero-width, the seed box's at
# one request is at least x1.5 wide and holds the measured x4.56 (the seed
# VM is one of the VMs the prior is built from), and the output says the
# path is unmeasured and how to measure it.
"$PLUMB" compare tests/data/vm/proxmox-vm-8x-rtxpro6000-unmeasured.yaml \
	scenarios/baremetal-8x-rtxpro6000.yaml --layout tp8 --concurrency 1,64 > "$tmp/vmu.txt" 2>&1
if sed -n 's/.*: x[0-9.]* (90%: x\([0-9.]*\)-\([0-9.]*\)) and .*as predicted above\./\1 \2/p' \
	"$tmp/vmu.txt" | awk '{ n++; if (!($2 - $1 >= 1.5 && $1 <= 4.56 && 4.56 <= $2)) exit 1 }
	END { if (n != 1) exit 1 }' &&
	grep -q "host path is unmeasured.*all_reduce_perf -b 8 -e 128M -f 2 -g 8" "$tmp/vmu.txt"; then
	ok
else
	bad "plumb compare: an unmeasured VM's range or warning is missing (see $tmp/vmu.txt)"
fi
"$PLUMB" compare tests/data/vm/proxmox-vm-4x-l40s.yaml tests/data/vm/l40s-4x-baremetal.yaml \
	--model llama-3.1-70b --weights fp8 --layout tp4 --concurrency 1,64 > "$tmp/vml.txt" 2>&1
if sed -n 's/.*: x[0-9.]* (90%: x\([0-9.]*\)-\([0-9.]*\)) and x[0-9.]* (90%: x\([0-9.]*\)-\([0-9.]*\)) as predicted above\./\1 \2 \3 \4/p' \
	"$tmp/vml.txt" | awk '{ n++; if (!($2 > $1 + 0.05 && $4 > $3 + 0.05)) exit 1 }
	END { if (n != 1) exit 1 }' && grep -q "host path is unmeasured" "$tmp/vml.txt"; then
	ok
else
	bad "plumb compare: the unmeasured L40S guest's range is zero-width or unwarned (see $tmp/vml.txt)"
fi

# ---- 6. the constants block pastes into a scenario -------------------------
# A scenario without `constants:` plus the block `plumb constants --format
# yaml` prints for it: it loads, and its block (the comment lines aside,
# which now say every value is set) is the same.
scn=scenarios/workstation-2x-rtx5090.yaml
if grep -q '^constants:' "$scn"; then
	bad "$scn has a constants: block; pick another scenario for this check"
else
	"$PLUMB" constants "$scn" --format yaml > "$tmp/k1.yaml" 2>&1
	cat "$scn" "$tmp/k1.yaml" > "$tmp/pasted.yaml"
	if "$PLUMB" constants "$tmp/pasted.yaml" --format yaml > "$tmp/k2.yaml" 2>&1 &&
	   grep -v '^#' "$tmp/k1.yaml" > "$tmp/k1.doc" && grep -v '^#' "$tmp/k2.yaml" > "$tmp/k2.doc" &&
	   cmp -s "$tmp/k1.doc" "$tmp/k2.doc" && grep -q '^# Set by the scenario: ' "$tmp/k2.yaml"; then
		ok
	else
		bad "plumb constants $scn --format yaml, pasted into it, does not give the same values"
		diff -u "$tmp/k1.yaml" "$tmp/k2.yaml" | sed 's/^/    /' | head -n 20
	fi
fi

# ---- 7. the source of each value in force -----------------------------------
for scn in tests/data/constants/*.yaml; do
	name=$(basename "$scn" .yaml)
	for fmt in table json yaml; do
		out="$tmp/constants.$name.$fmt.out"
		if ! "$PLUMB" constants "$scn" --format "$fmt" > "$out" 2> "$tmp/err"; then
			bad "plumb constants $scn --format $fmt failed: $(cat "$tmp/err")"
		elif [ $update -eq 1 ]; then
			store "$out" "$GOLDEN/constants/$name.$fmt.out"
		else
			compare "$GOLDEN/constants/$name.$fmt.out" "$out" "plumb constants $scn --format $fmt"
		fi
	done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
