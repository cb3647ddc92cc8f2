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
#include "fuzz_render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static kv_gguf_info g;
    kv_spec s;
    kv_model_info info;
    char err[512];
    kv_spec_defaults(&s);
    if (kv_gguf_read(data, size, "fuzz.gguf", &s, &info, &g, err, sizeof err) == 0)
        fuzz_render_model(&s, &info);
    return 0;
}
