/*
 * options.c - the argument loop: each argument found in the flag table (flags.c), its value
 * read strictly (values.c), then the checks across flags. Nothing is computed and no file
 * is read here.
 */
#define KVCALC_ENGINES /* the engines' JSON flags (kv_json_flag) */
#include "kvprint.h"
#include "options.h"

#include "format.h"
#include "keys.h"
#include "kvcalc_json.h"
#include "suggest.h"

#include <ctype.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvmath.h"

#define SHOWN KV_SHOWN

static int name_is(const char *name, const char *flag, size_t len)
{
    return name && strlen(name) == len && memcmp(name, flag, len) == 0;
}

/* The spelling of f that name is (its name or one of its aliases), or NULL. */
static const char *spelling(const kv_flag *f, const char *name, size_t len)
{
    if (name_is(f->name, name, len))
        return f->name;
    for (size_t a = 0; a < KV_MAX_ALIASES && f->alias[a]; a++)
        if (name_is(f->alias[a], name, len))
            return f->alias[a];
    return NULL;
}

/* Whether name is a switch's "no-" spelling: the alias "no-" + its name (vLLM's
 * BooleanOptionalAction pairs, --enable-prefix-caching / --no-enable-prefix-caching). */
static int negation(const kv_flag *f, const char *name, size_t len)
{
    return f->arg == ARG_NONE && len == strlen(f->name) + 3 && strncmp(name, "no-", 3) == 0 &&
           strncmp(name + 3, f->name, len - 3) == 0;
}

/* Every key's name (a run's, then --from-log's own), space-separated. */
static void every_key(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < kv_field_count() + kv_log_field_count() && n < cap; i++) {
        const kv_field *k = i < kv_field_count() ? kv_field_at(i)
                                                 : kv_log_field_at(i - kv_field_count());
        if (kv_field_find(k->name) != k)
            continue;
        int w = kv_snprintf(buf + n, cap - n, "%s%s", n ? " " : "", k->name);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* ---- the loop ------------------------------------------------------------------------- */

/* An argument that stands for an option rather than a value: "-x", "--x", but not "-5" or
 * "-.5" (negative numbers are values, refused later with a clear range message). */
static int looks_like_option(const char *a)
{
    return a[0] == '-' && a[1] != '\0' && !isdigit((unsigned char)a[1]) && a[1] != '.';
}

static int take(const kv_flag *f, const char *typed, const char *val, kv_options *o, char *err,
                size_t cap);

/* A flag of a JSON object (vLLM's --speculative-config): each key is taken as the flag it
 * names would take its value, spelled "--speculative-config.KEY" in messages (vLLM reads
 * that spelling too). A key kvcalc does not know is refused, not dropped: it may move
 * memory. */
static int take_json(const kv_flag *f, const char *typed, const char *val, kv_options *o,
                     char *err, size_t cap)
{
    const kv_json_flag *j = f->json;
    o->json_flag = j;
    kv_snprintf(o->json_typed, sizeof o->json_typed, "%s", typed);
    kv_json_tok toks[64];
    kv_json_error je;
    char shown[SHOWN + 8], keyname[64], text[1024], sub[KV_TYPED_MAX];
    long n = kv_json_parse(val, strlen(val), toks, sizeof toks / sizeof toks[0], 4, &je);
    if (n < 0)
        return kv_fail(err, cap, "%s: not JSON (%s at column %zu): expected an object such as "
                                 "'{\"method\": \"ngram\", \"num_speculative_tokens\": 4}'",
                       typed, je.msg, je.col);
    if (toks[0].type != KV_JSON_OBJECT)
        return kv_fail(err, cap, "%s: expected a JSON object {...}, got '%s'", typed,
                       kv_safe(shown, sizeof shown, val, SHOWN));
    if (j->key_needing && kv_json_find(val, toks, 0, j->key_needing)) {
        int has = 0;
        for (const char *const *nk = j->needs; nk && *nk; nk++)
            has |= kv_json_find(val, toks, 0, *nk) != 0;
        if (!has)
            return kv_fail(err, cap, "%s.%s: %s", typed, j->key_needing, j->needs_words);
    }
    for (size_t k = 1; k < (size_t)n; k = toks[k + 1].next) {
        const kv_json_tok *key = &toks[k], *value = &toks[k + 1];
        size_t kl = kv_json_string_decode(val, key, keyname, sizeof keyname);
        if (kl >= sizeof keyname)
            keyname[sizeof keyname - 1] = '\0';
        else if (strlen(keyname) != kl) /* a \u0000 in the key */
            return kv_fail(err, cap, "%s: a key holds \\u0000 (NUL), which no key has", typed);
        const kv_json_key *jk = j->keys;
        while (jk->key && strcmp(jk->key, keyname) != 0)
            jk++;
        if (!jk->key) {
            int neutral = 0;
            for (const char *const *nk = j->neutral; nk && *nk; nk++)
                neutral |= strcmp(*nk, keyname) == 0;
            if (neutral)
                continue;
            char keys[400];
            size_t at = 0;
            for (const kv_json_key *x = j->keys; x->key && at < sizeof keys; x++)
                at += (size_t)kv_snprintf(keys + at, sizeof keys - at, "%s%s", at ? ", " : "", x->key);
            return kv_fail(err, cap, "%s: kvcalc does not read the key '%s' (it reads %s; "
                                     "the n-gram window and sampling keys are taken and move "
                                     "no memory)",
                           typed, kv_safe(shown, sizeof shown, keyname, 60), keys);
        }
        kv_snprintf(sub, sizeof sub, "--%s.%s", j->name, jk->key);
        const kv_flag *to = kv_flag_find_for(jk->flag, strlen(jk->flag), j->engine);
        if (!to)
            return kv_fail(err, cap, "%s: no flag %s", typed, jk->flag);
        if (value->type == KV_JSON_NULL)
            continue; /* vLLM's None: the default */
        if (value->type == KV_JSON_OBJECT || value->type == KV_JSON_ARRAY)
            return kv_fail(err, cap, "%s: expected a string or a number", sub);
        const char *v;
        if (value->type == KV_JSON_STRING) {
            size_t len = kv_json_string_decode(val, value, text, sizeof text);
            if (len >= sizeof text || o->json_used + len + 1 > sizeof o->json_text)
                return kv_fail(err, cap, "%s: a value of %zu bytes is too long", sub, len);
            if (strlen(text) != len) /* a \u0000: the value would end there unseen */
                return kv_fail(err, cap, "%s: a value holds \\u0000 (NUL), which no flag "
                                         "takes", sub);
            memcpy(o->json_text + o->json_used, text, len + 1);
            v = o->json_text + o->json_used;
            o->json_used += len + 1;
        } else {
            size_t len = value->end - value->start;
            if (len >= sizeof text || o->json_used + len + 1 > sizeof o->json_text)
                return kv_fail(err, cap, "%s: a value of %zu bytes is too long", sub, len);
            memcpy(o->json_text + o->json_used, val + value->start, len);
            o->json_text[o->json_used + len] = '\0';
            v = o->json_text + o->json_used;
            o->json_used += len + 1;
        }
        int rc = take(to, sub, v, o, err, cap);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* A length: N tokens, or two of mean=, median=, p99= (a log-normal). */
static int take_length(const char *typed, const char *val, kv_dist *d, char *err, size_t cap)
{
    char shown[SHOWN + 8];
    double x;
    const char *want = "N tokens (an integer >= 1) or two of mean=X, median=X, p99=X (a "
                       "log-normal), e.g. median=1020,p99=4142";
    if (kv_parse_number(val, &x) == 0) {
        if (!(x >= 1 && x <= 1e15 && x == kvm_floor(x)))
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want,
                           kv_safe(shown, sizeof shown, val, SHOWN));
        d->kind = KV_DIST_FIXED;
        d->value = x;
        return 0;
    }
    static const char *const names[] = {"mean", "median", "p99"};
    double v[3] = {NAN, NAN, NAN};
    const char *p = val;
    while (*p) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        int k = -1;
        for (int i = 0; eq && eq < end && i < 3; i++)
            if ((size_t)(eq - p) == strlen(names[i]) && strncmp(p, names[i], (size_t)(eq - p)) == 0)
                k = i;
        char num[64];
        size_t len = eq && eq < end ? (size_t)(end - eq - 1) : 0;
        if (k < 0 || !isnan(v[k]) || len == 0 || len >= sizeof num)
            return kv_fail(err, cap, "%s: expected %s, got '%s'", typed, want,
                           kv_safe(shown, sizeof shown, val, SHOWN));
        memcpy(num, eq + 1, len);
        num[len] = '\0';
        if (kv_parse_number(num, &v[k]) != 0 || !(v[k] >= 1 && v[k] <= 1e15))
            return kv_fail(err, cap, "%s: %s must be a number from 1 to 10^15, got '%s'", typed,
                           names[k],
                           kv_safe(shown, sizeof shown, num, SHOWN));
        p = *end ? end + 1 : end;
    }
    if (kv_dist_lognormal(v[0], v[1], v[2], d) != KV_OK)
        return kv_fail(err, cap, "%s: no log-normal has %s (give exactly two of mean, median and "
                                 "p99, with median < p99 and mean > median)",
                       typed, kv_safe(shown, sizeof shown, val, SHOWN));
    return 0;
}

/* A workload input into o->workload. */
static int take_workload(const kv_flag *f, const char *typed, const char *val, const kv_value *v,
                         kv_options *o, char *err, size_t cap)
{
    kv_workload *w = &o->workload;
    int which = f->switch_value;
    switch (which) {
    case WL_PROMPT:
    case WL_OUTPUT: {
        int rc = take_length(typed, val, which == WL_PROMPT ? &w->prompt : &w->output, err, cap);
        if (rc != 0)
            return rc;
        break;
    }
    case WL_RATE:
        w->rate = v->d;
        break;
    case WL_ARRIVALS:
        w->arrivals = (kv_arrivals)v->e;
        break;
    case WL_TPOT:
        w->tpot_ms = v->d;
        break;
    case WL_TTFT:
        w->ttft_ms = v->d;
        break;
    case WL_SEED:
        w->seed = (uint64_t)v->i;
        break;
    case WL_REQUESTS:
        w->requests = v->i;
        break;
    case WL_HEADROOM:
        w->headroom = v->d;
        break;
    case WL_CONCURRENCY:
        w->concurrency = v->i;
        break;
    case WL_PREFIX:
        w->shared_prefix = v->i;
        break;
    case WL_TRACE:
        if (!val || !val[0])
            return kv_fail(err, cap, "%s: expected a trace file or - (stdin), got ''", typed);
        o->trace_path = val;
        break;
    }
    o->workload_given |= 1u << which;
    kv_snprintf(o->workload_typed_buf[which], sizeof o->workload_typed_buf[which], "%s", typed);
    o->workload_typed[which] = o->workload_typed_buf[which];
    return 0;
}

/* Stores one flag's value in o. */
static int take(const kv_flag *f, const char *typed, const char *val, kv_options *o, char *err,
                size_t cap)
{
    char shown[SHOWN + 8];
    kv_value v;
    size_t i = kv_flag_index(f);
    /* vLLM's --max-model-len auto (or -1): the longest that fits, found by the spec builder
     * (build.c); --context auto still takes back an earlier value */
    if (f->param == kv_core_param_get(KV_P_CONTEXT) && val &&
        (strcmp(val, "-1") == 0 || (strcmp(val, "auto") == 0 && strcmp(typed, "--max-model-len") == 0))) {
        o->set[i] = 0;
        o->auto_max_model_len = 1;
        return 0;
    }
    int rc = kv_flag_value(f, typed, val, &v, err, cap);
    if (rc == KV_USAGE_ERROR)
        return rc;
    switch (f->does) {
    case DO_SPEC:
        o->set[i] = rc == 0; /* "auto" takes back an earlier value */
        o->values[i] = v;
        kv_snprintf(o->typed_buf[i], sizeof o->typed_buf[i], "%s", typed);
        o->typed[i] = o->typed_buf[i];
        return 0;
    case DO_MODEL_FILE:
        if (!val || !val[0])
            return kv_fail(err, cap, "%s: expected a config.json, a model folder, a .gguf file or "
                                     "- (stdin), got ''", typed);
        o->config_path = val;
        o->model_name = NULL;
        return 0;
    case DO_MODEL_NAME:
        if (!val || !val[0])
            return kv_fail(err, cap, "%s: expected a built-in model (--list-models), org/name in "
                                     "the Hugging Face cache, a folder or a file, got ''", typed);
        o->model_name = val;
        o->config_path = NULL;
        return 0;
    case DO_GPU:
        o->gpu = kv_gpu_find(val);
        if (o->gpu)
            return 0;
        {
            static char names[2048];
            size_t n = 0;
            names[0] = '\0';
            for (size_t g = 0; g < kv_gpu_count() && n < sizeof names; g++)
                n += (size_t)kv_snprintf(names + n, sizeof names - n, "%s%s", g ? ", " : "",
                                      kv_gpu_at(g)->name);
            char hint[160];
            return kv_fail(err, cap, "--gpu: unknown GPU '%s'%s (expected one of: %s)",
                           kv_safe(shown, sizeof shown, val, SHOWN),
                           kv_hint_gpu(val, hint, sizeof hint), names);
        }
    case DO_FORMAT:
        o->format = (kv_format)v.e;
        return 0;
    case DO_GET:
        o->get = kv_field_find(val);
        if (o->get)
            return 0;
        {
            static char keys[12288];
            every_key(keys, sizeof keys);
            char hint[160];
            return kv_fail(err, cap, "--get: unknown key '%s'%s (expected one of: %s)",
                           kv_safe(shown, sizeof shown, val, SHOWN),
                           kv_hint_key(val, 0, hint, sizeof hint), keys);
        }
    case DO_TARGET:
        o->target = v.i;
        return 0;
    case DO_GPUS:
        o->gpus_total = v.i;
        return 0;
    case DO_LEVERS:
        o->levers = 1;
        return 0;
    case DO_OFFLOAD: /* an offload tier is a lever: it asks for them */
        o->offload_gib = v.d;
        o->levers = o->levers || v.d > 0;
        return 0;
    case DO_REQUIRE:
        if (o->n_require == KV_MAX_REQUIRE)
            return kv_fail(err, cap, "--require: at most %d requirements", KV_MAX_REQUIRE);
        return kv_requirement_parse(val, &o->require[o->n_require++], err, cap);
    case DO_SWEEP:
        if (o->n_sweep == KV_MAX_SWEEP)
            return kv_fail(err, cap, "--sweep: at most %d axes", KV_MAX_SWEEP);
        o->sweep[o->n_sweep++] = val; /* its keys and values are checked by sweep.c */
        return 0;
    case DO_PROGRESS:
        o->progress = 1;
        return 0;
    case DO_PLOT:
        if (val[0] == '\0')
            return kv_fail(err, cap, "--plot: expected a file name, got ''");
        o->plot = val;
        return 0;
    case DO_JSON:
        return take_json(f, typed, val, o, err, cap);
    case DO_LORA:
        if (!val || !val[0])
            return kv_fail(err, cap, "%s: expected a LoRA adapter .gguf file, got ''", typed);
        if (o->n_lora >= KV_MAX_LORA)
            return kv_fail(err, cap, "%s: at most %d adapters", typed, KV_MAX_LORA);
        o->lora[o->n_lora++] = val;
        return 0;
    case DO_OVERRIDE:
        if (!val || !val[0] || !strchr(val, '='))
            return kv_fail(err, cap, "%s: expected <tensor name pattern>=<buffer type>,... such "
                                     "as 'exps=CPU', got '%s'",
                           typed, kv_safe(shown, sizeof shown, val ? val : "", SHOWN));
        if (o->overrides.n >= KV_MAX_TENSOR_OVERRIDES)
            return kv_fail(err, cap, "%s: at most %d of them (give the pairs comma-separated)",
                           typed, KV_MAX_TENSOR_OVERRIDES);
        o->overrides.text[o->overrides.n++] = val;
        return 0;
    case DO_DRAFT:
        if (!val || !val[0])
            return kv_fail(err, cap, "%s: expected a built-in model (--list-models), org/name in "
                                     "the Hugging Face cache, a folder or a file, got ''", typed);
        o->draft_name = val;
        kv_snprintf(o->draft_typed_buf, sizeof o->draft_typed_buf, "%s", typed);
        o->draft_typed = o->draft_typed_buf;
        return 0;
    case DO_FROM_LOG:
        if (val[0] == '\0')
            return kv_fail(err, cap, "--from-log: expected a file name or -, got ''");
        o->from_log = val;
        return 0;
    case DO_WORKLOAD:
        return take_workload(f, typed, val, &v, o, err, cap);
    case DO_FROM_METRICS:
        if (!val[0])
            return kv_fail(err, cap, "--from-metrics: expected a file name or -, got ''");
        if (o->n_metrics == 2)
            return kv_fail(err, cap, "--from-metrics: at most two scrapes (the first and the "
                                     "latest give the rates)");
        o->from_metrics[o->n_metrics++] = val;
        return 0;
    case DO_METRICS_INTERVAL:
        o->metrics_interval = v.d;
        return 0;
    case DO_ACTION:
        o->action = (kv_action)f->switch_value;
        return 0;
    }
    return 0;
}

int kv_options_given(const kv_options *o, const kv_param *p)
{
    return o->set[kv_param_index(p)];
}

kv_engine kv_options_engine(const kv_options *o)
{
    size_t i = kv_param_index(kv_core_param_get(KV_P_ENGINE));
    return o->set[i] ? o->values[i].engine : KV_ENGINE_IDEAL;
}

/* What a key needs that the command line did not ask for, or NULL. */
static const char *key_missing(const kv_options *o, const kv_field *k)
{
    static char need[64];
    if (k->from == KV_FROM_PLAN && o->target == 0)
        return "--target-concurrency";
    if (k->from == KV_FROM_LAYOUTS && o->gpus_total == 0)
        return "--gpus";
    if (k->from == KV_FROM_LOG && !o->from_log)
        return "--from-log";
    if (k->from == KV_FROM_METRICS && o->n_metrics == 0)
        return "--from-metrics";
    if (k->from == KV_FROM_WORKLOAD && !kv_options_workload(o) && o->n_metrics == 0)
        return "--prompt-tokens and --output-tokens (or --trace)";
    if (k->from == KV_FROM_ENGINE && !o->from_log && kv_options_engine(o) != k->engine) {
        kv_snprintf(need, sizeof need, "--engine %s", kv_engine_name(k->engine));
        return need;
    }
    return NULL;
}

int kv_options_workload(const kv_options *o)
{
    return (o->workload_given & (1u << WL_PROMPT | 1u << WL_OUTPUT | 1u << WL_TRACE)) != 0;
}

/* A rate or clients without --tpot-ms: the step is estimated from the memory-bandwidth
 * roofline of the --gpu, when kvcalc knows its bandwidth; else refused, naming --tpot-ms. */
static int step_known(const kv_options *o, const char *typed, const char *what, char *err,
                      size_t cap)
{
    if (o->workload_given & (1u << WL_TPOT))
        return 0;
    if (!o->gpu)
        return kv_fail(err, cap, "%s: simulating %s needs --tpot-ms (the time of one engine "
                                 "step, ms), or a --gpu whose memory bandwidth kvcalc knows to "
                                 "estimate it", typed, what);
    if (!(o->gpu->bandwidth_gbs > 0))
        return kv_fail(err, cap, "%s: simulating %s needs --tpot-ms (the time of one engine "
                                 "step, ms): the memory bandwidth of %s (--gpu) is not known, so "
                                 "kvcalc cannot estimate it (data/gpus/SOURCES.md)",
                       typed, what, o->gpu->name);
    return 0;
}

/* The workload's flags together: both lengths, a step time with a rate (given, or the GPU's
 * roofline), no flag of it alone. */
static int check_workload(const kv_options *o, char *err, size_t cap)
{
    unsigned g = o->workload_given;
    if (g == 0)
        return 0;
    const char *first = NULL;
    for (int i = 0; i < WL_INPUTS && !first; i++)
        if (g & (1u << i))
            first = o->workload_typed[i];
    if (g & (1u << WL_TRACE)) {
        static const int not_with[] = {WL_PROMPT, WL_OUTPUT, WL_REQUESTS, WL_SEED};
        for (size_t i = 0; i < sizeof not_with / sizeof not_with[0]; i++)
            if (g & (1u << not_with[i]))
                return kv_fail(err, cap, "%s: a trace gives the lengths and the requests; "
                                         "drop %s", o->workload_typed[WL_TRACE],
                               o->workload_typed[not_with[i]]);
    } else if (!(g & (1u << WL_PROMPT)) || !(g & (1u << WL_OUTPUT)))
        return kv_fail(err, cap, "%s: a workload needs both --prompt-tokens and --output-tokens "
                                 "(or --trace)", first);
    if ((g & (1u << WL_RATE)) && step_known(o, o->workload_typed[WL_RATE], "a rate", err, cap))
        return KV_USAGE_ERROR;
    if (g & (1u << WL_CONCURRENCY)) {
        if (step_known(o, o->workload_typed[WL_CONCURRENCY], "clients", err, cap))
            return KV_USAGE_ERROR;
        static const int not_with[] = {WL_RATE, WL_ARRIVALS, WL_HEADROOM};
        for (size_t i = 0; i < sizeof not_with / sizeof not_with[0]; i++)
            if (g & (1u << not_with[i]))
                return kv_fail(err, cap, "%s: a closed loop of clients sets its own arrivals; "
                                         "drop %s", o->workload_typed[WL_CONCURRENCY],
                               o->workload_typed[not_with[i]]);
    }
    static const int need_rate[] = {WL_ARRIVALS, WL_TTFT, WL_HEADROOM, WL_PREFIX};
    for (size_t i = 0; i < sizeof need_rate / sizeof need_rate[0]; i++)
        if ((g & (1u << need_rate[i])) && !(g & (1u << WL_RATE)) && !(g & (1u << WL_TRACE)) &&
            !(g & (1u << WL_CONCURRENCY)))
            return kv_fail(err, cap, "%s: applies to a simulated rate; give --rate and --tpot-ms",
                           o->workload_typed[need_rate[i]]);
    /* a lone request's first token comes after its prefill step: at least one step */
    const kv_workload *wl = &o->workload;
    if ((g & (1u << WL_TTFT)) && (g & (1u << WL_TPOT)) && wl->ttft_ms > 0 &&
        wl->ttft_ms < wl->tpot_ms)
        return kv_fail(err, cap, "%s: a first token takes at least one step (%s %g): give %g or "
                                 "more, or 0 (the prefill not timed)",
                       o->workload_typed[WL_TTFT], o->workload_typed[WL_TPOT], wl->tpot_ms,
                       wl->tpot_ms);
    if (o->n_sweep > 0)
        return kv_fail(err, cap, "%s: a workload does not combine with --sweep (it sweeps the "
                                 "rate itself: workload_preemption_onset_rate)", first);
    if (o->format == FORMAT_CSV && !o->from_log)
        return kv_fail(err, cap, "--format csv: prints the context table only; a workload needs "
                                 "--format text or json");
    return 0;
}

/* Checks across flags, once every flag is read: a key whose section was not asked for, a
 * sweep with what it cannot print. (An engine's flags without that engine: the builder.) */
static int check_combination(const kv_options *o, char *err, size_t cap)
{
    const char *need;
    int rc;
    if (o->get && (need = key_missing(o, o->get)) != NULL)
        return kv_fail(err, cap, "--get: %s needs %s", o->get->name, need);
    for (size_t i = 0; i < o->n_require; i++)
        if ((need = key_missing(o, o->require[i].key)) != NULL)
            return kv_fail(err, cap, "--require: %s needs %s", o->require[i].key->name, need);
    if (o->n_metrics > 0 && (o->from_log || o->n_sweep || o->workload_given || o->target ||
                             o->levers || o->gpus_total))
        return kv_fail(err, cap, "--from-metrics: the scrape gives the workload; it does not "
                                 "combine with --from-log, --sweep, --target-concurrency, "
                                 "--levers, --gpus or a workload's flags");
    if (o->metrics_interval > 0 && o->n_metrics < 2)
        return kv_fail(err, cap, "--metrics-interval: the time between two --from-metrics "
                                 "files; give both");
    if ((rc = check_workload(o, err, cap)) != 0)
        return rc;
    /* ISO C cannot tell whether stderr is a terminal, so the progress is asked for; asked
     * for without a sweep it would be silently nothing */
    if (o->progress && o->n_sweep == 0 && !(o->workload_given & (1u << WL_RATE | 1u << WL_CONCURRENCY | 1u << WL_TRACE)))
        return kv_fail(err, cap, "--progress: shows a sweep's or a simulation's progress; give "
                                 "--sweep, or --rate / --concurrency / --trace");
    if (o->n_sweep > 0 && o->from_log)
        return kv_fail(err, cap, "--sweep: does not combine with --from-log");
    if (o->n_sweep > 0 && (o->get || o->plot || o->n_require || o->target || o->levers))
        return kv_fail(err, cap, "--sweep: prints one row per point; it does not combine with "
                                 "--get, --plot, --require, --target-concurrency or --levers");
    /* CSV is the context table's rows (or a sweep's): the sections of a plan are not dropped
     * silently */
    if (o->format == FORMAT_CSV && !o->from_log && o->n_sweep == 0 &&
        (o->levers || o->target || o->gpus_total))
        return kv_fail(err, cap, "--format csv: prints the context table only; %s needs --format "
                                 "text or json",
                       o->levers ? "--levers" : o->target ? "--target-concurrency" : "--gpus");
    return 0;
}

/* The engine the command line names, wherever it names it (the last, as the flag is read),
 * so that a name engines share is that engine's flag: "--enable-lora --engine sglang" is
 * SGLang's --enable-lora. KV_ENGINE_COUNT: none named (or not one kvcalc knows: the loop
 * says so). */
static kv_engine engine_named(int argc, char *const argv[])
{
    const kv_param *p = kv_core_param_get(KV_P_ENGINE);
    kv_engine found = KV_ENGINE_COUNT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] != '-')
            continue;
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        int named = name_is(p->name, name, len);
        for (size_t k = 0; !named && k < KV_MAX_ALIASES && p->aliases[k]; k++)
            named = name_is(p->aliases[k], name, len);
        if (!named)
            continue;
        const kv_flag *e = kv_flag_of(p); /* its row: the engines' names */
        const char *val = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
        for (const kv_choice *c = e->choices; val && c && c->name; c++)
            if (strcmp(c->name, val) == 0)
                found = (kv_engine)c->value;
    }
    return found;
}

int kv_options_parse(int argc, char *const argv[], kv_options *o, char *err, size_t errcap)
{
    char shown[SHOWN + 8];
    memset(o, 0, offsetof(kv_options, values)); /* what follows set[]: see options.h */
    o->action = ACTION_RUN;
    o->help_section = -1;
    o->format = FORMAT_TEXT;
    o->workload.seed = 1;
    o->workload.requests = 1000;
    o->workload.arrivals = KV_ARRIVE_POISSON;
    err[0] = '\0';
    kv_engine named = engine_named(argc, argv);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0' || strcmp(a, "--") == 0)
            return kv_fail(err, errcap, "unexpected argument '%s'",
                           kv_safe(shown, sizeof shown, a, SHOWN));
        int is_short = a[1] != '-'; /* "-h", "-c 4096", "-np=4": one dash, a short name */
        const char *name = a + (is_short ? 1 : 2);
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const kv_flag *f = is_short ? kv_flag_find_short(name, len)
                                    : kv_flag_find_for(name, len, named);
        if (!f) {
            char flag[SHOWN + 8];
            size_t dashes = is_short ? 1 : 2;
            kv_snprintf(flag, sizeof flag, "%.*s", (int)(len < SHOWN ? len + dashes : SHOWN), a);
            char hint[160], bare[SHOWN + 8];
            kv_snprintf(bare, sizeof bare, "%.*s", (int)(len < SHOWN ? len : SHOWN), name);
            return kv_fail(err, errcap, "unknown option '%s'%s",
                           kv_safe(shown, sizeof shown, flag, SHOWN),
                           kv_hint_flag(bare, is_short, hint, sizeof hint));
        }
        /* the spelling typed, for messages: the name, an alias or the short name */
        char typed[KV_TYPED_MAX];
        kv_snprintf(typed, sizeof typed, "%s%s", is_short ? "-" : "--",
                 is_short ? f->short_name : spelling(f, name, len));
        const char *val = NULL;
        if (f->arg != ARG_NONE) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc && !looks_like_option(argv[i + 1]))
                val = argv[++i];
            else {
                char want[1200];
                kv_flag_accepts(f, want, sizeof want);
                return kv_fail(err, errcap, "%s: missing value (expected %s)", typed, want);
            }
        } else if (eq && f->does == DO_ACTION && f->switch_value == ACTION_HELP) {
            /* --help=SECTION, like vLLM's --help=<group>: one section */
            o->help_section = kv_help_section(eq + 1);
            if (o->help_section < 0) {
                kv_suggestion sg;
                char hint[160], names[512];
                kv_suggest_init(&sg, eq + 1);
                names[0] = '\0';
                for (int s = 0; s < SECTION_COUNT; s++) {
                    const char *sn = kv_help_section_name(s);
                    if (!sn)
                        continue;
                    kv_suggest_try(&sg, sn, strlen(sn));
                    kv_snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                             names[0] ? " " : "", sn);
                }
                return kv_fail(err, errcap, "%s: unknown section '%s'%s (expected one of: %s)",
                               typed, kv_safe(shown, sizeof shown, eq + 1, SHOWN),
                               kv_suggest_hint(&sg, "", hint, sizeof hint), names);
            }
        } else if (eq) {
            return kv_fail(err, errcap, "%s: takes no value, got '%s'", typed,
                           kv_safe(shown, sizeof shown, eq + 1, SHOWN));
        } else if (f->does == DO_SPEC && !is_short && negation(f, name, len)) {
            val = f->switch_value ? "0" : "1"; /* --no-X: the switch's other value */
        }
        int rc = take(f, typed, val, o, err, errcap);
        if (rc != 0)
            return rc;
        if (o->action == ACTION_HELP || o->action == ACTION_VERSION)
            return 0;
    }
    if (o->action != ACTION_RUN)
        return 0;
    return check_combination(o, err, errcap);
}

const char *kv_flag_shown(const kv_options *o, const kv_flag *f, char *buf, size_t cap)
{
    size_t i = kv_flag_index(f);
    if (o && o->set[i] && o->typed[i])
        return o->typed[i];
    kv_snprintf(buf, cap, "--%s", f->name);
    return buf;
}

/* A flag the JSON flag sets from a key and the user did not type (or set through the JSON):
 * named "--speculative-config.num_speculative_tokens". 1 when f is one. */
static int json_key_of(const kv_options *o, const kv_flag *f, char *buf, size_t cap)
{
    size_t i = kv_flag_index(f);
    if (o->set[i] && o->typed[i] && strncmp(o->typed[i], "--", 2) == 0 &&
        strncmp(o->typed[i], o->json_typed, strlen(o->json_typed)) != 0)
        return 0; /* typed by the user: its own name */
    for (const kv_json_key *k = o->json_flag->keys; k->key; k++)
        if (strcmp(k->flag, f->name) == 0) {
            kv_snprintf(buf, cap, "%s.%s", o->json_typed, k->key);
            return 1;
        }
    return 0;
}

/* The message's "--flag" of each key the user gave through the JSON flag, named as the key
 * ("give --num-speculative-tokens N" -> "give --speculative-config.num_speculative_tokens N"). */
static void json_keys_named(const kv_options *o, kv_error *e)
{
    for (const kv_json_key *k = o->json_flag->keys; k->key; k++) {
        const kv_flag *f = kv_flag_find_for(k->flag, strlen(k->flag), o->json_flag->engine);
        char name[80], key[KV_TYPED_MAX + 80];
        if (!f || !json_key_of(o, f, key, sizeof key))
            continue;
        kv_snprintf(name, sizeof name, "--%s", k->flag);
        size_t nl = strlen(name), kl = strlen(key);
        char out[sizeof e->msg];
        size_t w = 0;
        for (const char *p = e->msg; *p && w + 1 < sizeof out;) {
            const char *after = p + nl;
            int word_end = !(*after == '-' || (*after >= 'a' && *after <= 'z'));
            if (strncmp(p, name, nl) == 0 && word_end && w + kl + 1 < sizeof out) {
                memcpy(out + w, key, kl);
                w += kl;
                p += nl;
            } else {
                out[w++] = *p++;
            }
        }
        out[w] = '\0';
        memcpy(e->msg, out, w + 1);
    }
}

void kv_status_error(const kv_spec *s, const kv_options *o, kv_status st, char *err,
                     size_t errcap)
{
    kv_error e;
    char shown[KV_TYPED_MAX];
    if (st == KV_ERR_TARGET) { /* the plan's: a program flag asked for it */
        kv_fail(err, errcap, "--target-concurrency: %s", kv_status_message(st));
        return;
    }
    kv_explain(s, st, &e);
    if (o && o->json_flag)
        json_keys_named(o, &e);
    if (!e.blamed)
        kv_fail(err, errcap, "%s", e.msg);
    else if (e.blamed == kv_core_param_get(KV_P_ENGINE)) /* the engine as a whole */
        kv_fail(err, errcap, "--engine %s: %s",
                kv_engine_name(s->engine) ? kv_engine_name(s->engine) : "?", e.msg);
    else if (o && o->json_flag && json_key_of(o, kv_flag_of(e.blamed), shown, sizeof shown))
        kv_fail(err, errcap, "%s: %s", shown, e.msg); /* a key the JSON left out */
    else
        kv_fail(err, errcap, "%s: %s", kv_flag_shown(o, kv_flag_of(e.blamed), shown, sizeof shown),
                e.msg);
}
