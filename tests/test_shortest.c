/*
 * test_shortest.c - fmt_json_number against the printf loop it replaced (issue 22), byte for
 * byte, on 1.5 million doubles, and fmt_shortest's digits read back by strtod.
 *
 * old_json_number() below is the function as it was before shortest.c: the digits came from
 * snprintf("%.15g"), strtod, then %.16g, then %.17g. The values: random bit patterns,
 * random short decimals at every exponent, integers and their neighbours, powers of two and
 * of ten and their neighbours, subnormals, the extremes, and runs of consecutive doubles
 * around the places where the spelling changes (1e-5, 1e-4, 1e15, 1e16, 1e17, 9.2e18,
 * 1e21). The PRNG is seeded: every run checks the same values.
 *
 * KVCALC_SHORTEST_SCALE=N in the environment runs N times as many random values (a longer
 * hunt than ctest's: 100 compares 127 million in 5 minutes). The default takes about 4 s in
 * a RelWithDebInfo build, most of it in the old loop's printf and strtod; under the
 * sanitizers a quarter of the random values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bits.h"
#include "format.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* The old fmt_json_number, as it was (its integer path printed as %lld does). */
static char *old_json_number(char *buf, size_t cap, double v)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"));
        return buf;
    }
    if (v == floor(v) && fabs(v) < 9.2e18 && !(v == 0 && signbit(v))) {
        snprintf(buf, cap, "%lld", (long long)v);
        return buf;
    }
    if (v == floor(v) && fabs(v) < 1e21) {
        snprintf(buf, cap, "%.0f", v);
        return buf;
    }
    for (int prec = fabs(v) < DBL_MIN ? 1 : 15; prec < 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, cap, "%.17g", v);
    return buf;
}

/* splitmix64 (Steele, Lea and Flood), fixed seed */
static uint64_t rng_state = 0x6b7663616c633232u;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static uint64_t rnd_below(uint64_t n) { return rnd() % n; }


static long scale = 1;
static long checked, mismatches, unread;

static long count(long n)
{
    return (SANITIZED ? n / 4 : n) * scale;
}

/* new against old, and the new text read back */
static void check1(double v)
{
    char want[FMT_BUF], got[FMT_BUF];
    if (!isfinite(v))
        return;
    old_json_number(want, sizeof want, v);
    fmt_json_number(got, sizeof got, v);
    checked++;
    if (strcmp(want, got) != 0 && ++mismatches <= 20)
        print_message("mismatch: %a (%.17g): old \"%s\", new \"%s\"\n", v, v, want, got);
    if (u64_of(strtod(got, NULL)) != u64_of(v) && ++unread <= 20)
        print_message("does not read back: %a: \"%s\"\n", v, got);
}
static void check(double v)
{
    static unsigned calls;
    check1(v);
    if (calls++ % 8 == 0) /* the sign is one '-' in front: -v for one in eight */
        check1(-v);
}
/* v and the n doubles either side of it */
static void check_around(double v, int n)
{
    double up = v, down = v;
    check(v);
    for (int i = 0; i < n; i++) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, -INFINITY);
        check(up);
        check(down);
    }
}

static void finish(const char *what)
{
    print_message("%s: %ld values, %ld differ, %ld do not read back (%.1f s of CPU so far)\n",
                  what, checked, mismatches, unread, (double)clock() / CLOCKS_PER_SEC);
    assert_int_equal(mismatches, 0);
    assert_int_equal(unread, 0);
    checked = mismatches = unread = 0;
}

static void random_bits(void **state)
{
    (void)state;
    for (long i = 0, n = count(400000); i < n; i++)
        check1(double_of(rnd())); /* both signs come up, and the NaNs and infinities skip */
    finish("random bit patterns");
}

/* 1 to 17 significant digits (each count as often), read by strtod: the short decimals
 * that the 15- and 16-digit tries stop at. */
static void random_decimals(void **state)
{
    (void)state;
    char text[64];
    for (long i = 0, n = count(250000); i < n; i++) {
        int digits = 1 + (int)rnd_below(17);
        uint64_t lo = 1;
        for (int d = 1; d < digits; d++)
            lo *= 10;
        uint64_t m = lo + rnd_below(lo * 9);
        int e = (int)rnd_below(650) - 340;
        if (i % 4 == 0) /* a quarter near 1, where sweeps' figures are */
            e = (int)rnd_below(40) - 25;
        snprintf(text, sizeof text, "%llue%d", (unsigned long long)m, e);
        double v = strtod(text, NULL);
        if (v == 0 || !isfinite(v))
            continue;
        check1(i % 2 ? -v : v);
        if (i % 8 == 0)
            check_around(v, 1);
    }
    finish("random decimals");
}

static void integers_and_neighbours(void **state)
{
    (void)state;
    for (long i = 0, n = count(25000); i < n; i++) {
        int bits = 1 + (int)rnd_below(72);
        double v = ldexp((double)(rnd() >> 11), bits - 53); /* an integer of ~bits bits */
        v = floor(v);
        check_around(v, 2);
        check(v + 0.5);
        check(v + 0.25);
        check(v / 1024);
    }
    /* c / 4 for an odd c in [2^52, 2^53): halfway between two 17-digit decimals (ties) */
    for (long i = 0, n = count(20000); i < n; i++)
        check(ldexp((double)(((uint64_t)1 << 52) | rnd_below((uint64_t)1 << 52) | 1), -2));
    for (int i = 0; i < 2000; i++) {
        check_around(i, 1);
        check(i + 0.1);
        check(i / 3.0);
    }
    finish("integers and near-integers");
}

static void powers(void **state)
{
    (void)state;
    char text[32];
    for (int e = -1074; e <= 1023; e++) {
        check_around(ldexp(1, e), 4);
        check1(-ldexp(1, e));
    }
    for (int e = -323; e <= 308; e++) {
        snprintf(text, sizeof text, "1e%d", e);
        check_around(strtod(text, NULL), 40);
        for (int d = 2; d <= 9; d++) { /* the other one-digit decimals */
            snprintf(text, sizeof text, "%de%d", d, e);
            check_around(strtod(text, NULL), 2);
        }
    }
    finish("powers of two and ten");
}

static void subnormals(void **state)
{
    (void)state;
    for (uint64_t c = 1; c < 3000; c++) /* the smallest, one by one */
        check(double_of(c));
    for (long i = 0, n = count(10000); i < n; i++)
        check(double_of(1 + rnd_below(((uint64_t)1 << 52) - 1)));
    check_around(DBL_MIN, 500); /* the last subnormals and the first normals */
    finish("subnormals");
}

static void extremes_and_boundaries(void **state)
{
    (void)state;
    check_around(DBL_MAX, 1000);
    check_around(DBL_MIN, 10);
    check_around(DBL_EPSILON, 100);
    check(double_of(1));
    /* where the spelling changes: fixed and exponent forms (1e-5, 1e-4; 1e15, 1e16, 1e17 for
     * precisions 15 to 17), the integer paths (9.2e18, 2^63, 2^64, 1e21) and 2^53 */
    static const double at[] = {1e-5, 1e-4,   1e-3,   1e14,   1e15,         1e16,
                                1e17, 9.2e18, 1e21,   1e22,   9007199254740992.0,
                                9223372036854775808.0, 18446744073709551616.0, 0.1, 1.0};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        check_around(at[i], 3000);
    /* just below and above each power of ten that is a boundary: 0.99...9 10^E (1 to 18
     * nines) and 1.00...01 10^E */
    char text[48];
    for (int e = -7; e <= 23; e++)
        for (int digits = 1; digits <= 18; digits++) {
            snprintf(text, sizeof text, "0.%.*se%d", digits, "999999999999999999", e);
            check_around(strtod(text, NULL), 3);
            snprintf(text, sizeof text, "1.%.*s1e%d", digits - 1, "000000000000000000", e);
            check_around(strtod(text, NULL), 3);
        }
    finish("extremes and boundaries");
}

/* The figures sweeps print: byte counts in GiB, fractions, percentages, ratios */
static void sweep_values(void **state)
{
    (void)state;
    static const double fixed[] = {0.25, 37.5, 1234.5678, 17.179869184, 0.5, 0.125, 0.75,
                                   0.9, 0.95, 0.1, 0.2, 0.3, 1.5, 2.5, 99.99, 32.96,
                                   135.36328125, 1e-7, 123456789012345.6, 1.5e20, 0.0001};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_around(fixed[i], 5);
    for (long i = 0, n = count(50000); i < n; i++) {
        double bytes = (double)(rnd() >> (20 + rnd_below(20)));
        check(bytes / 1073741824.0);
        check(bytes / 1e9);
        check((double)rnd_below(1000000) / (double)(1 + rnd_below(100000)));
        check((double)rnd_below(100000) / 100.0);
        check((double)rnd_below(1 << 20) / 1024.0);
    }
    finish("sweep values");
}

/* fmt_shortest alone: every result reads back, has no trailing zero, and no decimal of one
 * digit fewer near it reads back (it is the shortest) */
static void shortest_reads_back(void **state)
{
    (void)state;
    char text[64];
    for (long i = 0, n = count(100000); i < n; i++) {
        double v = double_of(rnd() & ~((uint64_t)1 << 63));
        if (i % 3 == 0)
            v = ldexp((double)(rnd() >> 11), (int)rnd_below(120) - 60);
        if (!isfinite(v) || v == 0)
            continue;
        uint64_t digits;
        int e, n_digits = fmt_shortest(v, &digits, &e);
        snprintf(text, sizeof text, "%llue%d", (unsigned long long)digits, e);
        assert_true(n_digits >= 1 && n_digits <= 17);
        assert_true(digits % 10 != 0);
        if (strtod(text, NULL) != v) {
            print_message("%a: %s does not read back\n", v, text);
            fail();
        }
        if (n_digits > 1) { /* %.{n-1}e rounds to the closest one shorter: it must not */
            snprintf(text, sizeof text, "%.*e", n_digits - 2, v);
            if (strtod(text, NULL) == v) {
                print_message("%a: %s is shorter than %llue%d\n", v, text,
                              (unsigned long long)digits, e);
                fail();
            }
        }
    }
    uint64_t digits;
    int e;
    assert_int_equal(fmt_shortest(5e-324, &digits, &e), 1);
    assert_true(digits == 5 && e == -324);
    assert_int_equal(fmt_shortest(0.3, &digits, &e), 1);
    assert_true(digits == 3 && e == -1);
    assert_int_equal(fmt_shortest(DBL_MAX, &digits, &e), 17);
    assert_true(digits == 17976931348623157u && e == 292);
    assert_int_equal(fmt_shortest(0.0, &digits, &e), 1);
    assert_true(digits == 0);
}

/* A buffer too small for the text gets what the old loop gave it */
static void small_buffers(void **state)
{
    (void)state;
    static const double values[] = {1.7e-05, 0.3, 0.1 + 0.2, 1234.5678, 5e-324, 1e22,
                                    -2.5e-300, 123456789012345.6};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        for (size_t cap = 1; cap <= 30; cap++) {
            char want[32], got[32];
            memset(want, 'x', sizeof want);
            memset(got, 'x', sizeof got);
            old_json_number(want, cap, values[i]);
            fmt_json_number(got, cap, values[i]);
            assert_memory_equal(want, got, sizeof want);
        }
}

static void spellings(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {1e-5, "1e-05"},
        {1.5e-5, "1.5e-05"},
        {0.0001, "0.0001"},
        {0.00012, "0.00012"},
        {123456789012345.6, "123456789012345.6"},
        {1.5e20, "150000000000000000000"}, /* an integer below 1e21: %.0f */
        {1e21, "1e+21"},
        {1.5e300, "1.5e+300"},
        {-0.0, "-0"},
        {0.25, "0.25"},
        {37.5, "37.5"},
        {1234.5678, "1234.5678"},
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {4.9406564584124654e-324, "5e-324"},
        {1e15 + 0.5, "1000000000000000.5"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1125899906842624.25, "1125899906842624.2"}, /* a tie at 17 digits: even */
        {1125899906842624.75, "1125899906842624.8"},
    };
    char buf[FMT_BUF];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(fmt_json_number(buf, sizeof buf, cases[i].v), cases[i].want);
}

int main(void)
{
    const char *s = getenv("KVCALC_SHORTEST_SCALE");
    if (s && atol(s) > 0)
        scale = atol(s);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spellings),
        cmocka_unit_test(small_buffers),
        cmocka_unit_test(random_bits),
        cmocka_unit_test(random_decimals),
        cmocka_unit_test(integers_and_neighbours),
        cmocka_unit_test(powers),
        cmocka_unit_test(subnormals),
        cmocka_unit_test(extremes_and_boundaries),
        cmocka_unit_test(sweep_values),
        cmocka_unit_test(shortest_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
