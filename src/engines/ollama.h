/*
 * ollama.h - what Ollama's rules (ollama.c) and its descriptor (ollama_desc.c) share.
 */
#ifndef KVCALC_OLLAMA_H
#define KVCALC_OLLAMA_H

#include "engine.h"

#define OLLAMA_V(minor, patch) ((minor) * 100 + (patch))
#define OLLAMA_OLDEST OLLAMA_V(1, 48)       /* the oldest release kvcalc describes */
#define OLLAMA_LLAMA_SERVER OLLAMA_V(30, 0) /* 9db4bdba: upstream llama-server from here */

/* Ollama's parameters (ollama_desc.c), for the checks to blame. */
enum {
    OL_P_VERSION, OL_P_NUM_CTX, OL_P_PARALLEL, OL_P_FLASH, OL_P_CACHE_TYPE, OL_P_NUM_GPU,
    OL_P_BATCH, OL_P_LIBRARY, OL_P_AVAILABLE, OL_P_OVERHEAD, OL_P_GPUS, OL_P_PROJECTOR,
    OL_P_PROJECTOR_GRAPH, OL_PARAMS
};
extern const kv_param kv_ollama_params[OL_PARAMS];

void kv_ollama_defaults(kv_spec *s);
kv_status kv_ollama_check(const kv_spec *s, kv_error *why);
kv_status kv_ollama_compute(const kv_spec *s, kv_result *r);
double kv_ollama_at(const kv_spec *s, const kv_result *r, int64_t context, double request_bytes);
void kv_ollama_relayout(const kv_spec *from, kv_spec *to, kv_compute_fn compute);
void kv_ollama_kv8(kv_spec *s);
kv_status kv_ollama_sched(const kv_spec *s, const kv_result *r, kv_sched *out, kv_error *why);
/* A decode step's weights on the GPU, and what the layers left on the CPU read there */
double kv_ollama_step_reads(const kv_spec *s, const kv_result *r, double *block_bytes,
                            double *host);

/* Half the last digit Go's HumanBytes2 prints of x bytes ("%.1f GiB": 0.05 GiB). */
double kv_ollama_rounding(double x);

#endif
