#!/bin/sh
# tests/plan.sh - `plumb plan` (docs/cli-predict.md "plumb plan"):
#  1. over the three bundled 8x RTX PRO 6000 boxes for GLM-5 (1k/1k, TTFT p90
#     <= 2 s, TPOT p90 <= 50 ms) it runs in under 10 s and finds rows that
#     meet the target and rows that do not;
#  2. every row that runs equals `plumb predict --percentiles` at its point
#     within 1% (tok/s, TTFT and TPOT p90 and p99);
#  3. the rows that meet the target hold it and come cheapest first; those
#     that miss it say why;
#  4. money: $/Mtok follows the formula of docs/model-serving.md "Power and money"
#     with power and rent set to zero, and doubles with the price;
#  5. usage errors exit 2; the chart is a PNG.
#   sh tests/plan.sh        PLUMB names the binary (default ./plumb)
# Ends with "N passed, M failed"; exit status 1 when M > 0.
. "$(dirname "$0")/lib.sh"
begin_tests plan

boxes="scenarios/proxmox-vm-8x-rtxpro6000.yaml scenarios/baremetal-8x-rtxpro6000.yaml scenarios/switch-8x-rtxpro6000.yaml"
slo="--ttft-p90 2000 --tpot-p90 50"
t0=$(date +%s.%N)
"$PLUMB" plan $boxes $slo --format csv --plot "$tmp/p.png" >"$tmp/plan.csv" 2>"$tmp/err" ||
	bad "plan failed: $(cat "$tmp/err")"
t1=$(date +%s.%N)
if awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 10) }'; then ok; else
	bad "plan took $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s (budget 10 s)"
fi
# the quoted reason (it holds commas) is the last column
sed 1d "$tmp/plan.csv" | sed 's/,"[^"]*"$//' >"$tmp/rows"
meet=$(awk -F, '$6 == 1' "$tmp/rows" | wc -l)
miss=$(awk -F, '$6 == 0' "$tmp/rows" | wc -l)
if [ "$meet" -gt 0 ] && [ "$miss" -gt 0 ]; then ok; else bad "feasible $meet, infeasible $miss rows"; fi
# the ones that miss say why
if awk -F, 'NR > 1 && $6 == 0 && /,""$/ { n++ } END { exit n > 0 }' "$tmp/plan.csv"; then ok
else bad "rows that miss the target without a reason"; fi
# those that meet hold the target, cheapest first
if awk -F, '$6 == 1 { if ($7 > 2000 || $8 > 50) bad = 1; if (NR > 1 && $19 + 0 < prev) bad = 1; prev = $19 }
	    $6 == 0 && seen0 == 0 { seen0 = 1 } $6 == 1 && seen0 { bad = 1 } END { exit bad }' "$tmp/rows"
then ok; else bad "rows meeting the target break it or are not cheapest first"; fi

# 2. each (box, layout) that runs, against predict at all its loads
awk -F, '$11 != "" { k = $1 "," $2; c[k] = c[k] (c[k] ? ":" : "") $3 } END { for (k in c) print k "," c[k] }' \
	"$tmp/rows" | sort >"$tmp/groups"
[ -s "$tmp/groups" ] || bad "no row runs"
while IFS=, read -r scn lay concs; do
	"$PLUMB" predict "scenarios/$scn.yaml" --layout "$lay" --concurrency "$(echo "$concs" | tr : ,)" \
		--percentiles --draws 0 --format csv >"$tmp/pred.csv" 2>"$tmp/err" ||
		{ bad "predict $scn $lay failed: $(cat "$tmp/err")"; continue; }
	# predict: layout(1) concurrency(3) tok_s_total(6) ttft_p90(17) ttft_p99(18) tpot_p90(20) tpot_p99(21)
	sed 1d "$tmp/pred.csv" | sed 's/"[^"]*"//g' |
		awk -F, '{ print $3, $6, $17, $18, $20, $21 }' | sort -n >"$tmp/p"
	# plan: concurrency(3) tok_s_total(11) ttft_p90(7) ttft_p99(9) tpot_p90(8) tpot_p99(10)
	awk -F, -v s="$scn" -v l="$lay" '$1 == s && $2 == l { print $3, $11, $7, $9, $8, $10 }' "$tmp/rows" |
		sort -n >"$tmp/q"
	if paste -d' ' "$tmp/p" "$tmp/q" | awk 'NF != 12 { bad = 1 }
		{ for (i = 1; i <= 6; i++) { a = $i; b = $(i + 6); d = a - b; if (d < 0) d = -d
			if (d > 0.01 * (a < 0 ? -a : a) + 0.002) { print "  x=" $1 " column " i ": predict " a ", plan " b; bad = 1 } } }
		END { exit bad }'; then ok; else bad "plan differs from predict on $scn $lay"; fi
done <"$tmp/groups"

# 4. money: no power price, no rent: $/Mtok = price / life hours / (tok/s x 3600) x 1e6
"$PLUMB" plan scenarios/baremetal-8x-rtxpro6000.yaml $slo --layout tp8 --concurrency 16 --format csv \
	--price-usd 100000 --life-years 4 --usd-per-kwh 0 --hosting-usd-kw-month 0 >"$tmp/m1.csv" 2>"$tmp/err" ||
	bad "plan with money options failed: $(cat "$tmp/err")"
"$PLUMB" plan scenarios/baremetal-8x-rtxpro6000.yaml $slo --layout tp8 --concurrency 16 --format csv \
	--price-usd 200000 --life-years 4 --usd-per-kwh 0 --hosting-usd-kw-month 0 >"$tmp/m2.csv" 2>"$tmp/err" ||
	bad "plan with money options failed: $(cat "$tmp/err")"
if awk -F, 'NR == 2 { want = 100000 / (4 * 365.25 * 24) / ($11 * 3600) * 1e6; d = $19 - want
	exit !($11 > 0 && (d < 0 ? -d : d) < 0.001 * want + 0.0001) }' "$tmp/m1.csv"; then ok; else
	bad "usd_per_mtok is not price / life / tokens: $(sed -n 2p "$tmp/m1.csv")"; fi
if paste -d, "$tmp/m1.csv" "$tmp/m2.csv" | awk -F, 'NR == 2 { n = NF / 2; r = $(n + 19) / $19
	exit !(r > 1.999 && r < 2.001) }'; then ok; else bad "twice the price is not twice the cost per token"; fi

# 5. usage errors, the chart
"$PLUMB" plan scenarios/baremetal-8x-rtxpro6000.yaml >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "plan without a target does not exit 2"
"$PLUMB" plan scenarios/baremetal-8x-rtxpro6000.yaml --ttft-p90 x >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "plan --ttft-p90 x does not exit 2"
"$PLUMB" predict scenarios/baremetal-8x-rtxpro6000.yaml --tpot-p90 5 >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "predict --tpot-p90 does not exit 2"
if [ "$(head -c 8 "$tmp/p.png" | od -An -c | tr -d ' \n')" = "211PNG\r\n032\n" ]; then ok; else
	bad "--plot did not write a PNG"; fi

end_tests
