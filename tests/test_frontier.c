/*
 * test_frontier.c - layers of 2025-26 models through the binary: per-layer head sizes and
 * shared KV (Gemma-4), what each engine refuses rather than guesses, and the weights'
 * refusal as the user sees it. Expected values are hand arithmetic written here from the
 * configs in tests/fixtures (sources: data/models/SOURCES.md, tests/logs/README.md).
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

#include "run.h"

#define RUN(r, ...) run_kvcalc((const char *const[]){__VA_ARGS__, NULL}, r)
#define GEMMA4 KVCALC_SOURCE_DIR "/data/models/google__gemma-4-26B-A4B.json"
#define SHARED KVCALC_SOURCE_DIR "/tests/fixtures/variants/gemma-4-shared-kv.json"

static double get(const char *const *args)
{
    run_result r;
    run_kvcalc(args, &r);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    double v = strtod(r.out, NULL);
    run_free(&r);
    return v;
}

/* Gemma-4 26B-A4B: 25 sliding layers of 8 KV heads x 256 and 5 full layers of 2 x 512
 * (global_head_dim, num_global_key_value_heads with attention_k_eq_v; both K and V cached).
 *   per token, full layers: 2 x 5 x 2 x 512 x 2 B = 20,480; sliding 2 x 25 x 8 x 256 x 2 B =
 *   204,800 up to the 1,024-token window; @4,096: 20,480 x 4,096 + 204,800 x 1,024 =
 *   293,601,280 B */
static void gemma4_shapes(void **state)
{
    (void)state;
    assert_true(get((const char *const[]){"--config", GEMMA4, "--get", "kv_bytes_per_token",
                                          NULL}) == 20480);
    assert_true(get((const char *const[]){"--config", GEMMA4, "--get", "kv_bytes_per_request",
                                          NULL}) == 293601280.0);
    /* SGLang's cell: every attention layer at its own shape, 204,800 + 20,480 */
    assert_true(get((const char *const[]){"--config", GEMMA4, "--engine", "sglang", "--gpu",
                                          "h100", "--get", "sglang_cell_bytes", NULL}) ==
                225280.0);
    /* llama.cpp: the non-SWA cache is the 5 full layers, 8,192 cells x 2 x 512 x 2 B = 80 MiB
     * for K */
    assert_true(get((const char *const[]){"--config", GEMMA4, "--engine", "llama.cpp",
                                          "--ctx-size", "8192", "--parallel", "1", "--get",
                                          "llamacpp_k_bytes", NULL}) == 83886080.0);
    /* vLLM unifies the pages: sliding 16 x 8,192 B = 131,072 B; a full layer's 4,096 B per
     * token takes 32 tokens to fill it; 6 groups of 5 (25 sliding in 5, the 5 full in 1).
     * A request of 8,192 tokens: 8,192 / 32 = 256 full blocks + 5 x (ceil(min(1,023 + 8,192,
     * 8,192) / 16) + 1 = 513) sliding = 2,821 blocks */
    run_result r;
    RUN(&r, "--config", GEMMA4, "--engine", "vllm", "--gpu", "h100", "--params-b", "25.8",
        "--context", "8192");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  blocks  : 16 tokens x 131,072 B per layer page x 5 layers "
                                  "per group = 655,360 B per block; 6 KV cache groups\n"));
    assert_non_null(strstr(r.out, "one request of 8,192 tokens takes 2,821 blocks)"));
    run_free(&r);
    /* vLLM without the hybrid manager cannot keep the full layers' own shape: refused */
    RUN(&r, "--config", GEMMA4, "--engine", "vllm", "--disable-hybrid-kv-cache-manager");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "need the hybrid KV cache manager"));
    run_free(&r);
}

/* Its parameters, counted as transformers builds Gemma-4: full layers without v_proj (K is
 * V), four norms a layer, a dense MLP beside the 128 experts (enable_moe_block), and its
 * vision tower (gemma4_vision: four norms a block, 2 x 10,240 position rows). The
 * checkpoint's index counts 25,805,936,206 (a public model page, code index file
 * 71269743439): within 0.01%. */
static void gemma4_parameters(void **state)
{
    (void)state;
    double p = get((const char *const[]){"--config", GEMMA4, "--get", "params", NULL});
    assert_true(fabs(p - 25805936206.0) / 25805936206.0 < 1e-4);
}

/* num_kv_shared_layers: the last 10 of 30 layers read earlier caches and keep none. The
 * first 20 are 17 sliding + 3 full (layers 5, 11, 17): per token 2 x 3 x 2 x 512 x 2 =
 * 12,288 B; @2,048 12,288 x 2,048 + 2 x 17 x 8 x 256 x 2 x 1,024 = 167,772,160 B. */
static void shared_kv_layers(void **state)
{
    (void)state;
    assert_true(get((const char *const[]){"--config", SHARED, "--get", "kv_bytes_per_token",
                                          NULL}) == 12288);
    assert_true(get((const char *const[]){"--config", SHARED, "--context", "2048", "--get",
                                          "kv_bytes_per_request", NULL}) == 167772160.0);
    /* vLLM leaves the shared layers out of its groups: 17 sliding + 3 full = 20 layers */
    assert_true(get((const char *const[]){"--config", SHARED, "--engine", "vllm", "--gpu",
                                          "h100", "--get", "vllm_layers_per_group", NULL}) == 3);
    assert_true(get((const char *const[]){"--config", SHARED, "--engine", "sglang", "--gpu",
                                          "h100", "--get", "sglang_attention_layers", NULL}) == 20);
    run_result r;
    RUN(&r, "--config", SHARED);
    assert_non_null(strstr(r.out, "the last 10 reuse earlier layers' caches"));
    run_free(&r);
}

/* vLLM's --mtp: DeepSeek-V3.2's one MTP layer is loaded (13,477,385,728 parameters of the
 * estimate, fp8: 1,684,673,216 B on each of 8 GPUs) and is one more MLA layer in the group
 * (61 + 1); without a draft token count, or on a model without MTP layers, refused. */
static void mtp_layers(void **state)
{
    (void)state;
    const char *base[] = {"--model", "deepseek-v3.2", "--engine", "vllm", "--tp", "8", "--gpu",
                          "h200", "--dtype", "fp8", "--get", "vllm_weights_bytes", NULL};
    double w0 = get(base);
    const char *mtp[] = {"--model", "deepseek-v3.2", "--engine", "vllm", "--tp", "8", "--gpu",
                         "h200", "--dtype", "fp8", "--mtp", "--num-speculative-tokens", "1",
                         "--get", "vllm_weights_bytes", NULL};
    assert_true(fabs(get(mtp) - w0 - 1684673216.0) < 1);
    mtp[14] = "vllm_layers_per_group";
    assert_true(get(mtp) == 62);
    run_result r;
    RUN(&r, "--model", "deepseek-v3.2", "--engine", "vllm", "--mtp");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--num-speculative-tokens"));
    run_free(&r);
    RUN(&r, "--model", "qwen3-8b", "--engine", "vllm", "--mtp", "--num-speculative-tokens", "1");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--mtp: the model has no MTP layers"));
    run_free(&r);
}

/* vLLM's --max-model-len auto (or -1): the longest max_model_len its start-up check accepts,
 * from the model's own. vLLM's test_auto_fit_max_model_len_reserves_null_block
 * (tests/v1/core/test_kv_cache_utils.py @ 002f10e0, lines 4081-4099): max_model_len 1024,
 * one layer of new_kv_cache_spec() (2 KV heads x 64, float32, 16-token blocks: 16,384 B a
 * page), memory for exactly 64 pages -> 63 x 16 = 1,008 (one block is the null block); before
 * 0.28, all 64 blocks: 1,024. */
static void auto_fit(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-autofit-XXXXXX";
    write_temp(path, "{\"num_hidden_layers\": 1, \"num_attention_heads\": 2, "
                     "\"num_key_value_heads\": 2, \"head_dim\": 64, \"hidden_size\": 128, "
                     "\"intermediate_size\": 256, \"vocab_size\": 1000, "
                     "\"max_position_embeddings\": 1024}");
    char mem[64];
    snprintf(mem, sizeof mem, "%.17g", 16384.0 * 64 / 1073741824.0);
    const char *args[] = {"--config", path, "--engine", "vllm", "--dtype", "fp32", "--block-size",
                          "16", "--kv-cache-memory-gib", mem, "--vllm-version", "0.28",
                          "--max-model-len", "auto", "--get", "context", NULL};
    assert_true(get(args) == 1008);
    args[11] = "0.27";
    assert_true(get(args) == 1024);
    args[13] = "-1";
    assert_true(get(args) == 1024);
    args[14] = "--get";
    args[15] = "vllm_auto_fit_from";
    assert_true(get(args) == 1024);
    args[11] = "0.13";
    run_result r;
    run_kvcalc(args, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--max-model-len auto: kvcalc knows vLLM's auto-fit from 0.14"));
    run_free(&r);
    RUN(&r, "--model", "qwen3-8b", "--max-model-len", "auto");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "give --engine vllm"));
    run_free(&r);
    unlink(path);
}

/* Gemma-4 E2B's text config (a dict a TensorRT-Edge-LLM test keeps "faithful to the
 * published checkpoint", tests/fixtures/frontier/README.md): 35 layers, the last 20 reuse
 * earlier caches; the first 15 are 3 full (layers 4, 9, 14: 1 KV head x global_head_dim 512,
 * attention_k_eq_v false) + 12 sliding (1 x 256, window 512). Per token 2 x 3 x 1 x 512 x 2 =
 * 6,144 B; @4,096: 6,144 x 4,096 + 2 x 12 x 256 x 2 x 512 = 31,457,280 B. Its per-layer
 * embeddings are not counted: the weights are refused until given. */
static void gemma4_e2b(void **state)
{
    (void)state;
    const char *cfg = KVCALC_SOURCE_DIR
        "/tests/fixtures/frontier/google__gemma-4-E2B-it__text_config__from-dict.json";
    assert_true(get((const char *const[]){"--config", cfg, "--params-b", "5.1", "--get",
                                          "kv_bytes_per_token", NULL}) == 6144);
    assert_true(get((const char *const[]){"--config", cfg, "--params-b", "5.1", "--get",
                                          "kv_bytes_per_request", NULL}) == 31457280.0);
    /* its per-layer embeddings are counted as vLLM's Gemma4Model builds them (gemma4.py @
     * 28be48fa9): embed_tokens_per_layer 262,144 x (256 x 35), per_layer_model_projection
     * 1,536 x 8,960, per_layer_projection_norm 256, and in each of the 35 layers the gate
     * 1,536 x 256, the projection 256 x 1,536, a norm of 1,536 and the layer scalar: the
     * same config without them (hidden_size_per_layer_input 0) is that much smaller */
    char *text = read_file(cfg, NULL);
    assert_non_null(text);
    char *at = strstr(text, "\"hidden_size_per_layer_input\": 256");
    assert_non_null(at);
    memcpy(at + strlen("\"hidden_size_per_layer_input\": "), "  0", 3);
    char bare[512];
    snprintf(bare, sizeof bare, "%s/gemma4-e2b-no-ple-XXXXXX", KVCALC_BINARY_DIR);
    write_temp(bare, text);
    free(text);
    double with = get((const char *const[]){"--config", cfg, "--get", "params", NULL});
    double without = get((const char *const[]){"--config", bare, "--get", "params", NULL});
    remove(bare);
    double ple = 262144.0 * 256 * 35 + 1536.0 * 256 * 35 + 256 + 35 * (2 * 1536.0 * 256 + 1536 + 1);
    assert_true(with - without == ple);
    /* the checkpoint's config (tt-metal's copy) has the conformer audio encoder too, which
     * the estimate does not count: its weights are refused, naming it */
    run_result r;
    RUN(&r, "--config",
        KVCALC_SOURCE_DIR "/tests/fixtures/frontier/google__gemma-4-E2B-it.json");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "(audio_config: its conformer audio encoder is not counted): "
                                  "give --params-b"));
    run_free(&r);
}

/* LFM2's short convolutions (tests/fixtures/frontier: a fine-tune of LFM2.5-1.2B with its
 * shapes). Parameters: 65,536 x 2,048 tied embeddings; 6 attention layers (q, o 2,048^2; k,
 * v 2,048 x 512; q/k norms 64 each); 10 conv layers (in_proj 2,048 x 6,144, conv 2,048 x 3,
 * out_proj 2,048^2); 16 SwiGLU MLPs of 8,192 (block_auto_adjust_ff_dim: 2/3 of 12,288), two
 * norms each => 1,170,340,608, LFM2-1.2B's own count. The conv state (L_cache - 1) x 2,048 x 2
 * B = 8,192 B pads to the 16-token attention page of 2 x 8 x 64 x 2 x 16 = 32,768 B (+300%);
 * vLLM 0.17's real log (MetaX C500, 2,048 tokens: tests/logs/README.md) prints these five
 * lines; its block count, 40,738, follows from its token line (217,264 = 40,738 // 3 x 16). */
static void short_convolutions(void **state)
{
    (void)state;
    const char *cfg = KVCALC_SOURCE_DIR
        "/tests/fixtures/frontier/FlameF0X__LFM2.5-1.2B-Distilled-Claude-4.6__derivative.json";
    assert_true(get((const char *const[]){"--config", cfg, "--get", "params", NULL}) ==
                1170340608.0);
    /* LFM2-1.2B's first config.json (July 2025): full_attn_idxs [2, 5, 8, 10, 12, 14] instead
     * of layer_types, block_ff_dim instead of intermediate_size, no tie_word_embeddings - read
     * as transformers' Lfm2Config does: the same model. 6 attention layers x 2 x 8 x 64 x 2 B
     * = 12,288 B a token; at 4,096 tokens 50,331,648 + 10 conv layers x 2,048 x 2 x 2 B
     * (81,920) = 50,413,568 B a request. */
    const char *first[] = {"--model", "lfm2-1.2b", "--get", NULL, NULL};
    first[3] = "params";
    assert_true(get(first) == 1170340608.0);
    first[3] = "kv_bytes_per_token";
    assert_true(get(first) == 12288.0);
    first[3] = "kv_bytes_per_request";
    assert_true(get(first) == 50413568.0);
    run_result r;
    RUN(&r, "--config", cfg, "--engine", "vllm", "--vllm-version", "0.17", "--context", "2048",
        "--gpu-mem-gib", "15.625", "--num-gpu-blocks-override", "40738");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Setting attention block size to 16 tokens to ensure that "
                                  "attention page size is >= mamba page size.\n"
                                  "Padding mamba page size by 300.00% to ensure that mamba page "
                                  "size and attention page size are exactly equal.\n"));
    assert_non_null(strstr(r.out, "WARNING: Add 2 padding layers, may waste at most 20.00% KV "
                                  "cache memory\n"));
    assert_non_null(strstr(r.out, "GPU KV cache size: 217,264 tokens\n"
                                  "Maximum concurrency for 2,048 tokens per request: 313.37x\n"));
    run_free(&r);
}

/* vLLM's hybrid lines read from a real log (tests/logs/vllm-h02-granite-4.0-h-350m.log,
 * 0.11.1rc2 on ROCm, the head of the log only): granite-4.0-h-350m's Mamba-2 state a layer is
 * conv (1,536 + 2 x 1 x 128) x 3 = 5,376 + SSM 48 x 32 x 128 = 196,608 elements, 403,968 B in
 * bf16; an attention token a layer 2 x 4 x 64 x 2 = 1,024 B; the block 16 x ceil(403,968 /
 * 16,384) = 400 tokens, its page 409,600 B: padding (409,600 - 403,968) / 403,968 = 1.39%. */
static void hybrid_lines_of_a_real_log(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--from-log", KVCALC_SOURCE_DIR "/tests/logs/vllm-h02-granite-4.0-h-350m.log",
        "--config",
        KVCALC_SOURCE_DIR
        "/tests/fixtures/frontier/ibm-granite__granite-4.0-h-350m__trimmed-test-literal-mlx4bit.json");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "attention block size                   400            400     "
                                  "        +0  from the model and settings: equal\n"));
    assert_non_null(strstr(r.out, "mamba page padding                    1.39           1.39     "
                                  "        +0  from the model and settings: equal\n"));
    run_free(&r);
    const char *cfg = KVCALC_SOURCE_DIR
        "/tests/fixtures/frontier/ibm-granite__granite-4.0-h-350m__trimmed-test-literal-mlx4bit.json";
    assert_true(get((const char *const[]){"--engine", "vllm", "--config", cfg, "--get",
                                          "vllm_state_page_bytes", NULL}) == 403968.0);
    assert_true(get((const char *const[]){"--engine", "vllm", "--config", cfg, "--get",
                                          "vllm_page_bytes", NULL}) == 409600.0);
}

/* Kimi-Linear-48B-A3B (tests/fixtures/frontier): linear_attn_config's kda_layers (20 of
 * 27, 1-based) and full_attn_layers (7, MLA: 512 + 64). A KDA layer's state (vLLM
 * kda_state_shape @ 02d71083, llama.cpp n_embd_r / n_embd_s): conv (32 x 128 + 2 x 32 x 128)
 * x 3 = 36,864 elements, recurrent 32 x 128 x 128 = 524,288 in float32.
 *   vLLM: 73,728 B (bf16) + 2,097,152 B = 2,170,880 B a page; an MLA token 576 x 2 = 1,152 B;
 *         the block a multiple of 64 for MLA: 64 x ceil(2,170,880 / 73,728) = 1,920 tokens,
 *         padding (2,211,840 - 2,170,880) / 2,170,880 = 1.89%;
 *   SGLang: the same per layer, x 20 = 43,417,600 B a request;
 *   llama.cpp: R 20 x 36,864 x 4 B = 2.81 MiB, S 20 x 524,288 x 4 B = 40.00 MiB a sequence,
 *         the MLA cache 8,192 x 7 x 576 x 2 B = 63.00 MiB. */
static void kda_layers(void **state)
{
    (void)state;
    const char *cfg =
        KVCALC_SOURCE_DIR "/tests/fixtures/frontier/moonshotai__Kimi-Linear-48B-A3B-Instruct.json";
    /* its tensors too (the checkpoint's list, code index file 62691149540): a KDA layer
     * 2 x 4,096 x 2,304 (q, k) + 4,096 x 2,304 (v) + 3 x 4,096 x 4 (convs) + 128 x 2,304 +
     * 4,096 x 128 (f) + 128 x 2,304 + 4,096 x 128 (g) + 32 x 2,304 (b) + 32 + 4,096 + 128 +
     * 4,096 x 2,304 (o) = 39,514,272; the model, with its shared experts and router biases,
     * the checkpoint's 49,122,681,728 */
    assert_true(get((const char *const[]){"--config", cfg, "--get", "params", NULL}) ==
                49122681728.0);
    assert_true(get((const char *const[]){"--config", cfg, "--params-b", "49", "--engine",
                                          "vllm", "--get", "vllm_state_page_bytes", NULL}) ==
                2170880.0);
    assert_true(get((const char *const[]){"--config", cfg, "--params-b", "49", "--engine",
                                          "vllm", "--get", "block_size", NULL}) == 1920.0);
    assert_true(get((const char *const[]){"--config", cfg, "--params-b", "49", "--engine",
                                          "sglang", "--get", "sglang_mamba_bytes_per_request",
                                          NULL}) == 43417600.0);
    run_result r;
    RUN(&r, "--config", cfg, "--params-b", "49", "--engine", "vllm", "--gpu", "h200");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Setting attention block size to 1920 tokens to ensure that "
                                  "attention page size is >= mamba page size.\n"
                                  "Padding mamba page size by 1.89% to ensure that mamba page "
                                  "size and attention page size are exactly equal.\n"));
    run_free(&r);
    RUN(&r, "--config", cfg, "--params-b", "49", "--engine", "llama.cpp", "-c", "8192", "-np",
        "1");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "llama_kv_cache: size =   63.00 MiB (  8192 cells,   7 layers,  "
                                  "1/1 seqs), K (f16):   63.00 MiB, V (f16):    0.00 MiB\n"));
    assert_non_null(strstr(r.out, "R (f32):    2.81 MiB, S (f32):   40.00 MiB\n"));
    run_free(&r);
}

/* DeepSeek-V4-Flash (tests/fixtures/frontier: 43 layers, compress_ratios 0, 0, then 4 and
 * 128 by turns: 21 layers at 4:1, 20 at 128:1; head_dim 512, rope 64, index_head_dim 128,
 * window 128). By hand:
 *   - a latent entry (fp8_ds_mla): 448 fp8 NoPE + 64 x 2 B RoPE + 448 / 64 scales + 1 pad =
 *     584 B; an indexer key 128 + 4 = 132 B;
 *   - the lesson's engine, packed perfectly: 21 x (584 + 132) / 4 + 20 x 584 / 128 =
 *     3,850.25 B a token, the windows 43 x 584 = 25,112 B a token up to 128 tokens, the
 *     compressors' float32 states 21 x 8 x (2 x 2 x 512 x 4 + 2 x 2 x 128 x 4) + 20 x 128 x
 *     (2 x 512 x 4) = 12,206,080 B; @4,096: 15,770,624 + 3,214,336 + 12,206,080 =
 *     31,191,040 B;
 *   - vLLM (vllm/v1/core/kv_cache_utils.py @ 28be48fa): MLA pages 64 x 584 -> 37,440, 2 x
 *     584 -> 1,728, 64 x 132 -> 8,640 (576-aligned); the groups' layer counts 21 (the MLA
 *     group's most common page), 43 windows, 21 and 20 states: _approximate_gcd 22; a block
 *     (1,728 + 8,640 + 37,440) x 22 = 1,051,776 B. A request of 30,000 tokens with 16,384
 *     batched: ceil(30,000 / 256) = 118 latent blocks, 2 x (ceil(16,511 / 64) + 1) = 2 x 259
 *     window blocks, ceil(16,391 / 4) + 1 = 4,099 and ceil(16,511 / 8) + 1 = 2,065 state
 *     blocks: 6,800 blocks, 7,152,076,800 B = 6.66 GiB, as vllm#44376 (2 GH200s, TP 2,
 *     expert parallel) printed: "(6.66 GiB KV cache is needed, which is larger than the
 *     available KV cache memory (5.44 GiB). Based on the available memory, the estimated
 *     maximum model length is 13528." - 13,528 is within the 5.44 GiB's rounding (5.435 to
 *     5.445 GiB give 13,512 to 13,536).
 *   - the concurrency line weighs each group's pages by its page bytes against the MLA
 *     group's 21 x (37,440 + 8,640) + 20 x 1,728 = 1,002,240: at 131,072 tokens and 8,192
 *     batched, 512 x 1,002,240 + 131 x 22 x 37,440 + 131 x 21 x 37,440 + 2,051 x 21 x (37,440
 *     + 8,640) + 1,041 x 20 x 37,440 = 3,488,258,880 -> ceil(/ 1,002,240) = 3,481, while the
 *     pool gives a request 512 + 262 + 2,051 + 1,041 = 3,866 blocks. */
static void deepseek_v4(void **state)
{
    (void)state;
#define V4 "--config", KVCALC_SOURCE_DIR "/tests/fixtures/frontier/deepseek-ai__DeepSeek-V4-Flash.json", \
           "--params-b", "150", "--weight-dtype", "fp8"
    assert_true(get((const char *const[]){V4, "--get", "kv_bytes_per_token", NULL}) == 3850.25);
    assert_true(get((const char *const[]){V4, "--get", "kv_bytes_per_request", NULL}) ==
                31191040.0);
#define GH200 V4, "--engine", "vllm", "--vllm-version", "0.22", "--gpu", "gh200", "--tp", "2", \
              "--enable-expert-parallel", "--context", "30000", "--kv-cache-memory-gib", "5.44", \
              "--max-num-batched-tokens", "16384", "--weights-gib", "75"
    assert_true(get((const char *const[]){GH200, "--get", "vllm_page_bytes", NULL}) == 47808.0);
    assert_true(get((const char *const[]){GH200, "--get", "vllm_layers_per_group", NULL}) == 22.0);
    assert_true(get((const char *const[]){GH200, "--get", "vllm_kv_cache_groups", NULL}) == 5.0);
    assert_true(get((const char *const[]){GH200, "--get", "vllm_blocks_per_request", NULL}) ==
                6800.0);
    assert_true(get((const char *const[]){GH200, "--get", "vllm_needed_bytes", NULL}) ==
                6800.0 * 1051776.0);
    double fit = get((const char *const[]){GH200, "--get", "vllm_max_model_len_fit", NULL});
    assert_true(fit >= 13512 && fit <= 13536);
    run_result r;
    RUN(&r, GH200);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(6.66 GiB KV cache is needed, which is larger than the "
                                  "available KV cache memory (5.44 GiB)."));
    run_free(&r);
#define B200 V4, "--engine", "vllm", "--vllm-version", "0.22", "--gpu", "b200", "--tp", "4", \
             "--context", "131072", "--weights-gib", "40"
    double blocks = get((const char *const[]){B200, "--get", "num_gpu_blocks", NULL});
    assert_true(get((const char *const[]){B200, "--get", "vllm_blocks_per_request", NULL}) ==
                3866.0);
    double conc = get((const char *const[]){B200, "--get", "vllm_max_concurrency", NULL});
    assert_true(fabs(conc - blocks / 3481.0) < 1e-9 * conc);
    /* the MTP layer keeps a window only: 44 windows, two groups of 22 (823,680 B of pages
     * each where they were 22 and 21): 3,488,258,880 - 131 x 21 x 37,440 + 131 x 22 x 37,440
     * = 3,493,163,520 -> 3,486; the blocks a request gets stay 3,866 */
    conc = get((const char *const[]){B200, "--mtp", "--num-speculative-tokens", "1", "--get",
                                     "vllm_max_concurrency", NULL});
    assert_true(fabs(conc - blocks / 3486.0) < 1e-9 * conc);
    /* what only vLLM sizes is refused elsewhere, and what vLLM refuses in its words */
    static const struct {
        const char *flag, *value, *says;
    } refused[] = {
        {"--engine", "ollama", "not yet for Ollama"},
        {"--dtype", "bf16", "DeepseekV4 only supports fp8 kv-cache format for now"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        RUN(&r, V4, refused[i].flag, refused[i].value);
        assert_int_equal(r.status, 2);
        if (!strstr(r.err, refused[i].says))
            fail_msg("%s %s: %s", refused[i].flag, refused[i].value, r.err);
        run_free(&r);
    }
    RUN(&r, B200, "--vllm-version", "0.20");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "from vLLM 0.21"));
    run_free(&r);
    /* under load its windows and compressor states hold a few blocks each once the prompt
     * is in: a request of 8,000 + 1,000 tokens holds on average ceil(n / 256) latent blocks
     * plus, after its prompt's step, 3 a window group, 3 for the 4:1 states (8 tokens in
     * blocks of 4) and 17 for the 128:1 ones (128 in blocks of 8) */
    double full = 0, rest = 2 * 125 + 2000 + 1000; /* the prompt's step: 8,000 / 64, 4, 8 */
    for (int n = 8000; n <= 8999; n++)
        full += (n + 255) / 256;
    for (int n = 8001; n <= 8999; n++)
        rest += 2 * ((n + 63) / 64 - (n - 128) / 64) + (n + 3) / 4 - (n - 8) / 4 +
                (n + 7) / 8 - (n - 128) / 8;
    double mean = get((const char *const[]){B200, "--prompt-tokens", "8000", "--output-tokens",
                                            "1000", "--rate", "5", "--tpot-ms", "20", "--get",
                                            "workload_blocks_per_request_mean", NULL});
    assert_true(fabs(mean - (full + rest) / 1000.0) < 1e-9);
    RUN(&r, B200, "--block-size", "64");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "blocks of 256 tokens"));
    run_free(&r);
#undef B200
#undef GH200
#undef V4
}

/* DeepSeek-V4-Flash in llama.cpp (llama_kv_cache_dsv4, src/llama-kv-cache-dsv4.cpp @ 3f545bec,
 * b10573): every cache K only, in -ctk's type; a stream a slot. By hand, -c 32768 -np 1, f16
 * (2 B an element), n_ubatch 512:
 *   raw window: 43 layers x 512 x 2 B x GGML_PAD(min(32,768, 128 + 512), 256) = 768 cells
 *               = 33,816,576 B (32.25 MiB)
 *   CSA latent: 21 x 512 x 2 B x GGML_PAD(ceil(32,768 / 4), 256) = 8,192 cells = 176,160,768
 *   HCA latent: 20 x 512 x 2 B x GGML_PAD(ceil(32,768 / 128) = 256, 256) = 5,242,880
 *   indexer:    21 x 128 x 2 B x 8,192 = 44,040,192
 *   states, f32 kv + score a plane: CSA 21 x 2 x 1,024 x 8 x 4 = 1,376,256; HCA 20 x 2 x 512 x
 *               128 x 4 = 10,485,760; indexer 21 x 2 x 256 x 8 x 4 = 344,064
 *   all: 271,466,496 B = 258.89 MiB, the KV that -ngl places and fits_gpu counts. */
static void deepseek_v4_llamacpp(void **state)
{
    (void)state;
#define V4 "--config", KVCALC_SOURCE_DIR "/tests/fixtures/frontier/deepseek-ai__DeepSeek-V4-Flash.json", \
           "--params-b", "150", "--weight-dtype", "fp8", "--engine", "llama.cpp", "--gpu-mem-gib", \
           "400"
#define ONE V4, "-c", "32768", "-np", "1"
    static const struct {
        const char *key;
        double want;
    } one[] = {
        {"llamacpp_layers", 0},           {"llamacpp_swa_layers", 43},
        {"llamacpp_swa_cells", 768},      {"llamacpp_swa_k_bytes", 33816576},
        {"llamacpp_swa_v_bytes", 0},      {"llamacpp_csa_layers", 21},
        {"llamacpp_csa_cells", 8192},     {"llamacpp_csa_k_bytes", 176160768},
        {"llamacpp_hca_layers", 20},      {"llamacpp_hca_cells", 256},
        {"llamacpp_hca_k_bytes", 5242880}, {"llamacpp_lid_layers", 21},
        {"llamacpp_lid_cells", 8192},     {"llamacpp_lid_k_bytes", 44040192},
        {"llamacpp_dsv4_state_planes", 1}, {"llamacpp_csa_state_bytes", 1376256},
        {"llamacpp_hca_state_bytes", 10485760}, {"llamacpp_lid_state_bytes", 344064},
        {"kv_cache_bytes", 271466496},    {"llamacpp_kv_gpu_bytes", 271466496},
        {"llamacpp_kv_host_bytes", 0},
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        double got = get((const char *const[]){ONE, "--get", one[i].key, NULL});
        if (got != one[i].want)
            fail_msg("%s: %.17g, by hand %.17g", one[i].key, got, one[i].want);
    }
    run_result r;
    RUN(&r, ONE);
    assert_int_equal(r.status, 0);
    static const char *const lines[] = {
        "llama_kv_cache_dsv4: creating DSV4 raw KV cache\n",
        "llama_kv_cache_iswa: creating non-SWA KV cache, size = 32768 cells\n",
        ("llama_kv_cache: size =    0.00 MiB ( 32768 cells,   0 layers,  1/1 seqs), K (f16):    "
         "0.00 MiB, V (f16):    0.00 MiB\n"),
        ("llama_kv_cache: size =   32.25 MiB (   768 cells,  43 layers,  1/1 seqs), K (f16):   "
         "32.25 MiB, V (f16):    0.00 MiB\n"),
        "llama_kv_cache_dsv4: creating DSV4 CSA compressed KV cache, size = 8192 cells\n",
        ("llama_kv_cache: size =  168.00 MiB (  8192 cells,  21 layers,  1/1 seqs), K (f16):  "
         "168.00 MiB, V (f16):    0.00 MiB\n"),
        "llama_kv_cache_dsv4: creating DSV4 HCA compressed KV cache, size = 256 cells\n",
        "llama_kv_cache_dsv4: creating DSV4 lightning-indexer KV cache, size = 8192 cells\n",
        ("llama_kv_cache: size =   42.00 MiB (  8192 cells,  21 layers,  1/1 seqs), K (f16):   "
         "42.00 MiB, V (f16):    0.00 MiB\n"),
        "  devices  : 44 of 44 layers on the GPU (the output layer counts as one): KV 258.89 MiB",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (!strstr(r.out, lines[i]))
            fail_msg("missing: %s\n%s", lines[i], r.out);
    run_free(&r);
    /* q8_0 rows of 32 elements in 34 B (K and V alike, as llama.cpp wants them from b10206):
     * 43 x 544 x 768 + 21 x 544 x 8,192 + 20 x 544 x 256 + 21 x 136 x 8,192 + the f32 states
     * 12,206,080 = 149,938,176 */
    assert_true(get((const char *const[]){ONE, "-ctk", "q8_0", "-ctv", "q8_0", "--get",
                                          "kv_cache_bytes", NULL}) == 149938176.0);
    /* llama-server's 4 automatic slots share one unified n_ctx of 32,768, but V4's caches
     * keep a stream a slot of n_ctx_seq = 32,768 cells each ("Keep DSV4 KV/state streams per
     * sequence even when public KV mode is unified"): 4 x 271,466,496, and every slot holds a
     * request of 32,768 tokens (one shared stream would hold one) */
    assert_true(get((const char *const[]){V4, "-c", "32768", "--get", "kv_cache_bytes", NULL}) ==
                4 * 271466496.0);
    assert_true(get((const char *const[]){V4, "-c", "32768", "--context", "32768", "--get",
                                          "max_concurrency", NULL}) == 4);
    /* rollback planes (--n-rs-seq, from b10228): 1 + 3 planes of each state; b10227 has one */
    assert_true(get((const char *const[]){ONE, "--n-rs-seq", "3", "--get",
                                          "llamacpp_hca_state_bytes", NULL}) == 4 * 10485760.0);
    assert_true(get((const char *const[]){ONE, "--n-rs-seq", "3", "--llamacpp-build", "10227",
                                          "--get", "llamacpp_hca_state_bytes", NULL}) ==
                10485760.0);
    /* --swa-full: the window as large as n_ctx_seq, 43 x 1,024 x 32,768 */
    assert_true(get((const char *const[]){ONE, "--swa-full", "--get", "llamacpp_swa_k_bytes",
                                          NULL}) == 1442840576.0);
    /* placed with the layers: -ngl 0 or -nkvo keeps them in host memory, -ngl 1 (the output
     * layer alone) too */
    assert_true(get((const char *const[]){ONE, "-ngl", "0", "--get", "llamacpp_kv_host_bytes",
                                          NULL}) == 271466496.0);
    assert_true(get((const char *const[]){ONE, "-nkvo", "--get", "llamacpp_kv_host_bytes",
                                          NULL}) == 271466496.0);
    assert_true(get((const char *const[]){ONE, "-ngl", "1", "--get", "llamacpp_kv_gpu_bytes",
                                          NULL}) == 0);
    /* before b10206 K and V types may differ: the caches are K only, in -ctk's type */
    assert_true(get((const char *const[]){ONE, "-ctk", "q8_0", "--llamacpp-build", "10205",
                                          "--get", "kv_cache_bytes", NULL}) == 149938176.0);
    static const struct {
        const char *flag, *value, *says;
    } refused[] = {
        {"--llamacpp-build", "9839", "stops with \"unknown model architecture: 'deepseek4'\""},
        {"-ngl", "20", "every layer on one side (-ngl 0 or all)"},
        {"-ctk", "q8_0", "\"model does not support different K (q8_0) and V (f16) cache types\""},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        RUN(&r, ONE, refused[i].flag, refused[i].value);
        assert_int_equal(r.status, 2);
        if (!strstr(r.err, refused[i].says))
            fail_msg("%s %s: %s", refused[i].flag, refused[i].value, r.err);
        run_free(&r);
    }
    RUN(&r, ONE, "-ctk", "q8_0", "-ctv", "q8_0", "-fa", "off");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "a quantized V cache needs flash attention"));
    run_free(&r);
}

/* A real llama.cpp log of DeepSeek-V4-Flash (tests/logs/llamacpp-h07-deepseek-v4-flash.log,
 * ggml-org/llama.cpp#27680): n_ctx_seq 64,000, one sequence, K bf16, its SWA cache of 4,352
 * cells (GGML_PAD(min(64,000, 128 + n_ubatch), 256): an n_ubatch of 3,969 to 4,224; the log
 * read does not state it, 4,096 is taken). Every line kvcalc prints that the log has comes
 * out byte for byte (after its timestamp); the SWA cache's size line, cut in the excerpt
 * after "43", starts as kvcalc's, and its CUDA0 buffer of 182.75 MiB is kvcalc's 43 x 512 x
 * 2 B x 4,352 = 191,627,264 B. */
static void deepseek_v4_llamacpp_log(void **state)
{
    (void)state;
    char *log = read_file(KVCALC_SOURCE_DIR "/tests/logs/llamacpp-h07-deepseek-v4-flash.log", NULL);
    assert_non_null(log);
    run_result r;
    RUN(&r, V4, "-c", "64000", "-np", "1", "-ctk", "bf16", "-ctv", "bf16", "-b", "4096", "-ub",
        "4096");
    assert_int_equal(r.status, 0);
    static const char *const printed[] = {"llama_kv_cache_dsv4: creating", "llama_kv_cache_iswa: ",
                                          "llama_kv_cache: size =", "llama_dsv4_comp_state: csa",
                                          "llama_dsv4_comp_state: hca",
                                          "llama_dsv4_comp_state: lid"};
    int matched = 0;
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        char *text = strstr(line, " I ");
        if (line[0] == '#' || !text)
            continue;
        text += 3;
        for (size_t i = 0; i < sizeof printed / sizeof printed[0]; i++)
            if (strncmp(text, printed[i], strlen(printed[i])) == 0) {
                char want[512];
                snprintf(want, sizeof want, "%s\n", text);
                if (!strstr(r.out, want))
                    fail_msg("the log's line is not kvcalc's: %s\n%s", text, r.out);
                matched++;
            }
    }
    assert_int_equal(matched, 10);
    assert_non_null(strstr(r.out, "\nllama_kv_cache: size =  182.75 MiB (  4352 cells,  43"));
    run_free(&r);
    free(log);
    assert_true(get((const char *const[]){V4, "-c", "64000", "-np", "1", "-ctk", "bf16", "-ctv",
                                          "bf16", "-b", "4096", "-ub", "4096", "--get",
                                          "llamacpp_swa_k_bytes", NULL}) == 191627264.0);
    /* --from-log would read V4's five caches into the main, sliding and indexer rows: refused */
    RUN(&r, "--from-log", KVCALC_SOURCE_DIR "/tests/logs/llamacpp-h07-deepseek-v4-flash.log", V4);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "does not yet compare llama.cpp's DeepSeek-V4 lines"));
    run_free(&r);
#undef ONE
#undef V4
}

/* A model of state layers alone (Mamba-1: expand 2 x hidden 256 = 512 channels, d_conv 4,
 * d_state 16): 512 x 3 + 512 x 16 = 9,728 elements, 19,456 B in bf16 a layer. vLLM has no
 * attention page to share: the page is the state and a block is max_model_len; with 1 GiB of
 * KV memory, floor(2^30 / (4 x 19,456)) = 13,797 blocks, one a request. SGLang: refused. */
static void attention_free(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-mamba-XXXXXX";
    write_temp(path, "{\"num_hidden_layers\": 4, \"num_attention_heads\": 8, \"hidden_size\": 256, "
                     "\"intermediate_size\": 512, \"vocab_size\": 1000, \"layer_types\": "
                     "[\"mamba\", \"mamba\", \"mamba\", \"mamba\"], \"mamba_d_state\": 16, "
                     "\"mamba_d_conv\": 4, \"mamba_expand\": 2}");
    run_result r;
    RUN(&r, "--config", path, "--engine", "vllm", "--kv-cache-memory-gib", "1");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  blocks  : 4,096 tokens x 19,456 B per layer page x 4 layers "
                                  "per group = 77,824 B per block; 1 KV cache group\n"));
    assert_non_null(strstr(r.out, "(13,797 blocks; one request of 4,096 tokens takes 1 blocks)"));
    assert_null(strstr(r.out, "Setting attention block size"));
    run_free(&r);
    RUN(&r, "--config", path, "--engine", "sglang");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "the model has no attention layer"));
    run_free(&r);
    unlink(path);
}

/* Falcon-H1: every layer runs attention and a Mamba-2 mixer side by side and keeps both a
 * cache and a state (vLLM falcon_h1.py @ 59e45989: an Attention and a MambaMixer2 a layer,
 * the mixer at index num_hidden_layers + i; SGLang configs/falcon_h1.py @ ca03a86f:
 * full_attention_layer_ids and linear_layer_ids both range(N); llama.cpp create_memory:
 * filter_attn and filter_recr both true).
 * Falcon-H1-0.5B (tests/fixtures/frontier): 36 layers, 2 KV heads of 64; mixer 24 heads x 64
 * = 1,536 channels, state 128, 1 group, kernel 4:
 *   state: conv 3 x (1,536 + 2 x 128) = 5,376, SSM 1,536 x 128 = 196,608 elements; bf16
 *     page 201,984 x 2 = 403,968 B; an attention token 2 x 2 x 64 x 2 = 512 B a layer;
 *     vLLM's block 16 x ceil(403,968 / (16 x 512)) = 800 tokens, page 409,600 B, padding
 *     5,632 / 403,968 = 1.39%; 36 attention + 36 Mamba layers: 2 groups of 36;
 *   parameters: embeddings 32,784 x 1,024 x 2 (untied) = 67,141,632; a layer: attention
 *     1,024 x (512 + 128 + 128) + 512 x 1,024 = 1,310,720, mixer in_proj 1,024 x (2 x 1,536
 *     + 2 x 128 + 24) = 3,432,448 + conv 1,792 x 4 + 1,792 bias + A_log, D, dt_bias 72 +
 *     out_proj 1,536 x 1,024 = 5,014,344 (mamba_rms_norm false: no gated norm), MLP
 *     3 x 1,024 x 2,048 = 6,291,456, two norms 2,048: 12,618,568, x 36 = 454,268,448; the
 *     final norm 1,024: 521,411,104. (mlx-community/Falcon-H1-0.5B-Instruct-8bit's
 *     model.safetensors is 555 MB: 521,011,200 quantized weights x 8.5 bits + 399,904 bf16 =
 *     554.4 MB.)
 * Falcon-H1-1.5B's shape (the transformers docs' table: 24 layers, 2 KV heads of 128, 48
 * Mamba heads of 64, state 256) at -c 32768: KV 2 x 2 x 128 x 2 B x 24 x 32,768 = 768 MiB,
 * R 3 x (3,072 + 512) x 4 B x 24 = 0.98 MiB, S 256 x 3,072 x 4 B x 24 = 72.00 MiB - the
 * figures of a public llama.cpp run (GeniePod/genie-claw#410); SGLang's state a request
 * 24 x (10,752 x 2 B + 786,432 x 4 B) = 76,013,568 B. */
static void falcon_h1(void **state)
{
    (void)state;
    const char *cfg = KVCALC_SOURCE_DIR
        "/tests/fixtures/frontier/tiiuae__Falcon-H1-0.5B__megatron-bridge-test-dict.json";
    assert_true(get((const char *const[]){"--config", cfg, "--get", "params", NULL}) ==
                521411104.0);
    assert_true(get((const char *const[]){"--engine", "vllm", "--config", cfg, "--get",
                                          "vllm_state_page_bytes", NULL}) == 403968.0);
    run_result r;
    RUN(&r, "--config", cfg, "--engine", "vllm", "--gpu", "h100");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Model      : 36 layers: 36 full + a state in each, 2 KV heads, "
                                  "head_dim 64"));
    assert_non_null(strstr(r.out, "  + 36 layers' states:  36 x 201,984 x 2 B  =  14,542,848 B "
                                  "per request"));
    assert_non_null(strstr(r.out, "Setting attention block size to 800 tokens"));
    assert_non_null(strstr(r.out, "Padding mamba page size by 1.39%"));
    assert_non_null(strstr(r.out, "  blocks  : 800 tokens x 409,600 B per layer page x 36 layers "
                                  "per group = 14,745,600 B per block; 2 KV cache groups\n"));
    run_free(&r);
    RUN(&r, "--config", cfg, "--format", "json");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"parallel_state\": true"));
    run_free(&r);
    RUN(&r, "--config", cfg, "--engine", "trtllm");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "state layers (Mamba, linear attention: 36 of this model's "
                                  "layers)"));
    run_free(&r);

    char path[] = "/tmp/kvcalc-falcon-XXXXXX";
    write_temp(path, "{\"model_type\": \"falcon_h1\", \"num_hidden_layers\": 24, \"hidden_size\": "
                     "2048, \"num_attention_heads\": 8, \"num_key_value_heads\": 2, \"head_dim\": "
                     "128, \"mamba_n_heads\": 48, \"mamba_d_head\": \"auto\", \"mamba_d_ssm\": "
                     "3072, \"mamba_d_state\": 256, \"mamba_n_groups\": 1, \"mamba_d_conv\": 4}");
    RUN(&r, "--config", path, "--engine", "llamacpp", "-c", "32768", "-np", "1", "--params-b",
        "1.5");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "llama_kv_cache: size =  768.00 MiB ( 32768 cells,  24 layers,  "
                                  "1/1 seqs), K (f16):  384.00 MiB, V (f16):  384.00 MiB\n"));
    assert_non_null(strstr(r.out, "(     1 cells,  24 layers,  1 seqs  0 rs_seq), R (f32):    "
                                  "0.98 MiB, S (f32):   72.00 MiB\n"));
    run_free(&r);
    assert_true(get((const char *const[]){"--engine", "sglang", "--config", path, "--params-b",
                                          "1.5", "--get", "sglang_mamba_bytes_per_request",
                                          NULL}) == 76013568.0);
    assert_true(get((const char *const[]){"--engine", "sglang", "--config", path, "--params-b",
                                          "1.5", "--get", "sglang_attention_layers", NULL}) ==
                24.0);
    unlink(path);
}

/* What kvcalc has not read from an engine's source is refused with the field named. */
static void refused_not_guessed(void **state)
{
    (void)state;
    run_result r;
    RUN(&r, "--model", "qwen3.5-27b", "--engine", "trtllm");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "--engine trtllm: kvcalc does not model TensorRT-LLM's cache "
                                  "for state layers (Mamba, linear attention: 48 of this "
                                  "model's layers)"));
    assert_non_null(strstr(r.err, "Try 'kvcalc --help'"));
    run_free(&r);
    RUN(&r, "--model", "deepseek-v3.2", "--engine", "trtllm");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "indexer (index_head_dim)"));
    run_free(&r);
    RUN(&r, "--model", "gemma-4-26b-a4b", "--engine", "trtllm");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "(global_head_dim, num_kv_shared_layers)"));
    run_free(&r);
    RUN(&r, "--model", "deepseek-v3.2", "--engine", "ollama", "--ollama-version", "0.20.0");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "indexer cache (index_head_dim) is modelled from 0.30"));
    run_free(&r);
    /* layer kinds kvcalc does not model: the config is refused at the key, not read as full
     * attention (MiniMax-M2's attn_type_list of 1s, softmax attention everywhere, is read) */
    static const struct {
        const char *json, *want;
    } kinds[] = {
        /* a KDA config is read, but a layer in neither list is not guessed */
        {"{\"num_hidden_layers\": 4, \"num_attention_heads\": 8, \"hidden_size\": 256, "
         "\"linear_attn_config\": {\"kda_layers\": [1, 2, 3], \"full_attn_layers\": []}}",
         "linear_attn_config: layer 4 is in neither kda_layers nor full_attn_layers"},
        {"{\"num_hidden_layers\": 4, \"num_attention_heads\": 8, \"hidden_size\": 256, "
         "\"linear_attn_config\": {\"kda_layers\": [1, 2, 3]}}",
         "linear_attn_config.full_attn_layers: expected an array of layer numbers from 1 to 4"},
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"hidden_size\": 256, "
         "\"attn_type_list\": [0, 1]}",
         "attn_type_list: MiniMax's lightning-attention layers are not modelled"},
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"hidden_size\": 256, "
         "\"mamba_d_ssm\": 1024, \"layer_types\": [\"full_attention\", \"mamba\"]}",
         "mamba_d_ssm: a parallel attention-and-Mamba model with a per-layer list (layer_types) "
         "is not one kvcalc knows"},
        /* Falcon-H1's mixer width must be its heads x head size */
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"hidden_size\": 256, "
         "\"mamba_d_ssm\": 1024, \"mamba_n_heads\": 8, \"mamba_d_head\": 64, "
         "\"mamba_d_state\": 16}",
         "mamba_d_ssm: 1024 channels are not mamba_n_heads x mamba_d_head = 8 x 64"},
        /* DeepSeek-V4's ratios: only 0, 4 and 128, at least one compressed layer, one each */
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"hidden_size\": 256, "
         "\"num_key_value_heads\": 1, \"head_dim\": 512, \"sliding_window\": 128, "
         "\"qk_rope_head_dim\": 64, \"compress_ratios\": [0, 0, 0]}",
         "compress_ratios: no layer at 4 or 128"},
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"hidden_size\": 256, "
         "\"num_key_value_heads\": 1, \"head_dim\": 512, \"sliding_window\": 128, "
         "\"qk_rope_head_dim\": 64, \"compress_ratios\": [0, 8]}",
         "compress_ratios: layer 1 has ratio 8"},
        {"{\"num_hidden_layers\": 2, \"num_attention_heads\": 8, \"hidden_size\": 256, "
         "\"num_key_value_heads\": 1, \"head_dim\": 512, \"sliding_window\": 128, "
         "\"qk_rope_head_dim\": 64, \"compress_ratios\": [0]}",
         "compress_ratios: expected an array of a ratio for each of the 2 layers"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char path[] = "/tmp/kvcalc-kinds-XXXXXX";
        write_temp(path, kinds[i].json);
        RUN(&r, "--config", path);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        if (!strstr(r.err, kinds[i].want))
            fail_msg("case %zu: %s", i, r.err);
        run_free(&r);
        unlink(path);
    }
    RUN(&r, "--model", "minimax-m2.7", "--get", "kv_bytes_per_token");
    assert_int_equal(r.status, 0);
    run_free(&r);
    /* the real configs of such models (tests/fixtures/frontier/README.md) */
    static const struct {
        const char *file, *key;
    } real[] = {
        /* its cache is read (deepseek_v4 below); its weights are refused */
        {"deepseek-ai__DeepSeek-V4-Flash.json", "(compress_ratios: DeepSeek-V4's layers): give"},
        {"MiniMaxAI__MiniMax-M1.json", "attn_type_list: MiniMax's"},
    };
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/fixtures/frontier/%s", KVCALC_SOURCE_DIR,
                 real[i].file);
        RUN(&r, "--config", path);
        assert_int_equal(r.status, 2);
        if (!strstr(r.err, real[i].key))
            fail_msg("%s: %s", real[i].file, r.err);
        run_free(&r);
    }
}

/* A config whose weights kvcalc cannot count: one line on stderr naming the file as typed
 * and the field, control bytes replaced; nothing on stdout; exit 2. --params-b answers. */
static void weights_refused(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-frontier-XXXXXX";
    const char *cfg = "{\"_name_or_path\": \"odd\\u001b[31m\", \"num_hidden_layers\": 4, "
                      "\"num_attention_heads\": 4, \"hidden_size\": 256, \"vocab_size\": 1000, "
                      "\"intermediate_size\": 512, "
                      "\"quantization_config\": {\"quant_method\": \"hqq9\"}}";
    write_temp(path, cfg);
    run_result r;
    RUN(&r, "--config", path);
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_null(strchr(r.err, '\x1b'));
    assert_non_null(strstr(r.err, "kvcalc: odd?[31m: the weights cannot be counted from its "
                                  "config (quantization_config.quant_method 'hqq9' is "
                                  "unknown): give --params-b (billions of parameters) and "
                                  "--weight-dtype (how they are stored)\n"));
    run_free(&r);
    RUN(&r, "--config", path, "--params-b", "0.1", "--get", "weights_bytes");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "200000000\n");
    run_free(&r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemma4_shapes),     cmocka_unit_test(gemma4_parameters),
        cmocka_unit_test(shared_kv_layers),  cmocka_unit_test(refused_not_guessed),
        cmocka_unit_test(weights_refused),   cmocka_unit_test(mtp_layers),
        cmocka_unit_test(auto_fit),          cmocka_unit_test(gemma4_e2b),
        cmocka_unit_test(short_convolutions), cmocka_unit_test(attention_free),
        cmocka_unit_test(hybrid_lines_of_a_real_log),
        cmocka_unit_test(kda_layers),
        cmocka_unit_test(falcon_h1),
        cmocka_unit_test(deepseek_v4),
        cmocka_unit_test(deepseek_v4_llamacpp),
        cmocka_unit_test(deepseek_v4_llamacpp_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
