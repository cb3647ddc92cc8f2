/*
 * report_text.c - the lesson's table. The layout (spacing, rules, wording) is the contract
 * with the lesson's golden outputs, so every format here mirrors a Python f-string of the
 * lesson's calculator: ":g" -> fmt_g, ":,.1f" -> fmt_fixed(.., 1, 1), ":," -> fmt_int.
 */
#include "report.h"

#include "format.h"

#include <string.h>

void report_text(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    const kv_dtype_info *kv = kv_dtype_get(s->dtype);
    const kv_dtype_info *w = kv_dtype_get(s->weight_dtype);

    fputs("\nKV cache calculator  (ILLUSTRATIVE arch; confirm against config.json)\n", out);
    fputs("--------------------------------------------------------------------\n", out);
    fprintf(out, "Model      : %lld layers, %lld KV heads, head_dim %lld, KV dtype %s (%s B)\n",
            (long long)s->layers, (long long)s->kv_heads, (long long)s->head_dim, kv->name,
            fmt_g(a, sizeof a, kv->bytes));
    fprintf(out, "Weights    : ~%sB params @ %s  ->  %s GiB\n", fmt_g(a, sizeof a, s->params_b),
            w->name, fmt_fixed(b, sizeof b, r->weights_bytes / KV_GIB, 2, 0));
    fprintf(out, "GPU memory : %s GiB   (reserve %s GiB for activations/overhead)\n",
            fmt_g(a, sizeof a, s->gpu_mem_gib), fmt_g(b, sizeof b, s->overhead_gib));
    if (!r->fits) {
        fputs("\nWeights + overhead already exceed GPU memory: no room for KV cache.\n"
              "Use a bigger GPU, quantize the weights (--weight-dtype), or shard the model.\n",
              out);
        return;
    }
    fprintf(out, "Free for KV: %s GiB\n\n", fmt_fixed(a, sizeof a, r->free_kv_bytes / KV_GIB, 2, 0));

    fprintf(out, "KV per token (one sequence):  2 x %lld x %lld x %lld x %s B  =  %s B  "
                 "(%s MiB/token)\n",
            (long long)s->layers, (long long)s->kv_heads, (long long)s->head_dim,
            fmt_g(a, sizeof a, kv->bytes), fmt_fixed(b, sizeof b, r->kv_bytes_per_token, 0, 1),
            fmt_fixed(c, sizeof c, r->kv_bytes_per_token / KV_MIB, 4, 0));
    fprintf(out, "KV per request @ %s tokens:  %s MiB\n\n", fmt_int(a, sizeof a, s->context, 1),
            fmt_fixed(b, sizeof b, r->kv_bytes_per_request / KV_MIB, 1, 1));

    fprintf(out, "Max concurrent requests @ %s context:  ~%s\n", fmt_int(a, sizeof a, s->context, 1),
            fmt_fixed(b, sizeof b, r->max_concurrency, 0, 0));
    fputs("(This, not tokens/sec, is usually what caps how many users you serve at once.)\n\n",
          out);

    fputs("Context length vs concurrency (same GPU):\n", out);
    fprintf(out, "  %8s  %11s  %14s\n", "context", "KV/req", "max concurrent");
    for (size_t i = 0; i < r->n_rows; i++) {
        const kv_row *row = &r->rows[i];
        fprintf(out, "  %8s  %8s MiB  %14s%s\n", fmt_int(a, sizeof a, row->context, 1),
                fmt_fixed(b, sizeof b, row->kv_bytes_per_request / KV_MIB, 1, 1),
                fmt_fixed(c, sizeof c, row->max_concurrency, 0, 0),
                row->is_setting ? "  <- your setting" : "");
    }
    fputs("  Double the context, halve the concurrency. Context length is a capacity cost.\n\n",
          out);

    fprintf(out, "Prefix caching: %s requests sharing a %s-token prompt\n",
            fmt_int(a, sizeof a, s->prefix_requests, 0), fmt_int(b, sizeof b, s->prefix_tokens, 1));
    fprintf(out, "  store the shared prefix ONCE instead of %s times  ->  save %s GiB  "
                 "(~%s more concurrent @ %s ctx)\n",
            fmt_int(a, sizeof a, s->prefix_requests, 0),
            fmt_fixed(b, sizeof b, r->prefix_saved_bytes / KV_GIB, 2, 0),
            fmt_fixed(c, sizeof c, r->prefix_extra_concurrency, 0, 0),
            fmt_int(d, sizeof d, s->context, 1));
    fputs("  This is why a shared system prompt / few-shot preamble is nearly free to reuse.\n\n",
          out);
}
