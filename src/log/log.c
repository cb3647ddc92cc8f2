/*
 * log.c - reading a vLLM, SGLang or llama.cpp startup log: a bounded line reader and one
 * table of line patterns per engine.
 *
 * A pattern is the line's own text with conversions: "%n" an integer (thousands commas
 * allowed), "%f" a decimal, "%b" a decimal and its unit (GiB, GB, MiB, MB: bytes; the
 * engines' "GB" is GiB), "%s" a word up to the pattern's next character, "%*" any text up
 * to what follows. A blank in a pattern matches any run of blanks, none included (engines
 * pad their columns). The pattern may start anywhere in the line, but never inside a word,
 * and everything in it must match: a number cut short or a unit missing is no match. That
 * is the strictness a log needs: prefixes, ranks and colours vary; the engine's words do not.
 */
#include "kvcalc.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CAPS 10

/* Where a conversion's value goes: a field (< KV_LOG_FIELDS) or one of these. */
enum {
    TO_SKIP = KV_LOG_FIELDS, /* read and dropped */
    TO_VERSION, TO_MODEL, TO_DTYPE, TO_KV_DTYPE, TO_QUANT, TO_TYPE_K, TO_TYPE_V,
    TO_ERA_V,   /* vLLM's "Initializing a V<n> LLM engine" */
    TO_FLASH,   /* llama.cpp flash_attn: 0, 1, auto, enabled, disabled */
    TO_UNIFIED, /* llama.cpp kv_unified: true / false */
    TO_WEIGHTS_ROUNDED /* vLLM's weights rounded to 0.01 in a summary line: only when "Model
                          loading took" (four decimals) is not there */
};

/* What matching a row means besides its values. */
#define KV_LINE 1u   /* a KV line: evidence of the engine, and of a finished startup */
#define START 2u     /* printed once per startup: after KV lines, a new startup begins */
#define MIN 4u       /* ranks print their own figure: keep the smallest (what the engine uses) */
#define SWA_ON 8u    /* llama.cpp: the next cache line is the sliding-window cache */
#define SWA_OFF 16u  /* llama.cpp: the next cache line is the main cache */
#define CACHE 32u    /* llama.cpp cache line: goes to the sliding-window fields after SWA_ON */

typedef struct {
    const char *pat;
    short to[MAX_CAPS];
    unsigned flags;
    const char *era; /* the line format this row shows, or NULL */
} log_pattern;

#define T(...) {__VA_ARGS__}

static const log_pattern vllm_rows[] = {
    {"vLLM API server version %s", T(TO_VERSION), START, NULL},
    {"Initializing a V%n LLM engine (v%s)", T(TO_ERA_V, TO_VERSION), START, NULL},
    {"non-default args: {", T(0), START, NULL},
    {"'model': '%s'", T(TO_MODEL), 0, NULL},
    {"model='%s'", T(TO_MODEL), 0, NULL},
    {"'model_tag': '%s'", T(TO_MODEL), 0, NULL},
    {"model_tag='%s'", T(TO_MODEL), 0, NULL},
    {"'max_model_len': %n", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"max_seq_len=%n,", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"max_model_len=%n,", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"'gpu_memory_utilization': %f", T(KV_LOG_UTIL), 0, NULL},
    {"gpu_memory_utilization=%f", T(KV_LOG_UTIL), 0, NULL},
    {"'tensor_parallel_size': %n", T(KV_LOG_TP), 0, NULL},
    {"tensor_parallel_size=%n", T(KV_LOG_TP), 0, NULL},
    {"'pipeline_parallel_size': %n", T(KV_LOG_PP), 0, NULL},
    {"pipeline_parallel_size=%n", T(KV_LOG_PP), 0, NULL},
    {"'max_num_batched_tokens': %n", T(KV_LOG_BATCHED_TOKENS), 0, NULL},
    {"'block_size': %n", T(KV_LOG_BLOCK_SIZE), 0, NULL},
    {"'dtype': '%s'", T(TO_DTYPE), 0, NULL},
    {"dtype=torch.%s,", T(TO_DTYPE), 0, NULL},
    {"'kv_cache_dtype': '%s'", T(TO_KV_DTYPE), 0, NULL},
    {"kv_cache_dtype=%s,", T(TO_KV_DTYPE), 0, NULL},
    {"'quantization': '%s'", T(TO_QUANT), 0, NULL},
    {"quantization=%s,", T(TO_QUANT), 0, NULL},
    {"Model loading took %b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"Loading model weights took %b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"total_gpu_memory (%b) x gpu_memory_utilization (%f) = %b",
     T(KV_LOG_GPU_TOTAL, KV_LOG_UTIL, KV_LOG_REQUESTED), 0, "V0"},
    {"model weights take %b; non_torch_memory takes %b; PyTorch activation peak memory takes "
     "%b; the rest of the memory reserved for KV Cache is %b",
     T(TO_WEIGHTS_ROUNDED, KV_LOG_NON_TORCH, KV_LOG_ACTIVATION, KV_LOG_AVAILABLE_KV), KV_LINE | MIN,
     "V0"},
    {"Free memory on device (%f/%b) on startup. Desired GPU memory utilization is (%f, %b). "
     "Actual usage is %b for weight, %b for peak activation, %b for non-torch memory, and %b "
     "for CUDAGraph memory",
     T(TO_SKIP, KV_LOG_GPU_TOTAL, KV_LOG_UTIL, KV_LOG_REQUESTED, TO_WEIGHTS_ROUNDED, KV_LOG_ACTIVATION,
       KV_LOG_NON_TORCH, KV_LOG_CUDA_GRAPH),
     0, "V1"},
    /* the same figures as a summary of a log gives them ("Free memory on device: F/T GiB") */
    {"Free memory on device: %f/%b", T(TO_SKIP, KV_LOG_GPU_TOTAL), 0, NULL},
    {"Model loading took: %b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"Available KV cache memory: %b", T(KV_LOG_AVAILABLE_KV), KV_LINE | MIN, "V1"},
    {"GPU KV cache size: %n tokens", T(KV_LOG_KV_TOKENS), KV_LINE, "V1"},
    {"Maximum concurrency for %n tokens per request: %fx",
     T(KV_LOG_CONCURRENCY_LEN, KV_LOG_CONCURRENCY), KV_LINE, NULL},
    {"# GPU blocks: %n", T(KV_LOG_BLOCKS), KV_LINE, NULL},
    {"# GPU blocks: %n, # CPU blocks:", T(TO_SKIP), 0, "V0"}, /* V0 before 0.7 */
    {"# cuda blocks: %n", T(KV_LOG_BLOCKS), KV_LINE, "V0"},
    {"# CUDA blocks: %n", T(KV_LOG_BLOCKS), KV_LINE, "V0"},
    {"The model's max seq len (%n) is larger than the maximum number of tokens that can be "
     "stored in KV cache (%n)",
     T(KV_LOG_MAX_MODEL_LEN, KV_LOG_KV_TOKENS), KV_LINE, NULL},
    {"num_gpu_blocks is: %n", T(KV_LOG_BLOCKS), KV_LINE, NULL},
};

static const log_pattern sglang_rows[] = {
    {"server_args=ServerArgs(", T(0), START, NULL},
    {"model_path='%s'", T(TO_MODEL), 0, NULL},
    {"mem_fraction_static=%f", T(KV_LOG_MEM_FRACTION), 0, NULL},
    {"tp_size=%n", T(KV_LOG_TP), 0, NULL},
    {"pp_size=%n", T(KV_LOG_PP), 0, NULL},
    {"dtype='%s'", T(TO_DTYPE), 0, NULL},
    {"kv_cache_dtype='%s'", T(TO_KV_DTYPE), 0, NULL},
    {"quantization='%s'", T(TO_QUANT), 0, NULL},
    {"page_size=%n", T(KV_LOG_PAGE_SIZE), 0, NULL},
    {"max_total_tokens=%n", T(KV_LOG_MAX_TOTAL_TOKENS), 0, NULL},
    {"chunked_prefill_size=%n", T(KV_LOG_CHUNKED_PREFILL), 0, NULL},
    {"Load weight begin. avail mem=%b", T(KV_LOG_AVAIL_BEFORE), MIN, NULL},
    {"Load weight end.%*dtype=torch.%s,", T(TO_DTYPE), 0, NULL},
    {"Load weight end.%*avail mem=%b", T(KV_LOG_AVAIL_AFTER), MIN, NULL},
    {"Load weight end.%*mem usage=%b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"Using KV cache dtype: torch.%s", T(TO_KV_DTYPE), 0, NULL},
    {"KV Cache is allocated.%*#tokens: %n,", T(KV_LOG_KV_TOKENS), KV_LINE, "#tokens"},
    {"KV Cache is allocated.%*K size: %b, V size: %b", T(KV_LOG_K_BYTES, KV_LOG_V_BYTES),
     KV_LINE, NULL}, /* without "#tokens" (no era set): 0.4.1.post6 to 0.4.3.post2 */
    {"KV Cache is allocated.%*KV size: %b", T(KV_LOG_KV_BYTES), KV_LINE, "MLA"},
    {"Memory pool end. avail mem=%b", T(KV_LOG_POOL_END), 0, NULL},
    {"max_total_num_tokens=%n,", T(KV_LOG_KV_TOKENS), KV_LINE, NULL},
    {"context_len=%n", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
};

static const log_pattern llamacpp_rows[] = {
    {"build: %n (%s)", T(KV_LOG_BUILD, TO_SKIP), START, NULL},
    {"build = %n (%s)", T(KV_LOG_BUILD, TO_SKIP), START, NULL},
    {"loaded meta data with %n key-value pairs and %n tensors from %s (version",
     T(TO_SKIP, TO_SKIP, TO_MODEL), START, NULL},
    {"file size = %b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"n_ctx = %n", T(KV_LOG_N_CTX), 0, NULL},
    /* the cache's cells, stated when slots split it (no size line may follow in a short log) */
    {"n_ctx is not divisible by n_seq_max - rounding down to %n", T(KV_LOG_N_CTX), KV_LINE,
     NULL},
    {"n_seq_max = %n", T(KV_LOG_N_SEQ), 0, NULL},
    {"n_slots = %n, n_ctx_slot = %n", T(KV_LOG_N_SEQ, KV_LOG_N_CTX_SLOT), 0, NULL},
    {"using n_parallel = %n and kv_unified = %s", T(KV_LOG_N_SEQ, TO_UNIFIED), 0, NULL},
    {"n_ubatch = %n", T(KV_LOG_N_UBATCH), 0, NULL},
    {"flash_attn = %s", T(TO_FLASH), 0, NULL},
    {"kv_unified = %s", T(TO_UNIFIED), 0, NULL},
    {"creating non-SWA KV cache", T(0), SWA_OFF, NULL},
    {"creating SWA KV cache", T(0), SWA_ON, NULL},
    {"size = %b ( %n cells, %n layers, %n/%n seqs), K (%s): %b, V (%s): %b",
     T(KV_LOG_KV_BYTES, KV_LOG_CELLS, KV_LOG_LAYERS, KV_LOG_N_SEQ, KV_LOG_STREAMS, TO_TYPE_K,
       KV_LOG_K_BYTES,
       TO_TYPE_V, KV_LOG_V_BYTES),
     KV_LINE | CACHE, "llama_kv_cache"},
    {"KV self size = %b, K (%s): %b, V (%s): %b",
     T(KV_LOG_KV_BYTES, TO_TYPE_K, KV_LOG_K_BYTES, TO_TYPE_V, KV_LOG_V_BYTES), KV_LINE,
     "KV self size"},
    {"kv self size = %b", T(KV_LOG_KV_BYTES), KV_LINE, "kv self size (pre-GGUF)"},
};

typedef struct {
    const log_pattern *rows;
    size_t n;
} engine_table;

/* In kv_log.cand order. */
static const engine_table tables[KV_LOG_ENGINES] = {
    {vllm_rows, sizeof vllm_rows / sizeof vllm_rows[0]},
    {sglang_rows, sizeof sglang_rows / sizeof sglang_rows[0]},
    {llamacpp_rows, sizeof llamacpp_rows / sizeof llamacpp_rows[0]},
};
static const kv_engine cand_engine[KV_LOG_ENGINES] = {KV_ENGINE_VLLM, KV_ENGINE_SGLANG,
                                                      KV_ENGINE_LLAMACPP};

static const char *const field_names[KV_LOG_FIELDS] = {
    "tensor_parallel_size", "pipeline_parallel_size", "max_model_len", "gpu_total",
    "gpu_memory_utilization", "requested", "max_num_batched_tokens", "block_size", "weights", "activation",
    "non_torch", "cuda_graph", "available_kv", "kv_tokens", "blocks", "max_concurrency",
    "concurrency_tokens", "mem_fraction_static", "avail_mem_before_load", "avail_mem_after_load",
    "mem_pool_end", "page_size", "max_total_tokens", "chunked_prefill_size", "k_size", "v_size",
    "kv_size", "build", "n_ctx", "n_seq_max", "n_ctx_slot", "n_ubatch", "flash_attn", "kv_unified", "cells",
    "layers", "streams", "swa_cells", "swa_layers", "swa_k_size", "swa_v_size",
};

const char *kv_log_field_name(kv_log_field f)
{
    return (unsigned)f < KV_LOG_FIELDS ? field_names[f] : NULL;
}

/* ---- matching ------------------------------------------------------------------------- */

typedef struct {
    double num;
    const char *str; /* %s: where it starts (num unused), else NULL */
    size_t len;
} capture;

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_word(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Digits with optional thousands commas ("93,872"); returns the end, or NULL. */
static const char *read_int(const char *s, double *out)
{
    const char *p = s;
    double v = 0;
    if (!is_digit(*p))
        return NULL;
    for (; is_digit(*p) || (*p == ',' && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[3]) &&
                            !is_digit(p[4]));
         p++)
        if (*p != ',')
            v = v * 10 + (*p - '0');
    if (*p == '.' && is_digit(p[1]))
        return NULL; /* a decimal is not an integer */
    *out = v;
    return p;
}

/* [-]digits[.digits] (at most 40 characters: a log's figures are short). */
static const char *read_decimal(const char *s, double *out)
{
    char buf[48];
    size_t n = 0;
    const char *p = s;
    if (*p == '-')
        buf[n++] = *p++;
    if (!is_digit(*p))
        return NULL;
    int point = 0;
    while ((is_digit(*p) || (*p == '.' && !point && is_digit(p[1]))) && n < 40) {
        point |= *p == '.';
        buf[n++] = *p++;
    }
    if (is_digit(*p) || *p == '.')
        return NULL;
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    return p;
}

/* A decimal and its unit, in bytes ("79.15GiB", "27.13 GB", "512.00 MiB"). */
static const char *read_bytes(const char *s, double *out)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"GiB", KV_GIB}, {"GB", KV_GIB}, {"MiB", KV_MIB}, {"MB", KV_MIB}};
    double v;
    const char *p = read_decimal(s, &v);
    if (!p)
        return NULL;
    while (is_blank(*p))
        p++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t n = strlen(units[i].unit);
        if (strncmp(p, units[i].unit, n) == 0 && !is_word(p[n])) {
            *out = v * units[i].scale;
            return p + n;
        }
    }
    return NULL;
}

/* Matches pattern p at s (the line ends at its NUL); fills caps[n...]. Returns 1, 0, or -1
 * when the text after a "%*" is nowhere in the rest of the line (then no later start can
 * match either: a line with thousands of starts stays linear). */
static int match_at(const char *p, const char *s, capture *caps, int n)
{
    while (*p) {
        if (*p == ' ') { /* any run of blanks, or none */
            while (is_blank(*s))
                s++;
            p++;
            continue;
        }
        if (*p != '%') {
            if (*p != *s)
                return 0;
            p++, s++;
            continue;
        }
        char conv = p[1];
        p += 2;
        if (conv == '*') { /* the rest may start anywhere further on */
            for (; *s; s++)
                if (match_at(p, s, caps, n) == 1)
                    return 1;
            return -1; /* nor after a later start of the pattern: stop looking */
        }
        if (n >= MAX_CAPS)
            return 0;
        capture *c = &caps[n++];
        c->str = NULL;
        if (conv == 's') { /* up to the pattern's next character (a blank: any blank) */
            const char *start = s;
            while (*s && (*p == ' ' ? !is_blank(*s) : *s != *p))
                s++;
            if (s == start || s - start > 255)
                return 0;
            c->str = start;
            c->len = (size_t)(s - start);
            continue;
        }
        s = conv == 'n' ? read_int(s, &c->num)
            : conv == 'f' ? read_decimal(s, &c->num)
                          : read_bytes(s, &c->num);
        if (!s)
            return 0;
    }
    return 1;
}

/* The pattern's leading literal: where a match can start. */
static size_t anchor_len(const char *p)
{
    size_t n = 0;
    while (p[n] && p[n] != '%' && p[n] != ' ')
        n++;
    return n;
}

/* Which byte pairs a line holds, hashed into 4,096 bits: a pattern whose first two bytes
 * the line lacks is skipped without a search. Nearly every line of a long log holds none
 * of the patterns; this keeps a gigabyte to seconds. */
#define PAIR_BITS 4096u
typedef struct {
    unsigned char bit[PAIR_BITS / 8];
} pair_filter;

static unsigned pair_hash(unsigned char a, unsigned char b)
{
    return ((unsigned)a * 31u + b) % PAIR_BITS;
}

static void pair_fill(pair_filter *f, const char *line)
{
    memset(f->bit, 0, sizeof f->bit);
    for (const unsigned char *u = (const unsigned char *)line; u[0] && u[1]; u++) {
        unsigned h = pair_hash(u[0], u[1]);
        f->bit[h / 8] |= (unsigned char)(1u << (h % 8));
    }
}

static int pair_may_hold(const pair_filter *f, const char *p)
{
    unsigned h = pair_hash((unsigned char)p[0], (unsigned char)p[1]);
    return f->bit[h / 8] >> (h % 8) & 1u;
}

/* Finds pattern p anywhere in line (never inside a word); returns captures or -1. */
static int match_line(const char *p, const char *line, const pair_filter *f, capture *caps)
{
    char anchor[64];
    size_t an = anchor_len(p);
    if (an == 0 || an >= sizeof anchor || (an >= 2 && !pair_may_hold(f, p)))
        return -1; /* every pattern starts with a short literal */
    memcpy(anchor, p, an);
    anchor[an] = '\0';
    for (const char *at = strstr(line, anchor); at; at = strstr(at + 1, anchor)) {
        if (at > line && is_word(p[0]) && is_word(at[-1]))
            continue;
        int m = match_at(p, at, caps, 0);
        if (m < 0)
            break;
        if (m == 1) {
            int n = 0;
            for (const char *q = p; (q = strchr(q, '%')) != NULL; q += 2)
                n += q[1] != '*';
            return n;
        }
    }
    return -1;
}

/* ---- storing what matched ------------------------------------------------------------- */

static void copy_text(char *dst, size_t cap, const capture *c)
{
    size_t n = c->len < cap - 1 ? c->len : cap - 1;
    const char *s = c->str;
    if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) { /* 'false' */
        s++;
        n -= 2;
    }
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static void set_field(kv_log_values *v, int f, double x, unsigned flags)
{
    if (flags & MIN && v->present[f] && v->v[f] <= x)
        return;
    v->v[f] = x;
    v->present[f] = 1;
}

/* llama.cpp flash_attn: "0"/"1" (old), "auto", "enabled", "disabled", "on", "off". */
static int flash_mode(const char *t, int *out)
{
    static const struct {
        const char *name;
        int mode;
    } modes[] = {{"0", KV_FLASH_OFF}, {"1", KV_FLASH_ON},         {"auto", KV_FLASH_AUTO},
                 {"on", KV_FLASH_ON}, {"off", KV_FLASH_OFF},      {"enabled", KV_FLASH_ON},
                 {"disabled", KV_FLASH_OFF}, {"true", KV_FLASH_ON}, {"false", KV_FLASH_OFF}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(t, modes[i].name) == 0)
            return *out = modes[i].mode, 0;
    return -1;
}

/* The sliding-window counterpart of a llama.cpp cache field. */
static int swa_field(int f)
{
    switch (f) {
    case KV_LOG_CELLS:
        return KV_LOG_SWA_CELLS;
    case KV_LOG_LAYERS:
        return KV_LOG_SWA_LAYERS;
    case KV_LOG_K_BYTES:
        return KV_LOG_SWA_K_BYTES;
    case KV_LOG_V_BYTES:
        return KV_LOG_SWA_V_BYTES;
    default:
        return TO_SKIP; /* the total, the types and the sequences are the main cache's */
    }
}

/* The text members a conversion may fill, by TO_ value. */
static const struct {
    int to;
    size_t offset, cap;
} text_members[] = {
#define TM(t, m) {t, offsetof(kv_log_values, m), sizeof(((kv_log_values *)0)->m)}
    TM(TO_VERSION, version), TM(TO_MODEL, model),   TM(TO_DTYPE, dtype),  TM(TO_KV_DTYPE, kv_dtype),
    TM(TO_QUANT, quantization), TM(TO_TYPE_K, type_k), TM(TO_TYPE_V, type_v),
#undef TM
};

static void put_text(kv_log_values *v, int to, const char *text)
{
    for (size_t i = 0; i < sizeof text_members / sizeof text_members[0]; i++) {
        if (text_members[i].to != to)
            continue;
        char *dst = (char *)v + text_members[i].offset;
        size_t n = strlen(text);
        if (n >= text_members[i].cap)
            n = text_members[i].cap - 1; /* a cut name is still shown; it is not matched on */
        memcpy(dst, text, n);
        dst[n] = '\0';
    }
}

static void store(kv_log_values *v, const log_pattern *row, const capture *caps, int n)
{
    char text[256];
    int swa = (row->flags & CACHE) && v->swa_next;
    for (int i = 0; i < n; i++) {
        int to = row->to[i];
        if (swa)
            to = to == TO_TYPE_K || to == TO_TYPE_V ? TO_SKIP : swa_field(to);
        if (to == TO_WEIGHTS_ROUNDED && !v->present[KV_LOG_WEIGHTS])
            to = KV_LOG_WEIGHTS;
        if (to < KV_LOG_FIELDS) {
            set_field(v, to, caps[i].num, row->flags);
            continue;
        }
        if (caps[i].str)
            copy_text(text, sizeof text, &caps[i]);
        else
            snprintf(text, sizeof text, "%.0f", caps[i].num);
        int mode;
        if (to == TO_FLASH && flash_mode(text, &mode) == 0)
            set_field(v, KV_LOG_FLASH_ATTN, mode, 0);
        else if (to == TO_UNIFIED && flash_mode(text, &mode) == 0) /* true/false, 1/0 */
            set_field(v, KV_LOG_KV_UNIFIED, mode != KV_FLASH_OFF, 0);
        else if (to == TO_ERA_V)
            snprintf(v->era, sizeof v->era, "V%d", (int)(caps[i].num < 10 ? caps[i].num : 9));
        else
            put_text(v, to, text);
    }
    if (row->flags & CACHE)
        v->swa_next = 0;
}

static void apply_row(kv_log_values *v, const log_pattern *row, const capture *caps, int n,
                      long line_no)
{
    if (row->flags & START && v->kv_lines > 0) { /* a new startup: forget the last one */
        int startups = v->startups;
        memset(v, 0, sizeof *v);
        v->startups = startups + 1;
    }
    if (v->startups == 0)
        v->startups = 1;
    store(v, row, caps, n);
    if (row->era)
        snprintf(v->era, sizeof v->era, "%s", row->era);
    if (row->flags & SWA_ON)
        v->swa_next = 1;
    if (row->flags & SWA_OFF)
        v->swa_next = 0;
    if (row->flags & KV_LINE) {
        v->kv_lines++;
        v->last_kv_line = line_no;
    }
}

/* ---- cleaning a line ------------------------------------------------------------------ */

/* Removes ANSI escapes (CSI "ESC [ ... final", and two-byte ones) and everything up to the
 * last carriage return that is followed by text (a progress bar redrawn in place). */
static size_t strip_escapes(char *s, size_t len)
{
    size_t out = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1b) {
            if (i + 1 < len && s[i + 1] == '[') {
                i += 2;
                while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
                    i++;
            } else {
                i++;
            }
            continue;
        }
        if (c == '\r') {
            if (i + 1 < len)
                out = 0;
            continue;
        }
        s[out++] = c == '\0' ? '?' : (char)c; /* a NUL must not end the line early */
    }
    s[out] = '\0';
    return out;
}

/* Length of a known prefix at s, or 0: "[...]" (timestamps, "[gpu_worker.py:1]"),
 * "(VllmWorker rank=0 pid=1)", "INFO", "WARNING", "INFO 07-22", "10:00:00", a Docker
 * timestamp "2025-01-01T10:00:00.123Z", llama.cpp's "0.10.095.546 W". */
static size_t prefix_len(const char *s)
{
    static const char *const levels[] = {"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "I", "W",
                                         "E", "D"};
    char close = s[0] == '[' ? ']' : s[0] == '(' ? ')' : 0;
    if (close) {
        const char *e = strchr(s, close);
        return e && e - s < 200 ? (size_t)(e - s + 1) : 0;
    }
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        size_t n = strlen(levels[i]);
        if (strncmp(s, levels[i], n) == 0 && (s[n] == ' ' || s[n] == ':'))
            return n + 1;
    }
    /* a date, a time or a counter: digits and - : . T Z , only, then a blank */
    size_t n = 0;
    while (is_digit(s[n]) || (n > 0 && strchr("-:.TZ,/", s[n]) && s[n] != '\0'))
        n++;
    return n > 0 && is_digit(s[0]) && (s[n] == ' ' || s[n] == '\t') && n >= 4 ? n : 0;
}

char *kv_log_clean(char *line, size_t *len)
{
    *len = strip_escapes(line, *len);
    char *s = line;
    for (int guard = 0; guard < 16; guard++) {
        while (is_blank(*s))
            s++;
        size_t n = prefix_len(s);
        if (n == 0)
            break;
        s += n;
    }
    while (is_blank(*s))
        s++;
    *len -= (size_t)(s - line);
    return s;
}

/* ---- the reader ----------------------------------------------------------------------- */

void kv_log_init(kv_log *lg)
{
    memset(lg, 0, sizeof *lg);
    lg->engine = KV_ENGINE_COUNT;
}

void kv_log_feed(kv_log *lg, const char *line, size_t len)
{
    char *buf = lg->scratch;
    capture caps[MAX_CAPS];
    lg->lines++;
    if (len > KV_LOG_LINE_MAX) {
        lg->overlong++;
        return;
    }
    memcpy(buf, line, len);
    buf[len] = '\0';
    char *s = kv_log_clean(buf, &len);
    pair_filter f;
    pair_fill(&f, s);
    for (size_t e = 0; e < KV_LOG_ENGINES; e++)
        for (size_t i = 0; i < tables[e].n; i++) {
            int n = match_line(tables[e].rows[i].pat, s, &f, caps);
            if (n >= 0)
                apply_row(&lg->cand[e], &tables[e].rows[i], caps, n, lg->lines);
        }
}

int kv_log_finish(kv_log *lg)
{
    long best = 0;
    lg->engine = KV_ENGINE_COUNT;
    for (size_t e = 0; e < KV_LOG_ENGINES; e++)
        if (lg->cand[e].last_kv_line > best) {
            best = lg->cand[e].last_kv_line;
            lg->engine = cand_engine[e];
            lg->values = lg->cand[e];
        }
    return lg->engine == KV_ENGINE_COUNT ? -1 : 0;
}

/* Feeds every complete line of f; a line longer than the buffer is skipped whole. */
static int read_lines(FILE *f, kv_log *lg, char *line, char *chunk, size_t chunk_cap)
{
    size_t len = 0, got;
    int skipping = 0;
    while ((got = fread(chunk, 1, chunk_cap, f)) > 0) {
        const char *p = chunk, *end = chunk + got;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((nl ? nl : end) - p);
            if (!skipping && len + n <= KV_LOG_LINE_MAX) {
                memcpy(line + len, p, n);
                len += n;
            } else if (!skipping) {
                skipping = 1;
            }
            if (!nl)
                break;
            if (skipping) { /* counted as a line too long to read */
                lg->lines++;
                lg->overlong++;
            } else {
                kv_log_feed(lg, line, len);
            }
            len = 0;
            skipping = 0;
            p = nl + 1;
        }
    }
    if (ferror(f))
        return -1;
    lg->unterminated = len > 0 || skipping; /* a cut last line could match falsely: dropped */
    return 0;
}

int kv_log_read_file(const char *path, const char *label, kv_log *lg, char *err,
                     size_t errcap)
{
    int from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    kv_log_init(lg);
    if (!f) {
        snprintf(err, errcap, "kvcalc: --from-log %s: cannot open: %s", label, strerror(errno));
        return 2;
    }
    enum { CHUNK = 1 << 16 };
    char *line = malloc(KV_LOG_LINE_MAX + 1 + CHUNK);
    int rc = line ? read_lines(f, lg, line, line + KV_LOG_LINE_MAX + 1, CHUNK) : -1;
    int saved = line ? errno : ENOMEM;
    free(line);
    if (!from_stdin)
        fclose(f);
    if (rc != 0) {
        snprintf(err, errcap, "kvcalc: --from-log %s: cannot read: %s", label, strerror(saved));
        return 2;
    }
    if (kv_log_finish(lg) != 0) {
        snprintf(err, errcap,
                 "kvcalc: --from-log %s: not a startup log kvcalc recognises (looked for vLLM's "
                 "\"Available KV cache memory\" / \"GPU KV cache size\" / \"# GPU blocks\", "
                 "SGLang's \"KV Cache is allocated\" / \"max_total_num_tokens=\", llama.cpp's "
                 "\"llama_kv_cache: size =\" / \"KV self size\")",
                 label);
        return 2;
    }
    return 0;
}
