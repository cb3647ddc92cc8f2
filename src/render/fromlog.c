/*
 * fromlog.c - --from-log: the comparison with a startup log, as a table, a JSON document
 * and CSV rows. Everything shown is in rep->comparison (cli/fromlog.c computed it).
 */
#include "kvprint.h"
#include "report.h"

#include "format.h"
#include "keys.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "kvmath.h"

/* A value in its unit for the table: GiB (MiB below 1 GiB) for bytes, grouped integers,
 * two decimals otherwise; "-" when not stated or not computed. */
static const char *cell(char *buf, size_t cap, double x, const char *unit, int sign)
{
    char num[FMT_BUF];
    if (isnan(x))
        return strcpy(buf, "-");
    int bytes = strcmp(unit, "bytes") == 0;
    if (fabs(x) < (bytes ? 0.005 * KV_MIB : 0.005))
        x = 0; /* what shows as 0.00 is 0, without a sign of its own */
    if (bytes) {
        int mib = fabs(x) < KV_GIB && x != 0;
        kv_snprintf(buf, cap, "%s%s %s", sign && x >= 0 ? "+" : "",
                 fmt_fixed(num, sizeof num, x / (mib ? KV_MIB : KV_GIB), 2, 1), mib ? "MiB" : "GiB");
    } else if (x == kvm_floor(x) && fabs(x) < 9e15) {
        kv_snprintf(buf, cap, "%s%s", sign && x >= 0 ? "+" : "", fmt_int(num, sizeof num, (int64_t)x, 1));
    } else {
        kv_snprintf(buf, cap, "%s%s", sign && x >= 0 ? "+" : "", fmt_fixed(num, sizeof num, x, 2, 1));
    }
    return buf;
}

/* The texts a log states, by their JSON names. */
static const struct {
    const char *name;
    size_t offset;
} texts[] = {
    {"version", offsetof(kv_log_values, version)},
    {"era", offsetof(kv_log_values, era)},
    {"model", offsetof(kv_log_values, model)},
    {"served_model_name", offsetof(kv_log_values, served)},
    {"dtype", offsetof(kv_log_values, dtype)},
    {"kv_cache_dtype", offsetof(kv_log_values, kv_dtype)},
    {"quantization", offsetof(kv_log_values, quantization)},
    {"cache_type_k", offsetof(kv_log_values, type_k)},
    {"cache_type_v", offsetof(kv_log_values, type_v)},
};

/* "Logged: ..." - every setting the log states that is not a row of the table. */
static void logged_settings(FILE *out, const kv_comparison *c)
{
    const kv_log_values *v = c->values;
    char num[FMT_BUF], safe[300];
    int n = 0;
    for (size_t i = 0; i < c->n_settings; i++)
        kv_fprintf(out, "%s%s %s", n++ ? ", " : "Logged: ", c->settings[i].name,
                c->settings[i].word ? c->settings[i].word
                                    : fmt_json_number(num, sizeof num, c->settings[i].value));
    for (size_t i = 3; i < sizeof texts / sizeof texts[0]; i++) { /* after version, era, model */
        const char *t = (const char *)v + texts[i].offset;
        if (t[0])
            kv_fprintf(out, "%s%s %s", n++ ? ", " : "Logged: ", texts[i].name,
                    text_safe(safe, sizeof safe, t));
    }
    if (n)
        fputs(".\n", out);
}

void report_fromlog_text(FILE *out, const kv_report *rep)
{
    const kv_comparison *c = rep->comparison;
    char a[FMT_BUF], b[FMT_BUF], d[FMT_BUF], safe[600];
    kv_fprintf(out, "kvcalc --from-log %s: %s", text_safe(safe, sizeof safe, c->file),
            kv_engine_title(c->engine));
    if (c->engine_version[0])
        kv_fprintf(out, " %s", text_safe(safe, sizeof safe, c->engine_version));
    if (c->era[0])
        kv_fprintf(out, " (%s lines)", text_safe(safe, sizeof safe, c->era));
    if (c->model[0])
        kv_fprintf(out, ", model %s", text_safe(safe, sizeof safe, c->model));
    kv_fprintf(out, "\nkvcalc's model: %s\n",
            rep->spec->model_name ? text_safe(safe, sizeof safe, rep->spec->model_name)
                                  : "the lesson's illustrative model");
    logged_settings(out, c);
    if (c->startups > 1)
        kv_fprintf(out, "%lld startups in the file: the last one is compared.\n",
                (long long)c->startups);
    if (c->what_if & KV_WHAT_IF_BUDGET)
        fputs("What if: the GPU or the memory fraction was given, so the KV lines are sized "
              "from the new budget\nwith the log's measured terms, not from its KV figure.\n",
              out);
    else if (c->what_if & KV_WHAT_IF_SETTINGS)
        fputs("What if: flags change settings the log states, so the KV lines are the log's "
              "figures at the\nsettings given: their differences are those flags'.\n", out);
    if (c->log_lines_skipped > 0)
        kv_fprintf(out, "%lld lines skipped (longer than %d bytes, or a cut last line).\n",
                (long long)c->log_lines_skipped, KV_LOG_LINE_MAX);
    kv_fprintf(out, "\n%-27s %14s %14s %14s  %s\n", "quantity", "logged", "kvcalc", "difference",
            "term");
    for (size_t i = 0; i < c->n_lines; i++) {
        const kv_cmp_line *l = &c->lines[i];
        kv_fprintf(out, "%-27s %14s %14s %14s  %s\n", l->quantity,
                cell(a, sizeof a, l->logged, l->unit, 0), cell(b, sizeof b, l->kvcalc, l->unit, 0),
                cell(d, sizeof d, l->difference, l->unit, 1), l->term);
    }
    if (!isnan(c->kv_budget_error_pct))
        fprintf(out, "\nKV memory: logged %s, kvcalc %s end to end (%+.2f%%).\n",
                cell(a, sizeof a, c->logged_available_kv_bytes, "bytes", 0),
                cell(b, sizeof b, c->available_kv_bytes, "bytes", 0), c->kv_budget_error_pct);
    else if (isnan(c->available_kv_bytes))
        fputs("\nNo end-to-end figure: the log states no GPU total (give --gpu or "
              "--gpu-mem-gib).\n",
              out);
}

static void json_number_or_null(FILE *out, double x)
{
    char buf[FMT_BUF];
    fputs(isnan(x) ? "null" : fmt_json_number(buf, sizeof buf, x), out);
}

void report_fromlog_json(FILE *out, const kv_report *rep)
{
    const kv_comparison *c = rep->comparison;
    char buf[FMT_BUF];
    fputs("{\n", out);
    kv_fprintf(out, "  \"schema_version\": %d,\n  \"version\": ", KV_SCHEMA_VERSION);
    json_string(out, KVCALC_VERSION);
    fputs(",\n  \"log\": ", out);
    json_string(out, c->file);
    fputs(",\n  \"model\": ", out);
    if (rep->spec->model_name)
        json_string(out, rep->spec->model_name);
    else
        fputs("null", out);
    fputs(",\n", out);
    for (size_t i = 0; i < kv_log_field_count(); i++) {
        kv_field_value v = kv_report_value(kv_log_field_at(i), rep);
        kv_fprintf(out, "  \"%s\": ", kv_log_field_at(i)->name);
        if (v.kind == KV_VAL_STR && !v.is_null)
            json_string(out, v.s);
        else
            fputs(kv_value_text(buf, sizeof buf, v), out);
        fputs(",\n", out);
    }
    /* "logged": every figure and text the log states, null where it does not say */
    const kv_log_values *lv = c->values;
    fputs("  \"logged\": {", out);
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        const char *t = (const char *)lv + texts[i].offset;
        kv_fprintf(out, "%s\n    \"%s\": ", i ? "," : "", texts[i].name);
        if (t[0])
            json_string(out, t);
        else
            fputs("null", out);
    }
    for (int f = 0; f < kv_log_fields(c->engine); f++) {
        kv_fprintf(out, ",\n    \"%s\": ", kv_log_field_name(c->engine, f));
        json_number_or_null(out, lv->present[f] ? lv->v[f] : NAN);
    }
    fputs("\n  },\n", out);
    fputs("  \"lines\": [", out);
    for (size_t i = 0; i < c->n_lines; i++) {
        const kv_cmp_line *l = &c->lines[i];
        kv_fprintf(out, "%s\n    {\"quantity\": ", i ? "," : "");
        json_string(out, l->quantity);
        fputs(", \"unit\": ", out);
        json_string(out, l->unit);
        fputs(", \"logged\": ", out);
        json_number_or_null(out, l->logged);
        fputs(", \"kvcalc\": ", out);
        json_number_or_null(out, l->kvcalc);
        fputs(", \"difference\": ", out);
        json_number_or_null(out, l->difference);
        fputs(", \"term\": ", out);
        json_string(out, l->term);
        fputc('}', out);
    }
    fputs("\n  ]\n}\n", out);
}

/* CSV fields hold no comma or quote but the term's: quoted. */
void report_fromlog_csv(FILE *out, const kv_report *rep)
{
    const kv_comparison *c = rep->comparison;
    char buf[FMT_BUF];
    fputs("quantity,unit,logged,kvcalc,difference,term\n", out);
    for (size_t i = 0; i < c->n_lines; i++) {
        const kv_cmp_line *l = &c->lines[i];
        kv_fprintf(out, "%s,%s,", l->quantity, l->unit);
        kv_fprintf(out, "%s,", isnan(l->logged) ? "" : fmt_json_number(buf, sizeof buf, l->logged));
        kv_fprintf(out, "%s,", isnan(l->kvcalc) ? "" : fmt_json_number(buf, sizeof buf, l->kvcalc));
        kv_fprintf(out, "%s,\"",
                isnan(l->difference) ? "" : fmt_json_number(buf, sizeof buf, l->difference));
        for (const char *t = l->term; *t; t++)
            fputs(*t == '"' ? "\"\"" : (char[]){*t, 0}, out);
        fputs("\"\n", out);
    }
}
