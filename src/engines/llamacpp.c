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
#include "llamacpp.h"
#include "kvprint.h"
#include "kvregex.h"

#include <math.h>
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
    B_MLA_NO_V = 7832,     /* an MLA cache keeps no V */
    B_DRAFT = 4246,        /* llama-server's draft context rules (-md, PR #10586) */
    B_DRAFT_CTX_SEQ = 6931,/* a slot's draft context: llama_n_ctx_seq, not n_ctx / slots
                              (cd5e3b5, PR #16736) */
    B_DRAFT_SHARED = 9115, /* one draft context for every slot (PR #22838) */
    /* --spec-type draft-mtp: 255582687 "llama + spec: MTP Support (#22673)", 2026-05-16, the
     * 9180th commit (first tag b9191): common_speculative_init_result creates a second
     * context of the target model (LLAMA_CONTEXT_TYPE_MTP) */
    B_MTP = 9180,
    B_MTP_N_MAX_3 = 9235, /* d14ce3dab: --spec-draft-n-max's default 16 -> 3 */
    /* --cpu-moe: a06ed5fea "llama : add simple option to enable CPU for MoE weights
     * (--cpu-moe) (#14992)", the 6051st commit (tag b6051); --n-cpu-moe: ec428b02c (#15077),
     * b6089 (common/arg.cpp; the ngxson/llama.cpp mirror's tags) */
    B_CPU_MOE = 6051,
    /* -ot / --override-tensor: e0e912f49 "llama : add option to override model tensor
     * buffers (#11397)", 2025-04-02, the 5028th commit (tag b5028) */
    B_OVERRIDE_TENSOR = 5028,
    B_N_CPU_MOE = 6089,
    /* DeepSeek-V4 (compress_ratios, architecture "deepseek4"): llama_kv_cache_dsv4 arrives
     * with 8c146a8366304c871efc26057cc90370ccf58dad "DeepSeek V4 (#24162)", the commit
     * tagged b9840 (the ngxson/llama.cpp mirror's tags); an older build stops with
     * "unknown model architecture: 'deepseek4'" (llama_model_load, src/llama-model.cpp) */
    B_DSV4 = 9840,
    /* K and V cache types must match for it (69e62fc77 "llama : enforce the same K and V
     * cache types for DeepSeek V4 ..." #25871, the 10206th commit, in b10217) */
    B_DSV4_KV_TYPES = 10206,
    /* its compressor states get rollback planes: n_stream x (1 + n_rs_seq) (596a5795b
     * "DeepseekV4 MTP + DSpark (#25784)", the 10228th commit, in b10237) */
    B_DSV4_RS = 10228,
    /* llama-server's slot prompt reuse as the workload simulates it (get_available_slot in
     * tools/server/server-context.cpp; server_prompt_cache alloc / load / update in
     * server-task.cpp): LCP slot selection from 7a16ce7db (#7728, b3183), the host-memory
     * prompt cache from d00cbea63 (#16391, the 6723rd commit), idle slots saved on a new task from
     * 50e0ad08f (#20993) and without a unified cache from 961e9a3e4 (#24190), and its byte
     * limit kept before each entry from 6c487e2f7 "server: enforce prompt cache RAM limit
     * (#25070)", the 9908th commit: the rules of 3f545becc hold from there (the later
     * commits touching them rename) */
    B_PROMPT_REUSE = 9908,
    /* llama-server's host-memory prompt cache, --cache-ram 8192 MiB by default:
     * d00cbea63 "server : host-memory prompt caching (#16391)", the 6723rd commit */
    B_PROMPT_CACHE = 6723,
    B_LCP_SLOTS = 3109,  /* 7a16ce7db: -sps, the slot of the longest common prefix */
    B_IDLE_SLOTS = 8852, /* 9d49acb2a: --cache-idle-slots (--clear-idle, 50e0ad08f, from 8658) */
    B_MAX_SEQ_64 = 5485,
    B_MAX_SEQ_256 = 6507
};

#define AUTO_SLOTS 4
#define AUTOFIT_MIN 4096 /* auto-fit never lowers n_ctx below this */
#define DEFAULT_BATCH 2048
#define DEFAULT_CACHE_RAM 8192 /* common/common.h cache_ram_mib @ 3f545becc */
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

/* The newest build's rules, every optional flag "not given" (zeroed); and llama.cpp caches
 * in f16 whatever the model's dtype (common/arg.cpp: cache_type_k = GGML_TYPE_F16), unless
 * --dtype says otherwise (the spec's dtype is one of the inputs this engine overrides). */
void kv_llamacpp_spec_defaults(kv_llamacpp_spec *l, kv_dtype *dtype)
{
    l->type_k_draft = l->type_v_draft = KV_GGML_F16;
    l->build = KV_LLAMACPP_NEWEST_BUILD;
    l->batch_size = DEFAULT_BATCH;
    l->ubatch_size = DEFAULT_UBATCH;
    l->cache_ram = DEFAULT_CACHE_RAM;
    l->slot_prompt_similarity = 0.1; /* common/common.h slot_prompt_similarity */
    l->cache_idle_slots = 1;         /* common/common.h cache_idle_slots */
    *dtype = KV_DTYPE_FP16;
}

static void llamacpp_defaults(kv_spec *s)
{
    kv_llamacpp_spec_defaults(&s->llamacpp, &s->dtype);
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
    const kv_llamacpp_spec *l; /* the flags (of the spec's engine part, or an embedder's) */
    int64_t build;
    int64_t n_seq;
    int auto_slots, unified, flash, type_k, type_v, v_less;
    int64_t n_batch, n_ubatch;
    int64_t n_rs_seq;        /* recurrent-state snapshots a sequence (rs_seq_of) */
    int64_t ctx_train;       /* the model's context_length, 0: unknown */
    int64_t n_swa;           /* window (or chunk) of the sliding layers */
    int dsv4;                /* DeepSeek-V4's caches (llama_kv_cache_dsv4) */
    int ctx_from_model;      /* n_ctx is the model's (-c 0 or the default from b7407): a
                                shared draft context then takes its own n_ctx_train */
} settings;

static int cache_type(kv_opt_int given, kv_dtype d)
{
    return given.set ? (int)given.value : (unsigned)d < KV_DTYPE_COUNT ? type_of_dtype[d] : -1;
}

/* Whether the model's architecture rolls recurrent state back (llm_arch_supports_rs_rollback,
 * src/llama-arch.cpp: qwen35 and qwen35moe at 255582687; llama_context clamps n_rs_seq to 0
 * for any other): by the GGUF's architecture, else the config's class */
static int rs_rollback(const kv_spec *s)
{
    const char *a = s->gguf ? s->gguf->architecture : s->arch.architecture;
    if (!a)
        return 0;
    return s->gguf ? strcmp(a, "qwen35") == 0 || strcmp(a, "qwen35moe") == 0
                   : strncmp(a, "Qwen3_5", 7) == 0;
}

/* The snapshots a sequence's recurrent state keeps: --n-rs-seq (a log's figure), else with
 * --spec-type draft-mtp the target context's cparams.n_rs_seq =
 * params.speculative.need_n_rs_seq() = draft.n_max (common/common.cpp, common/common.h @
 * 255582687, the MTP commit: n_max 16; 3 from d14ce3dab "llama : MTP clean-up (#23269)", the
 * 9235th commit), for an architecture that rolls back; else 0 */
static int64_t rs_seq_of(const kv_spec *s, const kv_llamacpp_spec *l, int64_t build)
{
    if (l->n_rs_seq.set)
        return l->n_rs_seq.value;
    if (l->spec_type != KV_LLAMACPP_SPEC_MTP || build < B_MTP || !rs_rollback(s))
        return 0;
    return l->spec_draft_n_max.set ? l->spec_draft_n_max.value : build >= B_MTP_N_MAX_3 ? 3 : 16;
}

static void resolve(const kv_spec *s, const kv_llamacpp_spec *l, kv_dtype dtype, settings *st)
{
    st->l = l;
    st->build = l->build > KV_LLAMACPP_NEWEST_BUILD ? KV_LLAMACPP_NEWEST_BUILD : l->build;
    st->n_rs_seq = rs_seq_of(s, l, st->build);
    st->auto_slots = !l->parallel.set && st->build >= B_AUTO_SLOTS;
    st->n_seq = l->parallel.set ? l->parallel.value : st->auto_slots ? AUTO_SLOTS : 1;
    /* one stream for all: asked for, the server's auto slots, or every build before 6071 */
    st->unified = l->kv_unified || st->auto_slots || st->build < B_STREAMS || st->n_seq == 1;
    int fa = l->flash_attn.set ? (int)l->flash_attn.value
             : st->build >= B_FA_AUTO ? KV_FLASH_AUTO
                                      : KV_FLASH_OFF;
    st->flash = fa == KV_FLASH_ON || fa == KV_FLASH_AUTO; /* the cache exists before auto
                                                             is decided per device */
    st->type_k = cache_type(l->type_k, dtype);
    st->type_v = cache_type(l->type_v, dtype);
    st->n_batch = l->batch_size;
    st->n_ubatch = l->ubatch_size < l->batch_size ? l->ubatch_size : l->batch_size;
    st->ctx_train = s->gguf ? s->gguf->context_length : s->max_context;
    st->n_swa = s->layout.window > 0 ? s->layout.window : s->layout.chunk;
    st->dsv4 = s->layout.csa_c4 + s->layout.csa_c128 > 0;
    if (st->dsv4) /* hparams.n_swa = the GGUF's sliding_window (deepseek4.cpp) */
        st->n_swa = s->layout.csa_window;
    st->v_less = s->layout.mla && st->build >= B_MLA_NO_V;
    st->ctx_from_model = 0; /* set by the compute once n_ctx is known */
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

/* Whether a GGUF header's model is an encoder that keeps no cache from this build: asked once
 * a computation, not once a layer (a dozen string compares each time). */
static int gguf_cacheless(const kv_gguf_info *g, int64_t build)
{
    return g && build >= B_ENCODER && is_encoder(g);
}

/* Layer l (of n_layers()) as a GGUF header gives it: per-layer heads, K and V sizes;
 * cacheless: gguf_cacheless(). */
static layer_row gguf_layer(const kv_gguf_info *g, int64_t l, int64_t build, int cacheless)
{
    layer_row row = {CACHE_NONE, 0, 0, 0, 0};
    if (l >= g->layer_count || cacheless)
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

/* A layer of `kind` of a spec without a GGUF header (one that keeps its own cache): every
 * attention layer alike; an MLA model as llama.cpp's converters write it since b5137 (K = the
 * latent, V = kv_lora_rank). */
static layer_row spec_row(const kv_spec *s, int kind, int64_t build)
{
    const kv_layout *y = &s->layout;
    layer_row row = {cache_of_kind(kind, build), 0, 0, 0, 0};
    if (y->mla) {
        row.head_k = row.k = y->mla_latent;
        row.head_v = row.v = s->arch.kv_lora_rank > 0 ? s->arch.kv_lora_rank : y->mla_latent;
    } else {
        int full = kind == KV_LAYER_FULL;
        int64_t heads = full && y->full_kv_heads > 0 ? y->full_kv_heads : s->kv_heads;
        int64_t dim = full && y->full_head_dim > 0 ? y->full_head_dim : s->head_dim;
        row.head_k = row.head_v = dim;
        row.k = row.v = heads * dim;
    }
    return row;
}

/* Layers of a spec without a GGUF header that keep their own cache: all but the trailing
 * ones that reuse an earlier layer's (the cache's reuse callback: no cells of their own). */
static int64_t spec_own_layers(const kv_spec *s)
{
    int64_t shared = s->layout.kv_shared_layers;
    if (shared <= 0)
        return s->layers;
    return s->layers - shared > 0 ? s->layers - shared : 0;
}

/* Layer l of a spec without a GGUF header. */
static layer_row spec_layer(const kv_spec *s, int64_t l, int64_t build)
{
    const kv_layout *y = &s->layout;
    int kind = y->pattern_len ? y->pattern[(size_t)l % y->pattern_len] : KV_LAYER_FULL;
    if (l >= spec_own_layers(s)) {
        layer_row none = {CACHE_NONE, 0, 0, 0, 0};
        return none;
    }
    return spec_row(s, kind, build);
}

static int64_t n_layers(const kv_spec *s)
{
    return s->gguf ? s->gguf->block_count : s->layers;
}

static layer_row layer_at(const kv_spec *s, int64_t l, int64_t build, int cacheless)
{
    return s->gguf ? gguf_layer(s->gguf, l, build, cacheless) : spec_layer(s, l, build);
}

/* Bytes of one cell of every layer of each cache, all of them and the GPU's. */
typedef struct {
    int64_t layers[4];       /* by CACHE_* */
    double k[4], v[4];       /* bytes per cell (one stream), all layers of the cache */
    double k_gpu[4], v_gpu[4];
    double state_r, state_s; /* bytes per row (sequence), all recurrent layers */
    double state_gpu;
    int64_t index_layers;    /* DeepSeek sparse attention: layers with an indexer key cache */
    double index, index_gpu; /* its bytes per cell, all layers and the GPU's */
    /* DeepSeek-V4: bytes per cell (one stream) of its compressed caches, and per plane of
     * its compressor states [csa, hca, lid], all layers and the GPU's */
    double dsv4_k[3], dsv4_k_gpu[3], dsv4_state[3], dsv4_state_gpu[3];
    int64_t n_layer, gpu_layers;
} rows;

static double row_bytes(int type, int64_t elems)
{
    return (double)(elems / cache_types[type].block) * (double)cache_types[type].block_bytes;
}

/* The state of one recurrent layer, per sequence, in f32 elements: R and S. */
static void state_row(const kv_spec *s, double *r, double *sz)
{
    const kv_gguf_info *g = s->gguf;
    if (g && (g->state_r_row > 0 || g->state_s_row > 0)) {
        *r = (double)g->state_r_row;
        *sz = (double)g->state_s_row;
    } else if (s->layout.state_conv_elems > 0) { /* a config: R is the conv state (n_embd_r:
                                                    (d_conv - 1) x channels), S the rest */
        *r = (double)s->layout.state_conv_elems;
        *sz = (double)(s->layout.state_elems - s->layout.state_conv_elems);
    } else { /* a config that gives the total only */
        *r = s->layout.state_elems > 0 ? (double)s->layout.state_elems : 0;
        *sz = 0;
    }
}

/* What n layers alike (row) add to w, n_gpu of them with their cache on the GPU; index: their
 * indexer key's elements; v_max: the widest V row of the model, which every V row takes
 * without flash attention (V is stored transposed). With n = 1 these are the very operations
 * of adding one layer. */
static void add_layers(rows *w, const settings *st, const layer_row *row, int64_t index,
                       int64_t v_max, double r, double sz, int64_t n, int64_t n_gpu)
{
    double dn = (double)n, dg = (double)n_gpu;
    w->layers[row->cache] += n;
    if (row->cache == CACHE_STATE) {
        w->state_r += dn * (r * 4);
        w->state_s += dn * (sz * 4);
        w->state_gpu += n_gpu ? dg * ((r + sz) * 4) : 0;
    }
    if (row->cache != CACHE_MAIN && row->cache != CACHE_SWA)
        return;
    if (row->cache == CACHE_MAIN && index > 0) {
        /* the indexer's key cache (llama_ik_cache, src/llama-ik-cache.cpp @
         * 57a8def44ec1aa7d1839c1d7178e736ec786fc4e): one row of index_head_dim elements per
         * layer and cell, in -ctk's type, beside the main cache (its cells, its streams); a
         * config gives every MLA layer one, a GGUF the blocks with indexer tensors (a header
         * without tensors: every one) */
        double ik = row_bytes(st->type_k, index);
        w->index_layers += n;
        w->index += dn * ik;
        w->index_gpu += n_gpu ? dg * ik : 0;
    }
    double k = row_bytes(st->type_k, row->k);
    double v = st->v_less ? 0 : row_bytes(st->type_v, st->flash ? row->v : v_max);
    w->k[row->cache] += dn * k;
    w->v[row->cache] += dn * v;
    w->k_gpu[row->cache] += n_gpu ? dg * k : 0;
    w->v_gpu[row->cache] += n_gpu ? dg * v : 0;
}

/* A spec without a GGUF header, by kind: a layer's row depends on its kind alone, so each
 * kind is added once, times its layers and its layers on the GPU - counted by
 * kv_layer_counts, arithmetic on the pattern (issue 22: a sweep walked every layer three
 * times a point). A row's byte figures are whole numbers, so n x a row is the double that n
 * rows added one by one give while every sum stays below 2^53; 0 when the geometry could
 * pass 2^52 (then the caller adds layer by layer). */
static int rows_by_kind(const kv_spec *s, const settings *st, rows *w, int64_t first_gpu,
                        double r, double sz)
{
    int64_t own = spec_own_layers(s);
    /* the layers from g0 to own keep their cache on the GPU (rows_of) */
    int64_t g0 = st->l->no_kv_offload ? own
                 : first_gpu < 0      ? 0
                 : first_gpu > own    ? own
                                      : first_gpu;
    int64_t all[KV_LAYER_KINDS], below[KV_LAYER_KINDS], v_max = 0;
    layer_row row[KV_LAYER_KINDS]; /* of the kinds some layer has */
    kv_layer_counts(&s->layout, own, all);
    kv_layer_counts(&s->layout, g0, below);
    for (int k = 0; k < KV_LAYER_KINDS; k++) {
        if (all[k] == 0)
            continue; /* (no row: a kind no layer has may hold sizes that overflow) */
        row[k] = spec_row(s, k, st->build);
        if ((row[k].cache == CACHE_MAIN || row[k].cache == CACHE_SWA) && row[k].v > v_max)
            v_max = row[k].v;
    }
    double most = 0; /* the most one layer adds to any one sum */
    for (int k = 0; k < KV_LAYER_KINDS; k++) {
        if (all[k] == 0)
            continue;
        double one = row[k].cache == CACHE_STATE
                         ? (r < 0 ? -r : r) * 4 + (sz < 0 ? -sz : sz) * 4
                         : row_bytes(st->type_k, row[k].k) +
                               row_bytes(st->type_k, s->layout.index_dim) +
                               row_bytes(st->type_v, v_max);
        most = one > most ? one : most;
    }
    if (!((double)w->n_layer * most < 4503599627370496.0)) /* 2^52 */
        return 0;
    int64_t counted = 0;
    for (int k = 0; k < KV_LAYER_KINDS; k++)
        if (all[k] > 0) {
            add_layers(w, st, &row[k], s->layout.index_dim, v_max, r, sz, all[k],
                       all[k] - below[k]);
            counted += all[k];
        }
    if (s->layout.parallel_state) /* the same layers again, as the recurrent memory's */
        counted -= all[KV_LAYER_STATE];
    w->layers[CACHE_NONE] += w->n_layer - counted; /* the reusing layers */
    return 1;
}

/* DeepSeek-V4's layers, as llama_kv_cache_dsv4's constructor lays them out
 * (src/llama-kv-cache-dsv4.cpp @ 3f545beccee69d9975f466ec7e45fd9aacd8ba90, the ngxson/llama.cpp
 * mirror, = b10573; the same since 8c146a836 but for the states' planes, dsv4_planes()):
 * - every layer keeps its raw latent in the sliding-window half of a llama_kv_cache_iswa
 *   (src/models/deepseek4.cpp: `hparams.set_swa_pattern(0)`, every layer sliding), K only
 *   (dsv4_make_k_only() makes hparams.is_mla() true, and llama_kv_cache allocates
 *   `has_v = !is_mla`: no V), n_embd_head_k = head_dim elements of -ctk's type a cell; the
 *   iswa's non-SWA half has no layer;
 * - a 4:1 layer (`dsv4_compress_ratios[il] == DSV4_CSA_RATIO`) also a compressed latent
 *   (kv_csa: K only, head_dim) and a lightning-indexer key (kv_lid: one head of
 *   indexer_head_size, K only), a 128:1 layer a compressed latent (kv_hca), all in -ctk's type
 *   (`type_k, type_v` passed, V never allocated);
 * - their compressor states (llama_dsv4_comp_state): two GGML_TYPE_F32 tensors, kv and score,
 *   n_embd_state x state_size a plane: csa `2*n_embd_head_k()` x `2*DSV4_CSA_RATIO` = 2 x
 *   head_dim x 8, hca head_dim x 128, lid 2 x indexer_head_size x 8.
 * The MTP layer is in none of them (the converter writes block_count = num_hidden_layers,
 * conversion/deepseek.py DeepseekV4Model; only an MTP-only file has nextn layers). Every
 * cache and state of a layer sits on its layer's device (`model.dev_layer(il)` when offload,
 * else the CPU buffer type): -ngl places them as it places any layer's. kvcalc keeps how
 * many layers have each ratio, not which ones: llamacpp_check refuses an -ngl that splits
 * the layers. */
static void dsv4_rows(const kv_spec *s, const settings *st, rows *w, int64_t first_gpu)
{
    const kv_layout *y = &s->layout;
    double g = first_gpu <= 0 && !st->l->no_kv_offload ? 1 : 0;
    double raw = row_bytes(st->type_k, s->kv_heads * s->head_dim); /* one head (config_json.c) */
    double c4 = (double)y->csa_c4, c128 = (double)y->csa_c128, hd = (double)s->head_dim;
    w->layers[CACHE_SWA] = s->layers;
    w->k[CACHE_SWA] = (double)s->layers * raw;
    w->k_gpu[CACHE_SWA] = g * w->k[CACHE_SWA];
    w->dsv4_k[0] = c4 * raw;
    w->dsv4_k[1] = c128 * raw;
    w->dsv4_k[2] = c4 * row_bytes(st->type_k, y->csa_index_dim);
    w->dsv4_state[0] = c4 * 2 * (2 * hd) * 8 * 4;
    w->dsv4_state[1] = c128 * 2 * hd * 128 * 4;
    w->dsv4_state[2] = c4 * 2 * (2 * (double)y->csa_index_dim) * 8 * 4;
    for (int i = 0; i < 3; i++) {
        w->dsv4_k_gpu[i] = g * w->dsv4_k[i];
        w->dsv4_state_gpu[i] = g * w->dsv4_state[i];
    }
}

static void rows_of(const kv_spec *s, const settings *st, rows *w)
{
    memset(w, 0, sizeof *w);
    w->n_layer = n_layers(s);
    int64_t ngl = st->l->n_gpu_layers.set ? st->l->n_gpu_layers.value
                  : st->build >= B_FA_AUTO  ? w->n_layer + 1
                                            : 0;
    w->gpu_layers = ngl > w->n_layer + 1 ? w->n_layer + 1 : ngl;
    int64_t first_gpu = w->n_layer + 1 - w->gpu_layers; /* the output layer counts as one */
    if (st->dsv4) {
        dsv4_rows(s, st, w, first_gpu);
        return;
    }
    double r, sz;
    state_row(s, &r, &sz);
    if (!s->gguf && rows_by_kind(s, st, w, first_gpu, r, sz))
        return;
    /* layer by layer: a GGUF header's numbers are per layer */
    const kv_gguf_info *g = s->gguf;
    int cacheless = gguf_cacheless(g, st->build);
    int64_t v_max = 0;
    if (!st->flash && !st->v_less) /* only a transposed V reads the widest row */
        for (int64_t l = 0; l < w->n_layer; l++) {
            layer_row row = layer_at(s, l, st->build, cacheless);
            if ((row.cache == CACHE_MAIN || row.cache == CACHE_SWA) && row.v > v_max)
                v_max = row.v;
        }
    for (int64_t l = 0; l < w->n_layer; l++) {
        layer_row row = layer_at(s, l, st->build, cacheless);
        /* each layer's cache sits on its layer's device, or in host memory with -nkvo: the
         * llama_kv_cache constructor (src/llama-kv-cache.cpp) starts from
         * ggml_backend_cpu_buffer_type() and takes model.dev_layer(il)'s buffer type only
         * `if (offload)` (cparams.offload_kqv); the recurrent state is placed the same way
         * (text read in the code index, file 38613623; its commit is not exposed) */
        int on_gpu = l >= first_gpu && !st->l->no_kv_offload;
        int64_t index = !g                                          ? s->layout.index_dim
                        : g->n_tensors == 0 || g->layer_indexer[l] ? g->indexer_key_length
                                                                     : 0;
        add_layers(w, st, &row, index, v_max, r, sz, 1, on_gpu);
        /* Falcon-H1: every layer in both halves of llama_memory_hybrid (create_memory's
         * filter_attn and filter_recr both `return true` for LLM_ARCH_FALCON_H1,
         * src/llama-model.cpp @ 3f545beccee69d9975f466ec7e45fd9aacd8ba90), each on the
         * layer's device */
        if (s->layout.parallel_state && row.cache != CACHE_STATE && !cacheless) {
            layer_row state = {CACHE_STATE, 0, 0, 0, 0};
            add_layers(w, st, &state, 0, v_max, r, sz, 1, on_gpu);
        }
    }
}

/* ---- cells: padding, streams and the sliding-window cache, by build ---- */

typedef struct {
    int64_t pad, cells, streams, n_ctx, swa_cells, slot_ctx;
    int rounded;
} cells;

/* dsv4_comp_size(kv_size, ratio): max(1, ceil(kv_size / ratio)) rows, printed as asked; the
 * caches get GGML_PAD(that, 256u) cells a stream (llama-kv-cache-dsv4.cpp @ 3f545bec). */
static int64_t dsv4_comp_size(int64_t kv_size, int64_t ratio)
{
    int64_t n = (kv_size + ratio - 1) / ratio;
    return n > 1 ? n : 1;
}

/* A compressor state's planes: `n_stream*(1 + n_rs_seq)` with n_stream = n_seq_max (it is
 * built with unified_compressed = false) from b10228 (596a5795b, #25784); n_stream before. */
static int64_t dsv4_planes(const settings *st)
{
    return st->n_seq * (1 + (st->build >= B_DSV4_RS ? st->n_rs_seq : 0));
}

/* The compressed caches and the states of DeepSeek-V4, all and on the GPU. Each compressed
 * cache has n_seq_max streams (unified_compressed = false) of its padded cells, from the raw
 * cache's kv_size = cparams.n_ctx_seq (llama-model.cpp create_memory, LLM_ARCH_DEEPSEEK4):
 * c->cells, one stream's cells unified or not. */
static void dsv4_sum(const settings *st, const rows *w, const cells *c, double *all, double *gpu)
{
    double n = (double)st->n_seq, planes = (double)dsv4_planes(st);
    double c4 = (double)pad_to(dsv4_comp_size(c->cells, 4), 256) * n;
    double c128 = (double)pad_to(dsv4_comp_size(c->cells, 128), 256) * n;
    *all = (w->dsv4_k[0] + w->dsv4_k[2]) * c4 + w->dsv4_k[1] * c128 +
           (w->dsv4_state[0] + w->dsv4_state[1] + w->dsv4_state[2]) * planes;
    *gpu = (w->dsv4_k_gpu[0] + w->dsv4_k_gpu[2]) * c4 + w->dsv4_k_gpu[1] * c128 +
           (w->dsv4_state_gpu[0] + w->dsv4_state_gpu[1] + w->dsv4_state_gpu[2]) * planes;
}

/* The raw caches' streams: DeepSeek-V4 builds its iswa with `unified_raw = false` ("Keep DSV4
 * KV/state streams per sequence even when public KV mode is unified"), a stream a slot. */
static int64_t raw_streams(const settings *st, const cells *c)
{
    return st->dsv4 ? st->n_seq : c->streams;
}


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
    else if (st->dsv4) {
        /* llama_kv_cache_iswa with unified_raw = false: GGML_PAD(min(size_base, n_swa x 1 +
         * n_ubatch), 256) (src/llama-kv-cache-iswa.cpp @ 3f545bec), size_base = n_ctx_seq */
        want = st->n_swa + st->n_ubatch;
        c->swa_cells = pad_to(want < c->cells ? want : c->cells, 256);
    } else if (b >= B_PAD_256) {
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
    const kv_opt_int given = st->l->ctx_size;
    *autofit = !given.set && st->build >= B_AUTOFIT;
    int64_t c = given.set               ? given.value
                : st->build >= B_AUTOFIT ? 0
                : st->build >= B_CTX_4096 ? 4096
                                          : 512;
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
    const kv_gguf_info *g = s->gguf;
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
    double kv_gpu, kv_host, weights_gpu, cpu_moe, compute, needed, lora_gpu;
    int64_t draft_contexts, draft_cells, draft_gpu_layers;
    int draft_shared;
    double draft_kv, draft_kv_gpu, draft_weights_gpu, draft_head_copy;
    double mtp_kv, mtp_kv_gpu;
    double overridden;        /* weights -ot and --(n-)cpu-moe move to the CPU */
    int64_t override_tensors; /* the tensors of those */
    double head_copy;         /* a tied output head's copy on the GPU (TENSOR_DUPLICATED) */
    double input_host;        /* the input layer's embeddings, on the CPU */
} gpu_use;

/* The weights on the GPU of a model of `bytes` whose input layer holds `input` and whose
 * head `head` (a copy of the embedding when tied, else its own tensor): with gpu_layers of
 * the n_layer + 1 (the output layer counts as one, the first placed), the head and the last
 * gpu_layers - 1 blocks' share of the rest (*copy: a tied head's second copy, there). */
static double split_weights(double bytes, double input, double head, int tied,
                            int64_t gpu_layers, int64_t n_layer, double *copy)
{
    /* llama_model::load_tensors: i_gpu_start = n_layer + 1 - n_gpu_layers, the output layer
     * (il = n_layer) the first to go: -ngl N holds the head and the last N - 1 blocks */
    double blocks = bytes - input - (tied ? 0 : head);
    int64_t block_layers = gpu_layers < 1 ? 0 : gpu_layers - 1 < n_layer ? gpu_layers - 1 : n_layer;
    int on = gpu_layers >= 1;
    *copy = on && tied ? head : 0;
    return blocks * (double)block_layers / (double)n_layer + (on ? head : 0);
}

/* The weights on the GPU with gpu_layers of the n_layer + 1 layers there (the output layer
 * counts as one and goes first). The input layer's token embedding never is: "there is very
 * little benefit to offloading the input layer, so always keep it on the CPU"
 * (llama_model::load_tensors, dev_input, src/llama-model.cpp @ 3f545becc). The output layer
 * (its norm and head) is there from -ngl 1; a tied head is the embedding created again on that device
 * (TENSOR_DUPLICATED), a copy that the file holds once (*copy). Each part is its share of the
 * estimated parameters; without an architecture, the layers' share of the weights. */
static double weights_on_gpu(const kv_spec *s, double bytes, int64_t gpu_layers, int64_t n_layer,
                             double all, double *copy, double *input_host)
{
    *copy = *input_host = 0;
    const kv_gguf_info *g = s->gguf;
    if (g && g->weight_bytes > 0 && n_layer >= 1) {
        /* a GGUF: its tensors' own bytes by group ("blk.N.", "output.", "output_norm."; the
         * rest - token_embd and any other tensor outside the blocks - counted as the input
         * layer's), scaled to the weights asked for (1 unless --weights-gib says otherwise) */
        double scale = bytes / g->weight_bytes, blocks_all = 0, blocks_gpu = 0;
        int64_t first = n_layer + 1 - gpu_layers; /* i_gpu_start: the output layer first */
        for (int64_t i = 0; i < n_layer && i < KV_GGUF_MAX_LAYERS; i++) {
            blocks_all += g->block_bytes[i];
            if (i >= first)
                blocks_gpu += g->block_bytes[i];
        }
        int on = gpu_layers >= 1;
        double head = g->output_bytes > 0 ? g->output_bytes : g->token_embd_bytes;
        if (on && !(g->output_bytes > 0))
            *copy = g->token_embd_bytes * scale;
        *input_host = (g->weight_bytes - blocks_all - g->output_bytes - g->output_norm_bytes) * scale;
        return (blocks_gpu + (on ? head + g->output_norm_bytes : 0)) * scale;
    }
    if (!s->arch.known)
        all = 0;
    double matrix = (double)s->arch.vocab * (double)s->arch.hidden;
    /* Gemma's per-layer embeddings are the input layer's too (per_layer_token_embd:
     * LLM_TENSOR_LAYER_INPUT, src/llama-arch.cpp) */
    double input = matrix + (s->arch.ple_dim > 0 ? (double)s->arch.ple_vocab *
                                                       (double)s->arch.ple_dim * (double)s->layers
                                                 : 0);
    if (!(all > 0) || !(matrix > 0) || n_layer < 1 || input + matrix >= all)
        return bytes * (double)gpu_layers / (double)(n_layer + 1);
    *input_host = bytes * input / all;
    return split_weights(bytes, *input_host, bytes * matrix / all, s->arch.tie_embeddings,
                         gpu_layers, n_layer, copy);
}

static void rows_of(const kv_spec *s, const settings *st, rows *w);
static void cells_at(const settings *st, int64_t n_ctx, int has_swa, int swa_full, cells *c);

/* A spec of `layers` full-attention layers of s's shape otherwise (no GGUF rows, no layout,
 * no parts): the draft's and the MTP context's caches are of such layers. */
static void full_layers_spec(const kv_spec *s, int64_t layers, kv_spec *d)
{
    *d = *s;
    memset(&d->layout, 0, sizeof d->layout);
    memset(&d->arch, 0, sizeof d->arch);
    d->gguf = NULL;
    d->layers = layers;
}

/* -md: the draft's contexts, their cache and its weights on the GPU (llama-server; the draft
 * is a model of full-attention layers, kv_draft). Its compute buffers are not counted.
 * - b4246 to b9114 (examples/server/server.cpp @ 70b98fad, PR #10586; server-context.cpp
 *   before 68e7ea3e): one context per slot, `n_parallel = 1`, n_ctx = -cd, or 0 = the slot's
 *   context: n_ctx / n_parallel, from b6931 llama_n_ctx_seq (cd5e3b5, PR #16736: the whole
 *   n_ctx in a unified cache, so each of the 4 automatic slots' drafts takes all of it); the
 *   KV type forced to F16, then -ctkd / -ctvd from b5761 (PR #13782, default f16);
 * - from b9115 (68e7ea3e, PR #22838 "parallel drafting"; common_base_params_to_speculative in
 *   common/speculative.cpp @ 3f545bec, the ngxson/llama.cpp mirror to 2026-08-23): one
 *   context, the target's params copied (its -c, slots, streams) with -ctkd / -ctvd's types;
 *   -cd is gone. A -c of 0 (the default) stays 0 for the draft, which then takes its own
 *   n_ctx_train (2fb989b, after b10573: "the draft context was still created with n_ctx = 0
 *   and fell back to n_ctx_train / n_streams per sequence"; that commit, which makes it follow
 *   the target, is in no build kvcalc describes).
 * -ngld (-1 = the default) places the draft's layers as -ngl does the target's. */
/* --lora: llama_adapter_lora_init_impl (src/llama-adapter.cpp @ 3f545bec, the ngxson/llama.cpp
 * mirror) allocates each lora_a / lora_b pair in the buffer type of the model tensor it
 * patches: a GPU block's pairs on the GPU, the output's with the output layer, token_embd's
 * on the CPU with the input layer. Blocks 0 .. first_gpu - 1 stay on the CPU (-ngl counts
 * from the last block, the output layer first). With some blocks on each side the pairs
 * must be alike per block (llamacpp_check). */
static double lora_on_gpu(const kv_lora_files *lf, const rows *w)
{
    if (!lf->name || w->gpu_layers < 1)
        return 0;
    int64_t first_gpu = w->n_layer + 1 - w->gpu_layers;
    double blocks_all = lf->total_bytes - lf->embd_bytes - lf->output_bytes;
    double blocks = first_gpu <= 0 ? blocks_all
                    : lf->blocks > first_gpu ? lf->block_bytes * (double)(lf->blocks - first_gpu)
                                             : 0;
    return blocks + lf->output_bytes;
}

static void draft_use(const kv_spec *s, const settings *st, const cells *c, gpu_use *u)
{
    const kv_llamacpp_spec *l = st->l;
    u->draft_contexts = u->draft_cells = u->draft_gpu_layers = 0;
    u->draft_shared = st->build >= B_DRAFT_SHARED;
    u->draft_kv = u->draft_kv_gpu = u->draft_weights_gpu = u->draft_head_copy = 0;
    if (!l->draft.name)
        return;
    kv_spec d;
    full_layers_spec(s, l->draft.layers, &d);
    d.kv_heads = l->draft.kv_heads;
    d.head_dim = l->draft.head_dim;
    kv_llamacpp_spec dl = *l; /* the draft's layers placed by -ngld */
    dl.n_gpu_layers = l->n_gpu_layers_draft;
    dl.draft.name = NULL;
    settings ds = *st;
    ds.l = &dl;
    ds.type_k = (int)l->type_k_draft;
    ds.type_v = (int)l->type_v_draft;
    ds.v_less = 0;
    cells dc;
    if (st->build >= B_DRAFT_SHARED) {
        if (st->ctx_from_model)
            cells_at(&ds, l->draft.context_length, 0, 0, &dc);
        else
            dc = *c;
        u->draft_contexts = 1;
    } else {
        ds.n_seq = 1;
        ds.unified = 1;
        int64_t n = l->ctx_size_draft.set && l->ctx_size_draft.value > 0 ? l->ctx_size_draft.value
                    : st->build >= B_DRAFT_CTX_SEQ                     ? c->slot_ctx
                                                                       : c->n_ctx / st->n_seq;
        cells_at(&ds, n, 0, 0, &dc);
        u->draft_contexts = st->n_seq > 1 ? st->n_seq : 1;
    }
    rows dw;
    rows_of(&d, &ds, &dw);
    double per = (double)dc.n_ctx * (double)u->draft_contexts;
    u->draft_cells = dc.n_ctx;
    u->draft_gpu_layers = dw.gpu_layers;
    u->draft_kv = (dw.k[CACHE_MAIN] + dw.v[CACHE_MAIN]) * per;
    u->draft_kv_gpu = (dw.k_gpu[CACHE_MAIN] + dw.v_gpu[CACHE_MAIN]) * per;
    /* the draft is loaded as the target is: its input layer on the CPU, its head with the
     * output layer (split_weights), when its parts are known; else its layers' share */
    const kv_draft *dr = &l->draft;
    u->draft_head_copy = 0;
    u->draft_weights_gpu =
        dr->head_bytes > 0 && dw.n_layer > 0
            ? split_weights(dr->weights_bytes, dr->input_bytes, dr->head_bytes, dr->tied,
                            dw.gpu_layers, dw.n_layer, &u->draft_head_copy)
            : dr->weights_bytes * (double)dw.gpu_layers / (double)(dw.n_layer + 1);
}

/* --spec-type draft-mtp: the MTP context (common_speculative_init_result, common/
 * speculative.cpp @ 3f545becc) is a context of the target model with the target's params -
 * its cache types, slots and streams - and n_ctx = llama_n_ctx(ctx_tgt); for Qwen3.5 and
 * Qwen3-Next (mtp_on_hybrid_qwen, llama_model::create_memory in src/llama-model.cpp) its
 * memory is a plain llama_kv_cache of the layers il >= n_layer(): the next-n layers, full
 * attention with the model's KV heads and head size. A real log of Qwen3.6-27B's MTP GGUF at
 * 131,072 cells, q8_0: "size = 272.00 MiB (131072 cells, 1 layers, 4/1 seqs)" = 131,072 x 2
 * x 4 x 256 x 34/32 B. The next-n layer is the model's last block: on the GPU with any block
 * there, as -ngl counts from the last. */
static void mtp_use(const kv_spec *s, const settings *st, const cells *c, gpu_use *u)
{
    u->mtp_kv = u->mtp_kv_gpu = 0;
    if (st->l->spec_type != KV_LLAMACPP_SPEC_MTP || s->arch.mtp_layers <= 0)
        return;
    kv_spec d;
    full_layers_spec(s, s->arch.mtp_layers, &d);
    kv_llamacpp_spec dl = *st->l;
    dl.draft.name = NULL;
    dl.n_gpu_layers = (kv_opt_int){0, 1};
    rows wt;
    rows_of(s, st, &wt);
    if (wt.gpu_layers >= 2) /* a block on the GPU: the last, the next-n layer among them */
        dl.n_gpu_layers.value = d.layers + 1;
    settings ds = *st;
    ds.l = &dl;
    rows dw;
    rows_of(&d, &ds, &dw);
    u->mtp_kv = (dw.k[CACHE_MAIN] + dw.v[CACHE_MAIN]) * (double)c->n_ctx;
    u->mtp_kv_gpu = (dw.k_gpu[CACHE_MAIN] + dw.v_gpu[CACHE_MAIN]) * (double)c->n_ctx;
}

/* ---- -ot / --override-tensor and --(n-)cpu-moe: tensors by name ----------------------------
 * common/arg.cpp parse_tensor_buffer_overrides and llama_model_loader (src/llama-model-
 * loader.cpp) @ 3f545becc: the value's "PATTERN=TYPE" pairs (split at ",", the pattern before
 * the first "="), every tensor's name searched (std::regex_search) with each pattern in
 * order, the first that matches setting its buffer type. --n-cpu-moe N adds
 * "blk\.i\.ffn_(up|down|gate|gate_up)_(ch|)exps" for i < N, --cpu-moe the same without the
 * block (llm_ffn_exps_block_regex, llm_ffn_exps_cpu_override): both only to the CPU. kvcalc
 * names a block's tensors as llama.cpp does (src/llama-arch.cpp) and gives each its share of
 * the estimated parameters where the estimate splits per tensor: the norms, a GQA layer's
 * q / k / v / output, the router, the routed and shared experts and a dense MLP. A pattern
 * that takes a tensor it does not split (MLA and state-layer projections) is refused. */
typedef struct {
    char name[48];
    double params; /* < 0: not split per tensor */
    int routed;    /* a routed experts' tensor (what --n-cpu-moe moves) */
} tensor_row;

#define MAX_BLOCK_TENSORS 24

static int is_moe_block(const kv_spec *s, int64_t i)
{
    int64_t step = s->arch.moe_step >= 1 ? s->arch.moe_step : 1;
    return s->arch.experts > 0 && i >= s->arch.first_dense && (i + 1) % step == 0;
}

static size_t add_tensor(tensor_row *t, size_t n, int64_t i, const char *what, double params,
                         int routed)
{
    if (n < MAX_BLOCK_TENSORS) {
        kv_snprintf(t[n].name, sizeof t[n].name, "blk.%lld.%s.weight", (long long)i, what);
        t[n].params = params;
        t[n].routed = routed;
        n++;
    }
    return n;
}

static size_t block_tensors(const kv_spec *s, const settings *st, int64_t i, int cacheless,
                            tensor_row *t)
{
    const kv_arch *a = &s->arch;
    double h = (double)a->hidden, heads = (double)(a->heads > 0 ? a->heads : s->kv_heads);
    double hd = (double)s->head_dim, kvh = (double)s->kv_heads;
    layer_row row = layer_at(s, i, st->build, cacheless);
    size_t n = 0;
    n = add_tensor(t, n, i, "attn_norm", h, 0);
    if (row.cache == CACHE_STATE) {
        static const char *const mixer[] = {"ssm_in", "ssm_conv1d", "ssm_out", "ssm_a",
                                            "ssm_d", "ssm_dt", "ssm_norm"};
        for (size_t k = 0; k < sizeof mixer / sizeof mixer[0]; k++)
            n = add_tensor(t, n, i, mixer[k], -1, 0);
    } else if (s->layout.mla) {
        static const char *const mla[] = {"attn_q", "attn_q_a", "attn_q_b", "attn_kv_a_mqa",
                                          "attn_kv_b", "attn_k_b", "attn_v_b", "attn_output"};
        for (size_t k = 0; k < sizeof mla / sizeof mla[0]; k++)
            n = add_tensor(t, n, i, mla[k], -1, 0);
    } else {
        n = add_tensor(t, n, i, "attn_q", h * heads * hd, 0);
        n = add_tensor(t, n, i, "attn_k", h * kvh * hd, 0);
        n = add_tensor(t, n, i, "attn_v", h * kvh * hd, 0);
        n = add_tensor(t, n, i, "attn_output", heads * hd * h, 0);
    }
    n = add_tensor(t, n, i, "ffn_norm", h, 0);
    int gated = !a->mlp_plain;
    double width = (double)(a->moe_intermediate > 0 ? a->moe_intermediate : a->intermediate);
    int moe = is_moe_block(s, i);
    if (moe) {
        double e = (double)a->experts;
        n = add_tensor(t, n, i, "ffn_gate_inp", h * e, 0);
        if (gated)
            n = add_tensor(t, n, i, "ffn_gate_exps", e * h * width, 1);
        n = add_tensor(t, n, i, "ffn_up_exps", e * h * width, 1);
        n = add_tensor(t, n, i, "ffn_down_exps", e * h * width, 1);
        double shared = (double)a->shared_experts * width + (double)a->shared_intermediate;
        if (shared > 0) {
            if (gated)
                n = add_tensor(t, n, i, "ffn_gate_shexp", h * shared, 0);
            n = add_tensor(t, n, i, "ffn_up_shexp", h * shared, 0);
            n = add_tensor(t, n, i, "ffn_down_shexp", h * shared, 0);
        }
    }
    if (!moe || a->moe_with_dense) {
        double dw = (double)(a->experts > 0 && a->dense_intermediate > 0 && !moe
                                 ? a->dense_intermediate
                                 : a->intermediate);
        if (gated)
            n = add_tensor(t, n, i, "ffn_gate", h * dw, 0);
        n = add_tensor(t, n, i, "ffn_up", h * dw, 0);
        n = add_tensor(t, n, i, "ffn_down", h * dw, 0);
    }
    return n;
}

/* The buffer type of an override pair: 1 the CPU, 0 another (not modelled) */
typedef struct {
    const char *pattern;
    size_t len;
    int cpu;
} override_pair;

#define MAX_OVERRIDE_PAIRS 64

/* -ot's pairs in order; -1 and a message when one is not of "PATTERN=TYPE" */
static int override_pairs(const kv_tensor_overrides *o, override_pair *p, char *msg, size_t cap)
{
    int n = 0;
    for (int k = 0; k < o->n; k++)
        for (const char *at = o->text[k]; at;) {
            const char *comma = strchr(at, ',');
            size_t len = comma ? (size_t)(comma - at) : strlen(at);
            const char *eq = memchr(at, '=', len);
            if (!eq) {
                kv_snprintf(msg, cap, "-ot: '%.*s': each pair is <tensor name pattern>=<buffer "
                                      "type>, pairs apart at ',' (llama.cpp: \"invalid value\")",
                            (int)(len < 200 ? len : 200), at);
                return -1;
            }
            if (n >= MAX_OVERRIDE_PAIRS) {
                kv_snprintf(msg, cap, "-ot: more than 64 pairs (kvcalc reads at most 64)");
                return -1;
            }
            size_t tl = len - (size_t)(eq + 1 - at);
            p[n].pattern = at;
            p[n].len = (size_t)(eq - at);
            p[n].cpu = tl == 3 && memcmp(eq + 1, "CPU", 3) == 0;
            n++;
            at = comma ? comma + 1 : NULL;
        }
    return n;
}

/* The parameters the GPU's blocks lose to the CPU by -ot and --(n-)cpu-moe, and the tensors;
 * 0, or a refusal's message (-1). */
static int override_walk(const kv_spec *s, const settings *st, int64_t first_gpu, double *moved,
                         int64_t *tensors, char *msg, size_t cap)
{
    const kv_llamacpp_spec *l = st->l;
    override_pair pairs[MAX_OVERRIDE_PAIRS];
    int np = l->override_tensor.n > 0 ? override_pairs(&l->override_tensor, pairs, msg, cap) : 0;
    *moved = 0;
    *tensors = 0;
    if (np < 0)
        return -1;
    int64_t n_cpu = l->cpu_moe ? INT64_MAX : l->n_cpu_moe;
    if (np == 0 && n_cpu <= 0)
        return 0;
    for (int k = 0; k < np; k++) {
        int rc = kv_regex_search(pairs[k].pattern, pairs[k].len, "", 0);
        if (rc == KV_REGEX_SYNTAX || rc == KV_REGEX_TOO_COMPLEX) {
            kv_snprintf(msg, cap, "-ot: '%.*s' is %s (kvcalc reads literals, ., \\d \\w \\s, "
                                  "[...], (...|...), * + ? {m,n}, ^ and $)",
                        (int)(pairs[k].len < 200 ? pairs[k].len : 200), pairs[k].pattern,
                        rc == KV_REGEX_SYNTAX ? "not a pattern kvcalc reads"
                                              : "too long or too complex a pattern");
            return -1;
        }
        if (!pairs[k].cpu) {
            kv_snprintf(msg, cap, "-ot: '%.*s=%s': kvcalc models moves to the CPU (=CPU); "
                                  "another buffer type places tensors on a device kvcalc does "
                                  "not model",
                        (int)(pairs[k].len < 200 ? pairs[k].len : 200), pairs[k].pattern,
                        pairs[k].pattern + pairs[k].len + 1);
            return -1;
        }
    }
    /* the output layer's tensors (llama-model.cpp create_tensor: output_norm, output): a
     * pattern taking them moves what kvcalc counts only as the output layer's share, so it is
     * refused rather than read as moving nothing (regex_search: "output\\.weight" also
     * takes every blk.N.attn_output.weight) */
    static const char *const outside[] = {"output_norm.weight", "output.weight"};
    for (int k = 0; k < np; k++)
        for (size_t j = 0; j < sizeof outside / sizeof outside[0]; j++)
            if (kv_regex_search(pairs[k].pattern, pairs[k].len, outside[j],
                                strlen(outside[j])) == KV_REGEX_YES) {
                kv_snprintf(msg, cap, "-ot: '%.*s' takes %s, a tensor of the output layer: "
                                      "kvcalc moves the blocks' tensors (blk.N.*) only",
                            (int)(pairs[k].len < 200 ? pairs[k].len : 200), pairs[k].pattern,
                            outside[j]);
                return -1;
            }
    if (!s->arch.known || s->arch.hidden <= 0) {
        kv_snprintf(msg, cap, "-ot / --n-cpu-moe: kvcalc splits a block into its tensors from "
                              "the architecture of a config.json or a preset (--config, --model "
                              "NAME); a GGUF file's header gives it each block's bytes only");
        return -1;
    }
    int cacheless = gguf_cacheless(s->gguf, st->build);
    int64_t n = n_layers(s);
    for (int64_t i = first_gpu > 0 ? first_gpu : 0; i < n; i++) {
        tensor_row t[MAX_BLOCK_TENSORS];
        size_t nt = block_tensors(s, st, i, cacheless, t);
        for (size_t j = 0; j < nt; j++) {
            int take = t[j].routed && i < n_cpu;
            for (int k = 0; k < np && !take; k++) {
                int rc = kv_regex_search(pairs[k].pattern, pairs[k].len, t[j].name,
                                         strlen(t[j].name));
                if (rc == KV_REGEX_TOO_COMPLEX) {
                    kv_snprintf(msg, cap, "-ot: '%.*s' takes too long to search",
                                (int)(pairs[k].len < 200 ? pairs[k].len : 200), pairs[k].pattern);
                    return -1;
                }
                take = rc == KV_REGEX_YES;
            }
            if (!take)
                continue;
            if (t[j].params < 0) {
                kv_snprintf(msg, cap, "-ot: it takes %s, whose size kvcalc does not split per "
                                      "tensor (MLA and state-layer projections): kvcalc moves "
                                      "norms, q/k/v/output, the router, experts and MLPs",
                            t[j].name);
                return -1;
            }
            *moved += t[j].params;
            (*tensors)++;
        }
    }
    return 0;
}

static void gpu_use_at(const kv_spec *s, const kv_result *r, const settings *st,
                       const rows *w, const cells *c, gpu_use *u)
{
    double main_all = (w->k[CACHE_MAIN] + w->v[CACHE_MAIN] + w->index) * (double)c->n_ctx;
    double swa_all = (w->k[CACHE_SWA] + w->v[CACHE_SWA]) * (double)(c->swa_cells * raw_streams(st, c));
    /* each sequence's state, and 1 + n_rs_seq copies of it ("tensors are widened to (1 +
     * n_rs_seq) groups", llama-memory-recurrent.h; a real log: 201.00 MiB = 4 x 50.25 for
     * Qwen3.5-4B with 3 rs_seq) */
    double rows_n = (double)(st->n_seq > 1 ? st->n_seq : 1) * (double)(1 + st->n_rs_seq);
    double state_all = (w->state_r + w->state_s) * rows_n;
    u->kv_gpu = (w->k_gpu[CACHE_MAIN] + w->v_gpu[CACHE_MAIN] + w->index_gpu) * (double)c->n_ctx +
                (w->k_gpu[CACHE_SWA] + w->v_gpu[CACHE_SWA]) * (double)(c->swa_cells * raw_streams(st, c)) +
                w->state_gpu * rows_n;
    double v4 = 0, v4_gpu = 0;
    if (st->dsv4)
        dsv4_sum(st, w, c, &v4, &v4_gpu);
    u->kv_gpu += v4_gpu;
    u->kv_host = main_all + swa_all + state_all + v4 - u->kv_gpu;
    /* the weights in proportion to the layers on the GPU (the output layer counts as one) */
    /* the estimated parameters, once: the placement's and the overrides' shares */
    double all = kv_estimate_params(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim);
    u->weights_gpu = weights_on_gpu(s, r->weights_bytes, w->gpu_layers, w->n_layer, all,
                                    &u->head_copy, &u->input_host);
    /* --n-cpu-moe N: one override per block i < N of llm_ffn_exps_block_regex(i)
     * ("blk\\.i\\.ffn_(up|down|gate|gate_up)_(ch|)exps", the routed experts; shared experts
     * stay) to ggml_backend_cpu_buffer_type() (common/arg.cpp and common/common.h @
     * 87268f77): the GPU's MoE blocks among them lose their experts, each a MoE layer's share
     * of the experts' estimated parameters */
    /* --n-cpu-moe / --cpu-moe and -ot: the GPU blocks' tensors they take (override_walk);
     * --cpu-moe is the regex without a block (llm_ffn_exps_cpu_override, LLM_FFN_EXPS_REGEX
     * "\\.ffn_(up|down|gate|gate_up)_(ch|)exps" @ 3f545becc): every block's, as if N were all
     * of them; beside --n-cpu-moe the overrides add up, so all of them too. Bytes are each
     * tensor's share of the estimated parameters. */
    u->cpu_moe = u->overridden = 0;
    u->override_tensors = 0;
    int64_t first_gpu = w->n_layer + 1 - w->gpu_layers;
    double moved = 0;
    char msg[8];
    if (all > 0 && override_walk(s, st, first_gpu, &moved, &u->override_tensors, msg,
                                 sizeof msg) == 0) {
        u->overridden = r->weights_bytes * moved / all;
        if (st->l->override_tensor.n > 0 && (st->l->cpu_moe || st->l->n_cpu_moe > 0)) {
            kv_llamacpp_spec alone = *st->l; /* --n-cpu-moe's share, shown apart */
            alone.override_tensor.n = 0;
            settings sa = *st;
            sa.l = &alone;
            int64_t k;
            if (override_walk(s, &sa, first_gpu, &moved, &k, msg, sizeof msg) == 0)
                u->cpu_moe = r->weights_bytes * moved / all;
        } else if (st->l->override_tensor.n == 0) {
            u->cpu_moe = u->overridden;
        }
        u->weights_gpu -= u->overridden;
    }
    int64_t widest = c->cells > c->swa_cells ? c->cells : c->swa_cells;
    u->compute = w->gpu_layers > 0 ? compute_estimate(s, st, widest) : 0;
    draft_use(s, st, c, u);
    mtp_use(s, st, c, u);
    u->lora_gpu = lora_on_gpu(&st->l->lora, w);
    u->needed = u->weights_gpu + u->kv_gpu + u->compute + r->overhead_bytes + u->draft_kv_gpu +
                u->draft_weights_gpu + u->lora_gpu + u->mtp_kv_gpu;
}

/* Whether two -c give the same cells: then the same memory, as gpu_use_at() reads of -c only
 * what cells_at() made of it. */
static int same_cells(const cells *a, const cells *b)
{
    return a->pad == b->pad && a->cells == b->cells && a->streams == b->streams &&
           a->n_ctx == b->n_ctx && a->swa_cells == b->swa_cells && a->slot_ctx == b->slot_ctx &&
           a->rounded == b->rounded;
}

/* The padding step of -c x (c: its cells): the last and the first -c cells_at() pads as it
 * pads x - n_ctx to 256 from b6975, else one stream's share of it (n_seq of them) to the
 * build's padding. A guess that the search checks (step_to): only the cells decide. */
static int64_t step_last(const settings *st, const cells *c, int64_t x)
{
    if (st->build >= B_PAD_256)
        return pad_to(x, 256);
    return st->unified ? pad_to(x, c->pad) : c->cells * st->n_seq;
}

static int64_t step_first(const settings *st, const cells *c, int64_t x)
{
    if (st->build >= B_PAD_256)
        return (x - 1) / 256 * 256 + 1;
    return st->unified ? (x - 1) / c->pad * c->pad + 1 : (c->cells - c->pad) * st->n_seq + 1;
}

/* Moves the bracket's end *x to -c `to` when that has the cells of *x (c): the same memory,
 * so the same side of the bracket. to must lie strictly inside the bracket's other end. */
static void step_to(const settings *st, int has_swa, const cells *c, int64_t *x, int64_t to)
{
    cells t;
    if (to == *x)
        return;
    cells_at(st, to, has_swa, st->l->swa_full, &t);
    if (same_cells(&t, c))
        *x = to;
}

/* The largest -c whose whole fits the GPU: what is needed only grows with n_ctx. *any: every
 * -c fits (nothing that grows with it is on the GPU). */
static int64_t ctx_size_fit(const kv_spec *s, const kv_result *r, const settings *st,
                            const rows *w, int has_swa, int *any)
{
    cells c;
    gpu_use u;
    int64_t lo = 1, hi = CTX_LIMIT;
    *any = 0;
    cells_at(st, hi, has_swa, st->l->swa_full, &c);
    gpu_use_at(s, r, st, w, &c, &u);
    if (u.needed <= r->gpu_mem_bytes) {
        *any = 1;
        return INT64_MAX; /* (the JSON's spelling of "any"; readers test *any) */
    }
    double f_hi = u.needed;
    int64_t first = step_first(st, &c, hi);
    step_to(st, has_swa, &c, &hi, first > lo ? first : lo + 1);
    cells_at(st, lo, has_swa, st->l->swa_full, &c);
    gpu_use_at(s, r, st, w, &c, &u);
    if (u.needed > r->gpu_mem_bytes)
        return 0;
    double f_lo = u.needed, room = r->gpu_mem_bytes;
    int64_t last = step_last(st, &c, lo);
    step_to(st, has_swa, &c, &lo, last < hi ? last : hi - 1);
    /* lo fits, hi does not; what is needed grows with -c (every layer's cells, in steps of
     * the padding): the next try is where the line through the two ends meets the memory,
     * or the middle when that did not halve the bracket - the same answer as bisection in a
     * few tries instead of 30 (issue 22: a sweep searched at every point). Each end is then
     * moved to the edge of its padding step, where the memory is the same: within a step the
     * line says nothing, and bisecting down to its edge took some 8 more tries a point. The
     * answer is the one -c that fits with -c + 1 not fitting, however the bracket moves. */
    int halve = 0;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (!halve && f_hi > f_lo) {
            double guess = (double)lo + (room - f_lo) / (f_hi - f_lo) * (double)(hi - lo);
            if (guess > (double)lo && guess < (double)hi)
                mid = (int64_t)guess;
            if (mid <= lo)
                mid = lo + 1;
            if (mid >= hi)
                mid = hi - 1;
        }
        int64_t span = hi - lo;
        cells_at(st, mid, has_swa, st->l->swa_full, &c);
        gpu_use_at(s, r, st, w, &c, &u);
        if (u.needed <= room) {
            lo = mid;
            f_lo = u.needed;
            last = step_last(st, &c, lo);
            step_to(st, has_swa, &c, &lo, last < hi ? last : hi - 1);
        } else {
            hi = mid;
            f_hi = u.needed;
            first = step_first(st, &c, hi);
            step_to(st, has_swa, &c, &hi, first > lo ? first : lo + 1);
        }
        halve = !halve && hi - lo > span / 2; /* a poor guess: bisect once */
    }
    return lo;
}

/* ---- the engine ---- */

enum {
    LC_P_BUILD, LC_P_CTX, LC_P_PARALLEL, LC_P_UNIFIED, LC_P_SWA_FULL, LC_P_FLASH, LC_P_TYPE_K,
    LC_P_TYPE_V, LC_P_BATCH, LC_P_UBATCH, LC_P_NGL, LC_P_RS_SEQ, LC_P_NKVO, LC_P_CPU_MOE, LC_P_CMOE,
    LC_P_CTX_DRAFT, LC_P_NGL_DRAFT, LC_P_TYPE_K_DRAFT, LC_P_TYPE_V_DRAFT, LC_P_SPEC_TYPE,
    LC_P_SPEC_N_MAX, LC_P_CACHE_RAM, LC_P_WEIGHTS, LC_P_SPS, LC_P_IDLE_SLOTS, LC_PARAMS
};
/* --spec-type's names (common_speculative_type_from_name_map, common/speculative.cpp @
 * 3f545becc; "mtp" as a build of May 2026 spelled it). draft-simple is -md's, and
 * draft-eagle3, draft-dflash and draft-dspark load sidecar models kvcalc does not read: not
 * listed, so refused by name. One type: the comma-separated lists llama.cpp takes are not
 * read. */
static const kv_choice spec_types[] = {
    {"none", KV_LLAMACPP_SPEC_NONE},          {"draft-mtp", KV_LLAMACPP_SPEC_MTP},
    {"mtp", KV_LLAMACPP_SPEC_MTP},            {"ngram-simple", KV_LLAMACPP_SPEC_NGRAM},
    {"ngram-map-k", KV_LLAMACPP_SPEC_NGRAM},  {"ngram-map-k4v", KV_LLAMACPP_SPEC_NGRAM},
    {"ngram-mod", KV_LLAMACPP_SPEC_NGRAM},    {"ngram-cache", KV_LLAMACPP_SPEC_NGRAM},
    {NULL, 0}};

static const kv_param params[LC_PARAMS];

/* What llama.cpp does with DeepSeek-V4 that kvcalc does not size, or refuses. */
static kv_status dsv4_check(const kv_spec *s, const kv_llamacpp_spec *l, const settings *st,
                            kv_error *why)
{
    const kv_status no = KV_ERR_ENGINE_INPUT;
    if (st->build < B_DSV4)
        return kv_refuse(why, no, &params[LC_P_BUILD],
                         "DeepSeek-V4 (architecture deepseek4) is read from build 9840 "
                         "(8c146a836, #24162); build %lld stops with \"unknown model "
                         "architecture: 'deepseek4'\"",
                         (long long)st->build);
    int64_t n = n_layers(s);
    int64_t ngl = l->n_gpu_layers.set ? l->n_gpu_layers.value : n + 1;
    int64_t first_gpu = n + 1 - (ngl > n + 1 ? n + 1 : ngl);
    if (!l->no_kv_offload && first_gpu > 0 && first_gpu < n)
        return kv_refuse(why, no, &params[LC_P_NGL],
                         "kvcalc places DeepSeek-V4's caches with every layer on one side (-ngl "
                         "0 or all): it keeps how many layers compress_ratios gives 4 and 128, "
                         "not which");
    int k = st->type_k, v = st->type_v;
    if (st->build >= B_DSV4_KV_TYPES && k >= 0 && v >= 0 && k != v)
        return kv_refuse(why, no, &params[LC_P_TYPE_V],
                         "llama.cpp stops with \"model does not support different K (%s) and V "
                         "(%s) cache types\" (from build 10206): give -ctk and -ctv the same "
                         "type",
                         cache_types[k].name, cache_types[v].name);
    return KV_OK;
}

/* The first rule of llama.cpp's that s with flags l breaks, in its words, blaming the flag. */
kv_status kv_llamacpp_check_as(const kv_spec *s, const kv_llamacpp_spec *l, kv_dtype dtype,
                               kv_error *why)
{
    settings st;
    const kv_status no = KV_ERR_ENGINE_INPUT;
    if (s->tp != 1)
        return kv_refuse(why, no, &kv_core_params[KV_P_TP],
                         "llama.cpp splits a model by layers over devices (--n-gpu-layers), not "
                         "by heads: use 1");
    if (s->pp != 1)
        return kv_refuse(why, no, &kv_core_params[KV_P_PP],
                         "llama.cpp places layers with --n-gpu-layers (and --tensor-split), not "
                         "by pipeline stages: use 1");
    if (l->build < 1 || l->batch_size < 1 || l->ubatch_size < 1 ||
        (l->parallel.set && (l->parallel.value < 1 || l->parallel.value > 1000000)) ||
        (l->flash_attn.set && (l->flash_attn.value < 0 || l->flash_attn.value > KV_FLASH_AUTO)) ||
        (l->type_k.set && (l->type_k.value < 0 || l->type_k.value >= KV_GGML_CACHE_TYPES)) ||
        (l->type_v.set && (l->type_v.value < 0 || l->type_v.value >= KV_GGML_CACHE_TYPES)) ||
        (l->ctx_size.set && (l->ctx_size.value < 0 || l->ctx_size.value > CTX_LIMIT)) ||
        (l->n_gpu_layers.set && l->n_gpu_layers.value < 0))
        return kv_refuse(why, no, &kv_core_params[KV_P_ENGINE],
                         "an input is out of range (build >= 1, batch sizes >= 1, --parallel "
                         "<= 1000000, --ctx-size <= 2^31 - 1)");
    const kv_param *moe_flag = &params[l->cpu_moe ? LC_P_CMOE : LC_P_CPU_MOE];
    if ((l->n_cpu_moe > 0 || l->cpu_moe) && !s->arch.known) /* the experts' share is unknown */
        return kv_refuse(why, no, moe_flag,
                         "the experts' size needs the model's widths (a config.json, a GGUF or a "
                         "preset), not only its KV geometry");
    resolve(s, l, dtype, &st);
    /* llama_context: "n_seq_max must be <= LLAMA_MAX_SEQ" - 64 from de2ef53a4 (the 5485th
     * commit, #13706), 256 from e58174cec (the 6507th, #15916); src/llama-cparams.h */
    int64_t max_seq = st.build >= B_MAX_SEQ_256 ? 256 : st.build >= B_MAX_SEQ_64 ? 64 : 0;
    if (max_seq > 0 && st.n_seq > max_seq)
        return kv_refuse(why, no, &params[LC_P_PARALLEL],
                         "llama.cpp refuses it: \"n_seq_max must be <= %lld\" (this build)",
                         (long long)max_seq);
    /* the prompt reuse's flags, by the builds that have them (a value other than the default
     * on an older build would be read by nothing) */
    if (l->cache_ram != DEFAULT_CACHE_RAM && st.build < B_PROMPT_CACHE)
        return kv_refuse(why, no, &params[LC_P_CACHE_RAM],
                         "--cache-ram exists from build 6723 (--llamacpp-build)");
    if (l->slot_prompt_similarity != 0.1 && st.build < B_LCP_SLOTS)
        return kv_refuse(why, no, &params[LC_P_SPS],
                         "-sps exists from build 3109 (--llamacpp-build)");
    if (!l->cache_idle_slots && st.build < B_IDLE_SLOTS)
        return kv_refuse(why, no, &params[LC_P_IDLE_SLOTS],
                         "--cache-idle-slots exists from build 8852 (--clear-idle from 8658; "
                         "--llamacpp-build)");
    if (l->cpu_moe && st.build < B_CPU_MOE)
        return kv_refuse(why, no, &params[LC_P_CMOE],
                         "--cpu-moe exists from build 6051 (--llamacpp-build); from build 5028 "
                         "-ot '\\.ffn_.*_exps\\.=CPU' keeps the experts on the CPU the same way");
    if (l->n_cpu_moe > 0 && st.build < B_N_CPU_MOE)
        return kv_refuse(why, no, &params[LC_P_CPU_MOE],
                         "--n-cpu-moe exists from build 6089 (--llamacpp-build); from build 5028 "
                         "-ot 'blk\\.(0|1|...)\\.ffn_.*_exps\\.=CPU' keeps those blocks' experts on "
                         "the CPU the same way");
    if (st.dsv4) {
        kv_status v4 = dsv4_check(s, l, &st, why);
        if (v4 != KV_OK)
            return v4;
    }
    if (st.type_k < 0 || st.type_v < 0)
        return kv_refuse(why, no, &kv_core_params[KV_P_DTYPE],
                         "llama.cpp has no fp8 KV cache (--cache-type-k / --cache-type-v: f32, "
                         "f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)");
    if (st.build < B_QUANT_CACHE && (is_quantized(st.type_k) || is_quantized(st.type_v)))
        return kv_refuse(why, no, NULL,
                         "--cache-type-k/-v: quantized cache types exist from build 1619 "
                         "(--llamacpp-build)");
    if (l->flash_attn.set && l->flash_attn.value == KV_FLASH_AUTO && st.build < B_FA_AUTO)
        return kv_refuse(why, no, &params[LC_P_FLASH],
                         "'auto' exists from build 6325; earlier builds take on or off");
    if (is_quantized(st.type_v) && !st.flash && !st.v_less)
        return kv_refuse(why, no, &params[LC_P_TYPE_V],
                         "a quantized V cache needs flash attention (--flash-attn on); "
                         "llama.cpp refuses it otherwise");
    if (l->lora.name) {
        int64_t n = n_layers(s);
        int64_t ngl = l->n_gpu_layers.set ? l->n_gpu_layers.value : st.build >= B_FA_AUTO ? n + 1 : 0;
        int64_t first_gpu = n + 1 - (ngl > n + 1 ? n + 1 : ngl);
        if (!l->lora.alike && first_gpu > 0 && first_gpu < n)
            return kv_refuse(why, no, &params[LC_P_NGL],
                             "the LoRA adapters' blocks differ, and these -ngl layers split them "
                             "between the CPU and the GPU: kvcalc places them with every layer on "
                             "one side (-ngl 0 or all)");
        if (l->n_cpu_moe > 0 || l->cpu_moe)
            return kv_refuse(why, no, moe_flag,
                             "kvcalc does not place LoRA pairs of experts kept on the CPU (--lora "
                             "with --n-cpu-moe or --cpu-moe)");
    }
    if (l->override_tensor.n > 0 && st.build < B_OVERRIDE_TENSOR)
        return kv_refuse(why, no, &params[LC_P_BUILD],
                         "-ot / --override-tensor comes with build 5028 (#11397)");
    if (l->override_tensor.n > 0 || l->cpu_moe || l->n_cpu_moe > 0) {
        rows w;
        rows_of(s, &st, &w);
        double moved;
        int64_t tensors;
        char msg[KV_ERROR_MAX];
        if (override_walk(s, &st, w.n_layer + 1 - w.gpu_layers, &moved, &tensors, msg,
                          sizeof msg) != 0)
            return kv_refuse(why, no, NULL, "%s", msg);
    }
    if (l->spec_type == KV_LLAMACPP_SPEC_MTP) {
        if (st.build < B_MTP)
            return kv_refuse(why, no, &params[LC_P_SPEC_TYPE],
                             "draft-mtp comes with build 9180 (#22673, --llamacpp-build)");
        if (s->arch.mtp_layers <= 0)
            return kv_refuse(why, no, &params[LC_P_SPEC_TYPE],
                             "the model has no next-n layers (nextn_predict_layers, "
                             "mtp_num_hidden_layers) for draft-mtp");
        if (s->arch.mixer.kind != KV_MIXER_GDN || s->layout.mla)
            return kv_refuse(why, no, &params[LC_P_SPEC_TYPE],
                             "kvcalc models llama.cpp's MTP context for Qwen3.5 and "
                             "Qwen3-Next (a plain cache of the next-n layers); other models' "
                             "MTP contexts are not modelled");
        if (l->draft.name)
            return kv_refuse(why, no, &params[LC_P_SPEC_TYPE],
                             "draft-mtp uses the model's own next-n layers: drop -md");
    }
    if (l->ctx_size_draft.set && !l->draft.name)
        return kv_refuse(why, no, &params[LC_P_CTX_DRAFT], "applies with a draft model (-md)");
    if (l->draft.name) {
        if (st.build < B_DRAFT)
            return kv_refuse(why, no, &kv_core_params[KV_P_ENGINE],
                             "kvcalc knows llama-server's draft contexts from build 4246 "
                             "(--llamacpp-build)");
        int from_model, autofit;
        (void)n_ctx_asked(s, &st, &from_model, &autofit);
        if (from_model && st.build >= B_DRAFT_SHARED && l->draft.context_length <= 0)
            return kv_refuse(why, no, &params[LC_P_CTX],
                             "with -c 0 the draft's context is its own n_ctx_train, which its "
                             "config does not give: give -c");
        if (l->ctx_size_draft.set && st.build >= B_DRAFT_SHARED)
            return kv_refuse(why, no, &params[LC_P_CTX_DRAFT],
                             "-cd is gone from build 9115: the draft's one context takes the "
                             "target's -c");
        if (st.build < 5761 && (l->type_k_draft != KV_GGML_F16 || l->type_v_draft != KV_GGML_F16))
            return kv_refuse(why, no, &params[LC_P_TYPE_K_DRAFT],
                             "-ctkd / -ctvd exist from build 5761; earlier builds force an F16 "
                             "draft cache");
        if (is_quantized((int)l->type_v_draft) && !st.flash)
            return kv_refuse(why, no, &params[LC_P_TYPE_V_DRAFT],
                             "a quantized V cache needs flash attention (--flash-attn on)");
        if (l->draft.head_dim % cache_types[l->type_k_draft].block != 0 ||
            l->draft.head_dim % cache_types[l->type_v_draft].block != 0)
            return kv_refuse(why, no, &params[LC_P_TYPE_K_DRAFT],
                             "the draft's head size is not a multiple of the type's block of 32 "
                             "elements; llama.cpp refuses it");
    }
    /* a block of one element divides every head size: the walk only for quantized types; a
     * spec's rows depend on the kind alone, so its first pattern period holds the first layer
     * of each kind, in layer order */
    int64_t n = n_layers(s);
    int cacheless = gguf_cacheless(s->gguf, st.build);
    if (!s->gguf && s->layout.pattern_len > 0 && (int64_t)s->layout.pattern_len < n)
        n = (int64_t)s->layout.pattern_len;
    else if (!s->gguf && s->layout.pattern_len == 0 && n > 1)
        n = 1;
    if (!is_quantized(st.type_k) && (st.v_less || !is_quantized(st.type_v)))
        n = 0;
    for (int64_t i = 0; i < n; i++) {
        layer_row row = layer_at(s, i, st.build, cacheless);
        if (row.cache != CACHE_MAIN && row.cache != CACHE_SWA)
            continue;
        if (row.head_k % cache_types[st.type_k].block != 0)
            return kv_refuse(why, no, &params[LC_P_TYPE_K],
                             "the model's K head size is not a multiple of the type's block of "
                             "32 elements; llama.cpp refuses it");
        if (!st.v_less && row.head_v % cache_types[st.type_v].block != 0)
            return kv_refuse(why, no, &params[LC_P_TYPE_V],
                             "the model's V head size is not a multiple of the type's block of "
                             "32 elements; llama.cpp refuses it");
    }
    return KV_OK;
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

/* DeepSeek-V4's compressed caches and states, as llama.cpp prints them. */
static void fill_dsv4(kv_llamacpp_result *L, const kv_spec *s, const settings *st, const rows *w,
                      const cells *c)
{
    double n = (double)st->n_seq, planes = (double)dsv4_planes(st);
    kv_llamacpp_cache *cache[3] = {&L->csa, &L->hca, &L->lid};
    const int64_t ratio[3] = {4, 128, 4};
    const int64_t layers[3] = {s->layout.csa_c4, s->layout.csa_c128, s->layout.csa_c4};
    for (int i = 0; i < 3; i++) {
        cache[i]->layers = layers[i];
        cache[i]->cells = pad_to(dsv4_comp_size(c->cells, ratio[i]), 256);
        cache[i]->k_bytes = w->dsv4_k[i] * (double)cache[i]->cells * n;
        cache[i]->v_bytes = 0;
    }
    L->csa_asked = dsv4_comp_size(c->cells, 4);
    L->hca_asked = dsv4_comp_size(c->cells, 128);
    L->dsv4_planes = dsv4_planes(st);
    L->dsv4_rs_seq = st->build >= B_DSV4_RS ? st->n_rs_seq : 0;
    L->csa_state_width = 2 * s->head_dim;
    L->hca_state_width = s->head_dim;
    L->lid_state_width = 2 * s->layout.csa_index_dim;
    L->csa_state_bytes = w->dsv4_state[0] * planes;
    L->hca_state_bytes = w->dsv4_state[1] * planes;
    L->lid_state_bytes = w->dsv4_state[2] * planes;
    /* its caches keep a stream a slot whatever --kv-unified says: each slot holds n_ctx_seq */
    L->unified = 0;
    L->streams = st->n_seq;
}

static void fill_caches(kv_llamacpp_result *L, const rows *w, const cells *c, double rows_n,
                        int64_t swa_streams)
{
    L->main.layers = w->layers[CACHE_MAIN];
    L->main.cells = c->cells;
    L->main.k_bytes = w->k[CACHE_MAIN] * (double)c->n_ctx;
    L->main.v_bytes = w->v[CACHE_MAIN] * (double)c->n_ctx;
    L->swa.layers = w->layers[CACHE_SWA];
    L->swa.cells = c->swa_cells;
    L->swa.k_bytes = w->k[CACHE_SWA] * (double)(c->swa_cells * swa_streams);
    L->swa.v_bytes = w->v[CACHE_SWA] * (double)(c->swa_cells * swa_streams);
    L->index.layers = w->index_layers;
    L->index.cells = c->cells;
    L->index.k_bytes = w->index * (double)c->n_ctx;
    L->state_layers = w->layers[CACHE_STATE];
    L->state_rows = (int64_t)rows_n;
    L->state_r_bytes = w->state_r * rows_n * (double)(1 + L->n_rs_seq);
    L->state_s_bytes = w->state_s * rows_n * (double)(1 + L->n_rs_seq);
}

kv_status kv_llamacpp_compute_as(const kv_spec *s, const kv_llamacpp_spec *l, kv_dtype dtype,
                                 kv_result *r, kv_llamacpp_result *L)
{
    settings st;
    rows w;
    cells c;
    gpu_use u;
    if (l->weights_gib.set) /* the file's tensor bytes, given (one GPU: no tensor split) */
        r->weights_bytes = r->weights_bytes_group = l->weights_gib.value * KV_GIB;
    resolve(s, l, dtype, &st);
    rows_of(s, &st, &w);
    int has_swa = w.layers[CACHE_SWA] > 0;
    memset(L, 0, sizeof *L);
    L->build = st.build;
    L->n_ctx_asked = n_ctx_asked(s, &st, &L->ctx_from_model, &L->autofit);
    st.ctx_from_model = L->ctx_from_model;
    L->n_seq = st.n_seq;
    L->auto_slots = st.auto_slots;
    L->unified = st.unified;
    L->flash = st.flash;
    L->type_k = st.type_k;
    L->type_v = st.type_v;
    L->v_less = st.v_less;
    L->n_ubatch = st.n_ubatch;
    cells_at(&st, L->n_ctx_asked, has_swa, l->swa_full, &c);
    L->pad = c.pad;
    L->streams = c.streams;
    L->n_ctx = c.n_ctx;
    L->rounded = c.rounded;
    L->slot_ctx = c.slot_ctx;
    L->n_rs_seq = st.n_rs_seq;
    fill_caches(L, &w, &c, (double)(st.n_seq > 1 ? st.n_seq : 1), raw_streams(&st, &c));
    if (st.dsv4)
        fill_dsv4(L, s, &st, &w, &c);
    L->n_layer = w.n_layer;
    /* an MTP GGUF's header counts its next-n layers among its blocks (block_count 65 for
     * Qwen3.6-27B's 64 + 1): the recurrent line prints 65 layers */
    L->n_layer_file = w.n_layer + (l->spec_type == KV_LLAMACPP_SPEC_MTP ? s->arch.mtp_layers : 0);
    L->gpu_layers = w.gpu_layers;
    gpu_use_at(s, r, &st, &w, &c, &u);
    L->kv_gpu_bytes = u.kv_gpu;
    L->kv_host_bytes = u.kv_host + (u.draft_kv - u.draft_kv_gpu) + (u.mtp_kv - u.mtp_kv_gpu);
    L->mtp_layers = l->spec_type == KV_LLAMACPP_SPEC_MTP ? s->arch.mtp_layers : 0;
    L->mtp_cells = L->mtp_layers > 0 ? c.n_ctx : 0;
    L->mtp_kv_bytes = u.mtp_kv;
    L->mtp_kv_gpu_bytes = u.mtp_kv_gpu;
    L->weights_gpu_bytes = u.weights_gpu;
    L->weights_host_bytes = r->weights_bytes + u.head_copy - u.weights_gpu +
                            (l->draft.weights_bytes + u.draft_head_copy - u.draft_weights_gpu) +
                            (l->lora.total_bytes - u.lora_gpu);
    /* the model files' buffers (the target's and the draft's; LoRA adapters print their
     * own "LoRA buffer size" lines) */
    L->model_buffers_bytes = r->weights_bytes + u.head_copy + l->draft.weights_bytes +
                             u.draft_head_copy;
    /* the prompt cache grows to --cache-ram as states are saved (server_prompt_cache::alloc,
     * tools/server/server-task.cpp @ 3f545becc; -1 no limit: NaN); not in host_bytes, as a
     * failed allocation lowers its limit instead of stopping the server */
    L->prompt_cache_max_bytes = st.build < B_PROMPT_CACHE || l->cache_ram == 0 ? 0
                                : l->cache_ram < 0                             ? NAN
                                             : (double)l->cache_ram * KV_MIB;
    L->model_host_bytes = L->weights_host_bytes - (l->lora.total_bytes - u.lora_gpu);
    L->input_host_bytes = u.input_host;
    L->head_copy_bytes = u.head_copy;
    L->cpu_moe_bytes = u.cpu_moe;
    L->override_bytes = l->override_tensor.n > 0 ? u.overridden : 0;
    L->override_tensors = l->override_tensor.n > 0 ? u.override_tensors : 0;
    L->compute_bytes = u.compute;
    L->gpu_needed_bytes = u.needed;
    L->draft_contexts = u.draft_contexts;
    L->draft_cells = u.draft_cells;
    L->draft_shared = u.draft_shared;
    L->draft_gpu_layers = u.draft_gpu_layers;
    L->draft_kv_bytes = u.draft_kv;
    L->draft_kv_gpu_bytes = u.draft_kv_gpu;
    L->draft_weights_gpu_bytes = u.draft_weights_gpu;
    L->draft_weights_estimated = l->draft.name && l->draft.weights_estimated;
    L->lora_bytes = l->lora.total_bytes;
    L->lora_gpu_bytes = u.lora_gpu;
    L->fits_gpu = u.needed <= r->gpu_mem_bytes;
    st.ctx_from_model = 0; /* the search gives -c: a shared draft follows it */
    L->ctx_size_fit = ctx_size_fit(s, r, &st, &w, has_swa, &L->ctx_size_fit_any);
    if (L->autofit && !L->fits_gpu && !L->ctx_size_fit_any && L->ctx_size_fit >= AUTOFIT_MIN &&
        L->ctx_size_fit < L->n_ctx_asked) {
        cells fit;
        cells_at(&st, L->ctx_size_fit, has_swa, l->swa_full, &fit);
        L->autofit_ctx = L->ctx_size_fit;
        L->autofit_n_ctx = fit.n_ctx;
        L->autofit_slot_ctx = fit.slot_ctx;
    }

    r->max_concurrency = slots_for(L, s->context);
    /* "b%lld" of a build from 1 to the newest (checked; resolve() caps it), by hand: */
    r->engine_version[0] = 'b';
    r->engine_version[1 + kv_uint_digits(r->engine_version + 1, (uint64_t)st.build)] = '\0';
    r->available_kv_bytes = r->gpu_mem_bytes - u.weights_gpu - u.compute - r->overhead_bytes -
                            u.draft_weights_gpu;
    r->kv_cache_bytes = L->main.k_bytes + L->main.v_bytes + L->swa.k_bytes + L->swa.v_bytes +
                        L->index.k_bytes;
    /* DeepSeek-V4: its compressed caches and its compressor states are KV too (the headline's
     * memory and fits_gpu count them as they count the window) */
    r->kv_cache_bytes += L->csa.k_bytes + L->hca.k_bytes + L->lid.k_bytes + L->csa_state_bytes +
                         L->hca_state_bytes + L->lid_state_bytes;
    r->kv_cache_tokens = L->n_ctx;
    /* the longest request: one slot's room at the largest -c that fits */
    if (L->ctx_size_fit_any) {
        r->longest_context_fit = st.ctx_train > 0 ? st.ctx_train : INT64_MAX;
        r->longest_context_any = st.ctx_train <= 0;
    } else if (L->ctx_size_fit > 0) {
        cells_at(&st, L->ctx_size_fit, has_swa, l->swa_full, &c);
        r->longest_context_fit = c.slot_ctx;
    }
    /* the cache buffers on the CPU buffer type (-nkvo, layers past -ngl, a draft's); the
     * weights left on the host are mapped from the file (mmap), not allocated */
    r->host_bytes = L->kv_host_bytes;
    return KV_OK;
}

/* The descriptor's check and compute: the spec's own flags and dtype. */
static kv_status llamacpp_check(const kv_spec *s, kv_error *why)
{
    return kv_llamacpp_check_as(s, &s->llamacpp, s->dtype, why);
}

static kv_status llamacpp_compute(const kv_spec *s, kv_result *r)
{
    return kv_llamacpp_compute_as(s, &s->llamacpp, s->dtype, r, &r->llamacpp);
}

/* The 8-bit KV lever: q8_0 for K and V; a quantized V cache needs flash attention. */
static void llamacpp_kv8(kv_spec *s)
{
    kv_llamacpp_spec *l = &s->llamacpp;
    l->type_k = l->type_v = KV_SOME_INT(KV_GGML_Q8_0);
    if ((l->flash_attn.set && l->flash_attn.value == KV_FLASH_OFF) ||
        (!l->flash_attn.set && l->build < B_FA_AUTO))
        l->flash_attn = KV_SOME_INT(KV_FLASH_ON);
}

/* ---- the descriptor: llama.cpp's own flags (short ones too), fields and log tables ---- */

#define E KV_ENGINE_LLAMACPP
#define P(TYPE, m) KV_EPARAM(E, kv_llamacpp_spec, TYPE, m)

static const kv_choice flash_modes[] = {
    {"off", KV_FLASH_OFF}, {"on", KV_FLASH_ON}, {"auto", KV_FLASH_AUTO}, {NULL, 0}};
/* llama.cpp's -ctk / -ctv names, in kv_ggml_cache_type order */
static const kv_choice type_names[] = {
    {"f32", KV_GGML_F32},   {"f16", KV_GGML_F16},       {"bf16", KV_GGML_BF16},
    {"q8_0", KV_GGML_Q8_0}, {"q4_0", KV_GGML_Q4_0},     {"q4_1", KV_GGML_Q4_1},
    {"iq4_nl", KV_GGML_IQ4_NL}, {"q5_0", KV_GGML_Q5_0}, {"q5_1", KV_GGML_Q5_1},
    {NULL, 0}};

static const kv_param params[LC_PARAMS] = {
    [LC_P_BUILD] = {.name = "llamacpp-build", P(INT, build), .key = "llamacpp_build", .min = 1,
                    .max = 1000000, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                    .help = "the llama.cpp build whose rules apply (newer: the newest) [10573]"},
    /* -c and -cd are ints (common_arg's int handler, common/common.h int32_t n_ctx @
     * 3f545becc): llama.cpp reads no more than 2^31 - 1 */
    [LC_P_CTX] = {.name = "ctx-size", .short_name = "c", P(OPT_INT, ctx_size), .key = "ctx_size",
                  .min = 0, .max = 2147483647.0, .tokens = 1, .blames = KV_ERR_ENGINE_INPUT,
                  .meta = "N",
                  .help = "n_ctx: cells of the cache, all slots; 0 = the model's context_length "
                          "[auto: the build's default]"},
    [LC_P_PARALLEL] = {.name = "parallel", .short_name = "np", P(OPT_INT, parallel),
                       .key = "parallel", .min = 1, .max = 1000000, .blames = KV_ERR_ENGINE_INPUT,
                       .meta = "N",
                       .help = "slots (sequences) [auto: llama-server's, 4 unified from b6925, "
                               "else 1]"},
    [LC_P_UNIFIED] = {.name = "kv-unified", .short_name = "kvu", P(SWITCH, kv_unified),
                      .key = "kv_unified", .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                      .help = "one cache stream shared by every slot"},
    [LC_P_SWA_FULL] = {.name = "swa-full", P(SWITCH, swa_full), .key = "swa_full",
                       .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                       .help = "sliding-window layers keep a full-size cache"},
    [LC_P_FLASH] = {.name = "flash-attn", .short_name = "fa", P(OPT_CHOICE, flash_attn),
                    .key = "flash_attn", .choices = flash_modes, .blames = KV_ERR_ENGINE_INPUT,
                    .meta = "MODE", .help = "on, off or auto [auto: auto from b6325, else off]"},
    [LC_P_TYPE_K] = {.name = "cache-type-k", .short_name = "ctk", P(OPT_CHOICE, type_k),
                     .key = "cache_type_k", .choices = type_names, .blames = KV_ERR_ENGINE_INPUT,
                     .meta = "TYPE",
                     .help = "K cache type: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1 [f16]"},
    [LC_P_TYPE_V] = {.name = "cache-type-v", .short_name = "ctv", P(OPT_CHOICE, type_v),
                     .key = "cache_type_v", .choices = type_names, .blames = KV_ERR_ENGINE_INPUT,
                     .meta = "TYPE",
                     .help = "V cache type (quantized needs flash attention) [f16]"},
    [LC_P_BATCH] = {.name = "batch-size", .short_name = "b", P(INT, batch_size),
                    .key = "batch_size", .min = 1, .max = 1000000000, .tokens = 1,
                    .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                    .help = "logical batch: the micro-batch is at most this"},
    [LC_P_UBATCH] = {.name = "ubatch-size", .short_name = "ub", P(INT, ubatch_size),
                     .key = "ubatch_size", .min = 1, .max = 1000000000, .tokens = 1,
                     .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                     .help = "micro-batch: sizes the sliding-window cache and compute buffer"},
    [LC_P_NGL] = {.name = "n-gpu-layers", .short_name = "ngl", P(OPT_INT, n_gpu_layers),
                  .key = "n_gpu_layers", .min = 0, .max = 1000000, .blames = KV_ERR_ENGINE_INPUT,
                  .meta = "N",
                  .help = "layers on the GPU (+1 = the output layer) [auto: all from b6325, else "
                          "0]"},
    [LC_P_IDLE_SLOTS] = {.name = "cache-idle-slots", .aliases = {"no-cache-idle-slots", NULL},
                         P(SWITCH, cache_idle_slots), .key = "cache_idle_slots",
                         .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                         .help = "a workload's ending task's slot saved to the prompt cache, "
                                 "and freed with one shared cache (--no-...: kept) [on]"},
    [LC_P_SPS] = {.name = "slot-prompt-similarity", .short_name = "sps",
                  P(NUM, slot_prompt_similarity), .key = "slot_prompt_similarity", .min = 0,
                  .max = 1, .blames = KV_ERR_ENGINE_INPUT, .meta = "F",
                  .help = "a workload's slot choice: an idle slot whose common prefix is over "
                          "this share of the prompt first (0: off) [0.1]"},
    /* vLLM's twin: the same name, type and bounds */
    [LC_P_WEIGHTS] = {.name = "weights-gib", P(OPT_NUM, weights_gib), .key = "weights_gib",
                      .min = 0, .max = 1e12, .estimate = 1, .blames = KV_ERR_ENGINE_INPUT,
                      .meta = "GIB",
                      .help = "the model's tensor bytes (a log's \"file size\"), split over the "
                              "devices by each part's share [auto: the GGUF's, else estimate]"},
    [LC_P_CACHE_RAM] = {.name = "cache-ram", .short_name = "cram", P(INT, cache_ram),
                        .key = "cache_ram", .min = -1, .max = 2147483647.0,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                        .help = "the host-memory prompt cache in MiB (-1: no limit, 0: none); "
                                "a workload's slot reuse [8192]"},
    [LC_P_RS_SEQ] = {.name = "n-rs-seq", P(OPT_INT, n_rs_seq), .key = "n_rs_seq", .min = 0,
                     .max = 1024, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                     .help = "recurrent-state snapshots per sequence (the log's n_rs_seq) "
                             "[--spec-type draft-mtp on Qwen3.5: --spec-draft-n-max; else 0]"},
    [LC_P_SPEC_N_MAX] = {.name = "spec-draft-n-max", P(OPT_INT, spec_draft_n_max),
                         .key = "spec_draft_n_max", .min = 0, .max = 1024,
                         .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                         .help = "tokens drafted a step; with draft-mtp the snapshots the "
                                 "recurrent state keeps [16, from b9235 3]"},
    [LC_P_NKVO] = {.name = "no-kv-offload", .short_name = "nkvo", P(SWITCH, no_kv_offload),
                   .key = "no_kv_offload", .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                   .help = "keep the KV cache in host memory, whatever -ngl puts on the GPU (the "
                           "compute buffer estimate is unchanged)"},
    [LC_P_CPU_MOE] = {.name = "n-cpu-moe", .short_name = "ncmoe", P(INT, n_cpu_moe),
                      .key = "n_cpu_moe", .min = 0, .max = 1000000, .blames = KV_ERR_ENGINE_INPUT,
                      .meta = "N",
                      .help = "keep the MoE experts of the first N layers on the CPU [0]"},
    [LC_P_CMOE] = {.name = "cpu-moe", .short_name = "cmoe", P(SWITCH, cpu_moe), .key = "cpu_moe",
                   .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                   .help = "keep every layer's MoE experts on the CPU (from b6051)"},
    [LC_P_CTX_DRAFT] = {.name = "ctx-size-draft", .short_name = "cd", P(OPT_INT, ctx_size_draft),
                        .key = "ctx_size_draft", .min = 0, .max = 2147483647.0, .tokens = 1,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                        .help = "with -md, before b9115: each slot's draft cells [0: the slot's "
                                "context]"},
    [LC_P_NGL_DRAFT] = {.name = "gpu-layers-draft", .short_name = "ngld",
                        .aliases = {"n-gpu-layers-draft", "spec-draft-ngl", NULL},
                        P(OPT_INT, n_gpu_layers_draft), .key = "n_gpu_layers_draft", .min = 0,
                        .max = 1000000, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                        .help = "the draft's layers on the GPU [auto: as -ngl's default]"},
    [LC_P_TYPE_K_DRAFT] = {.name = "cache-type-k-draft", .short_name = "ctkd",
                           .aliases = {"spec-draft-type-k", NULL}, P(CHOICE, type_k_draft),
                           .key = "cache_type_k_draft", .choices = type_names,
                           .blames = KV_ERR_ENGINE_INPUT, .meta = "TYPE",
                           .help = "the draft's K cache type (from b5761) [f16]"},
    [LC_P_SPEC_TYPE] = {.name = "spec-type", P(CHOICE, spec_type), .key = "spec_type",
                        .choices = spec_types, .blames = KV_ERR_ENGINE_INPUT, .meta = "TYPE",
                        .help = "speculative decoding: draft-mtp (a context of the model's "
                                "next-n layers, from b9180) or an ngram-* type (no memory); "
                                "a draft model is -md [none]"},
    [LC_P_TYPE_V_DRAFT] = {.name = "cache-type-v-draft", .short_name = "ctvd",
                           .aliases = {"spec-draft-type-v", NULL}, P(CHOICE, type_v_draft),
                           .key = "cache_type_v_draft", .choices = type_names,
                           .blames = KV_ERR_ENGINE_INPUT, .meta = "TYPE",
                           .help = "the draft's V cache type (from b5761) [f16]"},
};

#define F(name, m, T, unit, ftype, sweep) KV_EFIELD(E, kv_llamacpp_result, name, m, T, unit, ftype, sweep)
#define FI(name, m, unit) F(name, m, int64_t, unit, KV_F_INT, 0)
#define FN(name, m, unit) F(name, m, double, unit, KV_F_NUM, 0)
#define FB(name, m) F(name, m, int, "boolean", KV_F_BOOL, 0)
static const kv_field fields[] = {
    FI(llamacpp_build, build, "build"),
    F(llamacpp_n_ctx, n_ctx, int64_t, "tokens", KV_F_INT, 1),
    FB(llamacpp_n_ctx_from_model, ctx_from_model),
    FB(llamacpp_autofit, autofit),
    F(llamacpp_n_seq_max, n_seq, int64_t, "sequences", KV_F_INT, 2),
    FB(llamacpp_kv_unified, unified),
    FB(llamacpp_flash_attn, flash),
    FI(llamacpp_n_ubatch, n_ubatch, "tokens"),
    FI(llamacpp_streams, streams, "streams"),
    FI(llamacpp_cells, main.cells, "cells"),
    FI(llamacpp_slot_ctx, slot_ctx, "tokens"),
    FI(llamacpp_layers, main.layers, "layers"),
    FN(llamacpp_k_bytes, main.k_bytes, "bytes"),
    FN(llamacpp_v_bytes, main.v_bytes, "bytes"),
    FI(llamacpp_swa_layers, swa.layers, "layers"),
    FI(llamacpp_swa_cells, swa.cells, "cells"),
    FN(llamacpp_swa_k_bytes, swa.k_bytes, "bytes"),
    FN(llamacpp_swa_v_bytes, swa.v_bytes, "bytes"),
    FI(llamacpp_index_layers, index.layers, "layers"),
    FN(llamacpp_index_k_bytes, index.k_bytes, "bytes"),
    FI(llamacpp_csa_layers, csa.layers, "layers"),
    FI(llamacpp_csa_cells, csa.cells, "cells"),
    FN(llamacpp_csa_k_bytes, csa.k_bytes, "bytes"),
    FI(llamacpp_hca_layers, hca.layers, "layers"),
    FI(llamacpp_hca_cells, hca.cells, "cells"),
    FN(llamacpp_hca_k_bytes, hca.k_bytes, "bytes"),
    FI(llamacpp_lid_layers, lid.layers, "layers"),
    FI(llamacpp_lid_cells, lid.cells, "cells"),
    FN(llamacpp_lid_k_bytes, lid.k_bytes, "bytes"),
    FI(llamacpp_dsv4_state_planes, dsv4_planes, "planes"),
    FN(llamacpp_csa_state_bytes, csa_state_bytes, "bytes"),
    FN(llamacpp_hca_state_bytes, hca_state_bytes, "bytes"),
    FN(llamacpp_lid_state_bytes, lid_state_bytes, "bytes"),
    FI(llamacpp_state_layers, state_layers, "layers"),
    FI(llamacpp_n_rs_seq, n_rs_seq, "snapshots"),
    FN(llamacpp_state_r_bytes, state_r_bytes, "bytes"),
    FN(llamacpp_state_s_bytes, state_s_bytes, "bytes"),
    FI(llamacpp_gpu_layers, gpu_layers, "layers"),
    FN(llamacpp_kv_gpu_bytes, kv_gpu_bytes, "bytes"),
    FN(llamacpp_kv_host_bytes, kv_host_bytes, "bytes"),
    FN(llamacpp_weights_gpu_bytes, weights_gpu_bytes, "bytes"),
    FN(llamacpp_weights_host_bytes, weights_host_bytes, "bytes"),
    FN(llamacpp_input_host_bytes, input_host_bytes, "bytes"),
    FN(llamacpp_head_copy_bytes, head_copy_bytes, "bytes"),
    FN(llamacpp_model_buffers_bytes, model_buffers_bytes, "bytes"),
    FN(llamacpp_model_host_bytes, model_host_bytes, "bytes"),
    FN(llamacpp_prompt_cache_max_bytes, prompt_cache_max_bytes, "bytes"),
    FN(llamacpp_cpu_moe_bytes, cpu_moe_bytes, "bytes"),
    FN(llamacpp_compute_bytes_estimate, compute_bytes, "bytes"),
    FN(llamacpp_gpu_needed_bytes, gpu_needed_bytes, "bytes"),
    F(llamacpp_fits_gpu, fits_gpu, int, "boolean", KV_F_BOOL, 3),
    FI(llamacpp_ctx_size_fit, ctx_size_fit, "tokens"),
    F(llamacpp_autofit_ctx, autofit_ctx, int64_t, "tokens", KV_F_INT_OR_NULL, 0),
    FI(llamacpp_draft_contexts, draft_contexts, "contexts"),
    FI(llamacpp_draft_cells, draft_cells, "cells"),
    FI(llamacpp_draft_gpu_layers, draft_gpu_layers, "layers"),
    FN(llamacpp_draft_kv_bytes, draft_kv_bytes, "bytes"),
    FN(llamacpp_draft_kv_gpu_bytes, draft_kv_gpu_bytes, "bytes"),
    FN(llamacpp_draft_weights_gpu_bytes, draft_weights_gpu_bytes, "bytes"),
    FB(llamacpp_draft_weights_estimated, draft_weights_estimated),
    FN(llamacpp_lora_bytes, lora_bytes, "bytes"),
    FN(llamacpp_lora_gpu_bytes, lora_gpu_bytes, "bytes"),
    FI(llamacpp_mtp_layers, mtp_layers, "layers"),
    FN(llamacpp_override_bytes, override_bytes, "bytes"),
    FI(llamacpp_override_tensors, override_tensors, "tensors"),
    FN(llamacpp_mtp_kv_bytes, mtp_kv_bytes, "bytes"),
    FN(llamacpp_mtp_kv_gpu_bytes, mtp_kv_gpu_bytes, "bytes"),
};

#define T(...) {__VA_ARGS__}

/* llama.cpp's lines by build (src/llama-context.cpp, src/llama-kv-cache.cpp,
 * tools/server/server.cpp; docs/llamacpp.md section 7). */
static const kv_log_pattern patterns[] = {
    {"build: %n (%s)", T(KV_LOG_BUILD, KV_TO_SKIP), KV_START | KV_DRAFT_OFF, NULL},
    {"build = %n (%s)", T(KV_LOG_BUILD, KV_TO_SKIP), KV_START | KV_DRAFT_OFF, NULL},
    /* llama-server's -md (SRV_INF "loading draft model '%s'", server.cpp @ c392e509; LOG_INF
     * "%s: loading draft model '%s'" in 2026): what follows - the draft's metadata, its
     * context and cache lines - is the draft's, not the model's (a log of #11337 prints it
     * after the main cache) */
    {"loading draft model '%s'", T(KV_TO_SKIP), KV_DRAFT_ON, NULL},
    /* --spec-type draft-mtp (common/speculative.cpp @ 3f545becc, from b9191): a second context
     * of the target model whose cache holds the next-n layers only; its context lines repeat
     * the target's, its cache line is the MTP fields' */
    {"creating MTP draft context against the target model", T(KV_LOG_MTP_CONTEXT, 1),
     KV_MTP_ON | KV_CONST, NULL},
    {"loaded meta data with %n key-value pairs and %n tensors from %s (version",
     T(KV_TO_SKIP, KV_TO_SKIP, KV_TO_MODEL), KV_START, NULL},
    {"file size = %b", T(KV_LOG_WEIGHTS), 0, NULL},
    /* the weights' buffers (llama_model::load_tensors, src/llama-model.cpp @ 3f545becc:
     * "%12s model buffer size = %8.2f MiB", one line a buffer, a mapped file's each): the
     * host's are the CPU buffer types (CPU, CPU_Mapped with mmap, CPU_REPACK) and a GPU
     * backend's pinned host buffer ("<backend>_Host": CUDA, ROCm, Vulkan, SYCL, MUSA, CANN) */
    {"load_tensors: %s model buffer size = %b", T(KV_TO_SKIP, KV_LOG_MODEL_BUFFERS), KV_SUM,
     "model buffer size"},
    {"load_tensors: CPU model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"load_tensors: CPU_Mapped model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"load_tensors: CPU_REPACK model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"load_tensors: CUDA_Host model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"load_tensors: ROCm_Host model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"load_tensors: Vulkan_Host model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"load_tensors: SYCL_Host model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"load_tensors: MUSA_Host model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"load_tensors: CANN_Host model buffer size = %b", T(KV_LOG_MODEL_HOST), KV_SUM, NULL},
    {"n_ctx = %n", T(KV_LOG_N_CTX), 0, NULL},
    /* the cache's cells, stated when slots split it (no size line may follow in a short log) */
    {"n_ctx is not divisible by n_seq_max - rounding down to %n", T(KV_LOG_N_CTX), KV_LINE,
     NULL},
    {"n_seq_max = %n", T(KV_LOG_N_SEQ), 0, NULL},
    {"n_rs_seq = %n", T(KV_LOG_N_RS_SEQ), 0, NULL},
    {"n_slots = %n, n_ctx_slot = %n", T(KV_LOG_N_SEQ, KV_LOG_N_CTX_SLOT), KV_ALWAYS, NULL},
    {"using n_parallel = %n and kv_unified = %s", T(KV_LOG_N_SEQ, KV_TO_UNIFIED), 0, NULL},
    {"n_ubatch = %n", T(KV_LOG_N_UBATCH), 0, NULL},
    /* a command line the log echoes (llama.cpp's docs/backend/snapdragon/developer.md shows
     * "--batch-size 128" above its lines and no n_ubatch line): -b bounds the micro-batch,
     * which sizes the sliding-window cache (256 cells there, not 768). The long spellings
     * only: "-b N" is too short to tell from other text */
    {"--batch-size %n", T(KV_LOG_N_BATCH), 0, NULL},
    {"--ubatch-size %n", T(KV_LOG_N_UBATCH), 0, NULL},
    {"flash_attn = %s", T(KV_TO_FLASH), 0, NULL},
    {"kv_unified = %s", T(KV_TO_UNIFIED), 0, NULL},
    {"creating non-SWA KV cache", T(0), KV_SWA_OFF, NULL},
    {"creating SWA KV cache", T(0), KV_SWA_ON, NULL},
    /* their cells a stream (llama_kv_cache_iswa, src/llama-kv-cache-iswa.cpp @ 3f545becc:
     * size_base = kv_size, size_swa = GGML_PAD(min(size_base, n_swa x (unified ? n_seq_max :
     * 1) + n_ubatch), 256)), what a log redacted to its buffer lines still states */
    {"creating non-SWA KV cache, size = %n cells", T(KV_LOG_CELLS), 0, NULL},
    {"creating SWA KV cache, size = %n cells", T(KV_LOG_SWA_CELLS), 0, NULL},
    {"llama_kv_cache_dsa: creating main KV cache", T(0), KV_SWA_OFF, NULL},
    {"llama_kv_cache_dsa: creating indexer KV cache", T(0), KV_INDEX_ON, NULL},
    {"size = %b ( %n cells, %n layers, %n/ %n seqs), K (%s): %b, V (%s): %b",
     T(KV_LOG_KV_BYTES, KV_LOG_CELLS, KV_LOG_LAYERS, KV_LOG_N_SEQ, KV_LOG_STREAMS, KV_TO_TYPE_K,
       KV_LOG_K_BYTES, KV_TO_TYPE_V, KV_LOG_V_BYTES),
     KV_LINE | KV_CACHE, "llama_kv_cache"}, /* "1/ 1 seqs" too (builds of mid-2025) */
    /* llama_kv_cache_unified of mid-2025 builds (b5640): "( 4096 cells, 16 layers, 1 seqs)",
     * one stream */
    {"size = %b ( %n cells, %n layers, %n seqs), K (%s): %b, V (%s): %b",
     T(KV_LOG_KV_BYTES, KV_LOG_CELLS, KV_LOG_LAYERS, KV_LOG_N_SEQ, KV_TO_TYPE_K, KV_LOG_K_BYTES,
       KV_TO_TYPE_V, KV_LOG_V_BYTES),
     KV_LINE | KV_CACHE, "llama_kv_cache_unified"},
    {"KV self size = %b, K (%s): %b, V (%s): %b",
     T(KV_LOG_KV_BYTES, KV_TO_TYPE_K, KV_LOG_K_BYTES, KV_TO_TYPE_V, KV_LOG_V_BYTES), KV_LINE,
     "KV self size"},
    {"kv self size = %b", T(KV_LOG_KV_BYTES), KV_LINE, "kv self size (pre-GGUF)"},
    /* each device's share of the caches, printed before the "size =" line - what a start that
     * failed after allocating them still shows */
    {"llama_kv_cache: %s KV buffer size = %b", T(KV_TO_SKIP, KV_LOG_KV_BUFFERS), KV_SUM,
     "KV buffer size"},
    {"llama_kv_cache_unified: %s KV buffer size = %b", T(KV_TO_SKIP, KV_LOG_KV_BUFFERS), KV_SUM,
     "KV buffer size"},
    /* recurrent layers' state (src/llama-memory-recurrent.cpp): "size = %7.2f MiB (%6u cells,
     * %3d layers, %2u seqs %2u rs_seq), R (%s): %7.2f MiB, S (%s): %7.2f MiB", rs_seq from
     * b9849; the layers are the model's n_layer */
    {"llama_memory_recurrent: size = %b ( %n cells, %n layers, %n seqs",
     T(KV_LOG_RS_BYTES, KV_LOG_RS_CELLS, KV_LOG_RS_LAYERS, KV_LOG_N_SEQ), KV_LINE,
     "llama_memory_recurrent: size"},
    {"seqs %n rs_seq)", T(KV_LOG_N_RS_SEQ), 0, NULL},
    /* a line without rs_seq (builds before b9180, and a pre-release MTP build of May 2026 whose
     * log, tests/logs/llamacpp-h08-*, keeps one copy a sequence): no snapshots */
    {"seqs), R (", T(KV_LOG_N_RS_SEQ, 0), KV_CONST, NULL},
    {"R (%s): %b, S (%s): %b", T(KV_TO_SKIP, KV_LOG_R_BYTES, KV_TO_SKIP, KV_LOG_S_BYTES), 0,
     NULL},
};

/* A cache line after "creating SWA KV cache" is the sliding-window cache's: its cells,
 * layers, K and V go to these; its total, types and sequences are the main cache's. */
static const int swa_pairs[][4] = {
    {KV_LOG_CELLS, KV_LOG_SWA_CELLS, KV_TO_SKIP, KV_LOG_MTP_CELLS},
    {KV_LOG_LAYERS, KV_LOG_SWA_LAYERS, KV_LOG_INDEX_LAYERS, KV_LOG_MTP_LAYERS},
    {KV_LOG_K_BYTES, KV_LOG_SWA_K_BYTES, KV_LOG_INDEX_K_BYTES, KV_TO_SKIP},
    {KV_LOG_V_BYTES, KV_LOG_SWA_V_BYTES, KV_TO_SKIP, KV_TO_SKIP},
    {KV_LOG_KV_BYTES, KV_TO_SKIP, KV_TO_SKIP, KV_LOG_MTP_KV_BYTES},
};

#define CORE(id) (&kv_core_params[id])
#define MINE(id) (&params[id])
#define SET(f, p) {f, p, KV_LOG_SETTING, 0, 0, 0}

/* The settings the comparison lists apart (in its "Logged:" line). */
static const int log_settings[] = {KV_LOG_BUILD, KV_LOG_N_UBATCH, KV_LOG_N_BATCH, KV_LOG_FLASH_ATTN, KV_LOG_KV_UNIFIED,
                                    KV_LOG_MTP_CONTEXT};

static const kv_log_input inputs[] = {
    SET(KV_LOG_BUILD, MINE(LC_P_BUILD)),
    SET(KV_LOG_N_CTX, MINE(LC_P_CTX)), /* n_ctx is already padded: padding it again changes
                                          nothing */
    /* without an n_ctx line, the cache line's cells x streams is n_ctx (llama-cli) */
    {KV_LOG_CELLS, MINE(LC_P_CTX), KV_LOG_SETTING, 0, KV_LOG_N_CTX + 1, KV_LOG_STREAMS + 1},
    SET(KV_LOG_N_SEQ, MINE(LC_P_PARALLEL)),
    SET(KV_LOG_N_UBATCH, MINE(LC_P_UBATCH)),
    SET(KV_LOG_N_BATCH, MINE(LC_P_BATCH)),
    SET(KV_LOG_N_RS_SEQ, MINE(LC_P_RS_SEQ)),
    /* "file size = X GiB": the model's tensor bytes (llama_model_loader n_bytes) */
    {KV_LOG_WEIGHTS, MINE(LC_P_WEIGHTS), KV_LOG_MEASURED, 1, 0, 0},
};

static void texts(const kv_log_values *v, kv_log_inputs *in)
{
    static const char *const flash[] = {"off", "on", "auto"};
    if (v->type_k[0])
        kv_log_input_put(in, MINE(LC_P_TYPE_K), KV_LOG_SETTING, v->type_k);
    if (v->type_v[0])
        kv_log_input_put(in, MINE(LC_P_TYPE_V), KV_LOG_SETTING, v->type_v);
    if (v->present[KV_LOG_FLASH_ATTN] && v->v[KV_LOG_FLASH_ATTN] >= 0 &&
        v->v[KV_LOG_FLASH_ATTN] <= 2)
        kv_log_input_put(in, MINE(LC_P_FLASH), KV_LOG_SETTING,
                         flash[(int)v->v[KV_LOG_FLASH_ATTN]]);
    if (v->present[KV_LOG_KV_UNIFIED] && v->v[KV_LOG_KV_UNIFIED] == 1)
        kv_log_input_put(in, MINE(LC_P_UNIFIED), KV_LOG_SETTING, "");
    /* "( 8192 cells, 36 layers,  4/1 seqs)": four sequences in one stream - a unified cache
     * (llama_kv_cache's n_stream = unified ? 1 : n_seq_max), what a log without its
     * kv_unified line still says */
    else if (!v->present[KV_LOG_KV_UNIFIED] && v->present[KV_LOG_STREAMS] &&
             v->present[KV_LOG_N_SEQ] && v->v[KV_LOG_STREAMS] == 1 && v->v[KV_LOG_N_SEQ] > 1)
        kv_log_input_put(in, MINE(LC_P_UNIFIED), KV_LOG_SETTING, "");
    if (v->present[KV_LOG_MTP_CONTEXT])
        kv_log_input_put(in, MINE(LC_P_SPEC_TYPE), KV_LOG_SETTING, "draft-mtp");
    /* a sliding-window cache as large as the main one: --swa-full (size_swa = size_base,
     * llama_kv_cache_iswa); when the window and a micro-batch cover the context anyway the
     * two are the same cache */
    if (v->present[KV_LOG_SWA_CELLS] && v->present[KV_LOG_CELLS] && v->v[KV_LOG_CELLS] > 0 &&
        v->v[KV_LOG_SWA_CELLS] == v->v[KV_LOG_CELLS])
        kv_log_input_put(in, MINE(LC_P_SWA_FULL), KV_LOG_SETTING, "");
}

static const kv_cmp_row cmp_rows[] = {
    {"n_ctx", KV_LOG_N_CTX, 0, KV_CMP_I(llamacpp.n_ctx), 1, "tokens", KV_TERM_SETTING, 0},
    {"n_seq_max", KV_LOG_N_SEQ, 0, KV_CMP_I(llamacpp.n_seq), 1, "sequences", KV_TERM_SETTING, 0},
    {"n_ctx_slot", KV_LOG_N_CTX_SLOT, 0, KV_CMP_I(llamacpp.slot_ctx), 1, "tokens", KV_TERM_KV, 0},
    {"cells", KV_LOG_CELLS, 0, KV_CMP_I(llamacpp.main.cells), 1, "cells", KV_TERM_KV, 0},
    {"layers", KV_LOG_LAYERS, 0, KV_CMP_I(llamacpp.main.layers), 1, "layers", KV_TERM_KV, 0},
    {"K", KV_LOG_K_BYTES, 0, KV_CMP_D(llamacpp.main.k_bytes), 1, "bytes", KV_TERM_KV, 0},
    {"V", KV_LOG_V_BYTES, 0, KV_CMP_D(llamacpp.main.v_bytes), 1, "bytes", KV_TERM_KV, 0},
    {"SWA cells", KV_LOG_SWA_CELLS, 0, KV_CMP_I(llamacpp.swa.cells), 1, "cells", KV_TERM_KV, 0},
    {"SWA layers", KV_LOG_SWA_LAYERS, 0, KV_CMP_I(llamacpp.swa.layers), 1, "layers", KV_TERM_KV, 0},
    {"SWA K", KV_LOG_SWA_K_BYTES, 0, KV_CMP_D(llamacpp.swa.k_bytes), 1, "bytes", KV_TERM_KV, 0},
    {"SWA V", KV_LOG_SWA_V_BYTES, 0, KV_CMP_D(llamacpp.swa.v_bytes), 1, "bytes", KV_TERM_KV, 0},
    {"indexer layers", KV_LOG_INDEX_LAYERS, 0, KV_CMP_I(llamacpp.index.layers), 1, "layers",
     KV_TERM_KV, 0},
    {"indexer K", KV_LOG_INDEX_K_BYTES, 0, KV_CMP_D(llamacpp.index.k_bytes), 1, "bytes",
     KV_TERM_KV, 0},
    {"recurrent cells", KV_LOG_RS_CELLS, 0, KV_CMP_I(llamacpp.state_rows), 1, "cells",
     KV_TERM_KV, 0},
    {"recurrent layers", KV_LOG_RS_LAYERS, 0, KV_CMP_I(llamacpp.n_layer_file), 1, "layers",
     KV_TERM_KV, 0},
    {"R (conv state)", KV_LOG_R_BYTES, 0, KV_CMP_D(llamacpp.state_r_bytes), 1, "bytes",
     KV_TERM_KV, 0},
    {"S (SSM state)", KV_LOG_S_BYTES, 0, KV_CMP_D(llamacpp.state_s_bytes), 1, "bytes",
     KV_TERM_KV, 0},
    {"MTP context cells", KV_LOG_MTP_CELLS, 0, KV_CMP_I(llamacpp.mtp_cells), 1, "cells",
     KV_TERM_KV, 0},
    {"MTP context layers", KV_LOG_MTP_LAYERS, 0, KV_CMP_I(llamacpp.mtp_layers), 1, "layers",
     KV_TERM_KV, 0},
    {"MTP context KV", KV_LOG_MTP_KV_BYTES, 0, KV_CMP_D(llamacpp.mtp_kv_bytes), 1, "bytes",
     KV_TERM_KV, 0},
    {"KV buffers (all devices)", KV_LOG_KV_BUFFERS, 0, KV_CMP_D(kv_cache_bytes), 1, "bytes",
     KV_TERM_KV, 0},
    {"weights (file size)", KV_LOG_WEIGHTS, 0, KV_CMP_D(weights_bytes), 1, "bytes",
     KV_TERM_SETTING, 0},
    {"model buffers (all devices)", KV_LOG_MODEL_BUFFERS, 0,
     KV_CMP_D(llamacpp.model_buffers_bytes), 1, "bytes", KV_TERM_SETTING, 0},
    {"model buffers in host memory", KV_LOG_MODEL_HOST, 0, KV_CMP_D(llamacpp.model_host_bytes),
     1, "bytes", KV_TERM_SETTING, 0},
    {"KV cache (all)", KV_LOGGED_KV_TOTAL, 1, KV_CMP_D(kv_cache_bytes), 1, "bytes", KV_TERM_KV, 0},
};

/* The caches as logged (main + sliding window); the build as "bN" when no version is
 * stated; no KV budget: the cache follows from the settings. */
static void summary(const kv_log_values *v, const kv_result *a, kv_log_summary *out)
{
    const double *x = v->v;
    const unsigned char *p = v->present;
    (void)a;
    kv_log_summary_common(v, KV_LOG_N_CTX, KV_LOG_WEIGHTS, -1, out);
    double main = p[KV_LOG_KV_BYTES]                       ? x[KV_LOG_KV_BYTES]
                  : p[KV_LOG_K_BYTES] && p[KV_LOG_V_BYTES] ? x[KV_LOG_K_BYTES] + x[KV_LOG_V_BYTES]
                                                           : NAN;
    double swa = p[KV_LOG_SWA_K_BYTES] && p[KV_LOG_SWA_V_BYTES]
                     ? x[KV_LOG_SWA_K_BYTES] + x[KV_LOG_SWA_V_BYTES]
                     : 0;
    double index = p[KV_LOG_INDEX_K_BYTES] ? x[KV_LOG_INDEX_K_BYTES] : 0;
    out->kv_total = main + swa + index;
    if (!v->version[0] && p[KV_LOG_BUILD])
        snprintf(out->version, sizeof out->version, "b%.0f", x[KV_LOG_BUILD]);
    out->unit_round = 0.005 * KV_MIB;
    out->from_settings = 1;
}

static const kv_engine_log llamacpp_log = {
    KV_TABLE(patterns, patterns),
    .field_names = kv_log_field_names,
    .n_fields = KV_LOG_FIELDS,
    .flash_field = KV_LOG_FLASH_ATTN,
    .weights_field = KV_LOG_WEIGHTS,
    .unified_field = KV_LOG_KV_UNIFIED,
    KV_TABLE(swa_pairs, swa_pairs),
    KV_TABLE(settings, log_settings),
    KV_TABLE(inputs, inputs),
    .texts = texts,
    KV_TABLE(rows, cmp_rows),
    .gpu_total_field = -1,
    .needs_gpu_total = 0,
    .e2e_available = 0,
    .summary = summary,
    .fallback_field = KV_LOG_KV_BUFFERS,
};

static const char *const aliases[] = {"llamacpp", NULL};

/* /metrics of llama-server --metrics (tools/server; workload.md 3): the KV gauges were
 * removed by #13660, n_tokens_max added later; n_ctx is not a metric (/props has it) */
#define M(name, m, how, gen) {name, KV_METRIC_AT(m), KV_AGG_##how, gen}
static const kv_metric_row metric_rows[] = {
    M("requests_processing", running, SUM, NULL),
    M("requests_deferred", waiting, SUM, NULL),
    M("prompt_tokens_total", prompt_tokens_total, SUM, NULL),
    M("tokens_predicted_total", generation_tokens_total, SUM, NULL),
    M("prompt_seconds_total", prompt_seconds_total, SUM, NULL),
    M("tokens_predicted_seconds_total", predicted_seconds_total, SUM, NULL),
    M("n_decode_total", decode_calls, SUM, NULL),
    M("n_busy_slots_per_decode", busy_slots_per_decode, MEAN, NULL),
    M("n_tokens_max", tokens_max, FIRST, NULL),
    M("kv_cache_usage_ratio", kv_usage, MEAN, "before #13660 (kv_cache_usage_ratio)"),
    M("kv_cache_tokens", used_tokens, SUM, NULL),
};
#undef M
static const char *const metric_prefixes[] = {"llamacpp:", NULL};
static const char *const metric_prefix_words[] = {NULL, NULL};
static const kv_engine_metrics llamacpp_metrics = {
    .prefixes = metric_prefixes,
    .prefix_words = metric_prefix_words,
    KV_TABLE(rows, metric_rows),
};

int64_t kv_llamacpp_prompt_reuse_build(void)
{
    return B_PROMPT_REUSE;
}

/* llama-server under a workload (tools/server/server-context.cpp @ 3f545becc, llama.cpp
 * master of 2026-08-23): a task takes a free slot (get_available_slot), first come first
 * served; each update_slots() batch holds a token of every generating slot, then prompt
 * tokens up to n_batch; a prompt of a slot's n_ctx or more is refused ("exceeds the
 * available context size"), and with context shift off (the default, common.h ctx_shift =
 * false) generation stops once the slot's tokens + 1 reach its n_ctx. One shared stream
 * (--kv-unified): when llama_decode finds no room even at n_batch 1, every processing slot
 * fails with "Context size has been exceeded." and the context is cleared. */
static kv_status llamacpp_sched(const kv_spec *s, const kv_result *r, kv_sched *out,
                                kv_error *why)
{
    const kv_llamacpp_result *L = &r->llamacpp;
    int fitted = L->autofit_ctx > 0;
    int64_t slot = fitted ? L->autofit_slot_ctx : L->slot_ctx;
    int64_t cells = fitted ? L->autofit_n_ctx : L->n_ctx;
    if (!(L->fits_gpu || fitted) && slot >= 2 && L->n_seq >= 1 && why) {
        char msg[KV_ERROR_MAX];
        kv_snprintf(msg, sizeof msg, "llama.cpp would not start with these settings: it needs "
                                     "%.2f GiB of the GPU's %.2f GiB (a smaller --ctx-size or "
                                     "--parallel, or fewer --n-gpu-layers): nothing to simulate",
                    L->gpu_needed_bytes / KV_GIB, r->gpu_mem_bytes / KV_GIB);
        return kv_sched_refuse(why, msg);
    }
    if (!(L->fits_gpu || fitted) || slot < 2 || L->n_seq < 1)
        return kv_sched_refuse(why, "llama.cpp would not start with these settings: nothing "
                                    "to simulate");
    int shared = L->unified && L->n_seq > 1 && L->build >= B_AUTO_SLOTS;
    out->kind = KV_SCHED_SLOTS;
    out->engine_title = "llama.cpp";
    out->rules = "llama.cpp's server: tools/server/server-context.cpp (get_available_slot, "
                 "update_slots) @ 3f545becc";
    out->pool_blocks = shared ? cells : slot * L->n_seq;
    out->group[0] = (kv_sched_group){.groups = 1, .block_size = 1};
    out->n_groups = 1;
    out->max_seqs = L->n_seq;
    out->max_seqs_name = "slots";
    out->max_batched_tokens = s->llamacpp.batch_size;
    out->max_model_len = slot;
    out->slot_tokens = slot;
    out->unified_fail_all = shared;
    out->preempt_word = "context-full failures";
    out->unit = "cells";
    out->left_out = "context shift (off by default); a step takes one tpot (given or "
                    "estimated) whatever its batch";
    /* prompt reuse (server-context.cpp get_available_slot, launch_slot_with_task; @ 3f545becc):
     * -sps 0.1, cache_prompt on, --cache-idle-slots on (common/common.h); the cache holds
     * n_ctx tokens at least (server_prompt_cache(cache_ram_mib, n_ctx)) and a state is its
     * cells' bytes (llama_state_seq_get_size) */
    out->slot_reuse = L->build >= B_PROMPT_REUSE;
    out->slot_similarity = s->llamacpp.slot_prompt_similarity;
    out->prompt_cache_mib = s->llamacpp.cache_ram;
    out->prompt_cache_tokens = cells;
    out->token_state_bytes = L->n_ctx > 0 ? r->kv_cache_bytes / (double)L->n_ctx : 0;
    /* --cache-idle-slots "requires --cache-ram, disabling" (server-context.cpp) */
    out->idle_slots_saved = s->llamacpp.cache_idle_slots && s->llamacpp.cache_ram != 0;
    out->idle_slots_cleared = shared && out->idle_slots_saved;
    return KV_OK;
}

/* A decode step's weights on the GPU (the GPU layers' share), and what it reads on the host:
 * the weights past -ngl or --n-cpu-moe (mapped from the file), the cache on the CPU; a cell's
 * bytes are the cache's over its n_ctx cells (the scheduler's may be auto-fit's fewer) */
static double llamacpp_step_reads(const kv_spec *s, const kv_result *r, double *block_bytes,
                                  double *host)
{
    (void)s;
    if (r->llamacpp.n_ctx > 0)
        *block_bytes = r->kv_cache_bytes / (double)r->llamacpp.n_ctx;
    /* the input layer's embeddings stay on the CPU, but a step reads a row of them a token
     * (get_rows), not the whole matrix */
    *host = r->llamacpp.weights_host_bytes - r->llamacpp.input_host_bytes +
            r->llamacpp.kv_host_bytes;
    return r->llamacpp.weights_gpu_bytes;
}

/* The ggml type of the spec's dtype, when it is one (-ctk / -ctv follow --dtype otherwise) */
static int ggml_of_dtype(kv_dtype d)
{
    return d == KV_DTYPE_FP16 ? KV_GGML_F16 : d == KV_DTYPE_BF16 ? KV_GGML_BF16
           : d == KV_DTYPE_FP32 ? KV_GGML_F32 : -1;
}

static const char *llamacpp_cache_types(const kv_spec *s, const kv_result *r, char *buf,
                                        size_t cap)
{
    const kv_llamacpp_result *L = &r->llamacpp;
    int d = ggml_of_dtype(s->dtype);
    if (L->type_k == d && (L->type_v == d || L->v_less))
        return NULL;
    const kv_ggml_cache_type_info *k = kv_ggml_cache_type_get((kv_ggml_cache_type)L->type_k);
    const kv_ggml_cache_type_info *v = kv_ggml_cache_type_get((kv_ggml_cache_type)L->type_v);
    if (!k || !v)
        return NULL;
    if (L->v_less)
        kv_snprintf(buf, cap, "K %s (%g B), no V", k->name,
                    (double)k->block_bytes / (double)k->block);
    else
        kv_snprintf(buf, cap, "K %s (%g B), V %s (%g B)", k->name,
                    (double)k->block_bytes / (double)k->block, v->name,
                    (double)v->block_bytes / (double)v->block);
    return buf;
}

/* llama-server's slots reuse a prompt each in their own cells (a workload's
 * --shared-prefix-tokens): nothing is held once */
static const char *llamacpp_prefix_note(const kv_spec *s, const kv_result *r)
{
    (void)s;
    (void)r;
    return "llama.cpp holds it once a slot, not once: each slot keeps its own copy";
}

const kv_engine_desc kv_engine_llamacpp = {
    .id = E,
    .title = "llama.cpp",
    .aliases = aliases,
    .doc = "docs/llamacpp.md",
    .defaults = llamacpp_defaults,
    .overrides = 1u << KV_P_DTYPE,
    .check = llamacpp_check,
    .compute = llamacpp_compute,
    .prefix_note = llamacpp_prefix_note,
    .cache_types = llamacpp_cache_types,
    .concurrency_at = llamacpp_at,
    .kv8_name = "q8_0",
    .kv8 = llamacpp_kv8,
    .params = params,
    .n_params = LC_PARAMS,
    .draft_at = KV_DRAFT_AT(kv_llamacpp_spec, draft),
    .lora_at = KV_LORA_AT(kv_llamacpp_spec, lora),
    .overrides_at = KV_OVERRIDES_AT(kv_llamacpp_spec, override_tensor),
    KV_TABLE(fields, fields),
    .log = &llamacpp_log,
    .metrics = &llamacpp_metrics,
    .sched = llamacpp_sched,
    .step_reads = llamacpp_step_reads,
};
