#!/bin/sh
# abi.sh - the ABI check: libkvcalc.so of a build, against the ABI of the last release of
# its SONAME (abi/libkvcalc.so.MAJOR.abi, written by libabigail's abidw). A change that
# breaks programs built against that release (a removed function, a struct of kvcalc.h
# that changed) fails; additions pass. kvcalc_engines.h is not held stable
# (abi/suppressions.txt). A new SONAME needs its baseline: abi.sh --update writes it.
# Installs abigail-tools (Debian) when missing.
# Usage: scripts/abi.sh [--update] [BUILD-DIR]   (default: a fresh build in build-abi/)
set -eu
cd "$(dirname "$0")/.."
update=0
if [ "${1:-}" = "--update" ]; then
  update=1
  shift
fi
if ! command -v abidiff >/dev/null 2>&1 || ! command -v abidw >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "abi.sh: installing abigail-tools" >&2
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      abigail-tools >/dev/null
  else
    echo "abi.sh: please install libabigail (abidw, abidiff)" >&2
    exit 1
  fi
fi
build=${1:-build-abi}
if [ -z "${1:-}" ]; then
  cmake -S . -B "$build" -DBUILD_TESTING=OFF -DKVCALC_WERROR=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null # debug info: the types abidw reads
  cmake --build "$build" -j 2 --target kvcalc_shared >/dev/null
fi
lib=$(find "$build" -maxdepth 1 -name 'libkvcalc.so.*.*.*' | sort | tail -n 1)
[ -n "$lib" ] || { echo "abi.sh: no libkvcalc.so in $build" >&2; exit 1; }
major=$(basename "$lib" | sed 's/^libkvcalc\.so\.\([0-9]*\)\..*/\1/')
base=abi/libkvcalc.so.$major.abi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
abidw --headers-dir include --headers-dir "$build/include" --drop-private-types --no-corpus-path \
  --out-file "$tmp/now.abi" "$lib"
if [ "$update" = 1 ]; then
  cp "$tmp/now.abi" "$base"
  echo "abi.sh: wrote $base (the ABI of $(basename "$lib"))"
  exit 0
fi
if [ ! -f "$base" ]; then
  echo "abi.sh: no ABI baseline for SONAME $major ($base): a new SONAME is released with" \
       "'scripts/abi.sh --update'" >&2
  exit 1
fi
set +e
abidiff --suppressions abi/suppressions.txt --no-added-syms "$base" "$tmp/now.abi" > "$tmp/report"
rc=$?
set -e
# abidiff's status bits: 1 error, 2 usage, 4 an ABI change, 8 an incompatible change. A
# change to a type a function takes (a struct of kvcalc.h) is reported as bit 4 with the
# function "Changed": it breaks callers too. Only additions are compatible.
changed=$(grep -E '^(Functions|Variables) changes summary:' "$tmp/report" |
          grep -vE ': 0 Removed, 0 Changed' || true)
if [ $((rc & 3)) -ne 0 ] || [ $((rc & 8)) -ne 0 ] || [ -n "$changed" ]; then
  cat "$tmp/report"
  echo "abi.sh: FAIL: $(basename "$lib") breaks the ABI of $base (status $rc); bump the" \
       "SONAME (project VERSION's major) or keep the change compatible" >&2
  exit 1
fi
echo "abi.sh: $(basename "$lib") keeps the ABI of $base$( [ $rc -ne 0 ] && echo ' (compatible additions)')"
