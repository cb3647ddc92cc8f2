/*
 * test_workload.c - the workload simulation through kvcalc.h: closed forms that the
 * simulation's own output must meet (fixed lengths arriving evenly give the exact
 * occupancy and no preemption; Little's law within sampling error; a rate above the cliff
 * preempts; the same seed gives the same run), the log-normal fits by hand, and the
 * engines' schedulers as kvcalc_engines.h states them.
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

#define KVCALC_ENGINES
#include "kvcalc.h"

#include "run.h"

/* |a - b| <= eps, saying both when not (cmocka's float check is for floats) */
#define assert_double_equal(a, b, eps) assert_near((a), (b), (eps), #a, __LINE__)
static void assert_near(double a, double b, double eps, const char *what, int line)
{
    if (!(fabs(a - b) <= eps)) {
        print_error("line %d: %s = %.17g, expected %.17g (+- %g)\n", line, what, a, b, eps);
        fail();
    }
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A paged pool of `pool` blocks of 16 tokens, one full-attention group, no caps. */
static kv_sched paged(int64_t pool)
{
    kv_sched sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = KV_SCHED_PAGED;
    sc.engine_title = "test";
    sc.pool_blocks = pool;
    sc.group[0] = (kv_sched_group){.groups = 1, .block_size = 16};
    sc.n_groups = 1;
    sc.max_seqs_name = "max_num_seqs";
    sc.max_model_len = 4096;
    return sc;
}

/* SGLang's scheduler (KV_SCHED_RESERVE) on a hand-built pool of `pool` pages of `page`
 * tokens, with SGLang's constants (schedule_policy.py, new_token_ratio_tracker.py). */
static kv_sched reserve(int64_t pool, int64_t page)
{
    kv_sched sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = KV_SCHED_RESERVE;
    sc.engine_title = "test";
    sc.pool_blocks = pool;
    sc.group[0] = (kv_sched_group){.groups = 1, .block_size = page};
    sc.n_groups = 1;
    sc.max_seqs = 4097;
    sc.max_seqs_name = "max_running_requests";
    sc.max_batched_tokens = 8192;
    sc.max_prefill_tokens = 16384;
    sc.clip_new_tokens = 4096;
    sc.ratio_init = 0.7;
    sc.ratio_min = 0.098;
    sc.ratio_decay = (0.7 - 0.098) / 600;
    sc.retract_steps = 20;
    sc.max_model_len = 1 << 20;
    return sc;
}

static kv_workload fixed(int64_t p, int64_t o, double rate, double tpot_ms, int64_t n)
{
    kv_workload w;
    memset(&w, 0, sizeof w);
    w.prompt = (kv_dist){.kind = KV_DIST_FIXED, .value = (double)p};
    w.output = (kv_dist){.kind = KV_DIST_FIXED, .value = (double)o};
    w.rate = rate;
    w.arrivals = KV_ARRIVE_EVEN;
    w.tpot_ms = tpot_ms;
    w.seed = 1;
    w.requests = n;
    return w;
}

static kv_status run(const kv_sched *sc, const kv_workload *w, kv_workload_result *out)
{
    size_t bytes = kv_workload_scratch_bytes(w);
    void *mem = malloc(bytes);
    assert_non_null(mem);
    kv_error err;
    kv_status st = kv_workload_run(sc, w, mem, bytes, out, &err);
    free(mem);
    return st;
}

/* Prompt 100, output 50, block 16: the j-th step holds ceil((99 + j) / 16) blocks, summed
 * over j = 1..50: 13 x 7 + 16 x 8 + 16 x 9 + 5 x 10 = 413 (blocks 100..112, 113..128,
 * 129..144, 145..149). One every 0.5 s, a step of 0.125 s: 4 steps between arrivals, each
 * request in service 50 steps = 6.25 s, so 2 x 6.25 = 12.5 run at once, holding
 * 2 x 0.125 x 413 = 103.25 blocks: 10.325% of 1,000. At most 13 run, 13 x 10 = 130 blocks:
 * no preemption. */
static void even_arrivals_exact_occupancy(void **state)
{
    (void)state;
    kv_sched sc = paged(1000);
    kv_workload w = fixed(100, 50, 2.0, 125.0, 400);
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_int_equal(r.simulated, 1);
    assert_int_equal(r.preemptions, 0);
    assert_int_equal(r.rejected, 0);
    assert_double_equal(r.blocks_mean, 413.0 / 50.0, 1e-12);
    assert_double_equal(r.running_mean, 12.5, 1e-9);
    assert_double_equal(r.waiting_mean, 0.0, 1e-12);
    assert_double_equal(r.kv_usage_mean, 0.10325, 1e-9);
    assert_double_equal(r.time_in_system_s, 6.25, 1e-9);
    assert_double_equal(r.ttft_s, 0.125, 1e-9);
    assert_double_equal(r.littles_law_requests, 12.5, 1e-9);
    /* the p99 in time: 13 requests hold 9 x 13 .. at the top; at most the 130 blocks */
    assert_true(r.kv_usage_p99 >= r.kv_usage_mean && r.kv_usage_p99 <= 0.130);
    /* cliffs: 1,000 / (413 x 0.125) = 19.37 req/s; no running cap */
    assert_double_equal(r.kv_cliff_rate, 1000.0 / (413.0 * 0.125), 1e-9);
    assert_true(isnan(r.seq_cliff_rate));
    assert_string_equal(r.binding, "kv_cache");
    assert_double_equal(r.fit_requests, 1000.0 / 8.26, 1e-9);
}

/* Poisson arrivals: Little's law, running + waiting = rate x time in system, within
 * sampling error; and the same seed gives the same run, another seed another. */
static void littles_law_and_seed(void **state)
{
    (void)state;
    kv_sched sc = paged(400);
    sc.max_seqs = 64;
    sc.max_batched_tokens = 2048;
    kv_workload w = fixed(300, 120, 4.0, 20.0, 4000); /* below its cliff of 5.6 req/s */
    w.arrivals = KV_ARRIVE_POISSON;
    w.ttft_ms = 60;
    w.seed = 7;
    kv_workload_result a, b, c;
    assert_int_equal(run(&sc, &w, &a), KV_OK);
    double L = a.running_mean + a.waiting_mean;
    assert_true(fabs(L - a.littles_law_requests) / a.littles_law_requests < 0.05);
    assert_int_equal(run(&sc, &w, &b), KV_OK);
    assert_memory_equal(&a, &b, sizeof a);
    w.seed = 8;
    assert_int_equal(run(&sc, &w, &c), KV_OK);
    assert_true(c.running_mean != a.running_mean);
    /* at a low rate the system is mostly empty, and that time counts too: 0.2 req/s of
     * 120 steps of 20 ms (+ the prompt) is 0.2 x 2.44 = about 0.5 in the system, not the 1
     * of a clock that stops while nothing runs */
    w = fixed(300, 120, 0.2, 20.0, 20000);
    w.arrivals = KV_ARRIVE_POISSON;
    w.ttft_ms = 60;
    assert_int_equal(run(&sc, &w, &a), KV_OK);
    L = a.running_mean + a.waiting_mean;
    assert_true(L < 0.6);
    assert_true(fabs(L - a.littles_law_requests) / a.littles_law_requests < 0.03);
}

/* Above the closed-form cliff the pool must preempt: 60 blocks hold 60 / 8.26 = 7.3
 * requests on average; at 2 req/s 12.5 want to run. The onset lies below the cliff
 * (Poisson arrivals bunch), and just below it nothing preempts. Arriving evenly, the same
 * requests bunch less: just above the cliff (1.25 req/s) they queue instead (7 run,
 * staggered, in 7 x 8.26 = 58 of the 60 blocks) and the waiting line grows. */
static void above_the_cliff_preempts(void **state)
{
    (void)state;
    kv_sched sc = paged(60);
    kv_workload w = fixed(100, 50, 2.0, 125.0, 300);
    w.arrivals = KV_ARRIVE_EVEN;
    w.rate = 1.25; /* above the cliff of 1.16 */
    kv_workload_result e;
    assert_int_equal(run(&sc, &w, &e), KV_OK);
    assert_true(e.rate > e.kv_cliff_rate);
    assert_int_equal(e.preemptions, 0);
    assert_true(e.waiting_mean > 10);
    assert_double_equal(e.running_mean, 7.0, 1e-3);
    w.arrivals = KV_ARRIVE_POISSON;
    w.rate = 2.0;
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_double_equal(r.kv_cliff_rate, 60.0 / (413.0 * 0.125), 1e-12);
    assert_true(w.rate > r.kv_cliff_rate);
    assert_true(r.preemptions > 0);
    assert_true(r.preemptions_per_s > 0);
    assert_false(isnan(r.preemption_onset_rate));
    assert_true(r.preemption_onset_rate <= r.kv_cliff_rate * 1.001);
    kv_workload below = w;
    below.rate = r.preemption_onset_rate * 0.98;
    kv_workload_result q;
    assert_int_equal(run(&sc, &below, &q), KV_OK);
    assert_int_equal(q.preemptions, 0);
    /* replicas for 2 req/s: ceil(2 / onset) */
    assert_int_equal(r.replicas, (int64_t)ceil(2.0 / r.preemption_onset_rate));
}

/* A preempted request finds its own cached blocks again (vLLM V1's prefix cache: freed
 * blocks keep their hashes until the allocator reuses them, the chain's tail first). By hand:
 * 5 blocks of 16, two clients each sending one request of 16 prompt and 40 output tokens,
 * tpot 1 ms, ttft 17 ms: c = (17 - 1) / 16 = 1 ms a prompt token.
 * - step 1: both prompts (1 block each), 1 + 32 ms; steps 2-17 decode (2 blocks each, 1 free);
 * - step 18: A takes the last block for token 33, B needs one: B, the newest, is preempted
 *   with 2 full blocks cached, both free again; A runs alone (steps 18-40, 23 ms); at token 49
 *   (step 34) A's fourth block evicts B's second, the tail of its chain;
 * - step 41, after A freed its 4: B finds 1 block (16 tokens) and recomputes 17 of its 33
 *   (1 + 17 ms), then decodes steps 42-63 (22 ms).
 * 33 + 16 + 23 + 18 + 22 = 112 ms; without the cache B recomputes all 33: 128 ms. One
 * preemption either way: the admission needs the same free blocks. */
static void preempted_request_finds_its_blocks(void **state)
{
    (void)state;
    kv_sched sc = paged(5);
    kv_workload w = fixed(16, 40, 0, 1.0, 2);
    w.concurrency = 2;
    w.ttft_ms = 17;
    kv_workload_result cached, cold;
    sc.prefix_caching = 1;
    assert_int_equal(run(&sc, &w, &cached), KV_OK);
    sc.prefix_caching = 0;
    assert_int_equal(run(&sc, &w, &cold), KV_OK);
    assert_int_equal(cached.preemptions, 1);
    assert_int_equal(cold.preemptions, 1);
    assert_double_equal(cached.duration_s, 0.112, 1e-12);
    assert_double_equal(cold.duration_s, 0.128, 1e-12);
}

/* The onset search is bounded: past its request-steps it stops, says so, and names no
 * onset (the replicas then count the saturation rate alone). */
static void onset_search_is_bounded(void **state)
{
    (void)state;
    kv_sched sc = paged(60);
    kv_workload w = fixed(100, 50, 2.0, 125.0, 300);
    w.arrivals = KV_ARRIVE_POISSON;
    kv_workload_result whole, cut;
    assert_int_equal(run(&sc, &w, &whole), KV_OK);
    assert_int_equal(whole.onset_cut, 0);
    w.onset_budget = 1000; /* less than one run */
    assert_int_equal(run(&sc, &w, &cut), KV_OK);
    assert_int_equal(cut.onset_cut, 1);
    assert_true(isnan(cut.preemption_onset_rate));
    assert_double_equal(cut.running_mean, whole.running_mean, 0); /* the run asked for: whole */
    assert_int_equal(cut.replicas, (int64_t)ceil(2.0 / cut.saturation_rate - 1e-12));
}

/* max_num_seqs binds before the pool: 5 running at most, arrivals pile up, no preemption;
 * the cliff of the cap is 5 / (50 x 0.125) = 0.8 req/s. */
static void running_cap_binds_first(void **state)
{
    (void)state;
    kv_sched sc = paged(100000);
    sc.max_seqs = 5;
    kv_workload w = fixed(100, 50, 2.0, 125.0, 200);
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_double_equal(r.seq_cliff_rate, 0.8, 1e-12);
    assert_string_equal(r.binding, "max_num_seqs");
    assert_double_equal(r.saturation_rate, 0.8, 1e-12);
    assert_int_equal(r.preemptions, 0);
    assert_true(r.running_mean <= 5.0 + 1e-9 && r.running_mean > 4.9);
    assert_true(r.waiting_mean > 10);
    assert_true(isnan(r.preemption_onset_rate));
    assert_int_equal(r.replicas, 3); /* ceil(2 / 0.8) */
}

/* A request longer than the engine's context is refused, not simulated. */
static void longer_than_the_context_is_refused(void **state)
{
    (void)state;
    kv_sched sc = paged(1000);
    sc.max_model_len = 140;
    kv_workload w = fixed(100, 50, 1.0, 10.0, 10);
    kv_workload_result r;
    kv_error err;
    size_t bytes = kv_workload_scratch_bytes(&w);
    void *mem = malloc(bytes);
    assert_int_equal(kv_workload_run(&sc, &w, mem, bytes, &r, &err), KV_ERR_WORKLOAD);
    assert_non_null(strstr(err.msg, "140 tokens"));
    sc.max_model_len = 150; /* 100 + 50 fits exactly */
    assert_int_equal(kv_workload_run(&sc, &w, mem, bytes, &r, &err), KV_OK);
    assert_int_equal(r.rejected, 0);
    assert_int_equal(kv_workload_run(&sc, &w, mem, bytes - 1, &r, &err), KV_ERR_WORKLOAD);
    free(mem);
}

/* Slots of 128 tokens: a prompt of 128 or more is refused, a longer answer stops at the
 * slot's end (100 + 50 -> 100 + 28). Each slot its own: never a failure. */
static void slots_truncate_and_refuse(void **state)
{
    (void)state;
    kv_sched sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = KV_SCHED_SLOTS;
    sc.engine_title = "test";
    sc.group[0] = (kv_sched_group){.groups = 1, .block_size = 1};
    sc.n_groups = 1;
    sc.max_seqs = 2;
    sc.slot_tokens = 128;
    sc.pool_blocks = 256;
    sc.max_model_len = 128;
    sc.max_seqs_name = "slots";
    sc.max_batched_tokens = 2048;
    kv_workload w = fixed(100, 50, 0.5, 100.0, 20);
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_int_equal(r.truncated, 20);
    assert_double_equal(r.output_mean, 28.0, 0);
    assert_int_equal(r.preemptions, 0);
    /* one request every 2 s, each 28 steps of 0.1 s: 1.4 running, 1.4 x 100..127 tokens */
    assert_double_equal(r.running_mean, 1.4, 1e-9);
    w.prompt.value = 128;
    assert_int_equal(run(&sc, &w, &r) == KV_OK, 0); /* every request refused */
    /* one shared stream of 150 cells: two requests of up to 128 overflow it, and every
     * processing slot fails */
    sc.pool_blocks = 150;
    sc.unified_fail_all = 1;
    w = fixed(100, 20, 20.0, 100.0, 10);
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_true(r.preemptions >= 2);
}

/* Ollama's slots (kv_ollama_sched; ollama/ollama v0.24.0 and v0.33.0-rc2): num_ctx cells a
 * slot, a long prompt cut, a full slot shifted by max((num_ctx - 4) / 2, 1). By hand, one
 * slot of 2,048 (d = 1,022) on a Go runner (0.9.6), prompts of 3,000 cut to 2,048 and 100
 * tokens out: the steps hold 2,048, then 1,027 .. 1,125 after the first shift: (2,048 +
 * 99 x 1,027 + 98 x 99 / 2) / 100 = 1,085.72 cells. On llama-server 0.30.5 (shift only
 * below 8,192) num_ctx 4,096 (d = 2,046): cut to 4,095, steps 4,095, 4,096, then 2,051 ..
 * 2,148: (8,191 + 98 x (2,051 + 2,148) / 2) / 100 = 2,139.42; num_ctx 16,384 has no shift:
 * cut to 16,383, one token out (16,383 cells). 0.32.15 shifts any num_ctx but deepseek2's and
 * cuts a prompt to num_ctx - d: 4,096 - 2,046 = 2,050, then 2,050 .. 2,149: 2,099.5. */
static void ollama_slots(void **state)
{
    (void)state;
#define OL(...) ARGS("--engine", "ollama", "--model", "qwen3-8b", "--gpu", "rtx4090", \
                     "--num-parallel", "1", "--rate", "0.1", "--tpot-ms", "20", "--requests", \
                     "50", __VA_ARGS__)
    static const struct {
        const char *version, *ctx, *prompt, *output, *key;
        double want;
    } cases[] = {
        {"0.9.6", "2048", "3000", "100", "workload_blocks_per_request_mean", 1085.72},
        {"0.9.6", "2048", "3000", "100", "workload_truncated", 50},
        {"0.30.5", "4096", "5000", "100", "workload_blocks_per_request_mean", 2139.42},
        {"0.30.5", "16384", "20000", "100", "workload_blocks_per_request_mean", 16383},
        {"0.30.5", "16384", "20000", "100", "workload_output_tokens_mean", 1},
        {"0.32.15", "4096", "5000", "100", "workload_blocks_per_request_mean", 2099.5},
        /* a long output shifts and goes on */
        {"0.32.15", "4096", "1000", "30000", "workload_output_tokens_mean", 30000},
        /* num_predict's cap: 10 x num_ctx */
        {"0.32.15", "2048", "100", "30000", "workload_output_tokens_mean", 20480},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_double_equal(run_get(cases[i].key, OL("--ollama-version", cases[i].version,
                                                     "--num-ctx", cases[i].ctx, "--prompt-tokens",
                                                     cases[i].prompt, "--output-tokens",
                                                     cases[i].output)),
                            cases[i].want, 1e-9);
    /* every slot holds at most its num_ctx */
    assert_true(run_get("workload_kv_usage_p99",
                        OL("--ollama-version", "0.32.15", "--num-ctx", "4096", "--prompt-tokens",
                           "1000", "--output-tokens", "30000")) <= 1.0);
    expect_refused(OL("--ollama-version", "0.3.12", "--prompt-tokens", "10", "--output-tokens",
                      "10"),
                   "Ollama before 0.3.13 served from its C++ ext_server");
    expect_refused(OL("--ollama-version", "0.4.2", "--prompt-tokens", "10", "--output-tokens",
                      "10"),
                   "Ollama 0.4.2 shifted a long prompt while reading it");
#undef OL
}

/* Windows cap a group's blocks; a state's are held from the first token. Prompt 10, output
 * 40, block 16, a window of 2 blocks and a state of 1: steps hold ceil((9 + j) / 16) capped
 * at 2 (j = 1..6: 1 block, then 2) plus 1. */
static void capped_and_fixed_groups(void **state)
{
    (void)state;
    kv_sched sc = paged(1000);
    sc.group[0] = (kv_sched_group){.groups = 2, .block_size = 16, .cap_blocks = 2};
    sc.group[1] = (kv_sched_group){.groups = 1, .block_size = 16, .cap_blocks = 1, .fixed = 1};
    sc.n_groups = 2;
    kv_workload w = fixed(10, 40, 0, 0, 1);
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    double sum = 0;
    for (int j = 1; j <= 40; j++) {
        int b = (9 + j + 15) / 16;
        sum += 2 * (b > 2 ? 2 : b) + 1;
    }
    assert_double_equal(r.blocks_mean, sum / 40.0, 1e-12);
    assert_int_equal(r.simulated, 0);
}

/* The log-normal fits, by hand: median 1,020 and p99 4,142 (Azure's 2023 conversation
 * prompts) give mu = ln 1020 = 6.92756, sigma = ln(4142 / 1020) / 2.32635 = 0.602393 and a
 * mean of exp(mu + sigma^2 / 2) = 1,222.92; mean and median give the sigma back. */
static void lognormal_fits(void **state)
{
    (void)state;
    kv_dist d;
    assert_int_equal(kv_dist_lognormal(NAN, 1020, 4142, &d), KV_OK);
    assert_double_equal(d.mu, log(1020.0), 1e-12);
    assert_double_equal(d.sigma, 0.6023931980744728, 1e-12);
    assert_double_equal(kv_dist_mean(&d), 1222.9199611024735, 1e-6);
    kv_dist e;
    assert_int_equal(kv_dist_lognormal(1222.9199611024735, 1020, NAN, &e), KV_OK);
    assert_double_equal(e.sigma, d.sigma, 1e-9);
    assert_int_equal(kv_dist_lognormal(1222.9199611024735, NAN, 4142, &e), KV_OK);
    assert_double_equal(e.sigma, d.sigma, 1e-9);
    assert_double_equal(e.mu, d.mu, 1e-9);
    assert_int_equal(kv_dist_lognormal(NAN, 4142, 1020, &e), KV_ERR_WORKLOAD);
    assert_int_equal(kv_dist_lognormal(900, 1020, NAN, &e), KV_ERR_WORKLOAD);
    assert_int_equal(kv_dist_lognormal(1, 2, 3, &e), KV_ERR_WORKLOAD);
    assert_int_equal(kv_dist_lognormal(NAN, NAN, 3, &e), KV_ERR_WORKLOAD);
    /* sampled: the mean of 20,000 draws within 3% of 1,222.9 */
    kv_sched sc = paged(1000000);
    sc.max_model_len = 1 << 30;
    kv_workload w = fixed(1, 1, 0, 0, 20000);
    w.prompt = d;
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_true(fabs(r.prompt_mean - 1222.92) / 1222.92 < 0.03);
}

/* The engines' schedulers from their results: vLLM's pool is num_gpu_blocks - 1 (the null
 * block), its caps max_num_seqs and max_num_batched_tokens; V0 is not simulated. */
static void engine_schedulers(void **state)
{
    (void)state;
    kv_spec s;
    kv_result r;
    kv_sched sc;
    kv_error err;
    kv_spec_defaults(&s);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(kv_sched_of(&s, &r, &sc, &err), KV_OK);
    /* the lesson: 35,392,123,904 B free / 57,344 B a token = 617,189 tokens */
    assert_int_equal(sc.pool_blocks, 617189);
    assert_int_equal(sc.max_seqs, 0);
    assert_int_equal(kv_spec_set_engine(&s, KV_ENGINE_VLLM), KV_OK);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(kv_sched_of(&s, &r, &sc, &err), KV_OK);
    assert_int_equal(sc.pool_blocks, r.vllm.num_gpu_blocks - 1);
    assert_int_equal(sc.max_seqs, r.vllm.max_num_seqs);
    assert_int_equal(sc.max_batched_tokens, r.vllm.max_num_batched_tokens);
    assert_int_equal(sc.group[0].block_size, 16);
    assert_int_equal(sc.max_model_len, s.context);
    assert_int_equal(kv_spec_set_engine(&s, KV_ENGINE_TRTLLM), KV_OK);
    assert_int_equal(kv_compute(&s, &r), KV_OK);
    assert_int_equal(kv_sched_of(&s, &r, &sc, &err), KV_ERR_WORKLOAD);
    assert_non_null(strstr(err.msg, "TensorRT-LLM's scheduler is not simulated"));
}

/* SGLang's rules on a hand-built pool: a prefill batch runs alone, so each arrival pauses
 * every decode for a step. Prompt 100, output 49, one arrival every 4 steps of 0.125 s: a
 * request's prefill step, then its 48 decodes in the 3 free steps of each 4 (15 of the next
 * arrivals' prefills among them): 1 + 48 + 15 = 64 steps, 8.0 s in the system, 2 x 8 = 16
 * running. A pool of 3,000 tokens and outputs of 1,000: the admission's reservation (0.7 x
 * what running requests may still generate) decays towards 0.098 and lets too many in;
 * their growth then retracts some, and every request still finishes. */
static void sglang_prefill_alone_and_retraction(void **state)
{
    (void)state;
    kv_sched sc = reserve(1000000, 1);
    kv_workload w = fixed(100, 49, 2.0, 125.0, 400);
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_double_equal(r.time_in_system_s, 8.0, 1e-9);
    assert_double_equal(r.running_mean, 16.0, 1e-9);
    assert_int_equal(r.preemptions, 0);
    sc.pool_blocks = 3000;
    w = fixed(100, 1000, 1.0, 10.0, 200);
    w.arrivals = KV_ARRIVE_POISSON;
    kv_workload_result a, b;
    assert_int_equal(run(&sc, &w, &a), KV_OK);
    assert_true(a.preemptions > 0);
    assert_false(isnan(a.time_in_system_s));
    assert_true(a.kv_usage_p99 <= 1.0);
    assert_int_equal(run(&sc, &w, &b), KV_OK);
    assert_memory_equal(&a, &b, sizeof a);
}

/* SGLang with --page-size 16 (schedule_reserve in pages): prompt 100, output 50, one request
 * alone every second at 10 ms a step. Its prefill step holds ceil(100 / 16) = 7 pages and its
 * j-th step ceil((99 + j) / 16): 413 page-steps over the 50 (as vLLM's blocks, above), 4.13
 * page-seconds a second in a pool of 20 pages: a usage of 20.65% (in tokens, P = 1, the
 * steps hold 100..149 tokens: 6,225 token-steps, 62.25 a second). The admission counts free
 * pages x 16 tokens: prompt + output = 150 is admitted below 10 pages (160) and not at 9
 * (144), where it never runs; a pool of 10 pages holds it to its end. Busy, every request
 * still finishes and the pages are never over-committed. */
static void sglang_pages(void **state)
{
    (void)state;
    kv_sched sc = reserve(20, 16);
    kv_workload w = fixed(100, 50, 1.0, 10.0, 200);
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_int_equal(r.preemptions, 0);
    assert_double_equal(r.kv_usage_mean, 4.13 / 20, 1e-9);
    assert_double_equal(r.blocks_mean, 413.0 / 50, 1e-9);
    kv_sched tokens = sc;
    tokens.group[0].block_size = 1;
    tokens.pool_blocks = 320;
    assert_int_equal(run(&tokens, &w, &r), KV_OK);
    assert_double_equal(r.kv_usage_mean, 62.25 / 320, 1e-9);
    /* the admission's edge, one client at a time */
    kv_workload one = fixed(100, 50, 0, 10.0, 20);
    one.concurrency = 1;
    sc.pool_blocks = 10;
    assert_int_equal(run(&sc, &one, &r), KV_OK);
    assert_int_equal(r.preemptions, 0);
    assert_false(isnan(r.time_in_system_s));
    double ten = r.time_in_system_s;
    assert_double_equal(ten, 0.5, 1e-9); /* 50 steps of 10 ms */
    sc.pool_blocks = 9;
    assert_int_equal(run(&sc, &one, &r), KV_OK);
    assert_true(isnan(r.time_in_system_s)); /* none ran */
    /* busy: Poisson arrivals into 200 pages, outputs of 1,000 */
    sc.pool_blocks = 200;
    w = fixed(100, 1000, 1.0, 10.0, 200);
    w.arrivals = KV_ARRIVE_POISSON;
    kv_workload_result a, b;
    assert_int_equal(run(&sc, &w, &a), KV_OK);
    assert_true(a.preemptions > 0);
    assert_false(isnan(a.time_in_system_s));
    assert_true(a.kv_usage_p99 <= 1.0);
    assert_int_equal(run(&sc, &w, &b), KV_OK);
    assert_memory_equal(&a, &b, sizeof a);
}

/* vLLM V1's prefix cache with a shared prefix (--shared-prefix-tokens): prompt 1,000,
 * output 100, blocks of 16, the prefix 960 tokens = 60 full blocks. A request then holds
 * ceil((999 + j) / 16) blocks at its j-th step, 6,606 over its 100 steps (9 x 63 + 16 x
 * (64 + .. + 68) + 11 x 69), 60 of them shared each step: 606 of its own, 6.06 a step, in a
 * pool of 1,000 - 60 blocks (the prefix held once): 940 / 6.06 = 155.1 requests at once
 * (10.08 without the cache: 1,000 / 66.06 = 15.1). One request alone every second: the
 * first computes the whole prompt and caches the 60 blocks, each later one finds 960 of its
 * 1,000 tokens: 199 x 960 / (200 x 1,000) = 0.9552 of what is looked up. Ten clients in a
 * pool of 260 blocks: 69 blocks each without the cache preempt, 60 + 10 x 9 with it do not. */
static void vllm_prefix_cache(void **state)
{
    (void)state;
    kv_sched sc = paged(1000);
    sc.max_seqs = 256;
    sc.max_batched_tokens = 8192;
    sc.prefix_caching = 1;
    kv_workload w = fixed(1000, 100, 1.0, 10.0, 200);
    w.shared_prefix = 960;
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_int_equal(r.prefix_blocks, 60);
    assert_double_equal(r.blocks_mean, 6.06, 1e-12);
    assert_double_equal(r.fit_requests, 940.0 / 6.06, 1e-9);
    assert_double_equal(r.prefix_hit_rate, 199.0 * 960.0 / (200.0 * 1000.0), 1e-12);
    assert_int_equal(r.preemptions, 0);
    w.shared_prefix = 0;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_double_equal(r.blocks_mean, 66.06, 1e-12);
    assert_true(isnan(r.prefix_hit_rate));
    /* ten clients, 260 blocks: without the cache four are admitted (4 x 63 = 252) and grow to
     * 4 x 69 = 276, and one is preempted */
    sc.pool_blocks = 260;
    kv_workload ten = fixed(1000, 100, 0, 10.0, 400);
    ten.concurrency = 10;
    kv_workload_result cold, warm, again;
    assert_int_equal(run(&sc, &ten, &cold), KV_OK);
    assert_true(cold.preemptions > 0);
    ten.shared_prefix = 960;
    assert_int_equal(run(&sc, &ten, &warm), KV_OK);
    /* only the cold start preempts: the four first admitted all compute the prefix (nothing
     * is cached yet), the copies of the three beside the first stay their own, and as they
     * grow the newest are preempted; found again, they hold 9 blocks each */
    assert_true(cold.preemptions >= 100);
    assert_true(warm.preemptions <= 3);
    assert_true(warm.prefix_hit_rate > 0.9);
    assert_true(warm.kv_usage_p99 <= 1.0);
    assert_true(warm.time_in_system_s < cold.time_in_system_s);
    assert_int_equal(run(&sc, &ten, &again), KV_OK);
    assert_memory_equal(&warm, &again, sizeof warm);
    /* busy Poisson arrivals on a small pool: free cached blocks are evicted and found again,
     * every request still finishes */
    sc.pool_blocks = 200;
    kv_workload busy = fixed(1000, 100, 3.0, 10.0, 400);
    busy.arrivals = KV_ARRIVE_POISSON;
    busy.shared_prefix = 960;
    assert_int_equal(run(&sc, &busy, &r), KV_OK);
    assert_false(isnan(r.time_in_system_s));
    assert_true(r.kv_usage_p99 <= 1.0);
    assert_true(r.prefix_hit_rate > 0 && r.prefix_hit_rate < 0.96);
    /* an engine whose simulation keeps no such cache is refused, not ignored */
    kv_error err;
    void *mem = malloc(kv_workload_scratch_bytes(&busy));
    sc.prefix_caching = 0;
    assert_int_equal(kv_workload_run(&sc, &busy, mem, kv_workload_scratch_bytes(&busy), &r, &err),
                     KV_ERR_WORKLOAD);
    assert_non_null(strstr(err.msg, "a shared prefix is simulated for vLLM V1's prefix cache"));
    free(mem);
    /* the program: one screen, one pool (docs/workload.md's example) */
    run_result rr;
    run_kvcalc((const char *const[]){"--engine", "vllm", "--model", "qwen3-8b", "--gpu", "h100",
                                     "--prompt-tokens", "2000", "--output-tokens", "200",
                                     "--tpot-ms", "20", "--rate", "20", "--shared-prefix-tokens",
                                     "1600", NULL},
               &rr);
    assert_int_equal(rr.status, 0);
    assert_non_null(strstr(rr.out, "so the pool's 22,798 blocks beside the prefix's hold ~"));
    assert_non_null(strstr(rr.out, "  prefix  : the shared 1,600 tokens' 100 full blocks, held "
                                   "once and not computed again (the pool's other 22,798 for "
                                   "the requests); 79.9% of the tokens looked up found\n"));
    run_free(&rr);
    expect_refused((const char *const[]){"--engine", "sglang", "--model", "qwen3-8b", "--gpu",
                                         "h100", "--prompt-tokens", "100", "--output-tokens",
                                         "10", "--tpot-ms", "10", "--rate", "2",
                                         "--shared-prefix-tokens", "50", "--disable-radix-cache",
                                         NULL},
                   "kvcalc: --shared-prefix-tokens: a shared prefix is simulated for vLLM V1's "
                   "prefix cache, SGLang's radix cache and llama-server's slots (from b9908; "
                   "Ollama from 0.30) on a pool of full-attention layers only (SGLang's "
                   "scheduler keeps no such cache here)");
    expect_refused((const char *const[]){"--prompt-tokens", "100", "--output-tokens", "10",
                                         "--shared-prefix-tokens", "50", NULL},
                   "--shared-prefix-tokens: applies to a simulated rate");
}

/* llama-server's slot prompt reuse (get_available_slot, server_prompt_cache @ 3f545becc):
 * 100 requests of 2,000 + 200 tokens arriving evenly every 10 s, each done in 4 s (200
 * steps of 20 ms), so every task finds the slots idle. The first finds nothing; each later
 * one finds the 1,600 shared tokens: in the slot that held them (8 slots of their own:
 * 1,600 / 2,000 = 0.8 > -sps 0.1 picks it), or, with one shared cache, in the prompt cache
 * the last one was saved to when it ended (its slot cleared): 99 x 1,600 / (100 x 2,000) =
 * 0.792. A prompt cache of 1 MiB holds no state of 2,199 tokens x 144 KiB, and the cleared
 * slot holds none either: 0. A 100-token prefix is 5% of the prompt, under -sps, so the
 * least recently used slot is taken, the never used first: the first 8 find nothing, the
 * other 92 find 100 tokens in their slot (a cached state keeping under a quarter of itself,
 * 100 of 2,199, is never loaded): 92 x 100 / 200,000 = 0.046. */
static void llamacpp_slot_reuse(void **state)
{
    (void)state;
    static const struct {
        const char *ctx, *np, *prefix, *cache_ram, *want;
    } rows[] = {
        {"65536", "8", "1600", "8192", "0.792\n"}, {"65536", "8", "1600", "0", "0.792\n"},
        {"32768", NULL, "1600", "8192", "0.792\n"}, {"32768", NULL, "1600", "0", "0.792\n"},
        {"32768", NULL, "1600", "1", "0\n"},         {"65536", "8", "100", "8192", "0.046\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        run_result r;
        const char *argv[40] = {"--engine", "llamacpp", "--model", "qwen3-8b", "--gpu", "h100",
                                "--arrivals", "even", "--requests", "100", "--prompt-tokens",
                                "2000", "--output-tokens", "200", "--tpot-ms", "20", "--rate",
                                "0.1", "--get", "workload_prefix_hit_rate", "-c", rows[i].ctx,
                                "--shared-prefix-tokens", rows[i].prefix, "--cache-ram",
                                rows[i].cache_ram};
        size_t n = 26;
        if (rows[i].np) {
            argv[n++] = "-np";
            argv[n++] = rows[i].np;
        }
        argv[n] = NULL;
        run_kvcalc(argv, &r);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.out, rows[i].want);
        run_free(&r);
    }
    /* -sps 0.04 lets 5% choose the slot that holds the prefix (99 x 100 / 200,000 = 0.0495);
     * -sps 0 turns the choice off: least recently used, as under 0.1 */
    static const struct {
        const char *sps, *want;
    } sps[] = {{"0.04", "0.0495\n"}, {"0", "0.046\n"}};
    for (size_t i = 0; i < sizeof sps / sizeof sps[0]; i++) {
        run_result rs;
        run_kvcalc((const char *const[]){"--engine", "llamacpp", "--model", "qwen3-8b", "--gpu",
                                         "h100", "--arrivals", "even", "--requests", "100",
                                         "--prompt-tokens", "2000", "--output-tokens", "200",
                                         "--tpot-ms", "20", "--rate", "0.1", "-np", "8", "-c",
                                         "65536", "--shared-prefix-tokens", "100", "-sps",
                                         sps[i].sps, "--get", "workload_prefix_hit_rate", NULL},
                   &rs);
        assert_int_equal(rs.status, 0);
        assert_string_equal(rs.out, sps[i].want);
        run_free(&rs);
    }
    /* the text says where the prefix is kept; the prefill it saves moves the closed forms:
     * 400 of 2,000 prompt tokens computed, 5x the prefill limit */
    run_result r;
    run_kvcalc((const char *const[]){"--engine", "llamacpp", "--model", "qwen3-8b", "--gpu",
                                     "h100", "-np", "8", "-c", "65536", "--prompt-tokens", "2000",
                                     "--output-tokens", "200", "--tpot-ms", "20", "--ttft-ms",
                                     "200", "--rate", "1", "--shared-prefix-tokens", "1600", NULL},
               &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  prefix  : the shared 1,600 tokens, a copy in each slot that "
                                  "held it and in the prompt cache (8,192 MiB), not computed "
                                  "again where a task finds it; "));
    assert_non_null(strstr(r.out, ", prefill compute 27.78 req/s\n")); /* 1 / (400 x 0.09 ms) */
    run_free(&r);
    /* Ollama from 0.30 runs llama-server with -np OLLAMA_NUM_PARALLEL (1 here) and its
     * default prompt cache: the same 0.792 with num_ctx 2,048 and 1,500-token requests; with
     * 3,000 of them the slot shifts (num_keep 4), so a later task finds only the first 4
     * tokens of the prefix: 99 x 4 / (100 x 1,000) = 0.00396. The Go runners (0.24.0) take
     * the idle slot of the longest common prefix (findLongestCacheSlot): the same figures.
     * They part on a 50-token prefix over 4 slots, 5% of the prompt, under -sps: llama-server
     * takes the never used slots first (the first 4 find nothing: 96 x 50 / 100,000 = 0.048),
     * the Go runners the slot holding the prefix (99 x 50 / 100,000 = 0.0495). */
    static const struct {
        const char *output, *rate, *version, *prefix, *parallel, *want;
    } ol[] = {
        {"500", "0.05", "0.33.0", "800", "1", "0.792\n"},
        {"2000", "0.01", "0.33.0", "800", "1", "0.00396\n"},
        {"500", "0.05", "0.24.0", "800", "1", "0.792\n"},
        {"2000", "0.01", "0.24.0", "800", "1", "0.00396\n"},
        {"500", "0.05", "0.33.0", "50", "4", "0.048\n"},
        {"500", "0.05", "0.24.0", "50", "4", "0.0495\n"},
    };
    for (size_t i = 0; i < sizeof ol / sizeof ol[0]; i++) {
        run_kvcalc((const char *const[]){"--engine", "ollama", "--model", "qwen3-8b", "--gpu",
                                         "h100", "--arrivals", "even", "--requests", "100",
                                         "--prompt-tokens", "1000", "--output-tokens",
                                         ol[i].output, "--tpot-ms", "20", "--rate", ol[i].rate,
                                         "--num-ctx", "2048", "--shared-prefix-tokens",
                                         ol[i].prefix, "--ollama-version", ol[i].version,
                                         "--num-parallel", ol[i].parallel, "--get",
                                         "workload_prefix_hit_rate", NULL},
                   &r);
        assert_int_equal(r.status, 0);
        if (strcmp(r.out, ol[i].want) != 0)
            fail_msg("row %zu: %s, want %s", i, r.out, ol[i].want);
        run_free(&r);
    }
    /* the rules hold from b9908 (the prompt cache's limit kept before each entry) */
    expect_refused((const char *const[]){"--engine", "llamacpp", "--model", "qwen3-8b", "--gpu",
                                         "h100", "--llamacpp-build", "9907", "--prompt-tokens",
                                         "100", "--output-tokens", "10", "--tpot-ms", "10",
                                         "--rate", "2", "--shared-prefix-tokens", "50", NULL},
                   "llama-server's slots (from b9908; Ollama from 0.30)");
}

/* SGLang's radix cache with the same shared prefix: one request alone every second, pages of
 * 16: the first computes its 1,000 tokens, each later one finds 960 (the match stops a token
 * short of the input and at a page): 0.9552 of what is looked up, 6.06 pages of its own a step
 * as vLLM's blocks; and in tokens (page 1) a match of 960 tokens, 1,049.5 - 960 = 89.5 a
 * step. Ten clients in 260 pages: without the cache they wait for room (SGLang admits
 * conservatively), with it they run at once. */
static void sglang_radix_prefix(void **state)
{
    (void)state;
    kv_sched sc = reserve(1000, 16);
    sc.prefix_caching = 1;
    kv_workload w = fixed(1000, 100, 1.0, 10.0, 200);
    w.shared_prefix = 960;
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_int_equal(r.prefix_blocks, 60);
    assert_double_equal(r.blocks_mean, 6.06, 1e-12);
    assert_double_equal(r.prefix_hit_rate, 199.0 * 960.0 / (200.0 * 1000.0), 1e-12);
    assert_int_equal(r.preemptions, 0);
    kv_sched tokens = sc;
    tokens.group[0].block_size = 1;
    tokens.pool_blocks = 16000;
    assert_int_equal(run(&tokens, &w, &r), KV_OK);
    assert_int_equal(r.prefix_blocks, 960);
    assert_double_equal(r.blocks_mean, 1049.5 - 960.0, 1e-12);
    assert_double_equal(r.prefix_hit_rate, 199.0 * 960.0 / (200.0 * 1000.0), 1e-12);
    sc.pool_blocks = 260;
    kv_workload ten = fixed(1000, 100, 0, 10.0, 400);
    ten.concurrency = 10;
    kv_workload_result cold, warm;
    assert_int_equal(run(&sc, &ten, &cold), KV_OK);
    ten.shared_prefix = 960;
    assert_int_equal(run(&sc, &ten, &warm), KV_OK);
    assert_true(warm.prefix_hit_rate > 0.9);
    assert_true(warm.time_in_system_s < 0.5 * cold.time_in_system_s); /* 1.0 s against 3.3 */
    assert_true(warm.kv_usage_p99 <= 1.0);
    /* busy: every request still finishes within the pages */
    sc.pool_blocks = 200;
    kv_workload busy = fixed(1000, 100, 3.0, 10.0, 400);
    busy.arrivals = KV_ARRIVE_POISSON;
    busy.shared_prefix = 960;
    assert_int_equal(run(&sc, &busy, &r), KV_OK);
    assert_false(isnan(r.time_in_system_s));
    assert_true(r.kv_usage_p99 <= 1.0);
}

#define AZURE_TRACE KVCALC_SOURCE_DIR "/tests/fixtures/traces/AzureLLMInferenceTrace_conv.csv"

static kv_status feed(kv_trace *t, const char *text, char *err, size_t cap)
{
    kv_trace_init(t);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        kv_status st = kv_trace_feed_line(t, p, n, err, cap);
        if (st != KV_OK)
            return st;
        p += n + (nl != NULL);
    }
    return kv_trace_finish(t, err, cap);
}

/* Azure's 2023 conversation trace, whole: 19,366 requests, prompts of 1,154.70 tokens and
 * outputs of 211.13 on average (tests/fixtures/traces/README.md, computed there with
 * Python's csv module), from 2023-11-16 18:15:46.6805900 (days_from_civil: 19,677 days,
 * 1,700,158,546.68059 s) over 3,501.721937 s. */
static void azure_trace_reads_whole(void **state)
{
    (void)state;
    kv_trace t;
    char err[512];
    assert_int_equal(kv_trace_read_file(AZURE_TRACE, "conv.csv", &t, err, sizeof err), KV_OK);
    assert_int_equal(t.n, 19366);
    assert_int_equal(t.skipped, 0);
    assert_int_equal(t.has_arrivals, 1);
    assert_string_equal(t.layout, "azure");
    double p = 0, o = 0;
    for (size_t i = 0; i < t.n; i++) {
        p += (double)t.rows[i].prompt;
        o += (double)t.rows[i].output;
    }
    assert_double_equal(p / 19366.0, 1154.6974078281523, 1e-9);
    assert_double_equal(o / 19366.0, 211.12594237323142, 1e-9);
    assert_double_equal(t.rows[0].arrival_s, 1700158546.68059, 1e-6);
    assert_double_equal(t.rows[t.n - 1].arrival_s - t.rows[0].arrival_s, 3501.721937, 1e-6);
    kv_trace_free(&t);
}

/* The other layouts, and what a reader refuses (with its line). */
static void trace_layouts_and_errors(void **state)
{
    (void)state;
    kv_trace t;
    char err[512];
    /* BurstGPT's columns (its README), a failed request (0 response tokens) left out */
    assert_int_equal(feed(&t, "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response "
                              "tokens,Total tokens,Log Type\n"
                              "5,1,0.9,ChatGPT,472,18,490,Conversation log\n"
                              "45,2,1.2,ChatGPT,1087,0,1087,Conversation log\n"
                              "118,3,2.1,GPT-4,417,276,693,API log\n",
                         err, sizeof err),
                     KV_OK);
    assert_string_equal(t.layout, "burstgpt");
    assert_int_equal(t.n, 2);
    assert_int_equal(t.skipped, 1);
    assert_int_equal(t.rows[1].prompt, 417);
    assert_double_equal(t.rows[1].arrival_s, 118, 0);
    kv_trace_free(&t);
    /* kvcalc's own columns, CRLF, blank lines, quotes; no arrival column */
    assert_int_equal(feed(&t, "prompt_tokens,\"output_tokens\"\r\n\r\n 100 ,\"20\"\r\n7,3\r\n",
                          err, sizeof err), KV_OK);
    assert_string_equal(t.layout, "csv");
    assert_int_equal(t.n, 2);
    assert_int_equal(t.has_arrivals, 0);
    assert_int_equal(t.rows[0].prompt, 100);
    assert_int_equal(t.rows[0].output, 20);
    kv_trace_free(&t);
    /* JSON lines */
    assert_int_equal(feed(&t, "{\"prompt_tokens\": 12, \"output_tokens\": 5, \"arrival_s\": 0.5}\n"
                              "{\"output_tokens\": 6, \"prompt_tokens\": 13, \"arrival_s\": 1}\n",
                          err, sizeof err), KV_OK);
    assert_string_equal(t.layout, "jsonl");
    assert_int_equal(t.n, 2);
    assert_int_equal(t.rows[1].prompt, 13);
    assert_double_equal(t.rows[1].arrival_s, 1, 0);
    kv_trace_free(&t);
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"a,b\n1,2\n", "line 1: a trace's header names its prompt and output columns"},
        {"prompt_tokens,output_tokens\n1,2\nx,3\n", "line 3: expected a whole number of tokens, got 'x'"},
        {"prompt_tokens,output_tokens\n1\n", "line 2: fewer columns than the header names"},
        {"prompt_tokens,output_tokens,arrival_s\n1,2,5\n1,2,4\n",
         "line 3: arrives before the row above it"},
        {"prompt_tokens,output_tokens,arrival_s\n1,2,yesterday\n",
         "line 2: the arrival column: expected seconds"},
        {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-13-16 18:15:46.68,1,2\n",
         "line 2: the arrival column"},
        {"{\"prompt_tokens\": 1}\n", "line 1: output_tokens: expected a whole number of tokens"},
        {"{\"prompt_tokens\": 1, \"output_tokens\": -2}\n", "line 1: output_tokens"},
        {"{\"prompt_tokens\": 1, \"output_tokens\": 2,\n", "line 1: column"},
        {"{\"prompt_tokens\": 1, \"output_tokens\": 2, \"arrival_s\": 1}\n{\"prompt_tokens\": 1, "
         "\"output_tokens\": 2}\n",
         "line 2: an arrival time on some lines and not on others"},
        {"prompt_tokens,output_tokens\n0,0\n", "no request in the trace"},
        {"", "no request in the trace"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kv_status st = feed(&t, bad[i].text, err, sizeof err);
        if (st == KV_OK || !strstr(err, bad[i].says))
            fail_msg("trace %zu: status %d, '%s' (want '%s')", i, (int)st, err, bad[i].says);
        kv_trace_free(&t);
    }
    /* a line over the bound is refused, not cut */
    char *longer = malloc(KV_TRACE_LINE_MAX + 64);
    assert_non_null(longer);
    strcpy(longer, "prompt_tokens,output_tokens\n1,");
    size_t at = strlen(longer);
    memset(longer + at, '7', KV_TRACE_LINE_MAX);
    longer[at + KV_TRACE_LINE_MAX] = '\0';
    assert_int_equal(feed(&t, longer, err, sizeof err), KV_ERR_FORMAT);
    assert_non_null(strstr(err, "line 2: longer than 65,536 bytes"));
    kv_trace_free(&t);
    free(longer);
}

/* The trace through the program: its own times (5.53 req/s), vLLM's context of 8,192
 * refusing the one request longer than that (the fixture's README); --rate scales the
 * times; flags that the trace replaces are refused. */
static void trace_through_the_program(void **state)
{
    (void)state;
#define TRACE_RUN "--trace", AZURE_TRACE, "--model", "qwen3-8b", "--gpu", "h100", "--engine",     \
                  "vllm", "--max-model-len", "8192", "--tpot-ms", "30", "--ttft-ms", "150"
    assert_double_equal(run_get("workload_rate", ARGS(TRACE_RUN)), 19365.0 / 3501.721937, 1e-6);
    assert_double_equal(run_get("workload_rejected", ARGS(TRACE_RUN)), 1, 0);
    assert_double_equal(run_get("workload_requests", ARGS(TRACE_RUN)), 19366, 0);
    assert_double_equal(run_get("workload_rate", ARGS(TRACE_RUN, "--rate", "2")), 2, 0);
    run_result r;
    run_kvcalc(ARGS(TRACE_RUN), &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(azure; 19,366 requests, its own arrival times)"));
    assert_non_null(strstr(r.out, "(the trace's times, scaled)"));
    run_free(&r);
    expect_refused(ARGS("--trace", AZURE_TRACE, "--prompt-tokens", "5"),
                   "kvcalc: --trace: a trace gives the lengths and the requests; drop "
                   "--prompt-tokens");
    expect_refused(ARGS("--trace", "/nonexistent/trace.csv"),
                   "kvcalc: --trace /nonexistent/trace.csv: cannot open");
    char path[] = "/tmp/kvcalc-trace-XXXXXX";
    write_temp(path, "prompt_tokens,output_tokens\n10,5\n");
    expect_refused(ARGS("--trace", path, "--tpot-ms", "10"),
                   "has no arrival times to simulate; give --rate");
    assert_double_equal(run_get("workload_output_tokens_mean",
                                ARGS("--trace", path, "--tpot-ms", "10", "--rate", "1")),
                        5, 0);
    remove(path);
#undef TRACE_RUN
}

#define LESSON_WORKLOAD                                                                     \
    "--prompt-tokens", "1000", "--output-tokens", "100", "--rate", "4", "--arrivals", "even",   \
        "--tpot-ms", "62.5"

/* The command of docs/workload.md's first example, by hand: the lesson's pool is
 * 617,189 tokens (35,392,123,904 B / 57,344 B); a request holds 999 + j tokens at its j-th
 * step, 100 x 999 + 5,050 = 104,950 summed, 1,049.5 on average, so the pool holds
 * 617,189 / 1,049.5 = 588.08 at once; one every 0.25 s, 100 steps of 0.0625 s each: 25
 * run, holding 4 x 0.0625 x 104,950 = 26,237.5 tokens = 4.2511% of the pool; the pool's
 * cliff 617,189 / (104,950 x 0.0625) = 94.09 req/s. */
static void the_docs_first_example(void **state)
{
    (void)state;
    assert_double_equal(run_get("workload_running_mean", ARGS(LESSON_WORKLOAD)), 25.0, 1e-9);
    assert_double_equal(run_get("workload_kv_usage_mean", ARGS(LESSON_WORKLOAD)),
                        26237.5 / 617189.0, 1e-12);
    assert_double_equal(run_get("workload_fit_requests", ARGS(LESSON_WORKLOAD)),
                        617189.0 / 1049.5, 1e-9);
    assert_double_equal(run_get("workload_kv_cliff_rate", ARGS(LESSON_WORKLOAD)),
                        617189.0 / (104950.0 * 0.0625), 1e-9);
    assert_double_equal(run_get("workload_time_in_system_s", ARGS(LESSON_WORKLOAD)), 6.25, 1e-9);
    assert_double_equal(run_get("workload_preemptions", ARGS(LESSON_WORKLOAD)), 0, 0);
    run_result r;
    run_kvcalc(ARGS(LESSON_WORKLOAD), &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Under your workload (the lesson's scheduler, 1,000 requests "
                                  "simulated):\n"));
    assert_non_null(strstr(r.out, "    running 25.0, waiting 0.0 (means); KV cache 4.3% mean"));
    assert_non_null(strstr(r.out, "the queue grows without bound above 94.09 req/s"));
    run_free(&r);
    /* --require on the workload's keys: exit 1 when it fails */
    run_kvcalc(ARGS(LESSON_WORKLOAD, "--require", "workload_preemptions_per_s<=0.01",
                    "--require", "workload_kv_usage_p99<0.05"), &r);
    assert_int_equal(r.status, 0);
    run_free(&r);
    run_kvcalc(ARGS(LESSON_WORKLOAD, "--require", "workload_running_mean<20"), &r);
    assert_int_equal(r.status, 1);
    run_free(&r);
}

/* The figures docs/workload.md and README.md quote for Azure's 2023 conversation lengths
 * on vLLM, Qwen3-8B, one H100 (seeded: the same on every machine). */
#define AZURE_CONV                                                                          \
    "--model", "qwen3-8b", "--gpu", "h100", "--engine", "vllm", "--max-model-len", "8192",   \
        "--prompt-tokens", "median=1020,p99=4142", "--output-tokens", "median=129,p99=601",   \
        "--tpot-ms", "30", "--ttft-ms", "150"
static void the_docs_vllm_example(void **state)
{
    (void)state;
    assert_double_equal(run_get("workload_kv_usage_mean", ARGS(AZURE_CONV, "--rate", "5")),
                        0.244, 0.0005);
    assert_double_equal(run_get("workload_kv_usage_p99", ARGS(AZURE_CONV, "--rate", "5")),
                        0.436, 0.0005);
    assert_double_equal(run_get("workload_preemption_onset_rate", ARGS(AZURE_CONV, "--rate", "5")),
                        6.605, 0.0005);
    assert_double_equal(run_get("workload_saturation_rate", ARGS(AZURE_CONV, "--rate", "5")),
                        7.26, 0.005);
    assert_double_equal(run_get("workload_replicas",
                                ARGS(AZURE_CONV, "--rate", "20", "--headroom", "0.2")),
                        4, 0);
    run_result r;
    run_kvcalc(ARGS(AZURE_CONV, "--rate", "5"), &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "the queue grows without bound above 7.257 req/s (the KV cache "
                                  "binds first)"));
    run_free(&r);
    /* README's: without --tpot-ms, the H100's roofline gives a step of 5.14 ms */
    assert_double_equal(run_get("workload_step_s", ARGS("--model", "qwen3-8b", "--gpu", "h100",
                                                        "--engine", "vllm", "--max-model-len",
                                                        "8192", "--prompt-tokens",
                                                        "median=1020,p99=4142", "--output-tokens",
                                                        "median=129,p99=601", "--rate", "5")),
                        0.00514, 0.000005);
}

/* A sliding window's blocks leave with the window (vLLM's remove_skipped_blocks,
 * get_num_skipped_tokens @ 28be48fa), and a chunk's with the chunk: at each
 * step a request holds the blocks from the one of token computed - window + 1 on. Prompt
 * 100, output 50, blocks of 16, a window of 32, by hand: the prompt's step holds ceil(100 /
 * 16) = 7; then at n = 101 .. 149 tokens ceil(n / 16) - floor((n - 32) / 16): 3 blocks, and
 * 2 at n = 112, 128 and 144 (a block just freed, the next not yet begun): 46 x 3 + 3 x 2 =
 * 144. 151 block-steps in 50 steps; one request every 0.5 s, a step of 0.125 s: 2 x 0.125 x
 * 151 = 37.75 blocks held, 3.775% of 1,000. Without the window the same request holds 413
 * (even_arrivals_exact_occupancy). */
static void sliding_window_blocks_leave(void **state)
{
    (void)state;
    kv_sched sc = paged(1000);
    sc.group[0].window = 32;
    sc.group[0].cap_blocks = 8; /* ceil((31 + 100) / 16) + 1: the start-up bound */
    kv_workload w = fixed(100, 50, 2.0, 125.0, 400);
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_int_equal(r.preemptions, 0);
    assert_double_equal(r.blocks_mean, 151.0 / 50.0, 1e-12);
    assert_double_equal(r.kv_usage_mean, 0.03775, 1e-9);
    assert_double_equal(r.kv_cliff_rate, 1000.0 / (151.0 * 0.125), 1e-9);
    /* chunked local attention frees the blocks before the chunk a step starts in
     * (computed // chunk x chunk): a chunk of 32, the same requests. The prompt's step 7;
     * at n = 101 .. 149 (computed n - 1) ceil(n / 16) less 6 blocks while computed < 128 and
     * 8 after: 12 x 1 + 16 x 2 + 1 + 15 x 1 + 5 x 2 = 70; 77 block-steps, 1.925% of 1,000 */
    kv_sched ch = paged(1000);
    ch.group[0].chunk = 32;
    ch.group[0].cap_blocks = 9; /* ceil(min(32 + 100, M) / 16): the start-up bound */
    assert_int_equal(run(&ch, &w, &r), KV_OK);
    assert_double_equal(r.blocks_mean, 77.0 / 50.0, 1e-12);
    assert_double_equal(r.kv_usage_mean, 0.01925, 1e-9);
    /* vLLM's groups carry the window: gpt-oss-20b's 12 sliding layers over 128 tokens free
     * their blocks, Qwen3-8B's full layers keep theirs */
    double gpt = run_get("workload_blocks_per_request_mean",
                         ARGS("--engine", "vllm", "--model", "gpt-oss-20b", "--gpu", "h100",
                              "--prompt-tokens", "1000", "--output-tokens", "500", "--rate", "2",
                              "--tpot-ms", "10"));
    double full = 0, window = 63; /* the prompt's step: ceil(1,000 / 16) */
    for (int n = 1000; n <= 1499; n++)
        full += (n + 15) / 16;
    for (int n = 1001; n <= 1499; n++)
        window += (n + 15) / 16 - (n - 128) / 16;
    assert_double_equal(gpt, (full + window) / 500.0, 1e-9);
    /* Llama-4-Scout at TP 4 (docs/workload.md): 12 full layers in one group, 36 chunked ones
     * (8,192 tokens) in three; 10,000 + 2,000 tokens: the prompt's step 625 blocks, then
     * ceil(n / 16) less the 512 blocks before the chunk; keeping every block, 4 x 687.9375 =
     * 2,751.75 */
    double scout = run_get("workload_blocks_per_request_mean",
                           ARGS("--engine", "vllm", "--model", "llama-4-scout-17b-16e-instruct",
                                "--gpu", "h100", "--tp", "4", "--context", "32768",
                                "--prompt-tokens", "10000", "--output-tokens", "2000", "--rate",
                                "1", "--tpot-ms", "20"));
    double all = 0, chunked = 625;
    for (int n = 10000; n <= 11999; n++)
        all += (n + 15) / 16;
    for (int n = 10001; n <= 11999; n++)
        chunked += (n + 15) / 16 - (n - 1) / 8192 * 8192 / 16;
    assert_double_equal(all / 2000.0, 687.9375, 1e-12);
    assert_double_equal(scout, (all + 3 * chunked) / 2000.0, 1e-9);
    assert_double_equal(scout, 1216.518, 1e-9);
}

/* A published measurement (vLLM PR #44594, njhill, 2026-06-05; ../shared/reference/
 * workload-statistics.md 5.1): Qwen2.5-7B-Instruct, one GB200, a KV cache of 299,584 tokens
 * (18,724 blocks of 16), max-model-len 8192, max-num-seqs 256, 450 random prompts of about
 * 1,000 tokens and 5,000 output tokens at --max-concurrency 128: 1,065 preemptions without
 * the watermark. kvcalc's V1 rules on that pool count 898 (16% fewer; docs/workload.md says
 * why). Without a prefill cost the count does not depend on the step time. The closed
 * loop's Little's law: rate served x time in system is the mean in the system, at most the
 * 128 clients. */
static void published_preemptions(void **state)
{
    (void)state;
#define PR44594 "--model", "qwen2.5-7b-instruct", "--engine", "vllm", "--gpu", "gb200",          \
                "--max-model-len", "8192", "--max-num-seqs", "256", "--num-gpu-blocks-override",  \
                "18724", "--prompt-tokens", "1000", "--output-tokens", "5000", "--concurrency",    \
                "128", "--requests", "450"
    double p = run_get("workload_preemptions", ARGS(PR44594, "--tpot-ms", "10"));
    assert_double_equal(p, 898, 0);
    assert_true(fabs(p - 1065) / 1065 < 0.2);
    assert_double_equal(run_get("workload_preemptions", ARGS(PR44594, "--tpot-ms", "40")), p, 0);
    /* a preempted request finds its own blocks again: with the default step of 8,192 tokens
     * its recompute takes one step either way (898 without the cache too); with 2,048 it
     * comes back over three steps, holding its blocks, unless the cache shortens it */
    assert_double_equal(run_get("workload_preemptions",
                                ARGS(PR44594, "--tpot-ms", "10", "--no-enable-prefix-caching")),
                        898, 0);
    assert_double_equal(run_get("workload_preemptions",
                                ARGS(PR44594, "--tpot-ms", "10", "--max-num-batched-tokens", "2048")),
                        994, 0);
    assert_double_equal(run_get("workload_preemptions",
                                ARGS(PR44594, "--tpot-ms", "10", "--max-num-batched-tokens", "2048",
                                     "--no-enable-prefix-caching")),
                        3208, 0);
    /* 128 x (1,000 + 5,000 / 2) = 448,000 tokens of mean demand against 299,584: "about 1.5x"
     * as the PR says; the closed loop keeps 128 in the system (Little's law holds exactly) */
    double in_system = run_get("workload_littles_law_requests", ARGS(PR44594, "--tpot-ms", "10"));
    assert_true(in_system <= 128 && in_system > 100); /* below 128: the last ones drain */
    expect_refused(ARGS("--prompt-tokens", "10", "--output-tokens", "10", "--concurrency", "4"),
                   "--concurrency: simulating clients needs --tpot-ms");
    expect_refused(ARGS("--prompt-tokens", "10", "--output-tokens", "10", "--concurrency", "4",
                        "--tpot-ms", "5", "--rate", "2"),
                   "--concurrency: a closed loop of clients sets its own arrivals; drop --rate");
#undef PR44594
}

/* --plot with a workload: the scan's eight rates as points, the JSON's saturation rate as
 * the chart's attribute; the usage climbs with the rate to the saturation. */
static void the_workload_plot(void **state)
{
    (void)state;
    char path[] = "/tmp/kvcalc-wl-XXXXXX";
    write_temp(path, "");
    run_result r;
    run_kvcalc(ARGS(AZURE_CONV, "--rate", "5", "--plot", path), &r);
    assert_int_equal(r.status, 0);
    run_free(&r);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char svg[1 << 16];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    svg[n] = '\0';
    fclose(f);
    remove(path);
    assert_non_null(strstr(svg, "<g id=\"workload\" data-saturation-rate=\""));
    double sat = run_get("workload_saturation_rate", ARGS(AZURE_CONV, "--rate", "5"));
    const char *at = strstr(svg, "data-saturation-rate=\"");
    assert_non_null(at);
    assert_double_equal(strtod(at + strlen("data-saturation-rate=\""), NULL), sat, 1e-9);
    size_t points = 0;
    double first = -1, last = -1;
    for (const char *p = strstr(svg, "<polyline id=\"kv_usage\""); p && (p = strstr(p, "data-value=\""));
         p++) {
        if (points == 8)
            break; /* the preemptions' points follow */
        double v = strtod(p + strlen("data-value=\""), NULL);
        if (points == 0)
            first = v;
        last = v;
        points++;
    }
    assert_int_equal(points, 8);
    assert_true(first < last); /* more arrivals, a fuller cache */
}

/* Bad workload input: one line naming the flag, exit 2, nothing on stdout. */
static void workload_refusals(void **state)
{
    (void)state;
    expect_refused(ARGS("--prompt-tokens", "1000"),
                   "kvcalc: --prompt-tokens: a workload needs both --prompt-tokens and "
                   "--output-tokens");
    expect_refused(ARGS("--prompt-tokens", "1000", "--output-tokens", "10", "--rate", "2"),
                   "kvcalc: --rate: simulating a rate needs --tpot-ms");
    expect_refused(ARGS("--prompt-tokens", "1000", "--output-tokens", "10", "--ttft-ms", "2"),
                   "kvcalc: --ttft-ms: applies to a simulated rate; give --rate and --tpot-ms");
    expect_refused(ARGS("--prompt-tokens", "lots", "--output-tokens", "10"),
                   "kvcalc: --prompt-tokens: expected N tokens (an integer >= 1) or two of");
    expect_refused(ARGS("--prompt-tokens", "1.5", "--output-tokens", "10"),
                   "--prompt-tokens: expected N tokens");
    expect_refused(ARGS("--prompt-tokens", "median=100", "--output-tokens", "10"),
                   "--prompt-tokens: no log-normal has median=100 (give exactly two of mean, "
                   "median and p99");
    expect_refused(ARGS("--prompt-tokens", "median=100,p99=50", "--output-tokens", "10"),
                   "no log-normal has median=100,p99=50");
    expect_refused(ARGS("--prompt-tokens", "median=100,median=200", "--output-tokens", "10"),
                   "--prompt-tokens: expected N tokens");
    expect_refused(ARGS("--prompt-tokens", "mean=x,median=1", "--output-tokens", "10"),
                   "--prompt-tokens: mean must be a number from 1 to 10^15, got 'x'");
    expect_refused(ARGS("--prompt-tokens", "100", "--output-tokens", "10", "--rate", "0",
                        "--tpot-ms", "5"),
                   "--rate: expected a finite number > 0");
    expect_refused(ARGS("--prompt-tokens", "100", "--output-tokens", "10", "--engine", "trtllm"),
                   "kvcalc: --engine trtllm: TensorRT-LLM's scheduler is not simulated (the "
                   "workload runs on: ideal, vllm, sglang, llama.cpp, ollama)");
    expect_refused(ARGS("--prompt-tokens", "5000", "--output-tokens", "10"),
                   "kvcalc: --prompt-tokens / --output-tokens: every request is longer than "
                   "the engine's context (4096 tokens)");
    expect_refused(ARGS("--prompt-tokens", "100", "--output-tokens", "10", "--sweep",
                        "context=1024,2048"),
                   "a workload does not combine with --sweep");
    expect_refused(ARGS("--prompt-tokens", "100", "--output-tokens", "10", "--format", "csv"),
                   "--format csv: prints the context table only; a workload needs");
    expect_refused(ARGS("--get", "workload_running_mean"),
                   "--get: workload_running_mean needs --prompt-tokens and --output-tokens");
    expect_refused(ARGS("--prompt-tokens", "100", "--output-tokens", "10", "--engine", "vllm",
                        "--speculative-config", "{\"method\":\"ngram\",\"num_speculative_tokens\":3}"),
                   "speculative decoding's accepted tokens per step are not modelled");
}

/* --progress with a simulated workload: the runs on stderr (the first, "of at most" the 19
 * the rate and the onset search can take), the line ended; stdout as without it. */
static void workload_progress(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc(ARGS(LESSON_WORKLOAD, "--progress", "--get", "workload_running_mean"), &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "\rkvcalc: workload: run 1 of at most 19, 100000 request-steps"));
    assert_true(r.err_len > 0 && r.err[r.err_len - 1] == '\n');
    double with = strtod(r.out, NULL);
    run_free(&r);
    assert_double_equal(with, run_get("workload_running_mean", ARGS(LESSON_WORKLOAD)), 0);
    expect_refused(ARGS("--prompt-tokens", "10", "--output-tokens", "10", "--progress"),
                   "--progress: shows a sweep's or a simulation's progress");
}

/* Lengths only: the closed forms, no run (and the run's keys null). */
static void lengths_only(void **state)
{
    (void)state;
    run_result r;
    run_kvcalc(ARGS("--prompt-tokens", "1000", "--output-tokens", "100", "--get",
                    "workload_running_mean"), &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "null\n");
    run_free(&r);
    assert_double_equal(run_get("workload_fit_requests",
                                ARGS("--prompt-tokens", "1000", "--output-tokens", "100")),
                        617189.0 / 1049.5, 1e-9);
    run_kvcalc(ARGS("--prompt-tokens", "1000", "--output-tokens", "100"), &r);
    assert_non_null(strstr(r.out, "(give --rate for occupancy, queueing and preemptions, with "
                                  "--tpot-ms or a --gpu whose memory bandwidth kvcalc knows)"));
    run_free(&r);
}

/* ---- the step's memory-bandwidth roofline (issue 21, item 1; docs/workload.md) ---- */

/* A roofline by hand on paged(1000): weights W = 16 GB, bandwidth B = 2,000 GB/s, k = 10^6
 * bytes a block. Prompt 100, output 50: S = 413 block-steps a request (above), 8.26 blocks
 * on average. At 2 req/s Little's law holds 2 x 413 x t blocks, so t = W / (B - 2 x 413 x k)
 * = 16e9 / (2e12 - 826e6) = 8.0331...ms, 2 x 50 x t = 0.8033 running. Evenly spaced, one
 * request runs alone for its 50 steps: 50 t in the system, and Little's law's 2 x 50 t in the
 * simulation is that same 0.8033. The
 * KV cliff at its own step, the pool's 1,000 blocks read: t = (16e9 + 1e9) / 2e12 = 8.5 ms,
 * 1,000 / (413 x 0.0085) = 284.87 req/s. Far above it (5,000 req/s: 5,000 x 413 x k = 2.065e12
 * B/s of cache alone, more than B), the pool is full: t = 8.5 ms, fit = 1,000 / 8.26
 * requests. Three clients in a closed loop: (16e9 + 3 x 8.26 x 1e6) / 2e12. */
static void roofline_by_hand(void **state)
{
    (void)state;
    kv_sched sc = paged(1000);
    kv_workload w = fixed(100, 50, 2.0, 0, 200);
    w.roofline = (kv_roofline){.gpu = "test GPU", .form = "", .bandwidth = 2e12,
                               .weights_bytes = 16e9, .block_bytes = 1e6};
    kv_workload_result r;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    double t = 16e9 / (2e12 - 2.0 * 413.0 * 1e6);
    assert_int_equal(r.step_estimated, 1);
    assert_double_equal(r.step_s, t, 1e-15);
    assert_double_equal(r.step_running, 2.0 * 50.0 * t, 1e-12);
    assert_double_equal(r.step_kv_bytes, 2.0 * 413.0 * t * 1e6, 1e-3);
    assert_double_equal(r.time_in_system_s, 50.0 * t, 1e-12);
    assert_double_equal(r.littles_law_requests, r.step_running, 1e-12);
    assert_double_equal(r.kv_cliff_rate, 1000.0 / (413.0 * 0.0085), 1e-9);
    assert_string_equal(r.step_roofline.gpu, "test GPU");
    assert_non_null(strstr(r.step_assumes, "compute, the kernels' efficiency, communication and "
                                           "prefill are not counted"));
    assert_null(strstr(r.step_assumes, "MoE"));
    w.rate = 5000;
    w.roofline.moe = 1;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_double_equal(r.step_s, 0.0085, 1e-15);
    assert_double_equal(r.step_running, 1000.0 / 8.26, 1e-9);
    assert_non_null(strstr(r.step_assumes, "every MoE expert is counted read each step"));
    w.rate = 0;
    w.concurrency = 3;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_double_equal(r.step_s, (16e9 + 3.0 * 8.26 * 1e6) / 2e12, 1e-15);
    assert_double_equal(r.step_running, 3.0, 1e-12);
    /* a given step is not an estimate, whatever the roofline says */
    w.tpot_ms = 10;
    assert_int_equal(run(&sc, &w, &r), KV_OK);
    assert_int_equal(r.step_estimated, 0);
    assert_double_equal(r.step_s, 0.010, 1e-15);
    assert_null(r.step_assumes);
    assert_true(isnan(r.step_kv_bytes));
    /* no roofline, no step: refused as before */
    w.tpot_ms = 0;
    w.roofline.bandwidth = 0;
    assert_int_equal(run(&sc, &w, &r), KV_ERR_WORKLOAD);
}

/* Every GPU's bandwidth is a figure of data/gpus/SOURCES.md or 0: the two Hygon DCUs no
 * figure was found for (the BW1000's is not disclosed; the Z100L's only a third party's
 * "~1 TB/s" estimate); the H100 80GB row is its SXM form's 3,350 GB/s. */
static void gpu_bandwidths(void **state)
{
    (void)state;
    for (size_t i = 0; i < kv_gpu_count(); i++) {
        const kv_gpu *g = kv_gpu_at(i);
        int none = strcmp(g->name, "Hygon BW1000") == 0 || strcmp(g->name, "Hygon Z100L") == 0;
        if ((g->bandwidth_gbs == 0) != none || g->bandwidth_gbs < 0 || !g->bandwidth_form)
            fail_msg("%s: bandwidth %g GB/s", g->name, g->bandwidth_gbs);
    }
    const kv_gpu *h100 = kv_gpu_find("h100");
    assert_double_equal(h100->bandwidth_gbs, 3350, 0);
    assert_string_equal(h100->bandwidth_form, "SXM");
    assert_double_equal(kv_gpu_find("mi250x")->bandwidth_gbs, 1600, 0); /* one GCD */
    assert_double_equal(kv_gpu_find("b200")->bandwidth_gbs, 7700, 0);
}

/* Qwen3-8B on one H100 (3,350 GB/s), vLLM. Its weights: the config's 8,190,735,360
 * parameters (36 layers of q 4,096 x 4,096, k and v 4,096 x 1,024, o 4,096 x 4,096, the MLP
 * 3 x 4,096 x 12,288, norms 2 x 4,096 + 2 x 128: 192,946,432 each; embeddings and head
 * 2 x 151,936 x 4,096; the final norm 4,096) x 2 B = 16,381,470,720 B. A block: 16 tokens x
 * 147,456 B = 2,359,296 B. One client, prompt 100, output 1: its one step holds ceil(100 /
 * 16) = 7 blocks, so a step is (16,381,470,720 + 7 x 2,359,296) / 3.35e12 = 4.8949 ms. At
 * 5 req/s of prompt 1,000, output 100: the steps hold ceil((999 + j) / 16), j = 1..100: 9 x
 * 63 + 16 x (64 + .. + 68) + 11 x 69 = 6,606 block-steps, so t = 16,381,470,720 / (3.35e12 -
 * 5 x 6,606 x 2,359,296) = 5.0065 ms, reading 5 x 6,606 x 2,359,296 x t = 0.39 GB of cache
 * held by 5 x 100 x t = 2.5 running requests. */
#define QWEN_H100 "--model", "qwen3-8b", "--gpu", "h100", "--engine", "vllm"
static void roofline_qwen3_8b_h100(void **state)
{
    (void)state;
    assert_double_equal(run_get("weights_bytes", ARGS(QWEN_H100)), 16381470720.0, 0);
#define ONE_CLIENT QWEN_H100, "--prompt-tokens", "100", "--output-tokens", "1", \
                   "--concurrency", "1", "--requests", "10"
    assert_double_equal(run_get("workload_step_s", ARGS(ONE_CLIENT)),
                        (16381470720.0 + 7.0 * 2359296.0) / 3.35e12, 1e-15);
    assert_double_equal(run_get("workload_step_weights_bytes", ARGS(ONE_CLIENT)), 16381470720.0,
                        0);
    assert_double_equal(run_get("workload_step_kv_bytes", ARGS(ONE_CLIENT)), 7.0 * 2359296.0,
                        1e-6);
    assert_double_equal(run_get("workload_step_bandwidth", ARGS(ONE_CLIENT)), 3.35e12, 0);
#define AT_FIVE QWEN_H100, "--prompt-tokens", "1000", "--output-tokens", "100", "--rate", "5"
    double t = 16381470720.0 / (3.35e12 - 5.0 * 6606.0 * 2359296.0);
    assert_double_equal(run_get("workload_step_s", ARGS(AT_FIVE)), t, 1e-15);
    assert_double_equal(run_get("workload_step_running", ARGS(AT_FIVE)), 5.0 * 100.0 * t, 1e-9);
    /* the KV cliff at its own step: the pool's 22,898 blocks read, (16,381,470,720 + 22,898 x
     * 2,359,296) / 3.35e12 = 21.02 ms, and 22,898 / (6,606 x 0.02102) = 164.93 req/s */
    double t_kv = (16381470720.0 + 22898.0 * 2359296.0) / 3.35e12;
    assert_double_equal(t_kv, 0.02102, 0.000005);
    assert_double_equal(run_get("workload_kv_cliff_rate", ARGS(AT_FIVE)), 22898.0 / (6606.0 * t_kv),
                        1e-9);
    assert_double_equal(22898.0 / (6606.0 * t_kv), 164.93, 0.005);
    /* the text labels it, with what it assumes; JSON's sources say it is an estimate */
    run_result r;
    run_kvcalc(ARGS(AT_FIVE), &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  step    : 5.006 ms, estimated from the memory-bandwidth "
                                  "roofline of one H100 80GB (SXM):\n"
                                  "            (weights 16.38 GB + KV 0.39 GB of 2.5 running "
                                  "requests) / 3,350 GB/s\n"
                                  "            (an estimate: the memory-bandwidth roofline of "
                                  "one GPU: a decode step reads the weights on it once"));
    assert_non_null(strstr(r.out, "compute, the kernels' efficiency, communication and prefill "
                                  "are not counted"));
    assert_non_null(strstr(r.out, "  at 5.000 req/s (Poisson), a step 5.006 ms (estimated):\n"));
    run_free(&r);
    run_kvcalc(ARGS(AT_FIVE, "--format", "json"), &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"workload_step_estimated\": true,"));
    assert_non_null(strstr(r.out, "\"workload_step_gpu\": \"H100 80GB\",\n"
                                  "  \"workload_step_gpu_form\": \"SXM\","));
    assert_non_null(strstr(r.out, "\"workload_step_assumes\": \"the memory-bandwidth roofline"));
    assert_non_null(strstr(r.out, ",\n    \"workload_step_s\": \"estimate\"\n  },"));
    run_free(&r);
    /* a given step: the flag's, no estimate */
    run_kvcalc(ARGS(AT_FIVE, "--tpot-ms", "30", "--format", "json"), &r);
    assert_non_null(strstr(r.out, "\"workload_step_s\": 0.03,"));
    assert_non_null(strstr(r.out, "\"workload_step_estimated\": false,"));
    assert_non_null(strstr(r.out, "\"workload_step_assumes\": null,"));
    assert_non_null(strstr(r.out, ",\n    \"workload_step_s\": \"flag\"\n  },"));
    run_free(&r);
    /* lengths only: no step to name */
    run_kvcalc(ARGS(QWEN_H100, "--prompt-tokens", "1000", "--output-tokens", "100", "--format",
                    "json"), &r);
    assert_null(strstr(r.out, "\"workload_step_s\": \""));
    run_free(&r);
    /* a MoE model: every expert read, and said so */
    run_kvcalc(ARGS("--model", "qwen3-30b-a3b", "--gpu", "h100", "--engine", "vllm",
                    "--prompt-tokens", "1000", "--output-tokens", "100", "--rate", "1"), &r);
    assert_non_null(strstr(r.out, "; every MoE expert is counted read each step (a small batch "
                                  "reads fewer))\n"));
    run_free(&r);
#undef ONE_CLIENT
#undef AT_FIVE
}

/* The estimate is refused, naming --tpot-ms, where it cannot stand for the step: no GPU, a
 * GPU whose bandwidth is not known, pipeline stages, weights read from host memory. */
static void roofline_refusals(void **state)
{
    (void)state;
#define LENGTHS "--prompt-tokens", "1000", "--output-tokens", "100"
    expect_refused(ARGS(LENGTHS, "--rate", "2"),
                   "kvcalc: --rate: simulating a rate needs --tpot-ms (the time of one engine "
                   "step, ms), or a --gpu whose memory bandwidth kvcalc knows to estimate it");
    expect_refused(ARGS(LENGTHS, "--gpu", "bw1000", "--rate", "2"),
                   "kvcalc: --rate: simulating a rate needs --tpot-ms (the time of one engine "
                   "step, ms): the memory bandwidth of Hygon BW1000 (--gpu) is not known, so "
                   "kvcalc cannot estimate it (data/gpus/SOURCES.md)");
    expect_refused(ARGS(LENGTHS, "--gpu", "z100l", "--concurrency", "4"),
                   "kvcalc: --concurrency: simulating clients needs --tpot-ms (the time of one "
                   "engine step, ms): the memory bandwidth of Hygon Z100L (--gpu) is not known");
    expect_refused(ARGS(QWEN_H100, LENGTHS, "--pp", "2", "--rate", "2"),
                   "kvcalc: --rate: simulating a rate needs --tpot-ms (the time of one engine "
                   "step, ms): kvcalc cannot estimate it, as the roofline times one GPU's reads, "
                   "and with pipeline parallelism a step passes its 2 stages in turn");
    expect_refused(ARGS(QWEN_H100, LENGTHS, "--cpu-offload-gb", "4", "--rate", "2"),
                   "kvcalc cannot estimate it, as vLLM reads part of its weights or cache from "
                   "host memory each step (4.00 GiB)");
    expect_refused(ARGS("--model", "qwen3-8b", "--gpu", "rtx4090", "--engine", "llama.cpp",
                        "--n-gpu-layers", "20", LENGTHS, "--rate", "2"),
                   "as llama.cpp reads part of its weights or cache from host memory each step");
    /* each works with the step given */
    assert_double_equal(run_get("workload_step_s", ARGS(QWEN_H100, LENGTHS, "--pp", "2", "--rate",
                                                        "2", "--tpot-ms", "20")),
                        0.020, 0);
#undef LENGTHS
}
#undef QWEN_H100

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(even_arrivals_exact_occupancy),
        cmocka_unit_test(littles_law_and_seed),
        cmocka_unit_test(above_the_cliff_preempts),
        cmocka_unit_test(preempted_request_finds_its_blocks),
        cmocka_unit_test(sliding_window_blocks_leave),
        cmocka_unit_test(running_cap_binds_first),
        cmocka_unit_test(onset_search_is_bounded),
        cmocka_unit_test(longer_than_the_context_is_refused),
        cmocka_unit_test(slots_truncate_and_refuse),
        cmocka_unit_test(ollama_slots),
        cmocka_unit_test(capped_and_fixed_groups),
        cmocka_unit_test(lognormal_fits),
        cmocka_unit_test(engine_schedulers),
        cmocka_unit_test(sglang_prefill_alone_and_retraction),
        cmocka_unit_test(sglang_pages),
        cmocka_unit_test(vllm_prefix_cache),
        cmocka_unit_test(sglang_radix_prefix),
        cmocka_unit_test(llamacpp_slot_reuse),
        cmocka_unit_test(azure_trace_reads_whole),
        cmocka_unit_test(trace_layouts_and_errors),
        cmocka_unit_test(trace_through_the_program),
        cmocka_unit_test(the_docs_first_example),
        cmocka_unit_test(the_docs_vllm_example),
        cmocka_unit_test(published_preemptions),
        cmocka_unit_test(the_workload_plot),
        cmocka_unit_test(workload_refusals),
        cmocka_unit_test(lengths_only),
        cmocka_unit_test(workload_progress),
        cmocka_unit_test(roofline_by_hand),
        cmocka_unit_test(gpu_bandwidths),
        cmocka_unit_test(roofline_qwen3_8b_h100),
        cmocka_unit_test(roofline_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
