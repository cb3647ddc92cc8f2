/*
 * test_fromlog.c - --from-log against the real logs' quoted lines (vllm-logs-public.md,
 * ground-truth.md), written into tests/logs/ with what real logs add: process prefixes,
 * timestamps, ANSI colours, interleaved ranks, repeated lines, two startups in one file, a
 * cut last line. The reader is tested through kvcalc.h (it is part of the library); the
 * comparison through the real binary.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KVCALC_ENGINES
#include "kvcalc.h"
#include "run.h"

#define LOGS KVCALC_SOURCE_DIR "/tests/logs/"
#define GGUF KVCALC_BINARY_DIR "/engines/gguf/"
#define GIB 1073741824.0
#define MIB 1048576.0

static kv_log lg; /* large: not on the stack */

static const kv_log_values *read_log(const char *name)
{
    char err[2048];
    if (kv_log_read_file(name, name, &lg, err, sizeof err) != 0)
        fail_msg("%s: %s", name, err);
    return &lg.values;
}

/* A logged figure: present and equal to want (bytes within a thousandth of a byte's
 * rounding of the decimal in the log). */
static void expect_field(const kv_log_values *v, kv_log_field f, double want)
{
    if (!v->present[f])
        fail_msg("field %s not extracted", kv_log_field_name(KV_ENGINE_VLLM, f));
    if (fabs(v->v[f] - want) > fabs(want) * 1e-12)
        fail_msg("field %s: got %.17g, want %.17g", kv_log_field_name(KV_ENGINE_VLLM, f), v->v[f], want);
}

/* ---- the reader: what each log states ------------------------------------------------- */

static void vllm_values(void **state)
{
    (void)state;
    const kv_log_values *v = read_log(LOGS "vllm-d10.log");
    assert_int_equal(lg.engine, KV_ENGINE_VLLM);
    assert_string_equal(v->version, "0.10.1.1");
    assert_string_equal(v->era, "V1");
    assert_string_equal(v->model, "Qwen2-7B-Instruct");
    assert_string_equal(v->dtype, "bfloat16");
    assert_string_equal(v->kv_dtype, "auto");
    expect_field(v, KV_LOG_TP, 1);
    expect_field(v, KV_LOG_PP, 1);
    expect_field(v, KV_LOG_MAX_MODEL_LEN, 16384);
    expect_field(v, KV_LOG_UTIL, 0.25);
    expect_field(v, KV_LOG_WEIGHTS, 14.2488 * GIB);
    expect_field(v, KV_LOG_AVAILABLE_KV, 5.01 * GIB);
    expect_field(v, KV_LOG_KV_TOKENS, 93872);
    expect_field(v, KV_LOG_CONCURRENCY, 5.73);
    expect_field(v, KV_LOG_CONCURRENCY_LEN, 16384);
    expect_field(v, KV_LOG_BLOCKS, 5867);
    assert_int_equal(v->startups, 1);

    /* V0: the budget line, the total, repeated lines; "Model loading took" (four decimals)
     * wins over the summary's rounded weights */
    v = read_log(LOGS "vllm-d16-v0.log");
    assert_string_equal(v->era, "V0");
    assert_string_equal(v->version, "0.8.2");
    assert_string_equal(v->quantization, "bitsandbytes");
    expect_field(v, KV_LOG_GPU_TOTAL, 79.15 * GIB);
    expect_field(v, KV_LOG_UTIL, 0.70);
    expect_field(v, KV_LOG_WEIGHTS, 8.6253 * GIB);
    expect_field(v, KV_LOG_ACTIVATION, 1.16 * GIB);
    expect_field(v, KV_LOG_NON_TORCH, 0.09 * GIB);
    expect_field(v, KV_LOG_AVAILABLE_KV, 45.21 * GIB);
    expect_field(v, KV_LOG_BLOCKS, 14815);
    expect_field(v, KV_LOG_CONCURRENCY, 462.97);
    expect_field(v, KV_LOG_MAX_MODEL_LEN, 512);

    /* TP 8, ranks interleaved, the "Free memory on device" line four times */
    v = read_log(LOGS "vllm-d23-tp8.log");
    assert_string_equal(v->version, "0.10.2");
    assert_string_equal(v->model, "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8");
    expect_field(v, KV_LOG_TP, 8);
    expect_field(v, KV_LOG_GPU_TOTAL, 44.42 * GIB);
    expect_field(v, KV_LOG_UTIL, 0.9);
    expect_field(v, KV_LOG_WEIGHTS, 27.72 * GIB);
    expect_field(v, KV_LOG_ACTIVATION, 1.4 * GIB);
    expect_field(v, KV_LOG_NON_TORCH, 0.21 * GIB);
    expect_field(v, KV_LOG_CUDA_GRAPH_CAPTURED, 3.45 * GIB);
    expect_field(v, KV_LOG_AVAILABLE_KV, 10.65 * GIB);
    expect_field(v, KV_LOG_KV_TOKENS, 238208);
    expect_field(v, KV_LOG_CONCURRENCY, 7.27);

    /* 0.27.1: the estimate the budget subtracts, the utilization it is worth, the pool
     * captured after the budget (both lines), and the later "peak activation" that holds
     * the estimate */
    v = read_log(LOGS "vllm-d37-0.27.1-cg-estimate.log");
    expect_field(v, KV_LOG_CUDA_GRAPH, 1.94 * GIB);
    expect_field(v, KV_LOG_CG_UTIL_CURRENT, 0.92);
    expect_field(v, KV_LOG_CG_UTIL_EQUIVALENT, 0.9038);
    expect_field(v, KV_LOG_CUDA_GRAPH_CAPTURED, 0.94 * GIB);
    expect_field(v, KV_LOG_ACTIVATION_GRAPHS, 3.78 * GIB);
    expect_field(v, KV_LOG_CONSUMED, 55.99 * GIB);
    assert_int_equal(v->present[KV_LOG_ACTIVATION], 0);
    /* as inputs: activation 3.78 - 1.94, graphs 1.94, non-torch 55.99 - 51.35 */
    static kv_log_inputs in;
    kv_log_inputs_of(&lg, &in);
    int seen = 0;
    for (size_t i = 0; i < in.n; i++) {
        const char *key = in.item[i].param->key;
        double x = strtod(in.item[i].text, NULL);
        if (strcmp(key, "activation_gib") == 0 && ++seen)
            assert_true(fabs(x - (3.78 - 1.94)) < 1e-9);
        if (strcmp(key, "cuda_graph_gib") == 0 && ++seen)
            assert_true(fabs(x - 1.94) < 1e-9);
        if (strcmp(key, "non_torch_gib") == 0 && ++seen)
            assert_true(fabs(x - (55.99 - 51.35)) < 1e-9);
    }
    assert_int_equal(seen, 3);
}

static void vllm_two_startups_and_a_cut_file(void **state)
{
    (void)state;
    const kv_log_values *v = read_log(LOGS "vllm-d10-d11.log");
    assert_int_equal(v->startups, 2); /* the last one: D11 */
    expect_field(v, KV_LOG_UTIL, 0.5);
    expect_field(v, KV_LOG_AVAILABLE_KV, 24.83 * GIB);
    expect_field(v, KV_LOG_KV_TOKENS, 464848);
    expect_field(v, KV_LOG_BLOCKS, 29053);

    /* a second startup that does not state the release keeps the one stated before it */
    const char *two = KVCALC_BINARY_DIR "/engines/gguf/two-startups.log";
    FILE *f = fopen(two, "w");
    assert_non_null(f);
    fputs("INFO 08-20 10:00:00 [api_server.py:1805] vLLM API server version 0.10.1.1\n"
          "INFO 08-20 10:00:09 [gpu_worker.py:276] Available KV cache memory: 5.01 GiB\n"
          "INFO 08-20 11:00:00 [utils.py:326] non-default args: {'model': 'Qwen2'}\n"
          "INFO 08-20 11:00:09 [gpu_worker.py:276] Available KV cache memory: 6.02 GiB\n", f);
    assert_int_equal(fclose(f), 0);
    v = read_log(two);
    assert_int_equal(v->startups, 2);
    expect_field(v, KV_LOG_AVAILABLE_KV, 6.02 * GIB);
    assert_string_equal(v->version, "0.10.1.1");

    /* the last line ("... per request: 3.5", cut) is dropped, never read as 3.5x */
    v = read_log(LOGS "vllm-d20-cut.log");
    assert_int_equal(lg.unterminated, 1);
    assert_false(v->present[KV_LOG_CONCURRENCY]);
    assert_string_equal(v->quantization, "fp8");
    expect_field(v, KV_LOG_MAX_MODEL_LEN, 131072);
    expect_field(v, KV_LOG_WEIGHTS, 3.4244 * GIB);
    expect_field(v, KV_LOG_AVAILABLE_KV, 35.34 * GIB);
    expect_field(v, KV_LOG_KV_TOKENS, 463136);
}

static void sglang_values(void **state)
{
    (void)state;
    const kv_log_values *v = read_log(LOGS "sglang-s02.log");
    assert_int_equal(lg.engine, KV_ENGINE_SGLANG);
    assert_string_equal(v->model, "meta-llama/Meta-Llama-3.1-8B-Instruct");
    expect_field(v, KV_LOG_MEM_FRACTION, 0.88);
    expect_field(v, KV_LOG_TP, 1);
    expect_field(v, KV_LOG_CHUNKED_PREFILL, 8192);
    expect_field(v, KV_LOG_AVAIL_BEFORE, 78.81 * GIB);
    expect_field(v, KV_LOG_AVAIL_AFTER, 63.72 * GIB);
    expect_field(v, KV_LOG_K_BYTES, 27.13 * GIB);
    expect_field(v, KV_LOG_V_BYTES, 27.13 * GIB);
    expect_field(v, KV_LOG_POOL_END, 8.34 * GIB);
    expect_field(v, KV_LOG_KV_TOKENS, 444500);
    expect_field(v, KV_LOG_MAX_MODEL_LEN, 131072);

    v = read_log(LOGS "sglang-s03.log");
    assert_string_equal(v->era, "#tokens");
    expect_field(v, KV_LOG_AVAIL_AFTER, 7.37 * GIB);
    expect_field(v, KV_LOG_WEIGHTS, 15.02 * GIB);
    expect_field(v, KV_LOG_KV_TOKENS, 38141);
    expect_field(v, KV_LOG_K_BYTES, 2.33 * GIB);
    assert_false(v->present[KV_LOG_AVAIL_BEFORE]);

    v = read_log(LOGS "sglang-s06.log"); /* coloured timestamps */
    expect_field(v, KV_LOG_AVAIL_BEFORE, 3.23 * GIB);
    expect_field(v, KV_LOG_AVAIL_AFTER, 2.03 * GIB);
    expect_field(v, KV_LOG_PAGE_SIZE, 1);
    expect_field(v, KV_LOG_KV_TOKENS, 15387);
    expect_field(v, KV_LOG_MAX_MODEL_LEN, 40960);

    v = read_log(LOGS "sglang-s13-tp8.log"); /* MLA, eight ranks */
    assert_string_equal(v->era, "MLA");
    assert_string_equal(v->kv_dtype, "bfloat16");
    expect_field(v, KV_LOG_KV_BYTES, 160.63 * GIB);
    expect_field(v, KV_LOG_KV_TOKENS, 2454421);
    expect_field(v, KV_LOG_AVAIL_AFTER, 209.98 * GIB);
    expect_field(v, KV_LOG_WEIGHTS, 73.58 * GIB);
}

static void llamacpp_values(void **state)
{
    (void)state;
    const kv_log_values *v = read_log(LOGS "llamacpp-l01.log");
    assert_int_equal(lg.engine, KV_ENGINE_LLAMACPP);
    expect_field(v, KV_LOG_BUILD, 3045);
    expect_field(v, KV_LOG_N_CTX, 512);
    expect_field(v, KV_LOG_FLASH_ATTN, KV_FLASH_OFF);
    expect_field(v, KV_LOG_KV_BYTES, 96 * MIB);
    expect_field(v, KV_LOG_K_BYTES, 48 * MIB);
    assert_string_equal(v->type_k, "f16");

    v = read_log(LOGS "llamacpp-l08.log"); /* both caches of an iSWA model */
    expect_field(v, KV_LOG_BUILD, 7445);
    expect_field(v, KV_LOG_N_SEQ, 4);
    expect_field(v, KV_LOG_KV_UNIFIED, 1);
    expect_field(v, KV_LOG_N_UBATCH, 512);
    expect_field(v, KV_LOG_CELLS, 8192);
    expect_field(v, KV_LOG_LAYERS, 13);
    expect_field(v, KV_LOG_STREAMS, 1);
    expect_field(v, KV_LOG_K_BYTES, 208 * MIB);
    expect_field(v, KV_LOG_SWA_CELLS, 8192);
    expect_field(v, KV_LOG_SWA_LAYERS, 13);
    expect_field(v, KV_LOG_SWA_V_BYTES, 208 * MIB);

    v = read_log(LOGS "llamacpp-l09.log");
    expect_field(v, KV_LOG_FLASH_ATTN, KV_FLASH_AUTO);
    expect_field(v, KV_LOG_WEIGHTS, 11.27 * GIB);
    expect_field(v, KV_LOG_SWA_CELLS, 768);
    expect_field(v, KV_LOG_SWA_K_BYTES, 9 * MIB);

    v = read_log(LOGS "llamacpp-l11.log");
    assert_string_equal(v->type_k, "q8_0");
    assert_string_equal(v->type_v, "q8_0");
    expect_field(v, KV_LOG_SWA_K_BYTES, 1.59 * MIB);

    v = read_log(LOGS "llamacpp-l12.log");
    assert_string_equal(v->era, "kv self size (pre-GGUF)");
    expect_field(v, KV_LOG_KV_BYTES, 162.5 * MIB);
}

/* Every figure the other public vLLM logs state (vllm-logs-public.md). */
typedef struct {
    const char *file;
    kv_log_field field;
    double value;
} stated;

static const stated public_vllm[] = {
    {"vllm-d05.log", KV_LOG_WEIGHTS, 67.7229 * GIB}, {"vllm-d05.log", KV_LOG_BLOCKS, 1381},
    {"vllm-d05.log", KV_LOG_CONCURRENCY, 10.79}, {"vllm-d05.log", KV_LOG_CONCURRENCY_LEN, 2048},
    {"vllm-d14-tp4.log", KV_LOG_TP, 4}, {"vllm-d14-tp4.log", KV_LOG_UTIL, 0.8},
    {"vllm-d14-tp4.log", KV_LOG_MAX_MODEL_LEN, 16384},
    {"vllm-d14-tp4.log", KV_LOG_WEIGHTS, 17.2217 * GIB},
    {"vllm-d14-tp4.log", KV_LOG_AVAILABLE_KV, 45.32 * GIB},
    {"vllm-d14-tp4.log", KV_LOG_KV_TOKENS, 2640144},
    {"vllm-d14-tp4.log", KV_LOG_CONCURRENCY, 284.25},
    {"vllm-d19.log", KV_LOG_UTIL, 0.9}, {"vllm-d19.log", KV_LOG_WEIGHTS, 6.1501 * GIB},
    {"vllm-d19.log", KV_LOG_BLOCKS, 33660}, {"vllm-d19.log", KV_LOG_CONCURRENCY, 131.48},
    {"vllm-d19.log", KV_LOG_CONCURRENCY_LEN, 4096},
    {"vllm-d21.log", KV_LOG_AVAILABLE_KV, 51.63 * GIB}, {"vllm-d21.log", KV_LOG_KV_TOKENS, 410128},
    {"vllm-d21.log", KV_LOG_CONCURRENCY, 3.13}, {"vllm-d21.log", KV_LOG_CONCURRENCY_LEN, 131072},
    {"vllm-d22.log", KV_LOG_AVAILABLE_KV, 8.0 * GIB}, {"vllm-d22.log", KV_LOG_KV_TOKENS, 149712},
    {"vllm-d22.log", KV_LOG_CONCURRENCY, 4.57},
    {"vllm-d26.log", KV_LOG_WEIGHTS, 8.89 * GIB}, {"vllm-d26.log", KV_LOG_AVAILABLE_KV, 9.92 * GIB},
    {"vllm-d26.log", KV_LOG_KV_TOKENS, 1062157}, {"vllm-d26.log", KV_LOG_CONCURRENCY, 129.66},
    {"vllm-d27.log", KV_LOG_MAX_MODEL_LEN, 16384}, {"vllm-d27.log", KV_LOG_UTIL, 0.9},
    {"vllm-d27.log", KV_LOG_WEIGHTS, 8.02 * GIB}, {"vllm-d27.log", KV_LOG_AVAILABLE_KV, 4.66 * GIB},
    {"vllm-d27.log", KV_LOG_KV_TOKENS, 519681}, {"vllm-d27.log", KV_LOG_CONCURRENCY, 31.72},
    {"vllm-d28-rocm.log", KV_LOG_MAX_MODEL_LEN, 4096},
    {"vllm-d28-rocm.log", KV_LOG_WEIGHTS, 51.7891 * GIB},
    {"vllm-d28-rocm.log", KV_LOG_AVAILABLE_KV, 109.86 * GIB},
    {"vllm-d28-rocm.log", KV_LOG_KV_TOKENS, 205696}, {"vllm-d28-rocm.log", KV_LOG_BLOCKS, 89994},
    {"vllm-d28-rocm.log", KV_LOG_CONCURRENCY, 50.05},
    {"vllm-d31-v0.log", KV_LOG_GPU_TOTAL, 139.81 * GIB}, {"vllm-d31-v0.log", KV_LOG_UTIL, 0.85},
    {"vllm-d31-v0.log", KV_LOG_WEIGHTS, 83.88 * GIB},
    {"vllm-d31-v0.log", KV_LOG_NON_TORCH, 7.16 * GIB},
    {"vllm-d31-v0.log", KV_LOG_ACTIVATION, 6.37 * GIB},
    {"vllm-d31-v0.log", KV_LOG_AVAILABLE_KV, 21.43 * GIB},
    {"vllm-d31-v0.log", KV_LOG_BLOCKS, 18418}, {"vllm-d31-v0.log", KV_LOG_CONCURRENCY, 2.30},
    {"vllm-d32.log", KV_LOG_TP, 8}, {"vllm-d32.log", KV_LOG_MAX_MODEL_LEN, 163840},
    {"vllm-d32.log", KV_LOG_BLOCKS, 4739}, {"vllm-d32.log", KV_LOG_CONCURRENCY, 1.85},
    {"vllm-d33.log", KV_LOG_BLOCKS, 5266}, {"vllm-d33.log", KV_LOG_CONCURRENCY, 2.06},
    {"vllm-d34.log", KV_LOG_KV_TOKENS, 1214464}, {"vllm-d34.log", KV_LOG_CONCURRENCY, 7.41},
    {"vllm-m01-summary.log", KV_LOG_WEIGHTS, 13.47 * GIB},
    {"vllm-m01-summary.log", KV_LOG_AVAILABLE_KV, 50.28 * GIB},
    {"vllm-m01-summary.log", KV_LOG_GPU_TOTAL, 79.18 * GIB},
    {"vllm-m10-v0.log", KV_LOG_GPU_TOTAL, 39.38 * GIB}, {"vllm-m10-v0.log", KV_LOG_UTIL, 0.95},
    {"vllm-m10-v0.log", KV_LOG_WEIGHTS, 34.43 * GIB},
    {"vllm-m10-v0.log", KV_LOG_ACTIVATION, 2.51 * GIB},
    {"vllm-m10-v0.log", KV_LOG_NON_TORCH, 0.34 * GIB},
    {"vllm-m10-v0.log", KV_LOG_AVAILABLE_KV, 0.13 * GIB},
    {"vllm-p02.log", KV_LOG_WEIGHTS, 14.9888 * GIB}, {"vllm-p02.log", KV_LOG_GPU_TOTAL, 22.07 * GIB},
    {"vllm-p02.log", KV_LOG_AVAILABLE_KV, 4.60 * GIB}, {"vllm-p02.log", KV_LOG_BLOCKS, 2356},
    {"vllm-p02.log", KV_LOG_KV_TOKENS, 37696}, {"vllm-p02.log", KV_LOG_MAX_MODEL_LEN, 131072},
    {"vllm-p02.log", KV_LOG_CONCURRENCY, 0.29},
    {"vllm-p05.log", KV_LOG_AVAILABLE_KV, -1.05 * GIB}, {"vllm-p05.log", KV_LOG_BLOCKS, 0},
    {"vllm-p05.log", KV_LOG_WEIGHTS, 5.2032 * GIB}, {"vllm-p05.log", KV_LOG_CONCURRENCY, 0},
};

static void public_vllm_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof public_vllm / sizeof public_vllm[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, LOGS "%s", public_vllm[i].file);
        const kv_log_values *v = read_log(path);
        assert_int_equal(lg.engine, KV_ENGINE_VLLM);
        if (!v->present[public_vllm[i].field] ||
            fabs(v->v[public_vllm[i].field] - public_vllm[i].value) >
                fabs(public_vllm[i].value) * 1e-12)
            fail_msg("%s: %s: got %.17g (present %d), want %.17g", public_vllm[i].file,
                     kv_log_field_name(KV_ENGINE_VLLM, public_vllm[i].field), v->v[public_vllm[i].field],
                     v->present[public_vllm[i].field], public_vllm[i].value);
    }
    read_log(LOGS "vllm-d28-rocm.log");
    assert_string_equal(lg.values.version, "0.11.0rc2.dev98+g393de22d2");
    assert_string_equal(lg.values.model, "/google/gemma-3-27b-it");
    read_log(LOGS "vllm-d32.log");
    assert_string_equal(lg.values.era, "V0");
    assert_string_equal(lg.values.quantization, "fp8");
    assert_string_equal(kv_log_served_model(&lg), "");
    /* D31 keeps only its launch command: "vllm serve /models/DeepSeek-R1 ...
     * --served-model-name deepseek-r1 --tensor-parallel-size 8 ..." */
    read_log(LOGS "vllm-d31-v0.log");
    assert_string_equal(kv_log_model(&lg), "/models/DeepSeek-R1");
    assert_string_equal(kv_log_served_model(&lg), "deepseek-r1");
    assert_true(lg.values.present[KV_LOG_TP] && lg.values.v[KV_LOG_TP] == 8);
    /* H01's config line and non-default args name it alike */
    read_log(LOGS "vllm-h01-nemotron-cascade-2.log");
    assert_string_equal(kv_log_served_model(&lg), "nemotron-cascade-2-nvfp4");
}

/* ---- the reader: robustness ----------------------------------------------------------- */

static void feed(const char *line)
{
    kv_log_feed(&lg, line, strlen(line));
}

static void prefixes_colours_and_strictness(void **state)
{
    (void)state;
    kv_log_init(&lg);
    feed("\x1b[1;36m(VllmWorker rank=0 pid=123)\x1b[0;0m INFO 07-22 10:00:00 [gpu_worker.py:123] "
         "Available KV cache memory: \x1b[1m12.5\x1b[0m GiB");
    feed("2025-01-01T10:00:00.123Z [2025-01-01 10:00:00] GPU KV cache size: 1,234 tokens");
    feed("progress 10%\rprogress 100%\r# GPU blocks: 77\r"); /* a bar redrawn; CRLF */
    /* look-alikes that must not match */
    feed("Available KV cache memory: 3.5"); /* no unit */
    feed("GPU KV cache size: 12,34 tokens");  /* not thousands */
    feed("MyAvailable KV cache memory: 1 GiB"); /* inside a word */
    feed("Maximum concurrency for 4096 tokens per request: 1.2.3x");
    assert_int_equal(kv_log_finish(&lg), 0);
    const kv_log_values *v = &lg.values;
    expect_field(v, KV_LOG_AVAILABLE_KV, 12.5 * GIB);
    expect_field(v, KV_LOG_KV_TOKENS, 1234);
    expect_field(v, KV_LOG_BLOCKS, 77);
    assert_false(v->present[KV_LOG_CONCURRENCY]);

    /* ranks print their own figure: the smallest is the engine's */
    kv_log_init(&lg);
    feed("(Worker_TP0 pid=1) Available KV cache memory: 10.70 GiB");
    feed("(Worker_TP1 pid=2) Available KV cache memory: 10.65 GiB");
    feed("(Worker_TP2 pid=3) Available KV cache memory: 10.69 GiB");
    kv_log_finish(&lg);
    expect_field(&lg.values, KV_LOG_AVAILABLE_KV, 10.65 * GIB);

    /* two engines in one file: the one whose KV lines came last */
    kv_log_init(&lg);
    feed("INFO 07-22 10:00:00 [gpu_worker.py:1] Available KV cache memory: 5.01 GiB");
    feed("[2025-05-02 16:14:33] KV Cache is allocated. #tokens: 15387, K size: 0.82 GB, V size: "
         "0.82 GB");
    assert_int_equal(kv_log_finish(&lg), 0);
    assert_int_equal(lg.engine, KV_ENGINE_SGLANG);
    expect_field(&lg.values, KV_LOG_KV_TOKENS, 15387);

    /* a NUL byte inside a line does not end it early */
    kv_log_init(&lg);
    kv_log_feed(&lg, "junk\0GPU KV cache size: 5 tokens", 33);
    kv_log_finish(&lg);
    expect_field(&lg.values, KV_LOG_KV_TOKENS, 5);

    char clean[] = "\x1b[32m[2025-01-23 19:35:15 TP0]\x1b[0m  INFO:  Load weight begin.";
    size_t len = strlen(clean);
    char *s = kv_log_clean(clean, &len);
    assert_string_equal(s, "Load weight begin.");
    assert_int_equal(len, strlen(s));
}

static void long_lines_are_skipped_and_counted(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-fromlog-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    /* a line longer than the buffer that ends like a KV line: cutting it would match */
    for (int i = 0; i < KV_LOG_LINE_MAX + 100; i++)
        fputc('x', f);
    fputs(" Available KV cache memory: 99.00 GiB\n", f);
    for (int i = 0; i < 20000; i++) /* many lines: read in constant memory */
        fputs("INFO 07-22 10:00:00 [gpu_worker.py:1] nothing\n", f);
    fputs("Available KV cache memory: 1.00 GiB\n", f);
    fclose(f);
    const kv_log_values *v = read_log(path);
    remove(path);
    assert_int_equal(lg.overlong, 1);
    assert_int_equal(lg.lines, 20002);
    expect_field(v, KV_LOG_AVAILABLE_KV, 1.0 * GIB);
}

/* Every field of the reader has a name, and docs/output.md lists it (JSON "logged"). */
static void fields_are_named_and_documented(void **state)
{
    (void)state;
    char *doc = read_file(KVCALC_SOURCE_DIR "/docs/output.md", NULL);
    assert_non_null(doc);
    for (int f = 0; f < KV_LOG_FIELDS; f++) {
        char want[80];
        const char *name = kv_log_field_name(KV_ENGINE_VLLM, f);
        assert_non_null(name);
        snprintf(want, sizeof want, "`%s`", name);
        if (!strstr(doc, want))
            fail_msg("docs/output.md does not name %s", want);
    }
    assert_null(kv_log_field_name(KV_ENGINE_VLLM, KV_LOG_FIELDS));
    free(doc);
}

static void unknown_logs(void **state)
{
    (void)state;
    char err[2048];
    assert_int_equal(kv_log_read_file(LOGS "not-a-log.txt", "not-a-log.txt", &lg, err,
                                      sizeof err),
                     KV_ERR_FORMAT);
    assert_non_null(strstr(err, "not-a-log.txt"));
    assert_non_null(strstr(err, "Available KV cache memory"));
    assert_null(strchr(err, '\n'));
    assert_int_equal(kv_log_read_file("/nonexistent/x.log", "x.log", &lg, err, sizeof err),
                     KV_ERR_FILE);
    assert_null(strstr(err, "kvcalc")); /* the library never speaks for a program */
    assert_int_equal(lg.engine, KV_ENGINE_COUNT);
}

/* ---- the comparison, through the binary ----------------------------------------------- */

#define MAX_ARGS 24

typedef struct {
    const char *what;
    const char *args[MAX_ARGS];
    int kv_lines_equal;      /* every KV line within the rounding of the logged KV figure */
    const char *checks[12];   /* "KEY=VALUE": --get KEY prints VALUE */
} cmp_case;

static const cmp_case cases[] = {
    {"D10", {"--from-log", LOGS "vllm-d10.log", "--model", "qwen2.5-7b-instruct", "--gpu",
             "a100", NULL}, 1,
     {"engine=vllm", "engine_version=0.10.1.1", "logged_kv_cache_tokens=93872",
      "logged_available_kv_bytes=5379446538.24", "kv_cache_tokens=93808", NULL}},
    {"D10+D11", {"--from-log", LOGS "vllm-d10-d11.log", "--model", "qwen2.5-7b-instruct", NULL}, 1,
     {"startups=2", "logged_kv_cache_tokens=464848", "kv_cache_tokens=464928",
      "available_kv_bytes=null", "kv_budget_error_pct=null", NULL}},
    {"D16 V0", {"--from-log", LOGS "vllm-d16-v0.log", "--model", "phi-4", NULL}, 1,
     {"logged_gpu_mem_bytes=84986665369.6", "logged_weights_bytes=9261345354.5472", NULL}},
    {"D20 cut", {"--from-log", LOGS "vllm-d20-cut.log", "--layers", "40", "--kv-heads", "8",
                 "--head-dim", "64", "--max-num-batched-tokens", "8192", NULL}, 1,
     {"kv_cache_tokens=463200", "log_lines_skipped=1", NULL}},
    /* no version stated: the line format dates it (0.4.1.post6 - 0.4.3.post2) */
    {"S02", {"--from-log", LOGS "sglang-s02.log", "--model", "llama-3.1-8b-instruct", NULL}, 1,
     {"engine=sglang", "logged_kv_cache_tokens=444500", "kv_cache_tokens=444520",
      "sglang_mem_fraction_static=0.88", "engine_version=null",
      "log_era=K size: 0.4.1.post6-0.4.3.post2", NULL}},
    {"S03", {"--from-log", LOGS "sglang-s03.log", "--model", "llama-3.1-8b-instruct", "--gpu",
             "4090", "--sglang-version", "0.4.9.post2", NULL}, 1,
     {"kv_cache_tokens=38181", NULL}},
    {"S06", {"--from-log", LOGS "sglang-s06.log", "--sglang-version", "0.4.6.post2", NULL}, 1,
     {"logged_model=Qwen/Qwen3-0.6B", "kv_cache_tokens=15376", NULL}},
    {"S10", {"--from-log", LOGS "sglang-s10.log", "--model", "gemma-3-4b-it", "--gpu", "h200",
             "--sglang-version", "0.4.4.post2", NULL}, 1,
     {"kv_cache_tokens=834616", NULL}},
    {"S13", {"--from-log", LOGS "sglang-s13-tp8.log", "--model", "deepseek-v3", "--tp", "8",
             "--mem-fraction-static", "0.90", "--max-total-tokens", "2454421", NULL}, 1,
     {"kv_cache_tokens=2454421", NULL}},
    {"L01", {"--from-log", LOGS "llamacpp-l01.log", "--model", GGUF "L01.gguf", NULL}, 1,
     {"engine=llama.cpp", "kv_cache_tokens=512", "kv_budget_error_pct=0", NULL}},
    {"L05", {"--from-log", LOGS "llamacpp-l05.log", "--model", "llama-3.1-70b",
             "--llamacpp-build", "6000", NULL}, 1, {"kv_budget_error_pct=0", NULL}},
    {"L08", {"--from-log", LOGS "llamacpp-l08.log", "--model", GGUF "L08.gguf", NULL}, 1,
     {"kv_budget_error_pct=0", "available_kv_bytes=872415232", NULL}},
    {"L09", {"--from-log", LOGS "llamacpp-l09.log", "--model", GGUF "L09.gguf", NULL}, 1,
     {"kv_budget_error_pct=0", NULL}},
    {"L11", {"--from-log", LOGS "llamacpp-l11.log", "--model", "gpt-oss-20b", "--llamacpp-build",
             "7876", "--ubatch-size", "128", "--flash-attn", "on", NULL}, 1,
     {"kv_cache_tokens=8192", NULL}},
    /* the command line the log shows says --batch-size 128: the micro-batch is min(512, 128),
     * so the sliding window keeps 128 + 128 = 256 cells (768 at the default 512); gpt-oss's
     * rows are 8 x 64 in q8_0 (544 B): (8,192 + 256) x 12 layers x 544 x 2 = 110,297,088 B */
    {"H09", {"--from-log", LOGS "llamacpp-h09-gpt-oss-20b-hexagon.log", "--model",
             "gpt-oss-20b", NULL}, 1,
     {"available_kv_bytes=110297088", "llamacpp_n_ubatch=128", NULL}},
    /* Gemma-4 12B on Vulkan (b9849, -c 8192, -ub 2048, 4 automatic unified slots), a log
     * redacted to its buffer lines: the 8 full layers keep 8,192 cells of one 512-wide K and V
     * head, 128 MiB in f16; the 40 sliding ones GGML_PAD(min(8,192, 1,024 x 4 + 2,048), 256) =
     * 6,144 cells of 8 heads of 256: 40 x 6,144 x 8,192 B = 1,920 MiB; 2,048 MiB in all */
    {"H10", {"--from-log", LOGS "llamacpp-h10-gemma4-12b-vulkan.log", "--config",
             KVCALC_SOURCE_DIR "/tests/fixtures/frontier/google__gemma-4-12B-it__tt-metal-adapted.json",
             NULL}, 1,
     {"llamacpp_cells=8192", "llamacpp_swa_cells=6144", "llamacpp_swa_layers=40",
      "kv_cache_bytes=2147483648", NULL}},
    /* Gemma-4 E4B (42 layers; the last 18 read layers 22 and 23's caches): 4 full layers of
     * one 512-wide head and 20 sliding ones of 2 x 256 keep a cache, at 32,768 cells each -
     * the sliding cache as large as the main one says --swa-full: 32,768 x 4 x 2 x 512 x 2 B
     * = 512 MiB and 32,768 x 20 x 2 x 2 x 256 x 2 B = 1,280 MiB. Its weights are not read
     * (the audio encoder refuses them): --params-b */
    {"H11", {"--from-log", LOGS "llamacpp-h11-gemma4-e4b-cuda.log", "--config",
             KVCALC_SOURCE_DIR "/tests/fixtures/frontier/google__gemma-4-E4B-it__resaved.json",
             "--params-b", "8", NULL}, 1,
     {"llamacpp_swa_cells=32768", "llamacpp_swa_layers=20", "llamacpp_layers=4",
      "kv_cache_bytes=1879048192", NULL}},
    {"L12", {"--from-log", LOGS "llamacpp-l12.log", "--layers", "26", "--kv-heads", "32",
             "--head-dim", "100", "--llamacpp-build", "900", NULL}, 1,
     {"kv_budget_error_pct=0", NULL}},
    {"D05", {"--from-log", LOGS "vllm-d05.log", "--model", "llama-3.1-70b-instruct", NULL}, 1,
     {"kv_cache_tokens=22096", NULL}},
    {"D14", {"--from-log", LOGS "vllm-d14-tp4.log", "--gpu", "a100", NULL}, 1,
     {"kv_cache_tokens=2640080", "logged_model=gpt-oss-120b", NULL}},
    {"D21", {"--from-log", LOGS "vllm-d21.log", "--model", "llama-3.1-8b", "--layers", "33",
             NULL}, 1, {"kv_cache_tokens=410128", NULL}},
    {"D22", {"--from-log", LOGS "vllm-d22.log", "--model", "qwen2.5-7b-instruct", NULL}, 1,
     {"kv_cache_tokens=149792", NULL}},
    {"D28", {"--from-log", LOGS "vllm-d28-rocm.log", "--max-num-batched-tokens", "8192", NULL}, 1,
     {"kv_cache_tokens=205696", "model=google/gemma-3-27b-it", NULL}},
    {"D32", {"--from-log", LOGS "vllm-d32.log", "--model", "deepseek-r1", NULL}, 1,
     {"num_gpu_blocks=4739", NULL}},
    {"D33", {"--from-log", LOGS "vllm-d33.log", "--model", "deepseek-r1", NULL}, 1,
     {"num_gpu_blocks=5266", NULL}},
    {"P05", {"--from-log", LOGS "vllm-p05.log", "--model", "qwen2.5-7b-instruct", NULL}, 1,
     {"logged_available_kv_bytes=-1127428915.2", NULL}},
    {"L01+L02", {"--from-log", LOGS "llamacpp-l01-l02.log", "--model", GGUF "L01.gguf", NULL}, 1,
     {"startups=2", "kv_cache_tokens=128", "logged_available_kv_bytes=25165824", NULL}},
    {"L04", {"--from-log", LOGS "llamacpp-l04.log", "--model", "mistral-7b-instruct-v0.3",
             "--llamacpp-build", "6500", NULL}, 1, {"kv_budget_error_pct=0", NULL}},
    {"L06b", {"--from-log", LOGS "llamacpp-l06.log", "--model", GGUF "L06.gguf", "--flash-attn",
              "on", NULL}, 1, {"startups=2", "llamacpp_k_bytes=603979776", "kv_budget_error_pct=0", NULL}},
    {"L17", {"--from-log", LOGS "llamacpp-l17.log", "--layers", "64", "--kv-heads", "4",
             "--head-dim", "256", "--llamacpp-build", "8000", NULL}, 1,
     {"kv_cache_tokens=9216", "llamacpp_slot_ctx=1536", NULL}},
    /* only the size line: P and A are the ground truth's assumptions, the pool capped */
    {"S09", {"--from-log", LOGS "sglang-s09-tp4.log", "--model", "qwen3-235b-a22b", "--tp", "4",
             "--sglang-version", "0.4.9.post2", "--mem-fraction-static", "0.93",
             "--max-total-tokens", "367404", "--avail-mem-before-load-gib", "78.50",
             "--avail-mem-after-load-gib", "23.80", NULL}, 1,
     {"kv_cache_tokens=367404", NULL}},
    /* V0 padded the MLA latent to 640 (VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1) and used 16-token
     * blocks (vllm-logs-public.md D31); given the deployment's two settings it reproduces */
    {"D31", {"--from-log", LOGS "vllm-d31-v0.log", "--model", "deepseek-r1", "--tp", "8",
             "--mla-align-kv-cache", "--block-size", "16", NULL},
     1, {"logged_gpu_mem_bytes=150119844413.44", "num_gpu_blocks=18418", NULL}},
    /* Nemotron-H on vLLM 0.20.1rc1 with an fp8 cache and a float32 SSM state: the attention
     * block grows to hold one Mamba state (2,134,016 B in 8,192-B steps: 4,176 tokens), the 23
     * Mamba layers take 4 groups of 6 (1 padding layer); 311 blocks of 66 per request */
    {"H01", {"--from-log", LOGS "vllm-h01-nemotron-cascade-2.log", "--model",
             "nemotron-3-nano-30b-a3b", NULL}, 1,
     {"kv_cache_tokens=1206303", "num_gpu_blocks=311", "block_size=4176",
      "vllm_padding_layers=1", "vllm_state_page_bytes=2134016",
      /* its "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=19 (largest=128)"
       * from its max_num_seqs 128 and max_cudagraph_capture_size 512: [1, 2, 4] + 8..248 by
       * 8 (31) + 256..512 by 16 (17) = 51; the full decode graphs those <= 128: 3 + 16 */
      "vllm_piecewise_graphs=51", "vllm_piecewise_largest=512", "vllm_full_graphs=19",
      "vllm_full_largest=128", NULL}},
    /* Qwen3.6-27B with MTP on vLLM 0.23.0: the engine line's SpeculativeConfig(method='mtp',
     * ..., num_spec_tokens=3) puts the MTP layer's attention in the pool: 16 + 1 full layers
     * make groups of 17 (the 48 gated delta nets: 3 groups, 3 padding layers, the log's "Add 3
     * padding layers"); without it kvcalc was 6.4% high. TP 2, prefix caching off: mode none */
    {"H03", {"--from-log", LOGS "vllm-h03-qwen3.6-27b-nvfp4-mtp-tp2.log", "--model",
             "qwen3.6-27b", NULL}, 1,
     {"kv_cache_tokens=96447", "block_size=1600", "vllm_padding_layers=3",
      "vllm_layers_per_group=17", "vllm_speculative_method=mtp",
      "vllm_enable_prefix_caching=false", "vllm_mamba_align=false", NULL}},
    /* the same at TP 4 with --enable-prefix-caching: "Mamba cache mode is set to 'align'",
     * 2 state pages a group (kvcalc was 1.1% high in mode none) */
    {"H04", {"--from-log", LOGS "vllm-h04-qwen3.6-27b-fp8-mtp-tp4.log", "--model",
             "qwen3.6-27b", NULL}, 1,
     {"kv_cache_tokens=315471", "block_size=800", "vllm_layers_per_group=17",
      "vllm_enable_prefix_caching=true", "vllm_mamba_align=true", NULL}},
    /* Qwen3.6-35B-A3B (Qwen3.5-35B-A3B's shapes) on 0.22.0: 10 + 1 full layers, groups of 11 */
    {"H05", {"--from-log", LOGS "vllm-h05-qwen3.6-35b-a3b-mtp.log", "--model",
             "qwen3.5-35b-a3b", NULL}, 1,
     {"kv_cache_tokens=3131683", "block_size=1072", "vllm_padding_layers=3",
      "vllm_layers_per_group=11", "vllm_mamba_align=true", NULL}},
    /* GLM-5-FP8 at TP 8 on MI355X: SGLang sizes N by a 708-B layer (the plain fp8 latent +
     * the indexer) and stores 788 B: 167.82 GB / (78 x 708) = 3,262,986 tokens (the log's
     * 3,262,823: 8 MiB less was free when it profiled, past the lines' rounding), a pool of
     * 186.77 GB. Its server_args line (f 0.908, page 1) is not in the excerpt: given here */
    {"S26", {"--from-log", LOGS "sglang-s26-glm-5-fp8-mi355x-tp8.log", "--model", "glm-5",
             "--tp", "8", "--mem-fraction-static", "0.908", "--page-size", "1", NULL}, 0,
     {"kv_cache_tokens=3262986", "logged_kv_cache_tokens=3262823",
      "sglang_sizing_cell_bytes=55224", "sglang_cell_bytes=61464", NULL}},
    /* Gemma-4-31B-it on vLLM 0.23.0 (a Kaggle run, max_num_seqs 20): the full layers' pages
     * (4 KV heads of 512) beside the sliding ones (16 of 256) unified, 97,541 tokens from
     * 28.41 GiB, and its capture sizes: 8 piecewise graphs up to 40, 5 full ones up to 16 */
    {"H06", {"--from-log", LOGS "vllm-h06-gemma-4-31b.log", "--config",
             KVCALC_SOURCE_DIR "/tests/fixtures/frontier/google__gemma-4-31B-it.json", NULL}, 1,
     {"kv_cache_tokens=97541", "vllm_piecewise_graphs=8", "vllm_full_graphs=5", NULL}},
    /* a state pool before the token pool: the slots, the state buffers and the token count
     * from the log's own figures (+0.76%, past the rounding: about 36 MB less was free when
     * SGLang profiled than at load end), so not every line is equal */
    {"S20", {"--from-log", LOGS "sglang-s20-qwen3.5-9b-tp2.log", "--model", "qwen3.5-9b",
             "--gpu", "rtx-4090", "--mem-fraction-static", "0.8", "--tp", "2", NULL}, 0,
     {"sglang_max_mamba_cache_size=186", "sglang_ssm_state_bytes=4706009088",
      "logged_kv_cache_tokens=327310", "kv_cache_tokens=329806", NULL}},
    /* LFM2-700M's short convolutions alone (SGLang 0.5.6.post2): the log states no fraction;
     * with the 0.771 its readings imply, rest = 13.81 - 15.33 x 0.229 = 10.29943 GiB, less
     * the log's 85,292 slots of 10 layers x 1,536 x 2 x 2 B = 61,440 B, over 12,288 B a token
     * (6 attention layers x 2 x 8 x 64 x 2 B): 473,517 tokens (the log 473,854, within the
     * readings' rounding) */
    {"S24", {"--from-log", LOGS "sglang-s24-lfm2-700m.log", "--config",
             KVCALC_SOURCE_DIR "/tests/fixtures/frontier/LiquidAI__LFM2-700M__from-hf-blob-page.json",
             "--sglang-version", "0.5.6.post2", "--mem-fraction-static", "0.771", NULL}, 1,
     {"kv_cache_tokens=473517", "logged_kv_cache_tokens=473854", NULL}},
    /* issue 19 item 14: 0.31's wording of the budget line ("15.26 GiB for consumed memory
     * (weights + non-torch)") gives the GPU total, utilization and activation; with the
     * weights line, non-torch is the rest (0.26 GiB) */
    {"D35", {"--from-log", LOGS "vllm-d35-0.31-consumed.log", "--model", "llama-3.1-8b-instruct",
             "--vllm-version", "0.31", NULL}, 1,
     {"kv_cache_tokens=460464", "logged_kv_cache_tokens=460496",
      "logged_gpu_mem_bytes=85094039552", NULL}},
    /* 0.27.1 on a 119.63 GiB device: the budget subtracts the 1.94 GiB estimate, which the
     * later "peak activation" (3.78) holds, not the 0.94 GiB captured after it; the rows
     * add up to the KV memory: 110.06 - 55.99 - 3.78 = 50.29 GiB, 820,013 tokens */
    /* vLLM 0.20.0 still divides the pool among the groups: (147 // 4) x 2,096 = 75,456
     * tokens, where int(3.87 x 65,536) would be 253,520 (docs/vllm.md's eras) */
    /* V0 under a LoRA trainer (adapters outside its budget): the blocks within rounding, and
     * end to end within 3% of the logged 16.29 GiB (+1.08%: the bnb weights 92 MiB under,
     * the activation 94) */
    {"H16", {"--from-log", LOGS "vllm-h16-qwen2.5-0.5b-bnb-lora-v0-0.10.0.log", "--model",
             "qwen2.5-0.5b-instruct", NULL}, 1,
     {"num_gpu_blocks=88965", "logged_gpu_mem_bytes=25426206392.32", NULL}},
    /* --enforce-eager's 'max_cudagraph_capture_size': 0 is no size: read as the switch */
    {"H15", {"--from-log", LOGS "vllm-h15-qwen3-8b-ngram4-eager-0.18.0.log", "--model", "qwen3-8b",
             NULL}, 1,
     {"kv_cache_tokens=143872", "vllm_piecewise_graphs=0", NULL}},
    /* the KV lines quoted above the settings: the settings' lines open no new startup */
    {"H14", {"--from-log", LOGS "vllm-h14-qwen3.6-35b-a3b-nvfp4-kv-lines-first-0.24.0.log",
             "--model", "qwen3.5-35b-a3b", NULL}, 1,
     {"kv_cache_tokens=569878", "startups=1", "engine_version=0.24.0", NULL}},
    {"H13", {"--from-log", LOGS "vllm-h13-qwen3.6-35b-a3b-nvfp4-0.20.0.log", "--model",
             "qwen3.5-35b-a3b", NULL}, 1,
     {"kv_cache_tokens=75456", "logged_kv_cache_tokens=75456", NULL}},
    {"D37", {"--from-log", LOGS "vllm-d37-0.27.1-cg-estimate.log", "--model", "qwen3.5-27b",
             "--vllm-version", "0.27.1", NULL}, 1,
     {"kv_cache_tokens=820013", "logged_kv_cache_tokens=820013", NULL}},
    /* ... and TP 8 from the ranks' prefixes (Worker_TP0_EP0 ... Worker_TP7_EP7), no config
     * line: Qwen3-VL-235B's 4 KV heads replicated, 1 a GPU (it read TP 1: -75%); each rank's
     * token line paired with the smallest memory line, as vLLM keeps the smallest */
    {"D36", {"--from-log", LOGS "vllm-d36-tp8-ranks.log", "--model",
             "qwen3-vl-235b-a22b-instruct", NULL}, 1,
     {"kv_cache_tokens=216624", "logged_kv_cache_tokens=216656", NULL}},
    /* D23's token line is another rank's (10.68 GiB, vllm-logs-public.md): not equal */
    {"D23", {"--from-log", LOGS "vllm-d23-tp8.log", "--model", "qwen3-235b-a22b", NULL}, 0,
     {"logged_gpu_mem_bytes=47695611822.08", NULL}},
};

static void run_case(const cmp_case *c, const char *const *extra, run_result *r)
{
    const char *argv[MAX_ARGS + 4];
    size_t n = 0;
    for (size_t i = 0; c->args[i]; i++)
        argv[n++] = c->args[i];
    for (size_t i = 0; extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    run_kvcalc(argv, r);
    if (r->status != 0)
        fail_msg("%s: exit %d: %s", c->what, r->status, r->err);
}

/* An SGLang log without mem_fraction_static (and no GPU to take the default from): the
 * lines say what the readings imply, f = 1 - (A - K - V - conv - ssm) / P = 1 - (13.81 - 5.42
 * - 4.88 - 0.00) / 15.33 = 0.771 (S24), and with it every KV line is equal (the case above). */
static void implied_fraction(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", LOGS "sglang-s24-lfm2-700m.log", "--config",
                                     KVCALC_SOURCE_DIR
                                     "/tests/fixtures/frontier/LiquidAI__LFM2-700M__from-hf-blob-page.json",
                                     "--sglang-version", "0.5.6.post2", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "; no mem_fraction_static logged; its readings imply 0.771 "
                                  "(--mem-fraction-static or --gpu)\n"));
    run_free(&r);
}

/* The same without "Load weight begin" (P = A + mem usage = 19.08 + 3.76 GB) and with state
 * layers, whose buffers hold one padded slot more than the budget lost (82 + 1): f = 1 -
 * (19.08 - 8.30 - 7.42 x 82 / 83) / 22.84 = 0.849, and at it every KV line is equal; the TP
 * of 2 from the ranks' "TP1]" prefixes (S25, Qwen3.5-397B-A17B on two RTX 4090s). */
static void implied_fraction_of_a_state_model(void **state)
{
    (void)state;
    const char *log = LOGS "sglang-s25-qwen3.5-397b-a17b-tp2-ktransformers.log";
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", log, "--model", "qwen3.5-397b-a17b", NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "; no mem_fraction_static logged; its readings imply 0.849 "));
    run_free(&r);
    run_kvcalc((const char *const[]){"--from-log", log, "--model", "qwen3.5-397b-a17b",
                                     "--mem-fraction-static", "0.849", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "max_total_num_tokens               580,364        580,033     "
                                  "      -331  from the logged KV figure: equal within its "
                                  "rounding"));
    assert_non_null(strstr(r.out, "ssm_state size                    7.29 GiB       7.29 GiB"));
    run_free(&r);
    EXPECT_STDOUT("2\n", "--from-log", log, "--model", "qwen3.5-397b-a17b", "--get",
                  "tensor_parallel_size");
}

static void kv_lines_reproduced(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cmp_case *c = &cases[i];
        run_result r;
        run_case(c, (const char *const[]){NULL}, &r);
        size_t kv = 0, equal = 0;
        for (const char *p = r.out; (p = strstr(p, "from the logged")) != NULL; p++) {
            kv++;
            const char *eol = strchr(p, '\n');
            const char *eq = strstr(p, ": equal");
            equal += eq && eol && eq < eol;
        }
        print_message("  %-8s %zu KV lines, %zu equal within rounding\n", c->what, kv, equal);
        if (kv == 0 || (c->kv_lines_equal && equal != kv) || (!c->kv_lines_equal && equal == kv))
            fail_msg("%s:\n%s", c->what, r.out);
        run_free(&r);
        for (size_t k = 0; c->checks[k]; k++) {
            char key[64];
            const char *eq = strchr(c->checks[k], '=');
            snprintf(key, sizeof key, "%.*s", (int)(eq - c->checks[k]), c->checks[k]);
            run_case(c, (const char *const[]){"--get", key, NULL}, &r);
            char want[128];
            snprintf(want, sizeof want, "%s\n", eq + 1);
            if (strcmp(r.out, want) != 0)
                fail_msg("%s: --get %s: got %s, want %s", c->what, key, r.out, want);
            run_free(&r);
        }
    }
}

static void json_and_require(void **state)
{
    (void)state;
    run_result r;
    run_case(&cases[0], (const char *const[]){NULL}, &r);
    assert_non_null(strstr(r.out, "\nLogged: tensor_parallel_size 1, pipeline_parallel_size 1, "
                                  "max_model_len 16384, gpu_memory_utilization 0.25, dtype "
                                  "bfloat16"));
    run_free(&r);
    run_case(&cases[0], (const char *const[]){"--format", "json", NULL}, &r);
    static const char *const keys[] = {
        "\"engine\": \"vllm\"", "\"engine_version\": \"0.10.1.1\"",
        "\"logged_available_kv_bytes\": ", "\"logged_kv_cache_tokens\": 93872",
        "\"logged_weights_bytes\": ", "\"logged_gpu_mem_bytes\": null",
        "\"kv_cache_tokens\": 93808", "\"available_kv_bytes\": ", "\"kv_budget_error_pct\": ",
        "\"lines\": [", "{\"quantity\": \"weights\", \"unit\": \"bytes\", \"logged\": ",
        "\"term\": \"weights logged 14.25 GiB, estimated ", "\"logged\": {",
        "\"gpu_memory_utilization\": 0.25,", "\"pipeline_parallel_size\": 1,",
        "\"dtype\": \"bfloat16\",", "\"gpu_total\": null,", "\"what_if\": false,"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strstr(r.out, keys[i]))
            fail_msg("no %s in:\n%s", keys[i], r.out);
    run_free(&r);
    /* --require on the comparison (llama.cpp's L05 reproduces exactly: 0 %; vLLM's end to
     * end figure rests on estimates that are tuned elsewhere) */
    const char *ok[] = {"--from-log", LOGS "llamacpp-l05.log", "--model", "llama-3.1-70b",
                        "--llamacpp-build", "6000", "--require", "kv_budget_error_pct<=2", NULL};
    run_kvcalc(ok, &r);
    assert_int_equal(r.status, 0);
    run_free(&r);
    const char *bad[] = {"--from-log", LOGS "llamacpp-l05.log", "--model", "llama-3.1-70b",
                         "--llamacpp-build", "6000", "--require", "kv_budget_error_pct<0", NULL};
    run_kvcalc(bad, &r);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "requirement failed: kv_budget_error_pct<0 (got 0)"));
    run_free(&r);
}

static void flags_override_the_log(void **state)
{
    (void)state;
    /* what if: the log's max_model_len and utilization give way to the flags */
    EXPECT_STDOUT("8192\n", "--from-log", LOGS "vllm-d10.log", "--model", "qwen2.5-7b-instruct",
                  "--max-model-len", "8K", "--get", "context");
    EXPECT_STDOUT("16384\n", "--from-log", LOGS "vllm-d10.log", "--model",
                  "qwen2.5-7b-instruct", "--get", "context");
    EXPECT_STDOUT("H200\n", "--from-log", LOGS "vllm-d16-v0.log", "--model", "phi-4", "--gpu",
                  "h200", "--get", "gpu");
    /* what if D10 (util 0.25) had run at 0.5 on its A100: its KV figure no longer applies,
     * its weights do; D11 is that run (464,848 tokens). Within 3 %: the activation and
     * non-torch terms are kvcalc's estimates (docs/vllm.md), tuned elsewhere; 0.25 GiB of
     * them is about 6,000 tokens here, while keeping the log's 5.01 GiB would give 93,808 */
    run_result r;
    const char *what_if[] = {"--from-log", LOGS "vllm-d10.log", "--model",
                             "qwen2.5-7b-instruct", "--gpu", "a100",
                             "--gpu-memory-utilization", "0.5", "--get", "kv_cache_tokens", NULL};
    run_kvcalc(what_if, &r);
    assert_int_equal(r.status, 0);
    assert_true(fabs(atof(r.out) - 464848) < 0.03 * 464848);
    run_free(&r);
    const char *text[] = {"--from-log", LOGS "vllm-d10.log", "--model", "qwen2.5-7b-instruct",
                          "--gpu", "a100", "--gpu-memory-utilization", "0.5", NULL};
    run_kvcalc(text, &r);
    assert_non_null(strstr(r.out, "What if: the GPU or the memory fraction was given"));
    assert_non_null(strstr(r.out, "what if: from the new budget with the logged terms"));
    run_free(&r);
    /* a GPU the log does not name fills the gap: the KV figure still applies */
    EXPECT_STDOUT("93808\n", "--from-log", LOGS "vllm-d10.log", "--model", "qwen2.5-7b-instruct",
                  "--gpu", "a100", "--get", "kv_cache_tokens");
    /* a what-if needs the GPU */
    const char *no_gpu[] = {"--from-log", LOGS "vllm-d10.log", "--model", "qwen2.5-7b-instruct",
                            "--gpu-memory-utilization", "0.5", NULL};
    run_kvcalc(no_gpu, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "needs the GPU"));
    run_free(&r);
    /* the log's engine needs no --engine for an engine's key */
    EXPECT_STDOUT("29058\n", "--from-log", LOGS "vllm-d10-d11.log", "--model",
                  "qwen2.5-7b-instruct", "--get", "num_gpu_blocks");
}

/* A refusal of what the log states names the log, not a flag nobody typed: an EAGLE-3 run's
 * config line (its head not loaded from a log) asks for --draft-model */
static void refusals_name_the_log(void **state)
{
    (void)state;
    static const char log[] =
        "INFO 06-16 20:46:01 [core.py:113] Initializing a V1 LLM engine (v0.23.0) with config: "
        "model='/m/Llama-3.1-8B-Instruct', speculative_config=SpeculativeConfig(method='eagle3', "
        "model='/m/eagle3-head', num_spec_tokens=3), tokenizer='x', dtype=torch.bfloat16, "
        "max_seq_len=8192,\n"
        "INFO 06-16 20:47:04 [gpu_worker.py:480] Available KV cache memory: 20.04 GiB\n"
        "INFO 06-16 20:47:04 [kv_cache_utils.py:1744] GPU KV cache size: 96,447 tokens\n";
    char path[512];
    snprintf(path, sizeof path, "%s/eagle3-config-line-XXXXXX", KVCALC_BINARY_DIR);
    write_temp(path, log);
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", path, "--model", "llama-3.1-8b-instruct", NULL},
               &r);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, ": the log's speculative-method: method eagle3 needs its "
                                  "model: give --draft-model NAME"));
    assert_non_null(strstr(r.err, "--from-log "));
    assert_non_null(strstr(r.err, "eagle3-config-line-"));
    run_free(&r);
    remove(path);
}

static void stdin_and_errors(void **state)
{
    (void)state;
    run_result r;
    const char *argv[] = {"--from-log", "-", "--sglang-version", "0.4.6.post2", "--get",
                          "kv_cache_tokens", NULL};
    run_kvcalc_io(argv, LOGS "sglang-s06.log", NULL, &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "15376\n");
    run_free(&r);

    const char *unknown[] = {"--from-log", LOGS "not-a-log.txt", NULL};
    run_kvcalc(unknown, &r);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "--from-log " LOGS "not-a-log.txt: not a startup log"));
    assert_non_null(strstr(r.err, "\nTry 'kvcalc --help'"));
    assert_int_equal(count_lines(r.err), 2);
    run_free(&r);

    const char *model[] = {"--from-log", LOGS "vllm-d23-tp8.log", NULL};
    run_kvcalc(model, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "cannot resolve: give --model or --config"));
    run_free(&r);

    const char *missing[] = {"--from-log", "no-such.log", NULL};
    run_kvcalc(missing, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "kvcalc: --from-log no-such.log: cannot open"));
    run_free(&r);

    const char *engine[] = {"--from-log", LOGS "sglang-s06.log", "--engine", "vllm", NULL};
    run_kvcalc(engine, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--engine: " LOGS "sglang-s06.log is a sglang log"));
    run_free(&r);

    const char *key[] = {"--get", "logged_kv_cache_tokens", NULL};
    run_kvcalc(key, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "needs --from-log"));
    run_free(&r);
}

/* A model store names its files by digest, without an extension (Ollama's blobs/sha256-...):
 * the file the log names is read when it is a GGUF by its magic. The log is L01's, with the
 * loader's line naming a copy of L01.gguf so stored. */
static void model_file_named_by_digest(void **state)
{
    (void)state;
    const char *blob = KVCALC_BINARY_DIR "/engines/gguf/sha256-0123abcd";
    const char *logp = KVCALC_BINARY_DIR "/engines/gguf/digest.log";
    size_t len, loglen;
    char *g = read_file(GGUF "L01.gguf", &len), *l = read_file(LOGS "llamacpp-l01.log", &loglen);
    assert_non_null(g);
    assert_non_null(l);
    FILE *f = fopen(blob, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(g, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    f = fopen(logp, "wb");
    assert_non_null(f);
    fprintf(f, "llama_model_loader: loaded meta data with 5 key-value pairs and 3 tensors from %s "
               "(version GGUF V3 (latest))\n%s", blob, l);
    assert_int_equal(fclose(f), 0);
    free(g);
    free(l);
    EXPECT_STDOUT("gguf\n", "--from-log", logp, "--get", "weights_source"); /* its header's */
    /* the same name without the file: kvcalc says it cannot resolve it */
    remove(blob);
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", logp, NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "sha256-0123abcd', which kvcalc cannot resolve"));
    run_free(&r);
}

/* A KV line that the logged figure does not reproduce says what figure it implies: D23's
 * token line was printed from a rank with 10.68 GiB (vllm-logs-public.md: 238,208 tokens x
 * 48,128 B is 10.68 GiB), not the 10.65 GiB Worker_TP3 printed. */
static void unreproduced_line_says_what_it_implies(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", LOGS "vllm-d23-tp8.log", "--model",
                                     "qwen3-235b-a22b", NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "the logged line implies 10.68 GiB"));
    run_free(&r);
}

/* speculative_config nests the draft's own 'model' in vLLM's non-default args line, here
 * before the target's (a real line: a gpt-oss-120b start with an EAGLE-3 head, posted with
 * its error in a public issue, 2025-12-10). The draft's path was read as the target's; its
 * keys are read inside the nested dict and nowhere else. */
static void speculative_config_nested(void **state)
{
    (void)state;
    static const char line[] =
        "INFO 12-10 16:32:58 [utils.py:233] non-default args: {'trust_remote_code': True, "
        "'dtype': 'bfloat16', 'max_model_len': 32768, 'gpu_memory_utilization': 0.96, "
        "'max_num_seqs': 6, 'disable_log_stats': True, 'speculative_config': {'model': "
        "'/kaggle/input/nvidia-gpt-oss-120b-eagle3/transformers/default/1', "
        "'draft_tensor_parallel_size': 1, 'num_speculative_tokens': 3, 'method': 'eagle3'}, "
        "'model': '/kaggle/input/gpt-oss-120b/transformers/default/1'}";
    static kv_log lg;
    kv_log_init(&lg);
    kv_log_feed(&lg, line, sizeof line - 1);
    const kv_log_values *v = &lg.cand[KV_ENGINE_VLLM];
    assert_string_equal(v->model, "/kaggle/input/gpt-oss-120b/transformers/default/1");
    assert_true(v->present[KV_LOG_VLLM_SPEC_TOKENS] && v->v[KV_LOG_VLLM_SPEC_TOKENS] == 3);
    assert_true(v->present[KV_LOG_DRAFT_TP] && v->v[KV_LOG_DRAFT_TP] == 1);
    assert_true(v->present[KV_LOG_MAX_MODEL_LEN] && v->v[KV_LOG_MAX_MODEL_LEN] == 32768);
    /* the nested dict's brackets close it: what follows is the line's own */
    assert_true(v->present[KV_LOG_UTIL] && v->v[KV_LOG_UTIL] == 0.96);
}

/* --no-enable-prefix-caching and --enforce-eager as logs print them: 0.27.1's non-default
 * args (D37, "'enable_prefix_caching': False}"), 0.20's engine config line (H01,
 * "enable_prefix_caching=False,"), and a real non-default args line with 'enforce_eager':
 * True (vLLM 0.10.2 on vllm-ascend, Qwen2.5-0.5B, code index file 55763524705). Each becomes
 * the flag's input; "=True" and "=False" of the defaults set nothing. */
static void vllm_prefix_caching_and_eager(void **state)
{
    (void)state;
    static const char eager[] =
        "(APIServer pid=6624) INFO 10-09 01:30:01 [utils.py:328] non-default args: {'model_tag': "
        "'/home/h00643489/data/Qwen2.5-0.5B-Instruct', 'model': "
        "'/home/h00643489/data/Qwen2.5-0.5B-Instruct', 'dtype': 'float16', 'enforce_eager': True, "
        "'compilation_config': {\"level\":null}}";
    static kv_log one;
    kv_log_init(&one);
    kv_log_feed(&one, eager, sizeof eager - 1);
    const kv_log_values *v = &one.cand[KV_ENGINE_VLLM];
    assert_true(v->present[KV_LOG_ENFORCE_EAGER] && v->v[KV_LOG_ENFORCE_EAGER] == 1);
    assert_false(v->present[KV_LOG_PREFIX_CACHING]);
    static const char config[] = "INFO 10-09 01:30:33 [core.py:76] Initializing a V1 LLM engine "
                                 "(v0.10.2) with config: model='m', enforce_eager=False, "
                                 "enable_prefix_caching=True, chunked_prefill_enabled=False";
    kv_log_init(&one);
    kv_log_feed(&one, config, sizeof config - 1);
    assert_false(v->present[KV_LOG_ENFORCE_EAGER]);
    /* True is read too: beside state layers vLLM's default is off */
    assert_true(v->present[KV_LOG_PREFIX_CACHING] && v->v[KV_LOG_PREFIX_CACHING] == 1);

    const char *logs[] = {LOGS "vllm-d37-0.27.1-cg-estimate.log",
                          LOGS "vllm-h01-nemotron-cascade-2.log"};
    for (size_t i = 0; i < 2; i++) {
        v = read_log(logs[i]);
        assert_true(v->present[KV_LOG_PREFIX_CACHING] && v->v[KV_LOG_PREFIX_CACHING] == 0);
        assert_false(v->present[KV_LOG_ENFORCE_EAGER]); /* H01: enforce_eager=False */
        static kv_log_inputs in;
        kv_log_inputs_of(&lg, &in);
        int found = 0;
        for (size_t k = 0; k < in.n; k++)
            found += strcmp(in.item[k].param->key, "enable_prefix_caching") == 0;
        assert_int_equal(found, 1);
    }
}

/* The runner vLLM's worker took: a real line ("Using V2 Model Runner", gpu_worker.py:303 of a
 * 0.23/0.24-era build, a public file found by the code index, id 55592757904) and the
 * fallback's warning as vllm/config/vllm.py words it @ 28be48fa. */
static void vllm_model_runner_line(void **state)
{
    (void)state;
    static const char v2[] = "(Worker pid=50) INFO 06-19 05:51:18 [gpu_worker.py:303] Using V2 "
                             "Model Runner";
    static const char v1[] = "WARNING 06-19 05:51:18 [vllm.py:2081] Model runner v2 does not yet "
                             "support custom logits processors; using the v1 model runner "
                             "instead.";
    static kv_log one;
    kv_log_init(&one);
    kv_log_feed(&one, v2, sizeof v2 - 1);
    const kv_log_values *v = &one.cand[KV_ENGINE_VLLM];
    assert_true(v->present[KV_LOG_RUNNER_V2] && v->v[KV_LOG_RUNNER_V2] == 1);
    kv_log_init(&one);
    kv_log_feed(&one, v1, sizeof v1 - 1);
    assert_true(v->present[KV_LOG_RUNNER_V2] && v->v[KV_LOG_RUNNER_V2] == 0);
}

/* SGLang's --cpu-offload-gb from its ServerArgs line (the dataclass repr prints every field:
 * "cpu_offload_gb=4,"; an int in server_args.py). S06's real line is abridged and has none, so
 * the field is written into it: it becomes the flag's input, and the "Logged:" line says it. */
static void sglang_cpu_offload_setting(void **state)
{
    (void)state;
    static const char line[] = "[2025-05-02 16:14:28] server_args=ServerArgs(model_path='Qwen/"
                               "Qwen3-0.6B', dtype='auto', mem_fraction_static=0.88, "
                               "cpu_offload_gb=4, page_size=1, tp_size=1)";
    static kv_log one;
    kv_log_init(&one);
    kv_log_feed(&one, line, sizeof line - 1);
    const kv_log_values *v = &one.cand[KV_ENGINE_SGLANG];
    assert_true(v->present[KV_LOG_CPU_OFFLOAD] && v->v[KV_LOG_CPU_OFFLOAD] == 4);
    /* in S06 itself, through the binary */
    size_t size = 0;
    char *data = read_file(LOGS "sglang-s06.log", &size);
    assert_non_null(data);
    char *at = strstr(data, "tp_size=1)");
    assert_non_null(at);
    char path[512];
    snprintf(path, sizeof path, "%s/s06-offload.log", KVCALC_BINARY_DIR);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(data, 1, (size_t)(at - data), f);
    fputs("cpu_offload_gb=4, ", f);
    fwrite(at, 1, size - (size_t)(at - data), f);
    fclose(f);
    free(data);
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", path, NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, ", chunked_prefill_size 2048, cpu_offload_gb 4, dtype bfloat16"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--from-log", path, "--format", "json", NULL}, &r);
    assert_non_null(strstr(r.out, "\"cpu_offload_gb\": 4"));
    run_free(&r);
    remove(path);
}

/* vLLM's --enable-lora from its non-default args: a real line of an Unsloth run (Qwen2.5-VL-3B,
 * bitsandbytes, code index file 33268850062), the defaults of max_loras not printed. */
static void vllm_lora_settings(void **state)
{
    (void)state;
    static const char line[] =
        "INFO 09-23 09:19:37 [utils.py:328] non-default args: {'load_format': 'bitsandbytes', "
        "'dtype': torch.bfloat16, 'seed': 0, 'max_model_len': 16384, 'enable_prefix_caching': "
        "True, 'swap_space': 6, 'gpu_memory_utilization': 0.7861018152974387, "
        "'max_num_batched_tokens': 16384, 'max_num_seqs': 1, 'max_logprobs': 0, "
        "'disable_log_stats': True, 'quantization': 'bitsandbytes', 'limit_mm_per_prompt': "
        "{'image': 1, 'video': 0}, 'enable_lora': True, 'max_lora_rank': 64, "
        "'enable_chunked_prefill': True}";
    static kv_log lg;
    kv_log_init(&lg);
    kv_log_feed(&lg, line, sizeof line - 1);
    const kv_log_values *v = &lg.cand[KV_ENGINE_VLLM];
    assert_true(v->present[KV_LOG_LORA_ON] && v->v[KV_LOG_LORA_ON] == 1);
    assert_true(v->present[KV_LOG_LORA_RANK] && v->v[KV_LOG_LORA_RANK] == 64);
    /* True: stated, as state layers' default is off */
    assert_true(v->present[KV_LOG_PREFIX_CACHING] && v->v[KV_LOG_PREFIX_CACHING] == 1);
    assert_false(v->present[KV_LOG_MAX_LORAS]);
    assert_true(v->present[KV_LOG_MAX_NUM_SEQS] && v->v[KV_LOG_MAX_NUM_SEQS] == 1);
}

/* llama-server with -md: the lines after "loading draft model" are the draft's, and its
 * "KV self size" came last, so it was read as the model's cache. The main model's lines and
 * the draft-load line are a real log's (ggml-org/llama.cpp#11337, a 64-layer QwQ-class model,
 * q8_0 cache, -c 32768, draft Qwen2.5-Coder-0.5B); that excerpt stops before the draft's own
 * context, so the draft's lines are those a log of the same era prints for its per-slot draft
 * context (#12968: 512 cells of a 24-layer Qwen2.5-0.5B draft, 6.00 MiB), joined after it. */
static void llamacpp_draft_lines_left_out(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "llama_kv_cache_init: kv_size = 32768, offload = 1, type_k = 'q8_0', type_v = 'q8_0', "
        "n_layer = 64, can_shift = 1",
        "llama_kv_cache_init:      ROCm0 KV buffer size =  4352.00 MiB",
        "llama_new_context_with_model: KV self size  = 4352.00 MiB, K (q8_0): 2176.00 MiB, V "
        "(q8_0): 2176.00 MiB",
        "llama_new_context_with_model:      ROCm0 compute buffer size =   307.00 MiB",
        "srv    load_model: loading draft model '/models/Qwen2.5-Coder-0.5B-Instruct-IQ4_XS.gguf'",
        "llama_load_model_from_file: using device ROCm0 (AMD Radeon RX 7900 XTX) - 1840 MiB free",
        "srv          init: initializing slots, n_slots = 1",
        "llama_context: n_seq_max     = 1",
        "llama_context: n_ctx         = 512",
        "llama_context: n_ubatch      = 512",
        "init: kv_size = 512, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 24, "
        "can_shift = 1",
        "init:      ROCm0 KV buffer size =     6.00 MiB",
        "llama_context: KV self size  =    6.00 MiB, K (f16):    3.00 MiB, V (f16):    3.00 MiB",
        "llama_context:      ROCm0 compute buffer size =   298.50 MiB",
    };
    static kv_log lg;
    kv_log_init(&lg);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        kv_log_feed(&lg, lines[i], strlen(lines[i]));
    const kv_log_values *v = &lg.cand[KV_ENGINE_LLAMACPP];
    assert_true(v->present[KV_LOG_KV_BYTES]);
    assert_true(v->v[KV_LOG_KV_BYTES] == 4352.0 * 1048576.0);
    assert_string_equal(v->type_k, "q8_0");
    assert_false(v->present[KV_LOG_N_CTX]); /* the draft's n_ctx = 512 is not the model's */
    assert_int_equal(v->kv_lines, 1);
}

/* ---- the file reader's index: the same answers as trying every pattern ----------------- */

/* What kv_log_feed gives line by line (every pattern tried on every line), for the bytes
 * of a file as kv_log_read_file cuts them: complete lines, an unterminated last one
 * dropped. */
static void feed_every_line(kv_log *out, const char *data, size_t size)
{
    kv_log_init(out);
    const char *p = data, *end = data + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            out->unterminated = 1;
            break;
        }
        kv_log_feed(out, p, (size_t)(nl - p));
        p = nl + 1;
    }
    kv_log_finish(out);
}

static kv_log by_file, by_line;

/* kv_log_read_file (which tries on a line only the patterns whose words the line holds)
 * and kv_log_feed (which tries them all) agree on everything a log yields. */
static void same_as_every_pattern(const char *data, size_t size, const char *what)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fflush(f);
    char path[64];
    /* kv_log_read_file takes a path: the temporary file's, through /proc (Linux), else a
     * named file in the build tree */
    snprintf(path, sizeof path, "/proc/self/fd/%d", fileno(f));
    FILE *probe = fopen(path, "rb");
    const char *use = path;
    char named[512];
    if (!probe) {
        snprintf(named, sizeof named, "%s/index-check.log", KVCALC_BINARY_DIR);
        FILE *g = fopen(named, "wb");
        assert_non_null(g);
        assert_int_equal(fwrite(data, 1, size, g), size);
        fclose(g);
        use = named;
    } else {
        fclose(probe);
    }
    char err[4096];
    kv_status st = kv_log_read_file(use, what, &by_file, err, sizeof err);
    fclose(f);
    feed_every_line(&by_line, data, size);
    assert_int_equal(st == KV_OK, by_line.engine != KV_ENGINE_COUNT);
    if (by_file.engine != by_line.engine || by_file.lines != by_line.lines ||
        by_file.overlong != by_line.overlong || by_file.unterminated != by_line.unterminated)
        fail_msg("%s: engine %d/%d, lines %ld/%ld, overlong %ld/%ld", what, by_file.engine,
                 by_line.engine, by_file.lines, by_line.lines, by_file.overlong,
                 by_line.overlong);
    for (int e = 0; e < KV_MAX_ENGINES; e++)
        if (memcmp(&by_file.cand[e], &by_line.cand[e], sizeof by_file.cand[e]) != 0)
            fail_msg("%s: engine %d's values differ between the two readers", what, e);
}

static uint64_t mix_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void) /* splitmix64: fixed seed, the same mutations each run */
{
    uint64_t z = (mix_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The log with each line changed at random in the ways logs change and the cleaning
 * undoes: a colour inside a word, a progress bar redrawn before it ("\r"), tabs for
 * blanks, a NUL, a prefix, the line cut short, a word's bytes doubled. */
static char *mutate(const char *data, size_t size, size_t *out_size)
{
    char *out = malloc(size * 3 + 1024);
    assert_non_null(out);
    size_t o = 0;
    const char *p = data, *end = data + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        size_t at = n ? (size_t)(next_random() % n) : 0;
        switch (next_random() % 9) {
        case 0: /* a colour in the middle */
            memcpy(out + o, p, at), o += at;
            memcpy(out + o, "\x1b[1;32m", 7), o += 7;
            memcpy(out + o, p + at, n - at), o += n - at;
            break;
        case 1: /* a bar redrawn before the line */
            memcpy(out + o, "  37%|####  \r", 13), o += 13;
            memcpy(out + o, p, n), o += n;
            break;
        case 2: /* tabs for blanks */
            for (size_t k = 0; k < n; k++)
                out[o++] = p[k] == ' ' ? '\t' : p[k];
            break;
        case 3: /* a NUL */
            memcpy(out + o, p, at), o += at;
            out[o++] = '\0';
            memcpy(out + o, p + at, n - at), o += n - at;
            break;
        case 4: /* cut short */
            memcpy(out + o, p, at), o += at;
            break;
        case 5: /* a byte doubled */
            memcpy(out + o, p, at), o += at;
            if (n)
                out[o++] = p[at];
            memcpy(out + o, p + at, n - at), o += n - at;
            break;
        case 6: /* a prefix */
            memcpy(out + o, "(EngineCore_0 pid=7) ", 21), o += 21;
            memcpy(out + o, p, n), o += n;
            break;
        default:
            memcpy(out + o, p, n), o += n;
        }
        if (nl)
            out[o++] = '\n';
        p += n + (nl != NULL);
    }
    *out_size = o;
    return out;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void index_gives_the_same_answers(void **state)
{
    (void)state;
    DIR *dir = opendir(LOGS);
    assert_non_null(dir);
    char logs[128][256];
    size_t n_logs = 0;
    for (struct dirent *d; (d = readdir(dir)) != NULL;) {
        size_t len = strlen(d->d_name);
        if (len > 4 && len < sizeof logs[0] && strcmp(d->d_name + len - 4, ".log") == 0) {
            assert_true(n_logs < sizeof logs / sizeof logs[0]);
            memcpy(logs[n_logs++], d->d_name, len + 1);
        }
    }
    closedir(dir);
    assert_true(n_logs >= 60); /* tests/logs holds 64 */
    qsort(logs, n_logs, sizeof logs[0], by_name);
    size_t all_size = 0;
    char *all = NULL;
    for (size_t i = 0; i < n_logs; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", LOGS, logs[i]);
        size_t size = 0;
        char *data = read_file(path, &size);
        if (!data)
            fail_msg("%s: cannot read", path);
        same_as_every_pattern(data, size, logs[i]);
        for (int round = 0; round < 4; round++) {
            size_t m_size;
            char *m = mutate(data, size, &m_size);
            same_as_every_pattern(m, m_size, logs[i]);
            free(m);
        }
        char *grown = realloc(all, all_size + size);
        assert_non_null(grown);
        all = grown;
        memcpy(all + all_size, data, size);
        all_size += size;
        free(data);
    }
    /* every log one after another: one long file, every engine's lines in it */
    same_as_every_pattern(all, all_size, "all logs");
    /* six times over (about 10,000 lines), as it is and changed: the reader samples lines
     * 1,024 to 2,047 and 8,192 to 9,215 and keys the patterns again after each (log.c,
     * IX_SAMPLE_FIRST), so the keys it chose from every engine's lines answer the same */
    char *six = malloc(all_size * 6);
    assert_non_null(six);
    for (int k = 0; k < 6; k++)
        memcpy(six + (size_t)k * all_size, all, all_size);
    same_as_every_pattern(six, all_size * 6, "all logs, six times");
    size_t m_size;
    char *m = mutate(six, all_size * 6, &m_size);
    same_as_every_pattern(m, m_size, "all logs, six times, changed");
    free(m);
    free(six);
    free(all);
}

/* A long-running server's log is its startup and then hours of throughput lines (real
 * ones, tests/fixtures/vllm-serving-lines.log: vLLM V1 and V0): they change nothing the
 * startup stated, and the index gives them the same answers as trying every pattern. */
static void serving_lines_change_nothing(void **state)
{
    (void)state;
    size_t start_size = 0, lines_size = 0;
    char *start = read_file(LOGS "vllm-d10.log", &start_size);
    char *lines = read_file(KVCALC_SOURCE_DIR "/tests/fixtures/vllm-serving-lines.log", &lines_size);
    assert_non_null(start);
    assert_non_null(lines);
    assert_int_equal(lines_size > 0 && lines[lines_size - 1] == '\n', 1);
    enum { COPIES = 200 };
    size_t size = start_size + COPIES * lines_size;
    char *all = malloc(size);
    assert_non_null(all);
    memcpy(all, start, start_size);
    for (size_t i = 0; i < COPIES; i++)
        memcpy(all + start_size + i * lines_size, lines, lines_size);
    same_as_every_pattern(all, size, "vllm-d10.log and serving lines");
    static kv_log alone;
    feed_every_line(&alone, start, start_size);
    assert_int_equal(by_file.engine, KV_ENGINE_VLLM);
    assert_int_equal(by_file.engine, alone.engine);
    assert_memory_equal(&by_file.values, &alone.values, sizeof alone.values);
    assert_true(by_file.lines > alone.lines + COPIES * 10); /* 15 lines each */
    free(all);
    free(lines);
    free(start);
}

/* A log whose KV figure is 0 (a start that failed) has no percentage to measure against:
 * JSON says null (never inf, which is not JSON), and the text no "+0%" beside a difference.
 * (A red-team finding: vllm-d14 with "Available KV cache memory: 0.00 GiB".) */
static void logged_zero_has_no_percentage(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-zero-XXXXXX";
    write_variant(path, LOGS "vllm-d14-tp4.log", "Available KV cache memory: 45.32 GiB",
                  "Available KV cache memory: 0.00 GiB");
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", path, "--gpu", "h100", "--format", "json",
                                     NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"kv_budget_error_pct\": null,"));
    assert_null(strstr(r.out, "inf"));
    assert_null(strstr(r.out, "nan"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--from-log", path, "--gpu", "h100", NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "inf%"));
    run_free(&r);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_values),
        cmocka_unit_test(speculative_config_nested),
        cmocka_unit_test(vllm_lora_settings),
        cmocka_unit_test(vllm_prefix_caching_and_eager),
        cmocka_unit_test(sglang_cpu_offload_setting),
        cmocka_unit_test(vllm_model_runner_line),
        cmocka_unit_test(llamacpp_draft_lines_left_out),
        cmocka_unit_test(vllm_two_startups_and_a_cut_file),
        cmocka_unit_test(sglang_values),
        cmocka_unit_test(llamacpp_values),
        cmocka_unit_test(public_vllm_values),
        cmocka_unit_test(prefixes_colours_and_strictness),
        cmocka_unit_test(long_lines_are_skipped_and_counted),
        cmocka_unit_test(fields_are_named_and_documented),
        cmocka_unit_test(unknown_logs),
        cmocka_unit_test(kv_lines_reproduced),
        cmocka_unit_test(implied_fraction),
        cmocka_unit_test(implied_fraction_of_a_state_model),
        cmocka_unit_test(unreproduced_line_says_what_it_implies),
        cmocka_unit_test(json_and_require),
        cmocka_unit_test(flags_override_the_log),
        cmocka_unit_test(stdin_and_errors),
        cmocka_unit_test(refusals_name_the_log),
        cmocka_unit_test(model_file_named_by_digest),
        cmocka_unit_test(index_gives_the_same_answers),
        cmocka_unit_test(serving_lines_change_nothing),
        cmocka_unit_test(logged_zero_has_no_percentage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
