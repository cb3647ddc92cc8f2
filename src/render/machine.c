/*
 * machine.c - machine-readable output: one JSON object (--format json) and CSV rows
 * (--format csv). Every number is the same double the text shows, printed as the shortest
 * decimal that reads back to it; bytes are bytes, not GiB. Top-level scalars come from the
 * key table (keys.c), so the JSON document, --get and docs/output.md cannot disagree.
 */
#include "kvprint.h"
#include "report.h"

#include "format.h"
#include "keys.h"

#include <string.h>

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    while (*s) {
        unsigned char c = (unsigned char)*s;
        unsigned long cp;
        size_t len = utf8_seq(s, &cp);
        const char *esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
        if (len == 0) /* not UTF-8: JSON text must be, so the replacement character */
            fputs("\\ufffd", out);
        else if (esc)
            fputs(esc, out);
        else if (c == '"' || c == '\\')
            kv_fprintf(out, "\\%c", c);
        else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) /* C0, DEL and C1 escaped */
            fprintf(out, "\\u%04lx", cp);
        else
            fwrite(s, 1, len, out);
        s += len ? len : 1;
    }
    fputc('"', out);
}

const char *const kv_source_names[SOURCE_COUNT] = {
    [SOURCE_DEFAULT] = "default", [SOURCE_FLAG] = "flag",         [SOURCE_PRESET] = "preset",
    [SOURCE_CONFIG] = "config",   [SOURCE_CHECKPOINT] = "checkpoint", [SOURCE_ESTIMATE] = "estimate",
};

static void json_value(FILE *out, kv_field_value v)
{
    char buf[FMT_BUF];
    if (v.kind == KV_VAL_STR && !v.is_null)
        json_string(out, v.s);
    else
        fputs(kv_value_text(buf, sizeof buf, v), out);
}

static const char *const kind_keys[KV_LAYER_KINDS] = {"full", "sliding", "chunked", "state"};

/* An integer, or null when it is 0 (a figure that does not apply). */
static const char *int_or_null(char *buf, size_t cap, int64_t v)
{
    return v > 0 ? fmt_int(buf, cap, v, 0) : "null";
}

/* "layout": how the layers keep the context, one entry per group of alike layers. The heads
 * are the group's own, per GPU, as its bytes are. */
static void report_json_layout(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    kv_fprintf(out, "  \"layout\": {\n    \"mla\": %s,\n    \"mla_latent\": %s,\n",
            s->layout.mla ? "true" : "false",
            s->layout.mla ? fmt_int(a, sizeof a, s->layout.mla_latent, 0) : "null");
    kv_fprintf(out, "    \"state_size_known\": %s,\n    \"parallel_state\": %s,\n    \"groups\": [",
            r->state_unknown ? "false" : "true", s->layout.parallel_state ? "true" : "false");
    for (size_t i = 0; i < r->n_groups; i++) {
        const kv_group *g = &r->groups[i];
        kv_fprintf(out, "%s\n      {\"kind\": \"%s\", \"count\": %lld, ", i ? "," : "",
                kind_keys[g->kind], (long long)g->count);
        kv_fprintf(out, "\"kv_heads\": %s, \"head_dim\": %s, \"window\": %s, ",
                int_or_null(a, sizeof a, g->kv_heads), int_or_null(b, sizeof b, g->head_dim),
                int_or_null(c, sizeof c, g->tokens_max));
        kv_fprintf(out, "\"bytes_per_token\": %s, \"bytes_fixed\": %s, ",
                fmt_json_number(a, sizeof a, g->bytes_per_token),
                fmt_json_number(b, sizeof b, g->bytes_fixed));
        kv_fprintf(out, "\"bytes_per_request\": %s}", fmt_json_number(c, sizeof c, g->bytes_per_request));
    }
    fputs("\n    ]\n  },\n", out);
}

/* Whether parameter p is an input of the spec's engine (or of every engine). */
static int applies(const kv_param *p, const kv_spec *s)
{
    return p->engine == KV_ENGINE_COUNT || p->engine == s->engine;
}

/* "inputs": every spec input the engine uses, as the spec holds it. */
static void report_json_inputs(FILE *out, const kv_spec *s)
{
    char buf[FMT_BUF];
    int first = 1, is_string;
    fputs("  \"inputs\": {", out);
    for (size_t i = 0, n = kv_param_count(); i < n; i++) {
        const kv_param *p = kv_param_at(i);
        if (!applies(p, s))
            continue;
        kv_fprintf(out, "%s\n    \"%s\": ", first ? "" : ",", p->key);
        first = 0;
        kv_param_text(buf, sizeof buf, s, p, &is_string);
        if (p->clears & KV_CLEARS_ESTIMATE && s->params_estimated)
            fputs("null", out); /* not used: the config's estimate is (see "params") */
        else if (is_string)
            json_string(out, buf);
        else
            fputs(buf, out);
    }
    fputs("\n  },\n", out);
}

/* "sources": where each input of "inputs" came from (flag, preset, config, checkpoint,
 * default, estimate); null in a report without them. */
static void report_json_sources(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    int first = 1;
    if (!rep->sources) {
        fputs("  \"sources\": null,\n", out);
        return;
    }
    fputs("  \"sources\": {", out);
    for (size_t i = 0, n = kv_param_count(); i < n; i++) {
        const kv_param *p = kv_param_at(i);
        if (!applies(p, s))
            continue;
        kv_fprintf(out, "%s\n    \"%s\": \"%s\"", first ? "" : ",", p->key,
                kv_source_names[rep->sources->of[i]]);
        first = 0;
    }
    /* the workload's step time: --tpot-ms, or the roofline's estimate (workload_step_assumes
     * says what it assumes) */
    if (rep->sources->step < SOURCE_COUNT && rep->workload && rep->workload->step_s > 0)
        kv_fprintf(out, "%s\n    \"workload_step_s\": \"%s\"", first ? "" : ",",
                kv_source_names[rep->sources->step]);
    fputs("\n  },\n", out);
}

/* "as_typed": the layout as typed when --gpus chose another (null otherwise). */
static void report_json_as_typed(FILE *out, const kv_report *rep)
{
    const kv_spec *t = rep->typed_spec;
    const kv_result *r = rep->typed_result;
    char a[FMT_BUF], b[FMT_BUF];
    if (!t || !r) {
        fputs("  \"as_typed\": null,\n", out);
        return;
    }
    kv_fprintf(out, "  \"as_typed\": {\"tensor_parallel_size\": %lld, \"pipeline_parallel_size\": "
                 "%lld, \"data_parallel_size\": %lld, \"max_concurrency\": %s, "
                 "\"deployment_max_concurrency\": %s, \"fits\": %s},\n",
            (long long)t->tp, (long long)t->pp, (long long)t->dp,
            fmt_json_number(a, sizeof a, r->max_concurrency),
            fmt_json_number(b, sizeof b, r->deployment_max_concurrency),
            r->fits ? "true" : "false");
}

void report_json(FILE *out, const kv_report *rep)
{
    const kv_result *r = rep->result;
    fputs("{\n", out);
    /* a key and its value are one write: three stdio calls a key were half of what a
     * --gpus 16 document cost (issue 22); keys are identifiers, strings are escaped */
    for (size_t i = 0, n = kv_field_count(); i < n; i++) {
        const kv_field *f = kv_field_at(i);
        kv_field_value v = kv_report_value(f, rep);
        char val[FMT_BUF], line[FMT_BUF + 96];
        const char *t = v.kind == KV_VAL_STR && !v.is_null ? NULL : kv_value_text(val, sizeof val, v);
        size_t k = strlen(f->name), m = t ? strlen(t) : 0;
        if (!t || k + m + 7 > sizeof line) {
            kv_fprintf(out, "  \"%s\": ", f->name);
            json_value(out, v);
            fputs(",\n", out);
            continue;
        }
        memcpy(line, "  \"", 3);
        memcpy(line + 3, f->name, k);
        memcpy(line + 3 + k, "\": ", 3);
        memcpy(line + 6 + k, t, m);
        memcpy(line + 6 + k + m, ",\n", 2);
        fwrite(line, 1, k + m + 8, out);
    }
    report_json_inputs(out, rep->spec);
    report_json_sources(out, rep);
    report_json_layout(out, rep->spec, r);
    report_json_as_typed(out, rep);
    report_plan_json(out, rep);
    fputs("  \"rows\": [", out);
    for (size_t i = 0; i < rep->table->n_rows; i++) {
        const kv_row *row = &rep->table->rows[i];
        char b1[FMT_BUF], b2[FMT_BUF], b3[FMT_BUF];
        kv_fprintf(out,
                "%s\n    {\"context\": %s, \"kv_bytes_per_request\": %s, "
                "\"max_concurrency\": %s, \"is_setting\": %s}",
                i ? "," : "", fmt_int(b1, sizeof b1, row->context, 0),
                fmt_json_number(b2, sizeof b2, row->kv_bytes_per_request),
                fmt_json_number(b3, sizeof b3, row->max_concurrency),
                row->is_setting ? "true" : "false");
    }
    fputs("\n  ]\n}\n", out);
}

void report_csv(FILE *out, const kv_report *rep)
{
    fputs("context,kv_bytes_per_request,max_concurrency,is_setting\n", out);
    for (size_t i = 0; i < rep->table->n_rows; i++) {
        const kv_row *row = &rep->table->rows[i];
        char b1[FMT_BUF], b2[FMT_BUF], b3[FMT_BUF];
        kv_fprintf(out, "%s,%s,%s,%s\n", fmt_int(b1, sizeof b1, row->context, 0),
                fmt_json_number(b2, sizeof b2, row->kv_bytes_per_request),
                fmt_json_number(b3, sizeof b3, row->max_concurrency),
                row->is_setting ? "true" : "false");
    }
}
