/*
 * kvcalc.h - the stable public API of libkvcalc, the KV cache sizing library.
 *
 * The library answers one question: given a model's KV-cache geometry, its weights and a
 * GPU, how many requests of a given context fit at once - by the lesson's arithmetic or by
 * the rules of a serving engine (vLLM, SGLang, TensorRT-LLM, llama.cpp). It is pure: a
 * kv_spec goes in, a kv_result comes out; nothing is printed, there are no globals, and it
 * never speaks for a program: functions return a kv_status and, where a sentence helps, a
 * message without any program's name. It also reads models (config.json, safetensors and
 * GGUF headers, the built-in presets), knows GPUs and reads engines' startup logs.
 *
 * Sections: version and units; status and errors; dtypes; model layout; engines; optional
 * values; spec; result; schema (parameters and fields); computing; planning; models and
 * GPUs; startup logs; helpers.
 *
 * What is stable: every declaration here keeps its meaning and, within one SONAME, its
 * layout. Each engine's own inputs and results (vLLM's utilization, llama.cpp's cache
 * lines, ...) are not stable: they change with the engines and live in kvcalc_engines.h,
 * which a program opts into by defining KVCALC_ENGINES before including this header (as
 * zstd's ZSTD_STATIC_LINKING_ONLY). kv_spec and kv_result keep a fixed-size space for them
 * either way, so both kinds of callers agree on every struct's size. A program that stays
 * with this header reaches engine inputs and outputs through the schema (kv_param,
 * kv_field) by name.
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

#include "kvcalc_version.h" /* KVCALC_VERSION, generated from CMake project() */

/* KVCALC_API marks what the shared library exports; everything else is hidden. */
#if defined(_WIN32) && defined(KVCALC_BUILDING)
#define KVCALC_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define KVCALC_API __attribute__((visibility("default")))
#else
#define KVCALC_API
#endif

/* ---- version and units ------------------------------------------------------------------ */

#define KV_GIB 1073741824.0 /* 2^30 bytes */
#define KV_MIB 1048576.0    /* 2^20 bytes */

/* The library's version ("6.0.0"), which may differ from the header's KVCALC_VERSION when
 * a program runs against a newer shared library of the same SONAME. */
KVCALC_API const char *kv_version(void);

/* ---- status and errors ------------------------------------------------------------------ */

/* What a library call returns: KV_OK, or why it refused. Each value of a spec check names
 * the input to blame (kv_explain() says which parameter and why). */
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
    KV_ERR_MEMORY_RANGE,    /* gpu - weights - overhead is not a finite number */
    KV_ERR_LAYOUT,          /* a layout field out of range (pattern, window, latent) */
    KV_ERR_TP,              /* tp < 1, or it does not divide the attention / KV heads */
    KV_ERR_PARALLEL,        /* pp < 1 or more stages than layers, dp < 1 */
    KV_ERR_ENGINE_UNKNOWN,  /* engine is not a kv_engine */
    KV_ERR_ENGINE_INPUT,    /* the chosen engine refuses an input: out of its range, or a
                               rule it enforces (kv_explain() gives its own words) */
    KV_ERR_RANGE,           /* a block, token or GPU count would exceed what 64 bits hold;
                               refused rather than capped */
    KV_ERR_TARGET,          /* the plan for a target needs more than 2^63 - 1 GPUs */
    KV_ERR_FILE,            /* a file cannot be opened or read */
    KV_ERR_FORMAT,          /* a file's content is malformed or not what was expected */
    KV_ERR_NOT_FOUND,       /* a model, GPU or other name that is not known */
    KV_ERR_NO_MEMORY,       /* an allocation failed */
    KV_ERR_WEIGHTS_UNKNOWN, /* the model's config names a part the parameter estimate cannot
                               count (arch.unknown) and no weights were given: refused
                               rather than sized with a default */
    KV_ERR_WORKLOAD,        /* a workload input that cannot run, or an engine whose scheduler
                               is not simulated (the call's kv_error says which) */
    KV_STATUS_COUNT
} kv_status;

/* A short English explanation of a status ("must be an integer >= 1", ...). */
KVCALC_API const char *kv_status_message(kv_status st);

struct kv_param; /* a spec input (schema section) */

/* Why a call refused, for a program to show: the status, the input to blame (a parameter,
 * or NULL when no single one is) and one sentence without a program's name and without the
 * blamed input's name (the caller names it as its user spelled it). */
#define KV_ERROR_MAX 1024
typedef struct {
    kv_status code;
    const struct kv_param *blamed;
    char msg[KV_ERROR_MAX];
} kv_error;

/* ---- dtypes ----------------------------------------------------------------------------- */

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
KVCALC_API const kv_dtype_info *kv_dtype_get(kv_dtype d);
/* Finds a dtype by its name or another spelling of it (float16, bfloat16, fp8_e4m3,
 * fp8_e5m2, ...); returns 0 and sets *out, or -1 if the name is unknown. */
KVCALC_API int kv_dtype_from_name(const char *name, kv_dtype *out);
/* The i-th other spelling kv_dtype_from_name() accepts, or NULL past the last (for help
 * texts and completions). */
KVCALC_API const char *kv_dtype_spelling(size_t i);

/* ---- model layout: what each layer keeps ------------------------------------------------ */

/* How one layer holds a request's context. */
typedef enum {
    KV_LAYER_FULL,     /* attention over every token: grows with the context */
    KV_LAYER_SLIDING,  /* sliding-window attention: at most `window` tokens */
    KV_LAYER_CHUNKED,  /* chunked local attention (Llama-4): at most `chunk` tokens */
    KV_LAYER_STATE,    /* Mamba / linear attention: a fixed state per request, no growth */
    KV_LAYER_KINDS
} kv_layer_kind;

#define KV_MAX_PATTERN 1024 /* longest explicit per-layer list (config layer_types) */

/* What a config.json says beyond the three lesson numbers. All zero = the lesson's model:
 * every layer full attention, K and V per KV head. */
typedef struct {
    int mla;               /* 1: attention layers cache one latent vector per token (MLA) */
    int64_t mla_latent;    /* elements of that vector: kv_lora_rank + qk_rope_head_dim */
    size_t pattern_len;    /* 0: every layer is KV_LAYER_FULL */
    unsigned char pattern[KV_MAX_PATTERN]; /* layer i is pattern[i % pattern_len] */
    int64_t window;        /* tokens a sliding layer keeps */
    int64_t chunk;         /* tokens a chunked layer keeps */
    int64_t state_elems;   /* elements of state one KV_LAYER_STATE layer keeps per request;
                              < 0: the config does not say (counted as 0, and reported) */
    /* kvcalc 4: the layer kinds of 2025-26 models (zero: none of them). */
    int64_t state_conv_elems; /* of state_elems: the convolution state (llama.cpp's R, the
                                 engines' conv_state); the rest is the SSM / recurrent state
                                 (S, temporal_state). 0 with state_elems > 0: not split */
    int state_ssm_f32;     /* 1: the config asks for a float32 SSM state (mamba_ssm_cache_dtype
                              / mamba_ssm_dtype "float32"); 0: the model's dtype */
    int64_t index_dim;     /* DeepSeek sparse attention: the indexer's key elements per token
                              and attention layer (index_head_dim); 0: no indexer */
    int64_t kv_shared_layers; /* trailing layers that reuse an earlier layer's cache and keep
                                 none of their own (num_kv_shared_layers: Gemma-3n, Gemma-4's
                                 small models) */
    int64_t full_kv_heads, full_head_dim; /* full-attention layers' own KV heads and head
                                 size when they differ from the others' (Gemma-4:
                                 num_global_key_value_heads, global_head_dim); 0: the same */
    /* kvcalc 6: DeepSeek-V4's compressed attention (compress_ratios; all zero: none). Every
     * layer keeps its last csa_window tokens as fp8_ds_mla entries of kv_csa_entry_bytes();
     * csa_c4 layers also keep one entry for every 4 tokens, an indexer key of
     * csa_index_dim fp8 bytes and its scales for each, and their compressors' float32
     * states; csa_c128 layers one entry for every 128 tokens and their compressor's state.
     * The spec's head_dim is the entry's width, its kv_heads 1. */
    int64_t csa_c4, csa_c128, csa_window, csa_index_dim;
    /* kvcalc 6: a parallel hybrid (Falcon-H1; 0: none). 1: every layer runs a Mamba-2 mixer
     * beside its attention and keeps both a cache and a state of state_elems, so it counts
     * once among the attention kinds (pattern) and once as KV_LAYER_STATE (kv_layer_counts
     * gives the state kind every layer too). */
    int parallel_state;
} kv_layout;

/* How a vision / audio tower hands its output to the language model (the projector). */
typedef enum {
    KV_TOWER_VIT,     /* generic encoder: one linear map, tower width x merge^2 -> text */
    KV_TOWER_SIGLIP,  /* Gemma-3: SigLIP + RMSNorm + one matrix, vision -> text hidden */
    KV_TOWER_QWEN_VL, /* Qwen2.5/3-VL: patch mergers (norm, merged x merged, merged -> out),
                         one per deepstack level besides the final one */
    KV_TOWER_PIXTRAL, /* Mistral-3: RMSNorm, patch merger (merged -> width), 2-layer MLP */
    KV_TOWER_LLAMA4,  /* Llama-4: pixel-shuffle MLP adapter, then one linear projector */
    KV_TOWER_GEMMA4   /* Gemma-4: four RMSNorms a block, 2-D position tables, one matrix
                         into the text model */
} kv_tower_kind;

/* A vision or audio encoder and its projector, from vision_config / audio_config; counted
 * by the parameter estimate when hidden, intermediate and layers are all > 0. */
typedef struct {
    int kind;                   /* kv_tower_kind */
    int64_t hidden;             /* encoder width */
    int64_t intermediate;       /* encoder MLP width */
    int64_t layers;             /* encoder blocks (num_hidden_layers / depth) */
    int gated;                  /* MLP is gate/up/down (SwiGLU: Qwen2.5-VL, Pixtral), else
                                   fc1/fc2 */
    int bias;                   /* attention and MLP projections carry biases */
    int rms_norm;               /* RMSNorm (a weight) instead of LayerNorm (weight + bias) */
    int64_t patch_inputs;       /* inputs of one patch: channels x patch^2 (x temporal patch) */
    int patch_bias;             /* the patch embedding carries a bias */
    int64_t positions;          /* learned position embeddings; 0 = rotary only */
    int64_t merge;              /* patches merged per side before the projector; >= 1 */
    int64_t mergers;            /* Qwen-VL: patch mergers (1 + deepstack levels) */
    int64_t adapter_in, adapter_out; /* Llama-4: projector_input_dim, projector_output_dim */
    int64_t out;                /* projector output width (out_hidden_size; else text hidden) */
    int proj_bias;              /* the projector's linear layers carry biases */
} kv_tower;

/* The mixer of a model's state layers, for the parameter estimate. */
typedef enum {
    KV_MIXER_NONE,       /* no state layers, or none the estimate counts */
    KV_MIXER_MAMBA2,     /* Mamba-2: in_proj, conv1d, A_log / D / dt_bias, gated norm, out_proj */
    KV_MIXER_MAMBA1,     /* Mamba-1 (Jamba): in_proj, conv1d, x_proj, dt_proj, A_log / D */
    KV_MIXER_GDN,        /* gated delta net (Qwen3-Next, Qwen3.5): in_proj_qkvz / _ba, conv1d,
                            A_log / dt_bias, norm, out_proj */
    KV_MIXER_SHORT_CONV, /* LFM2's short convolution: in_proj (3 x hidden), conv, out_proj */
    KV_MIXER_KDA         /* Kimi delta attention (Kimi-Linear): its state as a gated delta net's
                            of num_heads x head_dim keys and values; its tensors not counted */
} kv_mixer_kind;

/* A state layer's mixer by its config numbers (those its kind uses; the rest 0). */
typedef struct {
    int kind;                  /* kv_mixer_kind */
    int64_t heads, head_dim;   /* Mamba-2: mamba_num_heads x mamba_head_dim = inner */
    int64_t inner;             /* channels (Mamba-1: expand x hidden; Mamba-2 heads x head_dim) */
    int64_t d_state, groups;   /* SSM state size N and groups G */
    int64_t conv_kernel;       /* convolution width */
    int conv_bias, proj_bias;  /* conv1d and in / out projections carry biases */
    int64_t dt_rank;           /* Mamba-1: the dt projection's rank */
    int64_t key_heads, key_dim, value_heads, value_dim; /* gated delta net */
    int64_t chunk_size;        /* the SSM kernels' chunk (mamba_chunk_size, chunk_size; 2048 when
                                  the config has none: vLLM's get_mamba_chunk_size) */
    int no_norm;               /* Mamba-2 without its gated RMSNorm (Falcon-H1's mamba_rms_norm
                                  false: nn.Identity) */
} kv_mixer;

/* Architecture numbers for the parameter estimate (weights when params_b is not given). */
typedef struct {
    int known;                  /* 0: no estimate; params_b is used */
    int64_t hidden;             /* hidden_size */
    int64_t heads;              /* num_attention_heads */
    int64_t intermediate;       /* intermediate_size (dense MLP, and MoE experts by default) */
    int64_t dense_intermediate; /* MLP width of dense layers in MoE models (Llama-4); 0 = same */
    int64_t vocab;              /* vocab_size */
    int tie_embeddings;         /* 1: the output head shares the embedding matrix */
    int qkv_bias, o_bias;       /* attention projection biases */
    int64_t experts;            /* routed experts per MoE layer; 0 = dense model */
    int64_t moe_intermediate;   /* expert MLP width; 0 = intermediate */
    int64_t shared_experts;     /* always-on experts of width moe_intermediate */
    int64_t experts_per_token;  /* routed experts a token goes through (num_experts_per_tok);
                                   0 = not given */
    int64_t shared_intermediate;/* one always-on expert of this width (Llama-4); 0 = none */
    int64_t first_dense;        /* leading dense layers (first_k_dense_replace) */
    int64_t moe_step;           /* layer i is MoE when (i + 1) % moe_step == 0; >= 1 */
    int expert_bias;            /* experts and router carry biases (gpt-oss) */
    int64_t q_lora_rank;        /* MLA: 0 = full-rank query */
    int64_t kv_lora_rank, qk_nope_dim, qk_rope_dim, v_head_dim; /* MLA projections */
    int quant_scope;            /* which weights weight_dtype applies to (kv_quant_scope) */
    double quant_bytes;         /* bytes per quantized weight when the format is not a plain
                                   dtype (mxfp4: 4.25 bits = 0.53125); 0 = weight_dtype's */
    kv_dtype base_dtype;        /* dtype of the weights that stay unquantized */
    int vision_tower;           /* 1: the config has a vision or audio tower (SGLang shrinks
                                   its default mem_fraction_static for such models) */
    kv_tower vision, audio;     /* the towers, for the estimate (all zero: none) */
    /* kvcalc 4: the mixers and small parts of 2025-26 models, counted exactly. */
    kv_mixer mixer;             /* the state layers' mixer (kind KV_MIXER_NONE: no state layers) */
    int attn_gate;              /* q_proj also makes a per-head output gate: twice as wide
                                   (Qwen3-Next, Qwen3.5 attn_output_gate) */
    int qk_norm;                /* q_norm and k_norm per attention layer: 1, head_dim weights
                                   each (Qwen3, Qwen3.5, Gemma-3); 2, the whole projection's,
                                   heads x head_dim and KV heads x head_dim (OLMo-2, OLMo-3) */
    int attn_sinks;             /* one learned sink logit per head per attention layer (gpt-oss) */
    int mlp_plain;              /* MLPs and experts are up and down only, no gate (relu2:
                                   Nemotron-H) */
    int64_t blocks_attention, blocks_mixer, blocks_moe, blocks_mlp; /* Nemotron-H: blocks of
                                   hybrid_override_pattern by kind, each with one norm (all 0:
                                   the layers are transformer blocks) */
    int router_bias;            /* the MoE router has a per-expert score bias
                                   (e_score_correction_bias: DeepSeek-V3, GLM, Nemotron-H) */
    int64_t index_heads;        /* DeepSeek sparse attention: the indexer's heads (index_n_heads) */
    int mtp_own_embeddings;     /* each MTP layer stores its own embedding and output head
                                   (DeepSeek-style num_nextn_predict_layers) */
    int64_t norms_per_layer;    /* norms of each layer; 0: two (the Gemmas have four) */
    int moe_with_dense;         /* MoE layers keep a dense MLP beside the experts (Gemma-4
                                   enable_moe_block) */
    int attn_k_eq_v;            /* full layers take V from K: no v_proj (Gemma-4) */
    int64_t mtp_layers;         /* MTP / next-n layers the checkpoint holds (num_nextn_predict_
                                   layers, mtp_num_hidden_layers); engines load them only for
                                   speculative decoding */
    int64_t ple_dim, ple_vocab; /* Gemma-4's per-layer embeddings (hidden_size_per_layer_input,
                                   vocab_size_per_layer_input); 0: none */
    int double_wide_mlp;        /* Gemma-4: the KV-shared layers' MLPs are twice as wide
                                   (use_double_wide_mlp) */
    char unknown[64];           /* "" or the config field the estimate cannot count (an unknown
                                   mixer or quant_method): the weights must then be given */
    char architecture[64];      /* config.json architectures[0] ("DeepseekV3ForCausalLM"),
                                   which some engines' rules name; "": not stated */
} kv_arch;

/* How a checkpoint not described by its config is stored (vLLM's and SGLang's
 * --quantization names). The linear layers are quantized; embeddings, the output head and
 * norms keep the model's dtype (mxfp4: the MoE experts only). */
typedef enum {
    KV_QUANTIZATION_NONE = -1,    /* as the model says */
    KV_QUANTIZATION_FP8,          /* fp8: 1 byte per linear weight */
    KV_QUANTIZATION_INT8,         /* w8a8 int8 */
    KV_QUANTIZATION_AWQ,          /* awq: 4-bit */
    KV_QUANTIZATION_GPTQ,         /* gptq: 4-bit */
    KV_QUANTIZATION_BITSANDBYTES, /* bitsandbytes: 4-bit */
    KV_QUANTIZATION_MXFP4,        /* mxfp4: 4.25 bits per MoE expert weight */
    KV_QUANTIZATION_COUNT
} kv_quantization;

/* Which weights of a quantized checkpoint are stored in the quantized type. */
typedef enum {
    KV_QUANT_ALL,     /* every parameter (a plain checkpoint, or --weight-dtype given) */
    KV_QUANT_LINEAR,  /* linear layers; embeddings, output head and norms stay 16-bit */
    KV_QUANT_EXPERTS  /* only the MoE experts (gpt-oss mxfp4) */
} kv_quant_scope;

/* The parameter estimate by part. */
typedef struct {
    double embeddings; /* input embeddings + output head */
    double attention;  /* attention or MLA projections */
    double dense_mlp;  /* MLPs of dense layers */
    double experts;    /* routed and shared experts */
    double other;      /* norms, routers, biases */
    double vision;     /* vision tower: encoder, patch / position embeddings, projector */
    double audio;      /* audio tower, counted the same way (its conv front end is not) */
    double mixers;     /* the state layers' mixers (Mamba, gated delta net, short conv) */
    double mtp;        /* MTP / next-n layers: in the checkpoint, not in the total (engines
                          load them only for speculative decoding) */
} kv_param_parts;

/* ---- engines ---------------------------------------------------------------------------- */

/* The serving engines, in the order of kvcalc_engines.def (the one list of them). */
typedef enum {
#define KV_ENGINE(ID, id, name) KV_ENGINE_##ID,
#include "kvcalc_engines.def"
#undef KV_ENGINE
    KV_ENGINE_COUNT
} kv_engine;

#define KV_MAX_ENGINES 16 /* room in the structs that hold a value per engine */

/* The name --engine takes ("ideal", "vllm", "llama.cpp"), or NULL for a value out of range. */
KVCALC_API const char *kv_engine_name(kv_engine e);
/* The engine's own spelling of itself ("vLLM", "llama.cpp"), or NULL. */
KVCALC_API const char *kv_engine_title(kv_engine e);
/* An engine by its name or one of its aliases ("llamacpp"); returns 0 and sets *out, or -1. */
KVCALC_API int kv_engine_find(const char *name, kv_engine *out);
/* kvcalc's page on engine e ("docs/vllm.md"), or NULL. */
KVCALC_API const char *kv_engine_doc(kv_engine e);
/* What engine e calls the memory its KV cache fills ("vLLM's \"Available KV cache memory\"");
 * NULL when it sizes the cache from its settings (llama.cpp's -c and -np), not the memory. */
KVCALC_API const char *kv_engine_budget_words(kv_engine e);
/* The i-th alias of engine e ("llamacpp" for llama.cpp), or NULL past the last. */
KVCALC_API const char *kv_engine_alias(kv_engine e, size_t i);

/* ---- optional values -------------------------------------------------------------------- */

/* An input that may be left out: set 0 means "not given" - the engine's default or
 * kvcalc's estimate applies, and the result says which - set 1 means `value`. Explicit, so
 * that no reader has to remember that -1, 0 or NaN meant "not given" for this one. */
typedef struct {
    double value;
    int set;
} kv_opt_num;
typedef struct {
    int64_t value;
    int set;
} kv_opt_int;

#define KV_SOME_NUM(x) ((kv_opt_num){(x), 1})
#define KV_SOME_INT(x) ((kv_opt_int){(x), 1})
#define KV_NONE_NUM ((kv_opt_num){0, 0})
#define KV_NONE_INT ((kv_opt_int){0, 0})

/* ---- spec: everything the computation needs --------------------------------------------- */

/* Room for the chosen engine's own inputs and results inside kv_spec and kv_result: fixed,
 * so that the structs keep their size whichever engines exist (kvcalc_engines.h checks that
 * each engine's struct fits). */
#define KV_ENGINE_SPEC_SPACE 768
#define KV_ENGINE_RESULT_SPACE 1536
typedef union {
    unsigned char bytes[KV_ENGINE_SPEC_SPACE];
    double align_d;
    int64_t align_i;
    void *align_p;
} kv_engine_spec_space;
typedef union {
    unsigned char bytes[KV_ENGINE_RESULT_SPACE];
    double align_d;
    int64_t align_i;
    void *align_p;
} kv_engine_result_space;

struct kv_gguf_info; /* a GGUF header's per-layer numbers (models section) */

typedef struct kv_spec kv_spec;
typedef struct kv_result kv_result;

/* One kind of cache group of a scheduler (the workload section below): blocks a request of
 * n tokens holds in it are `groups` x min(ceil(n / block_size), cap_blocks) (cap 0: no
 * cap), or `groups` x cap_blocks from its first token for a state (`fixed`). An engine's
 * result keeps its groups in this form. */
#define KV_SCHED_MAX_GROUPS 8 /* DeepSeek-V4 has 5 in vLLM */
typedef struct {
    int64_t groups;
    int64_t block_size;
    int64_t cap_blocks;
    int fixed;
    int64_t window; /* KV_SCHED_PAGED: tokens a layer of the group attends to (a sliding
                       window); the blocks wholly before the window of a step go back to the
                       pool (vLLM's remove_skipped_blocks); 0: none, blocks are kept */
    int64_t chunk;  /* KV_SCHED_PAGED: chunked local attention's chunk; the blocks wholly
                       before the chunk a step starts in go back to the pool; 0: none */
} kv_sched_group;

#ifdef KVCALC_ENGINES
#include "kvcalc_engines.h" /* the per-engine structs, for the members below */
#endif

struct kv_spec {
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
    kv_layout layout;        /* per-layer behaviour (zero: the lesson's plain model) */
    kv_arch arch;            /* for the parameter estimate */
    int params_estimated;    /* 1: weights from the arch estimate instead of params_b */
    int quantization;        /* a kv_quantization the checkpoint is stored in (kv_spec_set()
                                applies it to weight_dtype and arch); KV_QUANTIZATION_NONE:
                                as the model */
    int64_t tp;              /* tensor-parallel size, >= 1: every figure becomes per GPU */
    int64_t pp;              /* pipeline stages, >= 1 (at most layers): each GPU holds its
                                stage's layers, KV and weights; the stage that holds the
                                fewest requests answers (per-GPU figures are that stage's) */
    int64_t dp;              /* data-parallel replicas, >= 1: the deployment holds dp x the
                                replica's requests (deployment_max_concurrency) */
    int expert_parallel;     /* 1: MoE experts are split across the tp x dp GPUs instead of
                                sharded per expert (fewer expert weights per GPU with dp) */
    int64_t pp_stage;        /* < 0: the whole replica. Set by kv_compute() to 0..pp-1 while it
                                computes one stage (engines read it: vLLM's sampler profile
                                runs on the last stage only) */
    kv_opt_num host_mem_gib; /* the host's memory in GiB (--host-mem-gib), for the check of
                                what the engine keeps there (kv_result.host_bytes); not set:
                                no check */

    /* Labels for reports; the sizing ignores them. Borrowed strings, NULL when unset. */
    const char *model_name;  /* "Qwen/Qwen3-8B"; NULL: the lesson's illustrative model */
    const char *model_source;/* "config.json", "built-in preset" */
    const char *gpu_name;    /* "H100 80GB" when a GPU preset chose the memory, else NULL */
    const char *gpu_device_names; /* that preset's names as drivers and torch print them,
                                '|'-separated (kv_gpu.smi_names), or NULL: engines whose rules
                                test the device name (vLLM's A100 rule) read these */
    int gpu_mem_estimated;   /* 1: that preset's memory is an estimate (kv_gpu.estimated) */
    double gpu_engine_gib;   /* that GPU's total as serving engines (torch) see it, GiB;
                                0: unknown (engines then estimate it from gpu_mem_gib) */
    int64_t max_context;     /* the model's max_position_embeddings, 0 if unknown */
    /* A checkpoint's own weights (a GGUF or safetensors header); 0 = unknown. */
    double checkpoint_weights_bytes; /* > 0: the weights as stored, all GPUs; used instead
                                        of the estimate (--params-b / --weight-dtype clear it) */
    double checkpoint_params;        /* > 0: the elements of those tensors (the parameters) */
    int weights_source;      /* a kv_weights_source: where the weights came from */
    double checkpoint_tower_bytes; /* of checkpoint_weights_bytes: vision and audio towers */
    double checkpoint_mtp_bytes;   /* MTP / draft heads the checkpoint holds, left out of
                                      checkpoint_weights_bytes (engines load them only for
                                      speculative decoding; the estimate leaves them out too) */
    const struct kv_gguf_info *gguf; /* the GGUF header the model came from (borrowed: its
                                per-layer heads, K/V sizes and tensors, for engines that
                                size each layer as llama.cpp does), or NULL: the spec's
                                numbers; flags that change the geometry clear it */

    /* The serving engine whose rules answer (max_concurrency, fits), and its own inputs:
     * set it with kv_spec_set_engine(), which fills them with the engine's defaults. */
    kv_engine engine;
    union {
        kv_engine_spec_space engine_space;
#ifdef KVCALC_ENGINES /* kv_vllm_spec vllm; kv_sglang_spec sglang; ... */
#define KV_ENGINE(ID, id, name) kv_##id##_spec id;
#include "kvcalc_engines.def"
#undef KV_ENGINE
#endif
    };
};

/* Where the weights of a spec came from. */
typedef enum {
    KV_WEIGHTS_GIVEN,       /* params_b x the weight dtype: --params-b, a preset's or a
                               config's figures */
    KV_WEIGHTS_GGUF,        /* a GGUF header's tensors */
    KV_WEIGHTS_SAFETENSORS, /* a model folder's safetensors headers */
    KV_WEIGHTS_NO_FILES,    /* a model folder without safetensors files: the estimate */
    KV_WEIGHTS_NO_INDEX     /* a model folder with shards (model-00001-of-N.safetensors) but no
                               model.safetensors.index.json to name them: the estimate */
} kv_weights_source;

/* Fills *s with the lesson's defaults: a 7B-class GQA model (28 layers, 4 KV heads,
 * head_dim 128, fp16) on a 48 GiB GPU with 2 GiB overhead, 4,096-token context, and
 * 50 requests sharing a 1,024-token prefix; the ideal engine. */
KVCALC_API void kv_spec_defaults(kv_spec *s);
/* Chooses the engine of s and fills its inputs with the engine's defaults (an engine may
 * also set inputs of the spec it always overrides: llama.cpp caches in f16 whatever the
 * model's dtype). Returns KV_OK, or KV_ERR_ENGINE_UNKNOWN (s unchanged). */
KVCALC_API kv_status kv_spec_set_engine(kv_spec *s, kv_engine e);

/* ---- result ----------------------------------------------------------------------------- */

/* One group of layers that keep the context the same way. */
typedef struct {
    kv_layer_kind kind;
    int64_t count;          /* layers in the group */
    int64_t tokens_max;     /* tokens a layer keeps at most (window, chunk); 0 = no limit */
    int64_t kv_heads;       /* KV heads per layer on this GPU (after TP); 0 for state / MLA */
    int64_t head_dim;       /* elements per head; 0 for state / MLA */
    double bytes_per_token; /* all layers of the group, one token (0 for state layers) */
    double bytes_fixed;     /* all layers of the group, per request (state layers) */
    double bytes_per_request; /* at the spec's context */
} kv_group;

/* How the KV of one request grows with its context: what "double the context" does. */
typedef enum {
    KV_GROWTH_LINEAR,  /* every layer keeps every token: double the context, halve the
                          concurrency (the lesson's model, MLA) */
    KV_GROWTH_CAPPED,  /* some layers stop at a window, a chunk or a fixed state */
    KV_GROWTH_FIXED    /* no layer keeps every token: past the windows, nothing grows */
} kv_growth;

struct kv_result {
    double kv_bytes_per_token;   /* growth per token of layers that keep every token:
                                    2 x layers x kv_heads x head_dim x bytes for the lesson */
    double kv_bytes_first_token; /* what the first token costs in every attention layer
                                    (full, sliding and chunked alike) */
    double kv_bytes_per_request; /* the whole cache of one request at `context` */
    double params;               /* parameters the weights are sized for (params_b x 1e9 or
                                    the estimate) */
    double weights_bytes;        /* params x weight dtype bytes */
    double gpu_mem_bytes;        /* gpu_mem_gib x GiB */
    double overhead_bytes;       /* overhead_gib x GiB */
    double free_kv_bytes;        /* gpu - weights - overhead; may be <= 0 */
    int room;                    /* 1 when free_kv_bytes > 0 (else the lesson's "no room") */

    /* The answer, from the chosen engine (spec.engine), in terms every engine shares; each
     * engine's own log names them (docs/output.md says what they are for each engine). */
    double max_concurrency;      /* whole requests of `context` held at once; integral */
    int fits;                    /* max_concurrency >= 1: at least one request fits */
    char engine_version[32];     /* the release whose rules applied ("0.11"); "" for ideal */
    double available_kv_bytes;   /* the engine's budget for KV, per GPU (may be <= 0) */
    double kv_cache_bytes;       /* what the engine allocates for KV, per GPU */
    int64_t kv_cache_tokens;     /* the token capacity the engine's log reports; 0: none */
    int64_t longest_context_fit; /* the longest context one request fits; 0: not even one
                                    token; meaningless when longest_context_any */
    int longest_context_any;     /* 1: a request of any length fits (only windowed or state
                                    layers, nothing grows further) */
    int estimated;               /* 1: the engine's answer rests on kvcalc's estimates of
                                    figures a startup log would state (the engine's section
                                    and JSON sources say which) */

    /* The lesson's ideal packing: every free byte holds KV. Equal to the answer when the
     * engine is KV_ENGINE_IDEAL. */
    double ideal_max_concurrency;/* floor(free / per request); integral; 0 without room */
    int ideal_fits;              /* ideal_max_concurrency >= 1 */
    double kv_bytes_in_use;      /* ideal_max_concurrency x kv_bytes_per_request */
    double kv_bytes_unused;      /* free_kv_bytes - kv_bytes_in_use (0 without room) */

    double prefix_saved_bytes;   /* (prefix_requests - 1) x the prefix tokens each layer
                                    still holds at `context` x per token */
    double prefix_extra_concurrency; /* floor(saved / per request); 0 without room */
    int prefix_clipped;          /* 1: windowed layers no longer hold all of the prefix at
                                    `context` (they save less than full layers do) */
    size_t n_groups;             /* layer groups, in kv_layer_kind order, empty ones left out */
    kv_group groups[KV_LAYER_KINDS];
    kv_growth growth;            /* how the groups grow with the context */
    int state_unknown;           /* 1: state layers whose size the config does not give */
    int64_t kv_heads_per_gpu;    /* max(1, kv_heads / tp); kv_heads for MLA (not split) */
    double kv_bytes_per_request_group; /* the whole TP group: per GPU x tp */
    int64_t pp_stage;            /* the pipeline stage the per-GPU figures are of: the one that
                                    holds the fewest requests (0 without pipeline parallelism) */
    int64_t pp_stage_layers;     /* its layers */
    double deployment_max_concurrency; /* max_concurrency x dp */
    double weights_bytes_group;  /* all weights: per GPU x tp */
    double host_bytes;           /* host memory the chosen engine allocates for one replica
                                    (every GPU's share: pinned weight offload, KV tiers, a
                                    cache kept on the host); weights a runner maps from its
                                    file are not in it (the OS pages them) */
    int host_short;              /* 1: host_mem_gib is given and host_bytes (plus
                                    host_reserve_bytes) exceeds it: the engine cannot allocate
                                    it, so max_concurrency is 0 */
    double host_reserve_bytes;   /* host memory the engine insists stays free beside
                                    host_bytes (SGLang's HiCache: 10 GiB); 0: none */

    /* The chosen engine's own result (kvcalc_engines.h): valid for spec.engine only. */
    union {
        kv_engine_result_space engine_space;
#ifdef KVCALC_ENGINES /* kv_vllm_result vllm; ... */
#define KV_ENGINE(ID, id, name) kv_##id##_result id;
#include "kvcalc_engines.def"
#undef KV_ENGINE
#endif
    };
};

/* The standard contexts of the context-vs-concurrency table, plus the user's own. */
#define KV_STD_CONTEXTS 6
#define KV_MAX_ROWS (KV_STD_CONTEXTS + 1)

typedef struct {
    int64_t context;             /* tokens */
    double kv_bytes_per_request; /* bytes */
    double max_concurrency;      /* whole requests (an integral double; 0 when !fits) */
    int is_setting;              /* 1 on the row of the user's --context */
} kv_row;

/* The lesson's context-vs-concurrency table (kv_table_compute). */
typedef struct {
    size_t n_rows;
    kv_row rows[KV_MAX_ROWS];    /* ascending context; max_concurrency from the engine */
} kv_table;

/* ---- schema: the spec's inputs (parameters) and the outputs (fields) ------------------- */

/* The C type of a parameter's member, and how its text reads. */
typedef enum {
    KV_T_INT,     /* int64_t */
    KV_T_NUM,     /* double */
    KV_T_OPT_INT, /* kv_opt_int: may be left to the engine */
    KV_T_OPT_NUM, /* kv_opt_num */
    KV_T_DTYPE,   /* kv_dtype, by name */
    KV_T_CHOICE,  /* int, by name from `choices`; a value with no name there is "not given" */
    KV_T_OPT_CHOICE, /* kv_opt_int, by name from `choices` */
    KV_T_SWITCH,  /* int, a switch: takes no value, writes `switch_value` */
    KV_T_ENGINE,  /* kv_engine, by name */
    KV_T_VERSION  /* int, a release read and written by the parameter's own functions */
} kv_type;

typedef struct {
    const char *name;
    int value;
} kv_choice;

/* What setting a parameter also changes in the spec (kv_spec_set() applies it). */
#define KV_CLEARS_ESTIMATE 1u /* params_b: the weights are params_b, not the config estimate */
#define KV_CLEARS_GPU 2u      /* gpu_mem_gib: no GPU preset's name or engine total */
#define KV_CLEARS_QUANT 4u    /* weight_dtype: every weight in that dtype */
#define KV_CLEARS_GEOMETRY 8u /* layers, kv_heads, head_dim: not a GGUF file's rows */
#define KV_CLEARS_STORAGE 16u /* quantization: the weights stored as the method says */

/* One input of the spec: a member of kv_spec (engine == KV_ENGINE_COUNT) or of one engine's
 * own inputs. Its offset is checked against the member's C type when the table is compiled
 * (KV_PARAM_MEMBER in the library). Names are the engine's own flag spellings. */
typedef struct kv_param {
    const char *name;          /* "gpu-memory-utilization": the long flag, without "--" */
    const char *aliases[4];    /* other long spellings ("max-model-len"), NULL-terminated */
    const char *short_name;    /* "c", "np" (one dash), or NULL */
    const char *key;           /* its JSON key in "inputs" and as a sweep axis */
    kv_type type;
    kv_engine engine;          /* KV_ENGINE_COUNT: an input of every engine */
    size_t offset, size;       /* of the member: in kv_spec, or in the engine's inputs */
    double min, max;           /* bounds of numbers; max 0: the type's own */
    int min_exclusive;         /* 1: must be > min */
    int tokens;                /* a token count: 32k (32,000), 32K (32,768), 1m, 1M read too */
    const kv_choice *choices;  /* KV_T_CHOICE, KV_T_OPT_CHOICE: NULL-terminated */
    int switch_value;          /* KV_T_SWITCH: the int written */
    int estimate;              /* not given: kvcalc estimates it (else the engine's default) */
    int model_sets;            /* a model (preset, config, checkpoint) sets this input */
    unsigned clears;           /* KV_CLEARS_* */
    kv_status blames;          /* the kv_compute() status that points at this input, or KV_OK */
    const char *section;       /* a help group of the spec's inputs ("model", "gpu", "workload",
                                  "engines"); NULL for an engine's input (its engine's group) */
    const char *meta;          /* placeholder in help texts: "N", "GIB" */
    const char *help;          /* one line */
    /* KV_T_VERSION: reads a release (0, or -1 when text is not one), writes it back, and
     * says what it accepts ("a vLLM version such as 0.11") */
    int (*parse)(const char *text, int *out);
    void (*format)(int version, char *buf, size_t cap);
    const char *accepts;
} kv_param;

/* A parameter's value, as kv_spec_set() takes it: the member of its type. */
typedef union {
    int64_t i;      /* KV_T_INT */
    double d;       /* KV_T_NUM */
    kv_opt_int oi;  /* KV_T_OPT_INT, KV_T_OPT_CHOICE */
    kv_opt_num on;  /* KV_T_OPT_NUM */
    kv_dtype t;     /* KV_T_DTYPE */
    int e;          /* KV_T_CHOICE, KV_T_SWITCH, KV_T_VERSION */
    kv_engine engine; /* KV_T_ENGINE */
} kv_value;

/* Every parameter: the spec's own first (in kv_core_param order), then each engine's, in
 * engine order. i < kv_param_count(). */
KVCALC_API size_t kv_param_count(void);
KVCALC_API const kv_param *kv_param_at(size_t i);
/* The index of p in that order. */
KVCALC_API size_t kv_param_index(const kv_param *p);
/* A parameter by its name or an alias (len bytes of name); NULL if none. */
KVCALC_API const kv_param *kv_param_find(const char *name, size_t len);
/* A parameter by its short name ("c"); NULL if none. */
KVCALC_API const kv_param *kv_param_find_short(const char *name, size_t len);
/* The parameter a status blames, or NULL. */
KVCALC_API const kv_param *kv_param_blamed(kv_status st);

/* The spec's own parameters, by identity (kv_core_param_get()). */
typedef enum {
    KV_P_LAYERS, KV_P_KV_HEADS, KV_P_HEAD_DIM, KV_P_DTYPE, KV_P_PARAMS_B, KV_P_WEIGHT_DTYPE,
    KV_P_QUANTIZATION, KV_P_GPU_MEM_GIB, KV_P_OVERHEAD_GIB, KV_P_CONTEXT, KV_P_PREFIX_TOKENS,
    KV_P_PREFIX_REQUESTS, KV_P_TP, KV_P_PP, KV_P_DP, KV_P_EXPERT_PARALLEL, KV_P_ENGINE,
    KV_P_HOST_MEM_GIB, KV_CORE_PARAMS
} kv_core_param;
KVCALC_API const kv_param *kv_core_param_get(kv_core_param id);
/* 1 when engine e decides the spec's input p in its defaults, unless it is given
 * (llama.cpp caches in f16 whatever the model's dtype), else 0. */
KVCALC_API int kv_engine_overrides(kv_engine e, kv_core_param p);

/* Where p's member lives in s, or NULL when p is an input of an engine s has not chosen. */
KVCALC_API void *kv_param_ptr(kv_spec *s, const kv_param *p);
KVCALC_API const void *kv_param_cptr(const kv_spec *s, const kv_param *p);
/* Writes v into s as p's value, with what p also changes (KV_CLEARS_*); a KV_T_ENGINE
 * value chooses the engine (kv_spec_set_engine()). Returns KV_OK, or KV_ERR_ENGINE_INPUT
 * when p is an input of an engine s has not chosen. */
KVCALC_API kv_status kv_spec_set(kv_spec *s, const kv_param *p, const kv_value *v);
/* p's value in s; 0 when p applies (*v set), -1 when p is another engine's input. */
KVCALC_API int kv_spec_get(const kv_spec *s, const kv_param *p, kv_value *v);
/* Whether p is "not given" in s: an optional value left unset, or a choice with no name. */
KVCALC_API int kv_param_unset(const kv_spec *s, const kv_param *p);

/* Where an output field lives. */
typedef enum {
    KV_FROM_CONST,   /* the same for every run (schema_version, version) */
    KV_FROM_SPEC,    /* a kv_spec member */
    KV_FROM_RESULT,  /* a kv_result member */
    KV_FROM_ENGINE,  /* a member of one engine's result: null unless that engine was chosen */
    KV_FROM_PLAN,    /* a kv_plan member: null without a plan */
    KV_FROM_LAYOUTS, /* a kv_layouts member: null without layouts */
    KV_FROM_LOG,     /* a kv_comparison member: null without a startup log */
    KV_FROM_WORKLOAD,/* a kv_workload_result member: null without a workload */
    KV_FROM_METRICS  /* a kv_metrics_comparison member: null without --from-metrics */
} kv_field_from;

/* How a field's member reads. */
typedef enum {
    KV_F_INT,          /* int64_t */
    KV_F_INT_OR_NULL,  /* int64_t, 0 = does not apply: null */
    KV_F_NUM,          /* double */
    KV_F_NUM_OR_NULL,  /* double, NaN = not stated: null */
    KV_F_BOOL,         /* int */
    KV_F_STR,          /* const char *, NULL = null */
    KV_F_TEXT,         /* a char array in the struct, "" = null */
    KV_F_DTYPE_BYTES,  /* a kv_dtype, shown as its bytes per element */
    KV_F_ENGINE_NAME,  /* a kv_engine, shown by name */
    KV_F_SCHEMA,       /* KV_SCHEMA_VERSION */
    KV_F_VERSION,      /* the library's version */
    KV_F_WEIGHTS_SOURCE /* a kv_weights_source, shown by name ("gguf"), null when given */
} kv_field_type;

#define KV_FIELD_BESIDE_ENGINE 1u /* a sweep column only when an engine other than the
                                     lesson's answers (the lesson's own figure beside it) */

/* One top-level output value: its name, its unit ("bytes", "requests", "string", ...) and
 * where it is read. The JSON document, single values, requirements and the columns of a
 * sweep read fields. */
typedef struct kv_field {
    const char *name;
    const char *unit;
    kv_field_from from;
    kv_engine engine;   /* KV_FROM_ENGINE: whose result */
    kv_field_type type;
    size_t offset;      /* in the struct of `from` (an engine's result for KV_FROM_ENGINE) */
    int sweep;          /* > 0: a column of a sweep's rows (an engine's: when that engine is
                           swept), ordered by this rank; 0: not a column */
    unsigned flags;     /* KV_FIELD_BESIDE_ENGINE */
} kv_field;

#define KV_SCHEMA_VERSION 2

/* Every field of a run's document: the spec's and the result's, each engine's (in engine
 * order), the plan's and the layouts'. i < kv_field_count(). */
KVCALC_API size_t kv_field_count(void);
KVCALC_API const kv_field *kv_field_at(size_t i);
/* The fields of a --from-log comparison document (KV_FROM_LOG). */
KVCALC_API size_t kv_log_field_count(void);
KVCALC_API const kv_field *kv_log_field_at(size_t i);
/* A field by name, in either list (the run's first); NULL if none. */
KVCALC_API const kv_field *kv_field_find(const char *name);
/* Whether a field holds a number or a boolean (what a requirement can compare). */
KVCALC_API int kv_field_is_numeric(const kv_field *f);

/* A field's value. */
typedef enum { KV_VAL_INT, KV_VAL_NUM, KV_VAL_BOOL, KV_VAL_STR } kv_value_kind;
typedef struct {
    kv_value_kind kind;
    int64_t i;
    double d;
    int b;
    const char *s;
    int is_null; /* JSON null: a part not computed, or a label not set */
} kv_field_value;

/* f's value, read from `at`: the struct of f->from (a kv_spec, kv_result, kv_plan,
 * kv_layouts or kv_comparison; for KV_FROM_ENGINE the kv_result, whose engine space holds
 * the engine's result), or NULL when that part was not computed (then null). The caller
 * checks that an engine field's engine is the spec's. */
KVCALC_API kv_field_value kv_field_get(const kv_field *f, const void *at);

/* ---- computing -------------------------------------------------------------------------- */

/* Computes *r from *s: the lesson's figures, then the chosen engine's answer. Pure: no I/O,
 * no allocation, no globals. Returns KV_OK, or the status naming the offending input (and
 * leaves *r unspecified); kv_explain() says why in words. */
KVCALC_API kv_status kv_compute(const kv_spec *s, kv_result *r);

/* Why kv_compute() (or another call on s) returned st, for a person: fills *err with the
 * status, the parameter to blame and one sentence (the engine's own words for its
 * refusals: "llama.cpp splits a model by layers over devices ..."). */
KVCALC_API void kv_explain(const kv_spec *s, kv_status st, kv_error *err);

/* The KV bytes one request holds at `context` tokens (what kv_compute puts in
 * kv_bytes_per_request), for any context. s must be valid (kv_compute() == KV_OK). */
KVCALC_API double kv_request_bytes(const kv_spec *s, int64_t context);

/* The context-vs-concurrency table for spec s and its result r (kv_compute(s)): 1k, 2k, 4k,
 * 8k, 16k and 32k tokens with s->context merged in, each row by the chosen engine. Its own
 * computation, so that a caller who needs one figure (a sweep) does not pay for the table. */
KVCALC_API void kv_table_compute(const kv_spec *s, const kv_result *r, kv_table *out);

/* Whole requests of `context` tokens the chosen engine holds at once for spec s (valid);
 * what kv_compute() reports as max_concurrency when s->context == context. */
KVCALC_API double kv_max_concurrency_at(const kv_spec *s, int64_t context);

/* Stage `stage` of a pp-stage pipeline over `layers` layers, as vLLM partitions them (layers /
 * pp each; the remainder one more each to the stages before the last, from the second-last
 * back): its first layer into *first, its layer count returned. */
KVCALC_API int64_t kv_pp_stage_layers(int64_t layers, int64_t pp, int64_t stage, int64_t *first);

/* Whether tensor parallelism of size tp can split this model: tp divides the attention heads
 * (when known) and, without MLA, tp divides the KV heads or the KV heads divide tp (then they
 * are replicated). */
KVCALC_API int kv_tp_valid(const kv_spec *s, int64_t tp);

/* The spec `to` as laid out for another tensor / pipeline / data parallel size or another
 * GPU (already written into *to), with the figures the engine's inputs measured at the
 * layout of `from` (a startup log's per-GPU readings) carried over by the engine's own rule
 * instead of held fixed: weights re-sharded, measured terms kept as their difference from
 * kvcalc's estimate. Plans, layouts and levers re-lay every variant through it. */
KVCALC_API void kv_relayout(const kv_spec *from, kv_spec *to);

/* ---- planning: how many GPUs for a target load ------------------------------------------ */

typedef struct {
    const char *name;  /* "H100 80GB" */
    double gib;        /* its memory, GiB */
    double engine_gib; /* its total as engines see it, GiB; 0 = unknown */
    const char *device_names; /* as drivers print it (kv_gpu.smi_names), or NULL */
} kv_gpu_choice;

typedef struct {
    const char *gpu;     /* name of the GPU */
    double gib;          /* its memory */
    int64_t tp;          /* GPUs per replica */
    double per_replica;  /* requests one replica holds at the spec's context */
    int64_t replicas;    /* ceil(target / per_replica) */
    int64_t gpus;        /* replicas x tp */
} kv_plan_option;

#define KV_MAX_GPU_CHOICES 64 /* GPUs a plan weighs */
#define KV_MAX_PLAN (KV_MAX_GPU_CHOICES * 4) /* x the TP sizes 1, 2, 4, 8 */

typedef struct {
    int64_t target;             /* requests that must be in flight at once */
    double kv_bytes_needed;     /* target x KV per request (the whole group's) */
    double total_bytes_needed;  /* + all the weights + overhead x tp */
    double per_gpu_max;         /* requests one replica of the spec holds (the engine's
                                   max_concurrency) */
    int fits_one_gpu;           /* one replica of the spec holds the target */
    int64_t replicas;           /* ceil(target / per_gpu_max); 0 when nothing fits */
    int64_t gpus_needed;        /* replicas x tp */
    double overhead_bytes;      /* overhead of one replica: overhead_gib x GiB x tp */
    const char *smallest_gpu_name; /* the smallest single GPU choice that holds the whole
                                      target, or NULL */
    double smallest_gpu_gib;    /* its memory, GiB */
    size_t n_options;           /* every GPU choice x TP size that holds one request, sorted by
                                   total GPUs, then memory */
    kv_plan_option options[KV_MAX_PLAN];
} kv_plan;

/* One way to lay a model over GPUs: tp x pp GPUs a replica, dp replicas. */
typedef struct {
    int64_t tp, pp, dp;
    int64_t gpus;                      /* tp x pp x dp: the GPUs it uses */
    double max_concurrency;            /* one replica, by the spec's engine */
    double deployment_max_concurrency; /* x dp */
    int meets_target;                  /* 1: holds the target (when one is given) */
} kv_layout_option;

#define KV_MAX_LAYOUTS 256 /* tp and pp powers of two: at most 21 x 11 */

/* Every layout of at most `gpus` GPUs (tp and pp powers of two the model can be split over,
 * dp filling the GPUs), and the best: without a target the most requests at once (fewer
 * pipeline stages, then smaller TP, on ties); with a target the fewest GPUs that hold it
 * (then the most requests). */
typedef struct {
    int64_t gpus;             /* the GPUs at hand */
    int64_t target;           /* 0: none */
    size_t n_options;
    kv_layout_option options[KV_MAX_LAYOUTS]; /* by tp, then pp */
    int64_t best;             /* index into options; -1: no layout holds one request (or the
                                 target) */
    int64_t best_tp, best_pp, best_dp; /* its numbers, 0 when there is none */
    double best_deployment_max_concurrency;
} kv_layouts;

/* The lesson's four levers, quantified for the spec (kv_levers_compute). */
typedef enum {
    KV_LEVER_NONE,          /* the setting as given */
    KV_LEVER_HALF_CONTEXT,  /* half the context */
    KV_LEVER_FP8_KV,        /* fp8 KV cache (the engine's 8-bit type) */
    KV_LEVER_INT8_WEIGHTS,  /* int8 weights */
    KV_LEVER_INT4_WEIGHTS,  /* int4 weights */
    KV_LEVER_OFFLOAD,       /* an extra KV tier of offload_gib in CPU memory */
    KV_LEVER_COUNT
} kv_lever_kind;

typedef struct {
    kv_lever_kind kind;
    int64_t context;          /* the context this row is sized at */
    double kv_bytes_per_request;
    double free_kv_bytes;     /* including the offload tier */
    double max_concurrency;   /* per replica */
    int64_t replicas;         /* for the target; 0 when none given or nothing fits */
    int applies;              /* 0: the engine refuses this lever's settings (a build
                                 without quantized caches): the row's figures are 0 */
} kv_lever;

/* Every lever, as kv_levers_compute() fills them. */
typedef struct {
    double offload_gib;            /* the CPU tier the offload row was sized with; 0 = none */
    int64_t target;                /* the target the replicas are for; 0 = none */
    const char *kv8_name;          /* the 8-bit KV cache type of the engine's lever: "fp8",
                                      or "q8_0" for llama.cpp (which has no fp8 cache) */
    kv_lever rows[KV_LEVER_COUNT]; /* indexed by kv_lever_kind */
} kv_levers;

/* Reverse sizing: the memory `target` requests need at the spec's context, and for the
 * spec's own GPU and each of `n` GPU choices (at each TP size in 1, 2, 4, 8 that the model
 * can be split over) the replicas and GPUs needed, all by the spec's engine (each variant
 * re-laid by kv_relayout()). r is kv_compute(s). */
KVCALC_API kv_status kv_plan_compute(const kv_spec *s, const kv_result *r, int64_t target,
                                     const kv_gpu_choice *gpus, size_t n, kv_plan *out);

/* The layouts of at most `gpus` GPUs for spec s (its tp, pp and dp replaced, re-laid by
 * kv_relayout()), by the spec's engine; `target` > 0 asks for the fewest GPUs that hold it. */
KVCALC_API kv_status kv_layouts_compute(const kv_spec *s, int64_t gpus, int64_t target,
                                        kv_layouts *out);

/* What half the context, an 8-bit KV cache, int8 and int4 weights and (offload_gib > 0) a
 * CPU tier of offload_gib each buy, one at a time, by the spec's engine; replicas for
 * `target` when it is > 0. */
KVCALC_API kv_status kv_levers_compute(const kv_spec *s, double offload_gib, int64_t target,
                                       kv_levers *out);

/* Context vs concurrency on a log scale, for charts. */
#define KV_CURVE_POINTS 49
typedef struct {
    size_t n;
    int64_t context[KV_CURVE_POINTS];      /* tokens, from 256 up, x 2^(1/4) each step */
    double max_concurrency[KV_CURVE_POINTS]; /* by the spec's engine */
} kv_curve;

/* Fills the curve for s (valid): 49 contexts from 256 to 256 x 2^12 = 1,048,576 tokens
 * (further when the spec's context is larger). */
KVCALC_API void kv_curve_compute(const kv_spec *s, kv_curve *out);

/* ---- models and GPUs: config.json, checkpoints, the built-in presets -------------------- */

/* Readers of files return KV_OK, or a status (KV_ERR_FILE, KV_ERR_FORMAT, KV_ERR_NO_MEMORY,
 * KV_ERR_NOT_FOUND) with one line in err that names the file (by the label given) and what
 * is wrong, without a program's name. */

#define KV_CONFIG_MAX_BYTES (8u << 20) /* a config.json is a few KiB; refuse more than 8 MiB */

/* What a config says about the model besides the spec. */
typedef struct {
    char name[256];       /* _name_or_path (JSON escapes decoded), or "" */
    char model_type[64];  /* of the language model part */
    int64_t max_context;  /* max_position_embeddings (family default when absent), or 0 */
} kv_model_info;

/* Reads a Hugging Face config.json (text, len bytes; `label` names it in messages) into s:
 * layers, KV heads, head size, KV and weight dtypes, the per-layer layout and the
 * architecture for the parameter estimate. Fields the config does not mention keep their
 * values in s. err: "LABEL:LINE:COL: what is wrong". Allocates a token array for the
 * duration of the call; no other I/O. */
KVCALC_API kv_status kv_config_read(const char *text, size_t len, const char *label, kv_spec *s,
                                    kv_model_info *info, char *err, size_t errcap);

/* Reads a whole file ("-" = standard input) of at most KV_CONFIG_MAX_BYTES into a malloc'ed
 * buffer (free() it). */
KVCALC_API kv_status kv_config_load_file(const char *path, char **text, size_t *len, char *err,
                                         size_t errcap);

/* ---- models: GGUF files (llama.cpp), header only ---- */

#define KV_GGUF_MAX_HEADER (64u << 20) /* metadata + tensor infos; refuse more than 64 MiB */
#define KV_GGUF_MAX_LAYERS KV_MAX_PATTERN /* block_count above this is refused */

/* What a GGUF header says beyond the spec (what an engine sizing llama.cpp needs). */
typedef struct kv_gguf_info {
    uint32_t version;            /* 2 or 3; 0: described by a log's lines (kv_log_model_spec) */
    char architecture[64];       /* general.architecture ("llama", "gemma2", "gpt-oss") */
    int arch_known;              /* 0: an architecture kvcalc has no rule for (generic keys) */
    int64_t n_tensors, n_kv;     /* counts of the header */
    uint64_t alignment;          /* general.alignment, 32 by default */
    uint64_t data_offset;        /* where tensor data starts (PAD(end of infos, alignment)) */
    uint64_t data_bytes;         /* the data section: sum of the padded tensor sizes */
    int64_t block_count;         /* %s.block_count, MTP/NextN blocks included */
    int64_t nextn_layers;        /* %s.nextn_predict_layers (trailing, out of the main cache
                                    for qwen3next/qwen35/deepseek32) */
    int64_t context_length;      /* %s.context_length (n_ctx_train) */
    int64_t embedding_length;    /* %s.embedding_length */
    int64_t head_count;          /* query heads of layer 0 */
    int64_t key_length, value_length;         /* K and V head sizes (may differ) */
    int64_t key_length_swa, value_length_swa; /* of sliding layers (= the above if absent) */
    int64_t kv_heads_min, kv_heads_max;       /* over the layers that keep a KV cache */
    int64_t kv_heads_sum;        /* sum over those layers (K row sum / key_length) */
    int64_t layer_kv_heads[KV_GGUF_MAX_LAYERS]; /* per layer; 0: no KV cache in that layer */
    int64_t layer_count;         /* entries of layer_kind: block_count minus the NextN blocks
                                    left out of the main cache */
    unsigned char layer_kind[KV_GGUF_MAX_LAYERS]; /* per layer (of block_count - the NextN
                                    blocks left out): a kv_layer_kind, or KV_LAYER_KINDS for a
                                    layer that keeps nothing (left out of the spec) */
    int64_t kv_layers;           /* layers with a KV cache (full + sliding) */
    int64_t swa_layers;          /* of those, sliding */
    int64_t state_layers;        /* recurrent / SSM layers */
    int64_t n_swa;               /* %s.attention.sliding_window; 0: none */
    int64_t swa_period;          /* the period used (0: a per-layer array, or no SWA) */
    int mla;                     /* both key_length_mla and value_length_mla present */
    int64_t kv_lora_rank, rope_dims;
    int64_t state_r_row, state_s_row; /* f32 elements per recurrent layer and sequence: the
                                    conv state (R) and the SSM state (S); 0: unknown */
    int64_t vocab;               /* tokens of tokenizer.ggml.tokens; 0: absent */
    double weight_bytes;         /* sum of every tensor's bytes, padding excluded */
    double params;               /* sum of every tensor's elements */
    /* the tensors' bytes by group, as llama.cpp and Ollama group them */
    double block_bytes[KV_GGUF_MAX_LAYERS]; /* the "blk.N." tensors of block N */
    double token_embd_bytes;     /* "token_embd." */
    double output_bytes;         /* "output.": the output head (absent when tied) */
    double output_norm_bytes;    /* "output_norm." */
    int64_t indexer_key_length;  /* %s.attention.indexer.key_length: DeepSeek sparse
                                    attention's indexer key per token and layer; 0: none */
    unsigned char layer_indexer[KV_GGUF_MAX_LAYERS]; /* 1: block N has indexer tensors */
} kv_gguf_info;

/* Reads a GGUF header (little-endian, version 2 or 3; v1 and big-endian files are refused)
 * from data[0..len) into s (layers, KV heads, head size, layout, weights from the tensor
 * infos), info (general.name, architecture, context_length) and g (may be NULL). Only the
 * header is needed: the buffer may end after the tensor infos. Fields the file does not
 * give keep their values in s. err: "LABEL: byte OFFSET: what is wrong". No allocation, no
 * I/O; never reads past data + len. */
KVCALC_API kv_status kv_gguf_read(const unsigned char *data, size_t len, const char *label,
                                  kv_spec *s, kv_model_info *info, kv_gguf_info *g, char *err,
                                  size_t errcap);

/* Reads the header of the GGUF file at path (at most KV_GGUF_MAX_HEADER bytes, in growing
 * chunks, stopping after the tensor infos: tensor data is never read) and checks that the
 * file holds the data section the header describes. Same results as kv_gguf_read(). */
KVCALC_API kv_status kv_gguf_load_file(const char *path, kv_spec *s, kv_model_info *info,
                                       kv_gguf_info *g, char *err, size_t errcap);

/* Reads the header of a LoRA adapter GGUF (llama.cpp's --lora) as kv_gguf_load_file() does
 * a model's (kv_gguf_adapter_read(): from memory, as kv_gguf_read()): its tensors' bytes by
 * group in *g; every tensor must be a .lora_a or .lora_b (llama.cpp refuses other
 * suffixes). */
KVCALC_API kv_status kv_gguf_adapter_read(const unsigned char *data, size_t len,
                                          const char *label, kv_gguf_info *g, char *err,
                                          size_t errcap);
KVCALC_API kv_status kv_gguf_adapter_load_file(const char *path, kv_gguf_info *g, char *err,
                                               size_t errcap);

/* 1 when the file at path starts with the GGUF magic, else 0 (unreadable: 0). */
KVCALC_API int kv_gguf_probe(const char *path);

/* ---- models: safetensors checkpoints, model folders, the Hugging Face cache ---- */

#define KV_SAFETENSORS_MAX_HEADER 100000000u /* the safetensors library's own limit (100 MB) */

/* The parts of a checkpoint, told apart by tensor names (kv_safetensors_part()). */
typedef enum {
    KV_PART_LANGUAGE, /* everything else: the language model */
    KV_PART_VISION,   /* vision_tower., visual., vision_model., model.vision_*,
                         multi_modal_projector., mm_projector., embed_vision. */
    KV_PART_AUDIO,    /* audio_tower., audio_model., embed_audio. */
    KV_PART_MTP,      /* MTP / draft heads: mtp., model.mtp., and layers.N. with N at or
                         past the config's num_hidden_layers (DeepSeek-V3, GLM-4.5) */
    KV_PARTS
} kv_part;

/* What safetensors headers hold, by part. Bytes are as stored (packed and quantized formats
 * included). Parameters: one per stored element, except packed low-bit weights, counted
 * unpacked - eight per I32 element of a GPTQ/AWQ `qweight` or compressed-tensors
 * `weight_packed` (4-bit packing is assumed), two per U8 element of an mxfp4 `*_blocks` -
 * and quantization side tensors (`scales`, `qzeros`, `g_idx`, `weight_scale`,
 * `weight_scale_inv`, `input_scale`, `*_scales`, ...), which count bytes but no parameters. */
typedef struct {
    uint64_t bytes[KV_PARTS];    /* tensor bytes */
    uint64_t elements[KV_PARTS]; /* stored elements (products of the shapes) */
    uint64_t params[KV_PARTS];   /* parameters, by the rule above */
    uint64_t packed_bytes;       /* of all the bytes: packed low-bit weights */
    uint64_t scale_bytes;        /* of all the bytes: quantization side tensors */
    int64_t tensors;             /* tensors read */
    int64_t files;               /* headers read */
    uint64_t header_bytes;       /* their JSON lengths */
} kv_safetensors_info;

/* The part a tensor name belongs to; main_layers is the config's num_hidden_layers (0:
 * unknown, then only mtp. names are MTP). */
KVCALC_API kv_part kv_safetensors_part(const char *name, int64_t main_layers);

/* Reads a safetensors header from data[0..len) (the 8-byte length and the JSON; the tensor
 * data need not follow) of a file of file_size bytes, and adds its figures to *out (zero it
 * before the first file). Checked: the length (at most KV_SAFETENSORS_MAX_HEADER, within
 * the file), the JSON, each tensor's dtype (the safetensors dtypes, F4 to C64), shape (no
 * overflow) and data_offsets (their size is the shape's), and that the tensors tile the
 * data section exactly. err: "LABEL: byte OFFSET: what is wrong" (*out then unchanged).
 * Allocates tokens for the call; never reads past data + len. */
KVCALC_API kv_status kv_safetensors_read(const unsigned char *data, size_t len,
                                         uint64_t file_size, const char *label,
                                         int64_t main_layers, kv_safetensors_info *out,
                                         char *err, size_t errcap);

/* The same for the file at path: reads its first 8 bytes, its size, then its header only. */
KVCALC_API kv_status kv_safetensors_load_file(const char *path, int64_t main_layers,
                                              kv_safetensors_info *out, char *err,
                                              size_t errcap);

/* Adds one's figures to *total (the shards of one checkpoint). */
KVCALC_API void kv_safetensors_add(kv_safetensors_info *total, const kv_safetensors_info *one);

/* What a model folder held (kv_folder_load()). */
typedef struct {
    char model_file[1024];  /* where the geometry came from: DIR/config.json or DIR/X.gguf */
    int gguf;               /* 1: a GGUF file (the folder has no config.json) */
    kv_safetensors_info st; /* the safetensors headers read; st.files == 0: none */
} kv_folder_info;

/* 1 when path names a directory (a model folder), else 0. */
KVCALC_API int kv_folder_probe(const char *path);

/* Loads a model folder into s and info: DIR/config.json (or, without one, the folder's
 * .gguf file, by kv_gguf_load_file()), then the weights from the safetensors headers -
 * every shard listed by model.safetensors.index.json's weight_map, read once; else
 * model.safetensors; else every *.safetensors file - as s->checkpoint_weights_bytes and
 * checkpoint_params without the MTP / draft heads (s->checkpoint_mtp_bytes; the towers are
 * in, also as s->checkpoint_tower_bytes; s->weights_source KV_WEIGHTS_SAFETENSORS). Without
 * safetensors the estimate stays (KV_WEIGHTS_NO_FILES). Messages name files as dir + "/" +
 * name, dir as given. A folder's GGUF file has no kv_gguf_info to keep here: load it with
 * kv_gguf_load_file() for its per-layer rows. */
KVCALC_API kv_status kv_folder_load(const char *dir, kv_spec *s, kv_model_info *info,
                                    kv_folder_info *f, char *err, size_t errcap);

/* Finds a Hugging Face model id ("org/name") in the local hub cache, offline: in
 * $HF_HUB_CACHE, else $HF_HOME/hub, else $HOME/.cache/huggingface/hub, the folder
 * models--org--name/snapshots/REV/, REV being refs/main's content, else the only (or the
 * newest) snapshot. Returns 1 with that folder in dir, or 0 with the cache folder looked
 * in written to looked ("" when there is none to look in). */
KVCALC_API int kv_hf_cache_find(const char *id, char *dir, size_t cap, char *looked,
                                size_t lcap);

/* A built-in model: a real config.json embedded at build time. */
typedef struct {
    const char *id;    /* Hugging Face id: "Qwen/Qwen3-8B" */
    const char *alias; /* short name: "qwen3-8b" */
    const char *file;  /* its file in data/models/ */
    const char *json;  /* the config.json text */
    size_t json_len;
    const char *weights_unknown; /* NULL, or what its config.json does not say about how the
                                    weights are stored (kv_model_preset_spec() then refuses
                                    to size them: arch.unknown) */
} kv_model_preset;

/* The built-in models, in table order (i < kv_model_preset_count()). */
KVCALC_API size_t kv_model_preset_count(void);
KVCALC_API const kv_model_preset *kv_model_preset_at(size_t i);
/* A model by id or alias, case-insensitive; NULL if none. */
KVCALC_API const kv_model_preset *kv_model_preset_find(const char *name);
/* The spec of a built-in model: kv_spec_defaults(), then its config. */
KVCALC_API kv_status kv_model_preset_spec(const kv_model_preset *m, kv_spec *s,
                                          kv_model_info *info, char *err, size_t errcap);

/* A built-in GPU, with the memory the driver reports (what an engine sizes from). Every
 * figure's source is in data/gpus/SOURCES.md. */
typedef struct {
    const char *name;      /* "H100 80GB" */
    const char *aliases;   /* space-separated extra names: "h100 h100-sxm h100-pcie" */
    const char *smi_names; /* '|'-separated names as nvidia-smi / rocm-smi / torch print them:
                              "NVIDIA H100 80GB HBM3|NVIDIA H100 PCIe" (found like aliases) */
    double total_mib;      /* total as the driver reports it (nvidia-smi memory.total, rocm-smi
                              VRAM total / 2^20), MiB; 0 if unknown */
    double engine_gib;     /* total as vLLM / torch report it, GiB; 0 if unknown */
    int estimated;         /* 1: no public driver or engine reading was found; total_mib is the
                              marketed capacity, "N GB" taken as N x 1024 MiB (binary-sized
                              memory; drivers report up to a few percent less) */
    /* kvcalc 6: what a decode step's roofline divides by (kv_workload_roofline()) */
    double bandwidth_gbs;  /* peak memory bandwidth as published, GB/s (10^9 bytes a second);
                              0: no figure was found (the roofline is refused for it) */
    const char *bandwidth_form; /* the form the figure is of where the names cover several
                              ("SXM": the H100 80GB's PCIe card has less), else "" */
} kv_gpu;

KVCALC_API size_t kv_gpu_count(void);
KVCALC_API const kv_gpu *kv_gpu_at(size_t i);
/* A GPU by name, alias or nvidia-smi / rocm-smi name, ignoring case, spaces, '-' and '_',
 * and a leading "NVIDIA", "AMD", "Tesla" or "GeForce" ("NVIDIA GeForce RTX 4090" finds
 * "RTX 4090"); NULL if none. */
KVCALC_API const kv_gpu *kv_gpu_find(const char *name);
/* Its memory in GiB: the driver's MiB / 1024, else the engine-reported GiB. */
KVCALC_API double kv_gpu_gib(const kv_gpu *g);
/* Sets s's GPU to g: its memory, its name, its engine total and its device names. */
KVCALC_API void kv_spec_set_gpu(kv_spec *s, const kv_gpu *g);

/* ---- startup logs: what an engine's log states (--from-log) ----------------------------- */

/* The longest line the reader keeps; a longer one is skipped and counted (never cut into a
 * shorter line that could match a pattern it does not hold). */
#define KV_LOG_LINE_MAX 16384
/* Figures one engine's lines may state; their meaning is the engine's (kvcalc_engines.h,
 * kv_log_field_name(); it checks at compile time that its fields fit). */
#define KV_LOG_MAX_FIELDS 128

/* What one engine's lines said (the last startup's, when a file holds several). Memory is
 * in bytes (the engines' "GB" is GiB). */
typedef struct {
    double v[KV_LOG_MAX_FIELDS];
    unsigned char present[KV_LOG_MAX_FIELDS]; /* 1: the log stated v[i] */
    char version[32];      /* "0.10.1.1", "0.4.6.post2", "7445"; "" when not stated */
    char era[32];          /* the line formats seen: "V0", "V1", "#tokens", "llama_kv_cache" */
    char model[256];       /* model id or path as logged; "" */
    char served[128];      /* the name it is served under (served_model_name), first of a
                              list; "" when not stated */
    char dtype[32];        /* weights' torch dtype ("bfloat16"); "" */
    char kv_dtype[32];     /* KV cache dtype ("auto", "fp8", "bfloat16"); "" */
    char quantization[32]; /* "fp8", "awq", ...; "" */
    char type_k[16], type_v[16]; /* cache types ("f16", "q8_0"); "" */
    long kv_lines;         /* KV lines matched */
    long last_kv_line;     /* line number of the last one (0: none) */
    int startups;          /* startups seen (values are the last one's) */
    long last_start_line;  /* line number of this startup's last line that opens one (a
                              settings or version line; 0: none): KV lines before any are the
                              same startup's */
    int swa_next;          /* llama.cpp: the next cache line is the main cache (0), the
                              sliding-window cache (1), the sparse-attention indexer's (2) or
                              an MTP draft context's (3, its other lines left out); 4: a draft
                              model's lines run, left out */
} kv_log_values;

/* A log being read: one candidate per engine whose lines kvcalc knows; kv_log_finish()
 * picks the engine. Large (the line buffer): keep it in static or heap memory. */
typedef struct {
    kv_engine engine;      /* the engine recognised, or KV_ENGINE_COUNT: none */
    kv_log_values values;  /* its values (after kv_log_finish) */
    kv_log_values cand[KV_MAX_ENGINES]; /* by kv_engine */
    long lines;            /* lines read */
    long overlong;         /* lines longer than KV_LOG_LINE_MAX, skipped */
    int unterminated;      /* 1: the last line had no newline (a cut file): skipped */
    char scratch[KV_LOG_LINE_MAX + 1]; /* the line being matched */
} kv_log;

/* Starts reading a log. */
KVCALC_API void kv_log_init(kv_log *lg);
/* Reads one line (len bytes, without its newline; NUL bytes allowed): strips ANSI escapes,
 * carriage returns and known prefixes (timestamps, "(VllmWorker rank=0 pid=1)", "INFO
 * 07-22 10:00:00 [file.py:1]"), then matches every engine's line patterns strictly. */
KVCALC_API void kv_log_feed(kv_log *lg, const char *line, size_t len);
/* Picks the engine whose KV lines came last; returns 0, or -1 when no engine's KV line was
 * seen (lg->engine is then KV_ENGINE_COUNT). */
KVCALC_API int kv_log_finish(kv_log *lg);
/* Reads the file at path ("-" = standard input) line by line in constant memory and
 * finishes it. Returns KV_OK, or KV_ERR_FILE / KV_ERR_FORMAT with one line in err
 * ("LABEL: ..."; label names the file as typed) when it cannot be read or is not a log
 * kvcalc recognises. */
KVCALC_API kv_status kv_log_read_file(const char *path, const char *label, kv_log *lg,
                                      char *err, size_t errcap);
/* Cleans one line in place (ANSI escapes, carriage returns, known prefixes); returns the
 * start of what remains and its length in *len. */
KVCALC_API char *kv_log_clean(char *line, size_t *len);
/* The name of field f of engine e's lines ("available_kv", "kv_tokens", ...), or NULL. */
KVCALC_API const char *kv_log_field_name(kv_engine e, int f);
/* How many fields engine e's lines may state: 0 .. kv_log_fields(e) - 1 (0: its logs are not
 * read). */
KVCALC_API int kv_log_fields(kv_engine e);

/* A log's values as spec inputs, as if typed: how the engine was started (a setting:
 * max_model_len, utilization, TP, ...), what the run measured (weights, activation, ...) or
 * the measured value the KV cache was sized from (vLLM's KV memory or blocks, SGLang's two
 * avail-mem readings). Each value is text its parameter's reader takes. */
typedef enum { KV_LOG_UNSET, KV_LOG_SETTING, KV_LOG_MEASURED, KV_LOG_KV_FIGURE } kv_log_kind;
#define KV_LOG_MAX_INPUTS 48
typedef struct {
    size_t n;
    struct {
        const struct kv_param *param;
        kv_log_kind kind;
        char text[48];
        const struct kv_param *yields_to; /* NULL, or the input whose flag, given, drops this
                                             value: a setting that follows from that one */
    } item[KV_LOG_MAX_INPUTS];
} kv_log_inputs;

/* The log's values (lg finished) as inputs. */
KVCALC_API void kv_log_inputs_of(const kv_log *lg, kv_log_inputs *in);

/* One row of a comparison with a startup log: a quantity the log states, kvcalc's figure
 * for it, and the budget term that explains the difference. NaN: not stated / computed. */
#define KV_CMP_MAX_LINES 24
typedef struct {
    const char *quantity; /* "activation peak" */
    const char *unit;     /* "bytes", "tokens", "blocks", "requests", "fraction", "cells" */
    double logged, kvcalc, difference; /* difference = kvcalc - logged */
    char term[200];       /* which term explains it, in words */
} kv_cmp_line;

/* kvcalc against a startup log (kv_log_compare()). */
typedef struct kv_comparison {
    const char *file;         /* the log as typed ("-": standard input); the caller's */
    const kv_log_values *values; /* everything the log states (borrowed) */
    kv_engine engine;
    char engine_version[32];  /* as logged; "" = not stated */
    char era[32];             /* the line formats seen; "" */
    char model[256];          /* as logged; "" */
    int64_t startups;         /* startups in the file (the last is compared) */
    int what_if;              /* KV_WHAT_IF_BUDGET: the GPU or fraction was given: the log's
                                 KV figure is not used (its measured terms are);
                                 KV_WHAT_IF_SETTINGS: a flag changed a setting the log states
                                 (the figure kept, the lines at the flags' settings); 0: none */
    int64_t log_lines;        /* lines read */
    int64_t log_lines_skipped;/* lines longer than the reader's buffer, and a cut last line */
    double logged_available_kv_bytes; /* NaN: not stated */
    double logged_kv_cache_tokens;
    double logged_weights_bytes;
    double logged_gpu_mem_bytes;
    double kv_cache_tokens;      /* kvcalc's, given the log's KV figure */
    double available_kv_bytes;   /* kvcalc's, end to end; NaN without a GPU total */
    double kv_budget_error_pct;  /* (available - logged) / logged x 100 */
    size_t n_settings;        /* the settings the log states that no row shows */
    struct {
        const char *name;     /* as kv_log_field_name() */
        double value;
        const char *word;     /* the engine's word for it ("auto"), or NULL: the number */
    } settings[24];
    size_t n_lines;
    kv_cmp_line lines[KV_CMP_MAX_LINES];
} kv_comparison;

#define KV_WHAT_IF_BUDGET 1
#define KV_WHAT_IF_SETTINGS 2
/* The comparison of a finished log lg with two runs: a = given the log's KV figure (sa its
 * spec; what_if, KV_WHAT_IF_* bits: the figure dropped, settings changed), b = end to end from the log's settings (sb, b:
 * NULL when not computed). */
KVCALC_API void kv_log_compare(const kv_log *lg, int what_if, const kv_spec *sa,
                               const kv_result *a, const kv_spec *sb, const kv_result *b,
                               kv_comparison *out);
/* Whether engine e's comparison needs a GPU total for the end-to-end run (0: its budget
 * does not depend on one, as llama.cpp's). */
KVCALC_API int kv_log_needs_gpu_total(kv_engine e);
/* Whether value v of parameter p, given by the caller, contradicts a figure the log states
 * that the log's KV figure came from (a GPU total, a memory fraction): then the KV lines are
 * a what-if, sized from the new budget. */
KVCALC_API int kv_log_contradicts(const kv_log *lg, const struct kv_param *p, const kv_value *v);
/* The GPU total the log states, in bytes, or NaN. */
KVCALC_API double kv_log_gpu_total(const kv_log *lg);
/* The model the log names, as it names it ("" when none). */
KVCALC_API const char *kv_log_model(const kv_log *lg);
/* The name the log says the model is served under (vLLM's and SGLang's
 * served_model_name, "" when not stated): a local path's model is often known only by it. */
KVCALC_API const char *kv_log_served_model(const kv_log *lg);
/* The model as the log's own lines describe it, for an engine whose logs print them (an
 * Ollama runner's llama_model_loader lines and file size): *s starts from kv_spec_defaults()
 * and gets the geometry and weights, *g the per-layer rows (g->version 0: described by a
 * log, not read from a file; point s->gguf at g), name (cap bytes) a name for reports.
 * KV_OK; KV_ERR_NOT_FOUND when the engine's logs do not describe a model; KV_ERR_FORMAT with
 * one sentence in err (what is missing) when this log's lines do not say enough. */
KVCALC_API kv_status kv_log_model_spec(const kv_log *lg, kv_spec *s, kv_gguf_info *g,
                                       char *name, size_t cap, char *err, size_t errcap);

/* ---- workload: capacity under load (a step-level simulation of one replica) ------------- */

/* A length of prompt or output tokens: fixed, or log-normal (two of mean, median, p99). */
typedef enum { KV_DIST_FIXED, KV_DIST_LOGNORMAL } kv_dist_kind;
typedef struct {
    kv_dist_kind kind;
    double value;     /* KV_DIST_FIXED: the length, >= 1 */
    double mu, sigma; /* KV_DIST_LOGNORMAL: of ln(length), sigma > 0 */
} kv_dist;

/* The log-normal with two of mean, median and p99 (the third NaN): sigma from
 * median and p99 is ln(p99 / median) / z99, from mean and median sqrt(2 ln(mean / median)),
 * from mean and p99 the smaller root of s^2 / 2 - z99 s + ln(p99 / mean) = 0. Returns
 * KV_OK, or KV_ERR_WORKLOAD when the figures admit no log-normal (median >= p99, mean <
 * median, ...) or not exactly two are given. */
KVCALC_API kv_status kv_dist_lognormal(double mean, double median, double p99, kv_dist *out);
/* The distribution's mean, before rounding to whole tokens. */
KVCALC_API double kv_dist_mean(const kv_dist *d);

/* How requests arrive. */
typedef enum {
    KV_ARRIVE_POISSON, /* exponential gaps at `rate` (seeded) */
    KV_ARRIVE_EVEN,    /* one every 1 / rate seconds */
    KV_ARRIVE_TRACE    /* the trace's own times (kv_workload.trace) */
} kv_arrivals;

/* One request of a trace: its lengths and (optionally) its arrival. */
typedef struct {
    int64_t prompt, output; /* tokens, >= 1 (an output of 0 is refused by the reader) */
    double arrival_s;       /* seconds from the trace's first request; NaN: not given */
} kv_trace_row;

/* A request trace read from CSV (a header naming its columns: Azure's LLM inference traces
 * TIMESTAMP, ContextTokens, GeneratedTokens; BurstGPT's Timestamp, Request tokens, Response
 * tokens; or prompt_tokens, output_tokens, arrival_s) or JSON lines with those keys. Rows
 * with no prompt or no output (BurstGPT's failed requests) are counted in `skipped` and
 * left out. The members after `skipped` are the reader's own state. */
#define KV_TRACE_LINE_MAX 65536
typedef struct {
    kv_trace_row *rows;  /* in arrival order (an earlier arrival below a later is refused) */
    size_t n;
    size_t skipped;      /* rows left out: no prompt or no output tokens */
    int has_arrivals;    /* 1: every row has its arrival time */
    const char *layout;  /* "azure", "burstgpt", "csv", "jsonl" */
    size_t cap, line;
    int format, col_prompt, col_output, col_arrival, ncols;
} kv_trace;

KVCALC_API void kv_trace_init(kv_trace *t);
/* Feeds one line (without its newline; a trailing CR is dropped). Returns KV_OK, or
 * KV_ERR_FORMAT / KV_ERR_NO_MEMORY with err saying "line N: ..." */
KVCALC_API kv_status kv_trace_feed_line(kv_trace *t, const char *line, size_t len, char *err,
                                        size_t errcap);
/* After the last line: KV_ERR_FORMAT when no request was read. */
KVCALC_API kv_status kv_trace_finish(kv_trace *t, char *err, size_t errcap);
/* Reads a trace file (path "-" is stdin) in bounded chunks; messages start with label (the
 * name as the user typed it). On failure the trace is freed. */
KVCALC_API kv_status kv_trace_read_file(const char *path, const char *label, kv_trace *t,
                                        char *err, size_t errcap);
KVCALC_API void kv_trace_free(kv_trace *t);

/* A decode step's memory-bandwidth roofline on one GPU of a replica (docs/workload.md): the
 * step reads the weights that GPU holds, once, and the blocks of cache its running requests
 * hold, at the GPU's peak bandwidth. */
typedef struct {
    const char *gpu;        /* whose figure it is (kv_gpu.name) */
    const char *form;       /* the form of that GPU it is of (kv_gpu.bandwidth_form), "" */
    double bandwidth;       /* bytes a second: kv_gpu.bandwidth_gbs x 10^9; 0: no roofline */
    double weights_bytes;   /* the weights on that GPU (the engine's figure), read each step */
    double block_bytes;     /* the bytes that GPU holds of one of the pool's blocks (units):
                               the engine's cache bytes / its blocks */
    int moe;                /* 1: the weights hold MoE experts (all counted read each step) */
} kv_roofline;

/* The workload: lengths, arrivals and the time an engine step takes. */
typedef struct {
    kv_dist prompt, output;       /* sampled lengths (unused with a trace) */
    const kv_trace_row *trace;    /* a trace's requests, or NULL */
    size_t trace_n;
    double rate;                  /* requests per second; 0: lengths only (no simulation) */
    int64_t concurrency;          /* > 0 instead of a rate: a closed loop of this many clients,
                                     each sending its next request when the last one ends
                                     (vllm bench serve --max-concurrency) */
    kv_arrivals arrivals;
    double tpot_ms;               /* one decode step (time per output token), ms; > 0 with a
                                     rate, or 0 with a roofline (below) to estimate it */
    double ttft_ms;               /* a request of the mean prompt alone: its prefill, ms; 0: the
                                     prefill's time is not counted */
    uint64_t seed;                /* the sampler's seed: the same seed, the same run */
    int64_t requests;             /* requests simulated (sampled lengths), >= 1 */
    int64_t onset_budget;         /* request-steps the onset search may take; 0: 2 x 10^8 */
    /* called after each run (the rate asked for, then the onset search's): its number from 1,
     * the most there can be, and the request-steps so far; NULL: none. The library prints
     * nothing; a program shows it. */
    void (*progress)(void *ctx, int run, int runs, int64_t request_steps);
    void *progress_ctx;
    double headroom;              /* [0, 1): the share of a replica's limit kept free when
                                     counting replicas for `rate` */
    kv_roofline roofline;         /* kvcalc 6: with tpot_ms 0 and a rate or clients, the step
                                     is estimated from this roofline (bandwidth 0: none, and
                                     the step must be given); kv_workload_roofline() sets it */
    int64_t shared_prefix;        /* every prompt begins with the same N tokens (a system
                                     prompt), at most 2^20: the engine's prefix cache finds their
                                     full blocks (kv_sched.prefix_caching, else refused); 0:
                                     every prompt distinct */
} kv_workload;

/* How an engine schedules requests on its cache, from its result (kv_sched_of()). */
typedef enum {
    KV_SCHED_PAGED,  /* blocks on demand, first come first served; the newest running request
                        is preempted and recomputed when a block is short (vLLM V1) */
    KV_SCHED_SLOTS,  /* fixed slots of one context each; a request waits for a free slot
                        (llama.cpp's server, Ollama) */
    KV_SCHED_RESERVE /* a token pool; a request is admitted while the free tokens cover its
                        prompt and its decode reservation (new_token_ratio); a prefill batch
                        runs alone; short of decode room the fewest-generated requests are
                        retracted (SGLang) */
} kv_sched_kind;

typedef struct {
    kv_sched_kind kind;
    const char *engine_title;  /* "vLLM" */
    const char *rules;         /* the upstream files and commit the rules are read from */
    int64_t pool_blocks;       /* blocks requests can hold (vLLM: num_gpu_blocks - 1, the null
                                  block kept back); KV_SCHED_SLOTS: cells (slots x
                                  slot_tokens when each slot has its own) */
    kv_sched_group group[KV_SCHED_MAX_GROUPS];
    size_t n_groups;
    int64_t max_seqs;          /* requests running at once (max_num_seqs, slots); 0: no cap */
    const char *max_seqs_name; /* "max_num_seqs", "slots (-np)" */
    int64_t max_batched_tokens;/* tokens one step computes; 0: no cap */
    int64_t max_model_len;     /* longest request (prompt + output); longer ones are refused */
    int64_t slot_tokens;       /* KV_SCHED_SLOTS: tokens one slot holds; a request that reaches
                                  it stops there (truncated) unless shift_discard is set */
    int64_t prompt_limit;      /* KV_SCHED_SLOTS: the longest prompt passed as it is; 0:
                                  slot_tokens - 1 */
    int64_t prompt_truncate_to;/* a longer prompt is cut to this many tokens (its first
                                  num_keep and its last); 0: refused */
    int64_t shift_discard;     /* > 0: context shift - a slot that is full drops this many
                                  tokens after num_keep and goes on (cells stay in the slot) */
    int64_t output_limit;      /* outputs longer are cut there (Ollama's num_predict cap of
                                  10 x num_ctx); 0: none */
    int unified_fail_all;      /* KV_SCHED_SLOTS with a shared cache: a full cache fails every
                                  processing slot ("Context size has been exceeded.") */
    const char *preempt_word;  /* "preemptions", "context-full failures" */
    const char *left_out;      /* what the simulation of these rules leaves out, in words */
    const char *unit;          /* what a block is called: "blocks", "tokens", "cells" */
    int64_t reserved_blocks;   /* blocks of the engine's count that no request holds (vLLM's
                                  null block): pool_blocks = count - reserved */
    /* KV_SCHED_RESERVE: max_batched_tokens is the chunk budget (chunked_prefill_size) */
    int64_t max_prefill_tokens;/* prompt tokens of one prefill batch (its first may pass it) */
    int64_t clip_new_tokens;   /* a decode reservation's cap per request */
    double ratio_init, ratio_min, ratio_decay; /* new_token_ratio: start, floor, fall a step */
    int64_t retract_steps;     /* the tokens per remaining request a retraction plans for */
    int prefix_caching;        /* 1: full blocks of computed prompts are cached and shared by
                                  requests that begin alike (vLLM V1's prefix cache): a shared
                                  prefix (kv_workload.shared_prefix) is computed and held once */
    /* kvcalc 6, KV_SCHED_SLOTS: llama-server's prompt reuse (cache_prompt, on by default). A
     * task computes only what follows the longest common prefix of its prompt and the tokens
     * of the slot it takes, or of a prompt state loaded into that slot from the host-memory
     * prompt cache; each slot holds its own copy (a shared prefix is held once a slot) */
    int slot_reuse;               /* 1: simulated (kv_workload.shared_prefix), else refused */
    double slot_similarity;       /* -sps: an idle slot whose common prefix is more than this
                                     share of the prompt is chosen before the least recently
                                     used one (0: that choice is off) */
    int64_t prompt_cache_mib;     /* --cache-ram: the prompt cache's bytes limit, MiB (-1: no
                                     limit, 0: no prompt cache) */
    int64_t prompt_cache_tokens;  /* its token limit (n_ctx), raised to what the bytes limit
                                     holds at the cached states' mean bytes a token */
    double token_state_bytes;     /* a cached state's bytes a token (its cells' K and V) */
    int slot_longest;             /* 1: a task takes the idle slot of the longest common
                                     prefix, the first of equals, and no prompt cache is kept
                                     (Ollama's Go runners: InputCache.findLongestCacheSlot) */
    int64_t shift_keep;           /* with shift_discard: the tokens a context shift keeps at
                                     the start (num_keep); a shifted slot's tokens then begin
                                     with those of the prompt only */
    int idle_slots_saved;         /* --cache-idle-slots: an idle slot is saved to the prompt
                                     cache (a copy; its cells kept unless cleared below) */
    int idle_slots_cleared;       /* --cache-idle-slots with a shared cache: when a task
                                     starts, the idle slots are saved to the prompt cache and
                                     their cells freed (without one: saved, cells kept) */
} kv_sched;

/* The scheduler of spec s's engine, from r = kv_compute(s). Returns KV_OK, or
 * KV_ERR_WORKLOAD with *why (may be NULL) saying which rules are missing (an engine or
 * release whose scheduler is not simulated). */
KVCALC_API kv_status kv_sched_of(const kv_spec *s, const kv_result *r, kv_sched *out,
                                 kv_error *why);

#define KV_WORKLOAD_CURVE 8

/* What the workload gives on that scheduler. Rates in requests per second, times in
 * seconds, KV usage a fraction of pool_blocks. NaN: not computed (no rate, nothing found). */
typedef struct {
    const char *rules_engine;          /* whose scheduler ran (kv_sched.engine_title) */
    const char *left_out;              /* what it leaves out (kv_sched.left_out) */
    double rate;                       /* the rate simulated (a closed loop: the rate it served;
                                          NaN: none) */
    int64_t concurrency;               /* the closed loop's clients (0: a rate) */
    double prompt_mean, output_mean;   /* of the requests simulated (after the limits) */
    double blocks_mean;                /* blocks one request holds, averaged over its steps */
    double fit_requests;               /* requests the pool holds at once at these lengths
                                          (pool / blocks_mean; slots: the slots) */
    double step_s;                     /* one decode step (tpot: given, or the roofline's) */
    double prefill_token_s;            /* one prompt token's prefill (ttft / mean prompt) */
    double kv_cliff_rate;              /* the rate whose mean demand fills the pool */
    double seq_cliff_rate;             /* the rate that keeps max_seqs running (NaN: no cap) */
    double prefill_cliff_rate;         /* the rate whose prompts fill every step with prefill:
                                          1 / (mean prompt x c) (NaN: prefill not timed) */
    double saturation_rate;            /* the smallest: above it the queue grows without bound */
    const char *binding;               /* which binds first: "kv_cache", max_seqs_name or
                                          "prefill" */
    int simulated;                     /* 1: a rate was given and the run made */
    int64_t requests, rejected, truncated; /* simulated; longer than max_model_len; stopped
                                              at a slot's end */
    int64_t preemptions;               /* preemption events (slots: requests failed) */
    int64_t request_steps;             /* (request, step) pairs computed: the run's work */
    double duration_s;                 /* simulated time, first arrival to last finish */
    double running_mean, waiting_mean; /* time-averaged between the arrivals of the first and
                                          the last tenth of requests */
    double kv_usage_mean, kv_usage_p99;/* time-averaged / its 99th percentile in time */
    double time_in_system_s;           /* arrival to last token, mean */
    double ttft_s;                     /* arrival to first token, mean */
    double preemptions_per_s;
    double littles_law_requests;       /* rate x time in system: what Little's law predicts
                                          running + waiting to be */
    double preemption_onset_rate;      /* the lowest rate that preempts (bisection on
                                          the same seed); NaN: none below 2 x saturation */
    int64_t replicas;                  /* ceil(rate / (limit x (1 - headroom))), the limit the
                                          onset or the saturation, whichever is lower */
    int onset_cut;                     /* 1: the onset search stopped at its bound of 2 x 10^8
                                          request-steps (onset null; fewer requests search it) */
    /* the onset's scan: eighths of 2 x the saturation rate, each run on the same requests
     * (--plot draws them) */
    size_t n_curve;
    double curve_rate[KV_WORKLOAD_CURVE], curve_kv_usage[KV_WORKLOAD_CURVE];
    double curve_preemptions_per_s[KV_WORKLOAD_CURVE], curve_running[KV_WORKLOAD_CURVE];
    /* kvcalc 6: the step's roofline estimate (step_estimated 1: step_s is it; no tpot given) */
    int step_estimated;
    kv_roofline step_roofline;         /* what it divided by and read (the workload's) */
    double step_kv_bytes;              /* the KV a step reads on that GPU: the blocks the
                                          running requests hold x block_bytes */
    double step_running;               /* those running requests: by Little's law at the rate
                                          (rate x output x step), the clients of a closed loop,
                                          at most the requests the pool holds (fit_requests) */
    const char *step_assumes;          /* what the estimate assumes and leaves out, in words
                                          (NULL: the step was given) */
    /* a shared prefix (kv_workload.shared_prefix): the prefix cache's hits */
    int64_t prefix_blocks;             /* the prefix's full blocks: shared_prefix / block size */
    double prefix_hit_rate;            /* tokens found in the cache / tokens looked up, over
                                          every admission (NaN: no shared prefix) */
} kv_workload_result;

/* Sets w->roofline from GPU g (its bandwidth_gbs), the weights the engine of spec s keeps
 * on one GPU (r = kv_compute(s)) and the bytes of one of sc's blocks (sc = kv_sched_of(s,
 * r)), for kv_workload_run() to estimate the step when w->tpot_ms is 0. Returns KV_OK, or
 * KV_ERR_WORKLOAD with *why (may be NULL) when the roofline cannot stand for the step: no
 * GPU, its bandwidth unknown (0), pipeline stages (a step passes each in turn), or weights
 * or cache the engine reads from host memory (w->roofline then zero). */
KVCALC_API kv_status kv_workload_roofline(const kv_spec *s, const kv_result *r, const kv_sched *sc,
                                          const kv_gpu *g, kv_workload *w, kv_error *why);

/* Bytes of scratch memory kv_workload_run() needs for w (the caller allocates it: the
 * library does not). */
KVCALC_API size_t kv_workload_scratch_bytes(const kv_workload *w);
/* The closed forms and, with a rate, the simulation of w on sc, in scratch (at least
 * kv_workload_scratch_bytes(w), aligned for doubles). Deterministic: the same inputs give
 * the same result. Returns KV_OK, or KV_ERR_WORKLOAD with *why (may be NULL) naming the
 * workload input that cannot run. */
KVCALC_API kv_status kv_workload_run(const kv_sched *sc, const kv_workload *w, void *scratch,
                                     size_t scratch_bytes, kv_workload_result *out,
                                     kv_error *why);

/* ---- metrics: a /metrics scrape of a serving engine (--from-metrics) ---- */

#define KV_METRICS_LINE_MAX 65536
#define KV_METRICS_ROWS 96

/* One scrape's figures, whichever name generation it uses (NaN: not in the scrape).
 * Counters and histograms are cumulative since the server started. */
typedef struct {
    kv_engine engine;           /* by the names' prefix: vllm:, sglang: / sglang_, llamacpp: */
    const char *generation;     /* the name generation seen ("V1 0.10+ (kv_cache_usage_perc)"),
                                   "" when the names say none */
    const char *prefix_generation; /* a prefix's own ("re-exported with the sglang_ prefix") */
    char model[128];            /* model_name (or name) label, "" when none */
    int replicas;               /* vLLM engine="N" / SGLang dp_rank labels seen: N + 1 */
    double prefix_caching;      /* cache_config_info enable_prefix_caching: 1, 0; NaN unknown */
    size_t samples;
    double time_s;              /* the samples' timestamp, seconds; NaN: none */
    /* capacity */
    double capacity_tokens;     /* kv_cache_size_tokens, num_gpu_blocks x block_size (vLLM),
                                   max_total_num_tokens (SGLang) */
    double gpu_blocks, block_size, gpu_util; /* vLLM cache_config_info */
    double max_concurrency;     /* ... its kv_cache_max_concurrency (2026) */
    double max_model_len;       /* kv_cache_size_tokens / kv_cache_max_concurrency, rounded */
    double context_len, max_running, tokens_max; /* SGLang's; llama.cpp's n_tokens_max */
    /* now */
    double kv_usage;            /* 0..1 (vLLM kv_cache_usage_perc or gpu_cache_usage_perc,
                                   SGLang token_usage, llama.cpp kv_cache_usage_ratio) */
    double kv_usage_old;        /* gpu_cache_usage_perc as read */
    double used_tokens;         /* SGLang num_used_tokens, llama.cpp kv_cache_tokens */
    double running, waiting;
    double retracted;           /* SGLang num_retracted_reqs (a gauge) */
    /* since start */
    double preemptions;         /* vLLM num_preemptions_total, SGLang num_retracted_requests_total */
    double prefix_queries, prefix_hits;         /* vLLM, tokens (blocks in old builds) */
    double prefix_queries_old, prefix_hits_old; /* gpu_prefix_cache_*: as read */
    double prefix_hit_rate;     /* vLLM V0 gpu_prefix_cache_hit_rate, SGLang cache_hit_rate */
    double prompt_sum, prompt_count, output_sum, output_count; /* the length histograms */
    double ttft_sum, ttft_count, tpot_sum, tpot_count, itl_sum, itl_count;
    double e2e_sum, e2e_count, queue_sum, queue_count;
    double finished;            /* requests finished (vLLM request_success_total, SGLang
                                   num_requests_total) */
    double prompt_tokens_total, generation_tokens_total;
    double prompt_seconds_total, predicted_seconds_total, decode_calls, busy_slots_per_decode;
    unsigned short series[KV_METRICS_ROWS]; /* the reader's own: series averaged per figure */
} kv_metrics_scrape;

/* A file of one or more scrapes: the first and the latest are kept (scrape[0], scrape[1]). */
typedef struct {
    kv_metrics_scrape scrape[2];
    size_t n;                   /* scrapes kept: 1 or 2 */
    size_t scrapes;             /* after kv_metrics_finish(): scrapes seen - 1 (the reader's
                                   count of the first series' repeats) */
    size_t line;
    char first_key[512];        /* the reader's own: the file's first series */
    size_t first_key_len;
} kv_metrics;

KVCALC_API void kv_metrics_init(kv_metrics *m);
/* Feeds one line (without its newline). KV_OK, or KV_ERR_FORMAT with err "line N: ...". */
KVCALC_API kv_status kv_metrics_feed_line(kv_metrics *m, const char *line, size_t len,
                                          char *err, size_t errcap);
/* After the last line: the figures of each scrape completed from the other generation's
 * names; KV_ERR_FORMAT when no engine's metric was read. */
KVCALC_API kv_status kv_metrics_finish(kv_metrics *m, char *err, size_t errcap);
/* Reads (and feeds) a file, "-" stdin, bounded; does not finish it: a second file may follow
 * into the same kv_metrics (its first series starts the second scrape). */
KVCALC_API kv_status kv_metrics_read_file(const char *path, const char *label, kv_metrics *m,
                                          char *err, size_t errcap);

/* Starts the next scrape explicitly (a second file): its lines go to scrape[1]. */
KVCALC_API void kv_metrics_next(kv_metrics *m);

/* One input a scrape's figure becomes: the flag by name, its value as text, and whether it is
 * the measured pool (used only to predict the load on the server's own pool). */
#define KV_METRICS_MAX_INPUTS 8
typedef struct {
    size_t n;
    struct {
        const char *flag;
        char text[48];
        int measured;
    } item[KV_METRICS_MAX_INPUTS];
} kv_metrics_inputs;
/* The inputs of the latest scrape of m (finished), by its engine's table. */
KVCALC_API void kv_metrics_inputs_of(const kv_metrics *m, kv_metrics_inputs *out);

/* What the scrapes measured, and kvcalc's figure beside each (NaN: not measured, or not
 * predicted). Lengths and latencies are the interval's (two scrapes) or the server's
 * lifetime means (one). */
typedef struct {
    kv_engine engine;
    const char *generation;
    const char *model;           /* the scrape's model label ("" none) */
    int64_t scrapes;             /* 1 or 2 */
    double interval_s;           /* between the two (timestamps or the interval given) */
    int replicas;                /* engines / dp ranks the figures sum over */
    int lengths_from_totals;     /* 1: no length histograms: prompt and output tokens over the
                                    finished requests (SGLang's, llama.cpp's counters) */
    int capacity_derived;        /* 1: no capacity metric: used tokens / usage (rounded) */
    double capacity_tokens, predicted_capacity_tokens, capacity_error_pct;
    double running, predicted_running;
    double waiting, predicted_waiting;
    double kv_usage, predicted_kv_usage; /* 0..1 */
    double preemptions_per_s, predicted_preemptions_per_s;
    double preemptions;          /* since start (the latest scrape's counter) */
    double prompt_mean, output_mean; /* tokens */
    double rate;                 /* finished requests per second over the interval */
    double tpot_s, ttft_s, e2e_s, queue_s;
    double prefix_hit_rate;      /* hits / queries over the interval, or the engine's gauge */
    double saturation_rate, onset_rate; /* kvcalc's, at the measured lengths and step time */
    const char *binding;
} kv_metrics_comparison;

/* The measured half of *out from m (finished); interval_s > 0 overrides the timestamps' (for
 * two files without them). */
KVCALC_API void kv_metrics_measure(const kv_metrics *m, double interval_s,
                                   kv_metrics_comparison *out);
/* kvcalc's half: the capacity from r (the settings' run, or NULL), the load from w (a
 * workload run on the measured pool at the measured lengths and rate, or NULL) and, with one
 * scrape, the usage of the running requests at the measured mean lengths (sc's blocks). */
KVCALC_API void kv_metrics_predict(kv_metrics_comparison *c, const kv_result *r,
                                   const kv_sched *sc, const kv_workload_result *w);

/* ---- helpers: exact arithmetic and estimates (exposed for tests and renderers) ---------- */

/* The product of n unsigned 64-bit factors (n <= 4), computed exactly and rounded once to
 * the nearest double, ties to even - what Python does for float(a * b * c * d). */
KVCALC_API double kv_exact_product(const uint64_t *factors, size_t n);

/* Python's float floor division a // b (b != 0), including its correction step. */
KVCALC_API double kv_floordiv(double a, double b);

/* The parameter count of an architecture (embeddings, attention or MLA projections, dense
 * MLP or every MoE expert with shared experts and routers, norms, vision / audio towers) for
 * the given layers, KV heads and head size. Returns 0 when arch->known is 0. */
KVCALC_API double kv_estimate_params(const kv_arch *arch, const kv_layout *layout,
                                     int64_t layers, int64_t kv_heads, int64_t head_dim);
/* The same estimate, by part (all zero when arch->known is 0). */
KVCALC_API void kv_estimate_param_parts(const kv_arch *arch, const kv_layout *layout,
                                        int64_t layers, int64_t kv_heads, int64_t head_dim,
                                        kv_param_parts *out);
/* Weight bytes for the estimate: quantized parts (per arch->quant_scope) at the weight dtype
 * (or arch->quant_bytes), the rest at arch->base_dtype. Towers count as "the rest" unless
 * every weight is quantized (KV_QUANT_ALL): AWQ / GPTQ / FP8 checkpoints leave them 16-bit. */
KVCALC_API double kv_estimate_weight_bytes(const kv_arch *arch, const kv_layout *layout,
                                           int64_t layers, int64_t kv_heads, int64_t head_dim,
                                           kv_dtype weight_dtype);

/* The state one KV_LAYER_STATE layer of spec s keeps per request on one of `tp` ranks, in
 * elements: the convolution part and the SSM / recurrent part. Mamba-2's groups are
 * replicated up to tp when tp does not divide them (vLLM / SGLang MambaStateShapeCalculator);
 * other states split evenly. Both 0 when the config does not give the state. */
KVCALC_API void kv_state_per_rank(const kv_spec *s, int64_t tp, double *conv, double *ssm);

/* Bytes of one element of a state layer's state (its convolution part, and the SSM part
 * unless the config asks for float32): the model's dtype, not the KV cache's - the engines
 * keep states so whatever --dtype says (vLLM's mamba_cache_dtype "auto", SGLang's bfloat16
 * conv state); the KV dtype for a spec without the model's numbers. */
KVCALC_API double kv_state_elem_bytes(const kv_spec *s);

/* The layers of spec s that keep a cache of their own, by kind: every layer but the trailing
 * layout.kv_shared_layers, which read an earlier layer's cache. */
KVCALC_API void kv_cache_layer_counts(const kv_spec *s, int64_t counts[KV_LAYER_KINDS]);
/* KV heads on one of s->tp GPUs and the head size of an attention layer of kind k: the
 * full-attention layers' own (layout.full_kv_heads / full_head_dim) where the config gives
 * them, else the model's. */
KVCALC_API void kv_layer_shape(const kv_spec *s, kv_layer_kind k, int64_t *kv_heads_per_gpu,
                               int64_t *head_dim);

/* The bytes of DeepSeek-V4's cache entries (layout.csa_*), as vLLM lays them out
 * (vllm/v1/kv_cache_interface.py, vllm/models/deepseek_v4/ @ 28be48fa, the
 * local-inference-lab mirror): a latent entry of fp8_ds_mla, the NoPE part (head_dim - rope)
 * in fp8, the RoPE part in bf16, a scale byte for every 64 NoPE values and one pad byte (584
 * for 512 / 64); an indexer key, index_dim fp8 bytes and a float32 scale for every 128 (132);
 * a compressor's state row, 2 x coff x width float32 values (coff 2 for the 4:1 compressor, 1
 * for the 128:1 one; the indexer's own compressor 2 x 2 x index_dim). */
typedef struct {
    double entry, index_key, c4_state, c128_state, index_state;
} kv_csa_bytes;
KVCALC_API void kv_csa_bytes_of(const kv_spec *s, kv_csa_bytes *out);

/* Layers of each kind among the first `layers` layers of a layout; a parallel hybrid's
 * (layout.parallel_state) are counted in their attention kind and as state layers both. */
KVCALC_API void kv_layer_counts(const kv_layout *layout, int64_t layers,
                                int64_t counts[KV_LAYER_KINDS]);

#endif /* KVCALC_H */
