#!/bin/sh
# tests/limits.sh - inputs at the documented limits (docs/cli.md, "Limits")
# that plumb must answer, each under `ulimit -v 2000000` (2 GB) and 20 s:
# exit 0, no signal. (Inputs past the limits are refused in
# tests/bad_inputs.sh.)
#   - PCIe switches stacked 8 deep (tests/gen_scale.sh chain 8, two boxes):
#     the longest fabric paths, through xfer, coll, predict;
#   - a request trace in Unix-epoch seconds with a gap of 1e8 s (the
#     serving peak's one-second buckets are a fixed ring, not one per second).
#   sh tests/limits.sh     PLUMB names the binary (default ./plumb)
# Ends with "limits: N passed, M failed".
. "$(dirname "$0")/lib.sh"
begin_tests limits
TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout 20"
sh tests/gen_scale.sh chain 8 >"$tmp/chain-8.yaml" || exit 2
BM=scenarios/baremetal-8x-rtxpro6000.yaml
while read -r args; do
	# shellcheck disable=SC2086 # word lists on purpose
	(ulimit -v 2000000 2>/dev/null; $TIMEOUT "$PLUMB" $args >"$tmp/out" 2>"$tmp/err")
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok
	else
		bad "plumb $args: exit $rc, expected 0"
		head -n 5 "$tmp/err" | sed 's/^/    /'
	fi
done <<ARGS
xfer $tmp/chain-8.yaml --from 0 --to 7
coll $tmp/chain-8.yaml --op alltoall
predict $tmp/chain-8.yaml --model llama-3.1-70b --layout tp8 --concurrency 1
predict $BM --layout tp8 --concurrency 1 --trace tests/data/trace-epoch-gap.csv
ARGS
end_tests limits
