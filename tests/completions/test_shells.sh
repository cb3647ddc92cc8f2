#!/bin/sh
# test_shells.sh - the generated zsh and fish completions: a syntax check (zsh -n, fish -n),
# and for fish the completions themselves (fish answers `complete -C LINE` without a
# terminal). Exits 77 (skipped) when that shell is not installed.
# Usage: test_shells.sh zsh|fish COMPLETIONS-DIR
set -u
shell=${1:?usage: test_shells.sh zsh|fish COMPLETIONS-DIR}
dir=${2:?usage: test_shells.sh zsh|fish COMPLETIONS-DIR}

if ! command -v "$shell" >/dev/null 2>&1; then
  echo "test_shells.sh: $shell not installed, skipped"
  exit 77
fi

case $shell in
  zsh)
    zsh -n "$dir/_kvcalc" || { echo "FAIL: zsh -n $dir/_kvcalc"; exit 1; }
    head -1 "$dir/_kvcalc" | grep -qx '#compdef kvcalc' || { echo "FAIL: no #compdef line"; exit 1; }
    ;;
  fish)
    fish -n "$dir/kvcalc.fish" || { echo "FAIL: fish -n $dir/kvcalc.fish"; exit 1; }
    # check LINE WORD...: completing LINE offers every WORD
    check() {
      line=$1
      shift
      got=$(fish --no-config -c "source '$dir/kvcalc.fish'; complete -C '$line'" | cut -f1)
      for w in "$@"; do
        printf '%s\n' "$got" | grep -qx -- "$w" || {
          echo "FAIL: fish: '$line' does not offer '$w' (got: $(printf '%s' "$got" | tr '\n' ' '))"
          exit 1
        }
      done
    }
    check "kvcalc --con" --config --context
    check "kvcalc --max" --max-model-len
    check "kvcalc --dtype " fp8 bfloat16 auto
    check "kvcalc --kv-cache-dtype=fp8_e" --kv-cache-dtype=fp8_e4m3
    check "kvcalc --format " text json csv
    check "kvcalc --model qwen3-" qwen3-8b
    check "kvcalc --gpu h" h100 h200 h100-nvl
    ;;
  *)
    echo "test_shells.sh: unknown shell $shell"
    exit 2
    ;;
esac
echo "test_shells.sh: $shell completion ok"
