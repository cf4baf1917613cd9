#!/bin/sh
# tests/bad_inputs.sh - every input plumb reads, given wrong: imported tool
# output (topo -m, lspci), measured data (nccl-tests, p2pBandwidthLatencyTest,
# CSV), validation case lists, sweep grids, calibration files, command-line
# values and scenarios that break a limit. Each row of the table below is
#
#   NAME  EXIT  ARGS...
#
# `plumb ARGS...` must exit with EXIT, print nothing on stdout, and print
# exactly tests/bad_inputs/NAME.err on stderr. Special arguments:
#   @nccl:FILE @p2p:FILE @serving:FILE   a one-case list (written to TMP/)
#                                         of that kind with data FILE, on the
#                                         bare-metal scenario
#   @big:NAME                            a file of NAME's kind just over the
#                                         16 MiB input limit, in TMP/
#   @sparse:NAME                         a 4 GiB sparse file, in TMP/
#   @gen:KIND:N                          the scenario tests/gen_scale.sh KIND N
#                                         writes, in TMP/gen-KIND-N.yaml
#   @long:N                              an option value of N characters
#   @out:NAME                            TMP/NAME, a file a command would write
#   @empty                               an empty argument
# Paths under the temporary directory are printed as TMP/ in the .err files.
# (Malformed scenarios for `plumb topo` live in tests/bad/, run by
# tests/golden/run.sh.)
#
#   sh tests/bad_inputs.sh            compare
#   sh tests/bad_inputs.sh --update   rewrite the .err files (read them!)
# PLUMB names the binary (default ./plumb). Ends with "N passed, M failed".
. "$(dirname "$0")/lib.sh"
begin_tests badin
unset NCCL_P2P_LEVEL NCCL_P2P_DISABLE NCCL_SHM_DISABLE
DIR=tests/bad_inputs
BM=scenarios/baremetal-8x-rtxpro6000.yaml
VM=scenarios/proxmox-vm-8x-rtxpro6000.yaml
WS=scenarios/workstation-2x-rtx5090.yaml
update=0
[ "${1:-}" = --update ] && update=1
TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout 20"

# expand ARG: print the argument to pass for a special @ argument.
expand() {
	case $1 in
	@nccl:* | @p2p:* | @serving:*)
		kind=${1#@}
		kind=${kind%%:*}
		f=$tmp/$kind-$(basename "${1#*:}" | tr . -).cases.yaml
		extra=
		[ "$kind" = serving ] && extra="    model: glm-5
    input: 1024
    output: 1024
"
		printf 'cases:\n  - name: bad-%s\n    kind: %s\n    data: %s\n    scenario: %s\n%s' \
			"$kind" "$kind" "${1#*:}" "$BM" "$extra" >"$f"
		echo "$f"
		;;
	@big:*)
		f=$tmp/${1#@big:}
		# 17 MiB of a plausible line, then the file is refused unread.
		awk 'BEGIN { s = sprintf("%-127s", "# padding line of a file that is too large"); for (i = 0; i < 139264; i++) print s }' >"$f"
		echo "$f"
		;;
	@long:*)
		# an option value of N characters (its echo is cut)
		awk -v n="${1#@long:}" 'BEGIN { s = "tp"; while (length(s) < n) s = s "x"; print s }'
		;;
	@sparse:*)
		# a 4 GiB file of no data blocks: refused by its size, unread
		f=$tmp/${1#@sparse:}
		truncate -s 4G "$f"
		echo "$f"
		;;
	@gen:*)
		# a scenario at the scale limits, written by its generator
		k=${1#@gen:}
		f=$tmp/gen-${k%%:*}-${k#*:}.yaml
		sh tests/gen_scale.sh "${k%%:*}" "${k#*:}" >"$f"
		echo "$f"
		;;
	@out:*) echo "$tmp/${1#@out:}" ;;
	@empty) echo ;;
	*) echo "$1" ;;
	esac
}

check() {
	name=$1
	want=$2
	shift 2
	label="$name: plumb $*"
	# the arguments expanded, one word each (@empty is an empty one)
	n=$#
	for a in "$@"; do
		set -- "$@" "$(expand "$a")"
	done
	shift "$n"
	# a reader that does not stop (/dev/zero) fails the row instead of the run
	# shellcheck disable=SC2086 # TIMEOUT is a word list on purpose
	$TIMEOUT "$PLUMB" "$@" >"$tmp/out" 2>"$tmp/err.raw"
	rc=$?
	sed "s|$tmp/|TMP/|g" "$tmp/err.raw" >"$tmp/err"
	exp=$DIR/$name.err
	if [ "$rc" -ne "$want" ]; then
		fail=$((fail + 1))
		echo "FAIL: $label: exit status $rc, expected $want"
		sed 's/^/    /' "$tmp/err" | head -n 10
		return
	fi
	if [ -s "$tmp/out" ]; then
		fail=$((fail + 1))
		echo "FAIL: $label: wrote to stdout on failure"
		return
	fi
	if [ "$update" -eq 1 ]; then
		if ! cmp -s "$tmp/err" "$exp"; then
			[ -f "$exp" ] && echo "updated: $exp" || echo "created: $exp"
			cp "$tmp/err" "$exp"
		fi
		pass=$((pass + 1))
	elif [ ! -f "$exp" ]; then
		fail=$((fail + 1))
		echo "FAIL: $label: missing $exp (run 'sh tests/bad_inputs.sh --update' and read it)"
	elif cmp -s "$exp" "$tmp/err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $label: stderr differs from $exp"
		diff -u "$exp" "$tmp/err" | sed 's/^/    /' | head -n 20
	fi
}

while read -r name want rest; do
	case $name in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086
	check "$name" "$want" $rest
done <<TABLE
# ---- hwloc XML and NCCL topology XML (plumb import hwloc / nccl-topo)
xml-hwloc-empty          3 import hwloc $DIR/xml-hwloc-empty.xml
xml-hwloc-no-gpu         3 import hwloc $DIR/xml-hwloc-no-gpu.xml
xml-nccl-unclosed        3 import nccl-topo $DIR/xml-nccl-unclosed.xml
xml-nccl-tag-mismatch    3 import nccl-topo $DIR/xml-nccl-tag-mismatch.xml
xml-nccl-wrong-root      3 import nccl-topo $DIR/xml-nccl-wrong-root.xml
xml-nccl-unknown-gpu     3 import nccl-topo $DIR/xml-nccl-unknown-gpu.xml
xml-nccl-no-busid        3 import nccl-topo $DIR/xml-nccl-no-busid.xml
xml-nccl-huge            3 import nccl-topo @big:xml-nccl-huge.xml
# ---- nvidia-smi topo -m (plumb import topo-m)
topom-empty              3 import topo-m $DIR/topom-empty.txt
topom-blank              3 import topo-m $DIR/topom-blank.txt
topom-binary             3 import topo-m $DIR/topom-binary.txt
topom-no-matrix          3 import topo-m $DIR/topom-no-matrix.txt
topom-truncated          3 import topo-m $DIR/topom-truncated.txt
topom-bad-cell           3 import topo-m $DIR/topom-bad-cell.txt
topom-duplicate-gpu      3 import topo-m $DIR/topom-duplicate-gpu.txt
topom-asymmetric         3 import topo-m $DIR/topom-asymmetric.txt
topom-no-x-diagonal      3 import topo-m $DIR/topom-no-x-diagonal.txt
topom-huge               3 import topo-m @big:topom-huge.txt
topom-missing-file       4 import topo-m $DIR/no-such-file.txt
topom-unknown-gpu-model  2 import topo-m $DIR/topom-ok.txt --gpu-model rtx-9090
# ---- rocm-smi --showtopo, amd-smi topology (plumb import rocm-smi)
rocmsmi-no-gpu-model     2 import rocm-smi $DIR/rocmsmi-bad-link.txt
rocmsmi-bad-link         3 import rocm-smi $DIR/rocmsmi-bad-link.txt --gpu-model mi300x
rocmsmi-no-matrix        3 import amd-smi $DIR/rocmsmi-no-matrix.txt --gpu-model mi300x
# ---- lspci (plumb import lspci)
lspci-empty              3 import lspci $DIR/lspci-empty.txt
lspci-binary             3 import lspci $DIR/lspci-binary.txt
lspci-no-devices         3 import lspci $DIR/lspci-no-devices.txt
lspci-no-gpu             3 import lspci $DIR/lspci-no-gpu.txt
lspci-truncated          3 import lspci $DIR/lspci-truncated.txt
lspci-duplicate-device   3 import lspci $DIR/lspci-duplicate-device.txt
lspci-huge               3 import lspci @big:lspci-huge.txt
lspci-65-gpus            3 import lspci $DIR/lspci-65-gpus.txt
lspci-sockets-zero       2 import lspci $DIR/lspci-ok.txt --sockets 0
lspci-sockets-word       2 import lspci $DIR/lspci-ok.txt --sockets two
import-unknown-kind      2 import nvidia-smi $DIR/topom-ok.txt
lspci-unknown-gpu        3 import lspci $DIR/lspci-unknown-gpu.txt
lspci-unknown-gpu-id     3 import lspci $DIR/lspci-unknown-gpu-id.txt
lspci-gpu-catalog-bad-id 3 import lspci $DIR/lspci-unknown-gpu-id.txt --gpu-catalog $DIR/gpu-catalog-bad-pci-id.yaml
lspci-gpu-catalog-name   3 import lspci $DIR/lspci-unknown-gpu.txt --gpu-catalog $DIR/gpu-catalog-name-taken.yaml
# ---- nccl-tests tables (plumb validate, kind nccl)
nccl-empty               3 validate @nccl:$DIR/nccl-empty.txt
nccl-no-rows             3 validate @nccl:$DIR/nccl-no-rows.txt
nccl-bad-number          3 validate @nccl:$DIR/nccl-bad-number.txt
nccl-short-row           3 validate @nccl:$DIR/nccl-short-row.txt
nccl-huge-size           3 validate @nccl:$DIR/nccl-huge-size.txt
csv-escape-sequences     3 validate @serving:$DIR/csv-escape-sequences.csv
nccl-negative-time       3 validate @nccl:$DIR/nccl-negative-time.txt
nccl-nan-time            3 validate @nccl:$DIR/nccl-nan-time.txt
nccl-binary              3 validate @nccl:$DIR/nccl-binary.txt
nccl-truncated           3 validate @nccl:$DIR/nccl-truncated.txt
# ---- p2pBandwidthLatencyTest (plumb validate, kind p2p)
p2p-empty                3 validate @p2p:$DIR/p2p-empty.txt
p2p-no-matrix            3 validate @p2p:$DIR/p2p-no-matrix.txt
p2p-ragged               3 validate @p2p:$DIR/p2p-ragged.txt
p2p-nan                  3 validate @p2p:$DIR/p2p-nan.txt
p2p-negative             3 validate @p2p:$DIR/p2p-negative.txt
p2p-huge                 3 validate @p2p:$DIR/p2p-huge.txt
p2p-duplicate-row        3 validate @p2p:$DIR/p2p-duplicate-row.txt
p2p-binary               3 validate @p2p:$DIR/p2p-binary.txt
p2p-truncated            3 validate @p2p:$DIR/p2p-truncated.txt
# ---- CSV (plumb validate, kind serving)
csv-empty                3 validate @serving:$DIR/csv-empty.csv
csv-no-header            3 validate @serving:$DIR/csv-no-header.csv
csv-unknown-column       3 validate @serving:$DIR/csv-unknown-column.csv
csv-no-rows              3 validate @serving:$DIR/csv-no-rows.csv
csv-nan                  3 validate @serving:$DIR/csv-nan.csv
csv-negative             3 validate @serving:$DIR/csv-negative.csv
csv-huge                 3 validate @serving:$DIR/csv-huge.csv
csv-duplicate            3 validate @serving:$DIR/csv-duplicate.csv
csv-unterminated-quote   3 validate @serving:$DIR/csv-unterminated-quote.csv
csv-short-row            3 validate @serving:$DIR/csv-short-row.csv
csv-wrong-type           3 validate @serving:$DIR/csv-wrong-type.csv
csv-bad-layout           3 validate @serving:$DIR/csv-bad-layout.csv
csv-prompts-huge         3 validate @serving:$DIR/csv-prompts-huge.csv
csv-concurrency-huge     3 validate @serving:$DIR/csv-concurrency-huge.csv
calibrate-prompts-huge   3 calibrate $VM --data $DIR/csv-prompts-huge.csv
calibrate-nccl-twice     3 calibrate $BM --data $DIR/nccl-twice.txt
# ---- validation case lists (plumb validate)
cases-empty              3 validate $DIR/cases-empty.yaml
cases-not-a-list         3 validate $DIR/cases-not-a-list.yaml
cases-unknown-kind       3 validate $DIR/cases-unknown-kind.yaml
cases-missing-data       4 validate $DIR/cases-missing-data.yaml
cases-missing-scenario   4 validate $DIR/cases-missing-scenario.yaml
cases-bad-engine         3 validate $DIR/cases-bad-engine.yaml
cases-misspelt-key       3 validate $DIR/cases-misspelt-key.yaml
cases-gpus-out-of-range  3 validate $DIR/cases-gpus-out-of-range.yaml
cases-gpus-backwards     3 validate $DIR/cases-gpus-backwards.yaml
cases-gpus-duplicate     3 validate $DIR/cases-gpus-duplicate.yaml
cases-duplicate-name     3 validate $DIR/cases-duplicate-name.yaml
cases-run-out-of-range   3 validate $DIR/cases-run-out-of-range.yaml
cases-bad-scenario       3 validate $DIR/cases-bad-scenario.yaml
cases-unknown-op         3 validate $DIR/cases-unknown-op.yaml
cases-unknown-model      3 validate $DIR/cases-unknown-model.yaml
cases-bad-p2p-level      3 validate $DIR/cases-bad-p2p-level.yaml
cases-binary             3 validate $DIR/cases-binary.yaml
cases-truncated          3 validate $DIR/cases-truncated.yaml
cases-huge               3 validate @big:cases-huge.yaml
cases-whatif-layout-tp3  3 validate $DIR/cases-whatif-layout-tp3.yaml
cases-whatif-conc-zero   3 validate $DIR/cases-whatif-concurrency-0.yaml
# ---- plumb predict and compare: values
predict-layout-tp3       3 predict $BM --layout tp3
predict-layout-tp16      3 predict $BM --layout tp16
predict-layout-one-more  3 predict $WS --layout tp3 --concurrency 1
predict-layout-pp3       3 predict $BM --layout tp2pp3
predict-layout-word      2 predict $BM --layout fast
predict-concurrency-zero 2 predict $BM --concurrency 0
predict-concurrency-neg  2 predict $BM --concurrency -4
predict-concurrency-word 2 predict $BM --concurrency many
predict-concurrency-huge 2 predict $BM --concurrency 99999999999
predict-concurrency-1e6  2 predict $BM --concurrency 1000000
predict-concurrency-4097 2 predict $BM --concurrency 1,4097
predict-batch-zero       2 predict $BM --batch 0
predict-context-nan      2 predict $BM --context nan
predict-input-neg        2 predict $BM --input -1
predict-output-huge      2 predict $BM --output 1e99
predict-microbatches-0   2 predict $BM --microbatches 0
predict-accept-range     2 predict $BM --mtp 3 --accept 1.5
predict-unknown-model    3 predict $BM --model glm-6
predict-unknown-weights  2 predict $BM --weights fp2
predict-unknown-kv       2 predict $BM --kv nvfp4
predict-hf-unknown-arch  3 predict $BM --model $DIR/hf-unknown-arch
predict-hf-bad-json      3 predict $BM --model $DIR/hf-bad-json.json
predict-hf-bad-quant     3 predict $BM --model $DIR/hf-bad-quant.json
predict-hf-sparse-step   3 predict $BM --model $DIR/hf-sparse-step.json
predict-hf-missing       4 predict $BM --model $DIR/no-such-model/config.json
predict-hf-regex-bomb    3 predict $BM --model $DIR/hf-regex-bomb.json
predict-hf-regex-invalid 3 predict $BM --model $DIR/hf-regex-invalid.json
predict-hf-regex-backref 3 predict $BM --model $DIR/hf-regex-backref.json
predict-hf-ignore-string 3 predict $BM --model $DIR/hf-ignore-not-list.json
predict-hf-no-fit        3 predict $BM --model tests/data/hf/zai-org--GLM-5 --batch 1
predict-weights-ckpt     2 predict $BM --weights checkpoint
predict-weights-int4-g3  2 predict $BM --weights int4-g3
gpu-catalog-dup          3 topo $BM --gpu-catalog $DIR/gpu-catalog-dup.yaml
model-bad-layer-kind     3 predict $BM --model $DIR/model-bad-layer-kind.yaml
gpu-catalog-missing      4 topo $BM --gpu-catalog $DIR/no-such-catalog.yaml
gpu-catalog-no-value     2 topo $BM --gpu-catalog
predict-no-fit           3 predict $WS --layout tp2 --concurrency 1
predict-p2p-level        2 predict $BM --nccl-p2p-level PCI
predict-bad-format       2 predict $BM --format xml
predict-engine-unknown   2 predict $BM --engine vlm
predict-engine-version   2 predict $BM --engine sglang@0.1.0
predict-engine-malformed 2 predict $BM --engine vllm@latest
compare-engine-unknown   2 compare $BM $VM --engine tensorrt
predict-missing-value    2 predict $BM --layout
predict-value-120k       2 predict $BM --layout @long:120000
predict-layout-empty     2 predict $BM --layout @empty
predict-layout-eq-empty  2 predict $BM --layout=
predict-layout-twice     2 predict $BM --layout tp8 --layout tp4
predict-accept-no-mtp    2 predict $BM --accept 0.6
predict-rate-zero        2 predict $BM --rate 0
predict-chunk-zero       2 predict $BM --chunked-prefill 0
predict-trace-negative   3 predict $BM --trace $DIR/trace-negative.csv
predict-trace-kind       3 predict $BM --trace validation/data/seed-vm-serving.csv
predict-trace-rate       2 predict $BM --trace tests/data/trace-burst.csv --rate 2
predict-accept-list-bad  2 predict $BM --mtp 3 --accept 0.9,1.2
predict-accept-list-long 2 predict $BM --mtp 2 --accept 0.9,0.8,0.7
predict-rate-word        2 predict $BM --rate fast
predict-requests-no-rate 2 predict $BM --requests 100
predict-rate-batch       2 predict $BM --batch 8 --rate 2
coll-size-twice          2 coll $BM -b 1M -b 2M
calib-twice              2 predict $BM --calib $DIR/calib-nan.yaml --calib $DIR/calib-list.yaml
predict-bad-scenario     3 predict tests/bad/zero-gpus.yaml
predict-missing-file     4 predict $DIR/no-such-file.yaml
compare-no-scenario      2 compare
# ---- plumb coll, xfer, topo, bench, constants: values
coll-gpus-range          2 coll $BM --gpus 0-15
coll-gpus-backwards      2 coll $BM --gpus 5-2
coll-gpus-twice          2 coll $BM --gpus 0,0
coll-op                  2 coll $BM --op allshuffle
coll-sizes-backwards     2 coll $BM -b 1G -e 1M
coll-size-zero           2 coll $BM -b 0
coll-size-unit           2 coll $BM -e 1X
coll-factor-one          2 coll $BM -f 1
coll-root-range          2 coll $BM --op broadcast --root 8
coll-algo                2 coll $BM --algo ring2
xfer-from-alone          2 xfer $BM --from 0
xfer-gpu-range           2 xfer $BM --from 0 --to 8
xfer-bytes-zero          2 xfer $BM --from 0 --to 1 --bytes 0
xfer-bytes-negative      2 xfer $BM --from 0 --to 1 --bytes -1
xfer-bytes-huge          2 xfer $BM --from 0 --to 1 --bytes 16E
xfer-method              2 xfer $BM --from 0 --to 1 --method carrier-pigeon
topo-p2p-level           2 topo $BM --nccl-p2p-level 9x
topo-huge                3 topo @big:topo-huge.yaml
bench-gpus-one           2 bench --workload ring --gpus 1
bench-steps-zero         2 bench --steps 0
bench-workload           2 bench --workload spin
constants-bad-scenario   3 constants tests/bad/nan-number.yaml
# ---- sweep grids (plumb sweep)
grid-billions            3 sweep $DIR/grid-billions.yaml
grid-axis-not-list       3 sweep $DIR/grid-axis-not-list.yaml
grid-bad-override        3 sweep $DIR/grid-bad-override.yaml
grid-missing-scenario    4 sweep $DIR/grid-missing-scenario.yaml
grid-misspelt-name       3 sweep $DIR/grid-misspelt-name.yaml
grid-huge                3 sweep @big:grid-huge.yaml
grid-alias-bomb          3 sweep $DIR/grid-alias-bomb.yaml
grid-alias-scenario      3 sweep $DIR/grid-alias-scenario.yaml
scenario-alias-bomb      3 topo $DIR/scenario-alias-bomb.yaml
# ---- calibration files (--calib, every command)
calib-list               3 predict $BM --calib $DIR/calib-list.yaml
calib-unknown-constant   3 predict $BM --calib $DIR/calib-unknown-constant.yaml
calib-nan                3 coll $BM --calib $DIR/calib-nan.yaml
calib-covariance-ragged  3 topo $BM --calib $DIR/calib-covariance-ragged.yaml
calib-covariance-duplicate 3 topo $BM --calib $DIR/calib-covariance-duplicate.yaml
calib-covariance-unknown 3 topo $BM --calib $DIR/calib-covariance-unknown.yaml
calib-covariance-not-pd  3 predict $BM --calib $DIR/calib-covariance-not-pd.yaml
calib-missing            4 xfer $BM --calib $DIR/no-such-calibration.yaml
calib-fitted-on-key      3 predict $BM --calib $DIR/calib-fitted-on-key.yaml
calib-standard-error-unknown 3 topo $BM --calib $DIR/calib-standard-error-unknown.yaml
calib-standard-error-negative 3 topo $BM --calib $DIR/calib-standard-error-negative.yaml
# ---- plumb calibrate: joint fits
calibrate-and-first      2 calibrate $BM --and $VM --data $DIR/csv-nan.csv
calibrate-and-no-data    2 calibrate $BM --data $DIR/csv-nan.csv --and $VM
calibrate-and-no-value   2 calibrate $BM --data $DIR/csv-nan.csv --and
calibrate-data-twice     2 calibrate $BM --data $DIR/csv-nan.csv ./$DIR/csv-nan.csv
calibrate-data-dev-zero  3 calibrate $BM --data /dev/zero
calibrate-data-sparse    3 calibrate $BM --data @sparse:sparse-4g.txt
calibrate-data-directory 4 calibrate $BM --data tests
calibrate-prior-from-bad 2 calibrate $BM --data validation/data/seed-vm-serving.csv --prior-from nowhere
calibrate-no-priors-few  3 calibrate $VM --no-priors --data validation/data/seed-vm-serving.csv
calibrate-leave-out-none 2 calibrate validation/scenarios/a40-8x-nv4.yaml --data validation/data/nccl-a40-2gpu-nvlink.txt --leave-out nothing
# ---- unreadable inputs: one wording for every command
input-dev-zero-topo      3 topo /dev/zero
input-dev-zero-import    3 import topo-m /dev/zero
input-sparse-import      3 import lspci @sparse:sparse-4g.txt
input-directory-topo     4 topo tests
input-directory-import   4 import topo-m tests
input-directory-validate 4 validate tests
input-directory-sweep    4 sweep tests
input-directory-calib    4 predict $BM --calib tests
# ---- limits and runtime errors
budget-coll              5 coll $DIR/budget-tiny.yaml --flow
budget-predict           5 predict $DIR/budget-tiny.yaml --layout tp8 --concurrency 1
scenario-1025-gpus       3 topo @gen:flat:1025
render-matrix-too-big    2 render @gen:cluster:17 --what matrix -o @out:matrix.png
scenario-vm-65-gpus      3 topo $DIR/scenario-vm-65-gpus.yaml
scenario-chain-9-topo    3 topo @gen:chain:9
scenario-chain-9-coll    3 coll $DIR/scenario-chain-9.yaml
scenario-chain-9-trace   3 trace @gen:chain:9
scenario-chain-9-sweep   3 sweep $DIR/grid-chain-9.yaml
scenario-mmio-too-small  3 predict $DIR/scenario-mmio-too-small.yaml --layout tp8 --concurrency 1
TABLE

# Every .err file belongs to a row of the table.
for e in "$DIR"/*.err; do
	[ -f "$e" ] || continue
	n=$(basename "$e" .err)
	grep -q "^$n " "$0" || { fail=$((fail + 1)); echo "FAIL: $e: no row '$n' in $0"; }
done
end_tests "bad inputs"
