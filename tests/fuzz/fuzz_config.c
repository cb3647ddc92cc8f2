/*
 * fuzz_config.c - libFuzzer target: arbitrary bytes as a config.json, through the reader,
 * the core and the text and JSON renderers. Any crash, leak, overflow or undefined
 * behaviour (ASan + UBSan) is a bug; a refused file is the expected outcome for most
 * inputs. Seeds: the real configs in data/models/ and tests/fixtures/variants/.
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
    kv_spec s;
    kv_result r;
    kv_model_info info;
    char err[512];
    if (!sink)
        sink = fopen("/dev/null", "w");
    kv_spec_defaults(&s);
    if (kv_config_read((const char *)data, size, "fuzz.json", &s, &info, err, sizeof err) != 0)
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
