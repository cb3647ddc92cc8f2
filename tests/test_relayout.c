/*
 * test_relayout.c - figures an engine's log measured at one layout, carried to others by the
 * engine's own rule (kv_relayout), through the public header: --gpus layouts and plans with
 * SGLang's two avail-mem readings and TensorRT-LLM's free memory, by hand arithmetic; and
 * the property that readings equal to kvcalc's own estimate change no layout at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#define KVCALC_ENGINES
#include "kvcalc.h"

#define GIB 1073741824.0

static kv_layouts lay; /* large: not on the stack */

/* The layout (tp, pp) of lay, or fail. */
static const kv_layout_option *option(int64_t tp, int64_t pp)
{
    for (size_t i = 0; i < lay.n_options; i++)
        if (lay.options[i].tp == tp && lay.options[i].pp == pp)
            return &lay.options[i];
    fail_msg("no layout TP%lld x PP%lld", (long long)tp, (long long)pp);
    return NULL;
}

/* The lesson's model (28 layers, 4 KV heads of 128, fp16: 2,048 B a token and layer, 7e9 x
 * 2 B = 14,000,000,000 B of weights) on its 48 GiB GPU with 2 GiB reserved, under
 * TensorRT-LLM with the log's "available: 30 GiB" read at TP 1. kvcalc's estimate of that
 * figure is GPU - weights per GPU - overhead, so at TP t it is 30 GiB + 14e9 - 14e9 / t:
 *   TP 1: 30 GiB x 0.9 / 57,344 B = 505,563 tokens, ceil(/ 32) = 15,799 blocks,
 *         / ceil(4,096 / 32) = 128 blocks a request -> 123
 *   TP 2: (32,212,254,720 + 7e9) x 0.9 = 35,291,029,248 B / 28,672 B = 1,230,853 tokens,
 *         38,465 blocks -> 300
 *   TP 4: (32,212,254,720 + 10.5e9) x 0.9 = 38,441,029,248 B / 14,336 B = 2,681,433 tokens,
 *         83,795 blocks -> 654
 *   PP 2: a stage holds 14 layers and 7e9 B of weights: 28,672 B a token, as TP 2 -> 300
 * Held fixed (as before kv_relayout), every TP size shared one 30 GiB pool. */
static void trtllm_free_memory(void **state)
{
    (void)state;
    kv_spec s;
    kv_spec_defaults(&s);
    assert_int_equal(kv_spec_set_engine(&s, KV_ENGINE_TRTLLM), KV_OK);
    s.trtllm.free_mem_gib = KV_SOME_NUM(30);
    assert_int_equal(kv_layouts_compute(&s, 4, 0, &lay), KV_OK);
    assert_true(option(1, 1)->max_concurrency == 123);
    assert_true(option(2, 1)->max_concurrency == 300);
    assert_true(option(4, 1)->max_concurrency == 654);
    assert_true(option(1, 2)->max_concurrency == 300);
    assert_true(option(1, 4)->max_concurrency == 654);
    assert_int_equal(lay.best_tp, 4); /* a tie with TP1 x PP4: fewer stages win */
    assert_int_equal(lay.best_pp, 1);
    /* the re-laid spec itself: the reading moved by the estimate's change */
    kv_spec to = s;
    to.tp = 2;
    kv_relayout(&s, &to);
    assert_true(to.trtllm.free_mem_gib.set);
    assert_true(fabs(to.trtllm.free_mem_gib.value * GIB - (30 * GIB + 7e9)) < 1e-3);
}

/* The same model under SGLang 0.5.6 with a log's P = 78 GiB (free before the weights) and
 * A = 62 GiB (after) read at TP 1: the readings imply 16 GiB of weights.
 *   TP 1: f = round3((49,152 - (512 + 4,096 x 1.5 + 32 x 2 + 1/8 x 1,024)) / 49,152) = 0.861;
 *         rest = 62 - 78 x 0.139 = 51.158 GiB / 57,344 B = 957,911 tokens -> 233 of 4,096
 *   TP 2: P moves as its estimate (48 - 1 GiB of CUDA context - 0.5 GiB of NCCL with TP):
 *         77.5; the weights halve as kvcalc's estimate of them: 8, so A = 69.5;
 *         f = round3((49,152 - 6,976) / 49,152) = 0.858; rest = 69.5 - 77.5 x 0.142 =
 *         58.495 GiB / 28,672 B = 2,190,587 tokens -> 534 */
static void sglang_readings(void **state)
{
    (void)state;
    kv_spec s;
    kv_spec_defaults(&s);
    assert_int_equal(kv_spec_set_engine(&s, KV_ENGINE_SGLANG), KV_OK);
    s.sglang.avail_before_gib = KV_SOME_NUM(78);
    s.sglang.avail_after_gib = KV_SOME_NUM(62);
    assert_int_equal(kv_layouts_compute(&s, 4, 0, &lay), KV_OK);
    assert_true(option(1, 1)->max_concurrency == 233);
    assert_true(option(2, 1)->max_concurrency == 534);
    kv_spec to = s;
    to.tp = 2;
    kv_relayout(&s, &to);
    assert_true(fabs(to.sglang.avail_before_gib.value - 77.5) < 1e-9);
    assert_true(fabs(to.sglang.avail_after_gib.value - 69.5) < 1e-9);
    kv_result r;
    assert_int_equal(kv_compute(&to, &r), KV_OK);
    assert_true(r.sglang.mem_fraction_static == 0.858);
    assert_int_equal(r.sglang.max_total_num_tokens, 2190587);
}

/* On another GPU the readings move too: the same P and A on the 48 GiB card, planned for an
 * 80 GiB one (81,920 MiB), give P = 78 + 32 = 110 GiB there, not 78. */
static void sglang_readings_on_another_gpu(void **state)
{
    (void)state;
    kv_spec s, to;
    kv_spec_defaults(&s);
    kv_spec_set_engine(&s, KV_ENGINE_SGLANG);
    s.sglang.avail_before_gib = KV_SOME_NUM(78);
    s.sglang.avail_after_gib = KV_SOME_NUM(62);
    to = s;
    to.gpu_mem_gib = 80;
    kv_relayout(&s, &to);
    assert_true(fabs(to.sglang.avail_before_gib.value - 110) < 1e-9);
    assert_true(fabs(to.sglang.avail_after_gib.value - 94) < 1e-9); /* the same 16 GiB */
}

/* The property: readings that equal kvcalc's own estimate at TP 1 give every layout the
 * estimate's answer, whatever the engine (a rule that mis-carried a reading would show). */
static void estimate_readings_change_nothing(void **state)
{
    (void)state;
    static kv_layouts plain;
    const kv_gpu *h100 = kv_gpu_find("h100");
    kv_model_info info;
    char err[256];
    /* vLLM's three measured terms; its logged KV memory; its logged block count; SGLang's P
     * and A; TensorRT-LLM's free memory */
    static const int variants[][2] = {{KV_ENGINE_VLLM, 0}, {KV_ENGINE_VLLM, 1},
                                      {KV_ENGINE_VLLM, 2}, {KV_ENGINE_SGLANG, 0},
                                      {KV_ENGINE_TRTLLM, 0}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        int e = variants[v][0], kind = variants[v][1];
        kv_spec s, m;
        kv_result r;
        assert_int_equal(kv_model_preset_spec(kv_model_preset_find("qwen3-8b"), &s, &info, err,
                                              sizeof err), KV_OK);
        kv_spec_set_gpu(&s, h100);
        assert_int_equal(kv_spec_set_engine(&s, (kv_engine)e), KV_OK);
        assert_int_equal(kv_compute(&s, &r), KV_OK);
        m = s;
        switch (e) {
        case KV_ENGINE_VLLM:
            if (kind == 0) {
                m.vllm.weights_gib = KV_SOME_NUM(r.vllm.weights_bytes / GIB);
                m.vllm.activation_gib = KV_SOME_NUM(r.vllm.activation_bytes / GIB);
                m.vllm.non_torch_gib = KV_SOME_NUM(r.vllm.non_torch_bytes / GIB);
            } else if (kind == 1) {
                m.vllm.kv_cache_memory_gib = KV_SOME_NUM(r.vllm.available_bytes / GIB);
            } else {
                m.vllm.num_gpu_blocks_override = KV_SOME_INT(r.vllm.num_gpu_blocks);
            }
            break;
        case KV_ENGINE_SGLANG:
            m.sglang.avail_before_gib = KV_SOME_NUM(r.sglang.avail_before_gib);
            m.sglang.avail_after_gib = KV_SOME_NUM(r.sglang.avail_after_gib);
            break;
        default:
            m.trtllm.free_mem_gib = KV_SOME_NUM(r.trtllm.free_bytes / GIB);
            break;
        }
        assert_int_equal(kv_layouts_compute(&s, 8, 0, &plain), KV_OK);
        assert_int_equal(kv_layouts_compute(&m, 8, 0, &lay), KV_OK);
        assert_int_equal(lay.n_options, plain.n_options);
        assert_true(plain.n_options >= 4);
        for (size_t i = 0; i < lay.n_options; i++) {
            double a = plain.options[i].max_concurrency, b = lay.options[i].max_concurrency;
            if (fabs(a - b) > 1) /* rounding of a byte on a boundary, at most */
                fail_msg("%s (%d) TP%lld x PP%lld: %g with the readings, %g estimated",
                         kv_engine_name((kv_engine)e), kind, (long long)lay.options[i].tp,
                         (long long)lay.options[i].pp, b, a);
        }
        assert_int_equal(lay.best_tp, plain.best_tp);
        assert_int_equal(lay.best_pp, plain.best_pp);
    }
}

/* A plan over other GPUs carries the readings as well: with SGLang's readings equal to its
 * estimate on an H100, each option equals the option planned without readings. */
static void plans_carry_readings(void **state)
{
    (void)state;
    static kv_plan a, b;
    kv_spec s, m;
    kv_result r;
    kv_spec_defaults(&s);
    kv_spec_set_gpu(&s, kv_gpu_find("h100"));
    kv_spec_set_engine(&s, KV_ENGINE_SGLANG);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    m = s;
    m.sglang.avail_before_gib = KV_SOME_NUM(r.sglang.avail_before_gib);
    m.sglang.avail_after_gib = KV_SOME_NUM(r.sglang.avail_after_gib);
    const kv_gpu_choice gpus[] = {{"L40S", 44.99, 0, NULL}, {"B200", 178.36, 0, NULL}};
    assert_int_equal(kv_plan_compute(&s, &r, 1000, gpus, 2, &a), KV_OK);
    assert_int_equal(kv_compute(&m, &r), KV_OK);
    assert_int_equal(kv_plan_compute(&m, &r, 1000, gpus, 2, &b), KV_OK);
    assert_int_equal(a.n_options, b.n_options);
    for (size_t i = 0; i < a.n_options; i++)
        assert_true(fabs(a.options[i].per_replica - b.options[i].per_replica) <= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trtllm_free_memory),
        cmocka_unit_test(sglang_readings),
        cmocka_unit_test(sglang_readings_on_another_gpu),
        cmocka_unit_test(estimate_readings_change_nothing),
        cmocka_unit_test(plans_carry_readings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
