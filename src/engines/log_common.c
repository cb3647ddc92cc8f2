/*
 * log_common.c - what the engines' log tables share: the names of the figures vLLM, SGLang
 * and llama.cpp lines state, and two helpers of the tables' hooks.
 */
#include "engine.h"
#include "kvprint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const kv_log_field_names[KV_LOG_FIELDS] = {
    "tensor_parallel_size", "pipeline_parallel_size", "max_model_len", "gpu_total",
    "gpu_memory_utilization", "requested", "max_num_batched_tokens", "block_size", "weights",
    "activation", "non_torch", "cuda_graph", "available_kv", "kv_tokens", "blocks",
    "max_concurrency", "concurrency_tokens", "mem_fraction_static", "avail_mem_before_load",
    "avail_mem_after_load", "mem_pool_end", "page_size", "max_total_tokens",
    "chunked_prefill_size", "k_size", "v_size", "kv_size", "build", "n_ctx", "n_seq_max",
    "n_ctx_slot", "n_ubatch", "flash_attn", "kv_unified", "cells", "layers", "streams",
    "swa_cells", "swa_layers", "swa_k_size", "swa_v_size", "n_rs_seq", "index_layers",
    "index_k_size",
    "max_mamba_cache_size",
    "conv_state_size", "ssm_state_size", "intermediate_ssm_state_cache_size",
    "intermediate_conv_window_cache_size", "speculative_num_draft_tokens", "rs_size", "rs_cells",
    "rs_layers", "r_size", "s_size", "attention_block_size", "mamba_page_padding_percent",
    "kv_buffers", "tp_rank_max", "consumed", "cuda_graph_captured", "activation_with_cuda_graph",
    "cuda_graph_util_current", "cpu_offload_gb", "kv_offloading_size", "max_loras", "max_lora_rank",
    "hicache_gb", "hicache_ratio",
    "cuda_graph_util_equivalent", "draft_tensor_parallel_size", "enable_lora",
    "speculative_num_steps", "speculative_eagle_topk", "speculative_algorithm",
    "kv_offloading_backend", "max_cudagraph_capture_size", "piecewise_graphs",
    "piecewise_largest", "full_graphs", "full_largest", "max_num_seqs",
    "attention_backend", "dsv4_bytes_per_full_token", "dsv4_available_bytes",
    "dsv4_c128_state_fixed", "dsv4_full_token", "dsv4_full", "dsv4_swa", "dsv4_c4", "dsv4_c128", "dsv4_c4_state",
    "dsv4_c128_state", "max_running_requests", "enable_prefix_caching", "enforce_eager",
};

void kv_log_input_put(kv_log_inputs *in, const kv_param *p, kv_log_kind kind, const char *text)
{
    size_t i = 0;
    while (i < in->n && in->item[i].param != p)
        i++;
    if (i == KV_LOG_MAX_INPUTS)
        return; /* more than every engine's inputs together: a table's mistake */
    if (i == in->n)
        in->n++;
    in->item[i].param = p;
    in->item[i].kind = kind;
    kv_snprintf(in->item[i].text, sizeof in->item[i].text, "%s", text);
}

static double logged(const kv_log_values *v, int f)
{
    return f >= 0 && v->present[f] ? v->v[f] : NAN;
}

void kv_log_summary_common(const kv_log_values *v, int tokens, int weights, int gpu_total,
                           kv_log_summary *out)
{
    memset(out, 0, sizeof *out);
    out->kv_total = NAN;
    out->kv_tokens = logged(v, tokens);
    out->weights = logged(v, weights);
    out->gpu_total = logged(v, gpu_total);
    kv_snprintf(out->version, sizeof out->version, "%s", v->version);
    kv_snprintf(out->era, sizeof out->era, "%s", v->era);
}
