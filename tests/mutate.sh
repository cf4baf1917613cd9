#!/bin/sh
# tests/mutate.sh - mutation testing (make mutate): does the fast suite
# notice when the code is wrong?
#
# The committed tree (git archive HEAD) is copied to a temporary directory
# and built there once, so the working tree is never touched. Then, for each
# mutation of the table below (FILE @@ FROM @@ TO: the one occurrence of the
# text FROM in FILE becomes TO: a dropped check, a flipped condition, an
# off-by-one bound, an in-place write, an ignored write error), the copy is
# rebuilt and the fast tests run: tests/output_safety.sh, the golden runs,
# the bad inputs, the repeat runs and the unit tests, stopping at the first
# failure, each under `timeout` (a mutant that hangs is killed too). A
# mutant is killed when a test fails, survives when all pass; one that does
# not compile is a bug of the table and fails the run. Ends with
#   mutation score: K of N killed (P%)
# and exits 1 below MUTATE_MIN percent (default 90). Surviving mutants are
# listed; each is explained in docs/testing.md ("Mutation testing").
#   sh tests/mutate.sh            every mutant (about 8 minutes on 2 cores)
#   sh tests/mutate.sh 3 7        mutants 3 and 7 only
#   MUTATE_FROM=worktree          mutate the working tree's copy, not HEAD's
#   MUTATE_CHECK=1                only check that every mutation applies
LC_ALL=C
export LC_ALL
MIN=${MUTATE_MIN:-90}
src=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-mutate.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 120"

if [ "${MUTATE_FROM:-head}" = worktree ]; then
	# the working tree as it is (tracked and new files), for a change not yet committed
	git -C "$src" ls-files -co --exclude-standard | (cd "$src" && tar -cf - -T -) |
		tar -x -C "$tmp" || exit 2
else
	git -C "$src" archive HEAD | tar -x -C "$tmp" || exit 2
fi
cd "$tmp" || exit 2
if [ -z "$MUTATE_CHECK" ]; then
	echo "mutate: building the tree in $tmp"
	make -j2 OPT=-O1 plumb build/unit-tests >build.log 2>&1 || { tail -20 build.log; exit 2; }
fi

# replace FILE FROM TO: the single occurrence of FROM becomes TO (awk -v
# turns \t and \n in them into a tab and a line break, \\ into \); 1
# when FROM is missing or appears more than once.
replace() {
	awk -v from="$2" -v to="$3" '
		{ s = s (NR > 1 ? "\n" : "") $0 }
		END {
			n = 0
			rest = s
			while ((k = index(rest, from)) > 0) { n++; rest = substr(rest, k + length(from)) }
			if (n != 1) exit 1
			k = index(s, from)
			printf "%s\n", substr(s, 1, k - 1) to substr(s, k + length(from))
		}' "$1" >"$1.mut" && mv "$1.mut" "$1"
}

# the fast tests, first failure wins; 0 when all pass
fast_tests() {
	for t in "sh tests/output_safety.sh" "sh tests/golden/run.sh" "sh tests/bad_inputs.sh" \
		 "sh tests/repeat.sh" "build/unit-tests"; do
		# shellcheck disable=SC2086 # TO and t are word lists
		if ! $TO $t >test.log 2>&1; then
			echo "$t"
			return 1
		fi
	done
	return 0
}

# the baseline: without a mutation every test passes, or no kill means anything
if [ -z "$MUTATE_CHECK" ] && ! fast_tests >/dev/null; then
	echo "mutate: the fast tests fail on the tree without any mutation"
	tail -20 test.log
	exit 2
fi

n=0
killed=0
survived=
bad=0
while IFS= read -r line; do
	case $line in '' | '#'*) continue ;; esac
	n=$((n + 1))
	if [ $# -gt 0 ]; then
		want=0
		for a in "$@"; do [ "$a" = $n ] && want=1; done
		[ $want = 1 ] || { n=$((n)); continue; }
	fi
	file=$(printf '%s\n' "$line" | awk -F ' @@ ' '{ print $1 }')
	from=$(printf '%s\n' "$line" | awk -F ' @@ ' '{ print $2 }')
	to=$(printf '%s\n' "$line" | awk -F ' @@ ' '{ print $3 }')
	cp "$file" "$file.orig"
	if ! replace "$file" "$from" "$to"; then
		echo "mutant $n: $file: '$from' is not in the file exactly once"
		bad=$((bad + 1))
		mv "$file.orig" "$file"
		continue
	fi
	if [ -n "$MUTATE_CHECK" ]; then
		echo "mutant $n: applies  ($file)"
	elif ! make -j2 OPT=-O1 plumb build/unit-tests >build.log 2>&1; then
		echo "mutant $n: $file: does not compile"
		bad=$((bad + 1))
	elif which=$(fast_tests); then
		echo "mutant $n: SURVIVED  $file: $from  ->  $to"
		survived="$survived $n"
	else
		echo "mutant $n: killed by $which  ($file)"
		killed=$((killed + 1))
	fi
	mv "$file.orig" "$file"
	touch "$file"
done <<'TABLE'
# ---- io/out.c: the safe output path
io/out.c @@ \t\tif (bad || e)\n @@ \t\tif (0)\n
io/out.c @@ \t*kind = OUT_REPLACE;\n\t*mode = st.st_mode & 07777; @@ \t*kind = OUT_DIRECT;\n\t*mode = st.st_mode & 07777;
io/out.c @@ S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) @@ S_ISCHR(st.st_mode)
io/out.c @@ O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode @@ O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode
io/out.c @@ \tif (!S_ISLNK(ls.st_mode))\n @@ \tif (1)\n
io/out.c @@ \tif (o->tmp)\n\t\tremove(o->tmp);\n @@ \n
io/out.c @@ \tif (mode)\n\t\t(void)fchmod(fd, mode);\n @@ \n
io/out.c @@ \t\tcase '<': fputs("&lt;", f); break;\n @@ \n
io/out.c @@ \t\tif (c == '-' && prev == '-')\n @@ \t\tif (0)\n
io/out.c @@ \ttrack_tmp(o->tmp);\n @@ \n
io/out.c @@ rename(o->tmp, o->target) != 0 @@ rename(o->tmp, o->path) != 0
# ---- io/input.c, io/ytree.c, io/err.c, io/import_topom.c: readers, YAML, messages
io/input.c @@ (unsigned long long)st->st_size > PLUMB_MAX_INPUT @@ (unsigned long long)st->st_size >= PLUMB_MAX_INPUT
io/input.c @@ \t\tif (n > PLUMB_MAX_INPUT) { @@ \t\tif (0) {
io/input.c @@ \tif (!S_ISREG(st.st_mode))\n @@ \tif (0)\n
io/input.c @@ \tif (S_ISDIR(st->st_mode))\n @@ \tif (0)\n
io/ytree.c @@ \tif (b->depth >= YMAX_DEPTH) @@ \tif (b->depth > YMAX_DEPTH)
io/ytree.c @@ \t\tfor (i = 0; i < c->n; i++)\n @@ \t\tfor (i = 0; i < 0; i++)\n
io/ytree.c @@ \t\tif (a->open)\n @@ \t\tif (0)\n
io/ytree.c @@ \t\tif (b->docs++)\n @@ \t\tif (0)\n
io/ytree.c @@ errno == ERANGE && fabs(v) < 1 @@ errno == ERANGE && fabs(v) > 1
io/ytree.c @@ !n->quoted && strcmp(n->str, "<<") == 0 @@ 0
io/err.c @@ \t\t\tdst[o++] = '?'; @@ \t\t\tdst[o++] = (char)s[i];
io/err.c @@ \t\tif (shown == max) { @@ \t\tif (0) {
io/err.c @@ \tif (col > 80)\n @@ \tif (col > 8000)\n
io/err.c @@ (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff @@ cp > 0x10ffff
io/import_topom.c @@ ngpu == IMP_MAX_GPUS; @@ ngpu == IMP_MAX_GPUS + 1;
# ---- models/sweep: output, locking, resuming
models/sweep/run.c @@ \t\tif (json && end > row && end[-1] == ',') @@ \t\tif (end > row && end[-1] == ',')
models/sweep/run.c @@ \tif (!csv)\n\t\treturn strchr(p, '\\n'); @@ \tif (1)\n\t\treturn strchr(p, '\\n');
models/sweep/run.c @@ \tif (!*buf)\n\t\treturn 0;\n @@ \n
models/sweep/run.c @@ flock(fd, LOCK_EX | LOCK_NB) != 0 @@ 0
models/sweep/run.c @@ O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY @@ O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY
models/sweep/run.c @@ \t\t\tif (o && !o->used) { @@ \t\t\tif (0) {
models/sweep/run.c @@ rename(partial, target) != 0 @@ rename(partial, o->outpath) != 0
models/sweep/run.c @@ if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) { @@ if (lseek(fd, 0, SEEK_END) < 0) {
models/sweep/rows.c @@ \t\tif (c == '\\n')\n\t\t\tswp_sb_put(b, "\\\\n", 2); @@ \t\tif (0)\n\t\t\tswp_sb_put(b, "\\\\n", 2);
models/sweep/rows.c @@ if (c == 'n')\n\t\t\t\t\t\t\tc = '\\n'; @@ if (0)\n\t\t\t\t\t\t\tc = '\\n';
models/sweep/rows.c @@ strpbrk(s, ",\\"\\n\\r") @@ strpbrk(s, ",\\"\\r")
models/sweep/grid.c @@ \tif (g->npoints > SWP_MAX_POINTS) { @@ \tif (0) {
# ---- models/predict
models/predict/predict.c @@ \tif (b->c->lay.kind != LAY_EP && b->c->lay.tp > 1)\n\t\treturn emit(b, SOP_ALLREDUCE @@ \tif (b->c->lay.kind != LAY_EP && b->c->lay.tp > 2)\n\t\treturn emit(b, SOP_ALLREDUCE
models/predict/predict.c @@ c->lay.pp > 1 ? 4 : 1; @@ c->lay.pp > 1 ? 3 : 1;
models/predict/predict.c @@ \tif (c->lay.gpus > s->ngpus)\n @@ \tif (c->lay.gpus > s->ngpus + 1)\n
models/predict/predict.c @@ (int)context, err)) < 0)\n\t\t\treturn rc;\n\t}\n\treturn 0; @@ (int)context, err)) < -100)\n\t\t\treturn rc;\n\t}\n\treturn 0;
models/predict/predict.c @@ sh->last = m->layers * (st + 1) / l->pp; @@ sh->last = m->layers * (st + 1) / l->pp + 1;
# ---- cli: option parsing
cli/main.c @@ \t\tfor (j = from; j < i; j++)\n @@ \t\tfor (j = i; j < i; j++)\n
cli/main.c @@ \t\tif (!a[0])\n @@ \t\tif (0)\n
cli/main.c @@ \t\tif (a[option_len(a)] == '=' && !a[option_len(a) + 1])\n @@ \t\tif (0)\n
cli/cmd_calibrate.c @@ \t\t\tif (same_file(files[i], files[j]))\n @@ \t\t\tif (0)\n
cli/cmd_calibrate.c @@ \t\tif (input_check(files[i], &err) < 0)\n @@ \t\tif (0)\n
cli/cmd_predict.c @@ \tif (o->accept_given && !o->mtp_given)\n @@ \tif (0)\n
cli/cmd.c @@ \tplumb_err_safe(shown, sizeof(shown), msg, PLUMB_ERR_SHOWN); @@ \tsnprintf(shown, sizeof(shown), "%s", msg);
TABLE

cd "$src" || exit 2
if [ -n "$MUTATE_CHECK" ]; then
	echo "mutate: $((n - bad)) of $n mutations apply"
	[ $bad -eq 0 ]
	exit
fi
total=$((killed + $(echo $survived | wc -w)))
[ $total -gt 0 ] || { echo "mutate: no mutant ran"; exit 2; }
pct=$((100 * killed / total))
[ -n "$survived" ] && echo "surviving mutants:$survived (explained in docs/testing.md)"
echo "mutation score: $killed of $total killed ($pct%)"
[ $bad -eq 0 ] || { echo "mutate: $bad mutants of the table do not apply or compile"; exit 1; }
[ $pct -ge "$MIN" ]
