/*
 * fuzz_regex.c - libFuzzer target: arbitrary bytes as an -ot pattern and a tensor name (the
 * input split at its first NUL; no NUL: the whole input is the pattern, searched in a fixed
 * name), through kv_regex_search - any answer, but within the step budget and the recursion
 * limit, for every pattern (a pathological one is refused, never slow).
 * Seeds: tests/fuzz/regex_seeds/.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvregex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    const char *nul = memchr(p, 0, size);
    static const char name[] = "blk.17.ffn_down_exps.weight";
    int rc = nul ? kv_regex_search(p, (size_t)(nul - p), nul + 1, size - (size_t)(nul - p) - 1)
                 : kv_regex_search(p, size, name, sizeof name - 1);
    if (rc < KV_REGEX_TOO_COMPLEX || rc > KV_REGEX_YES)
        __builtin_trap();
    return 0;
}
