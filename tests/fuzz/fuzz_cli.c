/*
 * fuzz_cli.c - libFuzzer target: arbitrary bytes as a command line (NUL-separated
 * arguments), through the parser, the core (with the plan, levers and chart curve) and
 * every renderer. Inputs that would read or write a file (--config, --plot) or stream a
 * grid (--sweep) are skipped: the config reader has its own target.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static cli_options o; /* large: keep it off the stack */
    static char buf[4096];
    char *argv[MAX_ARGS + 1];
    char err[CLI_ERR_BUF];
    static kv_result r; /* large (the plan table) */
    memset(&r, 0, sizeof r);
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
        if (strstr(argv[i], "--config") || strstr(argv[i], "--plot") || strstr(argv[i], "--sweep"))
            return 0;
    if (cli_parse(argc, argv, &o, err, sizeof err) != 0 || o.action != ACTION_RUN || !sink)
        return 0;
    if (kv_compute(&o.spec, &r) != KV_OK)
        return 0;
    if (o.target > 0) {
        kv_gpu_choice gpus[2] = {{"small", 24}, {"large", 80}};
        r.has_plan = kv_plan_compute(&o.spec, &r, o.target, gpus, 2, &r.plan) == KV_OK;
    }
    if (o.levers || o.offload_gib > 0) {
        r.offload_gib = o.offload_gib;
        r.has_levers = kv_levers_compute(&o.spec, o.offload_gib, o.target, r.levers) == KV_OK;
    }
    static kv_curve curve;
    kv_curve_compute(&o.spec, &r, &curve);
    report_svg(sink, &o.spec, &r, &curve);
    report_text(sink, &o.spec, &r);
    report_json(sink, &o.spec, &r);
    report_csv(sink, &o.spec, &r);
    for (size_t k = 0; k < kv_outputs_count; k++)
        report_value(sink, &kv_outputs[k], &o.spec, &r);
    return 0;
}
