/*
 * gguf_file.c - reading a GGUF file's header from disk, in growing chunks: the reader is
 * tried on what has been read, and only when it ran out of bytes is more read (twice as
 * much, up to KV_GGUF_MAX_HEADER). Tensor data is never read; its extent is checked
 * against the file's size, as llama.cpp's loader does.
 */
#include "config.h"
#include "gguf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CHUNK (1u << 20)

/* Reads until buf holds want bytes or the file ends; *eof says which. */
static int fill(FILE *f, unsigned char *buf, size_t *have, size_t want, int *eof)
{
    size_t got = fread(buf + *have, 1, want - *have, f);
    *have += got;
    *eof = *have < want;
    return ferror(f) ? -1 : 0;
}

/* The data section must lie within the file (when its size can be known). */
static int check_extent(FILE *f, const char *name, const kv_gguf_info *g, char *err,
                        size_t errcap)
{
    if (fseek(f, 0, SEEK_END) != 0)
        return 0; /* a pipe: not checked */
    long size = ftell(f);
    if (size < 0 || g->data_bytes == 0)
        return 0;
    if (g->data_offset > (uint64_t)size || g->data_bytes > (uint64_t)size - g->data_offset) {
        snprintf(err, errcap, "%s: byte %llu: the tensor data (%llu bytes) runs past "
                 "the end of the file (%ld bytes): incomplete or corrupted",
                 name, (unsigned long long)g->data_offset,
                 (unsigned long long)g->data_bytes, size);
        return -1;
    }
    return 0;
}

/* The header of the file at path, as a model's or (adapter 1) a LoRA adapter's. */
static kv_status load(const char *path, kv_spec *s, kv_model_info *info, kv_gguf_info *g,
                      int adapter, char *err, size_t errcap)
{
    char name[1024];
    FILE *f = config_open(path, name, sizeof name, err, errcap);
    if (!f)
        return KV_ERR_FILE;
    size_t cap = FIRST_CHUNK, have = 0;
    unsigned char *buf = NULL;
    int rc = KV_ERR_FORMAT, eof = 0;
    kv_gguf_info own;
    if (!g)
        g = &own;
    for (;;) {
        unsigned char *bigger = realloc(buf, cap);
        if (!bigger) {
            snprintf(err, errcap, "%s: out of memory", name);
            break;
        }
        buf = bigger;
        if (fill(f, buf, &have, cap, &eof) < 0) {
            snprintf(err, errcap, "%s: read error", name);
            break;
        }
        gguf_cur c = {buf, have, 0, name, err, errcap, 0, adapter, NULL, 0};
        rc = gguf_read_cur(&c, s, info, g);
        if (rc == 0 || !c.short_read || eof || cap >= KV_GGUF_MAX_HEADER) {
            if (rc == 0 && check_extent(f, name, g, err, errcap) < 0)
                rc = KV_ERR_FORMAT;
            break;
        }
        cap = cap * 2 > KV_GGUF_MAX_HEADER ? KV_GGUF_MAX_HEADER : cap * 2;
    }
    free(buf);
    fclose(f);
    return rc;
}

kv_status kv_gguf_load_file(const char *path, kv_spec *s, kv_model_info *info, kv_gguf_info *g,
                      char *err, size_t errcap)
{
    return load(path, s, info, g, 0, err, errcap);
}

kv_status kv_gguf_adapter_load_file(const char *path, kv_gguf_info *g, char *err, size_t errcap)
{
    kv_spec s;
    kv_model_info info;
    kv_spec_defaults(&s);
    return load(path, &s, &info, g, 1, err, errcap);
}

int kv_gguf_probe(const char *path)
{
    unsigned char magic[4];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == 4 && memcmp(magic, "GGUF", 4) == 0;
}
