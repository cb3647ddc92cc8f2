/*
 * fuzz_gguf.c - libFuzzer target: arbitrary bytes as a GGUF header, through the reader,
 * the core and the text and JSON renderers. Any crash, leak, overflow or undefined
 * behaviour (ASan + UBSan) is a bug; a refused header is the expected outcome for most
 * inputs. Seeds: tests/fuzz/gguf_seeds/ (the ground-truth rows' headers and small ones).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kvcalc.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static kv_gguf_info g;
    kv_spec s;
    kv_result r;
    kv_model_info info;
    char err[512];
    if (!sink)
        sink = fopen("/dev/null", "w");
    kv_spec_defaults(&s);
    if (kv_gguf_read(data, size, "fuzz.gguf", &s, &info, &g, err, sizeof err) != 0)
        return 0;
    s.model_name = info.name;
    s.model_source = "fuzz";
    s.max_context = info.max_context;
    if (kv_compute(&s, &r) == KV_OK && sink) {
        static kv_table t;
        kv_table_compute(&s, &r, &t);
        kv_report rep = {&s, &r, &t, NULL, NULL, NULL};
        report_text(sink, &rep);
        report_json(sink, &rep);
    }
    return 0;
}
