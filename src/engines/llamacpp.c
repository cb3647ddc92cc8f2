/*
 * llamacpp.c - the KV cache llama.cpp allocates (llama-server, llama-cli, and what embeds
 * them: Ollama, LM Studio), by build (docs/llamacpp.md).
 *
 * llama.cpp does not size its cache from free memory: its flags do. -c (n_ctx) cells,
 * padded and split into per-sequence streams by the build's rules, in every attention layer;
 * sliding-window layers get a second, smaller cache; recurrent layers a fixed state per
 * sequence. Memory only decides whether that fits the GPU (with the weights and a compute
 * buffer, whose size kvcalc can only estimate). So the engine's answer - requests at once -
 * is the number of slots that hold a request of the spec's context, and 0 when the whole
 * does not fit the GPU. Pure: no I/O, no globals.
 */
#include "engine.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The builds where a rule changed (docs/llamacpp.md gives the commits). */
enum {
    B_QUANT_CACHE = 1619,  /* quantized K/V cache types */
    B_PAD32 = 2493,        /* cells padded to 32 */
    B_PAD_FLASH = 2771,    /* ... or to 256 with flash attention */
    B_CTX_4096 = 4014,     /* default -c 512 -> 4096 */
    B_ENCODER = 5312,      /* encoders (BERT family) keep no cache */
    B_SWA = 5429,          /* sliding layers get a cache of their own */
    B_SWA_UBATCH = 5554,   /* ... sized with n_ubatch instead of n_batch */
    B_SWA_STREAM = 5913,   /* ... and n_seq only when unified */
    B_HYBRID = 5856,       /* recurrent state printed apart */
    B_STREAMS = 6071,      /* a stream per sequence unless --kv-unified */
    B_FA_AUTO = 6325,      /* -fa auto by default (counts as on); -ngl all by default */
    B_AUTO_SLOTS = 6925,   /* llama-server without -np: 4 unified slots */
    B_PAD_256 = 6975,      /* n_ctx padded to 256, streams to 256 each */
    B_AUTOFIT = 7407,      /* default -c 0: the model's context, fitted to free memory */
    B_MLA_NO_V = 7832      /* an MLA cache keeps no V */
};

#define AUTO_SLOTS 4
#define AUTOFIT_MIN 4096 /* auto-fit never lowers n_ctx below this */
#define DEFAULT_BATCH 2048
#define DEFAULT_UBATCH 512
#define CTX_LIMIT 1099511627776LL /* 2^40 tokens: the largest -c the fit search tries */
/* The compute buffer estimate: activations of n_ubatch tokens, in f32, this many hidden
 * widths wide (the measured buffers of docs/llamacpp.md section 10 are 1.0-1.3x of it). */
#define ACTIVATION_WIDTHS 8.0

static const kv_ggml_cache_type_info cache_types[KV_GGML_CACHE_TYPES] = {
    [KV_GGML_F32] = {"f32", 1, 4},       [KV_GGML_F16] = {"f16", 1, 2},
    [KV_GGML_BF16] = {"bf16", 1, 2},     [KV_GGML_Q8_0] = {"q8_0", 32, 34},
    [KV_GGML_Q4_0] = {"q4_0", 32, 18},   [KV_GGML_Q4_1] = {"q4_1", 32, 20},
    [KV_GGML_IQ4_NL] = {"iq4_nl", 32, 18}, [KV_GGML_Q5_0] = {"q5_0", 32, 22},
    [KV_GGML_Q5_1] = {"q5_1", 32, 24},
};

/* llama.cpp's cache type for each kvcalc dtype when -ctk/-ctv are not given (-1: none). */
static const int type_of_dtype[KV_DTYPE_COUNT] = {
    [KV_DTYPE_FP32] = KV_GGML_F32, [KV_DTYPE_FP16] = KV_GGML_F16,
    [KV_DTYPE_BF16] = KV_GGML_BF16, [KV_DTYPE_FP8] = -1,
    [KV_DTYPE_INT8] = KV_GGML_Q8_0, [KV_DTYPE_INT4] = KV_GGML_Q4_0,
};

/* Architectures that are encoders: no cache from B_ENCODER. */
static const char *const encoders[] = {"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2",
                                       "jina-bert-v3", "neo-bert", "modern-bert", "eurobert",
                                       "gemma-embedding", "dream", "llada", "llada-moe"};

void kv_llamacpp_defaults(kv_llamacpp_spec *l)
{
    memset(l, 0, sizeof *l);
    l->build = KV_LLAMACPP_NEWEST_BUILD;
    l->ctx_size = -1;
    l->parallel = 0;
    l->flash_attn = -1;
    l->type_k = l->type_v = -1;
    l->batch_size = DEFAULT_BATCH;
    l->ubatch_size = DEFAULT_UBATCH;
    l->n_gpu_layers = -1;
    l->gguf = NULL;
}

const kv_ggml_cache_type_info *kv_ggml_cache_type_get(kv_ggml_cache_type t)
{
    return (unsigned)t < KV_GGML_CACHE_TYPES ? &cache_types[t] : NULL;
}

static int64_t pad_to(int64_t x, int64_t n)
{
    return n <= 1 ? x : (x + n - 1) / n * n;
}

static int is_quantized(int t)
{
    return cache_types[t].block > 1;
}

/* ---- the settings in force: flags, then the build's defaults ---- */

typedef struct {
    int64_t build;
    int64_t n_seq;
    int auto_slots, unified, flash, type_k, type_v, v_less;
    int64_t n_batch, n_ubatch;
    int64_t ctx_train;       /* the model's context_length, 0: unknown */
    int64_t n_swa;           /* window (or chunk) of the sliding layers */
} settings;

static int cache_type(int given, kv_dtype d)
{
    return given >= 0 ? given : (unsigned)d < KV_DTYPE_COUNT ? type_of_dtype[d] : -1;
}

static void resolve(const kv_spec *s, settings *st)
{
    const kv_llamacpp_spec *l = &s->llamacpp;
    st->build = l->build > KV_LLAMACPP_NEWEST_BUILD ? KV_LLAMACPP_NEWEST_BUILD : l->build;
    st->auto_slots = l->parallel <= 0 && st->build >= B_AUTO_SLOTS;
    st->n_seq = l->parallel > 0 ? l->parallel : st->auto_slots ? AUTO_SLOTS : 1;
    /* one stream for all: asked for, the server's auto slots, or every build before 6071 */
    st->unified = l->kv_unified || st->auto_slots || st->build < B_STREAMS || st->n_seq == 1;
    int fa = l->flash_attn >= 0 ? l->flash_attn : st->build >= B_FA_AUTO ? KV_FLASH_AUTO
                                                                         : KV_FLASH_OFF;
    st->flash = fa == KV_FLASH_ON || fa == KV_FLASH_AUTO; /* the cache exists before auto
                                                             is decided per device */
    st->type_k = cache_type(l->type_k, s->dtype);
    st->type_v = cache_type(l->type_v, s->dtype);
    st->n_batch = l->batch_size;
    st->n_ubatch = l->ubatch_size < l->batch_size ? l->ubatch_size : l->batch_size;
    st->ctx_train = l->gguf ? l->gguf->context_length : s->max_context;
    st->n_swa = s->layout.window > 0 ? s->layout.window : s->layout.chunk;
    st->v_less = s->layout.mla && st->build >= B_MLA_NO_V;
}

/* ---- the layers: which cache each one has, and its rows ---- */

enum { CACHE_NONE, CACHE_MAIN, CACHE_SWA, CACHE_STATE };

typedef struct {
    int cache;          /* CACHE_* */
    int64_t k, v;       /* row elements (attention layers) */
    int64_t head_k, head_v; /* head sizes, for the block check */
} layer_row;

static int is_encoder(const kv_gguf_info *g)
{
    for (size_t i = 0; i < sizeof encoders / sizeof encoders[0]; i++)
        if (strcmp(g->architecture, encoders[i]) == 0)
            return 1;
    return 0;
}

static int cache_of_kind(int kind, int64_t build)
{
    if (kind == KV_LAYER_STATE)
        return CACHE_STATE;
    if (kind == KV_LAYER_SLIDING || kind == KV_LAYER_CHUNKED)
        return build >= B_SWA ? CACHE_SWA : CACHE_MAIN;
    return kind == KV_LAYER_FULL ? CACHE_MAIN : CACHE_NONE;
}

/* Layer l (of n_layers()) as a GGUF header gives it: per-layer heads, K and V sizes. */
static layer_row gguf_layer(const kv_gguf_info *g, int64_t l, int64_t build)
{
    layer_row row = {CACHE_NONE, 0, 0, 0, 0};
    if (l >= g->layer_count || (build >= B_ENCODER && is_encoder(g)))
        return row;
    row.cache = cache_of_kind(g->layer_kind[l], build);
    if (row.cache != CACHE_MAIN && row.cache != CACHE_SWA)
        return row;
    int sliding = g->layer_kind[l] != KV_LAYER_FULL;
    row.head_k = sliding ? g->key_length_swa : g->key_length;
    row.head_v = sliding ? g->value_length_swa : g->value_length;
    row.k = g->layer_kv_heads[l] * row.head_k;
    row.v = g->layer_kv_heads[l] * row.head_v;
    if (g->layer_kv_heads[l] == 0)
        row.cache = CACHE_NONE;
    return row;
}

/* Layer l of a spec without a GGUF header: every attention layer alike; an MLA model as
 * llama.cpp's converters write it since b5137 (K = the latent, V = kv_lora_rank). */
static layer_row spec_layer(const kv_spec *s, int64_t l, int64_t build)
{
    const kv_layout *y = &s->layout;
    int kind = y->pattern_len ? y->pattern[(size_t)l % y->pattern_len] : KV_LAYER_FULL;
    layer_row row = {cache_of_kind(kind, build), 0, 0, 0, 0};
    if (y->mla) {
        row.head_k = row.k = y->mla_latent;
        row.head_v = row.v = s->arch.kv_lora_rank > 0 ? s->arch.kv_lora_rank : y->mla_latent;
    } else {
        row.head_k = row.head_v = s->head_dim;
        row.k = row.v = s->kv_heads * s->head_dim;
    }
    return row;
}

static int64_t n_layers(const kv_spec *s)
{
    return s->llamacpp.gguf ? s->llamacpp.gguf->block_count : s->layers;
}

static layer_row layer_at(const kv_spec *s, int64_t l, int64_t build)
{
    return s->llamacpp.gguf ? gguf_layer(s->llamacpp.gguf, l, build) : spec_layer(s, l, build);
}

/* Bytes of one cell of every layer of each cache, all of them and the GPU's. */
typedef struct {
    int64_t layers[4];       /* by CACHE_* */
    double k[4], v[4];       /* bytes per cell (one stream), all layers of the cache */
    double k_gpu[4], v_gpu[4];
    double state_r, state_s; /* bytes per row (sequence), all recurrent layers */
    double state_gpu;
    int64_t n_layer, gpu_layers;
} rows;

static double row_bytes(int type, int64_t elems)
{
    return (double)(elems / cache_types[type].block) * (double)cache_types[type].block_bytes;
}

/* The state of one recurrent layer, per sequence, in f32 elements: R and S. */
static void state_row(const kv_spec *s, double *r, double *sz)
{
    const kv_gguf_info *g = s->llamacpp.gguf;
    if (g && (g->state_r_row > 0 || g->state_s_row > 0)) {
        *r = (double)g->state_r_row;
        *sz = (double)g->state_s_row;
    } else { /* a config gives the total only */
        *r = s->layout.state_elems > 0 ? (double)s->layout.state_elems : 0;
        *sz = 0;
    }
}

static void rows_of(const kv_spec *s, const settings *st, rows *w)
{
    memset(w, 0, sizeof *w);
    w->n_layer = n_layers(s);
    int64_t ngl = s->llamacpp.n_gpu_layers >= 0 ? s->llamacpp.n_gpu_layers
                  : st->build >= B_FA_AUTO      ? w->n_layer + 1
                                                : 0;
    w->gpu_layers = ngl > w->n_layer + 1 ? w->n_layer + 1 : ngl;
    int64_t first_gpu = w->n_layer + 1 - w->gpu_layers; /* the output layer counts as one */
    /* without flash attention V is stored transposed: every row as wide as the widest */
    int64_t v_max = 0;
    for (int64_t l = 0; l < w->n_layer; l++) {
        layer_row row = layer_at(s, l, st->build);
        if ((row.cache == CACHE_MAIN || row.cache == CACHE_SWA) && row.v > v_max)
            v_max = row.v;
    }
    double r, sz;
    state_row(s, &r, &sz);
    for (int64_t l = 0; l < w->n_layer; l++) {
        layer_row row = layer_at(s, l, st->build);
        int on_gpu = l >= first_gpu;
        w->layers[row.cache]++;
        if (row.cache == CACHE_STATE) {
            w->state_r += r * 4;
            w->state_s += sz * 4;
            w->state_gpu += on_gpu ? (r + sz) * 4 : 0;
        }
        if (row.cache != CACHE_MAIN && row.cache != CACHE_SWA)
            continue;
        double k = row_bytes(st->type_k, row.k);
        double v = st->v_less ? 0 : row_bytes(st->type_v, st->flash ? row.v : v_max);
        w->k[row.cache] += k;
        w->v[row.cache] += v;
        w->k_gpu[row.cache] += on_gpu ? k : 0;
        w->v_gpu[row.cache] += on_gpu ? v : 0;
    }
}

/* ---- cells: padding, streams and the sliding-window cache, by build ---- */

typedef struct {
    int64_t pad, cells, streams, n_ctx, swa_cells, slot_ctx;
    int rounded;
} cells;

static void cells_at(const settings *st, int64_t n_ctx, int has_swa, int swa_full, cells *c)
{
    int64_t b = st->build;
    c->pad = b < B_PAD32 ? 1 : b < B_PAD_FLASH ? 32 : b < B_PAD_256 ? (st->flash ? 256 : 32) : 256;
    c->rounded = 0;
    c->streams = st->unified ? 1 : st->n_seq;
    if (b >= B_PAD_256) {
        n_ctx = pad_to(n_ctx, 256);
        c->cells = st->unified ? n_ctx : pad_to(n_ctx / st->n_seq, 256);
        c->rounded = c->cells * c->streams != n_ctx;
    } else if (st->unified) {
        c->cells = pad_to(n_ctx, c->pad);
    } else {
        c->cells = pad_to(n_ctx / st->n_seq + (n_ctx % st->n_seq != 0), c->pad);
    }
    c->n_ctx = c->cells * c->streams;
    /* the sliding-window cache: a window per sequence sharing it, plus a micro-batch */
    int64_t seqs = st->unified ? st->n_seq : 1, want;
    c->swa_cells = 0;
    if (!has_swa) {
        /* no sliding layers: no second cache */
    } else if (swa_full)
        c->swa_cells = c->cells;
    else if (b >= B_PAD_256) {
        want = st->n_swa * seqs + st->n_ubatch;
        c->swa_cells = pad_to(want < c->cells ? want : c->cells, 256);
    } else {
        want = b < B_SWA_UBATCH  ? pad_to(st->n_swa * st->n_seq + st->n_batch, c->pad)
               : b < B_SWA_STREAM ? pad_to(st->n_swa * st->n_seq + st->n_ubatch, c->pad)
                                  : pad_to(st->n_swa * seqs + st->n_ubatch, c->pad);
        c->swa_cells = want < c->cells ? want : c->cells;
    }
    /* what one slot may hold: its stream (or the shared one) from b6925, before that
     * n_ctx / slots; never more than the model was trained for */
    c->slot_ctx = b >= B_AUTO_SLOTS ? c->cells : c->n_ctx / st->n_seq;
    if (st->ctx_train > 0 && c->slot_ctx > st->ctx_train && b >= B_AUTO_SLOTS)
        c->slot_ctx = st->ctx_train;
}

/* The n_ctx asked for: -c, or the build's default; 0 means the model's context_length. */
static int64_t n_ctx_asked(const kv_spec *s, const settings *st, int *from_model, int *autofit)
{
    int64_t c = s->llamacpp.ctx_size;
    *autofit = c < 0 && st->build >= B_AUTOFIT;
    if (c < 0)
        c = st->build >= B_AUTOFIT ? 0 : st->build >= B_CTX_4096 ? 4096 : 512;
    *from_model = c == 0;
    if (c > 0)
        return c;
    int64_t train = st->ctx_train > 0 ? st->ctx_train : s->context;
    /* auto-fit starts from the model's context in every stream */
    return *autofit && !st->unified ? train * st->n_seq : train;
}

/* ---- memory on the GPU ---- */

/* The compute buffer, estimated: f32 logits and activations of a micro-batch, and without
 * flash attention one layer's f32 attention scores over the cache. */
static double compute_estimate(const kv_spec *s, const settings *st, int64_t kv_cells)
{
    const kv_gguf_info *g = s->llamacpp.gguf;
    double vocab = (double)(g ? g->vocab : s->arch.vocab);
    double hidden = (double)(g ? g->embedding_length : s->arch.hidden);
    double heads = (double)(g ? g->head_count : s->arch.heads);
    if (hidden <= 0)
        hidden = (double)(s->kv_heads * s->head_dim);
    if (heads <= 0)
        heads = (double)s->kv_heads;
    double ub = (double)st->n_ubatch;
    double bytes = ub * vocab * 4 + ub * hidden * 4 * ACTIVATION_WIDTHS;
    if (!st->flash)
        bytes += ub * (double)kv_cells * heads * 4;
    return bytes;
}

typedef struct {
    double kv_gpu, kv_host, weights_gpu, compute, needed;
} gpu_use;

static void gpu_use_at(const kv_spec *s, const kv_result *r, const settings *st,
                       const rows *w, const cells *c, gpu_use *u)
{
    double main_all = (w->k[CACHE_MAIN] + w->v[CACHE_MAIN]) * (double)c->n_ctx;
    double swa_all = (w->k[CACHE_SWA] + w->v[CACHE_SWA]) * (double)(c->swa_cells * c->streams);
    double rows_n = (double)(st->n_seq > 1 ? st->n_seq : 1);
    double state_all = (w->state_r + w->state_s) * rows_n;
    u->kv_gpu = (w->k_gpu[CACHE_MAIN] + w->v_gpu[CACHE_MAIN]) * (double)c->n_ctx +
                (w->k_gpu[CACHE_SWA] + w->v_gpu[CACHE_SWA]) * (double)(c->swa_cells * c->streams) +
                w->state_gpu * rows_n;
    u->kv_host = main_all + swa_all + state_all - u->kv_gpu;
    /* the weights in proportion to the layers on the GPU (the output layer counts as one) */
    u->weights_gpu = r->weights_bytes * (double)w->gpu_layers / (double)(w->n_layer + 1);
    int64_t widest = c->cells > c->swa_cells ? c->cells : c->swa_cells;
    u->compute = w->gpu_layers > 0 ? compute_estimate(s, st, widest) : 0;
    u->needed = u->weights_gpu + u->kv_gpu + u->compute + r->overhead_bytes;
}

/* The largest -c whose whole fits the GPU: what is needed only grows with n_ctx. */
static int64_t ctx_size_fit(const kv_spec *s, const kv_result *r, const settings *st,
                            const rows *w, int has_swa)
{
    cells c;
    gpu_use u;
    int64_t lo = 1, hi = CTX_LIMIT;
    cells_at(st, hi, has_swa, s->llamacpp.swa_full, &c);
    gpu_use_at(s, r, st, w, &c, &u);
    if (u.needed <= r->gpu_mem_bytes)
        return INT64_MAX;
    cells_at(st, lo, has_swa, s->llamacpp.swa_full, &c);
    gpu_use_at(s, r, st, w, &c, &u);
    if (u.needed > r->gpu_mem_bytes)
        return 0;
    while (hi - lo > 1) { /* lo fits, hi does not */
        int64_t mid = lo + (hi - lo) / 2;
        cells_at(st, mid, has_swa, s->llamacpp.swa_full, &c);
        gpu_use_at(s, r, st, w, &c, &u);
        if (u.needed <= r->gpu_mem_bytes)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- the engine ---- */

/* The first rule of llama.cpp's that s breaks, as a sentence naming the flag; NULL: none. */
const char *kv_llamacpp_problem(const kv_spec *s)
{
    if (s->engine != KV_ENGINE_LLAMACPP)
        return NULL;
    const kv_llamacpp_spec *l = &s->llamacpp;
    settings st;
    if (s->tp != 1)
        return "--tensor-parallel-size: llama.cpp splits a model by layers over devices "
               "(--n-gpu-layers), not by heads: use 1";
    if (s->pp != 1)
        return "--pipeline-parallel-size: llama.cpp places layers with --n-gpu-layers (and "
               "--tensor-split), not by pipeline stages: use 1";
    if (l->build < 1 || l->batch_size < 1 || l->ubatch_size < 1 || l->parallel < 0 ||
        l->flash_attn > KV_FLASH_AUTO || l->type_k >= KV_GGML_CACHE_TYPES ||
        l->type_v >= KV_GGML_CACHE_TYPES || l->ctx_size > CTX_LIMIT || l->parallel > 1000000)
        return "--engine llama.cpp: an input is out of range (build >= 1, batch sizes >= 1, "
               "--parallel <= 1000000, --ctx-size <= 2^40)";
    resolve(s, &st);
    if (st.type_k < 0 || st.type_v < 0)
        return "--dtype: llama.cpp has no fp8 KV cache (--cache-type-k / --cache-type-v: f32, "
               "f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)";
    if (st.build < B_QUANT_CACHE && (is_quantized(st.type_k) || is_quantized(st.type_v)))
        return "--cache-type-k/-v: quantized cache types exist from build 1619 "
               "(--llamacpp-build)";
    if (l->flash_attn == KV_FLASH_AUTO && st.build < B_FA_AUTO)
        return "--flash-attn: 'auto' exists from build 6325; earlier builds take on or off";
    if (is_quantized(st.type_v) && !st.flash && !st.v_less)
        return "--cache-type-v: a quantized V cache needs flash attention (--flash-attn on); "
               "llama.cpp refuses it otherwise";
    for (int64_t i = 0; i < n_layers(s); i++) {
        layer_row row = layer_at(s, i, st.build);
        if (row.cache != CACHE_MAIN && row.cache != CACHE_SWA)
            continue;
        if (row.head_k % cache_types[st.type_k].block != 0)
            return "--cache-type-k: the model's K head size is not a multiple of the type's "
                   "block of 32 elements; llama.cpp refuses it";
        if (!st.v_less && row.head_v % cache_types[st.type_v].block != 0)
            return "--cache-type-v: the model's V head size is not a multiple of the type's "
                   "block of 32 elements; llama.cpp refuses it";
    }
    return NULL;
}

static kv_status llamacpp_check(const kv_spec *s)
{
    return kv_llamacpp_problem(s) ? KV_ERR_LLAMACPP : KV_OK;
}

/* Requests of `context` tokens held at once: every slot whose room holds one, and in one
 * shared stream (from b6925) no more than the stream's cells hold together. */
static double slots_for(const kv_llamacpp_result *L, int64_t context)
{
    int fitted = L->autofit_ctx > 0; /* the server starts with a smaller n_ctx */
    int64_t slot = fitted ? L->autofit_slot_ctx : L->slot_ctx;
    if (!(L->fits_gpu || fitted) || context > slot)
        return 0;
    if (L->unified && L->n_seq > 1 && L->build >= B_AUTO_SLOTS) {
        int64_t together = (fitted ? L->autofit_n_ctx : L->n_ctx) / context;
        return (double)(together < L->n_seq ? together : L->n_seq);
    }
    return (double)L->n_seq;
}

static double llamacpp_at(const kv_spec *s, const kv_result *r, int64_t context,
                          double request_bytes)
{
    (void)s;
    (void)request_bytes; /* the cache is allocated by the flags, not by the request */
    return slots_for(&r->llamacpp, context);
}

static void fill_caches(kv_llamacpp_result *L, const rows *w, const cells *c, double rows_n)
{
    L->main.layers = w->layers[CACHE_MAIN];
    L->main.cells = c->cells;
    L->main.k_bytes = w->k[CACHE_MAIN] * (double)c->n_ctx;
    L->main.v_bytes = w->v[CACHE_MAIN] * (double)c->n_ctx;
    L->swa.layers = w->layers[CACHE_SWA];
    L->swa.cells = c->swa_cells;
    L->swa.k_bytes = w->k[CACHE_SWA] * (double)(c->swa_cells * c->streams);
    L->swa.v_bytes = w->v[CACHE_SWA] * (double)(c->swa_cells * c->streams);
    L->state_layers = w->layers[CACHE_STATE];
    L->state_rows = (int64_t)rows_n;
    L->state_r_bytes = w->state_r * rows_n;
    L->state_s_bytes = w->state_s * rows_n;
}

static kv_status llamacpp_compute(const kv_spec *s, kv_result *r)
{
    kv_llamacpp_result *L = &r->llamacpp;
    settings st;
    rows w;
    cells c;
    gpu_use u;
    resolve(s, &st);
    rows_of(s, &st, &w);
    int has_swa = w.layers[CACHE_SWA] > 0;
    memset(L, 0, sizeof *L);
    L->build = st.build;
    L->n_ctx_asked = n_ctx_asked(s, &st, &L->ctx_from_model, &L->autofit);
    L->n_seq = st.n_seq;
    L->auto_slots = st.auto_slots;
    L->unified = st.unified;
    L->flash = st.flash;
    L->type_k = st.type_k;
    L->type_v = st.type_v;
    L->v_less = st.v_less;
    L->n_ubatch = st.n_ubatch;
    cells_at(&st, L->n_ctx_asked, has_swa, s->llamacpp.swa_full, &c);
    L->pad = c.pad;
    L->streams = c.streams;
    L->n_ctx = c.n_ctx;
    L->rounded = c.rounded;
    L->slot_ctx = c.slot_ctx;
    fill_caches(L, &w, &c, (double)(st.n_seq > 1 ? st.n_seq : 1));
    L->n_layer = w.n_layer;
    L->gpu_layers = w.gpu_layers;
    gpu_use_at(s, r, &st, &w, &c, &u);
    L->kv_gpu_bytes = u.kv_gpu;
    L->kv_host_bytes = u.kv_host;
    L->weights_gpu_bytes = u.weights_gpu;
    L->compute_bytes = u.compute;
    L->gpu_needed_bytes = u.needed;
    L->fits_gpu = u.needed <= r->gpu_mem_bytes;
    L->ctx_size_fit = ctx_size_fit(s, r, &st, &w, has_swa);
    if (L->autofit && !L->fits_gpu && L->ctx_size_fit >= AUTOFIT_MIN &&
        L->ctx_size_fit < L->n_ctx_asked) {
        cells fit;
        cells_at(&st, L->ctx_size_fit, has_swa, s->llamacpp.swa_full, &fit);
        L->autofit_ctx = L->ctx_size_fit;
        L->autofit_n_ctx = fit.n_ctx;
        L->autofit_slot_ctx = fit.slot_ctx;
    }

    r->max_concurrency = slots_for(L, s->context);
    snprintf(r->engine_version, sizeof r->engine_version, "b%lld", (long long)st.build);
    r->available_kv_bytes = r->gpu_mem_bytes - u.weights_gpu - u.compute - r->overhead_bytes;
    r->kv_cache_bytes = L->main.k_bytes + L->main.v_bytes + L->swa.k_bytes + L->swa.v_bytes;
    r->kv_cache_tokens = L->n_ctx;
    /* the longest request: one slot's room at the largest -c that fits */
    if (L->ctx_size_fit == INT64_MAX) {
        r->longest_context_fit = st.ctx_train > 0 ? st.ctx_train : INT64_MAX;
    } else if (L->ctx_size_fit > 0) {
        cells_at(&st, L->ctx_size_fit, has_swa, s->llamacpp.swa_full, &c);
        r->longest_context_fit = c.slot_ctx;
    }
    return KV_OK;
}

/* The 8-bit KV lever: q8_0 for K and V; a quantized V cache needs flash attention. */
static void llamacpp_kv8(kv_spec *s)
{
    s->llamacpp.type_k = s->llamacpp.type_v = KV_GGML_Q8_0;
    if (s->llamacpp.flash_attn == KV_FLASH_OFF ||
        (s->llamacpp.flash_attn < 0 && s->llamacpp.build < B_FA_AUTO))
        s->llamacpp.flash_attn = KV_FLASH_ON;
}

const kv_engine_ops kv_engine_llamacpp_ops = {"llama.cpp", llamacpp_check, llamacpp_compute,
                                               llamacpp_at, "q8_0", llamacpp_kv8};
