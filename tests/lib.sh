# tests/lib.sh - the harness the CLI test scripts share (POSIX sh). Sourced,
# not run, from a script started in the source tree's root:
#   . "$(dirname "$0")/lib.sh"
#   begin_tests NAME
#   ... checks ...
#   end_tests [LABEL]        the script's last command
# Sourcing sets LC_ALL=C (exported) and PLUMB, the binary under test
# (default ./plumb; a PLUMB in the environment wins).
#   begin_tests NAME    a fresh temporary directory in $tmp
#                       ($TMPDIR/plumb-NAME.XXXXXX, /tmp by default; exit 2
#                       when it cannot be made), removed when the script
#                       exits; INT and TERM exit 130 (removing it too); the
#                       counters pass and fail start at 0
#   ok                  a check passed
#   bad MESSAGE...      a check failed: prints "FAIL: MESSAGE"
#   check DESCRIPTION COMMAND...
#                       ok when COMMAND succeeds, else bad DESCRIPTION
#   end_tests [LABEL]   prints "N passed, M failed" ("LABEL: N passed, M
#                       failed" with a label); returns 1 when M > 0, so the
#                       script exits 1 on any failed check
# Names starting with t_ are the harness's own.
LC_ALL=C
export LC_ALL
PLUMB=${PLUMB:-./plumb}

begin_tests() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-$1.XXXXXX") || exit 2
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT TERM
	pass=0
	fail=0
}

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { t_d=$1; shift; if "$@"; then ok; else bad "$t_d"; fi; }

end_tests() {
	echo "${1:+$1: }$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
