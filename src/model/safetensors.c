/*
 * safetensors.c - a bounded reader of .safetensors headers: an 8-byte little-endian length
 * N, then N bytes of JSON naming every tensor's dtype, shape and data_offsets. Only the
 * header is read, never the tensor data; the data section's extent comes from the file size.
 *
 * Every number of the header is checked before it is used: N against 100 MB and against the
 * file, each shape's product against 2^64, each tensor's byte count against its
 * data_offsets, and the offsets together must tile the data section exactly (as the
 * safetensors library requires: no overlap, no hole, nothing after the last tensor). A
 * refused header is one line "LABEL: byte OFFSET: what", the offset counted from
 * the start of the file.
 *
 * Two readers share those rules: the token reader (the JSON tokenizer, then a walk over the
 * tokens), which reads any header and says what is wrong with a bad one, and a one-pass
 * reader for headers as the safetensors library writes them, about three times faster
 * (issue 22), which gives up on anything else (see st_fast).
 */
#include "config.h"
#include "json_scan.h"
#include "kvcalc_json.h"
#include "kvprint.h"
#include "safetensors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_FIRST_TOKENS 4096u
#define ST_MAX_TOKENS (1u << 22) /* 4M values: 160 MB of tokens, 40x a real shard's header */
#define ST_MAX_DEPTH 8           /* {"t": {"shape": [..]}} is depth 3 */

/* The dtypes safetensors defines (safetensors/src/tensor.rs, Dtype::bitsize): bits per
 * element. F4 and F6 elements are smaller than a byte; a tensor must fill whole bytes. */
#define DT(n, b) {n, sizeof n - 1, b}
static const struct { const char *name; size_t len; unsigned bits; } st_dtypes[] = {
    DT("BOOL", 8),    DT("F4", 4),      DT("F6_E2M3", 6), DT("F6_E3M2", 6), DT("U8", 8),
    DT("I8", 8),      DT("F8_E5M2", 8), DT("F8_E4M3", 8), DT("F8_E8M0", 8), DT("I16", 16),
    DT("U16", 16),    DT("F16", 16),    DT("BF16", 16),   DT("I32", 32),    DT("U32", 32),
    DT("F32", 32),    DT("C64", 64),    DT("F64", 64),    DT("I64", 64),    DT("U64", 64),
};
#undef DT
#define ST_DTYPES (sizeof st_dtypes / sizeof st_dtypes[0])

/* What one tensor is, for the parameter count (see kvcalc.h: the rule). */
typedef enum { ROLE_PLAIN, ROLE_PACKED8, ROLE_PACKED2, ROLE_SCALE } st_role;

/* Where a tensor's bytes are, for the tiling check. */
typedef struct {
    uint64_t begin, end;
    size_t key; /* token of its name */
} st_span;

typedef struct {
    const char *text; /* the JSON header */
    size_t len;
    const kv_json_tok *toks;
    const char *label;
    char *err;
    size_t errcap;
} st_ctx;

/* "LABEL: byte AT: ..." (AT counted from the start of the file); returns 2. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int st_fail(const char *label, char *err, size_t errcap, uint64_t at, const char *fmt,
                   ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    kv_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (errcap)
        kv_snprintf(err, errcap, "%s: byte %llu: %s", label, (unsigned long long)at, msg);
    return KV_ERR_FORMAT;
}

/* A failure at a token of the JSON header (which starts at byte 8 of the file). */
#define TOK_FAIL(c, tok, ...) \
    st_fail((c)->label, (c)->err, (c)->errcap, 8u + (uint64_t)(c)->toks[tok].start, __VA_ARGS__)

/* The byte offset of a (line, column) the tokenizer reported: the inverse of kv_json_locate,
 * so that JSON errors are located in bytes like every other error of this reader. */
static size_t offset_of(const char *text, size_t len, size_t line, size_t col)
{
    size_t l = 1, c = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)text[i];
        if ((b & 0xC0) == 0x80)
            continue; /* columns count characters, not UTF-8 continuation bytes */
        if (l == line && c == col)
            return i;
        if (b == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    return len;
}

/* Text from the file as a message shows it: control characters (C0, DEL, and C1 encoded as
 * UTF-8) become '?', so that a hostile header cannot drive the terminal. */
static char *printable(char *buf)
{
    unsigned char *p = (unsigned char *)buf;
    for (size_t i = 0; p[i]; i++) {
        if (p[i] == 0xC2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) {
            p[i] = p[i + 1] = '?'; /* one C1 control: two bytes (the string ends with a NUL) */
            i++;
        } else if (p[i] < 0x20 || p[i] == 0x7f) {
            p[i] = '?';
        }
    }
    return buf;
}

/* A tensor name as a message shows it: cut to cap - 1 bytes (at a character), printable. */
static const char *shown_name(const st_ctx *c, size_t key, char *buf, size_t cap)
{
    kv_json_string_decode(c->text, &c->toks[key], buf, cap);
    return printable(buf);
}

/* A non-negative integer below 2^64 written as plain digits (JSON's grammar was checked by
 * the tokenizer, so a number token is digits, an optional '-', fraction and exponent). */
static int st_uint(const st_ctx *c, size_t t, uint64_t *out)
{
    const kv_json_tok *k = &c->toks[t];
    if (k->type != KV_JSON_NUMBER)
        return -1;
    uint64_t v = 0;
    for (size_t i = k->start; i < k->end; i++) {
        unsigned d = (unsigned)(c->text[i] - '0');
        if (d > 9)
            return -1; /* '-', '.', 'e' */
        if (i - k->start >= 19 && v > (UINT64_MAX - d) / 10)
            return -1; /* 2^64 and above (19 digits cannot reach it) */
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* The name of the tensor whose name is token key, as messages show it (decoded only when a
 * message needs it). */
#define NAME(c, key, buf) shown_name(c, key, buf, sizeof buf)

/* The dtype of tensor `key` (its value: token t), as bits per element. */
static int st_dtype(const st_ctx *c, size_t t, size_t key, unsigned *bits, const char **dname)
{
    char d[16], name[84];
    const kv_json_tok *k = &c->toks[t];
    if (k->type != KV_JSON_STRING)
        return TOK_FAIL(c, t, "tensor '%s': dtype must be a string", NAME(c, key, name));
    size_t rl = k->end - k->start;
    const char *raw = c->text + k->start;
    if (rl < sizeof d && !memchr(raw, '\\', rl)) /* as written is as decoded: no copy */
        for (size_t i = 0; i < ST_DTYPES; i++)
            if (st_dtypes[i].len == rl && memcmp(raw, st_dtypes[i].name, rl) == 0) {
                *bits = st_dtypes[i].bits;
                *dname = st_dtypes[i].name;
                return 0;
            }
    size_t n = kv_json_string_decode(c->text, &c->toks[t], d, sizeof d);
    for (size_t i = 0; n < sizeof d && i < ST_DTYPES; i++)
        if (strcmp(d, st_dtypes[i].name) == 0) {
            *bits = st_dtypes[i].bits;
            *dname = st_dtypes[i].name;
            return 0;
        }
    return TOK_FAIL(c, t, "tensor '%s': unknown dtype '%s%s'", NAME(c, key, name), printable(d),
                    n >= sizeof d ? "..." : "");
}

/* The product of the shape's dimensions (token t), refused if it passes 2^64. */
static int st_shape(const st_ctx *c, size_t t, size_t key, uint64_t *elements)
{
    char name[84];
    if (c->toks[t].type != KV_JSON_ARRAY)
        return TOK_FAIL(c, t, "tensor '%s': shape must be an array", NAME(c, key, name));
    uint64_t n = 1;
    size_t i = t + 1;
    for (size_t k = 0; k < c->toks[t].size; k++, i = c->toks[i].next) {
        uint64_t d;
        if (st_uint(c, i, &d) < 0)
            return TOK_FAIL(c, i, "tensor '%s': a dimension must be an integer from 0 to "
                            "2^64 - 1", NAME(c, key, name));
        if (d != 0 && n > UINT64_MAX / d)
            return TOK_FAIL(c, t, "tensor '%s': the shape's product overflows 64 bits",
                            NAME(c, key, name));
        n *= d;
    }
    *elements = n;
    return 0;
}

/* data_offsets (token t): [begin, end], begin <= end, relative to the data section. */
static int st_offsets(const st_ctx *c, size_t t, size_t key, st_span *sp)
{
    char name[84];
    const kv_json_tok *k = &c->toks[t];
    if (k->type != KV_JSON_ARRAY || k->size != 2 || st_uint(c, t + 1, &sp->begin) < 0 ||
        st_uint(c, c->toks[t + 1].next, &sp->end) < 0)
        return TOK_FAIL(c, t, "tensor '%s': data_offsets must be [begin, end], two "
                        "integers", NAME(c, key, name));
    if (sp->end < sp->begin)
        return TOK_FAIL(c, t, "tensor '%s': data_offsets end %llu is before begin %llu",
                        NAME(c, key, name), (unsigned long long)sp->end,
                        (unsigned long long)sp->begin);
    return 0;
}

/* A name's dotted components, one at a time: [*at, *at + *n) of s. */
static int next_component(const char *s, size_t *at, size_t *n)
{
    if (!s[*at])
        return 0;
    size_t e = *at;
    while (s[e] && s[e] != '.')
        e++;
    *n = e - *at;
    return 1;
}

/* Whether s (n bytes) starts with the string literal lit. */
#define starts(s, n, lit) ((n) >= sizeof lit - 1 && memcmp(s, lit, sizeof lit - 1) == 0)

/* Which part of the model a tensor belongs to, by its name. The components are looked at
 * up to the first layer index: "vision_tower.", "model.visual.", "multi_modal_projector.",
 * "model.embed_vision." are the vision tower; "audio_tower.", "model.audio_model." the
 * audio tower; "mtp." / "model.mtp." and "layers.N." with N >= main_layers (DeepSeek-V3's
 * and GLM's MTP blocks follow the main ones) the MTP / draft heads. */
kv_part kv_safetensors_part(const char *name, int64_t main_layers)
{
    size_t at = 0, n;
    int after_layers = 0;
    while (next_component(name, &at, &n)) {
        const char *s = name + at;
        if (after_layers) { /* the layer index right after "layers" */
            uint64_t idx = 0;
            size_t i = 0;
            for (; i < n && s[i] >= '0' && s[i] <= '9' && idx < (1ull << 40); i++)
                idx = idx * 10 + (uint64_t)(s[i] - '0');
            if (n > 0 && i == n && main_layers > 0 && idx >= (uint64_t)main_layers)
                return KV_PART_MTP;
            return KV_PART_LANGUAGE;
        }
        switch (n ? s[0] : 0) { /* the prefixes below by their first letter */
        case 'v':
            if (starts(s, n, "vision") || starts(s, n, "visual"))
                return KV_PART_VISION;
            break;
        case 'e':
            if (starts(s, n, "embed_vision"))
                return KV_PART_VISION;
            if (starts(s, n, "embed_audio"))
                return KV_PART_AUDIO;
            break;
        case 'm':
            if (starts(s, n, "multi_modal_projector") || starts(s, n, "mm_projector"))
                return KV_PART_VISION;
            if (n == 3 && memcmp(s, "mtp", 3) == 0)
                return KV_PART_MTP;
            break;
        case 'i':
            if (starts(s, n, "image_newline"))
                return KV_PART_VISION;
            break;
        case 'a':
            if (starts(s, n, "audio"))
                return KV_PART_AUDIO;
            break;
        default:
            break;
        }
        after_layers = (n == 6 && memcmp(s, "layers", 6) == 0);
        at += n + (s[n] == '.');
    }
    return KV_PART_LANGUAGE;
}

/* Whether the last component of a name (last, n bytes: after its last '.') is the string
 * literal w (which has no '.'). */
#define last_is(last, n, w) ((n) == sizeof w - 1 && memcmp(last, w, sizeof w - 1) == 0)

/* What a tensor is, for the parameter count: a packed 4-bit weight (GPTQ/AWQ `qweight`,
 * compressed-tensors `weight_packed`: eight values per I32), an mxfp4 `_blocks` (two
 * values per U8), a quantization side tensor (scales, zeros, g_idx: bytes, no parameters),
 * or a plain tensor (each element a parameter). */
static st_role role_of(const char *name, size_t len, const char *dtype)
{
    size_t b = len;
    while (b > 0 && name[b - 1] != '.')
        b--;
    const char *last = name + b;
    size_t n = len - b;
    if ((last_is(last, n, "qweight") || last_is(last, n, "weight_packed")) &&
        strcmp(dtype, "I32") == 0)
        return ROLE_PACKED8;
    /* the suffixes hold no '.': only a last component of 7 bytes or more can end in one */
    if (n >= 7 && memcmp(name + len - 7, "_blocks", 7) == 0 && strcmp(dtype, "U8") == 0)
        return ROLE_PACKED2;
    if (last_is(last, n, "scales") || last_is(last, n, "qzeros") || last_is(last, n, "g_idx") ||
        last_is(last, n, "weight_scale") || last_is(last, n, "weight_scale_inv") ||
        last_is(last, n, "weight_scale_2") || last_is(last, n, "input_scale") ||
        last_is(last, n, "weight_zero_point") || last_is(last, n, "weight_global_scale") ||
        last_is(last, n, "input_global_scale") || last_is(last, n, "weight_shape") ||
        last_is(last, n, "k_scale") || last_is(last, n, "v_scale"))
        return ROLE_SCALE;
    if (n >= 7 && memcmp(name + len - 7, "_scales", 7) == 0)
        return ROLE_SCALE; /* mxfp4's per-block exponents */
    return ROLE_PLAIN;
}

/* Adds one checked tensor (its name: len bytes, then a NUL) to the figures. */
static void count_tensor(kv_safetensors_info *st, const char *name, size_t len,
                         const char *dtype, uint64_t elements, uint64_t bytes,
                         int64_t main_layers)
{
    kv_part p = kv_safetensors_part(name, main_layers);
    st_role r = role_of(name, len, dtype);
    st->bytes[p] += bytes;
    st->elements[p] += elements;
    st->params[p] += r == ROLE_PACKED8 ? elements * 8 : r == ROLE_PACKED2 ? elements * 2
                     : r == ROLE_SCALE ? 0 : elements;
    if (r == ROLE_PACKED8 || r == ROLE_PACKED2)
        st->packed_bytes += bytes;
    else if (r == ROLE_SCALE)
        st->scale_bytes += bytes;
    st->tensors++;
}

/* Token k is the key `word` (len bytes, no escapes in word): its bytes first, as
 * kv_json_find compares. */
static int key_is(const st_ctx *c, size_t k, const char *word, size_t len)
{
    const kv_json_tok *t = &c->toks[k];
    size_t rl = t->end - t->start;
    if (rl == len)
        return memcmp(c->text + t->start, word, len) == 0;
    /* longer: only escapes can make it decode to word */
    return rl > len && memchr(c->text + t->start, '\\', rl) && kv_json_string_eq(c->text, t, word);
}

/* One tensor entry (name at token key, its object at key + 1): checked and counted. */
static int st_tensor(const st_ctx *c, size_t key, uint64_t data_len, int64_t main_layers,
                     st_span *sp, kv_safetensors_info *st)
{
    char name[84], full[512];
    size_t obj = key + 1;
    if (c->toks[obj].type != KV_JSON_OBJECT)
        return TOK_FAIL(c, obj, "tensor '%s' must be an object with dtype, shape and "
                        "data_offsets", NAME(c, key, name));
    /* the three keys in one pass over the object (the last of a repeated key wins, as with
     * kv_json_find) */
    size_t td = 0, ts = 0, to = 0, k = obj + 1;
    for (size_t m = 0; m < c->toks[obj].size; m++, k = c->toks[k + 1].next) {
        if (key_is(c, k, "dtype", 5))
            td = k + 1;
        else if (key_is(c, k, "shape", 5))
            ts = k + 1;
        else if (key_is(c, k, "data_offsets", 12))
            to = k + 1;
    }
    if (!td || !ts || !to)
        return TOK_FAIL(c, obj, "tensor '%s' has no %s", NAME(c, key, name),
                        !td ? "dtype" : !ts ? "shape" : "data_offsets");
    unsigned bits = 8;
    const char *dname = "";
    uint64_t elements = 0;
    if (st_dtype(c, td, key, &bits, &dname) || st_shape(c, ts, key, &elements) ||
        st_offsets(c, to, key, sp))
        return KV_ERR_FORMAT;
    if (elements > UINT64_MAX / bits)
        return TOK_FAIL(c, ts, "tensor '%s': %llu elements of %s overflow 64 bits",
                        NAME(c, key, name), (unsigned long long)elements, dname);
    if (elements * bits % 8 != 0)
        return TOK_FAIL(c, ts, "tensor '%s': %llu elements of %s are not a whole number of "
                        "bytes", NAME(c, key, name), (unsigned long long)elements, dname);
    uint64_t bytes = elements * bits / 8;
    if (sp->end - sp->begin != bytes)
        return TOK_FAIL(c, to, "tensor '%s': data_offsets [%llu, %llu] hold %llu bytes, but "
                        "%llu elements of %s are %llu bytes", NAME(c, key, name),
                        (unsigned long long)sp->begin, (unsigned long long)sp->end,
                        (unsigned long long)(sp->end - sp->begin), (unsigned long long)elements,
                        dname, (unsigned long long)bytes);
    if (sp->end > data_len)
        return TOK_FAIL(c, to, "tensor '%s': data_offsets end %llu is past the data section "
                        "(%llu bytes): the file is incomplete or corrupted", NAME(c, key, name),
                        (unsigned long long)sp->end, (unsigned long long)data_len);
    sp->key = key;
    /* the name as a C string: its bytes as written when they hold no escape (and fit),
     * else decoded (cut at 511 bytes, a NUL from \u0000 ending it, as before) */
    const kv_json_tok *kt = &c->toks[key];
    size_t rl = kt->end - kt->start;
    if (rl < sizeof full && !memchr(c->text + kt->start, '\\', rl)) {
        memcpy(full, c->text + kt->start, rl); /* no NUL: a string token has no control byte */
        full[rl] = '\0';
    } else {
        kv_json_string_decode(c->text, kt, full, sizeof full);
        rl = strlen(full); /* up to a NUL from \u0000, as the name is read */
    }
    count_tensor(st, full, rl, dname, elements, bytes, main_layers);
    return 0;
}

/* __metadata__: an object of strings (the safetensors format says so). */
static int st_metadata(const st_ctx *c, size_t obj)
{
    if (c->toks[obj].type != KV_JSON_OBJECT)
        return TOK_FAIL(c, obj, "__metadata__ must be an object of strings");
    size_t i = obj + 1;
    for (size_t k = 0; k < c->toks[obj].size; k++, i = c->toks[i + 1].next)
        if (c->toks[i + 1].type != KV_JSON_STRING) {
            char name[84];
            return TOK_FAIL(c, i + 1, "__metadata__ value of '%s' must be a string",
                            shown_name(c, i, name, sizeof name));
        }
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    const st_span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Sorts the spans by offset and walks them from data byte 0: the index of the first that
 * does not start where the ones before it end (*at: that end), or n when they follow one
 * another without a gap (*at: where the last one ends). */
static size_t st_tile(st_span *sp, size_t n, uint64_t *at)
{
    size_t sorted = 1;
    while (sorted < n && by_offset(&sp[sorted - 1], &sp[sorted]) <= 0)
        sorted++;
    if (sorted < n) /* files list their tensors in offset order: then there is nothing to sort
                       (and a stable sort would leave the order as it is) */
        qsort(sp, n, sizeof *sp, by_offset);
    uint64_t end = 0;
    size_t i = 0;
    while (i < n && sp[i].begin == end)
        end = sp[i++].end;
    *at = end;
    return i;
}

/* The tensors must tile [0, data_len) exactly, in offset order. */
static int st_tiling(const st_ctx *c, st_span *sp, size_t n, uint64_t data_len)
{
    char a[84], b[84];
    uint64_t at;
    size_t i = st_tile(sp, n, &at);
    if (i < n && sp[i].begin < at) /* i > 0: the first span to start before 0 cannot be */
        return TOK_FAIL(c, sp[i].key, "tensor '%s' (data bytes %llu to %llu) overlaps "
                        "tensor '%s'", shown_name(c, sp[i].key, a, sizeof a),
                        (unsigned long long)sp[i].begin, (unsigned long long)sp[i].end,
                        shown_name(c, sp[i - 1].key, b, sizeof b));
    if (i < n)
        return TOK_FAIL(c, sp[i].key, "tensor '%s' starts at data byte %llu, but the "
                        "previous tensor ends at %llu: a hole in the data",
                        shown_name(c, sp[i].key, a, sizeof a),
                        (unsigned long long)sp[i].begin, (unsigned long long)at);
    if (at != data_len)
        return st_fail(c->label, c->err, c->errcap, 8u + c->len + at,
                       "the tensors end at data byte %llu, but the data section has %llu "
                       "bytes: the file is not a safetensors file, or is corrupted",
                       (unsigned long long)at, (unsigned long long)data_len);
    return 0;
}

/* The most tokens a header of n bytes may take (one more and the tokenizer refuses it). */
static size_t st_most_tokens(size_t n)
{
    return n / 2 + 2 < ST_MAX_TOKENS ? n / 2 + 2 : ST_MAX_TOKENS;
}

/* Tokenizes the header, with a token array that grows (a header of n bytes holds at most
 * n / 2 + 1 values; real ones a tenth of that). Returns the count or -1 (message in err). */
static long st_tokenize(const char *text, size_t n, kv_json_tok **toks, const char *label,
                        char *err, size_t errcap)
{
    kv_json_error je = {0, 0, NULL};
    long used = kv_json_parse_grow(text, n, toks, ST_FIRST_TOKENS, st_most_tokens(n),
                                   ST_MAX_DEPTH, &je);
    if (used > 0)
        return used;
    if (strcmp(je.msg, "out of memory") == 0)
        kv_snprintf(err, errcap, "%s: out of memory", label);
    else
        st_fail(label, err, errcap, 8u + offset_of(text, n, je.line, je.col),
                "the JSON header: %s", je.msg);
    return -1;
}

/* Walks the top-level object: every entry is __metadata__ or a tensor. */
static int st_walk(const st_ctx *c, uint64_t data_len, int64_t main_layers, st_span *sp,
                   kv_safetensors_info *st)
{
    size_t n = 0, i = 1;
    for (size_t k = 0; k < c->toks[0].size; k++, i = c->toks[i + 1].next) {
        int rc = key_is(c, i, "__metadata__", 12)
                     ? st_metadata(c, i + 1)
                     : st_tensor(c, i, data_len, main_layers, &sp[n++], st);
        if (rc)
            return rc;
    }
    return st_tiling(c, sp, n, data_len);
}

/* ---- the one-pass reader ----
 *
 * The token reader spends most of a big shard's time on tokens: 12 of them a tensor, each
 * written, then walked and compared again (issue 22: ~3,000 of a folder's ~3,650
 * instructions a tensor). Headers
 * are written by the safetensors library, and look alike: names of printable ASCII, each
 * tensor {"dtype": .., "shape": [..], "data_offsets": [.., ..]}, __metadata__ an object of
 * strings. st_fast reads such a header in one pass, with no token, and checks each tensor
 * with st_tensor's arithmetic as it goes.
 *
 * It reads a strict subset of JSON (json.c's grammar and whitespace) with a strict subset of
 * the rules, so that what it accepts the token reader accepts with the same figures. It
 * gives up - and the token reader reads the header from the start - on anything else: a
 * string with an escape, UTF-8 or a control character; a number that is not plain digits
 * below 2^64; a tensor key other than the three, or one of them twice; a name of 512 bytes
 * or more (which the token reader cuts); more tokens than the tokenizer allows; and every
 * error, of the JSON or of a tensor. So every message is still the token reader's own. */

/* Eight bytes of the text as one word, and what to match one against: up to eight bytes and
 * a mask of them. Both are made with memcpy, so a word holds its bytes in the machine's own
 * order and a match means the same bytes on any machine. */
typedef struct {
    uint64_t pat, mask;
} st_word;

/* The 16 bytes from c on as two words; near the end of the text (e), its last bytes and
 * zeros, which match no pattern (no pattern holds a NUL). */
static void load16(const unsigned char *c, const unsigned char *e, uint64_t w[2])
{
    unsigned char b[16] = {0};
    if (e - c >= 16) {
        memcpy(w, c, 16);
        return;
    }
    memcpy(b, c, (size_t)(e - c));
    memcpy(w, b, 16);
}

static st_word word_of(const char *lit, size_t n)
{
    unsigned char p[8] = {0}, m[8] = {0};
    memcpy(p, lit, n);
    memset(m, 0xFF, n);
    st_word w;
    memcpy(&w.pat, p, 8);
    memcpy(&w.mask, m, 8);
    return w;
}

static int word_is(uint64_t w, st_word x)
{
    return (w & x.mask) == x.pat;
}

/* What st_fast matches words against: the three keys with their quotes ("data_offsets" in
 * two words), each dtype with its closing quote (F8_E4M3" is the longest: 8 bytes), and the
 * dtype found last (tensors come in runs of one dtype). */
typedef struct {
    st_word dtype, shape, data_of, fsets;
    st_word dt[ST_DTYPES];
    size_t last_dt;
} st_words;

static void words_init(st_words *w)
{
    char q[8];
    w->dtype = word_of("\"dtype\"", 7);
    w->shape = word_of("\"shape\"", 7);
    w->data_of = word_of("\"data_of", 8);
    w->fsets = word_of("fsets\"", 6);
    for (size_t i = 0; i < ST_DTYPES; i++) {
        size_t n = st_dtypes[i].len;
        if (n + 1 > sizeof q) { /* a longer name, were one added: no word matches it, so */
            w->dt[i].mask = 0;  /* its tensors go to the token reader */
            w->dt[i].pat = 1;
            continue;
        }
        memcpy(q, st_dtypes[i].name, n);
        q[n] = '"';
        w->dt[i] = word_of(q, n + 1);
    }
    w->last_dt = 0;
}

/* One tensor's object as st_fast read it. */
typedef struct {
    unsigned bits;
    const char *dtype;
    uint64_t elements;
    st_span span;
    size_t toks; /* the tokens the tokenizer makes of the object */
} st_fast_tensor;

/* A tensor's object at c: exactly dtype, shape and data_offsets, in any order. The byte
 * after its '}', or NULL. */
static const unsigned char *fast_tensor(const unsigned char *c, const unsigned char *e,
                                        st_words *w, st_fast_tensor *t)
{
    unsigned seen = 0; /* 1: dtype, 2: shape, 4: data_offsets */
    if (c >= e || *c != '{')
        return NULL;
    t->toks = 1;
    t->bits = 8, t->dtype = "", t->elements = 0; /* set below: seen is 7 at the end */
    c = kv_json_ws_end(c + 1, e);
    for (;;) {
        /* the key, spelled exactly so (its quotes matched too: no escape, nothing more) */
        unsigned key = 0;
        uint64_t a[2];
        load16(c, e, a);
        if (word_is(a[0], w->dtype))
            key = 1, c += 7;
        else if (word_is(a[0], w->shape))
            key = 2, c += 7;
        else if (word_is(a[0], w->data_of) && word_is(a[1], w->fsets))
            key = 4, c += 14;
        if (!key || (seen & key) || !(c = kv_json_expect(c, e, ':')))
            return NULL; /* another key, or one of the three again: the token reader's */
        seen |= key;
        c = kv_json_ws_end(c, e);
        if (key == 1) { /* "BF16": its name and closing quote, the dtype before it first */
            if (c >= e || *c != '"')
                return NULL;
            load16(c + 1, e, a);
            size_t i = w->last_dt;
            if (!word_is(a[0], w->dt[i])) {
                for (i = 0; i < ST_DTYPES && !word_is(a[0], w->dt[i]); i++)
                    ;
                if (i == ST_DTYPES)
                    return NULL;
                w->last_dt = i;
            }
            t->bits = st_dtypes[i].bits;
            t->dtype = st_dtypes[i].name;
            c += st_dtypes[i].len + 2;
            t->toks += 2;
        } else if (key == 2) {
            if (c >= e || *c != '[')
                return NULL;
            c = kv_json_ws_end(c + 1, e);
            uint64_t n = 1;
            t->toks += 2;
            if (c < e && *c == ']') {
                c++;
            } else {
                for (;;) { /* st_shape's product, overflow refused at the same dimension */
                    uint64_t d;
                    if (!(c = kv_json_plain_uint(c, e, &d)) || (d != 0 && n > UINT64_MAX / d))
                        return NULL;
                    n *= d;
                    t->toks++;
                    int k = kv_json_after_member(&c, e, ']');
                    if (k > 0)
                        continue;
                    if (k == 0) {
                        c++;
                        break;
                    }
                    return NULL;
                }
            }
            t->elements = n;
        } else {
            if (!(c = kv_json_expect(c, e, '[')) ||
                !(c = kv_json_plain_uint(kv_json_ws_end(c, e), e, &t->span.begin)) ||
                !(c = kv_json_expect(c, e, ',')) ||
                !(c = kv_json_plain_uint(kv_json_ws_end(c, e), e, &t->span.end)) ||
                !(c = kv_json_expect(c, e, ']')))
                return NULL;
            t->toks += 4;
        }
        int k = kv_json_after_member(&c, e, '}');
        if (k > 0)
            continue;
        if (k == 0)
            break;
        return NULL;
    }
    return seen == 7 ? c + 1 : NULL;
}

/* The header text[0..len) (text[0] is '{') in one pass: 1 with its figures added to *st, or
 * 0 when the token reader must read it (*st then holds a part of them: the caller clears
 * it). */
static int st_fast(const char *text, size_t len, uint64_t data_len, int64_t main_layers,
                   kv_safetensors_info *st)
{
    const unsigned char *c = (const unsigned char *)text + 1;
    const unsigned char *e = (const unsigned char *)text + len;
    size_t toks = 1, n = 0, cap = 0;
    st_span *sp = NULL;
    uint64_t at;
    int ok = 0;
    st_words w;
    words_init(&w);
    c = kv_json_ws_end(c, e);
    if (c < e && *c == '}')
        c++;
    else
        for (;;) {
            const unsigned char *k, *q = kv_json_plain_string(c, e, &k);
            if (!q || !(c = kv_json_expect(q + 1, e, ':')))
                goto out;
            c = kv_json_ws_end(c, e);
            size_t kl = (size_t)(q - k);
            if (kl == 12 && memcmp(k, "__metadata__", 12) == 0) {
                if (!(c = kv_json_flat_object(c, e, &toks, 0)))
                    goto out;
            } else {
                st_fast_tensor t;
                char name[512];
                if (!(c = fast_tensor(c, e, &w, &t)) || kl >= sizeof name)
                    goto out;
                /* st_tensor's checks, in its arithmetic */
                if (t.span.end < t.span.begin || t.elements > UINT64_MAX / t.bits ||
                    t.elements * t.bits % 8 != 0)
                    goto out;
                uint64_t bytes = t.elements * t.bits / 8;
                if (t.span.end - t.span.begin != bytes || t.span.end > data_len)
                    goto out;
                if (n == cap) {
                    size_t more = cap ? cap * 2 : 1024;
                    st_span *bigger = more <= SIZE_MAX / sizeof *sp
                                          ? realloc(sp, more * sizeof *sp) : NULL;
                    if (!bigger)
                        goto out; /* the token reader says "out of memory" if it is so */
                    sp = bigger;
                    cap = more;
                }
                t.span.key = 0; /* token indices are the token reader's: it names tensors */
                sp[n++] = t.span;
                memcpy(name, k, kl);
                name[kl] = '\0';
                count_tensor(st, name, kl, t.dtype, t.elements, bytes, main_layers);
                toks += t.toks;
            }
            toks++; /* the key */
            int next = kv_json_after_member(&c, e, '}');
            if (next > 0)
                continue;
            if (next == 0) {
                c++;
                break;
            }
            goto out;
        }
    ok = kv_json_ws_end(c, e) == e && toks <= st_most_tokens(len) &&
         st_tile(sp, n, &at) == n && at == data_len;
out:
    free(sp);
    return ok;
}

kv_status kv_safetensors_read_ways(const unsigned char *data, size_t len, uint64_t file_size,
                                   const char *label, int64_t main_layers, int fast,
                                   int *took_fast, kv_safetensors_info *out, char *err,
                                   size_t errcap)
{
    if (took_fast)
        *took_fast = 0;
    if (len < 8)
        return st_fail(label, err, errcap, 0, "file ends inside the header length (%zu of 8 "
                       "bytes): not a safetensors file", len);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = (n << 8) | data[i];
    if (file_size < len)
        file_size = len;
    if (n > KV_SAFETENSORS_MAX_HEADER)
        return st_fail(label, err, errcap, 0, "header length %llu is over %u bytes: not a "
                       "safetensors file", (unsigned long long)n, KV_SAFETENSORS_MAX_HEADER);
    if (n > file_size - 8)
        return st_fail(label, err, errcap, 0, "header length %llu runs past the end of the "
                       "file (%llu bytes)", (unsigned long long)n,
                       (unsigned long long)file_size);
    if (n > len - 8)
        return st_fail(label, err, errcap, len, "the buffer ends inside the header");
    if (n < 2 || data[8] != '{')
        return st_fail(label, err, errcap, 8, "the header must be a JSON object: not a "
                       "safetensors file");
    kv_safetensors_info one;
    memset(&one, 0, sizeof one);
    if (fast && st_fast((const char *)data + 8, (size_t)n, file_size - 8 - n, main_layers,
                        &one)) {
        if (took_fast)
            *took_fast = 1;
    } else {
        memset(&one, 0, sizeof one); /* what the one-pass reader counted before it gave up */
        kv_json_tok *toks = NULL;
        long used = st_tokenize((const char *)data + 8, (size_t)n, &toks, label, err, errcap);
        if (used < 0) {
            free(toks);
            return KV_ERR_FORMAT;
        }
        st_ctx c = {(const char *)data + 8, (size_t)n, toks, label, err, errcap};
        st_span *sp = malloc((toks[0].size + 1) * sizeof *sp);
        int rc = sp ? st_walk(&c, file_size - 8 - n, main_layers, sp, &one)
                    : st_fail(label, err, errcap, 0, "out of memory");
        kv_status st = rc == 0 ? KV_OK : sp ? KV_ERR_FORMAT : KV_ERR_NO_MEMORY;
        free(sp);
        free(toks);
        if (st != KV_OK)
            return st;
    }
    one.files = 1;
    one.header_bytes = n;
    kv_safetensors_add(out, &one);
    return 0;
}

kv_status kv_safetensors_read(const unsigned char *data, size_t len, uint64_t file_size,
                        const char *label, int64_t main_layers, kv_safetensors_info *out,
                        char *err, size_t errcap)
{
    return kv_safetensors_read_ways(data, len, file_size, label, main_layers, 1, NULL, out,
                                    err, errcap);
}

void kv_safetensors_add(kv_safetensors_info *total, const kv_safetensors_info *one)
{
    for (int p = 0; p < KV_PARTS; p++) {
        total->bytes[p] += one->bytes[p];
        total->elements[p] += one->elements[p];
        total->params[p] += one->params[p];
    }
    total->packed_bytes += one->packed_bytes;
    total->scale_bytes += one->scale_bytes;
    total->tensors += one->tensors;
    total->files += one->files;
    total->header_bytes += one->header_bytes;
}

kv_status kv_safetensors_load_file(const char *path, int64_t main_layers, kv_safetensors_info *out,
                             char *err, size_t errcap)
{
    char name[1024];
    FILE *f = config_open(path, name, sizeof name, err, errcap);
    if (!f)
        return KV_ERR_FILE;
    unsigned char head[8];
    size_t got = fread(head, 1, 8, f);
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    int rc = KV_ERR_FORMAT;
    if (size < 0) {
        kv_snprintf(err, errcap, "%s: cannot tell the file's size (not a file?)", name);
    } else if (got < 8) {
        rc = kv_safetensors_read(head, got, (uint64_t)size, name, main_layers, out, err,
                                 errcap);
    } else {
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--)
            n = (n << 8) | head[i];
        /* the length is checked before anything is allocated from it */
        size_t want = n <= KV_SAFETENSORS_MAX_HEADER && n <= (uint64_t)size - 8 ? (size_t)n : 0;
        unsigned char *buf = malloc(8 + want);
        if (!buf) {
            kv_snprintf(err, errcap, "%s: out of memory", name);
        } else {
            memcpy(buf, head, 8);
            size_t have = fseek(f, 8, SEEK_SET) == 0 ? fread(buf + 8, 1, want, f) : 0;
            if (have < want)
                kv_snprintf(err, errcap, "%s: read error", name);
            else
                rc = kv_safetensors_read(buf, 8 + want, (uint64_t)size, name, main_layers,
                                         out, err, errcap);
            free(buf);
        }
    }
    fclose(f);
    return rc;
}
