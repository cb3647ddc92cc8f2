/*
 * flags.c - the one table of flags: the library's parameters (every spec input), then the
 * program's own flags, in the order --help lists them within each section.
 *
 * A parameter's flag is its row as the library states it (names, bounds, choices, help);
 * this file only adds what a command line needs (the argument's syntax, the --help
 * section). A row is built on first use (a static initializer cannot read another
 * file's rows), the one asked for only.
 */
#define KVCALC_ENGINES /* the engines' JSON flags (kv_json_flag) */
#include "kvprint.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

static const kv_choice arrival_choices[] = {
    {"poisson", KV_ARRIVE_POISSON}, {"even", KV_ARRIVE_EVEN}, {NULL, 0}};

static const kv_choice formats[] = {
    {"text", FORMAT_TEXT}, {"json", FORMAT_JSON}, {"csv", FORMAT_CSV}, {NULL, 0}};

#define ANY KV_ENGINE_COUNT
#define ACTION(fl, sh, what, sec, h)                                                         \
    {.name = fl, .short_name = sh, .arg = ARG_NONE, .does = DO_ACTION, .switch_value = what,  \
     .engine = ANY, .section = sec, .help = h}
#define TEXT_OPT(fl, what, sec, mt, h)                                                       \
    {.name = fl, .arg = ARG_TEXT, .does = what, .engine = ANY, .section = sec, .meta = mt,    \
     .help = h}

/* The program's own flags. */
static const kv_flag program[] = {
    TEXT_OPT("config", DO_MODEL_FILE, SECTION_MODEL, "FILE",
             "read the model from a Hugging Face config.json (- = stdin)"),
    TEXT_OPT("model", DO_MODEL_NAME, SECTION_MODEL, "NAME",
             "a built-in model: Hugging Face id or short alias (--list-models)"),
    TEXT_OPT("gpu", DO_GPU, SECTION_GPU, "NAME",
             "a built-in GPU: its memory as the driver reports it (--list-gpus)"),

    /* a workload: the lengths and arrivals a replica serves (docs/workload.md) */
#define WL(fl, what, a, lo, hi, mt, h)                                                       \
    {.name = fl, .arg = a, .does = DO_WORKLOAD, .switch_value = what, .min = lo, .max = hi,  \
     .engine = ANY, .section = SECTION_WORKLOAD, .meta = mt, .help = h}
    WL("prompt-tokens", WL_PROMPT, ARG_TEXT, 0, 0, "LEN",
       "prompt lengths: N tokens, or two of mean=, median=, p99= (a log-normal)"),
    WL("output-tokens", WL_OUTPUT, ARG_TEXT, 0, 0, "LEN",
       "output lengths, as --prompt-tokens takes them"),
    WL("trace", WL_TRACE, ARG_TEXT, 0, 0, "FILE",
       "a request trace instead (CSV: Azure's, BurstGPT's or prompt_tokens,output_tokens[,"
       "arrival_s]; or JSON lines; - = stdin)"),
    {.name = "rate", .arg = ARG_NUM, .does = DO_WORKLOAD, .switch_value = WL_RATE, .min = 0,
     .min_exclusive = 1, .max = 1e9, .engine = ANY, .section = SECTION_WORKLOAD, .meta = "R",
     .help = "requests per second arriving at one replica: simulate its scheduler (needs "
             "--tpot-ms, else estimated from the --gpu's memory bandwidth)"},
    WL("concurrency", WL_CONCURRENCY, ARG_INT, 1, 1e7, "N",
       "instead of --rate: N clients in a closed loop, each sending its next request when "
       "the last ends (needs --tpot-ms, or a --gpu, as --rate)"),
    {.name = "arrivals", .arg = ARG_CHOICE, .does = DO_WORKLOAD, .switch_value = WL_ARRIVALS,
     .choices = arrival_choices, .engine = ANY, .section = SECTION_WORKLOAD, .meta = "KIND",
     .help = "how requests arrive: poisson or even [poisson]"},
    /* a step of a microsecond at least: a real one takes milliseconds, and 1e-300 printed
     * rates of 300 digits */
    {.name = "tpot-ms", .arg = ARG_NUM, .does = DO_WORKLOAD, .switch_value = WL_TPOT, .min = 0.001,
     .max = 1e7, .engine = ANY, .section = SECTION_WORKLOAD, .meta = "MS",
     .help = "time per output token: one engine step, ms (measured, or a log's figure) "
             "[the --gpu's memory-bandwidth roofline, an estimate]"},
    WL("ttft-ms", WL_TTFT, ARG_NUM, 0, 1e7, "MS",
       "time to first token of a lone request of the mean prompt, ms [tpot: prefill free]"),
    WL("seed", WL_SEED, ARG_INT, 0, 0, "N", "the sampler's seed: the same seed, the same run [1]"),
    WL("requests", WL_REQUESTS, ARG_INT, 1, 1e6, "N", "requests to simulate [1000]"),
    WL("headroom", WL_HEADROOM, ARG_NUM, 0, 0.99, "F",
       "share of a replica's limit kept free when counting replicas for --rate [0]"),
    WL("shared-prefix-tokens", WL_PREFIX, ARG_INT, 0, 1048576, "N",
       "every prompt begins with the same N tokens (a system prompt): vLLM's prefix cache "
       "and SGLang's radix cache compute and hold them once, llama-server's and Ollama's "
       "slots keep a copy each [0: every prompt distinct]"),
#undef WL

    /* planning */
    {.name = "target-concurrency", .arg = ARG_INT, .does = DO_TARGET, .min = 1, .engine = ANY,
     .section = SECTION_PLAN, .meta = "N",
     .help = "plan for N requests in flight: memory, replicas, which GPU"},
    {.name = "gpus", .arg = ARG_INT, .does = DO_GPUS, .min = 1, .max = 1048576, .engine = ANY,
     .section = SECTION_PLAN, .meta = "N",
     .help = "I have N GPUs: every TP x PP x DP layout and the best (with a target, the fewest "
             "GPUs that hold it)"},
    {.name = "levers", .arg = ARG_NONE, .does = DO_LEVERS, .engine = ANY,
     .section = SECTION_PLAN,
     .help = "what half the context, fp8 KV, int8/int4 weights and offload buy"},
    {.name = "offload-gib", .arg = ARG_NUM, .does = DO_OFFLOAD, .min = 0, .max = 1e12,
     .engine = ANY, .section = SECTION_PLAN, .meta = "GIB",
     .help = "with --levers: a CPU-memory KV tier of GIB (capacity only)"},
    TEXT_OPT("require", DO_REQUIRE, SECTION_PLAN, "EXPR",
             "exit 1 unless EXPR holds, e.g. 'max_concurrency>=64' (repeatable)"),
    TEXT_OPT("sweep", DO_SWEEP, SECTION_PLAN, "KEY=VALUES",
             "one row per point of a grid: V1,V2 or A..B*F or A..B+S (repeatable)"),
    {.name = "progress", .arg = ARG_NONE, .does = DO_PROGRESS, .engine = ANY,
     .section = SECTION_PLAN,
     .help = "with --sweep: rows done, rate and time left on stderr once it runs past a "
             "second; with a simulated workload: its runs"},
    TEXT_OPT("plot", DO_PLOT, SECTION_PLAN, "FILE",
             "also write an SVG chart of context vs concurrency and memory"),
    {.name = "lora", .arg = ARG_TEXT, .does = DO_LORA, .engine = ANY, .section = SECTION_MODEL,
     .meta = "FILE",
     .help = "a LoRA adapter GGUF (llama.cpp's --lora, repeatable): its tensors on the device "
             "of each weight they patch"},
    {.name = "override-tensor", .short_name = "ot", .arg = ARG_TEXT, .does = DO_OVERRIDE,
     .engine = ANY, .section = SECTION_MODEL, .meta = "PATTERN=TYPE",
     .help = "llama.cpp's tensor overrides (repeatable, pairs comma-separated): the tensors "
             "whose names the pattern finds, moved to the CPU with =CPU"},
    {.name = "draft-model",
     .alias = {"speculative-model", "model-draft", "speculative-draft-model-path", NULL},
     .short_name = "md", .arg = ARG_TEXT, .does = DO_DRAFT, .engine = ANY,
     .section = SECTION_MODEL, .meta = "NAME",
     .help = "speculative decoding's draft model (as --model takes one): its weights and "
             "cache, laid out by the engine (docs/speculative.md)"},
    TEXT_OPT("from-log", DO_FROM_LOG, SECTION_PLAN, "FILE",
             "compare with an engine's startup log (- = stdin); docs/from-log.md"),
    TEXT_OPT("from-metrics", DO_FROM_METRICS, SECTION_PLAN, "FILE",
             "read a /metrics scrape (vLLM, SGLang, llama.cpp; - = stdin; twice for rates) and "
             "put kvcalc's figures beside it; docs/metrics.md"),
    {.name = "metrics-interval", .arg = ARG_NUM, .does = DO_METRICS_INTERVAL, .min = 0,
     .min_exclusive = 1, .max = 1e9, .engine = ANY, .section = SECTION_PLAN, .meta = "S",
     .help = "seconds between the two --from-metrics files (when their samples carry no "
             "timestamps)"},

    /* output and information */
    {.name = "format", .arg = ARG_CHOICE, .does = DO_FORMAT, .choices = formats, .engine = ANY,
     .section = SECTION_OUTPUT, .meta = "FMT",
     .help = "output format: text (the lesson's table), json or csv [text]"},
    TEXT_OPT("get", DO_GET, SECTION_OUTPUT, "KEY", "print only this top-level value, on one line"),
    ACTION("list-models", NULL, ACTION_LIST_MODELS, SECTION_OUTPUT,
           "list the built-in models and exit"),
    ACTION("list-gpus", NULL, ACTION_LIST_GPUS, SECTION_OUTPUT, "list the built-in GPUs and exit"),
    ACTION("help", "h", ACTION_HELP, SECTION_OUTPUT, "show this help and exit"),
    ACTION("version", NULL, ACTION_VERSION, SECTION_OUTPUT, "print the version and exit"),
};
#define N_PROGRAM (sizeof program / sizeof program[0])

/* The rows, built on first use: a run reads the few flags it was given, not all ~170
 * (building every row at start wrote 23 KB, six of a plain run's ~85 page faults, issue 22).
 * A row goes into the pool in the order rows are asked for, so that a run's rows share a
 * page with the counts, the index and the engines' names. */
static struct {
    size_t n_flags;  /* every flag */
    size_t n_params; /* the spec inputs among them, first */
    size_t n_built;
    unsigned char slot[KV_MAX_FLAGS]; /* by flag index: 1 + its place in the pool; 0 until built */
    const kv_param *param[KV_MAX_FLAGS]; /* the spec inputs' rows (kv_param_at walks the
                                            engines at every call): filled on first use */
    kv_choice engine_choices[KV_MAX_ENGINES * 4 + 1]; /* every engine's names */
    char engine_help[512];
    kv_flag pool[KV_MAX_FLAGS];
} t;
_Static_assert(KV_MAX_FLAGS <= 255, "a pool place fits a slot");

/* The argument a parameter's type takes. */
static arg_kind arg_of(kv_type t)
{
    switch (t) {
    case KV_T_INT:
    case KV_T_OPT_INT:
        return ARG_INT;
    case KV_T_NUM:
    case KV_T_OPT_NUM:
        return ARG_NUM;
    case KV_T_DTYPE:
        return ARG_DTYPE;
    case KV_T_CHOICE:
    case KV_T_OPT_CHOICE:
        return ARG_CHOICE;
    case KV_T_SWITCH:
        return ARG_NONE;
    case KV_T_ENGINE:
        return ARG_ENGINE;
    case KV_T_VERSION:
        return ARG_VERSION;
    }
    return ARG_TEXT;
}

/* The --help section of a spec input: its group, or its engine's. */
static int section_of(const kv_param *p)
{
    static const char *const groups[] = {"model", "gpu", "workload", "engines"};
    if (p->engine != KV_ENGINE_COUNT)
        return SECTION_ENGINE_FIRST + (int)p->engine;
    for (int i = 0; i < (int)(sizeof groups / sizeof groups[0]); i++)
        if (p->section && strcmp(p->section, groups[i]) == 0)
            return i;
    return SECTION_MODEL;
}

/* --engine's choices (every name and alias) and its help, which names the engines. */
static void engine_names(void)
{
    size_t n = 0, at = 0;
    at = (size_t)kv_snprintf(t.engine_help, sizeof t.engine_help, "%s: ",
                          kv_core_param_get(KV_P_ENGINE)->help);
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        t.engine_choices[n].name = kv_engine_name((kv_engine)e);
        t.engine_choices[n++].value = e;
        for (size_t a = 0; kv_engine_alias((kv_engine)e, a); a++) {
            t.engine_choices[n].name = kv_engine_alias((kv_engine)e, a);
            t.engine_choices[n++].value = e;
        }
        if (at < sizeof t.engine_help)
            at += (size_t)kv_snprintf(t.engine_help + at, sizeof t.engine_help - at, "%s%s",
                                   e == 0                    ? ""
                                   : e + 1 == KV_ENGINE_COUNT ? " or "
                                                             : ", ",
                                   kv_engine_name((kv_engine)e));
    }
    t.engine_choices[n].name = NULL;
}

/* The rows' order: the spec inputs, the program's own flags, the engines' JSON flags.
 * Counted at every call, written without being read first: a first read of a page of zeros
 * maps the zero page, and the write after it faults again. */
static void count(void)
{
    size_t n_json = 0;
    while (kv_json_flag_at(n_json))
        n_json++;
    t.n_params = kv_param_count();
    if (t.n_params > KV_MAX_FLAGS)
        t.n_params = KV_MAX_FLAGS;
    size_t n = t.n_params + N_PROGRAM + n_json;
    t.n_flags = n < KV_MAX_FLAGS ? n : KV_MAX_FLAGS;
}

/* Flag i's row, from its parameter, the program's table or its JSON flag. */
static void build(size_t i, kv_flag *f)
{
    memset(f, 0, sizeof *f);
    if (i < t.n_params) {
        const kv_param *p = kv_param_at(i);
        f->name = p->name;
        for (size_t a = 0; a < KV_MAX_ALIASES && p->aliases[a]; a++)
            f->alias[a] = p->aliases[a];
        f->short_name = p->short_name;
        f->arg = arg_of(p->type);
        f->does = DO_SPEC;
        f->param = p;
        f->min = p->min;
        f->max = p->max;
        f->min_exclusive = p->min_exclusive;
        f->tokens = p->tokens;
        f->choices = p->choices;
        f->switch_value = p->switch_value;
        f->engine = p->engine;
        f->section = section_of(p);
        f->meta = p->meta;
        f->help = p->help;
        if (p->type == KV_T_ENGINE) {
            engine_names();
            f->choices = t.engine_choices;
            f->help = t.engine_help;
        }
    } else if (i < t.n_params + N_PROGRAM) {
        *f = program[i - t.n_params];
    } else { /* the engines' flags of JSON objects, in their engines' sections */
        const kv_json_flag *j = kv_json_flag_at(i - t.n_params - N_PROGRAM);
        f->name = j->name;
        f->arg = ARG_TEXT;
        f->does = DO_JSON;
        f->engine = j->engine;
        f->section = SECTION_ENGINE_FIRST + (int)j->engine;
        f->meta = "JSON";
        f->help = j->help;
        f->json = j;
    }
    f->index = i;
}

/* Row i, built when first asked for. i < t.n_flags. */
static const kv_flag *row(size_t i)
{
    if (!t.slot[i]) {
        kv_flag *f = &t.pool[t.n_built];
        build(i, f);
        t.slot[i] = (unsigned char)++t.n_built;
    }
    return &t.pool[t.slot[i] - 1];
}

size_t kv_flag_count(void)
{
    count();
    return t.n_flags;
}

const kv_flag *kv_flag_at(size_t i)
{
    count();
    return i < t.n_flags ? row(i) : NULL;
}

size_t kv_flag_inputs(void)
{
    count();
    return t.n_params;
}

size_t kv_flag_index(const kv_flag *f)
{
    return f->index;
}

const kv_flag *kv_flag_of(const kv_param *p)
{
    return kv_flag_at(kv_param_index(p));
}

static int name_is(const char *name, const char *flag, size_t len)
{
    /* the first letter before the length: a look-up compares every flag's spellings, ~400
     * names, and a strlen of each was most of its 10k instructions */
    if (!name || (len > 0 && name[0] != flag[0]))
        return 0;
    return strlen(name) == len && memcmp(name, flag, len) == 0;
}

static int spelled(const kv_flag *f, const char *name, size_t len)
{
    if (name_is(f->name, name, len))
        return 1;
    for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
        if (name_is(f->alias[a], name, len))
            return 1;
    return 0;
}

/* A row's spellings, read from where the row comes from: finding a flag builds no row but
 * the one found. */
typedef struct {
    const char *name;
    const char *const *alias; /* KV_MAX_ALIASES at most, NULL after the last; or NULL */
    const char *short_name;
    kv_engine engine;
} spellings;

static spellings spellings_at(size_t i)
{
    spellings s = {NULL, NULL, NULL, KV_ENGINE_COUNT};
    const kv_flag *f = t.slot[i] ? &t.pool[t.slot[i] - 1] : NULL;
    if (!f && i < t.n_params) {
        if (!t.param[i])
            t.param[i] = kv_param_at(i);
        const kv_param *p = t.param[i];
        s.name = p->name;
        s.alias = p->aliases;
        s.short_name = p->short_name;
        s.engine = p->engine;
        return s;
    }
    if (!f && i < t.n_params + N_PROGRAM)
        f = &program[i - t.n_params];
    if (f) {
        s.name = f->name;
        s.alias = f->alias;
        s.short_name = f->short_name;
        s.engine = f->engine;
    } else {
        const kv_json_flag *j = kv_json_flag_at(i - t.n_params - N_PROGRAM);
        s.name = j->name;
        s.engine = j->engine;
    }
    return s;
}

static int spelled_as(const spellings *s, const char *name, size_t len)
{
    if (name_is(s->name, name, len))
        return 1;
    for (size_t a = 0; s->alias && a < KV_MAX_ALIASES && s->alias[a]; a++)
        if (name_is(s->alias[a], name, len))
            return 1;
    return 0;
}

/* Engines spell some flags alike (vLLM's and SGLang's --enable-lora, --max-lora-rank): the
 * table holds each engine's row, and the engine decides which one a name is. */
const kv_flag *kv_flag_find_for(const char *name, size_t len, kv_engine engine)
{
    count();
    size_t first = t.n_flags;
    for (size_t i = 0; i < t.n_flags; i++) {
        spellings s = spellings_at(i);
        if (!spelled_as(&s, name, len))
            continue;
        if (s.engine == engine)
            return row(i);
        if (first == t.n_flags)
            first = i;
    }
    return first < t.n_flags ? row(first) : NULL;
}

const kv_flag *kv_flag_find(const char *name, size_t len)
{
    return kv_flag_find_for(name, len, KV_ENGINE_COUNT);
}

const kv_flag *kv_flag_twin(const kv_flag *f, kv_engine engine)
{
    for (size_t i = 0; i < kv_flag_count(); i++) {
        const kv_flag *g = kv_flag_at(i);
        if (g != f && g->engine == engine && f->name && spelled(g, f->name, strlen(f->name)))
            return g;
    }
    return NULL;
}

size_t kv_flag_engines(const kv_flag *f, char *buf, size_t cap)
{
    size_t n = 0, at = 0;
    const kv_flag *of[KV_ENGINE_COUNT];
    for (size_t i = 0; i < kv_flag_count() && n < KV_ENGINE_COUNT; i++) {
        const kv_flag *g = kv_flag_at(i);
        if (g->engine != KV_ENGINE_COUNT && f->name && spelled(g, f->name, strlen(f->name)))
            of[n++] = g;
    }
    if (cap)
        buf[0] = '\0';
    for (size_t k = 0; k < n && at < cap; k++)
        at += (size_t)kv_snprintf(buf + at, cap - at, "%s--engine %s",
                               k == 0 ? "" : k + 1 == n ? " or " : ", ",
                               kv_engine_name(of[k]->engine));
    return n;
}

const kv_flag *kv_flag_find_short(const char *name, size_t len)
{
    count();
    for (size_t i = 0; i < t.n_flags; i++) {
        spellings s = spellings_at(i);
        if (name_is(s.short_name, name, len))
            return row(i);
    }
    return NULL;
}

_Static_assert(KV_MAX_FLAGS <= KV_MAX_SOURCES, "a source for every flag");
