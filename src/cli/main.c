/*
 * main.c - the kvcalc program: argv -> cli_parse -> kv_compute -> one renderer.
 *
 * Exit statuses: 0 ok; 1 a --require failed (the report is still printed); 2 usage error (one line on stderr plus a hint, nothing on stdout);
 * 3 the output could not be written (a closed pipe or a full disk must not look like
 * success to a CI job).
 */
#include "cli.h"
#include "kvcalc.h"
#include "report.h"

#include "format.h"
#include "sweep.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define EXIT_REQUIREMENT_FAILED 1
#define EXIT_WRITE_ERROR 3

/* One renderer per --format value, in cli_format order. */
static void (*const renderers[FORMAT_COUNT])(FILE *, const kv_spec *, const kv_result *) = {
    [FORMAT_TEXT] = report_text,
    [FORMAT_JSON] = report_json,
    [FORMAT_CSV] = report_csv,
};

static int usage_error(const char *msg)
{
    fprintf(stderr, "%s\n%s\n", msg, CLI_HINT);
    return CLI_USAGE_ERROR;
}

static int finish(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fputs("kvcalc: error writing to standard output\n", stderr);
        return EXIT_WRITE_ERROR;
    }
    return 0;
}

/* --target-concurrency over every built-in GPU, and --levers, into r. */
static void add_plan_and_levers(const cli_options *o, kv_result *r)
{
    if (o->target > 0) {
        kv_gpu_choice gpus[64];
        size_t n = 0;
        for (size_t i = 0; i < kv_gpu_presets_count && n < 64; i++) {
            gpus[n].name = kv_gpu_presets[i].name;
            gpus[n].gib = gpu_preset_gib(&kv_gpu_presets[i]);
            n++;
        }
        r->has_plan = kv_plan_compute(&o->spec, r, o->target, gpus, n, &r->plan) == KV_OK;
    }
    if (o->levers || o->offload_gib > 0) {
        r->offload_gib = o->offload_gib;
        r->has_levers =
            kv_levers_compute(&o->spec, o->offload_gib, o->target, r->levers) == KV_OK;
    }
}

/* Each unmet --require: one line on stderr. Returns 1 when all are met. */
static int requirements_met(const cli_options *o, const kv_result *r)
{
    int ok = 1;
    char got[FMT_BUF];
    for (size_t i = 0; i < o->n_require; i++) {
        if (requirement_met(&o->require[i], &o->spec, r, got, sizeof got))
            continue;
        fprintf(stderr, "kvcalc: requirement failed: %s (got %s)\n", o->require[i].text, got);
        ok = 0;
    }
    return ok;
}

static int write_plot(const cli_options *o, const kv_result *r)
{
    FILE *f = fopen(o->plot, "w");
    if (!f) {
        fprintf(stderr, "kvcalc: %s: cannot write: %s\n", o->plot, strerror(errno));
        return -1;
    }
    static kv_curve curve;
    kv_curve_compute(&o->spec, r, &curve);
    report_svg(f, &o->spec, r, &curve);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "kvcalc: %s: error writing the plot\n", o->plot);
        return -1;
    }
    return 0;
}

/* Every built-in model through the same reader and core as --model, one row each. */
static int list_models(void)
{
    char err[CLI_ERR_BUF];
    report_model_list_header(stdout);
    for (size_t i = 0; i < kv_model_presets_count; i++) {
        const model_preset *m = &kv_model_presets[i];
        kv_spec s;
        kv_result r;
        if (cli_preset_spec(m, &s, err, sizeof err) != 0 || kv_compute(&s, &r) != KV_OK) {
            fprintf(stderr, "kvcalc: built-in model %s does not load: %s\n", m->id, err);
            return 1;
        }
        report_model_row(stdout, m->id, m->alias, &s, &r);
    }
    return finish();
}

int main(int argc, char **argv)
{
    static cli_options o;
    static kv_result r; /* large (the plan table): not on the stack */
    char err[CLI_ERR_BUF];

    if (cli_parse(argc, argv, &o, err, sizeof err) != 0)
        return usage_error(err);
    if (o.action == ACTION_HELP) {
        cli_help(stdout);
        return finish();
    }
    if (o.action == ACTION_LIST_GPUS) {
        report_gpu_list(stdout);
        return finish();
    }
    if (o.action == ACTION_LIST_MODELS)
        return list_models();
    if (o.action == ACTION_VERSION) {
        puts("kvcalc " KVCALC_VERSION);
        return finish();
    }
    if (o.n_sweep > 0)
        return run_sweep(&o);
    kv_status st = kv_compute(&o.spec, &r);
    if (st != KV_OK) {
        cli_status_error(&o.spec, st, err, sizeof err);
        return usage_error(err);
    }
    add_plan_and_levers(&o, &r);
    if (o.get)
        report_value(stdout, o.get, &o.spec, &r);
    else
        renderers[o.format](stdout, &o.spec, &r);
    int rc = finish();
    if (rc == 0 && o.plot && write_plot(&o, &r) != 0)
        rc = EXIT_WRITE_ERROR;
    if (rc == 0 && !requirements_met(&o, &r))
        rc = EXIT_REQUIREMENT_FAILED;
    return rc;
}
