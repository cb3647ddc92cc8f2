/*
 * fuzz_config.c - libFuzzer target: arbitrary bytes as a config.json, through the reader,
 * the core and the text and JSON renderers. Any crash, leak, overflow or undefined
 * behaviour (ASan + UBSan) is a bug; a refused file is the expected outcome for most
 * inputs. Seeds: the real configs in data/models/ and tests/fixtures/ (variants, frontier,
 * unverified).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kvcalc.h"
#include "fuzz_render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kv_spec s;
    kv_model_info info;
    char err[512];
    kv_spec_defaults(&s);
    if (kv_config_read((const char *)data, size, "fuzz.json", &s, &info, err, sizeof err) == 0)
        fuzz_render_model(&s, &info);
    return 0;
}
