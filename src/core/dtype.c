/*
 * dtype.c - the table of element types. Adding a dtype is adding a row here (and its enum
 * value in kvcalc.h): the parser, the help text and every error message read this table.
 */
#include "kvcalc.h"

#include <string.h>

static const kv_dtype_info dtype_table[KV_DTYPE_COUNT] = {
    [KV_DTYPE_FP32] = {"fp32", 4.0},
    [KV_DTYPE_FP16] = {"fp16", 2.0},
    [KV_DTYPE_BF16] = {"bf16", 2.0},
    [KV_DTYPE_FP8] = {"fp8", 1.0},
    [KV_DTYPE_INT8] = {"int8", 1.0},
    [KV_DTYPE_INT4] = {"int4", 0.5},
};

const kv_dtype_info *kv_dtype_get(kv_dtype d)
{
    return &dtype_table[d];
}

/* Other spellings of the same element types, as configs, engines and users write them
 * (torch_dtype "bfloat16", vLLM's --kv-cache-dtype fp8_e4m3). One quantity, one table. */
static const struct {
    const char *name;
    kv_dtype dtype;
} spellings[] = {
    {"float32", KV_DTYPE_FP32},   {"float", KV_DTYPE_FP32},       {"float16", KV_DTYPE_FP16},
    {"half", KV_DTYPE_FP16},      {"bfloat16", KV_DTYPE_BF16},    {"fp8_e4m3", KV_DTYPE_FP8},
    {"fp8_e5m2", KV_DTYPE_FP8},   {"fp8_e4m3fn", KV_DTYPE_FP8},   {"float8_e4m3fn", KV_DTYPE_FP8},
    {"float8_e5m2", KV_DTYPE_FP8}, {"fp8_inc", KV_DTYPE_FP8},
};

int kv_dtype_from_name(const char *name, kv_dtype *out)
{
    for (int i = 0; i < KV_DTYPE_COUNT; i++) {
        if (strcmp(dtype_table[i].name, name) == 0) {
            *out = (kv_dtype)i;
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        if (strcmp(spellings[i].name, name) == 0) {
            *out = spellings[i].dtype;
            return 0;
        }
    }
    return -1;
}

const char *kv_dtype_spelling(size_t i)
{
    return i < sizeof spellings / sizeof spellings[0] ? spellings[i].name : NULL;
}
