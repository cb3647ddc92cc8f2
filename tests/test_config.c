/*
 * test_config.c - reading real config.json files: for every reference config and every
 * field variant, the geometry, the layer layout, the dtypes, and the KV bytes per token and
 * per request at 1,000 and 100,000 tokens, each worked out by hand in the comment above its
 * row (K and V: the leading 2; bf16/fp16: the trailing 2 bytes; windowed layers hold
 * min(context, window) tokens). Then parameter counts against published totals, and every
 * kind of malformed file.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvcalc.h"
#include "run.h"

typedef struct {
    const char *file; /* in data/models/ (the presets), tests/fixtures/variants/, or
                         "unverified/..." (tests/fixtures/unverified) */
    int64_t layers, kv_heads, head_dim, mla_latent;
    int64_t counts[KV_LAYER_KINDS]; /* full, sliding, chunked, state */
    int64_t window, chunk;
    kv_dtype dtype, weight_dtype;
    double per_token, at_1k, at_100k;
} config_case;

static const config_case reference[] = {
    /* fp32 checkpoint served in 16-bit; use_sliding_window false: per token (full layers) = 2 x 24 x 2 x 64 x 2 = 12288
     * @1,000:   2 x 24 x 2 x 64 x 2 x 1000 = 12288000
     * @100,000: 2 x 24 x 2 x 64 x 2 x 100000 = 1228800000 */
    {"Qwen__Qwen2.5-0.5B-Instruct__resaved.json", 24, 2, 64, 0, {24, 0, 0, 0}, 0, 0, KV_DTYPE_FP16, KV_DTYPE_FP16, 12288, 12288000, 1228800000},
    /* 5120/40 = 128: per token (full layers) = 2 x 64 x 8 x 128 x 2 = 262144
     * @1,000:   2 x 64 x 8 x 128 x 2 x 1000 = 262144000
     * @100,000: 2 x 64 x 8 x 128 x 2 x 100000 = 26214400000 */
    {"Qwen__Qwen2.5-32B-Instruct.json", 64, 8, 128, 0, {64, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 262144, 262144000, 26214400000},
    /* 8192/64 = 128: per token (full layers) = 2 x 80 x 8 x 128 x 2 = 327680
     * @1,000:   2 x 80 x 8 x 128 x 2 x 1000 = 327680000
     * @100,000: 2 x 80 x 8 x 128 x 2 x 100000 = 32768000000 */
    {"Qwen__Qwen2.5-72B-Instruct__derivative-UwU-72B-Preview.json", 80, 8, 128, 0, {80, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 327680, 327680000, 32768000000},
    /* the lesson's geometry: per token (full layers) = 2 x 28 x 4 x 128 x 2 = 57344
     * @1,000:   2 x 28 x 4 x 128 x 2 x 1000 = 57344000
     * @100,000: 2 x 28 x 4 x 128 x 2 x 100000 = 5734400000 */
    {"Qwen__Qwen2.5-7B-Instruct.json", 28, 4, 128, 0, {28, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 57344, 57344000, 5734400000},
    /* explicit head_dim 128, not 1024/16 = 64: per token (full layers) = 2 x 28 x 8 x 128 x 2 = 114688
     * @1,000:   2 x 28 x 8 x 128 x 2 x 1000 = 114688000
     * @100,000: 2 x 28 x 8 x 128 x 2 x 100000 = 11468800000 */
    {"Qwen__Qwen3-0.6B.json", 28, 8, 128, 0, {28, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 114688, 114688000, 11468800000},
    /* MoE; KV as dense: per token (full layers) = 2 x 94 x 4 x 128 x 2 = 192512
     * @1,000:   2 x 94 x 4 x 128 x 2 x 1000 = 192512000
     * @100,000: 2 x 94 x 4 x 128 x 2 x 100000 = 19251200000 */
    {"Qwen__Qwen3-235B-A22B.json", 94, 4, 128, 0, {94, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 192512, 192512000, 19251200000},
    /* per token (full layers) = 2 x 48 x 4 x 128 x 2 = 98304
     * @1,000:   2 x 48 x 4 x 128 x 2 x 1000 = 98304000
     * @100,000: 2 x 48 x 4 x 128 x 2 x 100000 = 9830400000 */
    {"Qwen__Qwen3-30B-A3B.json", 48, 4, 128, 0, {48, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 98304, 98304000, 9830400000},
    /* per token (full layers) = 2 x 64 x 8 x 128 x 2 = 262144
     * @1,000:   2 x 64 x 8 x 128 x 2 x 1000 = 262144000
     * @100,000: 2 x 64 x 8 x 128 x 2 x 100000 = 26214400000 */
    {"Qwen__Qwen3-32B.json", 64, 8, 128, 0, {64, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 262144, 262144000, 26214400000},
    /* per token (full layers) = 2 x 36 x 8 x 128 x 2 = 147456
     * @1,000:   2 x 36 x 8 x 128 x 2 x 1000 = 147456000
     * @100,000: 2 x 36 x 8 x 128 x 2 x 100000 = 14745600000 */
    {"Qwen__Qwen3-8B.json", 36, 8, 128, 0, {36, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 147456, 147456000, 14745600000},
    /* awq 4-bit weights: per token (full layers) = 2 x 80 x 8 x 128 x 2 = 327680
     * @1,000:   2 x 80 x 8 x 128 x 2 x 1000 = 327680000
     * @100,000: 2 x 80 x 8 x 128 x 2 x 100000 = 32768000000 */
    {"unverified/deepseek-ai__DeepSeek-R1-Distill-Llama-70B__awq-casperhansen.json", 80, 8, 128, 0, {80, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_INT4, 327680, 327680000, 32768000000},
    /* per token (full layers) = 2 x 64 x 8 x 128 x 2 = 262144
     * @1,000:   2 x 64 x 8 x 128 x 2 x 1000 = 262144000
     * @100,000: 2 x 64 x 8 x 128 x 2 x 100000 = 26214400000 */
    {"deepseek-ai__DeepSeek-R1-Distill-Qwen-32B.json", 64, 8, 128, 0, {64, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 262144, 262144000, 26214400000},
    /* MLA latent 512 + 64; fp8 weights: per token (full layers) = 61 x 576 x 2 = 70272
     * @1,000:   61 x 576 x 2 x 1000 = 70272000
     * @100,000: 61 x 576 x 2 x 100000 = 7027200000 */
    {"deepseek-ai__DeepSeek-R1.json", 61, 128, 56, 576, {61, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_FP8, 70272, 70272000, 7027200000},
    /* MLA latent 512 + 64; fp8 weights: per token (full layers) = 61 x 576 x 2 = 70272
     * @1,000:   61 x 576 x 2 x 1000 = 70272000
     * @100,000: 61 x 576 x 2 x 100000 = 7027200000 */
    {"deepseek-ai__DeepSeek-V3.json", 61, 128, 56, 576, {61, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_FP8, 70272, 70272000, 7027200000},
    /* even layers slide: per token (full layers) = 2 x 21 x 8 x 256 x 2 = 172032
     * @1,000:   2 x 21 x 8 x 256 x 2 x 1000 + 2 x 21 x 8 x 256 x 2 x 1000 = 344064000
     * @100,000: 2 x 21 x 8 x 256 x 2 x 100000 + 2 x 21 x 8 x 256 x 2 x 4096 = 17907843072 */
    {"google__gemma-2-9b-it.json", 42, 8, 256, 0, {21, 21, 0, 0}, 4096, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 172032, 344064000, 17907843072},
    /* text_config; head_dim default 256; every 6th global: per token (full layers) = 2 x 8 x 8 x 256 x 2 = 65536
     * @1,000:   2 x 8 x 8 x 256 x 2 x 1000 + 2 x 40 x 8 x 256 x 2 x 1000 = 393216000
     * @100,000: 2 x 8 x 8 x 256 x 2 x 100000 + 2 x 40 x 8 x 256 x 2 x 1024 = 6889144320 */
    {"google__gemma-3-12b-pt__mlx-community-4bit.json", 48, 8, 256, 0, {8, 40, 0, 0}, 1024, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 65536, 393216000, 6889144320},
    /* 62 = 10 x 6 + 2: 10 global: per token (full layers) = 2 x 10 x 16 x 128 x 2 = 81920
     * @1,000:   2 x 10 x 16 x 128 x 2 x 1000 + 2 x 52 x 16 x 128 x 2 x 1000 = 507904000
     * @100,000: 2 x 10 x 16 x 128 x 2 x 100000 + 2 x 52 x 16 x 128 x 2 x 1024 = 8628207616 */
    {"google__gemma-3-27b-it__copy-btly-hewo.json", 62, 16, 128, 0, {10, 52, 0, 0}, 1024, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 81920, 507904000, 8628207616},
    /* heads 8 / kv 4 / head_dim 256 are defaults: per token (full layers) = 2 x 5 x 4 x 256 x 2 = 20480
     * @1,000:   2 x 5 x 4 x 256 x 2 x 1000 + 2 x 29 x 4 x 256 x 2 x 1000 = 139264000
     * @100,000: 2 x 5 x 4 x 256 x 2 x 100000 + 2 x 29 x 4 x 256 x 2 x 1024 = 2169634816 */
    {"google__gemma-3-4b-it__mlx-community-bf16.json", 34, 4, 256, 0, {5, 29, 0, 0}, 1024, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 20480, 139264000, 2169634816},
    /* per token (full layers) = 2 x 80 x 8 x 128 x 2 = 327680
     * @1,000:   2 x 80 x 8 x 128 x 2 x 1000 = 327680000
     * @100,000: 2 x 80 x 8 x 128 x 2 x 100000 = 32768000000 */
    {"meta-llama__Llama-2-70b-hf.json", 80, 8, 128, 0, {80, 0, 0, 0}, 0, 0, KV_DTYPE_FP16, KV_DTYPE_FP16, 327680, 327680000, 32768000000},
    /* MHA: per token (full layers) = 2 x 32 x 32 x 128 x 2 = 524288
     * @1,000:   2 x 32 x 32 x 128 x 2 x 1000 = 524288000
     * @100,000: 2 x 32 x 32 x 128 x 2 x 100000 = 52428800000 */
    {"meta-llama__Llama-2-7b-hf.json", 32, 32, 128, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_FP16, KV_DTYPE_FP16, 524288, 524288000, 52428800000},
    /* per token (full layers) = 2 x 126 x 8 x 128 x 2 = 516096
     * @1,000:   2 x 126 x 8 x 128 x 2 x 1000 = 516096000
     * @100,000: 2 x 126 x 8 x 128 x 2 x 100000 = 51609600000 */
    {"meta-llama__Llama-3.1-405B.json", 126, 8, 128, 0, {126, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 516096, 516096000, 51609600000},
    /* per token (full layers) = 2 x 80 x 8 x 128 x 2 = 327680
     * @1,000:   2 x 80 x 8 x 128 x 2 x 1000 = 327680000
     * @100,000: 2 x 80 x 8 x 128 x 2 x 100000 = 32768000000 */
    {"meta-llama__Llama-3.1-70B-Instruct.json", 80, 8, 128, 0, {80, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 327680, 327680000, 32768000000},
    /* per token (full layers) = 2 x 80 x 8 x 128 x 2 = 327680
     * @1,000:   2 x 80 x 8 x 128 x 2 x 1000 = 327680000
     * @100,000: 2 x 80 x 8 x 128 x 2 x 100000 = 32768000000 */
    {"meta-llama__Llama-3.1-70B.json", 80, 8, 128, 0, {80, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 327680, 327680000, 32768000000},
    /* per token (full layers) = 2 x 32 x 8 x 128 x 2 = 131072
     * @1,000:   2 x 32 x 8 x 128 x 2 x 1000 = 131072000
     * @100,000: 2 x 32 x 8 x 128 x 2 x 100000 = 13107200000 */
    {"meta-llama__Llama-3.1-8B-Instruct.json", 32, 8, 128, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 131072, 131072000, 13107200000},
    /* per token (full layers) = 2 x 32 x 8 x 128 x 2 = 131072
     * @1,000:   2 x 32 x 8 x 128 x 2 x 1000 = 131072000
     * @100,000: 2 x 32 x 8 x 128 x 2 x 100000 = 13107200000 */
    {"meta-llama__Llama-3.1-8B.json", 32, 8, 128, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 131072, 131072000, 13107200000},
    /* explicit head_dim 64: per token (full layers) = 2 x 16 x 8 x 64 x 2 = 32768
     * @1,000:   2 x 16 x 8 x 64 x 2 x 1000 = 32768000
     * @100,000: 2 x 16 x 8 x 64 x 2 x 100000 = 3276800000 */
    {"meta-llama__Llama-3.2-1B-Instruct.json", 16, 8, 64, 0, {16, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 32768, 32768000, 3276800000},
    /* per token (full layers) = 2 x 28 x 8 x 128 x 2 = 114688
     * @1,000:   2 x 28 x 8 x 128 x 2 x 1000 = 114688000
     * @100,000: 2 x 28 x 8 x 128 x 2 x 100000 = 11468800000 */
    {"meta-llama__Llama-3.2-3B-Instruct.json", 28, 8, 128, 0, {28, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 114688, 114688000, 11468800000},
    /* per token (full layers) = 2 x 80 x 8 x 128 x 2 = 327680
     * @1,000:   2 x 80 x 8 x 128 x 2 x 1000 = 327680000
     * @100,000: 2 x 80 x 8 x 128 x 2 x 100000 = 32768000000 */
    {"meta-llama__Llama-3.3-70B-Instruct.json", 80, 8, 128, 0, {80, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 327680, 327680000, 32768000000},
    /* every 4th layer global, others chunked 8192: per token (full layers) = 2 x 12 x 8 x 128 x 2 = 49152
     * @1,000:   2 x 12 x 8 x 128 x 2 x 1000 + 2 x 36 x 8 x 128 x 2 x 1000 = 196608000
     * @100,000: 2 x 12 x 8 x 128 x 2 x 100000 + 2 x 36 x 8 x 128 x 2 x 8192 = 6123159552 */
    {"meta-llama__Llama-4-Maverick-17B-128E-Instruct__abridged.json", 48, 8, 128, 0, {12, 0, 36, 0}, 0, 8192, KV_DTYPE_BF16, KV_DTYPE_BF16, 49152, 196608000, 6123159552},
    /* every 4th layer global, others chunked 8192: per token (full layers) = 2 x 12 x 8 x 128 x 2 = 49152
     * @1,000:   2 x 12 x 8 x 128 x 2 x 1000 + 2 x 36 x 8 x 128 x 2 x 1000 = 196608000
     * @100,000: 2 x 12 x 8 x 128 x 2 x 100000 + 2 x 36 x 8 x 128 x 2 x 8192 = 6123159552 */
    {"meta-llama__Llama-4-Scout-17B-16E-Instruct__abridged.json", 48, 8, 128, 0, {12, 0, 36, 0}, 0, 8192, KV_DTYPE_BF16, KV_DTYPE_BF16, 49152, 196608000, 6123159552},
    /* per token (full layers) = 2 x 32 x 8 x 128 x 2 = 131072
     * @1,000:   2 x 32 x 8 x 128 x 2 x 1000 = 131072000
     * @100,000: 2 x 32 x 8 x 128 x 2 x 100000 = 13107200000 */
    {"meta-llama__Meta-Llama-3-8B__from-mlc-pydict.json", 32, 8, 128, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 131072, 131072000, 13107200000},
    /* sliding_window null: per token (full layers) = 2 x 40 x 10 x 128 x 2 = 204800
     * @1,000:   2 x 40 x 10 x 128 x 2 x 1000 = 204800000
     * @100,000: 2 x 40 x 10 x 128 x 2 x 100000 = 20480000000 */
    {"microsoft__phi-4.json", 40, 10, 128, 0, {40, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 204800, 204800000, 20480000000},
    /* window 4096 on every layer: per token (full layers) = 2 x 0 x 8 x 128 x 2 = 0
     * @1,000:   2 x 32 x 8 x 128 x 2 x 1000 = 131072000
     * @100,000: 2 x 32 x 8 x 128 x 2 x 4096 = 536870912 */
    {"mistralai__Mistral-7B-Instruct-v0.1.json", 32, 8, 128, 0, {0, 32, 0, 0}, 4096, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 0, 131072000, 536870912},
    /* sliding_window null: per token (full layers) = 2 x 32 x 8 x 128 x 2 = 131072
     * @1,000:   2 x 32 x 8 x 128 x 2 x 1000 = 131072000
     * @100,000: 2 x 32 x 8 x 128 x 2 x 100000 = 13107200000 */
    {"mistralai__Mistral-7B-Instruct-v0.3.json", 32, 8, 128, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 131072, 131072000, 13107200000},
    /* per token (full layers) = 2 x 56 x 8 x 128 x 2 = 229376
     * @1,000:   2 x 56 x 8 x 128 x 2 x 1000 = 229376000
     * @100,000: 2 x 56 x 8 x 128 x 2 x 100000 = 22937600000 */
    {"mistralai__Mixtral-8x22B-v0.1.json", 56, 8, 128, 0, {56, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 229376, 229376000, 22937600000},
    /* per token (full layers) = 2 x 32 x 8 x 128 x 2 = 131072
     * @1,000:   2 x 32 x 8 x 128 x 2 x 1000 = 131072000
     * @100,000: 2 x 32 x 8 x 128 x 2 x 100000 = 13107200000 */
    {"mistralai__Mixtral-8x7B-v0.1.json", 32, 8, 128, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 131072, 131072000, 13107200000},
    /* layer_types alternate; mxfp4 weights: per token (full layers) = 2 x 18 x 8 x 64 x 2 = 36864
     * @1,000:   2 x 18 x 8 x 64 x 2 x 1000 + 2 x 18 x 8 x 64 x 2 x 128 = 41582592
     * @100,000: 2 x 18 x 8 x 64 x 2 x 100000 + 2 x 18 x 8 x 64 x 2 x 128 = 3691118592 */
    {"openai__gpt-oss-120b.json", 36, 8, 64, 0, {18, 18, 0, 0}, 128, 0, KV_DTYPE_BF16, KV_DTYPE_INT4, 36864, 41582592, 3691118592},
    /* layer_types alternate; mxfp4 weights: per token (full layers) = 2 x 12 x 8 x 64 x 2 = 24576
     * @1,000:   2 x 12 x 8 x 64 x 2 x 1000 + 2 x 12 x 8 x 64 x 2 x 128 = 27721728
     * @100,000: 2 x 12 x 8 x 64 x 2 x 100000 + 2 x 12 x 8 x 64 x 2 x 128 = 2460745728 */
    {"openai__gpt-oss-20b.json", 24, 8, 64, 0, {12, 12, 0, 0}, 128, 0, KV_DTYPE_BF16, KV_DTYPE_INT4, 24576, 27721728, 2460745728},
    /* Nemotron-H, hybrid_override_pattern of 52 blocks: 23 M (Mamba-2) + 6 * (attention) + 23 E
     * (MoE, no cache): 29 layers. full 2 x 6 x 2 x 128 x 2 = 6,144 B/token. Mamba-2 state
     * (mamba_num_heads 64, mamba_head_dim 64, n_groups 8, ssm_state_size 128, conv_kernel 4):
     * inner 64 x 64 = 4,096; conv (4,096 + 2 x 8 x 128) x 3 = 18,432 + ssm 4,096 x 128 =
     * 524,288 -> 542,720 elements; mamba_ssm_cache_dtype float32: 18,432 x 2 + 524,288 x 4 =
     * 2,134,016 B; x 23 = 49,082,368 B per request.
     * @1,000:   6,144,000 + 49,082,368 = 55,226,368
     * @100,000: 614,400,000 + 49,082,368 = 663,482,368 */
    {"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json", 29, 2, 128, 0, {6, 0, 0, 23}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 6144, 55226368, 663482368},
    /* Qwen3-Next-80B-A3B: full_attention_interval 4 -> 12 full + 36 gated-delta-net layers
     * (same sizes as the qwen3-next.json variant below): 1,097,728 B each, x 36 = 39,518,208 B.
     * full 2 x 12 x 2 x 256 x 2 = 24,576 B/token.
     * @1,000:   24,576,000 + 39,518,208 = 64,094,208
     * @100,000: 2,457,600,000 + 39,518,208 = 2,497,118,208 */
    {"Qwen__Qwen3-Next-80B-A3B.json", 48, 2, 256, 0, {12, 0, 0, 36}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 24576, 64094208, 2497118208.0},
    /* DeepSeek-V3.2 (fp8 weights): MLA latent 512 + 64 = 576, one vector per layer, no K/V
     * factor, and the DSA indexer's key (index_head_dim 128) beside it, in the KV dtype for
     * the lesson's model: 61 x (576 + 128) x 2 = 85,888 B/token.
     * @1,000:   85,888,000   @100,000: 8,588,800,000 */
    /* EXAONE-4.0: layer_types LLLG (sliding_window_pattern "LLLG" is a string, not read):
     * 16 full + 48 sliding (4096). full 2 x 16 x 8 x 128 x 2 = 65,536 B/token; sliding
     * 2 x 48 x 8 x 128 x 2 = 196,608 B/token up to 4,096 tokens.
     * @1,000:   (65,536 + 196,608) x 1,000 = 262,144,000
     * @100,000: 65,536 x 100,000 + 196,608 x 4,096 = 6,553,600,000 + 805,306,368 */
    {"LGAI-EXAONE__EXAONE-4.0-32B.json", 64, 8, 128, 0, {16, 48, 0, 0}, 4096, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 65536, 262144000, 7358906368.0},
    /* Qwen3.5-35B-A3B (text_config): full_attention_interval 4 -> 10 full + 30 gated-delta-net
     * layers, conv (2 x 16 x 128 + 32 x 128) x 3 = 24,576 + recurrent 32 x 128 x 128 =
     * 524,288 -> 548,864 elements; mamba_ssm_dtype float32: 24,576 x 2 + 524,288 x 4 =
     * 2,146,304 B; x 30 = 64,389,120 B.
     * full 2 x 10 x 2 x 256 x 2 = 20,480 B/token.
     * @1,000:   20,480,000 + 64,389,120 = 84,869,120
     * @100,000: 2,048,000,000 + 64,389,120 = 2,112,389,120 */
    {"Qwen__Qwen3.5-35B-A3B.json", 40, 2, 256, 0, {10, 0, 0, 30}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 20480, 84869120, 2112389120.0},
    /* Qwen3.5-9B and -4B (text_config): layer_types 24 linear + 8 full; 4 KV heads x 256: full
     * 2 x 8 x 4 x 256 x 2 = 32,768 B/token; the gated delta net's state, mamba_ssm_dtype
     * float32: conv (2 x 16 x 128 + 32 x 128) x 3 x 2 B = 49,152 + SSM 32 x 128 x 128 x 4 B =
     * 2,097,152 -> 2,146,304 B, x 24 = 51,511,296 B.
     * @1,000:   32,768,000 + 51,511,296 = 84,279,296
     * @100,000: 3,276,800,000 + 51,511,296 = 3,328,311,296 */
    {"Qwen__Qwen3.5-9B.json", 32, 4, 256, 0, {8, 0, 0, 24}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 32768, 84279296, 3328311296.0},
    {"Qwen__Qwen3.5-4B__from-log-output.json", 32, 4, 256, 0, {8, 0, 0, 24}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 32768, 84279296, 3328311296.0},
    /* Qwen3.6-27B (Qwen3.5-27B's shapes): 48 linear + 16 full; full 2 x 16 x 4 x 256 x 2 =
     * 65,536 B/token; state conv 3 x 10,240 x 2 B = 61,440 + SSM 48 x 128 x 128 x 4 B =
     * 3,145,728 -> 3,207,168 B, x 48 = 153,944,064 B.
     * @1,000:   65,536,000 + 153,944,064 = 219,480,064
     * @100,000: 6,553,600,000 + 153,944,064 = 6,707,544,064 */
    {"Qwen__Qwen3.6-27B__from-report.json", 64, 4, 256, 0, {16, 0, 0, 48}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 65536, 219480064, 6707544064.0},
    /* Gemma-4 26B-A4B: layer_types 25 sliding (1024) + 5 full; the full layers have their own
     * shape (num_global_key_value_heads 2 x global_head_dim 512): full 2 x 5 x 2 x 512 x 2 =
     * 20,480 B/token; sliding 2 x 25 x 8 x 256 x 2 = 204,800 B/token up to 1,024 tokens.
     * @1,000:   (20,480 + 204,800) x 1,000 = 225,280,000
     * @100,000: 20,480 x 100,000 + 204,800 x 1,024 = 2,048,000,000 + 209,715,200 */
    {"google__gemma-4-26B-A4B.json", 30, 8, 256, 0, {5, 25, 0, 0}, 1024, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 20480, 225280000, 2257715200.0},
    /* Gemma-3-1B: sliding_window_pattern 6 -> layers 5, 11, 17, 23 full (4), 22 sliding (512);
     * 1 KV head, head_dim 256. full 2 x 4 x 1 x 256 x 2 = 4,096 B/token; sliding
     * 2 x 22 x 1 x 256 x 2 = 22,528 B/token up to 512 tokens.
     * @1,000:   4,096,000 + 22,528 x 512 = 4,096,000 + 11,534,336 = 15,630,336
     * @100,000: 409,600,000 + 11,534,336 = 421,134,336 */
    {"google__gemma-3-1b-it__from-mlc-pydict.json", 26, 1, 256, 0, {4, 22, 0, 0}, 512, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 4096, 15630336, 421134336},
    {"deepseek-ai__DeepSeek-V3.2.json", 61, 128, 56, 576, {61, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_FP8, 85888, 85888000, 8588800000.0},
    /* Phi-4-mini-instruct (the whole file, re-dumped): sliding_window 262,144 >= max_position_embeddings
     * 131,072, so all 32 layers are full; head_dim 3,072 / 24 = 128:
     * per token (full layers) = 2 x 32 x 8 x 128 x 2 = 131072
     * @1,000:   2 x 32 x 8 x 128 x 2 x 1000 = 131072000
     * @100,000: 2 x 32 x 8 x 128 x 2 x 100000 = 13107200000 */
    {"microsoft__Phi-4-mini-instruct__resaved.json", 32, 8, 128, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 131072, 131072000, 13107200000.0},
    /* GLM-4.5 (model_type glm4_shared_moe in this copy; read as the generic decoder):
     * per token (full layers) = 2 x 92 x 8 x 128 x 2 = 376832
     * @1,000:   2 x 92 x 8 x 128 x 2 x 1000 = 376832000
     * @100,000: 2 x 92 x 8 x 128 x 2 x 100000 = 37683200000 */
    {"zai-org__GLM-4.5__derivative-GLM4.5-Scattermoe.json", 92, 8, 128, 0, {92, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 376832, 376832000, 37683200000.0},
    /* Qwen3-4B-Instruct-2507: use_sliding_window false: per token (full layers) = 2 x 36 x 8 x 128 x 2 = 147456
     * @1,000:   2 x 36 x 8 x 128 x 2 x 1000 = 147456000
     * @100,000: 2 x 36 x 8 x 128 x 2 x 100000 = 14745600000 */
    {"Qwen__Qwen3-4B-Instruct-2507__derivative-jaman21-Qwen3-4B-Instruct.json", 36, 8, 128, 0, {36, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 147456, 147456000, 14745600000.0},
};

static const config_case variants[] = {
    /* multi_query: one KV head; head_dim 4544 / 71 = 64. 2 x 32 x 1 x 64 x 2 = 8,192 B
     * @1,000: 8,192,000   @100,000: 819,200,000 */
    {"falcon-7b.json", 32, 1, 64, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 8192,
     8192000, 819200000},
    /* a re-saved Falcon-7B with num_kv_heads 71: multi_query still means one KV head */
    {"falcon-7b-resaved.json", 32, 1, 64, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16,
     8192, 8192000, 819200000},
    /* n_head_kv 8, head_dim 8192 / 128 = 64: 2 x 60 x 8 x 64 x 2 = 122,880 B
     * @1,000: 122,880,000   @100,000: 12,288,000,000 */
    {"falcon-40b.json", 60, 8, 64, 0, {60, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 122880,
     122880000, 12288000000.0},
    /* GLM-4: num_layers 40, multi_query_group_num 2, kv_channels 128:
     * 2 x 40 x 2 x 128 x 2 = 40,960 B; @1,000: 40,960,000; @100,000: 4,096,000,000 */
    {"glm-4-9b.json", 40, 2, 128, 0, {40, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 40960,
     40960000, 4096000000.0},
    /* llm_config nesting, Qwen2.5-7B inside: 2 x 28 x 4 x 128 x 2 = 57,344 B */
    {"internvl-llm-config.json", 28, 4, 128, 0, {28, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16,
     57344, 57344000, 5734400000.0},
    /* Jamba: attention when i % 8 == 4 -> layers 4, 12, 20, 28; 28 Mamba layers, each with
     * d_inner = 2 x 4096 = 8192: conv 8192 x (4 - 1) = 24,576 + ssm 8192 x 16 = 131,072
     * = 155,648 elements = 311,296 B; x 28 = 8,716,288 B per request.
     * full: 2 x 4 x 8 x 128 x 2 = 16,384 B/token.
     * @1,000: 16,384,000 + 8,716,288 = 25,100,288
     * @100,000: 1,638,400,000 + 8,716,288 = 1,647,116,288 */
    {"jamba.json", 32, 8, 128, 0, {4, 0, 0, 28}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 16384,
     25100288, 1647116288},
    /* Qwen3-Next: every 4th layer full (12), 36 gated-delta-net layers with
     * conv (2 x 16 x 128 + 32 x 128) x 3 = 24,576 + recurrent 32 x 128 x 128 = 524,288
     * = 548,864 elements = 1,097,728 B; x 36 = 39,518,208 B.
     * full: 2 x 12 x 2 x 256 x 2 = 24,576 B/token.
     * @1,000: 24,576,000 + 39,518,208 = 64,094,208
     * @100,000: 2,457,600,000 + 39,518,208 = 2,497,118,208 */
    {"qwen3-next.json", 48, 2, 256, 0, {12, 0, 0, 36}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 24576,
     64094208, 2497118208.0},
    /* state layers whose size the config does not give: counted as 0 (and reported).
     * head_dim 1024 / 8 = 128; full 2 x 2 x 2 x 128 x 2 = 2,048 B/token */
    {"hybrid-unknown-state.json", 8, 2, 128, 0, {2, 0, 0, 6}, 0, 0, KV_DTYPE_FP16, KV_DTYPE_FP16,
     2048, 2048000, 204800000},
    /* use_sliding_window with max_window_layers 20: layers 20..27 slide (8), 20 full.
     * full 2 x 20 x 4 x 128 x 2 = 40,960; sliding 2 x 8 x 4 x 128 x 2 = 16,384 per token.
     * @1,000: (40,960 + 16,384) x 1,000 = 57,344,000
     * @100,000: 40,960 x 100,000 + 16,384 x 4,096 = 4,096,000,000 + 67,108,864 */
    {"qwen2-sliding.json", 28, 4, 128, 0, {20, 8, 0, 0}, 4096, 0, KV_DTYPE_FP16, KV_DTYPE_FP16,
     40960, 57344000, 4163108864.0},
    /* no_rope_layers [1,1,0,1,1,0,0,1]: 5 chunked (4096), 3 full.
     * full 2 x 3 x 8 x 128 x 2 = 12,288; chunked 2 x 5 x 8 x 128 x 2 = 20,480 per token.
     * @1,000: 32,768,000; @100,000: 1,228,800,000 + 20,480 x 4,096 = 1,312,686,080 */
    {"llama4-no-rope-layers.json", 8, 8, 128, 0, {3, 0, 5, 0}, 0, 4096, KV_DTYPE_BF16,
     KV_DTYPE_BF16, 12288, 32768000, 1312686080},
    /* layer_types with Mamba-2 layers: inner 128 x 64 = 8,192; conv (8,192 + 2 x 8 x 128) x 3
     * = 30,720 + ssm 8,192 x 128 = 1,048,576 -> 1,079,296 elements = 2,158,592 B; x 4 =
     * 8,634,368 B. full 2 x 2 x 8 x 128 x 2 = 8,192 B/token.
     * @1,000: 8,192,000 + 8,634,368 = 16,826,368; @100,000: 819,200,000 + 8,634,368 */
    {"layer-types-mamba2.json", 6, 8, 128, 0, {2, 0, 0, 4}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16,
     8192, 16826368, 827834368},
    /* an excerpt of microsoft/Phi-4-mini-instruct's config.json (the fields that decide the KV
     * cache): sliding_window 262,144 >= max_position_embeddings 131,072, so the window never
     * binds and all 32 layers are full attention. head_dim 3,072 / 24 = 128:
     * 2 x 32 x 8 x 128 x 2 = 131,072 B per token
     * @1,000: 131,072,000   @100,000: 13,107,200,000 */
    {"phi-4-mini.json", 32, 8, 128, 0, {32, 0, 0, 0}, 0, 0, KV_DTYPE_BF16, KV_DTYPE_BF16, 131072,
     131072000, 13107200000.0},
};

/* A file of dir; "unverified/NAME" is one of tests/fixtures/unverified, the configs that left
 * the presets for want of a checkpoint figure (data/models/SOURCES.md). */
static void load(const char *dir, const char *file, kv_spec *s, kv_model_info *info)
{
    char path[512], err[512];
    if (strncmp(file, "unverified/", 11) == 0)
        dir = "tests/fixtures";
    snprintf(path, sizeof path, "%s/%s/%s", KVCALC_SOURCE_DIR, dir, file);
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        fail_msg("cannot read %s", path);
    kv_spec_defaults(s);
    int rc = kv_config_read(text, len, file, s, info, err, sizeof err);
    if (rc != 0)
        fail_msg("%s: %s", file, err);
    free(text);
}

static double request_bytes(kv_spec *s, int64_t context)
{
    kv_result r;
    s->context = context;
    assert_int_equal(kv_compute(s, &r), KV_OK);
    return r.kv_bytes_per_request;
}

static void check_case(const char *dir, const config_case *c)
{
    kv_spec s;
    kv_model_info info;
    kv_result r;
    load(dir, c->file, &s, &info);
    print_message("  %s\n", c->file);
    assert_int_equal(s.layers, c->layers);
    assert_int_equal(s.kv_heads, c->kv_heads);
    assert_int_equal(s.head_dim, c->head_dim);
    assert_int_equal(s.layout.mla, c->mla_latent > 0);
    if (c->mla_latent)
        assert_int_equal(s.layout.mla_latent, c->mla_latent);
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(&s.layout, s.layers, counts);
    for (int k = 0; k < KV_LAYER_KINDS; k++)
        assert_int_equal(counts[k], c->counts[k]);
    if (c->counts[KV_LAYER_SLIDING])
        assert_int_equal(s.layout.window, c->window);
    if (c->counts[KV_LAYER_CHUNKED])
        assert_int_equal(s.layout.chunk, c->chunk);
    assert_int_equal(s.dtype, c->dtype);
    assert_int_equal(s.weight_dtype, c->weight_dtype);
    if (s.arch.unknown[0]) { /* weights it cannot count: refused until they are given */
        kv_value v = {.d = 7};
        assert_false(s.params_estimated);
        assert_int_equal(kv_compute(&s, &r), KV_ERR_WEIGHTS_UNKNOWN);
        assert_int_equal(kv_spec_set(&s, kv_core_param_get(KV_P_PARAMS_B), &v), KV_OK);
        assert_int_equal(s.arch.unknown[0], 0);
    }
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.kv_bytes_per_token == c->per_token);
    assert_true(request_bytes(&s, 1000) == c->at_1k);
    assert_true(request_bytes(&s, 100000) == c->at_100k);
}

static void reference_configs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof reference / sizeof reference[0]; i++)
        check_case("data/models", &reference[i]);
}

static void field_variants(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        check_case("tests/fixtures/variants", &variants[i]);
}

/* Published totals (model-notes.md), within 2%. */
static void parameter_counts(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        double published;
    } totals[] = {
        {"meta-llama__Llama-3.1-8B.json", 8.03e9},
        {"meta-llama__Llama-3.1-70B.json", 70.6e9},
        {"Qwen__Qwen2.5-7B-Instruct.json", 7.62e9},
        {"mistralai__Mixtral-8x7B-v0.1.json", 46.7e9},
        {"deepseek-ai__DeepSeek-V3.json", 671e9}, /* without the 14B MTP module */
        {"openai__gpt-oss-120b.json", 117e9},
        {"openai__gpt-oss-20b.json", 21e9},
        {"Qwen__Qwen3-1.7B.json", 1.7e9},
        {"Qwen__Qwen3-Coder-480B-A35B-Instruct.json", 480e9},
        {"HuggingFaceTB__SmolLM3-3B.json", 3.08e9}, /* tied embeddings: the smollm3 default */
        {"zai-org__GLM-4.5__derivative-GLM4.5-Scattermoe.json", 355e9}, /* without the MTP layer;
                                                                   355B: transformers Glm4Moe docs */
    };
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++) {
        kv_spec s;
        kv_model_info info;
        kv_result r;
        load("data/models", totals[i].file, &s, &info);
        assert_true(s.params_estimated);
        assert_int_equal(kv_compute(&s, &r), KV_OK);
        double off = fabs(r.params - totals[i].published) / totals[i].published;
        print_message("  %s: %.3fB vs %.2fB (%.2f%%)\n", totals[i].file, r.params / 1e9,
                      totals[i].published / 1e9, off * 100);
        assert_true(off < 0.02);
    }
    /* Llama-3.1-8B by hand: embeddings 2 x 128,256 x 4,096 = 1,050,673,152; per layer
     * q/o 2 x 4096 x 4096 + k/v 2 x 4096 x 1024 + MLP 3 x 4096 x 14,336 + norms 2 x 4096
     * = 218,112,000; x 32 = 6,979,584,000; + final norm 4,096 = 8,030,261,248 */
    kv_spec s;
    kv_model_info info;
    kv_result r;
    load("data/models", "meta-llama__Llama-3.1-8B.json", &s, &info);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.params == 8030261248.0);
}

/* The parameters of a vision / audio tower, by part. */
static kv_param_parts parts_of(const kv_spec *s)
{
    kv_param_parts p;
    kv_estimate_param_parts(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim, &p);
    return p;
}

/* Vision towers, counted by hand from each config, and the totals against the model cards
 * (the "Model size" of each Hugging Face model page, safetensors; Llama-4: the card's "total
 * parameters" row), within 1.5%. The text-only estimates were: gemma-3-4b 3.88B, 12b 11.77B,
 * 27b 27.01B, Llama-4-Scout 107.77B, Maverick 400.71B, Qwen3-VL-8B 8.19B. */
static void tower_parameter_counts(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        double vision, card;
    } towers[] = {
        /* SigLIP (Gemma-3): hidden 1,152, MLP 4,304, 27 layers, patch 14, image 896.
         * block: q/k/v/o 4 x 1,152^2 + 4 x 1,152 = 5,313,024; fc1/fc2 2 x 1,152 x 4,304 +
         * 4,304 + 1,152 = 9,921,872; two LayerNorms 4 x 1,152 = 4,608: 15,239,504 x 27 =
         * 411,466,608. patch 3 x 14^2 x 1,152 + 1,152 = 678,528; positions (896 / 14)^2 =
         * 4,096 x 1,152 = 4,718,592; post-LayerNorm 2,304; projector RMSNorm 1,152 + 1,152 x
         * 5,376 (27b's text hidden) = 6,193,152 => 423,060,336 */
        {"google__gemma-3-27b-it__copy-btly-hewo.json", 423060336.0, 27.4e9},
        /* the same tower, projected to 2,560 / 3,840: 416,867,184 + 1,152 x width */
        {"google__gemma-3-4b-it__mlx-community-bf16.json", 416867184.0 + 1152.0 * 2560, 4.30e9},
        {"google__gemma-3-12b-pt__mlx-community-4bit.json", 416867184.0 + 1152.0 * 3840, 12.2e9},
        /* Qwen3-VL-8B: the same 27 blocks (411,466,608); patch Conv3d 3 x 2 x 16^2 x 1,152 +
         * 1,152 = 1,770,624; positions 2,304 x 1,152 = 2,654,208; merger: 2 x 2 patches,
         * 4,608 wide: LayerNorm 2,304 + 4,608^2 + 4,608 + 4,608 x 4,096 + 4,096 = 40,119,040;
         * 3 deepstack mergers, LayerNorm on 4,608: 3 x (9,216 + 40,116,736) = 120,377,856
         * => 576,388,336 */
        {"Qwen__Qwen3-VL-8B-Instruct.json", 576388336.0, 8.77e9},
        /* Llama-4 vision: hidden 1,408, MLP 5,632, 34 layers, patch 14, image 336.
         * block: 4 x 1,408^2 + 4 x 1,408 = 7,935,488; 2 x 1,408 x 5,632 + 5,632 + 1,408 =
         * 15,866,752; LayerNorms 5,632: 23,807,872 x 34 = 809,467,648. patch (unfold, no
         * bias) 3 x 14^2 x 1,408 = 827,904; positions (24^2 + 1 class) x 1,408 = 812,416;
         * class embedding 1,408 + pre/post LayerNorms 5,632; pixel-shuffle adapter 5,632 x
         * 4,096 + 4,096^2 = 39,845,888; projector 4,096 x 5,120 = 20,971,520 => 871,932,416 */
        {"meta-llama__Llama-4-Scout-17B-16E-Instruct__abridged.json", 871932416.0, 109e9},
        {"meta-llama__Llama-4-Maverick-17B-128E-Instruct__abridged.json", 871932416.0, 400e9},
        /* Pixtral (Devstral-Small-2): hidden 1,024, MLP 4,096 gated, 24 layers, no biases,
         * RMSNorms. block 4 x 1,024^2 + 3 x 1,024 x 4,096 + 2 x 1,024 = 16,779,264 x 24 =
         * 402,702,336; patch 3 x 14^2 x 1,024 = 602,112; ln_pre + projector norm 2,048;
         * patch merger 4,096 x 1,024 = 4,194,304; linear_1 1,024 x 5,120 + linear_2 5,120^2
         * (multimodal_projector_bias false) = 31,457,280 => 438,958,080 */
        {"unverified/mistralai__Devstral-Small-2-24B-Instruct-2512.json", 438958080.0, 24.0e9},
    };
    for (size_t i = 0; i < sizeof towers / sizeof towers[0]; i++) {
        kv_spec s;
        kv_model_info info;
        kv_result r;
        load("data/models", towers[i].file, &s, &info);
        kv_param_parts p = parts_of(&s);
        assert_int_equal(kv_compute(&s, &r), KV_OK);
        double off = fabs(r.params - towers[i].card) / towers[i].card;
        print_message("  %s: tower %.0f, %.3fB vs card %.2fB (%.2f%%)\n", towers[i].file,
                      p.vision, r.params / 1e9, towers[i].card / 1e9, off * 100);
        assert_true(p.vision == towers[i].vision);
        assert_true(p.audio == 0);
        assert_true(off < 0.015);
    }
    /* Qwen3-VL's other sizes, by card: 2B 2.13B, 4B 4.44B, 32B 33.4B, 30B-A3B 31.1B,
     * 235B-A22B 236B */
    static const struct {
        const char *file;
        double card;
    } qwen[] = {
        {"Qwen__Qwen3-VL-2B-Instruct.json", 2.13e9},
        {"Qwen__Qwen3-VL-4B-Instruct.json", 4.44e9},
        {"Qwen__Qwen3-VL-32B-Instruct.json", 33.4e9},
        {"Qwen__Qwen3-VL-30B-A3B-Instruct.json", 31.1e9},
        {"Qwen__Qwen3-VL-235B-A22B-Instruct.json", 236e9},
    };
    for (size_t i = 0; i < sizeof qwen / sizeof qwen[0]; i++) {
        kv_spec s;
        kv_model_info info;
        kv_result r;
        load("data/models", qwen[i].file, &s, &info);
        assert_int_equal(kv_compute(&s, &r), KV_OK);
        double off = fabs(r.params - qwen[i].card) / qwen[i].card;
        print_message("  %s: %.3fB vs card %.2fB (%.2f%%)\n", qwen[i].file, r.params / 1e9,
                      qwen[i].card / 1e9, off * 100);
        assert_true(off < 0.015);
    }
}

/* An FP8 checkpoint leaves its tower in bf16 (modules_to_not_convert); --weight-dtype
 * (KV_QUANT_ALL) puts every weight, the tower's too, in the dtype given. */
static void tower_weights(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    load("data/models", "unverified/mistralai__Devstral-Small-2-24B-Instruct-2512.json", &s, &info);
    assert_int_equal(s.arch.quant_scope, KV_QUANT_LINEAR);
    kv_param_parts p = parts_of(&s);
    double fp8 = p.attention + p.dense_mlp + p.experts;
    double bf16 = p.embeddings + p.other + p.vision;
    assert_true(kv_estimate_weight_bytes(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim,
                                         KV_DTYPE_FP8) == fp8 * 1 + bf16 * 2);
    s.arch.quant_scope = KV_QUANT_ALL;
    assert_true(kv_estimate_weight_bytes(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim,
                                         KV_DTYPE_FP8) == fp8 + bf16);
    /* a model without a tower has none */
    load("data/models", "meta-llama__Llama-3.1-8B.json", &s, &info);
    p = parts_of(&s);
    assert_true(p.vision == 0 && p.audio == 0);
}

/* An audio tower (Whisper-style keys) and an unknown vision type: a plain encoder with
 * biases and LayerNorms, a final norm and one linear map to the text hidden (64).
 * audio: width 16, MLP 32, 2 layers: block 4 x 16^2 + 64 + 2 x 16 x 32 + 32 + 16 + 64 =
 * 2,224; x 2 = 4,448; final norm 32; 16 x 64 + 64 = 1,088 => 5,568 (no patch embedding).
 * vision: width 8, MLP 16, 1 layer, patch 2, 3 channels, 10 positions: block 4 x 64 + 32 +
 * 256 + 16 + 8 + 32 = 600; patch 3 x 4 x 8 + 8 = 104; positions 80; norm 16; 8 x 64 + 64
 * = 576 => 1,376. */
static void generic_towers(void **state)
{
    (void)state;
    const char *text =
        "{\"hidden_size\": 64, \"num_hidden_layers\": 1, \"num_attention_heads\": 4, "
        "\"intermediate_size\": 128, \"vocab_size\": 100, "
        "\"audio_config\": {\"d_model\": 16, \"encoder_ffn_dim\": 32, \"encoder_layers\": 2}, "
        "\"vision_config\": {\"model_type\": \"new_vit\", \"hidden_size\": 8, "
        "\"intermediate_size\": 16, \"depth\": 1, \"patch_size\": 2, "
        "\"num_position_embeddings\": 10}}";
    kv_spec s;
    kv_model_info info;
    char err[256];
    kv_spec_defaults(&s);
    assert_int_equal(kv_config_read(text, strlen(text), "c.json", &s, &info, err, sizeof err), 0);
    kv_param_parts p = parts_of(&s);
    assert_true(p.audio == 5568.0);
    assert_true(p.vision == 1376.0);
    /* Qwen2.5-VL-7B's tower (no preset): 32 blocks of RMSNorms, biased q/k/v/o 4 x 1,280^2 +
     * 4 x 1,280 and a gated MLP with biases 3 x 1,280 x 3,420 + 2 x 3,420 + 1,280, norms
     * 2,560: 19,702,200 x 32 = 630,470,400; patch (no bias) 3 x 2 x 14^2 x 1,280 = 1,505,280;
     * merger RMSNorm 1,280 + 5,120^2 + 5,120 + 5,120 x 3,584 + 3,584 = 44,574,464
     * => 676,550,144 (Qwen2.5-7B's 7.62B + 0.68B = 8.29B, the card's total) */
    const char *qwen25 =
        "{\"hidden_size\": 3584, \"num_hidden_layers\": 28, \"num_attention_heads\": 28, "
        "\"num_key_value_heads\": 4, \"intermediate_size\": 18944, \"vocab_size\": 152064, "
        "\"vision_config\": {\"model_type\": \"qwen2_5_vl\", \"depth\": 32, "
        "\"hidden_size\": 1280, \"intermediate_size\": 3420, \"in_chans\": 3, "
        "\"patch_size\": 14, \"temporal_patch_size\": 2, \"spatial_merge_size\": 2, "
        "\"out_hidden_size\": 3584}}";
    assert_int_equal(kv_config_read(qwen25, strlen(qwen25), "c.json", &s, &info, err, sizeof err),
                     0);
    p = parts_of(&s);
    assert_true(p.vision == 676550144.0);
    /* a bad tower value is an error, located like any other */
    const char *bad = "{\"hidden_size\": 64, \"num_hidden_layers\": 1, \"num_attention_heads\": 4,"
                      " \"vision_config\": {\"hidden_size\": -8}}";
    assert_int_equal(kv_config_read(bad, strlen(bad), "c.json", &s, &info, err, sizeof err), KV_ERR_FORMAT);
    assert_non_null(strstr(err, "hidden_size: expected an integer"));
}

/* Quantized checkpoints keep embeddings and norms in 16 bits. */
static void quantized_weights(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    kv_result r;
    /* AWQ Llama-70B: embeddings 2 x 128,256 x 8,192 = 2,101,346,304 and norms 8,192 + 80 x 2 x
     * 8,192 = 1,318,912 stay bf16; the other 70,553,706,496 - both = 68,451,041,280 are 4-bit:
     * 68,451,041,280 x 0.5 + 2,102,665,216 x 2 = 38,430,851,072 B */
    load("data/models", "unverified/deepseek-ai__DeepSeek-R1-Distill-Llama-70B__awq-casperhansen.json", &s,
         &info);
    assert_int_equal(s.arch.quant_scope, KV_QUANT_LINEAR);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.params == 70553706496.0);
    assert_true(r.weights_bytes == 38430851072.0);
    /* gpt-oss-20b: mxfp4 (4.25 bits) on the experts only; vLLM logs "Model loading took
     * 13.72 GiB": within 8% */
    load("data/models", "openai__gpt-oss-20b.json", &s, &info);
    assert_int_equal(s.arch.quant_scope, KV_QUANT_EXPERTS);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    double gib = r.weights_bytes / 1073741824.0;
    print_message("  gpt-oss-20b weights %.2f GiB vs 13.72 logged\n", gib);
    assert_true(gib > 13.72 * 0.92 && gib < 13.72 * 1.08);
    /* compressed-tensors with its width in config_groups.group_0.weights.num_bits (4) */
    load("data/models", "unverified/moonshotai__Kimi-K2.5.json", &s, &info);
    assert_int_equal(s.weight_dtype, KV_DTYPE_INT4);
    assert_int_equal(s.arch.quant_scope, KV_QUANT_LINEAR);
    load("data/models", "openai__gpt-oss-20b.json", &s, &info);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    /* an explicit --weight-dtype means every weight in that dtype */
    s.weight_dtype = KV_DTYPE_INT4;
    s.arch.quant_scope = KV_QUANT_ALL;
    s.arch.quant_bytes = 0;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.weights_bytes == r.params * 0.5);
}

static void labels_and_limits(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    load("data/models", "meta-llama__Llama-3.1-8B.json", &s, &info);
    assert_string_equal(info.model_type, "llama");
    assert_int_equal(info.max_context, 131072);
    load("data/models", "google__gemma-3-27b-it__copy-btly-hewo.json", &s, &info);
    assert_string_equal(info.model_type, "gemma3_text");
    assert_int_equal(info.max_context, 131072); /* absent: the Gemma-3 default */
    load("tests/fixtures/variants", "glm-4-9b.json", &s, &info);
    assert_int_equal(info.max_context, 131072); /* seq_length */
}

/* A sliding window at least as long as the model's context is full attention; a shorter one
 * slides; without a known context the window is taken as given. 2 layers, 8 KV heads, head 64:
 * 2 x 2 x 8 x 64 x 2 = 4,096 B per token when full. */
static void window_covering_the_context(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t full, sliding;
    } cases[] = {
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"head_dim\": 64, "
         "\"sliding_window\": 4096, \"max_position_embeddings\": 4096}", 2, 0},
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"head_dim\": 64, "
         "\"sliding_window\": 4096, \"max_position_embeddings\": 4097}", 0, 2},
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"head_dim\": 64, "
         "\"sliding_window\": 4096}", 0, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kv_spec s;
        kv_model_info info;
        kv_result r;
        char err[256];
        int64_t counts[KV_LAYER_KINDS];
        kv_spec_defaults(&s);
        assert_int_equal(kv_config_read(cases[i].text, strlen(cases[i].text), "c.json", &s, &info,
                                     err, sizeof err),
                         0);
        kv_layer_counts(&s.layout, s.layers, counts);
        assert_int_equal(counts[KV_LAYER_FULL], cases[i].full);
        assert_int_equal(counts[KV_LAYER_SLIDING], cases[i].sliding);
        /* these configs give no vocabulary: the weights are refused until given */
        assert_int_equal(kv_compute(&s, &r), KV_ERR_WEIGHTS_UNKNOWN);
        s.params_b = 1;
        s.arch.unknown[0] = '\0';
        assert_int_equal(kv_compute(&s, &r), KV_OK);
        assert_true(r.kv_bytes_per_token == (cases[i].full ? 4096.0 : 0.0));
    }
}

/* ---- malformed input ------------------------------------------------------------------ */

/* Every member of two specs, one by one: a whole-struct memcmp would read padding bytes,
 * which are never initialised. Doubles compare by their bits (NaN == NaN). */
static void assert_spec_equal(const kv_spec *a, const kv_spec *b)
{
#define EQ(m) assert_int_equal(a->m, b->m)
#define EQ_DBL(m) assert_memory_equal(&a->m, &b->m, sizeof a->m)
#define EQ_PTR(m) assert_ptr_equal(a->m, b->m)
    EQ(layers);
    EQ(kv_heads);
    EQ(head_dim);
    EQ(dtype);
    EQ_DBL(params_b);
    EQ(weight_dtype);
    EQ_DBL(gpu_mem_gib);
    EQ_DBL(overhead_gib);
    EQ(context);
    EQ(prefix_tokens);
    EQ(prefix_requests);
    /* layout */
    EQ(layout.mla);
    EQ(layout.mla_latent);
    EQ(layout.pattern_len);
    assert_true(a->layout.pattern_len <= KV_MAX_PATTERN);
    if (a->layout.pattern_len > 0)
        assert_memory_equal(a->layout.pattern, b->layout.pattern, a->layout.pattern_len);
    EQ(layout.window);
    EQ(layout.chunk);
    EQ(layout.state_elems);
    /* arch */
    EQ(arch.known);
    EQ(arch.hidden);
    EQ(arch.heads);
    EQ(arch.intermediate);
    EQ(arch.dense_intermediate);
    EQ(arch.vocab);
    EQ(arch.tie_embeddings);
    EQ(arch.qkv_bias);
    EQ(arch.o_bias);
    EQ(arch.experts);
    EQ(arch.moe_intermediate);
    EQ(arch.shared_experts);
    EQ(arch.shared_intermediate);
    EQ(arch.first_dense);
    EQ(arch.moe_step);
    EQ(arch.expert_bias);
    EQ(arch.q_lora_rank);
    EQ(arch.kv_lora_rank);
    EQ(arch.qk_nope_dim);
    EQ(arch.qk_rope_dim);
    EQ(arch.v_head_dim);
    EQ(arch.quant_scope);
    EQ_DBL(arch.quant_bytes);
    EQ(arch.base_dtype);
    EQ(params_estimated);
    EQ(tp);
    EQ(engine);
    /* the engine's inputs (zeroed, then the engine's defaults: no padding left unset) */
    assert_memory_equal(&a->engine_space, &b->engine_space, sizeof a->engine_space);
    EQ_PTR(gguf);
    EQ(weights_source);
    /* labels (borrowed pointers) */
    EQ_PTR(model_name);
    EQ_PTR(model_source);
    EQ_PTR(gpu_name);
    EQ(max_context);
    EQ_DBL(gpu_engine_gib);
#undef EQ
#undef EQ_DBL
#undef EQ_PTR
}

static void expect_config_error(const char *text, const char *want)
{
    kv_spec s;
    kv_model_info info;
    char err[512];
    kv_spec_defaults(&s);
    kv_spec before = s;
    assert_int_equal(kv_config_read(text, strlen(text), "c.json", &s, &info, err, sizeof err), KV_ERR_FORMAT);
    if (strcmp(err, want) != 0)
        fail_msg("for %s\n got: %s\nwant: %s", text, err, want);
    assert_null(strchr(err, '\n'));
    assert_spec_equal(&s, &before); /* a failed read changes nothing */
}

/* The top and language-model objects are looked up through a key index (issue 22): the
 * answers stay kv_json_find's - the last of a repeated key, an escaped key by its decoded
 * name, a key with a NUL never, a key too long to index through the plain search. */
static void indexed_keys(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    char err[512];
    static char text[4096];
    static const char *const tails[] = {
        "", /* plain */
        ", \"n\\u0000um_hidden_layers\": 2",
        ", \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\u0041\": 1",
    };
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        snprintf(text, sizeof text,
                 "{\"num_hidden_layers\": 7, \"num_attention_heads\": 8, "
                 "\"num_key_value_heads\": 2, \"hidden_size\": 1024, "
                 "\"num_hidden_layers\": 12, \"he\\u0061d_dim\": 64%s}", tails[i]);
        kv_spec_defaults(&s);
        assert_int_equal(kv_config_read(text, strlen(text), "c.json", &s, &info, err, sizeof err),
                         0);
        assert_int_equal(s.layers, 12); /* the last one */
        assert_int_equal(s.kv_heads, 2);
        assert_int_equal(s.head_dim, 64); /* "he\u0061d_dim" is head_dim */
    }
    /* the language model's object is indexed too, the top object its fallback */
    const char *nested = "{\"text_config\": {\"num_hidden_layers\": 3, \"num_hidden_layers\": 5, "
                         "\"num_attention_heads\": 4, \"num_key_value_heads\": 1}, "
                         "\"num_hidden_layers\": 9, \"hidden_size\": 512}";
    kv_spec_defaults(&s);
    assert_int_equal(kv_config_read(nested, strlen(nested), "c.json", &s, &info, err, sizeof err), 0);
    assert_int_equal(s.layers, 5);
    assert_int_equal(s.head_dim, 128);
}

static void malformed_configs(void **state)
{
    (void)state;
    expect_config_error("{\"num_hidden_layers\": 32,", "c.json:1:26: expected a string key");
    expect_config_error("{\"num_hidden_layers\": 32", "c.json:1:25: expected ',' or '}'");
    expect_config_error("{\"num_hidden_layers\": 32,\n \"num_attention_heads\": 8,\n}",
                        "c.json:3:1: trailing comma");
    expect_config_error("[1, 2]", "c.json:1:1: expected a JSON object at the top level, "
                                  "got an array");
    expect_config_error("{}", "c.json:1:1: num_hidden_layers: missing (also looked for "
                              "num_layers and n_layer)");
    expect_config_error("{\"num_hidden_layers\": \"32\"}",
                        "c.json:1:23: num_hidden_layers: expected an integer from 1 to "
                        "1000000, got a string");
    expect_config_error("{\"num_hidden_layers\": -4}",
                        "c.json:1:23: num_hidden_layers: expected an integer from 1 to "
                        "1000000, got -4");
    expect_config_error("{\"num_hidden_layers\": 1e12}",
                        "c.json:1:23: num_hidden_layers: expected an integer from 1 to "
                        "1000000, got 1e12");
    expect_config_error("{\"num_hidden_layers\": 32.5}",
                        "c.json:1:23: num_hidden_layers: expected an integer from 1 to "
                        "1000000, got 32.5");
    expect_config_error("{\"num_hidden_layers\": 32}",
                        "c.json:1:1: num_attention_heads: missing");
    /* Nemotron-H's hybrid_override_pattern: one known character per block */
    expect_config_error("{\"num_hidden_layers\": 3, \"num_attention_heads\": 8, \"hidden_size\": "
                        "1024, \"hybrid_override_pattern\": \"M*\"}",
                        "c.json:1:100: hybrid_override_pattern: expected a string of 3 "
                        "characters");
    expect_config_error("{\"num_hidden_layers\": 3, \"num_attention_heads\": 8, \"hidden_size\": "
                        "1024, \"hybrid_override_pattern\": \"M*X\"}",
                        "c.json:1:100: hybrid_override_pattern: unknown block 'X' "
                        "(expected M, *, - or E)");
    expect_config_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"hidden_size\": "
                        "1024, \"hybrid_override_pattern\": \"-E\"}",
                        "c.json:1:100: hybrid_override_pattern: no attention or Mamba block");
    expect_config_error("{\"num_hidden_layers\": 32, \"num_attention_heads\": 7, "
                        "\"hidden_size\": 4096}",
                        "c.json:1:68: hidden_size 4096 is not a multiple of "
                        "num_attention_heads 7; give head_dim");
    expect_config_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"head_dim\": "
                        "64, \"torch_dtype\": \"float64\"}",
                        "c.json:1:83: torch_dtype: unknown dtype 'float64' (expected "
                        "bfloat16, float16 or float32)");
    expect_config_error("{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"head_dim\": "
                        "64, \"layer_types\": [\"full_attention\"]}",
                        "c.json:1:83: layer_types: 1 entries for 2 layers");
    expect_config_error("{\"num_hidden_layers\": 1, \"num_attention_heads\": 8, \"head_dim\": "
                        "64, \"layer_types\": [\"warp_attention\"]}",
                        "c.json:1:84: layer_types: unknown layer type (expected "
                        "full_attention, sliding_attention, chunked_attention, "
                        "linear_attention, mamba or conv)");
    expect_config_error("{\"num_hidden_layers\": 1, \"num_attention_heads\": 8, \"head_dim\": 64, "
                        "\"multi_query\": 1}",
                        "c.json:1:83: multi_query: expected true or false, got a number");
    expect_config_error("{\"num_hidden_layers\": 1, \"num_attention_heads\": 8, \"head_dim\": 64, "
                        "\"quantization_config\": \"awq\"}",
                        "c.json:1:91: quantization_config: expected an object, got a "
                        "string");
    expect_config_error("{\"a\": \"\xff\"}", "c.json:1:8: invalid UTF-8");
}

static void hostile_nesting(void **state)
{
    (void)state;
    size_t deep = 100000;
    char *text = nested_arrays(deep);
    kv_spec s;
    kv_model_info info;
    char err[256];
    kv_spec_defaults(&s);
    assert_int_equal(kv_config_read(text, 2 * deep, "deep.json", &s, &info, err, sizeof err), KV_ERR_FORMAT);
    assert_string_equal(err, "deep.json:1:33: nesting too deep");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_configs), cmocka_unit_test(field_variants),
        cmocka_unit_test(parameter_counts),  cmocka_unit_test(tower_parameter_counts),
        cmocka_unit_test(tower_weights),     cmocka_unit_test(generic_towers),
        cmocka_unit_test(quantized_weights),
        cmocka_unit_test(labels_and_limits), cmocka_unit_test(window_covering_the_context),
        cmocka_unit_test(malformed_configs), cmocka_unit_test(hostile_nesting),
        cmocka_unit_test(indexed_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
