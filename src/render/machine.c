/*
 * report_json.c - machine-readable output: one JSON object (--format json), CSV rows
 * (--format csv) and single values (--get). Every number is the same double the text shows,
 * printed as the shortest decimal that reads back to it; bytes are bytes, not GiB.
 */
#include "report.h"

#include "format.h"

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void json_value(FILE *out, output_value v)
{
    char buf[FMT_BUF];
    if (v.kind == OUT_STR && !v.is_null)
        json_string(out, v.s);
    else
        fputs(output_text(buf, sizeof buf, v), out);
}

static const char *const kind_keys[KV_LAYER_KINDS] = {"full", "sliding", "chunked", "state"};

/* "layout": how the layers keep the context, one entry per group of alike layers. */
static void report_json_layout(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    fprintf(out, "  \"layout\": {\n    \"mla\": %s,\n    \"mla_latent\": %s,\n",
            s->layout.mla ? "true" : "false",
            s->layout.mla ? fmt_int(a, sizeof a, s->layout.mla_latent, 0) : "null");
    fprintf(out, "    \"state_size_known\": %s,\n    \"groups\": [",
            r->state_unknown ? "false" : "true");
    for (size_t i = 0; i < r->n_groups; i++) {
        const kv_group *g = &r->groups[i];
        int attention = g->kind != KV_LAYER_STATE && !s->layout.mla;
        fprintf(out, "%s\n      {\"kind\": \"%s\", \"count\": %lld, ", i ? "," : "",
                kind_keys[g->kind], (long long)g->count);
        fprintf(out, "\"kv_heads\": %s, \"head_dim\": %s, \"window\": %s, ",
                attention ? fmt_int(a, sizeof a, s->kv_heads, 0) : "null",
                attention ? fmt_int(b, sizeof b, s->head_dim, 0) : "null",
                g->tokens_max > 0 ? fmt_int(c, sizeof c, g->tokens_max, 0) : "null");
        fprintf(out, "\"bytes_per_token\": %s, \"bytes_fixed\": %s, ",
                fmt_json_number(a, sizeof a, g->bytes_per_token),
                fmt_json_number(b, sizeof b, g->bytes_fixed));
        fprintf(out, "\"bytes_per_request\": %s}", fmt_json_number(c, sizeof c, g->bytes_per_request));
    }
    fputs("\n    ]\n  },\n", out);
}

void report_json(FILE *out, const kv_spec *s, const kv_result *r)
{
    char buf[FMT_BUF];
    fputs("{\n", out);
    for (size_t i = 0; i < kv_outputs_count; i++) {
        fprintf(out, "  \"%s\": ", kv_outputs[i].key);
        json_value(out, kv_outputs[i].get(s, r));
        fputs(",\n", out);
    }
    fputs("  \"inputs\": {", out);
    int first = 1;
    for (size_t i = 0; i < kv_inputs_count; i++) {
        const input_field *f = &kv_inputs[i];
        if (f->group == GROUP_VLLM && s->engine != KV_ENGINE_VLLM)
            continue; /* not used without --engine vllm */
        fprintf(out, "%s\n    \"%s\": ", first ? "" : ",", f->key);
        first = 0;
        if (f->error == KV_ERR_PARAMS_B && s->params_estimated)
            fputs("null", out); /* not used: the config's estimate is (see "params") */
        else if (input_is_string(s, f))
            json_string(out, input_text(buf, sizeof buf, s, f));
        else
            fputs(input_text(buf, sizeof buf, s, f), out);
    }
    fputs("\n  },\n", out);
    report_json_layout(out, s, r);
    report_plan_json(out, s, r);
    fputs("  \"rows\": [", out);
    for (size_t i = 0; i < r->n_rows; i++) {
        const kv_row *row = &r->rows[i];
        char b1[FMT_BUF], b2[FMT_BUF], b3[FMT_BUF];
        fprintf(out,
                "%s\n    {\"context\": %s, \"kv_bytes_per_request\": %s, "
                "\"max_concurrency\": %s, \"is_setting\": %s}",
                i ? "," : "", fmt_int(b1, sizeof b1, row->context, 0),
                fmt_json_number(b2, sizeof b2, row->kv_bytes_per_request),
                fmt_json_number(b3, sizeof b3, row->max_concurrency),
                row->is_setting ? "true" : "false");
    }
    fputs("\n  ]\n}\n", out);
}

void report_csv(FILE *out, const kv_spec *s, const kv_result *r)
{
    (void)s;
    fputs("context,kv_bytes_per_request,max_concurrency,is_setting\n", out);
    for (size_t i = 0; i < r->n_rows; i++) {
        const kv_row *row = &r->rows[i];
        char b1[FMT_BUF], b2[FMT_BUF], b3[FMT_BUF];
        fprintf(out, "%s,%s,%s,%s\n", fmt_int(b1, sizeof b1, row->context, 0),
                fmt_json_number(b2, sizeof b2, row->kv_bytes_per_request),
                fmt_json_number(b3, sizeof b3, row->max_concurrency),
                row->is_setting ? "true" : "false");
    }
}

void report_value(FILE *out, const output_field *f, const kv_spec *s, const kv_result *r)
{
    char buf[FMT_BUF];
    fputs(output_text(buf, sizeof buf, f->get(s, r)), out);
    fputc('\n', out);
}
