/*
 * llamacpp_section.c - the --engine llama.cpp section of the text report.
 *
 * llama.cpp's own lines (n_ctx, the "rounding down" warning, the sliding-window cache
 * lines, the KV and recurrent size lines) come out in the words and printf formats of the
 * build asked for, so that they can be put beside a real log: the size line changed name
 * and shape six times (docs/llamacpp.md, section 7). kvcalc's own lines around them are
 * indented and say where each setting came from and what is an estimate.
 */
#define KVCALC_ENGINES /* this engine's own figures */
#include "kvprint.h"
#include "report.h"

#include "format.h"

#include <stdint.h>
#include <math.h>
#include <string.h>

/* The builds where a printed line changed. */
enum {
    P_MIB = 1521,         /* "MB" -> "MiB" */
    P_TYPES = 1619,       /* K and V with their types */
    P_CONTEXT = 4881,     /* llama_new_context_with_model -> llama_context */
    P_UNIFIED = 5262,     /* -> llama_kv_cache_unified */
    P_ISWA = 5429,        /* the sliding-window cache lines */
    P_CELLS = 5441,       /* "size = X MiB (N cells, L layers, S seqs)" */
    P_HYBRID = 5856,      /* llama_memory_recurrent */
    P_STREAMS = 5913,     /* "S/T seqs" */
    P_STREAMS_U = 6071,   /* "%2u/%u" instead of "%2u/%2u" */
    P_KV_CACHE = 6233,    /* -> llama_kv_cache, llama_kv_cache_iswa */
    P_ROUNDING = 6975,    /* "n_ctx is not divisible by n_seq_max - rounding down to" */
    P_RS_SEQ = 9180,      /* "S seqs  R rs_seq" (rollback snapshots for MTP drafting): from
                             255582687 "llama + spec: MTP Support (#22673)", the 9180th
                             commit (src/llama-memory-recurrent.cpp) */
    P_DSV4_RS = 10228     /* llama_dsv4_comp_state's line gains "rs_seq = %u, " (596a5795b,
                             #25784) */
};

static double mib(double bytes)
{
    return bytes / KV_MIB;
}

static const char *size_prefix(int64_t b)
{
    return b < P_CONTEXT ? "llama_new_context_with_model"
           : b < P_UNIFIED ? "llama_context"
           : b < P_KV_CACHE ? "llama_kv_cache_unified"
                            : "llama_kv_cache";
}

static const char *context_prefix(int64_t b)
{
    return b < P_CONTEXT ? "llama_new_context_with_model" : "llama_context";
}

/* One cache's summary line, in the build's format. */
static void size_line(FILE *out, const kv_llamacpp_result *L, const kv_llamacpp_cache *c)
{
    int64_t b = L->build;
    const char *p = size_prefix(b);
    const char *tk = kv_ggml_cache_type_get((kv_ggml_cache_type)L->type_k)->name;
    const char *tv = kv_ggml_cache_type_get((kv_ggml_cache_type)L->type_v)->name;
    double k = mib(c->k_bytes), v = mib(c->v_bytes), kv = mib(c->k_bytes + c->v_bytes);
    if (b < P_MIB) {
        fprintf(out, "%s: kv self size  = %7.2f MB\n", p, kv);
        return;
    }
    if (b < P_TYPES) {
        fprintf(out, "%s: kv self size  = %7.2f MiB\n", p, kv);
        return;
    }
    if (b < P_CELLS) {
        fprintf(out, "%s: KV self size  = %7.2f MiB, K (%s): %7.2f MiB, V (%s): %7.2f MiB\n", p,
                kv, tk, k, tv, v);
        return;
    }
    char seqs[48];
    unsigned n = (unsigned)L->n_seq, st = (unsigned)L->streams;
    if (b < P_STREAMS)
        kv_snprintf(seqs, sizeof seqs, "%2u seqs", n);
    else if (b < P_STREAMS_U)
        kv_snprintf(seqs, sizeof seqs, "%2u/%2u seqs", n, st);
    else
        kv_snprintf(seqs, sizeof seqs, "%2u/%u seqs", n, st);
    fprintf(out, "%s: size = %7.2f MiB (%6u cells, %3d layers, %s), K (%s): %7.2f MiB, "
                 "V (%s): %7.2f MiB\n",
            p, kv, (unsigned)c->cells, (int)c->layers, seqs, tk, k, tv, v);
}

static void state_line(FILE *out, const kv_llamacpp_result *L)
{
    double r = mib(L->state_r_bytes), s = mib(L->state_s_bytes);
    if (L->build < P_HYBRID) {
        fprintf(out, "  recurrent state: %.2f MiB for %lld layers (this build keeps it in the "
                     "KV cache's rows)\n", r + s, (long long)L->state_layers);
        return;
    }
    if (s == 0) { /* a config gives the state's total only, not llama.cpp's R / S split */
        fprintf(out, "  recurrent state: %.2f MiB of f32 for %d layers and %u seqs (llama.cpp "
                     "prints it as R + S in a llama_memory_recurrent line)\n",
                r, (int)L->state_layers, (unsigned)L->state_rows);
        return;
    }
    /* the layers it prints are the model's (hparams.n_layer), the state is the recurrent
     * layers' (llama-memory-recurrent.cpp @ 76d94392764a8bcc1e93bd6f248c30aec2cfac9a) */
    char seqs[40];
    if (L->build >= P_RS_SEQ)
        kv_snprintf(seqs, sizeof seqs, "%2u seqs %2u rs_seq", (unsigned)L->state_rows,
                 (unsigned)L->n_rs_seq);
    else
        kv_snprintf(seqs, sizeof seqs, "%2u seqs", (unsigned)L->state_rows);
    fprintf(out, "llama_memory_recurrent: size = %7.2f MiB (%6u cells, %3d layers, %s), "
                 "R (f32): %7.2f MiB, S (f32): %7.2f MiB\n",
            r + s, (unsigned)L->state_rows, (int)L->n_layer_file, seqs, r, s);
}

/* Where n_ctx came from, in words. */
static void ctx_origin(FILE *out, const kv_spec *s, const kv_llamacpp_result *L)
{
    char a[FMT_BUF];
    fmt_int(a, sizeof a, L->n_ctx_asked, 1);
    if (!L->ctx_from_model)
        kv_fprintf(out, "  n_ctx    : %s asked (%s)\n", a,
                s->llamacpp.ctx_size.set ? "--ctx-size" : "this build's default -c");
    else if (s->max_context > 0 || s->gguf)
        kv_fprintf(out, "  n_ctx    : %s, the model's context_length (%s)\n", a,
                s->llamacpp.ctx_size.set ? "--ctx-size 0" : "this build's default -c 0");
    else
        kv_fprintf(out, "  n_ctx    : %s: the model's context_length is unknown, so --context "
                     "stands in for it (give --ctx-size N)\n", a);
    if (L->autofit)
        fputs("             this build fits n_ctx to the free memory at start-up (not below "
              "4096): the figures\n             below are the unfitted ones; give --ctx-size to "
              "pin it\n", out);
}

static void context_lines(FILE *out, const kv_spec *s, const kv_llamacpp_result *L)
{
    ctx_origin(out, s, L);
    kv_fprintf(out, "  slots    : %lld%s, %lld stream%s; flash attention %s; micro-batch %lld\n",
            (long long)L->n_seq,
            L->auto_slots ? " (llama-server's automatic slots, unified)"
            : s->llamacpp.parallel.set ? " (--parallel)" : "",
            (long long)L->streams, L->streams == 1 ? " shared by every slot" : "s, one per slot",
            L->flash ? (s->llamacpp.flash_attn.set && s->llamacpp.flash_attn.value == KV_FLASH_ON
                         ? "on"
                         : "auto (counts as on)")
                     : "off",
            (long long)L->n_ubatch);
}

/* One DeepSeek-V4 compressor state's line (llama_dsv4_comp_state's constructor,
 * src/llama-kv-cache-dsv4.cpp @ 3f545beccee69d9975f466ec7e45fd9aacd8ba90; without rs_seq
 * before b10228, as at 8c146a836). */
static void dsv4_state_line(FILE *out, const kv_llamacpp_result *L, const char *title,
                            const char *name, unsigned ratio, unsigned rows, int64_t width,
                            int64_t layers, double bytes)
{
    kv_fprintf(out, "llama_kv_cache_dsv4: creating DSV4 %s compressor state\n", title);
    char rs[32] = "";
    if (L->build >= P_DSV4_RS)
        kv_snprintf(rs, sizeof rs, "rs_seq = %u, ", (unsigned)L->dsv4_rs_seq);
    fprintf(out, "llama_dsv4_comp_state: %s ratio = %u, state = %u x %u, streams = %u, %slayers = "
                 "%zu, size = %7.2f MiB\n",
            name, ratio, rows, (unsigned)width, (unsigned)L->n_seq, rs, (size_t)layers,
            mib(bytes));
}

/* DeepSeek-V4's caches in the order llama_kv_cache_dsv4 creates and prints them. */
static void dsv4_lines(FILE *out, const kv_llamacpp_result *L)
{
    fputs("llama_kv_cache_dsv4: creating DSV4 raw KV cache\n", out);
    kv_fprintf(out, "llama_kv_cache_iswa: creating non-SWA KV cache, size = %lld cells\n",
               (long long)L->main.cells);
    size_line(out, L, &L->main);
    kv_fprintf(out, "llama_kv_cache_iswa: creating     SWA KV cache, size = %lld cells\n",
               (long long)L->swa.cells);
    size_line(out, L, &L->swa);
    kv_fprintf(out, "llama_kv_cache_dsv4: creating DSV4 CSA compressed KV cache, size = %lld "
                    "cells\n", (long long)L->csa_asked);
    size_line(out, L, &L->csa);
    kv_fprintf(out, "llama_kv_cache_dsv4: creating DSV4 HCA compressed KV cache, size = %lld "
                    "cells\n", (long long)L->hca_asked);
    size_line(out, L, &L->hca);
    kv_fprintf(out, "llama_kv_cache_dsv4: creating DSV4 lightning-indexer KV cache, size = %lld "
                    "cells\n", (long long)L->csa_asked);
    size_line(out, L, &L->lid);
    dsv4_state_line(out, L, "CSA", "csa", 4, 8, L->csa_state_width, L->csa.layers,
                    L->csa_state_bytes);
    dsv4_state_line(out, L, "HCA", "hca", 128, 128, L->hca_state_width, L->hca.layers,
                    L->hca_state_bytes);
    dsv4_state_line(out, L, "lightning-indexer", "lid", 4, 8, L->lid_state_width,
                    L->lid.layers, L->lid_state_bytes);
    fputs("  (DeepSeek-V4: every cache K only in -ctk's type, the states f32; a stream a slot "
          "even with --kv-unified)\n", out);
}

static void cache_lines(FILE *out, const kv_llamacpp_result *L)
{
    if (L->csa.layers + L->hca.layers > 0) {
        dsv4_lines(out, L);
        return;
    }
    const char *iswa = L->build < P_KV_CACHE ? "llama_kv_cache_unified_iswa" : "llama_kv_cache_iswa";
    int split = L->swa.layers > 0 && L->build >= P_ISWA;
    if (L->index.layers > 0) { /* llama_kv_cache_dsa (src/llama-kv-cache-dsa.cpp @
                                  4309c8486a946a4feea8180ed3bfd51190be7e1d), as b10505 prints it */
        kv_fprintf(out, "llama_kv_cache_dsa: creating main KV cache, size = %lld cells\n",
                (long long)L->main.cells);
        size_line(out, L, &L->main);
        kv_fprintf(out, "llama_kv_cache_dsa: creating indexer KV cache, size = %lld cells\n",
                (long long)L->index.cells);
        size_line(out, L, &L->index);
        if (L->state_layers > 0)
            state_line(out, L);
        return;
    }
    if (split)
        kv_fprintf(out, "%s: creating non-SWA KV cache, size = %lld cells\n", iswa,
                (long long)L->main.cells);
    if (L->main.layers > 0 || !split)
        size_line(out, L, &L->main);
    if (split) {
        kv_fprintf(out, "%s: creating     SWA KV cache, size = %lld cells\n", iswa,
                (long long)L->swa.cells);
        size_line(out, L, &L->swa);
    }
    if (L->state_layers > 0)
        state_line(out, L);
    if (L->v_less)
        fputs("  (an MLA cache: from build 7832 it keeps the latent in K and no V)\n", out);
}

void report_llamacpp_lines(FILE *out, const kv_llamacpp_result *L)
{
    const char *p = context_prefix(L->build);
    if (L->rounded && L->build >= P_ROUNDING)
        kv_fprintf(out, "%s: n_ctx is not divisible by n_seq_max - rounding down to %lld\n", p,
                (long long)L->n_ctx);
    kv_fprintf(out, "%s: n_seq_max     = %lld\n", p, (long long)L->n_seq);
    kv_fprintf(out, "%s: n_ctx         = %lld\n", p, (long long)L->n_ctx);
    cache_lines(out, L);
}

static void memory_lines(FILE *out, const kv_spec *s, const kv_result *r)
{
    const kv_llamacpp_result *L = &r->llamacpp;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF], e[FMT_BUF], f[FMT_BUF];
    fprintf(out, "  devices  : %lld of %lld layers on the GPU (the output layer counts as one): "
                 "KV %.2f MiB there, %.2f MiB in host memory%s\n",
            (long long)L->gpu_layers, (long long)L->n_layer + 1, mib(L->kv_gpu_bytes),
            mib(L->kv_host_bytes), s->llamacpp.no_kv_offload ? " (--no-kv-offload)" : "");
    char flag[40];
    if (s->llamacpp.cpu_moe) /* a format the compiler can check, either way */
        kv_snprintf(flag, sizeof flag, "--cpu-moe");
    else
        kv_snprintf(flag, sizeof flag, "--n-cpu-moe %lld", (long long)s->llamacpp.n_cpu_moe);
    if (s->llamacpp.n_cpu_moe > 0 || s->llamacpp.cpu_moe)
        kv_fprintf(out, "  experts  : %s keeps %s GiB of MoE experts on the CPU%s\n", flag,
                fmt_fixed(a, sizeof a, L->cpu_moe_bytes / KV_GIB, 2, 0),
                L->cpu_moe_bytes > 0 ? " (the experts' share of the estimated parameters)"
                : s->arch.experts > 0 ? " (none of those layers is on the GPU)"
                                      : " (the model has no MoE experts: nothing moves)");
    if (s->llamacpp.override_tensor.n > 0)
        kv_fprintf(out, "  -ot      : %lld tensors of the GPU's blocks, %s GiB of weights, moved to the "
                     "CPU (an estimate: each tensor's share of the estimated parameters)\n",
                (long long)L->override_tensors,
                fmt_fixed(a, sizeof a, L->override_bytes / KV_GIB, 2, 0));
    kv_fprintf(out, "  weights  : %s GiB on the GPU, %s GiB in host memory",
            fmt_fixed(a, sizeof a, L->weights_gpu_bytes / KV_GIB, 2, 0),
            fmt_fixed(b, sizeof b, L->weights_host_bytes / KV_GIB, 2, 0));
    if (L->input_host_bytes > 0)
        kv_fprintf(out, " (the input layer's %s GiB always there%s)",
                fmt_fixed(a, sizeof a, L->input_host_bytes / KV_GIB, 2, 0),
                L->head_copy_bytes > 0 ? "; the tied output head a copy of it on the GPU" : "");
    fputc('\n', out);
    if (isnan(L->prompt_cache_max_bytes))
        fputs("  prompts  : llama-server's prompt cache may grow without limit in host memory "
              "(--cache-ram -1)\n", out);
    else if (L->prompt_cache_max_bytes > 0)
        kv_fprintf(out, "  prompts  : llama-server's prompt cache grows to %s GiB of host memory "
                     "as it saves prompts (--cache-ram %s MiB; 0 turns it off)\n",
                fmt_fixed(a, sizeof a, L->prompt_cache_max_bytes / KV_GIB, 2, 0),
                fmt_int(b, sizeof b, (int64_t)(L->prompt_cache_max_bytes / KV_MIB), 1));
    char dr[2 * FMT_BUF + 32] = "";
    if (L->draft_contexts > 0) {
        char name[300];
        kv_fprintf(out, "  draft    : %s: %lld context%s of %s cells (%s), %lld of %lld layers on "
                     "the GPU: KV %.2f MiB (%.2f MiB there), weights %s GiB there; its compute "
                     "buffer%s not counted\n",
                text_safe(name, sizeof name, s->llamacpp.draft.name), (long long)L->draft_contexts,
                L->draft_contexts == 1 ? "" : "s", fmt_int(a, sizeof a, L->draft_cells, 1),
                !L->draft_shared     ? "one a slot, -cd or the slot's context"
                : L->ctx_from_model ? "one for every slot; with -c 0 the draft's own n_ctx_train"
                                    : "one for every slot, the target's cells",
                (long long)L->draft_gpu_layers, (long long)s->llamacpp.draft.layers + 1,
                mib(L->draft_kv_bytes), mib(L->draft_kv_gpu_bytes),
                fmt_fixed(b, sizeof b, L->draft_weights_gpu_bytes / KV_GIB, 2, 0),
                L->draft_contexts == 1 ? " is" : "s are");
        kv_snprintf(dr, sizeof dr, " + draft %s",
                 fmt_fixed(a, sizeof a, (L->draft_kv_gpu_bytes + L->draft_weights_gpu_bytes) / KV_GIB,
                           2, 0));
    }
    if (L->mtp_layers > 0) {
        /* the MTP context's cache line, as llama.cpp prints it (its streams: the target's) */
        kv_fprintf(out, "  MTP      : --spec-type draft-mtp: a context of the model's %lld next-n "
                     "layer%s, %s cells: KV %.2f MiB (%.2f MiB on the GPU)\n",
                (long long)L->mtp_layers, L->mtp_layers == 1 ? "" : "s",
                fmt_int(a, sizeof a, L->mtp_cells, 1), mib(L->mtp_kv_bytes),
                mib(L->mtp_kv_gpu_bytes));
        size_t at = strlen(dr);
        kv_snprintf(dr + at, sizeof dr - at, " + MTP %s",
                 fmt_fixed(a, sizeof a, L->mtp_kv_gpu_bytes / KV_GIB, 2, 0));
    }
    if (s->llamacpp.lora.name) {
        char name[300];
        const kv_lora_files *lf = &s->llamacpp.lora;
        fprintf(out, "  LoRA     : %lld adapter file%s (%s%s): %.2f MiB, %.2f MiB on the GPU with "
                     "the weights they patch, %.2f MiB in host memory\n",
                (long long)lf->files, lf->files == 1 ? "" : "s",
                text_safe(name, sizeof name, lf->name), lf->files > 1 ? ", ..." : "",
                mib(L->lora_bytes), mib(L->lora_gpu_bytes), mib(L->lora_bytes - L->lora_gpu_bytes));
        size_t at = strlen(dr);
        kv_snprintf(dr + at, sizeof dr - at, " + LoRA %s",
                 fmt_fixed(a, sizeof a, L->lora_gpu_bytes / KV_GIB, 2, 0));
    }
    kv_fprintf(out, "  GPU      : weights %s + KV %s + compute ~%s (an estimate) + overhead %s%s = "
                 "%s of %s GiB: %s\n",
            fmt_fixed(a, sizeof a, L->weights_gpu_bytes / KV_GIB, 2, 0),
            fmt_fixed(b, sizeof b, L->kv_gpu_bytes / KV_GIB, 2, 0),
            fmt_fixed(c, sizeof c, L->compute_bytes / KV_GIB, 2, 0),
            fmt_g(d, sizeof d, s->overhead_gib), dr,
            fmt_fixed(e, sizeof e, L->gpu_needed_bytes / KV_GIB, 2, 0),
            fmt_figure(f, sizeof f, s->gpu_mem_gib, !s->gpu_name), /* a preset's: 2 decimals */
            L->fits_gpu ? "fits"
            : L->autofit ? "does not fit unfitted"
                         : "does NOT fit (llama.cpp would fail to allocate)");
    if (L->autofit && !L->fits_gpu)
        kv_fprintf(out, "  auto-fit : %s\n",
                L->autofit_ctx ? "this build would lower n_ctx to fit: about the largest "
                                 "--ctx-size below (an estimate)"
                               : "even n_ctx 4096 does not fit: llama.cpp would fail to allocate");
    if (L->ctx_size_fit_any)
        fputs("  longest --ctx-size that fits: any (nothing that grows with it is on the GPU)\n",
              out);
    else if (L->ctx_size_fit == 0)
        fputs("  longest --ctx-size that fits: none (the weights and buffers alone do not fit)\n",
              out);
    else
        kv_fprintf(out, "  longest --ctx-size that fits: %s (a slot then holds %s tokens)\n",
                fmt_int(a, sizeof a, L->ctx_size_fit, 1),
                fmt_int(b, sizeof b, r->longest_context_fit, 1));
}

void report_llamacpp_text(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    const kv_llamacpp_result *L = &r->llamacpp;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    kv_fprintf(out, "llama.cpp build %lld prediction (llama-server's rules; docs/llamacpp.md):\n",
            (long long)L->build);
    if (s->llamacpp.build > L->build)
        kv_fprintf(out, "  (build %lld is newer than the rules kvcalc knows: build %lld's apply)\n",
                (long long)s->llamacpp.build, (long long)L->build);
    context_lines(out, s, L);
    report_llamacpp_lines(out, L);
    memory_lines(out, s, r);
    kv_fprintf(out, "  %s request%s of %s tokens at once (%lld slot%s of up to %s tokens%s%s)\n\n",
            fmt_fixed(a, sizeof a, r->max_concurrency, 0, 1), r->max_concurrency == 1 ? "" : "s",
            fmt_int(b, sizeof b, s->context, 1), (long long)L->n_seq, L->n_seq == 1 ? "" : "s",
            fmt_int(c, sizeof c, L->autofit_ctx ? L->autofit_slot_ctx : L->slot_ctx, 1),
            L->unified && L->n_seq > 1 ? ", sharing one stream" : "",
            L->autofit_ctx ? ", after auto-fit" : "");
}
