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
    if (o.action == ACTION_VERSION) {
        puts("kvcalc " KVCALC_VERSION);
        return finish();
    }
    kv_status st = kv_compute(&o.spec, &r);
    if (st != KV_OK) {
        cli_status_error(st, err, sizeof err);
        return usage_error(err);
    }
    if (o.get)
        report_value(stdout, o.get, &o.spec, &r);
    else
        renderers[o.format](stdout, &o.spec, &r);
    return finish();
}
