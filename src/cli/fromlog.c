/*
 * fromlog.c - --from-log: the log's values as inputs, as if typed (see fromlog.h). Which
 * values, and how the comparison reads, are each engine's tables in the library; this file
 * only parses the library's texts with the flags' own reader and applies the command
 * line's rules (--engine must match, a what-if drops the KV figure).
 */
#include "fromlog.h"
#include "kvprint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int kv_fromlog_inputs(const kv_log *lg, const char *file, kv_log_args *in, char *err,
                      size_t errcap)
{
    static kv_log_inputs texts; /* large: not on the stack */
    char typed[300], shown[200];
    memset(in, 0, sizeof *in);
    kv_log_inputs_of(lg, &texts);
    for (size_t i = 0; i < texts.n; i++) {
        const kv_flag *f = kv_flag_of(texts.item[i].param);
        kv_snprintf(typed, sizeof typed, "--from-log %s: %s",
                 kv_safe(shown, sizeof shown, file, 120), f->name);
        kv_value v;
        int rc = kv_flag_value(f, typed, texts.item[i].text, &v, err, errcap);
        if (rc == KV_USAGE_ERROR)
            return rc;
        if (rc == 0) { /* 1: "auto", the model's own */
            size_t k = kv_flag_index(f);
            in->kind[k] = (unsigned char)texts.item[i].kind;
            in->values[k] = v;
            if (texts.item[i].yields_to)
                in->yields[k] = (unsigned short)(1 + kv_flag_index(kv_flag_of(texts.item[i].yields_to)));
        }
    }
    return 0;
}

/* A GGUF file the log names, when it is there: by its magic, as model stores name their
 * files by digest ("blobs/sha256-..."), without an extension. */
static int gguf_named(const char *path)
{
    return path[0] && kv_gguf_probe(path);
}

/* The preset a logged model path names: the path's last part ("/models/Qwen3-8B/"), or the
 * Hugging Face cache folder it lies in (".../models--Qwen--Qwen3-8B/snapshots/<commit>" is
 * Qwen/Qwen3-8B). Writes the name found into buf; NULL when none names a preset. */
static const char *preset_in_path(const char *path, char *buf, size_t cap)
{
    const char *hub = strstr(path, "models--");
    if (hub) {
        const char *org = hub + 8, *sep = strstr(org, "--");
        size_t n = strcspn(org, "/");
        if (sep && (size_t)(sep - org) < n && n < cap) {
            kv_snprintf(buf, cap, "%.*s/%.*s", (int)(sep - org), org, (int)(n - (size_t)(sep - org) - 2),
                     sep + 2);
            if (kv_model_preset_find(buf))
                return buf;
        }
    }
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    if (start == 0 || len - start >= cap) /* no folder in it: the name itself was tried */
        return NULL;
    kv_snprintf(buf, cap, "%.*s", (int)(len - start), path + start);
    return kv_model_preset_find(buf) ? buf : NULL;
}

int kv_fromlog_model(const kv_log *lg, const char *file, kv_model *m, char *err, size_t errcap)
{
    const char *name = kv_log_model(lg);
    char shown[300], fshown[300], named[256];
    const char *preset;
    if (gguf_named(name))
        return kv_model_load(NULL, name, m, err, errcap);
    if (name[0] && kv_model_preset_find(name))
        return kv_model_load(NULL, name, m, err, errcap);
    if ((preset = preset_in_path(name, named, sizeof named)) != NULL) /* a local copy */
        return kv_model_load(NULL, preset, m, err, errcap);
    /* the name it is served under ("/model" served as "Qwen/Qwen3-8B"): the engine loaded
     * what the path holds, which the operator named; a path or id that names another known
     * model has already been taken above */
    const char *served = kv_log_served_model(lg);
    if (served[0] && kv_model_preset_find(served))
        return kv_model_load(NULL, served, m, err, errcap);
    if (served[0] && (preset = preset_in_path(served, named, sizeof named)) != NULL)
        return kv_model_load(NULL, preset, m, err, errcap);
    /* the model as the log's own lines describe it (a runner's loader dump) */
    char why[300], also[400] = "";
    kv_status described =
        kv_log_model_spec(lg, &m->spec, &m->gguf, m->name, sizeof m->name, why, sizeof why);
    if (described == KV_OK) {
        m->spec.gguf = &m->gguf;
        kv_snprintf(m->source, sizeof m->source, "the log's model lines");
        m->kind = SOURCE_CHECKPOINT;
        m->spec.model_name = m->name;
        m->spec.model_source = m->source;
        return 0;
    }
    if (described == KV_ERR_FORMAT) /* the engine's lines would describe it, not this log's */
        kv_snprintf(also, sizeof also, " (nor do its lines describe it: %s)", why);
    char sshown[200], as[260] = "";
    if (served[0] && strcmp(served, name) != 0)
        kv_snprintf(as, sizeof as, " (served as '%s')", kv_safe(sshown, sizeof sshown, served, 120));
    if (name[0])
        kv_fail(err, errcap,
                "--from-log %s: the log names model '%s'%s, which kvcalc cannot resolve%s: give "
                "--model or --config",
                kv_safe(fshown, sizeof fshown, file, 200), kv_safe(shown, sizeof shown, name, 200),
                as, also);
    else if (served[0])
        kv_fail(err, errcap,
                "--from-log %s: the log names model '%s' only by the name it is served under, "
                "which kvcalc cannot resolve%s: give --model or --config",
                kv_safe(fshown, sizeof fshown, file, 200), kv_safe(shown, sizeof shown, served, 200),
                also);
    else
        kv_fail(err, errcap, "--from-log %s: the log names no model%s: give --model or --config",
                kv_safe(fshown, sizeof fshown, file, 200), also);
    return 1;
}

/* Whether a flag's value differs from the log's for p. */
static int value_differs(const kv_param *p, const kv_value *a, const kv_value *b)
{
    switch (p->type) {
    case KV_T_INT:
        return a->i != b->i;
    case KV_T_NUM:
        return fabs(a->d - b->d) > 1e-9 * fabs(b->d);
    case KV_T_OPT_INT:
    case KV_T_OPT_CHOICE:
        return a->oi.set != b->oi.set || a->oi.value != b->oi.value;
    case KV_T_OPT_NUM:
        return a->on.set != b->on.set || fabs(a->on.value - b->on.value) > 1e-9 * fabs(b->on.value);
    case KV_T_DTYPE:
        return a->t != b->t;
    case KV_T_ENGINE:
        return a->engine != b->engine;
    default:
        return a->e != b->e;
    }
}

int kv_fromlog_what_if(const kv_options *o, const kv_log *lg, kv_log_args *in)
{
    int changed = 0, settings = 0;
    /* a logged setting that follows from one the command line gives is dropped with it */
    for (size_t i = 0; i < KV_MAX_FLAGS; i++)
        if (in->yields[i] && o->set[in->yields[i] - 1])
            in->kind[i] = KV_LOG_UNSET;
    /* a flag over a setting the log states: the lines are the figure's at the flag's value */
    for (size_t i = 0, n = kv_param_count(); i < n && i < KV_MAX_FLAGS; i++)
        if (o->set[i] && in->kind[i] == KV_LOG_SETTING &&
            value_differs(kv_param_at(i), &o->values[i], &in->values[i]))
            settings = KV_WHAT_IF_SETTINGS;
    for (size_t i = 0, n = kv_param_count(); i < n; i++)
        if (o->set[i] && kv_log_contradicts(lg, kv_param_at(i), &o->values[i]))
            changed = 1;
    double total = kv_log_gpu_total(lg);
    if (o->gpu && !isnan(total)) { /* another GPU than the log's total */
        double gib = o->gpu->engine_gib > 0 ? o->gpu->engine_gib : kv_gpu_gib(o->gpu);
        changed |= fabs(gib * KV_GIB - total) > 0.02 * total;
    }
    for (size_t i = 0; changed && i < KV_MAX_FLAGS; i++)
        if (in->kind[i] == KV_LOG_KV_FIGURE)
            in->kind[i] = KV_LOG_UNSET; /* sized from the new budget; the logged terms hold */
    return (changed ? KV_WHAT_IF_BUDGET : 0) | settings;
}

int kv_fromlog_prepare(const kv_options *o, kv_log *lg, kv_log_args *in, int *what_if,
                       char *err, size_t errcap)
{
    char shown[300], msg[KV_ERR_BUF];
    const char *label = strcmp(o->from_log, "-") == 0 ? "-"
                                                       : kv_safe(shown, sizeof shown, o->from_log, 200);
    if (kv_log_read_file(o->from_log, label, lg, msg, sizeof msg) != KV_OK)
        return kv_fail(err, errcap, "--from-log %s", msg);
    if (kv_fromlog_inputs(lg, o->from_log, in, err, errcap) != 0)
        return KV_USAGE_ERROR;
    kv_safe(shown, sizeof shown, o->from_log, 200);
    if (kv_options_given(o, kv_core_param_get(KV_P_ENGINE)) && kv_options_engine(o) != lg->engine)
        return kv_fail(err, errcap, "--engine: %s is a %s log; compare it with that engine",
                       shown, kv_engine_name(lg->engine));
    *what_if = kv_fromlog_what_if(o, lg, in);
    if ((*what_if & KV_WHAT_IF_BUDGET) && !kv_fromlog_end_to_end(lg, o))
        return kv_fail(err, errcap,
                       "--from-log %s: a what-if on the memory budget needs the GPU, which the "
                       "log does not state: give --gpu or --gpu-mem-gib",
                       shown);
    return 0;
}

int kv_fromlog_end_to_end(const kv_log *lg, const kv_options *o)
{
    return !kv_log_needs_gpu_total(lg->engine) || o->gpu ||
           kv_options_given(o, kv_core_param_get(KV_P_GPU_MEM_GIB)) ||
           !isnan(kv_log_gpu_total(lg));
}
