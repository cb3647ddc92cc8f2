#!/bin/sh
# bench.sh - what kvcalc costs: one invocation next to starting a trivial process (the
# usual build, and a fully static one: -DKVCALC_STATIC=ON in build-static/, built here when
# missing), and the throughput of a sweep to CSV (grid points per second).
# Usage: bench/bench.sh [path/to/kvcalc] [runs] [sweep points]
set -eu
bin=${1:-build/kvcalc}
runs=${2:-1000}
points=${3:-1000000}
[ -x "$bin" ] || { echo "bench.sh: build kvcalc first ($bin not found)" >&2; exit 1; }
static=build-static/kvcalc
if [ ! -x "$static" ]; then
  echo "== building the static kvcalc (build-static/)"
  { cmake -S "$(dirname "$0")/.." -B build-static -DKVCALC_STATIC=ON -DBUILD_TESTING=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build-static --target kvcalc; } \
    >/dev/null || static=""
  [ -n "$static" ] || echo "bench.sh: no static build here (a static C library is needed)" >&2
fi

now_ns() { date +%s%N; }

# The first and the last preset of the table: --model finds a preset by name and parses only
# its config, so both should cost the same (startup does not grow with the presets).
index="$(dirname "$0")/../data/models/INDEX.tsv"
first=$(awk -F'\t' '!/^#/ && NF >= 3 { print $2; exit }' "$index")
last=$(awk -F'\t' '!/^#/ && NF >= 3 { a = $2 } END { print a }' "$index")

echo "== one invocation ($runs runs each)"
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine -N --warmup 50 --runs "$runs" /bin/true "$bin" ${static:+"$static"} \
    "$bin --model qwen3-8b --format json" "$bin --model $first" "$bin --model $last"
else
  measure() { # label, command...
    label=$1; shift
    start=$(now_ns)
    i=0
    while [ "$i" -lt "$runs" ]; do "$@" >/dev/null; i=$((i + 1)); done
    end=$(now_ns)
    echo "$label $(( (end - start) / runs / 1000 )) us per run"
  }
  measure "  /bin/true                        " /bin/true
  measure "  kvcalc                           " "$bin"
  [ -z "$static" ] || measure "  kvcalc, static build             " "$static"
  measure "  kvcalc --model qwen3-8b --format json" "$bin" --model qwen3-8b --format json
  measure "  kvcalc --model $first (first preset)" "$bin" --model "$first"
  measure "  kvcalc --model $last (last preset)" "$bin" --model "$last"
fi

echo "== sweep to CSV ($points grid points)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(now_ns)
"$bin" --sweep "context=1..$points+1" --format csv > "$out"
end=$(now_ns)
rows=$(( $(wc -l < "$out") - 1 ))
ns=$(( end - start ))
echo "  $rows rows in $(( ns / 1000000 )) ms: $(( rows * 1000 / (ns / 1000000 + 1) )) points per second"
start=$(now_ns)
"$bin" --sweep "context=1024..131072*2" --sweep "gpu=t4,l4,l40s,a100,h100,h200,b200" \
  --sweep "tp=1,2,4,8" --sweep "dtype=fp16,fp8" --sweep "prefix-tokens=0..999+1" --format csv > "$out"
end=$(now_ns)
rows=$(( $(wc -l < "$out") - 1 ))
ns=$(( end - start ))
echo "  $rows rows over 5 axes in $(( ns / 1000000 )) ms: $(( rows * 1000 / (ns / 1000000 + 1) )) points per second"

echo "== sweep by an engine's rules ($points grid points each)"
for engine in vllm sglang trtllm llama.cpp; do
  axis=context
  [ "$engine" = llama.cpp ] && axis=ctx_size # llama.cpp's cache is sized by -c
  start=$(now_ns)
  "$bin" --engine "$engine" --model qwen3-8b --sweep "$axis=1..$points+1" --format csv > "$out"
  end=$(now_ns)
  rows=$(( $(wc -l < "$out") - 1 ))
  ns=$(( end - start ))
  echo "  $engine: $rows rows in $(( ns / 1000000 )) ms: $(( rows * 1000 / (ns / 1000000 + 1) )) points per second"
done

echo "== workload simulation (request-steps per second, the onset search included)"
for engine in vllm sglang llama.cpp; do
  args="--engine $engine --model qwen3-8b --gpu h100 --max-model-len 8192 --prompt-tokens median=1020,p99=4142 --output-tokens median=129,p99=601 --rate 5 --tpot-ms 30 --ttft-ms 150 --requests 4000"
  [ "$engine" = llama.cpp ] && args="$args -c 32768 -np 8"
  start=$(now_ns)
  # shellcheck disable=SC2086 # the words of args are flags
  steps=$("$bin" $args --get workload_request_steps)
  end=$(now_ns)
  ms=$(( (end - start) / 1000000 + 1 ))
  echo "  $engine: $steps request-steps in $ms ms: $(( steps / ms * 1000 )) per second"
done
# the floor: a printf loop writing as many lines as a second of the simulation's steps
n=1000000
start=$(now_ns)
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%d,%d\n", i, i * 3 }' > "$out"
end=$(now_ns)
ms=$(( (end - start) / 1000000 + 1 ))
echo "  floor, an awk printf loop: $n lines in $ms ms: $(( n / ms * 1000 )) per second"
