/*
 * test_api.c - the public API through its header alone: every function of kvcalc.h that
 * the other library tests do not already call, with values worked out by hand here.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp: the test, not the library */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KVCALC_ENGINES
#include "kvcalc.h"

static kv_spec lesson(void)
{
    kv_spec s;
    kv_spec_defaults(&s);
    return s;
}

/* The longest context one request fits: the lesson's 35,392,123,904 B free / 57,344 B a
 * token = 617,189.4 -> 617,189; for a windowed model (gemma-3-27b-it on an H100) the
 * answer is the last context whose request still fits, checked against kv_request_bytes. */
static void longest_context_fit(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    kv_spec_defaults(&s);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(r.longest_context_fit, 617189);
    kv_model_info info;
    char err[512];
    assert_int_equal(kv_model_preset_spec(kv_model_preset_find("gemma-3-27b-it"), &s, &info, err,
                                          sizeof err), 0);
    s.gpu_mem_gib = 81559.0 / 1024.0;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    int64_t c = r.longest_context_fit;
    assert_true(c > 0);
    assert_true(kv_request_bytes(&s, c) <= r.free_kv_bytes);
    assert_true(kv_request_bytes(&s, c + 1) > r.free_kv_bytes);
    /* no room: not one token */
    s.gpu_mem_gib = 1;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(r.longest_context_fit, 0);
}

static void engines_and_dtypes(void **state)
{
    (void)state;
    assert_string_equal(kv_engine_name(KV_ENGINE_IDEAL), "ideal");
    assert_string_equal(kv_engine_name(KV_ENGINE_VLLM), "vllm");
    assert_null(kv_engine_name(KV_ENGINE_COUNT));
    /* every other spelling parses, and the list ends */
    size_t n = 0;
    for (; kv_dtype_spelling(n); n++) {
        kv_dtype d;
        assert_int_equal(kv_dtype_from_name(kv_dtype_spelling(n), &d), 0);
    }
    assert_true(n >= 5);
    assert_string_equal(kv_dtype_spelling(0), "float32");
    kv_dtype d;
    assert_int_equal(kv_dtype_from_name("bfloat16", &d), 0);
    assert_int_equal(d, KV_DTYPE_BF16);
    assert_int_equal(kv_dtype_from_name("fp8_e5m2", &d), 0);
    assert_int_equal(d, KV_DTYPE_FP8);
    assert_int_equal(kv_dtype_from_name("auto", &d), -1); /* "auto" is the caller's word */
}

/* The lesson's model (57,344 B a token, 35,392,123,904 B free on 48 GiB): 150 at 4k, 75 at
 * 8k; the curve's points are the same figures. */
static void concurrency_at_and_curve(void **state)
{
    (void)state;
    kv_spec s = lesson();
    assert_true(kv_max_concurrency_at(&s, 4096) == 150);
    assert_true(kv_max_concurrency_at(&s, 8192) == 75); /* 35,392,123,904 / 469,762,048 */
    static kv_curve c;
    kv_curve_compute(&s, &c);
    assert_int_equal(c.n, KV_CURVE_POINTS);
    assert_int_equal(c.context[0], 256);
    assert_int_equal(c.context[4], 512);   /* x 2^(1/4) a step: x 2 every 4 */
    assert_int_equal(c.context[16], 4096);
    assert_int_equal(c.context[48], 1048576);
    for (size_t i = 0; i < c.n; i++)
        assert_true(c.max_concurrency[i] == kv_max_concurrency_at(&s, c.context[i]));
    assert_true(c.max_concurrency[16] == 150);
}

/* kvcalc's vLLM estimates and defaults, as documented in the header. */
static void vllm_estimates_and_defaults(void **state)
{
    (void)state;
    kv_vllm_activation_inputs in = {.batched_tokens = 2048, .seqs = 256, .act_bytes = 2,
                                    .version = 1100, .v1 = 1};
    assert_true(kv_vllm_activation_estimate_gib(&in) == 0.25 + 0.1 * 2.0); /* no vocabulary */
    /* Llama-3.1-8B on an H100 (1,024 seqs, vocab 128,256, MLP 14,336, T 8,192):
     * 9.426 x 1024 x 128256 x 4 + 0.257 x 8192 x 14336 x 4 B = 4.7242 GiB (logged: 4.76) */
    in = (kv_vllm_activation_inputs){.batched_tokens = 8192, .seqs = 1024, .vocab = 128256,
                                     .mlp_width = 14336, .act_bytes = 2, .version = 1100, .v1 = 1};
    double act = kv_vllm_activation_estimate_gib(&in);
    assert_true(act > 4.7241 && act < 4.7242);
    /* the light warm-ups: 2.3 copies in V1 0.10.0-0.10.1 and 0.21+ and V0 before 0.7.3 */
    double light = (2.3 * 1024 * 128256 * 4.0 + 0.257 * 8192 * 14336 * 4.0) / 1073741824.0;
    static const struct {
        int version, v1, is_light;
    } eras[] = {{1001, 1, 1}, {1002, 1, 0}, {2100, 1, 1}, {702, 0, 1}, {703, 0, 0}, {1100, 1, 0}};
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++) {
        in.version = eras[i].version;
        in.v1 = eras[i].v1;
        assert_true(kv_vllm_activation_estimate_gib(&in) == (eras[i].is_light ? light : act));
    }
    /* Qwen3-235B-A22B at TP 8 on an L40S (D23: 256 seqs, T 2,048, top-8 of experts 1,536 wide
     * / 8 = 192, hidden 4,096): the experts' outputs 2,048 x 8 x 4,096 x 2 B =
     * 0.125 GiB joins 9.426 x 256 x 151,936 x 4 + 0.257 x 2,048 x 192 x 4 B: 1.4912 GiB
     * (logged 1.4) */
    in = (kv_vllm_activation_inputs){.batched_tokens = 2048, .seqs = 256, .vocab = 151936,
                                     .mlp_width = 192, .moe_row = 8 * 4096, .act_bytes = 2,
                                     .version = 1002, .v1 = 1};
    double moe = kv_vllm_activation_estimate_gib(&in);
    assert_true(moe > 1.4911 && moe < 1.4912);
    assert_true(kv_vllm_non_torch_estimate_gib(1, 79.18) == 0.13);
    assert_true(kv_vllm_non_torch_estimate_gib(1, 15.99) == 0.06);
    assert_true(kv_vllm_non_torch_estimate_gib(2, 79.18) == 0.5);
    assert_true(kv_vllm_cuda_graph_estimate_gib(1100) == 0.0);
    assert_true(kv_vllm_cuda_graph_estimate_gib(1999) == 0.0);
    assert_true(kv_vllm_cuda_graph_estimate_gib(2000) == 0.5); /* #38284 is in 0.20.0 */
    char ver[16];
    kv_vllm_version_format(1100, ver, sizeof ver);
    assert_string_equal(ver, "0.11");
    kv_vllm_version_format(1001, ver, sizeof ver);
    assert_string_equal(ver, "0.10.1");
    for (int rel = -101; rel < 100000; rel += rel < 3000 ? 1 : 97) { /* as printf spells them */
        char want[32];
        if (rel % 100)
            snprintf(want, sizeof want, "0.%d.%d", rel / 100, rel % 100);
        else
            snprintf(want, sizeof want, "0.%d", rel / 100);
        kv_vllm_version_format(rel, ver, sizeof ver);
        assert_string_equal(ver, want);
    }
    kv_spec vs;
    kv_spec_defaults(&vs);
    assert_int_equal(kv_spec_set_engine(&vs, KV_ENGINE_VLLM), KV_OK);
    const kv_vllm_spec v = vs.vllm;
    assert_false(v.util.set); /* the release's: */
    assert_true(kv_vllm_util_default(1100) == 0.9 && kv_vllm_util_default(2000) == 0.92 && kv_vllm_util_default(1999) == 0.9);
    assert_false(v.block_size.set);
    assert_false(v.max_num_batched_tokens.set); /* auto: from the GPU */
    assert_int_equal(v.version, 1100);
    assert_false(v.total_gib.set);              /* auto: from the spec's GPU */
    assert_int_equal(kv_spec_set_engine(&vs, KV_ENGINE_COUNT), KV_ERR_ENGINE_UNKNOWN);
}

/* 4 KV heads: TP 1, 2 and 4 split them; 8 replicates them (8 % 4 == 0); 3 does neither. */
static void tensor_parallel_sizes(void **state)
{
    (void)state;
    kv_spec s = lesson();
    assert_true(kv_tp_valid(&s, 1) && kv_tp_valid(&s, 2) && kv_tp_valid(&s, 4));
    assert_true(kv_tp_valid(&s, 8));
    assert_false(kv_tp_valid(&s, 3));
    assert_false(kv_tp_valid(&s, 0));
}

/* The lesson's decision: 300 requests at 8k, 469,762,048 B each = 140,928,614,400 B of KV;
 * 75 per 48 GiB card -> ceil(300 / 75) = 4 replicas. */
static void plan_and_levers(void **state)
{
    (void)state;
    kv_spec s = lesson();
    s.context = 8192;
    kv_result r;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    static kv_plan p;
    const kv_gpu_choice gpus[] = {{"small", 24, 0, NULL}, {"large", 96, 0, NULL}};
    assert_int_equal(kv_plan_compute(&s, &r, 300, gpus, 2, &p), KV_OK);
    assert_true(p.kv_bytes_needed == 140928614400.0);
    assert_int_equal(p.replicas, 4);
    assert_int_equal(p.gpus_needed, 4);
    assert_false(p.fits_one_gpu);
    /* 96 GiB: 103,079,215,104 - 14e9 - 2 GiB = 86,931,731,456 B / 469,762,048 = 185.05 */
    int found = 0;
    for (size_t i = 0; i < p.n_options; i++)
        if (strcmp(p.options[i].gpu, "large") == 0 && p.options[i].tp == 1) {
            assert_true(p.options[i].per_replica == 185);
            assert_int_equal(p.options[i].replicas, 2);
            found = 1;
        }
    assert_true(found);

    /* levers at 4k: half the context 2,048 tokens = 117,440,512 B -> 301; fp8 KV the same
     * bytes -> 301; int8 weights (7e9 B) leave 42,392,123,904 B -> 180; int4 (3.5e9 B)
     * 45,892,123,904 B -> 195 */
    s.context = 4096;
    kv_levers l;
    assert_int_equal(kv_levers_compute(&s, 0, 0, &l), KV_OK);
    assert_true(l.rows[KV_LEVER_NONE].max_concurrency == 150);
    assert_true(l.rows[KV_LEVER_HALF_CONTEXT].max_concurrency == 301);
    assert_int_equal(l.rows[KV_LEVER_HALF_CONTEXT].context, 2048);
    assert_true(l.rows[KV_LEVER_FP8_KV].max_concurrency == 301);
    assert_true(l.rows[KV_LEVER_INT8_WEIGHTS].max_concurrency == 180);
    assert_true(l.rows[KV_LEVER_INT4_WEIGHTS].max_concurrency == 195);
    assert_int_equal(l.rows[KV_LEVER_NONE].replicas, 0); /* no target */
}

/* Llama-3.1-8B by hand: embeddings 2 x 128,256 x 4,096 = 1,050,673,152; per layer attention
 * 2 x 4,096^2 + 2 x 4,096 x 1,024 = 41,943,040, MLP 3 x 4,096 x 14,336 = 176,160,768, norms
 * 8,192; x 32 layers, + the final norm 4,096: 8,030,261,248 parameters. */
/* Every field of every engine's log has a name, once within the engine: the names are the
 * keys of --from-log's JSON and of --get (a field added to kv_log_field without its name, or
 * two spelled alike, fails here). The four engines that read logs have dozens each. */
static void log_field_names(void **state)
{
    (void)state;
    int engines_with_logs = 0;
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        int n = kv_log_fields((kv_engine)e);
        assert_true(n >= 0);
        engines_with_logs += n > 0;
        for (int f = 0; f < n; f++) {
            const char *name = kv_log_field_name((kv_engine)e, f);
            if (!name || !name[0])
                fail_msg("engine %d: field %d has no name", e, f);
            for (int g = 0; g < f; g++)
                if (strcmp(kv_log_field_name((kv_engine)e, g), name) == 0)
                    fail_msg("engine %d: fields %d and %d are both \"%s\"", e, g, f, name);
        }
        assert_null(kv_log_field_name((kv_engine)e, n));
        assert_null(kv_log_field_name((kv_engine)e, -1));
    }
    assert_true(engines_with_logs >= 4); /* vLLM, SGLang, llama.cpp, Ollama */
    assert_int_equal(kv_log_fields(KV_ENGINE_VLLM), KV_LOG_FIELDS);
    assert_string_equal(kv_log_field_name(KV_ENGINE_VLLM, KV_LOG_AVAILABLE_KV), "available_kv");
    assert_string_equal(kv_log_field_name(KV_ENGINE_SGLANG, KV_LOG_ENFORCE_EAGER),
                        "enforce_eager");
}

static void presets_and_estimates(void **state)
{
    (void)state;
    assert_int_equal(kv_model_preset_count(), 81);
    assert_null(kv_model_preset_at(kv_model_preset_count()));
    for (size_t i = 0; i < kv_model_preset_count(); i++)
        assert_ptr_equal(kv_model_preset_find(kv_model_preset_at(i)->id), kv_model_preset_at(i));
    const kv_model_preset *m = kv_model_preset_find("llama-3.1-8b");
    assert_non_null(m);
    kv_spec s;
    kv_model_info info;
    char err[512];
    assert_int_equal(kv_model_preset_spec(m, &s, &info, err, sizeof err), 0);
    assert_int_equal(info.max_context, 131072);
    assert_true(kv_estimate_params(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim) ==
                8030261248.0);
    kv_param_parts parts;
    kv_estimate_param_parts(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim, &parts);
    assert_true(parts.embeddings == 1050673152.0);
    assert_true(parts.attention == 32 * 41943040.0);
    assert_true(parts.dense_mlp == 32 * 176160768.0);
    assert_true(parts.experts == 0);
    assert_true(parts.other == 32 * 8192.0 + 4096.0);
    assert_true(kv_estimate_weight_bytes(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim,
                                         KV_DTYPE_BF16) == 2 * 8030261248.0);

    assert_true(kv_gpu_count() >= 18);
    assert_null(kv_gpu_at(kv_gpu_count()));
    for (size_t i = 0; i < kv_gpu_count(); i++)
        assert_ptr_equal(kv_gpu_find(kv_gpu_at(i)->name), kv_gpu_at(i));
    /* 81,559 MiB / 1,024 = 79.6474609375 GiB */
    assert_true(kv_gpu_gib(kv_gpu_find("h100")) == 81559.0 / 1024.0);
}

static void config_files(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-api-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *cfg = "{\"num_hidden_layers\": 2}";
    assert_int_equal(write(fd, cfg, strlen(cfg)), (ssize_t)strlen(cfg));
    close(fd);
    char *text = NULL, err[512];
    size_t len = 0;
    assert_int_equal(kv_config_load_file(path, &text, &len, err, sizeof err), 0);
    assert_int_equal(len, strlen(cfg));
    assert_string_equal(text, cfg);
    free(text);
    remove(path);
    assert_int_equal(kv_config_load_file(path, &text, &len, err, sizeof err), KV_ERR_FILE);
    assert_non_null(strstr(err, ": cannot open: "));
    assert_memory_not_equal(err, "kvcalc:", 7); /* the library never speaks for a program */
}

/* vLLM's generations and the encoder's profile run, through the header: V0 is refused from
 * 0.11 and V1 before 0.7 (kv_compute says KV_ERR_ENGINE_INPUT, kv_explain blames
 * --vllm-use-v1 in vLLM's words); a
 * Gemma-3 image run at T 8,192 is 32 images x 4,096 patches x (2 x 1,152 + 2 x 4,304) x 2 B,
 * its outputs 32 x 256 tokens x 5,376 x 2 B. */
static void vllm_generations_and_encoder(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    kv_model_info info;
    char err[512];
    assert_int_equal(kv_model_preset_spec(kv_model_preset_find("gemma-3-27b-it"), &s, &info, err,
                                          sizeof err), 0);
    kv_error e;
    kv_spec_set_engine(&s, KV_ENGINE_VLLM);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    s.vllm.use_v1 = KV_SOME_INT(0); /* the default release, 0.11, has no V0 */
    assert_int_equal(kv_compute(&s, &r), KV_ERR_ENGINE_INPUT);
    kv_explain(&s, KV_ERR_ENGINE_INPUT, &e);
    assert_non_null(e.blamed);
    assert_string_equal(e.blamed->name, "vllm-use-v1");
    assert_non_null(strstr(e.msg, "removed in vLLM 0.11"));
    s.vllm.version = 800;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    double cache = -1;
    assert_true(kv_vllm_encoder_profile(&s, 8192, 1024, &cache) == 0); /* V0: none */
    assert_true(cache == 0);
    s.vllm.use_v1 = KV_SOME_INT(1);
    s.vllm.version = 600; /* V1 did not exist */
    assert_int_equal(kv_compute(&s, &r), KV_ERR_ENGINE_INPUT);
    kv_explain(&s, KV_ERR_ENGINE_INPUT, &e);
    assert_string_equal(e.blamed->name, "vllm-use-v1");
    assert_non_null(strstr(e.msg, "exists from vLLM 0.7"));
    s.vllm.version = 1100;
    assert_true(kv_vllm_encoder_profile(&s, 8192, 1024, &cache) ==
                32.0 * 4096 * (2 * 1152 + 2 * 4304) * 2);
    assert_true(cache == 32.0 * 256 * 5376 * 2);
    s.vllm.language_model_only = 1;
    assert_true(kv_vllm_encoder_profile(&s, 8192, 1024, &cache) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(engines_and_dtypes),
        cmocka_unit_test(longest_context_fit),
        cmocka_unit_test(concurrency_at_and_curve),
        cmocka_unit_test(vllm_estimates_and_defaults),
        cmocka_unit_test(vllm_generations_and_encoder),
        cmocka_unit_test(tensor_parallel_sizes),
        cmocka_unit_test(plan_and_levers),
        cmocka_unit_test(log_field_names),
        cmocka_unit_test(presets_and_estimates),
        cmocka_unit_test(config_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
