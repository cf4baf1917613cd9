#!/bin/sh
# gen-constants-doc.sh [--check]: put `plumb constants --format markdown`
# between the constants markers of docs/model-constants.md and `plumb constants --gpus
# --format markdown` (the GPU catalog's per-GPU values) between its
# gpu-constants markers, or with --check only report (exit 1) when the file
# differs from what it would write.
set -eu
cd "$(dirname "$0")/.."
doc=docs/model-constants.md
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.table" "$tmp.gpus"' EXIT
./plumb constants --format markdown > "$tmp.table"
./plumb constants --gpus --format markdown > "$tmp.gpus"
awk -v table="$tmp.table" -v gpus="$tmp.gpus" '
	/<!-- constants:begin -->/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
	/<!-- constants:end -->/ { skip = 0 }
	/<!-- gpu-constants:begin -->/ { print; while ((getline l < gpus) > 0) print l; skip = 1; next }
	/<!-- gpu-constants:end -->/ { skip = 0 }
	!skip { print }
' "$doc" > "$tmp"
if [ "${1:-}" = "--check" ]; then
	if cmp -s "$tmp" "$doc"; then
		echo "docs/model-constants.md constants tables are current"
	else
		echo "docs/model-constants.md constants tables are stale: run make docs-constants"
		exit 1
	fi
else
	cp "$tmp" "$doc"
fi
