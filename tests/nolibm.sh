#!/bin/sh
# nolibm.sh - the kvcalc program and libkvcalc.so need no libm (issue 22: loading libm.so.6
# cost ~120 us of every run; src/math/kvmath.h stands in for it). Fails when a file records
# libm.so in DT_NEEDED or imports a libm function; skipped (77) without nm and readelf.
# Usage: nolibm.sh FILE...
set -u
have() { command -v "$1" > /dev/null 2>&1; }
have nm || have readelf || { echo "nolibm.sh: neither nm nor readelf: skipped"; exit 77; }
# C99's <math.h> functions (and their f and l forms) that a compiler may leave as calls
names='acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc exp exp2
expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ilogb ldexp lgamma llrint llround log
log10 log1p log2 logb lrint lround modf nan nearbyint nextafter nexttoward pow remainder
remquo rint round scalbln scalbn sin sinh sqrt tan tanh tgamma trunc'
status=0
for f in "$@"; do
  [ -f "$f" ] || { echo "nolibm.sh: no file $f"; status=1; continue; }
  if have readelf; then
    needed=$(readelf -d "$f" 2>/dev/null | grep NEEDED | grep 'libm[.-]')
    [ -n "$needed" ] && { echo "$f needs libm: $needed"; status=1; }
  fi
  if have nm; then
    undef=$(nm -D --undefined-only "$f" 2>/dev/null | awk '{print $NF}' | sed 's/@.*//')
    for u in $undef; do
      for n in $names; do
        case $u in
        "$n" | "${n}f" | "${n}l" | "__${n}_finite")
          echo "$f imports $u from libm"; status=1 ;;
        esac
      done
    done
  fi
done
[ $status = 0 ] && echo "nolibm.sh: no libm in $*"
exit $status
