/*
 * test_safetensors.c - the safetensors header reader (exact bytes by dtype and by part, the
 * parameter rule of packed formats, every malformed header a located one-line error that
 * never reads past the buffer), model folders (sharded index, one file, a glob, a .gguf, no
 * weights), the Hugging Face cache through HF_HUB_CACHE, and the binary end to end.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kvcalc.h"
#include "run.h"
#include "safetensors.h" /* src/model: the two ways through a header and an index */
#include "st_writer.h"

#define LABEL "t.safetensors"

/* Reads the writer's header (an exact-size buffer: ASan sees any overread). */
static int read_w(const st_writer *w, int64_t layers, kv_safetensors_info *st, char *err,
                  size_t cap)
{
    size_t len;
    uint64_t size;
    unsigned char *p = sw_header(w, &len, &size);
    memset(st, 0, sizeof *st);
    int rc = kv_safetensors_read(p, len, size, LABEL, layers, st, err, cap);
    free(p);
    return rc;
}

static void read_ok(const st_writer *w, int64_t layers, kv_safetensors_info *st)
{
    char err[512] = "";
    if (read_w(w, layers, st, err, sizeof err) != 0)
        fail_msg("%s", err);
}

/* ---- what a header holds ---- */

/* One tensor of every dtype; bytes by hand: elements x bits / 8. */
static void bytes_by_dtype(void **state)
{
    (void)state;
    st_writer w;
    kv_safetensors_info st;
    sw_init(&w);
    SW_TENSOR(&w, "f64", "F64", 3, 5);   /* 15 x 8 = 120 */
    SW_TENSOR(&w, "f32", "F32", 7);      /* 28 */
    SW_TENSOR(&w, "f16", "F16", 2, 3);   /* 12 */
    SW_TENSOR(&w, "bf16", "BF16", 2, 3); /* 12 */
    SW_TENSOR(&w, "i64", "I64", 2);      /* 16 */
    SW_TENSOR(&w, "u64", "U64", 1);      /* 8 */
    SW_TENSOR(&w, "i32", "I32", 3);      /* 12 */
    SW_TENSOR(&w, "u32", "U32", 1);      /* 4 */
    SW_TENSOR(&w, "i16", "I16", 3);      /* 6 */
    SW_TENSOR(&w, "u16", "U16", 1);      /* 2 */
    SW_TENSOR(&w, "i8", "I8", 5);        /* 5 */
    SW_TENSOR(&w, "u8", "U8", 6);        /* 6 */
    SW_TENSOR(&w, "bool", "BOOL", 5);    /* 5 */
    SW_TENSOR(&w, "e4m3", "F8_E4M3", 4, 4); /* 16 */
    SW_TENSOR(&w, "e5m2", "F8_E5M2", 3); /* 3 */
    SW_TENSOR(&w, "e8m0", "F8_E8M0", 2); /* 2 */
    SW_TENSOR(&w, "f4", "F4", 2, 3);     /* 6 x 4 bits = 3 */
    SW_TENSOR(&w, "f6a", "F6_E2M3", 4);  /* 4 x 6 bits = 3 */
    SW_TENSOR(&w, "f6b", "F6_E3M2", 8);  /* 6 */
    SW_TENSOR(&w, "c64", "C64", 2);      /* 16 */
    sw_tensor(&w, "scalar", "F32", NULL, 0); /* shape []: one element, 4 */
    SW_TENSOR(&w, "empty", "BF16", 0, 7); /* no elements, 0 bytes */
    read_ok(&w, 0, &st);
    assert_int_equal(st.bytes[KV_PART_LANGUAGE],
                     120 + 28 + 12 + 12 + 16 + 8 + 12 + 4 + 6 + 2 + 5 + 6 + 5 + 16 + 3 + 2 +
                         3 + 3 + 6 + 16 + 4);
    assert_int_equal(st.elements[KV_PART_LANGUAGE],
                     15 + 7 + 6 + 6 + 2 + 1 + 3 + 1 + 3 + 1 + 5 + 6 + 5 + 16 + 3 + 2 + 6 + 4 +
                         8 + 2 + 1);
    assert_int_equal(st.params[KV_PART_LANGUAGE], st.elements[KV_PART_LANGUAGE]);
    assert_int_equal(st.bytes[KV_PART_VISION] + st.bytes[KV_PART_AUDIO] + st.bytes[KV_PART_MTP],
                     0);
    assert_int_equal(st.tensors, 22);
    assert_int_equal(st.files, 1);
    sw_free(&w);
}

/* Parts by name: the language model, the vision and audio towers, the MTP heads. */
static void bytes_by_part(void **state)
{
    (void)state;
    st_writer w;
    kv_safetensors_info st;
    sw_init(&w);
    SW_TENSOR(&w, "model.embed_tokens.weight", "BF16", 10, 4);          /* L 80 */
    SW_TENSOR(&w, "model.layers.0.mlp.up_proj.weight", "BF16", 4, 4);   /* L 32 */
    SW_TENSOR(&w, "model.layers.1.self_attn.q_proj.weight", "F32", 2);  /* L 8 */
    SW_TENSOR(&w, "lm_head.weight", "BF16", 10, 4);                     /* L 80 */
    SW_TENSOR(&w, "model.layers.2.eh_proj.weight", "BF16", 4, 8);       /* M 64 */
    SW_TENSOR(&w, "model.layers.12.enorm.weight", "F32", 3);            /* M 12 */
    SW_TENSOR(&w, "mtp.fc.weight", "F32", 2);                           /* M 8 */
    SW_TENSOR(&w, "model.mtp.layers.0.norm.weight", "F16", 2);          /* M 4 */
    SW_TENSOR(&w, "model.visual.blocks.0.attn.qkv.weight", "BF16", 3, 3); /* V 18 */
    SW_TENSOR(&w, "vision_tower.patch_embed.weight", "F16", 1);         /* V 2 */
    SW_TENSOR(&w, "model.vision_model.encoder.layers.30.w", "F16", 2);  /* V 4 */
    SW_TENSOR(&w, "multi_modal_projector.linear_1.weight", "F32", 2, 2); /* V 16 */
    SW_TENSOR(&w, "vision_model.post_layernorm.bias", "F32", 1);        /* V 4 */
    SW_TENSOR(&w, "audio_tower.conv1.weight", "F16", 5);                /* A 10 */
    SW_TENSOR(&w, "model.audio_model.layers.0.w", "BF16", 1);           /* A 2 */
    read_ok(&w, 2, &st);
    assert_int_equal(st.bytes[KV_PART_LANGUAGE], 80 + 32 + 8 + 80);
    assert_int_equal(st.bytes[KV_PART_MTP], 64 + 12 + 8 + 4);
    assert_int_equal(st.bytes[KV_PART_VISION], 18 + 2 + 4 + 16 + 4);
    assert_int_equal(st.bytes[KV_PART_AUDIO], 10 + 2);
    assert_int_equal(st.elements[KV_PART_MTP], 32 + 3 + 2 + 2);
    assert_int_equal(st.params[KV_PART_VISION], 9 + 1 + 2 + 4 + 1);
    /* without num_hidden_layers, only mtp. names are MTP */
    read_ok(&w, 0, &st);
    assert_int_equal(st.bytes[KV_PART_MTP], 8 + 4);
    assert_int_equal(st.bytes[KV_PART_LANGUAGE], 80 + 32 + 8 + 80 + 64 + 12);
    sw_free(&w);
    assert_int_equal(kv_safetensors_part("language_model.model.layers.47.x", 48),
                     KV_PART_LANGUAGE);
    assert_int_equal(kv_safetensors_part("language_model.model.layers.48.x", 48), KV_PART_MTP);
    assert_int_equal(kv_safetensors_part("model.embed_vision.embedding.weight", 4),
                     KV_PART_VISION);
    assert_int_equal(kv_safetensors_part("model.embed_audio.embedding.weight", 4),
                     KV_PART_AUDIO);
    assert_int_equal(kv_safetensors_part("model.layers.", 4), KV_PART_LANGUAGE);
    assert_int_equal(kv_safetensors_part("", 4), KV_PART_LANGUAGE);
    assert_int_equal(kv_safetensors_part("model.layers.99999999999999999999999.x", 4),
                     KV_PART_LANGUAGE);
}

/* Packed formats: bytes as stored; parameters unpacked; scales are bytes only. */
static void packed_formats(void **state)
{
    (void)state;
    st_writer w;
    kv_safetensors_info st;
    sw_init(&w);
    /* GPTQ: a 256 x 32 int4 weight is a 32 x 32 I32 qweight (8 per element) */
    SW_TENSOR(&w, "model.layers.0.mlp.down_proj.qweight", "I32", 32, 32); /* 4096 B, 8192 p */
    SW_TENSOR(&w, "model.layers.0.mlp.down_proj.scales", "F16", 2, 32);   /* 128 B */
    SW_TENSOR(&w, "model.layers.0.mlp.down_proj.qzeros", "I32", 2, 4);    /* 32 B */
    SW_TENSOR(&w, "model.layers.0.mlp.down_proj.g_idx", "I32", 256);      /* 1024 B */
    /* fp8 with a per-tensor scale */
    SW_TENSOR(&w, "model.layers.0.mlp.up_proj.weight", "F8_E4M3", 8, 8);  /* 64 B, 64 p */
    SW_TENSOR(&w, "model.layers.0.mlp.up_proj.weight_scale", "F32", 1);   /* 4 B */
    SW_TENSOR(&w, "model.layers.0.mlp.gate_proj.weight_scale_inv", "F32", 2); /* 8 B */
    /* mxfp4: 32-value blocks of 16 bytes, one U8 exponent per block */
    SW_TENSOR(&w, "model.layers.0.mlp.experts.gate_up_proj_blocks", "U8", 2, 4, 16); /* 128 B,
                                                                                        256 p */
    SW_TENSOR(&w, "model.layers.0.mlp.experts.gate_up_proj_scales", "U8", 2, 4); /* 8 B */
    /* a plain BF16 norm; an I32 not named qweight is plain */
    SW_TENSOR(&w, "model.norm.weight", "BF16", 16);                       /* 32 B, 16 p */
    SW_TENSOR(&w, "model.position_ids", "I32", 4);                        /* 16 B, 4 p */
    read_ok(&w, 4, &st);
    assert_int_equal(st.bytes[KV_PART_LANGUAGE],
                     4096 + 128 + 32 + 1024 + 64 + 4 + 8 + 128 + 8 + 32 + 16);
    assert_int_equal(st.params[KV_PART_LANGUAGE], 8192 + 64 + 256 + 16 + 4);
    assert_int_equal(st.packed_bytes, 4096 + 128);
    assert_int_equal(st.scale_bytes, 128 + 32 + 1024 + 4 + 8 + 8);
    sw_free(&w);
}

/* __metadata__ of strings is fine, and not a tensor; shards add up. */
static void metadata_and_sums(void **state)
{
    (void)state;
    st_writer w;
    kv_safetensors_info st, total;
    char err[512];
    sw_init(&w);
    sw_raw(&w, "\"__metadata__\": {\"format\": \"pt\", \"x\": \"\\u00e9\"}", 0);
    SW_TENSOR(&w, "a", "F32", 3);
    read_ok(&w, 0, &st);
    assert_int_equal(st.tensors, 1);
    assert_int_equal(st.bytes[KV_PART_LANGUAGE], 12);
    memset(&total, 0, sizeof total);
    kv_safetensors_add(&total, &st);
    kv_safetensors_add(&total, &st);
    assert_int_equal(total.bytes[KV_PART_LANGUAGE], 24);
    assert_int_equal(total.files, 2);
    /* the reader adds to what *out holds */
    size_t len;
    uint64_t size;
    unsigned char *p = sw_header(&w, &len, &size);
    assert_int_equal(kv_safetensors_read(p, len, size, LABEL, 0, &total, err, sizeof err), 0);
    assert_int_equal(total.bytes[KV_PART_LANGUAGE], 36);
    assert_int_equal(total.files, 3);
    free(p);
    sw_free(&w);
}

/* ---- malformed headers: one located line each ---- */

/* The 8-byte length of n, then the header text, as an exact-size buffer. */
static unsigned char *raw_header(const char *json, uint64_t n, size_t *len)
{
    size_t jl = strlen(json);
    unsigned char *p = malloc(8 + jl + 1);
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(n >> (8 * i));
    memcpy(p + 8, json, jl);
    *len = 8 + jl;
    return p;
}

static void expect_buf(const unsigned char *p, size_t len, uint64_t size, const char *want)
{
    kv_safetensors_info st;
    char err[512] = "";
    memset(&st, 0, sizeof st);
    int rc = kv_safetensors_read(p, len, size, LABEL, 4, &st, err, sizeof err);
    if (rc != KV_ERR_FORMAT || !strstr(err, want) || strncmp(err, LABEL ": byte ", 19) != 0 ||
        strchr(err, '\n'))
        fail_msg("want '%s', got %d '%s'", want, rc, err);
    assert_int_equal(st.files, 0); /* a refused header adds nothing */
    assert_int_equal(st.tensors, 0);
}

/* A header text with `data` bytes of data after it. */
static void expect_json(const char *json, uint64_t data, const char *want)
{
    size_t len;
    unsigned char *p = raw_header(json, strlen(json), &len);
    expect_buf(p, len, len + data, want);
    free(p);
}

/* "byte B: ... want" with B the file offset of the first `at` in json. */
static void expect_at(const char *json, uint64_t data, const char *at, const char *want)
{
    char where[40];
    const char *hit = strstr(json, at);
    assert_non_null(hit);
    snprintf(where, sizeof where, ": byte %zu: ", (size_t)(hit - json) + 8);
    expect_json(json, data, where);
    expect_json(json, data, want);
}

#define T1(dtype, shape, offs) \
    "{\"t\": {\"dtype\": \"" dtype "\", \"shape\": " shape ", \"data_offsets\": " offs "}}"

static void bad_lengths(void **state)
{
    (void)state;
    size_t len;
    unsigned char *p = raw_header("{}", 2, &len);
    expect_buf(p, 3, 3, "byte 0: file ends inside the header length (3 of 8 bytes)");
    expect_buf(p, 0, 0, "byte 0: file ends inside the header length (0 of 8 bytes)");
    free(p);
    p = raw_header("{}", 1ull << 40, &len);
    expect_buf(p, len, len, "byte 0: header length 1099511627776 is over 100000000 bytes");
    free(p);
    p = raw_header("{}", 100000001, &len);
    expect_buf(p, len, 1ull << 40, "header length 100000001 is over 100000000 bytes");
    free(p);
    p = raw_header("{}  ", 100, &len);
    expect_buf(p, len, len, "byte 0: header length 100 runs past the end of the file (12 "
                            "bytes)");
    free(p);
    p = raw_header("{}", UINT64_MAX, &len);
    expect_buf(p, len, len, "is over 100000000 bytes");
    free(p);
    expect_json("[1, 2]", 0, "byte 8: the header must be a JSON object");
    expect_json(" {}", 0, "byte 8: the header must be a JSON object");
    expect_json("", 0, "byte 8: the header must be a JSON object");
}

static void bad_json(void **state)
{
    (void)state;
    expect_json("{\"a\": }", 0, "byte 14: the JSON header: ");
    expect_json("{\"a\": 1,}", 0, "the JSON header: ");
    expect_json("{\"a\"", 0, "the JSON header: ");
    expect_json("{\"\xff\": 1}", 0, "byte 10: the JSON header: ");
    expect_json("{} x", 0, "byte 11: the JSON header: ");
    expect_json("{\"\xc3\xa9\": [1, }", 0, "byte 19: the JSON header: "); /* é is 2 bytes */
    expect_json("{\"a\": [[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]}", 0, "the JSON header: ");
    expect_at("{\"__metadata__\": {\"a\": 1}}", 0, "1}", "__metadata__ value of 'a' must be a "
              "string");
    expect_at("{\"__metadata__\": []}", 0, "[]", "__metadata__ must be an object");
    expect_at("{\"t\": 5}", 0, "5", "tensor 't' must be an object");
    expect_at("{\"t\": {\"shape\": [], \"data_offsets\": [0, 0]}}", 0, "{\"shape",
              "tensor 't' has no dtype");
    expect_at("{\"t\": {\"dtype\": \"F32\", \"data_offsets\": [0, 0]}}", 0, "{\"dtype",
              "tensor 't' has no shape");
    expect_at("{\"t\": {\"dtype\": \"F32\", \"shape\": []}}", 0, "{\"dtype",
              "tensor 't' has no data_offsets");
}

static void bad_tensors(void **state)
{
    (void)state;
    expect_at(T1("Q4", "[1]", "[0, 1]"), 1, "Q4", "tensor 't': unknown dtype 'Q4'");
    expect_at(T1("f32", "[1]", "[0, 4]"), 4, "f32", "tensor 't': unknown dtype 'f32'");
    expect_at(T1("F32_AND_A_VERY_LONG_NAME", "[1]", "[0, 4]"), 4, "F32_",
              "tensor 't': unknown dtype 'F32_AND_A_VERY_...'");
    expect_at("{\"t\": {\"dtype\": 3, \"shape\": [1], \"data_offsets\": [0, 4]}}", 4, "3,",
              "tensor 't': dtype must be a string");
    expect_at(T1("F32", "4", "[0, 4]"), 4, "4,", "tensor 't': shape must be an array");
    expect_at(T1("F32", "[-1]", "[0, 4]"), 4, "-1", "a dimension must be an integer");
    expect_at(T1("F32", "[1.5]", "[0, 4]"), 4, "1.5", "a dimension must be an integer");
    expect_at(T1("F32", "[18446744073709551616]", "[0, 4]"), 4, "1844",
              "a dimension must be an integer");
    expect_at(T1("F32", "[4294967296, 4294967296]", "[0, 4]"), 4, "[4294",
              "tensor 't': the shape's product overflows 64 bits");
    expect_at(T1("F32", "[4611686018427387904]", "[0, 4]"), 4, "[4611",
              "tensor 't': 4611686018427387904 elements of F32 overflow 64 bits");
    expect_at(T1("F4", "[3]", "[0, 1]"), 1, "[3]",
              "tensor 't': 3 elements of F4 are not a whole number of bytes");
    expect_at(T1("F32", "[2]", "[0, 4]"), 4, "[0, 4]",
              "tensor 't': data_offsets [0, 4] hold 4 bytes, but 2 elements of F32 are 8 bytes");
    expect_at(T1("F32", "[1]", "[0]"), 4, "[0]", "data_offsets must be [begin, end]");
    expect_at(T1("F32", "[1]", "[0, 4, 8]"), 4, "[0, 4, 8]", "data_offsets must be");
    expect_at(T1("F32", "[1]", "[0, \"4\"]"), 4, "[0, \"", "data_offsets must be");
    expect_at(T1("F32", "[1]", "[8, 4]"), 4, "[8, 4]",
              "tensor 't': data_offsets end 4 is before begin 8");
    expect_at(T1("F32", "[1]", "[0, 4]"), 2, "[0, 4]",
              "tensor 't': data_offsets end 4 is past the data section (2 bytes)");
    expect_at(T1("F32", "[0]", "[18446744073709551615, 18446744073709551615]"), 2, "[1844",
              "past the data section");
    /* overlapping, a hole, bytes after the last tensor: the tiling of the data section */
    expect_at("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}, "
              "\"b\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [2, 6]}}",
              6, "b\": {", "tensor 'b' (data bytes 2 to 6) overlaps tensor 'a'");
    expect_at("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}, "
              "\"b\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}",
              4, "b\": {", "overlaps tensor 'a'");
    expect_at("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}, "
              "\"b\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 12]}}",
              12, "b\": {", "tensor 'b' starts at data byte 8, but the previous tensor ends at 4");
    expect_json(T1("F32", "[1]", "[0, 4]"), 9, "the tensors end at data byte 4, but the data "
                "section has 9 bytes");
    expect_json("{}", 1, "byte 10: the tensors end at data byte 0, but the data section has 1");
    /* a hostile name is shown with '?' and cut */
    expect_json("{\"a\\u001b[31mb\": 5}", 0, "tensor 'a?[31mb' must be an object");
    expect_json("{\"a\\u009bb\\u007f\": 5}", 0, "tensor 'a??b?' must be an object");
}

/* Every prefix of a real header, with the file as long as the prefix, fails located. */
static void truncated_everywhere(void **state)
{
    (void)state;
    st_writer w;
    sw_init(&w);
    sw_raw(&w, "\"__metadata__\": {\"format\": \"pt\"}", 0);
    SW_TENSOR(&w, "model.embed_tokens.weight", "BF16", 10, 4);
    SW_TENSOR(&w, "model.layers.0.q.qweight", "I32", 2, 2);
    size_t len;
    uint64_t size;
    unsigned char *p = sw_header(&w, &len, &size);
    for (size_t cut = 0; cut < len; cut++) {
        unsigned char *q = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
        memcpy(q, p, cut);
        expect_buf(q, cut, cut, cut < 8 ? "file ends inside the header length"
                                        : "runs past the end of the file");
        free(q);
    }
    /* the header whole, the data short by one byte */
    expect_buf(p, len, size - 1, "past the data section");
    free(p);
    sw_free(&w);
}

/* ---- files, folders and the Hugging Face cache ---- */

static char tmp_root[512];

static void tmp_path(char *out, size_t cap, const char *rel)
{
    snprintf(out, cap, "%s/%s", tmp_root, rel);
}

static void mkdirs(const char *rel)
{
    char path[1024], *p;
    tmp_path(path, sizeof path, rel);
    for (p = path + strlen(tmp_root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    mkdir(path, 0755);
}

static void write_bytes(const char *rel, const char *bytes, size_t n)
{
    char path[1024];
    tmp_path(path, sizeof path, rel);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

static void write_text(const char *rel, const char *text)
{
    write_bytes(rel, text, strlen(text));
}

static void write_st(const char *rel, const st_writer *w)
{
    char path[1024];
    tmp_path(path, sizeof path, rel);
    assert_int_equal(sw_write_file(w, path), 0);
}

static const char config_json[] =
    "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
    "\"num_key_value_heads\": 2, \"hidden_size\": 64, \"intermediate_size\": 128, "
    "\"vocab_size\": 100, \"torch_dtype\": \"bfloat16\", \"_name_or_path\": \"tiny/llama\"}";

/* Shard 1: embed 100 x 64 BF16 = 12800 B; layer 0 q 64 x 64 BF16 = 8192 B.
 * Shard 2: layer 1 q = 8192 B; an MTP layer 2 (num_hidden_layers 2) 64 F32 = 256 B;
 * a vision tower 10 x 10 F16 = 200 B. Total 29640 B, 14756 parameters; the weights leave the
 * MTP layer out: 29384 B, 14692 parameters. */
static void write_shards(const char *dir)
{
    char rel[256];
    st_writer a, b;
    sw_init(&a);
    SW_TENSOR(&a, "model.embed_tokens.weight", "BF16", 100, 64);
    SW_TENSOR(&a, "model.layers.0.self_attn.q_proj.weight", "BF16", 64, 64);
    sw_init(&b);
    SW_TENSOR(&b, "model.layers.1.self_attn.q_proj.weight", "BF16", 64, 64);
    SW_TENSOR(&b, "model.layers.2.enorm.weight", "F32", 64);
    SW_TENSOR(&b, "vision_tower.proj.weight", "F16", 10, 10);
    snprintf(rel, sizeof rel, "%s/model-00001-of-00002.safetensors", dir);
    write_st(rel, &a);
    snprintf(rel, sizeof rel, "%s/model-00002-of-00002.safetensors", dir);
    write_st(rel, &b);
    sw_free(&a);
    sw_free(&b);
}

static const char index_json[] =
    "{\"metadata\": {\"total_size\": 29640}, \"weight_map\": {"
    "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\", "
    "\"model.layers.0.self_attn.q_proj.weight\": \"model-00001-of-00002.safetensors\", "
    "\"model.layers.1.self_attn.q_proj.weight\": \"model-00002-of-00002.safetensors\", "
    "\"model.layers.2.enorm.weight\": \"model-00002-of-00002.safetensors\", "
    "\"vision_tower.proj.weight\": \"model-00002-of-00002.safetensors\"}}";

static void load_folder(const char *rel, kv_spec *s, kv_folder_info *f, int want_rc,
                        char *err, size_t cap)
{
    char path[1024];
    kv_model_info info;
    tmp_path(path, sizeof path, rel);
    kv_spec_defaults(s);
    err[0] = '\0';
    int rc = kv_folder_load(path, s, &info, f, err, cap);
    if (rc != want_rc)
        fail_msg("%s: %d, %s", rel, rc, err);
    if (rc != KV_OK && strncmp(err, "kvcalc", 6) == 0)
        fail_msg("%s: the library speaks for the program: %s", rel, err);
}

static void folders(void **state)
{
    (void)state;
    kv_spec s;
    kv_folder_info f;
    char err[1200];
    /* a sharded checkpoint: every shard of weight_map, each read once */
    mkdirs("sharded");
    write_text("sharded/config.json", config_json);
    write_text("sharded/model.safetensors.index.json", index_json);
    write_shards("sharded");
    load_folder("sharded", &s, &f, 0, err, sizeof err);
    assert_int_equal(f.st.files, 2);
    assert_int_equal(f.st.tensors, 5);
    assert_int_equal(f.st.bytes[KV_PART_LANGUAGE], 12800 + 8192 + 8192);
    assert_int_equal(f.st.bytes[KV_PART_MTP], 256);
    assert_int_equal(f.st.bytes[KV_PART_VISION], 200);
    assert_true(s.checkpoint_weights_bytes == 29640.0 - 256);
    assert_true(s.checkpoint_params == 6400 + 4096 + 4096 + 100);
    assert_true(s.checkpoint_mtp_bytes == 256.0);
    assert_true(s.checkpoint_tower_bytes == 200.0);
    assert_int_equal(s.weights_source, KV_WEIGHTS_SAFETENSORS);
    assert_int_equal(s.layers, 2);
    assert_int_equal(s.params_estimated, 0);
    assert_true(kv_folder_probe(f.model_file) == 0);
    /* the same shards without the index: standard C cannot list the folder to read them,
     * so the weights are the config's estimate, and say why (the first shard's name is
     * tried: issue 19 item 17) */
    mkdirs("globbed");
    write_text("globbed/config.json", config_json);
    write_shards("globbed");
    load_folder("globbed", &s, &f, 0, err, sizeof err);
    assert_int_equal(f.st.files, 0);
    assert_true(s.checkpoint_weights_bytes == 0);
    assert_int_equal(s.weights_source, KV_WEIGHTS_NO_INDEX);
    /* one model.safetensors (a stray other file is not read) */
    mkdirs("single");
    write_text("single/config.json", config_json);
    write_text("single/other.safetensors", "garbage");
    {
        st_writer w;
        sw_init(&w);
        SW_TENSOR(&w, "model.embed_tokens.weight", "F32", 100, 64); /* 25600 B */
        write_st("single/model.safetensors", &w);
        sw_free(&w);
    }
    load_folder("single", &s, &f, 0, err, sizeof err);
    assert_int_equal(f.st.files, 1);
    assert_true(s.checkpoint_weights_bytes == 25600.0);
    /* no safetensors: the estimate, and the spec says so */
    mkdirs("config-only");
    write_text("config-only/config.json", config_json);
    load_folder("config-only", &s, &f, 0, err, sizeof err);
    assert_int_equal(f.st.files, 0);
    assert_true(s.checkpoint_weights_bytes == 0);
    assert_int_equal(s.weights_source, KV_WEIGHTS_NO_FILES);
    assert_int_equal(s.params_estimated, 1);
    /* errors name the file: a bad shard, a bad index, an empty folder, two .gguf files */
    mkdirs("bad-shard");
    write_text("bad-shard/config.json", config_json);
    write_bytes("bad-shard/model.safetensors", "\x02\0\0\0\0\0\0\0{}x", 11);
    load_folder("bad-shard", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "/bad-shard/model.safetensors: byte 10: the tensors end"));
    mkdirs("bad-index");
    write_text("bad-index/config.json", config_json);
    write_text("bad-index/model.safetensors.index.json", "{\"weight_map\": {\"a\": \"../x\"}}");
    load_folder("bad-index", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "/bad-index/model.safetensors.index.json:1:23: weight_map: a "
                                "shard must be a file of this folder"));
    write_text("bad-index/model.safetensors.index.json", "{\"weight_map\": 3}");
    load_folder("bad-index", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "index.json:1:16: no weight_map object"));
    write_text("bad-index/model.safetensors.index.json", "{\"weight_map\": {\"a\": \"b\"}");
    load_folder("bad-index", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "index.json:1:"));
    write_text("bad-index/model.safetensors.index.json",
               "{\"weight_map\": {\"a\": \"missing.safetensors\"}}");
    load_folder("bad-index", &s, &f, KV_ERR_FILE, err, sizeof err);
    assert_non_null(strstr(err, "/bad-index/missing.safetensors: cannot open"));
    mkdirs("empty");
    load_folder("empty", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "/empty: no config.json in this folder (for a GGUF model, "
                                "give the .gguf file itself)"));
}

/* weight_map's shards by their names, however written (issue 22: an entry is looked up, not
 * decoded, unless it has escapes): the same shard escaped or in runs is one shard, read once;
 * a bad entry after thousands of good ones is still located by its line and column. */
static void index_names(void **state)
{
    (void)state;
    kv_spec s;
    kv_folder_info f;
    char err[1200];
    mkdirs("escaped");
    write_text("escaped/config.json", config_json);
    write_shards("escaped");
    write_text("escaped/model.safetensors.index.json",
               "{\"weight_map\": {"
               "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\", "
               "\"model.layers.0.self_attn.q_proj.weight\": \"model\\u002d00001-of-00002.safetensors\", "
               "\"model.layers.1.self_attn.q_proj.weight\": \"model-00002-of-00002.safetensors\", "
               "\"model.layers.2.enorm.weight\": \"model-00001-of-00002.safetensors\", "
               "\"vision_tower.proj.weight\": \"model-00002-of-00002\\u002esafetensors\"}}");
    load_folder("escaped", &s, &f, 0, err, sizeof err);
    assert_int_equal(f.st.files, 2);
    assert_int_equal(f.st.tensors, 5);
    /* an escape that decodes to a path is refused like the plain path */
    write_text("escaped/model.safetensors.index.json",
               "{\"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\",\n"
               "  \"b\": \"..\\/x\"}}");
    load_folder("escaped", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "index.json:2:9: weight_map: a shard must be a file of this "
                                "folder"));
    /* 5,000 good entries (the token array grows, the names repeat), then a bad one: its
     * line and column as before */
    size_t cap = 5000 * 80 + 200, n = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    n += (size_t)snprintf(big + n, cap - n, "{\n  \"weight_map\": {\n");
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(big + n, cap - n, "    \"t.%d\": \"model-0000%d-of-00002.safetensors\",\n",
                              i, 1 + i % 2);
    n += (size_t)snprintf(big + n, cap - n, "    \"last\": 7\n  }\n}\n");
    write_text("escaped/model.safetensors.index.json", big);
    load_folder("escaped", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "index.json:5003:13: weight_map: a shard must be a file name "
                                "(a string)"));
    /* and a JSON error there: located once, where it is */
    big[n - 7] = ','; /* "7,  }" */
    write_text("escaped/model.safetensors.index.json", big);
    load_folder("escaped", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "index.json:5003:17: trailing comma"));
    free(big);
}

/* ---- the one-pass readers and the token readers (issue 22) ----
 *
 * A header or an index as the hub's libraries write it is read in one pass; anything else by
 * the tokens. Each input below is read both ways (kv_safetensors_read_ways,
 * kv_index_shards): the same status, figures, names and message, and the one-pass way taken
 * where it should be. Spellings of the same tensors that send one to each way must give the
 * same totals - which a one-pass reader that counted wrong would not. */

static void info_equal(const kv_safetensors_info *a, const kv_safetensors_info *b)
{
    for (int p = 0; p < KV_PARTS; p++) {
        assert_int_equal(a->bytes[p], b->bytes[p]);
        assert_int_equal(a->elements[p], b->elements[p]);
        assert_int_equal(a->params[p], b->params[p]);
    }
    assert_int_equal(a->packed_bytes, b->packed_bytes);
    assert_int_equal(a->scale_bytes, b->scale_bytes);
    assert_int_equal(a->tensors, b->tensors);
    assert_int_equal(a->files, b->files);
    assert_int_equal(a->header_bytes, b->header_bytes);
}

/* The header text json (padded with spaces to a multiple of 8, as safetensors pads it) and
 * `data` bytes of data, read both ways; returns whether the one-pass reader gave the answer,
 * its figures in *st and its status in *rc. */
static int both_ways(const char *json, uint64_t data, int64_t layers, kv_safetensors_info *st,
                     int *rc)
{
    size_t jl = strlen(json), padded = (jl + 7) / 8 * 8, len;
    char *text = malloc(padded + 1);
    assert_non_null(text);
    memcpy(text, json, jl);
    memset(text + jl, ' ', padded - jl);
    text[padded] = '\0';
    unsigned char *p = raw_header(text, padded, &len);
    kv_safetensors_info a, b;
    char ea[512] = "", eb[512] = "";
    int fast = -1, tokens = -1;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int ra = kv_safetensors_read_ways(p, len, len + data, LABEL, layers, 1, &fast, &a, ea,
                                      sizeof ea);
    int rb = kv_safetensors_read_ways(p, len, len + data, LABEL, layers, 0, &tokens, &b, eb,
                                      sizeof eb);
    assert_int_equal(tokens, 0);
    assert_int_equal(ra, rb);
    assert_string_equal(ea, eb);
    info_equal(&a, &b);
    if (fast)
        assert_int_equal(ra, KV_OK); /* it only ever answers with figures */
    free(p);
    free(text);
    *st = a;
    *rc = ra;
    return fast;
}

/* One tensor of a test header: its name, dtype, shape (up to 4 dimensions, -1 ending it). */
typedef struct {
    const char *name, *dtype;
    int shape[5];
} st_case;

/* Spellings of one tensor list: how the header is written. */
enum {
    SP_COMPACT = 1,   /* as safetensors writes it: no space */
    SP_SPACED = 2,    /* as Python's json.dumps: ", " and ": " */
    SP_ORDER = 4,     /* each object's keys as shape, data_offsets, dtype */
    SP_REVERSED = 8,  /* the entries in reverse: offsets out of order */
    SP_ESCAPED = 16,  /* each name's first '.' as \u002e */
    SP_EXTRA_LAST = 32, /* the last tensor with one more key ("extra": [1]) */
    SP_META = 64      /* a __metadata__ first ({"format": "pt"}) */
};

#define ENTRY_MAX 640 /* one entry: a name (300), its dtype, shape and offsets (260) */

/* The header of those tensors (offsets given out in list order), spelled so; *data: the
 * data section's size. malloc'ed. */
static char *spell(const st_case *t, size_t n, unsigned how, uint64_t *data)
{
    size_t cap = 256 + n * ENTRY_MAX, len = 0;
    char *out = malloc(cap), **entry = malloc(n * sizeof *entry);
    const char *comma = how & SP_SPACED ? ", " : ",", *colon = how & SP_SPACED ? ": " : ":";
    assert_non_null(out);
    assert_non_null(entry);
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        char name[300], shape[100] = "", offs[64], dt[40], sh[120], of[100];
        uint64_t el = 1;
        const char *dot = strchr(t[i].name, '.');
        if ((how & SP_ESCAPED) && dot)
            snprintf(name, sizeof name, "%.*s\\u002e%s", (int)(dot - t[i].name), t[i].name,
                     dot + 1);
        else
            snprintf(name, sizeof name, "%s", t[i].name);
        for (int d = 0; t[i].shape[d] >= 0; d++) {
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%d",
                     d ? comma : "", t[i].shape[d]);
            el *= (uint64_t)t[i].shape[d];
        }
        uint64_t bytes = sw_bytes(t[i].dtype, el);
        snprintf(offs, sizeof offs, "%llu%s%llu", (unsigned long long)at, comma,
                 (unsigned long long)(at + bytes));
        at += bytes;
        snprintf(dt, sizeof dt, "\"dtype\"%s\"%s\"", colon, t[i].dtype);
        snprintf(sh, sizeof sh, "\"shape\"%s[%s]", colon, shape);
        snprintf(of, sizeof of, "\"data_offsets\"%s[%s]", colon, offs);
        entry[i] = malloc(ENTRY_MAX);
        assert_non_null(entry[i]);
        if (how & SP_ORDER)
            snprintf(entry[i], ENTRY_MAX, "\"%s\"%s{%s%s%s%s%s%s}", name, colon, sh, comma, of,
                     comma, dt, (how & SP_EXTRA_LAST) && i + 1 == n ? ",\"extra\":[1]" : "");
        else
            snprintf(entry[i], ENTRY_MAX, "\"%s\"%s{%s%s%s%s%s%s}", name, colon, dt, comma, sh,
                     comma, of, (how & SP_EXTRA_LAST) && i + 1 == n ? ",\"extra\":[1]" : "");
    }
    len += (size_t)snprintf(out + len, cap - len, "{");
    if (how & SP_META)
        len += (size_t)snprintf(out + len, cap - len, "\"__metadata__\"%s{\"format\"%s\"pt\"}%s",
                                colon, colon, n ? comma : "");
    for (size_t k = 0; k < n; k++) {
        size_t i = how & SP_REVERSED ? n - 1 - k : k;
        len += (size_t)snprintf(out + len, cap - len, "%s%s", k ? comma : "", entry[i]);
        free(entry[i]);
    }
    snprintf(out + len, cap - len, "}");
    free(entry);
    *data = at;
    return out;
}

/* Every part, role and dtype, in runs of a dtype and changing: spelled every way, the same
 * figures, and by hand. */
static void one_pass_spellings(void **state)
{
    (void)state;
    static const st_case t[] = {
        {"model.embed_tokens.weight", "BF16", {16, 8, -1}},                /* 256 B */
        {"model.layers.0.self_attn.q_proj.weight", "BF16", {8, 8, -1}},    /* 128 */
        {"model.layers.0.mlp.down_proj.qweight", "I32", {4, 8, -1}},       /* 128, 256 p */
        {"model.layers.0.mlp.down_proj.scales", "F16", {1, 64, -1}},       /* 128, 0 p */
        {"model.layers.1.mlp.experts.gate_up_proj_blocks", "U8", {2, 4, 16, -1}}, /* 128 */
        {"model.layers.1.mlp.experts.gate_up_proj_scales", "U8", {2, 4, -1}},     /* 8 */
        {"model.layers.1.x.f4", "F4", {2, 4, -1}},                         /* 4 */
        {"model.layers.1.x.f6", "F6_E2M3", {4, -1}},                       /* 3 */
        {"model.layers.1.x.f8", "F8_E4M3", {3, -1}},                       /* 3 */
        {"model.layers.2.eh_proj.weight", "BF16", {4, 2, -1}},             /* 16, MTP */
        {"mtp.fc.weight", "F32", {2, -1}},                                 /* 8, MTP */
        {"model.visual.blocks.0.attn.qkv.weight", "F16", {3, 3, -1}},      /* 18, vision */
        {"audio_tower.conv1.weight", "F16", {5, -1}},                      /* 10, audio */
        {"model.norm.weight", "F32", {8, -1}},                             /* 32 */
        {"model.layers.0.empty", "BOOL", {0, 7, -1}},                      /* 0 */
        {"lm_head.scalar", "F64", {-1}},                                   /* 8 */
    };
    const size_t n = sizeof t / sizeof t[0];
    static const unsigned fast_ways[] = {SP_COMPACT, SP_COMPACT | SP_META, SP_SPACED,
                                         SP_SPACED | SP_META, SP_ORDER, SP_REVERSED,
                                         SP_ORDER | SP_REVERSED | SP_SPACED | SP_META};
    static const unsigned token_ways[] = {SP_ESCAPED, SP_ESCAPED | SP_SPACED | SP_META,
                                          SP_EXTRA_LAST, SP_EXTRA_LAST | SP_REVERSED};
    kv_safetensors_info want, st;
    uint64_t data;
    int rc;
    char *json = spell(t, n, SP_COMPACT, &data);
    assert_int_equal(both_ways(json, data, 2, &want, &rc), 1);
    free(json);
    assert_int_equal(want.tensors, 16);
    assert_int_equal(want.bytes[KV_PART_LANGUAGE],
                     256 + 128 + 128 + 128 + 128 + 8 + 4 + 3 + 3 + 32 + 0 + 8);
    assert_int_equal(want.params[KV_PART_LANGUAGE],
                     128 + 64 + 256 + 0 + 256 + 0 + 8 + 4 + 3 + 8 + 0 + 1);
    assert_int_equal(want.bytes[KV_PART_MTP], 16 + 8);
    assert_int_equal(want.bytes[KV_PART_VISION], 18);
    assert_int_equal(want.bytes[KV_PART_AUDIO], 10);
    assert_int_equal(want.packed_bytes, 128 + 128);
    assert_int_equal(want.scale_bytes, 128 + 8);
    for (size_t i = 0; i < sizeof fast_ways / sizeof fast_ways[0]; i++) {
        json = spell(t, n, fast_ways[i], &data);
        if (both_ways(json, data, 2, &st, &rc) != 1)
            fail_msg("not read in one pass: %s", json);
        want.header_bytes = st.header_bytes; /* the spellings differ in length only */
        info_equal(&st, &want);
        free(json);
    }
    for (size_t i = 0; i < sizeof token_ways / sizeof token_ways[0]; i++) {
        json = spell(t, n, token_ways[i], &data);
        if (both_ways(json, data, 2, &st, &rc) != 0)
            fail_msg("read in one pass: %s", json);
        /* the one-pass reader counted 15 tensors before it gave up on the last: none of
         * them may stay counted */
        want.header_bytes = st.header_bytes;
        info_equal(&st, &want);
        free(json);
    }
}

/* A number below m from a fixed generator (a 64-bit LCG's high bits). */
static unsigned next_below(uint64_t *seed, unsigned m)
{
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    return (unsigned)((*seed >> 33) % m);
}

/* Random tensor lists (a fixed generator), each spelled a random way: both ways agree,
 * and the one-pass way reads every plain spelling. */
static void one_pass_random(void **state)
{
    (void)state;
    static const char *const names[] = {
        "model.layers.%u.mlp.experts.%u.up_proj.weight", "model.layers.%u.attn.qweight%u",
        "model.layers.%u.x.weight_scale_inv%u", "vision_tower.%u.blocks.%u.w",
        "mtp.%u.fc.%u", "layers.%u.%u.w_blocks", "audio_tower.%u.conv%u", "model.mtp.%u.%u"};
    static const char *const dtypes[] = {"BOOL", "F4", "F6_E3M2", "U8", "I8", "F8_E5M2",
                                         "F8_E8M0", "I16", "U16", "F16", "BF16", "I32",
                                         "U32", "F32", "C64", "F64", "I64", "U64"};
    uint64_t seed = 22;
#define NEXT(m) next_below(&seed, m)
    for (int round = 0; round < 300; round++) {
        st_case t[40];
        char name[40][120];
        size_t n = (size_t)NEXT(40);
        for (size_t i = 0; i < n; i++) {
            const char *form = names[NEXT(8)];
            unsigned x = NEXT(6), y = NEXT(100);
            snprintf(name[i], sizeof name[i], form, x, y);
            t[i].name = name[i];
            t[i].dtype = dtypes[NEXT(18)];
            int nd = (int)NEXT(4);
            if (nd == 0 && t[i].dtype[0] == 'F' && (t[i].dtype[1] == '4' || t[i].dtype[1] == '6'))
                nd = 1; /* one F4 or F6 element is no whole byte */
            for (int d = 0; d < nd; d++)
                t[i].shape[d] = 4 * (int)NEXT(3); /* 0, 4, 8: F4 and F6 fill whole bytes */
            t[i].shape[nd] = -1;
        }
        unsigned how = (unsigned)NEXT(128);
        uint64_t data;
        kv_safetensors_info st;
        int rc;
        char *json = spell(t, n, how, &data);
        int fast = both_ways(json, data, 3, &st, &rc);
        assert_int_equal(rc, KV_OK);
        int plain = !(how & SP_EXTRA_LAST && n > 0) && !(how & SP_ESCAPED && n > 0);
        if (fast != plain)
            fail_msg("one pass %d for %s", fast, json);
        free(json);
    }
#undef NEXT
}

/* What the one-pass reader gives up on: the token reader's answer, its message. */
static void one_pass_gives_up(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        uint64_t data;
    } h[] = {
        {"{}", 0}, /* read in one pass, below */
        {"{}", 8},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4,],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[04],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4.0],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4e0],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[-0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[18446744073709551616],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[18446744073709551620],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,18446744073709551620]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U16\",\"shape\":[9223372036854775808],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", 1},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,5]}}", 5},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,0]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 3},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 5},
        {"{\"a\":{\"dtype\":\"u8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4],\"dtype\":\"U8\"}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4],\"dtype\":\"I8\"}}", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4]}}", 4},
        {"{\"a\":{\"dtype\":\"U\\u0038\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4},
        {"{\"a\\u0000b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4},
        {"{\"\xc3\xa9\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4},
        {"{\"\\u005f_metadata__\":{\"format\":\"pt\"},\"a\":{\"dtype\":\"U8\",\"shape\":[4],"
         "\"data_offsets\":[0,4]}}", 4},
        {"{\"__metadata__\":{\"f\":\"a\\\"b\"}}", 0},
        {"{\"__metadata__\":{\"f\":1}}", 0},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},\"b\":{\"dtype\":\"U8\","
         "\"shape\":[2],\"data_offsets\":[1,3]}}", 3},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},\"b\":{\"dtype\":\"U8\","
         "\"shape\":[2],\"data_offsets\":[3,5]}}", 5},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}x", 4},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}", 4},
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++) {
        kv_safetensors_info st;
        int rc;
        int fast = both_ways(h[i].json, h[i].data, 0, &st, &rc);
        if (fast != (i == 0))
            fail_msg("one pass %d for %s", fast, h[i].json);
    }
    /* a long name: the token reader cuts it for the parts, so it reads it */
    char big[700];
    snprintf(big, sizeof big, "{\"%0600d\":{\"dtype\":\"U8\",\"shape\":[4],"
             "\"data_offsets\":[0,4]}}", 0);
    kv_safetensors_info st;
    int rc;
    assert_int_equal(both_ways(big, 4, 0, &st, &rc), 0);
    assert_int_equal(rc, KV_OK);
}

/* An index both ways: the same names (joined by '|' into names) and message; returns
 * whether the one-pass reader gave them. */
static int index_both(const char *text, char *names, size_t cap, char *err, size_t errcap)
{
    char **a = NULL, **b = NULL, eb[512] = "";
    int fast = -1, tokens = -1;
    err[0] = names[0] = '\0';
    long na = kv_index_shards(text, strlen(text), "i.json", 1, &fast, &a, err, errcap);
    long nb = kv_index_shards(text, strlen(text), "i.json", 0, &tokens, &b, eb, sizeof eb);
    assert_int_equal(tokens, 0);
    assert_int_equal(na, nb);
    assert_string_equal(err, eb);
    if (fast)
        assert_true(na >= 0);
    for (long i = 0; i < na; i++) {
        assert_string_equal(a[i], b[i]);
        snprintf(names + strlen(names), cap - strlen(names), "%s%s", i ? "|" : "", a[i]);
        free(a[i]);
        free(b[i]);
    }
    free(a);
    free(b);
    return fast;
}

static void one_pass_index(void **state)
{
    (void)state;
    char names[512], err[512];
    static const struct {
        const char *text, *names; /* names NULL: refused */
        int fast;
    } c[] = {
        {"{\"metadata\": {\"total_size\": 29640}, \"weight_map\": {\"a\": \"s-2\", \"b\": \"s-2\", "
         "\"c\": \"s-1\", \"d\": \"s-1\"}}", "s-1|s-2", 1},
        /* interleaved: each shard again after another */
        {"{\"weight_map\":{\"a\":\"s-1\",\"b\":\"s-2\",\"c\":\"s-1\",\"d\":\"s-3\",\"e\":\"s-2\"},"
         "\"metadata\":{\"total_size\":1,\"format\":\"pt\"}}", "s-1|s-2|s-3", 1},
        /* a name that starts as the one before it, or is it with more */
        {"{\"weight_map\":{\"a\":\"s-1\",\"b\":\"s-10\",\"c\":\"s-1\",\"d\":\"s-\"}}",
         "s-|s-1|s-10", 1},
        {"{\"weight_map\": {}}", "", 1},
        /* escapes: the tokens; the same names */
        {"{\"weight_map\": {\"a\": \"s\\u002d1\", \"b\": \"s-1\", \"c\": \"s-2\"}}", "s-1|s-2", 0},
        {"{\"weight_map\": {\"a\\u0062\": \"s-1\"}}", "s-1", 0},
        {"{\"metadata\": {\"total_size\": 1.5}, \"weight_map\": {\"a\": \"s-1\"}}", "s-1", 0},
        {"{\"metadata\": {\"x\": {\"y\": []}}, \"weight_map\": {\"a\": \"s-1\"}}", "s-1", 0},
        /* weight_map twice: the last one */
        {"{\"weight_map\": {\"a\": \"s-1\"}, \"weight_map\": {\"a\": \"s-2\"}}", "s-2", 0},
        /* refused, as the tokens refuse them */
        {"{\"weight_map\": {\"a\": \"s-1\", \"b\": \"../s-1\"}}", NULL, 0},
        {"{\"weight_map\": {\"a\": \"s-1\", \"b\": \"s/1\"}}", NULL, 0},
        {"{\"weight_map\": {\"a\": \"s-1\", \"b\": \"\"}}", NULL, 0},
        {"{\"weight_map\": {\"a\": \"s-1\", \"b\": 1}}", NULL, 0},
        {"{\"weight_map\": {\"a\": \"s\\u00001\"}}", NULL, 0},
        {"{\"weight_map\": {\"a\": \"s-1\",}}", NULL, 0},
        {"{\"weight_map\": {\"a\": \"s-1\"}} x", NULL, 0},
        {"{\"metadata\": {}}", NULL, 0},
        {"{\"weight_map\": 3}", NULL, 0},
        {"\xEF\xBB\xBF{\"weight_map\": {}}", NULL, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int fast = index_both(c[i].text, names, sizeof names, err, sizeof err);
        if (fast != c[i].fast || (c[i].names ? strcmp(names, c[i].names) != 0 : !err[0]))
            fail_msg("%s: one pass %d, names '%s', '%s'", c[i].text, fast, names, err);
    }
    /* 3,000 entries over 7 shards in turn: one pass, the 7 names */
    size_t cap = 3000 * 40 + 100, n = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    n += (size_t)snprintf(big + n, cap - n, "{\"weight_map\": {");
    for (int i = 0; i < 3000; i++)
        n += (size_t)snprintf(big + n, cap - n, "%s\"t.%d\": \"m-%d\"", i ? ", " : "", i,
                              (i * 5) % 7);
    snprintf(big + n, cap - n, "}}");
    assert_int_equal(index_both(big, names, sizeof names, err, sizeof err), 1);
    assert_string_equal(names, "m-0|m-1|m-2|m-3|m-4|m-5|m-6");
    free(big);
}

/* One file from disk: its header only; short, lying and missing files. */
static void load_file(void **state)
{
    (void)state;
    kv_safetensors_info st;
    char path[1024], err[1200];
    st_writer w;
    mkdirs("files");
    sw_init(&w);
    SW_TENSOR(&w, "model.norm.weight", "BF16", 1000); /* 2000 B */
    write_st("files/ok.safetensors", &w);
    sw_free(&w);
    tmp_path(path, sizeof path, "files/ok.safetensors");
    memset(&st, 0, sizeof st);
    assert_int_equal(kv_safetensors_load_file(path, 0, &st, err, sizeof err), 0);
    assert_int_equal(st.bytes[KV_PART_LANGUAGE], 2000);
    assert_int_equal(st.params[KV_PART_LANGUAGE], 1000);
    struct { const char *bytes; size_t n; const char *want; } bad[] = {
        {"abc", 3, "short.safetensors: byte 0: file ends inside the header length (3 of 8"},
        {"\x00\x01\0\0\0\0\0\0{}", 10, "short.safetensors: byte 0: header length 256 runs "
                                       "past the end of the file (10 bytes)"},
        {"\xff\xff\xff\xff\xff\xff\xff\xff", 8, "header length 18446744073709551615 is over"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_bytes("files/short.safetensors", bad[i].bytes, bad[i].n);
        tmp_path(path, sizeof path, "files/short.safetensors");
        assert_int_equal(kv_safetensors_load_file(path, 0, &st, err, sizeof err), KV_ERR_FORMAT);
        if (!strstr(err, bad[i].want))
            fail_msg("want '%s', got '%s'", bad[i].want, err);
    }
    tmp_path(path, sizeof path, "files/missing.safetensors");
    assert_int_equal(kv_safetensors_load_file(path, 0, &st, err, sizeof err), KV_ERR_FILE);
    assert_non_null(strstr(err, "missing.safetensors: cannot open: "));
    assert_int_equal(st.files, 1); /* the refused files added nothing */
}

/* A folder with only a .gguf: the GGUF reader (the ground-truth L09 file). */
static void gguf_folder(void **state)
{
    (void)state;
    kv_spec s;
    kv_folder_info f;
    char err[1200], path[1024];
    size_t len;
    char *whole = read_file(KVCALC_BINARY_DIR "/engines/gguf/L09.gguf", &len);
    assert_non_null(whole);
    mkdirs("gguf-only");
    tmp_path(path, sizeof path, "gguf-only/model-Q8_0.gguf");
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fwrite(whole, 1, len, fp);
    fclose(fp);
    free(whole);
    /* a folder holding only a .gguf: its name cannot be found without a directory listing
     * (standard C has none), so the message says to give the file */
    load_folder("gguf-only", &s, &f, KV_ERR_FORMAT, err, sizeof err);
    assert_non_null(strstr(err, "gguf-only: no config.json in this folder (for a GGUF model, "
                                "give the .gguf file itself)"));
    /* the file itself reads */
    kv_model_info info;
    kv_spec_defaults(&s);
    assert_int_equal(kv_gguf_load_file(path, &s, &info, NULL, err, sizeof err), 0);
    assert_true(s.checkpoint_weights_bytes == 1651680.0);
    assert_int_equal(s.weights_source, KV_WEIGHTS_GGUF);
}

/* models--org--name/{refs/main, snapshots/REV/} under HF_HUB_CACHE. */
static void hf_cache(void **state)
{
    (void)state;
    char hub[1024], dir[4096], looked[2048], want[1200];
    mkdirs("hub/models--tiny--llama/refs");
    mkdirs("hub/models--tiny--llama/snapshots/0123abcd");
    mkdirs("hub/models--tiny--llama/snapshots/old");
    write_text("hub/models--tiny--llama/refs/main", "0123abcd\n");
    write_text("hub/models--tiny--llama/snapshots/0123abcd/config.json", config_json);
    write_text("hub/models--tiny--llama/snapshots/0123abcd/model.safetensors.index.json",
               index_json);
    write_shards("hub/models--tiny--llama/snapshots/0123abcd");
    tmp_path(hub, sizeof hub, "hub");
    setenv("HF_HUB_CACHE", hub, 1);
    assert_int_equal(kv_hf_cache_find("tiny/llama", dir, sizeof dir, looked, sizeof looked), 1);
    snprintf(want, sizeof want, "%s/models--tiny--llama/snapshots/0123abcd", hub);
    assert_string_equal(dir, want);
    assert_string_equal(looked, hub);
    /* not there, or not an id: 0, and where it looked */
    assert_int_equal(kv_hf_cache_find("tiny/other", dir, sizeof dir, looked, sizeof looked), 0);
    assert_string_equal(looked, hub);
    assert_int_equal(kv_hf_cache_find("../x/y", dir, sizeof dir, looked, sizeof looked), 0);
    assert_int_equal(kv_hf_cache_find("tiny/..", dir, sizeof dir, looked, sizeof looked), 0);
    assert_int_equal(kv_hf_cache_find("a/b/c", dir, sizeof dir, looked, sizeof looked), 0);
    /* without refs/main, or with one naming a missing snapshot: which snapshot is meant
     * cannot be told without listing the folder (standard C cannot): not found */
    mkdirs("hub/models--solo--m/snapshots/feed");
    assert_int_equal(kv_hf_cache_find("solo/m", dir, sizeof dir, looked, sizeof looked), 0);
    mkdirs("hub/models--solo--m/refs");
    write_text("hub/models--solo--m/refs/main", "gone");
    assert_int_equal(kv_hf_cache_find("solo/m", dir, sizeof dir, looked, sizeof looked), 0);
    write_text("hub/models--solo--m/refs/main", "feed");
    assert_int_equal(kv_hf_cache_find("solo/m", dir, sizeof dir, looked, sizeof looked), 1);
    snprintf(want, sizeof want, "%s/models--solo--m/snapshots/feed", hub);
    assert_string_equal(dir, want);
    /* HF_HOME/hub when HF_HUB_CACHE is unset */
    unsetenv("HF_HUB_CACHE");
    tmp_path(hub, sizeof hub, "");
    setenv("HF_HOME", hub, 1);
    assert_int_equal(kv_hf_cache_find("tiny/llama", dir, sizeof dir, looked, sizeof looked), 1);
    unsetenv("HF_HOME");
    tmp_path(hub, sizeof hub, "hub");
    setenv("HF_HUB_CACHE", hub, 1);
}

/* ---- the binary ---- */

static void expect_first_line(const run_result *r, const char *want)
{
    if (r->status != 2 || r->out_len != 0 || !strstr(r->err, want) ||
        strncmp(r->err, "kvcalc: ", 8) != 0 || count_lines(r->err) != 2 ||
        !strstr(r->err, "\nTry 'kvcalc --help'"))
        fail_msg("want '%s', got exit %d, stdout %zu bytes, stderr '%s'", want, r->status,
                 r->out_len, r->err);
}

static void binary(void **state)
{
    (void)state;
    char sharded[1024], single[1024], cfg[1024], bad[1024], hub[1024], want[1400];
    run_result r;
    tmp_path(sharded, sizeof sharded, "sharded");
    tmp_path(single, sizeof single, "single/");
    tmp_path(cfg, sizeof cfg, "config-only");
    tmp_path(bad, sizeof bad, "bad-shard");
    tmp_path(hub, sizeof hub, "hub");
    EXPECT_STDOUT("29384\n", "--model", sharded, "--get", "weights_bytes");
    EXPECT_STDOUT("14692\n", "--config", sharded, "--get", "params");
    EXPECT_STDOUT("safetensors\n", "--model", sharded, "--get", "weights_source");
    /* the parts: the vision tower (200 B) is in the weights, the MTP head (256 B) is not */
    EXPECT_STDOUT("200\n", "--model", sharded, "--get", "checkpoint_tower_bytes");
    EXPECT_STDOUT("256\n", "--model", sharded, "--get", "checkpoint_mtp_bytes");
    EXPECT_STDOUT("25600\n", "--model", single, "--get", "weights_bytes");
    EXPECT_STDOUT("estimate\n", "--model", cfg, "--get", "weights_source");
    /* --params-b / --weight-dtype give the weights instead */
    EXPECT_STDOUT("2000000000\n", "--model", sharded, "--params-b", "1", "--get",
                  "weights_bytes");
    EXPECT_STDOUT("null\n", "--model", sharded, "--params-b", "1", "--get", "weights_source");
    run_kvcalc((const char *const[]){"--model", sharded, NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(tiny/llama; from "));
    assert_non_null(strstr(r.out, "@ the files' types  ->  0.00 GiB  (tensor sizes from the "
                                  "safetensors headers)\n             (vision/audio towers 0.00 "
                                  "GiB included; MTP / draft heads 0.00 GiB left out: loaded "
                                  "only for speculative decoding)\n"));
    run_free(&r);
    run_kvcalc((const char *const[]){"--model", cfg, NULL}, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(parameters estimated from the config: no readable "
                                  "safetensors files - model.safetensors.index.json, "
                                  "model.safetensors)"));
    run_free(&r);
    /* a bad shard: exit 2, one located line (and the usual hint), nothing on stdout */
    run_kvcalc((const char *const[]){"--model", bad, NULL}, &r);
    snprintf(want, sizeof want, "kvcalc: %s/model.safetensors: byte 10: the tensors end", bad);
    expect_first_line(&r, want);
    run_free(&r);
    /* the Hugging Face cache, by id */
    setenv("HF_HUB_CACHE", hub, 1);
    EXPECT_STDOUT("29384\n", "--model", "tiny/llama", "--get", "weights_bytes");
    EXPECT_STDOUT("tiny/llama\n", "--model", "tiny/llama", "--get", "model");
    EXPECT_STDOUT("Hugging Face cache\n", "--model", "tiny/llama", "--get", "source");
    run_kvcalc((const char *const[]){"--model", "tiny/absent", NULL}, &r);
    snprintf(want, sizeof want, "kvcalc: --model: unknown model 'tiny/absent': not a built-in "
             "preset, a folder or in the Hugging Face cache (looked in %s)\n", hub);
    expect_first_line(&r, want);
    run_free(&r);
    run_kvcalc((const char *const[]){"--model", "Qwen/Qwen3-8C", NULL}, &r);
    expect_first_line(&r, "; did you mean 'Qwen/Qwen3-8B'?\n");
    run_free(&r);
    /* a preset id wins over the cache */
    EXPECT_STDOUT("Qwen/Qwen3-8B\n", "--model", "Qwen/Qwen3-8B", "--get", "model");
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmp_root, sizeof tmp_root, KVCALC_BINARY_DIR "/st-test-XXXXXX");
    return mkdtemp(tmp_root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    return system(cmd) == 0 ? 0 : -1;
}

/* An EAGLE-3 head as vLLM's speculative_config model: its checkpoint's tensors are its
 * weights (whether it has its own embedding is the checkpoint's say), its one layer a cache
 * of its own page. The config is specforge's test TINY_EAGLE3 (sgl-project/SpecForge's
 * tests of its draft registry): 1 layer, 4 heads of 64 / 4 = 16, 2 KV heads. The tensors,
 * by hand: fc 64 x 192 + q 64 x 128 + k, v 32 x 128 each + o 64 x 64 + lm_head 64 x 64, BF16:
 * (12,288 + 8,192 + 8,192 + 4,096 + 4,096) x 2 B = 73,728 B. Its cache: 2 x 2 x 16 x 2 B = 128 B
 * a token beside Qwen3-8B's 36 x 4,096: one group of both pages, 16 x 147,584 = 2,361,344 B a
 * block, 40 GiB of it = 18,188 blocks. */
static void eagle3_head(void **state)
{
    (void)state;
    mkdirs("eagle3-head");
    write_text("eagle3-head/config.json",
               "{\"architectures\": [\"LlamaForCausalLMEagle3\"], \"model_type\": \"llama\", "
               "\"hidden_size\": 64, \"intermediate_size\": 128, \"num_attention_heads\": 4, "
               "\"num_key_value_heads\": 2, \"num_hidden_layers\": 1, "
               "\"max_position_embeddings\": 512, \"vocab_size\": 256, "
               "\"draft_vocab_size\": 64, \"tie_word_embeddings\": false}");
    st_writer w;
    sw_init(&w);
    SW_TENSOR(&w, "fc.weight", "BF16", 64, 192);
    SW_TENSOR(&w, "midlayer.self_attn.q_proj.weight", "BF16", 64, 128);
    SW_TENSOR(&w, "midlayer.self_attn.k_proj.weight", "BF16", 32, 128);
    SW_TENSOR(&w, "midlayer.self_attn.v_proj.weight", "BF16", 32, 128);
    SW_TENSOR(&w, "midlayer.self_attn.o_proj.weight", "BF16", 64, 64);
    SW_TENSOR(&w, "lm_head.weight", "BF16", 64, 64);
    write_st("eagle3-head/model.safetensors", &w);
    sw_free(&w);
    char dir[1024];
    tmp_path(dir, sizeof dir, "eagle3-head");
    const char *base[] = {"--engine", "vllm", "--vllm-version", "0.20", "--model", "qwen3-8b",
                          "--draft-model", dir, "--num-speculative-tokens", "3",
                          "--context", "32768", "--kv-cache-memory-gib", "40", NULL};
    /* the folder's name holds "eagle3": vLLM takes it for an EAGLE-3 head */
    run_result r;
    const char *get[20];
    size_t n = 0;
    for (; base[n]; n++)
        get[n] = base[n];
    get[n++] = "--format";
    get[n++] = "json";
    get[n] = NULL;
    run_kvcalc(get, &r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"vllm_speculative_method\": \"eagle3\""));
    assert_non_null(strstr(r.out, "\"vllm_draft_weights_bytes\": 73728,"));
    assert_non_null(strstr(r.out, "\"vllm_draft_weights_estimated\": false,"));
    assert_non_null(strstr(r.out, "\"vllm_draft_kv_token_bytes\": 128,"));
    assert_non_null(strstr(r.out, "\"num_gpu_blocks\": 18188,"));
    run_free(&r);
    /* its config alone: whether it shares the target's embedding is unknown - refused */
    mkdirs("eagle3-config");
    write_text("eagle3-config/config.json",
               "{\"architectures\": [\"LlamaForCausalLMEagle3\"], \"model_type\": \"llama\", "
               "\"hidden_size\": 64, \"intermediate_size\": 128, \"num_attention_heads\": 4, "
               "\"num_key_value_heads\": 2, \"num_hidden_layers\": 1, "
               "\"max_position_embeddings\": 512, \"vocab_size\": 256, "
               "\"draft_vocab_size\": 64, \"tie_word_embeddings\": false}");
    tmp_path(dir, sizeof dir, "eagle3-config");
    get[7] = dir;
    run_kvcalc(get, &r);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "give the head's folder (config.json and safetensors)"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eagle3_head),
        cmocka_unit_test(bytes_by_dtype),   cmocka_unit_test(bytes_by_part),
        cmocka_unit_test(packed_formats),   cmocka_unit_test(metadata_and_sums),
        cmocka_unit_test(bad_lengths),      cmocka_unit_test(bad_json),
        cmocka_unit_test(bad_tensors),      cmocka_unit_test(truncated_everywhere),
        cmocka_unit_test(load_file),
        cmocka_unit_test(one_pass_spellings), cmocka_unit_test(one_pass_random),
        cmocka_unit_test(one_pass_gives_up), cmocka_unit_test(one_pass_index),
        cmocka_unit_test(folders),          cmocka_unit_test(index_names),
        cmocka_unit_test(gguf_folder),
        cmocka_unit_test(hf_cache),         cmocka_unit_test(binary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
