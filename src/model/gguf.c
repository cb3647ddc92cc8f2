/*
 * gguf.c - a bounded reader of GGUF headers (llama.cpp's model files): the metadata and
 * the tensor infos, never the tensor data.
 *
 * One forward cursor checks every length against the bytes it has before using it, so a
 * 2^62 count or a 2^40-byte string fails at once, at its offset; nothing is allocated from
 * a count. The metadata is walked twice (the first walk finds general.architecture, the
 * second keeps the "%s.*" keys of gguf.h); the values are not copied, only located.
 * Little-endian files of versions 2 and 3; v1 (32-bit counts) and big-endian files are
 * refused with a message saying so. The model rules are in gguf_model.c.
 */
#include "gguf.h"
#include "kvprint.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GGUF_MAX_KEY 65535u            /* keys are short ASCII in practice */
#define GGUF_MAX_ELEMS (1ull << 30)    /* llama.cpp's limit on arrays and strings */
#define GGUF_MAX_NAME 63u              /* ggml's tensor name field, without the NUL */
#define GGUF_ARRAY 9u
#define GGUF_STRING 8u
#define GGUF_TYPES 13u

/* The 13 value types: bytes of a scalar (0: string / array). */
static const struct { const char *name; unsigned size; } value_types[GGUF_TYPES] = {
    {"UINT8", 1}, {"INT8", 1}, {"UINT16", 2}, {"INT16", 2}, {"UINT32", 4}, {"INT32", 4},
    {"FLOAT32", 4}, {"BOOL", 1}, {"STRING", 0}, {"ARRAY", 0}, {"UINT64", 8}, {"INT64", 8},
    {"FLOAT64", 8},
};

/* ggml tensor types (gguf.md §6, ggml.c's type traits): elements per block and bytes per
 * block. Block 0: an id that was removed from ggml (its tensors are refused). */
static const struct { const char *name; unsigned block, bytes; } ggml_types[] = {
    {"F32", 1, 4},       {"F16", 1, 2},       {"Q4_0", 32, 18},    {"Q4_1", 32, 20},
    {"Q4_2", 0, 0},      {"Q4_3", 0, 0},      {"Q5_0", 32, 22},    {"Q5_1", 32, 24},
    {"Q8_0", 32, 34},    {"Q8_1", 32, 36},    {"Q2_K", 256, 84},   {"Q3_K", 256, 110},
    {"Q4_K", 256, 144},  {"Q5_K", 256, 176},  {"Q6_K", 256, 210},  {"Q8_K", 256, 292},
    {"IQ2_XXS", 256, 66}, {"IQ2_XS", 256, 74}, {"IQ3_XXS", 256, 98}, {"IQ1_S", 256, 50},
    {"IQ4_NL", 32, 18},  {"IQ3_S", 256, 110}, {"IQ2_S", 256, 82},  {"IQ4_XS", 256, 136},
    {"I8", 1, 1},        {"I16", 1, 2},       {"I32", 1, 4},       {"I64", 1, 8},
    {"F64", 1, 8},       {"IQ1_M", 256, 56},  {"BF16", 1, 2},      {"Q4_0_4_4", 0, 0},
    {"Q4_0_4_8", 0, 0},  {"Q4_0_8_8", 0, 0},  {"TQ1_0", 256, 54},  {"TQ2_0", 256, 66},
    {"IQ4_NL_4_4", 0, 0}, {"IQ4_NL_4_8", 0, 0}, {"IQ4_NL_8_8", 0, 0}, {"MXFP4", 32, 17},
    {"NVFP4", 64, 36},   {"Q1_0", 128, 18},   {"Q2_0", 64, 18},
};
#define GGML_TYPES (sizeof ggml_types / sizeof ggml_types[0])

/* The per-architecture keys of gguf.h, in gguf_key order. */
const char *const gguf_key_suffix[GK_COUNT] = {
    "block_count", "context_length", "embedding_length", "attention.head_count",
    "attention.head_count_kv", "attention.key_length", "attention.value_length",
    "attention.key_length_swa", "attention.value_length_swa", "attention.key_length_mla",
    "attention.value_length_mla", "attention.kv_lora_rank", "attention.q_lora_rank",
    "rope.dimension_count", "attention.sliding_window", "attention.sliding_window_pattern",
    "attention.shared_kv_layers", "full_attention_interval", "attention.recurrent_layers",
    "nextn_predict_layers", "ssm.conv_kernel", "ssm.inner_size", "ssm.state_size",
    "ssm.group_count", "feed_forward_length", "expert_count", "attention.indexer.key_length",
};

int gguf_fail(gguf_cur *c, size_t at, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    kv_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->errcap)
        kv_snprintf(c->err, c->errcap, "%s: byte %zu: %s", c->label, at, msg);
    return -1;
}

uint64_t gguf_le(const unsigned char *p, size_t n)
{
    if (n == 4) /* the usual widths as one expression: the compiler reads them at once */
        return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    if (n == 8)
        return gguf_le(p, 4) | gguf_le(p + 4, 4) << 32;
    uint64_t v = 0;
    while (n--)
        v = (v << 8) | p[n];
    return v;
}

void gguf_cur_init(gguf_cur *c, const unsigned char *data, size_t len, const char *label,
                   char *err, size_t errcap, int adapter)
{
    memset(c, 0, sizeof *c);
    c->p = c->kv = data;
    c->len = c->kv_len = len;
    c->label = label;
    c->err = err;
    c->errcap = errcap;
    c->adapter = adapter;
    c->keep = SIZE_MAX;
}

/* The byte at file offset off (within the bytes at hand). */
#define AT(c, off) ((c)->p + ((off) - (c)->base))

/* Bytes left at hand from the cursor. */
static size_t left(const gguf_cur *c)
{
    return c->base + c->len - c->pos;
}

/* Fails unless n more bytes are there (brought by c->more when it can); "what" names the
 * field. */
static int need(gguf_cur *c, uint64_t n, const char *what)
{
    if (n <= left(c))
        return 0;
    if (c->pos + n > KV_GGUF_MAX_HEADER || n > KV_GGUF_MAX_HEADER)
        return gguf_fail(c, c->pos, "%s runs past %u MiB: the header is too large to be real",
                         what, KV_GGUF_MAX_HEADER >> 20);
    if (c->more && c->more(c, (size_t)n) == 0 && n <= left(c))
        return 0;
    c->short_read = 1;
    return gguf_fail(c, c->pos, "file ends inside %s", what);
}

static int rd(gguf_cur *c, size_t n, const char *what, uint64_t *out)
{
    if (need(c, n, what) < 0)
        return -1;
    *out = gguf_le(AT(c, c->pos), n);
    c->pos += n;
    return 0;
}

/* A string: its u64 length (at most max) and its bytes, located in the buffer. */
static int rd_string(gguf_cur *c, uint64_t max, const char *what, const char **s, size_t *n)
{
    uint64_t len;
    size_t at = c->pos;
    if (rd(c, 8, what, &len) < 0)
        return -1;
    if (len > max)
        return gguf_fail(c, at, "%s of %llu bytes is absurd (at most %llu)", what,
                         (unsigned long long)len, (unsigned long long)max);
    if (need(c, len, what) < 0)
        return -1;
    *s = (const char *)AT(c, c->pos);
    *n = (size_t)len;
    c->pos += (size_t)len;
    return 0;
}

/* Skips one value of type t (not an array). */
static int skip_scalar(gguf_cur *c, uint32_t t)
{
    const char *s;
    size_t n;
    if (t == GGUF_STRING)
        return rd_string(c, GGUF_MAX_ELEMS, "a string value", &s, &n);
    return need(c, value_types[t].size, "a value") < 0 ? -1
           : (c->pos += value_types[t].size, 0);
}

/* The key at file offset kat (its length, then its bytes: read already, so at hand). */
#define KEY(c, kat) ((const char *)AT(c, (kat) + 8))

static int check_type(gguf_cur *c, size_t at, uint64_t t, size_t kat, size_t klen,
                      int in_array)
{
    if (t >= GGUF_TYPES)
        return gguf_fail(c, at, "unknown value type %llu for key '%.*s'",
                         (unsigned long long)t, (int)(klen > 80 ? 80 : klen), KEY(c, kat));
    if (in_array && t == GGUF_ARRAY)
        return gguf_fail(c, at, "nested array in key '%.*s'", (int)(klen > 80 ? 80 : klen),
                         KEY(c, kat));
    return 0;
}

/* Walks one value of type t, filling *v (where it is). */
static int walk_value(gguf_cur *c, uint32_t t, size_t kat, size_t klen, gguf_value *v)
{
    v->type = t;
    v->at = c->pos;
    if (t != GGUF_ARRAY)
        return skip_scalar(c, t);
    uint64_t et, count;
    size_t at = c->pos;
    if (rd(c, 4, "an array's element type", &et) < 0 || check_type(c, at, et, kat, klen, 1) < 0)
        return -1;
    at = c->pos;
    if (rd(c, 8, "an array's length", &count) < 0)
        return -1;
    unsigned size = value_types[et].size;
    uint64_t least = size ? size : 8; /* a string is at least its length */
    if (count > GGUF_MAX_ELEMS || c->pos >= KV_GGUF_MAX_HEADER ||
        count > (KV_GGUF_MAX_HEADER - c->pos) / least)
        return gguf_fail(c, at, "array of %llu elements in key '%.*s' is absurd",
                         (unsigned long long)count, (int)(klen > 80 ? 80 : klen), KEY(c, kat));
    v->elem_type = (uint32_t)et;
    v->count = count;
    v->at = c->pos;
    if (size)
        return need(c, count * size, "an array") < 0 ? -1 : (c->pos += count * size, 0);
    for (uint64_t i = 0; i < count; i++) /* strings: walked, not stored */
        if (skip_scalar(c, GGUF_STRING) < 0)
            return -1;
    return 0;
}

static int is_key(const char *k, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(k, want, n) == 0;
}

/* The general.* keys: the architecture, the alignment and the name. */
static int general_key(gguf_cur *c, const char *k, size_t n, const gguf_value *v,
                       char *arch, size_t archcap, uint64_t *align, gguf_meta *m)
{
    if (is_key(k, n, "general.architecture") || is_key(k, n, "general.name")) {
        if (v->type != GGUF_STRING)
            return gguf_fail(c, v->at, "'%.*s' must be a STRING, not %s", (int)n, k,
                             value_types[v->type].name);
        size_t len = (size_t)gguf_le(AT(c, v->at), 8);
        const char *s = (const char *)AT(c, v->at + 8);
        if (k[8] == 'n') {
            m->name = s;
            m->name_at = v->at + 8;
            m->name_len = len;
        } else {
            if (len == 0 || len >= archcap)
                return gguf_fail(c, v->at, "general.architecture of %zu bytes", len);
            memcpy(arch, s, len);
            arch[len] = '\0';
        }
    } else if (is_key(k, n, "tokenizer.ggml.tokens") && v->type == 9) {
        m->vocab = v->count; /* the vocabulary, for llama.cpp's logits buffer estimate */
    } else if (is_key(k, n, "general.alignment")) {
        if (v->type != 4)
            return gguf_fail(c, v->at, "general.alignment must be a UINT32, not %s",
                             value_types[v->type].name);
        *align = gguf_le(AT(c, v->at), 4);
        if (*align == 0 || (*align & (*align - 1)) != 0)
            return gguf_fail(c, v->at, "general.alignment %llu is not a power of two",
                             (unsigned long long)*align);
    }
    return 0;
}

/* One walk over the n_kv pairs. pass 0 finds the general keys; pass 1 keeps the "%s.*"
 * keys of the architecture arch in m. */
static int walk_kv(gguf_cur *c, uint64_t n_kv, int pass, char *arch, size_t archcap,
                   uint64_t *align, gguf_meta *m)
{
    size_t alen = strlen(arch);
    for (uint64_t i = 0; i < n_kv; i++) {
        const char *k = NULL;
        size_t klen = 0, kat = c->pos;
        uint64_t t;
        if (rd_string(c, GGUF_MAX_KEY, "a key", &k, &klen) < 0)
            return -1;
        if (klen == 0)
            return gguf_fail(c, kat, "empty key");
        size_t tat = c->pos;
        if (rd(c, 4, "a value type", &t) < 0 || check_type(c, tat, t, kat, klen, 0) < 0)
            return -1;
        gguf_value v = {1, (uint32_t)t, 0, 0, 0, kat};
        if (walk_value(c, (uint32_t)t, kat, klen, &v) < 0)
            return -1;
        k = KEY(c, kat); /* the bytes may have moved while the value was read */
        if (pass == 0) {
            if (general_key(c, k, klen, &v, arch, archcap, align, m) < 0)
                return -1;
            continue;
        }
        if (klen <= alen + 1 || memcmp(k, arch, alen) != 0 || k[alen] != '.')
            continue;
        for (size_t j = 0; j < GK_COUNT; j++) {
            if (!is_key(k + alen + 1, klen - alen - 1, gguf_key_suffix[j]))
                continue;
            if (m->v[j].present)
                return gguf_fail(c, kat, "duplicate key '%.*s'", (int)klen, k);
            m->v[j] = v;
        }
    }
    return 0;
}

/* Bytes of one tensor of ne[] elements of ggml type t; -1 (and a message) when the shape
 * is impossible. */
static int tensor_bytes(gguf_cur *c, size_t at, const int64_t ne[4], uint32_t t,
                        uint64_t *bytes, uint64_t *elems)
{
    if (t >= GGML_TYPES)
        return gguf_fail(c, at, "unknown ggml type %u (kvcalc knows 0 to %u)", t,
                         (unsigned)GGML_TYPES - 1);
    if (ggml_types[t].block == 0)
        return gguf_fail(c, at, "ggml type %u (%s) was removed from ggml", t,
                         ggml_types[t].name);
    if (ne[0] % ggml_types[t].block != 0)
        return gguf_fail(c, at, "row of %lld elements is not a multiple of %s's block of %u",
                         (long long)ne[0], ggml_types[t].name, ggml_types[t].block);
    uint64_t e = 1, b = (uint64_t)ne[0] / ggml_types[t].block * ggml_types[t].bytes;
    for (int d = 0; d < 4; d++) {
        uint64_t n = (uint64_t)ne[d];
        if (n && (e > (uint64_t)INT64_MAX / n || (d > 0 && b > (uint64_t)INT64_MAX / n)))
            return gguf_fail(c, at, "tensor of more than 2^63 elements or bytes");
        e *= n;
        if (d > 0)
            b *= n;
    }
    *bytes = b;
    *elems = e;
    return 0;
}

/* Whether name[0..n) is `word` followed by '.' (or the end). */
static int group_is(const char *name, size_t n, const char *word)
{
    size_t w = strlen(word);
    return n >= w && memcmp(name, word, w) == 0 && (n == w || name[w] == '.');
}

/* Adds a tensor's bytes to its group, as llama.cpp and Ollama group a GGUF's tensors: the
 * block of "blk.N.", or the named tensors outside the blocks (token_embd, output,
 * output_norm); others (rope_freqs, ...) are in weight_bytes only. */
static void group_bytes(kv_gguf_info *g, const char *name, size_t n, double bytes)
{
    if (n > 4 && memcmp(name, "blk.", 4) == 0) {
        uint64_t b = 0;
        size_t i = 4;
        for (; i < n && name[i] >= '0' && name[i] <= '9' && b < KV_GGUF_MAX_LAYERS; i++)
            b = b * 10 + (uint64_t)(name[i] - '0');
        if (i > 4 && i < n && name[i] == '.' && b < KV_GGUF_MAX_LAYERS) {
            g->block_bytes[b] += bytes;
            /* DeepSeek sparse attention: the blocks with indexer tensors keep an indexer
             * key cache (GLM-5.2: 21 of 78) */
            if (n - i - 1 > 8 && memcmp(name + i + 1, "indexer.", 8) == 0)
                g->layer_indexer[b] = 1;
        }
        return;
    }
    if (group_is(name, n, "token_embd"))
        g->token_embd_bytes += bytes;
    else if (group_is(name, n, "output_norm"))
        g->output_norm_bytes += bytes;
    else if (group_is(name, n, "output"))
        g->output_bytes += bytes;
}

/* The tensor names seen so far, to refuse a name given twice (llama.cpp's gguf_init refuses
 * such a file: "duplicate tensor name"): open addressing over 64-bit hashes of the names, with
 * where each name is (its length's offset in the file) and which tensor it was. The names
 * themselves are not kept: a hash met again is checked against the first name's bytes,
 * fetched from wherever they are (the file, when the reader has moved on). 16 bytes a slot,
 * at least two slots a tensor. */
typedef struct {
    uint64_t hash;
    uint32_t at;    /* the name's offset (of its length) in the header; 0: empty */
    uint32_t index; /* which tensor it was */
} name_slot;

typedef struct {
    name_slot *slot;
    size_t mask; /* slots - 1, a power of two */
} name_set;

static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15u ^ n;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        memcpy(&w, s + i, n - i < 8 ? n - i : 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDu;
        h ^= h >> 32;
    }
    return h;
}

/* n bytes of the file at offset at into out: at hand, or fetched. 0 or -1. */
static int bytes_at(gguf_cur *c, size_t at, void *out, size_t n)
{
    if (at >= c->base && at - c->base <= c->len && n <= c->len - (at - c->base)) {
        memcpy(out, AT(c, at), n);
        return 0;
    }
    return c->fetch ? c->fetch(c, at, out, n) : -1;
}

/* Adds the name (n bytes; its length at offset at) of tensor i; -1 with *first when it was
 * there already. */
static int name_add(name_set *ns, gguf_cur *c, size_t at, const char *name, size_t n, size_t i,
                    size_t *first)
{
    uint64_t h = name_hash(name, n);
    for (size_t k = (size_t)h & ns->mask;; k = (k + 1) & ns->mask) {
        name_slot *e = &ns->slot[k];
        if (e->at == 0) {
            e->hash = h;
            e->at = (uint32_t)at;
            e->index = (uint32_t)i;
            return 0;
        }
        if (e->hash != h)
            continue;
        unsigned char len[8];
        char other[GGUF_MAX_NAME];
        if (bytes_at(c, e->at, len, 8) == 0 && gguf_le(len, 8) == n &&
            bytes_at(c, (size_t)e->at + 8, other, n) == 0 && memcmp(other, name, n) == 0) {
            *first = e->index;
            return -1;
        }
    }
}

static int walk_tensor(gguf_cur *c, uint64_t align, uint64_t *next, kv_gguf_info *g,
                       name_set *ns, size_t index)
{
    const char *raw = NULL;
    char name[GGUF_MAX_NAME + 1]; /* a copy: the bytes at hand may move as more are read */
    size_t nlen = 0, at = c->pos;
    uint64_t nd, t, off, bytes = 0, elems = 0;
    int64_t ne[4] = {1, 1, 1, 1};
    c->mark = at;
    if (rd_string(c, GGUF_MAX_NAME, "a tensor name", &raw, &nlen) < 0)
        return -1;
    if (nlen == 0)
        return gguf_fail(c, at, "empty tensor name");
    memcpy(name, raw, nlen);
    name[nlen] = '\0';
    size_t first = 0;
    if (ns && name_add(ns, c, at, name, nlen, index, &first) < 0)
        return gguf_fail(c, at, "tensor '%.*s' is named twice (tensors %zu and %zu): llama.cpp "
                                "refuses such a file", (int)(nlen > 64 ? 64 : nlen), name,
                         first, index);
    at = c->pos;
    if (rd(c, 4, "a tensor's dimension count", &nd) < 0)
        return -1;
    if (nd > 4)
        return gguf_fail(c, at, "tensor '%.*s' has %llu dimensions (at most 4)", (int)nlen,
                         name, (unsigned long long)nd);
    for (uint64_t d = 0; d < nd; d++) {
        uint64_t v;
        at = c->pos;
        if (rd(c, 8, "a tensor's shape", &v) < 0)
            return -1;
        if (v > (uint64_t)INT64_MAX)
            return gguf_fail(c, at, "tensor '%.*s' has a negative dimension", (int)nlen, name);
        ne[d] = (int64_t)v;
    }
    at = c->pos;
    if (rd(c, 4, "a tensor's type", &t) < 0 ||
        tensor_bytes(c, at, ne, (uint32_t)t, &bytes, &elems) < 0)
        return -1;
    at = c->pos;
    if (rd(c, 8, "a tensor's offset", &off) < 0)
        return -1;
    if (off != *next)
        return gguf_fail(c, at, "tensor '%.*s' at data offset %llu, expected %llu", (int)nlen,
                         name, (unsigned long long)off, (unsigned long long)*next);
    uint64_t padded = bytes + (align - bytes % align) % align;
    if (padded < bytes || *next > UINT64_MAX - padded)
        return gguf_fail(c, at, "the data section overflows 64 bits");
    *next += padded;
    if (c->adapter && !c->odd &&
        !(nlen > 7 && (memcmp(name + nlen - 7, ".lora_a", 7) == 0 ||
                       memcmp(name + nlen - 7, ".lora_b", 7) == 0))) {
        memcpy(c->odd_name, name, nlen);
        c->odd = c->odd_name;
        c->odd_len = nlen;
    }
    g->weight_bytes += (double)bytes;
    g->params += (double)elems;
    group_bytes(g, name, nlen, (double)bytes);
    return 0;
}

static int read_version(gguf_cur *c, kv_gguf_info *g)
{
    uint64_t v;
    if (rd(c, 4, "the version", &v) < 0)
        return -1;
    if (v == 1)
        return gguf_fail(c, 4, "GGUF version 1 (32-bit counts) is no longer supported: "
                               "convert the model again");
    if (v != 0 && (v & 0xFFFF) == 0)
        return gguf_fail(c, 4, "a big-endian GGUF file (version reads 0x%08llx): only "
                               "little-endian files are read", (unsigned long long)v);
    if (v != 2 && v != 3)
        return gguf_fail(c, 4, "unsupported GGUF version %llu (2 and 3 are read)",
                         (unsigned long long)v);
    g->version = (uint32_t)v;
    return 0;
}

/* The whole header: magic, version, counts, two walks of the metadata, the tensor infos. */
static int parse(gguf_cur *c, kv_spec *s, kv_model_info *info, kv_gguf_info *g)
{
    uint64_t n_t, n_kv, align = 32, next = 0;
    char arch[64] = "";
    gguf_meta m;
    memset(&m, 0, sizeof m);
    if (need(c, 4, "the magic") < 0)
        return -1;
    if (memcmp(c->p, "GGUF", 4) != 0)
        return gguf_fail(c, 0, "not a GGUF file (it does not start with 'GGUF')");
    c->pos = 4;
    if (read_version(c, g) < 0 || rd(c, 8, "the tensor count", &n_t) < 0)
        return -1;
    if (n_t > KV_GGUF_MAX_HEADER / 25) /* a tensor info takes at least 25 bytes */
        return gguf_fail(c, 8, "tensor count %llu is absurd", (unsigned long long)n_t);
    if (rd(c, 8, "the key/value count", &n_kv) < 0)
        return -1;
    if (n_kv > KV_GGUF_MAX_HEADER / 14) /* a pair takes at least 14 bytes */
        return gguf_fail(c, 16, "key/value count %llu is absurd", (unsigned long long)n_kv);
    g->n_tensors = (int64_t)n_t;
    g->n_kv = (int64_t)n_kv;
    if (walk_kv(c, n_kv, 0, arch, sizeof arch, &align, &m) < 0)
        return -1;
    size_t end_kv = c->pos, slots = 16;
    c->keep = end_kv; /* the metadata stays at hand (the second walk, the model rules) */
    while (slots < 2 * (size_t)n_t)
        slots *= 2;
    name_set ns = {calloc(slots, sizeof(name_slot)), slots - 1};
    if (!ns.slot)
        return gguf_fail(c, 8, "out of memory for %llu tensor names", (unsigned long long)n_t);
    int bad = 0;
    for (uint64_t i = 0; i < n_t && !bad; i++)
        bad = walk_tensor(c, align, &next, g, &ns, (size_t)i) < 0;
    free(ns.slot);
    if (bad)
        return -1;
    c->p = c->kv; /* back to the metadata */
    c->base = 0;
    c->len = c->kv_len;
    if (m.name)
        m.name = (const char *)c->p + m.name_at;
    g->alignment = align;
    g->data_offset = n_t ? (c->pos + align - 1) / align * align : c->pos;
    g->data_bytes = next;
    if (!arch[0])
        return gguf_fail(c, end_kv, "no general.architecture key");
    if (c->adapter) { /* llama_adapter_lora_init_impl: "LoRA tensor ... has unexpected suffix" */
        if (c->odd)
            return gguf_fail(c, 24, "not a LoRA adapter: tensor '%.*s' is no .lora_a / .lora_b "
                                    "(llama.cpp: \"has unexpected suffix\")",
                             (int)(c->odd_len > 64 ? 64 : c->odd_len), c->odd);
        kv_snprintf(g->architecture, sizeof g->architecture, "%s", arch);
        return 0;
    }
    c->pos = 24;
    if (walk_kv(c, n_kv, 1, arch, sizeof arch, &align, &m) < 0)
        return -1;
    kv_snprintf(g->architecture, sizeof g->architecture, "%s", arch);
    return gguf_apply(c, &m, arch, s, info, g);
}

int gguf_read_cur(gguf_cur *c, kv_spec *s, kv_model_info *info, kv_gguf_info *g)
{
    kv_spec tmp = *s;
    memset(g, 0, sizeof *g);
    memset(info, 0, sizeof *info);
    if (parse(c, &tmp, info, g) < 0)
        return KV_ERR_FORMAT;
    *s = tmp;
    return 0;
}

kv_status kv_gguf_adapter_read(const unsigned char *data, size_t len, const char *label,
                               kv_gguf_info *g, char *err, size_t errcap)
{
    kv_spec s;
    kv_model_info info;
    kv_spec_defaults(&s);
    gguf_cur c;
    gguf_cur_init(&c, data, len, label, err, errcap, 1);
    return gguf_read_cur(&c, &s, &info, g);
}

kv_status kv_gguf_read(const unsigned char *data, size_t len, const char *label, kv_spec *s,
                 kv_model_info *info, kv_gguf_info *g, char *err, size_t errcap)
{
    kv_gguf_info own; /* when the caller does not want it */
    gguf_cur c;
    gguf_cur_init(&c, data, len, label, err, errcap, 0);
    return gguf_read_cur(&c, s, info, g ? g : &own);
}
