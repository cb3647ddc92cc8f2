/*
 * test_sglang.c - --engine sglang: the version rule of mem_fraction_static, the version
 * spelling, estimates without a log, and the pool's arithmetic (fp8, MLA, pages, refusal).
 * The real start-up logs are checked row by row in test_ground_truth.c; the figures here
 * come from docs/sglang.md's worked examples or from hand arithmetic written beside them.
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

#define KVCALC_ENGINES
#include "kvcalc.h"
#include "run.h"

static int version(const char *text)
{
    int v = -1;
    assert_int_equal(kv_sglang_version_parse(text, &v), 0);
    return v;
}

/* Releases order as SGLang ships them: rc before the release, .post after it. */
static void versions_order_and_round_trip(void **state)
{
    (void)state;
    assert_true(version("0.5.3rc0") < version("0.5.3rc2"));
    assert_true(version("0.5.3rc2") < version("0.5.3"));
    assert_true(version("0.5.3") < version("0.5.3.post1"));
    assert_true(version("0.4.9.post2") < version("0.4.10"));
    assert_int_equal(version("0.4.6"), version("v0.4.6"));
    assert_int_equal(version("0.5"), version("0.5.0"));
    static const char *const spellings[] = {"0.4.3.post4", "0.5.3rc2", "0.4.6", "0.3.0"};
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        char buf[32];
        kv_sglang_version_format(version(spellings[i]), buf, sizeof buf);
        assert_string_equal(buf, spellings[i]);
    }
    static const char *const bad[] = {"", "0", "0.4.3.post", "0.4.3post1", "abc", "0.4.x",
                                      "0.4.3.4", "0.4.3rc40", "100.0.0", "0.4.3.post1 "};
    int v;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(kv_sglang_version_parse(bad[i], &v), -1);
}

static double fraction(const char *v, double mib, int64_t tp, int vision)
{
    return kv_sglang_default_fraction(version(v), mib, tp, vision, 0, 0);
}

/* docs/sglang.md section 3, era by era. */
static void default_fraction_by_version(void **state)
{
    (void)state;
    /* by TP only up to 0.4.5.post2 (0.83 at TP8 in 0.3.x) */
    assert_true(fraction("0.4.1.post7", 81559, 1, 0) == 0.88);
    assert_true(fraction("0.4.1.post7", 81559, 2, 0) == 0.87);
    assert_true(fraction("0.4.1.post7", 81559, 4, 0) == 0.85);
    assert_true(fraction("0.4.1.post7", 81559, 8, 0) == 0.81);
    assert_true(fraction("0.3.0", 81559, 8, 0) == 0.83);
    assert_true(fraction("0.4.1.post7", 81559, 16, 0) == 0.79);
    /* 0.4.6 on an H200 (143,771 MiB, above 81,920): (143,771 - 13 x 1,024) / 143,771 */
    assert_true(fraction("0.4.6", 143771, 1, 0) == (143771.0 - 13 * 1024) / 143771.0);
    /* 0.4.7 on an H200: min(0.88 + 48 x 1,024 x 0.12 / 143,771 = 0.9210,
     * (143,771 - 18 x 1,024) / 143,771 = 0.8718) */
    assert_true(fabs(fraction("0.4.7", 143771, 1, 0) - 0.8717961202189594) < 1e-12);
    /* 0.4.7 on a B200-class card above 180,000 MiB: 0.79 */
    assert_true(fraction("0.4.7", 183359, 1, 0) == 0.79);
    /* 0.4.7.post1 to 0.5.3rc0, a 24 GiB card: reserve (2.8 + 0.1) x 1,024 = 2,969.6 MiB,
     * round((24,576 - 2,969.6) / 24,576, 3) = 0.879 (the S03 log) */
    assert_true(fraction("0.4.9.post2", 24576, 1, 0) == 0.879);
    /* an H100 at TP2: reserve (9.5 + 1) x 1,024 = 10,752; round(70,807 / 81,559, 3) = 0.868 */
    assert_true(fraction("0.5.3rc0", 81559, 2, 0) == 0.868);
    /* 0.5.3rc2 and later, H100 TP1: 512 + 8,192 x 1.5 + 256 x 2 + 128 = 13,440 MiB,
     * round(68,119 / 81,559, 3) = 0.835 (docs/sglang.md's example) */
    assert_true(fraction("0.5.6", 81559, 1, 0) == 0.835);
    /* the user's chunked prefill changes it: 512 + 16,384 x 1.5 + 512 + 128 = 25,728 MiB,
     * round(55,831 / 81,559, 3) = 0.685 */
    assert_true(kv_sglang_default_fraction(version("0.5.6"), 81559, 1, 0, 16384, 0) == 0.685);
    /* 0.5.10: the piecewise CUDA graph (#16331), 8 MiB a captured size up to chunked 8,192:
     * 8 + 14 + 8 + 8 + 12 sizes to 4,096, then 4,608 .. 8,192 by 512 (8): 58 x 8 = 464 MiB;
     * 13,440 + 464 = 13,904, round(67,655 / 81,559, 3) = 0.830 */
    assert_true(fraction("0.5.10rc0", 81559, 1, 0) == 0.83);
    assert_true(fraction("0.5.9", 81559, 1, 0) == 0.835);
    /* a vision tower: x 0.95 up to 0.4.4.post3 (0.836, the S10 log), x 0.90 to 0.4.9.post2 */
    assert_true(fabs(fraction("0.4.4.post2", 143771, 1, 1) - 0.836) < 1e-12);
    assert_true(fabs(fraction("0.4.5", 81559, 1, 1) - 0.792) < 1e-12);
}

/* Without the log's readings: P = GPU - 1 GiB of CUDA context, A = P - the weights.
 * The lesson's model (28 layers, 4 KV heads, head 128, fp16: cell 57,344 B), 8B bf16
 * weights = 16e9 B = 14.9012 GiB on an 80 GiB GPU, f 0.9:
 * rest = (79 - 14.9012) - 79 x 0.1 = 56.19884 GiB; N = floor(rest x 2^30 / 57,344) = 1,052,299;
 * 4,096-token requests: floor(1,052,299 / 4,096) = 256. */
static void estimates_without_a_log(void **state)
{
    (void)state;
#define EST "--engine", "sglang", "--gpu-mem-gib", "80", "--params-b", "8", "--weight-dtype", \
            "bf16", "--mem-fraction-static", "0.9"
    EXPECT_STDOUT("1052299\n", EST, "--get", "kv_cache_tokens");
    EXPECT_STDOUT("256\n", EST, "--get", "max_concurrency");
    EXPECT_STDOUT("true\n", EST, "--get", "sglang_estimated");
    EXPECT_STDOUT("79\n", EST, "--get", "sglang_avail_mem_before_load_gib");
    const char *const args[] = {EST, NULL};
    run_result r;
    run_kvcalc(args, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "ESTIMATED"));
    assert_non_null(strstr(r.out, "(estimate: GPU minus CUDA context)"));
    run_free(&r);
    /* with the log's readings nothing is labelled an estimate */
    EXPECT_STDOUT("false\n", EST, "--avail-mem-before-load-gib", "79",
                  "--avail-mem-after-load-gib", "60", "--get", "sglang_estimated");
    /* one reading gives the other through the weights: A = 79 - 14.9012 = 64.0988 */
    EXPECT_STDOUT("1052299\n", EST, "--avail-mem-before-load-gib", "79", "--get",
                  "kv_cache_tokens");
#undef EST
}

#define S02 "--engine", "sglang", "--model", "llama-3.1-8b-instruct", "--sglang-version", \
            "0.4.1.post7", "--mem-fraction-static", "0.88", "--avail-mem-before-load-gib",  \
            "78.81", "--avail-mem-after-load-gib", "63.72"

static void pool_arithmetic(void **state)
{
    (void)state;
    /* rest = 63.72 - 78.81 x 0.12 = 54.2628 GiB; cell 131,072 B -> 444,520 */
    EXPECT_STDOUT("444520\n", S02, "--get", "kv_cache_tokens");
    /* fp8 halves the cell: floor(54.2628 x 2^30 / 65,536) = 889,041 (docs/sglang.md) */
    EXPECT_STDOUT("889041\n", S02, "--kv-cache-dtype", "fp8_e4m3", "--get", "kv_cache_tokens");
    /* pages of 64: floor(444,520 / 64) x 64 = 444,480 */
    EXPECT_STDOUT("444480\n", S02, "--page-size", "64", "--get", "kv_cache_tokens");
    /* --max-total-tokens caps, then pages floor: min(444,520, 1,000) = 1,000 -> 960 */
    EXPECT_STDOUT("960\n", S02, "--page-size", "64", "--max-total-tokens", "1000", "--get",
                  "kv_cache_tokens");
    /* requests take whole pages: 100-token requests in pages of 64 take 128 tokens:
     * 960 / 128 = 7.5 -> 7 */
    EXPECT_STDOUT("7\n", S02, "--page-size", "64", "--max-total-tokens", "1000", "--context",
                  "100", "--get", "max_concurrency");
    /* MLA is one latent per token, whole on every rank: 576 x 61 x 2 = 70,272 B at TP8 */
    EXPECT_STDOUT("70272\n", "--engine", "sglang", "--model", "deepseek-v3", "--tp-size", "8",
                  "--avail-mem-before-load-gib", "283.56", "--avail-mem-after-load-gib",
                  "209.98", "--get", "sglang_cell_bytes");
    /* too little memory: A = 9, rest = 9 - 78.81 x 0.12 = -0.457 GiB: SGLang refuses */
    EXPECT_STDOUT("0\n", S02, "--avail-mem-after-load-gib", "9", "--get", "max_concurrency");
    const char *const args[] = {S02, "--avail-mem-after-load-gib", "9", NULL};
    run_result r;
    run_kvcalc(args, &r);
    assert_non_null(strstr(r.out, "Not enough memory"));
    run_free(&r);
}

/* Through the library alone: the lesson's model (cell 2 x 4 x 128 x 28 x 2 = 57,344 B) with
 * S02's readings: N = floor((63.72 - 78.81 x 0.12) x 2^30 / 57,344) = 1,016,047; the table's
 * rows are whole requests of that one pool: 1,024 -> 992, 4,096 -> 248, 32,768 -> 31. */
static void library_and_table(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    kv_table t;
    kv_spec_defaults(&s);
    kv_spec_set_engine(&s, KV_ENGINE_SGLANG);
    s.sglang.mem_fraction_static = KV_SOME_NUM(0.88);
    s.sglang.avail_before_gib = KV_SOME_NUM(78.81);
    s.sglang.avail_after_gib = KV_SOME_NUM(63.72);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(r.kv_cache_tokens, 1016047);
    assert_true(r.max_concurrency == 248);
    assert_string_equal(r.engine_version, "0.5.6");
    assert_string_equal(kv_engine_name(KV_ENGINE_SGLANG), "sglang");
    kv_table_compute(&s, &r, &t);
    assert_int_equal(t.rows[0].context, 1024);
    assert_true(t.rows[0].max_concurrency == 992);
    assert_int_equal(t.rows[t.n_rows - 1].context, 32768);
    assert_true(t.rows[t.n_rows - 1].max_concurrency == 31);
    s.sglang.mem_fraction_static = KV_SOME_NUM(1.5); /* out of range through the library too */
    assert_int_equal(kv_compute(&s, &r), KV_ERR_ENGINE_INPUT);
}

/* Speculative decoding (--speculative-num-draft-tokens D; model_runner_kv_cache_mixin.py @
 * 226149ac handle_max_mamba_cache, server_args.py _handle_speculative_decoding): S20's
 * Qwen3.5-9B on two RTX 4090s with D = 4. One rank's state a request: 24 gated-delta-net
 * layers x (conv 4,096 x 3 x 2 B = 24,576 + SSM 16 x 128 x 128 x 4 B = 1,048,576) =
 * 25,755,648 B. Running requests default to 48, so 48 x 4 x 25,755,648 = 4,945,084,416 B come
 * off rest = 14.08 - 22.93 x 0.2 = 9.494 GiB first: 4.88853 GiB, of which r / (1 + r) =
 * 2.31562 GiB / 25,755,648 B = 96 slots (96.54); 96 / 3 = 32 run. The verify buffers hold
 * (32 + 1) x 4 states: SSM 33 x 4 x 24 x 1,048,576 = 3,321,888,768 B, conv 33 x 4 x 24 x
 * 24,576 = 77,856,768 B. The MTP draft's pool: one attention layer of 2 KV heads x 256 x 2 B
 * = 1,024 B a token for K, as many tokens as the target's pool plus its padded row. */
/* The one number kvcalc prints for args (--get). */
static double get_number(const char *const *args)
{
    run_result r;
    run_kvcalc(args, &r);
    assert_int_equal(r.status, 0);
    char *end;
    double v = strtod(r.out, &end);
    assert_true(end != r.out && *end == '\n');
    run_free(&r);
    return v;
}

#define S20 "--engine", "sglang", "--model", "qwen3.5-9b", "--gpu", "rtx-4090", "--tp", "2", \
            "--mem-fraction-static", "0.8", "--avail-mem-before-load-gib", "22.93",           \
            "--avail-mem-after-load-gib", "14.08", "--context", "262144"
static void speculative_decoding(void **state)
{
    (void)state;
    EXPECT_STDOUT("187\n", S20, "--get", "sglang_max_mamba_cache_size"); /* without: S20 */
    EXPECT_STDOUT("62\n", S20, "--speculative-num-draft-tokens", "0", "--get",
                  "sglang_max_running_requests"); /* 0 is off: 187 / 3 */
#define SPEC S20, "--speculative-num-draft-tokens", "4", "--sglang-version", "0.5.9"
    EXPECT_STDOUT("25755648\n", SPEC, "--get", "sglang_mamba_bytes_per_request");
    EXPECT_STDOUT("4945084416\n", SPEC, "--get", "sglang_speculative_reserved_bytes");
    EXPECT_STDOUT("96\n", SPEC, "--get", "sglang_max_mamba_cache_size");
    EXPECT_STDOUT("32\n", SPEC, "--get", "sglang_max_running_requests");
    EXPECT_STDOUT("3321888768\n", SPEC, "--get", "sglang_intermediate_ssm_state_bytes");
    EXPECT_STDOUT("77856768\n", SPEC, "--get", "sglang_intermediate_conv_window_bytes");
    EXPECT_STDOUT("1\n", SPEC, "--get", "sglang_draft_attention_layers");
    double tokens = get_number((const char *const[]){SPEC, "--get", "kv_cache_tokens", NULL});
    double draft_k =
        get_number((const char *const[]){SPEC, "--get", "sglang_draft_k_bytes", NULL});
    double rest = get_number((const char *const[]){SPEC, "--get", "available_kv_bytes", NULL});
    assert_true(draft_k == (tokens + 1) * 1024);
    /* the token pool: what is left after the drafts' states and 96 slots, 16,384 B a token */
    assert_true(tokens * 16384 <= rest && rest < (tokens + 1) * 16384);
    assert_true(fabs(rest - (9.494 * 1073741824.0 - 4945084416.0 - 96 * 25755648.0)) < 1024);
    run_result r;
    run_kvcalc((const char *const[]){SPEC, NULL}, &r);
    assert_non_null(strstr(r.out, "Mamba Cache is allocated. max_mamba_cache_size: 96, "
                                  "conv_state size: 0.05GB, ssm_state size: 2.27GB "
                                  "intermediate_ssm_state_cache size: 3.09GB "
                                  "intermediate_conv_window_cache size: 0.07GB\n"));
    run_free(&r);
#undef SPEC
    /* any model: 48 requests run at most (or --max-running-requests), and the default
     * fraction reserves 2 GiB more: H100 (81,559 MiB), TP1, 0.5.6, the reserve 13,440 MiB
     * (docs/sglang.md) -> round((81,559 - 13,440 - 2,048) / 81,559, 3) = 0.810, not 0.835 */
#define H100 "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100", "--context", "1024"
    EXPECT_STDOUT("0.835\n", H100, "--get", "sglang_mem_fraction_static");
    /* --cuda-graph-max-bs 512 instead of the H100's 256: 512 x 2 MiB more reserve, 13,952 ->
     * round(67,607 / 81,559, 3) = 0.829 (docs/cuda-graphs.md) */
    EXPECT_STDOUT("0.829\n", H100, "--cuda-graph-max-bs", "512", "--get", "sglang_mem_fraction_static");
#define D3 "--speculative-num-draft-tokens", "3", "--speculative-num-steps", "2", \
           "--speculative-eagle-topk", "1"
    EXPECT_STDOUT("0.81\n", H100, D3, "--get", "sglang_mem_fraction_static");
    EXPECT_STDOUT("48\n", H100, D3, "--get", "max_concurrency");
    EXPECT_STDOUT("10\n", H100, "--max-running-requests", "10", "--get", "max_concurrency");
    EXPECT_STDOUT("0\n", H100, D3, "--get",
                  "sglang_draft_attention_layers"); /* no MTP layers: no draft pool counted */
    /* up to 0.5.6.post2 both pools hold 48 x (2 steps x 1 + 3 draft tokens) + 100 = 340
     * tokens more (draft_runner_cache_size), at the same fraction; none from 0.5.7 (#15748) */
    EXPECT_STDOUT("340\n", H100, D3, "--get", "sglang_speculative_headroom_tokens");
    assert_true(get_number((const char *const[]){H100, D3, "--mem-fraction-static", "0.8",
                                                 "--get", "kv_cache_tokens", NULL}) -
                    get_number((const char *const[]){H100, "--mem-fraction-static", "0.8",
                                                     "--get", "kv_cache_tokens", NULL}) ==
                340);
    assert_true(get_number((const char *const[]){H100, D3, "--mem-fraction-static", "0.8",
                                                 "--sglang-version", "0.5.7", "--get",
                                                 "kv_cache_tokens", NULL}) ==
                get_number((const char *const[]){H100, "--mem-fraction-static", "0.8",
                                                 "--sglang-version", "0.5.7", "--get",
                                                 "kv_cache_tokens", NULL}));
    /* 48 x (5 x 4 + 8) + 100 = 1,444 with Llama's (5, 4, 8) */
    EXPECT_STDOUT("1444\n", H100, "--speculative-num-draft-tokens", "8", "--speculative-num-steps",
                  "5", "--speculative-eagle-topk", "4", "--get",
                  "sglang_speculative_headroom_tokens");
#undef D3
#undef H100
    /* the draft worker loads the MTP layer's weights: Qwen3.5-4B's checkpoint holds 120,599,552
     * mtp.* parameters (its shard headers, data/models/CHECKPOINTS.tsv), 2 B each in bf16 */
    EXPECT_STDOUT("241199104\n", "--engine", "sglang", "--model", "qwen3.5-4b", "--gpu", "h100",
                  "--speculative-num-draft-tokens", "2", "--sglang-version", "0.5.9", "--get",
                  "sglang_draft_weights_bytes");
    EXPECT_STDOUT("0\n", "--engine", "sglang", "--model", "qwen3.5-4b", "--gpu", "h100", "--get",
                  "sglang_draft_weights_bytes"); /* no speculative decoding: not loaded */
    /* releases whose rules kvcalc has not read */
    EXPECT_STDOUT("48\n", "--engine", "sglang", "--sglang-version", "0.5.9",
                  "--speculative-num-draft-tokens", "2", "--get", "sglang_max_running_requests");
    static const char *const versions[] = {"0.5.2", "0.5.3rc0", "0.5.16"};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        run_kvcalc((const char *const[]){"--engine", "sglang", "--sglang-version", versions[i],
                                         "--speculative-num-draft-tokens", "2", NULL},
                   &r);
        assert_int_equal(r.status, 2);
        assert_int_equal(r.out_len, 0);
        assert_non_null(strstr(r.err, "kvcalc: --speculative-num-draft-tokens: kvcalc has read "
                                      "SGLang's speculative-decoding memory rules of 0.5.3rc2 "
                                      "to 0.5.15 only (--sglang-version)\n"));
        run_free(&r);
    }
    /* a model with state layers keeps 0.5.9 as its last: 0.5.10 solves its pools anew */
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3.5-4b", "--gpu", "h100",
                                     "--sglang-version", "0.5.10rc0",
                                     "--speculative-num-draft-tokens", "2", NULL},
               &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "rules of 0.5.7 to 0.5.9 only for models with state layers "
                                  "(--sglang-version)\n"));
    run_free(&r);
    /* and 0.5.7 as its first: before, the headroom's requests were bounded by the state slots
     * too (not modelled) */
    expect_refused((const char *const[]){"--engine", "sglang", "--model", "qwen3.5-4b", "--gpu",
                                         "h100", "--speculative-num-draft-tokens", "2", NULL},
                   "rules of 0.5.7 to 0.5.9 only for models with state layers");
    /* 0.5.10 - 0.5.13, a plain model: 4 GiB of reserve for the draft (#19418), beside the
     * piecewise graphs' 464 MiB (below): 512 + 12,288 + 512 + 128 + 464 + 4,096 = 18,000 MiB,
     * round(63,559 / 81,559, 3) = 0.779 */
    EXPECT_STDOUT("0.779\n", "--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                  "--sglang-version", "0.5.12", "--speculative-num-draft-tokens", "2", "--get",
                  "sglang_mem_fraction_static");
    /* 0.5.14 and 0.5.15 (#23862, #28855): DeepSeek-V3's architecture is one SGLang gives the
     * target's path as the draft's (_handle_eagle_family), so its one MTP layer enters the
     * cell: int(70,272 x (1 + 1 / 61)) = 71,424 B, and with P 139, A 60 (the draft's load
     * line) and f 0.88: rest = 60 - 139 x 0.12 = 43.32 GB, N = floor(43.32 x 2^30 / 71,424) =
     * 651,244 tokens; 0.5.13 divides by 70,272: 661,920 */
#define DS "--engine", "sglang", "--model", "deepseek-v3", "--gpu", "h200", "--tp", "8",        \
           "--speculative-algorithm", "NEXTN", "--speculative-num-steps", "3",                \
           "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",            \
           "--avail-mem-before-load-gib", "139", "--avail-mem-after-load-gib", "60",          \
           "--mem-fraction-static", "0.88"
    EXPECT_STDOUT("71424\n", DS, "--sglang-version", "0.5.14", "--get", "sglang_sizing_cell_bytes");
    EXPECT_STDOUT("651244\n", DS, "--sglang-version", "0.5.15", "--get",
                  "sglang_max_total_num_tokens");
    EXPECT_STDOUT("661920\n", DS, "--sglang-version", "0.5.13", "--get",
                  "sglang_max_total_num_tokens");
#undef DS
    /* and no reserve in the default fraction: 0.5.13's 4,096 MiB of 143,771 on an H200 go */
    assert_true(get_number((const char *const[]){"--engine", "sglang", "--model", "deepseek-v3",
                                                 "--gpu", "h200", "--tp", "8", "--sglang-version",
                                                 "0.5.14", "--speculative-num-draft-tokens", "4",
                                                 "--speculative-num-steps", "3",
                                                 "--speculative-eagle-topk", "1", "--get",
                                                 "sglang_mem_fraction_static", NULL}) ==
                get_number((const char *const[]){"--engine", "sglang", "--model", "deepseek-v3",
                                                 "--gpu", "h200", "--tp", "8", "--sglang-version",
                                                 "0.5.14", "--get", "sglang_mem_fraction_static",
                                                 NULL}));
    /* refused there: an EAGLE head (its own layers), sliding windows, an indexer */
    expect_refused((const char *const[]){"--engine", "sglang", "--model", "llama-3.1-8b-instruct",
                                         "--sglang-version", "0.5.14",
                                         "--speculative-num-draft-tokens", "2",
                                         "--speculative-num-steps", "1",
                                         "--speculative-eagle-topk", "1", NULL},
                   "for EAGLE-head (the head's own layers enter the cell");
    expect_refused((const char *const[]){"--engine", "sglang", "--model", "gpt-oss-120b",
                                         "--sglang-version", "0.5.15",
                                         "--speculative-num-draft-tokens", "2",
                                         "--speculative-num-steps", "1",
                                         "--speculative-eagle-topk", "1", NULL},
                   "for sliding-window models");
    expect_refused((const char *const[]){"--engine", "sglang", "--model", "deepseek-v3.2",
                                         "--gpu", "h200", "--tp", "8", "--sglang-version",
                                         "0.5.14", "--speculative-num-draft-tokens", "2",
                                         "--speculative-num-steps", "1",
                                         "--speculative-eagle-topk", "1", NULL},
                   "for sparse-attention");
}
#undef S20

static void usage_errors(void **state)
{
    (void)state;
    static const char *const cases[][8] = {
        {"--page-size", "16"}, /* SGLang-only without --engine sglang */
        {"--engine", "vllm", "--mem-fraction-static", "0.8"},
        {"--engine", "sglang", "--mem-fraction-static", "1.5"},
        {"--engine", "sglang", "--mem-fraction-static", "0"},
        {"--engine", "sglang", "--sglang-version", "0.4.x"},
        {"--engine", "sglang", "--page-size", "0"},
        {"--engine", "sglang", "--avail-mem-after-load-gib", "-1"},
        {"--engine", "sglang", "--avail-mem-before-load-gib", "1e7"},
        {"--engine", "sglang", "--gpu-mem-gib", "2e6"}, /* beyond what the engine sizes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        run_kvcalc(cases[i], &r);
        assert_int_equal(r.status, 2);
        assert_int_equal(r.out_len, 0);
        assert_int_equal(count_lines(r.err), 2);
        assert_non_null(strstr(r.err, "--"));
        run_free(&r);
    }
}

/* HiCache (HostKVCache.__init__, pool_host/base.py @ 049f8e64daef): the host pool is the
 * device's tokens x --hicache-ratio (2), or --hicache-size GB // the rank's bytes a token,
 * then (tokens // page + 1) x page; every rank its own; the device pool unchanged. By hand,
 * Qwen3-8B on H100s at TP 2: 838,085 device tokens x 2 + 1 = 1,676,171 host tokens x 73,728 B
 * = 123,580,735,488 B ("Allocating 123.58 GB"), 2 ranks = 247,161,470,976 B. At TP 1 with
 * --hicache-size 32: 32e9 // 147,456 = 217,013, + 1 = 217,014 tokens = 32,000,016,384 B: the
 * "Allocating 32.00 GB host memory" a public deployment note quotes for --hicache-size 32. */
/* --cpu-offload-gb G (OffloaderV1, from 0.3.6.post3): the decoder layers' weights leave the
 * GPU before "Load weight end", so A grows by G GiB and the token pool with it, by hand
 * 10 x 2^30 / 147,456 B a token (Qwen3-8B) = 72,817.8 tokens: 367,104 -> 439,922 (the
 * floors of two quotients differ by 72,817 or 72,818). The host holds G on each of the TP
 * ranks. More than the layers hold moves all of them (Qwen3-8B's embeddings and head stay).
 * SGLang takes whole GB only, and not before the release that added it. */
static void cpu_offload(void **state)
{
    (void)state;
    run_result r, plain;
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--cpu-offload-gb", "10", "--format", "json", NULL}, &r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--format", "json", NULL}, &plain);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(plain.out, "\"sglang_max_total_num_tokens\": 367104,"));
    assert_non_null(strstr(r.out, "\"sglang_max_total_num_tokens\": 439922,"));
    assert_non_null(strstr(r.out, "\"sglang_cpu_offload_bytes\": 10737418240,"));
    assert_non_null(strstr(r.out, "\"host_bytes\": 10737418240,"));
    assert_non_null(strstr(plain.out, "\"host_bytes\": 0,"));
    run_free(&r);
    run_free(&plain);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--tp", "2", "--cpu-offload-gb", "4", "--get", "host_bytes",
                                     NULL}, &r);
    assert_string_equal(r.out, "8589934592\n"); /* 4 GiB on each of 2 ranks */
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--cpu-offload-gb", "10", NULL}, &r);
    assert_non_null(strstr(r.out, "  offload : --cpu-offload-gb 10: 10.00 GB of the decoder layers' "
                                  "weights in pinned host memory on each rank, not in mem usage "
                                  "(SGLang moves whole parameters, so up to one tensor more)\n"));
    assert_non_null(strstr(r.out, "mem usage=5.26 GB.")); /* 15.26 GiB less 10 */
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--cpu-offload-gb", "100", NULL}, &r);
    assert_non_null(strstr(r.out, "(all of them: fewer than asked)\n"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b",
                                     "--cpu-offload-gb", "10.5", NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "kvcalc: --cpu-offload-gb: SGLang takes a whole number of GB"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--sglang-version",
                                     "0.3.6.post2", "--cpu-offload-gb", "4", NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "SGLang has --cpu-offload-gb from 0.3.6.post3"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--sglang-version",
                                     "0.3.6.post3", "--cpu-offload-gb", "4", NULL}, &r);
    assert_int_equal(r.status, 0);
    run_free(&r);
    /* one offloader for the target and the draft: refused, not half-sized */
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--cpu-offload-gb", "4", "--speculative-algorithm",
                                     "STANDALONE", "--speculative-draft-model-path", "qwen3-0.6b",
                                     NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "kvcalc: --cpu-offload-gb: kvcalc does not size it beside "
                                  "speculative decoding"));
    run_free(&r);
}

/* MoE LoRA (0.5.11+): Qwen3-30B-A3B, h 2,048, 128 experts of width 768, 48 layers, rank 64,
 * 8 slots, bf16, by hand: experts 8 x 128 x 64 x (3 x 2,048 + 3 x 768) = 553,648,128 elements
 * a layer; attention (3 x 2,048 + 4,096 + 1,024) + (4,096 + 2,048) = 17,408 x 8 x 64 =
 * 8,912,896; x 48 layers x 2 B = 54,005,858,304 B. */
static void moe_lora(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-30b-a3b", "--gpu", "h100",
                                     "--sglang-version", "0.5.11", "--enable-lora", "--max-lora-rank",
                                     "64", "--lora-target-modules", "all", "--get",
                                     "sglang_lora_bytes", NULL}, &r);
    assert_string_equal(r.out, "54005858304\n");
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-30b-a3b",
                                     "--sglang-version", "0.5.10", "--enable-lora", "--max-lora-rank",
                                     "8", "--lora-target-modules", "all", NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "MoE experts before 0.5.11"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-30b-a3b",
                                     "--sglang-version", "0.5.11", "--enable-lora", "--max-lora-rank",
                                     "8", "--lora-target-modules", "down_proj", NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "one of gate_up_proj and down_proj on a MoE model"));
    run_free(&r);
}

static void hierarchical_cache(void **state)
{
    (void)state;
    run_result r, plain;
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--tp", "2", "--enable-hierarchical-cache", "--format", "json",
                                     NULL}, &r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--tp", "2", "--format", "json", NULL}, &plain);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"sglang_max_total_num_tokens\": 838085,"));
    assert_non_null(strstr(plain.out, "\"sglang_max_total_num_tokens\": 838085,"));
    assert_non_null(strstr(r.out, "\"sglang_hicache_tokens\": 1676171,"));
    assert_non_null(strstr(r.out, "\"sglang_hicache_bytes\": 123580735488,"));
    assert_non_null(strstr(r.out, "\"sglang_hicache_host_bytes\": 247161470976,"));
    assert_non_null(strstr(plain.out, "\"sglang_hicache_tokens\": 0,"));
    run_free(&r);
    run_free(&plain);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--enable-hierarchical-cache", "--hicache-size", "32", NULL},
               &r);
    assert_non_null(strstr(r.out, "\nAllocating 32.00 GB host memory for hierarchical KV cache.\n"));
    assert_non_null(strstr(r.out, "  HiCache : --hicache-size 32 GB // 147,456 B a token = 217,014 "
                                  "host tokens (whole pages, one more), the device pool unchanged\n"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "sglang", "--hicache-ratio", "0", NULL}, &r);
    assert_int_equal(r.status, 2); /* a ratio above 0 */
    run_free(&r);
}

/* --speculative-algorithm STANDALONE (docs/sglang.md): Llama-3.1-8B with Llama-3.2-1B (16
 * layers, 8 KV heads of 64) as its draft on an H100 at 0.5.6: the reserve 13,440 + 6,144 MiB
 * -> round((81,559 - 19,584) / 81,559, 3) = 0.760; SGLang's own (3, 1, 4) -> 48 x (3 + 4) +
 * 100 = 436 tokens of headroom in both pools; the draft's pool (N + 1) rows of 16 x 8 x 64
 * x 2 B (16,384 B of K a token); its weights, 1,235,814,400 bf16 parameters (the preset's
 * checkpoint), split by TP. */
static void standalone_draft(void **state)
{
    (void)state;
#define SA "--engine", "sglang", "--model", "llama-3.1-8b-instruct", "--gpu", "h100",      \
           "--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", \
           "llama-3.2-1b-instruct"
    EXPECT_STDOUT("0.76\n", SA, "--get", "sglang_mem_fraction_static");
    EXPECT_STDOUT("436\n", SA, "--get", "sglang_speculative_headroom_tokens");
    EXPECT_STDOUT("4\n", SA, "--get", "sglang_speculative_num_draft_tokens");
    EXPECT_STDOUT("48\n", SA, "--get", "max_concurrency");
    EXPECT_STDOUT("32768\n", SA, "--get", "sglang_draft_cell_bytes");
    double n = get_number((const char *const[]){SA, "--get", "kv_cache_tokens", NULL});
    assert_true(get_number((const char *const[]){SA, "--get", "sglang_draft_k_bytes", NULL}) ==
                (n + 1) * 16384);
    assert_true(get_number((const char *const[]){SA, "--get", "sglang_draft_v_bytes", NULL}) ==
                (n + 1) * 16384);
    EXPECT_STDOUT("2471628800\n", SA, "--get", "sglang_draft_weights_bytes");
    EXPECT_STDOUT("1235814400\n", SA, "--tp", "2", "--get", "sglang_draft_weights_bytes");
    EXPECT_STDOUT("4\n", SA, "--tp", "2", "--get", "sglang_draft_kv_heads_per_gpu");
    /* the target's pool is what it is without a draft, but for the headroom: at 0.5.9 the
     * same fraction gives 436 tokens fewer */
    assert_true(n - get_number((const char *const[]){SA, "--sglang-version", "0.5.9", "--get",
                                                     "kv_cache_tokens", NULL}) ==
                436);
    run_result r;
    run_kvcalc((const char *const[]){SA, NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  drafts  : + 48 running x (3 steps x 1 top-k + 4 draft tokens) "
                                  "+ 100 = 436 tokens in both pools"));
    assert_non_null(strstr(r.out, "  draft   : STANDALONE's meta-llama/Llama-3.2-1B-Instruct: its "
                                  "own pool (16 layers, 8 KV heads of 64 a rank, 32,768 B a token"));
    run_free(&r);
    /* the draft allocates in what the target's pool left free, about P x (1 - f) = 78.65 x
     * 0.24 GiB: the 1B draft's 11.22 + 2.30 GB fit; Llama-3.2-1B speculated by Llama-3.1-8B
     * (a draft of 32 layers of 8 x 128, 4x the target's cell, and 14.96 GB of weights) does
     * not, and SGLang would not start */
    double room = get_number((const char *const[]){SA, "--get", "sglang_headroom_bytes", NULL});
    double after = get_number(
        (const char *const[]){SA, "--get", "sglang_avail_mem_after_load_gib", NULL});
    assert_true(fabs(room - (after * 1073741824.0 - (n + 1) * 131072)) < 1); /* A - K - V */
    assert_true(fabs(room / 1073741824.0 - 78.6475 * (1 - 0.76)) < 0.1);
    EXPECT_STDOUT("false\n", SA, "--get", "sglang_draft_oom");
    EXPECT_STDOUT("true\n", SA, "--get", "fits");
#define BIG "--engine", "sglang", "--model", "llama-3.2-1b-instruct", "--gpu", "h100",       \
            "--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", \
            "llama-3.1-8b-instruct"
    EXPECT_STDOUT("true\n", BIG, "--get", "sglang_draft_oom");
    EXPECT_STDOUT("false\n", BIG, "--get", "fits");
    EXPECT_STDOUT("0\n", BIG, "--get", "max_concurrency");
    run_kvcalc((const char *const[]){BIG, NULL}, &r);
    assert_non_null(strstr(r.out, "torch.OutOfMemoryError: the draft's 244.89 GB outgrow the "));
    run_free(&r);
#undef BIG
    /* 0.5.14 and 0.5.15 (#23862, #28855): no reserve (f 0.83, as without a draft), the draft's
     * 2,471,628,800 B of weights loaded before A is read, and N sized by 131,072 x (1 + 16 /
     * 32) = 196,608 B a token; the draft's pool that N in its own 32,768 B */
#define SA14 SA, "--sglang-version", "0.5.14"
#define NO14 "--engine", "sglang", "--model", "llama-3.1-8b-instruct", "--gpu", "h100", \
             "--sglang-version", "0.5.14"
    EXPECT_STDOUT("0.83\n", SA14, "--get", "sglang_mem_fraction_static");
    EXPECT_STDOUT("0.83\n", NO14, "--get", "sglang_mem_fraction_static");
    EXPECT_STDOUT("196608\n", SA14, "--get", "sglang_sizing_cell_bytes");
    EXPECT_STDOUT("0\n", SA14, "--get", "sglang_speculative_headroom_tokens");
    double rest14 = get_number((const char *const[]){SA14, "--get", "available_kv_bytes", NULL});
    double plain14 = get_number((const char *const[]){NO14, "--get", "available_kv_bytes", NULL});
    assert_true(fabs(plain14 - rest14 - 2471628800.0) < 1); /* the draft's weights in A */
    double n14 = get_number((const char *const[]){SA14, "--get", "kv_cache_tokens", NULL});
    assert_true(n14 == floor(rest14 / 196608));
    assert_true(get_number((const char *const[]){SA14, "--get", "sglang_draft_k_bytes", NULL}) ==
                (n14 + 1) * 16384);
    expect_refused((const char *const[]){SA, "--sglang-version", "0.5.16", NULL},
                   "rules of 0.5.3rc2 to 0.5.15 only for STANDALONE (--sglang-version)");
#undef SA14
#undef NO14
    /* what does not go together */
    const struct {
        const char *const *args;
        const char *says;
    } cases[] = {
        {(const char *const[]){"--engine", "sglang", "--speculative-algorithm", "STANDALONE", NULL},
         "--speculative-algorithm: STANDALONE speculates with a draft model of its own: give "
         "--speculative-draft-model-path"},
        {(const char *const[]){"--engine", "sglang", "--model", "llama-3.1-8b-instruct",
                               "--speculative-draft-model-path", "llama-3.2-1b-instruct", NULL},
         "kvcalc sizes SGLang's separate draft model with --speculative-algorithm STANDALONE"},
        {(const char *const[]){"--engine", "sglang", "--speculative-algorithm", "EAGLE", NULL},
         "give --speculative-num-steps, --speculative-eagle-topk and "
         "--speculative-num-draft-tokens"},
        {(const char *const[]){"--engine", "sglang", "--speculative-num-draft-tokens", "4",
                               "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
                               NULL},
         "--speculative-num-draft-tokens: SGLang: \"speculative_num_draft_tokens is adjusted to "
         "speculative_num_steps + 1 when speculative_eagle_topk == 1\": give "
         "--speculative-num-draft-tokens 3"},
        {(const char *const[]){"--engine", "sglang", "--speculative-num-steps", "2", NULL},
         "give --speculative-num-draft-tokens (0: off)"},
        {(const char *const[]){"--engine", "sglang", "--speculative-num-draft-tokens", "4",
                               "--speculative-num-steps", "3", NULL},
         "--speculative-eagle-topk: up to 0.5.6.post2 SGLang adds running x (steps x top-k + "
         "draft tokens) + 100 tokens to both pools"},
        {(const char *const[]){"--engine", "sglang", "--model", "qwen3.5-4b",
                               "--speculative-algorithm", "STANDALONE", "--sglang-version", "0.5.9",
                               "--speculative-draft-model-path", "qwen3-0.6b", NULL},
         "kvcalc sizes STANDALONE for targets of attention layers only"},
        {(const char *const[]){"--engine", "sglang", "--speculative-algorithm", "MEDUSA", NULL},
         "--speculative-algorithm: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(cases[i].args, cases[i].says);
#undef SA
}

/* --enable-lora (docs/lora.md; python/sglang/srt/lora/mem_pool.py @ 7ae368efde14): per layer
 * and slot, A = r c x in and B = out x r in bf16; the seven projections of Llama-3.1-8B
 * (h 4,096, I 14,336, Hq d 4,096, Hkv d 1,024) at TP 1: S = 7h + 2q + 2kv + 3I = 81,920
 * elements x r, x 32 layers x 8 slots x 16 x 2 B = 671,088,640 B (0.625 GiB); TP 2:
 * 28,672 + (2 x 4,096 + 2 x 1,024 + 3 x 14,336) / 2 = 55,296 -> 452,984,832 B. */
static void lora_buffers(void **state)
{
    (void)state;
#define LL(...) ((const char *const[]){"--engine", "sglang", "--model", "llama-3.1-8b-instruct", \
                                       "--gpu", "h100", __VA_ARGS__, NULL})
#define LORA "--enable-lora", "--max-lora-rank", "16", "--lora-target-modules"
    assert_true(run_get("sglang_lora_bytes", LL(LORA, "all")) == 671088640.0);
    assert_true(run_get("sglang_lora_bytes", LL(LORA, "all", "--tp", "2")) == 452984832.0);
    /* q, v and o: the whole qkv pair (3h + q + 2kv = 18,432) and o (q + h = 8,192) */
    assert_true(run_get("sglang_lora_bytes", LL(LORA, "q_proj,v_proj,o_proj")) ==
                26624.0 * 32 * 8 * 16 * 2);
    assert_true(run_get("sglang_lora_bytes",
                        LL(LORA, "all", "--max-loras-per-batch", "2", "--max-lora-rank", "64")) ==
                81920.0 * 32 * 2 * 64 * 2);
    /* out of the token pool's budget: 0.625 GiB / 131,072 B a token = 5,120 fewer tokens
     * (A and P the estimate's, the same with and without) */
    assert_true(run_get("sglang_max_total_num_tokens", LL("--context", "4096")) -
                    run_get("sglang_max_total_num_tokens", LL(LORA, "all")) ==
                5120.0);
    /* the engine decides what a shared name is, wherever --engine stands */
    assert_true(run_get("sglang_lora_bytes",
                        (const char *const[]){"--enable-lora", "--max-lora-rank", "16",
                                              "--lora-target-modules", "all", "--engine", "sglang",
                                              "--model", "llama-3.1-8b-instruct", "--gpu", "h100",
                                              NULL}) == 671088640.0);
    assert_true(run_get("vllm_lora_bytes",
                        (const char *const[]){"--enable-lora", "--engine", "vllm", "--model",
                                              "llama-3.1-8b-instruct", "--gpu", "h100",
                                              NULL}) == 83886080.0);
    /* Qwen3-0.6B, where Hq d = 2,048 is not h = 1,024 (28 layers, Hkv d 1,024, I 3,072):
     * from 0.5.0rc1 S = 7h + 2q + 2kv + 3I = 22,528; before, q and o's input are h and kv
     * is h // (16 // 8) = 512: 19,456; only q_proj: 3h + q + 2kv = 7,168 from 0.5.0rc1, the
     * early q buffer alone (3h + h) 4,096 before */
#define QW(v, t) ((const char *const[]){"--engine", "sglang", "--model", "qwen3-0.6b", "--gpu", \
                                        "h100", "--sglang-version", v, LORA, t, NULL})
    const double per = 28.0 * 8 * 16 * 2;
    assert_true(run_get("sglang_lora_bytes", QW("0.5.6", "all")) == 22528 * per);
    assert_true(run_get("sglang_lora_bytes", QW("0.5.0rc0", "all")) == 19456 * per);
    assert_true(run_get("sglang_lora_bytes", QW("0.5.6", "q_proj")) == 7168 * per);
    assert_true(run_get("sglang_lora_bytes", QW("0.5.0rc0", "q_proj")) == 4096 * per);
    /* the budget line says it */
    run_result r;
    run_kvcalc(LL(LORA, "all"), &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  LoRA    : 8 adapter slots of rank 16 in every layer's all, "
                                  "model dtype: 0.62 GB, made after the weights, before the pool\n"));
    assert_non_null(strstr(r.out, "rest = A - LoRA - P x (1 - f) = "));
    run_free(&r);
    /* a log's what-if: the flags read before the log named its engine take SGLang's rows;
     * S02's pool loses the same 5,120 tokens */
    const char *log = KVCALC_SOURCE_DIR "/tests/logs/sglang-s02.log";
    assert_true(run_get("kv_cache_tokens", (const char *const[]){"--from-log", log,
                                                                  "--sglang-version", "0.5.6",
                                                                  NULL}) -
                    run_get("kv_cache_tokens",
                            (const char *const[]){"--from-log", log, "--sglang-version", "0.5.6",
                                                  LORA, "all", NULL}) ==
                5120.0);
#undef QW
#undef LL
}

/* What kvcalc cannot size is refused, in SGLang's words where it has them. */
static void lora_refusals(void **state)
{
    (void)state;
    const struct {
        const char *const *args;
        const char *says;
    } cases[] = {
        {(const char *const[]){"--engine", "sglang", "--enable-lora", NULL},
         "--max-lora-rank: SGLang: \"When no initial --lora-paths is provided, you need to "
         "specify both --max-lora-rank and --lora-target-modules"},
        {(const char *const[]){"--engine", "sglang", "--enable-lora", "--max-lora-rank", "8", NULL},
         "--lora-target-modules: SGLang: \"When no initial"},
        {(const char *const[]){"--engine", "sglang", "--model", "llama-3.1-8b-instruct",
                               "--enable-lora", "--max-lora-rank", "8", "--lora-target-modules",
                               "all", "--sglang-version", "0.4.9", NULL},
         "kvcalc sizes SGLang's LoRA buffers from 0.4.9.post3"},
        {(const char *const[]){"--engine", "sglang", "--model", "qwen3-30b-a3b", "--enable-lora",
                               "--max-lora-rank", "8", "--lora-target-modules", "all", NULL},
         "not MoE experts"},
        {(const char *const[]){"--engine", "sglang", "--model", "llama-3.1-8b-instruct",
                               "--enable-lora", "--max-lora-rank", "8", "--lora-target-modules",
                               "q_proj,lm_head", NULL},
         "not embed_tokens or lm_head targets"},
        {(const char *const[]){"--engine", "sglang", "--model", "llama-3.1-8b-instruct",
                               "--enable-lora", "--max-lora-rank", "8", "--lora-target-modules",
                               "all", "--tp", "16", NULL},
         "more TP ranks than KV heads"},
        {(const char *const[]){"--engine", "sglang", "--lora-target-modules", "all,q_proj", NULL},
         "--lora-target-modules: "},
        {(const char *const[]){"--engine", "sglang", "--lora-target-modules", "qproj", NULL},
         "--lora-target-modules: "},
        /* a name two engines have, without either */
        {(const char *const[]){"--max-lora-rank", "8", NULL},
         "--max-lora-rank: applies only with --engine vllm, --engine sglang or --engine trtllm"},
        {(const char *const[]){"--engine", "llama.cpp", "--enable-lora", NULL},
         "--enable-lora: applies only with --engine vllm, --engine sglang or --engine trtllm"},
        /* vLLM keeps its own ranks under the shared bounds */
        {(const char *const[]){"--engine", "vllm", "--enable-lora", "--max-lora-rank", "1024", NULL},
         "1, 8, 16, 32, 64, 128, 256, 320 or 512"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(cases[i].args, cases[i].says);
}

/* DeepSeek-V4 (compress_ratios) in SGLang's DSV4PoolConfigurator, against the lines of
 * public logs (scratch notes of the DeepSeek-V4 research, section 3: four "DSV4 memory
 * calculation" lines and one "DSV4 pool sizes"). The log prints bytes_per_full_token to two
 * decimals and available_bytes in GB of 2^30 to two: rest = available is given as A with
 * f = 1 (rest = A - P x 0), at either end of the rounding, and the logged full_token must lie
 * between kvcalc's two. V4-Flash: head_dim 512, rope 64, index_head_dim 128, window 128, 21
 * layers at 4:1 and 20 at 128:1 of 43 (and one MTP entry of 0):
 *   0.5.15+: 0.1 x 584 x 43 + 584 x 21 / 4 + 584 x 20 / 128 + 132 x 21 / 4
 *            + 0.1 x 8 / 128 x (8,192 + 2,048) x 21 = 7,705.45
 *   0.5.13:  + 0.1 x 128 / 128 x 4,096 x 20 = 15,897.45
 *   0.5.12:  + 0.1 x 584 (the MTP entry's window) = 15,955.85 */
#define DSV4 "--engine", "sglang", "--config",                                                 \
             KVCALC_SOURCE_DIR "/tests/fixtures/frontier/deepseek-ai__DeepSeek-V4-Flash.json", \
             "--params-b", "150", "--weight-dtype", "fp8", "--mem-fraction-static", "1"
static double dsv4_tokens(const char *version, const char *gib, const char *running,
                          const char *page)
{
    return get_number((const char *const[]){DSV4, "--sglang-version", version,
                                            "--avail-mem-before-load-gib", gib,
                                            "--avail-mem-after-load-gib", gib,
                                            "--max-running-requests", running, "--page-size",
                                            page, "--get", "sglang_dsv4_full_tokens", NULL});
}

static void deepseek_v4(void **state)
{
    (void)state;
    static const struct {
        const char *version, *bpft;
    } eras[] = {{"0.5.12", "15955.85"}, {"0.5.13", "15897.45"}, {"0.5.14", "15897.45"},
                {"0.5.15", "7705.45"}};
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++) {
        char want[64];
        double b = get_number((const char *const[]){DSV4, "--sglang-version", eras[i].version,
                                                    "--get",
                                                    "sglang_dsv4_bytes_per_full_token", NULL});
        snprintf(want, sizeof want, "%.2f", b);
        assert_string_equal(want, eras[i].bpft);
    }
    /* the logs: [0.5.15+] 11.89 GB, c128_state_fixed 0.11 GB, full_token 1,641,472 (pages of
     * 256); 1.57 GB, 0.07 GB, 209,280 (pages of 128); [0.5.12's formula, 2026-05-15, page
     * 256] 45.78 GB, 3,080,960 and 19.58 GB, 1,317,632. c128_state_fixed is (running + 3) x
     * 128 rows x 4,096 B x 20 layers = (running + 3) x 10,485,760 B: 0.11 GB is running 8
     * (0.107 GiB; 7 gives 0.098, 9 0.117), 0.07 GB running 4 (0.068; 3 0.059, 5 0.078) */
    static const struct {
        const char *version, *lo, *hi, *running, *page;
        double logged, kv_lo, kv_hi; /* kvcalc's two ends, as docs/sglang.md quotes them */
    } logs[] = {{"0.5.15", "11.885", "11.895", "8", "128", 1641472, 1641088, 1642496},
                {"0.5.15", "1.565", "1.575", "4", "128", 209280, 208512, 209920},
                {"0.5.12", "45.775", "45.785", "256", "256", 3080960, 3080192, 3080960},
                {"0.5.12", "19.575", "19.585", "256", "256", 1317632, 1317120, 1317888}};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        double lo = dsv4_tokens(logs[i].version, logs[i].lo, logs[i].running, logs[i].page);
        double hi = dsv4_tokens(logs[i].version, logs[i].hi, logs[i].running, logs[i].page);
        if (!(lo <= logs[i].logged && logs[i].logged <= hi))
            fail_msg("log %zu: %.0f not in [%.0f, %.0f]", i, logs[i].logged, lo, hi);
        assert_true(lo == logs[i].kv_lo && hi == logs[i].kv_hi);
    }
#define RUN4(v, gib, running) DSV4, "--sglang-version", v, "--avail-mem-before-load-gib", gib, \
                              "--avail-mem-after-load-gib", gib, "--max-running-requests", running
    EXPECT_STDOUT("115343360\n", RUN4("0.5.15", "11.89", "8"), "--get",
                  "sglang_dsv4_c128_state_fixed_bytes");
    EXPECT_STDOUT("73400320\n", RUN4("0.5.15", "1.57", "4"), "--get",
                  "sglang_dsv4_c128_state_fixed_bytes");
    EXPECT_STDOUT("0\n", RUN4("0.5.14", "1.57", "4"), "--get",
                  "sglang_dsv4_c128_state_fixed_bytes");
    /* the 11.89 GB log's pools from its full: swa=164096, c4=410368, c128=12824,
     * c4_state=10256 (both logs are of Ascend NPUs, "max_num_reqs=8" and "=4") */
    static const struct {
        const char *key, *want;
    } npu8[] = {{"sglang_dsv4_swa_tokens", "164096\n"}, {"sglang_dsv4_c4_tokens", "410368\n"},
                {"sglang_dsv4_c128_tokens", "12824\n"}, {"sglang_dsv4_c4_state_size", "10256\n"}};
    for (size_t i = 0; i < sizeof npu8 / sizeof npu8[0]; i++)
        EXPECT_STDOUT(npu8[i].want, RUN4("0.5.15", "11.895", "8"), "--page-size", "128",
                      "--max-total-tokens", "1641472", "--get", npu8[i].key);
    /* the pool sizes from the logged full: full=209280, swa=20864, c4=52320, c128=1635,
     * c4_state=1304, c128_state=0 - as kvcalc derives them from a full of 209,280 (a
     * --max-total-tokens cap at it, above the 1.57 GB's lower end) */
    static const struct {
        const char *key, *want;
    } sizes[] = {{"sglang_dsv4_full_tokens", "209280\n"}, {"sglang_dsv4_swa_tokens", "20864\n"},
                 {"sglang_dsv4_c4_tokens", "52320\n"},    {"sglang_dsv4_c128_tokens", "1635\n"},
                 {"sglang_dsv4_c4_state_size", "1304\n"}, {"sglang_dsv4_c128_state_size", "0\n"},
                 {"max_concurrency", "4\n"}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        EXPECT_STDOUT(sizes[i].want, RUN4("0.5.15", "1.575", "4"), "--page-size", "128",
                      "--max-total-tokens", "209280", "--get", sizes[i].key);
    /* before 0.5.15 the 128:1 states are a pool of the window's pages: 20,864 // 128 x 128 */
    EXPECT_STDOUT("20864\n", RUN4("0.5.14", "3.5", "4"), "--page-size", "128",
                  "--max-total-tokens", "209280", "--get", "sglang_dsv4_c128_state_size");
    /* the text prints both lines in SGLang's words */
    run_result r;
    run_kvcalc((const char *const[]){RUN4("0.5.15", "11.89", "8"), NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "DSV4 memory calculation: bytes_per_full_token=7705.45, "
                                  "available_bytes=11.89 GB, c128_state_fixed=0.11 GB, "
                                  "full_token="));
    assert_non_null(strstr(r.out, "DSV4 pool sizes: full="));
    run_free(&r);
    run_kvcalc((const char *const[]){RUN4("0.5.12", "45.78", "256"), NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "DSV4 memory calculation: bytes_per_full_token=15955.85, "
                                  "available_bytes=45.78 GB, full_token="));
    run_free(&r);
    /* the default 256 running: (256 + 3) x 10,485,760 B of 128:1 states */
    EXPECT_STDOUT("2715811840\n", DSV4, "--sglang-version", "0.5.15", "--get",
                  "sglang_dsv4_c128_state_fixed_bytes");
    /* at most 256 running unless given (deepseek_v4_hook.py) */
    EXPECT_STDOUT("256\n", DSV4, "--sglang-version", "0.5.15", "--gpu", "h200", "--tp", "4",
                  "--get", "max_concurrency");
    /* what is not modelled is refused, naming the flag */
    static const struct {
        const char *flag, *value, *says;
    } refused[] = {
        {"--sglang-version", "0.5.11", "from 0.5.12"},
        {"--page-size", "64", "page size to 256"},
        {"--page-size", "128", "page size to 256"}, /* 0.5.13: the NPU's 128 came in 0.5.14 */
        {"--dtype", "bf16", "is not supported for DeepseekV4ForCausalLM"},
        {"--pp", "2", "pipeline stages"},
        {"--speculative-algorithm", "EAGLE3", "Only EAGLE speculative algorithm is supported"},
        {"--enable-hierarchical-cache", NULL, "HiCache"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        run_kvcalc((const char *const[]){DSV4, "--sglang-version", "0.5.13", refused[i].flag,
                                         refused[i].value, NULL},
                   &r);
        assert_int_equal(r.status, 2);
        if (!strstr(r.err, refused[i].says) || !strstr(r.err, refused[i].flag))
            fail_msg("%s: %s", refused[i].flag, r.err);
        run_free(&r);
    }
    /* a top-k above 1 (with draft tokens: alone it is refused for want of them) */
    run_kvcalc((const char *const[]){DSV4, "--sglang-version", "0.5.13",
                                     "--speculative-num-draft-tokens", "2",
                                     "--speculative-eagle-topk", "2", NULL},
               &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "topk == 1"));
    run_free(&r);
    /* speculative decoding (EAGLE, top-k 1): rings of 16 and 256 rows, and x (L + 1) / L:
     *   0.5.15: (0.1 x 584 x 43 + 584 x 21 / 4 + 584 x 20 / 128 + 132 x 21 / 4
     *            + 0.1 x 16 / 128 x (8,192 + 2,048) x 21) x 44 / 43 = 9,049.45 x 44 / 43
     *           = 9,259.90
     *   0.5.13: (9,049.45 + 0.1 x 256 / 128 x 4,096 x 20) x 44 / 43 = 26,024.93
     *   0.5.12: (9,049.45 + 58.4 + 16,384) x 45 / 44 = 26,071.21
     * c128_state_fixed at 8 running: ceil((9 x 256 + 257) / 128) = 21 rows of 128, x 4,096 B
     * x 20 = 220,200,960 B (0.21 GB); c4_state = swa // 128 x 16 */
    static const struct {
        const char *version, *bpft;
    } spec[] = {{"0.5.12", "26071.21"}, {"0.5.13", "26024.93"}, {"0.5.15", "9259.90"}};
    for (size_t i = 0; i < sizeof spec / sizeof spec[0]; i++) {
        char want[64];
        double b = get_number((const char *const[]){RUN4(spec[i].version, "11.89", "8"),
                                                    "--speculative-num-draft-tokens", "2",
                                                    "--get",
                                                    "sglang_dsv4_bytes_per_full_token", NULL});
        snprintf(want, sizeof want, "%.2f", b);
        assert_string_equal(want, spec[i].bpft);
    }
    EXPECT_STDOUT("220200960\n", RUN4("0.5.15", "11.89", "8"), "--speculative-num-draft-tokens",
                  "2", "--get", "sglang_dsv4_c128_state_fixed_bytes");
    double swa = get_number((const char *const[]){RUN4("0.5.15", "11.89", "8"),
                                                  "--speculative-num-draft-tokens", "2", "--get",
                                                  "sglang_dsv4_swa_tokens", NULL});
    double c4s = get_number((const char *const[]){RUN4("0.5.15", "11.89", "8"),
                                                  "--speculative-num-draft-tokens", "2", "--get",
                                                  "sglang_dsv4_c4_state_size", NULL});
    assert_true(c4s == (double)((int64_t)swa / 128 * 16));
    /* the hook's 256 running requests stand (not speculative decoding's 48) */
    EXPECT_STDOUT("256\n", DSV4, "--sglang-version", "0.5.15", "--avail-mem-before-load-gib",
                  "11.89", "--avail-mem-after-load-gib", "11.89", "--speculative-num-draft-tokens",
                  "2", "--get", "sglang_max_running_requests");
    /* from 0.5.14 the MTP layer's weights are in A: kvcalc wants the log's A for V4 */
    run_kvcalc((const char *const[]){DSV4, "--sglang-version", "0.5.15", "--gpu", "h200",
                                     "--speculative-num-draft-tokens", "2", NULL},
               &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--avail-mem-after-load-gib"));
    run_free(&r);
    /* bfloat16 from 0.5.14 (Ascend NPUs), the same bytes */
    double bf16 = get_number((const char *const[]){DSV4, "--sglang-version", "0.5.15", "--dtype",
                                                   "bf16", "--page-size", "128", "--get",
                                                   "sglang_dsv4_bytes_per_full_token", NULL});
    assert_true(fabs(bf16 - 7705.45) < 1e-9);
    /* --max-total-tokens: the profiled line, then the pools again from the cap (the S25 log:
     * full=209280 ..., then full=32768, swa=3200, c4=8192, c128=256, c4_state=200) */
    run_kvcalc((const char *const[]){RUN4("0.5.15", "1.57", "4"), "--page-size", "128",
                                     "--max-total-tokens", "32768", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "DSV4 pool sizes: full=32768, swa=3200, c4=8192, c128=256, "
                                  "c4_state=200, c128_state=0\n"));
    assert_non_null(strstr(r.out, "full_token=209152\nDSV4 pool sizes: full=209152, "));
    run_free(&r);
#undef RUN4
}

/* The S25 log (tests/logs/README.md): DeepSeek-V4-Flash-0731-w4a8 on four Ascend NPUs, TP4,
 * f 0.7, page 128, 4 running, --max-total-tokens 32768. Its version is not stated: its
 * "c128_state_fixed=" dates it to 0.5.15's rules; its max_running_requests sizes the 128:1
 * states (4: 73,400,320 B, 0.07 GB); bytes_per_full_token and the capped pools are exact.
 * The profiled full_token is 1.04 % above the log's: kvcalc's budget is the logged readings'
 * 19.73 - 60.48 x 0.3 = 1.586 GiB where SGLang printed 1.57 (its A read at sizing time, after
 * the weights' line, not printed) - from the logged 1.57 it is 209,152, within the log's
 * rounding (deepseek_v4 above). */
static void deepseek_v4_log(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", KVCALC_SOURCE_DIR
                                     "/tests/logs/sglang-s25-dsv4-flash-npu.log",
                                     "--config", KVCALC_SOURCE_DIR
                                     "/tests/fixtures/frontier/deepseek-ai__DeepSeek-V4-Flash.json",
                                     "--params-b", "150", "--weight-dtype", "fp8", "--format",
                                     "json", NULL},
               &r);
    assert_int_equal(r.status, 0);
    static const char *const rows[] = {
        "\"quantity\": \"max_total_num_tokens\", \"unit\": \"tokens\", \"logged\": 32768, "
        "\"kvcalc\": 32768,",
        "\"quantity\": \"DSV4 bytes_per_full_token\", \"unit\": \"B\", \"logged\": 7705.45, "
        "\"kvcalc\": 7705.45",
        "\"quantity\": \"DSV4 c128_state_fixed\", \"unit\": \"bytes\", \"logged\": "
        "75161927.68, \"kvcalc\": 73400320,",
        "\"quantity\": \"DSV4 full_token\", \"unit\": \"tokens\", \"logged\": 209280, "
        "\"kvcalc\": 211456,",
        "\"quantity\": \"DSV4 full\", \"unit\": \"tokens\", \"logged\": 32768, \"kvcalc\": "
        "32768,",
        "\"quantity\": \"DSV4 swa\", \"unit\": \"tokens\", \"logged\": 3200, \"kvcalc\": 3200,",
        "\"quantity\": \"DSV4 c4\", \"unit\": \"tokens\", \"logged\": 8192, \"kvcalc\": 8192,",
        "\"quantity\": \"DSV4 c128\", \"unit\": \"tokens\", \"logged\": 256, \"kvcalc\": 256,",
        "\"quantity\": \"DSV4 c4_state\", \"unit\": \"rows\", \"logged\": 200, \"kvcalc\": 200,",
        "\"quantity\": \"DSV4 c128_state\", \"unit\": \"rows\", \"logged\": 0, \"kvcalc\": 0,",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strstr(r.out, rows[i]))
            fail_msg("row %zu not found: %s", i, rows[i]);
    run_free(&r);
}
#undef DSV4

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(versions_order_and_round_trip),
        cmocka_unit_test(lora_buffers),
        cmocka_unit_test(standalone_draft),
        cmocka_unit_test(lora_refusals),
        cmocka_unit_test(default_fraction_by_version),
        cmocka_unit_test(estimates_without_a_log),
        cmocka_unit_test(pool_arithmetic),
        cmocka_unit_test(library_and_table),
        cmocka_unit_test(usage_errors),
        cmocka_unit_test(speculative_decoding),
        cmocka_unit_test(hierarchical_cache),
        cmocka_unit_test(cpu_offload),
        cmocka_unit_test(moe_lora),
        cmocka_unit_test(deepseek_v4),
        cmocka_unit_test(deepseek_v4_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
