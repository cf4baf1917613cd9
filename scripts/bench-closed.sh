#!/bin/sh
# bench-closed.sh: how the cost of one closed-form collective grows with
# its ranks, written to bench/closed.csv. On the clusters of
# `sh tests/gen_scale.sh cluster HOSTS` with 8, 16, 32, 64 and 128 boxes of
# 8 H100 over InfiniBand (64 to 1,024 GPUs; synthetic, for scale, not a
# measured cluster), build/bench-closed (tests/bench/bench_closed.c) times
# in one process the ring all-reduce over every GPU with protocol LL at
# 100 x 1024 / N distinct sizes from 4 KiB, each a new closed form (the
# shared view and routes are built before the clock starts; the fabric the
# closed form reads is built per call, as `coll` does), and stops if one
# took the flow model.
# Columns: gpus, evals, cpu_seconds (clock() of the evals), us_per_eval;
# then `fit` with the exponent b of us_per_eval = a N^b (least squares on
# logs). CPU seconds vary less with the machine's load than wall time.
# Run from the repository root after `make build/bench-closed`.
set -eu
BENCH=${BENCH:-build/bench-closed}
out=bench/closed.csv
mkdir -p bench
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp".*.yaml' EXIT

files=
for h in 8 16 32 64 128; do
	sh tests/gen_scale.sh cluster "$h" > "$tmp.$h.yaml"
	files="$files $tmp.$h.yaml"
done
# shellcheck disable=SC2086
"$BENCH" $files > "$tmp"
mv "$tmp" "$out"
cat "$out"
