#!/bin/sh
# bench-report.sh: write the figures of the last `make bench` into
# docs/performance.md, between the lines "<!-- bench:begin -->" and
# "<!-- bench:end -->" (the rest of the page is kept as it is), with the
# machine they ran on: CPU model and count, operating system, compiler and
# flags, commit, date and the load average (other work on the machine
# slows the wall-clock figures; the CPU seconds and counts vary less).
#   bench/results.csv   the engine's workloads (plumb bench)
#   bench/predict.csv   scripts/bench-predict.sh
#   bench/serve.csv     scripts/bench-serve.sh
#   bench/sweep.csv     scripts/bench-sweep.sh
#   bench/cluster.csv   scripts/bench-cluster.sh
#   bench/flow.csv      scripts/bench-flow.sh (and scripts/bench-flow-fit.sh)
#   bench/closed.csv    scripts/bench-closed.sh
# LOAD_BEFORE may hold the load average taken before the runs (make bench
# sets it). Run from the repository root.
set -eu
doc=${DOC:-docs/performance.md}
for f in bench/results.csv bench/predict.csv bench/serve.csv bench/sweep.csv bench/cluster.csv bench/flow.csv bench/closed.csv; do
	if [ ! -f "$f" ]; then
		echo "bench-report: $f is missing (run make bench)" >&2
		exit 1
	fi
done
if ! grep -q '^<!-- bench:begin -->$' "$doc" || ! grep -q '^<!-- bench:end -->$' "$doc"; then
	echo "bench-report: $doc has no bench:begin / bench:end lines" >&2
	exit 1
fi
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.s"' EXIT

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -1)
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo "?")
os=$(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release 2>/dev/null | head -1)
cc=$(${CC:-cc} --version 2>/dev/null | head -1)
opt=$(sed -n 's/^OPT *?= *//p' Makefile)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "?")
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -c . || true)
when=$(date -u '+%Y-%m-%d %H:%M UTC')
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

{
	echo "<!-- bench:begin -->"
	echo "### The last \`make bench\`"
	echo
	echo "Written by \`scripts/bench-report.sh\` from \`bench/*.csv\`; do not edit by hand."
	echo
	echo "- Machine: ${cpu:-unknown CPU}, $ncpu logical CPUs, ${os:-unknown OS}"
	echo "- Compiler: ${cc:-unknown}, \`$opt\`"
	if [ "$dirty" -gt 0 ]; then
		echo "- Commit: $commit with $dirty files changed in the work tree; $when"
	else
		echo "- Commit: $commit; $when"
	fi
	echo "- Load average (1, 5, 15 min) before: ${LOAD_BEFORE:-not taken}; after: $load_after"
	echo
	echo "Predictions (\`scripts/bench-predict.sh\`: best of three wall-clock runs;"
	echo "CPU is user + system seconds of that run; no replay: \`PLUMB_NO_REPLAY=1\`, same bytes):"
	echo
	echo "| case | value | wall s | CPU s | wall s, no replay | speed-up |"
	echo "|---|---|---|---|---|---|"
	sed 1d bench/predict.csv | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, ($6 == "" ? "-" : $6), $4, $5 }'
	echo
	echo "Serving where the KV cache binds (\`scripts/bench-serve.sh\`: one run each;"
	echo "CPU is user + system seconds):"
	echo
	echo "| case | value | wall s | CPU s |"
	echo "|---|---|---|---|"
	sed 1d bench/serve.csv | awk -F, '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }'
	echo
	# cost ~ C^p x O^q: least squares of log CPU s over the grid rows (CxO)
	sed 1d bench/serve.csv | awk -F, '
		$1 == "grid" && $4 > 0 {
			split($2, v, "x")
			x1 = log(v[1]); x2 = log(v[2]); y = log($4)
			n++; s1 += x1; s2 += x2; sy += y
			s11 += x1 * x1; s22 += x2 * x2; s12 += x1 * x2; s1y += x1 * y; s2y += x2 * y
			if (!lo1 || v[1] < lo1) lo1 = v[1]; if (v[1] > hi1) hi1 = v[1]
			if (!lo2 || v[2] < lo2) lo2 = v[2]; if (v[2] > hi2) hi2 = v[2]
		}
		END {
			if (n < 4)
				exit
			# centred normal equations for the two slopes
			a11 = s11 - s1 * s1 / n; a22 = s22 - s2 * s2 / n; a12 = s12 - s1 * s2 / n
			b1 = s1y - s1 * sy / n; b2 = s2y - s2 * sy / n
			d = a11 * a22 - a12 * a12
			if (d == 0)
				exit
			printf "Cost grows as C^%.2f x O^%.2f in clients C (%s to %s) and output tokens O (%s to %s), ", \
				(b1 * a22 - b2 * a12) / d, (a11 * b2 - a12 * b1) / d, lo1, hi1, lo2, hi2
			printf "a least-squares fit of log CPU s over the %d grid rows.\n", n
		}'
	echo
	echo "Sweeps (\`scripts/bench-sweep.sh\`, from \`plumb sweep --stats\`):"
	echo
	echo "| case | value | points | steps simulated | step lookups | wall s | points/s | ms per simulated step and thread | threads | peak RSS KiB |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	sed 1d bench/sweep.csv | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
	echo
	echo "Clusters (\`scripts/bench-cluster.sh\`: 8 and 128 boxes of 8 H100 over InfiniBand; CPU s of one run):"
	echo
	echo "| case | GPUs in the cluster | CPU s |"
	echo "|---|---|---|"
	sed 1d bench/cluster.csv | awk -F, '{ printf "| %s | %s | %s |\n", $1, $2, $3 }'
	echo
	echo "The flow solver on the ring (\`scripts/bench-flow.sh\`: CPU s per run, mean of the runs;"
	echo "classes is the default solver, per-flow the reference, \`PLUMB_FLOW_SOLVER=per-flow\`):"
	echo
	echo "| case | GPUs | solver | runs | CPU s per run |"
	echo "|---|---|---|---|---|"
	sed 1d bench/flow.csv | awk -F, '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
	echo
	sh scripts/bench-flow-fit.sh bench/flow.csv
	echo
	echo "Closed form against ranks (\`scripts/bench-closed.sh\`: ring all-reduce, LL, over every GPU of clusters of 8 to 128 boxes; CPU us per collective):"
	echo
	echo "| GPUs | collectives timed | CPU s | CPU us per collective |"
	echo "|---|---|---|---|"
	awk -F, 'NR > 1 && $1 != "fit" { printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }
		$1 == "fit" { fit = $4 } END { if (fit != "") printf "\nCost grows as N^%s from 64 to 1,024 GPUs (least squares on logs).\n", fit }' bench/closed.csv
	echo
	echo "The engine (\`plumb bench --format csv\`):"
	echo
	echo "| workload | events | re-solves | wall s | events/s | ns/event | ns/re-solve | flows, rounds per solve | peak RSS KiB |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ printf "| %s | %s | %s | %s | %s | %s | %s | %s, %s | %s |\n", $c["workload"], $c["events"],
			$c["resolves"], $c["wall_seconds"], $c["events_per_s"], $c["ns_per_event"],
			$c["ns_per_resolve"], $c["flows_per_resolve"], $c["rounds_per_resolve"],
			$c["peak_rss_kib"] }' bench/results.csv
	echo "<!-- bench:end -->"
} > "$tmp.s"

awk -v sec="$tmp.s" '
	/^<!-- bench:begin -->$/ { while ((getline l < sec) > 0) print l; skip = 1; next }
	/^<!-- bench:end -->$/ { skip = 0; next }
	!skip { print }' "$doc" > "$tmp"
mv "$tmp" "$doc"
echo "bench-report: figures written to $doc"
