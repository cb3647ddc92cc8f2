/*
 * st_writer.h - a tiny safetensors writer for tests: the JSON header is built as text (so a
 * test can also write any malformed header it wants), the data section is zeros. Offsets are
 * given out in order, as safetensors' own writer does.
 */
#ifndef KVCALC_ST_WRITER_H
#define KVCALC_ST_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *json;       /* the header so far, "{" + entries (malloc'ed) */
    size_t len, cap;
    uint64_t data;    /* bytes of the data section so far */
} st_writer;

void sw_init(st_writer *w);
void sw_free(st_writer *w);

/* Bytes of n elements of a safetensors dtype ("BF16", "F4", ...); 0 for an unknown one. */
uint64_t sw_bytes(const char *dtype, uint64_t n);

/* A tensor of that dtype and shape (ndim dimensions), its data after the previous one. */
void sw_tensor(st_writer *w, const char *name, const char *dtype, const uint64_t *shape,
               size_t ndim);
#define SW_TENSOR(w, name, dtype, ...) \
    sw_tensor(w, name, dtype, (const uint64_t[]){__VA_ARGS__}, \
              sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* Any entry, as raw JSON text ("\"x\": {...}"), and `data` more bytes of data. */
void sw_raw(st_writer *w, const char *entry, uint64_t data);

/* The file's first 8 + N bytes (length and header, the header padded with spaces to a
 * multiple of 8 as safetensors does); *file_size: the whole file's size. malloc'ed. */
unsigned char *sw_header(const st_writer *w, size_t *len, uint64_t *file_size);

/* The whole file (header + zero data) at path. Returns 0 or -1. */
int sw_write_file(const st_writer *w, const char *path);

/* A file of exactly these header bytes (no length check) and `data` zero bytes. */
int sw_write_raw(const char *path, const char *header, uint64_t data);

#endif
