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

/* Where an input's value came from: JSON "sources", and the text's notes on the lesson's
 * defaults applied to a real model. */
typedef enum {
    SOURCE_DEFAULT,    /* the lesson's default, or the engine's default rule */
    SOURCE_FLAG,       /* given on the command line (or a sweep axis) */
    SOURCE_PRESET,     /* a built-in model or GPU */
    SOURCE_CONFIG,     /* a config.json file */
    SOURCE_CHECKPOINT, /* a checkpoint's own header (GGUF, safetensors) */
    SOURCE_ESTIMATE,   /* kvcalc's estimate (the parameter count, an engine's terms) */
    SOURCE_COUNT
} kv_source;

extern const char *const kv_source_names[SOURCE_COUNT];

#define KV_MAX_SOURCES 192

/* The source of each spec input, by parameter index (kv_param_index()), and of the
 * workload's step time (SOURCE_FLAG: --tpot-ms, SOURCE_ESTIMATE: the GPU's roofline;
 * SOURCE_COUNT: none to name). */
typedef struct kv_sources {
    unsigned char of[KV_MAX_SOURCES];
    unsigned char step;
} kv_sources;

typedef struct {
    const kv_spec *spec;
    const kv_result *result;
    const kv_table *table;   /* the context-vs-concurrency rows, or NULL (sweep rows) */
    const kv_plan *plan;     /* --target-concurrency, or NULL */
    const kv_levers *levers; /* --levers, or NULL */
    const kv_curve *curve;   /* --plot, or NULL */
    const kv_layouts *layouts; /* --gpus, or NULL */
    const kv_sources *sources; /* each input's source, or NULL (a sweep's rows) */
    const kv_comparison *comparison;  /* --from-log, or NULL */
    const kv_workload *workload_in;   /* the workload asked about, or NULL */
    const kv_sched *sched;            /* ... the scheduler it ran on */
    const kv_workload_result *workload; /* ... and what it gave */
    const kv_trace *trace;            /* its requests' trace (--trace), or NULL */
    const kv_metrics_comparison *metrics; /* --from-metrics, or NULL */
    const char *metrics_name;         /* ... the first file, as typed */
    const char *trace_name;           /* ... as typed */
    /* --gpus N with no --tp / --pp / --dp typed: the best layout drives the report (spec,
     * result) and the layout as typed stays here; NULL otherwise */
    const kv_spec *typed_spec;
    const kv_result *typed_result;
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

/* Each engine's section of the text report (render/NAME_section.c; the lesson's engine has
 * none to add: text.c). */
#define KV_ENGINE(ID, id, name) void report_##id##_text(FILE *out, const kv_report *rep);
#include "kvcalc_engines.def"
#undef KV_ENGINE
#ifdef KVCALC_ENGINES
/* llama.cpp's own lines of a result (n_ctx, its rounding, the cache lines) in the build's
 * words: for the sections of engines that run llama.cpp (Ollama's llama-server). */
void report_llamacpp_lines(FILE *out, const kv_llamacpp_result *L);
#endif
void report_plan_text(FILE *out, const kv_report *rep);
/* --from-metrics: the scrape's figures and kvcalc's (rep->metrics), as text and CSV. */
void report_metrics_text(FILE *out, const kv_report *rep);
void report_metrics_csv(FILE *out, const kv_report *rep);
/* The workload's lines (rep->workload): the lengths on the scheduler, the limits, the run. */
void report_workload_text(FILE *out, const kv_report *rep);
void report_levers_text(FILE *out, const kv_report *rep);
void report_layouts_text(FILE *out, const kv_report *rep);
/* The plan's and levers' JSON members ("plan_options", "levers"). */
void report_plan_json(FILE *out, const kv_report *rep);

/* "36 layers, 8 KV heads, head_dim 128", "61 MLA layers, latent 576" or
 * "62 layers: 10 full + 52 sliding(1024), 16 KV heads, head_dim 128". */
char *layout_summary(char *buf, size_t cap, const kv_spec *s, const kv_result *r);

/* --list-gpus and --list-models. */
/* --list-gpus and --list-models in the --format asked for (text, json, csv): the header, one
 * row per entry (index i counts the rows), the footer. */
typedef enum { LIST_TEXT, LIST_JSON, LIST_CSV } kv_list_format;
void report_gpu_list(FILE *out, kv_list_format f);
void report_model_list_header(FILE *out, kv_list_format f);
void report_model_row(FILE *out, kv_list_format f, size_t i, const char *alias, const kv_spec *s,
                      const kv_result *r);
void report_model_list_footer(FILE *out, kv_list_format f);

/* User text for a terminal: control bytes replaced, on one line (render/format.c). */
const char *text_safe(char *buf, size_t cap, const char *text);
/* A JSON string literal, quotes and escapes included. */
void json_string(FILE *out, const char *s);
/* A spec input's current value in s as JSON text: a number, a name, true/false, "null";
 * *is_string: a name (to be quoted). */
char *kv_param_text(char *buf, size_t cap, const kv_spec *s, const kv_param *p, int *is_string);

#endif
