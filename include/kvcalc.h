/*
 * kvcalc.h - public API of the kvcalc sizing core.
 *
 * The core answers one question: given a model's KV-cache geometry, its weights and a GPU,
 * how many requests of a given context fit at once? It is pure: a kv_spec goes in, a
 * kv_result comes out, nothing is printed, nothing is allocated, there are no globals.
 * The command-line program (src/main.c) is a thin client: it parses argv into a spec, calls
 * kv_compute() and hands the result to a renderer.
 *
 * The arithmetic reproduces the lesson's calculator (kv-calc.py) bit for bit: integer
 * products are exact and converted to an IEEE double once (round-half-even), divisions use
 * Python's floor-division rules, and every operation happens in the same order.
 *
 * Units: bytes are bytes; GiB = 2^30 bytes; MiB = 2^20 bytes; "params_b" is billions
 * (10^9) of parameters; context and prefix lengths are tokens.
 */
#ifndef KVCALC_H
#define KVCALC_H

#include <stddef.h>
#include <stdint.h>

#define KVCALC_VERSION "1.0.0"

#define KV_GIB 1073741824.0 /* 2^30 bytes */
#define KV_MIB 1048576.0    /* 2^20 bytes */

/* ---- dtypes --------------------------------------------------------------------------- */

/* Element types for the KV cache and for the weights. The order is the order of the table
 * in dtype.c and of every list shown to users. */
typedef enum {
    KV_DTYPE_FP32,
    KV_DTYPE_FP16,
    KV_DTYPE_BF16,
    KV_DTYPE_FP8,
    KV_DTYPE_INT8,
    KV_DTYPE_INT4,
    KV_DTYPE_COUNT
} kv_dtype;

typedef struct {
    const char *name; /* "fp16" */
    double bytes;     /* bytes per element: 4, 2, 2, 1, 1, 0.5 */
} kv_dtype_info;

/* The row of the dtype table for d (d must be < KV_DTYPE_COUNT). */
const kv_dtype_info *kv_dtype_get(kv_dtype d);
/* Finds a dtype by exact name; returns 0 and sets *out, or -1 if the name is unknown. */
int kv_dtype_from_name(const char *name, kv_dtype *out);

/* ---- spec: everything the core needs -------------------------------------------------- */

typedef struct {
    int64_t layers;          /* num_hidden_layers, >= 1 */
    int64_t kv_heads;        /* num_key_value_heads, >= 1 */
    int64_t head_dim;        /* elements per head, >= 1 */
    kv_dtype dtype;          /* KV cache element type */
    double params_b;         /* model size in billions of parameters, >= 0 */
    kv_dtype weight_dtype;   /* element type the weights are loaded in */
    double gpu_mem_gib;      /* physical GPU memory in GiB, > 0 */
    double overhead_gib;     /* reserve for activations / CUDA context in GiB, >= 0 */
    int64_t context;         /* tokens per request (prompt + output), >= 1 */
    int64_t prefix_tokens;   /* length of a shared prompt prefix in tokens, >= 0 */
    int64_t prefix_requests; /* requests sharing that prefix, >= 1 */
} kv_spec;

/* Fills *s with the lesson's defaults: a 7B-class GQA model (28 layers, 4 KV heads,
 * head_dim 128, fp16) on a 48 GiB GPU with 2 GiB overhead, 4,096-token context, and
 * 50 requests sharing a 1,024-token prefix. */
void kv_spec_defaults(kv_spec *s);

/* ---- result --------------------------------------------------------------------------- */

/* The standard contexts of the context-vs-concurrency table, plus the user's own. */
#define KV_STD_CONTEXTS 6
#define KV_MAX_ROWS (KV_STD_CONTEXTS + 1)

typedef struct {
    int64_t context;             /* tokens */
    double kv_bytes_per_request; /* bytes */
    double max_concurrency;      /* whole requests (an integral double; 0 when !fits) */
    int is_setting;              /* 1 on the row of the user's --context */
} kv_row;

typedef struct {
    double kv_bytes_per_token;   /* 2 x layers x kv_heads x head_dim x dtype bytes */
    double kv_bytes_per_request; /* kv_bytes_per_token x context */
    double weights_bytes;        /* params_b x 1e9 x weight dtype bytes */
    double gpu_mem_bytes;        /* gpu_mem_gib x GiB */
    double overhead_bytes;       /* overhead_gib x GiB */
    double free_kv_bytes;        /* gpu - weights - overhead; may be <= 0 */
    int fits;                    /* 1 when free_kv_bytes > 0 */
    double max_concurrency;      /* floor(free / per request); integral; 0 when !fits */
    size_t n_rows;
    kv_row rows[KV_MAX_ROWS];    /* ascending context */
    double prefix_saved_bytes;   /* (prefix_requests - 1) x prefix_tokens x per token */
    double prefix_extra_concurrency; /* floor(saved / per request); 0 when !fits */
} kv_result;

/* Why kv_compute() refused a spec. Each value names the input to blame so the caller can
 * point the user at the right flag. */
typedef enum {
    KV_OK = 0,
    KV_ERR_LAYERS,          /* layers < 1 */
    KV_ERR_KV_HEADS,        /* kv_heads < 1 */
    KV_ERR_HEAD_DIM,        /* head_dim < 1 */
    KV_ERR_DTYPE,           /* dtype out of range */
    KV_ERR_PARAMS_B,        /* params_b negative, not finite, or weights overflow a double */
    KV_ERR_WEIGHT_DTYPE,    /* weight_dtype out of range */
    KV_ERR_GPU_MEM,         /* gpu_mem_gib <= 0, not finite, or overflows in bytes */
    KV_ERR_OVERHEAD,        /* overhead_gib negative, not finite, or overflows in bytes */
    KV_ERR_CONTEXT,         /* context < 1 */
    KV_ERR_PREFIX_TOKENS,   /* prefix_tokens < 0 */
    KV_ERR_PREFIX_REQUESTS, /* prefix_requests < 1 */
    KV_ERR_MEMORY_RANGE     /* gpu - weights - overhead is not a finite number */
} kv_status;

/* Computes *r from *s. Pure: no I/O, no allocation, no globals. Returns KV_OK, or the
 * status naming the offending input (and leaves *r unspecified). */
kv_status kv_compute(const kv_spec *s, kv_result *r);

/* A short English explanation of a status ("must be an integer >= 1", ...). */
const char *kv_status_message(kv_status st);

/* ---- exact arithmetic helpers (exposed for tests and renderers) ------------------------ */

/* The product of n unsigned 64-bit factors (n <= 4), computed exactly and rounded once to
 * the nearest double, ties to even - what Python does for float(a * b * c * d). */
double kv_exact_product(const uint64_t *factors, size_t n);

/* Python's float floor division a // b (b != 0), including its correction step. */
double kv_floordiv(double a, double b);

#endif /* KVCALC_H */
