/*
 * ollama_models.c - see ollama_models.h. The metadata of each model is its log's kv dump;
 * the tensor layout is the llama architecture's (token_embd, output_norm, output when not
 * tied, rope_freqs for Llama 3.1/3.2, and per block attn_norm, attn_q/k/v/output, ffn_norm,
 * ffn_gate/up/down, plus Granite-Code's seven biases), with the types llama.cpp's
 * quantizer (src/llama-quant.cpp, llama_tensor_get_type) gives a file type:
 *   Q4_0: every matrix Q4_0, the output head (or a tied token_embd) Q6_K;
 *   Q8_0: every matrix Q8_0;
 *   Q4_K_M: Q4_K, but attn_v and ffn_down Q6_K in the layers use_more_bits() picks
 *     (i < n/8, i >= 7n/8, or (i - n/8) % 3 == 2), and the output head (or a tied
 *     token_embd) Q6_K.
 * The type counts this gives match each log's "type q4_0: N tensors" lines.
 */
#include "ollama_models.h"

#include <stdio.h>
#include <string.h>

const char *const ollama_model_ids[] = {"llama3-8b-q4_0",     "llama3.1-8b-q4_0",
                                        "llama3.1-8b-q4_k_m", "llama3.2-3b-q4_k_m",
                                        "llama2-7b-q4_0",     "smollm2-1.7b-q8_0",
                                        "granite-code-8b-q4_0", "llama3-70b-q4_k_m", NULL};

enum { FT_Q4_0, FT_Q8_0, FT_Q4_K_M };

typedef struct {
    const char *id, *name;
    int64_t blocks, ctx, embd, ff, heads, kv_heads, vocab;
    int tied;        /* no output.weight: the output shares token_embd */
    int rope_freqs;  /* Llama 3.1 / 3.2: a rope_freqs.weight of head_dim / 2 */
    int biases;      /* Granite-Code: q, k, v, output, gate, up and down biases */
    int ftype;
} model_def;

static const model_def models[] = {
    /* tests/logs/ollama-o10.log (and O13): Meta-Llama-3-8B-Instruct, file type 2 */
    {"llama3-8b-q4_0", "Meta-Llama-3-8B-Instruct", 32, 8192, 4096, 14336, 32, 8, 128256, 0, 0,
     0, FT_Q4_0},
    /* ollama-o04.log: Meta Llama 3.1 8B Instruct, file type 2 */
    {"llama3.1-8b-q4_0", "Meta Llama 3.1 8B Instruct", 32, 131072, 4096, 14336, 32, 8, 128256,
     0, 1, 0, FT_Q4_0},
    /* ollama-o02.log: the same, file type 15 */
    {"llama3.1-8b-q4_k_m", "Meta Llama 3.1 8B Instruct", 32, 131072, 4096, 14336, 32, 8,
     128256, 0, 1, 0, FT_Q4_K_M},
    /* ollama-o12.log: Llama 3.2 3B Instruct, file type 15, tied */
    {"llama3.2-3b-q4_k_m", "Llama 3.2 3B Instruct", 28, 131072, 3072, 8192, 24, 8, 128256, 1,
     1, 0, FT_Q4_K_M},
    /* ollama-o23.log: Llama 2 7B (MHA), file type 2 */
    {"llama2-7b-q4_0", "LLaMA v2", 32, 4096, 4096, 11008, 32, 32, 32000, 0, 0, 0, FT_Q4_0},
    /* ollama-o01.log: Smollm2 1.7B 8k Mix7 Ep2 v2 (MHA), file type 7, tied */
    {"smollm2-1.7b-q8_0", "Smollm2 1.7B 8k Mix7 Ep2 v2", 24, 8192, 2048, 8192, 32, 32, 49152, 1,
     0, 0, FT_Q8_0},
    /* ollama-o06/o07/o08.log: Granite 8b Code Instruct 128k, file type 2, tied, biases */
    {"granite-code-8b-q4_0", "Granite 8b Code Instruct 128k", 36, 128000, 4096, 14336, 32, 8,
     49152, 1, 0, 1, FT_Q4_0},
    /* ollama-o18.log names no model: 81 layers, a 2.5 GiB cache at 8192 tokens (80 x 8192
     * x 256 x 8 x 2 B) and an 822.0 MiB Q6_K output layer (128256 x 8192) are Llama 3's
     * 70B (meta-llama__Llama-3.1-70B-Instruct.json: 80 layers, 8192, 28672, 64 / 8 heads);
     * its weights (repeating 39.9 GiB) are Q4_K_M's */
    {"llama3-70b-q4_k_m", "Llama 3 70B", 80, 131072, 8192, 28672, 64, 8, 128256, 0, 1, 0,
     FT_Q4_K_M},
};

static const model_def *find(const char *id)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].id, id) == 0)
            return &models[i];
    return NULL;
}

static int more_bits(int64_t i, int64_t n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/* The type of a matrix of block i (-1: the output head, -2: token_embd). */
static uint32_t type_of(const model_def *m, const char *what, int64_t i)
{
    int head = i == -1 || (i == -2 && m->tied);
    switch (m->ftype) {
    case FT_Q8_0:
        return GW_Q8_0;
    case FT_Q4_0:
        return head ? GW_Q6_K : GW_Q4_0;
    default:
        if (head)
            return GW_Q6_K;
        if (i >= 0 && (strcmp(what, "attn_v") == 0 || strcmp(what, "ffn_down") == 0) &&
            more_bits(i, m->blocks))
            return GW_Q6_K;
        return GW_Q4_K;
    }
}

/* Calls f for every tensor of m: its name, shape and type. */
static void each_tensor(const model_def *m,
                        void (*f)(void *ctx, const char *name, size_t nd, const int64_t *ne,
                                  uint32_t type),
                        void *ctx)
{
    const int64_t e = m->embd, kv = m->embd / m->heads * m->kv_heads, ff = m->ff;
    char name[64];
    int64_t ne[2];
    ne[0] = e, ne[1] = m->vocab;
    f(ctx, "token_embd.weight", 2, ne, type_of(m, "", -2));
    ne[0] = e;
    f(ctx, "output_norm.weight", 1, ne, GW_F32);
    if (!m->tied) {
        ne[0] = e, ne[1] = m->vocab;
        f(ctx, "output.weight", 2, ne, type_of(m, "", -1));
    }
    if (m->rope_freqs) {
        ne[0] = e / m->heads / 2;
        f(ctx, "rope_freqs.weight", 1, ne, GW_F32);
    }
    static const struct {
        const char *what;
        int in_kv, out_kv; /* K / V widths on either side */
        int ffn;           /* 1: e -> ff, 2: ff -> e */
    } mats[] = {{"attn_q", 0, 0, 0},   {"attn_k", 0, 1, 0}, {"attn_v", 0, 1, 0},
                {"attn_output", 0, 0, 0}, {"ffn_gate", 0, 0, 1}, {"ffn_up", 0, 0, 1},
                {"ffn_down", 0, 0, 2}};
    for (int64_t i = 0; i < m->blocks; i++) {
        snprintf(name, sizeof name, "blk.%lld.attn_norm.weight", (long long)i);
        ne[0] = e;
        f(ctx, name, 1, ne, GW_F32);
        snprintf(name, sizeof name, "blk.%lld.ffn_norm.weight", (long long)i);
        f(ctx, name, 1, ne, GW_F32);
        for (size_t k = 0; k < sizeof mats / sizeof mats[0]; k++) {
            int64_t in = mats[k].ffn == 2 ? ff : e;
            int64_t out = mats[k].ffn == 1 ? ff : mats[k].out_kv ? kv : e;
            snprintf(name, sizeof name, "blk.%lld.%s.weight", (long long)i, mats[k].what);
            ne[0] = in, ne[1] = out;
            f(ctx, name, 2, ne, type_of(m, mats[k].what, i));
            if (m->biases) {
                snprintf(name, sizeof name, "blk.%lld.%s.bias", (long long)i, mats[k].what);
                ne[0] = out;
                f(ctx, name, 1, ne, GW_F32);
            }
        }
    }
}

static void add_tensor(void *ctx, const char *name, size_t nd, const int64_t *ne, uint32_t type)
{
    gw_tensor((gguf_writer *)ctx, name, nd, ne, type);
}

typedef struct {
    const model_def *m;
    uint64_t all, left_out;
} sums;

static void sum_tensor(void *ctx, const char *name, size_t nd, const int64_t *ne, uint32_t type)
{
    sums *s = ctx;
    uint64_t n = 1;
    for (size_t d = 0; d < nd; d++)
        n *= (uint64_t)ne[d];
    uint64_t b = gw_type_bytes(type, n);
    s->all += b;
    if (strncmp(name, "rope_freqs", 10) == 0 ||
        (strncmp(name, "token_embd", 10) == 0 && !s->m->tied))
        s->left_out += b;
}

int ollama_model_build(const char *id, gguf_writer *w)
{
    const model_def *m = find(id);
    if (!m)
        return -1;
    static const char *tok[1 << 20]; /* empty tokens: only their count matters */
    for (int64_t i = 0; i < m->vocab; i++)
        tok[i] = "";
    gw_str(w, "general.architecture", "llama");
    gw_str(w, "general.name", m->name);
    gw_u32(w, "llama.block_count", (uint32_t)m->blocks);
    gw_u32(w, "llama.context_length", (uint32_t)m->ctx);
    gw_u32(w, "llama.embedding_length", (uint32_t)m->embd);
    gw_u32(w, "llama.feed_forward_length", (uint32_t)m->ff);
    gw_u32(w, "llama.attention.head_count", (uint32_t)m->heads);
    gw_u32(w, "llama.attention.head_count_kv", (uint32_t)m->kv_heads);
    gw_u32(w, "general.file_type", m->ftype == FT_Q4_0 ? 2 : m->ftype == FT_Q8_0 ? 7 : 15);
    gw_u32(w, "llama.vocab_size", (uint32_t)m->vocab);
    gw_u32(w, "llama.rope.dimension_count", (uint32_t)(m->embd / m->heads));
    gw_str_array(w, "tokenizer.ggml.tokens", tok, (size_t)m->vocab);
    each_tensor(m, add_tensor, w);
    return 0;
}

uint64_t ollama_model_bytes(const char *id, uint64_t *left_out)
{
    const model_def *m = find(id);
    sums s = {m, 0, 0};
    if (m)
        each_tensor(m, sum_tensor, &s);
    if (left_out)
        *left_out = s.left_out;
    return s.all;
}
