/*
 * vllm.c - what vLLM's V1 engine allocates for the KV cache, and what it prints.
 *
 * The rules are docs/vllm.md's (restated from vLLM's sources and checked against real
 * startup logs): a budget of util x total minus weights, activation peak, non-torch memory
 * and CUDA graphs; fixed-size pages of block_size tokens per layer; layers grouped so that
 * groups of alike layers share one block pool (sliding-window and Mamba hybrids need
 * several groups and sometimes padding layers); a request charged ceil(max_model_len /
 * block_size) blocks per full group (sliding windows and chunks their own terms); and the
 * "GPU KV cache size" line by the formula of the version's era. Everything is per GPU.
 * Pure: no I/O, no globals.
 */
#include "kvprint.h"
#include "vllm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvmath.h"

#define V(minor, patch) ((minor) * 100 + (patch)) /* vllm.version of 0.MINOR.PATCH */
#define VLLM_DEFAULT_BLOCK 16
#define VLLM_MLA_BLOCK 64 /* FlashMLA forces a multiple of 64 on Hopper */
#define VLLM_MAMBA_ALIGN 16

/* Every optional input is "not given" (zeroed by kv_spec_set_engine()): the release's
 * default or kvcalc's estimate. */
void kv_vllm_defaults(kv_spec *s)
{
    kv_vllm_spec *v = &s->vllm;
    v->version = VLLM_DEFAULT_VERSION;
    v->hybrid_manager = 1;
    v->mla_align = 0;
    v->swap_space_gib = 4;
    v->enforce_eager = 0;
    v->prefix_caching = -1; /* the model's default (prefix_caching_in_force) */
    v->language_model_only = 0;
    v->max_loras = 1;      /* vllm/config/lora.py @ 01230b40128e */
    v->max_lora_rank = 16;
}

/* The engine generations by release: V1 from 0.7 (opt-in, VLLM_USE_V1=1), the default from
 * 0.8; V0 removed in 0.11. Their rules differ where the table below says so. */
#define V1_FIRST V(7, 0)
#define V1_DEFAULT V(8, 0)
#define V0_REMOVED V(11, 0)

static int uses_v1(const kv_vllm_spec *v)
{
    return v->use_v1.set ? v->use_v1.value != 0 : v->version >= V1_DEFAULT;
}

/* V1 before 0.9.1 printed "# GPU blocks" and counted concurrency as blocks x block size /
 * max_model_len, as V0 did; from 0.9.1 a request is charged whole blocks (ceil). */
#define V1_TOKENS_LINE V(9, 1)
/* The hybrid memory allocator (sliding windows and Mamba layers in their own groups) arrived
 * with 0.10; before it every layer was sized as full attention. */
#define HYBRID_ALLOCATOR V(10, 0)

static int counts_blocks_per_token(const kv_vllm_spec *v)
{
    return !uses_v1(v) || v->version < V1_TOKENS_LINE;
}

/* What V0 printed, by release: the blocks line's word (vLLM's platform name), the memory
 * profiling lines (PR #10511, 0.6.5) and the concurrency line (PR #8831, 0.6.3). */
static const struct {
    int from;
    const char *word;
    int memory_lines, concurrency_line;
} v0_lines[] = {
    {0, "GPU", 0, 0},         {V(6, 3), "GPU", 0, 1},  {V(6, 5), "GPU", 1, 1},
    {V(7, 0), "CUDA", 1, 1}, /* dispatch_key, 2025-01 */
    {V(7, 3), "cuda", 1, 1}, /* device_name, 2025-02 */
};

static void printed_lines(const kv_vllm_spec *v, kv_vllm_result *out)
{
    out->device_word = "GPU";
    out->memory_lines = 0;
    out->concurrency_line = 1;
    if (out->v1) {
        out->lines = v->version < V1_TOKENS_LINE ? KV_VLLM_LINES_BLOCKS : KV_VLLM_LINES_TOKENS;
        return;
    }
    out->lines = KV_VLLM_LINES_V0;
    for (size_t i = 0; i < sizeof v0_lines / sizeof v0_lines[0]; i++)
        if (v->version >= v0_lines[i].from) {
            out->device_word = v0_lines[i].word;
            out->memory_lines = v0_lines[i].memory_lines;
            out->concurrency_line = v0_lines[i].concurrency_line;
        }
}

/* Least-squares fit on the eight V1 logs that print the activation peak (M01, M03-M07, D22,
 * D23: H100, L40S and a 16 GB card; 0.6B to 235B; dense and MoE; TP 1 to 8), the MoE buffer
 * taken as it is allocated (not fitted): each within 0.12 GiB but D22 (+0.36 GiB). Logs not
 * fitted: V0 from 0.7.3 at 256 sequences within 0.02 GiB (P01, P05); DeepSeek-R1 at 32,000
 * batched tokens (D31) -1.8 GiB, where the sampler and forward terms alone are -5.2 GiB.
 * docs/vllm.md has the table. */
#define SAMPLER_COPIES 9.426 /* f32 seqs x vocab buffers of the dummy sampler run */
#define FORWARD_SHARE 0.257  /* of tokens x MLP width x 4 B */

/* Releases whose sampler warm-up held fewer buffers: V1 0.10.0-0.10.1 (D10 2.7 and D14 1.9
 * copies, logs of 0.10.1.1), V0 before 0.7.3 (M08 3.7 and P02 1.6 copies) and V1 from 0.21:
 * Gemma-4 E2B's logs (D26 0.21.0 on an L4, D27 on a T4; 256 sequences x 262,144 vocabulary)
 * leave 1.44 and 0.82 GiB for activation, non-torch and CUDA graphs together, where 9.426
 * copies alone would be 2.36 GiB. */
static const struct {
    int v1, from, to; /* [from, to) */
    double copies;
} light_samplers[] = {
    {1, V(10, 0), V(10, 2), 2.3},
    {1, V(21, 0), V(999, 0), 2.3},
    {0, 0, V(7, 3), 2.3},
};

double kv_vllm_activation_estimate_gib(const kv_vllm_activation_inputs *in)
{
    if (in->vocab <= 0) /* no model: the older rule, from two profiled single-GPU logs */
        return 0.25 + 0.1 * (double)in->batched_tokens / 1024.0;
    double copies = SAMPLER_COPIES;
    for (size_t i = 0; i < sizeof light_samplers / sizeof light_samplers[0]; i++)
        if ((light_samplers[i].v1 != 0) == (in->v1 != 0) && in->version >= light_samplers[i].from &&
            in->version < light_samplers[i].to)
            copies = light_samplers[i].copies;
    double t = (double)in->batched_tokens;
    double sampler = copies * (double)in->seqs * (double)in->vocab * 4.0;
    double forward = FORWARD_SHARE * t * (double)(in->mlp_width > 0 ? in->mlp_width : 0) * 4.0;
    /* an MoE layer holds every token's top-k expert outputs before it sums them: T x top-k
     * rows of the hidden width (vLLM's fused kernel allocates them for the whole batch) */
    double moe = t * (double)(in->moe_row > 0 ? in->moe_row : 0) * (double)in->act_bytes;
    double lm = sampler + forward + moe + in->encoder_cache_bytes;
    return (in->encoder_bytes > lm ? in->encoder_bytes : lm) / KV_GIB;
}

/* ---- the multimodal encoder's profile run (V1) ------------------------------------------ */

static int64_t ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

#define QWEN_VL_ITEM_TOKENS 16384 /* an image at max_pixels: 12,845,056 / 28^2 (Qwen2.5-VL),
                                     16,777,216 / 32^2 (Qwen3-VL) */
#define GEMMA3_ITEM_TOKENS 256    /* mm_tokens_per_image */

typedef struct {
    int64_t tokens;  /* language-model tokens of the item */
    int64_t patches; /* encoder patches */
} mm_item;

/* The item vLLM profiles: the modality with the most tokens per item, at its largest. */
static mm_item profiled_item(const kv_spec *s)
{
    const kv_tower *t = &s->arch.vision;
    mm_item it = {0, 0};
    switch (t->kind) {
    case KV_TOWER_SIGLIP:
        it.tokens = GEMMA3_ITEM_TOKENS;
        it.patches = t->positions;
        break;
    case KV_TOWER_QWEN_VL: {
        /* a video's frame pairs are as large as the image; as many as max_model_len holds,
         * up to 16 frames (14 from 0.11) */
        int64_t pairs = s->context / QWEN_VL_ITEM_TOKENS;
        int64_t most = s->vllm.version >= V(11, 0) ? 7 : 8;
        pairs = pairs < 1 ? 1 : pairs > most ? most : pairs;
        it.tokens = pairs * QWEN_VL_ITEM_TOKENS;
        it.patches = it.tokens * t->merge * t->merge;
        break;
    }
    default: /* Pixtral, Llama-4 and audio towers: their items are not described here */
        break;
    }
    return it;
}

double kv_vllm_encoder_profile(const kv_spec *s, int64_t t, int64_t seqs, double *cache_bytes)
{
    const kv_tower *tw = &s->arch.vision;
    *cache_bytes = 0;
    int v1 = s->engine == KV_ENGINE_VLLM && uses_v1(&s->vllm);
    if (!s->arch.known || !v1 || s->vllm.language_model_only || tw->layers <= 0 ||
        tw->hidden <= 0 || tw->intermediate <= 0 || s->tp < 1)
        return 0;
    mm_item it = profiled_item(s);
    if (it.tokens <= 0 || it.patches <= 0)
        return 0;
    /* items: the encoder budget max(T, item) over the item (rounded up before 0.10), at most
     * what max_num_seqs requests of max_model_len could carry */
    int64_t budget = t > it.tokens ? t : it.tokens;
    int64_t enc = s->vllm.version >= V(10, 0) ? budget / it.tokens : ceil_div(budget, it.tokens);
    int64_t per_prompt = s->context / it.tokens;
    double dec = (double)(seqs > 0 ? seqs : 1) * (double)(per_prompt > 1 ? per_prompt : 1);
    double items = (double)enc < dec ? (double)enc : dec;
    if (items < 1)
        items = 1;
    double block = 2.0 * (double)tw->hidden +
                   (tw->gated ? 3.0 : 2.0) * (double)(tw->intermediate / s->tp);
    double width = (double)(tw->out > 0 ? tw->out : s->arch.hidden);
    *cache_bytes = items * (double)it.tokens * width * (double)(tw->mergers > 1 ? tw->mergers : 1) *
                   2.0;
    return items * (double)it.patches * block * 2.0;
}

double kv_vllm_non_torch_estimate_gib(int64_t tp, double total_gib)
{
    /* NCCL and custom all-reduce buffers with TP (0.21-0.74 GiB in the logs; M03's 0.55 GiB at
     * TP 2 was measured after the distributed init, its free memory at startup shows, so
     * moving the baseline there in 0.11 did not take these buffers out); one GPU: the logs
     * show 0.13-0.14 GiB on 80 GB cards, 0.03-0.09 GiB on 8-16 GB ones */
    return tp > 1 ? 0.5 : total_gib >= 70 ? 0.13 : 0.06;
}

double kv_vllm_util_default(int version)
{
    return version >= VLLM_GRAPHS_BUDGETED ? 0.92 : 0.9; /* raised with the CUDA-graph estimate */
}

/* What vLLM loads beyond the stored mxfp4 experts: its MoE kernels pad the experts' hidden
 * width to a multiple of 256 (gpt-oss: 2,880 -> 3,072, 6.7% more expert bytes). Fitted on
 * two logs: gpt-oss-20b 13.45 GiB predicted vs 13.47 logged, gpt-oss-120b 64.55 vs 64.38. */
static double mxfp4_padding(const kv_spec *s)
{
    if (s->arch.quant_scope != KV_QUANT_EXPERTS || !(s->arch.quant_bytes > 0) ||
        s->checkpoint_weights_bytes > 0 || s->arch.hidden <= 0)
        return 0;
    kv_param_parts p;
    kv_estimate_param_parts(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim, &p);
    int64_t padded = (s->arch.hidden + 255) / 256 * 256;
    return p.experts * s->arch.quant_bytes * ((double)padded / (double)s->arch.hidden - 1.0) /
           (double)s->tp;
}

/* Rows of the profile run's sampler on this GPU: max_num_seqs on the last pipeline stage
 * (the only one that samples), none on the others. */
static int64_t sampler_rows(const kv_spec *s, const kv_vllm_result *out)
{
    return s->pp_stage >= 0 && s->pp_stage < s->pp - 1 ? 0 : out->max_num_seqs;
}

/* Bytes of one token's MLA latent in one layer; V0 with VLLM_MLA_CUDA_MEM_ALIGN_KV_CACHE=1
 * padded it to a multiple of 256 bytes (DeepSeek-R1: 576 -> 640 elements; the public logs
 * D31 and D32 show it, D33 from the same 0.7.4 development line does not). */
static double mla_entry_bytes(const kv_spec *s, double elem_bytes)
{
    double b = (double)s->layout.mla_latent * elem_bytes;
    if (s->layout.index_dim > 0) {
        /* DeepSeek sparse attention (DeepseekV32ForCausalLM): an fp8 cache is fp8_ds_mla,
         * the latent's kv_lora_rank bytes with one float32 scale per 128 and the rope part
         * in 16 bits (MLAAttentionSpec.real_page_size_bytes: 656 B for DeepSeek-V3.2); the
         * indexer's key cache shares the block table (UniformTypeKVCacheSpecs: one page is
         * the sum), index_head_dim uint8 bytes and a float32 scale per 128
         * (DeepseekV32IndexerCache.get_kv_cache_spec: 132 B) - vllm/v1/kv_cache_interface.py
         * @ 001cabc1be16a59a70d720ed61a13b678c060a18, deepseek_v2.py (not pinned) */
        double rank = (double)s->arch.kv_lora_rank, rope = (double)s->arch.qk_rope_dim;
        double idx = (double)s->layout.index_dim;
        if (elem_bytes == 1 && rank > 0)
            b = rank + kvm_floor(rank / 128) * 4 + rope * 2;
        return b + idx + kvm_floor(idx / 128) * 4;
    }
    return s->vllm.mla_align ? kvm_ceil(b / 256.0) * 256.0 : b;
}

/* The MTP layers' weights on this GPU when --mtp loads them: the checkpoint's own bytes,
 * else the estimate's MTP part in the weight dtype. */
static double mtp_weights(const kv_spec *s)
{
    if (s->checkpoint_mtp_bytes > 0)
        return s->checkpoint_mtp_bytes / (double)s->tp;
    kv_param_parts p;
    kv_estimate_param_parts(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim, &p);
    return p.mtp * kv_dtype_get(s->weight_dtype)->bytes / (double)s->tp;
}

/* ---- speculative decoding ---------------------------------------------------------------
 * Sources: vllm/config/speculative.py, vllm/v1/spec_decode/draft_model.py and
 * llm_base_proposer.py, vllm/v1/core/kv_cache_utils.py - all @ 28be48fa9 (upstream to
 * 2026-05-19, the local-inference-lab/vllm mirror). */

/* The method in force: the one given, else SpeculativeConfig.__post_init__'s: a model with
 * no method is "draft_model"; then a model whose path holds "eagle-" is an EAGLE head and one
 * holding "eagle3" an EAGLE-3 head, whatever method other than eagle / eagle3 was given
 * ("Automatically detect the method"). --mtp is method mtp. */
static int spec_method(const kv_vllm_spec *v)
{
    int m = v->spec_method.set ? (int)v->spec_method.value
          : v->mtp            ? KV_VLLM_SPEC_MTP
          : v->draft.name     ? KV_VLLM_SPEC_DRAFT_MODEL
                              : KV_VLLM_SPEC_NONE;
    if (v->draft.name && m != KV_VLLM_SPEC_EAGLE && m != KV_VLLM_SPEC_EAGLE3 &&
        m != KV_VLLM_SPEC_DFLASH) {
        char low[256];
        size_t i = 0;
        for (; v->draft.name[i] && i < sizeof low - 1; i++)
            low[i] = (char)(v->draft.name[i] >= 'A' && v->draft.name[i] <= 'Z'
                                ? v->draft.name[i] - 'A' + 'a'
                                : v->draft.name[i]);
        low[i] = '\0';
        if (strstr(low, "eagle-"))
            m = KV_VLLM_SPEC_EAGLE;
        else if (strstr(low, "eagle3"))
            m = KV_VLLM_SPEC_EAGLE3;
        else if (strstr(low, "dflash"))
            m = KV_VLLM_SPEC_DFLASH;
    }
    return m;
}

static int uses_draft(int method)
{
    return method == KV_VLLM_SPEC_DRAFT_MODEL || method == KV_VLLM_SPEC_EAGLE ||
           method == KV_VLLM_SPEC_EAGLE3;
}

/* draft_tensor_parallel_size: the target's unless given (_verify_and_get_draft_tp). Only a
 * separate draft model reads it (DraftModelProposer, which requires the target's); an EAGLE
 * head is built from the target's parallel config, so it runs at the target's TP whatever
 * is given (llm_base_proposer.py @ 9aaf83ef5). */
static int64_t draft_tp(const kv_spec *s)
{
    if (spec_method(&s->vllm) != KV_VLLM_SPEC_DRAFT_MODEL)
        return s->tp;
    return s->vllm.draft_tp.set ? s->vllm.draft_tp.value : s->tp;
}

/* One draft layer's cache per token on one GPU: its KV heads split by its TP (replicated
 * where the TP exceeds them, as the target's are), at the target's KV dtype - the draft
 * takes the target's cache config unless speculative_config kv_cache_dtype says otherwise,
 * which kvcalc does not read. */
static double draft_layer_token_bytes(const kv_spec *s, double elem_bytes)
{
    const kv_draft *d = &s->vllm.draft;
    int64_t dtp = draft_tp(s);
    int64_t heads = d->kv_heads >= dtp ? d->kv_heads / dtp : 1;
    return 2.0 * (double)heads * (double)d->head_dim * elem_bytes;
}

/* The target's full-attention layer per token on one GPU, the page a draft layer joins. */
static double target_layer_token_bytes(const kv_spec *s, double elem_bytes)
{
    int64_t h, d;
    kv_layer_shape(s, KV_LAYER_FULL, &h, &d);
    return 2.0 * (double)h * (double)d * elem_bytes;
}

/* The draft in the budget: its weights on this GPU (a draft_model shares no embedding or
 * head with the target - DraftModelProposer._maybe_share_embeddings is a no-op - so the whole
 * model, split by its TP; an EAGLE head's checkpoint holds what it loads) and its layers'
 * cache. Layers of the target's page join the target's group (one spec); others make the
 * one group of UniformTypeKVCacheSpecs, whose page is the sum of its layers' (vllm#25101,
 * "Support full attention with different hidden size", merged 2025-09-19). MTP layers are
 * the model's own, of its page. */
static void draft_terms(const kv_spec *s, kv_vllm_result *out)
{
    const kv_vllm_spec *v = &s->vllm;
    static const char *const names[] = {
        [KV_VLLM_SPEC_NONE] = NULL, [KV_VLLM_SPEC_NGRAM] = "ngram",
        [KV_VLLM_SPEC_NGRAM_GPU] = "ngram_gpu", [KV_VLLM_SPEC_SUFFIX] = "suffix",
        [KV_VLLM_SPEC_DRAFT_MODEL] = "draft_model", [KV_VLLM_SPEC_EAGLE] = "eagle",
        [KV_VLLM_SPEC_EAGLE3] = "eagle3", [KV_VLLM_SPEC_MTP] = "mtp",
        [KV_VLLM_SPEC_MEDUSA] = "medusa", [KV_VLLM_SPEC_MLP_SPECULATOR] = "mlp_speculator",
        [KV_VLLM_SPEC_DFLASH] = "dflash"};
    out->spec_method = spec_method(v);
    out->spec_method_name = names[out->spec_method];
    out->draft_model = uses_draft(out->spec_method) ? v->draft.name : NULL;
    out->draft_weights_bytes = 0;
    out->draft_layers = 0;
    out->draft_kv_token_bytes = 0;
    out->draft_shares_group = 1;
    out->draft_page_bytes = 0;
    out->draft_weights_estimated = 0;
    if (out->spec_method == KV_VLLM_SPEC_MTP) {
        out->draft_layers = s->arch.mtp_layers;
        out->draft_weights_bytes = mtp_weights(s);
        out->draft_weights_estimated = !(s->checkpoint_mtp_bytes > 0);
        out->draft_kv_token_bytes =
            (double)s->arch.mtp_layers * (s->layout.mla ? mla_entry_bytes(s, out->elem_bytes)
                                                        : target_layer_token_bytes(s, out->elem_bytes));
    } else if (uses_draft(out->spec_method) && v->draft.name) {
        double tok = draft_layer_token_bytes(s, out->elem_bytes);
        out->draft_layers = v->draft.layers;
        out->draft_weights_bytes = v->draft.weights_bytes / (double)draft_tp(s);
        out->draft_weights_estimated = v->draft.weights_estimated;
        out->draft_kv_token_bytes = (double)v->draft.layers * tok;
        out->draft_shares_group = !s->layout.mla && tok == target_layer_token_bytes(s, out->elem_bytes);
    }
}

/* Bytes of one block in every group: the groups' pages, and a draft of its own page beside
 * them (one group of two page sizes). */
static double block_bytes(const kv_vllm_result *out)
{
    return out->page_bytes * (double)out->group_size +
           (out->draft_shares_group ? 0.0 : out->draft_page_bytes);
}

/* --cpu-offload-gb: what of the weights vLLM may move to the host. The offloader wraps the
 * decoder layers only (make_layers -> get_offloader().wrap_modules(), vllm/model_executor/
 * models/utils.py), moving whole parameters in layer order while fewer than G GiB are moved
 * (UVAOffloader._maybe_offload_to_cpu, vllm/model_executor/offloader/uva.py; both read at
 * upstream 9aaf83ef5 in the local-inference-lab/vllm mirror; the flag since v0.5.3, vllm PR
 * #6496): the embeddings, the head, the final norm and the towers stay on the GPU. The check
 * comes before each parameter, so the last one may take up to one tensor more than G: kvcalc
 * moves G exactly (the section says so). The layers' share of this GPU's weights is their
 * share of the estimated parameters (kv_layers_weight_bytes). */

/* --enable-lora: BaseLinearLayerWithLoRA.create_lora_weights (vllm/lora/layers/
 * base_linear.py @ 01235a494f17) gives every wrapped linear, per output slice, A = max_loras
 * x rank x in and B = max_loras x out x rank in the LoRA dtype (the model's): column-parallel
 * layers (qkv: 3 slices, gate_up: 2) take the whole input and out / tp, row-parallel ones (o,
 * down) in / tp and the whole output; --fully-sharded-loras splits the other half too. vLLM
 * wraps every LoRA-capable linear of every layer, whatever the adapters target ("In vLLM,
 * all linear layers support LoRA": get_supported_lora_modules, vllm/lora/utils.py). So a
 * layer costs max_loras x rank x bytes x sum over slices (in + out).
 *
 * MoE layers (vllm/lora/layers/fused_moe.py @ 28be48fa944d, the local-inference-lab mirror):
 * FusedMoEWithLoRA._create_lora_a_weights / _b_weights hold, per slot and local expert,
 * w13 A = rank x hidden and B = I / tp x rank for each of gate and up, w2 A = rank x I / tp
 * and B = hidden x rank; --fully-sharded-loras splits w13's A on the rank and w2's B on the
 * hidden size (S-LoRA). Models whose checkpoints fuse gate and up (is_3d_moe_weight: gpt-oss,
 * Qwen3-VL-MoE, Qwen3.5-MoE, Intern-S1-Pro) get FusedMoE3DWithLoRA: one A of rank x hidden
 * and one B of 2 I / tp x rank. Non-gated experts (is_act_and_mul false) have one w1 slice.
 * The router (ReplicatedLinear: gate, gpt-oss's router) is a linear like any other, whole on
 * every GPU: A = rank x hidden, B = experts x rank; model_manager skips non-gated models'
 * mixer.gate. */
/* MoE LoRA by release (merge dates in the local-inference-lab/vllm mirror; the release is
 * the first after the merge, as for every rule here): the experts' buffers from #21229
 * (5f6cbf60, 2025-10-21; 0.11.0 still warns "For MoE models, vLLM currently does not support
 * fused MoE LoRA inference", Qwen3-VL issue #1675); --fully-sharded-loras on them from #28761
 * (d69062c6, 2025-11-19) and the 3-D class from #29222 (1073ba68, 2025-11-24), both in 0.12;
 * one w1 slice for non-gated experts from #30802 (aa7f37cc, 2026-01-19): two before. Expert
 * parallel is refused ("EP support for Fused MoE LoRA is not implemented yet.") until #40867
 * (ecd0b60a, 2026-05-09), and allowed after only with the allgather_reducescatter all2all
 * backend, which kvcalc does not model. */
#define LORA_MOE V(11, 1)
#define LORA_MOE_3D V(12, 0)
#define LORA_MOE_ONE_SLICE V(15, 0)

static const char *const lora_3d_moe_archs[] = {
    "GptOssForCausalLM", "Qwen3VLMoeForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration", "InternS1ProForConditionalGeneration"};

static int lora_3d_moe(const kv_arch *a)
{
    for (size_t i = 0; i < sizeof lora_3d_moe_archs / sizeof lora_3d_moe_archs[0]; i++)
        if (strcmp(a->architecture, lora_3d_moe_archs[i]) == 0)
            return 1;
    return 0;
}

static double lora_bytes(const kv_spec *s)
{
    const kv_arch *a = &s->arch;
    double tp = (double)s->tp, h = (double)a->hidden;
    double q = (double)(a->heads * s->head_dim) / tp, kv = (double)(s->kv_heads * s->head_dim) / tp;
    double full = s->vllm.fully_sharded_loras ? h / tp : h; /* the half TP leaves whole */
    double mlp_up = a->mlp_plain ? 1 : 2;
    double attention = (full + q) + 2 * (full + kv) + (q + full);
    int64_t moe = kv_moe_layer_count(a, s->layers);
    double dense_i = (double)(a->experts > 0 && a->dense_intermediate > 0 ? a->dense_intermediate
                                                                        : a->intermediate) / tp;
    double dense = mlp_up * (full + dense_i) + (dense_i + full);
    double experts = 0;
    if (moe > 0) {
        double e = (double)a->experts;
        double i = (double)(a->moe_intermediate > 0 ? a->moe_intermediate : a->intermediate) / tp;
        int one_slice = a->mlp_plain && s->vllm.version >= LORA_MOE_ONE_SLICE;
        double w13 = one_slice ? full + i : lora_3d_moe(a) ? full + 2 * i : 2 * (full + i);
        double router = a->mlp_plain ? 0 : h + e;
        experts = e * (w13 + i + full) + router;
    }
    double sum = (double)s->layers * attention + (double)(s->layers - moe) * dense +
                 (double)moe * experts;
    return sum * (double)s->vllm.max_loras * (double)s->vllm.max_lora_rank *
           kv_dtype_get(a->base_dtype)->bytes;
}

/* MLP width one GPU computes for a token: the dense MLP, or one expert's for MoE models. */
static int64_t mlp_width_per_gpu(const kv_spec *s)
{
    int64_t w = s->arch.experts > 0 && s->arch.moe_intermediate > 0 ? s->arch.moe_intermediate
                                                                    : s->arch.intermediate;
    return w / s->tp;
}

/* The activation estimate's inputs for this GPU. */
static kv_vllm_activation_inputs activation_inputs(const kv_spec *s, const kv_vllm_result *out)
{
    const kv_arch *a = &s->arch;
    kv_vllm_activation_inputs in = {0};
    in.batched_tokens = out->max_num_batched_tokens;
    in.seqs = sampler_rows(s, out);
    in.vocab = a->known ? a->vocab : 0;
    in.mlp_width = mlp_width_per_gpu(s);
    if (a->known && a->experts > 0 && a->experts_per_token > 0)
        in.moe_row = a->experts_per_token * a->hidden;
    double b = kv_dtype_get(a->base_dtype)->bytes;
    in.act_bytes = a->known && b >= 2 ? (int64_t)b : 2;
    in.version = s->vllm.version;
    in.v1 = out->v1;
    in.encoder_bytes = kv_vllm_encoder_profile(s, in.batched_tokens, out->max_num_seqs,
                                               &in.encoder_cache_bytes);
    return in;
}

/* Model Runner V2 by default, and its CUDA-graph estimate of 0. MRv2's
 * profile_cudagraph_memory() returns 0 ("[Model Runner V2] Add dummy profile_cudagraph_memory
 * API" #36520, vllm/v1/worker/gpu/model_runner.py) until "[Model Runner V2] Reserve CUDA
 * graph memory" (#53306, first in v0.29.0), and gpu_worker's budget subtracts whatever the
 * runner returns. Which models it runs by default (VllmConfig.use_v2_model_runner,
 * _is_default_v2_model_runner_model and _get_v2_model_runner_unsupported_features in
 * vllm/config/vllm.py @ 28be48fa of the local-inference-lab mirror, ae4f59f0e = #39337):
 *   0.22: DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES = {"Qwen3ForCausalLM"}, not MoE, not quantized
 *   0.23: + LlamaForCausalLM, MistralForCausalLM (#43458; the release notes and two copies of
 *         its vllm/config/vllm.py)
 *   0.24: quantized checkpoints of those too (the 0.25 notes: "building on quantized-model
 *         support from the previous release"), and two MoE architectures, Qwen2MoeForCausalLM
 *         and DeepseekV2ForCausalLM (#42667, merged after the 0.23 cut: "we should make sure
 *         that this doesn't go into the 0.23.0 release")
 *   0.25 to 0.28: every dense model (#44443, "Enable by default for all dense models")
 *   0.29: every model (#53183), with MRv2's own measured estimate (#53306): kvcalc's labelled
 *         0.5 GiB, as for V1
 * and never with what MRv2 does not support: state layers (has_inner_state), speculative
 * decoding other than EAGLE, EAGLE-3 and MTP, EAGLE-3 with pipeline parallelism. The MoE
 * architectures later releases added to the allowlist (GraniteMoe, Kimi-K3, DeepSeek-V4 by
 * #51768, ...) are left on V1's estimate: when each joined is not pinned.
 * VLLM_USE_V2_MODEL_RUNNER, which overrides all of it, is not a kvcalc input. */
#define MRV2_QWEN3 2200
#define MRV2_LLAMA 2300
#define MRV2_QUANTIZED 2400
#define MRV2_DENSE 2500
#define MRV2_ESTIMATE 2900

static int runner_v2(const kv_spec *s)
{
    const kv_opt_int *env = &s->vllm.use_v2_model_runner;
    if (env->set) /* VLLM_USE_V2_MODEL_RUNNER wins over the oracle */
        return env->value != 0;
    int v = s->vllm.version;
    if (v < MRV2_QWEN3)
        return 0;
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, counts);
    int m = spec_method(&s->vllm);
    if (counts[KV_LAYER_STATE] > 0 ||
        (m != KV_VLLM_SPEC_NONE && m != KV_VLLM_SPEC_EAGLE && m != KV_VLLM_SPEC_EAGLE3 &&
         m != KV_VLLM_SPEC_MTP) ||
        (m == KV_VLLM_SPEC_EAGLE3 && s->pp > 1))
        return 0;
    if (v >= MRV2_ESTIMATE) /* every model (#53183) */
        return 1;
    const char *a = s->arch.architecture;
    int moe_listed = v >= MRV2_QUANTIZED && (strcmp(a, "Qwen2MoeForCausalLM") == 0 ||
                                             strcmp(a, "DeepseekV2ForCausalLM") == 0);
    if (s->arch.experts > 0 && !moe_listed)
        return 0;
    if (v >= MRV2_DENSE || moe_listed)
        return 1;
    int quantized = s->quantization != KV_QUANTIZATION_NONE || s->arch.quant_scope != KV_QUANT_ALL ||
                    kv_dtype_get(s->weight_dtype)->bytes < 2;
    if (quantized && v < MRV2_QUANTIZED)
        return 0;
    return strcmp(a, "Qwen3ForCausalLM") == 0 ||
           (v >= MRV2_LLAMA && (strcmp(a, "LlamaForCausalLM") == 0 ||
                                strcmp(a, "MistralForCausalLM") == 0));
}

double kv_vllm_cuda_graph_estimate_gib(int version)
{
    return version >= VLLM_GRAPHS_BUDGETED ? 0.5 : 0.0;
}

/* Up to 3 digits at *t (0..999); advances *t; -1 when there are none or too many. */
static long version_part(const char **t)
{
    long v = 0;
    int digits = 0;
    for (; **t >= '0' && **t <= '9' && digits < 4; (*t)++, digits++)
        v = v * 10 + (**t - '0');
    return digits == 0 || v >= 1000 ? -1 : v;
}

/* "0.11" -> 1100, "v0.10.1.1" -> 1001, "0.11.0rc2" -> 1100: MINOR x 100 + PATCH (at most
 * 99). Only 0.x releases exist in kvcalc's rules. */
int kv_vllm_version_parse(const char *t, int *version)
{
    if (*t == 'v')
        t++;
    if (t[0] != '0' || t[1] != '.')
        return -1;
    t += 2;
    long minor = version_part(&t), patch = 0;
    if (minor < 0)
        return -1;
    if (*t == '.' && t[1] >= '0' && t[1] <= '9') {
        t++;
        if ((patch = version_part(&t)) < 0)
            return -1;
    }
    if (*t != '\0' && *t != '.' && *t != 'r' && *t != '-' && *t != '+')
        return -1;
    if (patch > 99) /* no vLLM release has one; refused rather than capped */
        return -1;
    *version = (int)(minor * 100 + patch);
    return 0;
}

void kv_vllm_version_format(int version, char *buf, size_t cap)
{
    /* by hand: every point of a sweep names its release, and kv_snprintf cost a vLLM point
     * more than its fit search (issue 22) */
    if (kv_release_spell(version, 0, buf, cap))
        return;
    if (version % 100)
        kv_snprintf(buf, cap, "0.%d.%d", version / 100, version % 100);
    else
        kv_snprintf(buf, cap, "0.%d", version / 100);
}


#define TWO_63 9223372036854775808.0 /* 2^63: the first double an int64 cannot hold */

/* A non-negative double count as an int64 in *out; -1 when it is 2^63 or more (no cap). NaN
 * and negative values are 0: no room is no blocks. */
static int to_i64(double x, int64_t *out)
{
    if (!(x > 0)) {
        *out = 0;
        return 0;
    }
    if (x >= TWO_63)
        return -1;
    *out = (int64_t)x;
    return 0;
}

/* a x b and a + b for counts in [0, 2^63]: -1 when the result would pass 2^63 - 1. */
static int mul_count(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > (uint64_t)INT64_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

static int add_count(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a > (uint64_t)INT64_MAX || b > (uint64_t)INT64_MAX - a)
        return -1;
    *out = a + b;
    return 0;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The inputs in force: the spec's, with vLLM's defaults for what was not given. */
typedef struct {
    int64_t m;           /* max_model_len: the spec's context */
    int64_t t;           /* max_num_batched_tokens */
    int64_t seqs;        /* max_num_seqs */
    double total_gib;
    kv_total_source total_source;
    double util;
    int v1;
    int version;
    int prefix_caching;  /* in force (prefix_caching_in_force) */
    int mamba_align;     /* the mode in force: 0 none, 1 align, 2 all */
    int64_t spec_tokens; /* draft tokens: one more state page each */
} settings;

/* One bucket of alike layers (all full, all sliding(W), ...) on this GPU. */
typedef struct {
    kv_layer_kind kind;
    int64_t layers;
    int64_t limit; /* window or chunk, tokens */
    int64_t groups;
    int64_t bs;    /* its own tokens per block (the pages unified: see block_size); 0: the
                      pool's */
    int64_t page_sum; /* DeepSeek-V4: its group's pages, in bytes (UniformTypeKVCacheSpecs
                         .page_size_bytes), which weigh its blocks in the concurrency line;
                         0: every group's page is the same */
} bucket;

/* Buckets one spec can have: one a layer kind, or DeepSeek-V4's groups (csa_buckets). */
#define VLLM_MAX_BUCKETS 8

static const char *const bucket_names[KV_LAYER_KINDS] = {"full", "sliding", "chunked", "state"};

/* min(a + b, m) for a, b, m >= 0 without overflow: the sum is taken in uint64. */
static int64_t min_sum(int64_t a, int64_t b, int64_t m)
{
    uint64_t sum = (uint64_t)a + (uint64_t)b; /* < 2^64: both are < 2^63 */
    return sum < (uint64_t)m ? (int64_t)sum : m;
}

/* Blocks one request of max_model_len m (0 <= m <= 2^63 - 1) needs in one group of this
 * bucket: at most 2^63 (a sliding window's +1 at block size 1), so unsigned. */
static uint64_t bucket_blocks(const bucket *b, const settings *v, int64_t bs, int64_t m)
{
    int64_t t = v->t;
    if (b->bs > 0)
        bs = b->bs;
    switch (b->kind) {
    case KV_LAYER_FULL:
        return (uint64_t)ceil_div(m, bs);
    case KV_LAYER_SLIDING: /* the +1: a window need not start on a block boundary */
        return (uint64_t)ceil_div(min_sum(b->limit - 1, t, m), bs) + 1;
    case KV_LAYER_CHUNKED:
        return (uint64_t)ceil_div(min_sum(b->limit, t, m), bs);
    case KV_LAYER_STATE: /* MambaSpec.max_memory_usage_bytes: (1 or 2) + num_speculative_blocks
                            pages (vllm/v1/kv_cache_interface.py @ 001cabc1); in mode "all"
                            cdiv(max_model_len, block_size) + num_speculative_blocks (@
                            28be48fa9) */
        if (v->mamba_align == 2)
            return (uint64_t)ceil_div(m, bs) + (uint64_t)v->spec_tokens;
        return (uint64_t)((v->mamba_align ? 2 : 1) + v->spec_tokens);
    default:
        return 0;
    }
}

/* Bytes every layer needs for one request of length m (vLLM's start-up check); a draft of
 * its own page sits in the one full-attention group, a block per block. */
static double needed_bytes(const bucket *bk, size_t n, const settings *v, int64_t bs,
                           double page, double draft_page, int64_t m)
{
    double total = draft_page > 0 ? (double)ceil_div(m, bs) * draft_page : 0;
    for (size_t i = 0; i < n; i++)
        total += (double)bk[i].layers * (double)bucket_blocks(&bk[i], v, bs, m) * page;
    return total;
}

/* Layers per group: the smallest bucket, or the largest when it is under 1.5 x the
 * smallest (from 0.11); every bucket is cut into ceil(n / group_size) groups. */
static void make_groups(bucket *bk, size_t n, int version, kv_vllm_result *out)
{
    int64_t lo = bk[0].layers, hi = bk[0].layers;
    for (size_t i = 1; i < n; i++) {
        lo = min64(lo, bk[i].layers);
        hi = bk[i].layers > hi ? bk[i].layers : hi;
    }
    int64_t size = (version >= V(11, 0) && (double)hi < 1.5 * (double)lo) ? hi : lo;
    out->group_size = size;
    out->num_groups = 0;
    out->padding_layers = 0;
    out->padding_percent = 0;
    out->padding_kind = NULL;
    for (size_t i = 0; i < n; i++) {
        bk[i].groups = ceil_div(bk[i].layers, size);
        out->num_groups += bk[i].groups;
        int64_t pad = bk[i].groups * size - bk[i].layers;
        if (pad > 0 && out->padding_kind == NULL) {
            out->padding_layers = pad;
            out->padding_percent = 100.0 * (double)pad / (double)bk[i].layers;
            out->padding_kind = bucket_names[bk[i].kind];
        }
    }
}

/* The longest max_model_len up to hi whose request fits the available memory (unsigned:
 * hi - lo + 1 reaches 2^63 when hi = 2^63 - 1). */
static int64_t longest_fit(const bucket *bk, size_t nb, const settings *v, int64_t bs,
                           const kv_vllm_result *out, uint64_t hi)
{
    uint64_t lo = 0;
    /* full-attention layers need ceil(m / bs) pages each: past (available / (their pages))
     * blocks nothing fits, so the search need not start at 2^63 (a sweep point pays for
     * every step) */
    double full_page = 0;
    int64_t full_bs = bs;
    for (size_t i = 0; i < nb; i++)
        if (bk[i].kind == KV_LAYER_FULL) {
            full_page += (double)bk[i].layers * out->page_bytes +
                         (out->draft_shares_group ? 0.0 : out->draft_page_bytes);
            full_bs = bk[i].bs > 0 ? bk[i].bs : bs;
        }
    double room = out->v1 ? out->check_bytes : out->available_bytes;
    double draft_page = out->draft_shares_group ? 0.0 : out->draft_page_bytes;
#define FITS(m) (needed_bytes(bk, nb, v, bs, out->page_bytes, draft_page, (int64_t)(m)) <= room)
    if (full_page > 0 && room >= 0) {
        double pages = kvm_floor(room / full_page);
        double most = (pages + 1) * (double)full_bs;
        if (most < (double)hi)
            hi = (uint64_t)most;
        /* with full layers alone the answer is their whole pages x the block size; the
         * request bytes never shrink as m grows, so a guess that fits while the next token
         * does not is the answer whatever the other groups add: two evaluations instead of
         * a search (issue 22; otherwise the search below finds it) */
        double guess = pages * (double)full_bs;
        if (guess < (double)hi && FITS(guess) && !FITS(guess + 1))
            return (int64_t)guess;
    }
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (FITS(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
#undef FITS
    return (int64_t)lo;
}

static double gib(double x)
{
    return x * KV_GIB;
}

/* The GPU total vLLM sees: as given; else the GPU preset's engine-reported total; else its
 * driver total minus 0.5 GiB of CUDA context (an estimate); else the GPU memory given. */
static double resolve_total(const kv_spec *s, kv_total_source *source)
{
    if (s->vllm.total_gib.set) {
        *source = KV_TOTAL_GIVEN;
        return s->vllm.total_gib.value;
    }
    if (s->gpu_name && s->gpu_engine_gib > 0) {
        *source = KV_TOTAL_ENGINE;
        return s->gpu_engine_gib;
    }
    if (s->gpu_name) {
        *source = KV_TOTAL_DRIVER_EST;
        return s->gpu_mem_gib - 0.5;
    }
    *source = KV_TOTAL_GPU_MEMORY;
    return s->gpu_mem_gib;
}

/* Whether a name holds "a100", ignoring case. */
static int names_a100(const char *names)
{
    for (const char *p = names; p && *p; p++)
        if ((p[0] == 'A' || p[0] == 'a') && p[1] == '1' && p[2] == '0' && p[3] == '0')
            return 1;
    return 0;
}

/* V1's defaults from 0.8 follow the card, by vLLM's usage-context rule (EngineArgs.
 * get_batch_defaults, vllm/engine/arg_utils.py): cards of 70 GiB or more whose device name
 * does not contain "a100" get the large batch. The device names are the preset's as
 * drivers print them (torch's name is one of them). */
static int big_card(const kv_spec *s, double total_gib)
{
    const char *names = s->gpu_device_names ? s->gpu_device_names : s->gpu_name;
    return total_gib >= 70 && !names_a100(names);
}

/* vLLM's default batch budget. V1: 8,192 tokens on big cards, else 2,048. V0: one whole
 * max_model_len (at least 2,048; 5,120 for multimodal models) per step, unless a context over
 * 32K turned chunked prefill on (then 2,048) - which V0 never did for MLA, multimodal or
 * sliding-window models (EngineArgs._set_default_args_v0). */
#define V0_CHUNKED_ABOVE 32768
static int64_t v0_batched_tokens(const kv_spec *s)
{
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, counts);
    int chunkable = !s->layout.mla && !s->arch.vision_tower && counts[KV_LAYER_SLIDING] == 0;
    if (chunkable && s->context > V0_CHUNKED_ABOVE)
        return 2048;
    int64_t least = s->arch.vision_tower ? 5120 : 2048;
    return s->context > least ? s->context : least;
}

static int64_t resolve_batched_tokens(const kv_spec *s, double total_gib)
{
    if (s->vllm.max_num_batched_tokens.set)
        return s->vllm.max_num_batched_tokens.value;
    if (!uses_v1(&s->vllm))
        return v0_batched_tokens(s);
    return big_card(s, total_gib) ? 8192 : 2048;
}

/* vLLM's default max_num_seqs: 1,024 on big cards with V1 from 0.8, else 256. */
static int64_t resolve_seqs(const kv_spec *s, double total_gib)
{
    if (s->vllm.max_num_seqs.set)
        return s->vllm.max_num_seqs.value;
    int v1_rule = uses_v1(&s->vllm) && s->vllm.version >= V1_DEFAULT;
    return v1_rule && big_card(s, total_gib) ? 1024 : 256;
}

/* ---- prefix caching and the state layers' cache mode --------------------------------------
 * vllm/engine/arg_utils.py (_set_default_chunked_prefill_and_prefix_caching_args),
 * vllm/config/model.py (is_prefix_caching_supported) and vllm/model_executor/models/config.py
 * (MambaModelConfig.verify_and_update_config), all @ 28be48fa9:
 *   - not given, prefix caching is on, except for "hybrid" and "attention_free" models (any
 *     state layer): off (#26623, 2025-11-28; get_chunked_prefill_prefix_caching_defaults
 *     before it did the same);
 *   - given on a model with state layers: the Mamba-1/2 family (SupportsMambaPrefixCaching:
 *     Bamba, FalconH1, GraniteMoeHybrid, Jamba, Mamba, Mamba2, NemotronH, Zamba2) keeps it in
 *     mode "all" (a state a block, which kvcalc does not model: refused); the others (gated
 *     delta nets, KDA, short convolutions) were "detected without support for prefix caching:
 *     disabling" until #30877 (2026-01-24) gave them mode "align";
 *   - "align" beside speculative decoding asserted ("Mamba cache mode 'align' is currently
 *     not compatible with speculative decoding.") until #33705 (2026-02-14).
 *   - #50991 ("[Mamba] enable prefix cache by default", merged 2026-08-04; after the mirror)
 *     turned it on by default for hybrid models (state layers beside attention) and made
 *     "align" the default mode: real 0.28.0 logs of Qwen3.5 models run LLM() with no flag
 *     and print "Mamba cache mode is set to 'align'"; a 0.27.1 one had it off.
 * The first releases with #30877 and #33705 are not pinned (no tags in the mirror; 0.14.1
 * was current on 2026-01-27, 0.17.1 on 2026-03-09): kvcalc takes 0.15 and 0.16. */
#define MAMBA_ALIGN V(15, 0)
#define MAMBA_ALIGN_SPEC V(16, 0)
#define HYBRID_PREFIX_DEFAULT V(28, 0)

static int has_state_layers(const kv_spec *s)
{
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, counts);
    return counts[KV_LAYER_STATE] > 0;
}

/* state layers beside attention layers (vLLM's is_hybrid; a model of state layers only is
 * "attention_free") */
static int is_hybrid(const kv_spec *s)
{
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, counts);
    return counts[KV_LAYER_STATE] > 0 &&
           counts[KV_LAYER_FULL] + counts[KV_LAYER_SLIDING] + counts[KV_LAYER_CHUNKED] > 0;
}

/* Mamba-1 and Mamba-2 mixers: the models with SupportsMambaPrefixCaching */
static int mamba_all_family(const kv_spec *s)
{
    return s->arch.mixer.kind == KV_MIXER_MAMBA1 || s->arch.mixer.kind == KV_MIXER_MAMBA2;
}

static int prefix_caching_in_force(const kv_spec *s)
{
    const kv_vllm_spec *v = &s->vllm;
    /* V0: off unless asked for (only _set_default_args_v1 turns it on), and off for a
     * multimodal model ("--enable-prefix-caching is not supported for multimodal models in V0
     * and has been disabled"; vllm/engine/arg_utils.py _set_default_args_v0, 0.10.x) */
    if (!uses_v1(v))
        return v->prefix_caching == 1 && !s->arch.vision_tower;
    if (!has_state_layers(s))
        return v->prefix_caching != 0;
    if (v->prefix_caching == 0 ||
        (v->prefix_caching < 0 && !(is_hybrid(s) && v->version >= HYBRID_PREFIX_DEFAULT)))
        return 0;
    return mamba_all_family(s) || v->version >= MAMBA_ALIGN;
}

/* The mode vLLM picks with prefix caching when none is given: "align", but "all" for the
 * Mamba-1/2 family from #30877 until #50991 (and the mode before #30877 that became it) */
static int default_align(const kv_spec *s)
{
    return s->vllm.version >= HYBRID_PREFIX_DEFAULT ||
           (s->vllm.version >= MAMBA_ALIGN && !mamba_all_family(s));
}

/* The mode with prefix caching when none is given: 1 align, 2 all (0.15 to 0.27, the
 * Mamba-1/2 family), 0 before 0.15 (mode "all"'s forerunner: refused) */
#define MAMBA_ALL_SPEC V(20, 0)    /* #40454 (2026-04-21): the family with a draft defaults */
#define MAMBA_ALL_SPEC_END V(21, 0) /* to align, until #41233 (2026-05-18) fixed all's crash */
static int default_mode(const kv_spec *s)
{
    if (!default_align(s) && s->vllm.version >= MAMBA_ALL_SPEC &&
        s->vllm.version < MAMBA_ALL_SPEC_END && spec_method(&s->vllm) != KV_VLLM_SPEC_NONE)
        return 1;
    return default_align(s) ? 1 : s->vllm.version >= MAMBA_ALIGN ? 2 : 0;
}

/* ---- one result, step by step ------------------------------------------------------------ */

static void resolve_inputs(const kv_spec *s, settings *st, kv_vllm_result *out)
{
    const kv_vllm_spec *v = &s->vllm;
    st->m = s->context;
    st->total_gib = resolve_total(s, &st->total_source);
    st->t = resolve_batched_tokens(s, st->total_gib);
    st->seqs = resolve_seqs(s, st->total_gib);
    /* the defaults a big card gets (8,192 tokens, 1,024 sequences) raise the profiled peak:
     * a GPU just over 70 GiB can hold fewer requests than one just under it */
    out->defaults_by_gpu_size =
        uses_v1(v) && big_card(s, st->total_gib) &&
        (!v->max_num_batched_tokens.set || (!v->max_num_seqs.set && v->version >= V1_DEFAULT));
    st->util = v->util.set ? v->util.value : kv_vllm_util_default(v->version);
    st->v1 = uses_v1(v);
    st->version = v->version;
    st->prefix_caching = prefix_caching_in_force(s);
    out->enable_prefix_caching = st->prefix_caching;
    /* MambaModelConfig.verify_and_update_config: with prefix caching, a mixer without
     * SupportsMambaPrefixCaching goes to "align" unless a mode was given; without it the mode
     * is "none" whatever was given ("Mamba cache mode is set to 'none' when prefix caching is
     * disabled"). Real logs: 0.23.0 (Qwen3.6-27B FP8, TP 4, MTP) and 0.28.0 (Qwen3.8-27B) */
    st->mamba_align = !st->prefix_caching         ? 0
                      : v->mamba_align.set         ? (int)v->mamba_align.value
                                                  : default_mode(s);
    out->mamba_align = st->mamba_align == 1;
    out->mamba_all = st->mamba_align == 2;
    out->auto_fit_from = v->auto_fit_from;
    st->spec_tokens = v->num_speculative_tokens;
    out->total_gib = st->total_gib;
    out->total_source = st->total_source;
    out->max_num_batched_tokens = st->t;
    out->max_num_seqs = st->seqs;
    out->elem_bytes = kv_dtype_get(s->dtype)->bytes;
    out->v1 = st->v1;
    printed_lines(v, out);
}

/* Buckets of alike layers; without the hybrid manager windows count as full. */
static size_t make_buckets(const kv_spec *s, const settings *st, const kv_vllm_result *out,
                           bucket bk[VLLM_MAX_BUCKETS], int64_t counts[KV_LAYER_KINDS])
{
    /* a layer that reads an earlier layer's cache (kv_sharing_target_layer_name) is left
     * out of the groups: it allocates nothing */
    kv_cache_layer_counts(s, counts);
    /* each MTP layer is one more attention layer with a cache of its own (the draft model's;
     * DeepSeek's MLA, Qwen3.5's full attention), and so is a draft layer of the same page */
    if (out->draft_shares_group)
        counts[KV_LAYER_FULL] += out->draft_layers;
    if (!s->vllm.hybrid_manager || !st->v1 || st->version < HYBRID_ALLOCATOR) {
        counts[KV_LAYER_FULL] += counts[KV_LAYER_SLIDING] + counts[KV_LAYER_CHUNKED];
        counts[KV_LAYER_SLIDING] = counts[KV_LAYER_CHUNKED] = 0;
    }
    size_t nb = 0;
    for (int k = 0; k < KV_LAYER_KINDS; k++) {
        if (counts[k] == 0)
            continue;
        bk[nb].kind = (kv_layer_kind)k;
        bk[nb].layers = counts[k];
        bk[nb].bs = 0;
        bk[nb].page_sum = 0;
        bk[nb].limit = k == KV_LAYER_SLIDING ? s->layout.window
                     : k == KV_LAYER_CHUNKED ? s->layout.chunk
                                             : 0;
        nb++;
    }
    return nb;
}

/* The block size and the page: 16 tokens (64 for MLA) unless given; an attention block
 * grows until its page holds a Mamba state. */
/* Full layers of their own shape (Gemma-4: 2 KV heads of 512 beside sliding layers of 8 of
 * 256): vLLM gives every group one page size (unify_kv_cache_spec_page_size,
 * vllm/v1/core/kv_cache_utils.py @ 002f10e0cfa1373a19a0d2756598a34b700d20e5): a smaller page
 * that divides the largest takes that many times the tokens per block; one that does not is
 * padded to it. Returns the largest page's bytes per token; sets the buckets' block sizes. */
static double unify_pages(const kv_spec *s, bucket *bk, size_t nb, int64_t bs,
                          double attn_tok, kv_vllm_result *out)
{
    int64_t fh, fd;
    kv_layer_shape(s, KV_LAYER_FULL, &fh, &fd);
    double full_tok = 2.0 * (double)fh * (double)fd * out->elem_bytes;
    out->page_ratio = 1;
    int full = 0, other = 0;
    for (size_t i = 0; i < nb; i++) {
        full |= bk[i].kind == KV_LAYER_FULL;
        other |= bk[i].kind == KV_LAYER_SLIDING || bk[i].kind == KV_LAYER_CHUNKED;
    }
    if (s->layout.mla || !full || full_tok == attn_tok)
        return attn_tok;
    if (!other)
        return full_tok;
    double big = kvm_fmax(full_tok, attn_tok), small = kvm_fmin(full_tok, attn_tok);
    double ratio = big / small;
    int divides = ratio == kvm_floor(ratio);
    for (size_t i = 0; i < nb; i++) {
        int is_full = bk[i].kind == KV_LAYER_FULL;
        double tok = is_full ? full_tok : attn_tok;
        if (tok < big && divides && bk[i].kind != KV_LAYER_STATE)
            bk[i].bs = bs * (int64_t)ratio;
    }
    out->page_ratio = divides ? ratio : 1;
    out->page_padded = !divides;
    return big;
}

static kv_status block_size(const kv_spec *s, const kv_result *r, const int64_t *counts,
                            bucket *bk, size_t nb, int st_mode, kv_vllm_result *out)
{
    /* bytes of one token in one attention layer on this GPU (MLA: one latent, no x2) */
    double attn_tok = s->layout.mla
                          ? mla_entry_bytes(s, out->elem_bytes)
                          : 2.0 * (double)r->kv_heads_per_gpu * (double)s->head_dim * out->elem_bytes;
    int64_t bs = s->vllm.block_size.set ? s->vllm.block_size.value
               : s->layout.mla          ? VLLM_MLA_BLOCK
                                        : VLLM_DEFAULT_BLOCK;
    attn_tok = unify_pages(s, bk, nb, bs, attn_tok, out);
    out->state_page_bytes = 0;
    out->block_raised = 0;
    out->mamba_padding_percent = 0;
    if (counts[KV_LAYER_STATE] > 0 && s->layout.state_elems > 0 && attn_tok > 0) {
        /* MambaSpec.page_size_bytes: the conv state in the model's dtype (mamba_cache_dtype
         * "auto"; not the KV cache's: Qwen3-Next at TP 2 with fp8 KV chose 1,072 tokens, not
         * the 544 a halved state would give), the SSM state in mamba_ssm_cache_dtype (the
         * config's float32: Nemotron-Cascade-2 with fp8 KV chose 4,176 tokens, Qwen3.5-9B
         * 1,056, Qwen3.8-27B 784 - tests/test_vllm.c) - vllm/model_executor/layers/mamba/
         * mamba_utils.py @ 2afe1e8573cf51b73569ae1d35f59078a2032a91 */
        double conv, ssm;
        kv_state_per_rank(s, s->tp, &conv, &ssm);
        /* a gated delta net's conv state holds kernel - 1 + num_spec rows
         * (MambaStateShapeCalculator.gated_delta_net_state_shape; a real 0.28.0 log: 7 draft
         * tokens raised Qwen3.8-27B's block from 784 to 832 tokens) */
        const kv_mixer *mx = &s->arch.mixer;
        if ((mx->kind == KV_MIXER_GDN || mx->kind == KV_MIXER_KDA) && mx->conv_kernel > 1 &&
            s->vllm.num_speculative_tokens > 0) /* KDA too: kda_state_shape @ 02d71083 */
            conv = conv / (double)(mx->conv_kernel - 1) *
                   (double)(mx->conv_kernel - 1 + s->vllm.num_speculative_tokens);
        double conv_b = kv_dtype_get(s->arch.known ? s->arch.base_dtype : s->dtype)->bytes;
        double ssm_b = s->vllm.mamba_ssm_cache_dtype.set ? (double)s->vllm.mamba_ssm_cache_dtype.value
                       : s->layout.state_ssm_f32        ? 4.0
                                                        : conv_b;
        if (s->layout.state_conv_elems <= 0) /* a state not split into conv and SSM */
            ssm_b = conv_b;
        double state_page = conv * conv_b + ssm * ssm_b;
        out->state_page_bytes = state_page;
        /* HybridAttentionMambaModelConfig.verify_and_update_config
         * (vllm/model_executor/models/config.py @ 1936cf3841edb9781b06c50fc4daf4bac9d3b23e):
         * the block a multiple of the kernel's alignment, 16, or 64 for MLA ("Other MLA
         * backends: kernel_block_size 64 alignment"; 128 only when CUTLASS_MLA is chosen,
         * and 32 on Blackwell for heads of 256 - neither modelled) */
        double align = s->layout.mla ? (double)VLLM_MLA_BLOCK : (double)VLLM_MAMBA_ALIGN;
        double attn_bs = align * kvm_ceil(state_page / (align * attn_tok));
        if (st_mode == 2) {
            /* mode "all" (Platform._align_hybrid_block_size, vllm/platforms/interface.py @
             * 28be48fa9): "align to mamba chunk size for kernel perf" - chunk = lcm(the
             * model's mamba chunk size, the kernel's alignment, at least the block size),
             * the block that many chunks as hold one state's tokens */
            int64_t kernel = s->vllm.block_size.set && s->vllm.block_size.value > (int64_t)align
                                 ? s->vllm.block_size.value
                                 : (int64_t)align;
            int64_t base = s->arch.mixer.chunk_size > 0 ? s->arch.mixer.chunk_size : 2048;
            int64_t g = base, k = kernel;
            while (k) {
                int64_t t = g % k;
                g = k;
                k = t;
            }
            double chunk = (double)base / (double)g * (double)kernel;
            attn_bs = chunk * kvm_ceil(kvm_ceil(state_page / attn_tok) / chunk);
        }
        if (attn_bs >= TWO_63)
            return KV_ERR_RANGE;
        /* vLLM logs the block it settles on whenever it had to look (a real 0.17 log of
         * LFM2.5-1.2B: "Setting attention block size to 16 tokens", its default) */
        out->block_raised = 1;
        if ((int64_t)attn_bs > bs)
            bs = (int64_t)attn_bs;
        if (state_page > 0)
            out->mamba_padding_percent = 100.0 * ((double)bs * attn_tok - state_page) / state_page;
        if (counts[KV_LAYER_FULL] + counts[KV_LAYER_SLIDING] + counts[KV_LAYER_CHUNKED] == 0) {
            /* no attention layer to share a page with (a pure Mamba model): the page is the
             * state itself and a block is max_model_len (MambaModelConfig sets
             * mamba_block_size = max_model_len, vllm/model_executor/models/config.py @
             * 1936cf38) */
            out->block_raised = 0;
            out->mamba_padding_percent = 0;
            out->block_size = s->context;
            out->page_bytes = state_page;
            return KV_OK;
        }
    }
    out->block_size = bs;
    out->page_bytes = (double)bs * attn_tok;
    if (!out->draft_shares_group)
        out->draft_page_bytes = (double)bs * out->draft_kv_token_bytes;
    return KV_OK;
}

/* The budget: utilization x total minus weights, activation peak, non-torch memory and
 * (from 0.21) CUDA graphs; or the KV memory given. */
static void budget(const kv_spec *s, const kv_result *r, const settings *st, kv_vllm_result *out)
{
    const kv_vllm_spec *v = &s->vllm;
    out->total_bytes = gib(st->total_gib);
    out->util = st->util;
    out->requested_bytes = out->util * out->total_bytes;
    out->weights_bytes = v->weights_gib.set ? gib(v->weights_gib.value)
                                            : r->weights_bytes + mxfp4_padding(s) + out->draft_weights_bytes;
    /* LoRA buffers are made in load_model(): inside "Model loading took" from V1; V0 sized
     * its blocks without them (vllm#14450) */
    out->lora_bytes = v->enable_lora ? lora_bytes(s) : 0;
    if (out->lora_bytes > 0 && out->v1 && !v->weights_gib.set)
        out->weights_bytes += out->lora_bytes;
    out->cpu_offload_bytes = 0;
    if (v->cpu_offload_gib > 0) { /* a measured weights figure is after the offload already */
        double limit = gib(v->cpu_offload_gib);
        double can = v->weights_gib.set ? limit : kv_layers_weight_bytes(s, out->weights_bytes);
        out->cpu_offload_bytes = limit < can ? limit : can;
        if (!v->weights_gib.set)
            out->weights_bytes -= out->cpu_offload_bytes;
    }
    out->host_pinned_bytes = out->cpu_offload_bytes * (double)(s->tp * s->pp);
    kv_vllm_activation_inputs act = activation_inputs(s, out);
    out->encoder_bytes = act.encoder_bytes;
    out->activation_bytes = gib(v->activation_gib.set ? v->activation_gib.value
                                                      : kv_vllm_activation_estimate_gib(&act));
    /* (the estimate went through GiB and back: equal within rounding counts as binding) */
    out->encoder_binds = !v->activation_gib.set && act.encoder_bytes > 0 &&
                         act.encoder_bytes >= out->activation_bytes * (1.0 - 1e-12);
    out->non_torch_bytes = gib(v->non_torch_gib.set
                                   ? v->non_torch_gib.value
                                   : kv_vllm_non_torch_estimate_gib(s->tp * s->pp, st->total_gib));
    out->runner_v2 = out->v1 && runner_v2(s);
    out->cuda_graph_bytes = gib(v->cuda_graph_gib.set ? v->cuda_graph_gib.value
                                : v->enforce_eager || (out->runner_v2 && st->version < MRV2_ESTIMATE)
                                    ? 0.0
                                    : kv_vllm_cuda_graph_estimate_gib(st->version));
    out->activation_graph_bytes = out->activation_bytes + out->cuda_graph_bytes;
    out->consumed_bytes = out->weights_bytes + out->non_torch_bytes;
    out->available_bytes = v->kv_cache_memory_gib.set
                               ? gib(v->kv_cache_memory_gib.value)
                               : out->requested_bytes - (out->weights_bytes + out->activation_bytes +
                                                         out->non_torch_bytes) -
                                     out->cuda_graph_bytes;
}

/* The pool's blocks, a request's blocks, the concurrency and the "GPU KV cache size". */
static kv_status blocks(const kv_spec *s, const settings *st, const bucket *bk, size_t nb,
                        kv_vllm_result *out)
{
    const kv_vllm_spec *v = &s->vllm;
    int64_t bs = out->block_size;
    double block = block_bytes(out);
    if (to_i64(kvm_floor(out->available_bytes / block), &out->num_gpu_blocks) < 0)
        return KV_ERR_RANGE;
    if (v->num_gpu_blocks_override.set)
        out->num_gpu_blocks = v->num_gpu_blocks_override.value;
    /* whole blocks, counted exactly: beyond 2^63 - 1 the answer is refused, not capped */
    uint64_t n = 0;
    for (size_t i = 0; i < nb; i++) {
        uint64_t term;
        if (mul_count((uint64_t)bk[i].groups, bucket_blocks(&bk[i], st, bs, st->m), &term) < 0 ||
            add_count(n, term, &n) < 0)
            return KV_ERR_RANGE;
    }
    out->blocks_per_request = (int64_t)n;
    out->max_concurrency = (double)out->num_gpu_blocks / (double)n;
    if (nb > 0 && bk[0].page_sum > 0) {
        /* DeepSeek-V4 (get_max_concurrency_for_kv_cache_config, vllm/v1/core/kv_cache_utils.py
         * @ 28be48fa): a request's pages of every group, each weighed by its group's page
         * bytes against the first group's - not the blocks the pool really gives it (a block
         * of any group costs the same there) */
        double weighed = 0;
        for (size_t i = 0; i < nb; i++)
            weighed += (double)bucket_blocks(&bk[i], st, bs, st->m) * (double)bk[i].page_sum;
        out->max_concurrency = (double)out->num_gpu_blocks / kvm_ceil(weighed / (double)bk[0].page_sum);
    }
    /* the same groups, as a request of n tokens holds them: a window's or a chunk's blocks
     * are those of the step's tokens and the window or chunk before them (the rest go back
     * to the pool: remove_skipped_blocks), at most their count at max_model_len; a state's
     * are held from the first token */
    out->n_sched_groups = 0;
    for (size_t i = 0; i < nb && i < KV_SCHED_MAX_GROUPS; i++) {
        kv_sched_group *g = &out->sched_groups[out->n_sched_groups++];
        g->groups = bk[i].groups;
        g->block_size = bk[i].bs > 0 ? bk[i].bs : bs;
        /* mode "all": a state group takes a block for every block of tokens, as a full
         * layer does (MambaManager.get_num_blocks_to_allocate, the base class's rule) */
        int all = bk[i].kind == KV_LAYER_STATE && st->mamba_align == 2;
        g->fixed = bk[i].kind == KV_LAYER_STATE && !all;
        g->cap_blocks = bk[i].kind == KV_LAYER_FULL || all
                            ? 0
                            : (int64_t)bucket_blocks(&bk[i], st, bs, st->m);
        g->window = bk[i].kind == KV_LAYER_SLIDING ? bk[i].limit : 0;
        g->chunk = bk[i].kind == KV_LAYER_CHUNKED ? bk[i].limit : 0;
    }
    /* a running request's num_speculative_tokens lookahead slots add nothing at
     * max_model_len: allocate_slots asks min(tokens + num_lookahead_tokens, max_model_len)
     * (vllm/v1/core/kv_cache_manager.py @ 9aaf83ef5), so the startup line's count holds */
    out->num_cpu_blocks = 0;
    if (counts_blocks_per_token(v)) { /* V0 and V1 before 0.9.1: blocks x block size / M */
        out->max_concurrency = (double)out->num_gpu_blocks * (double)bs / (double)st->m;
        if (!out->v1 && to_i64(kvm_floor(v->swap_space_gib * KV_GIB / block),
                               &out->num_cpu_blocks) < 0)
            return KV_ERR_RANGE;
    }
    /* 2026: tokens = concurrency x max_model_len - after 0.20.0, whose line is still the
     * pool divided among the groups (a real 0.20.0 log, tests/logs/vllm-h13-*: 147 blocks //
     * 4 groups x 2,096 = 75,456 tokens at 3.87x of 65,536; 0.20.1rc1.dev16 too, club-3090#46:
     * 67,728 = 83 x 816; 0.20.1rc1.dev91, vllm-h01-*, the new rule): 0.20.1 */
    if (st->version >= V(20, 1)) {
        if (to_i64(out->max_concurrency * (double)st->m, &out->gpu_kv_cache_tokens) < 0)
            return KV_ERR_RANGE;
    } else { /* the pool divided evenly among the groups */
        uint64_t tokens;
        if (mul_count((uint64_t)(out->num_gpu_blocks / out->num_groups), (uint64_t)bs, &tokens) < 0)
            return KV_ERR_RANGE;
        out->gpu_kv_cache_tokens = (int64_t)tokens;
    }
    return KV_OK;
}

/* The memory V1's start-up check plans against (vllm/v1/core/kv_cache_utils.py,
 * get_kv_cache_configs and check_enough_kv_cache_memory @ 002f10e0cfa1373a19a0d2756598a34b700d20e5):
 *   - from 0.21, --num-gpu-blocks-override x bytes per block instead of the memory
 *     (vllm-project/vllm#41069, opened 2026-04-28; kvcalc takes the first release after it
 *     as 0.21, not pinned);
 *   - from 0.28, less one block: BlockPool keeps one as its null block, so a pool of exactly
 *     one max-length request is refused (#47272, merged 2026-08-20; 0.28.0 came out
 *     2026-08-26). The concurrency line still divides every block. */
#define OVERRIDE_CHECKED V(21, 0)
#define NULL_BLOCK_CHECKED V(28, 0)

static void check_memory(const kv_spec *s, const settings *st, kv_vllm_result *out)
{
    double block = block_bytes(out);
    out->check_bytes = out->available_bytes;
    if (s->vllm.num_gpu_blocks_override.set && st->version >= OVERRIDE_CHECKED)
        out->check_bytes = (double)s->vllm.num_gpu_blocks_override.value * block;
    out->null_block = st->version >= NULL_BLOCK_CHECKED;
    if (out->null_block)
        out->check_bytes -= block;
}

/* Will one request of max_model_len fit? If not, which error vLLM raises, and the longest
 * that would. */
static kv_status fit(const kv_spec *s, const settings *st, const bucket *bk, size_t nb,
                     kv_vllm_result *out)
{
    int64_t bs = out->block_size, m = st->m;
    check_memory(s, st, out);
    out->needed_bytes = needed_bytes(bk, nb, st, bs, out->page_bytes,
                                     out->draft_shares_group ? 0.0 : out->draft_page_bytes, m);
    out->fits = out->num_gpu_blocks > 0 && out->check_bytes > 0 &&
                out->needed_bytes <= out->check_bytes;
    out->v0_max_seq_len = 0;
    if (!out->v1) { /* V0 refuses when its blocks (split over the stages) hold fewer tokens */
        uint64_t held;
        if (mul_count((uint64_t)(out->num_gpu_blocks / s->pp), (uint64_t)bs, &held) < 0)
            return KV_ERR_RANGE;
        out->v0_max_seq_len = (int64_t)held;
        out->fits = out->num_gpu_blocks > 0 && out->v0_max_seq_len >= m;
    }
    out->refusal = out->fits                 ? KV_VLLM_STARTS
                 : out->v1 && out->check_bytes <= 0 ? KV_VLLM_NO_MEMORY
                 : out->v1                   ? KV_VLLM_KV_NEEDED
                 : out->num_gpu_blocks <= 0 ? KV_VLLM_NO_BLOCKS
                                             : KV_VLLM_V0_SEQ_LEN;
    /* what vLLM allocates must be on the GPU: weights larger than the GPU never load, and a
     * cache of a size given (kv_cache_memory_bytes, num_gpu_blocks_override) is allocated
     * whatever the profile found - beside the weights it can outgrow the GPU */
    double kv_alloc = (double)out->num_gpu_blocks * block_bytes(out);
    int sized = s->vllm.kv_cache_memory_gib.set || s->vllm.num_gpu_blocks_override.set;
    int outgrows = out->weights_bytes > out->total_bytes ||
                   (sized && out->weights_bytes + kv_alloc > out->total_bytes);
    out->outgrows_assumed_gpu = outgrows && s->vllm.total_assumed;
    if (outgrows && !s->vllm.total_assumed) {
        out->fits = 0;
        out->refusal = KV_VLLM_OUT_OF_MEMORY;
    }
    out->max_model_len_fit = out->fits ? m : longest_fit(bk, nb, st, bs, out, (uint64_t)m);
    out->longest_fit = out->num_gpu_blocks > 0 ? longest_fit(bk, nb, st, bs, out, (uint64_t)INT64_MAX)
                                               : 0;
    if (out->refusal == KV_VLLM_OUT_OF_MEMORY) /* what it allocates outgrows the GPU at any */
        out->max_model_len_fit = out->longest_fit = 0; /* max_model_len */
    return KV_OK;
}

/* Prefix caching shares whole blocks only, and only in full-attention groups. */
/* --kv-offloading-size and --kv-offloading-backend by release (vllm/config/vllm.py
 * _post_init_kv_transfer_config and vllm/config/cache.py, read in the local-inference-lab/vllm
 * mirror; each first release is the one after the merge, not pinned):
 *   - #27621 (e67511884, 2025-11-01) adds both flags: 0.11.1. Offloading is on only when a
 *     backend is named; "native" hands the OffloadingConnector num_cpu_blocks 0, which
 *     CPUOffloadingSpec refuses ("num_cpu_blocks must be specified in
 *     kv_connector_extra_config"); "lmcache" gives LMCacheConnectorV1 lmcache.local_cpu and
 *     lmcache.max_local_cpu_size = size / (TP x PP) on every rank;
 *   - #24498 (9cddbdba6, 2026-01-12) passes cpu_bytes_to_use = size x 2^30: native works
 *     from 0.14;
 *   - #32421 (1be5a7357, 2026-01-15) makes native the default backend, so the size alone turns
 *     it on: 0.15;
 *   - #42865 (merged 2026-05-17) points "lmcache" at LMCacheMPConnector, a separate LMCache
 *     server that owns its capacity ("Drop the now-irrelevant lmcache.local_cpu /
 *     lmcache.max_local_cpu_size"): from 0.22 vLLM sizes no LMCache tier. */
#define KV_OFFLOAD_FLAGS V(11, 1)
#define KV_OFFLOAD_NATIVE_WORKS V(14, 0)
#define KV_OFFLOAD_NATIVE_DEFAULT V(15, 0)
#define KV_OFFLOAD_LMCACHE_SERVER V(22, 0)

/* The CUDA graphs the profile captures (vLLM's FULL_AND_PIECEWISE default, -O2; read in the
 * local-inference-lab/vllm mirror @ 9aaf83ef5, 2026-05-19):
 *   - VllmConfig._set_cudagraph_sizes (vllm/config/vllm.py): M = --max-cudagraph-capture-size,
 *     else min(max_num_seqs x (1 + K) x 2, 512) (#30330, 4c2e10ea1, 2025-12-10: 0.13), then
 *     min(M, max_num_batched_tokens T); sizes [1, 2, 4] + range(8, 256, 8) + range(256, M + 1,
 *     16) (#26016), those <= M, and T itself when T <= M and off the strides (#40734, 8b49cf3a3,
 *     2026-04-28: kvcalc takes 0.21, not pinned);
 *   - with K draft tokens (adjust_cudagraph_sizes_for_spec_decode, compilation.py, #28315):
 *     every size rounded up to a multiple of K + 1, those <= M kept, at least [K + 1];
 *   - CudagraphDispatcher.initialize_cudagraph_keys (vllm/v1/cudagraph_dispatcher.py): the
 *     mixed batches all sizes, piecewise; the uniform decode batches, full, the sizes s with
 *     K + 1 <= s <= (K + 1) x max_num_seqs; each for every LoRA case (_get_lora_cases: [0,
 *     max_loras + 1] with cudagraph_specialize_lora's default True).
 * The backends that step down to PIECEWISE
 * (FlashInfer without TRT-LLM attention, CUTLASS MLA, linear attention: with K > 0) are not
 * modelled: the counts are those of FlashAttention and of backends like it. */
#define GRAPH_SIZES_COUNTED V(13, 0)
#define GRAPH_SIZES_WITH_T V(21, 0)
static void cuda_graphs(const kv_spec *s, kv_vllm_result *out)
{
    const kv_vllm_spec *v = &s->vllm;
    out->piecewise_graphs = out->piecewise_largest = out->full_graphs = out->full_largest = 0;
    if (v->enforce_eager || !uses_v1(v) || v->version < GRAPH_SIZES_COUNTED)
        return;
    int64_t q = 1 + v->num_speculative_tokens, seqs = out->max_num_seqs;
    /* FlashInfer without TRT-LLM attention supports only single-token uniform decode, so with
     * draft tokens vLLM steps down to PIECEWISE ("CUDAGraphMode.FULL_AND_PIECEWISE is not
     * supported with spec-decode for attention backend FlashInferBackend"; compilation.py
     * resolve_cudagraph_mode_and_sizes @ 9aaf83ef5): no rounding, no full graphs */
    int piecewise_only = q > 1 && v->attention_backend.set &&
                         v->attention_backend.value == KV_VLLM_ATTN_FLASHINFER;
    int64_t round_to = piecewise_only ? 1 : q;
    int64_t t = out->max_num_batched_tokens;
    /* gpt-oss sets 1024 as if the user had (GptOssForCausalLMConfig.verify_and_update_config,
     * vllm/model_executor/models/config.py: "Overriding max cuda graph capture size to 1024
     * for performance"); its attention sinks mark it among the models kvcalc reads */
    int64_t m = v->max_cudagraph_capture_size.set ? v->max_cudagraph_capture_size.value
                : s->arch.attn_sinks                 ? 1024
                : seqs * q * 2 < 512                 ? seqs * q * 2
                                                     : 512;
    if (t < m)
        m = t;
    int64_t cases = v->enable_lora ? 2 : 1;
    /* T closes the list when it bounds M and is off the strides */
    int on_list = t == 1 || t == 2 || t == 4 || (t >= 8 && t < 256 && t % 8 == 0) ||
                  (t >= 256 && (t - 256) % 16 == 0);
    int with_t = v->version >= GRAPH_SIZES_WITH_T && t == m && !on_list;
    int64_t last = 0; /* sizes rise, and so do their roundings: each new value counts once */
    for (int64_t i = 0;; i++) {
        /* the i-th size of the list: 1, 2, 4, then 8 by 8 below 256, then 16 by 16; past M,
         * T when it closes the list, then the end */
        int64_t size = i < 3 ? (int64_t)1 << i : i < 34 ? (i - 2) * 8 : 256 + (i - 34) * 16;
        int closing = size > m;
        if (closing && !with_t)
            break;
        if (closing)
            size = t;
        int64_t r = (size + round_to - 1) / round_to * round_to;
        if (r <= m && r > last) {
            out->piecewise_graphs += cases;
            out->piecewise_largest = r;
            if (!piecewise_only && r >= q && r <= q * seqs) {
                out->full_graphs += cases;
                out->full_largest = r;
            }
            last = r;
        }
        if (closing)
            break;
    }
    if (out->piecewise_graphs == 0 && round_to > 1 && q <= m) { /* at least [K + 1] (#29102) */
        out->piecewise_graphs = out->full_graphs = cases;
        out->piecewise_largest = out->full_largest = q;
    }
}

/* The backend in force: the one named, native from 0.15 when none is, else -1 (no tier). */
static int offload_backend(const kv_vllm_spec *v)
{
    if (!(v->kv_offloading_gib > 0))
        return -1;
    if (v->kv_offloading_backend.set)
        return (int)v->kv_offloading_backend.value;
    return v->version >= KV_OFFLOAD_NATIVE_DEFAULT ? KV_VLLM_OFFLOAD_NATIVE : -1;
}

/* Tokens in one LMCache chunk (lmcache/v1/config.py: "chunk_size" default 256) and the
 * alignment of each chunk in its pinned pool (lmcache/v1/memory_management.py
 * TensorMemoryAllocator.ALIGN_BYTES, 4096 in 2026; 512 earlier, the same count whenever a
 * chunk is a multiple of 4096 bytes, as every model's here is but a few). */
#define LMCACHE_CHUNK_TOKENS 256
#define LMCACHE_ALIGN 4096.0

/* The CPU tier. Native (CPUOffloadingSpec in vllm/v1/kv_offload/cpu/spec.py @ 0072b0b7443b):
 * kv_bytes_per_block = page_size_bytes x len(kv_cache_tensors) x world_size, num_cpu_blocks =
 * cpu_bytes // (kv_bytes_per_block x block_size_factor), at the default factor 1 (offloaded
 * blocks the GPU's size). The tensors of one block are the group's layers (group_size), so a
 * block is kvcalc's page x group_size. LMCache (LMCacheEngineBuilder._Create_memory_allocator:
 * MixedMemoryAllocator(int(max_local_cpu_size x 1024**3)), a pinned buffer in each worker):
 * every rank holds size / (TP x PP) GiB in chunks of 256 tokens of all its layers (format
 * KV_2LTD), each aligned to 4096 bytes. Either way the tier is pinned host memory of the size
 * given, and the GPU pool, so the concurrency, is unchanged (only prefix hits grow). */
static kv_status kv_offload(const kv_spec *s, kv_vllm_result *out)
{
    const kv_vllm_spec *v = &s->vllm;
    out->kv_offload_blocks = out->kv_offload_tokens = out->kv_offload_block_tokens = 0;
    out->kv_offload_backend = offload_backend(v);
    if (out->kv_offload_backend < 0)
        return KV_OK;
    double blocks, tokens_per;
    if (out->kv_offload_backend == KV_VLLM_OFFLOAD_LMCACHE) {
        double ranks = (double)(s->tp * s->pp);
        double pool = kvm_floor(v->kv_offloading_gib / ranks * 1073741824.0);
        double chunk = block_bytes(out) / (double)out->block_size * LMCACHE_CHUNK_TOKENS;
        chunk = kvm_ceil(chunk / LMCACHE_ALIGN) * LMCACHE_ALIGN;
        blocks = chunk > 0 ? kvm_floor(pool / chunk) : 0;
        tokens_per = LMCACHE_CHUNK_TOKENS;
        out->host_pinned_bytes += pool * ranks;
    } else {
        double per_block = block_bytes(out) * (double)(s->tp * s->pp);
        blocks = per_block > 0 ? kvm_floor(gib(v->kv_offloading_gib) / per_block) : 0;
        tokens_per = (double)out->block_size;
        out->host_pinned_bytes += gib(v->kv_offloading_gib);
    }
    /* counted exactly: beyond 2^63 - 1 the answer is refused, not capped */
    if (to_i64(blocks, &out->kv_offload_blocks) < 0 ||
        to_i64(blocks * tokens_per, &out->kv_offload_tokens) < 0)
        return KV_ERR_RANGE;
    out->kv_offload_block_tokens = (int64_t)tokens_per;
    return KV_OK;
}

static void prefix(const kv_spec *s, const bucket *bk, size_t nb, kv_vllm_result *out)
{
    int64_t full_groups = 0, bs = out->block_size;
    for (size_t i = 0; i < nb; i++)
        if (bk[i].kind == KV_LAYER_FULL) {
            full_groups = bk[i].groups;
            bs = bk[i].bs > 0 ? bk[i].bs : bs;
        }
    if (!out->enable_prefix_caching) { /* nothing is shared: every request holds its own */
        out->prefix_shared_blocks = out->prefix_shared_tokens = 0;
        out->prefix_saved_bytes = out->prefix_extra_concurrency = 0;
        return;
    }
    out->prefix_shared_blocks = s->prefix_tokens / bs;
    out->prefix_shared_tokens = out->prefix_shared_blocks * bs;
    double saved_blocks =
        (double)(s->prefix_requests - 1) * (double)out->prefix_shared_blocks * (double)full_groups;
    out->prefix_saved_bytes = saved_blocks * block_bytes(out);
    out->prefix_extra_concurrency = kvm_floor(saved_blocks / (double)out->blocks_per_request);
}

/* One result for a spec whose engine inputs are in range (vllm_check); KV_ERR_RANGE when a
 * block or token count would exceed 2^63 - 1. */
/* DeepSeek-V4 (#40860, 4d51588e2, 2026-04-26; read at 28be48fa in the local-inference-lab
 * mirror: vllm/models/deepseek_v4/, vllm/v1/attention/backends/mla/sparse_swa.py,
 * vllm/v1/core/kv_cache_utils.py group_and_unify_kv_cache_specs and
 * _get_kv_cache_config_deepseek_v4). Each layer contributes specs of its own block size:
 *   - every layer (and the MTP layer, ratio 1): its window, SlidingWindowMLASpec(64 tokens,
 *     csa_window), 64 entries a page;
 *   - a 4:1 layer: its latent, MLAAttentionSpec(256 tokens, compress 4: 64 entries); its
 *     indexer's keys (256 tokens, 64 keys); its compressor's state (4 tokens, window 8) and
 *     the indexer's compressor's (4 tokens, window 8);
 *   - a 128:1 layer: its latent (256 tokens: 2 entries) and its compressor's state (8 tokens,
 *     window 128);
 * every page rounded up to 576 B (FlashMLA). The MLA specs form one group; the others group
 * by (block size, window), each page padded up to the nearest MLA page, and each such group
 * is cut into ceil(layers / T) groups of every T-th layer, T = _approximate_gcd of the
 * groups' layer counts. A block of any group is one "layer tuple" - one page of each MLA page
 * size - for each of the most layers of a page size any group holds: num_blocks = available
 * // that. Returns the buckets (one a group, its layers the tuples, so that layers x page =
 * the block) and sets the block, page and group counts. */
#define CSA_ALIGN 576.0
#define CSA_MLA_BLOCK 256

static double csa_pad(double bytes)
{
    return kvm_ceil(bytes / CSA_ALIGN) * CSA_ALIGN;
}

/* _approximate_gcd: the d in [lower, max] with the least sum of (d - x % d) % d (ties: the
 * larger d) */
static int64_t approximate_gcd(const int64_t *x, size_t n, int64_t lower)
{
    int64_t hi = lower, best_d = lower, best = -1;
    for (size_t i = 0; i < n; i++)
        hi = x[i] > hi ? x[i] : hi;
    for (int64_t d = lower; d >= 1 && d <= hi; d++) {
        int64_t pad = 0;
        for (size_t i = 0; i < n; i++)
            pad += (d - x[i] % d) % d;
        if (best < 0 || pad <= best) {
            best = pad;
            best_d = d;
        }
    }
    return best_d;
}

static size_t csa_buckets(const kv_spec *s, kv_vllm_result *out, bucket bk[VLLM_MAX_BUCKETS])
{
    const kv_layout *l = &s->layout;
    kv_csa_bytes b;
    kv_csa_bytes_of(s, &b);
    int64_t c4 = l->csa_c4, c128 = l->csa_c128;
    /* the MTP layer keeps a window only (its ratio is 1), in the same group as the others' */
    int64_t windows = s->layers + (spec_method(&s->vllm) == KV_VLLM_SPEC_MTP ? s->arch.mtp_layers : 0);
    /* the MLA group's pages */
    double p4 = csa_pad(CSA_MLA_BLOCK / 4 * b.entry), p128 = csa_pad(CSA_MLA_BLOCK / 128 * b.entry);
    double pix = csa_pad(CSA_MLA_BLOCK / 4 * b.index_key);
    double sizes[3];
    size_t n_sizes = 0;
    const double mla[3] = {c4 > 0 ? p4 : 0, c128 > 0 ? p128 : 0, c4 > 0 ? pix : 0};
    for (size_t i = 0; i < 3; i++) {
        int seen = mla[i] <= 0;
        for (size_t j = 0; j < n_sizes; j++)
            seen |= sizes[j] == mla[i];
        if (!seen)
            sizes[n_sizes++] = mla[i];
    }
    double tuple = 0, largest = 0;
    for (size_t j = 0; j < n_sizes; j++) {
        tuple += sizes[j];
        largest = kvm_fmax(largest, sizes[j]);
    }
    /* a smaller page is padded to the nearest MLA page at least as large (one always is: the
     * 4:1 latent's 64 entries of head_dim + rope + scales outgrow a window's 64 entries, a
     * 4:1 state's 4 x 16 x head_dim B and a 128:1 state's 8 x 8 x head_dim B, and the
     * indexer's keys its state; check_csa refuses a model without 4:1 layers) */
    double up[3];
    const double raw[3] = {csa_pad(64 * b.entry), csa_pad(4 * (b.c4_state)), csa_pad(8 * b.c128_state)};
    for (size_t i = 0; i < 3; i++) {
        up[i] = largest;
        for (size_t j = 0; j < n_sizes; j++)
            if (sizes[j] >= raw[i] && sizes[j] < up[i])
                up[i] = sizes[j];
    }
    double up_ix = largest, raw_ix = csa_pad(4 * b.index_state);
    for (size_t j = 0; j < n_sizes; j++)
        if (sizes[j] >= raw_ix && sizes[j] < up_ix)
            up_ix = sizes[j];
    /* layers of the most common page size in each group: the MLA group's, the windows', the
     * 4:1 compressors' (main and indexer: one layer each a page size), the 128:1 ones' */
    int64_t mla_common = c4 > c128 ? c4 : c128;
    if (c4 > 0 && c128 > 0 && p4 == p128)
        mla_common = c4 + c128;
    int64_t counts[4] = {mla_common, windows, c4, c128};
    size_t nc = 0;
    int64_t present[4];
    for (size_t i = 0; i < 4; i++)
        if (counts[i] > 0)
            present[nc++] = counts[i];
    int64_t t = approximate_gcd(present, nc, present[0]);
    double mla_pages = (double)c4 * (p4 + pix) + (double)c128 * p128;
    size_t nb = 0;
    bk[nb++] = (bucket){.kind = KV_LAYER_FULL, .layers = 0, .groups = 1, .bs = CSA_MLA_BLOCK,
                        .page_sum = (int64_t)mla_pages};
    /* the other groups, each cut into ceil(n / t) groups of every k-th layer */
    const struct {
        int64_t layers, bs, window;
        double page;
    } others[3] = {{windows, 64, l->csa_window, up[0]},
                   {c4, 4, 8, up[1] + up_ix},
                   {c128, 8, 128, up[2]}};
    int64_t most = mla_common;
    for (size_t i = 0; i < 3; i++) {
        if (others[i].layers == 0)
            continue;
        int64_t k = ceil_div(others[i].layers, t);
        for (int64_t j = 0; j < k && nb < VLLM_MAX_BUCKETS; j++) {
            int64_t m = ceil_div(others[i].layers - j, k); /* layers j, j + k, ... */
            most = m > most ? m : most;
            bk[nb++] = (bucket){.kind = KV_LAYER_SLIDING, .layers = 0, .limit = others[i].window,
                                .groups = 1, .bs = others[i].bs,
                                .page_sum = (int64_t)((double)m * others[i].page)};
        }
    }
    for (size_t i = 0; i < nb; i++)
        bk[i].layers = most; /* layers x page_bytes = the block */
    out->block_size = CSA_MLA_BLOCK;
    out->page_bytes = tuple;
    out->group_size = most;
    out->num_groups = (int64_t)nb;
    out->padding_layers = 0;
    out->padding_percent = 0;
    out->padding_kind = NULL;
    out->state_page_bytes = 0;
    out->block_raised = 0;
    out->mamba_padding_percent = 0;
    out->page_ratio = 1;
    out->page_padded = 0;
    return nb;
}

/* DeepSeek-V4 as kvcalc sizes it: from 0.21 (#40860 merged 2026-04-26; the concurrency and
 * token lines as #41069 left them two days later, which kvcalc dates 0.21 too), V1 with its
 * hybrid manager, one pipeline stage, the 256-token block its sparse backends take, no draft
 * model, LoRA or CPU tier (none of them read for these groups). */
#define CSA_FIRST V(21, 0)

static kv_status check_csa(const kv_spec *s, kv_error *why)
{
    const kv_vllm_spec *v = &s->vllm;
    const kv_param *engine = &kv_core_params[KV_P_ENGINE];
    if (s->layout.csa_c4 + s->layout.csa_c128 == 0)
        return KV_OK;
    kv_status st = kv_csa_check_dtype(s, why);
    if (st != KV_OK)
        return st;
    if (v->version < CSA_FIRST || !uses_v1(v))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_VERSION],
                         "kvcalc sizes DeepSeek-V4's cache (#40860, 2026-04-26) from vLLM 0.21 "
                         "on the V1 engine");
    if (s->layout.csa_c4 == 0) /* the windows' and states' pages pad up to the 4:1 latent's */
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, engine,
                         "vLLM pads DeepSeek-V4's window and state pages up to a latent page "
                         "at least as large, which only 4:1 layers have (compress_ratios)");
    if (!v->hybrid_manager)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_HYBRID],
                         "DeepSeek-V4's caches are groups of their own: the hybrid KV cache "
                         "manager cannot be off");
    if (v->block_size.set && v->block_size.value != CSA_MLA_BLOCK)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_BLOCK_SIZE],
                         "DeepSeek-V4's sparse attention backends take blocks of 256 tokens "
                         "(FlashMLA sparse, its indexer)");
    if (s->pp > 1)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_PP],
                         "kvcalc does not split DeepSeek-V4's cache groups over pipeline "
                         "stages: use 1");
    if (v->enable_lora || v->kv_offloading_gib > 0 || uses_draft(spec_method(v)))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, engine,
                         "kvcalc does not size LoRA, a CPU tier or a draft model beside "
                         "DeepSeek-V4's cache groups (its MTP layer it does: --mtp)");
    return KV_OK;
}

static kv_status vllm_compute_into(const kv_spec *s, const kv_result *r, kv_vllm_result *out)
{
    settings st;
    bucket bk[VLLM_MAX_BUCKETS];
    int64_t counts[KV_LAYER_KINDS];
    kv_status rc;
    resolve_inputs(s, &st, out);
    draft_terms(s, out);
    size_t nb;
    if (s->layout.csa_c4 + s->layout.csa_c128 > 0) {
        nb = csa_buckets(s, out, bk);
    } else {
        nb = make_buckets(s, &st, out, bk, counts);
        if ((rc = block_size(s, r, counts, bk, nb, st.mamba_align, out)) != KV_OK)
            return rc;
        make_groups(bk, nb, st.version, out);
    }
    budget(s, r, &st, out);
    if ((rc = blocks(s, &st, bk, nb, out)) != KV_OK || (rc = fit(s, &st, bk, nb, out)) != KV_OK)
        return rc;
    prefix(s, bk, nb, out);
    cuda_graphs(s, out);
    return kv_offload(s, out);
}

/* The --block-size values each release's command line accepts; other values never start.
 * Sources (vllm-project/vllm): arg_utils.py `choices=[8, 16, 32]` to 0.6.3 (docs v0.5.3 and
 * v0.6.3.post1 engine_args); `choices=[8, 16, 32, 64, 128]` from 0.6.4 (arg_utils.py of the
 * HPU upstreaming; PR #11259 restored them after #10938 cut them to three for a few weeks of
 * December 2024, which kvcalc does not single out); from 0.8.5 the choices are CacheConfig's
 * `BlockSize = Literal[1, 8, 16, 32, 64, 128]` (PR #16835, vllm/config.py; docs v0.9.0 to
 * v0.10.2); with 256 from 0.11 (vllm/config/cache.py, docs v0.11.1 to v0.16.0; 0.11.0 from
 * copies of that era). From 0.18 (#35122's refactor, in 0.18 per vllm-ascend #7652) the
 * Literal is gone: `block_size: SkipValidation[int]`, then `Field(default=None, gt=0)`
 * (vllm/config/cache.py @ 002f10e0), any positive size; 0.17 is taken as the Literal's
 * last release (not read). What a backend then does with an accepted size (FlashAttention's
 * multiple of 16, FlashMLA's 64) is not a refusal of the flag. */
static const struct {
    int from;
    int64_t sizes[8]; /* 0-terminated; sizes[0] == 0: any positive size */
} block_sizes[] = {
    {0, {8, 16, 32}},
    {V(6, 4), {8, 16, 32, 64, 128}},
    {V(8, 5), {1, 8, 16, 32, 64, 128}},
    {V(11, 0), {1, 8, 16, 32, 64, 128, 256}},
    {V(18, 0), {0}},
};

/* The row of block_sizes for a release. */
static size_t block_sizes_row(int version)
{
    size_t row = 0;
    for (size_t i = 0; i < sizeof block_sizes / sizeof block_sizes[0]; i++)
        if (version >= block_sizes[i].from)
            row = i;
    return row;
}

static int block_size_accepted(int version, int64_t block_size)
{
    const int64_t *sizes = block_sizes[block_sizes_row(version)].sizes;
    if (sizes[0] == 0)
        return block_size >= 1;
    for (size_t i = 0; i < 8 && sizes[i]; i++)
        if (sizes[i] == block_size)
            return 1;
    return 0;
}

/* "8, 16 or 32": the sizes a release accepts, for the refusal. */
static void block_sizes_text(int version, char *buf, size_t n)
{
    const int64_t *sizes = block_sizes[block_sizes_row(version)].sizes;
    size_t count = 0, used = 0;
    while (count < 8 && sizes[count])
        count++;
    buf[0] = '\0';
    for (size_t i = 0; i < count && used < n; i++) {
        int w = kv_snprintf(buf + used, n - used, "%s%lld",
                         i == 0 ? "" : i + 1 == count ? " or " : ", ", (long long)sizes[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* ---- the engine interface --------------------------------------------------------------- */

/* Whether a given memory figure is out of what kvcalc sizes. */
static int bad_gib(kv_opt_num x)
{
    return x.set && (!isfinite(x.value) || x.value < 0 || x.value > 1e12);
}

/* The CPU tier's settings each release takes, refused in vLLM's words where it has them. */
static kv_status check_offload(const kv_spec *s, kv_error *why)
{
    const kv_vllm_spec *v = &s->vllm;
    const kv_param *size = &kv_vllm_params[VLLM_P_KV_OFFLOAD];
    const kv_param *backend = &kv_vllm_params[VLLM_P_KV_OFFLOAD_BACKEND];
    int given = v->kv_offloading_gib > 0 || v->kv_offloading_backend.set;
    if (given && !uses_v1(v))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, v->kv_offloading_gib > 0 ? size : backend,
                         "the KV offloading tier is V1's (a KV connector); V0 swaps to "
                         "--swap-space instead");
    if (given && v->version < KV_OFFLOAD_FLAGS)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, v->kv_offloading_gib > 0 ? size : backend,
                         "vLLM has --kv-offloading-size and --kv-offloading-backend from 0.11.1 "
                         "(vllm#27621): give --vllm-version 0.11.1 or later");
    /* from 0.15 the size alone is native and a backend without a size does nothing */
    int before_default = given && v->version < KV_OFFLOAD_NATIVE_DEFAULT;
    if (before_default && !v->kv_offloading_backend.set)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, size,
                         "before 0.15 vLLM offloads only beside --kv-offloading-backend (native "
                         "or lmcache) and ignores the size alone (vllm#32421 made native the "
                         "default)");
    if (before_default && !(v->kv_offloading_gib > 0))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, backend,
                         "vLLM: \"You must set kv_offloading_size when kv_offloading_backend is "
                         "set.\"");
    if (offload_backend(v) == KV_VLLM_OFFLOAD_NATIVE && v->version < KV_OFFLOAD_NATIVE_WORKS)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, backend,
                         "vLLM before 0.14 cannot start its native tier from these flags (it "
                         "passes num_cpu_blocks 0): \"num_cpu_blocks must be specified in "
                         "kv_connector_extra_config\"");
    if (offload_backend(v) == KV_VLLM_OFFLOAD_LMCACHE) {
        if (v->version >= KV_OFFLOAD_LMCACHE_SERVER)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, backend,
                             "from 0.22 lmcache is LMCacheMPConnector, a separate LMCache server "
                             "that sizes its own tier (vllm#42865): kvcalc does not size it");
        if (s->pp > 1)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, backend,
                             "kvcalc sizes LMCache's CPU tier without pipeline parallelism "
                             "(each stage holds its own layers' chunks)");
        int64_t counts[KV_LAYER_KINDS];
        kv_cache_layer_counts(s, counts);
        if (counts[KV_LAYER_STATE] > 0 ||
            (v->hybrid_manager && counts[KV_LAYER_SLIDING] + counts[KV_LAYER_CHUNKED] > 0))
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, backend,
                             "LMCache's connector of these releases keeps one KV group: a model "
                             "of sliding, chunked or state layers needs "
                             "--disable-hybrid-kv-cache-manager, and state layers are not "
                             "offloaded");
    }
    return KV_OK;
}

/* Prefix caching beside state layers: what vLLM would run that kvcalc does not model, and
 * what vLLM refuses (the rules above prefix_caching_in_force). */
static kv_status check_prefix_caching(const kv_spec *s, kv_error *why)
{
    const kv_vllm_spec *v = &s->vllm;
    const kv_param *mode = &kv_vllm_params[VLLM_P_MAMBA_MODE];
    const kv_param *pc = &kv_vllm_params[VLLM_P_PREFIX_CACHING];
    if (!has_state_layers(s) || !uses_v1(v))
        return KV_OK;
    int given = v->mamba_align.set && v->mamba_align.value != 0;
    if (given && v->version < MAMBA_ALIGN)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, mode,
                         "modes align and all come with vLLM 0.15 (#30877)");
    if (given && !prefix_caching_in_force(s))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, mode,
                         "the mode caches prefixes: without --enable-prefix-caching vLLM sets "
                         "it to 'none' (\"Mamba cache mode is set to 'none' when prefix caching "
                         "is disabled\"): give --enable-prefix-caching");
    if (prefix_caching_in_force(s) && !given && default_mode(s) == 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, pc,
                         "before 0.15 a Mamba-1/2 model caches prefixes with mamba_block_size "
                         "= block_size, which kvcalc does not model: give "
                         "--no-enable-prefix-caching, or --vllm-version 0.15 or later");
    if (prefix_caching_in_force(s) && v->mamba_align.set && v->mamba_align.value == 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, mode,
                         "with prefix caching vLLM takes mode 'none' as unset and chooses "
                         "'align' or 'all': give --no-enable-prefix-caching for none");
    int in_force = !prefix_caching_in_force(s) ? 0 : given ? (int)v->mamba_align.value
                                                          : default_mode(s);
    if (in_force == 1 && v->version < MAMBA_ALIGN_SPEC && spec_method(v) != KV_VLLM_SPEC_NONE)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, pc,
                         "\"Mamba cache mode 'align' is currently not compatible with "
                         "speculative decoding.\" (until vLLM 0.16, #33705)");
    return KV_OK;
}

/* speculative_config's refusals, in vLLM's words where it has them. */
#define DRAFT_MODEL_V1 V(15, 0) /* DraftModelProposer: vllm#24322, merged 2026-01-19; the first
                                   release with it is not pinned, kvcalc takes 0.15 */
static kv_status check_speculative(const kv_spec *s, kv_error *why)
{
    const kv_vllm_spec *v = &s->vllm;
    const kv_param *method = &kv_vllm_params[VLLM_P_SPEC_METHOD];
    const kv_param *tokens = &kv_vllm_params[VLLM_P_SPEC_TOKENS];
    int m = spec_method(v);
    if (v->mtp && v->spec_method.set && v->spec_method.value != KV_VLLM_SPEC_MTP)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_MTP],
                         "--mtp is --speculative-method mtp: it does not combine with another "
                         "method; drop one");
    if (m == KV_VLLM_SPEC_NONE)
        return KV_OK;
    if (m == KV_VLLM_SPEC_MEDUSA || m == KV_VLLM_SPEC_MLP_SPECULATOR || m == KV_VLLM_SPEC_DFLASH)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                         "kvcalc does not count %s heads' weights yet; size them with "
                         "--weights-gib from a log's \"Model loading took\"",
                         m == KV_VLLM_SPEC_MEDUSA ? "Medusa" : m == KV_VLLM_SPEC_DFLASH
                                                                ? "DFlash" : "MLP-speculator");
    if (!uses_v1(v))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                         "kvcalc sizes V1's speculative decoding; V0's draft workers keep a "
                         "cache of their own, not read");
    if (v->num_speculative_tokens < 1)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, tokens,
                         m == KV_VLLM_SPEC_MTP
                             ? "MTP drafts at least one token: give --num-speculative-tokens N"
                             : "\"A speculative model was provided, but `num_speculative_tokens` "
                               "was not provided\": give --num-speculative-tokens N");
    if (m == KV_VLLM_SPEC_MTP && s->arch.mtp_layers <= 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, v->mtp ? &kv_vllm_params[VLLM_P_MTP] : method,
                         "the model has no MTP layers (num_nextn_predict_layers, "
                         "mtp_num_hidden_layers)");
    if (!uses_draft(m)) {
        if (v->draft.name)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                             "method %s takes no draft model; drop --draft-model",
                             m == KV_VLLM_SPEC_MTP ? "mtp" : "ngram / suffix");
        return KV_OK;
    }
    if (!v->draft.name)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                         "method %s needs its model: give --draft-model NAME (speculative_config "
                         "\"model\")", m == KV_VLLM_SPEC_DRAFT_MODEL ? "draft_model"
                                        : m == KV_VLLM_SPEC_EAGLE    ? "eagle"
                                                                     : "eagle3");
    /* the value given is checked for every method (_verify_and_get_draft_tp), though only
     * a draft_model runs at it */
    int64_t given = v->draft_tp.set ? v->draft_tp.value : s->tp, dtp = draft_tp(s);
    const kv_param *dtp_param = &kv_vllm_params[VLLM_P_DRAFT_TP];
    if (given != 1 && given != s->tp)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, dtp_param,
                         "\"speculative_draft_tensor_parallel_size=%lld cannot be other value "
                         "than 1 or target model tensor_parallel_size\"", (long long)given);
    if (m == KV_VLLM_SPEC_DRAFT_MODEL && dtp != s->tp)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, dtp_param,
                         "\"Currently, 'draft_tensor_parallel_size' and 'tensor_parallel_size' "
                         "must be the same. Got %lld and %lld.\"", (long long)dtp,
                         (long long)s->tp);
    if (m == KV_VLLM_SPEC_DRAFT_MODEL && v->version < DRAFT_MODEL_V1)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                         "V1 speculates with a separate draft model from vLLM 0.15 (vllm#24322; "
                         "--vllm-version)");
    if (m == KV_VLLM_SPEC_DRAFT_MODEL && v->draft.vocab > 0 && s->arch.vocab > 0 &&
        v->draft.vocab != s->arch.vocab)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                         "the draft's vocabulary (%lld) is not the target's (%lld): vLLM "
                         "refuses a draft_model of another vocab size",
                         (long long)v->draft.vocab, (long long)s->arch.vocab);
    if (m != KV_VLLM_SPEC_DRAFT_MODEL && v->draft.weights_estimated)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                         "an EAGLE head shares the target's embedding only when its checkpoint "
                         "has none: give the head's folder (config.json and safetensors) so "
                         "kvcalc counts its tensors");
    if (v->draft.attn_heads % dtp != 0 ||
        (v->draft.kv_heads % dtp != 0 && dtp % v->draft.kv_heads != 0))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, dtp_param,
                         "the draft's %lld attention and %lld KV heads do not split over its "
                         "tensor parallel size %lld", (long long)v->draft.attn_heads,
                         (long long)v->draft.kv_heads, (long long)dtp);
    /* a draft of another page: one group of both page sizes, which vLLM forms when every
     * layer is full attention (UniformTypeKVCacheSpecs, from 0.11); beside windows, state
     * or MLA it unifies page sizes instead, which kvcalc has not read for drafts */
    double elem = kv_dtype_get(s->dtype)->bytes;
    if (s->layout.mla || draft_layer_token_bytes(s, elem) != target_layer_token_bytes(s, elem)) {
        int64_t counts[KV_LAYER_KINDS];
        kv_cache_layer_counts(s, counts);
        int others = counts[KV_LAYER_SLIDING] + counts[KV_LAYER_CHUNKED] + counts[KV_LAYER_STATE] > 0;
        if (s->layout.mla || others || s->layout.full_kv_heads > 0 || s->layout.full_head_dim > 0)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                             "the draft's cache has another page size than the target's, whose "
                             "layers are not all plain full attention: kvcalc has not read how "
                             "vLLM groups them");
        if (v->version < V(11, 0))
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, method,
                             "a draft of another KV head size shares one group with the target "
                             "from vLLM 0.11 (vllm#25101; --vllm-version)");
    }
    return KV_OK;
}

kv_status kv_vllm_check(const kv_spec *s, kv_error *why)
{
    const kv_vllm_spec *v = &s->vllm;
    const kv_param *engine = &kv_core_params[KV_P_ENGINE];
    /* the engine generations a release has (vllm/envs.py VLLM_USE_V1) */
    if (v->use_v2_model_runner.set && !uses_v1(v))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_USE_V2_RUNNER],
                         "applies to the V1 engine (Model Runner V2 is one of its runners)");
    if (v->use_v1.set && v->use_v1.value == 1 && v->version < V1_FIRST)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_USE_V1],
                         "the V1 engine exists from vLLM 0.7 (--vllm-version)");
    if (v->use_v1.set && v->use_v1.value == 0 && v->version >= V0_REMOVED)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_USE_V1],
                         "the V0 engine was removed in vLLM 0.11; give --vllm-version 0.10 or "
                         "earlier");
    const kv_opt_num gibs[] = {v->weights_gib, v->activation_gib, v->non_torch_gib,
                               v->cuda_graph_gib, v->kv_cache_memory_gib, v->total_gib};
    int bad = 0;
    for (size_t i = 0; i < sizeof gibs / sizeof gibs[0]; i++)
        bad |= bad_gib(gibs[i]);
    kv_total_source source;
    double total = resolve_total(s, &source);
    if (bad || (v->util.set && !(v->util.value > 0 && v->util.value <= 1)) ||
        (v->block_size.set && (v->block_size.value < 1 || v->block_size.value > (1 << 20))) ||
        (v->max_num_batched_tokens.set && (v->max_num_batched_tokens.value < 1 ||
                                           v->max_num_batched_tokens.value > ((int64_t)1 << 40))) ||
        (v->max_num_seqs.set && (v->max_num_seqs.value < 1 ||
                                 v->max_num_seqs.value > ((int64_t)1 << 24))) ||
        !(total > 0) || total > 1e12 ||
        (v->num_gpu_blocks_override.set && v->num_gpu_blocks_override.value < 1) ||
        !(v->swap_space_gib >= 0 && v->swap_space_gib <= 1e6) ||
        !(v->cpu_offload_gib >= 0 && v->cpu_offload_gib <= 1e6) ||
        !(v->kv_offloading_gib >= 0 && v->kv_offloading_gib <= 1e9))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, engine,
                         "a vLLM input is out of range (utilization in (0, 1], block size >= 1, "
                         "memory sizes >= 0 and finite, GPU total > 0)");
    if (v->block_size.set && !block_size_accepted(v->version, v->block_size.value)) {
        char sizes[96], release[32];
        block_sizes_text(v->version, sizes, sizeof sizes);
        kv_vllm_version_format(v->version, release, sizeof release);
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_BLOCK_SIZE],
                         "vLLM %s accepts %s (any positive size from 0.18; --vllm-version)",
                         release, sizes);
    }
    static const int64_t lora_ranks[] = {1, 8, 16, 32, 64, 128, 256, 320, 512};
    int rank_ok = 0;
    for (size_t k = 0; k < sizeof lora_ranks / sizeof lora_ranks[0]; k++)
        rank_ok |= v->max_lora_rank == lora_ranks[k];
    if (!rank_ok)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_LORA_RANK],
                         "vLLM accepts a LoRA rank of 1, 8, 16, 32, 64, 128, 256, 320 or 512");
    if (v->enable_lora) {
        int64_t counts[KV_LAYER_KINDS];
        kv_cache_layer_counts(s, counts);
        const kv_arch *a = &s->arch;
        const char *kind = s->layout.mla                ? "MLA attention"
                           : counts[KV_LAYER_STATE] > 0 ? "state layers"
                           : !a->known                  ? "a model kvcalc has no widths of"
                           : a->shared_experts > 0 || a->shared_intermediate > 0
                               ? "shared experts"
                           : a->moe_with_dense ? "MoE layers with a dense MLP beside them"
                                               : NULL;
        if (kind)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_LORA],
                             "vLLM's LoRA buffers are counted for attention models with dense "
                             "or routed-expert MLPs, not %s (their LoRA layers have shapes of "
                             "their own)", kind);
        char release[16];
        kv_vllm_version_format(v->version, release, sizeof release);
        if (a->experts > 0 && v->version < LORA_MOE)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_LORA],
                             "vLLM %s has no LoRA layers for MoE experts (\"For MoE models, "
                             "vLLM currently does not support fused MoE LoRA inference\") and "
                             "kvcalc does not size its buffers on the other layers; the experts' "
                             "from 0.11.1 (--vllm-version)", release);
        if (a->experts > 0 && lora_3d_moe(a) && v->version < LORA_MOE_3D)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_LORA],
                             "vLLM %s has no LoRA layer for experts stored fused (%s: "
                             "FusedMoE3DWithLoRA, from 0.12; --vllm-version)", release,
                             a->architecture);
        if (a->experts > 0 && v->fully_sharded_loras && v->version < LORA_MOE_3D)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_LORA_SHARDED],
                             "vLLM %s does not shard the MoE experts' LoRA buffers "
                             "(--fully-sharded-loras on them from 0.12; --vllm-version)", release);
        if (a->experts > 0 && s->expert_parallel)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_LORA],
                             "LoRA on MoE experts with --enable-expert-parallel: vLLM refuses it "
                             "before #40867 (\"EP support for Fused MoE LoRA is not implemented "
                             "yet.\") and allows it after only with the allgather_reducescatter "
                             "backend, which kvcalc does not size");
        /* which layers are MoE depends on where a stage starts, which a stage's spec does not
         * keep: only models whose layers are all alike split across stages */
        if (a->experts > 0 && s->pp > 1 && (a->first_dense > 0 || a->moe_step > 1))
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_vllm_params[VLLM_P_LORA],
                             "kvcalc does not place the LoRA buffers of a model with both dense "
                             "and MoE layers on pipeline stages (first_k_dense_replace, "
                             "decoder_sparse_step)");
    }
    /* the option families' own refusals, in this order */
    static kv_status (*const families[])(const kv_spec *, kv_error *) = {
        check_csa, check_offload, check_speculative, check_prefix_caching};
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        kv_status st = families[i](s, why);
        if (st != KV_OK)
            return st;
    }
    /* full layers of their own shape: only the hybrid manager keeps them in their own
     * groups, and kvcalc has not read what vLLM does beside Mamba groups */
    if (s->layout.full_kv_heads > 0 || s->layout.full_head_dim > 0) {
        int64_t counts[KV_LAYER_KINDS];
        kv_cache_layer_counts(s, counts);
        if (!v->hybrid_manager || !uses_v1(v) || v->version < HYBRID_ALLOCATOR)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, engine,
                             "full-attention layers of their own head size (global_head_dim, "
                             "num_global_key_value_heads) need the hybrid KV cache manager "
                             "(V1 from 0.10, without --disable-hybrid-kv-cache-manager)");
        if (counts[KV_LAYER_STATE] > 0)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, engine,
                             "kvcalc does not model full layers of their own head size beside "
                             "state layers");
    }
    return KV_OK;
}

/* Whole requests: vLLM's "Maximum concurrency" line rounded down, 0 when it refuses to
 * start (one request of max_model_len does not fit). */
static double whole_requests(const kv_vllm_result *v)
{
    return v->fits ? kvm_floor(v->max_concurrency) : 0.0;
}

kv_status kv_vllm_compute(const kv_spec *s, kv_result *r)
{
    kv_vllm_result *v = &r->vllm;
    kv_status st = vllm_compute_into(s, r, &r->vllm);
    v->no_spec_concurrency = 0;
    if (st == KV_OK && v->spec_method != KV_VLLM_SPEC_NONE) {
        /* what speculation costs: the same start without it */
        kv_spec plain = *s;
        kv_vllm_result base;
        plain.vllm.spec_method = KV_NONE_INT;
        plain.vllm.mtp = 0;
        plain.vllm.num_speculative_tokens = 0;
        memset(&plain.vllm.draft, 0, sizeof plain.vllm.draft);
        /* a measured figure held the draft: its weights come off it, or back to the cache */
        if (plain.vllm.weights_gib.set)
            plain.vllm.weights_gib.value = kvm_fmax(0, plain.vllm.weights_gib.value -
                                                       v->draft_weights_bytes / KV_GIB);
        if (plain.vllm.kv_cache_memory_gib.set)
            plain.vllm.kv_cache_memory_gib.value += v->draft_weights_bytes / KV_GIB;
        if (vllm_compute_into(&plain, r, &base) == KV_OK)
            v->no_spec_concurrency = base.fits ? base.max_concurrency : 0;
    }
    r->max_concurrency = whole_requests(v);
    kv_vllm_version_format(s->vllm.version, r->engine_version, sizeof r->engine_version);
    r->available_kv_bytes = v->available_bytes;
    r->kv_cache_bytes = (double)v->num_gpu_blocks * block_bytes(v);
    r->kv_cache_tokens = v->gpu_kv_cache_tokens;
    if (v->refusal == KV_VLLM_OUT_OF_MEMORY && v->weights_bytes > v->total_bytes) {
        /* the weights never load: vLLM reports no cache (its lines are never printed) */
        r->kv_cache_tokens = 0;
        v->max_concurrency = NAN;
    }
    r->longest_context_fit = v->longest_fit;
    /* V0's swap space: CacheEngine allocates its CPU blocks pinned on every worker
     * (vllm/worker/cache_engine.py, _allocate_kv_cache(num_cpu_blocks, "cpu")) */
    if (!v->v1)
        v->host_pinned_bytes += (double)v->num_cpu_blocks * block_bytes(v) * (double)(s->tp * s->pp);
    r->host_bytes = v->host_pinned_bytes; /* --cpu-offload-gb x GPUs, --kv-offloading-size, swap */
    r->estimated = !s->vllm.kv_cache_memory_gib.set && !s->vllm.num_gpu_blocks_override.set &&
                   (!s->vllm.weights_gib.set || !s->vllm.activation_gib.set ||
                    !s->vllm.non_torch_gib.set);
    return st;
}

double kv_vllm_at(const kv_spec *s, const kv_result *r, int64_t context, double request_bytes)
{
    (void)request_bytes; /* vLLM counts blocks, not bytes */
    kv_spec v = *s;
    kv_vllm_result out;
    v.context = context;
    return vllm_compute_into(&v, r, &out) == KV_OK ? whole_requests(&out) : 0.0;
}

/* ---- re-laying measured figures for another layout -------------------------------------- */

/* A log's readings were taken at from's layout, GPU and settings. At another: the weights
 * are the same checkpoint re-sharded or re-quantized - the reading scaled as kvcalc's
 * estimate of them scales; every other measured term, and a measured KV memory or block
 * count, is carried as its difference from kvcalc's own estimate at from's layout, added to
 * the estimate at to's. Held fixed instead, a TP1 reading would give every layout one pool. */
void kv_vllm_relayout(const kv_spec *from, kv_spec *to, kv_compute_fn compute)
{
    kv_vllm_spec *t = &to->vllm;
    const kv_vllm_spec *f = &from->vllm;
    if (!f->weights_gib.set && !f->activation_gib.set && !f->non_torch_gib.set &&
        !f->cuda_graph_gib.set && !f->kv_cache_memory_gib.set && !f->num_gpu_blocks_override.set)
        return;
    /* kvcalc's estimates at both layouts, with every measured term left out */
    kv_result est_from, est_to;
    kv_spec a = *from, b = *to;
    kv_vllm_spec *ea = &a.vllm, *eb = &b.vllm;
    ea->weights_gib = eb->weights_gib = KV_NONE_NUM;
    ea->activation_gib = eb->activation_gib = KV_NONE_NUM;
    ea->non_torch_gib = eb->non_torch_gib = KV_NONE_NUM;
    ea->cuda_graph_gib = eb->cuda_graph_gib = KV_NONE_NUM;
    ea->kv_cache_memory_gib = eb->kv_cache_memory_gib = KV_NONE_NUM;
    ea->num_gpu_blocks_override = eb->num_gpu_blocks_override = KV_NONE_INT;
    if (compute(&a, &est_from) != KV_OK || compute(&b, &est_to) != KV_OK)
        return; /* the other layout is refused anyway */
    const kv_vllm_result *x = &est_from.vllm, *y = &est_to.vllm;
    if (f->weights_gib.set && x->weights_bytes > 0)
        t->weights_gib.value = f->weights_gib.value * y->weights_bytes / x->weights_bytes;
    if (f->activation_gib.set)
        t->activation_gib.value =
            f->activation_gib.value + (y->activation_bytes - x->activation_bytes) / KV_GIB;
    if (f->non_torch_gib.set)
        t->non_torch_gib.value =
            f->non_torch_gib.value + (y->non_torch_bytes - x->non_torch_bytes) / KV_GIB;
    if (f->cuda_graph_gib.set)
        t->cuda_graph_gib.value =
            f->cuda_graph_gib.value + (y->cuda_graph_bytes - x->cuda_graph_bytes) / KV_GIB;
    double moved = y->available_bytes - x->available_bytes; /* the estimated budget's change */
    if (f->kv_cache_memory_gib.set) {
        double v = f->kv_cache_memory_gib.value + moved / KV_GIB;
        t->kv_cache_memory_gib.value = v > 0 ? v : 0;
    }
    if (f->num_gpu_blocks_override.set && !f->kv_cache_memory_gib.set) {
        /* the measured pool in bytes (blocks x from's block), moved with the budget, in to's
         * blocks */
        double bytes = (double)f->num_gpu_blocks_override.value * block_bytes(x) + moved;
        double block = block_bytes(y);
        double n = bytes > 0 && block > 0 ? kvm_floor(bytes / block) : 0;
        t->num_gpu_blocks_override = n >= 1 && n < TWO_63 ? KV_SOME_INT((int64_t)n) : KV_NONE_INT;
        if (!t->num_gpu_blocks_override.set) /* nothing left: an empty pool */
            t->kv_cache_memory_gib = KV_SOME_NUM(0);
    }
}

double kv_vllm_step_reads(const kv_spec *s, const kv_result *r, double *block_bytes, double *host)
{
    (void)s;
    (void)block_bytes; /* num_gpu_blocks of the cache's bytes: the scheduler's */
    *host = r->vllm.cpu_offload_bytes;
    return r->vllm.weights_bytes;
}

/* V1's scheduler under a workload (vllm/v1/core/sched/scheduler.py, schedule(), and
 * vllm/v1/core/kv_cache_manager.py, allocate_slots(), @ 9aaf83ef5): a step's token budget
 * is max_num_batched_tokens; running requests first, each its known tokens less those
 * computed (chunked by the budget); a request whose blocks are short preempts the last of
 * `running` (FCFS), which is freed, reset to no computed token and put at the front of the
 * waiting queue; waiting requests are admitted only in a step that preempted nothing, while
 * fewer than max_num_seqs run and their first chunk's blocks are free. The pool's first
 * block is the null block (vllm/v1/core/block_pool.py: popped at creation, never freed). */
kv_status kv_vllm_sched(const kv_spec *s, const kv_result *r, kv_sched *out, kv_error *why)
{
    const kv_vllm_result *v = &r->vllm;
    const char *no = NULL;
    if (!v->v1)
        no = "V0's scheduler (its swap and watermark) is not simulated; the workload follows "
             "V1's";
    else if (v->spec_method != KV_VLLM_SPEC_NONE)
        no = "speculative decoding's accepted tokens per step are not modelled in the "
             "workload; leave --speculative-config out";
    else if (!v->fits || v->num_gpu_blocks < 2)
        no = "vLLM would not start with these settings: nothing to simulate";
    if (no)
        return kv_sched_refuse(why, no);
    out->kind = KV_SCHED_PAGED;
    out->engine_title = "vLLM";
    out->rules = "vLLM V1: vllm/v1/core/sched/scheduler.py (schedule) and "
                 "vllm/v1/core/kv_cache_manager.py (allocate_slots) @ 9aaf83ef5";
    out->reserved_blocks = 1;
    out->pool_blocks = v->num_gpu_blocks - out->reserved_blocks;
    for (size_t i = 0; i < v->n_sched_groups; i++)
        out->group[i] = v->sched_groups[i];
    out->n_groups = v->n_sched_groups;
    out->max_seqs = v->max_num_seqs;
    out->max_seqs_name = "max_num_seqs";
    out->max_batched_tokens = v->max_num_batched_tokens;
    out->max_model_len = s->context;
    out->preempt_word = "preemptions";
    out->unit = "blocks";
    /* V1's prefix cache (enable_prefix_caching, on by default): a shared prefix's full blocks
     * are found and shared, and a preempted request finds its own full blocks again while the
     * allocator has not reused them (kv_cache_manager.py get_computed_blocks, block_pool.py);
     * the simulation holds one pool of full-attention blocks */
    out->prefix_caching = prefix_caching_in_force(s) && out->n_groups == 1 && !out->group[0].fixed &&
                          out->group[0].cap_blocks == 0;
    /* (each literal parenthesized: its lines are one string, not three elements) */
    static const char *const left_out[3] = {
        ("prefix hits beyond --shared-prefix-tokens and a preempted request's own blocks "
         "(other prompts distinct), long_prefill_token_threshold, async scheduling; a step "
         "takes one tpot (given or estimated) whatever its batch"),
        ("long_prefill_token_threshold, async scheduling (the prefix cache off: "
         "--no-enable-prefix-caching); a step takes one tpot (given or estimated) whatever "
         "its batch"),
        ("prefix caching (every prompt distinct), long_prefill_token_threshold, async "
         "scheduling; a step takes one tpot (given or estimated) whatever its batch"),
    };
    out->left_out = left_out[out->prefix_caching ? 0 : !prefix_caching_in_force(s) ? 1 : 2];
    return KV_OK;
}
