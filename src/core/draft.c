/*
 * draft.c - a draft model for speculative decoding, summarized for the engines.
 *
 * The engines lay a draft's cache beside the target's: vLLM puts its attention layers into
 * the one KV cache config, llama.cpp gives it a second context, TensorRT-LLM adds its bytes
 * per token. What they share is the draft's shape - layers, KV heads, head size - and its
 * weights, which is all this keeps. A draft with layers of another kind (sliding windows,
 * MLA latents, state) would need each engine's grouping rules for it; it is refused here
 * rather than counted as full attention.
 */
#define KVCALC_ENGINES
#include "internal.h"

#include <string.h>

const char *kv_draft_summarize(const kv_spec *d, const char *name, kv_draft *out)
{
    memset(out, 0, sizeof *out);
    if (kv_core_check(d) != KV_OK)
        return "a shape kvcalc cannot size";
    if (d->arch.unknown[0] && !(d->checkpoint_weights_bytes > 0))
        return "weights kvcalc cannot count";
    if (d->layout.mla)
        return "MLA latents";
    if (d->layout.index_dim > 0)
        return "a sparse-attention indexer";
    if (d->gguf && d->gguf->kv_heads_min != d->gguf->kv_heads_max)
        return "layers of different KV heads";
    if (d->gguf && d->gguf->key_length != d->gguf->value_length)
        return "keys and values of different sizes";
    int64_t counts[KV_LAYER_KINDS];
    kv_cache_layer_counts(d, counts);
    if (counts[KV_LAYER_SLIDING] > 0)
        return "sliding-window layers";
    if (counts[KV_LAYER_CHUNKED] > 0)
        return "chunked-attention layers";
    if (counts[KV_LAYER_STATE] > 0)
        return "state (recurrent) layers";
    if (d->layout.kv_shared_layers > 0 || d->layout.full_kv_heads > 0 ||
        d->layout.full_head_dim > 0)
        return "layers of more than one shape";
    /* the weights unsplit, as the core counts them for one GPU */
    kv_spec one = *d;
    one.tp = one.pp = one.dp = 1;
    kv_result r;
    if (kv_core_compute(&one, &r) != KV_OK)
        return "a shape kvcalc cannot size";
    out->name = name;
    out->layers = counts[KV_LAYER_FULL];
    out->kv_heads = d->kv_heads;
    out->attn_heads = d->arch.known && d->arch.heads > 0 ? d->arch.heads : d->kv_heads;
    out->head_dim = d->head_dim;
    out->vocab = d->arch.vocab;
    out->context_length = d->max_context;
    out->weights_bytes = r.weights_bytes;
    out->weights_estimated = d->params_estimated && !(d->checkpoint_weights_bytes > 0);
    const kv_gguf_info *g = d->gguf;
    double all = d->arch.known ? kv_estimate_params(&d->arch, &d->layout, d->layers, d->kv_heads,
                                                    d->head_dim)
                               : 0;
    double matrix = (double)d->arch.vocab * (double)d->arch.hidden;
    if (g && g->weight_bytes > 0) { /* the file's own tensors, scaled to the weights */
        double scale = r.weights_bytes / g->weight_bytes, blocks = 0;
        for (int64_t i = 0; i < g->block_count && i < KV_GGUF_MAX_LAYERS; i++)
            blocks += g->block_bytes[i];
        out->tied = !(g->output_bytes > 0);
        out->head_bytes = (out->tied ? g->token_embd_bytes : g->output_bytes) * scale;
        out->input_bytes = (g->weight_bytes - blocks - g->output_bytes - g->output_norm_bytes) *
                           scale;
    } else if (all > 0 && matrix > 0 && 2 * matrix < all) {
        out->tied = d->arch.tie_embeddings;
        out->head_bytes = r.weights_bytes * matrix / all;
        out->input_bytes = out->head_bytes; /* the token embedding (no per-layer ones here) */
    }
    return NULL;
}
