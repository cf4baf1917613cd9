#!/bin/sh
# chunk_buckets.sh: what snapping later prefill chunks and re-prefills to
# the middle of their context bucket moves (models/serve/serve.c, docs/
# model-serving.md "Prefill chunks"). Each case runs with the buckets (the default)
# and at every chunk's exact context (PLUMB_EXACT_CHUNKS=1); total tok/s,
# TPOT and TTFT must agree within TOL (1%), and the buckets must move at
# least one of them (else the two paths were one). Run from the repository
# root after `make`.
set -eu
PLUMB=${PLUMB:-./plumb}
TOL=${TOL:-0.01}
BM=scenarios/baremetal-8x-rtxpro6000.yaml
WS=scenarios/workstation-2x-rtx5090.yaml
fail=0
moved=0
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.x"' EXIT

# check NAME ARGS...: the two paths' tok/s (col 6), TPOT (8), TTFT (9)
check() {
	name=$1
	shift
	"$PLUMB" predict "$@" --draws 0 --format csv | tail -1 > "$tmp"
	PLUMB_EXACT_CHUNKS=1 "$PLUMB" predict "$@" --draws 0 --format csv | tail -1 > "$tmp.x"
	r=$(awk -F, -v tol="$TOL" 'NR == FNR { for (i = 1; i <= NF; i++) b[i] = $i; next }
		{ worst = 0; same = 1
		  split("6 8 9", c, " ")
		  for (k = 1; k <= 3; k++) { i = c[k]
			if ($i != b[i]) same = 0
			d = $i > 0 ? (b[i] - $i) / $i : 0; if (d < 0) d = -d
			if (d > worst) worst = d }
		  printf "%s %.5f\n", (worst <= tol ? "ok" : "FAIL"), worst; if (!same) print "moved" }' "$tmp" "$tmp.x")
	echo "$name: $(echo "$r" | head -1) (largest relative difference)"
	case $r in FAIL*) fail=1 ;; esac
	case $r in *moved*) moved=$((moved + 1)) ;; esac
}

# prompts of 100k tokens: twelve later chunks each
check "long prompts" $BM --layout tp8 --concurrency 16 --input 100000 --output 256
# the KV cache binds: retractions and their re-prefills
check "retractions, 2x RTX 5090" $WS --model llama-3.1-70b --weights int4 --concurrency 16 --output 16384
check "retractions, bare metal" $BM --layout tp8 --concurrency 64 --output 65536
if [ "$moved" -lt 1 ]; then
	echo "FAIL: the buckets moved no case (PLUMB_EXACT_CHUNKS has no effect?)"
	fail=1
fi
exit $fail
