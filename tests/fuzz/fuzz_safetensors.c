/*
 * fuzz_safetensors.c - libFuzzer target: arbitrary bytes as a whole .safetensors file (its
 * length, its JSON header, its data section), through the header reader, then - when it is
 * accepted - as the weights of the lesson's model through the core and the text and JSON
 * renderers. Any crash, leak, overflow or undefined behaviour (ASan + UBSan) is a bug; a
 * refused header is the expected outcome for most inputs. The first byte of the header
 * length also serves as num_hidden_layers, so the MTP rule sees varied layer counts.
 * Seeds: tests/fuzz/safetensors_seeds/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kvcalc.h"
#include "fuzz_render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kv_safetensors_info st;
    kv_model_info info;
    kv_spec s;
    char err[512];
    memset(&st, 0, sizeof st);
    int64_t layers = size > 0 ? data[0] % 64 : 0;
    if (kv_safetensors_read(data, size, size, "fuzz.safetensors", layers, &st, err,
                            sizeof err) != 0)
        return 0;
    kv_spec_defaults(&s);
    memset(&info, 0, sizeof info);
    double bytes = 0, params = 0;
    for (int p = 0; p < KV_PARTS; p++) {
        bytes += (double)st.bytes[p];
        params += (double)st.params[p];
    }
    s.checkpoint_weights_bytes = bytes;
    s.checkpoint_params = params;
    s.weights_source = KV_WEIGHTS_SAFETENSORS;
    fuzz_render_model(&s, &info);
    return 0;
}
