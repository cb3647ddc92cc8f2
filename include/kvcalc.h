/*
 * kvcalc.h - public API of the kvcalc sizing core.
 *
 * The core answers one question: given a model's KV-cache geometry, its weights and a GPU,
 * how many requests of a given context fit at once? It is pure: a kv_spec goes in, a
 * kv_result comes out, nothing is printed, nothing is allocated, there are no globals.
 * A serving engine (kv_spec.engine) decides the answer: the ideal engine is the lesson's
 * arithmetic, vLLM's is what vLLM allocates; the lesson's ideal figures stay in the result.
 * The library also reads models (config.json, the built-in presets) and knows GPUs; the
 * command-line program (src/cli) is a thin client of all of it.

 * Sections: dtypes; model layout; serving engines; spec; planning; result; computing;
 * models and GPUs; startup logs; helpers.
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
/* Finds a dtype by its name or another spelling of it (float16, bfloat16, fp8_e4m3,
 * fp8_e5m2, ...); returns 0 and sets *out, or -1 if the name is unknown. */
int kv_dtype_from_name(const char *name, kv_dtype *out);
/* The i-th other spelling kv_dtype_from_name() accepts, or NULL past the last (for help
 * texts and completions). */
const char *kv_dtype_spelling(size_t i);

/* ---- model layout: what each layer keeps ----------------------------------------------- */

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
} kv_layout;

/* How a vision / audio tower hands its output to the language model (the projector). */
typedef enum {
    KV_TOWER_VIT,     /* generic encoder: one linear map, tower width x merge^2 -> text */
    KV_TOWER_SIGLIP,  /* Gemma-3: SigLIP + RMSNorm + one matrix, vision -> text hidden */
    KV_TOWER_QWEN_VL, /* Qwen2.5/3-VL: patch mergers (norm, merged x merged, merged -> out),
                         one per deepstack level besides the final one */
    KV_TOWER_PIXTRAL, /* Mistral-3: RMSNorm, patch merger (merged -> width), 2-layer MLP */
    KV_TOWER_LLAMA4   /* Llama-4: pixel-shuffle MLP adapter, then one linear projector */
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
} kv_arch;

/* --quantization: how a checkpoint not described by its config is stored. The linear layers
 * are quantized; embeddings, the output head and norms keep the model's dtype (mxfp4: the
 * MoE experts only). */
typedef enum {
    KV_QUANTIZATION_NONE = -1,
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
} kv_param_parts;

/* ---- serving engines ------------------------------------------------------------------ */

typedef enum {
    KV_ENGINE_IDEAL, /* the lesson's arithmetic: every free byte holds KV, packed perfectly */
    KV_ENGINE_VLLM,  /* what vLLM's V1 engine allocates and logs at startup */
    KV_ENGINE_SGLANG,/* what SGLang's token pool holds (max_total_num_tokens) */
    KV_ENGINE_TRTLLM,/* TensorRT-LLM's paged KV cache: free memory x fraction, in blocks */
    KV_ENGINE_LLAMACPP,/* llama.cpp (llama-server): the cache its flags and build allocate */
    KV_ENGINE_COUNT
} kv_engine;

/* vLLM's startup inputs. Negative values mean "use kvcalc's documented estimate". */
typedef struct {
    double total_gib;            /* GPU memory as torch sees it (cudaMemGetInfo total), GiB;
                                    <= 0: from the spec's GPU (kv_vllm_result.total_source) */
    double util;                 /* --gpu-memory-utilization, (0, 1]; < 0: the release's default
                                    (kv_vllm_util_default: 0.9, 0.92 from 0.21) */
    double weights_gib;          /* "Model loading took X GiB", per GPU; < 0: estimate */
    double activation_gib;       /* profiled activation peak, per GPU; < 0: estimate */
    double non_torch_gib;        /* NCCL / CUDA non-torch memory, per GPU; < 0: estimate */
    double cuda_graph_gib;       /* CUDA-graph memory in the budget, per GPU; < 0: estimate */
    double kv_cache_memory_gib;  /* >= 0: the "Available KV cache memory" (skip the budget) */
    int64_t block_size;          /* tokens per block; 0: 16, or 64 for MLA (FlashMLA) */
    int64_t max_num_batched_tokens; /* T: enters sliding/chunked demand and the activation;
                                       0: vLLM's default for the GPU (8,192 on >= 70 GiB
                                       cards that are not A100s, else 2,048) */
    int64_t num_gpu_blocks_override; /* > 0: replaces the computed block count */
    int64_t max_num_seqs;        /* sizes the profile run's sampler; 0: vLLM's default for the
                                    GPU (1,024 on >= 70 GiB cards that are not A100s, else 256) */
    int version;                 /* vLLM 0.MINOR.PATCH as MINOR x 100 + PATCH (0.11 = 1100,
                                    0.10.1.1 = 1001): decides the era's formulas */
    int hybrid_manager;          /* 1: sliding/chunked layers keep their own KV groups */
    int mamba_align;             /* 1: "align" Mamba cache mode (2 blocks per state group) */
    int mla_align;               /* 1: V0's VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1 (0.7.x): each MLA
                                    latent padded to a multiple of 256 bytes (576 -> 640) */
    int use_v1;                  /* VLLM_USE_V1: 1 the V1 engine (0.7+), 0 the V0 engine (before
                                    0.11); < 0: the release's default (V1 from 0.8) */
    double swap_space_gib;       /* V0's --swap-space: CPU blocks per GPU, GiB; default 4 */
    int enforce_eager;           /* 1: --enforce-eager, no CUDA graphs (none in the budget) */
    int language_model_only;     /* 1: --language-model-only, no encoder profile run */
} kv_vllm_spec;

/* SGLang's startup inputs (docs/sglang.md). Values below 0 (or 0 for counts) are "auto". */
typedef struct {
    double mem_fraction_static;  /* --mem-fraction-static, (0, 1]; <= 0: the version's rule */
    double avail_before_gib;     /* P: "Load weight begin. avail mem=P GB"; < 0: estimate */
    double avail_after_gib;      /* A: "Load weight end. ... avail mem=A GB"; < 0: estimate */
    int64_t page_size;           /* tokens per page, >= 1 */
    int64_t max_total_tokens;    /* --max-total-tokens cap; 0: none */
    int64_t chunked_prefill_size;/* enters the default f (v0.5.3rc2+); 0: by the GPU */
    int64_t cuda_graph_max_bs;   /* enters the default f (v0.5.3rc2+); 0: by the GPU */
    int version;                 /* kv_sglang_version_parse() of e.g. "0.4.3.post4" */
} kv_sglang_spec;
/* TensorRT-LLM's KV-cache inputs (docs/trtllm.md). */
typedef struct {
    double fraction;          /* free_gpu_memory_fraction, (0, 1); default 0.9 */
    int64_t tokens_per_block; /* >= 1; default 32 */
    int64_t max_tokens;       /* KvCacheConfig.max_tokens cap; 0: none */
    double free_mem_gib;      /* the logged "available: F GiB"; < 0: estimate it as the
                                 spec's free memory (GPU - weights - overhead) */
} kv_trtllm_spec;

/* llama.cpp's KV-cache element types (-ctk / -ctv), in ggml's names and block sizes. */
typedef enum {
    KV_GGML_F32, KV_GGML_F16, KV_GGML_BF16, KV_GGML_Q8_0, KV_GGML_Q4_0, KV_GGML_Q4_1,
    KV_GGML_IQ4_NL, KV_GGML_Q5_0, KV_GGML_Q5_1, KV_GGML_CACHE_TYPES
} kv_ggml_cache_type;

typedef struct {
    const char *name;    /* "q8_0", as llama.cpp prints it */
    int64_t block;       /* elements per block: 1, or 32 for the quantized types */
    int64_t block_bytes; /* bytes per block: row bytes = elements / block x block_bytes */
} kv_ggml_cache_type_info;

/* --flash-attn: off, on, or auto (from build 6325; counts as on for the cache's sizes). */
typedef enum { KV_FLASH_OFF, KV_FLASH_ON, KV_FLASH_AUTO } kv_flash_attn;

#define KV_LLAMACPP_NEWEST_BUILD 10573 /* the newest build whose rules kvcalc describes */

struct kv_gguf_info; /* a GGUF header's per-layer numbers (models section) */

/* llama.cpp's inputs, by its own flag names (docs/llamacpp.md). Negative = not given: the
 * build's default. kvcalc models llama-server. */
typedef struct {
    int64_t build;          /* --llamacpp-build: whose rules apply (a newer one: the newest) */
    int64_t ctx_size;       /* -c: < 0 the build's default; 0 the model's context_length */
    int64_t parallel;       /* -np: 0 = not given (llama-server's slots for the build) */
    int kv_unified;         /* --kv-unified: one cache stream shared by every slot */
    int swa_full;           /* --swa-full: sliding layers keep a full-size cache */
    int flash_attn;         /* a kv_flash_attn; < 0: the build's default */
    int type_k, type_v;     /* kv_ggml_cache_type; < 0: from the spec's dtype (f16 unless
                               --dtype says otherwise) */
    int64_t batch_size;     /* -b, >= 1 [2048] */
    int64_t ubatch_size;    /* -ub, >= 1 [512]; the effective one is min(ub, b) */
    int64_t n_gpu_layers;   /* -ngl; < 0: the build's default (all from b6325, else 0) */
    const struct kv_gguf_info *gguf; /* the GGUF header the model came from (borrowed; its
                               per-layer heads and K/V sizes), or NULL: rows from the spec */
} kv_llamacpp_spec;

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
    kv_layout layout;        /* per-layer behaviour (zero: the lesson's plain model) */
    kv_arch arch;            /* for the parameter estimate */
    int params_estimated;    /* 1: weights from the arch estimate instead of params_b */
    int quantization;        /* a kv_quantization the checkpoint is stored in, as vLLM's and
                                SGLang's --quantization name it (the spec builder applies it
                                to weight_dtype and arch); KV_QUANTIZATION_NONE: as the model */
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
    kv_engine engine;        /* which engine's allocation answers (max_concurrency, fits) */
    kv_vllm_spec vllm;       /* used when engine == KV_ENGINE_VLLM */
    kv_sglang_spec sglang;   /* used when engine == KV_ENGINE_SGLANG */
    kv_trtllm_spec trtllm;   /* used when engine == KV_ENGINE_TRTLLM */
    kv_llamacpp_spec llamacpp; /* used when engine == KV_ENGINE_LLAMACPP */

    /* Labels for reports; the core ignores them. Borrowed strings, NULL when unset. */
    const char *model_name;  /* "Qwen/Qwen3-8B"; NULL: the lesson's illustrative model */
    const char *model_source;/* "config.json", "built-in preset" */
    const char *gpu_name;    /* "H100 80GB" when a GPU preset chose the memory, else NULL */
    int gpu_mem_estimated;   /* 1: that preset's memory is an estimate (kv_gpu.estimated) */
    double gpu_engine_gib;   /* that GPU's total as serving engines (torch) see it, GiB;
                                0: unknown (engines then estimate it from gpu_mem_gib) */
    int64_t max_context;     /* the model's max_position_embeddings, 0 if unknown */
    /* A checkpoint's own weights (a GGUF file's tensor infos); 0 = unknown. */
    double checkpoint_weights_bytes; /* > 0: the weights as stored, all GPUs; used instead
                                        of the estimate (--params-b / --weight-dtype clear it) */
    double checkpoint_params;        /* > 0: the elements of those tensors (the parameters) */
    const char *weights_source; /* where the weights came from, for reports: "gguf" (a GGUF
                                   header), "safetensors" (a folder's safetensors headers),
                                   "estimate" (a folder without safetensors: the estimate);
                                   NULL: --params-b, a preset's or a config's estimate */
    double checkpoint_tower_bytes; /* of checkpoint_weights_bytes: vision and audio towers */
    double checkpoint_mtp_bytes;   /* MTP / draft heads the checkpoint holds, left out of
                                      checkpoint_weights_bytes (engines load them only for
                                      speculative decoding; the estimate leaves them out too) */
} kv_spec;

/* Fills *s with the lesson's defaults: a 7B-class GQA model (28 layers, 4 KV heads,
 * head_dim 128, fp16) on a 48 GiB GPU with 2 GiB overhead, 4,096-token context, and
 * 50 requests sharing a 1,024-token prefix. */
void kv_spec_defaults(kv_spec *s);

/* ---- planning: how many GPUs for a target load ----------------------------------------- */

typedef struct {
    const char *name;  /* "H100 80GB" */
    double gib;        /* its memory, GiB */
    double engine_gib; /* its total as engines see it, GiB; 0 = unknown */
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
    KV_LEVER_FP8_KV,        /* fp8 KV cache */
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

/* Where vLLM's GPU total came from. */
typedef enum {
    KV_TOTAL_GIVEN,       /* vllm.total_gib was set */
    KV_TOTAL_GPU_MEMORY,  /* no GPU preset: the GPU memory given (gpu_mem_gib) */
    KV_TOTAL_ENGINE,      /* the GPU preset's engine-reported total (gpu_engine_gib) */
    KV_TOTAL_DRIVER_EST   /* the preset's driver total minus 0.5 GiB of CUDA context */
} kv_total_source;

/* Why vLLM would refuse to start, in the words of its generation. */
typedef enum {
    KV_VLLM_STARTS,         /* no refusal */
    KV_VLLM_NO_BLOCKS,      /* V0: "No available memory for the cache blocks" */
    KV_VLLM_V0_SEQ_LEN,     /* V0: "The model's max seq len (M) is larger than ..." */
    KV_VLLM_KV_NEEDED       /* V1: "To serve at least one request ... KV cache is needed" */
} kv_vllm_refusal;

/* The KV lines a vLLM release prints at startup. */
typedef enum {
    KV_VLLM_LINES_V0,     /* "# GPU blocks: N, # CPU blocks: M" (the word by release) */
    KV_VLLM_LINES_BLOCKS, /* V1 before 0.9.1: "# GPU blocks: N" */
    KV_VLLM_LINES_TOKENS  /* V1 from 0.9.1: "Available KV cache memory", "GPU KV cache size" */
} kv_vllm_lines;

/* What vLLM would allocate and print, per GPU. */
typedef struct {
    double total_gib;            /* the total used, GiB */
    kv_total_source total_source;
    double total_bytes;          /* total_gib x GiB */
    double util;                 /* --gpu-memory-utilization in force (the release's default) */
    double requested_bytes;      /* util x total */
    double weights_bytes, activation_bytes, non_torch_bytes, cuda_graph_bytes;
    double encoder_bytes;        /* the multimodal encoder's profile peak (in the activation
                                    estimate when it binds); 0: none */
    int encoder_binds;           /* 1: the encoder's run is the estimated activation peak */
    double available_bytes;      /* requested - the four above, or --kv-cache-memory-gib */
    double elem_bytes;           /* KV element bytes (the spec's KV dtype) */
    int64_t block_size;          /* tokens per block, after MLA forcing / Mamba alignment */
    double page_bytes;           /* one block of one layer */
    int64_t group_size;          /* layers per KV-cache group (tensors sharing the pool) */
    int64_t num_groups;          /* KV-cache groups */
    int64_t padding_layers;      /* layers added to fill the groups of one kind */
    double padding_percent;      /* of that kind's layers ("may waste at most P%") */
    const char *padding_kind;    /* which kind was padded, or NULL */
    int v1;                      /* 1: the V1 engine's rules and lines, 0: V0's */
    kv_vllm_lines lines;         /* which startup lines the release prints */
    const char *device_word;     /* V0's "# %s blocks" word: "GPU", "CUDA" or "cuda" */
    int memory_lines;            /* V0 0.6.5+: "the current vLLM instance can use ..." */
    int concurrency_line;        /* "Maximum concurrency ..." (V0 0.6.3+, every V1) */
    int64_t num_gpu_blocks;      /* floor(available / (page x group_size)) */
    int64_t num_cpu_blocks;      /* V0's swap space in blocks ("# CPU blocks"); 0 with V1 */
    int64_t blocks_per_request;  /* blocks one max_model_len request needs, all groups */
    double max_concurrency;      /* num_gpu_blocks / blocks_per_request */
    int64_t gpu_kv_cache_tokens; /* the "GPU KV cache size" line, per the version's formula */
    int64_t max_num_batched_tokens;
    int64_t max_num_seqs;        /* as resolved (the default for the GPU when not given) */
    int fits;                    /* one request of max_model_len fits */
    kv_vllm_refusal refusal;     /* KV_VLLM_STARTS when fits, else which error vLLM raises */
    int64_t v0_max_seq_len;      /* V0: tokens its blocks hold per stage (block size x
                                    blocks / pp), what its refusal compares with */
    double needed_bytes;         /* KV one request of max_model_len needs (all layers) */
    int64_t max_model_len_fit;   /* longest max_model_len that fits (when !fits) */
    int64_t longest_fit;         /* longest max_model_len that fits, whatever the context */
    int64_t prefix_shared_blocks;   /* whole blocks of the shared prefix, per full group */
    int64_t prefix_shared_tokens;   /* those blocks in tokens */
    double prefix_saved_bytes;      /* (requests - 1) x shared blocks x page x group_size */
    double prefix_extra_concurrency;/* floor(saved blocks / blocks_per_request) */
} kv_vllm_result;

/* What SGLang would allocate and print, per GPU. */
typedef struct {
    double mem_fraction_static;  /* f in force (the flag, or the version's default) */
    int fraction_default;        /* 1: f came from the version's rule */
    double gpu_mem_mib;          /* the GPU total the default rule saw, MiB */
    double avail_before_gib;     /* P used */
    double avail_after_gib;      /* A used */
    int estimated;               /* 1: P or A was estimated (no log given) */
    double rest_bytes;           /* A - P x (1 - f), in bytes: the pool's budget */
    double cell_bytes;           /* KV bytes of one token, all attention layers, one rank */
    int64_t attn_layers;         /* layers in the cell */
    int64_t page_size;
    int64_t max_total_num_tokens;/* N after the cap and page flooring; 0: refuses */
    int64_t pad_rows;            /* rows every layer holds beyond N */
    double k_bytes, v_bytes;     /* the K and V buffers (MLA: the latent in k, v = 0) */
} kv_sglang_result;
/* What TensorRT-LLM would allocate and print, per GPU (rank). */
typedef struct {
    double free_bytes;        /* the free memory the fraction applies to */
    int free_estimated;       /* 1: no --free-mem-gib; free_bytes is kvcalc's estimate */
    double primary_bytes;     /* free_bytes x fraction */
    double per_token_bytes;   /* K and V of one token in every attention layer of this rank */
    int64_t max_tokens;       /* floor(primary / per token), or the --max-tokens cap */
    int capped;               /* 1: --max-tokens was smaller and won */
    int64_t tokens_per_block;
    int64_t blocks;           /* ceil(max_tokens / tokens_per_block): "primary pool: B" */
    int64_t tokens;           /* blocks x tokens_per_block: the "(N)" of the Allocated line */
    double allocated_bytes;   /* tokens x per token: the "Allocated X GiB" */
    int64_t blocks_per_request; /* ceil(context / tokens_per_block) */
    double max_concurrency;   /* floor(blocks / blocks_per_request) */
} kv_trtllm_result;

/* One cache llama.cpp allocates (the main one, or the sliding-window one). */
typedef struct {
    int64_t layers;      /* layers in it */
    int64_t cells;       /* cells per stream */
    double k_bytes, v_bytes; /* all layers, all streams */
} kv_llamacpp_cache;

/* What llama.cpp would allocate and print (one process; layers split over devices). */
typedef struct {
    int64_t build;           /* the rules applied (the newest for a larger --llamacpp-build) */
    int64_t n_ctx_asked;     /* n_ctx before padding: -c, the build's default or the
                                model's context_length */
    int ctx_from_model;      /* 1: n_ctx is the model's context_length (-c 0, or the
                                default from b7407) */
    int autofit;             /* 1: this build would fit n_ctx to free memory (no -c, from
                                b7407): kvcalc's figure is the unfitted one */
    int64_t n_seq;           /* n_seq_max: slots */
    int auto_slots;          /* 1: llama-server's automatic 4 unified slots (no -np) */
    int unified;             /* 1: one stream shared by every slot */
    int flash;               /* flash attention counted as on (on, or auto from b6325) */
    int type_k, type_v;      /* kv_ggml_cache_type in force */
    int v_less;              /* 1: an MLA cache without V (from b7832) */
    int64_t n_ubatch;        /* min(-ub, -b) */
    int64_t pad;             /* cell padding of the build */
    int64_t streams;
    int64_t n_ctx;           /* cells x streams of the main cache: "n_ctx = N" */
    int rounded;             /* 1: "n_ctx is not divisible by n_seq_max - rounding down to" */
    int64_t slot_ctx;        /* tokens one slot (one request) may hold */
    kv_llamacpp_cache main;  /* non-sliding attention layers */
    kv_llamacpp_cache swa;   /* sliding / chunked layers (layers 0 before b5429: they are
                                in the main cache) */
    int64_t state_layers;    /* recurrent layers */
    int64_t state_rows;      /* max(1, n_seq) */
    double state_r_bytes, state_s_bytes; /* their f32 state (R: conv, S: SSM; r holds all
                                of it when the split is unknown) */
    int64_t n_layer;         /* blocks (for -ngl) */
    int64_t gpu_layers;      /* of n_layer + 1 (the output layer), on the GPU */
    double kv_gpu_bytes;     /* KV and state of the GPU layers */
    double kv_host_bytes;    /* the rest, in host memory */
    double weights_gpu_bytes;/* the weights' share of the GPU layers */
    double compute_bytes;    /* the GPU compute buffer: an estimate (docs/llamacpp.md) */
    double gpu_needed_bytes; /* weights + KV + state + compute on the GPU + overhead */
    int fits_gpu;            /* gpu_needed_bytes <= GPU memory */
    int64_t ctx_size_fit;    /* the largest -c that fits the GPU with the other flags as
                                given; 0: none; INT64_MAX: any (nothing grows on the GPU) */
    int64_t autofit_ctx;     /* when auto-fit applies and the unfitted cache does not fit:
                                the -c it would lower to (ctx_size_fit, at least 4096), an
                                estimate; requests at once are counted at it. 0: not used */
    int64_t autofit_n_ctx;   /* cells x streams at autofit_ctx */
    int64_t autofit_slot_ctx;/* one slot's room at autofit_ctx */
} kv_llamacpp_result;

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

typedef struct {
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
                                    token (INT64_MAX: any, e.g. only windowed layers) */

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
    kv_vllm_result vllm;         /* filled when spec.engine == KV_ENGINE_VLLM */
    kv_sglang_result sglang;     /* filled when spec.engine == KV_ENGINE_SGLANG */
    kv_trtllm_result trtllm;     /* filled when spec.engine == KV_ENGINE_TRTLLM */
    kv_llamacpp_result llamacpp; /* filled when spec.engine == KV_ENGINE_LLAMACPP */
} kv_result;

/* The lesson's context-vs-concurrency table (kv_table_compute). */
typedef struct {
    size_t n_rows;
    kv_row rows[KV_MAX_ROWS];    /* ascending context; max_concurrency from the engine */
} kv_table;

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
    KV_ERR_MEMORY_RANGE,    /* gpu - weights - overhead is not a finite number */
    KV_ERR_LAYOUT,          /* a layout field out of range (pattern, window, latent) */
    KV_ERR_TP,              /* tp < 1, or it does not divide the attention / KV heads */
    KV_ERR_VLLM,            /* a vLLM input out of range (utilization, block size, memory) */
    KV_ERR_ENGINE,          /* engine is not a kv_engine */
    KV_ERR_VLLM_RANGE,      /* a vLLM block or token count would exceed 2^63 - 1 */
    KV_ERR_TARGET,          /* the plan for a target needs more than 2^63 - 1 GPUs */
    KV_ERR_TRTLLM,          /* a TensorRT-LLM input out of range, or its token count would
                               exceed 2^62 */
    KV_ERR_SGLANG,          /* an SGLang input out of range (fraction, memory, page size) */
    KV_ERR_LLAMACPP,        /* a llama.cpp input it would refuse (kv_llamacpp_problem()) */
    KV_ERR_PARALLEL         /* pp < 1 or more stages than layers, dp < 1 */
} kv_status;

/* ---- computing ------------------------------------------------------------------------ */

/* Computes *r from *s: the lesson's figures, then the chosen engine's answer. Pure: no I/O,
 * no allocation, no globals. Returns KV_OK, or the status naming the offending input (and
 * leaves *r unspecified). */
kv_status kv_compute(const kv_spec *s, kv_result *r);

/* The KV bytes one request holds at `context` tokens (what kv_compute puts in
 * kv_bytes_per_request), for any context. s must be valid (kv_compute() == KV_OK). */
double kv_request_bytes(const kv_spec *s, int64_t context);

/* The context-vs-concurrency table for spec s and its result r (kv_compute(s)): 1k, 2k, 4k,
 * 8k, 16k and 32k tokens with s->context merged in, each row by the chosen engine. Its own
 * computation, so that a caller who needs one figure (a sweep) does not pay for the table. */
void kv_table_compute(const kv_spec *s, const kv_result *r, kv_table *out);

/* Whole requests of `context` tokens the chosen engine holds at once for spec s (valid);
 * what kv_compute() reports as max_concurrency when s->context == context. */
double kv_max_concurrency_at(const kv_spec *s, int64_t context);

/* The name of an engine ("ideal", "vllm"), or NULL for a value out of range. */
const char *kv_engine_name(kv_engine e);

/* Fills the vLLM defaults: utilization auto, block size auto, T auto, GPU total auto,
 * version 0.11, hybrid manager on, Mamba mode "none", every memory term estimated. */
void kv_vllm_defaults(kv_vllm_spec *v);

/* What the activation estimate reads: the profile run's shape and the model's widths. */
typedef struct {
    int64_t batched_tokens; /* max_num_batched_tokens T of the dummy forward pass */
    int64_t seqs;           /* max_num_seqs: rows of the dummy sampler run (0 off the last
                               pipeline stage) */
    int64_t vocab;          /* vocabulary; <= 0: no model (the flat rule) */
    int64_t mlp_width;      /* MLP width one GPU computes per token (one expert's for MoE) */
    int64_t moe_row;        /* elements per token of an MoE layer's expert outputs before
                               they are summed: routed experts per token x hidden; 0 for
                               dense models */
    int64_t act_bytes;      /* bytes per activation element (2 for bf16 / fp16) */
    int version;            /* vllm.version */
    int v1;                 /* 1: the V1 engine, 0: V0 */
    double encoder_bytes;   /* peak of the multimodal encoder's profile run; 0: none */
    double encoder_cache_bytes; /* its outputs, held through the language model's run */
} kv_vllm_activation_inputs;

/* kvcalc's estimates for the terms vLLM measures at startup, in GiB (docs/vllm.md gives the
 * fit and its measured error on public logs).
 * Activation peak of the profile run: the dummy sampler run over max_num_seqs rows of the
 * vocabulary dominates it (its f32 logits, probabilities and sort buffers: 9.426 copies of
 * seqs x vocab x 4 B), then the forward pass of T tokens: 0.257 x T x MLP width x 4 B, and
 * for MoE models the fused kernel's buffer, T x moe_row x act_bytes. Releases whose sampler
 * warm-up holds fewer buffers (V1 0.10.0-0.10.1 and 0.21+, V0 before 0.7.3) count 2.3
 * copies. With vocab <= 0 (no model) the older flat rule: 0.25 + 0.1 per 1,024 batched
 * tokens.
 * Non-torch memory: 0.5 GiB with tensor parallelism (NCCL, custom all-reduce), else 0.13 GiB
 * on cards of 70 GiB or more and 0.06 GiB on smaller ones (the CUDA context's share).
 * CUDA graphs = 0 before 0.21 (outside the budget), 0.5 from 0.21 (inside it). */
double kv_vllm_activation_estimate_gib(const kv_vllm_activation_inputs *in);
/* The multimodal encoder's profile run as vLLM V1 sets it up (docs/vllm.md): the modality
 * with the most tokens per item at its largest (a Qwen-VL image at the processor's
 * max_pixels: 16,384 tokens, or a video of as many such frame pairs as max_model_len holds;
 * a Gemma-3 image: 256 tokens of 4,096 patches), max(T, item) / item items (at most
 * max_num_seqs x max(1, max_model_len / item)), each patch through the tower's widest block
 * (2 x width + 2 or 3 x MLP width per GPU, 2 B each); *cache_bytes: the items' tokens at the
 * text width (x patch mergers). 0 for a model without a vision tower vLLM profiles (Qwen-VL,
 * Gemma-3), V0, or with --language-model-only. Not measured against a log that prints it. */
double kv_vllm_encoder_profile(const kv_spec *s, int64_t batched_tokens, int64_t max_num_seqs,
                               double *cache_bytes);
double kv_vllm_non_torch_estimate_gib(int64_t tp, double total_gib);
/* vLLM's default --gpu-memory-utilization for a release: 0.9, 0.92 from 0.21. */
double kv_vllm_util_default(int version);
double kv_vllm_cuda_graph_estimate_gib(int version);
/* Writes a vllm.version as vLLM spells it ("0.11", "0.10.1") into buf. */
void kv_vllm_version_format(int version, char *buf, size_t cap);

/* SGLang: the defaults (version 0.5.6, page size 1, every memory figure "auto"). */
void kv_sglang_defaults(kv_sglang_spec *g);
/* Parses an SGLang release ("0.4.3.post4", "0.5.3rc2", "0.4.6") into a number that orders
 * releases (rc < final < post); returns 0, or -1 when text is not such a version. */
int kv_sglang_version_parse(const char *text, int *out);
/* Writes SGLang's spelling of a parsed version into buf. */
void kv_sglang_version_format(int version, char *buf, size_t cap);
/* SGLang's default mem_fraction_static for a version, the GPU total in MiB (<= 0: unknown),
 * tp, a vision tower, and chunked prefill / CUDA-graph batch (0: by the GPU). */
double kv_sglang_default_fraction(int version, double gpu_mem_mib, int64_t tp, int vision,
                                  int64_t chunked_prefill, int64_t cuda_graph_bs);
/* Fills the TensorRT-LLM defaults: fraction 0.9, 32 tokens per block, no max_tokens cap,
 * free memory estimated. */
void kv_trtllm_defaults(kv_trtllm_spec *t);

/* Fills the llama.cpp defaults: the newest build's rules, every flag "not given". */
void kv_llamacpp_defaults(kv_llamacpp_spec *l);
/* The row of the cache type table for t (t < KV_GGML_CACHE_TYPES). */
const kv_ggml_cache_type_info *kv_ggml_cache_type_get(kv_ggml_cache_type t);
/* Why llama.cpp refuses spec s (one sentence naming the flag), or NULL when it does not:
 * what kv_compute() reports as KV_ERR_LLAMACPP. */
const char *kv_llamacpp_problem(const kv_spec *s);
/* Why vLLM could not run spec s as asked (one sentence naming the flag: an engine generation
 * the release does not have), or NULL: what kv_compute() reports as KV_ERR_VLLM for it. */
const char *kv_vllm_problem(const kv_spec *s);

/* Stage `stage` of a pp-stage pipeline over `layers` layers, as vLLM partitions them (layers /
 * pp each; the remainder one more each to the stages before the last, from the second-last
 * back): its first layer into *first, its layer count returned. */
int64_t kv_pp_stage_layers(int64_t layers, int64_t pp, int64_t stage, int64_t *first);

/* Whether tensor parallelism of size tp can split this model: tp divides the attention heads
 * (when known) and, without MLA, tp divides the KV heads or the KV heads divide tp (then they
 * are replicated). */
int kv_tp_valid(const kv_spec *s, int64_t tp);

/* A short English explanation of a status ("must be an integer >= 1", ...). */
const char *kv_status_message(kv_status st);

/* ---- planning ------------------------------------------------------------------------- */

/* Reverse sizing: the memory `target` requests need at the spec's context, and for the
 * spec's own GPU and each of `n` GPU choices (at each TP size in 1, 2, 4, 8 that the model
 * can be split over) the replicas and GPUs needed, all by the spec's engine. r is
 * kv_compute(s). */
kv_status kv_plan_compute(const kv_spec *s, const kv_result *r, int64_t target,
                          const kv_gpu_choice *gpus, size_t n, kv_plan *out);

/* The layouts of at most `gpus` GPUs for spec s (its tp, pp and dp replaced), by the spec's
 * engine; `target` > 0 asks for the fewest GPUs that hold it. */
kv_status kv_layouts_compute(const kv_spec *s, int64_t gpus, int64_t target, kv_layouts *out);

/* What half the context, an fp8 KV cache, int8 and int4 weights and (offload_gib > 0) a CPU
 * tier of offload_gib each buy, one at a time, by the spec's engine; replicas for `target`
 * when it is > 0. */
kv_status kv_levers_compute(const kv_spec *s, double offload_gib, int64_t target,
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
void kv_curve_compute(const kv_spec *s, kv_curve *out);

/* ---- models and GPUs: config.json, the built-in presets ------------------------------- */

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
 * values in s. Returns 0, or 2 with one line "kvcalc: LABEL:LINE:COL: what is wrong" in
 * err. Allocates a token array for the duration of the call; no other I/O. */
int kv_config_read(const char *text, size_t len, const char *label, kv_spec *s,
                   kv_model_info *info, char *err, size_t errcap);

/* Reads a whole file ("-" = standard input) of at most KV_CONFIG_MAX_BYTES into a malloc'ed
 * buffer (free() it). Returns 0, or 2 with one line in err. */
int kv_config_load_file(const char *path, char **text, size_t *len, char *err, size_t errcap);

/* ---- models: GGUF files (llama.cpp), header only ---- */

#define KV_GGUF_MAX_HEADER (64u << 20) /* metadata + tensor infos; refuse more than 64 MiB */
#define KV_GGUF_MAX_LAYERS KV_MAX_PATTERN /* block_count above this is refused */

/* What a GGUF header says beyond the spec (what an engine sizing llama.cpp needs). */
typedef struct kv_gguf_info {
    uint32_t version;            /* 2 or 3 */
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
} kv_gguf_info;

/* Reads a GGUF header (little-endian, version 2 or 3; v1 and big-endian files are refused)
 * from data[0..len) into s (layers, KV heads, head size, layout, weights from the tensor
 * infos), info (general.name, architecture, context_length) and g (may be NULL). Only the
 * header is needed: the buffer may end after the tensor infos. Fields the file does not
 * give keep their values in s. Returns 0, or 2 with one line "kvcalc: LABEL: byte OFFSET:
 * what is wrong" in err. No allocation, no I/O; never reads past data + len. */
int kv_gguf_read(const unsigned char *data, size_t len, const char *label, kv_spec *s,
                 kv_model_info *info, kv_gguf_info *g, char *err, size_t errcap);

/* Reads the header of the GGUF file at path (at most KV_GGUF_MAX_HEADER bytes, in growing
 * chunks, stopping after the tensor infos: tensor data is never read) and checks that the
 * file holds the data section the header describes. Same results as kv_gguf_read(). */
int kv_gguf_load_file(const char *path, kv_spec *s, kv_model_info *info, kv_gguf_info *g,
                      char *err, size_t errcap);

/* 1 when the file at path starts with the GGUF magic, else 0 (unreadable: 0). */
int kv_gguf_probe(const char *path);

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
kv_part kv_safetensors_part(const char *name, int64_t main_layers);

/* Reads a safetensors header from data[0..len) (the 8-byte length and the JSON; the tensor
 * data need not follow) of a file of file_size bytes, and adds its figures to *out (zero it
 * before the first file). Checked: the length (at most KV_SAFETENSORS_MAX_HEADER, within
 * the file), the JSON, each tensor's dtype (the safetensors dtypes, F4 to C64), shape (no
 * overflow) and data_offsets (their size is the shape's), and that the tensors tile the
 * data section exactly. Returns 0, or 2 with one line "kvcalc: LABEL: byte OFFSET: what is
 * wrong" in err (*out then unchanged). Allocates tokens for the call; never reads past
 * data + len. */
int kv_safetensors_read(const unsigned char *data, size_t len, uint64_t file_size,
                        const char *label, int64_t main_layers, kv_safetensors_info *out,
                        char *err, size_t errcap);

/* The same for the file at path: reads its first 8 bytes, its size, then its header only. */
int kv_safetensors_load_file(const char *path, int64_t main_layers, kv_safetensors_info *out,
                             char *err, size_t errcap);

/* Adds one's figures to *total (the shards of one checkpoint). */
void kv_safetensors_add(kv_safetensors_info *total, const kv_safetensors_info *one);

/* What a model folder held (kv_folder_load()). */
typedef struct {
    char model_file[1024];  /* where the geometry came from: DIR/config.json or DIR/X.gguf */
    int gguf;               /* 1: a GGUF file (the folder has no config.json) */
    kv_safetensors_info st; /* the safetensors headers read; st.files == 0: none */
} kv_folder_info;

/* 1 when path names a directory (a model folder), else 0. */
int kv_folder_probe(const char *path);

/* Loads a model folder into s and info: DIR/config.json (or, without one, the folder's
 * .gguf file, by kv_gguf_load_file()), then the weights from the safetensors headers -
 * every shard listed by model.safetensors.index.json's weight_map, read once; else
 * model.safetensors; else every *.safetensors file - as s->checkpoint_weights_bytes and
 * checkpoint_params without the MTP / draft heads (s->checkpoint_mtp_bytes; the towers are
 * in, also as s->checkpoint_tower_bytes; s->weights_source "safetensors"). Without
 * safetensors the estimate stays (weights_source "estimate"). Messages name files as dir + "/" + name, dir as given.
 * Returns 0, or 2 with one line in err. */
int kv_folder_load(const char *dir, kv_spec *s, kv_model_info *info, kv_folder_info *f,
                   char *err, size_t errcap);

/* Finds a Hugging Face model id ("org/name") in the local hub cache, offline: in
 * $HF_HUB_CACHE, else $HF_HOME/hub, else $HOME/.cache/huggingface/hub, the folder
 * models--org--name/snapshots/REV/, REV being refs/main's content, else the only (or the
 * newest) snapshot. Returns 1 with that folder in dir, or 0 with the cache folder looked
 * in written to looked ("" when there is none to look in). */
int kv_hf_cache_find(const char *id, char *dir, size_t cap, char *looked, size_t lcap);

/* A built-in model: a real config.json embedded at build time. */
typedef struct {
    const char *id;    /* Hugging Face id: "Qwen/Qwen3-8B" */
    const char *alias; /* short name: "qwen3-8b" */
    const char *file;  /* its file in data/models/ */
    const char *json;  /* the config.json text */
    size_t json_len;
} kv_model_preset;

/* The built-in models, in table order (i < kv_model_preset_count()). */
size_t kv_model_preset_count(void);
const kv_model_preset *kv_model_preset_at(size_t i);
/* A model by id or alias, case-insensitive; NULL if none. */
const kv_model_preset *kv_model_preset_find(const char *name);
/* The spec of a built-in model: kv_spec_defaults(), then its config. Returns 0 or 2. */
int kv_model_preset_spec(const kv_model_preset *m, kv_spec *s, kv_model_info *info,
                         char *err, size_t errcap);

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
} kv_gpu;

size_t kv_gpu_count(void);
const kv_gpu *kv_gpu_at(size_t i);
/* A GPU by name, alias or nvidia-smi / rocm-smi name, ignoring case, spaces, '-' and '_',
 * and a leading "NVIDIA", "AMD", "Tesla" or "GeForce" ("NVIDIA GeForce RTX 4090" finds
 * "RTX 4090"); NULL if none. */
const kv_gpu *kv_gpu_find(const char *name);
/* Its memory in GiB: the driver's MiB / 1024, else the engine-reported GiB. */
double kv_gpu_gib(const kv_gpu *g);

/* ---- startup logs: what a vLLM, SGLang or llama.cpp log states (--from-log) ----------- */

/* The longest line the reader keeps; a longer one is skipped and counted (never cut into a
 * shorter line that could match a pattern it does not hold). */
#define KV_LOG_LINE_MAX 16384

/* Every figure a startup log may state. Memory is in bytes (the engines' "GB" is GiB). */
typedef enum {
    KV_LOG_TP,              /* tensor_parallel_size / tp_size */
    KV_LOG_PP,              /* pipeline_parallel_size */
    KV_LOG_MAX_MODEL_LEN,   /* vLLM max_model_len / max_seq_len; SGLang context_len */
    KV_LOG_GPU_TOTAL,       /* vLLM: the GPU total torch sees */
    KV_LOG_UTIL,            /* vLLM gpu_memory_utilization */
    KV_LOG_REQUESTED,       /* vLLM: the budget's base as logged (total x utilization) */
    KV_LOG_BATCHED_TOKENS,  /* vLLM max_num_batched_tokens */
    KV_LOG_BLOCK_SIZE,      /* vLLM block_size */
    KV_LOG_WEIGHTS,         /* vLLM "Model loading took"; SGLang "mem usage"; llama.cpp file size */
    KV_LOG_ACTIVATION,      /* vLLM activation peak */
    KV_LOG_NON_TORCH,       /* vLLM non-torch memory */
    KV_LOG_CUDA_GRAPH,      /* vLLM CUDA-graph memory */
    KV_LOG_AVAILABLE_KV,    /* vLLM "Available KV cache memory" (the smallest of the ranks) */
    KV_LOG_KV_TOKENS,       /* vLLM "GPU KV cache size"; SGLang max_total_num_tokens / #tokens */
    KV_LOG_BLOCKS,          /* vLLM "# GPU blocks" / "# cuda blocks" / num_gpu_blocks */
    KV_LOG_CONCURRENCY,     /* vLLM "Maximum concurrency ...: X x" */
    KV_LOG_CONCURRENCY_LEN, /* ... "for N tokens per request" */
    KV_LOG_MEM_FRACTION,    /* SGLang mem_fraction_static */
    KV_LOG_AVAIL_BEFORE,    /* SGLang "Load weight begin. avail mem" */
    KV_LOG_AVAIL_AFTER,     /* SGLang "Load weight end. ... avail mem" */
    KV_LOG_POOL_END,        /* SGLang "Memory pool end. avail mem" */
    KV_LOG_PAGE_SIZE,       /* SGLang page_size */
    KV_LOG_MAX_TOTAL_TOKENS,/* SGLang --max-total-tokens (ServerArgs) */
    KV_LOG_CHUNKED_PREFILL, /* SGLang chunked_prefill_size */
    KV_LOG_K_BYTES,         /* SGLang K size; llama.cpp main cache K */
    KV_LOG_V_BYTES,         /* SGLang V size; llama.cpp main cache V */
    KV_LOG_KV_BYTES,        /* SGLang MLA "KV size"; llama.cpp main cache "size =" */
    KV_LOG_BUILD,           /* llama.cpp build number */
    KV_LOG_N_CTX,           /* llama.cpp n_ctx */
    KV_LOG_N_SEQ,           /* llama.cpp n_seq_max / n_slots / n_parallel */
    KV_LOG_N_CTX_SLOT,      /* llama.cpp n_ctx_slot: one slot's room */
    KV_LOG_N_UBATCH,        /* llama.cpp n_ubatch */
    KV_LOG_FLASH_ATTN,      /* llama.cpp flash_attn: a kv_flash_attn */
    KV_LOG_KV_UNIFIED,      /* llama.cpp kv_unified: 0 or 1 */
    KV_LOG_CELLS,           /* llama.cpp main cache cells */
    KV_LOG_LAYERS,          /* llama.cpp main cache layers */
    KV_LOG_STREAMS,         /* llama.cpp main cache streams ("4/1 seqs": sequences/streams) */
    KV_LOG_SWA_CELLS,       /* llama.cpp sliding-window cache cells */
    KV_LOG_SWA_LAYERS,      /* ... its layers */
    KV_LOG_SWA_K_BYTES,     /* ... its K */
    KV_LOG_SWA_V_BYTES,     /* ... its V */
    KV_LOG_FIELDS
} kv_log_field;

/* What one engine's lines said (the last startup's, when a file holds several). */
typedef struct {
    double v[KV_LOG_FIELDS];
    unsigned char present[KV_LOG_FIELDS]; /* 1: the log stated v[i] */
    char version[32];      /* "0.10.1.1", "0.4.6.post2", "7445"; "" when not stated */
    char era[32];          /* the line formats seen: "V0", "V1", "#tokens", "llama_kv_cache" */
    char model[256];       /* model id or path as logged; "" */
    char dtype[32];        /* weights' torch dtype ("bfloat16"); "" */
    char kv_dtype[32];     /* KV cache dtype ("auto", "fp8", "bfloat16"); "" */
    char quantization[32]; /* "fp8", "awq", ...; "" */
    char type_k[16], type_v[16]; /* llama.cpp cache types ("f16", "q8_0"); "" */
    long kv_lines;         /* KV lines matched */
    long last_kv_line;     /* line number of the last one (0: none) */
    int startups;          /* startups seen (values are the last one's) */
    int swa_next;          /* llama.cpp: the next cache line is the sliding-window cache */
} kv_log_values;

#define KV_LOG_ENGINES 3 /* vLLM, SGLang, llama.cpp: the engines whose logs are read */

/* A log being read: one candidate per engine; kv_log_finish() picks the engine. */
typedef struct {
    kv_engine engine;      /* the engine recognised, or KV_ENGINE_COUNT: none */
    kv_log_values values;  /* its values (after kv_log_finish) */
    kv_log_values cand[KV_LOG_ENGINES];
    long lines;            /* lines read */
    long overlong;         /* lines longer than KV_LOG_LINE_MAX, skipped */
    int unterminated;      /* 1: the last line had no newline (a cut file): skipped */
    char scratch[KV_LOG_LINE_MAX + 1]; /* the line being matched */
} kv_log;

/* Starts reading a log. */
void kv_log_init(kv_log *lg);
/* Reads one line (len bytes, without its newline; NUL bytes allowed): strips ANSI escapes,
 * carriage returns and known prefixes (timestamps, "(VllmWorker rank=0 pid=1)", "INFO
 * 07-22 10:00:00 [file.py:1]"), then matches every engine's line patterns strictly. */
void kv_log_feed(kv_log *lg, const char *line, size_t len);
/* Picks the engine whose KV lines came last; returns 0, or -1 when no engine's KV line was
 * seen (lg->engine is then KV_ENGINE_COUNT). */
int kv_log_finish(kv_log *lg);
/* Reads the file at path ("-" = standard input) line by line in constant memory and
 * finishes it. Returns 0, or 2 with one line in err ("kvcalc: LABEL: ..."; label names the
 * file as typed) when it cannot be read or is not a log kvcalc recognises. */
int kv_log_read_file(const char *path, const char *label, kv_log *lg, char *err,
                     size_t errcap);
/* Cleans one line in place (ANSI escapes, carriage returns, known prefixes); returns the
 * start of what remains and its length in *len. */
char *kv_log_clean(char *line, size_t *len);
/* The field's name ("available_kv", "kv_tokens", ...). */
const char *kv_log_field_name(kv_log_field f);

/* ---- helpers: exact arithmetic and estimates (exposed for tests and renderers) -------- */

/* The product of n unsigned 64-bit factors (n <= 4), computed exactly and rounded once to
 * the nearest double, ties to even - what Python does for float(a * b * c * d). */
double kv_exact_product(const uint64_t *factors, size_t n);

/* Python's float floor division a // b (b != 0), including its correction step. */
double kv_floordiv(double a, double b);

/* The parameter count of an architecture (embeddings, attention or MLA projections, dense
 * MLP or every MoE expert with shared experts and routers, norms, vision / audio towers) for
 * the given layers, KV heads and head size. Returns 0 when arch->known is 0. */
double kv_estimate_params(const kv_arch *arch, const kv_layout *layout, int64_t layers,
                          int64_t kv_heads, int64_t head_dim);
/* The same estimate, by part (all zero when arch->known is 0). */
void kv_estimate_param_parts(const kv_arch *arch, const kv_layout *layout, int64_t layers,
                             int64_t kv_heads, int64_t head_dim, kv_param_parts *out);
/* Weight bytes for the estimate: quantized parts (per arch->quant_scope) at the weight dtype
 * (or arch->quant_bytes), the rest at arch->base_dtype. Towers count as "the rest" unless
 * every weight is quantized (KV_QUANT_ALL): AWQ / GPTQ / FP8 checkpoints leave them 16-bit. */
double kv_estimate_weight_bytes(const kv_arch *arch, const kv_layout *layout, int64_t layers,
                                int64_t kv_heads, int64_t head_dim, kv_dtype weight_dtype);

/* Layers of each kind among the first `layers` layers of a layout. */
void kv_layer_counts(const kv_layout *layout, int64_t layers, int64_t counts[KV_LAYER_KINDS]);

#endif /* KVCALC_H */
