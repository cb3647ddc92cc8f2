/*
 * test_vllm.c - --engine vllm against the worked examples of real startup logs
 * (docs/vllm.md section "Checked against real logs"; from the vLLM sizing spec, section 11).
 *
 * A log prints "Available KV cache memory: X.XX GiB", rounded: the true value lies within
 * X.XX +- 0.005 GiB. For each log, kvcalc is run at both ends of that interval and the
 * logged block count must fall between the two results. Then, with the logged block count
 * (--num-gpu-blocks-override, vLLM's own flag), the "GPU KV cache size" and "Maximum
 * concurrency" lines must be the logged ones, byte for byte.
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
#include <unistd.h>

#define KVCALC_ENGINES
#include "kvcalc.h"
#include "run.h"

#define MAX_ARGS 24

typedef struct {
    const char *what;
    const char *args[MAX_ARGS]; /* model and vLLM settings of the log */
    const char *available;      /* the logged "Available KV cache memory", GiB */
    long long blocks;           /* the logged num_gpu_blocks */
    const char *tokens_line;    /* as logged */
    const char *concurrency_line;
} log_case;

static const log_case logs[] = {
    /* Qwen2-7B-Instruct (the geometry of Qwen2.5-7B: 28 layers, 4 KV heads, head 128) on an
     * A100-80GB, v0.10.1.1, util 0.50: page 2 x 16 x 4 x 128 x 2 = 32,768 B, x 28 layers =
     * 917,504 B per block; 24.83 GiB -> 29,053 blocks; 29,053 x 16 = 464,848 tokens;
     * 29,053 / ceil(16,384 / 16) = 28.37x */
    {"qwen2-7b util 0.50",
     {"--model", "qwen2.5-7b-instruct", "--gpu", "a100", "--max-model-len", "16384", NULL},
     "24.83", 29053, "GPU KV cache size: 464,848 tokens",
     "Maximum concurrency for 16,384 tokens per request: 28.37x"},
    /* the same at util 0.25: 5.01 GiB -> 5,867 blocks, 93,872 tokens, 5,867 / 1,024 = 5.73x */
    {"qwen2-7b util 0.25",
     {"--model", "qwen2.5-7b-instruct", "--gpu", "a100", "--max-model-len", "16384", NULL},
     "5.01", 5867, "GPU KV cache size: 93,872 tokens",
     "Maximum concurrency for 16,384 tokens per request: 5.73x"},
    /* granite-4.0-micro on an L40S, v0.11.0: 40 layers, 8 KV heads, head 2560 / 40 = 64:
     * page 2 x 16 x 8 x 64 x 2 = 32,768, x 40 = 1,310,720 B per block; 35.34 GiB ->
     * 28,946; x 16 = 463,136 tokens; 28,946 / 8,192 = 3.53x */
    {"granite-4.0-micro",
     {"--layers", "40", "--kv-heads", "8", "--head-dim", "64", "--dtype", "bf16",
      "--max-model-len", "131072", "--max-num-batched-tokens", "8192", NULL},
     "35.34", 28946, "GPU KV cache size: 463,136 tokens",
     "Maximum concurrency for 131,072 tokens per request: 3.53x"},
    /* Gemma-3-27B-it, ROCm, v0.11.0rc2: 52 sliding(1024) + 10 full layers -> groups of 10:
     * 6 sliding + 1 full = 7 groups; page 2 x 16 x 16 x 128 x 2 = 131,072, x 10 per block;
     * 109.86 GiB -> 89,994 blocks; 89,994 // 7 x 16 = 205,696 tokens; per request 256 (full)
     * + 6 x (ceil(min(1,023 + 8,192, 4,096) / 16) + 1 = 257) = 1,798; 89,994 / 1,798 =
     * 50.05x */
    {"gemma-3-27b",
     {"--model", "gemma-3-27b-it", "--max-model-len", "4096", "--max-num-batched-tokens", "8192",
      NULL},
     "109.86", 89994, "GPU KV cache size: 205,696 tokens",
     "Maximum concurrency for 4,096 tokens per request: 50.05x"},
    /* gpt-oss-120b, TP 4 on A100-80GB, v0.10.1.1, util 0.8: 8 KV heads / 4 = 2 per GPU, head
     * 64: page 2 x 16 x 2 x 64 x 2 = 8,192, 18 layers per group, 2 groups; 45.32 GiB ->
     * 330,018; 330,018 // 2 x 16 = 2,640,144 tokens; per request 1,024 + (ceil(min(127 +
     * 2,048, 16,384) / 16) + 1 = 137) = 1,161; 330,018 / 1,161 = 284.25x */
    {"gpt-oss-120b tp4",
     {"--model", "gpt-oss-120b", "--tp", "4", "--gpu", "a100", "--max-model-len", "16384",
      "--gpu-memory-utilization", "0.8", NULL},
     "45.32", 330018, "GPU KV cache size: 2,640,144 tokens",
     "Maximum concurrency for 16,384 tokens per request: 284.25x"},
    /* Llama-3.1-8B + EAGLE on an H100, 0.9.1-dev: 32 + 1 draft layer = 33; page 2 x 16 x 8 x
     * 128 x 2 = 65,536; 51.63 GiB / (33 x 65,536) -> 25,633 blocks = 410,128 tokens;
     * 25,633 / 8,192 = 3.13x */
    {"llama-3.1-8b + eagle",
     {"--model", "llama-3.1-8b", "--layers", "33", "--gpu", "h100", "--max-model-len", "131072",
      NULL},
     "51.63", 25633, "GPU KV cache size: 410,128 tokens",
     "Maximum concurrency for 131,072 tokens per request: 3.13x"},
    /* Qwen3-8B, a 2026 build: 36 layers, 8 KV heads, head 128: 36 x 65,536 per block;
     * 6.37 GiB -> 2,898 blocks; concurrency 2,898 / 1,024 = 2.830x; tokens int(2.830... x
     * 16,384) = 46,368 */
    {"qwen3-8b 2026",
     {"--model", "qwen3-8b", "--max-model-len", "16384", "--vllm-version", "0.21", NULL},
     "6.37", 2898, "GPU KV cache size: 46,368 tokens",
     "Maximum concurrency for 16,384 tokens per request: 2.83x"},
    /* Qwen3-Next-style Mamba hybrid (12 full + 36 gated-delta-net layers), block size 2,096,
     * prefix caching on, so Mamba "align" mode: groups of 12 -> 1 full + 3 state groups; page 2,096 x (2 x 2 x 256
     * x 2 = 2,048) = 4,292,608, x 12 per block; 17.36 GiB -> 361 blocks; 361 // 4 x 2,096 =
     * 188,640 tokens; 361 / (ceil(131,072 / 2,096) = 63 + 3 x 2) = 5.23x. The log's build
     * (2026) chose 2,096 itself; kvcalc is told it with --block-size, which vLLM's command
     * line accepts from 0.18 (before, only the BlockSize literals): 0.18 keeps the rules of
     * this log (tokens = blocks // groups x block to 0.19, no null block). */
    {"qwen3-next hybrid",
     {"--config", KVCALC_SOURCE_DIR "/tests/fixtures/variants/qwen3-next.json", "--block-size",
      "2096", "--max-model-len", "131072", "--enable-prefix-caching", "--vllm-version",
      "0.18", NULL},
     "17.36", 361, "GPU KV cache size: 188,640 tokens",
     "Maximum concurrency for 131,072 tokens per request: 5.23x"},
};

/* Runs kvcalc --engine vllm with the case's arguments plus extra ones. */
static void run_case(const log_case *c, const char *const *extra, run_result *r)
{
    const char *argv[MAX_ARGS + 8];
    size_t n = 0;
    argv[n++] = "--engine";
    argv[n++] = "vllm";
    for (size_t i = 0; c->args[i]; i++)
        argv[n++] = c->args[i];
    for (size_t i = 0; extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    run_kvcalc(argv, r);
    if (r->status != 0)
        fail_msg("%s: exit %d: %s", c->what, r->status, r->err);
}

static long long blocks_at(const log_case *c, double gib)
{
    char value[32];
    run_result r;
    snprintf(value, sizeof value, "%.6f", gib);
    run_case(c, (const char *const[]){"--kv-cache-memory-gib", value, "--get", "num_gpu_blocks",
                                      NULL},
             &r);
    long long blocks = atoll(r.out);
    run_free(&r);
    return blocks;
}

static void block_counts_within_log_rounding(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        const log_case *c = &logs[i];
        double logged = atof(c->available);
        long long lo = blocks_at(c, logged - 0.005), hi = blocks_at(c, logged + 0.005);
        print_message("  %-22s logged %lld, kvcalc %lld..%lld\n", c->what, c->blocks, lo, hi);
        assert_true(lo <= c->blocks && c->blocks <= hi);
    }
}

static void startup_lines_match_the_log(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        const log_case *c = &logs[i];
        char blocks[32], line[128];
        run_result r;
        snprintf(blocks, sizeof blocks, "%lld", c->blocks);
        run_case(c, (const char *const[]){"--kv-cache-memory-gib", c->available,
                                          "--num-gpu-blocks-override", blocks, NULL},
                 &r);
        snprintf(line, sizeof line, "\nAvailable KV cache memory: %s GiB\n", c->available);
        if (!strstr(r.out, line) || !strstr(r.out, c->tokens_line) ||
            !strstr(r.out, c->concurrency_line))
            fail_msg("%s: expected\n%s\n%s\nin:\n%s", c->what, c->tokens_line,
                     c->concurrency_line, r.out);
        run_free(&r);
    }
}

static void gemma_padding_warning(void **state)
{
    (void)state;
    run_result r;
    run_case(&logs[3], (const char *const[]){"--kv-cache-memory-gib", "109.86", NULL}, &r);
    /* 7 groups of 10 for 52 sliding layers: 60 - 52 = 8 padding layers, 8 / 52 = 15.38% */
    assert_non_null(strstr(r.out, "WARNING: Add 8 padding layers, may waste at most 15.38% KV "
                                  "cache memory\n"));
    run_free(&r);
}

/* The attention block of hybrids, as three real logs print it (tests/logs/README.md,
 * docs/vllm.md): the state is conv (model dtype) + SSM (the config's float32), one rank.
 *   Nemotron-3-Nano shapes, fp8 KV (0.20.1rc1): conv 3 x 6,144 x 2 + SSM 64 x 64 x 128 x 4 =
 *     2,134,016 B; attention 2 x 2 x 128 x 1 = 512 B/token: 16 x ceil(2,134,016 / 8,192) =
 *     4,176 tokens; 4,176 x 512 / 2,134,016 - 1 = 0.19 %
 *   Qwen3.5-9B, fp8 KV (0.17.1): conv 3 x 8,192 x 2 + SSM 32 x 128 x 128 x 4 = 2,146,304 B;
 *     2 x 4 x 256 x 1 = 2,048 B/token: 16 x ceil(2,146,304 / 32,768) = 1,056; 0.76 %
 *   Qwen3.5-27B shapes, bf16 (0.28.0, Qwen3.8-27B): conv 3 x 10,240 x 2 + SSM 48 x 128 x 128
 *     x 4 = 3,207,168 B; 4,096 B/token: 16 x ceil(3,207,168 / 65,536) = 784; 0.13 % */
static void hybrid_block_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *args[12];
        const char *block, *padding;
    } cases[] = {
        {{"--model", "nemotron-3-nano-30b-a3b", "--dtype", "fp8", NULL}, "4176", "0.19"},
        {{"--model", "qwen3.5-9b",
          "--dtype", "fp8", NULL}, "1056", "0.76"},
        {{"--model", "qwen3.5-27b", NULL}, "784", "0.13"},
        /* the same 0.28.0 log's arms with drafting: a gated delta net's conv state keeps
         * kernel - 1 + N rows. One draft token: 4 x 10,240 x 2 + 3,145,728 = 3,227,648 B ->
         * 800 tokens (1.52 %); seven: 10 x 10,240 x 2 + 3,145,728 = 3,350,528 B -> 832
         * tokens (1.71 %) */
        {{"--model", "qwen3.5-27b", "--num-speculative-tokens", "1", NULL}, "800", "1.52"},
        {{"--model", "qwen3.5-27b", "--num-speculative-tokens", "7", NULL}, "832", "1.71"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[20] = {"--engine", "vllm", "--gpu", "h100"};
        size_t n = 4;
        for (size_t k = 0; cases[i].args[k]; k++)
            argv[n++] = cases[i].args[k];
        argv[n] = NULL;
        run_result r;
        run_kvcalc(argv, &r);
        assert_int_equal(r.status, 0);
        char want[300];
        snprintf(want, sizeof want, "Setting attention block size to %s tokens to ensure that "
                 "attention page size is >= mamba page size.\nPadding mamba page size by %s%% "
                 "to ensure that mamba page size and attention page size are exactly equal.\n",
                 cases[i].block, cases[i].padding);
        if (!strstr(r.out, want))
            fail_msg("case %zu: no '%s' in\n%s", i, want, r.out);
        run_free(&r);
    }
}

/* vLLM 0.28.0 on an A100, Qwen3.8-27B (the Qwen3.5-27B shapes), its log's 18.61 GiB of KV:
 * 18.61 GiB / (784 x 4,096 x 16 B) = 388 blocks; prefix caching on, the gated delta nets'
 * three groups in align mode: 262,144 / 784 -> 335 + 3 x 2 = 341 blocks a request; 388 /
 * 341 = 1.14x, int(1.1378 x 262,144) = 298,275 tokens - the log's two lines */
static void hybrid_align_mode(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3.5-27b",
                                     "--vllm-version", "0.28", "--context", "262144",
                                     "--kv-cache-memory-gib", "18.61",
                                     "--enable-prefix-caching", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "GPU KV cache size: 298,275 tokens\n"));
    assert_non_null(strstr(r.out, "Maximum concurrency for 262,144 tokens per request: 1.14x\n"));
    run_free(&r);
    /* not asked for: 0.28 turns it on for hybrid models (#50991; the log's LLM() had no
     * flag); 0.27 leaves it off beside state layers (a 0.27.1 log: "not on by default"),
     * so mode none: 335 + 3 = 338 blocks */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3.5-27b",
                                     "--vllm-version", "0.28", "--context", "262144",
                                     "--kv-cache-memory-gib", "18.61", "--get",
                                     "vllm_blocks_per_request", NULL},
               &r);
    assert_string_equal(r.out, "341\n");
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3.5-27b",
                                     "--vllm-version", "0.27", "--context", "262144",
                                     "--kv-cache-memory-gib", "18.61", "--get",
                                     "vllm_blocks_per_request", NULL},
               &r);
    assert_string_equal(r.out, "338\n");
    run_free(&r);
    /* --no-enable-prefix-caching at 0.28: the same */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3.5-27b",
                                     "--vllm-version", "0.28", "--context", "262144",
                                     "--kv-cache-memory-gib", "18.61",
                                     "--no-enable-prefix-caching", "--get",
                                     "vllm_blocks_per_request", NULL},
               &r);
    assert_string_equal(r.out, "338\n");
    run_free(&r);
    /* "none" beside prefix caching is vLLM's "not given" (it picks align): refused, naming
     * the flag that does turn it off */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3.5-27b",
                                     "--vllm-version", "0.28", "--mamba-cache-mode", "none",
                                     NULL},
               &r);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "--mamba-cache-mode: with prefix caching"));
    assert_non_null(strstr(r.err, "--no-enable-prefix-caching"));
    run_free(&r);
    /* before 0.15 a gated delta net's prefix caching is disabled (a real 0.13.0 log of
     * Qwen3-Next asked for it and printed enable_prefix_caching=False) */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3.5-27b",
                                     "--vllm-version", "0.13", "--enable-prefix-caching",
                                     "--get", "vllm_enable_prefix_caching", NULL},
               &r);
    assert_string_equal(r.out, "false\n");
    run_free(&r);
    /* a Mamba-2 model's mode "all" (0.15-0.27; Platform._align_hybrid_block_size and
     * MambaSpec.max_memory_usage_bytes @ 28be48fa9): Nemotron-3-Nano's state page 2,134,016
     * B over 1,024 B a token (2 KV heads of 128, bf16) = 2,084 tokens, in chunks of
     * lcm(chunk_size 128, 16) = 128: a block of 17 x 128 = 2,176 tokens; a 32,768-token
     * request takes ceil(32,768 / 2,176) = 16 blocks in the full group and 16 in each of the
     * 4 state groups: 80 (align: 16 + 4 x 2 = 24) */
    static const struct {
        const char *version, *key, *want;
    } all[] = {
        {"0.23", "block_size", "2176\n"},
        {"0.23", "vllm_blocks_per_request", "80\n"},
        {"0.23", "vllm_mamba_all", "true\n"},
        {"0.28", "vllm_blocks_per_request", "24\n"}, /* #50991: align for every model */
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "nemotron-3-nano-30b-a3b",
                                         "--vllm-version", all[i].version, "--enable-prefix-caching",
                                         "--max-model-len", "32768", "--get", all[i].key, NULL},
                   &r);
        if (r.status != 0 || strcmp(r.out, all[i].want) != 0)
            fail_msg("%s %s: '%s' (%s), want '%s'", all[i].version, all[i].key, r.out, r.err,
                     all[i].want);
        run_free(&r);
    }
    /* before 0.15 that model's prefix caching (mamba_block_size = block_size) is refused */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "nemotron-3-nano-30b-a3b",
                                     "--vllm-version", "0.13", "--enable-prefix-caching", NULL},
               &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--enable-prefix-caching: before 0.15 a Mamba-1/2 model"));
    run_free(&r);
    /* align beside speculative decoding before 0.16: vLLM's assertion */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3.5-27b",
                                     "--vllm-version", "0.15", "--enable-prefix-caching",
                                     "--mtp", "--num-speculative-tokens", "1", NULL},
               &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "is currently not compatible with speculative decoding"));
    run_free(&r);
}

/* The section's own prediction: Qwen2.5-7B at util 0.9, M = 32,768 on the same A100 with
 * the measured non-KV memory (weights 14.2488 GiB + 0.55 GiB activation and non-torch):
 * 0.9 x 79.25 - 14.7988 = 56.5262 GiB -> floor(56.5262 x 2^30 / 917,504) = 66,151 blocks,
 * 1,058,416 tokens, 66,151 / 2,048 = 32.30x */
static void budget_from_the_gpu(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen2.5-7b-instruct",
                                     "--gpu", "a100", "--max-model-len", "32768",
                                     "--weights-gib", "14.2488", "--activation-gib", "0.55",
                                     "--non-torch-gib", "0", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  budget  : 0.9 x 79.25 GiB = 71.33 GiB"));
    assert_non_null(strstr(r.out, "Available KV cache memory: 56.53 GiB\n"));
    assert_non_null(strstr(r.out, "GPU KV cache size: 1,058,416 tokens\n"));
    assert_non_null(strstr(r.out, "Maximum concurrency for 32,768 tokens per request: 32.30x\n"));
    run_free(&r);
}

#define GET(want, ...) EXPECT_STDOUT(want "\n", __VA_ARGS__)

static void layouts_and_dtypes(void **state)
{
    (void)state;
    /* TP replication: Qwen3-235B has 4 KV heads; at TP 8 each GPU still holds one */
    GET("1", "--model", "qwen3-235b-a22b", "--tp", "8", "--get", "kv_heads_per_gpu");
    /* its page then: 2 x 16 x 1 x 128 x 2 = 8,192 B */
    GET("8192", "--engine", "vllm", "--model", "qwen3-235b-a22b", "--tp", "8", "--get",
        "vllm_page_bytes");
    /* MLA: FlashMLA's block of 64, one latent of 576 elements, not split by TP:
     * 64 x 576 x 2 = 73,728 B */
    GET("64", "--engine", "vllm", "--model", "deepseek-v3", "--tp", "8", "--get", "block_size");
    GET("73728", "--engine", "vllm", "--model", "deepseek-v3", "--tp", "8", "--get",
        "vllm_page_bytes");
    /* fp8 KV cache halves the page: 2 x 16 x 4 x 128 x 1 = 16,384 B */
    GET("16384", "--engine", "vllm", "--model", "qwen2.5-7b-instruct", "--kv-cache-dtype", "fp8",
        "--get", "vllm_page_bytes");
    /* the hybrid manager off: Gemma-3's 62 layers are one full group */
    GET("62", "--engine", "vllm", "--model", "gemma-3-27b-it", "--disable-hybrid-kv-cache-manager",
        "--get", "vllm_layers_per_group");
    /* Mistral-7B v0.1, every layer sliding(4096), M 32,768, T 8,192 on an H100:
     * ceil(12,287 / 16) + 1 = 769 blocks per request instead of 2,048 */
    GET("769", "--engine", "vllm", "--model", "mistral-7b-instruct-v0.1", "--gpu", "h100",
        "--max-model-len", "32768", "--get", "vllm_blocks_per_request");
    /* block-granular prefix: 1,000 tokens at block 16 share 62 blocks = 992 tokens */
    GET("62", "--engine", "vllm", "--prefix-tokens", "1000", "--get", "vllm_prefix_shared_blocks");
    GET("992", "--engine", "vllm", "--prefix-tokens", "1000", "--get",
        "vllm_prefix_shared_tokens");
}

/* One request that does not fit: vLLM's error, and the longest length that would. Qwen2.5-7B
 * at M = 32,768 needs 28 x 2,048 x 32,768 B = 1.75 GiB; with 0.5 GiB, ceil(M / 16) <= 0.5 x
 * 2^30 / (28 x 32,768) = 585.1, so M <= 585 x 16 = 9,360. */
static void request_that_does_not_fit(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen2.5-7b-instruct",
                                     "--max-model-len", "32768", "--kv-cache-memory-gib", "0.5",
                                     NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "ValueError: To serve at least one request with the models's "
                                  "max seq len (32768), (1.75 GiB KV cache is needed, which is "
                                  "larger than the available KV cache memory (0.50 GiB). Based on "
                                  "the available memory, the estimated maximum model length is "
                                  "9360."));
    run_free(&r);
    GET("9360", "--engine", "vllm", "--model", "qwen2.5-7b-instruct", "--max-model-len", "32768",
        "--kv-cache-memory-gib", "0.5", "--get", "vllm_max_model_len_fit");
    GET("false", "--engine", "vllm", "--model", "qwen2.5-7b-instruct", "--max-model-len",
        "32768", "--kv-cache-memory-gib", "0.5", "--get", "vllm_fits");
}

/* V0 (VLLM_USE_V1=0, and every release before 0.8): "# cuda blocks: N, # CPU blocks: M",
 * M = floor(swap space / block bytes), concurrency = blocks x block size / max_model_len. The
 * CPU blocks of five public V0 logs, from their layouts alone. */
static void v0_cpu_blocks_match_the_logs(void **state)
{
    (void)state;
    /* P05: Qwen2.5-7B, 28 x 2 x 4 x 128 x 2 B x 16 = 917,504 B; 4 GiB / that = 4,681.1 */
    GET("4681", "--engine", "vllm", "--model", "qwen2.5-7b-instruct", "--vllm-version", "0.7.3",
        "--get", "vllm_num_cpu_blocks");
    /* P02: 32 x 2 x 8 x 128 x 2 B x 16 = 2,097,152 B; 4 GiB / 2 MiB = 2,048 */
    GET("2048", "--engine", "vllm", "--model", "llama-3.1-8b-instruct", "--vllm-use-v1", "0",
        "--vllm-version", "0.8", "--get", "vllm_num_cpu_blocks");
    /* D16: Phi-4 with Unsloth's swap space of 6 GiB: 40 x 2 x 10 x 128 x 2 x 16 = 3,276,800 B;
     * 6 GiB / that = 1,966.1 */
    GET("1966", "--engine", "vllm", "--model", "phi-4", "--vllm-version", "0.8.2", "--vllm-use-v1",
        "0", "--swap-space", "6", "--get", "vllm_num_cpu_blocks");
    /* D33: DeepSeek-R1, 61 x 576 x 2 B x 64 = 4,497,408 B; 4 GiB / that = 954.99 */
    GET("954", "--engine", "vllm", "--model", "deepseek-r1", "--tp", "8", "--vllm-version", "0.7.3",
        "--get", "vllm_num_cpu_blocks");
    /* D32: the same with the latent padded to 640: 4,997,120 B; 859.5 */
    GET("859", "--engine", "vllm", "--model", "deepseek-r1", "--tp", "8", "--vllm-version", "0.7.3",
        "--mla-align-kv-cache", "--get", "vllm_num_cpu_blocks");
    /* D31: V0 with the aligned latent and 16-token blocks: 61 x 640 x 2 x 16 = 1,249,280 B;
     * 4 GiB / that = 3,437.9; P01's concurrency: 5,148 x 16 / 2,000 = 41.184 */
    GET("3437", "--engine", "vllm", "--model", "deepseek-r1", "--tp", "8", "--vllm-version", "0.7.3",
        "--mla-align-kv-cache", "--block-size", "16", "--get", "vllm_num_cpu_blocks");
    GET("41.184", "--engine", "vllm", "--model", "deepseek-r1-distill-qwen-1.5b",
        "--max-model-len", "2000", "--vllm-version", "0.7.3", "--num-gpu-blocks-override", "5148",
        "--get", "vllm_max_concurrency");
    /* V1 has no swap blocks */
    GET("0", "--engine", "vllm", "--model", "qwen2.5-7b-instruct", "--get", "vllm_num_cpu_blocks");
}

/* P05's log (V0, RTX 4060, util 0.70, Qwen2.5-7B 4-bit, max_model_len 4096): vLLM printed
 * total 8.00 GiB x 0.70 = 5.60 GiB, "# cuda blocks: 0, # CPU blocks: 4681" and 0.00x, then
 * refused. kvcalc prints the same lines in the same words, from its own estimate. */
static void v0_lines_in_vllms_words(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen2.5-7b-instruct",
                                     "--quantization", "awq", "--gpu-mem-gib", "8",
                                     "--gpu-memory-utilization", "0.7", "--max-model-len", "4096",
                                     "--vllm-version", "0.7.3", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "vLLM 0.7.3 (V0 engine) prediction"));
    assert_non_null(strstr(r.out, "\nthe current vLLM instance can use total_gpu_memory (8.00GiB) "
                                  "x gpu_memory_utilization (0.70) = 5.60GiB\n"));
    assert_non_null(strstr(r.out, "\nmodel weights take "));
    assert_non_null(strstr(r.out, "\n# cuda blocks: 0, # CPU blocks: 4681\n"
                                  "Maximum concurrency for 4096 tokens per request: 0.00x\n"
                                  "ValueError: No available memory for the cache blocks."));
    run_free(&r);
    /* the blocks line's word by release: "GPU" before 0.7, "CUDA" in 0.7.0-0.7.2 */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen2.5-7b-instruct",
                                     "--vllm-version", "0.7.1", NULL},
               &r);
    assert_non_null(strstr(r.out, "\n# CUDA blocks: "));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen2.5-7b-instruct",
                                     "--vllm-version", "0.6.4", NULL},
               &r);
    assert_non_null(strstr(r.out, "\n# GPU blocks: "));
    assert_non_null(strstr(r.out, ", # CPU blocks: 4681\n"));
    assert_null(strstr(r.out, "the current vLLM instance")); /* printed from 0.6.5 */
    run_free(&r);
    /* V0 refuses a max_model_len its blocks cannot hold, in its own words: 0.5 GiB / 917,504 B
     * = 585 blocks = 9,360 tokens */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen2.5-7b-instruct",
                                     "--vllm-use-v1", "0", "--vllm-version", "0.8",
                                     "--max-model-len", "32768", "--kv-cache-memory-gib", "0.5",
                                     NULL},
               &r);
    assert_non_null(strstr(r.out, "ValueError: The model's max seq len (32768) is larger than "
                                  "the maximum number of tokens that can be stored in KV cache "
                                  "(9360)."));
    run_free(&r);
}

/* Early V1 (0.7 - 0.9.0) and V0 count concurrency as blocks x block size / max_model_len, not
 * in whole blocks per request: D19 (0.7.3 V1, granite-3.0-3b-a800m: 32 layers, 8 KV heads,
 * head 64): 33,660 x 16 / 4,096 = 131.48x; D05 (early V1): 1,381 x 16 / 2,048 = 10.79x. */
static void blocks_per_token_eras(void **state)
{
    (void)state;
    GET("131.484375", "--engine", "vllm", "--layers", "32", "--kv-heads", "8", "--head-dim", "64",
        "--max-model-len", "4096", "--vllm-version", "0.7.3", "--vllm-use-v1", "1",
        "--num-gpu-blocks-override", "33660", "--get", "vllm_max_concurrency");
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "llama-3.1-70b-instruct",
                                     "--max-model-len", "2048", "--vllm-version", "0.8",
                                     "--num-gpu-blocks-override", "1381", NULL},
               &r);
    assert_non_null(strstr(r.out, "\n# GPU blocks: 1381\n"
                                  "Maximum concurrency for 2048 tokens per request: 10.79x\n"));
    assert_null(strstr(r.out, "\nAvailable KV cache memory:")); /* from 0.9.1 */
    run_free(&r);
    /* from 0.9.1 whole blocks per request: 33,660 / ceil(4,096 / 16) = 131.48 as well here,
     * but 29,220 / ceil(5,000 / 16) = 93.35 (not 29,220 x 16 / 5,000 = 93.50) */
    GET("93.35463258785943", "--engine", "vllm", "--layers", "32", "--kv-heads", "8",
        "--head-dim", "64", "--max-model-len", "5000", "--vllm-version", "0.9.2",
        "--num-gpu-blocks-override", "29220", "--get", "vllm_max_concurrency");
    GET("93.504", "--engine", "vllm", "--layers", "32", "--kv-heads", "8",
        "--head-dim", "64", "--max-model-len", "5000", "--vllm-version", "0.9.0",
        "--num-gpu-blocks-override", "29220", "--get", "vllm_max_concurrency");
}

/* The defaults V0 starts from: max_num_seqs 256 on every card (V1 from 0.8: 1,024 on an
 * H100), one whole max_model_len per step up to 32K (then chunked prefill, 2,048). */
static void v0_defaults(void **state)
{
    (void)state;
    GET("256", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--vllm-version", "0.8",
        "--vllm-use-v1", "0", "--get", "vllm_max_num_seqs");
    GET("1024", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--vllm-version", "0.8",
        "--get", "vllm_max_num_seqs");
    GET("16384", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--vllm-version",
        "0.7", "--max-model-len", "16384", "--get", "vllm_max_num_batched_tokens");
    GET("2048", "--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", "--vllm-version",
        "0.7", "--max-model-len", "40960", "--get", "vllm_max_num_batched_tokens");
    /* ... but never for MLA, multimodal or sliding-window models (V0's chunked-prefill rule):
     * DeepSeek-R1 at 163,840 takes it whole; Gemma-3 (sliding, multimodal) at least 5,120 */
    GET("163840", "--engine", "vllm", "--model", "deepseek-r1", "--tp", "8", "--vllm-version",
        "0.7.3", "--max-model-len", "163840", "--get", "vllm_max_num_batched_tokens");
    GET("5120", "--engine", "vllm", "--model", "gemma-3-27b-it", "--vllm-version", "0.7.3",
        "--max-model-len", "4096", "--get", "vllm_max_num_batched_tokens");
    GET("65536", "--engine", "vllm", "--model", "gemma-3-27b-it", "--vllm-version", "0.7.3",
        "--max-model-len", "65536", "--get", "vllm_max_num_batched_tokens");
    GET("false", "--engine", "vllm", "--model", "qwen3-8b", "--vllm-version", "0.7.3", "--get",
        "vllm_v1");
    GET("true", "--engine", "vllm", "--model", "qwen3-8b", "--vllm-version", "0.8", "--get",
        "vllm_v1");
    /* the utilization default rose to 0.92 with 0.21's CUDA-graph estimate */
    GET("0.9", "--engine", "vllm", "--model", "qwen3-8b", "--get", "vllm_gpu_memory_utilization");
    GET("0.92", "--engine", "vllm", "--model", "qwen3-8b", "--vllm-version", "0.21", "--get",
        "vllm_gpu_memory_utilization");
    GET("0.5", "--engine", "vllm", "--model", "qwen3-8b", "--vllm-version", "0.21",
        "--gpu-memory-utilization", "0.5", "--get", "vllm_gpu_memory_utilization");
    /* 0.21's CUDA-graph estimate (0.5 GiB), none with --enforce-eager */
    GET("536870912", "--engine", "vllm", "--model", "qwen3-8b", "--vllm-version", "0.21", "--get",
        "vllm_cuda_graph_bytes");
    GET("0", "--engine", "vllm", "--model", "qwen3-8b", "--vllm-version", "0.21",
        "--enforce-eager", "--get", "vllm_cuda_graph_bytes");
}

/* The multimodal encoder's profile run, by vLLM's rules and the tower's widths (hand
 * arithmetic): Qwen3-VL-30B-A3B (tower 1,152 wide, MLP 4,304, fc1/fc2) at max_model_len
 * 32,768 profiles a video of 2 frame pairs, 32,768 tokens x 4 = 131,072 patches; T 8,192 <
 * 32,768: 1 item; 131,072 x (2 x 1,152 + 2 x 4,304) x 2 B = 2,860,515,328 B. Gemma-3-27B
 * (SigLIP, the same widths) at T 8,192: 8,192 / 256 = 32 images of 4,096 patches: the same
 * bytes. With --max-num-seqs 4 (P04) the encoder binds the activation; vLLM's
 * --language-model-only and V0 profile none. */
static void encoder_profile(void **state)
{
    (void)state;
    GET("2860515328", "--engine", "vllm", "--model", "qwen3-vl-30b-a3b-instruct", "--gpu", "h100",
        "--max-model-len", "32768", "--get", "vllm_encoder_profile_bytes");
    GET("2860515328", "--engine", "vllm", "--model", "gemma-3-27b-it", "--gpu", "h100",
        "--max-model-len", "4096", "--get", "vllm_encoder_profile_bytes");
    GET("2860515328", "--engine", "vllm", "--model", "qwen3-vl-30b-a3b-instruct", "--gpu", "h100",
        "--max-model-len", "32768", "--max-num-seqs", "4", "--get", "vllm_activation_bytes");
    GET("0", "--engine", "vllm", "--model", "qwen3-vl-30b-a3b-instruct", "--gpu", "h100",
        "--language-model-only", "--get", "vllm_encoder_profile_bytes");
    GET("0", "--engine", "vllm", "--model", "gemma-3-27b-it", "--vllm-version", "0.7.3", "--get",
        "vllm_encoder_profile_bytes");
    GET("0", "--engine", "vllm", "--model", "qwen3-8b", "--get", "vllm_encoder_profile_bytes");
    /* the text says which run binds the estimate */
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-vl-30b-a3b-instruct",
                                     "--gpu", "h100", "--max-model-len", "32768", "--max-num-seqs",
                                     "4", NULL},
               &r);
    assert_non_null(strstr(r.out, "the vision encoder's profile run binds it)"));
    assert_non_null(strstr(r.out, "(the vision encoder's profile run: 2.66 GiB"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-vl-30b-a3b-instruct",
                                     "--gpu", "h100", "--max-model-len", "32768", NULL},
               &r);
    assert_non_null(strstr(r.out, "its sampler run of max_num_seqs x vocabulary dominates)"));
    run_free(&r);
}

/* The library on its own: the lesson's model (28 layers, 4 KV heads, head 128, fp16) under
 * --engine vllm. An alarm turns a hang into a failure. */
static kv_status vllm_compute(kv_spec *s, kv_result *r)
{
    if (s->engine != KV_ENGINE_VLLM) /* (setting it fills vLLM's defaults) */
        kv_spec_set_engine(s, KV_ENGINE_VLLM);
    alarm(10);
    kv_status st = kv_compute(s, r);
    alarm(0);
    return st;
}

static kv_spec vllm_spec(void)
{
    kv_spec s;
    kv_spec_defaults(&s);
    kv_spec_set_engine(&s, KV_ENGINE_VLLM);
    s.vllm.total_gib = KV_SOME_NUM(48); /* the CLI fills it from the GPU; unused with kv_cache_memory_gib */
    return s;
}

/* --max-model-len 2^63 - 1 that does not fit in 0.5 GiB: the search for the longest length
 * that fits must not overflow. Page 16 x 2 x 4 x 128 x 2 = 32,768 B; one group of 28 layers:
 * 917,504 B per block; 0.5 GiB = 536,870,912 B -> floor(585.1) = 585 blocks; a request of M
 * needs 28 x ceil(M / 16) x 32,768 B <= 536,870,912 -> ceil(M / 16) <= 585 -> M <= 9,360.
 * Blocks per request: ceil((2^63 - 1) / 16) = 2^59 = 576,460,752,303,423,488. */
static void max_model_len_int64_max(void **state)
{
    (void)state;
    static kv_result r;
    kv_spec s = vllm_spec();
    s.context = INT64_MAX;
    s.vllm.kv_cache_memory_gib = KV_SOME_NUM(0.5);
    assert_int_equal(vllm_compute(&s, &r), KV_OK);
    assert_false(r.vllm.fits);
    assert_int_equal(r.vllm.num_gpu_blocks, 585);
    assert_int_equal(r.vllm.blocks_per_request, INT64_C(576460752303423488));
    assert_int_equal(r.vllm.max_model_len_fit, 9360);
    /* the same through the program */
    GET("9360", "--engine", "vllm", "--max-model-len", "9223372036854775807",
        "--kv-cache-memory-gib", "0.5", "--get", "vllm_max_model_len_fit");

    /* one layer, chunked by 2^63 - 1 tokens: min(chunk + T, M) = M, so ceil((2^63 - 1) / 16)
     * = 2^59 blocks; the chunk + T sum must not overflow */
    s = vllm_spec();
    s.layers = 1;
    s.context = INT64_MAX;
    s.layout.pattern_len = 1;
    s.layout.pattern[0] = KV_LAYER_CHUNKED;
    s.layout.chunk = INT64_MAX;
    s.vllm.kv_cache_memory_gib = KV_SOME_NUM(0.5);
    assert_int_equal(vllm_compute(&s, &r), KV_OK);
    assert_int_equal(r.vllm.blocks_per_request, INT64_C(576460752303423488));
    /* page 16 x 2 x 4 x 128 x 2 = 32,768 B: 0.5 GiB / 32,768 = 16,384 blocks; the longest
     * length: ceil(M / 16) <= 16,384 -> M <= 262,144 */
    assert_int_equal(r.vllm.num_gpu_blocks, 16384);
    assert_int_equal(r.vllm.max_model_len_fit, 262144);
}

/* Counts beyond 2^63 - 1 are refused, never capped. */
static void counts_beyond_int64_are_refused(void **state)
{
    (void)state;
    static kv_result r;
    /* 1 layer, 1 KV head, head 1, fp8: page 16 x 2 x 1 x 1 x 1 = 32 B; 1e12 GiB =
     * 1,073,741,824,000,000,000,000 B / 32 = 33,554,432,000,000,000,000 blocks > 2^63 - 1 =
     * 9,223,372,036,854,775,807 */
    kv_spec s = vllm_spec();
    s.layers = 1;
    s.kv_heads = 1;
    s.head_dim = 1;
    s.dtype = KV_DTYPE_FP8;
    s.vllm.kv_cache_memory_gib = KV_SOME_NUM(1e12);
    assert_int_equal(vllm_compute(&s, &r), KV_ERR_RANGE);

    /* one sliding layer, window 2^63 - 1, block 1, M = 2^63 - 1: ceil(min(2^63 - 2 + 2,048,
     * M) / 1) + 1 = 2^63 blocks per request */
    s = vllm_spec();
    s.layers = 1;
    s.context = INT64_MAX;
    s.layout.pattern_len = 1;
    s.layout.pattern[0] = KV_LAYER_SLIDING;
    s.layout.window = INT64_MAX;
    s.vllm.block_size = KV_SOME_INT(1);
    s.vllm.kv_cache_memory_gib = KV_SOME_NUM(1);
    assert_int_equal(vllm_compute(&s, &r), KV_ERR_RANGE);
    /* the same window at M = 2^63 - 2: (2^63 - 2) + 1 = 2^63 - 1 blocks: exact, accepted */
    s.context = INT64_MAX - 1;
    assert_int_equal(vllm_compute(&s, &r), KV_OK);
    assert_int_equal(r.vllm.blocks_per_request, INT64_MAX);
    /* page 1 x 2,048 B: 1 GiB holds 524,288 blocks; ceil(M / 1) + 1 <= 524,288 -> M <= 524,287 */
    assert_int_equal(r.vllm.max_model_len_fit, 524287);

    /* GPU KV cache size, 0.11 era: (blocks // groups) x block size. 2^59 - 1 blocks x 16 =
     * 2^63 - 16 = 9,223,372,036,854,775,792 tokens: exact (a cap would say 9.2e18) ... */
    s = vllm_spec();
    s.vllm.kv_cache_memory_gib = KV_SOME_NUM(1);
    s.vllm.num_gpu_blocks_override = KV_SOME_INT((INT64_C(1) << 59) - 1);
    assert_int_equal(vllm_compute(&s, &r), KV_OK);
    assert_int_equal(r.vllm.gpu_kv_cache_tokens, INT64_C(9223372036854775792));
    /* ... 2^59 blocks x 16 = 2^63: refused */
    s.vllm.num_gpu_blocks_override = KV_SOME_INT(INT64_C(1) << 59);
    assert_int_equal(vllm_compute(&s, &r), KV_ERR_RANGE);
    /* 2026 era: tokens = blocks / per request x M = (2^62 / 256) x 4,096 = 2^66: refused */
    s.vllm.version = 2100;
    s.vllm.num_gpu_blocks_override = KV_SOME_INT(INT64_C(1) << 62);
    assert_int_equal(vllm_compute(&s, &r), KV_ERR_RANGE);

    kv_error e;
    kv_explain(&s, KV_ERR_RANGE, &e);
    assert_string_equal(e.msg, "the vLLM block or token count exceeds 2^63 - 1; kvcalc refuses "
                               "rather than cap it");
    /* the program: exit 2, the message naming --engine vllm, nothing on stdout */
    run_result out;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--layers", "1", "--kv-heads", "1",
                                     "--head-dim", "1", "--dtype", "fp8", "--kv-cache-memory-gib",
                                     "1e12", "--get", "num_gpu_blocks", NULL},
               &out);
    assert_int_equal(out.status, 2);
    assert_int_equal(out.out_len, 0);
    assert_string_equal(out.err, "kvcalc: --engine vllm: the vLLM block or token count exceeds "
                                 "2^63 - 1; kvcalc refuses rather than cap it\n"
                                 "Try 'kvcalc --help' for more information.\n");
    run_free(&out);
}

static void usage_errors(void **state)
{
    (void)state;
    static const char *const cases[][8] = {
        {"--block-size", "32"}, /* vLLM-only without --engine vllm */
        {"--engine", "nosuch"}, /* not an engine */
        {"--engine", "vllm", "--gpu-memory-utilization", "1.5"},
        {"--engine", "vllm", "--gpu-memory-utilization", "0"},
        {"--engine", "vllm", "--kv-cache-dtype", "int3"},
        {"--engine", "vllm", "--vllm-version", "1.0"},
        {"--engine", "vllm", "--block-size", "0"},
        {"--engine", "vllm", "--disable-hybrid-kv-cache-manager=yes"},
        {"--model", "llama-3.1-8b", "--tp", "3"},
        {"--tp", "0"},
        {"--engine", "vllm", "--vllm-use-v1", "0"}, /* V0 is gone from 0.11, the default */
        {"--engine", "vllm", "--vllm-use-v1", "1", "--vllm-version", "0.6"}, /* before V1 */
        {"--engine", "vllm", "--vllm-use-v1", "yes"},
        {"--engine", "vllm", "--swap-space", "-1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        run_kvcalc(cases[i], &r);
        assert_int_equal(r.status, 2);
        assert_int_equal(r.out_len, 0);
        assert_int_equal(count_lines(r.err), 2);
        run_free(&r);
    }
    run_result r;
    run_kvcalc((const char *const[]){"--model", "llama-3.1-8b", "--tp", "3", NULL}, &r);
    assert_string_equal(r.err, "kvcalc: --tp: 3 does not split 32 attention "
                               "heads and 8 KV heads (valid: 1 2 4 8 16 32)\n"
                               "Try 'kvcalc --help' for more information.\n");
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--vllm-use-v1", "0", NULL}, &r);
    assert_string_equal(r.err, "kvcalc: --vllm-use-v1: the V0 engine was removed in vLLM 0.11; "
                               "give --vllm-version 0.10 or earlier\n"
                               "Try 'kvcalc --help' for more information.\n");
    run_free(&r);
    run_kvcalc((const char *const[]){"--block-size", "32", NULL}, &r);
    assert_memory_equal(r.err, "kvcalc: --block-size: applies only with --engine vllm\n", 54);
    run_free(&r);
}

/* The --block-size values each release's command line accepts (src/engines/vllm.c,
 * block_sizes: argparse choices [8, 16, 32] to 0.6.3 and [8, 16, 32, 64, 128] from 0.6.4,
 * CacheConfig's BlockSize literal from 0.8.5 with 256 from 0.11, any positive size from
 * 0.18). Each row: a release, sizes it accepts, sizes it refuses. */
static void block_sizes_by_release(void **state)
{
    (void)state;
    static const struct {
        const char *version, *accepts[4], *refuses[4], *listed;
    } rows[] = {
        {"0.6.3", {"8", "16", "32"}, {"1", "64", "128", "256"}, "8, 16 or 32"},
        {"0.6.4", {"8", "64", "128"}, {"1", "256", "24", "4"}, "8, 16, 32, 64 or 128"},
        {"0.8.4", {"8", "16", "128"}, {"1", "256", "3", "48"}, "8, 16, 32, 64 or 128"},
        {"0.8.5", {"1", "8", "128"}, {"256", "3", "2", "512"}, "1, 8, 16, 32, 64 or 128"},
        {"0.10", {"1", "64", "128"}, {"256", "3", "544", "2096"}, "1, 8, 16, 32, 64 or 128"},
        {"0.11", {"1", "128", "256"}, {"3", "512", "544", "2096"},
         "1, 8, 16, 32, 64, 128 or 256"},
        {"0.17", {"1", "16", "256"}, {"3", "544", "2096", "17"},
         "1, 8, 16, 32, 64, 128 or 256"},
        {"0.18", {"3", "544", "2096", "17"}, {"0", "-16", NULL, NULL}, NULL},
        {"0.28", {"1", "3", "784", "100000"}, {"0", "-1", NULL, NULL}, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        for (size_t j = 0; j < 4 && rows[i].accepts[j]; j++) {
            run_result r;
            run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b",
                                             "--vllm-version", rows[i].version, "--block-size",
                                             rows[i].accepts[j], "--get", "block_size", NULL},
                       &r);
            char want[32];
            snprintf(want, sizeof want, "%s\n", rows[i].accepts[j]);
            if (r.status != 0 || strcmp(r.out, want) != 0)
                fail_msg("vLLM %s --block-size %s: exit %d, %s%s", rows[i].version,
                         rows[i].accepts[j], r.status, r.out, r.err);
            run_free(&r);
        }
        for (size_t j = 0; j < 4 && rows[i].refuses[j]; j++) {
            run_result r;
            run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b",
                                             "--vllm-version", rows[i].version, "--block-size",
                                             rows[i].refuses[j], NULL},
                       &r);
            assert_int_equal(r.status, 2);
            assert_int_equal(r.out_len, 0);
            assert_int_equal(count_lines(r.err), 2);
            assert_non_null(strstr(r.err, "kvcalc: --block-size: "));
            if (rows[i].listed && strstr(r.err, rows[i].listed) == NULL)
                fail_msg("vLLM %s --block-size %s: %s", rows[i].version, rows[i].refuses[j],
                         r.err);
            run_free(&r);
        }
    }
    /* the refusal in full, at the default release */
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--block-size", "3", NULL}, &r);
    assert_string_equal(r.err, "kvcalc: --block-size: vLLM 0.11 accepts 1, 8, 16, 32, 64, 128 "
                               "or 256 (any positive size from 0.18; --vllm-version)\n"
                               "Try 'kvcalc --help' for more information.\n");
    run_free(&r);
}

/* A number kvcalc prints for --get KEY with args (NULL-terminated, before --get). */

/* --cpu-offload-gb G (vllm/model_executor/offloader/uva.py, applied to the decoder layers by
 * make_layers): G GiB per GPU leave the GPU's weights for pinned host memory and the KV
 * budget grows by as much; the embeddings, head and final norm stay, so a G larger than the
 * layers moves the layers only. Llama-3.1-70B in bf16 by hand: 80 layers x 1,711,308,800 B
 * = 136,904,704,000 B of layers, 2 x 128,256 x 8,192 x 2 + 8,192 x 2 = 4,202,708,992 B that
 * stay, 141,107,412,992 B in all. vLLM's own GH200 test (PR #6496, Llama-3-70B, the same
 * shapes, 70 GiB offloaded) printed "Loading model weights took 61.2922 GB": kvcalc's G
 * exactly gives 61.42, vLLM moved whole parameters up to 0.13 GiB past G. */
static void cpu_offload(void **state)
{
    (void)state;
#define ARGS(...) ((const char *const[]){"--engine", "vllm", "--model", "llama-3.1-70b-instruct", \
                                         "--gpu", "gh200", __VA_ARGS__, NULL})
    double w0 = run_get("vllm_weights_bytes", ARGS("--cpu-offload-gb", "0"));
    double a0 = run_get("available_kv_bytes", ARGS("--cpu-offload-gb", "0"));
    assert_true(w0 == 141107412992.0);
    double w70 = run_get("vllm_weights_bytes", ARGS("--cpu-offload-gb", "70"));
    double a70 = run_get("available_kv_bytes", ARGS("--cpu-offload-gb", "70"));
    assert_true(w70 == 141107412992.0 - 70 * 1073741824.0);
    assert_true(fabs((a70 - a0) - 70 * 1073741824.0) < 1e-3);
    assert_true(fabs(w70 / (61.2922 * 1073741824.0) - 1) < 0.0025);
    assert_true(run_get("vllm_host_pinned_bytes", ARGS("--cpu-offload-gb", "70")) ==
                70 * 1073741824.0);
    assert_true(run_get("vllm_host_pinned_bytes", ARGS("--cpu-offload-gb", "20", "--tp", "2")) ==
                2 * 20 * 1073741824.0);
    /* more than the layers: the layers move, the rest stays */
    assert_true(run_get("vllm_weights_bytes", ARGS("--cpu-offload-gb", "1000000")) ==
                4202708992.0);
    assert_true(run_get("vllm_cpu_offload_bytes", ARGS("--cpu-offload-gb", "1000000")) ==
                136904704000.0);
    /* a measured weights figure is what stayed on the GPU: not reduced again */
    assert_true(run_get("vllm_weights_bytes",
                           ARGS("--cpu-offload-gb", "70", "--weights-gib", "61.2922")) ==
                61.2922 * 1073741824.0);
    assert_true(run_get("vllm_host_pinned_bytes",
                           ARGS("--cpu-offload-gb", "70", "--weights-gib", "61.2922")) ==
                70 * 1073741824.0);
    run_result r;
    run_kvcalc(ARGS("--cpu-offload-gb", "-1"), &r);
    assert_int_equal(r.status, 2);
    run_free(&r);
    run_kvcalc(ARGS("--cpu-offload-gb", "70"), &r);
    assert_non_null(strstr(r.out, "(--cpu-offload-gb 70: 70.00 GiB of the decoder layers' weights "
                                  "in pinned host memory per GPU, 70.00 GiB on the host in all; "
                                  "vLLM moves whole parameters, so up to one tensor more)\n"));
    run_free(&r);
    /* a log's non-default args give it as a setting */
    char path[] = "/tmp/kvcalc-offload-XXXXXX";
    write_temp(path, "INFO 10-06 17:00:00 [utils.py:1] non-default args: {'model': "
                     "'meta-llama/Llama-3.1-70B-Instruct', 'max_model_len': 8192, "
                     "'cpu_offload_gb': 70.0}\n"
                     "INFO 10-06 17:00:33 [gpu_worker.py:692] Available KV cache memory: 18.61 GiB\n");
    run_kvcalc((const char *const[]){"--from-log", path, "--gpu", "gh200", NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Logged: max_model_len 8192, cpu_offload_gb 70.\n"));
    run_free(&r);
    unlink(path);
#undef ARGS
}

/* --kv-offloading-size (CPUOffloadingSpec, vllm/v1/kv_offload/cpu/spec.py): blocks = size //
 * (page x the group's tensors x world size). Qwen3-8B at TP 2, by hand: a page is 16 tokens
 * x 4 KV heads x 128 x 2 (K, V) x 2 B = 32,768 B, x 36 layers x 2 ranks = 2,359,296 B a
 * block; 100 GiB // that = 45,511 blocks = 728,176 tokens. The GPU pool is unchanged. The
 * size alone is native from 0.15 (vllm#32421); the flags exist from 0.11.1 (#27621). */
static void kv_offloading(void **state)
{
    (void)state;
#define Q(...) ((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", \
                                      "--tp", "2", __VA_ARGS__, NULL})
#define N(...) Q("--vllm-version", "0.15", __VA_ARGS__)
    assert_true(run_get("vllm_kv_offload_blocks", N("--kv-offloading-size", "100")) == 45511);
    assert_true(run_get("vllm_kv_offload_tokens", N("--kv-offloading-size", "100")) == 728176);
    assert_true(run_get("vllm_kv_offload_block_tokens", N("--kv-offloading-size", "100")) == 16);
    assert_true(run_get("vllm_host_pinned_bytes", N("--kv-offloading-size", "100")) ==
                100 * 1073741824.0);
    assert_true(run_get("num_gpu_blocks", N("--kv-offloading-size", "100")) ==
                run_get("num_gpu_blocks", N("--kv-offloading-size", "0")));
    assert_true(run_get("max_concurrency", N("--kv-offloading-size", "100")) ==
                run_get("max_concurrency", N("--kv-offloading-size", "0")));
    /* 0.14 (#24498) takes native when it is named, and the same blocks */
    assert_true(run_get("vllm_kv_offload_blocks", Q("--vllm-version", "0.14", "--kv-offloading-size",
                                                    "100", "--kv-offloading-backend",
                                                    "native")) == 45511);
    /* LMCache's CPU backend (0.11.1-0.21): 50 GiB a rank = 53,687,091,200 B; a chunk is 256
     * tokens x 36 layers x 2 x 4 heads x 128 x 2 B = 18,874,368 B (a multiple of 4,096);
     * 53,687,091,200 // 18,874,368 = 2,844 chunks = 728,064 tokens, the whole 100 GiB pinned */
    assert_true(run_get("vllm_kv_offload_blocks", Q("--vllm-version", "0.13", "--kv-offloading-size",
                                                    "100", "--kv-offloading-backend",
                                                    "lmcache")) == 2844);
    assert_true(run_get("vllm_kv_offload_tokens", Q("--vllm-version", "0.13", "--kv-offloading-size",
                                                    "100", "--kv-offloading-backend",
                                                    "lmcache")) == 728064);
    assert_true(run_get("vllm_host_pinned_bytes", Q("--vllm-version", "0.21", "--kv-offloading-size",
                                                    "100", "--kv-offloading-backend",
                                                    "lmcache")) == 100 * 1073741824.0);
    /* refusals, each naming its flag: V0, before the flags, the size alone before 0.15, native
     * before 0.14 (vLLM's own words), LMCache's server from 0.22, a backend without a size
     * before 0.15, LMCache beside sliding layers */
    const struct {
        const char *const *argv;
        const char *says;
    } bad[] = {
        {Q("--kv-offloading-size", "100", "--vllm-use-v1", "0", "--vllm-version", "0.8"),
         "--kv-offloading-size: the KV offloading tier is V1's"},
        {Q("--kv-offloading-size", "100", "--vllm-version", "0.11"), "from 0.11.1 (vllm#27621)"},
        {Q("--kv-offloading-size", "100", "--vllm-version", "0.14"),
         "--kv-offloading-size: before 0.15 vLLM offloads only beside --kv-offloading-backend"},
        {Q("--kv-offloading-size", "100", "--vllm-version", "0.13", "--kv-offloading-backend",
           "native"),
         "\"num_cpu_blocks must be specified in kv_connector_extra_config\""},
        {Q("--kv-offloading-size", "100", "--vllm-version", "0.22", "--kv-offloading-backend",
           "lmcache"),
         "LMCacheMPConnector"},
        {Q("--vllm-version", "0.12", "--kv-offloading-backend", "lmcache"),
         "\"You must set kv_offloading_size when kv_offloading_backend is set.\""},
        {Q("--model", "gemma-3-27b-it", "--vllm-version", "0.13", "--kv-offloading-size", "10",
           "--kv-offloading-backend", "lmcache"),
         "--disable-hybrid-kv-cache-manager"},
        {Q("--kv-offloading-size", "100", "--kv-offloading-backend", "disk"),
         "--kv-offloading-backend"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_result r;
        run_kvcalc(bad[i].argv, &r);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        if (!strstr(r.err, bad[i].says))
            fail_msg("case %zu: %s", i, r.err);
        run_free(&r);
    }
    /* from 0.15 a backend without a size does nothing, as in vLLM */
    assert_true(run_get("vllm_host_pinned_bytes", N("--kv-offloading-backend", "lmcache")) == 0);
#undef N
#undef Q
}

/* The CUDA graphs vLLM's profile captures, against the "Profiling CUDA graph memory" lines
 * of real public logs (code-index files; /work notes of issue 20), each with its own
 * max_num_seqs N, max_num_batched_tokens T, draft tokens K and max_cudagraph_capture_size:
 *   - gemma-4 + EAGLE-3, v0.19.2rc1, N 2, K 3 (52101499359): M = min(2 x 4 x 2, 512) = 16,
 *     [1, 2, 4, 8, 16] rounded up to multiples of 4: PIECEWISE=3 (largest=16), FULL=2
 *     (largest=8), the sizes in [4, 4 x 2];
 *   - Qwen3-0.6B, v0.19.1, N 256 (54318626907): PIECEWISE=51 (largest=512), FULL=35
 *     (largest=256);
 *   - Qwen3.6-35B-A3B, v0.20.0, N 4, max 4, T 4096 (51995050688): 3 (4), 3 (4);
 *   - Qwen3.6-35B-A3B + DFlash, v0.22.0, N 8, K 6, T 32768 (56878676544): M = 112, multiples
 *     of 7: PIECEWISE=15 (largest=112), FULL=8 (largest=56);
 *   - Qwen3.6-35B-A3B, v0.20.0, N 1, max 1 (51912001300): 1 (1), 1 (1).
 * And by hand: T = 300 <= M closes the list from 0.21 (#40734): 3 + 31 + 3 (256, 272, 288) + 1
 * = 38; before, 37. gpt-oss's 1024: 3 + 31 + 49 = 83. LoRA doubles each list ([0, max_loras +
 * 1]); --enforce-eager and releases before 0.13 count none. */
static void cuda_graph_counts(void **state)
{
    (void)state;
#define G(...) ((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", \
                                      __VA_ARGS__, NULL})
    static const struct {
        const char *version, *seqs, *tokens, *spec, *max;
        int64_t pw, pw_largest, full, full_largest;
    } logs[] = {
        {"0.19", "2", "8192", "3", NULL, 3, 16, 2, 8},
        {"0.19", "256", "8192", "0", NULL, 51, 512, 35, 256},
        {"0.20", "4", "4096", "0", "4", 3, 4, 3, 4},
        {"0.22", "8", "32768", "6", NULL, 15, 112, 8, 56},
        {"0.20", "1", "8192", "0", "1", 1, 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        const char *const *argv =
            logs[i].max ? G("--vllm-version", logs[i].version, "--max-num-seqs", logs[i].seqs,
                            "--max-num-batched-tokens", logs[i].tokens,
                            "--num-speculative-tokens", logs[i].spec,
                            "--max-cudagraph-capture-size", logs[i].max)
                        : G("--vllm-version", logs[i].version, "--max-num-seqs", logs[i].seqs,
                            "--max-num-batched-tokens", logs[i].tokens,
                            "--num-speculative-tokens", logs[i].spec);
        assert_true(run_get("vllm_piecewise_graphs", argv) == (double)logs[i].pw);
        assert_true(run_get("vllm_piecewise_largest", argv) == (double)logs[i].pw_largest);
        assert_true(run_get("vllm_full_graphs", argv) == (double)logs[i].full);
        assert_true(run_get("vllm_full_largest", argv) == (double)logs[i].full_largest);
    }
    assert_true(run_get("vllm_piecewise_graphs", G("--vllm-version", "0.21", "--max-num-seqs", "512",
                                                   "--max-num-batched-tokens", "300")) == 38);
    assert_true(run_get("vllm_piecewise_largest", G("--vllm-version", "0.21", "--max-num-seqs", "512",
                                                    "--max-num-batched-tokens", "300")) == 300);
    assert_true(run_get("vllm_piecewise_graphs", G("--vllm-version", "0.20", "--max-num-seqs", "512",
                                                   "--max-num-batched-tokens", "300")) == 37);
    assert_true(run_get("vllm_piecewise_graphs", G("--vllm-version", "0.21", "--model",
                                                   "gpt-oss-120b")) == 83);
    assert_true(run_get("vllm_piecewise_graphs", G("--vllm-version", "0.21", "--enable-lora")) ==
                2 * run_get("vllm_piecewise_graphs", G("--vllm-version", "0.21")));
    assert_true(run_get("vllm_piecewise_graphs", G("--vllm-version", "0.21", "--enforce-eager")) == 0);
    assert_true(run_get("vllm_piecewise_graphs", G("--vllm-version", "0.12")) == 0);
    /* FlashInfer under speculative decoding: PIECEWISE only, not rounded (Qwen3.6-35B-A3B +
     * MTP K 2, N 5, v0.22.1rc1, 'attention_backend': 'flashinfer' (56970046574): [1, 2, 4, 8,
     * 16, 24], "PIECEWISE=6 (largest=24)"; on a GB10 with max 1 (52009230863): "PIECEWISE=1
     * (largest=1)") */
#define FI(...) G("--vllm-version", "0.22", "--num-speculative-tokens", "2", "--attention-backend", \
                  "flashinfer", __VA_ARGS__)
    /* the defaults on an H100 (docs/cuda-graphs.md, README): max_num_seqs 1,024, so M =
     * min(1,024 x 2, 512) = 512: [1, 2, 4] + 8..248 by 8 (31) + 256..512 by 16 (17) = 51 in
     * each mode; --cuda-graph-gib 1.2 takes 1.2 GiB of the budget instead of 0.5 */
    assert_true(run_get("vllm_piecewise_graphs", G("--vllm-version", "0.22")) == 51);
    assert_true(run_get("vllm_full_graphs", G("--vllm-version", "0.22")) == 51);
    assert_true(run_get("vllm_piecewise_largest", G("--vllm-version", "0.22")) == 512);
    assert_true(run_get("vllm_cuda_graph_bytes", G("--vllm-version", "0.22", "--cuda-graph-gib",
                                                   "1.2")) == 1.2 * 1073741824.0);
    assert_true(run_get("vllm_piecewise_graphs", FI("--max-num-seqs", "5")) == 6);
    assert_true(run_get("vllm_piecewise_largest", FI("--max-num-seqs", "5")) == 24);
    assert_true(run_get("vllm_full_graphs", FI("--max-num-seqs", "5")) == 0);
    assert_true(run_get("vllm_piecewise_graphs", FI("--max-num-seqs", "8",
                                                    "--max-cudagraph-capture-size", "1")) == 1);
#undef FI
    /* without draft tokens FlashInfer keeps its full decode graphs */
    assert_true(run_get("vllm_full_graphs", G("--vllm-version", "0.22", "--attention-backend",
                                              "FLASHINFER", "--max-num-seqs", "4",
                                              "--max-cudagraph-capture-size", "4")) == 3);
#undef G
}

/* --enable-lora on MoE models (FusedMoEWithLoRA, vllm/lora/layers/fused_moe.py @ 28be48fa):
 * per slot and expert w13 A = r x H and B = I/tp x r for gate and up, w2 A = r x I/tp and
 * B = H x r; the router (ReplicatedLinear) A = r x H, B = E x r, whole on every GPU.
 * Qwen3-30B-A3B (H 2,048, 32 q / 4 kv heads of 128, 128 experts of 768, 48 layers), TP 1:
 * attention (2,048 + 4,096) + 2 (2,048 + 512) + (4,096 + 2,048) = 17,408; experts 128 x
 * (2 (2,048 + 768) + 768 + 2,048) = 1,081,344; router 2,048 + 128 = 2,176; 1,100,928 x 48 x
 * 16 x 2 B = 1,691,025,408 B (1.57 GiB a slot at rank 16). TP 2 fully sharded: H halves in
 * every term but the router's: 8,704 + 128 x (2 (1,024 + 384) + 384 + 1,024) + 2,176 =
 * 551,552 -> 847,183,872 B. gpt-oss-20b (H 2,880, 64 / 8 heads of 64, 32 experts of 2,880,
 * 24 layers; experts stored fused: FusedMoE3DWithLoRA, one A of r x H and one B of 2 I x r):
 * 20,736 + 32 x (2,880 + 5,760 + 2,880 + 2,880) + (2,880 + 32) = 484,448 -> 372,056,064 B. */
static void lora_buffers_moe(void **state)
{
    (void)state;
#define M(model, ...) ((const char *const[]){"--engine", "vllm", "--model", model, "--gpu", "h100", \
                                             "--enable-lora", __VA_ARGS__, NULL})
    assert_true(run_get("vllm_lora_bytes", M("qwen3-30b-a3b", "--vllm-version", "0.11.1")) ==
                1691025408.0);
    assert_true(run_get("vllm_lora_bytes", M("qwen3-30b-a3b", "--vllm-version", "0.12", "--tp",
                                             "2", "--fully-sharded-loras")) == 847183872.0);
    assert_true(run_get("vllm_lora_bytes", M("gpt-oss-20b", "--vllm-version", "0.12")) ==
                372056064.0);
    /* inside "Model loading took" */
    assert_true(run_get("vllm_weights_bytes", M("qwen3-30b-a3b", "--vllm-version", "0.12")) -
                    run_get("vllm_weights_bytes",
                            ((const char *const[]){"--engine", "vllm", "--model", "qwen3-30b-a3b",
                                                   "--gpu", "h100", "--vllm-version", "0.12",
                                                   NULL})) ==
                1691025408.0);
    /* each release's refusals, in vLLM's words where it has them; a model whose layers are
     * all MoE splits across pipeline stages */
    static const struct {
        const char *model, *version, *flag, *says;
    } cases[] = {
        {"qwen3-30b-a3b", "0.11", "--tp=1", "does not support fused MoE LoRA inference"},
        {"gpt-oss-20b", "0.11.1", "--tp=1", "FusedMoE3DWithLoRA, from 0.12"},
        {"qwen3-30b-a3b", "0.11.1", "--fully-sharded-loras", "from 0.12"},
        {"qwen3-30b-a3b", "0.22", "--enable-expert-parallel", "EP support for Fused MoE"},
        {"qwen3-30b-a3b", "0.22", "--pp=2", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        run_kvcalc(M(cases[i].model, "--vllm-version", cases[i].version, "--tp", "2",
                     cases[i].flag),
                   &r);
        assert_int_equal(r.status, cases[i].says ? 2 : 0);
        if (cases[i].says)
            assert_non_null(strstr(r.err, cases[i].says));
        run_free(&r);
    }
    run_result r;
    run_kvcalc(M("qwen3-30b-a3b", "--vllm-version", "0.12"), &r);
    assert_non_null(strstr(r.out, "1.57 GiB of LoRA buffers in every q/k/v/o/gate/up/down, every "
                                  "expert's and the routers, inside the weights)\n"));
    run_free(&r);
#undef M
}

/* --enable-lora (create_lora_weights, vllm/lora/layers/base_linear.py): a layer costs
 * max_loras x rank x 2 B x the sum over its slices of (in + out). Llama-3.1-8B by hand, TP 1:
 * (4,096 + 4,096) + 2 (4,096 + 1,024) + (4,096 + 4,096) + 2 (4,096 + 14,336) + (14,336 +
 * 4,096) = 81,920, x 32 layers x 16 x 2 B = 83,886,080 B (80 MiB a slot; 4 slots of rank 64:
 * 1.25 GiB, as deployment-options.md works it); TP 2: 55,296 -> 56,623,104 B; fully sharded
 * every term halves: 40,960 -> 41,943,040 B. Inside V1's weights, outside V0's. */
static void lora_buffers(void **state)
{
    (void)state;
#define L(...) ((const char *const[]){"--engine", "vllm", "--model", "llama-3.1-8b-instruct", \
                                      "--gpu", "h100", __VA_ARGS__, NULL})
    assert_true(run_get("vllm_lora_bytes", L("--enable-lora")) == 83886080.0);
    assert_true(run_get("vllm_weights_bytes", L("--enable-lora")) -
                    run_get("vllm_weights_bytes", L("--max-loras", "1")) ==
                83886080.0);
    assert_true(run_get("vllm_lora_bytes",
                           L("--enable-lora", "--max-loras", "4", "--max-lora-rank", "64")) ==
                1342177280.0);
    assert_true(run_get("vllm_lora_bytes", L("--enable-lora", "--tp", "2")) == 56623104.0);
    assert_true(run_get("vllm_lora_bytes", L("--enable-lora", "--tp", "2", "--fully-sharded-loras")) ==
                41943040.0);
    assert_true(run_get("vllm_lora_bytes", L("--max-loras", "4")) == 0); /* not enabled */
    /* V0 sized its blocks without them */
    assert_true(run_get("vllm_weights_bytes", L("--enable-lora", "--vllm-version", "0.8",
                                                   "--vllm-use-v1", "0")) ==
                run_get("vllm_weights_bytes", L("--vllm-version", "0.8", "--vllm-use-v1", "0")));
    run_result r;
    run_kvcalc(L("--enable-lora", "--max-lora-rank", "48"), &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "1, 8, 16, 32, 64, 128, 256, 320 or 512"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "deepseek-v3", "--gpu", "h100",
                                     "--enable-lora", NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "not MLA attention"));
    run_free(&r);
    run_kvcalc(L("--enable-lora"), &r);
    assert_non_null(strstr(r.out, "(--enable-lora: 1 adapter of rank 16, 0.08 GiB of LoRA buffers "
                                  "in every q/k/v/o/gate/up/down, inside the weights)\n"));
    run_free(&r);
#undef L
}

/* Speculative decoding with a separate draft (vllm/config/speculative.py,
 * v1/spec_decode/draft_model.py, v1/core/kv_cache_utils.py @ 28be48fa9). By hand:
 * - Qwen3-8B + Qwen3-0.6B: both layers are 8 KV heads of 128 in bf16, 4,096 B a token, so
 *   the draft's 28 layers join the target's 36 in one group: 16 x 4,096 x 64 = 4,194,304 B a
 *   block, 40 GiB / that = 10,240 blocks (18,204 without the draft: 40 GiB / 2,359,296 B);
 *   a 32,768-token request takes 2,048 blocks: 5.00x (its 4 lookahead slots stop at
 *   max_model_len, kv_cache_manager.py allocate_slots: no block more).
 * - Llama-3.1-70B + Llama-3.2-1B at TP 2: the target's layer 2 x 4 x 128 x 2 = 2,048 B a
 *   token, the draft's 2 x 4 x 64 x 2 = 1,024 B: one group of both pages
 *   (UniformTypeKVCacheSpecs), 16 x (80 x 2,048 + 16 x 1,024) = 2,883,584 B a block, 20 GiB /
 *   that = 7,447 blocks.
 * The draft's weights are its own model's, split by its TP (a draft_model shares nothing). */
static void speculative_draft_model(void **state)
{
    (void)state;
#define Q(...) ((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100", \
                                      "--vllm-version", "0.20", "--context", "32768",          \
                                      __VA_ARGS__, NULL})
    const char *draft[] = {"--draft-model", "qwen3-0.6b", "--num-speculative-tokens", "4"};
    assert_true(run_get("num_gpu_blocks", Q(draft[0], draft[1], draft[2], draft[3],
                                               "--kv-cache-memory-gib", "40")) == 10240);
    assert_true(run_get("num_gpu_blocks", Q("--kv-cache-memory-gib", "40")) == 18204);
    assert_true(run_get("vllm_max_concurrency", Q(draft[0], draft[1], draft[2], draft[3],
                                                     "--kv-cache-memory-gib", "40")) == 5.0);
    assert_true(run_get("vllm_draft_layers", Q(draft[0], draft[1], draft[2], draft[3])) == 28);
    /* a preset's weights are the estimate's, and JSON says so */
    EXPECT_STDOUT("true\n", "--engine", "vllm", "--model", "qwen3-8b", "--vllm-version", "0.20",
                  "--draft-model", "qwen3-0.6b", "--num-speculative-tokens", "4", "--get",
                  "vllm_draft_weights_estimated");
    assert_true(run_get("vllm_draft_kv_token_bytes", Q(draft[0], draft[1], draft[2], draft[3])) ==
                28 * 4096);
    /* the draft's weights are the 0.6B model's own, inside "Model loading took" */
    double own = run_get("weights_bytes", (const char *const[]){"--model", "qwen3-0.6b", NULL});
    assert_true(run_get("vllm_draft_weights_bytes", Q(draft[0], draft[1], draft[2], draft[3])) == own);
    assert_true(run_get("vllm_weights_bytes", Q(draft[0], draft[1], draft[2], draft[3])) -
                    run_get("vllm_weights_bytes", Q("--max-num-seqs", "1024")) == own);
    assert_true(run_get("vllm_draft_weights_bytes",
                           Q(draft[0], draft[1], draft[2], draft[3], "--tp", "2")) == own / 2);
    /* a real start: "Reproduction Report: NeMo-RL v0.5.0 + vLLM Speculative Decoding with
     * Draft Models" (2026-02-10; a public report found in the code index, its repository
     * not named there) ran Qwen/Qwen3-4B with speculative_config method draft_model, model
     * Qwen/Qwen3-0.6B, num_speculative_tokens 5, TP 1 on an H20 (vLLM 0.14.0rc2.dev156, the
     * merge of #24322) and logged "Model loading took 8.67 GiB memory": both models' weights
     * in the one line. kvcalc: 7.49 + 1.11 = 8.60 GiB (the target alone would be 1.18 GiB
     * off) */
    double took = run_get("vllm_weights_bytes",
                             (const char *const[]){"--engine", "vllm", "--vllm-version", "0.15",
                                                   "--model", "qwen3-4b-instruct-2507", "--gpu",
                                                   "h20", "--context", "2048",
                                                   "--gpu-memory-utilization", "0.85",
                                                   "--speculative-config",
                                                   "{\"method\": \"draft_model\", \"model\": "
                                                   "\"qwen3-0.6b\", \"num_speculative_tokens\": 5, "
                                                   "\"draft_tensor_parallel_size\": 1}",
                                                   NULL}) / 1073741824.0;
    assert_true(fabs(took - 8.67) < 0.1);
    /* what speculation costs: the run without it, the same settings otherwise */
    assert_true(run_get("vllm_no_spec_concurrency", Q(draft[0], draft[1], draft[2], draft[3])) ==
                run_get("vllm_max_concurrency", Q("--max-num-seqs", "1024")));
    /* the JSON vLLM takes says the same */
    assert_true(run_get("num_gpu_blocks",
                           Q("--speculative-config",
                             "{\"method\": \"draft_model\", \"model\": \"qwen3-0.6b\", "
                             "\"num_speculative_tokens\": 4, \"prompt_lookup_max\": null}",
                             "--kv-cache-memory-gib", "40")) == 10240);
    /* n-gram: no weights, no cache; the pool unchanged */
    assert_true(run_get("num_gpu_blocks", Q("--speculative-method", "ngram",
                                               "--num-speculative-tokens", "4")) ==
                run_get("num_gpu_blocks", Q("--max-num-seqs", "1024")));
#undef Q
    /* two page sizes in one group */
    assert_true(run_get("num_gpu_blocks",
                           (const char *const[]){"--engine", "vllm", "--model",
                                                 "llama-3.1-70b-instruct", "--tp", "2",
                                                 "--vllm-version", "0.20", "--draft-model",
                                                 "llama-3.2-1b-instruct",
                                                 "--num-speculative-tokens", "4",
                                                 "--kv-cache-memory-gib", "20", NULL}) == 7447);
    /* refusals, in vLLM's words where it has them */
    static const struct {
        const char *args[14];
        const char *says;
    } refused[] = {
        {{"--model", "llama-3.1-70b-instruct", "--tp", "2", "--draft-model", "llama-3.2-1b-instruct",
          "--num-speculative-tokens", "4", "--speculative-draft-tensor-parallel-size", "1"},
         "\"Currently, 'draft_tensor_parallel_size' and 'tensor_parallel_size' must be the same. "
         "Got 1 and 2.\""},
        {{"--model", "llama-3.1-70b-instruct", "--tp", "2", "--draft-model", "llama-3.2-1b-instruct",
          "--num-speculative-tokens", "4", "--speculative-draft-tensor-parallel-size", "3"},
         "cannot be other value than 1 or target model tensor_parallel_size"},
        {{"--model", "qwen3-8b", "--draft-model", "qwen3-0.6b", "--num-speculative-tokens", "4",
          "--vllm-version", "0.14"},
         "from vLLM 0.15 (vllm#24322"},
        {{"--model", "qwen3-8b", "--draft-model", "llama-3.2-1b-instruct",
          "--num-speculative-tokens", "4", "--vllm-version", "0.20"},
         "the draft's vocabulary (128256) is not the target's (151936)"},
        {{"--model", "qwen3-8b", "--draft-model", "qwen3-0.6b", "--vllm-version", "0.20"},
         "`num_speculative_tokens` was not provided"},
        {{"--model", "qwen3-8b", "--draft-model", "gemma-2-9b-it", "--num-speculative-tokens", "4"},
         "has sliding-window layers"},
        {{"--model", "qwen3-8b", "--speculative-method", "eagle3", "--num-speculative-tokens", "4"},
         "method eagle3 needs its model"},
        {{"--model", "qwen3-8b", "--speculative-config", "{\"method\": \"ngram\", "
          "\"quantization\": \"fp8\"}"},
         "--speculative-config: kvcalc does not read the key 'quantization'"},
        {{"--model", "qwen3-8b", "--speculative-method", "medusa", "--num-speculative-tokens", "4"},
         "kvcalc does not count Medusa heads"},
        /* an EAGLE head runs at the target's TP, but the value is checked all the same */
        {{"--model", "qwen3-8b", "--speculative-method", "eagle3", "--num-speculative-tokens", "4",
          "--draft-model", "qwen3-0.6b", "--speculative-draft-tensor-parallel-size", "2"},
         "cannot be other value than 1 or target model tensor_parallel_size"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *argv[20] = {"--engine", "vllm"};
        size_t n = 2;
        for (size_t k = 0; refused[i].args[k]; k++)
            argv[n++] = refused[i].args[k];
        expect_refused(argv, refused[i].says);
    }
    /* an engine that takes no draft model says which do */
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "ollama", "--model", "qwen3-8b", "-md",
                                     "qwen3-0.6b", NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "-md: kvcalc sizes a draft model with --engine vllm, "
                                  "sglang, trtllm, llama.cpp\n"));
    run_free(&r);
}

/* Model Runner V2 by release (vllm/config/vllm.py use_v2_model_runner @ 28be48fa, #39337,
 * #43458, #44443; MRv2's profile_cudagraph_memory returns 0 until #53306 in 0.29): the
 * budget subtracts 0 for the models it runs by default and 0.5 GiB (536,870,912 B, kvcalc's
 * labelled estimate of V1's measurement) for the others. */
static void model_runner_v2_graphs(void **state)
{
    (void)state;
    static const struct {
        const char *model, *version;
        const char *bytes;
    } cases[] = {
        {"qwen3-8b", "0.21", "536870912"},              /* before #39337 */
        {"qwen3-8b", "0.22", "0"},                      /* Qwen3 dense */
        {"qwen3-8b", "0.28", "0"},
        {"qwen3-8b", "0.29", "536870912"},              /* MRv2's own estimate */
        {"llama-3.1-8b-instruct", "0.22", "536870912"}, /* Llama from 0.23 */
        {"llama-3.1-8b-instruct", "0.23", "0"},
        {"qwen3-32b-fp8", "0.23", "536870912"},         /* quantized from 0.24 */
        {"qwen3-32b-fp8", "0.24", "0"},
        {"gemma-3-27b-it", "0.24", "536870912"},        /* every dense model from 0.25 */
        {"gemma-3-27b-it", "0.25", "0"},
        {"qwen3-30b-a3b", "0.25", "536870912"},         /* MoE: V1's estimate */
        {"qwen3.5-9b", "0.25", "536870912"},            /* state layers: V1 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        run_kvcalc((const char *const[]){"--engine", "vllm", "--model", cases[i].model, "--gpu",
                                         "h100", "--vllm-version", cases[i].version, "--get",
                                         "vllm_cuda_graph_bytes", NULL}, &r);
        assert_int_equal(r.status, 0);
        char want[32];
        snprintf(want, sizeof want, "%s\n", cases[i].bytes);
        if (strcmp(r.out, want) != 0)
            fail_msg("%s at %s: %s, want %s", cases[i].model, cases[i].version, r.out, want);
        run_free(&r);
    }
    run_result r;
    /* n-gram drafting is not MRv2's: V1 and its estimate; EAGLE stays on MRv2 */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--vllm-version", "0.25", "--speculative-config",
                                     "{\"method\": \"ngram\", \"num_speculative_tokens\": 4, "
                                     "\"prompt_lookup_max\": 4}",
                                     "--get", "vllm_model_runner_v2", NULL}, &r);
    assert_string_equal(r.out, "false\n");
    run_free(&r);
    /* two MoE architectures join at 0.24 (#42667): Qwen3-30B-A3B's config under Qwen2-MoE's
     * name (the rule reads architectures[0] only) */
    FILE *in = fopen(KVCALC_SOURCE_DIR "/data/models/Qwen__Qwen3-30B-A3B.json", "rb");
    assert_non_null(in);
    static char cfg[1 << 16];
    size_t n = fread(cfg, 1, sizeof cfg - 1, in);
    fclose(in);
    cfg[n] = '\0';
    char *at = strstr(cfg, "Qwen3MoeForCausalLM");
    assert_non_null(at);
    at[4] = '2'; /* Qwen2MoeForCausalLM */
    char path[512];
    snprintf(path, sizeof path, "%s/qwen2moe-name.json", KVCALC_BINARY_DIR);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    fwrite(cfg, 1, n, out);
    fclose(out);
    static const char *const versions[] = {"0.23", "0.24", "0.28", "0.29"};
    static const char *const want[] = {"536870912\n", "0\n", "0\n", "536870912\n"};
    for (int i = 0; i < 4; i++) {
        run_kvcalc((const char *const[]){"--engine", "vllm", "--config", path, "--gpu", "h100",
                                         "--vllm-version", versions[i], "--get",
                                         "vllm_cuda_graph_bytes", NULL}, &r);
        assert_string_equal(r.out, want[i]);
        run_free(&r);
    }
    remove(path);
    /* VLLM_USE_V2_MODEL_RUNNER wins over the oracle, both ways; V0 has no such runner */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-30b-a3b", "--gpu",
                                     "h100", "--vllm-version", "0.25", "--vllm-use-v2-model-runner",
                                     "1", "--get", "vllm_cuda_graph_bytes", NULL}, &r);
    assert_string_equal(r.out, "0\n");
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--vllm-version", "0.25", "--vllm-use-v2-model-runner", "0",
                                     "--get", "vllm_cuda_graph_bytes", NULL}, &r);
    assert_string_equal(r.out, "536870912\n");
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--vllm-version",
                                     "0.8", "--vllm-use-v1", "0", "--vllm-use-v2-model-runner", "1",
                                     NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "kvcalc: --vllm-use-v2-model-runner: applies to the V1 engine"));
    run_free(&r);
    /* 0.29: MRv2 for every model, with its own estimate */
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-30b-a3b", "--gpu",
                                     "h100", "--vllm-version", "0.29", "--get",
                                     "vllm_model_runner_v2", NULL}, &r);
    assert_string_equal(r.out, "true\n");
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--vllm-version", "0.22", NULL}, &r);
    assert_non_null(strstr(r.out, "            - CUDA graphs 0.00 GiB (Model Runner V2, this "
                                  "release's default for the model: its estimate is 0, its "
                                  "graphs come out of the headroom)\n"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model_runner_v2_graphs),
        cmocka_unit_test(block_counts_within_log_rounding),
        cmocka_unit_test(startup_lines_match_the_log),
        cmocka_unit_test(gemma_padding_warning),
        cmocka_unit_test(hybrid_block_sizes),
        cmocka_unit_test(hybrid_align_mode),
        cmocka_unit_test(budget_from_the_gpu),
        cmocka_unit_test(layouts_and_dtypes),
        cmocka_unit_test(request_that_does_not_fit),
        cmocka_unit_test(usage_errors),
        cmocka_unit_test(block_sizes_by_release),
        cmocka_unit_test(cpu_offload),
        cmocka_unit_test(kv_offloading),
        cmocka_unit_test(cuda_graph_counts),
        cmocka_unit_test(lora_buffers),
        cmocka_unit_test(lora_buffers_moe),
        cmocka_unit_test(speculative_draft_model),
        cmocka_unit_test(v0_cpu_blocks_match_the_logs),
        cmocka_unit_test(v0_lines_in_vllms_words),
        cmocka_unit_test(blocks_per_token_eras),
        cmocka_unit_test(v0_defaults),
        cmocka_unit_test(encoder_profile),
        cmocka_unit_test(max_model_len_int64_max),
        cmocka_unit_test(counts_beyond_int64_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
