#!/bin/sh
# check.sh - the layers of src/ include each other one way only, and the library never
# speaks for the program. Fails (exit 1) with one line per violation.
#
# A folder may include its own headers, the public ones (include/) and those of the folders
# it stands on:
#   math                      kvmath.h: floor, sqrt, exp, log... without libm (every layer)
#   core                      the lesson's arithmetic, the layout, the parameter estimate
#   model                     config.json, GGUF and safetensors readers, presets
#   engines  -> core          one descriptor per engine
#   schema   -> engines core  parameters and fields
#   sizing   -> engines core  core + the chosen engine, plans, layouts, levers
#   log      -> engines core  startup logs and the comparison
#   render                    the program's renderers (public headers only)
#   cli      -> render        the program
#   gen      -> model         programs the build runs to write the library's tables
# The library (math core model engines schema sizing log) names no program: no "kvcalc: "
# prefix, no exit status, nothing written to stdout or stderr.
# Usage: check.sh SOURCE-DIR
set -u
src=${1:?usage: check.sh SOURCE-DIR}/src
status=0
allowed() {
  case $1 in
  math) echo "math" ;;
  core) echo "core math" ;;
  model) echo "model math" ;;
  engines) echo "engines core math" ;;
  schema) echo "schema engines core math" ;;
  sizing) echo "sizing engines core math" ;;
  log) echo "log engines core math" ;;
  render) echo "render math" ;;
  cli) echo "cli render math" ;;
  gen) echo "gen model math" ;;
  *) echo "" ;;
  esac
}
# the folder that holds a header, or "public" (include/)
home_of() {
  for d in "$src"/*/; do
    d=${d%/}
    [ -f "$d/$1" ] && { basename "$d"; return; }
  done
  echo public
}
for dir in "$src"/*/; do
  dir=${dir%/}
  layer=$(basename "$dir")
  ok=$(allowed "$layer")
  [ -n "$ok" ] || { echo "check.sh: src/$layer is not a known layer: add it here"; status=1; }
  for f in "$dir"/*.c "$dir"/*.h; do
    [ -f "$f" ] || continue
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
      home=$(home_of "$h")
      [ "$home" = public ] && continue
      case " $ok " in
      *" $home "*) ;;
      *) echo "src/$layer/$(basename "$f") includes $h of src/$home: $layer may use only $ok"
         status=1 ;;
      esac
    done
  done
done
for layer in math core model engines schema sizing log; do
  [ -d "$src/$layer" ] || continue
  out=$(grep -n '"kvcalc: ' "$src/$layer"/*.[ch] 2>/dev/null)
  [ -n "$out" ] && { echo "$out" | sed 's/^/the library speaks for the program: /'; status=1; }
  out=$(grep -nE '(^|[^a-z_])(exit|abort|puts|printf)[[:space:]]*\(|(^|[^a-z_])(stdout|stderr)([^a-z_]|$)' \
        "$src/$layer"/*.[ch] 2>/dev/null)
  [ -n "$out" ] && { echo "$out" | sed 's/^/the library writes or exits: /'; status=1; }
done
[ $status = 0 ] && echo "layers: every include runs one way, and the library speaks for no program"
exit $status
