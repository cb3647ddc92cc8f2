/*
 * kvcalc_engines.h - each serving engine's own inputs and results: NOT a stable API.
 *
 * These structs follow the engines (a vLLM release that adds a memory term adds a member),
 * so they may change in any release. A program that wants them defines KVCALC_ENGINES
 * before it includes kvcalc.h, which then includes this file and gives kv_spec and
 * kv_result their engine members (s.vllm.util, r.llamacpp.main.cells); a program that does
 * not reaches the same values through the schema (kv_param, kv_field) by name. Either way
 * kv_spec and kv_result have one size: each engine's struct must fit the fixed space kept
 * for it (checked below).
 *
 * An engine's section here: its inputs (kv_NAME_spec), its result (kv_NAME_result) and the
 * functions of its rules that other programs and the tests call. Inputs marked "optional"
 * are kv_opt_num / kv_opt_int: not set means the engine's default or kvcalc's estimate,
 * and the result says which.
 */
#ifndef KVCALC_ENGINES_H
#define KVCALC_ENGINES_H

#ifndef KVCALC_H
#error "define KVCALC_ENGINES and include kvcalc.h, which includes this header"
#endif

/* ---- a draft model, for the engines' speculative decoding ---- */

/* A separate draft model (--draft-model; vLLM's speculative_config "model", llama.cpp's -md),
 * as the spec builder summarized it from its preset, config.json or GGUF header: the engines
 * that speculate with it read this. Only a draft of full-attention layers is taken (what
 * kvcalc can lay beside the target's cache the way each engine does). name NULL: none. */
typedef struct kv_draft {
    const char *name;       /* as loaded: a preset's id, the config's name, the file */
    int64_t layers;         /* its layers, each keeping a cache of its own */
    int64_t kv_heads;       /* KV heads of a layer, all ranks */
    int64_t attn_heads;     /* query heads (tensor parallelism must divide them) */
    int64_t head_dim;
    int64_t vocab;          /* its vocabulary (vLLM refuses a draft_model of another size) */
    int64_t context_length; /* its own n_ctx_train (max_position_embeddings); 0: unknown */
    double weights_bytes;   /* its weights on one GPU unsplit: the checkpoint's tensors, else
                               the parameter estimate in its weight dtype */
    int weights_estimated;  /* 1: weights_bytes is the parameter estimate */
    /* of weights_bytes, the input layer's embeddings and the output head (their share of the
     * estimated parameters, or a GGUF's own tensors; 0: not known), and whether the head is
     * the embedding (tied): llama.cpp places them apart from the blocks */
    double input_bytes, head_bytes;
    int tied;
} kv_draft;

/* Summarizes the loaded spec d of a draft model named `name` into *out. Returns NULL, or
 * what kvcalc does not lay out of it ("sliding-window layers", "MLA latents", ...): the
 * caller refuses the draft in its own words. */
KVCALC_API const char *kv_draft_summarize(const kv_spec *d, const char *name, kv_draft *out);

/* An engine's flag that takes a JSON object whose keys are other flags (vLLM's
 * --speculative-config '{"method": "eagle3", "num_speculative_tokens": 3}'): each key read
 * as that flag would read its value. */
typedef struct {
    const char *key;  /* the JSON key ("num_speculative_tokens") */
    const char *flag; /* the flag it sets, by name, without dashes ("num-speculative-tokens") */
} kv_json_key;

typedef struct kv_json_flag_s {
    const char *name;              /* the flag, without dashes ("speculative-config") */
    kv_engine engine;
    const kv_json_key *keys;       /* NULL-key-terminated */
    const char *const *neutral;    /* keys taken and left alone: they move no memory */
    const char *help;
    /* a key the object refuses without one of `needs` beside it, in the engine's words
     * (NULL: none) */
    const char *key_needing;
    const char *const *needs;
    const char *needs_words;
} kv_json_flag;

/* The i-th JSON flag over every engine, in engine order, or NULL past the last. */
KVCALC_API const kv_json_flag *kv_json_flag_at(size_t i);

/* Where spec s's engine keeps its draft model, or NULL: that engine speculates with none. */
KVCALC_API kv_draft *kv_spec_draft(kv_spec *s);
/* Where it keeps LoRA adapter files (struct kv_lora_files), or NULL: it reads none. */
KVCALC_API struct kv_lora_files *kv_spec_lora_files(kv_spec *s);
/* Where s's engine keeps -ot's tensor overrides, or NULL: the engine takes none. */
KVCALC_API struct kv_tensor_overrides *kv_spec_tensor_overrides(kv_spec *s);

/* ---- the lesson's engine (ideal) ---- */

/* The lesson's arithmetic takes no inputs and keeps no figures of its own. */
typedef struct {
    int reserved;
} kv_ideal_spec;
typedef struct {
    int reserved;
} kv_ideal_result;

/* ---- vLLM ---- */

/* vLLM's startup inputs (docs/vllm.md). */
typedef struct {
    kv_opt_num total_gib;        /* GPU memory as torch sees it (cudaMemGetInfo total), GiB;
                                    not set: from the spec's GPU (kv_vllm_result.total_source) */
    kv_opt_num util;             /* --gpu-memory-utilization, (0, 1]; not set: the release's
                                    default (kv_vllm_util_default: 0.9, 0.92 from 0.20) */
    kv_opt_num weights_gib;      /* "Model loading took X GiB", per GPU; not set: estimate */
    kv_opt_num activation_gib;   /* profiled activation peak, per GPU; not set: estimate */
    kv_opt_num non_torch_gib;    /* NCCL / CUDA non-torch memory, per GPU; not set: estimate */
    kv_opt_num cuda_graph_gib;   /* CUDA-graph memory in the budget, per GPU; not set: estimate */
    kv_opt_num kv_cache_memory_gib; /* the "Available KV cache memory" (skips the budget) */
    kv_opt_int block_size;       /* tokens per block; not set: 16, or 64 for MLA (FlashMLA) */
    kv_opt_int max_num_batched_tokens; /* T: enters sliding/chunked demand and the activation;
                                    not set: vLLM's default for the GPU (8,192 on >= 70 GiB
                                    cards that are not A100s, else 2,048) */
    kv_opt_int num_gpu_blocks_override; /* replaces the computed block count */
    kv_opt_int max_num_seqs;     /* sizes the profile run's sampler; not set: vLLM's default for
                                    the GPU (1,024 on >= 70 GiB cards that are not A100s, else 256) */
    int version;                 /* vLLM 0.MINOR.PATCH as MINOR x 100 + PATCH (0.11 = 1100,
                                    0.10.1.1 = 1001): decides the era's formulas */
    int hybrid_manager;          /* 1: sliding/chunked layers keep their own KV groups */
    kv_opt_int mamba_align;      /* --mamba-cache-mode: 2 "all" (a state block for every
                                    block of tokens, the Mamba-1/2 family's from 0.15 to 0.27),
                                    1 "align" (2 blocks per state group,
                                    prefix caching's), 0 "none"; not set: align with prefix
                                    caching from 0.15 for state layers outside the Mamba-1/2
                                    family; none without prefix caching, whatever is given */
    int64_t auto_fit_from;       /* --max-model-len auto: the model's length the auto-fit
                                    started from (the spec's context is its result); 0: none */
    int64_t num_speculative_tokens; /* speculative_config num_speculative_tokens: a state
                                    layer keeps one more page per draft token and a gated
                                    delta net's conv state that many more rows; 0: none */
    double kv_offloading_gib;    /* --kv-offloading-size: a CPU tier of KV blocks, GiB across
                                    the ranks; 0: none */
    kv_opt_int attention_backend; /* --attention-backend (kv_vllm_attention_backend); not set:
                                    vLLM's choice, taken as one that keeps full decode graphs */
    kv_opt_int max_cudagraph_capture_size; /* --max-cudagraph-capture-size: the largest
                                    batch a CUDA graph is captured for; not set: vLLM's default
                                    (min(max_num_seqs x (1 + K) x 2, 512)) */
    kv_opt_int kv_offloading_backend; /* --kv-offloading-backend (kv_vllm_offload_backend); not
                                    set: native from 0.15, before that no tier at all */
    double cpu_offload_gib;      /* --cpu-offload-gb: weights per GPU moved to pinned host
                                    memory, GiB (vLLM's unit, despite the name); 0: none */
    int mtp;                     /* speculative_config method "mtp": the checkpoint's MTP
                                    layers are loaded and keep a cache of their own */
    kv_opt_int mamba_ssm_cache_dtype; /* --mamba-ssm-cache-dtype, its bytes (4, 2); not set:
                                    the config's (mamba_ssm_cache_dtype float32), else the
                                    model's dtype */
    int mla_align;               /* 1: V0's VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1 (0.7.x): each MLA
                                    latent padded to a multiple of 256 bytes (576 -> 640) */
    kv_opt_int use_v1;           /* VLLM_USE_V1: 1 the V1 engine (0.7+), 0 the V0 engine (before
                                    0.11); not set: the release's default (V1 from 0.8) */
    kv_opt_int use_v2_model_runner; /* VLLM_USE_V2_MODEL_RUNNER: 1 Model Runner V2, 0 the V1
                                    runner; not set: the release's default for the model */
    double swap_space_gib;       /* V0's --swap-space: CPU blocks per GPU, GiB; default 4 */
    int enforce_eager;           /* 1: --enforce-eager, no CUDA graphs (none in the budget) */
    int prefix_caching;          /* --enable-prefix-caching 1, --no-enable-prefix-caching 0
                                    (V1's prefix cache off: no hits in the workload, state
                                    layers in "none" mode); -1 not given: the release's
                                    default for the model (beside state layers off, on for
                                    hybrid models from 0.28) */
    int language_model_only;     /* 1: --language-model-only, no encoder profile run */
    int enable_lora;             /* --enable-lora: LoRA buffers for max_loras adapters */
    int64_t max_loras;           /* --max-loras [1] */
    int64_t max_lora_rank;       /* --max-lora-rank [16]: one of 1, 8, 16, 32, ..., 512 */
    int fully_sharded_loras;     /* --fully-sharded-loras: both halves split by TP */
    int total_assumed;           /* 1: no GPU was named, given or logged (the lesson's
                                    illustrative one): what vLLM allocates is not held to it */
    kv_opt_int spec_method;      /* speculative_config method (kv_vllm_spec_method); not set:
                                    draft_model with a draft model, mtp with --mtp, else none */
    kv_opt_int draft_tp;         /* speculative_config draft_tensor_parallel_size: 1 or the
                                    target's; not set: the target's */
    kv_draft draft;              /* speculative_config model: the draft (--draft-model) */
} kv_vllm_spec;

/* vLLM's speculative methods (vllm/config/speculative.py SpeculativeMethod). */
typedef enum {
    KV_VLLM_SPEC_NONE,
    KV_VLLM_SPEC_NGRAM,       /* prompt lookup on the CPU: no weights, no cache */
    KV_VLLM_SPEC_NGRAM_GPU,   /* the same on the GPU (small buffers, not counted) */
    KV_VLLM_SPEC_SUFFIX,      /* suffix decoding (Arctic Inference): no weights, no cache */
    KV_VLLM_SPEC_DRAFT_MODEL, /* a separate model: its weights and its layers' cache */
    KV_VLLM_SPEC_EAGLE,       /* an EAGLE head: its checkpoint's weights, its layers' cache */
    KV_VLLM_SPEC_EAGLE3,      /* an EAGLE-3 head, the same */
    KV_VLLM_SPEC_MTP,         /* the model's own MTP layers (--mtp) */
    KV_VLLM_SPEC_MEDUSA,      /* refused: heads kvcalc does not count */
    KV_VLLM_SPEC_MLP_SPECULATOR,
    KV_VLLM_SPEC_DFLASH
} kv_vllm_spec_method;

/* The attention backends whose CUDA-graph support decides the captured graphs. */
typedef enum {
    KV_VLLM_ATTN_FULL_GRAPHS, /* FlashAttention, Triton, FlexAttention and the like: full
                                 decode graphs with speculative decoding too */
    KV_VLLM_ATTN_FLASHINFER   /* FlashInfer: UNIFORM_SINGLE_TOKEN_DECODE without TRT-LLM
                                 attention, so PIECEWISE under speculative decoding */
} kv_vllm_attention_backend;

/* Who holds vLLM's CPU tier of KV blocks (--kv-offloading-backend). */
typedef enum {
    KV_VLLM_OFFLOAD_NATIVE,  /* vLLM's OffloadingConnector: blocks of the GPU's size */
    KV_VLLM_OFFLOAD_LMCACHE  /* LMCache's CPU backend in each worker: chunks of 256 tokens */
} kv_vllm_offload_backend;

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
    KV_VLLM_KV_NEEDED,      /* V1: "To serve at least one request ... KV cache is needed" */
    KV_VLLM_NO_MEMORY,      /* V1: "No available memory for the cache blocks" (what the check
                               plans against is 0 or less) */
    KV_VLLM_OUT_OF_MEMORY,  /* the weights, or the weights and a KV cache of a given size
                               (--kv-cache-memory-gib, --num-gpu-blocks-override), need more
                               than the GPU holds: torch's "CUDA out of memory" */
    KV_VLLM_HOST_SHORT      /* the host holds less than vLLM pins there (--host-mem-gib): it
                               stops allocating it; the GPU's lines are what they would be */
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
    int mamba_align;             /* the mode in force: 1 align, 0 none or all */
    int mamba_all;               /* 1: mode "all" (a state block for every block of tokens) */
    int enable_prefix_caching;   /* prefix caching in force: the flag, else the model's default
                                    (off beside state layers), off where vLLM turns it off */
    int64_t auto_fit_from;       /* --max-model-len auto: the model's length it started from
                                    (the context is what fits); 0: no auto-fit */
    double state_page_bytes;     /* one state layer's state on this GPU, before padding:
                                    conv in the model's dtype + SSM in its dtype; 0: none */
    int block_raised;            /* 1: "Setting attention block size to N tokens ..." */
    double page_ratio;           /* layers of two shapes (Gemma-4): the smaller page's block
                                    holds this many times the tokens (1: one shape) */
    int page_padded;             /* 1: the smaller page does not divide the larger: padded */
    double mamba_padding_percent;/* "Padding mamba page size by P% ..." (0: none) */
    int64_t group_size;          /* layers per KV-cache group (tensors sharing the pool) */
    int64_t num_groups;          /* KV-cache groups */
    int64_t padding_layers;      /* layers added to fill the groups of one kind */
    double padding_percent;      /* of that kind's layers ("may waste at most P%") */
    const char *padding_kind;    /* which kind was padded, or NULL */
    int v1;                      /* 1: the V1 engine's rules and lines, 0: V0's */
    int runner_v2;               /* 1: Model Runner V2 runs the model (the release's default, or
                                    --vllm-use-v2-model-runner); its CUDA-graph estimate is 0
                                    before 0.29 */
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
    int defaults_by_gpu_size;    /* 1: a default above came from the GPU's size (V1: 70 GiB or
                                    more, not an A100), so more memory can hold fewer requests */
    int fits;                    /* one request of max_model_len fits */
    kv_vllm_refusal refusal;     /* KV_VLLM_STARTS when fits, else which error vLLM raises */
    int outgrows_assumed_gpu;    /* 1: no GPU was named and the lesson's would not hold what
                                    vLLM allocates (not a refusal: the figures stand) */
    int64_t v0_max_seq_len;      /* V0: tokens its blocks hold per stage (block size x
                                    blocks / pp), what its refusal compares with */
    double needed_bytes;         /* KV one request of max_model_len needs (all layers) */
    double check_bytes;          /* what the start-up check plans against: the available
                                    memory, or --num-gpu-blocks-override x block bytes (from
                                    0.21), less one block for the null block (from 0.28) */
    int null_block;              /* 1: the check keeps one block back (BlockPool's null block) */
    int64_t max_model_len_fit;   /* longest max_model_len that fits (when !fits) */
    int64_t longest_fit;         /* longest max_model_len that fits, whatever the context */
    int64_t prefix_shared_blocks;   /* whole blocks of the shared prefix, per full group */
    int64_t prefix_shared_tokens;   /* those blocks in tokens */
    double prefix_saved_bytes;      /* (requests - 1) x shared blocks x page x group_size */
    double prefix_extra_concurrency;/* floor(saved blocks / blocks_per_request) */
    double cpu_offload_bytes;       /* --cpu-offload-gb: weights per GPU in pinned host memory
                                       (what the GPU's weights shrink by) */
    double host_pinned_bytes;       /* that on every GPU of the replica, the KV offloading tier
                                       and V0's swap space on every GPU: the host memory vLLM
                                       pins */
    double lora_bytes;              /* --enable-lora: the A and B buffers of every wrapped
                                       linear, one GPU (inside the weights in V1) */
    int64_t kv_offload_blocks;      /* --kv-offloading-size: the CPU tier's blocks */
    int64_t kv_offload_tokens;      /* those blocks in tokens */
    int64_t kv_offload_block_tokens;/* tokens in one of them: the block size (native), 256 (an
                                       LMCache chunk); 0: no tier */
    int kv_offload_backend;         /* the backend in force (kv_vllm_offload_backend), -1: none */
    int64_t piecewise_graphs;       /* CUDA graphs the profile captures per mode, as "Profiling
                                       CUDA graph memory: PIECEWISE=n (largest=m), FULL=n'
                                       (largest=m')" prints them (FULL_AND_PIECEWISE): mixed
                                       batches, piecewise; 0: none (--enforce-eager) or a
                                       release before 0.13, whose sizes kvcalc does not count */
    int64_t piecewise_largest;      /* the largest of them, tokens */
    int64_t full_graphs;            /* uniform decode batches, full graphs */
    int64_t full_largest;           /* the largest of them, tokens */
    int spec_method;                /* the speculative method in force (kv_vllm_spec_method) */
    const char *spec_method_name;   /* its name ("draft_model"), NULL: none */
    const char *draft_model;        /* the draft model's name (the spec's), NULL: none */
    double draft_weights_bytes;     /* the draft's weights on this GPU (inside weights_bytes) */
    int draft_weights_estimated;    /* 1: from its config's parameter estimate, not tensors */
    int64_t draft_layers;           /* the draft's layers with a cache (MTP's too) */
    double draft_kv_token_bytes;    /* their cache per token on this GPU */
    int draft_shares_group;         /* 1: the draft's layers join the full-attention group
                                       (the same page); 0: one group of two page sizes */
    double draft_page_bytes;        /* 0 above: the draft's layers' bytes in one block */
    double no_spec_concurrency;     /* speculating: the startup line's concurrency without
                                       speculative decoding (the same settings otherwise) */
    double consumed_bytes;          /* weights + non-torch memory: the later "consumed" figure */
    double activation_graph_bytes;  /* activation peak + CUDA graphs: the later "peak
                                       activation" figure, which holds the estimate */
    kv_sched_group sched_groups[KV_SCHED_MAX_GROUPS]; /* the groups a request's blocks come
                                       from, by kind (the workload's scheduler) */
    size_t n_sched_groups;
} kv_vllm_result;

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
KVCALC_API double kv_vllm_activation_estimate_gib(const kv_vllm_activation_inputs *in);
/* The multimodal encoder's profile run as vLLM V1 sets it up (docs/vllm.md): the modality
 * with the most tokens per item at its largest (a Qwen-VL image at the processor's
 * max_pixels: 16,384 tokens, or a video of as many such frame pairs as max_model_len holds;
 * a Gemma-3 image: 256 tokens of 4,096 patches), max(T, item) / item items (at most
 * max_num_seqs x max(1, max_model_len / item)), each patch through the tower's widest block
 * (2 x width + 2 or 3 x MLP width per GPU, 2 B each); *cache_bytes: the items' tokens at the
 * text width (x patch mergers). 0 for a model without a vision tower vLLM profiles (Qwen-VL,
 * Gemma-3), V0, or with --language-model-only. Not measured against a log that prints it.
 * s must have the vLLM engine. */
KVCALC_API double kv_vllm_encoder_profile(const kv_spec *s, int64_t batched_tokens,
                                          int64_t max_num_seqs, double *cache_bytes);
KVCALC_API double kv_vllm_non_torch_estimate_gib(int64_t tp, double total_gib);
/* vLLM's default --gpu-memory-utilization for a release: 0.9, 0.92 from 0.21. */
KVCALC_API double kv_vllm_util_default(int version);
KVCALC_API double kv_vllm_cuda_graph_estimate_gib(int version);
/* Reads a vLLM release ("0.11", "v0.10.1.1", "0.11.0rc2") as MINOR x 100 + PATCH; 0, or -1
 * when text is not one. */
KVCALC_API int kv_vllm_version_parse(const char *text, int *version);
/* Writes a vllm.version as vLLM spells it ("0.11", "0.10.1") into buf. */
KVCALC_API void kv_vllm_version_format(int version, char *buf, size_t cap);

/* ---- SGLang ---- */

/* SGLang's startup inputs (docs/sglang.md). */
typedef struct {
    kv_opt_num mem_fraction_static; /* --mem-fraction-static, (0, 1]; not set: the version's rule */
    kv_opt_num avail_before_gib; /* P: "Load weight begin. avail mem=P GB"; not set: estimate */
    kv_opt_num avail_after_gib;  /* A: "Load weight end. ... avail mem=A GB"; not set: estimate */
    int64_t page_size;           /* tokens per page, >= 1 */
    kv_opt_int max_total_tokens; /* --max-total-tokens cap */
    kv_opt_int chunked_prefill_size; /* enters the default f (v0.5.3rc2+); not set: by the GPU */
    kv_opt_int cuda_graph_max_bs;/* enters the default f (v0.5.3rc2+); not set: by the GPU */
    int version;                 /* kv_sglang_version_parse() of e.g. "0.4.3.post4" */
    /* models with state layers (Mamba, gated delta net): the state pool */
    kv_opt_num mamba_full_memory_ratio; /* --mamba-full-memory-ratio r; not set: 0.9 */
    kv_opt_int max_mamba_cache_size;    /* --max-mamba-cache-size: state slots */
    kv_opt_int max_running_requests;    /* --max-running-requests */
    int disable_radix_cache;            /* --disable-radix-cache */
    kv_opt_int mamba_ssm_dtype;         /* --mamba-ssm-dtype, its bytes (4, 2); not set: 4 */
    /* speculative decoding (EAGLE, or NEXTN: the model's MTP layers): draft tokens verified a
     * step; 0: off */
    int64_t speculative_num_draft_tokens; /* --speculative-num-draft-tokens */
    int hierarchical_cache;      /* --enable-hierarchical-cache: HiCache's host pool */
    kv_opt_num hicache_ratio;    /* --hicache-ratio: host tokens per device token; not set: 2 */
    double hicache_size_gb;      /* --hicache-size: host pool per rank, GB (10^9 B); 0: by the
                                    ratio */
    double cpu_offload_gib;      /* --cpu-offload-gb G (an integer in SGLang): the decoder
                                    layers' weights moved to pinned host memory, GiB per rank */
    /* LoRA (--enable-lora): the adapters' buffers, made after the weights and before the
     * pool, so out of the token pool's budget */
    int enable_lora;             /* --enable-lora */
    int64_t max_loras_per_batch; /* --max-loras-per-batch: adapter slots of a batch; 8 */
    int64_t max_lora_rank;       /* --max-lora-rank: the adapters' largest r; 0: not given */
    int lora_target_modules;     /* --lora-target-modules: KV_SGLANG_LORA_* bits; 0: none */
    /* speculative decoding's other settings */
    kv_opt_int speculative_algorithm; /* --speculative-algorithm, KV_SGLANG_SPEC_*; not set:
                                         EAGLE / NEXTN when draft tokens are given */
    kv_opt_int speculative_num_steps; /* --speculative-num-steps */
    kv_opt_int speculative_eagle_topk;/* --speculative-eagle-topk */
    kv_draft draft;              /* STANDALONE: the draft model (--speculative-draft-model-path) */
} kv_sglang_spec;

/* --speculative-algorithm's values (server_args.py; NEXTN is EAGLE's implementation). */
#define KV_SGLANG_SPEC_EAGLE 1
#define KV_SGLANG_SPEC_EAGLE3 2
#define KV_SGLANG_SPEC_NEXTN 3
#define KV_SGLANG_SPEC_STANDALONE 4

/* SGLang's LoRA target modules (its own names; q, k, v share the qkv_proj buffers and gate,
 * up the gate_up_proj ones). */
#define KV_SGLANG_LORA_Q 1
#define KV_SGLANG_LORA_K 2
#define KV_SGLANG_LORA_V 4
#define KV_SGLANG_LORA_O 8
#define KV_SGLANG_LORA_GATE 16
#define KV_SGLANG_LORA_UP 32
#define KV_SGLANG_LORA_DOWN 64
#define KV_SGLANG_LORA_QKV 128
#define KV_SGLANG_LORA_GATE_UP 256
#define KV_SGLANG_LORA_EMBED 512   /* embed_tokens (0.5.6.post2+): not sized */
#define KV_SGLANG_LORA_LM_HEAD 1024 /* lm_head (0.5.6.post2+): not sized */
#define KV_SGLANG_LORA_ALL 2048    /* "all": every projection (SUPPORTED_LORA_TARGET_MODULES) */

/* What SGLang would allocate and print, per GPU. */
/* What caps SGLang's running requests (kv_sglang_result.running_cap_by). */
typedef enum {
    KV_SGLANG_CAP_SLOTS_3,  /* a model with state layers: its slots / 3 with the radix cache */
    KV_SGLANG_CAP_SLOTS,    /* a slot each without the radix cache */
    KV_SGLANG_CAP_FLAG,     /* --max-running-requests */
    KV_SGLANG_CAP_SPEC      /* 48 under speculative decoding */
} kv_sglang_cap;

typedef struct {
    double mem_fraction_static;  /* f in force (the flag, or the version's default) */
    int fraction_default;        /* 1: f came from the version's rule */
    double gpu_mem_mib;          /* the GPU total the default rule saw, MiB */
    double avail_before_gib;     /* P used */
    double avail_after_gib;      /* A used */
    int estimated;               /* 1: P or A was estimated (no log given) */
    double rest_bytes;           /* A - P x (1 - f), in bytes, less the state pool: the token
                                    pool's budget */
    double budget_bytes;         /* A - P x (1 - f), in bytes, before the state pool */
    double cell_bytes;           /* KV bytes of one token, all attention layers, one rank */
    int64_t attn_layers;         /* layers in the cell */
    int64_t page_size;
    int64_t max_total_num_tokens;/* N after the cap and page flooring; 0: refuses */
    int64_t pad_rows;            /* rows every layer holds beyond N */
    double k_bytes, v_bytes;     /* the K and V buffers (MLA: the latent in k, v = 0) */
    /* the state pool (0 without state layers): "Mamba Cache is allocated." */
    double mamba_per_req_bytes;  /* one request's state, every state layer of one rank */
    int64_t max_mamba_cache_size;/* state slots */
    int mamba_auto;              /* 1: the slots are the budget's share r / (1 + r) */
    double mamba_bytes;          /* slots x per request: out of the token pool's budget */
    double conv_state_bytes, ssm_state_bytes; /* the two buffers, (slots + 1) x per request */
    int64_t max_running_requests;/* what the state pool lets run at once (0: no cap, but for a
                                    model with state layers, mamba_per_req_bytes > 0: fewer
                                    than 3 state slots let none run) */
    int running_cap_by;          /* what sets the cap: KV_SGLANG_CAP_* */
    /* speculative decoding on a model with state layers: the states of every draft token */
    int64_t spec_running;        /* running requests the reservation assumed (48 unless given) */
    double spec_reserved_bytes;  /* spec_running x draft tokens x per request: off the budget */
    double inter_ssm_bytes;      /* intermediate_ssm_state_cache: (running + 1) x draft tokens
                                    x SSM state */
    double inter_conv_bytes;     /* intermediate_conv_window_cache: the same of conv state */
    /* the draft's own token pool (NEXTN): as many tokens, its layers' cells, outside the
     * budget */
    int64_t draft_layers;        /* its attention layers (0: no pool counted) */
    double draft_k_bytes, draft_v_bytes;
    double draft_weights_bytes;  /* the MTP layers' weights the draft worker loads, one rank */
    /* HiCache (--enable-hierarchical-cache): the host pool, the device pool unchanged */
    int64_t hicache_tokens;      /* host tokens, page-aligned */
    double hicache_bytes;        /* tokens x cell: "Allocating X GB host memory ...", a rank */
    double hicache_host_bytes;   /* that on every rank: the host memory it needs */
    double lora_bytes;           /* the LoRA buffers of one rank: out of the budget */
    double cpu_offload_bytes;    /* the weights --cpu-offload-gb moves off one rank's GPU */
    int64_t spec_draft_tokens;   /* draft tokens verified a step (given, or STANDALONE's 4) */
    int64_t spec_headroom_tokens;/* up to 0.5.6.post2: running x (steps x topk + draft tokens)
                                    + 100 tokens added to both pools */
    int64_t draft_kv_heads;      /* STANDALONE: the draft's KV heads on one rank (0: no draft
                                    model) */
    double draft_cell_bytes;     /* STANDALONE: the draft's KV bytes of one token, one rank */
    double sizing_cell_bytes;    /* the cell N is sized by: cell_bytes, or from 0.5.14
                                    STANDALONE's int(cell x (1 + draft layers / layers)) */
    double draft_weights_in_a_bytes; /* from 0.5.14: the draft's weights, loaded before A */
    double headroom_bytes;       /* what the target's pool leaves free, about P x (1 - f) */
    int draft_oom;               /* 1: the draft's pool (and weights, before 0.5.14) outgrow
                                    that headroom: SGLang runs out of memory starting it */
    /* DeepSeek-V4 (compress_ratios, from 0.5.12): DSV4PoolConfigurator's pools, as its two
     * lines "DSV4 memory calculation" and "DSV4 pool sizes" print them (0 for other models) */
    double dsv4_bytes_per_full_token; /* bytes_per_full_token */
    double dsv4_available_bytes;  /* int(rest x 2^30): available_bytes */
    double dsv4_c128_state_fixed_bytes; /* from 0.5.15: the request-scoped 128:1 states */
    double dsv4_pool_bytes;       /* full x bytes_per_full_token + c128_state_fixed */
    int64_t dsv4_layers;          /* the layers of bytes_per_full_token's window term */
    int64_t dsv4_full, dsv4_swa, dsv4_c4, dsv4_c128; /* the pools' tokens */
    int64_t dsv4_c4_state, dsv4_c128_state;          /* the state pools' rows, as logged */
    int64_t dsv4_full_token;      /* the profiled full_token, before --max-total-tokens (its
                                     "DSV4 memory calculation" and first "DSV4 pool sizes") */
    int64_t dsv4_profiled[6];     /* that first line's full, swa, c4, c128, c4_state,
                                     c128_state; the dsv4_* above are the second's when capped */
} kv_sglang_result;

/* Parses an SGLang release ("0.4.3.post4", "0.5.3rc2", "0.4.6") into a number that orders
 * releases (rc < final < post); returns 0, or -1 when text is not such a version. */
KVCALC_API int kv_sglang_version_parse(const char *text, int *out);
/* Writes SGLang's spelling of a parsed version into buf. */
KVCALC_API void kv_sglang_version_format(int version, char *buf, size_t cap);
/* SGLang's default mem_fraction_static for a version, the GPU total in MiB (<= 0: unknown),
 * tp, a vision tower, and chunked prefill / CUDA-graph batch (0: by the GPU). */
KVCALC_API double kv_sglang_default_fraction(int version, double gpu_mem_mib, int64_t tp,
                                             int vision, int64_t chunked_prefill,
                                             int64_t cuda_graph_bs);

/* ---- TensorRT-LLM ---- */

/* TensorRT-LLM's KV-cache inputs (docs/trtllm.md). */
typedef struct {
    double fraction;          /* free_gpu_memory_fraction, (0, 1); default 0.9 */
    int64_t tokens_per_block; /* >= 1; default 32 */
    kv_opt_int max_tokens;    /* KvCacheConfig.max_tokens cap */
    kv_opt_num free_mem_gib;  /* the logged "available: F GiB"; not set: estimated as the
                                 spec's free memory (GPU - weights - overhead) */
    kv_draft draft;           /* a two-model draft (speculative_config, --draft-model) */
    double host_cache_size;   /* KvCacheConfig.host_cache_size, bytes of every rank's
                                 secondary (host) pool; 0: none (the default) */
    int enable_lora;          /* --enable-lora: the PEFT caches (PeftCacheManager) */
    int64_t max_lora_rank;    /* LoraConfig.max_lora_rank [64] */
    int lora_target_modules;  /* LoraConfig.lora_target_modules, a mask of KV_TRTLLM_LORA_*;
                                 0: none given (needed with --enable-lora) */
    double peft_device_cache_percent; /* PeftCacheConfig.device_cache_percent [0.02] */
    double peft_host_cache_size;      /* PeftCacheConfig.host_cache_size, bytes [2^30] */
    kv_opt_int max_loras;     /* LoraConfig.max_loras: the device cache in module-layers
                                 instead of the share; not set: the share */
    kv_opt_int max_cpu_loras; /* LoraConfig.max_cpu_loras: the host cache the same way; not
                                 set: the bytes */
} kv_trtllm_spec;

/* TensorRT-LLM's LoRA modules (LoraModule::ModuleType names). */
enum {
    KV_TRTLLM_LORA_Q = 1, KV_TRTLLM_LORA_K = 2, KV_TRTLLM_LORA_V = 4, KV_TRTLLM_LORA_DENSE = 8,
    KV_TRTLLM_LORA_H_TO_4H = 16, KV_TRTLLM_LORA_4H_TO_H = 32, KV_TRTLLM_LORA_GATE = 64,
    KV_TRTLLM_LORA_ALL = 127
};

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
    double draft_token_bytes; /* the draft's K and V of one token on this rank (in
                                 per_token_bytes); 0: no draft */
    double draft_weights_bytes; /* its weights on this rank (out of the estimated free) */
    int draft_weights_estimated; /* 1: from its config's parameter estimate, not tensors */
    int64_t secondary_blocks; /* host_cache_size // per token // tokens_per_block: "secondary
                                 pool: B" */
    double host_cache_bytes;  /* those blocks in pinned host memory, this rank */
    /* --enable-lora: PeftCacheManager's caches on this rank, as its five INFO lines print them */
    int64_t lora_page_width;  /* elements of a slot: the narrowest module's in + out */
    int64_t lora_slots_per_page;
    double lora_max_size;     /* "Max LoRA size is N": elements of one max-sized adapter */
    double lora_host_used_bytes;   /* "Using N bytes for LoRA host cache" */
    double lora_device_used_bytes; /* "Using N bytes for LoRA device cache" */
    int64_t lora_host_holds;  /* "LoRA host Cache can hold K max sized LoRAs" */
    int64_t lora_device_holds;/* "LoRA device Cache can hold K max sized LoRAs" */
    double lora_device_bytes; /* the device pages allocated (whole pages): out of the KV budget */
    double lora_host_bytes;   /* the host pages allocated */
    int lora_fits;            /* 1: each cache holds one max-sized adapter (else TensorRT-LLM
                                 stops: "Not enough space allocated to ... LoRA cache") */
} kv_trtllm_result;

/* ---- llama.cpp ---- */

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

/* The cache's element types of r = kv_compute(s) when the chosen engine's are not s's dtype
 * ("K q8_0 (1.0625 B), V q8_0 (1.0625 B)"), in buf; NULL when they are (the lesson's lines then
 * hold the engine's bytes). */
KVCALC_API const char *kv_engine_cache_types(const kv_spec *s, const kv_result *r, char *buf,
                                             size_t cap);

/* Why the chosen engine of r = kv_compute(s) shares no prefix across requests with s's
 * settings (prefix caching off, slots that each keep their own copy), or NULL when it does
 * (or does not say): the lesson's prefix saving then does not happen in it. */
KVCALC_API const char *kv_engine_prefix_note(const kv_spec *s, const kv_result *r);

/* The row of the cache type table for t (t < KV_GGML_CACHE_TYPES), or NULL. */
KVCALC_API const kv_ggml_cache_type_info *kv_ggml_cache_type_get(kv_ggml_cache_type t);

/* --flash-attn: off, on, or auto (from build 6325; counts as on for the cache's sizes). */
typedef enum { KV_FLASH_OFF, KV_FLASH_ON, KV_FLASH_AUTO } kv_flash_attn;

#define KV_LLAMACPP_NEWEST_BUILD 10573 /* the newest build whose rules kvcalc describes */

/* LoRA adapter files (llama.cpp's --lora), as the program read them: their tensors' bytes
 * by where llama.cpp puts them - each pair on the device of the weight it patches
 * (llama_adapter_lora_init_impl, src/llama-adapter.cpp). name NULL: none. */
typedef struct kv_lora_files {
    const char *name;       /* the first file, as typed */
    int64_t files;
    double total_bytes;     /* every tensor of every file */
    double embd_bytes;      /* token_embd's pairs: the input layer, always on the CPU */
    double output_bytes;    /* output's: with the output layer */
    double block_bytes;     /* the pairs of one block, when every block holds as many */
    int64_t blocks;         /* blocks with pairs */
    int alike;              /* 1: every block with pairs holds block_bytes */
} kv_lora_files;

/* llama.cpp's -ot / --override-tensor values, as typed ("PATTERN=TYPE,PATTERN=TYPE"; -ot
 * repeated adds its pairs after the earlier ones). n 0: none. The texts are the caller's
 * (argv): the spec points at them. */
#define KV_MAX_TENSOR_OVERRIDES 8
typedef struct kv_tensor_overrides {
    const char *text[KV_MAX_TENSOR_OVERRIDES];
    int n;
} kv_tensor_overrides;

/* Adds the adapter header g (kv_gguf_adapter_load_file(), file `name`) to *acc (zeroed
 * before the first). */
KVCALC_API void kv_lora_files_add(const struct kv_gguf_info *g, const char *name,
                                  kv_lora_files *acc);

/* llama.cpp's inputs, by its own flag names (docs/llamacpp.md). kvcalc models llama-server.
 * The model's per-layer rows come from the spec's GGUF header (kv_spec.gguf) when it has
 * one. */
typedef struct {
    int64_t build;          /* --llamacpp-build: whose rules apply (a newer one: the newest) */
    kv_opt_int ctx_size;    /* -c; 0 the model's context_length; not set: the build's default */
    kv_opt_int parallel;    /* -np; not set: llama-server's slots for the build */
    int kv_unified;         /* --kv-unified: one cache stream shared by every slot */
    int swa_full;           /* --swa-full: sliding layers keep a full-size cache */
    kv_opt_int flash_attn;  /* a kv_flash_attn; not set: the build's default */
    kv_opt_int type_k, type_v; /* kv_ggml_cache_type; not set: from the spec's dtype (f16
                               unless --dtype says otherwise) */
    int64_t batch_size;     /* -b, >= 1 [2048] */
    int64_t ubatch_size;    /* -ub, >= 1 [512]; the effective one is min(ub, b) */
    kv_opt_num weights_gib; /* --weights-gib: the model's tensor bytes in GiB (a log's "file
                               size"), instead of the GGUF's or the estimate; not set: those */
    int cache_idle_slots;   /* --cache-idle-slots (--no-cache-idle-slots: 0): an ending task's
                               slot saved to the prompt cache, and freed with one shared cache
                               [on] */
    double slot_prompt_similarity; /* -sps: the share of a prompt an idle slot's common prefix
                               must pass to be chosen first (0: off) [0.1] */
    int64_t cache_ram;      /* --cache-ram: llama-server's host-memory prompt cache, MiB
                               (-1: no limit, 0: none) [8192]; the workload's slot reuse */
    kv_opt_int n_gpu_layers;/* -ngl; not set: the build's default (all from b6325, else 0) */
    int no_kv_offload;      /* -nkvo: every KV (and state) buffer in host memory */
    int64_t n_cpu_moe;      /* --n-cpu-moe N: the experts of blocks 0 .. N-1 stay on the CPU */
    int cpu_moe;            /* --cpu-moe: every block's experts stay on the CPU */
    kv_opt_int n_rs_seq;    /* recurrent-state snapshots per sequence for rolling back drafts
                               (llama_context's n_rs_seq): the state keeps 1 + n_rs_seq
                               copies; not set: what the build sets (--spec-type draft-mtp
                               on Qwen3.5: --spec-draft-n-max), else 0 */
    kv_opt_int spec_draft_n_max; /* --spec-draft-n-max: tokens drafted a step; not set: the
                               build's default (16, from b9235 3) */
    kv_draft draft;         /* -md: the draft model of speculative decoding */
    kv_opt_int ctx_size_draft; /* -cd (before b9115): the draft's cells; not set or 0: one
                               slot's context */
    kv_opt_int n_gpu_layers_draft; /* -ngld; not set: the build's default, as -ngl's */
    kv_lora_files lora;     /* --lora FILE ... */
    int type_k_draft, type_v_draft; /* -ctkd / -ctvd, kv_ggml_cache_type [f16] */
    int spec_type;          /* --spec-type: KV_LLAMACPP_SPEC_* [none] */
    kv_tensor_overrides override_tensor; /* -ot: tensors moved to the CPU by name */
} kv_llamacpp_spec;

/* --spec-type, as far as it moves memory (common/speculative.cpp's names) */
enum {
    KV_LLAMACPP_SPEC_NONE,
    KV_LLAMACPP_SPEC_MTP,  /* draft-mtp: a context of the target's next-n layers (from b9180) */
    KV_LLAMACPP_SPEC_NGRAM /* the ngram-* types: look-ups in the context, no cache */
};

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
    kv_llamacpp_cache index; /* DeepSeek sparse attention's indexer key cache (K only; 0
                                layers without one) */
    /* DeepSeek-V4 (llama_kv_cache_dsv4, from b9840; 0 layers without compress_ratios): its
     * raw window is `swa` (K only, every layer) beside a `main` of 0 layers, both a stream
     * per slot even when unified; these compressed caches (K only, -ctk's type, a stream per
     * slot): */
    kv_llamacpp_cache csa;   /* the 4:1 layers' latent, GGML_PAD(ceil(cells / 4), 256) cells */
    kv_llamacpp_cache hca;   /* the 128:1 layers' latent, GGML_PAD(ceil(cells / 128), 256) */
    kv_llamacpp_cache lid;   /* the 4:1 layers' lightning-indexer keys, as csa's cells */
    int64_t csa_asked, hca_asked; /* ceil(cells / 4), ceil(cells / 128): the cells its
                                "creating DSV4 ... KV cache, size = N cells" lines print */
    int64_t dsv4_planes;     /* each compressor state's planes: slots x (1 + rs_seq) */
    int64_t dsv4_rs_seq;     /* of those, the rollback planes' rs_seq (0 before b10228) */
    int64_t csa_state_width, hca_state_width, lid_state_width; /* n_embd_state */
    double csa_state_bytes, hca_state_bytes, lid_state_bytes; /* f32 kv + score, all
                                planes, all their layers */
    int64_t state_layers;    /* recurrent layers */
    int64_t state_rows;      /* max(1, n_seq) */
    int64_t n_rs_seq;        /* snapshots per sequence: the state is (1 + n_rs_seq) x that */
    double state_r_bytes, state_s_bytes; /* their f32 state (R: conv, S: SSM; r holds all
                                of it when the split is unknown) */
    int64_t n_layer;         /* blocks (for -ngl) */
    int64_t gpu_layers;      /* of n_layer + 1 (the output layer), on the GPU */
    double kv_gpu_bytes;     /* KV and state of the GPU layers */
    double kv_host_bytes;    /* the rest, in host memory */
    double weights_gpu_bytes;/* the weights' share of the GPU layers */
    double weights_host_bytes;/* the rest, in host memory (mapped from the file) */
    double input_host_bytes;  /* of those, the input layer's embeddings, never offloaded */
    double head_copy_bytes;   /* a tied output head's copy on the GPU (in weights_gpu_bytes) */
    double model_buffers_bytes; /* the model files' buffers on every device, the draft's
                               too (a log's "model buffer size" lines) */
    double model_host_bytes;  /* of those, in host memory */
    double prompt_cache_max_bytes; /* llama-server's prompt cache at most (--cache-ram, from
                               b6723; NaN: no limit; 0: none), host memory */
    double cpu_moe_bytes;    /* of those, the experts --n-cpu-moe keeps on the CPU */
    double compute_bytes;    /* the GPU compute buffer: an estimate (docs/llamacpp.md) */
    double gpu_needed_bytes; /* weights + KV + state + compute on the GPU + overhead */
    int fits_gpu;            /* gpu_needed_bytes <= GPU memory */
    int64_t ctx_size_fit;    /* the largest -c that fits the GPU with the other flags as
                                given; 0: none; meaningless when ctx_size_fit_any */
    int ctx_size_fit_any;    /* 1: any -c fits (nothing that grows with it is on the GPU) */
    int64_t autofit_ctx;     /* when auto-fit applies and the unfitted cache does not fit:
                                the -c it would lower to (ctx_size_fit, at least 4096), an
                                estimate; requests at once are counted at it. 0: not used */
    int64_t autofit_n_ctx;   /* cells x streams at autofit_ctx */
    int64_t autofit_slot_ctx;/* one slot's room at autofit_ctx */
    int64_t draft_contexts;  /* -md: the draft's contexts (one per slot before b9115, then
                                one shared); 0: no draft */
    int64_t draft_cells;     /* cells x streams of each */
    int draft_shared;        /* 1: one context for every slot (from b9115), 0: one a slot */
    int64_t draft_gpu_layers;/* of its layers + 1, on the GPU */
    double draft_kv_bytes;   /* its cache, every context */
    double draft_kv_gpu_bytes;      /* of that, on the GPU */
    double draft_weights_gpu_bytes; /* its weights on the GPU (the rest mapped on the host) */
    int draft_weights_estimated;    /* 1: from its config's parameter estimate, not tensors */
    double lora_bytes;       /* --lora: every adapter's tensors */
    double lora_gpu_bytes;   /* of those, on the GPU (the rest in host memory) */
    int64_t mtp_layers;      /* --spec-type draft-mtp: the next-n layers its context caches
                                (0: no MTP context) */
    int64_t mtp_cells;       /* its cells: the target's n_ctx */
    double mtp_kv_bytes;     /* its cache (the target's cache types) */
    double mtp_kv_gpu_bytes; /* of that, on the GPU */
    int64_t n_layer_file;    /* blocks the model's header counts (n_layer, and its next-n
                                layers beside an MTP context): the recurrent line's layers */
    double override_bytes;   /* -ot: the GPU blocks' tensors its "=CPU" patterns take (an
                                estimate: each tensor's share of the estimated parameters) */
    int64_t override_tensors;/* how many tensors of the GPU blocks that is */
} kv_llamacpp_result;


/* ---- Ollama ---- */

/* The backend library Ollama found, as its logs name it ("library=cuda"): it decides the
 * memory Ollama keeps free on each device and whether flash attention is possible. */
typedef enum {
    KV_OLLAMA_CUDA, KV_OLLAMA_ROCM, KV_OLLAMA_METAL, KV_OLLAMA_CPU, KV_OLLAMA_ONEAPI,
    KV_OLLAMA_VULKAN, KV_OLLAMA_LIBRARIES
} kv_ollama_library;

/* OLLAMA_KV_CACHE_TYPE. Ollama's estimate counts f16 2 B, q8_0 1 B and q4_0 0.5 B per
 * element, and takes a quantized type only with flash attention (0.30+: llama-server
 * takes any of them as llama.cpp does). */
typedef enum { KV_OLLAMA_F16, KV_OLLAMA_Q8_0, KV_OLLAMA_Q4_0, KV_OLLAMA_CACHE_TYPES } kv_ollama_cache_type;

/* Which of Ollama's code paths sizes the model, by release. */
typedef enum {
    KV_OLLAMA_ESTIMATOR,   /* 0.1.48 - 0.12.10: llm/memory.go's estimate, logged "offload" */
    KV_OLLAMA_LAYOUT,      /* 0.12.11 - 0.24.0: the same sizes laid out per device, logged
                              "model weights", "kv cache", "compute graph", "total memory" */
    KV_OLLAMA_LLAMA_SERVER /* 0.30.0 on: llama.cpp's llama-server sizes everything */
} kv_ollama_era;

#define KV_OLLAMA_MAX_GPUS 8
#define KV_OLLAMA_NEWEST 3300 /* 0.33: the newest release whose rules kvcalc describes */

/* Ollama's inputs, by its own names (docs/ollama.md): the options of a request or
 * Modelfile (num_ctx, num_gpu, num_batch) and the server's environment (OLLAMA_*). One
 * GPU, or the CPU. The model's rows come from the spec's GGUF header (kv_spec.gguf); without
 * one from the spec's numbers, an estimate the result says is one. */
typedef struct {
    int version;                /* 0.MINOR.PATCH as MINOR x 100 + PATCH (0.9.6 = 906) */
    kv_opt_int num_ctx;         /* tokens per request; not set: the release's default */
    kv_opt_int num_parallel;    /* OLLAMA_NUM_PARALLEL; not set (or 0): the release's */
    kv_opt_int flash_attention; /* OLLAMA_FLASH_ATTENTION 0 / 1; not set: the release's
                                   (and the model's) default */
    kv_opt_int kv_cache_type;   /* OLLAMA_KV_CACHE_TYPE, a kv_ollama_cache_type; not set:
                                   from the spec's dtype (f16) */
    kv_opt_int num_gpu;         /* layers on the GPU; not set: as many as fit (-1) */
    kv_opt_int num_batch;       /* >= 1; not set: 512 (0.30+: chosen by the context) */
    kv_opt_int library;         /* a kv_ollama_library; not set: from the GPU (ROCm for
                                   AMD's, else CUDA) */
    kv_opt_num available_gib;   /* the device's free memory (the log's memory.available);
                                   not set: GPU memory - overhead, an estimate */
    double gpu_overhead_bytes;  /* OLLAMA_GPU_OVERHEAD: kept free on each GPU, bytes [0] */
    kv_opt_num projector_weights_gib; /* a vision projector's weights (the log's
                                   projector.weights); not set: none */
    kv_opt_num projector_graph_gib;   /* its graph (projector.graph): with it, from 0.7.1 the
                                   projector is the model file's own (Ollama's engine), placed
                                   with the output layer; without, a --mmproj file kept on
                                   the first GPU */
    int64_t gpus;               /* GPUs of the library, alike (each with available_gib), that
                                   the estimate spreads the layers over: 1 to
                                   KV_OLLAMA_MAX_GPUS, more than 1 only to 0.12.10 [1] */
} kv_ollama_spec;

/* What Ollama would plan and log, and what `ollama ps` would show. Sizes in bytes. */
typedef struct {
    int version;                /* the rules applied */
    kv_ollama_era era;
    int64_t num_ctx;            /* per request, after the release's default, its floors and
                                   the cut to the model's context_length */
    int ctx_default;            /* 1: num_ctx is the release's default */
    int ctx_clamped;            /* 1: cut to the model's context_length */
    int64_t num_parallel;       /* in force */
    int parallel_auto;          /* 1: the release's choice (no OLLAMA_NUM_PARALLEL) */
    int parallel_forced;        /* 1: the architecture serves one request at a time */
    int64_t kv_size;            /* num_ctx x parallel: the runner's --ctx-size / KvSize */
    int64_t estimate_ctx;       /* the context the estimate sizes: kv_size, or 2048 where a
                                   release floors it */
    int64_t batch;              /* the graph formulas' batch; 0.30+: llama-server's -b/-ub */
    int library;                /* a kv_ollama_library in force */
    int library_default;        /* 1: from the GPU, not given */
    int flash;                  /* flash attention counted in the estimate */
    int flash_auto;             /* 1: left to the runner ("Auto", 0.13.4+) */
    int flash_refused;          /* 1: asked for, but the library or model refuses it */
    int cache_type;             /* kv_ollama_cache_type the estimate counts */
    int cache_type_refused;     /* 1: a quantized type asked for, not in force */
    double bytes_per_element;   /* 2, 1 or 0.5 */
    double minimum_bytes;       /* the library's MinimumMemory */
    double available_bytes;     /* the device's free memory used */
    int available_estimated;
    double kv_bytes;            /* memory.required.kv / "kv cache": the estimate's sum */
    double runner_kv_bytes;     /* Ollama's own engine with a recurrent cache (qwen3next,
                                   qwen35, nemotron_h, lfm2): what it allocates, the "kv
                                   cache" device lines - each state 1 + checkpoints copies a
                                   slot; 0: not such a model (kv_bytes stands) */
    int64_t state_checkpoints;  /* those checkpoints a slot (24; qwen3next's own 32 before
                                   0.17.1) */
    double device_kv_bytes;     /* the "kv cache" device lines' sum: runner_kv_bytes for such a
                                   model, else kv_bytes */
    double kv_layer0_bytes;     /* kv[0], in the layer buffer */
    double buffer_bytes;        /* one layer's worth kept free: blk.0 + its KV */
    double graph_full_bytes, graph_partial_bytes; /* memory.graph.full / .partial */
    int graph_formula;          /* 1: the architecture's formula, 0: Ollama's fallback
                                   (GQA x KV / 6) */
    double weights_repeating_bytes;    /* the blocks' tensors */
    double weights_nonrepeating_bytes; /* output_norm + output (or token_embd when tied) */
    double weights_total_bytes;        /* memory.weights.total as the release logs it */
    double weights_repeating_logged_bytes; /* memory.weights.repeating as logged (with the KV
                                          and less the output before 0.6.1, less the output
                                          before 0.6.3) */
    int weights_estimated;      /* 1: no GGUF: the spec's weights spread over the blocks */
    int64_t layers_model;       /* block_count + 1 (the output layer) */
    int64_t layers_offload;     /* layers placed on the GPU (the output counts as one) */
    int fully_loaded;           /* every layer and the output on the GPU */
    double allocation_bytes;    /* memory.required.allocations: the first device's share */
    int64_t gpus;               /* the GPUs the estimate spread the layers over */
    double gpu_allocations[KV_OLLAMA_MAX_GPUS]; /* memory.required.allocations, each */
    int64_t gpu_layer_counts[KV_OLLAMA_MAX_GPUS]; /* layers.split: the layers of each */
    double gpu_weights_bytes, gpu_kv_bytes, gpu_graph_bytes; /* per device (0.12.11+) */
    double cpu_weights_bytes, cpu_kv_bytes;
    double required_full_bytes; /* memory.required.full / "total memory": `ollama ps` SIZE */
    double required_partial_bytes; /* memory.required.partial: on the GPU (ps's VRAM) */
    int64_t gpu_percent;        /* `ollama ps` PROCESSOR: 100 GPU, 0 CPU, else the GPU's % */
    int64_t ps_context;         /* `ollama ps` CONTEXT (0.10.0+; 0: no such column) */
    int measured_by_runner;     /* 1: Ollama's own engine runs the model and measures its
                                   allocations (0.11.11+): kvcalc's figures are the estimate */
    int projector_left_out;     /* 1: vision tensors Ollama counts apart, and no projector
                                   figures given */
    double projector_weights_bytes, projector_graph_bytes; /* counted */
    int cross_attention_left_out; /* 1: mllama's cross-attention layers counted as others */
    int model_from_log;         /* 1: the model is as a log's lines describe it (no file):
                                   its blocks' bytes are the file's less the embeddings and
                                   output, spread evenly (kv_log_model_spec) */
    int estimated;              /* 1: any of the gaps above, or the free memory estimated */
    int64_t longest_num_ctx;    /* the longest num_ctx that keeps every layer on the GPU at
                                   this parallel; 0: none */
    /* 0.30+: what llama-server (llama.cpp's rules, the build the release pins) allocates */
    int64_t llamacpp_build;
    int server_flash;           /* the --flash-attn Ollama passes: a kv_flash_attn */
    kv_llamacpp_result server;
} kv_ollama_result;

/* Reads an Ollama release ("0.9.6", "v0.12.3", "0.5.4-0-g2ddc32d-dirty", "0.33.0-rc2") as
 * MINOR x 100 + PATCH; 0, or -1 when text is not one. */
KVCALC_API int kv_ollama_version_parse(const char *text, int *version);
/* Writes an ollama.version as "0.9.6" into buf. */
KVCALC_API void kv_ollama_version_format(int version, char *buf, size_t cap);
/* Go's format.HumanBytes2 (1024-based, "%.1f GiB", "0 B"): the sizes of Ollama's log. */
KVCALC_API void kv_ollama_human_bytes2(double bytes, char *buf, size_t cap);
/* Go's format.HumanBytes (1000-based, "6.2 GB", "13 GB"): `ollama ps` SIZE. */
KVCALC_API void kv_ollama_human_bytes(double bytes, char *buf, size_t cap);

/* The figures of Ollama's startup log (kv_log_values.v[] of the Ollama engine). */
typedef enum {
    KV_OLLAMA_LOG_KV_SIZE,        /* the runner's --ctx-size / KvSize: num_ctx x parallel */
    KV_OLLAMA_LOG_PARALLEL,       /* --parallel / Parallel */
    KV_OLLAMA_LOG_BATCH,          /* --batch-size / BatchSize */
    KV_OLLAMA_LOG_NUM_GPU,        /* --n-gpu-layers */
    KV_OLLAMA_LOG_REQUESTED,      /* layers.requested (-1: as many as fit) */
    KV_OLLAMA_LOG_FLASH,          /* OLLAMA_FLASH_ATTENTION, --flash-attn, FlashAttention */
    KV_OLLAMA_LOG_ENV_CTX,        /* OLLAMA_CONTEXT_LENGTH */
    KV_OLLAMA_LOG_ENV_PARALLEL,   /* OLLAMA_NUM_PARALLEL */
    KV_OLLAMA_LOG_LIBRARY,        /* a kv_ollama_library */
    KV_OLLAMA_LOG_GPU_TOTAL,      /* "inference compute" total */
    KV_OLLAMA_LOG_AVAILABLE,      /* memory.available (the first device); "gpu memory" free */
    KV_OLLAMA_LOG_GPUS,           /* the devices of memory.available, counted */
    KV_OLLAMA_LOG_GPU_OVERHEAD,   /* memory.gpu_overhead */
    KV_OLLAMA_LOG_LAYERS_MODEL,   /* layers.model */
    KV_OLLAMA_LOG_LAYERS_OFFLOAD, /* layers.offload */
    KV_OLLAMA_LOG_FULL,           /* memory.required.full */
    KV_OLLAMA_LOG_PARTIAL,        /* memory.required.partial */
    KV_OLLAMA_LOG_KV,             /* memory.required.kv */
    KV_OLLAMA_LOG_ALLOCATION,     /* memory.required.allocations (the first device) */
    KV_OLLAMA_LOG_WEIGHTS_TOTAL,  /* memory.weights.total */
    KV_OLLAMA_LOG_WEIGHTS_REPEATING, /* memory.weights.repeating */
    KV_OLLAMA_LOG_WEIGHTS_NONREPEATING, /* memory.weights.nonrepeating */
    KV_OLLAMA_LOG_GRAPH_FULL,     /* memory.graph.full */
    KV_OLLAMA_LOG_GRAPH_PARTIAL,  /* memory.graph.partial */
    KV_OLLAMA_LOG_PROJECTOR,      /* projector.weights */
    KV_OLLAMA_LOG_PROJECTOR_GRAPH,/* projector.graph */
    KV_OLLAMA_LOG_RUNNER_KV,      /* the llama.cpp runner's KV: "KV self size", "size =" */
    KV_OLLAMA_LOG_DEVICE_KV,      /* "kv cache" lines, summed over the devices */
    KV_OLLAMA_LOG_DEVICE_WEIGHTS, /* "model weights" lines, summed */
    KV_OLLAMA_LOG_DEVICE_GRAPH,   /* "compute graph" lines, summed */
    KV_OLLAMA_LOG_TOTAL_MEMORY,   /* "total memory" */
    /* the runner's llama_model_loader / print_info lines: the model they describe */
    KV_OLLAMA_LOG_ARCH,           /* general.architecture, as its row in ollama_desc.c */
    KV_OLLAMA_LOG_BLOCKS,         /* <arch>.block_count */
    KV_OLLAMA_LOG_CONTEXT_LENGTH, /* <arch>.context_length */
    KV_OLLAMA_LOG_EMBEDDING,      /* <arch>.embedding_length */
    KV_OLLAMA_LOG_HEADS,          /* <arch>.attention.head_count */
    KV_OLLAMA_LOG_HEADS_KV,       /* <arch>.attention.head_count_kv */
    KV_OLLAMA_LOG_KEY_LENGTH,     /* <arch>.attention.key_length */
    KV_OLLAMA_LOG_VALUE_LENGTH,   /* <arch>.attention.value_length */
    KV_OLLAMA_LOG_WINDOW,         /* <arch>.attention.sliding_window */
    KV_OLLAMA_LOG_VOCAB,          /* tokenizer.ggml.tokens arr[str,N] */
    KV_OLLAMA_LOG_FILE_TYPE,      /* general.file_type */
    KV_OLLAMA_LOG_FILE_SIZE,      /* "file size = X GiB" / "model size = X GiB" */
    KV_OLLAMA_LOG_TENSORS,        /* "... key-value pairs and N tensors" */
    KV_OLLAMA_LOG_F32_TENSORS,    /* "- type f32: N tensors" */
    KV_OLLAMA_LOG_MODEL_BUFFERS,  /* load_tensors' "X [model] buffer size = N MiB", summed */
    KV_OLLAMA_LOG_FIELDS
} kv_ollama_log_field;

/* ---- startup log fields of vLLM, SGLang and llama.cpp (kv_log_values.v[]) ---- */

/* Every figure their startup logs may state. Memory is in bytes (the engines' "GB" is GiB). */
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
    KV_LOG_N_RS_SEQ,        /* llama.cpp n_rs_seq: recurrent-state snapshots per sequence */
    KV_LOG_INDEX_LAYERS,    /* llama.cpp indexer cache (DeepSeek sparse attention): layers */
    KV_LOG_INDEX_K_BYTES,   /* ... its K */
    KV_LOG_MAMBA_SLOTS,     /* SGLang "Mamba Cache is allocated. max_mamba_cache_size" */
    KV_LOG_CONV_STATE,      /* ... conv_state size */
    KV_LOG_SSM_STATE,       /* ... ssm_state size */
    KV_LOG_INTER_SSM,       /* ... intermediate_ssm_state_cache size (speculative decoding) */
    KV_LOG_INTER_CONV,      /* ... intermediate_conv_window_cache size */
    KV_LOG_SPEC_TOKENS,     /* SGLang speculative_num_draft_tokens (ServerArgs) */
    KV_LOG_RS_BYTES,        /* llama.cpp recurrent state "llama_memory_recurrent: size =" */
    KV_LOG_RS_CELLS,        /* ... its cells (sequences) */
    KV_LOG_RS_LAYERS,       /* ... its layers (the model's n_layer) */
    KV_LOG_R_BYTES,         /* ... R (the conv state) */
    KV_LOG_S_BYTES,         /* ... S (the SSM state) */
    KV_LOG_ATTN_BLOCK,      /* vLLM "Setting attention block size to N tokens" (hybrid) */
    KV_LOG_MAMBA_PAD,       /* vLLM "Padding mamba page size by X%" */
    KV_LOG_KV_BUFFERS,      /* llama.cpp "<device> KV buffer size = X MiB", every device's summed */
    KV_LOG_TP_RANK,         /* vLLM's "Worker_TP<n>" rank prefixes: the largest n */
    KV_LOG_CONSUMED,        /* vLLM 0.2x "X GiB for consumed memory (weights + non-torch)" */
    KV_LOG_CUDA_GRAPH_CAPTURED, /* vLLM: the graphs captured after the budget ("... GiB for
                               CUDAGraph memory", "Graph capturing finished ..., took X GiB") */
    KV_LOG_ACTIVATION_GRAPHS, /* vLLM's later "peak activation", which holds the CUDA-graph
                               estimate it subtracted */
    KV_LOG_CG_UTIL_CURRENT,   /* "The current --gpu-memory-utilization=U ..." */
    KV_LOG_CPU_OFFLOAD,       /* vLLM cpu_offload_gb (GiB per GPU) */
    KV_LOG_KV_OFFLOADING,     /* vLLM kv_offloading_size (GiB across the ranks) */
    KV_LOG_MAX_LORAS,         /* vLLM max_loras, SGLang max_loras_per_batch */
    KV_LOG_LORA_RANK,         /* vLLM and SGLang max_lora_rank */
    KV_LOG_HICACHE_GB,        /* SGLang "Allocating X GB host memory for hierarchical KV cache" */
    KV_LOG_HICACHE_RATIO,     /* SGLang hicache_ratio (ServerArgs) */
    KV_LOG_CG_UTIL_EQUIVALENT,/* "... is equivalent to --gpu-memory-utilization=U' without CUDA
                               graph memory profiling" */
    KV_LOG_DRAFT_TP,          /* vLLM speculative_config draft_tensor_parallel_size */
    KV_LOG_LORA_ON,           /* SGLang enable_lora=True (ServerArgs), --enable-lora; vLLM's
                                 'enable_lora': True (non-default args) */
    KV_LOG_SPEC_STEPS,        /* SGLang speculative_num_steps (ServerArgs) */
    KV_LOG_SPEC_TOPK,         /* SGLang speculative_eagle_topk (ServerArgs) */
    KV_LOG_SPEC_ALGO,         /* SGLang speculative_algorithm, a KV_SGLANG_SPEC_* */
    KV_LOG_KV_OFFLOAD_BACKEND,/* vLLM kv_offloading_backend, a KV_VLLM_OFFLOAD_* */
    KV_LOG_MAX_CG_SIZE,       /* vLLM max_cudagraph_capture_size */
    KV_LOG_PIECEWISE_GRAPHS,  /* vLLM "Profiling CUDA graph memory: PIECEWISE=n" */
    KV_LOG_PIECEWISE_LARGEST, /* ... (largest=m) */
    KV_LOG_FULL_GRAPHS,       /* ... FULL=n */
    KV_LOG_FULL_LARGEST,      /* ... (largest=m) */
    KV_LOG_MAX_NUM_SEQS,      /* vLLM max_num_seqs (its non-default args) */
    KV_LOG_ATTN_BACKEND,      /* vLLM attention_backend, a kv_vllm_attention_backend */
    KV_LOG_DSV4_BPFT,         /* SGLang "DSV4 memory calculation: bytes_per_full_token=X" */
    KV_LOG_DSV4_AVAILABLE,    /* ... available_bytes=X GB */
    KV_LOG_DSV4_C128_FIXED,   /* ... c128_state_fixed=X GB (0.5.15+) */
    KV_LOG_DSV4_FULL_TOKEN,   /* ... full_token=N (before --max-total-tokens) */
    KV_LOG_DSV4_FULL,         /* "DSV4 pool sizes: full=N" (the last: after the cap) */
    KV_LOG_DSV4_SWA,          /* "DSV4 pool sizes: ... swa=N" */
    KV_LOG_DSV4_C4,           /* ... c4=N */
    KV_LOG_DSV4_C128,         /* ... c128=N */
    KV_LOG_DSV4_C4_STATE,     /* ... c4_state=N */
    KV_LOG_DSV4_C128_STATE,   /* ... c128_state=N */
    KV_LOG_MAX_RUNNING,       /* SGLang max_running_requests (ServerArgs): an input of a
                                 DeepSeek-V4 log only */
    KV_LOG_PREFIX_CACHING,   /* vLLM 'enable_prefix_caching': False (non-default args),
                                 enable_prefix_caching=False (the engine's config line) */
    KV_LOG_ENFORCE_EAGER,     /* vLLM 'enforce_eager': True, enforce_eager=True */
    KV_LOG_RUNNER_V2,         /* vLLM "Using V2 Model Runner" (1), "... using the v1 model runner
                                 instead" (0) */
    KV_LOG_VLLM_SPEC_METHOD,  /* vLLM SpeculativeConfig(method='m', ...) on the engine's config
                                 line, a KV_VLLM_SPEC_* (the method after vLLM resolved it) */
    KV_LOG_MAMBA_ALIGN,       /* vLLM "Prefix caching in Mamba cache 'align' mode is currently
                                 enabled" (1): the mode in force, given or chosen */
    KV_LOG_MTP_CONTEXT,       /* llama.cpp "creating MTP draft context against the target model"
                                 (1): --spec-type draft-mtp */
    KV_LOG_MTP_CELLS,         /* its cache line's cells */
    KV_LOG_MTP_LAYERS,        /* ... layers (the next-n layers) */
    KV_LOG_MTP_KV_BYTES,      /* ... size */
    KV_LOG_N_BATCH,           /* llama.cpp --batch-size N on a command line the log echoes */
    KV_LOG_VLLM_SPEC_TOKENS,  /* vLLM speculative_config num_speculative_tokens (its
                                 non-default args; num_spec_tokens on the engine's line) */
    KV_LOG_MODEL_BUFFERS,     /* llama.cpp "<buffer> model buffer size = X MiB", every buffer's
                                 summed (load_tensors) */
    KV_LOG_MODEL_HOST,        /* ... of those, the host's: CPU, CPU_Mapped, CPU_REPACK and the
                                 pinned <backend>_Host buffers */
    KV_LOG_FIELDS
} kv_log_field;

/* ---- every engine's structs fit the space kvcalc.h keeps for them ---- */

#define KV_ENGINE(ID, id, name)                                                           \
    _Static_assert(sizeof(kv_##id##_spec) <= KV_ENGINE_SPEC_SPACE,                         \
                   "the inputs of " name " outgrow KV_ENGINE_SPEC_SPACE");                 \
    _Static_assert(sizeof(kv_##id##_result) <= KV_ENGINE_RESULT_SPACE,                     \
                   "the result of " name " outgrows KV_ENGINE_RESULT_SPACE");
#include "kvcalc_engines.def"
#undef KV_ENGINE

#endif /* KVCALC_ENGINES_H */
