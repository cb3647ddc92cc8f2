/*
 * ollama.c - the memory Ollama plans for a model, release by release (docs/ollama.md).
 *
 * Ollama does not size its cache from free memory: num_ctx x parallel does (the runner is
 * llama.cpp). But before it starts the runner it *estimates* what the model will take -
 * each block's weights and KV, the output layer, a compute graph, a minimum it keeps free -
 * and that estimate decides how many layers go to the GPU (the rest run on the CPU),
 * whether the automatic parallel count keeps its default, and what `ollama ps` shows. This
 * file is that estimate as the releases wrote it: GraphSize (fs/ggml/ggml.go; llm/ggml.go
 * before 0.5.12), EstimateGPULayers (llm/memory.go), the scheduler's parallel choice
 * (server/sched.go) and the server's flash-attention and cache-type gating (llm/server.go)
 * of github.com/ollama/ollama at v0.9.6 (43107b15b9bcff51ef1c5391c273fd1a747f6d0a), unless
 * the release table below says otherwise. Its arithmetic is Go's: uint64 sizes, integer
 * divisions left to right, a KV row a float64 product truncated; where a uint64 would wrap,
 * kvcalc refuses rather than print what Go would. Pure: no I/O, no globals.
 */
#include "kvprint.h"
#include "ollama.h"

#include "llamacpp.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kvmath.h"

/* ---- the releases where a rule changed (the first release tag holding the commit) ---- */

#define V OLLAMA_V
enum {
    R_AUTO_4 = V(2, 0),        /* 17b7186c: parallel chosen by the scheduler, 4 tried first */
    R_CHATGLM = V(2, 2),       /* 5a739ff4: chatglm's graph */
    R_OVERHEAD = V(3, 10),     /* b05c9e83: OLLAMA_GPU_OVERHEAD; 2003d601: llama's full
                                  graph at least the logits */
    R_MLLAMA = V(4, 0),        /* 8c238e70: mllama's graph */
    R_KV_TYPE = V(5, 0),       /* 1bdab9fd: OLLAMA_KV_CACHE_TYPE; flash attention on ROCm */
    R_LIBRARY_KEY = V(5, 12),  /* 58245413: msg=offload library=... */
    R_GEMMA3 = V(6, 0),        /* 5f74d1fd: gemma3 joins the gemma formulas */
    R_BLOCK_WEIGHTS = V(6, 1), /* 033cec23: the logged weights without the KV */
    R_PER_LAYER = V(6, 3),     /* f66216e3, f4f0992b: a KV row per layer, gemma3's window;
                                  weights.total = blocks + output */
    R_CTX_4096 = V(6, 7),      /* 44b466ee: num_ctx 4096; fe5b9bb2: auto parallel 2;
                                  f0ad49ea: llama4 joins llama */
    R_REVERSE = V(7, 0),       /* 0478d440: layers placed last to first; the buffer the
                                  largest tensor group (this release only) */
    R_FLOOR = V(7, 1),         /* d7555774: the estimate's context at least 2048; 3fe74fba:
                                  the buffer blk.0 again */
    R_ARRAY_HEADS = V(9, 3),   /* 6ed88985: max / min of per-layer heads; ba049026:
                                  gemma3n; 10a8e04a: num_ctx cut to context_length */
    R_PARALLEL_1 = V(10, 0),   /* 20c3266e: OLLAMA_NUM_PARALLEL 1 */
    R_GPTOSS = V(11, 1),       /* fa7776fd: gpt-oss rows and graph, num_ctx >= 8192 */
    R_GPTOSS_EQUAL = V(11, 3), /* fcec04bf: gpt-oss partial graph = full */
    R_PER_SEQ = V(11, 5),      /* d5a0d8d9: GraphSize multiplies the context by parallel;
                                  the 2048 floor only for vision models */
    R_MODEL_FA = V(11, 8),     /* 85ccf735: a model's own flash-attention default
                                  (gpt-oss), its flash-attention graph */
    R_RECURRENT = V(11, 11),   /* 7b91c9ce: per-layer heads, recurrent layers' state;
                                  29ddfc2c: no flash attention for gemma2 */
    R_LIB_NAMES = V(12, 4),    /* bc8909fb: CUDA, ROCm, Metal, Vulkan; aa45f7ce: flash
                                  attention on cpu and Vulkan too; 0bda7289: qwen3's FA */
    R_GEMMA3_FA = V(12, 6),    /* c3c85aa0 */
    R_QWEN3VL_FA = V(12, 8),   /* 75e75d9a */
    R_LAYOUT = V(12, 11),      /* f560bd07: llm/memory.go gone; the estimate laid out and
                                  logged per device */
    R_MISTRAL3_FA = V(13, 2),  /* 9191dfaf */
    R_EMBED_BATCH = V(13, 3),  /* 3475d915: an embedding model's batch is its context */
    R_FA_AUTO = V(13, 4),      /* bd6c1d6b: flash attention left to the runner unless set */
    R_GUARDED = V(14, 0),      /* 172b5924: the layer buffer no longer wraps a small GPU */
    R_VRAM_CTX = V(15, 5),     /* 0334ffa6: num_ctx by total VRAM; the gpt-oss floor gone;
                                  d11fbd2c: ollama ps shows the context in force */
    R_SERVER = OLLAMA_LLAMA_SERVER
};

#define MIB 1048576u
#define CTX_LIMIT 1073741824LL /* num_ctx x parallel: 2^30 tokens */

/* MinimumMemory by library (discover/gpu.go:41-42, gpu_darwin.go:21; ml/device.go:348-353
 * from 0.12.4: 512 MiB on Metal, else 457 MiB): what Ollama keeps free on a device. */
static const uint64_t minimum_mib[KV_OLLAMA_LIBRARIES] = {
    [KV_OLLAMA_CUDA] = 457, [KV_OLLAMA_ROCM] = 457, [KV_OLLAMA_METAL] = 512,
    [KV_OLLAMA_CPU] = 0,    [KV_OLLAMA_ONEAPI] = 0, [KV_OLLAMA_VULKAN] = 457,
};

/* kvCacheBytesPerElement (fs/ggml/ggml.go:751-761): not llama.cpp's 34/32 and 18/32. */
static const double cache_bytes[KV_OLLAMA_CACHE_TYPES] = {
    [KV_OLLAMA_F16] = 2, [KV_OLLAMA_Q8_0] = 1, [KV_OLLAMA_Q4_0] = 0.5};

/* Architectures whose flash-attention default is on when OLLAMA_FLASH_ATTENTION is not set
 * (fs/ggml/ggml.go FlashAttention(), from the release given). */
static const struct {
    const char *arch;
    int from;
} fa_by_default[] = {
    {"gptoss", R_MODEL_FA},     {"gpt-oss", R_MODEL_FA},    {"qwen3", R_LIB_NAMES},
    {"qwen3moe", R_LIB_NAMES},  {"gemma3", R_GEMMA3_FA},    {"qwen3vl", R_QWEN3VL_FA},
    {"qwen3vlmoe", R_QWEN3VL_FA}, {"mistral3", R_MISTRAL3_FA}, {"olmo3", R_FA_AUTO},
    {"bert", V(13, 5)},         {"glm4moelite", V(14, 3)},  {"lfm2", V(14, 3)},
    {"glmocr", R_VRAM_CTX},     {"qwen3next", R_VRAM_CTX},  {"lfm2moe", V(17, 1)},
    {"nemotron_h", V(17, 1)},   {"nemotron_h_moe", V(17, 1)}, {"qwen35", V(17, 1)},
    {"qwen35moe", V(17, 1)},    {"gemma4", V(20, 4)},       {"nemotron_h_omni", V(22, 0)},
};

/* Architectures Ollama runs on its own engine (fs/ggml/ggml.go OllamaEngineRequired), from
 * the release given until (not including) the second: from 0.11.11 that engine measures
 * what it allocates, and only its estimate is kvcalc's. */
static const struct {
    const char *arch;
    int from, until;
} own_engine[] = {
    {"gemma3", 0, 0},        {"gemma3n", 0, 0},        {"mistral3", 0, 0},
    {"llama4", 0, 0},        {"mllama", 0, 0},         {"qwen25vl", 0, 0},
    {"gptoss", 0, 0},        {"gpt-oss", 0, 0},        {"qwen3", V(12, 0), V(12, 5)},
    {"qwen3", V(12, 6), 0},  {"qwen3moe", V(12, 2), 0}, {"qwen3vl", V(12, 7), 0},
    {"qwen3vlmoe", V(12, 7), 0}, {"deepseek2", V(13, 0), 0}, {"deepseekocr", V(13, 0), 0},
    {"nomic-bert", V(13, 1), 0}, {"olmo3", V(13, 4), 0}, {"bert", V(13, 5), 0},
    {"glm4moelite", V(14, 3), 0}, {"lfm2", V(14, 3), 0}, {"qwen3next", V(15, 5), 0},
    {"glmocr", V(15, 5), 0}, {"nemotron_h", V(17, 1), 0}, {"nemotron_h_moe", V(17, 1), 0},
    {"qwen35", V(17, 1), 0}, {"qwen35moe", V(17, 1), 0}, {"lfm2moe", V(17, 1), 0},
    {"gemma4", V(20, 0), 0}, {"laguna", V(22, 0), 0}, {"nemotron_h_omni", V(22, 0), 0},
};

/* Architectures that serve one request at a time (server/sched.go:138-141@v0.9.6,
 * 412-424@v0.24.0), from the release given. */
static const struct {
    const char *arch;
    int from;
} one_at_a_time[] = {
    {"mllama", 0},             {"qwen3vl", V(12, 11)},    {"qwen3vlmoe", V(12, 11)},
    {"qwen3next", V(15, 5)},   {"lfm2", V(15, 5)},        {"lfm2moe", V(15, 5)},
    {"qwen35", V(17, 1)},      {"qwen35moe", V(17, 1)},   {"nemotron_h", V(17, 1)},
    {"nemotron_h_moe", V(17, 1)}, {"nemotron_h_omni", V(22, 0)},
};

/* The llama.cpp build each release pins for llama-server (LLAMA_CPP_VERSION), from the
 * release given. */
static const struct {
    int from;
    int64_t build;
} server_builds[] = {
    {V(30, 0), 9452},  {V(30, 1), 9479},  {V(30, 4), 9493},  {V(30, 5), 9509},
    {V(30, 9), 9626},  {V(30, 10), 9672}, {V(30, 11), 9781}, {V(31, 0), 9840},
    {V(31, 2), 9888},  {V(32, 2), 10069}, {V(32, 3), 10091}, {V(32, 6), 10242},
    {V(32, 8), 10353}, {V(32, 10), 10380}, {V(32, 14), 10434}, {V(32, 15), 10488},
};

/* ---- releases and sizes as Ollama writes them ---- */

int kv_ollama_version_parse(const char *text, int *version)
{
    int major, minor, patch, n = 0;
    if (!text)
        return -1;
    if (text[0] == 'v')
        text++;
    if (sscanf(text, "%d.%d.%d%n", &major, &minor, &patch, &n) != 3 || major != 0 || minor < 0 ||
        minor > 999 || patch < 0 || patch > 99)
        return -1;
    /* "0.5.4-0-g2ddc32d-dirty" (git describe), "0.11.10-rc1": the release before them */
    if (text[n] != '\0' && text[n] != '-' && text[n] != '+')
        return -1;
    *version = V(minor, patch);
    return 0;
}

void kv_ollama_version_format(int version, char *buf, size_t cap)
{
    /* by hand: every point of a sweep names its release, and snprintf cost more than the
     * rest of the estimate (issue 22) */
    if (!kv_release_spell(version, 1, buf, cap))
        kv_snprintf(buf, cap, "0.%d.%d", version / 100, version % 100);
}

/* format.HumanBytes2 (format/bytes.go:52-63). */
void kv_ollama_human_bytes2(double b, char *buf, size_t cap)
{
    if (b >= KV_GIB)
        snprintf(buf, cap, "%.1f GiB", b / KV_GIB);
    else if (b >= KV_MIB)
        snprintf(buf, cap, "%.1f MiB", b / KV_MIB);
    else if (b >= 1024)
        snprintf(buf, cap, "%.1f KiB", b / 1024);
    else
        snprintf(buf, cap, "%.0f B", b);
}

/* format.HumanBytes (format/bytes.go:20-49): 1000-based; whole numbers from 10 up. */
void kv_ollama_human_bytes(double b, char *buf, size_t cap)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (b < units[i].scale)
            continue;
        double v = b / units[i].scale;
        if (v >= 10 || v == kvm_trunc(v))
            kv_snprintf(buf, cap, "%d %s", (int)v, units[i].unit);
        else
            snprintf(buf, cap, "%.1f %s", v, units[i].unit);
        return;
    }
    snprintf(buf, cap, "%.0f B", b);
}

double kv_ollama_rounding(double x)
{
    double a = fabs(x);
    return a >= KV_GIB ? 0.05 * KV_GIB : a >= KV_MIB ? 0.05 * KV_MIB : a >= 1024 ? 0.05 * 1024 : 0.5;
}

/* ---- Go's uint64 arithmetic, with wrapping refused ---- */

typedef struct {
    int wrapped; /* a product or sum passed 2^64 */
} calc;

static uint64_t mul(calc *c, uint64_t a, uint64_t b)
{
    if (b && a > UINT64_MAX / b)
        c->wrapped = 1;
    return a * b;
}

static uint64_t add(calc *c, uint64_t a, uint64_t b)
{
    if (a > UINT64_MAX - b)
        c->wrapped = 1;
    return a + b;
}

static uint64_t max2(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* uint64(float64(n) * f), refused when it does not fit. */
static uint64_t scaled(calc *c, uint64_t n, double f)
{
    double x = (double)n * f;
    if (!(x < 18446744073709551616.0)) {
        c->wrapped = 1;
        return 0;
    }
    return (uint64_t)x;
}

/* ---- the model as GraphSize reads it (fs/ggml/ggml.go:49-94, 477-493) ---- */

typedef struct {
    const kv_gguf_info *g; /* NULL: the spec's numbers */
    const char *arch;      /* general.architecture; "" without a GGUF */
    int64_t blocks;        /* block_count */
    uint64_t embd, heads, heads_kv_max, heads_kv_min, k, v, vocab, swa;
    uint64_t embd_heads;   /* EmbeddingHeadCountMax: embedding / heads */
    int64_t ctx_train;
    int moe;               /* an expert count: llama's MoE graph reads a tensor's size */
    int heads_array;       /* per-layer KV heads differ: an array key */
} model;

static int arch_is(const model *m, const char *name)
{
    /* the first byte compared inline: a point asks some fifty names, and a preset's arch is
     * "" (the strcmp calls alone were 8% of an Ollama sweep: issue 22) */
    return m->arch[0] == name[0] && strcmp(m->arch, name) == 0;
}

static void model_of(const kv_spec *s, model *m)
{
    const kv_gguf_info *g = s->gguf;
    memset(m, 0, sizeof *m);
    m->g = g;
    m->arch = "";
    if (g) {
        m->arch = g->architecture;
        m->blocks = g->block_count;
        m->embd = (uint64_t)g->embedding_length;
        m->heads = (uint64_t)g->head_count;
        m->heads_kv_max = (uint64_t)g->kv_heads_max;
        m->heads_kv_min = (uint64_t)g->kv_heads_min;
        m->k = (uint64_t)g->key_length;
        m->v = (uint64_t)g->value_length;
        m->vocab = (uint64_t)g->vocab;
        m->swa = (uint64_t)g->n_swa;
        m->ctx_train = g->context_length;
        m->heads_array = g->kv_heads_min != g->kv_heads_max;
    } else {
        m->blocks = s->layers;
        m->heads_kv_max = m->heads_kv_min = (uint64_t)s->kv_heads;
        m->k = m->v = (uint64_t)s->head_dim;
        m->heads = (uint64_t)(s->arch.heads > 0 ? s->arch.heads : s->kv_heads);
        m->embd = (uint64_t)(s->arch.hidden > 0 ? s->arch.hidden : s->kv_heads * s->head_dim);
        m->vocab = (uint64_t)(s->arch.vocab > 0 ? s->arch.vocab : 0);
        m->ctx_train = s->max_context;
    }
    m->embd_heads = m->heads ? m->embd / m->heads : 0;
    m->moe = s->arch.experts > 0;
}

static int is_gptoss(const model *m, int v)
{
    return (arch_is(m, "gptoss") || (v >= R_PER_SEQ && arch_is(m, "gpt-oss"))) && v >= R_GPTOSS;
}

/* Encoders carry <arch>.pooling_type, which refuses flash attention and serves one request
 * at a time (fs/ggml/ggml.go:739-749, server/sched.go:200-203); kvcalc knows them by
 * architecture. */
static int is_embedding(const model *m)
{
    static const char *const encoders[] = {"bert",       "nomic-bert",  "nomic-bert-moe",
                                           "jina-bert-v2", "jina-bert-v3", "neo-bert",
                                           "modern-bert", "eurobert",    "gemma-embedding"};
    for (size_t i = 0; i < sizeof encoders / sizeof encoders[0]; i++)
        if (arch_is(m, encoders[i]))
            return 1;
    return 0;
}

/* Ollama-engine architectures with vision tensors in the model file, which VisionGraphSize
 * counts apart (projector.weights / .graph). */
static int has_vision(const model *m)
{
    static const char *const vision[] = {"gemma3", "mistral3", "mllama", "qwen25vl", "llama4",
                                         "qwen3vl", "qwen3vlmoe"};
    for (size_t i = 0; i < sizeof vision / sizeof vision[0]; i++)
        if (arch_is(m, vision[i]))
            return 1;
    return 0;
}

/* The output layer: output_norm + (output, else the tied token_embd) (llm/memory.go:
 * 173-181). Without a GGUF: one vocabulary x hidden matrix of the weight dtype. */
static uint64_t output_bytes(const kv_spec *s, const model *m, const kv_result *r)
{
    const kv_gguf_info *g = m->g;
    if (g)
        return (uint64_t)g->output_norm_bytes +
               (uint64_t)(g->output_bytes > 0 ? g->output_bytes : g->token_embd_bytes);
    double one = (double)m->vocab * (double)m->embd * kv_dtype_get(s->weight_dtype)->bytes;
    return one < r->weights_bytes ? (uint64_t)one : 0;
}

/* The blk.N group (Layer.Size(): every blk.N.* tensor). Without a GGUF: the weights less
 * the output layer (and the input embedding, when not tied), spread evenly. */
static uint64_t block_bytes(const kv_spec *s, const model *m, const kv_result *r, int64_t i)
{
    if (m->g)
        return i < KV_GGUF_MAX_LAYERS ? (uint64_t)m->g->block_bytes[i] : 0;
    double out = (double)output_bytes(s, m, r);
    double rest = r->weights_bytes - out - (s->arch.tie_embeddings ? 0 : out);
    return rest > 0 && m->blocks > 0 ? (uint64_t)(rest / (double)m->blocks) : 0;
}

/* The largest tensor group (0.7.0's buffer): a block, token_embd, output or output_norm. */
static uint64_t largest_group(const kv_spec *s, const model *m, const kv_result *r)
{
    uint64_t big = 0;
    for (int64_t i = 0; i < m->blocks; i++)
        big = max2(big, block_bytes(s, m, r, i));
    if (m->g)
        big = max2(max2(big, (uint64_t)m->g->token_embd_bytes),
                   max2((uint64_t)m->g->output_bytes, (uint64_t)m->g->output_norm_bytes));
    return big;
}

/* ---- the settings in force ---- */

typedef struct {
    int v, era, lib, lib_default;
    int64_t num_ctx;  /* per request, before the cut to the model's context */
    int ctx_default;
    int64_t parallel; /* the first the scheduler tries */
    int parallel_auto, parallel_forced;
    int cache_type, flash, flash_auto, flash_refused, type_refused;
    int server_flash; /* 0.30+: the --flash-attn Ollama passes (kv_flash_attn) */
    double bpe;
    uint64_t minimum, free, overhead, num_batch;
    int batch_given;
    int free_estimated;
    int64_t num_gpu;  /* -1: as many as fit */
    int64_t gpus;     /* alike, each with `free` */
    uint64_t proj_w, proj_g; /* a projector's weights and graph */
} settings;

/* Flash attention on the library (discover/types.go:172-183; ml/device.go:480-493 from
 * 0.12.4). CUDA needs a driver of API version 7 or later (and not compute capability 7.2),
 * which kvcalc takes as given. */
static int library_has_fa(int lib, int v)
{
    switch (lib) {
    case KV_OLLAMA_METAL:
    case KV_OLLAMA_CUDA:
        return 1;
    case KV_OLLAMA_ROCM:
        return v >= R_KV_TYPE;
    case KV_OLLAMA_CPU:
    case KV_OLLAMA_VULKAN:
        return v >= R_LIB_NAMES;
    default:
        return 0;
    }
}

/* SupportsFlashAttention: no pooling (encoders), K == V != 0; not gemma2 from 0.11.11;
 * qwen35, qwen35moe and qwen3next always from 0.17.1 (da70c322). */
static int model_has_fa(const model *m, int v)
{
    if (is_embedding(m) || (v >= R_RECURRENT && arch_is(m, "gemma2")))
        return 0;
    if (v >= V(17, 1) && (arch_is(m, "qwen35") || arch_is(m, "qwen35moe") || arch_is(m, "qwen3next")))
        return 1;
    return m->k != 0 && m->v != 0 && m->k == m->v;
}

static int fa_default(const model *m, int v)
{
    for (size_t i = 0; i < sizeof fa_by_default / sizeof fa_by_default[0]; i++)
        if (arch_is(m, fa_by_default[i].arch) && v >= fa_by_default[i].from)
            return 1;
    return 0;
}

static int runs_own_engine(const model *m, int v)
{
    for (size_t i = 0; i < sizeof own_engine / sizeof own_engine[0]; i++)
        if (arch_is(m, own_engine[i].arch) && v >= own_engine[i].from &&
            (own_engine[i].until == 0 || v < own_engine[i].until))
            return 1;
    return 0;
}

static int serves_one(const model *m, int v)
{
    for (size_t i = 0; i < sizeof one_at_a_time / sizeof one_at_a_time[0]; i++)
        if (arch_is(m, one_at_a_time[i].arch) && v >= one_at_a_time[i].from)
            return 1;
    return is_embedding(m); /* no completion capability (server/sched.go:200-203) */
}

static int64_t server_build(int v)
{
    int64_t b = 0;
    for (size_t i = 0; i < sizeof server_builds / sizeof server_builds[0]; i++)
        if (v >= server_builds[i].from)
            b = server_builds[i].build;
    return b;
}

/* The GPU's library, by its preset's names: AMD's run on ROCm, every other kvcalc knows
 * on CUDA. */
static int library_of_gpu(const kv_spec *s)
{
    static const char *const amd[] = {"AMD", "Radeon", "MI210", "MI250", "MI300", "MI325",
                                      "MI350", "MI355", "RX "};
    const char *names[2] = {s->gpu_name, s->gpu_device_names};
    for (size_t n = 0; n < 2; n++)
        for (size_t i = 0; names[n] && i < sizeof amd / sizeof amd[0]; i++)
            if (strstr(names[n], amd[i]))
                return KV_OLLAMA_ROCM;
    return KV_OLLAMA_CUDA;
}

/* A release's default num_ctx: 2048 (api/types.go), 4096 from 0.6.7 (envconfig
 * ContextLength), from 0.15.5 by the total VRAM less the overhead (server/routes.go:
 * 1899-1914@v0.24.0: 262144 from 47 GiB, 32768 from 23 GiB, else 4096; no GPU: 4096). */
static int64_t default_num_ctx(const kv_spec *s, const settings *st)
{
    if (st->v < R_CTX_4096)
        return 2048;
    if (st->v < R_VRAM_CTX || st->lib == KV_OLLAMA_CPU)
        return 4096;
    double vram = s->gpu_mem_gib * KV_GIB - s->ollama.gpu_overhead_bytes;
    return vram >= 47 * KV_GIB ? 262144 : vram >= 23 * KV_GIB ? 32768 : 4096;
}

/* The auto parallel's first try (server/sched.go:62 defaultParallel): none before 0.2.0,
 * 4, 2 from 0.6.7, 1 from 0.10.0 (OLLAMA_NUM_PARALLEL's default, no auto from 0.11.5). */
static int64_t default_parallel(int v)
{
    return v < R_AUTO_4 ? 1 : v < R_CTX_4096 ? 4 : v < R_PARALLEL_1 ? 2 : 1;
}

static int cache_type_wanted(const kv_spec *s)
{
    const kv_ollama_spec *o = &s->ollama;
    return o->kv_cache_type.set ? (int)o->kv_cache_type.value
           : s->dtype == KV_DTYPE_INT8 ? KV_OLLAMA_Q8_0
           : s->dtype == KV_DTYPE_INT4 ? KV_OLLAMA_Q4_0
                                       : KV_OLLAMA_F16;
}

/* Flash attention and the cache type: llm/server.go:204-230@v0.9.6 (asked, or the model's
 * default from 0.11.8, and the library and model take it; a quantized cache only with it),
 * 193-255@v0.24.0 (from 0.13.4 the llama engine leaves an unset OLLAMA_FLASH_ATTENTION to
 * the runner: "Auto", and a quantized cache is dropped), llm/llama_server.go:564-578@v0.30.0
 * (llama-server gets on / off as set, else auto unless the GPU cannot; the cache type is
 * passed as given). */
static void flash_and_type(const kv_spec *s, const model *m, settings *st)
{
    const kv_ollama_spec *o = &s->ollama;
    int v = st->v, want = cache_type_wanted(s);
    int lib_ok = library_has_fa(st->lib, v), model_ok = model_has_fa(m, v);
    if (v >= R_SERVER) {
        st->server_flash = o->flash_attention.set ? (o->flash_attention.value ? KV_FLASH_ON : KV_FLASH_OFF)
                           : lib_ok                ? KV_FLASH_AUTO
                                                   : KV_FLASH_OFF;
        st->flash = st->server_flash != KV_FLASH_OFF;
        st->flash_auto = st->server_flash == KV_FLASH_AUTO;
        st->cache_type = want;
    } else if (v >= R_FA_AUTO && !runs_own_engine(m, v) && !o->flash_attention.set) {
        st->flash_auto = 1; /* FlashAttentionAuto: the estimate counts it off */
        st->cache_type = KV_OLLAMA_F16;
    } else {
        int asked = o->flash_attention.set ? o->flash_attention.value != 0
                    : v >= R_MODEL_FA      ? fa_default(m, v)
                                           : 0;
        st->flash = asked && lib_ok && model_ok;
        st->flash_refused = asked && !st->flash;
        st->cache_type = st->flash && v >= R_KV_TYPE ? want : KV_OLLAMA_F16;
        /* gpt-oss refused a quantized cache from 0.11.2 (8253ad4d) to 0.12.3 (19e6796e) */
        if (is_gptoss(m, v) && v >= V(11, 2) && v < R_LIB_NAMES)
            st->cache_type = KV_OLLAMA_F16;
    }
    st->type_refused = want != KV_OLLAMA_F16 && st->cache_type == KV_OLLAMA_F16;
    st->bpe = cache_bytes[st->cache_type];
}

static void resolve(const kv_spec *s, const kv_result *r, const model *m, settings *st)
{
    const kv_ollama_spec *o = &s->ollama;
    memset(st, 0, sizeof *st);
    st->v = o->version;
    st->era = st->v >= R_SERVER ? KV_OLLAMA_LLAMA_SERVER
              : st->v >= R_LAYOUT ? KV_OLLAMA_LAYOUT
                                  : KV_OLLAMA_ESTIMATOR;
    st->lib_default = !o->library.set;
    st->lib = o->library.set ? (int)o->library.value : library_of_gpu(s);
    st->ctx_default = !o->num_ctx.set;
    st->num_ctx = o->num_ctx.set ? o->num_ctx.value : default_num_ctx(s, st);
    if (st->num_ctx < 4) /* GetRunner (server/sched.go:84-87) */
        st->num_ctx = 4;
    /* gpt-oss (and from 0.12.11 qwen3vl) want 8192 unless the GPUs are small (fa7776fd:
     * "low VRAM" below 20 GiB), until 0.15.5 */
    int wants_8192 = is_gptoss(m, st->v) ||
                     (st->v >= R_LAYOUT && (arch_is(m, "qwen3vl") || arch_is(m, "qwen3vlmoe")));
    if (wants_8192 && st->v < R_VRAM_CTX && st->num_ctx < 8192 && st->lib != KV_OLLAMA_CPU &&
        s->gpu_mem_gib * KV_GIB - o->gpu_overhead_bytes >= 20 * KV_GIB)
        st->num_ctx = 8192;
    /* vision models: at least 2048 per sequence (GetRunner, from 0.11.5) */
    if (st->v >= R_PER_SEQ && (has_vision(m) || o->projector_weights_gib.set) && st->num_ctx < 2048)
        st->num_ctx = 2048;
    st->parallel_auto = !o->num_parallel.set || o->num_parallel.value == 0;
    st->parallel = st->parallel_auto ? default_parallel(st->v) : o->num_parallel.value;
    st->parallel_forced = serves_one(m, st->v) && st->parallel != 1;
    if (st->parallel_forced)
        st->parallel = 1;
    st->num_gpu = o->num_gpu.set ? o->num_gpu.value : -1;
    st->gpus = st->lib == KV_OLLAMA_CPU ? 1 : o->gpus;
    st->proj_w = o->projector_weights_gib.set ? (uint64_t)(o->projector_weights_gib.value * KV_GIB) : 0;
    st->proj_g = o->projector_graph_gib.set ? (uint64_t)(o->projector_graph_gib.value * KV_GIB) : 0;
    flash_and_type(s, m, st);
    st->minimum = minimum_mib[st->lib] * MIB;
    st->overhead = st->v >= R_OVERHEAD ? (uint64_t)o->gpu_overhead_bytes : 0;
    st->batch_given = o->num_batch.set;
    st->num_batch = o->num_batch.set ? (uint64_t)o->num_batch.value : 512; /* api/types.go */
    st->free_estimated = !o->available_gib.set;
    double free = o->available_gib.set ? o->available_gib.value * KV_GIB
                                       : r->gpu_mem_bytes - r->overhead_bytes;
    st->free = free > 0 && free < 1.8e19 ? (uint64_t)free : 0;
}

/* ---- GraphSize and EstimateGPULayers, for one parallel count ---- */

typedef struct {
    int64_t num_ctx;        /* per request, after the clamp */
    int clamped;
    int64_t parallel;
    uint64_t ctx, batch;    /* GraphSize's context (every sequence) and batch */
    uint64_t kv_total, kv0, generic_total;
    uint64_t graph_full, graph_partial;
    int formula;            /* the architecture's graph formula (0: the fallback) */
    int approx;             /* a formula that reads a tensor kvcalc does not keep */
    uint64_t blocks_sum, output, buffer, memory_weights;
    int64_t count;          /* layers placed on the device (the output counts as one) */
    int fully;
    uint64_t alloc, overflow, total, vram;
    int64_t layers;         /* estimate.Layers: 0 on the CPU or when nothing fits */
    uint64_t gpu_weights, gpu_kv, gpu_graph, cpu_weights, cpu_kv; /* per device (0.12.11+) */
    uint64_t allocs[KV_OLLAMA_MAX_GPUS]; /* gpuAllocations, each GPU */
    int64_t counts[KV_OLLAMA_MAX_GPUS];  /* layerCounts */
    calc c;
} estimate;

/* The KV heads GraphSize uses for layer i: the scalar key (the max of an array from 0.9.3;
 * an array read as the default 1 before), each layer's own from 0.11.11. */
static uint64_t heads_kv_at(const model *m, int v, int64_t i)
{
    if (v >= R_RECURRENT && m->g && i < m->g->layer_count)
        return (uint64_t)m->g->layer_kv_heads[i];
    return v < R_ARRAY_HEADS && m->heads_array ? 1 : m->heads_kv_max;
}

/* From 0.11.11 a layer without heads is recurrent: its f32 conv and SSM state, once. */
static int recurrent_at(const model *m, int v, int64_t i)
{
    if (v < R_RECURRENT || !m->g || i >= m->g->layer_count)
        return 0;
    int kind = m->g->layer_kind[i];
    /* a layer that keeps nothing: Nemotron-H's MLP layers have no heads (recurrent to
     * Ollama); Gemma-3n's shared layers do (attention to Ollama) */
    return kind == KV_LAYER_STATE || (kind == KV_LAYER_KINDS && m->g->layer_kv_heads[i] == 0 &&
                                      strncmp(m->arch, "nemotron", 8) == 0);
}

static uint64_t kv_row_bytes(calc *c, const model *m, const settings *st, uint64_t tokens,
                       uint64_t heads_kv)
{
    return scaled(c, mul(c, mul(c, tokens, m->k + m->v), heads_kv), st->bpe);
}

/* kv[i] of GraphSize (fs/ggml/ggml.go:489-493, 578-588, 668-677). */
static uint64_t kv_at(const model *m, const settings *st, estimate *e, int64_t i)
{
    calc *c = &e->c;
    int v = st->v;
    if (v < R_PER_LAYER) /* one total; each layer its integer share (kv / BlockCount) */
        return m->blocks > 0 ? e->kv_total / (uint64_t)m->blocks : 0;
    if (recurrent_at(m, v, i)) {
        const kv_gguf_info *g = m->g;
        return mul(c, (uint64_t)(g->state_r_row + g->state_s_row), 4);
    }
    uint64_t hkv = heads_kv_at(m, v, i);
    if (is_gptoss(m, v)) { /* even layers slide over 4096 per sequence plus a batch */
        uint64_t row = scaled(c, mul(c, m->k + m->v, m->heads_kv_max), st->bpe);
        return i % 2 == 0 ? mul(c, row, add(c, mul(c, (uint64_t)e->parallel, 4096), e->batch))
                          : mul(c, row, e->ctx);
    }
    if (arch_is(m, "gemma3") && (i + 1) % 6 != 0) /* 5 of 6 layers slide */
        return kv_row_bytes(c, m, st, add(c, mul(c, (uint64_t)e->parallel, m->swa), e->batch), hkv);
    return kv_row_bytes(c, m, st, e->ctx, hkv);
}

/* The sum before a release's own rows (gpt-oss's graph reads it). */
static uint64_t generic_total(const model *m, const settings *st, estimate *e)
{
    uint64_t t = 0;
    for (int64_t i = 0; i < m->blocks; i++)
        t = add(&e->c, t, recurrent_at(m, st->v, i)
                              ? kv_at(m, st, e, i)
                              : kv_row_bytes(&e->c, m, st, e->ctx, heads_kv_at(m, st->v, i)));
    return t;
}

#define M(a, b) mul(c, (a), (b))
#define A(a, b) add(c, (a), (b))

/* The graph of GraphSize's architecture cases (fs/ggml/ggml.go:496-660), 0 / 0 for the
 * others. Every operation left to right, as Go's uint64 expressions. */
static void graph_of(const model *m, const settings *st, estimate *e)
{
    calc *c = &e->c;
    const uint64_t b = e->batch, x = e->ctx, em = m->embd, h = m->heads, hkv = m->heads_kv_max,
                   eh = m->embd_heads, ehk = m->k, voc = m->vocab;
    int v = st->v;
    uint64_t full = 0, part = 0;
    e->formula = 1;
    if (arch_is(m, "llama") || (v >= R_CTX_4096 && arch_is(m, "llama4"))) {
        full = M(M(4, b), A(A(1, M(4, em)), M(x, A(1, h))));
        if (v >= R_OVERHEAD)
            full = max2(full, M(M(4, b), A(em, voc)));
        part = M(M(4, b), em);
        part = A(part, max2(A(A(M(M(4, b), A(A(1, em), max2(x, em))), M(M(em, em), 9) / 16),
                              M(M(4, x), A(M(b, h), M(eh, hkv)))),
                            A(M(M(4, b), A(em, voc)), M(M(em, voc), 105) / 128)));
        e->approx = m->moe; /* Mixtral's formulas read blk.0's expert tensors */
    } else if (v >= R_MLLAMA && arch_is(m, "mllama")) {
        full = max2(M(M(4, b), A(A(A(2, M(3, em)), M(ehk, h)), M(x, A(1, h)))),
                    M(M(4, b), A(em, voc)));
        /* ropeFreqsCount reads layers["rope_freqs"]["weights"], a name no file has: 0 */
        part = max2(M(4, A(M(b, A(A(A(M(2, em), 1), M(x, A(1, h))), M(ehk, h))), M(M(ehk, x), hkv))),
                    A(M(M(4, b), A(em, voc)), M(M(em, voc), 105) / 128));
    } else if (arch_is(m, "gemma") || arch_is(m, "gemma2") || (v >= R_GEMMA3 && arch_is(m, "gemma3")) ||
               (v >= R_ARRAY_HEADS && arch_is(m, "gemma3n"))) {
        full = max2(M(M(4, b), A(em, voc)),
                    M(M(4, b), A(A(A(A(2, x), M(x, h)), M(2, em)), M(M(2, ehk), h))));
        part = max2(A(A(M(M(4, em), b), M(M(em, voc), 105) / 128), M(M(4, voc), b)),
                    A(A(M(M(4, b), A(A(A(A(M(2, em), 1), M(M(2, ehk), h)), x), M(x, h))),
                        M(M(M(4, ehk), x), 8)),
                      M(M(M(em, ehk), h), 9) / 16));
        if (arch_is(m, "gemma3n")) {
            full = M(full, 4);
            part = M(part, 4);
        }
    } else if (arch_is(m, "command-r")) {
        full = max2(M(M(4, b), A(em, voc)), M(M(4, b), A(A(2, M(4, em)), M(x, A(1, h)))));
        part = max2(A(M(M(4, b), A(em, voc)), M(M(em, voc), 105) / 128),
                    A(A(M(M(4, b), A(A(1, M(2, em)), M(x, A(1, h)))), M(M(4, em), x)),
                      M(M(em, em), 9) / 16));
    } else if (arch_is(m, "qwen2")) {
        full = max2(M(M(4, b), A(em, voc)), M(M(4, b), A(A(A(1, M(2, em)), x), M(x, h))));
        part = max2(A(M(M(4, b), A(em, voc)), M(M(em, voc), 105) / 128),
                    M(4, A(M(b, A(A(1, M(2, em)), M(x, A(1, h)))), M(em, A(1, x)))));
    } else if (arch_is(m, "phi2")) {
        full = max2(M(M(4, b), A(em, voc)), M(M(4, b), A(A(A(1, M(4, em)), x), M(x, h))));
        part = max2(A(M(M(4, b), A(M(2, em), voc)), M(M(em, voc), 105) / 128),
                    M(M(4, b), A(A(A(2, M(3, em)), x), M(x, h))));
    } else if (arch_is(m, "stablelm")) {
        full = M(M(4, b), A(A(M(x, A(1, h)), M(3, em)), 2));
        part = max2(M(M(4, b), A(voc, M(2, em))), full);
    } else if (arch_is(m, "deepseek2")) {
        full = max2(M(M(4, b), A(M(3, em), voc)),
                    M(M(4, b), A(A(A(M(3, em), 2), M(x, A(1, hkv))), M(M(2, ehk), hkv))));
        part = max2(A(M(M(4, b), A(M(3, em), voc)), M(M(em, voc), 105) / 128),
                    A(A(M(M(4, b), A(A(A(A(M(2, em), 1), M(M(2, ehk), hkv)), x), M(x, hkv))),
                        M(M(M(4, ehk), x), hkv)),
                      M(M(M(em, ehk), hkv), 9) / 16));
    } else if (v >= R_CHATGLM && arch_is(m, "chatglm")) {
        full = M(M(4, b), A(em, voc));
        part = A(M(M(4, b), A(em, voc)), M(M(em, voc), 105) / 128);
        e->approx = 1; /* the attn_qkv.bias terms read that tensor's rows */
    } else if (is_gptoss(m, v)) {
        uint64_t hmin = m->heads_kv_min ? m->heads_kv_min : 1;
        if (v < R_PER_SEQ) {
            full = M(M(M(4, h) / hmin, e->generic_total) / 6, 1);
            part = v < R_GPTOSS_EQUAL ? M(2, full) : full;
        } else {
            part = M(M(2, h) / hmin, e->generic_total) / 6;
            if (v >= R_MODEL_FA && st->flash) /* "rough estimate of graph size with FA on" */
                part = M(A(A(M(4, (uint64_t)e->parallel), x >> 10), 110), MIB);
        }
    } else {
        e->formula = 0;
    }
    e->graph_full = full;
    e->graph_partial = part;
}

#undef M
#undef A


/* The context, batch, KV rows and graph of GraphSize for `parallel` sequences of num_ctx
 * (llm/memory.go:113-171@v0.9.6, llm/server.go:531-590@v0.24.0); clamp: NewLlamaServer's
 * cut to the model's context (the scheduler's fit tests run before it). */
static void sizes_at(const kv_spec *s, const kv_result *r, const model *m, const settings *st,
                     int64_t parallel, int64_t num_ctx, int clamp, estimate *e)
{
    calc *c = &e->c;
    const int v = st->v;
    memset(e, 0, sizeof *e);
    e->parallel = parallel;
    e->clamped = clamp && v >= R_ARRAY_HEADS && m->ctx_train > 0 && num_ctx > m->ctx_train;
    e->num_ctx = e->clamped ? m->ctx_train : num_ctx;
    uint64_t total = mul(c, (uint64_t)e->num_ctx, (uint64_t)parallel);
    /* d7555774: opts.NumCtx = max(opts.NumCtx, 2048) for every model from 0.7.1; before,
     * "multimodal models require at least 2048 context" (a projector) */
    if (((v >= R_FLOOR && v < R_PER_SEQ) || (v < R_FLOOR && st->proj_w > 0)) && total < 2048)
        total = 2048;
    e->ctx = total;
    /* batch = min(NumCtx, NumBatch): the total before 0.11.5, one sequence's after; an
     * embedding model's whole context from 0.13.3 */
    uint64_t per = v >= R_PER_SEQ ? (uint64_t)e->num_ctx : total;
    e->batch = per < st->num_batch ? per : st->num_batch;
    if (v >= R_EMBED_BATCH && is_embedding(m))
        e->batch = per;

    /* the KV rows */
    if (v < R_KV_TYPE) /* fp16 k,v = 2 * n_ctx * n_layer * (K + V) * n_head_kv */
        e->kv_total = mul(c, mul(c, mul(c, mul(c, 2, total), (uint64_t)m->blocks), m->k + m->v),
                          heads_kv_at(m, v, 0));
    else if (v < R_PER_LAYER)
        e->kv_total = scaled(c, mul(c, mul(c, mul(c, total, (uint64_t)m->blocks), m->k + m->v),
                                    heads_kv_at(m, v, 0)),
                             st->bpe);
    e->generic_total = is_gptoss(m, v) ? generic_total(m, st, e) : 0;
    if (v >= R_PER_LAYER)
        for (int64_t i = 0; i < m->blocks; i++)
            e->kv_total = add(c, e->kv_total, kv_at(m, st, e, i));
    e->kv0 = m->blocks > 0 ? kv_at(m, st, e, 0) : 0;

    /* the graph: the architecture's, else gqa x kv / 6; Metal keeps no partial overhead */
    graph_of(m, st, e);
    if (e->graph_partial == 0) {
        uint64_t hkv = v >= R_ARRAY_HEADS ? (m->heads_kv_min ? m->heads_kv_min : 1)
                                          : (m->heads_kv_max ? m->heads_kv_max : 1);
        e->graph_partial = mul(c, m->heads / hkv, e->kv_total) / 6;
    }
    if (e->graph_full == 0)
        e->graph_full = e->graph_partial;
    if (st->lib == KV_OLLAMA_METAL)
        e->graph_partial = e->graph_full;
    else if (st->gpus > 1 && st->era == KV_OLLAMA_ESTIMATOR)
        e->graph_full = e->graph_partial; /* "multigpu should always use the partial graph" */
    e->output = output_bytes(s, m, r);
    for (int64_t i = 0; i < m->blocks; i++)
        e->blocks_sum = add(c, e->blocks_sum, block_bytes(s, m, r, i));
}

/* EstimateGPULayers (llm/memory.go:74-361@v0.9.6) on st->gpus alike devices: each is
 * admitted when it holds the overhead, the larger graph, the minimum and two layers' worth;
 * a layer goes to gpusWithSpace[i % j] (i the layer, j the devices left), and a device it
 * does not fit is dropped for good. */
static void place_estimator(const kv_spec *s, const kv_result *r, const model *m,
                            const settings *st, estimate *e)
{
    calc *c = &e->c;
    const int v = st->v;
    const int64_t n = st->gpus;
    uint64_t graph = max2(e->graph_full, e->graph_partial);
    /* the buffer: one layer's worth kept free (the largest group in 0.7.0) */
    uint64_t layer = v == R_REVERSE ? largest_group(s, m, r) : block_bytes(s, m, r, 0);
    e->buffer = add(c, layer, e->kv0);
    uint64_t need = add(c, add(c, add(c, add(c, st->overhead, graph), st->minimum), e->buffer),
                        e->buffer);
    /* a projector: before 0.7.1 its file's weights and graph on the first GPU admitted; from
     * 0.7.1 a --mmproj file's weights there (gpuZeroOverhead), the model file's own with the
     * output layer (memoryLastLayer) */
    int own = v >= R_FLOOR && st->proj_g > 0;
    uint64_t gzo = v < R_FLOOR ? add(c, st->proj_w, st->proj_g) : own ? 0 : st->proj_w;
    uint64_t last = add(c, e->output, own ? add(c, st->proj_w, st->proj_g) : 0);
    int ws[KV_OLLAMA_MAX_GPUS], nws = 0; /* gpusWithSpace */
    for (int64_t g = 0; g < n; g++)
        if (st->free >= add(c, need, nws == 0 ? gzo : 0)) {
            ws[nws++] = (int)g;
            e->allocs[g] = add(c, st->minimum, e->buffer);
        }
    if (nws > 0)
        e->allocs[ws[0]] = add(c, e->allocs[ws[0]], gzo);
    else if (v >= R_FLOOR)
        e->overflow = add(c, e->overflow, gzo);
    /* the layers: last to first from 0.7.0, first to last before */
    uint64_t ls = 0;
    for (int64_t k = 0; k < m->blocks; k++) {
        int64_t i = v >= R_REVERSE ? m->blocks - 1 - k : k;
        uint64_t blk = block_bytes(s, m, r, i);
        ls = add(c, blk, kv_at(m, st, e, i));
        e->memory_weights = add(c, e->memory_weights, v < R_BLOCK_WEIGHTS ? ls : blk);
        if (st->num_gpu >= 0 && e->count >= st->num_gpu) {
            if (v >= R_REVERSE)
                e->overflow = add(c, e->overflow, ls);
            continue;
        }
        int placed = 0;
        for (int j = nws; j > 0 && !placed; j--) {
            int at = (int)(i % j), g = ws[at];
            if (st->free > add(c, add(c, add(c, st->overhead, e->allocs[g]), graph), ls)) {
                e->allocs[g] = add(c, e->allocs[g], ls);
                e->counts[g]++;
                e->count++;
                placed = 1;
            } else { /* dropped */
                memmove(&ws[at], &ws[at + 1], (size_t)(nws - at - 1) * sizeof ws[0]);
                nws--;
            }
        }
        if (!placed && v >= R_REVERSE)
            e->overflow = add(c, e->overflow, ls);
    }
    e->fully = e->count >= m->blocks;
    if (v < R_REVERSE && !e->fully) /* the last layer's size, once per layer left */
        e->overflow = add(c, e->overflow, mul(c, (uint64_t)(m->blocks - e->count), ls));
    /* the output layer: before 0.7.0 not even counted when num_gpu stops short of it */
    int tried = st->num_gpu < 0 || e->count < st->num_gpu;
    if (last > 0 && (tried || v >= R_REVERSE)) {
        for (int j = nws; tried && j > 0; j--) {
            int g = ws[e->count % j];
            if (st->free > add(c, add(c, add(c, st->overhead, e->allocs[g]), graph), last)) {
                e->allocs[g] = add(c, e->allocs[g], last);
                e->counts[g]++;
                e->count++;
                break;
            }
        }
        if (e->count < m->blocks + 1) {
            e->fully = 0;
            e->overflow = add(c, e->overflow, last);
        }
    }
    e->alloc = 0;
    for (int64_t g = 0; g < n; g++) {
        if (e->counts[g] > 0)
            e->allocs[g] = add(c, e->allocs[g], e->fully ? e->graph_full : e->graph_partial);
        e->alloc = add(c, e->alloc, e->allocs[g]);
    }
    e->vram = e->alloc;
    e->total = add(c, e->alloc, e->overflow);
    /* the CPU's estimate, or one that placed nothing, holds no GPU layers (347-353) */
    e->layers = st->lib == KV_OLLAMA_CPU || e->count == 0 ? 0 : e->count;
    if (e->layers == 0)
        e->vram = 0;
}

/* greedyFit on one device (llm/server.go:1177-1199@v0.24.0): from the top of `n` sizes
 * (the output layer is sizes[L]) down while each fits what is left; `capacity` scales the
 * free space in float32 as Go does. */
static int64_t greedy_fit(const uint64_t *sizes, int64_t n, uint64_t avail, float capacity,
                          int64_t requested)
{
    float f = (float)avail * capacity;
    uint64_t left = f >= 18446744073709551616.0f ? UINT64_MAX : (uint64_t)f;
    int64_t placed = 0;
    for (int64_t i = n - 1; i >= 0; i--) {
        if (requested >= 0 && placed >= requested)
            break;
        if (sizes[i] > left)
            break;
        left -= sizes[i];
        placed++;
    }
    return placed;
}

/* assignLayers / findBestFit on one device (llm/server.go:1099-1175@v0.24.0): every layer
 * and the output, else the repeating layers only (the output stays on the CPU). num_gpu
 * is honoured as if the device were 1000 times larger. */
static int64_t assign_layers(const uint64_t *sizes, int64_t n, uint64_t avail, int64_t requested)
{
    for (int pass = 0; pass < 2; pass++, n--) {
        int64_t want = requested < n ? requested : n;
        float capacity = want >= 0 ? 1000.0f : 1.0f;
        int64_t placed = greedy_fit(sizes, n, avail, capacity, want);
        if (placed == n || pass == 1)
            return placed;
    }
    return 0;
}

/* llamaServer.Load / createLayout / buildLayout on one device (llm/server.go:531-704,
 * 974-1033@v0.24.0): the layer buffer and the projector off the free memory, then the
 * minimum, the overhead and (once a layer is placed) the larger graph; the layers placed
 * from the top; the graph full only with everything on the GPU. */
static void place_layout(const kv_spec *s, const kv_result *r, const model *m,
                         const settings *st, estimate *e, uint64_t *sizes)
{
    calc *c = &e->c;
    const int64_t n = m->blocks + 1;
    for (int64_t i = 0; i < m->blocks; i++)
        sizes[i] = add(c, block_bytes(s, m, r, i), kv_at(m, st, e, i));
    sizes[m->blocks] = e->output;
    e->buffer = add(c, block_bytes(s, m, r, 0), e->kv0);
    int64_t placed = 0;
    uint64_t graph = 0;
    if (st->lib != KV_OLLAMA_CPU) {
        /* before 0.14.0 (172b5924) an unguarded uint64 subtraction, as Go wraps it */
        uint64_t avail = st->v >= R_GUARDED ? (st->free > e->buffer ? st->free - e->buffer : 0)
                                            : st->free - e->buffer;
        uint64_t reserve = add(c, st->minimum, st->overhead);
        uint64_t pass1 = avail > reserve ? avail - reserve : 0;
        if (assign_layers(sizes, n, pass1, st->num_gpu) > 0) { /* the graph reserved too */
            reserve = add(c, reserve, max2(e->graph_full, e->graph_partial));
            placed = assign_layers(sizes, n, avail > reserve ? avail - reserve : 0, st->num_gpu);
            /* a device that lost every layer keeps the graph it reserved */
            graph = placed == 0 ? max2(e->graph_full, e->graph_partial)
                    : placed == n ? e->graph_full
                                  : e->graph_partial;
        }
    }
    e->count = e->layers = placed;
    e->fully = placed == n;
    for (int64_t i = 0; i < n; i++) {
        /* the top `placed` entries of the pass that placed them: with the output when all
         * fit, else the repeating layers below it */
        int on_gpu = e->fully || (i < m->blocks && i >= m->blocks - placed);
        uint64_t w = i < m->blocks ? block_bytes(s, m, r, i) : e->output;
        uint64_t k = sizes[i] - w;
        if (on_gpu) {
            e->gpu_weights = add(c, e->gpu_weights, w);
            e->gpu_kv = add(c, e->gpu_kv, k);
        } else {
            e->cpu_weights = add(c, e->cpu_weights, w);
            e->cpu_kv = add(c, e->cpu_kv, k);
        }
    }
    e->gpu_graph = graph;
    e->vram = add(c, add(c, e->gpu_weights, e->gpu_kv), graph);
    e->total = add(c, e->vram, add(c, e->cpu_weights, e->cpu_kv));
    e->alloc = e->vram;
}

/* PredictServerFit: every layer on the GPU (or the num_gpu asked for). */
static int fits(const model *m, const settings *st, const estimate *e)
{
    return st->num_gpu < 0 ? e->layers >= m->blocks + 1 : e->layers >= st->num_gpu;
}

static void plan_at(const kv_spec *s, const kv_result *r, const model *m, const settings *st,
                    int64_t parallel, int64_t num_ctx, int clamp, estimate *e, uint64_t *sizes)
{
    sizes_at(s, r, m, st, parallel, num_ctx, clamp, e);
    if (st->era == KV_OLLAMA_ESTIMATOR)
        place_estimator(s, r, m, st, e);
    else
        place_layout(s, r, m, st, e, sizes);
}

/* ---- the engine ---- */

#define P(id) (&kv_ollama_params[id])

void kv_ollama_defaults(kv_spec *s)
{
    s->ollama.version = KV_OLLAMA_NEWEST;
    s->ollama.gpus = 1;
    /* the lesson's reserve is not Ollama's: it keeps its own minimum (457 MiB on CUDA),
     * which the estimate counts; its free memory is the GPU's unless --available-gib */
    s->overhead_gib = 0;
    s->dtype = KV_DTYPE_FP16; /* f16 unless OLLAMA_KV_CACHE_TYPE */
}

kv_status kv_ollama_check(const kv_spec *s, kv_error *why)
{
    const kv_ollama_spec *o = &s->ollama;
    const kv_status no = KV_ERR_ENGINE_INPUT;
    if (kv_refuse_csa(s, why, "Ollama") != KV_OK)
        return no;
    char a[16];
    if (s->tp != 1)
        return kv_refuse(why, no, &kv_core_params[KV_P_TP],
                         "Ollama places a model's layers on its GPUs itself, not by heads: use 1 "
                         "(kvcalc models one GPU, or the CPU)");
    if (s->pp != 1)
        return kv_refuse(why, no, &kv_core_params[KV_P_PP],
                         "Ollama places a model's layers on its GPUs itself: use 1 (kvcalc "
                         "models one GPU, or the CPU)");
    if (o->version < OLLAMA_OLDEST || o->version > KV_OLLAMA_NEWEST + 99 ||
        (o->version > V(24, 99) && o->version < R_SERVER)) {
        kv_ollama_version_format(KV_OLLAMA_NEWEST, a, sizeof a);
        return kv_refuse(why, no, P(OL_P_VERSION),
                         "kvcalc describes Ollama 0.1.48 to 0.24.x and 0.30.0 to %s.x (there are "
                         "no 0.25 to 0.29)", a);
    }
    if ((o->num_ctx.set && (o->num_ctx.value < 1 || o->num_ctx.value > CTX_LIMIT)) ||
        (o->num_parallel.set && (o->num_parallel.value < 0 || o->num_parallel.value > 1024)) ||
        (o->num_gpu.set && (o->num_gpu.value < 0 || o->num_gpu.value > 1000000)) ||
        (o->num_batch.set && (o->num_batch.value < 1 || o->num_batch.value > CTX_LIMIT)) ||
        (o->library.set && (o->library.value < 0 || o->library.value >= KV_OLLAMA_LIBRARIES)) ||
        (o->kv_cache_type.set &&
         (o->kv_cache_type.value < 0 || o->kv_cache_type.value >= KV_OLLAMA_CACHE_TYPES)) ||
        (o->flash_attention.set && (o->flash_attention.value < 0 || o->flash_attention.value > 1)) ||
        !(o->gpu_overhead_bytes >= 0 && o->gpu_overhead_bytes <= 1e15) ||
        (o->available_gib.set && !(o->available_gib.value >= 0 && o->available_gib.value <= 1e6)))
        return kv_refuse(why, no, &kv_core_params[KV_P_ENGINE],
                         "an Ollama input is out of range (num_ctx 1 to 2^30, num_parallel 0 to "
                         "1024, num_batch >= 1, GPU overhead and available memory >= 0)");
    int64_t par = o->num_parallel.set && o->num_parallel.value > 0 ? o->num_parallel.value : 4;
    if (o->num_ctx.set && o->num_ctx.value * par > CTX_LIMIT)
        return kv_refuse(why, no, P(OL_P_NUM_CTX),
                         "num_ctx x parallel exceeds 2^30 tokens, more than Ollama's runner takes");
    if (o->gpus < 1 || o->gpus > KV_OLLAMA_MAX_GPUS)
        return kv_refuse(why, no, P(OL_P_GPUS), "must be 1 to %d", KV_OLLAMA_MAX_GPUS);
    if (o->gpus > 1 && o->version >= R_LAYOUT)
        return kv_refuse(why, no, P(OL_P_GPUS),
                         "kvcalc spreads layers over several GPUs as Ollama's estimator does, "
                         "to 0.12.10; from 0.12.11 (the layout, llama-server) it models one");
    if ((o->projector_weights_gib.set || o->projector_graph_gib.set) && o->version >= R_LAYOUT)
        return kv_refuse(why, no, P(o->projector_weights_gib.set ? OL_P_PROJECTOR : OL_P_PROJECTOR_GRAPH),
                         "a projector's sizes enter the estimate to 0.12.10; from 0.12.11 the "
                         "layout counts a --mmproj file only on a second GPU, and Ollama's own "
                         "engine and llama-server measure theirs");
    if (s->layout.index_dim > 0 && o->version < R_SERVER)
        return kv_refuse(why, no, P(OL_P_VERSION),
                         "DeepSeek sparse attention's indexer cache (index_head_dim) is "
                         "modelled from 0.30, where llama-server allocates it; kvcalc does not "
                         "know what Ollama's own estimator made of it before");
    if (o->gpus > 1 && (o->library.set ? o->library.value == KV_OLLAMA_CPU : 0))
        return kv_refuse(why, no, P(OL_P_GPUS), "the CPU is one device");
    if (o->kv_cache_type.set && o->kv_cache_type.value != KV_OLLAMA_F16 && o->version < R_KV_TYPE)
        return kv_refuse(why, no, P(OL_P_CACHE_TYPE),
                         "OLLAMA_KV_CACHE_TYPE exists from Ollama 0.5.0 (--ollama-version)");
    /* from 0.30 the flags go to llama-server as given (llm/server.go NewLlamaServer: kvct;
     * llm/llama_server.go "--cache-type-k", "--cache-type-v" and appendFlashAttentionArgs's
     * "--flash-attn off" for OLLAMA_FLASH_ATTENTION=0, @ fb3076099): a quantized V cache
     * without flash attention is what llama.cpp refuses (llamacpp_check) */
    if (o->version >= R_SERVER && o->kv_cache_type.set && o->kv_cache_type.value != KV_OLLAMA_F16 &&
        o->flash_attention.set && o->flash_attention.value == 0)
        return kv_refuse(why, no, P(OL_P_CACHE_TYPE),
                         "from 0.30 Ollama passes llama-server --flash-attn off with this cache "
                         "type, and llama.cpp refuses a quantized V cache without flash "
                         "attention (--flash-attention 1, or --kv-cache-type f16)");
    if (o->gpu_overhead_bytes > 0 && o->version < R_OVERHEAD)
        return kv_refuse(why, no, P(OL_P_OVERHEAD),
                         "OLLAMA_GPU_OVERHEAD exists from Ollama 0.3.10 (--ollama-version)");
    if (o->flash_attention.set && o->version < V(1, 39))
        return kv_refuse(why, no, P(OL_P_FLASH),
                         "OLLAMA_FLASH_ATTENTION exists from Ollama 0.1.39 (--ollama-version)");
    if (!o->kv_cache_type.set && s->dtype != KV_DTYPE_FP16 && s->dtype != KV_DTYPE_BF16 &&
        s->dtype != KV_DTYPE_INT8 && s->dtype != KV_DTYPE_INT4)
        return kv_refuse(why, no, &kv_core_params[KV_P_DTYPE],
                         "Ollama caches in f16, q8_0 or q4_0 (OLLAMA_KV_CACHE_TYPE: "
                         "--kv-cache-type)");
    return KV_OK;
}

/* A request of `context` tokens: every parallel slot holds one when num_ctx does; a longer
 * one Ollama cuts to num_ctx (it truncates the prompt), so none is served whole. */
double kv_ollama_at(const kv_spec *s, const kv_result *r, int64_t context, double request_bytes)
{
    (void)s;
    (void)request_bytes; /* the cache is num_ctx x parallel, whatever the request */
    const kv_ollama_result *o = &r->ollama;
    return context <= o->num_ctx ? (double)o->num_parallel : 0;
}

/* The scheduler's parallel count before 0.11.5 (server/sched.go:762-833@v0.9.6
 * pickBestFullFitByLibrary, then pickBestPartialFitByLibrary): its default when the model
 * then has every layer on the GPU, else 1; on the CPU the default (206-212). */
static int64_t choose_parallel(const kv_spec *s, const kv_result *r, const model *m,
                               const settings *st, estimate *e, uint64_t *sizes)
{
    if (!st->parallel_auto || st->parallel == 1 || st->lib == KV_OLLAMA_CPU)
        return st->parallel;
    plan_at(s, r, m, st, st->parallel, st->num_ctx, 0, e, sizes);
    return fits(m, st, e) ? st->parallel : 1;
}

/* The longest num_ctx that keeps every layer on the device at this parallel (0: none; the
 * model's context when that fits, since a longer one is cut to it). */
static int64_t longest_num_ctx(const kv_spec *s, const kv_result *r, const model *m,
                               const settings *st, int64_t parallel, estimate *e, uint64_t *sizes)
{
    int64_t lo = 4, hi = CTX_LIMIT / parallel;
    if (st->v >= R_ARRAY_HEADS && m->ctx_train > 0 && m->ctx_train < hi)
        hi = m->ctx_train;
    settings all = *st;
    all.num_gpu = -1;
    if (st->lib == KV_OLLAMA_CPU && st->era != KV_OLLAMA_ESTIMATOR)
        return 0; /* no GPU: the layout places nothing */
    plan_at(s, r, m, &all, parallel, hi, 1, e, sizes);
    if (!e->c.wrapped && e->count >= m->blocks + 1)
        return hi;
    plan_at(s, r, m, &all, parallel, lo, 1, e, sizes);
    if (e->c.wrapped || e->count < m->blocks + 1)
        return 0;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        plan_at(s, r, m, &all, parallel, mid, 1, e, sizes);
        if (!e->c.wrapped && e->count >= m->blocks + 1)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- 0.30+: llama-server, sized by llama.cpp's rules ---- */

/* The batch Ollama passes when num_batch is not given (server/sched.go:797-915@v0.30.0):
 * 512 on CUDA without flash attention (256 past 4096 tokens on GPUs of 8 GiB or less),
 * else 2048 past 32768 tokens, 1024 past 4096, lowered while the model's predicted memory
 * (its file plus an f16 cache, PredictServerVRAM) leaves too little of the free memory. */
static int64_t server_batch(const kv_spec *s, const model *m, const settings *st, int64_t ctx)
{
    if (st->batch_given)
        return (int64_t)st->num_batch;
    if (is_embedding(m))
        return ctx < 2048 ? ctx : 2048;
    if (st->server_flash == KV_FLASH_OFF && st->lib == KV_OLLAMA_CUDA)
        return ctx > 4096 && s->gpu_mem_gib <= 8 ? 256 : 512;
    int64_t batch = ctx > 32768 ? 2048 : ctx > 4096 ? 1024 : 512;
    double file = m->g ? (double)(m->g->data_offset + m->g->data_bytes) : s->checkpoint_weights_bytes;
    double hkv = (double)(m->heads_kv_min ? m->heads_kv_min : 1);
    double dim = m->heads ? (double)(m->embd / m->heads) : 0;
    double predicted = file + 2.0 * (double)m->blocks * hkv * dim * (double)ctx * 2;
    double avail = st->lib == KV_OLLAMA_CPU ? 0 : (double)st->free;
    while (batch > 512 && predicted > 0 && avail > 0) {
        double threshold = kvm_floor(avail * 80 / 100);
        double room = batch >= 2048 ? 0.60 : 0.75;
        double surcharge = batch >= 2048 ? 2 * KV_GIB : 768 * KV_MIB;
        if (predicted <= threshold && predicted <= avail * room && surcharge <= threshold - predicted)
            break;
        batch = batch == 2048 ? 1024 : 512;
    }
    return batch;
}

static kv_status llama_server(const kv_spec *s, kv_result *r, const model *m,
                              const settings *st, kv_ollama_result *o)
{
    /* llama.cpp's rules on this spec with the flags Ollama passes llama-server (llamacpp.h: no
     * copy of the spec to hold them), its own result into o->server; the figures every engine
     * shares into a copy of the result's, since it writes more of them than Ollama takes
     * (longest_context_any) - up to the engine's part, which it does not read */
    kv_llamacpp_spec flags;
    kv_dtype dtype;
    kv_result lr;
    memcpy(&lr, r, offsetof(kv_result, engine_space));
    int64_t num_ctx = st->num_ctx;
    /* NewLlamaServer cuts num_ctx to the model's context (llm/server.go:111-116@v0.30.0) */
    o->ctx_clamped = m->ctx_train > 0 && num_ctx > m->ctx_train;
    if (o->ctx_clamped)
        num_ctx = m->ctx_train;
    int64_t ctx = num_ctx * st->parallel;
    memset(&flags, 0, sizeof flags);
    kv_llamacpp_spec_defaults(&flags, &dtype);
    kv_llamacpp_spec *l = &flags;
    l->build = server_build(st->v);
    l->ctx_size = KV_SOME_INT(ctx);                 /* -c num_ctx x np */
    l->parallel = KV_SOME_INT(st->parallel);        /* -np; no --kv-unified */
    l->flash_attn = KV_SOME_INT(st->server_flash);  /* --flash-attn on | off | auto */
    if (s->ollama.kv_cache_type.set || st->cache_type != KV_OLLAMA_F16) {
        static const int ggml[KV_OLLAMA_CACHE_TYPES] = {KV_GGML_F16, KV_GGML_Q8_0, KV_GGML_Q4_0};
        l->type_k = l->type_v = KV_SOME_INT(ggml[st->cache_type]);
    }
    l->batch_size = l->ubatch_size = server_batch(s, m, st, ctx); /* -b and -ub alike */
    if (st->num_gpu >= 0)
        l->n_gpu_layers = KV_SOME_INT(st->num_gpu);
    else if (st->lib == KV_OLLAMA_CPU)
        l->n_gpu_layers = KV_SOME_INT(0);
    kv_error why;
    kv_status rc = kv_llamacpp_check_as(s, l, dtype, &why);
    if (rc != KV_OK)
        return rc;
    if ((rc = kv_llamacpp_compute_as(s, l, dtype, &lr, &o->server)) != KV_OK)
        return rc;
    const kv_llamacpp_result *L = &o->server;
    /* the estimator's figures: none from 0.30 (llama-server sizes itself), so null, not 0 */
    o->weights_repeating_bytes = o->weights_nonrepeating_bytes = NAN;
    o->graph_full_bytes = o->graph_partial_bytes = NAN;
    o->llamacpp_build = L->build;
    o->server_flash = st->server_flash;
    o->num_ctx = num_ctx;
    o->kv_size = L->n_ctx;
    o->estimate_ctx = L->n_ctx;
    o->batch = l->batch_size;
    o->kv_bytes = L->main.k_bytes + L->main.v_bytes + L->swa.k_bytes + L->swa.v_bytes +
                  L->state_r_bytes + L->state_s_bytes;
    o->layers_model = L->n_layer + 1;
    o->layers_offload = L->gpu_layers;
    o->fully_loaded = L->gpu_layers == L->n_layer + 1 && L->fits_gpu;
    o->gpu_weights_bytes = L->weights_gpu_bytes;
    o->gpu_kv_bytes = L->kv_gpu_bytes;
    o->gpu_graph_bytes = L->compute_bytes;
    o->cpu_weights_bytes = lr.weights_bytes - L->weights_gpu_bytes;
    o->cpu_kv_bytes = L->kv_host_bytes;
    o->required_partial_bytes = L->weights_gpu_bytes + L->kv_gpu_bytes + L->compute_bytes;
    o->required_full_bytes = o->fully_loaded ? o->required_partial_bytes
                                             : o->required_partial_bytes + o->cpu_weights_bytes +
                                                   o->cpu_kv_bytes;
    /* llama-server's fit moves layers to the CPU when they do not fit: how many, kvcalc
     * does not model (-1: unknown) */
    o->gpu_percent = st->lib == KV_OLLAMA_CPU || L->gpu_layers == 0 ? 0 : L->fits_gpu ? 100 : -1;
    o->longest_num_ctx = L->ctx_size_fit_any ? (m->ctx_train > 0 ? m->ctx_train : CTX_LIMIT / st->parallel)
                                             : L->ctx_size_fit / st->parallel;
    if (m->ctx_train > 0 && o->longest_num_ctx > m->ctx_train)
        o->longest_num_ctx = m->ctx_train;
    r->available_kv_bytes = lr.available_kv_bytes;
    r->host_bytes = lr.host_bytes; /* the runner's host KV, as llama.cpp's */
    return KV_OK;
}

/* ---- what Ollama's own engine allocates for a recurrent cache ------------------------------
 * kvcache.Recurrent (kvcache/recurrent.go and recurrent_checkpoints.go @ b5303fbf5, the
 * ollama/ollama mirror) keeps each recurrent layer's conv and state rows in f32 for
 * maxSequences (= the slots) and, for prefix reuse, DefaultCheckpointCount = 24 checkpoints a
 * slot, all reserved when the worst-case graph is built at load (reserveCheckpointConv /
 * reserveCheckpointRecurrent). qwen3next (77eb2ca61, v0.15.5) kept 32 of its own
 * (checkpointCountDefault, model/models/qwen3next/checkpoints.go) until the shared cache of
 * 0ade9205c (v0.17.1), which nemotron_h, lfm2 (its recurrent row 1 float: "keep a minimal
 * recurrent buffer size") and qwen35 use from 0.17.1. The attention layers' causal cache is
 * the estimate's rows. Three real logs of qwen3-coder-next at KvSize 32768, one slot
 * (tests/logs/ollama-h01-*): 12 layers of 2 x 256 at 32,768 cells + 25 x 36 x (3 x 8,192 +
 * 32 x 128 x 128) x 4 B = 2.59 GiB in f16 (logged 1.1 + 1.5 GiB). */
static const struct {
    const char *arch;
    int from;
    int64_t checkpoints;
} recurrent_cache[] = {
    {"qwen3next", V(17, 1), 24}, {"qwen3next", V(15, 5), 32}, {"qwen35", V(17, 1), 24},
    {"qwen35moe", V(17, 1), 24}, {"nemotron_h", V(17, 1), 24}, {"nemotron_h_moe", V(17, 1), 24},
    {"lfm2", V(17, 1), 24},      {"lfm2moe", V(17, 1), 24},
};

static int64_t state_checkpoints(const model *m, int v)
{
    for (size_t i = 0; i < sizeof recurrent_cache / sizeof recurrent_cache[0]; i++)
        if (arch_is(m, recurrent_cache[i].arch) && v >= recurrent_cache[i].from)
            return recurrent_cache[i].checkpoints;
    return 0;
}

static double runner_kv(const model *m, const settings *st, const estimate *e,
                        int64_t checkpoints, int64_t parallel)
{
    double once = 0, rows = 0; /* the estimate's one copy of the rows; the runner's rows */
    int lfm = arch_is(m, "lfm2") || arch_is(m, "lfm2moe");
    for (int64_t i = 0; i < m->blocks; i++)
        if (recurrent_at(m, st->v, i)) {
            once += (double)(m->g->state_r_row + m->g->state_s_row) * 4.0;
            rows += (double)(m->g->state_r_row + m->g->state_s_row + (lfm ? 1 : 0)) * 4.0;
        }
    double slots = (double)(parallel > 1 ? parallel : 1);
    /* the causal cache in ggml's types: q8_0 is 34 bytes a block of 32, q4_0 18 (the
     * estimate's bytes per element say 1 and 0.5) */
    static const double ggml_bytes[KV_OLLAMA_CACHE_TYPES] = {
        [KV_OLLAMA_F16] = 2, [KV_OLLAMA_Q8_0] = 34.0 / 32, [KV_OLLAMA_Q4_0] = 18.0 / 32};
    double attention = ((double)e->kv_total - once) * ggml_bytes[st->cache_type] / st->bpe;
    return attention + rows * (double)(1 + checkpoints) * slots;
}

/* ---- the result ---- */

static void fill_estimate(const model *m, const settings *st, const estimate *e,
                          kv_ollama_result *o)
{
    o->num_ctx = e->num_ctx;
    o->ctx_clamped = e->clamped;
    o->kv_size = e->num_ctx * e->parallel;
    o->estimate_ctx = (int64_t)e->ctx;
    o->batch = (int64_t)e->batch;
    o->kv_bytes = (double)e->kv_total;
    o->kv_layer0_bytes = (double)e->kv0;
    o->buffer_bytes = (double)e->buffer;
    o->graph_full_bytes = (double)e->graph_full;
    o->graph_partial_bytes = (double)e->graph_partial;
    o->graph_formula = e->formula;
    o->weights_repeating_bytes = (double)e->blocks_sum;
    o->weights_nonrepeating_bytes = (double)e->output;
    /* memory.weights.* as logged: with the KV before 0.6.1, without the output before
     * 0.6.3 (llm/memory.go:399-412) */
    o->weights_total_bytes = st->v >= R_PER_LAYER ? (double)e->blocks_sum + (double)e->output
                                                  : (double)e->memory_weights;
    o->weights_repeating_logged_bytes =
        st->v >= R_PER_LAYER ? (double)e->blocks_sum
                             : (double)(e->memory_weights - e->output); /* uint64, as logged */
    o->layers_model = m->blocks + 1;
    o->layers_offload = e->layers;
    o->fully_loaded = e->fully && e->layers > 0;
    o->allocation_bytes = st->era == KV_OLLAMA_ESTIMATOR ? (double)e->allocs[0] : (double)e->alloc;
    o->gpus = st->gpus;
    for (int64_t g = 0; g < st->gpus && g < KV_OLLAMA_MAX_GPUS; g++) {
        o->gpu_allocations[g] = (double)e->allocs[g];
        o->gpu_layer_counts[g] = e->counts[g];
    }
    o->gpu_weights_bytes = (double)e->gpu_weights;
    o->gpu_kv_bytes = (double)e->gpu_kv;
    o->gpu_graph_bytes = (double)e->gpu_graph;
    o->cpu_weights_bytes = (double)e->cpu_weights;
    o->cpu_kv_bytes = (double)e->cpu_kv;
    o->required_full_bytes = (double)e->total;
    o->required_partial_bytes = (double)e->vram;
    /* ollama ps: "100% CPU" without VRAM, "100% GPU" when all of it, else the rounded CPU
     * share (cmd/cmd.go ListRunningHandler) */
    double cpu = e->total > 0 ? kvm_round((double)(e->total - e->vram) / (double)e->total * 100) : 0;
    o->gpu_percent = e->vram == 0 ? 0 : e->vram >= e->total ? 100 : 100 - (int64_t)cpu;
    /* CONTEXT (from 0.10.0): the configured num_ctx, the one in force from 0.15.5 */
    o->ps_context = st->v < R_PARALLEL_1 ? 0 : st->v >= R_VRAM_CTX ? e->num_ctx : st->num_ctx;
}

kv_status kv_ollama_compute(const kv_spec *s, kv_result *r)
{
    kv_ollama_result *o = &r->ollama;
    model m;
    settings st;
    estimate e;
    uint64_t sizes[KV_GGUF_MAX_LAYERS + 1];
    model_of(s, &m);
    if (m.blocks < 1 || (m.g && m.blocks > KV_GGUF_MAX_LAYERS) ||
        (!m.g && m.blocks > KV_GGUF_MAX_LAYERS))
        return KV_ERR_RANGE; /* more blocks than the layout's table holds */
    resolve(s, r, &m, &st);
    memset(o, 0, sizeof *o);
    o->version = st.v;
    o->era = (kv_ollama_era)st.era;
    o->ctx_default = st.ctx_default;
    o->num_parallel = st.parallel;
    o->parallel_auto = st.parallel_auto;
    o->parallel_forced = st.parallel_forced;
    o->library = st.lib;
    o->library_default = st.lib_default;
    o->flash = st.flash;
    o->flash_auto = st.flash_auto;
    o->flash_refused = st.flash_refused;
    o->cache_type = st.cache_type;
    o->cache_type_refused = st.type_refused;
    o->bytes_per_element = st.bpe;
    o->minimum_bytes = (double)st.minimum;
    o->available_bytes = (double)st.free;
    o->available_estimated = st.free_estimated;
    o->weights_estimated = !m.g;
    o->model_from_log = m.g && m.g->version == 0;
    o->measured_by_runner = st.v >= R_RECURRENT && st.era != KV_OLLAMA_LLAMA_SERVER &&
                            runs_own_engine(&m, st.v);
    o->state_checkpoints = o->measured_by_runner ? state_checkpoints(&m, st.v) : 0;
    o->cross_attention_left_out = arch_is(&m, "mllama") && st.era != KV_OLLAMA_LLAMA_SERVER;
    if (st.era == KV_OLLAMA_LLAMA_SERVER) {
        kv_status rc = llama_server(s, r, &m, &st, o);
        if (rc != KV_OK)
            return rc;
        o->ps_context = o->num_ctx;
    } else {
        memset(&e, 0, sizeof e); /* (the estimate's alone: llama-server's era has none) */
        int64_t parallel = choose_parallel(s, r, &m, &st, &e, sizes);
        if (e.c.wrapped)
            return KV_ERR_RANGE;
        plan_at(s, r, &m, &st, parallel, st.num_ctx, 1, &e, sizes);
        if (e.c.wrapped)
            return KV_ERR_RANGE;
        o->num_parallel = parallel;
        fill_estimate(&m, &st, &e, o);
        if (o->state_checkpoints > 0)
            o->runner_kv_bytes = runner_kv(&m, &st, &e, o->state_checkpoints, parallel);
        r->host_bytes = o->cpu_kv_bytes; /* the layers left on the CPU keep their cache there */
        double other = m.g ? m.g->weight_bytes - (double)e.blocks_sum - m.g->token_embd_bytes -
                                 m.g->output_bytes - m.g->output_norm_bytes
                           : 0;
        o->projector_left_out = has_vision(&m) && other > 16 * KV_MIB && st.proj_w == 0;
        o->projector_weights_bytes = (double)st.proj_w;
        o->projector_graph_bytes = (double)st.proj_g;
        int approx = e.approx;
        settings fixed = st;
        fixed.parallel = parallel;
        o->longest_num_ctx = longest_num_ctx(s, r, &m, &fixed, parallel, &e, sizes);
        /* what the KV may take with every layer on the device */
        r->available_kv_bytes = (double)st.free - (double)st.overhead - (double)st.minimum -
                                o->graph_full_bytes - o->weights_repeating_bytes -
                                o->weights_nonrepeating_bytes -
                                (o->buffer_bytes - o->kv_layer0_bytes);
        o->estimated = approx;
    }
    o->estimated = o->estimated || o->weights_estimated || o->model_from_log ||
                   o->projector_left_out ||
                   o->cross_attention_left_out || o->available_estimated ||
                   o->measured_by_runner || (st.era == KV_OLLAMA_LLAMA_SERVER);
    r->max_concurrency = kv_ollama_at(s, r, s->context, 0);
    kv_ollama_version_format(st.v, r->engine_version, sizeof r->engine_version);
    o->device_kv_bytes = o->runner_kv_bytes > 0 ? o->runner_kv_bytes : o->kv_bytes;
    r->kv_cache_bytes = o->kv_bytes;
    r->kv_cache_tokens = o->kv_size;
    r->longest_context_fit = o->longest_num_ctx;
    r->estimated = o->estimated;
    return KV_OK;
}

/* The logged free memory was read at from's GPU: at another it moves as kvcalc's estimate
 * of it does (the GPU's memory), the reading's difference from that estimate kept. */
void kv_ollama_relayout(const kv_spec *from, kv_spec *to, kv_compute_fn compute)
{
    if (!from->ollama.available_gib.set)
        return;
    kv_spec a = *from, b = *to;
    kv_result ea, eb;
    a.ollama.available_gib = b.ollama.available_gib = KV_NONE_NUM;
    if (compute(&a, &ea) != KV_OK || compute(&b, &eb) != KV_OK)
        return;
    double f = from->ollama.available_gib.value +
               (eb.ollama.available_bytes - ea.ollama.available_bytes) / KV_GIB;
    to->ollama.available_gib = KV_SOME_NUM(f > 0 ? f : 0);
}

/* The 8-bit lever: OLLAMA_KV_CACHE_TYPE=q8_0, which takes OLLAMA_FLASH_ATTENTION=1. */
void kv_ollama_kv8(kv_spec *s)
{
    s->dtype = KV_DTYPE_INT8; /* the 1 B per element Ollama's estimate counts for q8_0 */
    s->ollama.kv_cache_type = KV_SOME_INT(KV_OLLAMA_Q8_0);
    s->ollama.flash_attention = KV_SOME_INT(1);
}

/* ---- under a workload ---- */

/* Ollama serving one loaded model (ollama/ollama, read at v0.24.0 c28ddc0a and v0.33.0-rc2
 * fb307609; docs/ollama.md): OLLAMA_NUM_PARALLEL slots of num_ctx cells each (KvSize =
 * num_ctx x parallel; llama-server gets -c num_ctx x parallel -np parallel, never
 * --kv-unified), requests beyond them wait first come first served (the runner client's
 * semaphore.NewWeighted(numParallel)). num_keep is 4 (api.DefaultOptions) and a shift drops
 * max((num_ctx - num_keep) / 2, 1) tokens after it (ShiftDiscard, runner/llamarunner/
 * cache.go; contextShiftPromptLimit in llm/llama_server.go). By runner:
 * - the Go runners (0.3.13 - 0.24): a prompt over num_ctx keeps num_keep and its end,
 *   num_ctx tokens ("truncating input prompt", from 0.4.3: c4b34f2a2); a full slot shifts
 *   (the `truncate` and `shift` request fields of 0.12.6+ default to true);
 * - llama-server (0.30+): prompts up to num_ctx - 1 pass; 0.30.0 - 0.30.8 cut longer ones
 *   to num_ctx - 1 and shift only below num_ctx 8192 (resolveContextShift); from 0.30.9
 *   (0f047feef) the shift is on unless the model is deepseek2, and a longer prompt is cut to
 *   num_ctx - max((num_ctx - num_keep) / 2, 1) with it, refused without it (HTTP 400);
 * - every release caps num_predict at 10 x num_ctx (llm/server.go, boundedNumPredict). */
#define OLLAMA_GO_RUNNER OLLAMA_V(3, 13)   /* llama/runner: the Go runner */
#define OLLAMA_NO_CUT OLLAMA_V(4, 2)       /* 65973ceb6: long prompts shifted while read */
#define OLLAMA_SHIFT_ANY OLLAMA_V(30, 9)   /* 0f047feef, bbb40a0a6 */
#define OLLAMA_NUM_KEEP 4

double kv_ollama_step_reads(const kv_spec *s, const kv_result *r, double *block_bytes,
                            double *host)
{
    (void)s;
    (void)block_bytes; /* the cache of num_ctx x parallel cells: the scheduler's */
    /* llama-server's input layer on the CPU is read a row a token, not whole, each step; when
     * the model does not fit, llama-server's fit moves layers to the CPU, how many kvcalc
     * does not model (gpu_percent -1): what a step reads from the host is not known (NaN) */
    int unknown = r->ollama.gpu_percent < 0 ||
                  (r->ollama.gpu_weights_bytes <= 0 && r->ollama.cpu_weights_bytes <= 0 &&
                   r->weights_bytes > 0); /* an era whose estimate splits no weights */
    *host = unknown ? NAN
                                      : r->ollama.cpu_weights_bytes -
                                            r->ollama.server.input_host_bytes +
                                            r->ollama.cpu_kv_bytes;
    return r->ollama.gpu_weights_bytes;
}

kv_status kv_ollama_sched(const kv_spec *s, const kv_result *r, kv_sched *out, kv_error *why)
{
    const kv_ollama_result *o = &r->ollama;
    int v = s->ollama.version;
    if (v < OLLAMA_GO_RUNNER)
        return kv_sched_refuse(why, "Ollama before 0.3.13 served from its C++ ext_server, whose "
                                    "slot rules kvcalc has not read (--ollama-version 0.3.13 or "
                                    "later)");
    if (v == OLLAMA_NO_CUT)
        return kv_sched_refuse(why, "Ollama 0.4.2 shifted a long prompt while reading it "
                                    "(65973ceb6) instead of cutting it: not simulated");
    int64_t ctx = o->num_ctx, par = o->num_parallel;
    if (ctx < 8 || par < 1 || o->kv_size < 8)
        return kv_sched_refuse(why, "Ollama would hold no context with these settings: nothing "
                                    "to simulate");
    int64_t d = (ctx - OLLAMA_NUM_KEEP) / 2;
    if (d < 1)
        d = 1;
    int server = v >= R_SERVER, shift = 1;
    int64_t limit = ctx, cut_to = ctx;
    if (server) {
        model m;
        model_of(s, &m);
        shift = v < OLLAMA_SHIFT_ANY ? ctx < 8192 : !arch_is(&m, "deepseek2");
        limit = ctx - 1;
        cut_to = v < OLLAMA_SHIFT_ANY ? ctx - 1 : shift ? ctx - d : 0;
    }
    out->kind = KV_SCHED_SLOTS;
    out->engine_title = "Ollama";
    out->rules = server ? "Ollama: llm/llama_server.go, server/sched.go @ fb307609 (v0.33.0-rc2), "
                          "llama-server's slots"
                        : "Ollama: runner/llamarunner/runner.go and cache.go, "
                          "runner/ollamarunner @ c28ddc0a (v0.24.0)";
    out->pool_blocks = ctx * par;
    out->group[0] = (kv_sched_group){.groups = 1, .block_size = 1};
    out->n_groups = 1;
    out->max_seqs = par;
    out->max_seqs_name = "OLLAMA_NUM_PARALLEL slots";
    out->max_batched_tokens = o->batch > 0 ? o->batch : 512;
    out->max_model_len = ctx;
    out->slot_tokens = ctx;
    out->prompt_limit = limit;
    out->prompt_truncate_to = cut_to;
    out->shift_discard = shift ? d : 0;
    out->output_limit = 10 * ctx;
    out->unified_fail_all = 0;
    out->preempt_word = "preemptions";
    out->unit = "cells";
    /* from 0.30 llama-server's slots reuse prompts by its own rules (llamacpp_sched): Ollama
     * passes -np and no --kv-unified or --cache-ram (llm/llama_server.go @ fb307609), and
     * asks "cache_prompt": true; the Go runners' own prompt cache is not simulated */
    out->shift_keep = OLLAMA_NUM_KEEP;
    /* before 0.30 the Go runners' InputCache (runner/llamarunner/cache.go, and the same in
     * runner/ollamarunner, from 0.3.13 (llama/runner/cache.go) to c28ddc0a): LoadCacheSlot
     * with cachePrompt true takes the idle slot of the longest common prefix
     * (findLongestCacheSlot; OLLAMA_MULTIUSER_CACHE, off by default, is not modelled), keeps
     * it, one input short of the whole prompt, and no prompt cache exists */
    if (!server) {
        out->slot_reuse = 1;
        out->slot_longest = 1;
    }
    if (server) {
        out->slot_reuse = o->llamacpp_build >= kv_llamacpp_prompt_reuse_build();
        out->slot_similarity = 0.1;
        out->prompt_cache_mib = 8192;
        out->prompt_cache_tokens = ctx * par;
        out->token_state_bytes = o->kv_size > 0 ? r->kv_cache_bytes / (double)o->kv_size : 0;
        out->idle_slots_saved = 1; /* llama-server's default */
        out->idle_slots_cleared = 0;
    }
    out->left_out = server ? "num_keep taken as 4 (one more where the model adds a BOS token); a "
                             "slot is saved to llama-server's prompt cache when its task ends, "
                             "not when the next starts; a step takes one tpot (given or "
                             "estimated) whatever its batch"
                           : "OLLAMA_MULTIUSER_CACHE (off by default); num_keep taken as 4 "
                             "(llamarunner adds one for a BOS token); the batch filled as "
                             "llama-server fills it (llamarunner takes num_batch a sequence, "
                             "ollamarunner shares it round robin from 0.6.4); a step takes one "
                             "tpot (given or estimated) whatever its batch";
    return KV_OK;
}
