#!/bin/sh
# bench.sh - what kvcalc costs, each figure printed beside its floor measured in the same run
# (issue 22): starting a command against starting /bin/true; a sweep against a C printf
# loop printing as many rows of as many numbers; reading a long log against `grep -c` on
# the same file; the workload simulation against an awk printf loop. Ratios, not absolute
# times, are what compare across machines.
# Usage: bench/bench.sh [path/to/kvcalc] [starts] [sweep points] [log MiB] [tensors]
# Builds the static kvcalc (build-static/) when missing (with 100 starts or more), and the
# helpers (spawn.c, floor.c, gen_checkpoints.c) with cc into a temporary folder. Peak memory
# needs GNU time (/usr/bin/time), instructions valgrind. ctest runs it small (bench/quick).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
bin=${1:-build/kvcalc}
runs=${2:-1000}
points=${3:-1000000}
log_mib=${4:-128}
tensors=${5:-100000}
[ -x "$bin" ] || { echo "bench.sh: build kvcalc first ($bin not found)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/spawn" "$here/spawn.c"
cc -O2 -o "$tmp/floor" "$here/floor.c"
cc -std=c11 -O2 -o "$tmp/gen" "$here/gen_checkpoints.c"
static=build-static/kvcalc
if [ ! -x "$static" ] && [ "$runs" -lt 100 ]; then
  static=""
elif [ ! -x "$static" ]; then
  echo "== building the static kvcalc (build-static/)"
  { cmake -S "$root" -B build-static -DKVCALC_STATIC=ON -DBUILD_TESTING=OFF \
      -DCMAKE_BUILD_TYPE=Release && cmake --build build-static --target kvcalc; } \
    >/dev/null 2>&1 || static=""
  [ -n "$static" ] || echo "bench.sh: no static build here (a static C library is needed)" >&2
fi
now_ns() { date +%s%N; }
ms_since() { echo $(( ($(now_ns) - $1) / 1000000 + 1 )); }
peak_kb() { # command...: its peak resident memory in KiB, or "-"
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
  else
    echo -
  fi
}

# The starts are timed on copies: a file just written by the linker sits in the page cache
# in small pieces and starts measurably slower than the same bytes copied (README).
cp "$bin" "$tmp/kvcalc-start"
[ -z "$static" ] || { cp "$static" "$tmp/kvcalc-static"; static=$tmp/kvcalc-static; }
start_bin=$tmp/kvcalc-start
echo "== start: the median of $runs starts, each round interleaved (bench/spawn.c); goals:"
echo "   a plain run <= 1.15x /bin/true, an engine run <= 1.3x, static <= 0.9x, --list-models <= 1.3x"
"$tmp/spawn" "$runs" /bin/true -- "$start_bin" ${static:+-- "$static"} \
  -- "$start_bin" --engine vllm --model qwen3-8b --gpu h100 \
  -- "$start_bin" --engine sglang --model qwen3-8b --gpu h100 \
  -- "$start_bin" --engine trtllm --model qwen3-8b --gpu h100 \
  -- "$start_bin" --engine llama.cpp --model qwen3-8b --gpu h100 -c 32768 \
  -- "$start_bin" --engine ollama --model qwen3-8b --gpu h100 \
  -- "$start_bin" --model qwen3-8b --gpus 16 --format json \
  -- "$start_bin" --list-models

echo "== sweeps to CSV: points per second beside a C printf loop printing as many rows of as"
echo "   many numbers (bench/floor.c), each the median of 3 interleaved runs; goals: the ideal"
echo "   engine >= the floor, every engine >= half the floor"
median3() { sort -n | sed -n 2p; }
sweep() { # label, columns, kvcalc arguments...
  label=$1; cols=$2; shift 2
  : > "$tmp/sk" && : > "$tmp/sf"
  for round in 1 2 3; do # one run on a shared machine is one sample: the floor moved 1.5-2.7M rows/s
    start=$(now_ns)
    "$bin" "$@" --format csv > "$tmp/out"
    ms_since "$start" >> "$tmp/sk"
    rows=$(( $(wc -l < "$tmp/out") - 1 ))
    start=$(now_ns)
    "$tmp/floor" "$rows" "$cols" > "$tmp/floor.out"
    ms_since "$start" >> "$tmp/sf"
  done
  ms=$(median3 < "$tmp/sk")
  fms=$(median3 < "$tmp/sf")
  awk -v l="$label" -v r="$rows" -v ms="$ms" -v fms="$fms" -v c="$cols" 'BEGIN {
    printf "  %-9s %8d rows x %2d: %7.2fM points/s; floor %6.2fM rows/s; %.2fx the floor\n",
      l, r, c, r / ms / 1000, r / fms / 1000, fms / ms }'
}
cols() { "$bin" "$@" --format csv | head -1 | awk -F, '{ print NF }'; }
sweep ideal "$(cols --sweep context=1..2+1)" --sweep "context=1..$points+1"
for engine in vllm sglang trtllm llama.cpp ollama; do
  axis=context
  [ "$engine" = llama.cpp ] && axis=ctx_size # llama.cpp's cache is sized by -c
  [ "$engine" = ollama ] && axis=num_ctx
  sweep "$engine" "$(cols --engine "$engine" --model qwen3-8b --sweep "$axis=1..2+1")" \
    --engine "$engine" --model qwen3-8b --sweep "$axis=1..$points+1"
done
sweep 5-axis "$(cols --sweep context=1024..2048*2 --sweep gpu=t4 --sweep tp=1 --sweep dtype=fp16 --sweep prefix-tokens=0..0+1)" \
  --sweep "context=1024..131072*2" --sweep "gpu=t4,l4,l40s,a100,h100,h200,b200" \
  --sweep "tp=1,2,4,8" --sweep "dtype=fp16,fp8" --sweep "prefix-tokens=0..999+1"
echo "  peak memory of the ideal sweep: $(peak_kb "$bin" --sweep "context=1..$points+1" --format csv) KiB" \
  "at $points points, $(peak_kb "$bin" --sweep "context=1..$((points * 4))+1" --format csv) KiB at $((points * 4))"

echo "== --from-log: a startup log (tests/logs/vllm-d32.log), then serving lines (real ones:"
echo "   tests/fixtures/vllm-serving-lines.log) doubled past $log_mib MiB;"
echo "   goal >= 1 GB/s, within 2x of grep -c on the same file (each the median of 3), memory flat"
log=$tmp/long.log
cp "$root/tests/logs/vllm-d32.log" "$log"
cp "$root/tests/fixtures/vllm-serving-lines.log" "$tmp/lines"
while [ "$(wc -c < "$tmp/lines")" -lt $((log_mib * 1048576)) ]; do # doubled past log_mib
  cat "$tmp/lines" "$tmp/lines" > "$tmp/l2" && mv "$tmp/l2" "$tmp/lines"
done
cat "$tmp/lines" >> "$log"
rm -f "$tmp/lines"
# A reader against grep -c on the same file: each the median of three runs, interleaved (one
# run on a shared machine is one sample). $1 the file, $2 grep's pattern, $3 kvcalc's flag,
# $4 the key it gets.
reader_vs_grep() {
  mb=$(( $(wc -c < "$1") / 1000000 ))
  cat "$1" > /dev/null # into the page cache, for both
  : > "$tmp/g" && : > "$tmp/k"
  for round in 1 2 3; do
    start=$(now_ns)
    grep -c "$2" "$1" > "$tmp/out" || true # not to /dev/null: GNU grep stops at a first match then
    ms_since "$start" >> "$tmp/g"
    start=$(now_ns)
    "$bin" "$3" "$1" --get "$4" > /dev/null
    ms_since "$start" >> "$tmp/k"
  done
  gms=$(median3 < "$tmp/g")
  kms=$(median3 < "$tmp/k")
  awk -v mb="$mb" -v k="$kms" -v g="$gms" -v flag="$3" 'BEGIN {
    printf "  kvcalc %s: %d MB in %d ms: %.2f GB/s; grep -c: %d ms (%.2f GB/s); kvcalc %.2fx grep\n",
      flag, mb, k, mb / k, g, mb / g, k / g }'
}
reader_vs_grep "$log" "KV cache" --from-log available_kv_bytes
echo "  peak memory: $(peak_kb "$bin" --from-log "$log" --get available_kv_bytes) KiB for $mb MB," \
  "$(peak_kb "$bin" --from-log "$root/tests/logs/vllm-d32.log" --get available_kv_bytes) KiB for the startup log alone"
rm -f "$log"

echo "== --from-metrics: a real vLLM scrape (tests/fixtures/metrics/vllm_v1_0100_glm45_*.prom)"
echo "   doubled past $log_mib MiB (each copy a scrape of the same series); goal >= 0.5 GB/s,"
echo "   beside grep -c on the same file (each the median of 3)"
prom=$tmp/long.prom
cp "$root"/tests/fixtures/metrics/vllm_v1_0100_glm45_prodstack617_excerpt.prom "$prom"
while [ "$(wc -c < "$prom")" -lt $((log_mib * 1048576)) ]; do
  cat "$prom" "$prom" > "$tmp/p2" && mv "$tmp/p2" "$prom"
done
reader_vs_grep "$prom" "vllm:" --from-metrics metrics_kv_usage
rm -f "$prom"

echo "== model readers: a $tensors-tensor safetensors folder (10 shards), a $((tensors * 10))-tensor GGUF"
echo "   (bench/gen_checkpoints.c); goals: <= 2,000 instructions a safetensors tensor, GGUF linear"
mkdir -p "$tmp/st" "$tmp/st-small"
"$tmp/gen" "$tmp" "$tensors" 10 "$((tensors * 10))" > /dev/null
for m in "$tmp/st" "$tmp/big.gguf"; do
  start=$(now_ns)
  "$bin" --model "$m" > /dev/null
  echo "  kvcalc --model $(basename "$m"): $(ms_since "$start") ms, peak $(peak_kb "$bin" --model "$m") KiB"
done
start=$(now_ns)
wc -l < "$tmp/big.gguf" > /dev/null
echo "  wc -l on the same GGUF: $(ms_since "$start") ms"
if command -v valgrind > /dev/null 2>&1; then
  instr() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    awk '/Collected/ { print $NF }'; }
  big=$(instr "$bin" --model "$tmp/st")
  small=$(instr "$bin" --model "$tmp/st-small")
  echo "  safetensors: $(( (big - small) / tensors )) instructions a tensor (callgrind, the" \
    "small folder's fixed cost taken off)"
fi
rm -rf "$tmp/st" "$tmp/st-small" "$tmp"/*.gguf

echo "== workload simulation: request-steps per second (the onset search included)"
for engine in vllm sglang llama.cpp; do
  args="--engine $engine --model qwen3-8b --gpu h100 --max-model-len 8192 --prompt-tokens median=1020,p99=4142 --output-tokens median=129,p99=601 --rate 5 --tpot-ms 30 --ttft-ms 150 --requests 4000"
  [ "$engine" = llama.cpp ] && args="$args -c 32768 -np 8"
  start=$(now_ns)
  # shellcheck disable=SC2086 # the words of args are flags
  steps=$("$bin" $args --get workload_request_steps)
  ms=$(ms_since "$start")
  echo "  $engine: $steps request-steps in $ms ms: $(( steps / ms * 1000 )) per second"
done
n=1000000
start=$(now_ns)
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%d,%d\n", i, i * 3 }' > "$tmp/out"
ms=$(ms_since "$start")
echo "  floor, an awk printf loop: $n lines in $ms ms: $(( n / ms * 1000 )) per second"
