/*
 * compute.c - the sizing layer: the core's figures, then the chosen engine's answer.
 *
 * The core (src/core) knows the lesson's arithmetic and names no engine; an engine
 * (src/engines) turns the core's figures into its own answer. This layer runs both, in
 * that order, for a whole replica or one pipeline stage at a time, and says why a spec was
 * refused. Pure: no I/O, no globals.
 */
#include "engine.h"
#include "kvprint.h"

#include <stdio.h>
#include <string.h>

static kv_status compute_once(const kv_spec *s, kv_result *r);

/* Every stage's result; the one that holds the fewest requests answers (vLLM takes the
 * smallest block count of its workers), with the whole replica's weights kept. */
static kv_status compute_stages(const kv_spec *s, kv_result *r)
{
    kv_result whole, one;
    kv_spec st;
    kv_status rc;
    kv_spec w = *s;
    w.pp = 1;
    w.pp_stage = -1;
    if ((rc = compute_once(&w, &whole)) != KV_OK && rc != KV_ERR_RANGE)
        return rc;
    for (int64_t i = 0; i < s->pp; i++) {
        kv_core_stage_spec(s, &whole, i, &st);
        if ((rc = compute_once(&st, &one)) != KV_OK)
            return rc;
        if (i == 0 || one.max_concurrency < r->max_concurrency) {
            *r = one;
            r->pp_stage = i;
            r->pp_stage_layers = st.layers;
        }
    }
    r->weights_bytes_group = whole.weights_bytes_group;
    r->params = whole.params;
    r->deployment_max_concurrency = r->max_concurrency * (double)s->dp;
    return KV_OK;
}

/* The core's inputs, then the engine's, then the layout. */
static kv_status check(const kv_spec *s, const kv_engine_desc **engine, kv_error *why)
{
    kv_status st = kv_core_check(s);
    if (st != KV_OK)
        return st;
    if (!(*engine = kv_engine_get(s->engine)))
        return KV_ERR_ENGINE_UNKNOWN;
    if ((st = (*engine)->check(s, why)) != KV_OK)
        return st;
    return kv_core_check_layout(s);
}

static kv_status compute_once(const kv_spec *s, kv_result *r)
{
    const kv_engine_desc *engine = NULL;
    kv_status st = check(s, &engine, NULL);
    if (st != KV_OK)
        return st;
    if (s->pp > 1 && s->pp_stage < 0)
        return compute_stages(s, r);
    if ((st = kv_core_compute(s, r)) != KV_OK)
        return st;
    r->estimated = 0;
    r->longest_context_any = 0;
    r->host_bytes = 0;
    r->host_short = 0;
    r->host_reserve_bytes = 0;
    /* the chosen engine answers */
    if ((st = engine->compute(s, r)) != KV_OK)
        return st;
    if (engine->host_reserve)
        r->host_reserve_bytes = engine->host_reserve(s, r);
    /* what it keeps on the host must be there: pinned and allocated buffers are not paged
     * out, so an engine short of them fails to start (torch's pin_memory, SGLang's HiCache
     * check, llama.cpp's host KV buffers) and holds no request */
    if (s->host_mem_gib.set && r->host_bytes + r->host_reserve_bytes > s->host_mem_gib.value * KV_GIB) {
        r->host_short = 1;
        r->max_concurrency = 0;
        if (engine->host_refused)
            engine->host_refused(r);
    }
    r->fits = r->max_concurrency >= 1;
    r->pp_stage = s->pp_stage > 0 ? s->pp_stage : 0;
    r->pp_stage_layers = s->layers;
    r->deployment_max_concurrency = r->max_concurrency * (double)s->dp;
    return KV_OK;
}

/* Whether one request of `context` tokens fits, host memory included. */
static int fits_at(const kv_spec *s, int64_t context)
{
    kv_spec v = *s;
    kv_result r;
    v.context = context;
    return compute_once(&v, &r) == KV_OK && r.fits;
}

kv_status kv_compute(const kv_spec *s, kv_result *r)
{
    kv_status st = compute_once(s, r);
    if (st != KV_OK || !r->host_short || s->pp_stage >= 0)
        return st;
    /* the engine's longest fit left the host out: the longest context whose host part is
     * there too, by bisection (what the host keeps grows with the context or not at all) */
    int64_t lo = 0, hi = s->context; /* fits at lo (0: none), not at hi */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (fits_at(s, mid))
            lo = mid;
        else
            hi = mid;
    }
    r->longest_context_fit = lo;
    r->longest_context_any = 0;
    return KV_OK;
}

/* "N does not split H attention heads and K KV heads (valid: ...)". */
static void explain_tp(const kv_spec *s, kv_error *err)
{
    char valid[512] = "";
    size_t n = 0;
    int64_t limit = s->arch.heads > 0 ? s->arch.heads : s->kv_heads;
    for (int64_t t = 1; t <= limit && t <= 4096 && n + 24 < sizeof valid; t++)
        if (kv_tp_valid(s, t))
            n += (size_t)kv_snprintf(valid + n, sizeof valid - n, "%s%lld", n ? " " : "",
                                  (long long)t);
    if (s->arch.heads > 0)
        kv_refuse(err, KV_ERR_TP, kv_core_param_get(KV_P_TP),
                  "%lld does not split %lld attention heads and %lld KV heads (valid: %s)",
                  (long long)s->tp, (long long)s->arch.heads, (long long)s->kv_heads, valid);
    else
        kv_refuse(err, KV_ERR_TP, kv_core_param_get(KV_P_TP),
                  "%lld does not split %lld KV heads (valid: %s, or a multiple of %lld)",
                  (long long)s->tp, (long long)s->kv_heads, valid, (long long)s->kv_heads);
}

/* text for a message: bytes outside printable ASCII become '?' (names come from files) */
static void printable(char *buf, size_t cap, const char *text)
{
    size_t n = 0;
    for (; text[n] && n + 1 < cap; n++)
        buf[n] = text[n] >= 0x20 && text[n] < 0x7f ? text[n] : '?';
    buf[n] = '\0';
}

void kv_explain(const kv_spec *s, kv_status st, kv_error *err)
{
    const kv_engine_desc *engine = kv_engine_get(s->engine);
    err->code = st;
    err->blamed = NULL;
    err->msg[0] = '\0';
    if (st == KV_ERR_TP) {
        explain_tp(s, err);
        return;
    }
    if (st == KV_ERR_WEIGHTS_UNKNOWN) { /* the model as a whole: its name, what is missing */
        char name[128], part[sizeof s->arch.unknown];
        printable(name, sizeof name, s->model_name ? s->model_name : "the model");
        printable(part, sizeof part, s->arch.unknown);
        int storage = strncmp(s->arch.unknown, "quantization_config", 19) == 0;
        kv_refuse(err, st, NULL, "%s: the weights cannot be counted from its config (%s): "
                  "give --params-b (billions of parameters)%s", name, part,
                  storage ? " and --weight-dtype (how they are stored)" : "");
        return;
    }
    if (!engine) {
        kv_refuse(err, st, kv_core_param_get(KV_P_ENGINE), "%s", kv_status_message(st));
        return;
    }
    /* the engine's own words for what it refuses (the parameter it blames, or none when
     * its sentence names what to change) */
    if ((st == KV_ERR_ENGINE_INPUT || st == KV_ERR_RANGE) && engine->check(s, err) != KV_OK)
        return;
    err->code = st;
    if (st == KV_ERR_RANGE && engine->range_words) {
        kv_refuse(err, st, kv_core_param_get(KV_P_ENGINE), "%s", engine->range_words);
        return;
    }
    if (st == KV_ERR_ENGINE_INPUT || st == KV_ERR_RANGE || st == KV_ERR_ENGINE_UNKNOWN) {
        kv_refuse(err, st, kv_core_param_get(KV_P_ENGINE), "%s", kv_status_message(st));
        return;
    }
    const kv_param *p = kv_param_blamed(st);
    if (p)
        kv_refuse(err, st, p, "%s", kv_status_message(st));
    else /* the memory as a whole: no single input to blame */
        kv_refuse(err, st, NULL, "--gpu-mem-gib, --params-b, --overhead-gib: %s",
                  kv_status_message(st));
}

double kv_request_bytes(const kv_spec *s, int64_t context)
{
    kv_result r;
    kv_fill_groups(s, &r);
    return kv_groups_request_bytes(&r, context);
}

double kv_max_concurrency_at(const kv_spec *s, int64_t context)
{
    kv_spec v = *s;
    kv_result r;
    v.context = context;
    return kv_compute(&v, &r) == KV_OK ? r.max_concurrency : 0.0;
}

/* ---- the context-vs-concurrency table ---- */

/* The standard rows of the context-vs-concurrency table, in tokens. The lesson filters
 * them by c <= max(context, 8192) * 4, which keeps all six for every valid context, so the
 * filter is not repeated here. */
static const int64_t std_contexts[KV_STD_CONTEXTS] = {1024, 2048, 4096, 8192, 16384, 32768};

static void add_row(const kv_spec *s, const kv_engine_desc *engine, const kv_result *r,
                    kv_table *t, int64_t c)
{
    kv_row *row = &t->rows[t->n_rows++];
    row->context = c;
    row->kv_bytes_per_request = kv_groups_request_bytes(r, c);
    row->max_concurrency = c == s->context ? r->max_concurrency
                           : s->pp > 1 || s->host_mem_gib.set
                               ? kv_max_concurrency_at(s, c) /* another stage, or the host, may bind */
                                           : engine->concurrency_at(s, r, c, row->kv_bytes_per_request);
    row->is_setting = (c == s->context);
}

/* The standard contexts with the user's context merged in ascending order, once (the
 * lesson's sorted(set(...))). */
void kv_table_compute(const kv_spec *s, const kv_result *r, kv_table *t)
{
    const kv_engine_desc *engine = kv_engine_get(s->engine);
    int placed = 0;
    t->n_rows = 0;
    for (size_t i = 0; i < KV_STD_CONTEXTS; i++) {
        if (!placed && s->context < std_contexts[i]) {
            add_row(s, engine, r, t, s->context);
            placed = 1;
        }
        if (s->context == std_contexts[i])
            placed = 1;
        add_row(s, engine, r, t, std_contexts[i]);
    }
    if (!placed)
        add_row(s, engine, r, t, s->context);
}
