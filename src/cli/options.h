/*
 * options.h - argv -> options: one table of flags, strict values, no files read.
 *
 * The flags are the library's parameters (every spec input: the core's and each engine's,
 * kv_param_at()) followed by the program's own flags (--model, --format, --sweep, --help,
 * ...; flags.c). The parser, --help, the JSON "inputs" echo, the sweep axes, the shell
 * completions and every error message read that one table, so a new input is one new
 * parameter row in the library and a new program flag one row in flags.c.
 *
 * Parsing only checks and stores: a spec input's value is kept in kv_options.values until
 * the spec builder (build.h) writes it over the model's and the GPU's; --config and --model
 * are names until the builder loads them.
 */
#ifndef KVCALC_OPTIONS_H
#define KVCALC_OPTIONS_H

#include "kvcalc.h"
#include "kvcalc_engines.h"

#include "report.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    ARG_NONE,    /* a switch: takes no value */
    ARG_INT,     /* int64_t, [+-]digits, inside [min, max] */
    ARG_NUM,     /* double: a plain decimal with an optional exponent, finite, in range */
    ARG_DTYPE,   /* kv_dtype by name or spelling; "auto" leaves the model's */
    ARG_CHOICE,  /* int, by name from `choices` */
    ARG_ENGINE,  /* kv_engine, by name or alias */
    ARG_VERSION, /* int: a release, read by the parameter's own function */
    ARG_TEXT     /* a string, kept as typed (file names, keys, expressions) */
} arg_kind;

/* What a flag does with its value. */
typedef enum {
    DO_SPEC,         /* a spec input (`param`): the builder writes it over the model */
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
    DO_PROGRESS,     /* --progress */
    DO_FROM_LOG,     /* --from-log FILE: a startup log's values become inputs */
    DO_JSON,         /* an engine's flag of a JSON object whose keys are other flags
                        (kv_json_flag: vLLM's --speculative-config) */
    DO_LORA,         /* --lora FILE (repeatable): llama.cpp's LoRA adapters, loaded by the
                        program */
    DO_OVERRIDE,     /* -ot / --override-tensor PATTERN=TYPE,... (repeatable): llama.cpp's
                        tensor placement by name */
    DO_DRAFT,        /* --draft-model NAME (-md, --speculative-model): speculative decoding's
                        draft model, loaded by the program like --model */
    DO_FROM_METRICS, /* --from-metrics FILE (at most two): a /metrics scrape */
    DO_METRICS_INTERVAL, /* --metrics-interval S: the time between two scrapes' files */
    DO_WORKLOAD,     /* a workload input (--prompt-tokens, --rate, ...): switch_value is its
                        kv_wl_input */
    DO_ACTION        /* --help, --version, --list-models, --list-gpus: switch_value is the
                        kv_action, done instead of a run */
} flag_does;

/* The workload's inputs, as flags (DO_WORKLOAD). */
typedef enum {
    WL_PROMPT, WL_OUTPUT, WL_RATE, WL_ARRIVALS, WL_TPOT, WL_TTFT, WL_SEED, WL_REQUESTS,
    WL_HEADROOM, WL_TRACE, WL_CONCURRENCY, WL_PREFIX, WL_INPUTS
} kv_wl_input;

/* --help's sections, in the order it prints them (--help=NAME prints one): the spec's
 * groups, then one per engine (in engine order; an engine without flags has none), then
 * the program's. */
enum {
    SECTION_MODEL,
    SECTION_GPU,
    SECTION_WORKLOAD,
    SECTION_ENGINE,
    SECTION_ENGINE_FIRST, /* + kv_engine */
    SECTION_PLAN = SECTION_ENGINE_FIRST + KV_ENGINE_COUNT,
    SECTION_OUTPUT,
    SECTION_COUNT
};

#define KV_MAX_ALIASES 4

typedef struct {
    const char *name;    /* long option without "--": "kv-heads" */
    const char *alias[KV_MAX_ALIASES]; /* other long names for the same flag (an engine's
                                          own spelling: max-model-len, context-length),
                                          NULL after the last */
    const char *short_name; /* "h", "c", "np" (typed with one dash), or NULL */
    arg_kind arg;
    flag_does does;
    const kv_param *param; /* DO_SPEC: the library's parameter */
    double min, max;     /* ARG_INT / ARG_NUM bounds; max 0 = the type's own */
    int min_exclusive;   /* 1: value must be > min */
    int tokens;          /* ARG_INT counting tokens: vLLM's forms 1k (1,000), 25.6k, 1m (10^6),
                            1K (1,024), 1M (2^20), and g/G, t/T, are accepted too */
    const kv_choice *choices; /* ARG_CHOICE, ARG_ENGINE: NULL-terminated */
    int switch_value;    /* ARG_NONE: the int written (DO_SPEC), or the kv_action (DO_ACTION) */
    kv_engine engine;    /* KV_ENGINE_COUNT: any engine; else only with this --engine */
    int section;         /* where --help lists it */
    const char *meta;    /* placeholder in --help: "N", "GIB", "DTYPE" */
    const char *help;    /* one line for --help */
    const struct kv_json_flag_s *json; /* DO_JSON: its keys */
    size_t index;        /* its place in the table (kv_flag_index) */
} kv_flag;

/* Every flag: the spec inputs (flag i < kv_param_count() is kv_param_at(i)), then the
 * program's own. i < kv_flag_count(). */
size_t kv_flag_count(void);
const kv_flag *kv_flag_at(size_t i);
/* How many of the first rows are the spec inputs (kv_param_count(), bounded by the table). */
size_t kv_flag_inputs(void);
/* The index of a flag in that order. */
size_t kv_flag_index(const kv_flag *f);
/* The flag of a parameter. */
const kv_flag *kv_flag_of(const kv_param *p);

#define KV_MAX_FLAGS 192
#define KV_SHOWN 200 /* the longest piece of a bad argument an error quotes */
#define KV_TYPED_MAX 48 /* the longest flag spelling, dashes and NUL included */
#define KV_MAX_REQUIRE 32
#define KV_MAX_SWEEP 8
#define KV_MAX_LORA 16
#define KV_ERR_BUF 16384 /* an error line: the longest lists every output key */
#define KV_USAGE_ERROR 2
#define KV_HINT "Try 'kvcalc --help' for more information."

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV, FORMAT_COUNT } kv_format;
typedef enum { ACTION_RUN, ACTION_HELP, ACTION_VERSION, ACTION_LIST_MODELS, ACTION_LIST_GPUS } kv_action;

typedef enum { REQ_GE, REQ_LE, REQ_EQ, REQ_GT, REQ_LT } req_op;

/* One --require: a numeric output field, a comparison and a number. */
typedef struct {
    const kv_field *key;
    req_op op;
    double value;
    const char *text; /* as typed (argv), for the failure message */
} kv_requirement;

/* The parsed command line. Strings point into argv. */
typedef struct {
    kv_action action;
    kv_format format;
    const kv_field *get;          /* --get KEY, or NULL */
    const char *config_path;      /* --config FILE, or NULL */
    const char *model_name;       /* --model NAME, or NULL (the last of the two wins) */
    const kv_gpu *gpu;            /* --gpu NAME, or NULL */
    int help_section;             /* --help=NAME: its section; -1: every section */
    int auto_max_model_len;       /* --max-model-len auto / -1: vLLM's auto-fit */
    int64_t target;               /* --target-concurrency, 0 = none */
    int64_t gpus_total;           /* --gpus N: the GPUs at hand, 0 = none */
    int levers;                   /* --levers */
    double offload_gib;           /* --offload-gib */
    const char *plot;             /* --plot FILE, or NULL */
    int progress;                 /* --progress: a sweep's progress on stderr */
    const char *from_log;         /* --from-log FILE ("-" = stdin), or NULL */
    size_t n_metrics;
    const char *from_metrics[2];  /* --from-metrics FILE, at most two ("-" = stdin) */
    double metrics_interval;      /* --metrics-interval S; 0: the samples' timestamps */
    double measured_pool_tokens;  /* a scrape's KV capacity: the workload's pool (main.c) */
    const char *draft_name;       /* --draft-model NAME, or NULL */
    const char *draft_typed;      /* its spelling typed ("-md"): points into draft_typed_buf */
    size_t json_used;             /* bytes of json_text in use */
    /* the last JSON flag given (--speculative-config) and how it was typed: a refusal about
     * one of its keys names the key, not a flag that was not typed */
    const struct kv_json_flag_s *json_flag;
    char json_typed[KV_TYPED_MAX];
    size_t n_lora;
    const char *lora[KV_MAX_LORA]; /* --lora FILE, as typed (argv) */
    const struct kv_lora_files *lora_files; /* the adapters, read by the program (main.c) */
    struct kv_tensor_overrides overrides; /* -ot's values, as typed (argv) */
    const struct kv_draft *draft; /* the draft model, summarized once the program loaded it
                                     (main.c); NULL: none (or not loaded yet) */
    kv_workload workload;         /* --prompt-tokens, --output-tokens, --rate, ...: the lengths
                                     and arrivals to simulate (defaults: seed 1, 1,000
                                     requests, Poisson arrivals, no headroom) */
    unsigned workload_given;      /* bits of kv_wl_input typed */
    const char *trace_path;       /* --trace FILE, as typed, or NULL */
    const kv_trace *trace;        /* the trace, read by the program (main.c) */
    const char *workload_typed[WL_INPUTS]; /* each as typed, for messages: into the buffer */
    size_t n_require;
    kv_requirement require[KV_MAX_REQUIRE];
    size_t n_sweep;
    const char *sweep[KV_MAX_SWEEP]; /* --sweep KEY=VALUES, as typed */
    unsigned char set[KV_MAX_FLAGS]; /* spec inputs given explicitly ... */

    /* From here on not cleared by kv_options_parse: clearing 14 KB that a run mostly never
     * touches cost a plain run five page faults (issue 22). Each is written with its flag
     * and read only where set[] says that flag was given, or through the pointers to it. */
    kv_value values[KV_MAX_FLAGS];   /* ... the given inputs' values, by flag index */
    const char *typed[KV_MAX_FLAGS]; /* ... and the spelling typed, dashes included
                                        ("--max-model-len", "-c"): points into typed_buf */
    /* The text the pointers above point into. */
    char typed_buf[KV_MAX_FLAGS][KV_TYPED_MAX];
    char workload_typed_buf[WL_INPUTS][KV_TYPED_MAX];
    char draft_typed_buf[KV_TYPED_MAX];
    char json_text[4096];         /* the string values of JSON flags, decoded (a draft's name) */
} kv_options;

/* Parses argv into *o. Returns 0, or KV_USAGE_ERROR with one line in err
 * ("kvcalc: --context: expected an integer >= 1, got '4k'"). Stops at -h/--help or
 * --version. */
int kv_options_parse(int argc, char *const argv[], kv_options *o, char *err, size_t errcap);

/* The flag as the user typed it ("-c", "--max-model-len"), or "--name" when it was not
 * typed, into buf. */
const char *kv_flag_shown(const kv_options *o, const kv_flag *f, char *buf, size_t cap);
/* The engine the command line chose (the lesson's when none). */
kv_engine kv_options_engine(const kv_options *o);
/* Whether a workload was given (its lengths). */
int kv_options_workload(const kv_options *o);
/* Whether parameter p was given on the command line. */
int kv_options_given(const kv_options *o, const kv_param *p);

/* Parses one value of flag f as the command line does (typed: the flag's spelling for
 * messages, dashes included). Returns 0 with *v set, 1 for "auto" (leave the model's
 * value), or KV_USAGE_ERROR with one line in err. */
int kv_flag_value(const kv_flag *f, const char *typed, const char *text, kv_value *v, char *err,
                  size_t errcap);

/* A number of flag f (ARG_INT: i, ARG_NUM: d) as its value, in the member its parameter's
 * type reads (a range's points in a sweep). */
void kv_flag_number(const kv_flag *f, kv_value *v, int64_t i, double d);

/* A plain decimal number with an optional exponent ([+-](digits[.digits]|.digits)[e[+-]digits]),
 * read whole; no hex, inf, nan or spaces; -0 is 0. Returns 0, -1 (syntax) or -2 (not finite). */
int kv_parse_number(const char *text, double *out);

/* A flag by long name or alias (len bytes of name); NULL if none. Where engines share a
 * name (each has its own row), kv_flag_find gives the first engine's and kv_flag_find_for
 * the row of `engine` (KV_ENGINE_COUNT: the first). */
const kv_flag *kv_flag_find(const char *name, size_t len);
const kv_flag *kv_flag_find_for(const char *name, size_t len, kv_engine engine);
/* The row of another engine spelled as f is (the same type and bounds), or NULL. */
const kv_flag *kv_flag_twin(const kv_flag *f, kv_engine engine);
/* "--engine vllm or --engine sglang": the engines with a row of f's name, into buf; their
 * number. */
size_t kv_flag_engines(const kv_flag *f, char *buf, size_t cap);
/* A flag by short name ("h", "np"); NULL if none. */
const kv_flag *kv_flag_find_short(const char *name, size_t len);

/* "an integer >= 1", "one of: fp32 fp16 ...": what a flag accepts, for messages. */
void kv_flag_accepts(const kv_flag *f, char *buf, size_t cap);

/* The one-line usage error for a spec the library refused (kv_compute() != KV_OK): the
 * library's explanation, naming the input as the user typed it. */
void kv_status_error(const kv_spec *s, const kv_options *o, kv_status st, char *err,
                     size_t errcap);

/* printf into err with the "kvcalc: " prefix; returns KV_USAGE_ERROR. */
int kv_fail(char *err, size_t cap, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* User text made safe for one terminal line: control bytes (C0, DEL, and UTF-8-encoded C1)
 * become '?'; longer than `limit` bytes is cut with "..." (limit 0: never). */
const char *kv_safe(char *buf, size_t cap, const char *text, size_t limit);

/* Parses one --require expression into *q. Returns 0 or KV_USAGE_ERROR with one line. */
int kv_requirement_parse(const char *text, kv_requirement *q, char *err, size_t cap);

/* The --help text: usage, examples, then every section (section < 0) or one. */
void kv_help(FILE *out, int section);
/* The section --help=NAME names ("model", "gpu", "engines", "llama.cpp", ...), or -1. */
int kv_help_section(const char *name);
/* The name --help=NAME takes for a section, or NULL for an engine without flags. */
const char *kv_help_section_name(int section);

#endif
