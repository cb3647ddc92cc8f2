/*
 * cli.h - command line -> options. Parsing only: nothing here computes or prints results.
 */
#ifndef KVCALC_CLI_H
#define KVCALC_CLI_H

#include "fields.h"
#include "presets.h"
#include "kvcalc.h"

#include <stdio.h>

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV, FORMAT_COUNT } cli_format;
#define CLI_MAX_REQUIRE 32
#define CLI_MAX_SWEEP 8

typedef enum { REQ_GE, REQ_LE, REQ_EQ, REQ_GT, REQ_LT } req_op;

/* One --require: a numeric top-level output key, a comparison and a number. */
typedef struct {
    const output_field *field;
    req_op op;
    double value;
    char text[160]; /* as given, for the failure message */
} requirement;

/* Whether r meets q; the value found goes into got (JSON text, "null" if unset). */
int requirement_met(const requirement *q, const kv_spec *s, const kv_result *r, char *got,
                    size_t cap);

typedef enum {
    ACTION_RUN,
    ACTION_HELP,
    ACTION_VERSION,
    ACTION_LIST_MODELS,
    ACTION_LIST_GPUS
} cli_action;

/* The parsed command line. spec's label pointers point into this struct (model_name,
 * model_source) or into the preset tables: use it in place, do not copy it. */
typedef struct {
    kv_spec spec;
    cli_format format;
    const output_field *get;     /* --get KEY, or NULL */
    cli_action action;
    const char *config_path;     /* --config FILE, or NULL */
    const model_preset *preset;  /* --model NAME, or NULL */
    const gpu_preset *gpu;       /* --gpu NAME, or NULL */
    char model_name[160];
    char model_source[320];
    char total_note[160];
    int64_t target;              /* --target-concurrency, 0 = none */
    int levers;                  /* --levers */
    double offload_gib;          /* --offload-gib */
    size_t n_require;
    requirement require[CLI_MAX_REQUIRE];
    size_t n_sweep;
    const char *sweep[CLI_MAX_SWEEP]; /* --sweep KEY=VALUES, as given */
    const char *plot;            /* --plot FILE.svg */
    kv_spec given;               /* the inputs given explicitly ... */
    unsigned char given_set[KV_MAX_INPUTS]; /* ... and which they were (for --sweep) */
} cli_options;

#define CLI_USAGE_ERROR 2
#define CLI_ERR_BUF 512

/* Parses argv into *o: the lesson's defaults, then the model of --config / --model and the
 * memory of --gpu, then every flag given explicitly (explicit flags always win). Returns 0, or CLI_USAGE_ERROR
 * with a one-line message ("kvcalc: --context: expected an integer >= 1, got '4k'") in
 * err. Stops at -h/--help or --version, as their action. */
int cli_parse(int argc, char *const argv[], cli_options *o, char *err, size_t errcap);

/* vLLM's GPU-dependent inputs (total memory, default batch budget) for a GPU preset or the
 * GPU memory given, as cli_parse() resolves them; note receives where the total came from. */
void cli_resolve_vllm_gpu(kv_spec *s, const gpu_preset *gpu, int memory_given,
                          int batch_given, char *note, size_t cap);

/* Parses one value of input f into s (the same checks and messages as on the command line). */
int cli_set_input(const input_field *f, const char *val, kv_spec *s, char *err, size_t errcap);
/* Copies the inputs marked in `set` from `given` into s (explicit flags win). */
void cli_apply_given(kv_spec *s, const kv_spec *given, const unsigned char *set);

/* The spec of a built-in model with the lesson's defaults for everything else. */
int cli_preset_spec(const model_preset *m, kv_spec *s, char *err, size_t errcap);

/* The one-line usage error for a spec the core refused (kv_compute() != KV_OK). */
void cli_status_error(const kv_spec *s, kv_status st, char *err, size_t errcap);

/* The full --help text. */
void cli_help(FILE *out);

/* The hint printed after every usage error. */
#define CLI_HINT "Try 'kvcalc --help' for more information."

#endif
