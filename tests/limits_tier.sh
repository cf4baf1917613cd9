#!/bin/sh
# tests/limits_tier.sh - the limits tier (`make check-limits`, in CI on the
# normal and the sanitizer build): inputs generated at and just past every
# documented limit (docs/cli.md, "Limits"), each run under 2 GB of memory
# and 20 s. A row is
#
#   NAME  WANT  ARGS...
#
# WANT is `ok` (exit 0), `refuse` (exit 2 or 3: a usage or input error, with
# its message) or `io` (exit 4). The row fails on any other exit status,
# on a signal, on the 20 s timeout (exit 124), on running out of memory
# (exit 5 or a signal), and on a sanitizer report in its stderr.
#
# Memory: on the normal build `ulimit -v 2000000` (2 GB of address space).
# A sanitizer build maps terabytes of shadow address space up front, so
# there the bound is ASan's own `hard_rss_limit_mb=2000` (the process is
# killed past 2 GB resident) and `ulimit -v` is not set.
#
# Rows that wait on work elsewhere are kept in the table, marked `wait:WHY`
# before NAME, and run only with LIMITS_WAITING=1 (they pass their time and
# memory bounds once that work lands):
#   wait:san      runs on ./plumb, waits on the sanitizer build only (no row
#                 waits at present)
#
#   sh tests/limits_tier.sh            PLUMB names the binary (default ./plumb)
#   SAN=1 sh tests/limits_tier.sh      a sanitizer build (PLUMB=build-asan/plumb)
# Prints a line per row (verdict, seconds, name), then
# "limits tier: N passed, M failed, W waiting".
LC_ALL=C
export LC_ALL
unset NCCL_P2P_LEVEL NCCL_P2P_DISABLE NCCL_SHM_DISABLE
PLUMB=${PLUMB:-./plumb}
SAN=${SAN:-0}
WAITING=${LIMITS_WAITING:-0}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-limits-tier.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
command -v timeout >/dev/null 2>&1 || { echo "limits tier: needs timeout(1)"; exit 2; }
# shellcheck disable=SC3045 # dash, bash and busybox sh have ulimit -v
if [ "$SAN" != 1 ] && ! (ulimit -v 2000000) 2>/dev/null; then
	echo "limits tier: this shell cannot bound memory (ulimit -v)"
	exit 2
fi
if [ "$SAN" = 1 ]; then
	ASAN_OPTIONS=hard_rss_limit_mb=2000:detect_leaks=1:allocator_may_return_null=0
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0
	export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
fi
BM=scenarios/baremetal-8x-rtxpro6000.yaml
B=tests/bad_inputs
G=$tmp

# ---- generated inputs -------------------------------------------------
gen() { sh tests/gen_scale.sh "$1" "$2" >"$G/$1-$2.yaml" || exit 2; }
gen chain 8         # PCIe switches stacked 8 deep: the limit
gen chain 9         # one past it
gen chain 40        # past the old 32-entry stack array of the fabric's paths
gen flat 1024       # 1,024 GPUs: the limit
gen flat 1025       # one past it
gen cluster 16      # 16 hosts, 128 GPUs: a report past the 8 hosts it draws
gen cluster 128     # 128 hosts: the limit, 1,024 GPUs
gen cluster 129     # one past it
gen nvswitch 72     # an NVL72 domain as one box

# YAML nesting: 65 levels are refused for the depth; a million '[' as the
# file is read
{
	printf 'plumb_scenario: 1\nname: deep\nx: '
	head -c 65 /dev/zero | tr '\0' '['
	printf 1
	head -c 65 /dev/zero | tr '\0' ']'
	echo
} >"$G/nest-65.yaml"
{ printf 'x: '; head -c 1000000 /dev/zero | tr '\0' '['; echo; } >"$G/nest-1e6.yaml"
# YAML aliases: nine levels of ten (10^9 nodes expanded) in a scenario
{
	echo 'plumb_scenario: 1'
	echo 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'
	i=1
	while [ $i -le 9 ]; do
		p=$((i - 1))
		echo "a$i: &a$i [*a$p, *a$p, *a$p, *a$p, *a$p, *a$p, *a$p, *a$p, *a$p, *a$p]"
		i=$((i + 1))
	done
} >"$G/laughs.yaml"
# string length: a name of 95 bytes (the limit) and 96; a description of
# 511 bytes (the limit), of 512 and of
# 15 MiB (under the 16 MiB input limit); a file of 17 MiB; a path of 5,000
# bytes; an option value of 120,000 bytes (one argument can hold 128 KiB)
desc() {
	{
		printf 'plumb_scenario: 1\nname: long\ndescription: '
		head -c "$1" /dev/zero | tr '\0' x
		echo
		sed -n '/^seed:/,$p' "$BM"
	} >"$2"
}
desc 511 "$G/desc-511.yaml"
{
	printf 'plumb_scenario: 1\nname: '
	head -c 95 /dev/zero | tr '\0' n
	echo
	sed -n '/^description:/,$p' "$BM"
} >"$G/name-95.yaml"
sed 's/^name: n*/&n/' "$G/name-95.yaml" >"$G/name-96.yaml"
desc 512 "$G/desc-512.yaml"
desc 15728640 "$G/desc-15m.yaml"
{ head -c 17825792 /dev/zero | tr '\0' '#'; echo; } >"$G/file-17m.yaml"
longpath=$(awk 'BEGIN { s = ""; for (i = 0; i < 50; i++) s = s "/" sprintf("%099d", i); print s }')
longopt=tp$(head -c 120000 /dev/zero | tr '\0' 8)
# regexes in a config.json ignore list: at the limits (256 bytes, counts
# multiplying to 256) and past them (counts to 272, 257 bytes)
hf() {
	python3 - "$B/hf-regex-bomb.json" "$1" >"$2" <<'EOF' || exit 2
import json, sys
d = json.load(open(sys.argv[1]))
d["quantization_config"]["ignore"] = ["lm_head", sys.argv[2]]
print(json.dumps(d, indent=1))
EOF
}
hf 're:(a{1,16}){1,16}' "$G/hf-re-256.json"
hf 're:(a{1,16}){1,17}' "$G/hf-re-272.json"
hf "re:$(awk 'BEGIN { s = ""; while (length(s) < 253) s = s "ab|"; print substr(s, 1, 253) }')" "$G/hf-re-256b.json"
hf "re:$(awk 'BEGIN { s = ""; while (length(s) < 257) s = s "ab|"; print substr(s, 1, 257) }')" "$G/hf-re-257b.json"
# request traces: Unix-epoch arrivals 1e8 s apart; a span of 3e12 s
printf 'arrival_s,input_len,output_len\n' >"$G/trace-span.csv"
awk 'BEGIN { for (i = 0; i < 200; i++) printf "%.0f,1024,64\n", 1.7e9 + i * 1.5e10 }' >>"$G/trace-span.csv"
# a serving CSV's prompt counts: at the cap (1,000,000) and past it
printf 'layout,concurrency,context,tok_s,prompts\ntp8,64,0,480,1000001\n' >"$G/prompts-past.csv"
printf 'cases:\n  - name: prompts\n    kind: serving\n    data: %s\n    scenario: %s\n    model: glm-5\n    input: 1024\n    output: 1024\n' \
	"$B/csv-prompts-huge.csv" "$BM" >"$G/cases-prompts.yaml"
# paths of any length, never cut (scenario and error paths were cut at 511
# bytes, model paths refused past 1,002): a directory 1,100 bytes deep
# holding a model's config.json, a scenario with an error in it and a
# scenario without a name
deep=$G/$(awk 'BEGIN { for (i = 0; i < 11; i++) printf "%s%099d", i ? "/" : "", i }')
mkdir -p "$deep" || exit 2
cp tests/data/hf/microsoft--Phi-3-mini-4k-instruct/config.json "$deep/" || exit 2
cp tests/bad/string-too-long.yaml "$deep/bad.yaml" || exit 2
grep -v '^name:' "$BM" >"$deep/noname.yaml" || exit 2
# a nccl-tests log concatenated twice
cat "$B/nccl-ok.txt" "$B/nccl-ok.txt" >"$G/nccl-twice.txt"

pass=0
fail=0
wait=0
# run NAME WANT ARGS...: one row
run() {
	name=$1
	want=$2
	shift 2
	t0=$(date +%s.%N)
	(
		# shellcheck disable=SC3045 # checked above
		[ "$SAN" = 1 ] || ulimit -v 2000000
		exec timeout 20 "$PLUMB" "$@"
	) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	why=
	case $want in
	ok) [ "$rc" -eq 0 ] || why="exit $rc, expected 0" ;;
	refuse) [ "$rc" -eq 2 ] || [ "$rc" -eq 3 ] || why="exit $rc, expected a refusal (2 or 3)" ;;
	io) [ "$rc" -eq 4 ] || why="exit $rc, expected 4" ;;
	esac
	[ "$rc" -eq 124 ] && why="past 20 s"
	[ "$rc" -gt 128 ] && [ "$rc" -ne 124 ] && why="signal $((rc - 128))"
	if grep -Eq 'Sanitizer|runtime error:' "$tmp/err"; then
		why="a sanitizer report"
	fi
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		printf 'pass %6s s  %s\n' "$secs" "$name"
	else
		fail=$((fail + 1))
		printf 'FAIL %6s s  %s: plumb %.200s: %s\n' "$secs" "$name" "$*" "$why"
		grep -E 'Sanitizer|runtime error:|error' "$tmp/err" | head -n 4 | cut -c1-300 | sed 's/^/    /'
	fi
}

while read -r name want rest; do
	case $name in '' | '#'*) continue ;; esac
	case $name in
	wait:*)
		if [ "$WAITING" != 1 ] && { [ "$name" != wait:san ] || [ "$SAN" = 1 ]; }; then
			wait=$((wait + 1))
			printf 'wait          %s (%s; LIMITS_WAITING=1 runs it)\n' "$want" "${name#wait:}"
			continue
		fi
		name=$want
		want=${rest%% *}
		rest=${rest#* }
		;;
	esac
	# shellcheck disable=SC2086 # ARGS as words on purpose
	run "$name" "$want" $rest
done <<TABLE
# ---- PCIe chain depth (8 switches)
chain-8-xfer             ok      xfer $G/chain-8.yaml --from 0 --to 7
chain-8-coll             ok      coll $G/chain-8.yaml --op alltoall
chain-8-predict          ok      predict $G/chain-8.yaml --model llama-3.1-70b --layout tp8 --concurrency 1 --draws 0
chain-9-topo             refuse  topo $G/chain-9.yaml
chain-9-predict          refuse  predict $G/chain-9.yaml --layout tp8 --concurrency 1
chain-40-xfer            refuse  xfer $G/chain-40.yaml --from 0 --to 7
chain-40-report          refuse  report $G/chain-40.yaml -o $G/chain.html
# ---- GPU and host counts (1,024 GPUs, 128 hosts)
flat-1024-topo           ok      topo $G/flat-1024.yaml
flat-1025-topo           refuse  topo $G/flat-1025.yaml
cluster-128-topo         ok      topo $G/cluster-128.yaml
cluster-129-topo         refuse  topo $G/cluster-129.yaml
cluster-16-report        ok      report $G/cluster-16.yaml --concurrency 1,64 --draws 0 -o $G/c16.html
nvswitch-72-predict      ok      predict $G/nvswitch-72.yaml --model llama-3.1-70b --layout dp9tp8 --concurrency 1 --draws 0
flat-1024-topo-json      ok      topo $G/flat-1024.yaml --format json
cluster-128-topo-json    ok      topo $G/cluster-128.yaml --format json
# ---- YAML: nesting (64 levels), aliases (1,000,000 nodes), input size (16 MiB)
yaml-nest-65             refuse  topo $G/nest-65.yaml
yaml-nest-1e6            refuse  topo $G/nest-1e6.yaml
yaml-laughs-scenario     refuse  topo $G/laughs.yaml
yaml-laughs-grid         refuse  sweep $B/grid-alias-bomb.yaml
yaml-alias-grid-scenario refuse  sweep $B/grid-alias-scenario.yaml
grid-billions            refuse  sweep $B/grid-billions.yaml
# ---- string length
name-95-topo             ok      topo $G/name-95.yaml
name-96-topo             refuse  topo $G/name-96.yaml
desc-511-topo            ok      topo $G/desc-511.yaml
desc-512-topo            refuse  topo $G/desc-512.yaml
desc-15mib-topo          refuse  topo $G/desc-15m.yaml
file-17mib               refuse  topo $G/file-17m.yaml
path-5000-bytes          io      topo $longpath/x.yaml
render-layouts-9         refuse  render $BM --what throughput --layout tp8,tp4pp2,tp2pp4,tp1pp8,tp8,tp4pp2,tp2pp4,tp1pp8,tp8 -o $G/r.png
model-path-1100-bytes    ok      predict $BM --model $deep --batch 1 --draws 0
model-json-1100-bytes    ok      predict $BM --model $deep/config.json --batch 1 --draws 0
scenario-path-1100-bytes ok      topo $deep/noname.yaml
option-120k-bytes        refuse  predict $BM --layout $longopt
# ---- regexes in a config.json ignore list
regex-at-limit           ok      predict $BM --model $G/hf-re-256.json --batch 1 --draws 0
regex-counts-past        refuse  predict $BM --model $G/hf-re-272.json --batch 1
regex-256-bytes          ok      predict $BM --model $G/hf-re-256b.json --batch 1 --draws 0
regex-257-bytes          refuse  predict $BM --model $G/hf-re-257b.json --batch 1
regex-bomb               refuse  predict $BM --model $B/hf-regex-bomb.json
regex-invalid            refuse  predict $BM --model $B/hf-regex-invalid.json
# ---- arrival spans and trace gaps
trace-epoch-gap          ok      predict $BM --layout tp8 --concurrency 1 --draws 0 --trace tests/data/trace-epoch-gap.csv
trace-span-3e12          ok      predict $BM --layout tp8 --concurrency 4 --draws 0 --trace $G/trace-span.csv
rate-1e-9                ok      predict $BM --layout tp8 --concurrency 8 --draws 0 --rate 1e-9 --requests 200
# ---- request and concurrency counts
requests-past            refuse  predict $BM --rate 10 --requests 1000001
concurrency-past         refuse  predict $BM --concurrency 4097
concurrency-1e6          refuse  predict $BM --concurrency 1000000
concurrency-4096         ok      predict $BM --layout tp8 --concurrency 4096 --draws 0
csv-prompts-1e9-validate refuse  validate $G/cases-prompts.yaml
csv-prompts-1e9-calib    refuse  calibrate $BM --data $B/csv-prompts-huge.csv
csv-prompts-past-calib   refuse  calibrate $BM --data $G/prompts-past.csv
csv-concurrency-past     refuse  calibrate $BM --data $B/csv-concurrency-huge.csv
nccl-log-twice           refuse  calibrate $BM --data $G/nccl-twice.txt
TABLE

# ---- what the paths of 1,100 bytes print: whole, never cut
# whole NAME DESCRIPTION: the row's check has just run ($? its verdict)
whole() {
	if [ "$?" -eq 0 ]; then
		pass=$((pass + 1))
		printf 'pass          %s\n' "$1"
	else
		fail=$((fail + 1))
		printf 'FAIL          %s: %s\n' "$1" "$2"
	fi
}
# an error's source line is read again from the whole path
"$PLUMB" topo "$deep/bad.yaml" >/dev/null 2>"$tmp/err"
[ "$?" -eq 3 ] && grep -q '^  name: xxxx' "$tmp/err" && grep -q '^        \^$' "$tmp/err"
whole error-source-line-deep "exit 3 with the offending line and its caret"
# a scenario without a name is named by its whole path
"$PLUMB" topo "$deep/noname.yaml" 2>/dev/null | head -n 1 >"$tmp/out"
[ "$(cat "$tmp/out")" = "plumb topo: $deep/noname.yaml (8 GPUs, bare metal)" ]
whole scenario-named-by-path "the first line names the whole path"
# the model's source in predict's JSON is the whole path
"$PLUMB" predict "$BM" --model "$deep" --batch 1 --draws 0 --format json 2>/dev/null |
	grep -qF "\"source\": \"$deep/config.json\""
whole model-source-whole "predict --format json names the whole config path as source"

echo "limits tier: $pass passed, $fail failed, $wait waiting"
[ "$fail" -eq 0 ]
