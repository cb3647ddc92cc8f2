/*
 * json_scan.h - the string and whitespace scans of the JSON tokenizer (json.c), shared with
 * the one-pass readers of safetensors headers (safetensors.c) and indexes (folder.c), so
 * that all of them take exactly the same bytes as a string's plain run and as whitespace.
 * Private to src/model; inline, as they run for every string.
 */
#ifndef KVCALC_JSON_SCAN_H
#define KVCALC_JSON_SCAN_H

#include <stdint.h>
#include <string.h>

/* 1 for the bytes a string holds as they are: printable ASCII (DEL included) but '"' and
 * '\\'. Everything else ends a plain run: a control character (an error), an escape, the
 * closing quote, or UTF-8 (0x80 and above, which json.c checks sequence by sequence). */
static const unsigned char kv_json_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20: '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x30 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50: '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x70 */
    /* 0x80 to 0xFF: 0 */
};

/* Whether one of the 8 bytes of w may not be plain: below 0x20, '"', '\\', or 0x80 and
 * above ("Bit Twiddling Hacks": hasless(w, 0x20), haszero(w ^ '"'), haszero(w ^ '\\'),
 * each exact as a yes or no; the byte itself is then found one at a time). The order of
 * the bytes in w does not matter, so memcpy's is good on any machine. */
static inline int kv_json_word_stops(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    uint64_t t = ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b);
    return ((t | w) & highs) != 0;
}

/* The first byte from c on (before e) that is not plain, or e: eight bytes at a time, then
 * one at a time. */
static inline const unsigned char *kv_json_plain_end(const unsigned char *c,
                                                     const unsigned char *e)
{
    while (e - c >= 8) {
        uint64_t w;
        memcpy(&w, c, 8);
        if (kv_json_word_stops(w))
            break;
        c += 8;
    }
    while (c < e && kv_json_plain[*c])
        c++;
    return c;
}

/* JSON's whitespace: space, tab, newline, carriage return. */
static const unsigned char kv_json_ws[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

/* The first byte from c on (before e) that is not whitespace, or e. */
static inline const unsigned char *kv_json_ws_end(const unsigned char *c, const unsigned char *e)
{
    while (c < e && kv_json_ws[*c])
        c++;
    return c;
}

/* ---- for the one-pass readers of safetensors headers and indexes (safetensors.c, folder.c):
 * each reads a strict subset of JSON, and gives up (NULL) on anything outside it ---- */

/* A string at c of plain bytes only (so that its bytes as written are its decoded bytes):
 * its first byte in *s, its closing quote returned. NULL if c is not a quote, or the string
 * ends otherwise (an escape, UTF-8, a control character, the end of the text). */
static inline const unsigned char *kv_json_plain_string(const unsigned char *c,
                                                        const unsigned char *e,
                                                        const unsigned char **s)
{
    if (c >= e || *c != '"')
        return NULL;
    *s = c + 1;
    c = kv_json_plain_end(c + 1, e);
    return c < e && *c == '"' ? c : NULL;
}

/* Whitespace, then the byte `want`: the byte after it, or NULL. */
static inline const unsigned char *kv_json_expect(const unsigned char *c, const unsigned char *e,
                                                  int want)
{
    c = kv_json_ws_end(c, e);
    return c < e && *c == want ? c + 1 : NULL;
}

/* A number at c of digits only, below 2^64, not a 0 before other digits (JSON's grammar):
 * the byte after it, or NULL. A caller then wants whitespace, ',' or a closing bracket, so
 * that a fraction or an exponent makes it give up too. */
static inline const unsigned char *kv_json_plain_uint(const unsigned char *c,
                                                      const unsigned char *e, uint64_t *out)
{
    const unsigned char *s = c, *safe = e - c > 19 ? c + 19 : e;
    uint64_t v = 0;
    while (c < safe && (unsigned)(*c - '0') <= 9) /* 19 digits cannot reach 2^64 */
        v = v * 10 + (unsigned)(*c++ - '0');
    while (c < e && (unsigned)(*c - '0') <= 9) { /* a 20th digit, and on */
        unsigned d = (unsigned)(*c++ - '0');
        if (v > (UINT64_MAX - d) / 10)
            return NULL; /* 2^64 and above */
        v = v * 10 + d;
    }
    if (c == s || (*s == '0' && c - s > 1))
        return NULL;
    *out = v;
    return c;
}

/* After a member or an element: whitespace, then ',' (1: *c past it and the whitespace
 * after, another member follows), `close` (0: *c at it) or anything else (-1). */
static inline int kv_json_after_member(const unsigned char **c, const unsigned char *e,
                                       unsigned char close)
{
    const unsigned char *p = kv_json_ws_end(*c, e);
    *c = p;
    if (p < e && *p == ',') {
        *c = kv_json_ws_end(p + 1, e);
        return 1;
    }
    return p < e && *p == close ? 0 : -1;
}

/* The object at c (a '{') of plain strings, and plain integers too when `ints` (an index's
 * metadata: total_size), flat: the byte after its '}', or NULL; *toks counts its tokens as
 * the tokenizer would. */
static inline const unsigned char *kv_json_flat_object(const unsigned char *c,
                                                       const unsigned char *e, size_t *toks,
                                                       int ints)
{
    if (c >= e || *c != '{')
        return NULL;
    ++*toks;
    c = kv_json_ws_end(c + 1, e);
    if (c < e && *c == '}')
        return c + 1;
    for (;;) {
        const unsigned char *s, *q = kv_json_plain_string(c, e, &s);
        uint64_t v;
        if (!q || !(c = kv_json_expect(q + 1, e, ':')))
            return NULL;
        c = kv_json_ws_end(c, e);
        if (c < e && *c == '"')
            c = (q = kv_json_plain_string(c, e, &s)) ? q + 1 : NULL;
        else
            c = ints ? kv_json_plain_uint(c, e, &v) : NULL;
        if (!c)
            return NULL;
        *toks += 2;
        int k = kv_json_after_member(&c, e, '}');
        if (k > 0)
            continue;
        return k == 0 ? c + 1 : NULL;
    }
}

#endif
