/*
 * engines.c - the table of engine descriptors, expanded from kvcalc_engines.def, and the
 * engines' names (spelled there, and only there).
 */
#include "engine.h"
#include "kvprint.h"

#include <stdio.h>
#include <string.h>

static const kv_engine_desc *const engines[KV_ENGINE_COUNT] = {
#define KV_ENGINE(ID, id, name) [KV_ENGINE_##ID] = &kv_engine_##id,
#include "kvcalc_engines.def"
#undef KV_ENGINE
};

static const char *const names[KV_ENGINE_COUNT] = {
#define KV_ENGINE(ID, id, name) [KV_ENGINE_##ID] = name,
#include "kvcalc_engines.def"
#undef KV_ENGINE
};

_Static_assert(KV_ENGINE_COUNT <= KV_MAX_ENGINES, "raise KV_MAX_ENGINES (an ABI change)");

const kv_engine_desc *kv_engine_get(kv_engine e)
{
    return (unsigned)e < KV_ENGINE_COUNT ? engines[e] : NULL;
}

const char *kv_engine_name(kv_engine e)
{
    return (unsigned)e < KV_ENGINE_COUNT ? names[e] : NULL;
}

const char *kv_engine_title(kv_engine e)
{
    const kv_engine_desc *d = kv_engine_get(e);
    return d ? d->title : NULL;
}

const char *kv_engine_cache_types(const kv_spec *s, const kv_result *r, char *buf, size_t cap)
{
    const kv_engine_desc *d = kv_engine_get(s->engine);
    return d && d->cache_types && cap > 0 ? d->cache_types(s, r, buf, cap) : NULL;
}

const char *kv_engine_prefix_note(const kv_spec *s, const kv_result *r)
{
    const kv_engine_desc *d = kv_engine_get(s->engine);
    return d && d->prefix_note ? d->prefix_note(s, r) : NULL;
}

const char *kv_engine_doc(kv_engine e)
{
    const kv_engine_desc *d = kv_engine_get(e);
    return d ? d->doc : NULL;
}

const char *kv_engine_budget_words(kv_engine e)
{
    const kv_engine_desc *d = kv_engine_get(e);
    return d ? d->budget_words : NULL;
}

const char *kv_engine_alias(kv_engine e, size_t i)
{
    const kv_engine_desc *d = kv_engine_get(e);
    if (!d || !d->aliases)
        return NULL;
    for (size_t k = 0; k < i; k++)
        if (!d->aliases[k])
            return NULL;
    return d->aliases[i];
}

int kv_engine_find(const char *name, kv_engine *out)
{
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        int hit = strcmp(names[e], name) == 0;
        for (size_t a = 0; !hit && kv_engine_alias((kv_engine)e, a); a++)
            hit = strcmp(kv_engine_alias((kv_engine)e, a), name) == 0;
        if (hit) {
            *out = (kv_engine)e;
            return 0;
        }
    }
    return -1;
}

int kv_engine_overrides(kv_engine e, kv_core_param p)
{
    const kv_engine_desc *d = kv_engine_get(e);
    return d && (unsigned)p < 64 && (d->overrides >> p & 1u);
}

kv_status kv_refuse_csa(const kv_spec *s, kv_error *why, const char *title)
{
    if (s->layout.csa_c4 + s->layout.csa_c128 == 0)
        return KV_OK;
    return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_ENGINE],
                     "kvcalc sizes DeepSeek-V4's compressed cache (compress_ratios) for vLLM, "
                     "SGLang, llama.cpp and the lesson's engine, not yet for %s: --engine vllm, "
                     "sglang, llama.cpp or ideal", title);
}

kv_status kv_csa_check_dtype(const kv_spec *s, kv_error *why)
{
    if (s->layout.csa_c4 + s->layout.csa_c128 == 0 || s->dtype == KV_DTYPE_FP8)
        return KV_OK;
    return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_DTYPE],
                     "DeepSeek-V4's cache is fp8_ds_mla (vLLM: \"DeepseekV4 only supports fp8 "
                     "kv-cache format for now\"): fp8");
}

int kv_choice_mask_parse(const kv_choice *list, const char *text, int *out)
{
    int mask = 0;
    for (const char *p = text;;) {
        while (*p == ',' || *p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, ", ");
        const kv_choice *c = list;
        while (c->name && !(strlen(c->name) == len && memcmp(c->name, p, len) == 0))
            c++;
        if (!c->name)
            return -1;
        mask |= c->value;
        p += len;
    }
    if (mask == 0)
        return -1;
    *out = mask;
    return 0;
}

void kv_choice_mask_format(const kv_choice *list, int whole, int mask, char *buf, size_t cap)
{
    size_t at = 0;
    if (cap)
        buf[0] = '\0';
    for (const kv_choice *c = list; c->name && at < cap; c++)
        if (whole && mask == whole ? c->value == whole
                                   : c->value != whole && (mask & c->value) == c->value)
            at += (size_t)kv_snprintf(buf + at, cap - at, "%s%s", at ? "," : "", c->name);
}

double kv_layers_weight_bytes(const kv_spec *s, double weights)
{
    if (!s->arch.known)
        return weights;
    kv_param_parts p;
    kv_estimate_param_parts(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim, &p);
    double all = kv_estimate_params(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim);
    double stay = p.embeddings + p.vision + p.audio + (double)s->arch.hidden;
    return all > 0 && stay < all ? weights * (all - stay) / all : weights;
}
