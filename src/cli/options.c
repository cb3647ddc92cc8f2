/*
 * options.c - the flag table and the strict argument parser, in ISO C (no getopt).
 *
 * Values are checked strictly - an integer is [+-]digits and must fit in 64 bits, a number
 * is a decimal with an optional exponent and must be finite - because a calculator that
 * silently reads "4k" as 4 or "1e999" as infinity lies. Every error is one line that names
 * the flag as the user typed it, what it accepts and what it got.
 */
#include "options.h"

#include "format.h"
#include "keys.h"
#include "suggest.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_AT(m) offsetof(kv_spec, m)
#define ANY KV_ENGINE_COUNT

static const flag_choice engines[] = {{"ideal", KV_ENGINE_IDEAL}, {"vllm", KV_ENGINE_VLLM},
                                      {"sglang", KV_ENGINE_SGLANG}, {"trtllm", KV_ENGINE_TRTLLM},
                                      {"llama.cpp", KV_ENGINE_LLAMACPP},
                                      {"llamacpp", KV_ENGINE_LLAMACPP}, {NULL, 0}};
static const flag_choice flash_modes[] = {
    {"off", KV_FLASH_OFF}, {"on", KV_FLASH_ON}, {"auto", KV_FLASH_AUTO}, {NULL, 0}};
/* llama.cpp's -ctk / -ctv names, in kv_ggml_cache_type order */
static const flag_choice cache_types[] = {
    {"f32", KV_GGML_F32},   {"f16", KV_GGML_F16},       {"bf16", KV_GGML_BF16},
    {"q8_0", KV_GGML_Q8_0}, {"q4_0", KV_GGML_Q4_0},     {"q4_1", KV_GGML_Q4_1},
    {"iq4_nl", KV_GGML_IQ4_NL}, {"q5_0", KV_GGML_Q5_0}, {"q5_1", KV_GGML_Q5_1},
    {NULL, 0}};
static const flag_choice mamba_modes[] = {{"none", 0}, {"align", 1}, {NULL, 0}};
static const flag_choice v1_modes[] = {{"0", 0}, {"1", 1}, {NULL, 0}};
static const flag_choice quantizations[] = {
    {"fp8", KV_QUANTIZATION_FP8},     {"int8", KV_QUANTIZATION_INT8},
    {"awq", KV_QUANTIZATION_AWQ},     {"gptq", KV_QUANTIZATION_GPTQ},
    {"bitsandbytes", KV_QUANTIZATION_BITSANDBYTES}, {"mxfp4", KV_QUANTIZATION_MXFP4},
    {NULL, 0}};
static const flag_choice formats[] = {
    {"text", FORMAT_TEXT}, {"json", FORMAT_JSON}, {"csv", FORMAT_CSV}, {NULL, 0}};

#define INT_IN(fl, al, k, m, lo, st, clr, tok, sec, mt, h)                                   \
    {.name = fl, .alias = {al}, .arg = ARG_INT, .does = DO_SPEC, .offset = SPEC_AT(m), .key = k, \
     .min = lo, .tokens = tok, .model_sets = (clr) == CLEARS_GEOMETRY, .engine = ANY,            \
     .clears = clr, .blames = st,                                                              \
     .section = sec, .meta = mt, .help = h}
#define NUM_IN(fl, k, m, lo, excl, st, clr, sec, mt, h)                                           \
    {.name = fl, .arg = ARG_NUM, .does = DO_SPEC, .offset = SPEC_AT(m), .key = k, .min = lo, \
     .min_exclusive = excl, .engine = ANY, .clears = clr, .blames = st,                       \
     .model_sets = (clr) == CLEARS_ESTIMATE,                                                   \
     .section = sec, .meta = mt, .help = h}
#define VLLM_GIB(fl, k, m, h)                                                                \
    {.name = fl, .arg = ARG_NUM, .does = DO_SPEC, .offset = SPEC_AT(vllm.m), .key = k,       \
     .min = 0, .max = 1e12, .optional = 1, .auto_estimate = 1, .engine = KV_ENGINE_VLLM,        \
     .blames = KV_ERR_VLLM,                                                                    \
     .section = SECTION_VLLM, .meta = "GIB", .help = h}
#define SGLANG_NUM(fl, k, m, excl, hi, est, mt, h)                                              \
    {.name = fl, .arg = ARG_NUM, .does = DO_SPEC, .offset = SPEC_AT(sglang.m), .key = k,     \
     .min = 0, .min_exclusive = excl, .max = hi, .optional = 1, .auto_estimate = est,            \
     .engine = KV_ENGINE_SGLANG,                                                               \
     .blames = KV_ERR_SGLANG, .section = SECTION_SGLANG, .meta = mt, .help = h}
#define SGLANG_INT(fl, k, m, lo, hi, tok, h)                                                 \
    {.name = fl, .arg = ARG_INT, .does = DO_SPEC, .offset = SPEC_AT(sglang.m), .key = k,     \
     .min = lo, .max = hi, .optional = 1, .tokens = tok, .engine = KV_ENGINE_SGLANG,           \
     .blames = KV_ERR_SGLANG,                                                                  \
     .section = SECTION_SGLANG, .meta = "N", .help = h}
#define LLAMA_INT(fl, sh, k, m, lo, hi, opt, tok, mt, h)                                        \
    {.name = fl, .short_name = sh, .arg = ARG_INT, .does = DO_SPEC,                           \
     .offset = SPEC_AT(llamacpp.m), .key = k, .min = lo, .max = hi, .optional = opt,          \
     .tokens = tok,                                                                            \
     .engine = KV_ENGINE_LLAMACPP, .blames = KV_ERR_LLAMACPP, .section = SECTION_LLAMACPP,    \
     .meta = mt, .help = h}
#define LLAMA_CHOICE(fl, sh, k, m, ch, mt, h)                                                 \
    {.name = fl, .short_name = sh, .arg = ARG_CHOICE, .does = DO_SPEC,                        \
     .offset = SPEC_AT(llamacpp.m), .key = k, .choices = ch, .optional = 1,                    \
     .engine = KV_ENGINE_LLAMACPP, .blames = KV_ERR_LLAMACPP, .section = SECTION_LLAMACPP,    \
     .meta = mt, .help = h}
#define LLAMA_SWITCH(fl, sh, k, m, h)                                                         \
    {.name = fl, .short_name = sh, .arg = ARG_NONE, .does = DO_SPEC,                          \
     .offset = SPEC_AT(llamacpp.m), .key = k, .switch_value = 1,                              \
     .engine = KV_ENGINE_LLAMACPP, .blames = KV_ERR_LLAMACPP, .section = SECTION_LLAMACPP,    \
     .help = h}
#define ACTION(fl, sh, what, sec, h)                                                         \
    {.name = fl, .short_name = sh, .arg = ARG_NONE, .does = DO_ACTION, .switch_value = what,  \
     .engine = ANY, .section = sec, .help = h}
#define TEXT_OPT(fl, what, sec, mt, h)                                                       \
    {.name = fl, .arg = ARG_TEXT, .does = what, .engine = ANY, .section = sec, .meta = mt,    \
     .help = h}

const char *const kv_source_names[SOURCE_COUNT] = {
    [SOURCE_DEFAULT] = "default", [SOURCE_FLAG] = "flag",         [SOURCE_PRESET] = "preset",
    [SOURCE_CONFIG] = "config",   [SOURCE_CHECKPOINT] = "checkpoint", [SOURCE_ESTIMATE] = "estimate",
};

const kv_flag kv_flags[] = {
    /* the model, the GPU and the workload */
    INT_IN("layers", NULL, "layers", layers, 1, KV_ERR_LAYERS, CLEARS_GEOMETRY, 0,
           SECTION_MODEL, "N", "transformer layers (config.json: num_hidden_layers)"),
    INT_IN("kv-heads", NULL, "kv_heads", kv_heads, 1, KV_ERR_KV_HEADS, CLEARS_GEOMETRY, 0,
           SECTION_MODEL, "N", "KV heads (num_key_value_heads); fewer than attention heads = GQA"),
    INT_IN("head-dim", NULL, "head_dim", head_dim, 1, KV_ERR_HEAD_DIM, CLEARS_GEOMETRY, 0,
           SECTION_MODEL, "N",
           "elements per head (head_dim, or hidden_size / num_attention_heads)"),
    {.name = "dtype", .alias = {"kv-cache-dtype"}, .arg = ARG_DTYPE, .does = DO_SPEC, .model_sets = 1,
     .offset = SPEC_AT(dtype), .key = "dtype", .engine = ANY, .blames = KV_ERR_DTYPE,
     .section = SECTION_MODEL, .meta = "DTYPE",
     .help = "KV cache element type; alias --kv-cache-dtype (auto = the model's)"},
    NUM_IN("params-b", "params_b", params_b, 0, 0, KV_ERR_PARAMS_B, CLEARS_ESTIMATE,
           SECTION_MODEL, "B", "model size in billions of parameters (for the weights)"),
    {.name = "weight-dtype", .arg = ARG_DTYPE, .does = DO_SPEC, .offset = SPEC_AT(weight_dtype),
     .model_sets = 1,
     .key = "weight_dtype", .engine = ANY, .clears = CLEARS_QUANT,
     .blames = KV_ERR_WEIGHT_DTYPE, .section = SECTION_MODEL, .meta = "DTYPE",
     .help = "element type every weight is loaded in"},
    {.name = "quantization", .short_name = "q", .arg = ARG_CHOICE, .does = DO_SPEC,
     .offset = SPEC_AT(quantization), .key = "quantization", .choices = quantizations,
     .optional = 1, .engine = ANY, .clears = CLEARS_QUANT | CLEARS_STORAGE,
     .blames = KV_ERR_WEIGHT_DTYPE,
     .section = SECTION_MODEL, .meta = "METHOD",
     .help = "the checkpoint's quantization (vLLM's names: fp8 int8 awq gptq bitsandbytes "
             "mxfp4): linear layers quantized, embeddings and head not"},
    NUM_IN("gpu-mem-gib", "gpu_mem_gib", gpu_mem_gib, 0, 1, KV_ERR_GPU_MEM, CLEARS_GPU,
           SECTION_GPU, "GIB", "GPU memory in GiB (2^30 bytes)"),
    NUM_IN("overhead-gib", "overhead_gib", overhead_gib, 0, 0, KV_ERR_OVERHEAD, 0,
           SECTION_GPU, "GIB", "reserve for activations / CUDA context, in GiB"),
    {.name = "context", .alias = {"max-model-len", "context-length"}, .arg = ARG_INT,
     .does = DO_SPEC, .offset = SPEC_AT(context), .key = "context", .min = 1, .tokens = 1,
     .engine = ANY, .blames = KV_ERR_CONTEXT, .section = SECTION_WORKLOAD, .meta = "N",
     .help = "tokens per request (prompt + generated); alias --max-model-len, --context-length"},
    INT_IN("prefix-tokens", NULL, "prefix_tokens", prefix_tokens, 0, KV_ERR_PREFIX_TOKENS, 0,
           1, SECTION_WORKLOAD, "N", "length of a prompt prefix shared by requests"),
    INT_IN("prefix-requests", NULL, "prefix_requests", prefix_requests, 1,
           KV_ERR_PREFIX_REQUESTS, 0, 0, SECTION_WORKLOAD, "N",
           "how many requests share that prefix"),
    {.name = "tensor-parallel-size", .alias = {"tp", "tp-size"}, .arg = ARG_INT, .does = DO_SPEC,
     .offset = SPEC_AT(tp), .key = "tensor_parallel_size", .min = 1, .engine = ANY,
     .blames = KV_ERR_TP, .section = SECTION_GPU, .meta = "N",
     .help = "GPUs one replica is split over; figures become per GPU; alias --tp, --tp-size"},
    {.name = "pipeline-parallel-size", .alias = {"pp"}, .arg = ARG_INT, .does = DO_SPEC,
     .offset = SPEC_AT(pp), .key = "pipeline_parallel_size", .min = 1, .max = 1024,
     .engine = ANY, .blames = KV_ERR_PARALLEL, .section = SECTION_GPU, .meta = "N",
     .help = "pipeline stages per replica: each GPU holds its stage's layers (vLLM's split); "
             "alias --pp"},
    {.name = "data-parallel-size", .alias = {"dp"}, .arg = ARG_INT, .does = DO_SPEC,
     .offset = SPEC_AT(dp), .key = "data_parallel_size", .min = 1, .max = 1000000,
     .engine = ANY, .blames = KV_ERR_PARALLEL, .section = SECTION_GPU, .meta = "N",
     .help = "replicas: deployment_max_concurrency = replica's x N; alias --dp"},
    {.name = "enable-expert-parallel", .arg = ARG_NONE, .does = DO_SPEC,
     .offset = SPEC_AT(expert_parallel), .key = "expert_parallel", .switch_value = 1,
     .engine = ANY, .blames = KV_ERR_PARALLEL, .section = SECTION_GPU,
     .help = "MoE experts split across the tp x dp GPUs (fewer expert weights per GPU)"},
    {.name = "engine", .arg = ARG_CHOICE, .does = DO_SPEC, .offset = SPEC_AT(engine),
     .key = "engine", .choices = engines, .engine = ANY, .blames = KV_ERR_ENGINE,
     .section = SECTION_ENGINE, .meta = "NAME",
     .help = "the serving engine whose allocation answers: ideal, vllm, sglang, trtllm or "
             "llama.cpp"},
    TEXT_OPT("config", DO_MODEL_FILE, SECTION_MODEL, "FILE",
             "read the model from a Hugging Face config.json (- = stdin)"),
    TEXT_OPT("model", DO_MODEL_NAME, SECTION_MODEL, "NAME",
             "a built-in model: Hugging Face id or short alias (--list-models)"),
    TEXT_OPT("gpu", DO_GPU, SECTION_GPU, "NAME",
             "a built-in GPU: its memory as the driver reports it (--list-gpus)"),

    /* vLLM */
    {.name = "gpu-memory-utilization", .arg = ARG_NUM, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.util), .key = "gpu_memory_utilization", .min = 0,
     .min_exclusive = 1, .max = 1, .optional = 1, .engine = KV_ENGINE_VLLM,
     .blames = KV_ERR_VLLM, .section = SECTION_VLLM, .meta = "U",
     .help = "fraction of the GPU vLLM may use [0.9; 0.92 from 0.21]"},
    {.name = "block-size", .arg = ARG_INT, .does = DO_SPEC, .offset = SPEC_AT(vllm.block_size),
     .key = "block_size", .min = 1, .max = 1048576, .optional = 1, .engine = KV_ENGINE_VLLM,
     .blames = KV_ERR_VLLM, .section = SECTION_VLLM, .meta = "N",
     .help = "tokens per KV block [auto: 16, 64 for MLA]"},
    {.name = "max-num-batched-tokens", .arg = ARG_INT, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.max_num_batched_tokens), .key = "max_num_batched_tokens", .min = 1,
     .tokens = 1,
     .max = 1099511627776.0, .optional = 1, .engine = KV_ENGINE_VLLM, .blames = KV_ERR_VLLM,
     .section = SECTION_VLLM, .meta = "N",
     .help = "scheduler token budget [auto: 8192 on >= 70 GiB non-A100 GPUs, else 2048; "
             "V0: max(context, 2048), 2048 above 32K]"},
    {.name = "max-num-seqs", .arg = ARG_INT, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.max_num_seqs), .key = "max_num_seqs", .min = 1, .max = 16777216,
     .optional = 1, .engine = KV_ENGINE_VLLM, .blames = KV_ERR_VLLM, .section = SECTION_VLLM,
     .meta = "N", .help = "sequences per step; sizes the sampler's profile run [auto: 1024 on "
                          ">= 70 GiB non-A100 GPUs from 0.8 (V1), else 256]"},
    VLLM_GIB("weights-gib", "weights_gib", weights_gib,
             "weights per GPU (\"Model loading took X GiB\") [auto: estimate]"),
    VLLM_GIB("activation-gib", "activation_gib", activation_gib,
             "activation peak per GPU [auto: estimate from the vocabulary, max-num-seqs "
             "and the batch]"),
    VLLM_GIB("non-torch-gib", "non_torch_gib", non_torch_gib,
             "non-torch memory per GPU [auto: 0.13 (0.06 under 70 GiB), 0.5 with TP]"),
    VLLM_GIB("cuda-graph-gib", "cuda_graph_gib", cuda_graph_gib,
             "CUDA graphs inside the budget [auto: 0 before 0.21, 0.5 from 0.21]"),
    VLLM_GIB("kv-cache-memory-gib", "kv_cache_memory_gib", kv_cache_memory_gib,
             "use this \"Available KV cache memory\" per GPU (from a log)"),
    {.name = "num-gpu-blocks-override", .arg = ARG_INT, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.num_gpu_blocks_override), .key = "num_gpu_blocks_override",
     .min = 1, .optional = 1, .engine = KV_ENGINE_VLLM, .blames = KV_ERR_VLLM,
     .section = SECTION_VLLM, .meta = "N", .help = "use this block count (as vLLM's flag does)"},
    {.name = "vllm-version", .arg = ARG_VERSION, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.version), .key = "vllm_version", .engine = KV_ENGINE_VLLM,
     .blames = KV_ERR_VLLM, .section = SECTION_VLLM, .meta = "0.N",
     .help = "the vLLM release whose rules apply (0.11, 0.10.1) [0.11]"},
    {.name = "vllm-use-v1", .arg = ARG_CHOICE, .does = DO_SPEC, .offset = SPEC_AT(vllm.use_v1),
     .key = "vllm_use_v1", .choices = v1_modes, .optional = 1, .engine = KV_ENGINE_VLLM,
     .blames = KV_ERR_VLLM, .section = SECTION_VLLM, .meta = "0|1",
     .help = "VLLM_USE_V1: 0 the V0 engine (its defaults and lines), 1 V1 [V1 from 0.8]"},
    {.name = "swap-space", .arg = ARG_NUM, .does = DO_SPEC, .offset = SPEC_AT(vllm.swap_space_gib),
     .key = "swap_space_gib", .min = 0, .max = 1e6, .engine = KV_ENGINE_VLLM,
     .blames = KV_ERR_VLLM, .section = SECTION_VLLM, .meta = "GIB",
     .help = "V0's CPU swap space per GPU, GiB (\"# CPU blocks\") [4]"},
    {.name = "enforce-eager", .arg = ARG_NONE, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.enforce_eager), .key = "enforce_eager", .switch_value = 1,
     .engine = KV_ENGINE_VLLM, .blames = KV_ERR_VLLM, .section = SECTION_VLLM,
     .help = "no CUDA graphs (from 0.21 none in the budget)"},
    {.name = "language-model-only", .arg = ARG_NONE, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.language_model_only), .key = "language_model_only",
     .switch_value = 1, .engine = KV_ENGINE_VLLM, .blames = KV_ERR_VLLM,
     .section = SECTION_VLLM, .help = "no multimodal encoder profile run (the towers stay loaded)"},
    {.name = "disable-hybrid-kv-cache-manager", .arg = ARG_NONE, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.hybrid_manager), .key = "hybrid_kv_cache_manager",
     .switch_value = 0, .engine = KV_ENGINE_VLLM, .blames = KV_ERR_VLLM,
     .section = SECTION_VLLM, .help = "treat sliding and chunked layers as full attention"},
    {.name = "mla-align-kv-cache", .arg = ARG_NONE, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.mla_align), .key = "mla_align_kv_cache", .switch_value = 1,
     .engine = KV_ENGINE_VLLM, .blames = KV_ERR_VLLM, .section = SECTION_VLLM,
     .help = "V0's VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1: MLA latents padded to 256 bytes"},
    {.name = "mamba-cache-mode", .arg = ARG_CHOICE, .does = DO_SPEC,
     .offset = SPEC_AT(vllm.mamba_align), .key = "mamba_cache_mode", .choices = mamba_modes,
     .engine = KV_ENGINE_VLLM, .blames = KV_ERR_VLLM, .section = SECTION_VLLM, .meta = "MODE",
     .help = "none (1 block per request) or align (2)"},

    /* SGLang (docs/sglang.md) */
    SGLANG_NUM("mem-fraction-static", "mem_fraction_static", mem_fraction_static, 1, 1, 0, "F",
               "SGLang's static fraction [auto: the version's rule for the GPU and TP]"),
    SGLANG_NUM("avail-mem-before-load-gib", "avail_mem_before_load_gib", avail_before_gib, 0, 1e6,
               1, "GIB", "\"Load weight begin. avail mem=P GB\" [auto: estimate]"),
    SGLANG_NUM("avail-mem-after-load-gib", "avail_mem_after_load_gib", avail_after_gib, 0, 1e6,
               1, "GIB", "\"Load weight end. ... avail mem=A GB\" [auto: estimate]"),
    SGLANG_INT("page-size", "page_size", page_size, 1, 1048576, 0, "tokens per page [1]"),
    SGLANG_INT("max-total-tokens", "max_total_tokens", max_total_tokens, 1, 0, 1,
               "cap on the token pool (SGLang's flag)"),
    SGLANG_INT("chunked-prefill-size", "chunked_prefill_size", chunked_prefill_size, 1,
               1099511627776.0, 1, "enters the default fraction from 0.5.3rc2 [auto: by the GPU]"),
    SGLANG_INT("cuda-graph-max-bs", "cuda_graph_max_bs", cuda_graph_max_bs, 1, 1048576, 0,
               "enters the default fraction from 0.5.3rc2 [auto: by the GPU and TP]"),
    {.name = "sglang-version", .arg = ARG_SGLANG_VERSION, .does = DO_SPEC,
     .offset = SPEC_AT(sglang.version), .key = "sglang_version", .engine = KV_ENGINE_SGLANG,
     .blames = KV_ERR_SGLANG, .section = SECTION_SGLANG, .meta = "X.Y.Z",
     .help = "the SGLang release whose rules apply [0.5.6]"},
    /* TensorRT-LLM (docs/trtllm.md) */
    {.name = "free-gpu-memory-fraction", .arg = ARG_NUM, .does = DO_SPEC,
     .offset = SPEC_AT(trtllm.fraction), .key = "free_gpu_memory_fraction", .min = 0,
     .min_exclusive = 1, .max = 1, .engine = KV_ENGINE_TRTLLM, .blames = KV_ERR_TRTLLM,
     .section = SECTION_TRTLLM, .meta = "F", .help = "share of the free memory for KV, below 1"},
    {.name = "tokens-per-block", .arg = ARG_INT, .does = DO_SPEC,
     .offset = SPEC_AT(trtllm.tokens_per_block), .key = "tokens_per_block", .min = 1,
     .max = 1048576, .engine = KV_ENGINE_TRTLLM, .blames = KV_ERR_TRTLLM,
     .section = SECTION_TRTLLM, .meta = "N", .help = "tokens per KV block"},
    {.name = "max-tokens", .arg = ARG_INT, .does = DO_SPEC, .offset = SPEC_AT(trtllm.max_tokens),
     .key = "max_tokens", .min = 1, .tokens = 1, .max = 4e18, .optional = 1,
     .engine = KV_ENGINE_TRTLLM,
     .blames = KV_ERR_TRTLLM, .section = SECTION_TRTLLM, .meta = "N",
     .help = "cap the KV cache at N tokens (KvCacheConfig.max_tokens)"},
    {.name = "free-mem-gib", .arg = ARG_NUM, .does = DO_SPEC, .offset = SPEC_AT(trtllm.free_mem_gib),
     .key = "free_mem_gib", .min = 0, .max = 1e12, .optional = 1, .auto_estimate = 1,
     .engine = KV_ENGINE_TRTLLM,
     .blames = KV_ERR_TRTLLM, .section = SECTION_TRTLLM, .meta = "GIB",
     .help = "the log's \"available: F GiB\" [auto: GPU - weights - overhead, an estimate]"},

    /* llama.cpp (docs/llamacpp.md): its own names, short ones included */
    LLAMA_INT("llamacpp-build", NULL, "llamacpp_build", build, 1, 1000000, 0, 0, "N",
              "the llama.cpp build whose rules apply (newer: the newest) [10573]"),
    LLAMA_INT("ctx-size", "c", "ctx_size", ctx_size, 0, 1099511627776.0, 1, 1, "N",
              "n_ctx: cells of the cache, all slots; 0 = the model's context_length "
              "[auto: the build's default]"),
    LLAMA_INT("parallel", "np", "parallel", parallel, 1, 1000000, 1, 0, "N",
              "slots (sequences) [auto: llama-server's, 4 unified from b6925, else 1]"),
    LLAMA_SWITCH("kv-unified", "kvu", "kv_unified", kv_unified,
                 "one cache stream shared by every slot"),
    LLAMA_SWITCH("swa-full", NULL, "swa_full", swa_full,
                 "sliding-window layers keep a full-size cache"),
    LLAMA_CHOICE("flash-attn", "fa", "flash_attn", flash_attn, flash_modes, "MODE",
                 "on, off or auto [auto: auto from b6325, else off]"),
    LLAMA_CHOICE("cache-type-k", "ctk", "cache_type_k", type_k, cache_types, "TYPE",
                 "K cache type: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1 [f16]"),
    LLAMA_CHOICE("cache-type-v", "ctv", "cache_type_v", type_v, cache_types, "TYPE",
                 "V cache type (quantized needs flash attention) [f16]"),
    LLAMA_INT("batch-size", "b", "batch_size", batch_size, 1, 1000000000, 0, 1, "N",
              "logical batch: the micro-batch is at most this"),
    LLAMA_INT("ubatch-size", "ub", "ubatch_size", ubatch_size, 1, 1000000000, 0, 1, "N",
              "micro-batch: sizes the sliding-window cache and compute buffer"),
    LLAMA_INT("n-gpu-layers", "ngl", "n_gpu_layers", n_gpu_layers, 0, 1000000, 1, 0, "N",
              "layers on the GPU (+1 = the output layer) [auto: all from b6325, else 0]"),

    /* planning */
    {.name = "target-concurrency", .arg = ARG_INT, .does = DO_TARGET, .min = 1, .engine = ANY,
     .section = SECTION_PLAN, .meta = "N",
     .help = "plan for N requests in flight: memory, replicas, which GPU"},
    {.name = "gpus", .arg = ARG_INT, .does = DO_GPUS, .min = 1, .max = 1048576, .engine = ANY,
     .section = SECTION_PLAN, .meta = "N",
     .help = "I have N GPUs: every TP x PP x DP layout and the best (with a target, the fewest "
             "GPUs that hold it)"},
    {.name = "levers", .arg = ARG_NONE, .does = DO_LEVERS, .engine = ANY,
     .section = SECTION_PLAN, .help = "what half the context, fp8 KV, int8/int4 weights and offload buy"},
    {.name = "offload-gib", .arg = ARG_NUM, .does = DO_OFFLOAD, .min = 0, .max = 1e12,
     .engine = ANY, .section = SECTION_PLAN, .meta = "GIB",
     .help = "with --levers: a CPU-memory KV tier of GIB (capacity only)"},
    TEXT_OPT("require", DO_REQUIRE, SECTION_PLAN, "EXPR",
             "exit 1 unless EXPR holds, e.g. 'max_concurrency>=64' (repeatable)"),
    TEXT_OPT("sweep", DO_SWEEP, SECTION_PLAN, "KEY=VALUES",
             "one row per point of a grid: V1,V2 or A..B*F or A..B+S (repeatable)"),
    TEXT_OPT("plot", DO_PLOT, SECTION_PLAN, "FILE",
             "also write an SVG chart of context vs concurrency and memory"),
    TEXT_OPT("from-log", DO_FROM_LOG, SECTION_PLAN, "FILE",
             "compare with a vLLM/SGLang/llama.cpp startup log (- = stdin); "
             "docs/from-log.md"),

    /* output and information */
    {.name = "format", .arg = ARG_CHOICE, .does = DO_FORMAT, .choices = formats, .engine = ANY,
     .section = SECTION_OUTPUT, .meta = "FMT",
     .help = "output format: text (the lesson's table), json or csv [text]"},
    TEXT_OPT("get", DO_GET, SECTION_OUTPUT, "KEY", "print only this top-level value, on one line"),
    ACTION("list-models", NULL, ACTION_LIST_MODELS, SECTION_OUTPUT, "list the built-in models and exit"),
    ACTION("list-gpus", NULL, ACTION_LIST_GPUS, SECTION_OUTPUT, "list the built-in GPUs and exit"),
    ACTION("help", "h", ACTION_HELP, SECTION_OUTPUT, "show this help and exit"),
    ACTION("version", NULL, ACTION_VERSION, SECTION_OUTPUT, "print the version and exit"),
};
const size_t kv_flags_count = sizeof kv_flags / sizeof kv_flags[0];
_Static_assert(sizeof kv_flags / sizeof kv_flags[0] <= KV_MAX_FLAGS, "raise KV_MAX_FLAGS");

/* ---- messages ------------------------------------------------------------------------- */

int kv_fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, cap, "kvcalc: ");
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < cap)
        vsnprintf(err + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    return KV_USAGE_ERROR;
}

const char *kv_safe(char *buf, size_t cap, const char *text, size_t limit)
{
    size_t n = 0, i = 0;
    if (cap < 4) {
        if (cap)
            buf[0] = '\0';
        return buf;
    }
    for (; text[i] && (limit == 0 || i < limit) && n + 4 < cap; i++) {
        unsigned char c = (unsigned char)text[i];
        unsigned char next = (unsigned char)text[i + 1];
        if (c == 0xc2 && next >= 0x80 && next <= 0x9f) { /* a C1 control, UTF-8 encoded */
            buf[n++] = '?';
            i++;
            continue;
        }
        buf[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (text[i]) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

#define SHOWN 200 /* the longest piece of a bad argument an error quotes */

/* Joins names into buf: name(ctx, i) for i < count, skipping NULLs, `sep` between. One
 * helper for every "expected one of: ..." list (dtypes, keys, GPUs, choices). */
typedef const char *(*name_at)(const void *ctx, size_t i);

static void join_names(char *buf, size_t cap, const char *sep, size_t count, name_at name,
                       const void *ctx)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count && n < cap; i++) {
        const char *s = name(ctx, i);
        if (!s)
            continue;
        int w = snprintf(buf + n, cap - n, "%s%s", n ? sep : "", s);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

static const char *choice_name(const void *ctx, size_t i)
{
    return ((const flag_choice *)ctx)[i].name;
}

static size_t choice_count(const flag_choice *c)
{
    size_t n = 0;
    while (c[n].name)
        n++;
    return n;
}

void kv_flag_accepts(const kv_flag *f, char *buf, size_t cap)
{
    char names[1024], upper[64] = "";
    if (f->max > 0)
        snprintf(upper, sizeof upper, " and <= %.15g", f->max);
    switch (f->arg) {
    case ARG_INT:
        snprintf(buf, cap, "an integer >= %.0f%s%s", f->min, upper,
                 f->tokens ? " (or 32k = 32,000, 32K = 32,768, 1m, 1M)" : "");
        break;
    case ARG_NUM:
        snprintf(buf, cap, "a finite number %s %g%s", f->min_exclusive ? ">" : ">=", f->min,
                 upper);
        break;
    case ARG_DTYPE: {
        size_t n = (size_t)snprintf(names, sizeof names, "one of:");
        for (size_t i = 0; i < KV_DTYPE_COUNT && n < sizeof names; i++)
            n += (size_t)snprintf(names + n, sizeof names - n, " %s", kv_dtype_get((kv_dtype)i)->name);
        if (n < sizeof names)
            n += (size_t)snprintf(names + n, sizeof names - n, " auto");
        for (size_t i = 0; kv_dtype_spelling(i) && n < sizeof names; i++)
            n += (size_t)snprintf(names + n, sizeof names - n, " %s", kv_dtype_spelling(i));
        snprintf(buf, cap, "%s", names);
        break;
    }
    case ARG_CHOICE:
        join_names(names, sizeof names, " ", choice_count(f->choices), choice_name, f->choices);
        snprintf(buf, cap, "one of: %s", names);
        break;
    case ARG_NONE:
        snprintf(buf, cap, "no value");
        break;
    case ARG_VERSION:
        snprintf(buf, cap, "a vLLM version such as 0.11 or 0.10.1.1");
        break;
    case ARG_SGLANG_VERSION:
        snprintf(buf, cap, "an SGLang version such as 0.4.6, 0.4.3.post4 or 0.5.3rc2");
        break;
    case ARG_TEXT:
        snprintf(buf, cap, "%s", f->meta);
        break;
    }
}

/* ---- value syntax --------------------------------------------------------------------- */

/* [+-]digits, fitting in int64. Returns 0, -1 (syntax) or -2 (does not fit). */
static int parse_int(const char *t, int64_t *out)
{
    int neg = 0;
    if (*t == '+' || *t == '-')
        neg = (*t++ == '-');
    if (!isdigit((unsigned char)*t))
        return -1;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    int overflow = 0;
    for (; isdigit((unsigned char)*t); t++) {
        unsigned d = (unsigned)(*t - '0');
        if (v > (limit - d) / 10)
            overflow = 1;
        else
            v = v * 10 + d;
    }
    if (*t)
        return -1;
    if (overflow)
        return -2;
    if (neg)
        *out = (v == (uint64_t)INT64_MAX + 1u) ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 0;
}

/* vLLM's human-readable token counts: digits[.digits] then k, m, g, t (10^3, 10^6, 10^9,
 * 10^12: "25.6k" = 25,600) or digits then K, M, G, T (2^10 ... 2^40: "1K" = 1,024; no
 * decimals, as in vLLM). The result must be a whole number: "1.0005k" is refused, not
 * rounded. Returns 0, -1 (not this form), -2 (does not fit), -3 (not whole), -4 (a decimal
 * with a binary suffix). */
static int parse_tokens(const char *t, int64_t *out)
{
    static const char dec[] = "kmgt", bin[] = "KMGT";
    size_t n = strlen(t);
    if (n < 2 || !isdigit((unsigned char)t[0]))
        return -1;
    const char *pd = strchr(dec, t[n - 1]), *pb = strchr(bin, t[n - 1]);
    if (!t[n - 1] || (!pd && !pb))
        return -1;
    int binary = pb != NULL;
    uint64_t mult = 1, whole = 0, frac = 0, frac_den = 1;
    for (int p = 0; p <= (binary ? pb - bin : pd - dec); p++)
        mult *= binary ? 1024 : 1000;
    const char *p = t;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return -2;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        if (binary)
            return -4;
        const char *digits = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        size_t len = (size_t)(p - digits);
        while (len > 0 && digits[len - 1] == '0') /* 25.600k is 25.6k */
            len--;
        for (size_t i = 0; i < len; i++) {
            if (frac_den == mult) /* more decimals than the suffix scales: not whole */
                return -3;
            frac = frac * 10 + (uint64_t)(digits[i] - '0');
            frac_den *= 10;
        }
    }
    if (p != t + n - 1)
        return -1;
    if (whole > (uint64_t)INT64_MAX / mult)
        return -2;
    /* frac_den is a power of ten dividing mult: frac x (mult / frac_den) is exact and < mult */
    uint64_t v = whole * mult + frac * (mult / frac_den);
    if (v > (uint64_t)INT64_MAX)
        return -2;
    *out = (int64_t)v;
    return 0;
}

int kv_parse_number(const char *t, double *out)
{
    const char *p = t;
    size_t digits = 0;
    if (*p == '+' || *p == '-')
        p++;
    for (; isdigit((unsigned char)*p); p++)
        digits++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            digits++;
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return -1;
    double v = strtod(t, NULL); /* reads the whole text, however long */
    if (!isfinite(v))
        return -2; /* underflow to 0 or a subnormal is what Python gives too: accepted */
    *out = v == 0 ? 0.0 : v; /* -0 is 0 */
    return 0;
}

/* Up to 3 digits at *t (0..999); advances *t; -1 when there are none or too many. */
static long version_part(const char **t)
{
    long v = 0;
    int digits = 0;
    for (; isdigit((unsigned char)**t) && digits < 4; (*t)++, digits++)
        v = v * 10 + (**t - '0');
    return digits == 0 || v >= 1000 ? -1 : v;
}

/* "0.11" -> 1100, "v0.10.1.1" -> 1001, "0.11.0rc2" -> 1100: MINOR x 100 + PATCH (at most
 * 99). Only 0.x releases exist in kvcalc's rules. */
static int parse_version(const char *t, int *version)
{
    if (*t == 'v')
        t++;
    if (t[0] != '0' || t[1] != '.')
        return -1;
    t += 2;
    long minor = version_part(&t), patch = 0;
    if (minor < 0)
        return -1;
    if (*t == '.' && isdigit((unsigned char)t[1])) {
        t++;
        if ((patch = version_part(&t)) < 0)
            return -1;
    }
    if (*t != '\0' && *t != '.' && *t != 'r' && *t != '-' && *t != '+')
        return -1;
    if (patch > 99) /* no vLLM release has one; refused rather than capped */
        return -1;
    *version = (int)(minor * 100 + patch);
    return 0;
}

int kv_flag_value(const kv_flag *f, const char *typed, const char *text, kv_value *v, char *err,
                  size_t cap)
{
    char want[1200], shown[SHOWN + 8];
    if (f->arg == ARG_NONE || f->arg == ARG_TEXT) { /* no value, or a text kept as typed */
        v->e = f->switch_value;
        return 0;
    }
    kv_flag_accepts(f, want, sizeof want);
    kv_safe(shown, sizeof shown, text, SHOWN);
    switch (f->arg) {
    case ARG_NONE:
    case ARG_TEXT:
        return 0;
    case ARG_DTYPE:
        if (strcmp(text, "auto") == 0)
            return 1;
        if (kv_dtype_from_name(text, &v->t) != 0) {
            char hint[160];
            return kv_fail(err, cap, "%s: unknown dtype '%s'%s (expected %s)", typed, shown,
                           kv_hint_dtype(text, hint, sizeof hint), want);
        }
        return 0;
    case ARG_CHOICE:
        for (const flag_choice *c = f->choices; c->name; c++) {
            if (strcmp(c->name, text) == 0) {
                v->e = c->value;
                return 0;
            }
        }
        {
            kv_suggestion sg;
            char hint[160];
            kv_suggest_init(&sg, text);
            for (const flag_choice *c = f->choices; c->name; c++)
                kv_suggest_try(&sg, c->name, strlen(c->name));
            return kv_fail(err, cap, "%s: unknown value '%s'%s (expected %s)", typed, shown,
                           kv_suggest_hint(&sg, "", hint, sizeof hint), want);
        }
    case ARG_VERSION:
        if (parse_version(text, &v->e) != 0)
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want, shown);
        return 0;
    case ARG_SGLANG_VERSION:
        if (kv_sglang_version_parse(text, &v->e) != 0)
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want, shown);
        return 0;
    case ARG_INT: {
        int rc = parse_int(text, &v->i);
        if (rc == -1 && f->tokens) {
            rc = parse_tokens(text, &v->i);
            if (rc == -3)
                return kv_fail(err, cap, "%s: '%s' is not a whole number of tokens", typed, shown);
            if (rc == -4)
                return kv_fail(err, cap, "%s: '%s': decimals are not allowed with the binary "
                                         "suffixes K, M, G, T (did you mean '%.*s%c'?)",
                               typed, shown, (int)(strlen(text) - 1), text,
                               tolower((unsigned char)text[strlen(text) - 1]));
        }
        if (rc == -2)
            return kv_fail(err, cap, "%s: expected %s, got '%s' (too large: at most %lld)",
                           typed, want, shown, (long long)INT64_MAX);
        if (rc != 0 || (double)v->i < f->min || (f->max > 0 && (double)v->i > f->max))
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want, shown);
        return 0;
    }
    case ARG_NUM: {
        int rc = kv_parse_number(text, &v->d);
        if (rc == -2)
            return kv_fail(err, cap, "%s: expected %s, got '%s' (too large for a double)",
                           typed, want, shown);
        if (rc != 0 || (f->min_exclusive ? !(v->d > f->min) : !(v->d >= f->min)) ||
            (f->max > 0 && v->d > f->max))
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want, shown);
        return 0;
    }
    }
    return 0;
}

/* ---- the table's helpers -------------------------------------------------------------- */

static int name_is(const char *name, const char *flag, size_t len)
{
    return name && strlen(name) == len && memcmp(name, flag, len) == 0;
}

/* The spelling of f that name is (its name or one of its aliases), or NULL. */
static const char *spelling(const kv_flag *f, const char *name, size_t len)
{
    if (name_is(f->name, name, len))
        return f->name;
    for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
        if (name_is(f->alias[a], name, len))
            return f->alias[a];
    return NULL;
}

const kv_flag *kv_flag_find(const char *name, size_t len)
{
    for (size_t i = 0; i < kv_flags_count; i++)
        if (spelling(&kv_flags[i], name, len))
            return &kv_flags[i];
    return NULL;
}

const kv_flag *kv_flag_find_short(const char *name, size_t len)
{
    for (size_t i = 0; i < kv_flags_count; i++)
        if (name_is(kv_flags[i].short_name, name, len))
            return &kv_flags[i];
    return NULL;
}

const kv_flag *kv_flag_blamed(kv_status st)
{
    for (size_t i = 0; i < kv_flags_count; i++)
        if (kv_flags[i].blames == st && st != KV_OK)
            return &kv_flags[i];
    return NULL;
}

size_t kv_flag_size(const kv_flag *f)
{
    switch (f->arg) {
    case ARG_INT:
        return sizeof(int64_t);
    case ARG_NUM:
        return sizeof(double);
    case ARG_DTYPE:
        return sizeof(kv_dtype);
    default:
        return sizeof(int);
    }
}

int kv_flag_is_string(const kv_flag *f, const char *text)
{
    if (strcmp(text, "null") == 0)
        return 0;
    return f->arg == ARG_DTYPE || f->arg == ARG_CHOICE || f->arg == ARG_VERSION ||
           f->arg == ARG_SGLANG_VERSION;
}

static const char *choice_of(const flag_choice *c, int value)
{
    for (; c->name; c++)
        if (c->value == value)
            return c->name;
    return "?";
}

char *kv_flag_text(char *buf, size_t cap, const kv_spec *s, const kv_flag *f)
{
    const char *at = (const char *)s + f->offset;
    int64_t i;
    double d;
    kv_dtype t;
    int e;
    switch (f->arg) {
    case ARG_INT:
        memcpy(&i, at, sizeof i);
        if (f->optional && (double)i < f->min)
            break;
        return fmt_int(buf, cap, i, 0);
    case ARG_NUM:
        memcpy(&d, at, sizeof d);
        if (f->optional && d < f->min)
            break;
        return fmt_json_number(buf, cap, d);
    case ARG_DTYPE:
        memcpy(&t, at, sizeof t);
        snprintf(buf, cap, "%s", kv_dtype_get(t)->name);
        return buf;
    case ARG_CHOICE:
        memcpy(&e, at, sizeof e);
        if (f->optional && e < 0) /* not given: the engine's default */
            break;
        snprintf(buf, cap, "%s", choice_of(f->choices, e));
        return buf;
    case ARG_NONE:
        memcpy(&e, at, sizeof e);
        snprintf(buf, cap, "%s", e ? "true" : "false");
        return buf;
    case ARG_VERSION:
        memcpy(&e, at, sizeof e);
        kv_vllm_version_format(e, buf, cap);
        return buf;
    case ARG_SGLANG_VERSION:
        memcpy(&e, at, sizeof e);
        kv_sglang_version_format(e, buf, cap);
        return buf;
    case ARG_TEXT:
        break;
    }
    snprintf(buf, cap, "null");
    return buf;
}

/* ---- requirements --------------------------------------------------------------------- */

static const struct {
    const char *text;
    req_op op;
} req_ops[] = {{">=", REQ_GE}, {"<=", REQ_LE}, {"==", REQ_EQ}, {">", REQ_GT}, {"<", REQ_LT}};
#define N_REQ_OPS (sizeof req_ops / sizeof req_ops[0])

/* The i-th key of both tables (kv_keys, then the --from-log keys not already named). */
static const kv_key *any_key(size_t i)
{
    if (i < kv_keys_count)
        return &kv_keys[i];
    const kv_key *k = &kv_log_keys[i - kv_keys_count];
    return kv_key_find(k->name) == k ? k : NULL;
}
#define ANY_KEYS (kv_keys_count + kv_log_keys_count)

static const char *numeric_key_name(const void *ctx, size_t i)
{
    (void)ctx;
    const kv_key *k = any_key(i);
    return k && kv_key_is_numeric(k) ? k->name : NULL;
}

static const char *key_name(const void *ctx, size_t i)
{
    (void)ctx;
    const kv_key *k = any_key(i);
    return k ? k->name : NULL;
}

/* "max_concurrency>=64": a numeric output key, an operator, a number; spaces allowed. The
 * number is read whole, however long. */
static int parse_requirement(const char *text, kv_requirement *q, char *err, size_t cap)
{
    char shown[SHOWN + 8], key[64];
    const char *p = text;
    size_t k = 0;
    while (*p == ' ')
        p++;
    while ((isalnum((unsigned char)*p) || *p == '_') && k + 1 < sizeof key)
        key[k++] = *p++;
    key[k] = '\0';
    while (*p == ' ')
        p++;
    size_t o;
    for (o = 0; o < N_REQ_OPS; o++)
        if (strncmp(p, req_ops[o].text, strlen(req_ops[o].text)) == 0)
            break;
    kv_safe(shown, sizeof shown, text, SHOWN);
    if (k == 0 || o == N_REQ_OPS)
        return kv_fail(err, cap, "--require: expected KEY>=N, KEY<=N, KEY>N, KEY<N or KEY==N, "
                                 "got '%s'",
                       shown);
    p += strlen(req_ops[o].text);
    while (*p == ' ')
        p++;
    size_t n = strlen(p);
    while (n > 0 && p[n - 1] == ' ')
        n--;
    char *number = malloc(n + 1);
    if (!number)
        return kv_fail(err, cap, "--require: out of memory");
    memcpy(number, p, n);
    number[n] = '\0';
    int rc = kv_parse_number(number, &q->value);
    free(number);
    if (rc != 0)
        return kv_fail(err, cap, "--require: expected a number after '%s', got '%s'",
                       req_ops[o].text, shown);
    q->key = kv_key_find(key);
    if (!q->key || !kv_key_is_numeric(q->key)) {
        static char keys[4096];
        join_names(keys, sizeof keys, " ", ANY_KEYS, numeric_key_name, NULL);
        char hint[160];
        return kv_fail(err, cap, "--require: unknown numeric key '%s'%s (expected one of: %s)",
                       kv_safe(shown, sizeof shown, key, SHOWN),
                       kv_hint_key(key, 1, hint, sizeof hint), keys);
    }
    q->op = req_ops[o].op;
    q->text = text;
    return 0;
}

/* Each section: its --help=NAME, and its title. */
static const struct {
    const char *name;
    const char *title;
} sections[SECTION_COUNT] = {
    [SECTION_MODEL] = {"model", "Model (default: the lesson's illustrative 7B-class GQA model):"},
    [SECTION_GPU] = {"gpu", "GPU (default: the lesson's 48 GiB GPU with 2 GiB reserved):"},
    [SECTION_WORKLOAD] = {"workload", "Workload (default: 4,096-token requests, 50 sharing a "
                                      "1,024-token prefix):"},
    [SECTION_ENGINE] = {"engines", "Serving engines (docs/engines.md):"},
    [SECTION_VLLM] = {"vllm", "vLLM (with --engine vllm; docs/vllm.md):"},
    [SECTION_SGLANG] = {"sglang", "SGLang (with --engine sglang; docs/sglang.md):"},
    [SECTION_TRTLLM] = {"trtllm", "TensorRT-LLM (with --engine trtllm; docs/trtllm.md):"},
    [SECTION_LLAMACPP] = {"llama.cpp", "llama.cpp (with --engine llama.cpp; docs/llamacpp.md):"},
    [SECTION_PLAN] = {"planning", "Planning and CI:"},
    [SECTION_OUTPUT] = {"output", "Output:"},
};

/* ---- the loop ------------------------------------------------------------------------- */

/* An argument that stands for an option rather than a value: "-x", "--x", but not "-5" or
 * "-.5" (negative numbers are values, refused later with a clear range message). */
static int looks_like_option(const char *a)
{
    return a[0] == '-' && a[1] != '\0' && !isdigit((unsigned char)a[1]) && a[1] != '.';
}

/* Stores one flag's value in o. */
static int take(const kv_flag *f, const char *typed, const char *val, kv_options *o, char *err,
                size_t cap)
{
    char shown[SHOWN + 8];
    kv_value v;
    size_t i = (size_t)(f - kv_flags);
    int rc = kv_flag_value(f, typed, val, &v, err, cap);
    if (rc == KV_USAGE_ERROR)
        return rc;
    switch (f->does) {
    case DO_SPEC:
        o->set[i] = rc == 0; /* "auto" takes back an earlier value */
        o->values[i] = v;
        snprintf(o->typed_buf[i], sizeof o->typed_buf[i], "%s", typed);
        o->typed[i] = o->typed_buf[i];
        return 0;
    case DO_MODEL_FILE:
        o->config_path = val;
        o->model_name = NULL;
        return 0;
    case DO_MODEL_NAME:
        o->model_name = val;
        o->config_path = NULL;
        return 0;
    case DO_GPU:
        o->gpu = kv_gpu_find(val);
        if (o->gpu)
            return 0;
        {
            static char names[2048];
            size_t n = 0;
            names[0] = '\0';
            for (size_t g = 0; g < kv_gpu_count() && n < sizeof names; g++)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", g ? ", " : "",
                                      kv_gpu_at(g)->name);
            char hint[160];
            return kv_fail(err, cap, "--gpu: unknown GPU '%s'%s (expected one of: %s)",
                           kv_safe(shown, sizeof shown, val, SHOWN),
                           kv_hint_gpu(val, hint, sizeof hint), names);
        }
    case DO_FORMAT:
        o->format = (kv_format)v.e;
        return 0;
    case DO_GET:
        o->get = kv_key_find(val);
        if (o->get)
            return 0;
        {
            static char keys[4096];
            join_names(keys, sizeof keys, " ", ANY_KEYS, key_name, NULL);
            char hint[160];
            return kv_fail(err, cap, "--get: unknown key '%s'%s (expected one of: %s)",
                           kv_safe(shown, sizeof shown, val, SHOWN),
                           kv_hint_key(val, 0, hint, sizeof hint), keys);
        }
    case DO_TARGET:
        o->target = v.i;
        return 0;
    case DO_GPUS:
        o->gpus_total = v.i;
        return 0;
    case DO_LEVERS:
        o->levers = 1;
        return 0;
    case DO_OFFLOAD: /* an offload tier is a lever: it asks for them */
        o->offload_gib = v.d;
        o->levers = o->levers || v.d > 0;
        return 0;
    case DO_REQUIRE:
        if (o->n_require == KV_MAX_REQUIRE)
            return kv_fail(err, cap, "--require: at most %d requirements", KV_MAX_REQUIRE);
        return parse_requirement(val, &o->require[o->n_require++], err, cap);
    case DO_SWEEP:
        if (o->n_sweep == KV_MAX_SWEEP)
            return kv_fail(err, cap, "--sweep: at most %d axes", KV_MAX_SWEEP);
        o->sweep[o->n_sweep++] = val; /* its keys and values are checked by sweep.c */
        return 0;
    case DO_PLOT:
        if (val[0] == '\0')
            return kv_fail(err, cap, "--plot: expected a file name, got ''");
        o->plot = val;
        return 0;
    case DO_FROM_LOG:
        if (val[0] == '\0')
            return kv_fail(err, cap, "--from-log: expected a file name or -, got ''");
        o->from_log = val;
        return 0;
    case DO_ACTION:
        o->action = (kv_action)f->switch_value;
        return 0;
    }
    return 0;
}

/* The engine the command line chose. */
static kv_engine chosen_engine(const kv_options *o)
{
    const kv_flag *f = kv_flag_find("engine", 6);
    size_t i = (size_t)(f - kv_flags);
    return o->set[i] ? (kv_engine)o->values[i].e : KV_ENGINE_IDEAL;
}

/* What a key needs that the command line did not ask for, or NULL. */
static const char *key_missing(const kv_options *o, const struct kv_key *k)
{
    static char need[64];
    if (k->section == KEY_PLAN && o->target == 0)
        return "--target-concurrency";
    if (k->section == KEY_LAYOUTS && o->gpus_total == 0)
        return "--gpus";
    if (k->section == KEY_LOG && !o->from_log)
        return "--from-log";
    if (k->section == KEY_ENGINE && !o->from_log && chosen_engine(o) != k->engine) {
        snprintf(need, sizeof need, "--engine %s", kv_engine_name(k->engine));
        return need;
    }
    return NULL;
}

/* Checks across flags, once every flag is read: a key whose section was not asked for, a
 * sweep with what it cannot print. (An engine's flags without that engine: the builder.) */
static int check_combination(const kv_options *o, char *err, size_t cap)
{
    const char *need;
    if (o->get && (need = key_missing(o, o->get)) != NULL)
        return kv_fail(err, cap, "--get: %s needs %s", o->get->name, need);
    for (size_t i = 0; i < o->n_require; i++)
        if ((need = key_missing(o, o->require[i].key)) != NULL)
            return kv_fail(err, cap, "--require: %s needs %s", o->require[i].key->name, need);
    if (o->n_sweep > 0 && o->from_log)
        return kv_fail(err, cap, "--sweep: does not combine with --from-log");
    if (o->n_sweep > 0 && (o->get || o->plot || o->n_require || o->target || o->levers))
        return kv_fail(err, cap, "--sweep: prints one row per point; it does not combine with "
                                 "--get, --plot, --require, --target-concurrency or --levers");
    return 0;
}

int kv_options_parse(int argc, char *const argv[], kv_options *o, char *err, size_t errcap)
{
    char shown[SHOWN + 8];
    memset(o, 0, sizeof *o);
    o->action = ACTION_RUN;
    o->help_section = -1;
    o->format = FORMAT_TEXT;
    err[0] = '\0';

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0' || strcmp(a, "--") == 0)
            return kv_fail(err, errcap, "unexpected argument '%s'",
                           kv_safe(shown, sizeof shown, a, SHOWN));
        int is_short = a[1] != '-'; /* "-h", "-c 4096", "-np=4": one dash, a short name */
        const char *name = a + (is_short ? 1 : 2);
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const kv_flag *f = is_short ? kv_flag_find_short(name, len) : kv_flag_find(name, len);
        if (!f) {
            char flag[SHOWN + 8];
            size_t dashes = is_short ? 1 : 2;
            snprintf(flag, sizeof flag, "%.*s", (int)(len < SHOWN ? len + dashes : SHOWN), a);
            char hint[160], bare[SHOWN + 8];
            snprintf(bare, sizeof bare, "%.*s", (int)(len < SHOWN ? len : SHOWN), name);
            return kv_fail(err, errcap, "unknown option '%s'%s",
                           kv_safe(shown, sizeof shown, flag, SHOWN),
                           kv_hint_flag(bare, is_short, hint, sizeof hint));
        }
        /* the spelling typed, for messages: the name, an alias or the short name */
        char typed[KV_TYPED_MAX];
        snprintf(typed, sizeof typed, "%s%s", is_short ? "-" : "--",
                 is_short ? f->short_name : spelling(f, name, len));
        const char *val = NULL;
        if (f->arg != ARG_NONE) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc && !looks_like_option(argv[i + 1]))
                val = argv[++i];
            else {
                char want[1200];
                kv_flag_accepts(f, want, sizeof want);
                return kv_fail(err, errcap, "%s: missing value (expected %s)", typed, want);
            }
        } else if (eq && f->does == DO_ACTION && f->switch_value == ACTION_HELP) {
            /* --help=SECTION, like vLLM's --help=<group>: one section */
            o->help_section = kv_help_section(eq + 1);
            if (o->help_section < 0) {
                kv_suggestion sg;
                char hint[160], names[256];
                kv_suggest_init(&sg, eq + 1);
                names[0] = '\0';
                for (int s = 0; s < SECTION_COUNT; s++) {
                    kv_suggest_try(&sg, sections[s].name, strlen(sections[s].name));
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                             s ? " " : "", sections[s].name);
                }
                return kv_fail(err, errcap, "%s: unknown section '%s'%s (expected one of: %s)",
                               typed, kv_safe(shown, sizeof shown, eq + 1, SHOWN),
                               kv_suggest_hint(&sg, "", hint, sizeof hint), names);
            }
        } else if (eq) {
            return kv_fail(err, errcap, "%s: takes no value, got '%s'", typed,
                           kv_safe(shown, sizeof shown, eq + 1, SHOWN));
        }
        int rc = take(f, typed, val, o, err, errcap);
        if (rc != 0)
            return rc;
        if (o->action == ACTION_HELP || o->action == ACTION_VERSION)
            return 0;
    }
    if (o->action != ACTION_RUN)
        return 0;
    return check_combination(o, err, errcap);
}

const char *kv_flag_shown(const kv_options *o, const kv_flag *f, char *buf, size_t cap)
{
    size_t i = (size_t)(f - kv_flags);
    if (o && o->set[i] && o->typed[i])
        return o->typed[i];
    snprintf(buf, cap, "--%s", f->name);
    return buf;
}

void kv_status_error(const kv_spec *s, const kv_options *o, kv_status st, char *err,
                     size_t errcap)
{
    if (st == KV_ERR_TP) {
        const kv_flag *tp = kv_flag_blamed(KV_ERR_TP);
        char shown[KV_TYPED_MAX];
        const char *typed = kv_flag_shown(o, tp, shown, sizeof shown);
        char valid[512] = "";
        size_t n = 0;
        int64_t limit = s->arch.heads > 0 ? s->arch.heads : s->kv_heads;
        for (int64_t t = 1; t <= limit && t <= 4096 && n + 24 < sizeof valid; t++)
            if (kv_tp_valid(s, t))
                n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%lld", n ? " " : "",
                                      (long long)t);
        if (s->arch.heads > 0)
            kv_fail(err, errcap, "%s: %lld does not split %lld attention "
                                 "heads and %lld KV heads (valid: %s)",
                    typed, (long long)s->tp, (long long)s->arch.heads, (long long)s->kv_heads, valid);
        else
            kv_fail(err, errcap, "%s: %lld does not split %lld KV heads "
                                 "(valid: %s, or a multiple of %lld)",
                    typed, (long long)s->tp, (long long)s->kv_heads, valid, (long long)s->kv_heads);
        return;
    }
    if (st == KV_ERR_TRTLLM && !(s->trtllm.fraction < 1)) { /* the one input the table lets by */
        const kv_flag *fr = kv_flag_blamed(KV_ERR_TRTLLM);
        char shown[KV_TYPED_MAX];
        const char *typed = kv_flag_shown(o, fr, shown, sizeof shown);
        kv_fail(err, errcap, "%s: must be a number > 0 and < 1", typed);
        return;
    }
    if (st == KV_ERR_VLLM && kv_vllm_problem(s)) { /* the engine says which flag */
        kv_fail(err, errcap, "%s", kv_vllm_problem(s));
        return;
    }
    if (st == KV_ERR_VLLM || st == KV_ERR_VLLM_RANGE || st == KV_ERR_ENGINE || st == KV_ERR_TRTLLM) {
        kv_fail(err, errcap, "--engine %s: %s", kv_engine_name(s->engine) ? kv_engine_name(s->engine) : "?",
                kv_status_message(st));
        return;
    }
    if (st == KV_ERR_SGLANG) { /* the flags are bounded; only the GPU's size can be out */
        if (!(s->gpu_mem_gib <= 1e6))
            kv_fail(err, errcap, "--gpu-mem-gib: %.17g GiB is more than --engine sglang "
                                 "sizes (at most 1e6 GiB)", s->gpu_mem_gib);
        else
            kv_fail(err, errcap, "--engine sglang: %s", kv_status_message(st));
        return;
    }
    if (st == KV_ERR_LLAMACPP) { /* the engine says which rule and which flag */
        const char *why = kv_llamacpp_problem(s);
        kv_fail(err, errcap, "%s", why ? why : kv_status_message(st));
        return;
    }
    if (st == KV_ERR_TARGET) {
        kv_fail(err, errcap, "--target-concurrency: %s", kv_status_message(st));
        return;
    }
    const kv_flag *f = kv_flag_blamed(st);
    if (f) {
        char shown[KV_TYPED_MAX];
        const char *typed = kv_flag_shown(o, f, shown, sizeof shown);
        kv_fail(err, errcap, "%s: %s", typed, kv_status_message(st));
    } else {
        kv_fail(err, errcap, "--gpu-mem-gib, --params-b, --overhead-gib: %s",
                kv_status_message(st));
    }
}

/* ---- help ----------------------------------------------------------------------------- */

#define HELP_WIDTH 80 /* columns */
#define HELP_LEFT 26  /* where a flag's description starts */

/* Writes text from column `col` on, wrapped at HELP_WIDTH at spaces, continuation lines
 * indented to `indent`; ends the line. A word longer than a line is not cut. */
static void wrap(FILE *out, size_t col, size_t indent, const char *text)
{
    while (*text) {
        size_t room = col < HELP_WIDTH ? HELP_WIDTH - col : 1, len = strlen(text), cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0) /* one long word: up to the next space */
                cut = strcspn(text, " ");
        }
        fprintf(out, "%.*s\n", (int)cut, text);
        text += cut;
        while (*text == ' ')
            text++;
        if (*text)
            fprintf(out, "%*s", (int)indent, "");
        col = indent;
    }
}

static void help_line(FILE *out, const kv_flag *f, const char *def)
{
    char left[96], text[512];
    if (f->short_name)
        snprintf(left, sizeof left, "-%s, --%s%s%s", f->short_name, f->name, f->meta ? " " : "",
                 f->meta ? f->meta : "");
    else
        snprintf(left, sizeof left, "--%s%s%s", f->name, f->meta ? " " : "",
                 f->meta ? f->meta : "");
    snprintf(text, sizeof text, "%s%s%s%s", f->help, def ? " [" : "", def ? def : "",
             def ? "]" : "");
    if (strlen(left) + 2 >= HELP_LEFT) { /* too long: the description on its own line */
        fprintf(out, "  %s\n%*s", left, HELP_LEFT, "");
    } else {
        fprintf(out, "  %-*s", HELP_LEFT - 2, left);
    }
    wrap(out, HELP_LEFT, HELP_LEFT, text);
}

int kv_help_section(const char *name)
{
    for (int i = 0; i < SECTION_COUNT; i++)
        if (strcmp(sections[i].name, name) == 0)
            return i;
    return -1;
}

static void help_section(FILE *out, int sec)
{
    kv_spec defaults;
    char def[FMT_BUF];
    kv_spec_defaults(&defaults);
    fprintf(out, "\n%s\n", sections[sec].title);
    for (size_t i = 0; i < kv_flags_count; i++) {
        const kv_flag *f = &kv_flags[i];
        if ((int)f->section != sec)
            continue;
        /* the default in brackets, unless the help already says it or there is none */
        const char *d = NULL;
        if (f->does == DO_SPEC && f->arg != ARG_NONE && !strchr(f->help, '[')) {
            d = kv_flag_text(def, sizeof def, &defaults, f);
            if (strcmp(d, "null") == 0)
                d = NULL;
        }
        help_line(out, f, d);
    }
}

/* What the values of the flags look like, after the sections. */
static void help_values(FILE *out)
{
    char text[1024], bytes[64];
    size_t n = (size_t)snprintf(text, sizeof text, "DTYPE is one of:");
    for (int i = 0; i < KV_DTYPE_COUNT && n < sizeof text; i++) {
        const kv_dtype_info *d = kv_dtype_get((kv_dtype)i);
        n += (size_t)snprintf(text + n, sizeof text - n, " %s (%s B)%s", d->name,
                              fmt_g(bytes, sizeof bytes, d->bytes),
                              i + 1 < KV_DTYPE_COUNT ? "," : "; or another spelling:");
    }
    for (size_t i = 0; kv_dtype_spelling(i) && n < sizeof text; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, " %s", kv_dtype_spelling(i));
    fputc('\n', out);
    wrap(out, 0, 2, text);
    wrap(out, 0, 2, "N of tokens takes vLLM's forms too: 32k = 32,000, 32K = 32,768, 25.6k, 1m, "
                    "1M.");
    wrap(out, 0, 2, "KEY is a top-level key of the JSON output (docs/output.md). Values go as "
                    "--flag VALUE or --flag=VALUE; when a flag repeats, the last wins.");
}

void kv_help(FILE *out, int section)
{
    fputs("Usage: kvcalc [OPTION]...\n"
          "Size the KV cache of an LLM server: how many requests of a given context fit on\n"
          "one GPU once the weights are loaded, by the lesson's arithmetic or a serving\n"
          "engine's rules.\n"
          "\n"
          "Examples:\n"
          "  kvcalc                                the lesson's model on a 48 GiB GPU\n"
          "  kvcalc --model qwen3-8b --gpu h100 --context 32k\n"
          "  kvcalc --engine vllm --model qwen3-8b --gpu h100 --max-model-len 128k\n"
          "  kvcalc --engine llama.cpp --model ./model.gguf -c 32k -np 4 --gpu 4090\n"
          "  kvcalc --model qwen3-8b --gpu h100 --target-concurrency 64\n"
          "  kvcalc --model qwen3-8b --sweep context=4k..128k*2 --format csv\n"
          "  docker logs vllm 2>&1 | kvcalc --from-log - --max-model-len 64k\n",
          out);
    if (section >= 0) {
        help_section(out, section);
        return;
    }
    char names[256] = "Sections (--help=NAME shows one):";
    for (int i = 0; i < SECTION_COUNT; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), " %s%s", sections[i].name,
                 i + 1 < SECTION_COUNT ? "," : ".");
    fputc('\n', out);
    wrap(out, 0, 2, names);
    for (int sec = 0; sec < SECTION_COUNT; sec++)
        help_section(out, sec);
    fputs("\nA model from --config or --model sets layers, KV heads, head size, dtypes, the\n"
          "layer layout and the parameter count; --gpu sets the memory; flags given\n"
          "explicitly still win.\n",
          out);
    help_values(out);
    fputs("\n"
          "KV bytes per token = 2 x layers x kv-heads x head-dim x dtype bytes;\n"
          "max concurrency = floor((GPU - weights - overhead) / (KV per token x context)).\n"
          "\n"
          "Exit status: 0 ok, 1 a --require was not met, 2 usage error (one line on\n"
          "stderr, nothing on stdout), 3 the output could not be written.\n"
          "See kvcalc(1).\n",
          out);
}
