/*
 * fromlog.c - --from-log: the log's values as inputs, and kvcalc compared with the log
 * (see fromlog.h for the two runs and why).
 */
#include "fromlog.h"

#include "format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the log's values as inputs ------------------------------------------------------- */

/* One logged figure that becomes a flag's value. */
typedef struct {
    kv_log_field field;
    const char *flag;  /* long name in kv_flags */
    int kind;          /* LOG_SETTING, LOG_MEASURED or LOG_KV_FIGURE */
    int gib;           /* logged in bytes, the flag takes GiB */
    int unless;        /* only when this field + 1 is not logged (0: always) */
} log_input;

#define KV_LOG_N_CTX_FROM_CELLS KV_LOG_CELLS /* read as cells x streams (log_value) */
#define SET(f, fl) {f, fl, LOG_SETTING, 0, 0}
#define MEASURED_GIB(f, fl) {f, fl, LOG_MEASURED, 1, 0}
#define KV_FIGURE_GIB(f, fl) {f, fl, LOG_KV_FIGURE, 1, 0}

static const log_input vllm_inputs[] = {
    /* the concurrency line names max_model_len when no argument line does */
    {KV_LOG_CONCURRENCY_LEN, "context", LOG_SETTING, 0, KV_LOG_MAX_MODEL_LEN + 1},
    SET(KV_LOG_MAX_MODEL_LEN, "context"),
    SET(KV_LOG_TP, "tensor-parallel-size"),
    SET(KV_LOG_UTIL, "gpu-memory-utilization"),
    SET(KV_LOG_BATCHED_TOKENS, "max-num-batched-tokens"),
    SET(KV_LOG_BLOCK_SIZE, "block-size"),
    {KV_LOG_GPU_TOTAL, "gpu-mem-gib", LOG_SETTING, 1, 0}, /* torch's total: vLLM's budget base */
    MEASURED_GIB(KV_LOG_WEIGHTS, "weights-gib"),
    MEASURED_GIB(KV_LOG_ACTIVATION, "activation-gib"),
    MEASURED_GIB(KV_LOG_NON_TORCH, "non-torch-gib"),
    MEASURED_GIB(KV_LOG_CUDA_GRAPH, "cuda-graph-gib"),
    KV_FIGURE_GIB(KV_LOG_AVAILABLE_KV, "kv-cache-memory-gib"),
    /* early V1 and V0 logs state blocks, not memory: the block count is the KV figure */
    {KV_LOG_BLOCKS, "num-gpu-blocks-override", LOG_KV_FIGURE, 0, KV_LOG_AVAILABLE_KV + 1},
};

static const log_input sglang_inputs[] = {
    SET(KV_LOG_MAX_MODEL_LEN, "context"),
    SET(KV_LOG_TP, "tensor-parallel-size"),
    SET(KV_LOG_MEM_FRACTION, "mem-fraction-static"),
    SET(KV_LOG_PAGE_SIZE, "page-size"),
    SET(KV_LOG_MAX_TOTAL_TOKENS, "max-total-tokens"),
    SET(KV_LOG_CHUNKED_PREFILL, "chunked-prefill-size"),
    KV_FIGURE_GIB(KV_LOG_AVAIL_BEFORE, "avail-mem-before-load-gib"),
    KV_FIGURE_GIB(KV_LOG_AVAIL_AFTER, "avail-mem-after-load-gib"),
};

static const log_input llamacpp_inputs[] = {
    SET(KV_LOG_BUILD, "llamacpp-build"),
    SET(KV_LOG_N_CTX, "ctx-size"), /* n_ctx is already padded: padding it again changes nothing */
    /* without an n_ctx line, the cache line's cells x streams is n_ctx (llama-cli) */
    {KV_LOG_N_CTX_FROM_CELLS, "ctx-size", LOG_SETTING, 0, KV_LOG_N_CTX + 1},
    SET(KV_LOG_N_SEQ, "parallel"),
    SET(KV_LOG_N_UBATCH, "ubatch-size"),
};

typedef struct {
    const log_input *rows;
    size_t n;
} input_table;

#define TABLE(a) {a, sizeof a / sizeof a[0]}

/* Each engine's log values that become inputs (kv_log_read recognises these three). */
static const input_table engine_inputs[KV_ENGINE_COUNT] = {
    [KV_ENGINE_VLLM] = TABLE(vllm_inputs),
    [KV_ENGINE_SGLANG] = TABLE(sglang_inputs),
    [KV_ENGINE_LLAMACPP] = TABLE(llamacpp_inputs),
};

static input_table inputs_of(kv_engine e)
{
    return engine_inputs[(unsigned)e < KV_ENGINE_COUNT ? e : KV_ENGINE_LLAMACPP];
}

/* Sets flag `name` from text, as the command line would have. */
static int put(kv_log_inputs *in, const char *name, const char *text, int kind, const char *file,
               char *err, size_t errcap)
{
    const kv_flag *f = kv_flag_find(name, strlen(name));
    char typed[300], shown[200];
    snprintf(typed, sizeof typed, "--from-log %s: %s", kv_safe(shown, sizeof shown, file, 120),
             name);
    kv_value v;
    int rc = kv_flag_value(f, typed, text, &v, err, errcap);
    if (rc == KV_USAGE_ERROR)
        return rc;
    if (rc == 0) { /* 1: "auto", the model's own */
        in->set[f - kv_flags] = (unsigned char)kind;
        in->values[f - kv_flags] = v;
    }
    return 0;
}

static int put_number(kv_log_inputs *in, const log_input *row, double x, const char *file,
                      char *err, size_t errcap)
{
    char text[64];
    /* A run that failed logs negative memory ("Available KV cache memory: -1.44 GiB", vLLM
     * then refuses to start) or no blocks: the flags take no such value; memory enters as 0
     * (the comparison still shows the logged figure), a block count of 0 not at all. */
    if (row->kind != LOG_SETTING && x <= 0 && !row->gib)
        return 0;
    if (row->kind != LOG_SETTING && x < 0)
        x = 0;
    snprintf(text, sizeof text, "%.17g", row->gib ? x / KV_GIB : x);
    return put(in, row->flag, text, row->kind, file, err, errcap);
}

/* "0.10.1.1" -> "0.10.1", "v0.9.1.dev705+g01220ce89" -> "0.9.1": what --vllm-version takes
 * (the patch matters: 0.10.0-0.10.1 profile a lighter sampler). */
static int vllm_minor(const char *version, char *buf, size_t cap)
{
    int minor, patch = 0;
    if (version[0] == 'v')
        version++;
    int n = sscanf(version, "0.%d.%d", &minor, &patch);
    if (n < 1 || minor < 0 || minor > 99 || patch < 0 || patch > 99)
        return -1;
    if (n == 2 && patch > 0)
        snprintf(buf, cap, "0.%d.%d", minor, patch);
    else
        snprintf(buf, cap, "0.%d", minor);
    return 0;
}

/* The engine's name for the cache dtype, as --dtype reads it; NULL: leave the model's. */
static const char *cache_dtype(const kv_log_values *v)
{
    if (v->kv_dtype[0] && strcmp(v->kv_dtype, "auto") != 0)
        return v->kv_dtype;
    return v->dtype[0] && strcmp(v->dtype, "auto") != 0 ? v->dtype : NULL;
}

/* The weights' dtype of a logged quantization method (4-bit methods keep some weights in
 * 16 bits: the estimate is then low); NULL: the model's. */
/* vLLM's quantization method as kvcalc's --quantization names it (the Marlin kernels store
 * the same checkpoint), or NULL for a method kvcalc does not size. */
static const char *quantization_of(const char *method)
{
    static const char *const methods[][2] = {
        {"fp8", "fp8"},          {"awq", "awq"},   {"awq_marlin", "awq"},
        {"gptq", "gptq"},        {"gptq_marlin", "gptq"}, {"bitsandbytes", "bitsandbytes"},
        {"mxfp4", "mxfp4"},
    };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(method, methods[i][0]) == 0)
            return methods[i][1];
    return NULL;
}

/* The texts the log names: version, dtypes, llama.cpp's flags. */
static int put_texts(const kv_log *lg, kv_log_inputs *in, const char *file, char *err,
                     size_t errcap)
{
    static const char *const flash[] = {"off", "on", "auto"};
    const kv_log_values *v = &lg->values;
    char buf[40];
    kv_dtype t;
    const char *d = cache_dtype(v);
    int rc = 0;
    if (d && kv_dtype_from_name(d, &t) == 0)
        rc |= put(in, "dtype", d, LOG_SETTING, file, err, errcap);
    const char *q = quantization_of(v->quantization);
    if (q)
        rc |= put(in, "quantization", q, LOG_SETTING, file, err, errcap);
    int have_version = lg->engine == KV_ENGINE_VLLM && v->version[0] &&
                       vllm_minor(v->version, buf, sizeof buf) == 0;
    if (have_version)
        rc |= put(in, "vllm-version", buf, LOG_SETTING, file, err, errcap);
    /* the engine generation the lines show (V0's lines look alike from 0.6.5 to 0.10, and
     * its sizing rules do not depend on the release: 0.8 stands in when none is stated) */
    if (lg->engine == KV_ENGINE_VLLM && strcmp(v->era, "V0") == 0) {
        if (!have_version)
            rc |= put(in, "vllm-version", "0.8", LOG_SETTING, file, err, errcap);
        rc |= put(in, "vllm-use-v1", "0", LOG_SETTING, file, err, errcap);
    }
    int sv;
    if (lg->engine == KV_ENGINE_SGLANG && kv_sglang_version_parse(v->version, &sv) == 0)
        rc |= put(in, "sglang-version", v->version, LOG_SETTING, file, err, errcap);
    else if (lg->engine == KV_ENGINE_SGLANG && !v->era[0] && v->present[KV_LOG_K_BYTES])
        /* "KV Cache is allocated. K size:" without "#tokens" dates the log to 0.4.1.post6 -
         * 0.4.3.post2 (docs/sglang.md), whose sizing rules are one; the version is not
         * stated, so engine_version stays null */
        rc |= put(in, "sglang-version", "0.4.3.post2", LOG_SETTING, file, err, errcap);
    if (lg->engine == KV_ENGINE_LLAMACPP) {
        if (v->type_k[0])
            rc |= put(in, "cache-type-k", v->type_k, LOG_SETTING, file, err, errcap);
        if (v->type_v[0])
            rc |= put(in, "cache-type-v", v->type_v, LOG_SETTING, file, err, errcap);
        if (v->present[KV_LOG_FLASH_ATTN] && v->v[KV_LOG_FLASH_ATTN] >= 0 &&
            v->v[KV_LOG_FLASH_ATTN] <= 2)
            rc |= put(in, "flash-attn", flash[(int)v->v[KV_LOG_FLASH_ATTN]], LOG_SETTING, file,
                      err, errcap);
        if (v->present[KV_LOG_KV_UNIFIED] && v->v[KV_LOG_KV_UNIFIED] == 1)
            rc |= put(in, "kv-unified", "", LOG_SETTING, file, err, errcap);
    }
    return rc ? KV_USAGE_ERROR : 0;
}

/* A row's value; llama.cpp's cells are per stream. */
static double log_value(const kv_log *lg, const log_input *row)
{
    const kv_log_values *v = &lg->values;
    if (lg->engine == KV_ENGINE_LLAMACPP && row->field == KV_LOG_CELLS)
        return v->v[KV_LOG_CELLS] * (v->present[KV_LOG_STREAMS] ? v->v[KV_LOG_STREAMS] : 1);
    return v->v[row->field];
}

int kv_fromlog_inputs(const kv_log *lg, const char *file, kv_log_inputs *in, char *err,
                      size_t errcap)
{
    const kv_log_values *v = &lg->values;
    memset(in, 0, sizeof *in);
    int rc = put(in, "engine", kv_engine_name(lg->engine), LOG_SETTING, file, err, errcap);
    input_table t = inputs_of(lg->engine);
    for (size_t i = 0; rc == 0 && i < t.n; i++) {
        const log_input *row = &t.rows[i];
        if (v->present[row->field] && !(row->unless && v->present[row->unless - 1]))
            rc = put_number(in, row, log_value(lg, row), file, err, errcap);
    }
    /* SGLang without "Load weight begin": P = A + mem usage (what the weights took) */
    if (rc == 0 && lg->engine == KV_ENGINE_SGLANG && !v->present[KV_LOG_AVAIL_BEFORE] &&
        v->present[KV_LOG_AVAIL_AFTER] && v->present[KV_LOG_WEIGHTS]) {
        static const log_input before = KV_FIGURE_GIB(KV_LOG_AVAIL_BEFORE,
                                                      "avail-mem-before-load-gib");
        rc = put_number(in, &before, v->v[KV_LOG_AVAIL_AFTER] + v->v[KV_LOG_WEIGHTS], file, err,
                        errcap);
    }
    return rc ? rc : put_texts(lg, in, file, err, errcap);
}

int kv_fromlog_read(const kv_options *o, kv_log *lg, char *err, size_t errcap)
{
    char shown[300];
    const char *label = strcmp(o->from_log, "-") == 0 ? "-" : kv_safe(shown, sizeof shown,
                                                                        o->from_log, 200);
    return kv_log_read_file(o->from_log, label, lg, err, errcap) ? KV_USAGE_ERROR : 0;
}

/* A GGUF file the log names, when it is there. */
static int gguf_named(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".gguf") == 0 && kv_gguf_probe(path);
}

int kv_fromlog_model(const kv_log *lg, const char *file, kv_model *m, char *err, size_t errcap)
{
    const char *name = lg->values.model;
    char shown[300], fshown[300];
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (gguf_named(name))
        return kv_model_load(NULL, name, m, err, errcap);
    if (name[0] && kv_model_preset_find(name))
        return kv_model_load(NULL, name, m, err, errcap);
    if (base[0] && kv_model_preset_find(base)) /* a local copy named after the model */
        return kv_model_load(NULL, base, m, err, errcap);
    if (name[0])
        kv_fail(err, errcap,
                "--from-log %s: the log names model '%s', which kvcalc cannot resolve: give "
                "--model or --config",
                kv_safe(fshown, sizeof fshown, file, 200), kv_safe(shown, sizeof shown, name, 200));
    else
        kv_fail(err, errcap, "--from-log %s: the log names no model: give --model or --config",
                kv_safe(fshown, sizeof fshown, file, 200));
    return 1;
}

/* Whether a flag contradicts a value the log states (a flag that fills a gap does not). */
static int contradicts(const kv_options *o, const kv_log *lg, const char *flag,
                       kv_log_field field, double scale)
{
    const kv_flag *f = kv_flag_find(flag, strlen(flag));
    size_t i = (size_t)(f - kv_flags);
    return o->set[i] && lg->values.present[field] &&
           fabs(o->values[i].d * scale - lg->values.v[field]) >
               1e-3 * fabs(lg->values.v[field]);
}

int kv_fromlog_what_if(const kv_options *o, const kv_log *lg, kv_log_inputs *in)
{
    const kv_log_values *v = &lg->values;
    int changed = contradicts(o, lg, "gpu-mem-gib", KV_LOG_GPU_TOTAL, KV_GIB) ||
                  contradicts(o, lg, "gpu-memory-utilization", KV_LOG_UTIL, 1) ||
                  contradicts(o, lg, "mem-fraction-static", KV_LOG_MEM_FRACTION, 1);
    if (o->gpu && v->present[KV_LOG_GPU_TOTAL]) { /* another GPU than the log's total */
        double gib = o->gpu->engine_gib > 0 ? o->gpu->engine_gib : kv_gpu_gib(o->gpu);
        changed |= fabs(gib * KV_GIB - v->v[KV_LOG_GPU_TOTAL]) > 0.02 * v->v[KV_LOG_GPU_TOTAL];
    }
    for (size_t i = 0; changed && i < kv_flags_count; i++)
        if (in->set[i] == LOG_KV_FIGURE)
            in->set[i] = 0; /* sized from the new budget; the logged terms still hold */
    return changed;
}

int kv_fromlog_prepare(const kv_options *o, kv_log *lg, kv_log_inputs *in, int *what_if,
                       char *err, size_t errcap)
{
    char shown[300];
    const kv_flag *engine = kv_flag_find("engine", 6);
    if (kv_fromlog_read(o, lg, err, errcap) != 0 ||
        kv_fromlog_inputs(lg, o->from_log, in, err, errcap) != 0)
        return KV_USAGE_ERROR;
    kv_safe(shown, sizeof shown, o->from_log, 200);
    if (o->set[engine - kv_flags] && (kv_engine)o->values[engine - kv_flags].e != lg->engine)
        return kv_fail(err, errcap, "--engine: %s is a %s log; compare it with that engine",
                       shown, kv_engine_name(lg->engine));
    *what_if = kv_fromlog_what_if(o, lg, in);
    if (*what_if && !kv_fromlog_end_to_end(lg, o))
        return kv_fail(err, errcap,
                       "--from-log %s: a what-if on the memory budget needs the GPU, which the "
                       "log does not state: give --gpu or --gpu-mem-gib",
                       shown);
    return 0;
}

int kv_fromlog_end_to_end(const kv_log *lg, const kv_options *o)
{
    const kv_flag *mem = kv_flag_find("gpu-mem-gib", 11);
    return lg->engine == KV_ENGINE_LLAMACPP || o->gpu || o->set[mem - kv_flags] ||
           lg->values.present[KV_LOG_GPU_TOTAL];
}

/* ---- the comparison ------------------------------------------------------------------- */

/* How a row's difference is explained. */
typedef enum {
    TERM_SUBTRACTED, /* a term the engine subtracts from its budget */
    TERM_GRAPHS,     /* vLLM's CUDA graphs: subtracted from 0.21 only */
    TERM_TOTAL,      /* vLLM's GPU total: enters as total x utilization */
    TERM_REQUESTED,  /* vLLM's total x utilization as logged: enters whole */
    TERM_BEFORE,     /* SGLang's P: enters as -(1 - f) x P */
    TERM_AFTER,      /* SGLang's A: enters whole */
    TERM_SETTING,    /* a setting or a figure outside the budget */
    TERM_BUDGET,     /* the KV budget itself, end to end */
    TERM_KV          /* a KV line, from the log's own KV figure */
} term_kind;

#define LOGGED_KV_TOTAL (-1) /* pseudo-field: the logged KV memory (K + V, or the total) */

typedef struct {
    const char *quantity;
    int field;       /* kv_log_field, or LOGGED_KV_TOTAL */
    int end_to_end;  /* 1: kvcalc's figure is the end-to-end run's, 0: given the KV figure */
    size_t offset;   /* in kv_result */
    int is_int;      /* int64_t member, else double */
    double scale;    /* kvcalc's member x scale = the logged unit */
    const char *unit;
    term_kind term;
} cmp_row;

#define RD(m) offsetof(kv_result, m), 0
#define RI(m) offsetof(kv_result, m), 1

static const cmp_row vllm_rows[] = {
    {"GPU total", KV_LOG_GPU_TOTAL, 1, RD(vllm.total_bytes), 1, "bytes", TERM_TOTAL},
    {"total x utilization", KV_LOG_REQUESTED, 1, RD(vllm.requested_bytes), 1, "bytes",
     TERM_REQUESTED},
    {"weights", KV_LOG_WEIGHTS, 1, RD(vllm.weights_bytes), 1, "bytes", TERM_SUBTRACTED},
    {"activation peak", KV_LOG_ACTIVATION, 1, RD(vllm.activation_bytes), 1, "bytes",
     TERM_SUBTRACTED},
    {"non-torch memory", KV_LOG_NON_TORCH, 1, RD(vllm.non_torch_bytes), 1, "bytes",
     TERM_SUBTRACTED},
    {"CUDA graphs", KV_LOG_CUDA_GRAPH, 1, RD(vllm.cuda_graph_bytes), 1, "bytes", TERM_GRAPHS},
    {"available KV cache memory", KV_LOG_AVAILABLE_KV, 1, RD(available_kv_bytes), 1, "bytes",
     TERM_BUDGET},
    {"GPU blocks", KV_LOG_BLOCKS, 0, RI(vllm.num_gpu_blocks), 1, "blocks", TERM_KV},
    {"GPU KV cache size", KV_LOG_KV_TOKENS, 0, RI(vllm.gpu_kv_cache_tokens), 1, "tokens",
     TERM_KV},
    {"maximum concurrency", KV_LOG_CONCURRENCY, 0, RD(vllm.max_concurrency), 1, "requests",
     TERM_KV},
};

static const cmp_row sglang_rows[] = {
    {"avail mem before load (P)", KV_LOG_AVAIL_BEFORE, 1, RD(sglang.avail_before_gib), KV_GIB,
     "bytes", TERM_BEFORE},
    {"avail mem after load (A)", KV_LOG_AVAIL_AFTER, 1, RD(sglang.avail_after_gib), KV_GIB,
     "bytes", TERM_AFTER},
    {"weights (mem usage)", KV_LOG_WEIGHTS, 1, RD(weights_bytes), 1, "bytes", TERM_SETTING},
    {"KV pool (K + V)", LOGGED_KV_TOTAL, 1, RD(kv_cache_bytes), 1, "bytes", TERM_BUDGET},
    {"max_total_num_tokens", KV_LOG_KV_TOKENS, 0, RI(kv_cache_tokens), 1, "tokens", TERM_KV},
    {"K size", KV_LOG_K_BYTES, 0, RD(sglang.k_bytes), 1, "bytes", TERM_KV},
    {"V size", KV_LOG_V_BYTES, 0, RD(sglang.v_bytes), 1, "bytes", TERM_KV},
    {"KV size (MLA)", KV_LOG_KV_BYTES, 0, RD(kv_cache_bytes), 1, "bytes", TERM_KV},
};

static const cmp_row llamacpp_rows[] = {
    {"n_ctx", KV_LOG_N_CTX, 0, RI(llamacpp.n_ctx), 1, "tokens", TERM_SETTING},
    {"n_seq_max", KV_LOG_N_SEQ, 0, RI(llamacpp.n_seq), 1, "sequences", TERM_SETTING},
    {"n_ctx_slot", KV_LOG_N_CTX_SLOT, 0, RI(llamacpp.slot_ctx), 1, "tokens", TERM_KV},
    {"cells", KV_LOG_CELLS, 0, RI(llamacpp.main.cells), 1, "cells", TERM_KV},
    {"layers", KV_LOG_LAYERS, 0, RI(llamacpp.main.layers), 1, "layers", TERM_KV},
    {"K", KV_LOG_K_BYTES, 0, RD(llamacpp.main.k_bytes), 1, "bytes", TERM_KV},
    {"V", KV_LOG_V_BYTES, 0, RD(llamacpp.main.v_bytes), 1, "bytes", TERM_KV},
    {"SWA cells", KV_LOG_SWA_CELLS, 0, RI(llamacpp.swa.cells), 1, "cells", TERM_KV},
    {"SWA layers", KV_LOG_SWA_LAYERS, 0, RI(llamacpp.swa.layers), 1, "layers", TERM_KV},
    {"SWA K", KV_LOG_SWA_K_BYTES, 0, RD(llamacpp.swa.k_bytes), 1, "bytes", TERM_KV},
    {"SWA V", KV_LOG_SWA_V_BYTES, 0, RD(llamacpp.swa.v_bytes), 1, "bytes", TERM_KV},
    {"KV cache (all)", LOGGED_KV_TOTAL, 1, RD(kv_cache_bytes), 1, "bytes", TERM_KV},
};

typedef struct {
    const cmp_row *rows;
    size_t n;
} cmp_table;

/* Each engine's rows of the comparison table. */
static const cmp_table engine_rows[KV_ENGINE_COUNT] = {
    [KV_ENGINE_VLLM] = TABLE(vllm_rows),
    [KV_ENGINE_SGLANG] = TABLE(sglang_rows),
    [KV_ENGINE_LLAMACPP] = TABLE(llamacpp_rows),
};

static cmp_table rows_of(kv_engine e)
{
    return engine_rows[(unsigned)e < KV_ENGINE_COUNT ? e : KV_ENGINE_LLAMACPP];
}

/* The KV memory the log states: vLLM's "Available KV cache memory"; SGLang's pool (K + V,
 * or the MLA total); llama.cpp's caches (main + sliding window). NaN: none. */
static double logged_kv_total(const kv_log *lg)
{
    const kv_log_values *v = &lg->values;
    const double *x = v->v;
    const unsigned char *p = v->present;
    switch (lg->engine) {
    case KV_ENGINE_VLLM:
        return p[KV_LOG_AVAILABLE_KV] ? x[KV_LOG_AVAILABLE_KV] : NAN;
    case KV_ENGINE_SGLANG:
        if (p[KV_LOG_KV_BYTES])
            return x[KV_LOG_KV_BYTES];
        return p[KV_LOG_K_BYTES] && p[KV_LOG_V_BYTES] ? x[KV_LOG_K_BYTES] + x[KV_LOG_V_BYTES]
                                                      : NAN;
    default: {
        double main = p[KV_LOG_KV_BYTES]                       ? x[KV_LOG_KV_BYTES]
                      : p[KV_LOG_K_BYTES] && p[KV_LOG_V_BYTES] ? x[KV_LOG_K_BYTES] + x[KV_LOG_V_BYTES]
                                                               : NAN;
        double swa = p[KV_LOG_SWA_K_BYTES] && p[KV_LOG_SWA_V_BYTES]
                         ? x[KV_LOG_SWA_K_BYTES] + x[KV_LOG_SWA_V_BYTES]
                         : 0;
        return main + swa;
    }
    }
}

static double member(const kv_result *r, const cmp_row *row)
{
    const char *at = (const char *)r + row->offset;
    if (row->is_int) {
        int64_t i;
        memcpy(&i, at, sizeof i);
        return (double)i;
    }
    double d;
    memcpy(&d, at, sizeof d);
    return d * row->scale;
}

/* x GiB to two decimals, "-0.00" shown as "+0.00". */
static double gib2(double bytes)
{
    double g = bytes / KV_GIB;
    return fabs(g) < 0.005 ? 0 : g;
}

/* "5.58 GiB" for bytes, the number for the rest. */
static const char *shown(char *buf, size_t cap, double x, const char *unit)
{
    if (strcmp(unit, "bytes") == 0)
        snprintf(buf, cap, "%.2f GiB", x / KV_GIB);
    else
        snprintf(buf, cap, "%.2f", x);
    return buf;
}

/* What explains the differences: the rounding of the logged KV figure, and the budget
 * terms summed so far. */
typedef struct {
    double rel_round;  /* half the last printed digit of the KV figure, over the figure */
    double unit_round; /* half the last printed digit of a logged size, in bytes */
    double f;          /* SGLang's mem_fraction_static of the end-to-end run */
    double util;       /* vLLM's utilization */
    int graphs_inside; /* vLLM 0.21+: CUDA graphs are inside the budget */
    int requested;     /* vLLM: total x utilization is logged (it, not the total, is a term) */
    int from_settings; /* llama.cpp: no KV figure, the cache follows from the settings */
    int what_if;       /* the KV figure was dropped (kv_fromlog_what_if) */
    double terms;      /* sum of the budget terms' contributions so far, bytes */
    int n_terms;
    double kv_figure;  /* the logged KV figure the KV lines were computed from, bytes */
} explaining;

/* A KV line's difference: within the rounding of the logged KV figure, or by how much. */
static void explain_kv(const kv_cmp_line *l, int figures, const explaining *x, char *buf,
                       size_t cap)
{
    double shown_round = strcmp(l->unit, "bytes") == 0 ? x->unit_round * figures
                         : strcmp(l->unit, "requests") == 0 ? 0.005
                                                           : 0;
    double tol = fabs(l->kvcalc) * x->rel_round + shown_round + fabs(l->logged) * 1e-12;
    if (x->what_if && !x->from_settings)
        snprintf(buf, cap, "what if: from the new budget with the logged terms");
    else if (x->from_settings && fabs(l->difference) <= tol)
        snprintf(buf, cap, "from the logged settings: equal");
    else if (x->from_settings)
        snprintf(buf, cap, "from the logged settings: %+.3g%%",
                 l->logged ? l->difference / l->logged * 100 : 0);
    else if (fabs(l->difference) <= tol)
        snprintf(buf, cap, "from the logged KV figure: equal within its rounding (+-%.2g%%)",
                 x->rel_round * 100);
    else if (x->kv_figure > 0 && l->kvcalc > 0) /* counts scale with the memory they fill */
        snprintf(buf, cap, "from the logged KV figure: %+.3g%% (its rounding: +-%.2g%%); the "
                 "logged line implies %.2f GiB: another rank's figure, or a setting not given",
                 l->logged ? l->difference / l->logged * 100 : 0, x->rel_round * 100,
                 x->kv_figure * l->logged / l->kvcalc / KV_GIB);
    else
        snprintf(buf, cap, "from the logged KV figure: %+.3g%% (its rounding: +-%.2g%%)",
                 l->logged ? l->difference / l->logged * 100 : 0, x->rel_round * 100);
}

/* The term column: which part of the budget explains the difference, as GiB of KV budget
 * (what the logged figure leaves minus what kvcalc's leaves). */
static void explain(const cmp_row *row, const kv_cmp_line *l, explaining *x, char *buf,
                    size_t cap)
{
    char a[40], b[40];
    double d = l->difference; /* kvcalc - logged */
    double budget;
    if (isnan(l->kvcalc)) {
        snprintf(buf, cap, "%s", row->end_to_end ? "no GPU total: give --gpu or --gpu-mem-gib"
                                                 : "not computed");
        return;
    }
    switch (row->term) {
    case TERM_SUBTRACTED:
        budget = d;
        break;
    case TERM_GRAPHS:
        if (!x->graphs_inside) {
            snprintf(buf, cap, "outside the budget before vLLM 0.21: no effect");
            return;
        }
        budget = d;
        break;
    case TERM_TOTAL:
        if (x->requested) { /* counted once: as the logged product, on the next row */
            snprintf(buf, cap, "enters as total x utilization (next row)");
            return;
        }
        budget = -d * x->util;
        break;
    case TERM_REQUESTED:
        budget = -d;
        break;
    case TERM_BEFORE: /* the pool is A - (1 - f) x P: a larger P leaves less */
        budget = d * (1 - x->f);
        break;
    case TERM_AFTER:
        budget = -d;
        break;
    case TERM_BUDGET:
        if (x->n_terms == 0)
            snprintf(buf, cap, "end to end: no budget term logged; all of it is kvcalc's "
                               "estimates");
        else
            snprintf(buf, cap, "end to end: the terms above give %+.2f GiB, the rest %+.2f GiB "
                               "(terms not logged, rounding)",
                     gib2(x->terms), gib2(-d - x->terms));
        return;
    case TERM_KV:
        /* a total summed from the log's figures carries the rounding of each (K, V, and
         * the sliding-window cache's) */
        explain_kv(l, row->field == LOGGED_KV_TOTAL ? 4 : 1, x, buf, cap);
        return;
    case TERM_SETTING:
    default:
        snprintf(buf, cap, "%s", fabs(d) < 1e-9 ? "as logged" : "outside the KV budget");
        return;
    }
    x->terms += budget;
    x->n_terms++;
    snprintf(buf, cap, "%s logged %s, %s %s: %+.2f GiB of the KV budget", row->quantity,
             shown(a, sizeof a, l->logged, l->unit), row->end_to_end ? "estimated" : "kvcalc",
             shown(b, sizeof b, l->kvcalc, l->unit), gib2(budget));
}

/* The rounding of the KV figure the given run started from. */
static void rounding(const kv_log *lg, const kv_result *a, explaining *x)
{
    const kv_log_values *v = &lg->values;
    x->unit_round = 0.005 * (lg->engine == KV_ENGINE_LLAMACPP ? KV_MIB : KV_GIB);
    x->from_settings = lg->engine == KV_ENGINE_LLAMACPP;
    x->rel_round = 0;
    if (lg->engine == KV_ENGINE_VLLM && v->present[KV_LOG_AVAILABLE_KV] &&
        v->v[KV_LOG_AVAILABLE_KV] > 0)
        x->rel_round = 0.005 * KV_GIB / v->v[KV_LOG_AVAILABLE_KV];
    /* SGLang: A and P are printed to 0.01 GB; the pool is A - (1 - f) x P */
    if (lg->engine == KV_ENGINE_SGLANG && a->available_kv_bytes > 0)
        x->rel_round = 0.005 * KV_GIB * (2 - a->sglang.mem_fraction_static) /
                       a->available_kv_bytes;
}

static void copy_text(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src);
}

void kv_fromlog_compare(const kv_log *lg, int what_if, const kv_spec *sa, const kv_result *a,
                        const kv_spec *sb, const kv_result *b, kv_comparison *out)
{
    const kv_log_values *v = &lg->values;
    memset(out, 0, sizeof *out);
    out->engine = lg->engine;
    out->values = &lg->values;
    out->what_if = what_if;
    copy_text(out->engine_version, sizeof out->engine_version, v->version);
    if (!v->version[0] && lg->engine == KV_ENGINE_LLAMACPP && v->present[KV_LOG_BUILD])
        snprintf(out->engine_version, sizeof out->engine_version, "b%.0f", v->v[KV_LOG_BUILD]);
    copy_text(out->era, sizeof out->era, v->era);
    if (!v->era[0] && lg->engine == KV_ENGINE_SGLANG && v->present[KV_LOG_K_BYTES])
        copy_text(out->era, sizeof out->era, "K size: 0.4.1.post6-0.4.3.post2");
    copy_text(out->model, sizeof out->model, v->model);
    out->startups = v->startups;
    out->log_lines = lg->lines;
    out->log_lines_skipped = lg->overlong + lg->unterminated;
    out->logged_available_kv_bytes = logged_kv_total(lg);
    int tokens = lg->engine == KV_ENGINE_LLAMACPP ? KV_LOG_N_CTX : KV_LOG_KV_TOKENS;
    out->logged_kv_cache_tokens = v->present[tokens] ? v->v[tokens] : NAN;
    out->logged_weights_bytes = v->present[KV_LOG_WEIGHTS] ? v->v[KV_LOG_WEIGHTS] : NAN;
    out->logged_gpu_mem_bytes = v->present[KV_LOG_GPU_TOTAL] ? v->v[KV_LOG_GPU_TOTAL] : NAN;
    out->kv_cache_tokens = a->kv_cache_tokens > 0 ? (double)a->kv_cache_tokens : NAN;
    /* the quantity the log states as its KV memory, end to end */
    out->available_kv_bytes = !b                               ? NAN
                              : lg->engine == KV_ENGINE_VLLM ? b->available_kv_bytes
                                                             : b->kv_cache_bytes;
    out->kv_budget_error_pct =
        (out->available_kv_bytes - out->logged_available_kv_bytes) /
        out->logged_available_kv_bytes * 100; /* NaN when either is */

    explaining x = {0};
    rounding(lg, a, &x);
    x.kv_figure = out->logged_available_kv_bytes;
    x.what_if = what_if;
    const kv_spec *s = sb ? sb : sa;
    x.f = b ? b->sglang.mem_fraction_static : 0;
    x.util = b ? b->vllm.util : a ? a->vllm.util : 0.9;
    x.graphs_inside = s->vllm.version >= 2100; /* 0.21: CUDA graphs inside the budget */
    x.requested = v->present[KV_LOG_REQUESTED];
    cmp_table t = rows_of(lg->engine);
    for (size_t i = 0; i < t.n && out->n_lines < KV_CMP_MAX_LINES; i++) {
        const cmp_row *row = &t.rows[i];
        double logged = row->field == LOGGED_KV_TOTAL ? out->logged_available_kv_bytes
                        : v->present[row->field]      ? v->v[row->field]
                                                      : NAN;
        if (isnan(logged))
            continue; /* the log does not state it */
        const kv_result *r = row->end_to_end ? b : a;
        kv_cmp_line *l = &out->lines[out->n_lines++];
        l->quantity = row->quantity;
        l->unit = row->unit;
        l->logged = logged;
        l->kvcalc = r ? member(r, row) : NAN;
        l->difference = l->kvcalc - l->logged;
        explain(row, l, &x, l->term, sizeof l->term);
    }
}
