/*
 * trtllm_section.c - the --engine trtllm section of the text report.
 *
 * The block and "Allocated" lines are printed in TensorRT-LLM's own words and formats
 * (plain integers, "%0.2f" GiB) so that a user can put them beside a real start-up log;
 * the lines before them show the free memory, the fraction and the per-token size that
 * produced them, and say when the free memory is kvcalc's estimate rather than the log's.
 */
#define KVCALC_ENGINES /* this engine's own figures */
#include "kvprint.h"
#include "report.h"

#include "format.h"

static const char *gib(char *buf, size_t cap, double bytes)
{
    return fmt_fixed(buf, cap, bytes / KV_GIB, 2, 0);
}

static void budget_lines(FILE *out, const kv_spec *s, const kv_trtllm_result *t)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF], e[FMT_BUF];
    if (t->free_estimated)
        kv_fprintf(out, "  free    : %s GiB, an estimate: GPU memory - weights%s - overhead "
                     "(give the log's \"available: F GiB\" with --free-mem-gib)\n",
                gib(a, sizeof a, t->free_bytes), s->trtllm.draft.name ? " - the draft's" : "");
    else
        kv_fprintf(out, "  free    : --free-mem-gib %s (the log's \"available\")\n",
                fmt_g(a, sizeof a, s->trtllm.free_mem_gib.value));
    if (s->trtllm.enable_lora) {
        char f[FMT_BUF];
        kv_fprintf(out, "  budget  : (%s - LoRA device pages %s) GiB x fraction %s = %s GiB; %s B per "
                     "token -> %s tokens%s\n",
                gib(a, sizeof a, t->free_bytes), gib(f, sizeof f, t->lora_device_bytes),
                fmt_g(b, sizeof b, s->trtllm.fraction), gib(c, sizeof c, t->primary_bytes),
                fmt_fixed(d, sizeof d, t->per_token_bytes, 0, 1),
                fmt_int(e, sizeof e, t->max_tokens, 1), t->capped ? " (--max-tokens)" : "");
    } else
        kv_fprintf(out, "  budget  : %s GiB x fraction %s = %s GiB; %s B per token -> %s tokens%s\n",
                gib(a, sizeof a, t->free_bytes), fmt_g(b, sizeof b, s->trtllm.fraction),
                gib(c, sizeof c, t->primary_bytes),
                fmt_fixed(d, sizeof d, t->per_token_bytes, 0, 1),
                fmt_int(e, sizeof e, t->max_tokens, 1), t->capped ? " (--max-tokens)" : "");
    if (s->trtllm.draft.name) {
        char name[300];
        kv_fprintf(out, "  draft   : %s: %s B of the %s per token are its %lld layers' (the target's "
                     "and the draft's summed, PR #3497); its weights %s GiB on this rank%s\n",
                text_safe(name, sizeof name, s->trtllm.draft.name),
                fmt_fixed(a, sizeof a, t->draft_token_bytes, 0, 1),
                fmt_fixed(b, sizeof b, t->per_token_bytes, 0, 1), (long long)s->trtllm.draft.layers,
                gib(c, sizeof c, t->draft_weights_bytes),
                t->free_estimated ? ", out of the free memory above" : ", inside the log's figure");
    }
}

/* PeftCacheManager's five lines, as TensorRT-LLM prints them, and what they allocate. */
static void lora_lines(FILE *out, const kv_spec *s, const kv_trtllm_result *t)
{
    char a[FMT_BUF], b[FMT_BUF];
    if (!s->trtllm.enable_lora)
        return;
    fprintf(out, "[TensorRT-LLM][INFO] Using %.0f bytes for LoRA host cache\n", t->lora_host_used_bytes);
    fprintf(out, "[TensorRT-LLM][INFO] Using %.0f bytes for LoRA device cache\n",
            t->lora_device_used_bytes);
    fprintf(out, "[TensorRT-LLM][INFO] Max LoRA size is %.0f\n", t->lora_max_size);
    kv_fprintf(out, "[TensorRT-LLM][INFO] LoRA host Cache can hold %lld max sized LoRAs\n",
            (long long)t->lora_host_holds);
    kv_fprintf(out, "[TensorRT-LLM][INFO] LoRA device Cache can hold %lld max sized LoRAs\n",
            (long long)t->lora_device_holds);
    kv_fprintf(out, "  (pages of %lld slots of %lld elements, allocated whole: %s GiB on the GPU, out of "
                 "the KV budget, and %s GiB of host memory%s)\n",
            (long long)t->lora_slots_per_page, (long long)t->lora_page_width,
            gib(a, sizeof a, t->lora_device_bytes), gib(b, sizeof b, t->lora_host_bytes),
            t->lora_fits ? "" : "; TensorRT-LLM stops: \"Not enough space allocated to ... LoRA "
                                "cache to hold 1 max sized LoRA\"");
}

void report_trtllm_text(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_trtllm_result *t = &rep->result->trtllm;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    kv_fprintf(out, "TensorRT-LLM prediction, per GPU (tensor parallel %lld):\n", (long long)s->tp);
    budget_lines(out, s, t);
    lora_lines(out, s, t);
    if (t->capped)
        kv_fprintf(out, "Maximum kv-cache token overridden by configuration as '%lld'.\n",
                (long long)s->trtllm.max_tokens.value);
    kv_fprintf(out, "Number of blocks in KV cache primary pool: %lld\n", (long long)t->blocks);
    kv_fprintf(out, "Number of blocks in KV cache secondary pool: %lld, onboard blocks to primary "
                 "memory before reuse: true\n",
            (long long)t->secondary_blocks);
    if (t->secondary_blocks > 0 && s->tp * s->pp > 1)
        kv_fprintf(out, "  (--host-cache-size: %s GiB of pinned host memory on this rank, %s GiB on "
                     "all %lld; the primary pool and the concurrency unchanged: evicted blocks "
                     "wait there for reuse)\n",
                gib(a, sizeof a, t->host_cache_bytes),
                gib(b, sizeof b, t->host_cache_bytes * (double)(s->tp * s->pp)),
                (long long)(s->tp * s->pp));
    else if (t->secondary_blocks > 0)
        kv_fprintf(out, "  (--host-cache-size: %s GiB of pinned host memory; the primary pool and the "
                     "concurrency unchanged: evicted blocks wait there for reuse)\n",
                gib(a, sizeof a, t->host_cache_bytes));
    kv_fprintf(out, "Number of tokens per block: %lld.\n", (long long)t->tokens_per_block);
    kv_fprintf(out, "[MemUsageChange] Allocated %s GiB for max tokens in paged KV cache (%lld).\n",
            gib(a, sizeof a, t->allocated_bytes), (long long)t->tokens);
    kv_fprintf(out, "  (one request of %s tokens takes %s blocks: %s at once%s)\n\n",
            fmt_int(a, sizeof a, s->context, 1), fmt_int(b, sizeof b, t->blocks_per_request, 1),
            fmt_fixed(c, sizeof c, t->max_concurrency, 0, 1),
            t->max_concurrency < 1 ? "; the request does not fit" : "");
}
