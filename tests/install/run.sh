#!/bin/sh
# run.sh - the install test: installs the build into a temporary prefix, then builds the
# consumer program (consumer.c, which includes only <kvcalc.h>) against that prefix the
# two ways users do - pkg-config and find_package(kvcalc) - and runs every build.
#   1. cc consumer.c $(pkg-config --cflags --libs kvcalc)              -> libkvcalc.so
#   2. cc -static consumer.c $(pkg-config --static --cflags --libs kvcalc) -> libkvcalc.a
#   3. CMake: find_package(kvcalc) + kvcalc::kvcalc and kvcalc::kvcalc_static
# Exits 77 (skipped) only when pkg-config is not installed.
# Usage: run.sh BUILD-DIR [CC] [CMAKE] [CMAKE-GENERATOR]   (ctest passes all four)
set -eu
build=${1:?usage: run.sh BUILD-DIR [CC] [CMAKE] [CMAKE-GENERATOR]}
cc=${2:-cc}
cmake=${3:-cmake}
generator=${4:-}
here=$(cd "$(dirname "$0")" && pwd)

if command -v pkg-config >/dev/null 2>&1; then
  pkgconfig=pkg-config
elif command -v pkgconf >/dev/null 2>&1; then
  pkgconfig=pkgconf
else
  echo "run.sh: pkg-config not installed (scripts/deps.sh installs it), skipped"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "run.sh: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "cmake --install"; }

# what an install holds, where GNUInstallDirs put it (ctest passes the dirs CMake used)
bindir=${KVCALC_INSTALL_BINDIR:-bin}
includedir=${KVCALC_INSTALL_INCLUDEDIR:-include}
datadir=${KVCALC_INSTALL_DATADIR:-share}
mandir=${KVCALC_INSTALL_MANDIR:-share/man}
docdir=${KVCALC_INSTALL_DOCDIR:-share/doc/kvcalc}
if [ -n "${KVCALC_INSTALL_LIBDIR:-}" ]; then
  libdir=$prefix/$KVCALC_INSTALL_LIBDIR
else # lib, lib64 or lib/<multiarch>: where kvcalc.pc is
  libdir=$(dirname "$(dirname "$(find "$prefix" -name kvcalc.pc -path '*/pkgconfig/*')")")
fi
pc=$libdir/pkgconfig/kvcalc.pc
for f in "$bindir/kvcalc" "$includedir/kvcalc.h" "$includedir/kvcalc_json.h" \
         "$includedir/kvcalc_engines.h" "$includedir/kvcalc_engines.def" \
         "$includedir/kvcalc_version.h" "$mandir/man1/kvcalc.1" "$docdir/LICENSE" \
         "$docdir/formula.md" "$datadir/bash-completion/completions/kvcalc" \
         "$datadir/zsh/site-functions/_kvcalc" "$datadir/fish/vendor_completions.d/kvcalc.fish"; do
  [ -f "$prefix/$f" ] || fail "not installed: $f"
done
for f in libkvcalc.a libkvcalc.so pkgconfig/kvcalc.pc cmake/kvcalc/kvcalcConfig.cmake \
         cmake/kvcalc/kvcalcConfigVersion.cmake cmake/kvcalc/kvcalcTargets.cmake; do
  [ -e "$libdir/$f" ] || fail "not installed: $libdir/$f"
done
grep -q "^prefix=$prefix\$" "$pc" || fail "kvcalc.pc does not name the install prefix: $(grep ^prefix= "$pc")"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
version=$($pkgconfig --modversion kvcalc) || fail "pkg-config finds no kvcalc"
step "kvcalc.pc: version $version, $($pkgconfig --cflags --libs kvcalc)"
# a user's program: strict C11, and the public header must not warn
cflags="-std=c11 -Wall -Wextra -Wpedantic -Werror"
expect="-DEXPECTED_VERSION=\"$version\""

step "pkg-config, shared: $cc consumer.c \$(pkg-config --cflags --libs kvcalc)"
# shellcheck disable=SC2046,SC2086
"$cc" $cflags "$expect" "$here/consumer.c" -o "$tmp/consumer-pc" $($pkgconfig --cflags --libs kvcalc) ||
  fail "building the consumer with pkg-config"
if command -v readelf >/dev/null 2>&1; then
  readelf -d "$tmp/consumer-pc" | grep -q 'NEEDED.*libkvcalc\.so' ||
    fail "the pkg-config consumer does not use libkvcalc.so"
fi
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/consumer-pc" ||
  fail "the pkg-config consumer (shared)"

printf 'int main(void) { return 0; }\n' > "$tmp/probe.c"
if "$cc" -static "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1; then
  step "pkg-config, static: $cc -static consumer.c \$(pkg-config --static --cflags --libs kvcalc)"
  # shellcheck disable=SC2046,SC2086
  "$cc" $cflags "$expect" -static "$here/consumer.c" -o "$tmp/consumer-pc-static" \
    $($pkgconfig --static --cflags --libs kvcalc) ||
    fail "building the consumer with pkg-config --static (Libs.private missing?)"
  (unset LD_LIBRARY_PATH; "$tmp/consumer-pc-static") || fail "the pkg-config consumer (static)"
else
  echo "run.sh: $cc cannot link -static here (no static C library); static pkg-config link skipped"
fi

step "CMake: find_package(kvcalc) with CMAKE_PREFIX_PATH=$prefix"
set -- -S "$here" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release
[ -n "$generator" ] && set -- "$@" -G "$generator"
"$cmake" "$@" > "$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log" >&2; fail "configuring the CMake consumer"; }
found=$(sed -n 's/^kvcalc_DIR:PATH=//p' "$tmp/cmake-build/CMakeCache.txt")
case $found in
  "$prefix"/*) ;;
  *) fail "find_package(kvcalc) found $found, not the install in $prefix" ;;
esac
"$cmake" --build "$tmp/cmake-build" > "$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log" >&2; fail "building the CMake consumer"; }
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/cmake-build/consumer" ||
  fail "the CMake consumer (kvcalc::kvcalc)"
(unset LD_LIBRARY_PATH; "$tmp/cmake-build/consumer_static") ||
  fail "the CMake consumer (kvcalc::kvcalc_static)"

echo "run.sh: install test ok"
