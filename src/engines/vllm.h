/*
 * vllm.h - the vLLM engine's parts shared by its two files: the rules (vllm.c) and the
 * descriptor with its parameters, fields and log tables (vllm_desc.c).
 */
#ifndef KVCALC_VLLM_H
#define KVCALC_VLLM_H

#include "engine.h"

#define VLLM_DEFAULT_VERSION 1100 /* 0.11: the release whose rules apply unless asked */
/* The first release that subtracts its CUDA-graph estimate from the budget and defaults to a
 * utilization of 0.92: #38284 (96a85c575, 2026-04-21, "Enable CUDAGraph memory profiling by
 * default"). Its messages say "default since v0.21.0", but two public v0.20.0 image logs with
 * no VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS set already print "CUDA graph memory profiling
 * is enabled" (code-index files 51912001300, 51995050688): 0.20. */
#define VLLM_GRAPHS_BUDGETED 2000

/* vLLM's parameters, by identity (their order in kv_vllm_params). */
enum {
    VLLM_P_UTIL, VLLM_P_BLOCK_SIZE, VLLM_P_BATCHED_TOKENS, VLLM_P_MAX_NUM_SEQS,
    VLLM_P_WEIGHTS, VLLM_P_ACTIVATION, VLLM_P_NON_TORCH, VLLM_P_CUDA_GRAPH,
    VLLM_P_KV_CACHE_MEMORY, VLLM_P_BLOCKS_OVERRIDE, VLLM_P_VERSION, VLLM_P_USE_V1,
    VLLM_P_SWAP_SPACE, VLLM_P_ENFORCE_EAGER, VLLM_P_LANGUAGE_MODEL_ONLY, VLLM_P_HYBRID,
    VLLM_P_MLA_ALIGN, VLLM_P_MAMBA_MODE, VLLM_P_SSM_DTYPE, VLLM_P_SPEC_TOKENS, VLLM_P_MTP, VLLM_P_CPU_OFFLOAD, VLLM_P_KV_OFFLOAD, VLLM_P_LORA,
    VLLM_P_MAX_LORAS, VLLM_P_LORA_RANK, VLLM_P_LORA_SHARDED, VLLM_P_SPEC_METHOD, VLLM_P_DRAFT_TP,
    VLLM_P_KV_OFFLOAD_BACKEND, VLLM_P_MAX_CG_SIZE, VLLM_P_ATTN_BACKEND,
    VLLM_P_PREFIX_CACHING, VLLM_P_USE_V2_RUNNER, VLLM_PARAMS
};
extern const kv_param kv_vllm_params[VLLM_PARAMS];

void kv_vllm_defaults(kv_spec *s);
kv_status kv_vllm_check(const kv_spec *s, kv_error *why);
kv_status kv_vllm_compute(const kv_spec *s, kv_result *r);
double kv_vllm_at(const kv_spec *s, const kv_result *r, int64_t context, double request_bytes);
kv_status kv_vllm_sched(const kv_spec *s, const kv_result *r, kv_sched *out, kv_error *why);
/* A decode step's weights on one GPU: vLLM's own figure, less --cpu-offload-gb, which it
 * reads from the host each step (UVA) */
double kv_vllm_step_reads(const kv_spec *s, const kv_result *r, double *block_bytes, double *host);
void kv_vllm_relayout(const kv_spec *from, kv_spec *to, kv_compute_fn compute);

#endif
