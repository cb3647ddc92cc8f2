/*
 * ollama_desc.c - Ollama as kvcalc knows it: its parameters (the names of Ollama's options
 * and environment), its output fields, how its server logs read and compare, and the
 * descriptor that holds them all. The rules themselves are in ollama.c.
 */
#include "kvprint.h"
#include "ollama.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvmath.h"

#define E KV_ENGINE_OLLAMA
#define P(TYPE, m) KV_EPARAM(E, kv_ollama_spec, TYPE, m)

static const kv_choice libraries[] = {
    {"cuda", KV_OLLAMA_CUDA},     {"rocm", KV_OLLAMA_ROCM},     {"metal", KV_OLLAMA_METAL},
    {"cpu", KV_OLLAMA_CPU},       {"oneapi", KV_OLLAMA_ONEAPI}, {"vulkan", KV_OLLAMA_VULKAN},
    {NULL, 0}};
static const kv_choice cache_types[] = {
    {"f16", KV_OLLAMA_F16}, {"q8_0", KV_OLLAMA_Q8_0}, {"q4_0", KV_OLLAMA_Q4_0}, {NULL, 0}};
/* Go's strconv.ParseBool, which OLLAMA_FLASH_ATTENTION reads (any other text is "true" to
 * Ollama: kvcalc refuses it rather than guess) */
static const kv_choice bools[] = {
    {"1", 1},     {"t", 1},     {"T", 1},     {"TRUE", 1}, {"true", 1}, {"True", 1},
    {"0", 0},     {"f", 0},     {"F", 0},     {"FALSE", 0}, {"false", 0}, {"False", 0},
    {NULL, 0}};

const kv_param kv_ollama_params[OL_PARAMS] = {
    [OL_P_VERSION] = {.name = "ollama-version", P(VERSION, version), .key = "ollama_version",
                      .blames = KV_ERR_ENGINE_INPUT, .meta = "V",
                      .help = "the Ollama release whose rules apply [0.33.0]",
                      .parse = kv_ollama_version_parse, .format = kv_ollama_version_format,
                      .accepts = "an Ollama version such as 0.9.6"},
    [OL_P_NUM_CTX] = {.name = "num-ctx", P(OPT_INT, num_ctx), .key = "num_ctx", .min = 1,
                      .max = 1073741824.0, .tokens = 1, .blames = KV_ERR_ENGINE_INPUT,
                      .meta = "N",
                      .help = "num_ctx: tokens per request, a longer prompt is cut [auto: the "
                              "release's: 2048, 4096 from 0.6.7, by VRAM from 0.15.5]"},
    [OL_P_PARALLEL] = {.name = "num-parallel", P(OPT_INT, num_parallel), .key = "num_parallel",
                       .min = 0, .max = 1024, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                       .help = "OLLAMA_NUM_PARALLEL: requests at once; 0 = the release's [auto: "
                               "4 from 0.2.0, 2 from 0.6.7 (1 if the GPU is short), 1 from 0.10.0]"},
    [OL_P_FLASH] = {.name = "flash-attention", P(OPT_CHOICE, flash_attention),
                    .key = "flash_attention", .choices = bools, .blames = KV_ERR_ENGINE_INPUT,
                    .meta = "BOOL",
                    .help = "OLLAMA_FLASH_ATTENTION: 1 or 0 [auto: off; the model's own default "
                            "from 0.11.8; left to the runner from 0.13.4]"},
    [OL_P_CACHE_TYPE] = {.name = "kv-cache-type", P(OPT_CHOICE, kv_cache_type),
                         .key = "kv_cache_type", .choices = cache_types,
                         .blames = KV_ERR_ENGINE_INPUT, .meta = "TYPE",
                         .help = "OLLAMA_KV_CACHE_TYPE: f16, q8_0 or q4_0 (quantized only with "
                                 "flash attention) [f16]"},
    [OL_P_NUM_GPU] = {.name = "num-gpu", P(OPT_INT, num_gpu), .key = "num_gpu", .min = 0,
                      .max = 1000000, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                      .help = "num_gpu: layers on the GPU (+1 = the output layer) [auto: as "
                              "many as fit]"},
    [OL_P_BATCH] = {.name = "num-batch", P(OPT_INT, num_batch), .key = "num_batch", .min = 1,
                    .max = 1073741824.0, .tokens = 1, .blames = KV_ERR_ENGINE_INPUT,
                    .meta = "N",
                    .help = "num_batch: sizes the compute graph [auto: 512; 0.30+: by the "
                            "context]"},
    [OL_P_LIBRARY] = {.name = "library", P(OPT_CHOICE, library), .key = "library",
                      .choices = libraries, .blames = KV_ERR_ENGINE_INPUT, .meta = "LIB",
                      .help = "the backend Ollama found: cuda, rocm, metal, cpu, oneapi, vulkan "
                              "[auto: rocm for an AMD --gpu, else cuda]"},
    [OL_P_AVAILABLE] = {.name = "available-gib", P(OPT_NUM, available_gib),
                        .key = "available_gib", .min = 0, .max = 1e6, .estimate = 1,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                        .help = "the device's free memory (the log's memory.available) [auto: "
                                "GPU memory - overhead, an estimate]"},
    [OL_P_OVERHEAD] = {.name = "gpu-overhead", P(NUM, gpu_overhead_bytes), .key = "gpu_overhead",
                       .min = 0, .max = 1e15, .blames = KV_ERR_ENGINE_INPUT, .meta = "BYTES",
                       .help = "OLLAMA_GPU_OVERHEAD: bytes kept free on each GPU [0]"},
    [OL_P_GPUS] = {.name = "ollama-gpus", P(INT, gpus), .key = "ollama_gpus", .min = 1,
                   .max = KV_OLLAMA_MAX_GPUS, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                   .help = "GPUs of the library Ollama spreads the layers over, alike (to "
                           "0.12.10) [1]"},
    [OL_P_PROJECTOR] = {.name = "projector-weights-gib", P(OPT_NUM, projector_weights_gib),
                        .key = "projector_weights_gib", .min = 0, .max = 1e6,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                        .help = "a vision projector's weights (the log's projector.weights) "
                                "[none]"},
    [OL_P_PROJECTOR_GRAPH] = {.name = "projector-graph-gib", P(OPT_NUM, projector_graph_gib),
                              .key = "projector_graph_gib", .min = 0, .max = 1e6,
                              .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                              .help = "its graph (projector.graph): the model file's own "
                                      "projector from 0.7.1 [none: a --mmproj file]"},
};

#define F(name, m, T, unit, ftype, sweep) KV_EFIELD(E, kv_ollama_result, name, m, T, unit, ftype, sweep)
#define FI(name, m, unit) F(name, m, int64_t, unit, KV_F_INT, 0)
#define FN(name, m) F(name, m, double, "bytes", KV_F_NUM, 0)
#define FB(name, m) F(name, m, int, "boolean", KV_F_BOOL, 0)
static const kv_field fields[] = {
    F(ollama_num_ctx, num_ctx, int64_t, "tokens", KV_F_INT, 1),
    FB(ollama_num_ctx_default, ctx_default),
    FB(ollama_num_ctx_clamped, ctx_clamped),
    F(ollama_num_parallel, num_parallel, int64_t, "requests", KV_F_INT, 2),
    FI(ollama_kv_size, kv_size, "tokens"),
    FI(ollama_batch, batch, "tokens"),
    FB(ollama_flash_attention, flash),
    F(ollama_kv_bytes_per_element, bytes_per_element, double, "bytes", KV_F_NUM, 0),
    FN(ollama_minimum_bytes, minimum_bytes),
    FN(ollama_available_bytes, available_bytes),
    FB(ollama_available_estimated, available_estimated),
    FN(ollama_kv_bytes, kv_bytes),
    FN(ollama_runner_kv_bytes, runner_kv_bytes),
    FI(ollama_state_checkpoints, state_checkpoints, "checkpoints"),
    FN(ollama_graph_full_bytes, graph_full_bytes),
    FN(ollama_graph_partial_bytes, graph_partial_bytes),
    FB(ollama_graph_formula, graph_formula),
    FN(ollama_weights_repeating_bytes, weights_repeating_bytes),
    FN(ollama_weights_nonrepeating_bytes, weights_nonrepeating_bytes),
    FB(ollama_weights_estimated, weights_estimated),
    FI(ollama_layers_model, layers_model, "layers"),
    F(ollama_layers_offload, layers_offload, int64_t, "layers", KV_F_INT, 3),
    FB(ollama_fully_loaded, fully_loaded),
    F(ollama_required_full_bytes, required_full_bytes, double, "bytes", KV_F_NUM, 4),
    FN(ollama_required_partial_bytes, required_partial_bytes),
    FI(ollama_gpu_percent, gpu_percent, "percent"),
    FI(ollama_longest_num_ctx, longest_num_ctx, "tokens"),
    FB(ollama_measured_by_runner, measured_by_runner),
    FB(ollama_model_from_log, model_from_log),
    FB(ollama_estimated, estimated),
    F(ollama_llamacpp_build, llamacpp_build, int64_t, "build", KV_F_INT_OR_NULL, 0),
};

/* ---- the server's log (docs/ollama.md: the lines by release) ---- */

#define T(...) {__VA_ARGS__}
#define LIB(text, lib) {text, T(KV_OLLAMA_LOG_LIBRARY, lib), KV_CONST, NULL}
#define S KV_TO_SKIP
#define GPUS(n, list, ...) {"memory.available=\"[" list "]", T(__VA_ARGS__, KV_OLLAMA_LOG_GPUS, n), KV_CONST, NULL}

static const char *const field_names[KV_OLLAMA_LOG_FIELDS] = {
    [KV_OLLAMA_LOG_KV_SIZE] = "ctx_size",
    [KV_OLLAMA_LOG_PARALLEL] = "parallel",
    [KV_OLLAMA_LOG_BATCH] = "batch_size",
    [KV_OLLAMA_LOG_NUM_GPU] = "n_gpu_layers",
    [KV_OLLAMA_LOG_REQUESTED] = "layers_requested",
    [KV_OLLAMA_LOG_FLASH] = "flash_attention",
    [KV_OLLAMA_LOG_ENV_CTX] = "OLLAMA_CONTEXT_LENGTH",
    [KV_OLLAMA_LOG_ENV_PARALLEL] = "OLLAMA_NUM_PARALLEL",
    [KV_OLLAMA_LOG_LIBRARY] = "library",
    [KV_OLLAMA_LOG_GPU_TOTAL] = "gpu_total",
    [KV_OLLAMA_LOG_AVAILABLE] = "memory_available",
    [KV_OLLAMA_LOG_GPUS] = "gpus",
    [KV_OLLAMA_LOG_GPU_OVERHEAD] = "gpu_overhead",
    [KV_OLLAMA_LOG_LAYERS_MODEL] = "layers_model",
    [KV_OLLAMA_LOG_LAYERS_OFFLOAD] = "layers_offload",
    [KV_OLLAMA_LOG_FULL] = "required_full",
    [KV_OLLAMA_LOG_PARTIAL] = "required_partial",
    [KV_OLLAMA_LOG_KV] = "required_kv",
    [KV_OLLAMA_LOG_ALLOCATION] = "required_allocations",
    [KV_OLLAMA_LOG_WEIGHTS_TOTAL] = "weights_total",
    [KV_OLLAMA_LOG_WEIGHTS_REPEATING] = "weights_repeating",
    [KV_OLLAMA_LOG_WEIGHTS_NONREPEATING] = "weights_nonrepeating",
    [KV_OLLAMA_LOG_GRAPH_FULL] = "graph_full",
    [KV_OLLAMA_LOG_GRAPH_PARTIAL] = "graph_partial",
    [KV_OLLAMA_LOG_PROJECTOR] = "projector_weights",
    [KV_OLLAMA_LOG_PROJECTOR_GRAPH] = "projector_graph",
    [KV_OLLAMA_LOG_RUNNER_KV] = "runner_kv",
    [KV_OLLAMA_LOG_DEVICE_KV] = "kv_cache",
    [KV_OLLAMA_LOG_DEVICE_WEIGHTS] = "model_weights",
    [KV_OLLAMA_LOG_DEVICE_GRAPH] = "compute_graph",
    [KV_OLLAMA_LOG_TOTAL_MEMORY] = "total_memory",
    [KV_OLLAMA_LOG_ARCH] = "architecture",
    [KV_OLLAMA_LOG_BLOCKS] = "block_count",
    [KV_OLLAMA_LOG_CONTEXT_LENGTH] = "context_length",
    [KV_OLLAMA_LOG_EMBEDDING] = "embedding_length",
    [KV_OLLAMA_LOG_HEADS] = "head_count",
    [KV_OLLAMA_LOG_HEADS_KV] = "head_count_kv",
    [KV_OLLAMA_LOG_KEY_LENGTH] = "key_length",
    [KV_OLLAMA_LOG_VALUE_LENGTH] = "value_length",
    [KV_OLLAMA_LOG_WINDOW] = "sliding_window",
    [KV_OLLAMA_LOG_VOCAB] = "vocab",
    [KV_OLLAMA_LOG_FILE_TYPE] = "file_type",
    [KV_OLLAMA_LOG_FILE_SIZE] = "file_size",
    [KV_OLLAMA_LOG_TENSORS] = "tensors",
    [KV_OLLAMA_LOG_F32_TENSORS] = "f32_tensors",
    [KV_OLLAMA_LOG_MODEL_BUFFERS] = "model_buffers",
};

/* The architectures a runner's loader line may name (general.architecture), by their row
 * number: the ones Ollama's rules name and the common others. A name that is the start of
 * another comes first (llama before llama4): the later row wins. */
static const char *const archs[] = {
    "llama",   "llama4",  "mllama",    "gemma",      "gemma2",   "gemma3",     "gemma3n",
    "gemma4",  "command-r", "qwen2",   "qwen2moe",   "qwen25vl", "qwen3",      "qwen3moe",
    "qwen3vl", "qwen3vlmoe", "qwen3next", "qwen35",  "qwen35moe", "phi2",      "phi3",
    "stablelm", "deepseek2", "chatglm", "gptoss",    "gpt-oss",  "mistral3",   "starcoder2",
    "granite", "granitemoe", "olmo2",   "olmo3",     "bert",     "nomic-bert", "lfm2",
    "nemotron_h", "glm4", "glm4moe",
};
#define ARCH(i, name) {"general.architecture str = " name, T(KV_OLLAMA_LOG_ARCH, i), KV_CONST, NULL}
#define PARCH(i, name) {"print_info: arch = " name, T(KV_OLLAMA_LOG_ARCH, i), KV_CONST, NULL}
#define PFTYPE(i, name) {"print_info: file type = " name, T(KV_OLLAMA_LOG_FILE_TYPE, i), KV_CONST, NULL}

/* The server's lines (server/routes.go, llm/memory.go, llm/server.go, ml/device.go), the
 * runner's command line or load request, and the runner's own llama.cpp KV lines (an
 * Ollama log holds llama.cpp's: these make the tie go to Ollama, which matched more). */
static const kv_log_pattern patterns[] = {
    {"Listening on %* (version %s)", T(KV_TO_VERSION), 0, NULL},
    {"OLLAMA_CONTEXT_LENGTH:%n ", T(KV_OLLAMA_LOG_ENV_CTX), 0, NULL},
    {"OLLAMA_NUM_PARALLEL:%n ", T(KV_OLLAMA_LOG_ENV_PARALLEL), 0, NULL},
    {"OLLAMA_FLASH_ATTENTION:%s ", T(KV_TO_FLASH), 0, NULL},
    {"OLLAMA_KV_CACHE_TYPE:%s ", T(KV_TO_TYPE_K), 0, NULL},
    {"OLLAMA_GPU_OVERHEAD:%n ", T(KV_OLLAMA_LOG_GPU_OVERHEAD), 0, NULL},
    {"msg=\"inference compute\"%* total=\"%b\"", T(KV_OLLAMA_LOG_GPU_TOTAL), 0, NULL},
    /* a model's load: the estimate (0.1.45 - 0.12.10), the layout (0.12.11 - 0.24) */
    {"msg=\"offload to", T(0), KV_START, "offload to"},
    {"msg=offload library=", T(0), KV_START, "offload library="},
    {"msg=\"loading model\"", T(0), KV_START, "memory layout"},
    LIB("offload to cuda\"", KV_OLLAMA_CUDA), LIB("offload to rocm\"", KV_OLLAMA_ROCM),
    LIB("offload to metal\"", KV_OLLAMA_METAL), LIB("offload to cpu\"", KV_OLLAMA_CPU),
    LIB("offload to oneapi\"", KV_OLLAMA_ONEAPI), LIB("library=cuda", KV_OLLAMA_CUDA),
    LIB("library=CUDA", KV_OLLAMA_CUDA), LIB("library=rocm", KV_OLLAMA_ROCM),
    LIB("library=ROCm", KV_OLLAMA_ROCM), LIB("library=metal", KV_OLLAMA_METAL),
    LIB("library=Metal", KV_OLLAMA_METAL), LIB("library=cpu", KV_OLLAMA_CPU),
    LIB("library=oneapi", KV_OLLAMA_ONEAPI), LIB("library=Vulkan", KV_OLLAMA_VULKAN),
    {"layers.requested=%f", T(KV_OLLAMA_LOG_REQUESTED), 0, NULL},
    {"layers.model=%n", T(KV_OLLAMA_LOG_LAYERS_MODEL), 0, NULL},
    {"layers.offload=%n", T(KV_OLLAMA_LOG_LAYERS_OFFLOAD), 0, NULL},
    {"memory.available=\"[%b", T(KV_OLLAMA_LOG_AVAILABLE), 0, NULL},
    /* the devices the estimate spread over: a list of 2 to 8 (each row needs that many) */
    GPUS(1, "%b", S), GPUS(2, "%b %b", S, S), GPUS(3, "%b %b %b", S, S, S),
    GPUS(4, "%b %b %b %b", S, S, S, S), GPUS(5, "%b %b %b %b %b", S, S, S, S, S),
    GPUS(6, "%b %b %b %b %b %b", S, S, S, S, S, S),
    GPUS(7, "%b %b %b %b %b %b %b", S, S, S, S, S, S, S),
    GPUS(8, "%b %b %b %b %b %b %b %b", S, S, S, S, S, S, S, S),
    {"memory.gpu_overhead=\"%b\"", T(KV_OLLAMA_LOG_GPU_OVERHEAD), 0, NULL},
    {"memory.required.full=\"%b\"", T(KV_OLLAMA_LOG_FULL), 0, NULL},
    {"memory.required.partial=\"%b\"", T(KV_OLLAMA_LOG_PARTIAL), 0, NULL},
    {"memory.required.kv=\"%b\"", T(KV_OLLAMA_LOG_KV), KV_LINE, NULL},
    {"memory.required.allocations=\"[%b", T(KV_OLLAMA_LOG_ALLOCATION), 0, NULL},
    {"memory.weights.total=\"%b\"", T(KV_OLLAMA_LOG_WEIGHTS_TOTAL), 0, NULL},
    {"memory.weights.repeating=\"%b\"", T(KV_OLLAMA_LOG_WEIGHTS_REPEATING), 0, NULL},
    {"memory.weights.nonrepeating=\"%b\"", T(KV_OLLAMA_LOG_WEIGHTS_NONREPEATING), 0, NULL},
    {"memory.graph.full=\"%b\"", T(KV_OLLAMA_LOG_GRAPH_FULL), 0, NULL},
    {"memory.graph.partial=\"%b\"", T(KV_OLLAMA_LOG_GRAPH_PARTIAL), 0, NULL},
    {"projector.weights=\"%b\"", T(KV_OLLAMA_LOG_PROJECTOR), 0, NULL},
    {"projector.graph=\"%b\"", T(KV_OLLAMA_LOG_PROJECTOR_GRAPH), 0, NULL},
    {"msg=\"gpu memory\"%* free=\"%b\"", T(KV_OLLAMA_LOG_AVAILABLE), 0, NULL},
    {"msg=\"model weights\" device=%s size=\"%b\"", T(KV_TO_SKIP, KV_OLLAMA_LOG_DEVICE_WEIGHTS),
     KV_SUM, NULL},
    {"msg=\"kv cache\" device=%s size=\"%b\"", T(KV_TO_SKIP, KV_OLLAMA_LOG_DEVICE_KV),
     KV_SUM | KV_LINE, NULL},
    {"msg=\"compute graph\" device=%s size=\"%b\"", T(KV_TO_SKIP, KV_OLLAMA_LOG_DEVICE_GRAPH),
     KV_SUM, NULL},
    {"msg=\"total memory\" size=\"%b\"", T(KV_OLLAMA_LOG_TOTAL_MEMORY), 0, NULL},
    /* the runner: its command line (to 0.11.4), its load request (0.11.5 on) */
    {"--model %s ", T(KV_TO_MODEL), 0, NULL},
    {"--ctx-size %n", T(KV_OLLAMA_LOG_KV_SIZE), 0, NULL},
    {"--batch-size %n", T(KV_OLLAMA_LOG_BATCH), 0, NULL},
    {"--n-gpu-layers %n", T(KV_OLLAMA_LOG_NUM_GPU), 0, NULL},
    {"--parallel %n", T(KV_OLLAMA_LOG_PARALLEL), 0, NULL},
    {"--kv-cache-type %s ", T(KV_TO_TYPE_K), 0, NULL},
    {"--flash-attn ", T(KV_OLLAMA_LOG_FLASH, 1), KV_CONST, NULL},
    {"KvSize:%n", T(KV_OLLAMA_LOG_KV_SIZE), 0, NULL},
    {"Parallel:%n", T(KV_OLLAMA_LOG_PARALLEL), 0, NULL},
    {"BatchSize:%n", T(KV_OLLAMA_LOG_BATCH), 0, NULL},
    {"FlashAttention:%s ", T(KV_TO_FLASH), 0, NULL},
    {"FlashAttention:Enabled", T(KV_OLLAMA_LOG_FLASH, 1), KV_CONST, NULL},
    {"FlashAttention:Disabled", T(KV_OLLAMA_LOG_FLASH, 0), KV_CONST, NULL},
    {"FlashAttention:Auto", T(KV_OLLAMA_LOG_FLASH, 2), KV_CONST, NULL},
    {"KvCacheType:%s ", T(KV_TO_TYPE_K), 0, NULL},
    /* the runner's loader lines: the model, when its file is not on this machine */
    ARCH(0, "llama"), ARCH(1, "llama4"), ARCH(2, "mllama"), ARCH(3, "gemma"), ARCH(4, "gemma2"),
    ARCH(5, "gemma3"), ARCH(6, "gemma3n"), ARCH(7, "gemma4"), ARCH(8, "command-r"),
    ARCH(9, "qwen2"), ARCH(10, "qwen2moe"), ARCH(11, "qwen25vl"), ARCH(12, "qwen3"),
    ARCH(13, "qwen3moe"), ARCH(14, "qwen3vl"), ARCH(15, "qwen3vlmoe"), ARCH(16, "qwen3next"),
    ARCH(17, "qwen35"), ARCH(18, "qwen35moe"), ARCH(19, "phi2"), ARCH(20, "phi3"),
    ARCH(21, "stablelm"), ARCH(22, "deepseek2"), ARCH(23, "chatglm"), ARCH(24, "gptoss"),
    ARCH(25, "gpt-oss"), ARCH(26, "mistral3"), ARCH(27, "starcoder2"), ARCH(28, "granite"),
    ARCH(29, "granitemoe"), ARCH(30, "olmo2"), ARCH(31, "olmo3"), ARCH(32, "bert"),
    ARCH(33, "nomic-bert"), ARCH(34, "lfm2"), ARCH(35, "nemotron_h"), ARCH(36, "glm4"),
    ARCH(37, "glm4moe"),
    {"- kv %n: %s.block_count u32 = %n", T(KV_TO_SKIP, KV_TO_SKIP, KV_OLLAMA_LOG_BLOCKS), 0, NULL},
    /* the same geometry as llama.cpp's print_info lines give it (a log whose loader does not
     * dump its keys) */
    PARCH(0, "llama"), PARCH(1, "llama4"), PARCH(2, "mllama"), PARCH(3, "gemma"),
    PARCH(4, "gemma2"), PARCH(5, "gemma3"), PARCH(6, "gemma3n"), PARCH(7, "gemma4"),
    PARCH(8, "command-r"), PARCH(9, "qwen2"), PARCH(10, "qwen2moe"), PARCH(11, "qwen25vl"),
    PARCH(12, "qwen3"), PARCH(13, "qwen3moe"), PARCH(14, "qwen3vl"), PARCH(15, "qwen3vlmoe"),
    PARCH(16, "qwen3next"), PARCH(17, "qwen35"), PARCH(18, "qwen35moe"), PARCH(19, "phi2"),
    PARCH(20, "phi3"), PARCH(21, "stablelm"), PARCH(22, "deepseek2"), PARCH(23, "chatglm"),
    PARCH(24, "gptoss"), PARCH(25, "gpt-oss"), PARCH(26, "mistral3"), PARCH(27, "starcoder2"),
    PARCH(28, "granite"), PARCH(29, "granitemoe"), PARCH(30, "olmo2"), PARCH(31, "olmo3"),
    PARCH(32, "bert"), PARCH(33, "nomic-bert"), PARCH(34, "lfm2"), PARCH(35, "nemotron_h"),
    PARCH(36, "glm4"), PARCH(37, "glm4moe"),
    {"print_info: n_layer = %n", T(KV_OLLAMA_LOG_BLOCKS), 0, NULL},
    {"print_info: n_ctx_train = %n", T(KV_OLLAMA_LOG_CONTEXT_LENGTH), 0, NULL},
    {"print_info: n_embd = %n", T(KV_OLLAMA_LOG_EMBEDDING), 0, NULL},
    {"print_info: n_head = %n", T(KV_OLLAMA_LOG_HEADS), 0, NULL},
    {"print_info: n_head_kv = %n", T(KV_OLLAMA_LOG_HEADS_KV), 0, NULL},
    {"print_info: n_embd_head_k = %n", T(KV_OLLAMA_LOG_KEY_LENGTH), 0, NULL},
    {"print_info: n_embd_head_v = %n", T(KV_OLLAMA_LOG_VALUE_LENGTH), 0, NULL},
    {"print_info: n_swa = %n", T(KV_OLLAMA_LOG_WINDOW), 0, NULL},
    {"print_info: n_vocab = %n", T(KV_OLLAMA_LOG_VOCAB), 0, NULL},
    /* the file type by its name (llama.cpp's llama_model_ftype_name, src/llama-model-loader.cpp):
     * the types file_types[] sizes */
    PFTYPE(0, "all F32"), PFTYPE(1, "F16"), PFTYPE(32, "BF16"), PFTYPE(2, "Q4_0"),
    PFTYPE(3, "Q4_1"), PFTYPE(7, "Q8_0"), PFTYPE(8, "Q5_0"), PFTYPE(9, "Q5_1"),
    PFTYPE(14, "Q4_K - Small"), PFTYPE(15, "Q4_K - Medium"), PFTYPE(16, "Q5_K - Small"),
    PFTYPE(17, "Q5_K - Medium"), PFTYPE(18, "Q6_K"),
    {"- kv %n: %s.context_length u32 = %n",
     T(KV_TO_SKIP, KV_TO_SKIP, KV_OLLAMA_LOG_CONTEXT_LENGTH), 0, NULL},
    {"- kv %n: %s.embedding_length u32 = %n", T(KV_TO_SKIP, KV_TO_SKIP, KV_OLLAMA_LOG_EMBEDDING),
     0, NULL},
    {"- kv %n: %s.attention.head_count u32 = %n", T(KV_TO_SKIP, KV_TO_SKIP, KV_OLLAMA_LOG_HEADS),
     0, NULL},
    {"- kv %n: %s.attention.head_count_kv u32 = %n",
     T(KV_TO_SKIP, KV_TO_SKIP, KV_OLLAMA_LOG_HEADS_KV), 0, NULL},
    {"- kv %n: %s.attention.key_length u32 = %n",
     T(KV_TO_SKIP, KV_TO_SKIP, KV_OLLAMA_LOG_KEY_LENGTH), 0, NULL},
    {"- kv %n: %s.attention.value_length u32 = %n",
     T(KV_TO_SKIP, KV_TO_SKIP, KV_OLLAMA_LOG_VALUE_LENGTH), 0, NULL},
    {"- kv %n: %s.attention.sliding_window u32 = %n",
     T(KV_TO_SKIP, KV_TO_SKIP, KV_OLLAMA_LOG_WINDOW), 0, NULL},
    {"- kv %n: tokenizer.ggml.tokens arr[str,%n]", T(KV_TO_SKIP, KV_OLLAMA_LOG_VOCAB), 0, NULL},
    {"- kv %n: general.file_type u32 = %n", T(KV_TO_SKIP, KV_OLLAMA_LOG_FILE_TYPE), 0, NULL},
    {"loaded meta data with %n key-value pairs and %n tensors from",
     T(KV_TO_SKIP, KV_OLLAMA_LOG_TENSORS), 0, NULL},
    {"- type f32: %n tensors", T(KV_OLLAMA_LOG_F32_TENSORS), 0, NULL},
    {"file size = %b", T(KV_OLLAMA_LOG_FILE_SIZE), 0, NULL},
    {"model size = %b", T(KV_OLLAMA_LOG_FILE_SIZE), 0, NULL},
    {"load_tensors: %s model buffer size = %b", T(KV_TO_SKIP, KV_OLLAMA_LOG_MODEL_BUFFERS), KV_SUM,
     NULL},
    {"load_tensors: %s buffer size = %b", T(KV_TO_SKIP, KV_OLLAMA_LOG_MODEL_BUFFERS), KV_SUM, NULL},
    {"llm_load_tensors: %s buffer size = %b", T(KV_TO_SKIP, KV_OLLAMA_LOG_MODEL_BUFFERS), KV_SUM,
     NULL},
    /* the runner's llama.cpp: what it allocated. A llama.cpp program's build line starts a
     * run of its own (Ollama's runner prints none): in a llama.cpp log, Ollama's candidate
     * counts one run's KV lines, as llama.cpp's does, and the tie goes to llama.cpp */
    {"build: %n (", T(KV_TO_SKIP), KV_START, NULL},
    {"build = %n (", T(KV_TO_SKIP), KV_START, NULL},
    {"KV self size = %b", T(KV_OLLAMA_LOG_RUNNER_KV), KV_LINE, NULL},
    {"llama_kv_cache_unified: size = %b", T(KV_OLLAMA_LOG_RUNNER_KV), KV_LINE, NULL},
    {"llama_kv_cache: size = %b", T(KV_OLLAMA_LOG_RUNNER_KV), KV_LINE, NULL},
};

#define MINE(id) (&kv_ollama_params[id])
#define SET(f, p) {f, p, KV_LOG_SETTING, 0, 0, 0}

/* The settings the comparison lists apart (its "Logged:" line). */
static const int log_settings[] = {
    KV_OLLAMA_LOG_ENV_CTX, KV_OLLAMA_LOG_ENV_PARALLEL, KV_OLLAMA_LOG_FLASH,
    KV_OLLAMA_LOG_BATCH, KV_OLLAMA_LOG_REQUESTED, KV_OLLAMA_LOG_NUM_GPU,
    KV_OLLAMA_LOG_GPU_OVERHEAD};

static const kv_log_input inputs[] = {
    SET(KV_OLLAMA_LOG_PARALLEL, MINE(OL_P_PARALLEL)),
    /* OLLAMA_NUM_PARALLEL when the runner's count is not logged (0: the release's auto) */
    {KV_OLLAMA_LOG_ENV_PARALLEL, MINE(OL_P_PARALLEL), KV_LOG_SETTING, 0,
     KV_OLLAMA_LOG_PARALLEL + 1, 0},
    SET(KV_OLLAMA_LOG_BATCH, MINE(OL_P_BATCH)),
    SET(KV_OLLAMA_LOG_GPU_OVERHEAD, MINE(OL_P_OVERHEAD)),
    SET(KV_OLLAMA_LOG_GPUS, MINE(OL_P_GPUS)),
    /* the device: its total (the GPU's memory) and what Ollama saw free */
    {KV_OLLAMA_LOG_GPU_TOTAL, &kv_core_params[KV_P_GPU_MEM_GIB], KV_LOG_SETTING, 1, 0, 0},
    {KV_OLLAMA_LOG_AVAILABLE, MINE(OL_P_AVAILABLE), KV_LOG_MEASURED, 1, 0, 0},
    /* a projector's sizes, as the estimate counted them */
    {KV_OLLAMA_LOG_PROJECTOR, MINE(OL_P_PROJECTOR), KV_LOG_MEASURED, 1, 0, 0},
    {KV_OLLAMA_LOG_PROJECTOR_GRAPH, MINE(OL_P_PROJECTOR_GRAPH), KV_LOG_MEASURED, 1, 0, 0},
};

/* The release a log's lines imply when it states none: the newest that prints them. */
static const char *release_of(const kv_log_values *v)
{
    if (strcmp(v->era, "offload to") == 0)
        return v->present[KV_OLLAMA_LOG_GPU_OVERHEAD] ? "0.5.11" : "0.3.9";
    if (strcmp(v->era, "offload library=") == 0)
        return "0.12.10";
    return strcmp(v->era, "memory layout") == 0 ? "0.24.0" : NULL;
}

static void texts(const kv_log_values *v, kv_log_inputs *in)
{
    static const char *const libs[KV_OLLAMA_LIBRARIES] = {"cuda", "rocm", "metal",
                                                          "cpu",  "oneapi", "vulkan"};
    const double *x = v->v;
    const unsigned char *p = v->present;
    char buf[48];
    int ver;
    if (v->version[0] && kv_ollama_version_parse(v->version, &ver) == 0)
        kv_log_input_put(in, MINE(OL_P_VERSION), KV_LOG_SETTING, v->version);
    else if (release_of(v))
        kv_log_input_put(in, MINE(OL_P_VERSION), KV_LOG_SETTING, release_of(v));
    /* num_ctx: the runner's context over its sequences; else OLLAMA_CONTEXT_LENGTH */
    if (p[KV_OLLAMA_LOG_KV_SIZE] && x[KV_OLLAMA_LOG_KV_SIZE] >= 1) {
        double par = p[KV_OLLAMA_LOG_PARALLEL] && x[KV_OLLAMA_LOG_PARALLEL] >= 1
                         ? x[KV_OLLAMA_LOG_PARALLEL]
                         : 1;
        snprintf(buf, sizeof buf, "%.0f", kvm_floor(x[KV_OLLAMA_LOG_KV_SIZE] / par));
        kv_log_input_put(in, MINE(OL_P_NUM_CTX), KV_LOG_SETTING, buf);
    } else if (p[KV_OLLAMA_LOG_ENV_CTX] && x[KV_OLLAMA_LOG_ENV_CTX] >= 1) {
        snprintf(buf, sizeof buf, "%.0f", x[KV_OLLAMA_LOG_ENV_CTX]);
        kv_log_input_put(in, MINE(OL_P_NUM_CTX), KV_LOG_SETTING, buf);
    }
    /* num_gpu as asked (the runner's --n-gpu-layers is the estimate's answer) */
    if (p[KV_OLLAMA_LOG_REQUESTED] && x[KV_OLLAMA_LOG_REQUESTED] >= 0) {
        snprintf(buf, sizeof buf, "%.0f", x[KV_OLLAMA_LOG_REQUESTED]);
        kv_log_input_put(in, MINE(OL_P_NUM_GPU), KV_LOG_SETTING, buf);
    }
    if (p[KV_OLLAMA_LOG_LIBRARY] && x[KV_OLLAMA_LOG_LIBRARY] >= 0 &&
        x[KV_OLLAMA_LOG_LIBRARY] < KV_OLLAMA_LIBRARIES)
        kv_log_input_put(in, MINE(OL_P_LIBRARY), KV_LOG_SETTING,
                         libs[(int)x[KV_OLLAMA_LOG_LIBRARY]]);
    /* flash attention asked for (2: left to the runner, i.e. not set) */
    if (p[KV_OLLAMA_LOG_FLASH] && (x[KV_OLLAMA_LOG_FLASH] == 0 || x[KV_OLLAMA_LOG_FLASH] == 1))
        kv_log_input_put(in, MINE(OL_P_FLASH), KV_LOG_SETTING,
                         x[KV_OLLAMA_LOG_FLASH] == 1 ? "1" : "0");
    for (const kv_choice *c = cache_types; c->name; c++)
        if (strcmp(v->type_k, c->name) == 0)
            kv_log_input_put(in, MINE(OL_P_CACHE_TYPE), KV_LOG_SETTING, c->name);
}

#define ROW(q, f, m, unit) {q, f, 0, KV_CMP_D(ollama.m), 1, unit, KV_TERM_KV, 0}
#define ROWI(q, f, m, unit) {q, f, 0, KV_CMP_I(ollama.m), 1, unit, KV_TERM_KV, 0}
static const kv_cmp_row cmp_rows[] = {
    ROW("memory.required.kv", KV_OLLAMA_LOG_KV, kv_bytes, "bytes"),
    ROW("kv cache", KV_OLLAMA_LOG_DEVICE_KV, device_kv_bytes, "bytes"),
    ROW("runner's KV (llama.cpp)", KV_OLLAMA_LOG_RUNNER_KV, kv_bytes, "bytes"),
    ROWI("layers.model", KV_OLLAMA_LOG_LAYERS_MODEL, layers_model, "layers"),
    ROWI("layers.offload", KV_OLLAMA_LOG_LAYERS_OFFLOAD, layers_offload, "layers"),
    ROW("memory.required.full", KV_OLLAMA_LOG_FULL, required_full_bytes, "bytes"),
    ROW("memory.required.partial", KV_OLLAMA_LOG_PARTIAL, required_partial_bytes, "bytes"),
    ROW("memory.required.allocations", KV_OLLAMA_LOG_ALLOCATION, allocation_bytes, "bytes"),
    ROW("memory.weights.total", KV_OLLAMA_LOG_WEIGHTS_TOTAL, weights_total_bytes, "bytes"),
    ROW("memory.weights.repeating", KV_OLLAMA_LOG_WEIGHTS_REPEATING,
        weights_repeating_logged_bytes, "bytes"),
    ROW("memory.weights.nonrepeating", KV_OLLAMA_LOG_WEIGHTS_NONREPEATING,
        weights_nonrepeating_bytes, "bytes"),
    ROW("memory.graph.full", KV_OLLAMA_LOG_GRAPH_FULL, graph_full_bytes, "bytes"),
    ROW("memory.graph.partial", KV_OLLAMA_LOG_GRAPH_PARTIAL, graph_partial_bytes, "bytes"),
    ROW("compute graph", KV_OLLAMA_LOG_DEVICE_GRAPH, gpu_graph_bytes, "bytes"),
    ROW("total memory", KV_OLLAMA_LOG_TOTAL_MEMORY, required_full_bytes, "bytes"),
};

/* The log's KV figure (the estimate's, else the devices', else the runner's), the release
 * as stated or as its lines imply; no budget: the cache follows from the settings, and a
 * size is equal when it prints alike ("%.1f" of its unit). */
static void summary(const kv_log_values *v, const kv_result *a, kv_log_summary *out)
{
    const double *x = v->v;
    const unsigned char *p = v->present;
    (void)a;
    kv_log_summary_common(v, KV_OLLAMA_LOG_KV_SIZE, KV_OLLAMA_LOG_WEIGHTS_TOTAL,
                          KV_OLLAMA_LOG_GPU_TOTAL, out);
    out->kv_total = p[KV_OLLAMA_LOG_KV]          ? x[KV_OLLAMA_LOG_KV]
                    : p[KV_OLLAMA_LOG_DEVICE_KV] ? x[KV_OLLAMA_LOG_DEVICE_KV]
                    : p[KV_OLLAMA_LOG_RUNNER_KV] ? x[KV_OLLAMA_LOG_RUNNER_KV]
                                                 : NAN;
    int ver;
    if (!(v->version[0] && kv_ollama_version_parse(v->version, &ver) == 0) && release_of(v))
        kv_snprintf(out->version, sizeof out->version, "%s (assumed)", release_of(v));
    out->unit_round = 0.05 * KV_MIB;
    out->rounding = kv_ollama_rounding;
    out->from_settings = 1;
}

/* ---- the model as the runner's loader lines describe it ---- */

/* llama.cpp's llama_ftype (general.file_type) -> bytes per element of token_embd (when an
 * output head exists) and of the output head (or the tied token_embd), as its quantizer
 * types them (src/llama-quant.cpp llama_tensor_get_type: the output Q6_K unless the file is
 * 8-bit or wider). */
static const struct {
    int ftype;
    const char *name;
    double embd, out;
} file_types[] = {
    {0, "F32", 4, 4},           {1, "F16", 2, 2},
    {2, "Q4_0", 18.0 / 32, 210.0 / 256}, {3, "Q4_1", 20.0 / 32, 210.0 / 256},
    {7, "Q8_0", 34.0 / 32, 34.0 / 32},   {8, "Q5_0", 22.0 / 32, 210.0 / 256},
    {9, "Q5_1", 24.0 / 32, 210.0 / 256}, {14, "Q4_K_S", 144.0 / 256, 210.0 / 256},
    {15, "Q4_K_M", 144.0 / 256, 210.0 / 256}, {16, "Q5_K_S", 176.0 / 256, 210.0 / 256},
    {17, "Q5_K_M", 176.0 / 256, 210.0 / 256}, {18, "Q6_K", 210.0 / 256, 210.0 / 256},
    {32, "BF16", 2, 2},
};

static kv_status missing(char *err, size_t cap, const char *what)
{
    kv_snprintf(err, cap, "no %s line", what);
    return KV_ERR_FORMAT;
}

/* Whether the output head is token_embd (tied): by the tensor count, a llama-style block's
 * matrices being its only non-f32 tensors (1 or 2 more: token_embd and output); else by
 * the estimate's own logged weights, whichever of the two it is nearer. -1: unknown. */
static int tied_of(const kv_log_values *v, int64_t blocks, double file, double embd, double out)
{
    const double *x = v->v;
    const unsigned char *p = v->present;
    if (p[KV_OLLAMA_LOG_TENSORS] && p[KV_OLLAMA_LOG_F32_TENSORS]) {
        int64_t other = (int64_t)(x[KV_OLLAMA_LOG_TENSORS] - x[KV_OLLAMA_LOG_F32_TENSORS]);
        if (other > 2 && (other - 2) % blocks == 0)
            return 0;
        if (other > 1 && (other - 1) % blocks == 0)
            return 1;
    }
    /* weights.total is blocks + output from 0.6.3 (the layout's "model weights" lines sum
     * the same), the blocks and the KV before 0.6.1, the blocks alone in between */
    int ver = 0;
    if (!(v->version[0] && kv_ollama_version_parse(v->version, &ver) == 0))
        ver = strcmp(v->era, "offload to") == 0 ? 511 : 1210;
    double logged = p[KV_OLLAMA_LOG_WEIGHTS_TOTAL]   ? x[KV_OLLAMA_LOG_WEIGHTS_TOTAL]
                    : p[KV_OLLAMA_LOG_DEVICE_WEIGHTS] ? x[KV_OLLAMA_LOG_DEVICE_WEIGHTS]
                                                      : NAN;
    if (isnan(logged))
        return -1;
    double kv = p[KV_OLLAMA_LOG_KV] ? x[KV_OLLAMA_LOG_KV] : 0;
    double add = ver >= OLLAMA_V(6, 3) || !p[KV_OLLAMA_LOG_WEIGHTS_TOTAL] ? out
                 : ver < OLLAMA_V(6, 1)                                 ? kv
                                                                        : 0;
    double untied = file - out - embd + add, tied = file - out + add;
    return fabs(tied - logged) < fabs(untied - logged);
}

static kv_status model_of_log(const kv_log_values *v, kv_spec *s, kv_gguf_info *g, char *name,
                              size_t cap, char *err, size_t errcap)
{
    const double *x = v->v;
    const unsigned char *p = v->present;
    if (!p[KV_OLLAMA_LOG_BLOCKS])
        return missing(err, errcap, "block_count");
    if (!p[KV_OLLAMA_LOG_EMBEDDING])
        return missing(err, errcap, "embedding_length");
    if (!p[KV_OLLAMA_LOG_HEADS])
        return missing(err, errcap, "attention.head_count");
    if (!p[KV_OLLAMA_LOG_VOCAB])
        return missing(err, errcap, "tokenizer.ggml.tokens");
    if (!p[KV_OLLAMA_LOG_FILE_SIZE])
        return missing(err, errcap, "file size");
    if (!p[KV_OLLAMA_LOG_FILE_TYPE])
        return missing(err, errcap, "general.file_type");
    int64_t blocks = (int64_t)x[KV_OLLAMA_LOG_BLOCKS], embd = (int64_t)x[KV_OLLAMA_LOG_EMBEDDING];
    int64_t heads = (int64_t)x[KV_OLLAMA_LOG_HEADS], vocab = (int64_t)x[KV_OLLAMA_LOG_VOCAB];
    int64_t kv_heads = p[KV_OLLAMA_LOG_HEADS_KV] ? (int64_t)x[KV_OLLAMA_LOG_HEADS_KV] : heads;
    if (blocks < 1 || blocks > KV_GGUF_MAX_LAYERS || embd < 1 || heads < 1 || kv_heads < 1 ||
        vocab < 1 || embd > 1000000 || heads > 100000 || kv_heads > heads || vocab > 10000000) {
        kv_snprintf(err, errcap, "its block_count, embedding_length, head counts or vocabulary are "
                              "out of range");
        return KV_ERR_FORMAT;
    }
    int64_t k = p[KV_OLLAMA_LOG_KEY_LENGTH] ? (int64_t)x[KV_OLLAMA_LOG_KEY_LENGTH] : embd / heads;
    int64_t vl = p[KV_OLLAMA_LOG_VALUE_LENGTH] ? (int64_t)x[KV_OLLAMA_LOG_VALUE_LENGTH] : embd / heads;
    if (k < 1 || vl < 1 || k > 100000 || vl > 100000) {
        kv_snprintf(err, errcap, "its key or value length is out of range");
        return KV_ERR_FORMAT;
    }
    int ft = (int)x[KV_OLLAMA_LOG_FILE_TYPE];
    size_t t = 0;
    while (t < sizeof file_types / sizeof file_types[0] && file_types[t].ftype != ft)
        t++;
    if (t == sizeof file_types / sizeof file_types[0]) {
        kv_snprintf(err, errcap, "its general.file_type %d is one whose embedding and output "
                              "types kvcalc does not know", ft);
        return KV_ERR_FORMAT;
    }
    /* the tensors' bytes: the file size (two decimals of its unit), or the buffers' sum
     * (two decimals of a MiB) when it agrees with that - a buffer that holds a copy of
     * another's tensors (Metal's tied embedding) does not */
    double file = x[KV_OLLAMA_LOG_FILE_SIZE];
    double unit = file >= KV_GIB ? KV_GIB : KV_MIB;
    if (p[KV_OLLAMA_LOG_MODEL_BUFFERS] && fabs(x[KV_OLLAMA_LOG_MODEL_BUFFERS] - file) <= 0.005 * unit)
        file = x[KV_OLLAMA_LOG_MODEL_BUFFERS];
    double embd_bytes = (double)vocab * (double)embd * file_types[t].embd;
    double out = (double)vocab * (double)embd * file_types[t].out, norm = (double)embd * 4;
    int tied = tied_of(v, blocks, file, embd_bytes, out + norm);
    double rest = file - out - norm - (tied == 1 ? 0 : embd_bytes);
    if (!(rest > 0)) {
        kv_snprintf(err, errcap, "its file size is less than its embeddings and output");
        return KV_ERR_FORMAT;
    }

    memset(g, 0, sizeof *g); /* version 0: described by a log */
    int arch = p[KV_OLLAMA_LOG_ARCH] ? (int)x[KV_OLLAMA_LOG_ARCH] : -1;
    kv_snprintf(g->architecture, sizeof g->architecture, "%s",
             arch >= 0 && (size_t)arch < sizeof archs / sizeof archs[0] ? archs[arch] : "");
    g->block_count = g->layer_count = g->kv_layers = blocks;
    g->context_length = p[KV_OLLAMA_LOG_CONTEXT_LENGTH] ? (int64_t)x[KV_OLLAMA_LOG_CONTEXT_LENGTH] : 0;
    g->embedding_length = embd;
    g->head_count = heads;
    g->key_length = g->key_length_swa = g->rope_dims = k;
    g->value_length = g->value_length_swa = vl;
    g->kv_heads_min = g->kv_heads_max = kv_heads;
    g->kv_heads_sum = kv_heads * blocks;
    g->vocab = vocab;
    g->n_tensors = p[KV_OLLAMA_LOG_TENSORS] ? (int64_t)x[KV_OLLAMA_LOG_TENSORS] : 0;
    g->weight_bytes = file;
    g->token_embd_bytes = tied == 1 ? out : embd_bytes; /* tied: typed as the output head */
    g->output_bytes = tied == 1 ? 0 : out;
    g->output_norm_bytes = norm;
    /* the sliding layers by the period the GGUF reader gives these architectures */
    int64_t window = p[KV_OLLAMA_LOG_WINDOW] ? (int64_t)x[KV_OLLAMA_LOG_WINDOW] : 0;
    int period = !strcmp(g->architecture, "gemma3") ? 6
                 : !strcmp(g->architecture, "gemma2") || !strcmp(g->architecture, "gptoss") ||
                           !strcmp(g->architecture, "gpt-oss")
                     ? 2
                     : 0;
    kv_spec_defaults(s);
    for (int64_t l = 0; l < blocks; l++) {
        g->block_bytes[l] = kvm_floor(rest / (double)blocks);
        g->layer_kv_heads[l] = kv_heads;
        int slides = window > 0 && period > 0 && l % period < period - 1;
        g->layer_kind[l] = slides ? KV_LAYER_SLIDING : KV_LAYER_FULL;
        g->swa_layers += slides;
        s->layout.pattern[l] = g->layer_kind[l];
    }
    if (g->swa_layers) {
        g->n_swa = window;
        g->swa_period = period;
        s->layout.pattern_len = (size_t)blocks;
        s->layout.window = window;
    }
    g->arch_known = arch >= 0;
    s->layers = blocks;
    s->kv_heads = kv_heads;
    s->head_dim = (k + vl + 1) / 2;
    s->checkpoint_weights_bytes = file;
    s->weights_source = KV_WEIGHTS_GGUF;
    s->max_context = g->context_length;
    const char *base = strrchr(v->model, '/');
    base = base ? base + 1 : v->model;
    kv_snprintf(name, cap, "%s %s, %lld blocks, as the log describes it%s%s%s", g->architecture,
             file_types[t].name, (long long)blocks, base[0] ? " (" : "", base, base[0] ? ")" : "");
    return KV_OK;
}

static const kv_engine_log ollama_log = {
    KV_TABLE(patterns, patterns),
    .field_names = field_names,
    .n_fields = KV_OLLAMA_LOG_FIELDS,
    .flash_field = KV_OLLAMA_LOG_FLASH,
    .unified_field = -1,
    .weights_field = -1,
    KV_TABLE(settings, log_settings),
    KV_TABLE(inputs, inputs),
    .texts = texts,
    KV_TABLE(rows, cmp_rows),
    .gpu_total_field = KV_OLLAMA_LOG_GPU_TOTAL,
    .needs_gpu_total = 0,
    .e2e_available = 0,
    .summary = summary,
    .model = model_of_log,
};

/* OLLAMA_KV_CACHE_TYPE in force (f16 the dtype's own; q8_0 and q4_0 in ggml's blocks of 32) */
static const char *ollama_cache_types(const kv_spec *s, const kv_result *r, char *buf, size_t cap)
{
    static const char *const names[KV_OLLAMA_CACHE_TYPES] = {"f16", "q8_0", "q4_0"};
    static const double bytes[KV_OLLAMA_CACHE_TYPES] = {2, 34.0 / 32, 18.0 / 32};
    int t = r->ollama.cache_type;
    if (t < 0 || t >= KV_OLLAMA_CACHE_TYPES || (t == KV_OLLAMA_F16 && s->dtype == KV_DTYPE_FP16))
        return NULL;
    kv_snprintf(buf, cap, "K and V in %s (%g B)", names[t], bytes[t]);
    return buf;
}

static const char *ollama_prefix_note(const kv_spec *s, const kv_result *r)
{
    (void)s;
    (void)r;
    return "Ollama holds it once a slot, not once: each slot keeps its own copy";
}

const kv_engine_desc kv_engine_ollama = {
    .id = E,
    .title = "Ollama",
    .doc = "docs/ollama.md",
    .defaults = kv_ollama_defaults,
    .overrides = 1u << KV_P_DTYPE | 1u << KV_P_OVERHEAD_GIB,
    .check = kv_ollama_check,
    .cache_types = ollama_cache_types,
    .range_words = "an Ollama input is out of range, or a size of its estimate passes 2^64 "
                   "bytes (Go's uint64 would wrap); kvcalc refuses rather than print that",
    .compute = kv_ollama_compute,
    .prefix_note = ollama_prefix_note,
    .concurrency_at = kv_ollama_at,
    .relayout = kv_ollama_relayout,
    .kv8_name = "q8_0",
    .kv8 = kv_ollama_kv8,
    .params = kv_ollama_params,
    .n_params = OL_PARAMS,
    KV_TABLE(fields, fields),
    .log = &ollama_log,
    .sched = kv_ollama_sched,
    .step_reads = kv_ollama_step_reads,
};
