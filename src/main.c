/*
 * main.c - the kvcalc program: argv -> cli_parse -> kv_compute -> one renderer.
 *
 * Exit statuses: 0 ok; 2 usage error (one line on stderr plus a hint, nothing on stdout);
 * 3 the output could not be written (a closed pipe or a full disk must not look like
 * success to a CI job).
 */
#include "cli.h"
#include "kvcalc.h"
#include "report.h"

#include <stdio.h>

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
    cli_options o;
    kv_result r;
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
    kv_status st = kv_compute(&o.spec, &r);
    if (st != KV_OK) {
        cli_status_error(&o.spec, st, err, sizeof err);
        return usage_error(err);
    }
    if (o.get)
        report_value(stdout, o.get, &o.spec, &r);
    else
        renderers[o.format](stdout, &o.spec, &r);
    return finish();
}
