/*
 * gguf_model.c - the metadata of a GGUF header as a kv_spec (gguf.md §9): which layers keep
 * a KV cache, which slide, which keep a recurrent state, and the head sizes.
 *
 * What kv_spec can hold and what is approximated:
 * - Layers without any cache (Nemotron-H MLP layers, Gemma-3n/4 layers that reuse earlier
 *   caches, NextN/MTP blocks outside the main cache) are left out of `layers`; the layout
 *   lists the remaining layers in order.
 * - One KV head count for all layers: where head_count_kv differs between attention layers
 *   (OpenELM, DeciLM) the largest is used (an upper bound); kv_gguf_info keeps every layer's.
 * - One head size: K and V may differ (MLA-less DeepSeek, Gemma 4): head_dim is their mean,
 *   rounded up, so 2 x head_dim = K + V exactly when the sum is even; both stay in
 *   kv_gguf_info. Sliding layers' own sizes (*_swa) are kept there too, not in the spec.
 * - Falcon-H1 layers hold both an attention cache and an SSM state: each layer is an
 *   attention layer in the pattern and a state layer too (layout.parallel_state).
 * - Encoders (BERT family) are read as all-full attention (llama.cpp before b5312).
 * - The recurrent state: (conv_kernel - 1) x (inner + 2 x groups x state) + inner x state
 *   elements per layer from the ssm.* keys (Mamba-2, gated delta net); unknown otherwise.
 */
#define KVCALC_ENGINES /* kv_lora_files */
#include "gguf.h"
#include "kvprint.h"

#include <stdio.h>
#include <string.h>

#define MAX_DIM 1000000000LL /* heads, head sizes, widths */
#define MAX_TOKENS 1000000000000LL

enum { K_NONE = KV_LAYER_KINDS }; /* a layer without cache or state */

enum {
    R_SWA = 1,        /* the arch's period applies when a window is given */
    R_SWA_ARRAY = 2,  /* a BOOL-array pattern key says which layers slide */
    R_INTERVAL = 4,   /* every full_attention_interval-th layer is attention, else state */
    R_KV0_STATE = 8,  /* head_count_kv 0 in a layer = a recurrent layer */
    R_FFN_NEMO = 16,  /* Nemotron-H: attention = kv > 0 and ffn 0; state = both 0 */
    R_STATE = 32,     /* state only (Mamba, RWKV) */
    R_NEXTN_OUT = 64, /* trailing NextN blocks are out of the main cache */
    R_CHUNKED = 128,  /* Llama-4: the period's local layers are chunked */
    R_NO_SWA = 256,   /* a sliding_window key is ignored (phi3) */
    R_FIRST20 = 512,  /* Gemma-3n: caches only in the first 20 layers */
    R_SHARED = 1024,  /* Gemma 4: caches only in the first block_count - shared_kv_layers */
    R_PARALLEL = 2048 /* Falcon-H1: every layer attention and a recurrent state both */
};

typedef struct {
    const char *name;
    int period;             /* sliding period p: layer l slides when l % p < p - 1 */
    int64_t window_default; /* when the key is absent */
    unsigned flags;
} arch_rule;

static const arch_rule rules[] = {
    {"llama", 0, 0, 0}, {"qwen2", 0, 0, 0}, {"qwen3", 0, 0, 0}, {"qwen3moe", 0, 0, 0},
    {"qwen2moe", 0, 0, 0}, {"mistral3", 0, 0, 0}, {"gptneox", 0, 0, 0}, {"glm4", 0, 0, 0},
    {"smollm3", 0, 0, 0}, {"granite", 0, 0, 0}, {"granitemoe", 0, 0, 0}, {"phi2", 0, 0, 0},
    {"phi3", 0, 0, R_NO_SWA}, {"falcon", 0, 0, 0}, {"gpt2", 0, 0, 0}, {"starcoder2", 0, 0, 0},
    {"command-r", 0, 0, 0}, {"olmoe", 0, 0, 0}, {"stablelm", 0, 0, 0}, {"gemma", 0, 0, 0},
    {"openelm", 0, 0, 0}, {"deci", 0, 0, 0}, {"deepseek", 0, 0, 0}, {"deepseek2", 0, 0, 0},
    {"glm4moe", 0, 0, 0}, {"falcon-h1", 0, 0, R_PARALLEL},
    {"deepseek32", 0, 0, R_NEXTN_OUT}, {"glm-dsa", 0, 0, R_NEXTN_OUT},
    {"gemma2", 2, 4096, R_SWA}, {"gemma3", 6, 0, R_SWA}, {"gemma3n", 5, 0, R_SWA | R_FIRST20},
    {"gemma4", 0, 0, R_SWA_ARRAY | R_SHARED}, {"gpt-oss", 2, 0, R_SWA},
    {"cohere2", 4, 0, R_SWA}, {"llama4", 4, 8192, R_CHUNKED}, {"olmo2", 4, 0, R_SWA},
    {"exaone4", 4, 0, R_SWA}, {"mimo2", 0, 0, R_SWA_ARRAY}, {"step35", 0, 0, R_SWA_ARRAY},
    {"mellum", 0, 0, R_SWA_ARRAY}, {"granite_swa", 0, 0, R_SWA_ARRAY},
    {"dots3note", 0, 0, R_SWA_ARRAY},
    {"qwen3next", 0, 0, R_INTERVAL | R_NEXTN_OUT}, {"qwen35", 0, 0, R_INTERVAL | R_NEXTN_OUT},
    {"qwen35moe", 0, 0, R_INTERVAL | R_NEXTN_OUT}, {"minimax-01", 0, 0, R_INTERVAL},
    {"jamba", 0, 0, R_KV0_STATE}, {"granitehybrid", 0, 0, R_KV0_STATE},
    {"lfm2", 0, 0, R_KV0_STATE | R_SWA}, {"lfm2moe", 0, 0, R_KV0_STATE | R_SWA},
    {"plamo2", 0, 0, R_KV0_STATE}, {"kimi-linear", 0, 0, R_KV0_STATE},
    {"bailingmoe3", 0, 0, R_KV0_STATE}, {"nemotron_h", 0, 0, R_FFN_NEMO},
    {"nemotron_h_moe", 0, 0, R_FFN_NEMO}, {"mamba", 0, 0, R_STATE}, {"mamba2", 0, 0, R_STATE},
    {"rwkv6", 0, 0, R_STATE}, {"rwkv6qwen2", 0, 0, R_STATE}, {"rwkv7", 0, 0, R_STATE},
    {"arwkv7", 0, 0, R_STATE},
};

/* The reading context: the cursor (for messages), the kept keys, the arch's rule. */
typedef struct {
    gguf_cur *c;
    const gguf_meta *m;
    const char *arch;
    arch_rule rule;
    int64_t L; /* block_count */
} ctx;

static int is_int_type(uint32_t t)
{
    return t <= 5 || t == 10 || t == 11;
}

/* Element i of an integer value (scalar: i ignored); -1 for a negative one. */
static int64_t int_at(const ctx *x, const gguf_value *v, uint64_t i)
{
    static const unsigned size[12] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8};
    uint32_t t = v->type == 9 ? v->elem_type : v->type;
    unsigned n = size[t];
    uint64_t raw = gguf_le(x->c->p + v->at + (v->type == 9 ? i * n : 0), n);
    int is_signed = t == 1 || t == 3 || t == 5 || t == 11;
    if (is_signed && (raw >> (n * 8 - 1)) & 1)
        return -1;
    return raw > (uint64_t)INT64_MAX ? -1 : (int64_t)raw;
}

static int key_fail(const ctx *x, gguf_key k, const char *what)
{
    return gguf_fail(x->c, x->m->v[k].key_at, "%s.%s %s", x->arch, gguf_key_suffix[k], what);
}

/* A scalar integer key in [lo, hi]: 1 read, 0 absent (out keeps its value), -1 error. */
static int get_int(const ctx *x, gguf_key k, int64_t lo, int64_t hi, int64_t *out)
{
    const gguf_value *v = &x->m->v[k];
    if (!v->present)
        return 0;
    if (!is_int_type(v->type))
        return key_fail(x, k, "must be an integer");
    int64_t n = int_at(x, v, 0);
    if (n < lo || n > hi) {
        char msg[80];
        kv_snprintf(msg, sizeof msg, "must be between %lld and %lld", (long long)lo, (long long)hi);
        return key_fail(x, k, msg);
    }
    *out = n;
    return 1;
}

/* A per-layer integer key (a scalar or an array of block_count integers) is well-formed. */
static int check_layers(const ctx *x, gguf_key k, int want_bool)
{
    const gguf_value *v = &x->m->v[k];
    if (!v->present)
        return 0;
    uint32_t t = v->type == 9 ? v->elem_type : v->type;
    if (want_bool ? (v->type != 9 || t != 7) : !is_int_type(t))
        return key_fail(x, k, want_bool ? "must be an array of BOOL" : "must be integers");
    if (v->type == 9 && v->count != (uint64_t)x->L) {
        char msg[96];
        kv_snprintf(msg, sizeof msg, "has %llu elements, not block_count (%lld)",
                 (unsigned long long)v->count, (long long)x->L);
        return key_fail(x, k, msg);
    }
    for (uint64_t i = 0; !want_bool && i < (v->type == 9 ? v->count : 1); i++)
        if (int_at(x, v, i) < 0 || int_at(x, v, i) > MAX_DIM)
            return key_fail(x, k, "has a value out of range");
    return 1;
}

static int64_t layer_int(const ctx *x, gguf_key k, int64_t l, int64_t dflt)
{
    const gguf_value *v = &x->m->v[k];
    return v->present ? int_at(x, v, v->type == 9 ? (uint64_t)l : 0) : dflt;
}

static int layer_bool(const ctx *x, gguf_key k, int64_t l)
{
    return x->c->p[x->m->v[k].at + (size_t)l] != 0;
}

/* The kind of every layer (gguf.md §9.1). */
static int layer_kinds(const ctx *x, int64_t n, int64_t window, int64_t period,
                       unsigned char *kind)
{
    unsigned f = x->rule.flags;
    int64_t interval = 4, shared = 0, first = n;
    if (get_int(x, GK_FULL_INTERVAL, 1, KV_GGUF_MAX_LAYERS, &interval) < 0 ||
        get_int(x, GK_SHARED_KV, 0, x->L, &shared) < 0)
        return -1;
    if (f & R_FIRST20)
        first = n < 20 ? n : 20;
    if (f & R_SHARED)
        first = n - shared < 0 ? 0 : n - shared;
    int pattern_array = x->m->v[GK_SWA_PATTERN].present && x->m->v[GK_SWA_PATTERN].type == 9;
    for (int64_t l = 0; l < n; l++) {
        int64_t kv = layer_int(x, GK_KV_HEADS, l, layer_int(x, GK_HEADS, l, 0));
        int swa = window > 0 &&
                  (pattern_array ? layer_bool(x, GK_SWA_PATTERN, l)
                                 : period >= 0 && (period == 0 || l % period < period - 1));
        unsigned char k = swa ? (f & R_CHUNKED ? KV_LAYER_CHUNKED : KV_LAYER_SLIDING)
                              : KV_LAYER_FULL;
        if (f & R_STATE)
            k = KV_LAYER_STATE;
        else if (f & R_INTERVAL)
            k = (x->m->v[GK_RECURRENT].present ? !layer_bool(x, GK_RECURRENT, l)
                                               : (l + 1) % interval == 0)
                    ? k : KV_LAYER_STATE;
        else if (f & R_FFN_NEMO)
            k = layer_int(x, GK_FFN, l, 0) != 0 ? K_NONE : kv > 0 ? k : KV_LAYER_STATE;
        else if (kv == 0)
            k = f & R_KV0_STATE ? KV_LAYER_STATE : K_NONE;
        if (l >= first)
            k = K_NONE;
        kind[l] = k;
    }
    return 0;
}

static const arch_rule *find_rule(const char *arch)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].name, arch) == 0)
            return &rules[i];
    return NULL;
}

/* The sliding window and its period; -1 as period: no sliding at all. */
static int read_window(const ctx *x, int64_t *window, int64_t *period)
{
    unsigned f = x->rule.flags;
    *window = x->rule.window_default;
    *period = x->rule.period;
    if (get_int(x, GK_WINDOW, 0, MAX_TOKENS, window) < 0)
        return -1;
    const gguf_value *p = &x->m->v[GK_SWA_PATTERN];
    if (p->present && p->type == 9) {
        if (check_layers(x, GK_SWA_PATTERN, 1) < 0)
            return -1;
    } else if (get_int(x, GK_SWA_PATTERN, 0, KV_GGUF_MAX_LAYERS, period) < 0) {
        return -1;
    } else if (!p->present && !(f & (R_SWA | R_CHUNKED))) {
        *period = -1; /* no rule and no key: the window alone makes nothing slide */
    }
    if ((f & R_SWA_ARRAY) && !(p->present && p->type == 9))
        *period = -1;
    if (f & R_NO_SWA)
        *window = 0;
    return 0;
}

/* Elements of recurrent state per layer, or -1 when the keys do not give it; the conv (R)
 * and SSM (S) parts into g, which llama.cpp prints apart. */
static int64_t state_elems(const ctx *x, kv_gguf_info *g)
{
    int64_t conv = 0, inner = 0, state = 0, groups = 1;
    if (get_int(x, GK_SSM_CONV, 1, MAX_DIM, &conv) < 0 ||
        get_int(x, GK_SSM_INNER, 1, MAX_DIM, &inner) < 0 ||
        get_int(x, GK_SSM_STATE, 1, MAX_DIM, &state) < 0 ||
        get_int(x, GK_SSM_GROUPS, 1, MAX_DIM, &groups) < 0)
        return -2;
    if (!conv || !inner || !state)
        return -1;
    double r = (double)(conv - 1) * ((double)inner + 2.0 * (double)groups * (double)state);
    double e = r + (double)inner * (double)state;
    if (e > 4e18) {
        gguf_fail(x->c, x->m->v[GK_SSM_INNER].key_at, "%s: a recurrent state of %.3g "
                  "elements per layer is absurd", x->arch, e);
        return -2;
    }
    g->state_r_row = (int64_t)r;
    g->state_s_row = inner * state;
    return (int64_t)e;
}

/* Head sizes: key/value_length, else embedding / head_count; MLA. */
static int head_sizes(const ctx *x, kv_gguf_info *g)
{
    int64_t dflt = g->head_count > 0 ? g->embedding_length / g->head_count : 0;
    int64_t mk = 0, mv = 0;
    g->key_length = g->value_length = dflt;
    if (get_int(x, GK_KEY_LEN, 1, MAX_DIM, &g->key_length) < 0 ||
        get_int(x, GK_VALUE_LEN, 1, MAX_DIM, &g->value_length) < 0)
        return -1;
    g->key_length_swa = g->key_length;
    g->value_length_swa = g->value_length;
    g->rope_dims = g->key_length;
    if (get_int(x, GK_KEY_LEN_SWA, 1, MAX_DIM, &g->key_length_swa) < 0 ||
        get_int(x, GK_VALUE_LEN_SWA, 1, MAX_DIM, &g->value_length_swa) < 0 ||
        get_int(x, GK_KEY_LEN_MLA, 1, MAX_DIM, &mk) < 0 ||
        get_int(x, GK_VALUE_LEN_MLA, 1, MAX_DIM, &mv) < 0 ||
        get_int(x, GK_KV_LORA, 0, MAX_DIM, &g->kv_lora_rank) < 0 ||
        get_int(x, GK_ROPE_DIMS, 0, MAX_DIM, &g->rope_dims) < 0)
        return -1;
    g->mla = mk > 0 && mv > 0 && g->kv_lora_rank > 0;
    return 0;
}

/* The numbers every architecture has. */
static int basics(ctx *x, kv_gguf_info *g)
{
    if (get_int(x, GK_BLOCK_COUNT, 1, KV_GGUF_MAX_LAYERS, &x->L) <= 0)
        return x->m->v[GK_BLOCK_COUNT].present
                   ? -1
                   : gguf_fail(x->c, 24, "no %s.block_count key", x->arch);
    g->block_count = x->L;
    if (get_int(x, GK_CONTEXT, 0, MAX_TOKENS, &g->context_length) < 0 ||
        get_int(x, GK_EMBEDDING, 0, MAX_DIM, &g->embedding_length) < 0 ||
        get_int(x, GK_NEXTN, 0, x->L - 1, &g->nextn_layers) < 0 ||
        check_layers(x, GK_HEADS, 0) < 0 || check_layers(x, GK_KV_HEADS, 0) < 0 ||
        check_layers(x, GK_FFN, 0) < 0 || check_layers(x, GK_RECURRENT, 1) < 0)
        return -1;
    g->head_count = layer_int(x, GK_HEADS, 0, 0);
    return head_sizes(x, g);
}

/* The layer list into the spec's layout and kv_gguf_info's summary. */
static void fill_layers(const unsigned char *kind, int64_t n, kv_spec *s, kv_gguf_info *g,
                        const ctx *x)
{
    int mixed = 0;
    size_t k = 0;
    g->kv_heads_min = 0;
    for (int64_t l = 0; l < n; l++) {
        int attn = kind[l] < KV_LAYER_STATE;
        int64_t kv = attn ? layer_int(x, GK_KV_HEADS, l, layer_int(x, GK_HEADS, l, 0)) : 0;
        g->layer_kv_heads[l] = g->mla && attn ? 1 : kv;
        g->layer_kind[l] = kind[l];
        if (kind[l] == K_NONE)
            continue;
        s->layout.pattern[k++] = kind[l];
        mixed |= kind[l] != KV_LAYER_FULL;
        g->state_layers += kind[l] == KV_LAYER_STATE;
        if (!attn)
            continue;
        g->kv_layers++;
        g->swa_layers += kind[l] != KV_LAYER_FULL;
        g->kv_heads_sum += g->layer_kv_heads[l];
        if (g->layer_kv_heads[l] > g->kv_heads_max)
            g->kv_heads_max = g->layer_kv_heads[l];
        if (g->kv_heads_min == 0 || g->layer_kv_heads[l] < g->kv_heads_min)
            g->kv_heads_min = g->layer_kv_heads[l];
    }
    s->layers = k ? (int64_t)k : n; /* nothing cached at all: an encoder, read as full */
    s->layout.pattern_len = mixed ? k : 0;
}

int gguf_apply(gguf_cur *c, const gguf_meta *m, const char *arch, kv_spec *s,
               kv_model_info *info, kv_gguf_info *g)
{
    static const arch_rule generic = {"", 0, 0, 0};
    /* DeepSeek-V4 (llama.cpp's "deepseek4", from b9840): its layers' compress ratios and
     * compressed caches are read from a config.json (config_json.c read_csa); the generic
     * rule would size them as plain attention */
    if (strcmp(arch, "deepseek4") == 0)
        return gguf_fail(c, 24, "deepseek4: kvcalc sizes DeepSeek-V4 from its config.json "
                                "(compress_ratios), not yet from a GGUF file: give --config");
    const arch_rule *r = find_rule(arch);
    ctx x = {c, m, arch, r ? *r : generic, 0};
    int64_t window, period, st;
    unsigned char kind[KV_GGUF_MAX_LAYERS];
    g->arch_known = r != NULL;
    if (basics(&x, g) < 0 || read_window(&x, &window, &period) < 0 ||
        (st = state_elems(&x, g)) < -1)
        return -1;
    int64_t n = x.L - ((x.rule.flags & R_NEXTN_OUT) ? g->nextn_layers : 0);
    if (layer_kinds(&x, n, window, period, kind) < 0)
        return -1;
    memset(&s->layout, 0, sizeof s->layout);
    g->layer_count = n;
    fill_layers(kind, n, s, g, &x);
    if (x.rule.flags & R_PARALLEL) {
        /* Falcon-H1 (src/models/falcon-h1.cpp @ 3f545beccee69d9975f466ec7e45fd9aacd8ba90:
         * is_recr_impl filled true, and every layer's attention tensors): each layer keeps a
         * KV cache and a Mamba-2 state */
        s->layout.parallel_state = 1;
        g->state_layers = g->kv_layers;
    }
    /* head_count_kv 0 in every layer, and nothing else in them: no cache, no state - no model
     * kvcalc could size (a recurrent architecture it does not know says so by its name) */
    if (!g->kv_layers && !g->state_layers && x.m->v[GK_KV_HEADS].present &&
        layer_int(&x, GK_KV_HEADS, 0, 1) == 0)
        return gguf_fail(c, x.m->v[GK_KV_HEADS].key_at, "%s.attention.head_count_kv is 0 in "
                         "every layer: no layer keeps a KV cache%s", arch,
                         r ? "" : " (an architecture kvcalc does not know: a recurrent one?)");
    if (g->kv_layers && !g->mla && (g->key_length < 1 || g->value_length < 1))
        return gguf_fail(c, 24, "%s: no attention.key_length and no head_count to derive "
                                "the head size from", arch);
    g->n_swa = g->swa_layers ? window : 0;
    g->swa_period = g->swa_layers && period >= 0 ? period : 0;
    s->layout.window = (x.rule.flags & R_CHUNKED) ? 0 : g->n_swa;
    s->layout.chunk = (x.rule.flags & R_CHUNKED) ? g->n_swa : 0;
    s->layout.state_elems = g->state_layers ? st : 0;
    s->kv_heads = g->kv_heads_max > 0 ? g->kv_heads_max : 1;
    s->head_dim = g->kv_layers ? (g->key_length + g->value_length + 1) / 2 : 1;
    if (g->mla) {
        s->layout.mla = 1;
        s->layout.mla_latent = g->kv_lora_rank + g->rope_dims;
        s->kv_heads = 1;
        s->head_dim = s->layout.mla_latent;
        s->arch.kv_lora_rank = g->kv_lora_rank;
        s->arch.qk_rope_dim = g->rope_dims;
    }
    s->arch.known = 0;
    /* an MoE model says so (an engine's formulas differ for one: Ollama's graph); not an
     * estimate: arch.known stays 0 */
    s->arch.experts = 0;
    if (get_int(&x, GK_EXPERTS, 0, MAX_DIM, &s->arch.experts) < 0 ||
        get_int(&x, GK_INDEX_KEY_LEN, 0, MAX_DIM, &g->indexer_key_length) < 0)
        return -1;
    s->layout.index_dim = g->mla ? g->indexer_key_length : 0;
    s->params_estimated = 0;
    if (g->n_tensors > 0) {
        s->checkpoint_weights_bytes = g->weight_bytes;
        s->checkpoint_params = g->params;
        s->params_b = g->params / 1e9;
        s->weights_source = KV_WEIGHTS_GGUF;
    }
    kv_snprintf(info->model_type, sizeof info->model_type, "%s", arch);
    info->max_context = g->context_length;
    g->vocab = m->vocab > (uint64_t)MAX_DIM ? 0 : (int64_t)m->vocab;
    size_t nl = m->name_len < sizeof info->name - 1 ? m->name_len : sizeof info->name - 1;
    while (nl > 0 && nl < m->name_len && ((unsigned char)m->name[nl] & 0xC0) == 0x80)
        nl--; /* cut on a UTF-8 boundary */
    for (size_t i = 0; i < nl; i++) /* a NUL would end the name: shown as '?' */
        info->name[i] = m->name[i] ? m->name[i] : '?';
    info->name[nl] = '\0';
    return 0;
}

/* ---- LoRA adapter files (--lora) ---- */

void kv_lora_files_add(const kv_gguf_info *g, const char *name, kv_lora_files *acc)
{
    double each = 0;
    int64_t blocks = 0;
    int alike = 1;
    for (int64_t i = 0; i < KV_GGUF_MAX_LAYERS; i++) {
        if (!(g->block_bytes[i] > 0))
            continue;
        if (blocks == 0)
            each = g->block_bytes[i];
        alike &= g->block_bytes[i] == each && i == blocks; /* blocks 0 .. n-1, alike */
        blocks++;
    }
    if (!acc->name)
        acc->name = name;
    /* a second file is alike with the first when both patch the same blocks alike: each
     * block then holds the sum */
    acc->alike = acc->files == 0 ? alike : acc->alike && alike && blocks == acc->blocks;
    acc->blocks = acc->files == 0 || blocks > acc->blocks ? blocks : acc->blocks;
    acc->block_bytes += each;
    acc->files++;
    acc->total_bytes += g->weight_bytes;
    acc->embd_bytes += g->token_embd_bytes;
    acc->output_bytes += g->output_bytes;
}
