/*
 * options.h - argv -> options: one table for every flag, strict values, no files read.
 *
 * Every flag kvcalc takes is one row of kv_flags (options.c): the spec inputs (--layers,
 * --context, --block-size, ...) and the actions and outputs (--model, --format, --sweep,
 * --help, ...) alike. The parser, --help, the JSON "inputs" echo, the sweep axes, the shell
 * completions and every error message read that one table, so a new flag is one new row.
 *
 * Parsing only checks and stores: a spec input's value is kept in kv_options.values until
 * the spec builder (build.h) writes it over the model's and the GPU's; --config and --model
 * are names until the builder loads them.
 */
#ifndef KVCALC_OPTIONS_H
#define KVCALC_OPTIONS_H

#include "kvcalc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    ARG_NONE,    /* a switch: takes no value */
    ARG_INT,     /* int64_t, [+-]digits, inside [min, max] */
    ARG_NUM,     /* double: a plain decimal with an optional exponent, finite, in range */
    ARG_DTYPE,   /* kv_dtype by name or spelling; "auto" leaves the model's */
    ARG_CHOICE,  /* int, by name from `choices` */
    ARG_VERSION, /* int: the minor number of a "0.MINOR[.PATCH]" version */
    ARG_TEXT,    /* a string, kept as typed (file names, keys, expressions) */
    ARG_SGLANG_VERSION /* int: kv_sglang_version_parse() of "0.4.3.post4", "0.5.3rc2" */
} arg_kind;

/* What a flag does with its value. */
typedef enum {
    DO_SPEC,         /* a kv_spec member at `offset`: the builder writes it over the model */
    DO_MODEL_FILE,   /* --config FILE */
    DO_MODEL_NAME,   /* --model NAME */
    DO_GPU,          /* --gpu NAME */
    DO_FORMAT,       /* --format FMT */
    DO_GET,          /* --get KEY */
    DO_TARGET,       /* --target-concurrency N */
    DO_GPUS,         /* --gpus N */
    DO_LEVERS,       /* --levers */
    DO_OFFLOAD,      /* --offload-gib X */
    DO_REQUIRE,      /* --require EXPR (repeatable) */
    DO_SWEEP,        /* --sweep KEY=VALUES (repeatable) */
    DO_PLOT,         /* --plot FILE */
    DO_FROM_LOG,     /* --from-log FILE: a startup log's values become inputs */
    DO_ACTION        /* --help, --version, --list-models, --list-gpus: switch_value is the
                        kv_action, done instead of a run */
} flag_does;

typedef struct {
    const char *name;
    int value;
} flag_choice;

/* Side effects of an explicit spec input on what the model or GPU said. */
#define CLEARS_ESTIMATE 1u /* --params-b: the weights are params_b, not the config estimate */
#define CLEARS_GPU 2u      /* --gpu-mem-gib: no GPU preset's name or engine total */
#define CLEARS_QUANT 4u    /* --weight-dtype: every weight in that dtype */
#define CLEARS_GEOMETRY 8u /* --layers, --kv-heads, --head-dim: not a GGUF file's rows */
#define CLEARS_STORAGE 16u /* --quantization: the weights stored as the method says */

/* --help's sections, in the order it prints them (--help=NAME prints one). */
typedef enum {
    SECTION_MODEL,
    SECTION_GPU,
    SECTION_WORKLOAD,
    SECTION_ENGINE,
    SECTION_VLLM,
    SECTION_SGLANG,
    SECTION_TRTLLM,
    SECTION_LLAMACPP,
    SECTION_PLAN,
    SECTION_OUTPUT,
    SECTION_COUNT
} flag_section;

#define KV_MAX_ALIASES 4

typedef struct {
    const char *name;    /* long option without "--": "kv-heads" */
    const char *alias[KV_MAX_ALIASES]; /* other long names for the same flag (an engine's
                                          own spelling: max-model-len, context-length),
                                          NULL after the last */
    const char *short_name; /* "h", "c", "np" (typed with one dash), or NULL */
    arg_kind arg;
    flag_does does;
    size_t offset;       /* DO_SPEC: of the member in kv_spec */
    const char *key;     /* DO_SPEC: its JSON key in "inputs" and as a sweep axis */
    double min, max;     /* ARG_INT / ARG_NUM bounds; max 0 = the type's own */
    int min_exclusive;   /* 1: value must be > min */
    int optional;        /* a spec value below min means "auto": JSON null */
    int model_sets;      /* a model (preset, config, checkpoint) sets this input */
    int auto_estimate;   /* optional: "auto" is an estimate of kvcalc's, not a default */
    int tokens;          /* ARG_INT counting tokens: vLLM's forms 1k (1,000), 25.6k, 1m (10^6),
                            1K (1,024), 1M (2^20), and g/G, t/T, are accepted too */
    const flag_choice *choices; /* ARG_CHOICE: NULL-terminated; also for ARG_NONE's value */
    int switch_value;    /* ARG_NONE: the int written (DO_SPEC), or the kv_action (DO_ACTION) */
    kv_engine engine;    /* KV_ENGINE_COUNT: any engine; else only with this --engine */
    unsigned clears;     /* CLEARS_* */
    kv_status blames;    /* the kv_compute() status that points at this flag, or KV_OK */
    flag_section section;/* where --help lists it */
    const char *meta;    /* placeholder in --help: "N", "GIB", "DTYPE" */
    const char *help;    /* one line for --help */
} kv_flag;

extern const kv_flag kv_flags[];
extern const size_t kv_flags_count;

#define KV_MAX_FLAGS 96
#define KV_TYPED_MAX 48 /* the longest flag spelling, dashes and NUL included */
#define KV_MAX_REQUIRE 32
#define KV_MAX_SWEEP 8
#define KV_ERR_BUF 8192 /* an error line: the longest lists every output key */
#define KV_USAGE_ERROR 2
#define KV_HINT "Try 'kvcalc --help' for more information."

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV, FORMAT_COUNT } kv_format;
typedef enum { ACTION_RUN, ACTION_HELP, ACTION_VERSION, ACTION_LIST_MODELS, ACTION_LIST_GPUS } kv_action;

/* One parsed value of a spec input. */
typedef union {
    int64_t i;
    double d;
    int e;
    kv_dtype t;
} kv_value;

struct kv_key; /* an output key (render/keys.h) */

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

/* The source of each spec input, by kv_flags index. */
typedef struct kv_sources {
    unsigned char of[KV_MAX_FLAGS];
} kv_sources;

typedef enum { REQ_GE, REQ_LE, REQ_EQ, REQ_GT, REQ_LT } req_op;

/* One --require: a numeric output key, a comparison and a number. */
typedef struct {
    const struct kv_key *key;
    req_op op;
    double value;
    const char *text; /* as typed (argv), for the failure message */
} kv_requirement;

/* The parsed command line. Strings point into argv. */
typedef struct {
    kv_action action;
    kv_format format;
    const struct kv_key *get;     /* --get KEY, or NULL */
    const char *config_path;      /* --config FILE, or NULL */
    const char *model_name;       /* --model NAME, or NULL (the last of the two wins) */
    const kv_gpu *gpu;            /* --gpu NAME, or NULL */
    int help_section;             /* --help=NAME: its flag_section; -1: every section */
    int64_t target;               /* --target-concurrency, 0 = none */
    int64_t gpus_total;           /* --gpus N: the GPUs at hand, 0 = none */
    int levers;                   /* --levers */
    double offload_gib;           /* --offload-gib */
    const char *plot;             /* --plot FILE, or NULL */
    const char *from_log;         /* --from-log FILE ("-" = stdin), or NULL */
    size_t n_require;
    kv_requirement require[KV_MAX_REQUIRE];
    size_t n_sweep;
    const char *sweep[KV_MAX_SWEEP]; /* --sweep KEY=VALUES, as typed */
    unsigned char set[KV_MAX_FLAGS]; /* spec inputs given explicitly ... */
    kv_value values[KV_MAX_FLAGS];   /* ... and their values, by kv_flags index */
    const char *typed[KV_MAX_FLAGS]; /* ... and the spelling typed, dashes included
                                        ("--max-model-len", "-c"): points into typed_buf */
    char typed_buf[KV_MAX_FLAGS][KV_TYPED_MAX];
} kv_options;

/* Parses argv into *o. Returns 0, or KV_USAGE_ERROR with one line in err
 * ("kvcalc: --context: expected an integer >= 1, got '4k'"). Stops at -h/--help or
 * --version. */
int kv_options_parse(int argc, char *const argv[], kv_options *o, char *err, size_t errcap);

/* The flag as the user typed it ("-c", "--max-model-len"), or "--name" when it was not
 * typed, into buf. */
const char *kv_flag_shown(const kv_options *o, const kv_flag *f, char *buf, size_t cap);

/* Parses one value of spec input f as the command line does (typed: the flag's spelling
 * for messages, dashes included). Returns 0 with *v set, 1 for "auto" (leave the model's value), or
 * KV_USAGE_ERROR with one line in err. */
int kv_flag_value(const kv_flag *f, const char *typed, const char *text, kv_value *v, char *err,
                  size_t errcap);

/* A plain decimal number with an optional exponent ([+-](digits[.digits]|.digits)[e[+-]digits]),
 * read whole; no hex, inf, nan or spaces; -0 is 0. Returns 0, -1 (syntax) or -2 (not finite). */
int kv_parse_number(const char *text, double *out);

/* A flag by long name or alias (len bytes of name); NULL if none. */
const kv_flag *kv_flag_find(const char *name, size_t len);
/* A flag by short name ("h", "np"); NULL if none. */
const kv_flag *kv_flag_find_short(const char *name, size_t len);
/* The row of the spec input a kv_compute() status blames, or NULL. */
const kv_flag *kv_flag_blamed(kv_status st);

/* The size of the kv_spec member a DO_SPEC row writes. */
size_t kv_flag_size(const kv_flag *f);
/* A spec input's current value in s as JSON text: a number, a quoted-free name, "null". */
char *kv_flag_text(char *buf, size_t cap, const kv_spec *s, const kv_flag *f);
/* Whether text, kv_flag_text()'s answer for f, is a JSON string (a name) rather than a
 * number, a boolean or null (a choice not given). */
int kv_flag_is_string(const kv_flag *f, const char *text);
/* "an integer >= 1", "one of: fp32 fp16 ...": what a flag accepts, for messages. */
void kv_flag_accepts(const kv_flag *f, char *buf, size_t cap);

/* The one-line usage error for a spec the core refused (kv_compute() != KV_OK). */
void kv_status_error(const kv_spec *s, const kv_options *o, kv_status st, char *err,
                     size_t errcap);

/* printf into err with the "kvcalc: " prefix; returns KV_USAGE_ERROR. */
int kv_fail(char *err, size_t cap, const char *fmt, ...);
/* User text made safe for one terminal line: control bytes (C0, DEL, and UTF-8-encoded C1)
 * become '?'; longer than `limit` bytes is cut with "..." (limit 0: never). */
const char *kv_safe(char *buf, size_t cap, const char *text, size_t limit);

/* The --help text: usage, examples, then every section (section < 0) or one. */
void kv_help(FILE *out, int section);
/* The section --help=NAME names ("model", "gpu", "engines", "llama.cpp", ...), or -1. */
int kv_help_section(const char *name);

#endif
