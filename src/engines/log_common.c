/*
 * log_common.c - what the engines' log tables share: the names of the figures vLLM, SGLang
 * and llama.cpp lines state, and two helpers of the tables' hooks.
 */
#include "engine.h"
#include "kvprint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* kv_log_values keeps KV_LOG_MAX_FIELDS figures: a field past them would write beyond */
_Static_assert(KV_LOG_FIELDS <= KV_LOG_MAX_FIELDS, "raise KV_LOG_MAX_FIELDS (an ABI change)");
_Static_assert(KV_OLLAMA_LOG_FIELDS <= KV_LOG_MAX_FIELDS, "raise KV_LOG_MAX_FIELDS");

/* By enumerator, so that a field added anywhere in kv_log_field keeps every name where it
 * belongs (tests/test_api.c checks that none is missing or spelled twice). */
const char *const kv_log_field_names[KV_LOG_FIELDS] = {
    [KV_LOG_TP] = "tensor_parallel_size",
    [KV_LOG_PP] = "pipeline_parallel_size",
    [KV_LOG_MAX_MODEL_LEN] = "max_model_len",
    [KV_LOG_GPU_TOTAL] = "gpu_total",
    [KV_LOG_UTIL] = "gpu_memory_utilization",
    [KV_LOG_REQUESTED] = "requested",
    [KV_LOG_BATCHED_TOKENS] = "max_num_batched_tokens",
    [KV_LOG_BLOCK_SIZE] = "block_size",
    [KV_LOG_WEIGHTS] = "weights",
    [KV_LOG_ACTIVATION] = "activation",
    [KV_LOG_NON_TORCH] = "non_torch",
    [KV_LOG_CUDA_GRAPH] = "cuda_graph",
    [KV_LOG_AVAILABLE_KV] = "available_kv",
    [KV_LOG_KV_TOKENS] = "kv_tokens",
    [KV_LOG_BLOCKS] = "blocks",
    [KV_LOG_CONCURRENCY] = "max_concurrency",
    [KV_LOG_CONCURRENCY_LEN] = "concurrency_tokens",
    [KV_LOG_MEM_FRACTION] = "mem_fraction_static",
    [KV_LOG_AVAIL_BEFORE] = "avail_mem_before_load",
    [KV_LOG_AVAIL_AFTER] = "avail_mem_after_load",
    [KV_LOG_POOL_END] = "mem_pool_end",
    [KV_LOG_PAGE_SIZE] = "page_size",
    [KV_LOG_MAX_TOTAL_TOKENS] = "max_total_tokens",
    [KV_LOG_CHUNKED_PREFILL] = "chunked_prefill_size",
    [KV_LOG_K_BYTES] = "k_size",
    [KV_LOG_V_BYTES] = "v_size",
    [KV_LOG_KV_BYTES] = "kv_size",
    [KV_LOG_BUILD] = "build",
    [KV_LOG_N_CTX] = "n_ctx",
    [KV_LOG_N_SEQ] = "n_seq_max",
    [KV_LOG_N_CTX_SLOT] = "n_ctx_slot",
    [KV_LOG_N_UBATCH] = "n_ubatch",
    [KV_LOG_FLASH_ATTN] = "flash_attn",
    [KV_LOG_KV_UNIFIED] = "kv_unified",
    [KV_LOG_CELLS] = "cells",
    [KV_LOG_LAYERS] = "layers",
    [KV_LOG_STREAMS] = "streams",
    [KV_LOG_SWA_CELLS] = "swa_cells",
    [KV_LOG_SWA_LAYERS] = "swa_layers",
    [KV_LOG_SWA_K_BYTES] = "swa_k_size",
    [KV_LOG_SWA_V_BYTES] = "swa_v_size",
    [KV_LOG_N_RS_SEQ] = "n_rs_seq",
    [KV_LOG_INDEX_LAYERS] = "index_layers",
    [KV_LOG_INDEX_K_BYTES] = "index_k_size",
    [KV_LOG_MAMBA_SLOTS] = "max_mamba_cache_size",
    [KV_LOG_CONV_STATE] = "conv_state_size",
    [KV_LOG_SSM_STATE] = "ssm_state_size",
    [KV_LOG_INTER_SSM] = "intermediate_ssm_state_cache_size",
    [KV_LOG_INTER_CONV] = "intermediate_conv_window_cache_size",
    [KV_LOG_SPEC_TOKENS] = "speculative_num_draft_tokens",
    [KV_LOG_RS_BYTES] = "rs_size",
    [KV_LOG_RS_CELLS] = "rs_cells",
    [KV_LOG_RS_LAYERS] = "rs_layers",
    [KV_LOG_R_BYTES] = "r_size",
    [KV_LOG_S_BYTES] = "s_size",
    [KV_LOG_ATTN_BLOCK] = "attention_block_size",
    [KV_LOG_MAMBA_PAD] = "mamba_page_padding_percent",
    [KV_LOG_KV_BUFFERS] = "kv_buffers",
    [KV_LOG_TP_RANK] = "tp_rank_max",
    [KV_LOG_CONSUMED] = "consumed",
    [KV_LOG_CUDA_GRAPH_CAPTURED] = "cuda_graph_captured",
    [KV_LOG_ACTIVATION_GRAPHS] = "activation_with_cuda_graph",
    [KV_LOG_CG_UTIL_CURRENT] = "cuda_graph_util_current",
    [KV_LOG_CPU_OFFLOAD] = "cpu_offload_gb",
    [KV_LOG_KV_OFFLOADING] = "kv_offloading_size",
    [KV_LOG_MAX_LORAS] = "max_loras",
    [KV_LOG_LORA_RANK] = "max_lora_rank",
    [KV_LOG_HICACHE_GB] = "hicache_gb",
    [KV_LOG_HICACHE_RATIO] = "hicache_ratio",
    [KV_LOG_CG_UTIL_EQUIVALENT] = "cuda_graph_util_equivalent",
    [KV_LOG_DRAFT_TP] = "draft_tensor_parallel_size",
    [KV_LOG_LORA_ON] = "enable_lora",
    [KV_LOG_SPEC_STEPS] = "speculative_num_steps",
    [KV_LOG_SPEC_TOPK] = "speculative_eagle_topk",
    [KV_LOG_SPEC_ALGO] = "speculative_algorithm",
    [KV_LOG_KV_OFFLOAD_BACKEND] = "kv_offloading_backend",
    [KV_LOG_MAX_CG_SIZE] = "max_cudagraph_capture_size",
    [KV_LOG_PIECEWISE_GRAPHS] = "piecewise_graphs",
    [KV_LOG_PIECEWISE_LARGEST] = "piecewise_largest",
    [KV_LOG_FULL_GRAPHS] = "full_graphs",
    [KV_LOG_FULL_LARGEST] = "full_largest",
    [KV_LOG_MAX_NUM_SEQS] = "max_num_seqs",
    [KV_LOG_ATTN_BACKEND] = "attention_backend",
    [KV_LOG_DSV4_BPFT] = "dsv4_bytes_per_full_token",
    [KV_LOG_DSV4_AVAILABLE] = "dsv4_available_bytes",
    [KV_LOG_DSV4_C128_FIXED] = "dsv4_c128_state_fixed",
    [KV_LOG_DSV4_FULL_TOKEN] = "dsv4_full_token",
    [KV_LOG_DSV4_FULL] = "dsv4_full",
    [KV_LOG_DSV4_SWA] = "dsv4_swa",
    [KV_LOG_DSV4_C4] = "dsv4_c4",
    [KV_LOG_DSV4_C128] = "dsv4_c128",
    [KV_LOG_DSV4_C4_STATE] = "dsv4_c4_state",
    [KV_LOG_DSV4_C128_STATE] = "dsv4_c128_state",
    [KV_LOG_MAX_RUNNING] = "max_running_requests",
    [KV_LOG_PREFIX_CACHING] = "enable_prefix_caching",
    [KV_LOG_ENFORCE_EAGER] = "enforce_eager",
    [KV_LOG_RUNNER_V2] = "model_runner_v2",
    [KV_LOG_VLLM_SPEC_METHOD] = "speculative_method",
    [KV_LOG_MAMBA_ALIGN] = "mamba_align",
    [KV_LOG_MTP_CONTEXT] = "mtp_context",
    [KV_LOG_MTP_CELLS] = "mtp_cells",
    [KV_LOG_MTP_LAYERS] = "mtp_layers",
    [KV_LOG_MTP_KV_BYTES] = "mtp_kv_size",
    [KV_LOG_N_BATCH] = "n_batch",
    [KV_LOG_MODEL_BUFFERS] = "model_buffers",
    [KV_LOG_MODEL_HOST] = "model_host_buffers",
    [KV_LOG_VLLM_SPEC_TOKENS] = "num_speculative_tokens",
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
    in->item[i].yields_to = NULL;
    kv_snprintf(in->item[i].text, sizeof in->item[i].text, "%s", text);
}

void kv_log_input_yield(kv_log_inputs *in, const kv_param *p, const kv_param *to)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->item[i].param == p)
            in->item[i].yields_to = to;
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
