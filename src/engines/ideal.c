/*
 * ideal.c - the lesson's engine: every free byte holds KV, packed perfectly.
 *
 * Its answer is the lesson's floor(free / per request), already in the result as the ideal
 * figures; this engine only adopts them. With it, kvcalc prints the lesson's table byte for
 * byte.
 */
#include "engine.h"

#include <math.h>

#include "kvmath.h"

static void ideal_defaults(kv_spec *s)
{
    (void)s; /* the lesson's arithmetic has no inputs of its own */
}

static kv_status ideal_check(const kv_spec *s, kv_error *why)
{
    return kv_csa_check_dtype(s, why); /* DeepSeek-V4's entries are fp8_ds_mla's */
}

static double ideal_at(const kv_spec *s, const kv_result *r, int64_t context,
                       double request_bytes)
{
    (void)s;
    (void)context;
    return r->room ? kv_floordiv(r->free_kv_bytes, request_bytes) : 0.0;
}

/* The longest context whose request fits the free memory. Request bytes never shrink as the
 * context grows, so a binary search always answers (unsigned: the range reaches 2^63 - 1);
 * but past every window the bytes are linear, fixed + per_token x c, so the answer is
 * usually floor((free - fixed) / per_token), checked with two evaluations - a sweep point
 * must not pay 63 of them. */
static int64_t longest_fit(const kv_result *r)
{
    if (!r->room)
        return 0;
    double fixed = 0, per_token = 0;
    int64_t widest = 0;
    for (size_t i = 0; i < r->n_groups; i++) {
        const kv_group *g = &r->groups[i];
        if (g->kind == KV_LAYER_FULL)
            per_token += g->bytes_per_token;
        else if (g->kind == KV_LAYER_STATE)
            fixed += g->bytes_fixed;
        else {
            fixed += g->bytes_per_token * (double)g->tokens_max;
            widest = g->tokens_max > widest ? g->tokens_max : widest;
        }
    }
    if (per_token > 0) {
        double guess = kvm_floor((r->free_kv_bytes - fixed) / per_token);
        if (guess >= (double)widest && guess < 9.2e18) {
            int64_t c = (int64_t)guess;
            if (kv_groups_request_bytes(r, c) <= r->free_kv_bytes &&
                kv_groups_request_bytes(r, c + 1) > r->free_kv_bytes)
                return c;
        }
    }
    uint64_t lo = 0, hi = (uint64_t)INT64_MAX;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (kv_groups_request_bytes(r, (int64_t)mid) <= r->free_kv_bytes)
            lo = mid;
        else
            hi = mid - 1;
    }
    return (int64_t)lo;
}

/* The lesson's pool is every free byte; it has no token count of its own. */
static kv_status ideal_compute(const kv_spec *s, kv_result *r)
{
    (void)s;
    r->max_concurrency = r->ideal_max_concurrency;
    r->engine_version[0] = '\0';
    r->available_kv_bytes = r->free_kv_bytes;
    r->kv_cache_bytes = r->room ? r->free_kv_bytes : 0;
    r->kv_cache_tokens = 0;
    r->longest_context_fit = longest_fit(r);
    r->longest_context_any = r->longest_context_fit == INT64_MAX;
    return KV_OK;
}

/* The lesson's pool under load: every free byte holds tokens, one token a block, no cap on
 * requests or on a step's tokens; the newest request gives way when the pool is full. Only
 * for caches that grow linearly (a window or a state has no place in the lesson's pool). */
static kv_status ideal_sched(const kv_spec *s, const kv_result *r, kv_sched *out, kv_error *why)
{
    out->kind = KV_SCHED_PAGED;
    out->engine_title = "the lesson";
    out->rules = "kvcalc's ideal pool: tokens on demand, first come first served, the newest "
                 "request recomputed when the pool is full";
    double tokens = r->room && r->kv_bytes_per_token > 0 ? kvm_floor(r->free_kv_bytes / r->kv_bytes_per_token) : 0;
    if (r->growth != KV_GROWTH_LINEAR)
        return kv_sched_refuse(why, "the lesson's pool simulates caches that grow with every "
                                    "token; this model's windows or states need an engine's "
                                    "rules (--engine vllm)");
    if (tokens < 1 || tokens > 9e18)
        return kv_sched_refuse(why, "the lesson's pool holds no token: nothing to simulate");
    out->pool_blocks = (int64_t)tokens;
    out->group[0] = (kv_sched_group){.groups = 1, .block_size = 1};
    out->n_groups = 1;
    out->max_seqs_name = "requests";
    out->max_model_len = s->context;
    out->preempt_word = "preemptions";
    out->unit = "tokens";
    out->left_out = "any engine's caps and blocks (the lesson's pool); a step takes one "
                    "tpot (given or estimated) whatever its batch";
    return KV_OK;
}

const kv_engine_desc kv_engine_ideal = {
    .id = KV_ENGINE_IDEAL,
    .title = "the lesson",
    .defaults = ideal_defaults,
    .check = ideal_check,
    .compute = ideal_compute,
    .concurrency_at = ideal_at,
    .kv8_name = "fp8",
    .sched = ideal_sched,
};
