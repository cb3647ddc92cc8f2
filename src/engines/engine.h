/*
 * engine.h - what a serving engine is to kvcalc: one descriptor.
 *
 * Everything kvcalc knows of an engine is in its descriptor, filled by the engine's own
 * file (vllm.c, sglang.c, ...): its name and aliases, its parameters (the flags it takes,
 * with bounds, what they clear and the status that blames them), its defaults, its checks
 * and refusals in its own words, its computation, the rule that re-lays its measured
 * per-GPU figures for another layout, its output fields, and how its startup logs read
 * (line patterns, which logged values become inputs, which rows the comparison shows).
 * kvcalc_engines.def lists the engines once; engines.c expands it into the table below.
 * Nothing outside an engine's file names the engine (the text section of the program's
 * report is the one other place: render/NAME_section.c, found by the same list).
 */
#ifndef KVCALC_ENGINE_H
#define KVCALC_ENGINE_H

#ifndef KVCALC_ENGINES
#define KVCALC_ENGINES /* the library sees every engine's struct */
#endif
#include "kvcalc.h"

#include "internal.h"

#include <stddef.h>

/* ---- startup logs: the vocabulary of an engine's line patterns (log.c matches them) ---- */

#define KV_LOG_MAX_CAPS 10

/* Where a conversion's value goes: a field of the engine's kv_log_values.v (below
 * KV_LOG_MAX_FIELDS) or one of these. */
enum {
    KV_TO_SKIP = KV_LOG_MAX_FIELDS, /* read and dropped */
    KV_TO_VERSION, KV_TO_MODEL, KV_TO_SERVED, KV_TO_DTYPE, KV_TO_KV_DTYPE, KV_TO_QUANT, KV_TO_TYPE_K,
    KV_TO_TYPE_V,
    KV_TO_ERA_V,   /* vLLM's "Initializing a V<n> LLM engine" */
    KV_TO_FLASH,   /* a flash-attention word: 0, 1, auto, enabled, disabled, on, off, true,
                      false - into the engine's flash field (kv_engine_log.flash_field) */
    KV_TO_UNIFIED, /* true / false, 1 / 0 into the engine's unified field */
    KV_TO_WEIGHTS_ROUNDED /* weights rounded to 0.01 in a summary line: only when the precise
                             line (the weights field) is not there */
};

/* What matching a row means besides its values. */
#define KV_LINE 1u   /* a KV line: evidence of the engine, and of a finished startup */
#define KV_START 2u  /* printed once per startup: after KV lines, a new startup begins */
#define KV_MIN 4u    /* ranks print their own figure: keep the smallest (what the engine uses) */
#define KV_SWA_ON 8u /* the next cache line is the sliding-window cache */
#define KV_SWA_OFF 16u /* the next cache line is the main cache */
#define KV_CACHE 32u /* a cache line: goes to the sliding-window fields after KV_SWA_ON */
#define KV_CONST 64u /* the line's presence also writes a constant: to[n + 1] into field
                        to[n], n its conversions (a switch on a command line, a word that
                        names a setting, a list's length) */
#define KV_SUM 128u  /* devices print their shares: add them (a new startup starts over) */
#define KV_INDEX_ON 256u /* the next cache line is DeepSeek sparse attention's indexer cache */
#define KV_MAX 512u  /* every rank names itself: keep the largest (a rank index) */
#define KV_RAW 1024u /* matched on the line before its prefixes are cleaned off (the rank's
                        "(Worker_TP3_EP3 pid=1)" is such a prefix) */
#define KV_DRAFT_ON 4096u /* a draft model loads: the lines after it are its own (its metadata,
                        context and cache), left out until a row with KV_DRAFT_OFF */
#define KV_DRAFT_OFF 8192u /* a new process: the draft's lines are over */
#define KV_ALWAYS 16384u /* read during a draft's lines too (the server's own, not a model's) */
#define KV_MTP_ON 32768u /* an MTP draft context of the target model is created: its context lines
                        are left out as a draft's are, and its one cache line goes to the MTP
                        fields (the fourth column of swa_pairs) */
#define KV_NESTED 2048u /* matched inside the engine's nested regions too (kv_engine_log
                        .nested): a key only a nested config has */

/* One line pattern. The pattern is the line's own text with conversions: "%n" an integer
 * (thousands commas allowed), "%f" a decimal, "%b" a decimal and its unit (GiB, GB, MiB,
 * MB, KiB, B: bytes; the engines' "GB" is GiB), "%s" a word up to the pattern's next character
 * (never one that starts with '-': on a command line that is the next flag, and "--model %s"
 * must not read "--model-path" as the value "-path"), "%*" any text up to what follows; a
 * blank matches any run of blanks, or none. */
typedef struct {
    const char *pat;
    short to[KV_LOG_MAX_CAPS];
    unsigned flags;
    const char *era; /* the line format this row shows, or NULL */
} kv_log_pattern;

/* One logged figure that becomes an input, as if typed. */
typedef struct {
    int field;              /* of kv_log_values.v */
    const kv_param *param;
    kv_log_kind kind;       /* KV_LOG_SETTING, KV_LOG_MEASURED or KV_LOG_KV_FIGURE */
    int gib;                /* logged in bytes, the parameter takes GiB */
    int unless;             /* only when field unless - 1 is not logged (0: always) */
    int times;              /* the value x field times - 1, when that is logged (0: none) */
} kv_log_input;

/* How a comparison row's difference is explained. */
typedef enum {
    KV_TERM_SUBTRACTED, /* a term the engine subtracts from its budget */
    KV_TERM_GRAPHS,     /* CUDA graphs: subtracted only where the release puts them inside */
    KV_TERM_TOTAL,      /* the GPU total: enters as total x the budget's fraction */
    KV_TERM_REQUESTED,  /* total x fraction as logged: enters whole */
    KV_TERM_BEFORE,     /* memory free before the weights: enters as -(1 - fraction) x it */
    KV_TERM_AFTER,      /* memory free after the weights: enters whole */
    KV_TERM_SETTING,    /* a setting or a figure outside the budget */
    KV_TERM_BUDGET,     /* the KV budget itself, end to end */
    KV_TERM_KV,         /* a KV line, from the log's own KV figure */
    KV_TERM_CAPTURED,   /* CUDA graphs captured after the budget: never in it, and no
                           kvcalc figure beside it (the row's offset is not read) */
    KV_TERM_LAYOUT      /* a figure of the layout (a block size, a padding): from the model
                           and the settings alone, whatever the memory */
} kv_term_kind;

#define KV_LOGGED_KV_TOTAL (-1) /* a row's field: the logged KV memory (kv_engine_log.kv_total) */

/* One row of the comparison with a log. */
typedef struct {
    const char *quantity;
    int field;       /* of kv_log_values.v, or KV_LOGGED_KV_TOTAL */
    int end_to_end;  /* 1: kvcalc's figure is the end-to-end run's, 0: given the KV figure */
    size_t offset;   /* in kv_result (the engine's result through its union member) */
    int is_int;      /* int64_t member, else double */
    double scale;    /* kvcalc's member x scale = the logged unit */
    const char *unit;
    kv_term_kind term;
    int within;      /* 1 + a field whose figure holds this one (vLLM's later "peak
                        activation" holds the CUDA-graph estimate): when the log states it,
                        this row is shown and not added to the terms; 0: none */
} kv_cmp_row;

#define KV_CMP_D(m) offsetof(kv_result, m), 0
#define KV_CMP_I(m) offsetof(kv_result, m), 1

/* A flag of the command line that contradicts a figure the log states changes the budget
 * the log's KV figure came from (a what-if). */
typedef struct {
    const kv_param *param;
    int field;
    double scale;    /* the parameter's value x scale = the logged unit */
} kv_log_what_if;

/* The figures kvcalc reports of any log. */
typedef struct {
    double kv_total;      /* the KV memory the log states, bytes; NaN: none */
    double kv_tokens;     /* its token capacity; NaN */
    double weights;       /* bytes; NaN */
    double gpu_total;     /* bytes; NaN */
    char version[32];     /* the engine's release as kvcalc shows it; "" */
    char era[32];         /* the line formats seen; "" */
    double rel_round;     /* half the last printed digit of the KV figure, over the figure */
    double unit_round;    /* half the last printed digit of a logged size, in bytes */
    int from_settings;    /* 1: the log states no KV budget; the cache follows from settings */
    /* half the last printed digit of a logged size x (bytes), when the engine prints each
     * size in its own unit (Go's "%.1f GiB" / "%.1f MiB"); NULL: unit_round for all */
    double (*rounding)(double x);
    /* what a KV line off by more than the rounding points to, when the engine can tell
     * (SGLang: the fraction the log's figures imply when it states none); "" */
    char hint[100];
} kv_log_summary;

/* How an engine's startup logs read, and how they are compared. */
typedef struct {
    const kv_log_pattern *patterns;
    size_t n_patterns;
    /* openers of nested configs on a line (vLLM's "'speculative_config': {"): their keys are
     * another model's, so patterns without KV_NESTED skip what they hold, up to the bracket
     * that closes them; NULL-terminated, or NULL */
    const char *const *nested;
    const char *const *field_names; /* of kv_log_values.v */
    int n_fields;
    int flash_field, unified_field; /* fields KV_TO_FLASH / KV_TO_UNIFIED write (-1: none) */
    int weights_field;              /* the precise weights KV_TO_WEIGHTS_ROUNDED gives way to
                                       (-1: none; a table sets every field of this kind, as 0
                                       is a field) */
    const int (*swa_pairs)[4];      /* KV_CACHE lines after KV_SWA_ON / KV_INDEX_ON /
                                       KV_MTP_ON: {field, its sliding-window field, its indexer
                                       field, its MTP context's field}; the line's other fields
                                       are dropped */
    size_t n_swa_pairs;
    const int *settings;            /* fields of settings the comparison lists apart */
    size_t n_settings;
    /* the engine's word for a setting's value ("mtp" for vLLM's speculative method), or NULL:
     * the number is shown (optional) */
    const char *(*setting_word)(int field, double value);
    const kv_log_input *inputs;
    size_t n_inputs;
    int partial_figure;     /* 1 + the field of a KV figure that alone sizes no pool (SGLang's
                               state slots): no basis for the first run by itself; 0: none */
    /* inputs that come from texts and combinations of figures (version, era, dtypes) */
    void (*texts)(const kv_log_values *v, kv_log_inputs *in);
    const kv_cmp_row *rows;
    size_t n_rows;
    const kv_log_what_if *what_if;
    size_t n_what_if;
    int gpu_total_field;            /* the GPU total torch saw (-1: not logged) */
    int needs_gpu_total;            /* the end-to-end run needs a GPU total */
    int e2e_available;              /* the end-to-end KV figure: 1 available_kv_bytes, 0 the
                                       allocated kv_cache_bytes */
    /* the figures of the header and the rounding of the KV figure, given run a */
    void (*summary)(const kv_log_values *v, const kv_result *a, kv_log_summary *out);
    /* the fraction of the budget a logged total enters with (vLLM's utilization, SGLang's
     * mem_fraction_static), from the end-to-end result; and whether CUDA graphs are inside
     * the budget */
    double (*fraction)(const kv_result *b);
    int (*graphs_inside)(const kv_spec *s);
    /* the model as the log's lines describe it (kv_log_model_spec()), or NULL: the engine's
     * logs do not */
    kv_status (*model)(const kv_log_values *v, kv_spec *s, kv_gguf_info *g, char *name,
                       size_t cap, char *err, size_t errcap);
    /* a field whose lines make a log this engine's when no engine printed a KV line (a start
     * that failed after allocating its buffers: llama.cpp's per-device KV buffers); 0: none.
     * Not KV lines themselves: an engine that embeds this one prints them too */
    int fallback_field;
} kv_engine_log;

/* ---- the descriptor ---------------------------------------------------------------------- */

typedef kv_status (*kv_compute_fn)(const kv_spec *s, kv_result *r);

/* ---- /metrics: an engine's metric names (src/log/metrics.c reads them) ---- */

typedef enum { KV_AGG_SUM, KV_AGG_MEAN, KV_AGG_FIRST } kv_metric_agg;

/* A metric: its name after the engine's prefix, the figure of kv_metrics_scrape it writes
 * (KV_METRIC_AT), how several series add up (ranks, engines, label values), and the name
 * generation its presence shows (NULL: any). */
typedef struct {
    const char *name;
    size_t at;
    kv_metric_agg how;
    const char *generation;
} kv_metric_row;

/* A label of an info metric (value 1, the settings in its labels): vLLM's
 * cache_config_info. "True" / "False" read as 1 / 0; "None" leaves the figure unknown. */
typedef struct {
    const char *metric, *label;
    size_t at;
} kv_metric_label;

/* A figure of the scrape that becomes an input, as if typed (the flag by name): a setting
 * (both runs), or the measured pool (measured = 1: only the run that predicts the load on
 * the pool the server has). */
typedef struct {
    size_t at;
    const char *flag;
    int measured;
} kv_metric_input;

typedef struct {
    const char *const *prefixes;     /* "vllm:", NULL-terminated */
    const char *const *prefix_words; /* the same length: a prefix's own generation, or NULL */
    const kv_metric_row *rows;
    size_t n_rows;
    const kv_metric_label *labels;
    size_t n_labels;
    const kv_metric_input *inputs;
    size_t n_inputs;
    const char *const *rank_labels;  /* labels whose values other than "0" repeat rank 0's
                                        figures (SGLang's tp_rank, pp_rank), NULL-terminated */
    const char *replica_label;       /* the label that counts replicas ("engine", "dp_rank") */
} kv_engine_metrics;

#define KV_METRIC_AT(m) offsetof(kv_metrics_scrape, m)

/* The latency histograms vLLM and SGLang name alike (prometheus_client's _sum and _count):
 * time to first token, time per output token, inter-token latency, request latency. */
#define KV_METRIC_HISTOGRAM(name, m)                                                        \
    {name "_sum", KV_METRIC_AT(m##_sum), KV_AGG_SUM, NULL},                                 \
        {name "_count", KV_METRIC_AT(m##_count), KV_AGG_SUM, NULL}
#define KV_METRIC_LATENCY_ROWS                                                              \
    KV_METRIC_HISTOGRAM("time_to_first_token_seconds", ttft),                               \
        KV_METRIC_HISTOGRAM("time_per_output_token_seconds", tpot),                         \
        KV_METRIC_HISTOGRAM("inter_token_latency_seconds", itl),                            \
        KV_METRIC_HISTOGRAM("e2e_request_latency_seconds", e2e)

typedef struct kv_engine_desc {
    kv_engine id;
    const char *name;                /* as --engine takes it */
    const char *title;               /* as the engine spells itself ("vLLM") */
    const char *const *aliases;      /* other names --engine takes, NULL-terminated, or NULL */
    const char *doc;                 /* its page: "docs/vllm.md", or NULL */
    /* What its KV memory is called where the report gives it first ("vLLM's Available KV
     * cache memory"); NULL: the engine sizes its cache from its settings, not the memory */
    const char *budget_words;
    /* Fills the engine's inputs (s->engine_space) with its defaults; may also set the core
     * inputs listed in `overrides` (bits of kv_core_param), which the engine always decides
     * unless given (llama.cpp's f16 cache). */
    void (*defaults)(kv_spec *s);
    uint64_t overrides;
    /* The engine's own inputs and rules: KV_OK, or the status to blame; *why (may be NULL)
     * gets the engine's own words and the parameter to blame. */
    kv_status (*check)(const kv_spec *s, kv_error *why);
    /* The engine's words for KV_ERR_RANGE from its compute (a count past 64 bits), or NULL
     * for the library's. */
    const char *range_words;
    /* Fills the engine's result (its lesson figures are already in r) and sets
     * r->max_concurrency: whole requests of s->context held at once. */
    kv_status (*compute)(const kv_spec *s, kv_result *r);
    /* The cache's element types when they are not the spec's dtype (llama.cpp's -ctk / -ctv:
     * "K q8_0 (1.0625 B), V q8_0 (1.0625 B)") into buf; NULL when they are it, or NULL: the
     * engine caches in the spec's dtype. */
    const char *(*cache_types)(const kv_spec *s, const kv_result *r, char *buf, size_t cap);
    /* Why the engine shares no prefix across requests with these settings (the lesson's
     * saving then does not happen here), or NULL: it does, or NULL: not said */
    const char *(*prefix_note)(const kv_spec *s, const kv_result *r);
    /* The host cannot hold what compute() keeps there (r->host_short): the engine does not
     * start, and its own figures say so as they do for any refusal. NULL: it keeps none of
     * its own. */
    void (*host_refused)(kv_result *r);
    /* Host memory the engine leaves free beside r->host_bytes when it checks the host (its
     * start-up refuses a host with less than both), or NULL: none. */
    double (*host_reserve)(const kv_spec *s, const kv_result *r);
    /* Whole requests of `context` tokens (whose KV is request_bytes), from the result of
     * kv_compute(s) - the table's rows. Equals compute()'s answer when context == s->context. */
    double (*concurrency_at)(const kv_spec *s, const kv_result *r, int64_t context,
                             double request_bytes);
    /* Carries the figures measured at from's layout (per-GPU readings of a log) into `to`,
     * laid out for another tp / pp / dp or GPU (its other members already set); `compute`
     * is kv_compute(), for the engine's estimates at either layout. NULL: the engine takes
     * no measured figure. */
    void (*relayout)(const kv_spec *from, kv_spec *to, kv_compute_fn compute);
    /* The lever "an 8-bit KV cache": its name and how to set it on a copy of the spec
     * (NULL: the spec's dtype becomes fp8). */
    const char *kv8_name;
    void (*kv8)(kv_spec *s);
    const kv_param *params;
    size_t n_params;
    /* where its inputs keep a draft model for speculative decoding (KV_DRAFT_AT), 0: the
     * engine takes none */
    size_t draft_at;
    /* where they keep LoRA adapter files (KV_LORA_AT), 0: the engine reads none */
    size_t lora_at;
    /* where they keep -ot's tensor overrides (KV_OVERRIDES_AT), 0: none */
    size_t overrides_at;
    const kv_json_flag *json_flags; /* its flags of JSON objects (kv_json_flag) */
    size_t n_json_flags;
    const kv_field *fields;
    size_t n_fields;
    const kv_engine_log *log;        /* NULL: kvcalc reads no log of this engine */
    /* its /metrics names (--from-metrics), or NULL: kvcalc reads no scrape of this engine */
    const kv_engine_metrics *metrics;
    /* How it schedules requests on its cache under a workload (kv_sched_of()), from its
     * result; NULL: its scheduler is not simulated */
    kv_status (*sched)(const kv_spec *s, const kv_result *r, kv_sched *out, kv_error *why);
    /* What a decode step reads of the weights on one GPU (kv_workload_roofline()); into
     * *host what it reads from host memory (weights or cache the engine keeps there: layers
     * on the CPU, offloaded weights), and into *block_bytes, when the engine's cache bytes
     * are not of its scheduler's blocks (the caller's r->kv_cache_bytes / those blocks),
     * the bytes of one. NULL: r->weights_bytes, nothing from the host, that block */
    double (*step_reads)(const kv_spec *s, const kv_result *r, double *block_bytes, double *host);
} kv_engine_desc;

/* A scheduler's refusal (its `sched`): KV_ERR_WORKLOAD, with msg in *why when why is given. */
kv_status kv_sched_refuse(kv_error *why, const char *msg);

#define KV_ENGINE(ID, id, name) extern const kv_engine_desc kv_engine_##id;
#include "kvcalc_engines.def"
#undef KV_ENGINE

/* The descriptor of e, or NULL when e is out of range. */
const kv_engine_desc *kv_engine_get(kv_engine e);

/* ---- tables an engine writes: typed rows, checked by the compiler (internal.h) ---- */

/* An engine parameter row: .type = KV_T_<TYPE>, the member of S it writes. */
#define KV_EPARAM(E, S, TYPE, m)                                                            \
    .type = KV_T_##TYPE, .engine = E, KV_PARAM_AT(S, m, KV_CTYPE_##TYPE)

/* The draft member m of an engine's inputs S, for the descriptor's draft_at. */
#define KV_DRAFT_AT(S, m) (offsetof(S, m) + 1)
#define KV_LORA_AT(S, m) (offsetof(S, m) + 1)
#define KV_OVERRIDES_AT(S, m) (offsetof(S, m) + 1)

/* A field row of an engine's result struct S. */
#define KV_EFIELD(E, S, name, m, T, unit, ftype, sweep)                                     \
    {#name, unit, KV_FROM_ENGINE, E, ftype, KV_MEMBER(S, m, T), sweep, 0}

/* The part of a GPU's weights in the decoder layers: what an offloader that wraps the layers
 * made by make_layers can move (vLLM's and SGLang's --cpu-offload-gb; the embeddings, the
 * head, the final norm and the towers stay), as the layers' share of the estimated
 * parameters; all of them when the model's widths are unknown (engines.c). */
double kv_layers_weight_bytes(const kv_spec *s, double weights);

/* ---- helpers of the engines' log tables (log_common.c) ---- */

/* The names of kv_log_field, shared by the engines whose lines use them. */
extern const char *const kv_log_field_names[KV_LOG_FIELDS];
/* Sets p's input from a log to text (replacing an earlier one of p). */
void kv_log_input_put(kv_log_inputs *in, const kv_param *p, kv_log_kind kind, const char *text);
/* The value put for p follows from input `to`'s setting: a flag for `to` drops it. */
void kv_log_input_yield(kv_log_inputs *in, const kv_param *p, const kv_param *to);
/* The summary's figures every engine fills alike: the tokens, the weights and the GPU total
 * from those fields (NaN where not logged; -1: no such field), the version and the era as
 * logged, the KV total NaN. */
void kv_log_summary_common(const kv_log_values *v, int tokens, int weights, int gpu_total,
                           kv_log_summary *out);

/* ---- lists of names (engines.c) ---- */

/* A list of list's names, comma- or blank-separated, as the OR of their values; -1 when a name
 * is not one of them or none is given. */
int kv_choice_mask_parse(const kv_choice *list, const char *text, int *out);
/* DeepSeek-V4's compressed cache (layout.csa_*): KV_OK when spec s has none, else the
 * refusal of an engine whose rules for it kvcalc has not read (title: "SGLang"). */
kv_status kv_refuse_csa(const kv_spec *s, kv_error *why, const char *title);
/* Its only cache dtype: KV_OK when s has no such layers or keeps them in fp8. */
kv_status kv_csa_check_dtype(const kv_spec *s, kv_error *why);
/* mask's names, comma-separated, in list's order ("" for 0); whole is the value that stands
 * for every name (its own name alone, as "all"), 0: none. */
void kv_choice_mask_format(const kv_choice *list, int whole, int mask, char *buf, size_t cap);

/* A table member and its count from the array itself, so that they cannot differ:
 * KV_TABLE(rows, cmp_rows) is `.rows = cmp_rows, .n_rows = <its length>`. */
#define KV_TABLE(member, array) .member = array, .n_##member = sizeof array / sizeof array[0]

/* The engine's own inputs and result of s / r (their engine must be e's). */
#define KV_ENGINE_SPEC(s) ((void *)(s)->engine_space.bytes)

#endif
