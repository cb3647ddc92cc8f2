/*
 * sglang.c - what SGLang's token pool holds, and what it prints at startup.
 *
 * The rules are docs/sglang.md's (restated from SGLang's sources and checked against real
 * startup logs): the pool gets what was free after the weights loaded (A) minus a headroom
 * of (1 - mem_fraction_static) of what was free before (P); that budget divided by the
 * bytes one token costs in every attention layer of one rank is max_total_num_tokens,
 * capped by --max-total-tokens and floored to whole pages. Every request then takes whole
 * pages of that one pool. Without a log kvcalc estimates P and A from the GPU and the
 * weights, and the result says so. Pure: no I/O, no globals.
 */
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kvmath.h"
#include "kvprint.h"

/* A version as one ordered number: ((major x 100 + minor) x 100 + patch) x 100 + suffix,
 * where the suffix is N for rcN (N < 40), 40 for the release and 41 + N for .postN, so that
 * 0.5.3rc0 < 0.5.3rc2 < 0.5.3 < 0.5.3.post1 compare as numbers. */
#define SUFFIX_FINAL 40
#define V(a, b, c) ((((a) * 100 + (b)) * 100 + (c)) * 100 + SUFFIX_FINAL)
#define POST(v, n) ((v) + 1 + (n))
#define RC(v, n) ((v) - SUFFIX_FINAL + (n))

#define SGLANG_DEFAULT_VERSION V(0, 5, 6)
/* --cpu-offload-gb: "Add simple CPU offloading support" (#2081), in again as 8b48496aa
 * (2024-11-28) after a revert, first in the 0.3.6.post3 bump (fae4e5e99; the
 * modal-projects/sglang mirror) */
#define CPU_OFFLOAD POST(V(0, 3, 6), 3)
#define CUDA_CONTEXT_GIB 1.0 /* driver total minus free before load, TP1 (estimate) */
#define NCCL_GIB 0.5         /* more of it with TP: communication buffers (estimate) */

/* Every optional input "not given": the version's rule, or kvcalc's estimate. */
static void sglang_defaults(kv_spec *s)
{
    kv_sglang_spec *g = &s->sglang;
    g->page_size = 1;
    g->version = SGLANG_DEFAULT_VERSION;
    g->max_loras_per_batch = 8; /* server_args.py: max_loras_per_batch: int = 8, every release */
}

/* Up to two decimal digits (0..99) at *p; advances *p. */
static int small_number(const char **p, int *out)
{
    int n = 0, digits = 0;
    while (**p >= '0' && **p <= '9' && digits < 3) {
        n = n * 10 + (**p - '0');
        (*p)++;
        digits++;
    }
    if (digits == 0 || digits > 2)
        return -1;
    *out = n;
    return 0;
}

int kv_sglang_version_parse(const char *text, int *out)
{
    const char *p = text;
    int part[3] = {0, 0, 0}, n = 0;
    if (*p == 'v')
        p++;
    for (n = 0; n < 3; n++) {
        if (small_number(&p, &part[n]) < 0)
            return -1;
        if (*p != '.' || strncmp(p, ".post", 5) == 0)
            break;
        p++;
    }
    if (n < 1) /* at least major.minor */
        return -1;
    int suffix = SUFFIX_FINAL, k;
    if (strncmp(p, ".post", 5) == 0) {
        p += 5;
        if (small_number(&p, &k) < 0 || k > 58)
            return -1;
        suffix = SUFFIX_FINAL + 1 + k;
    } else if (strncmp(p, "rc", 2) == 0) {
        p += 2;
        if (small_number(&p, &k) < 0 || k >= SUFFIX_FINAL)
            return -1;
        suffix = k;
    }
    if (*p)
        return -1;
    *out = ((part[0] * 100 + part[1]) * 100 + part[2]) * 100 + suffix;
    return 0;
}

void kv_sglang_version_format(int v, char *buf, size_t cap)
{
    int suffix = v % 100, patch = v / 100 % 100, minor = v / 10000 % 100, major = v / 1000000;
    if (suffix < SUFFIX_FINAL)
        kv_snprintf(buf, cap, "%d.%d.%drc%d", major, minor, patch, suffix);
    else if (suffix == SUFFIX_FINAL)
        kv_snprintf(buf, cap, "%d.%d.%d", major, minor, patch);
    else
        kv_snprintf(buf, cap, "%d.%d.%d.post%d", major, minor, patch, suffix - SUFFIX_FINAL - 1);
}

/* ---- the default mem_fraction_static, by era ------------------------------------------ */

/* The first rule (v0.3 to v0.4.5.post2): by the TP size only. */
static double by_tp(int version, int64_t n)
{
    if (n >= 16)
        return 0.79;
    if (n >= 8)
        return version < V(0, 4, 0) ? 0.83 : 0.81;
    if (n >= 4)
        return 0.85;
    return n >= 2 ? 0.87 : 0.88;
}

static double round3(double x)
{
    return kvm_nearbyint(x * 1000.0) / 1000.0;
}

/* v0.4.7.post1 to v0.5.3rc0: a reserve in MiB by the card's size. */
static double reserve_by_card(double mib, int64_t n)
{
    if (mib < 35 * 1024)
        return (2.8 + (double)n / 10.0) * 1024.0;
    if (mib < 90 * 1024)
        return (9.5 + (double)n / 2.0) * 1024.0;
    if (mib < 160 * 1024)
        return (12.0 + (double)n / 2.0) * 1024.0;
    return 32.0 * 1024.0;
}

/* v0.5.3rc2 and later: the card picks chunked prefill and the CUDA-graph batch. */
typedef struct {
    double below_mib;
    int64_t chunked, graph_bs_small_tp, graph_bs_large_tp;
} card_row;

static const card_row card_rows[] = {
    {20 * 1024, 2048, 8, 8},      {35 * 1024, 2048, 24, 80},   {60 * 1024, 4096, 32, 160},
    {90 * 1024, 8192, 256, 512}, {160 * 1024, 8192, 256, 512}, {1e300, 16384, 512, 512},
};

/* From 0.5.10 the piecewise CUDA graph is on by default (#16331, c64274c74; server_args.py
 * _handle_gpu_memory_settings, the same at a27651d5e, 88bb5dffe and 0f8673851 of the
 * modal-projects/sglang copy of upstream's history): before the 10 GiB floor the reserve
 * grows by 8 MiB a captured size, or 1.5 GiB with an MLA backend. The sizes are
 * _generate_piecewise_cuda_graph_tokens' 4..32 by 4, 48..256 by 16, 288..512 by 32,
 * 576..1024 by 64, 1280..4096 by 256, then by 512, up to piecewise_cuda_graph_max_tokens:
 * chunked_prefill_size, and from 0.5.13 at most the context length. */
#define PCG_DEFAULT RC(V(0, 5, 10), 0)
#define PCG_CONTEXT_CAP V(0, 5, 13)
static double piecewise_graph_mib(int64_t max_tokens, int mla)
{
    static const struct {
        int64_t from, to, step;
    } runs[] = {{4, 32, 4}, {48, 256, 16}, {288, 512, 32}, {576, 1024, 64}, {1280, 4096, 256}};
    if (mla)
        return 1.5 * 1024;
    int64_t n = 0;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        if (max_tokens >= runs[i].from) {
            int64_t top = max_tokens < runs[i].to ? max_tokens : runs[i].to;
            n += (top - runs[i].from) / runs[i].step + 1;
        }
    if (max_tokens >= 4608)
        n += (max_tokens - 4608) / 512 + 1;
    return (double)n * 8.0;
}

static double reserve_2025(double mib, int64_t tp, int64_t chunked, int64_t graph_bs,
                           int version, int mla, int64_t context)
{
    const card_row *row = card_rows;
    while (mib >= row->below_mib)
        row++;
    if (chunked <= 0)
        chunked = row->chunked;
    if (graph_bs <= 0)
        graph_bs = tp < 4 ? row->graph_bs_small_tp : row->graph_bs_large_tp;
    double reserve = 512.0 + (double)(chunked > 2048 ? chunked : 2048) * 1.5 +
                     (double)graph_bs * 2.0 + (double)tp / 8.0 * 1024.0;
    if (version >= PCG_DEFAULT) {
        int64_t cap = chunked;
        if (version >= PCG_CONTEXT_CAP && context > 0 && context < cap)
            cap = context;
        reserve += piecewise_graph_mib(cap, mla);
    }
    if (mib > 60 * 1024 && reserve < 10 * 1024)
        reserve = 10 * 1024;
    return reserve;
}

/* The factor a vision tower puts on the default (v0.4.9.post3+ assumes the default vision
 * size, c = 1, because kvcalc does not read the tower's shape: 0.95). */
static double vision_factor(int version)
{
    if (version <= POST(V(0, 4, 4), 3))
        return 0.95;
    return version < POST(V(0, 4, 9), 3) ? 0.90 : 0.95;
}

/* Speculative decoding's share of the default reserve (server_args.py, the 0.5 series'
 * _handle_gpu_memory_settings: after the 10 GiB floor, "eagle draft models and cuda graphs"
 * reserved_mem += 2 * 1024 MiB, STANDALONE 6 * 1024, NGRAM none; kvcalc models EAGLE and
 * NEXTN). PR #23862 (opened 2026-04-27, merged 2026-06-12) replaced it by counting the
 * draft's pool: see spec_rules; #19418 (2026-02-26, after 0.5.9) had made the EAGLE share 4 GiB. */
#define SPEC_RESERVE_MIB 2048.0
#define SPEC_RESERVE_4G RC(V(0, 5, 10), 0) /* #19418, e55e65535: 4 * 1024 */

/* STANDALONE from 0.5.14 (#23862, 75998d042, and #28855, 0c065671c; read at 7e6587c94 and
 * 9a6f8e599 of the modal-projects/sglang copy, its 0.5.14 and 0.5.15 branches): no reserve;
 * the draft's weights load before the pool is sized, so A holds them ("If using speculative
 * decoding, draft weights are now counted"); and the target's cell grows by the draft's
 * layers, int(cell x (1 + L_draft / L_target)) (pool_configurator.py: "Assumes draft and
 * target share the same per-layer KV size"), while the draft's pool is that N in its own
 * cell. */
#define SPEC_CELL_SCALED RC(V(0, 5, 14), 0)
#define STANDALONE_LAST V(0, 5, 15)
#define STANDALONE_CHANGED RC(V(0, 5, 16), 0)
/* STANDALONE's share: 6 * 1024 in every release from v0.5.2 (#10090) until #23862 ("Standalone
 * speculative decoding needs more memory than other speculative decoding algorithms since
 * the draft model is typically larger"; server_args.py @ 7ae368efde14 l.848-853). */
#define STANDALONE_RESERVE_MIB 6144.0

static double spec_reserve_mib(const kv_sglang_spec *g)
{
    if (g->version >= SPEC_CELL_SCALED) /* #23862 removed every algorithm's share */
        return 0;
    if (g->speculative_algorithm.set && g->speculative_algorithm.value == KV_SGLANG_SPEC_STANDALONE)
        return STANDALONE_RESERVE_MIB;
    return g->version >= SPEC_RESERVE_4G ? 4096.0 : SPEC_RESERVE_MIB;
}

/* The architectures whose draft path SGLang sets to the target's own for EAGLE / NEXTN, so
 * that the draft's layers enter the cell from 0.5.14 (_handle_eagle_family, arg_groups/
 * speculative_hook.py @ 7e6587c94 l.289-306 of the modal-projects/sglang copy, the 0.5.14
 * branch; the same list at 9a6f8e599, 0.5.15): "if server_args.speculative_draft_model_path is
 * None: server_args.speculative_draft_model_path = server_args.model_path". Other models load
 * their MTP layers from the target path too, but with no draft path their pool stays out of
 * the cell (model_runner_kv_cache_mixin.py: the scaling needs speculative_draft_model_path). */
static const char *const mtp_path_archs[] = {
    "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM",  "DeepseekV4ForCausalLM",
    "Glm4MoeForCausalLM",     "Glm4MoeLiteForCausalLM", "GlmMoeDsaForCausalLM",
    "BailingMoeForCausalLM",  "BailingMoeV2ForCausalLM", "BailingMoeV2_5ForCausalLM",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "HYV3ForCausalLM"};

static int mtp_path_set(const kv_spec *s)
{
    for (size_t i = 0; i < sizeof mtp_path_archs / sizeof mtp_path_archs[0]; i++)
        if (strcmp(s->arch.architecture, mtp_path_archs[i]) == 0)
            return 1;
    return 0;
}

static int standalone(const kv_sglang_spec *g)
{
    return g->speculative_algorithm.set && g->speculative_algorithm.value == KV_SGLANG_SPEC_STANDALONE;
}

/* STANDALONE's own defaults when none of the three is given: auto_choose_speculative_params,
 * 'if self.speculative_algorithm == "STANDALONE": return (3, 1, 4)' (server_args.py, v0.5.2 to
 * 0.5.6.post2). */
static int standalone_defaults(const kv_sglang_spec *g)
{
    return standalone(g) && g->speculative_num_draft_tokens == 0 &&
           !g->speculative_num_steps.set && !g->speculative_eagle_topk.set;
}

/* Draft tokens verified a step: the flag's, STANDALONE's 4, else 0 (off). */
static int64_t spec_tokens(const kv_sglang_spec *g)
{
    return standalone_defaults(g) ? 4 : g->speculative_num_draft_tokens;
}

/* Up to 0.5.6.post2 the target's pool, and the draft's with it, grows by a headroom for the
 * draft and verify tokens that share its indices (model_runner.py init_memory_pool, every
 * bump to 0.5.6.post2: draft_runner_cache_size = max_total_num_tokens + max_num_reqs x steps x
 * topk + max_num_reqs x draft tokens + 100, before --max-total-tokens and the page floor);
 * #15748 (d5fbbfd98, 2025-12-24, "Retry removing wrong logic about max total token in spec
 * decoding") removes it: from 0.5.7. */
#define SPEC_HEADROOM_GONE V(0, 5, 7)
/* Models with state layers: the reservation kvcalc has read (226149ac, 001ccef0) is that of
 * releases without the headroom; before, their max_num_reqs was also bounded by the state
 * slots (is_hybrid_gdn): not modelled. */
#define SPEC_STATE_FIRST SPEC_HEADROOM_GONE
/* The releases whose speculative rules kvcalc has read: from the 0.5.3rc2 reserve (the
 * 2 GiB above; every stored server_args.py of the 0.4.7-0.5 series reserves 2 GiB for EAGLE,
 * though #23862 calls what it removed "a flat 4GB/6GB heuristic") to 0.5.9 (2026-02-24): the
 * reservation below is the same in model_runner_kv_cache_mixin.py @ 226149ac and @ 001ccef0
 * (after #19002, 2026-02-19; before #20058's refactor, 2026-03-06, which 0.5.10rc0 of
 * 2026-03-28 holds). Later releases change a state model's reservation (the pool refactor
 * of 0.5.10, #20063), solve its slots and draft-token states together (#23837, in 0.5.13,
 * model_runner_kv_cache_mixin.py), count the draft's pool in the cell (#23862, in 0.5.14)
 * and store the conv windows once (#28302, 0.5.14): not modelled, refused. */
#define SPEC_RULES_FIRST RC(V(0, 5, 3), 2)
#define SPEC_RULES_LAST V(0, 5, 9)
#define SPEC_RULES_CHANGED RC(V(0, 5, 10), 0)
/* Models without state layers keep 0.5.9's rules through 0.5.13 (the draft's pool the same
 * tokens in its own layers, out of the headroom; 4 GiB of reserve); from 0.5.14 (#23862,
 * 75998d042, and #28855, 0c065671c; read at 7e6587c94 and 9a6f8e599 of the modal-projects/
 * sglang copy) there is no reserve, the draft's weights are in A and, with a draft path, its
 * layers in the cell (SPEC_CELL_SCALED, mtp_path_archs), to 0.5.15 (STANDALONE_LAST). */

static double default_fraction(int version, double mib, int64_t tp, int vision,
                               int64_t chunked, int64_t graph_bs, double spec_mib, int mla,
                               int64_t context)
{
    double f;
    if (version < POST(V(0, 4, 5), 3))
        f = by_tp(version, tp);
    else if (version < V(0, 4, 7))
        f = mib <= 81920 ? by_tp(version, tp) : (mib - 13 * 1024) / mib;
    else if (version < POST(V(0, 4, 7), 1)) {
        f = mib <= 81920 ? by_tp(version, tp) : 0.88;
        if (mib > 180000)
            f = 0.79;
        else if (mib > 96 * 1024) {
            double a = f + 48 * 1024 * (1 - f) / mib, b = (mib - 18 * 1024) / mib;
            f = a < b ? a : b;
        }
    } else if (version < RC(V(0, 5, 3), 2))
        f = round3((mib - reserve_by_card(mib, tp)) / mib);
    else
        f = round3((mib - reserve_2025(mib, tp, chunked, graph_bs, version, mla, context) -
                    spec_mib) / mib);
    return vision ? f * vision_factor(version) : f;
}

double kv_sglang_default_fraction(int version, double mib, int64_t tp, int vision,
                                  int64_t chunked, int64_t graph_bs)
{
    return default_fraction(version, mib, tp, vision, chunked, graph_bs, 0, 0, 0);
}

/* Up to v0.4.8 the vision factor was applied at model load to whatever f was in force. */
static int vision_factor_on_user_value(int version)
{
    return version < V(0, 4, 9);
}

/* ---- the pool -------------------------------------------------------------------------- */

static int64_t attention_layers(const kv_spec *s)
{
    int64_t counts[KV_LAYER_KINDS];
    kv_cache_layer_counts(s, counts); /* layers that share an earlier cache keep none */
    /* no hybrid pool is modelled: window and chunk layers get a full-length cache */
    return counts[KV_LAYER_FULL] + counts[KV_LAYER_SLIDING] + counts[KV_LAYER_CHUNKED];
}

/* K elements of one token in every attention layer of one rank, each kind with its own
 * heads and head size (Gemma-4's full layers: 2 KV heads of 512) */
static double k_elements(const kv_spec *s)
{
    int64_t counts[KV_LAYER_KINDS];
    kv_cache_layer_counts(s, counts);
    double all = 0;
    for (int k = KV_LAYER_FULL; k <= KV_LAYER_CHUNKED; k++) {
        int64_t heads, dim;
        kv_layer_shape(s, (kv_layer_kind)k, &heads, &dim);
        all += (double)counts[k] * (double)heads * (double)dim;
    }
    return all;
}

/* The state pool of a model with state layers ("mambaish"), and what it takes out of the
 * budget (sgl-project/sglang python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
 * @ 226149ac457bd1a1b5d450f55c01f72f604320d6, profile_max_num_token / handle_max_mamba_cache;
 * configs/mamba_utils.py @ 288330db619a3e4e479a15a50e6be8d5e03c7255,
 * Mamba2CacheParams.mamba_cache_per_req):
 *   per request = every state layer's conv state in bf16 (CONV_DTYPE) + its SSM state in
 *                 --mamba-ssm-dtype (float32 by default), one rank's share;
 *   slots       = --max-mamba-cache-size; else, with the radix cache, the budget's share
 *                 r / (1 + r) (r = --mamba-full-memory-ratio, 0.9) over per request; else
 *                 --max-running-requests, else 512;
 *   the budget loses slots x per request; the pool's buffers hold slots + 1 states (the
 *   logs: 360 slots of Qwen3.8-27B print conv 0.99 GB = 361 x 2,949,120 B);
 *   running requests: at most slots / 3 with the radix cache
 *   (MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO), slots without it. */
static void mamba_pool(const kv_spec *s, int64_t state_layers, double *rest_gib,
                       kv_sglang_result *out)
{
    const kv_sglang_spec *g = &s->sglang;
    double conv, ssm;
    kv_state_per_rank(s, s->tp, &conv, &ssm);
    double ssm_bytes = g->mamba_ssm_dtype.set ? (double)g->mamba_ssm_dtype.value : 4.0;
    double conv_req = (double)state_layers * conv * 2.0, ssm_req = (double)state_layers * ssm * ssm_bytes;
    out->mamba_per_req_bytes = conv_req + ssm_req;
    if (!(out->mamba_per_req_bytes > 0))
        return;
    /* speculative decoding: every running request keeps the states of each draft token for
     * the verify step (handle_max_mamba_cache: mamba_cache_per_req x max_running_requests x
     * speculative_num_draft_tokens, off the budget before the split) */
    int64_t d = spec_tokens(g);
    if (d > 0) {
        out->spec_reserved_bytes = out->mamba_per_req_bytes * (double)out->spec_running * (double)d;
        *rest_gib -= out->spec_reserved_bytes / 1073741824.0;
    }
    int64_t slots;
    if (g->max_mamba_cache_size.set) {
        slots = g->max_mamba_cache_size.value;
    } else if (!g->disable_radix_cache) {
        double r = g->mamba_full_memory_ratio.set ? g->mamba_full_memory_ratio.value : 0.9;
        double share = *rest_gib > 0 ? *rest_gib * r / (1 + r) : 0;
        slots = (int64_t)kvm_floor(share * 1073741824.0 / out->mamba_per_req_bytes);
        out->mamba_auto = 1;
    } else {
        /* max_running_requests: the flag, else 48 under speculative decoding */
        slots = g->max_running_requests.set || d > 0 ? out->spec_running : 512;
    }
    out->max_mamba_cache_size = slots;
    out->mamba_bytes = (double)slots * out->mamba_per_req_bytes;
    out->conv_state_bytes = (double)(slots + 1) * conv_req;
    out->ssm_state_bytes = (double)(slots + 1) * ssm_req;
    *rest_gib -= out->mamba_bytes / 1073741824.0;
    int64_t cap = g->disable_radix_cache ? slots : slots / 3;
    out->running_cap_by = g->disable_radix_cache ? KV_SGLANG_CAP_SLOTS : KV_SGLANG_CAP_SLOTS_3;
    if ((g->max_running_requests.set || d > 0) && out->spec_running < cap) {
        cap = out->spec_running;
        out->running_cap_by = g->max_running_requests.set ? KV_SGLANG_CAP_FLAG : KV_SGLANG_CAP_SPEC;
    }
    out->max_running_requests = cap;
    /* the verify step's buffers, sized by the requests that run (mamba_spec_state_size =
     * max_num_reqs) plus the padded slot: [layers, R + 1, D, state] (memory_pool.py MambaPool,
     * the dense layout of the early-2026 releases) */
    if (d > 0) {
        out->inter_ssm_bytes = (double)(cap + 1) * (double)d * ssm_req;
        out->inter_conv_bytes = (double)(cap + 1) * (double)d * conv_req;
    }
}

/* ---- LoRA ------------------------------------------------------------------------------ */

/* The releases of the LoRA rules: --max-lora-rank and --lora-target-modules from 0.4.9.post3
 * (#7844; before, the adapters' own ranks sized the buffers), the head size in the
 * projections' widths from 0.5.0rc1 (#8987, #8940: one qkv B of (Hq + 2 Hkv) d / tp). */
#define LORA_FLAGS POST(V(0, 4, 9), 3)
#define LORA_HEAD_DIM RC(V(0, 5, 0), 1)
/* The MoE experts' 4-D buffers: "[LoRA][III] Add LoRA support for MoE layers and enable TP"
 * (a32e0d57e, #14105, 2026-03-24) made them for models with a shared expert only, "[2/n] lora
 * - Shared outer experts and support qwen3_30b_a3b_instruct" (3c91ebdf5, #21466, 2026-03-31)
 * for the others. Both are on main before 0.5.10's cut, but whether that release took the
 * second is not pinned (the modal-projects mirror has no tags): kvcalc sizes them from the
 * next release. */
#define LORA_MOE V(0, 5, 11)

#define LQ KV_SGLANG_LORA_Q
#define LK KV_SGLANG_LORA_K
#define LV KV_SGLANG_LORA_V
#define LO KV_SGLANG_LORA_O
#define LGATE KV_SGLANG_LORA_GATE
#define LUP KV_SGLANG_LORA_UP
#define LDOWN KV_SGLANG_LORA_DOWN
#define LQKV KV_SGLANG_LORA_QKV
#define LGATE_UP KV_SGLANG_LORA_GATE_UP
#define LALL KV_SGLANG_LORA_ALL

static const kv_choice lora_modules[] = {
    {"q_proj", LQ}, {"k_proj", LK}, {"v_proj", LV}, {"o_proj", LO}, {"gate_proj", LGATE},
    {"up_proj", LUP}, {"down_proj", LDOWN}, {"qkv_proj", LQKV}, {"gate_up_proj", LGATE_UP},
    {"embed_tokens", KV_SGLANG_LORA_EMBED}, {"lm_head", KV_SGLANG_LORA_LM_HEAD},
    {"all", LALL}, {NULL, 0}};

/* --lora-target-modules: SGLang's names, comma- or blank-separated ("all" alone, as
 * server_args.py asserts); -1 when text is not such a list. */
static int lora_modules_parse(const char *text, int *out)
{
    int mask;
    if (kv_choice_mask_parse(lora_modules, text, &mask) < 0 || ((mask & LALL) && mask != LALL))
        return -1;
    *out = mask;
    return 0;
}

static void lora_modules_format(int mask, char *buf, size_t cap)
{
    kv_choice_mask_format(lora_modules, 0, mask, buf, cap); /* "all" is a name of its own */
}

/* LoRAMemoryPool's buffers (python/sglang/srt/lora/mem_pool.py @ 7ae368efde14, get_lora_A_shape
 * / get_lora_B_shape; lora/utils.py get_hidden_dim): for every layer on every rank
 * (num_hidden_layers, whatever the pipeline) and every target, A = n x r c x in and B = n x
 * out x r in the model's dtype, n = --max-loras-per-batch, r = --max-lora-rank, c the stacked
 * slices (qkv 3, gate_up 2); o and down (ROW_PARALLELISM_LINEAR_LORA_NAMES) split the input
 * by TP, the others the output. q, k or v targets the whole qkv pair, gate or up the whole
 * gate_up pair (get_normalized_target_modules). Before 0.5.0rc1 the widths were the hidden
 * size's: q and o's input h, a KV width h // (Hq // Hkv), and B split in a q and a kv buffer,
 * each there only when its projections are targeted (@ 9020f7fc3202).
 * A MoE model's gate_up_proj and down_proj are its experts' (mem_pool.py @ 8905cbd42,
 * get_lora_A_shape / get_lora_B_shape of "gate_up_proj_moe" and "down_proj_moe", 4-D: one
 * slice an expert): gate_up A n x E x 2r x h, B n x E x 2i/tp x r; down A n x E x r x i/tp,
 * B n x E x h x r, i the experts' width - n E r (3h + 3i/tp) a layer, for every layer. */
static double lora_bytes(const kv_spec *s)
{
    const kv_sglang_spec *g = &s->sglang;
    const kv_arch *a = &s->arch;
    int m = g->lora_target_modules;
    if (m & LALL)
        m = LQKV | LO | LGATE_UP | LDOWN;
    double tp = (double)s->tp, h = (double)a->hidden, im = (double)a->intermediate;
    int early = g->version < LORA_HEAD_DIM;
    double q = early ? h : (double)(a->heads * s->head_dim);
    double kv = early ? (double)(a->hidden / (a->heads / s->kv_heads))
                      : (double)(s->kv_heads * s->head_dim);
    double sum = 0;
    if (m & (LQ | LK | LV | LQKV)) {
        sum += 3 * h; /* A: 3 r rows of the hidden input */
        if (!early)
            sum += (q + 2 * kv) / tp;
        else {
            if (m & (LQ | LQKV))
                sum += q / tp;
            if (m & (LK | LV | LQKV))
                sum += 2 * kv / tp;
        }
    }
    if (m & LO)
        sum += q / tp + h;
    if (a->experts > 0) {
        double e = (double)a->experts, mi = (double)a->moe_intermediate;
        if (m & (LGATE | LUP | LGATE_UP))
            sum += e * (2 * h + 2 * mi / tp);
        if (m & LDOWN)
            sum += e * (mi / tp + h);
    } else {
        if (m & (LGATE | LUP | LGATE_UP))
            sum += 2 * h + 2 * im / tp;
        if (m & LDOWN)
            sum += im / tp + h;
    }
    return (double)s->layers * (double)g->max_loras_per_batch * (double)g->max_lora_rank *
           kv_dtype_get(a->base_dtype)->bytes * sum;
}

/* What SGLang's LoRA pool needs that kvcalc cannot give it, or NULL. */
static const char *lora_unsized(const kv_spec *s)
{
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, counts);
    const kv_arch *a = &s->arch;
    int m = s->sglang.lora_target_modules;
    if (a->experts > 0) {
        if (s->sglang.version < LORA_MOE)
            return "MoE experts before 0.5.11 (#14105 and #21466, whose release is not pinned; "
                   "--sglang-version 0.5.11 or later)";
        if (a->shared_experts > 0 || a->shared_intermediate > 0)
            return "MoE with shared experts (their own 3-D or *_shared_moe buffers)";
        if (a->first_dense > 0 || a->moe_step > 1 || a->moe_intermediate <= 0)
            return "MoE with dense layers (their MLPs' buffers beside the experts')";
        if (!(m & LALL) && (!(m & (LGATE | LUP | LGATE_UP)) != !(m & LDOWN)))
            return "one of gate_up_proj and down_proj on a MoE model (the experts are wrapped "
                   "with both)";
        if (a->moe_intermediate % s->tp != 0)
            return "expert widths TP does not divide (SGLang's divide() asserts)";
    }
    if (s->layout.mla)
        return "MLA attention (its LoRA layers have shapes of their own)";
    if (counts[KV_LAYER_STATE] > 0)
        return "state layers (their LoRA layers have shapes of their own)";
    if (!s->arch.known || s->arch.hidden <= 0 || (s->arch.intermediate <= 0 && a->experts == 0))
        return "a model kvcalc has no widths of";
    if (s->arch.mlp_plain)
        return "an MLP without a gate (no gate_up_proj)";
    if (s->layout.kv_shared_layers > 0 || s->layout.full_head_dim > 0 ||
        s->layout.full_kv_heads > 0)
        return "layers of several shapes (the model's own get_hidden_dim)";
    if (s->sglang.lora_target_modules & (KV_SGLANG_LORA_EMBED | KV_SGLANG_LORA_LM_HEAD))
        return "embed_tokens or lm_head targets";
    if (s->tp > s->kv_heads)
        return "more TP ranks than KV heads (the qkv buffer's width by release)";
    if (s->arch.heads % s->kv_heads != 0 || (s->arch.heads * s->head_dim) % s->tp != 0 ||
        (s->kv_heads * s->head_dim) % s->tp != 0 ||
        (a->experts == 0 && s->arch.intermediate % s->tp != 0))
        return "widths TP does not divide (SGLang's divide() asserts)";
    return NULL;
}

/* The MTP layers' weights on one rank: the checkpoint's own bytes, else the estimate's MTP
 * part. */
static double mtp_weights_bytes(const kv_spec *s)
{
    kv_param_parts q;
    kv_estimate_param_parts(&s->arch, &s->layout, s->layers, s->kv_heads, s->head_dim, &q);
    return (s->checkpoint_mtp_bytes > 0 ? s->checkpoint_mtp_bytes
                                        : q.mtp * kv_dtype_get(s->weight_dtype)->bytes) /
           (double)s->tp;
}

/* ---- DeepSeek-V4 ----------------------------------------------------------------------- */

/* SGLang sizes DeepSeek-V4 (compress_ratios) with DSV4PoolConfigurator
 * (python/sglang/srt/model_executor/pool_configurator.py, added by #23882, 35870d55a,
 * 2026-05-07, read there and at 425dffbde, 0f8673851, 7e6587c94, 9a6f8e599 and 8905cbd42 of
 * the modal-projects/sglang copy; the 0.5.14 and 0.5.15 branches leave main at 7e6587c94 and
 * 9a6f8e599), not with a cell of K and V: one coefficient, bytes_per_full_token, of
 *   kv       = qk_nope + 2 x qk_rope + 8 (an fp8_ds_mla entry, whatever the KV dtype)
 *   indexer  = index_head_dim + index_head_dim // 128 x 4
 *   states   = 2 x 2 x head_dim x 4 (4:1), 2 x head_dim x 4 (128:1), 2 x 2 x index_head_dim
 *              x 4 (the 4:1 indexer's), float32 (SGLANG_DSV4_COMPRESS_STATE_DTYPE)
 *   ring     = 8 (4:1), 128 (128:1) rows a window page, 16 and 256 under speculative
 *              decoding (deepseek_v4_memory_pool.py get_compress_state_ring_size, the same
 *              at 35870d55a and 9a6f8e599)
 *   bpft     = r x kv x L + 1/4 x kv x L4 + 1/128 x kv x L128 + 1/4 x indexer x L4
 *              + r x (8 / window) x state4 x L4 + r x (128 / window) x state128 x L128
 *              + r x (8 / window) x index_state x L4
 * in that order (Python's, so the printed figure is exact), r = swa_full_tokens_ratio, 0.1
 * for this model unless given (arg_groups/deepseek_v4_hook.py @ 35870d55a,
 * arg_groups/overrides.py @ 9a6f8e599), window = sliding_window (128). Then
 *   full_token = int((available_bytes - c128_state_fixed) / bpft), available_bytes =
 *   int(rest x 2^30) ("DSV4 memory calculation: ... available_bytes=X GB", GB of 2^30);
 *   full = full_token // page x page, min --max-total-tokens (_apply_token_constraints);
 *   swa = int(full x r) // page x page; c4 = full // 4; c128 = full // 128;
 *   c4_state = swa // window x 8; c128_state = swa // window x 128 ("DSV4 pool sizes").
 * Releases, by the rules that change:
 *   0.5.12: L = len(compress_ratios), every entry, the MTP layer's too (kvcalc: the layers and
 *           num_nextn_predict_layers, whose entries are 0 in V4-Flash's config); 15,955.85 B
 *           for V4-Flash, as logs of 2026-05-15 print it;
 *   0.5.13: L = compress_ratios[start_layer:end_layer], the model's layers only
 *           (#25750, a8c82c652, 2026-05-20, "make pool configurator PP-aware"): 15,897.45 B;
 *   0.5.15: the 128:1 states leave bpft (#28612, 56f22cd52, 2026-07-01, "C128 state is
 *           request-scoped"): c128_state_fixed = ceil(((running + 1) x 128 + 129) / 128) x
 *           128 rows x 2 x head_dim x 4 B x L128, running = --max-running-requests (the hook
 *           sets 256 unless given: deepseek_v4_hook.py @ 35870d55a and @ 9a6f8e599),
 *           c128_state logged 0 (finalized later as (running + 1) x 128): 7,705.45 B.
 * Speculative decoding (EAGLE with top-k 1 only, the hook asserts; NEXTN is EAGLE): the rings
 * above, and bpft x= (L + 1) / L for the MTP draft worker's pools ("Reserve memory for the
 * speculative draft worker by inflating per-token bytes by (target+draft)/target",
 * draft_layers = 1, every release); the hook's 256 running requests stand (it runs in
 * _handle_model_specific_adjustments, before the speculative hook, whose 48 is only for
 * None: server_args.py __post_init__ and speculative_hook.py @ 9a6f8e599).
 * The page is 256 (the hook: "setting page_size to 256"; from 0.5.14 128 on Ascend NPUs,
 * 7e6587c94). The first release: the 0.5.12 branch leaves main between 4b487ca98
 * (2026-05-04, no V4) and 425dffbde (2026-05-19, V4), and the mirror's benchmarks of V4 are
 * "Measured on sglang v0.5.12.post1" (docs_new/src/snippets/configs/deepseek-ai/
 * deepseek-v4-benchmarks.jsx @ 8905cbd42). */
#define DSV4_FIRST RC(V(0, 5, 12), 0)
#define DSV4_LAYER_SLICE RC(V(0, 5, 13), 0) /* #25750 */
#define DSV4_NPU RC(V(0, 5, 14), 0)         /* the NPU's page 128 and bfloat16 cache */
#define DSV4_C128_PER_REQUEST RC(V(0, 5, 15), 0) /* #28612 */
#define DSV4_SWA_RATIO 0.1
#define DSV4_RUNNING 256
#define DSV4_PAGE 256
#define DSV4_C4_RING 8
#define DSV4_C128_RING 128

static int is_dsv4(const kv_spec *s)
{
    return s->layout.csa_c4 + s->layout.csa_c128 > 0;
}

static int64_t dsv4_page(const kv_sglang_spec *g)
{
    return g->page_size == 1 ? DSV4_PAGE : g->page_size; /* 1: not given */
}

/* _compute_dsv4_sizes: full, swa, c4, c128, c4_state, c128_state from a full_token. */
static void dsv4_sizes(int64_t full, int64_t page, int64_t window, int per_request, int spec,
                       int64_t out[6])
{
    int64_t c4_ring = spec ? 2 * DSV4_C4_RING : DSV4_C4_RING;
    int64_t c128_ring = spec ? 2 * DSV4_C128_RING : DSV4_C128_RING;
    full = full / page * page;
    int64_t swa = (int64_t)kvm_floor((double)full * DSV4_SWA_RATIO) / page * page;
    out[0] = full;
    out[1] = swa;
    out[2] = full / 4;
    out[3] = full / 128;
    out[4] = swa / window * c4_ring;
    out[5] = per_request ? 0 : swa / window * c128_ring;
}

static void dsv4_pool(const kv_spec *s, double rest_gib, kv_sglang_result *out)
{
    const kv_sglang_spec *g = &s->sglang;
    const kv_layout *l = &s->layout;
    double rope = (double)s->arch.qk_rope_dim, nope = (double)s->head_dim - rope;
    double ix = (double)l->csa_index_dim, head = nope + rope;
    double l4 = (double)l->csa_c4, l128 = (double)l->csa_c128, window = (double)l->csa_window;
    int64_t layers = s->layers + (g->version < DSV4_LAYER_SLICE ? s->arch.mtp_layers : 0);
    double kv = nope + rope * 2 + 8, indexer = ix + kvm_floor(ix / 128) * 4;
    double c4_state = 2 * 2 * head * 4, c128_state = 2 * 1 * head * 4, ix_state = 2 * 2 * ix * 4;
    int spec = spec_tokens(g) > 0;
    double c4_ring = spec ? 2 * DSV4_C4_RING : DSV4_C4_RING;
    double c128_ring = spec ? 2 * DSV4_C128_RING : DSV4_C128_RING;
    double c4_ratio = c4_ring / window;
    int per_request = g->version >= DSV4_C128_PER_REQUEST;
    double c128_ratio = per_request ? 0 : c128_ring / window;
    double r = DSV4_SWA_RATIO;
    double bpft = r * kv * (double)layers + 1.0 / 4 * kv * l4 + 1.0 / 128 * kv * l128 +
                  1.0 / 4 * indexer * l4 + r * c4_ratio * c4_state * l4;
    bpft += per_request ? c128_ratio * c128_state * l128 : r * c128_ratio * c128_state * l128;
    bpft += r * c4_ratio * ix_state * l4;
    if (spec) /* the draft worker's: (target_layers + draft_layers) / target_layers */
        bpft *= (double)(layers + 1) / (double)layers;
    out->dsv4_bytes_per_full_token = bpft;
    out->dsv4_layers = layers;
    out->attn_layers = layers;
    out->cell_bytes = out->sizing_cell_bytes = bpft;
    int64_t running = g->max_running_requests.set ? g->max_running_requests.value : DSV4_RUNNING;
    out->max_running_requests = running;
    /* available_bytes = int(rest_memory * (1 << 30)), the budget of the flags' bounds */
    double avail = rest_gib > 0 ? kvm_floor(rest_gib * 1073741824.0) : 0;
    out->dsv4_available_bytes = avail;
    double fixed = 0;
    if (per_request && l->csa_c128 > 0) {
        double rows = (double)(running + 1) * c128_ring + c128_ring + 1;
        rows = kvm_ceil(rows / 128) * 128;
        fixed = rows * 2 * head * 4 * l128;
    }
    out->dsv4_c128_state_fixed_bytes = fixed;
    double left = avail - fixed > 0 ? avail - fixed : 0;
    int64_t page = dsv4_page(g);
    int64_t profiled[6], sizes[6];
    int64_t full = (int64_t)kvm_floor(left / bpft);
    dsv4_sizes(full, page, l->csa_window, per_request, spec, profiled);
    /* _apply_token_constraints: min(full, --max-total-tokens), then the sizes again from it
     * (calculate_pool_sizes_from_max_tokens), a second "DSV4 pool sizes" line */
    full = profiled[0];
    if (g->max_total_tokens.set && full > g->max_total_tokens.value)
        full = g->max_total_tokens.value;
    dsv4_sizes(full, page, l->csa_window, per_request, spec, sizes);
    out->page_size = page;
    out->dsv4_full_token = profiled[0];
    memcpy(out->dsv4_profiled, profiled, sizeof profiled);
    out->max_total_num_tokens = sizes[0];
    out->dsv4_full = sizes[0];
    out->dsv4_swa = sizes[1];
    out->dsv4_c4 = sizes[2];
    out->dsv4_c128 = sizes[3];
    out->dsv4_c4_state = sizes[4];
    out->dsv4_c128_state = sizes[5];
    out->dsv4_pool_bytes = (double)sizes[0] * bpft + fixed;
}

static void sglang_compute_into(const kv_spec *s, const kv_result *r, kv_sglang_result *out)
{
    const kv_sglang_spec *g = &s->sglang;
    int vision = s->arch.vision_tower;
    memset(out, 0, sizeof *out);
    out->gpu_mem_mib = s->gpu_mem_gib * 1024.0;
    if (g->mem_fraction_static.set) {
        out->mem_fraction_static = g->mem_fraction_static.value;
        if (vision && vision_factor_on_user_value(g->version))
            out->mem_fraction_static *= vision_factor(g->version);
    } else {
        out->fraction_default = 1;
        out->mem_fraction_static = default_fraction(
            g->version, out->gpu_mem_mib, s->tp, vision,
            g->chunked_prefill_size.set ? g->chunked_prefill_size.value : 0,
            g->cuda_graph_max_bs.set ? g->cuda_graph_max_bs.value : 0,
            spec_tokens(g) > 0 ? spec_reserve_mib(g) : 0,
            s->layout.mla, s->context);
    }

    /* P and A: from the log, else estimated (the GPU minus the CUDA context, minus the
     * weights on this rank); one of them given gives the other through the weights */
    /* from 0.5.14 the draft's weights are loaded when A is read (SPEC_CELL_SCALED, #28855): a
     * STANDALONE draft's, or the MTP layers NEXTN / EAGLE loads from the target's path; the
     * draft's layers enter the cell when a draft path is set (STANDALONE's, or the target's
     * for the architectures of mtp_path_archs) */
    int late = g->version >= SPEC_CELL_SCALED && spec_tokens(g) > 0;
    int mtp14 = late && !standalone(g) && s->arch.mtp_layers > 0;
    int scaled = late && ((standalone(g) && g->draft.name) || (mtp14 && mtp_path_set(s)));
    double draft_gib = !late          ? 0
                       : standalone(g) ? g->draft.weights_bytes / (double)s->tp / KV_GIB
                       : mtp14         ? mtp_weights_bytes(s) / KV_GIB
                                       : 0;
    /* --cpu-offload-gb G: OffloaderV1 (python/sglang/srt/utils/offloader.py @ 8905cbd42)
     * wraps the decoder layers make_layers builds (utils/common.py) and moves whole
     * parameters to pinned host memory, in layer order, while fewer than G x 2^30 bytes are
     * moved (the check comes before each parameter: up to one tensor more); every rank its
     * own. Load weight end's A is read after it, so the weights on the GPU are the rest. A
     * given A already holds it. */
    out->cpu_offload_bytes = 0;
    if (g->cpu_offload_gib > 0) {
        double limit = g->cpu_offload_gib * KV_GIB;
        double can = kv_layers_weight_bytes(s, r->weights_bytes);
        out->cpu_offload_bytes = limit < can ? limit : can;
    }
    double weights_gib = (r->weights_bytes - out->cpu_offload_bytes) / KV_GIB + draft_gib;
    int given_p = g->avail_before_gib.set, given_a = g->avail_after_gib.set;
    double p = g->avail_before_gib.value, a = g->avail_after_gib.value;
    out->estimated = !given_p || !given_a;
    if (!given_p)
        p = given_a ? a + weights_gib
                    : s->gpu_mem_gib - CUDA_CONTEXT_GIB - (s->tp > 1 ? NCCL_GIB : 0);
    if (!given_a)
        a = p - weights_gib;
    out->avail_before_gib = p;
    out->avail_after_gib = a;
    /* LoRA's buffers are made after "Load weight end" and before the pool, which measures
     * free memory again: out of A (model_runner.py: init_lora_manager, then
     * init_memory_pool, in every release from v0.3.1; no LoRA term in the default f) */
    out->lora_bytes = g->enable_lora ? lora_bytes(s) : 0;
    double rest = a - out->lora_bytes / 1073741824.0 - p * (1 - out->mem_fraction_static);
    int64_t counts[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, counts);
    out->budget_bytes = rest * 1073741824.0;
    /* requests that run at once: --max-running-requests, else 48 under speculative decoding
     * (server_args.py _handle_speculative_decoding: "Max running requests is reset to 48 for
     * speculative decoding"), else no cap of its own */
    out->spec_running = g->max_running_requests.set ? g->max_running_requests.value
                        : spec_tokens(g) > 0 ? 48 : 0;
    out->max_running_requests = out->spec_running;
    out->running_cap_by = g->max_running_requests.set ? KV_SGLANG_CAP_FLAG : KV_SGLANG_CAP_SPEC;
    out->spec_draft_tokens = spec_tokens(g);
    if (counts[KV_LAYER_STATE] > 0)
        mamba_pool(s, counts[KV_LAYER_STATE], &rest, out);
    out->rest_bytes = rest * 1073741824.0;
    if (is_dsv4(s)) {
        dsv4_pool(s, rest, out);
        return;
    }

    /* the cell: every attention layer of one rank; MLA keeps one latent, not split by TP */
    double elem = kv_dtype_get(s->dtype)->bytes;
    out->attn_layers = attention_layers(s);
    double k_row = s->layout.mla ? (double)s->layout.mla_latent
                                 : (double)r->kv_heads_per_gpu * (double)s->head_dim;
    double sizing_row = 0; /* the row N is sized by, when it is not the pool's */
    double layers = (double)out->attn_layers;
    if (s->layout.mla && s->layout.index_dim > 0) {
        /* DeepSeek sparse attention (NSA): an fp8 latent is kv_lora_rank bytes, a float32
         * scale per 128 and the rope part in 16 bits (calculate_mla_kv_cache_dim: 656 B for
         * DeepSeek-V3.2); the indexer's key cache index_head_dim uint8 bytes and a float32
         * scale per quant_block_size 128 (get_cell_size_per_token: 132 B) - the "KV size" of
         * the log counts both (sgl-project/sglang#11309: 975,424 tokens, 43.67 GB = 61 x 788
         * B each) - model_runner_kv_cache_mixin.py @ 226149ac457bd1a1b5d450f55c01f72f604320d6 */
        double rank = (double)s->arch.kv_lora_rank, rope = (double)s->arch.qk_rope_dim;
        double idx = (double)s->layout.index_dim;
        double latent = elem == 1 && rank > 0 ? rank + kvm_floor(rank / 128) * 4 + rope * 2
                                              : (double)s->layout.mla_latent * elem;
        k_row = (latent + idx + kvm_floor(idx / 128) * 4) / elem; /* the row in elements of elem */
        /* but N is sized by the plain latent: get_cell_size_per_token / _compute_cell_size
         * (model_runner_kv_cache_mixin.py before 1e3f6ebea, pool_configurator.py @ 8905cbd42)
         * count (kv_lora_rank + qk_rope_head_dim) x the dtype's size and the indexer's 132 B,
         * never calculate_mla_kv_cache_dim's scales and 16-bit rope: an fp8 pool of N tokens
         * takes 788 B a layer where its budget counted 708. A real log of GLM-5-FP8 at TP 8
         * on MI355X (0.5.8.post1, f 0.908): P 283.48, A 193.90 GB -> 167.82 GB / (78 x 708 B)
         * = 3,262,986 tokens sized, the log's 3,262,823 (A and P to 0.01 GB), and their pool
         * 186.77 GB = 3,262,823 x 78 x 788 B, 19 GB past the budget */
        sizing_row = ((double)s->layout.mla_latent * elem + idx + kvm_floor(idx / 128) * 4) / elem;
    }
    double k_all = s->layout.mla ? k_row * layers : k_elements(s);
    double v_all = s->layout.mla ? 0.0 : k_all;
    out->cell_bytes = (k_all + v_all) * elem;
    double sizing_bytes = sizing_row > 0 ? sizing_row * layers * elem : out->cell_bytes;

    /* N: floor(rest x 2^30 / cell) as SGLang's float floor division, capped, paged;
     * the flags bound P and A, so N stays far below 2^63 */
    out->page_size = g->page_size;
    int64_t n = 0;
    double cell_n = sizing_bytes; /* the cell N is sized by */
    if (scaled && out->attn_layers > 0)
        cell_n = kvm_floor(cell_n * (1.0 + (double)(standalone(g) ? g->draft.layers
                                                                  : s->arch.mtp_layers) /
                                               (double)out->attn_layers));
    out->sizing_cell_bytes = cell_n;
    out->draft_weights_in_a_bytes = draft_gib * KV_GIB;
    if (cell_n > 0 && rest > 0)
        n = (int64_t)kvm_floor(rest * 1073741824.0 / cell_n);
    if (n > 0 && out->spec_draft_tokens > 0 && g->version < SPEC_HEADROOM_GONE) {
        int64_t steps = standalone_defaults(g) ? 3 : g->speculative_num_steps.value;
        int64_t topk = standalone_defaults(g) ? 1 : g->speculative_eagle_topk.value;
        out->spec_headroom_tokens =
            out->spec_running * steps * topk + out->spec_running * out->spec_draft_tokens + 100;
        n += out->spec_headroom_tokens;
    }
    if (g->max_total_tokens.set && n > g->max_total_tokens.value)
        n = g->max_total_tokens.value;
    n = n / g->page_size * g->page_size;
    out->max_total_num_tokens = n > 0 ? n : 0;
    out->pad_rows = g->version >= V(0, 4, 4) ? g->page_size : 1;
    if (out->max_total_num_tokens > 0) {
        double rows = (double)(out->max_total_num_tokens + out->pad_rows);
        out->k_bytes = rows * k_all * elem;
        out->v_bytes = rows * v_all * elem;
        /* NEXTN: the draft worker's pool takes the target's token count (draft_runner_cache_
         * size) in its own layers - num_nextn_predict_layers, one full-attention layer for a
         * model of state layers (HybridLinearKVPool full_attention_layer_ids=[0]) - and comes
         * out of what the budget left (model_runner_kv_cache_mixin.py @ 226149ac) */
        if (standalone(g) && g->draft.name) {
            /* STANDALONE: the draft worker's own pool of the same N (draft_runner_cache_size,
             * then the shared MemoryPoolConfig of #20183) in the draft's own cell - its layers,
             * its KV heads on each of the same TP ranks, its head size, the same KV dtype -
             * and its weights, split by the same TP: both out of the (1 - f) headroom, after
             * the target's pool (speculative/standalone_worker.py @ b0d25e72c401: "Draft and
             * target worker own their own KV cache pools") */
            const kv_draft *d = &g->draft;
            out->draft_layers = d->layers;
            out->draft_kv_heads = d->kv_heads / s->tp > 1 ? d->kv_heads / s->tp : 1;
            double row = (double)out->draft_kv_heads * (double)d->head_dim * (double)d->layers;
            out->draft_cell_bytes = 2 * row * elem;
            out->draft_k_bytes = rows * row * elem;
            out->draft_v_bytes = rows * row * elem;
            out->draft_weights_bytes = d->weights_bytes / (double)s->tp;
        } else if (out->spec_draft_tokens > 0 && s->arch.mtp_layers > 0 && layers > 0) {
            out->draft_layers = counts[KV_LAYER_STATE] > 0 ? 1 : s->arch.mtp_layers;
            double share = (double)out->draft_layers / layers;
            out->draft_k_bytes = out->k_bytes * share;
            out->draft_v_bytes = out->v_bytes * share;
            /* and loads the MTP layers' weights, after the target's pool (out of the headroom
             * too) up to 0.5.13, before it from 0.5.14 (in A) */
            out->draft_weights_bytes = mtp_weights_bytes(s);
        }
    }
}

/* ---- the engine interface --------------------------------------------------------------- */

/* SGLang's flags, by identity (their order in params, the descriptor's table below). */
enum {
    SG_P_FRACTION, SG_P_BEFORE, SG_P_AFTER, SG_P_PAGE, SG_P_MAX_TOTAL, SG_P_CHUNKED,
    SG_P_GRAPH_BS, SG_P_VERSION, SG_P_MAMBA_RATIO, SG_P_MAMBA_SLOTS, SG_P_RUNNING,
    SG_P_NO_RADIX, SG_P_SSM_DTYPE, SG_P_SPEC_TOKENS, SG_P_HICACHE, SG_P_HICACHE_RATIO,
    SG_P_HICACHE_SIZE, SG_P_LORA, SG_P_MAX_LORAS, SG_P_LORA_RANK, SG_P_LORA_MODULES,
    SG_P_SPEC_ALGO, SG_P_SPEC_STEPS, SG_P_SPEC_TOPK, SG_P_CPU_OFFLOAD, SG_PARAMS
};
static const kv_param params[SG_PARAMS];

static int bad_gib(kv_opt_num x)
{
    return x.set && (!isfinite(x.value) || x.value < 0 || x.value > 1e6);
}

/* The settings speculative decoding takes together, refused in SGLang's terms where they do
 * not go together (server_args.py _handle_speculative_decoding). */
static kv_status spec_check(const kv_spec *s, int stateful, kv_error *why)
{
    const kv_sglang_spec *g = &s->sglang;
    int alone = standalone(g);
    if (g->draft.name && !alone)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_ALGO],
                         "kvcalc sizes SGLang's separate draft model with --speculative-algorithm "
                         "STANDALONE (an EAGLE head's own layers are not read)");
    if (alone && !g->draft.name)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_ALGO],
                         "STANDALONE speculates with a draft model of its own: give "
                         "--speculative-draft-model-path");
    if (alone && stateful)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_ALGO],
                         "kvcalc sizes STANDALONE for targets of attention layers only (a model "
                         "with state layers pools its drafts' states apart)");
    if (alone && s->layout.mla)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_ALGO],
                         "kvcalc sizes STANDALONE beside targets of GQA / MHA attention only, "
                         "not an MLA latent");
    if (alone && g->draft.attn_heads % s->tp != 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_ALGO],
                         "the draft's %lld attention heads do not split over %lld TP ranks (its "
                         "worker has the target's TP)",
                         (long long)g->draft.attn_heads, (long long)s->tp);
    if (g->speculative_algorithm.set && !alone && g->speculative_num_draft_tokens == 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_TOKENS],
                         "SGLang chooses an EAGLE's steps, top-k and draft tokens by the model's "
                         "architecture when none is given; kvcalc does not: give "
                         "--speculative-num-steps, --speculative-eagle-topk and "
                         "--speculative-num-draft-tokens");
    if (spec_tokens(g) == 0 &&
        (g->speculative_num_steps.set || g->speculative_eagle_topk.set))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_TOKENS],
                         "speculative decoding is on with its draft tokens: give "
                         "--speculative-num-draft-tokens (0: off)");
    if (spec_tokens(g) == 0 || standalone_defaults(g))
        return KV_OK;
    int steps = g->speculative_num_steps.set, topk = g->speculative_eagle_topk.set;
    if (g->version < SPEC_HEADROOM_GONE && (!steps || !topk)) {
        char last[32];
        kv_sglang_version_format(POST(V(0, 5, 6), 2), last, sizeof last);
        return kv_refuse(why, KV_ERR_ENGINE_INPUT,
                         &params[steps ? SG_P_SPEC_TOPK : SG_P_SPEC_STEPS],
                         "up to %s SGLang adds running x (steps x top-k + draft tokens) + 100 "
                         "tokens to both pools, and takes draft tokens only beside the steps and "
                         "the top-k: give --speculative-num-steps and --speculative-eagle-topk",
                         last);
    }
    if (steps && topk && g->speculative_eagle_topk.value == 1 &&
        g->speculative_num_draft_tokens != g->speculative_num_steps.value + 1)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_TOKENS],
                         "SGLang: \"speculative_num_draft_tokens is adjusted to "
                         "speculative_num_steps + 1 when speculative_eagle_topk == 1\": give "
                         "--speculative-num-draft-tokens %lld",
                         (long long)(g->speculative_num_steps.value + 1));
    if (g->version < SPEC_HEADROOM_GONE && topk && g->speculative_eagle_topk.value > 1 &&
        g->page_size > 1)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_TOPK],
                         "a top-k above 1 with pages above 1 token is changed or refused by "
                         "release: not modelled (give --speculative-eagle-topk 1)");
    return KV_OK;
}

/* DeepSeek-V4 as kvcalc sizes it in SGLang (dsv4_pool): from 0.5.12, its fp8_e4m3 cache
 * (the hook's default for "auto"; 0.5.12 and 0.5.13 assert it, 0.5.14 also takes the
 * bfloat16 of Ascend NPUs: the configurator's bytes are the same), its page, one pipeline
 * stage, EAGLE of top-k 1 (deepseek_v4_hook.py's asserts), no HiCache or LoRA (neither read
 * for these pools). */
static kv_status dsv4_check(const kv_spec *s, kv_error *why)
{
    const kv_sglang_spec *g = &s->sglang;
    if (!is_dsv4(s))
        return KV_OK;
    const char *npu = "0.5.14";
    if (g->version < DSV4_FIRST)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_VERSION],
                         "SGLang serves DeepSeek-V4 (compress_ratios) from 0.5.12 (#23882, "
                         "2026-05-07): --sglang-version 0.5.12 or later");
    if (!(s->dtype == KV_DTYPE_FP8 || (s->dtype == KV_DTYPE_BF16 && g->version >= DSV4_NPU)))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_DTYPE],
                         "SGLang: \"%s is not supported for DeepseekV4ForCausalLM\": fp8 "
                         "(fp8_e4m3; bfloat16 too from %s, the Ascend NPUs' cache)",
                         kv_dtype_get(s->dtype)->name, npu);
    if (g->page_size != 1 && g->page_size != DSV4_PAGE &&
        !(g->page_size == 128 && g->version >= DSV4_NPU))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_PAGE],
                         "SGLang sets DeepSeek-V4's page size to 256 (\"Use dsv4 attention "
                         "backend ..., setting page_size to 256\"; 128 on Ascend NPUs from %s)",
                         npu);
    if (s->pp > 1)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_PP],
                         "kvcalc does not split SGLang's DeepSeek-V4 pools over pipeline stages "
                         "(each stage sizes its own slice of compress_ratios): use 1");
    const kv_opt_int algo = g->speculative_algorithm;
    if (algo.set && algo.value != KV_SGLANG_SPEC_EAGLE && algo.value != KV_SGLANG_SPEC_NEXTN)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_ALGO],
                         "SGLang: \"Only EAGLE speculative algorithm is supported for "
                         "DeepseekV4ForCausalLM\" (its MTP layer; NEXTN is EAGLE)");
    if (spec_tokens(g) > 0 && g->speculative_eagle_topk.set && g->speculative_eagle_topk.value != 1)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_SPEC_TOPK],
                         "SGLang: \"Only EAGLE speculative algorithm with topk == 1 is supported "
                         "for DeepseekV4ForCausalLM\"");
    if (spec_tokens(g) > 0 && g->version >= SPEC_CELL_SCALED && !g->avail_after_gib.set &&
        !(s->checkpoint_mtp_bytes > 0))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_AFTER],
                         "from 0.5.14 SGLang loads the MTP layer's weights before it reads A, "
                         "and kvcalc does not count DeepSeek-V4's layer tensors: give the log's "
                         "--avail-mem-after-load-gib (or a model folder, whose MTP tensors it "
                         "reads)");
    if (g->hierarchical_cache)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_HICACHE],
                         "kvcalc does not size HiCache's host pools of DeepSeek-V4");
    if (g->enable_lora)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_LORA],
                         "kvcalc does not size LoRA beside SGLang's DeepSeek-V4 pools");
    return KV_OK;
}

static kv_status sglang_check(const kv_spec *s, kv_error *why)
{
    const kv_sglang_spec *g = &s->sglang;
    kv_status v4 = dsv4_check(s, why);
    if (v4 != KV_OK)
        return v4;
    if (attention_layers(s) == 0)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_ENGINE],
                         "the model has no attention layer: kvcalc has not read how SGLang "
                         "sizes a model of state layers alone");
    if (!(s->gpu_mem_gib <= 1e6)) /* the flags are bounded; only the GPU's size can be out */
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_GPU_MEM_GIB],
                         "%.17g GiB is more than --engine sglang sizes (at most 1e6 GiB)",
                         s->gpu_mem_gib);
    /* the weights load between the two readings: what is free after is never more */
    if (g->avail_before_gib.set && g->avail_after_gib.set &&
        g->avail_after_gib.value > g->avail_before_gib.value)
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_AFTER],
                         "%.17g GiB is more than was free before the weights loaded "
                         "(--avail-mem-before-load-gib %.17g): the after-load reading is at "
                         "most the before-load one",
                         g->avail_after_gib.value, g->avail_before_gib.value);
    int64_t kinds[KV_LAYER_KINDS];
    kv_layer_counts(&s->layout, s->layers, kinds);
    int stateful = kinds[KV_LAYER_STATE] > 0;
    int alone = standalone(g) && !stateful;
    if (spec_tokens(g) > 0 &&
        (g->version < (stateful ? SPEC_STATE_FIRST : SPEC_RULES_FIRST) ||
         g->version >= (stateful ? SPEC_RULES_CHANGED
                                 : STANDALONE_CHANGED))) {
        char first[32], last[32];
        kv_sglang_version_format(stateful ? SPEC_STATE_FIRST : SPEC_RULES_FIRST, first,
                                 sizeof first);
        kv_sglang_version_format(stateful ? SPEC_RULES_LAST : STANDALONE_LAST, last, sizeof last);
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[alone ? SG_P_SPEC_ALGO : SG_P_SPEC_TOKENS],
                         "kvcalc has read SGLang's speculative-decoding memory rules of %s to "
                         "%s only%s (--sglang-version)", first, last,
                         stateful ? " for models with state layers"
                         : alone  ? " for STANDALONE"
                                  : "");
    }
    if (spec_tokens(g) > 0 && !stateful && g->version >= SPEC_CELL_SCALED) {
        /* 0.5.14 and 0.5.15 size a sliding-window model's draft apart (#29622 joins the draft's
         * full layers to the full term in 0.5.15 only) and the sparse-attention pool in a
         * configurator of its own: not modelled */
        const char *kind = kinds[KV_LAYER_SLIDING] + kinds[KV_LAYER_CHUNKED] > 0 ? "sliding-window"
                           : s->layout.index_dim > 0 ? "sparse-attention (an indexer's cache)"
                           : !alone && s->arch.mtp_layers == 0
                               ? "EAGLE-head (the head's own layers enter the cell; kvcalc reads "
                                 "no head config)"
                               : NULL;
        if (kind)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT,
                             &params[alone ? SG_P_SPEC_ALGO : SG_P_SPEC_TOKENS],
                             "kvcalc does not size the speculative decoding of SGLang 0.5.14 "
                             "and 0.5.15 for %s models (--sglang-version 0.5.13 or earlier)",
                             kind);
    }
    kv_status spec = spec_check(s, stateful, why);
    if (spec != KV_OK)
        return spec;
    if (g->enable_lora) {
        char first[32];
        kv_sglang_version_format(LORA_FLAGS, first, sizeof first);
        if (g->version < LORA_FLAGS)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_LORA],
                             "kvcalc sizes SGLang's LoRA buffers from %s, whose --max-lora-rank "
                             "and --lora-target-modules size them (earlier releases size them by "
                             "the adapters' own ranks; --sglang-version)", first);
        if (g->max_lora_rank <= 0 || g->lora_target_modules == 0)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT,
                             &params[g->max_lora_rank <= 0 ? SG_P_LORA_RANK : SG_P_LORA_MODULES],
                             "SGLang: \"When no initial --lora-paths is provided, you need to "
                             "specify both --max-lora-rank and --lora-target-modules for LoRA "
                             "initialization\" (kvcalc reads no adapter folders: give both)");
        const char *unsized = lora_unsized(s);
        if (unsized)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_LORA],
                             "kvcalc sizes SGLang's LoRA buffers, but not for these: not %s", unsized);
    }
    if (g->cpu_offload_gib > 0) {
        char first[32];
        kv_sglang_version_format(CPU_OFFLOAD, first, sizeof first);
        if (g->version < CPU_OFFLOAD)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_CPU_OFFLOAD],
                             "SGLang has --cpu-offload-gb from %s (--sglang-version)", first);
        if (g->cpu_offload_gib != kvm_floor(g->cpu_offload_gib))
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_CPU_OFFLOAD],
                             "SGLang takes a whole number of GB (server_args.py: cpu_offload_gb: "
                             "int)");
        /* the offloader is one for the process: a draft's layers, made after the target's,
         * take what the target's left of G, which kvcalc does not follow */
        if (spec_tokens(g) > 0)
            return kv_refuse(why, KV_ERR_ENGINE_INPUT, &params[SG_P_CPU_OFFLOAD],
                             "kvcalc does not size it beside speculative decoding (SGLang's one "
                             "offloader moves the draft's layers too, out of the same G)");
    }
    const kv_opt_num f = g->mem_fraction_static;
    if (bad_gib(g->avail_before_gib) || bad_gib(g->avail_after_gib) ||
        (f.set && !(f.value > 0 && f.value <= 1)) || g->page_size < 1 ||
        g->page_size > (1 << 20) || (g->max_total_tokens.set && g->max_total_tokens.value < 1) ||
        (g->chunked_prefill_size.set && g->chunked_prefill_size.value < 1) ||
        (g->cuda_graph_max_bs.set && g->cuda_graph_max_bs.value < 1) || !(s->gpu_mem_gib > 0))
        return kv_refuse(why, KV_ERR_ENGINE_INPUT, &kv_core_params[KV_P_ENGINE],
                         "an SGLang input is out of range (mem_fraction_static in (0, 1], avail "
                         "mem in [0, 1e6] GiB, GPU memory at most 1e6 GiB, page size >= 1)");
    return KV_OK;
}

/* Whether max_running_requests caps the requests that run: any figure the flag or 48 set,
 * and on a model with state layers even 0 (init_memory: max_num_reqs = min(max_num_reqs,
 * max_mamba_cache_size // ratio) - 0 slots, or 1 or 2 with the radix cache, run none). */
static int running_capped(const kv_sglang_result *g)
{
    return g->max_running_requests > 0 || g->mamba_per_req_bytes > 0;
}

/* Whole requests of `context` tokens in the pool: each takes whole pages. */
static double whole_requests(const kv_sglang_result *g, int64_t context)
{
    int64_t pages = g->max_total_num_tokens / g->page_size;
    int64_t per_request = context / g->page_size + (context % g->page_size != 0);
    return (double)(pages / per_request);
}

/* HiCache's host pool (HostKVCache.__init__, python/sglang/srt/mem_cache/pool_host/base.py
 * @ 049f8e64daef): --hicache-size GB per rank // the rank's bytes per token, else the device
 * pool's tokens x --hicache-ratio (2); then whole pages plus one, (tokens // page + 1) x page;
 * "Allocating {tokens x bytes / 1e9:.2f} GB host memory for hierarchical KV cache." Every
 * rank allocates its own; the device pool is not changed. */
static kv_status hicache(const kv_spec *s, kv_sglang_result *g)
{
    const kv_sglang_spec *in = &s->sglang;
    g->hicache_tokens = 0;
    g->hicache_bytes = g->hicache_host_bytes = 0;
    if (!in->hierarchical_cache || !(g->cell_bytes > 0))
        return KV_OK;
    double tokens = in->hicache_size_gb > 0
                        ? kvm_floor(in->hicache_size_gb * 1e9 / g->cell_bytes)
                        : kvm_floor((double)g->max_total_num_tokens *
                                (in->hicache_ratio.set ? in->hicache_ratio.value : 2.0));
    double page = (double)g->page_size;
    tokens = (kvm_floor(tokens / page) + 1) * page;
    if (!(tokens < 9223372036854775807.0)) /* refused, not capped */
        return KV_ERR_RANGE;
    g->hicache_tokens = (int64_t)tokens;
    g->hicache_bytes = tokens * g->cell_bytes;
    g->hicache_host_bytes = g->hicache_bytes * (double)(s->tp * s->pp);
    return KV_OK;
}

static kv_status sglang_compute(const kv_spec *s, kv_result *r)
{
    kv_sglang_result *g = &r->sglang;
    sglang_compute_into(s, r, g);
    kv_status st = hicache(s, g);
    if (st != KV_OK)
        return st;
    r->max_concurrency = whole_requests(g, s->context);
    if (running_capped(g)) /* a state slot each, or the flag's (or 48's) cap */
        r->max_concurrency = kvm_fmin(r->max_concurrency, (double)g->max_running_requests);
    /* the draft worker allocates after the target's pool took its budget: what is free then
     * is A less the pool (and the LoRA buffers and state pool before it), about P x (1 - f);
     * a draft that needs more cannot start (its graphs and activations need some too, so
     * this is the least that fails) */
    g->headroom_bytes = g->avail_after_gib * 1073741824.0 - g->lora_bytes - g->mamba_bytes -
                        g->k_bytes - g->v_bytes - g->dsv4_pool_bytes;
    double draft = g->draft_k_bytes + g->draft_v_bytes +
                   (g->draft_weights_in_a_bytes > 0 ? 0 : g->draft_weights_bytes);
    g->draft_oom = g->draft_layers > 0 && draft > g->headroom_bytes;
    if (g->draft_oom)
        r->max_concurrency = 0;
    kv_sglang_version_format(s->sglang.version, r->engine_version, sizeof r->engine_version);
    r->available_kv_bytes = g->rest_bytes;
    r->kv_cache_bytes = is_dsv4(s) ? g->dsv4_pool_bytes : g->k_bytes + g->v_bytes;
    r->kv_cache_tokens = g->max_total_num_tokens;
    r->longest_context_fit = g->max_total_num_tokens;
    r->estimated = g->estimated;
    /* every rank's host pool, and the weights every rank offloaded */
    r->host_bytes = g->hicache_host_bytes + g->cpu_offload_bytes * (double)(s->tp * s->pp);
    return KV_OK;
}

static double sglang_at(const kv_spec *s, const kv_result *r, int64_t context,
                        double request_bytes)
{
    (void)s;
    (void)request_bytes; /* SGLang counts tokens of one pool, not bytes */
    double n = whole_requests(&r->sglang, context);
    if (running_capped(&r->sglang))
        n = kvm_fmin(n, (double)r->sglang.max_running_requests);
    return n;
}

/* ---- re-laying a log's readings for another layout -------------------------------------- */

/* P and A were read at from's layout and GPU. At another, P moves as kvcalc's estimate of it
 * does (the GPU, the CUDA context, NCCL with TP), the weights the readings imply (P - A)
 * scale as kvcalc's estimate of the weights per GPU does (re-sharded, re-quantized), and A
 * is what is left; one reading alone moves as its estimate does. */
static void sglang_relayout(const kv_spec *from, kv_spec *to, kv_compute_fn compute)
{
    const kv_sglang_spec *f = &from->sglang;
    kv_sglang_spec *t = &to->sglang;
    if (!f->avail_before_gib.set && !f->avail_after_gib.set)
        return;
    kv_spec a = *from, b = *to;
    kv_result ea, eb;
    a.sglang.avail_before_gib = a.sglang.avail_after_gib = KV_NONE_NUM;
    b.sglang.avail_before_gib = b.sglang.avail_after_gib = KV_NONE_NUM;
    if (compute(&a, &ea) != KV_OK || compute(&b, &eb) != KV_OK)
        return;
    if (f->avail_before_gib.set)
        t->avail_before_gib.value =
            f->avail_before_gib.value + eb.sglang.avail_before_gib - ea.sglang.avail_before_gib;
    if (f->avail_before_gib.set && f->avail_after_gib.set) {
        /* the weights the readings imply, re-sharded or re-quantized as kvcalc's estimate is */
        double weights = f->avail_before_gib.value - f->avail_after_gib.value;
        if (ea.weights_bytes > 0)
            weights *= eb.weights_bytes / ea.weights_bytes;
        t->avail_after_gib.value = t->avail_before_gib.value - weights;
    } else if (f->avail_after_gib.set) {
        t->avail_after_gib.value =
            f->avail_after_gib.value + eb.sglang.avail_after_gib - ea.sglang.avail_after_gib;
    }
    if (t->avail_before_gib.set && t->avail_before_gib.value < 0)
        t->avail_before_gib.value = 0;
    if (t->avail_after_gib.set && t->avail_after_gib.value < 0)
        t->avail_after_gib.value = 0;
}

/* ---- the descriptor: SGLang's flags, fields and log tables ------------------------------ */

#define E KV_ENGINE_SGLANG
#define P(TYPE, m) KV_EPARAM(E, kv_sglang_spec, TYPE, m)


static const kv_choice spec_algorithms[] = {
    {"EAGLE", KV_SGLANG_SPEC_EAGLE}, {"EAGLE3", KV_SGLANG_SPEC_EAGLE3},
    {"NEXTN", KV_SGLANG_SPEC_NEXTN}, {"STANDALONE", KV_SGLANG_SPEC_STANDALONE}, {NULL, 0}};

static const kv_choice ssm_dtypes[] = {{"float32", 4}, {"bfloat16", 2}, {"float16", 2},
                                       {NULL, 0}};

static const kv_param params[SG_PARAMS] = {
    [SG_P_FRACTION] = {.name = "mem-fraction-static", P(OPT_NUM, mem_fraction_static),
                       .key = "mem_fraction_static", .min = 0, .min_exclusive = 1, .max = 1,
                       .blames = KV_ERR_ENGINE_INPUT, .meta = "F",
                       .help = "SGLang's static fraction [auto: the version's rule for the GPU "
                               "and TP]"},
    [SG_P_BEFORE] = {.name = "avail-mem-before-load-gib", P(OPT_NUM, avail_before_gib),
                     .key = "avail_mem_before_load_gib", .min = 0, .max = 1e6, .estimate = 1,
                     .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                     .help = "\"Load weight begin. avail mem=P GB\" [auto: estimate]"},
    [SG_P_AFTER] = {.name = "avail-mem-after-load-gib", P(OPT_NUM, avail_after_gib),
                    .key = "avail_mem_after_load_gib", .min = 0, .max = 1e6, .estimate = 1,
                    .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                    .help = "\"Load weight end. ... avail mem=A GB\" [auto: estimate]"},
    [SG_P_PAGE] = {.name = "page-size", P(INT, page_size), .key = "page_size", .min = 1,
                   .max = 1048576, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                   .help = "tokens per page [1]"},
    [SG_P_MAX_TOTAL] = {.name = "max-total-tokens", P(OPT_INT, max_total_tokens),
                        .key = "max_total_tokens", .min = 1, .tokens = 1,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                        .help = "cap on the token pool (SGLang's flag)"},
    [SG_P_CHUNKED] = {.name = "chunked-prefill-size", P(OPT_INT, chunked_prefill_size),
                      .key = "chunked_prefill_size", .min = 1, .max = 1099511627776.0,
                      .tokens = 1, .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                      .help = "enters the default fraction from 0.5.3rc2 [auto: by the GPU]"},
    [SG_P_GRAPH_BS] = {.name = "cuda-graph-max-bs", P(OPT_INT, cuda_graph_max_bs),
                       .key = "cuda_graph_max_bs", .min = 1, .max = 1048576,
                       .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                       .help = "enters the default fraction from 0.5.3rc2 [auto: by the GPU and "
                               "TP]"},
    [SG_P_VERSION] = {.name = "sglang-version", P(VERSION, version), .key = "sglang_version",
                      .blames = KV_ERR_ENGINE_INPUT, .meta = "X.Y.Z",
                      .help = "the SGLang release whose rules apply [0.5.6]",
                      .parse = kv_sglang_version_parse, .format = kv_sglang_version_format,
                      .accepts = "an SGLang version such as 0.4.6, 0.4.3.post4 or 0.5.3rc2"},
    [SG_P_MAMBA_RATIO] = {.name = "mamba-full-memory-ratio", P(OPT_NUM, mamba_full_memory_ratio),
                          .key = "mamba_full_memory_ratio", .min = 0, .min_exclusive = 1,
                          .max = 1e6, .blames = KV_ERR_ENGINE_INPUT, .meta = "R",
                          .help = "state pool : token pool of the budget, with the radix cache "
                                  "[0.9]"},
    [SG_P_MAMBA_SLOTS] = {.name = "max-mamba-cache-size", P(OPT_INT, max_mamba_cache_size),
                          .key = "max_mamba_cache_size", .min = 1, .max = 1e9,
                          .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                          .help = "state slots of a Mamba / linear-attention model [auto: by "
                                  "the ratio]"},
    [SG_P_RUNNING] = {.name = "max-running-requests", P(OPT_INT, max_running_requests),
                      .key = "max_running_requests", .min = 1, .max = 1e9,
                      .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                      .help = "requests running at once (state slots without the radix cache)"},
    [SG_P_NO_RADIX] = {.name = "disable-radix-cache", P(SWITCH, disable_radix_cache),
                       .key = "disable_radix_cache", .switch_value = 1,
                       .blames = KV_ERR_ENGINE_INPUT, .help = "no prefix cache: a state model keeps one slot per request"},
    [SG_P_SSM_DTYPE] = {.name = "mamba-ssm-dtype", P(OPT_CHOICE, mamba_ssm_dtype),
                        .key = "mamba_ssm_dtype", .choices = ssm_dtypes,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "DTYPE",
                        .help = "dtype of the SSM state [float32]"},
    [SG_P_SPEC_TOKENS] = {.name = "speculative-num-draft-tokens",
                          P(INT, speculative_num_draft_tokens),
                          .key = "speculative_num_draft_tokens", .min = 0, .max = 1024,
                          .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                          .help = "EAGLE / NEXTN draft tokens a step: 48 running requests "
                                  "unless given, a state model's draft-token states, the MTP "
                                  "layers' own pool [0: off]"},
    [SG_P_HICACHE] = {.name = "enable-hierarchical-cache", P(SWITCH, hierarchical_cache),
                      .key = "enable_hierarchical_cache", .switch_value = 1,
                      .blames = KV_ERR_ENGINE_INPUT,
                      .help = "HiCache: a host pool beside the device's (the device pool and "
                              "concurrency unchanged)"},
    [SG_P_HICACHE_RATIO] = {.name = "hicache-ratio", P(OPT_NUM, hicache_ratio),
                            .key = "hicache_ratio", .min = 0, .min_exclusive = 1, .max = 1e6,
                            .blames = KV_ERR_ENGINE_INPUT, .meta = "R",
                            .help = "host tokens per device token [2]"},
    /* vLLM's name too, of the same type and bounds (a whole number for SGLang: checked) */
    [SG_P_CPU_OFFLOAD] = {.name = "cpu-offload-gb", P(NUM, cpu_offload_gib),
                          .key = "cpu_offload_gb", .min = 0, .max = 1e6,
                          .blames = KV_ERR_ENGINE_INPUT, .meta = "GIB",
                          .help = "decoder-layer weights per GPU moved to pinned host memory, GiB "
                                  "(from 0.3.6.post3): the GPU's weights shrink, the token pool "
                                  "grows [0]"},
    [SG_P_HICACHE_SIZE] = {.name = "hicache-size", P(NUM, hicache_size_gb), .key = "hicache_size",
                           .min = 0, .max = 1e9, .blames = KV_ERR_ENGINE_INPUT, .meta = "GB",
                           .help = "host pool per rank, GB (10^9 B), instead of the ratio [0]"},
    /* --enable-lora and --max-lora-rank are vLLM's names too: each engine has its row, of
     * one type and bounds, and --engine decides which a name is */
    [SG_P_LORA] = {.name = "enable-lora", P(SWITCH, enable_lora), .key = "enable_lora",
                   .switch_value = 1, .blames = KV_ERR_ENGINE_INPUT,
                   .help = "LoRA buffers of --max-loras-per-batch slots at --max-lora-rank in "
                           "every layer's --lora-target-modules, out of the token pool's budget"},
    [SG_P_MAX_LORAS] = {.name = "max-loras-per-batch", P(INT, max_loras_per_batch),
                        .key = "max_loras_per_batch", .min = 1, .max = 65536,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                        .help = "adapter slots of a batch [8]"},
    [SG_P_LORA_RANK] = {.name = "max-lora-rank", P(INT, max_lora_rank), .key = "max_lora_rank",
                        .min = 1, .max = 65536, .blames = KV_ERR_ENGINE_INPUT, .meta = "R",
                        .help = "the adapters' largest rank [none: needed with --enable-lora]"},
    [SG_P_LORA_MODULES] = {.name = "lora-target-modules", P(VERSION, lora_target_modules),
                           .key = "lora_target_modules", .blames = KV_ERR_ENGINE_INPUT,
                           .meta = "LIST",
                           .help = "targets, comma-separated: q_proj k_proj v_proj o_proj "
                                   "gate_proj up_proj down_proj qkv_proj gate_up_proj, or all "
                                   "[none: needed with --enable-lora]",
                           .parse = lora_modules_parse, .format = lora_modules_format,
                           .accepts = "SGLang's module names, comma-separated (q_proj, k_proj, "
                                      "v_proj, o_proj, gate_proj, up_proj, down_proj, qkv_proj, "
                                      "gate_up_proj, embed_tokens, lm_head), or all"},
    [SG_P_SPEC_ALGO] = {.name = "speculative-algorithm", P(OPT_CHOICE, speculative_algorithm),
                        .aliases = {"speculative-algo", NULL}, .key = "speculative_algorithm",
                        .choices = spec_algorithms, .blames = KV_ERR_ENGINE_INPUT,
                        .meta = "NAME",
                        .help = "EAGLE, EAGLE3, NEXTN, or STANDALONE (a draft model of its own: "
                                "--speculative-draft-model-path; 6 GiB of reserve, its pool "
                                "and weights out of the headroom) [EAGLE / NEXTN with draft "
                                "tokens]"},
    [SG_P_SPEC_STEPS] = {.name = "speculative-num-steps", P(OPT_INT, speculative_num_steps),
                         .key = "speculative_num_steps", .min = 1, .max = 1024,
                         .blames = KV_ERR_ENGINE_INPUT, .meta = "N",
                         .help = "draft steps (up to 0.5.6.post2 they size the pools' "
                                 "headroom) [STANDALONE: 3]"},
    [SG_P_SPEC_TOPK] = {.name = "speculative-eagle-topk", P(OPT_INT, speculative_eagle_topk),
                        .key = "speculative_eagle_topk", .min = 1, .max = 1024,
                        .blames = KV_ERR_ENGINE_INPUT, .meta = "K",
                        .help = "drafts a step branches into (up to 0.5.6.post2 they size the "
                                "pools' headroom) [STANDALONE: 1]"},
};

#define F(name, m, T, unit, ftype, sweep) KV_EFIELD(E, kv_sglang_result, name, m, T, unit, ftype, sweep)
static const kv_field fields[] = {
    F(sglang_mem_fraction_static, mem_fraction_static, double, "fraction", KV_F_NUM, 2),
    F(sglang_avail_mem_before_load_gib, avail_before_gib, double, "GiB", KV_F_NUM, 0),
    F(sglang_avail_mem_after_load_gib, avail_after_gib, double, "GiB", KV_F_NUM, 0),
    F(sglang_estimated, estimated, int, "boolean", KV_F_BOOL, 0),
    F(sglang_cell_bytes, cell_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_hicache_tokens, hicache_tokens, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_hicache_bytes, hicache_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_hicache_host_bytes, hicache_host_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_cpu_offload_bytes, cpu_offload_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_attention_layers, attn_layers, int64_t, "layers", KV_F_INT, 0),
    F(sglang_page_size, page_size, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_max_total_num_tokens, max_total_num_tokens, int64_t, "tokens", KV_F_INT, 1),
    F(sglang_k_bytes, k_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_v_bytes, v_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_mamba_bytes_per_request, mamba_per_req_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_max_mamba_cache_size, max_mamba_cache_size, int64_t, "requests", KV_F_INT, 1),
    F(sglang_mamba_bytes, mamba_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_conv_state_bytes, conv_state_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_ssm_state_bytes, ssm_state_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_max_running_requests, max_running_requests, int64_t, "requests", KV_F_INT, 1),
    F(sglang_speculative_reserved_bytes, spec_reserved_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_intermediate_ssm_state_bytes, inter_ssm_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_intermediate_conv_window_bytes, inter_conv_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_draft_attention_layers, draft_layers, int64_t, "layers", KV_F_INT, 0),
    F(sglang_draft_k_bytes, draft_k_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_draft_v_bytes, draft_v_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_draft_weights_bytes, draft_weights_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_lora_bytes, lora_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_speculative_num_draft_tokens, spec_draft_tokens, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_speculative_headroom_tokens, spec_headroom_tokens, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_draft_kv_heads_per_gpu, draft_kv_heads, int64_t, "heads", KV_F_INT, 0),
    F(sglang_draft_cell_bytes, draft_cell_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_sizing_cell_bytes, sizing_cell_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_headroom_bytes, headroom_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_draft_oom, draft_oom, int, "boolean", KV_F_BOOL, 0),
    F(sglang_dsv4_bytes_per_full_token, dsv4_bytes_per_full_token, double, "bytes", KV_F_NUM, 0),
    F(sglang_dsv4_available_bytes, dsv4_available_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_dsv4_c128_state_fixed_bytes, dsv4_c128_state_fixed_bytes, double, "bytes", KV_F_NUM,
      0),
    F(sglang_dsv4_pool_bytes, dsv4_pool_bytes, double, "bytes", KV_F_NUM, 0),
    F(sglang_dsv4_layers, dsv4_layers, int64_t, "layers", KV_F_INT, 0),
    F(sglang_dsv4_full_token, dsv4_full_token, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_dsv4_full_tokens, dsv4_full, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_dsv4_swa_tokens, dsv4_swa, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_dsv4_c4_tokens, dsv4_c4, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_dsv4_c128_tokens, dsv4_c128, int64_t, "tokens", KV_F_INT, 0),
    F(sglang_dsv4_c4_state_size, dsv4_c4_state, int64_t, "rows", KV_F_INT, 0),
    F(sglang_dsv4_c128_state_size, dsv4_c128_state, int64_t, "rows", KV_F_INT, 0),
};

#define T(...) {__VA_ARGS__}

/* SGLang's lines (python/sglang/srt/model_executor/model_runner.py, mem_cache/memory_pool.py,
 * server_args.py; docs/sglang.md). */
static const kv_log_pattern patterns[] = {
    {"server_args=ServerArgs(", T(0), KV_START, NULL},
    {"model_path='%s'", T(KV_TO_MODEL), 0, NULL},
    {"served_model_name='%s'", T(KV_TO_SERVED), 0, NULL},
    /* the launch command line (python/sglang/srt/server_args.py's add_cli_args) */
    {"--model-path %s ", T(KV_TO_MODEL), 0, NULL},
    {"--model %s ", T(KV_TO_MODEL), 0, NULL}, /* as S09's real command line spells it */
    {"--served-model-name %s ", T(KV_TO_SERVED), 0, NULL},
    {"mem_fraction_static=%f", T(KV_LOG_MEM_FRACTION), 0, NULL},
    {"tp_size=%n", T(KV_LOG_TP), 0, NULL},
    {"pp_size=%n", T(KV_LOG_PP), 0, NULL},
    {"dtype='%s'", T(KV_TO_DTYPE), 0, NULL},
    {"kv_cache_dtype='%s'", T(KV_TO_KV_DTYPE), 0, NULL},
    {"quantization='%s'", T(KV_TO_QUANT), 0, NULL},
    {"page_size=%n", T(KV_LOG_PAGE_SIZE), 0, NULL},
    {"max_total_tokens=%n", T(KV_LOG_MAX_TOTAL_TOKENS), 0, NULL},
    {"chunked_prefill_size=%n", T(KV_LOG_CHUNKED_PREFILL), 0, NULL},
    {"speculative_num_draft_tokens=%n", T(KV_LOG_SPEC_TOKENS), 0, NULL},
    {"speculative_algorithm='EAGLE'", T(KV_LOG_SPEC_ALGO, KV_SGLANG_SPEC_EAGLE), KV_CONST, NULL},
    {"speculative_algorithm='EAGLE3'", T(KV_LOG_SPEC_ALGO, KV_SGLANG_SPEC_EAGLE3), KV_CONST, NULL},
    {"speculative_algorithm='NEXTN'", T(KV_LOG_SPEC_ALGO, KV_SGLANG_SPEC_NEXTN), KV_CONST, NULL},
    {"speculative_algorithm='STANDALONE'", T(KV_LOG_SPEC_ALGO, KV_SGLANG_SPEC_STANDALONE),
     KV_CONST, NULL},
    {"speculative_num_steps=%n", T(KV_LOG_SPEC_STEPS), 0, NULL},
    {"speculative_eagle_topk=%n", T(KV_LOG_SPEC_TOPK), 0, NULL},
    {"enable_lora=True", T(KV_LOG_LORA_ON, 1), KV_CONST, NULL},
    {"max_loras_per_batch=%n", T(KV_LOG_MAX_LORAS), 0, NULL},
    {"max_lora_rank=%n", T(KV_LOG_LORA_RANK), 0, NULL},
    /* the launch command line, when the log keeps it and not the server_args dump */
    {"--mem-fraction-static %f", T(KV_LOG_MEM_FRACTION), 0, NULL},
    {"--mem-fraction-static=%f", T(KV_LOG_MEM_FRACTION), 0, NULL},
    {"--tp-size %n", T(KV_LOG_TP), 0, NULL},
    {"--tp %n", T(KV_LOG_TP), 0, NULL},
    {"--tp=%n", T(KV_LOG_TP), 0, NULL},
    {"--tp-size=%n", T(KV_LOG_TP), 0, NULL},
    /* each rank's lines carry its prefix, "[2026-02-27 17:10:28 TP1] " (the scheduler's
     * logger prefix, " TP{tp_rank}" after DP / PP / EP ones) */
    {"TP%n] ", T(KV_LOG_TP_RANK), KV_MAX | KV_RAW, NULL},
    {"--context-length %n", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
    {"--page-size %n", T(KV_LOG_PAGE_SIZE), 0, NULL},
    {"--chunked-prefill-size %n", T(KV_LOG_CHUNKED_PREFILL), 0, NULL},
    {"--speculative-num-draft-tokens %n", T(KV_LOG_SPEC_TOKENS), 0, NULL},
    {"--enable-lora", T(KV_LOG_LORA_ON, 1), KV_CONST, NULL},
    {"--max-loras-per-batch %n", T(KV_LOG_MAX_LORAS), 0, NULL},
    {"--max-lora-rank %n", T(KV_LOG_LORA_RANK), 0, NULL},
    {"Load weight begin. avail mem=%b", T(KV_LOG_AVAIL_BEFORE), KV_MIN, NULL},
    {"Load weight end.%*dtype=torch.%s,", T(KV_TO_DTYPE), 0, NULL},
    {"Load weight end.%*avail mem=%b", T(KV_LOG_AVAIL_AFTER), KV_MIN, NULL},
    {"Load weight end.%*mem usage=%b", T(KV_LOG_WEIGHTS), 0, NULL},
    {"Using KV cache dtype: torch.%s", T(KV_TO_KV_DTYPE), 0, NULL},
    {"KV Cache is allocated.%*#tokens: %n,", T(KV_LOG_KV_TOKENS), KV_LINE, "#tokens"},
    {"KV Cache is allocated.%*K size: %b, V size: %b", T(KV_LOG_K_BYTES, KV_LOG_V_BYTES),
     KV_LINE, NULL}, /* without "#tokens" (no era set): 0.4.1.post6 to 0.4.3.post2 */
    {"KV Cache is allocated.%*KV size: %b", T(KV_LOG_KV_BYTES), KV_LINE, "MLA"},
    {"Mamba Cache is allocated. max_mamba_cache_size: %n,", T(KV_LOG_MAMBA_SLOTS), 0, NULL},
    {"Mamba Cache is allocated.%*conv_state size: %b, ssm_state size: %b",
     T(KV_LOG_CONV_STATE, KV_LOG_SSM_STATE), 0, NULL},
    {"Mamba Cache is allocated.%*intermediate_ssm_state_cache size: %b", T(KV_LOG_INTER_SSM), 0,
     NULL},
    {"Mamba Cache is allocated.%*intermediate_conv_window_cache size: %b", T(KV_LOG_INTER_CONV),
     0, NULL},
    {"Memory pool end. avail mem=%b", T(KV_LOG_POOL_END), 0, NULL},
    {"Allocating %f GB host memory for hierarchical KV cache.", T(KV_LOG_HICACHE_GB), 0, NULL},
    {"hicache_ratio=%f,", T(KV_LOG_HICACHE_RATIO), 0, NULL},
    /* ServerArgs' dataclass repr: "cpu_offload_gb=4," (an int field) */
    {"cpu_offload_gb=%n,", T(KV_LOG_CPU_OFFLOAD), 0, NULL},
    /* DeepSeek-V4 (pool_configurator.py DSV4PoolConfigurator, from 0.5.12; "DSv4" in the
     * pre-release memory_profiler.py of d17d622fd that logs of 2026-05 print) */
    {"DSV4 memory calculation: bytes_per_full_token=%f,", T(KV_LOG_DSV4_BPFT), 0, NULL},
    {"DSv4 memory calculation: bytes_per_full_token=%f,", T(KV_LOG_DSV4_BPFT), 0, NULL},
    {"DSV4 memory calculation:%*available_bytes=%b,", T(KV_LOG_DSV4_AVAILABLE), KV_MIN, NULL},
    {"DSv4 memory calculation:%*available_bytes=%b,", T(KV_LOG_DSV4_AVAILABLE), KV_MIN, NULL},
    {"DSV4 memory calculation:%*c128_state_fixed=%b,", T(KV_LOG_DSV4_C128_FIXED), 0, NULL},
    {"DSV4 memory calculation:%*full_token=%n", T(KV_LOG_DSV4_FULL_TOKEN), KV_MIN, NULL},
    {"DSv4 memory calculation:%*full_token=%n", T(KV_LOG_DSV4_FULL_TOKEN), KV_MIN, NULL},
    {"DSV4 pool sizes: full=%n, swa=%n, c4=%n, c128=%n, c4_state=%n, c128_state=%n",
     T(KV_LOG_DSV4_FULL, KV_LOG_DSV4_SWA, KV_LOG_DSV4_C4, KV_LOG_DSV4_C128, KV_LOG_DSV4_C4_STATE,
       KV_LOG_DSV4_C128_STATE),
     KV_MIN | KV_LINE, NULL},
    {"max_running_requests=%n", T(KV_LOG_MAX_RUNNING), 0, NULL},
    {"max_total_num_tokens=%n,", T(KV_LOG_KV_TOKENS), KV_LINE, NULL},
    {"context_len=%n", T(KV_LOG_MAX_MODEL_LEN), 0, NULL},
};

#define CORE(id) (&kv_core_params[id])
#define MINE(id) (&params[id])
#define SET(f, p) {f, p, KV_LOG_SETTING, 0, 0, 0}
#define KV_FIGURE_GIB(f, p) {f, p, KV_LOG_KV_FIGURE, 1, 0, 0}

/* The settings the comparison lists apart (in its "Logged:" line). */
static const int settings[] = {KV_LOG_TP, KV_LOG_PP, KV_LOG_MAX_MODEL_LEN, KV_LOG_MEM_FRACTION,
                                KV_LOG_PAGE_SIZE, KV_LOG_MAX_TOTAL_TOKENS, KV_LOG_CHUNKED_PREFILL,
                                KV_LOG_SPEC_TOKENS, KV_LOG_CPU_OFFLOAD};

static const kv_log_input inputs[] = {
    SET(KV_LOG_MAX_MODEL_LEN, CORE(KV_P_CONTEXT)),
    SET(KV_LOG_TP, CORE(KV_P_TP)),
    SET(KV_LOG_MEM_FRACTION, MINE(SG_P_FRACTION)),
    SET(KV_LOG_PAGE_SIZE, MINE(SG_P_PAGE)),
    SET(KV_LOG_MAX_TOTAL_TOKENS, MINE(SG_P_MAX_TOTAL)),
    SET(KV_LOG_CHUNKED_PREFILL, MINE(SG_P_CHUNKED)),
    SET(KV_LOG_SPEC_TOKENS, MINE(SG_P_SPEC_TOKENS)),
    SET(KV_LOG_HICACHE_RATIO, MINE(SG_P_HICACHE_RATIO)),
    SET(KV_LOG_CPU_OFFLOAD, MINE(SG_P_CPU_OFFLOAD)),
    SET(KV_LOG_LORA_ON, MINE(SG_P_LORA)),
    SET(KV_LOG_SPEC_STEPS, MINE(SG_P_SPEC_STEPS)),
    SET(KV_LOG_SPEC_TOPK, MINE(SG_P_SPEC_TOPK)),
    SET(KV_LOG_MAX_LORAS, MINE(SG_P_MAX_LORAS)),
    SET(KV_LOG_LORA_RANK, MINE(SG_P_LORA_RANK)),
    KV_FIGURE_GIB(KV_LOG_AVAIL_BEFORE, MINE(SG_P_BEFORE)),
    KV_FIGURE_GIB(KV_LOG_AVAIL_AFTER, MINE(SG_P_AFTER)),
    {KV_LOG_MAMBA_SLOTS, MINE(SG_P_MAMBA_SLOTS), KV_LOG_KV_FIGURE, 0, 0, 0},
};

/* The release, as logged or as the lines date it; P from A and the weights when the log
 * has no "Load weight begin" (P = A + mem usage, what the weights took). */
static void texts(const kv_log_values *v, kv_log_inputs *in)
{
    int version;
    if (kv_sglang_version_parse(v->version, &version) == 0)
        kv_log_input_put(in, MINE(SG_P_VERSION), KV_LOG_SETTING, v->version);
    else if (!v->era[0] && v->present[KV_LOG_K_BYTES])
        /* "KV Cache is allocated. K size:" without "#tokens" dates the log to 0.4.1.post6 -
         * 0.4.3.post2 (docs/sglang.md), whose sizing rules are one; the version is not
         * stated, so engine_version stays null */
        kv_log_input_put(in, MINE(SG_P_VERSION), KV_LOG_SETTING, "0.4.3.post2");
    else if (v->present[KV_LOG_DSV4_C128_FIXED])
        /* "c128_state_fixed=" dates a DeepSeek-V4 log to 0.5.15 or later (#28612), whose
         * rules kvcalc reads as one; the version is not stated, so engine_version stays null */
        kv_log_input_put(in, MINE(SG_P_VERSION), KV_LOG_SETTING, "0.5.15");
    if (!v->present[KV_LOG_AVAIL_BEFORE] && v->present[KV_LOG_AVAIL_AFTER] &&
        v->present[KV_LOG_WEIGHTS]) {
        char text[64];
        snprintf(text, sizeof text, "%.17g",
                 (v->v[KV_LOG_AVAIL_AFTER] + v->v[KV_LOG_WEIGHTS]) / KV_GIB);
        kv_log_input_put(in, MINE(SG_P_BEFORE), KV_LOG_KV_FIGURE, text);
    }
    /* a DeepSeek-V4 log: max_running_requests sizes its request-scoped 128:1 states (other
     * models' logs keep their comparisons as they were) */
    if (v->present[KV_LOG_DSV4_BPFT] && v->present[KV_LOG_MAX_RUNNING]) {
        char text[32];
        snprintf(text, sizeof text, "%.0f", v->v[KV_LOG_MAX_RUNNING]);
        kv_log_input_put(in, MINE(SG_P_RUNNING), KV_LOG_SETTING, text);
    }
    /* no tp_size stated: the ranks' prefixes tell it (TP1: 2) - only past rank 0, as a log
     * that kept rank 0's lines alone says nothing of the others */
    if (!v->present[KV_LOG_TP] && v->present[KV_LOG_TP_RANK] && v->v[KV_LOG_TP_RANK] >= 1 &&
        v->v[KV_LOG_TP_RANK] < 1e6) {
        char text[32];
        snprintf(text, sizeof text, "%.0f", v->v[KV_LOG_TP_RANK] + 1);
        kv_log_input_put(in, CORE(KV_P_TP), KV_LOG_SETTING, text);
    }
    /* speculative_algorithm='STANDALONE': by its name, as typed */
    for (const kv_choice *c = spec_algorithms; v->present[KV_LOG_SPEC_ALGO] && c->name; c++)
        if (c->value == (int)v->v[KV_LOG_SPEC_ALGO])
            kv_log_input_put(in, MINE(SG_P_SPEC_ALGO), KV_LOG_SETTING, c->name);
}

static const kv_cmp_row rows[] = {
    {"avail mem before load (P)", KV_LOG_AVAIL_BEFORE, 1, KV_CMP_D(sglang.avail_before_gib),
     KV_GIB, "bytes", KV_TERM_BEFORE, 0},
    {"avail mem after load (A)", KV_LOG_AVAIL_AFTER, 1, KV_CMP_D(sglang.avail_after_gib), KV_GIB,
     "bytes", KV_TERM_AFTER, 0},
    {"weights (mem usage)", KV_LOG_WEIGHTS, 1, KV_CMP_D(weights_bytes), 1, "bytes",
     KV_TERM_SETTING, 0},
    {"KV pool (K + V)", KV_LOGGED_KV_TOTAL, 1, KV_CMP_D(kv_cache_bytes), 1, "bytes",
     KV_TERM_BUDGET, 0},
    {"max_total_num_tokens", KV_LOG_KV_TOKENS, 0, KV_CMP_I(kv_cache_tokens), 1, "tokens",
     KV_TERM_KV, 0},
    {"K size", KV_LOG_K_BYTES, 0, KV_CMP_D(sglang.k_bytes), 1, "bytes", KV_TERM_KV, 0},
    {"V size", KV_LOG_V_BYTES, 0, KV_CMP_D(sglang.v_bytes), 1, "bytes", KV_TERM_KV, 0},
    {"KV size (MLA)", KV_LOG_KV_BYTES, 0, KV_CMP_D(kv_cache_bytes), 1, "bytes", KV_TERM_KV, 0},
    {"max_mamba_cache_size", KV_LOG_MAMBA_SLOTS, 1, KV_CMP_I(sglang.max_mamba_cache_size), 1,
     "requests", KV_TERM_BUDGET, 0},
    {"conv_state size", KV_LOG_CONV_STATE, 0, KV_CMP_D(sglang.conv_state_bytes), 1, "bytes",
     KV_TERM_KV, 0},
    {"ssm_state size", KV_LOG_SSM_STATE, 0, KV_CMP_D(sglang.ssm_state_bytes), 1, "bytes",
     KV_TERM_KV, 0},
    {"intermediate_ssm_state_cache", KV_LOG_INTER_SSM, 0, KV_CMP_D(sglang.inter_ssm_bytes), 1,
     "bytes", KV_TERM_KV, 0},
    {"intermediate_conv_window_cache", KV_LOG_INTER_CONV, 0, KV_CMP_D(sglang.inter_conv_bytes),
     1, "bytes", KV_TERM_KV, 0},
    {"DSV4 bytes_per_full_token", KV_LOG_DSV4_BPFT, 0,
     KV_CMP_D(sglang.dsv4_bytes_per_full_token), 1, "B", KV_TERM_LAYOUT, 0},
    {"DSV4 available_bytes", KV_LOG_DSV4_AVAILABLE, 0, KV_CMP_D(sglang.dsv4_available_bytes), 1,
     "bytes", KV_TERM_SETTING, 0},
    {"DSV4 c128_state_fixed", KV_LOG_DSV4_C128_FIXED, 0,
     KV_CMP_D(sglang.dsv4_c128_state_fixed_bytes), 1, "bytes", KV_TERM_SETTING, 0},
    {"DSV4 full_token", KV_LOG_DSV4_FULL_TOKEN, 0, KV_CMP_I(sglang.dsv4_full_token), 1, "tokens",
     KV_TERM_KV, 0},
    {"DSV4 full", KV_LOG_DSV4_FULL, 0, KV_CMP_I(sglang.dsv4_full), 1, "tokens", KV_TERM_KV, 0},
    {"DSV4 swa", KV_LOG_DSV4_SWA, 0, KV_CMP_I(sglang.dsv4_swa), 1, "tokens", KV_TERM_KV, 0},
    {"DSV4 c4", KV_LOG_DSV4_C4, 0, KV_CMP_I(sglang.dsv4_c4), 1, "tokens", KV_TERM_KV, 0},
    {"DSV4 c128", KV_LOG_DSV4_C128, 0, KV_CMP_I(sglang.dsv4_c128), 1, "tokens", KV_TERM_KV, 0},
    {"DSV4 c4_state", KV_LOG_DSV4_C4_STATE, 0, KV_CMP_I(sglang.dsv4_c4_state), 1, "rows",
     KV_TERM_KV, 0},
    {"DSV4 c128_state", KV_LOG_DSV4_C128_STATE, 0, KV_CMP_I(sglang.dsv4_c128_state), 1, "rows",
     KV_TERM_KV, 0},
    {"HiCache host memory", KV_LOG_HICACHE_GB, 0, KV_CMP_D(sglang.hicache_bytes), 1e-9, "GB",
     KV_TERM_SETTING, 0},
};

static const kv_log_what_if what_if[] = {{MINE(SG_P_FRACTION), KV_LOG_MEM_FRACTION, 1}};

/* The pool as logged (K + V, or the MLA total); A and P are printed to 0.01 GB and the pool
 * is A - (1 - f) x P, so its rounding is 0.005 GiB x (2 - f) over the pool. */
static void summary(const kv_log_values *v, const kv_result *a, kv_log_summary *out)
{
    const double *x = v->v;
    const unsigned char *p = v->present;
    kv_log_summary_common(v, KV_LOG_KV_TOKENS, KV_LOG_WEIGHTS, -1, out);
    if (p[KV_LOG_KV_BYTES])
        out->kv_total = x[KV_LOG_KV_BYTES];
    else if (p[KV_LOG_K_BYTES] && p[KV_LOG_V_BYTES])
        out->kv_total = x[KV_LOG_K_BYTES] + x[KV_LOG_V_BYTES];
    if (!v->era[0] && p[KV_LOG_K_BYTES])
        kv_snprintf(out->era, sizeof out->era, "K size: 0.4.1.post6-0.4.3.post2");
    out->unit_round = 0.005 * KV_GIB;
    if (a && a->available_kv_bytes > 0)
        out->rel_round = 0.005 * KV_GIB * (2 - a->sglang.mem_fraction_static) /
                         a->available_kv_bytes;
    /* no mem_fraction_static in the log: what its readings imply, rest = the pools it
     * allocated (K + V and the state buffers) = A - P x (1 - f) */
    /* P as texts() takes it: the reading, else A + mem usage (a log without "Load weight
     * begin"); the state the budget lost is the slots' (mamba_pool), where the logged
     * buffers hold one padded slot more, (slots + 1) x a request's */
    double before = p[KV_LOG_AVAIL_BEFORE] ? x[KV_LOG_AVAIL_BEFORE]
                    : p[KV_LOG_AVAIL_AFTER] && p[KV_LOG_WEIGHTS]
                        ? x[KV_LOG_AVAIL_AFTER] + x[KV_LOG_WEIGHTS]
                        : NAN;
    if (!p[KV_LOG_MEM_FRACTION] && p[KV_LOG_AVAIL_AFTER] && out->kv_total > 0 && before > 0) {
        double state = (p[KV_LOG_CONV_STATE] ? x[KV_LOG_CONV_STATE] : 0) +
                       (p[KV_LOG_SSM_STATE] ? x[KV_LOG_SSM_STATE] : 0);
        if (p[KV_LOG_MAMBA_SLOTS] && x[KV_LOG_MAMBA_SLOTS] >= 0)
            state *= x[KV_LOG_MAMBA_SLOTS] / (x[KV_LOG_MAMBA_SLOTS] + 1);
        double f = 1 - (x[KV_LOG_AVAIL_AFTER] - out->kv_total - state) / before;
        if (f > 0 && f <= 1)
            kv_snprintf(out->hint, sizeof out->hint,
                     "no mem_fraction_static logged; its readings imply %.3f "
                     "(--mem-fraction-static or --gpu)", f);
    }
}

static double fraction(const kv_result *b)
{
    return b->sglang.mem_fraction_static;
}

static const kv_engine_log sglang_log = {
    KV_TABLE(patterns, patterns),
    .field_names = kv_log_field_names,
    .n_fields = KV_LOG_FIELDS,
    .flash_field = -1,
    .weights_field = KV_LOG_WEIGHTS,
    .unified_field = -1,
    KV_TABLE(settings, settings),
    KV_TABLE(inputs, inputs),
    .partial_figure = 1 + KV_LOG_MAMBA_SLOTS,
    .texts = texts,
    KV_TABLE(rows, rows),
    KV_TABLE(what_if, what_if),
    .gpu_total_field = -1,
    .needs_gpu_total = 1,
    .e2e_available = 0,
    .summary = summary,
    .fraction = fraction,
};

/* /metrics (--enable-metrics; python/sglang/srt/metrics/collector.py; the names of each era
 * in ../shared/reference/workload.md 2): 2025 names, the WIP names of PR #1461 (2024),
 * routers' sglang_ re-exports; a tp_rank or pp_rank above 0 repeats rank 0 */
#define M(name, m, how, gen) {name, KV_METRIC_AT(m), KV_AGG_##how, gen}
static const kv_metric_row metric_rows[] = {
    M("token_usage", kv_usage, MEAN, NULL),
    M("max_total_num_tokens", capacity_tokens, FIRST, NULL),
    M("num_used_tokens", used_tokens, SUM, NULL),
    M("num_running_reqs", running, SUM, NULL),
    M("num_requests_running", running, SUM, "the WIP names of 2024 (num_requests_running)"),
    M("num_queue_reqs", waiting, SUM, NULL),
    M("queue_req", waiting, SUM, "the WIP names of 2024 (queue_req)"),
    M("cache_hit_rate", prefix_hit_rate, MEAN, NULL),
    M("num_retracted_reqs", retracted, SUM, NULL),
    M("num_retracted_requests_total", preemptions, SUM, NULL),
    M("max_running_requests", max_running, FIRST, NULL),
    M("context_len", context_len, FIRST, NULL),
    M("prompt_tokens_total", prompt_tokens_total, SUM, NULL),
    M("generation_tokens_total", generation_tokens_total, SUM, NULL),
    M("num_requests_total", finished, SUM, NULL),
    KV_METRIC_LATENCY_ROWS,
};
#undef M
static const kv_metric_input metric_inputs[] = {
    {KV_METRIC_AT(context_len), "context-length", 0},
    {KV_METRIC_AT(max_running), "max-running-requests", 0},
    {KV_METRIC_AT(capacity_tokens), "max-total-tokens", 1},
};
static const char *const metric_prefixes[] = {"sglang:", "sglang_", NULL};
static const char *const metric_prefix_words[] = {
    NULL, "re-exported with the sglang_ prefix (a router)", NULL};
static const char *const metric_ranks[] = {"tp_rank", "pp_rank", NULL};
static const kv_engine_metrics sglang_metrics = {
    .prefixes = metric_prefixes,
    .prefix_words = metric_prefix_words,
    KV_TABLE(rows, metric_rows),
    KV_TABLE(inputs, metric_inputs),
    .rank_labels = metric_ranks,
    .replica_label = "dp_rank",
};

/* SGLang's scheduler under a workload (python/sglang/srt/managers/schedule_policy.py
 * PrefillAdder @ ad0119fdde519598c25f5c48b95dacaa2b85d607, scheduler.py
 * get_next_batch_to_run @ 0003215cf1464f44b389cd0b18d0b4c56f2a3da6, schedule_batch.py
 * check_decode_mem / retract_decode @ fd3907ee4618e96b73ee94d9a836db78efb5d046,
 * new_token_ratio_tracker.py @ 1a882c5c63cfeff4e20254078cbd89500d5b1fe9): a prefill batch
 * runs whenever one can be formed (no mixing: enable_mixed_chunk is off by default); a
 * waiting request is admitted while prompt + min(max_new - generated, 4096) stays under the
 * free tokens less every running request's min(max_new - generated, 4096) x
 * new_token_ratio; the ratio starts at 0.7, falls by (0.7 - 0.098) / 600 each decode step to
 * 0.098; short of a token per running request, the fewest-generated (then longest-prompt)
 * are retracted to the back of the queue and the ratio becomes (generated + 20 x
 * remaining) / (max_new + 1). max_running_requests unless given: min(N // 2, the
 * request-to-token slots min(max(N / context x 512, 2048), 4096) + 1) (tp_worker.py,
 * v0.4.6); chunked_prefill_size unless given: by the GPU's memory (v0.5.3rc2+; the same
 * table used for the fraction). */
static kv_status sglang_sched(const kv_spec *s, const kv_result *r, kv_sched *out,
                              kv_error *why)
{
    const kv_sglang_result *g = &r->sglang;
    const char *no = NULL;
    if (g->max_total_num_tokens < 2)
        no = "SGLang would not start with these settings: nothing to simulate";
    else if (s->sglang.chunked_prefill_size.set &&
             s->sglang.chunked_prefill_size.value % g->page_size != 0)
        no = "SGLang: \"chunked_prefill_size must be divisible by page_size\"";
    else if (spec_tokens(&s->sglang) > 0)
        no = "speculative decoding's accepted tokens per step are not modelled in the workload";
    else if (is_dsv4(s))
        no = "SGLang's DeepSeek-V4 pools (full, SWA, compressed, states) are not simulated "
             "under a workload";
    if (no)
        return kv_sched_refuse(why, no);
    int64_t n = g->max_total_num_tokens;
    int64_t slots = (int64_t)((double)n / (double)s->context * 512.0);
    slots = (slots < 2048 ? 2048 : slots > 4096 ? 4096 : slots) + 1;
    int64_t running = s->sglang.max_running_requests.set ? s->sglang.max_running_requests.value
                                                          : n / 2;
    if (running > slots)
        running = slots;
    if (running_capped(g) && g->max_running_requests < running)
        running = g->max_running_requests; /* the state pool's slots */
    if (running < 1)
        return kv_sched_refuse(why, "SGLang runs no request at once: its state pool has fewer "
                                    "than 3 slots (max_mamba_cache_size // 3 is 0)");
    const card_row *row = card_rows;
    while (g->gpu_mem_mib >= row->below_mib)
        row++;
    out->kind = KV_SCHED_RESERVE;
    out->engine_title = "SGLang";
    out->rules = "SGLang: python/sglang/srt/managers/schedule_policy.py (PrefillAdder) @ ad0119fd, "
                 "scheduler.py @ 0003215c, schedule_batch.py (retract_decode) @ fd3907ee";
    /* pages of --page-size tokens (N is whole pages); the simulation takes, reserves and
     * frees them as the paged allocator does (workload.c schedule_reserve) */
    out->pool_blocks = n / g->page_size;
    out->group[0] = (kv_sched_group){.groups = 1, .block_size = g->page_size};
    out->n_groups = 1;
    out->max_seqs = running;
    out->max_seqs_name = "max_running_requests";
    out->max_batched_tokens = s->sglang.chunked_prefill_size.set
                                  ? s->sglang.chunked_prefill_size.value
                                  : row->chunked;
    out->max_prefill_tokens = 16384;
    out->clip_new_tokens = 4096;
    out->ratio_init = 0.7;
    out->ratio_min = 0.7 * 0.14;
    out->ratio_decay = (out->ratio_init - out->ratio_min) / 600.0;
    out->retract_steps = 20;
    out->max_model_len = s->context;
    out->preempt_word = "retractions";
    out->unit = g->page_size > 1 ? "pages" : "tokens";
    /* the radix cache (on unless --disable-radix-cache): a shared prefix's pages are matched,
     * locked while used and evicted last (mem_cache/radix_cache.py); a model of state layers
     * keeps its states in a cache of its own (not simulated with one) */
    out->prefix_caching = !s->sglang.disable_radix_cache && !(g->mamba_per_req_bytes > 0);
    out->left_out = out->prefix_caching
                        ? "the radix cache's hits beyond --shared-prefix-tokens (other prompts "
                          "distinct), each request's max_new_tokens taken as its output; a step "
                          "takes one tpot (given or estimated) whatever its batch"
                        : "the radix cache's prefix hits (every prompt distinct), each request's "
                          "max_new_tokens taken as its output; a step takes one tpot (given or "
                          "estimated) whatever its batch";
    return KV_OK;
}

/* Short of host memory (HiCache's pool on every rank, --cpu-offload-gb) SGLang refuses to
 * start ("Not enough host memory ..."): no token pool, as in any refusal. */
static void sglang_host_refused(kv_result *r)
{
    r->sglang.max_total_num_tokens = 0;
    r->kv_cache_tokens = 0;
}

/* HiCache's check (HostKVCache._check_host_memory_available, pool_host/base.py @
 * 049f8e64daef): the pool must fit psutil's available memory less
 * HICACHE_HOST_MEMORY_RESERVE_BYTES = 10 * (1024**3), "Host RAM to leave free when sizing
 * HiCache pools (OS, other processes)". Without HiCache SGLang checks nothing of the kind. */
static double sglang_host_reserve(const kv_spec *s, const kv_result *r)
{
    (void)s;
    return r->sglang.hicache_host_bytes > 0 ? 10.0 * 1073741824.0 : 0;
}

static const char *sglang_prefix_note(const kv_spec *s, const kv_result *r)
{
    (void)r;
    return s->sglang.disable_radix_cache ? "SGLang shares none of it here: --disable-radix-cache"
                                         : NULL;
}

const kv_engine_desc kv_engine_sglang = {
    .id = E,
    .title = "SGLang",
    .budget_words = "SGLang's token pool (rest = A - P x (1 - f), less any LoRA buffers and "
                    "state pool)",
    .doc = "docs/sglang.md",
    .defaults = sglang_defaults,
    .check = sglang_check,
    .compute = sglang_compute,
    .prefix_note = sglang_prefix_note,
    .host_refused = sglang_host_refused,
    .host_reserve = sglang_host_reserve,
    .concurrency_at = sglang_at,
    .relayout = sglang_relayout,
    .kv8_name = "fp8",
    .params = params,
    .n_params = SG_PARAMS,
    .draft_at = KV_DRAFT_AT(kv_sglang_spec, draft),
    KV_TABLE(fields, fields),
    .log = &sglang_log,
    .metrics = &sglang_metrics,
    .sched = sglang_sched,
};
