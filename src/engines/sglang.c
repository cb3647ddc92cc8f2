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
#include "kvcalc.h"

#include "engine.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A version as one ordered number: ((major x 100 + minor) x 100 + patch) x 100 + suffix,
 * where the suffix is N for rcN (N < 40), 40 for the release and 41 + N for .postN, so that
 * 0.5.3rc0 < 0.5.3rc2 < 0.5.3 < 0.5.3.post1 compare as numbers. */
#define SUFFIX_FINAL 40
#define V(a, b, c) ((((a) * 100 + (b)) * 100 + (c)) * 100 + SUFFIX_FINAL)
#define POST(v, n) ((v) + 1 + (n))
#define RC(v, n) ((v) - SUFFIX_FINAL + (n))

#define SGLANG_DEFAULT_VERSION V(0, 5, 6)
#define CUDA_CONTEXT_GIB 1.0 /* driver total minus free before load, TP1 (estimate) */
#define NCCL_GIB 0.5         /* more of it with TP: communication buffers (estimate) */

void kv_sglang_defaults(kv_sglang_spec *g)
{
    g->mem_fraction_static = -1;
    g->avail_before_gib = -1;
    g->avail_after_gib = -1;
    g->page_size = 1;
    g->max_total_tokens = 0;
    g->chunked_prefill_size = 0;
    g->cuda_graph_max_bs = 0;
    g->version = SGLANG_DEFAULT_VERSION;
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
        snprintf(buf, cap, "%d.%d.%drc%d", major, minor, patch, suffix);
    else if (suffix == SUFFIX_FINAL)
        snprintf(buf, cap, "%d.%d.%d", major, minor, patch);
    else
        snprintf(buf, cap, "%d.%d.%d.post%d", major, minor, patch, suffix - SUFFIX_FINAL - 1);
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
    return nearbyint(x * 1000.0) / 1000.0;
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

static double reserve_2025(double mib, int64_t tp, int64_t chunked, int64_t graph_bs)
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

double kv_sglang_default_fraction(int version, double mib, int64_t tp, int vision,
                                  int64_t chunked, int64_t graph_bs)
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
        f = round3((mib - reserve_2025(mib, tp, chunked, graph_bs)) / mib);
    return vision ? f * vision_factor(version) : f;
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
    kv_layer_counts(&s->layout, s->layers, counts);
    /* no hybrid pool is modelled: window and chunk layers get a full-length cache */
    return counts[KV_LAYER_FULL] + counts[KV_LAYER_SLIDING] + counts[KV_LAYER_CHUNKED];
}

static void sglang_compute_into(const kv_spec *s, const kv_result *r, kv_sglang_result *out)
{
    const kv_sglang_spec *g = &s->sglang;
    int vision = s->arch.vision_tower;
    memset(out, 0, sizeof *out);
    out->gpu_mem_mib = s->gpu_mem_gib * 1024.0;
    if (g->mem_fraction_static > 0) {
        out->mem_fraction_static = g->mem_fraction_static;
        if (vision && vision_factor_on_user_value(g->version))
            out->mem_fraction_static *= vision_factor(g->version);
    } else {
        out->fraction_default = 1;
        out->mem_fraction_static = kv_sglang_default_fraction(
            g->version, out->gpu_mem_mib, s->tp, vision, g->chunked_prefill_size,
            g->cuda_graph_max_bs);
    }

    /* P and A: from the log, else estimated (the GPU minus the CUDA context, minus the
     * weights on this rank); one of them given gives the other through the weights */
    double weights_gib = r->weights_bytes / KV_GIB;
    double p = g->avail_before_gib, a = g->avail_after_gib;
    out->estimated = p < 0 || a < 0;
    if (p < 0)
        p = a >= 0 ? a + weights_gib
                   : s->gpu_mem_gib - CUDA_CONTEXT_GIB - (s->tp > 1 ? NCCL_GIB : 0);
    if (a < 0)
        a = p - weights_gib;
    out->avail_before_gib = p;
    out->avail_after_gib = a;
    double rest = a - p * (1 - out->mem_fraction_static);
    out->rest_bytes = rest * 1073741824.0;

    /* the cell: every attention layer of one rank; MLA keeps one latent, not split by TP */
    double elem = kv_dtype_get(s->dtype)->bytes;
    out->attn_layers = attention_layers(s);
    double k_row = s->layout.mla ? (double)s->layout.mla_latent
                                 : (double)r->kv_heads_per_gpu * (double)s->head_dim;
    double v_row = s->layout.mla ? 0.0 : k_row;
    double layers = (double)out->attn_layers;
    out->cell_bytes = (k_row + v_row) * layers * elem;

    /* N: floor(rest x 2^30 / cell) as SGLang's float floor division, capped, paged;
     * the flags bound P and A, so N stays far below 2^63 */
    out->page_size = g->page_size;
    int64_t n = 0;
    if (out->cell_bytes > 0 && rest > 0)
        n = (int64_t)floor(rest * 1073741824.0 / out->cell_bytes);
    if (g->max_total_tokens > 0 && n > g->max_total_tokens)
        n = g->max_total_tokens;
    n = n / g->page_size * g->page_size;
    out->max_total_num_tokens = n > 0 ? n : 0;
    out->pad_rows = g->version >= V(0, 4, 4) ? g->page_size : 1;
    if (out->max_total_num_tokens > 0) {
        double rows = (double)(out->max_total_num_tokens + out->pad_rows);
        out->k_bytes = rows * k_row * layers * elem;
        out->v_bytes = rows * v_row * layers * elem;
    }
}

/* ---- the engine interface --------------------------------------------------------------- */

static kv_status sglang_check(const kv_spec *s)
{
    const kv_sglang_spec *g = &s->sglang;
    const double gibs[] = {g->avail_before_gib, g->avail_after_gib};
    for (size_t i = 0; i < sizeof gibs / sizeof gibs[0]; i++)
        if (!isfinite(gibs[i]) || gibs[i] > 1e6)
            return KV_ERR_SGLANG;
    if (!isfinite(g->mem_fraction_static) || g->mem_fraction_static > 1 || g->page_size < 1 ||
        g->page_size > (1 << 20) || g->max_total_tokens < 0 || g->chunked_prefill_size < 0 ||
        g->cuda_graph_max_bs < 0 || !(s->gpu_mem_gib > 0) || s->gpu_mem_gib > 1e6)
        return KV_ERR_SGLANG;
    return KV_OK;
}

/* Whole requests of `context` tokens in the pool: each takes whole pages. */
static double whole_requests(const kv_sglang_result *g, int64_t context)
{
    int64_t pages = g->max_total_num_tokens / g->page_size;
    int64_t per_request = context / g->page_size + (context % g->page_size != 0);
    return (double)(pages / per_request);
}

static kv_status sglang_compute(const kv_spec *s, kv_result *r)
{
    kv_sglang_result *g = &r->sglang;
    sglang_compute_into(s, r, g);
    r->max_concurrency = whole_requests(g, s->context);
    kv_sglang_version_format(s->sglang.version, r->engine_version, sizeof r->engine_version);
    r->available_kv_bytes = g->rest_bytes;
    r->kv_cache_bytes = g->k_bytes + g->v_bytes;
    r->kv_cache_tokens = g->max_total_num_tokens;
    r->longest_context_fit = g->max_total_num_tokens;
    return KV_OK;
}

static double sglang_at(const kv_spec *s, const kv_result *r, int64_t context,
                        double request_bytes)
{
    (void)s;
    (void)request_bytes; /* SGLang counts tokens of one pool, not bytes */
    return whole_requests(&r->sglang, context);
}

const kv_engine_ops kv_engine_sglang_ops = {"sglang", sglang_check, sglang_compute, sglang_at,
                                          "fp8", NULL};
