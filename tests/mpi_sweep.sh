#!/bin/sh
# mpi_sweep.sh - a sweep split across MPI ranks writes the same bytes as one
# process (make check-mpi; needs `make MPI=1 plumb-mpi` and Open MPI's mpirun).
#   sh tests/mpi_sweep.sh [PLUMB PLUMB_MPI]
# Runs scenarios/grids/tiny.yaml (CSV and JSON) with ./plumb -j 1 and with
# mpirun -n 2 (and -n 3, more ranks than points per chunk), compares the
# files byte for byte, then resumes an MPI run from half of its output.
# Ends with "N passed, M failed"; exit status 1 when M > 0.
set -u
cd "$(dirname "$0")/.."
PLUMB=${1:-./plumb}
PLUMB_MPI=${2:-./plumb-mpi}
GRID=scenarios/grids/tiny.yaml
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plumb-mpi.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

for b in "$PLUMB" "$PLUMB_MPI"; do
	if [ ! -x "$b" ]; then
		echo "mpi_sweep.sh: $b not found (make && make MPI=1 plumb-mpi)" >&2
		exit 2
	fi
done
command -v mpirun > /dev/null || { echo "mpi_sweep.sh: mpirun not found (openmpi-bin)" >&2; exit 2; }

same() {   # same LABEL EXPECTED ACTUAL
	if cmp -s "$2" "$3"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $1: $3 differs from $2"
		diff "$2" "$3" | head -n 10
	fi
}

for fmt in csv json; do
	"$PLUMB" sweep "$GRID" -j 1 --fresh --format $fmt -o "$tmp/one.$fmt" || fail=$((fail + 1))
	for n in 2 3; do
		$MPIRUN -n $n "$PLUMB_MPI" sweep "$GRID" --fresh --format $fmt -o "$tmp/mpi$n.$fmt" \
			> "$tmp/log" 2>&1 || { fail=$((fail + 1)); cat "$tmp/log"; }
		same "mpirun -n $n, $fmt" "$tmp/one.$fmt" "$tmp/mpi$n.$fmt"
	done
done

# resume: half the rows present, the MPI run computes the rest
head -n 5 "$tmp/one.csv" > "$tmp/half.csv"
$MPIRUN -n 2 "$PLUMB_MPI" sweep "$GRID" -o "$tmp/half.csv" > "$tmp/log" 2>&1 || { fail=$((fail + 1)); cat "$tmp/log"; }
same "mpirun -n 2, resumed" "$tmp/one.csv" "$tmp/half.csv"

# an invalid grid stops every rank with the same message, exit 3
printf 'plumb_grid: 1\nset: {scenario: %s/scenarios/proxmox-vm-8x-rtxpro6000.yaml, concurency: 4}\n' \
	"$(pwd)" > "$tmp/bad.yaml"
$MPIRUN -n 2 "$PLUMB_MPI" sweep "$tmp/bad.yaml" -o "$tmp/bad.csv" > "$tmp/log" 2>&1
st=$?
if [ "$st" -ne 0 ] && grep -q "did you mean 'concurrency'" "$tmp/log" && [ ! -e "$tmp/bad.csv" ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL: invalid grid under mpirun: exit $st"
	cat "$tmp/log"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
