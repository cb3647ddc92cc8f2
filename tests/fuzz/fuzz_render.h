/*
 * fuzz_render.h - what the model-reader fuzz targets do with a model they read: label it,
 * compute it, render the table and the JSON to /dev/null. One place, so both readers are
 * driven through the same core and renderers.
 */
#ifndef KVCALC_FUZZ_RENDER_H
#define KVCALC_FUZZ_RENDER_H

#include "kvcalc.h"

/* s holds a model just read; info its labels. */
void fuzz_render_model(kv_spec *s, const kv_model_info *info);

#endif
