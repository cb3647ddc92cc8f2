/*
 * gguf_file.c - reading a GGUF file's header from disk, in growing chunks: the reader is
 * tried on what has been read, and only when it ran out of bytes is more read (twice as
 * much, up to KV_GGUF_MAX_HEADER). Tensor data is never read; its extent is checked
 * against the file's size, as llama.cpp's loader does.
 */
#include "config.h"
#include "gguf.h"
#include "kvprint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CHUNK (1u << 20)

/* The first read and the window's least size (internal: the fuzz target makes it small, so
 * that every input slides the window). */
size_t gguf_file_first_chunk = FIRST_CHUNK;

/* The file as the cursor reads it: one buffer holding the metadata (kept whole: the second
 * walk and the model rules look at it again) and then a window on the tensor infos, which
 * slides: what the cursor has walked past is dropped. Every byte is read once; nothing is
 * parsed again; the memory is the metadata and a window, not the header. */
typedef struct {
    FILE *f;
    unsigned char *buf;
    size_t cap;
    size_t fpos;        /* where the file is (the end of what was read) */
    int eof, error, oom;
    size_t first_chunk; /* the first read and the window's least size */
} stream;

/* Reads into buf[at, at + want) from the file; the bytes got. */
static size_t fill(stream *s, size_t at, size_t want)
{
    size_t got = want ? fread(s->buf + at, 1, want, s->f) : 0;
    s->fpos += got;
    if (got < want) {
        s->eof = 1;
        if (ferror(s->f))
            s->error = 1;
    }
    return got;
}

static int grow(stream *s, size_t cap)
{
    unsigned char *b = realloc(s->buf, cap);
    if (!b) {
        s->oom = 1;
        return -1;
    }
    s->buf = b;
    s->cap = cap;
    return 0;
}

/* gguf_cur.more: n more bytes at the cursor. */
static int more(gguf_cur *c, size_t n)
{
    stream *s = c->src;
    if (s->eof || s->error || s->oom)
        return -1;
    size_t end = c->pos + n; /* the file offset the bytes must reach (<= the 64 MiB bound) */
    if (c->keep == SIZE_MAX) { /* the metadata: everything from offset 0 stays */
        size_t cap = s->cap;
        while (cap < end)
            cap = cap * 2 > KV_GGUF_MAX_HEADER ? KV_GGUF_MAX_HEADER : cap * 2;
        if (cap > s->cap && grow(s, cap) < 0)
            return -1;
        c->len += fill(s, c->len, s->cap - c->len);
        c->p = c->kv = s->buf;
        c->kv_len = c->len;
        return 0;
    }
    size_t keep = c->keep;
    if (c->base == 0) { /* the first slide: the window starts where the metadata ends */
        c->base = keep;
        c->len -= keep;
        c->kv_len = keep;
    }
    /* drop what the cursor has walked past (before the tensor info being read) */
    size_t drop = c->mark > c->base ? c->mark - c->base : 0;
    memmove(s->buf + keep, s->buf + keep + drop, c->len - drop);
    c->base += drop;
    c->len -= drop;
    size_t room = keep + (end - c->base); /* the buffer must hold this much */
    size_t cap = s->cap < keep + s->first_chunk ? keep + s->first_chunk : s->cap;
    while (cap < room)
        cap *= 2;
    if (cap > s->cap && grow(s, cap) < 0)
        return -1;
    size_t want = s->cap - keep - c->len, last = KV_GGUF_MAX_HEADER - (c->base + c->len);
    c->len += fill(s, keep + c->len, want < last ? want : last);
    c->p = s->buf + keep;
    c->kv = s->buf;
    return 0;
}

/* gguf_cur.fetch: bytes the window has left behind (a tensor name met again). */
static int fetch(gguf_cur *c, size_t at, void *out, size_t n)
{
    stream *s = c->src;
    int ok = fseek(s->f, (long)at, SEEK_SET) == 0 && fread(out, 1, n, s->f) == n;
    if (fseek(s->f, (long)s->fpos, SEEK_SET) != 0)
        s->error = 1;
    return ok ? 0 : -1;
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
        kv_snprintf(err, errcap, "%s: byte %llu: the tensor data (%llu bytes) runs past "
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
    int rc = KV_ERR_FORMAT;
    kv_gguf_info own;
    if (!g)
        g = &own;
    size_t first = gguf_file_first_chunk < 16 ? 16 : gguf_file_first_chunk;
    stream st = {f, NULL, 0, 0, 0, 0, 0, first};
    if (grow(&st, first) < 0) {
        kv_snprintf(err, errcap, "%s: out of memory", name);
    } else {
        gguf_cur c;
        size_t have = fill(&st, 0, first);
        gguf_cur_init(&c, st.buf, have, name, err, errcap, adapter);
        c.more = more;
        c.fetch = fetch;
        c.src = &st;
        rc = gguf_read_cur(&c, s, info, g);
        if (st.oom) /* what stopped the reading, rather than where it stopped */
            rc = KV_ERR_FORMAT, kv_snprintf(err, errcap, "%s: out of memory", name);
        else if (st.error)
            rc = KV_ERR_FORMAT, kv_snprintf(err, errcap, "%s: read error", name);
        else if (rc == 0 && check_extent(f, name, g, err, errcap) < 0)
            rc = KV_ERR_FORMAT;
    }
    unsigned char *buf = st.buf;
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
