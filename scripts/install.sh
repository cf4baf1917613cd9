#!/bin/sh
# scripts/install.sh - `make install` and `make uninstall`.
#
#   sh scripts/install.sh install      copy ./plumb and its data (scenarios,
#                                      catalogs, grids, model configs, the
#                                      validation cases, their scenarios and
#                                      measured data) under
#                                      $DESTDIR$PREFIX, and list every file
#                                      and directory it made in
#                                      share/plumb/install-manifest
#   sh scripts/install.sh uninstall    remove exactly what that manifest lists
#                                      (files, then the directories it made,
#                                      when they are empty), then the manifest
#
# PREFIX (default /usr/local) and DESTDIR come from the environment (the
# Makefile exports them), so a path with spaces, quotes or '$' in it is used
# as it is and never split or expanded by a shell. Every path is quoted.
#
# The manifest holds one entry a line, relative to $DESTDIR$PREFIX:
#   f bin/plumb                   a file install wrote
#   d share/plumb/scenarios       a directory install created (it did not
#                                 exist before), removed only when empty
# Uninstall refuses (exit 1, nothing removed) without a manifest, and skips
# an entry that is absolute or has a '..' component. Reinstalling first
# removes the files the previous manifest lists, so a file dropped from the
# source tree does not stay behind.
#
# Exit status: 0 ok, 1 error (its message on stderr), 2 usage.
set -eu
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
root=$DESTDIR$PREFIX
data=$root/share/plumb
manifest=$data/install-manifest

die() {
	echo "install.sh: $*" >&2
	exit 1
}

# entry_ok REL: 0 when REL is a relative path with no '..' component
entry_ok() {
	case $1 in
	'' | /* | .. | ../* | */.. | */../*) return 1 ;;
	esac
	return 0
}

# remove_listed MANIFEST: remove its files, then its directories (deepest
# first) when empty. Leaves everything else alone.
remove_listed() {
	while IFS= read -r line; do
		kind=${line%% *}
		rel=${line#* }
		if ! entry_ok "$rel"; then
			echo "install.sh: skipped a manifest entry outside $root: $rel" >&2
			continue
		fi
		if [ "$kind" = f ]; then rm -f -- "$root/$rel"; fi
	done <"$1"
	# directories: longest path first, so children go before parents
	grep '^d ' "$1" | cut -c3- | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2- |
		while IFS= read -r rel; do
			entry_ok "$rel" || continue
			if [ -d "$root/$rel" ]; then rmdir -- "$root/$rel" 2>/dev/null || true; fi
		done
}

# mkdirs REL...: create each directory under $root (and its parents),
# recording in $new those that did not exist
mkdirs() {
	for rel in "$@"; do
		d=
		old_ifs=$IFS
		IFS=/
		# shellcheck disable=SC2086 # split on '/' on purpose
		set -f
		for part in $rel; do
			d=${d:+$d/}$part
			if [ ! -d "$root/$d" ]; then
				mkdir -- "$root/$d"
				printf 'd %s\n' "$d" >>"$new"
			fi
		done
		set +f
		IFS=$old_ifs
	done
}

# put MODE SRC REL: install SRC as $root/REL, recorded in the manifest
put() {
	case $3 in *'
'*) die "a file name holds a newline: $3" ;; esac
	install -m "$1" -- "$2" "$root/$3"
	printf 'f %s\n' "$3" >>"$new"
}

case ${1:-} in
install)
	[ -f plumb ] || die "./plumb is not built (run make first)"
	case $root in /*) ;; *) die "PREFIX must be an absolute path, not '$PREFIX'" ;; esac
	mkdir -p -- "$root"
	new=$(mktemp "${TMPDIR:-/tmp}/plumb-manifest.XXXXXX")
	trap 'rm -f "$new"' EXIT
	# directories the previous install made are still ours
	if [ -f "$manifest" ]; then
		grep '^d ' "$manifest" >>"$new" || true
		remove_listed "$manifest"
	fi
	mkdirs bin share/plumb/scenarios/catalog share/plumb/scenarios/grids share/plumb/models/hf \
		share/plumb/validation/scenarios share/plumb/validation/data
	put 755 plumb bin/plumb
	for f in scenarios/*.yaml; do put 644 "$f" "share/plumb/$f"; done
	for f in scenarios/catalog/*.yaml; do put 644 "$f" "share/plumb/$f"; done
	for f in scenarios/grids/*.yaml; do put 644 "$f" "share/plumb/$f"; done
	# the validation cases with their scenarios and measured data, under
	# the paths the case list and docs/cli-calibrate.md's examples name them by
	put 644 validation/cases.yaml share/plumb/validation/cases.yaml
	for f in validation/scenarios/*.yaml; do put 644 "$f" "share/plumb/$f"; done
	for f in validation/data/*; do
		if [ -f "$f" ]; then put 644 "$f" "share/plumb/$f"; fi
	done
	# tests/data/hf as models/hf: each model's directory and its files
	(cd tests/data/hf && find . -type d ! -name . | sed 's|^\./||' | LC_ALL=C sort) >"$new.dirs"
	while IFS= read -r d; do mkdirs "share/plumb/models/hf/$d"; done <"$new.dirs"
	(cd tests/data/hf && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$new.files"
	while IFS= read -r f; do put 644 "tests/data/hf/$f" "share/plumb/models/hf/$f"; done <"$new.files"
	rm -f "$new.dirs" "$new.files"
	# a directory listed twice (an earlier install and this one) once
	awk '!seen[$0]++' "$new" >"$new.u"
	install -m 644 -- "$new.u" "$manifest"
	rm -f "$new.u"
	echo "installed $root/bin/plumb and $data ($(grep -c '^f ' "$manifest") files; uninstall removes only those, from $manifest)"
	;;
uninstall)
	[ -f "$manifest" ] || die "no $manifest: nothing removed (uninstall removes only what an install listed there)"
	list=$(mktemp "${TMPDIR:-/tmp}/plumb-manifest.XXXXXX")
	trap 'rm -f "$list"' EXIT
	cp -- "$manifest" "$list"
	rm -f -- "$manifest"    # first, so share/plumb can go when it is empty
	remove_listed "$list"
	echo "removed what $manifest listed"
	;;
*)
	echo "usage: sh scripts/install.sh install | uninstall   (PREFIX, DESTDIR from the environment)" >&2
	exit 2
	;;
esac
