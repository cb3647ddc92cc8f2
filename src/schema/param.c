/*
 * param.c - the spec's inputs as one list: the core's parameters, then each engine's (its
 * descriptor's rows), in engine order. Finding, reading and writing a parameter of a spec
 * goes through here, so the program's flags, the JSON "inputs", sweeps and startup logs
 * all set a spec the same way.
 */
#include "engine.h"

#include <string.h>

size_t kv_param_count(void)
{
    size_t n = KV_CORE_PARAMS;
    for (int e = 0; e < KV_ENGINE_COUNT; e++)
        n += kv_engine_get((kv_engine)e)->n_params;
    return n;
}

const kv_param *kv_param_at(size_t i)
{
    if (i < KV_CORE_PARAMS)
        return &kv_core_params[i];
    i -= KV_CORE_PARAMS;
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        const kv_engine_desc *d = kv_engine_get((kv_engine)e);
        if (i < d->n_params)
            return &d->params[i];
        i -= d->n_params;
    }
    return NULL;
}

size_t kv_param_index(const kv_param *p)
{
    if (p->engine == KV_ENGINE_COUNT)
        return (size_t)(p - kv_core_params);
    size_t base = KV_CORE_PARAMS;
    for (int e = 0; e < (int)p->engine; e++)
        base += kv_engine_get((kv_engine)e)->n_params;
    return base + (size_t)(p - kv_engine_get(p->engine)->params);
}

static int name_is(const char *name, const char *text, size_t len)
{
    return name && strlen(name) == len && memcmp(name, text, len) == 0;
}

const kv_param *kv_param_find(const char *name, size_t len)
{
    size_t n = kv_param_count();
    for (size_t i = 0; i < n; i++) {
        const kv_param *p = kv_param_at(i);
        if (name_is(p->name, name, len))
            return p;
        for (size_t a = 0; a < sizeof p->aliases / sizeof p->aliases[0] && p->aliases[a]; a++)
            if (name_is(p->aliases[a], name, len))
                return p;
    }
    return NULL;
}

const kv_param *kv_param_find_short(const char *name, size_t len)
{
    size_t n = kv_param_count();
    for (size_t i = 0; i < n; i++)
        if (name_is(kv_param_at(i)->short_name, name, len))
            return kv_param_at(i);
    return NULL;
}

const kv_param *kv_param_blamed(kv_status st)
{
    /* the spec's own inputs: an engine's refusal names its input itself (kv_explain) */
    for (size_t i = 0; i < KV_CORE_PARAMS && st != KV_OK; i++)
        if (kv_core_params[i].blames == st)
            return &kv_core_params[i];
    return NULL;
}

const kv_param *kv_core_param_get(kv_core_param id)
{
    return (unsigned)id < KV_CORE_PARAMS ? &kv_core_params[id] : NULL;
}

void *kv_param_ptr(kv_spec *s, const kv_param *p)
{
    if (p->engine == KV_ENGINE_COUNT)
        return (char *)s + p->offset;
    return p->engine == s->engine ? (char *)s->engine_space.bytes + p->offset : NULL;
}

const void *kv_param_cptr(const kv_spec *s, const kv_param *p)
{
    return kv_param_ptr((kv_spec *)s, p);
}

/* What setting p changes besides its own member. */
static void apply_clears(kv_spec *s, unsigned clears)
{
    if (clears & (KV_CLEARS_ESTIMATE | KV_CLEARS_QUANT)) {
        s->checkpoint_weights_bytes = 0; /* a checkpoint's own bytes give way to the input */
        s->weights_source = KV_WEIGHTS_GIVEN; /* the weights are now what the input says */
    }
    if (clears & KV_CLEARS_ESTIMATE) {
        s->params_estimated = 0;
        s->arch.unknown[0] = '\0'; /* the weights are given: nothing is left uncounted */
    }
    if (clears & KV_CLEARS_GEOMETRY)
        s->gguf = NULL; /* the file's per-layer rows give way to the input */
    if (clears & KV_CLEARS_GPU) {
        s->gpu_name = NULL;
        s->gpu_device_names = NULL;
        s->gpu_mem_estimated = 0;
        s->gpu_engine_gib = 0;
    }
    if (clears & KV_CLEARS_QUANT) { /* every weight in the dtype given */
        s->arch.quant_scope = KV_QUANT_ALL;
        s->arch.quant_bytes = 0;
    }
    if (clears & KV_CLEARS_STORAGE)
        kv_quantization_apply(s);
}

kv_status kv_spec_set(kv_spec *s, const kv_param *p, const kv_value *v)
{
    if (p->type == KV_T_ENGINE)
        return kv_spec_set_engine(s, v->engine);
    void *at = kv_param_ptr(s, p);
    if (!at)
        return KV_ERR_ENGINE_INPUT;
    memcpy(at, v, p->size); /* every member of kv_value starts at its first byte */
    apply_clears(s, p->clears);
    return KV_OK;
}

int kv_spec_get(const kv_spec *s, const kv_param *p, kv_value *v)
{
    const void *at = kv_param_cptr(s, p);
    if (!at)
        return -1;
    memset(v, 0, sizeof *v);
    memcpy(v, at, p->size);
    return 0;
}

static int named(const kv_choice *c, int value)
{
    for (; c && c->name; c++)
        if (c->value == value)
            return 1;
    return 0;
}

int kv_param_unset(const kv_spec *s, const kv_param *p)
{
    kv_value v;
    if (kv_spec_get(s, p, &v) != 0)
        return 1;
    switch (p->type) {
    case KV_T_OPT_INT:
    case KV_T_OPT_CHOICE:
        return !v.oi.set;
    case KV_T_OPT_NUM:
        return !v.on.set;
    case KV_T_CHOICE:
        return !named(p->choices, v.e);
    default:
        return 0;
    }
}
