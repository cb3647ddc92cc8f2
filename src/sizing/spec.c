/*
 * spec.c - a spec's engine and GPU, and a spec re-laid for another layout.
 */
#include "engine.h"

#include <string.h>

void kv_spec_defaults(kv_spec *s)
{
    kv_core_defaults(s);
    s->engine = KV_ENGINE_IDEAL; /* the lesson's arithmetic until an engine is chosen */
    memset(&s->engine_space, 0, sizeof s->engine_space);
}

kv_status kv_spec_set_engine(kv_spec *s, kv_engine e)
{
    const kv_engine_desc *d = kv_engine_get(e);
    if (!d)
        return KV_ERR_ENGINE_UNKNOWN;
    s->engine = e;
    memset(&s->engine_space, 0, sizeof s->engine_space);
    d->defaults(s);
    return KV_OK;
}

const kv_json_flag *kv_json_flag_at(size_t i)
{
    for (int e = 0; e < KV_ENGINE_COUNT; e++) {
        const kv_engine_desc *d = kv_engine_get((kv_engine)e);
        if (i < d->n_json_flags)
            return &d->json_flags[i];
        i -= d->n_json_flags;
    }
    return NULL;
}

/* The member of s's engine inputs at a descriptor's offset + 1 (0: the engine has none). */
static void *engine_member(kv_spec *s, size_t kv_engine_desc_offset)
{
    const kv_engine_desc *d = kv_engine_get(s->engine);
    size_t at = d ? *(const size_t *)(const void *)((const char *)d + kv_engine_desc_offset) : 0;
    return at ? s->engine_space.bytes + at - 1 : NULL;
}

kv_draft *kv_spec_draft(kv_spec *s)
{
    return engine_member(s, offsetof(kv_engine_desc, draft_at));
}

kv_lora_files *kv_spec_lora_files(kv_spec *s)
{
    return engine_member(s, offsetof(kv_engine_desc, lora_at));
}

kv_tensor_overrides *kv_spec_tensor_overrides(kv_spec *s)
{
    return engine_member(s, offsetof(kv_engine_desc, overrides_at));
}

void kv_spec_set_gpu(kv_spec *s, const kv_gpu *g)
{
    s->gpu_mem_gib = kv_gpu_gib(g);
    s->gpu_name = g->name;
    s->gpu_device_names = g->smi_names;
    s->gpu_mem_estimated = g->estimated;
    s->gpu_engine_gib = g->engine_gib;
}

void kv_relayout(const kv_spec *from, kv_spec *to)
{
    const kv_engine_desc *d = kv_engine_get(from->engine);
    if (d && d->relayout && to->engine == from->engine)
        d->relayout(from, to, kv_compute);
}

const char *kv_version(void)
{
    return KVCALC_VERSION;
}
