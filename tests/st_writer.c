/*
 * st_writer.c - see st_writer.h.
 */
#include "st_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; unsigned bits; } dtypes[] = {
    {"BOOL", 8},  {"F4", 4},   {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},   {"I8", 8},
    {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16}, {"U16", 16}, {"F16", 16},
    {"BF16", 16}, {"I32", 32}, {"U32", 32},  {"F32", 32},    {"C64", 64}, {"F64", 64},
    {"I64", 64},  {"U64", 64},
};

static void put(st_writer *w, const char *s)
{
    size_t n = strlen(s);
    if (w->len + n + 1 > w->cap) {
        while (w->len + n + 1 > w->cap)
            w->cap = w->cap ? w->cap * 2 : 256;
        w->json = realloc(w->json, w->cap);
        if (!w->json)
            abort();
    }
    memcpy(w->json + w->len, s, n + 1);
    w->len += n;
}

void sw_init(st_writer *w)
{
    memset(w, 0, sizeof *w);
    put(w, "{");
}

void sw_free(st_writer *w)
{
    free(w->json);
    memset(w, 0, sizeof *w);
}

uint64_t sw_bytes(const char *dtype, uint64_t n)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtype, dtypes[i].name) == 0)
            return n * dtypes[i].bits / 8;
    return 0;
}

void sw_raw(st_writer *w, const char *entry, uint64_t data)
{
    if (w->len > 1)
        put(w, ", ");
    put(w, entry);
    w->data += data;
}

void sw_tensor(st_writer *w, const char *name, const char *dtype, const uint64_t *shape,
               size_t ndim)
{
    char buf[1024], dim[32];
    uint64_t n = 1;
    snprintf(buf, sizeof buf, "\"%s\": {\"dtype\": \"%s\", \"shape\": [", name, dtype);
    for (size_t i = 0; i < ndim; i++) {
        snprintf(dim, sizeof dim, "%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
        strcat(buf, dim);
        n *= shape[i];
    }
    uint64_t bytes = sw_bytes(dtype, n);
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "], \"data_offsets\": [%llu, %llu]}",
             (unsigned long long)w->data, (unsigned long long)(w->data + bytes));
    sw_raw(w, buf, bytes);
}

unsigned char *sw_header(const st_writer *w, size_t *len, uint64_t *file_size)
{
    size_t n = w->len + 1; /* the closing brace */
    size_t padded = (n + 7) / 8 * 8;
    unsigned char *p = malloc(8 + padded);
    if (!p)
        abort();
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    memcpy(p + 8, w->json, w->len);
    p[8 + w->len] = '}';
    memset(p + 8 + n, ' ', padded - n);
    *len = 8 + padded;
    *file_size = 8 + padded + w->data;
    return p;
}

static int write_zeros(FILE *f, uint64_t n)
{
    static const char zeros[4096];
    while (n > 0) {
        size_t k = n > sizeof zeros ? sizeof zeros : (size_t)n;
        if (fwrite(zeros, 1, k, f) != k)
            return -1;
        n -= k;
    }
    return 0;
}

int sw_write_file(const st_writer *w, const char *path)
{
    size_t len;
    uint64_t size;
    unsigned char *p = sw_header(w, &len, &size);
    FILE *f = fopen(path, "wb");
    int rc = f && fwrite(p, 1, len, f) == len && write_zeros(f, size - len) == 0 ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    free(p);
    return rc;
}

int sw_write_raw(const char *path, const char *header, uint64_t data)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fwrite(header, 1, strlen(header), f) == strlen(header) ? 0 : -1;
    if (rc == 0)
        rc = write_zeros(f, data);
    return fclose(f) != 0 ? -1 : rc;
}
