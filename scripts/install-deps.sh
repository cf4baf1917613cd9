#!/bin/sh
# install-deps.sh - install the Debian packages plumb builds and tests with.
# Idempotent: installs only what is missing. Needs root (uses sudo if present).
#   build:  gcc make pkg-config libgsl-dev libyaml-dev libcairo2-dev libjansson-dev libxml2-dev libcunit1-dev
#   tests:  python3 (JSON validity checks in the golden runs), chromium (the HTML
#           report loaded in a headless browser: tests/report_browser.sh)
#   mpi:    libopenmpi-dev openmpi-bin (make MPI=1, make check-mpi)
#   slower tiers: clang libclang-rt-14-dev (make fuzz), valgrind (make check-valgrind)
set -eu
PKGS="gcc make pkg-config libgsl-dev libyaml-dev libcairo2-dev libjansson-dev libxml2-dev libcunit1-dev python3 chromium libopenmpi-dev openmpi-bin clang libclang-rt-14-dev valgrind"
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
fi
echo "install-deps: installing$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
