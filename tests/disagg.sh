#!/bin/sh
# tests/disagg.sh - disaggregated prefill and decode (docs/model-disagg.md
# "Disaggregated prefill and decode", docs/cli-predict.md "plumb predict"):
#  1. a design serves: its rows carry the KV transfer, TTFT holds the
#     prefill and the transfer, and its decode streams never wait for a
#     prefill (ITL p99 at the decode step) where the aggregated layout's
#     jump;
#  2. the path decides the transfer: a VM's host bounce is slower than bare
#     metal's P2P, two hosts' NICs slower than one box's NVLink;
#  3. transfers contend: with two prefill instances at load the transfer's
#     p99 lies above its p50; they slow the decode steps whose all-reduces
#     share their links, and only those; a decode instance whose KV cache
#     fills retracts streams;
#  4. the same run twice gives the same bytes;
#  5. plan ranks designs beside layouts;
#  6. the public points: Mooncake's KV transfer times within 20%;
#  7. bad designs are usage errors (exit 2), a design larger than the box
#     is n/a.
#   sh tests/disagg.sh        PLUMB names the binary (default ./plumb)
# Ends with "N passed, M failed"; exit status 1 when M > 0.
. "$(dirname "$0")/lib.sh"
begin_tests disagg
# JSON reads without jq (plumb writes each row on one line):
# num FILE KEY: the first number after "KEY":
num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -1 | sed 's/.*: //'; }
# block FILE KEY SUB: the number SUB inside the first object KEY
block() { grep -o "\"$2\": {[^}]*}" "$1" | head -1 | grep -o "\"$3\": [-0-9.e+]*" | sed 's/.*: //'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

box=scenarios/baremetal-8x-rtxpro6000.yaml
vm=scenarios/proxmox-vm-8x-rtxpro6000.yaml
two=scenarios/2x-hgx-8x-h100-ib.yaml
run() { out=$1; shift; "$PLUMB" predict "$@" --draws 0 --format json >"$tmp/$out" 2>"$tmp/$out.err" || bad "predict $* failed: $(cat "$tmp/$out.err")"; }

# 1. a design against the aggregated layout on the same GPUs
args="--model llama-3.1-70b --concurrency 32 --input 2000 --output 300"
run agg.json $box $args --layout dp2tp4
run dis.json $box $args --layout p1:tp4+d1:tp4
x=$(block "$tmp/dis.json" kv_transfer_ms mean)
pf=$(num "$tmp/dis.json" prefill_ms)
tt=$(num "$tmp/dis.json" ttft_ms)
if [ -n "$x" ] && lt 0 "$x" && lt "$pf" "$tt"; then ok; else
	bad "design: transfer '$x' ms, prefill end '$pf' ms, TTFT '$tt' ms (TTFT should hold both)"
fi
# ITL: the design's p99 at its p50; the aggregated one's p99 far above
d50=$(block "$tmp/dis.json" itl p50); d99=$(block "$tmp/dis.json" itl p99)
a50=$(block "$tmp/agg.json" itl p50); a99=$(block "$tmp/agg.json" itl p99)
if awk -v a="$d50" -v b="$d99" 'BEGIN { exit !(b <= 1.2 * a) }' &&
   awk -v a="$a50" -v b="$a99" 'BEGIN { exit !(b > 2 * a) }'; then ok; else
	bad "ITL p50/p99: design $d50/$d99 ms (no prefill stalls expected), aggregated $a50/$a99 ms"
fi

# 2. the path
run bare.json $box --model llama-3.1-70b --concurrency 4 --layout p1:tp4+d1:tp4
run vm.json $vm --model llama-3.1-70b --concurrency 4 --layout p1:tp4+d1:tp4
b=$(block "$tmp/bare.json" kv_transfer_ms mean); v=$(block "$tmp/vm.json" kv_transfer_ms mean)
if lt "$b" "$v"; then ok; else bad "the VM's transfer ($v ms) should be slower than bare metal's ($b ms)"; fi
run nvl.json $two --model llama-3.1-70b --concurrency 4 --layout p1:tp4+d1:tp4
run net.json $two --model llama-3.1-70b --concurrency 4 --layout p1:tp8+d1:tp8
n1=$(block "$tmp/nvl.json" kv_transfer_ms mean); n2=$(block "$tmp/net.json" kv_transfer_ms mean)
if lt "$n1" "$n2"; then ok; else bad "across hosts ($n2 ms) should be slower than over NVLink ($n1 ms)"; fi

# 3. contention between transfers
run busy.json $box --model llama-3.1-70b --concurrency 64 --input 4000 --output 200 --layout p2:tp2+d1:tp4
p50=$(block "$tmp/busy.json" kv_transfer_ms p50); p99=$(block "$tmp/busy.json" kv_transfer_ms p99)
if lt "$p50" "$p99"; then ok; else bad "transfers at load: p50 $p50, p99 $p99 ms (sharing should spread them)"; fi

# ... and share the PCIe links with the decode instance's all-reduces: one
# request alone moves faster than four among running streams
run one.json $box --model llama-3.1-70b --concurrency 1 --input 4000 --output 300 --layout p1:tp4+d1:tp4
run four.json $box --model llama-3.1-70b --concurrency 4 --input 4000 --output 300 --layout p1:tp4+d1:tp4
m1=$(block "$tmp/one.json" kv_transfer_ms mean); m4=$(block "$tmp/four.json" kv_transfer_ms mean)
if lt "$m1" "$m4"; then ok; else bad "transfers among decode all-reduces ($m4 ms) should be slower than alone ($m1 ms)"; fi

# ... and slow the decode steps whose all-reduces share their links: on
# the PCIe box the decode instance's steps lose time to the transfers
# landing on its GPUs; across two NVLink hosts (all-reduces on NVLink,
# transfers on the NICs) they lose none
dd=$(num "$tmp/dis.json" decode_link_delay_ms)
run nets.json $two --model llama-3.1-70b --concurrency 32 --input 2000 --output 300 --layout p1:tp8+d1:tp8
dn=$(num "$tmp/nets.json" decode_link_delay_ms)
if [ -n "$dd" ] && lt 0 "$dd" && ! lt 0 "$dn"; then ok; else
	bad "decode steps slowed by transfers: PCIe box $dd ms (want > 0), NVLink hosts over NICs $dn ms (want 0)"
fi

# ... a decode instance whose KV cache fills retracts its newest streams
# (prefilled again there) and stays within its cache
run full.json $box --model llama-3.1-70b --concurrency 256 --input 1000 --output 8000 --layout p1:tp4+d1:tp4
nr=$(num "$tmp/full.json" retracted); kt=$(num "$tmp/full.json" kv_tokens); kp=$(num "$tmp/full.json" kv_peak_tokens)
if [ -n "$nr" ] && lt 0 "$nr" && ! lt $((kt + 256)) "$kp"; then ok; else
	bad "a full decode instance: $nr retracted (want > 0), KV peak $kp of $kt tokens"
fi

# 4. deterministic
run again.json $box $args --layout p1:tp4+d1:tp4
if cmp -s "$tmp/dis.json" "$tmp/again.json"; then ok; else bad "the same design run twice differs"; fi

# 5. plan
"$PLUMB" plan $box --model llama-3.1-70b --layout tp8,p1:tp4+d1:tp4 --concurrency 8,32 \
	--ttft-p90 5000 --tpot-p90 80 --format json >"$tmp/plan.json" 2>"$tmp/plan.err" || bad "plan with a design failed: $(cat "$tmp/plan.err")"
if grep -q '"layout": "p1:tp4+d1:tp4"' "$tmp/plan.json" && grep -q '"layout": "tp8"' "$tmp/plan.json"; then ok; else
	bad "plan should rank the design beside tp8"
fi

rm -f "$tmp/plan.json"
"$PLUMB" plan $box --model llama-3.1-70b --disagg --concurrency 8 --ttft-p90 5000 --tpot-p90 80 \
	--format json >"$tmp/plan.json" 2>"$tmp/plan.err" || bad "plan --disagg failed: $(cat "$tmp/plan.err")"
if grep -q '"layout": "p1:tp4+d1:tp4"' "$tmp/plan.json" && grep -q '"layout": "p2:tp2+d1:tp4"' "$tmp/plan.json" &&
   grep -q '"layout": "dp2tp4"' "$tmp/plan.json"; then ok; else
	bad "plan --disagg should add p1:tp4+d1:tp4 and p2:tp2+d1:tp4 to the default layouts"
fi
"$PLUMB" predict $box --disagg >/dev/null 2>&1
if [ $? -eq 2 ]; then ok; else bad "predict --disagg should be a usage error"; fi

# 6. the public points
cat >"$tmp/cases.yaml" <<EOF
cases:
$(sed -n '/^  - name: public-h800-mooncake-1p1d$/,/^$/p' validation/cases.yaml)
EOF
if "$PLUMB" validate "$tmp/cases.yaml" -o "$tmp/val.md" --points "$tmp/points.csv" 2>"$tmp/val.err"; then
	n=$(grep -c 'kv_transfer_ms' "$tmp/points.csv")
	off=$(awk -F, '/kv_transfer_ms/ { r = $8 / $7; if (r < 0.8 || r > 1.2) print $6 }' "$tmp/points.csv")
	if [ "$n" -ge 5 ] && [ -z "$off" ]; then ok; else
		bad "Mooncake KV transfer points: $n scored, outside 20%: $off"
	fi
else
	bad "validate of the Mooncake case failed: $(cat "$tmp/val.err")"
fi

# 7. bad designs
for l in "p1:tp4+p1:tp4" "p1:dp2tp2+d1:tp4" "p1:tp4+d1:xx" "p0:tp4+d1:tp4" "p1tp4+d1:tp4" "p1:tp4+d1:tp4+d1:tp4"; do
	"$PLUMB" predict $box --layout "$l" --draws 0 >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "design\|layout" "$tmp/err"; then ok; else
		bad "layout '$l': exit $rc, $(cat "$tmp/err")"
	fi
done
"$PLUMB" predict $box --model llama-3.1-70b --layout p1:tp8+d1:tp8 --draws 0 >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "needs 16 GPUs" "$tmp/err"; then ok; else
	bad "a 16-GPU design on an 8-GPU box: exit $rc, $(cat "$tmp/err")"
fi

# a design over two GPU models is refused
"$PLUMB" predict validation/scenarios/turin-4xpro6000-2x5090.yaml --model tests/data/hf/Qwen--Qwen3-8B \
	--layout p1:tp4+d1:tp2 --concurrency 2 --draws 0 >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "GPU4 (rtx-5090) differs from GPU0" "$tmp/err"; then ok; else
	bad "a design over two GPU models: exit $rc, $(cat "$tmp/err")"
fi

end_tests
