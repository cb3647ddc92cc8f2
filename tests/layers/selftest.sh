#!/bin/sh
# selftest.sh - check.sh fails on each kind of violation it exists for (so that its pass
# on the real tree means something): a lower layer including a higher one, the renderer
# including the program, the library printing kvcalc: or writing to stderr.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "selftest.sh: FAIL: $*"; exit 1; }
tree() { # tree NAME: a clean tree with one file per layer
  rm -rf "$tmp/$1"
  for d in math core model engines schema sizing log render cli; do mkdir -p "$tmp/$1/src/$d"; done
  echo '/* */' > "$tmp/$1/src/core/internal.h"
  echo '#include "internal.h"' > "$tmp/$1/src/engines/engine.h"
  echo '#include "engine.h"' > "$tmp/$1/src/sizing/compute.c"
  echo '/* */' > "$tmp/$1/src/render/report.h"
  echo '#include "report.h"' > "$tmp/$1/src/cli/options.h"
  echo '/* */' > "$tmp/$1/src/math/kvmath.h"
  echo '#include "kvmath.h"' > "$tmp/$1/src/render/format.c"
}
tree clean
sh "$here/check.sh" "$tmp/clean" > /dev/null || fail "a clean tree is refused"
tree up
echo '#include "engine.h"' > "$tmp/up/src/core/core.c"
sh "$here/check.sh" "$tmp/up" | grep -q "core may use only core" || fail "core -> engines passes"
tree math
echo '#include "internal.h"' > "$tmp/math/src/math/kvmath.c"
sh "$here/check.sh" "$tmp/math" | grep -q "math may use only math" || fail "math -> core passes"
tree render
echo '#include "options.h"' > "$tmp/render/src/render/text.c"
sh "$here/check.sh" "$tmp/render" | grep -q "render may use only render" || fail "render -> cli passes"
tree speaks
echo 'const char *m = "kvcalc: no";' > "$tmp/speaks/src/model/m.c"
sh "$here/check.sh" "$tmp/speaks" | grep -q "speaks for the program" || fail "kvcalc: passes"
tree writes
echo 'void f(void) { fputs("x", stderr); }' > "$tmp/writes/src/log/l.c"
sh "$here/check.sh" "$tmp/writes" | grep -q "writes or exits" || fail "stderr passes"
echo "selftest.sh: check.sh refuses each violation"
