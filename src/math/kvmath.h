/*
 * kvmath.h - the few math functions kvcalc uses, without libm.
 *
 * Why: linking -lm makes every run of kvcalc load libm.so.6 as a second shared library
 * (issue 22: ~190 us of a ~1.3 ms start measured with bench/spawn.c), and libm cannot be
 * linked statically into a dynamic glibc program. So the library and the program call these
 * instead: portable C11 on IEEE-754 doubles (bits through memcpy), no libm, no builtins that
 * may become libm calls. The <math.h> macros that need no library (isnan, isfinite, isinf,
 * signbit, HUGE_VAL, INFINITY, NAN) and fabs (always inlined) stay in use; tests/nolibm.sh
 * fails the suite when a libm symbol is imported again. (The prefix is kvm_: kv_log is the
 * public startup-log type.)
 *
 * Exactness, checked against glibc 2.36 by tests/test_kvmath.c on millions of inputs:
 *  - kvm_floor, kvm_ceil, kvm_trunc, kvm_round, kvm_nearbyint (ties to even), kvm_llround,
 *    kvm_fmod, kvm_ldexp, kvm_fmax, kvm_fmin, kvm_copysign, kvm_sqrt: bit for bit what
 *    glibc returns, for every double (signed zeros, infinities, NaNs with their payloads,
 *    subnormals).
 *  - kvm_powi (an integer exponent, |n| < 2^40; its relative error grows as |n| 2^-104) and
 *    kvm_exp2_quarters (normal results): correctly rounded, double-double exponentiation by
 *    squaring. glibc's pow is NOT correctly rounded: about 0.2% of sweep-like inputs
 *    (pow(1.01, 346), the tie pow(1.25, 23)) come out 1 ULP apart, and the test checks
 *    every such case against the exact power: kvmath is the right one.
 *  - kvm_log2, kvm_log10: exact on exact powers of 2 and of 10 (as glibc); double-double
 *    inside, so correctly rounded on all of the integers 1..2^20 (checked with 80-digit
 *    arithmetic), where glibc's log2 misrounds 49 and its log10 18,413 (by 1 ULP).
 *  - kvm_log, kvm_log1p, kvm_exp: table-driven, double-double sums; kvm_cos: Taylor kernels
 *    after a reduction that keeps 119 bits of pi/2 below 2^20 and 1344 bits of 2/pi above
 *    (so every double). All within 1 ULP of glibc; results 1 ULP apart, measured: exp 0.1%,
 *    log 0.09% (near 1: 0.02%), cos 1.5%, log1p 3.9% (glibc's log1p is the older, less
 *    exact one), log10 0.2%. Subnormal results of kvm_exp round twice (< 1 ULP, 1%).
 *  - Speed (x86-64, -O2): log 27 ns, exp 17 ns, cos 19 ns, sqrt 18 ns a call.
 */
#ifndef KVCALC_KVMATH_H
#define KVCALC_KVMATH_H

double kvm_floor(double x);
double kvm_ceil(double x);
double kvm_trunc(double x);
double kvm_round(double x);     /* halfway cases away from zero, like round() */
double kvm_nearbyint(double x); /* to nearest, ties to even (the default rounding mode) */
long long kvm_llround(double x);
double kvm_fmod(double x, double y);
double kvm_ldexp(double x, int n);
double kvm_fmax(double x, double y);
double kvm_fmin(double x, double y);
double kvm_copysign(double x, double y);
double kvm_sqrt(double x);

double kvm_exp(double x);
double kvm_log(double x);
double kvm_log1p(double x);
double kvm_log2(double x);
double kvm_log10(double x);
double kvm_cos(double x);

/* x^n for an integer n, correctly rounded (glibc's pow(x, (double)n)) */
double kvm_powi(double x, long long n);
/* 2^(q/4) for an integer q, correctly rounded (glibc's pow(2.0, q / 4.0)) */
double kvm_exp2_quarters(long long q);

#endif
