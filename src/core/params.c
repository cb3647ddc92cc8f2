/*
 * params.c - the parameter count of a model from its config, for the weights estimate.
 *
 * Counts what dominates: embeddings (twice unless tied), per layer the attention or MLA
 * projections, the dense MLP (gated: 3 x hidden x width) or every MoE expert plus shared
 * experts and the router, and the norms. It lands within 2% of the published totals
 * (Llama-3.1-8B 8.03B, Qwen2.5-7B 7.62B, Mixtral-8x7B 46.7B, DeepSeek-V3 671B, gpt-oss-120b
 * 117B; see tests). Doubles are enough: this is an estimate, not the lesson's exact path.
 * State layers (Mamba / linear attention) add their MLP and norms; their mixer weights are
 * not counted.
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

/* Layers among [0, layers) that are MoE: i >= first_dense and (i + 1) % step == 0. */
static int64_t moe_layer_count(const kv_arch *a, int64_t layers)
{
    if (a->experts <= 0)
        return 0;
    int64_t step = a->moe_step >= 1 ? a->moe_step : 1;
    int64_t first = a->first_dense < layers ? a->first_dense : layers;
    return layers / step - first / step;
}

void kv_estimate_param_parts(const kv_arch *a, const kv_layout *layout, int64_t layers,
                             int64_t kv_heads, int64_t head_dim, kv_param_parts *out)
{
    out->embeddings = out->attention = out->dense_mlp = out->experts = out->other = 0;
    if (!a->known)
        return;
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(layout, layers, counts);
    int64_t attn_layers = layers - counts[KV_LAYER_STATE];
    double h = (double)a->hidden;

    out->embeddings = (double)a->vocab * h * (a->tie_embeddings ? 1 : 2);
    out->other = h + (double)layers * 2 * h; /* final norm + two norms per layer */
    out->attention = (double)attn_layers *
                     (layout->mla ? mla_params(a) : attention_params(a, kv_heads, head_dim));

    int64_t moe = moe_layer_count(a, layers);
    double width = (double)(a->moe_intermediate > 0 ? a->moe_intermediate : a->intermediate);
    double e = (double)a->experts;
    double experts = e * 3 * h * width + (double)a->shared_experts * 3 * h * width +
                     3 * h * (double)a->shared_intermediate;
    double router = h * e + (a->expert_bias ? e * (2 * width + h) + e : 0);
    double dense_width = (double)(a->experts > 0 && a->dense_intermediate > 0
                                      ? a->dense_intermediate
                                      : a->intermediate);
    out->experts = (double)moe * experts;
    out->other += (double)moe * router;
    out->dense_mlp = (double)(layers - moe) * 3 * h * dense_width;
}

double kv_estimate_params(const kv_arch *a, const kv_layout *layout, int64_t layers,
                          int64_t kv_heads, int64_t head_dim)
{
    kv_param_parts p;
    kv_estimate_param_parts(a, layout, layers, kv_heads, head_dim, &p);
    return p.embeddings + p.attention + p.dense_mlp + p.experts + p.other;
}

double kv_estimate_weight_bytes(const kv_arch *a, const kv_layout *layout, int64_t layers,
                                int64_t kv_heads, int64_t head_dim, kv_dtype weight_dtype)
{
    kv_param_parts p;
    kv_estimate_param_parts(a, layout, layers, kv_heads, head_dim, &p);
    double q = a->quant_bytes > 0 ? a->quant_bytes : kv_dtype_get(weight_dtype)->bytes;
    double base = kv_dtype_get(a->base_dtype)->bytes;
    double all = p.embeddings + p.attention + p.dense_mlp + p.experts + p.other;
    switch (a->quant_scope) {
    case KV_QUANT_LINEAR:
        return (p.attention + p.dense_mlp + p.experts) * q + (p.embeddings + p.other) * base;
    case KV_QUANT_EXPERTS:
        return p.experts * q + (all - p.experts) * base;
    default:
        return all * kv_dtype_get(weight_dtype)->bytes;
    }
}
