#!/bin/sh
# calib_seed.sh: scripts/calibrate-seed.sh prints exactly the constants the
# repository carries for the seed scenarios (`plumb constants SCENARIO`:
# gpu and engine scope for both seed scenarios, box and vm scope for the
# VM), and the VM they imply serves one stream within 10% of the seed's
# 11 tok/s. Names come from the script's output, so a change of what it
# fits needs no change here.
set -u
PLUMB=${PLUMB:-./plumb}
BM=scenarios/baremetal-8x-rtxpro6000.yaml
VM=scenarios/proxmox-vm-8x-rtxpro6000.yaml
pass=0
fail=0
out=$(sh scripts/calibrate-seed.sh 2>/dev/null) || { echo "calib_seed: calibrate-seed.sh failed"; exit 1; }
# "  name: value" lines under the scope headers
lines=$(printf '%s\n' "$out" | awk '/^  [a-z0-9_]+: / { print $1, $2 }' | tr -d ':')
[ -n "$lines" ] || { echo "calib_seed: no constants in the script's output"; exit 1; }
check() {   # check SCENARIO NAME VALUE
	got=$("$PLUMB" constants "$1" --format yaml | awk -v n="$2" '$1 == n ":" { print $2; exit }')
	if [ "$got" = "$3" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL $2: calibrate-seed.sh prints $3, plumb constants $1 reports '$got'"
		fail=$((fail + 1))
	fi
}
printf '%s\n' "$lines" | {
	while read -r name value; do
		scope=$("$PLUMB" constants | awk -v n="$name" '$1 == n { print $2; exit }')
		case $scope in
		gpu | engine | nccl) check "$BM" "$name" "$value"; check "$VM" "$name" "$value" ;;
		*) check "$VM" "$name" "$value" ;;
		esac
	done
	tok=$("$PLUMB" predict "$VM" --draws 0 --layout tp8 --concurrency 1 --format csv 2>/dev/null |
		awk -F, 'NR == 2 { print $6 }')
	if awk -v t="$tok" 'BEGIN { exit !(t > 0 && t / 11 - 1 <= 0.1 && 1 - t / 11 <= 0.1) }'; then
		pass=$((pass + 1))
	else
		echo "FAIL the seed VM at one stream: $tok tok/s, not within 10% of 11"
		fail=$((fail + 1))
	fi
	echo "calib_seed: $pass passed, $fail failed (seed VM single stream $tok tok/s against 11)"
	[ $fail -eq 0 ]
}
