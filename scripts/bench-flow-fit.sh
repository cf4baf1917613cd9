#!/bin/sh
# bench-flow-fit.sh FILE: the figures derived from bench/flow.csv
# (scripts/bench-flow.sh), as Markdown sentences: for each solver, the
# exponent k of CPU ~ N^k for one ring all-reduce, a least-squares line
# through log(CPU less the startup row) against log(N), and the cost of two
# all-reduces over 1,024 GPUs against one. Used by bench-flow.sh and
# bench-report.sh.
set -eu
awk -F, 'NR > 1 {
	if ($1 == "startup") base[$3] = $5
	else if ($1 == "ring-one") { k = $3 SUBSEP (++m[$3]); n[k] = $2; c[k] = $5
		if ($2 == 1024) one[$3] = $5 }
	else if ($1 == "ring-two" && $2 == 1024) two[$3] = $5
}
END {
	for (s in m) {
		sx = sy = sxx = sxy = 0; np = 0
		for (i = 1; i <= m[s]; i++) {
			y = c[s, i] - base[s]
			if (y <= 0) continue
			x = log(n[s, i]); y = log(y)
			sx += x; sy += y; sxx += x * x; sxy += x * y; np++
		}
		if (np >= 2)
			printf "- %s solver: one ring all-reduce costs CPU ~ N^%.2f from %d to %d GPUs (least squares over %d sizes, startup of %.4f s subtracted)\n", \
				s, (np * sxy - sx * sy) / (np * sxx - sx * sx), n[s, 1], n[s, m[s]], np, base[s]
		if ((s in two) && (s in one) && one[s] > 0)
			printf "- %s solver: two all-reduces over 1,024 GPUs cost %.2fx one (%.3f s against %.3f s of CPU)\n", \
				s, two[s] / one[s], two[s], one[s]
	}
}' "$1" | sort
