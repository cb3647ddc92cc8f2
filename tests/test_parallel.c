/*
 * test_parallel.c - pipeline, data and expert parallelism through the public header: vLLM's
 * layer split by hand, the stage that binds, deployment concurrency, experts over tp x dp.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#define KVCALC_ENGINES
#include "kvcalc.h"

static void preset(const char *name, kv_spec *s)
{
    kv_model_info info;
    char err[256];
    assert_int_equal(kv_model_preset_spec(kv_model_preset_find(name), s, &info, err, sizeof err), 0);
}

/* A preset under vLLM on H100s: the driver's 81,559 MiB, the 79.18 GiB vLLM reports. */
static void on_h100_vllm(const char *name, kv_spec *s)
{
    preset(name, s);
    kv_spec_set_engine(s, KV_ENGINE_VLLM);
    s->gpu_mem_gib = 79.6475;
    s->vllm.total_gib = KV_SOME_NUM(79.18);
}

/* vLLM's get_pp_indices: 10 layers over 4 stages = 2 each, the remainder of 2 one more each
 * on the second-last and third-last: [2, 3, 3, 2] from layers 0, 2, 5, 8. 80 over 3: 26 each
 * and 2 more, on the second-last and third-last (here the first): [27, 27, 26]. */
static void stage_layers(void **state)
{
    (void)state;
    static const int64_t want[4] = {2, 3, 3, 2}, first_want[4] = {0, 2, 5, 8};
    int64_t first, sum = 0;
    for (int64_t i = 0; i < 4; i++) {
        assert_int_equal(kv_pp_stage_layers(10, 4, i, &first), want[i]);
        assert_int_equal(first, first_want[i]);
    }
    static const int64_t want3[3] = {27, 27, 26};
    for (int64_t i = 0; i < 3; i++) {
        assert_int_equal(kv_pp_stage_layers(80, 3, i, &first), want3[i]);
        assert_int_equal(first, sum);
        sum += want3[i];
    }
    assert_int_equal(sum, 80);
}

/* Llama-3.1-70B, 4 x 2 on H100s: 40 layers per stage, 8 / 4 = 2 KV heads per GPU: 2 x 40 x 2
 * x 128 x 2 B = 40,960 B per token. The last stage carries the head and vLLM's sampler run,
 * so it holds fewer blocks and binds. One stage (pp 1) equals the plain run. */
static void pipeline_binding_stage(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r, one;
    on_h100_vllm("llama-3.1-70b-instruct", &s);
    s.tp = 4;
    s.context = 32000;
    assert_int_equal(kv_compute(&s, &one), KV_OK);
    s.pp = 2;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.kv_bytes_per_token == 40960.0);
    assert_int_equal(r.pp_stage, 1);
    assert_int_equal(r.pp_stage_layers, 40);
    /* half the layers per GPU: more than twice the blocks of one stage of 80 layers */
    assert_true(r.vllm.num_gpu_blocks > 2 * one.vllm.num_gpu_blocks);
    /* the first stage runs no sampler: its activation is the forward pass only */
    kv_spec first = s;
    first.pp_stage = 0;
    first.layers = 40;
    kv_result f;
    assert_int_equal(kv_compute(&first, &f), KV_OK);
    assert_true(f.vllm.activation_bytes < r.vllm.activation_bytes / 10);
    /* the whole replica's weights stay whole */
    assert_true(fabs(r.weights_bytes_group - one.weights_bytes_group) < 1);
    /* more stages than layers: refused; as many as layers: a layer a stage */
    s.pp = 81;
    assert_int_equal(kv_compute(&s, &r), KV_ERR_PARALLEL);
    s.pp = 80;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(r.pp_stage_layers, 1);
    /* stages smaller than the stage count: the lesson's 28 layers over 8 stages (3 or 4) */
    kv_spec_defaults(&s);
    s.pp = 8;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.pp_stage_layers == 3 || r.pp_stage_layers == 4);
}

/* Data parallelism multiplies the deployment, not the replica; experts over tp x dp. */
static void data_and_expert_parallel(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r, base;
    preset("qwen3-30b-a3b", &s);
    s.gpu_mem_gib = 80;
    s.tp = 2;
    assert_int_equal(kv_compute(&s, &base), KV_OK);
    s.dp = 3;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(r.max_concurrency == base.max_concurrency);
    assert_true(r.deployment_max_concurrency == 3 * base.max_concurrency);
    assert_true(r.weights_bytes == base.weights_bytes); /* no expert parallelism */
    /* experts split over 2 x 3 GPUs instead of 2: per GPU, the expert bytes X / 2 become
     * X / 6; X is the estimate's expert share of the weights */
    kv_param_parts p;
    kv_estimate_param_parts(&s.arch, &s.layout, s.layers, s.kv_heads, s.head_dim, &p);
    double all = p.embeddings + p.attention + p.dense_mlp + p.experts + p.other;
    double x = base.weights_bytes_group * p.experts / all;
    s.expert_parallel = 1;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_true(fabs(r.weights_bytes - (base.weights_bytes - x / 2 + x / 6)) < 2);
    assert_true(r.max_concurrency > base.max_concurrency);
    s.dp = 0;
    assert_int_equal(kv_compute(&s, &r), KV_ERR_PARALLEL);
}

/* --gpus: every tp x pp of 8 H100s for Llama-3.1-70B at 32,000 tokens, dp filling them.
 * TP 8 and the splits into 2 x 4 and 4 x 2 each hold 40 requests; the tie goes to the fewest
 * pipeline stages: TP 8. With a target of 80 on 16 GPUs every layout needs all 16, and the
 * most requests at once wins: 94 for TP 4 x PP 4 and TP 8 x PP 2, then fewer stages. */
static void layouts(void **state)
{
    (void)state;
    kv_spec s;
    kv_layouts l;
    on_h100_vllm("llama-3.1-70b-instruct", &s);
    s.context = 32000;
    assert_int_equal(kv_layouts_compute(&s, 8, 0, &l), KV_OK);
    assert_true(l.best >= 0);
    assert_int_equal(l.best_tp, 8);
    assert_int_equal(l.best_pp, 1);
    assert_int_equal(l.best_dp, 1);
    assert_true(l.best_deployment_max_concurrency == 40);
    for (size_t i = 0; i < l.n_options; i++) { /* every option: a whole layout, as computed */
        const kv_layout_option *o = &l.options[i];
        assert_true(o->gpus == o->tp * o->pp * o->dp && o->gpus <= 8);
        assert_true(o->deployment_max_concurrency == o->max_concurrency * (double)o->dp);
        kv_spec v = s;
        kv_result r;
        v.tp = o->tp;
        v.pp = o->pp;
        assert_int_equal(kv_compute(&v, &r), KV_OK);
        assert_true(r.max_concurrency == o->max_concurrency);
    }
    assert_int_equal(kv_layouts_compute(&s, 16, 80, &l), KV_OK);
    assert_int_equal(l.best_tp, 8);
    assert_int_equal(l.best_pp, 2);
    assert_true(l.best_deployment_max_concurrency >= 80);
    assert_int_equal(kv_layouts_compute(&s, 16, 1000000, &l), KV_OK);
    assert_true(l.best == -1 && l.best_tp == 0);
}

/* The Mamba state keeps the model's dtype when the KV cache is fp8: Qwen3-Next-80B at TP 2
 * with fp8 KV got an attention block of 1,072 tokens in vLLM (a user's log); a state halved
 * with the cache would give 544, the bf16 cache's block. */
static void mamba_state_keeps_its_dtype(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    on_h100_vllm("qwen3-next-80b-a3b", &s);
    s.tp = 2;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(r.vllm.block_size, 544);
    s.dtype = KV_DTYPE_FP8;
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(r.vllm.block_size, 1072);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stage_layers),
        cmocka_unit_test(pipeline_binding_stage),
        cmocka_unit_test(data_and_expert_parallel),
        cmocka_unit_test(layouts),
        cmocka_unit_test(mamba_state_keeps_its_dtype),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
