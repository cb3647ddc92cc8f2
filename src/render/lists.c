/*
 * report_list.c - the built-in tables for people: --list-models and --list-gpus.
 */
#include "report.h"

#include "format.h"

void report_gpu_list(FILE *out)
{
    char a[FMT_BUF], b[FMT_BUF];
    fprintf(out, "%-24s %10s %10s  %s\n", "gpu", "MiB", "GiB used", "also known as");
    for (size_t i = 0; i < kv_gpu_count(); i++) {
        const kv_gpu *g = kv_gpu_at(i);
        char mib[FMT_BUF + 1] = "-";
        if (g->total_mib > 0)
            snprintf(mib, sizeof mib, "%s%s", fmt_fixed(a, sizeof a, g->total_mib, 0, 1),
                     g->estimated ? "*" : "");
        fprintf(out, "%-24s %10s %10s  %s\n", g->name, mib,
                fmt_fixed(b, sizeof b, kv_gpu_gib(g), 2, 0), g->aliases);
    }
    fputs("\nMiB: total as the driver reports it (nvidia-smi, rocm-smi); GiB used: what kvcalc\n"
          "sizes from (MiB / 1024, or the total a serving engine or torch reported where the\n"
          "driver's is unknown). *: an estimate, the marketed capacity (no public reading).\n"
          "--gpu also takes the name nvidia-smi or rocm-smi prints (\"NVIDIA H100 80GB HBM3\").\n"
          "Sources: data/gpus/SOURCES.md.\n",
          out);
}

void report_model_list_header(FILE *out)
{
    fprintf(out, "%-46s %-34s %9s %12s  %s\n", "model", "alias", "params", "KV B/token",
            "layout");
    /* KV B/token: what one token costs in every attention layer, windowed ones included
     * (a model of sliding layers only still pays for its first tokens) */
}

void report_model_list_footer(FILE *out)
{
    fputs("\nKV B/token: what one token costs in every attention layer, windowed ones included "
          "(they stop\npaying past their window); params: the estimate from the config (-: none).\n",
          out);
}

void report_model_row(FILE *out, const char *alias, const kv_spec *s, const kv_result *r)
{
    char p[FMT_BUF], t[FMT_BUF], layout[600];
    char params[FMT_BUF + 1];
    /* weights the config does not describe (INDEX.tsv's fourth column) show "-" */
    if (s->params_estimated)
        snprintf(params, sizeof params, "%sB", fmt_fixed(p, sizeof p, r->params / 1e9, 2, 0));
    else
        snprintf(params, sizeof params, "-");
    fprintf(out, "%-46s %-34s %9s %12s  %s\n", s->model_name, alias, params,
            fmt_fixed(t, sizeof t, r->kv_bytes_first_token, 0, 1),
            layout_summary(layout, sizeof layout, s, r));
}
