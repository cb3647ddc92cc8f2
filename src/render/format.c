/*
 * format.c - Python-style number formatting (see format.h).
 *
 * printf already rounds the exact binary value half-to-even on glibc and on the BSD/macOS
 * libc, which is what Python does, so the digits are printf's: written here where that is
 * cheap to do exactly (fixed_scaled), from snprintf elsewhere; what is also added here is
 * what printf lacks: thousands separators, and Python's spelling of non-finite values
 * (printf may print "-nan"; Python always prints "nan").
 */
#include "format.h"

#include "kvprint.h"
#include "report.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvmath.h"

static char *nonfinite(char *buf, size_t cap, double v)
{
    kv_snprintf(buf, cap, "%s", isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"));
    return buf;
}

/* Inserts a comma every three digits of the integer part of the number in buf, in place.
 * buf holds an optional '-', digits, then anything else (".25", "e+06"). */
static char *group_thousands(char *buf, size_t cap)
{
    size_t start = (buf[0] == '-') ? 1 : 0;
    size_t digits = strspn(buf + start, "0123456789");
    size_t commas = digits > 0 ? (digits - 1) / 3 : 0;
    size_t len = strlen(buf);
    if (commas == 0 || len + commas + 1 > cap)
        return buf;
    /* Walk from the end, copying the tail as is and the digits with a comma every 3. */
    size_t src = len, dst = len + commas;
    size_t int_end = start + digits;
    buf[dst] = '\0';
    while (src > int_end)
        buf[--dst] = buf[--src];
    for (size_t k = 0; k < digits; k++) {
        if (k > 0 && k % 3 == 0)
            buf[--dst] = ',';
        buf[--dst] = buf[--src];
    }
    return buf;
}

static const uint64_t pow10s[] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
                                  1000000ull, 10000000ull, 100000000ull, 1000000000ull};
static size_t u64_digits(uint64_t u);
#define FIXED_MAX_PREC 9 /* 10^9 < 2^30: |v|'s significand times it fits 83 bits */

/* |v| x 10^prec rounded to an integer as printf rounds it - the exact binary value, a tie to
 * the even neighbour - for a finite v and prec <= FIXED_MAX_PREC: returns 1 and sets *q,
 * or 0 when the integer would not fit 64 bits (the caller then asks printf). Exact: |v| is
 * m 2^e with m < 2^53, so m 10^prec < 2^83 is a 128-bit integer (two 64-bit halves, as C11
 * has no wider type), and the division by 2^-e is a shift with the remainder kept. */
static int fixed_scaled(double v, int prec, uint64_t *q)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)(bits >> 52 & 0x7ff);
    uint64_t m = bits & (((uint64_t)1 << 52) - 1);
    int e = biased == 0 ? -1074 : biased - 1075;
    if (biased != 0)
        m |= (uint64_t)1 << 52;
    uint64_t p10 = pow10s[prec];
    if (m == 0) {
        *q = 0;
        return 1;
    }
    if (e >= 0) { /* an integer: m 2^e 10^prec, when it fits */
        if (e > 10 || (m << e) > UINT64_MAX / p10)
            return 0;
        *q = (m << e) * p10;
        return 1;
    }
    /* n = m x p10 as hi:lo; m = mh 2^32 + ml */
    uint64_t mh = m >> 32, ml = m & 0xffffffffu;
    uint64_t a = ml * p10, b = mh * p10; /* < 2^62, < 2^51 */
    uint64_t lo = a + (b << 32);
    uint64_t hi = (b >> 32) + (lo < a);
    int s = -e; /* n / 2^s, rounded */
    uint64_t whole, rem_hi, rem_lo, half_hi, half_lo;
    if (s >= 128) { /* n < 2^83 is less than half of 2^s: rounds to 0 */
        *q = 0;
        return 1;
    }
    if (s < 64) {
        if (hi >> s) /* the quotient has more than 64 bits */
            return 0;
        whole = (lo >> s) | (s ? hi << (64 - s) : 0);
        rem_hi = 0;
        rem_lo = lo & (((uint64_t)1 << s) - 1);
        half_hi = 0;
        half_lo = (uint64_t)1 << (s - 1);
    } else if (s == 64) {
        whole = hi;
        rem_hi = 0;
        rem_lo = lo;
        half_hi = 0;
        half_lo = (uint64_t)1 << 63;
    } else {
        whole = hi >> (s - 64);
        rem_hi = hi & (((uint64_t)1 << (s - 64)) - 1);
        rem_lo = lo;
        half_hi = (uint64_t)1 << (s - 65);
        half_lo = 0;
    }
    int above = rem_hi > half_hi || (rem_hi == half_hi && rem_lo > half_lo);
    int tie = rem_hi == half_hi && rem_lo == half_lo;
    if (above || (tie && (whole & 1))) {
        if (whole == UINT64_MAX)
            return 0;
        whole++;
    }
    *q = whole;
    return 1;
}

/* printf's "%.*f" of a finite v without printf (its float path was ~1,900 instructions a
 * number, most of a text report's: issue 22), into buf; the length, or 0 when this path
 * does not cover v (too large) or the text would not fit (the caller then asks printf). */
static size_t fixed_digits(char *buf, size_t cap, double v, int prec)
{
    uint64_t q;
    if (prec < 0 || prec > FIXED_MAX_PREC || !fixed_scaled(v, prec, &q))
        return 0;
    uint64_t whole = q / pow10s[prec], frac = q % pow10s[prec];
    int negative = signbit(v) != 0; /* printf keeps the sign of -0.001 as "-0.00" */
    size_t wlen = u64_digits(whole);
    size_t len = (size_t)negative + wlen + (prec > 0 ? 1 + (size_t)prec : 0);
    if (len + 1 > cap)
        return 0;
    char *p = buf;
    if (negative)
        *p++ = '-';
    for (char *d = p + wlen; d > p; whole /= 10)
        *--d = (char)('0' + whole % 10);
    p += wlen;
    if (prec > 0) {
        *p++ = '.';
        for (char *d = p + prec; d > p; frac /= 10)
            *--d = (char)('0' + frac % 10);
        p += prec;
    }
    *p = '\0';
    return len;
}

char *fmt_fixed(char *buf, size_t cap, double v, int prec, int group)
{
    if (!isfinite(v))
        return nonfinite(buf, cap, v);
    if (fixed_digits(buf, cap, v, prec) == 0)
        snprintf(buf, cap, "%.*f", prec, v);
    return group ? group_thousands(buf, cap) : buf;
}

char *fmt_figure(char *buf, size_t cap, double v, int typed)
{
    return typed ? fmt_g(buf, cap, v) : fmt_fixed(buf, cap, v, 2, 0);
}

static char *spell_g(char *buf, size_t cap, int negative, uint64_t digits, int n, int e,
                     int prec);

/* printf's "%g" without printf where its answer is fixed-point (an exponent x of -4 to 5
 * after rounding to 6 significant digits), from the exact rounding of fixed_scaled: the
 * digits are |v| x 10^(5 - x) rounded, x found by trying (a guess from the decimal powers
 * as doubles is at most one off, and the digit count of the rounding says which way).
 * NULL where printf must answer. */
static char *g_fixed(char *buf, size_t cap, double v)
{
    static const double powers[] = {1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
    double a = fabs(v);
    if (!(a >= powers[0] && a < powers[10]))
        return NULL;
    int x = -4;
    while (x < 5 && a >= powers[x + 5])
        x++;
    for (int tries = 0; tries < 3 && x >= -4 && x <= 5; tries++) {
        uint64_t q;
        if (!fixed_scaled(v, 5 - x, &q))
            return NULL;
        if (q >= 1000000) { /* rounded up to the next power of ten, or the guess was low */
            x++;
            continue;
        }
        if (q < 100000) {
            x--;
            continue;
        }
        int z = 0; /* trailing zeros, which %g drops */
        while (q % 10 == 0) {
            q /= 10;
            z++;
        }
        return spell_g(buf, cap, signbit(v) != 0, q, 6 - z, z - 5 + x, 6);
    }
    return NULL;
}

char *fmt_g(char *buf, size_t cap, double v)
{
    if (!isfinite(v))
        return nonfinite(buf, cap, v);
    if (!g_fixed(buf, cap, v))
        snprintf(buf, cap, "%g", v);
    return buf;
}

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                            "31323334353637383940414243444546474849505152535455565758596061"
                            "62636465666768697071727374757677787980818283848586878889909192"
                            "93949596979899";

/* Decimal digits of v without printf: sweeps print millions of integers. The length comes
 * first, so the digits are written once, in place, from the end: no copy and no strlen over
 * bytes just stored (a vector load of them waits for the stores: issue 22). The length by
 * comparisons (at most five for a number of eight digits), eight digits at a time above. */
static size_t u32_digits(uint32_t u)
{
    if (u < 10000)
        return u < 100 ? 1 + (u >= 10) : 3 + (u >= 1000);
    if (u < 100000000)
        return u < 1000000 ? 5 + (u >= 100000) : 7 + (u >= 10000000);
    return 9 + (u >= 1000000000);
}

static size_t u64_digits(uint64_t u)
{
    size_t n = 0;
    while (u > UINT32_MAX) { /* at most twice: 2^64 has 20 digits */
        u /= 100000000;
        n += 8;
    }
    return n + u32_digits((uint32_t)u);
}

/* The digits of x (below 2^32) ending just before p, two a division in 32 bits (cheaper
 * than 64-bit ones); returns where they start. */
static char *put_u32_back(char *p, uint32_t x)
{
    while (x >= 100) {
        unsigned d = x % 100 * 2;
        x /= 100;
        *--p = pairs[d + 1];
        *--p = pairs[d];
    }
    if (x >= 10) {
        *--p = pairs[x * 2 + 1];
        *--p = pairs[x * 2];
    } else
        *--p = (char)('0' + x);
    return p;
}

/* Writes v's digits into buf (cap >= its length + 1) and returns the length; 0 (buf cut
 * to "") when it does not fit. */
static size_t int_digits_n(char *buf, size_t cap, int64_t v)
{
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t len = u64_digits(u) + (v < 0);
    if (len + 1 > cap) {
        if (cap)
            buf[0] = '\0';
        return 0;
    }
    char *p = buf + len;
    *p = '\0';
    while (u > UINT32_MAX) { /* the low eight digits, zeros included */
        uint32_t low = (uint32_t)(u % 100000000);
        u /= 100000000;
        for (int i = 0; i < 4; i++) {
            unsigned d = low % 100 * 2;
            low /= 100;
            *--p = pairs[d + 1];
            *--p = pairs[d];
        }
    }
    p = put_u32_back(p, (uint32_t)u);
    if (v < 0)
        *--p = '-';
    return len;
}

static char *int_digits(char *buf, size_t cap, int64_t v)
{
    if (int_digits_n(buf, cap, v) == 0 && cap > 0)
        kv_snprintf(buf, cap, "%lld", (long long)v); /* cut, as printf cuts */
    return buf;
}

size_t fmt_int_n(char *buf, size_t cap, int64_t v)
{
    size_t n = int_digits_n(buf, cap, v);
    return n > 0 ? n : strlen(int_digits(buf, cap, v));
}

char *fmt_int(char *buf, size_t cap, int64_t v, int group)
{
    int_digits(buf, cap, v);
    return group ? group_thousands(buf, cap) : buf;
}

/* The fewest significant digits that read back as v, by printf: the first of %.15g, %.16g
 * (from %.1g for a subnormal) that strtod reads back as v, else %.17g, which always does. The
 * rule fmt_json_number keeps, and what it still does in the one case argued below not to be
 * a shortest decimal. */
static char *json_digits_by_printf(char *buf, size_t cap, double v)
{
    for (int prec = fabs(v) < DBL_MIN ? 1 : 15; prec < 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, cap, "%.17g", v);
    return buf;
}

/* The last `count` decimal digits of x (leading zeros included) into d[0] to d[count - 1]. */
static void put_digits(char *d, uint32_t x, int count)
{
    while (count >= 2) {
        unsigned pair = x % 100 * 2;
        x /= 100;
        count -= 2;
        d[count] = pairs[pair];
        d[count + 1] = pairs[pair + 1];
    }
    if (count)
        d[0] = (char)('0' + x % 10);
}

/* What snprintf(buf, cap, "%.*g", prec, v) writes when v rounded to prec significant digits
 * is digits 10^e (n digits, no trailing zeros, n <= prec; x = e + n - 1 the exponent of the
 * first): C's %g, exponent form (at least two exponent digits) when x < -4 or x >= prec, else
 * fixed, in both trailing zeros and a bare point dropped. NULL, and nothing written, when the
 * text would not fit in cap bytes. */
static char *spell_g(char *buf, size_t cap, int negative, uint64_t digits, int n, int e,
                     int prec)
{
    char d[20], text[48];
    size_t len = 0;
    int x = e + n - 1;
    if (n > 8) { /* in 32-bit halves: the first n - 8 digits, then the last 8 */
        put_digits(d, (uint32_t)(digits / 100000000), n - 8);
        put_digits(d + n - 8, (uint32_t)(digits % 100000000), 8);
    } else {
        put_digits(d, (uint32_t)digits, n);
    }
    if (negative)
        text[len++] = '-';
    if (x < -4 || x >= prec) {
        text[len++] = d[0];
        if (n > 1) {
            text[len++] = '.';
            memcpy(text + len, d + 1, (size_t)n - 1);
            len += (size_t)n - 1;
        }
        unsigned ax = (unsigned)(x < 0 ? -x : x);
        text[len++] = 'e';
        text[len++] = x < 0 ? '-' : '+';
        if (ax >= 100)
            text[len++] = (char)('0' + ax / 100);
        text[len++] = (char)('0' + ax / 10 % 10);
        text[len++] = (char)('0' + ax % 10);
    } else if (x >= 0) {
        int whole = x + 1; /* digits before the point */
        for (int i = 0; i < whole; i++)
            text[len++] = i < n ? d[i] : '0';
        if (n > whole) {
            text[len++] = '.';
            memcpy(text + len, d + whole, (size_t)(n - whole));
            len += (size_t)(n - whole);
        }
    } else {
        text[len++] = '0';
        text[len++] = '.';
        for (int i = -1; i > x; i--)
            text[len++] = '0';
        memcpy(text + len, d, (size_t)n);
        len += (size_t)n;
    }
    if (len + 1 > cap) /* printf's loop would cut each try, and read back the cut text */
        return NULL;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return buf;
}

size_t fmt_json_number_n(char *buf, size_t cap, double v)
{
    size_t n;
    /* the common case, a whole number, without a strlen or a floor: the comparisons are false
     * for NaN and the infinities, and the round trip through int64 is exact only for whole
     * numbers (-0.0 keeps its sign below) */
    if (v > -9.2e18 && v < 9.2e18 && (double)(int64_t)v == v && (v != 0 || !signbit(v)) &&
        (n = int_digits_n(buf, cap, (int64_t)v)) > 0)
        return n;
    return strlen(fmt_json_number(buf, cap, v));
}

char *fmt_json_number(char *buf, size_t cap, double v)
{
    if (!isfinite(v)) { /* JSON has no inf or nan: what has no figure is null */
        snprintf(buf, cap, "null");
        return buf;
    }
    if (v == kvm_floor(v) && fabs(v) < 9.2e18 && !(v == 0 && signbit(v)))
        return int_digits(buf, cap, (int64_t)v); /* exact: every such double is an int64 */
    if (v == kvm_floor(v) && fabs(v) < 1e21) {
        snprintf(buf, cap, "%.0f", v);
        return buf;
    }
    /* The fewest significant digits that read back as v (Python's repr), spelled as
     * json_digits_by_printf() spells them, which is the rule: %.Pg with P the first of 15,
     * 16, 17 whose rounding reads back (from 1 for a subnormal), and %g's choice of fixed or
     * exponent form depends on that P, not on the digits left. From the shortest decimal d
     * (n digits, the closest to v of that length; fmt_shortest) that P is known:
     *  - a normal v, n <= 15: the 15-digit decimals are more than 4.5 of v's ulps apart
     *    (10^-15 v against at most 2^-52 v), R_v (v's rounding interval) is at most one ulp
     *    wide and holds d, so the 15-digit rounding of v is d and reads back: P = 15;
     *  - n = 16: no decimal of 15 digits reads back, so %.15g does not. When R_v is
     *    symmetric about v the 16-digit rounding of v is at least as close as d, so it reads
     *    back, and it is d (d is the closest 16-digit decimal in R_v): P = 16. When v is a
     *    power of two the double below is closer and R_v's lower half is half as wide: the
     *    16-digit rounding may lie below v outside it while d lies above, and printf then
     *    goes on to 17 digits (46 powers of two do, 2^-1017 for one). A power of two with a
     *    16-digit d (1035 of the 2045 above DBL_MIN) goes to printf as before;
     *  - n = 17: %.17g, whose rounding is within 0.5 10^-16 v of v and so always in R_v
     *    (whose halves are at least 2^-54 v wide, even below a power of two): it is d, the
     *    closest 17-digit decimal in R_v;
     *  - a subnormal: R_v is symmetric (the ulp is the same either side), so the first P
     *    whose rounding reads back is n, and that rounding is d.
     * Where v is halfway between two decimals of the length printed (2^50 + 1/4 is, at 17
     * digits), printf and fmt_shortest both take the even one. */
    uint64_t digits, bits;
    int e, n = fmt_shortest(v, &digits, &e), prec;
    memcpy(&bits, &v, sizeof bits);
    int power_of_two = (bits & (((uint64_t)1 << 52) - 1)) == 0;
    if (fabs(v) < DBL_MIN)
        prec = n;
    else if (n <= 15)
        prec = 15;
    else if (n == 17)
        prec = 17;
    else if (!power_of_two)
        prec = 16;
    else
        return json_digits_by_printf(buf, cap, v);
    if (!spell_g(buf, cap, signbit(v) != 0, digits, n, e, prec))
        return json_digits_by_printf(buf, cap, v); /* a buffer too small for the text */
    return buf;
}

size_t utf8_seq(const char *s, unsigned long *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    static const unsigned long least[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len = u[0] < 0x80 ? 1 : u[0] >= 0xc2 && u[0] <= 0xdf ? 2
                 : u[0] >= 0xe0 && u[0] <= 0xef                ? 3
                 : u[0] >= 0xf0 && u[0] <= 0xf4                ? 4
                                                               : 0;
    if (len == 0)
        return 0;
    unsigned long c = len == 1 ? u[0] : u[0] & (0x7f >> len);
    for (size_t k = 1; k < len; k++) {
        if ((u[k] & 0xc0) != 0x80) /* also the terminating NUL: a truncated sequence */
            return 0;
        c = c << 6 | (u[k] & 0x3f);
    }
    if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

const char *text_safe_cut(char *buf, size_t cap, const char *text, size_t limit)
{
    size_t n = 0, i = 0;
    if (cap < 4) {
        if (cap)
            buf[0] = '\0';
        return buf;
    }
    while (text[i] && (limit == 0 || i < limit) && n + 4 < cap) {
        unsigned long cp;
        size_t len = utf8_seq(text + i, &cp);
        /* control bytes (C0, DEL, C1) and bytes that are not UTF-8 become '?' on a
         * terminal: a raw 0x9b is a CSI to some terminals */
        if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || n + len + 4 > cap) {
            buf[n++] = '?';
            i += len ? len : 1;
            continue;
        }
        memcpy(buf + n, text + i, len);
        n += len;
        i += len;
    }
    if (text[i]) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

const char *text_safe(char *buf, size_t cap, const char *text)
{
    return text_safe_cut(buf, cap, text, 0);
}

/* The name of value v in a list of choices, or NULL (a value not given). */
static const char *choice_of(const kv_choice *c, int value)
{
    for (; c && c->name; c++)
        if (c->value == value)
            return c->name;
    return NULL;
}

static char *put(char *buf, size_t cap, const char *text)
{
    kv_snprintf(buf, cap, "%s", text);
    return buf;
}

char *kv_param_text(char *buf, size_t cap, const kv_spec *s, const kv_param *p, int *is_string)
{
    kv_value v;
    const char *name;
    *is_string = 0;
    if (kv_spec_get(s, p, &v) != 0)
        return put(buf, cap, "null");
    switch (p->type) {
    case KV_T_INT:
        return fmt_int(buf, cap, v.i, 0);
    case KV_T_OPT_INT:
        return v.oi.set ? fmt_int(buf, cap, v.oi.value, 0) : put(buf, cap, "null");
    case KV_T_NUM:
        return fmt_json_number(buf, cap, v.d);
    case KV_T_OPT_NUM:
        return v.on.set ? fmt_json_number(buf, cap, v.on.value) : put(buf, cap, "null");
    case KV_T_DTYPE:
        *is_string = 1;
        return put(buf, cap, kv_dtype_get(v.t)->name);
    case KV_T_CHOICE:
    case KV_T_OPT_CHOICE:
        name = p->type == KV_T_CHOICE || v.oi.set
                   ? choice_of(p->choices, p->type == KV_T_CHOICE ? v.e : (int)v.oi.value)
                   : NULL;
        *is_string = name != NULL;
        return put(buf, cap, name ? name : "null"); /* not given: the engine's default */
    case KV_T_SWITCH:
        /* below 0: not given, the engine's default (vLLM's prefix caching by model) */
        return put(buf, cap, v.e < 0 ? "null" : v.e ? "true" : "false");
    case KV_T_ENGINE:
        *is_string = 1;
        return put(buf, cap, kv_engine_name(v.engine));
    case KV_T_VERSION:
        *is_string = 1;
        if (p->format)
            p->format(v.e, buf, cap);
        else
            fmt_int(buf, cap, v.e, 0);
        return buf;
    }
    return put(buf, cap, "null");
}
