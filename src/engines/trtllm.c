/*
 * trtllm.c - TensorRT-LLM's paged KV cache (docs/trtllm.md).
 *
 * TensorRT-LLM sizes its cache from the memory still free once the engine, its activations
 * and its runtime buffers are in place: it takes a fraction of that, divides by the bytes
 * one token costs in every attention layer of the rank, and rounds the token count up to
 * whole blocks. A request holds ceil(context / tokens per block) blocks. The free memory is
 * what its log calls "available"; without it kvcalc uses the spec's free memory (GPU minus
 * weights minus overhead), an estimate, and the report says so.
 */
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvmath.h"

/* Token counts stay below 2^62 so that rounding up to a block (< 2^20 tokens) cannot
 * overflow an int64. */
#define TRTLLM_TOKEN_LIMIT 4611686018427387904.0 /* 2^62 */
#define TRTLLM_MAX_BLOCK 1048576

/* The max_tokens cap and the free memory are "not given" (zeroed). */
static void trtllm_defaults(kv_spec *s)
{
    kv_trtllm_spec *t = &s->trtllm;
    t->fraction = 0.9;       /* KvCacheConfig.free_gpu_memory_fraction */
    t->tokens_per_block = 32; /* LLM API and trtllm-serve */
    t->host_cache_size = 0;   /* KvCacheConfig.host_cache_size: no secondary pool */
    /* tensorrt_llm/lora_helper.py LoraConfig @ 037d4ba10931: max_lora_rank 64; the C++
     * PeftCacheConfig's kDefaultDeviceCachePercent 0.02 and kDefaultHostCacheSize 1 GiB
     * (cpp/include/tensorrt_llm/batch_manager/peftCacheManagerConfig.h @ 0e8b9484c7e4, what
     * the LLM API's None fields become) */
    t->max_lora_rank = 64;
    t->peft_device_cache_percent = 0.02;
    t->peft_host_cache_size = 1073741824.0;
}

enum {
    TR_P_FRACTION, TR_P_BLOCK, TR_P_MAX_TOKENS, TR_P_FREE, TR_P_HOST_CACHE, TR_P_LORA,
    TR_P_LORA_RANK, TR_P_LORA_MODULES, TR_P_PEFT_DEVICE, TR_P_PEFT_HOST, TR_P_MAX_LORAS,
    TR_P_MAX_CPU_LORAS, TR_PARAMS
};
static const kv_param params[TR_PARAMS];

static kv_status trtllm_check(const kv_spec *s, kv_error *why)
{
    const kv_trtllm_spec *t = &s->trtllm;
    if (kv_refuse_csa(s, why, "TensorRT-LLM") != KV_OK)
        return KV_ERR_ENGINE_INPUT;
    /* TensorRT-LLM asserts the fraction is below 1: the rest is left to other allocations */
    if (!(t->fraction > 0 && t->fraction < 1))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[TR_P_FRACTION],
                         "must be a number > 0 and < 1");
    if (t->tokens_per_block < 1 || t->tokens_per_block > TRTLLM_MAX_BLOCK ||
        (t->max_tokens.set &&
         (t->max_tokens.value < 1 || (double)t->max_tokens.value >= TRTLLM_TOKEN_LIMIT)) ||
        (t->free_mem_gib.set && (!isfinite(t->free_mem_gib.value) || t->free_mem_gib.value < 0 ||
                                 t->free_mem_gib.value > 1e12)) ||
        !(t->host_cache_size >= 0 && t->host_cache_size <= 1e18))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_ENGINE],
                         "a TensorRT-LLM input is out of range (free GPU memory fraction in (0, "
                         "1), tokens per block >= 1, free memory and host cache size >= 0 and "
                         "finite)");
    /* what TensorRT-LLM keeps for state layers (its Mamba cache manager) and for the
     * sparse-attention indexer was not read from its source: refused, not guessed */
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, counts);
    if (counts[KV_LAYER_STATE] > 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_ENGINE],
                         "kvcalc does not model TensorRT-LLM's cache for state layers (Mamba, "
                         "linear attention: %lld of this model's layers); --engine vllm, "
                         "sglang and llama.cpp do", (long long)counts[KV_LAYER_STATE]);
    if (s->layout.index_dim > 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_ENGINE],
                         "kvcalc does not model TensorRT-LLM's cache for DeepSeek sparse "
                         "attention's indexer (index_head_dim); --engine vllm, sglang and "
                         "llama.cpp do");
    if (t->draft.name && s->pp > 1)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_PP],
                         "kvcalc splits a TensorRT-LLM draft's layers over no pipeline stages "
                         "(mapping.pp_layers not read): use 1");
    if (s->layout.full_kv_heads > 0 || s->layout.full_head_dim > 0 || s->layout.kv_shared_layers > 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_ENGINE],
                         "kvcalc does not model TensorRT-LLM's cache for layers of their own "
                         "head size or layers that share an earlier layer's cache "
                         "(global_head_dim, num_kv_shared_layers); --engine vllm, sglang and "
                         "llama.cpp do");
    if (t->enable_lora) {
        if (!t->lora_target_modules)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[TR_P_LORA_MODULES],
                             "TensorRT-LLM sizes its LoRA caches by the target modules: give "
                             "--lora-target-modules (attn_q, attn_k, attn_v, attn_dense, "
                             "mlp_h_to_4h, mlp_4h_to_h, mlp_gate, or all)");
        const char *kind = !s->arch.known || s->arch.hidden <= 0 || s->arch.intermediate <= 0
                               ? "a model kvcalc has no widths of"
                           : s->arch.experts > 0 ? "MoE experts"
                           : s->layout.mla       ? "MLA attention"
                           : s->pp > 1           ? "pipeline stages"
                                                 : NULL;
        if (kind)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[TR_P_LORA],
                             "kvcalc sizes TensorRT-LLM's LoRA caches for dense attention "
                             "models on one pipeline stage, not %s", kind);
        if (s->arch.heads % s->tp != 0 || s->kv_heads % s->tp != 0 ||
            s->arch.intermediate % s->tp != 0)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_TP],
                             "the heads and the MLP width must split over %lld ranks for the "
                             "LoRA modules' widths", (long long)s->tp);
    }
    return KV_OK;
}

/* ceil(context / tokens_per_block), without overflow for any int64 context. */
static int64_t blocks_for(int64_t context, int64_t tokens_per_block)
{
    return context / tokens_per_block + (context % tokens_per_block != 0);
}

static double trtllm_at(const kv_spec *s, const kv_result *r, int64_t context,
                        double request_bytes)
{
    (void)request_bytes; /* TensorRT-LLM counts blocks, not bytes */
    int64_t need = blocks_for(context, s->trtllm.tokens_per_block);
    return (double)(r->trtllm.blocks / need);
}

/* floor(primary / per token), or 0 when there is nothing to divide; refuses 2^62 or more. */
static kv_status token_budget(double primary, double per_token, int64_t *out)
{
    *out = 0;
    if (!(primary > 0) || !(per_token > 0))
        return KV_OK;
    double tokens = kvm_floor(primary / per_token);
    if (!(tokens < TRTLLM_TOKEN_LIMIT))
        return KV_ERR_RANGE;
    *out = (int64_t)tokens;
    return KV_OK;
}

/* A two-model draft (KvCacheCreator in tensorrt_llm/_torch/pyexecutor/_util.py @
 * d8ae02caed59708512e5aa578a09bb09f365bfed, NVIDIA/TensorRT-LLM; PR #3497): _cal_max_tokens
 * adds the draft's _get_cache_size_per_token to the target's - 2 B (1 with an fp8 KV cache in
 * its own quant config, not read: 2), x its attention layers of the stage, x head_dim x
 * num_key_value_heads // tp_size (the target's mapping), x 2 for K and V - and divides the
 * budget by the sum. The draft engine is loaded before the profile, so its weights (split by
 * the same TP) are out of the free memory. */
static void draft_terms(const kv_spec *s, kv_trtllm_result *t)
{
    const kv_draft *d = &s->trtllm.draft;
    t->draft_token_bytes = t->draft_weights_bytes = 0;
    t->draft_weights_estimated = d->name && d->weights_estimated;
    if (!d->name)
        return;
    int64_t per = d->head_dim * d->kv_heads / s->tp;
    t->draft_token_bytes = 2.0 * (double)d->layers * (double)per * 2.0;
    t->draft_weights_bytes = d->weights_bytes / (double)s->tp;
}

/* The PEFT caches (cpp/tensorrt_llm/batch_manager/peftCacheManager.cpp @ 0cedd9a0400c,
 * getPageManagerConfig, getMaxNumSlots, getDeviceCacheByteBudget; LoraCachePageManager::
 * initialize in cpp/tensorrt_llm/runtime/loraCache.cpp @ 063e02f73410). A module's width is
 * its input plus its output on this rank (the column-parallel q, k, v, h_to_4h and gate split
 * the output by TP, the row-parallel dense and 4h_to_h the input); a slot holds the narrowest
 * module's width; a page holds one adapter of rank optimal_adapter_size (8, at most the max
 * rank) in every layer and module, each row rounded up to whole slots, or one module at
 * max_adapter_size (64, at most the max rank) if that is more. The host cache takes
 * host_cache_size // slot bytes slots, the device cache device_cache_percent x the free memory
 * // slot bytes; each allocates whole pages at start. The device pages are made before the
 * KV cache measures what is free (trtGptModelInflightBatching.cpp @ 00825c4ee813 for the C++
 * runtime; the PyTorch executor profiles with its first copy alive, _util.py
 * configure_kv_cache_capacity), so the KV budget is the fraction of the free memory less
 * them. The C++ runtime of 2024 (0.11) made them after the KV cache, out of what it left:
 * not modelled. */
static void lora_caches(const kv_spec *s, kv_trtllm_result *t)
{
    const kv_trtllm_spec *in = &s->trtllm;
    /* one of q, k, v targets all three (missing_qkv_modules: "q_lora_params, k_lora_params and
     * v_lora_params should be all enabled or all disabled at the same time") */
    int mask = in->lora_target_modules;
    const int qkv = KV_TRTLLM_LORA_Q | KV_TRTLLM_LORA_K | KV_TRTLLM_LORA_V;
    if (mask & qkv)
        mask |= qkv;
    double h = (double)s->arch.hidden, tp = (double)s->tp;
    double q = (double)(s->arch.heads * s->head_dim), kv = (double)(s->kv_heads * s->head_dim);
    double mlp = (double)s->arch.intermediate;
    const struct {
        int bit;
        double width;
    } modules[] = {
        {KV_TRTLLM_LORA_Q, h + q / tp},         {KV_TRTLLM_LORA_K, h + kv / tp},
        {KV_TRTLLM_LORA_V, h + kv / tp},        {KV_TRTLLM_LORA_DENSE, q / tp + h},
        {KV_TRTLLM_LORA_H_TO_4H, h + mlp / tp}, {KV_TRTLLM_LORA_4H_TO_H, mlp / tp + h},
        {KV_TRTLLM_LORA_GATE, h + mlp / tp},
    };
    double narrow = 0, wide = 0, sum = 0, count = 0;
    for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
        if (mask & modules[i].bit) {
            double w = modules[i].width;
            count++;
            narrow = narrow == 0 || w < narrow ? w : narrow;
            wide = w > wide ? w : wide;
            sum += w;
        }
    double layers = (double)s->layers;
    double rank = (double)in->max_lora_rank;
    double optimal = rank < 8 ? rank : 8, largest = rank < 64 ? rank : 64;
    double rows = 0; /* slots of one optimal adapter: each layer's module rows in whole slots */
    for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
        if (mask & modules[i].bit)
            rows += optimal * kvm_ceil(modules[i].width / narrow);
    double per_page = layers * rows;
    double one_module = kvm_ceil(largest * wide / narrow);
    if (one_module > per_page)
        per_page = one_module;
    double b = kv_dtype_get(s->arch.base_dtype)->bytes;
    if (!(b >= 2))
        b = 2; /* the model's 16-bit dtype under a quantized checkpoint */
    double slot = narrow * b;
    t->lora_page_width = (int64_t)narrow;
    t->lora_slots_per_page = (int64_t)per_page;
    t->lora_max_size = largest * layers * sum;
    /* max_loras / max_cpu_loras (_util.py create_py_executor_instance): num_*_module_layer =
     * max_lora_rank x num_hidden_layers x modules x adapters, each module-layer as many slots
     * as the widest module needs (getMaxNumSlots) */
    double per_adapter = rank * layers * count * kvm_ceil(wide / narrow);
    double host_slots = in->max_cpu_loras.set ? per_adapter * (double)in->max_cpu_loras.value
                                              : kvm_floor(in->peft_host_cache_size / slot);
    double device_slots = in->max_loras.set
                              ? per_adapter * (double)in->max_loras.value
                              : kvm_floor(in->peft_device_cache_percent * t->free_bytes / slot);
    if (!(device_slots > 0))
        device_slots = 0;
    t->lora_host_used_bytes = host_slots * slot;
    t->lora_device_used_bytes = device_slots * slot;
    double host_pages = kvm_ceil(host_slots / per_page), device_pages = kvm_ceil(device_slots / per_page);
    t->lora_host_holds = (int64_t)kvm_floor(host_pages * per_page * narrow / t->lora_max_size);
    t->lora_device_holds = (int64_t)kvm_floor(device_pages * per_page * narrow / t->lora_max_size);
    t->lora_host_bytes = host_pages * per_page * slot;
    t->lora_device_bytes = device_pages * per_page * slot;
    double least = kvm_ceil(t->lora_max_size / narrow); /* "to hold 1 max sized LoRA" */
    t->lora_fits = host_slots >= least && device_slots >= least;
}

static kv_status trtllm_compute(const kv_spec *s, kv_result *r)
{
    const kv_trtllm_spec *in = &s->trtllm;
    kv_trtllm_result *t = &r->trtllm;
    draft_terms(s, t);
    t->free_estimated = !in->free_mem_gib.set;
    t->free_bytes = t->free_estimated ? r->free_kv_bytes - t->draft_weights_bytes
                                      : in->free_mem_gib.value * KV_GIB;
    t->lora_page_width = t->lora_slots_per_page = t->lora_host_holds = t->lora_device_holds = 0;
    t->lora_max_size = t->lora_host_used_bytes = t->lora_device_used_bytes = 0;
    t->lora_device_bytes = t->lora_host_bytes = 0;
    t->lora_fits = 1;
    if (in->enable_lora)
        lora_caches(s, t);
    t->primary_bytes = (t->free_bytes - t->lora_device_bytes) * in->fraction;
    /* every attention layer of this rank keeps each token (one pool, one window), and the
     * draft's layers theirs */
    t->per_token_bytes = r->kv_bytes_first_token + t->draft_token_bytes;
    kv_status st = token_budget(t->primary_bytes, t->per_token_bytes, &t->max_tokens);
    if (st != KV_OK)
        return st;
    t->capped = in->max_tokens.set && in->max_tokens.value < t->max_tokens;
    if (t->capped)
        t->max_tokens = in->max_tokens.value;
    t->tokens_per_block = in->tokens_per_block;
    t->blocks = blocks_for(t->max_tokens, in->tokens_per_block);
    t->tokens = t->blocks * in->tokens_per_block; /* < 2^62 + 2^20: no overflow */
    t->allocated_bytes = (double)t->tokens * t->per_token_bytes;
    t->blocks_per_request = blocks_for(s->context, in->tokens_per_block);
    t->max_concurrency = t->lora_fits ? (double)(t->blocks / t->blocks_per_request) : 0;
    /* the secondary (host) pool (KVCacheManager::calculateMaxNumBlocks,
     * cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp @ b35ac1b64368, NVIDIA/TensorRT-LLM):
     * maxTokensSecondary = SizeType32(hostCacheSize / cacheSizeBytesPerToken), blocks =
     * max(0, that / tokensPerBlock), allocated in pinned host memory on every rank; the
     * primary pool and the concurrency do not change (evicted blocks wait there for reuse) */
    t->secondary_blocks = 0;
    t->host_cache_bytes = 0;
    if (in->host_cache_size > 0 && t->per_token_bytes > 0) {
        double tokens = kvm_floor(in->host_cache_size / kvm_floor(t->per_token_bytes));
        if (!(tokens <= 2147483647.0)) /* past SizeType32: refused, not wrapped */
            return KV_ERR_RANGE;
        t->secondary_blocks = (int64_t)tokens / in->tokens_per_block;
        t->host_cache_bytes = (double)(t->secondary_blocks * in->tokens_per_block) * t->per_token_bytes;
    }

    r->max_concurrency = t->max_concurrency;
    r->engine_version[0] = '\0'; /* the release is not an input: its rules are one era's */
    r->available_kv_bytes = t->primary_bytes;
    r->kv_cache_bytes = t->allocated_bytes;
    r->kv_cache_tokens = t->tokens;
    r->longest_context_fit = t->tokens;
    r->estimated = t->free_estimated;
    r->host_bytes = (t->host_cache_bytes + t->lora_host_bytes) * (double)(s->tp * s->pp);
    return KV_OK;
}

/* The logged free memory was read at from's layout and GPU: at another it moves as
 * kvcalc's estimate of it does (GPU - weights per GPU - overhead), the reading's difference
 * from that estimate kept. Held fixed, every TP size would get the same pool. */
static void trtllm_relayout(const kv_spec *from, kv_spec *to, kv_compute_fn compute)
{
    if (!from->trtllm.free_mem_gib.set)
        return;
    kv_spec a = *from, b = *to;
    kv_result ea, eb;
    a.trtllm.free_mem_gib = b.trtllm.free_mem_gib = KV_NONE_NUM;
    if (compute(&a, &ea) != KV_OK || compute(&b, &eb) != KV_OK)
        return;
    double f = from->trtllm.free_mem_gib.value + (eb.trtllm.free_bytes - ea.trtllm.free_bytes) / KV_GIB;
    to->trtllm.free_mem_gib = KV_SOME_NUM(f > 0 ? f : 0);
}

/* ---- the descriptor: TensorRT-LLM's settings (docs/trtllm.md) and fields ---- */

static const kv_choice lora_modules[] = {
    {"attn_q", KV_TRTLLM_LORA_Q},          {"attn_k", KV_TRTLLM_LORA_K},
    {"attn_v", KV_TRTLLM_LORA_V},          {"attn_dense", KV_TRTLLM_LORA_DENSE},
    {"mlp_h_to_4h", KV_TRTLLM_LORA_H_TO_4H}, {"mlp_4h_to_h", KV_TRTLLM_LORA_4H_TO_H},
    {"mlp_gate", KV_TRTLLM_LORA_GATE},     {"all", KV_TRTLLM_LORA_ALL}, {NULL, 0}};

/* --lora-target-modules: TensorRT-LLM's module names, comma- or blank-separated, or all. */
static int lora_modules_parse(const char *text, int *out)
{
    return kv_choice_mask_parse(lora_modules, text, out);
}

static void lora_modules_format(int mask, char *buf, size_t cap)
{
    kv_choice_mask_format(lora_modules, KV_TRTLLM_LORA_ALL, mask, buf, cap);
}

#define E KV_ENGINE_TRTLLM
#define P(TYPE, m) KV_EPARAM(E, kv_trtllm_spec, TYPE, m)

static const kv_param params[TR_PARAMS] = {
    [TR_P_FRACTION] = {.name = "free-gpu-memory-fraction", P(NUM, fraction),
                       .key = "free_gpu_memory_fraction", .min = 0, .min_exclusive = 1, .max = 1,
                       .blames = KV_ERR_ENGINE_INPUT, .meta = "F",
                       .help = "share of the free memory for KV, below 1"},
    [TR_P_BLOCK] = {.name = "tokens-per-block", P(INT, tokens_per_block), .key = "tokens_per_block",
                    .min = 1, .max = 1048576, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                    .help = "tokens per KV block"},
    [TR_P_MAX_TOKENS] = {.name = "max-tokens", P(OPT_INT, max_tokens), .key = "max_tokens",
                         .min = 1, .tokens = 1, .max = 4e18, .blames = KV_ERR_ENGINE_INPUT,
                         .meta = "N", .help = "cap the KV cache at N tokens (KvCacheConfig.max_tokens)"},
    [TR_P_FREE] = {.name = "free-mem-gib", P(OPT_NUM, free_mem_gib), .key = "free_mem_gib",
                   .min = 0, .max = 1e12, .estimate = 1, .blames = KV_ERR_ENGINE_INPUT,
                   .meta = "GIB",
                   .help = "the log's \"available: F GiB\" [auto: GPU - weights - overhead, an "
                           "estimate]"},
    [TR_P_HOST_CACHE] = {.name = "host-cache-size", P(NUM, host_cache_size),
                         .key = "host_cache_size", .min = 0, .max = 1e18,
                         .blames = KV_ERR_ENGINE_INPUT, .meta = "BYTES",
                         .help = "KvCacheConfig.host_cache_size: bytes of each rank's secondary "
                                 "(host) pool [0: none]"},
    [TR_P_LORA] = {.name = "enable-lora", P(SWITCH, enable_lora), .key = "enable_lora",
                   .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                   .help = "the PEFT caches: device pages out of the KV budget, host pages"},
    [TR_P_LORA_RANK] = {.name = "max-lora-rank", P(INT, max_lora_rank), .key = "max_lora_rank",
                        .min = 1, .max = 65536, .blames = KV_ERR_ENGINE_INPUT, .meta = "R",
                        .help = "LoraConfig.max_lora_rank [64]"},
    [TR_P_LORA_MODULES] = {.name = "lora-target-modules", P(VERSION, lora_target_modules),
                           .key = "lora_target_modules", .blames = KV_ERR_ENGINE_INPUT,
                           .meta = "LIST",
                           .help = "targets, comma-separated: attn_q attn_k attn_v attn_dense "
                                   "mlp_h_to_4h mlp_4h_to_h mlp_gate, or all [none: needed with "
                                   "--enable-lora]",
                           .parse = lora_modules_parse, .format = lora_modules_format,
                           .accepts = "TensorRT-LLM module names (attn_q, ..., mlp_gate) or all"},
    [TR_P_PEFT_DEVICE] = {.name = "peft-device-cache-percent", P(NUM, peft_device_cache_percent),
                          .key = "peft_device_cache_percent", .min = 0, .max = 1,
                          .blames = KV_ERR_ENGINE_INPUT, .meta = "F",
                          .help = "PeftCacheConfig.device_cache_percent: the share of the free "
                                  "memory for LoRA pages [0.02]"},
    [TR_P_PEFT_HOST] = {.name = "peft-host-cache-size", P(NUM, peft_host_cache_size),
                        .key = "peft_host_cache_size", .min = 0, .max = 1e15,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "BYTES",
                        .help = "PeftCacheConfig.host_cache_size, bytes [1073741824]"},
    [TR_P_MAX_LORAS] = {.name = "max-loras", P(OPT_INT, max_loras), .key = "max_loras", .min = 1,
                        .max = 65536, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                        .help = "LoraConfig.max_loras: the device cache for N adapters of every "
                                "module at the max rank [none: the share]"},
    [TR_P_MAX_CPU_LORAS] = {.name = "max-cpu-loras", P(OPT_INT, max_cpu_loras),
                            .key = "max_cpu_loras", .min = 1, .max = 65536,
                            .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                            .help = "LoraConfig.max_cpu_loras: the host cache the same way "
                                    "[none: the bytes]"},
};

#define F(name, m, T, unit, ftype, sweep) KV_EFIELD(E, kv_trtllm_result, name, m, T, unit, ftype, sweep)
static const kv_field fields[] = {
    F(trtllm_free_bytes, free_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_free_estimated, free_estimated, int, "boolean", KV_F_BOOL, 0),
    F(trtllm_per_token_bytes, per_token_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_max_tokens, max_tokens, int64_t, "tokens", KV_F_INT, 2),
    F(trtllm_max_tokens_capped, capped, int, "boolean", KV_F_BOOL, 0),
    F(trtllm_tokens_per_block, tokens_per_block, int64_t, "tokens", KV_F_INT, 0),
    F(trtllm_blocks, blocks, int64_t, "blocks", KV_F_INT, 1),
    F(trtllm_blocks_per_request, blocks_per_request, int64_t, "blocks", KV_F_INT, 0),
    F(trtllm_draft_token_bytes, draft_token_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_draft_weights_bytes, draft_weights_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_draft_weights_estimated, draft_weights_estimated, int, "boolean", KV_F_BOOL, 0),
    F(trtllm_secondary_blocks, secondary_blocks, int64_t, "blocks", KV_F_INT, 0),
    F(trtllm_host_cache_bytes, host_cache_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_lora_page_width, lora_page_width, int64_t, "elements", KV_F_INT, 0),
    F(trtllm_lora_slots_per_page, lora_slots_per_page, int64_t, "slots", KV_F_INT, 0),
    F(trtllm_lora_max_size, lora_max_size, double, "elements", KV_F_NUM, 0),
    F(trtllm_lora_host_used_bytes, lora_host_used_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_lora_device_used_bytes, lora_device_used_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_lora_host_holds, lora_host_holds, int64_t, "adapters", KV_F_INT, 0),
    F(trtllm_lora_device_holds, lora_device_holds, int64_t, "adapters", KV_F_INT, 0),
    F(trtllm_lora_device_bytes, lora_device_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_lora_host_bytes, lora_host_bytes, double, "bytes", KV_F_NUM, 0),
    F(trtllm_lora_fits, lora_fits, int, "boolean", KV_F_BOOL, 0),
};

const kv_engine_desc kv_engine_trtllm = {
    .id = E,
    .title = "TensorRT-LLM",
    .budget_words = "TensorRT-LLM's free_gpu_memory_fraction of the free memory",
    .doc = "docs/trtllm.md",
    .defaults = trtllm_defaults,
    .check = trtllm_check,
    .range_words = "a TensorRT-LLM input is out of range (free GPU memory fraction in (0, 1), "
                   "tokens per block >= 1, free memory >= 0 and finite), or its token count "
                   "exceeds 2^62, or --host-cache-size holds more than 2^31 - 1 tokens "
                   "(TensorRT-LLM's SizeType32); kvcalc refuses rather than cap it",
    .compute = trtllm_compute,
    .concurrency_at = trtllm_at,
    .relayout = trtllm_relayout,
    .kv8_name = "fp8",
    .params = params,
    .n_params = TR_PARAMS,
    .draft_at = KV_DRAFT_AT(kv_trtllm_spec, draft),
    KV_TABLE(fields, fields),
};
