/*
 * test_range.c - --sweep ranges: each old defect with its values written out by hand, the
 * int64 edges, the errors, and properties over many pseudo-random ranges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "range.h"

#define LIMIT 10000000000ULL /* the caller's grid limit, 10^10 */

static kv_range int_range(int64_t a, int64_t b, char op, const char *step)
{
    kv_range r;
    char err[256];
    assert_int_equal(kv_range_init_int(&r, a, b, op, step, "item", err, sizeof err), 0);
    return r;
}

static kv_range num_range(double a, double b, char op, const char *step)
{
    kv_range r;
    char err[256];
    assert_int_equal(kv_range_init_num(&r, a, b, op, step, "item", err, sizeof err), 0);
    return r;
}

/* Walks r into out (at most cap values) and returns how many there were. */
static size_t walk_int(const kv_range *r, int64_t *out, size_t cap)
{
    kv_range_iter it;
    int64_t v;
    size_t n = 0;
    kv_range_begin(r, &it);
    while (kv_range_next(&it, &v, NULL)) {
        if (n < cap)
            out[n] = v;
        n++;
    }
    return n;
}

static size_t walk_num(const kv_range *r, double *out, size_t cap)
{
    kv_range_iter it;
    double v;
    size_t n = 0;
    kv_range_begin(r, &it);
    while (kv_range_next(&it, NULL, &v)) {
        if (n < cap)
            out[n] = v;
        n++;
    }
    return n;
}

static void expect_ints(const kv_range *r, const int64_t *want, size_t n)
{
    int64_t got[128];
    assert_int_equal(walk_int(r, got, 128), n);
    for (size_t i = 0; i < n; i++)
        assert_true(got[i] == want[i]);
    assert_true(kv_range_count(r, LIMIT) == n);
}

/* Old code: x <= B * (1 + 1e-12) let 1e12 + 11 through (B * 1e-12 = 1.00000000001). */
static void stops_at_b(void **state)
{
    (void)state;
    int64_t want[11];
    for (int i = 0; i < 11; i++)
        want[i] = 1000000000000 + i;
    kv_range r = int_range(1000000000000, 1000000000010, '+', "1");
    expect_ints(&r, want, 11);

    double d[16];
    r = num_range(1e12, 1e12 + 10, '+', "1");
    assert_int_equal(walk_num(&r, d, 16), 11);
    assert_true(d[10] == 1000000000010.0);
    /* (0.3 - 0.1) / 0.1 = 1.9999999999999998: the 1e-9 of a step keeps 0.3, written as B */
    r = num_range(0.1, 0.3, '+', "0.1");
    assert_int_equal(walk_num(&r, d, 16), 3);
    assert_true(d[0] == 0.1 && d[1] == 0.1 + 0.1 && d[2] == 0.3);
    assert_true(kv_range_count(&r, LIMIT) == 3);
}

/* Old code went through double: 2^63 - 7 + 3 ... rounded to 2^63 and wrapped negative. */
static void near_int64_max(void **state)
{
    (void)state;
    static const int64_t add[] = {9223372036854775800, 9223372036854775803,
                                  9223372036854775806};
    kv_range r = int_range(9223372036854775800, INT64_MAX, '+', "3");
    expect_ints(&r, add, 3);

    int64_t pow2[63]; /* 2^0 .. 2^62; 2^63 is past INT64_MAX */
    for (int i = 0; i < 63; i++)
        pow2[i] = (int64_t)1 << i;
    r = int_range(1, INT64_MAX, '*', "2");
    expect_ints(&r, pow2, 63);
    r = int_range(1, INT64_MAX, '*', "2.0"); /* same, spelled as a fraction */
    expect_ints(&r, pow2, 63);

    /* 3^39 = 4,052,555,153,018,976,267 <= INT64_MAX < 3^40: 40 values */
    int64_t got[64];
    r = int_range(1, INT64_MAX, '*', "3");
    assert_int_equal(walk_int(&r, got, 64), 40);
    assert_true(got[39] == 4052555153018976267);

    /* (2^63 - 2) * 1.5 is past INT64_MAX: one value, no wrap */
    static const int64_t one[] = {9223372036854775806};
    r = int_range(9223372036854775806, INT64_MAX, '*', "1.5");
    expect_ints(&r, one, 1);

    /* the whole int64 line with a step of 2^63: INT64_MIN, 0 (2^64 - 1 over 2^63 is 1) */
    static const int64_t halves[] = {INT64_MIN, 0};
    r = int_range(INT64_MIN, INT64_MAX, '+', "9223372036854775808");
    expect_ints(&r, halves, 2);
    static const int64_t ends[] = {INT64_MIN, INT64_MAX};
    r = int_range(INT64_MIN, INT64_MAX, '+', "18446744073709551615");
    expect_ints(&r, ends, 2);
    static const int64_t lo[] = {INT64_MIN, INT64_MIN + 1, INT64_MIN + 2};
    r = int_range(INT64_MIN, INT64_MIN + 2, '+', "1");
    expect_ints(&r, lo, 3);

    /* 2^64 values: more than any limit, counted without walking */
    r = int_range(INT64_MIN, INT64_MAX, '+', "1");
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    assert_true(kv_range_count(&r, UINT64_MAX) == UINT64_MAX);
}

/* Old code rounded each of 1, 1.5, 2.25, 3.375 ... and got 1, 2, 2, 3. */
static void geometric_int_never_repeats(void **state)
{
    (void)state;
    /* round half away: 1.5->2, 3, 4.5->5, 7.5->8, 12, 18, 27, 40.5->41, 61.5->62, 93;
     * 139.5 > 100 */
    static const int64_t f15[] = {1, 2, 3, 5, 8, 12, 18, 27, 41, 62, 93};
    kv_range r = int_range(1, 100, '*', "1.5");
    expect_ints(&r, f15, 11);
    /* 1.1, 2.2, ... 9.9 all round to at most prev: +1 wins every time */
    static const int64_t f11[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    r = int_range(1, 10, '*', "1.1");
    expect_ints(&r, f11, 10);
    static const int64_t tens[] = {1000, 10000, 100000, 1000000};
    r = int_range(1000, 9999999, '*', "1e1");
    expect_ints(&r, tens, 4);
}

/* A count is exact and lazy: 3 values are 3 whatever the limit, a huge range is "limit+1". */
static void counts_are_exact(void **state)
{
    (void)state;
    kv_range r = int_range(1, 3, '+', "1");
    assert_true(kv_range_count(&r, LIMIT) == 3);
    assert_true(kv_range_count(&r, 3) == 3);
    assert_true(kv_range_count(&r, 2) == 3); /* over the limit: limit + 1 */
    assert_true(kv_range_count(&r, 0) == 1);
    r = int_range(0, 1000000000000000000, '+', "1");
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    r = int_range(0, 10000000000, '+', "1"); /* exactly 10^10 + 1 values */
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    assert_true(kv_range_count(&r, LIMIT + 1) == LIMIT + 1);
    r = int_range(1, 10000000000, '+', "1");
    assert_true(kv_range_count(&r, LIMIT) == LIMIT);
    r = num_range(0, 1e300, '+', "1");
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    r = num_range(-1e308, 1e308, '+', "0.5"); /* B - A overflows a double */
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    r = num_range(1e-300, 1e300, '*', "1.0000000001"); /* ~1.4e13 values */
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    /* 1 .. 10^18 by 1.000000001: +1 up to ~10^9, then ~2*10^10 more, both counted at once */
    r = int_range(1, 1000000000000000000, '*', "1.000000001");
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    r = int_range(1000000000000, 1000000000000000000, '*', "1.00000000001");
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    /* F = 1 + 2^-52: every integer, the +1 stretch counted in one step */
    r = int_range(1, 1000000000000, '*', "1.0000000000000002");
    assert_true(kv_range_count(&r, LIMIT) == LIMIT + 1);
    assert_true(kv_range_count(&r, UINT64_MAX) == 1000000000000);
    /* 2^0 .. 2^10 by 2: 11 values; 1 .. 2 by 1.5: 1, 2 */
    r = num_range(1, 1024, '*', "2");
    assert_true(kv_range_count(&r, LIMIT) == 11);
    double d[16];
    r = num_range(1, 2, '*', "1.5");
    assert_int_equal(walk_num(&r, d, 16), 2);
    assert_true(d[0] == 1 && d[1] == 1.5);
    /* 0.1 * 10^3 may land a hair off 100: it is still counted, and written as 100 */
    r = num_range(0.1, 100, '*', "10");
    assert_int_equal(walk_num(&r, d, 16), 4);
    assert_true(d[3] == 100);
}

/* The +1 stretch that count skips gives the same count as walking every value. */
static void count_skip_matches_walk(void **state)
{
    (void)state;
    static const struct { int64_t a, b; const char *f; } cases[] = {
        {1, 2000000, "1.000001"}, {5, 300000, "1.00001"}, {999999, 3000000, "1.000001"},
        {1, 1000000, "1.0000000000000002"}, {1, 100000, "1.5"}, {7, 7, "1.01"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        kv_range r = int_range(cases[k].a, cases[k].b, '*', cases[k].f);
        size_t n = walk_int(&r, NULL, 0);
        assert_true(kv_range_count(&r, LIMIT) == n);
        assert_true(kv_range_count(&r, n) == n);
        assert_true(kv_range_count(&r, n - 1) == n);
    }
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Checks a walk: strictly increasing (so no duplicates), inside [a, b], count == walked. */
static void check_int(const kv_range *r)
{
    kv_range_iter it;
    int64_t v, prev = 0;
    uint64_t n = 0;
    kv_range_begin(r, &it);
    while (kv_range_next(&it, &v, NULL)) {
        assert_true(v >= r->ia && v <= r->ib);
        assert_true(n == 0 ? v == r->ia : v > prev);
        if (r->op == '+' && n > 0)
            assert_true((uint64_t)v - (uint64_t)prev == r->istep);
        prev = v;
        n++;
    }
    if (r->op == '+') /* the next one would pass B */
        assert_true((uint64_t)r->ib - (uint64_t)prev < r->istep);
    assert_true(kv_range_count(r, LIMIT) == n);
    assert_true(kv_range_count(r, n - 1) == n);
}

static void check_num(const kv_range *r)
{
    kv_range_iter it;
    double v, prev = 0;
    uint64_t n = 0;
    kv_range_begin(r, &it);
    while (kv_range_next(&it, NULL, &v)) {
        assert_true(v >= r->da && v <= r->db);
        assert_true(n == 0 ? v == r->da : v > prev);
        prev = v;
        n++;
    }
    assert_true(kv_range_count(r, LIMIT) == n);
    if (r->op == '+') /* the documented formula, and the next value is past B */
        assert_true(n == (uint64_t)floor((r->db - r->da) / r->dstep + 1e-9) + 1);
}

static void random_ranges(void **state)
{
    (void)state;
    static const char *isteps[] = {"1", "2", "3", "7", "10", "1000", "123456789",
                                   "4611686018427387904", "1e15"};
    static const char *factors[] = {"2", "3", "10", "1.5", "1.01", "1.1", "2.5", "1.0001",
                                    "7.3", "100"};
    static const char *dsteps[] = {"0.1", "0.25", "1", "0.3", "1e-3", "7.5", "1e5", "0.7"};
    char text[32];
    for (int k = 0; k < 3000; k++) {
        /* integers: anywhere on the line, including both ends */
        int64_t a = (int64_t)next_rand();
        if (k % 5 == 0)
            a = INT64_MAX - (int64_t)(next_rand() % 100000);
        if (k % 7 == 0)
            a = INT64_MIN + (int64_t)(next_rand() % 100000);
        const char *s = isteps[next_rand() % 9];
        kv_range r;
        char err[128];
        uint64_t span = next_rand() % (k % 3 == 0 ? UINT64_MAX : 200000);
        int64_t b = span > (uint64_t)INT64_MAX - (uint64_t)a ? INT64_MAX
                                                              : (int64_t)((uint64_t)a + span);
        r = int_range(a, b, '+', s);
        if (kv_range_count(&r, 20000) <= 20000)
            check_int(&r);
        int64_t ga = 1 + (int64_t)(next_rand() % (k % 2 ? 1000 : 1000000000000000000));
        int64_t gb = ga + (int64_t)(next_rand() % (uint64_t)(INT64_MAX - ga));
        r = int_range(ga, gb, '*', factors[next_rand() % 10]);
        if (kv_range_count(&r, 20000) <= 20000)
            check_int(&r);
        /* numbers */
        double da = ((double)(next_rand() % 2000001) - 1000000) / 1000;
        double db = da + (double)(next_rand() % 1000001) / 100;
        r = num_range(da, db, '+', dsteps[next_rand() % 8]);
        if (kv_range_count(&r, 20000) <= 20000)
            check_num(&r);
        da = (double)(next_rand() % 1000000 + 1) / 1000 * pow(10, (double)(next_rand() % 9) - 4);
        db = da * (1 + (double)(next_rand() % 100000));
        snprintf(text, sizeof text, "%.6g", 1 + (double)(next_rand() % 100000 + 1) / 10000);
        assert_int_equal(kv_range_init_num(&r, da, db, '*', text, "x", err, sizeof err), 0);
        check_num(&r);
    }
}

static void expect_error(int rc, const char *err, const char *want)
{
    assert_int_equal(rc, -1);
    assert_string_equal(err, want);
}

static void errors(void **state)
{
    (void)state;
    kv_range r;
    char e[200];
    const char *it = "1..10+0.5";
    expect_error(kv_range_init_int(&r, 1, 10, '+', "0.5", it, e, sizeof e), e,
                 "bad step '0.5' in '1..10+0.5' (an integer key takes an integer step > 0)");
    expect_error(kv_range_init_int(&r, 1, 10, '+', "0", "1..10+0", e, sizeof e), e,
                 "bad step '0' in '1..10+0' (an integer key takes an integer step > 0)");
    expect_error(kv_range_init_int(&r, 1, 10, '+', "-2", "1..10+-2", e, sizeof e), e,
                 "bad step '-2' in '1..10+-2' (an integer key takes an integer step > 0)");
    expect_error(kv_range_init_int(&r, 1, 10, '+', "1.05e1", "x", e, sizeof e), e,
                 "bad step '1.05e1' in 'x' (an integer key takes an integer step > 0)");
    expect_error(kv_range_init_int(&r, 1, 10, '+', "18446744073709551616", "x", e, sizeof e),
                 e, "bad step '18446744073709551616' in 'x' (over 2^64 - 1)");
    expect_error(kv_range_init_int(&r, 10, 1, '+', "1", "10..1+1", e, sizeof e), e,
                 "empty range '10..1+1' (A is greater than B)");
    expect_error(kv_range_init_num(&r, 1, 0.5, '*', "2", "1..0.5*2", e, sizeof e), e,
                 "empty range '1..0.5*2' (A is greater than B)");
    expect_error(kv_range_init_int(&r, 1, 10, '*', "1", "1..10*1", e, sizeof e), e,
                 "bad factor '1' in '1..10*1' (*F takes a finite F > 1)");
    expect_error(kv_range_init_num(&r, 1, 10, '*', "0.5", "x", e, sizeof e), e,
                 "bad factor '0.5' in 'x' (*F takes a finite F > 1)");
    expect_error(kv_range_init_num(&r, 1, 10, '*', "1e999", "x", e, sizeof e), e,
                 "bad factor '1e999' in 'x' (*F takes a finite F > 1)");
    expect_error(kv_range_init_num(&r, 1, 10, '+', "1e999", "x", e, sizeof e), e,
                 "bad step '1e999' in 'x' (+S takes a finite S > 0)");
    expect_error(kv_range_init_num(&r, 1, 10, '+', "-0.5", "x", e, sizeof e), e,
                 "bad step '-0.5' in 'x' (+S takes a finite S > 0)");
    expect_error(kv_range_init_int(&r, 0, 10, '*', "2", "0..10*2", e, sizeof e), e,
                 "bad range '0..10*2' (a geometric range on an integer key starts at A >= 1)");
    expect_error(kv_range_init_int(&r, -4, 10, '*', "2", "x", e, sizeof e), e,
                 "bad range 'x' (a geometric range on an integer key starts at A >= 1)");
    expect_error(kv_range_init_num(&r, 0, 10, '*', "2", "0..10*2", e, sizeof e), e,
                 "bad range '0..10*2' (a geometric range starts at A > 0)");
    expect_error(kv_range_init_num(&r, 1, 10, '*', "1.00000000001", "x", e, sizeof e), e,
                 "bad factor '1.00000000001' in 'x' (too close to 1 to tell from rounding; "
                 "use F >= 1.0000000001)");
    expect_error(kv_range_init_num(&r, 1e16, 1e16 + 4, '+', "0.5", "x", e, sizeof e), e,
                 "bad step '0.5' in 'x' (too small for these endpoints: values would repeat "
                 "in double precision)");
    expect_error(kv_range_init_num(&r, 0, INFINITY, '+', "1", "x", e, sizeof e), e,
                 "bad range 'x' (the endpoints must be finite)");
    expect_error(kv_range_init_int(&r, 1, 10, '-', "1", "x", e, sizeof e), e,
                 "bad range 'x' (expected A..B+S or A..B*F)");
    /* strict step syntax: strtod would take all of these */
    static const char *bad[] = {"inf", "nan", "INF", "0x10", "0x1p3", " 1", "1 ", "", "5.",
                                ".5", "1e", "1e+", "+", "1..2", "2,5", "1_000", "--1", "1f"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(kv_range_init_num(&r, 1, 10, '+', bad[k], "x", e, sizeof e), -1);
        assert_non_null(strstr(e, "(expected a plain decimal number such as 2, 0.5 or 1e3)"));
        assert_int_equal(kv_range_init_int(&r, 1, 10, '*', bad[k], "x", e, sizeof e), -1);
    }
    assert_int_equal(kv_range_init_int(&r, 1, 10, '+', NULL, NULL, e, sizeof e), -1);
    /* a failed init leaves an empty range behind */
    assert_int_equal(kv_range_init_int(&r, 1, 10, '+', "0", "x", e, sizeof e), -1);
    assert_true(kv_range_count(&r, LIMIT) == 0);
    assert_int_equal(walk_int(&r, NULL, 0), 0);
    assert_int_equal(kv_range_init_num(&r, 0, 10, '*', "2", "x", e, sizeof e), -1);
    assert_true(kv_range_count(&r, LIMIT) == 0);
    assert_int_equal(walk_num(&r, NULL, 0), 0);
    /* accepted spellings of an integer step */
    static const char *good[] = {"+3", "3.0", "0.3e1", "300e-2", "3E0", "003"};
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        assert_int_equal(kv_range_init_int(&r, 1, 10, '+', good[k], "x", e, sizeof e), 0);
        assert_true(r.istep == 3);
    }
}

/* Echoed text: control bytes become '?', a cut message ends with "...". */
static void messages(void **state)
{
    (void)state;
    kv_range r;
    char e[33];
    expect_error(kv_range_init_int(&r, 1, 10, '+', "a\tb\x1b", "1..10+a\tb\x1b", e, sizeof e),
                 e, "bad step 'a?b?' in '1..10+a?b...");
    assert_int_equal(strlen(e), sizeof e - 1);
    char tiny[4];
    assert_int_equal(kv_range_init_int(&r, 2, 1, '+', "1", "x", tiny, sizeof tiny), -1);
    assert_string_equal(tiny, "...");
    /* a cut never leaves half a UTF-8 character: "\xc3\xa9" is one, so both bytes go */
    expect_error(kv_range_init_int(&r, 2, 1, '+', "1", "123456789012345\xc3\xa9xx", e, 33), e,
                 "empty range '123456789012345...");
    expect_error(kv_range_init_int(&r, 2, 1, '+', "1", "12345678901234\xc3\xa9xx", e, 33), e,
                 "empty range '12345678901234\xc3\xa9...");
    assert_int_equal(kv_range_init_int(&r, 2, 1, '+', "1", "x", NULL, 0), -1);
}

static void split(void **state)
{
    (void)state;
    char a[16], b[16], s[16], op, e[100];
    assert_int_equal(kv_range_split("1..10+2", a, 16, b, 16, &op, s, 16, e, 100), 0);
    assert_string_equal(a, "1");
    assert_string_equal(b, "10");
    assert_int_equal(op, '+');
    assert_string_equal(s, "2");
    assert_int_equal(kv_range_split("-5..-1+1", a, 16, b, 16, &op, s, 16, e, 100), 0);
    assert_string_equal(a, "-5");
    assert_string_equal(b, "-1");
    assert_string_equal(s, "1");
    assert_int_equal(kv_range_split("1e-3..1e+2*10", a, 16, b, 16, &op, s, 16, e, 100), 0);
    assert_string_equal(a, "1e-3");
    assert_string_equal(b, "1e+2");
    assert_int_equal(op, '*');
    assert_string_equal(s, "10");
    assert_int_equal(kv_range_split("1..10+1e+2", a, 16, b, 16, &op, s, 16, e, 100), 0);
    assert_string_equal(b, "10");
    assert_string_equal(s, "1e+2");
    assert_int_equal(kv_range_split("1k..32k*2", a, 16, b, 16, &op, s, 16, e, 100), 0);
    assert_string_equal(a, "1k");
    assert_string_equal(b, "32k");
    static const char *bad[] = {"1..10", "..5+1", "1..+5", "1..5+", "abc", "1..", "1..*2",
                                "5+1", "1..1e+5"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(kv_range_split(bad[k], a, 16, b, 16, &op, s, 16, e, 100), -1);
        assert_non_null(strstr(e, "(expected A..B+S or A..B*F)"));
    }
    expect_error(kv_range_split("1..10+2", a, 2, b, 2, &op, s, 16, e, 100), e,
                 "bad range '1..10+2' (a part of it is too long)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stops_at_b),
        cmocka_unit_test(near_int64_max),
        cmocka_unit_test(geometric_int_never_repeats),
        cmocka_unit_test(counts_are_exact),
        cmocka_unit_test(count_skip_matches_walk),
        cmocka_unit_test(random_ranges),
        cmocka_unit_test(errors),
        cmocka_unit_test(messages),
        cmocka_unit_test(split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
