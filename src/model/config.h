/*
 * config.h - a Hugging Face config.json -> the model part of a kv_spec.
 */
#ifndef KVCALC_CONFIG_H
#define KVCALC_CONFIG_H

#include "kvcalc.h"

#include <stddef.h>

#define CONFIG_MAX_BYTES (8u << 20)   /* a config.json is a few KiB; refuse more than 8 MiB */
#define CONFIG_MAX_VALUES (1u << 18)  /* JSON values in one config */
#define CONFIG_MAX_DEPTH 32           /* nesting */

typedef struct {
    char name[128];       /* _name_or_path, or "" */
    char model_type[64];  /* of the language model part */
    int64_t max_context;  /* max_position_embeddings (family default when absent), or 0 */
} config_info;

/* Reads the config text (len bytes; `file` names it in messages) into s: layers, KV heads,
 * head size, KV and weight dtypes, the per-layer layout and the architecture for the
 * parameter estimate (s->params_estimated = 1 when the config has what it needs). Fields
 * the config does not mention keep their values in s, or take the model family's defaults.
 * Returns 0, or 2 with one line "kvcalc: FILE:LINE:COL: what is wrong" in err. */
int config_read(const char *text, size_t len, const char *file, kv_spec *s, config_info *info,
                char *err, size_t errcap);

/* Reads a whole file ("-" = standard input) of at most CONFIG_MAX_BYTES into a malloc'ed
 * buffer. Returns 0, or 2 with one line in err. */
int config_load_file(const char *path, char **text, size_t *len, char *err, size_t errcap);

#endif
