/*
 * kvmath.c - floor, sqrt, exp, log, cos, pow... without libm (see kvmath.h for why, and
 * for the exactness of each). IEEE-754 binary64 doubles, round to nearest; no FMA, no
 * builtins: the exact products are Dekker's (Veltkamp's split), the exact sums Knuth's.
 * The constants and tables come from scripts/kvmath_tables.py (80-digit decimal arithmetic).
 */
#include "kvmath.h"

/* Clang may fuse a * b + c where the target has FMA (GCC does not in ISO C mode): the
 * error-free transformations below need each operation rounded on its own. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include <limits.h>
#include <math.h> /* HUGE_VAL, fabs: no libm call */
#include <stdint.h>
#include <string.h>

#define SIGN 0x8000000000000000ull
#define EXPB 0x7ff0000000000000ull /* the exponent bits; also +inf */
#define FRAC 0x000fffffffffffffull
#define IMPL 0x0010000000000000ull /* the implicit bit */
#define QUIET 0x0008000000000000ull

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double dbl(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static int is_nan_bits(uint64_t u)
{
    return (u & ~SIGN) > EXPB;
}

/* ---- exact rounding: bit manipulations --------------------------------------------------- */

double kvm_floor(double x)
{
    uint64_t u = bits(x);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    if (e >= 52)
        return e == 1024 ? x + x : x; /* integral, inf, or NaN (quieted, as glibc) */
    if (e < 0) {
        if ((u & ~SIGN) == 0)
            return x;
        return (u & SIGN) ? -1.0 : 0.0;
    }
    uint64_t m = FRAC >> e;
    if ((u & m) == 0)
        return x;
    if (u & SIGN)
        u += m + 1;
    return dbl(u & ~m);
}

double kvm_ceil(double x)
{
    uint64_t u = bits(x);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    if (e >= 52)
        return e == 1024 ? x + x : x;
    if (e < 0) {
        if ((u & ~SIGN) == 0)
            return x;
        return (u & SIGN) ? -0.0 : 1.0;
    }
    uint64_t m = FRAC >> e;
    if ((u & m) == 0)
        return x;
    if (!(u & SIGN))
        u += m + 1;
    return dbl(u & ~m);
}

double kvm_trunc(double x)
{
    uint64_t u = bits(x);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    if (e >= 52)
        return e == 1024 ? x + x : x;
    if (e < 0)
        return dbl(u & SIGN);
    return dbl(u & ~(FRAC >> e));
}

double kvm_round(double x)
{
    uint64_t u = bits(x);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    if (e >= 52)
        return e == 1024 ? x + x : x;
    if (e < 0)
        return dbl((u & SIGN) | (e == -1 ? bits(1.0) : 0));
    u += (IMPL >> 1) >> e; /* add one half, then cut the fraction */
    return dbl(u & ~(FRAC >> e));
}

double kvm_nearbyint(double x)
{
    uint64_t u = bits(x);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    if (e >= 52)
        return e == 1024 ? x + x : x;
    /* |x| < 2^52: |x| + 2^52 has no fraction bits left, so the addition rounds |x| to an
     * integer, ties to even; the subtraction is exact */
    double a = dbl(u & ~SIGN);
    double t = (double)(a + 0x1p52);
    t = (double)(t - 0x1p52);
    return dbl(bits(t) | (u & SIGN));
}

long long kvm_llround(double x)
{
    double r = kvm_round(x);
    if (!(r >= -0x1p63 && r < 0x1p63))
        return LLONG_MIN; /* NaN or out of range: what glibc returns on x86-64 */
    return (long long)r;
}

double kvm_copysign(double x, double y)
{
    return dbl((bits(x) & ~SIGN) | (bits(y) & SIGN));
}

double kvm_fmax(double x, double y)
{
    uint64_t ux = bits(x), uy = bits(y);
    int nx = is_nan_bits(ux), ny = is_nan_bits(uy);
    if (nx || ny) { /* a quiet NaN gives way to a number; otherwise the NaN, quieted */
        if (!ny && (ux & QUIET))
            return y;
        if (!nx && (uy & QUIET))
            return x;
        return dbl((nx ? ux : uy) | QUIET);
    }
    return x > y ? x : y; /* equal (+0 and -0): y, as glibc's maxsd */
}

double kvm_fmin(double x, double y)
{
    uint64_t ux = bits(x), uy = bits(y);
    int nx = is_nan_bits(ux), ny = is_nan_bits(uy);
    if (nx || ny) {
        if (!ny && (ux & QUIET))
            return y;
        if (!nx && (uy & QUIET))
            return x;
        return dbl((nx ? ux : uy) | QUIET);
    }
    return x < y ? x : y;
}

double kvm_ldexp(double x, int n)
{
    /* at most three exact scalings and one rounding: below 2^-1022 the last factor is
     * < 2^-53, so the one before it cannot have rounded */
    double y = x;
    if (n > 1023) {
        y *= 0x1p1023;
        n -= 1023;
        if (n > 1023) {
            y *= 0x1p1023;
            n -= 1023;
            if (n > 1023)
                n = 1023;
        }
    } else if (n < -1022) {
        y *= 0x1p-969; /* 2^-1022 x 2^53 */
        n += 969;
        if (n < -1022) {
            y *= 0x1p-969;
            n += 969;
            if (n < -1022)
                n = -1022;
        }
    }
    return y * dbl((uint64_t)(0x3ff + n) << 52);
}

/* x = m 2^(e - 1075) with m < 2^53 (e the biased exponent, 1 for subnormals) */
static uint64_t unpack(uint64_t u, int *e)
{
    int be = (int)(u >> 52);
    if (be == 0) {
        *e = 1;
        return u & FRAC;
    }
    *e = be;
    return (u & FRAC) | IMPL;
}

double kvm_fmod(double x, double y)
{
    uint64_t ux = bits(x), uy = bits(y), sx = ux & SIGN;
    ux &= ~SIGN;
    uy &= ~SIGN;
    if (uy == 0 || ux >= EXPB || uy > EXPB) {
        if (ux > EXPB)
            return x + x; /* NaN x, quieted */
        if (uy > EXPB)
            return y + y;
        return (x * y) / (x * y); /* x infinite or y zero: the default NaN */
    }
    if (ux < uy)
        return x;
    if (ux == uy)
        return dbl(sx);
    int ex, ey;
    uint64_t mx = unpack(ux, &ex), my = unpack(uy, &ey);
    int d = ex - ey; /* (mx 2^d) mod my, 11 bits at a time: mx < 2^53 */
    mx %= my;
    while (d > 0 && mx != 0) {
        int s = d > 11 ? 11 : d;
        mx = (mx << s) % my;
        d -= s;
    }
    if (mx == 0)
        return dbl(sx);
    while (mx < IMPL && ey > 1) {
        mx <<= 1;
        ey--;
    }
    uint64_t r = mx >= IMPL ? ((uint64_t)ey << 52) | (mx & FRAC) : mx;
    return dbl(r | sx);
}

static int64_t as_signed(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
}

double kvm_sqrt(double x)
{
    uint64_t u = bits(x);
    if (is_nan_bits(u))
        return x + x;
    if (u == EXPB || (u & ~SIGN) == 0)
        return x; /* +inf, +-0 */
    if (u & SIGN)
        return (x - x) / (x - x); /* x < 0: the default NaN */
    int be;
    uint64_t m = unpack(u, &be);
    while (m < IMPL) { /* subnormal */
        m <<= 1;
        be--;
    }
    int e = be - 1023; /* x = m 2^(e - 52), m in [2^52, 2^53) */
    if (e % 2 != 0) {
        m <<= 1;
        e--;
    }
    /* sqrt(x) = sqrt(X) 2^(e/2 - 52) with X = m 2^52 in [2^104, 2^106): a double estimate of
     * the root r (three Newton steps from a chord), then the integer check
     * r^2 - r < X <= r^2 + r, done modulo 2^64 (the difference is far below 2^63) */
    double t = (double)m * 0x1p-52; /* [1, 4), exact */
    double g = t < 2 ? 0.5857864376269049 + 0.41421356237309503 * t
                     : 0.8284271247461901 + 0.29289321881345254 * t;
    g = 0.5 * (g + t / g);
    g = 0.5 * (g + t / g);
    g = 0.5 * (g + t / g);
    uint64_t r = (uint64_t)(g * 0x1p52);
    uint64_t xl = m << 52; /* X mod 2^64 */
    int64_t dr = as_signed(xl - r * r);
    while (dr > (int64_t)r) {
        dr -= (int64_t)(2 * r + 1);
        r++;
    }
    while (dr <= -(int64_t)r) {
        dr += (int64_t)(2 * r - 1);
        r--;
    }
    /* r in [2^52, 2^53]: adding (not or-ing) lets r = 2^53 carry into the exponent */
    return dbl(((uint64_t)(e / 2 + 1023) << 52) + (r - IMPL));
}

/* ---- error-free transformations ---------------------------------------------------------- */

/* a + b = s + err exactly */
static double two_sum(double a, double b, double *err)
{
    double s = a + b, bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    return s;
}

/* the same when |a| >= |b| (or a is 0) */
static double fast_two_sum(double a, double b, double *err)
{
    double s = a + b;
    *err = b - (s - a);
    return s;
}

/* a b = p + err exactly (|a|, |b| < 2^995, no underflow of the parts) */
static void split(double a, double *hi, double *lo)
{
    double c = 134217729.0 * a; /* 2^27 + 1 */
    *hi = c - (c - a);
    *lo = a - *hi;
}

static double two_prod(double a, double b, double *err)
{
    double p = a * b, ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    *err = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return p;
}

/* ---- exp --------------------------------------------------------------------------------- */

/* 2^(j/64) as hi, lo (j = 0..63) */
static const double exp_tab[128] = {
    0x1.0000000000000p+0, 0x0.0p+0,
    0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56,
    0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55,
    0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57,
    0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54,
    0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59,
    0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54,
    0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54,
    0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55,
    0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55,
    0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54,
    0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55,
    0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54,
    0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55,
    0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55,
    0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54,
    0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55,
    0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54,
    0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54,
    0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56,
    0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55,
    0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58,
    0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59,
    0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56,
    0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56,
    0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54,
    0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55,
    0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54,
    0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54,
    0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54,
    0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54,
    0x1.6623882552225p+0, -0x1.bb60987591c34p-54,
    0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54,
    0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57,
    0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55,
    0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54,
    0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55,
    0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56,
    0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54,
    0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54,
    0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54,
    0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55,
    0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57,
    0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54,
    0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56,
    0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54,
    0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54,
    0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54,
    0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54,
    0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57,
    0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56,
    0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55,
    0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55,
    0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54,
    0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56,
    0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54,
    0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55,
    0x1.da9e603db3285p+0, 0x1.c2300696db532p-54,
    0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54,
    0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55,
    0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54,
    0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54,
    0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54,
    0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55
};

double kvm_exp(double x)
{
    uint64_t a = bits(x) & ~SIGN;
    if (a >= bits(708.0)) {
        if (a > EXPB)
            return x + x;
        if (x > 709.8)
            return HUGE_VAL;
        if (x < -745.2)
            return 0.0;
    }
    if (a < bits(0x1p-54))
        return 1.0 + x;
    /* x = k ln2/64 + r, |r| <= ln2/128; exp(x) = 2^(k/64) (1 + p(r)) */
    double z = x * 0x1.71547652b82fep+6; /* 64 / ln 2 */
    double kd = (double)(z + 0x1.8p52);
    kd = (double)(kd - 0x1.8p52); /* round to nearest integer */
    long long k = (long long)kd;
    double rh = x - kd * 0x1.62e42fefa0000p-7; /* exact: 36 bits of ln2/64 */
    double re, r = two_sum(rh, -(kd * 0x1.cf79abc9e3b3ap-46), &re);
    int j = (int)((unsigned long long)k & 63);
    long long m = (k - j) / 64;
    double tail = re + r * r * (0.5 + r * (0x1.5555555555555p-3 + r * (0x1.5555555555555p-5 +
                                 r * (0x1.1111111111111p-7 + r * 0x1.6c16c16c16c17p-10))));
    double th = exp_tab[2 * j], tl = exp_tab[2 * j + 1];
    double pe, p = two_prod(th, r, &pe);
    double se, s = two_sum(th, p, &se);
    double y = s + (se + (pe + (th * tail + tl)));
    if (m >= -1022 && m <= 1023)
        return y * dbl((uint64_t)(0x3ff + m) << 52);
    if (m > 1023)
        return y * 0x1p1023 * dbl((uint64_t)(0x3ff + m - 1023) << 52);
    return y * dbl((uint64_t)(0x3ff + m + 1000) << 52) * 0x1p-1000; /* subnormal */
}

/* ---- log --------------------------------------------------------------------------------- */

/* by the top 7 fraction bits j of x: 1/c (at most 10 significant bits, so a 43-bit part of
 * the mantissa times it is exact) and -log(1/c) as hi, lo; c near the middle of the 1/128
 * interval, halved for j >= 52 (there x counts as m/2 x 2^(e+1), so m/2 is near 1 on both
 * sides of 1), and exactly 1 for the two intervals that touch 1 */
static const double log_tab[128][3] = {
    {0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0},
    {0x1.fa00000000000p-1, 0x1.82448a388a2aap-7, 0x1.04b16137f09a0p-62},
    {0x1.f600000000000p-1, 0x1.432a925980cc1p-6, -0x1.8cdaf39004192p-60},
    {0x1.f200000000000p-1, 0x1.c63d2ec14aaf2p-6, -0x1.ce030a686bd86p-60},
    {0x1.ef00000000000p-1, 0x1.149e3e4005a8dp-5, -0x1.53482d1f9d7d7p-61},
    {0x1.eb00000000000p-1, 0x1.5715c4c03ceefp-5, -0x1.bbf88ec501b56p-61},
    {0x1.e700000000000p-1, 0x1.9a187b573de7cp-5, -0x1.727626c86b3abp-59},
    {0x1.e400000000000p-1, 0x1.ccb73cdddb2ccp-5, -0x1.e48fb0500efd4p-59},
    {0x1.e000000000000p-1, 0x1.08598b59e3a07p-4, -0x1.dd7009902bf32p-58},
    {0x1.dd00000000000p-1, 0x1.2207b5c78549ep-4, -0x1.cc0fbce104eaap-58},
    {0x1.d900000000000p-1, 0x1.4485e03dbdfadp-4, 0x1.1ba349aadbc6ep-58},
    {0x1.d600000000000p-1, 0x1.5e95a4d9791cbp-4, 0x1.f38745c5c450ap-58},
    {0x1.d200000000000p-1, 0x1.8197e2f40e3f0p-4, 0x1.b9f2dffbeed43p-60},
    {0x1.cf00000000000p-1, 0x1.9c0c32d4d2548p-4, 0x1.fb0be3ccc1532p-59},
    {0x1.cc00000000000p-1, 0x1.b6ac88dad5b1cp-4, -0x1.0057eed1ca59fp-59},
    {0x1.c900000000000p-1, 0x1.d179788219364p-4, 0x1.9daf7df76ad2ap-59},
    {0x1.c600000000000p-1, 0x1.ec739830a1120p-4, -0x1.a2bf991780d3fp-59},
    {0x1.c200000000000p-1, 0x1.08598b59e3a07p-3, -0x1.dd7009902bf32p-57},
    {0x1.bf00000000000p-1, 0x1.160c8024b27b1p-3, -0x1.2d56ff61c2bfbp-57},
    {0x1.bc00000000000p-1, 0x1.23d712a49c202p-3, -0x1.6e38161051d69p-57},
    {0x1.b900000000000p-1, 0x1.31b994d3a4f85p-3, -0x1.c4716bdfc0cc9p-58},
    {0x1.b600000000000p-1, 0x1.3fb45a59928ccp-3, -0x1.d87e6a354d056p-57},
    {0x1.b300000000000p-1, 0x1.4dc7b897bc1c8p-3, -0x1.927d47803c5f4p-57},
    {0x1.b100000000000p-1, 0x1.5737cc9018cddp-3, 0x1.4f4d710fec38ep-57},
    {0x1.ae00000000000p-1, 0x1.6574ebe8c133ap-3, -0x1.d34f0f4621bedp-60},
    {0x1.ab00000000000p-1, 0x1.73cb9074fd14dp-3, -0x1.521a000b4cf01p-57},
    {0x1.a800000000000p-1, 0x1.823c16551a3c2p-3, -0x1.1232ce70be781p-57},
    {0x1.a500000000000p-1, 0x1.90c6db9fcbcd9p-3, 0x1.054473941ad99p-57},
    {0x1.a300000000000p-1, 0x1.9a8778debaa38p-3, 0x1.f47dfd871f87fp-57},
    {0x1.a000000000000p-1, 0x1.a93ed3c8ad9e3p-3, 0x1.bcafa9de97203p-57},
    {0x1.9d00000000000p-1, 0x1.b811730b823d2p-3, 0x1.a0ee735d9f0ecp-60},
    {0x1.9b00000000000p-1, 0x1.c2028ab17f9b4p-3, 0x1.f11aa3853a5f1p-57},
    {0x1.9800000000000p-1, 0x1.d1037f2655e7bp-3, 0x1.60629242471a2p-57},
    {0x1.9600000000000p-1, 0x1.db13db0d48940p-3, 0x1.aa11d49f96cb9p-58},
    {0x1.9300000000000p-1, 0x1.ea4449f04aaf5p-3, -0x1.d33919ab94074p-57},
    {0x1.9100000000000p-1, 0x1.f474b134df229p-3, -0x1.27c77ded76aadp-58},
    {0x1.8e00000000000p-1, 0x1.01eae5626c691p-2, -0x1.18290bd2932e2p-59},
    {0x1.8c00000000000p-1, 0x1.07138604d5862p-2, 0x1.cdb16ed4e9138p-56},
    {0x1.8a00000000000p-1, 0x1.0c42d676162e3p-2, 0x1.162c79d5d11eep-58},
    {0x1.8700000000000p-1, 0x1.14167ef367783p-2, 0x1.e0936abd4fa6ep-62},
    {0x1.8500000000000p-1, 0x1.1956d3b9bc2fap-2, 0x1.7b9d68d50a15dp-56},
    {0x1.8300000000000p-1, 0x1.1e9e1678899f4p-2, 0x1.512c3749a1e4ep-56},
    {0x1.8000000000000p-1, 0x1.269621134db92p-2, 0x1.e0efadd9db02bp-56},
    {0x1.7e00000000000p-1, 0x1.2bef07cdc9354p-2, -0x1.82dad7fd86088p-56},
    {0x1.7c00000000000p-1, 0x1.314f1e1d35ce4p-2, -0x1.3d69909e5c3dcp-56},
    {0x1.7a00000000000p-1, 0x1.36b6776be1117p-2, -0x1.324f0e883858ep-58},
    {0x1.7800000000000p-1, 0x1.3c25277333184p-2, -0x1.2ad27e50a8ec6p-56},
    {0x1.7500000000000p-1, 0x1.44591e0539f49p-2, -0x1.2b125247b0fa5p-56},
    {0x1.7300000000000p-1, 0x1.49da7f3bcc41fp-2, -0x1.9964a168ccacap-57},
    {0x1.7100000000000p-1, 0x1.4f637ebba9810p-2, -0x1.58cb3124b9245p-56},
    {0x1.6f00000000000p-1, 0x1.54f431b7be1a9p-2, -0x1.aacfdbbdab914p-56},
    {0x1.6d00000000000p-1, 0x1.5a8cadbbedfa1p-2, -0x1.e6c2bdfb3e037p-58},
    {0x1.6b00000000000p+0, -0x1.659b57303e1f3p-2, 0x1.f893d41c411f1p-56},
    {0x1.6900000000000p+0, -0x1.5ff3070a793d4p-2, 0x1.bc60efafc6f6ep-57},
    {0x1.6700000000000p+0, -0x1.5a42ab0f4cfe2p-2, 0x1.8ebcb7dee9a3dp-56},
    {0x1.6500000000000p+0, -0x1.548a2c3add263p-2, 0x1.819cf7e308ddbp-57},
    {0x1.6300000000000p+0, -0x1.4ec973260026ap-2, 0x1.42a87d977dc5ep-56},
    {0x1.6180000000000p+0, -0x1.4a7373cecf997p-2, -0x1.cb140cabb6bdbp-56},
    {0x1.5f80000000000p+0, -0x1.44a41b463c47cp-2, 0x1.d70c8309edcfcp-56},
    {0x1.5d80000000000p+0, -0x1.3ecc460ef5f50p-2, 0x1.4313e09807affp-58},
    {0x1.5b80000000000p+0, -0x1.38ebdb38ed321p-2, 0x1.3e8cc159afd10p-56},
    {0x1.5a00000000000p+0, -0x1.347dd9a987d55p-2, 0x1.4dd4c580919f8p-57},
    {0x1.5800000000000p+0, -0x1.2e8e2bae11d31p-2, 0x1.8f4cdb95ebdf9p-56},
    {0x1.5600000000000p+0, -0x1.2895a13de86a3p-2, -0x1.7ad24c13f040ep-56},
    {0x1.5480000000000p+0, -0x1.241558bfd1404p-2, 0x1.9bae06a5c872dp-65},
    {0x1.5280000000000p+0, -0x1.1e0d0c33716bep-2, -0x1.e55361a93fe61p-57},
    {0x1.5100000000000p+0, -0x1.1980d2dd4236fp-2, -0x1.9d3d1b0e4d147p-56},
    {0x1.4f00000000000p+0, -0x1.136870293a8b0p-2, -0x1.7b66298edd24ap-56},
    {0x1.4d80000000000p+0, -0x1.0ed005f657da4p-2, -0x1.c56bd2abfe82ap-56},
    {0x1.4c00000000000p+0, -0x1.0a324e27390e3p-2, -0x1.7dcfde8061c03p-56},
    {0x1.4a00000000000p+0, -0x1.0402594b4d041p-2, 0x1.28ec217a5022dp-57},
    {0x1.4880000000000p+0, -0x1.feb0233e607ccp-3, -0x1.6e32d5e8c707fp-57},
    {0x1.4700000000000p+0, -0x1.f550a564b7b37p-3, -0x1.c5f6dfd018c37p-61},
    {0x1.4500000000000p+0, -0x1.e8c0252aa5a60p-3, 0x1.6e03a39bfc89bp-59},
    {0x1.4380000000000p+0, -0x1.df46c0c722d2fp-3, -0x1.05616f20722e7p-57},
    {0x1.4200000000000p+0, -0x1.d5c216b4fbb91p-3, -0x1.6e443597e4d40p-57},
    {0x1.4080000000000p+0, -0x1.cc320c0176502p-3, -0x1.039a653793a85p-57},
    {0x1.3f00000000000p+0, -0x1.c2968558c18c1p-3, 0x1.73dee38a3fb6bp-57},
    {0x1.3d80000000000p+0, -0x1.b8ef670420c3bp-3, 0x1.999bd0ee3fe88p-57},
    {0x1.3c00000000000p+0, -0x1.af3c94e80bff3p-3, 0x1.398cff3641985p-58},
    {0x1.3a80000000000p+0, -0x1.a57df28244dcdp-3, 0x1.b9af132a24e39p-59},
    {0x1.3900000000000p+0, -0x1.9bb362e7dfb83p-3, -0x1.575e31f003e0cp-57},
    {0x1.3780000000000p+0, -0x1.91dcc8c340bdep-3, -0x1.aaf77bfd17182p-58},
    {0x1.3600000000000p+0, -0x1.87fa06520c911p-3, 0x1.bf7fdbfa08d9ap-57},
    {0x1.3480000000000p+0, -0x1.7e0afd630c274p-3, 0x1.83e270efcc373p-58},
    {0x1.3300000000000p+0, -0x1.740f8f54037a5p-3, 0x1.b264062a84cdbp-58},
    {0x1.3180000000000p+0, -0x1.6a079d0f7aad2p-3, 0x1.eedcbac2a7f18p-62},
    {0x1.3000000000000p+0, -0x1.5ff3070a793d4p-3, 0x1.bc60efafc6f6ep-58},
    {0x1.2e80000000000p+0, -0x1.55d1ad4232d6fp-3, 0x1.ac8966e060839p-58},
    {0x1.2d80000000000p+0, -0x1.4f099f4a230b2p-3, -0x1.a0a02a1b24794p-61},
    {0x1.2c00000000000p+0, -0x1.44d2b6ccb7d1ep-3, -0x1.9f4f6543e1f88p-57},
    {0x1.2a80000000000p+0, -0x1.3a8eb2d31a376p-3, 0x1.220a8abf098f4p-60},
    {0x1.2900000000000p+0, -0x1.303d718e47fd3p-3, 0x1.6b9c7d96091fap-63},
    {0x1.2800000000000p+0, -0x1.29552f81ff523p-3, -0x1.301771c407dbfp-57},
    {0x1.2680000000000p+0, -0x1.1eed90e2dc2c3p-3, 0x1.4e47b44db8540p-57},
    {0x1.2500000000000p+0, -0x1.14785846742acp-3, -0x1.a28813e3a7f07p-57},
    {0x1.2400000000000p+0, -0x1.0d77e7cd08e59p-3, -0x1.9a5dc5e9030acp-57},
    {0x1.2280000000000p+0, -0x1.02ebb42bf3d4bp-3, 0x1.f4b9c01cb92c6p-59},
    {0x1.2180000000000p+0, -0x1.f7b79fec37ddfp-4, 0x1.87e897ed01783p-59},
    {0x1.2000000000000p+0, -0x1.e27076e2af2e6p-4, 0x1.61578001e0162p-60},
    {0x1.1f00000000000p+0, -0x1.d4313d66cb35dp-4, -0x1.790dd951d90fap-58},
    {0x1.1d80000000000p+0, -0x1.beba818146765p-4, 0x1.e2db7c7d5a130p-58},
    {0x1.1c80000000000p+0, -0x1.b05b49bee43fep-4, -0x1.160c7c252f298p-58},
    {0x1.1b00000000000p+0, -0x1.9ab42462033adp-4, 0x1.2099e1c184e8ep-59},
    {0x1.1a00000000000p+0, -0x1.8c345d6319b21p-4, 0x1.4a697ab3424a9p-61},
    {0x1.1880000000000p+0, -0x1.765bf23a6be13p-4, -0x1.0ff28ef6a592fp-58},
    {0x1.1780000000000p+0, -0x1.67bb0726ec0fcp-4, 0x1.b692c214ddbecp-58},
    {0x1.1680000000000p+0, -0x1.590cafdf01c28p-4, -0x1.3d5c8aaea76d2p-58},
    {0x1.1500000000000p+0, -0x1.42edcbea646f0p-4, -0x1.ddd4f935996c9p-59},
    {0x1.1400000000000p+0, -0x1.341d7961bd1d1p-4, 0x1.b599f227becbbp-58},
    {0x1.1300000000000p+0, -0x1.253f62f0a1417p-4, 0x1.c125963fc4cfdp-62},
    {0x1.1180000000000p+0, -0x1.0ed839b5526fep-4, -0x1.7256ea8988a68p-61},
    {0x1.1080000000000p+0, -0x1.ffae9119b9303p-5, -0x1.ba13162a9c446p-60},
    {0x1.0f80000000000p+0, -0x1.e19070c276016p-5, 0x1.19918a7a17dc1p-59},
    {0x1.0e80000000000p+0, -0x1.c355dd0921f2dp-5, 0x1.9b2a03e3be3a7p-60},
    {0x1.0d00000000000p+0, -0x1.95c830ec8e3ebp-5, -0x1.f5a0e80520bf2p-59},
    {0x1.0c00000000000p+0, -0x1.77458f632dcfcp-5, -0x1.18d3ca87b9296p-59},
    {0x1.0b00000000000p+0, -0x1.58a5bafc8e4d5p-5, 0x1.ce55c2b4e2b72p-59},
    {0x1.0a00000000000p+0, -0x1.39e87b9febd60p-5, 0x1.5bfa937f551bbp-59},
    {0x1.0900000000000p+0, -0x1.1b0d98923d980p-5, 0x1.e9ae889bac481p-60},
    {0x1.0780000000000p+0, -0x1.d91a66c543cc4p-6, 0x1.d34e608cbdaabp-62},
    {0x1.0680000000000p+0, -0x1.9ace7551cc514p-6, -0x1.3409c1df8167fp-60},
    {0x1.0580000000000p+0, -0x1.5c45a51b8d389p-6, 0x1.b10b6c3ec21b4p-60},
    {0x1.0480000000000p+0, -0x1.1d7f7eb9eebe7p-6, 0x1.d41fe63d2dbf9p-61},
    {0x1.0380000000000p+0, -0x1.bcf712c74384cp-7, 0x1.f6842688f499ap-62},
    {0x1.0280000000000p+0, -0x1.3e7295d25a7d9p-7, 0x1.ff29a11443a06p-65},
    {0x1.0180000000000p+0, -0x1.7ee11ebd82e94p-8, 0x1.61e96e2fc5d90p-62},
    {0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0}
};

/* log(x + xlo) as hi + *lo, for x > 0 finite, |xlo| <= ulp(x)/2 */
static double log_core(double x, double xlo, double *lo)
{
    uint64_t u = bits(x);
    int adj = 0;
    if ((u >> 52) == 0) { /* subnormal */
        x *= 0x1p52;
        xlo *= 0x1p52;
        u = bits(x);
        adj = 52;
    }
    int j = (int)((u >> 45) & 127);
    int e = (int)(u >> 52) - 1023 - adj;
    uint64_t mb = (u & FRAC) | bits(1.0); /* m in [1, 2) */
    if (j >= 52) {
        mb -= IMPL; /* m/2 */
        e++;
    }
    double m = dbl(mb);
    double mlo = xlo != 0 ? kvm_ldexp(xlo, -e - adj) : 0;
    double invc = log_tab[j][0], rh, rl;
    if (invc == 1.0) { /* next to 1: m - 1 exact, and no split that would cancel */
        rh = m - 1.0;
        rl = mlo;
    } else {
        double mh = dbl(mb & ~(uint64_t)0x3ff), ml = m - mh;
        rh = mh * invc - 1.0; /* exact */
        rl = (ml + mlo) * invc;
    }
    double r = rh + rl;
    /* log(1 + r) = r - r^2/2 + r^3 (1/3 - r/4 + ...), |r| < 2^-7 */
    double qe, q = two_prod(rh, rh, &qe);
    double c3 = r * r * r * (0x1.5555555555555p-2 + r * (-0.25 + r * (0x1.999999999999ap-3 +
                r * (-0x1.5555555555555p-3 + r * (0x1.2492492492492p-3 + r * (-0.125 +
                r * (0x1.c71c71c71c71cp-4 - r * 0x1.999999999999ap-4)))))));
    double ed = (double)e;
    double e1, s1 = two_sum(ed * 0x1.62e42fefa3800p-1, log_tab[j][1], &e1);
    double e2, s2 = two_sum(s1, rh, &e2);
    double e3, s3 = two_sum(s2, -0.5 * q, &e3);
    double l = e1 + e2 + e3 + (ed * 0x1.ef35793c76730p-45 + log_tab[j][2] + rl +
                               (c3 - 0.5 * qe - rh * rl - 0.5 * rl * rl));
    return fast_two_sum(s3, l, lo);
}

/* the NaN, infinity or -inf of a log of x (not > 0 finite), or 0 when x is in the domain */
static int log_special(double x, double *out)
{
    uint64_t u = bits(x);
    if (u - 1 >= EXPB - 1) { /* 0, negative, inf or NaN */
        if ((u & ~SIGN) == 0)
            *out = -HUGE_VAL;
        else if (u == EXPB)
            *out = x;
        else
            *out = (x - x) / (x - x); /* NaN: x quieted, or the default NaN for x < 0 */
        return 1;
    }
    return 0;
}

double kvm_log(double x)
{
    double lo, out;
    if (log_special(x, &out))
        return out;
    return log_core(x, 0, &lo);
}

static double times(double hi, double lo, double ch, double cl)
{
    double pe, p = two_prod(hi, ch, &pe);
    return p + (pe + (hi * cl + lo * ch));
}

double kvm_log2(double x)
{
    double lo, out;
    if (log_special(x, &out))
        return out;
    double hi = log_core(x, 0, &lo);
    return times(hi, lo, 0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56);
}

double kvm_log10(double x)
{
    double lo, out;
    if (x < 0)
        return NAN; /* not the default NaN: glibc's log10 wrapper returns NAN */
    if (log_special(x, &out))
        return out;
    double hi = log_core(x, 0, &lo);
    return times(hi, lo, 0x1.bcb7b1526e50ep-2, 0x1.95355baaafad3p-57);
}

double kvm_log1p(double x)
{
    uint64_t u = bits(x);
    if (is_nan_bits(u))
        return x + x;
    if (u == EXPB || (u & ~SIGN) == 0)
        return x;
    if (!(x >= -1.0))
        return (x - x) / (x - x);
    if (x == -1.0)
        return -HUGE_VAL;
    if ((u & ~SIGN) < bits(0x1p-60))
        return x;
    double ue, v = two_sum(1.0, x, &ue);
    double lo;
    return log_core(v, ue, &lo);
}

/* ---- cos --------------------------------------------------------------------------------- */

/* cos(x + y) and sin(x + y) for |x| <= pi/4, |y| tiny: Taylor series */
static double k_cos(double x, double y)
{
    double ze, z = two_prod(x, x, &ze);
    double hz = 0.5 * z, w = 1.0 - hz;
    double p = z * z * (0x1.5555555555555p-5 + z * (-0x1.6c16c16c16c17p-10 +
               z * (0x1.a01a01a01a01ap-16 + z * (-0x1.27e4fb7789f5cp-22 +
               z * (0x1.1eed8eff8d898p-29 + z * (-0x1.93974a8c07c9dp-37 +
               z * (0x1.ae7f3e733b81fp-45 - z * 0x1.6827863b97d97p-53)))))));
    return w + (((1.0 - w) - hz) + ((p - 0.5 * ze) - x * y));
}

static double k_sin(double x, double y)
{
    double z = x * x, v = z * x;
    double p = 0x1.1111111111111p-7 + z * (-0x1.a01a01a01a01ap-13 +
               z * (0x1.71de3a556c734p-19 + z * (-0x1.ae64567f544e4p-26 +
               z * (0x1.6124613a86d09p-33 + z * (-0x1.ae7f3e733b81fp-41 +
               z * (0x1.952c77030ad4ap-49 - z * 0x1.2f49b46814157p-57))))));
    return x + ((y - 0.5 * z * y) + v * (z * p - 0x1.5555555555555p-3));
}

/* 2/pi: 1344 bits after the binary point, 32 a word, the first word first */
static const uint32_t two_over_pi[42] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041,
    0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c,
    0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
    0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
    0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
    0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d, 0xa9e39161, 0x5ee61b08
};

/* bits lo .. lo + 63 of the 256-bit number p (8 words, the lowest first) */
static uint64_t bits64(const uint32_t *p, int lo)
{
    uint64_t v = 0;
    for (int b = lo + 63; b >= lo; b--)
        v = v << 1 | (b >= 0 && b < 256 ? (uint64_t)(p[b / 32] >> (b % 32) & 1) : 0);
    return v;
}

/* ax = q pi/2 + (rh + rl) for ax >= 2^20 finite (Payne-Hanek): ax = M 2^e with M < 2^53, and
 * ax 2/pi mod 4 is M times the 192 bits of 2/pi from the bit worth 2^-(e-1) on (the bits
 * before it give multiples of 4); the fraction keeps 128 bits, past the 61 that the doubles
 * nearest a multiple of pi/2 cancel */
static unsigned rem_pio2_large(double ax, double *rh, double *rl)
{
    uint64_t u = bits(ax), m = (u & FRAC) | IMPL;
    int e = (int)(u >> 52) - 1075;
    int i0 = e - 1 > 1 ? e - 1 : 1;
    int o = i0 - 1, w0 = o / 32, sh = o % 32;
    uint32_t w[6], p[8] = {0};
    for (int k = 0; k < 6; k++) /* little-endian: w[0] holds the last window bits */
        w[5 - k] = sh ? (uint32_t)(two_over_pi[w0 + k] << sh | two_over_pi[w0 + k + 1] >> (32 - sh))
                      : two_over_pi[w0 + k];
    uint64_t half[2] = {m & 0xffffffffu, m >> 32};
    for (int h = 0; h < 2; h++) {
        uint64_t carry = 0;
        for (int j = 0; j < 6; j++) {
            uint64_t t = (uint64_t)w[j] * half[h] + p[j + h] + carry;
            p[j + h] = (uint32_t)t;
            carry = t >> 32;
        }
        for (int j = 6 + h; j < 8 && carry; j++) {
            uint64_t t = (uint64_t)p[j] + carry;
            p[j] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    int fbits = i0 + 191 - e; /* P 2^-fbits is ax 2/pi (mod 4) */
    unsigned q = (unsigned)(bits64(p, fbits) & 3);
    uint64_t f1 = bits64(p, fbits - 64), f2 = bits64(p, fbits - 128);
    int neg = 0;
    if (f1 >> 63) { /* fraction >= 1/2: one more quadrant, and the fraction minus 1 */
        q++;
        neg = 1;
        f2 = ~f2 + 1;
        f1 = ~f1 + (f2 == 0);
    }
    int lz = 0;
    while (lz < 128 && !(f1 >> 63)) {
        f1 = f1 << 1 | f2 >> 63;
        f2 <<= 1;
        lz++;
    }
    double hi = kvm_ldexp((double)(f1 >> 11), -53 - lz);
    double lo = kvm_ldexp((double)((f1 & 0x7ff) << 53 | f2 >> 11), -117 - lz);
    double pe, ph = two_prod(hi, 0x1.921fb54442d18p+0, &pe); /* times pi/2 */
    pe += hi * 0x1.1a62633145c07p-54 + lo * 0x1.921fb54442d18p+0;
    double r = fast_two_sum(ph, pe, rl);
    *rh = neg ? -r : r;
    *rl = neg ? -*rl : *rl;
    return q & 3;
}

double kvm_cos(double x)
{
    uint64_t a = bits(x) & ~SIGN;
    if (a >= EXPB)
        return x / x; /* NaN quieted, or the default NaN for an infinity */
    if (a < bits(0x1p-27))
        return 1.0;
    double ax = dbl(a);
    if (ax <= 0x1.921fb54442d18p-1)
        return k_cos(ax, 0);
    double rh, rl;
    unsigned q;
    if (ax >= 0x1p20) {
        q = rem_pio2_large(ax, &rh, &rl);
    } else {
    /* ax = k pi/2 + r: below 2^20, pi/2 in three parts (33, 33 and 53 bits), k pi/2 exact in
     * the first two (k < 2^20); above, with 2/pi to 1344 bits */
        double kd = (double)(ax * 0x1.45f306dc9c883p-1 + 0x1.8p52);
        kd = (double)(kd - 0x1.8p52);
        double t = ax - kd * 0x1.921fb54400000p+0;
        double e1, r = two_sum(t, -(kd * 0x1.0b4611a600000p-34), &e1);
        rh = fast_two_sum(r, e1 - kd * 0x1.3198a2e037073p-69, &rl);
        q = (unsigned)((unsigned long)kd & 3);
    }
    switch (q) {
    case 0:
        return k_cos(rh, rl);
    case 1:
        return -k_sin(rh, rl);
    case 2:
        return -k_cos(rh, rl);
    default:
        return k_sin(rh, rl);
    }
}

/* ---- pow with an integer exponent -------------------------------------------------------- */

/* (h + l) 2^*e with h in [1, 2) */
static void renorm(double *h, double *l, long long *e)
{
    if (*h >= 2.0) {
        *h *= 0.5;
        *l *= 0.5;
        ++*e;
    }
}

static void dd_mul(double *h, double *l, double bh, double bl)
{
    double pe, p = two_prod(*h, bh, &pe);
    pe += *h * bl + *l * bh;
    *h = fast_two_sum(p, pe, l);
}

/* (h + l) 2^e, h = round(h + l) in [1, 2], rounded once to a double */
static double dd_scale(double h, double l, long long e)
{
    if (e > 1024)
        return HUGE_VAL;
    if (e >= -1022)
        return kvm_ldexp(h, (int)e); /* exact, or the overflow to inf */
    if (e < -1080)
        return 0.0;
    double y = kvm_ldexp(h, (int)e); /* h rounded to the subnormal grid */
    double d = h - kvm_ldexp(y, (int)-e), half = kvm_ldexp(1.0, (int)(-1075 - e));
    if (l != 0 && (d == half || d == -half) && ((l > 0) == (d > 0)))
        y = d > 0 ? y + 0x1p-1074 : y - 0x1p-1074; /* a tie that l decides */
    return y;
}

double kvm_powi(double x, long long n)
{
    uint64_t u = bits(x);
    if (n == 0)
        return is_nan_bits(u) && !(u & QUIET) ? x + 1.0 : 1.0; /* 1, but a signalling NaN */
    if (is_nan_bits(u))
        return x + x;
    unsigned long long un = n < 0 ? 0ull - (unsigned long long)n : (unsigned long long)n;
    int neg = (u & SIGN) && (un & 1);
    uint64_t a = u & ~SIGN;
    if (a == 0 || a == EXPB) { /* 0 or inf */
        int big = (a == EXPB) == (n > 0);
        double r = big ? HUGE_VAL : 0.0;
        return neg ? -r : r;
    }
    int be;
    uint64_t mm = unpack(a, &be);
    while (mm < IMPL) {
        mm <<= 1;
        be--;
    }
    double bh = dbl((mm & FRAC) | bits(1.0)), bl = 0; /* base (bh + bl) 2^bexp */
    long long bexp = be - 1023;
    double h = 1, l = 0;
    long long e = 0;
    for (;;) {
        if (un & 1) {
            dd_mul(&h, &l, bh, bl);
            e += bexp;
            renorm(&h, &l, &e);
        }
        un >>= 1;
        if (un == 0)
            break;
        if (bexp > 4200 || bexp < -4200) { /* past any double, with more factors to come */
            e = bexp;
            h = 1;
            l = 0;
            break;
        }
        dd_mul(&bh, &bl, bh, bl);
        bexp *= 2;
        renorm(&bh, &bl, &bexp);
    }
    if (n < 0) { /* 1 / (h + l): q, then one correction step */
        if (e > 4200 || e < -4200) {
            e = -e;
        } else {
            double q = 1.0 / h;
            double pe, p = two_prod(q, h, &pe);
            double c = ((1.0 - p) - pe - q * l) * q;
            h = fast_two_sum(q, c, &l);
            e = -e;
            if (h < 1.0) {
                h *= 2.0;
                l *= 2.0;
                e--;
            }
        }
    }
    double r = dd_scale(h, l, e);
    return neg ? -r : r;
}

double kvm_exp2_quarters(long long q)
{
    static const double quarter[4] = {1.0, 0x1.306fe0a31b715p+0, 0x1.6a09e667f3bcdp+0,
                                      0x1.ae89f995ad3adp+0};
    long long j = q % 4;
    if (j < 0)
        j += 4;
    long long k = (q - j) / 4;
    if (k > 2000)
        k = 2000;
    if (k < -2000)
        k = -2000;
    return kvm_ldexp(quarter[j], (int)k);
}
