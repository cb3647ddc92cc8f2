/*
 * gguf_writer.h - a tiny GGUF writer for tests: builds a file in memory (metadata, tensor
 * infos with the offsets llama.cpp expects, zero data) and writes it out. Malformed files
 * are made by writing raw bytes (gw_raw_kv) or by editing / truncating the result.
 */
#ifndef KVCALC_GGUF_WRITER_H
#define KVCALC_GGUF_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    unsigned char *p;
    size_t len, cap;
} gw_buf;

typedef struct {
    gw_buf kv, ti;          /* the pairs, the tensor infos */
    uint64_t n_kv, n_tensors;
    uint64_t next_offset;   /* where the next tensor's data goes */
    uint32_t alignment;     /* 32 unless general.alignment is written */
} gguf_writer;

/* ggml type ids the tests use, and the bytes of a tensor of n elements of one of them. */
enum { GW_F32 = 0, GW_F16 = 1, GW_Q4_0 = 2, GW_Q8_0 = 8, GW_Q4_K = 12, GW_Q6_K = 14,
       GW_MXFP4 = 39 };
uint64_t gw_type_bytes(uint32_t type, uint64_t elems);

void gw_init(gguf_writer *w);
void gw_free(gguf_writer *w);
void gw_u32(gguf_writer *w, const char *key, uint32_t v);
void gw_i32(gguf_writer *w, const char *key, int32_t v);
void gw_u64(gguf_writer *w, const char *key, uint64_t v);
void gw_f32(gguf_writer *w, const char *key, float v);
void gw_bool(gguf_writer *w, const char *key, int v);
void gw_str(gguf_writer *w, const char *key, const char *v);
void gw_str_n(gguf_writer *w, const char *key, const char *v, size_t n); /* any bytes */
void gw_i32_array(gguf_writer *w, const char *key, const int32_t *v, size_t n);
void gw_bool_array(gguf_writer *w, const char *key, const unsigned char *v, size_t n);
void gw_str_array(gguf_writer *w, const char *key, const char *const *v, size_t n);
/* One pair of raw bytes (key and value as given), counted in n_kv. */
void gw_raw_kv(gguf_writer *w, const void *bytes, size_t n);
/* A tensor info: ne[0] innermost; its offset follows the tensors before it. */
void gw_tensor(gguf_writer *w, const char *name, size_t n_dims, const int64_t *ne,
               uint32_t type);

/* The whole file (malloc'ed; free() it): header, pairs, infos, padding and, when
 * with_data, the zero data section. */
unsigned char *gw_finish(const gguf_writer *w, uint32_t version, int with_data, size_t *len);
/* Writes the file (with data) to path; 0 or -1. */
int gw_write_file(const gguf_writer *w, const char *path);
/* The same file with its data section as a hole (the header, then one zero byte at the
 * end): a model of gigabytes costs a few megabytes of disk. 0 or -1. */
int gw_write_file_sparse(const gguf_writer *w, const char *path);

#endif
