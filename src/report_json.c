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
    if (v.kind == OUT_STR)
        json_string(out, v.s);
    else
        fputs(output_text(buf, sizeof buf, v), out);
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
    for (size_t i = 0; i < kv_inputs_count; i++) {
        const input_field *f = &kv_inputs[i];
        fprintf(out, "%s\n    \"%s\": ", i ? "," : "", f->key);
        if (f->kind == IN_DTYPE)
            json_string(out, input_text(buf, sizeof buf, s, f));
        else
            fputs(input_text(buf, sizeof buf, s, f), out);
    }
    fputs("\n  },\n", out);
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
