/*
 * ideal.c - the lesson's engine: every free byte holds KV, packed perfectly.
 *
 * Its answer is the lesson's floor(free / per request), already in the result as the ideal
 * figures; this engine only adopts them. With it, kvcalc prints the lesson's table byte for
 * byte.
 */
#include "engine.h"

static kv_status ideal_check(const kv_spec *s)
{
    (void)s;
    return KV_OK;
}

static double ideal_at(const kv_spec *s, const kv_result *r, int64_t context,
                       double request_bytes)
{
    (void)s;
    (void)context;
    return r->room ? kv_floordiv(r->free_kv_bytes, request_bytes) : 0.0;
}

static kv_status ideal_compute(const kv_spec *s, kv_result *r)
{
    (void)s;
    r->max_concurrency = r->ideal_max_concurrency;
    return KV_OK;
}

const kv_engine_ops kv_engine_ideal_ops = {"ideal", ideal_check, ideal_compute, ideal_at};
