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

#endif
