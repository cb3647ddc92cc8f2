/*
 * vllm_desc.c - vLLM as kvcalc knows it: its parameters (vLLM's own flag names), its
 * output fields, how its startup logs read and compare, and the descriptor that holds them
 * all. The rules themselves are in vllm.c.
 */
#include "kvprint.h"
#include "vllm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define E KV_ENGINE_VLLM
#define P(TYPE, m) KV_EPARAM(E, kv_vllm_spec, TYPE, m)
#define GIB_IN(fl, k, m, h)                                                                 \
    {.name = fl, P(OPT_NUM, m), .key = k, .min = 0, .max = 1e12, .estimate = 1,             \
     .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB", .help = h}

static const kv_choice v1_modes[] = {{"0", 0}, {"1", 1}, {NULL, 0}};
static const kv_choice mamba_modes[] = {{"none", 0}, {"align", 1}, {"all", 2}, {NULL, 0}};
/* speculative_config's methods (vllm/config/speculative.py @ 28be48fa9 in the
 * local-inference-lab/vllm mirror: SpeculativeMethod, MTPModelTypes; the model-named MTP
 * methods are "deprecated and replaced with mtp") */
static const kv_choice spec_methods[] = {
    {"ngram", KV_VLLM_SPEC_NGRAM},
    {"ngram_gpu", KV_VLLM_SPEC_NGRAM_GPU}, {"suffix", KV_VLLM_SPEC_SUFFIX},
    {"draft_model", KV_VLLM_SPEC_DRAFT_MODEL}, {"eagle", KV_VLLM_SPEC_EAGLE},
    {"eagle3", KV_VLLM_SPEC_EAGLE3}, {"mtp", KV_VLLM_SPEC_MTP},
    {"deepseek_mtp", KV_VLLM_SPEC_MTP}, {"mimo_mtp", KV_VLLM_SPEC_MTP},
    {"glm4_moe_mtp", KV_VLLM_SPEC_MTP}, {"glm4_moe_lite_mtp", KV_VLLM_SPEC_MTP},
    {"ernie_mtp", KV_VLLM_SPEC_MTP}, {"nemotron_h_mtp", KV_VLLM_SPEC_MTP},
    {"qwen3_next_mtp", KV_VLLM_SPEC_MTP}, {"qwen3_5_mtp", KV_VLLM_SPEC_MTP},
    {"longcat_flash_mtp", KV_VLLM_SPEC_MTP}, {"gemma4_mtp", KV_VLLM_SPEC_MTP},
    {"medusa", KV_VLLM_SPEC_MEDUSA}, {"mlp_speculator", KV_VLLM_SPEC_MLP_SPECULATOR},
    {"dflash", KV_VLLM_SPEC_DFLASH}, {NULL, 0}};
/* --kv-offloading-backend (vllm/config/cache.py, KVOffloadingBackend) */
static const kv_choice offload_backends[] = {{"native", KV_VLLM_OFFLOAD_NATIVE},
                                             {"lmcache", KV_VLLM_OFFLOAD_LMCACHE}, {NULL, 0}};
/* --attention-backend (vllm/v1/attention/backends/registry.py names, and the lower-case
 * spelling the non-default args show): by their CUDA-graph support (AttentionCGSupport,
 * flash_attn.py, triton_attn.py, flashinfer.py @ 9aaf83ef5) */
static const kv_choice attention_backends[] = {
    {"FLASH_ATTN", KV_VLLM_ATTN_FULL_GRAPHS},  {"flash_attn", KV_VLLM_ATTN_FULL_GRAPHS},
    {"TRITON_ATTN", KV_VLLM_ATTN_FULL_GRAPHS}, {"triton_attn", KV_VLLM_ATTN_FULL_GRAPHS},
    {"FLEX_ATTENTION", KV_VLLM_ATTN_FULL_GRAPHS}, {"flex_attention", KV_VLLM_ATTN_FULL_GRAPHS},
    {"FLASHINFER", KV_VLLM_ATTN_FLASHINFER},   {"flashinfer", KV_VLLM_ATTN_FLASHINFER},
    {NULL, 0}};
static const kv_choice ssm_dtypes[] = {{"float32", 4}, {"bfloat16", 2}, {"float16", 2},
                                       {NULL, 0}};

const kv_param kv_vllm_params[VLLM_PARAMS] = {
    [VLLM_P_UTIL] = {.name = "gpu-memory-utilization", P(OPT_NUM, util),
                     .key = "gpu_memory_utilization", .min = 0, .min_exclusive = 1, .max = 1,
                     .blames = KV_ERR_ENGINE_INPUT, .meta = "U",
                     .help = "fraction of the GPU vLLM may use [0.9; 0.92 from 0.20]"},
    [VLLM_P_BLOCK_SIZE] = {.name = "block-size", P(OPT_INT, block_size), .key = "block_size",
                           .min = 1, .max = 1048576, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                           .help = "tokens per KV block [auto: 16, 64 for MLA]"},
    [VLLM_P_BATCHED_TOKENS] = {.name = "max-num-batched-tokens", P(OPT_INT, max_num_batched_tokens),
                               .key = "max_num_batched_tokens", .min = 1, .tokens = 1,
                               .max = 1099511627776.0, .blames = KV_ERR_ENGINE_INPUT,
                               .meta = "N",
                               .help = "scheduler token budget [auto: 8192 on >= 70 GiB non-A100 "
                                       "GPUs, else 2048; V0: max(context, 2048), 2048 above 32K]"},
    [VLLM_P_MAX_NUM_SEQS] = {.name = "max-num-seqs", P(OPT_INT, max_num_seqs),
                             .key = "max_num_seqs", .min = 1, .max = 16777216,
                             .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                             .help = "sequences per step; sizes the sampler's profile run [auto: "
                                     "1024 on >= 70 GiB non-A100 GPUs from 0.8 (V1), else 256]"},
    [VLLM_P_WEIGHTS] = GIB_IN("weights-gib", "weights_gib", weights_gib,
                              "weights per GPU (\"Model loading took X GiB\") [auto: estimate]"),
    [VLLM_P_ACTIVATION] = GIB_IN("activation-gib", "activation_gib", activation_gib,
                                 "activation peak per GPU [auto: estimate from the vocabulary, "
                                 "max-num-seqs and the batch]"),
    [VLLM_P_NON_TORCH] = GIB_IN("non-torch-gib", "non_torch_gib", non_torch_gib,
                                "non-torch memory per GPU [auto: 0.13 (0.06 under 70 GiB), 0.5 "
                                "with TP]"),
    [VLLM_P_CUDA_GRAPH] = GIB_IN("cuda-graph-gib", "cuda_graph_gib", cuda_graph_gib,
                                 "the CUDA-graph estimate the budget subtracts (\"Estimated CUDA "
                                 "graph memory\", from 0.20) [auto: 0 before 0.20, 0.5 from 0.20]"),
    [VLLM_P_KV_CACHE_MEMORY] = GIB_IN("kv-cache-memory-gib", "kv_cache_memory_gib",
                                      kv_cache_memory_gib,
                                      "use this \"Available KV cache memory\" per GPU (from a "
                                      "log)"),
    [VLLM_P_BLOCKS_OVERRIDE] = {.name = "num-gpu-blocks-override",
                                P(OPT_INT, num_gpu_blocks_override),
                                .key = "num_gpu_blocks_override", .min = 1,
                                .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                                .help = "use this block count (as vLLM's flag does)"},
    [VLLM_P_VERSION] = {.name = "vllm-version", P(VERSION, version), .key = "vllm_version",
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "0.N",
                        .help = "the vLLM release whose rules apply (0.11, 0.10.1) [0.11]",
                        .parse = kv_vllm_version_parse, .format = kv_vllm_version_format,
                        .accepts = "a vLLM version such as 0.11 or 0.10.1.1"},
    [VLLM_P_USE_V1] = {.name = "vllm-use-v1", P(OPT_CHOICE, use_v1), .key = "vllm_use_v1",
                       .choices = v1_modes, .blames = KV_ERR_ENGINE_INPUT, .meta = "0|1",
                       .help = "VLLM_USE_V1: 0 the V0 engine (its defaults and lines), 1 V1 "
                               "[V1 from 0.8]"},
    [VLLM_P_USE_V2_RUNNER] = {.name = "vllm-use-v2-model-runner", P(OPT_CHOICE, use_v2_model_runner),
                              .key = "vllm_use_v2_model_runner", .choices = v1_modes,
                              .blames = KV_ERR_ENGINE_INPUT, .meta = "0|1",
                              .help = "VLLM_USE_V2_MODEL_RUNNER: 1 Model Runner V2 (no CUDA-graph "
                                      "estimate before 0.29), 0 the V1 runner [by release and "
                                      "model: docs/cuda-graphs.md]"},
    [VLLM_P_SWAP_SPACE] = {.name = "swap-space", P(NUM, swap_space_gib), .key = "swap_space_gib",
                           .min = 0, .max = 1e6, .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                           .help = "V0's CPU swap space per GPU, GiB (\"# CPU blocks\") [4]"},
    [VLLM_P_ENFORCE_EAGER] = {.name = "enforce-eager", P(SWITCH, enforce_eager),
                              .key = "enforce_eager", .switch_value = 1,
                              .blames = KV_ERR_ENGINE_INPUT,
                              .help = "no CUDA graphs (from 0.20 none in the budget)"},
    [VLLM_P_PREFIX_CACHING] = {.name = "enable-prefix-caching",
                               .aliases = {"no-enable-prefix-caching"},
                               P(SWITCH, prefix_caching), .key = "enable_prefix_caching",
                               .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                               .help = "V1's prefix cache on (--no-...: off, the workload finds "
                                       "no blocks again); state layers' cache mode align [on; "
                                       "beside state layers off before 0.28]"},
    [VLLM_P_LANGUAGE_MODEL_ONLY] = {.name = "language-model-only", P(SWITCH, language_model_only),
                                    .key = "language_model_only", .switch_value = 1,
                                    .blames = KV_ERR_ENGINE_INPUT,
                                    .help = "no multimodal encoder profile run (the towers stay "
                                            "loaded)"},
    [VLLM_P_HYBRID] = {.name = "disable-hybrid-kv-cache-manager", P(SWITCH, hybrid_manager),
                       .key = "hybrid_kv_cache_manager", .switch_value = 0,
                       .blames = KV_ERR_ENGINE_INPUT,
                       .help = "treat sliding and chunked layers as full attention"},
    [VLLM_P_MLA_ALIGN] = {.name = "mla-align-kv-cache", P(SWITCH, mla_align),
                          .key = "mla_align_kv_cache", .switch_value = 1,
                          .blames = KV_ERR_ENGINE_INPUT,
                          .help = "V0's VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1: MLA latents padded "
                                  "to 256 bytes"},
    [VLLM_P_MAMBA_MODE] = {.name = "mamba-cache-mode", P(OPT_CHOICE, mamba_align),
                           .key = "mamba_cache_mode", .choices = mamba_modes,
                           .blames = KV_ERR_ENGINE_INPUT, .meta = "MODE",
                           .help = "none (1 block per request), align (2) or all (a block "
                                   "per block of tokens) [with prefix caching: align; the "
                                   "Mamba-1/2 family's all from 0.15 to 0.27]"},
    [VLLM_P_SSM_DTYPE] = {.name = "mamba-ssm-cache-dtype", P(OPT_CHOICE, mamba_ssm_cache_dtype),
                          .key = "mamba_ssm_cache_dtype", .choices = ssm_dtypes,
                          .blames = KV_ERR_ENGINE_INPUT, .meta = "DTYPE",
                          .help = "dtype of the Mamba SSM state [the config's, else the model's]"},
    [VLLM_P_SPEC_TOKENS] = {.name = "num-speculative-tokens", P(INT, num_speculative_tokens),
                            .key = "num_speculative_tokens", .min = 0, .max = 64,
                            .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                            .help = "draft tokens per step (speculative_config): state layers "
                                    "keep N more pages and rows [0]"},
    [VLLM_P_CPU_OFFLOAD] = {.name = "cpu-offload-gb", P(NUM, cpu_offload_gib),
                            .key = "cpu_offload_gb", .min = 0, .max = 1e6,
                            .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                            .help = "weights per GPU moved to pinned host memory, GiB (vLLM's "
                                    "unit): the GPU's weights shrink, the KV budget grows [0]"},
    [VLLM_P_KV_OFFLOAD] = {.name = "kv-offloading-size", P(NUM, kv_offloading_gib),
                           .key = "kv_offloading_size", .min = 0, .max = 1e9,
                           .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                           .help = "a CPU tier of KV blocks, GiB across the ranks, from 0.11.1 "
                                   "(the GPU pool and concurrency unchanged) [0]"},
    [VLLM_P_MAX_CG_SIZE] = {.name = "max-cudagraph-capture-size",
                            P(OPT_INT, max_cudagraph_capture_size),
                            .key = "max_cudagraph_capture_size", .min = 1, .max = 1048576,
                            .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                            .help = "the largest batch a CUDA graph is captured for (counts the "
                                    "graphs from 0.13) [min(max-num-seqs x (1 + K) x 2, 512)]"},
    [VLLM_P_ATTN_BACKEND] = {.name = "attention-backend", P(OPT_CHOICE, attention_backend),
                             .key = "attention_backend", .choices = attention_backends,
                             .blames = KV_ERR_ENGINE_INPUT, .meta = "NAME",
                             .help = "FLASH_ATTN, TRITON_ATTN, FLEX_ATTENTION or FLASHINFER: "
                                     "FlashInfer captures no full graphs under speculative "
                                     "decoding [vLLM's choice, taken as FLASH_ATTN]"},
    [VLLM_P_KV_OFFLOAD_BACKEND] = {.name = "kv-offloading-backend",
                                   P(OPT_CHOICE, kv_offloading_backend),
                                   .key = "kv_offloading_backend", .choices = offload_backends,
                                   .blames = KV_ERR_ENGINE_INPUT, .meta = "NAME",
                                   .help = "who holds that tier: native or lmcache (LMCache's "
                                           "CPU backend, 0.11.1-0.21) [native from 0.15; none "
                                           "before]"},
    [VLLM_P_LORA] = {.name = "enable-lora", P(SWITCH, enable_lora), .key = "enable_lora",
                     .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                     .help = "LoRA buffers for --max-loras adapters of --max-lora-rank in every "
                             "q/k/v/o/gate/up/down (in the weights from V1)"},
    [VLLM_P_MAX_LORAS] = {.name = "max-loras", P(INT, max_loras), .key = "max_loras", .min = 1,
                          .max = 65536, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                          .help = "adapters in one batch (GPU slots) [1]"},
    [VLLM_P_LORA_RANK] = {.name = "max-lora-rank", P(INT, max_lora_rank), .key = "max_lora_rank",
                          .min = 1, .max = 65536, /* SGLang's row's bounds; the check takes
                                                     vLLM's ranks */ .blames = KV_ERR_ENGINE_INPUT, .meta = "R",
                          .help = "largest adapter rank: 1, 8, 16, 32, 64, 128, 256, 320 or 512 "
                                  "[16]"},
    [VLLM_P_LORA_SHARDED] = {.name = "fully-sharded-loras", P(SWITCH, fully_sharded_loras),
                             .key = "fully_sharded_loras", .switch_value = 1,
                             .blames = KV_ERR_ENGINE_INPUT,
                             .help = "split both LoRA halves by TP"},
    [VLLM_P_SPEC_METHOD] = {.name = "speculative-method", P(OPT_CHOICE, spec_method),
                            .key = "speculative_method", .choices = spec_methods,
                            .blames = KV_ERR_ENGINE_INPUT, .meta = "METHOD",
                            .help = "speculative_config method: ngram, suffix, draft_model, "
                                    "eagle, eagle3, mtp [draft_model with --draft-model]"},
    [VLLM_P_DRAFT_TP] = {.name = "speculative-draft-tensor-parallel-size",
                         P(OPT_INT, draft_tp), .key = "draft_tensor_parallel_size", .min = 1,
                         .max = 1048576, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                         .help = "the draft's tensor parallelism: 1 or the target's [the "
                                 "target's]"},
    [VLLM_P_MTP] = {.name = "mtp", P(SWITCH, mtp), .key = "mtp", .switch_value = 1,
                    .blames = KV_ERR_ENGINE_INPUT,
                    .help = "speculative method mtp: the MTP layers are loaded and cached"},
};

/* --speculative-config JSON (vllm/config/speculative.py @ 28be48fa9: SpeculativeConfig's
 * fields): the keys that move memory, each as its flag (V0's spellings where V0 had one);
 * the n-gram window and the sampling keys move none. The draft's own quantization,
 * kv_cache_dtype and max_model_len are not read: refused as unknown keys. */
static const kv_json_key spec_keys[] = {
    {"method", "speculative-method"},
    {"model", "draft-model"},
    {"num_speculative_tokens", "num-speculative-tokens"},
    {"draft_tensor_parallel_size", "speculative-draft-tensor-parallel-size"},
    {NULL, NULL}};
static const char *const spec_neutral[] = {
    "prompt_lookup_max", "prompt_lookup_min", "rejection_sample_method", "revision",
    "code_revision", "disable_padded_drafter_batch", "disable_by_batch_size", NULL};
/* SpeculativeConfig.__post_init__: a token count with neither a method nor a model raises */
static const char *const spec_needs[] = {"method", "model", NULL};
static const kv_json_flag json_flags[] = {
    {"speculative-config", E, spec_keys, spec_neutral,
     "speculative decoding as vLLM takes it: method, model, num_speculative_tokens, "
     "draft_tensor_parallel_size",
     "num_speculative_tokens", spec_needs,
     "\"num_speculative_tokens was provided but without speculative model.\" (give method or "
     "model)"}};

#define F(name, m, T, unit, ftype, sweep) KV_EFIELD(E, kv_vllm_result, name, m, T, unit, ftype, sweep)
#define FI(name, m, unit) F(name, m, int64_t, unit, KV_F_INT, 0)
#define FN(name, m, unit) F(name, m, double, unit, KV_F_NUM, 0)
#define FB(name, m) F(name, m, int, "boolean", KV_F_BOOL, 0)

static const kv_field fields[] = {
    F(num_gpu_blocks, num_gpu_blocks, int64_t, "blocks", KV_F_INT, 1),
    FI(block_size, block_size, "tokens"),
    F(gpu_kv_cache_tokens, gpu_kv_cache_tokens, int64_t, "tokens", KV_F_INT, 2),
    F(vllm_max_concurrency, max_concurrency, double, "requests", KV_F_NUM, 3),
    FB(vllm_fits, fits),
    FI(vllm_max_model_len_fit, max_model_len_fit, "tokens"),
    FN(vllm_needed_bytes, needed_bytes, "bytes"),
    FN(vllm_total_bytes, total_bytes, "bytes"),
    FN(vllm_gpu_memory_utilization, util, "fraction"),
    FN(vllm_requested_bytes, requested_bytes, "bytes"),
    FN(vllm_weights_bytes, weights_bytes, "bytes"),
    FN(vllm_activation_bytes, activation_bytes, "bytes"),
    FN(vllm_non_torch_bytes, non_torch_bytes, "bytes"),
    FN(vllm_cuda_graph_bytes, cuda_graph_bytes, "bytes"),
    FN(vllm_encoder_profile_bytes, encoder_bytes, "bytes"),
    FN(vllm_kv_elem_bytes, elem_bytes, "bytes"),
    FN(vllm_page_bytes, page_bytes, "bytes"),
    FN(vllm_state_page_bytes, state_page_bytes, "bytes"),
    FB(vllm_mamba_align, mamba_align),
    FB(vllm_mamba_all, mamba_all),
    FB(vllm_enable_prefix_caching, enable_prefix_caching),
    FI(vllm_auto_fit_from, auto_fit_from, "tokens"),
    FN(vllm_mamba_padding_percent, mamba_padding_percent, "percent"),
    FI(vllm_layers_per_group, group_size, "layers"),
    FI(vllm_kv_cache_groups, num_groups, "groups"),
    FI(vllm_padding_layers, padding_layers, "layers"),
    FI(vllm_blocks_per_request, blocks_per_request, "blocks"),
    FI(vllm_max_num_batched_tokens, max_num_batched_tokens, "tokens"),
    FI(vllm_max_num_seqs, max_num_seqs, "sequences"),
    FB(vllm_v1, v1),
    FB(vllm_model_runner_v2, runner_v2),
    FI(vllm_num_cpu_blocks, num_cpu_blocks, "blocks"),
    FI(vllm_prefix_shared_blocks, prefix_shared_blocks, "blocks"),
    FI(vllm_prefix_shared_tokens, prefix_shared_tokens, "tokens"),
    FN(vllm_prefix_saved_bytes, prefix_saved_bytes, "bytes"),
    FN(vllm_prefix_extra_concurrency, prefix_extra_concurrency, "requests"),
    FN(vllm_cpu_offload_bytes, cpu_offload_bytes, "bytes"),
    FN(vllm_host_pinned_bytes, host_pinned_bytes, "bytes"),
    FN(vllm_lora_bytes, lora_bytes, "bytes"),
    FI(vllm_kv_offload_blocks, kv_offload_blocks, "blocks"),
    FI(vllm_kv_offload_tokens, kv_offload_tokens, "tokens"),
    FI(vllm_kv_offload_block_tokens, kv_offload_block_tokens, "tokens"),
    FI(vllm_piecewise_graphs, piecewise_graphs, "graphs"),
    FI(vllm_piecewise_largest, piecewise_largest, "tokens"),
    FI(vllm_full_graphs, full_graphs, "graphs"),
    FI(vllm_full_largest, full_largest, "tokens"),
    F(vllm_speculative_method, spec_method_name, const char *, "string", KV_F_STR, 0),
    F(vllm_draft_model, draft_model, const char *, "string", KV_F_STR, 0),
    FN(vllm_draft_weights_bytes, draft_weights_bytes, "bytes"),
    FB(vllm_draft_weights_estimated, draft_weights_estimated),
    FI(vllm_draft_layers, draft_layers, "layers"),
    FN(vllm_draft_kv_token_bytes, draft_kv_token_bytes, "bytes"),
    FN(vllm_no_spec_concurrency, no_spec_concurrency, "requests"),
};

/* ---- startup logs ------------------------------------------------------------------------ */

#define T(...) {__VA_ARGS__}

/* vLLM's lines, by release (docs/from-log.md; the engine's printf formats, read in vLLM's
 * sources: vllm/v1/core/kv_cache_utils.py, vllm/worker/worker.py, vllm/engine/arg_utils.py). */
#define SPEC(name, m)                                                                      \
    {"SpeculativeConfig(method='" name "'", T(KV_LOG_VLLM_SPEC_METHOD, m), KV_CONST | KV_NESTED, NULL}
static const kv_log_pattern patterns[] = {
    {"vLLM API server version %s", T(KV_TO_VERSION), KV_START, NULL},
    /* 0.11+'s ASCII banner (vllm/entrypoints/utils.py): "▄▄ ▄█ █     █     █ ▀▄▀ █  version
     * 0.20.0", what a log without its engine-config line still says of the release */
    {"\xe2\x96\x88  version %s", T(KV_TO_VERSION), KV_START, NULL},
    {"Initializing a V%n LLM engine (v%s)", T(KV_TO_ERA_V, KV_TO_VERSION), KV_START, NULL},
    {"non-default args: {", T(0), KV_START, NULL},
    {"'model': '%s'", T(KV_TO_MODEL), 0, NULL},
    {"model='%s'", T(KV_TO_MODEL), 0, NULL},
    {"'model_tag': '%s'", T(KV_TO_MODEL), 0, NULL},
    {"model_tag='%s'", T(KV_TO_MODEL), 0, NULL},
    /* the name it is served under: a model loaded from a local path ('/model') is often
     * known only by it (the non-default args hold a list, the config line its first) */
    {"'served_model_name': ['%s'", T(KV_TO_SERVED), 0, NULL},
    {"served_model_name=%s,", T(KV_TO_SERVED), 0, NULL},
    /* the launch command line, when the log keeps it (`vllm serve MODEL --flag value`:
     * vllm/entrypoints/cli/serve.py's model_tag, the flags of vllm/engine/arg_utils.py);
     * the engine's own lines, printed later, say the same or overrule it */
    {"vllm serve %s ", T(KV_TO_MODEL), KV_START, NULL},
    {"--served-model-name %s ", T(KV_TO_SERVED), 0, NULL},
    {"--served-model-name=%s ", T(KV_TO_SERVED), 0, NULL},
    {"--tensor-parallel-size %n", T(KV_LOG_TP), 0, NULL},
    {"--tensor-parallel-size=%n", T(KV_LOG_TP), 0, NULL},
    {"-tp %n", T(KV_LOG_TP), 0, NULL},
    {"--pipeline-parallel-size %n", T(KV_LOG_PP), 0, NULL},
    {"--pipeline-parallel-size=%n", T(KV_LOG_PP), 0, NULL},
    {"--max-model-len %n", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"--max-model-len=%n", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"--gpu-memory-utilization %f", T(KV_LOG_UTIL), 0, NULL},
    {"--gpu-memory-utilization=%f", T(KV_LOG_UTIL), 0, NULL},
    {"--max-num-batched-tokens %n", T(KV_LOG_BATCHED_TOKENS), 0, NULL},
    {"--max-num-batched-tokens=%n", T(KV_LOG_BATCHED_TOKENS), 0, NULL},
    {"--block-size %n", T(KV_LOG_BLOCK_SIZE), 0, NULL},
    {"--kv-cache-dtype %s ", T(KV_TO_KV_DTYPE), 0, NULL},
    {"--quantization %s ", T(KV_TO_QUANT), 0, NULL},
    {"--cpu-offload-gb %f", T(KV_LOG_CPU_OFFLOAD), 0, NULL},
    {"'max_model_len': %n", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"max_seq_len=%n,", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"max_model_len=%n,", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"'gpu_memory_utilization': %f", T(KV_LOG_UTIL), 0, NULL},
    {"'cpu_offload_gb': %f", T(KV_LOG_CPU_OFFLOAD), 0, NULL},
    {"'kv_offloading_size': %f", T(KV_LOG_KV_OFFLOADING), 0, NULL},
    {"'max_cudagraph_capture_size': %n", T(KV_LOG_MAX_CG_SIZE), 0, NULL},
    {"'attention_backend': 'flashinfer'", T(KV_LOG_ATTN_BACKEND, KV_VLLM_ATTN_FLASHINFER),
     KV_CONST, NULL},
    {"'attention_backend': 'FLASHINFER'", T(KV_LOG_ATTN_BACKEND, KV_VLLM_ATTN_FLASHINFER),
     KV_CONST, NULL},
    /* the graphs profile_cudagraph_memory captures, largest first (gpu_model_runner.py, #30515,
     * ebb9cc5f2; "PIECEWISE" before "FULL" as get_capture_descs returns them) */
    {"Profiling CUDA graph memory: PIECEWISE=%n (largest=%n), FULL=%n (largest=%n)",
     T(KV_LOG_PIECEWISE_GRAPHS, KV_LOG_PIECEWISE_LARGEST, KV_LOG_FULL_GRAPHS, KV_LOG_FULL_LARGEST),
     0, NULL},
    {"'kv_offloading_backend': 'native'", T(KV_LOG_KV_OFFLOAD_BACKEND, KV_VLLM_OFFLOAD_NATIVE),
     KV_CONST, NULL},
    {"'kv_offloading_backend': 'lmcache'", T(KV_LOG_KV_OFFLOAD_BACKEND, KV_VLLM_OFFLOAD_LMCACHE),
     KV_CONST, NULL},
    {"'max_loras': %n", T(KV_LOG_MAX_LORAS), 0, NULL},
    /* --enable-lora: its buffers are in "Model loading took" (the non-default args say so;
     * the max_loras and max_lora_rank defaults are not printed) */
    {"'enable_lora': True", T(KV_LOG_LORA_ON, 1), KV_CONST, NULL},
    {"enable_lora=True", T(KV_LOG_LORA_ON, 1), KV_CONST, NULL},
    /* --no-enable-prefix-caching (a gated delta net then keeps "none" mode from 0.28, and a
     * workload finds no blocks again) and --enforce-eager (no graphs, none in the budget):
     * the non-default args and the engine's config line say so; the defaults are not
     * printed in the first, and "=True" / "=False" in the second are the defaults */
    {"'enable_prefix_caching': False", T(KV_LOG_PREFIX_CACHING, 0), KV_CONST, NULL},
    {"'enable_prefix_caching': True", T(KV_LOG_PREFIX_CACHING, 1), KV_CONST, NULL},
    /* the engine's config line comes after the arguments and says what vLLM kept (a real
     * 0.13.0 log of Qwen3-Next asked for True and ran False) */
    {"enable_prefix_caching=False,", T(KV_LOG_PREFIX_CACHING, 0), KV_CONST, NULL},
    {"enable_prefix_caching=True,", T(KV_LOG_PREFIX_CACHING, 1), KV_CONST, NULL},
    /* MambaModelConfig's line for the mode in force (vllm/model_executor/models/config.py
     * @ 28be48fa9): "align" or "all", given or chosen */
    {"Prefix caching in Mamba cache 'align' mode", T(KV_LOG_MAMBA_ALIGN, 1), KV_CONST, NULL},
    {"Prefix caching in Mamba cache 'all' mode", T(KV_LOG_MAMBA_ALIGN, 2), KV_CONST, NULL},
    {"'enforce_eager': True", T(KV_LOG_ENFORCE_EAGER, 1), KV_CONST, NULL},
    /* the runner the worker took (gpu_worker.py: logger.info_once("Using V2 Model Runner"); the
     * fallback vllm/config/vllm.py warns "Model runner v2 does not yet support %s; using the v1
     * model runner instead.") */
    {"Using V2 Model Runner", T(KV_LOG_RUNNER_V2, 1), KV_CONST, NULL},
    {"using the v1 model runner instead", T(KV_LOG_RUNNER_V2, 0), KV_CONST, NULL},
    {"enforce_eager=True,", T(KV_LOG_ENFORCE_EAGER, 1), KV_CONST, NULL},
    /* speculative_config's keys, inside its nested dict (the log's other keys skip it:
     * its 'model' is the draft's - a real 2025 log of gpt-oss-120b with an EAGLE-3 head
     * names it before the target's) */
    {"'num_speculative_tokens': %n", T(KV_LOG_VLLM_SPEC_TOKENS), KV_NESTED, NULL},
    /* the engine's config line prints the method as SpeculativeConfig.__post_init__ resolved
     * it (a real 0.23.0 log asked for 'qwen3_next_mtp' and printed method='mtp'), and the
     * tokens as num_spec_tokens (SpeculativeConfig.__repr__, vllm/config/speculative.py) */
    SPEC("mtp", KV_VLLM_SPEC_MTP), SPEC("eagle", KV_VLLM_SPEC_EAGLE),
    SPEC("eagle3", KV_VLLM_SPEC_EAGLE3), SPEC("draft_model", KV_VLLM_SPEC_DRAFT_MODEL),
    SPEC("ngram", KV_VLLM_SPEC_NGRAM), SPEC("ngram_gpu", KV_VLLM_SPEC_NGRAM_GPU),
    SPEC("suffix", KV_VLLM_SPEC_SUFFIX), SPEC("medusa", KV_VLLM_SPEC_MEDUSA),
    SPEC("mlp_speculator", KV_VLLM_SPEC_MLP_SPECULATOR), SPEC("dflash", KV_VLLM_SPEC_DFLASH),
    {"num_spec_tokens=%n)", T(KV_LOG_VLLM_SPEC_TOKENS), KV_NESTED, NULL},
    {"'draft_tensor_parallel_size': %n", T(KV_LOG_DRAFT_TP), KV_NESTED, NULL},
    {"'max_lora_rank': %n", T(KV_LOG_LORA_RANK), 0, NULL},
    {"gpu_memory_utilization=%f", T(KV_LOG_UTIL), 0, NULL},
    {"'tensor_parallel_size': %n", T(KV_LOG_TP), 0, NULL},
    {"tensor_parallel_size=%n", T(KV_LOG_TP), 0, NULL},
    {"'pipeline_parallel_size': %n", T(KV_LOG_PP), 0, NULL},
    {"pipeline_parallel_size=%n", T(KV_LOG_PP), 0, NULL},
    {"'max_num_batched_tokens': %n", T(KV_LOG_BATCHED_TOKENS), 0, NULL},
    {"'max_num_seqs': %n", T(KV_LOG_MAX_NUM_SEQS), 0, NULL},
    {"'block_size': %n", T(KV_LOG_BLOCK_SIZE), 0, NULL},
    {"'dtype': '%s'", T(KV_TO_DTYPE), 0, NULL},
    {"dtype=torch.%s,", T(KV_TO_DTYPE), 0, NULL},
    {"'kv_cache_dtype': '%s'", T(KV_TO_KV_DTYPE), 0, NULL},
    {"kv_cache_dtype=%s,", T(KV_TO_KV_DTYPE), 0, NULL},
    {"'quantization': '%s'", T(KV_TO_QUANT), 0, NULL},
    {"quantization=%s,", T(KV_TO_QUANT), 0, NULL},
    {"Model loading took %b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"Loading model weights took %b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"total_gpu_memory (%b) x gpu_memory_utilization (%f) = %b",
     T(KV_LOG_GPU_TOTAL, KV_LOG_UTIL, KV_LOG_REQUESTED), 0, "V0"},
    {"model weights take %b; non_torch_memory takes %b; PyTorch activation peak memory takes "
     "%b; the rest of the memory reserved for KV Cache is %b",
     T(KV_TO_WEIGHTS_ROUNDED, KV_LOG_NON_TORCH, KV_LOG_ACTIVATION, KV_LOG_AVAILABLE_KV),
     KV_LINE | KV_MIN, "V0"},
    /* the budget line (vllm/v1/worker/gpu_worker.py, DEBUG until #47374, INFO after): its
     * CUDAGraph figure is the pool capture_model() took after the budget, not the estimate
     * the budget subtracts from 0.20 (#38284, "Enabled by default as of v0.21.0", but in v0.20.0: VLLM_GRAPHS_BUDGETED) */
    {"Free memory on device (%f/%b) on startup. Desired GPU memory utilization is (%f, %b). "
     "Actual usage is %b for weight, %b for peak activation, %b for non-torch memory, and %b "
     "for CUDAGraph memory",
     T(KV_TO_SKIP, KV_LOG_GPU_TOTAL, KV_LOG_UTIL, KV_LOG_REQUESTED, KV_TO_WEIGHTS_ROUNDED,
       KV_LOG_ACTIVATION, KV_LOG_NON_TORCH, KV_LOG_CUDA_GRAPH_CAPTURED),
     0, "V1"},
    /* the wording after the accounting rewrite (#49208): weights and non-torch memory as one
     * "consumed" figure, and a "peak activation" that holds the CUDA-graph estimate applied
     * (peak_activation_memory = transient_peak_headroom + cudagraph_memory_estimate_applied):
     * requested - consumed - that figure is the budget, whatever the estimate */
    {"Free memory on device (%f/%b) on startup. Desired GPU memory utilization is (%f, %b). "
     "Actual usage is %b for consumed memory (weights + non-torch), %b for peak activation, and "
     "%b for CUDAGraph memory",
     T(KV_TO_SKIP, KV_LOG_GPU_TOTAL, KV_LOG_UTIL, KV_LOG_REQUESTED, KV_LOG_CONSUMED,
       KV_LOG_ACTIVATION_GRAPHS, KV_LOG_CUDA_GRAPH_CAPTURED),
     0, "V1"},
    /* the estimate (gpu_model_runner.profile_cudagraph_memory, #30515; logged from 0.18,
     * subtracted from 0.20), and the utilization it is worth, printed when it is above 0 */
    {"Estimated CUDA graph memory: %b total", T(KV_LOG_CUDA_GRAPH), 0, NULL},
    {"CUDA graph memory profiling is enabled (default since v0.21.0). The current "
     "--gpu-memory-utilization=%f is equivalent to --gpu-memory-utilization=%f without CUDA "
     "graph memory profiling",
     T(KV_LOG_CG_UTIL_CURRENT, KV_LOG_CG_UTIL_EQUIVALENT), 0, NULL},
    {"Graph capturing finished in %n secs, took %b", T(KV_TO_SKIP, KV_LOG_CUDA_GRAPH_CAPTURED),
     0, NULL},
    {"Chunked prefill is enabled with max_num_batched_tokens=%n", T(KV_LOG_BATCHED_TOKENS), 0,
     NULL},
    /* the ranks of a tensor-parallel run name themselves: Worker_TP0_EP0 ... Worker_TP7_EP7 */
    {"Worker_TP%n", T(KV_LOG_TP_RANK), KV_MAX | KV_RAW, NULL},
    /* the same figures as a summary of a log gives them ("Free memory on device: F/T GiB") */
    {"Free memory on device: %f/%b", T(KV_TO_SKIP, KV_LOG_GPU_TOTAL), 0, NULL},
    {"Model loading took: %b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"Available KV cache memory: %b", T(KV_LOG_AVAILABLE_KV), KV_LINE | KV_MIN, "V1"},
    /* each rank may print its own: the engine keeps the smallest, as for the memory */
    {"GPU KV cache size: %n tokens", T(KV_LOG_KV_TOKENS), KV_LINE | KV_MIN, "V1"},
    {"Maximum concurrency for %n tokens per request: %fx",
     T(KV_LOG_CONCURRENCY_LEN, KV_LOG_CONCURRENCY), KV_LINE, NULL},
    {"# GPU blocks: %n", T(KV_LOG_BLOCKS), KV_LINE, NULL},
    {"# GPU blocks: %n, # CPU blocks:", T(KV_TO_SKIP), 0, "V0"}, /* V0 before 0.7 */
    {"# cuda blocks: %n", T(KV_LOG_BLOCKS), KV_LINE, "V0"},
    {"# CUDA blocks: %n", T(KV_LOG_BLOCKS), KV_LINE, "V0"},
    {"The model's max seq len (%n) is larger than the maximum number of tokens that can be "
     "stored in KV cache (%n)",
     T(KV_LOG_MAX_MODEL_LEN, KV_LOG_KV_TOKENS), KV_LINE, NULL},
    {"num_gpu_blocks is: %n", T(KV_LOG_BLOCKS), KV_LINE, NULL},
    /* a hybrid model's pages (vllm/model_executor/models/config.py,
     * HybridAttentionMambaModelConfig.verify_and_update_config) */
    {"Setting attention block size to %n tokens to ensure that attention page size is >= "
     "mamba page size",
     T(KV_LOG_ATTN_BLOCK), KV_LINE, "hybrid"},
    {"Padding mamba page size by %f", T(KV_LOG_MAMBA_PAD), 0, NULL},
};

#define CORE(id) (&kv_core_params[id])
#define MINE(id) (&kv_vllm_params[id])
#define SET(f, p) {f, p, KV_LOG_SETTING, 0, 0, 0}
#define MEASURED_GIB(f, p) {f, p, KV_LOG_MEASURED, 1, 0, 0}

/* The settings the comparison lists apart (in its "Logged:" line). */
static const int settings[] = {KV_LOG_TP, KV_LOG_PP, KV_LOG_MAX_MODEL_LEN, KV_LOG_UTIL, KV_LOG_BATCHED_TOKENS,
                                KV_LOG_BLOCK_SIZE, KV_LOG_CPU_OFFLOAD, KV_LOG_KV_OFFLOADING,
                                KV_LOG_LORA_ON, KV_LOG_MAX_LORAS, KV_LOG_LORA_RANK,
                                KV_LOG_PREFIX_CACHING, KV_LOG_ENFORCE_EAGER, KV_LOG_RUNNER_V2,
                                KV_LOG_VLLM_SPEC_METHOD, KV_LOG_VLLM_SPEC_TOKENS};

static const kv_log_input inputs[] = {
    /* the concurrency line names max_model_len when no argument line does */
    {KV_LOG_CONCURRENCY_LEN, CORE(KV_P_CONTEXT), KV_LOG_SETTING, 0, KV_LOG_MAX_MODEL_LEN + 1, 0},
    SET(KV_LOG_MAX_MODEL_LEN, CORE(KV_P_CONTEXT)),
    SET(KV_LOG_TP, CORE(KV_P_TP)),
    SET(KV_LOG_UTIL, MINE(VLLM_P_UTIL)),
    SET(KV_LOG_BATCHED_TOKENS, MINE(VLLM_P_BATCHED_TOKENS)),
    SET(KV_LOG_BLOCK_SIZE, MINE(VLLM_P_BLOCK_SIZE)),
    SET(KV_LOG_CPU_OFFLOAD, MINE(VLLM_P_CPU_OFFLOAD)),
    SET(KV_LOG_KV_OFFLOADING, MINE(VLLM_P_KV_OFFLOAD)),
    SET(KV_LOG_MAX_NUM_SEQS, MINE(VLLM_P_MAX_NUM_SEQS)),
    SET(KV_LOG_LORA_ON, MINE(VLLM_P_LORA)),
    SET(KV_LOG_PREFIX_CACHING, MINE(VLLM_P_PREFIX_CACHING)),
    SET(KV_LOG_ENFORCE_EAGER, MINE(VLLM_P_ENFORCE_EAGER)),
    SET(KV_LOG_RUNNER_V2, MINE(VLLM_P_USE_V2_RUNNER)),
    SET(KV_LOG_MAX_LORAS, MINE(VLLM_P_MAX_LORAS)),
    SET(KV_LOG_LORA_RANK, MINE(VLLM_P_LORA_RANK)),
    SET(KV_LOG_VLLM_SPEC_TOKENS, MINE(VLLM_P_SPEC_TOKENS)),
    SET(KV_LOG_DRAFT_TP, MINE(VLLM_P_DRAFT_TP)),
    /* torch's total: vLLM's budget base */
    {KV_LOG_GPU_TOTAL, CORE(KV_P_GPU_MEM_GIB), KV_LOG_SETTING, 1, 0, 0},
    MEASURED_GIB(KV_LOG_WEIGHTS, MINE(VLLM_P_WEIGHTS)),
    MEASURED_GIB(KV_LOG_ACTIVATION, MINE(VLLM_P_ACTIVATION)),
    MEASURED_GIB(KV_LOG_NON_TORCH, MINE(VLLM_P_NON_TORCH)),
    {KV_LOG_AVAILABLE_KV, MINE(VLLM_P_KV_CACHE_MEMORY), KV_LOG_KV_FIGURE, 1, 0, 0},
    /* early V1 and V0 logs state blocks, not memory: the block count is the KV figure */
    {KV_LOG_BLOCKS, MINE(VLLM_P_BLOCKS_OVERRIDE), KV_LOG_KV_FIGURE, 0, KV_LOG_AVAILABLE_KV + 1, 0},
};

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
        kv_snprintf(buf, cap, "0.%d.%d", minor, patch);
    else
        kv_snprintf(buf, cap, "0.%d", minor);
    return 0;
}

/* the speculative method by its name in "Logged:" (the first of the names that resolve to
 * it: vLLM prints the resolved one) */
static const char *setting_word(int field, double value)
{
    for (const kv_choice *c = spec_methods; field == KV_LOG_VLLM_SPEC_METHOD && c->name; c++)
        if (c->value == (int)value)
            return c->name;
    return NULL;
}

static void texts(const kv_log_values *v, kv_log_inputs *in)
{
    char buf[40];
    if (v->present[KV_LOG_ATTN_BACKEND] && (int)v->v[KV_LOG_ATTN_BACKEND] == KV_VLLM_ATTN_FLASHINFER)
        kv_log_input_put(in, MINE(VLLM_P_ATTN_BACKEND), KV_LOG_SETTING, "FLASHINFER");
    for (const kv_choice *c = offload_backends; v->present[KV_LOG_KV_OFFLOAD_BACKEND] && c->name;
         c++)
        if (c->value == (int)v->v[KV_LOG_KV_OFFLOAD_BACKEND])
            kv_log_input_put(in, MINE(VLLM_P_KV_OFFLOAD_BACKEND), KV_LOG_SETTING, c->name);
    /* 'max_cudagraph_capture_size': 0 is what --enforce-eager leaves (no graph captured),
     * not a size: it reads as the switch */
    if (v->present[KV_LOG_MAX_CG_SIZE] && v->v[KV_LOG_MAX_CG_SIZE] == 0)
        kv_log_input_put(in, MINE(VLLM_P_ENFORCE_EAGER), KV_LOG_SETTING, "");
    else if (v->present[KV_LOG_MAX_CG_SIZE]) {
        snprintf(buf, sizeof buf, "%.0f", v->v[KV_LOG_MAX_CG_SIZE]);
        kv_log_input_put(in, MINE(VLLM_P_MAX_CG_SIZE), KV_LOG_SETTING, buf);
    }
    if (v->present[KV_LOG_MAMBA_ALIGN]) {
        kv_log_input_put(in, MINE(VLLM_P_MAMBA_MODE), KV_LOG_SETTING,
                         v->v[KV_LOG_MAMBA_ALIGN] == 2 ? "all" : "align");
        /* the mode follows from prefix caching ("Mamba cache mode is set to 'align' (default
         * when prefix caching is enabled)"): --no-enable-prefix-caching drops it */
        kv_log_input_yield(in, MINE(VLLM_P_MAMBA_MODE), MINE(VLLM_P_PREFIX_CACHING));
    }
    /* the speculative method by its name (the first of the names that resolve to it) */
    for (const kv_choice *c = spec_methods; v->present[KV_LOG_VLLM_SPEC_METHOD] && c->name; c++)
        if (c->value == (int)v->v[KV_LOG_VLLM_SPEC_METHOD]) {
            kv_log_input_put(in, MINE(VLLM_P_SPEC_METHOD), KV_LOG_SETTING, c->name);
            break;
        }
    int have_version = v->version[0] && vllm_minor(v->version, buf, sizeof buf) == 0;
    if (have_version)
        kv_log_input_put(in, MINE(VLLM_P_VERSION), KV_LOG_SETTING, buf);
    /* the engine generation the lines show (V0's lines look alike from 0.6.5 to 0.10, and
     * its sizing rules do not depend on the release: 0.8 stands in when none is stated) */
    if (strcmp(v->era, "V0") == 0) {
        if (!have_version)
            kv_log_input_put(in, MINE(VLLM_P_VERSION), KV_LOG_SETTING, "0.8");
        kv_log_input_put(in, MINE(VLLM_P_USE_V1), KV_LOG_SETTING, "0");
    }
    /* no tensor_parallel_size stated: the ranks' prefixes tell it (Worker_TP7: 8) */
    if (!v->present[KV_LOG_TP] && v->present[KV_LOG_TP_RANK] && v->v[KV_LOG_TP_RANK] < 1e6) {
        snprintf(buf, sizeof buf, "%.0f", v->v[KV_LOG_TP_RANK] + 1);
        kv_log_input_put(in, CORE(KV_P_TP), KV_LOG_SETTING, buf);
    }
    /* CUDA graphs: from 0.20 the budget subtracts vLLM's estimate ("Estimated CUDA graph
     * memory", or the utilization it is worth x the total), never the pool captured after
     * it; the later wording folds the estimate into its "peak activation", which is then
     * split back into the two. Before 0.20 the graphs are outside the budget. */
    int minor = 0;
    if (have_version)
        sscanf(buf, "0.%d", &minor);
    double est = NAN;
    if (v->present[KV_LOG_CUDA_GRAPH])
        est = v->v[KV_LOG_CUDA_GRAPH];
    else if (v->present[KV_LOG_CG_UTIL_CURRENT] && v->present[KV_LOG_CG_UTIL_EQUIVALENT] &&
             v->present[KV_LOG_GPU_TOTAL])
        est = (v->v[KV_LOG_CG_UTIL_CURRENT] - v->v[KV_LOG_CG_UTIL_EQUIVALENT]) *
              v->v[KV_LOG_GPU_TOTAL];
    char g[40];
    if (v->present[KV_LOG_ACTIVATION_GRAPHS]) { /* the later wording: a 0.2x release */
        double e = isnan(est) ? 0 : est; /* none stated: all of it is the activation's */
        double act = v->v[KV_LOG_ACTIVATION_GRAPHS] - e;
        if (act < 0) { /* an estimate larger than the figure that holds it: keep the figure */
            act = v->v[KV_LOG_ACTIVATION_GRAPHS];
            e = 0;
        }
        snprintf(g, sizeof g, "%.17g", act / KV_GIB);
        kv_log_input_put(in, MINE(VLLM_P_ACTIVATION), KV_LOG_MEASURED, g);
        snprintf(g, sizeof g, "%.17g", e / KV_GIB);
        kv_log_input_put(in, MINE(VLLM_P_CUDA_GRAPH), KV_LOG_MEASURED, g);
    } else if (minor * 100 >= VLLM_GRAPHS_BUDGETED && !isnan(est)) {
        snprintf(g, sizeof g, "%.17g", (est > 0 ? est : 0) / KV_GIB);
        kv_log_input_put(in, MINE(VLLM_P_CUDA_GRAPH), KV_LOG_MEASURED, g);
    }
    /* the later wording gives weights and non-torch memory as one: with the weights' own
     * line, non-torch is the rest */
    if (v->present[KV_LOG_CONSUMED] && v->present[KV_LOG_WEIGHTS] &&
        !v->present[KV_LOG_NON_TORCH] && v->v[KV_LOG_CONSUMED] >= v->v[KV_LOG_WEIGHTS]) {
        snprintf(buf, sizeof buf, "%.17g",
                 (v->v[KV_LOG_CONSUMED] - v->v[KV_LOG_WEIGHTS]) / KV_GIB);
        kv_log_input_put(in, MINE(VLLM_P_NON_TORCH), KV_LOG_MEASURED, buf);
    }
}

static const kv_cmp_row rows[] = {
    {"GPU total", KV_LOG_GPU_TOTAL, 1, KV_CMP_D(vllm.total_bytes), 1, "bytes", KV_TERM_TOTAL, 0},
    {"total x utilization", KV_LOG_REQUESTED, 1, KV_CMP_D(vllm.requested_bytes), 1, "bytes",
     KV_TERM_REQUESTED, 0},
    {"weights", KV_LOG_WEIGHTS, 1, KV_CMP_D(vllm.weights_bytes), 1, "bytes", KV_TERM_SUBTRACTED,
     KV_LOG_CONSUMED + 1},
    {"weights + non-torch", KV_LOG_CONSUMED, 1, KV_CMP_D(vllm.consumed_bytes), 1, "bytes",
     KV_TERM_SUBTRACTED, 0},
    {"activation peak", KV_LOG_ACTIVATION, 1, KV_CMP_D(vllm.activation_bytes), 1, "bytes",
     KV_TERM_SUBTRACTED, 0},
    {"non-torch memory", KV_LOG_NON_TORCH, 1, KV_CMP_D(vllm.non_torch_bytes), 1, "bytes",
     KV_TERM_SUBTRACTED, 0},
    {"activation + CUDA graphs", KV_LOG_ACTIVATION_GRAPHS, 1, KV_CMP_D(vllm.activation_graph_bytes),
     1, "bytes", KV_TERM_SUBTRACTED, 0},
    {"CUDA graphs", KV_LOG_CUDA_GRAPH, 1, KV_CMP_D(vllm.cuda_graph_bytes), 1, "bytes",
     KV_TERM_GRAPHS, KV_LOG_ACTIVATION_GRAPHS + 1},
    {"CUDA graphs captured", KV_LOG_CUDA_GRAPH_CAPTURED, 1, KV_CMP_D(vllm.cuda_graph_bytes), 1,
     "bytes", KV_TERM_CAPTURED, 0}, /* its offset unread: no kvcalc figure */
    {"available KV cache memory", KV_LOG_AVAILABLE_KV, 1, KV_CMP_D(available_kv_bytes), 1,
     "bytes", KV_TERM_BUDGET, 0},
    {"GPU blocks", KV_LOG_BLOCKS, 0, KV_CMP_I(vllm.num_gpu_blocks), 1, "blocks", KV_TERM_KV, 0},
    {"GPU KV cache size", KV_LOG_KV_TOKENS, 0, KV_CMP_I(vllm.gpu_kv_cache_tokens), 1, "tokens",
     KV_TERM_KV, 0},
    {"maximum concurrency", KV_LOG_CONCURRENCY, 0, KV_CMP_D(vllm.max_concurrency), 1,
     "requests", KV_TERM_KV, 0},
    {"attention block size", KV_LOG_ATTN_BLOCK, 0, KV_CMP_I(vllm.block_size), 1, "tokens",
     KV_TERM_LAYOUT, 0},
    {"piecewise CUDA graphs", KV_LOG_PIECEWISE_GRAPHS, 0, KV_CMP_I(vllm.piecewise_graphs), 1,
     "graphs", KV_TERM_LAYOUT, 0},
    {"largest piecewise graph", KV_LOG_PIECEWISE_LARGEST, 0, KV_CMP_I(vllm.piecewise_largest), 1,
     "tokens", KV_TERM_LAYOUT, 0},
    {"full CUDA graphs", KV_LOG_FULL_GRAPHS, 0, KV_CMP_I(vllm.full_graphs), 1, "graphs",
     KV_TERM_LAYOUT, 0},
    {"largest full graph", KV_LOG_FULL_LARGEST, 0, KV_CMP_I(vllm.full_largest), 1, "tokens",
     KV_TERM_LAYOUT, 0},
    {"mamba page padding", KV_LOG_MAMBA_PAD, 0, KV_CMP_D(vllm.mamba_padding_percent), 1,
     "percent", KV_TERM_LAYOUT, 0},
};

static const kv_log_what_if what_if[] = {
    {CORE(KV_P_GPU_MEM_GIB), KV_LOG_GPU_TOTAL, KV_GIB},
    {MINE(VLLM_P_UTIL), KV_LOG_UTIL, 1},
};

static void summary(const kv_log_values *v, const kv_result *a, kv_log_summary *out)
{
    (void)a;
    kv_log_summary_common(v, KV_LOG_KV_TOKENS, KV_LOG_WEIGHTS, KV_LOG_GPU_TOTAL, out);
    out->kv_total = v->present[KV_LOG_AVAILABLE_KV] ? v->v[KV_LOG_AVAILABLE_KV] : NAN;
    out->unit_round = 0.005 * KV_GIB;
    if (v->present[KV_LOG_AVAILABLE_KV] && v->v[KV_LOG_AVAILABLE_KV] > 0)
        out->rel_round = 0.005 * KV_GIB / v->v[KV_LOG_AVAILABLE_KV];
}

static double fraction(const kv_result *b)
{
    return b->vllm.util;
}

static int graphs_inside(const kv_spec *s)
{
    return s->vllm.version >= VLLM_GRAPHS_BUDGETED; /* CUDA graphs inside the budget */
}

/* the configs vLLM prints inside its own: the draft's (non-default args, engine config) */
static const char *const nested[] = {"'speculative_config': {",
                                     "speculative_config=SpeculativeConfig(", NULL};

static const kv_engine_log vllm_log = {
    KV_TABLE(patterns, patterns),
    .nested = nested,
    .field_names = kv_log_field_names,
    .n_fields = KV_LOG_FIELDS,
    .flash_field = -1,
    .weights_field = KV_LOG_WEIGHTS,
    .unified_field = -1,
    KV_TABLE(settings, settings),
    .setting_word = setting_word,
    KV_TABLE(inputs, inputs),
    .texts = texts,
    KV_TABLE(rows, rows),
    KV_TABLE(what_if, what_if),
    .gpu_total_field = KV_LOG_GPU_TOTAL,
    .needs_gpu_total = 1,
    .e2e_available = 1,
    .summary = summary,
    .fraction = fraction,
    .graphs_inside = graphs_inside,
};

/* /metrics (vllm/engine/metrics.py in V0, vllm/v1/metrics/loggers.py in V1; the names of
 * each release in ../shared/reference/workload.md 1.5-1.7): the two generations of the
 * usage gauge and of the prefix-cache counters, the renamed inter-token histogram */
#define M(name, m, how, gen) {name, KV_METRIC_AT(m), KV_AGG_##how, gen}
static const kv_metric_row metric_rows[] = {
    M("kv_cache_usage_perc", kv_usage, MEAN, "V1 0.10+ (kv_cache_usage_perc)"),
    M("gpu_cache_usage_perc", kv_usage_old, MEAN, "V0 / early V1 (gpu_cache_usage_perc)"),
    M("num_requests_running", running, SUM, NULL),
    M("num_requests_waiting", waiting, SUM, NULL),
    M("num_preemptions_total", preemptions, SUM, NULL),
    M("prefix_cache_queries_total", prefix_queries, SUM, NULL),
    M("prefix_cache_hits_total", prefix_hits, SUM, NULL),
    M("gpu_prefix_cache_queries_total", prefix_queries_old, SUM, NULL),
    M("gpu_prefix_cache_hits_total", prefix_hits_old, SUM, NULL),
    M("gpu_prefix_cache_queries", prefix_queries_old, SUM, NULL),
    M("gpu_prefix_cache_hits", prefix_hits_old, SUM, NULL),
    M("gpu_prefix_cache_hit_rate", prefix_hit_rate, MEAN, NULL),
    M("request_prompt_tokens_sum", prompt_sum, SUM, NULL),
    M("request_prompt_tokens_count", prompt_count, SUM, NULL),
    M("request_generation_tokens_sum", output_sum, SUM, NULL),
    M("request_generation_tokens_count", output_count, SUM, NULL),
    KV_METRIC_LATENCY_ROWS,
    M("request_queue_time_seconds_sum", queue_sum, SUM, NULL),
    M("request_queue_time_seconds_count", queue_count, SUM, NULL),
    M("request_success_total", finished, SUM, NULL),
    M("prompt_tokens_total", prompt_tokens_total, SUM, NULL),
    M("generation_tokens_total", generation_tokens_total, SUM, NULL),
};
#undef M
/* cache_config_info: str() of every CacheConfig attribute (PR #3100); num_gpu_blocks is
 * "None" in early V1 (issue #16560), kv_cache_size_tokens and kv_cache_max_concurrency from
 * 2026 */
static const kv_metric_label metric_labels[] = {
    {"cache_config_info", "num_gpu_blocks", KV_METRIC_AT(gpu_blocks)},
    {"cache_config_info", "block_size", KV_METRIC_AT(block_size)},
    {"cache_config_info", "gpu_memory_utilization", KV_METRIC_AT(gpu_util)},
    {"cache_config_info", "kv_cache_size_tokens", KV_METRIC_AT(capacity_tokens)},
    {"cache_config_info", "kv_cache_max_concurrency", KV_METRIC_AT(max_concurrency)},
    {"cache_config_info", "enable_prefix_caching", KV_METRIC_AT(prefix_caching)},
};
static const kv_metric_input metric_inputs[] = {
    {KV_METRIC_AT(gpu_util), "gpu-memory-utilization", 0},
    {KV_METRIC_AT(max_model_len), "max-model-len", 0},
    {KV_METRIC_AT(gpu_blocks), "num-gpu-blocks-override", 1},
};
static const char *const metric_prefixes[] = {"vllm:", NULL};
static const char *const metric_prefix_words[] = {NULL, NULL};
static const kv_engine_metrics vllm_metrics = {
    .prefixes = metric_prefixes,
    .prefix_words = metric_prefix_words,
    KV_TABLE(rows, metric_rows),
    KV_TABLE(labels, metric_labels),
    KV_TABLE(inputs, metric_inputs),
    .replica_label = "engine",
};

/* Short of host memory (pinned --cpu-offload-gb, the KV offloading tier, V0's swap space)
 * vLLM stops while allocating it: its start-up does not pass. */
static void vllm_host_refused(kv_result *r)
{
    if (r->vllm.fits) {
        r->vllm.fits = 0;
        r->vllm.refusal = KV_VLLM_HOST_SHORT;
    }
    r->vllm.max_model_len_fit = 0; /* no max_model_len starts it */
}

/* Prefix caching off (--no-enable-prefix-caching, V0's default, a model whose release turns
 * it off): no block is shared. */
static const char *vllm_prefix_note(const kv_spec *s, const kv_result *r)
{
    (void)s;
    return r->vllm.enable_prefix_caching ? NULL
                                         : "vLLM shares none of it here: prefix caching is off";
}

const kv_engine_desc kv_engine_vllm = {
    .id = E,
    .title = "vLLM",
    .budget_words = "vLLM's \"Available KV cache memory\"",
    .doc = "docs/vllm.md",
    .defaults = kv_vllm_defaults,
    .check = kv_vllm_check,
    .range_words = "the vLLM block or token count exceeds 2^63 - 1; kvcalc refuses rather than "
                   "cap it",
    .compute = kv_vllm_compute,
    .prefix_note = vllm_prefix_note,
    .host_refused = vllm_host_refused,
    .concurrency_at = kv_vllm_at,
    .relayout = kv_vllm_relayout,
    .kv8_name = "fp8",
    .params = kv_vllm_params,
    .draft_at = KV_DRAFT_AT(kv_vllm_spec, draft),
    KV_TABLE(json_flags, json_flags),
    .n_params = VLLM_PARAMS,
    KV_TABLE(fields, fields),
    .log = &vllm_log,
    .metrics = &vllm_metrics,
    .sched = kv_vllm_sched,
    .step_reads = kv_vllm_step_reads,
};
