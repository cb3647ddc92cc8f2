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
#include "internal.h"

#include <math.h>
#include <stdio.h>

/* Token counts stay below 2^62 so that rounding up to a block (< 2^20 tokens) cannot
 * overflow an int64. */
#define TRTLLM_TOKEN_LIMIT 4611686018427387904.0 /* 2^62 */
#define TRTLLM_MAX_BLOCK 1048576

void kv_trtllm_defaults(kv_trtllm_spec *t)
{
    t->fraction = 0.9;       /* KvCacheConfig.free_gpu_memory_fraction */
    t->tokens_per_block = 32; /* LLM API and trtllm-serve */
    t->max_tokens = 0;
    t->free_mem_gib = -1;
}

static kv_status trtllm_check(const kv_spec *s)
{
    const kv_trtllm_spec *t = &s->trtllm;
    /* TensorRT-LLM asserts the fraction is below 1: the rest is left to other allocations */
    if (!(t->fraction > 0 && t->fraction < 1))
        return KV_ERR_TRTLLM;
    if (t->tokens_per_block < 1 || t->tokens_per_block > TRTLLM_MAX_BLOCK)
        return KV_ERR_TRTLLM;
    if (t->max_tokens < 0 || (double)t->max_tokens >= TRTLLM_TOKEN_LIMIT)
        return KV_ERR_TRTLLM;
    if (!isfinite(t->free_mem_gib) || t->free_mem_gib > 1e12)
        return KV_ERR_TRTLLM;
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
    double tokens = floor(primary / per_token);
    if (!(tokens < TRTLLM_TOKEN_LIMIT))
        return KV_ERR_TRTLLM;
    *out = (int64_t)tokens;
    return KV_OK;
}

static kv_status trtllm_compute(const kv_spec *s, kv_result *r)
{
    const kv_trtllm_spec *in = &s->trtllm;
    kv_trtllm_result *t = &r->trtllm;
    t->free_estimated = in->free_mem_gib < 0;
    t->free_bytes = t->free_estimated ? r->free_kv_bytes : in->free_mem_gib * KV_GIB;
    t->primary_bytes = t->free_bytes * in->fraction;
    /* every attention layer of this rank keeps each token (one pool, one window) */
    t->per_token_bytes = r->kv_bytes_first_token;
    kv_status st = token_budget(t->primary_bytes, t->per_token_bytes, &t->max_tokens);
    if (st != KV_OK)
        return st;
    t->capped = in->max_tokens > 0 && in->max_tokens < t->max_tokens;
    if (t->capped)
        t->max_tokens = in->max_tokens;
    t->tokens_per_block = in->tokens_per_block;
    t->blocks = blocks_for(t->max_tokens, in->tokens_per_block);
    t->tokens = t->blocks * in->tokens_per_block; /* < 2^62 + 2^20: no overflow */
    t->allocated_bytes = (double)t->tokens * t->per_token_bytes;
    t->blocks_per_request = blocks_for(s->context, in->tokens_per_block);
    t->max_concurrency = (double)(t->blocks / t->blocks_per_request);

    r->max_concurrency = t->max_concurrency;
    r->engine_version[0] = '\0'; /* the release is not an input: its rules are one era's */
    r->available_kv_bytes = t->primary_bytes;
    r->kv_cache_bytes = t->allocated_bytes;
    r->kv_cache_tokens = t->tokens;
    r->longest_context_fit = t->tokens;
    return KV_OK;
}

const kv_engine_ops kv_engine_trtllm_ops = {"trtllm", trtllm_check, trtllm_compute, trtllm_at,
                                          "fp8", NULL};
