/*
 * internal.h - the core's functions that the engines and the sizing layer share; not part
 * of the public API. The core knows the lesson's arithmetic and the model's layers; it
 * names no engine.
 */
#ifndef KVCALC_INTERNAL_H
#define KVCALC_INTERNAL_H

#include "kvcalc.h"

#include <stddef.h>

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

/* The lesson's defaults of every input of the spec but the engine's (kv_spec_defaults()
 * adds the engine). */
void kv_core_defaults(kv_spec *s);
/* The spec's own inputs are in range (the engine's are the engine's to check): KV_OK or
 * the status naming the input. */
kv_status kv_core_check(const kv_spec *s);
/* The model's layout is in range (pattern, window, chunk, latent). */
kv_status kv_core_check_layout(const kv_spec *s);
/* The lesson's figures of s into r: groups, per token and per request, weights, free
 * memory, the ideal packing and the prefix saving. s passed kv_core_check(). */
kv_status kv_core_compute(const kv_spec *s, kv_result *r);
/* The spec of pipeline stage i of s, given the whole replica's result: its layers (the
 * layout rotated to its first layer), the weights it holds as a checkpoint's bytes (its
 * share of the layers' weights, plus the embedding on the first stage and the head on the
 * last). */
void kv_core_stage_spec(const kv_spec *s, const kv_result *whole, int64_t i, kv_spec *out);
/* Bytes of the MoE experts among weights_group (the estimate's share; 0 for a dense or
 * unknown model). */
double kv_core_expert_bytes(const kv_spec *s, double weights_group);
/* Layers among [0, layers) that are MoE: i >= first_dense and (i + 1) % moe_step == 0 (0 for
 * a dense model). */
int64_t kv_moe_layer_count(const kv_arch *a, int64_t layers);
/* kv_estimate_params() and kv_estimate_weight_bytes() from parts already estimated. */
double kv_parts_params(const kv_param_parts *p);
double kv_parts_weight_bytes(const kv_arch *a, const kv_param_parts *p, kv_dtype weight_dtype);

/* The checkpoint storage a kv_quantization means: its dtype, which weights, and the bytes
 * per quantized weight when not a plain dtype's. */
void kv_quantization_apply(kv_spec *s);

/* printf into why->msg (why may be NULL), with its status and parameter; returns st. */
kv_status kv_refuse(kv_error *why, kv_status st, const struct kv_param *blamed,
                    const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The decimal digits of v at buf, no terminator; returns how many (1 to 20). For the
 * release names engines write into engine_version at every point of a sweep, where snprintf
 * cost more than the rest of llama.cpp's computation (issue 22). */
size_t kv_uint_digits(char *buf, uint64_t v);

/* A release kept as minor x 100 + patch, spelled "0.<minor>.<patch>" into buf by hand (the
 * patch left off when it is 0 and !patch_always: vLLM's "0.11"; Ollama always names it).
 * Returns 0, and writes nothing, for a negative release or cap < 16: the caller then
 * formats it the general way, as before. */
int kv_release_spell(int version, int patch_always, char *buf, size_t cap);

/* ---- typed table rows, checked by the compiler ---- */

/* The offset of member m of struct S, checked to have C type T: a wrong type does not
 * compile (a negative array size), so a row cannot write 8 bytes into a 4-byte member. */
#define KV_MEMBER(S, m, T)                                                                  \
    (offsetof(S, m) + 0 * sizeof(char[_Generic(((S *)0)->m, T: 1, default: -1)]))

/* A parameter's member and its size: of kv_spec for the core, of the engine's inputs. */
#define KV_PARAM_AT(S, m, T) .offset = KV_MEMBER(S, m, T), .size = sizeof(T)

/* The C type of each kv_type. */
#define KV_CTYPE_INT int64_t
#define KV_CTYPE_NUM double
#define KV_CTYPE_OPT_INT kv_opt_int
#define KV_CTYPE_OPT_NUM kv_opt_num
#define KV_CTYPE_DTYPE kv_dtype
#define KV_CTYPE_CHOICE int
#define KV_CTYPE_OPT_CHOICE kv_opt_int
#define KV_CTYPE_SWITCH int
#define KV_CTYPE_ENGINE kv_engine
#define KV_CTYPE_VERSION int

/* A row of the spec's own parameters: .type = KV_T_<TYPE>, the kv_spec member it writes. */
#define KV_CPARAM(TYPE, m)                                                                  \
    .type = KV_T_##TYPE, .engine = KV_ENGINE_COUNT, KV_PARAM_AT(kv_spec, m, KV_CTYPE_##TYPE)

/* The spec's own parameters, indexed by kv_core_param (spec_params.c). */
extern const kv_param kv_core_params[KV_CORE_PARAMS];

#endif
