#!/bin/sh
# bench-serve.sh: cost of the serving loop where the KV cache binds (long
# outputs, many clients), written to bench/serve.csv. One run each (these
# are the long cases); columns: case,value,seconds (wall),cpu_seconds
# (user + system of that run).
#   grid=CxO       GLM-5 tp8 on the bare-metal seed box, C clients (16,
#                  64, 256), O output tokens per request (4,096 to 262,144),
#                  --draws 0: scripts/bench-report.sh fits log CPU s =
#                  a + p log C + q log O over these rows (least squares)
#   vm             the VM seed box, 256 clients, 262,144 output tokens, --draws 0
#   boxes          the other bundled 8-GPU boxes at issue 30's load, 256
#                  clients, 262,144 output tokens, --draws 0: hgx-8x-h200
#                  (NVSwitch) and mi300x-8x (xGMI mesh)
#   workstation    the 2x RTX 5090 box (32 GB each), Llama 3.1 70B int4,
#                  64 clients, 65,536 output tokens (one request of 256k
#                  does not fit), --draws 0
#   draws          the bare-metal box, 256 clients, 16,384 output tokens,
#                  the default 32 draws of the interval; and 262,144 output
#                  tokens (issue 30's target: under 5 s)
#   exact-chunks   the bare-metal box, 256 x 262,144, --draws 0, with every
#                  prefill chunk at its exact context (PLUMB_EXACT_CHUNKS=1:
#                  what the context buckets of later chunks and re-prefills
#                  save; docs/model-serving.md "Prefill chunks")
#   clients=4096   the bare-metal box at the 4,096-client cap, --draws 0
#   rate           the bare-metal box, --rate 10, the default 1,000
#                  requests and draws
#   plan           `plumb plan` of GLM-5 over 500 configurations: the five
#                  RTX PRO 6000 boxes x 5 layouts (tp8, tp4pp2, tp2pp4,
#                  tp8dcp8, ep8) x 5 loads (1-256 clients) x 4 prefill
#                  chunk sizes (2,048-16,384)
# Run from the repository root after `make`.
set -eu
PLUMB=${PLUMB:-./plumb}
BM=scenarios/baremetal-8x-rtxpro6000.yaml
VM=scenarios/proxmox-vm-8x-rtxpro6000.yaml
WS=scenarios/workstation-2x-rtx5090.yaml
out=bench/serve.csv
mkdir -p bench
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.t0" "$tmp.t1"' EXIT

. scripts/bench-lib.sh    # cpu

# row CASE VALUE ARGS...: one run's wall and CPU seconds
row() {
	c=$1
	v=$2
	shift 2
	times > "$tmp.t0"
	s=$(date +%s.%N)
	"$PLUMB" "$@" > /dev/null
	e=$(date +%s.%N)
	times > "$tmp.t1"
	echo "$c,$v,$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'),$(awk -v a="$(cpu "$tmp.t0")" -v z="$(cpu "$tmp.t1")" 'BEGIN { printf "%.3f", z - a }')" >> "$tmp"
}

echo "case,value,seconds,cpu_seconds" > "$tmp"
for c in 16 64 256; do
	for o in 4096 16384 65536 262144; do
		row grid "${c}x$o" predict $BM --layout tp8 --concurrency "$c" --output "$o" --draws 0
	done
done
row vm "256 x 262144" predict $VM --layout tp8 --concurrency 256 --output 262144 --draws 0
row boxes "hgx-8x-h200 256 x 262144" predict scenarios/hgx-8x-h200.yaml --layout tp8 \
	--concurrency 256 --output 262144 --draws 0
row boxes "mi300x-8x 256 x 262144" predict scenarios/mi300x-8x.yaml --layout tp8 \
	--concurrency 256 --output 262144 --draws 0
row workstation "64 x 65536" predict $WS --model llama-3.1-70b --weights int4 \
	--concurrency 64 --output 65536 --draws 0
row draws "256 x 16384 (32 draws)" predict $BM --layout tp8 --concurrency 256 --output 16384
row draws "256 x 262144 (32 draws)" predict $BM --layout tp8 --concurrency 256 --output 262144
export PLUMB_EXACT_CHUNKS=1
row exact-chunks "256 x 262144" predict $BM --layout tp8 --concurrency 256 --output 262144 --draws 0
unset PLUMB_EXACT_CHUNKS
row clients 4096 predict $BM --layout tp8 --concurrency 4096 --draws 0
row rate "10/s (1000 requests)" predict $BM --layout tp8 --rate 10
row plan "500 configurations" plan scenarios/*-rtxpro6000*.yaml --tpot-p90 100 \
	--layout tp8,tp4pp2,tp2pp4,tp8dcp8,ep8 --concurrency 1,4,16,64,256 \
	--chunked-prefill 2048,4096,8192,16384 --format csv
mv "$tmp" "$out"
cat "$out"
