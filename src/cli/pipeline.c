/*
 * pipeline.c - compute what was asked for, once, into its own struct.
 */
#include "kvprint.h"
#include "pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kvmath.h"

static size_t gpu_choices(kv_gpu_choice *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < kv_gpu_count() && n < cap; i++, n++) {
        const kv_gpu *g = kv_gpu_at(i);
        out[n].name = g->name;
        out[n].gib = kv_gpu_gib(g);
        out[n].engine_gib = g->engine_gib;
        out[n].device_names = g->smi_names;
    }
    return n;
}

/* Whether the user typed a layout (--tp, --pp or --dp): then it is the one asked about. */
static int layout_typed(const kv_options *o)
{
    return kv_options_given(o, kv_core_param_get(KV_P_TP)) ||
           kv_options_given(o, kv_core_param_get(KV_P_PP)) ||
           kv_options_given(o, kv_core_param_get(KV_P_DP));
}

/* --progress with a workload: the runs done, on stderr, rewritten in place. */
static void show_progress(void *ctx, int run, int runs, int64_t steps)
{
    (void)ctx;
    kv_fprintf(stderr, "\rkvcalc: workload: run %d of at most %d, %lld request-steps", run, runs,
            (long long)steps);
    fflush(stderr);
}

/* The workload on the engine's scheduler, in scratch memory kept from run to run. */
static kv_status workload(const kv_options *o, const kv_spec *s, kv_store *st, kv_report *rep)
{
    static void *scratch;
    static size_t have;
    st->workload_blames_engine = 1;
    if (kv_sched_of(s, &st->result, &st->sched, &st->workload_why) != KV_OK)
        return KV_ERR_WORKLOAD;
    st->workload_blames_engine = 0;
    /* a scrape's measured capacity is the pool the load lands on (one group of blocks:
     * tokens / block, less what the engine keeps back) */
    if (o->measured_pool_tokens > 0 && st->sched.n_groups == 1) {
        double blocks = kvm_floor(o->measured_pool_tokens / (double)st->sched.group[0].block_size);
        if (blocks - (double)st->sched.reserved_blocks >= 1 && blocks < 9e18)
            st->sched.pool_blocks = (int64_t)blocks - st->sched.reserved_blocks;
    }
    size_t need = kv_workload_scratch_bytes(&o->workload);
    if (need > have) {
        void *p = realloc(scratch, need);
        if (!p)
            return KV_ERR_NO_MEMORY;
        scratch = p;
        have = need;
    }
    kv_workload w = o->workload;
    st->workload_blames_step = 0;
    /* a trace with its own times and no step given replays at its own rate when the GPU's
     * roofline can time its steps (docs/workload.md); else its lengths alone are used */
    if (!(w.tpot_ms > 0) && !(w.rate > 0) && w.trace && w.trace_n > 1 &&
        w.arrivals == KV_ARRIVE_TRACE) {
        double span = w.trace[w.trace_n - 1].arrival_s - w.trace[0].arrival_s;
        kv_workload probe = w;
        kv_error ignored;
        if (span > 0 && kv_workload_roofline(s, &st->result, &st->sched, o->gpu, &probe,
                                             &ignored) == KV_OK)
            w.rate = (double)(w.trace_n - 1) / span;
    }
    if (!(w.tpot_ms > 0) && (w.rate > 0 || w.concurrency > 0)) { /* the GPU's roofline */
        st->workload_blames_step = 1;
        if (kv_workload_roofline(s, &st->result, &st->sched, o->gpu, &w, &st->workload_why) !=
            KV_OK)
            return KV_ERR_WORKLOAD;
        st->workload_blames_step = 0;
    }
    if (o->progress)
        w.progress = show_progress;
    st->workload_blames_prefix = w.shared_prefix > 0 && !st->sched.prefix_caching &&
                                 !(st->sched.kind == KV_SCHED_SLOTS && st->sched.slot_reuse);
    kv_status rc = kv_workload_run(&st->sched, &w, scratch, have, &st->workload,
                                   &st->workload_why);
    if (o->progress)
        fputs("\n", stderr); /* the line ends, whichever run was the last */
    if (rc != KV_OK)
        return KV_ERR_WORKLOAD;
    rep->workload_in = &o->workload;
    rep->trace = o->trace;
    rep->trace_name = o->trace_path;
    rep->sched = &st->sched;
    rep->workload = &st->workload;
    return KV_OK;
}

kv_status kv_pipeline_run(const kv_options *o, const kv_spec *s, kv_store *st, kv_report *rep)
{
    rep->typed_spec = NULL;
    rep->typed_result = NULL;
    kv_status rc;
    if (o->gpus_total > 0) {
        /* --gpus N asks which layout of N GPUs serves best: unless a layout was typed, the
         * best one answers - the headline, the figures and the engine's section are its */
        if ((rc = kv_layouts_compute(s, o->gpus_total, o->target, &st->layouts)) != KV_OK)
            return rc;
        if (!layout_typed(o) && st->layouts.best >= 0) {
            if ((rc = kv_compute(s, &st->typed)) != KV_OK)
                return rc;
            st->chosen = *s;
            st->chosen.tp = st->layouts.best_tp;
            st->chosen.pp = st->layouts.best_pp;
            st->chosen.dp = st->layouts.best_dp;
            st->chosen.pp_stage = -1;
            kv_relayout(s, &st->chosen); /* the engine's measured figures, for this split */
            rep->typed_spec = s;
            rep->typed_result = &st->typed;
            s = &st->chosen;
        }
    }
    rep->spec = s;
    rep->result = &st->result;
    rep->table = NULL;
    rep->plan = NULL;
    rep->levers = NULL;
    rep->curve = NULL;
    rep->layouts = NULL;
    rep->sources = NULL; /* the caller knows where the inputs came from (main.c) */
    rep->comparison = NULL;
    rc = kv_compute(s, &st->result);
    if (rc != KV_OK)
        return rc;
    if (o->n_sweep == 0) { /* a sweep prints one line a point: no table */
        kv_table_compute(s, &st->result, &st->table);
        rep->table = &st->table;
    }
    if (o->target > 0) {
        kv_gpu_choice gpus[KV_MAX_GPU_CHOICES];
        size_t n = gpu_choices(gpus, KV_MAX_GPU_CHOICES);
        if ((rc = kv_plan_compute(s, &st->result, o->target, gpus, n, &st->plan)) != KV_OK)
            return rc;
        rep->plan = &st->plan;
    }
    if (o->levers) {
        if ((rc = kv_levers_compute(s, o->offload_gib, o->target, &st->levers)) != KV_OK)
            return rc;
        rep->levers = &st->levers;
    }
    if (o->plot) {
        kv_curve_compute(s, &st->curve);
        rep->curve = &st->curve;
    }
    if (o->gpus_total > 0)
        rep->layouts = &st->layouts;
    rep->workload = NULL;
    rep->sched = NULL;
    rep->workload_in = NULL;
    rep->trace = NULL;
    rep->trace_name = NULL;
    rep->metrics = NULL;
    rep->metrics_name = NULL;
    if (kv_options_workload(o))
        return workload(o, s, st, rep);
    return KV_OK;
}

void kv_pipeline_error(const kv_store *st, const kv_spec *s, const kv_options *o, kv_status rc,
                       char *err, size_t cap)
{
    if (rc != KV_ERR_WORKLOAD) {
        kv_status_error(s, o, rc, err, cap);
        return;
    }
    if (st->workload_blames_engine && kv_options_engine(o) != KV_ENGINE_IDEAL)
        kv_fail(err, cap, "--engine %s: %s", kv_engine_name(s->engine), st->workload_why.msg);
    else if (st->workload_blames_step) {
        int clients = o->workload.concurrency > 0;
        const char *typed = o->workload_typed[clients ? WL_CONCURRENCY : WL_RATE];
        kv_fail(err, cap, "%s: simulating %s needs --tpot-ms (the time of one engine step, ms): "
                          "kvcalc cannot estimate it, as %s",
                typed ? typed : clients ? "--concurrency" : "--rate",
                clients ? "clients" : "a rate", st->workload_why.msg);
    }
    else {
        /* the input the refusal is about: the prefix, else the lengths (or the trace) */
        const char *typed = st->workload_blames_prefix ? o->workload_typed[WL_PREFIX]
                            : o->workload_typed[WL_PROMPT] ? o->workload_typed[WL_PROMPT]
                                                           : o->workload_typed[WL_TRACE];
        /* the lengths: the prompt's and the output's flags together, as either can be it */
        char both[96];
        if (!st->workload_blames_prefix && o->workload_typed[WL_PROMPT] &&
            o->workload_typed[WL_OUTPUT]) {
            kv_snprintf(both, sizeof both, "%s / %s", o->workload_typed[WL_PROMPT],
                        o->workload_typed[WL_OUTPUT]);
            typed = both;
        }
        /* a refusal that names its own input ("--ttft-ms: ..."): that input, as typed */
        static const struct {
            const char *name;
            int wl;
        } own[] = {{"--ttft-ms: ", WL_TTFT},
                   {"--shared-prefix-tokens: ", WL_PREFIX},
                   {"--requests: ", WL_REQUESTS}};
        const char *msg = st->workload_why.msg;
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
            size_t n = strlen(own[i].name);
            if (strncmp(msg, own[i].name, n) == 0) { /* (not typed: the default's, blamed
                                                        on the inputs above) */
                if (o->workload_typed[own[i].wl])
                    typed = o->workload_typed[own[i].wl];
                msg += n;
                break;
            }
        }
        kv_fail(err, cap, "%s: %s", typed ? typed : "workload", msg);
    }
}

int kv_requirement_met(const kv_requirement *q, const kv_report *rep, char *got, size_t cap)
{
    kv_field_value v = kv_report_value(q->key, rep);
    kv_value_text(got, cap, v);
    if (v.is_null)
        return 0; /* a value that does not exist meets nothing */
    double x = v.kind == KV_VAL_INT ? (double)v.i : v.kind == KV_VAL_BOOL ? (double)v.b : v.d;
    switch (q->op) {
    case REQ_GE:
        return x >= q->value;
    case REQ_LE:
        return x <= q->value;
    case REQ_EQ:
        return x == q->value;
    case REQ_GT:
        return x > q->value;
    case REQ_LT:
        return x < q->value;
    }
    return 0;
}
