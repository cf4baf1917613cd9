#!/bin/sh
# gen-constants-doc.sh [--check]: put `plumb constants --format markdown`
# between the constants markers of docs/model.md, or with --check only
# report (exit 1) when the file differs from what it would write.
set -eu
cd "$(dirname "$0")/.."
doc=docs/model.md
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.table"' EXIT
./plumb constants --format markdown > "$tmp.table"
awk -v table="$tmp.table" '
	/<!-- constants:begin -->/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
	/<!-- constants:end -->/ { skip = 0 }
	!skip { print }
' "$doc" > "$tmp"
if [ "${1:-}" = "--check" ]; then
	if cmp -s "$tmp" "$doc"; then
		echo "docs/model.md constants table is current"
	else
		echo "docs/model.md constants table is stale: run make docs-constants"
		exit 1
	fi
else
	cp "$tmp" "$doc"
fi
