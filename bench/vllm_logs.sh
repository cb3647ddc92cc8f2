#!/bin/sh
# vllm_logs.sh - kvcalc's vLLM prediction against public start-up logs (bench/vllm-logs.tsv):
# for each deployment, what kvcalc predicts from the GPU, the model and the flags alone, term by
# term next to what the log printed (GiB), and the error of the "Available KV cache memory":
# in GiB and relative to the logged figure. docs/vllm.md quotes the summary.
# Usage: bench/vllm_logs.sh [path/to/kvcalc]
set -eu
bin=${1:-build/kvcalc}
data=$(dirname "$0")/vllm-logs.tsv
[ -x "$bin" ] || { echo "vllm_logs.sh: build kvcalc first ($bin not found)" >&2; exit 1; }
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
gib() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1073741824 }'; }
grep -v '^#' "$data" | while IFS='	' read -r id what args w act nt avail why; do
  if [ "$args" = "-" ]; then # kvcalc cannot describe this deployment: the log's figures only
    printf '%-4s %8s %8s %8s %8s %8s %8s %9s %9s %7s %7s %s\n' "$id" "$w" - "$act" - "$nt" - \
      "$avail" - - - "(left out: $why)" >> "$rows"
    continue
  fi
  # shellcheck disable=SC2086 # the arguments are words
  set -- $args
  get() { "$bin" --engine vllm "$@" --get "$key"; }
  key=vllm_weights_bytes; kw=$(gib "$(get "$@")")
  key=vllm_activation_bytes; ka=$(gib "$(get "$@")")
  key=vllm_non_torch_bytes; kn=$(gib "$(get "$@")")
  key=available_kv_bytes; kav=$(gib "$(get "$@")")
  err=$(awk -v p="$kav" -v l="$avail" 'BEGIN { d = (l < 0) ? -l : l; e = (d > 0) ? 100 * (p - l) / d : 0; printf "%+.1f %+.2f", e, p - l }')
  printf '%-4s %8s %8s %8s %8s %8s %8s %9s %9s %7s %7s %s\n' "$id" "$w" "$kw" "$act" "$ka" \
    "$nt" "$kn" "$avail" "$kav" $err "${why:+(left out: $why)}" >> "$rows"
done
printf '%-4s %8s %8s %8s %8s %8s %8s %9s %9s %7s %7s\n' id w.log w.kvc act.log act.kvc nt.log \
  nt.kvc avail.log avail.kvc err% errGiB
cat "$rows"
# each estimated term over the rows counted that print it: |kvcalc - logged| in GiB
for t in "weights 2 3" "activation 4 5" "non-torch 6 7"; do
  set -- $t
  grep -v "left out" "$rows" | awk -v l="$2" -v k="$3" '$l != "n/s" && $k != "-" {
      d = $k - $l; print (d < 0) ? -d : d }' | sort -g |
    awk -v n="$1" '{ v[NR] = $1 } END {
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
      printf "%s estimate, |error|: median %.2f GiB, worst %.2f GiB over %d logs\n", n, m, v[NR], NR }'
done
# the summary over the rows counted: |relative error| and |error in GiB|
for col in 10 11; do
  grep -v "left out" "$rows" | awk -v c="$col" '{ e = ($c < 0) ? -$c : $c; print e + 0 }' | sort -g |
    awk -v c="$col" '{ v[NR] = $1 } END {
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
      u = (c == 10) ? "%" : " GiB";
      printf "available KV memory, |error|: median %.2f%s, worst %.2f%s over %d logs\n", m, u, v[NR], u, NR }'
done
