#!/bin/sh
# tests/kvtier.sh - the KV cache's tiers (docs/model-serving.md "KV tiers",
# docs/cli-predict.md "plumb predict"):
#  1. a prefix cached for every request lowers TTFT; a hit share of 0 gives
#     the run without a prefix byte for byte; half the requests hit about
#     half the time;
#  2. with a host tier, requests retracted from a full GPU cache move their
#     KV to host memory and back (reload tokens, time on the fabric), and
#     the run serves no fewer tok/s than recomputing them; a buffer on the
#     far NUMA node takes longer than on the near one;
#  3. bad values are usage errors (exit 2) naming the option.
#   sh tests/kvtier.sh        PLUMB names the binary (default ./plumb)
# Ends with "N passed, M failed"; exit status 1 when M > 0.
. "$(dirname "$0")/lib.sh"
begin_tests kvtier
# field NAME FILE: the first row's JSON number NAME
field() { sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p" "$2" | head -1; }
# lt A B: A < B as numbers
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

box=scenarios/baremetal-8x-rtxpro6000.yaml
run() { out=$1; shift; "$PLUMB" predict $box --draws 0 --format json "$@" >"$tmp/$out" 2>"$tmp/$out.err" || bad "predict $* failed: $(cat "$tmp/$out.err")"; }

# 1. prefix cache
args="--model llama-3.1-70b --concurrency 8 --input 4000 --output 200"
run none.json $args
run zero.json $args --prefix-len 3000 --prefix-hit 0
run all.json $args --prefix-len 3000
run half.json $args --prefix-len 3000 --prefix-hit 0.5
if [ "$(field ttft_ms "$tmp/none.json")" = "$(field ttft_ms "$tmp/zero.json")" ] &&
   [ "$(field tok_s_total "$tmp/none.json")" = "$(field tok_s_total "$tmp/zero.json")" ]; then ok; else
	bad "a hit share of 0 changes the run: $(field ttft_ms "$tmp/none.json") vs $(field ttft_ms "$tmp/zero.json") ms"
fi
t0=$(field ttft_ms "$tmp/none.json"); t1=$(field ttft_ms "$tmp/all.json"); th=$(field ttft_ms "$tmp/half.json")
if lt "$t1" "$th" && lt "$th" "$t0"; then ok; else
	bad "TTFT should fall with the hit share: none $t0, half $th, all $t1 ms"
fi
h1=$(field prefix_hits "$tmp/all.json"); hh=$(field prefix_hits "$tmp/half.json")
if [ "${h1:-0}" -gt 0 ] && awk -v a="$hh" -v b="$h1" 'BEGIN { exit !(a >= 0.4 * b && a <= 0.6 * b) }'; then ok; else
	bad "prefix hits: all $h1, half $hh (about half expected)"
fi

# 2. host tier
args="--concurrency 64 --rate 5 --requests 200 --input 8000 --output 2000"
run rec.json $args
run near.json $args --kv-offload 200
run far.json $args --kv-offload 200 --kv-offload-numa far
rt=$(field reload_tokens "$tmp/near.json"); r0=$(field retracted "$tmp/rec.json")
if [ "${r0:-0}" -gt 0 ] && [ "${rt:-0}" -gt 0 ]; then ok; else
	bad "no offload: $r0 retracted without a tier, $rt tokens reloaded with one"
fi
if ! lt "$(field tok_s_total "$tmp/near.json")" "$(field tok_s_total "$tmp/rec.json")"; then ok; else
	bad "offloading serves fewer tok/s than recomputing: $(field tok_s_total "$tmp/near.json") < $(field tok_s_total "$tmp/rec.json")"
fi
if lt "$(field kv_io_ms "$tmp/near.json")" "$(field kv_io_ms "$tmp/far.json")"; then ok; else
	bad "the far NUMA node should be slower: near $(field kv_io_ms "$tmp/near.json") ms, far $(field kv_io_ms "$tmp/far.json") ms"
fi
run tiny.json $args --kv-offload 0.001
if [ "$(field offloaded "$tmp/tiny.json")" = 0 ]; then ok; else
	bad "a host tier too small for one request still offloaded $(field offloaded "$tmp/tiny.json")"
fi

# 3. bad values
for a in "--prefix-hit 2" "--prefix-hit x" "--prefix-len -1" "--prefix-len 1024" "--kv-offload -3" "--kv-offload-numa middle"; do
	"$PLUMB" predict $box --draws 0 $a >/dev/null 2>"$tmp/err"
	rc=$?
	opt=${a%% *}
	if [ $rc -eq 2 ] && grep -q -- "$opt" "$tmp/err"; then ok; else
		bad "'$a': exit $rc, $(cat "$tmp/err")"
	fi
done

end_tests
