/*
 * layout.h - internal helpers of the core shared by core.c and layout.c.
 */
#ifndef KVCALC_LAYOUT_H
#define KVCALC_LAYOUT_H

#include "kvcalc.h"

/* KV heads one GPU holds under tensor parallelism (see kv_spec.tp). */
int64_t kv_heads_per_gpu(const kv_spec *s);
/* Fills r->groups and r->n_groups for spec s (valid dtype and layout). */
void kv_fill_groups(const kv_spec *s, kv_result *r);
/* KV bytes of one request of `context` tokens, summed over r's groups. */
double kv_groups_request_bytes(const kv_result *r, int64_t context);
/* Bytes saved when `sharers` extra requests of `context` tokens reuse a prefix of
 * prefix_tokens tokens: full layers the whole prefix, windowed layers the part they still
 * hold at the context. */
double kv_groups_prefix_bytes(const kv_result *r, int64_t sharers, int64_t prefix_tokens,
                              int64_t context);

/* Fills r->vllm from s->vllm (vllm.c). Returns KV_OK, or KV_ERR_VLLM_RANGE when a block or
 * token count would exceed 2^63 - 1 (*out is then unspecified). */
kv_status kv_vllm_compute(const kv_spec *s, const kv_result *r, kv_vllm_result *out);

#endif
