/*
 * report.h - the report bundle and the renderers: one per format.
 *
 * The pipeline (cli/pipeline.c) fills a kv_report: the spec, its result, and the sections
 * that were asked for (NULL = not asked). Renderers decide nothing: every number they show
 * is in the bundle; they only lay it out.
 */
#ifndef KVCALC_REPORT_H
#define KVCALC_REPORT_H

#include "kvcalc.h"

#include <stdio.h>

struct kv_sources; /* where each input came from (cli/options.h) */

typedef struct {
    const kv_spec *spec;
    const kv_result *result;
    const kv_table *table;   /* the context-vs-concurrency rows, or NULL (sweep rows) */
    const kv_plan *plan;     /* --target-concurrency, or NULL */
    const kv_levers *levers; /* --levers, or NULL */
    const kv_curve *curve;   /* --plot, or NULL */
    const kv_layouts *layouts; /* --gpus, or NULL */
    const struct kv_sources *sources; /* each input's source, or NULL (a sweep's rows) */
} kv_report;

/* The lesson's table, byte for byte for the lesson's model; then the asked-for sections. */
void report_text(FILE *out, const kv_report *rep);
/* One JSON object: every output key, "inputs", "layout", the plan, "rows". */
void report_json(FILE *out, const kv_report *rep);
/* A header line and one line per context-vs-concurrency row. */
void report_csv(FILE *out, const kv_report *rep);
/* An SVG of rep->curve and the memory split (--plot). */
void report_svg(FILE *out, const kv_report *rep);

/* Sections of the text report. */
void report_vllm_text(FILE *out, const kv_report *rep);
void report_sglang_text(FILE *out, const kv_report *rep);
void report_trtllm_text(FILE *out, const kv_report *rep);
void report_llamacpp_text(FILE *out, const kv_report *rep);
void report_plan_text(FILE *out, const kv_report *rep);
void report_levers_text(FILE *out, const kv_report *rep);
void report_layouts_text(FILE *out, const kv_report *rep);
/* The plan's and levers' JSON members ("plan_options", "levers"). */
void report_plan_json(FILE *out, const kv_report *rep);

/* "36 layers, 8 KV heads, head_dim 128", "61 MLA layers, latent 576" or
 * "62 layers: 10 full + 52 sliding(1024), 16 KV heads, head_dim 128". */
char *layout_summary(char *buf, size_t cap, const kv_spec *s, const kv_result *r);

/* --list-gpus and --list-models. */
void report_gpu_list(FILE *out);
void report_model_list_header(FILE *out);
void report_model_row(FILE *out, const char *alias, const kv_spec *s, const kv_result *r);
void report_model_list_footer(FILE *out);

/* User text for a terminal: control bytes replaced, on one line (render/format.c). */
const char *text_safe(char *buf, size_t cap, const char *text);
/* A JSON string literal, quotes and escapes included. */
void json_string(FILE *out, const char *s);

#endif
