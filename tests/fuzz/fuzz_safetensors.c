/*
 * fuzz_safetensors.c - libFuzzer target: arbitrary bytes as a whole .safetensors file (its
 * length, its JSON header, its data section), through the header reader, then - when it is
 * accepted - as the weights of the lesson's model through the core and the text and JSON
 * renderers. Any crash, leak, overflow or undefined behaviour (ASan + UBSan) is a bug; a
 * refused header is the expected outcome for most inputs. The first byte of the header
 * length also serves as num_hidden_layers, so the MTP rule sees varied layer counts.
 * Each input is read both ways (src/model/safetensors.h): the one-pass reader tried first,
 * and the token reader alone; a difference in status, figures or message aborts (issue 22:
 * the one-pass reader must give the token reader's answer or give up).
 * Seeds: tests/fuzz/safetensors_seeds/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvcalc.h"
#include "fuzz_render.h"
#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kv_safetensors_info st, tok;
    kv_model_info info;
    kv_spec s;
    char err[512] = "", terr[512] = "";
    memset(&st, 0, sizeof st);
    memset(&tok, 0, sizeof tok);
    int64_t layers = size > 0 ? data[0] % 64 : 0;
    int fast = 0, rc = kv_safetensors_read_ways(data, size, size, "fuzz.safetensors", layers, 1,
                                                &fast, &st, err, sizeof err);
    int trc = kv_safetensors_read_ways(data, size, size, "fuzz.safetensors", layers, 0, NULL,
                                       &tok, terr, sizeof terr);
    int same = rc == trc && strcmp(err, terr) == 0 && st.packed_bytes == tok.packed_bytes &&
               st.scale_bytes == tok.scale_bytes && st.tensors == tok.tensors &&
               st.files == tok.files && st.header_bytes == tok.header_bytes;
    for (int p = 0; p < KV_PARTS; p++)
        same = same && st.bytes[p] == tok.bytes[p] && st.elements[p] == tok.elements[p] &&
               st.params[p] == tok.params[p];
    if (!same) {
        fprintf(stderr, "one pass (%d) %d '%s', tokens %d '%s'\n", fast, rc, err, trc, terr);
        abort();
    }
    if (rc != 0)
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
