/*
 * presets.h - the tables behind kvcalc.h's model and GPU look-ups.
 *
 * Model presets are the config.json files of data/models/, embedded verbatim at build time
 * (cmake/embed_models.cmake), so a preset holds exactly what its config says and goes
 * through the same reader as --config. GPU presets carry the memory the driver reports,
 * which is what a serving engine sizes from - not the marketing size.
 */
#ifndef KVCALC_PRESETS_H
#define KVCALC_PRESETS_H

#include "kvcalc.h"

extern const kv_model_preset kv_model_presets[];
extern const size_t kv_model_presets_count;

/* What kv_config_read() makes of a preset's config.json from kv_spec_defaults(), worked
 * out at build time (src/gen/presets_gen.c writes models_compiled.c): a run that names a preset
 * copies it instead of tokenizing and reading the JSON (~31k instructions, and the malloc'd
 * tokens: the heap's first pages, four page faults of an engine run's 84; issue 22). The
 * members are kv_spec's that the reader sets (preset_fields.def), and its model info. */
typedef struct {
    int parsed; /* 1: the config reads without error (else a run reads it, for the message) */
    int64_t layers, kv_heads, head_dim;
    kv_dtype dtype, weight_dtype;
    int params_estimated;
    kv_layout layout;
    kv_arch arch;
    kv_model_info info;
} kv_preset_compiled;

/* Entry i for preset i; kv_model_presets_compiled_count is 0 where the table is not linked
 * (in the generator itself, which reads every preset's JSON). */
extern const kv_preset_compiled kv_model_presets_compiled[];
extern const size_t kv_model_presets_compiled_count;

/* Fills s (from kv_spec_defaults()) and *info as kv_config_read() does, from entry c. */
void kv_preset_compiled_apply(const kv_preset_compiled *c, kv_spec *s, kv_model_info *info);

#endif
