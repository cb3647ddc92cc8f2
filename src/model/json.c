/*
 * json.c - a strict, allocation-free JSON tokenizer (see kvcalc_json.h).
 *
 * Recursive descent with an explicit depth bound: a 100,000-deep "[[[[..." fails with a
 * located error at max_depth instead of exhausting the C stack. Every byte is looked at
 * once; the parser never reads past len, so the input need not be NUL-terminated.
 */
#include "kvcalc_json.h"
#include "json_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The cursor is a pointer (cur, end), not an index: the tokens' size_t fields cannot alias
 * it, so the compiler keeps it in a register while tokens are written. */
typedef struct {
    const char *s; /* the text */
    const unsigned char *cur, *end;
    kv_json_tok *toks;
    size_t cap, n, max_depth;
    kv_json_tok **grow; /* kv_json_parse_grow(): the array to realloc, up to `most` tokens */
    size_t most;
    const unsigned char *err_at; /* the failure: where and what (located as a line and a
                                    column only once the parse has failed, never on the way) */
    const char *err_msg;
    int oom; /* the token array could not grow: no position */
} parser;

#define POS(p, at) ((size_t)((const char *)(at) - (p)->s))

void kv_json_locate(const char *text, size_t len, size_t offset, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    for (size_t i = 0; i < offset && i < len; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            c++; /* count characters, not UTF-8 continuation bytes */
        }
    }
    *line = l;
    *col = c;
}

static int fail_at(parser *p, const unsigned char *at, const char *msg)
{
    p->err_at = at;
    p->err_msg = msg;
    return -1;
}

static int fail(parser *p, const char *msg)
{
    return fail_at(p, p->cur, msg);
}

static void skip_ws(parser *p)
{
    p->cur = kv_json_ws_end(p->cur, p->end);
}

static int peek(const parser *p)
{
    return p->cur < p->end ? *p->cur : -1;
}

/* The array is full: grow it (kv_json_parse_grow: doubling, up to most), or fail. */
static int more_toks(parser *p)
{
    if (!p->grow || p->cap >= p->most)
        return fail(p, "too many values");
    size_t cap = p->cap * 2 < p->most ? (p->cap ? p->cap * 2 : 1) : p->most;
    kv_json_tok *t = realloc(*p->grow, cap * sizeof *t);
    if (!t) {
        p->oom = 1;
        return fail(p, "out of memory");
    }
    *p->grow = p->toks = t;
    p->cap = cap;
    return 0;
}

static inline long new_tok(parser *p, kv_json_type type)
{
    size_t n = p->n;
    if (n >= p->cap && more_toks(p) < 0)
        return -1;
    kv_json_tok *t = &p->toks[n];
    size_t at = POS(p, p->cur);
    t->type = type;
    t->start = at;
    t->end = at;
    t->size = 0;
    t->next = 0;
    p->n = n + 1;
    return (long)n;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads 4 hex digits at the cursor; returns the code unit or -1 (the cursor unmoved). */
static long hex4(parser *p)
{
    long v = 0;
    if (p->end - p->cur < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p->cur[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    p->cur += 4;
    return v;
}

/* One UTF-8 sequence at the cursor (first byte >= 0x80): checks shape, overlongs,
 * surrogates and the U+10FFFF limit. */
static int utf8_seq(parser *p)
{
    const unsigned char *u = p->cur;
    size_t left = (size_t)(p->end - p->cur), n;
    unsigned long cp, min;
    if (u[0] >= 0xC2 && u[0] <= 0xDF) {
        n = 2, cp = u[0] & 0x1Fu, min = 0x80;
    } else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
        n = 3, cp = u[0] & 0x0Fu, min = 0x800;
    } else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
        n = 4, cp = u[0] & 0x07u, min = 0x10000;
    } else {
        return fail(p, "invalid UTF-8");
    }
    if (left < n)
        return fail(p, "invalid UTF-8");
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return fail(p, "invalid UTF-8");
        cp = (cp << 6) | (u[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return fail(p, "invalid UTF-8");
    p->cur += n;
    return 0;
}

/* One escape, the cursor on its backslash. */
static int escape(parser *p)
{
    p->cur++;
    int e = peek(p);
    if (e == 'u') {
        p->cur++;
        long cu = hex4(p);
        if (cu < 0)
            return fail(p, "bad \\u escape");
        if (cu >= 0xD800 && cu <= 0xDBFF) { /* a high surrogate needs its low half */
            if (p->end - p->cur < 2 || p->cur[0] != '\\' || p->cur[1] != 'u')
                return fail(p, "unpaired surrogate in \\u escape");
            p->cur += 2;
            long lo = hex4(p);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return fail(p, "unpaired surrogate in \\u escape");
        } else if (cu >= 0xDC00 && cu <= 0xDFFF) {
            return fail(p, "unpaired surrogate in \\u escape");
        }
        return 0;
    }
    if (e < 0 || !strchr("\"\\/bfnrt", e))
        return fail(p, "bad escape in string");
    p->cur++;
    return 0;
}

static long parse_string(parser *p)
{
    p->cur++; /* opening quote */
    long t = new_tok(p, KV_JSON_STRING);
    if (t < 0)
        return -1;
    const unsigned char *c = p->cur, *e = p->end;
    for (;;) {
        c = kv_json_plain_end(c, e); /* the plain bytes (json_scan.h) */
        p->cur = c;
        if (c == e)
            return fail(p, "unterminated string");
        if (*c == '"')
            break;
        if (*c < 0x20)
            return fail(p, "control character in string");
        if ((*c == '\\' ? escape(p) : utf8_seq(p)) < 0)
            return -1;
        c = p->cur;
    }
    p->toks[t].end = POS(p, c);
    p->cur = c + 1; /* closing quote */
    return t;
}

static const unsigned char *digits(const unsigned char *c, const unsigned char *e)
{
    while (c < e && *c >= '0' && *c <= '9')
        c++;
    return c;
}

static long parse_number(parser *p)
{
    long t = new_tok(p, KV_JSON_NUMBER);
    if (t < 0)
        return -1;
    const unsigned char *c = p->cur, *e = p->end, *d;
    if (c < e && *c == '-')
        c++;
    if (c < e && *c == '0') {
        c++;
        if (c < e && *c >= '0' && *c <= '9')
            return fail_at(p, c, "leading zero in number");
    } else if ((d = digits(c, e)) == c) {
        return fail_at(p, c, "expected a digit");
    } else {
        c = d;
    }
    if (c < e && *c == '.') {
        c++;
        if ((d = digits(c, e)) == c)
            return fail_at(p, c, "expected a digit after '.'");
        c = d;
    }
    if (c < e && (*c == 'e' || *c == 'E')) {
        c++;
        if (c < e && (*c == '+' || *c == '-'))
            c++;
        if ((d = digits(c, e)) == c)
            return fail_at(p, c, "expected a digit in exponent");
        c = d;
    }
    p->cur = c;
    p->toks[t].end = POS(p, c);
    return t;
}

static long parse_literal(parser *p, const char *word, kv_json_type type)
{
    size_t n = strlen(word);
    if ((size_t)(p->end - p->cur) < n || memcmp(p->cur, word, n) != 0)
        return fail(p, "unexpected character");
    long t = new_tok(p, type);
    if (t < 0)
        return -1;
    p->cur += n;
    p->toks[t].end = POS(p, p->cur);
    return t;
}

static long parse_value(parser *p, size_t depth);

/* A value inside a container: strings and numbers (most values) without the general
 * dispatch; the cursor is on the value's first byte. */
static inline long member(parser *p, size_t depth)
{
    int c = peek(p);
    long t;
    if (c == '"')
        t = parse_string(p);
    else if (c == '-' || (c >= '0' && c <= '9'))
        t = parse_number(p);
    else
        return parse_value(p, depth);
    if (t >= 0)
        p->toks[t].next = p->n;
    return t;
}

/* Objects and arrays share one loop: members separated by ',', closed by close. */
static long parse_container(parser *p, size_t depth, kv_json_type type)
{
    const int is_obj = (type == KV_JSON_OBJECT);
    const int close = is_obj ? '}' : ']';
    if (depth >= p->max_depth)
        return fail(p, "nesting too deep");
    long t = new_tok(p, type);
    if (t < 0)
        return -1;
    p->cur++;
    skip_ws(p);
    if (peek(p) == close) {
        p->cur++;
        p->toks[t].end = POS(p, p->cur);
        p->toks[t].next = p->n;
        return t;
    }
    size_t size = 0;
    for (;;) {
        skip_ws(p);
        if (is_obj) {
            if (peek(p) != '"')
                return fail(p, "expected a string key");
            if (parse_string(p) < 0)
                return -1;
            skip_ws(p);
            if (peek(p) != ':')
                return fail(p, "expected ':'");
            p->cur++;
        }
        skip_ws(p);
        if (member(p, depth + 1) < 0)
            return -1;
        p->toks[t].size = ++size;
        skip_ws(p);
        int c = peek(p);
        if (c == ',') {
            p->cur++;
            skip_ws(p);
            if (peek(p) == close)
                return fail(p, "trailing comma");
            continue;
        }
        if (c == close) {
            p->cur++;
            break;
        }
        return fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    p->toks[t].end = POS(p, p->cur);
    p->toks[t].next = p->n;
    return t;
}

static long parse_value(parser *p, size_t depth)
{
    long t;
    skip_ws(p);
    int c = peek(p);
    switch (c) {
    case '{':
        return parse_container(p, depth, KV_JSON_OBJECT);
    case '[':
        return parse_container(p, depth, KV_JSON_ARRAY);
    case '"':
        t = parse_string(p);
        break;
    case 't':
        t = parse_literal(p, "true", KV_JSON_TRUE);
        break;
    case 'f':
        t = parse_literal(p, "false", KV_JSON_FALSE);
        break;
    case 'n':
        t = parse_literal(p, "null", KV_JSON_NULL);
        break;
    case -1:
        return fail(p, "unexpected end of input");
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            t = parse_number(p);
        else
            return fail(p, "unexpected character");
    }
    if (t >= 0)
        p->toks[t].next = p->n;
    return t;
}

/* The whole text through p; on failure *err gets the message and (only then) the line and
 * column. */
static long run(parser *p, kv_json_error *err)
{
    long rc = -1;
    size_t len = (size_t)(p->end - p->cur);
    if (len >= 3 && memcmp(p->s, "\xEF\xBB\xBF", 3) == 0) {
        fail(p, "byte order mark not allowed");
    } else if (parse_value(p, 0) >= 0) {
        skip_ws(p);
        if (p->cur != p->end)
            fail(p, "unexpected data after the JSON value");
        else
            rc = (long)p->n;
    }
    if (rc < 0) {
        err->msg = p->err_msg;
        if (p->oom)
            err->line = err->col = 0;
        else
            kv_json_locate(p->s, len, POS(p, p->err_at), &err->line, &err->col);
    }
    return rc;
}

static void start(parser *p, const char *text, size_t len, kv_json_tok *toks, size_t cap,
                  size_t max_depth)
{
    memset(p, 0, sizeof *p);
    p->s = text;
    p->cur = (const unsigned char *)text;
    p->end = p->cur + len;
    p->toks = toks;
    p->cap = cap;
    p->max_depth = max_depth;
}

long kv_json_parse_grow(const char *text, size_t len, kv_json_tok **toks, size_t first, size_t most,
                     size_t max_depth, kv_json_error *err)
{
    /* one pass: the array grows when it is full (as a parse with the bigger array from the
     * start would have gone on), never a retry from the start */
    size_t cap = first < most ? first : most;
    kv_json_tok *t = realloc(*toks, (cap ? cap : 1) * sizeof *t);
    if (!t) {
        err->line = err->col = 0;
        err->msg = "out of memory";
        return -1;
    }
    *toks = t;
    parser p;
    start(&p, text, len, t, cap, max_depth);
    p.grow = toks;
    p.most = most;
    return run(&p, err);
}

long kv_json_parse(const char *text, size_t len, kv_json_tok *toks, size_t max_toks,
                size_t max_depth, kv_json_error *err)
{
    parser p;
    start(&p, text, len, toks, max_toks, max_depth);
    return run(&p, err);
}

/* Four hex digits at text[*i] (before end): the code unit, *i advanced; else -1. */
static long hex_at(const char *text, size_t *i, size_t end)
{
    long v = 0;
    if (end - *i < 4)
        return -1;
    for (size_t k = 0; k < 4; k++) {
        int h = hexval((unsigned char)text[*i + k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    *i += 4;
    return v;
}

/* One character of a string token's contents at text[*i] (*i < end) as 1 to 4 UTF-8 bytes in
 * u8; advances *i past it. Tokens from kv_json_parse() are valid; anything else still decodes
 * without reading past end (a broken \u escape becomes U+FFFD). */
static size_t decode_char(const char *text, size_t *i, size_t end, unsigned char u8[4])
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    unsigned char c = (unsigned char)text[(*i)++];
    if (c != '\\' || *i >= end) {
        u8[0] = c;
        return 1;
    }
    char e = text[(*i)++];
    if (e != 'u') {
        const char *k = e ? strchr(from, e) : NULL;
        u8[0] = (unsigned char)(k ? to[k - from] : e);
        return 1;
    }
    long cp = hex_at(text, i, end);
    if (cp >= 0xD800 && cp <= 0xDBFF && end - *i >= 6 && text[*i] == '\\' && text[*i + 1] == 'u') {
        size_t j = *i + 2;
        long lo = hex_at(text, &j, end);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            *i = j;
        }
    }
    if (cp < 0 || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    unsigned long u = (unsigned long)cp;
    if (u < 0x80) {
        u8[0] = (unsigned char)u;
        return 1;
    }
    if (u < 0x800) {
        u8[0] = (unsigned char)(0xC0 | (u >> 6));
        u8[1] = (unsigned char)(0x80 | (u & 0x3F));
        return 2;
    }
    if (u < 0x10000) {
        u8[0] = (unsigned char)(0xE0 | (u >> 12));
        u8[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
        u8[2] = (unsigned char)(0x80 | (u & 0x3F));
        return 3;
    }
    u8[0] = (unsigned char)(0xF0 | (u >> 18));
    u8[1] = (unsigned char)(0x80 | ((u >> 12) & 0x3F));
    u8[2] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
    u8[3] = (unsigned char)(0x80 | (u & 0x3F));
    return 4;
}

size_t kv_json_string_decode(const char *text, const kv_json_tok *t, char *out, size_t cap)
{
    size_t len = 0, w = 0;
    int cut = (cap == 0);
    if (t->type == KV_JSON_STRING) {
        for (size_t i = t->start; i < t->end;) {
            unsigned char u8[4];
            size_t n = decode_char(text, &i, t->end, u8);
            if (!cut && n <= cap - 1 - w) {
                memcpy(out + w, u8, n);
                w += n;
            } else {
                cut = 1; /* the rest is counted, not written: no character is split */
            }
            len += n;
        }
    }
    if (cap > 0)
        out[w] = '\0';
    return len;
}

/* The decoded comparison, a character at a time (a token with escapes). */
static int decoded_eq(const char *text, const kv_json_tok *t, const char *s)
{
    size_t j = 0;
    for (size_t i = t->start; i < t->end;) {
        unsigned char u8[4];
        size_t n = decode_char(text, &i, t->end, u8);
        for (size_t k = 0; k < n; k++, j++)
            if (s[j] == '\0' || (unsigned char)s[j] != u8[k])
                return 0;
    }
    return s[j] == '\0';
}

/* Whether string token t decodes to s (slen bytes), comparing the bytes as written first:
 * a byte other than '\\' decodes to itself and every character or escape to at least one
 * byte, so only a token whose bytes reach an escape before they differ from s is decoded. */
static int token_eq(const char *text, const kv_json_tok *t, const char *s, size_t slen)
{
    size_t rl = t->end - t->start, i = 0;
    const char *r = text + t->start;
    if (rl < slen)
        return 0; /* it decodes to at most rl bytes */
    while (i < slen && r[i] == s[i] && r[i] != '\\')
        i++;
    if (i < rl && r[i] == '\\')
        return decoded_eq(text, t, s);
    return i == rl && i == slen;
}

int kv_json_string_eq(const char *text, const kv_json_tok *t, const char *s)
{
    return token_eq(text, t, s, strlen(s));
}

size_t kv_json_find(const char *text, const kv_json_tok *toks, size_t obj, const char *key)
{
    size_t found = 0;
    if (toks[obj].type != KV_JSON_OBJECT)
        return 0;
    size_t k = obj + 1, klen = strlen(key);
    for (size_t m = 0; m < toks[obj].size; m++) {
        size_t v = k + 1;
        if (token_eq(text, &toks[k], key, klen))
            found = v;
        k = toks[v].next;
    }
    return found;
}

double kv_json_number(const char *text, const kv_json_tok *t)
{
    char buf[400];
    size_t n = t->end - t->start;
    if (n >= sizeof buf)
        return NAN; /* an absurdly long number: callers reject NaN rather than guess */
    memcpy(buf, text + t->start, n);
    buf[n] = '\0';
    return strtod(buf, NULL);
}

