/*
 * text.c - the lesson's table. The layout (spacing, rules, wording) is the contract
 * with the lesson's golden outputs, so every format here mirrors a Python f-string of the
 * lesson's calculator: ":g" -> fmt_g, ":,.1f" -> fmt_fixed(.., 1, 1), ":," -> fmt_int.
 *
 * A model read from a config or a preset changes four things and nothing else: the banner
 * names the model and its source, the Model line shows the layer layout, the weights line
 * says the parameter count is an estimate, and the per-token line shows the formula of each
 * layer group. The lesson's plain model keeps every byte of the lesson's table.
 */
#define KVCALC_ENGINES /* kv_engine_cache_types: the engine's own cache types */
#include "kvprint.h"
#include "report.h"

#include "format.h"

#include <string.h>

static const char *const kind_names[KV_LAYER_KINDS] = {"full", "sliding", "chunked", "state"};

static int plain_layout(const kv_result *r, const kv_spec *s)
{
    return r->n_groups == 1 && r->groups[0].kind == KV_LAYER_FULL && !s->layout.mla;
}

/* What a folder's checkpoint holds besides the language model: its towers (in the weights)
 * and its MTP / draft heads (not in them: an engine loads those only to speculate). */
static void checkpoint_parts_line(FILE *out, const kv_spec *s)
{
    char a[FMT_BUF], b[FMT_BUF];
    kv_fprintf(out, "             (");
    if (s->checkpoint_tower_bytes > 0)
        kv_fprintf(out, "vision/audio towers %s GiB included%s",
                fmt_fixed(a, sizeof a, s->checkpoint_tower_bytes / KV_GIB, 2, 0),
                s->checkpoint_mtp_bytes > 0 ? "; " : "");
    if (s->checkpoint_mtp_bytes > 0)
        kv_fprintf(out, "MTP / draft heads %s GiB left out: loaded only for speculative decoding",
                fmt_fixed(b, sizeof b, s->checkpoint_mtp_bytes / KV_GIB, 2, 0));
    fputs(")\n", out);
}

static void banner(FILE *out, const kv_spec *s)
{
    char line[1400], name[600], source[600];
    size_t rule = 68; /* the lesson's rule is 68 dashes under its 69-character banner */
    if (s->model_name) {
        kv_snprintf(line, sizeof line, "KV cache calculator  (%s; from %s)",
                 text_safe(name, sizeof name, s->model_name),
                 text_safe(source, sizeof source, s->model_source ? s->model_source : "a config"));
        rule = strlen(line);
    } else {
        kv_snprintf(line, sizeof line,
                 "KV cache calculator  (ILLUSTRATIVE arch; confirm against config.json)");
    }
    kv_fprintf(out, "\n%s\n", line);
    for (size_t i = 0; i < rule; i++)
        fputc('-', out);
    fputc('\n', out);
}

char *layout_summary(char *buf, size_t cap, const kv_spec *s, const kv_result *r)
{
    size_t n = 0;
#define PUT(...)                                                                           \
    do {                                                                                   \
        int w_ = kv_snprintf(buf + n, cap - n, __VA_ARGS__);                                  \
        if (w_ > 0)                                                                        \
            n = (n + (size_t)w_ < cap) ? n + (size_t)w_ : cap - 1;                         \
    } while (0)
    buf[0] = '\0';
    if (s->layout.csa_c4 + s->layout.csa_c128 > 0) { /* DeepSeek-V4 */
        kv_csa_bytes b;
        kv_csa_bytes_of(s, &b);
        PUT("%lld layers: %lld compressed 4:1 (with an indexer) + %lld at 128:1, each with a "
            "%lld-token window; latent entries of %.0f B (fp8_ds_mla)",
            (long long)s->layers, (long long)s->layout.csa_c4, (long long)s->layout.csa_c128,
            (long long)s->layout.csa_window, b.entry);
        return buf;
    }
    if (s->layout.mla && r->n_groups == 1 && r->groups[0].kind == KV_LAYER_FULL) {
        PUT("%lld MLA layers, latent %lld", (long long)s->layers, (long long)s->layout.mla_latent);
        if (s->layout.index_dim > 0)
            PUT(" + indexer key %lld", (long long)s->layout.index_dim);
        return buf;
    }
    if (plain_layout(r, s)) {
        PUT("%lld layers, %lld KV heads, head_dim %lld", (long long)s->layers,
            (long long)s->kv_heads, (long long)s->head_dim);
        return buf;
    }
    PUT("%lld layers:", (long long)s->layers);
    for (size_t i = 0; i < r->n_groups; i++) {
        const kv_group *g = &r->groups[i];
        if (g->kind == KV_LAYER_STATE && s->layout.parallel_state) {
            PUT(" + a state in each"); /* Falcon-H1: attention and a Mamba-2 mixer a layer */
            continue;
        }
        PUT("%s %lld %s", i ? " +" : "", (long long)g->count, kind_names[g->kind]);
        if (g->tokens_max > 0)
            PUT("(%lld)", (long long)g->tokens_max);
    }
    if (s->layout.mla)
        PUT(", MLA latent %lld", (long long)s->layout.mla_latent);
    else
        PUT(", %lld KV heads, head_dim %lld", (long long)s->kv_heads, (long long)s->head_dim);
    if (!s->layout.mla && (s->layout.full_kv_heads > 0 || s->layout.full_head_dim > 0))
        PUT(" (full layers %lld x %lld)",
            (long long)(s->layout.full_kv_heads > 0 ? s->layout.full_kv_heads : s->kv_heads),
            (long long)(s->layout.full_head_dim > 0 ? s->layout.full_head_dim : s->head_dim));
    if (s->layout.kv_shared_layers > 0)
        PUT("; the last %lld reuse earlier layers' caches", (long long)s->layout.kv_shared_layers);
#undef PUT
    return buf;
}

/* 1 when that input kept the lesson's default in a report of a real model (the lesson's
 * own model says nothing: its numbers are the lesson's on purpose). */
static int lesson_default(const kv_report *rep, kv_core_param p)
{
    return rep->sources && rep->spec->model_name &&
           rep->sources->of[kv_param_index(kv_core_param_get(p))] == SOURCE_DEFAULT &&
           !kv_engine_overrides(rep->spec->engine, p);
}

/* 1 when the chosen engine set that input in its defaults (not the lesson). */
static int engine_default(const kv_report *rep, kv_core_param p)
{
    return rep->sources &&
           rep->sources->of[kv_param_index(kv_core_param_get(p))] == SOURCE_DEFAULT &&
           kv_engine_overrides(rep->spec->engine, p);
}

/* Says which of the lesson's illustrative numbers a real model is being sized with. */
static void lesson_default_notes(FILE *out, const kv_report *rep)
{
    char a[FMT_BUF];
    const kv_spec *s = rep->spec;
    if (lesson_default(rep, KV_P_GPU_MEM_GIB))
        kv_fprintf(out, "  (%s GiB is the lesson's illustrative GPU: give --gpu NAME or "
                     "--gpu-mem-gib)\n", fmt_g(a, sizeof a, s->gpu_mem_gib));
    if (lesson_default(rep, KV_P_OVERHEAD_GIB))
        kv_fprintf(out, "  (the %s GiB reserve is the lesson's default: --overhead-gib sets it)\n",
                fmt_g(a, sizeof a, s->overhead_gib));
    else if (engine_default(rep, KV_P_OVERHEAD_GIB))
        kv_fprintf(out, "  (the %s GiB reserve is %s's default: it keeps its own, counted in its "
                     "section below; --overhead-gib sets one)\n",
                fmt_g(a, sizeof a, s->overhead_gib), kv_engine_title(s->engine));
    if (lesson_default(rep, KV_P_CONTEXT))
        kv_fprintf(out, "  (%s tokens per request is the lesson's default: --context sets it)\n",
                fmt_int(a, sizeof a, s->context, 1));
}

static void model_line(FILE *out, const kv_spec *s, const kv_result *r)
{
    const kv_dtype_info *kv = kv_dtype_get(s->dtype);
    char a[32], layout[600];
    char types[160];
    kv_fprintf(out, "Model      : %s, KV dtype %s (%s B)\n", layout_summary(layout, sizeof layout, s, r),
            kv->name, fmt_g(a, sizeof a, kv->bytes));
    if (kv_engine_cache_types(s, r, types, sizeof types)) /* the engine's own types */
        kv_fprintf(out, "             (the lines below are the lesson's at %s; %s caches %s: its "
                     "section has those bytes)\n",
                kv->name, kv_engine_title(s->engine), types);
}

/* "2 x 28 x 4 x 128 x 2 B" or, for MLA, "61 x 576 x 2 B"; KV heads per GPU under TP */
static char *formula(char *buf, size_t cap, const kv_spec *s, const kv_group *g)
{
    int64_t count = g->count;
    char b[32];
    fmt_g(b, sizeof b, kv_dtype_get(s->dtype)->bytes);
    if (s->layout.csa_c4 + s->layout.csa_c128 > 0) { /* DeepSeek-V4: entries, not elements */
        kv_csa_bytes e;
        kv_csa_bytes_of(s, &e);
        if (g->kind == KV_LAYER_FULL)
            snprintf(buf, cap, "%lld x (%.0f + %.0f) / 4 + %lld x %.0f / 128 B",
                     (long long)s->layout.csa_c4, e.entry, e.index_key,
                     (long long)s->layout.csa_c128, e.entry);
        else
            snprintf(buf, cap, "%lld x %.0f B", (long long)count, e.entry);
        return buf;
    }
    if (s->layout.mla && s->layout.index_dim > 0)
        kv_snprintf(buf, cap, "%lld x (%lld + %lld) x %s B", (long long)count,
                 (long long)s->layout.mla_latent, (long long)s->layout.index_dim, b);
    else if (s->layout.mla)
        kv_snprintf(buf, cap, "%lld x %lld x %s B", (long long)count,
                 (long long)s->layout.mla_latent, b);
    else
        kv_snprintf(buf, cap, "2 x %lld x %lld x %lld x %s B", (long long)count,
                 (long long)g->kv_heads, (long long)g->head_dim, b);
    return buf;
}

static void per_token_lines(FILE *out, const kv_spec *s, const kv_result *r)
{
    char f[FMT_BUF], a[FMT_BUF], b[FMT_BUF];
    const kv_group *full = NULL;
    for (size_t i = 0; i < r->n_groups; i++)
        if (r->groups[i].kind == KV_LAYER_FULL)
            full = &r->groups[i];
    if (full) {
        kv_fprintf(out, "KV per token (one sequence):  %s  =  %s B  (%s MiB/token)%s\n",
                formula(f, sizeof f, s, full),
                fmt_fixed(a, sizeof a, r->kv_bytes_per_token, 0, 1),
                fmt_fixed(b, sizeof b, r->kv_bytes_per_token / KV_MIB, 4, 0),
                s->layout.csa_c4 + s->layout.csa_c128 > 0 ? " in the compressed latents"
                : r->n_groups > 1                          ? " in the full layers"
                                                           : "");
    } else {
        fputs("KV per token (one sequence):  0 B in full layers (no layer keeps every token)\n",
              out);
    }
    char lim_buf[FMT_BUF];
    for (size_t i = 0; i < r->n_groups; i++) {
        const kv_group *g = &r->groups[i];
        if (g->kind == KV_LAYER_FULL)
            continue;
        if (g->kind == KV_LAYER_STATE && s->layout.csa_c4 + s->layout.csa_c128 > 0) {
            kv_csa_bytes e;
            kv_csa_bytes_of(s, &e);
            fprintf(out, "  + %lld compressors' float32 states:  %lld x 8 x (%.0f + %.0f) + "
                         "%lld x 128 x %.0f B  =  %s B per request, whatever the context\n",
                    (long long)g->count, (long long)s->layout.csa_c4, e.c4_state,
                    e.index_state, (long long)s->layout.csa_c128, e.c128_state,
                    fmt_fixed(a, sizeof a, g->bytes_fixed, 0, 1));
            continue;
        }
        if (g->kind == KV_LAYER_STATE) {
            /* a parallel hybrid's states sit in its attention layers */
            const char *what = s->layout.parallel_state ? "layers' states" : "state layers";
            if (r->state_unknown)
                kv_fprintf(out, "  + %lld %s: state size not in the config, counted as 0\n",
                        (long long)g->count, what);
            else if (s->layout.state_ssm_f32 && s->layout.state_conv_elems > 0) {
                double conv, ssm; /* one GPU's, as the KV line's heads are */
                kv_state_per_rank(s, s->tp, &conv, &ssm);
                kv_fprintf(out, "  + %lld %s:  %lld x (%s x %s B conv + %s x 4 B float32 "
                             "SSM)  =  %s B per request, whatever the context\n",
                        (long long)g->count, what, (long long)g->count,
                        fmt_fixed(f, sizeof f, conv, 0, 1),
                        fmt_g(b, sizeof b, kv_state_elem_bytes(s)),
                        fmt_fixed(lim_buf, sizeof lim_buf, ssm, 0, 1),
                        fmt_fixed(a, sizeof a, g->bytes_fixed, 0, 1));
            } else
                kv_fprintf(out, "  + %lld %s:  %lld x %s x %s B  =  %s B per request, "
                             "whatever the context\n",
                        (long long)g->count, what, (long long)g->count,
                        fmt_int(f, sizeof f, s->layout.state_elems / (s->tp > 0 ? s->tp : 1), 1),
                        fmt_g(b, sizeof b, kv_state_elem_bytes(s)),
                        fmt_fixed(a, sizeof a, g->bytes_fixed, 0, 1));
            continue;
        }
        char lim[FMT_BUF];
        kv_fprintf(out, "  + %lld %s layers:  %s  =  %s B per token, for at most %s tokens\n",
                (long long)g->count, kind_names[g->kind], formula(f, sizeof f, s, g),
                fmt_fixed(a, sizeof a, g->bytes_per_token, 0, 1),
                fmt_int(lim, sizeof lim, g->tokens_max, 1));
    }
}

/* The lesson's engine adds no section: its table is the whole story. */
void report_ideal_text(FILE *out, const kv_report *rep)
{
    (void)out;
    (void)rep;
}

/* One text section per engine, by the list of engines (render/NAME_section.c). */
static void (*const engine_sections[KV_ENGINE_COUNT])(FILE *, const kv_report *) = {
#define KV_ENGINE(ID, id, name) [KV_ENGINE_##ID] = report_##id##_text,
#include "kvcalc_engines.def"
#undef KV_ENGINE
};

/* The sections beyond the lesson's, each only when asked for. */
static void report_extra_sections(FILE *out, const kv_report *rep)
{
    if (rep->plan)
        report_plan_text(out, rep);
    if (rep->levers)
        report_levers_text(out, rep);
    if (rep->layouts)
        report_layouts_text(out, rep);
    if (rep->result->host_short)
        kv_fprintf(out, "(%s stops before the lines below: the host holds less than it keeps there; "
                     "see Host memory above.)\n",
                kv_engine_title(rep->spec->engine));
    engine_sections[rep->spec->engine](out, rep);
}

/* What doubling the context does, in words: the lesson's line only where it is true. */
static const char *const growth_lines[] = {
    [KV_GROWTH_LINEAR] =
        "  Double the context, halve the concurrency. Context length is a capacity cost.\n\n",
    [KV_GROWTH_CAPPED] = ("  Only the full-attention layers keep every token: double the context, "
                          "less than\n  double the KV per request. Context length is still a "
                          "capacity cost.\n\n"),
    [KV_GROWTH_FIXED] = ("  No layer keeps every token: past the longest window, the KV per "
                         "request stops\n  growing with the context.\n\n"),
};

/* "Free for KV": the lesson's GPU - weights - reserve; with an engine chosen, the engine's own
 * figure first (the memory its cache fills, or the cache its settings allocate), the
 * lesson's beside it. */
static void free_for_kv_line(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF];
    const char *words = kv_engine_budget_words(s->engine);
    fmt_fixed(b, sizeof b, r->free_kv_bytes / KV_GIB, 2, 0);
    if (s->engine == KV_ENGINE_IDEAL)
        kv_fprintf(out, "Free for KV: %s GiB\n\n", b);
    else if (words)
        kv_fprintf(out, "Free for KV: %s GiB, %s  (the lesson's GPU - weights - reserve: %s GiB)\n\n",
                fmt_fixed(a, sizeof a, r->available_kv_bytes / KV_GIB, 2, 0), words, b);
    else
        kv_fprintf(out, "KV cache   : %s GiB, what %s allocates for its settings  (the lesson's GPU "
                     "- weights - reserve: %s GiB)\n\n",
                fmt_fixed(a, sizeof a, r->kv_cache_bytes / KV_GIB, 2, 0), kv_engine_title(s->engine),
                b);
}

/* --gpus N without a typed layout: the report is the best layout's; say so, and what the
 * layout as typed would hold. */
static void chosen_layout_line(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec, *t = rep->typed_spec;
    char a[FMT_BUF];
    if (!t || !rep->layouts)
        return;
    kv_fprintf(out, "Layout     : TP %lld x PP %lld x DP %lld = %lld of --gpus %lld, chosen as the "
                 "best%s; as typed (TP %lld, PP %lld): %s requests\n",
            (long long)s->tp, (long long)s->pp, (long long)s->dp,
            (long long)(s->tp * s->pp * s->dp), (long long)rep->layouts->gpus,
            rep->layouts->target > 0 ? " for --target-concurrency" : "", (long long)t->tp,
            (long long)t->pp,
            fmt_fixed(a, sizeof a, rep->typed_result->deployment_max_concurrency, 0, 1));
}

/* "Tensor par.", "Pipeline", "Data par.": how the figures below are laid over GPUs. */
static void parallel_lines(FILE *out, const kv_spec *s, const kv_result *r)
{
    char c[FMT_BUF];
    if (s->tp > 1)
        kv_fprintf(out, "Tensor par.: %lld GPUs per replica; figures below are per GPU (%lld of %lld "
                     "KV heads%s, 1/%lld of the weights)\n",
                (long long)s->tp, (long long)r->kv_heads_per_gpu, (long long)s->kv_heads,
                s->layout.mla ? ", MLA latent not split" : " each", (long long)s->tp);
    if (s->pp > 1)
        kv_fprintf(out, "Pipeline   : %lld stages; figures below are stage %lld's (%lld of %lld layers), "
                     "the one that holds the fewest requests\n",
                (long long)s->pp, (long long)r->pp_stage + 1, (long long)r->pp_stage_layers,
                (long long)s->layers);
    if (s->dp > 1)
        kv_fprintf(out, "Data par.  : %lld replicas of %lld GPU%s: %lld GPUs, %s requests at once in "
                     "all\n",
                (long long)s->dp, (long long)(s->tp * s->pp), s->tp * s->pp == 1 ? "" : "s",
                (long long)(s->dp * s->tp * s->pp),
                fmt_fixed(c, sizeof c, r->deployment_max_concurrency, 0, 1));
}

/* Where the weights came from, as the Weights line says it: by the weights' source, and
 * whether the parameter count is the config's estimate. */
static const struct {
    const char *dtype;     /* in place of the weight dtype's name (NULL: the dtype's) */
    const char *note;      /* after the GiB */
    const char *estimated; /* the note when the parameters are estimated (NULL: note) */
} weight_notes[] = {
    [KV_WEIGHTS_GIVEN] = {NULL, "", "  (parameters estimated from the config)"},
    [KV_WEIGHTS_GGUF] = {"the file's types", "  (tensor sizes from the GGUF header)", NULL},
    [KV_WEIGHTS_SAFETENSORS] = {"the files' types", "  (tensor sizes from the safetensors headers)",
                                NULL},
    /* fopen() cannot tell a file that is not there from a symlink to a blob that is not:
     * "readable" says both */
    [KV_WEIGHTS_NO_FILES] = {NULL, "  (no readable safetensors files)",
                             "  (parameters estimated from the config: no readable safetensors "
                             "files - model.safetensors.index.json, model.safetensors)"},
    [KV_WEIGHTS_NO_INDEX] = {NULL, "  (shards without model.safetensors.index.json)",
                             "  (parameters estimated from the config: its shards have no "
                             "model.safetensors.index.json to name them)"},
};

static void weights_line(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF];
    /* a checkpoint's own tensor bytes, when they are what the weights are */
    int stored = s->checkpoint_weights_bytes > 0;
    int src = (unsigned)s->weights_source < sizeof weight_notes / sizeof weight_notes[0]
                  ? s->weights_source
                  : KV_WEIGHTS_GIVEN;
    if (!stored && (src == KV_WEIGHTS_GGUF || src == KV_WEIGHTS_SAFETENSORS))
        src = KV_WEIGHTS_GIVEN;
    const char *note = s->params_estimated && weight_notes[src].estimated
                           ? weight_notes[src].estimated
                           : weight_notes[src].note;
    const char *dtype = stored && weight_notes[src].dtype ? weight_notes[src].dtype
                                                          : kv_dtype_get(s->weight_dtype)->name;
    /* the parameters as typed (--params-b, the lesson's 7), else kvcalc's count, 2 decimals;
     * split over GPUs, the GiB are one GPU's and the whole follows */
    int typed = !s->params_estimated && s->weights_source == KV_WEIGHTS_GIVEN;
    char all[FMT_BUF + 32] = "";
    if (s->tp > 1 && s->pp == 1) {
        char c[FMT_BUF];
        kv_snprintf(all, sizeof all, " per GPU (%s GiB in all)",
                 fmt_fixed(c, sizeof c, r->weights_bytes_group / KV_GIB, 2, 0));
    } else if (s->pp > 1) {
        kv_snprintf(all, sizeof all, " per GPU of this stage");
    }
    kv_fprintf(out, "Weights    : ~%sB params @ %s  ->  %s GiB%s%s\n",
            fmt_figure(a, sizeof a, s->params_estimated ? r->params / 1e9 : s->params_b, typed),
            dtype, fmt_fixed(b, sizeof b, r->weights_bytes / KV_GIB, 2, 0), all, note);
    if (stored && (s->checkpoint_tower_bytes > 0 || s->checkpoint_mtp_bytes > 0))
        checkpoint_parts_line(out, s);
}

static void gpu_line(FILE *out, const kv_spec *s)
{
    char a[FMT_BUF], b[FMT_BUF];
    kv_fprintf(out, "GPU memory : %s GiB%s%s%s%s   (reserve %s GiB for activations/overhead)\n",
            fmt_figure(a, sizeof a, s->gpu_mem_gib, !s->gpu_name), s->gpu_name ? " (" : "",
            s->gpu_name ? s->gpu_name : "",
            s->gpu_name && s->gpu_mem_estimated ? ", estimate: the marketed capacity" : "",
            s->gpu_name ? ")" : "", fmt_g(b, sizeof b, s->overhead_gib));
}

/* "KV per request @ N tokens" and, beyond the model's context, a note. */
static void request_lines(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    kv_fprintf(out, "KV per request @ %s tokens:  %s MiB", fmt_int(a, sizeof a, s->context, 1),
            fmt_fixed(b, sizeof b, r->kv_bytes_per_request / KV_MIB, 1, 1));
    if (s->tp > 1)
        kv_fprintf(out, " per GPU (%s MiB across the %lld GPUs)",
                fmt_fixed(c, sizeof c, r->kv_bytes_per_request_group / KV_MIB, 1, 1),
                (long long)s->tp);
    fputc('\n', out);
    if (s->max_context > 0 && s->context > s->max_context)
        kv_fprintf(out, "(beyond the model's max_position_embeddings of %s tokens)\n",
                fmt_int(a, sizeof a, s->max_context, 1));
    fputc('\n', out);
}

/* The answer: requests at once, by the chosen engine (the lesson's beside it). */
static void answer_lines(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    kv_fprintf(out, "Max concurrent requests @ %s context:  ~%s", fmt_int(a, sizeof a, s->context, 1),
            fmt_fixed(b, sizeof b, r->max_concurrency, 0, 0));
    if (s->engine != KV_ENGINE_IDEAL)
        kv_fprintf(out, "  (by %s's rules; the lesson's ideal packing: ~%s)",
                kv_engine_title(s->engine), fmt_fixed(c, sizeof c, r->ideal_max_concurrency, 0, 0));
    fputc('\n', out);
    fputs("(This, not tokens/sec, is usually what caps how many users you serve at once.)\n\n",
          out);
}

/* What the engine keeps in host memory, and whether the host given holds it. */
static void host_lines(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], keeps[FMT_BUF + 64];
    if (!(r->host_bytes > 0) && !s->host_mem_gib.set)
        return;
    fmt_fixed(a, sizeof a, r->host_bytes / KV_GIB, 2, 1);
    fmt_fixed(b, sizeof b, s->host_mem_gib.value, 2, 1);
    /* "12.00 GiB", or "12.00 GiB (and leaves 10.00 GiB free)": SGLang's HiCache reserve */
    snprintf(keeps, sizeof keeps, "%s GiB", a);
    if (r->host_reserve_bytes > 0)
        snprintf(keeps + strlen(keeps), sizeof keeps - strlen(keeps),
                 " (and leaves %.2f GiB free)", r->host_reserve_bytes / KV_GIB);
    const char *title = kv_engine_title(s->engine);
    if (r->host_short && r->longest_context_fit > 0)
        kv_fprintf(out, "Host memory: %s keeps %s in host memory, more than the %s GiB given "
                        "(--host-mem-gib):\n  it cannot allocate them, so it does not start; the "
                        "longest context that fits the host too: %s tokens.\n\n",
                   title, keeps, b, fmt_int(c, sizeof c, r->longest_context_fit, 1));
    else if (r->host_short)
        kv_fprintf(out, "Host memory: %s keeps %s in host memory, more than the %s GiB given "
                        "(--host-mem-gib):\n  it cannot allocate them, so it does not start, at "
                        "any context.\n\n",
                   title, keeps, b);
    else if (s->host_mem_gib.set)
        kv_fprintf(out, "Host memory: %s keeps %s in host memory, of the %s GiB given "
                        "(--host-mem-gib).\n\n",
                   title, keeps, b);
    else
        kv_fprintf(out, "Host memory: %s keeps %s in host memory (--host-mem-gib checks it).\n\n",
                   title, keeps);
}

static void table_lines(FILE *out, const kv_report *rep)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    fputs("Context length vs concurrency (same GPU):\n", out);
    kv_fprintf(out, "  %8s  %11s  %14s\n", "context", "KV/req", "max concurrent");
    for (size_t i = 0; i < rep->table->n_rows; i++) {
        const kv_row *row = &rep->table->rows[i];
        kv_fprintf(out, "  %8s  %8s MiB  %14s%s\n", fmt_int(a, sizeof a, row->context, 1),
                fmt_fixed(b, sizeof b, row->kv_bytes_per_request / KV_MIB, 1, 1),
                fmt_fixed(c, sizeof c, row->max_concurrency, 0, 0),
                row->is_setting ? "  <- your setting" : "");
    }
    fputs(growth_lines[rep->result->growth], out);
}

static void prefix_lines(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    kv_fprintf(out, "Prefix caching: %s requests sharing a %s-token prompt\n",
            fmt_int(a, sizeof a, s->prefix_requests, 0), fmt_int(b, sizeof b, s->prefix_tokens, 1));
    if (lesson_default(rep, KV_P_PREFIX_TOKENS) && lesson_default(rep, KV_P_PREFIX_REQUESTS))
        fputs("  (the lesson's example, not your workload: set --prefix-tokens and "
              "--prefix-requests)\n", out);
    kv_fprintf(out, "  store the shared prefix ONCE instead of %s times  ->  save %s GiB  "
                 "(~%s more concurrent @ %s ctx)\n",
            fmt_int(a, sizeof a, s->prefix_requests, 0),
            fmt_fixed(b, sizeof b, r->prefix_saved_bytes / KV_GIB, 2, 0),
            fmt_fixed(c, sizeof c, r->prefix_extra_concurrency, 0, 0),
            fmt_int(d, sizeof d, s->context, 1));
    /* the lesson's arithmetic, and what it overstates - said beside a real model or engine
     * (the lesson's own flags print the lesson's bytes, golden/prefix-longer-than-context) */
    if (s->prefix_tokens > s->context && (s->model_name || s->engine != KV_ENGINE_IDEAL))
        kv_fprintf(out, "  (a %s-token prefix is longer than a request's %s tokens: no request holds "
                     "it whole:\n  this saves more than the requests hold)\n",
                fmt_int(a, sizeof a, s->prefix_tokens, 1), fmt_int(b, sizeof b, s->context, 1));
    const char *note = kv_engine_prefix_note(s, r);
    if (note) { /* the lesson's arithmetic beside an engine that does not do it */
        kv_fprintf(out, "  (the lesson's arithmetic: %s)\n\n", note);
        return;
    }
    fputs(r->prefix_clipped
              ? "  Windowed layers keep only a request's last tokens: at this context they no "
                "longer\n  hold all of the shared prefix, so they share less of it.\n\n"
              : "  This is why a shared system prompt / few-shot preamble is nearly free to "
                "reuse.\n\n",
          out);
}

void report_text(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    char a[FMT_BUF], b[FMT_BUF];

    banner(out, s);
    model_line(out, s, r);
    chosen_layout_line(out, rep);
    parallel_lines(out, s, r);
    weights_line(out, s, r);
    gpu_line(out, s);
    lesson_default_notes(out, rep);
    if (!r->room && s->engine != KV_ENGINE_IDEAL) {
        /* An engine places the weights by its own rules (llama.cpp's -ngl / --n-cpu-moe /
         * --cpu-moe, vLLM's --cpu-offload-gb) and may size a cache it is given: the lesson's
         * "no room, use a bigger GPU" beside the engine's "fits" would be two answers on one
         * screen, and the engine's is the one asked for. Its verdict is said here, its
         * reasons in its section. */
        if (r->fits)
            kv_fprintf(out, "\nWith every weight on the GPU (the lesson's arithmetic) there is no "
                            "room for KV cache;\n%s's own placement below holds %s request%s of "
                            "%s tokens: that is the answer.\n",
                       kv_engine_title(s->engine), fmt_fixed(a, sizeof a, r->max_concurrency, 0, 0),
                       r->max_concurrency == 1 ? "" : "s", fmt_int(b, sizeof b, s->context, 1));
        else
            kv_fprintf(out, "\nWith every weight on the GPU (the lesson's arithmetic) there is no "
                            "room for KV cache;\n%s's own placement below holds no request of %s "
                            "tokens either.\n",
                       kv_engine_title(s->engine), fmt_int(b, sizeof b, s->context, 1));
        if (rep->workload) { /* the question asked, as below */
            fputc('\n', out);
            report_workload_text(out, rep);
        }
        fputc('\n', out);
        report_extra_sections(out, rep);
        return;
    }
    if (!r->room) {
        fputs("\nWeights + overhead already exceed GPU memory: no room for KV cache.\n"
              "Use a bigger GPU, quantize the weights (--weight-dtype), or shard the model.\n",
              out);
        if (rep->workload) {
            fputc('\n', out);
            report_workload_text(out, rep);
        }
        if (rep->plan || rep->levers || rep->layouts) {
            fputc('\n', out);
            report_extra_sections(out, rep);
        }
        return;
    }
    free_for_kv_line(out, s, r);
    per_token_lines(out, s, r);
    request_lines(out, s, r);
    answer_lines(out, s, r);
    host_lines(out, s, r);
    if (rep->workload) /* the question asked: right after the answer at the maximum */
        report_workload_text(out, rep);
    table_lines(out, rep);
    prefix_lines(out, rep);
    report_extra_sections(out, rep);
}
