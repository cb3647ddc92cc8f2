/*
 * sweep.c - --sweep KEY=VALUES: a grid over any inputs, one row per point.
 *
 * An axis is a spec input of the flag table (context, tp, dtype, gpu-mem-gib, block-size,
 * ...), the GPU preset (gpu=h100,l40s) or the model (model=qwen3-8b,llama-3.1-8b). Its values
 * are items separated by commas: single values, arithmetic ranges A..B+S and geometric ones
 * A..B*F (range.h). Every value is parsed once, before the first row, by the same code as the
 * flag on the command line; a range is never stored, only walked.
 *
 * A point is the command line with the axis values written in as if typed: the same spec
 * builder and the same pipeline as a single run, so a row equals the single run with those
 * flags (a test checks every axis). The grid is walked like an odometer, the last axis
 * fastest; each row is written once, and a failed write stops the sweep at once (exit 3).
 */
#include "kvprint.h"
#include "sweep.h"

#include "build.h"
#include "format.h"
#include "keys.h"
#include "pipeline.h"
#include "range.h"
#include "suggest.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kvmath.h"

/* 10^8: about a minute of rows (a million take about half a second) - a grid larger than
 * this is refused before the first row, not run for hours (10^10 was allowed: issue 19) */
#define MAX_POINTS 100000000.0
#define MAX_LISTED 10000000      /* single values and geometric integer values per axis */
#define EXIT_WRITE_ERROR 3

typedef enum { AXIS_FLAG, AXIS_GPU, AXIS_MODEL } axis_kind;

/* One comma-separated item of an axis: a run of listed values, or a range. */
typedef struct {
    int is_range;
    size_t first, n;  /* listed values: [first, first + n) of the axis's list */
    kv_range range;
} segment;

typedef struct {
    axis_kind kind;
    const kv_flag *flag;     /* AXIS_FLAG */
    char key[64];            /* as printed: the JSON key, "gpu" or "model" */
    size_t n_seg, cap_seg;
    segment *seg;
    size_t n_list, cap_list; /* listed values */
    kv_value *values;        /* AXIS_FLAG */
    unsigned char *is_auto;  /* AXIS_FLAG: "auto" (the model's value) */
    const kv_gpu **gpus;     /* AXIS_GPU */
    kv_model **models;       /* AXIS_MODEL */
    /* the walk */
    size_t at_seg, at_list;
    kv_range_iter it;
    kv_value now;            /* the current value (AXIS_FLAG) */
    int now_auto;
} axis;

typedef struct {
    axis axes[KV_MAX_SWEEP];
    size_t n;
    kv_engine engine;        /* the command line's: a key engines share is its flag */
    char err[KV_ERR_BUF];
} grid;

static int grid_fail(grid *g, const char *fmt, const char *a, const char *b)
{
    char sa[300], sb[300];
    kv_snprintf(g->err, sizeof g->err, fmt, kv_safe(sa, sizeof sa, a, 200),
             kv_safe(sb, sizeof sb, b, 200));
    return -1;
}

/* Grows an array of `size`-byte elements to hold one more. */
static int grow(void **array, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t bigger = *cap ? *cap * 2 : 8;
    void *p = realloc(*array, bigger * size);
    if (!p)
        return -1;
    *array = p;
    *cap = bigger;
    return 0;
}

/* Room for one more listed value (in every per-kind list). */
static int grow_list(axis *ax)
{
    if (ax->n_list >= MAX_LISTED)
        return -1;
    size_t cap = ax->cap_list;
    if (grow((void **)&ax->values, &cap, ax->n_list, sizeof *ax->values) != 0)
        return -1;
    size_t c2 = ax->cap_list, c3 = ax->cap_list, c4 = ax->cap_list;
    if (grow((void **)&ax->is_auto, &c2, ax->n_list, 1) != 0 ||
        grow((void **)&ax->gpus, &c3, ax->n_list, sizeof *ax->gpus) != 0 ||
        grow((void **)&ax->models, &c4, ax->n_list, sizeof *ax->models) != 0)
        return -1;
    ax->cap_list = cap;
    return 0;
}

static segment *new_segment(axis *ax)
{
    if (grow((void **)&ax->seg, &ax->cap_seg, ax->n_seg, sizeof *ax->seg) != 0)
        return NULL;
    segment *s = &ax->seg[ax->n_seg++];
    memset(s, 0, sizeof *s);
    s->first = ax->n_list;
    return s;
}

/* Appends one listed value to the axis's last segment (a listed one). */
static int list_value(grid *g, axis *ax, const char *item)
{
    if (grow_list(ax) != 0)
        return grid_fail(g, "kvcalc: --sweep: more than 10,000,000 values for '%s'%s", ax->key, "");
    size_t i = ax->n_list;
    memset(&ax->values[i], 0, sizeof ax->values[i]);
    ax->is_auto[i] = 0;
    ax->gpus[i] = NULL;
    ax->models[i] = NULL;
    if (ax->kind == AXIS_GPU) {
        ax->gpus[i] = kv_gpu_find(item);
        char hint[160];
        if (!ax->gpus[i])
            return grid_fail(g, "kvcalc: --sweep: unknown GPU '%s'%s (see kvcalc --list-gpus)",
                             item, kv_hint_gpu(item, hint, sizeof hint));
    } else if (ax->kind == AXIS_MODEL) {
        char hint[160];
        if (!kv_model_preset_find(item))
            return grid_fail(g, "kvcalc: --sweep: unknown model '%s'%s (see kvcalc --list-models)",
                             item, kv_hint_model(item, hint, sizeof hint));
        kv_model *m = malloc(sizeof *m);
        if (!m)
            return grid_fail(g, "kvcalc: --sweep: out of memory%s%s", "", "");
        ax->models[i] = m;
        ax->n_list++; /* owned from here: freed with the axis */
        ax->seg[ax->n_seg - 1].n++;
        return kv_model_load(NULL, item, m, g->err, sizeof g->err) == 0 ? 0 : -1;
    } else {
        char typed[KV_TYPED_MAX];
        kv_snprintf(typed, sizeof typed, "--%s", ax->flag->name);
        int rc = kv_flag_value(ax->flag, typed, item, &ax->values[i], g->err, sizeof g->err);
        if (rc == KV_USAGE_ERROR)
            return -1;
        ax->is_auto[i] = rc == 1;
    }
    ax->n_list++;
    ax->seg[ax->n_seg - 1].n++;
    return 0;
}

/* "A..B+S" / "A..B*F" over an integer or number input: the endpoints are parsed as the flag
 * parses them (same bounds, same messages), the step by range.h. */
static int range_item(grid *g, axis *ax, const char *item)
{
    char a[128], b[128], step[128], op, msg[1024];
    kv_value va, vb;
    segment *s;
    if (ax->kind != AXIS_FLAG || (ax->flag->arg != ARG_INT && ax->flag->arg != ARG_NUM))
        return grid_fail(g, "kvcalc: --sweep: '%s' takes a list of values, not a range%s",
                         ax->key, "");
    if (kv_range_split(item, a, sizeof a, b, sizeof b, &op, step, sizeof step, msg, sizeof msg))
        return grid_fail(g, "kvcalc: --sweep: %s%s", msg, "");
    char typed[KV_TYPED_MAX];
    kv_snprintf(typed, sizeof typed, "--%s", ax->flag->name);
    if (kv_flag_value(ax->flag, typed, a, &va, g->err, sizeof g->err) != 0 ||
        kv_flag_value(ax->flag, typed, b, &vb, g->err, sizeof g->err) != 0)
        return -1;
    if (!(s = new_segment(ax)))
        return grid_fail(g, "kvcalc: --sweep: out of memory%s%s", "", "");
    s->is_range = 1;
    int opt = ax->flag->param->type == KV_T_OPT_INT || ax->flag->param->type == KV_T_OPT_NUM;
    int rc = ax->flag->arg == ARG_INT
                 ? kv_range_init_int(&s->range, opt ? va.oi.value : va.i, opt ? vb.oi.value : vb.i,
                                     op, step, item, msg, sizeof msg)
                 : kv_range_init_num(&s->range, opt ? va.on.value : va.d, opt ? vb.on.value : vb.d,
                                     op, step, item, msg, sizeof msg);
    if (rc != 0)
        return grid_fail(g, "kvcalc: --sweep: %s%s", msg, "");
    return 0;
}

/* The axis key as typed ("max-model-len", "kv_cache_dtype", "gpu") -> the axis. */
static int axis_key(grid *g, axis *ax, const char *text, size_t len)
{
    char key[64];
    if (len >= sizeof key)
        len = sizeof key - 1;
    memcpy(key, text, len);
    key[len] = '\0';
    for (char *p = key; *p; p++)
        if (*p == '_')
            *p = '-';
    if (strcmp(key, "gpu") == 0 || strcmp(key, "model") == 0) {
        ax->kind = key[0] == 'g' ? AXIS_GPU : AXIS_MODEL;
        kv_snprintf(ax->key, sizeof ax->key, "%s", key);
        return 0;
    }
    ax->kind = AXIS_FLAG;
    ax->flag = kv_flag_find_for(key, strlen(key), g->engine);
    char hint[160];
    if (!ax->flag || ax->flag->does != DO_SPEC || ax->flag->arg == ARG_NONE)
        return grid_fail(g, "kvcalc: --sweep: unknown key '%s'%s (expected gpu, model or an input "
                            "such as context, tp, dtype, gpu-mem-gib, block-size)",
                         key, kv_hint_input(key, hint, sizeof hint));
    kv_snprintf(ax->key, sizeof ax->key, "%s", ax->flag->param->key);
    return 0;
}

static int parse_axis(grid *g, const char *text)
{
    axis *ax = &g->axes[g->n];
    memset(ax, 0, sizeof *ax);
    g->n++; /* owned from here: freed with the grid */
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || !eq[1])
        return grid_fail(g, "kvcalc: --sweep: expected KEY=VALUES, got '%s'%s", text, "");
    if (axis_key(g, ax, text, (size_t)(eq - text)) != 0)
        return -1;
    for (size_t k = 0; k + 1 < g->n; k++)
        if (strcmp(g->axes[k].key, ax->key) == 0)
            return grid_fail(g, "kvcalc: --sweep: '%s' is swept twice%s", ax->key, "");
    char *list = malloc(strlen(eq + 1) + 1);
    if (!list)
        return grid_fail(g, "kvcalc: --sweep: out of memory%s%s", "", "");
    strcpy(list, eq + 1);
    int rc = 0;
    for (char *item = list, *next; item && rc == 0; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (!*item) {
            rc = grid_fail(g, "kvcalc: --sweep: an empty value in '%s'%s", text, "");
        } else if (strstr(item, "..")) {
            rc = range_item(g, ax, item);
        } else {
            segment *s = ax->n_seg && !ax->seg[ax->n_seg - 1].is_range ? &ax->seg[ax->n_seg - 1]
                                                                       : new_segment(ax);
            rc = s ? list_value(g, ax, item)
                   : grid_fail(g, "kvcalc: --sweep: out of memory%s%s", "", "");
        }
    }
    free(list);
    return rc;
}

static void free_grid(grid *g)
{
    for (size_t k = 0; k < g->n; k++) {
        axis *ax = &g->axes[k];
        for (size_t i = 0; ax->models && i < ax->n_list; i++)
            free(ax->models[i]);
        free(ax->seg);
        free(ax->values);
        free(ax->is_auto);
        free(ax->gpus);
        free(ax->models);
    }
}

/* Values of an axis: exact, or MAX_POINTS + 1 when there are more. */
static double axis_count(const axis *ax)
{
    double n = 0;
    for (size_t i = 0; i < ax->n_seg; i++)
        n += ax->seg[i].is_range ? (double)kv_range_count(&ax->seg[i].range, (uint64_t)MAX_POINTS)
                                 : (double)ax->seg[i].n;
    return n;
}

/* ---- walking the grid ----------------------------------------------------------------- */

/* Loads the current value of segment at_seg, position at_list / the iterator. */
static void axis_load(axis *ax)
{
    const segment *s = &ax->seg[ax->at_seg];
    if (!s->is_range) {
        size_t i = s->first + ax->at_list;
        ax->now = ax->values[i];
        ax->now_auto = ax->is_auto[i];
        return;
    }
    ax->now_auto = 0;
}

/* A range's next point as the axis's value, in the member its parameter reads. */
static int range_next(axis *ax)
{
    int64_t i = 0;
    double d = 0;
    if (!kv_range_next(&ax->it, &i, &d))
        return 0;
    kv_flag_number(ax->flag, &ax->now, i, d);
    return 1;
}

/* Moves to the first value of segment k (ranges: their first value). */
static int axis_enter(axis *ax, size_t k)
{
    for (; k < ax->n_seg; k++) {
        ax->at_seg = k;
        ax->at_list = 0;
        segment *s = &ax->seg[k];
        if (s->is_range) {
            kv_range_begin(&s->range, &ax->it);
            if (range_next(ax)) {
                ax->now_auto = 0;
                return 1;
            }
        } else if (s->n > 0) {
            axis_load(ax);
            return 1;
        }
    }
    return 0;
}

static void axis_reset(axis *ax)
{
    axis_enter(ax, 0);
}

/* The next value; 0 when the axis is done (then it is reset to its first value). */
static int axis_next(axis *ax)
{
    segment *s = &ax->seg[ax->at_seg];
    if (s->is_range) {
        if (range_next(ax))
            return 1;
    } else if (++ax->at_list < s->n) {
        axis_load(ax);
        return 1;
    }
    if (axis_enter(ax, ax->at_seg + 1))
        return 1;
    axis_reset(ax);
    return 0;
}

/* Writes the axes' current values into the working options, model and GPU. */
static void apply_axes(const grid *g, kv_options *o, const kv_model **model, const kv_gpu **gpu)
{
    for (size_t k = 0; k < g->n; k++) {
        const axis *ax = &g->axes[k];
        const segment *s = &ax->seg[ax->at_seg];
        size_t i = s->first + ax->at_list;
        if (ax->kind == AXIS_GPU) {
            *gpu = ax->gpus[i];
        } else if (ax->kind == AXIS_MODEL) {
            *model = ax->models[i];
        } else {
            size_t f = kv_flag_index(ax->flag);
            o->set[f] = !ax->now_auto;
            o->values[f] = ax->now;
            o->typed[f] = NULL; /* messages then name the flag by its name */
        }
    }
}

/* ---- rows ----------------------------------------------------------------------------- */

/* The rows waiting to be written: one fwrite for 64 KiB of rows rather than one a row (a
 * call, a lock and a copy each: a tenth of a million-row sweep, issue 22). A row starts
 * with at least LINE_ROOM bytes free; a longer one (only a hostile name makes one) is cut. */
#define LINE_FLUSH 65536
#define LINE_ROOM 8192
typedef struct {
    char text[LINE_FLUSH + LINE_ROOM];
    size_t n;
} line;

/* Writes what l holds once it passes LINE_FLUSH bytes, or all of it. */
static void drain(line *l, FILE *out, int all)
{
    if (l->n >= LINE_FLUSH || (all && l->n > 0)) {
        fwrite(l->text, 1, l->n, out);
        l->n = 0;
    }
}

static void put(line *l, const char *s)
{
    size_t len = strlen(s);
    if (len > sizeof l->text - 1 - l->n)
        len = sizeof l->text - 1 - l->n; /* a row is short; only a hostile name gets here */
    memcpy(l->text + l->n, s, len);
    l->n += len;
}

/* One cell: CSV quoted where needed (RFC 4180), text right-aligned in 22 columns with
 * control bytes replaced, JSON as "key": value with strings escaped. Null: CSV empty, text
 * and JSON null. */
static void cell(line *l, kv_format fmt, int first, const char *key, const char *v, int is_str,
                 int is_null)
{
    char safe[2048];
    if (fmt == FORMAT_JSON) {
        put(l, first ? "{\"" : ", \"");
        put(l, key);
        put(l, "\": ");
        if (!is_str || is_null) {
            put(l, is_null ? "null" : v);
            return;
        }
        put(l, "\"");
        for (; *v; v++) {
            char esc[8] = {*v, 0};
            unsigned char c = (unsigned char)*v;
            if (c == '"' || c == '\\')
                kv_snprintf(esc, sizeof esc, "\\%c", c);
            else if (c < 0x20 || c == 0x7f)
                snprintf(esc, sizeof esc, "\\u%04x", c);
            put(l, esc);
        }
        put(l, "\"");
        return;
    }
    if (!first)
        put(l, fmt == FORMAT_CSV ? "," : " ");
    if (fmt == FORMAT_CSV) {
        if (is_null)
            return;
        if (!is_str || !strpbrk(v, ",\"\r\n")) { /* numbers never need quotes */
            put(l, v);
            return;
        }
        put(l, "\"");
        for (; *v; v++)
            put(l, *v == '"' ? "\"\"" : (char[2]){*v, 0});
        put(l, "\"");
        return;
    }
    kv_safe(safe, sizeof safe, is_null ? "null" : v, 0);
    for (size_t w = strlen(safe); w < 22; w++)
        put(l, " ");
    put(l, safe);
}

/* The result columns: the fields that are sweep columns (kv_field.sweep), the spec's and
 * the result's first, then each engine's that the sweep computes, each part in its rank's
 * order; a column beside an engine only when an engine other than the lesson's is swept. */
#define MAX_COLUMNS 32
typedef struct {
    const kv_field *keys[MAX_COLUMNS];
    size_t n;
} column_set;

static void add_columns(column_set *cs, int engine, int beside_engine)
{
    size_t n = kv_field_count();
    for (int rank = 1; rank < 64; rank++)
        for (size_t i = 0; i < n && cs->n < MAX_COLUMNS; i++) {
            const kv_field *f = kv_field_at(i);
            int mine = engine < 0 ? f->from != KV_FROM_ENGINE
                                  : f->from == KV_FROM_ENGINE && (int)f->engine == engine;
            if (f->sweep == rank && mine && (beside_engine || !(f->flags & KV_FIELD_BESIDE_ENGINE)))
                cs->keys[cs->n++] = f;
        }
}

static void columns_of(column_set *cs, const unsigned char *engines)
{
    int other = 0;
    for (int e = 0; e < KV_ENGINE_COUNT; e++)
        other |= engines[e] && e != KV_ENGINE_IDEAL;
    cs->n = 0;
    add_columns(cs, -1, other);
    for (int e = 0; e < KV_ENGINE_COUNT; e++)
        if (engines[e])
            add_columns(cs, e, 1);
}

static void header(line *l, kv_format fmt, const grid *g, const column_set *cs)
{
    if (fmt == FORMAT_JSON)
        return;
    for (size_t k = 0; k < g->n; k++)
        cell(l, fmt, k == 0, "", g->axes[k].key, 0, 0);
    for (size_t c = 0; c < cs->n; c++)
        cell(l, fmt, 0, "", cs->keys[c]->name, 0, 0);
    put(l, fmt == FORMAT_CSV ? ",status\n" : "  status\n");
}

static void row(line *l, kv_format fmt, const grid *g, const kv_spec *s, const kv_report *rep,
                kv_status st, const column_set *cs)
{
    char buf[FMT_BUF];
    for (size_t k = 0; k < g->n; k++) {
        const axis *ax = &g->axes[k];
        const char *v;
        int is_str = 1;
        if (ax->kind == AXIS_GPU)
            v = s->gpu_name;
        else if (ax->kind == AXIS_MODEL)
            v = s->model_name;
        else
            v = kv_param_text(buf, sizeof buf, s, ax->flag->param, &is_str);
        cell(l, fmt, k == 0, ax->key, v, is_str, 0);
    }
    for (size_t c = 0; c < cs->n; c++) {
        if (st != KV_OK) { /* no result: every column null */
            cell(l, fmt, 0, cs->keys[c]->name, "null", 0, 1);
            continue;
        }
        if (fmt == FORMAT_CSV && sizeof l->text - l->n > FMT_BUF + 1) {
            /* a number or a boolean needs no quoting: read and written in place, with no
             * kv_field_value between (issue 22) */
            size_t n = kv_report_number_text(l->text + l->n + 1, FMT_BUF, cs->keys[c], rep);
            if (n > 0) {
                l->text[l->n] = ',';
                l->n += n + 1;
                continue;
            }
        }
        kv_field_value v = kv_report_value(cs->keys[c], rep);
        cell(l, fmt, 0, cs->keys[c]->name, kv_value_text(buf, sizeof buf, v), 0, v.is_null);
    }
    if (fmt == FORMAT_CSV && st == KV_OK && sizeof l->text - l->n > 4) {
        memcpy(l->text + l->n, ",ok\n", 4); /* the common ending, without a search for quotes */
        l->n += 4;
        return;
    }
    const char *status = st == KV_OK ? "ok" : kv_status_message(st);
    if (fmt == FORMAT_TEXT) {
        put(l, "  ");
        put(l, status);
    } else {
        cell(l, fmt, 0, "status", st == KV_OK ? "ok" : "error", 1, 0);
        if (fmt == FORMAT_JSON)
            put(l, "}");
    }
    put(l, "\n");
}

/* Every point's spec must build (a flag of one engine swept without that engine is a usage
 * error, as on a single run). The builder refuses nothing but engine rules, which depend on
 * which flags are set and on the engine alone: so every value of an engine axis is tried, and
 * of the other axes the first, with the other axes at their first values. */
static int check_axes(grid *g, const kv_options *base, const kv_model *model,
                      unsigned char *engines)
{
    static kv_options o;
    kv_spec s;
    memset(engines, 0, KV_ENGINE_COUNT);
    for (size_t k = 0; k < g->n; k++) {
        axis *ax = &g->axes[k];
        int every = ax->kind == AXIS_FLAG && ax->flag->param == kv_core_param_get(KV_P_ENGINE);
        do {
            const kv_model *m = model;
            const kv_gpu *gpu = base->gpu;
            o = *base;
            apply_axes(g, &o, &m, &gpu);
            if (kv_build_spec(&o, m, gpu, &s, g->err, sizeof g->err) != 0)
                return -1;
            engines[s.engine] = 1;
        } while (every && axis_next(ax));
        if (!every)
            axis_reset(ax);
    }
    return 0;
}

/* --progress: one line on stderr, rewritten in place ("\r"), once the sweep has run past a
 * second, and at most ten times a second. The clock is C11's timespec_get (ISO C, unlike
 * isatty or clock_gettime); it is read every 4,096 rows so that the rows pay nothing for it
 * (a million rows take about half a second). */
typedef struct {
    int on, shown;
    double start, last; /* seconds */
    double total, done;
} progress;

#define PROGRESS_EVERY 4096

static double now_s(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
        return 0;
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress_show(progress *p, int final)
{
    double now = now_s(), secs = now - p->start;
    if (!final && (secs < 1 || now - p->last < 0.1))
        return;
    if (final && !p->shown)
        return; /* a sweep under a second says nothing */
    p->last = now;
    p->shown = 1;
    char done[32], total[32], rate[32], left[48];
    double per_s = secs > 0 ? p->done / secs : 0;
    fmt_int(done, sizeof done, (int64_t)p->done, 1);
    fmt_int(total, sizeof total, (int64_t)p->total, 1);
    fmt_int(rate, sizeof rate, (int64_t)per_s, 1);
    if (final)
        snprintf(left, sizeof left, " in %.1f s", secs);
    else
        snprintf(left, sizeof left, ", about %.0f s left",
                 per_s > 0 ? kvm_ceil((p->total - p->done) / per_s) : 0);
    /* trailing spaces cover a longer line before it */
    fprintf(stderr, "\rkvcalc: --sweep: %s of %s rows (%.0f%%), %s rows/s%s    %s", done, total,
            p->total > 0 ? kvm_floor(100 * p->done / p->total) : 100, rate, left, final ? "\n" : "");
    fflush(stderr);
}

/* Whether the last axis may move by itself: its value written into the last point's spec
 * gives the spec the builder would (the flags applied over the model, in the table's order).
 * That holds for a spec input that changes nothing else (no KV_CLEARS_*, not the engine)
 * while no other flag given changes other inputs either (its clears could overwrite this
 * one, or read it), and no --max-model-len auto (which depends on every input). Then a point
 * costs one kv_spec_set instead of a copy of the spec and every flag again (issue 22). */
static int last_axis_alone(const grid *g, const kv_options *o)
{
    if (g->n == 0 || o->auto_max_model_len)
        return 0;
    const axis *ax = &g->axes[g->n - 1];
    if (ax->kind != AXIS_FLAG || ax->flag->param->type == KV_T_ENGINE || ax->flag->param->clears)
        return 0;
    size_t n = kv_flag_inputs();
    for (size_t i = 0; i < n; i++)
        if (o->set[i] && kv_flag_at(i)->param->clears && kv_flag_at(i) != ax->flag)
            return 0;
    for (size_t k = 0; k + 1 < g->n; k++) /* another axis's flag with clears */
        if (g->axes[k].kind == AXIS_FLAG && g->axes[k].flag->param->clears)
            return 0;
    return 1;
}

int kv_sweep_run(const kv_options *base, const kv_model *model, FILE *out)
{
    static grid g; /* large: off the stack */
    static kv_options o;
    static kv_store store;
    memset(&g, 0, sizeof g);
    g.engine = kv_options_engine(base);
    int rc = 0;
    double points = 1;
    for (size_t i = 0; i < base->n_sweep && rc == 0; i++)
        rc = parse_axis(&g, base->sweep[i]);
    for (size_t k = 0; k < g.n && rc == 0; k++) {
        double n = axis_count(&g.axes[k]);
        points *= n;
        if (n == 0)
            rc = grid_fail(&g, "kvcalc: --sweep: no values for '%s'%s", g.axes[k].key, "");
        else if (points > MAX_POINTS) {
            kv_snprintf(g.err, sizeof g.err,
                     "kvcalc: --sweep: the grid has more than 100,000,000 points; sweep "
                     "fewer values (a million points take about half a second)");
            rc = -1;
        } else
            axis_reset(&g.axes[k]);
    }
    unsigned char engines[KV_ENGINE_COUNT];
    if (rc == 0)
        rc = check_axes(&g, base, model, engines);
    if (rc != 0) {
        kv_fprintf(stderr, "%s\n%s\n", g.err, KV_HINT);
        free_grid(&g);
        return KV_USAGE_ERROR;
    }

    column_set cs;
    columns_of(&cs, engines);
    static line l; /* large: off the stack */
    l.n = 0;
    header(&l, base->format, &g, &cs);
    kv_spec s, base_spec;
    kv_report rep;
    char err[KV_ERR_BUF];
    const kv_model *m = model, *base_model = NULL;
    const kv_gpu *gpu = base->gpu, *base_gpu = NULL;
    int have_base = 0, rebuild = 1;
    o = *base; /* each point writes every axis over this copy */
    int alone = last_axis_alone(&g, &o);
    const axis *last = g.n ? &g.axes[g.n - 1] : NULL;
    progress pr = {base->progress, 0, now_s(), 0, points, 0};
    for (;;) {
        apply_axes(&g, &o, &m, &gpu);
        if (!rebuild && !last->now_auto) { /* only the last axis moved: its value alone */
            kv_spec_set(&s, last->flag->param, &last->now);
        } else {
            if (!have_base || m != base_model || gpu != base_gpu) { /* the builder's first half */
                kv_build_base(m, gpu, &base_spec);
                base_model = m;
                base_gpu = gpu;
                have_base = 1;
            }
            s = base_spec; /* then its second half: checked above for every value */
            kv_build_flags(&o, &s, err, sizeof err);
        }
        kv_status st = kv_pipeline_run(&o, &s, &store, &rep);
        row(&l, base->format, &g, &s, &rep, st, &cs);
        drain(&l, out, 0);
        if (ferror(out))
            break; /* the reader is gone or the disk is full: stop now */
        pr.done++;
        if (pr.on && kvm_fmod(pr.done, PROGRESS_EVERY) == 0)
            progress_show(&pr, 0);
        size_t k = g.n;
        while (k > 0 && !axis_next(&g.axes[k - 1]))
            k--;
        if (k == 0)
            break;
        /* a carry moved other axes too; "auto" unsets a flag: the builder again */
        rebuild = !alone || k != g.n || last->now_auto;
    }
    drain(&l, out, 1);
    free_grid(&g);
    if (pr.on)
        progress_show(&pr, 1);
    if (fflush(out) != 0 || ferror(out)) {
        fputs("kvcalc: error writing to standard output\n", stderr);
        return EXIT_WRITE_ERROR;
    }
    return 0;
}
