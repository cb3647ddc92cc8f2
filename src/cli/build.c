/*
 * build.c - the spec builder (see build.h for the order and why it is the only one).
 */
#include "build.h"

#include "format.h"
#include "suggest.h"

#include <stdlib.h>
#include <string.h>

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
    if (kv_gguf_load_file(path, &m->spec, info, &m->gguf, err, errcap) != 0)
        return KV_USAGE_ERROR;
    m->spec.llamacpp.gguf = &m->gguf; /* llama.cpp sizes each layer as the file says */
    m->kind = SOURCE_CHECKPOINT;
    snprintf(m->name, sizeof m->name, "%s", info->name[0] ? info->name : m->source);
    return 0;
}

/* --model DIR / --config DIR: a model folder (config.json + safetensors, or a .gguf);
 * `shown` labels it (the path as typed, or the Hugging Face cache). */
static int folder_load(const char *dir, const char *shown, kv_model *m, kv_model_info *info,
                       char *err, size_t errcap)
{
    kv_folder_info f;
    kv_safe(m->source, sizeof m->source, shown, 0);
    if (kv_folder_load(dir, &m->spec, info, &f, err, errcap) != 0)
        return KV_USAGE_ERROR;
    /* the geometry is the folder's config.json; the weights, when found, its checkpoint */
    m->kind = SOURCE_CONFIG;
    snprintf(m->name, sizeof m->name, "%s", info->name[0] ? info->name : m->source);
    return 0;
}

/* --model org/name, neither a preset nor a path: the local Hugging Face cache, offline. */
static int hub_load(const char *id, kv_model *m, kv_model_info *info, char *err,
                    size_t errcap)
{
    char dir[4096], looked[2048], where[500], shown[300], near[300] = "";
    if (kv_hf_cache_find(id, dir, sizeof dir, looked, sizeof looked)) {
        int rc = folder_load(dir, "Hugging Face cache", m, info, err, errcap);
        if (rc == 0)
            snprintf(m->name, sizeof m->name, "%s", id);
        return rc;
    }
    kv_hint_model(id, near, sizeof near);
    kv_safe(shown, sizeof shown, id, 200);
    if (!strchr(id, '/') || !looked[0])
        return kv_fail(err, errcap, "--model: unknown model '%s'%s (see kvcalc --list-models)",
                       shown, near);
    return kv_fail(err, errcap, "--model: unknown model '%s': not a built-in preset, a folder "
                   "or in the Hugging Face cache (looked in %s)%s", shown,
                   kv_safe(where, sizeof where, looked, 400), near);
}

/* A model folder: --config DIR, or --model DIR when DIR is not also a preset's name. */
static const char *folder_of(const char *config_path, const char *model_name)
{
    if (config_path)
        return strcmp(config_path, "-") != 0 && kv_folder_probe(config_path) ? config_path
                                                                              : NULL;
    return model_name && !kv_model_preset_find(model_name) && kv_folder_probe(model_name)
               ? model_name
               : NULL;
}

int kv_model_load(const char *config_path, const char *model_name, kv_model *m, char *err,
                  size_t errcap)
{
    kv_model_info info;
    int rc;
    kv_spec_defaults(&m->spec);
    const char *dir = folder_of(config_path, model_name);
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
        if (rc == 0) {
            rc = kv_config_read(text, len, m->source, &m->spec, &info, err, errcap);
            free(text);
        }
        if (rc != 0)
            return KV_USAGE_ERROR;
        snprintf(m->name, sizeof m->name, "%s", info.name[0] ? info.name : m->source);
        m->kind = SOURCE_CONFIG;
    } else if (!kv_model_preset_find(model_name)) {
        if ((rc = hub_load(model_name, m, &info, err, errcap)) != 0)
            return rc;
    } else {
        const kv_model_preset *p = kv_model_preset_find(model_name);
        if (kv_model_preset_spec(p, &m->spec, &info, err, errcap) != 0)
            return KV_USAGE_ERROR;
        snprintf(m->name, sizeof m->name, "%s", p->id);
        snprintf(m->source, sizeof m->source, "built-in preset");
        m->kind = SOURCE_PRESET;
    }
    m->spec.model_name = m->name;
    m->spec.model_source = m->source;
    m->spec.max_context = info.max_context;
    return 0;
}

/* --quantization METHOD: what each method stores its weights in, and which weights. */
static const struct {
    kv_dtype dtype;
    kv_quant_scope scope;
    double bytes; /* per quantized weight when not a plain dtype's */
} quantization_rules[KV_QUANTIZATION_COUNT] = {
    [KV_QUANTIZATION_FP8] = {KV_DTYPE_FP8, KV_QUANT_LINEAR, 0},
    [KV_QUANTIZATION_INT8] = {KV_DTYPE_INT8, KV_QUANT_LINEAR, 0},
    /* 4-bit values plus, per group of 128, an fp16 scale and a 4-bit zero point */
    [KV_QUANTIZATION_AWQ] = {KV_DTYPE_INT4, KV_QUANT_LINEAR, 0.5 + 2.5 / 128},
    [KV_QUANTIZATION_GPTQ] = {KV_DTYPE_INT4, KV_QUANT_LINEAR, 0.5 + 2.5 / 128},
    /* nf4 plus, per block of 64, an 8-bit scale (double quantization: 4.125 bits) */
    [KV_QUANTIZATION_BITSANDBYTES] = {KV_DTYPE_INT4, KV_QUANT_LINEAR, 0.5 + 1.0 / 64},
    [KV_QUANTIZATION_MXFP4] = {KV_DTYPE_INT4, KV_QUANT_EXPERTS, 0.53125},
};

/* The checkpoint is stored as --quantization says: its linear layers (mxfp4: the experts)
 * in the method's type, the rest in the model's dtype - unlike --weight-dtype, which puts
 * every weight in one dtype. A checkpoint's own tensor bytes give way to it. */
static void apply_quantization(kv_spec *s)
{
    if (s->quantization < 0 || s->quantization >= KV_QUANTIZATION_COUNT)
        return;
    s->weight_dtype = quantization_rules[s->quantization].dtype;
    s->arch.quant_scope = quantization_rules[s->quantization].scope;
    s->arch.quant_bytes = quantization_rules[s->quantization].bytes;
}

/* Writes one explicit flag over the spec, with what it overrules. */
static void apply_flag(const kv_flag *f, const kv_value *v, kv_spec *s)
{
    memcpy((char *)s + f->offset, v, kv_flag_size(f));
    if (f->clears & (CLEARS_ESTIMATE | CLEARS_QUANT))
        s->checkpoint_weights_bytes = 0; /* a GGUF file's own bytes give way to the flag */
    if (f->clears & (CLEARS_ESTIMATE | CLEARS_QUANT))
        s->weights_source = NULL; /* the weights are now what the flag says */
    if (f->clears & CLEARS_ESTIMATE)
        s->params_estimated = 0;
    if (f->clears & CLEARS_GEOMETRY)
        s->llamacpp.gguf = NULL; /* the file's per-layer rows give way to the flags */
    if (f->clears & CLEARS_GPU) {
        s->gpu_name = NULL;
        s->gpu_mem_estimated = 0;
        s->gpu_engine_gib = 0;
    }
    if (f->clears & CLEARS_QUANT) { /* every weight in the dtype given */
        s->arch.quant_scope = KV_QUANT_ALL;
        s->arch.quant_bytes = 0;
    }
    if (f->clears & CLEARS_STORAGE)
        apply_quantization(s);
}

void kv_build_base(const kv_model *model, const kv_gpu *gpu, kv_spec *out)
{
    /* 1. defaults, 2. the model (its spec starts from the same defaults) */
    if (model)
        *out = model->spec;
    else
        kv_spec_defaults(out);
    /* 3. the GPU */
    if (gpu) {
        out->gpu_mem_gib = kv_gpu_gib(gpu);
        out->gpu_name = gpu->name;
        out->gpu_mem_estimated = gpu->estimated;
        out->gpu_engine_gib = gpu->engine_gib;
    }
}

int kv_build_flags(const kv_options *o, kv_spec *out, char *err, size_t errcap)
{
    /* 4. explicit flags */
    const kv_flag *foreign = NULL;
    for (size_t i = 0; i < kv_flags_count; i++) {
        if (!o->set[i])
            continue;
        apply_flag(&kv_flags[i], &o->values[i], out);
        if (kv_flags[i].engine != KV_ENGINE_COUNT && !foreign)
            foreign = &kv_flags[i];
    }
    /* 5. engine rules: an engine's own flags need that engine (its defaults that depend on
     *    the GPU are resolved by the engine itself, from the spec) */
    char shown[KV_TYPED_MAX];
    for (size_t i = 0; foreign && i < kv_flags_count; i++)
        if (o->set[i] && kv_flags[i].engine != KV_ENGINE_COUNT && kv_flags[i].engine != out->engine)
            return kv_fail(err, errcap, "%s: applies only with --engine %s",
                           kv_flag_shown(o, &kv_flags[i], shown, sizeof shown),
                           kv_engine_name(kv_flags[i].engine));
    /*    llama.cpp caches in f16 whatever the model's dtype, unless --dtype says otherwise */
    const kv_flag *dtype = kv_flag_find("dtype", 5);
    if (out->engine == KV_ENGINE_LLAMACPP && !o->set[dtype - kv_flags])
        out->dtype = KV_DTYPE_FP16;
    return 0;
}

/* The source of one input that was not given as a flag. */
static kv_source unset_source(const kv_flag *f, const kv_model *model, const kv_gpu *gpu,
                              const kv_spec *s)
{
    char buf[64];
    if (f->offset == offsetof(kv_spec, params_b) && model) /* the weights */
        return s->params_estimated               ? SOURCE_ESTIMATE
               : s->checkpoint_weights_bytes > 0 ? SOURCE_CHECKPOINT
                                                 : model->kind;
    if (f->offset == offsetof(kv_spec, dtype) && s->engine == KV_ENGINE_LLAMACPP)
        return SOURCE_DEFAULT; /* llama.cpp's f16 cache, whatever the model says */
    if (f->model_sets && model)
        return model->kind;
    if (f->clears & CLEARS_GPU && gpu)
        return SOURCE_PRESET;
    if (f->optional && f->auto_estimate && strcmp(kv_flag_text(buf, sizeof buf, s, f), "null") == 0)
        return SOURCE_ESTIMATE;
    return SOURCE_DEFAULT;
}

void kv_build_sources(const kv_options *o, const kv_model *model, const kv_gpu *gpu,
                      const kv_spec *s, kv_sources *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < kv_flags_count; i++)
        if (kv_flags[i].does == DO_SPEC)
            out->of[i] = o->set[i] ? SOURCE_FLAG
                                   : (unsigned char)unset_source(&kv_flags[i], model, gpu, s);
}

int kv_build_spec(const kv_options *o, const kv_model *model, const kv_gpu *gpu, kv_spec *out,
                  char *err, size_t errcap)
{
    return kv_build_spec_log(o, model, gpu, NULL, 0, out, err, errcap);
}

int kv_build_spec_log(const kv_options *o, const kv_model *model, const kv_gpu *gpu,
                      const kv_log_inputs *log, int measured, kv_spec *out, char *err,
                      size_t errcap)
{
    kv_build_base(model, gpu, out);
    /* 3b. the log's values, as if typed; an explicit flag of the same input wins */
    for (size_t i = 0; log && i < kv_flags_count; i++)
        if (log->set[i] && !o->set[i] && (log->set[i] == LOG_SETTING || measured) &&
            !(gpu && kv_flags[i].clears & CLEARS_GPU)) /* --gpu outranks the log's total */
            apply_flag(&kv_flags[i], &log->values[i], out);
    return kv_build_flags(o, out, err, errcap);
}
