/*
 * internal.h - helpers the core and the engines share; not part of the public API.
 */
#ifndef KVCALC_INTERNAL_H
#define KVCALC_INTERNAL_H

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
                              int64_t context, int *clipped);


#endif
