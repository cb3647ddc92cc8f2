/*
 * presets.h - built-in models and GPUs, as data tables.
 *
 * Model presets are the config.json files of data/models/, embedded verbatim at build time
 * (cmake/embed_models.cmake), so a preset holds exactly what its config says and goes
 * through the same reader as --config. GPU presets carry the memory the driver reports,
 * which is what a serving engine sizes from - not the marketing size.
 */
#ifndef KVCALC_PRESETS_H
#define KVCALC_PRESETS_H

#include <stddef.h>

typedef struct {
    const char *id;    /* Hugging Face id: "Qwen/Qwen3-8B" */
    const char *alias; /* short name: "qwen3-8b" */
    const char *file;  /* its file in data/models/ */
    const char *json;  /* the config.json text */
    size_t json_len;
} model_preset;

extern const model_preset kv_model_presets[];
extern const size_t kv_model_presets_count;

/* A model by id or alias, case-insensitive; NULL if none. */
const model_preset *find_model_preset(const char *name);

typedef struct {
    const char *name;    /* "H100 80GB" */
    const char *aliases; /* space-separated extra names: "h100 h100-sxm h100-pcie" */
    double total_mib;    /* total as nvidia-smi reports it, MiB; 0 if unknown */
    double engine_gib;   /* total as vLLM / torch report it, GiB; 0 if unknown */
} gpu_preset;

extern const gpu_preset kv_gpu_presets[];
extern const size_t kv_gpu_presets_count;

/* A GPU by name or alias, ignoring case, spaces, '-' and '_'; NULL if none. */
const gpu_preset *find_gpu_preset(const char *name);
/* Its memory in GiB: the driver's MiB / 1024, else the engine-reported GiB. */
double gpu_preset_gib(const gpu_preset *g);

#endif
