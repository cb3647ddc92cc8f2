/*
 * engine.h - the one interface every serving engine implements.
 *
 * The core computes the lesson's figures (KV per token and per request, weights, free
 * memory, the ideal packing); an engine turns them into its own answer: how many whole
 * requests of a context it holds at once. One file per engine (ideal.c, vllm.c) fills one
 * kv_engine_ops; engines.c lists them by kv_engine. Adding an engine is a new file, a row
 * there, its enum value and result struct in kvcalc.h, and its flags and section in the CLI.
 */
#ifndef KVCALC_ENGINE_H
#define KVCALC_ENGINE_H

#include "kvcalc.h"

typedef struct {
    const char *name; /* as --engine takes it */
    /* The engine's own inputs are in range (KV_OK, or the status that names them). */
    kv_status (*check)(const kv_spec *s);
    /* Fills the engine's part of r (its lesson figures are already there) and sets
     * r->max_concurrency: whole requests of s->context held at once. */
    kv_status (*compute)(const kv_spec *s, kv_result *r);
    /* Whole requests of `context` tokens (whose KV is request_bytes), from the result of
     * kv_compute(s) - the table's rows. Equals compute()'s answer when context == s->context. */
    double (*concurrency_at)(const kv_spec *s, const kv_result *r, int64_t context,
                             double request_bytes);
    /* The lever "an 8-bit KV cache": its name and how to set it on a copy of the spec
     * (NULL: the spec's dtype becomes fp8). llama.cpp has no fp8 cache; it has q8_0. */
    const char *kv8_name;
    void (*kv8)(kv_spec *s);
} kv_engine_ops;

extern const kv_engine_ops kv_engine_ideal_ops;
extern const kv_engine_ops kv_engine_vllm_ops;
extern const kv_engine_ops kv_engine_sglang_ops;
extern const kv_engine_ops kv_engine_trtllm_ops;
extern const kv_engine_ops kv_engine_llamacpp_ops;

/* The engine of e, or NULL when e is out of range. */
const kv_engine_ops *kv_engine_get(kv_engine e);

#endif
