/*
 * fromlog.h - --from-log: a startup log's values as spec inputs, and kvcalc against it.
 *
 * The log is read once (the library's reader, kvcalc.h "startup logs"). Its values become
 * spec inputs as if they had been typed (kv_log_inputs, applied by the spec builder before
 * the explicit flags, which win). Two specs are built from them: "given the log's KV
 * figure" (every reading of the run, the KV memory included: reproduces the KV lines) and
 * "end to end" (only the settings: kvcalc estimates the measured terms). The comparison of
 * both with the log is computed here, into a kv_comparison; renderers lay it out.
 */
#ifndef KVCALC_FROMLOG_H
#define KVCALC_FROMLOG_H

#include "build.h"
#include "report.h"

/* Reads o->from_log. Returns 0, or KV_USAGE_ERROR with one line naming the file as typed. */
int kv_fromlog_read(const kv_options *o, kv_log *lg, char *err, size_t errcap);

/* The log's values as inputs (in->set[i]: LOG_SETTING, LOG_MEASURED or LOG_KV_FIGURE). Returns 0, or
 * KV_USAGE_ERROR when a logged value is out of a flag's range (one line naming the file). */
int kv_fromlog_inputs(const kv_log *lg, const char *file, kv_log_inputs *in, char *err,
                      size_t errcap);

/* The model to load when the command line gives none: a built-in model the log names, or a
 * GGUF file it names that exists. Returns 0 with *m loaded, 1 when the log names nothing
 * kvcalc can resolve (*err says what), or KV_USAGE_ERROR. */
int kv_fromlog_model(const kv_log *lg, const char *file, kv_model *m, char *err, size_t errcap);

/* "What if": a GPU (--gpu, --gpu-mem-gib) or a fraction (--gpu-memory-utilization,
 * --mem-fraction-static) on the command line that contradicts the one the log states
 * changes the budget the log's KV figure came from, so that figure is dropped from *in
 * (the run's measured terms stay). A flag that fills a gap (a GPU the log does not name)
 * changes nothing. Returns 1 when the figure was dropped. */
int kv_fromlog_what_if(const kv_options *o, const kv_log *lg, kv_log_inputs *in);

/* The steps before the runs: reads the log, takes its inputs, checks --engine against it and
 * applies the what-if rule (*what_if). Returns 0, or KV_USAGE_ERROR with one line. */
int kv_fromlog_prepare(const kv_options *o, kv_log *lg, kv_log_inputs *in, int *what_if,
                       char *err, size_t errcap);

/* Whether the end-to-end run can be made: the GPU total is known (the log, --gpu,
 * --gpu-mem-gib), or the engine has no measured budget (llama.cpp). */
int kv_fromlog_end_to_end(const kv_log *lg, const kv_options *o);

/* The comparison: a = given the log's KV figure (what_if: without it); b = end to end
 * (NULL: not computed). */
void kv_fromlog_compare(const kv_log *lg, int what_if, const kv_spec *sa, const kv_result *a,
                        const kv_spec *sb, const kv_result *b, kv_comparison *out);

#endif
