/*
 * kvprint.c - the printf conversions kvcalc's text is made of, written here (kvprint.h says
 * why); any other call goes to the C library whole.
 */
#include "kvprint.h"

#include <limits.h>
#include <string.h>

enum { UNSUPPORTED = -2 };

typedef struct {
    char *buf;
    size_t cap; /* bytes buf holds, its terminating zero included; 0: write nothing */
    size_t n;   /* bytes the whole output takes, as snprintf counts them */
} sink;

static void put(sink *s, const char *p, size_t len)
{
    if (s->n + 1 < s->cap) {
        size_t room = s->cap - 1 - s->n;
        memcpy(s->buf + s->n, p, len < room ? len : room);
    }
    s->n += len;
}

static void pad(sink *s, size_t len)
{
    static const char spaces[] = "                                ";
    while (len > 0) {
        size_t k = len < sizeof spaces - 1 ? len : sizeof spaces - 1;
        put(s, spaces, k);
        len -= k;
    }
}

/* A field of len bytes at p in a width of w, on the left of it when left is set. */
static void field(sink *s, const char *p, size_t len, size_t w, int left)
{
    if (!left && w > len)
        pad(s, w - len);
    put(s, p, len);
    if (left && w > len)
        pad(s, w - len);
}

/* The output of fmt into s, or UNSUPPORTED (s then holds a part of it) for a conversion or
 * a flag this file does not write: the caller hands the call to the C library. */
static int format(sink *s, const char *fmt, va_list *ap)
{
    const char *p = fmt;
    for (;;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            put(s, p, strlen(p));
            break;
        }
        put(s, p, (size_t)(pct - p));
        p = pct + 1;
        if (*p == '%') { /* %% alone: with a flag or a width it is the C library's */
            put(s, "%", 1);
            p++;
            continue;
        }
        int left = 0;
        if (*p == '-') {
            left = 1;
            p++;
        }
        if (*p == '-' || *p == '0' || *p == '+' || *p == ' ' || *p == '#' || *p == '\'')
            return UNSUPPORTED;
        size_t width = 0;
        if (*p == '*') {
            int w = va_arg(*ap, int);
            if (w < 0) {
                if (w < -4096)
                    return UNSUPPORTED;
                left = 1;
                w = -w;
            }
            width = (size_t)w;
            p++;
        } else {
            while (*p >= '0' && *p <= '9') {
                width = width * 10 + (size_t)(*p++ - '0');
                if (width > 4096)
                    return UNSUPPORTED;
            }
        }
        if (width > 4096)
            return UNSUPPORTED;
        int has_prec = 0;
        size_t prec = 0;
        if (*p == '.') {
            p++;
            has_prec = 1;
            if (*p == '*') {
                int q = va_arg(*ap, int);
                if (q < 0)
                    has_prec = 0; /* as if it were not given */
                else
                    prec = (size_t)q;
                p++;
            } else {
                while (*p >= '0' && *p <= '9') {
                    prec = prec * 10 + (size_t)(*p++ - '0');
                    if (prec > 1000000)
                        return UNSUPPORTED;
                }
            }
        }
        int longs = 0, size = 0; /* l, ll; z */
        if (*p == 'l') {
            longs = 1;
            if (*++p == 'l') {
                longs = 2;
                p++;
            }
        } else if (*p == 'z') {
            size = 1;
            p++;
        }
        char conv = *p++;
        if (conv == 's') {
            if (longs || size)
                return UNSUPPORTED;
            const char *str = va_arg(*ap, const char *);
            if (!str) /* glibc's "(null)": its own */
                return UNSUPPORTED;
            size_t len = 0;
            if (has_prec) {
                const char *end = memchr(str, '\0', prec);
                len = end ? (size_t)(end - str) : prec;
            } else {
                len = strlen(str);
            }
            field(s, str, len, width, left);
        } else if (conv == 'c') {
            if (longs || size || has_prec)
                return UNSUPPORTED;
            char c = (char)(unsigned char)va_arg(*ap, int);
            field(s, &c, 1, width, left);
        } else if (conv == 'd' || conv == 'i' || conv == 'u') {
            if (has_prec || (size && conv != 'u'))
                return UNSUPPORTED;
            unsigned long long mag;
            int negative = 0;
            if (conv == 'u') {
                mag = size          ? (unsigned long long)va_arg(*ap, size_t)
                      : longs == 2 ? va_arg(*ap, unsigned long long)
                      : longs == 1 ? (unsigned long long)va_arg(*ap, unsigned long)
                                   : (unsigned long long)va_arg(*ap, unsigned int);
            } else {
                long long v = longs == 2   ? va_arg(*ap, long long)
                              : longs == 1 ? (long long)va_arg(*ap, long)
                                           : (long long)va_arg(*ap, int);
                negative = v < 0;
                mag = negative ? 0ULL - (unsigned long long)v : (unsigned long long)v;
            }
            char digits[24];
            char *d = digits + sizeof digits;
            do {
                *--d = (char)('0' + mag % 10);
                mag /= 10;
            } while (mag);
            if (negative)
                *--d = '-';
            field(s, d, (size_t)(digits + sizeof digits - d), width, left);
        } else {
            return UNSUPPORTED;
        }
    }
    return s->n > INT_MAX ? UNSUPPORTED : (int)s->n;
}

int kv_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
    va_list mine;
    va_copy(mine, ap);
    sink s = {buf, cap, 0};
    int n = format(&s, fmt, &mine);
    va_end(mine);
    if (n == UNSUPPORTED)
        return vsnprintf(buf, cap, fmt, ap);
    if (cap > 0)
        buf[s.n < cap ? s.n : cap - 1] = '\0';
    return n;
}

int kv_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kv_vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

int kv_fprintf(FILE *f, const char *fmt, ...)
{
    char line[1024];
    va_list ap, mine;
    va_start(ap, fmt);
    va_copy(mine, ap);
    sink s = {line, sizeof line, 0};
    int n = format(&s, fmt, &mine);
    va_end(mine);
    if (n == UNSUPPORTED || s.n >= sizeof line) { /* the C library's, or a longer line */
        n = vfprintf(f, fmt, ap);
    } else if (n > 0 && fwrite(line, 1, s.n, f) != s.n) {
        n = -1; /* as fprintf: a negative value on an output error */
    }
    va_end(ap);
    return n;
}
