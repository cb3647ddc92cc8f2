/*
 * range.c - exact --sweep ranges; the rules are in range.h.
 */
#include "range.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kvmath.h"

#define TWO63 9223372036854775808.0 /* 2^63: the first double past INT64_MAX */
#define NUM_TOL_ADD 1e-9            /* of a step */
#define NUM_TOL_MUL 1e-12           /* of B */
#define NUM_MIN_FACTOR (1 + 1e-10)
#define NUM_MAX_EXACT 281474976710656.0 /* 2^48 */

/* ---- messages ---------------------------------------------------------------------------- */

static void emit(char *err, size_t cap, size_t *n, int *cut, char c)
{
    if (*n + 1 < cap)
        err[(*n)++] = c;
    else
        *cut = 1;
}

/* Writes fmt into err; each "%s" takes a const char * of user text, echoed with control
 * bytes as '?'. A message that does not fit ends with "...". Returns -1 for the caller. */
static int fail(char *err, size_t cap, const char *fmt, ...)
{
    size_t n = 0;
    int cut = 0;
    va_list ap;
    if (!err || cap == 0)
        return -1;
    va_start(ap, fmt);
    for (const char *f = fmt; *f; f++) {
        if (f[0] == '%' && f[1] == 's') {
            const char *u = va_arg(ap, const char *);
            for (; u && *u; u++)
                emit(err, cap, &n, &cut,
                     (unsigned char)*u < 0x20 || *u == 0x7f ? '?' : *u);
            f++;
        } else {
            emit(err, cap, &n, &cut, *f);
        }
    }
    va_end(ap);
    if (cut && n >= 3) { /* "..." in place of the last whole characters (UTF-8 safe) */
        n -= 3;
        while (n > 0 && ((unsigned char)err[n] & 0xC0) == 0x80)
            n--;
        memcpy(err + n, "...", 3);
        n += 3;
    }
    err[n] = '\0';
    return -1;
}

/* ---- the step text ----------------------------------------------------------------------- */

typedef struct {
    int neg;
    const char *ip, *fp; /* integer and fraction digits */
    size_t ilen, flen;
    long exp;            /* saturated at +-100000: far past any double or int64 */
} decimal;

static size_t digits(const char *s)
{
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return n;
}

/* [+-]digits[.digits][(e|E)[+-]digits] and nothing else; strtod alone would also take hex,
 * inf, nan, leading spaces and "5." */
static int scan_decimal(const char *s, decimal *d)
{
    memset(d, 0, sizeof *d);
    if (*s == '+' || *s == '-')
        d->neg = *s++ == '-';
    d->ip = s;
    if ((d->ilen = digits(s)) == 0)
        return -1;
    s += d->ilen;
    if (*s == '.') {
        d->fp = ++s;
        if ((d->flen = digits(s)) == 0)
            return -1;
        s += d->flen;
    }
    if (*s == 'e' || *s == 'E') {
        int eneg = 0;
        s++;
        if (*s == '+' || *s == '-')
            eneg = *s++ == '-';
        if (digits(s) == 0)
            return -1;
        for (; *s >= '0' && *s <= '9'; s++)
            if (d->exp < 100000)
                d->exp = d->exp * 10 + (*s - '0');
        if (eneg)
            d->exp = -d->exp;
    }
    return *s ? -1 : 0;
}

/* The decimal as an exact integer in 1..UINT64_MAX; -1 if zero, negative or fractional, -2
 * if too large. Digit by digit, so "1.5e1" is 15 and "1.05e1" is not an integer. */
static int decimal_u64(const decimal *d, uint64_t *out)
{
    size_t n = d->ilen + d->flen, first = 0;
    long long exp10 = (long long)d->exp - (long long)d->flen;
    uint64_t v = 0;
#define DIGIT(k) ((k) < d->ilen ? d->ip[k] : d->fp[(k) - d->ilen])
    while (n > 0 && DIGIT(n - 1) == '0') { /* trailing zeros move into the exponent */
        n--;
        exp10++;
    }
    while (first < n && DIGIT(first) == '0')
        first++;
    if (first == n || d->neg || exp10 < 0)
        return -1;
    for (size_t k = first; k < n; k++) {
        unsigned dig = (unsigned)(DIGIT(k) - '0');
        if (v > (UINT64_MAX - dig) / 10)
            return -2;
        v = v * 10 + dig;
    }
#undef DIGIT
    for (; exp10 > 0; exp10--) {
        if (v > UINT64_MAX / 10)
            return -2;
        v *= 10;
    }
    *out = v;
    return 0;
}

static int parse_step(const char *step, const char *item, double *v, decimal *d, char *err,
                      size_t cap)
{
    *v = 0;
    if (!step || scan_decimal(step, d) != 0)
        return fail(err, cap, "bad step '%s' in '%s' (expected a plain decimal number such as "
                              "2, 0.5 or 1e3)", step ? step : "", item);
    *v = strtod(step, NULL);
    return 0;
}

/* ---- split and init ---------------------------------------------------------------------- */

int kv_range_split(const char *item, char *a, size_t acap, char *b, size_t bcap, char *op,
                   char *step, size_t scap, char *err, size_t errcap)
{
    const char *dots, *m = NULL;
    item = item ? item : "";
    dots = strstr(item, "..");
    if (dots && dots[2])
        for (const char *p = dots + 3; *p && !m; p++)
            if (*p == '*' || (*p == '+' && p[-1] != 'e' && p[-1] != 'E'))
                m = p;
    if (!m || dots == item || !m[1])
        return fail(err, errcap, "bad range '%s' (expected A..B+S or A..B*F)", item);
    size_t la = (size_t)(dots - item), lb = (size_t)(m - dots - 2), ls = strlen(m + 1);
    if (la >= acap || lb >= bcap || ls >= scap)
        return fail(err, errcap, "bad range '%s' (a part of it is too long)", item);
    memcpy(a, item, la);
    a[la] = '\0';
    memcpy(b, dots + 2, lb);
    b[lb] = '\0';
    memcpy(step, m + 1, ls + 1);
    *op = *m;
    return 0;
}

static int check_op(char op, const char *item, char *err, size_t cap)
{
    if (op != '+' && op != '*')
        return fail(err, cap, "bad range '%s' (expected A..B+S or A..B*F)", item);
    return 0;
}

int kv_range_init_int(kv_range *r, int64_t a, int64_t b, char op, const char *step,
                      const char *item, char *err, size_t cap)
{
    decimal d;
    double f;
    item = item ? item : "";
    memset(r, 0, sizeof *r); /* op 0: an empty range until every check passes */
    if (check_op(op, item, err, cap) != 0)
        return -1;
    if (a > b)
        return fail(err, cap, "empty range '%s' (A is greater than B)", item);
    if (parse_step(step, item, &f, &d, err, cap) != 0)
        return -1;
    kv_range x = {.type = KV_RANGE_INT, .op = op, .ia = a, .ib = b, .dstep = f};
    if (op == '+') {
        int rc = decimal_u64(&d, &x.istep);
        if (rc == -2)
            return fail(err, cap, "bad step '%s' in '%s' (over 2^64 - 1)", step, item);
        if (rc != 0)
            return fail(err, cap, "bad step '%s' in '%s' (an integer key takes an integer "
                                  "step > 0)", step, item);
    } else {
        if (!(f > 1) || !isfinite(f))
            return fail(err, cap, "bad factor '%s' in '%s' (*F takes a finite F > 1)", step,
                        item);
        if (a < 1)
            return fail(err, cap, "bad range '%s' (a geometric range on an integer key starts "
                                  "at A >= 1)", item);
        if (f < TWO63 && f == kvm_floor(f))
            x.ifactor = (int64_t)f;
    }
    *r = x;
    return 0;
}

static uint64_t num_add_q(const kv_range *r, double *q);

int kv_range_init_num(kv_range *r, double a, double b, char op, const char *step,
                      const char *item, char *err, size_t cap)
{
    decimal d;
    double f, q;
    item = item ? item : "";
    memset(r, 0, sizeof *r);
    if (check_op(op, item, err, cap) != 0)
        return -1;
    if (!isfinite(a) || !isfinite(b))
        return fail(err, cap, "bad range '%s' (the endpoints must be finite)", item);
    if (a > b)
        return fail(err, cap, "empty range '%s' (A is greater than B)", item);
    if (parse_step(step, item, &f, &d, err, cap) != 0)
        return -1;
    kv_range x = {.type = KV_RANGE_NUM, .op = op, .da = a, .db = b, .dstep = f};
    if (op == '+') {
        if (!(f > 0) || !isfinite(f))
            return fail(err, cap, "bad step '%s' in '%s' (+S takes a finite S > 0)", step, item);
        num_add_q(&x, &q);
        if (q <= NUM_MAX_EXACT && f < kvm_fmax(fabs(a), fabs(b)) * 0x1p-50)
            return fail(err, cap, "bad step '%s' in '%s' (too small for these endpoints: "
                                  "values would repeat in double precision)", step, item);
    } else {
        if (!(f > 1) || !isfinite(f))
            return fail(err, cap, "bad factor '%s' in '%s' (*F takes a finite F > 1)", step,
                        item);
        if (f < NUM_MIN_FACTOR)
            return fail(err, cap, "bad factor '%s' in '%s' (too close to 1 to tell from "
                                  "rounding; use F >= 1.0000000001)", step, item);
        if (!(a > 0))
            return fail(err, cap, "bad range '%s' (a geometric range starts at A > 0)", item);
    }
    *r = x;
    return 0;
}

/* ---- values and counts ------------------------------------------------------------------- */

/* a + d for a result known to be an int64_t, without signed overflow on the way. */
static int64_t add_u64(int64_t a, uint64_t d)
{
    uint64_t u = (uint64_t)a + d;
    return u <= INT64_MAX ? (int64_t)u : (int64_t)(u - (uint64_t)INT64_MIN) + INT64_MIN;
}

/* INT '*': the value after prev, or 0 when it would pass B (or INT64_MAX, which B bounds). */
static int int_mul_next(const kv_range *r, int64_t prev, int64_t *next)
{
    int64_t n;
    if (r->ifactor) {
        if (prev > r->ib / r->ifactor)
            return 0;
        *next = prev * r->ifactor;
        return 1;
    }
    double x = kvm_round((double)prev * r->dstep);
    if (!(x < TWO63) || prev == INT64_MAX)
        return 0;
    n = (int64_t)x > prev ? (int64_t)x : prev + 1;
    if (n > r->ib)
        return 0;
    *next = n;
    return 1;
}

static uint64_t int_mul_count(const kv_range *r, uint64_t limit)
{
    double f = r->dstep, t = 0;
    if (!r->ifactor) {
        /* Lower bound: next <= prev*G + 1 with G = F(1 + 2^-51) covering the double product,
         * so (v + c) grows at most G-fold, c = 1/(G-1): at least log_G((B+c)/(A+c)) steps. */
        double g = f * (1 + 0x1p-51), c = 1 / (g - 1);
        double k = kvm_log1p(((double)r->ib - (double)r->ia) / ((double)r->ia + c)) / kvm_log1p(g - 1);
        if (k * (1 - 1e-9) - 2 > (double)limit)
            return limit + 1;
        /* Up to t, prev*(F-1) <= 1, so the product rounds to at most prev + 1 and the values
         * are consecutive integers: count that stretch in one step. */
        t = kvm_fmin(1 / (f - 1) * (1 - 1e-9) - 1, 9007199254740991.0); /* 2^53 - 1 */
    }
    uint64_t n = 0;
    int64_t v = r->ia;
    for (;;) {
        if (++n > limit)
            return limit + 1;
        if ((double)v <= t && v < r->ib) {
            int64_t end = (int64_t)t < r->ib ? (int64_t)t : r->ib;
            if (end > v) {
                n += (uint64_t)(end - v);
                v = end;
                if (n > limit)
                    return limit + 1;
            }
        }
        if (!int_mul_next(r, v, &v))
            return n;
    }
}

/* NUM '+': (B-A)/S without overflowing to inf when B-A does; returns the last index. */
static uint64_t num_add_q(const kv_range *r, double *q)
{
    double span = r->db - r->da;
    *q = isfinite(span) ? span / r->dstep : r->db / r->dstep - r->da / r->dstep;
    *q = kvm_floor(*q + NUM_TOL_ADD);
    return *q >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)*q;
}

static int num_mul_in(const kv_range *r, double v)
{
    return v <= r->db || (isfinite(v) && v - r->db <= r->db * NUM_TOL_MUL);
}

/* f^i, correctly rounded (past LLONG_MAX, f > 1 has overflowed long before) */
static double pow_u(double f, uint64_t i)
{
    return kvm_powi(f, i > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)i);
}

static double num_value(const kv_range *r, uint64_t i)
{
    double v = r->op == '+' ? r->da + (double)i * r->dstep : r->da * pow_u(r->dstep, i);
    return v > r->db ? r->db : v;
}

/* NUM '*': the last index, or UINT64_MAX when it is past limit. */
static uint64_t num_mul_last(const kv_range *r, uint64_t limit)
{
    double k = (kvm_log(r->db) - kvm_log(r->da)) / kvm_log1p(r->dstep - 1);
    if (k > (double)limit * (1 + 1e-9) + 2)
        return UINT64_MAX;
    uint64_t g = k > 0 ? (uint64_t)k : 0;
    while (num_mul_in(r, r->da * pow_u(r->dstep, g + 1)))
        g++;
    while (g > 0 && !num_mul_in(r, r->da * pow_u(r->dstep, g)))
        g--;
    return g;
}

/* The last index of an indexed range (all but INT '*'); UINT64_MAX may mean "more". */
static uint64_t last_index(const kv_range *r, uint64_t limit)
{
    double q;
    if (r->type == KV_RANGE_INT)
        return ((uint64_t)r->ib - (uint64_t)r->ia) / r->istep;
    return r->op == '+' ? num_add_q(r, &q) : num_mul_last(r, limit);
}

uint64_t kv_range_count(const kv_range *r, uint64_t limit)
{
    if (limit > UINT64_MAX - 1)
        limit = UINT64_MAX - 1;
    if (r->op != '+' && r->op != '*') /* left empty by a failed init */
        return 0;
    if (r->type == KV_RANGE_INT && r->op == '*')
        return int_mul_count(r, limit);
    uint64_t last = last_index(r, limit);
    return last >= limit ? limit + 1 : last + 1;
}

void kv_range_begin(const kv_range *r, kv_range_iter *it)
{
    memset(it, 0, sizeof *it);
    it->r = *r;
    it->next = r->ia;
    if (r->op != '+' && r->op != '*')
        it->done = 1;
    else if (!(r->type == KV_RANGE_INT && r->op == '*'))
        it->last = last_index(r, UINT64_MAX - 1);
}

int kv_range_next(kv_range_iter *it, int64_t *iv, double *dv)
{
    const kv_range *r = &it->r;
    if (it->done)
        return 0;
    if (r->type == KV_RANGE_INT && r->op == '*') {
        if (iv)
            *iv = it->next;
        it->done = !int_mul_next(r, it->next, &it->next);
        return 1;
    }
    if (r->type == KV_RANGE_INT) {
        if (iv)
            *iv = add_u64(r->ia, it->i * r->istep);
    } else if (dv) {
        *dv = num_value(r, it->i);
    }
    it->done = it->i == it->last;
    it->i++;
    return 1;
}
