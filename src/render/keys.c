/*
 * keys.c - the output keys table (see keys.h for why it is one table).
 *
 * A row says where its value lives instead of holding code to fetch it: renderers read
 * values, they do not compute them.
 */
#include "keys.h"

#include "format.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define R(name, unit, type) {#name, unit, KEY_RESULT, KV_ENGINE_COUNT, type, offsetof(kv_result, name)}
#define RS(name, member, unit, type) {#name, unit, KEY_RESULT, KV_ENGINE_COUNT, type, offsetof(kv_result, member)}
#define S(name, member, unit, type) {#name, unit, KEY_SPEC, KV_ENGINE_COUNT, type, offsetof(kv_spec, member)}
#define V(name, member, unit, type) {#name, unit, KEY_ENGINE, KV_ENGINE_VLLM, type, offsetof(kv_vllm_result, member)}
#define G(name, member, unit, type) {#name, unit, KEY_ENGINE, KV_ENGINE_SGLANG, type, offsetof(kv_sglang_result, member)}
#define TR(name, member, unit, type) {#name, unit, KEY_ENGINE, KV_ENGINE_TRTLLM, type, offsetof(kv_trtllm_result, member)}
#define LC(name, member, unit, type) {#name, unit, KEY_ENGINE, KV_ENGINE_LLAMACPP, type, offsetof(kv_llamacpp_result, member)}
#define L(name, member, unit, type) {#name, unit, KEY_LAYOUTS, KV_ENGINE_COUNT, type, offsetof(kv_layouts, member)}
#define P(name, member, unit, type) {#name, unit, KEY_PLAN, KV_ENGINE_COUNT, type, offsetof(kv_plan, member)}

const kv_key kv_keys[] = {
    {"schema_version", "integer", KEY_CONST, KV_ENGINE_COUNT, KT_SCHEMA, 0},
    {"version", "string", KEY_CONST, KV_ENGINE_COUNT, KT_VERSION, 0},
    S(engine, engine, "string", KT_ENGINE_NAME),
    R(kv_bytes_per_token, "bytes", KT_NUM),
    R(kv_bytes_per_request, "bytes", KT_NUM),
    S(context, context, "tokens", KT_INT),
    R(max_concurrency, "requests", KT_NUM),
    R(fits, "boolean", KT_BOOL),
    R(engine_version, "string", KT_TEXT),
    R(available_kv_bytes, "bytes", KT_NUM),
    R(kv_cache_bytes, "bytes", KT_NUM),
    R(kv_cache_tokens, "tokens", KT_INT_OR_NULL),
    R(longest_context_fit, "tokens", KT_INT),
    R(ideal_max_concurrency, "requests", KT_NUM),
    R(ideal_fits, "boolean", KT_BOOL),
    R(gpu_mem_bytes, "bytes", KT_NUM),
    R(weights_bytes, "bytes", KT_NUM),
    R(overhead_bytes, "bytes", KT_NUM),
    R(free_kv_bytes, "bytes", KT_NUM),
    R(prefix_saved_bytes, "bytes", KT_NUM),
    R(prefix_extra_concurrency, "requests", KT_NUM),
    S(kv_dtype_bytes, dtype, "bytes", KT_DTYPE_BYTES),
    S(weight_dtype_bytes, weight_dtype, "bytes", KT_DTYPE_BYTES),
    S(model, model_name, "string", KT_STR),
    S(source, model_source, "string", KT_STR),
    S(weights_source, weights_source, "string", KT_STR),
    S(checkpoint_tower_bytes, checkpoint_tower_bytes, "bytes", KT_NUM),
    S(checkpoint_mtp_bytes, checkpoint_mtp_bytes, "bytes", KT_NUM),
    S(gpu, gpu_name, "string", KT_STR),
    R(params, "parameters", KT_NUM),
    S(params_estimated, params_estimated, "boolean", KT_BOOL),
    S(max_position_embeddings, max_context, "tokens", KT_INT_OR_NULL),
    S(tensor_parallel_size, tp, "GPUs", KT_INT),
    S(pipeline_parallel_size, pp, "stages", KT_INT),
    S(data_parallel_size, dp, "replicas", KT_INT),
    R(pp_stage, "stage", KT_INT),
    R(pp_stage_layers, "layers", KT_INT),
    R(deployment_max_concurrency, "requests", KT_NUM),
    R(kv_heads_per_gpu, "heads", KT_INT),
    R(kv_bytes_per_request_group, "bytes", KT_NUM),
    R(weights_bytes_group, "bytes", KT_NUM),
    V(num_gpu_blocks, num_gpu_blocks, "blocks", KT_INT),
    V(block_size, block_size, "tokens", KT_INT),
    V(gpu_kv_cache_tokens, gpu_kv_cache_tokens, "tokens", KT_INT),
    V(vllm_max_concurrency, max_concurrency, "requests", KT_NUM),
    V(vllm_fits, fits, "boolean", KT_BOOL),
    V(vllm_max_model_len_fit, max_model_len_fit, "tokens", KT_INT),
    V(vllm_needed_bytes, needed_bytes, "bytes", KT_NUM),
    V(vllm_total_bytes, total_bytes, "bytes", KT_NUM),
    V(vllm_gpu_memory_utilization, util, "fraction", KT_NUM),
    V(vllm_requested_bytes, requested_bytes, "bytes", KT_NUM),
    V(vllm_weights_bytes, weights_bytes, "bytes", KT_NUM),
    V(vllm_activation_bytes, activation_bytes, "bytes", KT_NUM),
    V(vllm_non_torch_bytes, non_torch_bytes, "bytes", KT_NUM),
    V(vllm_cuda_graph_bytes, cuda_graph_bytes, "bytes", KT_NUM),
    V(vllm_encoder_profile_bytes, encoder_bytes, "bytes", KT_NUM),
    V(vllm_kv_elem_bytes, elem_bytes, "bytes", KT_NUM),
    V(vllm_page_bytes, page_bytes, "bytes", KT_NUM),
    V(vllm_layers_per_group, group_size, "layers", KT_INT),
    V(vllm_kv_cache_groups, num_groups, "groups", KT_INT),
    V(vllm_padding_layers, padding_layers, "layers", KT_INT),
    V(vllm_blocks_per_request, blocks_per_request, "blocks", KT_INT),
    V(vllm_max_num_batched_tokens, max_num_batched_tokens, "tokens", KT_INT),
    V(vllm_max_num_seqs, max_num_seqs, "sequences", KT_INT),
    V(vllm_v1, v1, "boolean", KT_BOOL),
    V(vllm_num_cpu_blocks, num_cpu_blocks, "blocks", KT_INT),
    V(vllm_prefix_shared_blocks, prefix_shared_blocks, "blocks", KT_INT),
    V(vllm_prefix_shared_tokens, prefix_shared_tokens, "tokens", KT_INT),
    V(vllm_prefix_saved_bytes, prefix_saved_bytes, "bytes", KT_NUM),
    V(vllm_prefix_extra_concurrency, prefix_extra_concurrency, "requests", KT_NUM),
    G(sglang_mem_fraction_static, mem_fraction_static, "fraction", KT_NUM),
    G(sglang_avail_mem_before_load_gib, avail_before_gib, "GiB", KT_NUM),
    G(sglang_avail_mem_after_load_gib, avail_after_gib, "GiB", KT_NUM),
    G(sglang_estimated, estimated, "boolean", KT_BOOL),
    G(sglang_cell_bytes, cell_bytes, "bytes", KT_NUM),
    G(sglang_attention_layers, attn_layers, "layers", KT_INT),
    G(sglang_page_size, page_size, "tokens", KT_INT),
    G(sglang_max_total_num_tokens, max_total_num_tokens, "tokens", KT_INT),
    G(sglang_k_bytes, k_bytes, "bytes", KT_NUM),
    G(sglang_v_bytes, v_bytes, "bytes", KT_NUM),
    TR(trtllm_free_bytes, free_bytes, "bytes", KT_NUM),
    TR(trtllm_free_estimated, free_estimated, "boolean", KT_BOOL),
    TR(trtllm_per_token_bytes, per_token_bytes, "bytes", KT_NUM),
    TR(trtllm_max_tokens, max_tokens, "tokens", KT_INT),
    TR(trtllm_max_tokens_capped, capped, "boolean", KT_BOOL),
    TR(trtllm_tokens_per_block, tokens_per_block, "tokens", KT_INT),
    TR(trtllm_blocks, blocks, "blocks", KT_INT),
    TR(trtllm_blocks_per_request, blocks_per_request, "blocks", KT_INT),
    LC(llamacpp_build, build, "build", KT_INT),
    LC(llamacpp_n_ctx, n_ctx, "tokens", KT_INT),
    LC(llamacpp_n_ctx_from_model, ctx_from_model, "boolean", KT_BOOL),
    LC(llamacpp_autofit, autofit, "boolean", KT_BOOL),
    LC(llamacpp_n_seq_max, n_seq, "sequences", KT_INT),
    LC(llamacpp_kv_unified, unified, "boolean", KT_BOOL),
    LC(llamacpp_flash_attn, flash, "boolean", KT_BOOL),
    LC(llamacpp_n_ubatch, n_ubatch, "tokens", KT_INT),
    LC(llamacpp_streams, streams, "streams", KT_INT),
    LC(llamacpp_cells, main.cells, "cells", KT_INT),
    LC(llamacpp_slot_ctx, slot_ctx, "tokens", KT_INT),
    LC(llamacpp_layers, main.layers, "layers", KT_INT),
    LC(llamacpp_k_bytes, main.k_bytes, "bytes", KT_NUM),
    LC(llamacpp_v_bytes, main.v_bytes, "bytes", KT_NUM),
    LC(llamacpp_swa_layers, swa.layers, "layers", KT_INT),
    LC(llamacpp_swa_cells, swa.cells, "cells", KT_INT),
    LC(llamacpp_swa_k_bytes, swa.k_bytes, "bytes", KT_NUM),
    LC(llamacpp_swa_v_bytes, swa.v_bytes, "bytes", KT_NUM),
    LC(llamacpp_state_layers, state_layers, "layers", KT_INT),
    LC(llamacpp_state_r_bytes, state_r_bytes, "bytes", KT_NUM),
    LC(llamacpp_state_s_bytes, state_s_bytes, "bytes", KT_NUM),
    LC(llamacpp_gpu_layers, gpu_layers, "layers", KT_INT),
    LC(llamacpp_kv_gpu_bytes, kv_gpu_bytes, "bytes", KT_NUM),
    LC(llamacpp_kv_host_bytes, kv_host_bytes, "bytes", KT_NUM),
    LC(llamacpp_weights_gpu_bytes, weights_gpu_bytes, "bytes", KT_NUM),
    LC(llamacpp_compute_bytes_estimate, compute_bytes, "bytes", KT_NUM),
    LC(llamacpp_gpu_needed_bytes, gpu_needed_bytes, "bytes", KT_NUM),
    LC(llamacpp_fits_gpu, fits_gpu, "boolean", KT_BOOL),
    LC(llamacpp_ctx_size_fit, ctx_size_fit, "tokens", KT_INT),
    LC(llamacpp_autofit_ctx, autofit_ctx, "tokens", KT_INT_OR_NULL),
    P(target_concurrency, target, "requests", KT_INT),
    P(kv_bytes_needed, kv_bytes_needed, "bytes", KT_NUM),
    P(total_bytes_needed, total_bytes_needed, "bytes", KT_NUM),
    P(fits_one_gpu, fits_one_gpu, "boolean", KT_BOOL),
    P(replicas, replicas, "replicas", KT_INT_OR_NULL),
    P(gpus_needed, gpus_needed, "GPUs", KT_INT_OR_NULL),
    P(smallest_gpu, smallest_gpu_name, "string", KT_STR),
    L(gpus, gpus, "GPUs", KT_INT),
    L(best_tensor_parallel_size, best_tp, "GPUs", KT_INT_OR_NULL),
    L(best_pipeline_parallel_size, best_pp, "stages", KT_INT_OR_NULL),
    L(best_data_parallel_size, best_dp, "replicas", KT_INT_OR_NULL),
    L(best_deployment_max_concurrency, best_deployment_max_concurrency, "requests", KT_NUM),
};
const size_t kv_keys_count = sizeof kv_keys / sizeof kv_keys[0];

#define LG(name, unit, type) {#name, unit, KEY_LOG, KV_ENGINE_COUNT, type, offsetof(kv_comparison, name)}
const kv_key kv_log_keys[] = {
    LG(engine, "string", KT_ENGINE_NAME),
    LG(engine_version, "string", KT_TEXT),
    {"log_era", "string", KEY_LOG, KV_ENGINE_COUNT, KT_TEXT, offsetof(kv_comparison, era)},
    {"logged_model", "string", KEY_LOG, KV_ENGINE_COUNT, KT_TEXT, offsetof(kv_comparison, model)},
    LG(startups, "startups", KT_INT),
    LG(what_if, "boolean", KT_BOOL),
    LG(log_lines, "lines", KT_INT),
    LG(log_lines_skipped, "lines", KT_INT),
    LG(logged_available_kv_bytes, "bytes", KT_NUM_OR_NULL),
    LG(logged_kv_cache_tokens, "tokens", KT_NUM_OR_NULL),
    LG(logged_weights_bytes, "bytes", KT_NUM_OR_NULL),
    LG(logged_gpu_mem_bytes, "bytes", KT_NUM_OR_NULL),
    LG(kv_cache_tokens, "tokens", KT_NUM_OR_NULL),
    LG(available_kv_bytes, "bytes", KT_NUM_OR_NULL),
    LG(kv_budget_error_pct, "percent", KT_NUM_OR_NULL),
};
const size_t kv_log_keys_count = sizeof kv_log_keys / sizeof kv_log_keys[0];

static const kv_key *find_in(const kv_key *keys, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

/* Where each engine keeps its own result inside kv_result (none for the ideal engine). */
static const size_t engine_results[KV_ENGINE_COUNT] = {
    [KV_ENGINE_VLLM] = offsetof(kv_result, vllm),
    [KV_ENGINE_SGLANG] = offsetof(kv_result, sglang),
    [KV_ENGINE_TRTLLM] = offsetof(kv_result, trtllm),
    [KV_ENGINE_LLAMACPP] = offsetof(kv_result, llamacpp),
};

const kv_key *kv_key_find(const char *name)
{
    const kv_key *k = find_in(kv_keys, kv_keys_count, name);
    return k ? k : find_in(kv_log_keys, kv_log_keys_count, name);
}

int kv_key_is_numeric(const kv_key *k)
{
    return strcmp(k->unit, "string") != 0;
}

/* The struct a key reads, or NULL when its section was not computed. */
static const char *section_base(const kv_key *k, const kv_report *rep)
{
    switch (k->section) {
    case KEY_CONST:
        return "";
    case KEY_SPEC:
        return (const char *)rep->spec;
    case KEY_RESULT:
        return (const char *)rep->result;
    case KEY_ENGINE:
        return rep->spec->engine == k->engine
                   ? (const char *)rep->result + engine_results[k->engine]
                   : NULL;
    case KEY_PLAN:
        return (const char *)rep->plan;
    case KEY_LAYOUTS:
        return (const char *)rep->layouts;
    case KEY_LOG:
        return (const char *)rep->comparison;
    }
    return NULL;
}

kv_key_value kv_key_get(const kv_key *k, const kv_report *rep)
{
    kv_key_value v = {VAL_NUM, 0, 0, 0, NULL, 0};
    const kv_key *mine = rep->comparison && k->section != KEY_LOG
                             ? find_in(kv_log_keys, kv_log_keys_count, k->name)
                             : NULL;
    if (mine)
        k = mine; /* under --from-log, the comparison's value of that name */
    const char *at = section_base(k, rep);
    int e;
    kv_dtype t;
    if (!at) {
        v.kind = kv_key_is_numeric(k) ? VAL_NUM : VAL_STR;
        v.is_null = 1;
        return v;
    }
    at += k->offset;
    switch (k->type) {
    case KT_INT:
    case KT_INT_OR_NULL:
        v.kind = VAL_INT;
        memcpy(&v.i, at, sizeof v.i);
        v.is_null = k->type == KT_INT_OR_NULL && v.i == 0;
        break;
    case KT_NUM:
        memcpy(&v.d, at, sizeof v.d);
        break;
    case KT_NUM_OR_NULL:
        memcpy(&v.d, at, sizeof v.d);
        v.is_null = v.d != v.d; /* NaN */
        break;
    case KT_BOOL:
        v.kind = VAL_BOOL;
        memcpy(&v.b, at, sizeof v.b);
        break;
    case KT_STR:
        v.kind = VAL_STR;
        memcpy(&v.s, at, sizeof v.s);
        v.is_null = v.s == NULL;
        break;
    case KT_TEXT:
        v.kind = VAL_STR;
        v.s = at;
        v.is_null = at[0] == '\0';
        break;
    case KT_DTYPE_BYTES:
        memcpy(&t, at, sizeof t);
        v.d = kv_dtype_get(t)->bytes;
        break;
    case KT_ENGINE_NAME:
        v.kind = VAL_STR;
        memcpy(&e, at, sizeof e);
        v.s = kv_engine_name((kv_engine)e);
        break;
    case KT_SCHEMA:
        v.kind = VAL_INT;
        v.i = KV_SCHEMA_VERSION;
        break;
    case KT_VERSION:
        v.kind = VAL_STR;
        v.s = KVCALC_VERSION;
        break;
    }
    return v;
}

/* Copies text into buf (cap >= 1), cut to fit: printf costs a sweep hundreds of
 * instructions a cell for what is a copy. */
static char *copy(char *buf, size_t cap, const char *text)
{
    size_t n = strlen(text);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return buf;
}

char *kv_key_text(char *buf, size_t cap, kv_key_value v)
{
    if (v.is_null)
        return copy(buf, cap, "null");
    switch (v.kind) {
    case VAL_INT:
        return fmt_int(buf, cap, v.i, 0);
    case VAL_NUM:
        return fmt_json_number(buf, cap, v.d);
    case VAL_BOOL:
        return copy(buf, cap, v.b ? "true" : "false");
    case VAL_STR:
        return copy(buf, cap, v.s);
    }
    return buf;
}
