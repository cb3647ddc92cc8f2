/*
 * ollama_models.h - the GGUF files of the models in the Ollama logs of tests/logs/
 * (ollama-*.log): each one's metadata as its log's llama_model_loader lines print it, and
 * its tensors as llama.cpp's quantizer lays them out for the file type the log names. Each
 * model's sizes are checked against its log's own "model buffer size" / "model size"
 * lines (test_ollama.c), so that a wrong reconstruction cannot pass unnoticed.
 */
#ifndef KVCALC_OLLAMA_MODELS_H
#define KVCALC_OLLAMA_MODELS_H

#include "gguf_writer.h"

#include <stdint.h>

/* The ids (file names without ".gguf"), NULL-terminated. */
extern const char *const ollama_model_ids[];
/* Fills w (gw_init()'ed) with model `id`; 0, or -1 for an unknown id. */
int ollama_model_build(const char *id, gguf_writer *w);
/* Bytes of every tensor of model `id` (what llama.cpp's "model size" sums), and of those
 * Ollama leaves out of its weights (token_embd when an output head exists, rope_freqs). */
uint64_t ollama_model_bytes(const char *id, uint64_t *left_out);

#endif
