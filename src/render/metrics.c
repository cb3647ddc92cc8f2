/*
 * metrics.c - --from-metrics laid out: each figure the scrape measured, kvcalc's beside it
 * (text, and CSV rows of figure, scrape, kvcalc). The figures come from the library
 * (kv_metrics_measure(), kv_metrics_predict()); this file only lays them out.
 */
#include "kvprint.h"
#include "report.h"

#include "format.h"

#include <math.h>
#include <string.h>

#include "kvmath.h"

/* One figure: its words, the two values (NaN: none) and how they print. */
typedef struct {
    const char *words;
    double scrape, kvcalc;
    int kind; /* 0 count, 1 percent of a fraction, 2 seconds, 3 a rate, 4 tokens (decimal) */
} row;

static const char *shown(char *buf, size_t cap, double v, int kind)
{
    if (isnan(v))
        return "-";
    switch (kind) {
    case 1:
        kv_snprintf(buf, cap, "%s%%", fmt_fixed((char[FMT_BUF]){0}, FMT_BUF, v * 100.0, 1, 0));
        return buf;
    case 2:
        return v < 1 ? (kv_snprintf(buf, cap, "%s ms", fmt_fixed((char[FMT_BUF]){0}, FMT_BUF,
                                                              v * 1000.0, 1, 1)),
                        buf)
                     : (kv_snprintf(buf, cap, "%s s", fmt_fixed((char[FMT_BUF]){0}, FMT_BUF, v, 2, 1)),
                        buf);
    case 3:
        kv_snprintf(buf, cap, "%s/s", fmt_fixed((char[FMT_BUF]){0}, FMT_BUF, v, 3, 1));
        return buf;
    case 4:
        return fmt_fixed(buf, cap, v, 1, 1);
    default:
        return v == kvm_floor(v) && fabs(v) < 9e15 ? fmt_int(buf, cap, (int64_t)v, 1)
                                               : fmt_fixed(buf, cap, v, 1, 1);
    }
}

static size_t rows_of(const kv_metrics_comparison *c, row *out)
{
    const row all[] = {
        {"KV cache (tokens)", c->capacity_tokens, c->predicted_capacity_tokens, 0},
        {"KV cache in use", c->kv_usage, c->predicted_kv_usage, 1},
        {"requests running", c->running, c->predicted_running, 0},
        {"requests waiting", c->waiting, c->predicted_waiting, 0},
        {"preemptions", c->preemptions_per_s, c->predicted_preemptions_per_s, 3},
        {"preemptions since start", c->preemptions, NAN, 0},
        {"prompt tokens (mean)", c->prompt_mean, NAN, 4},
        {"output tokens (mean)", c->output_mean, NAN, 4},
        {"requests finished", c->rate, NAN, 3},
        {"time per output token", c->tpot_s, NAN, 2},
        {"time to first token", c->ttft_s, NAN, 2},
        {"time in the queue", c->queue_s, NAN, 2},
        {"request latency", c->e2e_s, NAN, 2},
        {"prefix-cache hit rate", c->prefix_hit_rate, NAN, 1},
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!isnan(all[i].scrape) || !isnan(all[i].kvcalc))
            out[n++] = all[i];
    return n;
}

void report_metrics_text(FILE *out, const kv_report *rep)
{
    const kv_metrics_comparison *c = rep->metrics;
    char a[FMT_BUF], b[FMT_BUF], name[200], model[160];
    kv_fprintf(out, "From the metrics: %s (%s%s%s), %s\n",
            text_safe_cut(name, sizeof name, rep->metrics_name, 120), kv_engine_title(c->engine),
            c->generation[0] ? ", " : "", c->generation,
            c->scrapes > 1 ? "two scrapes" : "one scrape: since the server started");
    if (c->scrapes > 1)
        kv_fprintf(out, "  interval: %s\n", isnan(c->interval_s)
                                             ? "unknown (no timestamps; --metrics-interval S "
                                               "gives it): no rates"
                                             : shown(a, sizeof a, c->interval_s, 2));
    kv_fprintf(out, "  model   : %s", rep->spec->model_name ? rep->spec->model_name : "-");
    if (c->model[0])
        kv_fprintf(out, " (the scrape's label: %s)", text_safe_cut(model, sizeof model, c->model, 120));
    fputc('\n', out);
    if (c->lengths_from_totals)
        fputs("  lengths : the token counters over the finished requests (no length histograms "
              "in the scrape; in-flight requests' tokens count too)\n", out);
    if (c->capacity_derived)
        fputs("  KV cache: num_used_tokens / token_usage (the scrape has no max_total_num_tokens; "
              "the usage is rounded)\n", out);
    if (c->replicas > 1)
        kv_fprintf(out, "  engines : %d (the figures add them up; kvcalc's are one engine's x %d)\n",
                c->replicas, c->replicas);
    row rows[16];
    size_t n = rows_of(c, rows);
    kv_fprintf(out, "\n  %-26s %16s %16s\n", "", "scrape", "kvcalc");
    for (size_t i = 0; i < n; i++)
        kv_fprintf(out, "  %-26s %16s %16s\n", rows[i].words, shown(a, sizeof a, rows[i].scrape, rows[i].kind),
                shown(b, sizeof b, rows[i].kvcalc, rows[i].kind));
    fputc('\n', out);
    if (isnan(c->predicted_capacity_tokens))
        fputs("  (kvcalc's KV cache needs the GPU: give --gpu or --gpu-mem-gib)\n", out);
    else if (!isnan(c->capacity_error_pct))
        kv_fprintf(out, "  kvcalc's KV cache is %s%% %s the scrape's\n",
                fmt_fixed(a, sizeof a, fabs(c->capacity_error_pct), 1, 0),
                c->capacity_error_pct >= 0 ? "above" : "below");
    if (rep->workload && rep->workload->simulated)
        kv_fprintf(out, "  (kvcalc's load: %s simulated at the interval's rate, lengths fixed at "
                     "their means, and step time)\n",
                isnan(c->capacity_tokens) ? "kvcalc's pool (the scrape states none)"
                                          : "the measured pool");
    else if (!isnan(c->predicted_kv_usage))
        fputs("  (kvcalc's KV cache in use: the running requests at the mean lengths; two "
              "scrapes give the rate to simulate)\n", out);
    if (!isnan(c->saturation_rate)) {
        kv_fprintf(out, "  at this workload the queue grows without bound above %s req/s (%s binds "
                     "first)",
                fmt_fixed(a, sizeof a, c->saturation_rate, 3, 1),
                strcmp(c->binding, "kv_cache") == 0 ? "the KV pool" : c->binding);
        if (!isnan(c->onset_rate))
            kv_fprintf(out, "; preemption starts near %s req/s",
                    fmt_fixed(b, sizeof b, c->onset_rate, 3, 1));
        fputs("\n", out);
    }
    if (rep->workload)
        kv_fprintf(out, "  (rules: %s; left out: %s)\n", rep->sched->rules, rep->sched->left_out);
}

void report_metrics_csv(FILE *out, const kv_report *rep)
{
    row rows[16];
    size_t n = rows_of(rep->metrics, rows);
    char a[FMT_BUF], b[FMT_BUF];
    fputs("figure,scrape,kvcalc\n", out);
    for (size_t i = 0; i < n; i++)
        kv_fprintf(out, "%s,%s,%s\n", rows[i].words,
                isnan(rows[i].scrape) ? "" : fmt_json_number(a, sizeof a, rows[i].scrape),
                isnan(rows[i].kvcalc) ? "" : fmt_json_number(b, sizeof b, rows[i].kvcalc));
}
