/*
 * llamacpp.h - llama.cpp's rules (llamacpp.c) as an engine that runs llama-server itself
 * applies them (ollama.c from 0.30): to its own spec, with the flags it passes the server.
 * The spec's engine part is not read, so no copy of the spec is made to hold those flags
 * (2.8 KB copied and cleared at every point of a sweep: issue 22).
 */
#ifndef KVCALC_LLAMACPP_H
#define KVCALC_LLAMACPP_H

#include "engine.h"

/* llama.cpp's defaults: every optional flag not given, the newest build; and the dtype its
 * cache types follow when -ctk / -ctv are not given (f16, whatever the model's). */
void kv_llamacpp_spec_defaults(kv_llamacpp_spec *l, kv_dtype *dtype);
/* The descriptor's check and compute of a spec whose llama.cpp inputs are l and whose cache
 * dtype is dtype (the spec's own engine part and dtype unread). The compute reads the core's
 * figures of r (weights, GPU memory, reserve), writes the engine's answer into r's shared
 * members (max_concurrency, available_kv_bytes, ...) and llama.cpp's own result into *L, which
 * may be r's engine part or anywhere else. */
kv_status kv_llamacpp_check_as(const kv_spec *s, const kv_llamacpp_spec *l, kv_dtype dtype,
                               kv_error *why);
kv_status kv_llamacpp_compute_as(const kv_spec *s, const kv_llamacpp_spec *l, kv_dtype dtype,
                                 kv_result *r, kv_llamacpp_result *L);

/* The first build whose slot prompt reuse the workload simulates (llamacpp_sched). */
int64_t kv_llamacpp_prompt_reuse_build(void);

#endif
