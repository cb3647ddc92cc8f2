#!/bin/sh
# bench.sh - what one kvcalc invocation costs, next to starting a trivial process.
# Usage: bench/bench.sh [path/to/kvcalc] [runs]. Prints mean wall time per run for
# /bin/true, kvcalc (text), and kvcalc --format json. Uses hyperfine when installed.
set -eu
bin=${1:-build/kvcalc}
runs=${2:-1000}
[ -x "$bin" ] || { echo "bench.sh: build kvcalc first ($bin not found)" >&2; exit 1; }

if command -v hyperfine >/dev/null 2>&1; then
  hyperfine -N --warmup 50 --runs "$runs" /bin/true "$bin" "$bin --format json --context 131072"
  exit 0
fi

now_ns() { date +%s%N; }
measure() { # label, command...
  label=$1; shift
  start=$(now_ns)
  i=0
  while [ "$i" -lt "$runs" ]; do "$@" >/dev/null; i=$((i + 1)); done
  end=$(now_ns)
  echo "$label: $(( (end - start) / runs / 1000 )) us per run ($runs runs)"
}
measure "/bin/true              " /bin/true
measure "kvcalc                 " "$bin"
measure "kvcalc --format json   " "$bin" --format json --context 131072
