/*
 * fuzz_trace.c - libFuzzer target: arbitrary bytes as a request trace, through the line
 * reader (CSV with its header, or JSON lines; overlong and NUL-holding lines included), then
 * as the requests of a workload on a small paged pool and on slots - the simulation's
 * every branch, bounded by the pool's context (longer requests are refused).
 * Seeds: tests/fixtures/traces/ and tests/fuzz/trace_seeds/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kvcalc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static kv_trace t;
    char err[1024];
    kv_trace_init(&t);
    const char *p = (const char *)data, *end = p + size;
    kv_status st = KV_OK;
    while (st == KV_OK && p < end) { /* lines as the file reader cuts them; the last one too */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        st = kv_trace_feed_line(&t, p, n, err, sizeof err);
        p += n + 1;
    }
    if (st == KV_OK)
        st = kv_trace_finish(&t, err, sizeof err);
    if (st != KV_OK || t.n > 4000) {
        kv_trace_free(&t);
        return 0;
    }
    kv_sched sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = KV_SCHED_PAGED;
    sc.engine_title = "fuzz";
    sc.pool_blocks = 64;
    sc.group[0] = (kv_sched_group){.groups = 2, .block_size = 16};
    sc.group[1] = (kv_sched_group){.groups = 1, .block_size = 16, .cap_blocks = 2};
    sc.n_groups = 2;
    sc.max_seqs = 8;
    sc.max_batched_tokens = 256;
    sc.max_model_len = 512;
    kv_workload w;
    memset(&w, 0, sizeof w);
    w.trace = t.rows;
    w.trace_n = t.n;
    w.arrivals = t.has_arrivals ? KV_ARRIVE_TRACE : KV_ARRIVE_POISSON;
    w.rate = 3;
    w.tpot_ms = 10;
    w.ttft_ms = 30;
    w.seed = size;
    size_t bytes = kv_workload_scratch_bytes(&w);
    void *mem = malloc(bytes);
    kv_workload_result r;
    if (mem) {
        kv_workload_run(&sc, &w, mem, bytes, &r, NULL);
        sc.kind = KV_SCHED_SLOTS; /* llama-server's slots, one shared stream */
        sc.n_groups = 1;
        sc.group[0] = (kv_sched_group){.groups = 1, .block_size = 1};
        sc.slot_tokens = 256;
        sc.max_seqs = 4;
        sc.pool_blocks = 600;
        sc.unified_fail_all = 1;
        kv_workload_run(&sc, &w, mem, bytes, &r, NULL);
        sc.kind = KV_SCHED_RESERVE; /* SGLang's reservation and retraction */
        sc.pool_blocks = 700;
        sc.unified_fail_all = 0;
        sc.max_prefill_tokens = 300;
        sc.clip_new_tokens = 64;
        sc.ratio_init = 0.7;
        sc.ratio_min = 0.098;
        sc.ratio_decay = 0.001;
        sc.retract_steps = 20;
        kv_workload_run(&sc, &w, mem, bytes, &r, NULL);
        free(mem);
    }
    kv_trace_free(&t);
    return 0;
}
