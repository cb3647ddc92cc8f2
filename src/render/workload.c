/*
 * workload.c - the workload's lines (--prompt-tokens, --output-tokens, --rate, ...): what
 * the lengths give on the engine's scheduler, and with a rate what the simulation found.
 * The figures come from the library's kv_workload_run(); this file lays them out.
 */
#include "kvprint.h"
#include "report.h"

#include "format.h"

#include <math.h>
#include <string.h>

#include "kvmath.h"

static const char *length_text(char *buf, size_t cap, const kv_dist *d)
{
    char a[FMT_BUF], b[FMT_BUF];
    if (d->kind == KV_DIST_FIXED)
        kv_snprintf(buf, cap, "%s tokens", fmt_int(a, sizeof a, (int64_t)d->value, 1));
    else /* the median and the p99 the fit stands for, whichever two were given */
        kv_snprintf(buf, cap, "log-normal, median %s, p99 %s",
                 fmt_fixed(a, sizeof a, kvm_exp(d->mu), 0, 1),
                 fmt_fixed(b, sizeof b, kvm_exp(d->mu + 2.3263478740408408 * d->sigma), 0, 1));
    return buf;
}

static const char *binding_words(const char *b)
{
    return strcmp(b, "kv_cache") == 0 ? "the KV cache" : strcmp(b, "prefill") == 0 ? "prefill compute" : b;
}

static const char *rate_text(char *buf, size_t cap, double r)
{
    return fmt_fixed(buf, cap, r, r < 10 ? 3 : r < 1000 ? 2 : 0, 1);
}

void report_workload_text(FILE *out, const kv_report *rep)
{
    const kv_workload *w = rep->workload_in;
    const kv_sched *sc = rep->sched;
    const kv_workload_result *r = rep->workload;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF], l1[96], l2[96];
    kv_fprintf(out, "Under your workload (%s's scheduler, %s requests%s):\n", r->rules_engine,
            fmt_int(a, sizeof a, r->requests, 1), r->simulated ? " simulated" : "");
    if (rep->trace) {
        char name[120];
        kv_fprintf(out, "  trace   : %s (%s; %s requests", text_safe_cut(name, sizeof name,
                                                                   rep->trace_name, 80),
                rep->trace->layout, fmt_int(a, sizeof a, (int64_t)rep->trace->n, 1));
        if (rep->trace->skipped > 0)
            kv_fprintf(out, ", %s left out with no prompt or no output",
                    fmt_int(b, sizeof b, (int64_t)rep->trace->skipped, 1));
        kv_fprintf(out, "%s)\n", w->arrivals == KV_ARRIVE_TRACE ? ", its own arrival times" : "");
        kv_fprintf(out, "  lengths : prompt mean %s, output mean %s\n",
                fmt_fixed(a, sizeof a, r->prompt_mean, 1, 1),
                fmt_fixed(b, sizeof b, r->output_mean, 1, 1));
    } else
        kv_fprintf(out, "  lengths : prompt %s (mean %s), output %s (mean %s)\n",
                length_text(l1, sizeof l1, &w->prompt), fmt_fixed(a, sizeof a, r->prompt_mean, 1, 1),
                length_text(l2, sizeof l2, &w->output), fmt_fixed(b, sizeof b, r->output_mean, 1, 1));
    if (r->rejected > 0 || r->truncated > 0)
        kv_fprintf(out, "            %s refused (longer than the %s-token context)%s%s\n",
                fmt_int(a, sizeof a, r->rejected, 1), fmt_int(b, sizeof b, sc->max_model_len, 1),
                r->truncated > 0 ? sc->prompt_truncate_to > 0 || sc->output_limit > 0
                                       ? ", cut (a prompt to the context, an output at the "
                                         "slot's end or its cap): "
                                       : ", truncated at the slot's end: "
                                 : "",
                r->truncated > 0 ? fmt_int(c, sizeof c, r->truncated, 1) : "");
    kv_fprintf(out, "  holds   : %s %s a request on average over its steps, so the pool's %s "
                 "%s%s hold ~%s at once",
            fmt_fixed(a, sizeof a, r->blocks_mean, 1, 1), sc->unit,
            fmt_int(b, sizeof b, sc->pool_blocks - r->prefix_blocks, 1), sc->unit,
            r->prefix_blocks > 0 ? " beside the prefix's" : "",
            fmt_fixed(c, sizeof c, r->fit_requests, 1, 1));
    if (sc->max_seqs > 0)
        kv_fprintf(out, " (%s %s)", sc->max_seqs_name, fmt_int(d, sizeof d, sc->max_seqs, 1));
    fputc('\n', out);
    if (r->prefix_blocks > 0) {
        if (sc->group[0].block_size > 1)
            kv_fprintf(out, "  prefix  : the shared %s tokens' %s full %s, held once and not "
                         "computed again (the pool's other %s for the requests)",
                    fmt_int(a, sizeof a, w->shared_prefix, 1),
                    fmt_int(b, sizeof b, r->prefix_blocks, 1), sc->unit,
                    fmt_int(c, sizeof c, sc->pool_blocks - r->prefix_blocks, 1));
        else
            kv_fprintf(out, "  prefix  : the shared %s tokens, held once and not computed again "
                         "(the pool's other %s for the requests)",
                    fmt_int(a, sizeof a, w->shared_prefix, 1),
                    fmt_int(c, sizeof c, sc->pool_blocks - r->prefix_blocks, 1));
        if (!isnan(r->prefix_hit_rate))
            kv_fprintf(out, "; %s%% of the tokens looked up found",
                    fmt_fixed(d, sizeof d, r->prefix_hit_rate * 100.0, 1, 1));
        fputc('\n', out);
    } else if (w->shared_prefix > 0 && sc->kind == KV_SCHED_SLOTS && sc->slot_reuse) {
        if (sc->prompt_cache_mib != 0)
            kv_fprintf(out, "  prefix  : the shared %s tokens, a copy in each slot that held it "
                         "and in the prompt cache (%s%s), not computed again where a task finds "
                         "it",
                    fmt_int(a, sizeof a, w->shared_prefix, 1),
                    sc->prompt_cache_mib < 0 ? "no limit" : fmt_int(b, sizeof b, sc->prompt_cache_mib, 1),
                    sc->prompt_cache_mib < 0 ? "" : " MiB");
        else
            kv_fprintf(out, "  prefix  : the shared %s tokens, a copy in each slot that held it "
                         "(no prompt cache), not computed again where a task finds it",
                    fmt_int(a, sizeof a, w->shared_prefix, 1));
        if (!isnan(r->prefix_hit_rate))
            kv_fprintf(out, "; %s%% of the tokens looked up found",
                    fmt_fixed(d, sizeof d, r->prefix_hit_rate * 100.0, 1, 1));
        fputc('\n', out);
    }
    if (!r->simulated && isnan(r->saturation_rate)) {
        if (rep->trace && w->arrivals == KV_ARRIVE_TRACE)
            fputs("  (give --tpot-ms, or a --gpu whose memory bandwidth kvcalc knows, to replay "
                  "the trace at its own times: occupancy, queueing and preemptions)\n", out);
        else
            fputs("  (give --rate for occupancy, queueing and preemptions, with --tpot-ms or a "
                  "--gpu whose memory bandwidth kvcalc knows)\n", out);
    }
    if (!isnan(r->saturation_rate)) {
        kv_fprintf(out, "  limit   : the queue grows without bound above %s req/s (%s binds first)\n",
                rate_text(a, sizeof a, r->saturation_rate), binding_words(r->binding));
        fputs("            each limit alone:", out);
        const char *sep = " ";
        if (!isnan(r->kv_cliff_rate)) {
            kv_fprintf(out, "%sthe KV cache %s req/s", sep, rate_text(a, sizeof a, r->kv_cliff_rate));
            sep = ", ";
        }
        if (!isnan(r->seq_cliff_rate)) {
            kv_fprintf(out, "%s%s %s req/s", sep, sc->max_seqs_name,
                    rate_text(a, sizeof a, r->seq_cliff_rate));
            sep = ", ";
        }
        if (!isnan(r->prefill_cliff_rate))
            kv_fprintf(out, "%sprefill compute %s req/s", sep,
                    rate_text(a, sizeof a, r->prefill_cliff_rate));
        fputc('\n', out);
    }
    if (r->simulated) {
        char step[FMT_BUF + 16];
        if (r->step_estimated) { /* the roofline's step, labelled with what it assumes */
            const kv_roofline *rf = &r->step_roofline;
            char name[120];
            kv_snprintf(step, sizeof step, "%s ms (estimated)",
                     fmt_fixed(a, sizeof a, r->step_s * 1000.0, 3, 1));
            kv_fprintf(out, "  step    : %s ms, estimated from the memory-bandwidth roofline of one "
                         "%s%s%s%s:\n",
                    fmt_fixed(a, sizeof a, r->step_s * 1000.0, 3, 1),
                    text_safe_cut(name, sizeof name, rf->gpu, 80), rf->form[0] ? " (" : "",
                    rf->form, rf->form[0] ? ")" : "");
            kv_fprintf(out,
                    "            (weights %s GB + KV %s GB of %s running requests) / %s GB/s\n",
                    fmt_fixed(a, sizeof a, rf->weights_bytes / 1e9, 2, 1),
                    fmt_fixed(b, sizeof b, r->step_kv_bytes / 1e9, 2, 1),
                    fmt_fixed(c, sizeof c, r->step_running, 1, 1),
                    fmt_fixed(d, sizeof d, rf->bandwidth / 1e9, 0, 1));
            kv_fprintf(out, "            (an estimate: %s)\n", r->step_assumes);
        } else
            kv_snprintf(step, sizeof step, "%s ms", fmt_g(a, sizeof a, w->tpot_ms));
        if (r->concurrency > 0)
            kv_fprintf(out, "  %s clients in a closed loop (%s req/s served), a step %s",
                    fmt_int(l1, sizeof l1, r->concurrency, 1), rate_text(a, sizeof a, r->rate),
                    step);
        else
            kv_fprintf(out, "  at %s req/s (%s), a step %s", rate_text(a, sizeof a, r->rate),
                    w->arrivals == KV_ARRIVE_EVEN    ? "evenly spaced"
                    : w->arrivals == KV_ARRIVE_TRACE ? "the trace's times, scaled"
                                                     : "Poisson",
                    step);
        if (r->prefill_token_s > 0)
            kv_fprintf(out, ", a prompt token %s ms (ttft %s ms)",
                    fmt_fixed(c, sizeof c, r->prefill_token_s * 1000.0, 4, 0),
                    fmt_g(d, sizeof d, w->ttft_ms));
        fputs(":\n", out);
        kv_fprintf(out, "    running %s, waiting %s (means); KV cache %s%% mean, %s%% p99; %s %s "
                     "(%s/s)\n",
                fmt_fixed(a, sizeof a, r->running_mean, 1, 1),
                fmt_fixed(b, sizeof b, r->waiting_mean, 1, 1),
                fmt_fixed(c, sizeof c, r->kv_usage_mean * 100.0, 1, 0),
                fmt_fixed(d, sizeof d, r->kv_usage_p99 * 100.0, 1, 0),
                fmt_int(l1, sizeof l1, r->preemptions, 1), sc->preempt_word,
                fmt_fixed(l2, sizeof l2, r->preemptions_per_s, 3, 1));
        if (isnan(r->time_in_system_s))
            kv_fprintf(out, "    no request finished in the measured window (%s %s): no time in "
                         "system, and no Little's law to check\n",
                    fmt_int(l1, sizeof l1, r->preemptions, 1), sc->preempt_word);
        else
            kv_fprintf(out, "    time in system %s s (first token after %s s); Little's law: %s x "
                         "%s = %s in the system (measured %s)\n",
                    fmt_fixed(a, sizeof a, r->time_in_system_s, 2, 1),
                    fmt_fixed(b, sizeof b, r->ttft_s, 3, 1), rate_text(c, sizeof c, r->rate),
                    fmt_fixed(d, sizeof d, r->time_in_system_s, 2, 1),
                    fmt_fixed(l1, sizeof l1, r->littles_law_requests, 1, 1),
                    fmt_fixed(l2, sizeof l2, r->running_mean + r->waiting_mean, 1, 1));
        if (r->concurrency == 0 && r->rate > r->saturation_rate)
            fputs("    (above the saturation rate the queue grows through the run: these means "
                  "depend on its length, --requests)\n", out);
        if (r->concurrency > 0)
            ; /* a closed loop has no rate to scan */
        else if (r->onset_cut)
            kv_fprintf(out, "  onset   : not searched to the end: the search stops after 2 x 10^8 "
                         "request-steps (%s requests; fewer search it)\n",
                    fmt_int(l1, sizeof l1, r->requests, 1));
        else if (isnan(r->preemption_onset_rate))
            kv_fprintf(out, "  onset   : no %s up to %s req/s\n", sc->preempt_word,
                    rate_text(a, sizeof a, 2.0 * (isnan(r->saturation_rate) ? r->rate
                                                                            : r->saturation_rate)));
        else
            kv_fprintf(out, "  onset   : %s start near %s req/s (the lowest rate that had any, on "
                         "these requests)\n",
                    sc->preempt_word, rate_text(a, sizeof a, r->preemption_onset_rate));
        if (r->replicas > 0)
            kv_fprintf(out, "  replicas: %s for %s req/s with %s%% headroom\n",
                    fmt_int(a, sizeof a, r->replicas, 1), rate_text(b, sizeof b, r->rate),
                    fmt_g(c, sizeof c, w->headroom * 100.0));
    }
    kv_fprintf(out, "  (rules: %s; left out: %s)\n\n", sc->rules, sc->left_out);
}
