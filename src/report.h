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
/* One JSON object: schema_version, inputs, every kv_outputs key, rows. */
void report_json(FILE *out, const kv_spec *s, const kv_result *r);
/* A header line and one line per context-vs-concurrency row. */
void report_csv(FILE *out, const kv_spec *s, const kv_result *r);
/* One top-level value on one line (--get). */
void report_value(FILE *out, const output_field *f, const kv_spec *s, const kv_result *r);

#endif
