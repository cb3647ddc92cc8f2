/*
 * gguf.h - the GGUF header reader's internals: the bounded cursor (gguf.c) and the
 * metadata it keeps for the model rules (gguf_model.c). The API is in kvcalc.h.
 */
#ifndef KVCALC_GGUF_H
#define KVCALC_GGUF_H

#include "kvcalc.h"

#include <stdarg.h>

/* A bounded forward cursor over the header bytes. Offsets (pos, and every offset kept) are
 * from the start of the file; the bytes at hand are p[0..len), those of the file at
 * [base, base + len). A reader from memory has them all (base 0); the file reader brings more
 * as the cursor needs them (more), keeping the metadata (the first `keep` bytes, at kv) and
 * a window of the tensor infos after it. */
typedef struct gguf_cur {
    const unsigned char *p;
    size_t len, pos;
    const char *label;
    char *err;
    size_t errcap;
    int short_read; /* the failure was "the buffer ends here" (load_file reads more) */
    int adapter;    /* a LoRA adapter: tensors only, every one a .lora_a / .lora_b */
    const char *odd; size_t odd_len; /* adapter: the first tensor of another suffix */
    char odd_name[64];               /* its name (odd points here) */
    size_t base;                     /* the file offset of p[0] */
    const unsigned char *kv;         /* the file's first kv_len bytes (the metadata) */
    size_t kv_len;
    size_t keep;                     /* SIZE_MAX while the metadata is read; then its end */
    size_t mark;                     /* the tensor info being read starts here */
    /* at least n more bytes at pos: 0, or -1 (the file ends, or an error of the source) */
    int (*more)(struct gguf_cur *c, size_t n);
    /* n bytes of the file at offset at, wherever they are now: 0 or -1 */
    int (*fetch)(struct gguf_cur *c, size_t at, void *out, size_t n);
    void *src;
} gguf_cur;

/* The file reader's first read and least window, in bytes (1 MiB; at least 16). */
extern size_t gguf_file_first_chunk;

/* A cursor over len bytes in memory (the whole header, or its start). */
void gguf_cur_init(gguf_cur *c, const unsigned char *data, size_t len, const char *label,
                   char *err, size_t errcap, int adapter);

/* One metadata value kept for the model rules: where its bytes are, not a copy. */
typedef struct {
    int present;
    uint32_t type;      /* GGUF value type */
    uint32_t elem_type; /* arrays: element type */
    uint64_t count;     /* arrays: elements */
    size_t at;          /* offset of the value (of the first element for arrays) */
    size_t key_at;      /* offset of the key, for messages */
} gguf_value;

/* The per-architecture keys kvcalc reads ("%s.<suffix>"). */
typedef enum {
    GK_BLOCK_COUNT, GK_CONTEXT, GK_EMBEDDING, GK_HEADS, GK_KV_HEADS, GK_KEY_LEN, GK_VALUE_LEN,
    GK_KEY_LEN_SWA, GK_VALUE_LEN_SWA, GK_KEY_LEN_MLA, GK_VALUE_LEN_MLA, GK_KV_LORA,
    GK_Q_LORA, GK_ROPE_DIMS, GK_WINDOW, GK_SWA_PATTERN, GK_SHARED_KV, GK_FULL_INTERVAL,
    GK_RECURRENT, GK_NEXTN, GK_SSM_CONV, GK_SSM_INNER, GK_SSM_STATE, GK_SSM_GROUPS,
    GK_FFN, GK_EXPERTS, GK_INDEX_KEY_LEN, GK_COUNT
} gguf_key;

typedef struct {
    gguf_value v[GK_COUNT];
    const char *name; size_t name_len; /* general.name, borrowed from the buffer */
    size_t name_at;                    /* its offset (the buffer may move while reading) */
    uint64_t vocab;                    /* elements of tokenizer.ggml.tokens; 0: absent */
} gguf_meta;

extern const char *const gguf_key_suffix[GK_COUNT]; /* "block_count", ... */

/* "LABEL: byte AT: ..." into c->err; returns -1. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int gguf_fail(gguf_cur *c, size_t at, const char *fmt, ...);

/* Little-endian reads of a kept value (the bytes were checked while walking). */
uint64_t gguf_le(const unsigned char *p, size_t n);

/* The model rules: metadata -> spec, info, g. Returns 0 or -1 (message in c->err). */
int gguf_apply(gguf_cur *c, const gguf_meta *m, const char *arch, kv_spec *s,
               kv_model_info *info, kv_gguf_info *g);

/* The whole header through cursor c (kv_gguf_read(), or a partly read file): returns 0
 * or 2; c->short_read says the buffer ended before the header did. */
int gguf_read_cur(gguf_cur *c, kv_spec *s, kv_model_info *info, kv_gguf_info *g);

#endif
