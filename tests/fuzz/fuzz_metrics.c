/*
 * fuzz_metrics.c - libFuzzer target: arbitrary bytes as a /metrics scrape (one or two), through
 * the line reader (labels and their escapes, values, timestamps; overlong and NUL-holding
 * lines included), the measured figures and the program's path: the inputs a scrape gives,
 * the model it names and the workload it describes.
 * Seeds: tests/fixtures/metrics/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "frommetrics.h"
#include "keys.h"
#include "pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static kv_metrics m;
    static kv_options o;
    char err[1024];
    kv_metrics_init(&m);
    const char *p = (const char *)data, *end = p + size;
    kv_status st = KV_OK;
    while (st == KV_OK && p < end) { /* lines as the file reader cuts them; the last one too */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        st = kv_metrics_feed_line(&m, p, n, err, sizeof err);
        p += n + 1;
    }
    if (st != KV_OK || kv_metrics_finish(&m, err, sizeof err) != KV_OK)
        return 0;
    kv_metrics_comparison c;
    kv_metrics_measure(&m, size % 3 ? 0 : 30, &c);
    kv_metrics_inputs in;
    kv_metrics_inputs_of(&m, &in);
    memset(&o, 0, sizeof o);
    o.workload.requests = 50;
    o.workload.seed = 1;
    if (kv_frommetrics_workload(&c, &o) && c.rate < 1e6) {
        /* the measured workload on a small paged pool: the simulation takes what a scrape gives */
        kv_sched sc;
        memset(&sc, 0, sizeof sc);
        sc.kind = KV_SCHED_PAGED;
        sc.pool_blocks = 256;
        sc.group[0] = (kv_sched_group){.groups = 1, .block_size = 16};
        sc.n_groups = 1;
        sc.max_seqs = 16;
        sc.max_model_len = 4096;
        static char scratch[1 << 20];
        kv_workload_result w;
        if (kv_workload_scratch_bytes(&o.workload) <= sizeof scratch &&
            kv_workload_run(&sc, &o.workload, scratch, sizeof scratch, &w, NULL) == KV_OK)
            kv_metrics_predict(&c, NULL, &sc, &w);
    }
    return 0;
}
