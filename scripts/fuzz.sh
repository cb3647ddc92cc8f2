#!/bin/sh
# fuzz.sh - a bounded libFuzzer run of the config reader and the argument parser, with
# ASan + UBSan. Needs clang with libFuzzer; skips (exit 0, saying so) when there is none.
# Usage: scripts/fuzz.sh [seconds per target, default 30]
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-30}

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz.sh: clang not found, fuzzing skipped"
  exit 0
fi
probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const unsigned char*d,unsigned long n){(void)d;(void)n;return 0;}\n' > "$probe/p.c"
if ! clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
  echo "fuzz.sh: clang has no libFuzzer here, fuzzing skipped"
  rm -rf "$probe"
  exit 0
fi
rm -rf "$probe"

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DKVCALC_FUZZ=ON -DKVCALC_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j 2 --target fuzz_config fuzz_cli

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/config" "$work/cli"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== fuzz_config for ${seconds}s (seeds: data/models, tests/fixtures/variants)"
build-fuzz/tests/fuzz/fuzz_config "$work/config" data/models tests/fixtures/variants \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$work/" 2>&1 | tail -4
echo "== fuzz_cli for ${seconds}s (seeds: tests/fuzz/cli_seeds)"
build-fuzz/tests/fuzz/fuzz_cli "$work/cli" tests/fuzz/cli_seeds \
  -max_total_time="$seconds" -max_len=4000 -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$work/" 2>&1 | tail -4
if ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* >/dev/null 2>&1; then
  echo "fuzz.sh: the fuzzers found a failing input" >&2
  exit 1
fi
echo "fuzz.sh: no crash, leak or timeout"
