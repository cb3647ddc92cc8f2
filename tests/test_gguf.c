/*
 * test_gguf.c - the GGUF header reader: the ground-truth rows' architectures (gptneox,
 * qwen35 hybrid, gemma2, gpt-oss), exact weight bytes by ggml type, every kind of malformed
 * header (each a located one-line error, never a read past the buffer), and the binary
 * with --model / --config FILE.gguf.
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
#include <unistd.h>

#include "gguf_models.h"
#include "gguf_writer.h"
#include "kvcalc.h"
#include "run.h"

static kv_gguf_info g; /* 8 KiB of per-layer heads: not on the stack */

/* Reads the writer's file (header only, or with its data) into s; returns the status. */
static int read_w(const gguf_writer *w, uint32_t version, kv_spec *s, kv_model_info *info,
                  char *err, size_t cap)
{
    size_t len;
    unsigned char *p = gw_finish(w, version, 0, &len);
    kv_spec_defaults(s);
    int rc = kv_gguf_read(p, len, "t.gguf", s, info, &g, err, cap);
    free(p);
    return rc;
}

static void read_model(const char *id, kv_spec *s, kv_model_info *info)
{
    gguf_writer w;
    char err[512] = "";
    gw_init(&w);
    assert_int_equal(gguf_model_build(id, &w), 0);
    int rc = read_w(&w, 3, s, info, err, sizeof err);
    gw_free(&w);
    if (rc != 0)
        fail_msg("%s: %s", id, err);
}

static void counts(const kv_spec *s, int64_t full, int64_t sliding, int64_t state)
{
    int64_t c[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, c);
    assert_int_equal(c[KV_LAYER_FULL], full);
    assert_int_equal(c[KV_LAYER_SLIDING], sliding);
    assert_int_equal(c[KV_LAYER_STATE], state);
}

/* A DeepSeek-V4 GGUF (architecture deepseek4): refused, not sized as plain attention. */
static void deepseek4_refused(void **state)
{
    (void)state;
    gguf_writer w;
    kv_spec s;
    kv_model_info info;
    char err[512] = "";
    gw_init(&w);
    gw_str(&w, "general.architecture", "deepseek4");
    gw_u32(&w, "deepseek4.block_count", 43);
    gw_u32(&w, "deepseek4.attention.head_count_kv", 1);
    gw_u32(&w, "deepseek4.attention.key_length", 512);
    int rc = read_w(&w, 3, &s, &info, err, sizeof err);
    gw_free(&w);
    assert_true(rc != 0);
    assert_non_null(strstr(err, "deepseek4: kvcalc sizes DeepSeek-V4 from its config.json"));
}

/* L01 pythia-1.4B: no head_count_kv, no key_length: 16 heads of 2048 / 16 = 128. */
static void gptneox_l01(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    read_model("L01", &s, &info);
    assert_int_equal(s.layers, 24);
    assert_int_equal(s.kv_heads, 16);
    assert_int_equal(s.head_dim, 128);
    assert_int_equal(s.layout.pattern_len, 0);
    assert_int_equal(info.max_context, 2048);
    assert_string_equal(info.model_type, "gptneox");
    assert_string_equal(g.architecture, "gptneox");
    assert_int_equal(g.key_length, 128);
    assert_int_equal(g.value_length, 128);
    assert_int_equal(g.kv_heads_sum, 24 * 16);
    assert_int_equal(g.version, 3);
}

/* L06 Qwen3.5-4B: 33 blocks, the MTP block out; of 32, layers 3, 7, ..., 31 attention;
 * state per layer (3 x (4096 + 2 x 16 x 128) + 128 x 4096) = 24576 + 524288 = 548864. */
static void qwen35_l06(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    read_model("L06", &s, &info);
    assert_int_equal(s.layers, 32);
    counts(&s, 8, 0, 24);
    assert_int_equal(s.layout.pattern[3], KV_LAYER_FULL);
    assert_int_equal(s.layout.pattern[0], KV_LAYER_STATE);
    assert_int_equal(s.kv_heads, 4);
    assert_int_equal(s.head_dim, 256);
    assert_int_equal(s.layout.state_elems, 548864);
    assert_int_equal(info.max_context, 262144);
    assert_int_equal(g.block_count, 33);
    assert_int_equal(g.nextn_layers, 1);
    assert_int_equal(g.kv_layers, 8);
    assert_int_equal(g.state_layers, 24);
    assert_int_equal(g.layer_kv_heads[3], 4);
    assert_int_equal(g.layer_kv_heads[4], 0);
    assert_int_equal(g.layer_kind[31], KV_LAYER_FULL);
    assert_int_equal(g.layer_kind[30], KV_LAYER_STATE);
}

/* L08 gemma-2-2b: 26 layers, period 2 (even layers slide), window 4096. */
static void gemma2_l08(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    read_model("L08", &s, &info);
    assert_int_equal(s.layers, 26);
    counts(&s, 13, 13, 0);
    assert_int_equal(s.layout.pattern[0], KV_LAYER_SLIDING);
    assert_int_equal(s.layout.pattern[1], KV_LAYER_FULL);
    assert_int_equal(s.layout.window, 4096);
    assert_int_equal(s.kv_heads, 4);
    assert_int_equal(s.head_dim, 256);
    assert_int_equal(info.max_context, 8192);
    assert_int_equal(g.n_swa, 4096);
    assert_int_equal(g.swa_period, 2);
    assert_int_equal(g.swa_layers, 13);
}

/* L09 gpt-oss-20b: 24 layers, 0, 2, 4 ... slide (window 128); 8 KV heads of 64. Weights:
 * token_embd Q8_0 [2880, 8]: 23040 / 32 x 34 = 24480; attn_k Q8_0 [2880, 512]:
 * 1474560 / 32 x 34 = 1566720; experts MXFP4 [2880, 8, 4]: 92160 / 32 x 17 = 48960;
 * norm F32 [2880]: 11520. Sum 1651680 bytes, 23040 + 1474560 + 92160 + 2880 = 1592640. */
static void gptoss_l09(void **state)
{
    (void)state;
    kv_spec s;
    kv_model_info info;
    kv_result r;
    read_model("L09", &s, &info);
    assert_int_equal(s.layers, 24);
    counts(&s, 12, 12, 0);
    assert_int_equal(s.layout.pattern[0], KV_LAYER_SLIDING);
    assert_int_equal(s.layout.window, 128);
    assert_int_equal(s.kv_heads, 8);
    assert_int_equal(s.head_dim, 64);
    assert_int_equal(info.max_context, 131072);
    assert_true(s.checkpoint_weights_bytes == 1651680.0);
    assert_true(s.checkpoint_params == 1592640.0);
    assert_int_equal(g.n_tensors, 4);
    assert_int_equal(s.arch.experts, 32); /* gpt-oss.expert_count: an MoE model says so */
    assert_int_equal(s.arch.known, 0);    /* ... and no estimate comes of it */
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.weights_bytes == 1651680.0);
    assert_true(r.params == 1592640.0);
}

/* Exact bytes by hand: F16 [4096, 2]: 8192 x 2 = 16384; Q8_0 [4096, 3]: 12288 / 32 = 384
 * blocks x 34 = 13056; Q4_K [512, 3]: 1536 / 256 = 6 x 144 = 864; MXFP4 [2880, 2, 2]:
 * 11520 / 32 = 360 x 17 = 6120. Sum 36424 bytes, 33536 elements. */
static void weight_bytes(void **state)
{
    (void)state;
    static const int64_t a[2] = {4096, 2}, b[2] = {4096, 3}, c[2] = {512, 3},
                         d[3] = {2880, 2, 2};
    gguf_writer w;
    kv_spec s;
    kv_model_info info;
    char err[512] = "";
    gw_init(&w);
    gw_str(&w, "general.architecture", "llama");
    gw_u32(&w, "llama.block_count", 2);
    gw_u32(&w, "llama.attention.head_count", 4);
    gw_u32(&w, "llama.embedding_length", 512);
    gw_tensor(&w, "a", 2, a, GW_F16);
    gw_tensor(&w, "b", 2, b, GW_Q8_0);
    gw_tensor(&w, "c", 2, c, GW_Q4_K);
    gw_tensor(&w, "d", 3, d, GW_MXFP4);
    assert_int_equal(read_w(&w, 2, &s, &info, err, sizeof err), 0);
    gw_free(&w);
    assert_true(g.weight_bytes == 36424.0);
    assert_true(g.params == 33536.0);
    assert_true(s.checkpoint_weights_bytes == 36424.0);
    assert_int_equal(g.version, 2);
    assert_int_equal(s.head_dim, 128);
    assert_int_equal(g.arch_known, 1);
}

/* K and V head sizes differ, heads differ per layer, MLA, an unknown architecture. */
static void layer_variants(void **state)
{
    (void)state;
    static const int32_t kv[4] = {2, 4, 0, 4};
    gguf_writer w;
    kv_spec s;
    kv_model_info info;
    char err[512] = "";
    gw_init(&w);
    gw_str(&w, "general.architecture", "somethingnew");
    gw_u32(&w, "somethingnew.block_count", 4);
    gw_i32_array(&w, "somethingnew.attention.head_count_kv", kv, 4);
    gw_u32(&w, "somethingnew.attention.key_length", 192);
    gw_u32(&w, "somethingnew.attention.value_length", 128);
    assert_int_equal(read_w(&w, 3, &s, &info, err, sizeof err), 0);
    gw_free(&w);
    assert_int_equal(g.arch_known, 0);
    assert_int_equal(s.layers, 3);   /* the layer with 0 KV heads keeps nothing */
    assert_int_equal(s.kv_heads, 4); /* the largest: an upper bound */
    assert_int_equal(s.head_dim, 160); /* (192 + 128) / 2: K + V exact */
    assert_int_equal(g.kv_heads_min, 2);
    assert_int_equal(g.kv_heads_sum, 10);

    gw_init(&w);
    gw_str(&w, "general.architecture", "deepseek2");
    gw_u32(&w, "deepseek2.block_count", 61);
    gw_u32(&w, "deepseek2.attention.head_count", 128);
    gw_u32(&w, "deepseek2.attention.head_count_kv", 1);
    gw_u32(&w, "deepseek2.attention.key_length", 576);
    gw_u32(&w, "deepseek2.attention.value_length", 512);
    gw_u32(&w, "deepseek2.attention.key_length_mla", 192);
    gw_u32(&w, "deepseek2.attention.value_length_mla", 128);
    gw_u32(&w, "deepseek2.attention.kv_lora_rank", 512);
    gw_u32(&w, "deepseek2.rope.dimension_count", 64);
    assert_int_equal(read_w(&w, 3, &s, &info, err, sizeof err), 0);
    gw_free(&w);
    assert_int_equal(s.layout.mla, 1);
    assert_int_equal(s.layout.mla_latent, 576);
    assert_int_equal(s.layers, 61);
}

/* Architecture rules: gemma3 slides only with a window (period 6); llama4 chunks 3 of 4
 * layers at 8192; nemotron_h: attention = kv > 0 and ffn 0, state = both 0, else no cache;
 * a BOOL-array pattern (mimo2); phi3 ignores its window. */
static void arch_rules(void **state)
{
    (void)state;
    static const int32_t nkv[4] = {0, 2, 0, 0}, ffn[4] = {0, 0, 512, 512};
    static const unsigned char swa[4] = {1, 1, 0, 1};
    struct { const char *arch; int64_t window; int64_t full, sliding, chunked, st, layers; }
        cases[] = {
            {"gemma3", 0, 12, 0, 0, 0, 12},   {"gemma3", 512, 2, 10, 0, 0, 12},
            {"llama4", -1, 3, 0, 9, 0, 12},   {"llama4", 0, 12, 0, 0, 0, 12},
            {"phi3", 2047, 12, 0, 0, 0, 12},
        };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gguf_writer w;
        kv_spec s;
        kv_model_info info;
        char err[512] = "", key[96];
        int64_t c[KV_LAYER_KINDS];
        gw_init(&w);
        gw_str(&w, "general.architecture", cases[i].arch);
        snprintf(key, sizeof key, "%s.block_count", cases[i].arch);
        gw_u32(&w, key, 12);
        snprintf(key, sizeof key, "%s.attention.head_count", cases[i].arch);
        gw_u32(&w, key, 8);
        snprintf(key, sizeof key, "%s.embedding_length", cases[i].arch);
        gw_u32(&w, key, 1024);
        snprintf(key, sizeof key, "%s.attention.sliding_window", cases[i].arch);
        if (cases[i].window >= 0)
            gw_u32(&w, key, (uint32_t)cases[i].window);
        if (read_w(&w, 3, &s, &info, err, sizeof err) != 0)
            fail_msg("%s: %s", cases[i].arch, err);
        gw_free(&w);
        kv_layer_counts(&s.layout, s.layers, c);
        if (c[KV_LAYER_FULL] != cases[i].full || c[KV_LAYER_SLIDING] != cases[i].sliding ||
            c[KV_LAYER_CHUNKED] != cases[i].chunked || s.layers != cases[i].layers)
            fail_msg("%s case %zu: %lld full, %lld sliding, %lld chunked", cases[i].arch, i,
                     (long long)c[0], (long long)c[1], (long long)c[2]);
    }
    gguf_writer w;
    kv_spec s;
    kv_model_info info;
    char err[512] = "";
    gw_init(&w);
    gw_str(&w, "general.architecture", "nemotron_h");
    gw_u32(&w, "nemotron_h.block_count", 4);
    gw_u32(&w, "nemotron_h.attention.head_count", 8);
    gw_u32(&w, "nemotron_h.embedding_length", 1024);
    gw_i32_array(&w, "nemotron_h.attention.head_count_kv", nkv, 4);
    gw_i32_array(&w, "nemotron_h.feed_forward_length", ffn, 4);
    assert_int_equal(read_w(&w, 3, &s, &info, err, sizeof err), 0);
    gw_free(&w);
    assert_int_equal(s.layers, 2); /* the two MLP layers keep nothing */
    counts(&s, 1, 0, 1);
    assert_int_equal(s.layout.state_elems, -1); /* no ssm.* keys: unknown, reported */
    gw_init(&w);
    gw_str(&w, "general.architecture", "mimo2");
    gw_u32(&w, "mimo2.block_count", 4);
    gw_u32(&w, "mimo2.attention.head_count", 8);
    gw_u32(&w, "mimo2.embedding_length", 1024);
    gw_u32(&w, "mimo2.attention.sliding_window", 128);
    gw_bool_array(&w, "mimo2.attention.sliding_window_pattern", swa, 4);
    assert_int_equal(read_w(&w, 3, &s, &info, err, sizeof err), 0);
    gw_free(&w);
    counts(&s, 1, 3, 0);
    assert_int_equal(s.layout.pattern[2], KV_LAYER_FULL);
}

/* Falcon-H1 (src/models/falcon-h1.cpp: every layer recurrent and with attention): 4 layers
 * of 2 KV heads of 64 beside a Mamba-2 state of (4 - 1) x (1,536 + 2 x 1 x 128) = 5,376 R
 * and 1,536 x 128 = 196,608 S elements; each layer counts as full and as a state. */
static void falcon_h1_parallel(void **state)
{
    (void)state;
    gguf_writer w;
    kv_spec s;
    kv_model_info info;
    char err[512] = "";
    gw_init(&w);
    gw_str(&w, "general.architecture", "falcon-h1");
    gw_u32(&w, "falcon-h1.block_count", 4);
    gw_u32(&w, "falcon-h1.attention.head_count", 8);
    gw_u32(&w, "falcon-h1.attention.head_count_kv", 2);
    gw_u32(&w, "falcon-h1.embedding_length", 1024);
    gw_u32(&w, "falcon-h1.attention.key_length", 64);
    gw_u32(&w, "falcon-h1.attention.value_length", 64);
    gw_u32(&w, "falcon-h1.ssm.conv_kernel", 4);
    gw_u32(&w, "falcon-h1.ssm.inner_size", 1536);
    gw_u32(&w, "falcon-h1.ssm.state_size", 128);
    gw_u32(&w, "falcon-h1.ssm.group_count", 1);
    if (read_w(&w, 3, &s, &info, err, sizeof err) != 0)
        fail_msg("%s", err);
    gw_free(&w);
    assert_int_equal(s.layers, 4);
    assert_int_equal(s.layout.parallel_state, 1);
    counts(&s, 4, 0, 4);
    assert_int_equal(s.layout.state_elems, 5376 + 196608);
    assert_int_equal(g.state_r_row, 5376);
    assert_int_equal(g.state_s_row, 196608);
    assert_int_equal(g.kv_layers, 4);
    assert_int_equal(g.state_layers, 4);
    assert_int_equal(s.kv_heads, 2);
    assert_int_equal(s.head_dim, 64);
}

/* ---- malformed headers ---- */

typedef void (*builder)(gguf_writer *);

static void arch_only(gguf_writer *w) { gw_str(w, "general.architecture", "llama"); }

static void expect_error(const unsigned char *p, size_t len, const char *want)
{
    kv_spec s;
    kv_model_info info;
    char err[512] = "";
    kv_spec_defaults(&s);
    int rc = kv_gguf_read(p, len, "t.gguf", &s, &info, &g, err, sizeof err);
    if (rc != KV_ERR_FORMAT || !strstr(err, want) || strncmp(err, "t.gguf: byte ", 13) != 0 ||
        strchr(err, '\n'))
        fail_msg("want '%s', got %d '%s'", want, rc, err);
}

static void expect_w(const gguf_writer *w, uint32_t version, const char *want)
{
    size_t len;
    unsigned char *p = gw_finish(w, version, 0, &len);
    expect_error(p, len, want);
    free(p);
}

static void le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Issue 19, item 8 - three GGUF headers kvcalc once read wrong:
 * - head_count_kv an array (3 layers of 5 KV heads, 4 of 7, 5 of 4; heads of 64): each layer
 *   its own, 2 x (15 + 28 + 20) x 64 x 2 B = 16,128 B a token (it counted 12 x 7 heads:
 *   21,504, an upper bound beside llama.cpp's own 16,128);
 * - head_count_kv 0 in every layer: refused (it read "1 KV heads, head_dim 1");
 * - a tensor named twice: refused, as llama.cpp refuses it (it counted it twice). */
static void item08_gguf_layers_and_tensors(void **state)
{
    (void)state;
    static const int32_t kv[12] = {5, 5, 5, 7, 7, 7, 7, 4, 4, 4, 4, 4};
    gguf_writer w;
    kv_spec s;
    kv_model_info info;
    kv_result r;
    char err[512] = "";
    gw_init(&w);
    gw_str(&w, "general.architecture", "llama");
    gw_u32(&w, "llama.block_count", 12);
    gw_u32(&w, "llama.embedding_length", 4096);
    gw_u32(&w, "llama.attention.head_count", 64);
    gw_i32_array(&w, "llama.attention.head_count_kv", kv, 12);
    assert_int_equal(read_w(&w, 3, &s, &info, err, sizeof err), 0);
    gw_free(&w);
    s.gguf = &g;
    s.dtype = KV_DTYPE_FP16;
    s.params_b = 1;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.kv_bytes_per_token == 16128.0);

    gw_init(&w);
    gw_str(&w, "general.architecture", "llama");
    gw_u32(&w, "llama.block_count", 4);
    gw_u32(&w, "llama.embedding_length", 4096);
    gw_u32(&w, "llama.attention.head_count", 32);
    gw_u32(&w, "llama.attention.head_count_kv", 0);
    expect_w(&w, 3, "llama.attention.head_count_kv is 0 in every layer: no layer keeps a KV "
                    "cache");
    gw_free(&w);

    static const int64_t ne[2] = {32, 32};
    gw_init(&w);
    gw_str(&w, "general.architecture", "llama");
    gw_u32(&w, "llama.block_count", 1);
    gw_u32(&w, "llama.embedding_length", 4096);
    gw_u32(&w, "llama.attention.head_count", 32);
    gw_tensor(&w, "blk.0.attn_q.weight", 2, ne, GW_F16);
    gw_tensor(&w, "blk.0.attn_k.weight", 2, ne, GW_F16);
    gw_tensor(&w, "blk.0.attn_q.weight", 2, ne, GW_F16);
    expect_w(&w, 3, "tensor 'blk.0.attn_q.weight' is named twice (tensors 0 and 2): llama.cpp "
                    "refuses such a file");
    gw_free(&w);
}

static void bad_headers(void **state)
{
    (void)state;
    gguf_writer w;
    size_t len;
    gw_init(&w);
    arch_only(&w);
    gw_u32(&w, "llama.block_count", 2);
    unsigned char *p = gw_finish(&w, 3, 0, &len);
    expect_error((const unsigned char *)"{\"a\":1}", 7, "byte 0: not a GGUF file");
    expect_error(p, 2, "byte 0: file ends inside the magic");
    expect_w(&w, 1, "byte 4: GGUF version 1");
    expect_w(&w, 0x03000000u, "big-endian");
    expect_w(&w, 4, "unsupported GGUF version 4");
    le64(p + 8, 1ull << 62);
    expect_error(p, len, "byte 8: tensor count 4611686018427387904 is absurd");
    le64(p + 8, 0);
    le64(p + 16, 1ull << 62);
    expect_error(p, len, "byte 16: key/value count");
    le64(p + 16, 2);
    le64(p + 24, 1ull << 40); /* the first key's length */
    expect_error(p, len, "byte 24: a key of 1099511627776 bytes is absurd");
    free(p);
    gw_free(&w);
}

/* Every prefix of a real header fails, located, without reading past it (ASan). */
static void truncated_everywhere(void **state)
{
    (void)state;
    for (size_t m = 0; gguf_model_ids[m]; m++) {
        gguf_writer w;
        size_t len;
        gw_init(&w);
        gguf_model_build(gguf_model_ids[m], &w);
        unsigned char *p = gw_finish(&w, 3, 0, &len);
        gw_free(&w);
        for (size_t cut = 0; cut < len; cut++) {
            unsigned char *q = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
            memcpy(q, p, cut);
            expect_error(q, cut, cut < 4 ? "the magic" : "file ends inside");
            free(q);
        }
        free(p);
    }
}

static void bad_values(void **state)
{
    (void)state;
    static const unsigned char type13[] = {3, 0, 0, 0, 0, 0, 0, 0, 'a', '.', 'b', 13, 0, 0, 0};
    static const unsigned char nested[] = {3, 0, 0, 0, 0, 0, 0, 0, 'a', '.', 'b', 9, 0, 0, 0,
                                           9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const unsigned char huge[] = {3, 0, 0, 0, 0, 0, 0, 0, 'a', '.', 'b', 9, 0, 0, 0,
                                         4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40};
    static const unsigned char longstr[] = {3, 0, 0, 0, 0, 0, 0, 0, 'a', '.', 'b', 8, 0, 0, 0,
                                            0, 0, 0, 0, 0, 1, 0, 0};
    static const int32_t three[3] = {1, 2, 3};
    struct { const unsigned char *raw; size_t n; const char *want; } raws[] = {
        {type13, sizeof type13, "byte 35: unknown value type 13 for key 'a.b'"},
        {nested, sizeof nested, "nested array in key 'a.b'"},
        {huge, sizeof huge, "array of 4611686018427387904 elements in key 'a.b' is absurd"},
        {longstr, sizeof longstr, "a string value of 1099511627776 bytes is absurd"},
    };
    for (size_t i = 0; i < sizeof raws / sizeof raws[0]; i++) {
        gguf_writer w;
        gw_init(&w);
        gw_raw_kv(&w, raws[i].raw, raws[i].n);
        expect_w(&w, 3, raws[i].want);
        gw_free(&w);
    }
    gguf_writer w;
    gw_init(&w);
    arch_only(&w);
    gw_str(&w, "llama.block_count", "32");
    expect_w(&w, 3, "llama.block_count must be an integer");
    gw_free(&w);
    gw_init(&w);
    arch_only(&w);
    gw_u32(&w, "llama.block_count", 4);
    gw_i32_array(&w, "llama.attention.head_count_kv", three, 3);
    expect_w(&w, 3, "head_count_kv has 3 elements, not block_count (4)");
    gw_free(&w);
    gw_init(&w);
    arch_only(&w);
    gw_u32(&w, "llama.block_count", 0);
    expect_w(&w, 3, "llama.block_count must be between 1 and");
    gw_free(&w);
    gw_init(&w);
    arch_only(&w);
    expect_w(&w, 3, "byte 24: no llama.block_count key");
    gw_free(&w);
    gw_init(&w);
    gw_u32(&w, "llama.block_count", 4);
    expect_w(&w, 3, "no general.architecture key");
    gw_free(&w);
    gw_init(&w);
    arch_only(&w);
    gw_u32(&w, "llama.block_count", 4);
    gw_u32(&w, "llama.block_count", 4);
    expect_w(&w, 3, "duplicate key 'llama.block_count'");
    gw_free(&w);
    gw_init(&w);
    arch_only(&w);
    gw_u32(&w, "general.alignment", 48);
    expect_w(&w, 3, "general.alignment 48 is not a power of two");
    gw_free(&w);
}

static void bad_tensors(void **state)
{
    (void)state;
    static const int64_t ne[5] = {32, 1, 1, 1, 1}, odd[1] = {33};
    gguf_writer w;
    size_t len;
    gw_init(&w);
    arch_only(&w);
    gw_u32(&w, "llama.block_count", 1);
    gw_tensor(&w, "x", 1, ne, GW_F32);
    unsigned char *p = gw_finish(&w, 3, 0, &len);
    p[len - 12] = 99; /* the type */
    expect_error(p, len, "unknown ggml type 99");
    p[len - 12] = 4;
    expect_error(p, len, "ggml type 4 (Q4_2) was removed");
    p[len - 12] = 0;
    p[len - 8] = 32; /* the offset */
    expect_error(p, len, "tensor 'x' at data offset 32, expected 0");
    free(p);
    gw_free(&w);
    gw_init(&w);
    arch_only(&w);
    gw_tensor(&w, "five", 5, ne, GW_F32);
    expect_w(&w, 3, "tensor 'five' has 5 dimensions");
    gw_free(&w);
    gw_init(&w);
    arch_only(&w);
    gw_tensor(&w, "q", 1, odd, GW_F32);
    p = gw_finish(&w, 3, 0, &len);
    p[len - 12] = GW_Q8_0;
    expect_error(p, len, "row of 33 elements is not a multiple of Q8_0's block of 32");
    free(p);
    gw_free(&w);
}

/* ---- through the binary ---- */

static void write_tmp(const gguf_writer *w, char *path, size_t cap, const char *suffix)
{
    snprintf(path, cap, KVCALC_BINARY_DIR "/gguf-test-%ld%s", (long)getpid(), suffix);
    assert_int_equal(gw_write_file(w, path), 0);
}

/* kvcalc FLAG FILE --format json shows `want` (one line of its "inputs"). */
static void expect_input(const char *flag, const char *file, const char *want)
{
    run_result r;
    run_kvcalc((const char *const[]){flag, file, "--format", "json", NULL}, &r);
    if (r.status != 0 || !strstr(r.out, want))
        fail_msg("%s %s: no '%s' (exit %d, %s)", flag, file, want, r.status, r.err);
    run_free(&r);
}

/* The file reader reads a header once, in a window that slides over the tensor infos
 * (issue 22): a header of megabytes, its metadata past the first read of 1 MiB and its
 * tensor infos over many windows, reads as the same bytes read from memory do, and fails with
 * the same message where it is cut, for a name given twice far apart (the first one long
 * out of the window) and for an adapter's odd tensor. */
static void write_bytes(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* kv_gguf_load_file on the first n bytes of p (the whole file: n == len, with its data) and
 * kv_gguf_read on them agree: the same status, the same figures or the same message. */
static void same_as_memory(const unsigned char *p, size_t n, const char *path, int adapter)
{
    static kv_gguf_info a, b;
    kv_spec s1, s2;
    kv_model_info i1, i2;
    char e1[512] = "", e2[512] = "";
    kv_spec_defaults(&s1);
    kv_spec_defaults(&s2);
    write_bytes(path, p, n);
    int r1 = adapter ? kv_gguf_adapter_load_file(path, &a, e1, sizeof e1)
                     : kv_gguf_load_file(path, &s1, &i1, &a, e1, sizeof e1);
    int r2 = adapter ? kv_gguf_adapter_read(p, n, path, &b, e2, sizeof e2)
                     : kv_gguf_read(p, n, path, &s2, &i2, &b, e2, sizeof e2);
    if (r1 != r2 || strcmp(e1, e2) != 0)
        fail_msg("%zu bytes: file %d '%s', memory %d '%s'", n, r1, e1, r2, e2);
    if (r1 == 0) {
        assert_memory_equal(&a, &b, sizeof a);
        if (!adapter) {
            assert_int_equal(s1.layers, s2.layers);
            assert_int_equal(s1.kv_heads, s2.kv_heads);
            assert_int_equal(s1.head_dim, s2.head_dim);
            assert_string_equal(i1.name, i2.name);
        }
    }
}

static void big_headers(void **state)
{
    (void)state;
    char path[1024], name[64];
    snprintf(path, sizeof path, KVCALC_BINARY_DIR "/gguf-test-%ld-big.gguf", (long)getpid());
    gguf_writer w;
    gw_init(&w);
    gw_str(&w, "general.architecture", "llama");
    enum { TOKENS = 150000, TENSORS = 40000 };
    char **tok = malloc(TOKENS * sizeof *tok);
    assert_non_null(tok);
    for (int i = 0; i < TOKENS; i++) {
        char t[32];
        snprintf(t, sizeof t, "tok%d", i);
        tok[i] = strdup(t);
    }
    gw_str_array(&w, "tokenizer.ggml.tokens", (const char *const *)tok, TOKENS); /* 2 MB */
    gw_u32(&w, "llama.block_count", 32);
    gw_u32(&w, "llama.context_length", 8192);
    gw_u32(&w, "llama.embedding_length", 4096);
    gw_u32(&w, "llama.attention.head_count", 32);
    gw_u32(&w, "llama.attention.head_count_kv", 8);
    gw_str(&w, "general.name", "a model whose name comes after 2 MB of tokens");
    for (int i = 0; i < TENSORS; i++) { /* 2 MB of tensor infos */
        snprintf(name, sizeof name, i == TENSORS - 1 ? "dup.weight" : "blk.%d.ffn.%d.weight",
                 i % 32, i);
        gw_tensor(&w, name, 1, (const int64_t[]){8}, GW_F32);
    }
    size_t len;
    unsigned char *p = gw_finish(&w, 3, 1, &len);
    assert_true(len > (4u << 20));
    same_as_memory(p, len, path, 0); /* it reads */
    /* cut inside the metadata past 1 MiB, inside the tensor infos in later windows, inside
     * the last one, and in the data */
    size_t hlen;
    free(gw_finish(&w, 3, 0, &hlen)); /* the header alone: where the data starts */
    size_t cuts[] = {1u << 20, (1u << 20) + 3, 2500000, 3000001, 4000000, hlen - 30, hlen - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        same_as_memory(p, cuts[i], path, 0);
    /* the first tensor's name again at the end: refused, naming both (its bytes are fetched
     * from the file: the window left them behind) */
    gw_free(&w);
    gw_init(&w);
    gw_str(&w, "general.architecture", "llama");
    gw_str_array(&w, "tokenizer.ggml.tokens", (const char *const *)tok, TOKENS);
    for (int i = 0; i < TENSORS; i++) {
        snprintf(name, sizeof name, i == TENSORS - 1 || i == 1 ? "dup.weight"
                                                                : "blk.%d.ffn.%d.weight", i % 32, i);
        gw_tensor(&w, name, 1, (const int64_t[]){8}, GW_F32);
    }
    free(p);
    p = gw_finish(&w, 3, 1, &len);
    same_as_memory(p, len, path, 0);
    {
        static kv_gguf_info gi;
        kv_spec s;
        kv_model_info info;
        char err[512];
        kv_spec_defaults(&s);
        assert_int_equal(kv_gguf_load_file(path, &s, &info, &gi, err, sizeof err), KV_ERR_FORMAT);
        assert_non_null(strstr(err, "tensor 'dup.weight' is named twice (tensors 1 and 39999)"));
    }
    /* an adapter whose one odd tensor comes after megabytes of lora pairs */
    gw_free(&w);
    gw_init(&w);
    gw_str(&w, "general.architecture", "llama");
    gw_str_array(&w, "tokenizer.ggml.tokens", (const char *const *)tok, TOKENS);
    for (int i = 0; i < TENSORS; i++) {
        snprintf(name, sizeof name, i == TENSORS - 2 ? "blk.%d.attn_k.%d.weight"
                                                     : "blk.%d.attn_q.%d.weight.lora_a", i % 32, i);
        gw_tensor(&w, name, 1, (const int64_t[]){8}, GW_F32);
    }
    free(p);
    p = gw_finish(&w, 3, 1, &len);
    same_as_memory(p, len, path, 1);
    free(p);
    gw_free(&w);
    for (int i = 0; i < TOKENS; i++)
        free(tok[i]);
    free(tok);
    remove(path);
}

/* --lora FILE (llama_adapter_lora_init_impl, src/llama-adapter.cpp): every pair on the
 * device of the weight it patches. An adapter for Qwen3-8B's 36 blocks, by hand: a block's
 * attn_q pair is lora_a 4,096 x 16 + lora_b 16 x 4,096 in F16 = 262,144 B; the output's
 * 4,096 x 16 x 2 + 16 x 151,936 x 2 = 131,072 + 4,861,952 = 4,993,024 B. All layers on the GPU: 36 x 262,144 + 4,993,024 = 14,430,208 B there. -ngl 10: the output
 * and blocks 27 .. 35: 9 x 262,144 + 4,993,024 = 7,352,320 B. -ngl 0: none. */
static void write_adapter(char *path, size_t cap, const char *suffix, int odd, int uneven)
{
    gguf_writer w;
    gw_init(&w);
    gw_str(&w, "general.architecture", "qwen3");
    gw_str(&w, "general.type", "adapter");
    gw_str(&w, "adapter.type", "lora");
    char name[64];
    for (int b = 0; b < 36; b++) {
        int64_t r = uneven && b == 5 ? 32 : 16;
        snprintf(name, sizeof name, "blk.%d.attn_q.weight.lora_a", b);
        gw_tensor(&w, name, 2, (const int64_t[]){4096, r}, GW_F16);
        snprintf(name, sizeof name, "blk.%d.attn_q.weight.lora_b", b);
        gw_tensor(&w, name, 2, (const int64_t[]){r, 4096}, GW_F16);
    }
    gw_tensor(&w, "output.weight.lora_a", 2, (const int64_t[]){4096, 16}, GW_F16);
    gw_tensor(&w, "output.weight.lora_b", 2, (const int64_t[]){16, 151936}, GW_F16);
    if (odd)
        gw_tensor(&w, "blk.0.attn_k.weight", 2, (const int64_t[]){4096, 16}, GW_F16);
    write_tmp(&w, path, cap, suffix);
    gw_free(&w);
}

static void lora_adapters(void **state)
{
    (void)state;
    char file[512], odd[512], uneven[512];
    write_adapter(file, sizeof file, "-lora.gguf", 0, 0);
    write_adapter(odd, sizeof odd, "-lora-odd.gguf", 1, 0);
    write_adapter(uneven, sizeof uneven, "-lora-uneven.gguf", 0, 1);
#define LC(...) ((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", \
                                       "h100", "-c", "8192", __VA_ARGS__, NULL})
    assert_true(run_get("llamacpp_lora_bytes", LC("--lora", file)) == 14430208.0);
    assert_true(run_get("llamacpp_lora_gpu_bytes", LC("--lora", file)) == 14430208.0);
    assert_true(run_get("llamacpp_lora_gpu_bytes", LC("--lora", file, "-ngl", "10")) == 7352320.0);
    assert_true(run_get("llamacpp_lora_gpu_bytes", LC("--lora", file, "-ngl", "0")) == 0);
    /* what must fit grows by the GPU's share; the rest is host memory */
    assert_true(run_get("llamacpp_gpu_needed_bytes", LC("--lora", file, "-ngl", "10")) -
                    run_get("llamacpp_gpu_needed_bytes", LC("-ngl", "10")) ==
                7352320.0);
    assert_true(run_get("llamacpp_weights_host_bytes", LC("--lora", file, "-ngl", "10")) -
                    run_get("llamacpp_weights_host_bytes", LC("-ngl", "10")) ==
                14430208.0 - 7352320.0);
    /* two files: the sums */
    assert_true(run_get("llamacpp_lora_gpu_bytes", LC("--lora", file, "--lora", file, "-ngl",
                                                      "10")) == 2 * 7352320.0);
    expect_refused(LC("--lora", odd), "tensor 'blk.0.attn_k.weight' is no .lora_a / .lora_b");
    /* blocks of other sizes split by -ngl: not placed by guess */
    assert_true(run_get("llamacpp_lora_gpu_bytes", LC("--lora", uneven)) ==
                14430208.0 + 262144.0);
    expect_refused(LC("--lora", uneven, "-ngl", "10"), "the LoRA adapters' blocks differ");
    expect_refused((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--lora",
                                         file, NULL},
                   "--lora: kvcalc sizes LoRA adapter files with --engine llama.cpp");
#undef LC
    remove(file);
    remove(odd);
    remove(uneven);
}

static void binary(void **state)
{
    (void)state;
    char l08[] = KVCALC_BINARY_DIR "/engines/gguf/L08.gguf";
    char l09[] = KVCALC_BINARY_DIR "/engines/gguf/L09.gguf";
    /* the geometry is in the JSON "inputs" (there are no --get keys for inputs) */
    expect_input("--model", l08, "\"layers\": 26,");
    expect_input("--config", l08, "\"kv_heads\": 4,");
    expect_input("--model", l08, "\"head_dim\": 256,");
    expect_input("--model", l09, "\"layers\": 24,");
    expect_input("--model", l09, "\"head_dim\": 64,");
    EXPECT_STDOUT("8192\n", "--model", l08, "--get", "max_position_embeddings");
    EXPECT_STDOUT("53248\n", "--model", l08, "--get", "kv_bytes_per_token");
    EXPECT_STDOUT("1651680\n", "--model", l09, "--get", "weights_bytes");
    /* an explicit --params-b or --weight-dtype overrides the file's own bytes */
    EXPECT_STDOUT("2000000000\n", "--model", l09, "--params-b", "1", "--get",
                  "weights_bytes");
    EXPECT_STDOUT("1592640\n", "--model", l09, "--weight-dtype", "int8", "--get",
                  "weights_bytes");

    /* by the magic, whatever the name; a hostile general.name is shown with '?' */
    gguf_writer w;
    char path[512];
    gw_init(&w);
    gguf_model_build("L01", &w);
    gw_str(&w, "general.name", "evil\x1b[31mname\x07");
    write_tmp(&w, path, sizeof path, ".bin");
    gw_free(&w);
    run_result r;
    run_kvcalc((const char *const[]){"--model", path, NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "evil?[31mname?"));
    assert_null(strchr(r.out, '\x1b'));
    assert_non_null(strstr(r.out, "@ the file's types  ->  0.00 GiB  (tensor sizes from the"));
    run_free(&r);
    expect_input("--model", path, "\"layers\": 24,");
    unlink(path);

    /* a header of several MiB (a real tokenizer's size): read in growing chunks */
    gw_init(&w);
    gguf_model_build("L08", &w);
    {
        const char **many = malloc(300000 * sizeof *many); /* 4.5 MB of strings */
        assert_non_null(many);
        for (size_t i = 0; i < 300000; i++)
            many[i] = "a-token";
        gw_str_array(&w, "tokenizer.ggml.tokens", many, 300000);
        free(many);
    }
    write_tmp(&w, path, sizeof path, ".gguf");
    gw_free(&w);
    expect_input("--model", path, "\"layers\": 26,");
    unlink(path);

    /* a .gguf that is not one, and a file cut inside its data: exit 2, located */
    snprintf(path, sizeof path, KVCALC_BINARY_DIR "/gguf-test-%ld.gguf", (long)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("{\"num_hidden_layers\": 2}", f);
    fclose(f);
    run_kvcalc((const char *const[]){"--model", path, NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, ": byte 0: not a GGUF file"));
    run_free(&r);
    size_t len;
    char *whole = read_file(l09, &len);
    assert_non_null(whole);
    f = fopen(path, "wb");
    fwrite(whole, 1, len - 100, f);
    fclose(f);
    free(whole);
    run_kvcalc((const char *const[]){"--config", path, NULL}, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "runs past the end of the file"));
    run_free(&r);
    unlink(path);
}

/* llama.cpp's placement from the file's own tensor groups (llama_model::load_tensors): L01
 * holds token_embd 2,048 x 8 in f16 (32,768 B), blk.0's qkv 2,048 x 64 in f16 (262,144 B)
 * and norm 2,048 in f32 (8,192 B), and no output head (tied). Every layer offloaded: the
 * blocks' 270,336 B and the head, a copy of the embedding (TENSOR_DUPLICATED), 32,768 B, on
 * the GPU; the embedding itself stays in host memory. -ngl 24 of 25 holds the output layer
 * (the first placed) and blocks 1 to 23, which hold nothing here: the copy alone; -ngl 0
 * nothing. */
static void llamacpp_placement_by_tensor_groups(void **state)
{
    (void)state;
    const char *g = KVCALC_BINARY_DIR "/engines/gguf/L01.gguf";
    static const struct {
        const char *ngl;
        double gpu, host, copy;
    } rows[] = {{NULL, 303104, 32768, 32768}, {"24", 32768, 303104, 32768}, {"0", 0, 303104, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *argv[8] = {"--engine", "llama.cpp", "--model", g, NULL};
        if (rows[i].ngl) {
            argv[4] = "-ngl";
            argv[5] = rows[i].ngl;
        }
        assert_true(run_get("llamacpp_weights_gpu_bytes", argv) == rows[i].gpu);
        assert_true(run_get("llamacpp_weights_host_bytes", argv) == rows[i].host);
        assert_true(run_get("llamacpp_head_copy_bytes", argv) == rows[i].copy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deepseek4_refused),
        cmocka_unit_test(llamacpp_placement_by_tensor_groups),
        cmocka_unit_test(gptneox_l01),     cmocka_unit_test(qwen35_l06),
        cmocka_unit_test(gemma2_l08),      cmocka_unit_test(gptoss_l09),
        cmocka_unit_test(weight_bytes),    cmocka_unit_test(layer_variants),
        cmocka_unit_test(arch_rules),
        cmocka_unit_test(falcon_h1_parallel),
        cmocka_unit_test(bad_headers),     cmocka_unit_test(truncated_everywhere),
        cmocka_unit_test(bad_values),      cmocka_unit_test(bad_tensors),
        cmocka_unit_test(binary),
        cmocka_unit_test(lora_adapters),   cmocka_unit_test(big_headers),
        cmocka_unit_test(item08_gguf_layers_and_tensors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
