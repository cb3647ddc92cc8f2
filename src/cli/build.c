/*
 * build.c - the spec builder (see build.h for the order and why it is the only one).
 */
#define KVCALC_ENGINES /* the vLLM auto-fit reads its engine's result */
#include "build.h"

#include "format.h"
#include "kvprint.h"
#include "suggest.h"

#include <stdlib.h>
#include <string.h>

/* A reader's message (which names the file) as the program's error line. */
static int fail_with(char *err, size_t errcap)
{
    char msg[KV_ERR_BUF];
    kv_snprintf(msg, sizeof msg, "%s", err);
    return kv_fail(err, errcap, "%s", msg);
}

/* A GGUF file: by its magic, or by its extension (then the reader says what is wrong). */
static int is_gguf(const char *path)
{
    size_t n = strlen(path);
    return kv_gguf_probe(path) || (n > 5 && strcmp(path + n - 5, ".gguf") == 0);
}

/* --model FILE.gguf or --config FILE.gguf: the header of a llama.cpp model file. */
static int gguf_load(const char *path, kv_model *m, kv_model_info *info, char *err,
                     size_t errcap)
{
    kv_safe(m->source, sizeof m->source, path, 0);
    if (kv_gguf_load_file(path, &m->spec, info, &m->gguf, err, errcap) != KV_OK)
        return fail_with(err, errcap);
    m->spec.gguf = &m->gguf; /* engines size each layer as the file says */
    m->kind = SOURCE_CHECKPOINT;
    /* the name as typed, control bytes and all: the text replaces them, JSON escapes them */
    kv_snprintf(m->name, sizeof m->name, "%s", info->name[0] ? info->name : path);
    return 0;
}

/* --model DIR / --config DIR: a model folder (config.json + safetensors, or a .gguf);
 * `shown` labels it (the path as typed, or the Hugging Face cache). */
static int folder_load(const char *dir, const char *shown, kv_model *m, kv_model_info *info,
                       char *err, size_t errcap)
{
    kv_folder_info f;
    kv_safe(m->source, sizeof m->source, shown, 0);
    if (kv_folder_load(dir, &m->spec, info, &f, err, errcap) != KV_OK)
        return fail_with(err, errcap);
    /* the geometry is the folder's config.json; the weights, when found, its checkpoint */
    m->kind = SOURCE_CONFIG;
    kv_snprintf(m->name, sizeof m->name, "%s", info->name[0] ? info->name : shown);
    return 0;
}

/* --model org/name, neither a preset nor a path: the local Hugging Face cache, offline. */
static int hub_load(const char *flag, const char *id, kv_model *m, kv_model_info *info,
                    char *err, size_t errcap)
{
    char dir[4096], looked[2048], where[500], shown[300], near[300] = "";
    if (kv_hf_cache_find(id, dir, sizeof dir, looked, sizeof looked)) {
        int rc = folder_load(dir, "Hugging Face cache", m, info, err, errcap);
        if (rc == 0)
            kv_snprintf(m->name, sizeof m->name, "%s", id);
        return rc;
    }
    kv_hint_model(id, near, sizeof near);
    kv_safe(shown, sizeof shown, id, 200);
    if (!strchr(id, '/') || !looked[0])
        return kv_fail(err, errcap, "%s: unknown model '%s'%s (see kvcalc --list-models)", flag,
                       shown, near);
    return kv_fail(err, errcap, "%s: unknown model '%s': not a built-in preset, a folder "
                   "or in the Hugging Face cache (looked in %s)%s", flag, shown,
                   kv_safe(where, sizeof where, looked, 400), near);
}

/* A built-in model by name, blanks around it ignored ("qwen3-8b " as --gpu 'h100 ' is), or
 * NULL. */
static const kv_model_preset *find_preset(const char *name)
{
    const kv_model_preset *p = kv_model_preset_find(name);
    if (p || !name)
        return p;
    char trimmed[256];
    while (*name == ' ' || *name == '\t')
        name++;
    size_t n = strlen(name);
    while (n > 0 && (name[n - 1] == ' ' || name[n - 1] == '\t'))
        n--;
    if (n == 0 || n >= sizeof trimmed)
        return NULL;
    memcpy(trimmed, name, n);
    trimmed[n] = '\0';
    return kv_model_preset_find(trimmed);
}

/* A model folder: --config DIR, or --model DIR when DIR is not also a preset's name
 * (preset: model_name's, looked up once by the caller). */
static const char *folder_of(const char *config_path, const char *model_name,
                             const kv_model_preset *preset)
{
    if (config_path)
        return strcmp(config_path, "-") != 0 && kv_folder_probe(config_path) ? config_path
                                                                              : NULL;
    return model_name && !preset && kv_folder_probe(model_name) ? model_name : NULL;
}

/* kv_model_load(), naming `flag` where the name is unknown. */
static int model_load(const char *flag, const char *config_path, const char *model_name,
                      kv_model *m, char *err, size_t errcap)
{
    kv_model_info info;
    int rc;
    kv_spec_defaults(&m->spec);
    /* looked up once: each look-up walks every preset's names */
    const kv_model_preset *preset = !config_path && model_name ? find_preset(model_name) : NULL;
    const char *dir = folder_of(config_path, model_name, preset);
    const char *gguf = dir ? NULL
                       : config_path && strcmp(config_path, "-") != 0 && is_gguf(config_path)
                           ? config_path
                       : !config_path && model_name && is_gguf(model_name) ? model_name
                                                                            : NULL;
    if (dir) {
        if ((rc = folder_load(dir, dir, m, &info, err, errcap)) != 0)
            return rc;
    } else if (gguf) {
        if ((rc = gguf_load(gguf, m, &info, err, errcap)) != 0)
            return rc;
    } else if (config_path) {
        char *text = NULL;
        size_t len = 0;
        const char *label = strcmp(config_path, "-") == 0 ? "<stdin>" : config_path;
        kv_safe(m->source, sizeof m->source, label, 0);
        rc = kv_config_load_file(config_path, &text, &len, err, errcap);
        if (rc == KV_OK) {
            rc = kv_config_read(text, len, m->source, &m->spec, &info, err, errcap);
            free(text);
        }
        if (rc != KV_OK)
            return fail_with(err, errcap);
        kv_snprintf(m->name, sizeof m->name, "%s", info.name[0] ? info.name : label);
        m->kind = SOURCE_CONFIG;
    } else if (!preset) {
        if ((rc = hub_load(flag, model_name, m, &info, err, errcap)) != 0)
            return rc;
    } else {
        const kv_model_preset *p = preset;
        if (kv_model_preset_spec(p, &m->spec, &info, err, errcap) != KV_OK)
            return fail_with(err, errcap);
        kv_snprintf(m->name, sizeof m->name, "%s", p->id);
        kv_snprintf(m->source, sizeof m->source, "built-in preset");
        m->kind = SOURCE_PRESET;
    }
    m->spec.model_name = m->name;
    m->spec.model_source = m->source;
    m->spec.max_context = info.max_context;
    return 0;
}

int kv_model_load(const char *config_path, const char *model_name, kv_model *m, char *err,
                  size_t errcap)
{
    return model_load("--model", config_path, model_name, m, err, errcap);
}

int kv_trace_load(kv_options *o, kv_trace *t, char *err, size_t errcap)
{
    char label[KV_SHOWN + 16], shown[KV_SHOWN + 8];
    kv_snprintf(label, sizeof label, "--trace %s", kv_safe(shown, sizeof shown, o->trace_path, KV_SHOWN));
    char msg[1200];
    if (kv_trace_read_file(o->trace_path, label, t, msg, sizeof msg) != KV_OK)
        return kv_fail(err, errcap, "%s", msg);
    kv_workload *w = &o->workload;
    w->trace = t->rows;
    w->trace_n = t->n;
    w->requests = (int64_t)t->n;
    unsigned g = o->workload_given;
    double span = t->has_arrivals && t->n > 1 ? t->rows[t->n - 1].arrival_s - t->rows[0].arrival_s : 0;
    if (t->has_arrivals && span > 0 && !(g & (1u << WL_ARRIVALS)))
        w->arrivals = KV_ARRIVE_TRACE; /* its own times, scaled to --rate when given */
    if (w->arrivals == KV_ARRIVE_TRACE && !(g & (1u << WL_RATE)) && (g & (1u << WL_TPOT)))
        w->rate = (double)(t->n - 1) / span;
    if ((g & (1u << WL_TPOT)) && w->rate <= 0)
        return kv_fail(err, errcap, "%s: %s; give --rate", label,
                       t->has_arrivals && t->n < 2 ? "one request: its arrival times span no time"
                                                   : "has no arrival times to simulate");
    if (w->rate <= 0 && (g & (1u << WL_TTFT | 1u << WL_HEADROOM | 1u << WL_ARRIVALS)))
        return kv_fail(err, errcap, "%s: applies to a simulated rate; give --tpot-ms",
                       o->workload_typed[g & (1u << WL_TTFT) ? WL_TTFT
                                         : g & (1u << WL_HEADROOM) ? WL_HEADROOM : WL_ARRIVALS]);
    return 0;
}

int kv_draft_load(const kv_options *o, kv_model *m, kv_draft *d, char *err, size_t errcap)
{
    if (model_load(o->draft_typed, NULL, o->draft_name, m, err, errcap) != 0)
        return KV_USAGE_ERROR;
    char shown[300];
    const char *why = kv_draft_summarize(&m->spec, m->name, d);
    if (why)
        return kv_fail(err, errcap, "%s: %s has %s; kvcalc lays out drafts of full-attention "
                       "layers only", o->draft_typed, kv_safe(shown, sizeof shown, m->name, 200),
                       why);
    return 0;
}

void kv_build_base(const kv_model *model, const kv_gpu *gpu, kv_spec *out)
{
    /* 1. defaults, 2. the model (its spec starts from the same defaults) */
    if (model)
        *out = model->spec;
    else
        kv_spec_defaults(out);
    /* 3. the GPU */
    if (gpu)
        kv_spec_set_gpu(out, gpu);
}

/* The engine: the command line's, else the log's, else the model's (the lesson's). Set
 * before any other input, so that every input lands on the engine's own defaults. */
static void choose_engine(const kv_options *o, const kv_log_args *log, kv_spec *out)
{
    size_t i = kv_param_index(kv_core_param_get(KV_P_ENGINE));
    if (o->set[i])
        kv_spec_set_engine(out, o->values[i].engine);
    else if (log && log->kind[i])
        kv_spec_set_engine(out, log->values[i].engine);
    else
        kv_spec_set_engine(out, out->engine);
}

/* Inputs the program loads from files before any spec (main.c) and the builder copies into
 * the engine's inputs: where the options hold them, where the engine keeps them. */
static const void *given_draft(const kv_options *o) { return o->draft; }
static const void *given_lora(const kv_options *o) { return o->lora_files; }
static void *slot_draft(kv_spec *s) { return kv_spec_draft(s); }
static void *slot_lora(kv_spec *s) { return kv_spec_lora_files(s); }
static const char *typed_draft(const kv_options *o) { return o->draft_typed; }
static const char *typed_lora(const kv_options *o) { (void)o; return "--lora"; }
static const void *given_overrides(const kv_options *o)
{
    return o->overrides.n > 0 ? &o->overrides : NULL;
}
static void *slot_overrides(kv_spec *s) { return kv_spec_tensor_overrides(s); }
static const char *typed_overrides(const kv_options *o) { (void)o; return "-ot"; }
static const struct {
    const void *(*given)(const kv_options *o);
    void *(*slot)(kv_spec *s);
    const char *(*typed)(const kv_options *o);
    const char *what;
    size_t size;
} loaded[] = {
    {given_draft, slot_draft, typed_draft, "a draft model", sizeof(kv_draft)},
    {given_lora, slot_lora, typed_lora, "LoRA adapter files", sizeof(kv_lora_files)},
    {given_overrides, slot_overrides, typed_overrides, "tensor overrides",
     sizeof(kv_tensor_overrides)},
};

/* 4. explicit flags over the spec, its engine chosen. */
static int apply_flags(const kv_options *o, kv_spec *out, char *err, size_t errcap)
{
    char shown[KV_TYPED_MAX];
    /* 4. explicit flags (the spec inputs are the table's first rows): an engine's own flags
     *    need that engine (its defaults that depend on the GPU are resolved by the engine
     *    itself, from the spec) */
    size_t n = kv_flag_inputs();
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0 && i + 8 <= n) { /* most flags are not given: skip them eight at once */
            uint64_t eight;
            memcpy(&eight, o->set + i, sizeof eight);
            if (eight == 0) {
                i += 7;
                continue;
            }
        }
        if (!o->set[i])
            continue;
        const kv_flag *f = kv_flag_at(i);
        const kv_param *p = f->param;
        if (p->engine != KV_ENGINE_COUNT && p->engine != out->engine) {
            /* a name engines share, read before the engine was known (a log's): the
             * engine's own row takes the value (twins have one type and bounds) */
            const kv_flag *twin = kv_flag_twin(f, out->engine);
            if (twin) {
                kv_spec_set(out, twin->param, &o->values[i]);
                continue;
            }
            char with[160];
            kv_flag_engines(f, with, sizeof with);
            return kv_fail(err, errcap, "%s: applies only with %s",
                           kv_flag_shown(o, f, shown, sizeof shown), with);
        }
        if (p->type != KV_T_ENGINE)
            kv_spec_set(out, p, &o->values[i]);
    }
    /* what the program loaded (the draft model, LoRA files), into the engine's own inputs */
    for (size_t i = 0; i < sizeof loaded / sizeof loaded[0]; i++) {
        const void *have = loaded[i].given(o);
        if (!have)
            continue;
        void *slot = loaded[i].slot(out);
        if (!slot) {
            char with[200] = "";
            size_t len = 0;
            for (int e = 0; e < KV_ENGINE_COUNT; e++) {
                kv_spec probe;
                kv_spec_defaults(&probe);
                kv_spec_set_engine(&probe, (kv_engine)e);
                if (loaded[i].slot(&probe) && len < sizeof with)
                    len += (size_t)kv_snprintf(with + len, sizeof with - len, "%s%s",
                                            len ? ", " : "", kv_engine_name((kv_engine)e));
            }
            return kv_fail(err, errcap, "%s: kvcalc sizes %s with --engine %s",
                           loaded[i].typed(o), loaded[i].what, with);
        }
        memcpy(slot, have, loaded[i].size);
    }
    return 0;
}

/* vLLM's --max-model-len auto (-1; vllm-project/vllm#29431, kv_cache_utils.py
 * _auto_fit_max_model_len @ 002f10e0cfa1373a19a0d2756598a34b700d20e5): the longest
 * max_model_len up to the model's own that its start-up check accepts becomes the context.
 * The engine's rule, so it is the engine's result: computed once at the model's length. */
#define VLLM_AUTO_FIT 1400 /* 0.14 has it (the first release is not pinned) */
static int auto_fit(kv_spec *s, char *err, size_t errcap)
{
    if (s->engine != KV_ENGINE_VLLM)
        return kv_fail(err, errcap, "--max-model-len auto: vLLM's auto-fit; give --engine vllm "
                                    "(or a length)");
    if (s->vllm.version < VLLM_AUTO_FIT)
        return kv_fail(err, errcap, "--max-model-len auto: kvcalc knows vLLM's auto-fit from "
                                    "0.14 (--vllm-version)");
    if (s->max_context <= 0)
        return kv_fail(err, errcap, "--max-model-len auto: the model gives no "
                                    "max_position_embeddings to start from; give a length");
    kv_result r;
    s->context = s->max_context;
    s->vllm.auto_fit_from = s->max_context;
    if (kv_compute(s, &r) != KV_OK)
        return 0; /* the run itself reports why */
    if (!r.vllm.fits && r.vllm.max_model_len_fit > 0)
        s->context = r.vllm.max_model_len_fit;
    return 0;
}

/* A GPU no one named, gave or logged is the lesson's illustration: vLLM's allocations are
 * not refused for outgrowing it (a log's KV figure of a 70B model would otherwise "run out
 * of memory" on 48 GiB). */
static void mark_assumed_gpu(const kv_options *o, const kv_gpu *gpu, const kv_log_args *log,
                             kv_spec *out)
{
    size_t mem = kv_param_index(kv_core_param_get(KV_P_GPU_MEM_GIB));
    if (out->engine == KV_ENGINE_VLLM)
        out->vllm.total_assumed = !gpu && !o->set[mem] && !(log && log->kind[mem]) &&
                                  !out->vllm.total_gib.set;
}

int kv_build_flags(const kv_options *o, kv_spec *out, char *err, size_t errcap)
{
    choose_engine(o, NULL, out);
    if (apply_flags(o, out, err, errcap) != 0)
        return -1;
    mark_assumed_gpu(o, o->gpu, NULL, out);
    return o->auto_max_model_len ? auto_fit(out, err, errcap) : 0;
}

/* The source of one input that was not given as a flag. */
static kv_source unset_source(const kv_param *p, const kv_model *model, const kv_gpu *gpu,
                              const kv_spec *s)
{
    const kv_param *core = kv_core_param_get(0);
    if (p == kv_core_param_get(KV_P_PARAMS_B) && model) /* the weights */
        return s->params_estimated               ? SOURCE_ESTIMATE
               : s->checkpoint_weights_bytes > 0 ? SOURCE_CHECKPOINT
                                                 : model->kind;
    if (p->engine == KV_ENGINE_COUNT && kv_engine_overrides(s->engine, (kv_core_param)(p - core)))
        return SOURCE_DEFAULT; /* the engine decides it (llama.cpp's f16 cache) */
    if (p->model_sets && model)
        return model->kind;
    if (p->clears & KV_CLEARS_GPU && gpu)
        return SOURCE_PRESET;
    if (p->estimate && kv_param_unset(s, p))
        return SOURCE_ESTIMATE;
    return SOURCE_DEFAULT;
}

void kv_build_sources(const kv_options *o, const kv_model *model, const kv_gpu *gpu,
                      const kv_spec *s, kv_sources *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0, n = kv_param_count(); i < n; i++)
        out->of[i] = o->set[i] ? SOURCE_FLAG
                               : (unsigned char)unset_source(kv_param_at(i), model, gpu, s);
    /* the step: --tpot-ms, else the run's roofline estimate (the caller marks it) */
    out->step = o->workload_given & (1u << WL_TPOT) ? SOURCE_FLAG : SOURCE_COUNT;
}

int kv_build_spec(const kv_options *o, const kv_model *model, const kv_gpu *gpu, kv_spec *out,
                  char *err, size_t errcap)
{
    return kv_build_spec_log(o, model, gpu, NULL, 0, out, err, errcap);
}

int kv_build_spec_log(const kv_options *o, const kv_model *model, const kv_gpu *gpu,
                      const kv_log_args *log, int measured, kv_spec *out, char *err,
                      size_t errcap)
{
    kv_build_base(model, gpu, out);
    choose_engine(o, log, out);
    /* 3b. the log's values, as if typed; an explicit flag of the same input wins */
    for (size_t i = 0, n = kv_param_count(); log && i < n; i++) {
        const kv_param *p = kv_param_at(i);
        if (log->kind[i] && !o->set[i] && p->type != KV_T_ENGINE &&
            (log->kind[i] == KV_LOG_SETTING || measured) &&
            !(gpu && p->clears & KV_CLEARS_GPU)) /* --gpu outranks the log's total */
            kv_spec_set(out, p, &log->values[i]);
    }
    if (apply_flags(o, out, err, errcap) != 0)
        return -1;
    mark_assumed_gpu(o, gpu, log, out);
    return o->auto_max_model_len ? auto_fit(out, err, errcap) : 0;
}
