/*
 * gguf_writer.c - see gguf_writer.h. Sizes by hand from gguf.md §6 (not the library's
 * table, so that the reader is checked against an independent one).
 */
#define _POSIX_C_SOURCE 200809L /* fseeko */
#include "gguf_writer.h"

#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

static void put(gw_buf *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p)
            abort();
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void le(gw_buf *b, uint64_t v, size_t n)
{
    unsigned char x[8];
    for (size_t i = 0; i < n; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    put(b, x, n);
}

static void string(gw_buf *b, const char *s, size_t n)
{
    le(b, n, 8);
    put(b, s, n);
}

static void key(gguf_writer *w, const char *k, uint32_t type)
{
    string(&w->kv, k, strlen(k));
    le(&w->kv, type, 4);
    w->n_kv++;
}

uint64_t gw_type_bytes(uint32_t type, uint64_t elems)
{
    switch (type) {
    case GW_F32: return elems * 4;
    case GW_F16: return elems * 2;
    case GW_Q4_0: return elems / 32 * 18;  /* f16 scale + 16 bytes of nibbles */
    case GW_Q8_0: return elems / 32 * 34;  /* f16 scale + 32 int8 */
    case GW_Q4_K: return elems / 256 * 144;/* 2 f16 + 12 scale bytes + 128 bytes */
    case GW_Q6_K: return elems / 256 * 210;
    case GW_MXFP4: return elems / 32 * 17; /* E8M0 scale + 16 bytes */
    default: abort();
    }
}

void gw_init(gguf_writer *w)
{
    memset(w, 0, sizeof *w);
    w->alignment = 32;
}

void gw_free(gguf_writer *w)
{
    free(w->kv.p);
    free(w->ti.p);
    memset(w, 0, sizeof *w);
}

void gw_u32(gguf_writer *w, const char *k, uint32_t v)
{
    key(w, k, 4);
    le(&w->kv, v, 4);
    if (strcmp(k, "general.alignment") == 0)
        w->alignment = v;
}

void gw_i32(gguf_writer *w, const char *k, int32_t v)
{
    key(w, k, 5);
    le(&w->kv, (uint32_t)v, 4);
}

void gw_u64(gguf_writer *w, const char *k, uint64_t v)
{
    key(w, k, 10);
    le(&w->kv, v, 8);
}

void gw_f32(gguf_writer *w, const char *k, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    key(w, k, 6);
    le(&w->kv, bits, 4);
}

void gw_bool(gguf_writer *w, const char *k, int v)
{
    key(w, k, 7);
    le(&w->kv, v != 0, 1);
}

void gw_str_n(gguf_writer *w, const char *k, const char *v, size_t n)
{
    key(w, k, 8);
    string(&w->kv, v, n);
}

void gw_str(gguf_writer *w, const char *k, const char *v)
{
    gw_str_n(w, k, v, strlen(v));
}

void gw_i32_array(gguf_writer *w, const char *k, const int32_t *v, size_t n)
{
    key(w, k, 9);
    le(&w->kv, 5, 4);
    le(&w->kv, n, 8);
    for (size_t i = 0; i < n; i++)
        le(&w->kv, (uint32_t)v[i], 4);
}

void gw_bool_array(gguf_writer *w, const char *k, const unsigned char *v, size_t n)
{
    key(w, k, 9);
    le(&w->kv, 7, 4);
    le(&w->kv, n, 8);
    for (size_t i = 0; i < n; i++)
        le(&w->kv, v[i] != 0, 1);
}

void gw_str_array(gguf_writer *w, const char *k, const char *const *v, size_t n)
{
    key(w, k, 9);
    le(&w->kv, 8, 4);
    le(&w->kv, n, 8);
    for (size_t i = 0; i < n; i++)
        string(&w->kv, v[i], strlen(v[i]));
}

void gw_raw_kv(gguf_writer *w, const void *bytes, size_t n)
{
    put(&w->kv, bytes, n);
    w->n_kv++;
}

void gw_tensor(gguf_writer *w, const char *name, size_t n_dims, const int64_t *ne,
               uint32_t type)
{
    uint64_t elems = 1;
    string(&w->ti, name, strlen(name));
    le(&w->ti, n_dims, 4);
    for (size_t d = 0; d < n_dims; d++) {
        le(&w->ti, (uint64_t)ne[d], 8);
        elems *= (uint64_t)ne[d];
    }
    le(&w->ti, type, 4);
    le(&w->ti, w->next_offset, 8);
    uint64_t bytes = gw_type_bytes(type, elems);
    w->next_offset += (bytes + w->alignment - 1) / w->alignment * w->alignment;
    w->n_tensors++;
}

unsigned char *gw_finish(const gguf_writer *w, uint32_t version, int with_data, size_t *len)
{
    gw_buf b = {NULL, 0, 0};
    put(&b, "GGUF", 4);
    le(&b, version, 4);
    le(&b, w->n_tensors, 8);
    le(&b, w->n_kv, 8);
    put(&b, w->kv.p, w->kv.len);
    put(&b, w->ti.p, w->ti.len);
    if (w->n_tensors && with_data) {
        static const unsigned char zero[64];
        while (b.len % w->alignment)
            put(&b, zero, 1);
        for (uint64_t n = w->next_offset; n > 0;) {
            size_t k = n > sizeof zero ? sizeof zero : (size_t)n;
            put(&b, zero, k);
            n -= k;
        }
    }
    *len = b.len;
    return b.p;
}

int gw_write_file(const gguf_writer *w, const char *path)
{
    size_t len;
    unsigned char *p = gw_finish(w, 3, 1, &len);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    free(p);
    return ok ? 0 : -1;
}

int gw_write_file_sparse(const gguf_writer *w, const char *path)
{
    size_t len;
    unsigned char *p = gw_finish(w, 3, 0, &len);
    size_t data = (len + w->alignment - 1) / w->alignment * w->alignment;
    uint64_t end = data + w->next_offset;
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, len, f) == len;
    /* POSIX: a seek past the end leaves a hole that reads as zeros */
    ok = ok && (end <= len || (fseeko(f, (off_t)(end - 1), SEEK_SET) == 0 && fputc(0, f) == 0));
    if (f && fclose(f) != 0)
        ok = 0;
    free(p);
    return ok ? 0 : -1;
}
