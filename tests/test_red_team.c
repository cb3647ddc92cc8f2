/*
 * test_red_team.c - the self-contradicting answers a red-team pass found in kvcalc 4 (issue
 * 19), each by its item number, with the test that failed before its fix. All through the
 * real binary, as a user or a CI job runs it.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp: the tests, not the product */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

#define RUN(r, ...) run_kvcalc((const char *const[]){__VA_ARGS__, NULL}, r)

/* Exit 2, nothing on stdout, one error line then the hint, and the error starts so. */
static void expect_usage(run_result *r, const char *start)
{
    assert_int_equal(r->status, 2);
    assert_int_equal(r->out_len, 0);
    if (strncmp(r->err, start, strlen(start)) != 0)
        fail_msg("expected \"%s...\", got: %s", start, r->err);
    assert_int_equal(count_lines(r->err), 2);
    assert_non_null(strstr(r->err, "\nTry 'kvcalc --help' for more information.\n"));
}

/* 1. --gpus N answers with its best layout: Llama-3.1-70B at 8,192 tokens on H100s wants 32
 * requests; TP 4 holds 53 (the layouts table's best), TP 1 none (131 GiB of weights on 80).
 * The headline, tensor_parallel_size, max_concurrency, fits and vLLM's section were TP 1's,
 * ending in its ValueError; the layout as typed stays under as_typed. A typed --tp is the
 * layout asked about. */
static void item01_chosen_layout_answers(void **state)
{
    (void)state;
#define A1 "--engine", "vllm", "--model", "llama-3.1-70b-instruct", "--gpu", "h100", \
           "--max-model-len", "8192", "--gpus", "8", "--target-concurrency", "32"
    EXPECT_STDOUT("4\n", A1, "--get", "tensor_parallel_size");
    EXPECT_STDOUT("53\n", A1, "--get", "max_concurrency");
    EXPECT_STDOUT("53\n", A1, "--get", "deployment_max_concurrency");
    EXPECT_STDOUT("true\n", A1, "--get", "fits");
    run_result r;
    RUN(&r, A1);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Layout     : TP 4 x PP 1 x DP 1 = 4 of --gpus 8, chosen as the "
                                  "best for --target-concurrency; as typed (TP 1, PP 1): 0 "
                                  "requests\n"));
    assert_non_null(strstr(r.out, "vLLM 0.11 (V1 engine) prediction, per GPU (tensor parallel 4)"));
    assert_null(strstr(r.out, "ValueError"));
    run_free(&r);
    RUN(&r, A1, "--format", "json");
    assert_non_null(strstr(r.out, "\"as_typed\": {\"tensor_parallel_size\": 1, "
                                  "\"pipeline_parallel_size\": 1, \"data_parallel_size\": 1, "
                                  "\"max_concurrency\": 0, \"deployment_max_concurrency\": 0, "
                                  "\"fits\": false},"));
    run_free(&r);
    EXPECT_STDOUT("1\n", A1, "--tp", "1", "--get", "tensor_parallel_size"); /* typed: asked */
    EXPECT_STDOUT("0\n", A1, "--tp", "1", "--get", "max_concurrency");
#undef A1
}

/* 2. With an engine chosen, its KV memory comes first: vLLM's "Available KV cache memory"
 * (Qwen3-8B on an H100: 50.32 GiB), not the lesson's GPU - weights - reserve (62.39 GiB),
 * which stays beside it; llama.cpp's is the cache its settings allocate. Without an engine
 * the lesson's line is byte for byte the lesson's (the golden files). */
static void item02_engine_figure_first(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100");
    assert_non_null(strstr(r.out, "\nFree for KV: 50.32 GiB, vLLM's \"Available KV cache memory\"  "
                                  "(the lesson's GPU - weights - reserve: 62.39 GiB)\n"));
    run_free(&r);
    RUN(&r, "--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "h100");
    assert_non_null(strstr(r.out, "\nKV cache   : 5.62 GiB, what llama.cpp allocates for its "
                                  "settings  (the lesson's GPU - weights - reserve: 62.39 GiB)\n"));
    assert_null(strstr(r.out, "\nFree for KV:"));
    run_free(&r);
    RUN(&r, "--model", "qwen3-8b", "--gpu", "h100");
    assert_non_null(strstr(r.out, "\nFree for KV: 62.39 GiB\n\n"));
    run_free(&r);
}

/* 3. Under tensor parallelism the weights' GiB are one GPU's, and the line says so and gives
 * the whole (Llama-3.1-70B at TP 2: 65.71 GiB per GPU, 131.42 in all); one precision policy:
 * what kvcalc derives or takes from a table prints with 2 decimals ("~70.55B", "79.65 GiB"),
 * what the user typed as typed ("~7B", "48 GiB": the lesson's bytes). */
static void item03_per_gpu_and_precision(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "llama-3.1-70b-instruct", "--gpu", "h100", "--tp", "2");
    assert_non_null(strstr(r.out, "Weights    : ~70.55B params @ bf16  ->  65.71 GiB per GPU "
                                  "(131.42 GiB in all)  (parameters estimated from the config)\n"
                                  "GPU memory : 79.65 GiB (H100 80GB)"));
    run_free(&r);
    RUN(&r, "--params-b", "7", "--gpu-mem-gib", "79.6475");
    assert_non_null(strstr(r.out, "Weights    : ~7B params @ fp16  ->  13.04 GiB\n"
                                  "GPU memory : 79.6475 GiB   (reserve"));
    run_free(&r);
}

/* 4. --from-log: the term column uses the difference column's sign (kvcalc minus logged): a
 * weight estimate 0.06 GiB under the log's leaves +0.06 GiB of KV budget, and the terms and
 * the rest add up to the KV memory's difference (+119.42 MiB = +0.06 + 0.05 GiB). */
static void item04_term_signs_follow_the_difference(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--from-log", KVCALC_SOURCE_DIR "/tests/logs/vllm-d10.log", "--model",
        "qwen2.5-7b-instruct", "--gpu", "a100");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "-65.14 MiB  weights logged 14.25 GiB, estimated 14.19 GiB: "
                                  "+0.06 GiB of the KV budget\n"));
    assert_non_null(strstr(r.out, "+119.42 MiB  end to end: the terms above give +0.06 GiB, the "
                                  "rest +0.05 GiB"));
    run_free(&r);
}

/* 5. Defaults the GPU's size chooses say so: vLLM gives a GPU of 70 GiB or more 8,192
 * batched tokens and 1,024 sequences, whose profile run takes more - Gemma-3-27B at 8,192
 * tokens holds 2 requests on 66 GiB and none on 71. Below 70 GiB, or with both set, no note. */
static void item05_defaults_by_gpu_size_said(void **state)
{
    (void)state;
#define A5 "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len", "8192"
    EXPECT_STDOUT("2\n", A5, "--gpu-mem-gib", "66", "--get", "max_concurrency");
    EXPECT_STDOUT("0\n", A5, "--gpu-mem-gib", "71", "--get", "max_concurrency");
    run_result r;
    RUN(&r, A5, "--gpu-mem-gib", "71");
    assert_non_null(strstr(r.out, "  (defaults chosen by the GPU's size: max_num_batched_tokens "
                                  "8,192, max_num_seqs 1,024 on 70 GiB or more (not A100s),\n"));
    run_free(&r);
    RUN(&r, A5, "--gpu-mem-gib", "66");
    assert_null(strstr(r.out, "defaults chosen by the GPU's size"));
    run_free(&r);
    RUN(&r, A5, "--gpu-mem-gib", "71", "--max-num-batched-tokens", "2048", "--max-num-seqs", "256");
    assert_null(strstr(r.out, "defaults chosen by the GPU's size"));
    run_free(&r);
#undef A5
    RUN(&r, "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100");
    assert_non_null(strstr(r.out, "(f: this version's default for the GPU's size and TP: a bigger "
                                  "card reserves more)"));
    run_free(&r);
}

/* 14. A model logged as a local path is found by its last part or by the Hugging Face cache
 * folder it lies in (models--Qwen--Qwen3-8B/snapshots/<commit>: Qwen/Qwen3-8B); a path that
 * names neither is refused with the path as logged. */
static void item14_model_paths(void **state)
{
    (void)state;
    static const char *const paths[] = {
        "/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/9c925d64d727",
        "/mnt/models/Qwen3-8B/", "/mnt/models/Qwen3-8B"};
    char text[600], path[] = "/tmp/kvcalc-item14-XXXXXX";
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        snprintf(text, sizeof text,
                 "INFO 10-06 17:00:00 [utils.py:1] non-default args: {'model': '%s', "
                 "'max_model_len': 8192}\n"
                 "INFO 10-06 17:00:33 [gpu_worker.py:692] Available KV cache memory: 56.21 GiB\n",
                 paths[i]);
        strcpy(path, "/tmp/kvcalc-item14-XXXXXX");
        write_temp(path, text);
        EXPECT_STDOUT("Qwen/Qwen3-8B\n", "--from-log", path, "--get", "model");
        unlink(path);
    }
    strcpy(path, "/tmp/kvcalc-item14-XXXXXX");
    write_temp(path, "INFO 10-06 17:00:00 [utils.py:1] non-default args: {'model': "
                     "'/mnt/models/models--x/snapshots/abc', 'max_model_len': 8192}\n"
                     "INFO 10-06 17:00:33 [gpu_worker.py:692] Available KV cache memory: 1 GiB\n");
    run_result r;
    RUN(&r, "--from-log", path);
    char want[300];
    snprintf(want, sizeof want, "kvcalc: --from-log %s: the log names model "
             "'/mnt/models/models--x/snapshots/abc', which kvcalc cannot resolve: give --model "
             "or --config\n", path);
    expect_usage(&r, want);
    run_free(&r);
    unlink(path);
}

/* 14 (the rest). The name a model is served under finds it when its path names nothing
 * kvcalc knows ('/model' served as Qwen/Qwen3-8B, as vLLM's non-default args and config
 * line print it), and the launch command line a log keeps is read: D31's real log holds only
 * "vllm serve /models/DeepSeek-R1 ... --served-model-name deepseek-r1 --tensor-parallel-size
 * 8 ..." and V0's memory lines (it said "the log names no model"). */
static void item14_served_name_and_command_line(void **state)
{
    (void)state;
    const char *d31 = KVCALC_SOURCE_DIR "/tests/logs/vllm-d31-v0.log";
    EXPECT_STDOUT("deepseek-ai/DeepSeek-R1\n", "--from-log", d31, "--get", "model");
    EXPECT_STDOUT("8\n", "--from-log", d31, "--get", "tensor_parallel_size");
    EXPECT_STDOUT("128000\n", "--from-log", d31, "--get", "context");
    run_result r;
    RUN(&r, "--from-log", d31);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nLogged: tensor_parallel_size 8, max_model_len 128000, "
                                  "gpu_memory_utilization 0.85, max_num_batched_tokens 32000, "
                                  "served_model_name deepseek-r1.\n"));
    run_free(&r);
    static const char *const logs[] = {
        "INFO 10-06 17:00:00 [utils.py:1] non-default args: {'model': '/model', "
        "'served_model_name': ['Qwen/Qwen3-8B', 'qwen'], 'max_model_len': 8192}\n",
        "INFO 10-06 17:00:00 [core.py:1] Initializing a V1 LLM engine (v0.10.1) with config: "
        "model='/model', speculative_config=None, tokenizer='/model', max_seq_len=8192, "
        "seed=0, served_model_name=qwen3-8b, enable_prefix_caching=True\n",
        "vllm serve /model --served-model-name Qwen3-8B --max-model-len 8192\n"};
    char text[700], path[] = "/tmp/kvcalc-item14s-XXXXXX";
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        snprintf(text, sizeof text,
                 "%sINFO 10-06 17:00:33 [gpu_worker.py:692] Available KV cache memory: 56.21 "
                 "GiB\n",
                 logs[i]);
        strcpy(path, "/tmp/kvcalc-item14s-XXXXXX");
        write_temp(path, text);
        EXPECT_STDOUT("Qwen/Qwen3-8B\n", "--from-log", path, "--get", "model");
        EXPECT_STDOUT("8192\n", "--from-log", path, "--get", "context");
        unlink(path);
    }
    /* a served name that names nothing either: both in the message */
    RUN(&r, "--from-log", KVCALC_SOURCE_DIR "/tests/logs/vllm-h01-nemotron-cascade-2.log");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "the log names model 'chankhavu/Nemotron-Cascade-2-30B-A3B-NVFP4' "
                                  "(served as 'nemotron-cascade-2-nvfp4'), which kvcalc cannot "
                                  "resolve: give --model or --config\n"));
    run_free(&r);
    /* SGLang's command line: --model-path is not "--model" with the value "-path" */
    EXPECT_STDOUT("Qwen/Qwen3-235B-A22B-FP8\n", "--from-log",
                  KVCALC_SOURCE_DIR "/tests/logs/sglang-s09-tp4.log", "--get", "model");
    strcpy(path, "/tmp/kvcalc-item14s-XXXXXX");
    write_temp(path, "python3 -m sglang.launch_server --model-path /m/Qwen3-8B --tp 2\n"
                     "[2025-07-21 10:00:00 TP0] KV Cache is allocated. #tokens: 36740, K size: "
                     "2.52 GB, V size: 2.52 GB\n");
    EXPECT_STDOUT("Qwen/Qwen3-8B\n", "--from-log", path, "--get", "model");
    unlink(path);
}

/* 15. SGLang: the launch command a log keeps gives mem_fraction_static and TP when no
 * server_args dump does (S09: "python3 -m sglang.launch_server ... --tp 4 ...
 * --mem-fraction-static 0.93"; they were not read). */
static void item15_sglang_launch_line(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--from-log", KVCALC_SOURCE_DIR "/tests/logs/sglang-s09-tp4.log", "--model",
        "qwen3-235b-a22b");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nLogged: tensor_parallel_size 4, mem_fraction_static 0.93.\n"));
    run_free(&r);
    RUN(&r, "--from-log", KVCALC_SOURCE_DIR "/tests/logs/sglang-s09-tp4.log", "--model",
        "qwen3-235b-a22b", "--format", "json");
    assert_non_null(strstr(r.out, "\"tensor_parallel_size\": 4,"));
    assert_non_null(strstr(r.out, "\"mem_fraction_static\": 0.93,"));
    run_free(&r);
}

/* 16. An Ollama log that names a blob path and prints the GGUF geometry only in llama.cpp's
 * print_info lines (no "llama_model_loader: - kv" dump) describes its model by them: O01
 * without its dump reads as O01 does (llama Q8_0, 24 blocks, 1.50 GiB of KV both ways). */
static void item16_ollama_print_info_geometry(void **state)
{
    (void)state;
    char *log = read_file(KVCALC_SOURCE_DIR "/tests/logs/ollama-o01.log", NULL);
    assert_non_null(log);
    char *kept = malloc(strlen(log) + 1);
    assert_non_null(kept);
    size_t n = 0;
    for (char *line = log; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line + 1) : strlen(line);
        if (!strstr(line, "llama_model_loader: - kv") ||
            (end && strstr(line, "llama_model_loader: - kv") > end)) {
            memcpy(kept + n, line, len);
            n += len;
        }
        line += len;
    }
    kept[n] = '\0';
    assert_null(strstr(kept, "llama_model_loader: - kv"));
    assert_non_null(strstr(kept, "print_info: n_layer"));
    char path[] = "/tmp/kvcalc-red-XXXXXX";
    write_temp(path, kept);
    free(kept);
    free(log);
    run_result a, b;
    RUN(&a, "--from-log", path);
    RUN(&b, "--from-log", KVCALC_SOURCE_DIR "/tests/logs/ollama-o01.log");
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "kvcalc's model: llama Q8_0, 24 blocks, as the log describes it"));
    const char *ka = strstr(a.out, "\nKV memory:"), *kb = strstr(b.out, "\nKV memory:");
    assert_non_null(ka);
    assert_non_null(kb);
    assert_string_equal(ka, kb);
    run_free(&a);
    run_free(&b);
    unlink(path);
}

/* 6. A KV cache of a given size beside weights that outgrow the GPU: 27.4B bf16 parameters
 * are 51.10 GiB, more than a 10 GiB GPU - vLLM never loads them, so it holds 0 requests and
 * fits is false; the text says torch runs out of memory (it said "fits" and 63 requests
 * beside the lesson's "Weights + overhead already exceed GPU memory"). With the GPU the log
 * came from (an MI300X holds 51.10 + 109.86 GiB) the 109.86 GiB start as the log did. */
/* 6b. The other way round: weights the lesson's arithmetic puts all on the GPU, which the
 * engine keeps partly in host memory. Qwen3-30B-A3B in bf16 is 56.87 GiB, more than an RTX
 * 4090's 23.99; llama.cpp's --cpu-moe keeps its 54.00 GiB of experts on the CPU and vLLM's
 * --cpu-offload-gb 45 its 45 GiB: both hold requests. The screen said "no room for KV cache.
 * Use a bigger GPU" above the engine's "fits" and its requests. */
static void item06_room_where_the_engine_offloads(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "llama.cpp", "--model", "qwen3-30b-a3b", "--gpu", "rtx-4090", "--cpu-moe");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "With every weight on the GPU (the lesson's arithmetic) there "
                                  "is no room for KV cache;\nllama.cpp's own placement below "
                                  "holds 4 requests of 4,096 tokens: that is the answer.\n"));
    assert_null(strstr(r.out, "Use a bigger GPU"));
    assert_non_null(strstr(r.out, "  4 requests of 4,096 tokens at once"));
    run_free(&r);
    EXPECT_STDOUT("true\n", "--engine", "llama.cpp", "--model", "qwen3-30b-a3b", "--gpu",
                  "rtx-4090", "--cpu-moe", "--get", "fits");
    RUN(&r, "--engine", "vllm", "--model", "qwen3-30b-a3b", "--gpu", "rtx-4090",
        "--cpu-offload-gb", "45", "--max-model-len", "8192");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "vLLM's own placement below holds 10 requests of 8,192 tokens: "
                                  "that is the answer.\n"));
    assert_non_null(strstr(r.out, "Maximum concurrency for 8,192 tokens per request: 10.37x"));
    assert_null(strstr(r.out, "Use a bigger GPU"));
    run_free(&r);
    /* the lesson's own engine keeps the lesson's words (tests/golden/no-room.out) */
    RUN(&r, "--model", "qwen3-30b-a3b", "--gpu", "rtx-4090");
    assert_non_null(strstr(r.out, "Weights + overhead already exceed GPU memory: no room for KV "
                                  "cache.\nUse a bigger GPU"));
    run_free(&r);
}

static void item06_no_fits_beside_no_room(void **state)
{
    (void)state;
    EXPECT_STDOUT("0\n", "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len",
                  "4096", "--kv-cache-memory-gib", "109.86", "--gpu-mem-gib", "10", "--get",
                  "max_concurrency");
    EXPECT_STDOUT("false\n", "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len",
                  "4096", "--kv-cache-memory-gib", "109.86", "--gpu-mem-gib", "10", "--get",
                  "fits");
    run_result r;
    RUN(&r, "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len", "4096",
        "--kv-cache-memory-gib", "109.86", "--gpu-mem-gib", "10");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "With every weight on the GPU (the lesson's arithmetic) there "
                                  "is no room for KV cache;\nvLLM's own placement below holds no "
                                  "request of 4,096 tokens either.\n"));
    assert_null(strstr(r.out, "Use a bigger GPU")); /* the engine's section says why */
    assert_non_null(strstr(r.out, "torch.OutOfMemoryError: CUDA out of memory.\n  (the weights, "
                                  "51.10 GiB, need more than the GPU's 10.00 GiB: vLLM would "
                                  "not load them.)\n"));
    assert_null(strstr(r.out, "GPU KV cache size"));
    run_free(&r);
    /* weights that fit and a given cache that does not fit beside them: 3.4B on 16 GiB */
    RUN(&r, "--engine", "vllm", "--model", "qwen3-4b-instruct-2507", "--gpu-mem-gib", "16",
        "--kv-cache-memory-gib", "12");
    assert_non_null(strstr(r.out, "and the KV cache of the size given, "));
    run_free(&r);
    EXPECT_STDOUT("50\n", "--engine", "vllm", "--model", "gemma-3-27b-it", "--gpu", "mi300x",
                  "--max-model-len", "4096", "--kv-cache-memory-gib", "109.86", "--get",
                  "max_concurrency");
    /* no GPU named: the lesson's 48 GiB is an illustration, the given cache stands, and the
     * section says the illustration could not hold it */
    RUN(&r, "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len", "4096",
        "--kv-cache-memory-gib", "109.86");
    assert_non_null(strstr(r.out, "(no GPU named: the lesson's 48.00 GiB could not hold the "
                                  "weights and this cache"));
    run_free(&r);
}

/* 7. SGLang's two readings: free memory after the weights loaded cannot exceed what was free
 * before ("mem usage=-99.00 GB" and 456 requests were printed). Equal readings (weights of 0
 * bytes) stay accepted. */
static void item07_sglang_readings_in_order(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "sglang", "--avail-mem-before-load-gib", "1",
        "--avail-mem-after-load-gib", "100");
    expect_usage(&r, "kvcalc: --avail-mem-after-load-gib: 100 GiB is more than was free before "
                     "the weights loaded (--avail-mem-before-load-gib 1)");
    run_free(&r);
    RUN(&r, "--engine", "sglang", "--avail-mem-before-load-gib", "40",
        "--avail-mem-after-load-gib", "40", "--params-b", "0.001");
    assert_int_equal(r.status, 0);
    run_free(&r);
}

/* 9. An unknown quantization_config.quant_method is not sized as int4 from its "bits" (it
 * was: Qwen3-8B as "hqq4" with bits 4 came out 5.55 GiB and 71 requests): the weights are
 * refused with the method named, until --params-b and --weight-dtype say. Known methods keep
 * their sizes: AWQ's 4 bits. */
static void item09_unknown_quant_method_refused(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-red-XXXXXX";
    write_temp(path, "{\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"hidden_size\": "
                     "256, \"vocab_size\": 1000, \"intermediate_size\": 512, "
                     "\"quantization_config\": {\"quant_method\": \"hqq4\", \"bits\": 4}}");
    run_result r;
    RUN(&r, "--config", path);
    expect_usage(&r, "kvcalc: ");
    assert_non_null(strstr(r.err, "(quantization_config.quant_method 'hqq4' is unknown): give "
                                  "--params-b (billions of parameters) and --weight-dtype"));
    run_free(&r);
    EXPECT_STDOUT("200000000\n", "--config", path, "--params-b", "0.1", "--weight-dtype", "bf16",
                  "--get", "weights_bytes");
    unlink(path);
    char awq[] = "/tmp/kvcalc-red-XXXXXX";
    write_temp(awq, "{\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"hidden_size\": "
                    "256, \"vocab_size\": 1000, \"intermediate_size\": 512, "
                    "\"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4}}");
    RUN(&r, "--config", awq, "--get", "weight_dtype_bytes");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "0.5\n");
    run_free(&r);
    unlink(awq);
}

/* 10. JSON escapes control bytes; it does not replace them: a config path holding a newline
 * comes back as that path ("dir\nx", not "dir?x"); the text replaces them. */
static void item10_json_escapes_control_bytes(void **state)
{
    (void)state;
    char dir[] = "/tmp/kvcalc-red-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[128], path[160];
    snprintf(sub, sizeof sub, "%s/a\nb", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/config.json", sub);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"hidden_size\": 256, "
          "\"vocab_size\": 1000, \"intermediate_size\": 512}", f);
    fclose(f);
    run_result r;
    RUN(&r, "--config", path, "--format", "json");
    assert_int_equal(r.status, 0);
    char want[256];
    snprintf(want, sizeof want, "\"model\": \"%s/a\\nb/config.json\"", dir);
    assert_non_null(strstr(r.out, want));
    run_free(&r);
    RUN(&r, "--config", path);
    snprintf(want, sizeof want, "(%s/a?b/config.json;", dir);
    assert_non_null(strstr(r.out, want));
    assert_null(strstr(r.out, "a\nb")); /* the raw newline never reaches the terminal */
    run_free(&r);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
}

/* 11. A shared prefix longer than a request's context: the lesson's arithmetic stays (its
 * bytes, golden/prefix-longer-than-context), and beside a real model a line says the saving
 * is more than the requests hold. */
static void item11_prefix_longer_than_context(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "qwen3-8b", "--prefix-tokens", "5000", "--context", "4096");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  (a 5,000-token prefix is longer than a request's 4,096 "
                                  "tokens: no request holds it whole:\n  this saves more than "
                                  "the requests hold)\n"));
    run_free(&r);
    RUN(&r, "--model", "qwen3-8b", "--prefix-tokens", "4096", "--context", "4096");
    assert_null(strstr(r.out, "longer than a request's"));
    run_free(&r);
}

/* 12. A config whose KV heads do not divide its attention heads (7 for 32) is refused at
 * the field - it was sized until --tp was given. */
static void item12_kv_heads_divide_heads(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-red-XXXXXX";
    write_temp(path, "{\"num_hidden_layers\": 4, \"num_attention_heads\": 32, "
                     "\"num_key_value_heads\": 7, \"hidden_size\": 4096, \"vocab_size\": 1000, "
                     "\"intermediate_size\": 512}");
    run_result r;
    RUN(&r, "--config", path);
    expect_usage(&r, "kvcalc: ");
    assert_non_null(strstr(r.err, ": num_key_value_heads: 7 does not divide num_attention_heads "
                                  "32"));
    run_free(&r);
    unlink(path);
    /* --block-size 3 under vLLM: tests/test_vllm.c block_sizes_by_release */
    RUN(&r, "--engine", "vllm", "--block-size", "3");
    expect_usage(&r, "kvcalc: --block-size: vLLM 0.11 accepts 1, 8, 16, 32, 64, 128 or 256");
    run_free(&r);
}

/* 17. Inputs and their messages: a folder whose model.safetensors cannot be opened (a
 * dangling symlink to a missing blob reads so in standard C) says "no readable safetensors
 * files"; a first shard without its index says the index is what is missing; --model ""
 * names what --model takes; SGLang's name for Llama 3.1 finds its preset. */
static void item17_inputs_and_messages(void **state)
{
    (void)state;
    char dir[] = "/tmp/kvcalc-red-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], cmd[600];
    snprintf(cmd, sizeof cmd, "cp '%s/data/models/Qwen__Qwen3-8B.json' '%s/config.json' && "
                              "ln -s /nonexistent/blob '%s/model.safetensors'",
             KVCALC_SOURCE_DIR, dir, dir);
    assert_int_equal(system(cmd), 0);
    run_result r;
    RUN(&r, "--model", dir);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(parameters estimated from the config: no readable safetensors "
                                  "files - model.safetensors.index.json, model.safetensors)"));
    run_free(&r);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/model-00001-of-00004.safetensors", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
    RUN(&r, "--model", dir);
    assert_non_null(strstr(r.out, "(parameters estimated from the config: its shards have no "
                                  "model.safetensors.index.json to name them)"));
    run_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    RUN(&r, "--model", "");
    expect_usage(&r, "kvcalc: --model: expected a built-in model (--list-models), org/name in the "
                     "Hugging Face cache, a folder or a file, got ''");
    run_free(&r);
    EXPECT_STDOUT("meta-llama/Llama-3.1-8B-Instruct\n", "--model",
                  "meta-llama/Meta-Llama-3.1-8B-Instruct", "--get", "model");
}

/* 18. Nothing asked for is dropped silently: --list-models and --list-gpus take --format
 * json and csv; --format csv with --levers, --target-concurrency or --gpus is refused (it
 * prints the context table only); a preset's name with blanks around it is found, as a
 * GPU's is. */
static void item18_nothing_dropped(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--list-models", "--format", "json");
    assert_int_equal(r.status, 0);
    assert_memory_equal(r.out, "[\n  {\"model\": \"allenai/OLMo-2-0325-32B\", \"alias\": "
                               "\"olmo-2-32b\", \"params\": 32234279936, \"kv_bytes_per_token\": "
                               "262144, \"layout\": \"64 layers, 8 KV heads, head_dim 128\"}",
                        strlen("[\n  {\"model\": \"allenai/OLMo-2-0325-32B\", \"alias\": "
                               "\"olmo-2-32b\", \"params\": 32234279936, \"kv_bytes_per_token\": "
                               "262144, \"layout\": \"64 layers, 8 KV heads, head_dim 128\"}"));
    /* one line a preset (the rows of data/models/INDEX.tsv), and the brackets */
    char *index = read_file(KVCALC_SOURCE_DIR "/data/models/INDEX.tsv", NULL);
    assert_non_null(index);
    int presets = 0;
    for (const char *line = index; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
        presets += *line != '#' && *line != '\n';
    free(index);
    assert_int_equal(count_lines(r.out), presets + 2);
    assert_true(presets >= 79);
    run_free(&r);
    RUN(&r, "--list-gpus", "--format", "csv");
    assert_memory_equal(r.out, "gpu,mib,gib,estimated,aliases,bandwidth_gbs,bandwidth_form\n",
                        59);
    run_free(&r);
    static const char *const sections[][2] = {
        {"--levers", NULL}, {"--target-concurrency", "8"}, {"--gpus", "8"}};
    for (size_t i = 0; i < 3; i++) {
        RUN(&r, "--format", "csv", sections[i][0], sections[i][1]);
        expect_usage(&r, "kvcalc: --format csv: prints the context table only; ");
        run_free(&r);
    }
    EXPECT_STDOUT("Qwen/Qwen3-8B\n", "--model", " qwen3-8b ", "--get", "model");
    EXPECT_STDOUT("H100 80GB\n", "--gpu", "h100 ", "--get", "gpu");
}

/* 19. GPUs: the RTX 4090 at the total its driver and torch report (24,564 MiB =
 * 25,757,220,864 B, torch's mem_get_info total; vLLM "(22.45/23.99 GiB)"), the plain RTX
 * 3060 / 4060 / 4070 / 5070 by their nvidia-smi names, Hygon DCUs (the K100_AI an estimate,
 * so flagged), and Apple machines at Metal's working-set limit (M2 Max 96 GB: 73,728 MiB) -
 * every figure in data/gpus/SOURCES.md. */
static void item19_gpus(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"RTX 4090", "25757220864\n"},                       /* 24,564 x 2^20 */
        {"NVIDIA GeForce RTX 4060", "8585740288\n"},         /* 8,188 x 2^20 */
        {"NVIDIA GeForce RTX 3060", "12884901888\n"},        /* 12,288 x 2^20 */
        {"NVIDIA GeForce RTX 4070", "12878610432\n"},        /* 12,282 x 2^20 */
        {"NVIDIA GeForce RTX 5070", "12820938752\n"},        /* 12,227 x 2^20 */
        {"hygon z100l", "34342961152\n"},                    /* 33,538,048 KB x 1024 */
        {"bw1000", "68702699520\n"},                         /* 65,520 x 2^20 */
        {"apple-m2-max-96gb", "77309411328\n"},              /* 73,728 x 2^20 */
        {"m1-max-64gb", "51539607552\n"},                    /* 49,152 x 2^20 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STDOUT(cases[i][1], "--gpu", cases[i][0], "--get", "gpu_mem_bytes");
    run_result r;
    RUN(&r, "--list-gpus", "--format", "json");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "{\"gpu\": \"Hygon K100_AI\", \"mib\": 65536, \"gib\": 64, "
                                  "\"estimated\": true,"));
    assert_non_null(strstr(r.out, "{\"gpu\": \"RTX 4090\", \"mib\": 24564, "));
    run_free(&r);
    /* 32 GB M1 and M2 Max: Metal's 2/3 of 32 GiB, 21,845.34 MiB as llama.cpp printed it */
    RUN(&r, "--gpu", "m2-max-32gb");
    assert_non_null(strstr(r.out, "GPU memory : 21.33 GiB (Apple M2 Max 32GB)"));
    run_free(&r);
}

/* 21. Columns hold what they show (100,000 GPUs: the DP and GPUs columns were overrun), a
 * plan's huge totals group their thousands, and a sweep grid beyond 10^8 points (about a
 * minute of rows) is refused (10^10 was allowed; test_review.c). */
static void item21_columns_and_totals(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--gpus", "100000", "--model", "qwen3-8b");
    assert_int_equal(r.status, 0);
    const char *head = strstr(r.out, "\n    TP   PP      DP    GPUs   per replica         in all\n");
    assert_non_null(head);
    assert_non_null(strstr(head, "\n     1    1 100,000 100,000            54      5,400,000"));
    run_free(&r);
    RUN(&r, "--target-concurrency", "1000000000000", "--context", "1000000000");
    assert_non_null(strstr(r.out, "= 53,405,761,718,750,000.00 GiB\n"));
    run_free(&r);
}

/* 21. A sweep past a second shows its progress on stderr when asked (--progress: ISO C
 * cannot tell a terminal), rewritten in place and ended by its total; a short one says
 * nothing, the rows are the same with or without it, and --progress alone is refused. */
static void item21_sweep_progress(void **state)
{
    (void)state;
    run_result r, plain;
    RUN(&r, "--progress");
    expect_usage(&r, "kvcalc: --progress: shows a sweep's or a simulation's progress; give "
                     "--sweep, or --rate / --concurrency / --trace\n");
    run_free(&r);
    RUN(&r, "--sweep", "context=1..2000+1", "--format", "csv", "--progress");
    RUN(&plain, "--sweep", "context=1..2000+1", "--format", "csv");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, plain.out);
    assert_string_equal(r.err, ""); /* well under a second */
    run_free(&r);
    run_free(&plain);
    /* 12,000,000 rows: 1.7 s on the fastest machine seen (7M rows/s), longer elsewhere and
     * under the sanitizers. Whether a line shows depends on the clock, so the test reads the
     * clock too: past 1.2 s the line must be there, under 0.9 s it must not. */
    struct timespec t0, t1;
    assert_int_equal(timespec_get(&t0, TIME_UTC), TIME_UTC);
    run_kvcalc_to((const char *const[]){"--sweep", "context=1..12000000+1", "--format", "csv",
                                        "--progress", NULL},
                  "/dev/null", &r);
    assert_int_equal(timespec_get(&t1, TIME_UTC), TIME_UTC);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_int_equal(r.status, 0);
    if (secs < 0.9) {
        assert_string_equal(r.err, "");
    } else if (secs > 1.2 || r.err_len > 0) {
        assert_int_equal(r.err[0], '\r');
        assert_non_null(strstr(r.err, " of 12,000,000 rows ("));
        const char *last = strrchr(r.err, '\r');
        assert_non_null(last);
        const char *end = "\rkvcalc: --sweep: 12,000,000 of 12,000,000 rows (100%), ";
        assert_memory_equal(last, end, strlen(end));
        assert_non_null(strstr(last, " rows/s in "));
        if (last != r.err) /* a line before the last: a running one */
            assert_non_null(strstr(r.err, " rows/s, about "));
        assert_int_equal(count_lines(r.err), 1); /* rewritten in place, one line at the end */
        assert_int_equal(r.err[r.err_len - 1], '\n');
    }
    run_free(&r);
}

/* A second red team (stop 36). 2: with vLLM's prefix caching off nothing is shared, so no
 * saving is reported beside "false" (it said 55.97 GiB, ~49 more). 14: vLLM V0 keeps it off
 * unless asked for (_set_default_args_v0 never turns it on; only _set_default_args_v1 does). */
static void rt2_prefix_caching_off_shares_nothing(void **state)
{
    (void)state;
#define P2 "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--prefix-requests", \
           "200", "--prefix-tokens", "2048", "--max-model-len", "8192"
    EXPECT_STDOUT("false\n", P2, "--no-enable-prefix-caching", "--get",
                  "vllm_enable_prefix_caching");
    EXPECT_STDOUT("0\n", P2, "--no-enable-prefix-caching", "--get",
                  "vllm_prefix_extra_concurrency");
    EXPECT_STDOUT("0\n", P2, "--no-enable-prefix-caching", "--get", "vllm_prefix_saved_bytes");
    EXPECT_STDOUT("49\n", P2, "--get", "vllm_prefix_extra_concurrency"); /* on: it shares */
    run_result r;
    RUN(&r, P2, "--no-enable-prefix-caching");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  Prefix caching is off (--no-enable-prefix-caching): each of "
                                  "200 requests holds its own copy of a 2,048-token prefix; "
                                  "nothing is shared.\n"));
    assert_null(strstr(r.out, "requests sharing it save"));
    /* and the lesson's arithmetic beside it says vLLM does not do it (a third red team) */
    assert_non_null(strstr(r.out, "  (the lesson's arithmetic: vLLM shares none of it here: "
                                  "prefix caching is off)\n"));
    assert_null(strstr(r.out, "nearly free to reuse"));
    run_free(&r);
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-8b", "--gpu", "h100");
    assert_non_null(strstr(r.out, "  (the lesson's arithmetic: llama.cpp holds it once a slot, "
                                  "not once: each slot keeps its own copy)\n"));
    run_free(&r);
    EXPECT_STDOUT("false\n", P2, "--vllm-version", "0.8", "--vllm-use-v1", "0", "--get",
                  "vllm_enable_prefix_caching");
    EXPECT_STDOUT("true\n", P2, "--vllm-version", "0.8", "--vllm-use-v1", "0",
                  "--enable-prefix-caching", "--get", "vllm_enable_prefix_caching");
    EXPECT_STDOUT("true\n", P2, "--vllm-version", "0.8", "--get", "vllm_enable_prefix_caching");
}

/* 3: a log that states no KV figure (its "Available KV cache memory" lines dropped), read
 * without a GPU: the rows that need memory have no kvcalc figure, and kv_cache_tokens is
 * null - they were the lesson's 48 GiB GPU's (1,096,640 tokens, "-58.5%"). */
static void rt3_no_kv_figure_no_default_gpu(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-noav-XXXXXX"; /* its KV-memory lines dropped */
    write_variant(path, KVCALC_SOURCE_DIR "/tests/logs/vllm-d14-tp4.log",
                  "Available KV cache memory", NULL);
    run_result r;
    RUN(&r, "--from-log", path, "--model", "gpt-oss-120b", "--format", "json");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"kv_cache_tokens\": null,"));
    run_free(&r);
    RUN(&r, "--from-log", path, "--model", "gpt-oss-120b");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "GPU KV cache size                2,640,144              -     "
                                  "         -  no figure logged that the cache follows from, and "
                                  "no GPU total: give --gpu or --gpu-mem-gib\n"));
    assert_null(strstr(r.out, "1,096,640"));
    run_free(&r);
    remove(path);
}

/* 4: the engines' own keys agree with the text when they do not start. A cache of the size
 * given that outgrows the GPU: vLLM reports its size and concurrency (get_kv_cache_configs)
 * and then runs out of memory allocating it, so the text prints those lines too; weights
 * that outgrow it never load: no cache is reported (null). Short of host memory vLLM's and
 * SGLang's start-ups fail: vllm_fits false, sglang_max_total_num_tokens 0. */
static void rt4_engine_keys_agree_with_refusals(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--kv-cache-memory-gib",
        "1000");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Available KV cache memory: 1000.00 GiB\nGPU KV cache size: "
                                  "7,281,776 tokens\nMaximum concurrency for 4,096 tokens per "
                                  "request: 1777.78x\ntorch.OutOfMemoryError: CUDA out of "
                                  "memory.\n"));
    run_free(&r);
#define W4 "--engine", "vllm", "--model", "gemma-3-27b-it", "--max-model-len", "4096", \
           "--kv-cache-memory-gib", "109.86", "--gpu-mem-gib", "10"
    EXPECT_STDOUT("null\n", W4, "--get", "kv_cache_tokens");
    EXPECT_STDOUT("null\n", W4, "--get", "vllm_max_concurrency");
    EXPECT_STDOUT("false\n", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                  "--cpu-offload-gb", "10", "--host-mem-gib", "1", "--get", "vllm_fits");
    EXPECT_STDOUT("true\n", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                  "--cpu-offload-gb", "10", "--host-mem-gib", "11", "--get", "vllm_fits");
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--cpu-offload-gb", "10",
        "--host-mem-gib", "1");
    assert_null(strstr(r.out, "ValueError")); /* the GPU's lines are what they would be */
    assert_non_null(strstr(r.out, "(vLLM stops before the lines below: the host holds less "));
    run_free(&r);
    EXPECT_STDOUT("0\n", "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                  "--cpu-offload-gb", "10", "--host-mem-gib", "1", "--get",
                  "sglang_max_total_num_tokens");
    /* no context starts it: the fits say 0 (a third red team found 728,176 and 4,096) */
    EXPECT_STDOUT("0\n", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                  "--kv-cache-memory-gib", "100", "--get", "longest_context_fit");
    EXPECT_STDOUT("0\n", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                  "--kv-cache-memory-gib", "100", "--get", "vllm_max_model_len_fit");
    EXPECT_STDOUT("0\n", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                  "--cpu-offload-gb", "10", "--host-mem-gib", "4", "--get",
                  "vllm_max_model_len_fit");
}

/* 10: bytes from a log that are not UTF-8, or C1 controls (0x9b is a CSI to some terminals),
 * become '?' on the terminal and U+FFFD (or a \u escape) in JSON, which must be UTF-8. */
static void rt10_log_bytes_not_utf8(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-c1-XXXXXX"; /* "/\x9boot/...": a raw C1 byte, not UTF-8 */
    write_variant(path, KVCALC_SOURCE_DIR "/tests/logs/ollama-o10.log",
                  "/root/.ollama/models/blobs/sha256-6a07",
                  "/\x9boot/.ollama/models/blobs/sha256-6a07");
    run_result r;
    RUN(&r, "--from-log", path, "--model", "llama-3.1-8b-instruct");
    assert_int_equal(r.status, 0);
    assert_null(memchr(r.out, 0x9b, r.out_len));
    run_free(&r);
    RUN(&r, "--from-log", path, "--model", "llama-3.1-8b-instruct", "--format", "json");
    assert_int_equal(r.status, 0);
    assert_null(memchr(r.out, 0x9b, r.out_len));
    assert_non_null(strstr(r.out, "/\\ufffdoot/.ollama/models/blobs/sha256-6a07"));
    run_free(&r);
    remove(path);
    /* a well-formed C1 (U+009B, UTF-8 c2 9b) is escaped, other UTF-8 kept */
    RUN(&r, "--model", "x\xc2\x9by\xe2\x82\xac", "--format", "json");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "'x?y\xe2\x82\xac'"));
    run_free(&r);
}

/* 17 (red team 4): with an fp8 KV cache, the lesson's lines kept Qwen3.5-9B's convolution
 * state in 1 B where every engine keeps it in the model's bf16 (vLLM mamba_cache_dtype
 * "auto", SGLang's bfloat16 conv state): 50,921,472 B a request beside SGLang's 51,511,296 on
 * one screen. Now both are 24 x (24,576 x 2 + 524,288 x 4) = 51,511,296 B, and at 32,000
 * tokens the request is 32,000 x 16,384 (8 full layers of 4 KV heads of 256 at 1 B, x 2)
 * + 51,511,296 = 575,799,296 B. */
static void rt17_state_in_the_model_dtype(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "sglang", "--model", "qwen3.5-9b", "--gpu", "h100", "--dtype", "fp8");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  + 24 state layers:  24 x (24,576 x 2 B conv + 524,288 x 4 B "
                                  "float32 SSM)  =  51,511,296 B per request"));
    assert_non_null(strstr(r.out, "  state   : 51,511,296 B per request"));
    run_free(&r);
    EXPECT_STDOUT("575799296\n", "--engine", "vllm", "--model", "qwen3.5-9b", "--gpu", "h100",
                  "--dtype", "fp8", "--context", "32000", "--get", "kv_bytes_per_request");
}

/* 18 (red team 4): SGLang on a model with state layers runs at most max_mamba_cache_size
 * // 3 requests (init_memory); 2 slots let none run, yet a cap of 0 read as "no cap" gave
 * 358 requests, above the lesson's ideal 347, beside "at most 0 running". And the reason
 * named the radix cache where --max-running-requests or speculative decoding's 48 set it. */
static void rt18_sglang_running_cap(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "sglang", "--model", "qwen3.5-9b", "--gpu", "h100",
        "--max-mamba-cache-size", "2");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Max concurrent requests @ 4,096 context:  ~0  "));
    run_free(&r);
    EXPECT_STDOUT("false\n", "--engine", "sglang", "--model", "qwen3.5-9b", "--gpu", "h100",
                  "--max-mamba-cache-size", "2", "--get", "fits");
    RUN(&r, "--engine", "sglang", "--model", "qwen3.5-9b", "--gpu", "h100",
        "--max-mamba-cache-size", "2", "--rate", "1", "--prompt-tokens", "100",
        "--output-tokens", "100");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "SGLang runs no request at once"));
    run_free(&r);
    RUN(&r, "--engine", "sglang", "--model", "qwen3.5-9b", "--gpu", "h100", "--context", "32k",
        "--max-running-requests", "10");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(at most 10 running: --max-running-requests)"));
    run_free(&r);
    RUN(&r, "--engine", "sglang", "--model", "qwen3.5-9b", "--gpu", "h100",
        "--speculative-num-draft-tokens", "4", "--sglang-version", "0.5.9");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(at most 48 running: 48 under speculative decoding)"));
    run_free(&r);
}

/* 19 (red team 4): at --tp 2 the state line printed LFM2-1.2B's whole state beside one GPU's
 * product ("10 x 4,096 x 2 B = 40,960 B"): now one GPU's factors, 10 x 2,048 x 2 B; Qwen3.5-
 * 27B at TP 4: 48 x (30,720 / 4 x 2 B + 786,432 / 4 x 4 B) = 48 x 801,792 = 38,486,016 B.
 * And a llama.cpp KV line of four sequences in one stream ("4/1 seqs") with no kv_unified
 * line is a unified cache: 8,192 cells, not 8,192 / 4 = 2,048 (-75%). */
static void rt19_per_gpu_state_and_unified_line(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "lfm2-1.2b", "--gpu", "h100", "--tp", "2");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  + 10 state layers:  10 x 2,048 x 2 B  =  40,960 B per request"));
    run_free(&r);
    RUN(&r, "--model", "qwen3.5-27b", "--gpu", "h100", "--context", "32k", "--tp", "4");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  + 48 state layers:  48 x (7,680 x 2 B conv + 196,608 x 4 B "
                                  "float32 SSM)  =  38,486,016 B per request"));
    run_free(&r);
    char path[] = "/tmp/kvcalc-unified-XXXXXX";
    write_temp(path, "llama_kv_cache: size = 1152.00 MiB (  8192 cells,  36 layers,  4/1 seqs), "
                     "K (f16):  576.00 MiB, V (f16):  576.00 MiB\n");
    RUN(&r, "--from-log", path, "--model", "qwen3-8b");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "cells                                8,192          8,192     "
                                  "        +0  from the logged settings: equal\n"));
    run_free(&r);
    remove(path);
}

/* 20 (red team 4): SGLang's HiCache leaves 10 GiB of the host free
 * (HICACHE_HOST_MEMORY_RESERVE_BYTES): Qwen3-8B's 100.83 GiB pool on a 101 GiB host does not
 * start, though 100.83 < 101; and a host short of it printed SGLang's GPU error ("increase
 * --mem-fraction-static"), not its host one. 101 GiB = 108.45 GB, less 10 GiB = 10.74 GB:
 * 97.71 GB free for a pool of 108.26 GB. */
static void rt20_hicache_host_reserve(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
        "--enable-hierarchical-cache", "--host-mem-gib", "101");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "ValueError: Not enough host memory available. Requesting "
                                  "108.26 GB but only have 97.71 GB free."));
    assert_null(strstr(r.out, "increase --mem-fraction-static"));
    run_free(&r);
    EXPECT_STDOUT("true\n", "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                  "--enable-hierarchical-cache", "--host-mem-gib", "101", "--get", "host_short");
    EXPECT_STDOUT("10737418240\n", "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                  "--enable-hierarchical-cache", "--get", "host_reserve_bytes");
    EXPECT_STDOUT("false\n", "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                  "--enable-hierarchical-cache", "--host-mem-gib", "111", "--get", "host_short");
}

/* 21 (red team 4): --from-metrics took two scrapes across a restart (a counter down from 100
 * to 10: "-1.500/s" finished), a usage gauge of 7.5 (750%), and a second scrape stamped
 * before the first ("no timestamps"). Each is refused, naming what is wrong. */
static void rt21_impossible_scrapes_refused(void **state)
{
    (void)state;
    static const struct {
        const char *find, *with, *want;
    } cases[] = {
        {"finished_reason=\"stop\"} 130", "finished_reason=\"stop\"} 10",
         "the counter of requests finished went down between the scrapes (100 to 10): the "
         "server restarted between them"},
        {"kv_cache_usage_perc{engine=\"0\"} 0.25", "kv_cache_usage_perc{engine=\"0\"} 7.5",
         "the first scrape: the KV cache usage gauge is 7.5: expected a fraction from 0 to 1"},
        {" 1060000\n", " 940000\n",
         "the second scrape's timestamp (940.000 s) is not after the first's (1000.000 s)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[] = "/tmp/kvcalc-scrapes-XXXXXX";
        write_variant(path, KVCALC_SOURCE_DIR "/tests/fixtures/two-scrapes-handmade.prom",
                      cases[i].find, cases[i].with);
        run_result r;
        RUN(&r, "--from-metrics", path, "--model", "qwen3-8b", "--gpu", "h100");
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        if (!strstr(r.err, cases[i].want))
            fail_msg("case %zu: %s", i, r.err);
        run_free(&r);
        remove(path);
    }
}

/* 22 (red team 4): a trace with its own arrival times beside a GPU of known bandwidth was
 * not replayed (and the hint asked for the --gpu given): Azure's conversation trace, 19,366
 * requests over its span, replays at (19,366 - 1) / span = 5.530 req/s, the roofline timing
 * its steps; without a GPU the hint names what replays it. */
static void rt22_trace_replays_on_the_roofline(void **state)
{
    (void)state;
    const char *trace = KVCALC_SOURCE_DIR "/tests/fixtures/traces/AzureLLMInferenceTrace_conv.csv";
    run_result r;
    RUN(&r, "--model", "qwen3-8b", "--gpu", "h100", "--engine", "vllm", "--trace", trace);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "19,366 requests simulated"));
    assert_non_null(strstr(r.out, "  at 5.530 req/s (the trace's times"));
    run_free(&r);
    RUN(&r, "--model", "qwen3-8b", "--engine", "vllm", "--trace", trace);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(give --tpot-ms, or a --gpu whose memory bandwidth kvcalc "
                                  "knows, to replay the trace at its own times"));
    run_free(&r);
}

/* 23 (red team 4): the run at the rate asked for had no bound - 100,000 requests of 100,000
 * output tokens (about 10^10 request-steps) ran for minutes with nothing printed. Past 5 x
 * 10^8 it is refused at once, naming --requests. */
static void rt23_run_is_bounded(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--rate", "100",
        "--prompt-tokens", "1000", "--output-tokens", "100000", "--context", "256k", "--requests",
        "100000");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "kvcalc: --requests: the run is about 1e+10 request-steps"));
    run_free(&r);
}

/* 24 (red team 4): flags over a log's settings. --max-model-len 100000 over a 200,000-token
 * log kept the KV figure and blamed the difference on "another rank's figure, or a setting
 * not given"; it is the flag's, and the screen says so. --no-enable-prefix-caching on a
 * hybrid log was refused for the log's mamba mode 'align', which follows from prefix
 * caching ("default when prefix caching is enabled"): the flag drops it. */
static void rt24_flags_over_the_log(void **state)
{
    (void)state;
    const char *log = KVCALC_SOURCE_DIR "/tests/logs/vllm-h04-qwen3.6-27b-fp8-mtp-tp4.log";
    run_result r;
    RUN(&r, "--from-log", log, "--model", "qwen3.6-27b", "--max-model-len", "100000");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "What if: flags change settings the log states"));
    assert_non_null(strstr(r.out, "what if: the logged KV figure at the settings given: -5.36%"));
    assert_null(strstr(r.out, "another rank's figure"));
    run_free(&r);
    RUN(&r, "--from-log", log, "--model", "qwen3.6-27b", "--no-enable-prefix-caching");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "GPU KV cache size"));
    run_free(&r);
}

/* 25 (red team 4): --from-metrics on a scrape that states no pool, without a GPU, said
 * "kvcalc's KV cache needs the GPU" beside a usage of 0.5% and a limit of 64 req/s - both of
 * the lesson's 48 GiB GPU. Now its kvcalc column is blank. */
static void rt25_metrics_without_a_pool_or_gpu(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--from-metrics", KVCALC_SOURCE_DIR "/tests/fixtures/two-scrapes-handmade.prom",
        "--model", "qwen3-8b");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  KV cache in use                       50.0%                -\n"));
    assert_null(strstr(r.out, "grows without bound"));
    run_free(&r);
}

/* 26 (red team 4): a logged token count of 10^20 was read as a double and shown as
 * "100,000,000,000,000,016,384.00": a count beyond 2^53 is no engine's, and not read. */
static void rt26_absurd_logged_count(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-bigcount-XXXXXX";
    write_temp(path, "INFO 03-15 [x.py:1] GPU KV cache size: 99999999999999999999 tokens\n");
    run_result r;
    RUN(&r, "--from-log", path, "--model", "qwen3-8b");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_null(strstr(r.err, "16,384"));
    run_free(&r);
    remove(path);
}

/* 27 (log hunt): vLLM 0.11+'s ASCII banner names the release ("█  version 0.20.0"): a log
 * without its engine-config line keeps it (H13 without that line: 0.20.0's 75,456 tokens,
 * where no release read gave a refusal or another era's line). */
static void rt27_banner_names_the_release(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-banner-XXXXXX";
    write_variant(path, KVCALC_SOURCE_DIR "/tests/logs/vllm-h13-qwen3.6-35b-a3b-nvfp4-0.20.0.log",
                  "Initializing a V1 LLM engine", NULL);
    EXPECT_STDOUT("75456\n", "--from-log", path, "--model", "qwen3.5-35b-a3b", "--get",
                  "kv_cache_tokens");
    EXPECT_STDOUT("0.20.0\n", "--from-log", path, "--model", "qwen3.5-35b-a3b", "--get",
                  "engine_version");
    remove(path);
}

/* 16 (red team 4): a log whose KV lines are no figure the first run starts from - SGLang's
 * K and V sizes without its memory readings, vLLM's "# cuda blocks: 0" - was compared with
 * the figures of the lesson's 48 GiB GPU under "from the logged KV figure": 0 tokens and
 * -100% for Qwen3-235B on 4 GPUs, 12,046 blocks against a logged 0. Without a GPU those rows
 * are blank and say why; with one they are the end-to-end run's, and say so. */
static void rt16_no_figure_no_default_gpu(void **state)
{
    (void)state;
    const char *log = KVCALC_SOURCE_DIR "/tests/logs/sglang-s09-tp4.log";
    run_result r;
    RUN(&r, "--from-log", log);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "max_total_num_tokens               367,404              -     "
                                  "         -  no figure logged that the cache follows from, and "
                                  "no GPU total: give --gpu or --gpu-mem-gib\n"));
    assert_null(strstr(r.out, "-100%"));
    run_free(&r);
    RUN(&r, "--from-log", log, "--gpu", "h100");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "end to end (the log gives no figure the cache follows from): "));
    assert_null(strstr(r.out, "from the logged KV figure"));
    run_free(&r);
    EXPECT_STDOUT("null\n", "--from-log", log, "--get", "kv_cache_tokens");
    char path[] = "/tmp/kvcalc-blocks0-XXXXXX";
    write_temp(path, "INFO 03-15 [x.py:1] # cuda blocks: 0, # CPU blocks: 0\n");
    RUN(&r, "--from-log", path, "--model", "qwen3-8b");
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "12,046"));
    assert_non_null(strstr(r.out, "no figure logged that the cache follows from"));
    run_free(&r);
    remove(path);
    /* SGLang's state slots alone size no token pool (its readings do) */
    char slots[] = "/tmp/kvcalc-slots-XXXXXX";
    write_temp(slots, "[2026 TP0] Mamba Cache is allocated. max_mamba_cache_size: 8, conv_state "
                      "size: 0.00GB, ssm_state size: 0.10GB \n[2026 TP0] KV Cache is allocated. "
                      "#tokens: 1557504, K size: 2.23 GB, V size: 2.23 GB\n");
    RUN(&r, "--from-log", slots, "--model", "nemotron-3-nano-30b-a3b");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "max_total_num_tokens             1,557,504              -"));
    run_free(&r);
    remove(slots);
}

/* 15: a file without end is refused once past 2 GiB or 33,554,432 lines, by every reader
 * that shares the line reader (logs, traces, scrapes); it read on for ever. */
static void rt15_endless_input_is_bounded(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--from-log", "/dev/zero");
    expect_usage(&r, "kvcalc: --from-log /dev/zero: more than 2 GiB or 33,554,432 lines: kvcalc "
                     "reads at most that much of a file\n");
    run_free(&r);
    RUN(&r, "--trace", "/dev/zero", "--tpot-ms", "30");
    expect_usage(&r, "kvcalc: --trace /dev/zero: more than 2 GiB or 33,554,432 lines");
    run_free(&r);
    RUN(&r, "--from-metrics", "/dev/zero");
    expect_usage(&r, "kvcalc: --from-metrics /dev/zero: more than 2 GiB or 33,554,432 lines");
    run_free(&r);
}

/* 5: a model that does not fit Ollama's GPU: llama-server's fit moves layers to the CPU (how
 * many kvcalc does not model), so no roofline step is estimated from all of the weights on
 * one GPU (it was, 159 GB on 80); an era whose estimate splits no weights refuses the same
 * way (it said "no weights, no cache"). Given the step, the workload is answered - and shown
 * in the text, which left it out when the lesson's arithmetic found no room. */
static void rt5_ollama_split_unknown(void **state)
{
    (void)state;
#define O5 "--engine", "ollama", "--model", "qwen3-next-80b-a3b", "--gpu", "h100", \
           "--prompt-tokens", "1000", "--output-tokens", "100", "--rate", "1"
    run_result r;
    RUN(&r, O5);
    expect_usage(&r, "kvcalc: --rate: simulating a rate needs --tpot-ms (the time of one engine "
                     "step, ms): kvcalc cannot estimate it, as kvcalc does not know how Ollama "
                     "splits the model between the GPU and host memory here");
    run_free(&r);
    RUN(&r, O5, "--ollama-version", "0.12.3");
    expect_usage(&r, "kvcalc: --rate: simulating a rate needs --tpot-ms");
    run_free(&r);
    /* from 0.30 Ollama's estimator's figures are not there: null, not 0 (a third red team) */
    EXPECT_STDOUT("null\n", "--engine", "ollama", "--model", "qwen3-8b", "--get",
                  "ollama_weights_repeating_bytes");
    RUN(&r, O5, "--tpot-ms", "50");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "that is the answer.\n\nUnder your workload (Ollama's "
                                  "scheduler, 1,000 requests simulated):\n"));
    run_free(&r);
}

/* 11: -ot's patterns as llama.cpp's std::regex (ECMAScript) reads them: "[[:digit:]]" moved
 * nothing here and everything there, "[]a]" moved 336 tensors here and none there - both are
 * refused now, not read another way; a GGUF without a config is told what -ot needs. */
static void rt11_ot_patterns_read_as_llamacpp(void **state)
{
    (void)state;
    static const char *const refused[] = {"[[:digit:]]=CPU", "[[:alpha:]]=CPU", "[]a]=CPU",
                                          "[^]x=CPU", "blk[[.-.]]=CPU"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        run_result r;
        RUN(&r, "--engine", "llamacpp", "--model", "qwen3-30b-a3b", "-ot", refused[i]);
        expect_usage(&r, "kvcalc: -ot: '");
        assert_non_null(strstr(r.err, "' is not a pattern kvcalc reads"));
        run_free(&r);
    }
    EXPECT_STDOUT("100\n", "--engine", "llamacpp", "--model", "qwen3-30b-a3b", "-ot",
                  "blk\\.[0-9]\\.=CPU", "--get", "llamacpp_override_tensors"); /* 10 blocks x 10 */
    run_result r;
    RUN(&r, "--engine", "llamacpp", "--model",
        KVCALC_BINARY_DIR "/engines/gguf/L01.gguf", "-ot", "ffn=CPU");
    expect_usage(&r, "kvcalc: -ot / --n-cpu-moe: kvcalc splits a block into its tensors from the "
                     "architecture of a config.json or a preset");
    run_free(&r);
}

/* 12: refusals name the flag as typed and say what is accepted: -ot's pairs (a comma splits
 * them, as llama.cpp's parse_tensor_buffer_overrides does, so "e{1,2}xps" is two), --cpu-moe
 * before its build (pointing at -ot, which kvcalc reads from b5028), a distribution's bounds,
 * and Ollama 0.30+'s quantized cache without flash attention (it was "the engine refuses an
 * input"). */
static void rt12_refusals_name_the_flag(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-30b-a3b", "-ot", "e{1,2}xps=CPU");
    expect_usage(&r, "kvcalc: -ot: 'e{1': each pair is <tensor name pattern>=<buffer type>, "
                     "pairs apart at ','");
    run_free(&r);
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-30b-a3b", "--cpu-moe", "--llamacpp-build",
        "6000");
    expect_usage(&r, "kvcalc: --cpu-moe: --cpu-moe exists from build 6051 (--llamacpp-build); "
                     "from build 5028 -ot '\\.ffn_.*_exps\\.=CPU' keeps the experts on the CPU");
    run_free(&r);
    RUN(&r, "--prompt-tokens", "median=1,p99=1e300", "--output-tokens", "10");
    expect_usage(&r, "kvcalc: --prompt-tokens: p99 must be a number from 1 to 10^15, got "
                     "'1e300'");
    run_free(&r);
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-8b", "--gpu", "h100", "-np", "300");
    expect_usage(&r, "kvcalc: -np: llama.cpp refuses it: \"n_seq_max must be <= 256\"");
    run_free(&r);
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-8b", "--gpu", "h100", "-np", "100",
        "--llamacpp-build", "6000");
    expect_usage(&r, "kvcalc: -np: llama.cpp refuses it: \"n_seq_max must be <= 64\"");
    run_free(&r);
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-8b", "--gpu", "h100", "-c", "2000000",
        "--prompt-tokens", "200", "--output-tokens", "20", "--tpot-ms", "20", "--rate", "1");
    expect_usage(&r, "kvcalc: --engine llama.cpp: llama.cpp would not start with these "
                     "settings: it needs 291.13 GiB of the GPU's 79.65 GiB (a smaller --ctx-size "
                     "or --parallel, or fewer --n-gpu-layers)");
    run_free(&r);
    RUN(&r, "--engine", "ollama", "--model", "qwen3-8b", "--kv-cache-type", "q8_0",
        "--flash-attention", "0");
    expect_usage(&r, "kvcalc: --kv-cache-type: from 0.30 Ollama passes llama-server --flash-attn "
                     "off with this cache type, and llama.cpp refuses a quantized V cache");
    run_free(&r);
}

/* 13: inputs that were silently ignored or accepted are refused: a first token quicker than
 * one step (--ttft-ms 1 beside --tpot-ms 30 was dropped: prefill free), a step of 1e-300 ms
 * (rates of 300 digits), --mtp beside another method (dropped), and a JSON string holding
 * \u0000 (read up to the NUL: "qwen3-0.6b\u0000garbage" as Qwen3-0.6B). */
static void rt13_ignored_inputs_refused(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--prompt-tokens", "100", "--output-tokens", "10", "--rate", "1", "--tpot-ms", "30",
        "--ttft-ms", "1");
    expect_usage(&r, "kvcalc: --ttft-ms: a first token takes at least one step (--tpot-ms 30): "
                     "give 30 or more, or 0 (the prefill not timed)\n");
    run_free(&r);
    /* the same against the roofline's estimated step (4.604 ms for Qwen3-8B on an H100) */
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-8b", "--gpu", "h100", "--prompt-tokens",
        "2000", "--output-tokens", "200", "--rate", "1", "--ttft-ms", "1");
    expect_usage(&r, "kvcalc: --ttft-ms: a first token takes at least one step (the roofline's "
                     "4.604 ms here): give more, or 0 (the prefill not timed)\n");
    run_free(&r);
    RUN(&r, "--prompt-tokens", "100", "--output-tokens", "10", "--rate", "1", "--tpot-ms",
        "1e-300");
    expect_usage(&r, "kvcalc: --tpot-ms: expected a finite number >= 0.001 and <= 10000000");
    run_free(&r);
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--mtp", "--speculative-method", "ngram");
    expect_usage(&r, "kvcalc: --mtp: --mtp is --speculative-method mtp: it does not combine with "
                     "another method; drop one\n");
    run_free(&r);
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--speculative-config",
        "{\"model\":\"qwen3-0.6b\\u0000garbage\",\"num_speculative_tokens\":3}");
    expect_usage(&r, "kvcalc: --speculative-config.model: a value holds \\u0000 (NUL), which no "
                     "flag takes\n");
    run_free(&r);
    /* a third red team: a token count alone (vLLM raises), a key or an architecture with a
     * NUL */
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--speculative-config",
        "{\"num_speculative_tokens\":2}");
    expect_usage(&r, "kvcalc: --speculative-config.num_speculative_tokens: \"num_speculative_"
                     "tokens was provided but without speculative model.\" (give method or "
                     "model)\n");
    run_free(&r);
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--speculative-config",
        "{\"bogus\\u0000\":2}");
    expect_usage(&r, "kvcalc: --speculative-config: a key holds \\u0000 (NUL), which no key has\n");
    run_free(&r);
    char arch[] = "/tmp/kvcalc-nul-XXXXXX";
    write_temp(arch, "{\"architectures\":[\"LlamaForCausalLM\\u0000evil\"],"
                     "\"num_hidden_layers\":2,\"num_attention_heads\":8,"
                     "\"num_key_value_heads\":2,\"hidden_size\":1024}");
    RUN(&r, "--config", arch);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, ": architectures: holds \\u0000 (NUL), which kvcalc cannot "
                                  "read\n"));
    run_free(&r);
    remove(arch);
    char path[] = "/tmp/kvcalc-nul-XXXXXX";
    write_temp(path, "{\"model_type\":\"llama\\u0000x\",\"num_hidden_layers\":2,"
                     "\"num_attention_heads\":8,\"num_key_value_heads\":2,\"hidden_size\":1024}");
    RUN(&r, "--config", path);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, ":1:15: model_type: holds \\u0000 (NUL), which kvcalc cannot "
                                  "read\n"));
    run_free(&r);
    remove(path);
}

/* 12 too: --speculative-config's refusals name its keys, not flags that were not typed (it
 * said "drop --draft-model", "--num-speculative-tokens: ...", "--mtp: ..."). */
static void rt12_json_keys_named(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--speculative-config",
        "{\"method\":\"ngram\",\"model\":\"qwen3-0.6b\",\"num_speculative_tokens\":3}");
    expect_usage(&r, "kvcalc: --speculative-config.method: method ngram / suffix takes no draft "
                     "model; drop --speculative-config.model\n");
    run_free(&r);
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--speculative-config",
        "{\"method\":\"mtp\"}");
    expect_usage(&r, "kvcalc: --speculative-config.num_speculative_tokens: MTP drafts at least "
                     "one token: give --speculative-config.num_speculative_tokens N\n");
    run_free(&r);
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--speculative-config",
        "{\"method\":\"mtp\",\"num_speculative_tokens\":1}");
    expect_usage(&r, "kvcalc: --speculative-config.method: the model has no MTP layers");
    run_free(&r);
    /* typed as flags, named as typed */
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--speculative-method", "mtp");
    expect_usage(&r, "kvcalc: --num-speculative-tokens: MTP drafts at least one token: give "
                     "--num-speculative-tokens N\n");
    run_free(&r);
}

/* 9: an engine's own cache types (llama.cpp's -ctk / -ctv, Ollama's OLLAMA_KV_CACHE_TYPE)
 * beside the lesson's lines at --dtype: the Model line says which is which (it showed "KV
 * dtype fp16 (2 B)" and 576 MiB a request beside "K (q8_0): 1530.00 MiB" unexplained). */
static void rt9_engine_cache_types_said(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "4090", "-ctk", "q8_0",
        "-ctv", "q8_0", "-fa", "on");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "KV dtype fp16 (2 B)\n             (the lines below are the "
                                  "lesson's at fp16; llama.cpp caches K q8_0 (1.0625 B), V q8_0 "
                                  "(1.0625 B): its section has those bytes)\n"));
    run_free(&r);
    RUN(&r, "--engine", "ollama", "--model", "qwen3-8b", "--gpu", "4090", "--kv-cache-type",
        "q4_0", "--flash-attention", "1");
    assert_non_null(strstr(r.out, "Ollama caches K and V in q4_0 (0.5625 B)"));
    run_free(&r);
    RUN(&r, "--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "4090"); /* f16: the same */
    assert_null(strstr(r.out, "the lines below are the lesson's"));
    run_free(&r);
}

/* 9 too: the levers' free KV is the engine's own budget beside its own concurrency
 * (llama.cpp with --cpu-moe showed the lesson's -34.88 GiB beside 4 requests). */
static void rt9_levers_engine_budget(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "llama.cpp", "--model", "qwen3-30b-a3b", "--gpu", "4090", "--cpu-moe",
        "--levers");
    assert_int_equal(r.status, 0);
    const char *row = strstr(r.out, "\n  as given ");
    assert_non_null(row);
    assert_null(strstr(row, "-34.88 GiB"));
    double avail = run_get("available_kv_bytes",
                           (const char *const[]){"--engine", "llama.cpp", "--model",
                                                 "qwen3-30b-a3b", "--gpu", "4090", "--cpu-moe",
                                                 NULL});
    char want[64];
    snprintf(want, sizeof want, "%.2f GiB", avail / (1024.0 * 1024 * 1024));
    const char *end = strchr(row + 1, '\n');
    assert_non_null(end);
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)(end - row), row);
    if (!strstr(line, want))
        fail_msg("no '%s' in '%s'", want, line);
    run_free(&r);
}

/* 7 (a third red team): the prompt reuse's flags on builds without them are refused, not read
 * by nothing (--cache-ram on b5000 was taken and ignored). */
static void rt7_prompt_flags_by_build(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-8b", "--llamacpp-build", "5000",
        "--cache-ram", "100");
    expect_usage(&r, "kvcalc: --cache-ram: --cache-ram exists from build 6723 (--llamacpp-build)\n");
    run_free(&r);
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-8b", "--llamacpp-build", "3000", "-sps",
        "0.3");
    expect_usage(&r, "kvcalc: -sps: -sps exists from build 3109 (--llamacpp-build)\n");
    run_free(&r);
    RUN(&r, "--engine", "llamacpp", "--model", "qwen3-8b", "--llamacpp-build", "8000",
        "--no-cache-idle-slots");
    expect_usage(&r, "kvcalc: --no-cache-idle-slots: --cache-idle-slots exists from build 8852");
    run_free(&r);
    EXPECT_STDOUT("0\n", "--engine", "llamacpp", "--model", "qwen3-8b", "--llamacpp-build", "6722",
                  "--get", "llamacpp_prompt_cache_max_bytes");
    EXPECT_STDOUT("8589934592\n", "--engine", "llamacpp", "--model", "qwen3-8b",
                  "--llamacpp-build", "6723", "--get", "llamacpp_prompt_cache_max_bytes");
}

/* 12 (a third red team): a shared prefix longer than every prompt is refused naming it (it
 * was read as a whole-prompt prefix), and a one-request trace says why it has no span. */
static void rt12_prefix_and_trace_said(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--prompt-tokens", "1000",
        "--output-tokens", "10", "--tpot-ms", "10", "--rate", "1", "--shared-prefix-tokens",
        "1600");
    expect_usage(&r, "kvcalc: --shared-prefix-tokens: longer than every prompt (the longest "
                     "1000 tokens): every prompt begins with the prefix\n");
    run_free(&r);
    char path[] = "/tmp/kvcalc-trace-XXXXXX";
    write_temp(path, "{\"prompt_tokens\": 100, \"output_tokens\": 10, \"arrival_s\": 0}\n");
    RUN(&r, "--trace", path, "--tpot-ms", "10");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, ": one request: its arrival times span no time; give "
                                  "--rate\n"));
    run_free(&r);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(item01_chosen_layout_answers),
        cmocka_unit_test(item02_engine_figure_first),
        cmocka_unit_test(item03_per_gpu_and_precision),
        cmocka_unit_test(item04_term_signs_follow_the_difference),
        cmocka_unit_test(item05_defaults_by_gpu_size_said),
        cmocka_unit_test(item14_model_paths),
        cmocka_unit_test(item14_served_name_and_command_line),
        cmocka_unit_test(item15_sglang_launch_line),
        cmocka_unit_test(item16_ollama_print_info_geometry),
        cmocka_unit_test(item17_inputs_and_messages),
        cmocka_unit_test(item18_nothing_dropped),
        cmocka_unit_test(item19_gpus),
        cmocka_unit_test(item21_columns_and_totals),
        cmocka_unit_test(item21_sweep_progress),
        cmocka_unit_test(item06_no_fits_beside_no_room),
        cmocka_unit_test(item06_room_where_the_engine_offloads),
        cmocka_unit_test(item07_sglang_readings_in_order),
        cmocka_unit_test(item09_unknown_quant_method_refused),
        cmocka_unit_test(item10_json_escapes_control_bytes),
        cmocka_unit_test(item11_prefix_longer_than_context),
        cmocka_unit_test(item12_kv_heads_divide_heads),
        cmocka_unit_test(rt2_prefix_caching_off_shares_nothing),
        cmocka_unit_test(rt3_no_kv_figure_no_default_gpu),
        cmocka_unit_test(rt4_engine_keys_agree_with_refusals),
        cmocka_unit_test(rt5_ollama_split_unknown),
        cmocka_unit_test(rt7_prompt_flags_by_build),
        cmocka_unit_test(rt9_engine_cache_types_said),
        cmocka_unit_test(rt9_levers_engine_budget),
        cmocka_unit_test(rt10_log_bytes_not_utf8),
        cmocka_unit_test(rt11_ot_patterns_read_as_llamacpp),
        cmocka_unit_test(rt12_refusals_name_the_flag),
        cmocka_unit_test(rt12_json_keys_named),
        cmocka_unit_test(rt12_prefix_and_trace_said),
        cmocka_unit_test(rt13_ignored_inputs_refused),
        cmocka_unit_test(rt15_endless_input_is_bounded),
        cmocka_unit_test(rt16_no_figure_no_default_gpu),
        cmocka_unit_test(rt17_state_in_the_model_dtype),
        cmocka_unit_test(rt18_sglang_running_cap),
        cmocka_unit_test(rt19_per_gpu_state_and_unified_line),
        cmocka_unit_test(rt20_hicache_host_reserve),
        cmocka_unit_test(rt21_impossible_scrapes_refused),
        cmocka_unit_test(rt22_trace_replays_on_the_roofline),
        cmocka_unit_test(rt23_run_is_bounded),
        cmocka_unit_test(rt24_flags_over_the_log),
        cmocka_unit_test(rt25_metrics_without_a_pool_or_gpu),
        cmocka_unit_test(rt26_absurd_logged_count),
        cmocka_unit_test(rt27_banner_names_the_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
