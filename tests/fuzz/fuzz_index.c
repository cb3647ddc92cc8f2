/*
 * fuzz_index.c - libFuzzer target: arbitrary bytes as a model.safetensors.index.json, its
 * shard names read both ways (src/model/safetensors.h: the one-pass reader tried first, and
 * the tokens alone). A crash, a leak, or a difference in the names, their count or the
 * message is a bug (issue 22: the one-pass reader must give the tokens' answer or give up).
 * Seeds: tests/fuzz/index_seeds/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void free_all(char **v, long n)
{
    for (long i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char **a = NULL, **b = NULL, ea[512] = "", eb[512] = "";
    int fast = 0;
    const char *text = (const char *)data;
    long na = kv_index_shards(text, size, "fuzz.json", 1, &fast, &a, ea, sizeof ea);
    long nb = kv_index_shards(text, size, "fuzz.json", 0, NULL, &b, eb, sizeof eb);
    int same = na == nb && strcmp(ea, eb) == 0;
    for (long i = 0; same && i < na; i++)
        same = strcmp(a[i], b[i]) == 0;
    if (!same) {
        fprintf(stderr, "one pass (%d) %ld '%s', tokens %ld '%s'\n", fast, na, ea, nb, eb);
        abort();
    }
    if (na >= 0) {
        free_all(a, na);
        free_all(b, nb);
    }
    return 0;
}
