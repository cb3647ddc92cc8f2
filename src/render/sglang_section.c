/*
 * sglang_section.c - the --engine sglang section of the text report.
 *
 * SGLang's own start-up lines come out in its words and formats ("%.2f GB" of 2^30 bytes,
 * the line of the version chosen), so they can be put beside a real log; the lines around
 * them show the budget and the cell that produced them. Without the two "avail mem"
 * readings of a log, kvcalc estimates them, and every such figure is labelled.
 */
#define KVCALC_ENGINES /* this engine's own figures */
#include "kvprint.h"
#include "report.h"

#include "format.h"

/* Why SGLang runs at most so many requests at once (kv_sglang_cap). */
static const char *const cap_reasons[] = {
    [KV_SGLANG_CAP_SLOTS_3] = "slots / 3 with the radix cache",
    [KV_SGLANG_CAP_SLOTS] = "one slot each without the radix cache",
    [KV_SGLANG_CAP_FLAG] = "--max-running-requests",
    [KV_SGLANG_CAP_SPEC] = "48 under speculative decoding",
};

/* SGLang's versions as kvcalc numbers them (sglang.c): the first with a line. */
#define VERSION_SIZE_LINE 401 * 100 + 47     /* 0.4.1.post6: "K size: X GB, V size: Y GB." */
#define VERSION_TOKENS_LINE 403 * 100 + 44   /* 0.4.3.post3: "#tokens: N, K size: ..." */
#define VERSION_MLA_LINE 405 * 100 + 44      /* 0.4.5.post3: "#tokens: N, KV size: Z GB" */
#define VERSION_DSV4_C128 515 * 100 + 0      /* 0.5.15rc0: "c128_state_fixed=Y GB" (#28612) */

static const char *gb(char *buf, size_t cap, double bytes)
{
    return fmt_fixed(buf, cap, bytes / KV_GIB, 2, 0);
}

/* A model with state layers: the state pool comes out of the budget first. */
static void state_lines(FILE *out, const kv_spec *s, const kv_sglang_result *g)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    const kv_sglang_spec *in = &s->sglang;
    int64_t d = g->spec_draft_tokens;
    const char *why = in->max_mamba_cache_size.set ? "--max-mamba-cache-size"
                      : g->mamba_auto ? "r / (1 + r) of the budget, r = --mamba-full-memory-ratio"
                      : in->max_running_requests.set ? "--max-running-requests (no radix cache)"
                      : d > 0 ? "48 running requests under speculative decoding (no radix cache)"
                              : "512 without the radix cache";
    if (d > 0)
        kv_fprintf(out, "  drafts  : %lld running x %lld draft tokens x %s B = %s GB of draft-token "
                     "states, off the budget first\n",
                (long long)g->spec_running, (long long)d,
                fmt_fixed(a, sizeof a, g->mamba_per_req_bytes, 0, 1),
                gb(b, sizeof b, g->spec_reserved_bytes));
    kv_fprintf(out, "  state   : %s B per request (conv state bf16, SSM state %s), %lld slots (%s)\n",
            fmt_fixed(a, sizeof a, g->mamba_per_req_bytes, 0, 1),
            in->mamba_ssm_dtype.set && in->mamba_ssm_dtype.value == 2 ? "16-bit" : "float32",
            (long long)g->max_mamba_cache_size, why);
    /* SGLang's line: no comma before the intermediate caches, a space at the end */
    kv_fprintf(out, "Mamba Cache is allocated. max_mamba_cache_size: %lld, conv_state size: %sGB, "
                 "ssm_state size: %sGB",
            (long long)g->max_mamba_cache_size, gb(a, sizeof a, g->conv_state_bytes),
            gb(b, sizeof b, g->ssm_state_bytes));
    if (d > 0)
        kv_fprintf(out, " intermediate_ssm_state_cache size: %sGB intermediate_conv_window_cache "
                     "size: %sGB",
                gb(a, sizeof a, g->inter_ssm_bytes), gb(b, sizeof b, g->inter_conv_bytes));
    fputc('\n', out);
    char e[FMT_BUF + 8] = "";
    if (d > 0)
        kv_snprintf(e, sizeof e, "%s - ", gb(c, sizeof c, g->spec_reserved_bytes));
    kv_fprintf(out, "  tokens  : %s - %s%lld x %s B = %s GB for the token pool\n",
            gb(a, sizeof a, g->budget_bytes), e, (long long)g->max_mamba_cache_size,
            fmt_fixed(b, sizeof b, g->mamba_per_req_bytes, 0, 1), gb(c, sizeof c, g->rest_bytes));
}

static void budget_lines(FILE *out, const kv_spec *s, const kv_sglang_result *g)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    const char *p_note = s->sglang.avail_before_gib.set ? "" : " (estimate: GPU minus CUDA context)";
    const char *a_note = s->sglang.avail_after_gib.set ? ""
                         : g->draft_weights_in_a_bytes > 0
                             ? " (estimate: minus the weights, the draft's too)"
                             : " (estimate: minus the weights)";
    kv_fprintf(out, "Load weight begin. avail mem=%s GB%s\n",
            fmt_fixed(a, sizeof a, g->avail_before_gib, 2, 0), p_note);
    kv_fprintf(out, "Load weight end. avail mem=%s GB, mem usage=%s GB.%s\n",
            fmt_fixed(a, sizeof a, g->avail_after_gib, 2, 0),
            fmt_fixed(b, sizeof b, g->avail_before_gib - g->avail_after_gib, 2, 0), a_note);
    if (g->cpu_offload_bytes > 0)
        kv_fprintf(out, "  offload : --cpu-offload-gb %s: %s GB of the decoder layers' weights in "
                        "pinned host memory on each rank, not in mem usage (%s)\n",
                   fmt_g(a, sizeof a, s->sglang.cpu_offload_gib),
                   gb(b, sizeof b, g->cpu_offload_bytes),
                   g->cpu_offload_bytes < s->sglang.cpu_offload_gib * KV_GIB
                       ? "all of them: fewer than asked"
                       : "SGLang moves whole parameters, so up to one tensor more");
    char l[FMT_BUF + 8] = "";
    if (g->lora_bytes > 0) {
        /* SGLang prints no line of its own for them */
        const kv_sglang_spec *in = &s->sglang;
        char t[256];
        int is_string;
        kv_param_text(t, sizeof t, s, kv_param_find("lora-target-modules", 19), &is_string);
        kv_fprintf(out, "  LoRA    : %lld adapter slot%s of rank %lld in every layer's %s, model "
                     "dtype: %s GB, made after the weights, before the pool\n",
                (long long)in->max_loras_per_batch, in->max_loras_per_batch == 1 ? "" : "s",
                (long long)in->max_lora_rank, t, gb(c, sizeof c, g->lora_bytes));
        kv_snprintf(l, sizeof l, "%s - ", gb(c, sizeof c, g->lora_bytes));
    }
    kv_fprintf(out, "  budget  : rest = A - %sP x (1 - f) = %s - %s%s x (1 - %s) = %s GB  (f: %s)\n",
            g->lora_bytes > 0 ? "LoRA - " : "", fmt_g(a, sizeof a, g->avail_after_gib), l,
            fmt_g(b, sizeof b, g->avail_before_gib),
            fmt_g(c, sizeof c, g->mem_fraction_static), gb(d, sizeof d, g->budget_bytes),
            g->fraction_default ? "this version's default for the GPU's size and TP: a "
                                  "bigger card reserves more"
                                : "--mem-fraction-static");
    if (g->mamba_per_req_bytes > 0)
        state_lines(out, s, g);
    if (g->dsv4_bytes_per_full_token > 0)
        return; /* DeepSeek-V4: dsv4_lines */
    kv_fprintf(out, "  cell    : %s B per token (%lld attention layers%s), page size %lld\n",
            fmt_fixed(a, sizeof a, g->cell_bytes, 0, 1), (long long)g->attn_layers,
            s->layout.mla ? ", one MLA latent, not split by TP" : "", (long long)g->page_size);
    if (g->sizing_cell_bytes != g->cell_bytes)
        kv_fprintf(out, "  sized by: %s B = the cell x (1 + %lld draft layers / %lld): the draft's "
                     "pool is counted as layers of the target's\n",
                fmt_fixed(a, sizeof a, g->sizing_cell_bytes, 0, 1),
                (long long)s->sglang.draft.layers, (long long)g->attn_layers);
}

static void pool_line(FILE *out, const kv_spec *s, const kv_sglang_result *g)
{
    char a[FMT_BUF], b[FMT_BUF];
    int v = s->sglang.version;
    long long n = (long long)g->max_total_num_tokens;
    if (s->layout.mla) {
        if (v >= VERSION_MLA_LINE)
            kv_fprintf(out, "KV Cache is allocated. #tokens: %lld, KV size: %s GB\n", n,
                    gb(a, sizeof a, g->k_bytes));
        else
            kv_fprintf(out, "  (this version prints no size for an MLA pool: KV %s GB)\n",
                    gb(a, sizeof a, g->k_bytes));
    } else if (v >= VERSION_TOKENS_LINE)
        kv_fprintf(out, "KV Cache is allocated. #tokens: %lld, K size: %s GB, V size: %s GB\n", n,
                gb(a, sizeof a, g->k_bytes), gb(b, sizeof b, g->v_bytes));
    else if (v >= VERSION_SIZE_LINE)
        kv_fprintf(out, "KV Cache is allocated. K size: %s GB, V size: %s GB.\n",
                gb(a, sizeof a, g->k_bytes), gb(b, sizeof b, g->v_bytes));
    else
        kv_fprintf(out, "  (this version prints no K/V sizes: K %s GB, V %s GB)\n",
                gb(a, sizeof a, g->k_bytes), gb(b, sizeof b, g->v_bytes));
}

/* DeepSeek-V4: DSV4PoolConfigurator's coefficient, its two lines, and its pools
 * (pool_configurator.py; sglang.c dsv4_pool). */
static void dsv4_lines(FILE *out, const kv_spec *s, const kv_result *r)
{
    const kv_sglang_result *g = &r->sglang;
    const kv_layout *l = &s->layout;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    int per_request = s->sglang.version >= VERSION_DSV4_C128;
    int64_t entry = s->head_dim + s->arch.qk_rope_dim + 8;
    int spec = g->spec_draft_tokens > 0;
    char draft[64] = "";
    if (spec)
        kv_snprintf(draft, sizeof draft, ", all x (%lld + 1) / %lld for the MTP draft",
                    (long long)g->dsv4_layers, (long long)g->dsv4_layers);
    kv_fprintf(out, "  per token: %s B a full token = 0.1 x %lld x %lld windows + %lld x %lld / 4 + "
                 "%lld x %lld / 128 latents + %lld x %lld / 4 indexer keys + 0.1 x %d / %lld of the "
                 "4:1 states%s%s (swa_full_tokens_ratio 0.1, %lld layers%s)\n",
            fmt_fixed(a, sizeof a, g->dsv4_bytes_per_full_token, 2, 1), (long long)entry,
            (long long)g->dsv4_layers, (long long)entry, (long long)l->csa_c4, (long long)entry,
            (long long)l->csa_c128,
            (long long)(l->csa_index_dim + l->csa_index_dim / 128 * 4), (long long)l->csa_c4,
            spec ? 16 : 8, (long long)l->csa_window,
            per_request ? "" : spec ? " and 0.1 x 256 / 128 of the 128:1 states"
                                    : " and 0.1 x 128 / 128 of the 128:1 states",
            draft,
            (long long)g->dsv4_layers,
            g->dsv4_layers > s->layers ? ": every compress_ratios entry, the MTP layer's too" : "");
    if (per_request && g->dsv4_c128_state_fixed_bytes > 0)
        kv_fprintf(out, "  c128    : the 128:1 states per request, off the budget first: %lld running "
                     "(%s) + 1 slots x %d rows + %d, to whole 128s, x %lld B x %lld layers = "
                     "%s GB\n",
                (long long)g->max_running_requests,
                s->sglang.max_running_requests.set ? "--max-running-requests"
                                                   : "DeepSeek-V4's default 256",
                spec ? 256 : 128, spec ? 257 : 129, (long long)(2 * s->head_dim * 4),
                (long long)l->csa_c128,
                gb(a, sizeof a, g->dsv4_c128_state_fixed_bytes));
    if (per_request)
        kv_fprintf(out, "DSV4 memory calculation: bytes_per_full_token=%s, available_bytes=%s GB, "
                     "c128_state_fixed=%s GB, full_token=%lld\n",
                fmt_fixed(a, sizeof a, g->dsv4_bytes_per_full_token, 2, 0),
                gb(b, sizeof b, g->dsv4_available_bytes),
                gb(c, sizeof c, g->dsv4_c128_state_fixed_bytes), (long long)g->dsv4_full_token);
    else
        kv_fprintf(out, "DSV4 memory calculation: bytes_per_full_token=%s, available_bytes=%s GB, "
                     "full_token=%lld\n",
                fmt_fixed(a, sizeof a, g->dsv4_bytes_per_full_token, 2, 0),
                gb(b, sizeof b, g->dsv4_available_bytes), (long long)g->dsv4_full_token);
    const int64_t *p = g->dsv4_profiled;
    kv_fprintf(out, "DSV4 pool sizes: full=%lld, swa=%lld, c4=%lld, c128=%lld, c4_state=%lld, "
                 "c128_state=%lld\n",
            (long long)p[0], (long long)p[1], (long long)p[2], (long long)p[3], (long long)p[4],
            (long long)p[5]);
    if (g->dsv4_full != p[0])
        kv_fprintf(out, "DSV4 pool sizes: full=%lld, swa=%lld, c4=%lld, c128=%lld, c4_state=%lld, "
                     "c128_state=%lld\n  (again, from --max-total-tokens %lld)\n",
                (long long)g->dsv4_full, (long long)g->dsv4_swa, (long long)g->dsv4_c4,
                (long long)g->dsv4_c128, (long long)g->dsv4_c4_state,
                (long long)g->dsv4_c128_state, (long long)s->sglang.max_total_tokens.value);
    kv_fprintf(out, "  pools   : %s B by the configurator's count (full x bytes_per_full_token%s), "
                 "pages of %lld tokens\n",
            fmt_fixed(a, sizeof a, g->dsv4_pool_bytes, 0, 1),
            g->dsv4_c128_state_fixed_bytes > 0 ? " + c128_state_fixed" : "",
            (long long)g->page_size);
    kv_fprintf(out, "max_total_num_tokens=%lld, context_len=%lld\n",
            (long long)g->max_total_num_tokens, (long long)s->context);
    kv_fprintf(out, "  %s whole requests of %s tokens at once: each takes whole pages of the full pool "
                 "(at most %lld running: %s; the window pool's share per request is not "
                 "checked).\n\n",
            fmt_fixed(a, sizeof a, r->max_concurrency, 0, 1), fmt_int(b, sizeof b, s->context, 1),
            (long long)g->max_running_requests,
            s->sglang.max_running_requests.set ? "--max-running-requests"
                                               : "DeepSeek-V4's default 256");
}

void report_sglang_text(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    const kv_sglang_result *g = &r->sglang;
    char a[FMT_BUF], b[FMT_BUF];
    kv_fprintf(out, "SGLang %s prediction, per GPU (tensor parallel %lld)%s:\n", r->engine_version,
            (long long)s->tp, g->estimated ? ", ESTIMATED without the log's avail mem readings" : "");
    budget_lines(out, s, g);
    if (g->dsv4_bytes_per_full_token > 0 && g->max_total_num_tokens > 0) {
        dsv4_lines(out, s, r);
        return;
    }
    if (r->host_short && g->hicache_host_bytes > 0) {
        /* HostKVCache._check_host_memory_available's words (pool_host/base.py @ 049f8e64daef)
         * on the last rank to allocate, the others' pools taken */
        double ranks = (double)(s->tp * s->pp);
        double free_gb = (s->host_mem_gib.value * KV_GIB - (ranks - 1) * g->hicache_bytes -
                          r->host_reserve_bytes) / 1e9;
        kv_fprintf(out, "ValueError: Not enough host memory available. Requesting %.2f GB but only "
                        "have %.2f GB free. Please reduce the size of the hierarchical cache.\n"
                        "  (SGLang would not start: %lld rank%s of %.2f GB each and the 10 GiB it "
                        "leaves free need more than --host-mem-gib.)\n\n",
                   g->hicache_bytes / 1e9, free_gb, (long long)(s->tp * s->pp),
                   s->tp * s->pp == 1 ? "" : "s", g->hicache_bytes / 1e9);
        return;
    }
    if (r->host_short) {
        fputs("  (SGLang would not start: the host holds less than it pins there, --host-mem-gib.)\n\n",
              out);
        return;
    }
    if (g->max_total_num_tokens <= 0) {
        fputs("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n"
              "  (SGLang would not start with these settings.)\n\n", out);
        return;
    }
    if (g->spec_headroom_tokens > 0) {
        const kv_sglang_spec *in = &s->sglang;
        int dflt = !in->speculative_num_steps.set; /* STANDALONE's (3, 1, 4) */
        kv_fprintf(out, "  drafts  : + %lld running x (%lld steps x %lld top-k + %lld draft tokens) + "
                     "100 = %s tokens in both pools (the headroom of releases to 0.5.6.post2)\n",
                (long long)g->spec_running,
                (long long)(dflt ? 3 : in->speculative_num_steps.value),
                (long long)(dflt ? 1 : in->speculative_eagle_topk.value),
                (long long)g->spec_draft_tokens, fmt_int(a, sizeof a, g->spec_headroom_tokens, 1));
    }
    pool_line(out, s, g);
    if (g->hicache_tokens > 0) {
        char c[FMT_BUF];
        if (s->sglang.hicache_size_gb > 0)
            kv_fprintf(out, "  HiCache : --hicache-size %s GB // %s B a token = ", fmt_g(a, sizeof a,
                    s->sglang.hicache_size_gb), fmt_fixed(b, sizeof b, g->cell_bytes, 0, 1));
        else
            kv_fprintf(out, "  HiCache : %s x %s device tokens = ",
                    fmt_g(a, sizeof a, s->sglang.hicache_ratio.set ? s->sglang.hicache_ratio.value : 2),
                    fmt_int(b, sizeof b, g->max_total_num_tokens, 1));
        kv_fprintf(out, "%s host tokens (whole pages, one more), the device pool unchanged\n",
                fmt_int(c, sizeof c, g->hicache_tokens, 1));
        fprintf(out, "Allocating %.2f GB host memory for hierarchical KV cache.\n",
                g->hicache_bytes / 1e9);
        if (s->tp * s->pp > 1)
            fprintf(out, "  host    : every rank its own: %.2f GB of host memory in all\n",
                    g->hicache_host_bytes / 1e9);
    }
    if (g->draft_layers > 0) {
        /* the draft worker's pool: the same line, as many tokens, its own layers */
        char c[FMT_BUF], d[FMT_BUF];
        if (s->layout.mla)
            kv_fprintf(out, "KV Cache is allocated. #tokens: %lld, KV size: %s GB\n",
                    (long long)g->max_total_num_tokens, gb(a, sizeof a, g->draft_k_bytes));
        else
            kv_fprintf(out, "KV Cache is allocated. #tokens: %lld, K size: %s GB, V size: %s GB\n",
                    (long long)g->max_total_num_tokens, gb(a, sizeof a, g->draft_k_bytes),
                    gb(b, sizeof b, g->draft_v_bytes));
        char w[FMT_BUF];
        if (g->draft_kv_heads > 0)
            kv_fprintf(out, "  draft   : STANDALONE's %s: its own pool (%lld layers, %lld KV head%s "
                         "of %lld a rank, %s B a token, as many tokens) %s GB and its weights "
                         "%s GB: %s\n",
                    s->sglang.draft.name, (long long)g->draft_layers,
                    (long long)g->draft_kv_heads, g->draft_kv_heads == 1 ? "" : "s",
                    (long long)s->sglang.draft.head_dim,
                    fmt_fixed(d, sizeof d, g->draft_cell_bytes, 0, 1),
                    gb(c, sizeof c, g->draft_k_bytes + g->draft_v_bytes),
                    gb(w, sizeof w, g->draft_weights_bytes),
                    g->draft_weights_in_a_bytes > 0
                        ? "the weights in A, the pool in the sized cell (0.5.14's rules)"
                        : "out of the (1 - f) headroom, not the budget");
        else
            kv_fprintf(out, "  draft   : the MTP draft's own pool (%lld attention layer%s, as many "
                         "tokens) %s GB and its weights %s GB: out of the (1 - f) headroom, not "
                         "the budget\n",
                    (long long)g->draft_layers, g->draft_layers == 1 ? "" : "s",
                    gb(c, sizeof c, g->draft_k_bytes + g->draft_v_bytes),
                    gb(w, sizeof w, g->draft_weights_bytes));
    }
    if (g->draft_oom) {
        char c[FMT_BUF];
        kv_fprintf(out, "torch.OutOfMemoryError: the draft's %s GB outgrow the %s GB the target's "
                     "pool leaves free\n  (SGLang would not start with these settings.)\n\n",
                gb(a, sizeof a,
                   g->draft_k_bytes + g->draft_v_bytes +
                       (g->draft_weights_in_a_bytes > 0 ? 0 : g->draft_weights_bytes)),
                gb(c, sizeof c, g->headroom_bytes));
        return;
    }
    kv_fprintf(out, "max_total_num_tokens=%lld, context_len=%lld\n",
            (long long)g->max_total_num_tokens, (long long)s->context);
    if (g->mamba_per_req_bytes > 0)
        kv_fprintf(out, "  %s whole requests of %s tokens at once: each takes whole pages and one "
                     "state slot (at most %lld running: %s).\n\n",
                fmt_fixed(a, sizeof a, r->max_concurrency, 0, 1),
                fmt_int(b, sizeof b, s->context, 1), (long long)g->max_running_requests,
                cap_reasons[g->running_cap_by]);
    else if (g->max_running_requests > 0)
        kv_fprintf(out, "  %s whole requests of %s tokens at once: each takes whole pages (at most "
                     "%lld running: %s).\n\n",
                fmt_fixed(a, sizeof a, r->max_concurrency, 0, 1),
                fmt_int(b, sizeof b, s->context, 1), (long long)g->max_running_requests,
                s->sglang.max_running_requests.set ? "--max-running-requests"
                                                   : "48 under speculative decoding");
    else
        kv_fprintf(out, "  %s whole requests of %s tokens share the pool at once (each takes whole "
                     "pages).\n\n",
                fmt_fixed(a, sizeof a, r->max_concurrency, 0, 1),
                fmt_int(b, sizeof b, s->context, 1));
}
