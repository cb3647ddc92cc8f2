/*
 * test_trtllm.c - --engine trtllm against the two worked examples of real start-up logs
 * (docs/trtllm.md, "Checked against real logs"; ground-truth rows T01 and T02), and the
 * arithmetic around them worked by hand in the comments.
 *
 * TensorRT-LLM logs "available: F GiB" rounded to %0.2f: the true value lies within
 * F +- 0.005 GiB, so a log is reproduced when its block count lies between kvcalc's counts
 * at the two ends of that interval.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KVCALC_ENGINES
#include "kvcalc.h"
#include "run.h"

/* T01's geometry: 32 x 32 x 128 x 2 x 1 B (fp8) = 262,144 B per token, 64 per block */
#define T01 "--engine", "trtllm", "--layers", "32", "--kv-heads", "32", "--head-dim", "128", \
            "--kv-cache-dtype", "fp8", "--tokens-per-block", "64", "--free-gpu-memory-fraction", "0.9"
/* T02: Llama-3.1-8B, fp8 cache: 2 x 32 x 8 x 128 x 1 B = 65,536 B per token, 32 per block */
#define T02 "--engine", "trtllm", "--model", "llama-3.1-8b-instruct", "--kv-cache-dtype", "fp8", \
            "--tokens-per-block", "32", "--free-gpu-memory-fraction", "0.9"

static long long get_int(const char *const *args)
{
    run_result r;
    run_kvcalc(args, &r);
    assert_int_equal(r.status, 0);
    long long v = strtoll(r.out, NULL, 10);
    run_free(&r);
    return v;
}
#define GET(...) get_int((const char *const[]){__VA_ARGS__, NULL})

static void expect_in_text(const char *const *args, const char *want)
{
    run_result r;
    run_kvcalc(args, &r);
    assert_int_equal(r.status, 0);
    if (!strstr(r.out, want))
        fail_msg("missing line: %s\n--- output ---\n%s", want, r.out);
    run_free(&r);
}
#define EXPECT_LINE(want, ...) expect_in_text((const char *const[]){__VA_ARGS__, NULL}, want)

/* T01 (the TensorRT-LLM memory FAQ): available 70.48 GiB; 70.48 x 0.9 x 2^30 / 262,144 =
 * 259,817 tokens -> ceil(/64) = 4,060 blocks = 259,840 tokens; 259,840 x 262,144 B =
 * 63.4375 GiB -> "63.44". At 70.475 it is 259,799 tokens and at 70.485 259,835: 4,060 both. */
static void t01_memory_faq(void **state)
{
    (void)state;
    EXPECT_LINE("Number of blocks in KV cache primary pool: 4060\n", T01, "--free-mem-gib", "70.48");
    EXPECT_LINE("Number of tokens per block: 64.\n", T01, "--free-mem-gib", "70.48");
    EXPECT_LINE("[MemUsageChange] Allocated 63.44 GiB for max tokens in paged KV cache (259840).\n",
                T01, "--free-mem-gib", "70.48");
    EXPECT_STDOUT("259840\n", T01, "--free-mem-gib", "70.48", "--get", "kv_cache_tokens");
    EXPECT_STDOUT("68115496960\n", T01, "--free-mem-gib", "70.48", "--get", "kv_cache_bytes");
    assert_int_equal(GET(T01, "--free-mem-gib", "70.475", "--get", "trtllm_blocks"), 4060);
    assert_int_equal(GET(T01, "--free-mem-gib", "70.485", "--get", "trtllm_blocks"), 4060);
}

/* The secondary (host) pool, KVCacheManager::calculateMaxNumBlocks: int32(host_cache_size
 * // bytes a token) // tokens per block. T01's log prints 0 for the default (none). T01's
 * 262,144 B a token at --host-cache-size 10^10: 38,146 tokens // 64 = 596 blocks = 38,144
 * tokens x 262,144 B = 9,999,220,736 B of pinned host memory; at TP 2 a rank keeps 131,072 B
 * a token: 76,293 // 64 = 1,192 blocks, the same 9,999,220,736 B, on each of 2 ranks
 * (19,998,441,472 B of host_bytes); the primary pool unchanged. 2^31 tokens or more (5.7e14 B here) are refused, not wrapped. */
static void secondary_host_pool(void **state)
{
    (void)state;
    EXPECT_LINE("Number of blocks in KV cache primary pool: 4060\nNumber of blocks in KV cache "
                "secondary pool: 0, onboard blocks to primary memory before reuse: true\n",
                T01, "--free-mem-gib", "70.48");
    EXPECT_LINE("Number of blocks in KV cache secondary pool: 596, onboard blocks to primary "
                "memory before reuse: true\n",
                T01, "--free-mem-gib", "70.48", "--host-cache-size", "1e10");
    assert_int_equal(GET(T01, "--free-mem-gib", "70.48", "--host-cache-size", "1e10", "--get",
                         "trtllm_blocks"), 4060);
    assert_int_equal(GET(T01, "--free-mem-gib", "70.48", "--host-cache-size", "1e10", "--get",
                         "trtllm_host_cache_bytes"), 9999220736LL);
    assert_int_equal(GET(T01, "--free-mem-gib", "70.48", "--host-cache-size", "1e10", "--tp", "2",
                         "--get", "host_bytes"), 19998441472LL);
    assert_int_equal(GET(T01, "--free-mem-gib", "70.48", "--host-cache-size", "1e10", "--tp", "2",
                         "--get", "trtllm_secondary_blocks"), 1192);
    run_result r;
    run_kvcalc((const char *const[]){T01, "--free-mem-gib", "70.48", "--host-cache-size", "6e14",
                                     NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "2^31 - 1 tokens"));
    run_free(&r);
}

/* T02 (TensorRT-LLM 0.19.0, RTX 5090): logged 8,219 blocks, 263,008 tokens, 16.05 GiB at
 * "available: 17.83". 17.825 x 0.9 x 2^30 / 65,536 = 262,840 tokens -> 8,214 blocks;
 * 17.83 -> 262,914 -> 8,217; 17.835 -> 262,987 -> 8,219 = 263,008 tokens, x 65,536 B =
 * 16.05 GiB. The logged count lies in [8,214, 8,219]: at the top of the interval. */
static void t02_llama_fp8(void **state)
{
    (void)state;
    long long lo = GET(T02, "--free-mem-gib", "17.825", "--get", "trtllm_blocks");
    long long hi = GET(T02, "--free-mem-gib", "17.835", "--get", "trtllm_blocks");
    assert_int_equal(lo, 8214);
    assert_int_equal(hi, 8219);
    assert_int_equal(GET(T02, "--free-mem-gib", "17.83", "--get", "trtllm_blocks"), 8217);
    EXPECT_LINE("[MemUsageChange] Allocated 16.05 GiB for max tokens in paged KV cache (263008).\n",
                T02, "--free-mem-gib", "17.835");
    EXPECT_STDOUT("65536\n", T02, "--free-mem-gib", "17.835", "--get", "trtllm_per_token_bytes");
}

/* Requests hold whole blocks: T01's 4,060 blocks of 64 tokens; 4,096 tokens = 64 blocks ->
 * floor(4,060 / 64) = 63; 4,097 tokens = 65 blocks -> 62; 1,024 tokens = 16 blocks -> 253
 * (the table's row equals the single run). The longest context is all 259,840 tokens. */
static void requests_take_whole_blocks(void **state)
{
    (void)state;
    EXPECT_STDOUT("63\n", T01, "--free-mem-gib", "70.48", "--get", "max_concurrency");
    EXPECT_STDOUT("62\n", T01, "--free-mem-gib", "70.48", "--context", "4097", "--get",
                  "max_concurrency");
    EXPECT_STDOUT("253\n", T01, "--free-mem-gib", "70.48", "--context", "1024", "--get",
                  "max_concurrency");
    EXPECT_STDOUT("259840\n", T01, "--free-mem-gib", "70.48", "--get", "longest_context_fit");
    EXPECT_STDOUT("0\n", T01, "--free-mem-gib", "70.48", "--context", "259841", "--get",
                  "max_concurrency");
    EXPECT_STDOUT("1\n", T01, "--free-mem-gib", "70.48", "--context", "259840", "--get",
                  "max_concurrency");
    run_result r;
    run_kvcalc((const char *const[]){T01, "--free-mem-gib", "70.48", "--format", "json", NULL}, &r);
    assert_int_equal(r.status, 0);
    /* the table's rows come from concurrency_at(): 1,024 -> 253, 2,048 = 32 blocks -> 126 */
    assert_non_null(strstr(r.out, "{\"context\": 1024, \"kv_bytes_per_request\": 268435456, "
                                  "\"max_concurrency\": 253,"));
    assert_non_null(strstr(r.out, "{\"context\": 2048, \"kv_bytes_per_request\": 536870912, "
                                  "\"max_concurrency\": 126,"));
    run_free(&r);
}

/* --max-tokens 100,000 below T01's 259,817: ceil(100,000 / 64) = 1,563 blocks = 100,032
 * tokens, and the log's override line. Above it (300,000) nothing changes. */
static void max_tokens_caps(void **state)
{
    (void)state;
    EXPECT_LINE("Maximum kv-cache token overridden by configuration as '100000'.\n"
                "Number of blocks in KV cache primary pool: 1563\n",
                T01, "--free-mem-gib", "70.48", "--max-tokens", "100000");
    EXPECT_STDOUT("100032\n", T01, "--free-mem-gib", "70.48", "--max-tokens", "100000", "--get",
                  "kv_cache_tokens");
    EXPECT_STDOUT("259840\n", T01, "--free-mem-gib", "70.48", "--max-tokens", "300000", "--get",
                  "kv_cache_tokens");
}

/* Without --free-mem-gib: the lesson's defaults, 48 GiB - 7e9 x 2 B - 2 GiB = 35,392,123,904
 * B free, x 0.9 = 31,852,911,513.6; / 57,344 B per token = 555,470 tokens -> 17,359 blocks of
 * 32 = 555,488 tokens; 4,096 tokens = 128 blocks -> 135 requests. Said to be an estimate. */
static void free_memory_estimated(void **state)
{
    (void)state;
    EXPECT_STDOUT("555488\n", "--engine", "trtllm", "--get", "kv_cache_tokens");
    EXPECT_STDOUT("135\n", "--engine", "trtllm", "--get", "max_concurrency");
    EXPECT_STDOUT("true\n", "--engine", "trtllm", "--get", "trtllm_free_estimated");
    EXPECT_LINE("32.96 GiB, an estimate", "--engine", "trtllm");
    EXPECT_STDOUT("false\n", T01, "--free-mem-gib", "70.48", "--get", "trtllm_free_estimated");
}

/* Tensor parallelism splits the KV heads: Llama-3.1-8B at TP 2 has 4 per rank, 32,768 B per
 * token with fp8; 17.835 GiB -> 525,975 tokens -> 16,437 blocks (ceil of 16,436.7). */
static void tensor_parallel_per_rank(void **state)
{
    (void)state;
    EXPECT_STDOUT("32768\n", T02, "--tp", "2", "--free-mem-gib", "17.835", "--get",
                  "trtllm_per_token_bytes");
    EXPECT_STDOUT("16437\n", T02, "--tp", "2", "--free-mem-gib", "17.835", "--get",
                  "trtllm_blocks");
}

static void expect_usage_error(const char *const *args, const char *line)
{
    run_result r;
    run_kvcalc(args, &r);
    assert_int_equal(r.status, 2);
    assert_int_equal(r.out_len, 0);
    assert_int_equal(count_lines(r.err), 2);
    if (strncmp(r.err, line, strlen(line)) != 0)
        fail_msg("stderr: %s, want: %s", r.err, line);
    run_free(&r);
}

/* The PEFT caches (PeftCacheManager), against the two public logs that print their lines:
 *   - triton-inference-server/tensorrtllm_backend#559 (TensorRT-LLM 0.11.0, Qwen1.5-7B fp16
 *     on an A800, rank 8, lora_cache_host_memory_bytes 39976960, gpu fraction 0.1): "Using
 *     39976960 bytes for LoRA host cache", "Using 312836096 bytes for LoRA device cache",
 *     "Max LoRA size is 19988480", host "can hold 1", device "can hold 8". Qwen1.5-7B's
 *     widths are Llama-2-7B's (hidden 4,096, MLP 11,008, 32 layers of 32 heads of 128), the
 *     preset used here. By hand: a slot is the narrowest module, q/k/v/dense 4,096 + 4,096
 *     = 8,192 elements (16,384 B); gate/up/down 4,096 + 11,008 = 15,104; a page 32 x (4 x 8
 *     x 1 + 3 x 8 x 2) = 2,560 slots; the max LoRA 8 x 32 x (4 x 8,192 + 3 x 15,104) =
 *     19,988,480; host 39,976,960 // 16,384 = 2,440 slots, 1 page, floor(2,560 x 8,192 /
 *     19,988,480) = 1; device 0.1 x free // 16,384 = 19,094 slots for a free of 2.9136 GiB
 *     (the log pins 0.1 x free to [312,836,096, 312,852,480)), 8 pages, floor(8.39) = 8;
 *   - NVIDIA/TensorRT-LLM#6220's test (llama-7b, attn_q/k/v, rank 8): "Max LoRA size is
 *     6291456" = 8 x 32 x 3 x 8,192.
 * The device pages (8 x 2,560 x 16,384 B) come out of the KV budget. */
static void lora_caches(void **state)
{
    (void)state;
#define L1(key) run_get(key, (const char *const[]){"--engine", "trtllm", "--model", "llama-2-7b-hf", \
                                      "--enable-lora", "--max-lora-rank", "8", "--lora-target-modules",    \
                                      "all", "--peft-host-cache-size", "39976960",                       \
                                      "--peft-device-cache-percent", "0.1", "--free-mem-gib", "2.9136",  \
                                      NULL})
    assert_true(L1("trtllm_lora_host_used_bytes") == 39976960);
    assert_true(L1("trtllm_lora_device_used_bytes") == 312836096);
    assert_true(L1("trtllm_lora_max_size") == 19988480);
    assert_true(L1("trtllm_lora_host_holds") == 1);
    assert_true(L1("trtllm_lora_device_holds") == 8);
    assert_true(L1("trtllm_lora_device_bytes") == 8.0 * 2560 * 16384);
    assert_true(L1("available_kv_bytes") == (2.9136 * 1073741824.0 - 8.0 * 2560 * 16384) * 0.9);
#undef L1
    assert_true(run_get("trtllm_lora_max_size",
                        (const char *const[]){"--engine", "trtllm", "--model", "llama-2-7b-hf",
                                              "--enable-lora", "--max-lora-rank", "8",
                                              "--lora-target-modules", "attn_q,attn_k,attn_v",
                                              NULL}) == 6291456);
    /* --max-loras (create_py_executor_instance): 64 x 32 layers x 7 modules x N module-layers
     * of ceil(18,432 / 5,120) = 4 slots of 5,120 x 2 B: N 1 = 57,344 slots = 587,202,560 B,
     * 13 pages of 4,608, floor(13 x 4,608 x 5,120 / 167,772,160) = 1; N 4 = 2,348,810,240 B,
     * 50 pages, 7. One of q, k, v targets all three: attn_q alone is 64 x 32 x 3 x 8,192 */
#define ML(n, key) run_get(key, (const char *const[]){"--engine", "trtllm", "--model",            \
                                                     "llama-3.1-8b-instruct", "--enable-lora",  \
                                                     "--lora-target-modules", "all",            \
                                                     "--max-loras", n, NULL})
    assert_true(ML("1", "trtllm_lora_device_used_bytes") == 587202560);
    assert_true(ML("1", "trtllm_lora_device_holds") == 1);
    assert_true(ML("4", "trtllm_lora_device_used_bytes") == 2348810240.0);
    assert_true(ML("4", "trtllm_lora_device_holds") == 7);
#undef ML
    assert_true(run_get("trtllm_lora_max_size",
                        (const char *const[]){"--engine", "trtllm", "--model", "llama-2-7b-hf",
                                              "--enable-lora", "--lora-target-modules", "attn_q",
                                              NULL}) == 50331648);
    /* a host cache too small for one adapter stops TensorRT-LLM: nothing is served */
    assert_true(run_get("max_concurrency",
                        (const char *const[]){"--engine", "trtllm", "--model", "llama-2-7b-hf",
                                              "--enable-lora", "--lora-target-modules", "all",
                                              "--peft-host-cache-size", "1000000", NULL}) == 0);
    /* refused: no modules, MoE experts, another engine's module names */
    expect_usage_error((const char *const[]){"--engine", "trtllm", "--model", "llama-2-7b-hf",
                                             "--enable-lora", NULL},
                       "kvcalc: --lora-target-modules: TensorRT-LLM sizes its LoRA caches by the "
                       "target modules");
    expect_usage_error((const char *const[]){"--engine", "trtllm", "--model", "qwen3-30b-a3b",
                                             "--enable-lora", "--lora-target-modules", "all", NULL},
                       "kvcalc: --enable-lora: kvcalc sizes TensorRT-LLM's LoRA caches for dense "
                       "attention models on one pipeline stage, not MoE experts");
    expect_usage_error((const char *const[]){"--engine", "trtllm", "--lora-target-modules",
                                             "q_proj", NULL},
                       "kvcalc: --lora-target-modules: ");
}

#define EXPECT_USAGE(line, ...) expect_usage_error((const char *const[]){__VA_ARGS__, NULL}, line)

static void usage_errors(void **state)
{
    (void)state;
    EXPECT_USAGE("kvcalc: --free-gpu-memory-fraction: must be a number > 0 and < 1\n",
                 "--engine", "trtllm", "--free-gpu-memory-fraction", "1");
    EXPECT_USAGE("kvcalc: --free-gpu-memory-fraction:", "--engine", "trtllm",
                 "--free-gpu-memory-fraction", "0");
    EXPECT_USAGE("kvcalc: --tokens-per-block:", "--engine", "trtllm", "--tokens-per-block", "0");
    EXPECT_USAGE("kvcalc: --max-tokens:", "--engine", "trtllm", "--max-tokens", "0");
    EXPECT_USAGE("kvcalc: --free-mem-gib:", "--engine", "trtllm", "--free-mem-gib", "-1");
    EXPECT_USAGE("kvcalc: --free-mem-gib: applies only with --engine trtllm\n",
                 "--free-mem-gib", "3");
    /* 1 B per token (1 layer, 1 head of 1 int4 element, K and V) and 1e12 GiB free: about
     * 9.7e20 tokens, beyond 2^62 - refused, not capped */
    EXPECT_USAGE("kvcalc: --engine trtllm: a TensorRT-LLM input is out of range", "--engine",
                 "trtllm", "--layers", "1", "--kv-heads", "1", "--head-dim", "1", "--dtype",
                 "int4", "--free-mem-gib", "1e12");
}

/* The same two worked examples through the library alone (kvcalc.h), as trtllm.md works
 * them: T01 at 70.48 GiB, T02 at 17.835 GiB (the top of its log's rounding). */
static void worked_examples_through_the_api(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    kv_spec_defaults(&s);
    s.layers = 32;
    s.kv_heads = 32;
    s.head_dim = 128;
    s.dtype = KV_DTYPE_FP8;
    kv_spec_set_engine(&s, KV_ENGINE_TRTLLM);
    s.trtllm.tokens_per_block = 64;
    s.trtllm.free_mem_gib = KV_SOME_NUM(70.48);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.trtllm.per_token_bytes == 262144.0);
    assert_int_equal(r.trtllm.max_tokens, 259817);
    assert_int_equal(r.trtllm.blocks, 4060);
    assert_int_equal(r.kv_cache_tokens, 259840);
    assert_true(r.kv_cache_bytes == 259840.0 * 262144.0); /* 63.4375 GiB */
    assert_true(r.available_kv_bytes == 70.48 * KV_GIB * 0.9);
    assert_true(r.max_concurrency == 63.0); /* floor(4,060 / 64) */
    assert_int_equal(r.fits, 1);
    assert_string_equal(r.engine_version, "");

    /* T02's geometry: 32 layers, 8 KV heads, head 128, fp8 = 65,536 B per token */
    s.kv_heads = 8;
    s.trtllm.tokens_per_block = 32;
    s.trtllm.free_mem_gib = KV_SOME_NUM(17.835);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(r.trtllm.max_tokens, 262987);
    assert_int_equal(r.trtllm.blocks, 8219);
    assert_int_equal(r.kv_cache_tokens, 263008);
    assert_true(r.kv_cache_bytes == 263008.0 * 65536.0); /* 16.05 GiB */

    /* the engine's own inputs are checked: a fraction of 1, no tokens per block */
    s.trtllm.fraction = 1;
    assert_int_equal(kv_compute(&s, &r), KV_ERR_ENGINE_INPUT);
    s.trtllm.fraction = 0.9;
    s.trtllm.tokens_per_block = 0;
    assert_int_equal(kv_compute(&s, &r), KV_ERR_ENGINE_INPUT);
}

/* A two-model draft (KvCacheCreator._cal_max_tokens, tensorrt_llm/_torch/pyexecutor/_util.py
 * @ d8ae02ca): the per-token sizes add. Llama-3.1-70B at TP 2: 2 x 80 x (8 x 128 / 2) x 2 B =
 * 163,840 B; Llama-3.2-1B: 2 x 16 x (8 x 64 / 2) x 2 B = 16,384 B; 180,224 B a token, so 40 GiB
 * x 0.9 / 180,224 = 214,481 tokens (235,929 without the draft). The draft's weights, the 1B
 * model's own halved, come out of the estimated free memory. */
static void two_model_draft(void **state)
{
    (void)state;
#define D "--engine", "trtllm", "--model", "llama-3.1-70b-instruct", "--tp", "2", "--gpu", "h100"
    assert_int_equal(GET(D, "-md", "llama-3.2-1b-instruct", "--free-mem-gib", "40", "--get",
                         "trtllm_max_tokens"), 214481);
    assert_int_equal(GET(D, "--free-mem-gib", "40", "--get", "trtllm_max_tokens"), 235929);
    assert_int_equal(GET(D, "-md", "llama-3.2-1b-instruct", "--get", "trtllm_draft_token_bytes"),
                     16384);
    long long own = GET("--model", "llama-3.2-1b-instruct", "--get", "weights_bytes");
    assert_int_equal(GET(D, "-md", "llama-3.2-1b-instruct", "--get", "trtllm_draft_weights_bytes"),
                     own / 2);
    assert_int_equal(GET(D, "--get", "trtllm_free_bytes") -
                         GET(D, "-md", "llama-3.2-1b-instruct", "--get", "trtllm_free_bytes"),
                     own / 2);
#undef D
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t01_memory_faq),
        cmocka_unit_test(secondary_host_pool),
        cmocka_unit_test(two_model_draft),
        cmocka_unit_test(t02_llama_fp8),
        cmocka_unit_test(requests_take_whole_blocks),
        cmocka_unit_test(max_tokens_caps),
        cmocka_unit_test(free_memory_estimated),
        cmocka_unit_test(tensor_parallel_per_rank),
        cmocka_unit_test(usage_errors),
        cmocka_unit_test(lora_caches),
        cmocka_unit_test(worked_examples_through_the_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
