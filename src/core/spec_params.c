/*
 * spec_params.c - the spec's own inputs as parameters: the schema rows of the model, the
 * GPU, the workload and the layout over GPUs. Each row names its kv_spec member through
 * KV_CPARAM, which checks the member's C type at compile time. The engines' own inputs are
 * their descriptors' rows; schema/param.c walks both.
 */
#include "internal.h"

#define GEOMETRY(fl, m, st, h)                                                              \
    {.name = fl, KV_CPARAM(INT, m), .key = #m, .min = 1, .model_sets = 1,                  \
     .clears = KV_CLEARS_GEOMETRY, .blames = st, .section = "model", .meta = "N", .help = h}

static const kv_choice quantizations[] = {
    {"fp8", KV_QUANTIZATION_FP8},     {"int8", KV_QUANTIZATION_INT8},
    {"awq", KV_QUANTIZATION_AWQ},     {"gptq", KV_QUANTIZATION_GPTQ},
    {"bitsandbytes", KV_QUANTIZATION_BITSANDBYTES}, {"mxfp4", KV_QUANTIZATION_MXFP4},
    {NULL, 0}};

const kv_param kv_core_params[KV_CORE_PARAMS] = {
    [KV_P_LAYERS] = GEOMETRY("layers", layers, KV_ERR_LAYERS,
                             "transformer layers (config.json: num_hidden_layers)"),
    [KV_P_KV_HEADS] = GEOMETRY("kv-heads", kv_heads, KV_ERR_KV_HEADS,
                               "KV heads (num_key_value_heads); fewer than attention heads = GQA"),
    [KV_P_HEAD_DIM] = GEOMETRY("head-dim", head_dim, KV_ERR_HEAD_DIM,
                               "elements per head (head_dim, or hidden_size / "
                               "num_attention_heads)"),
    [KV_P_DTYPE] = {.name = "dtype", .aliases = {"kv-cache-dtype"}, KV_CPARAM(DTYPE, dtype),
                    .key = "dtype", .model_sets = 1, .blames = KV_ERR_DTYPE, .section = "model",
                    .meta = "DTYPE",
                    .help = "KV cache element type; alias --kv-cache-dtype (auto = the model's)"},
    [KV_P_PARAMS_B] = {.name = "params-b", KV_CPARAM(NUM, params_b), .key = "params_b", .min = 0,
                       .model_sets = 1, .clears = KV_CLEARS_ESTIMATE, .blames = KV_ERR_PARAMS_B,
                       .section = "model", .meta = "B",
                       .help = "model size in billions of parameters (for the weights)"},
    [KV_P_WEIGHT_DTYPE] = {.name = "weight-dtype", KV_CPARAM(DTYPE, weight_dtype),
                           .key = "weight_dtype", .model_sets = 1, .clears = KV_CLEARS_QUANT,
                           .blames = KV_ERR_WEIGHT_DTYPE, .section = "model", .meta = "DTYPE",
                           .help = "element type every weight is loaded in"},
    [KV_P_QUANTIZATION] = {.name = "quantization", .short_name = "q",
                           KV_CPARAM(CHOICE, quantization), .key = "quantization",
                           .choices = quantizations, .clears = KV_CLEARS_QUANT | KV_CLEARS_STORAGE,
                           .blames = KV_ERR_WEIGHT_DTYPE, .section = "model", .meta = "METHOD",
                           .help = "the checkpoint's quantization (vLLM's names: fp8 int8 awq "
                                   "gptq bitsandbytes mxfp4): linear layers quantized, "
                                   "embeddings and head not"},
    [KV_P_GPU_MEM_GIB] = {.name = "gpu-mem-gib", KV_CPARAM(NUM, gpu_mem_gib),
                          .key = "gpu_mem_gib", .min = 0, .min_exclusive = 1,
                          .clears = KV_CLEARS_GPU, .blames = KV_ERR_GPU_MEM, .section = "gpu",
                          .meta = "GIB", .help = "GPU memory in GiB (2^30 bytes)"},
    [KV_P_OVERHEAD_GIB] = {.name = "overhead-gib", KV_CPARAM(NUM, overhead_gib),
                           .key = "overhead_gib", .min = 0, .blames = KV_ERR_OVERHEAD,
                           .section = "gpu", .meta = "GIB",
                           .help = "reserve for activations / CUDA context, in GiB"},
    [KV_P_CONTEXT] = {.name = "context", .aliases = {"max-model-len", "context-length"},
                      KV_CPARAM(INT, context), .key = "context", .min = 1, .tokens = 1,
                      .blames = KV_ERR_CONTEXT, .section = "workload", .meta = "N",
                      .help = "tokens per request (prompt + generated); alias --max-model-len, "
                              "--context-length"},
    [KV_P_PREFIX_TOKENS] = {.name = "prefix-tokens", KV_CPARAM(INT, prefix_tokens),
                            .key = "prefix_tokens", .min = 0, .tokens = 1,
                            .blames = KV_ERR_PREFIX_TOKENS, .section = "workload", .meta = "N",
                            .help = "length of a prompt prefix shared by requests"},
    [KV_P_PREFIX_REQUESTS] = {.name = "prefix-requests", KV_CPARAM(INT, prefix_requests),
                              .key = "prefix_requests", .min = 1,
                              .blames = KV_ERR_PREFIX_REQUESTS, .section = "workload",
                              .meta = "N", .help = "how many requests share that prefix"},
    [KV_P_TP] = {.name = "tensor-parallel-size", .aliases = {"tp", "tp-size"}, KV_CPARAM(INT, tp),
                 .key = "tensor_parallel_size", .min = 1, .blames = KV_ERR_TP, .section = "gpu",
                 .meta = "N",
                 .help = "GPUs one replica is split over; figures become per GPU; alias --tp, "
                         "--tp-size"},
    [KV_P_PP] = {.name = "pipeline-parallel-size", .aliases = {"pp"}, KV_CPARAM(INT, pp),
                 .key = "pipeline_parallel_size", .min = 1, .max = 1024,
                 .blames = KV_ERR_PARALLEL, .section = "gpu", .meta = "N",
                 .help = "pipeline stages per replica: each GPU holds its stage's layers (vLLM's "
                         "split); alias --pp"},
    [KV_P_DP] = {.name = "data-parallel-size", .aliases = {"dp"}, KV_CPARAM(INT, dp),
                 .key = "data_parallel_size", .min = 1, .max = 1000000,
                 .blames = KV_ERR_PARALLEL, .section = "gpu", .meta = "N",
                 .help = "replicas: deployment_max_concurrency = replica's x N; alias --dp"},
    [KV_P_EXPERT_PARALLEL] = {.name = "enable-expert-parallel", KV_CPARAM(SWITCH, expert_parallel),
                              .key = "expert_parallel", .switch_value = 1,
                              .blames = KV_ERR_PARALLEL, .section = "gpu",
                              .help = "MoE experts split across the tp x dp GPUs (fewer expert "
                                      "weights per GPU)"},
    [KV_P_ENGINE] = {.name = "engine", KV_CPARAM(ENGINE, engine), .key = "engine",
                     .blames = KV_ERR_ENGINE_UNKNOWN, .section = "engines", .meta = "NAME",
                     .help = "the serving engine whose allocation answers"},
    [KV_P_HOST_MEM_GIB] = {.name = "host-mem-gib", KV_CPARAM(OPT_NUM, host_mem_gib),
                           .key = "host_mem_gib", .min = 0, .min_exclusive = 1, .max = 1e9,
                           .section = "gpu", .meta = "GIB",
                           .help = "host memory of a replica's machine in GiB: what the engine "
                                   "keeps there (pinned offload, KV tiers) is checked against it"},
};
