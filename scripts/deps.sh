#!/bin/sh
# deps.sh - install what kvcalc needs to build and test, when it is missing: a C compiler
# (and Clang, the second one the tests build with), cmake, cmocka, pkg-config (the install test builds a program with it) and libabigail's
# abidiff (the ABI check). Debian/Ubuntu
# (apt-get); elsewhere it only says what is missing.
set -eu

missing=""
command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || missing="$missing gcc libc6-dev"
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
# the second compiler whose warnings are errors too (scripts/test.sh builds with both)
command -v clang >/dev/null 2>&1 || missing="$missing clang"
command -v make >/dev/null 2>&1 || command -v ninja >/dev/null 2>&1 || missing="$missing make"
command -v pkg-config >/dev/null 2>&1 || command -v pkgconf >/dev/null 2>&1 || missing="$missing pkg-config"
cmocka_found=0
for d in /usr/include /usr/local/include /opt/homebrew/include; do
  [ -f "$d/cmocka.h" ] && cmocka_found=1
done
[ "$cmocka_found" = 1 ] || missing="$missing libcmocka-dev"
# the ABI check (scripts/abi.sh) compares libkvcalc.so with the last release's, by libabigail
command -v abidiff >/dev/null 2>&1 || missing="$missing abigail-tools"

# optional: rsvg-convert lets the tests render --plot's SVG (they skip that step without it)
optional=""
command -v rsvg-convert >/dev/null 2>&1 || optional="librsvg2-bin"

[ -z "$missing" ] && [ -z "$optional" ] && exit 0

if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "deps.sh: installing:$missing $optional" >&2
  $sudo apt-get update -qq || true
  if [ -n "$missing" ]; then
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
  if [ -n "$optional" ]; then
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $optional \
      >/dev/null 2>&1 || echo "deps.sh: $optional not installed; the SVG render test will skip" >&2
  fi
elif [ -n "$missing" ]; then
  echo "deps.sh: please install:$missing" >&2
  exit 1
fi
