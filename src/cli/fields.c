/*
 * fields.c - the input and output tables (see fields.h for why they are tables).
 */
#include "fields.h"

#include "format.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define SPEC_AT(m) offsetof(kv_spec, m)

static const enum_choice engines[] = {{"ideal", KV_ENGINE_IDEAL}, {"vllm", KV_ENGINE_VLLM}, {NULL, 0}};
/* vLLM's --kv-cache-dtype values; auto = the model's dtype */
static const enum_choice kv_cache_dtypes[] = {
    {"auto", KV_DTYPE_COUNT}, {"fp8", KV_DTYPE_FP8},         {"fp8_e4m3", KV_DTYPE_FP8},
    {"fp8_e5m2", KV_DTYPE_FP8}, {"bfloat16", KV_DTYPE_BF16}, {"float16", KV_DTYPE_FP16},
    {NULL, 0}};
static const enum_choice mamba_modes[] = {{"none", 0}, {"align", 1}, {NULL, 0}};

#define INT_IN(fl, al, k, m, lo, err, mt, h)                                                 \
    {.flag = fl, .alias = al, .key = k, .kind = IN_INT, .offset = SPEC_AT(m), .min = lo,   \
     .error = err, .meta = mt, .help = h}
#define NUM_IN(fl, k, m, lo, excl, err, mt, h)                                              \
    {.flag = fl, .key = k, .kind = IN_NUM, .offset = SPEC_AT(m), .min = lo,                \
     .min_exclusive = excl, .error = err, .meta = mt, .help = h}
#define VLLM_GIB(fl, k, m, h)                                                               \
    {.flag = fl, .key = k, .kind = IN_NUM, .offset = SPEC_AT(vllm.m), .min = 0, .max = 1e12, \
     .optional = 1, .group = GROUP_VLLM, .error = KV_ERR_VLLM, .meta = "GIB", .help = h}

const input_field kv_inputs[] = {
    INT_IN("layers", NULL, "layers", layers, 1, KV_ERR_LAYERS, "N",
           "transformer layers (config.json: num_hidden_layers)"),
    INT_IN("kv-heads", NULL, "kv_heads", kv_heads, 1, KV_ERR_KV_HEADS, "N",
           "KV heads (num_key_value_heads); fewer than attention heads = GQA"),
    INT_IN("head-dim", NULL, "head_dim", head_dim, 1, KV_ERR_HEAD_DIM, "N",
           "elements per head (head_dim, or hidden_size / num_attention_heads)"),
    {.flag = "dtype", .key = "dtype", .kind = IN_DTYPE, .offset = SPEC_AT(dtype),
     .error = KV_ERR_DTYPE, .meta = "DTYPE", .help = "KV cache element type"},
    NUM_IN("params-b", "params_b", params_b, 0, 0, KV_ERR_PARAMS_B, "B",
           "model size in billions of parameters (for the weights)"),
    {.flag = "weight-dtype", .key = "weight_dtype", .kind = IN_DTYPE,
     .offset = SPEC_AT(weight_dtype), .error = KV_ERR_WEIGHT_DTYPE, .meta = "DTYPE",
     .help = "element type the weights are loaded in"},
    NUM_IN("gpu-mem-gib", "gpu_mem_gib", gpu_mem_gib, 0, 1, KV_ERR_GPU_MEM, "GIB",
           "GPU memory in GiB (2^30 bytes)"),
    NUM_IN("overhead-gib", "overhead_gib", overhead_gib, 0, 0, KV_ERR_OVERHEAD, "GIB",
           "reserve for activations / CUDA context, in GiB"),
    INT_IN("context", "max-model-len", "context", context, 1, KV_ERR_CONTEXT, "N",
           "tokens per request (prompt + generated); alias --max-model-len"),
    INT_IN("prefix-tokens", NULL, "prefix_tokens", prefix_tokens, 0, KV_ERR_PREFIX_TOKENS, "N",
           "length of a prompt prefix shared by requests"),
    INT_IN("prefix-requests", NULL, "prefix_requests", prefix_requests, 1,
           KV_ERR_PREFIX_REQUESTS, "N", "how many requests share that prefix"),
    INT_IN("tensor-parallel-size", "tp", "tensor_parallel_size", tp, 1, KV_ERR_TP, "N",
           "GPUs one replica is split over; figures become per GPU; alias --tp"),
    {.flag = "engine", .key = "engine", .kind = IN_ENUM, .offset = SPEC_AT(engine),
     .choices = engines, .error = KV_ERR_VLLM, .meta = "NAME",
     .help = "also predict a serving engine's allocation: ideal or vllm"},
    {.flag = "gpu-memory-utilization", .key = "gpu_memory_utilization", .kind = IN_NUM,
     .offset = SPEC_AT(vllm.util), .min = 0, .min_exclusive = 1, .max = 1,
     .group = GROUP_VLLM, .error = KV_ERR_VLLM, .meta = "U",
     .help = "fraction of the GPU vLLM may use"},
    {.flag = "block-size", .key = "block_size", .kind = IN_INT,
     .offset = SPEC_AT(vllm.block_size), .min = 1, .max = 1048576, .optional = 1,
     .group = GROUP_VLLM, .error = KV_ERR_VLLM, .meta = "N",
     .help = "tokens per KV block [auto: 16, 64 for MLA]"},
    {.flag = "kv-cache-dtype", .key = "kv_cache_dtype", .kind = IN_ENUM,
     .offset = SPEC_AT(vllm.kv_cache_dtype), .choices = kv_cache_dtypes, .group = GROUP_VLLM,
     .error = KV_ERR_VLLM, .meta = "DTYPE", .help = "KV cache storage; auto = the model dtype"},
    {.flag = "max-num-batched-tokens", .key = "max_num_batched_tokens", .kind = IN_INT,
     .offset = SPEC_AT(vllm.max_num_batched_tokens), .min = 1, .max = 1099511627776.0,
     .group = GROUP_VLLM, .error = KV_ERR_VLLM, .meta = "N",
     .help = "scheduler token budget [auto: 8192 on >= 70 GiB non-A100 GPUs, else 2048]"},
    VLLM_GIB("weights-gib", "weights_gib", weights_gib,
             "weights per GPU (\"Model loading took X GiB\") [auto: estimate]"),
    VLLM_GIB("activation-gib", "activation_gib", activation_gib,
             "activation peak per GPU [auto: 0.25 + 0.1 per 1,024 batched tokens]"),
    VLLM_GIB("non-torch-gib", "non_torch_gib", non_torch_gib,
             "non-torch memory per GPU [auto: 0.1, 0.4 with TP]"),
    VLLM_GIB("cuda-graph-gib", "cuda_graph_gib", cuda_graph_gib,
             "CUDA graphs inside the budget [auto: 0 before 0.21, 0.5 from 0.21]"),
    VLLM_GIB("kv-cache-memory-gib", "kv_cache_memory_gib", kv_cache_memory_gib,
             "use this \"Available KV cache memory\" per GPU (from a log)"),
    {.flag = "num-gpu-blocks-override", .key = "num_gpu_blocks_override", .kind = IN_INT,
     .offset = SPEC_AT(vllm.num_gpu_blocks_override), .min = 1, .optional = 1,
     .group = GROUP_VLLM, .error = KV_ERR_VLLM, .meta = "N",
     .help = "use this block count (as vLLM's flag does)"},
    {.flag = "vllm-version", .key = "vllm_version", .kind = IN_VERSION,
     .offset = SPEC_AT(vllm.version_minor), .group = GROUP_VLLM, .error = KV_ERR_VLLM,
     .meta = "0.N", .help = "the vLLM release whose rules apply [0.11]"},
    {.flag = "disable-hybrid-kv-cache-manager", .key = "hybrid_kv_cache_manager",
     .kind = IN_FLAG, .offset = SPEC_AT(vllm.hybrid_manager), .flag_value = 0,
     .group = GROUP_VLLM, .error = KV_ERR_VLLM,
     .help = "treat sliding and chunked layers as full attention"},
    {.flag = "mamba-cache-mode", .key = "mamba_cache_mode", .kind = IN_ENUM,
     .offset = SPEC_AT(vllm.mamba_align), .choices = mamba_modes, .group = GROUP_VLLM,
     .error = KV_ERR_VLLM, .meta = "MODE", .help = "none (1 block per request) or align (2)"},
};
const size_t kv_inputs_count = sizeof kv_inputs / sizeof kv_inputs[0];
_Static_assert(sizeof kv_inputs / sizeof kv_inputs[0] <= KV_MAX_INPUTS, "raise KV_MAX_INPUTS");

static int name_is(const char *name, const char *flag, size_t len)
{
    return name && strlen(name) == len && memcmp(name, flag, len) == 0;
}

const input_field *kv_input_by_flag(const char *flag, size_t len)
{
    for (size_t i = 0; i < kv_inputs_count; i++)
        if (name_is(kv_inputs[i].flag, flag, len) || name_is(kv_inputs[i].alias, flag, len))
            return &kv_inputs[i];
    return NULL;
}

const input_field *kv_input_by_status(kv_status st)
{
    for (size_t i = 0; i < kv_inputs_count; i++)
        if (kv_inputs[i].error == st)
            return &kv_inputs[i];
    return NULL;
}

int64_t *input_int(kv_spec *s, const input_field *f)
{
    return (int64_t *)(void *)((char *)s + f->offset);
}

double *input_num(kv_spec *s, const input_field *f)
{
    return (double *)(void *)((char *)s + f->offset);
}

kv_dtype *input_dtype(kv_spec *s, const input_field *f)
{
    return (kv_dtype *)(void *)((char *)s + f->offset);
}

int *input_enum(kv_spec *s, const input_field *f)
{
    return (int *)(void *)((char *)s + f->offset);
}

size_t input_size(const input_field *f)
{
    switch (f->kind) {
    case IN_INT:
        return sizeof(int64_t);
    case IN_NUM:
        return sizeof(double);
    case IN_DTYPE:
        return sizeof(kv_dtype);
    default:
        return sizeof(int);
    }
}

static const char *choice_name(const enum_choice *c, int value)
{
    for (; c->name; c++)
        if (c->value == value)
            return c->name;
    return "?";
}

int input_is_string(const kv_spec *s, const input_field *f)
{
    (void)s;
    return f->kind == IN_DTYPE || f->kind == IN_ENUM || f->kind == IN_VERSION;
}

char *input_text(char *buf, size_t cap, const kv_spec *s, const input_field *f)
{
    const char *at = (const char *)s + f->offset;
    int64_t i;
    double d;
    kv_dtype t;
    int e;
    switch (f->kind) {
    case IN_INT:
        memcpy(&i, at, sizeof i);
        if (f->optional && (double)i < f->min)
            break;
        return fmt_int(buf, cap, i, 0);
    case IN_NUM:
        memcpy(&d, at, sizeof d);
        if (f->optional && d < f->min)
            break;
        return fmt_json_number(buf, cap, d);
    case IN_DTYPE:
        memcpy(&t, at, sizeof t);
        snprintf(buf, cap, "%s", kv_dtype_get(t)->name);
        return buf;
    case IN_ENUM:
        memcpy(&e, at, sizeof e);
        snprintf(buf, cap, "%s", choice_name(f->choices, e));
        return buf;
    case IN_FLAG:
        memcpy(&e, at, sizeof e);
        snprintf(buf, cap, "%s", e ? "true" : "false");
        return buf;
    case IN_VERSION:
        memcpy(&e, at, sizeof e);
        snprintf(buf, cap, "0.%d", e);
        return buf;
    }
    snprintf(buf, cap, "null");
    return buf;
}

/* ---- outputs -------------------------------------------------------------------------- */

static output_value v_int(int64_t i)
{
    output_value v = {OUT_INT, i, 0, 0, NULL, 0};
    return v;
}
/* an integer where 0 means "unknown": JSON null */
static output_value v_int_or_null(int64_t i)
{
    output_value v = {OUT_INT, i, 0, 0, NULL, i == 0};
    return v;
}
static output_value v_num(double d)
{
    output_value v = {OUT_NUM, 0, d, 0, NULL, 0};
    return v;
}
static output_value v_bool(int b)
{
    output_value v = {OUT_BOOL, 0, 0, b, NULL, 0};
    return v;
}
/* a label string; NULL is JSON null */
static output_value v_str(const char *s)
{
    output_value v = {OUT_STR, 0, 0, 0, s, s == NULL};
    return v;
}

/* Getters: one line each, named for the key. A getter's value is JSON null when `unset`
 * holds (a figure of a section that was not asked for). The unused parameters are the price
 * of one signature for the whole table. */
#define GETTER_IF(name, unset, expr)                                                       \
    static output_value get_##name(const kv_spec *s, const kv_result *r)                   \
    {                                                                                      \
        (void)s;                                                                           \
        (void)r;                                                                           \
        output_value v = expr;                                                             \
        v.is_null = v.is_null || (unset);                                                  \
        return v;                                                                          \
    }
#define GETTER(name, expr) GETTER_IF(name, 0, expr)
#define VGETTER(name, expr) GETTER_IF(name, s->engine != KV_ENGINE_VLLM, expr)
#define PGETTER(name, expr) GETTER_IF(name, !r->has_plan, expr)
GETTER(schema_version, v_int(KV_SCHEMA_VERSION))
GETTER(version, v_str(KVCALC_VERSION))
GETTER(kv_bytes_per_token, v_num(r->kv_bytes_per_token))
GETTER(kv_bytes_per_request, v_num(r->kv_bytes_per_request))
GETTER(context, v_int(s->context))
GETTER(max_concurrency, v_num(r->max_concurrency))
GETTER(gpu_mem_bytes, v_num(r->gpu_mem_bytes))
GETTER(weights_bytes, v_num(r->weights_bytes))
GETTER(overhead_bytes, v_num(r->overhead_bytes))
GETTER(free_kv_bytes, v_num(r->free_kv_bytes))
GETTER(fits, v_bool(r->fits))
GETTER(prefix_saved_bytes, v_num(r->prefix_saved_bytes))
GETTER(prefix_extra_concurrency, v_num(r->prefix_extra_concurrency))
GETTER(kv_dtype_bytes, v_num(kv_dtype_get(s->dtype)->bytes))
GETTER(weight_dtype_bytes, v_num(kv_dtype_get(s->weight_dtype)->bytes))
GETTER(model, v_str(s->model_name))
GETTER(source, v_str(s->model_source))
GETTER(gpu, v_str(s->gpu_name))
GETTER(params, v_num(r->params))
GETTER(params_estimated, v_bool(s->params_estimated))
GETTER(max_position_embeddings, v_int_or_null(s->max_context))
GETTER(tensor_parallel_size, v_int(s->tp))
GETTER(kv_heads_per_gpu, v_int(r->kv_heads_per_gpu))
GETTER(kv_bytes_per_request_group, v_num(r->kv_bytes_per_request_group))
GETTER(weights_bytes_group, v_num(r->weights_bytes_group))
GETTER(engine, v_str(s->engine == KV_ENGINE_VLLM ? "vllm" : "ideal"))

VGETTER(available_kv_bytes, v_num(r->vllm.available_bytes))
VGETTER(num_gpu_blocks, v_int(r->vllm.num_gpu_blocks))
VGETTER(block_size, v_int(r->vllm.block_size))
VGETTER(gpu_kv_cache_tokens, v_int(r->vllm.gpu_kv_cache_tokens))
VGETTER(vllm_max_concurrency, v_num(r->vllm.max_concurrency))
VGETTER(vllm_fits, v_bool(r->vllm.fits))
VGETTER(vllm_max_model_len_fit, v_int(r->vllm.max_model_len_fit))
VGETTER(vllm_needed_bytes, v_num(r->vllm.needed_bytes))
VGETTER(vllm_total_bytes, v_num(r->vllm.total_bytes))
VGETTER(vllm_requested_bytes, v_num(r->vllm.requested_bytes))
VGETTER(vllm_weights_bytes, v_num(r->vllm.weights_bytes))
VGETTER(vllm_activation_bytes, v_num(r->vllm.activation_bytes))
VGETTER(vllm_non_torch_bytes, v_num(r->vllm.non_torch_bytes))
VGETTER(vllm_cuda_graph_bytes, v_num(r->vllm.cuda_graph_bytes))
VGETTER(vllm_kv_elem_bytes, v_num(r->vllm.elem_bytes))
VGETTER(vllm_page_bytes, v_num(r->vllm.page_bytes))
VGETTER(vllm_layers_per_group, v_int(r->vllm.group_size))
VGETTER(vllm_kv_cache_groups, v_int(r->vllm.num_groups))
VGETTER(vllm_padding_layers, v_int(r->vllm.padding_layers))
VGETTER(vllm_blocks_per_request, v_int(r->vllm.blocks_per_request))
VGETTER(vllm_max_num_batched_tokens, v_int(r->vllm.max_num_batched_tokens))
VGETTER(vllm_prefix_shared_blocks, v_int(r->vllm.prefix_shared_blocks))
VGETTER(vllm_prefix_shared_tokens, v_int(r->vllm.prefix_shared_tokens))
VGETTER(vllm_prefix_saved_bytes, v_num(r->vllm.prefix_saved_bytes))
VGETTER(vllm_prefix_extra_concurrency, v_num(r->vllm.prefix_extra_concurrency))

PGETTER(target_concurrency, v_int(r->plan.target))
PGETTER(kv_bytes_needed, v_num(r->plan.kv_bytes_needed))
PGETTER(total_bytes_needed, v_num(r->plan.total_bytes_needed))
PGETTER(fits_one_gpu, v_bool(r->plan.fits_one_gpu))
PGETTER(replicas, v_int_or_null(r->plan.replicas))
PGETTER(gpus_needed, v_int_or_null(r->plan.gpus_needed))
PGETTER(smallest_gpu, v_str(r->plan.smallest_gpu_name))
#undef PGETTER
#undef VGETTER
#undef GETTER
#undef GETTER_IF

#define OUT(key, unit) {#key, unit, get_##key}
const output_field kv_outputs[] = {
    OUT(schema_version, "integer"),
    OUT(version, "string"),
    OUT(kv_bytes_per_token, "bytes"),
    OUT(kv_bytes_per_request, "bytes"),
    OUT(context, "tokens"),
    OUT(max_concurrency, "requests"),
    OUT(gpu_mem_bytes, "bytes"),
    OUT(weights_bytes, "bytes"),
    OUT(overhead_bytes, "bytes"),
    OUT(free_kv_bytes, "bytes"),
    OUT(fits, "boolean"),
    OUT(prefix_saved_bytes, "bytes"),
    OUT(prefix_extra_concurrency, "requests"),
    OUT(kv_dtype_bytes, "bytes"),
    OUT(weight_dtype_bytes, "bytes"),
    OUT(model, "string"),
    OUT(source, "string"),
    OUT(gpu, "string"),
    OUT(params, "parameters"),
    OUT(params_estimated, "boolean"),
    OUT(max_position_embeddings, "tokens"),
    OUT(tensor_parallel_size, "GPUs"),
    OUT(kv_heads_per_gpu, "heads"),
    OUT(kv_bytes_per_request_group, "bytes"),
    OUT(weights_bytes_group, "bytes"),
    OUT(engine, "string"),
    OUT(available_kv_bytes, "bytes"),
    OUT(num_gpu_blocks, "blocks"),
    OUT(block_size, "tokens"),
    OUT(gpu_kv_cache_tokens, "tokens"),
    OUT(vllm_max_concurrency, "requests"),
    OUT(vllm_fits, "boolean"),
    OUT(vllm_max_model_len_fit, "tokens"),
    OUT(vllm_needed_bytes, "bytes"),
    OUT(vllm_total_bytes, "bytes"),
    OUT(vllm_requested_bytes, "bytes"),
    OUT(vllm_weights_bytes, "bytes"),
    OUT(vllm_activation_bytes, "bytes"),
    OUT(vllm_non_torch_bytes, "bytes"),
    OUT(vllm_cuda_graph_bytes, "bytes"),
    OUT(vllm_kv_elem_bytes, "bytes"),
    OUT(vllm_page_bytes, "bytes"),
    OUT(vllm_layers_per_group, "layers"),
    OUT(vllm_kv_cache_groups, "groups"),
    OUT(vllm_padding_layers, "layers"),
    OUT(vllm_blocks_per_request, "blocks"),
    OUT(vllm_max_num_batched_tokens, "tokens"),
    OUT(vllm_prefix_shared_blocks, "blocks"),
    OUT(vllm_prefix_shared_tokens, "tokens"),
    OUT(vllm_prefix_saved_bytes, "bytes"),
    OUT(vllm_prefix_extra_concurrency, "requests"),
    OUT(target_concurrency, "requests"),
    OUT(kv_bytes_needed, "bytes"),
    OUT(total_bytes_needed, "bytes"),
    OUT(fits_one_gpu, "boolean"),
    OUT(replicas, "replicas"),
    OUT(gpus_needed, "GPUs"),
    OUT(smallest_gpu, "string"),
};
#undef OUT
const size_t kv_outputs_count = sizeof kv_outputs / sizeof kv_outputs[0];

const output_field *kv_output_by_key(const char *key)
{
    for (size_t i = 0; i < kv_outputs_count; i++)
        if (strcmp(kv_outputs[i].key, key) == 0)
            return &kv_outputs[i];
    return NULL;
}

int output_is_numeric(const output_field *f)
{
    return strcmp(f->unit, "string") != 0;
}

char *output_text(char *buf, size_t cap, output_value v)
{
    if (v.is_null) {
        snprintf(buf, cap, "null");
        return buf;
    }
    switch (v.kind) {
    case OUT_INT:
        return fmt_int(buf, cap, v.i, 0);
    case OUT_NUM:
        return fmt_json_number(buf, cap, v.d);
    case OUT_BOOL:
        return v.b ? strcpy(buf, "true") : strcpy(buf, "false"); /* cap >= 6 everywhere */
    case OUT_STR:
        snprintf(buf, cap, "%s", v.s);
        return buf;
    }
    return buf;
}
