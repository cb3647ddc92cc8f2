/*
 * test_llamacpp.c - --engine llama.cpp through the public header (and the binary for the
 * printed lines): the rules of docs/llamacpp.md by build, each with its arithmetic worked by
 * hand in a comment, and properties that hold for every input. The real logs are the
 * ground-truth rows (test_ground_truth); these tests pin the rules between them.
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

#define MIB 1048576.0

/* A plain model (32 layers, 8 KV heads of 128: K row 1,024 elements) under llama.cpp. */
static void plain(kv_spec *s, int64_t build, int64_t ctx, int64_t parallel)
{
    kv_spec_defaults(s);
    s->layers = 32;
    s->kv_heads = 8;
    s->head_dim = 128;
    s->params_b = 7;
    s->gpu_mem_gib = 80;
    kv_spec_set_engine(s, KV_ENGINE_LLAMACPP);
    s->llamacpp.build = build;
    s->llamacpp.ctx_size = ctx < 0 ? KV_NONE_INT : KV_SOME_INT(ctx); /* -1: not given */
    s->llamacpp.parallel = parallel > 0 ? KV_SOME_INT(parallel) : KV_NONE_INT; /* 0: not given */
}

/* gpt-oss-20b's cache geometry: 24 layers alternating sliding (window 128) and full, 8 KV
 * heads of 64 (K row 512). */
static void gpt_oss(kv_spec *s, int64_t build, int64_t ctx)
{
    plain(s, build, ctx, 1);
    s->layers = 24;
    s->head_dim = 64;
    s->layout.pattern_len = 2;
    s->layout.pattern[0] = KV_LAYER_SLIDING;
    s->layout.pattern[1] = KV_LAYER_FULL;
    s->layout.window = 128;
}

static const kv_llamacpp_result *run(const kv_spec *s, kv_result *r)
{
    assert_int_equal(kv_compute(s, r), KV_OK);
    return &r->llamacpp;
}

/* The cache type table: ggml's block sizes (gguf.md, llamacpp.md section 4). */
static void cache_types(void **state)
{
    (void)state;
    static const struct { const char *name; int64_t block, bytes; } want[KV_GGML_CACHE_TYPES] = {
        {"f32", 1, 4},    {"f16", 1, 2},     {"bf16", 1, 2},   {"q8_0", 32, 34}, {"q4_0", 32, 18},
        {"q4_1", 32, 20}, {"iq4_nl", 32, 18}, {"q5_0", 32, 22}, {"q5_1", 32, 24}};
    for (int t = 0; t < KV_GGML_CACHE_TYPES; t++) {
        const kv_ggml_cache_type_info *i = kv_ggml_cache_type_get((kv_ggml_cache_type)t);
        assert_string_equal(i->name, want[t].name);
        assert_int_equal(i->block, want[t].block);
        assert_int_equal(i->block_bytes, want[t].bytes);
    }
    assert_null(kv_ggml_cache_type_get(KV_GGML_CACHE_TYPES));
}

/* L04 by hand: 32 layers x 1,024 x 2 B x 4,096 cells = 256 MiB each for K and V. q8_0: a row
 * of 1,024 is 32 blocks of 34 B = 1,088 B -> 32 x 1,088 x 4,096 = 136 MiB. */
static void sizes_by_type(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    plain(&s, 6500, 4096, 1);
    const kv_llamacpp_result *L = run(&s, &r);
    assert_true(L->main.k_bytes == 256 * MIB && L->main.v_bytes == 256 * MIB);
    assert_int_equal(r.kv_cache_tokens, 4096);
    assert_true(r.kv_cache_bytes == 512 * MIB);
    s.llamacpp.type_k = KV_SOME_INT(KV_GGML_Q8_0);
    s.llamacpp.type_v = KV_SOME_INT(KV_GGML_Q4_0); /* 1,024 / 32 x 18 = 576 B -> 72 MiB */
    s.llamacpp.flash_attn = KV_SOME_INT(KV_FLASH_ON);
    L = run(&s, &r);
    assert_true(L->main.k_bytes == 136 * MIB);
    assert_true(L->main.v_bytes == 72 * MIB);
    /* --dtype int8 without -ctk/-ctv: q8_0 for both */
    plain(&s, 6500, 4096, 1);
    s.dtype = KV_DTYPE_INT8;
    s.llamacpp.flash_attn = KV_SOME_INT(KV_FLASH_ON);
    L = run(&s, &r);
    assert_int_equal(L->type_k, KV_GGML_Q8_0);
    assert_true(L->main.v_bytes == 136 * MIB);
}

/* Cell padding by build (section 2), -c 1,100, one sequence:
 * b2492: no padding -> 1,100; b2500: PAD 32 -> 1,120; b3000 with flash: PAD 256 -> 1,280,
 * without -> 1,120; b7000: PAD 256 always -> 1,280. */
static void padding_by_build(void **state)
{
    (void)state;
    static const struct { int64_t build; int flash; int64_t cells; } cases[] = {
        {2492, KV_FLASH_OFF, 1100}, {2500, KV_FLASH_OFF, 1120}, {3000, KV_FLASH_ON, 1280},
        {3000, KV_FLASH_OFF, 1120}, {7000, KV_FLASH_OFF, 1280}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kv_spec s;
        kv_result r;
        plain(&s, cases[i].build, 1100, 1);
        s.llamacpp.flash_attn = KV_SOME_INT(cases[i].flash);
        assert_int_equal(run(&s, &r)->main.cells, cases[i].cells);
    }
}

/* Streams (section 2). b6500, flash off, -c 1000 -np 3: ceil(1000 / 3) = 334 -> PAD 32 =
 * 352 cells x 3 streams = 1,056. b8000 (L17): -c 8192 -np 6: 8192 / 6 = 1365 -> PAD 256 =
 * 1,536 x 6 = 9,216, with the "rounding down" warning; -c 32768 -np 10: 3276 -> 3,328 x 10 =
 * 33,280, unified: 32,768 (L18). Before b6071 one stream whatever -np says. */
static void streams_by_build(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    plain(&s, 6500, 1000, 3);
    s.llamacpp.flash_attn = KV_SOME_INT(KV_FLASH_OFF);
    const kv_llamacpp_result *L = run(&s, &r);
    assert_int_equal(L->main.cells, 352);
    assert_int_equal(L->streams, 3);
    assert_int_equal(L->n_ctx, 1056);
    assert_int_equal(L->slot_ctx, 352); /* before b6925: n_ctx / slots */

    plain(&s, 8000, 8192, 6);
    L = run(&s, &r);
    assert_int_equal(L->main.cells, 1536);
    assert_int_equal(L->n_ctx, 9216);
    assert_true(L->rounded);
    assert_true(L->main.k_bytes == 32.0 * 1024 * 2 * 9216);

    plain(&s, 8000, 32768, 10);
    assert_int_equal(run(&s, &r)->n_ctx, 33280);
    s.llamacpp.kv_unified = 1;
    L = run(&s, &r);
    assert_int_equal(L->n_ctx, 32768);
    assert_int_equal(L->streams, 1);
    assert_false(L->rounded);

    plain(&s, 6000, 4096, 4);
    L = run(&s, &r);
    assert_int_equal(L->streams, 1);
    assert_int_equal(L->n_ctx, 4096);
}

/* Defaults by build (section 1): -c 512 up to b4013, 4,096 from b4014, the model's context
 * from b7407 (auto-fit); llama-server's 4 unified slots from b6925; -fa auto from b6325. */
static void defaults_by_build(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    plain(&s, 4013, -1, 0);
    const kv_llamacpp_result *L = run(&s, &r);
    assert_int_equal(L->n_ctx, 512);
    assert_int_equal(L->n_seq, 1);
    assert_false(L->flash);
    plain(&s, 4014, -1, 0);
    assert_int_equal(run(&s, &r)->n_ctx, 4096);
    plain(&s, 6924, -1, 0);
    L = run(&s, &r);
    assert_int_equal(L->n_seq, 1);
    assert_true(L->flash); /* auto counts as on */
    plain(&s, 6925, -1, 0);
    L = run(&s, &r);
    assert_int_equal(L->n_seq, 4);
    assert_true(L->auto_slots && L->unified);
    assert_int_equal(L->streams, 1);
    plain(&s, 7407, -1, 0);
    s.max_context = 32768;
    L = run(&s, &r);
    assert_int_equal(L->n_ctx, 32768);
    assert_true(L->autofit && L->ctx_from_model);
    s.llamacpp.ctx_size = KV_SOME_INT(0); /* -c 0: the model's context, no auto-fit */
    L = run(&s, &r);
    assert_int_equal(L->n_ctx, 32768);
    assert_false(L->autofit);
    assert_true(L->ctx_from_model);
    /* a build newer than the rules gets the newest ones */
    plain(&s, 99999, 4096, 1);
    assert_int_equal(run(&s, &r)->build, KV_LLAMACPP_NEWEST_BUILD);
    assert_string_equal(r.engine_version, "b10573");
}

/* The sliding-window cache (section 5) on gpt-oss-20b's geometry, -c 131,072 (L09-L11):
 * b6975+: PAD(min(131072, 128 + ub), 256): ub 512 -> 768, 2,048 -> 2,304, -b 128 -> 256.
 * b5600: min(base, PAD(128 + 512, 32)) = 640 (flash off by default). b5500 uses n_batch:
 * PAD(128 + 2048, 32) = 2,176. Before b5429 the sliding layers sit in the main cache. */
static void sliding_window_cache(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    gpt_oss(&s, 8164, 131072);
    const kv_llamacpp_result *L = run(&s, &r);
    assert_int_equal(L->swa.cells, 768);
    assert_int_equal(L->main.layers, 12);
    assert_int_equal(L->swa.layers, 12);
    assert_true(L->main.k_bytes == 1536 * MIB); /* 12 x 512 x 2 B x 131,072 */
    assert_true(L->swa.k_bytes == 9 * MIB);     /* 12 x 512 x 2 B x 768 */
    s.llamacpp.ubatch_size = 2048;
    assert_int_equal(run(&s, &r)->swa.cells, 2304);
    s.llamacpp.ubatch_size = 512;
    s.llamacpp.batch_size = 128;
    assert_int_equal(run(&s, &r)->swa.cells, 256);
    s.llamacpp.batch_size = 2048;
    s.llamacpp.swa_full = 1;
    assert_int_equal(run(&s, &r)->swa.cells, L->main.cells);

    gpt_oss(&s, 5600, 131072);
    assert_int_equal(run(&s, &r)->swa.cells, 640);
    gpt_oss(&s, 5500, 131072);
    assert_int_equal(run(&s, &r)->swa.cells, 2176);
    gpt_oss(&s, 5000, 131072);
    L = run(&s, &r);
    assert_int_equal(L->swa.layers, 0);
    assert_int_equal(L->main.layers, 24);
    /* four unified slots (L08's rule): a window per slot, b6975+ */
    gpt_oss(&s, 8000, 8192);
    s.llamacpp.parallel = KV_SOME_INT(4);
    s.llamacpp.kv_unified = 1;
    assert_int_equal(run(&s, &r)->swa.cells, 1024); /* PAD(min(8192, 128 x 4 + 512), 256) */
}

/* MLA as llama.cpp's converters write it (section 3): K row 576 (512 + 64), V row 512 up to
 * b7831; from b7832 no V. DeepSeek-V3: 61 layers x 576 x 2 B x 4,096 = 274.5 MiB of K. */
static void mla_without_v(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    plain(&s, 7831, 4096, 1);
    s.layers = 61;
    s.kv_heads = 1;
    s.head_dim = 576;
    s.layout.mla = 1;
    s.layout.mla_latent = 576;
    s.arch.kv_lora_rank = 512;
    s.params_b = 0;
    const kv_llamacpp_result *L = run(&s, &r);
    assert_true(L->main.k_bytes == 61.0 * 576 * 2 * 4096);
    assert_true(L->main.v_bytes == 61.0 * 512 * 2 * 4096);
    assert_false(L->v_less);
    s.llamacpp.build = 7832;
    L = run(&s, &r);
    assert_true(L->v_less);
    assert_true(L->main.v_bytes == 0);
    assert_true(r.kv_cache_bytes == 61.0 * 576 * 2 * 4096);
}

/* Recurrent layers (section 6): 3 of every 4 layers keep 1,000 f32 elements per sequence;
 * with 4 slots: 24 layers x 1,000 x 4 B x 4 = 384,000 B, not in kv_cache_bytes. */
static void recurrent_state(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    plain(&s, 8000, 4096, 4);
    s.layout.pattern_len = 4;
    s.layout.pattern[0] = s.layout.pattern[1] = s.layout.pattern[2] = KV_LAYER_STATE;
    s.layout.pattern[3] = KV_LAYER_FULL;
    s.layout.state_elems = 1000;
    const kv_llamacpp_result *L = run(&s, &r);
    assert_int_equal(L->state_layers, 24);
    assert_int_equal(L->state_rows, 4);
    assert_true(L->state_r_bytes + L->state_s_bytes == 384000.0);
    assert_int_equal(L->main.layers, 8);
    /* 4 streams of 1,024 cells: 8 x 1,024 x 2 B x 4,096 cells each for K and V */
    assert_true(r.kv_cache_bytes == 2.0 * 8 * 1024 * 2 * 4096);
}

/* A config's state split as llama.cpp splits it: R = (d_conv - 1) x conv channels, S the
 * recurrent state, f32 both, one row per sequence. Qwen3.5-9B (24 gated-delta-net layers of
 * 32): R 3 x (2 x 16 x 128 + 32 x 128) x 4 B x 24 = 2.25 MiB, S 32 x 128 x 128 x 4 B x 24 =
 * 48 MiB - the line of a real b9849 log (tests/logs/llamacpp-h02-qwen3.5-9b-vulkan.log, the
 * model's 32 layers printed); and Qwen3.5-27B's 48: R 3 x 10,240 x 4 x 48 = 5.62 MiB, S 48 x
 * 128 x 128 x 4 x 48 = 144 MiB (the log split, where kvcalc printed all as R). */
static void recurrent_split_from_a_config(void **state)
{
    (void)state;
    char *log = read_file(KVCALC_SOURCE_DIR "/tests/logs/llamacpp-h02-qwen3.5-9b-vulkan.log", NULL);
    assert_non_null(log);
    const char *want = "llama_memory_recurrent: size =   50.25 MiB (     1 cells,  32 layers,  "
                       "1 seqs  0 rs_seq), R (f32):    2.25 MiB, S (f32):   48.00 MiB\n";
    assert_non_null(strstr(log, want));
    free(log);
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3.5-9b",
                                     "--ctx-size", "8192", "--parallel", "1", "--llamacpp-build",
                                     "9849", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, want));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3.5-27b",
                                     "--ctx-size", "8192", "--parallel", "1", NULL},
               &r);
    assert_non_null(strstr(r.out, "R (f32):    5.62 MiB, S (f32):  144.00 MiB\n"));
    run_free(&r);
    /* MTP drafting: 3 snapshots per sequence widen the state to 4 copies, 4 x 50.25 = 201.00
     * MiB - what a public write-up reports of Qwen3.5-4B (the 9B's state shapes) with MTP,
     * "201.00 MiB (1 cells, 32 layers, 1 seqs, 3 rs_seq)" */
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3.5-9b",
                                     "--ctx-size", "8192", "--parallel", "1", "--llamacpp-build",
                                     "9849", "--n-rs-seq", "3", NULL},
               &r);
    assert_non_null(strstr(r.out, "llama_memory_recurrent: size =  201.00 MiB (     1 cells,  32 "
                                  "layers,  1 seqs  3 rs_seq), R (f32):    9.00 MiB, S (f32):  "
                                  "192.00 MiB\n"));
    run_free(&r);
}

/* --from-log reads the recurrent state's line ("llama_memory_recurrent: size = ... R (f32):
 * ..., S (f32): ...") and compares its cells, layers, R and S - three real logs whose only
 * figures are those lines (tests/logs/README.md). Per sequence, Qwen3.5's gated delta nets
 * hold R = layers x 3 conv rows x (2 x 16 x 128 + V heads x 128) x 4 B and S = layers x V heads
 * x 128 x 128 x 4 B: 35B-A3B (30 of 40 layers, 32 V heads) 4 sequences: R 11.25, S 240.00 MiB;
 * 9B (24 of 32, 32 V heads) 4 sequences: R 9.00, S 192.00 MiB; 27B (48 of 64, 48 V heads) 3
 * sequences: R 16.88, S 432.00 MiB - where the 27B's GGUF carries its MTP layer too, so the
 * log says 65 layers to the config's 64 (the MTP layer holds no state: its rows are
 * "skipped"). */
static void recurrent_lines_of_real_logs(void **state)
{
    (void)state;
    static const struct {
        const char *log, *model;
        long long cells, layers_logged, layers, r, s;
    } cases[] = {
        {"llamacpp-h04-qwen3.5-35b-a3b.log", "qwen3.5-35b-a3b", 4, 40, 40, 11796480, 251658240},
        {"llamacpp-h05-qwen3.5-9b-4slots.log", "qwen3.5-9b", 4, 32, 32, 9437184, 201326592},
        {"llamacpp-h06-qwen3.5-27b-mtp-tp.log", "qwen3.5-27b", 3, 65, 64, 17694720, 452984832},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], want[256];
        snprintf(path, sizeof path, "%s/tests/logs/%s", KVCALC_SOURCE_DIR, cases[i].log);
        run_result r;
        run_kvcalc((const char *const[]){"--from-log", path, "--model", cases[i].model,
                                         "--format", "json", NULL},
                   &r);
        assert_int_equal(r.status, 0);
        snprintf(want, sizeof want, "\"quantity\": \"recurrent cells\", \"unit\": \"cells\", "
                                    "\"logged\": %lld, \"kvcalc\": %lld, \"difference\": 0,",
                 cases[i].cells, cases[i].cells);
        assert_non_null(strstr(r.out, want));
        snprintf(want, sizeof want, "\"quantity\": \"recurrent layers\", \"unit\": \"layers\", "
                                    "\"logged\": %lld, \"kvcalc\": %lld,",
                 cases[i].layers_logged, cases[i].layers);
        assert_non_null(strstr(r.out, want));
        /* R is printed to 0.01 MiB: 16.88 is 17,699,963 B logged, 17,694,720 B exact */
        double r_logged = 0, s_logged = 0;
        const char *at = strstr(r.out, "\"quantity\": \"R (conv state)\"");
        assert_non_null(at);
        assert_int_equal(sscanf(strstr(at, "\"logged\": "), "\"logged\": %lf", &r_logged), 1);
        snprintf(want, sizeof want, "\"kvcalc\": %lld,", cases[i].r);
        assert_non_null(strstr(at, want));
        assert_true(fabs(r_logged - (double)cases[i].r) <= 0.005 * 1048576);
        at = strstr(r.out, "\"quantity\": \"S (SSM state)\"");
        assert_non_null(at);
        assert_int_equal(sscanf(strstr(at, "\"logged\": "), "\"logged\": %lf", &s_logged), 1);
        assert_true(s_logged == (double)cases[i].s);
        snprintf(want, sizeof want, "\"kvcalc\": %lld, \"difference\": 0,", cases[i].s);
        assert_non_null(strstr(at, want));
        run_free(&r);
    }
}

/* -ot / --override-tensor: the tensors whose names a "=CPU" pattern finds leave the GPU
 * (common/arg.cpp parse_tensor_buffer_overrides, std::regex_search in llama_model_loader).
 * Qwen3-30B-A3B: 48 MoE blocks of 128 experts x 3 x 2,048 x 768; --cpu-moe moves all of
 * them, 57,982,058,496 B of the estimate, 1,207,959,552 B a block: */
static double ot_get(const char *const *extra, const char *key)
{
    const char *argv[24] = {"--engine", "llamacpp", "--model", "qwen3-30b-a3b"};
    size_t n = 4;
    for (size_t k = 0; extra[k] && n < 23; k++)
        argv[n++] = extra[k];
    argv[n] = NULL;
    return run_get(key, argv);
}

static void override_tensor(void **state)
{
    (void)state;
    const double block = 57982058496.0 / 48;
    assert_true(block == 1207959552.0);
    /* "exps" finds every routed expert tensor: what --cpu-moe moves */
    assert_true(ot_get((const char *const[]){"-ot", "exps=CPU", NULL}, "llamacpp_override_bytes") ==
                48 * block);
    assert_true(ot_get((const char *const[]){"-ot", "exps=CPU", NULL}, "llamacpp_override_tensors") ==
                48 * 3);
    /* blocks 10 to 23, the form llama.cpp's users write */
    assert_true(ot_get((const char *const[]){"--override-tensor",
                                             "blk\\.(1[0-9]|2[0-3])\\.ffn_.*_exps\\.=CPU", NULL},
                       "llamacpp_override_bytes") == 14 * block);
    /* beside --n-cpu-moe 12 the overrides add up: blocks 0 to 23, 12 of them --n-cpu-moe's */
    const char *const both[] = {"-ot", "blk\\.(1[0-9]|2[0-3])\\.ffn_.*_exps\\.=CPU", "--n-cpu-moe",
                                "12", NULL};
    assert_true(ot_get(both, "llamacpp_override_bytes") == 24 * block);
    assert_true(ot_get(both, "llamacpp_cpu_moe_bytes") == 12 * block);
    /* only the GPU's blocks lose anything: -ngl 20 keeps blocks 29 to 47 there */
    assert_true(ot_get((const char *const[]){"-ngl", "20", "-ot", "exps=CPU", NULL},
                       "llamacpp_override_bytes") == 19 * block);
    /* repeated -ot and comma-separated pairs alike; the weights on the GPU drop by as much */
    double one = ot_get((const char *const[]){"-ot", "blk\\.0\\.=CPU,blk\\.1\\.=CPU", NULL},
                        "llamacpp_override_bytes");
    assert_true(one == ot_get((const char *const[]){"-ot", "blk\\.0\\.=CPU", "-ot",
                                                    "blk\\.1\\.=CPU", NULL},
                              "llamacpp_override_bytes"));
    assert_true(one > 2 * block);
    assert_true(ot_get((const char *const[]){NULL}, "llamacpp_weights_gpu_bytes") -
                    ot_get((const char *const[]){"-ot", "exps=CPU", NULL},
                           "llamacpp_weights_gpu_bytes") ==
                48 * block);
    /* refused, with what is accepted */
    static const struct {
        const char *model, *ot, *want;
    } no[] = {
        {"qwen3-30b-a3b", "exps=CUDA0", "kvcalc models moves to the CPU (=CPU)"},
        {"qwen3-30b-a3b", "ffn_(up=CPU", "not a pattern kvcalc reads"},
        {"qwen3-30b-a3b", "exps", "expected <tensor name pattern>=<buffer type>"},
        /* the output layer's tensors: llama.cpp's regex_search would move them (and, for
         * "output\.weight", every attn_output too); kvcalc splits only blocks */
        {"qwen3-30b-a3b", "^output\\.weight=CPU", "-ot: '^output\\.weight' takes output.weight, "
                                                "a tensor of the output layer"},
        {"qwen3-30b-a3b", "output=CPU", "takes output_norm.weight"},
        {"deepseek-v3", "attn=CPU", "it takes blk.0.attn_q.weight, whose size kvcalc does not "
                                    "split per tensor"},
    };
    {
        run_result r;
        run_kvcalc((const char *const[]){"--engine", "llamacpp", "--model", "qwen3-8b", "-ot",
                                         "exps=CPU", "--llamacpp-build", "5000", NULL},
                   &r);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "--llamacpp-build: -ot / --override-tensor comes with "
                                      "build 5028"));
        run_free(&r);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        run_result r;
        run_kvcalc((const char *const[]){"--engine", "llamacpp", "--model", no[i].model, "-ot",
                                         no[i].ot, NULL},
                   &r);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        if (!strstr(r.err, no[i].want))
            fail_msg("-ot %s: no '%s' in %s", no[i].ot, no[i].want, r.err);
        run_free(&r);
    }
}

/* --spec-type draft-mtp: a second context of the target whose cache holds the next-n layers
 * (common_speculative_init_result, common/speculative.cpp, and mtp_on_hybrid_qwen in
 * llama_model::create_memory @ 3f545becc). A real log (tests/logs/llamacpp-h08-*: Qwen3.6-27B's
 * MTP GGUF, -c 131072, q8_0, 4 automatic slots) prints it after the main cache: "size = 272.00
 * MiB (131072 cells, 1 layers, 4/1 seqs)" = 131,072 x (4 KV heads x 256 x 2) x 34/32 B =
 * 285,212,672 B; its recurrent line counts 65 layers, the GGUF's 64 blocks + the next-n one. */
static void mtp_context(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/logs/llamacpp-h08-qwen3.6-27b-mtp-4slots.log",
             KVCALC_SOURCE_DIR);
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", path, "--model", "qwen3.6-27b", "--format",
                                     "json", NULL},
               &r);
    assert_int_equal(r.status, 0);
    static const char *const rows[] = {
        "\"quantity\": \"MTP context cells\", \"unit\": \"cells\", \"logged\": 131072, "
        "\"kvcalc\": 131072, \"difference\": 0,",
        "\"quantity\": \"MTP context layers\", \"unit\": \"layers\", \"logged\": 1, "
        "\"kvcalc\": 1, \"difference\": 0,",
        "\"quantity\": \"MTP context KV\", \"unit\": \"bytes\", \"logged\": 285212672, "
        "\"kvcalc\": 285212672, \"difference\": 0,",
        "\"quantity\": \"recurrent layers\", \"unit\": \"layers\", \"logged\": 65, "
        "\"kvcalc\": 65, \"difference\": 0,",
        /* the main cache stays the main one: 16 layers, 4,352 MiB */
        "\"quantity\": \"layers\", \"unit\": \"layers\", \"logged\": 16, \"kvcalc\": 16,",
        /* the model buffers: CPU_Mapped 682.03 MiB + CUDA0 16,386.94 MiB, the host's the
         * token embedding (248,320 x 5,120 at Q4_K's 4.5 bits: 715,161,600 B). kvcalc's are
         * the log's "file size = 16.67 GiB" (17,899,276,206 B) split by each part's share of
         * the estimated parameters: the embedding's at the file's mean 5.24 bits a parameter
         * is 831,865,224 B, 16% more than the Q4_K it is stored in (an UD-Q4_K_XL file mixes
         * types) */
        "\"quantity\": \"weights (file size)\", \"unit\": \"bytes\", \"logged\": "
        "17899276206.08, \"kvcalc\": 17899276206.08, \"difference\": 0,",
        "\"quantity\": \"model buffers (all devices)\", \"unit\": \"bytes\", \"logged\": "
        "17898112286.7",
        "\"kvcalc\": 17899276206.08, ",
        "\"quantity\": \"model buffers in host memory\", \"unit\": \"bytes\", \"logged\": "
        "715160289.28, \"kvcalc\": 831865223.93",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strstr(r.out, rows[i]))
            fail_msg("no '%s' in\n%s", rows[i], r.out);
    run_free(&r);
    /* the same by hand, without the log: in the GPU's sum, on the GPU with the last block */
    run_kvcalc((const char *const[]){"--engine", "llamacpp", "--model", "qwen3.6-27b", "-c",
                                     "131072", "-ctk", "q8_0", "-ctv", "q8_0", "-fa", "on",
                                     "--spec-type", "draft-mtp", "--get",
                                     "llamacpp_mtp_kv_gpu_bytes", NULL},
               &r);
    assert_string_equal(r.out, "285212672\n");
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "llamacpp", "--model", "qwen3.6-27b", "-c",
                                     "131072", "-ngl", "1", "--spec-type", "mtp", "--get",
                                     "llamacpp_mtp_kv_gpu_bytes", NULL},
               &r);
    assert_string_equal(r.out, "0\n"); /* only the output layer on the GPU */
    run_free(&r);
    /* the target keeps --spec-draft-n-max rollback snapshots of its recurrent state
     * (need_n_rs_seq, common/common.h @ 255582687): 3 by default from b9235, 16 before;
     * Qwen3-Next does not roll back (llm_arch_supports_rs_rollback), --n-rs-seq overrides */
    static const struct {
        const char *model, *build, *n_max, *rs, *want;
    } rs[] = {
        {"qwen3.6-27b", "10573", NULL, NULL, "3\n"},
        {"qwen3.6-27b", "9200", NULL, NULL, "16\n"},
        {"qwen3.6-27b", "10573", "5", NULL, "5\n"},
        {"qwen3.6-27b", "10573", NULL, "0", "0\n"},
        {"qwen3-next-80b-a3b", "10573", NULL, NULL, "0\n"},
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        const char *argv[20] = {"--engine", "llamacpp", "--model", rs[i].model, "--spec-type",
                                "draft-mtp", "--llamacpp-build", rs[i].build};
        size_t n = 8;
        if (rs[i].n_max) {
            argv[n++] = "--spec-draft-n-max";
            argv[n++] = rs[i].n_max;
        }
        if (rs[i].rs) {
            argv[n++] = "--n-rs-seq";
            argv[n++] = rs[i].rs;
        }
        argv[n++] = "--get";
        argv[n++] = "llamacpp_n_rs_seq";
        argv[n] = NULL;
        run_kvcalc(argv, &r);
        if (r.status != 0 || strcmp(r.out, rs[i].want) != 0)
            fail_msg("case %zu: exit %d, '%s' (%s), want '%s'", i, r.status, r.out, r.err,
                     rs[i].want);
        run_free(&r);
    }
    /* refused: a build before #22673, a model without next-n layers, one kvcalc does not
     * model, beside -md; a type kvcalc does not read, by name */
    static const struct {
        const char *args[10], *want;
    } no[] = {
        {{"--model", "qwen3.6-27b", "--spec-type", "draft-mtp", "--llamacpp-build", "9000",
          NULL},
         "--spec-type: draft-mtp comes with build 9180"},
        {{"--model", "qwen3-8b", "--spec-type", "draft-mtp", NULL}, "has no next-n layers"},
        {{"--model", "deepseek-v3", "--spec-type", "draft-mtp", NULL},
         "other models' MTP contexts are not modelled"},
        {{"--model", "qwen3.6-27b", "--spec-type", "draft-eagle3", NULL},
         "--spec-type: unknown"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        const char *argv[16] = {"--engine", "llamacpp"};
        size_t n = 2;
        for (size_t k = 0; no[i].args[k]; k++)
            argv[n++] = no[i].args[k];
        argv[n] = NULL;
        run_kvcalc(argv, &r);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        if (!strstr(r.err, no[i].want))
            fail_msg("case %zu: no '%s' in %s", i, no[i].want, r.err);
        run_free(&r);
    }
}

/* Issue 19, item 13: llama.cpp logs of mid-2025 builds (tests/logs/README.md) - the
 * llama_kv_cache_unified line of b5640, "( 4096 cells, 16 layers, 1 seqs)" (no streams), and
 * LM Studio's build, "1/ 1 seqs" - were refused or read as Ollama's; and a start that failed
 * after allocating its buffers ("KV buffer size" lines, no "size =") was refused. Llama-3.2-1B
 * at 4,096 cells: 16 x 4,096 x 8 x 64 x 2 B = 64.00 MiB each of K and V; Qwen3-8B at
 * 131,072: 36 x 131,072 x 8 x 128 x 2 B = 9,216 MiB each. */
static void mid_2025_and_failed_logs(void **state)
{
    (void)state;
    static const struct {
        const char *log, *model, *want;
    } cases[] = {
        {"llamacpp-l18-b5640-unified.log", "llama-3.2-1b-instruct",
         "\"quantity\": \"K\", \"unit\": \"bytes\", \"logged\": 67108864, \"kvcalc\": 67108864"},
        {"llamacpp-l19-lmstudio-unified.log", "qwen3-8b",
         "\"quantity\": \"K\", \"unit\": \"bytes\", \"logged\": 9663676416, \"kvcalc\": 9663676416"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/logs/%s", KVCALC_SOURCE_DIR, cases[i].log);
        run_result r;
        run_kvcalc((const char *const[]){"--from-log", path, "--model", cases[i].model, "--format",
                                         "json", NULL},
                   &r);
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "\"engine\": \"llama.cpp\""));
        if (!strstr(r.out, cases[i].want))
            fail_msg("%s: %s", cases[i].log, r.out);
        run_free(&r);
    }
    /* the same LM Studio start cut after its buffers: 5,632 + 12,800 MiB = 18,432 MiB */
    char *log = read_file(KVCALC_SOURCE_DIR "/tests/logs/llamacpp-l19-lmstudio-unified.log", NULL);
    assert_non_null(log);
    char *cut = strstr(log, "CPU KV buffer size = 12800.00 MiB\n");
    assert_non_null(cut);
    cut[strlen("CPU KV buffer size = 12800.00 MiB\n")] = '\0';
    char tmp[] = "/tmp/kvcalc-failed-XXXXXX";
    write_temp(tmp, log);
    free(log);
    run_result r;
    run_kvcalc((const char *const[]){"--from-log", tmp, "--model", "qwen3-8b", NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "llama.cpp (KV buffer size lines)"));
    assert_non_null(strstr(r.out, "KV buffers (all devices)         18.00 GiB      18.00 GiB      "
                                  "+0.00 GiB  from the logged settings: equal\n"));
    run_free(&r);
    remove(tmp);
}

/* DeepSeek sparse attention: the indexer's key cache beside the MLA cache, in -ctk's type, as
 * b10505 prints it (tests/logs/llamacpp-h03-glm-5.2-dsa.log). GLM-5's 78 MLA layers at 768,000
 * cells: main 768,000 x 78 x 576 x 2 B = 65,812.50 MiB, the log's line byte for byte; the
 * indexer 768,000 x 78 x 128 x 2 B = 14,625.00 MiB (GLM-5.2, the log's model, keeps it in 21
 * of its layers: 3,937.50 MiB; no GLM-5.2 config is at hand). DeepSeek-V3.2: 61 layers. */
static void indexer_cache(void **state)
{
    (void)state;
    char *log = read_file(KVCALC_SOURCE_DIR "/tests/logs/llamacpp-h03-glm-5.2-dsa.log", NULL);
    assert_non_null(log);
    const char *main_line = "llama_kv_cache_dsa: creating main KV cache, size = 768000 cells\n";
    const char *size_line = "llama_kv_cache: size = 65812.50 MiB (768000 cells,  78 layers,  1/1 "
                            "seqs), K (f16): 65812.50 MiB, V (f16):    0.00 MiB\n";
    const char *index_line = "llama_kv_cache_dsa: creating indexer KV cache, size = 768000 cells\n";
    assert_non_null(strstr(log, main_line));
    assert_non_null(strstr(log, size_line));
    assert_non_null(strstr(log, index_line));
    free(log);
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "glm-5", "--ctx-size",
                                     "768000", "--parallel", "1", "--llamacpp-build", "10505",
                                     "--gpu-mem-gib", "400", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, main_line));
    assert_non_null(strstr(r.out, size_line));
    assert_non_null(strstr(r.out, index_line));
    assert_non_null(strstr(r.out, "llama_kv_cache: size = 14625.00 MiB (768000 cells,  78 layers,  "
                                  "1/1 seqs), K (f16): 14625.00 MiB, V (f16):    0.00 MiB\n"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "deepseek-v3.2",
                                     "--ctx-size", "4096", "--parallel", "1", "--gpu-mem-gib",
                                     "800", "--get", "llamacpp_index_k_bytes", NULL},
               &r);
    assert_string_equal(r.out, "63963136\n"); /* 4,096 x 61 x 128 x 2 */
    run_free(&r);
}

/* Devices (section 8): -ngl 16 of 32 blocks: layers >= 32 + 1 - 16 = 17 are on the GPU, 15
 * of them; their share of the KV is 15/32, the rest in host memory. Before b6325 nothing is
 * offloaded unless -ngl says so. */
static void layers_on_the_gpu(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    plain(&s, 8000, 4096, 1);
    s.llamacpp.n_gpu_layers = KV_SOME_INT(16);
    const kv_llamacpp_result *L = run(&s, &r);
    assert_int_equal(L->gpu_layers, 16);
    assert_true(L->kv_gpu_bytes == 512 * MIB * 15 / 32);
    assert_true(L->kv_gpu_bytes + L->kv_host_bytes == r.kv_cache_bytes);
    assert_true(L->weights_gpu_bytes == r.weights_bytes * 16 / 33);
    plain(&s, 6000, 4096, 1);
    L = run(&s, &r);
    assert_int_equal(L->gpu_layers, 0);
    assert_true(L->kv_host_bytes == 512 * MIB);
    assert_int_equal(L->ctx_size_fit, INT64_MAX); /* nothing grows on the GPU */
}

/* Requests at once: every slot that holds a request; one shared stream holds no more than
 * its cells. 4 unified slots of 8,192 cells: 3,000 tokens -> min(4, 8192 / 3000) = 2;
 * 1,000 -> 4; 9,000 -> 0. The table's rows and kv_max_concurrency_at agree. */
static void requests_at_once(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    plain(&s, 8000, 8192, 0);
    static const struct { int64_t context; double want; } cases[] = {
        {3000, 2}, {1000, 4}, {8192, 1}, {9000, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        s.context = cases[i].context;
        run(&s, &r);
        assert_true(r.max_concurrency == cases[i].want);
        assert_true(r.fits == (cases[i].want >= 1));
        assert_true(kv_max_concurrency_at(&s, cases[i].context) == cases[i].want);
    }
    /* 4 separate streams of 2,048: a request of 2,048 in each, none of 2,049 */
    plain(&s, 8000, 8192, 4);
    s.context = 2048;
    assert_true(run(&s, &r)->n_seq == 4 && r.max_concurrency == 4);
    s.context = 2049;
    run(&s, &r);
    assert_true(r.max_concurrency == 0);
    /* a GPU too small for the weights: llama.cpp would not start */
    plain(&s, 8000, 8192, 1);
    s.gpu_mem_gib = 8; /* 14 GB of weights */
    s.context = 1024;
    const kv_llamacpp_result *L = run(&s, &r);
    assert_false(L->fits_gpu);
    assert_true(r.max_concurrency == 0);
    assert_int_equal(L->ctx_size_fit, 0);
    /* auto-fit (no -c, b7407+): 131,072 unfitted cells of 4 slots (16 GiB of KV) do not fit
     * 24 GiB beside 14 GB of weights; llama.cpp lowers n_ctx to what fits and serves; an
     * explicit -c of the same size fails instead */
    plain(&s, 8000, -1, 0);
    s.max_context = 131072;
    s.gpu_mem_gib = 24;
    L = run(&s, &r);
    assert_true(L->autofit && !L->fits_gpu);
    assert_int_equal(L->autofit_ctx, L->ctx_size_fit);
    assert_true(L->autofit_ctx >= 4096 && L->autofit_ctx < 131072);
    assert_true(r.max_concurrency == 4);
    assert_int_equal(L->n_ctx, 131072); /* the figures stay the unfitted ones */
    s.llamacpp.ctx_size = KV_SOME_INT(131072);
    L = run(&s, &r);
    assert_int_equal(L->autofit_ctx, 0);
    assert_true(r.max_concurrency == 0);
}

/* Properties: the largest -c that fits does fit and the next padding step does not; more
 * GPU memory never lowers the answer or the fit. */
static void fit_properties(void **state)
{
    (void)state;
    for (int build = 3000; build <= 11000; build += 4000) {
        double prev_conc = -1;
        int64_t prev_fit = -1;
        for (double gib = 14; gib <= 80; gib += 6) {
            kv_spec s;
            kv_result r, r2;
            plain(&s, build, 8192, 2);
            s.llamacpp.n_gpu_layers = KV_SOME_INT(99);
            s.gpu_mem_gib = gib;
            const kv_llamacpp_result *L = run(&s, &r);
            assert_true(r.max_concurrency >= prev_conc);
            assert_true(L->ctx_size_fit >= prev_fit);
            prev_conc = r.max_concurrency;
            prev_fit = L->ctx_size_fit;
            if (L->ctx_size_fit <= 0 || L->ctx_size_fit == INT64_MAX)
                continue;
            s.llamacpp.ctx_size = KV_SOME_INT(L->ctx_size_fit);
            assert_true(run(&s, &r2)->fits_gpu);
            s.llamacpp.ctx_size = KV_SOME_INT(L->ctx_size_fit + 1);
            assert_false(run(&s, &r2)->fits_gpu);
        }
    }
}

/* What llama.cpp refuses is refused, with a sentence that names the flag: the parameter
 * kv_explain() blames, or (for two flags at once) the sentence itself. */
static void refusals(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    kv_error e;
    char why[KV_ERROR_MAX + 64];
    static const char *const want[] = {"--tensor-parallel-size", "--dtype", "--cache-type-v",
                                       "--cache-type-k", "--flash-attn", "--cache-type-k/-v"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        plain(&s, 8000, 4096, 1);
        switch (i) {
        case 0: s.tp = 2; break;
        case 1: s.dtype = KV_DTYPE_FP8; break;
        case 2: s.llamacpp.type_v = KV_SOME_INT(KV_GGML_Q8_0); s.llamacpp.flash_attn = KV_SOME_INT(KV_FLASH_OFF); break;
        case 3: s.head_dim = 80; s.llamacpp.type_k = KV_SOME_INT(KV_GGML_Q4_0); break;
        case 4: s.llamacpp.build = 6000; s.llamacpp.flash_attn = KV_SOME_INT(KV_FLASH_AUTO); break;
        default: s.llamacpp.build = 1000; s.llamacpp.type_k = KV_SOME_INT(KV_GGML_Q8_0); break;
        }
        assert_int_equal(kv_compute(&s, &r), KV_ERR_ENGINE_INPUT);
        kv_explain(&s, KV_ERR_ENGINE_INPUT, &e);
        assert_int_equal(e.code, KV_ERR_ENGINE_INPUT);
        if (e.blamed)
            snprintf(why, sizeof why, "--%s: %s", e.blamed->name, e.msg);
        else
            snprintf(why, sizeof why, "%s", e.msg);
        assert_memory_equal(why, want[i], strlen(want[i]));
        assert_true(strstr(why, "llama.cpp") || strstr(why, "build") || strstr(why, "exists"));
    }
    plain(&s, 8000, 4096, 1);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    s.tp = 2;
    kv_spec_set_engine(&s, KV_ENGINE_VLLM); /* another engine: not llama.cpp's business */
    assert_int_equal(kv_compute(&s, &r), KV_OK);
}

/* The printed lines of each era (section 7), through the binary. */
static void printed_lines(void **state)
{
    (void)state;
    static const struct { const char *build, *want; } eras[] = {
        {"1000", "llama_new_context_with_model: kv self size  =  256.00 MB\n"},
        {"1600", "llama_new_context_with_model: kv self size  =  256.00 MiB\n"},
        {"3000", "llama_new_context_with_model: KV self size  =  256.00 MiB, K (f16):  128.00 "
                 "MiB, V (f16):  128.00 MiB\n"},
        {"5000", "llama_context: KV self size  =  256.00 MiB, K (f16):"},
        {"5300", "llama_kv_cache_unified: KV self size  =  256.00 MiB"},
        {"5500", "llama_kv_cache_unified: size =  256.00 MiB (  2048 cells,  32 layers,  1 seqs)"},
        {"6000", "llama_kv_cache_unified: size =  256.00 MiB (  2048 cells,  32 layers,  1/ 1 seqs)"},
        {"6100", "llama_kv_cache_unified: size =  256.00 MiB (  2048 cells,  32 layers,  1/1 seqs)"},
        {"8000", "llama_kv_cache: size =  256.00 MiB (  2048 cells,  32 layers,  1/1 seqs), K (f16):  "
                 "128.00 MiB, V (f16):  128.00 MiB\n"}};
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++) {
        run_result r;
        const char *args[] = {"--engine", "llama.cpp", "--layers", "32", "--kv-heads", "8",
                              "--head-dim", "128", "--llamacpp-build", eras[i].build, "-c",
                              "2048", "-np", "1", "-fa", "off", NULL};
        if (strcmp(eras[i].build, "1000") == 0 || strcmp(eras[i].build, "1600") == 0)
            args[14] = NULL; /* no -fa: these builds have only the switch */
        run_kvcalc(args, &r);
        assert_int_equal(r.status, 0);
        if (!strstr(r.out, eras[i].want))
            fail_msg("build %s: no line '%s' in:\n%s", eras[i].build, eras[i].want, r.out);
        run_free(&r);
    }
}

/* Flags of llama.cpp with another engine, and bad values: exit 2, one line naming the flag
 * as typed, nothing on stdout. */
static void usage_errors(void **state)
{
    (void)state;
    static const struct { const char *args[8]; const char *want; } cases[] = {
        {{"-c", "4096"}, "kvcalc: -c: applies only with --engine llama.cpp\n"},
        {{"--engine", "vllm", "--parallel", "2"}, "kvcalc: --parallel: applies only with --engine llama.cpp\n"},
        {{"--engine", "llama.cpp", "-ctk", "q3_k"}, "kvcalc: -ctk: unknown value 'q3_k'"},
        {{"--engine", "llama.cpp", "-np", "0"}, "kvcalc: -np: expected an integer >= 1"},
        {{"--engine", "llama.cpp", "--flash-attn", "yes"}, "kvcalc: --flash-attn: unknown value"},
        {{"--engine", "llama.cpp", "--dtype", "fp8"}, "kvcalc: --dtype: llama.cpp has no fp8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        run_kvcalc(cases[i].args, &r);
        assert_int_equal(r.status, 2);
        assert_int_equal(r.out_len, 0);
        if (strncmp(r.err, cases[i].want, strlen(cases[i].want)) != 0)
            fail_msg("case %zu: got '%s'", i, r.err);
        assert_non_null(strstr(r.err, "Try 'kvcalc --help'"));
        run_free(&r);
    }
}

/* The 8-bit KV lever is llama.cpp's q8_0 (it has no fp8 cache): K and V rows of 1,024
 * elements at 34 B per 32 = 1,088 B instead of 2,048 B; a build without quantized caches
 * refuses the lever, and only that row is empty. */
static void levers(void **state)
{
    (void)state;
    kv_spec s;
    kv_levers lv;
    plain(&s, 8000, 4096, 1);
    s.llamacpp.flash_attn = KV_SOME_INT(KV_FLASH_OFF); /* the lever turns it on: q8_0 V needs it */
    assert_int_equal(kv_levers_compute(&s, 0, 0, &lv), KV_OK);
    assert_string_equal(lv.kv8_name, "q8_0");
    assert_true(lv.rows[KV_LEVER_FP8_KV].applies);
    assert_true(lv.rows[KV_LEVER_FP8_KV].max_concurrency == 1);
    plain(&s, 1000, 2048, 1);
    assert_int_equal(kv_levers_compute(&s, 0, 0, &lv), KV_OK);
    assert_false(lv.rows[KV_LEVER_FP8_KV].applies);
    assert_true(lv.rows[KV_LEVER_HALF_CONTEXT].applies);
    kv_spec_set_engine(&s, KV_ENGINE_VLLM);
    assert_int_equal(kv_levers_compute(&s, 0, 0, &lv), KV_OK);
    assert_string_equal(lv.kv8_name, "fp8");
}

/* -nkvo: the cache in host memory whatever -ngl puts on the GPU. Qwen3-8B at -c 32768, by
 * hand: 2 x 36 layers x 8 heads x 128 x 2 B = 147,456 B a cell x 32,768 = 4,831,838,208 B,
 * all on the host, and the GPU needs that much less. */
/* Where the weights sit (llama_model::load_tensors, src/llama-model.cpp @ 3f545becc): the
 * input layer's token embedding always on the CPU; the last -ngl layers' blocks on the GPU,
 * the output layer (norm and head) once -ngl passes n_layer; a tied head created again there
 * (TENSOR_DUPLICATED). Real logs show it: with every layer offloaded a CPU_Mapped buffer of
 * about the embedding stays (tests/logs/llamacpp-h08: 682.03 MiB beside 16,386.94 MiB on
 * CUDA0; -h10: 787.50 MiB, 262,144 x 3,840 at Q6_K). By hand, in bf16: Qwen3-8B's embedding
 * and untied head are 151,936 x 4,096 x 2 B = 1,244,659,712 B each, of 16,381,470,720;
 * Qwen3-0.6B's tied one 151,936 x 1,024 x 2 B = 311,164,928 B of 1,192,099,840. */
static void weights_placement(void **state)
{
    (void)state;
    static const struct {
        const char *model, *ngl;
        double gpu, host, copy;
    } rows[] = {
        {"qwen3-8b", NULL, 16381470720.0 - 1244659712.0, 1244659712.0, 0},
        /* -ngl N: the output layer first (i_gpu_start = n_layer + 1 - N), then the last N - 1
         * blocks: 36 holds 35 of the 36 blocks' 16,381,470,720 - 2 x 1,244,659,712 B and the
         * head, 18 holds 17, 1 the head alone, 0 nothing */
        {"qwen3-8b", "36", 13892151296.0 * 35 / 36 + 1244659712.0,
         16381470720.0 - (13892151296.0 * 35 / 36 + 1244659712.0), 0},
        {"qwen3-8b", "18", 13892151296.0 * 17 / 36 + 1244659712.0,
         16381470720.0 - (13892151296.0 * 17 / 36 + 1244659712.0), 0},
        {"qwen3-8b", "1", 1244659712.0, 16381470720.0 - 1244659712.0, 0},
        {"qwen3-8b", "0", 0, 16381470720.0, 0},
        /* tied: the GPU holds the blocks and the head's copy, the host the embedding */
        {"qwen3-0.6b", NULL, 1192099840.0, 311164928.0, 311164928.0},
        {"qwen3-0.6b", "1", 311164928.0, 1192099840.0, 311164928.0},
        {"qwen3-0.6b", "0", 0, 1192099840.0, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *argv[8] = {"--engine", "llama.cpp", "--model", rows[i].model, NULL};
        if (rows[i].ngl) {
            argv[4] = "-ngl";
            argv[5] = rows[i].ngl;
        }
        static const char *const keys[] = {"llamacpp_weights_gpu_bytes",
                                           "llamacpp_weights_host_bytes",
                                           "llamacpp_head_copy_bytes"};
        double want[] = {rows[i].gpu, rows[i].host, rows[i].copy};
        for (size_t k = 0; k < 3; k++) {
            double got = run_get(keys[k], argv);
            if (got != want[k])
                fail_msg("%s -ngl %s: %s %.0f, want %.0f", rows[i].model,
                         rows[i].ngl ? rows[i].ngl : "(all)", keys[k], got, want[k]);
        }
    }
    /* a draft (-md) is loaded the same way: Qwen3-0.6B beside Qwen3-8B keeps its embedding
     * on the host too, its tied head copied to the GPU with its output layer: with every
     * layer there (the host: 1,244,659,712 + 311,164,928 B), or alone (-ngld 1: the draft's
     * 1,192,099,840 B all on the host beside its copy on the GPU) */
    const char *const d_all[] = {"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "h100",
                                 "-md", "qwen3-0.6b", NULL};
    const char *const d_1[] = {"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "h100",
                               "-md", "qwen3-0.6b", "-ngld", "1", NULL};
    assert_true(run_get("llamacpp_draft_weights_gpu_bytes", d_all) == 1192099840.0);
    assert_true(run_get("llamacpp_weights_host_bytes", d_all) == 1244659712.0 + 311164928.0);
    assert_true(run_get("llamacpp_draft_weights_gpu_bytes", d_1) == 311164928.0);
    assert_true(run_get("llamacpp_weights_host_bytes", d_1) == 1244659712.0 + 1192099840.0);
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-0.6b", NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  weights  : 1.11 GiB on the GPU, 0.29 GiB in host memory (the "
                                  "input layer's 0.29 GiB always there; the tied output head "
                                  "a copy of it on the GPU)\n"));
    /* llama-server's prompt cache: up to --cache-ram (8,192 MiB) of host memory from b6723,
     * outside host_bytes (a failed allocation lowers the limit) */
    assert_non_null(strstr(r.out, "  prompts  : llama-server's prompt cache grows to 8.00 GiB of "
                                  "host memory as it saves prompts (--cache-ram 8,192 MiB; 0 "
                                  "turns it off)\n"));
    run_free(&r);
    const char *const off[] = {"--engine", "llama.cpp", "--model", "qwen3-0.6b", "--cache-ram",
                               "0", NULL};
    const char *const old[] = {"--engine", "llama.cpp", "--model", "qwen3-0.6b",
                               "--llamacpp-build", "6722", NULL};
    const char *const big[] = {"--engine", "llama.cpp", "--model", "qwen3-0.6b", "--cache-ram",
                               "100", NULL};
    assert_true(run_get("llamacpp_prompt_cache_max_bytes", off) == 0);
    assert_true(run_get("llamacpp_prompt_cache_max_bytes", old) == 0);
    assert_true(run_get("llamacpp_prompt_cache_max_bytes", big) == 104857600.0);
    assert_true(run_get("host_bytes", big) == 0);
}

/* -ot against a real log (tests/logs/llamacpp-h12: Qwen3-235B-A22B Q8_0, b5192, --no-mmap,
 * -ngl 99 and three -ot ranges moving blocks 13 to 93's ffn tensors, 81 x 5 = 405, to the
 * CPU). Its "file size = 232.77 GiB" becomes the weights (--weights-gib), which kvcalc splits
 * by each part's estimated share: the token embedding stays on the host (the log's CUDA_Host
 * 630.59 MiB: 151,936 x 4,096 at Q8_0's 8.5 bits is 630.58 MiB), the moved tensors join it
 * (the log's CPU 198,451.27 MiB). Both agree with the log within the file size's own
 * rounding: +-0.005 GiB of the file, 5.12 MiB. */
static void override_tensors_real_log(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/logs/llamacpp-h12-qwen3-235b-q8_0-ot.log",
             KVCALC_SOURCE_DIR);
    const char *const argv[] = {"--from-log", path, "--model", "qwen3-235b-a22b", "-ngl", "99",
                                "-ot", "blk\\.1[3-9]\\.ffn.*=CPU", "-ot",
                                "blk\\.[2-8][0-9]\\.ffn.*=CPU", "-ot", "blk\\.9[0-3]\\.ffn.*=CPU",
                                "--format", "json", NULL};
    run_result r;
    run_kvcalc(argv, &r);
    assert_int_equal(r.status, 0);
    static const struct {
        const char *quantity;
        double logged; /* MiB as the log prints them, summed */
    } rows[] = {
        {"model buffers (all devices)", 630.59 + 39273.87 + 198451.27},
        {"model buffers in host memory", 630.59 + 198451.27},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char key[128];
        snprintf(key, sizeof key, "\"quantity\": \"%s\", \"unit\": \"bytes\", \"logged\": ",
                 rows[i].quantity);
        const char *at = strstr(r.out, key);
        assert_non_null(at);
        double logged = strtod(at + strlen(key), NULL);
        const char *k = strstr(at, "\"kvcalc\": ");
        assert_non_null(k);
        double kvcalc = strtod(k + strlen("\"kvcalc\": "), NULL);
        assert_true(fabs(logged - rows[i].logged * 1048576.0) < 1.0); /* read exactly */
        if (!(fabs(kvcalc - logged) <= 5.12 * 1048576.0))
            fail_msg("%s: kvcalc %.0f, logged %.0f", rows[i].quantity, kvcalc, logged);
    }
    assert_non_null(strstr(r.out, "\"quantity\": \"weights (file size)\", \"unit\": \"bytes\", "
                                  "\"logged\": 249934884372.48, \"kvcalc\": 249934884372.48,"));
    run_free(&r);
    /* the same tensors by name: every ffn tensor of the 81 blocks */
    const char *const count[] = {"--engine", "llama.cpp", "--model", "qwen3-235b-a22b", "-ngl",
                                 "99", "-ot", "blk\\.1[3-9]\\.ffn.*=CPU", "-ot",
                                 "blk\\.[2-8][0-9]\\.ffn.*=CPU", "-ot",
                                 "blk\\.9[0-3]\\.ffn.*=CPU", NULL};
    assert_true(run_get("llamacpp_override_tensors", count) == 405);
}

/* --n-cpu-moe N: the routed experts of blocks 0 .. N-1 leave the GPU. Qwen3-30B-A3B in bf16,
 * by hand: 128 experts x 3 x 2,048 x 768 x 2 B = 1,207,959,552 B a layer; 24 layers =
 * 28,991,029,248 B (27.00 GiB), on the host and off the GPU's weights, beside the token
 * embedding that is always there: 151,936 x 2,048 x 2 B = 622,329,856 B (llama-model.cpp
 * dev_input). A dense model moves nothing, and says so. */
static void n_cpu_moe(void **state)
{
    (void)state;
    run_result a, b;
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-30b-a3b", "--gpu",
                                     "h100", "-c", "8192", "--format", "json", NULL}, &a);
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-30b-a3b", "--gpu",
                                     "h100", "-c", "8192", "-ncmoe", "24", "--format", "json", NULL},
               &b);
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    assert_non_null(strstr(a.out, "\"llamacpp_cpu_moe_bytes\": 0,"));
    assert_non_null(strstr(b.out, "\"llamacpp_cpu_moe_bytes\": 28991029248,"));
    const char *k = "\"llamacpp_weights_gpu_bytes\": ";
    double ga = strtod(strstr(a.out, k) + strlen(k), NULL);
    double gb = strtod(strstr(b.out, k) + strlen(k), NULL);
    assert_true(ga - gb == 28991029248.0);
    k = "\"llamacpp_weights_host_bytes\": ";
    assert_true(strtod(strstr(a.out, k) + strlen(k), NULL) == 622329856.0);
    assert_true(strtod(strstr(b.out, k) + strlen(k), NULL) == 28991029248.0 + 622329856.0);
    run_free(&a);
    run_free(&b);
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--n-cpu-moe", "4", NULL}, &a);
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "  experts  : --n-cpu-moe 4 keeps 0.00 GiB of MoE experts on the "
                                  "CPU (the model has no MoE experts: nothing moves)\n"));
    run_free(&a);
    /* --cpu-moe: every block's experts, 48 x 1,207,959,552 = 57,982,058,496 B, as -ncmoe 48,
     * and beside -ncmoe 4 still all of them (llama.cpp adds the overrides up) */
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-30b-a3b", "--gpu",
                                     "h100", "-c", "8192", "--cpu-moe", "--format", "json", NULL},
               &a);
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-30b-a3b", "--gpu",
                                     "h100", "-c", "8192", "-ncmoe", "4", "-cmoe", NULL},
               &b);
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    assert_non_null(strstr(a.out, "\"llamacpp_cpu_moe_bytes\": 57982058496,"));
    assert_non_null(strstr(b.out, "  experts  : --cpu-moe keeps 54.00 GiB of MoE experts on the CPU"));
    run_free(&a);
    run_free(&b);
    /* the builds before the flags (a06ed5fea = b6051, ec428b02c = b6089) */
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-30b-a3b",
                                     "--llamacpp-build", "6050", "--cpu-moe", NULL}, &a);
    assert_int_equal(a.status, 2);
    assert_non_null(strstr(a.err, "kvcalc: --cpu-moe: --cpu-moe exists from build 6051"));
    run_free(&a);
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-30b-a3b",
                                     "--llamacpp-build", "6088", "--n-cpu-moe", "2", NULL}, &a);
    assert_int_equal(a.status, 2);
    assert_non_null(strstr(a.err, "kvcalc: --n-cpu-moe: --n-cpu-moe exists from build 6089"));
    run_free(&a);
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-30b-a3b",
                                     "--llamacpp-build", "6089", "--n-cpu-moe", "2", NULL}, &a);
    assert_int_equal(a.status, 0);
    run_free(&a);
    /* a geometry without widths cannot say what the experts weigh: refused, not 0 */
    run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--layers", "32", "--kv-heads", "8",
                                     "--head-dim", "128", "-ncmoe", "4", NULL}, &a);
    assert_int_equal(a.status, 2);
    assert_non_null(strstr(a.err, "kvcalc: -ncmoe: the experts' size needs the model's widths"));
    run_free(&a);
}

static void no_kv_offload(void **state)
{
    (void)state;
    run_result on, off;
    const char *const base[] = {"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "rtx-4090",
                                "-c", "32768", "--format", "json", NULL};
    const char *const nkvo[] = {"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "rtx-4090",
                                "-c", "32768", "-nkvo", "--format", "json", NULL};
    run_kvcalc(base, &on);
    run_kvcalc(nkvo, &off);
    assert_int_equal(on.status, 0);
    assert_int_equal(off.status, 0);
    assert_non_null(strstr(on.out, "\"llamacpp_kv_gpu_bytes\": 4831838208,"));
    assert_non_null(strstr(on.out, "\"llamacpp_kv_host_bytes\": 0,"));
    assert_non_null(strstr(off.out, "\"llamacpp_kv_gpu_bytes\": 0,"));
    assert_non_null(strstr(off.out, "\"llamacpp_kv_host_bytes\": 4831838208,"));
    const char *a = strstr(on.out, "\"llamacpp_gpu_needed_bytes\": ");
    const char *b = strstr(off.out, "\"llamacpp_gpu_needed_bytes\": ");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(strtod(a + 29, NULL) - strtod(b + 29, NULL) == 4831838208.0);
    run_free(&on);
    run_free(&off);
    const char *const text[] = {"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "rtx-4090",
                                "-c", "32768", "--no-kv-offload", NULL};
    run_kvcalc(text, &off);
    assert_non_null(strstr(off.out, "KV 0.00 MiB there, 4608.00 MiB in host memory "
                                    "(--no-kv-offload)\n"));
    assert_non_null(strstr(off.out, "of 23.99 GiB: fits\n")); /* a preset's total: 2 decimals */
    run_free(&off);
}

/* A -md draft's value of one key (--get). */
static double draft_get(const char *key, const char *const *extra)
{
    const char *argv[32] = {"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu", "rtx-4090",
                            "-c", "32768", "-np", "4", "-md", "qwen3-0.6b"};
    size_t n = 12;
    for (size_t i = 0; extra && extra[i] && n < 31; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    return run_get(key, argv);
}

/* -md (llama-server's draft; src/engines/llamacpp.c draft_use() cites the commits). Qwen3-0.6B
 * by hand: 28 layers x (8 x 128 K + 8 x 128 V) x 2 B (f16) = 114,688 B a cell.
 * - from b9115 one context with the target's cells: 32,768 x 114,688 = 3,758,096,384 B;
 * - before, one context a slot of the slot's context (-cd 0): 4 x 8,192 cells, the same bytes;
 *   -cd 2048: 4 x 2,048 x 114,688 = 939,524,096 B;
 * - -ctkd q8_0 -ctvd q8_0 (with flash attention): 34 B per 32 elements, 28 x 2 x 1,088 B =
 *   60,928 B a cell, x 32,768 = 1,996,488,704 B;
 * - -ngld 0: nothing on the GPU; the draft's weights, the 0.6B model's own, in host memory.
 * The GPU's total grows by the draft's KV and weights there. */
static void draft_model_contexts(void **state)
{
    (void)state;
    assert_true(draft_get("llamacpp_draft_contexts", NULL) == 1);
    assert_true(draft_get("llamacpp_draft_cells", NULL) == 32768);
    assert_true(draft_get("llamacpp_draft_kv_bytes", NULL) == 3758096384.0);
    const char *const old[] = {"--llamacpp-build", "9000", NULL};
    assert_true(draft_get("llamacpp_draft_contexts", old) == 4);
    assert_true(draft_get("llamacpp_draft_cells", old) == 8192);
    assert_true(draft_get("llamacpp_draft_kv_bytes", old) == 3758096384.0);
    const char *const cd[] = {"--llamacpp-build", "9000", "-cd", "2048", NULL};
    assert_true(draft_get("llamacpp_draft_kv_bytes", cd) == 939524096.0);
    /* from b9115 a -c of 0 (the default) stays 0 for the draft: its own n_ctx_train, Qwen3-0.6B's
     * 40,960 (2fb989b's message), 40,960 x 114,688 = 4,697,620,480 B */
    assert_true(run_get("llamacpp_draft_kv_bytes",
                        (const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu",
                                              "h100", "-md", "qwen3-0.6b", NULL}) == 4697620480.0);
    /* b6931 to b9114: a slot's draft takes llama_n_ctx_seq, the whole n_ctx of a unified cache:
     * 4 automatic slots x 32,768 x 114,688 = 15,032,385,536 B; before b6931 n_ctx / slots */
    assert_true(run_get("llamacpp_draft_kv_bytes",
                        (const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu",
                                              "h100", "-md", "qwen3-0.6b", "--llamacpp-build", "7000",
                                              "-c", "32768", NULL}) == 15032385536.0);
    assert_true(run_get("llamacpp_draft_kv_bytes",
                        (const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-8b", "--gpu",
                                              "h100", "-md", "qwen3-0.6b", "--llamacpp-build", "6000",
                                              "-c", "32768", "-np", "4", NULL}) == 3758096384.0);
    const char *const q8[] = {"-ctkd", "q8_0", "-ctvd", "q8_0", NULL};
    assert_true(draft_get("llamacpp_draft_kv_bytes", q8) == 1996488704.0);
    double own = run_get("weights_bytes", (const char *const[]){"--model", "qwen3-0.6b", NULL});
    assert_true(draft_get("llamacpp_draft_weights_gpu_bytes", NULL) == own);
    const char *const none[] = {"-ngld", "0", NULL};
    assert_true(draft_get("llamacpp_draft_kv_gpu_bytes", none) == 0);
    assert_true(draft_get("llamacpp_draft_weights_gpu_bytes", none) == 0);
    /* the draft's weights and the target's token embedding (151,936 x 4,096 x 2 B) */
    assert_true(draft_get("llamacpp_weights_host_bytes", none) == own + 1244659712.0);
    assert_true(draft_get("llamacpp_kv_host_bytes", none) == 3758096384.0);
    double plain = run_get("llamacpp_gpu_needed_bytes",
                           (const char *const[]){"--engine", "llama.cpp", "--model", "qwen3-8b",
                                                 "--gpu", "rtx-4090", "-c", "32768", "-np", "4",
                                                 NULL});
    assert_true(draft_get("llamacpp_gpu_needed_bytes", NULL) - plain == 3758096384.0 + own);
    /* refusals */
    static const struct {
        const char *args[4];
        const char *says;
    } refused[] = {
        {{"-cd", "2048"}, "-cd is gone from build 9115"},
        {{"--llamacpp-build", "5000", "-ctkd", "q8_0"}, "exist from build 5761"},
        {{"--llamacpp-build", "4000"}, "from build 4246"},
        {{"-ctvd", "q8_0", "-fa", "off"}, "a quantized V cache needs flash attention"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *argv[24] = {"--engine", "llama.cpp", "--model", "qwen3-8b", "-c", "32768",
                                "-md", "qwen3-0.6b"};
        size_t n = 8;
        for (size_t k = 0; k < 4 && refused[i].args[k]; k++)
            argv[n++] = refused[i].args[k];
        expect_refused(argv, refused[i].says);
    }
}

/* The layers are added up by kind, each kind's count on the GPU from the pattern (issue 22):
 * Gemma-3-like, 62 layers of 5 sliding (window 1,024) to 1 full, 16 KV heads of 128 (K row
 * 2,048 elements, 4,096 B in f16), the last 10 reusing earlier caches. Own caches: layers 0
 * to 51, full where l % 6 = 5 (5, 11, ..., 47: 8), sliding 44. -ngl 30: layers >= 62 + 1 - 30
 * = 33 are on the GPU, of the own ones 33 to 51: full 35, 41, 47 (3), sliding 16. -c 8192:
 * 8,192 cells; the sliding cache min(1,024 + 512, 8,192) = 1,536 cells. So K = V = 8 x 4,096 x
 * 8,192 = 268,435,456 B (main) and 44 x 4,096 x 1,536 = 276,824,064 B (sliding); on the GPU
 * 2 x 3 x 4,096 x 8,192 + 2 x 16 x 4,096 x 1,536 = 402,653,184 B, in host memory the rest,
 * 1,090,519,040 - 402,653,184 = 687,865,856 B. -ngl 11 leaves only reusing layers on the GPU
 * (first 52); -ngl 0 none; -nkvo keeps every cache in host memory; -ngl 29 puts the layers
 * from 34 there (3 full, 15 sliding), -ngl 34 those from 29 (full 29 too: 4 full, 19). */
static void layers_by_kind(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    plain(&s, 11000, 8192, 1);
    s.layers = 62;
    s.kv_heads = 16;
    s.layout.pattern_len = 6;
    for (int i = 0; i < 5; i++)
        s.layout.pattern[i] = KV_LAYER_SLIDING;
    s.layout.pattern[5] = KV_LAYER_FULL;
    s.layout.window = 1024;
    s.layout.kv_shared_layers = 10;
    s.llamacpp.n_gpu_layers = KV_SOME_INT(30);
    const kv_llamacpp_result *L = run(&s, &r);
    assert_int_equal(L->main.layers, 8);
    assert_int_equal(L->swa.layers, 44);
    assert_int_equal(L->main.cells, 8192);
    assert_int_equal(L->swa.cells, 1536);
    assert_true(L->main.k_bytes == 268435456.0 && L->main.v_bytes == 268435456.0);
    assert_true(L->swa.k_bytes == 276824064.0 && L->swa.v_bytes == 276824064.0);
    assert_true(L->kv_gpu_bytes == 402653184.0);
    assert_true(L->kv_host_bytes == 687865856.0);
    static const struct {
        int64_t ngl;
        int nkvo;
        double gpu;
    } cases[] = {{11, 0, 0}, {0, 0, 0}, {100, 0, 1090519040.0}, {30, 1, 0},
                 {29, 0, 2 * 4096.0 * (3 * 8192 + 15 * 1536)},
                 {34, 0, 2 * 4096.0 * (4 * 8192 + 19 * 1536)}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        s.llamacpp.n_gpu_layers = KV_SOME_INT(cases[i].ngl);
        s.llamacpp.no_kv_offload = cases[i].nkvo;
        L = run(&s, &r);
        if (!(L->kv_gpu_bytes == cases[i].gpu && L->kv_host_bytes == 1090519040.0 - cases[i].gpu))
            fail_msg("-ngl %lld%s: %.0f B on the GPU, %.0f in host memory; want %.0f",
                     (long long)cases[i].ngl, cases[i].nkvo ? " -nkvo" : "", L->kv_gpu_bytes,
                     L->kv_host_bytes, cases[i].gpu);
    }
}

/* The fit search moves each end of its bracket to the edge of its padding step (issue 22),
 * where the cells and so the memory are the same: the answer is still the one -c that fits
 * with the next not fitting, under each padding rule - none (before b2493), 32 (b2493), 256
 * with flash attention (b2771), each stream's share padded (split streams, b6071), n_ctx
 * padded to 256 (b6975) - unified or not, with a sliding-window cache, and without flash
 * attention (where the compute buffer grows with the cells too). */
static void fit_edge_under_every_padding(void **state)
{
    (void)state;
    static const int64_t builds[] = {2000, 2600, 3000, 6500, 7000, 11000};
    int checked = 0;
    for (size_t b = 0; b < sizeof builds / sizeof builds[0]; b++)
        for (int model = 0; model < 2; model++)
            for (int np = 1; np <= 3; np += 2)
                for (int unified = 0; unified < 2; unified++)
                    for (int fa = KV_FLASH_OFF; fa <= KV_FLASH_ON; fa++) {
                        kv_spec s;
                        kv_result r, r2;
                        if (model)
                            gpt_oss(&s, builds[b], 8192);
                        else
                            plain(&s, builds[b], 8192, 1);
                        s.llamacpp.parallel = KV_SOME_INT(np);
                        s.llamacpp.kv_unified = unified;
                        s.llamacpp.flash_attn = KV_SOME_INT(fa);
                        s.llamacpp.n_gpu_layers = KV_SOME_INT(99);
                        s.gpu_mem_gib = 20.3;
                        int64_t fit = run(&s, &r)->ctx_size_fit;
                        if (fit <= 0 || fit == INT64_MAX)
                            fail_msg("b%lld: no edge to check (fit %lld)", (long long)builds[b],
                                     (long long)fit);
                        s.llamacpp.ctx_size = KV_SOME_INT(fit);
                        int at = run(&s, &r2)->fits_gpu;
                        s.llamacpp.ctx_size = KV_SOME_INT(fit + 1);
                        int past = run(&s, &r2)->fits_gpu;
                        if (!at || past)
                            fail_msg("b%lld %s -np %d%s -fa %d: the fit %lld %s, the next %s",
                                     (long long)builds[b], model ? "gpt-oss" : "plain", np,
                                     unified ? " -kvu" : "", fa, (long long)fit,
                                     at ? "fits" : "does not fit", past ? "fits" : "does not");
                        checked++;
                    }
    assert_int_equal(checked, 6 * 2 * 2 * 2 * 2);
}

/* llamacpp_ctx_size_fit is the largest -c whose buffers fit the GPU: a property, whatever
 * search finds it (issue 22 replaced bisection by a guess along the line through the
 * bracket): -c at the answer fits, one more does not. Dense, sliding-window, hybrid and
 * MoE models on small and large GPUs. */
static void ctx_size_fit_is_the_edge(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"qwen3-8b", "rtx4090"},         {"qwen3-8b", "t4"},
        {"gemma-3-27b-it", "rtx4090"},   {"gemma-3-27b-it", "h100"},
        {"qwen3.5-9b", "rtx-4060"},      {"gpt-oss-20b", "rtx-5070"},
        {"llama-3.1-8b-instruct", "a10g"}, {"qwen3-30b-a3b", "h100"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *m = cases[i][0], *g = cases[i][1];
        double fit = run_get("llamacpp_ctx_size_fit", (const char *const[]){
                                 "--engine", "llama.cpp", "--model", m, "--gpu", g, NULL});
        if (!(fit >= 1 && fit < 9e18))
            continue; /* none, or any: nothing to bracket */
        char at[32], above[32];
        snprintf(at, sizeof at, "%.0f", fit);
        snprintf(above, sizeof above, "%.0f", fit + 1);
        run_result r;
        run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", m, "--gpu", g, "-c",
                                         at, "--get", "llamacpp_fits_gpu", NULL}, &r);
        if (strcmp(r.out, "true\n") != 0)
            fail_msg("%s on %s: -c %s (the fit) does not fit: %s", m, g, at, r.out);
        run_free(&r);
        run_kvcalc((const char *const[]){"--engine", "llama.cpp", "--model", m, "--gpu", g, "-c",
                                         above, "--get", "llamacpp_fits_gpu", NULL}, &r);
        if (strcmp(r.out, "false\n") != 0)
            fail_msg("%s on %s: -c %s (one past the fit) fits: %s", m, g, above, r.out);
        run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ctx_size_fit_is_the_edge),
        cmocka_unit_test(layers_by_kind),
        cmocka_unit_test(fit_edge_under_every_padding),
        cmocka_unit_test(no_kv_offload),
        cmocka_unit_test(draft_model_contexts),
        cmocka_unit_test(n_cpu_moe),
        cmocka_unit_test(weights_placement),
        cmocka_unit_test(override_tensors_real_log),
        cmocka_unit_test(cache_types),       cmocka_unit_test(sizes_by_type),
        cmocka_unit_test(padding_by_build),  cmocka_unit_test(streams_by_build),
        cmocka_unit_test(defaults_by_build), cmocka_unit_test(sliding_window_cache),
        cmocka_unit_test(mla_without_v),     cmocka_unit_test(recurrent_state),
        cmocka_unit_test(layers_on_the_gpu), cmocka_unit_test(requests_at_once),
        cmocka_unit_test(fit_properties),    cmocka_unit_test(refusals),
        cmocka_unit_test(printed_lines),     cmocka_unit_test(usage_errors),
        cmocka_unit_test(levers),            cmocka_unit_test(recurrent_split_from_a_config),
        cmocka_unit_test(recurrent_lines_of_real_logs),
        cmocka_unit_test(mtp_context),
        cmocka_unit_test(override_tensor),
        cmocka_unit_test(mid_2025_and_failed_logs),
        cmocka_unit_test(indexer_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
