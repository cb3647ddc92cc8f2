/*
 * fields.c - the input and output tables (see fields.h for why they are tables).
 */
#include "fields.h"

#include "format.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define SPEC_AT(m) offsetof(kv_spec, m)

const input_field kv_inputs[] = {
    {"layers", "layers", IN_INT, SPEC_AT(layers), 1, 0, KV_ERR_LAYERS, "N",
     "transformer layers (config.json: num_hidden_layers)"},
    {"kv-heads", "kv_heads", IN_INT, SPEC_AT(kv_heads), 1, 0, KV_ERR_KV_HEADS, "N",
     "KV heads (num_key_value_heads); fewer than attention heads = GQA"},
    {"head-dim", "head_dim", IN_INT, SPEC_AT(head_dim), 1, 0, KV_ERR_HEAD_DIM, "N",
     "elements per head (head_dim, or hidden_size / num_attention_heads)"},
    {"dtype", "dtype", IN_DTYPE, SPEC_AT(dtype), 0, 0, KV_ERR_DTYPE, "DTYPE",
     "KV cache element type"},
    {"params-b", "params_b", IN_NUM, SPEC_AT(params_b), 0, 0, KV_ERR_PARAMS_B, "B",
     "model size in billions of parameters (for the weights)"},
    {"weight-dtype", "weight_dtype", IN_DTYPE, SPEC_AT(weight_dtype), 0, 0,
     KV_ERR_WEIGHT_DTYPE, "DTYPE", "element type the weights are loaded in"},
    {"gpu-mem-gib", "gpu_mem_gib", IN_NUM, SPEC_AT(gpu_mem_gib), 0, 1, KV_ERR_GPU_MEM, "GIB",
     "GPU memory in GiB (2^30 bytes)"},
    {"overhead-gib", "overhead_gib", IN_NUM, SPEC_AT(overhead_gib), 0, 0, KV_ERR_OVERHEAD,
     "GIB", "reserve for activations / CUDA context, in GiB"},
    {"context", "context", IN_INT, SPEC_AT(context), 1, 0, KV_ERR_CONTEXT, "N",
     "tokens per request (prompt + generated)"},
    {"prefix-tokens", "prefix_tokens", IN_INT, SPEC_AT(prefix_tokens), 0, 0,
     KV_ERR_PREFIX_TOKENS, "N", "length of a prompt prefix shared by requests"},
    {"prefix-requests", "prefix_requests", IN_INT, SPEC_AT(prefix_requests), 1, 0,
     KV_ERR_PREFIX_REQUESTS, "N", "how many requests share that prefix"},
};
const size_t kv_inputs_count = sizeof kv_inputs / sizeof kv_inputs[0];

const input_field *kv_input_by_flag(const char *flag, size_t len)
{
    for (size_t i = 0; i < kv_inputs_count; i++)
        if (strlen(kv_inputs[i].flag) == len && memcmp(kv_inputs[i].flag, flag, len) == 0)
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

char *input_text(char *buf, size_t cap, const kv_spec *s, const input_field *f)
{
    const char *at = (const char *)s + f->offset;
    int64_t i;
    double d;
    kv_dtype t;
    switch (f->kind) {
    case IN_INT:
        memcpy(&i, at, sizeof i);
        return fmt_int(buf, cap, i, 0);
    case IN_NUM:
        memcpy(&d, at, sizeof d);
        return fmt_json_number(buf, cap, d);
    case IN_DTYPE:
        memcpy(&t, at, sizeof t);
        snprintf(buf, cap, "%s", kv_dtype_get(t)->name);
        return buf;
    }
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

/* Getters: one line each, named for the key. The unused parameter of each is the price of
 * one signature for the whole table. */
#define GETTER(name, expr)                                                                 \
    static output_value get_##name(const kv_spec *s, const kv_result *r)                   \
    {                                                                                      \
        (void)s;                                                                           \
        (void)r;                                                                           \
        return expr;                                                                       \
    }
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
#undef GETTER

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
        snprintf(buf, cap, "%s", v.b ? "true" : "false");
        return buf;
    case OUT_STR:
        snprintf(buf, cap, "%s", v.s);
        return buf;
    }
    return buf;
}
