/*
 * format.c - Python-style number formatting (see format.h).
 *
 * printf already rounds the exact binary value half-to-even on glibc and on the BSD/macOS
 * libc, which is what Python does, so the digits come from snprintf; what is added here is
 * what printf lacks: thousands separators, and Python's spelling of non-finite values
 * (printf may print "-nan"; Python always prints "nan").
 */
#include "format.h"

#include "report.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvmath.h"

static char *nonfinite(char *buf, size_t cap, double v)
{
    snprintf(buf, cap, "%s", isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"));
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

char *fmt_fixed(char *buf, size_t cap, double v, int prec, int group)
{
    if (!isfinite(v))
        return nonfinite(buf, cap, v);
    snprintf(buf, cap, "%.*f", prec, v);
    return group ? group_thousands(buf, cap) : buf;
}

char *fmt_figure(char *buf, size_t cap, double v, int typed)
{
    return typed ? fmt_g(buf, cap, v) : fmt_fixed(buf, cap, v, 2, 0);
}

char *fmt_g(char *buf, size_t cap, double v)
{
    if (!isfinite(v))
        return nonfinite(buf, cap, v);
    snprintf(buf, cap, "%g", v);
    return buf;
}

/* Decimal digits of v without printf: sweeps print millions of integers. */
static char *int_digits(char *buf, size_t cap, int64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                                "31323334353637383940414243444546474849505152535455565758596061"
                                "62636465666768697071727374757677787980818283848586878889909192"
                                "93949596979899";
    char tmp[24];
    size_t n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    while (u >= 10) { /* two digits a division */
        unsigned d = (unsigned)(u % 100) * 2;
        u /= 100;
        tmp[n++] = pairs[d + 1];
        tmp[n++] = pairs[d];
    }
    if (u || n == 0) /* the last digit alone (never a leading zero: the loop leaves u < 10) */
        tmp[n++] = (char)('0' + u);
    size_t len = n + (v < 0);
    if (len + 1 > cap) {
        snprintf(buf, cap, "%lld", (long long)v);
        return buf;
    }
    size_t i = 0;
    if (v < 0)
        buf[i++] = '-';
    while (n)
        buf[i++] = tmp[--n];
    buf[i] = '\0';
    return buf;
}

char *fmt_int(char *buf, size_t cap, int64_t v, int group)
{
    int_digits(buf, cap, v);
    return group ? group_thousands(buf, cap) : buf;
}

char *fmt_json_number(char *buf, size_t cap, double v)
{
    if (!isfinite(v)) /* JSON has no inf or nan; callers never pass them */
        return nonfinite(buf, cap, v);
    if (v == kvm_floor(v) && fabs(v) < 9.2e18 && !(v == 0 && signbit(v)))
        return int_digits(buf, cap, (int64_t)v); /* exact: every such double is an int64 */
    if (v == kvm_floor(v) && fabs(v) < 1e21) {
        snprintf(buf, cap, "%.0f", v);
        return buf;
    }
    /* the fewest significant digits that read back as v (Python's repr). When the 15-digit
     * rounding reads back it is the shortest (%g drops its trailing zeros, and two decimals
     * of at most 15 digits that differ do so by more than a double's ulp, so no shorter one
     * reads back too); else 16 digits, else 17, which always reads back. A subnormal's ulp
     * is coarser: there the search starts at one digit. */
    for (int prec = fabs(v) < DBL_MIN ? 1 : 15; prec < 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, cap, "%.17g", v);
    return buf;
}

const char *text_safe_cut(char *buf, size_t cap, const char *text, size_t limit)
{
    size_t n = 0, i = 0;
    if (cap < 4) {
        if (cap)
            buf[0] = '\0';
        return buf;
    }
    for (; text[i] && (limit == 0 || i < limit) && n + 4 < cap; i++) {
        unsigned char c = (unsigned char)text[i];
        unsigned char next = (unsigned char)text[i + 1];
        if (c == 0xc2 && next >= 0x80 && next <= 0x9f) { /* a C1 control, UTF-8 encoded */
            buf[n++] = '?';
            i++;
            continue;
        }
        buf[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
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
    snprintf(buf, cap, "%s", text);
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
        return put(buf, cap, v.e ? "true" : "false");
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
