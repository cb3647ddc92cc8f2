/*
 * report.h - renderers: a computed result -> text on a stream. Renderers decide nothing:
 * every number they show is in kv_result (or echoes kv_spec); they only lay it out.
 */
#ifndef KVCALC_REPORT_H
#define KVCALC_REPORT_H

#include "fields.h"
#include "kvcalc.h"

#include <stdio.h>

/* The lesson's table, byte for byte. */
void report_text(FILE *out, const kv_spec *s, const kv_result *r);
/* The --engine vllm section: vLLM's budget, blocks and startup lines in its own words. */
void report_vllm_text(FILE *out, const kv_spec *s, const kv_result *r);
/* --plot: an SVG of the curve and the memory split. */
void report_svg(FILE *out, const kv_spec *s, const kv_result *r, const kv_curve *c);
/* --target-concurrency and --levers sections (text), and their JSON members. */
void report_plan_text(FILE *out, const kv_spec *s, const kv_result *r);
void report_levers_text(FILE *out, const kv_spec *s, const kv_result *r);
void report_plan_json(FILE *out, const kv_spec *s, const kv_result *r);
/* One JSON object: schema_version, inputs, every kv_outputs key, rows. */
void report_json(FILE *out, const kv_spec *s, const kv_result *r);
/* A header line and one line per context-vs-concurrency row. */
void report_csv(FILE *out, const kv_spec *s, const kv_result *r);
/* "36 layers, 8 KV heads, head_dim 128", "61 MLA layers, latent 576" or
 * "62 layers: 10 full + 52 sliding(1024), 16 KV heads, head_dim 128". */
char *layout_summary(char *buf, size_t cap, const kv_spec *s, const kv_result *r);
/* --list-gpus: the GPU table. */
void report_gpu_list(FILE *out);
/* --list-models: header, then one row per model (call once per preset). */
void report_model_list_header(FILE *out);
void report_model_row(FILE *out, const char *id, const char *alias, const kv_spec *s,
                      const kv_result *r);

/* One top-level value on one line (--get). */
void report_value(FILE *out, const output_field *f, const kv_spec *s, const kv_result *r);

#endif
