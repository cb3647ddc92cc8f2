/*
 * ollama_section.c - the --engine ollama section of the text report.
 *
 * Ollama's own lines come out as its release prints them - the "offload" line of the
 * estimate (to 0.12.10, its keys and formats by release), the per-device lines of the
 * layout (0.12.11 - 0.24), llama-server's cache lines (0.30 on) - so they can be put beside
 * a real server log, and `ollama ps` as its SIZE, PROCESSOR and CONTEXT columns would read.
 * kvcalc's own lines around them are indented and say where each setting came from and
 * what is an estimate.
 */
#define KVCALC_ENGINES /* this engine's own figures */
#include "kvprint.h"
#include "report.h"

#include "format.h"

#include <string.h>

#define V(minor, patch) ((minor) * 100 + (patch))

/* The library as the release's logs name it: lower case, then CUDA, ROCm, Metal, Vulkan
 * from 0.12.4 ("cpu" stays). */
static const char *library_name(int lib, int version)
{
    static const char *const old[KV_OLLAMA_LIBRARIES] = {"cuda", "rocm", "metal",
                                                         "cpu",  "oneapi", "vulkan"};
    static const char *const now[KV_OLLAMA_LIBRARIES] = {"CUDA", "ROCm", "Metal",
                                                         "cpu",  "oneapi", "Vulkan"};
    return (version >= V(12, 4) ? now : old)[lib];
}

/* The device name of the per-device lines: CUDA0, ROCm0, Metal, Vulkan0. */
static const char *device_name(int lib)
{
    static const char *const names[KV_OLLAMA_LIBRARIES] = {"CUDA0", "ROCm0", "Metal",
                                                           "CPU",   "oneAPI0", "Vulkan0"};
    return names[lib];
}

static const char *hb2(char *buf, size_t cap, double bytes)
{
    kv_ollama_human_bytes2(bytes, buf, cap);
    return buf;
}

static const char *cache_name(int t)
{
    static const char *const names[KV_OLLAMA_CACHE_TYPES] = {"f16", "q8_0", "q4_0"};
    return names[t];
}

static void settings_lines(FILE *out, const kv_spec *s, const kv_ollama_result *o)
{
    const kv_ollama_spec *in = &s->ollama;
    char a[FMT_BUF], b[FMT_BUF];
    kv_fprintf(out, "  num_ctx  : %s per request (%s)%s x parallel %lld (%s) = %s tokens\n",
            fmt_int(a, sizeof a, o->num_ctx, 1),
            o->ctx_default ? "the release's default" : "--num-ctx",
            o->ctx_clamped ? ", cut to the model's context_length" : "",
            (long long)o->num_parallel,
            o->parallel_forced ? "this architecture serves one request at a time"
            : !o->parallel_auto ? "--num-parallel"
            : in->version < V(2, 0) || in->version >= V(10, 0) ? "the release's OLLAMA_NUM_PARALLEL"
            : o->num_parallel == 1 ? "the scheduler's: its default did not fit the GPU, so 1"
                                   : "the scheduler's default",
            fmt_int(b, sizeof b, o->kv_size, 1));
    if (o->era == KV_OLLAMA_LLAMA_SERVER)
        return;
    if (o->estimate_ctx != o->kv_size)
        kv_fprintf(out, "             (the estimate sizes %s tokens: this release counts at least "
                     "2048)\n", fmt_int(a, sizeof a, o->estimate_ctx, 1));
    kv_fprintf(out, "  KV cache : %s, %s B per element (%s)\n", cache_name(o->cache_type),
            fmt_g(a, sizeof a, o->bytes_per_element),
            o->flash_auto ? "flash attention left to the runner: OLLAMA_FLASH_ATTENTION unset"
            : o->flash ? "flash attention on"
            : o->flash_refused ? "flash attention asked for, but this library or model refuses it"
                               : "flash attention off");
    if (o->cache_type_refused)
        fputs("             (the quantized cache asked for needs flash attention in force: "
              "Ollama falls back to f16)\n", out);
    kv_fprintf(out, "  device   : %s%s, %s free%s; Ollama keeps %s there\n",
            library_name(o->library, in->version),
            o->library_default ? " (from the GPU: --library sets it)" : "",
            hb2(a, sizeof a, o->available_bytes),
            o->available_estimated ? " (an estimate: the GPU's memory; give the log's "
                                     "memory.available with --available-gib)"
                                   : "",
            hb2(b, sizeof b, o->minimum_bytes));
    kv_fprintf(out, "  graph    : full %s, partial %s (%s)\n", hb2(a, sizeof a, o->graph_full_bytes),
            hb2(b, sizeof b, o->graph_partial_bytes),
            o->graph_formula ? "this architecture's formula"
                             : "Ollama's fallback for an architecture it has no formula for: "
                               "GQA x KV / 6");
}

/* The "offload" line of llm/memory.go's MemoryEstimate.LogValue / log(), as the release
 * prints it (key order, quoting and the message by release). */
static void offload_line(FILE *out, const kv_spec *s, const kv_ollama_result *o)
{
    int v = s->ollama.version;
    char b[64], c[64], d[64], e[64], g[64], h[64], i[64], j[64], k[64];
    const char *lib = library_name(o->library, v);
    /* layers.split: "" for one GPU, "11,11" for several (a string before 0.11.5); a []int
     * after ("[37]", "[]", quoted when it holds a blank: "[20 13]") */
    char split[200] = "", avail[400] = "", allocs[400] = "", one[64];
    size_t n = (size_t)(o->gpus > 0 ? o->gpus : 1);
    for (size_t g = 0; g < n; g++) {
        size_t at = strlen(split);
        if (v >= V(11, 5))
            kv_snprintf(split + at, sizeof split - at, "%s%lld", g ? " " : "",
                     (long long)(n > 1 ? o->gpu_layer_counts[g] : o->layers_offload));
        else if (n > 1)
            kv_snprintf(split + at, sizeof split - at, "%s%lld", g ? "," : "",
                     (long long)o->gpu_layer_counts[g]);
        at = strlen(avail);
        kv_snprintf(avail + at, sizeof avail - at, "%s%s", g ? " " : "",
                 hb2(one, sizeof one, o->available_bytes));
        at = strlen(allocs);
        kv_snprintf(allocs + at, sizeof allocs - at, "%s%s", g ? " " : "",
                 hb2(one, sizeof one, n > 1 ? o->gpu_allocations[g] : o->allocation_bytes));
    }
    char shown_split[220];
    if (v >= V(11, 5))
        kv_snprintf(shown_split, sizeof shown_split, n > 1 ? "\"[%s]\"" : "[%s]",
                 o->layers_offload > 0 || n > 1 ? split : "");
    else
        kv_snprintf(shown_split, sizeof shown_split, n > 1 ? "%s" : "\"\"", split);
    char proj[200] = "";
    if (o->projector_weights_bytes > 0) /* the projector group: first before 0.5.12, last after */
        kv_snprintf(proj, sizeof proj, " projector.weights=\"%s\" projector.graph=\"%s\"",
                 hb2(b, sizeof b, o->projector_weights_bytes),
                 hb2(c, sizeof c, o->projector_graph_bytes));
    if (v >= V(5, 12))
        kv_fprintf(out, "msg=offload library=%s", lib);
    else
        kv_fprintf(out, "msg=\"offload to %s\"%s", lib, proj);
    kv_fprintf(out, " layers.requested=%lld layers.model=%lld layers.offload=%lld layers.split=%s "
                 "memory.available=\"[%s]\"",
            s->ollama.num_gpu.set ? (long long)s->ollama.num_gpu.value : -1LL,
            (long long)o->layers_model, (long long)o->layers_offload, shown_split, avail);
    if (v >= V(3, 10))
        kv_fprintf(out, " memory.gpu_overhead=\"%s\"", hb2(b, sizeof b, s->ollama.gpu_overhead_bytes));
    kv_fprintf(out, " memory.required.full=\"%s\" memory.required.partial=\"%s\" "
                 "memory.required.kv=\"%s\" memory.required.allocations=\"[%s]\" "
                 "memory.weights.total=\"%s\" memory.weights.repeating=\"%s\" "
                 "memory.weights.nonrepeating=\"%s\" memory.graph.full=\"%s\" "
                 "memory.graph.partial=\"%s\"%s\n",
            hb2(c, sizeof c, o->required_full_bytes), hb2(d, sizeof d, o->required_partial_bytes),
            hb2(e, sizeof e, o->kv_bytes), allocs,
            hb2(g, sizeof g, o->weights_total_bytes),
            hb2(h, sizeof h, o->weights_repeating_logged_bytes),
            hb2(i, sizeof i, o->weights_nonrepeating_bytes), hb2(j, sizeof j, o->graph_full_bytes),
            hb2(k, sizeof k, o->graph_partial_bytes), v >= V(5, 12) ? proj : "");
}

/* BackendMemory.Log (ml/device.go:235-274): each kind by device, GPUs first, then the sum. */
static void layout_lines(FILE *out, const kv_spec *s, const kv_ollama_result *o)
{
    char a[64];
    const char *dev = device_name(o->library);
    int gpu = o->library != KV_OLLAMA_CPU;
    const struct {
        const char *msg;
        double on_gpu, on_cpu;
    } kinds[] = {{"model weights", o->gpu_weights_bytes, o->cpu_weights_bytes},
                 {"kv cache", o->gpu_kv_bytes, o->cpu_kv_bytes},
                 {"compute graph", o->gpu_graph_bytes, 0}};
    kv_fprintf(out, "msg=\"loading model\" \"model layers\"=%lld requested=%lld\n",
            (long long)o->layers_model,
            s->ollama.num_gpu.set ? (long long)s->ollama.num_gpu.value : -1LL);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (gpu && kinds[i].on_gpu > 0)
            kv_fprintf(out, "msg=\"%s\" device=%s size=\"%s\"\n", kinds[i].msg, dev,
                    hb2(a, sizeof a, kinds[i].on_gpu));
        if (kinds[i].on_cpu > 0)
            kv_fprintf(out, "msg=\"%s\" device=CPU size=\"%s\"\n", kinds[i].msg,
                    hb2(a, sizeof a, kinds[i].on_cpu));
    }
    kv_fprintf(out, "msg=\"total memory\" size=\"%s\"\n", hb2(a, sizeof a, o->required_full_bytes));
}

/* llama-server as Ollama starts it (llm/llama_server.go startLlamaServer), and its lines. */
static void server_lines(FILE *out, const kv_spec *s, const kv_ollama_result *o)
{
    static const char *const flash[] = {"off", "on", "auto"};
    const kv_llamacpp_result *L = &o->server;
    char a[FMT_BUF];
    kv_fprintf(out, "  runner   : llama.cpp's llama-server, build %lld (this release's "
                 "LLAMA_CPP_VERSION; docs/llamacpp.md)\n",
            (long long)o->llamacpp_build);
    kv_fprintf(out, "msg=\"starting llama-server\" cmd=\"llama-server -c %lld -np %lld",
            (long long)(o->num_ctx * o->num_parallel), (long long)o->num_parallel);
    if (s->ollama.kv_cache_type.set || o->cache_type != KV_OLLAMA_F16)
        kv_fprintf(out, " --cache-type-k %s --cache-type-v %s", cache_name(o->cache_type),
                cache_name(o->cache_type));
    kv_fprintf(out, " --flash-attn %s -b %lld -ub %lld", flash[o->server_flash], (long long)o->batch,
            (long long)o->batch);
    if (s->ollama.num_gpu.set)
        kv_fprintf(out, " -ngl %lld", (long long)s->ollama.num_gpu.value);
    fputs("\"\n", out);
    if (!s->ollama.num_batch.set)
        fputs("  (-b / -ub: Ollama's own choice for the context and the GPU; --num-batch sets "
              "it)\n", out);
    report_llamacpp_lines(out, L);
    kv_fprintf(out, "  devices  : %lld of %lld layers on the GPU: weights %s + KV %s + compute ~%s "
                 "(an estimate) = %s GiB: %s\n",
            (long long)L->gpu_layers, (long long)L->n_layer + 1,
            hb2((char[64]){0}, 64, L->weights_gpu_bytes), hb2((char[64]){0}, 64, L->kv_gpu_bytes),
            hb2((char[64]){0}, 64, L->compute_bytes),
            fmt_fixed(a, sizeof a, L->gpu_needed_bytes / KV_GIB, 2, 0),
            L->fits_gpu ? "fits"
                        : "does not fit: llama-server's fit moves layers to the CPU (how many, "
                          "kvcalc does not model)");
}

static void ps_line(FILE *out, const kv_ollama_result *o)
{
    char size[64], proc[64], ctx[64] = "";
    kv_ollama_human_bytes(o->required_full_bytes, size, sizeof size);
    if (o->gpu_percent == 100)
        kv_snprintf(proc, sizeof proc, "100%% GPU");
    else if (o->gpu_percent == 0)
        kv_snprintf(proc, sizeof proc, "100%% CPU");
    else if (o->gpu_percent < 0)
        kv_snprintf(proc, sizeof proc, "a CPU/GPU split kvcalc does not model");
    else
        kv_snprintf(proc, sizeof proc, "%d%%/%d%% CPU/GPU", (int)(100 - o->gpu_percent),
                 (int)o->gpu_percent);
    if (o->ps_context > 0)
        kv_snprintf(ctx, sizeof ctx, ", CONTEXT %lld", (long long)o->ps_context);
    kv_fprintf(out, "  ollama ps: SIZE %s, PROCESSOR %s%s%s\n", size, proc, ctx,
            o->era == KV_OLLAMA_LLAMA_SERVER ? " (SIZE from llama-server's buffers: an estimate)"
                                             : "");
}

/* What kvcalc could not count as Ollama does, each in one line. */
static void gaps(FILE *out, const kv_ollama_result *o)
{
    if (o->weights_estimated)
        fputs("  ESTIMATE : no GGUF, so no tensor sizes and no architecture: the weights are the "
              "model's, spread evenly over its blocks, the graph Ollama's fallback, and every "
              "layer keeps the whole context (Ollama's rules for gemma3's and gpt-oss's "
              "windows go by the GGUF's architecture; give the GGUF with --model)\n", out);
    if (o->model_from_log)
        fputs("  ESTIMATE : the model is as the log's lines describe it (the loader's keys, the "
              "file size, the tensor counts): the blocks' bytes are the file's less the "
              "embeddings and output, spread evenly\n", out);
    if (o->measured_by_runner)
        fputs("  ESTIMATE : this release runs the architecture on Ollama's own engine, which "
              "measures what it allocates: the figures above are the llama engine's "
              "estimate\n", out);
    if (o->runner_kv_bytes > 0)
        fprintf(out, "  kv cache : %.2f GiB as Ollama's own engine allocates it (its \"kv cache\" "
                     "lines): each recurrent state kept once a slot and %lld times more as "
                     "prefix checkpoints, where the estimate counts it once\n",
                o->runner_kv_bytes / KV_GIB, (long long)o->state_checkpoints);
    if (o->projector_left_out)
        fputs("  ESTIMATE : the file's vision tensors are left out (Ollama counts them as "
              "projector.weights and .graph)\n", out);
    if (o->cross_attention_left_out)
        fputs("  ESTIMATE : mllama's cross-attention layers are counted as ordinary layers "
              "(Ollama sizes them for 4 tiles of 1601 vision tokens)\n", out);
}

void report_ollama_text(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    const kv_ollama_result *o = &r->ollama;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    static const char *const how[] = {"llm/memory.go's estimate", "the layout of its estimate",
                                      "llama-server's allocation"};
    kv_fprintf(out, "Ollama %s prediction (%s; docs/ollama.md):\n", r->engine_version, how[o->era]);
    settings_lines(out, s, o);
    if (o->era == KV_OLLAMA_ESTIMATOR)
        offload_line(out, s, o);
    else if (o->era == KV_OLLAMA_LAYOUT)
        layout_lines(out, s, o);
    else
        server_lines(out, s, o);
    ps_line(out, o);
    gaps(out, o);
    if (o->era != KV_OLLAMA_LLAMA_SERVER)
        kv_fprintf(out, "  layers   : %lld of %lld on the GPU%s\n", (long long)o->layers_offload,
                (long long)o->layers_model,
                o->fully_loaded            ? " (all of them)"
                : o->layers_offload == 0 ? "; the model runs on the CPU"
                                         : "; the rest run on the CPU, slower");
    if (o->longest_num_ctx > 0)
        kv_fprintf(out, "  longest num_ctx with every layer on the GPU at parallel %lld: %s\n",
                (long long)o->num_parallel, fmt_int(a, sizeof a, o->longest_num_ctx, 1));
    else if (o->library != KV_OLLAMA_CPU)
        fputs("  longest num_ctx with every layer on the GPU: none (the weights alone do not "
              "fit)\n", out);
    kv_fprintf(out, "  %s request%s of %s tokens at once%s\n\n",
            fmt_fixed(a, sizeof a, r->max_concurrency, 0, 1), r->max_concurrency == 1 ? "" : "s",
            fmt_int(b, sizeof b, s->context, 1),
            s->context > o->num_ctx
                ? (kv_snprintf(c, sizeof c, " (Ollama cuts a prompt to num_ctx %s tokens: set "
                                         "--num-ctx %lld)",
                            fmt_int(d, sizeof d, o->num_ctx, 1), (long long)s->context),
                   c)
                : "");
}
