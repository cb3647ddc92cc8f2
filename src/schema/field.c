/*
 * field.c - the outputs as one list: every top-level value of a run's JSON document, each
 * row saying where its value lives (which struct, which member, checked against the
 * member's C type) instead of holding code to fetch it. The spec's and the result's rows
 * are here; each engine's come from its descriptor; then the plan's and the layouts'. A
 * --from-log document has its own short list.
 */
#include "engine.h"

#include <math.h>
#include <string.h>

#define ROW(from, S, name, m, T, unit, type, sweep, flags)                                  \
    {#name, unit, from, KV_ENGINE_COUNT, type, KV_MEMBER(S, m, T), sweep, flags}
#define R(name, T, unit, type) ROW(KV_FROM_RESULT, kv_result, name, name, T, unit, type, 0, 0)
#define RI(name, unit) R(name, int64_t, unit, KV_F_INT)
#define RN(name, unit) R(name, double, unit, KV_F_NUM)
#define RB(name) R(name, int, "boolean", KV_F_BOOL)
#define RSWEEP(name, T, unit, type, rank, flags)                                            \
    ROW(KV_FROM_RESULT, kv_result, name, name, T, unit, type, rank, flags)
#define S(name, m, T, unit, type) ROW(KV_FROM_SPEC, kv_spec, name, m, T, unit, type, 0, 0)
#define P(name, m, T, unit, type) ROW(KV_FROM_PLAN, kv_plan, name, m, T, unit, type, 0, 0)
#define L(name, m, T, unit, type) ROW(KV_FROM_LAYOUTS, kv_layouts, name, m, T, unit, type, 0, 0)
#define W(name, m, T, unit, type)                                                           \
    ROW(KV_FROM_WORKLOAD, kv_workload_result, workload_##name, m, T, unit, type, 0, 0)
#define WN(name, m, unit) W(name, m, double, unit, KV_F_NUM_OR_NULL)
#define MT(name, m, T, unit, type)                                                          \
    ROW(KV_FROM_METRICS, kv_metrics_comparison, metrics_##name, m, T, unit, type, 0, 0)
#define MN(name, m, unit) MT(name, m, double, unit, KV_F_NUM_OR_NULL)
#define WI(name, m, unit) W(name, m, int64_t, unit, KV_F_INT)

static const kv_field head[] = {
    {"schema_version", "integer", KV_FROM_CONST, KV_ENGINE_COUNT, KV_F_SCHEMA, 0, 0, 0},
    {"version", "string", KV_FROM_CONST, KV_ENGINE_COUNT, KV_F_VERSION, 0, 0, 0},
    S(engine, engine, kv_engine, "string", KV_F_ENGINE_NAME),
    RSWEEP(kv_bytes_per_token, double, "bytes", KV_F_NUM, 1, 0),
    RSWEEP(kv_bytes_per_request, double, "bytes", KV_F_NUM, 2, 0),
    S(context, context, int64_t, "tokens", KV_F_INT),
    RSWEEP(max_concurrency, double, "requests", KV_F_NUM, 4, 0),
    RSWEEP(fits, int, "boolean", KV_F_BOOL, 5, 0),
    R(engine_version, char *, "string", KV_F_TEXT),
    RN(available_kv_bytes, "bytes"),
    RN(kv_cache_bytes, "bytes"),
    R(kv_cache_tokens, int64_t, "tokens", KV_F_INT_OR_NULL),
    RI(longest_context_fit, "tokens"),
    RSWEEP(ideal_max_concurrency, double, "requests", KV_F_NUM, 6, KV_FIELD_BESIDE_ENGINE),
    RB(ideal_fits),
    RN(gpu_mem_bytes, "bytes"),
    RN(weights_bytes, "bytes"),
    RN(overhead_bytes, "bytes"),
    RSWEEP(free_kv_bytes, double, "bytes", KV_F_NUM, 3, 0),
    RN(prefix_saved_bytes, "bytes"),
    RN(prefix_extra_concurrency, "requests"),
    S(kv_dtype_bytes, dtype, kv_dtype, "bytes", KV_F_DTYPE_BYTES),
    S(weight_dtype_bytes, weight_dtype, kv_dtype, "bytes", KV_F_DTYPE_BYTES),
    S(model, model_name, const char *, "string", KV_F_STR),
    S(source, model_source, const char *, "string", KV_F_STR),
    S(weights_source, weights_source, int, "string", KV_F_WEIGHTS_SOURCE),
    S(checkpoint_tower_bytes, checkpoint_tower_bytes, double, "bytes", KV_F_NUM),
    S(checkpoint_mtp_bytes, checkpoint_mtp_bytes, double, "bytes", KV_F_NUM),
    S(gpu, gpu_name, const char *, "string", KV_F_STR),
    RN(params, "parameters"),
    S(params_estimated, params_estimated, int, "boolean", KV_F_BOOL),
    S(max_position_embeddings, max_context, int64_t, "tokens", KV_F_INT_OR_NULL),
    S(tensor_parallel_size, tp, int64_t, "GPUs", KV_F_INT),
    S(pipeline_parallel_size, pp, int64_t, "stages", KV_F_INT),
    S(data_parallel_size, dp, int64_t, "replicas", KV_F_INT),
    RI(pp_stage, "stage"),
    RI(pp_stage_layers, "layers"),
    RN(deployment_max_concurrency, "requests"),
    RI(kv_heads_per_gpu, "heads"),
    RN(kv_bytes_per_request_group, "bytes"),
    RN(weights_bytes_group, "bytes"),
    RN(host_bytes, "bytes"),
    RB(host_short),
    RN(host_reserve_bytes, "bytes"),
};

static const kv_field tail[] = {
    P(target_concurrency, target, int64_t, "requests", KV_F_INT),
    P(kv_bytes_needed, kv_bytes_needed, double, "bytes", KV_F_NUM),
    P(total_bytes_needed, total_bytes_needed, double, "bytes", KV_F_NUM),
    P(fits_one_gpu, fits_one_gpu, int, "boolean", KV_F_BOOL),
    P(replicas, replicas, int64_t, "replicas", KV_F_INT_OR_NULL),
    P(gpus_needed, gpus_needed, int64_t, "GPUs", KV_F_INT_OR_NULL),
    P(smallest_gpu, smallest_gpu_name, const char *, "string", KV_F_STR),
    L(gpus, gpus, int64_t, "GPUs", KV_F_INT),
    L(best_tensor_parallel_size, best_tp, int64_t, "GPUs", KV_F_INT_OR_NULL),
    L(best_pipeline_parallel_size, best_pp, int64_t, "stages", KV_F_INT_OR_NULL),
    L(best_data_parallel_size, best_dp, int64_t, "replicas", KV_F_INT_OR_NULL),
    L(best_deployment_max_concurrency, best_deployment_max_concurrency, double, "requests",
      KV_F_NUM),
    /* a workload (--prompt-tokens, --output-tokens, --rate, ...) */
    W(scheduler, rules_engine, const char *, "string", KV_F_STR),
    W(left_out, left_out, const char *, "string", KV_F_STR),
    WN(prompt_tokens_mean, prompt_mean, "tokens"),
    WN(output_tokens_mean, output_mean, "tokens"),
    WN(blocks_per_request_mean, blocks_mean, "blocks"),
    WN(fit_requests, fit_requests, "requests"),
    WN(step_s, step_s, "seconds"),
    W(step_estimated, step_estimated, int, "boolean", KV_F_BOOL),
    W(step_gpu, step_roofline.gpu, const char *, "string", KV_F_STR),
    W(step_gpu_form, step_roofline.form, const char *, "string", KV_F_STR),
    WN(step_bandwidth, step_roofline.bandwidth, "bytes/s"),
    WN(step_weights_bytes, step_roofline.weights_bytes, "bytes"),
    WN(step_kv_bytes, step_kv_bytes, "bytes"),
    WN(step_running, step_running, "requests"),
    W(step_assumes, step_assumes, const char *, "string", KV_F_STR),
    WN(kv_cliff_rate, kv_cliff_rate, "requests/s"),
    WN(seq_cliff_rate, seq_cliff_rate, "requests/s"),
    WN(prefill_cliff_rate, prefill_cliff_rate, "requests/s"),
    WN(saturation_rate, saturation_rate, "requests/s"),
    W(binding, binding, const char *, "string", KV_F_STR),
    WN(rate, rate, "requests/s"),
    W(concurrency, concurrency, int64_t, "requests", KV_F_INT_OR_NULL),
    WI(requests, requests, "requests"),
    WI(rejected, rejected, "requests"),
    WI(truncated, truncated, "requests"),
    WI(preemptions, preemptions, "events"),
    WN(preemptions_per_s, preemptions_per_s, "events/s"),
    WN(running_mean, running_mean, "requests"),
    WN(waiting_mean, waiting_mean, "requests"),
    WN(kv_usage_mean, kv_usage_mean, "fraction"),
    WN(kv_usage_p99, kv_usage_p99, "fraction"),
    WN(time_in_system_s, time_in_system_s, "seconds"),
    WN(ttft_s, ttft_s, "seconds"),
    WN(littles_law_requests, littles_law_requests, "requests"),
    WN(duration_s, duration_s, "seconds"),
    WN(preemption_onset_rate, preemption_onset_rate, "requests/s"),
    W(onset_cut, onset_cut, int, "boolean", KV_F_BOOL),
    W(replicas, replicas, int64_t, "replicas", KV_F_INT_OR_NULL),
    WI(request_steps, request_steps, "steps"),
    WI(prefix_blocks, prefix_blocks, "blocks"),
    WN(prefix_hit_rate, prefix_hit_rate, "fraction"),
    /* --from-metrics: what a scrape measured, and kvcalc's figure beside it */
    MT(engine, engine, kv_engine, "string", KV_F_ENGINE_NAME),
    MT(generation, generation, const char *, "string", KV_F_STR),
    MT(model, model, const char *, "string", KV_F_STR),
    MT(scrapes, scrapes, int64_t, "scrapes", KV_F_INT_OR_NULL),
    MN(interval_s, interval_s, "seconds"),
    MN(capacity_tokens, capacity_tokens, "tokens"),
    MN(predicted_capacity_tokens, predicted_capacity_tokens, "tokens"),
    MN(capacity_error_pct, capacity_error_pct, "percent"),
    MN(running, running, "requests"),
    MN(predicted_running, predicted_running, "requests"),
    MN(waiting, waiting, "requests"),
    MN(predicted_waiting, predicted_waiting, "requests"),
    MN(kv_usage, kv_usage, "fraction"),
    MN(predicted_kv_usage, predicted_kv_usage, "fraction"),
    MN(preemptions, preemptions, "events"),
    MN(preemptions_per_s, preemptions_per_s, "events/s"),
    MN(predicted_preemptions_per_s, predicted_preemptions_per_s, "events/s"),
    MN(prompt_tokens_mean, prompt_mean, "tokens"),
    MN(output_tokens_mean, output_mean, "tokens"),
    MN(rate, rate, "requests/s"),
    MN(tpot_s, tpot_s, "seconds"),
    MN(ttft_s, ttft_s, "seconds"),
    MN(e2e_s, e2e_s, "seconds"),
    MN(queue_s, queue_s, "seconds"),
    MN(prefix_hit_rate, prefix_hit_rate, "fraction"),
    MN(saturation_rate, saturation_rate, "requests/s"),
    MN(onset_rate, onset_rate, "requests/s"),
    MT(binding, binding, const char *, "string", KV_F_STR),
};

#define G(name, m, T, unit, type) ROW(KV_FROM_LOG, kv_comparison, name, m, T, unit, type, 0, 0)
static const kv_field log_fields[] = {
    G(engine, engine, kv_engine, "string", KV_F_ENGINE_NAME),
    G(engine_version, engine_version, char *, "string", KV_F_TEXT),
    G(log_era, era, char *, "string", KV_F_TEXT),
    G(logged_model, model, char *, "string", KV_F_TEXT),
    G(startups, startups, int64_t, "startups", KV_F_INT),
    G(what_if, what_if, int, "boolean", KV_F_BOOL),
    G(log_lines, log_lines, int64_t, "lines", KV_F_INT),
    G(log_lines_skipped, log_lines_skipped, int64_t, "lines", KV_F_INT),
    G(logged_available_kv_bytes, logged_available_kv_bytes, double, "bytes", KV_F_NUM_OR_NULL),
    G(logged_kv_cache_tokens, logged_kv_cache_tokens, double, "tokens", KV_F_NUM_OR_NULL),
    G(logged_weights_bytes, logged_weights_bytes, double, "bytes", KV_F_NUM_OR_NULL),
    G(logged_gpu_mem_bytes, logged_gpu_mem_bytes, double, "bytes", KV_F_NUM_OR_NULL),
    G(kv_cache_tokens, kv_cache_tokens, double, "tokens", KV_F_NUM_OR_NULL),
    G(available_kv_bytes, available_kv_bytes, double, "bytes", KV_F_NUM_OR_NULL),
    G(kv_budget_error_pct, kv_budget_error_pct, double, "percent", KV_F_NUM_OR_NULL),
};

#define COUNT(a) (sizeof a / sizeof a[0])

size_t kv_field_count(void)
{
    size_t n = COUNT(head) + COUNT(tail);
    for (int e = 0; e < KV_ENGINE_COUNT; e++)
        n += kv_engine_get((kv_engine)e)->n_fields;
    return n;
}

const kv_field *kv_field_at(size_t i)
{
    if (i < COUNT(head))
        return &head[i];
    i -= COUNT(head);
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        const kv_engine_desc *d = kv_engine_get((kv_engine)e);
        if (i < d->n_fields)
            return &d->fields[i];
        i -= d->n_fields;
    }
    return i < COUNT(tail) ? &tail[i] : NULL;
}

size_t kv_log_field_count(void)
{
    return COUNT(log_fields);
}

const kv_field *kv_log_field_at(size_t i)
{
    return i < COUNT(log_fields) ? &log_fields[i] : NULL;
}

const kv_field *kv_field_find(const char *name)
{
    size_t n = kv_field_count();
    for (size_t i = 0; i < n; i++)
        if (strcmp(kv_field_at(i)->name, name) == 0)
            return kv_field_at(i);
    for (size_t i = 0; i < COUNT(log_fields); i++)
        if (strcmp(log_fields[i].name, name) == 0)
            return &log_fields[i];
    return NULL;
}

int kv_field_is_numeric(const kv_field *f)
{
    return strcmp(f->unit, "string") != 0;
}

/* The names of kv_weights_source values in the document (null: given). */
static const char *const weights_sources[] = {NULL, "gguf", "safetensors", "estimate",
                                              "estimate"};

kv_field_value kv_field_get(const kv_field *f, const void *base)
{
    kv_field_value v = {KV_VAL_NUM, 0, 0, 0, NULL, 0};
    const char *at = f->from == KV_FROM_CONST ? "" : (const char *)base;
    int e;
    kv_dtype t;
    if (!at) {
        v.kind = kv_field_is_numeric(f) ? KV_VAL_NUM : KV_VAL_STR;
        v.is_null = 1;
        return v;
    }
    /* an engine's field is a member of its result, inside kv_result's engine space */
    at += f->offset + (f->from == KV_FROM_ENGINE ? offsetof(kv_result, engine_space) : 0);
    switch (f->type) {
    case KV_F_INT:
    case KV_F_INT_OR_NULL:
        v.kind = KV_VAL_INT;
        memcpy(&v.i, at, sizeof v.i);
        v.is_null = f->type == KV_F_INT_OR_NULL && v.i == 0;
        break;
    case KV_F_NUM:
        memcpy(&v.d, at, sizeof v.d);
        break;
    case KV_F_NUM_OR_NULL:
        memcpy(&v.d, at, sizeof v.d);
        v.is_null = isnan(v.d);
        break;
    case KV_F_BOOL:
        v.kind = KV_VAL_BOOL;
        memcpy(&v.b, at, sizeof v.b);
        break;
    case KV_F_STR:
        v.kind = KV_VAL_STR;
        memcpy(&v.s, at, sizeof v.s);
        v.is_null = v.s == NULL;
        break;
    case KV_F_TEXT:
        v.kind = KV_VAL_STR;
        v.s = at;
        v.is_null = at[0] == '\0';
        break;
    case KV_F_DTYPE_BYTES:
        memcpy(&t, at, sizeof t);
        v.d = kv_dtype_get(t)->bytes;
        break;
    case KV_F_ENGINE_NAME:
        v.kind = KV_VAL_STR;
        memcpy(&e, at, sizeof e);
        v.s = kv_engine_name((kv_engine)e);
        v.is_null = v.s == NULL;
        break;
    case KV_F_SCHEMA:
        v.kind = KV_VAL_INT;
        v.i = KV_SCHEMA_VERSION;
        break;
    case KV_F_VERSION:
        v.kind = KV_VAL_STR;
        v.s = KVCALC_VERSION;
        break;
    case KV_F_WEIGHTS_SOURCE:
        v.kind = KV_VAL_STR;
        memcpy(&e, at, sizeof e);
        v.s = (unsigned)e < COUNT(weights_sources) ? weights_sources[e] : NULL;
        v.is_null = v.s == NULL;
        break;
    }
    return v;
}
