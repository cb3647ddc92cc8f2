/*
 * core.c - the pure sizing core: kv_spec in, kv_result out.
 *
 * Every formula follows the lesson's calculator in the same order of operations, so the
 * doubles come out with the same bits (see exact.c for why that takes care):
 *
 *   per_token = float(2 * layers * kv_heads * head_dim) * dtype_bytes
 *   per_req   = per_token * float(context)
 *   weights   = params_b * 1e9 * weight_bytes
 *   free      = gpu_gib * GiB - weights - overhead_gib * GiB
 *   max_conc  = free // per_req                    (Python floor division)
 *   saved     = float((prefix_requests - 1) * prefix_tokens) * per_token
 *   extra     = saved // per_req
 *
 * For models with mixed layers (sliding windows, chunks, MLA, state layers; see layout.c)
 * per_token and per_req are sums over layer groups; with the lesson's plain model there is
 * one group and the formulas above hold to the bit.
 *
 * No I/O and no globals here, and no engine: the sizing layer (src/sizing) runs the core
 * and then the chosen engine.
 */
#include "internal.h"
#include "kvprint.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The lesson's defaults of every core input (the sizing layer adds the engine). */
void kv_core_defaults(kv_spec *s)
{
    s->layers = 28;
    s->kv_heads = 4;
    s->head_dim = 128;
    s->dtype = KV_DTYPE_FP16;
    s->params_b = 7.0;
    s->weight_dtype = KV_DTYPE_FP16;
    s->gpu_mem_gib = 48.0;
    s->overhead_gib = 2.0;
    s->context = 4096;
    s->prefix_tokens = 1024;
    s->prefix_requests = 50;
    memset(&s->layout, 0, sizeof s->layout);
    memset(&s->arch, 0, sizeof s->arch);
    s->arch.base_dtype = KV_DTYPE_FP16;
    s->params_estimated = 0;
    s->quantization = KV_QUANTIZATION_NONE;
    s->tp = 1;
    s->pp = 1;
    s->dp = 1;
    s->expert_parallel = 0;
    s->host_mem_gib.set = 0;
    s->host_mem_gib.value = 0;
    s->pp_stage = -1;
    s->model_name = NULL;
    s->model_source = NULL;
    s->gpu_name = NULL;
    s->gpu_device_names = NULL;
    s->gpu_mem_estimated = 0;
    s->gpu_engine_gib = 0;
    s->max_context = 0;
    s->checkpoint_weights_bytes = 0;
    s->checkpoint_params = 0;
    s->weights_source = KV_WEIGHTS_GIVEN;
    s->checkpoint_tower_bytes = 0;
    s->checkpoint_mtp_bytes = 0;
    s->gguf = NULL;
}

static const char *const status_messages[KV_STATUS_COUNT] = {
    [KV_OK] = "ok",
    [KV_ERR_LAYERS] = "must be an integer >= 1",
    [KV_ERR_KV_HEADS] = "must be an integer >= 1",
    [KV_ERR_HEAD_DIM] = "must be an integer >= 1",
    [KV_ERR_DTYPE] = "unknown dtype",
    [KV_ERR_PARAMS_B] = "must be a finite number >= 0 whose weights in bytes "
                        "(params x 1e9 x dtype bytes) stay a finite double",
    [KV_ERR_WEIGHT_DTYPE] = "unknown dtype",
    [KV_ERR_GPU_MEM] = "must be a finite number > 0 whose size in bytes stays a finite double",
    [KV_ERR_OVERHEAD] = "must be a finite number >= 0 whose size in bytes stays a finite "
                        "double",
    [KV_ERR_CONTEXT] = "must be an integer >= 1",
    [KV_ERR_PREFIX_TOKENS] = "must be an integer >= 0",
    [KV_ERR_PREFIX_REQUESTS] = "must be an integer >= 1",
    [KV_ERR_MEMORY_RANGE] = "GPU memory minus weights minus overhead is not a finite number",
    [KV_ERR_LAYOUT] = "the model layout is out of range (pattern, window, chunk or latent size)",
    [KV_ERR_TP] = "must be an integer >= 1 that divides the attention heads and divides or is a "
                  "multiple of the KV heads",
    [KV_ERR_PARALLEL] = "must be an integer >= 1 (pipeline stages: at most one per layer)",
    [KV_ERR_ENGINE_UNKNOWN] = "unknown engine",
    [KV_ERR_ENGINE_INPUT] = "the engine refuses an input: out of its range, or against a rule "
                            "it enforces",
    [KV_ERR_RANGE] = "a block, token or GPU count exceeds 2^63 - 1; kvcalc refuses rather than "
                     "cap it",
    [KV_ERR_TARGET] = "the plan needs more than 2^63 - 1 GPUs; kvcalc refuses rather than cap "
                      "the count",
    [KV_ERR_FILE] = "the file cannot be read",
    [KV_ERR_FORMAT] = "the file is not in the form expected",
    [KV_ERR_NOT_FOUND] = "not known",
    [KV_ERR_NO_MEMORY] = "out of memory",
    [KV_ERR_WEIGHTS_UNKNOWN] = "the weights cannot be counted from the model's config: give "
                               "--params-b",
    [KV_ERR_WORKLOAD] = "the workload cannot be simulated",
};

const char *kv_status_message(kv_status st)
{
    if ((unsigned)st >= KV_STATUS_COUNT || !status_messages[st])
        return "unknown error";
    return status_messages[st];
}

int kv_tp_valid(const kv_spec *s, int64_t tp)
{
    if (tp < 1)
        return 0;
    if (s->arch.heads > 0 && s->arch.heads % tp != 0)
        return 0;
    if (!s->layout.mla && s->kv_heads % tp != 0 && tp % s->kv_heads != 0)
        return 0;
    return 1;
}

kv_status kv_core_check_layout(const kv_spec *s)
{
    const kv_layout *l = &s->layout;
    int64_t counts[KV_LAYER_KINDS];
    if (l->pattern_len > KV_MAX_PATTERN)
        return KV_ERR_LAYOUT;
    for (size_t i = 0; i < l->pattern_len; i++)
        if (l->pattern[i] >= KV_LAYER_KINDS)
            return KV_ERR_LAYOUT;
    kv_layer_counts(l, s->layers, counts);
    if ((counts[KV_LAYER_SLIDING] > 0 && l->window < 1) ||
        (counts[KV_LAYER_CHUNKED] > 0 && l->chunk < 1) || (l->mla && l->mla_latent < 1))
        return KV_ERR_LAYOUT;
    /* DeepSeek-V4's compressed layers are a layout of their own: every layer windowed, some
     * compressed, one latent head wider than its RoPE part */
    if (l->csa_c4 < 0 || l->csa_c128 < 0 || l->csa_index_dim < 0 || l->csa_window < 0)
        return KV_ERR_LAYOUT;
    if (l->csa_c4 + l->csa_c128 > 0 &&
        (l->csa_c4 > s->layers || l->csa_c128 > s->layers - l->csa_c4 || l->csa_window < 1 ||
         (l->csa_c4 > 0 && l->csa_index_dim < 1) || l->mla || l->pattern_len > 0 ||
         s->kv_heads != 1 || s->arch.qk_rope_dim < 0 || s->arch.qk_rope_dim >= s->head_dim))
        return KV_ERR_LAYOUT;
    return KV_OK;
}

/* Rejects what the formulas cannot take. The parser checks the same bounds per flag so it
 * can quote the user's text; this is the core's own guard for library callers. */
kv_status kv_core_check(const kv_spec *s)
{
    if (s->layers < 1)
        return KV_ERR_LAYERS;
    if (s->kv_heads < 1)
        return KV_ERR_KV_HEADS;
    if (s->head_dim < 1)
        return KV_ERR_HEAD_DIM;
    if ((unsigned)s->dtype >= KV_DTYPE_COUNT)
        return KV_ERR_DTYPE;
    if (!(s->params_b >= 0) || !isfinite(s->params_b))
        return KV_ERR_PARAMS_B;
    /* a config whose weights the estimate cannot count is never sized with params_b's
     * default: the caller gives params_b (kv_spec_set() clears arch.unknown) or a
     * checkpoint's own bytes */
    if (s->arch.unknown[0] && !s->params_estimated && !(s->checkpoint_weights_bytes > 0))
        return KV_ERR_WEIGHTS_UNKNOWN;
    if ((unsigned)s->weight_dtype >= KV_DTYPE_COUNT)
        return KV_ERR_WEIGHT_DTYPE;
    if (!(s->gpu_mem_gib > 0) || !isfinite(s->gpu_mem_gib))
        return KV_ERR_GPU_MEM;
    if (!(s->overhead_gib >= 0) || !isfinite(s->overhead_gib))
        return KV_ERR_OVERHEAD;
    if (s->context < 1)
        return KV_ERR_CONTEXT;
    if (s->prefix_tokens < 0)
        return KV_ERR_PREFIX_TOKENS;
    if (s->prefix_requests < 1)
        return KV_ERR_PREFIX_REQUESTS;
    if (!kv_tp_valid(s, s->tp))
        return KV_ERR_TP;
    /* (a stage's spec holds its own layers: the "a stage per layer at most" rule is the
     * whole replica's) */
    if (s->pp < 1 || (s->pp_stage < 0 && s->pp > s->layers) || s->dp < 1 ||
        s->pp_stage >= s->pp)
        return KV_ERR_PARALLEL;
    return KV_OK;
}

/* free // per_request, or 0 when there is no room: concurrency cannot be negative. */
static double concurrency(double free_bytes, int room, double per_request)
{
    return room ? kv_floordiv(free_bytes, per_request) : 0.0;
}

/* What doubling the context does, from the groups: only full layers keep growing. */
static kv_growth growth_of(const kv_result *r)
{
    int full = 0, other = 0;
    for (size_t i = 0; i < r->n_groups; i++) {
        if (r->groups[i].kind == KV_LAYER_FULL)
            full = 1;
        else if (r->groups[i].kind != KV_LAYER_STATE || r->groups[i].bytes_fixed > 0)
            other = 1;
    }
    return !full ? KV_GROWTH_FIXED : other ? KV_GROWTH_CAPPED : KV_GROWTH_LINEAR;
}

/* Bytes of the MoE experts among the weights: the estimate's share (a checkpoint's bytes are
 * split in the proportion the architecture gives); 0 for a dense or unknown model. */
double kv_core_expert_bytes(const kv_spec *s, double weights_group)
{
    if (!s->arch.known || s->arch.experts <= 0)
        return 0;
    kv_param_parts p;
    kv_estimate_param_parts(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim, &p);
    double all = kv_estimate_params(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim);
    return all > 0 ? weights_group * p.experts / all : 0;
}

/* The weights of the whole model and of one GPU. */
static kv_status size_weights(const kv_spec *s, kv_result *r)
{
    if (s->checkpoint_weights_bytes > 0) { /* the checkpoint's own tensors (GGUF) */
        r->params = s->checkpoint_params > 0 ? s->checkpoint_params : s->params_b * 1e9;
        r->weights_bytes_group = s->checkpoint_weights_bytes;
    } else if (s->params_estimated) { /* the parts once, for both (a sweep sizes them per point) */
        kv_param_parts parts;
        kv_estimate_param_parts(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim, &parts);
        r->params = kv_parts_params(&parts);
        r->weights_bytes_group = kv_parts_weight_bytes(&s->arch, &parts, s->weight_dtype);
    } else {
        r->params = s->params_b * 1e9;
        r->weights_bytes_group = r->params * kv_dtype_get(s->weight_dtype)->bytes;
    }
    if (!isfinite(r->weights_bytes_group))
        return KV_ERR_PARAMS_B;
    /* tensor parallelism shards the weights evenly (tp == 1 leaves the lesson's bits alone) */
    r->weights_bytes = s->tp == 1 ? r->weights_bytes_group : r->weights_bytes_group / (double)s->tp;
    if (s->expert_parallel && s->dp > 1) /* experts spread over tp x dp GPUs, not tp */
        r->weights_bytes -= kv_core_expert_bytes(s, r->weights_bytes_group) / (double)s->tp *
                            (1.0 - 1.0 / (double)s->dp);
    return KV_OK;
}

/* ---- pipeline parallelism: one stage at a time ---- */

int64_t kv_pp_stage_layers(int64_t layers, int64_t pp, int64_t stage, int64_t *first)
{
    int64_t base = layers / pp, extra = layers % pp;
    /* stages pp-1-extra .. pp-2 get one more layer (vLLM's get_pp_indices) */
    int64_t lo = pp - 1 - extra;
    *first = stage * base + (stage > lo ? stage - lo : 0);
    return base + (stage >= lo && stage < pp - 1);
}

/* Bytes of the input embedding and of the output head (0 when the architecture is unknown):
 * the first stage holds the one, the last the other. */
static void embedding_bytes(const kv_spec *s, double *input, double *head)
{
    double b = kv_dtype_get(s->arch.base_dtype)->bytes;
    *input = *head = 0;
    if (!s->arch.known || s->arch.vocab <= 0 || s->arch.hidden <= 0)
        return;
    *input = (double)s->arch.vocab * (double)s->arch.hidden * b;
    *head = *input; /* tied or not, the last stage holds its own copy of the head */
}

/* The spec of stage i: its layers (the layout rotated to its first layer), the weights it
 * holds (its share of the layers' weights, plus the embedding on the first stage and the
 * head on the last) as a checkpoint's bytes, one stage. */
void kv_core_stage_spec(const kv_spec *s, const kv_result *whole, int64_t i, kv_spec *out)
{
    int64_t first, n = kv_pp_stage_layers(s->layers, s->pp, i, &first);
    double in, head;
    embedding_bytes(s, &in, &head);
    double body = whole->weights_bytes_group - in - (s->arch.tie_embeddings ? 0 : head);
    *out = *s;
    out->layers = n;
    if (s->layout.pattern_len > 0)
        for (size_t j = 0; j < s->layout.pattern_len; j++)
            out->layout.pattern[j] =
                s->layout.pattern[(size_t)(first + (int64_t)j) % s->layout.pattern_len];
    out->checkpoint_weights_bytes = body * (double)n / (double)s->layers +
                                    (i == 0 ? in : 0) + (i == s->pp - 1 ? head : 0);
    out->checkpoint_params = 0;
    out->params_estimated = 0;
    out->pp_stage = i;
}

kv_status kv_core_compute(const kv_spec *s, kv_result *r)
{
    kv_status st;
    kv_fill_groups(s, r);
    r->growth = growth_of(r);
    r->kv_heads_per_gpu = kv_heads_per_gpu(s);
    r->kv_bytes_per_token = 0;
    r->kv_bytes_first_token = 0;
    for (size_t i = 0; i < r->n_groups; i++) {
        if (r->groups[i].kind == KV_LAYER_FULL)
            r->kv_bytes_per_token = r->groups[i].bytes_per_token;
        r->kv_bytes_first_token += r->groups[i].bytes_per_token;
    }
    r->kv_bytes_per_request = kv_groups_request_bytes(r, s->context);

    if ((st = size_weights(s, r)) != KV_OK)
        return st;
    r->kv_bytes_per_request_group = r->kv_bytes_per_request * (double)s->tp;
    r->gpu_mem_bytes = s->gpu_mem_gib * KV_GIB;
    if (!isfinite(r->gpu_mem_bytes))
        return KV_ERR_GPU_MEM;
    r->overhead_bytes = s->overhead_gib * KV_GIB;
    if (!isfinite(r->overhead_bytes))
        return KV_ERR_OVERHEAD;
    r->free_kv_bytes = r->gpu_mem_bytes - r->weights_bytes - r->overhead_bytes;
    if (!isfinite(r->free_kv_bytes))
        return KV_ERR_MEMORY_RANGE;
    r->room = r->free_kv_bytes > 0;
    r->ideal_max_concurrency = concurrency(r->free_kv_bytes, r->room, r->kv_bytes_per_request);
    r->ideal_fits = r->ideal_max_concurrency >= 1;
    r->kv_bytes_in_use = r->ideal_max_concurrency * r->kv_bytes_per_request;
    r->kv_bytes_unused = r->room ? r->free_kv_bytes - r->kv_bytes_in_use : 0;

    r->prefix_saved_bytes =
        kv_groups_prefix_bytes(r, s->prefix_requests - 1, s->prefix_tokens, s->context,
                               &r->prefix_clipped);
    r->prefix_extra_concurrency =
        concurrency(r->prefix_saved_bytes, r->room, r->kv_bytes_per_request);
    return KV_OK;
}

/* --quantization METHOD: what each method stores its weights in, and which weights. */
static const struct {
    kv_dtype dtype;
    kv_quant_scope scope;
    double bytes; /* per quantized weight when not a plain dtype's */
} quantization_rules[KV_QUANTIZATION_COUNT] = {
    [KV_QUANTIZATION_FP8] = {KV_DTYPE_FP8, KV_QUANT_LINEAR, 0},
    [KV_QUANTIZATION_INT8] = {KV_DTYPE_INT8, KV_QUANT_LINEAR, 0},
    /* 4-bit values plus, per group of 128, an fp16 scale and a 4-bit zero point */
    [KV_QUANTIZATION_AWQ] = {KV_DTYPE_INT4, KV_QUANT_LINEAR, 0.5 + 2.5 / 128},
    [KV_QUANTIZATION_GPTQ] = {KV_DTYPE_INT4, KV_QUANT_LINEAR, 0.5 + 2.5 / 128},
    /* nf4 plus, per block of 64, an 8-bit scale (double quantization: 4.125 bits) */
    [KV_QUANTIZATION_BITSANDBYTES] = {KV_DTYPE_INT4, KV_QUANT_LINEAR, 0.5 + 1.0 / 64},
    [KV_QUANTIZATION_MXFP4] = {KV_DTYPE_INT4, KV_QUANT_EXPERTS, 0.53125},
};

/* The checkpoint is stored as --quantization says: its linear layers (mxfp4: the experts)
 * in the method's type, the rest in the model's dtype - unlike --weight-dtype, which puts
 * every weight in one dtype. A checkpoint's own tensor bytes give way to it. */
void kv_quantization_apply(kv_spec *s)
{
    if (s->quantization < 0 || s->quantization >= KV_QUANTIZATION_COUNT)
        return;
    s->weight_dtype = quantization_rules[s->quantization].dtype;
    s->arch.quant_scope = quantization_rules[s->quantization].scope;
    s->arch.quant_bytes = quantization_rules[s->quantization].bytes;
}

kv_status kv_refuse(kv_error *why, kv_status st, const struct kv_param *blamed,
                    const char *fmt, ...)
{
    if (!why)
        return st;
    va_list ap;
    why->code = st;
    why->blamed = blamed;
    va_start(ap, fmt);
    kv_vsnprintf(why->msg, sizeof why->msg, fmt, ap);
    va_end(ap);
    return st;
}

size_t kv_uint_digits(char *buf, uint64_t v)
{
    char tmp[20]; /* 2^64 - 1 has 20 digits */
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

int kv_release_spell(int version, int patch_always, char *buf, size_t cap)
{
    if (version < 0 || cap < 16) /* "0.21474836.47" and its terminator fit 16 */
        return 0;
    size_t n = 2;
    buf[0] = '0';
    buf[1] = '.';
    n += kv_uint_digits(buf + n, (uint64_t)(version / 100));
    if (patch_always || version % 100) {
        buf[n++] = '.';
        n += kv_uint_digits(buf + n, (uint64_t)(version % 100));
    }
    buf[n] = '\0';
    return 1;
}
