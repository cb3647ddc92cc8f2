/*
 * plan.c - the lesson's decision, made by the core: how many GPUs for a target load, and
 * what each of the lesson's levers buys.
 *
 * The lesson works it by hand: "300 concurrent requests at 8k ... 448 MiB x 300 = ~131 GiB
 * of KV ... + weights + overhead = ~146 GiB ... one 48 GiB card fits ~75, so
 * ceil(300 / 75) = 4 replicas". kv_plan_compute() does exactly that for the spec's GPU, then
 * repeats it for a list of GPUs and tensor-parallel sizes, reusing kv_compute() for every
 * variant so that each number is the same arithmetic as the main table - and the same
 * engine: with vLLM chosen, every "holds N" is what vLLM would hold. Every variant is
 * re-laid by kv_relayout(), so figures an engine's log measured at the spec's own layout
 * are carried by that engine's rule instead of held fixed. Pure.
 */
#include "engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvmath.h"

static const int64_t tp_sizes[] = {1, 2, 4, 8};

/* ceil(target / per_replica) in integers (per_replica is a whole number of requests), so
 * it is exact for every target; 0 when not one request fits. */
static int64_t replicas_for(int64_t target, double per_replica)
{
    if (per_replica < 1)
        return 0;
    if (per_replica >= 9223372036854775807.0)
        return 1;
    int64_t per = (int64_t)per_replica;
    return target / per + (target % per != 0);
}

/* replicas x tp, or -1 when that many GPUs do not fit in 64 bits. */
static int64_t gpus_for(int64_t replicas, int64_t tp)
{
    return replicas > INT64_MAX / tp ? -1 : replicas * tp;
}

static int by_gpus_then_memory(const void *a, const void *b)
{
    const kv_plan_option *x = a, *y = b;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    if (x->gib != y->gib)
        return x->gib < y->gib ? -1 : 1;
    return x->tp < y->tp ? -1 : (x->tp > y->tp);
}

kv_status kv_plan_compute(const kv_spec *s, const kv_result *r, int64_t target,
                          const kv_gpu_choice *gpus, size_t n, kv_plan *out)
{
    out->target = target;
    out->kv_bytes_needed = (double)target * r->kv_bytes_per_request_group;
    out->overhead_bytes = r->overhead_bytes * (double)(s->tp * s->pp);
    out->total_bytes_needed = out->kv_bytes_needed + r->weights_bytes_group + out->overhead_bytes;
    out->per_gpu_max = r->max_concurrency;
    out->fits_one_gpu = r->max_concurrency >= (double)target;
    out->replicas = replicas_for(target, r->max_concurrency);
    out->gpus_needed = gpus_for(out->replicas, s->tp * s->pp); /* GPUs per replica */
    if (out->gpus_needed < 0)
        return KV_ERR_TARGET; /* exact, or refused: never a capped count */
    int smallest = -1; /* index of the smallest GPU choice that holds the target alone */
    out->n_options = 0;

    kv_spec v = *s;
    for (size_t g = 0; g < n; g++) {
        for (size_t t = 0; t < sizeof tp_sizes / sizeof tp_sizes[0]; t++) {
            kv_result vr;
            v = *s;
            v.gpu_mem_gib = gpus[g].gib;
            v.gpu_name = gpus[g].name;
            v.gpu_device_names = gpus[g].device_names;
            v.gpu_mem_estimated = 0;
            v.gpu_engine_gib = gpus[g].engine_gib;
            v.tp = tp_sizes[t];
            if (!kv_tp_valid(&v, v.tp))
                continue;
            kv_relayout(s, &v); /* the engine's measured figures, for this GPU and TP */
            if (kv_compute(&v, &vr) != KV_OK || vr.max_concurrency < 1)
                continue;
            if (out->n_options < KV_MAX_PLAN) {
                kv_plan_option *o = &out->options[out->n_options++];
                o->gpu = gpus[g].name;
                o->gib = gpus[g].gib;
                o->tp = v.tp;
                o->per_replica = vr.max_concurrency;
                o->replicas = replicas_for(target, vr.max_concurrency);
                o->gpus = gpus_for(o->replicas, v.tp * v.pp);
                if (o->gpus < 0) { /* more GPUs than 64 bits count: not an option */
                    out->n_options--;
                    continue;
                }
            }
            if (v.tp == 1 && v.pp == 1 && vr.max_concurrency >= (double)target &&
                (smallest < 0 || gpus[g].gib < gpus[smallest].gib))
                smallest = (int)g;
        }
    }
    out->smallest_gpu_name = smallest >= 0 ? gpus[smallest].name : NULL;
    out->smallest_gpu_gib = smallest >= 0 ? gpus[smallest].gib : 0;
    qsort(out->options, out->n_options, sizeof out->options[0], by_gpus_then_memory);
    return KV_OK;
}

kv_status kv_levers_compute(const kv_spec *s, double offload_gib, int64_t target,
                            kv_levers *out)
{
    kv_result base;
    kv_status st = kv_compute(s, &base);
    if (st != KV_OK)
        return st;
    const kv_engine_desc *engine = kv_engine_get(s->engine);
    out->offload_gib = offload_gib;
    out->target = target;
    out->kv8_name = engine->kv8_name;
    for (int k = 0; k < KV_LEVER_COUNT; k++) {
        kv_spec v = *s;
        kv_result r;
        switch ((kv_lever_kind)k) {
        case KV_LEVER_HALF_CONTEXT:
            v.context = s->context / 2 > 0 ? s->context / 2 : 1;
            break;
        case KV_LEVER_FP8_KV:
            if (engine->kv8)
                engine->kv8(&v);
            else
                v.dtype = KV_DTYPE_FP8;
            break;
        case KV_LEVER_INT8_WEIGHTS:
        case KV_LEVER_INT4_WEIGHTS:
            v.weight_dtype = k == KV_LEVER_INT8_WEIGHTS ? KV_DTYPE_INT8 : KV_DTYPE_INT4;
            v.arch.quant_scope = KV_QUANT_ALL; /* the lever: every weight in that dtype */
            v.arch.quant_bytes = 0;
            break;
        default:
            break;
        }
        kv_lever *l = &out->rows[k];
        memset(l, 0, sizeof *l);
        l->kind = (kv_lever_kind)k;
        l->context = v.context;
        kv_relayout(s, &v); /* a measured figure moves as the engine's estimate of it does */
        if (kv_compute(&v, &r) != KV_OK)
            continue; /* the engine refuses this lever (the base spec it accepts) */
        l->applies = 1;
        l->kv_bytes_per_request = r.kv_bytes_per_request;
        /* an engine's own budget beside its own concurrency (llama.cpp's --cpu-moe leaves the
         * GPU room the lesson's arithmetic, every weight on it, does not) */
        l->free_kv_bytes = v.engine != KV_ENGINE_IDEAL && isfinite(r.available_kv_bytes)
                               ? r.available_kv_bytes
                               : r.free_kv_bytes;
        l->max_concurrency = r.max_concurrency;
        if (k == KV_LEVER_OFFLOAD) {
            /* capacity only: the offload tier holds KV, but the weights must still fit */
            l->free_kv_bytes += offload_gib * KV_GIB;
            if (!r.room)
                l->max_concurrency = 0;
            else if (v.engine == KV_ENGINE_IDEAL) /* one pool: fractions of both tiers add up */
                l->max_concurrency = kv_floordiv(l->free_kv_bytes, r.kv_bytes_per_request);
            else /* the engine's own pool, plus whole requests in the CPU tier */
                l->max_concurrency =
                    r.max_concurrency + kvm_floor(offload_gib * KV_GIB / r.kv_bytes_per_request);
        }
        l->replicas = target > 0 ? replicas_for(target, l->max_concurrency) : 0;
    }
    return KV_OK;
}

/* Whether layout option a is better than b for the question asked. */
static int better(const kv_layout_option *a, const kv_layout_option *b, int64_t target)
{
    if (target > 0 && a->gpus != b->gpus)
        return a->gpus < b->gpus; /* the fewest GPUs that hold the target */
    if (a->deployment_max_concurrency != b->deployment_max_concurrency)
        return a->deployment_max_concurrency > b->deployment_max_concurrency;
    if (a->pp != b->pp) /* fewer stages: less pipeline latency */
        return a->pp < b->pp;
    return a->tp < b->tp;
}

kv_status kv_layouts_compute(const kv_spec *s, int64_t gpus, int64_t target, kv_layouts *out)
{
    out->gpus = gpus;
    out->target = target;
    out->n_options = 0;
    out->best = -1;
    out->best_tp = out->best_pp = out->best_dp = 0;
    out->best_deployment_max_concurrency = 0;
    for (int64_t tp = 1; tp <= gpus; tp *= 2) {
        for (int64_t pp = 1; tp * pp <= gpus && pp <= s->layers; pp *= 2) {
            kv_spec v = *s;
            kv_result r;
            v.tp = tp;
            v.pp = pp;
            v.pp_stage = -1;
            if (!kv_tp_valid(&v, tp))
                continue;
            kv_relayout(s, &v); /* the engine's measured figures, for this split */
            if (kv_compute(&v, &r) != KV_OK || r.max_concurrency < 1)
                continue;
            int64_t dp = gpus / (tp * pp);
            if (target > 0) { /* as few replicas as the target needs, if they are at hand */
                int64_t need = (int64_t)kvm_ceil((double)target / r.max_concurrency);
                dp = need <= dp ? need : dp;
            }
            if (out->n_options == KV_MAX_LAYOUTS)
                return KV_OK;
            kv_layout_option *o = &out->options[out->n_options++];
            o->tp = tp;
            o->pp = pp;
            o->dp = dp;
            o->gpus = tp * pp * dp;
            o->max_concurrency = r.max_concurrency;
            o->deployment_max_concurrency = r.max_concurrency * (double)dp;
            o->meets_target = target > 0 && o->deployment_max_concurrency >= (double)target;
            if ((target <= 0 || o->meets_target) &&
                (out->best < 0 || better(o, &out->options[out->best], target)))
                out->best = (int64_t)(out->n_options - 1);
        }
    }
    if (out->best >= 0) {
        const kv_layout_option *b = &out->options[out->best];
        out->best_tp = b->tp;
        out->best_pp = b->pp;
        out->best_dp = b->dp;
        out->best_deployment_max_concurrency = b->deployment_max_concurrency;
    }
    return KV_OK;
}

void kv_curve_compute(const kv_spec *s, kv_curve *out)
{
    double first = 256;
    while (first * 4096 < (double)s->context)
        first *= 2; /* keep the user's context on the chart */
    out->n = KV_CURVE_POINTS;
    for (size_t i = 0; i < KV_CURVE_POINTS; i++) {
        int64_t c = (int64_t)kvm_llround(first * kvm_exp2_quarters((long long)i));
        out->context[i] = c;
        out->max_concurrency[i] = kv_max_concurrency_at(s, c);
    }
}
