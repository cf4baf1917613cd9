#!/bin/sh
# import_roundtrip.sh - import every topo -m sample (and the rtx6kpro lspci -vvv
# log), print the imported scenario's host matrix with
# `plumb topo OUT --view host --format matrix`, and compare its GPU-to-GPU
# cells with the input's. NIC cells and affinity columns are not compared.
#
#   sh tests/import_roundtrip.sh [PLUMB]     (PLUMB defaults to ./plumb)
#
# A sample whose input has no topo -m matrix (only a topo -p2p matrix, or
# none) is reported as "skip". GPUs the importer left out of a truncated
# matrix are not compared. Exit status 0 when every compared cell matches.
LC_ALL=C
export LC_ALL
PLUMB=${1:-./plumb}
DATA=tests/data/import
TMP=${TMPDIR:-/tmp}/plumb-roundtrip.$$
mkdir -p "$TMP" || exit 4
trap 'rm -rf "$TMP"' EXIT INT TERM

if ! "$PLUMB" topo --help >/dev/null 2>&1; then
	echo "import_roundtrip: '$PLUMB topo' is not available" >&2
	exit 5
fi

# gpu_cells FILE: "I J CELL" for the GPU-to-GPU cells of the first topo -m
# matrix in FILE (ANSI underline codes removed, blanks or tabs as separators,
# a topo -p2p matrix skipped, a row cut by "[... truncated" ends early).
gpu_cells() {
	awk '
	function iscls(s) { return s ~ /^(X|PIX|PXB|PHB|NODE|SYS|NV[0-9]+)$/ }
	function isp2p(s) { return s ~ /^(OK|CNS|GNS|TNS|NS|DR|U)$/ }
	function flush(   k) {
		if (!p2p && nout > 0) { for (k = 1; k <= nout; k++) print out[k]; done = 1 }
		state = 0; nout = 0; p2p = 0
	}
	done { next }
	{
		gsub(/\033\[[0-9;]*m/, ""); gsub(/\[[014]m/, ""); sub(/\r$/, "")
		n = split($0, t, /[ \t]+/); m = 0
		for (i = 1; i <= n; i++) if (t[i] != "") tok[++m] = t[i]
	}
	state == 1 {
		if (m > 0 && tok[1] ~ /^(GPU[0-9]+|NIC[0-9]+|mlx[0-9_]+)$/) {
			if (tok[1] !~ /^GPU/) next
			r = substr(tok[1], 4) + 0
			for (c = 0; c < ng; c++) {
				v = tok[c + 2]
				if (v == "" || v ~ /^\[/ || v ~ /truncated/) break
				if (isp2p(v)) p2p = 1
				out[++nout] = r " " c " " v
			}
			next
		}
		flush()
	}
	state == 0 {
		for (i = 1; i <= m; i++) if (tok[i] == "GPU0") break
		if (i > m) next
		if (i < m && (iscls(tok[i + 1]) || isp2p(tok[i + 1]))) next
		ng = 0
		for (; i <= m && tok[i] ~ /^GPU[0-9]+$/; i++) ng++
		state = 1; nout = 0; p2p = 0
	}
	END { if (!done) flush() }
	' "$1"
}

# compare NAME INPUT_MATRIX_FILE SCENARIO
compare() {
	name=$1 want=$2 scn=$3
	if ! "$PLUMB" topo "$scn" --view host --format matrix > "$TMP/got.txt" 2> "$TMP/err.txt"; then
		echo "FAIL $name: plumb topo failed: $(head -n 3 "$TMP/err.txt")"
		return 1
	fi
	gpu_cells "$want" > "$TMP/want.cells"
	gpu_cells "$TMP/got.txt" > "$TMP/got.cells"
	if [ ! -s "$TMP/want.cells" ]; then
		echo "skip $name: no topo -m matrix in the input"
		return 0
	fi
	# compare the cells present on both sides (left-out GPUs are absent)
	bad=$(awk 'NR == FNR { got[$1 " " $2] = $3; next }
		   ($1 " " $2) in got && got[$1 " " $2] != $3 {
			printf "GPU%s-GPU%s: input %s, imported %s; ", $1, $2, $3, got[$1 " " $2]
		   }' "$TMP/got.cells" "$TMP/want.cells")
	ncmp=$(awk 'NR == FNR { got[$1 " " $2] = 1; next } ($1 " " $2) in got { n++ } END { print n + 0 }' \
		"$TMP/got.cells" "$TMP/want.cells")
	if [ -n "$bad" ]; then
		echo "FAIL $name: $bad"
		return 1
	fi
	echo "ok   $name ($ncmp cells)"
	return 0
}

fails=0
for f in "$DATA"/topom-*; do
	name=$(basename "$f")
	# (topo -m does not name the GPU: the model does not change the matrix)
	if ! "$PLUMB" import topo-m "$f" --gpu-model rtx-pro-6000 -o "$TMP/scn.yaml" 2> "$TMP/err.txt"; then
		if grep -q 'no nvidia-smi topo -m matrix found' "$TMP/err.txt"; then
			echo "skip $name: no matrix in the input"
			continue
		fi
		echo "FAIL $name: import failed: $(head -n 1 "$TMP/err.txt")"
		fails=$((fails + 1))
		continue
	fi
	compare "$name" "$f" "$TMP/scn.yaml" || fails=$((fails + 1))
done

name=lspci-rtx6kpro-asus-full.log
if "$PLUMB" import lspci "$DATA/$name" -o "$TMP/scn.yaml" 2> "$TMP/err.txt"; then
	compare "$name" "$DATA/topom-rtx6kpro-asus-nvidia-topo.log" "$TMP/scn.yaml" ||
		fails=$((fails + 1))
else
	echo "FAIL $name: import failed: $(head -n 1 "$TMP/err.txt")"
	fails=$((fails + 1))
fi

if [ "$fails" -ne 0 ]; then
	echo "import_roundtrip: $fails failure(s)"
	exit 1
fi
echo "import_roundtrip: all matrices match"
