/*
 * compare.c - a finished log's values as spec inputs, and kvcalc's runs compared with the
 * log. Which logged figure becomes which input, and which rows the comparison shows, are
 * each engine's tables (its descriptor's log part); this file walks them.
 *
 * Two runs answer a log: "given the log's KV figure" (every reading of the run, the KV
 * memory included: it reproduces the KV lines) and "end to end" (the settings only: kvcalc
 * estimates the measured terms). Each row shows the logged figure, kvcalc's and the budget
 * term that explains their difference.
 */
#include "engine.h"
#include "kvprint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const kv_engine_log *log_of(kv_engine e)
{
    const kv_engine_desc *d = kv_engine_get(e);
    return d ? d->log : NULL;
}

/* ---- the log's values as inputs ---------------------------------------------------------- */

/* The engine's name for the cache dtype, as the dtype reader takes it; NULL: the model's. */
static const char *cache_dtype(const kv_log_values *v)
{
    if (v->kv_dtype[0] && strcmp(v->kv_dtype, "auto") != 0)
        return v->kv_dtype;
    return v->dtype[0] && strcmp(v->dtype, "auto") != 0 ? v->dtype : NULL;
}

/* A logged quantization method as kvcalc's parameter names it (the Marlin kernels store the
 * same checkpoint), or NULL for a method kvcalc does not size. */
static const char *quantization_of(const char *method)
{
    static const char *const methods[][2] = {
        {"fp8", "fp8"},          {"awq", "awq"},   {"awq_marlin", "awq"},
        {"gptq", "gptq"},        {"gptq_marlin", "gptq"}, {"bitsandbytes", "bitsandbytes"},
        {"mxfp4", "mxfp4"},
    };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(method, methods[i][0]) == 0)
            return methods[i][1];
    return NULL;
}

/* One row's value: the figure, times another when the row says so. A run that failed logs
 * negative memory ("Available KV cache memory: -1.44 GiB", vLLM then refuses to start) or
 * no blocks: the inputs take no such value; memory enters as 0 (the comparison still shows
 * the logged figure), a count of 0 not at all. */
static void put_row(const kv_log_values *v, const kv_log_input *row, kv_log_inputs *in)
{
    char text[64];
    double x = v->v[row->field];
    if (row->times && v->present[row->times - 1])
        x *= v->v[row->times - 1];
    if (row->kind != KV_LOG_SETTING && x <= 0 && !row->gib)
        return;
    if (row->kind != KV_LOG_SETTING && x < 0)
        x = 0;
    snprintf(text, sizeof text, "%.17g", row->gib ? x / KV_GIB : x);
    kv_log_input_put(in, row->param, row->kind, text);
}

void kv_log_inputs_of(const kv_log *lg, kv_log_inputs *in)
{
    const kv_log_values *v = &lg->values;
    const kv_engine_log *l = log_of(lg->engine);
    kv_dtype t;
    memset(in, 0, sizeof *in);
    if (!l)
        return;
    kv_log_input_put(in, &kv_core_params[KV_P_ENGINE], KV_LOG_SETTING,
                     kv_engine_name(lg->engine));
    for (size_t i = 0; i < l->n_inputs; i++) {
        const kv_log_input *row = &l->inputs[i];
        if (v->present[row->field] && !(row->unless && v->present[row->unless - 1]))
            put_row(v, row, in);
    }
    const char *d = cache_dtype(v);
    if (d && kv_dtype_from_name(d, &t) == 0)
        kv_log_input_put(in, &kv_core_params[KV_P_DTYPE], KV_LOG_SETTING, d);
    const char *q = quantization_of(v->quantization);
    if (q)
        kv_log_input_put(in, &kv_core_params[KV_P_QUANTIZATION], KV_LOG_SETTING, q);
    if (l->texts)
        l->texts(v, in);
}

const char *kv_log_model(const kv_log *lg)
{
    return lg->values.model;
}

const char *kv_log_served_model(const kv_log *lg)
{
    return lg->values.served;
}

kv_status kv_log_model_spec(const kv_log *lg, kv_spec *s, kv_gguf_info *g, char *name,
                            size_t cap, char *err, size_t errcap)
{
    const kv_engine_log *l = log_of(lg->engine);
    if (cap)
        name[0] = '\0';
    if (!l || !l->model) {
        const char *e = kv_engine_name(lg->engine);
        kv_snprintf(err, errcap, "a %s log does not describe its model", e ? e : "startup");
        return KV_ERR_NOT_FOUND;
    }
    return l->model(&lg->values, s, g, name, cap, err, errcap);
}

int kv_log_needs_gpu_total(kv_engine e)
{
    const kv_engine_log *l = log_of(e);
    return l && l->needs_gpu_total;
}

/* ---- the comparison ---------------------------------------------------------------------- */

/* x GiB to two decimals, "-0.00" shown as "+0.00". */
static double gib2(double bytes)
{
    double g = bytes / KV_GIB;
    return fabs(g) < 0.005 ? 0 : g;
}

/* "5.58 GiB" for bytes, the number for the rest. */
static const char *shown(char *buf, size_t cap, double x, const char *unit)
{
    if (strcmp(unit, "bytes") == 0)
        snprintf(buf, cap, "%.2f GiB", x / KV_GIB);
    else
        snprintf(buf, cap, "%.2f", x);
    return buf;
}

/* What explains the differences: the rounding of the logged KV figure, and the budget
 * terms summed so far. */
typedef struct {
    kv_log_summary sum; /* the rounding, and whether the cache follows from settings */
    double f;           /* the budget's fraction in the end-to-end run */
    int graphs_inside;  /* CUDA graphs are inside the budget */
    int requested;      /* total x fraction is logged (it, not the total, is the term) */
    int what_if;        /* KV_WHAT_IF_*: the KV figure was dropped, a setting changed */
    double terms;       /* sum of the budget terms' contributions so far, bytes */
    int n_terms;
    const kv_log_values *values; /* what the log states */
    const kv_cmp_row *rows;      /* the engine's rows */
    size_t n_rows;
    int no_basis;   /* no KV figure logged as an input: the rows are the end-to-end run's */
} explaining;

/* A difference as a percentage of the logged figure, "+1.23%"; against a logged 0 no
 * percentage says anything: "(logged 0)". */
static const char *pct(double diff, double logged, char *b, size_t cap)
{
    if (logged == 0 || !isfinite(diff / logged))
        snprintf(b, cap, "(logged 0)");
    else
        snprintf(b, cap, "%+.3g%%", diff / logged * 100);
    return b;
}

/* A KV line's difference: within the rounding of the logged KV figure, or by how much. */
static void explain_kv(const kv_cmp_line *l, int figures, const explaining *x, char *buf,
                       size_t cap)
{
    const kv_log_summary *s = &x->sum;
    char pb[32];
    double shown_round = strcmp(l->unit, "requests") == 0 ? 0.005
                         : strcmp(l->unit, "bytes") != 0   ? 0
                         : s->rounding                     ? s->rounding(l->logged)
                                                           : s->unit_round * figures;
    double tol = fabs(l->kvcalc) * s->rel_round + shown_round + fabs(l->logged) * 1e-12;
    if (x->no_basis)
        snprintf(buf, cap, "end to end (the log gives no figure the cache follows from): %s",
                 pct(l->difference, l->logged, pb, sizeof pb));
    else if ((x->what_if & KV_WHAT_IF_BUDGET) && !s->from_settings)
        kv_snprintf(buf, cap, "what if: from the new budget with the logged terms");
    else if ((x->what_if & KV_WHAT_IF_SETTINGS) && fabs(l->difference) > tol)
        snprintf(buf, cap, "what if: the logged %s at the settings given: %s",
                 s->from_settings ? "settings" : "KV figure",
                 pct(l->difference, l->logged, pb, sizeof pb));
    else if (s->from_settings && fabs(l->difference) <= tol)
        kv_snprintf(buf, cap, "from the logged settings: equal");
    else if (s->from_settings)
        snprintf(buf, cap, "from the logged settings: %s",
                 pct(l->difference, l->logged, pb, sizeof pb));
    else if (fabs(l->difference) <= tol)
        snprintf(buf, cap, "from the logged KV figure: equal within its rounding (+-%.2g%%)",
                 s->rel_round * 100);
    else if (s->kv_total > 0 && l->kvcalc > 0) /* counts scale with the memory they fill */
    {
        if (s->hint[0]) /* the engine knows which setting it was */
            kv_snprintf(buf, cap, "from the logged KV figure: %s; %s",
                     pct(l->difference, l->logged, pb, sizeof pb), s->hint);
        else
            kv_snprintf(buf, cap, "from the logged KV figure: %s (its rounding: +-%.2g%%); "
                     "the logged line implies %.2f GiB: another rank's figure, or a setting not "
                     "given",
                     pct(l->difference, l->logged, pb, sizeof pb), s->rel_round * 100,
                     s->kv_total * l->logged / l->kvcalc / KV_GIB);
    }
    else
        snprintf(buf, cap, "from the logged KV figure: %s (its rounding: +-%.2g%%)",
                 pct(l->difference, l->logged, pb, sizeof pb), s->rel_round * 100);
}

/* The term column: which part of the budget explains the difference, as GiB of KV budget -
 * what kvcalc's figure leaves minus what the logged one leaves, the sign of the difference
 * column (kvcalc minus logged) for the KV memory itself, so the terms add up to it. */
static void explain(const kv_cmp_row *row, const kv_cmp_line *l, explaining *x, char *buf,
                    size_t cap)
{
    char a[40], b[40];
    double d = l->difference; /* kvcalc - logged */
    double budget;
    if (row->within && x->values->present[row->within - 1]) { /* counted in another row */
        const char *holder = "another row";
        for (size_t i = 0; i < x->n_rows; i++)
            if (x->rows[i].field == row->within - 1)
                holder = x->rows[i].quantity;
        kv_snprintf(buf, cap, "held in the \"%s\" row: not added again", holder);
        return;
    }
    if (row->term == KV_TERM_CAPTURED) { /* before the NaN: kvcalc has no figure for it */
        kv_snprintf(buf, cap, "%s", x->graphs_inside
                                     ? "captured after the budget: vLLM subtracts its estimate "
                                       "(the CUDA graphs row) instead"
                                     : "captured after the budget: outside it before vLLM 0.21");
        return;
    }
    if (isnan(l->kvcalc)) {
        kv_snprintf(buf, cap, "%s",
                    row->end_to_end ? "no GPU total: give --gpu or --gpu-mem-gib"
                    : x->no_basis
                        ? "no figure logged that the cache follows from, and no GPU total: "
                          "give --gpu or --gpu-mem-gib"
                        : "not computed");
        return;
    }
    switch (row->term) {
    case KV_TERM_SUBTRACTED: /* more of it subtracted leaves less */
        budget = -d;
        break;
    case KV_TERM_GRAPHS:
        if (!x->graphs_inside) {
            kv_snprintf(buf, cap, "outside the budget before vLLM 0.21: no effect");
            return;
        }
        budget = -d;
        break;
    case KV_TERM_TOTAL:
        if (x->requested) { /* counted once: as the logged product, on the next row */
            kv_snprintf(buf, cap, "enters as total x utilization (next row)");
            return;
        }
        budget = d * x->f;
        break;
    case KV_TERM_REQUESTED:
        budget = d;
        break;
    case KV_TERM_BEFORE: /* the pool is A - (1 - f) x P: a larger P leaves less */
        budget = -d * (1 - x->f);
        break;
    case KV_TERM_AFTER:
        budget = d;
        break;
    case KV_TERM_BUDGET:
        if (x->n_terms == 0)
            kv_snprintf(buf, cap, "end to end: no budget term logged; all of it is kvcalc's "
                               "estimates");
        else
            snprintf(buf, cap, "end to end: the terms above give %+.2f GiB, the rest %+.2f GiB "
                               "(terms not logged, rounding)",
                     gib2(x->terms), gib2(d - x->terms));
        return;
    case KV_TERM_KV:
        /* a total summed from the log's figures carries the rounding of each (K, V, and
         * the sliding-window cache's) */
        explain_kv(l, row->field == KV_LOGGED_KV_TOTAL ? 4 : 1, x, buf, cap);
        return;
    case KV_TERM_LAYOUT: {
        char pb[32];
        double tol = strcmp(l->unit, "percent") == 0 ? 0.005 + 1e-9 : 0; /* printed %.2f */
        if (fabs(d) <= tol)
            kv_snprintf(buf, cap, "from the model and settings: equal");
        else
            snprintf(buf, cap, "from the model and settings: %s",
                     pct(d, l->logged, pb, sizeof pb));
        return;
    }
    case KV_TERM_SETTING:
    default:
        kv_snprintf(buf, cap, "%s", fabs(d) < 1e-9 ? "as logged" : "outside the KV budget");
        return;
    }
    x->terms += budget;
    x->n_terms++;
    snprintf(buf, cap, "%s logged %s, %s %s: %+.2f GiB of the KV budget", row->quantity,
             shown(a, sizeof a, l->logged, l->unit), row->end_to_end ? "estimated" : "kvcalc",
             shown(b, sizeof b, l->kvcalc, l->unit), gib2(budget));
}

static double member(const kv_result *r, const kv_cmp_row *row)
{
    if (row->term == KV_TERM_CAPTURED) /* after the budget: kvcalc predicts no such figure */
        return NAN;
    const char *at = (const char *)r + row->offset;
    if (row->is_int) {
        int64_t i;
        memcpy(&i, at, sizeof i);
        return (double)i;
    }
    double d;
    memcpy(&d, at, sizeof d);
    return d * row->scale;
}

void kv_log_compare(const kv_log *lg, int what_if, const kv_spec *sa, const kv_result *a,
                    const kv_spec *sb, const kv_result *b, kv_comparison *out)
{
    const kv_log_values *v = &lg->values;
    const kv_engine_log *l = log_of(lg->engine);
    explaining x;
    memset(out, 0, sizeof *out);
    memset(&x, 0, sizeof x);
    out->engine = lg->engine;
    out->values = v;
    out->what_if = what_if;
    out->startups = v->startups;
    out->log_lines = lg->lines;
    out->log_lines_skipped = lg->overlong + lg->unterminated;
    kv_snprintf(out->model, sizeof out->model, "%s", v->model);
    out->logged_available_kv_bytes = out->logged_kv_cache_tokens = NAN;
    out->logged_weights_bytes = out->logged_gpu_mem_bytes = NAN;
    out->kv_cache_tokens = out->available_kv_bytes = out->kv_budget_error_pct = NAN;
    if (!l)
        return;
    l->summary(v, a, &x.sum);
    kv_snprintf(out->engine_version, sizeof out->engine_version, "%s", x.sum.version);
    kv_snprintf(out->era, sizeof out->era, "%s", x.sum.era);
    out->logged_available_kv_bytes = x.sum.kv_total;
    out->logged_kv_cache_tokens = x.sum.kv_tokens;
    out->logged_weights_bytes = x.sum.weights;
    out->logged_gpu_mem_bytes = x.sum.gpu_total;
    /* without a KV figure the log gives as an input (the engine's KV_LOG_KV_FIGURE rows) and
     * without a GPU total (no end-to-end run), the first run's figures are the defaults' */
    int figure = 0;
    for (size_t i = 0; i < l->n_inputs; i++) /* taken from the log, or given as its flag (a
                                                logged "# cuda blocks: 0" is no input) */
        figure |= l->inputs[i].kind == KV_LOG_KV_FIGURE &&
                  l->inputs[i].field + 1 != l->partial_figure && sa &&
                  !kv_param_unset(sa, l->inputs[i].param);
    /* (a KV total the log states, SGLang's K and V sizes, is no input of the first run: it
     * reads the memory readings; a vLLM "# cuda blocks: 0" neither - nothing to start from) */
    int no_basis = !x.sum.from_settings && !figure && !(what_if & KV_WHAT_IF_BUDGET);
    /* (a what-if's budget is the new one) */
    x.no_basis = no_basis;
    out->kv_cache_tokens = a && a->kv_cache_tokens > 0 && !no_basis ? (double)a->kv_cache_tokens
                                                                    : NAN;
    /* the quantity the log states as its KV memory, end to end */
    out->available_kv_bytes = !b                ? NAN
                              : l->e2e_available ? b->available_kv_bytes
                                                 : b->kv_cache_bytes;
    /* NaN when either is, or when the log states no memory to measure against (0: a start
     * that failed) */
    out->kv_budget_error_pct = out->logged_available_kv_bytes > 0
                                   ? (out->available_kv_bytes - out->logged_available_kv_bytes) /
                                         out->logged_available_kv_bytes * 100
                                   : NAN;

    for (size_t i = 0; i < l->n_settings && out->n_settings < 24; i++) {
        static const char *const flash[] = {"off", "on", "auto"}; /* a flash-attention word */
        int f = l->settings[i];
        if (!v->present[f])
            continue;
        out->settings[out->n_settings].name = l->field_names[f];
        out->settings[out->n_settings].value = v->v[f];
        out->settings[out->n_settings].word =
            f == l->flash_field && v->v[f] >= 0 && v->v[f] <= 2 ? flash[(int)v->v[f]]
            : l->setting_word                                    ? l->setting_word(f, v->v[f])
                                                                 : NULL;
        out->n_settings++;
    }
    x.what_if = what_if;
    x.values = v;
    x.rows = l->rows;
    x.n_rows = l->n_rows;
    const kv_spec *s = sb ? sb : sa;
    x.f = b && l->fraction ? l->fraction(b) : 0;
    x.graphs_inside = l->graphs_inside && s && l->graphs_inside(s);
    for (size_t i = 0; i < l->n_rows; i++) /* the product is logged: it is the term */
        x.requested |= l->rows[i].term == KV_TERM_REQUESTED && v->present[l->rows[i].field];
    for (size_t i = 0; i < l->n_rows && out->n_lines < KV_CMP_MAX_LINES; i++) {
        const kv_cmp_row *row = &l->rows[i];
        double logged = row->field == KV_LOGGED_KV_TOTAL ? out->logged_available_kv_bytes
                        : v->present[row->field]         ? v->v[row->field]
                                                         : NAN;
        if (isnan(logged))
            continue; /* the log does not state it */
        /* a log that states no KV figure gives the first run nothing to start from: without
         * a GPU total (no end-to-end run) its figures would be the defaults' */
        int unfounded = no_basis && row->term != KV_TERM_LAYOUT && row->term != KV_TERM_SETTING;
        const kv_result *r = row->end_to_end || unfounded ? b : a;
        kv_cmp_line *line = &out->lines[out->n_lines++];
        line->quantity = row->quantity;
        line->unit = row->unit;
        line->logged = logged;
        line->kvcalc = r ? member(r, row) : NAN;
        line->difference = line->kvcalc - line->logged;
        explain(row, line, &x, line->term, sizeof line->term);
    }
}

/* ---- what a command line changes against the log ---------------------------------------- */

static double number_of(const kv_param *p, const kv_value *v)
{
    switch (p->type) {
    case KV_T_NUM:
        return v->d;
    case KV_T_OPT_NUM:
        return v->on.set ? v->on.value : NAN;
    case KV_T_INT:
        return (double)v->i;
    case KV_T_OPT_INT:
        return v->oi.set ? (double)v->oi.value : NAN;
    default:
        return NAN;
    }
}

int kv_log_contradicts(const kv_log *lg, const kv_param *p, const kv_value *v)
{
    const kv_engine_log *l = log_of(lg->engine);
    const kv_log_values *lv = &lg->values;
    for (size_t i = 0; l && i < l->n_what_if; i++) {
        const kv_log_what_if *w = &l->what_if[i];
        if (w->param != p || !lv->present[w->field])
            continue;
        double x = number_of(p, v) * w->scale, logged = lv->v[w->field];
        return !isnan(x) && fabs(x - logged) > 1e-3 * fabs(logged);
    }
    return 0;
}

double kv_log_gpu_total(const kv_log *lg)
{
    const kv_engine_log *l = log_of(lg->engine);
    if (!l || l->gpu_total_field < 0 || !lg->values.present[l->gpu_total_field])
        return NAN;
    return lg->values.v[l->gpu_total_field];
}
