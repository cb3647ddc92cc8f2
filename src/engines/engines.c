/*
 * engines.c - the table of engines, indexed by kv_engine.
 */
#include "engine.h"

static const kv_engine_ops *const engines[KV_ENGINE_COUNT] = {
    [KV_ENGINE_IDEAL] = &kv_engine_ideal_ops,
    [KV_ENGINE_VLLM] = &kv_engine_vllm_ops,
    [KV_ENGINE_SGLANG] = &kv_engine_sglang_ops,
    [KV_ENGINE_TRTLLM] = &kv_engine_trtllm_ops,
    [KV_ENGINE_LLAMACPP] = &kv_engine_llamacpp_ops,
};

const kv_engine_ops *kv_engine_get(kv_engine e)
{
    return (unsigned)e < KV_ENGINE_COUNT ? engines[e] : NULL;
}

const char *kv_engine_name(kv_engine e)
{
    const kv_engine_ops *ops = kv_engine_get(e);
    return ops ? ops->name : NULL;
}
