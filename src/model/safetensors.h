/*
 * safetensors.h - the two ways through a safetensors header (safetensors.c; its API is in
 * kvcalc.h) and through a model.safetensors.index.json (folder.c): a one-pass reader for
 * what the hub's libraries write, and the token reader for anything, which the one-pass
 * reader leaves every other input and every message to. Here for the tests and the fuzzers
 * to compare them. Internal: not exported from libkvcalc.so (the static library has it).
 */
#ifndef KVCALC_SAFETENSORS_H
#define KVCALC_SAFETENSORS_H

#include "kvcalc.h"

/* kv_safetensors_read(), with the one-pass reader tried first (fast != 0, what
 * kv_safetensors_read does) or only the token reader (fast == 0). *took_fast, when
 * took_fast is not NULL: 1 when the one-pass reader gave the answer, else 0. Both ways must
 * give the same status, figures and message for every input (tests/test_safetensors.c,
 * tests/fuzz/fuzz_safetensors.c). */
kv_status kv_safetensors_read_ways(const unsigned char *data, size_t len, uint64_t file_size,
                                   const char *label, int64_t main_layers, int fast,
                                   int *took_fast, kv_safetensors_info *out, char *err,
                                   size_t errcap);

/* The distinct shard names of the index text[0..len) (its weight_map's values), sorted by
 * strcmp: their count, each name and the array malloc'ed into *names; or -1 with a message
 * "SHOWN:LINE:COL: what" (or "SHOWN: out of memory") in err. fast and *took_fast as above. */
long kv_index_shards(const char *text, size_t len, const char *shown, int fast,
                     int *took_fast, char ***names, char *err, size_t errcap);

#endif
