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
} cli_options;

#define CLI_USAGE_ERROR 2
#define CLI_ERR_BUF 512

/* Parses argv into *o: the lesson's defaults, then the model of --config / --model and the
 * memory of --gpu, then every flag given explicitly (explicit flags always win). Returns 0, or CLI_USAGE_ERROR
 * with a one-line message ("kvcalc: --context: expected an integer >= 1, got '4k'") in
 * err. Stops at -h/--help or --version, as their action. */
int cli_parse(int argc, char *const argv[], cli_options *o, char *err, size_t errcap);

/* The spec of a built-in model with the lesson's defaults for everything else. */
int cli_preset_spec(const model_preset *m, kv_spec *s, char *err, size_t errcap);

/* The one-line usage error for a spec the core refused (kv_compute() != KV_OK). */
void cli_status_error(const kv_spec *s, kv_status st, char *err, size_t errcap);

/* The full --help text. */
void cli_help(FILE *out);

/* The hint printed after every usage error. */
#define CLI_HINT "Try 'kvcalc --help' for more information."

#endif
