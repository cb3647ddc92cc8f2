#!/bin/sh
# test.sh - the whole test suite, from a fresh checkout: installs missing tools, builds and
# runs every test (unit, end-to-end, golden), builds it all again with Clang (warnings are
# errors with both compilers), checks the shared library's ABI against the
# last release of its SONAME (scripts/abi.sh), then does it all again under
# AddressSanitizer and UndefinedBehaviorSanitizer. Exits non-zero on any failure.
set -eu
cd "$(dirname "$0")/.."

sh scripts/deps.sh

jobs=2
echo "== build and test (build/)"
cmake -S . -B build -DBUILD_TESTING=ON -DKVCALC_SANITIZE=OFF -DKVCALC_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null # optimized: GCC warns about more
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== build with Clang, optimized, warnings as errors (build-clang/)"
CC=clang cmake -S . -B build-clang -DBUILD_TESTING=ON -DKVCALC_SANITIZE=OFF -DKVCALC_WERROR=ON \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-clang -j "$jobs"

echo "== the ABI of build/libkvcalc.so against the last release of its SONAME (abi/)"
sh scripts/abi.sh build

echo "== build and test under ASan + UBSan (build-sanitize/)"
cmake -S . -B build-sanitize -DBUILD_TESTING=ON -DKVCALC_SANITIZE=ON -DKVCALC_WERROR=ON \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-sanitize -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j "$jobs"
