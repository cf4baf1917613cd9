#!/bin/sh
# doc_links.sh - every relative Markdown link of docs/*.md and README.md,
# [text](target), outside code blocks and code spans, names a file or
# directory that exists (relative to the page), and a "#anchor" of it
# (or of the page itself) names a heading of that page, by the anchors
# GitHub gives headings: lower case, punctuation dropped, spaces as
# hyphens, "-1", "-2" after repeats. Prints each broken link, then
# "N passed, M failed"; exit status 1 when M > 0.
set -u
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# anchors FILE: the anchors of FILE's headings, one a line
anchors() {
	awk '
		/^(```|~~~)/ { code = !code; next }
		code || !/^#+[ \t]/ { next }
		{
			s = $0
			sub(/^#+[ \t]+/, "", s)
			sub(/[ \t]+#*[ \t]*$/, "", s)
			s = tolower(s)
			out = ""
			for (i = 1; i <= length(s); i++) {
				c = substr(s, i, 1)
				if (c ~ /[a-z0-9_-]/) out = out c
				else if (c == " ") out = out "-"
				else if (c > "\177") out = out c
			}
			if (out in seen) { seen[out]++; print out "-" seen[out] }
			else { seen[out] = 0; print out }
		}
	' "$1"
}

# links FILE: "LINE TARGET" for each relative link of FILE
links() {
	awk '
		/^[ \t]*(```|~~~)/ { code = !code; next }
		code { next }
		{
			s = $0
			gsub(/`[^`]*`/, "", s)
			while (match(s, /\]\([^) \t]+\)/)) {
				t = substr(s, RSTART + 2, RLENGTH - 3)
				s = substr(s, RSTART + RLENGTH)
				if (t ~ /^[a-z]+:/) continue
				print NR, t
			}
		}
	' "$1"
}

pass=0
fail=0
for page in README.md docs/*.md; do
	dir=$(dirname "$page")
	links "$page" > "$tmp/links"
	while read -r line target; do
		file=${target%%#*}
		anchor=
		case $target in *'#'*) anchor=${target#*#} ;; esac
		if [ -z "$file" ]; then
			path=$page
		else
			path=$dir/$file
		fi
		if [ ! -e "$path" ]; then
			echo "$page:$line: $target: no file $path"
			fail=$((fail + 1))
			continue
		fi
		if [ -n "$anchor" ]; then
			case $path in
			*.md)
				anchors "$path" > "$tmp/anchors"
				if ! grep -qxF -- "$anchor" "$tmp/anchors"; then
					echo "$page:$line: $target: no heading #$anchor in $path"
					fail=$((fail + 1))
					continue
				fi
				;;
			esac
		fi
		pass=$((pass + 1))
	done < "$tmp/links"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
