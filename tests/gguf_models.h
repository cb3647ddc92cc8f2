/*
 * gguf_models.h - the GGUF files of the ground-truth rows ({gguf:L01}, L06, L08, L09):
 * exactly the metadata ground-truth.md lists for each, and a small plausible tensor table
 * (only the metadata decides the KV cache).
 */
#ifndef KVCALC_GGUF_MODELS_H
#define KVCALC_GGUF_MODELS_H

#include "gguf_writer.h"

/* The ids, NULL-terminated. */
extern const char *const gguf_model_ids[];
/* Fills w (gw_init()'ed) with the model `id`; 0, or -1 for an unknown id. */
int gguf_model_build(const char *id, gguf_writer *w);

#endif
