#!/bin/sh
# fuzz.sh - a bounded libFuzzer run of the config, GGUF, safetensors (headers and indexes), startup-log, trace and /metrics readers, -ot's pattern matcher
# and the argument parser, with ASan + UBSan. Needs clang with libFuzzer; skips (exit 0, saying so) when there is none.
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

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DKVCALC_FUZZ=ON -DBUILD_TESTING=OFF \
  -DKVCALC_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j 2 --target fuzz_config fuzz_cli fuzz_gguf fuzz_safetensors fuzz_index fuzz_log fuzz_trace fuzz_metrics fuzz_regex

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/config" "$work/cli" "$work/gguf" "$work/safetensors" "$work/index" "$work/log" "$work/trace" "$work/metrics" "$work/regex"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# run TARGET CORPUS-DIR MAX-LEN SEEDS...: a bounded run; fails on a finding or on a run that
# executed nothing (a fuzzer that silently does no work must not pass)
run() {
  target=$1 corpus=$2 maxlen=$3
  shift 3
  echo "== $target for ${seconds}s (seeds: $*)"
  build-fuzz/tests/fuzz/"$target" "$corpus" "$@" -max_total_time="$seconds" -max_len="$maxlen" \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$work/" > "$work/$target.log" 2>&1 || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)' "$work/$target.log" || true
  for artifact in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
    if [ -e "$artifact" ]; then
      tail -40 "$work/$target.log" >&2
      mkdir -p fuzz-artifacts # ignored by git: findings are kept, never committed
      cp "$artifact" fuzz-artifacts/
      echo "fuzz.sh: $target found a failing input: fuzz-artifacts/$(basename "$artifact")" >&2
      exit 1
    fi
  done
  units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log")
  if [ -z "$units" ] || [ "$units" -eq 0 ]; then
    tail -20 "$work/$target.log" >&2
    echo "fuzz.sh: $target executed nothing" >&2
    exit 1
  fi
}
run fuzz_config "$work/config" 65536 data/models tests/fixtures/variants tests/fixtures/frontier \
  tests/fixtures/unverified
run fuzz_cli "$work/cli" 4000 tests/fuzz/cli_seeds
run fuzz_gguf "$work/gguf" 65536 tests/fuzz/gguf_seeds
run fuzz_safetensors "$work/safetensors" 65536 tests/fuzz/safetensors_seeds \
  -dict=tests/fuzz/safetensors.dict
run fuzz_index "$work/index" 65536 tests/fuzz/index_seeds -dict=tests/fuzz/index.dict
run fuzz_log "$work/log" 65536 tests/logs
run fuzz_trace "$work/trace" 65536 tests/fuzz/trace_seeds
run fuzz_metrics "$work/metrics" 65536 tests/fixtures/metrics
run fuzz_regex "$work/regex" 1024 tests/fuzz/regex_seeds
echo "fuzz.sh: no crash, leak or timeout"
