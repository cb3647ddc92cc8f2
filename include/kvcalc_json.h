/*
 * kvcalc_json.h - a strict RFC 8259 JSON tokenizer that never allocates.
 *
 * In the spirit of jsmn: the caller passes the text and an array of tokens; the parser
 * fills the array (one token per value, object key strings included) and reports the first
 * error with its line and column. It validates everything a hostile file could get wrong:
 * UTF-8, escapes, control characters, number grammar, trailing commas, nesting depth, and
 * trailing garbage. Tokens refer to byte ranges of the text; nothing is copied.
 */
#ifndef KVCALC_JSON_H
#define KVCALC_JSON_H

#include "kvcalc.h" /* KVCALC_API */

#include <stddef.h>

typedef enum {
    KV_JSON_OBJECT,
    KV_JSON_ARRAY,
    KV_JSON_STRING, /* start/end exclude the quotes; escapes are left as written (see
                    kv_json_string_decode) */
    KV_JSON_NUMBER,
    KV_JSON_TRUE,
    KV_JSON_FALSE,
    KV_JSON_NULL
} kv_json_type;

typedef struct {
    kv_json_type type;
    size_t start, end; /* byte range in the text */
    size_t size;       /* objects: number of keys; arrays: number of elements */
    size_t next;       /* index of the first token after this value's subtree */
} kv_json_tok;

typedef struct {
    size_t line, col;  /* 1-based position of the error */
    const char *msg;   /* "expected ',' or '}'" */
} kv_json_error;

#define KV_JSON_DEFAULT_MAX_DEPTH 64

/* Tokenizes text[0..len). Returns the number of tokens used (>= 1), or -1 with *err set.
 * toks[0] is the top-level value. Running out of tokens is an error ("too many values"). */
KVCALC_API long kv_json_parse(const char *text, size_t len, kv_json_tok *toks, size_t max_toks,
                size_t max_depth, kv_json_error *err);

/* kv_json_parse() into a token array that grows as the text needs: from `first` tokens, doubling,
 * to at most `most` (*toks is realloc'ed; the caller frees it, also on failure). Returns the
 * count, or -1 with *err set (msg "out of memory" when the array cannot grow). */
KVCALC_API long kv_json_parse_grow(const char *text, size_t len, kv_json_tok **toks, size_t first, size_t most,
                     size_t max_depth, kv_json_error *err);

/* Line and column (1-based, columns in characters) of byte `offset` of text. */
KVCALC_API void kv_json_locate(const char *text, size_t len, size_t offset, size_t *line, size_t *col);

/* The index of the value of key in the object at toks[obj], or 0 if absent (0 is never a
 * value inside an object). A key that appears twice: the last one wins, as in Python. */
KVCALC_API size_t kv_json_find(const char *text, const kv_json_tok *toks, size_t obj, const char *key);

/* Whether the string token, decoded as by kv_json_string_decode(), equals s (UTF-8). */
KVCALC_API int kv_json_string_eq(const char *text, const kv_json_tok *t, const char *s);

/* Decodes the string token t of text into out as UTF-8: the escapes \" \\ \/ \b \f \n \r
 * \t and \uXXXX (a surrogate pair is one character). Control characters are kept (\n, ESC,
 * \u0000 as a NUL byte): showing them safely is the display's job. Allocation-free and
 * bounded: writes at most cap - 1 bytes, cut at a character boundary, then a NUL (nothing at
 * all when cap is 0). Returns the whole decoded length without the NUL, so a result >= cap
 * means the output was truncated. A token that is not a string decodes to "". */
KVCALC_API size_t kv_json_string_decode(const char *text, const kv_json_tok *t, char *out, size_t cap);

/* The value of a number token as a double (strtod of a validated JSON number); NaN for a
 * number written with 400 characters or more. */
KVCALC_API double kv_json_number(const char *text, const kv_json_tok *t);

#endif
