#!/usr/bin/env bash
# test_bash.sh - the generated bash completion, driven the way bash drives it: source it in
# a clean bash (run as `bash --norc --noprofile test_bash.sh COMPLETIONS-DIR`), set
# COMP_WORDS / COMP_CWORD, call the function `complete` registered, and check COMPREPLY.
set -u
file=${1:?usage: test_bash.sh COMPLETIONS-DIR}/kvcalc.bash
failures=0

# shellcheck source=/dev/null
source "$file" || { echo "FAIL: sourcing $file"; exit 1; }
func=$(complete -p kvcalc 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
[ -n "$func" ] || { echo "FAIL: $file registers no completion function for kvcalc"; exit 1; }

# complete CWORD WORD...: runs the completion for COMP_WORDS=(WORD...) at index CWORD
complete_at() {
  local cword=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$cword
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  "$func" kvcalc "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}

# expect DESCRIPTION WANTED... : each wanted word is in COMPREPLY
expect() {
  local what=$1 w r found
  shift
  for w in "$@"; do
    found=0
    for r in "${COMPREPLY[@]}"; do [ "$r" = "$w" ] && found=1; done
    if [ "$found" = 0 ]; then
      echo "FAIL: $what: '$w' not offered (got: ${COMPREPLY[*]})"
      failures=$((failures + 1))
    fi
  done
}

# expect_only DESCRIPTION WANTED... : COMPREPLY is exactly these words, in any order
expect_only() {
  local what=$1
  shift
  expect "$what" "$@"
  if [ "${#COMPREPLY[@]}" -ne "$#" ]; then
    echo "FAIL: $what: expected $# words, got ${#COMPREPLY[@]}: ${COMPREPLY[*]}"
    failures=$((failures + 1))
  fi
}

complete_at 1 kvcalc --con
expect_only "kvcalc --con" --concurrency --config --context --context-length

complete_at 2 kvcalc --dtype ""
expect "kvcalc --dtype ''" fp8 fp16 bf16 int4 auto bfloat16 fp8_e4m3
complete_at 2 kvcalc --kv-cache-dtype fp8_e
expect_only "kvcalc --kv-cache-dtype fp8_e" fp8_e4m3 fp8_e5m2 fp8_e4m3fn
complete_at 2 kvcalc --weight-dtype in
expect_only "kvcalc --weight-dtype in" int8 int4
# --flag=value: bash splits at '=' (COMP_WORDBREAKS) ...
complete_at 3 kvcalc --dtype = fp
expect "kvcalc --dtype=fp" fp8 fp16 fp32
complete_at 2 kvcalc --format =
expect_only "kvcalc --format=" text json csv
# ... unless '=' was taken out of COMP_WORDBREAKS: then the word keeps its flag
complete_at 1 kvcalc --dtype=fp8_e4
expect_only "kvcalc --dtype=fp8_e4 (one word)" --dtype=fp8_e4m3 --dtype=fp8_e4m3fn

complete_at 2 kvcalc --engine ""
expect_only "kvcalc --engine" ideal vllm sglang trtllm llama.cpp llamacpp ollama
complete_at 2 kvcalc --mamba-cache-mode ""
expect_only "kvcalc --mamba-cache-mode" none align all
complete_at 2 kvcalc --model qwen3-8
expect_only "kvcalc --model qwen3-8" qwen3-8b
complete_at 2 kvcalc --gpu h10
expect "kvcalc --gpu h10" h100 h100-nvl
complete_at 2 kvcalc --gpu rtx-30
expect_only "kvcalc --gpu rtx-30" rtx-3080 rtx-3060 rtx-3090
complete_at 2 kvcalc --get max_conc
expect_only "kvcalc --get max_conc" max_concurrency

complete_at 1 kvcalc --max
expect "kvcalc --max (aliases)" --max-model-len --max-num-batched-tokens
complete_at 1 kvcalc -
expect "kvcalc - (aliases, short)" -h --help --tp --tensor-parallel-size --kv-cache-dtype \
  --version --list-models --list-gpus --levers --disable-hybrid-kv-cache-manager
complete_at 4 kvcalc --levers --context 4096 --l
expect_only "kvcalc ... --l (past values)" --layers --language-model-only --lora-target-modules --llamacpp-build --library --levers --lora --list-models --list-gpus

complete_at 2 kvcalc --layers ""
expect_only "kvcalc --layers (a number to type)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/config-qwen.json"
: > "$tmp/my config.json"
complete_at 2 kvcalc --config "$tmp/config-q"
expect_only "kvcalc --config FILE" "$tmp/config-qwen.json"
complete_at 2 kvcalc --config "$tmp/my"
expect_only "kvcalc --config FILE (a space in the name)" "$tmp/my config.json"
complete_at 2 kvcalc --plot "$tmp/conf"
expect_only "kvcalc --plot FILE" "$tmp/config-qwen.json"

if [ "$failures" -ne 0 ]; then
  echo "test_bash.sh: $failures failure(s)"
  exit 1
fi
echo "test_bash.sh: bash completion ok"
