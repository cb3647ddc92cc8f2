/*
 * fuzz_cli.c - libFuzzer target: arbitrary bytes as a command line (NUL-separated
 * arguments), through the same path as a run: options, the spec builder, the pipeline (with
 * the plan, levers and chart) and every renderer, plus --get of every key. Inputs that would
 * read or write a file (--config, --plot, --from-log, --trace) are skipped: the config reader has its own
 * target. A --sweep is run with its output to /dev/null when its grid is small.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "keys.h"
#include "pipeline.h"
#include "report.h"
#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static kv_options o;   /* large: keep it off the stack */
    static kv_model model;
    static kv_store store;
    static char buf[4096];
    char *argv[MAX_ARGS + 1];
    static char err[KV_ERR_BUF];
    kv_spec spec;
    kv_report rep;
    if (size >= sizeof buf)
        return 0;
    if (!sink)
        sink = fopen("/dev/null", "w");
    memcpy(buf, data, size);
    buf[size] = '\0';
    int argc = 0;
    argv[argc++] = (char *)"kvcalc";
    for (size_t i = 0; i <= size && argc < MAX_ARGS;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    for (int i = 1; i < argc; i++)
        if (strstr(argv[i], "--config") || strstr(argv[i], "--plot") || strstr(argv[i], "..") ||
            strstr(argv[i], "--from-log") || strstr(argv[i], "--trace"))
            return 0; /* files, and ranges that could make a long sweep */
    if (kv_options_parse(argc, argv, &o, err, sizeof err) != 0 || o.action != ACTION_RUN || !sink)
        return 0;
    if (o.workload.requests > 2000)
        return 0; /* a long simulation is the bench's, not a fuzz input's */
    int has_model = o.model_name != NULL;
    if (has_model && kv_model_load(NULL, o.model_name, &model, err, sizeof err) != 0)
        return 0;
    if (o.n_sweep > 0) {
        kv_sweep_run(&o, has_model ? &model : NULL, sink);
        return 0;
    }
    if (kv_build_spec(&o, has_model ? &model : NULL, o.gpu, &spec, err, sizeof err) != 0)
        return 0;
    o.plot = "fuzz.svg"; /* the curve too (nothing is written) */
    if (kv_pipeline_run(&o, &spec, &store, &rep) != KV_OK)
        return 0;
    report_svg(sink, &rep);
    report_text(sink, &rep);
    report_json(sink, &rep);
    report_csv(sink, &rep);
    for (size_t k = 0; k < kv_field_count(); k++) {
        char text[1024];
        kv_value_text(text, sizeof text, kv_report_value(kv_field_at(k), &rep));
        fputs(text, sink);
    }
    return 0;
}
