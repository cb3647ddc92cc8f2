/*
 * params.c - the parameter count of a model from its config, for the weights estimate.
 *
 * Counts what dominates: embeddings (twice unless tied), per layer the attention or MLA
 * projections, the dense MLP (gated: 3 x hidden x width) or every MoE expert plus shared
 * experts and the router, and the norms. It lands within 2% of the published totals
 * (Llama-3.1-8B 8.03B, Qwen2.5-7B 7.62B, Mixtral-8x7B 46.7B, DeepSeek-V3 671B, gpt-oss-120b
 * 117B; see tests). Doubles are enough: this is an estimate, not the lesson's exact path.
 * State layers count their mixer (Mamba-1 / -2, gated delta net, short convolution: the
 * tensors of the transformers modeling files, listed in mixer_params) beside their MLP and
 * norms; Nemotron-H's blocks (hybrid_override_pattern) are counted one kind per block. The
 * small parts are counted too: q/k norms, attention sinks, Qwen3.5's output gate, DeepSeek
 * sparse attention's indexer. MTP layers are a part of their own, outside the total: engines
 * load them only for speculative decoding. Vision and audio towers (vision_config / audio_config) are counted from their
 * own numbers: encoder blocks, patch and position embeddings, and the projector into the
 * text model, built the way each family builds it (kv_tower_kind).
 */
#include "kvcalc.h"

static double attention_params(const kv_arch *a, int64_t kv_heads, int64_t head_dim)
{
    double h = (double)a->hidden, n = (double)a->heads;
    double kv = (double)kv_heads, d = (double)head_dim;
    double p = h * n * d + 2 * h * kv * d + n * d * h;
    if (a->qkv_bias)
        p += n * d + 2 * kv * d;
    if (a->o_bias)
        p += h;
    return p;
}

/* What attention layers add besides their projections: q/k norms (head_dim each, or with
 * qk_norm 2 the whole projection's: OLMo-2 and -3 norm q over heads x head_dim and k over KV
 * heads x head_dim, transformers' Olmo2Attention), one sink logit per head (gpt-oss:
 * self_attn.sinks), and an output gate that doubles q_proj (Qwen3.5 attn_output_gate:
 * q_proj is hidden x heads x head_dim x 2). */
static double attention_extras(const kv_arch *a, int64_t kv_heads, int64_t head_dim)
{
    double d = (double)head_dim, n = (double)a->heads;
    double norms = a->qk_norm == 2 ? (n + (double)kv_heads) * d : a->qk_norm ? 2 * d : 0;
    return norms + (a->attn_sinks ? n : 0) + (a->attn_gate ? (double)a->hidden * n * d : 0);
}

/* DeepSeek sparse attention's indexer (DeepSeek-V3.2 / GLM-5 `indexer`): wq_b from the q
 * latent to index heads x index dim, wk from hidden to one index key, its LayerNorm (weight
 * and bias), and weights_proj from hidden to one weight per index head. */
static double indexer_params(const kv_arch *a, const kv_layout *l)
{
    if (l->index_dim <= 0 || a->index_heads <= 0)
        return 0;
    double h = (double)a->hidden, d = (double)l->index_dim, n = (double)a->index_heads;
    double q_in = a->q_lora_rank > 0 ? (double)a->q_lora_rank : h;
    return q_in * n * d + h * d + 2 * d + h * n;
}

/* One state layer's mixer, by the tensors of the transformers modeling files:
 * Mamba-2 (NemotronH / Bamba / GraniteMoeHybrid Mamba2Mixer): in_proj hidden x (2 inner +
 *   2 G N + H), conv1d conv_dim x kernel (+ conv_dim bias), A_log / D / dt_bias H each, the
 *   gated RMSNorm inner, out_proj inner x hidden;
 * Mamba-1 (Jamba): in_proj hidden x 2 inner, conv1d inner x kernel (+ bias), x_proj inner x
 *   (dt_rank + 2 N), dt_proj dt_rank x inner + inner, A_log inner x N, D inner, out_proj;
 * gated delta net (Qwen3-Next / Qwen3.5 linear_attn): in_proj_qkvz hidden x (2 Hk Dk +
 *   2 Hv Dv), in_proj_ba hidden x 2 Hv, conv1d conv_dim x kernel, A_log / dt_bias Hv, norm
 *   Dv, out_proj Hv Dv x hidden;
 * short convolution (LFM2 ShortConv): in_proj hidden x 3 hidden, conv hidden x L_cache,
 *   out_proj hidden x hidden;
 * Kimi delta attention (KimiDeltaAttention, the tensors of Kimi-Linear-48B-A3B-Instruct's
 *   checkpoint as a public report lists them, code index file 62691149540): q_proj, k_proj
 *   hidden x Hk Dk, v_proj hidden x H D, their three depthwise convs (q_conv1d ... x kernel),
 *   f_a_proj hidden x D and f_b_proj D x Hk Dk (the decay gate), g_a_proj hidden x D and
 *   g_b_proj D x H D (the output gate), b_proj hidden x H, A_log H and dt_bias Hk Dk (both
 *   float32 in the file), o_norm D, o_proj H D x hidden. */
static double mixer_params(const kv_arch *a)
{
    const kv_mixer *m = &a->mixer;
    double h = (double)a->hidden, k = (double)m->conv_kernel;
    double inner = (double)m->inner, n = (double)m->d_state, g = (double)m->groups;
    double pb = m->proj_bias ? 1 : 0;
    switch (m->kind) {
    case KV_MIXER_MAMBA2: {
        double heads = (double)m->heads, conv = inner + 2 * g * n;
        double in = h * (2 * inner + 2 * g * n + heads) + pb * (2 * inner + 2 * g * n + heads);
        return in + conv * k + (m->conv_bias ? conv : 0) + 3 * heads + (m->no_norm ? 0 : inner) +
               inner * h + pb * h;
    }
    case KV_MIXER_MAMBA1: {
        double r = (double)m->dt_rank;
        return h * 2 * inner + pb * 2 * inner + inner * k + (m->conv_bias ? inner : 0) +
               inner * (r + 2 * n) + r * inner + inner + inner * n + inner + inner * h + pb * h;
    }
    case KV_MIXER_GDN: {
        double kd = (double)(m->key_heads * m->key_dim), vd = (double)(m->value_heads * m->value_dim);
        double hv = (double)m->value_heads;
        return h * (2 * kd + 2 * vd) + h * 2 * hv + (2 * kd + vd) * k + 2 * hv +
               (double)m->value_dim + vd * h;
    }
    case KV_MIXER_SHORT_CONV:
        return h * 3 * h + pb * 3 * h + h * k + (m->conv_bias ? h : 0) + h * h + pb * h;
    case KV_MIXER_KDA: {
        double kd = (double)(m->key_heads * m->key_dim), vd = (double)(m->value_heads * m->value_dim);
        double hv = (double)m->value_heads, d = (double)m->value_dim;
        return h * (2 * kd + vd) + (2 * kd + vd) * k + (h * d + d * kd) + (h * d + d * vd) +
               h * hv + hv + kd + d + vd * h;
    }
    default:
        return 0;
    }
}

static double mla_params(const kv_arch *a)
{
    double h = (double)a->hidden, n = (double)a->heads;
    double qk = (double)(a->qk_nope_dim + a->qk_rope_dim);
    double ql = (double)a->q_lora_rank, kl = (double)a->kv_lora_rank;
    double q = a->q_lora_rank > 0 ? h * ql + ql + ql * n * qk : h * n * qk;
    double kv = h * (kl + (double)a->qk_rope_dim) + kl + kl * n * (double)(a->qk_nope_dim + a->v_head_dim);
    double o = n * (double)a->v_head_dim * h;
    return q + kv + o;
}

int64_t kv_moe_layer_count(const kv_arch *a, int64_t layers)
{
    if (a->experts <= 0)
        return 0;
    int64_t step = a->moe_step >= 1 ? a->moe_step : 1;
    int64_t first = a->first_dense < layers ? a->first_dense : layers;
    return layers / step - first / step;
}

/* ---- towers: a ViT-style encoder and the projector into the text model ------------------ */

static double norm_params(const kv_tower *t, double width)
{
    return t->rms_norm ? width : 2 * width; /* LayerNorm has a bias as well */
}

/* One encoder block: q, k, v, o (square: towers use full multi-head attention), the MLP
 * (fc1 / fc2, or gate / up / down) and two norms. */
static double tower_block(const kv_tower *t)
{
    double h = (double)t->hidden, i = (double)t->intermediate;
    double attn = 4 * h * h + (t->bias ? 4 * h : 0);
    double mlp = t->gated ? 3 * h * i + (t->bias ? 2 * i + h : 0)
                          : 2 * h * i + (t->bias ? i + h : 0);
    /* Gemma-4 norms before and after both attention and MLP, as its text layers do */
    return attn + mlp + (t->kind == KV_TOWER_GEMMA4 ? 4 : 2) * norm_params(t, h);
}

/* One linear layer, in x out, with its bias when the projector has them. */
static double linear(const kv_tower *t, double in, double out)
{
    return in * out + (t->proj_bias ? out : 0);
}

/* What sits around the blocks: the family's extra norms and embeddings, and the projector
 * from the tower's width to the text model's (see kv_tower_kind). */
static double tower_head(const kv_tower *t, double text_hidden)
{
    double h = (double)t->hidden, m = (double)(t->merge >= 1 ? t->merge : 1);
    double merged = h * m * m, out = t->out > 0 ? (double)t->out : text_hidden;
    switch (t->kind) {
    case KV_TOWER_GEMMA4: /* the embedding projection into the text model, no final norm */
        return h * out;
    case KV_TOWER_SIGLIP: /* post_layernorm; mm_soft_emb_norm + mm_input_projection */
        return 2 * h + h + h * out;
    case KV_TOWER_QWEN_VL: { /* the final merger norms h, each deepstack merger merged */
        double mlp = linear(t, merged, merged) + linear(t, merged, out);
        double extra = (double)(t->mergers > 1 ? t->mergers - 1 : 0);
        return norm_params(t, h) + mlp + extra * (norm_params(t, merged) + mlp);
    }
    case KV_TOWER_PIXTRAL: /* ln_pre; projector norm, merging_layer, linear_1, linear_2 */
        return 2 * h + merged * h + linear(t, h, out) + linear(t, out, out);
    case KV_TOWER_LLAMA4: /* class embedding, pre and post norms; adapter fc1 / fc2 (no
                             biases); the projector from the adapter's output */
        return h + 2 * norm_params(t, h) + (double)t->intermediate * (double)t->adapter_in +
               (double)t->adapter_out * (double)t->adapter_out +
               (double)t->adapter_out * out;
    default: /* a final norm and one linear map */
        return norm_params(t, h) + linear(t, merged, out);
    }
}

/* A tower's parameters; 0 when the config did not describe one. */
static double tower_params(const kv_tower *t, double text_hidden)
{
    if (t->hidden <= 0 || t->intermediate <= 0 || t->layers <= 0)
        return 0;
    double h = (double)t->hidden;
    double embed = (double)t->patch_inputs * h + (t->patch_bias && t->patch_inputs ? h : 0) +
                   (double)t->positions * h; /* no patch size (audio): no patch embedding */
    return embed + (double)t->layers * tower_block(t) + tower_head(t, text_hidden);
}

void kv_estimate_param_parts(const kv_arch *a, const kv_layout *layout, int64_t layers,
                             int64_t kv_heads, int64_t head_dim, kv_param_parts *out)
{
    out->embeddings = out->attention = out->dense_mlp = out->experts = out->other = 0;
    out->vision = out->audio = out->mixers = out->mtp = 0;
    if (!a->known)
        return;
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(layout, layers, counts);
    double h = (double)a->hidden;
    /* Nemotron-H counts blocks, each one kind with one norm; others count layers of
     * attention or a mixer, each with an MLP (or MoE) and two norms */
    int blocks = a->blocks_attention + a->blocks_mixer + a->blocks_moe + a->blocks_mlp > 0;
    int64_t attn_layers = blocks                  ? a->blocks_attention
                          : layout->parallel_state ? layers /* attention and a mixer a layer */
                                                   : layers - counts[KV_LAYER_STATE];
    int64_t mixer_layers = blocks ? a->blocks_mixer : counts[KV_LAYER_STATE];
    int64_t all = blocks ? attn_layers + mixer_layers + a->blocks_moe + a->blocks_mlp : layers;
    double mats = a->mlp_plain ? 2 : 3; /* up + down, or gate + up + down */

    double norms = blocks ? 1 : a->norms_per_layer > 0 ? (double)a->norms_per_layer : 2;
    out->embeddings = (double)a->vocab * h * (a->tie_embeddings ? 1 : 2);
    out->other = h + (double)all * norms * h; /* final norm + per-layer norms */
    double attention = layout->mla ? mla_params(a) + indexer_params(a, layout)
                                   : attention_params(a, kv_heads, head_dim);
    attention += attention_extras(a, kv_heads, layout->mla ? 0 : head_dim);
    out->attention = (double)attn_layers * attention;
    if (!layout->mla && !blocks && (layout->full_kv_heads > 0 || layout->full_head_dim > 0)) {
        /* Gemma-4's full layers: their own KV heads and head size; with attention_k_eq_v
         * no v_proj (V is K) */
        int64_t fkv = layout->full_kv_heads > 0 ? layout->full_kv_heads : kv_heads;
        int64_t fd = layout->full_head_dim > 0 ? layout->full_head_dim : head_dim;
        double full = attention_params(a, fkv, fd) + attention_extras(a, fkv, fd);
        if (a->attn_k_eq_v)
            full -= h * (double)fkv * (double)fd + (a->qkv_bias ? (double)(fkv * fd) : 0);
        out->attention += (double)counts[KV_LAYER_FULL] * (full - attention);
    }
    out->mixers = (double)mixer_layers * mixer_params(a);

    int64_t moe = blocks ? a->blocks_moe : kv_moe_layer_count(a, layers);
    double width = (double)(a->moe_intermediate > 0 ? a->moe_intermediate : a->intermediate);
    double e = (double)a->experts;
    double experts = e * mats * h * width + (double)a->shared_experts * mats * h * width +
                     mats * h * (double)a->shared_intermediate;
    /* the router; gpt-oss's experts carry biases, DeepSeek-style routers a score bias */
    double router = h * e + (a->expert_bias ? e * (2 * width + h) + e : 0) +
                    (a->router_bias ? e : 0);
    double dense_width = (double)(a->experts > 0 && a->dense_intermediate > 0
                                      ? a->dense_intermediate
                                      : a->intermediate);
    out->experts = (double)moe * experts;
    out->other += (double)moe * router;
    out->dense_mlp = (double)((blocks ? a->blocks_mlp : layers - moe)) * mats * h * dense_width;
    if (a->moe_with_dense) /* Gemma-4: the MoE layers keep their dense MLP too */
        out->dense_mlp += (double)moe * mats * h * (double)a->intermediate;
    /* Gemma-4's per-layer embeddings (Gemma4Model, gemma4.py @ 28be48fa9): embed_tokens_per_layer
     * vocab_size_per_layer_input x (hidden_size_per_layer_input x layers),
     * per_layer_model_projection hidden x that, per_layer_projection_norm; in each decoder
     * layer per_layer_input_gate hidden x ple, per_layer_projection ple x hidden,
     * post_per_layer_input_norm hidden, and its layer_scalar buffer (loaded with the
     * weights) */
    if (a->ple_dim > 0) {
        double ple = (double)a->ple_dim, total = ple * (double)layers;
        out->embeddings += (double)a->ple_vocab * total;
        out->other += h * total + ple + (double)layers * (2 * h * ple + h + 1);
    }
    /* use_double_wide_mlp: "intermediate_size doubles for" the KV-shared layers */
    if (a->double_wide_mlp && layout->kv_shared_layers > 0)
        out->dense_mlp += (double)layout->kv_shared_layers * mats * h * (double)a->intermediate;
    out->vision = tower_params(&a->vision, h);
    out->audio = tower_params(&a->audio, h);
    if (a->mtp_layers > 0) {
        /* one full decoder layer (attention and the model's MoE or MLP, two norms) per MTP
         * layer, its fc / eh_proj 2 hidden -> hidden and its norms (the embedding and
         * hidden norms, a final norm); DeepSeek-style next-n layers also store their own
         * embedding and output head (model.layers.N.embed_tokens, shared_head.head) */
        double ffn = a->experts > 0 ? experts + router : mats * h * (double)a->intermediate;
        double layer = attention + ffn + 2 * h + 2 * h * h + 3 * h;
        out->mtp = (double)a->mtp_layers *
                   (layer + (a->mtp_own_embeddings ? 2 * (double)a->vocab * h : 0));
    }
}

double kv_parts_params(const kv_param_parts *q)
{
    kv_param_parts p = *q;
    /* towers last: a model without one adds exact zeros, so its count is unchanged */
    return p.embeddings + p.attention + p.dense_mlp + p.experts + p.other + p.vision + p.audio +
           p.mixers;
}

double kv_estimate_params(const kv_arch *a, const kv_layout *layout, int64_t layers,
                          int64_t kv_heads, int64_t head_dim)
{
    kv_param_parts p;
    kv_estimate_param_parts(a, layout, layers, kv_heads, head_dim, &p);
    return kv_parts_params(&p);
}

double kv_parts_weight_bytes(const kv_arch *a, const kv_param_parts *parts, kv_dtype weight_dtype)
{
    kv_param_parts p = *parts;
    double q = a->quant_bytes > 0 ? a->quant_bytes : kv_dtype_get(weight_dtype)->bytes;
    double base = kv_dtype_get(a->base_dtype)->bytes;
    double towers = p.vision + p.audio;
    double all = p.embeddings + p.attention + p.dense_mlp + p.experts + p.other + towers +
                 p.mixers;
    switch (a->quant_scope) {
    case KV_QUANT_LINEAR: /* quantizers skip the towers (modules_to_not_convert) */
        return (p.attention + p.dense_mlp + p.experts + p.mixers) * q +
               (p.embeddings + p.other + towers) * base;
    case KV_QUANT_EXPERTS:
        return p.experts * q + (all - p.experts) * base;
    default:
        return all * kv_dtype_get(weight_dtype)->bytes;
    }
}

double kv_estimate_weight_bytes(const kv_arch *a, const kv_layout *layout, int64_t layers,
                                int64_t kv_heads, int64_t head_dim, kv_dtype weight_dtype)
{
    kv_param_parts p;
    kv_estimate_param_parts(a, layout, layers, kv_heads, head_dim, &p);
    return kv_parts_weight_bytes(a, &p, weight_dtype);
}
