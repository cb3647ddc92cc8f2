/*
 * values.c - a flag's value, read strictly, in ISO C (no getopt): an integer is [+-]digits
 * and must fit in 64 bits, a number is a decimal with an optional exponent and must be
 * finite - because a calculator that silently reads "4k" as 4 or "1e999" as infinity lies.
 * Every error is one line that names the flag as the user typed it, what it accepts and
 * what it got.
 */
#include "kvprint.h"
#include "options.h"

#include "format.h"
#include "suggest.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ------------------------------------------------------------------------- */

int kv_fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n = kv_snprintf(err, cap, "kvcalc: ");
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < cap)
        kv_vsnprintf(err + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    return KV_USAGE_ERROR;
}

const char *kv_safe(char *buf, size_t cap, const char *text, size_t limit)
{
    return text_safe_cut(buf, cap, text, limit);
}

#define SHOWN KV_SHOWN

/* Joins names into buf: name(ctx, i) for i < count, skipping NULLs, `sep` between. One
 * helper for every "expected one of: ..." list (dtypes, keys, GPUs, choices). */
typedef const char *(*name_at)(const void *ctx, size_t i);

static void join_names(char *buf, size_t cap, const char *sep, size_t count, name_at name,
                       const void *ctx)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count && n < cap; i++) {
        const char *s = name(ctx, i);
        if (!s)
            continue;
        int w = kv_snprintf(buf + n, cap - n, "%s%s", n ? sep : "", s);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

static const char *choice_name(const void *ctx, size_t i)
{
    return ((const kv_choice *)ctx)[i].name;
}

static size_t choice_count(const kv_choice *c)
{
    size_t n = 0;
    while (c[n].name)
        n++;
    return n;
}

void kv_flag_accepts(const kv_flag *f, char *buf, size_t cap)
{
    char names[1024], upper[64] = "";
    if (f->max > 0)
        snprintf(upper, sizeof upper, " and <= %.15g", f->max);
    switch (f->arg) {
    case ARG_INT:
        snprintf(buf, cap, "an integer >= %.0f%s%s", f->min, upper,
                 f->tokens ? " (or 32k = 32,000, 32K = 32,768, 1m, 1M)" : "");
        break;
    case ARG_NUM:
        snprintf(buf, cap, "a finite number %s %g%s", f->min_exclusive ? ">" : ">=", f->min,
                 upper);
        break;
    case ARG_DTYPE: {
        size_t n = (size_t)kv_snprintf(names, sizeof names, "one of:");
        for (size_t i = 0; i < KV_DTYPE_COUNT && n < sizeof names; i++)
            n += (size_t)kv_snprintf(names + n, sizeof names - n, " %s", kv_dtype_get((kv_dtype)i)->name);
        if (n < sizeof names)
            n += (size_t)kv_snprintf(names + n, sizeof names - n, " auto");
        for (size_t i = 0; kv_dtype_spelling(i) && n < sizeof names; i++)
            n += (size_t)kv_snprintf(names + n, sizeof names - n, " %s", kv_dtype_spelling(i));
        kv_snprintf(buf, cap, "%s", names);
        break;
    }
    case ARG_CHOICE:
    case ARG_ENGINE:
        join_names(names, sizeof names, " ", choice_count(f->choices), choice_name, f->choices);
        kv_snprintf(buf, cap, "one of: %s", names);
        break;
    case ARG_NONE:
        kv_snprintf(buf, cap, "no value");
        break;
    case ARG_VERSION:
        kv_snprintf(buf, cap, "%s", f->param && f->param->accepts ? f->param->accepts : "a version");
        break;
    case ARG_TEXT:
        kv_snprintf(buf, cap, "%s", f->meta);
        break;
    }
}

/* ---- value syntax --------------------------------------------------------------------- */

/* [+-]digits, fitting in int64. Returns 0, -1 (syntax) or -2 (does not fit). */
static int parse_int(const char *t, int64_t *out)
{
    int neg = 0;
    if (*t == '+' || *t == '-')
        neg = (*t++ == '-');
    if (!isdigit((unsigned char)*t))
        return -1;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    int overflow = 0;
    for (; isdigit((unsigned char)*t); t++) {
        unsigned d = (unsigned)(*t - '0');
        if (v > (limit - d) / 10)
            overflow = 1;
        else
            v = v * 10 + d;
    }
    if (*t)
        return -1;
    if (overflow)
        return -2;
    if (neg)
        *out = (v == (uint64_t)INT64_MAX + 1u) ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 0;
}

/* vLLM's human-readable token counts: digits[.digits] then k, m, g, t (10^3, 10^6, 10^9,
 * 10^12: "25.6k" = 25,600) or digits then K, M, G, T (2^10 ... 2^40: "1K" = 1,024; no
 * decimals, as in vLLM). The result must be a whole number: "1.0005k" is refused, not
 * rounded. Returns 0, -1 (not this form), -2 (does not fit), -3 (not whole), -4 (a decimal
 * with a binary suffix). */
static int parse_tokens(const char *t, int64_t *out)
{
    static const char dec[] = "kmgt", bin[] = "KMGT";
    size_t n = strlen(t);
    if (n < 2 || !isdigit((unsigned char)t[0]))
        return -1;
    const char *pd = strchr(dec, t[n - 1]), *pb = strchr(bin, t[n - 1]);
    if (!t[n - 1] || (!pd && !pb))
        return -1;
    int binary = pb != NULL;
    uint64_t mult = 1, whole = 0, frac = 0, frac_den = 1;
    for (int p = 0; p <= (binary ? pb - bin : pd - dec); p++)
        mult *= binary ? 1024 : 1000;
    const char *p = t;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return -2;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        if (binary)
            return -4;
        const char *digits = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        size_t len = (size_t)(p - digits);
        while (len > 0 && digits[len - 1] == '0') /* 25.600k is 25.6k */
            len--;
        for (size_t i = 0; i < len; i++) {
            if (frac_den == mult) /* more decimals than the suffix scales: not whole */
                return -3;
            frac = frac * 10 + (uint64_t)(digits[i] - '0');
            frac_den *= 10;
        }
    }
    if (p != t + n - 1)
        return -1;
    if (whole > (uint64_t)INT64_MAX / mult)
        return -2;
    /* frac_den is a power of ten dividing mult: frac x (mult / frac_den) is exact and < mult */
    uint64_t v = whole * mult + frac * (mult / frac_den);
    if (v > (uint64_t)INT64_MAX)
        return -2;
    *out = (int64_t)v;
    return 0;
}

int kv_parse_number(const char *t, double *out)
{
    const char *p = t;
    size_t digits = 0;
    if (*p == '+' || *p == '-')
        p++;
    for (; isdigit((unsigned char)*p); p++)
        digits++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            digits++;
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return -1;
    double v = strtod(t, NULL); /* reads the whole text, however long */
    if (!isfinite(v))
        return -2; /* underflow to 0 or a subnormal is what Python gives too: accepted */
    *out = v == 0 ? 0.0 : v; /* -0 is 0 */
    return 0;
}

/* The member of *v the flag's parameter reads (kv_value): a plain value, or an optional
 * one that is now set. */
static void store_int(const kv_flag *f, kv_value *v, int64_t x);
static void store_num(const kv_flag *f, kv_value *v, double x);

void kv_flag_number(const kv_flag *f, kv_value *v, int64_t i, double d)
{
    memset(v, 0, sizeof *v);
    if (f->arg == ARG_INT)
        store_int(f, v, i);
    else
        store_num(f, v, d);
}

static void store_int(const kv_flag *f, kv_value *v, int64_t x)
{
    if (f->param && (f->param->type == KV_T_OPT_INT || f->param->type == KV_T_OPT_CHOICE))
        v->oi = (kv_opt_int){x, 1};
    else
        v->i = x;
}

static void store_num(const kv_flag *f, kv_value *v, double x)
{
    if (f->param && f->param->type == KV_T_OPT_NUM)
        v->on = (kv_opt_num){x, 1};
    else
        v->d = x;
}

static void store_choice(const kv_flag *f, kv_value *v, int x)
{
    memset(v, 0, sizeof *v);
    if (f->arg == ARG_ENGINE)
        v->engine = (kv_engine)x;
    else if (f->param && f->param->type == KV_T_OPT_CHOICE)
        v->oi = (kv_opt_int){x, 1};
    else
        v->e = x;
}

int kv_flag_value(const kv_flag *f, const char *typed, const char *text, kv_value *v, char *err,
                  size_t cap)
{
    char want[1200], shown[SHOWN + 8];
    memset(v, 0, sizeof *v);
    if (f->arg == ARG_NONE || f->arg == ARG_TEXT) { /* no value, or a text kept as typed */
        /* a switch given "0" or "1" (its "no-" spelling, a log's stated value) writes it */
        v->e = f->arg == ARG_NONE && text && (strcmp(text, "0") == 0 || strcmp(text, "1") == 0)
                   ? text[0] - '0'
                   : f->switch_value;
        return 0;
    }
    kv_flag_accepts(f, want, sizeof want);
    kv_safe(shown, sizeof shown, text, SHOWN);
    switch (f->arg) {
    case ARG_NONE:
    case ARG_TEXT:
        return 0;
    case ARG_DTYPE:
        if (strcmp(text, "auto") == 0)
            return 1;
        if (kv_dtype_from_name(text, &v->t) != 0) {
            char hint[160];
            return kv_fail(err, cap, "%s: unknown dtype '%s'%s (expected %s)", typed, shown,
                           kv_hint_dtype(text, hint, sizeof hint), want);
        }
        return 0;
    case ARG_CHOICE:
    case ARG_ENGINE:
        for (const kv_choice *c = f->choices; c->name; c++) {
            if (strcmp(c->name, text) == 0) {
                store_choice(f, v, c->value);
                return 0;
            }
        }
        {
            kv_suggestion sg;
            char hint[160];
            kv_suggest_init(&sg, text);
            for (const kv_choice *c = f->choices; c->name; c++)
                kv_suggest_try(&sg, c->name, strlen(c->name));
            return kv_fail(err, cap, "%s: unknown value '%s'%s (expected %s)", typed, shown,
                           kv_suggest_hint(&sg, "", hint, sizeof hint), want);
        }
    case ARG_VERSION:
        if (!f->param || !f->param->parse || f->param->parse(text, &v->e) != 0)
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want, shown);
        return 0;
    case ARG_INT: {
        int64_t x = 0;
        int rc = parse_int(text, &x);
        if (rc == -1 && f->tokens) {
            rc = parse_tokens(text, &x);
            if (rc == -3)
                return kv_fail(err, cap, "%s: '%s' is not a whole number of tokens", typed, shown);
            if (rc == -4)
                return kv_fail(err, cap, "%s: '%s': decimals are not allowed with the binary "
                                         "suffixes K, M, G, T (did you mean '%.*s%c'?)",
                               typed, shown, (int)(strlen(text) - 1), text,
                               tolower((unsigned char)text[strlen(text) - 1]));
        }
        if (rc == -2)
            return kv_fail(err, cap, "%s: expected %s, got '%s' (too large: at most %lld)",
                           typed, want, shown, (long long)INT64_MAX);
        if (rc != 0 || (double)x < f->min || (f->max > 0 && (double)x > f->max))
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want, shown);
        store_int(f, v, x);
        return 0;
    }
    case ARG_NUM: {
        double x = 0;
        int rc = kv_parse_number(text, &x);
        if (rc == -2)
            return kv_fail(err, cap, "%s: expected %s, got '%s' (too large for a double)",
                           typed, want, shown);
        if (rc != 0 || (f->min_exclusive ? !(x > f->min) : !(x >= f->min)) ||
            (f->max > 0 && x > f->max))
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want, shown);
        store_num(f, v, x);
        return 0;
    }
    }
    return 0;
}

