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

int kv_dtype_from_name(const char *name, kv_dtype *out)
{
    for (int i = 0; i < KV_DTYPE_COUNT; i++) {
        if (strcmp(dtype_table[i].name, name) == 0) {
            *out = (kv_dtype)i;
            return 0;
        }
    }
    return -1;
}
