# bench-lib.sh: what the benchmark scripts share (sourced, not run).

# CPU seconds (user + system) of the shell's children in the output of the
# `times` builtin in file $1 (its second line: "0m1.234s 0m0.056s"); the
# builtin runs in the calling shell, not in a command substitution, whose
# children would be its own
cpu() {
	sed -n 2p "$1" | awk '{ t = 0
		for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
		printf "%.3f", t }'
}
