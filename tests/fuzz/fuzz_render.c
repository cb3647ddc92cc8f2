/*
 * fuzz_render.c - see fuzz_render.h.
 */
#define KVCALC_ENGINES
#include "fuzz_render.h"

#include "report.h"

#include <stdio.h>

static void render(kv_spec *s, FILE *sink)
{
    static kv_table t;
    kv_result r;
    if (kv_compute(s, &r) != KV_OK || !sink)
        return;
    kv_table_compute(s, &r, &t);
    kv_report rep = {.spec = s, .result = &r, .table = &t}; /* the rest NULL: not asked */
    report_text(sink, &rep);
    report_json(sink, &rep);
}

void fuzz_render_model(kv_spec *s, const kv_model_info *info)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    s->model_name = info->name;
    s->model_source = "fuzz";
    s->max_context = info->max_context;
    /* weights the config cannot count are given, as the user would, so that its cache is
     * driven through the core all the same */
    if (s->arch.unknown[0]) {
        s->arch.unknown[0] = '\0';
        s->params_b = 7;
    }
    render(s, sink);
    /* and through vLLM's rules at a recent release (DeepSeek-V4's groups need 0.21) */
    kv_spec v = *s;
    if (kv_spec_set_engine(&v, KV_ENGINE_VLLM) == KV_OK) {
        v.vllm.version = 2200;
        render(&v, sink);
    }
}
