#!/bin/sh
# tests/output_safety.sh - what -o does to what is already there (io/out.h),
# and resuming sweeps (models/sweep/run.c). Each check names the defect it
# guards against:
#   - a FIFO, a character device and /dev/stdout are written, never replaced;
#     a write error there or on standard output is exit 4;
#   - a symbolic link is written through to its target and stays a link;
#   - a regular file is replaced by rename (a hard link to the old file keeps
#     the old bytes) and keeps its permission bits;
#   - a symbolic link planted at the old predictable temporary name
#     (FILE.tmp.PID) or at FILE.partial is never followed;
#   - a path longer than 511 characters is written whole;
#   - grid values past 1,023 bytes, scenario paths past 1,023 characters
#     and --layout lists past 511 characters are used whole;
#   - an error in an input read from a FIFO is printed without reopening it;
#   - a run killed by SIGTERM leaves no FILE.tmp.XXXXXX;
#   - a scenario name holding '-->', markup and control characters cannot
#     end nccl-xml's comment or make the XML invalid;
#   - a sweep resumes its own finished output to the same bytes (rows that
#     do not fit, price columns, quoted fields with commas and line breaks,
#     JSON), resumes from an empty existing file, and stops with a clear
#     error while another sweep holds FILE.partial.
#   sh tests/output_safety.sh     PLUMB names the binary (default ./plumb)
# Ends with "output safety: N passed, M failed".
. "$(dirname "$0")/lib.sh"
begin_tests out
case $PLUMB in /*) ;; *) PLUMB=$(pwd)/$PLUMB ;; esac
BM=$(pwd)/scenarios/baremetal-8x-rtxpro6000.yaml
cd "$tmp" || exit 2
# helpers that wait on a FIFO give up rather than hang when plumb fails
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 10"

"$PLUMB" topo "$BM" >expected 2>/dev/null || bad "plumb topo $BM"

# ---- devices, FIFOs, standard output --------------------------------------
mkfifo fifo
$TO cat fifo >fifo.got &
reader=$!
$TO "$PLUMB" topo "$BM" -o fifo 2>err; rc=$?
wait $reader
check "-o FIFO: exit $rc" [ $rc -eq 0 ]
check "-o FIFO: still a FIFO" [ -p fifo ]
check "-o FIFO: the reader got the output" cmp -s fifo.got expected
if [ -p fifo ]; then
	# only once FIFOs are known to be written in place: a plumb that
	# replaced them would replace the devices too
	"$PLUMB" topo "$BM" -o /dev/full 2>err; rc=$?
	check "-o /dev/full: exit $rc, expected 4" [ $rc -eq 4 ]
	check "-o /dev/full: still a character device" [ -c /dev/full ]
	check "-o /dev/full: the message" grep -q 'plumb: error: /dev/full: write error' err
	"$PLUMB" topo "$BM" -o /dev/null 2>err; rc=$?
	check "-o /dev/null: exit $rc" [ $rc -eq 0 ]
	check "-o /dev/null: still a character device" [ -c /dev/null ]
	"$PLUMB" topo "$BM" -o /dev/stdout 2>err | cat >stdout.got
	check "-o /dev/stdout into a pipe: the output" cmp -s stdout.got expected
	echo before >log
	"$PLUMB" topo "$BM" -o /dev/stdout >>log 2>err
	{ echo before; cat expected; } >log.want
	check "-o /dev/stdout >> log: appended, the log kept" cmp -s log log.want
	"$PLUMB" sweep "$OLDPWD/scenarios/grids/tiny.yaml" --no-progress -o /dev/null 2>err; rc=$?
	check "sweep -o /dev/null: exit $rc" [ $rc -eq 0 ]
	check "sweep -o /dev/null: still a character device" [ -c /dev/null ]
fi
if [ -w /dev/full ]; then
	"$PLUMB" topo "$BM" >/dev/full 2>err; rc=$?
	check "stdout on a full disk: exit $rc, expected 4" [ $rc -eq 4 ]
	check "stdout on a full disk: the message" grep -q 'plumb: error: <stdout>: write error' err
	# every command, help and version included: nothing printed is lost silently
	VM=$(dirname "$BM")/proxmox-vm-8x-rtxpro6000.yaml
	GRID=$(dirname "$BM")/grids/tiny.yaml
	SERVING=$(dirname "$BM")/../validation/data/seed-vm-serving.csv
	LSPCI=$(dirname "$BM")/../tests/data/import/lspci-dual-3090-behind-pcie-switch.txt
	# each command's help, from the list plumb --help prints
	"$PLUMB" --help 2>/dev/null | awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }' >cmds
	check "plumb --help lists the commands" [ "$(wc -l <cmds)" -ge 14 ]
	while read -r cmd; do
		"$PLUMB" "$cmd" --help >/dev/full 2>err; rc=$?
		check "plumb $cmd --help >/dev/full: exit $rc, expected 4" [ $rc -eq 4 ]
	done <cmds
	while read -r args; do
		# shellcheck disable=SC2086 # args is a word list on purpose
		"$PLUMB" $args >/dev/full 2>err; rc=$?
		check "plumb $args >/dev/full: exit $rc, expected 4" [ $rc -eq 4 ]
		check "plumb $args >/dev/full: the message" grep -q 'plumb: error: <stdout>: write error' err
	done <<ARGS
--help
--version
help topo
predict --help
constants
sweep --check $GRID
predict $BM --layout tp8 --concurrency 1
compare $BM $VM --concurrency 1
xfer $BM --from 0 --to 1
calibrate $VM --data $SERVING
topo $BM --format json
coll $BM -b 1M -e 1M
trace $BM --layout tp8
import lspci $LSPCI
bench --steps 1000 --format csv
constants --format json
sweep $GRID --no-progress
sweep $GRID --no-progress --format json
ARGS
fi

# ---- names from input reach the terminal without their escape codes -------
sed 's/^name: .*/name: "evil\\e[31mRED\\e]0;title\\a"/' "$BM" >evil.yaml
VM=$(dirname "$BM")/proxmox-vm-8x-rtxpro6000.yaml
esc=$(printf '\033')
while read -r args; do
	# shellcheck disable=SC2086 # args is a word list on purpose
	"$PLUMB" $args >out 2>err; rc=$?
	check "plumb $args with ESC in the name: exit $rc" [ $rc -eq 0 ]
	check "plumb $args with ESC in the name: no ESC printed" sh -c "! grep -q '$esc' out"
done <<ARGS
topo evil.yaml
predict evil.yaml --layout tp8 --concurrency 1
compare evil.yaml $VM --concurrency 1
xfer evil.yaml --from 0 --to 1
coll evil.yaml -b 1M -e 1M
ARGS

# ---- CSV cells from the grid cannot run as spreadsheet formulas ------------
mkdir formula
cp "$BM" "formula/=1+2.yaml"
printf 'plumb_grid: 1\nset: {layout: tp8, input: 512, output: 128, concurrency: 1}\naxes:\n  scenario: ["=1+2.yaml"]\n' >formula/grid.yaml
"$PLUMB" sweep formula/grid.yaml -o formula/out.csv -j 1 --no-progress 2>err; rc=$?
check "sweep, a value starting with '=': exit $rc" [ $rc -eq 0 ]
check "sweep, a value starting with '=': written after an apostrophe" grep -q "^'=1+2.yaml," formula/out.csv
cp formula/out.csv formula/first.csv
"$PLUMB" sweep formula/grid.yaml -o formula/out.csv -j 1 --no-progress --stats 2>err
check "sweep, a neutralised cell: resumed, not recomputed" grep -q '(0 computed, 1 from the old output' err
check "sweep, a neutralised cell: resumed to the same bytes" cmp -s formula/out.csv formula/first.csv
"$PLUMB" sweep formula/grid.yaml --csv-raw -j 1 --no-progress >formula/raw.csv 2>err
check "sweep --csv-raw: the cell as given" grep -q "^=1+2.yaml," formula/raw.csv
# every CSV plumb writes: compare's scenario names, validate's case names
sed 's/^name: .*/name: "=1+2"/' "$BM" >formula/eq.yaml
sed 's/^name: .*/name: "-1.5"/' "$BM" >formula/num.yaml
"$PLUMB" compare formula/eq.yaml formula/num.yaml --layout tp8 --concurrency 1 --format csv \
	>formula/cmp.csv 2>err; rc=$?
check "compare --format csv, names '=1+2' and '-1.5': exit $rc" [ $rc -eq 0 ]
check "compare --format csv: '=1+2' written after an apostrophe" grep -q "^'=1+2,tp8," formula/cmp.csv
check "compare --format csv: the number '-1.5' kept a number" grep -q "^-1.5,tp8," formula/cmp.csv
"$PLUMB" compare formula/eq.yaml formula/num.yaml --layout tp8 --concurrency 1 --format csv \
	--csv-raw >formula/cmpraw.csv 2>err
check "compare --csv-raw: '=1+2' as given" grep -q "^=1+2,tp8," formula/cmpraw.csv
printf 'cases:\n  - name: "@SUM(1)"\n    kind: p2p\n    data: %s\n    scenario: %s\n    gpus: 0-7\n    source: "%s"\n' \
	validation/data/p2p-8x4090-epyc7542-stock.txt validation/scenarios/8x4090-epyc7542-nps4.yaml \
	"realdata/p2p-latency-samples.txt, SAMPLE 1 (1a)" >formula/cases.yaml
(cd "$OLDPWD" && "$PLUMB" validate "$tmp/formula/cases.yaml" --points "$tmp/formula/points.csv" \
	-o /dev/null) 2>err; rc=$?
check "validate --points, a case named '@SUM(1)': exit $rc" [ $rc -eq 0 ]
check "validate --points: the case name written after an apostrophe" \
	grep -q "^'@SUM(1),out-of-sample," formula/points.csv
if [ -w /dev/full ]; then
	(cd "$OLDPWD" && "$PLUMB" validate "$tmp/formula/cases.yaml" >/dev/full) 2>err; rc=$?
	check "plumb validate >/dev/full: exit $rc, expected 4" [ $rc -eq 4 ]
fi

# ---- nothing from input is cut: values, paths, layout lists -----------------
# two values of a grid that differ only past 1,023 bytes are two points
# with two resume keys, and a scenario named by a path past 1,023
# characters loads that file (a cut value shared a key and a re-run
# overwrote one row with the other's numbers; a cut path loaded another)
mkdir long
a=$(printf '%01100d' 0)
dots=$(printf './%.0s' $(seq 600))
printf 'plumb_grid: 1\nset: {layout: tp8, input: 512, output: 128, concurrency: 1}\naxes:\n  scenario: ["%s%s"]\n  note: ["%sA", "%sB"]\n' \
	"$dots" "$(basename "$BM")" "$a" "$a" >long/grid.yaml
cp "$BM" long/
"$PLUMB" sweep long/grid.yaml -o long/out.csv -j 1 --no-progress 2>err; rc=$?
check "sweep, a ${#dots}-character scenario path and 1,101-byte values: exit $rc" [ $rc -eq 0 ]
check "sweep, 1,101-byte values: two rows, each value whole" \
	[ "$(grep -c "${a}A,\|${a}B," long/out.csv)" = 2 ]
cp long/out.csv long/first.csv
"$PLUMB" sweep long/grid.yaml -o long/out.csv -j 1 --no-progress --stats 2>err
check "sweep, 1,101-byte values: both rows resumed" grep -q '(0 computed, 2 from the old output, 0 old rows kept' err
check "sweep, 1,101-byte values: resumed to the same bytes" cmp -s long/out.csv long/first.csv
# a scenario at a path past 1,023 characters finds the files it names
# beside it (its path was cut at 511 when its box: and gpu_catalog: were
# resolved)
deep=$tmp/$(printf '%0200d/' 1 2 3 4 5 6)
mkdir -p "$deep"
cp "$OLDPWD/tests/data/user-catalog/scenario.yaml" "$OLDPWD/tests/data/user-catalog/gpus.yaml" "$deep"
sed "s#box: .*}#box: hgx-8x-h200.yaml}#" "$OLDPWD/tests/data/multihost/two-h200.yaml" >"$deep/two.yaml"
cp "$OLDPWD/scenarios/hgx-8x-h200.yaml" "$deep"
for f in scenario.yaml two.yaml; do
	"$PLUMB" topo "$deep$f" >out 2>err; rc=$?
	check "topo, a scenario at a ${#deep}-character path ($f): exit $rc" [ $rc -eq 0 ]
done
# a --layout list past 511 characters: its last layout whole (it was cut)
pad="$(printf 'tp%027d,' 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1)$(printf 'tp%026d,' 1)"
"$PLUMB" predict "$OLDPWD/scenarios/hgx-8x-h200.yaml" --layout "${pad}tp8" --concurrency 1 >out 2>err; rc=$?
check "predict --layout of $((${#pad} + 3)) characters: exit $rc" [ $rc -eq 0 ]
check "predict --layout of $((${#pad} + 3)) characters: the last layout whole" grep -q '^tp8 ' out
"$PLUMB" predict "$BM" --layout "tp$(printf '%030d' 8)" --concurrency 1 >out 2>err; rc=$?
check "predict, a layout of 32 characters: refused, exit $rc" [ $rc -eq 2 ]

# ---- links, replacement, temporary names ----------------------------------
echo old >real
ln -s real link
"$PLUMB" topo "$BM" -o link 2>err; rc=$?
check "-o symlink: exit $rc" [ $rc -eq 0 ]
check "-o symlink: still a link" [ -L link ]
check "-o symlink: written through to the target" cmp -s real expected
ln -s nowhere dangling
"$PLUMB" topo "$BM" -o dangling 2>err; rc=$?
check "-o dangling symlink: exit $rc, expected 4" [ $rc -eq 4 ]
check "-o dangling symlink: nothing created" [ ! -e nowhere ]

umask 022
echo old >file
chmod 666 file
ln file hardlink
"$PLUMB" topo "$BM" -o file 2>err; rc=$?
check "-o FILE: exit $rc" [ $rc -eq 0 ]
check "-o FILE: the output" cmp -s file expected
check "-o FILE: replaced by rename (a hard link keeps the old bytes)" grep -qx old hardlink
check "-o FILE: keeps its permission bits (the umask does not apply)" [ "$(ls -l file | cut -c1-10)" = "-rw-rw-rw-" ]
check "-o FILE: no temporary file left" [ -z "$(ls | grep '\.tmp\.')" ]

# a run that fails after opening its output (coll over the event budget:
# the flows, as the closed form simulates no events)
cp file before
"$PLUMB" coll "$OLDPWD/tests/bad_inputs/budget-tiny.yaml" --flow -o file 2>err; rc=$?
check "-o FILE, failing after the output is open: exit $rc, expected 5" [ $rc -eq 5 ]
check "-o FILE, failing after the output is open: FILE unchanged" cmp -s file before
check "-o FILE, failing after the output is open: no temporary file left" [ -z "$(ls | grep '\.tmp\.')" ]

echo victim >victim
# exec keeps the shell's process id: the link sits at FILE.tmp.<plumb's pid>
sh -c 'ln -s victim planted.tmp.$$; exec "$0" topo "$1" -o planted' "$PLUMB" "$BM" 2>err; rc=$?
check "planted FILE.tmp.PID link: exit $rc" [ $rc -eq 0 ]
check "planted FILE.tmp.PID link: not followed" grep -qx victim victim
check "planted FILE.tmp.PID link: the output" cmp -s planted expected
rm -f planted*

long=$tmp
for i in 1 2 3 4 5 6; do
	long=$long/$(printf '%0100d' $i)
done
mkdir -p "$long"
"$PLUMB" topo "$BM" -o "$long/out.txt" 2>err; rc=$?
check "-o a ${#long}-character path: exit $rc" [ $rc -eq 0 ]
check "-o a ${#long}-character path: written whole" cmp -s "$long/out.txt" expected
"$PLUMB" topo "$BM" -o "$tmp" 2>err; rc=$?
check "-o a directory: exit $rc, expected 4" [ $rc -eq 4 ]

# ---- markup and control characters in a scenario's text: escaped -------------
sed 's/^name: .*/name: "x --> <evil\/> \&amp; \\u0001\\u001b]0;t\\u0007 -"/' "$OLDPWD/scenarios/hgx-8x-h200.yaml" >evil.yaml
"$PLUMB" topo evil.yaml --format nccl-xml >evil.xml 2>err; rc=$?
check "nccl-xml of a hostile name: exit $rc" [ $rc -eq 0 ]
check "nccl-xml of a hostile name: the name is in the comment" grep -q '^<!-- NCCL topology for x - -> <evil/>' evil.xml
check "nccl-xml of a hostile name: one comment end, no markup injected" \
	[ "$(grep -c -- '-->' evil.xml)" = 1 ] && ! grep -q '^<evil' evil.xml
check "nccl-xml of a hostile name: no control characters" sh -c 'tr -d "\001\007\033" <evil.xml | cmp -s - evil.xml'

# ---- a signal removes the temporary file ------------------------------------
"$PLUMB" bench --steps 400000 -o killed.csv 2>/dev/null &
bench=$!
i=0
while [ $i -lt 100 ] && [ -z "$(ls | grep '^killed\.csv\.tmp\.')" ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -TERM $bench 2>/dev/null
{ wait $bench; } 2>/dev/null; rc=$?
check "bench -o killed by SIGTERM: exit $rc, expected 143" [ $rc -eq 143 ]
check "bench -o killed by SIGTERM: no temporary file left" [ -z "$(ls | grep '^killed\.csv\.tmp\.')" ]

# report's temporary directory (plumb-report.XXXXXX) and its parts
mkdir rtmp
# (a background job ignores SIGINT; under nohup SIGHUP is ignored too, and
# plumb keeps a signal ignored at its start ignored, as nohup asks)
sigs=TERM
[ "$(sh -c 'kill -HUP $$; echo ignored' 2>/dev/null)" = ignored ] ||
	sigs="TERM HUP"
for sig in $sigs; do
	# the directory is made late in the run: a report that ends before the
	# signal lands is run again (at most 5 times), and must leave nothing
	try=0
	rc=0
	while [ $try -lt 5 ] && [ $rc -le 128 ]; do
		try=$((try + 1))
		rm -f report.html
		TMPDIR=$tmp/rtmp "$PLUMB" report "$BM" -o report.html 2>/dev/null &
		rep=$!
		i=0
		while [ $i -lt 200 ] && [ -z "$(ls rtmp)" ]; do
			sleep 0.01
			i=$((i + 1))
		done
		seen=$(ls rtmp)
		kill -$sig $rep 2>/dev/null
		{ wait $rep; } 2>/dev/null; rc=$?
		[ $rc -gt 128 ] || check "report ended before SIG$sig: no temporary directory left" [ -z "$(ls rtmp)" ]
	done
	check "report killed by SIG$sig: its temporary directory was there (${seen:-none})" [ -n "$seen" ]
	check "report killed by SIG$sig: exit $rc, expected a signal's" [ $rc -gt 128 ]
	check "report killed by SIG$sig: no temporary directory left" [ -z "$(ls rtmp)" ]
	rm -rf rtmp/*
done
check "bench -o killed by SIGTERM: no output" [ ! -e killed.csv ]

# ---- an input FIFO with an error: the message, not a reopened FIFO ---------
if command -v timeout >/dev/null 2>&1; then
	mkfifo in.fifo
	$TO sh -c 'printf "\tGPU0\tGPU1\nGPU0\tX\tQQQ\nGPU1\tQQQ\tX\n" >in.fifo' &
	timeout 10 "$PLUMB" import topo-m in.fifo 2>err; rc=$?
	check "import from a FIFO with an error: exit $rc, expected 3 (not stuck reopening it)" [ $rc -eq 3 ]
	check "import from a FIFO with an error: the message" grep -q "in.fifo:2:8: row GPU0" err
fi

# ---- sweeps ------------------------------------------------------------------
cat >grid.yaml <<EOF
plumb_grid: 1
name: resume
set: {input: 512, output: 128}
axes:
  scenario:
    - {value: $BM, price_usd: 100000, label: "two\\nlines, \\"quoted\\"", note: "line\\nbreak"}
  model: [glm-5, llama-3.1-70b]
  layout: [tp2, tp8]
  concurrency: [1]
EOF
sweep() { "$PLUMB" sweep grid.yaml --no-progress "$@"; }
for fmt in csv json; do
	sweep --format $fmt -o first.$fmt 2>err || bad "sweep $fmt: exit $?"
	cp first.$fmt again.$fmt
	sweep --format $fmt -o again.$fmt --stats 2>err; rc=$?
	check "sweep $fmt: resuming a finished run: exit $rc" [ $rc -eq 0 ]
	check "sweep $fmt: resuming a finished run computes nothing" grep -q '(0 computed' err
	check "sweep $fmt: resuming a finished run gives the same bytes" cmp -s first.$fmt again.$fmt
	head -c 900 first.$fmt >torn.$fmt.partial
	sweep --format $fmt -o torn.$fmt 2>err; rc=$?
	check "sweep $fmt: resuming a torn partial: exit $rc" [ $rc -eq 0 ]
	check "sweep $fmt: resuming a torn partial gives the same bytes" cmp -s first.$fmt torn.$fmt
	: >empty.$fmt
	sweep --format $fmt -o empty.$fmt 2>err; rc=$?
	check "sweep $fmt: an empty existing file: exit $rc" [ $rc -eq 0 ]
	check "sweep $fmt: an empty existing file: the output" cmp -s first.$fmt empty.$fmt
done
grep -q 'lines, ""quoted""' first.csv || bad "sweep csv: the grid has no quoted line break"
# a line break alone is quoted too; JSON writes it as \n
check "sweep csv: a field holding only a line break is quoted" grep -q '^break",' first.csv
check "sweep json: a line break is written as backslash-n" grep -q '"line\\nbreak"' first.json
grep -q '0,"model does not fit' first.csv || bad "sweep csv: the grid has no row that does not fit"
grep -q 'tok_s_per_kusd' first.csv || bad "sweep csv: the grid has no price column"

ln -s victim planted.csv.partial
sweep -o planted.csv 2>err; rc=$?
check "sweep: planted FILE.partial link: exit $rc, expected 4" [ $rc -eq 4 ]
check "sweep: planted FILE.partial link: not followed" grep -qx victim victim
check "sweep: planted FILE.partial link: the message" grep -q 'planted.csv.partial: cannot write: a symbolic link' err
check "sweep: planted FILE.partial link: no output" [ ! -e planted.csv ]
ln -s first.csv sweeplink.csv
cp first.csv keep.csv
sweep -o sweeplink.csv 2>err; rc=$?
check "sweep -o symlink: exit $rc" [ $rc -eq 0 ]
check "sweep -o symlink: still a link, target intact" [ -L sweeplink.csv ] && cmp -s first.csv keep.csv
if command -v flock >/dev/null 2>&1; then
	: >locked.csv.partial
	flock locked.csv.partial "$PLUMB" sweep grid.yaml --no-progress -o locked.csv 2>err; rc=$?
	check "sweep: FILE.partial locked by another sweep: exit $rc, expected 4" [ $rc -eq 4 ]
	check "sweep: FILE.partial locked: the message names the other writer" \
		grep -q 'another plumb sweep is writing this output' err
	check "sweep: FILE.partial locked: no output" [ ! -e locked.csv ]
fi

end_tests "output safety"
