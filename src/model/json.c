/*
 * json.c - a strict, allocation-free JSON tokenizer (see kvcalc_json.h).
 *
 * Recursive descent with an explicit depth bound: a 100,000-deep "[[[[..." fails with a
 * located error at max_depth instead of exhausting the C stack. Every byte is looked at
 * once; the parser never reads past len, so the input need not be NUL-terminated.
 */
#include "kvcalc_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t len, pos;
    kv_json_tok *toks;
    size_t cap, n, max_depth;
    kv_json_error *err;
} parser;

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

static int fail_at(parser *p, size_t pos, const char *msg)
{
    kv_json_locate(p->s, p->len, pos, &p->err->line, &p->err->col);
    p->err->msg = msg;
    return -1;
}

static int fail(parser *p, const char *msg)
{
    return fail_at(p, p->pos, msg);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int peek(parser *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static long new_tok(parser *p, kv_json_type type)
{
    if (p->n >= p->cap)
        return fail(p, "too many values");
    kv_json_tok *t = &p->toks[p->n];
    t->type = type;
    t->start = p->pos;
    t->end = p->pos;
    t->size = 0;
    t->next = 0;
    return (long)p->n++;
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

/* Reads 4 hex digits at p->pos; returns the code unit or -1. */
static long hex4(parser *p)
{
    long v = 0;
    if (p->len - p->pos < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int h = hexval((unsigned char)p->s[p->pos + (size_t)i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    p->pos += 4;
    return v;
}

/* One UTF-8 sequence starting at p->pos (first byte >= 0x80): checks shape, overlongs,
 * surrogates and the U+10FFFF limit. */
static int utf8_seq(parser *p)
{
    const unsigned char *u = (const unsigned char *)p->s + p->pos;
    size_t left = p->len - p->pos, n;
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
    p->pos += n;
    return 0;
}

static long parse_string(parser *p)
{
    p->pos++; /* opening quote */
    long t = new_tok(p, KV_JSON_STRING);
    if (t < 0)
        return -1;
    for (;;) {
        int c = peek(p);
        if (c < 0)
            return fail(p, "unterminated string");
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(p, "control character in string");
        if (c == '\\') {
            p->pos++;
            int e = peek(p);
            if (e == 'u') {
                p->pos++;
                long cu = hex4(p);
                if (cu < 0)
                    return fail(p, "bad \\u escape");
                if (cu >= 0xD800 && cu <= 0xDBFF) { /* a high surrogate needs its low half */
                    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
                        return fail(p, "unpaired surrogate in \\u escape");
                    p->pos += 2;
                    long lo = hex4(p);
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return fail(p, "unpaired surrogate in \\u escape");
                } else if (cu >= 0xDC00 && cu <= 0xDFFF) {
                    return fail(p, "unpaired surrogate in \\u escape");
                }
                continue;
            }
            if (e < 0 || !strchr("\"\\/bfnrt", e))
                return fail(p, "bad escape in string");
            p->pos++;
            continue;
        }
        if (c >= 0x80) {
            if (utf8_seq(p) < 0)
                return -1;
            continue;
        }
        p->pos++;
    }
    p->toks[t].end = p->pos;
    p->pos++; /* closing quote */
    return t;
}

static size_t digits(parser *p)
{
    size_t n = 0;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
        p->pos++, n++;
    return n;
}

static long parse_number(parser *p)
{
    long t = new_tok(p, KV_JSON_NUMBER);
    if (t < 0)
        return -1;
    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0') {
        p->pos++;
        if (peek(p) >= '0' && peek(p) <= '9')
            return fail(p, "leading zero in number");
    } else if (digits(p) == 0) {
        return fail(p, "expected a digit");
    }
    if (peek(p) == '.') {
        p->pos++;
        if (digits(p) == 0)
            return fail(p, "expected a digit after '.'");
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (digits(p) == 0)
            return fail(p, "expected a digit in exponent");
    }
    p->toks[t].end = p->pos;
    return t;
}

static long parse_literal(parser *p, const char *word, kv_json_type type)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return fail(p, "unexpected character");
    long t = new_tok(p, type);
    if (t < 0)
        return -1;
    p->pos += n;
    p->toks[t].end = p->pos;
    return t;
}

static long parse_value(parser *p, size_t depth);

/* Objects and arrays share one loop: members separated by ',', closed by close. */
static long parse_container(parser *p, size_t depth, kv_json_type type)
{
    const int is_obj = (type == KV_JSON_OBJECT);
    const char close = is_obj ? '}' : ']';
    if (depth >= p->max_depth)
        return fail(p, "nesting too deep");
    long t = new_tok(p, type);
    if (t < 0)
        return -1;
    p->pos++;
    skip_ws(p);
    if (peek(p) == close) {
        p->pos++;
        p->toks[t].end = p->pos;
        p->toks[t].next = p->n;
        return t;
    }
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
            p->pos++;
        }
        if (parse_value(p, depth + 1) < 0)
            return -1;
        p->toks[t].size++;
        skip_ws(p);
        int c = peek(p);
        if (c == ',') {
            p->pos++;
            skip_ws(p);
            if (peek(p) == close)
                return fail(p, "trailing comma");
            continue;
        }
        if (c == close) {
            p->pos++;
            break;
        }
        return fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    p->toks[t].end = p->pos;
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

long kv_json_parse_grow(const char *text, size_t len, kv_json_tok **toks, size_t first, size_t most,
                     size_t max_depth, kv_json_error *err)
{
    for (size_t cap = first < most ? first : most;; cap = cap * 2 < most ? cap * 2 : most) {
        kv_json_tok *t = realloc(*toks, cap * sizeof *t);
        if (!t) {
            err->line = err->col = 0;
            err->msg = "out of memory";
            return -1;
        }
        *toks = t;
        long used = kv_json_parse(text, len, t, cap, max_depth, err);
        if (used > 0 || strcmp(err->msg, "too many values") != 0 || cap == most)
            return used;
    }
}

long kv_json_parse(const char *text, size_t len, kv_json_tok *toks, size_t max_toks,
                size_t max_depth, kv_json_error *err)
{
    parser p = {text, len, 0, toks, max_toks, 0, max_depth, err};
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        return fail(&p, "byte order mark not allowed");
    if (parse_value(&p, 0) < 0)
        return -1;
    skip_ws(&p);
    if (p.pos != len)
        return fail(&p, "unexpected data after the JSON value");
    return (long)p.n;
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

int kv_json_string_eq(const char *text, const kv_json_tok *t, const char *s)
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

size_t kv_json_find(const char *text, const kv_json_tok *toks, size_t obj, const char *key)
{
    size_t found = 0;
    if (toks[obj].type != KV_JSON_OBJECT)
        return 0;
    size_t k = obj + 1;
    for (size_t m = 0; m < toks[obj].size; m++) {
        size_t v = k + 1;
        if (kv_json_string_eq(text, &toks[k], key))
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

