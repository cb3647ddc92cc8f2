/*
 * cli.c - strict argument parsing, in ISO C (no getopt).
 *
 * Every spec flag is a row of kv_inputs (fields.c); the few output and action flags are a
 * row of the small table below. Values are checked strictly - an integer is [+-]digits and
 * must fit in 64 bits, a number is a decimal with an optional exponent and must be finite -
 * because a calculator that silently reads "4k" as 4 or "1e999" as infinity lies. Every
 * error is one line that names the flag, what it accepts and what it got.
 */
#include "cli.h"

#include "config.h"
#include "format.h"
#include "presets.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    OPT_TARGET,
    OPT_LEVERS,
    OPT_OFFLOAD,
    OPT_REQUIRE,
    OPT_SWEEP,
    OPT_PLOT,
    OPT_CONFIG,
    OPT_MODEL,
    OPT_GPU,
    OPT_FORMAT,
    OPT_GET,
    OPT_LIST_MODELS,
    OPT_LIST_GPUS,
    OPT_HELP,
    OPT_VERSION
} opt_kind;

typedef struct {
    const char *flag;
    char short_flag;
    opt_kind kind;
    const char *meta; /* NULL: takes no value */
    const char *want; /* what the value may be, for messages */
    const char *help;
} option_row;

static const option_row options[] = {
    {"target-concurrency", 0, OPT_TARGET, "N", "an integer >= 1",
     "plan for N requests in flight: memory, replicas, which GPU"},
    {"levers", 0, OPT_LEVERS, NULL, NULL,
     "what half the context, fp8 KV, int8/int4 weights and offload buy"},
    {"offload-gib", 0, OPT_OFFLOAD, "GIB", "a finite number >= 0",
     "with --levers: a CPU-memory KV tier of GIB (capacity only)"},
    {"require", 0, OPT_REQUIRE, "EXPR", "KEY>=N, KEY<=N, KEY>N, KEY<N or KEY==N",
     "exit 1 unless EXPR holds, e.g. 'max_concurrency>=64' (repeatable)"},
    {"sweep", 0, OPT_SWEEP, "KEY=VALUES", "KEY=V1,V2,... or KEY=A..B*F or KEY=A..B+S",
     "one row per point of a grid (repeatable: one axis each)"},
    {"plot", 0, OPT_PLOT, "FILE", "a file name",
     "also write an SVG chart of context vs concurrency and memory"},
    {"config", 0, OPT_CONFIG, "FILE", "a config.json file, or - for standard input",
     "read the model from a Hugging Face config.json (- = stdin)"},
    {"model", 0, OPT_MODEL, "NAME", "a built-in model (see --list-models)",
     "a built-in model: Hugging Face id or short alias"},
    {"gpu", 0, OPT_GPU, "NAME", "a built-in GPU (see --list-gpus)",
     "a built-in GPU: its memory as the driver reports it"},
    {"list-models", 0, OPT_LIST_MODELS, NULL, NULL, "list the built-in models and exit"},
    {"list-gpus", 0, OPT_LIST_GPUS, NULL, NULL, "list the built-in GPUs and exit"},
    {"format", 0, OPT_FORMAT, "FMT", "one of: text json csv",
     "output format: text (the lesson's table), json or csv"},
    {"get", 0, OPT_GET, "KEY", "a top-level key of the JSON output",
     "print only this top-level value, on one line"},
    {"help", 'h', OPT_HELP, NULL, NULL, "show this help and exit"},
    {"version", 0, OPT_VERSION, NULL, NULL, "print the version and exit"},
};
#define N_OPTIONS (sizeof options / sizeof options[0])

static const char *const format_names[FORMAT_COUNT] = {"text", "json", "csv"};

/* ---- messages ------------------------------------------------------------------------- */

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, cap, "kvcalc: ");
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < cap)
        vsnprintf(err + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    return CLI_USAGE_ERROR;
}

/* Copies user text for quoting in a message: printable ASCII only (anything else becomes
 * '?', so a hostile argument cannot break the one-line promise or the terminal), cut at 60
 * characters. */
static const char *quote_safe(char *buf, size_t cap, const char *text)
{
    size_t n = 0, limit = 60;
    for (; text[n] && n < limit && n + 4 < cap; n++) {
        unsigned char c = (unsigned char)text[n];
        buf[n] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (text[n] && n + 4 < cap) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* Joins names into buf: name(ctx, i) for i < count, skipping NULLs, `sep` between. One
 * helper for every "expected one of: ..." list (dtypes, keys, GPUs, choices). */
typedef const char *(*name_at)(const void *ctx, size_t i);

static void join_names(char *buf, size_t cap, const char *sep, size_t count, name_at name,
                       const void *ctx)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count && n < cap; i++) {
        const char *s = name(ctx, i);
        if (!s)
            continue;
        int w = snprintf(buf + n, cap - n, "%s%s", n ? sep : "", s);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

static const char *dtype_name(const void *ctx, size_t i)
{
    (void)ctx;
    return kv_dtype_get((kv_dtype)i)->name;
}

static const char *output_name(const void *ctx, size_t i)
{
    (void)ctx;
    return kv_outputs[i].key;
}

static const char *numeric_output_name(const void *ctx, size_t i)
{
    (void)ctx;
    return output_is_numeric(&kv_outputs[i]) ? kv_outputs[i].key : NULL;
}

static const char *gpu_name(const void *ctx, size_t i)
{
    (void)ctx;
    return kv_gpu_presets[i].name;
}

static const char *choice_name(const void *ctx, size_t i)
{
    return ((const enum_choice *)ctx)[i].name;
}

static size_t choice_count(const enum_choice *c)
{
    size_t n = 0;
    while (c[n].name)
        n++;
    return n;
}

static void list_dtypes(char *buf, size_t cap)
{
    join_names(buf, cap, " ", KV_DTYPE_COUNT, dtype_name, NULL);
}

/* "an integer >= 1", "a finite number > 0 and <= 1", "one of: fp32 fp16 ..." */
static void describe_input(const input_field *f, char *buf, size_t cap)
{
    char names[256], upper[64] = "";
    if (f->max > 0)
        snprintf(upper, sizeof upper, " and <= %.15g", f->max);
    switch (f->kind) {
    case IN_INT:
        snprintf(buf, cap, "an integer >= %.0f%s", f->min, upper);
        break;
    case IN_NUM:
        snprintf(buf, cap, "a finite number %s %g%s", f->min_exclusive ? ">" : ">=", f->min,
                 upper);
        break;
    case IN_DTYPE:
        list_dtypes(names, sizeof names);
        snprintf(buf, cap, "one of: %s", names);
        break;
    case IN_ENUM:
        join_names(names, sizeof names, " ", choice_count(f->choices), choice_name, f->choices);
        snprintf(buf, cap, "one of: %s", names);
        break;
    case IN_FLAG:
        snprintf(buf, cap, "no value");
        break;
    case IN_VERSION:
        snprintf(buf, cap, "a vLLM version such as 0.11 or 0.10.1.1");
        break;
    }
}

/* ---- value syntax --------------------------------------------------------------------- */

/* [+-]digits, fitting in int64. Returns 0, -1 (syntax) or -2 (does not fit). */
static int parse_int(const char *t, int64_t *out)
{
    int neg = 0;
    if (*t == '+' || *t == '-')
        neg = (*t++ == '-');
    if (!isdigit((unsigned char)*t))
        return -1;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    int overflow = 0;
    for (; isdigit((unsigned char)*t); t++) {
        unsigned d = (unsigned)(*t - '0');
        if (v > (limit - d) / 10)
            overflow = 1;
        else
            v = v * 10 + d;
    }
    if (*t)
        return -1;
    if (overflow)
        return -2;
    if (neg)
        *out = (v == (uint64_t)INT64_MAX + 1u) ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 0;
}

/* A decimal number: [+-] (digits [. digits] | . digits) [(e|E) [+-] digits]. No hex, no
 * inf/nan, no spaces. Returns 0, -1 (syntax) or -2 (too large for a double). */
static int parse_num(const char *t, double *out)
{
    const char *p = t;
    size_t digits = 0;
    if (*p == '+' || *p == '-')
        p++;
    for (; isdigit((unsigned char)*p); p++)
        digits++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            digits++;
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return -1;
    errno = 0;
    double v = strtod(t, NULL);
    if (!isfinite(v))
        return -2; /* underflow to 0 or a subnormal is what Python gives too: accepted */
    *out = v;
    return 0;
}

/* ---- setting one value ---------------------------------------------------------------- */

/* "0.11", "v0.10.1.1", "0.11.0rc2" -> 11. Only 0.x releases exist in kvcalc's rules. */
static int parse_version(const char *t, int *minor)
{
    if (*t == 'v')
        t++;
    if (t[0] != '0' || t[1] != '.' || !isdigit((unsigned char)t[2]))
        return -1;
    long v = 0;
    for (t += 2; isdigit((unsigned char)*t) && v < 1000; t++)
        v = v * 10 + (*t - '0');
    if (v >= 1000 || (*t != '\0' && *t != '.' && *t != 'r' && *t != '-' && *t != '+'))
        return -1;
    *minor = (int)v;
    return 0;
}

int cli_set_input(const input_field *f, const char *val, kv_spec *s, char *err, size_t cap)
{
    char want[300], shown[80];
    if (f->kind == IN_FLAG) { /* takes no value: val is NULL */
        *input_enum(s, f) = f->flag_value;
        return 0;
    }
    describe_input(f, want, sizeof want);
    quote_safe(shown, sizeof shown, val);
    switch (f->kind) {
    case IN_DTYPE:
        if (kv_dtype_from_name(val, input_dtype(s, f)) != 0)
            return fail(err, cap, "--%s: unknown dtype '%s' (expected %s)", f->flag, shown, want);
        return 0;
    case IN_ENUM:
        for (const enum_choice *c = f->choices; c->name; c++) {
            if (strcmp(c->name, val) == 0) {
                *input_enum(s, f) = c->value;
                return 0;
            }
        }
        return fail(err, cap, "--%s: unknown value '%s' (expected %s)", f->flag, shown, want);
    case IN_FLAG:
        return 0; /* handled above */
    case IN_VERSION:
        if (parse_version(val, input_enum(s, f)) != 0)
            return fail(err, cap, "--%s: expected %s, got '%s'", f->flag, want, shown);
        return 0;
    case IN_INT: {
        int64_t v = 0;
        int rc = parse_int(val, &v);
        if (rc == -2)
            return fail(err, cap, "--%s: expected %s, got '%s' (too large: at most %lld)",
                        f->flag, want, shown, (long long)INT64_MAX);
        if (rc != 0 || (double)v < f->min || (f->max > 0 && (double)v > f->max))
            return fail(err, cap, "--%s: expected %s, got '%s'", f->flag, want, shown);
        *input_int(s, f) = v;
        return 0;
    }
    case IN_NUM: {
        double d = 0;
        int rc = parse_num(val, &d);
        if (rc == -2)
            return fail(err, cap, "--%s: expected %s, got '%s' (too large for a double)",
                        f->flag, want, shown);
        if (rc != 0 || (f->min_exclusive ? !(d > f->min) : !(d >= f->min)) ||
            (f->max > 0 && d > f->max))
            return fail(err, cap, "--%s: expected %s, got '%s'", f->flag, want, shown);
        *input_num(s, f) = d;
        return 0;
    }
    }
    return 0;
}

static const struct {
    const char *text;
    req_op op;
} req_ops[] = {{">=", REQ_GE}, {"<=", REQ_LE}, {"==", REQ_EQ}, {">", REQ_GT}, {"<", REQ_LT}};

/* "max_concurrency>=64": a numeric output key, an operator, a number; spaces allowed. */
static int parse_requirement(const char *text, requirement *q, char *err, size_t cap)
{
    char shown[80], key[64], keys[2048];
    const char *p = text;
    size_t k = 0;
    while (*p == ' ')
        p++;
    while ((isalnum((unsigned char)*p) || *p == '_') && k + 1 < sizeof key)
        key[k++] = *p++;
    key[k] = '\0';
    while (*p == ' ')
        p++;
    size_t o;
    for (o = 0; o < sizeof req_ops / sizeof req_ops[0]; o++)
        if (strncmp(p, req_ops[o].text, strlen(req_ops[o].text)) == 0)
            break;
    quote_safe(shown, sizeof shown, text);
    if (k == 0 || o == sizeof req_ops / sizeof req_ops[0])
        return fail(err, cap, "--require: expected KEY>=N, KEY<=N, KEY>N, KEY<N or KEY==N, got "
                              "'%s'",
                    shown);
    p += strlen(req_ops[o].text);
    while (*p == ' ')
        p++;
    char number[64];
    size_t n = strcspn(p, " ");
    snprintf(number, sizeof number, "%.*s", (int)(n < 63 ? n : 63), p);
    const char *rest = p + n;
    while (*rest == ' ')
        rest++;
    if (parse_num(number, &q->value) != 0 || *rest)
        return fail(err, cap, "--require: expected a number after '%s', got '%s'",
                    req_ops[o].text, shown);
    q->field = kv_output_by_key(key);
    if (!q->field || !output_is_numeric(q->field)) {
        join_names(keys, sizeof keys, " ", kv_outputs_count, numeric_output_name, NULL);
        return fail(err, cap, "--require: unknown numeric key '%s' (expected one of: %s)", key,
                    keys);
    }
    q->op = req_ops[o].op;
    snprintf(q->text, sizeof q->text, "%s%s%s", key, req_ops[o].text, number);
    return 0;
}

int requirement_met(const requirement *q, const kv_spec *s, const kv_result *r, char *got,
                    size_t cap)
{
    output_value v = q->field->get(s, r);
    output_text(got, cap, v);
    if (v.is_null)
        return 0; /* a value that does not exist meets nothing */
    double x = v.kind == OUT_INT ? (double)v.i : v.kind == OUT_BOOL ? (double)v.b : v.d;
    switch (q->op) {
    case REQ_GE:
        return x >= q->value;
    case REQ_LE:
        return x <= q->value;
    case REQ_EQ:
        return x == q->value;
    case REQ_GT:
        return x > q->value;
    case REQ_LT:
        return x < q->value;
    }
    return 0;
}

static int set_option(const option_row *opt, const char *val, cli_options *o, char *err,
                      size_t cap)
{
    char shown[80], names[512];
    switch (opt->kind) {
    case OPT_FORMAT:
        for (int i = 0; i < FORMAT_COUNT; i++) {
            if (strcmp(val, format_names[i]) == 0) {
                o->format = (cli_format)i;
                return 0;
            }
        }
        return fail(err, cap, "--format: unknown format '%s' (expected %s)",
                    quote_safe(shown, sizeof shown, val), opt->want);
    case OPT_GET:
        o->get = kv_output_by_key(val);
        if (o->get)
            return 0;
        join_names(names, sizeof names, " ", kv_outputs_count, output_name, NULL);
        return fail(err, cap, "--get: unknown key '%s' (expected one of: %s)",
                    quote_safe(shown, sizeof shown, val), names);
    case OPT_TARGET: {
        int64_t n = 0;
        if (parse_int(val, &n) != 0 || n < 1)
            return fail(err, cap, "--target-concurrency: expected %s, got '%s'", opt->want,
                        quote_safe(shown, sizeof shown, val));
        o->target = n;
        return 0;
    }
    case OPT_LEVERS:
        o->levers = 1;
        return 0;
    case OPT_OFFLOAD: {
        double d = 0;
        if (parse_num(val, &d) != 0 || !(d >= 0) || d > 1e12)
            return fail(err, cap, "--offload-gib: expected %s, got '%s'", opt->want,
                        quote_safe(shown, sizeof shown, val));
        o->offload_gib = d;
        return 0;
    }
    case OPT_REQUIRE:
        if (o->n_require == CLI_MAX_REQUIRE)
            return fail(err, cap, "--require: at most %d requirements", CLI_MAX_REQUIRE);
        return parse_requirement(val, &o->require[o->n_require++], err, cap);
    case OPT_SWEEP:
        if (o->n_sweep == CLI_MAX_SWEEP)
            return fail(err, cap, "--sweep: at most %d axes", CLI_MAX_SWEEP);
        o->sweep[o->n_sweep++] = val; /* checked by sweep.c, which knows the keys */
        return 0;
    case OPT_PLOT:
        if (val[0] == '\0')
            return fail(err, cap, "--plot: expected a file name, got ''");
        o->plot = val;
        return 0;
    case OPT_CONFIG:
        o->config_path = val;
        o->preset = NULL;
        return 0;
    case OPT_MODEL:
        o->preset = find_model_preset(val);
        o->config_path = NULL;
        if (o->preset)
            return 0;
        return fail(err, cap, "--model: unknown model '%s' (see kvcalc --list-models)",
                    quote_safe(shown, sizeof shown, val));
    case OPT_GPU:
        o->gpu = find_gpu_preset(val);
        if (o->gpu)
            return 0;
        join_names(names, sizeof names, ", ", kv_gpu_presets_count, gpu_name, NULL);
        return fail(err, cap, "--gpu: unknown GPU '%s' (expected one of: %s)",
                    quote_safe(shown, sizeof shown, val), names);
    case OPT_LIST_MODELS:
        o->action = ACTION_LIST_MODELS;
        return 0;
    case OPT_LIST_GPUS:
        o->action = ACTION_LIST_GPUS;
        return 0;
    case OPT_HELP:
        o->action = ACTION_HELP;
        return 0;
    case OPT_VERSION:
        o->action = ACTION_VERSION;
        return 0;
    }
    return 0;
}

/* ---- the loop ------------------------------------------------------------------------- */

/* An argument that stands for an option rather than a value: "-x", "--x", but not "-5" or
 * "-.5" (negative numbers are values, refused later with a clear range message). */
static int looks_like_option(const char *a)
{
    return a[0] == '-' && a[1] != '\0' && !isdigit((unsigned char)a[1]) && a[1] != '.';
}

static const option_row *find_option(const char *name, size_t len)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (strlen(options[i].flag) == len && memcmp(options[i].flag, name, len) == 0)
            return &options[i];
    return NULL;
}

/* Loads the model named by --config or --model into o->spec, with its labels. */
static int load_model(cli_options *o, char *err, size_t errcap)
{
    config_info info;
    int rc;
    if (o->config_path) {
        char *text = NULL;
        size_t len = 0;
        const char *label = strcmp(o->config_path, "-") == 0 ? "<stdin>" : o->config_path;
        rc = config_load_file(o->config_path, &text, &len, err, errcap);
        if (rc != 0)
            return rc;
        rc = config_read(text, len, label, &o->spec, &info, err, errcap);
        free(text);
        if (rc != 0)
            return rc;
        snprintf(o->model_name, sizeof o->model_name, "%s", info.name[0] ? info.name : label);
        snprintf(o->model_source, sizeof o->model_source, "%s", label);
    } else {
        rc = config_read(o->preset->json, o->preset->json_len, o->preset->file, &o->spec, &info,
                         err, errcap);
        if (rc != 0)
            return rc;
        snprintf(o->model_name, sizeof o->model_name, "%s", o->preset->id);
        snprintf(o->model_source, sizeof o->model_source, "built-in preset");
    }
    o->spec.model_name = o->model_name;
    o->spec.model_source = o->model_source;
    o->spec.max_context = info.max_context;
    return 0;
}

int cli_preset_spec(const model_preset *m, kv_spec *s, char *err, size_t errcap)
{
    config_info info;
    kv_spec_defaults(s);
    int rc = config_read(m->json, m->json_len, m->file, s, &info, err, errcap);
    s->model_name = m->id;
    s->model_source = "built-in preset";
    s->max_context = info.max_context;
    return rc;
}

/* Copies the inputs given on the command line from `given` over the spec, so that explicit
 * flags always win over what a config, a preset or a GPU says. */
void cli_apply_given(kv_spec *s, const kv_spec *given, const unsigned char *set)
{
    for (size_t i = 0; i < kv_inputs_count; i++) {
        const input_field *f = &kv_inputs[i];
        if (!set[i])
            continue;
        memcpy((char *)s + f->offset, (const char *)given + f->offset, input_size(f));
        if (f->error == KV_ERR_PARAMS_B)
            s->params_estimated = 0;
        if (f->error == KV_ERR_GPU_MEM)
            s->gpu_name = NULL;
        if (f->error == KV_ERR_WEIGHT_DTYPE) { /* every weight in the dtype given */
            s->arch.quant_scope = KV_QUANT_ALL;
            s->arch.quant_bytes = 0;
        }
    }
}

static int was_given(const unsigned char *set, const char *flag)
{
    const input_field *f = kv_input_by_flag(flag, strlen(flag));
    return f && set[f - kv_inputs];
}

/* vLLM's inputs that depend on the GPU: its total as torch sees it, and the default batch
 * budget (vLLM's own rule: 8,192 tokens on cards of 70 GiB or more unless they are A100s,
 * else 2,048). vLLM-only flags without --engine vllm are an error, not silently ignored. */
void cli_resolve_vllm_gpu(kv_spec *s, const gpu_preset *gpu, int memory_given,
                          int batch_given, char *note, size_t cap)
{
    if (gpu && !memory_given) {
        if (gpu->engine_gib > 0) {
            s->vllm.total_gib = gpu->engine_gib;
            snprintf(note, cap, "what vLLM reports for the %s", gpu->name);
        } else {
            s->vllm.total_gib = gpu_preset_gib(gpu) - 0.5;
            snprintf(note, cap, "%s driver total minus 0.5 GiB of CUDA context, an estimate",
                     gpu->name);
        }
    } else {
        s->vllm.total_gib = s->gpu_mem_gib;
        snprintf(note, cap, "the GPU memory given");
    }
    s->vllm_total_note = note;
    if (!batch_given) {
        int a100 = gpu && strstr(gpu->name, "A100") != NULL;
        s->vllm.max_num_batched_tokens = (s->vllm.total_gib >= 70 && !a100) ? 8192 : 2048;
    }
}

static int resolve_engine(cli_options *o, const unsigned char *set, char *err, size_t errcap)
{
    kv_spec *s = &o->spec;
    for (size_t i = 0; i < kv_inputs_count; i++)
        if (set[i] && kv_inputs[i].group == GROUP_VLLM && s->engine != KV_ENGINE_VLLM)
            return fail(err, errcap, "--%s: applies only with --engine vllm", kv_inputs[i].flag);
    if (s->engine != KV_ENGINE_VLLM)
        return 0;
    cli_resolve_vllm_gpu(s, o->gpu, was_given(set, "gpu-mem-gib"),
                         was_given(set, "max-num-batched-tokens"), o->total_note,
                         sizeof o->total_note);
    return 0;
}

int cli_parse(int argc, char *const argv[], cli_options *o, char *err, size_t errcap)
{
    char shown[80];
    kv_spec given;
    unsigned char set[KV_MAX_INPUTS] = {0};
    kv_spec_defaults(&given);
    kv_spec_defaults(&o->spec);
    o->format = FORMAT_TEXT;
    o->get = NULL;
    o->action = ACTION_RUN;
    o->config_path = NULL;
    o->preset = NULL;
    o->gpu = NULL;
    o->model_name[0] = o->model_source[0] = '\0';
    o->target = 0;
    o->levers = 0;
    o->offload_gib = 0;
    o->n_require = 0;
    o->n_sweep = 0;
    o->plot = NULL;
    err[0] = '\0';

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0) {
            o->action = ACTION_HELP;
            return 0;
        }
        if (a[0] != '-' || a[1] == '\0' || strcmp(a, "--") == 0)
            return fail(err, errcap, "unexpected argument '%s'",
                        quote_safe(shown, sizeof shown, a));
        if (a[1] != '-')
            return fail(err, errcap, "unknown option '%s'", quote_safe(shown, sizeof shown, a));

        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const input_field *in = kv_input_by_flag(name, len);
        const option_row *opt = in ? NULL : find_option(name, len);
        if (!in && !opt) {
            char flag[80];
            snprintf(flag, sizeof flag, "%.*s", (int)(len < 60 ? len + 2 : 62), a);
            return fail(err, errcap, "unknown option '%s'",
                        quote_safe(shown, sizeof shown, flag));
        }
        const char *flag = in ? in->flag : opt->flag;
        int takes_value = in ? in->kind != IN_FLAG : opt->meta != NULL;
        const char *val = NULL;
        if (takes_value) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc && !looks_like_option(argv[i + 1]))
                val = argv[++i];
            else if (in) {
                char want[160];
                describe_input(in, want, sizeof want);
                return fail(err, errcap, "--%s: missing value (expected %s)", flag, want);
            } else
                return fail(err, errcap, "--%s: missing value (expected %s)", flag, opt->want);
        } else if (eq) {
            return fail(err, errcap, "--%s: takes no value, got '%s'", flag,
                        quote_safe(shown, sizeof shown, eq + 1));
        }

        int rc;
        if (in) {
            rc = cli_set_input(in, val, &given, err, errcap);
            set[in - kv_inputs] = 1;
        } else {
            rc = set_option(opt, val, o, err, errcap);
        }
        if (rc != 0)
            return rc;
        if (o->action == ACTION_HELP || o->action == ACTION_VERSION)
            return 0;
    }
    if (o->action != ACTION_RUN)
        return 0;
    if (o->n_sweep > 0 && (o->get || o->plot || o->n_require || o->target || o->levers))
        return fail(err, errcap, "--sweep: prints one row per point; it does not combine with "
                                 "--get, --plot, --require, --target-concurrency or --levers");
    if (o->config_path || o->preset) {
        int rc = load_model(o, err, errcap);
        if (rc != 0)
            return rc;
    }
    if (o->gpu) {
        o->spec.gpu_mem_gib = gpu_preset_gib(o->gpu);
        o->spec.gpu_name = o->gpu->name;
    }
    cli_apply_given(&o->spec, &given, set);
    o->given = given;
    memcpy(o->given_set, set, sizeof o->given_set);
    return resolve_engine(o, set, err, errcap);
}

void cli_status_error(const kv_spec *s, kv_status st, char *err, size_t errcap)
{
    if (st == KV_ERR_TP) {
        char valid[512] = "";
        size_t n = 0;
        int64_t limit = s->arch.heads > 0 ? s->arch.heads : s->kv_heads;
        for (int64_t t = 1; t <= limit && t <= 4096 && n + 24 < sizeof valid; t++)
            if (kv_tp_valid(s, t))
                n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%lld", n ? " " : "",
                                      (long long)t);
        if (s->arch.heads > 0)
            fail(err, errcap, "--tensor-parallel-size: %lld does not split %lld attention heads "
                              "and %lld KV heads (valid: %s)",
                 (long long)s->tp, (long long)s->arch.heads, (long long)s->kv_heads, valid);
        else
            fail(err, errcap, "--tensor-parallel-size: %lld does not split %lld KV heads (valid: "
                              "%s, or a multiple of %lld)",
                 (long long)s->tp, (long long)s->kv_heads, valid, (long long)s->kv_heads);
        return;
    }
    if (st == KV_ERR_VLLM || st == KV_ERR_VLLM_RANGE) {
        fail(err, errcap, "--engine vllm: %s", kv_status_message(st));
        return;
    }
    const input_field *f = kv_input_by_status(st);
    if (f)
        fail(err, errcap, "--%s: %s", f->flag, kv_status_message(st));
    else
        fail(err, errcap, "--gpu-mem-gib, --params-b, --overhead-gib: %s",
             kv_status_message(st));
}

/* ---- help ----------------------------------------------------------------------------- */

static void help_line(FILE *out, char short_flag, const char *flag, const char *meta,
                      const char *help, const char *def)
{
    char left[64];
    if (short_flag)
        snprintf(left, sizeof left, "-%c, --%s", short_flag, flag);
    else
        snprintf(left, sizeof left, "--%s%s%s", flag, meta ? " " : "", meta ? meta : "");
    if (strlen(left) > 24)
        fprintf(out, "  %s\n  %-24s %s", left, "", help); /* too long: help on its own line */
    else
        fprintf(out, "  %-24s %s", left, help);
    if (def)
        fprintf(out, " [%s]", def);
    fputc('\n', out);
}

void cli_help(FILE *out)
{
    kv_spec defaults;
    char def[FMT_BUF], names[128];
    kv_spec_defaults(&defaults);
    fputs("Usage: kvcalc [OPTION]...\n"
          "Size the KV cache of an LLM server: how many requests of a given context fit on\n"
          "one GPU once the weights are loaded.\n"
          "\n"
          "Model, GPU and workload (defaults: the lesson's 7B-class GQA model, 48 GiB GPU):\n",
          out);
    for (int group = GROUP_MODEL; group <= GROUP_VLLM; group++) {
        if (group == GROUP_VLLM)
            fputs("\nvLLM engine (with --engine vllm; see docs/vllm.md):\n", out);
        for (size_t i = 0; i < kv_inputs_count; i++) {
            const input_field *f = &kv_inputs[i];
            if ((int)f->group != group)
                continue;
            /* the default in brackets, unless the help already says it or there is none */
            const char *d = input_text(def, sizeof def, &defaults, f);
            if (strchr(f->help, '[') || strcmp(d, "null") == 0 || f->kind == IN_FLAG)
                d = NULL;
            help_line(out, 0, f->flag, f->meta, f->help, d);
        }
    }
    fputs("\nModels, GPUs and output:\n", out);
    for (size_t i = 0; i < N_OPTIONS; i++)
        help_line(out, options[i].short_flag, options[i].flag, options[i].meta, options[i].help,
                  options[i].kind == OPT_FORMAT ? "text" : NULL);
    fputs("\nA model from --config or --model sets layers, KV heads, head size, dtypes, the\n"
          "layer layout and the parameter count; flags given explicitly still win.\n",
          out);
    fputs("\nDTYPE is one of:", out);
    for (int i = 0; i < KV_DTYPE_COUNT; i++) {
        const kv_dtype_info *d = kv_dtype_get((kv_dtype)i);
        fprintf(out, " %s (%s B)", d->name, fmt_g(names, sizeof names, d->bytes));
    }
    fputs("\n", out);
    fputs(            "KEY is a top-level key of the JSON output (see docs/output.md).\n"
            "Values go as --flag VALUE or --flag=VALUE; when a flag repeats, the last wins.\n"
            "\n"
            "KV bytes per token = 2 x layers x kv-heads x head-dim x dtype bytes;\n"
            "max concurrency = floor((GPU - weights - overhead) / (KV per token x context)).\n"
            "\n"
            "Exit status: 0 ok, 1 a --require was not met, 2 usage error (one line on\n"
            "stderr, nothing on stdout), 3 the output could not be written.\n"
            "See kvcalc(1).\n",
            out);
}
