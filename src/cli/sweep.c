/*
 * sweep.c - --sweep KEY=VALUES: a grid over any inputs, one row per point.
 *
 * Each axis is an input of kv_inputs (context, tp, dtype, kv-cache-dtype, gpu-mem-gib, ...),
 * a GPU preset (gpu=h100,l40s) or a model preset (model=qwen3-8b,llama-3.1-8b). Values are a
 * list (V1,V2), a geometric range (A..B*F) or an arithmetic one (A..B+S). Every value is
 * parsed once, before the first row; a point is then a copy of the base spec with the axis
 * values written in, one kv_compute() and one printed line, so a sweep streams at well over
 * a million points per second to CSV (bench/bench.sh measures it). The grid is walked like
 * an odometer, the last axis fastest; nothing is stored per point.
 */
#include "sweep.h"

#include "config.h"
#include "format.h"
#include "presets.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AXIS_VALUES 10000000 /* one axis; the grid is the product of the axes */

typedef enum { AXIS_INPUT, AXIS_GPU, AXIS_MODEL } axis_kind;

typedef struct {
    axis_kind kind;
    const input_field *field;  /* AXIS_INPUT */
    char key[48];              /* as printed in the header */
    size_t n;
    union {
        int64_t *i;
        double *d;
        int *e;
        const gpu_preset **gpu;
        kv_spec *model;        /* a spec per model value, lesson defaults elsewhere */
    } v;
    const char **model_names;  /* AXIS_MODEL: ids */
} axis;

typedef struct {
    axis axes[CLI_MAX_SWEEP];
    size_t n;
    char err[CLI_ERR_BUF];
} grid;

static int grid_fail(grid *g, const char *fmt, const char *a, const char *b)
{
    snprintf(g->err, sizeof g->err, fmt, a, b);
    return -1;
}

/* Appends one value to an axis, growing its array. */
static int push(axis *ax, size_t elem, const void *value)
{
    if (ax->n >= MAX_AXIS_VALUES)
        return -1;
    if ((ax->n & (ax->n - 1)) == 0) { /* grow at powers of two */
        size_t cap = ax->n ? ax->n * 2 : 1;
        void *bigger = realloc(ax->v.i, cap * elem);
        if (!bigger)
            return -1;
        ax->v.i = bigger;
    }
    memcpy((char *)ax->v.i + ax->n * elem, value, elem);
    ax->n++;
    return 0;
}

/* "A..B*F" or "A..B+S" over an integer or number input. */
static int push_range(grid *g, axis *ax, const char *item)
{
    char a[64], b[64], step[64], op;
    const char *dots = strstr(item, "..");
    const char *mark = dots ? strpbrk(dots + 2, "*+") : NULL;
    if (!dots || !mark || (size_t)(dots - item) >= sizeof a || (size_t)(mark - dots) >= sizeof b ||
        strlen(mark + 1) >= sizeof step)
        return grid_fail(g, "kvcalc: --sweep: bad range '%s' (expected A..B*F or A..B+S)%s", item,
                         "");
    snprintf(a, sizeof a, "%.*s", (int)(dots - item), item);
    snprintf(b, sizeof b, "%.*s", (int)(mark - dots - 2), dots + 2);
    snprintf(step, sizeof step, "%s", mark + 1);
    op = *mark;
    kv_spec lo, hi, st;
    char err[CLI_ERR_BUF];
    kv_spec_defaults(&lo);
    kv_spec_defaults(&hi);
    kv_spec_defaults(&st);
    if (cli_set_input(ax->field, a, &lo, err, sizeof err) || cli_set_input(ax->field, b, &hi, err, sizeof err))
        return grid_fail(g, "%s%s", err, "");
    double from, to, by = strtod(step, NULL);
    char *end;
    by = strtod(step, &end);
    if (*end || !(by > 0) || !isfinite(by) || (op == '*' && !(by > 1)))
        return grid_fail(g, "kvcalc: --sweep: bad step in '%s' (*F needs F > 1, +S needs S > 0)%s",
                         item, "");
    if (ax->field->kind == IN_INT) {
        from = (double)*input_int(&lo, ax->field);
        to = (double)*input_int(&hi, ax->field);
    } else {
        from = *input_num(&lo, ax->field);
        to = *input_num(&hi, ax->field);
    }
    for (double x = from; x <= to * (1 + 1e-12); x = op == '*' ? x * by : x + by) {
        int rc;
        if (ax->field->kind == IN_INT) {
            int64_t v = (int64_t)llround(x);
            rc = push(ax, sizeof v, &v);
        } else {
            rc = push(ax, sizeof x, &x);
        }
        if (rc != 0)
            return grid_fail(g, "kvcalc: --sweep: more than 10,000,000 values in '%s'%s", item, "");
    }
    return 0;
}

static int parse_axis(grid *g, const char *text)
{
    axis *ax = &g->axes[g->n];
    memset(ax, 0, sizeof *ax);
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || !eq[1])
        return grid_fail(g, "kvcalc: --sweep: expected KEY=VALUES, got '%.60s'%s", text, "");
    size_t klen = (size_t)(eq - text);
    char key[48];
    snprintf(key, sizeof key, "%.*s", (int)(klen < 47 ? klen : 47), text);
    for (char *p = key; *p; p++)
        if (*p == '_')
            *p = '-';
    snprintf(ax->key, sizeof ax->key, "%s", key);
    if (strcmp(key, "gpu") == 0) {
        ax->kind = AXIS_GPU;
    } else if (strcmp(key, "model") == 0) {
        ax->kind = AXIS_MODEL;
    } else {
        ax->kind = AXIS_INPUT;
        ax->field = kv_input_by_flag(key, strlen(key));
        if (!ax->field || ax->field->kind == IN_FLAG)
            return grid_fail(g, "kvcalc: --sweep: unknown key '%s' (expected gpu, model or an "
                                "input such as context, tp, dtype, kv-cache-dtype, gpu-mem-gib)%s",
                             key, "");
        snprintf(ax->key, sizeof ax->key, "%s", ax->field->key);
    }
    /* values, comma-separated */
    char *list = malloc(strlen(eq + 1) + 1);
    if (!list)
        return grid_fail(g, "kvcalc: --sweep: out of memory%s%s", "", "");
    strcpy(list, eq + 1);
    int rc = 0;
    for (char *item = list, *next; item && rc == 0; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (ax->kind == AXIS_GPU) {
            const gpu_preset *gp = find_gpu_preset(item);
            rc = gp ? push(ax, sizeof gp, &gp)
                    : grid_fail(g, "kvcalc: --sweep: unknown GPU '%.60s' (see --list-gpus)%s", item, "");
        } else if (ax->kind == AXIS_MODEL) {
            const model_preset *m = find_model_preset(item);
            kv_spec s;
            char err[CLI_ERR_BUF];
            if (!m)
                rc = grid_fail(g, "kvcalc: --sweep: unknown model '%.60s' (see --list-models)%s",
                               item, "");
            else if (cli_preset_spec(m, &s, err, sizeof err) != 0)
                rc = grid_fail(g, "%s%s", err, "");
            else
                rc = push(ax, sizeof s, &s);
        } else if (strstr(item, "..")) {
            rc = (ax->field->kind == IN_INT || ax->field->kind == IN_NUM)
                     ? push_range(g, ax, item)
                     : grid_fail(g, "kvcalc: --sweep: '%s' takes a list, not a range%s", key, "");
        } else {
            kv_spec s;
            char err[CLI_ERR_BUF];
            kv_spec_defaults(&s);
            if (cli_set_input(ax->field, item, &s, err, sizeof err) != 0)
                rc = grid_fail(g, "%s%s", err, "");
            else
                rc = push(ax, input_size(ax->field), (char *)&s + ax->field->offset);
        }
        if (rc == 0 && ax->n == 0)
            rc = grid_fail(g, "kvcalc: --sweep: no values for '%s'%s", key, "");
    }
    free(list);
    if (rc == 0 && ax->n == 0)
        rc = grid_fail(g, "kvcalc: --sweep: no values for '%s'%s", key, "");
    if (rc == 0)
        g->n++;
    return rc;
}

/* ---- points ------------------------------------------------------------------------------ */

/* The model part of a spec: what --model / --config set. */
static void take_model(kv_spec *dst, const kv_spec *model)
{
    dst->layers = model->layers;
    dst->kv_heads = model->kv_heads;
    dst->head_dim = model->head_dim;
    dst->dtype = model->dtype;
    dst->weight_dtype = model->weight_dtype;
    dst->layout = model->layout;
    dst->arch = model->arch;
    dst->params_estimated = model->params_estimated;
    dst->model_name = model->model_name;
    dst->model_source = model->model_source;
    dst->max_context = model->max_context;
}

static const input_field *batch_input(void)
{
    static const char flag[] = "max-num-batched-tokens";
    return kv_input_by_flag(flag, sizeof flag - 1);
}

static void build_point(const cli_options *o, const grid *g, const size_t *at, kv_spec *s,
                        char *note, size_t cap)
{
    *s = o->spec;
    for (size_t k = 0; k < g->n; k++) { /* the model first: other axes and flags win */
        const axis *ax = &g->axes[k];
        if (ax->kind == AXIS_MODEL) {
            take_model(s, &ax->v.model[at[k]]);
            cli_apply_given(s, &o->given, o->given_set);
        }
    }
    for (size_t k = 0; k < g->n; k++) {
        const axis *ax = &g->axes[k];
        if (ax->kind == AXIS_GPU) {
            const gpu_preset *gp = ax->v.gpu[at[k]];
            s->gpu_mem_gib = gpu_preset_gib(gp);
            s->gpu_name = gp->name;
            if (s->engine == KV_ENGINE_VLLM)
                cli_resolve_vllm_gpu(s, gp, 0,
                                     o->given_set[batch_input() - kv_inputs],
                                     note, cap);
        } else if (ax->kind == AXIS_INPUT) {
            size_t size = input_size(ax->field);
            memcpy((char *)s + ax->field->offset, (const char *)ax->v.i + at[k] * size, size);
        }
    }
}

/* ---- rows -------------------------------------------------------------------------------- */

typedef struct {
    const char *key;
    int vllm_only;
} column;

static const output_field *column_fields[16]; /* resolved once per sweep */

static const column result_columns[] = {
    {"kv_bytes_per_token", 0},
    {"kv_bytes_per_request", 0},
    {"free_kv_bytes", 0},
    {"max_concurrency", 0},
    {"fits", 0},
    {"num_gpu_blocks", 1},
    {"gpu_kv_cache_tokens", 1},
    {"vllm_max_concurrency", 1},
};
#define N_COLUMNS (sizeof result_columns / sizeof result_columns[0])

/* The text of axis k's value at a point, as the JSON would write it. */
static const char *axis_text(const axis *ax, size_t i, const kv_spec *s, char *buf, size_t cap)
{
    if (ax->kind == AXIS_GPU)
        return ax->v.gpu[i]->name;
    if (ax->kind == AXIS_MODEL)
        return ax->v.model[i].model_name;
    return input_text(buf, cap, s, ax->field);
}

static int axis_is_string(const axis *ax, const kv_spec *s)
{
    return ax->kind != AXIS_INPUT || input_is_string(s, ax->field);
}

static void print_header(FILE *out, cli_format fmt, const grid *g, int vllm)
{
    if (fmt == FORMAT_JSON)
        return;
    const char *sep = fmt == FORMAT_CSV ? "," : " ";
    int first = 1;
    for (size_t k = 0; k < g->n; k++) {
        fprintf(out, fmt == FORMAT_CSV ? "%s%s" : "%s%22s", first ? "" : sep, g->axes[k].key);
        first = 0;
    }
    for (size_t c = 0; c < N_COLUMNS; c++)
        if (!result_columns[c].vllm_only || vllm)
            fprintf(out, fmt == FORMAT_CSV ? "%s%s" : "%s%22s", sep, result_columns[c].key);
    fprintf(out, fmt == FORMAT_CSV ? "%sstatus\n" : "%s  status\n", sep);
}

/* A row is built in a buffer and written once: sweeps print millions of them. */
typedef struct {
    char text[4096];
    size_t n;
} line;

static void put(line *l, const char *s)
{
    size_t len = strlen(s);
    if (l->n + len < sizeof l->text) {
        memcpy(l->text + l->n, s, len);
        l->n += len;
    }
}

/* One cell: CSV as is, text right-aligned in 22 columns, JSON as "key": value. */
static void cell(line *l, cli_format fmt, int first, const char *key, const char *v, int quote)
{
    if (fmt == FORMAT_JSON) {
        put(l, first ? "{\"" : ", \"");
        put(l, key);
        put(l, quote ? "\": \"" : "\": ");
        put(l, v);
        if (quote)
            put(l, "\"");
        return;
    }
    if (!first)
        put(l, fmt == FORMAT_CSV ? "," : " ");
    if (fmt == FORMAT_TEXT)
        for (size_t w = strlen(v); w < 22; w++)
            put(l, " ");
    put(l, v);
}

static void print_row(FILE *out, cli_format fmt, const grid *g, const size_t *at,
                      const kv_spec *s, const kv_result *r, kv_status st, int vllm)
{
    char buf[FMT_BUF];
    line l;
    l.n = 0;
    for (size_t k = 0; k < g->n; k++) {
        const axis *ax = &g->axes[k];
        cell(&l, fmt, k == 0, ax->key, axis_text(ax, at[k], s, buf, sizeof buf),
             axis_is_string(ax, s));
    }
    for (size_t c = 0; c < N_COLUMNS; c++) {
        if (result_columns[c].vllm_only && !vllm)
            continue;
        const char *v = st != KV_OK ? (fmt == FORMAT_CSV ? "" : "null")
                                    : output_text(buf, sizeof buf, column_fields[c]->get(s, r));
        cell(&l, fmt, 0, result_columns[c].key, v, 0);
    }
    if (fmt == FORMAT_TEXT) {
        put(&l, "  ");
        put(&l, st == KV_OK ? "ok" : kv_status_message(st));
    } else {
        cell(&l, fmt, 0, "status", st == KV_OK ? "ok" : "error", fmt == FORMAT_JSON);
        if (fmt == FORMAT_JSON)
            put(&l, "}");
    }
    put(&l, "\n");
    fwrite(l.text, 1, l.n, out);
}

static void free_grid(grid *g)
{
    for (size_t k = 0; k < g->n; k++)
        free(g->axes[k].v.i);
}

int run_sweep(const cli_options *o)
{
    static grid g; /* large: off the stack */
    static kv_result r;
    memset(&g, 0, sizeof g);
    for (size_t i = 0; i < o->n_sweep; i++) {
        if (parse_axis(&g, o->sweep[i]) != 0) {
            fprintf(stderr, "%s\n%s\n", g.err, CLI_HINT);
            free_grid(&g);
            return CLI_USAGE_ERROR;
        }
    }
    static char out_buf[1 << 20];
    setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    int vllm = o->spec.engine == KV_ENGINE_VLLM;
    for (size_t c = 0; c < N_COLUMNS; c++)
        column_fields[c] = kv_output_by_key(result_columns[c].key);
    print_header(stdout, o->format, &g, vllm);
    size_t at[CLI_MAX_SWEEP] = {0};
    char note[160];
    kv_spec s;
    for (;;) {
        build_point(o, &g, at, &s, note, sizeof note);
        kv_status st = kv_compute(&s, &r);
        print_row(stdout, o->format, &g, at, &s, &r, st, vllm);
        size_t k = g.n;
        while (k > 0 && ++at[k - 1] == g.axes[k - 1].n)
            at[--k] = 0;
        if (k == 0)
            break;
    }
    free_grid(&g);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fputs("kvcalc: error writing to standard output\n", stderr);
        return 3;
    }
    return 0;
}
