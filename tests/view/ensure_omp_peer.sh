#!/bin/sh
# Installs oh-my-pi's tree-selector library (@oh-my-pi/pi-tui, whose fuzzy matcher is the judge
# in tests/view/test_omp_oracle.py) into $OMP_PEER (default /tmp/peer-omp) once. The package is
# unpacked without its dependencies: the matcher imports nothing. omp 18.3.4's own package
# (@oh-my-pi/pi-coding-agent) cannot be installed (it names a pi-tui 18.3.4 and omp-stats 18.3.4
# that npm does not have) and runs only under bun; its bundled matcher is 18.2.9's, unchanged.
set -e
OMP_PEER=${OMP_PEER:-/tmp/peer-omp}
PKG="$OMP_PEER/pi-tui"
if [ ! -f "$PKG/src/fuzzy.ts" ]; then
  mkdir -p "$OMP_PEER" && cd "$OMP_PEER"
  tarball=$(npm pack --silent @oh-my-pi/pi-tui@18.2.9)
  rm -rf "$PKG" && mkdir -p "$PKG" && tar xzf "$tarball" -C "$PKG" --strip-components=1 && rm -f "$tarball"
fi
