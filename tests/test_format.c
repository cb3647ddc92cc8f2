/*
 * test_format.c - Python-style formatting. Each expectation is what Python's format() gives
 * for the same value and spec, with the reason where it is not obvious (ties round to even
 * on the exact binary value, which is not always the decimal literal).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "kvprint.h"

static char buf[FMT_BUF];

static void fixed_with_grouping(void **state)
{
    (void)state;
    assert_string_equal(fmt_fixed(buf, sizeof buf, 57344.0, 0, 1), "57,344");
    assert_string_equal(fmt_fixed(buf, sizeof buf, 1792.0, 1, 1), "1,792.0");
    assert_string_equal(fmt_fixed(buf, sizeof buf, 56.0, 1, 1), "56.0");
    assert_string_equal(fmt_fixed(buf, sizeof buf, 999.0, 0, 1), "999");
    assert_string_equal(fmt_fixed(buf, sizeof buf, 1000.0, 0, 1), "1,000");
    assert_string_equal(fmt_fixed(buf, sizeof buf, -1234567.5, 1, 1), "-1,234,567.5");
    /* 999.95 is stored as 999.95000000000004547...: rounds up across the comma */
    assert_string_equal(fmt_fixed(buf, sizeof buf, 999.95, 1, 1), "1,000.0");
    /* every digit of a large double, grouped: 2^70 */
    assert_string_equal(fmt_fixed(buf, sizeof buf, ldexp(1, 70), 0, 1),
                        "1,180,591,620,717,411,303,424");
    assert_string_equal(fmt_fixed(buf, sizeof buf, 1e21, 0, 1),
                        "1,000,000,000,000,000,000,000");
    /* the largest double: 309 digits and 102 commas fit the buffer */
    fmt_fixed(buf, sizeof buf, 1.7976931348623157e308, 4, 1);
    assert_int_equal(strlen(buf), 309 + 102 + 5);
    assert_memory_equal(buf, "179,769,313,486,231,570,8", 25);
}

static void fixed_rounding(void **state)
{
    (void)state;
    assert_string_equal(fmt_fixed(buf, sizeof buf, 0.125, 2, 0), "0.12"); /* exact tie: even */
    assert_string_equal(fmt_fixed(buf, sizeof buf, 0.375, 2, 0), "0.38"); /* exact tie: even */
    assert_string_equal(fmt_fixed(buf, sizeof buf, 2.675, 2, 0), "2.67"); /* 2.67499999... */
    assert_string_equal(fmt_fixed(buf, sizeof buf, 0.5, 0, 1), "0");
    assert_string_equal(fmt_fixed(buf, sizeof buf, 1.5, 0, 1), "2");
    assert_string_equal(fmt_fixed(buf, sizeof buf, 2.5, 0, 1), "2");
    assert_string_equal(fmt_fixed(buf, sizeof buf, 1e-7, 4, 0), "0.0000");
    assert_string_equal(fmt_fixed(buf, sizeof buf, -0.0, 2, 0), "-0.00");
    /* 32.96 GiB, the lesson's free memory: 35,392,123,904 / 2^30 = 32.961... */
    assert_string_equal(fmt_fixed(buf, sizeof buf, 35392123904.0 / 1073741824.0, 2, 0), "32.96");
}

static void fixed_nonfinite(void **state)
{
    (void)state;
    assert_string_equal(fmt_fixed(buf, sizeof buf, INFINITY, 2, 1), "inf");
    assert_string_equal(fmt_fixed(buf, sizeof buf, -INFINITY, 2, 0), "-inf");
    assert_string_equal(fmt_fixed(buf, sizeof buf, NAN, 2, 0), "nan");
}

static void general_format(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {7, "7"},
        {70.6, "70.6"},
        {0.5, "0.5"},
        {1e-5, "1e-05"},
        {0.0001, "0.0001"},
        {2.5e-5, "2.5e-05"},
        {1234567, "1.23457e+06"},
        {100000, "100000"},
        {1e6, "1e+06"},
        {49.392123904, "49.3921"},
        {123456.5, "123456"}, /* six significant digits, the tie goes to even */
        {-0.0, "-0"},
        {1e-320, "9.99989e-321"}, /* a subnormal: its exact value, not the literal */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(fmt_g(buf, sizeof buf, cases[i].v), cases[i].want);
    assert_string_equal(fmt_g(buf, sizeof buf, INFINITY), "inf");
    assert_string_equal(fmt_g(buf, sizeof buf, -NAN), "nan"); /* never "-nan" */
}

static void integers(void **state)
{
    (void)state;
    assert_string_equal(fmt_int(buf, sizeof buf, 0, 1), "0");
    assert_string_equal(fmt_int(buf, sizeof buf, 999, 1), "999");
    assert_string_equal(fmt_int(buf, sizeof buf, 1000, 1), "1,000");
    assert_string_equal(fmt_int(buf, sizeof buf, 4096, 1), "4,096");
    assert_string_equal(fmt_int(buf, sizeof buf, 4096, 0), "4096");
    assert_string_equal(fmt_int(buf, sizeof buf, -1000, 1), "-1,000");
    assert_string_equal(fmt_int(buf, sizeof buf, INT64_MAX, 1), "9,223,372,036,854,775,807");
    assert_string_equal(fmt_int(buf, sizeof buf, INT64_MIN, 1), "-9,223,372,036,854,775,808");
}

static void grouping_never_overflows(void **state)
{
    (void)state;
    char small[6];
    /* "12345" fits but "12,345" does not: left ungrouped rather than cut */
    assert_string_equal(fmt_int(small, sizeof small, 12345, 1), "12345");
}

static void json_numbers(void **state)
{
    (void)state;
    assert_string_equal(fmt_json_number(buf, sizeof buf, 57344.0), "57344");
    assert_string_equal(fmt_json_number(buf, sizeof buf, -56248137728.0), "-56248137728");
    assert_string_equal(fmt_json_number(buf, sizeof buf, 0.1), "0.1");
    assert_string_equal(fmt_json_number(buf, sizeof buf, 2.5), "2.5");
    assert_string_equal(fmt_json_number(buf, sizeof buf, 1.0 / 3.0), "0.3333333333333333");
    /* Python repr: the shortest that reads back - 15, 16 or 17 digits, and a subnormal its few */
    assert_string_equal(fmt_json_number(buf, sizeof buf, 135.36328125), "135.36328125");
    assert_string_equal(fmt_json_number(buf, sizeof buf, 0.1 + 0.2), "0.30000000000000004");
    assert_string_equal(fmt_json_number(buf, sizeof buf, 5e-324), "5e-324");
    assert_string_equal(fmt_json_number(buf, sizeof buf, 1e-310), "1e-310");
    assert_string_equal(fmt_json_number(buf, sizeof buf, 1e300), "1e+300");
    /* integral doubles above 2^53 print exactly, not rounded to 17 digits */
    assert_string_equal(fmt_json_number(buf, sizeof buf, 2709915257859271168.0),
                        "2709915257859271168");
    /* shortest round trip: whatever is printed reads back to the same double */
    static const double samples[] = {35392123904.5, 1e-300, 123.456, 7.0e20 + 0.5, 5e-324};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        fmt_json_number(buf, sizeof buf, samples[i]);
        assert_true(strtod(buf, NULL) == samples[i]);
    }
}

/* fmt_fixed and fmt_g write their digits without printf where they can (format.c:
 * fixed_scaled): each must write what printf writes, byte for byte, for every double and
 * precision - here random bit patterns of every exponent, halves and quarters at every
 * scale (exact ties), hundredths (the reports' GiB) and the neighbours of powers of ten. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static double sample(uint64_t *x, int kind)
{
    uint64_t r = next_random(x);
    double v;
    switch (kind) {
    case 0: /* any bit pattern */
        memcpy(&v, &r, sizeof v);
        return v;
    case 1: /* an integer over a power of two: ties at every precision */
        return ldexp((double)(r >> 40), -(int)(next_random(x) % 40));
    case 2: /* hundredths, thousandths */
        return (double)(int64_t)(r >> 30) / (next_random(x) & 1 ? 100.0 : 1000.0);
    case 3: { /* next to a power of ten, either side */
        double p = pow(10, (int)(r % 40) - 12);
        return r >> 63 ? nextafter(p, 0) : r >> 62 & 1 ? nextafter(p, INFINITY) : p;
    }
    default: /* a few significant digits, 9.99995-style roundings */
        return (double)(r % 2000000) / pow(10, (int)(next_random(x) % 12));
    }
}

static void fixed_and_g_as_printf(void **state)
{
    (void)state;
    char want[FMT_BUF];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 60000; i++) {
        double v = sample(&x, i % 5);
        if (i % 7 == 0)
            v = -v;
        if (!isfinite(v))
            continue;
        for (int prec = 0; prec <= 10; prec++) {
            snprintf(want, sizeof want, "%.*f", prec, v);
            fmt_fixed(buf, sizeof buf, v, prec, 0);
            if (strcmp(buf, want) != 0)
                fail_msg("%%.%df of %a: %s, printf %s", prec, v, buf, want);
        }
        snprintf(want, sizeof want, "%g", v);
        fmt_g(buf, sizeof buf, v);
        if (strcmp(buf, want) != 0)
            fail_msg("%%g of %a: %s, printf %s", v, buf, want);
    }
    /* a buffer too small: cut as printf cuts */
    char small[5];
    fmt_fixed(small, sizeof small, 123.456, 2, 0);
    assert_string_equal(small, "123.");
    fmt_g(small, sizeof small, 123.456);
    assert_string_equal(small, "123.");
}

/* The integer writers (format.c: int_digits_n, eight digits at a time above 2^32) against
 * printf's %lld for integers of every length: random bit patterns cut to each width, the
 * neighbours of every power of ten and of 2^32, and the ends of int64. fmt_json_number_n
 * takes whole doubles down the same path. */
static void integers_as_printf(void **state)
{
    (void)state;
    char want[64];
    uint64_t x = 1181783497276652981ull;
    int64_t edge[8 * 20 + 8];
    size_t ne = 0;
    uint64_t p10 = 1;
    for (int d = 0; d < 19; d++, p10 *= 10)
        for (int k = -1; k <= 1; k++) {
            edge[ne++] = (int64_t)(p10 + (uint64_t)k);
            edge[ne++] = -(int64_t)(p10 + (uint64_t)k);
        }
    const int64_t ends[] = {INT64_MAX, INT64_MIN, INT64_MIN + 1, 4294967295LL, 4294967296LL,
                            4294967297LL, 0, 35392123904LL};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        edge[ne++] = ends[i];
    for (int i = 0; i < 200000 + (int)ne; i++) {
        int64_t v;
        if (i < (int)ne) {
            v = edge[i];
        } else {
            uint64_t r = next_random(&x);
            v = (int64_t)(r >> (next_random(&x) % 64));
            if (i % 3 == 0)
                v = -v;
        }
        snprintf(want, sizeof want, "%lld", (long long)v);
        assert_string_equal(fmt_int(buf, sizeof buf, v, 0), want);
        assert_int_equal(fmt_int_n(buf, sizeof buf, v), strlen(want));
        assert_string_equal(buf, want);
        /* a whole double: the JSON writer's integer path (below 2^53 every int64 is one) */
        if (v > -9007199254740992LL && v < 9007199254740992LL) {
            assert_int_equal(fmt_json_number_n(buf, sizeof buf, (double)v), strlen(want));
            assert_string_equal(buf, want);
        }
    }
    /* -0.0 is not the integer 0: it keeps its sign (a JSON number still) */
    fmt_json_number_n(buf, sizeof buf, -0.0);
    assert_string_equal(buf, "-0");
}

/* kvprint.h's functions against the C library's on each conversion, flag, width, precision
 * and length they write themselves, on those they hand over, and on every buffer size. */
#define AS_PRINTF(...)                                                                     \
    do {                                                                                   \
        for (size_t cap = 0; cap <= sizeof want; cap = cap < 40 ? cap + 1 : sizeof want + 1) { \
            volatile size_t c = cap < sizeof want ? cap : sizeof want; /* not seen cut */   \
            memset(want, 'x', sizeof want);                                                \
            memset(got, 'x', sizeof got);                                                  \
            int nw = snprintf(c ? want : NULL, c, __VA_ARGS__);                            \
            int ng = kv_snprintf(c ? got : NULL, c, __VA_ARGS__);                          \
            assert_int_equal(ng, nw);                                                      \
            if (memcmp(got, want, sizeof want) != 0)                                       \
                fail_msg("kv_snprintf(%zu, %s): '%s', printf '%s'", c, #__VA_ARGS__, got,  \
                         want);                                                            \
        }                                                                                  \
        rewind(f);                                                                         \
        int nf = kv_fprintf(f, __VA_ARGS__);                                               \
        long at = ftell(f);                                                                \
        rewind(f);                                                                         \
        memset(got, 0, sizeof got);                                                        \
        size_t r = fread(got, 1, (size_t)at, f);                                           \
        snprintf(want, sizeof want, __VA_ARGS__);                                          \
        assert_int_equal(nf, (int)strlen(want));                                           \
        assert_int_equal((long)r, at);                                                     \
        assert_string_equal(got, want);                                                    \
    } while (0)

static void print_as_printf(void **state)
{
    (void)state;
    static char want[120], got[120];
    FILE *f = tmpfile();
    assert_non_null(f);
    const char *s = "kv cache", *e = "";
    AS_PRINTF("plain text, no conversion");
    AS_PRINTF("%s", s);
    AS_PRINTF("[%s|%s]", s, e);
    AS_PRINTF("%12s|%-12s|%3s|%-3s", s, s, s, s);
    AS_PRINTF("%*s|%-*s|%*s", 14, s, 14, s, -14, s);
    AS_PRINTF("%.3s|%.0s|%.20s|%.*s|%.*s|%-10.4s|%10.*s", s, s, s, 5, s, -1, s, s, 2, s);
    AS_PRINTF("%d %i %d %d %5d %-5d|", 0, -1, INT_MAX, INT_MIN, 42, -42);
    AS_PRINTF("%ld %lld %lld %lld", -7L, LLONG_MAX, LLONG_MIN, 0LL);
    AS_PRINTF("%u %lu %llu %zu %zu %20zu", 4000000000u, 9UL, ULLONG_MAX, (size_t)0, SIZE_MAX,
              (size_t)12345);
    AS_PRINTF("%c%c%-3c|%3c|", 'a', '%', 'b', 'c');
    AS_PRINTF("100%% of %s%%", s);
    AS_PRINTF("%s %.2f %g %s", s, 1.005, 1e-7, s); /* the C library's */
    AS_PRINTF("%05d|%+d|% d|%#x|%x|%lx|%hd|%zd|%.3d|%p", 42, 42, 42, 255, 255u, 255UL,
              (short)7, (ptrdiff_t)-3, 7, (void *)0);
    AS_PRINTF("%s", "a line longer than the buffers of this test: it is cut as printf cuts "
                    "it, at every size, and written whole to a file");
    /* a line longer than kv_fprintf's own buffer goes to vfprintf whole */
    static char longline[3000];
    memset(longline, 'y', sizeof longline - 1);
    rewind(f);
    assert_int_equal(kv_fprintf(f, "<%s>", longline), (int)sizeof longline + 1);
    assert_int_equal(ftell(f), (long)sizeof longline + 1);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_with_grouping), cmocka_unit_test(fixed_rounding),
        cmocka_unit_test(fixed_nonfinite),     cmocka_unit_test(general_format),
        cmocka_unit_test(integers),            cmocka_unit_test(grouping_never_overflows),
        cmocka_unit_test(json_numbers),        cmocka_unit_test(fixed_and_g_as_printf),
        cmocka_unit_test(print_as_printf),
        cmocka_unit_test(integers_as_printf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
