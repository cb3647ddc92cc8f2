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

/* One row of the --from-log comparison: a quantity the log states, kvcalc's figure for it,
 * and the budget term that explains the difference. NaN: not stated / not computed. */
#define KV_CMP_MAX_LINES 24
typedef struct {
    const char *quantity; /* "activation peak" */
    const char *unit;     /* "bytes", "tokens", "blocks", "requests", "fraction", "cells" */
    double logged, kvcalc, difference; /* difference = kvcalc - logged */
    char term[200];       /* which term explains it, in words */
} kv_cmp_line;

/* kvcalc against a startup log (--from-log), computed by cli/fromlog.c. */
typedef struct kv_comparison {
    const char *file;         /* the log as typed ("-": standard input) */
    const kv_log_values *values; /* everything the log states (borrowed) */
    kv_engine engine;
    char engine_version[32];  /* as logged; "" = not stated */
    char era[32];             /* the line formats seen; "" */
    char model[256];          /* as logged; "" */
    int64_t startups;         /* startups in the file (the last is compared) */
    int what_if;              /* 1: the GPU or fraction was given: the log's KV figure is
                                 not used (its measured terms are) */
    int64_t log_lines;        /* lines read */
    int64_t log_lines_skipped;/* lines longer than the reader's buffer, and a cut last line */
    double logged_available_kv_bytes; /* NaN: not stated */
    double logged_kv_cache_tokens;
    double logged_weights_bytes;
    double logged_gpu_mem_bytes;
    double kv_cache_tokens;      /* kvcalc's, given the log's KV figure */
    double available_kv_bytes;   /* kvcalc's, end to end; NaN without a GPU total */
    double kv_budget_error_pct;  /* (available - logged) / logged x 100 */
    size_t n_lines;
    kv_cmp_line lines[KV_CMP_MAX_LINES];
} kv_comparison;

typedef struct {
    const kv_spec *spec;
    const kv_result *result;
    const kv_table *table;   /* the context-vs-concurrency rows, or NULL (sweep rows) */
    const kv_plan *plan;     /* --target-concurrency, or NULL */
    const kv_levers *levers; /* --levers, or NULL */
    const kv_curve *curve;   /* --plot, or NULL */
    const kv_layouts *layouts; /* --gpus, or NULL */
    const struct kv_sources *sources; /* each input's source, or NULL (a sweep's rows) */
    const kv_comparison *comparison;  /* --from-log, or NULL */
} kv_report;

/* The lesson's table, byte for byte for the lesson's model; then the asked-for sections. */
void report_text(FILE *out, const kv_report *rep);
/* One JSON object: every output key, "inputs", "layout", the plan, "rows". */
void report_json(FILE *out, const kv_report *rep);
/* A header line and one line per context-vs-concurrency row. */
void report_csv(FILE *out, const kv_report *rep);
/* --from-log: the comparison as a table, one JSON document, CSV rows. */
void report_fromlog_text(FILE *out, const kv_report *rep);
void report_fromlog_json(FILE *out, const kv_report *rep);
void report_fromlog_csv(FILE *out, const kv_report *rep);
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
