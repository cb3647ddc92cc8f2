/*
 * fuzz_gguf.c - libFuzzer target: arbitrary bytes as a GGUF header, through the reader,
 * the core and the text and JSON renderers. Any crash, leak, overflow or undefined
 * behaviour (ASan + UBSan) is a bug; a refused header is the expected outcome for most
 * inputs. A header that reads is then sized by llama.cpp's rules too, with its per-layer
 * rows, at a build and flash-attention setting picked by the last byte (every era's path),
 * and by Ollama's estimate at a release, library and free memory the byte picks (its
 * uint64 arithmetic must refuse, never wrap).
 * Each input is also written to a file and read by the file reader with a window of 16 to 79
 * bytes: it must say what the memory reader says (issue 22).
 * Seeds: tests/fuzz/gguf_seeds/ (the ground-truth rows' headers and small ones).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KVCALC_ENGINES
#include "kvcalc.h"
#include "fuzz_render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader's window (src/model/gguf_file.c): small here, so that the file reader slides it
 * over every input. */
extern size_t gguf_file_first_chunk;

/* The file reader (a window sliding over the file, names fetched back from it) must say
 * what the memory reader says of the same bytes, save the file's own check of the data's
 * extent. */
static void file_as_memory(const uint8_t *data, size_t size, int adapter)
{
    static char path[64];
    static kv_gguf_info a, b;
    char e1[512] = "", e2[512] = "";
    kv_spec s1, s2;
    kv_model_info i1, i2;
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/kvcalc-fuzz-gguf-%ld.gguf", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    int ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok) {
        remove(path);
        return;
    }
    gguf_file_first_chunk = 16 + (size ? data[size - 1] % 64 : 0);
    kv_spec_defaults(&s1);
    kv_spec_defaults(&s2);
    int r1 = adapter ? kv_gguf_adapter_load_file(path, &a, e1, sizeof e1)
                     : kv_gguf_load_file(path, &s1, &i1, &a, e1, sizeof e1);
    int r2 = adapter ? kv_gguf_adapter_read(data, size, path, &b, e2, sizeof e2)
                     : kv_gguf_read(data, size, path, &s2, &i2, &b, e2, sizeof e2);
    remove(path);
    if (r2 == 0 && r1 != 0 && strstr(e1, "runs past the end of the file"))
        return;
    if (r1 != r2 || strcmp(e1, e2) != 0 || (r1 == 0 && memcmp(&a, &b, sizeof a) != 0)) {
        fprintf(stderr, "file %d '%s' vs memory %d '%s'\n", r1, e1, r2, e2);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    file_as_memory(data, size, size && (data[size - 1] & 64));
    static kv_gguf_info g;
    kv_spec s;
    kv_model_info info;
    char err[512];
    static const int64_t builds[] = {900, 2000, 3000, 5000, 5500, 6000, 6500, 7000, 8000, 10573};
    kv_spec_defaults(&s);
    /* as a LoRA adapter (--lora): its tensors placed beside a known model's layers */
    if (kv_gguf_adapter_read(data, size, "fuzz.gguf", &g, err, sizeof err) == 0) {
        kv_spec a;
        kv_spec_defaults(&a);
        kv_spec_set_engine(&a, KV_ENGINE_LLAMACPP);
        kv_lora_files_add(&g, "fuzz.gguf", &a.llamacpp.lora);
        a.llamacpp.n_gpu_layers = KV_SOME_INT(size ? data[0] % 40 : 0);
        kv_result r;
        (void)kv_compute(&a, &r);
    }
    if (kv_gguf_read(data, size, "fuzz.gguf", &s, &info, &g, err, sizeof err) != 0)
        return 0;
    kv_spec l = s;
    fuzz_render_model(&s, &info);
    unsigned pick = size ? data[size - 1] : 0;
    kv_spec_set_engine(&l, KV_ENGINE_LLAMACPP);
    l.gguf = &g;
    l.llamacpp.build = builds[pick % 10];
    l.llamacpp.flash_attn = KV_SOME_INT((pick / 10) % 2 ? KV_FLASH_ON : KV_FLASH_OFF);
    l.llamacpp.parallel = (pick / 20) % 4 ? KV_SOME_INT((pick / 20) % 4) : KV_NONE_INT;
    l.llamacpp.ctx_size = KV_SOME_INT((pick / 80) % 2 ? 0 : 4096);
    fuzz_render_model(&l, &info);
    static const int releases[] = {148, 310, 500, 606, 700, 906, 1105, 1111, 2400, 3215};
    kv_spec o = s;
    kv_spec_set_engine(&o, KV_ENGINE_OLLAMA);
    o.gguf = &g;
    o.ollama.version = releases[pick % 10];
    o.ollama.library = KV_SOME_INT((pick / 10) % KV_OLLAMA_LIBRARIES);
    o.ollama.available_gib = KV_SOME_NUM((double)((pick / 3) % 97));
    o.ollama.flash_attention = KV_SOME_INT((pick / 7) % 2);
    o.ollama.num_ctx = KV_SOME_INT((pick / 5) % 2 ? 2048 : 131072);
    fuzz_render_model(&o, &info);
    return 0;
}
