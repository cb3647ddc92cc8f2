/*
 * fromlog.h - --from-log: a startup log's values as spec inputs, and kvcalc against it.
 *
 * The log is read once (the library's reader, kvcalc.h "startup logs"). Its values become
 * spec inputs as if they had been typed (the library names them as text, the flags' own
 * reader parses them; the spec builder applies them before the explicit flags, which
 * win). Two specs are built from them: "given the log's KV figure" (every reading of the
 * run, the KV memory included: reproduces the KV lines) and "end to end" (only the
 * settings: kvcalc estimates the measured terms). The library compares both with the log
 * (kv_log_compare()); renderers lay the comparison out.
 */
#ifndef KVCALC_FROMLOG_H
#define KVCALC_FROMLOG_H

#include "build.h"
#include "report.h"

/* The log's values as parsed inputs. Returns 0, or KV_USAGE_ERROR when a logged value is
 * out of a flag's range (one line naming the file). */
int kv_fromlog_inputs(const kv_log *lg, const char *file, kv_log_args *in, char *err,
                      size_t errcap);

/* The model to load when the command line gives none: a built-in model the log names, or a
 * GGUF file it names that exists. Returns 0 with *m loaded, 1 when the log names nothing
 * kvcalc can resolve (*err says what), or KV_USAGE_ERROR. */
int kv_fromlog_model(const kv_log *lg, const char *file, kv_model *m, char *err, size_t errcap);

/* "What if": a GPU (--gpu, --gpu-mem-gib) or a fraction (--gpu-memory-utilization,
 * --mem-fraction-static) on the command line that contradicts the one the log states
 * changes the budget the log's KV figure came from, so that figure is dropped from *in
 * (the run's measured terms stay). A flag that fills a gap (a GPU the log does not name)
 * changes nothing. Returns KV_WHAT_IF_BUDGET when the figure was dropped, with
 * KV_WHAT_IF_SETTINGS when a flag changed any setting the log states (0: neither). */
int kv_fromlog_what_if(const kv_options *o, const kv_log *lg, kv_log_args *in);

/* The steps before the runs: reads the log, takes its inputs, checks --engine against it and
 * applies the what-if rule (*what_if). Returns 0, or KV_USAGE_ERROR with one line. */
int kv_fromlog_prepare(const kv_options *o, kv_log *lg, kv_log_args *in, int *what_if,
                       char *err, size_t errcap);

/* Whether the end-to-end run can be made: the GPU total is known (the log, --gpu,
 * --gpu-mem-gib), or the engine's budget needs none (llama.cpp). */
int kv_fromlog_end_to_end(const kv_log *lg, const kv_options *o);

#endif
