/*
 * build.h - the spec builder: the only place that assembles a kv_spec.
 *
 * A spec is assembled in one order, always: the lesson's defaults, then the model (a
 * config.json or a preset), then the GPU preset, then every flag given explicitly (they
 * always win), then the engine's rules (its flags need it). A single run, every point of a
 * sweep and the fuzzers all call kv_build_spec(); only loading a model reads a file, once,
 * before any spec is built.
 */
#ifndef KVCALC_BUILD_H
#define KVCALC_BUILD_H

#include "options.h"

/* A loaded model: its spec (defaults + config) and what it points at. */
typedef struct {
    kv_spec spec;
    kv_source kind;   /* SOURCE_PRESET, SOURCE_CONFIG or SOURCE_CHECKPOINT (a GGUF file) */
    char name[600];   /* the model's name, for reports */
    char source[600]; /* "built-in preset", or the file as typed */
    kv_gguf_info gguf;/* a GGUF file's per-layer numbers (spec.gguf points here); last: what
                         every model load writes stays in its first pages */
} kv_model;

/* Loads the model of --config PATH ("-" = standard input) or --model NAME into *m (its
 * labels point into *m: keep it in place). Returns 0, or KV_USAGE_ERROR with one line. */
int kv_model_load(const char *config_path, const char *model_name, kv_model *m, char *err,
                  size_t errcap);

/* Loads the draft model of --draft-model (o->draft_name) into *m and summarizes it into *d
 * for the engines (d->name points into *m: keep both in place). Returns 0, or
 * KV_USAGE_ERROR with one line naming the flag as typed (a draft of other layers than full
 * attention is refused). */
int kv_draft_load(const kv_options *o, kv_model *m, struct kv_draft *d, char *err,
                  size_t errcap);

/* Reads --trace into *t and makes it the workload's requests: its arrival times (scaled to
 * --rate when given, else at the trace's own rate when --tpot-ms asks for a run). Returns 0,
 * or KV_USAGE_ERROR with one line naming the flag. */
int kv_trace_load(kv_options *o, kv_trace *t, char *err, size_t errcap);

/* Assembles *out from o, the loaded model (NULL: the lesson's illustrative model) and the
 * GPU (NULL: none). Returns 0, or KV_USAGE_ERROR with one line naming the flag. */
int kv_build_spec(const kv_options *o, const kv_model *model, const kv_gpu *gpu, kv_spec *out,
                  char *err, size_t errcap);

/* A startup log's values as spec inputs (--from-log), parsed by the flags' own reader as
 * if typed, by flag index: kind[i] is a kv_log_kind (KV_LOG_SETTING: how the engine was
 * started; KV_LOG_MEASURED: what the run measured; KV_LOG_KV_FIGURE: the measured value
 * the KV cache was sized from). */
typedef struct {
    unsigned char kind[KV_MAX_FLAGS];
    kv_value values[KV_MAX_FLAGS];
    unsigned short yields[KV_MAX_FLAGS]; /* 1 + the flag that, given, drops the value; 0 */
} kv_log_args;

/* kv_build_spec() with a log's inputs applied after the model and the GPU and before the
 * explicit flags (which win): every setting, and the measured values (the KV figure
 * included) when `measured` is 1. */
int kv_build_spec_log(const kv_options *o, const kv_model *model, const kv_gpu *gpu,
                      const kv_log_args *log, int measured, kv_spec *out, char *err,
                      size_t errcap);

/* Where each input of spec s (built from o, model and gpu) came from. */
void kv_build_sources(const kv_options *o, const kv_model *model, const kv_gpu *gpu,
                      const kv_spec *s, kv_sources *out);

/* kv_build_spec() in its two halves, for a sweep that keeps the first while only flags
 * change: the base (defaults, model, GPU), then the flags and the engine's rules over it. */
void kv_build_base(const kv_model *model, const kv_gpu *gpu, kv_spec *out);
int kv_build_flags(const kv_options *o, kv_spec *out, char *err, size_t errcap);

#endif
