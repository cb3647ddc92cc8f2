/*
 * report_plan.c - the capacity plan (--target-concurrency) and the levers (--levers), as
 * text and as JSON. The numbers come from plan.c; this file lays them out.
 */
#include "kvprint.h"
#include "report.h"

#include "format.h"

#include <string.h>

static const char *gib(char *buf, size_t cap, double bytes)
{
    return fmt_fixed(buf, cap, bytes / KV_GIB, 2, 1); /* a plan's totals can be huge: grouped */
}

/* Widens *w to hold text. */
static void fit(int *w, const char *text)
{
    int n = (int)strlen(text);
    if (n > *w)
        *w = n;
}

void report_plan_text(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    const kv_plan *p = rep->plan;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    kv_fprintf(out, "Capacity plan: %s concurrent requests @ %s context\n",
            fmt_int(a, sizeof a, p->target, 1), fmt_int(b, sizeof b, s->context, 1));
    kv_fprintf(out, "  KV cache   : %s x %s MiB = %s GiB\n", fmt_int(a, sizeof a, p->target, 1),
            fmt_fixed(b, sizeof b, r->kv_bytes_per_request_group / KV_MIB, 1, 1),
            gib(c, sizeof c, p->kv_bytes_needed));
    kv_fprintf(out, "  In all     : %s GiB KV + %s GiB weights + %s GiB overhead = %s GiB\n",
            gib(a, sizeof a, p->kv_bytes_needed), gib(b, sizeof b, r->weights_bytes_group),
            fmt_g(c, sizeof c, p->overhead_bytes / KV_GIB),
            gib(d, sizeof d, p->total_bytes_needed));
    if (s->tp > 1)
        kv_fprintf(out, "  This setup : %lld x %s GiB (TP %lld) holds ~%s at once", (long long)s->tp,
                fmt_figure(a, sizeof a, s->gpu_mem_gib, !s->gpu_name), (long long)s->tp,
                fmt_fixed(b, sizeof b, p->per_gpu_max, 0, 0));
    else
        kv_fprintf(out, "  This GPU   : %s GiB holds ~%s at once",
                fmt_figure(a, sizeof a, s->gpu_mem_gib, !s->gpu_name),
                fmt_fixed(b, sizeof b, p->per_gpu_max, 0, 0));
    if (p->replicas == 0)
        fputs(" -> it cannot serve even one request: see the options below\n", out);
    else if (p->fits_one_gpu)
        fputs(" -> one replica holds them all\n", out);
    else
        kv_fprintf(out, " -> ceil(%s / %s) = %s replicas (%s GPUs)\n",
                fmt_int(a, sizeof a, p->target, 1), fmt_fixed(b, sizeof b, p->per_gpu_max, 0, 1),
                fmt_int(c, sizeof c, p->replicas, 1),
                fmt_int(d, sizeof d, p->gpus_needed, 1));
    if (p->smallest_gpu_name)
        kv_fprintf(out, "  One GPU    : the smallest that holds all %s is the %s (%s GiB)\n",
                fmt_int(a, sizeof a, p->target, 1), p->smallest_gpu_name,
                fmt_fixed(b, sizeof b, p->smallest_gpu_gib, 2, 0));
    else
        kv_fprintf(out, "  One GPU    : no single built-in GPU holds all %s\n",
                fmt_int(a, sizeof a, p->target, 1));
    fputs("  Options, by GPUs needed, then memory (TP = GPUs per replica):\n", out);
    size_t shown = p->n_options < 12 ? p->n_options : 12;
    int w[4] = {11, 9, 6, 3}; /* per replica, replicas, GPUs, TP: as wide as the widest */
    for (size_t i = 0; i < shown; i++) {
        const kv_plan_option *o = &p->options[i];
        fit(&w[0], fmt_fixed(b, sizeof b, o->per_replica, 0, 1));
        fit(&w[1], fmt_int(c, sizeof c, o->replicas, 1));
        fit(&w[2], fmt_int(d, sizeof d, o->gpus, 1));
        kv_snprintf(a, sizeof a, "%lld", (long long)o->tp);
        fit(&w[3], a);
    }
    kv_fprintf(out, "    %-24s %8s %*s %*s %*s %*s\n", "gpu", "GiB", w[3], "TP", w[0] + 1,
            "per replica", w[1], "replicas", w[2], "GPUs");
    for (size_t i = 0; i < shown; i++) {
        const kv_plan_option *o = &p->options[i];
        kv_fprintf(out, "    %-24s %8s %*lld %*s %*s %*s\n", o->gpu,
                fmt_fixed(a, sizeof a, o->gib, 2, 0), w[3], (long long)o->tp, w[0] + 1,
                fmt_fixed(b, sizeof b, o->per_replica, 0, 1), w[1],
                fmt_int(c, sizeof c, o->replicas, 1), w[2], fmt_int(d, sizeof d, o->gpus, 1));
    }
    if (shown < p->n_options)
        kv_fprintf(out, "    (%zu more options in --format json: plan_options)\n",
                p->n_options - shown);
    fputc('\n', out);
}

static const char *const lever_names[KV_LEVER_COUNT] = {
    "as given", "half the context", NULL /* the engine's 8-bit type */, "int8 weights",
    "int4 weights", "offload"};

void report_levers_text(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF], e[FMT_BUF], name[64];
    int target = rep->plan != NULL;
    const kv_levers *lv = rep->levers;
    fputs("Levers (one at a time, per replica):\n", out);
    kv_fprintf(out, "  %-26s %9s %12s %11s %15s%s\n", "lever", "context", "KV/req", "free KV",
            "max concurrent", target ? "  replicas" : "");
    for (int k = 0; k < KV_LEVER_COUNT; k++) {
        const kv_lever *l = &lv->rows[k];
        if (k == KV_LEVER_OFFLOAD && lv->offload_gib <= 0)
            continue;
        if (k == KV_LEVER_OFFLOAD)
            kv_snprintf(name, sizeof name, "+ %s GiB CPU offload tier", fmt_g(a, sizeof a, lv->offload_gib));
        else if (k == KV_LEVER_FP8_KV)
            kv_snprintf(name, sizeof name, "%s KV cache", lv->kv8_name);
        else
            kv_snprintf(name, sizeof name, "%s", lever_names[k]);
        if (!l->applies) {
            kv_fprintf(out, "  %-26s %9s  (the engine refuses it with these settings)\n", name,
                    fmt_int(a, sizeof a, l->context, 1));
            continue;
        }
        kv_fprintf(out, "  %-26s %9s %8s MiB %7s GiB %15s", name, fmt_int(a, sizeof a, l->context, 1),
                fmt_fixed(b, sizeof b, l->kv_bytes_per_request / KV_MIB, 1, 1),
                fmt_fixed(c, sizeof c, l->free_kv_bytes / KV_GIB, 2, 0),
                fmt_fixed(d, sizeof d, l->max_concurrency, 0, 0));
        if (target)
            kv_fprintf(out, "  %8s", l->replicas ? fmt_int(e, sizeof e, l->replicas, 1) : "-");
        fputc('\n', out);
    }
    fputs("  A GQA model (fewer KV heads) is the fourth lever: compare --kv-heads or --model.\n",
          out);
    if (lv->offload_gib > 0)
        fputs("  Offload buys capacity, not speed: every block brought back from CPU memory costs\n"
              "  a transfer that kvcalc does not measure.\n",
              out);
    (void)s;
    (void)r;
    fputc('\n', out);
}

void report_plan_json(FILE *out, const kv_report *rep)
{
    char a[FMT_BUF], b[FMT_BUF];
    if (!rep->plan) {
        fputs("  \"plan_options\": null,\n", out);
    } else {
        fputs("  \"plan_options\": [", out);
        for (size_t i = 0; i < rep->plan->n_options; i++) {
            const kv_plan_option *o = &rep->plan->options[i];
            kv_fprintf(out, "%s\n    {\"gpu\": \"%s\", \"gib\": %s, \"tp\": %lld, ", i ? "," : "", o->gpu,
                    fmt_json_number(a, sizeof a, o->gib), (long long)o->tp);
            kv_fprintf(out, "\"per_replica\": %s, \"replicas\": %lld, \"gpus\": %lld}",
                    fmt_json_number(b, sizeof b, o->per_replica), (long long)o->replicas,
                    (long long)o->gpus);
        }
        fputs("\n  ],\n", out);
    }
    if (rep->layouts) {
        fputs("  \"layouts\": [", out);
        for (size_t i = 0; i < rep->layouts->n_options; i++) {
            const kv_layout_option *o = &rep->layouts->options[i];
            kv_fprintf(out, "%s\n    {\"tensor_parallel_size\": %lld, \"pipeline_parallel_size\": "
                         "%lld, \"data_parallel_size\": %lld, \"gpus\": %lld, ",
                    i ? "," : "", (long long)o->tp, (long long)o->pp, (long long)o->dp,
                    (long long)o->gpus);
            kv_fprintf(out, "\"max_concurrency\": %s, \"deployment_max_concurrency\": %s, "
                         "\"best\": %s}",
                    fmt_json_number(a, sizeof a, o->max_concurrency),
                    fmt_json_number(b, sizeof b, o->deployment_max_concurrency),
                    (int64_t)i == rep->layouts->best ? "true" : "false");
        }
        fputs("\n  ],\n", out);
    } else {
        fputs("  \"layouts\": null,\n", out);
    }
    static const char *const keys[KV_LEVER_COUNT] = {"none", "half_context", "fp8_kv",
                                                     "int8_weights", "int4_weights", "offload"};
    if (!rep->levers) {
        fputs("  \"levers\": null,\n", out);
        return;
    }
    fputs("  \"levers\": [", out);
    for (int k = 0; k < KV_LEVER_COUNT; k++) {
        const kv_lever *l = &rep->levers->rows[k];
        kv_fprintf(out, "%s\n    {\"lever\": \"%s\", \"context\": %lld, ", k ? "," : "", keys[k],
                (long long)l->context);
        kv_fprintf(out, "\"kv_bytes_per_request\": %s, ",
                fmt_json_number(a, sizeof a, l->kv_bytes_per_request));
        kv_fprintf(out, "\"free_kv_bytes\": %s, ", fmt_json_number(a, sizeof a, l->free_kv_bytes));
        kv_fprintf(out, "\"max_concurrency\": %s, \"replicas\": %s, \"applies\": %s}",
                fmt_json_number(b, sizeof b, l->max_concurrency),
                rep->plan && l->replicas ? fmt_int(a, sizeof a, l->replicas, 0) : "null",
                l->applies ? "true" : "false");
    }
    fputs("\n  ],\n", out);
}

/* --gpus N: every layout, the best marked. */
void report_layouts_text(FILE *out, const kv_report *rep)
{
    const kv_layouts *l = rep->layouts;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    kv_fprintf(out, "Layouts of %s GPUs (%s):\n", fmt_int(a, sizeof a, l->gpus, 1),
            l->target > 0 ? "the fewest GPUs that hold the target" : "the most requests at once");
    /* columns as wide as their widest cell (100,000 GPUs, huge plans) */
    int w[6] = {4, 4, 6, 6, 13, 14};
    for (size_t i = 0; i < l->n_options; i++) {
        const kv_layout_option *o = &l->options[i];
        kv_snprintf(a, sizeof a, "%lld", (long long)o->tp);
        fit(&w[0], a);
        kv_snprintf(a, sizeof a, "%lld", (long long)o->pp);
        fit(&w[1], a);
        fit(&w[2], fmt_int(a, sizeof a, o->dp, 1));
        fit(&w[3], fmt_int(b, sizeof b, o->gpus, 1));
        fit(&w[4], fmt_fixed(c, sizeof c, o->max_concurrency, 0, 1));
        fit(&w[5], fmt_fixed(d, sizeof d, o->deployment_max_concurrency, 0, 1));
    }
    kv_fprintf(out, "  %*s %*s %*s %*s %*s %*s\n", w[0], "TP", w[1], "PP", w[2], "DP", w[3],
            "GPUs", w[4], "per replica", w[5], "in all");
    for (size_t i = 0; i < l->n_options; i++) {
        const kv_layout_option *o = &l->options[i];
        kv_fprintf(out, "  %*lld %*lld %*s %*s %*s %*s%s\n", w[0], (long long)o->tp, w[1],
                (long long)o->pp, w[2], fmt_int(a, sizeof a, o->dp, 1), w[3],
                fmt_int(b, sizeof b, o->gpus, 1), w[4],
                fmt_fixed(c, sizeof c, o->max_concurrency, 0, 1), w[5],
                fmt_fixed(d, sizeof d, o->deployment_max_concurrency, 0, 1),
                (int64_t)i == l->best ? "  <- best" : "");
    }
    if (l->best < 0)
        kv_fprintf(out, "  No layout of %s GPUs %s.\n", fmt_int(a, sizeof a, l->gpus, 1),
                l->target > 0 ? "holds the target" : "holds one request");
    fputc('\n', out);
}
