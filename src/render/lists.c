/*
 * report_list.c - the built-in tables for people: --list-models and --list-gpus.
 */
#include "kvprint.h"
#include "report.h"

#include "format.h"

void report_gpu_list(FILE *out, kv_list_format f)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    if (f != LIST_TEXT) { /* one object or row a GPU: name, driver MiB (null: unknown), GiB,
                             peak memory bandwidth GB/s (null: unknown) and its form */
        fputs(f == LIST_JSON ? "[" : "gpu,mib,gib,estimated,aliases,bandwidth_gbs,bandwidth_form\n",
              out);
        for (size_t i = 0; i < kv_gpu_count(); i++) {
            const kv_gpu *g = kv_gpu_at(i);
            const char *form = g->bandwidth_form ? g->bandwidth_form : "";
            fmt_json_number(a, sizeof a, kv_gpu_gib(g));
            fmt_json_number(b, sizeof b, g->total_mib);
            fmt_json_number(c, sizeof c, g->bandwidth_gbs);
            if (f == LIST_JSON) {
                fputs(i ? ",\n  {\"gpu\": " : "\n  {\"gpu\": ", out);
                json_string(out, g->name);
                kv_fprintf(out, ", \"mib\": %s, \"gib\": %s, \"estimated\": %s, \"aliases\": ",
                        g->total_mib > 0 ? b : "null", a, g->estimated ? "true" : "false");
                json_string(out, g->aliases ? g->aliases : "");
                kv_fprintf(out, ", \"bandwidth_gbs\": %s, \"bandwidth_form\": ",
                        g->bandwidth_gbs > 0 ? c : "null");
                json_string(out, form);
                fputc('}', out);
            } else {
                kv_fprintf(out, "%s,%s,%s,%s,%s,%s,%s\n", g->name, g->total_mib > 0 ? b : "", a,
                        g->estimated ? "true" : "false", g->aliases ? g->aliases : "",
                        g->bandwidth_gbs > 0 ? c : "", form);
            }
        }
        if (f == LIST_JSON)
            fputs("\n]\n", out);
        return;
    }
    kv_fprintf(out, "%-24s %10s %10s %6s  %s\n", "gpu", "MiB", "GiB used", "GB/s", "also known as");
    for (size_t i = 0; i < kv_gpu_count(); i++) {
        const kv_gpu *g = kv_gpu_at(i);
        char mib[FMT_BUF + 1] = "-";
        if (g->total_mib > 0)
            kv_snprintf(mib, sizeof mib, "%s%s", fmt_fixed(a, sizeof a, g->total_mib, 0, 1),
                     g->estimated ? "*" : "");
        kv_fprintf(out, "%-24s %10s %10s %6s  %s\n", g->name, mib,
                fmt_fixed(b, sizeof b, kv_gpu_gib(g), 2, 0),
                g->bandwidth_gbs > 0 ? fmt_fixed(c, sizeof c, g->bandwidth_gbs, 0, 1) : "-",
                g->aliases);
    }
    fputs("\nMiB: total as the driver reports it (nvidia-smi, rocm-smi); GiB used: what kvcalc\n"
          "sizes from (MiB / 1024, or the total a serving engine or torch reported where the\n"
          "driver's is unknown). *: an estimate, the marketed capacity (no public reading).\n"
          "GB/s: peak memory bandwidth as published (-: none found), what a workload's step\n"
          "roofline divides by; where the names cover several forms it is of the one the\n"
          "sources name (H100 80GB: the SXM's; a PCIe card's is lower).\n"
          "--gpu also takes the name nvidia-smi or rocm-smi prints (\"NVIDIA H100 80GB HBM3\").\n"
          "Sources: data/gpus/SOURCES.md.\n",
          out);
}

void report_model_list_header(FILE *out, kv_list_format f)
{
    if (f == LIST_JSON) {
        fputs("[", out);
        return;
    }
    if (f == LIST_CSV) {
        fputs("model,alias,params,kv_bytes_per_token,layout\n", out);
        return;
    }
    kv_fprintf(out, "%-46s %-34s %9s %12s  %s\n", "model", "alias", "params", "KV B/token",
            "layout");
    /* KV B/token: what one token costs in every attention layer, windowed ones included
     * (a model of sliding layers only still pays for its first tokens) */
}

void report_model_list_footer(FILE *out, kv_list_format f)
{
    if (f == LIST_JSON)
        fputs("\n]\n", out);
    if (f != LIST_TEXT)
        return;
    fputs("\nKV B/token: what one token costs in every attention layer, windowed ones included "
          "(they stop\npaying past their window); params: the estimate from the config (-: none).\n",
          out);
}

void report_model_row(FILE *out, kv_list_format f, size_t i, const char *alias, const kv_spec *s,
                      const kv_result *r)
{
    char p[FMT_BUF], t[FMT_BUF], layout[600];
    char params[FMT_BUF + 1];
    layout_summary(layout, sizeof layout, s, r);
    if (f == LIST_JSON) { /* params: null where the config does not describe the weights */
        fputs(i ? ",\n  {\"model\": " : "\n  {\"model\": ", out);
        json_string(out, s->model_name);
        fputs(", \"alias\": ", out);
        json_string(out, alias);
        kv_fprintf(out, ", \"params\": %s, \"kv_bytes_per_token\": %s, \"layout\": ",
                s->params_estimated ? fmt_json_number(p, sizeof p, r->params) : "null",
                fmt_json_number(t, sizeof t, r->kv_bytes_first_token));
        json_string(out, layout);
        fputc('}', out);
        return;
    }
    if (f == LIST_CSV) { /* the layout holds commas: quoted */
        kv_fprintf(out, "%s,%s,%s,%s,\"%s\"\n", s->model_name, alias,
                s->params_estimated ? fmt_json_number(p, sizeof p, r->params) : "",
                fmt_json_number(t, sizeof t, r->kv_bytes_first_token), layout);
        return;
    }
    /* weights the config does not describe (INDEX.tsv's fourth column) show "-" */
    if (s->params_estimated)
        kv_snprintf(params, sizeof params, "%sB", fmt_fixed(p, sizeof p, r->params / 1e9, 2, 0));
    else
        kv_snprintf(params, sizeof params, "-");
    kv_fprintf(out, "%-46s %-34s %9s %12s  %s\n", s->model_name, alias, params,
            fmt_fixed(t, sizeof t, r->kv_bytes_first_token, 0, 1), layout);
}
