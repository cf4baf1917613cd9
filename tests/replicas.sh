#!/bin/sh
# tests/replicas.sh - boxes of any size in any order, and replicas
# (docs/cli-predict.md "plumb compare", docs/model-serving.md "Replicas").
#  1. `plumb compare` of a 2-GPU and an 8-GPU box gives the same rows in
#     both orders (CSV, rows sorted; JSON rows per box), and the 8-GPU
#     layout's cell on the 2-GPU box is n/a with its reason.
#  2. dp4tp2 at 64 requests on each bundled 8x RTX PRO 6000 box gives
#     3.4-4.05x the tok/s of tp2 at 16 (the replicas share the box's links;
#     they cannot beat four separate copies by more than rounding).
#   sh tests/replicas.sh        PLUMB names the binary (default ./plumb)
# Ends with "N passed, M failed"; exit status 1 when M > 0.
. "$(dirname "$0")/lib.sh"
begin_tests replicas

two=scenarios/workstation-2x-rtx5090.yaml
eight=scenarios/baremetal-8x-rtxpro6000.yaml
args="--model llama-3.1-70b --concurrency 1,16,64 --draws 0"
for fmt in csv json; do
	"$PLUMB" compare $two $eight $args --format $fmt >"$tmp/a.$fmt" 2>"$tmp/a.err" || bad "compare 2-GPU 8-GPU ($fmt) failed: $(cat "$tmp/a.err")"
	"$PLUMB" compare $eight $two $args --format $fmt >"$tmp/b.$fmt" 2>"$tmp/b.err" || bad "compare 8-GPU 2-GPU ($fmt) failed: $(cat "$tmp/b.err")"
done
# CSV: the same rows, in another order
sed 1d "$tmp/a.csv" | sort >"$tmp/a.rows"
sed 1d "$tmp/b.csv" | sort >"$tmp/b.rows"
if [ -s "$tmp/a.rows" ] && cmp -s "$tmp/a.rows" "$tmp/b.rows"; then ok; else
	bad "compare rows depend on the boxes' order:"; diff "$tmp/a.rows" "$tmp/b.rows" | head -20
fi
# JSON: each row on a line of its own, engine stacks aside
grep '"scenario":' "$tmp/a.json" | sed 's/,$//' | sort >"$tmp/a.jrows"
grep '"scenario":' "$tmp/b.json" | sed 's/,$//' | sort >"$tmp/b.jrows"
if [ -s "$tmp/a.jrows" ] && cmp -s "$tmp/a.jrows" "$tmp/b.jrows"; then ok; else
	bad "compare JSON rows depend on the boxes' order"; diff "$tmp/a.jrows" "$tmp/b.jrows" | head -20
fi
if grep -q '^workstation-2x-rtx5090,tp8,8,64,.*"n/a: tp8 needs 8 GPUs, box has 2"' "$tmp/a.csv"; then ok; else
	bad "the 2-GPU box's tp8 cell is not n/a with its reason"; grep tp8 "$tmp/a.csv"
fi
if grep -q '^baremetal-8x-rtxpro6000,dp4tp2,8,' "$tmp/a.csv"; then ok; else
	bad "the default tp2 does not fill the 8-GPU box"; grep tp2 "$tmp/a.csv"
fi

for s in scenarios/baremetal-8x-rtxpro6000.yaml scenarios/proxmox-vm-8x-rtxpro6000.yaml \
	 scenarios/switch-8x-rtxpro6000.yaml; do
	"$PLUMB" predict $s --model llama-3.1-70b --layout tp2,dp4tp2 --concurrency 16,64 \
		--draws 0 --format csv >"$tmp/p.csv" 2>"$tmp/p.err" || { bad "$s: predict failed: $(cat "$tmp/p.err")"; continue; }
	r=$(awk -F, '$1 == "tp2" && $3 == 16 { a = $6 } $1 == "dp4tp2" && $3 == 64 { b = $6 }
		END { if (a > 0) printf "%.3f", b / a }' "$tmp/p.csv")
	if awk -v r="$r" 'BEGIN { exit !(r >= 3.4 && r <= 4.05) }'; then ok; else
		bad "$s: dp4tp2 at 64 / tp2 at 16 = $r, outside 3.4-4.05"
	fi
done
end_tests
