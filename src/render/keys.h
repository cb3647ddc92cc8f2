/*
 * keys.h - the output keys of a report: the library's fields (kv_field_at()), read from
 * the part of the report each names.
 *
 * The JSON renderer, --get, --require and the sweep's columns read values through here,
 * and docs/output.md (checked by a test) lists every field, so none of them can disagree.
 */
#ifndef KVCALC_KEYS_H
#define KVCALC_KEYS_H

#include "report.h"

/* A field's value in a report: null when the part it reads was not computed, or when it is
 * another engine's field. Under --from-log a name of the comparison's own fields is read
 * there (kv_cache_tokens, available_kv_bytes, engine_version: the comparison's). */
kv_field_value kv_report_value(const kv_field *f, const kv_report *rep);
/* The value as JSON text (strings without quotes or escapes: callers quote them). */
char *kv_value_text(char *buf, size_t cap, kv_field_value v);
/* The same, returning its length (sweeps write cells in place). By address: passed whole,
 * the value was copied with loads wider than the stores that had just written it, which the
 * processor cannot forward - a stall at every cell of a sweep (issue 22). */
size_t kv_value_text_n(char *buf, size_t cap, const kv_field_value *v);
/* A sweep's cell: f's value as JSON text written at buf (cap >= FMT_BUF) when it is a
 * number or a boolean that is not null, its length returned; 0, and nothing written, for
 * anything else (a string, a null, a comparison's value: the general path). The value is
 * read in place, without a kv_field_value between (issue 22: a million rows of six cells). */
size_t kv_report_number_text(char *buf, size_t cap, const kv_field *f, const kv_report *rep);

#endif
