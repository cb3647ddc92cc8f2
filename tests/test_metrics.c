/*
 * test_metrics.c - /metrics scrapes: the real public scrapes of tests/fixtures/metrics/ read
 * exactly (each figure as its file states it, every name generation), malformed input failing
 * with its line, two scrapes giving rates by hand arithmetic, and --from-metrics through
 * the program: kvcalc's figures beside the scrape's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvcalc.h"

#include "run.h"

#define DIR KVCALC_SOURCE_DIR "/tests/fixtures/metrics/"
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

#define assert_near(a, b, eps) near_at((a), (b), (eps), #a, __LINE__)
static void near_at(double a, double b, double eps, const char *what, int line)
{
    if (!(fabs(a - b) <= eps)) {
        print_error("line %d: %s = %.17g, expected %.17g\n", line, what, a, b);
        fail();
    }
}

static const kv_metrics_scrape *load(const char *file, kv_metrics *m)
{
    char err[700];
    kv_metrics_init(m);
    if (kv_metrics_read_file(file, file, m, err, sizeof err) != KV_OK ||
        kv_metrics_finish(m, err, sizeof err) != KV_OK)
        fail_msg("%s: %s", file, err);
    return &m->scrape[m->n - 1];
}

/* vLLM, each generation: the figures as the files state them. */
static void vllm_generations(void **state)
{
    (void)state;
    static kv_metrics m;
    const kv_metrics_scrape *s = load(DIR "vllm_v0_llama31_8b_a40_koblog.prom", &m);
    assert_int_equal(s->engine, KV_ENGINE_VLLM);
    assert_string_equal(s->generation, "V0 / early V1 (gpu_cache_usage_perc)");
    assert_string_equal(s->model, "meta-llama/Llama-3.1-8B-Instruct");
    assert_near(s->gpu_blocks, 2375, 0);
    assert_near(s->block_size, 16, 0);
    assert_near(s->capacity_tokens, 2375 * 16, 0);
    assert_near(s->gpu_util, 0.9, 0);
    assert_near(s->prefix_caching, 0, 0); /* enable_prefix_caching="False" */
    assert_near(s->kv_usage, 0, 0);
    assert_near(s->running, 0, 0);
    assert_near(s->preemptions, 0, 0);
    assert_true(isnan(s->prefix_hit_rate)); /* -1.0: prefix caching off */
    assert_int_equal(m.n, 1);
    s = load(DIR "vllm_v0_qwen25coder15b_aibrix_runtime_doc.prom", &m);
    assert_near(s->gpu_blocks, 81767, 0);
    assert_near(s->finished, 4, 0);                /* request_success_total */
    assert_near(s->prompt_tokens_total, 148, 0);
    assert_near(s->generation_tokens_total, 955, 0);
    /* 2026: kv_cache_size_tokens 551,520 / kv_cache_max_concurrency 16.8310546875 = 32,768 */
    s = load(DIR "vllm_v1_nim_qwen3vl235b_tp2_grep.prom", &m);
    assert_string_equal(s->generation, "V1 0.10+ (kv_cache_usage_perc)");
    assert_near(s->capacity_tokens, 551520, 0);
    assert_near(s->gpu_blocks, 34470, 0);
    assert_near(s->max_model_len, 32768, 0);
    assert_near(s->gpu_util, 0.8, 0);
    assert_near(s->prefix_caching, 1, 0);
    assert_int_equal(s->replicas, 1);
    s = load(DIR "vllm_v1_0100_glm45_prodstack617_excerpt.prom", &m);
    assert_string_equal(s->generation, "V1 0.10+ (kv_cache_usage_perc)");
    assert_near(s->kv_usage, 9.75010481363281e-06, 0);
    assert_near(s->prefix_queries, 32, 0); /* the new counter, in tokens */
    assert_near(s->prefix_hits_old, 0, 0);  /* the deprecated one beside it */
    /* data parallel: engine="0" and engine="1" add up */
    s = load(DIR "vllm_v1_dp2_qwen3_8b_pr22227_excerpt.prom", &m);
    assert_int_equal(s->replicas, 2);
    assert_near(s->output_count, 3, 0); /* engine 0's count; engine 1's is cut off */
    s = load(DIR "vllm_v1_early_qwen25coder32b_prodstack318_excerpt.prom", &m);
    assert_string_equal(s->generation, "V0 / early V1 (gpu_cache_usage_perc)");
    assert_near(s->running, 0, 0);
}

/* SGLang: 2025 names, the WIP names (a hit rate in percent), a router's sglang_ prefix,
 * DP attention's ranks (summed), a doc's heavy-load example. */
static void sglang_generations(void **state)
{
    (void)state;
    static kv_metrics m;
    const kv_metrics_scrape *s = load(DIR "sglang_docs_production_metrics_llama31_8b.prom", &m);
    assert_int_equal(s->engine, KV_ENGINE_SGLANG);
    assert_near(s->kv_usage, 0.28, 0);
    assert_near(s->running, 162, 0);
    assert_near(s->waiting, 2826, 0);
    assert_near(s->used_tokens, 123859, 0);
    assert_near(s->tpot_sum, 866964.5791549598, 0);
    assert_near(s->tpot_count, 7.400757e+06, 0);
    assert_near(s->prefix_hit_rate, 0.007507552643049313, 0);
    kv_metrics_comparison c;
    kv_metrics_measure(&m, 0, &c);
    assert_near(c.tpot_s, 866964.5791549598 / 7.400757e+06, 1e-15);
    assert_near(c.capacity_tokens, 442354, 0); /* 123,859 / 0.28 = 442,353.6 */
    assert_int_equal(c.capacity_derived, 1);
    assert_int_equal(c.lengths_from_totals, 1); /* 8,128,902 / 11,228 finished */
    assert_near(c.prompt_mean, 8.128902e+06 / 11228.0, 1e-9);
    s = load(DIR "sglang_pr1853_llama32_3b_excerpt.prom", &m);
    assert_near(s->capacity_tokens, 570979, 0);
    assert_near(s->max_running, 2231, 0);
    assert_near(s->context_len, 131072, 0);
    assert_true(strstr(s->model, "Llama-3.2-3B") != NULL); /* the name= label */
    s = load(DIR "sglang_pr1461_wip_gemma2_9b_excerpt.prom", &m);
    assert_string_equal(s->generation, "the WIP names of 2024 (queue_req)");
    assert_near(s->prefix_hit_rate, 0.8758777633289988, 1e-15); /* 87.58...% */
    assert_near(s->waiting, 0, 0);
    s = load(DIR "sglang_router_smg813_llama31_8b_excerpt.prom", &m);
    assert_string_equal(s->generation, "re-exported with the sglang_ prefix (a router)");
    assert_near(s->prefix_hit_rate, 0, 0);
    s = load(DIR "sglang_aibrix1614_deepseek_r1_dp8_excerpt_part2.prom", &m);
    assert_near(s->retracted, 0, 0);
    assert_int_equal(s->replicas, 8); /* dp_rank 0..7, each its own */
    s = load(DIR "sglang_issue13485_v051_qwen32b_excerpt.prom", &m);
    assert_near(s->running, 1, 0);
    assert_near(s->used_tokens, 1, 0);
}

/* llama.cpp: the counters, the KV gauges of builds before #13660, Windows' -nan(ind). */
static void llamacpp_generations(void **state)
{
    (void)state;
    static kv_metrics m;
    const kv_metrics_scrape *s = load(DIR "llamacpp_zh_notes_full.prom", &m);
    assert_int_equal(s->engine, KV_ENGINE_LLAMACPP);
    assert_near(s->prompt_tokens_total, 33065, 0);
    assert_near(s->prompt_seconds_total, 235.743, 0);
    assert_near(s->generation_tokens_total, 7801, 0);
    assert_near(s->decode_calls, 7831, 0);
    assert_near(s->running, 0, 0);
    s = load(DIR "llamacpp_old_kvcache_nan_ind_fallback.prom", &m);
    assert_string_equal(s->generation, "before #13660 (kv_cache_usage_ratio)");
    assert_near(s->kv_usage, 0, 0);
    assert_true(isnan(s->busy_slots_per_decode)); /* -nan(ind) */
    s = load(DIR "llamacpp_b10380_rust_fixture.prom", &m);
    assert_false(isnan(s->tokens_max));
}

static kv_status feed(kv_metrics *m, const char *text, char *err, size_t cap)
{
    kv_metrics_init(m);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        kv_status st = kv_metrics_feed_line(m, p, n, err, cap);
        if (st != KV_OK)
            return st;
        p += n + (nl != NULL);
    }
    return kv_metrics_finish(m, err, cap);
}

/* Two scrapes in one file, 60 s apart by their timestamps (hand-made figures): 30 requests
 * finished, 30 x 500 prompt tokens and 30 x 100 output tokens more, 3,000 output tokens at
 * 0.04 s, 2 more preemptions: 0.5 req/s, 500 and 100 tokens, 40 ms, 1/30 preemptions a
 * second; the gauges are the second scrape's. */
static void two_scrapes_give_rates(void **state)
{
    (void)state;
    static kv_metrics m;
    char err[600];
    const char *two =
        "vllm:num_requests_running{engine=\"0\"} 4 1000000\n"
        "vllm:kv_cache_usage_perc{engine=\"0\"} 0.25 1000000\n"
        "vllm:num_preemptions_total{engine=\"0\"} 5 1000000\n"
        "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\"} 100 1000000\n"
        "vllm:request_prompt_tokens_sum{engine=\"0\"} 40000 1000000\n"
        "vllm:request_prompt_tokens_count{engine=\"0\"} 100 1000000\n"
        "vllm:request_generation_tokens_sum{engine=\"0\"} 9000 1000000\n"
        "vllm:request_generation_tokens_count{engine=\"0\"} 100 1000000\n"
        "vllm:inter_token_latency_seconds_sum{engine=\"0\"} 300 1000000\n"
        "vllm:inter_token_latency_seconds_count{engine=\"0\"} 9000 1000000\n"
        "vllm:num_requests_running{engine=\"0\"} 7 1060000\n"
        "vllm:kv_cache_usage_perc{engine=\"0\"} 0.5 1060000\n"
        "vllm:num_preemptions_total{engine=\"0\"} 7 1060000\n"
        "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\"} 130 1060000\n"
        "vllm:request_prompt_tokens_sum{engine=\"0\"} 55000 1060000\n"
        "vllm:request_prompt_tokens_count{engine=\"0\"} 130 1060000\n"
        "vllm:request_generation_tokens_sum{engine=\"0\"} 12000 1060000\n"
        "vllm:request_generation_tokens_count{engine=\"0\"} 130 1060000\n"
        "vllm:inter_token_latency_seconds_sum{engine=\"0\"} 420 1060000\n"
        "vllm:inter_token_latency_seconds_count{engine=\"0\"} 12000 1060000\n";
    assert_int_equal(feed(&m, two, err, sizeof err), KV_OK);
    assert_int_equal(m.n, 2);
    kv_metrics_comparison c;
    kv_metrics_measure(&m, 0, &c);
    assert_near(c.interval_s, 60, 1e-9);
    assert_near(c.rate, 0.5, 1e-12);
    assert_near(c.prompt_mean, 500, 1e-12);
    assert_near(c.output_mean, 100, 1e-12);
    assert_near(c.tpot_s, 0.04, 1e-12);
    assert_near(c.preemptions_per_s, 2.0 / 60.0, 1e-12);
    assert_near(c.running, 7, 0);
    assert_near(c.kv_usage, 0.5, 0);
    kv_metrics_measure(&m, 120, &c); /* --metrics-interval wins */
    assert_near(c.rate, 0.25, 1e-12);
}

/* Malformed input: refused with its line; what the format allows is read. */
static void malformed_fails_with_its_line(void **state)
{
    (void)state;
    static kv_metrics m;
    char err[600];
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"vllm:num_requests_running 1\n{x} 2\n", "line 2: expected a metric sample"},
        {"vllm:num_requests_running{engine=0} 1\n", "line 1: expected label=\"value\""},
        {"vllm:num_requests_running{engine=\"0} 1\n", "line 1: a label value without its closing"},
        {"vllm:num_requests_running one\n", "line 1: expected a number as the sample's value"},
        {"vllm:num_requests_running\n", "line 1: expected a blank and a value"},
        {"vllm:num_requests_running 1 yesterday\n", "line 1: expected a timestamp"},
        {"# only comments\n\n", "no metric of vLLM"},
        {"python_gc_objects_collected_total{generation=\"0\"} 1\n", "no metric of vLLM"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kv_status st = feed(&m, bad[i].text, err, sizeof err);
        if (st == KV_OK || !strstr(err, bad[i].says))
            fail_msg("case %zu: status %d '%s' (want '%s')", i, (int)st, err, bad[i].says);
    }
    /* escapes in labels, NaN, +Inf, a CR, blank and # EOF lines are fine */
    assert_int_equal(feed(&m, "# EOF\r\n\nvllm:num_requests_waiting{model_name=\"a\\\"b\\\\c\"} "
                              "NaN\r\nvllm:num_requests_running{model_name=\"a\"} +Inf\n",
                          err, sizeof err),
                     KV_OK);
    assert_string_equal(m.scrape[0].model, "a\"b\\c");
    assert_true(isnan(m.scrape[0].waiting));
    assert_true(isinf(m.scrape[0].running));
    /* a line over the bound is refused, not cut */
    char *longer = malloc(KV_METRICS_LINE_MAX + 64);
    memset(longer, 'a', KV_METRICS_LINE_MAX + 10);
    longer[KV_METRICS_LINE_MAX + 10] = '\0';
    assert_int_equal(feed(&m, longer, err, sizeof err), KV_ERR_FORMAT);
    assert_non_null(strstr(err, "line 1: longer than 65,536 bytes"));
    free(longer);
}

/* The program: kvcalc's figures beside the scrape's. The NIM scrape (Qwen3-VL-235B AWQ is not
 * a built-in model) needs --model; the engine must be the scrape's; the figures are its. */
static void from_metrics_through_the_program(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc(ARGS("--from-metrics", DIR "sglang_docs_production_metrics_llama31_8b.prom",
                    "--gpu", "h100"), &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "From the metrics: "));
    assert_non_null(strstr(r.out, "(SGLang), one scrape: since the server started\n"));
    assert_non_null(strstr(r.out, "  KV cache (tokens)                   442,354"));
    assert_non_null(strstr(r.out, "  requests waiting                      2,826"));
    run_free(&r);
    /* one scrape: the 162 running requests at the mean lengths (724.0 and 673.1 tokens: 1,060.5
     * tokens each on average over their steps) in the 442,354 measured tokens */
    double u = run_get("metrics_predicted_kv_usage",
                       ARGS("--from-metrics", DIR "sglang_docs_production_metrics_llama31_8b.prom",
                            "--gpu", "h100"));
    assert_near(u, 162.0 * (724.0 + (673.0 - 1.0) / 2.0) / 442354.0, 1e-9);
    /* docs/metrics.md: SGLang's rules on an H100 give 415,441 tokens, 6.1% below */
    assert_near(run_get("metrics_predicted_capacity_tokens",
                        ARGS("--from-metrics", DIR "sglang_docs_production_metrics_llama31_8b.prom",
                             "--gpu", "h100")),
                415441, 0);
    assert_near(run_get("metrics_capacity_error_pct",
                        ARGS("--from-metrics", DIR "sglang_docs_production_metrics_llama31_8b.prom",
                             "--gpu", "h100")),
                (415441.0 - 442354.0) / 442354.0 * 100.0, 1e-9);
    /* the hand-made pair: 0.5 req/s of 500 + 100 tokens at 40 ms a step: about
     * 0.5 x 100 x 0.04 = 2 running (a prefill step each adds a little), within the sampling
     * error of 1,000 Poisson arrivals (the idle time between them counted: 1.87 here) */
    double running = run_get("metrics_predicted_running",
                             ARGS("--from-metrics", KVCALC_SOURCE_DIR
                                  "/tests/fixtures/two-scrapes-handmade.prom", "--model",
                                  "qwen3-8b", "--gpu", "h100"));
    assert_true(running > 1.8 && running < 2.3);
    assert_near(run_get("metrics_capacity_tokens",
                        ARGS("--from-metrics", DIR "vllm_v0_llama31_8b_a40_koblog.prom")),
                38000, 0);
    expect_refused(ARGS("--from-metrics", DIR "vllm_v1_nim_qwen3vl235b_tp2_grep.prom"),
                   "give --model: the scrape's model 'qwen3-vl-235b-awq' is not a model kvcalc "
                   "can load");
    expect_refused(ARGS("--from-metrics", DIR "vllm_v0_llama31_8b_a40_koblog.prom", "--engine",
                        "sglang"),
                   "the scrape is vLLM's, not --engine sglang's");
    expect_refused(ARGS("--from-metrics", "/nonexistent.prom"),
                   "kvcalc: --from-metrics /nonexistent.prom: cannot open");
    expect_refused(ARGS("--from-metrics", "a", "--from-metrics", "b", "--from-metrics", "c"),
                   "--from-metrics: at most two scrapes");
    expect_refused(ARGS("--from-metrics", "a", "--metrics-interval", "5"),
                   "--metrics-interval: the time between two --from-metrics files; give both");
    expect_refused(ARGS("--from-metrics", "a", "--rate", "3"), "--from-metrics: the scrape gives "
                                                               "the workload");
    expect_refused(ARGS("--get", "metrics_running"), "--get: metrics_running needs --from-metrics");
    /* the settings the scrape states become inputs: vLLM's gpu_memory_utilization (0.8) and
     * max_model_len (32,768) from the NIM scrape */
    assert_near(run_get("metrics_predicted_capacity_tokens",
                        ARGS("--from-metrics", DIR "vllm_v1_nim_qwen3vl235b_tp2_grep.prom",
                             "--model", "qwen3-8b", "--gpu", "h100")),
                run_get("kv_cache_tokens", ARGS("--engine", "vllm", "--model", "qwen3-8b", "--gpu",
                                                 "h100", "--gpu-memory-utilization", "0.8",
                                                 "--max-model-len", "32768")),
                0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_generations),
        cmocka_unit_test(sglang_generations),
        cmocka_unit_test(llamacpp_generations),
        cmocka_unit_test(two_scrapes_give_rates),
        cmocka_unit_test(malformed_fails_with_its_line),
        cmocka_unit_test(from_metrics_through_the_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
