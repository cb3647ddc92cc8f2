/*
 * vllm_section.c - the --engine vllm section of the text report.
 *
 * The three startup lines are printed in vLLM's own words and formats ("%.2f GiB",
 * thousands separators, "%.2fx") so that a user can put them beside a real log; the lines
 * around them show the budget and the block arithmetic that produced them, with every
 * estimated term labelled as such.
 */
#define KVCALC_ENGINES /* this engine's own figures */
#include "kvprint.h"
#include "report.h"

#include "format.h"

static const char *gib(char *buf, size_t cap, double bytes)
{
    return fmt_fixed(buf, cap, bytes / KV_GIB, 2, 0);
}

/* torch's error when what vLLM allocates outgrows the GPU (kvcalc's words in brackets). */
static void out_of_memory(FILE *out, const kv_spec *s, const kv_vllm_result *v)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    double kv = (double)v->num_gpu_blocks * v->page_bytes * (double)v->group_size;
    (void)s;
    fputs("torch.OutOfMemoryError: CUDA out of memory.\n", out);
    if (v->weights_bytes > v->total_bytes)
        kv_fprintf(out, "  (the weights, %s GiB, need more than the GPU's %s GiB: vLLM would not "
                     "load them.)\n",
                gib(a, sizeof a, v->weights_bytes), gib(b, sizeof b, v->total_bytes));
    else
        kv_fprintf(out, "  (the weights, %s GiB, and the KV cache of the size given, %s GiB, need "
                     "more than the GPU's %s GiB: vLLM would not start.)\n",
                gib(a, sizeof a, v->weights_bytes), gib(b, sizeof b, kv),
                gib(c, sizeof c, v->total_bytes));
}

/* Where the GPU total came from, in words. */
static const char *total_note(char *buf, size_t cap, const kv_spec *s, const kv_vllm_result *v)
{
    char gpu[300];
    const char *name = s->gpu_name ? text_safe(gpu, sizeof gpu, s->gpu_name) : "";
    switch (v->total_source) {
    case KV_TOTAL_GIVEN:
        kv_snprintf(buf, cap, "given");
        break;
    case KV_TOTAL_GPU_MEMORY:
        kv_snprintf(buf, cap, "the GPU memory given");
        break;
    case KV_TOTAL_ENGINE:
        kv_snprintf(buf, cap, "what vLLM reports for the %s", name);
        break;
    case KV_TOTAL_DRIVER_EST:
        kv_snprintf(buf, cap, "%s driver total minus 0.5 GiB of CUDA context, an estimate", name);
        break;
    }
    return buf;
}

/* Each estimated term's measured error, as bench/vllm_logs.sh prints it over the public
 * logs it counts (docs/vllm.md): refreshed with the estimates, stated once here. */
static const char *const weights_error = "median 0.05 GiB, worst 1.08 GiB off on 15 public logs";
static const char *const activation_error = "median 0.05 GiB, worst 0.36 GiB off on 11 public "
                                            "logs";
static const char *const non_torch_error = "median 0.01 GiB, worst 0.29 GiB off on 11 public logs";

static void budget_lines(FILE *out, const kv_spec *s, const kv_vllm_result *v)
{
    char note[400];
    const kv_vllm_spec *in = &s->vllm;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    if (in->kv_cache_memory_gib.set) {
        kv_fprintf(out, "  budget  : --kv-cache-memory-gib %s (memory profiling skipped)\n",
                fmt_g(a, sizeof a, in->kv_cache_memory_gib.value));
        return;
    }
    kv_fprintf(out, "  budget  : %s x %s GiB = %s GiB  (total: %s)\n", fmt_g(a, sizeof a, v->util),
            fmt_g(b, sizeof b, v->total_gib), gib(c, sizeof c, v->requested_bytes),
            total_note(note, sizeof note, s, v));
    /* each estimated term with its error measured on public logs (bench/vllm_logs.sh) */
    kv_fprintf(out, "            - weights %s GiB%s%s%s\n", gib(a, sizeof a, v->weights_bytes),
            in->weights_gib.set                ? ""
            : s->checkpoint_weights_bytes > 0 ? " (the checkpoint's tensors"
                                              : " (estimate: ",
            in->weights_gib.set || s->checkpoint_weights_bytes > 0 ? "" : weights_error,
            in->weights_gib.set ? "" : ")");
    if (v->lora_bytes > 0)
        kv_fprintf(out, "              (--enable-lora: %lld adapter%s of rank %lld, %s GiB of LoRA "
                     "buffers in every q/k/v/o/gate/up/down%s%s)\n",
                (long long)in->max_loras, in->max_loras == 1 ? "" : "s",
                (long long)in->max_lora_rank, gib(b, sizeof b, v->lora_bytes),
                s->arch.experts > 0 ? ", every expert's and the routers" : "",
                in->weights_gib.set ? "; inside the weights given"
                : v->v1             ? ", inside the weights"
                                    : "; V0 sizes its blocks without them (vllm#14450): they "
                                      "come out of the headroom");
    if (v->cpu_offload_bytes > 0)
        kv_fprintf(out, "              (--cpu-offload-gb %s: %s GiB of the decoder layers' weights in "
                     "pinned host memory per GPU, %s GiB on the host in all%s)\n",
                fmt_g(a, sizeof a, in->cpu_offload_gib), gib(b, sizeof b, v->cpu_offload_bytes),
                gib(c, sizeof c, v->host_pinned_bytes),
                in->weights_gib.set ? "; the weights given are what stays on the GPU"
                                    : "; vLLM moves whole parameters, so up to one tensor more");
    if (v->spec_method == KV_VLLM_SPEC_MTP && !in->weights_gib.set)
        kv_fprintf(out, "              (with the %lld MTP layer%s speculative method mtp loads, and "
                     "their cache)\n",
                (long long)s->arch.mtp_layers, s->arch.mtp_layers == 1 ? "" : "s");
    else if (in->draft.name && v->draft_layers > 0) {
        char name[300];
        kv_fprintf(out, "              (with the draft %s: %s GiB of its weights on this GPU%s; "
                     "the drafter loads inside \"Model loading took\")\n",
                text_safe(name, sizeof name, in->draft.name), gib(b, sizeof b, v->draft_weights_bytes),
                in->weights_gib.set            ? ", inside the weights given"
                : in->draft.weights_estimated ? ", estimated from its config"
                                               : ", its checkpoint's tensors");
    }
    kv_fprintf(out, "            - activation %s GiB%s%s%s\n", gib(b, sizeof b, v->activation_bytes),
            in->activation_gib.set ? "" : " (estimate: ",
            in->activation_gib.set ? "" : activation_error,
            in->activation_gib.set ? ""
            : v->encoder_binds      ? "; the vision encoder's profile run binds it)"
                                    : "; its sampler run of max_num_seqs x vocabulary dominates)");
    if (!in->activation_gib.set && v->encoder_bytes > 0)
        kv_fprintf(out, "              (the vision encoder's profile run: %s GiB, by vLLM's profiling "
                     "rules and the tower's widths; not measured on a log)\n",
                gib(a, sizeof a, v->encoder_bytes));
    kv_fprintf(out, "            - non-torch %s GiB%s%s%s\n", gib(c, sizeof c, v->non_torch_bytes),
            in->non_torch_gib.set ? "" : " (estimate: ", in->non_torch_gib.set ? "" : non_torch_error,
            in->non_torch_gib.set ? "" : ")");
    kv_fprintf(out, "            - CUDA graphs %s GiB%s\n", gib(d, sizeof d, v->cuda_graph_bytes),
            in->cuda_graph_gib.set ? ""
            : in->enforce_eager    ? " (--enforce-eager: no graphs)"
            : !v->v1               ? " (V0 captures graphs after the budget, in the headroom)"
            : v->runner_v2 && v->cuda_graph_bytes == 0
                ? in->use_v2_model_runner.set
                      ? " (--vllm-use-v2-model-runner 1: Model Runner V2's estimate is 0, its graphs "
                        "come out of the headroom)"
                      : " (Model Runner V2, this release's default for the model: its estimate is "
                        "0, its graphs come out of the headroom)"
            : kv_vllm_cuda_graph_estimate_gib(in->version) > 0
                ? " (estimate: vLLM measures it on the GPU; 0.27-4.99 GiB on public logs)"
                                   : " (before 0.20 graphs come out of the headroom)");
    if (v->piecewise_graphs > 0) {
        char full[64] = "";
        if (v->full_graphs > 0)
            kv_snprintf(full, sizeof full, ", FULL=%lld (largest=%lld)", (long long)v->full_graphs,
                     (long long)v->full_largest);
        kv_fprintf(out, "              (graphs captured: PIECEWISE=%lld (largest=%lld)%s, as "
                     "\"Profiling CUDA graph memory\" counts them; vLLM measures their memory on "
                     "the GPU)\n",
                (long long)v->piecewise_graphs, (long long)v->piecewise_largest, full);
    }
}

/* V0's and early V1's lines: blocks first, then the concurrency, then the refusal. */
static void v0_lines(FILE *out, const kv_spec *s, const kv_vllm_result *v)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    if (v->lines == KV_VLLM_LINES_V0 && v->memory_lines && !s->vllm.kv_cache_memory_gib.set) {
        kv_fprintf(out, "the current vLLM instance can use total_gpu_memory (%sGiB) x "
                     "gpu_memory_utilization (%s) = %sGiB\n",
                fmt_fixed(a, sizeof a, v->total_gib, 2, 0), fmt_fixed(b, sizeof b, v->util, 2, 0),
                gib(c, sizeof c, v->requested_bytes));
        kv_fprintf(out, "model weights take %sGiB; non_torch_memory takes %sGiB; PyTorch activation "
                     "peak memory takes %sGiB; the rest of the memory reserved for KV Cache is "
                     "%sGiB.\n",
                gib(a, sizeof a, v->weights_bytes), gib(b, sizeof b, v->non_torch_bytes),
                gib(c, sizeof c, v->activation_bytes), gib(d, sizeof d, v->available_bytes));
    } else {
        kv_fprintf(out, "  (available KV cache memory: %s GiB; this release does not print it)\n",
                gib(a, sizeof a, v->available_bytes));
    }
    if (v->lines == KV_VLLM_LINES_V0)
        kv_fprintf(out, "# %s blocks: %lld, # CPU blocks: %lld\n", v->device_word,
                (long long)v->num_gpu_blocks, (long long)v->num_cpu_blocks);
    else
        kv_fprintf(out, "# GPU blocks: %lld\n", (long long)v->num_gpu_blocks);
    if (v->concurrency_line)
        kv_fprintf(out, "Maximum concurrency for %lld tokens per request: %sx\n",
                (long long)s->context, fmt_fixed(a, sizeof a, v->max_concurrency, 2, 0));
    if (v->fits || v->refusal == KV_VLLM_HOST_SHORT)
        return;
    if (v->refusal == KV_VLLM_OUT_OF_MEMORY) {
        out_of_memory(out, s, v);
        return;
    }
    if (v->refusal == KV_VLLM_NO_BLOCKS || v->refusal == KV_VLLM_NO_MEMORY)
        fputs("ValueError: No available memory for the cache blocks. Try increasing "
              "`gpu_memory_utilization` when initializing the engine.\n", out);
    else if (v->refusal == KV_VLLM_V0_SEQ_LEN)
        kv_fprintf(out, "ValueError: The model's max seq len (%lld) is larger than the maximum number "
                     "of tokens that can be stored in KV cache (%lld). Try increasing "
                     "`gpu_memory_utilization` or decreasing `max_model_len` when initializing "
                     "the engine.\n",
                (long long)s->context,
                (long long)v->v0_max_seq_len);
    else
        kv_fprintf(out, "ValueError: To serve at least one request with the models's max seq len "
                     "(%lld), (%s GiB KV cache is needed, which is larger than the available KV "
                     "cache memory (%s GiB). Try increasing `gpu_memory_utilization` or "
                     "decreasing `max_model_len` when initializing the engine.\n",
                (long long)s->context, gib(a, sizeof a, v->needed_bytes),
                gib(b, sizeof b, v->available_bytes));
    fputs("  (vLLM would not start with these settings.)\n", out);
}

/* V1's lines from 0.9.1: the memory, then the refusal or the tokens and concurrency. */
static int tokens_lines(FILE *out, const kv_spec *s, const kv_vllm_result *v)
{
    char a[FMT_BUF], b[FMT_BUF];
    kv_fprintf(out, "Available KV cache memory: %s GiB\n", gib(a, sizeof a, v->available_bytes));
    if (s->vllm.auto_fit_from > s->context) /* --max-model-len auto, cut to what fits */
        kv_fprintf(out, "Auto-fit max_model_len: reduced from %lld to %lld to fit in available GPU "
                     "memory (%s GiB available for KV cache)\n",
                (long long)s->vllm.auto_fit_from, (long long)s->context,
                gib(b, sizeof b, v->check_bytes));
    if (v->check_bytes != v->available_bytes && (v->fits || v->refusal != KV_VLLM_STARTS))
        kv_fprintf(out, "  (the start-up check plans against %s GiB:%s%s)\n",
                gib(a, sizeof a, v->check_bytes),
                s->vllm.num_gpu_blocks_override.set && s->vllm.version >= 2100
                    ? " the --num-gpu-blocks-override blocks"
                    : "",
                v->null_block ? " less the null block BlockPool keeps back" : "");
    if (!v->fits && v->refusal == KV_VLLM_OUT_OF_MEMORY) {
        /* weights that load: the cache's size is reported (get_kv_cache_configs) before it
         * is allocated (initialize_from_config), where torch runs out of memory */
        if (v->weights_bytes <= v->total_bytes) {
            kv_fprintf(out, "GPU KV cache size: %s tokens\n",
                    fmt_int(a, sizeof a, v->gpu_kv_cache_tokens, 1));
            kv_fprintf(out, "Maximum concurrency for %s tokens per request: %sx\n",
                    fmt_int(a, sizeof a, s->context, 1),
                    fmt_fixed(b, sizeof b, v->max_concurrency, 2, 0));
        }
        out_of_memory(out, s, v);
        return 0;
    }
    if (!v->fits && v->refusal == KV_VLLM_NO_MEMORY) {
        fputs("ValueError: No available memory for the cache blocks. Try increasing "
              "`gpu_memory_utilization` when initializing the engine.\n"
              "  (vLLM would not start with these settings.)\n", out);
        return 0;
    }
    if (!v->fits && v->refusal != KV_VLLM_HOST_SHORT) {
        char est[160] = "";
        if (v->max_model_len_fit > 0)
            kv_snprintf(est, sizeof est, "Based on the available memory, the estimated maximum "
                     "model length is %lld. ", (long long)v->max_model_len_fit);
        kv_fprintf(out,
                "ValueError: To serve at least one request with the models's max seq len (%lld), "
                "(%s GiB KV cache is needed, which is larger than the available KV cache memory "
                "(%s GiB). %sTry increasing `gpu_memory_utilization` or decreasing "
                "`max_model_len` when initializing the engine.\n",
                (long long)s->context, gib(a, sizeof a, v->needed_bytes),
                gib(b, sizeof b, v->check_bytes), est);
        fputs("  (vLLM would not start with these settings.)\n", out);
        return 0;
    }
    kv_fprintf(out, "GPU KV cache size: %s tokens\n", fmt_int(a, sizeof a, v->gpu_kv_cache_tokens, 1));
    kv_fprintf(out, "Maximum concurrency for %s tokens per request: %sx\n",
            fmt_int(a, sizeof a, s->context, 1), fmt_fixed(b, sizeof b, v->max_concurrency, 2, 0));
    if (v->kv_offload_backend >= 0) {
        char c[FMT_BUF];
        int lm = v->kv_offload_backend == KV_VLLM_OFFLOAD_LMCACHE;
        kv_fprintf(out, "  (--kv-offloading-size %s: a CPU tier of %s %s, %s tokens, in pinned host "
                     "memory%s; the GPU pool and the concurrency above unchanged: offloaded blocks "
                     "serve prefix hits)\n",
                fmt_g(a, sizeof a, s->vllm.kv_offloading_gib),
                fmt_int(b, sizeof b, v->kv_offload_blocks, 1),
                lm ? "LMCache chunks of 256 tokens" : "blocks",
                fmt_int(c, sizeof c, v->kv_offload_tokens, 1),
                lm ? ", the size over the ranks in each worker's LMCache" : "");
    }
    if (v->max_concurrency < 1) { /* the override's blocks, unchecked before 0.21 */
        char c[FMT_BUF];
        kv_fprintf(out, "  (vLLM starts, but a request of %s tokens needs %s blocks of the %s: it "
                     "would wait forever, vllm-project/vllm#35541; this release does not check "
                     "the override)\n",
                fmt_int(a, sizeof a, s->context, 1),
                fmt_int(b, sizeof b, v->blocks_per_request, 1),
                fmt_int(c, sizeof c, v->num_gpu_blocks, 1));
    }
    return 1;
}

/* What speculative decoding costs: the draft's weights and cache, and the requests held
 * without it and with each running request's lookahead slots. */
static void speculation_lines(FILE *out, const kv_spec *s, const kv_vllm_result *v)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    long long k = (long long)s->vllm.num_speculative_tokens;
    if (v->draft_layers > 0)
        kv_fprintf(out, "  Speculative decoding (%s, %lld token%s): the draft's %s GiB of weights and "
                     "%lld cache layer%s (%s B per token) on this GPU\n",
                v->spec_method_name, k, k == 1 ? "" : "s",
                gib(a, sizeof a, v->draft_weights_bytes), (long long)v->draft_layers,
                v->draft_layers == 1 ? "" : "s", fmt_fixed(b, sizeof b, v->draft_kv_token_bytes, 0, 1));
    else
        kv_fprintf(out, "  Speculative decoding (%s, %lld token%s): no weights and no cache of its "
                     "own on the GPU\n",
                v->spec_method_name, k, k == 1 ? "" : "s");
    kv_fprintf(out, "    %s requests of %s tokens without it, %s with it (the %lld lookahead slot%s "
                 "of a running request stop at max_model_len: none more at this length)\n",
            fmt_fixed(a, sizeof a, v->no_spec_concurrency, 2, 0), fmt_int(b, sizeof b, s->context, 1),
            fmt_fixed(c, sizeof c, v->max_concurrency, 2, 0), k, k == 1 ? "" : "s");
}

void report_vllm_text(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    const kv_vllm_result *v = &r->vllm;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF], e[FMT_BUF];
    kv_fprintf(out, "vLLM %s (%s engine) prediction, per GPU (tensor parallel %lld%s%s):\n",
            r->engine_version, v->v1 ? "V1" : "V0", (long long)s->tp,
            s->pp > 1 ? ", the binding pipeline stage" : "",
            s->pp > 1 && r->pp_stage < s->pp - 1 ? ", no sampler on it" : "");
    budget_lines(out, s, v);
    if (v->defaults_by_gpu_size) {
        char t[FMT_BUF], q[FMT_BUF];
        kv_fprintf(out, "  (defaults chosen by the GPU's size: max_num_batched_tokens %s, max_num_seqs "
                     "%s on 70 GiB or more (not A100s),\n   2,048 and 256 below: their larger "
                     "profile run can leave a bigger GPU fewer requests; --max-num-batched-tokens "
                     "and --max-num-seqs set them)\n",
                fmt_int(t, sizeof t, v->max_num_batched_tokens, 1),
                fmt_int(q, sizeof q, v->max_num_seqs, 1));
    }
    if (v->outgrows_assumed_gpu)
        kv_fprintf(out, "  (no GPU named: the lesson's %s GiB could not hold the weights%s - the "
                     "figures below take the inputs as given; --gpu names the GPU)\n",
                gib(a, sizeof a, v->total_bytes),
                s->vllm.kv_cache_memory_gib.set || s->vllm.num_gpu_blocks_override.set
                    ? " and this cache"
                    : "");
    if (v->block_raised) /* HybridAttentionMambaModelConfig's two lines */
        kv_fprintf(out, "Setting attention block size to %lld tokens to ensure that attention page "
                     "size is >= mamba page size.\n",
                (long long)v->block_size);
    if (v->state_page_bytes > 0 && v->mamba_padding_percent > 0)
        kv_fprintf(out, "Padding mamba page size by %s%% to ensure that mamba page size and attention "
                     "page size are exactly equal.\n",
                fmt_fixed(a, sizeof a, v->mamba_padding_percent, 2, 0));
    kv_fprintf(out, "  blocks  : %s tokens x %s B per layer page x %s layers per group = %s B per "
                 "block; %s KV cache group%s\n",
            fmt_int(a, sizeof a, v->block_size, 1), fmt_fixed(b, sizeof b, v->page_bytes, 0, 1),
            fmt_int(c, sizeof c, v->group_size, 1),
            fmt_fixed(d, sizeof d, v->page_bytes * (double)v->group_size, 0, 1),
            fmt_int(e, sizeof e, v->num_groups, 1), v->num_groups == 1 ? "" : "s");
    if (s->layout.csa_c4 + s->layout.csa_c128 > 0)
        fputs("            (DeepSeek-V4: the compressed latents and indexer keys in blocks of "
              "256 tokens, the windows in blocks of 64, the compressors' states in blocks of 4 "
              "and 8; a block of any group costs the pool the same)\n",
              out);
    if (v->draft_layers > 0 && v->draft_shares_group)
        kv_fprintf(out, "            (%lld of those layers are the draft's: its pages are the "
                     "target's, so they share the group)\n", (long long)v->draft_layers);
    else if (v->draft_layers > 0)
        kv_fprintf(out, "            + the draft's %lld layers, %s B per block of their own page "
                     "size, in the same group (UniformTypeKVCacheSpecs): %s B per block\n",
                (long long)v->draft_layers, fmt_fixed(a, sizeof a, v->draft_page_bytes, 0, 1),
                fmt_fixed(b, sizeof b, v->page_bytes * (double)v->group_size + v->draft_page_bytes,
                          0, 1));
    if (v->padding_layers > 0)
        kv_fprintf(out, "WARNING: Add %lld padding layers, may waste at most %s%% KV cache memory\n",
                (long long)v->padding_layers, fmt_fixed(a, sizeof a, v->padding_percent, 2, 0));
    if (v->lines == KV_VLLM_LINES_TOKENS) {
        if (!tokens_lines(out, s, v)) {
            fputc('\n', out);
            return;
        }
    } else {
        v0_lines(out, s, v);
        if (!v->fits && v->refusal != KV_VLLM_HOST_SHORT) {
            fputc('\n', out);
            return;
        }
    }
    kv_fprintf(out, "  (%s blocks; one request of %s tokens takes %s blocks)\n",
            fmt_int(a, sizeof a, v->num_gpu_blocks, 1), fmt_int(b, sizeof b, s->context, 1),
            fmt_int(c, sizeof c, v->blocks_per_request, 1));
    if (v->spec_method != KV_VLLM_SPEC_NONE)
        speculation_lines(out, s, v);
    if (!v->enable_prefix_caching) {
        kv_fprintf(out, "  Prefix caching is off (%s): each of %s requests holds its own copy of "
                     "a %s-token prefix; nothing is shared.\n\n",
                s->vllm.prefix_caching == 0 ? "--no-enable-prefix-caching"
                : s->vllm.prefix_caching == 1 ? "asked for, but this model and release turn it off"
                                              : "the release's default for this model",
                fmt_int(a, sizeof a, s->prefix_requests, 1),
                fmt_int(b, sizeof b, s->prefix_tokens, 1));
        return;
    }
    kv_fprintf(out, "  Prefix caching shares whole blocks only: a %s-token prefix is %s blocks (%s "
                 "tokens);\n",
            fmt_int(a, sizeof a, s->prefix_tokens, 1),
            fmt_int(b, sizeof b, v->prefix_shared_blocks, 1),
            fmt_int(c, sizeof c, v->prefix_shared_tokens, 1));
    kv_fprintf(out, "  %s requests sharing it save %s GiB (~%s more concurrent), against %s GiB in "
                 "the estimate above.\n\n",
            fmt_int(a, sizeof a, s->prefix_requests, 1), gib(b, sizeof b, v->prefix_saved_bytes),
            fmt_fixed(c, sizeof c, v->prefix_extra_concurrency, 0, 0),
            gib(d, sizeof d, r->prefix_saved_bytes));
}
