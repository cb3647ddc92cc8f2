/*
 * layout.c - from a model's layer layout to groups of layers that keep the context alike.
 *
 * A layout is a repeating pattern of layer kinds (full, sliding, chunked, state). Counting
 * each kind is arithmetic on the pattern, never a loop over layers, so a spec with two
 * billion layers costs the same as one with 28. The per-token bytes of a group follow the
 * lesson's formula exactly (2 x count x kv_heads x head_dim as an exact integer, rounded
 * once, times the dtype bytes); for the lesson's plain model there is one full group and
 * every number is the lesson's.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

#include "kvmath.h"

void kv_layer_counts(const kv_layout *layout, int64_t layers, int64_t counts[KV_LAYER_KINDS])
{
    for (int k = 0; k < KV_LAYER_KINDS; k++)
        counts[k] = 0;
    if (layout->pattern_len == 0) {
        counts[KV_LAYER_FULL] = layers;
    } else {
        int64_t period = (int64_t)layout->pattern_len;
        int64_t whole = layers / period, rest = layers % period;
        for (int64_t i = 0; i < period; i++) {
            unsigned k = layout->pattern[i];
            if (k < KV_LAYER_KINDS)
                counts[k] += whole + (i < rest ? 1 : 0);
        }
    }
    /* a parallel hybrid's layer keeps its state beside its attention cache: the state kind
     * holds every layer (the counts then add up to more than `layers`) */
    if (layout->parallel_state)
        counts[KV_LAYER_STATE] = layers;
}

void kv_cache_layer_counts(const kv_spec *s, int64_t counts[KV_LAYER_KINDS])
{
    int64_t shared = s->layout.kv_shared_layers;
    kv_layer_counts(&s->layout, shared > 0 && shared < s->layers ? s->layers - shared : s->layers,
                    counts);
}

void kv_layer_shape(const kv_spec *s, kv_layer_kind k, int64_t *kv_heads, int64_t *head_dim)
{
    int64_t h = s->kv_heads, d = s->head_dim;
    if (k == KV_LAYER_FULL && !s->layout.mla) {
        h = s->layout.full_kv_heads > 0 ? s->layout.full_kv_heads : h;
        d = s->layout.full_head_dim > 0 ? s->layout.full_head_dim : d;
    }
    if (!s->layout.mla && s->tp > 1)
        h = h / s->tp < 1 ? 1 : h / s->tp;
    *kv_heads = h;
    *head_dim = d;
}

int64_t kv_heads_per_gpu(const kv_spec *s)
{
    if (s->layout.mla || s->tp <= 1)
        return s->kv_heads; /* an MLA latent is not split: every rank holds all of it */
    int64_t h = s->kv_heads / s->tp;
    return h < 1 ? 1 : h; /* more ranks than KV heads: heads are replicated */
}

/* Bytes one token costs in `count` attention layers on one GPU: the lesson's 2 x count x
 * kv_heads x head_dim x dtype, or count x latent x dtype for MLA (one latent vector, no
 * separate K and V), with DeepSeek sparse attention's indexer key beside the latent (its
 * own dtype is each engine's; the lesson's model keeps it in the KV dtype). */
static double attention_bytes_per_token(const kv_spec *s, kv_layer_kind kind, int64_t count,
                                        double elem)
{
    if (s->layout.mla) {
        const uint64_t f[2] = {(uint64_t)count,
                               (uint64_t)(s->layout.mla_latent + s->layout.index_dim)};
        return kv_exact_product(f, 2) * elem;
    }
    int64_t heads, dim;
    kv_layer_shape(s, kind, &heads, &dim);
    const kv_gguf_info *g = s->gguf;
    if (g && g->kv_heads_min != g->kv_heads_max) {
        /* a GGUF whose layers keep different KV head counts (head_count_kv an array:
         * OpenELM, DeciLM): each layer its own (llama.cpp's n_embd_k_gqa(il)), split by TP -
         * when the spec's layers of this kind are the file's (not one pipeline stage's) */
        double sum = 0;
        int64_t n = 0;
        for (int64_t i = 0; i < g->layer_count && i < KV_GGUF_MAX_LAYERS; i++)
            if (g->layer_kind[i] == (unsigned char)kind && g->layer_kv_heads[i] > 0) {
                int64_t h = g->layer_kv_heads[i];
                if (s->tp > 1)
                    h = h / s->tp < 1 ? 1 : h / s->tp;
                sum += (double)h;
                n++;
            }
        if (n == count)
            return 2.0 * sum * (double)dim * elem;
    }
    const uint64_t f[4] = {2, (uint64_t)count, (uint64_t)heads, (uint64_t)dim};
    return kv_exact_product(f, 4) * elem;
}

/* Tokens a layer of group g keeps of a request of `tokens` tokens. */
static int64_t tokens_held(const kv_group *g, int64_t tokens)
{
    return (g->tokens_max > 0 && g->tokens_max < tokens) ? g->tokens_max : tokens;
}

/* KV bytes of one request of `context` tokens in the layers of group g. */
static double group_request_bytes(const kv_group *g, int64_t context)
{
    if (g->kind == KV_LAYER_STATE)
        return g->bytes_fixed;
    return g->bytes_per_token * (double)tokens_held(g, context);
}

void kv_csa_bytes_of(const kv_spec *s, kv_csa_bytes *out)
{
    double d = (double)s->head_dim, rope = (double)s->arch.qk_rope_dim, nope = d - rope;
    double ix = (double)s->layout.csa_index_dim;
    out->entry = nope + 2 * rope + kvm_floor(nope / 64) + 1;
    out->index_key = ix + kvm_floor(ix / 128) * 4;
    out->c4_state = 2 * 2 * d * 4;
    out->c128_state = 2 * 1 * d * 4;
    out->index_state = 2 * 2 * ix * 4;
}

/* DeepSeek-V4: what one request holds, packed perfectly (the lesson's engine). The
 * compressed latents grow one entry for every 4 or 128 tokens (an indexer key beside each of
 * the 4:1 ones); every layer's window holds its last csa_window tokens; each compressor keeps
 * the float32 state of its last 2 x 4 (4:1, and the indexer's) or 128 tokens (128:1) whatever
 * the context. Not split by TP: the latent is one head, replicated on every rank. */
static void csa_groups(const kv_spec *s, kv_result *r)
{
    const kv_layout *l = &s->layout;
    kv_csa_bytes b;
    kv_csa_bytes_of(s, &b);
    double c4 = (double)l->csa_c4, c128 = (double)l->csa_c128;
    kv_group *g = &r->groups[0];
    memset(r->groups, 0, 3 * sizeof *r->groups);
    g[0].kind = KV_LAYER_FULL;
    g[0].count = l->csa_c4 + l->csa_c128;
    g[0].bytes_per_token = c4 * (b.entry + b.index_key) / 4 + c128 * b.entry / 128;
    g[1].kind = KV_LAYER_SLIDING;
    g[1].count = s->layers;
    g[1].tokens_max = l->csa_window;
    g[1].bytes_per_token = (double)s->layers * b.entry;
    g[2].kind = KV_LAYER_STATE;
    g[2].count = l->csa_c4 + l->csa_c128;
    g[2].bytes_fixed = c4 * 8 * (b.c4_state + b.index_state) + c128 * 128 * b.c128_state;
    r->n_groups = 3;
    r->state_unknown = 0;
    for (size_t i = 0; i < 3; i++)
        g[i].bytes_per_request = group_request_bytes(&g[i], s->context);
}

double kv_state_elem_bytes(const kv_spec *s)
{
    return kv_dtype_get(s->arch.known ? s->arch.base_dtype : s->dtype)->bytes;
}

/* Fills r->groups (non-empty kinds, in kind order) for spec s. */
void kv_fill_groups(const kv_spec *s, kv_result *r)
{
    if (s->layout.csa_c4 + s->layout.csa_c128 > 0) {
        csa_groups(s, r);
        return;
    }
    int64_t counts[KV_LAYER_KINDS];
    const double elem = kv_dtype_get(s->dtype)->bytes;
    kv_cache_layer_counts(s, counts);
    r->n_groups = 0;
    r->state_unknown = 0;
    for (int k = 0; k < KV_LAYER_KINDS; k++) {
        if (counts[k] == 0)
            continue;
        kv_group *g = &r->groups[r->n_groups++];
        g->kind = (kv_layer_kind)k;
        g->count = counts[k];
        g->tokens_max = k == KV_LAYER_SLIDING ? s->layout.window
                      : k == KV_LAYER_CHUNKED ? s->layout.chunk
                                              : 0;
        g->bytes_per_token = 0;
        g->bytes_fixed = 0;
        int attention = k != KV_LAYER_STATE && !s->layout.mla;
        g->kv_heads = g->head_dim = 0;
        if (attention)
            kv_layer_shape(s, (kv_layer_kind)k, &g->kv_heads, &g->head_dim);
        if (k == KV_LAYER_STATE) {
            if (s->layout.state_elems < 0) {
                r->state_unknown = 1;
            } else {
                /* a state's heads and channels are split across the TP ranks; a config that
                 * asks for a float32 SSM state (mamba_ssm_cache_dtype) keeps it so */
                int64_t per_gpu = s->layout.state_elems / (s->tp > 0 ? s->tp : 1);
                const uint64_t f[2] = {(uint64_t)counts[k], (uint64_t)per_gpu};
                double se = kv_state_elem_bytes(s); /* the model's dtype, not the KV's */
                if (s->layout.state_ssm_f32 && s->layout.state_conv_elems > 0) {
                    double conv, ssm;
                    kv_state_per_rank(s, s->tp, &conv, &ssm);
                    g->bytes_fixed = (double)counts[k] * (conv * se + ssm * 4.0);
                } else {
                    g->bytes_fixed = kv_exact_product(f, 2) * se;
                }
            }
        } else {
            g->bytes_per_token = attention_bytes_per_token(s, (kv_layer_kind)k, counts[k], elem);
        }
        g->bytes_per_request = group_request_bytes(g, s->context);
    }
}

/* Sum of per-group terms. The first term is taken as is (no 0.0 + x), so a single full
 * group gives exactly the lesson's per_token x context. */
double kv_groups_request_bytes(const kv_result *r, int64_t context)
{
    double total = 0;
    for (size_t i = 0; i < r->n_groups; i++) {
        const kv_group *g = &r->groups[i];
        double term = group_request_bytes(g, context);
        total = (i == 0) ? term : total + term;
    }
    return total;
}

double kv_groups_prefix_bytes(const kv_result *r, int64_t sharers, int64_t prefix_tokens,
                              int64_t context, int *clipped)
{
    double total = 0;
    *clipped = 0;
    int first = 1;
    for (size_t i = 0; i < r->n_groups; i++) {
        const kv_group *g = &r->groups[i];
        if (g->kind == KV_LAYER_STATE)
            continue; /* a state is per request, not per token: nothing to share */
        /* full layers share the whole prefix (the lesson's formula, not clipped to the
         * context); a windowed layer shares only the prefix tokens it still holds at the
         * context: [max(0, C - W), C) for a window W, the current chunk
         * [floor((C - 1) / K) x K, C) for a chunk K */
        int64_t kept = prefix_tokens;
        if (g->kind != KV_LAYER_FULL && g->tokens_max > 0) {
            int64_t from = g->kind == KV_LAYER_CHUNKED
                               ? (context - 1) / g->tokens_max * g->tokens_max
                               : (context > g->tokens_max ? context - g->tokens_max : 0);
            int64_t to = prefix_tokens < context ? prefix_tokens : context;
            kept = to > from ? to - from : 0;
            *clipped |= kept < prefix_tokens;
        }
        const uint64_t f[2] = {(uint64_t)sharers, (uint64_t)kept};
        double term = kv_exact_product(f, 2) * g->bytes_per_token;
        total = first ? term : total + term;
        first = 0;
    }
    return total;
}

void kv_state_per_rank(const kv_spec *s, int64_t tp, double *conv, double *ssm)
{
    const kv_layout *l = &s->layout;
    const kv_mixer *m = &s->arch.mixer;
    *conv = *ssm = 0;
    if (l->state_elems <= 0)
        return;
    double t = (double)(tp > 0 ? tp : 1);
    double c = (double)l->state_conv_elems, all = (double)l->state_elems;
    if (m->kind == KV_MIXER_MAMBA2 && m->groups > 0 && tp > 1 && m->groups % tp != 0) {
        /* n_groups + extra_groups_for_head_shards(): groups replicated to tp shards */
        double g = (double)(m->groups + (tp - m->groups % tp));
        double k = (double)(m->conv_kernel - 1);
        *conv = kvm_floor(((double)m->inner + 2 * g * (double)m->d_state) / t) * k;
        *ssm = kvm_floor((all - c) / t);
        return;
    }
    *conv = kvm_floor(c / t);
    *ssm = kvm_floor((all - c) / t);
}
