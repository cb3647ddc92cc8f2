/*
 * fuzz_log.c - libFuzzer target: arbitrary bytes as a startup log, through the line reader
 * (every line, overlong and NUL-holding ones included), the engine's inputs, the spec
 * builder, both runs of the pipeline, the comparison and its three renderers - the same
 * path as `kvcalc --from-log`, with the model the log's lines describe (an Ollama runner's
 * loader lines) or else a built-in model instead of the one the log names.
 * Seeds: tests/logs/ (the public logs' lines with prefixes, colours and ranks).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "build.h"
#include "fromlog.h"
#include "keys.h"
#include "pipeline.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file reader (which tries on a line only the patterns whose words it holds) against
 * kv_log_feed (which tries every pattern), on the input's complete lines: they must agree
 * on every candidate's values. Filler comes first, so that the input starts a little before
 * the reader's first 64 KiB chunk ends (how much before: its first byte) and its lines are
 * read across a chunk's end too (the reader looks for ESC and NUL once a chunk). */
static void same_both_ways(const uint8_t *data, size_t size)
{
    static kv_log by_file, by_line;
    static char path[64], filler[65536];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_log.%ld", (long)clock());
    size_t fill = 65536 - 1 - (size ? (size_t)data[0] * 97 : 0); /* 40,801 .. 65,535 bytes */
    for (size_t i = 0; i < fill; i++) /* two lines over KV_LOG_LINE_MAX: skipped, cheaply */
        filler[i] = i + 1 == fill / 2 || i + 1 == fill ? '\n' : 'x';
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    size_t wrote = fwrite(filler, 1, fill, f) + fwrite(data, 1, size, f);
    fclose(f);
    if (wrote != fill + size)
        return;
    char err[4096];
    kv_log_read_file(path, "fuzz.log", &by_file, err, sizeof err);
    kv_log_init(&by_line);
    for (const char *p = filler, *end = filler + fill; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        kv_log_feed(&by_line, p, (size_t)(nl - p));
        p = nl + 1;
    }
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        kv_log_feed(&by_line, p, (size_t)(nl - p));
        p = nl + 1;
    }
    kv_log_finish(&by_line);
    if (by_file.engine != by_line.engine || by_file.lines != by_line.lines ||
        memcmp(by_file.cand, by_line.cand, sizeof by_file.cand) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static kv_log lg;
    static kv_log_args in;
    static kv_options o;
    static kv_model model, described;
    const kv_model *use = &model;
    static kv_store a, b;
    static kv_comparison cmp;
    static char err[KV_ERR_BUF];
    kv_spec sa, sb;
    kv_report rep, rep_b;
    if (!sink)
        sink = fopen("/dev/null", "w");
    if (!sink)
        return 0;
    same_both_ways(data, size);
    kv_log_init(&lg);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) { /* lines as the file reader cuts them; the last one too */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        kv_log_feed(&lg, p, n);
        p += n + 1;
    }
    if (kv_log_finish(&lg) != 0 || kv_fromlog_inputs(&lg, "fuzz.log", &in, err, sizeof err) != 0)
        return 0;
    memset(&o, 0, sizeof o);
    o.from_log = "fuzz.log";
    if (!model.name[0] && kv_model_load(NULL, "qwen3-0.6b", &model, err, sizeof err) != 0)
        return 0;
    if (kv_log_model_spec(&lg, &described.spec, &described.gguf, described.name,
                          sizeof described.name, err, sizeof err) == KV_OK) {
        described.spec.gguf = &described.gguf;
        described.spec.model_name = described.name;
        use = &described;
    }
    if (kv_build_spec_log(&o, use, NULL, &in, 1, &sa, err, sizeof err) != 0 ||
        kv_pipeline_run(&o, &sa, &a, &rep) != KV_OK)
        return 0;
    int e2e = kv_fromlog_end_to_end(&lg, &o) &&
              kv_build_spec_log(&o, use, NULL, &in, 0, &sb, err, sizeof err) == 0 &&
              kv_pipeline_run(&o, &sb, &b, &rep_b) == KV_OK;
    kv_log_compare(&lg, 0, &sa, &a.result, e2e ? &sb : NULL, e2e ? &b.result : NULL, &cmp);
    cmp.file = "fuzz.log";
    rep.comparison = &cmp;
    report_fromlog_text(sink, &rep);
    report_fromlog_json(sink, &rep);
    report_fromlog_csv(sink, &rep);
    for (size_t k = 0; k < kv_log_field_count(); k++) {
        char text[1024];
        kv_value_text(text, sizeof text, kv_report_value(kv_log_field_at(k), &rep));
        fputs(text, sink);
    }
    return 0;
}
